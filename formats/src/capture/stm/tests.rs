//! Decoder tests: OpenCSD's published example, hand-built streams for every
//! packet type, an encoder written here from the protocol description for
//! round trips, formatter frames, corrupt and truncated input, SyS-T, and the
//! live path against a stand-in sysfs tree.

use super::decoder::{from_gray, to_gray, DataSize, Decoder, Message, Packet};
use super::*;
use crate::ctf::writer::tests::{read_back, tmp};
use crate::value::Value;

/// STPv2 written nibble by nibble, as an STM would.
#[derive(Default, Clone)]
struct Enc {
    n: Vec<u8>,
}

impl Enc {
    fn nib(&mut self, v: u8) -> &mut Self {
        self.n.push(v & 0xf);
        self
    }
    fn field(&mut self, v: u64, nibbles: usize) -> &mut Self {
        for i in (0..nibbles).rev() {
            self.nib((v >> (4 * i)) as u8);
        }
        self
    }
    fn asyn(&mut self) -> &mut Self {
        for _ in 0..21 {
            self.nib(0xf);
        }
        self.nib(0)
    }
    fn version(&mut self, v: u8) -> &mut Self {
        self.nib(0xf).nib(0).nib(0).nib(v)
    }
    fn ts(&mut self, nibbles: u8, v: u64) -> &mut Self {
        let code = match nibbles {
            0..=12 => nibbles,
            14 => 0xd,
            16 => 0xe,
            _ => panic!("no such timestamp length"),
        };
        self.nib(code).field(v, usize::from(nibbles))
    }
    /// A D packet: every opcode form, chosen by marker and timestamp.
    fn data(&mut self, size: DataSize, v: u64, marked: bool, ts: Option<(u8, u64)>) -> &mut Self {
        let k = match size {
            DataSize::D4 => None,
            DataSize::D8 => Some(0),
            DataSize::D16 => Some(1),
            DataSize::D32 => Some(2),
            DataSize::D64 => Some(3),
        };
        match (k, marked, ts.is_some()) {
            (Some(k), false, false) => self.nib(4 + k),
            (Some(k), true, true) => self.nib(8 + k),
            (Some(k), false, true) => self.nib(0xf).nib(4 + k),
            (Some(k), true, false) => self.nib(0xf).nib(8 + k),
            (None, false, false) => self.nib(0xc),
            (None, true, true) => self.nib(0xd),
            (None, false, true) => self.nib(0xf).nib(0xc),
            (None, true, false) => self.nib(0xf).nib(0xd),
        };
        self.field(v, size.bits() as usize / 4);
        if let Some((n, t)) = ts {
            self.ts(n, t);
        }
        self
    }
    fn bytes(&self) -> Vec<u8> {
        let mut n = self.n.clone();
        if n.len() % 2 == 1 {
            n.push(0); // a NULL packet
        }
        n.chunks(2).map(|p| p[0] | (p[1] << 4)).collect()
    }
}

