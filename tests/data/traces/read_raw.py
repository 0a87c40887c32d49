#!/usr/bin/python3
"""Copy one CPU's ring buffer pages from per_cpu/cpuN/trace_pipe_raw into a file.

Usage: read_raw.py TRACE_PIPE_RAW OUT STOPFILE [DELAY_SECONDS]

Reads one page per read(2), non-blocking, so partially filled pages come out too. DELAY_SECONDS > 0
sleeps after every page: with a tiny buffer the writer then laps the reader and the pages carry the
kernel's "missed events" marks (dropped events in the middle of a trace). Stops once STOPFILE exists
and the buffer is empty.
"""
import os
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def main() -> int:
    path, out, stopfile = sys.argv[1:4]
    delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(out, "wb") as f:
        while True:
            try:
                page = os.read(fd, PAGE)
            except BlockingIOError:
                page = b""
            if page:
                f.write(page)
                if delay > 0:
                    time.sleep(delay)
                continue
            if os.path.exists(stopfile):
                break
            time.sleep(0.005)
    os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
