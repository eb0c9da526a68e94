#!/usr/bin/env python3
"""seeds.py OUTDIR -- the raw seed inputs of the fuzz targets, one folder per target.

Only the repository's own inputs: the Linux 6.18.44 captures of our machine (traces/linux-6.18),
the example capture (traces/capture-example), the e2e import fixture (e2e/fixtures/traces), the
scenario and layout files, and corner cases written here. No third-party file goes in (the public
trappy/LISA/Perfetto samples are not part of the repository). `scripts/fuzz.sh --reseed` runs
this, then `cargo fuzz cmin` into wasm-engine/fuzz/corpus/<target>/ (the committed corpus).

* tracefs: the header and slices of each capture's trace.txt and trace-cmd-report.txt, and crafted
  corner lines (LOST lines, TGID column, 4-character flags, 9 decimals, odd comms, `<...>` comms,
  `trace-cmd report -R` raw payloads, numeric prev_state, `CPU N is empty`, `success=1`);
* perf_script: the same slices re-printed in `perf script`'s layout (kernel and plugin payloads,
  6 and 9 decimals, a sample period, a callchain);
* eevdf_dump: slices of each eevdf-state.txt (the older dialect) and of the example capture's dump
  (tools/capture/schedlab-eevdf.bt's dialect, with its header);
* cpu_avg_dump: the banner, header and slices of each traces/linux-6.18-smp-cpuavg dump
  (tools/capture/schedlab-cpu-avg.bt);
* balance_dump: the banner, header and slices of each traces/linux-6.18-smp-balance dump
  (tools/capture/schedlab-balance.bt);
* systrace_html: 6.18.44 slices wrapped in systrace's HTML (one with a TGID column and 4-character
  flags, as Android's atrace prints them);
* chunking: a few of the above behind chunk-size bytes (see fuzz_targets/chunking.rs);
* dat: two captures' .dat files cut to their sched event formats and a page per CPU (version 6
  uncompressed, and version 7 zstd, through `trace-cmd convert`; skipped when trace-cmd is not
  installed: Debian's `trace-cmd` package);
* replay: slices of each capture's trace.txt (traces/linux-6.18, traces/linux-6.18-smp,
  traces/capture-example), and crafted corners the shadow generator must take (a task woken at the
  nanosecond it slept, runs of 0 ns, a trace of one instant, records out of order across CPUs, a
  wakeup targeting a CPU without records, a CPU number past the largest host, a control character
  in a comm, pid reuse, a window reaching the end of the clock);
* perfetto: the repository's Perfetto fixtures (wasm-engine/engine/tests/fixtures/perfetto: our
  captures re-encoded by the engine's encoder, regular and compact_sched) cut to their first whole
  packets under 12 KiB, a slice from the middle of each, and those packets again inside one
  zlib `compressed_packets` container;
* layout, scenario: the files as they are; and scenario.dict (next to this script), the scenario
  target's libFuzzer dictionary: the JSON Schema's keys and enum values.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRACES = os.path.join(ROOT, "traces")
CAPTURES = ["nice-0-vs-2", "cgroup-shares", "yield-vs-hog", "bandwidth-30-of-100", "sleeper-vs-hog"]
out = sys.argv[1]


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def lines(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")


def header_and_slices(path, head, take, starts=(0.5,)):
    ls = lines(path)
    parts = [ls[:head]]
    for s in starts:
        i = head + int((len(ls) - head) * s)
        parts.append(ls[i : i + take])
    return b"\n".join(b"\n".join(p) for p in parts) + b"\n"


CORNERS = """\
# tracer: nop
#
# entries-in-buffer/entries-written: 9/12   #P:4
CPU:2 [LOST 3 EVENTS]
          <idle>-0     [000] d..2.  3912.084183: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Web Content next_pid=7 next_prio=120
 Web Content-my-7     [000] d..2.  3912.084190: sched_switch: prev_comm=Web Content-my prev_pid=7 prev_prio=120 prev_state=S|D ==> next_comm=<idle> next_pid=0 next_prio=120
k_render-2301  ( 2300) [003] ...1 600.000100: tracing_mark_write: E|2300
          <idle>-0     (-----) [002] dNh3 600.000187: sched_waking: comm=kworker/2:1 pid=99 prio=120 target_cpu=002
  a [1] b-7 [002] 1.000001234: sched_migrate_task: comm=a [1] b pid=7 prio=120 orig_cpu=2 dest_cpu=3
          bash-1 [001] d..2.  1.5: sched_process_exit: comm=bash pid=1 prio=120 group_dead=1
          bash-9 [001] d..2.  1.6: sched_process_fork: comm=bash pid=9 child_comm=bash child_pid=1
          bash-1 [003] d..2.  1.7: sched_wakeup_new: comm=bash pid=1 prio=120 target_cpu=003
