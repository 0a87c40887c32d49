// An HTTP request body compressed as it is produced (Content-Encoding: deflate = a zlib stream), so
// a batch's columns go straight from their buffers into the body without a second uncompressed copy.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::exporter {

class DeflateStream {
  public:
    // LEVEL 1: speed over ratio, the body crosses a LAN or loopback.
    explicit DeflateStream(int level = 1);
    ~DeflateStream();
    DeflateStream(const DeflateStream&) = delete;
    DeflateStream& operator=(const DeflateStream&) = delete;

    // Starts a new body (the previous one is discarded).
    void reset();
    void add(std::span<const uint8_t> bytes);
    // Ends the stream; body() is complete after this. Errc::io if zlib failed at any step.
    Status finish();
    const std::vector<uint8_t>& body() const noexcept { return out_; }
    // Moves the finished body out (the stream is then empty until reset()).
    std::vector<uint8_t> take() noexcept { return std::move(out_); }

  private:
    void run(std::span<const uint8_t> in, int flush);

    struct Zlib;
    std::unique_ptr<Zlib> z_;
    std::vector<uint8_t> out_;
    bool failed_ = false;
};

}  // namespace ringscope::exporter
