#!/usr/bin/env python3
"""Where the CTF reader's time goes, by stage, from `perf record` samples.

  sudo tests/bench/profile.py [TRACE] [--no-payload] [--jobs N] [--freq HZ]
                              [--runs K] [--repeat R]

Runs `sextant dump TRACE --format none` (every field decoded; --no-payload:
names and times) under `perf record -g` (kernel call chains; user code is
told apart by its inlined functions, so frame pointers are not needed), then
gives each sample a stage by the chain of functions inlined at its address
(addr2line -i on the binary's debug info: the release profile keeps line
tables), innermost first:

  packet header    packet header and context read (read_packet_header, scan)
  event header     the header plan (id, timestamp) of framing
  framing: skip    contexts and payload skipped while framing (flat skip,
                   decode::skip)
  framing: other   the framing loop itself (class lookup, time to ns, buffer)
  strings          null-terminated strings found (flat::string, find_nul:
                   skipping while framing, or decoding)
  stream advance   a stream handing out its framed events (advance, refill)
  merge            time order across streams (merge.rs)
  payload          decoding a payload (flat decode, walk), replay, dispatch
  sink             the consumer of the values (dump's checksum, JSON)
  dump loop        dump's own loop around the reader
  pages: populate  kernel mapping a packet's pages (MADV_POPULATE_READ)
  pages: release   kernel dropping a finished packet's pages (MADV_DONTNEED)
  pages: faults    page faults (file pages and fresh heap)
  kernel: other    other system calls (mmap, read, exit)
  alloc            malloc/free/realloc
  start-up/other   everything else (metadata parse, argument parsing, libc)

Prints samples, share, and ns per event: the share times the CPU time
(user + sys) of the same command run without perf, least of --runs, over
the events. Samples of --repeat recorded runs are added up. SEXTANT_BIN
names another binary than target/release/sextant.
Needs root (or perf_event_paranoid <= 1) and perf, addr2line.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEXTANT = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "target", "release", "sextant"))

STAGES = [
    "packet header",
    "event header",
    "framing: skip",
    "framing: other",
    "strings",
    "stream advance",
    "merge",
    "payload",
    "sink",
    "dump loop",
    "pages: populate",
    "pages: release",
    "pages: faults",
    "kernel: other",
    "alloc",
    "start-up/other",
]

# (pattern on an inlined function's demangled name, stage or None to look
# further out). Innermost first: the first function that names a stage wins.
USER_RULES = [
    (r"dump::Checksum|JsonSink|jsonl::", "sink"),
    (r"as sextant_engine::value::Sink", "sink"),
    (r"HeaderPlan", "event header"),
    (r"FlatPayload>::skip|FlatPayload::skip|ctf::decode::skip", "framing: skip"),
    (r"FlatPayload>::decode|FlatPayload::decode|EventRef.*visit|EventRef.*replay|frame::replay|visit_fields|visit_payload", "payload"),
    (r"read_packet_header|load_packet_header|next_packet|StreamFile::scan|StreamFile::seek", "packet header"),
    (r"ctf::frame::", "framing: other"),
    (r"StreamFile::advance|StreamFile::refill|StreamFile::frame_batch|StreamFile::event|StreamFile::ts|StreamFile::current|take_fed|parallel::", "stream advance"),
    (r"ctf::merge::|BinaryHeap", "merge"),
    (r"cli::dump::|WithSource>::run", "dump loop"),
    (r"^sextant_engine::ctf::flat::string$|flat::find_nul", "strings"),
    (r"metadata::|clap", "start-up/other"),
]


def kernel_stage(chain):
    text = " ".join(chain)
    if "madvise" in text:
        if "zap_page" in text or "unmap_page" in text or "dontneed" in text.lower():
            return "pages: release"
        return "pages: populate"
    if "exc_page_fault" in text or "handle_mm_fault" in text or "asm_exc_page_fault" in text:
        return "pages: faults"
    return "kernel: other"


def samples(data):
    """(dso, ip, [kernel chain syms]) per sample, from perf script."""
    out = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip,sym,dso", "--no-demangle"],
        capture_output=True, text=True, check=True,
    ).stdout
    for block in out.split("\n\n"):
        frames = []
        for line in block.strip("\n").splitlines():
            m = re.match(r"\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
            if m:
                frames.append((int(m.group(1), 16), m.group(2), m.group(3)))
        if not frames:
            continue
        ip, sym, dso = frames[0]
        if dso == "[kernel.kallsyms]":
            yield "kernel", ip, [f[1] for f in frames]
        else:
            yield dso, ip, [sym]


def to_vaddr(binary):
    """perf script gives a DSO's addresses as file offsets: the function that
    turns one into the ELF virtual address addr2line wants."""
    segs = []
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, vaddr, size = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            segs.append((off, vaddr, size))

    def conv(ip):
        for off, vaddr, size in segs:
            if off <= ip < off + size:
                return ip - off + vaddr
        return ip

    return conv


def inline_chains(binary, ips):
    """ip (file offset) -> list of demangled function names, innermost first."""
    conv = to_vaddr(binary)
    back = {conv(ip): ip for ip in set(ips)}
    ips = sorted(back)
    if not ips:
        return {}
    p = subprocess.run(
        ["addr2line", "-a", "-i", "-f", "-C", "-e", binary],
        input="\n".join(f"{ip:#x}" for ip in ips) + "\n",
        capture_output=True, text=True, check=True,
    )
    chains, cur = {}, None
    lines = p.stdout.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.fullmatch(r"0x[0-9a-f]+", line):
            cur = back.get(int(line, 16), int(line, 16))
            chains[cur] = []
            i += 1
            continue
        # function, then file:line
        chains[cur].append(line)
        i += 2
    return chains


def user_stage(chain):
    for fn in chain:
        for pat, stage in USER_RULES:
            if re.search(pat, fn):
                return stage
    return "start-up/other"


def cpu_time(cmd, runs):
    best = None
    for _ in range(runs):
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.execv(cmd[0], cmd)
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}")
        t = ru.ru_utime + ru.ru_stime
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="/tmp/sextant-large-ctf")
    ap.add_argument("--no-payload", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--freq", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3, help="runs without perf for the CPU time")
    ap.add_argument("--repeat", type=int, default=3, help="recorded runs (more samples)")
    a = ap.parse_args()
    binary = os.path.realpath(SEXTANT)
    cmd = [binary, "dump", a.trace, "--format", "none", "--jobs", str(a.jobs)]
    if a.no_payload:
        cmd.append("--no-payload")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    events = int(out.split()[0])
    cpu = cpu_time(cmd, a.runs)
    counts = collections.Counter()
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        user = []
        kernel = []
        for r in range(a.repeat):
            data = os.path.join(tmp, f"perf{r}.data")
            subprocess.run(
                ["perf", "record", "-q", "-F", str(a.freq), "-g", "-o", data, "--", *cmd],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
            )
            for dso, ip, chain in samples(data):
                if dso == "kernel":
                    kernel.append(chain)
                elif os.path.realpath(dso) == binary:
                    user.append(ip)
                elif "libc" in dso and re.search(r"malloc|free|realloc|_int_", chain[0]):
                    counts["alloc"] += 1
                else:
                    counts["start-up/other"] += 1
        chains = inline_chains(binary, user)
        for ip in user:
            counts[user_stage(chains.get(ip, []))] += 1
        for chain in kernel:
            counts[kernel_stage(chain)] += 1
        total = sum(counts.values())
    load = os.getloadavg()[0]
    print(f"{' '.join(cmd[1:])}")
    print(f"{events:,} events, {cpu:.3f} s CPU (least of {a.runs}, without perf), "
          f"{cpu / events * 1e9:.1f} ns/event; {total:,} samples at {a.freq} Hz over {a.repeat} runs; "
          f"load average {load:.1f}")
    print(f"  {'stage':<18} {'samples':>8} {'share':>7} {'ns/event':>9}")
    for s in STAGES:
        n = counts.get(s, 0)
        if n == 0:
            continue
        share = n / total
        print(f"  {s:<18} {n:8d} {share * 100:6.1f}% {share * cpu / events * 1e9:9.1f}")


if __name__ == "__main__":
    main()