CPU:3 [12 EVENTS DROPPED]
"""

REPORT_CORNERS = """\
version = 6
cpus=4
CPU 3 is empty
  Web Content-my-1234 [003]   544.830864123: sched_stat_runtime:   comm=x pid=1 runtime=5 [ns]
      capture.sh-22673 [000]   544.830869: sched_wakeup_new:     capture.sh:22694 [120] CPU:000
      capture.sh-22673 [000]   544.830873: sched_switch:         capture.sh:22673 [120] R+ ==> capture.sh:22694 [120]
          worker-1 [001]   1.000000: sched_switch:         prev_comm=a prev_pid=1 prev_prio=120 prev_state=64 next_comm=b next_pid=2 next_prio=120
           <...>-31 [002]   1.000001: sched_wakeup_new:     comm=k_b pid=32 prio=120 success=1 target_cpu=002
           <...>-31 [002]   1.000002: sched_load_avg_task:  comm=k_b pid=32 cpu=2 load_avg=12 util_avg=5 load_sum=611 period_contrib=1023
CPU:1 [EVENTS DROPPED]
"""

RAW_CORNERS = """\
version = 6
cpus=5
CPU 3 is empty
CPU 4 is empty
            k_a-4242  [000]   100.000001: sched_switch:         prev_comm=k_a prev_pid=4242 prev_prio=120 prev_state=1024 next_comm=sh next_pid=4243 next_prio=120
             sh-4243  [000]   100.000002: sched_switch:         prev_comm=sh prev_pid=4243 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
             sh-4243  [001]   100.000003: sched_wakeup:         comm=k_a pid=4242 prio=120 success=1 target_cpu=001
          <idle>-0     [002]   100.000004: sched_switch:         prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=4096 next_comm=k_a next_pid=4242 next_prio=120
          <idle>-0     [002]   100.000005: print:                0xffffffff8a1c2d3es: k_marker phase=start
