#include "ipt/packet_reader.hpp"

namespace ringscope::ipt {

int ptw_size(uint8_t plc) noexcept {
    switch (plc) {
        case 0:
            return 4;
        case 1:
            return 8;
        default:
            return -pte_bad_packet;
    }
}

}  // namespace ringscope::ipt
