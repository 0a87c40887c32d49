#!/usr/bin/env python3
"""Writes the hostile inputs of issue 25 (the input side) into OUTDIR, with OUTDIR/cases.tsv
saying how `ringscope` is run on each and what must come of it.

    make_hostile_inputs.py OUTDIR            every case (some files are ~300 KB)
    make_hostile_inputs.py --seeds OUTDIR    the small ones only, as fuzz seeds:
                                             OUTDIR/fuzz_trace_dat, fuzz_event_format, fuzz_filter

The trace.dat files are written from scratch (v7, the layout trace-cmd 3.1.6 writes; zstd
frames made of raw and RLE blocks by hand), so nothing here needs a library or a kernel.

cases.tsv: NAME <tab> EXPECT <tab> NAMES <tab> ARGS. ARGS are split at blanks, with {file} =
OUTDIR/NAME.dat and {dir} = OUTDIR; or `sh:` and a shell command (same substitutions, and
{ringscope} = the binary). EXPECT: `error` (a non-zero exit, and one line on stderr that names
NAMES, after the substitutions, and an offset, line or column), `result` (exit 0, and when
NAMES is not `-` a line on stderr naming it) or `same-as-plain` (exit 0 and stdout what
`report plain.dat` prints). Every case runs under a 1 GiB address-space limit and 30 s.
"""
import os
import struct
import sys

PAGE = 4096
ZSTD_MAGIC = 0xFD2FB528
ZSTD_SKIPPABLE = 0x184D2A50
BLOCK = 128 << 10

HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"
)
HEADER_EVENT = (
    "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n"
)
COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
)
EVENT_ID = 1000


def event_format(print_args, name="probe"):
    return (f"name: {name}\nID: {EVENT_ID}\nformat:\n{COMMON}\n"
            "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
            f"print fmt: {print_args}\n")


PLAIN_FMT = event_format('"x=%d", REC->x')


# ---- zstd frames by hand: raw and RLE blocks, no entropy coding ----

def _block(kind, size, last, payload):
    return struct.pack("<I", (size << 3) | (kind << 1) | int(last))[:3] + payload


def zstd_frame(data=b"", zeros=0):
    """One frame: DATA as raw blocks, then ZEROS zero bytes as RLE blocks (window 128 KiB)."""
    blocks = []
    for at in range(0, len(data), BLOCK):
        chunk = data[at:at + BLOCK]
        blocks.append((0, len(chunk), chunk))
    while zeros > 0:
        n = min(zeros, BLOCK)
        blocks.append((1, n, b"\0"))
        zeros -= n
    if not blocks:
        blocks.append((0, 0, b""))
    out = struct.pack("<I", ZSTD_MAGIC) + bytes([0x00, 0x38])
    for i, (kind, size, payload) in enumerate(blocks):
        out += _block(kind, size, i == len(blocks) - 1, payload)
    return out


def zstd_skippable(n):
    """A skippable frame of N bytes in all (padding the decompressor steps over)."""
    return struct.pack("<II", ZSTD_SKIPPABLE, n - 8) + b"\0" * (n - 8)


# ---- trace.dat v7 ----

def cstr(s):
    return s.encode() + b"\0"


def sized(text, width):
    b = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q" if width == 8 else "<I", len(b)) + b


def section(sid, body, flags=0):
    return struct.pack("<HHIQ", sid, flags, 0, len(body)) + body


def compressed(body, usize=None, pad_to=0):
    """A compressed section body: u32 zsize, u32 size, a zstd block (padded with a skippable frame)."""
    z = zstd_frame(body)
    if pad_to > len(z):
        z += zstd_skippable(pad_to - len(z))
    return struct.pack("<II", len(z), len(body) if usize is None else usize) + z


def option(oid, data):
    return struct.pack("<HI", oid, len(data)) + data


