#!/usr/bin/env python3
"""Writes sample.vtr: a small deterministic VTR file (see README.md)."""
import struct
import sys

records = [
    (1_000_000_000, 0, 100, 0, struct.pack("<Q", 7)),
    (1_000_500_000, 1, 200, 1, b"start of work"),
    (1_001_000_000, 0, 100, 0, struct.pack("<Q", 35)),
    (1_002_250_000, 1, 200, 1, b"end of work"),
]
out = bytearray(b"VNDRTRC1" + struct.pack("<I", len(records)))
for ts, cpu, pid, kind, payload in records:
    out += struct.pack("<QIiHH", ts, cpu, pid, kind, len(payload)) + payload
with open(sys.argv[1] if len(sys.argv) > 1 else "sample.vtr", "wb") as f:
    f.write(out)
