#!/usr/bin/env python3
"""A trace whose task names are hostile text: a copy of tests/data/traces/formats-none.dat (v7,
uncompressed) with every "kworker" (7 bytes) replaced by 7 bytes that start with '=' (a spreadsheet
formula), go on with a UTF-16 surrogate encoded in UTF-8 (not valid UTF-8) and end with a terminal
escape sequence (ESC [ m). The replacement keeps every length, so the file stays well formed: the
saved cmdlines and the sched_switch/sched_wakeup comm fields carry the new name.
  make_hostile_comm.py OUT.dat"""
import os
import sys

HOSTILE = b"=\xed\xa0\x80\x1b[m"
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "traces", "formats-none.dat")
data = open(src, "rb").read()
assert len(HOSTILE) == len(b"kworker")
out = data.replace(b"kworker", HOSTILE)
assert out.count(HOSTILE) > 0
open(sys.argv[1], "wb").write(out)