def page(records, ts=1000):
    """A sub-buffer: timestamp, commit, then each record (4-byte header + payload, delta 0)."""
    data = b""
    for payload in records:
        assert len(payload) % 4 == 0 and len(payload) // 4 <= 28
        data += struct.pack("<I", len(payload) // 4) + payload
    return (struct.pack("<QQ", ts, len(data)) + data).ljust(PAGE, b"\0")


def record(x=5, pid=1):
    return struct.pack("<HBBii", EVENT_ID, 0, 0, pid, x)


def trace_dat(formats=(PLAIN_FMT,), cpus=None, page_size=PAGE, compressed_data=False, kallsyms=None,
              extra_options=b"", compress_meta=True):
    """A v7 file. CPUS: list of (cpu id, bytes) written one after the other, or of
    (cpu id, offset, size) pointing into bytes already placed (given as ('raw', bytes) first)."""
    if cpus is None:
        cpus = [(0, page([record()]))]
    comp = b"zstd\x001.5.4\x00"
    head_len = 10 + 2 + 2 + 4 + len(comp) + 8
    parts = []
    off = head_len

    def add(blob):
        nonlocal off
        at = off
        parts.append(blob)
        off += len(blob)
        return at

    flag = 1 if compress_meta else 0

    def meta(body):
        return compressed(body) if compress_meta else body

    hi = add(section(16, meta(b"header_page\0" + sized(HEADER_PAGE, 8) + b"header_event\0" +
                              sized(HEADER_EVENT, 8)), flag))
    ev_body = struct.pack("<I", 1) + cstr("hostile") + struct.pack("<I", len(formats))
    for f in formats:
        ev_body += sized(f, 8)
    ef = add(section(18, meta(ev_body), flag))
    cl = add(section(21, meta(sized("1 task\n", 8)), flag))
    ks = add(kallsyms) if kallsyms is not None else None
    # The buffer section: its header, then the CPU data.
    buf_at = off
    blobs, table = b"", []
    data_start = buf_at + 16
    for entry in cpus:
        if len(entry) == 2:
            cpu, data = entry
            if compressed_data:
                chunks = [data[i:i + 10 * page_size] for i in range(0, len(data), 10 * page_size)]
                blob = struct.pack("<I", len(chunks))
                for c in chunks:
                    z = zstd_frame(c)
                    blob += struct.pack("<II", len(z), len(c)) + z
                data = blob
            table.append((cpu, data_start + len(blobs), len(data)))
            blobs += data
        else:
            cpu, rel, size = entry
            table.append((cpu, data_start + rel, size))
    if len(cpus) and len(cpus[0]) == 3:
        blobs = RAW_BLOBS.pop()
    add(section(3, blobs, 1 if compressed_data else 0))
    opts = option(3, struct.pack("<Q", buf_at) + cstr("") + cstr("local") +
                  struct.pack("<II", page_size, len(table)) +
                  b"".join(struct.pack("<IQQ", c, o, s) for c, o, s in table))
    opts += option(8, struct.pack("<I", len(table)))  # CPUCOUNT, as trace-cmd writes it
    opts += option(16, struct.pack("<Q", hi)) + option(18, struct.pack("<Q", ef))
    opts += option(21, struct.pack("<Q", cl))
    if ks is not None:
        opts += option(19, struct.pack("<Q", ks))
    opts += extra_options + option(0, struct.pack("<Q", 0))
    opt_at = add(section(0, opts))
    head = b"\x17\x08\x44tracing7\x00" + bytes([0, 8]) + struct.pack("<I", PAGE) + comp
    head += struct.pack("<Q", opt_at)
    assert len(head) == head_len
    return head + b"".join(parts)


RAW_BLOBS = []


def shared(blob, table, **kw):
    """CPUs whose tables all point into BLOB (TABLE: (cpu, offset in blob, size))."""
    RAW_BLOBS.append(blob)
    return trace_dat(cpus=table, **kw)


# ---- the cases ----

DEEP = 20000


def cases():
    """(name, expect, names, args, bytes or None, seed kind or None)"""
    c = []

    def dat(name, expect, data, args="report {file}", seed="fuzz_trace_dat", names="{file}"):
        c.append((name, expect, names, args, data, seed))

    # Print fmts nested 20k deep: the recursive parser overflowed the stack (SIGSEGV).
    cond = "REC->x ? " * DEEP + "1" + " : 0" * DEEP
    deep = "{file}: hostile/probe"  # the warning that the event prints as [FAILED TO PARSE]
    dat("deep-cond", "result", trace_dat(formats=[event_format('"%d", ' + cond)]), names=deep)
    sym = "__print_symbolic(" * DEEP + "REC->x" + ', { 1, "a" })' * DEEP
    dat("deep-symbolic", "result", trace_dat(formats=[event_format('"%s", ' + sym)]), names=deep)
    parens = "(" * 100000 + "REC->x" + ")" * 100000
    dat("deep-parens", "result", trace_dat(formats=[event_format('"%d", ' + parens)]), names=deep)
    chain = " + ".join(["REC->x"] * 10 * DEEP)
    dat("long-chain", "result", trace_dat(formats=[event_format('"%d", ' + chain)]), names=deep)
    # Widths past the kernel's maximum: 2 GB of blanks per event before.
    dat("star-width", "result", names="-", data=trace_dat(formats=[event_format('"%*d", 2147483647, REC->x')]))
    dat("star-width-negative", "result", names="-", data=
        trace_dat(formats=[event_format('"%*d|", -2147483647 - 1, REC->x')]))
    dat("written-width", "result", names="-", data=trace_dat(formats=[event_format('"%2147483647d", REC->x')]))
    dat("star-precision", "result", names="-", data=trace_dat(formats=[event_format('"%.*d", 2147483647, REC->x')]))

    # A 290 KB file whose KALLSYMS section declares 1 GB: the reader allocated it before zstd failed.
    ks = section(19, compressed(sized("ffffffff81000000 T _stext\n", 4), usize=1 << 30,
                                pad_to=290 << 10), 1)
    dat("section-1g", "error", trace_dat(kallsyms=ks), seed=None)
    # One under the cap, backed by 30 bytes: decompressed as the output comes, not allocated.
    ks = section(19, compressed(sized("ffffffff81000000 T _stext\n", 4), usize=200 << 20,
                                pad_to=52 << 10), 1)
    dat("section-200m", "error", trace_dat(kallsyms=ks))

    # Four CPUs whose tables point at one chunk of 512 MiB of zeros: 2.1 GB.
    zero = zstd_frame(zeros=512 << 20)
    zero += zstd_skippable(max(16, (512 << 20) // 4096 - len(zero)))
    chunk = struct.pack("<I", 1) + struct.pack("<II", len(zero), 512 << 20) + zero
    dat("shared-zero-chunk", "error",
        shared(chunk, [(i, 0, len(chunk)) for i in range(4)], compressed_data=True), seed=None)
    # The same with 8 MiB pages, where a 512 MiB chunk is 64 pages: the CPUs' sum is what is refused.
    dat("shared-zero-chunk-8m", "error",
        shared(chunk, [(i, 0, len(chunk)) for i in range(4)], compressed_data=True,
               page_size=8 << 20), seed=None)
    # 64 MiB pages for 16 CPUs, one short page each: 1 GB of padded pages.
    one = page([record()])[:64]  # a short page: padded to the page size when read
    dat("big-pages", "error", trace_dat(cpus=[(i, one) for i in range(16)], page_size=64 << 20))
    # 8 MiB pages (allowed) for 40 CPUs: 320 MiB of pages at once.
    dat("many-big-pages", "error", trace_dat(cpus=[(i, one) for i in range(40)], page_size=8 << 20))
    # CPUCOUNT 2^31 - 1: per-CPU tables of 16 GB.
    dat("cpu-count", "error", trace_dat(extra_options=option(8, struct.pack("<I", 0x7fffffff))))
    # A CPU id of 4 billion: per-CPU tables indexed by it.
    dat("cpu-id", "error", trace_dat(cpus=[(0xfffffff0, one)]))

    # Devices and pipes.
    dat("plain", "result", names="-", data=trace_dat())
    c.append(("dev-zero", "error", "/dev/zero", "report /dev/zero", None, None))
    c.append(("kallsyms-dev-zero", "error", "/dev/zero", "report --kallsyms /dev/zero {dir}/plain.dat",
              None, None))
    c.append(("stdin-pipe", "same-as-plain", "-", "sh:cat {dir}/plain.dat | {ringscope} report /dev/stdin",
              None, None))

    # Filters: 100k parentheses; regexes glibc crashed on or took 3.8 GB to compile.
    def flt(name, text, expect="error"):
        c.append((name, expect, "column" if expect == "error" else "-", "report -F " + text + " {dir}/plain.dat",
                  None, None))
        SEED_FILTERS.append((name, text))

    # (30k: one argument of 100k parentheses is more than execve takes)
    flt("filter-parens", "probe:" + "(" * 30000 + "x==1" + ")" * 30000)
    # glibc's regexec recursed without end on this one (CVE-2018-20796): SIGSEGV.
    flt("filter-backref", "probe:COMM=~\"\\(\\)\\(\\1\\1\\)*\"")
    flt("filter-nested-repeat", "probe:COMM=~\"\\(\\(\\(a\\{1,100\\}\\)\\{1,100\\}\\)\\{1,100\\}\\)\"")
    # The event part is a regex too (anchored): RE2 must read this BRE as glibc did.
    flt("filter-regex-ok", "p\\(r\\|x\\)o\\{1\\}b*e:x==5", expect="result")
    return c


SEED_FILTERS = []


def main(argv):
    seeds = argv[1:2] == ["--seeds"]
    out = argv[2] if seeds else argv[1] if len(argv) > 1 else None
    if not out:
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    all_cases = cases()
    if seeds:
        for kind in ("fuzz_trace_dat", "fuzz_event_format", "fuzz_filter"):
            os.makedirs(os.path.join(out, kind), exist_ok=True)
        for name, _, _, _, data, seed in all_cases:
            if data is not None and seed and len(data) <= 64 << 10:
                with open(os.path.join(out, seed, f"hostile-{name}.dat"), "wb") as f:
                    f.write(data)
        for name, fmt in (("deep-cond", "REC->x ? " * 300 + "1" + " : 0" * 300),
                          ("star-width", "2147483647, REC->x")):
            spec = '"%*d", ' if name == "star-width" else '"%d", '
            with open(os.path.join(out, "fuzz_event_format", f"hostile-{name}.txt"), "w") as f:
                f.write(event_format(spec + fmt))
        for name, text in SEED_FILTERS:
            with open(os.path.join(out, "fuzz_filter", f"hostile-{name}.txt"), "w") as f:
                f.write(text.replace("probe:", "sched_switch:", 1)[:4000])
        return
    with open(os.path.join(out, "cases.tsv"), "w") as tsv:
        for name, expect, names, args, data, _ in all_cases:
            if data is not None:
                with open(os.path.join(out, name + ".dat"), "wb") as f:
                    f.write(data)
            tsv.write(f"{name}\t{expect}\t{names}\t{args}\n")


if __name__ == "__main__":
    main(sys.argv)
