// cpu_write CPU FILE [SECS]: the tracefs_cpu_read(3) example with the ringscope SDK. Creates the
// instance "cpu_write", copies its CPU's raw ring buffer into FILE from a writer thread for SECS
// seconds (10 by default), stops and joins the thread, then flushes the rest with tracing off.
// Unlike the C example, the instance is removed at the end (it would otherwise stay behind).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <ringscope/tracefs.hpp>

using namespace ringscope;

namespace {

struct ThreadData {
    tracefs::TracefsCpu* tcpu = nullptr;
    std::atomic<bool> done{false};
    int fd = -1;
};

void thread_run(ThreadData& data) {
    while (!data.done) {
        const int ret = data.tcpu->write(data.fd, false);
        std::printf("wrote %d\n", ret);
    }
}

}  // namespace

int main(int argc, char** argv) {
    int secs = 10;
    if (argc < 3 || !std::isdigit(static_cast<unsigned char>(argv[1][0]))) {
        std::printf("usage: %s cpu file_destination [sleep secs]\n\n", argv[0]);
        return 255;
    }
    const int cpu = std::atoi(argv[1]);
    const char* file = argv[2];
    if (argc > 3) secs = std::atoi(argv[3]);

    auto instance = tracefs::Instance::create("cpu_write");
    if (!instance) {
        std::fprintf(stderr, "create instance: %s\n", instance.error().to_string().c_str());
        return 255;
    }
    int status = 0;
    {
        auto tcpu = tracefs::TracefsCpu::open(*instance, cpu, false);
        if (!tcpu) {
            std::fprintf(stderr, "Open instance: %s\n", tcpu.error().to_string().c_str());
            (void)instance->destroy();
            return 255;
        }
        ThreadData data;
        data.tcpu = &*tcpu;
        data.fd = ::open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (data.fd < 0) {
            std::perror(file);
            (void)instance->destroy();
            return 255;
        }
        std::thread thread(thread_run, std::ref(data));
        ::sleep(static_cast<unsigned>(secs));

        data.done = true;
        std::printf("stopping\n");
        int ret = tcpu->stop();
        std::printf("joining %d\n", ret);
        thread.join();

        (void)instance->set_tracing_on(false);
        do {
            ret = tcpu->flush_write(data.fd);
            std::printf("flushed %d\n", ret);
        } while (ret > 0);
        (void)instance->set_tracing_on(true);
        if (::close(data.fd) != 0) status = 1;
    }  // closes trace_pipe_raw: the instance can go
    if (Status st = instance->destroy(); !st) {
        std::fprintf(stderr, "remove instance: %s\n", st.error().to_string().c_str());
        status = 1;
    }
    return status;
}
