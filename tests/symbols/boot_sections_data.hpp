// The boots of tests/symbols/boot_sections*_test.cpp: this boot's kallsyms (_text moved by KASLR,
// ext4's symbols, none of nosyms') and /proc/modules, and the previous boot's last_boot_info as
// 6.15 prints it (_text, and modules in the order they loaded, not by address).
#pragma once

namespace boot_sections_data {

constexpr const char* kKallsyms =
    "ffffffff9a000000 T _text\n"
    "ffffffff9a001000 T do_one\n"
    "ffffffff9a002000 T do_two\n"
    "ffffffffc0a00000 t ext4_fn\t[ext4]\n"
    "ffffffffc0a00400 t ext4_fn2\t[ext4]\n"
    "ffffffffc0a00800 t ext4_end\t[ext4]\n"
    "ffffffffc0d00000 t later_fn\t[later]\n";

// /proc/modules of 6.x as it reads (taints after the address on some lines; 0 when hidden).
constexpr const char* kModules =
    "nosyms 8192 0 - Live 0xffffffffc0c00000\n"
    "ext4 1064960 1 - Live 0xffffffffc0a00000 (E)\n"
    "hidden 4096 0 - Live 0x0000000000000000\n";

constexpr const char* kLastBoot615 =
    "ffffffff81000000\t[kernel]\n"
    "ffffffffc0100000\text4\n"
    "ffffffffc0500000\tgone_mod\n"
    "ffffffffc0300000\tnosyms\n";

}  // namespace boot_sections_data