/// Formats (id, byte) items into 16-byte CoreSight frames.
fn frames(items: &[(u8, u8)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cur = 0xffu8;
    let mut i = 0;
    while i < items.len() {
        let mut f = [0u8; 16];
        for k in 0..8 {
            let x = items.get(i).copied();
            let y = items.get(i + 1).copied();
            let last = k == 7;
            match x {
                None => {
                    f[2 * k] = 1; // ID 0: nothing
                    cur = 0;
                }
                Some((id, b)) if id != cur => {
                    f[2 * k] = (id << 1) | 1;
                    cur = id;
                    if !last {
                        f[2 * k + 1] = b;
                        i += 1;
                    }
                }
                Some((_, b)) if last => {
                    f[14] = b & 0xfe;
                    f[15] |= (b & 1) << 7;
                    i += 1;
                }
                Some((_, b)) => match y {
                    Some((yid, _)) if yid != cur => {
                        // The byte after the ID change is still the old ID's.
                        f[2 * k] = (yid << 1) | 1;
                        f[15] |= 1 << k;
                        f[2 * k + 1] = b;
                        cur = yid;
                        i += 1;
                    }
                    Some((_, yb)) => {
                        f[2 * k] = b & 0xfe;
                        f[15] |= (b & 1) << k;
                        f[2 * k + 1] = yb;
                        i += 2;
                    }
                    None => {
                        // The last byte, and no other to pair it with: a
                        // switch to ID 0 after it (aux bit set: the byte
                        // still belongs to the old ID), so the frame's
                        // padding counts for no source.
                        f[2 * k] = 1;
                        f[15] |= 1 << k;
                        f[2 * k + 1] = b;
                        cur = 0;
                        i += 1;
                    }
                },
            }
        }
        out.extend_from_slice(&f);
    }
    out
}

fn decode_all(bytes: &[u8]) -> (Vec<Message>, Vec<String>) {
    let mut d = Decoder::new(bytes);
    let mut out = Vec::new();
    while let Some(m) = d.next_message() {
        out.push(m);
    }
    (out, d.take_warnings())
}

/// OpenCSD's worked example (decoder/docs/test_progs.md, Juno, trace ID 0x20).
const OPENCSD_EXAMPLE: [u8; 21] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0f, 0x30, 0x41, 0xf1, 0x1a,
    0x00, 0x00, 0x00, 0x30, 0x10,
];

#[test]
fn opencsd_worked_example() {
    let (msgs, warnings) = decode_all(&OPENCSD_EXAMPLE);
    assert!(warnings.is_empty(), "{warnings:?}");
    let p: Vec<Packet> = msgs.iter().map(|m| m.packet).collect();
    assert_eq!(
        p,
        [
            Packet::Async,
            Packet::Version(3),
            Packet::M8(0x41),
            Packet::Data {
                size: DataSize::D32,
                value: 0x1000_0000,
                marked: true
            },
            Packet::C8(0x01),
        ]
    );
    assert_eq!((msgs[3].master, msgs[3].channel), (0x41, 0));
    assert_eq!((msgs[4].master, msgs[4].channel), (0x41, 1));
    // The same bytes in formatter frames under trace ID 0x20.
    let items: Vec<(u8, u8)> = OPENCSD_EXAMPLE.iter().map(|&b| (0x20, b)).collect();
    let d = frames::demux(&frames(&items));
    assert_eq!(d.sources.keys().copied().collect::<Vec<_>>(), [0x20]);
    assert_eq!(d.sources[&0x20].bytes, OPENCSD_EXAMPLE);
}

