// Oracle for `ringscope dump-pages`: walks every sub-buffer of a raw trace_pipe_raw capture with
// libtraceevent's kbuffer and prints the dump-pages lines.
// Usage: kbuffer_dump_oracle FILE [SUBBUF_SIZE [host|big|little [0|4|8]]]
// The validation (short chunk, commit past the chunk) is done here because kbuffer trusts its
// input; kbuffer itself is what is being compared on every loadable sub-buffer.
#include <kbuffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long rd(const unsigned char* p, int n, int swap) {
    unsigned long long v = 0;
    if (n == 8) {
        memcpy(&v, p, 8);
        if (swap) v = __builtin_bswap64(v);
    } else {
        unsigned int w;
        memcpy(&w, p, 4);
        v = swap ? __builtin_bswap32(w) : w;
    }
    return v;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [SUBBUF_SIZE [host|big|little [0|4|8]]]\n", argv[0]);
        return 2;
    }
    long subbuf = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
    if (subbuf <= 0) subbuf = sysconf(_SC_PAGESIZE);
    enum kbuffer_endian endian = KBUFFER_ENDIAN_SAME_AS_HOST;
    int swap = 0;
    if (argc > 3 && strcmp(argv[3], "big") == 0) {
        endian = KBUFFER_ENDIAN_BIG;
        swap = 1;
    } else if (argc > 3 && strcmp(argv[3], "little") == 0) {
        endian = KBUFFER_ENDIAN_LITTLE;
    }
    enum kbuffer_long_size lsize = KBUFFER_LSIZE_SAME_AS_HOST;
    int lbytes = sizeof(long);
    if (argc > 4 && atoi(argv[4]) == 4) {
        lsize = KBUFFER_LSIZE_4;
        lbytes = 4;
    } else if (argc > 4 && atoi(argv[4]) == 8) {
        lsize = KBUFFER_LSIZE_8;
        lbytes = 8;
    }
    int start = 8 + lbytes;

    FILE* f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    struct kbuffer* kbuf = kbuffer_alloc(lsize, endian);
    // Room past the chunk so that kbuffer's unchecked reads of a stored count stay inside.
    unsigned char* buf = calloc(1, subbuf + 64);
    long off = 0;
    for (int page = 0;; page++, off += subbuf) {
        memset(buf, 0, subbuf + 64);
        size_t n = fread(buf, 1, subbuf, f);
        if (n == 0) break;
        unsigned long long commit = n >= (size_t)start ? rd(buf + 8, lbytes, swap) : 0;
        unsigned int size = commit & ((1 << 27) - 1);
        int stored = (commit & (1UL << 31)) && (commit & (1UL << 30));
        if (n < (size_t)start || n < (size_t)subbuf || start + size > (unsigned long)n ||
            (stored && start + size + lbytes > (unsigned long)n)) {
            printf("page %d offset %ld: load failed\n", page, off);
            continue;
        }
        if (kbuffer_load_subbuffer(kbuf, buf) < 0) {
            printf("page %d offset %ld: load failed\n", page, off);
            continue;
        }
        printf("page %d offset %ld: timestamp:%llu subbuffer_size:%d start_of_data:%d missed_events:%d\n",
               page, off, kbuffer_subbuf_timestamp(kbuf, buf), kbuffer_subbuffer_size(kbuf),
               kbuffer_start_of_data(kbuf), kbuffer_missed_events(kbuf));
        int i = 0;
        unsigned long long ts;
        void* event;
        do {
            event = kbuffer_read_event(kbuf, &ts);
            if (event) {
                printf(" event %3d ts:%lld\trecord_size:%d size:%d\tindex:%d offset:%d\n", i++, ts,
                       kbuffer_curr_size(kbuf), kbuffer_event_size(kbuf), kbuffer_curr_index(kbuf),
                       kbuffer_curr_offset(kbuf));
                event = kbuffer_next_event(kbuf, NULL);
            }
        } while (event);
        printf("page %d: %d events\n", page, i);
    }
    free(buf);
    kbuffer_free(kbuf);
    fclose(f);
    return 0;
}
