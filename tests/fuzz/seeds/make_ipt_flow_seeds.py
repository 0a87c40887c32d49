#!/usr/bin/env python3
"""Writes tests/fuzz/seeds/fuzz_ipt_flow/special_*: short PT streams (packets by hand) that go
through fuzz_ipt_flow's fixed section of special branches at 0x1000 (kSpecial in
tests/ipt/fuzz_ipt_flow.cpp) and its own code at 0x2000: TSX begin/commit/abort, syscalls, far
branches, a PIP at mov cr3, VMCS packets at vmlaunch and vmresume, an overflow, a disable and enable
in 32-bit and 16-bit mode, PSBs between, a jump to itself (and a stream of nothing else). Five
option sets (the input's first 4 bytes).
    tests/fuzz/seeds/make_ipt_flow_seeds.py tests/fuzz/seeds/fuzz_ipt_flow"""
import os
import sys

PSB = bytes([0x02, 0x82] * 8)
PSBEND = bytes([0x02, 0x23])
OVF = bytes([0x02, 0xF3])
TSC = bytes([0x19, 1, 2, 3, 4, 5, 6, 0])
CBR = bytes([0x02, 0x03, 0x20, 0x00])
PIP = bytes([0x02, 0x43, 0x00, 0x10, 0, 0, 0, 0])
VMCS = bytes([0x02, 0xC8, 0x00, 0x20, 0, 0, 0])
TIP, FUP, PGE, PGD = 0x0D, 0x1D, 0x11, 0x01


def mode_exec(bits):
    return bytes([0x99, {64: 1, 32: 2, 16: 0}[bits]])


def tsx(intx, abort):
    return bytes([0x99, 0x20 | intx | (abort << 1)])


def ip16(header, ip):  # IP compression 1: the last IP's low 16 bits replaced
    return bytes([header | (1 << 5), ip & 0xFF, (ip >> 8) & 0xFF])


def tnt(bits):  # a short TNT, up to 6 bits
    v = 1
    for b in bits:
        v = (v << 1) | b
    return bytes([v << 1])


# kSpecial's instructions and their lengths, in order from 0x1000.
SPECIAL = [("xbegin", 6), ("xend", 3), ("xabort", 3), ("syscall", 2), ("sysret", 3), ("iret", 2),
           ("int3", 1), ("int80", 2), ("callfar", 2), ("jmpfar", 2), ("retf", 1), ("ptwrite", 5),
           ("vmlaunch", 3), ("vmresume", 3), ("vmcall", 3), ("movcr3", 3), ("jmprax", 2), ("callrax", 2),
           ("jz", 2), ("loop", 2), ("jrcxz", 2), ("call0", 5), ("jmp0", 2), ("nop", 1), ("ret8", 3),
           ("sysenter", 2), ("sysexit", 2), ("hlt", 1), ("ud2", 2), ("ret", 1)]
AT = {}
_a = 0x1000
for _name, _size in SPECIAL:
    AT[_name] = _a
    _a += _size

# The input's own code at 0x2000: jz +2, jmp to itself, call +0, ret, jmp rax.
OWN = bytes([0x74, 0x02, 0xEB, 0xFE, 0xE8, 0, 0, 0, 0, 0xC3, 0xFF, 0xE0])


def stream():
    s = PSB + TSC + CBR + mode_exec(64) + ip16(FUP, AT["xbegin"]) + PSBEND
    # xbegin, xend, xabort, syscall: to iret, jmp rax, call rax, jz (taken), jrcxz (not), call +0, ...
    s += ip16(TIP, AT["iret"]) + ip16(TIP, AT["jmprax"]) + ip16(TIP, AT["callrax"]) + ip16(TIP, AT["jz"])
    s += tnt([1, 0, 1, 1, 0, 1]) + tsx(1, 0) + ip16(FUP, AT["xend"]) + tsx(0, 0) + ip16(FUP, AT["xabort"])
    s += ip16(TIP, AT["jz"]) + tnt([1, 0, 1, 1]) + ip16(TIP, AT["ret"])
    # From a PSB at mov cr3 (a PIP), jmp rax to vmlaunch, on to vmresume and syscall (VMCS packets).
    s += PSB + mode_exec(64) + ip16(FUP, AT["movcr3"]) + PSBEND + PIP + ip16(TIP, AT["vmlaunch"]) + VMCS
    s += ip16(TIP, AT["vmresume"]) + VMCS + ip16(TIP, AT["syscall"]) + ip16(TIP, AT["ptwrite"])
    s += ip16(TIP, AT["vmlaunch"]) + tsx(1, 0) + tsx(0, 1)
    s += ip16(TIP, AT["ptwrite"])
    s += OVF + ip16(FUP, AT["nop"]) + tnt([0, 1]) + ip16(PGD, AT["ret8"]) + mode_exec(32) + ip16(PGE, AT["jz"])
    s += tnt([1, 1, 1]) + ip16(TIP, AT["callfar"]) + ip16(TIP, AT["retf"]) + mode_exec(16)
    s += ip16(TIP, AT["loop"]) + tnt([1, 1, 0])
    s += PSB + mode_exec(64) + ip16(FUP, AT["call0"]) + PSBEND + tnt([1, 0, 1, 0, 1, 0]) + ip16(TIP, 0x2000)
    s += tnt([1, 0, 1, 0]) + ip16(PGD, 0)
    return s


def loops():  # PSB+ at the own code's jmp to itself: ipt flow's bound on instructions without trace
    fup = bytes([FUP | (3 << 5), 0x02, 0x20, 0, 0, 0, 0])  # 0x2002, sign-extended 48 bits
    return (PSB + mode_exec(64) + fup + PSBEND + tnt([1])) * 3


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    s = stream()
    # name: option bytes a, b (see fuzz_ipt_flow.cpp's parse), the stream
    for name, a, b, pt in [("insn", 0x00, 0x00, s), ("block_resync", 0x03, 0x01, s),
                           ("jobs_events", 0x7C, 0x22, s + s), ("master_check", 0x11, 0x9C, s),
                           ("loops", 0x01, 0x20, loops())]:
        with open(os.path.join(out, "special_" + name), "wb") as f:
            f.write(bytes([a, b, len(OWN), 0]) + OWN + pt)


if __name__ == "__main__":
    main()