#[test]
fn every_packet_type() {
    let mut e = Enc::default();
    e.asyn().version(3);
    e.nib(0); // NULL
    e.nib(1).field(0x12, 2); // M8
    e.nib(3).field(0x34, 2); // C8
    e.nib(0xf).nib(3).field(0xbeef, 4); // C16
    for size in [
        DataSize::D4,
        DataSize::D8,
        DataSize::D16,
        DataSize::D32,
        DataSize::D64,
    ] {
        let v = 0x0123_4567_89ab_cdef_u64 & (u64::MAX >> (64 - size.bits()));
        for marked in [false, true] {
            for ts in [None, Some((2u8, 0x42u64))] {
                e.data(size, v, marked, ts);
            }
        }
    }
    e.nib(0xf).nib(0xe); // FLAG
    e.nib(0xe).ts(1, 0x5); // FLAG_TS
    e.nib(0xf).nib(0).nib(6).field(0x7a, 2); // TRIG
    e.nib(0xf).nib(0).nib(7).field(0x7b, 2).ts(3, 0x123); // TRIG_TS
    e.nib(0xf).nib(0).nib(8).field(100_000_000, 8); // FREQ
    e.nib(0xf).nib(0).nib(1).ts(16, u64::MAX - 1); // NULL_TS
    e.nib(2).field(0x9, 2); // MERR
    e.nib(0xf).nib(2).field(0xa, 2); // GERR
    e.asyn();
    let (msgs, warnings) = decode_all(&e.bytes());
    assert!(warnings.is_empty(), "{warnings:?}");
    let p: Vec<Packet> = msgs.iter().map(|m| m.packet).collect();
    assert_eq!(
        &p[..6],
        [
            Packet::Async,
            Packet::Version(3),
            Packet::Null,
            Packet::M8(0x12),
            Packet::C8(0x34),
            Packet::C16(0xbeef)
        ]
    );
    let data: Vec<&Message> = msgs
        .iter()
        .filter(|m| matches!(m.packet, Packet::Data { .. }))
        .collect();
    assert_eq!(data.len(), 20);
    for (i, m) in data.iter().enumerate() {
        let Packet::Data {
            size,
            value,
            marked,
        } = m.packet
        else {
            unreachable!()
        };
        assert_eq!(size.bits(), [4, 8, 16, 32, 64][i / 4]);
        assert_eq!(
            value,
            0x0123_4567_89ab_cdef_u64 & (u64::MAX >> (64 - size.bits()))
        );
        assert_eq!(marked, i % 4 >= 2, "packet {i}");
        assert_eq!(m.timestamped, i % 2 == 1, "packet {i}");
        assert_eq!((m.master, m.channel), (0x12, 0xbeef));
    }
    let tail = &msgs[6 + 20..];
    assert_eq!(tail[0].packet, Packet::Flag);
    assert!(!tail[0].timestamped);
    assert_eq!((tail[1].packet, tail[1].ts), (Packet::Flag, 0x45));
    assert_eq!(tail[2].packet, Packet::Trig(0x7a));
    assert_eq!((tail[3].packet, tail[3].ts), (Packet::Trig(0x7b), 0x123));
    assert_eq!(tail[4].packet, Packet::Freq(100_000_000));
    assert_eq!((tail[5].packet, tail[5].ts), (Packet::Null, u64::MAX - 1));
    assert_eq!((tail[6].packet, tail[6].channel), (Packet::Merr(9), 0));
    assert_eq!((tail[7].packet, tail[7].master), (Packet::Gerr(0xa), 0));
    assert_eq!(tail[8].packet, Packet::Async);
}

#[test]
fn natural_and_gray_timestamps() {
    // Natural binary: the low nibbles replace the previous value's.
    let mut e = Enc::default();
    e.asyn().version(3).nib(1).field(1, 2);
    e.data(DataSize::D8, 1, false, Some((16, 0x1122_3344_5566_7788)));
    e.data(DataSize::D8, 2, false, Some((2, 0xaa)));
    e.data(DataSize::D8, 3, false, Some((14, 0x01)));
    assert_eq!(
        stamps(&e),
        [
            0x1122_3344_5566_7788,
            0x1122_3344_5566_77aa,
            0x1100_0000_0000_0001
        ]
    );

    // Gray: the update replaces low bits of the Gray code of the previous value.
    for (prev, next) in [
        (1000u64, 1001u64),
        (0xffff, 0x1_0000),
        (5, 1 << 40),
        (0x7fff_ffff, 0x8000_0000),
    ] {
        let (nibbles, value) = ts_update(to_gray(prev), to_gray(next));
        let mut e = Enc::default();
        e.asyn().version(4);
        e.data(DataSize::D8, 0, false, Some((16, to_gray(prev))));
        e.data(DataSize::D8, 0, false, Some((nibbles, value)));
        assert_eq!(
            stamps(&e),
            [prev, next],
            "Gray update {prev} -> {next} with {nibbles} nibbles"
        );
    }
    for x in [0u64, 1, 2, 3, 0xdead_beef, u64::MAX] {
        assert_eq!(from_gray(to_gray(x)), x);
    }
}

/// The timestamps of the data packets that carry one.
fn stamps(e: &Enc) -> Vec<u64> {
    received(&decode_all(&e.bytes()).0)
        .iter()
        .filter_map(|s| s.5)
        .collect()
}

/// The shortest timestamp field taking `old` to `new` (both already in the
/// stream's code): (nibbles, value).
fn ts_update(old: u64, new: u64) -> (u8, u64) {
    let nibbles = match (64 - (old ^ new).leading_zeros()).div_ceil(4).max(1) as u8 {
        13 => 14,
        15 => 16,
        n => n,
    };
    let mask = if nibbles == 16 {
        u64::MAX
    } else {
        (1u64 << (4 * nibbles)) - 1
    };
    (nibbles, new & mask)
}

