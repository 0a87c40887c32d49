// Live tracing through tracefs: find (or mount) it, create and remove instances, enable events,
// size the buffers, read the metadata a trace.dat carries, and read the per-CPU raw ring buffers
// (libtracefs's tracefs_cpu_read(3) family).
//
// Errors are values with the tracefs path in Error::file(); the per-CPU reader returns ints as the
// man page does (bytes, or negative with errno set) because it sits on the hot path.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringscope/error.hpp"

namespace ringscope::tracefs {

// Where tracefs is mounted: /sys/kernel/tracing, else /sys/kernel/debug/tracing; when neither is
// there and `mount_if_missing`, mounts tracefs on /sys/kernel/tracing. RINGSCOPE_TRACEFS overrides
// the search (tests point it at a missing or read-only directory). Errc::not_found when missing.
Expected<std::string> find_tracefs(bool mount_if_missing = true);

// per_cpu/cpuN/stats, parsed ("oldest event ts"/"now ts" are kept only in `text`).
struct CpuStats {
    uint64_t entries = 0;
    uint64_t overrun = 0;         // events overwritten before they were read
    uint64_t commit_overrun = 0;  // events lost because the buffer was too small for a nested write
    uint64_t bytes = 0;
    uint64_t dropped_events = 0;  // events dropped (no overwrite mode)
    uint64_t read_events = 0;
    std::string text;  // the file as the kernel wrote it (what trace.dat's CPUSTAT option stores)

    uint64_t lost() const noexcept { return overrun + commit_overrun + dropped_events; }
};

// A trace buffer: the top one (name "") or instances/NAME. Copyable handle; destroy() removes the
// instance directory (the destructor never does).
class Instance {
  public:
    // The top-level buffer of the tracefs at `root` (find_tracefs() when empty).
    static Expected<Instance> top(const std::string& root = {});
    // Creates instances/NAME. Errc::invalid_argument when it exists already (someone else's
    // buffer: never reuse it silently), Errc::io when tracefs is not writable.
    static Expected<Instance> create(const std::string& name, const std::string& root = {});
    // An instance that exists (Errc::not_found otherwise).
    static Expected<Instance> open(const std::string& name, const std::string& root = {});
    Status destroy();

    const std::string& name() const noexcept { return name_; }
    const std::string& root() const noexcept { return root_; }  // the tracefs mount
    const std::string& dir() const noexcept { return dir_; }    // root, or root/instances/NAME
    std::string path(std::string_view file) const;              // dir/file
    bool is_top() const noexcept { return name_.empty(); }

    Expected<std::string> read(std::string_view file) const;
    // Replaces the content (O_TRUNC) / appends (set_event style).
    Status write(std::string_view file, std::string_view text) const;
    Status append(std::string_view file, std::string_view text) const;

    // Events: `system` and `event` may be globs ("sched", "sched_*", "*"); an empty event = all the
    // system's events. Errc::not_found when nothing matches.
    Status enable_events(std::string_view system, std::string_view event = {}) const;
    Status disable_events(std::string_view system, std::string_view event = {}) const;
    // "sys:event" lines of set_event (the enabled events).
    Expected<std::vector<std::string>> enabled_events() const;
    // The systems/events that match the globs, as {system, event} pairs, sorted.
    Expected<std::vector<std::pair<std::string, std::string>>> match_events(
        std::string_view system, std::string_view event = {}) const;

    Expected<uint64_t> buffer_size_kb() const;  // per CPU
    Status set_buffer_size_kb(uint64_t kb) const;
    // The sub-buffer size in bytes (buffer_subbuf_size_kb, else the page size).
    Expected<uint32_t> subbuf_size() const;
    Status set_subbuf_size_kb(uint32_t kb) const;
    Expected<std::string> clock() const;  // the selected one, without brackets
    Status set_clock(std::string_view clock) const;
    Expected<bool> tracing_on() const;
    Status set_tracing_on(bool on) const;
    Status clear() const;  // empties the ring buffer

