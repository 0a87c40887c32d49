#!/usr/bin/env python3
"""Writes the hand-made Intel PT streams of bench/ipt/README.md, for `ipt_bench --read FILE`.

Usage: bench/ipt/make_streams.py KIND SIZE_MIB OUT.pt
KIND: tnt (TNT-8 of 6 bits), tntrand (TNT-8 of 1-6 bits), tip (TIP with 16-bit updates),
alt (TNT-8 and TIP in turn), mixfixed (70 % TNT-8 of 6 bits, 30 % TIP, at random),
mixrand (the same with TNT-8 of 1-6 bits). A PSB+ (MODE.exec, FUP) starts every 4 KiB.
Crafted inputs for `ipt sync` (issue #25; tests/ipt/ipt_sync_test.cpp makes the same): psbflood
(PSB after PSB), psbplusflood (PSB PSBEND ...), badpsbflood (PSB+ then an undefined opcode: every
sync fails after PSBEND), psbpairflood (PSB PSB PSBEND ...), shortruns (pattern one byte short
of a PSB, then a PAD).
"""
import random
import sys

PSB_PLUS = (bytes([0x02, 0x82] * 8) + bytes([0x99, 0x01]) + bytes([0x7d]) +
            (0x7f1234560000).to_bytes(6, 'little') + bytes([0x02, 0x23]))


def tnt8(bits, rng):
    return bytes([((1 << bits) | rng.getrandbits(bits)) << 1])


def tip16(rng):
    return bytes([0x2d]) + rng.getrandbits(16).to_bytes(2, 'little')


def packet(kind, i, rng):
    if kind == 'tnt':
        return tnt8(6, rng)
    if kind == 'tntrand':
        return tnt8(1 + rng.randrange(6), rng)
    if kind == 'tip':
        return tip16(rng)
    if kind == 'alt':
        return tnt8(6, rng) if i % 2 == 0 else tip16(rng)
    if kind == 'mixfixed':
        return tnt8(6, rng) if rng.random() < 0.7 else tip16(rng)
    if kind == 'mixrand':
        return tnt8(1 + rng.randrange(6), rng) if rng.random() < 0.7 else tip16(rng)
    raise SystemExit(f'make_streams.py: unknown kind {kind}')


PSB = bytes([0x02, 0x82] * 8)
PSBEND = bytes([0x02, 0x23])
FLOODS = {
    'psbflood': PSB,
    'psbplusflood': PSB + PSBEND,
    'badpsbflood': PSB + bytes([0x99, 0x01, 0x7d, 0x00, 0x10, 0, 0, 0, 0]) + PSBEND + bytes([0x02, 0xff]),
    'psbpairflood': PSB + PSB + PSBEND,
    'shortruns': PSB[:-1] + bytes([0x00]),
}


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    kind, size, path = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]
    if kind in FLOODS:
        unit = FLOODS[kind]
        with open(path, 'wb') as f:
            f.write(unit * -(-size // len(unit)))
        return
    rng = random.Random(1)
    out = bytearray()
    i = 0
    while len(out) < size:
        if not out or len(out) // 4096 != (len(out) + 40) // 4096:
            out += PSB_PLUS
        out += packet(kind, i, rng)
        i += 1
    with open(path, 'wb') as f:
        f.write(out)


if __name__ == '__main__':
    main()