/// A small deterministic generator (xorshift64*): property tests without a
/// dependency, reproducible from the seed in the failure message.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a writer did: (master, channel, size, value, marked, ts if any).
type Sent = (u16, u16, DataSize, u64, bool, Option<u64>);

/// Random messages encoded the way an STM would, with minimal timestamp
/// updates.
fn random_stream(rng: &mut Rng, gray: bool) -> (Vec<u8>, Vec<Sent>) {
    let mut e = Enc::default();
    e.asyn().version(if gray { 4 } else { 3 });
    let (mut master, mut channel, mut ts) = (0u16, 0u16, 0u64);
    let mut sent = Vec::new();
    for _ in 0..rng.below(200) + 1 {
        if rng.below(4) == 0 {
            master = rng.below(256) as u16;
            channel = 0;
            e.nib(1).field(u64::from(master), 2);
        }
        if rng.below(3) == 0 {
            let old = channel;
            channel = rng.below(65536) as u16;
            if rng.below(2) == 0 {
                // C8 changes only the low byte.
                channel = (old & 0xff00) | (channel & 0xff);
                e.nib(3).field(u64::from(channel), 2);
            } else {
                e.nib(0xf).nib(3).field(u64::from(channel), 4);
            }
        }
        if rng.below(20) == 0 {
            e.asyn();
        }
        let size = [
            DataSize::D4,
            DataSize::D8,
            DataSize::D16,
            DataSize::D32,
            DataSize::D64,
        ][rng.below(5) as usize];
        let value = rng.next() & (u64::MAX >> (64 - size.bits()));
        let marked = rng.below(2) == 0;
        let stamp = if rng.below(2) == 0 {
            let span = 1 << (4 * rng.below(12));
            let next = ts + rng.below(span);
            let (old, new) = if gray {
                (to_gray(ts), to_gray(next))
            } else {
                (ts, next)
            };
            ts = next;
            Some(ts_update(old, new))
        } else {
            None
        };
        e.data(size, value, marked, stamp);
        sent.push((master, channel, size, value, marked, stamp.map(|_| ts)));
    }
    (e.bytes(), sent)
}

