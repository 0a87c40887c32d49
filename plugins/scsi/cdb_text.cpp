#include "cdb_text.hpp"

namespace ringscope::scsi {
namespace {

// Opcodes (SPC/SBC) the decoder knows.
enum : uint8_t {
    kRead6 = 0x08,
    kWrite6 = 0x0a,
    kRead10 = 0x28,
    kWrite10 = 0x2a,
    kVerify = 0x2f,
    kWriteSame = 0x41,
    kUnmap = 0x42,
    kVariableLength = 0x7f,
    kRead16 = 0x88,
    kWrite16 = 0x8a,
    kVerify16 = 0x8f,
    kWriteSame16 = 0x93,
    kServiceActionIn16 = 0x9e,
    kRead12 = 0xa8,
    kWrite12 = 0xaa,
    kVerify12 = 0xaf,
};

class Cdb {
  public:
    explicit Cdb(std::span<const uint8_t> b) : b_(b) {}
    uint64_t operator[](size_t i) const { return i < b_.size() ? b_[i] : 0; }
    // Big-endian number of `n` bytes from `at`.
    uint64_t be(size_t at, size_t n) const {
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i) v = v << 8 | (*this)[at + i];
        return v;
    }
    uint64_t service_action16() const { return (*this)[1] & 0x1f; }
    uint64_t service_action32() const { return (*this)[8] << 8 | (*this)[9]; }

  private:
    std::span<const uint8_t> b_;
};

void rw(TextBuffer& out, uint64_t lba, uint64_t txlen, uint64_t protect) {
    out.appendf("lba=%llu txlen=%llu protect=%u", static_cast<unsigned long long>(lba),
                static_cast<unsigned long long>(txlen), static_cast<unsigned>(protect));
}

void rw32(const Cdb& c, TextBuffer& out) {
    const char* cmd = nullptr;
    switch (c.service_action32()) {
        case 0x09:
            cmd = "READ";
            break;
        case 0x0a:
            cmd = "VERIFY";
            break;
        case 0x0b:
            cmd = "WRITE";
            break;
        case 0x0d:
            cmd = "WRITE_SAME";
            break;
        default:
            out.append("-");
            return;  // other variable-length commands: the "misc" text
    }
    out.appendf("%s_32 lba=%llu txlen=%llu protect=%u ei_lbrt=%u", cmd,
                static_cast<unsigned long long>(c.be(12, 8)), static_cast<unsigned long long>(c.be(28, 4)),
                static_cast<unsigned>(c[10] >> 5), static_cast<unsigned>(c.be(20, 4)));
    if (c.service_action32() == 0x0d) out.appendf(" unmap=%u", static_cast<unsigned>(c[10] >> 3 & 1));
}

}  // namespace

void append_cdb_text(std::span<const uint8_t> bytes, uint64_t, TextBuffer& out) {
    const Cdb c(bytes);
    switch (c[0]) {
        case kRead6:
        case kWrite6:
            out.appendf("lba=%llu txlen=%llu",
                        static_cast<unsigned long long>((c[1] & 0x1f) << 16 | c.be(2, 2)),
                        static_cast<unsigned long long>(c[4]));
            break;
        case kRead10:
        case kVerify:
        case kWrite10:
        case kWriteSame:
            rw(out, c.be(2, 4), c.be(7, 2), c[1] >> 5);
            if (c[0] == kWriteSame) out.appendf(" unmap=%u", static_cast<unsigned>(c[1] >> 3 & 1));
            break;
        case kRead12:
        case kVerify12:
        case kWrite12:
            rw(out, c.be(2, 4), c.be(6, 4), c[1] >> 5);
            break;
        case kRead16:
        case kVerify16:
        case kWrite16:
        case kWriteSame16:
            rw(out, c.be(2, 8), c.be(10, 4), c[1] >> 5);
            if (c[0] == kWriteSame16) out.appendf(" unmap=%u", static_cast<unsigned>(c[1] >> 3 & 1));
            break;
        case kUnmap:
            // The parameter list length minus its 8-byte header, in 16-byte descriptors (unsigned).
            out.appendf("regions=%u", (static_cast<unsigned>(c.be(7, 2)) - 8u) / 16u);
            break;
        case kServiceActionIn16: {
            const char* cmd = c.service_action16() == 0x10   ? "READ_CAPACITY_16"
                              : c.service_action16() == 0x12 ? "GET_LBA_STATUS"
                                                             : nullptr;
            if (!cmd) {
                out.append("UNKNOWN");
                break;
            }
            out.appendf("%s lba=%llu alloc_len=%u", cmd, static_cast<unsigned long long>(c.be(2, 8)),
                        static_cast<unsigned>(c.be(10, 4)));
            break;
        }
        case kVariableLength:
            rw32(c, out);
            break;
        default:
            out.append("-");
            break;
    }
}

}  // namespace ringscope::scsi