    // CPUs that have a per_cpu directory (online at boot), sorted.
    Expected<std::vector<int>> cpus() const;
    Expected<CpuStats> cpu_stats(int cpu) const;

  private:
    Instance(std::string root, std::string name);
    std::string root_, name_, dir_;
};

// Top-level metadata (the same for every instance).
Expected<std::string> read_header_page(const std::string& root);
Expected<std::string> read_header_event(const std::string& root);
Expected<std::string> read_event_format(const std::string& root, std::string_view system,
                                        std::string_view event);
Expected<std::vector<std::string>> event_systems(const std::string& root);  // sorted, "ftrace" included
Expected<std::vector<std::string>> system_events(const std::string& root, std::string_view system);
Expected<std::string> read_printk_formats(const std::string& root);
Expected<std::string> read_saved_cmdlines(const std::string& root);
Expected<std::string> read_kallsyms();  // /proc/kallsyms

// One CPU's trace_pipe_raw (tracefs_cpu_open). Move-only; closes its descriptors.
class TracefsCpu {
  public:
    // nonblock: every read is non-blocking (TracefsCpu::stop() is then a no-op).
    static Expected<TracefsCpu> open(const Instance& instance, int cpu, bool nonblock = false);
    // An existing descriptor that yields sub-buffers of `subbuf_size` bytes (tracefs_cpu_alloc_fd);
    // takes ownership of fd.
    static Expected<TracefsCpu> from_fd(int fd, int subbuf_size, bool nonblock = false);
    TracefsCpu(TracefsCpu&& o) noexcept;
    TracefsCpu& operator=(TracefsCpu&& o) noexcept;
    TracefsCpu(const TracefsCpu&) = delete;
    TracefsCpu& operator=(const TracefsCpu&) = delete;
    ~TracefsCpu();

    int fd() const noexcept { return fd_; }
    int cpu() const noexcept { return cpu_; }
    // The sub-buffer size: the minimum buffer size for read(), buffered_read() and flush().
    int read_size() const noexcept { return subbuf_size_; }

    // One read of trace_pipe_raw (a sub-buffer, or less when the writer's page is not full).
    // 0 when nonblock and nothing is there, or after stop().
    int read(void* buffer, bool nonblock);
    // Like read(), batched through a splice pipe: only whole sub-buffers.
    int buffered_read(void* buffer, bool nonblock);
    // Splices whole sub-buffers into wfd (through the internal pipe; falls back to read/write
    // where the target cannot be spliced to). Bytes written.
    int write(int wfd, bool nonblock);
    // wfd is a pipe already: one splice.
    int pipe(int wfd, bool nonblock);
    // Wakes a reader blocked in another thread. 0: waiters surely woken; 1: the kernel could not
    // promise it (send a signal); negative on error. Reads become non-blocking from then on.
    int stop();
    // The rest of the data at the end of a trace (switches to non-blocking): bytes, 0 when empty.
    int flush(void* buffer);
    int flush_write(int wfd);

    // The splice pipe's capacity (F_SETPIPE_SZ; the kernel may round it). Before the first
    // buffered_read()/write(). Returns the size granted or negative.
    int set_pipe_size(int bytes);

  private:
    TracefsCpu() = default;
    int wait_on_input(bool nonblock);
    int init_splice();
    void set_nonblock(bool on);
    void close_all() noexcept;

    int fd_ = -1;
    int cpu_ = -1;
    int subbuf_size_ = 0;
    int ctrl_[2] = {-1, -1};
    int splice_[2] = {-1, -1};
    int pipe_size_ = 0;
    int want_pipe_size_ = 0;
    int buffered_ = 0;
    std::vector<char> scratch_;  // one sub-buffer, for the copies that cannot be spliced
    // stop() runs in another thread than the reads: the mode flags are shared.
    std::atomic<bool> nonblock_{false};       // the descriptor is O_NONBLOCK now
    std::atomic<bool> perm_nonblock_{false};  // opened so, or stopped
};

}  // namespace ringscope::tracefs