fn received(msgs: &[Message]) -> Vec<Sent> {
    msgs.iter()
        .filter_map(|m| match m.packet {
            Packet::Data {
                size,
                value,
                marked,
            } => Some((
                m.master,
                m.channel,
                size,
                value,
                marked,
                m.timestamped.then_some(m.ts),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn random_messages_round_trip_through_frames() {
    for seed in 1..=150u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let gray = seed % 2 == 0;
        let (stp, sent) = random_stream(&mut rng, gray);
        // Bare stream.
        let (msgs, warnings) = decode_all(&stp);
        assert!(warnings.is_empty(), "seed {seed}: {warnings:?}");
        assert_eq!(received(&msgs), sent, "seed {seed} (bare)");
        // Interleaved with another source in formatter frames.
        let mut items = Vec::new();
        for (i, &b) in stp.iter().enumerate() {
            items.push((0x10, b));
            if rng.below(5) == 0 {
                items.push((0x22, i as u8));
            }
        }
        let d = frames::demux(&frames(&items));
        assert!(d.warnings.is_empty(), "seed {seed}: {:?}", d.warnings);
        assert_eq!(d.sources[&0x10].bytes, stp, "seed {seed} (frames)");
        assert_eq!(received(&decode_all(&d.sources[&0x10].bytes).0), sent);
    }
}

#[test]
fn truncated_and_corrupt_streams() {
    let mut rng = Rng(77);
    let (stp, sent) = random_stream(&mut rng, false);
    // Every truncation decodes a prefix, never panics, and says so when a
    // packet is cut.
    for cut in 0..stp.len() {
        let (msgs, _) = decode_all(&stp[..cut]);
        let got = received(&msgs);
        assert!(got.len() <= sent.len());
        assert_eq!(got[..], sent[..got.len()], "cut at {cut}");
    }
    // A reserved opcode: a warning with the offset, then decoding resumes at
    // the next ASYNC.
    let mut e = Enc::default();
    e.asyn().version(3).nib(1).field(7, 2);
    e.data(DataSize::D8, 0x11, false, None);
    let bad_at = e.n.len() / 2;
    e.nib(0xf).nib(0).nib(0xc); // F0C: reserved
    e.data(DataSize::D8, 0x22, false, None); // lost: not in sync
    e.asyn().version(3).nib(1).field(8, 2);
    e.data(DataSize::D8, 0x33, false, None);
    let (msgs, warnings) = decode_all(&e.bytes());
    let values: Vec<u64> = received(&msgs).iter().map(|s| s.3).collect();
    assert_eq!(values, [0x11, 0x33]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("byte {bad_at}:")) && warnings[0].contains("F0C"),
        "{}",
        warnings[0]
    );
    // A timestamp before any VERSION, and a bad version.
    let mut e = Enc::default();
    e.asyn();
    e.data(DataSize::D8, 1, false, Some((1, 1)));
    e.asyn().version(9);
    let (_, warnings) = decode_all(&e.bytes());
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    // Random garbage: whatever it is, decoding ends.
    for seed in 1..200u64 {
        let mut rng = Rng(seed);
        let junk: Vec<u8> = (0..rng.below(400)).map(|_| rng.next() as u8).collect();
        let _ = decode_all(&junk);
        let _ = frames::demux(&junk);
    }
}

#[test]
fn frame_barriers_and_partial_frames() {
    let items: Vec<(u8, u8)> = OPENCSD_EXAMPLE.iter().map(|&b| (0x20, b)).collect();
    let mut data = frames(&items);
    let first = data.len();
    data.extend_from_slice(&[0xff, 0xff, 0xff, 0x7f].repeat(4));
    data.extend_from_slice(&frames(&items));
    data.extend_from_slice(&[1, 2, 3]);
    let d = frames::demux(&data);
    let s = &d.sources[&0x20];
    assert_eq!(s.bytes.len(), 2 * OPENCSD_EXAMPLE.len());
    assert_eq!(s.gaps, [OPENCSD_EXAMPLE.len()]);
    assert_eq!(s.runs().len(), 2);
    assert_eq!(s.file_offset(OPENCSD_EXAMPLE.len()), first as u64 + 16);
    assert_eq!(d.warnings.len(), 1);
    assert!(d.warnings[0].contains(&format!("byte {}", data.len() - 3)));
}

/// A SyS-T message as Linux's p_sys-t writes it: header (timestamped),
/// GUID, length, payload in chunks of at most 8 bytes, FLAG.
fn syst_message(e: &mut Enc, ts: u64, guid: [u8; 16], text: &[u8]) {
    let header: u32 = 0x0180_0042 | (1 << 9);
    e.data(DataSize::D32, u64::from(header), false, Some((16, ts)));
    let mut body = guid.to_vec();
    body.extend_from_slice(&(text.len() as u16).to_le_bytes());
    body.extend_from_slice(text);
    for chunk in body.chunks(8) {
        let (size, n) = match chunk.len() {
            8 => (DataSize::D64, 8),
            4..=7 => (DataSize::D32, 4),
            2..=3 => (DataSize::D16, 2),
            _ => (DataSize::D8, 1),
        };
        // Split odd chunks into power-of-two pieces, as stm_data_write does.
        let mut rest = chunk;
        let mut first = Some((size, n));
        while !rest.is_empty() {
            let (size, n) = first.take().unwrap_or(match rest.len() {
                4..=7 => (DataSize::D32, 4),
                2..=3 => (DataSize::D16, 2),
                _ => (DataSize::D8, 1),
            });
            let mut v = [0u8; 8];
            v[..n].copy_from_slice(&rest[..n]);
            e.data(size, u64::from_le_bytes(v), false, None);
            rest = &rest[n..];
        }
    }
    e.nib(0xf).nib(0xe);
}

#[test]
fn syst_messages_and_ctf_output() {
    let mut e = Enc::default();
    e.asyn().version(3);
    e.nib(0xf).nib(0).nib(8).field(50_000_000, 8); // 50 MHz
    e.nib(1).field(0x41, 2).nib(3).field(2, 2);
    let guid = *b"0123456789abcdef";
    syst_message(&mut e, 1000, guid, b"hello from the board");
    e.nib(1).field(0x42, 2);
    // Low byte 0x40 after 1000 (0x3e8): 0x340, back in time; written at
    // the previous time, with a warning.
    e.data(DataSize::D8, 0x5a, true, Some((2, 0x40)));
    e.nib(0xf).nib(0).nib(7).field(3, 2).ts(4, 0x1000);
    let dir = tmp("syst");
    let raw = e.bytes();
    let report = decode_to_ctf(&raw, Input::Raw, None, &dir).unwrap();
    assert_eq!(report.syst, 1);
    assert_eq!(report.freq, 50_000_000);
    assert_eq!(report.masters, [0x41, 0x42]);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("before the previous one")),
        "{:?}",
        report.warnings
    );
    let events = read_back(&dir).0;
    let syst: Vec<_> = events.iter().filter(|e| e.0 == "syst_message").collect();
    assert_eq!(syst.len(), 1);
    let v = &syst[0].3;
    assert_eq!(
        v.get("text").and_then(Value::as_str),
        Some("hello from the board")
    );
    assert_eq!(
        v.get("guid").and_then(Value::as_str),
        Some("30313233-3435-3637-3839-616263646566")
    );
    assert_eq!(v.get("severity").and_then(Value::as_i64), Some(4));
    assert_eq!(v.get("master").and_then(Value::as_i64), Some(0x41));
    assert_eq!(v.get("channel").and_then(Value::as_i64), Some(2));
    // 1000 ticks at 50 MHz = 20 µs.
    assert_eq!(syst[0].1, 20_000);
    let trig = events.iter().find(|e| e.0 == "stm_trigger").unwrap();
    assert_eq!(trig.3.get("value").and_then(Value::as_i64), Some(3));
    assert_eq!(trig.1, 0x1000 * 20);
    let data = events.iter().filter(|e| e.0 == "stm_data").count();
    assert_eq!(data as u64, report.data);
    std::fs::remove_dir_all(&dir).unwrap();

    // The same in frames among another source: --trace-id picks it.
    let mut items = Vec::new();
    for &b in &raw {
        items.push((0x10, b));
        items.push((0x11, 0xaa));
    }
    let framed = frames(&items);
    let err = decode_to_ctf(&framed, Input::Formatted { trace_id: None }, None, &dir).unwrap_err();
    assert!(err.to_string().contains("0x10, 0x11"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let err = decode_to_ctf(
        &framed,
        Input::Formatted {
            trace_id: Some(0x30),
        },
        None,
        &dir,
    )
    .unwrap_err();
    assert!(err.to_string().contains("0x30"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let r = decode_to_ctf(
        &framed,
        Input::Formatted {
            trace_id: Some(0x10),
        },
        Some(1_000_000),
        &dir,
    )
    .unwrap();
    assert_eq!((r.syst, r.freq, r.freq_source), (1, 1_000_000, "--freq"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn syst_message_interleaved_with_another_master() {
    // Master 0x41 starts a message at 1000; master 0x42 writes at 2000 before
    // 0x41 finishes it on the same channel.
    let mut e = Enc::default();
    e.asyn().version(3);
    e.nib(1).field(0x41, 2).nib(3).field(2, 2);
    let header: u32 = 0x0180_0042;
    e.data(DataSize::D32, u64::from(header), false, Some((16, 1000)));
    e.nib(1).field(0x42, 2);
    e.data(DataSize::D8, 0x77, false, Some((4, 2000)));
    e.nib(1).field(0x41, 2).nib(3).field(2, 2);
    for b in *b"0123456789abcdefhi" {
        e.data(DataSize::D8, u64::from(b), false, None);
    }
    e.nib(0xf).nib(0xe);
    let dir = tmp("syst-interleaved");
    let report = decode_to_ctf(&e.bytes(), Input::Raw, None, &dir).unwrap();
    assert_eq!(report.syst, 1);
    // Nothing went back in time: the message is written when its FLAG
    // completes it.
    assert!(
        report
            .warnings
            .iter()
            .all(|w| !w.contains("before the previous")),
        "{:?}",
        report.warnings
    );
    let events = read_back(&dir).0;
    let syst = events.iter().find(|e| e.0 == "syst_message").unwrap();
    assert_eq!(syst.1, 2000);
    assert_eq!(syst.3.get("master").and_then(Value::as_i64), Some(0x41));
    let payload: Vec<i64> = match syst.3.get("payload") {
        Some(Value::List(a)) => a.iter().filter_map(Value::as_i64).collect(),
        other => panic!("payload {other:?}"),
    };
    assert_eq!(payload, [b'h' as i64, b'i' as i64]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn live_path_against_a_stand_in_sysfs() {
    let root = tmp("sysfs");
    let dev = root.join("sys/bus/coresight/devices");
    for (d, f) in [
        ("stm0", "enable_source"),
        ("tmc_etf0", "enable_sink"),
        ("tmc_etr0", "enable_sink"),
    ] {
        std::fs::create_dir_all(dev.join(d)).unwrap();
        std::fs::write(dev.join(d).join(f), "0").unwrap();
    }
    std::fs::write(dev.join("stm0/traceid"), "0x10\n").unwrap();
    std::fs::create_dir_all(root.join("sys/kernel/config/stp-policy")).unwrap();
    std::fs::create_dir_all(root.join("dev")).unwrap();
    let items: Vec<(u8, u8)> = OPENCSD_EXAMPLE.iter().map(|&b| (0x10, b)).collect();
    std::fs::write(root.join("dev/tmc_etf0"), frames(&items)).unwrap();
    let opts = device::DeviceOptions {
        root: root.clone(),
        stm: "stm0".into(),
        sink: None,
        protocol: "p_sys-t".into(),
        node: Some("workload".into()),
        masters: Some((64, 64)),
        channels: Some((0, 31)),
    };
    let policy = root.join(format!(
        "sys/kernel/config/stp-policy/stm0:p_sys-t.sextant-{}",
        std::process::id()
    ));
    let rec = device::record(&opts, || {
        // While the workload runs: source and sink on, the policy in place.
        let on = |p: &str| std::fs::read_to_string(dev.join(p)).unwrap() == "1";
        assert!(on("stm0/enable_source") && on("tmc_etf0/enable_sink"));
        assert!(!on("tmc_etr0/enable_sink"));
        let masters = std::fs::read_to_string(policy.join("workload/masters")).unwrap();
        assert_eq!(masters, "64 64");
        assert!(policy.join("default/channels").exists());
        Ok(())
    })
    .unwrap();
    assert_eq!((rec.trace_id, rec.sink.as_str()), (Some(0x10), "tmc_etf0"));
    // Everything off and removed afterwards.
    assert_eq!(
        std::fs::read_to_string(dev.join("stm0/enable_source")).unwrap(),
        "0"
    );
    assert_eq!(
        std::fs::read_to_string(dev.join("tmc_etf0/enable_sink")).unwrap(),
        "0"
    );
    assert!(!policy.exists());
    let out = root.join("ctf");
    let r = decode_to_ctf(
        &rec.bytes,
        Input::Formatted {
            trace_id: rec.trace_id,
        },
        None,
        &out,
    )
    .unwrap();
    assert_eq!(r.data, 1);
    // A failing workload still leaves everything off.
    let _ = std::fs::remove_dir_all(root.join("sys/kernel/config/stp-policy"));
    std::fs::create_dir_all(root.join("sys/kernel/config/stp-policy")).unwrap();
    assert!(device::record(&opts, || Err("workload failed".into())).is_err());
    assert_eq!(
        std::fs::read_to_string(dev.join("stm0/enable_source")).unwrap(),
        "0"
    );
    assert!(!policy.exists());
    // No STM: a clear error.
    let none = device::DeviceOptions {
        stm: "stm9".into(),
        ..opts
    };
    let e = device::record(&none, || Ok(())).err().unwrap();
    assert!(e.to_string().contains("no CoreSight STM"), "{e}");
    std::fs::remove_dir_all(&root).unwrap();
}
