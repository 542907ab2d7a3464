#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: corpus/metadata and corpus/stream.

Seeds come from small traces built here on `fuzz_targets/small.tsdl`, from the
project's recorded fixtures (../../fixtures/*/ctf, small packets only) and, when
present, from the metadata files of the shared traces (../../../shared/traces/ctf),
read now and never copied into the repository (corpus/ is gitignored).

    python3 seed.py [--out DIR]   # default: corpus/ beside this script
"""

import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SPLIT = b"\n%%stream%%\n"  # same as fuzz_targets/stream.rs
SMALL = open(os.path.join(HERE, "fuzz_targets", "small.tsdl"), "rb").read()

PACKET_MAGIC = 0xC1FC1FC1


def event(eid, ts, payload):
    return struct.pack("<HQ", eid, ts) + payload


def packet(events, pad=0, cpu=0):
    body = b"".join(events)
    content = 44 + len(body)
    first = struct.unpack_from("<Q", events[0], 2)[0] if events else 0
    last = struct.unpack_from("<Q", events[-1], 2)[0] if events else 0
    head = struct.pack("<IIQQQQI", PACKET_MAGIC, 0, first, last, content * 8, (content + pad) * 8, cpu)
    return head + body + b"\0" * pad


def small_events(t):
    bits_ab = 5 | ((-2 & 0x1FFF) << 3)
    return [
        event(0, t + 1, struct.pack("<I", 1)),
        event(1, t + 2, struct.pack("<I", 2) + b"hello\0"),
        event(2, t + 3, struct.pack("<H", 3) + bytes([7, 8, 9])),
        event(3, t + 4, bytes([0]) + struct.pack("<H", 0x1234)),
        event(3, t + 5, bytes([1]) + struct.pack("<Q", 0x0102030405060708)),
        event(3, t + 6, bytes([2]) + b"txt\0"),
        event(4, t + 7, struct.pack("<H", bits_ab) + struct.pack(">H", 0xBEEF)),
        # text: context n = 3; name[3]; comm[4]; nested[2] = {k, vals[k]}
        event(5, t + 8, bytes([3]) + b"abc" + b"co\0m" + bytes([1]) + struct.pack("<H", 9) + bytes([0])),
        event(6, t + 9, struct.pack("<f", 1.5) + struct.pack("<d", -2.25)),
    ]


def small_streams():
    evs = small_events(100)
    out = [packet(evs), packet(evs[:3], pad=13, cpu=1) + packet(evs[3:], cpu=2)]
    for i, e in enumerate(evs):
        out.append(packet([e, event(0, 1000, struct.pack("<I", i))], pad=i))
    out.append(packet([]) + packet(evs[:1]))
    return out


def recorded():
    """(metadata, one small stream file) of each recorded fixture trace."""
    out = []
    fixtures = os.path.join(ROOT, "fixtures")
    if not os.path.isdir(fixtures):
        return out
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name, "ctf")
        if not os.path.isfile(os.path.join(d, "metadata")):
            continue
        meta = open(os.path.join(d, "metadata"), "rb").read()
        for f in sorted(os.listdir(d)):
            if f == "metadata":
                continue
            data = open(os.path.join(d, f), "rb").read()
            # perf's packet: magic, uuid[16], stream_id, then ts_begin, ts_end,
            # content_size, packet_size (bits). Keep small packets only, cut
            # to their content.
            if len(data) < 56 or struct.unpack_from("<I", data)[0] != PACKET_MAGIC:
                continue
            content = struct.unpack_from("<Q", data, 40)[0] // 8
            if content > 8192:
                continue
            p = bytearray(data[:content])
            struct.pack_into("<Q", p, 48, content * 8)
            out.append((meta, bytes(p)))
    return out


def ctf2_samples():
    """(metadata, first stream file) of each CTF 2 sample (fixtures/tc-ctf2)."""
    base = os.path.join(ROOT, "fixtures", "tc-ctf2")
    out = []
    if not os.path.isdir(base):
        return out
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not os.path.isfile(os.path.join(d, "metadata")):
            continue
        meta = open(os.path.join(d, "metadata"), "rb").read()
        streams = sorted(f for f in os.listdir(d) if f != "metadata" and os.path.isfile(os.path.join(d, f)))
        data = open(os.path.join(d, streams[0]), "rb").read() if streams else b""
        if len(data) <= 16384:
            out.append((meta, data))
    return out


def shared_metadata():
    base = os.path.join(ROOT, "..", "shared", "traces", "ctf")
    out = []
    for dirpath, _, files in os.walk(base):
        if "metadata" in files:
            out.append(open(os.path.join(dirpath, "metadata"), "rb").read())
    return sorted(out)


def packetized(text, chunk=4000):
    out = b""
    for i in range(0, len(text), chunk):
        part = text[i : i + chunk]
        content = (37 + len(part)) * 8
        out += struct.pack("<I", 0x75D11D57) + b"\0" * 20
        out += struct.pack("<II", content, content + 8 * 3) + bytes([0, 0, 0, 1, 8])
        out += part + b"\0" * 3
    return out


OUT = os.path.join(HERE, "corpus")


def write(corpus, data):
    d = os.path.join(OUT, corpus)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def main():
    global OUT
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        OUT = sys.argv[2]
    rec = recorded() + ctf2_samples()
    shared = shared_metadata()
    metas = [SMALL, packetized(SMALL, 500)] + [m for m, _ in rec] + shared
    for m in metas:
        write("metadata", m)
    for s in small_streams():
        write("stream", s)  # with small.tsdl
        write("stream", SMALL + SPLIT + s)
    for m, s in rec:
        write("stream", m + SPLIT + s)
    print(
        f"{len(set(metas))} metadata seeds ({len(shared)} from ../shared), "
        f"{len(small_streams()) * 2 + len(rec)} stream seeds ({len(rec)} recorded)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