"""


def to_perf(text, plugin, ns):
    """tracefs lines → perf script lines."""
    out = []
    pat = re.compile(rb"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")
    for i, l in enumerate(text.split(b"\n")):
        m = pat.match(l)
        if not m:
            continue
        comm, pid, cpu, secs, frac, ev, payload = m.groups()
        if plugin and ev == b"sched_switch":
            p = dict(re.findall(rb"(\w+)=(\S+)", payload))
            payload = b"%s:%s [%s] %s ==> %s:%s [%s]" % (
                p.get(b"prev_comm", b"?"), p.get(b"prev_pid", b"0"), p.get(b"prev_prio", b"0"),
                p.get(b"prev_state", b"R"), p.get(b"next_comm", b"?"), p.get(b"next_pid", b"0"),
                p.get(b"next_prio", b"0"))
        frac = frac + b"000" if ns else frac
        period = b" 1 " if i % 5 == 0 else b" "
        out.append(b"%16s %6s [%03d] %s.%s:%s sched:%s: %s" % (comm, pid, int(cpu), secs, frac, period, ev, payload))
        if i % 7 == 0:
            out.append(b"\t    ffffffff8a1c2d3e __schedule+0x2be ([kernel.kallsyms])")
            out.append(b"")
    return b"\n".join(out) + b"\n"


# --- text formats ---
for cap in CAPTURES:
    d = os.path.join(TRACES, "linux-6.18", cap)
    txt = header_and_slices(os.path.join(d, "trace.txt"), 12, 20, (0.1, 0.6))
    put("tracefs", cap + ".txt", txt)
    put("tracefs", cap + "-report.txt", header_and_slices(os.path.join(d, "trace-cmd-report.txt"), 2, 30))
    put("perf_script", cap + "-kernel.txt", to_perf(txt, False, cap.startswith("n")))
    put("perf_script", cap + "-plugin.txt", to_perf(txt, True, not cap.startswith("n")))
    put("eevdf_dump", cap + ".txt", header_and_slices(os.path.join(d, "eevdf-state.txt"), 1, 30))
    if cap == "yield-vs-hog":
        put("systrace_html", cap + ".html",
            b"<!DOCTYPE html>\n<html>\n<head><title>t</title></head>\n<body>\n"
            b"<script class=\"trace-data\" type=\"application/text\">\n" + txt + b"</script>\n</body>\n</html>\n")
        put("chunking", cap + ".txt", b"\x03\x01\x07\x40" + txt)
        put("chunking", cap + "-eevdf.txt", b"\x01\x05\x21" + header_and_slices(os.path.join(d, "eevdf-state.txt"), 1, 20))
put("tracefs", "corners.txt", CORNERS)
put("tracefs", "report-corners.txt", REPORT_CORNERS)
put("tracefs", "raw-corners.txt", RAW_CORNERS)
put("chunking", "corners-crlf.txt", b"\x02\x02\x0d" + CORNERS.replace("\n", "\r\n").encode())
put("chunking", "report-corners.txt", b"\x00\x03" + REPORT_CORNERS.encode())


def atrace(text):
    """tracefs lines → atrace's layout inside systrace HTML: a TGID column `(  PID)` or `(-----)`
    after the task, and 4-character latency flags."""
    out = []
    pat = re.compile(rb"^(\s*.+-(\d+))\s+\[(\d+)\]\s+(\S+)\s+(\d+\.\d+: .*)$")
    for l in text.split(b"\n"):
        m = pat.match(l)
        if not m:
            out.append(l)
            continue
        task, pid, cpu, flags, rest = m.groups()
        tgid = b"(-----)" if pid == b"0" else b"(%5s)" % pid
        out.append(b"%s %s [%s] %s %s" % (task, tgid, cpu, flags[:4], rest))
    return b"\n".join(out)


def systrace(text):
    return (b"<!DOCTYPE html>\n<html>\n<head><title>systrace</title></head>\n<body>\n"
            b"<script>\n  document.title = 'trace';\n</script>\n<!-- BEGIN TRACE -->\n"
            b"  <script class=\"trace-data\" type=\"application/text\">\n" + text +
            b"  </script>\n<!-- END TRACE -->\n</body>\n</html>\n")


nice = header_and_slices(os.path.join(TRACES, "linux-6.18/nice-0-vs-2/trace.txt"), 12, 25, (0.3,))
html = systrace(atrace(nice))
put("systrace_html", "nice-0-vs-2-atrace.html", html)
put("chunking", "nice-0-vs-2-atrace.html", b"\x02\x0b\x01" + html)
put("tracefs", "malformed.txt", open(os.path.join(ROOT, "e2e/fixtures/traces/malformed.trace.txt"), "rb").read())
example = os.path.join(ROOT, "traces/capture-example")
dump = header_and_slices(os.path.join(example, "eevdf-state.txt"), 3, 30)
put("eevdf_dump", "capture-example.txt", dump)
put("chunking", "capture-example-eevdf.txt", b"\x04\x03\x11\x00\x29" + dump)
put("tracefs", "capture-example.txt", header_and_slices(os.path.join(example, "trace.txt"), 13, 30))

for cap in ["three-hogs-two-cpus", "nice-imbalance-smp", "pipe-pair-and-hog", "sleepers-and-hogs-smp", "cgroup-shares-smp"]:
    put("cpu_avg_dump", cap + ".txt", header_and_slices(os.path.join(ROOT, "traces/linux-6.18-smp-cpuavg", cap, "cpu-avg.txt"), 3, 20))

for cap in ["three-hogs-two-cpus-1", "three-hogs-two-cpus-2", "three-hogs-two-cpus-3", "nice-imbalance-smp-1"]:
    put("balance_dump", cap + ".txt", header_and_slices(os.path.join(ROOT, "traces/linux-6.18-smp-balance", cap, "balance.txt"), 3, 24))

# --- replay: capture slices and the shadow generator's corners ---
def switch(ts, prev, state, nxt, cpu=1):
    (p, pp), (n, np) = prev, nxt
    return ("%16s-%-5d [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s"
            " ==> next_comm=%s next_pid=%d next_prio=120\n" % (p, pp, cpu, ts, p, pp, state, n, np))


def wakeup(ts, by, who, target=1, cpu=1):
    (b, bp), (w, wp) = by, who
    return "%16s-%-5d [%03d] d..2. %s: sched_wakeup: comm=%s pid=%d prio=120 target_cpu=%03d\n" % (
        b, bp, cpu, ts, w, wp, target)


IDLE, KA, KB, KC = ("swapper/1", 0), ("k_a", 100), ("k_b", 101), ("k_c", 102)
ZERO_LENGTH = "# tracer: nop\n#\n" + "".join([
    switch("10.000000", IDLE, "R", KA),
    switch("10.000300", KA, "S", KB),
    wakeup("10.000300", KB, KA),  # woken at the nanosecond it slept
    switch("10.000500", KB, "R+", KA),
    switch("10.000500", KA, "S", KC),  # ran 0 ns
    wakeup("10.000700", KC, KA),
    switch("10.001000", KC, "R+", KA),
    switch("10.002000", KA, "R", KB),
    "             k_b-101   [001] d..2. 10.002100: sched_stat_runtime: comm=k_b pid=101 runtime=100000 [ns]\n",
    switch("10.002200", KB, "Z", KC),
    switch("10.003000", KC, "D", IDLE),
])
ONE_INSTANT = switch("1.000000", IDLE, "R", KA) + switch("1.000000", KA, "S", KB)
ODD = "".join([
    switch("1.000000", IDLE, "R", ("a\x01b", 7)),
    switch("1.000010", ("a\x01b", 7), "Z", ("x", 8)),
    wakeup("1.000012", ("x", 8), KB, target=3),
    switch("1.000020", ("x", 8), "R+", ("a\x01b", 7)),
    switch("0.500000", ("y", 9), "S", ("y", 9), cpu=0),
    switch("1.000030", ("swapper/3", 0), "R", KB, cpu=65535),
    wakeup("1.000040", KB, KA, cpu=0),
    switch("18446744073.709551", ("a\x01b", 7), "R+", ("x", 8)),
])
# The capture tool's context events: a running task moving itself into a cgroup, and the CFS
# bandwidth period timer's expiry (tracefs's hashed pointer; trace-cmd's raw one and name/offset).
CONTEXT = "# tracer: nop\n#\n" + "".join([
    switch("2.000000", IDLE, "R", KA),
    "             k_a-100   [001] dN.1. 2.000100: cgroup_attach_task: dst_root=1 dst_id=143 dst_level=1"
    " dst_path=/sl_Q pid=100 comm=k_a\n",
    "             k_a-100   [001] d.h.. 2.000200: hrtimer_expire_entry: hrtimer=000000009df8f609"
    " function=sched_cfs_period_timer now=2000200000\n",
    wakeup("2.000300", KA, KB),
    "             k_a-100   [001] d.h.. 2.000400: hrtimer_expire_entry: hrtimer=0xffff8881084a5288"
    " now=2000400000 function=sched_cfs_period_timer/0x0\n",
    "             k_b-101   [001] dN.1. 2.000450: cgroup_attach_task: dst_root=1 dst_id=157 dst_level=1"
    " dst_path=/ pid=999 comm=gone\n",
    switch("2.000500", KA, "R+", KB),
    switch("2.000900", KB, "S", IDLE),
])
put("replay", "context.txt", CONTEXT)
put("tracefs", "context.txt", CONTEXT)
for cap in CAPTURES:
    put("replay", cap + ".txt", header_and_slices(os.path.join(TRACES, "linux-6.18", cap, "trace.txt"), 12, 40, (0.2,)))
for cap in sorted(os.listdir(os.path.join(TRACES, "linux-6.18-smp"))):
    t = os.path.join(TRACES, "linux-6.18-smp", cap, "trace.txt")
    if os.path.exists(t):
        put("replay", cap + ".txt", header_and_slices(t, 12, 40, (0.4,)))
put("replay", "capture-example.txt", header_and_slices(os.path.join(example, "trace.txt"), 13, 40, (0.5,)))
put("replay", "zero-length.txt", ZERO_LENGTH)
put("replay", "one-instant.txt", ONE_INSTANT)
put("replay", "odd.txt", ODD)
put("replay", "corners.txt", CORNERS)
put("replay", "raw-corners.txt", RAW_CORNERS)

# --- layouts and scenarios ---
for f in sorted(os.listdir(os.path.join(ROOT, "traces/linux-6.18"))):
    if f.endswith(".layout.toml"):
        put("layout", f, open(os.path.join(ROOT, "traces/linux-6.18", f), "rb").read())
for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, "scenarios"))):
    for f in sorted(files):
        if f.endswith(".toml") or (f.endswith(".json") and "schema" not in dirpath):
            put("scenario", os.path.basename(dirpath) + "-" + f, open(os.path.join(dirpath, f), "rb").read())


# --- .dat: cut a version 6 file down to the sched formats and the first page of each CPU ---
class Reader:
    def __init__(self, b):
        self.b, self.i = b, 0

    def take(self, n):
        v = self.b[self.i : self.i + n]
        self.i += n
        return v

    def num(self, fmt):
        return struct.unpack(self.end + fmt, self.take(struct.calcsize(fmt)))[0]

    def cstr(self):
        j = self.b.index(b"\0", self.i)
        v = self.b[self.i : j]
        self.i = j + 1
        return v


KEEP = {b"sched_switch", b"sched_wakeup", b"sched_waking", b"sched_wakeup_new", b"sched_migrate_task",
        b"sched_stat_runtime", b"sched_process_fork", b"sched_process_exit"}


def event_name(fmt):
    m = re.match(rb"name: (\w+)", fmt)
    return m.group(1) if m else None


def cut_v6(b, pages):
    r = Reader(b)
    r.end = "<"
    head = r.take(3 + 7)
    ver = r.cstr()
    assert ver == b"6", ver
    endian = r.take(1)
    r.end = ">" if endian == b"\1" else "<"
    long_size = r.take(1)
    page_size = r.num("I")
    o = bytearray(head + ver + b"\0" + endian + long_size + struct.pack(r.end + "I", page_size))
    for tag in (b"header_page", b"header_event"):
        assert r.cstr() == tag
        n = r.num("Q")
        o += tag + b"\0" + struct.pack(r.end + "Q", n) + r.take(n)
    ftrace = [r.take(r.num("Q")) for _ in range(r.num("I"))]
    ftrace = [f for f in ftrace if event_name(f) in (b"bprint", b"print")]
    o += struct.pack(r.end + "I", len(ftrace))
    for f in ftrace:
        o += struct.pack(r.end + "Q", len(f)) + f
    systems = []
    for _ in range(r.num("I")):
        name = r.cstr()
        fmts = [r.take(r.num("Q")) for _ in range(r.num("I"))]
        keep = [f for f in fmts if event_name(f) in KEEP]
        if keep:
            systems.append((name, keep))
    o += struct.pack(r.end + "I", len(systems))
    for name, fmts in systems:
        o += name + b"\0" + struct.pack(r.end + "I", len(fmts))
        for f in fmts:
            o += struct.pack(r.end + "Q", len(f)) + f
    r.take(r.num("I"))  # kallsyms: dropped
    o += struct.pack(r.end + "I", 0)
    n = r.num("I")
    o += struct.pack(r.end + "I", n) + r.take(n)  # printk
    n = r.num("Q")
    o += struct.pack(r.end + "Q", n) + r.take(n)  # cmdlines
    cpus = r.num("I")
    o += struct.pack(r.end + "I", cpus)
    while True:
        tag = r.take(10)
        o += tag
        if tag == b"options  \0":
            while True:
                oid = r.num("H")
                o += struct.pack(r.end + "H", oid)
                if oid == 0:
                    break
                n = r.num("I")
                o += struct.pack(r.end + "I", n) + r.take(n)
        elif tag == b"flyrecord\0":
            break
        else:
            raise SystemExit("unexpected tag %r" % tag)
    spans = [(r.num("Q"), r.num("Q")) for _ in range(cpus)]
    start = len(o) + 16 * cpus
    start = (start + page_size - 1) // page_size * page_size
    data = b""
    new = []
    for off, size in spans:
        size = min(size, pages * page_size)
        new.append((start + len(data), size))
        data += b[off : off + size]
    for off, size in new:
        o += struct.pack(r.end + "QQ", off, size)
    o += b"\0" * (start - len(o)) + data
    return bytes(o)


with tempfile.TemporaryDirectory() as tmp:
    have_tc = shutil.which("trace-cmd") is not None
    sources = [(c, os.path.join(TRACES, "linux-6.18", c, "trace.dat")) for c in ("nice-0-vs-2", "sleeper-vs-hog")]
    for name, path in sources:
        b = open(path, "rb").read()
        if b[10:11] != b"6":
            if not have_tc:
                continue
            v6 = os.path.join(tmp, name + ".v6.dat")
            subprocess.run(["trace-cmd", "convert", "-i", path, "-o", v6, "--file-version", "6", "--compression", "none"],
                           check=True, capture_output=True)
            b = open(v6, "rb").read()
        small = cut_v6(b, 1)
        put("dat", name + "-v6.dat", small)
        if have_tc:
            p6 = os.path.join(tmp, name + ".small6.dat")
            p7 = os.path.join(tmp, name + ".small7.dat")
            open(p6, "wb").write(small)
            subprocess.run(["trace-cmd", "convert", "-i", p6, "-o", p7, "--file-version", "7", "--compression", "zstd"],
                           check=True, capture_output=True)
            put("dat", name + "-v7.dat", open(p7, "rb").read())

# --- perfetto: whole packets of the repository's own Perfetto fixtures ---
def varint(b, i):
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        if x < 0x80:
            return v, i
        shift += 7


def enc_varint(v):
    o = bytearray()
    while True:
        x = v & 0x7F
        v >>= 7
        if v:
            o.append(x | 0x80)
        else:
            o.append(x)
            return bytes(o)


def packets(b):
    """The framed `Trace.packet` fields (key, length, payload) of a trace, whole."""
    out, i = [], 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        assert key == 0x0A, "a Trace of packets only"
        n, i = varint(b, i)
        i += n
        out.append(b[start:i])
    return out


def fields(b):
    """(field number, raw bytes of the whole field) of a message, wire types 0 and 2 only."""
    out, i = [], 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        if key & 7 == 0:
            _, i = varint(b, i)
        elif key & 7 == 2:
            n, i = varint(b, i)
            i += n
        else:
            raise ValueError("wire type %d" % (key & 7))
        out.append((key >> 3, b[start:i]))
    return out


def payload(field):
    _, i = varint(field, 0)
    _, i = varint(field, i)
    return field[i:]


def trim_bundle(packet, keep):
    """A `TracePacket` holding an `ftrace_events` bundle, with at most `keep` regular events."""
    body = payload(packet)
    out = b""
    for num, raw in fields(body):
        if num == 1:  # TracePacket.ftrace_events
            kept, n = b"", 0
            for bnum, braw in fields(payload(raw)):
                if bnum == 2:  # FtraceEventBundle.event
                    n += 1
                    if n > keep:
                        continue
                kept += braw
            raw = enc_varint((1 << 3) | 2) + enc_varint(len(kept)) + kept
        out += raw
    return b"\x0a" + enc_varint(len(out)) + out


import zlib

PF = os.path.join(ROOT, "wasm-engine", "engine", "tests", "fixtures", "perfetto")
for name in sorted(os.listdir(PF)):
    if not name.endswith(".pftrace"):
        continue
    ps = packets(open(os.path.join(PF, name), "rb").read())
    # Bundles cut to their first 12 regular events (compact arrays kept whole), then packets taken
    # while they fit.
    ps = [ps[0]] + [trim_bundle(p, 12) for p in ps[1:]]
    head, size = [], 0
    for p in ps:
        if size + len(p) > 12 * 1024 and head:
            break
        head.append(p)
        size += len(p)
    base = name[: -len(".pftrace")]
    if size <= 12 * 1024:
        put("perfetto", base + "-head.pb", b"".join(head))
    mid = ps[len(ps) // 2]
    if len(mid) <= 16 * 1024:
        put("perfetto", base + "-mid.pb", mid)
    inner = b"".join(head[:2])
    z = zlib.compress(inner)
    packet = enc_varint((50 << 3) | 2) + enc_varint(len(z)) + z
    put("perfetto", base + "-zlib.pb", b"\x0a" + enc_varint(len(packet)) + packet)

# --- libFuzzer dictionary for the scenario target: the schema's keys and enum values ---
schema = json.load(open(os.path.join(ROOT, "scenarios/schema/scenario.schema.json")))
keys, enums = set(), set()


def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "properties" and isinstance(v, dict):
                keys.update(v.keys())
            if k == "enum" and isinstance(v, list):
                enums.update(x for x in v if isinstance(x, str))
            walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)


walk(schema)
words = sorted('%s = ' % k for k in keys if k != "$schema") + sorted('"%s"' % e for e in enums)
words += ["[host]", "[kernel]", "[kernel.features]", "[[tasks]]", "[[cgroups]]", '"forever"', '"1ms"',
          '"300us"', '"4ms"', '"1.5s"', "true", "false", "{ ", " }", "[", "]", ", "]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario.dict"), "w") as f:
    f.write("# libFuzzer dictionary of the scenario target (written by seeds.py from the JSON Schema)\n")
    for w in words:
        f.write('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"'))
print("seeds in", out)
