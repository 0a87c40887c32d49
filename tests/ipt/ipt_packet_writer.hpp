// Encodes packets with one libipt encoder over a small scratch buffer, rewound for each packet
// (the test streams' generators: ipt_stream_generator.cpp, bench/ipt/flow_program.cpp).
#pragma once

#include <intel-pt.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringscope::ipt::testing {

class PacketWriter {
  public:
    explicit PacketWriter(std::vector<uint8_t>& out) : out_(out) {
        std::memset(&config_, 0, sizeof config_);
        config_.size = sizeof config_;
        config_.begin = buf_;
        config_.end = buf_ + sizeof buf_;
        enc_ = pt_alloc_encoder(&config_);
        if (!enc_) throw std::runtime_error("pt_alloc_encoder failed");
    }
    ~PacketWriter() { pt_free_encoder(enc_); }
    PacketWriter(const PacketWriter&) = delete;
    PacketWriter& operator=(const PacketWriter&) = delete;

    void put(const pt_packet& packet) {
        pt_enc_sync_set(enc_, 0);
        pt_packet copy = packet;
        int size = pt_enc_next(enc_, &copy);
        if (size < 0) throw std::runtime_error(std::string("pt_enc_next: ") + pt_errstr(pt_errcode(size)));
        out_.insert(out_.end(), buf_, buf_ + size);
    }

  private:
    std::vector<uint8_t>& out_;
    uint8_t buf_[64];
    pt_config config_;
    pt_encoder* enc_ = nullptr;
};

}  // namespace ringscope::ipt::testing
