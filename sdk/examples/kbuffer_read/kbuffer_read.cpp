// The example of libtraceevent's kbuffer_read_event(3) man page on ringscope::SubBuffer: reads one
// raw sub-buffer file (e.g. dd count=1 bs=4096 if=.../per_cpu/cpu0/trace_pipe_raw), prints every
// event, then looks event 20 up again by its offset. Same arguments and output as the original.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <ringscope/sub_buffer.hpp>
#include <span>
#include <vector>

// The file's bytes; false after the error line (`size`: the file's size).
static bool read_whole(const char* path, std::vector<uint8_t>& buf, size_t& got, off_t& size) {
    struct stat st;
    if (stat(path, &st) < 0) {
        std::perror("stat");
        return false;
    }
    size = st.st_size;
    try {
        buf.resize(static_cast<size_t>(st.st_size));
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "Allocating buffer: out of memory\n");
        return false;
    }
    const int fd = open(path, O_RDONLY);
    if (fd < 0) {
        std::perror(path);
        return false;
    }
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0) {
        std::perror("Reading buffer");
        return false;
    }
    close(fd);
    got = static_cast<size_t>(n);
    return true;
}

// Prints every event of the loaded sub-buffer; the offset of event 20 (-1 when there are fewer).
static int print_events(ringscope::SubBuffer& kbuf) {
    uint64_t ts = 0;
    int save_offset = -1;
    int i = 0;
    for (const uint8_t* event = kbuf.read_event(&ts); event; event = kbuf.read_event(&ts)) {
        const int offset = kbuf.curr_offset();
        if (i == 20) save_offset = offset;
        std::printf(" event %3d ts:%lld\trecord_size:%d size:%d\tindex:%d offset:%d\n", i++,
                    static_cast<long long>(ts), kbuf.curr_size(), kbuf.event_size(), kbuf.curr_index(),
                    offset);
        if (!kbuf.next_event(nullptr)) break;
    }
    std::printf("Finished sub buffer\n");
    if (!kbuf.status()) std::fprintf(stderr, "%s\n", kbuf.status().error().to_string().c_str());
    return save_offset;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::printf("usage: %s raw-subbuffer-page\n", argv[0]);
        std::printf(
            " Try: dd count=1 bs=4096 if=/sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw of=/tmp/file\n");
        return 0;
    }
    std::vector<uint8_t> buf;
    size_t got = 0;
    off_t size = 0;
    if (!read_whole(argv[1], buf, got, size)) return -1;

    auto kbuf =
        ringscope::SubBuffer::alloc(ringscope::SubBufferEndian::host, ringscope::SubBufferLongSize::host);
    if (!kbuf) {
        std::fprintf(stderr, "Creating kbuffer: %s\n", kbuf.error().to_string().c_str());
        return -1;
    }
    // Only the bytes actually read may be looked at.
    if (auto loaded = kbuf->load(std::span<const uint8_t>(buf.data(), got)); !loaded) {
        std::fprintf(stderr, "Loading sub bufer: %s\n", loaded.error().to_string().c_str());
        return -1;
    }
    if (kbuf->subbuffer_size() > size) {
        std::fprintf(stderr, "kbuffer is bigger than raw size %d > %ld\n", kbuf->subbuffer_size(),
                     static_cast<long>(size));
        return -1;
    }

    const int missed = kbuf->missed_events();
    if (missed) {
        if (missed > 0)
            std::printf("Missed %d events before this buffer\n", missed);
        else
            std::printf("Missed unknown number of events before this buffer\n");
    }
    const int save_offset = print_events(*kbuf);
    if (save_offset > 0) {
        uint64_t ts = 0;
        if (!kbuf->read_at_offset(save_offset, &ts)) {
            std::fprintf(stderr, "Funny, can't find event 20 at offset %d\n", save_offset);
            return -1;
        }
        std::printf("\n saved event 20 ts:%lld\trecord_size:%d size:%d\tindex:%d offset:%d\n\n",
                    static_cast<long long>(ts), kbuf->curr_size(), kbuf->event_size(), kbuf->curr_index(),
                    kbuf->curr_offset());
    }
    return 0;
}
