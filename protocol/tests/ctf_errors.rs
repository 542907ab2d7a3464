//! `sextant dump` on corrupt CTF traces: every case must end with exit status 1
//! (not a panic, not a signal, not a hang) and an error naming the file and the
//! byte offset (`<path>: byte N: ...`), or the metadata line
//! (`<dir>/metadata:LINE: ...`); the events decoded before the error must
//! already be on standard output.
//!
//! Most traces are written here, byte by byte, from a small metadata text
//! (`METADATA`), so that each corruption lands at a known offset. Two cases
//! also corrupt the perf trace the project recorded (`fixtures/scenario-a/ctf`)
//! and skip with a message when it is absent.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::TempDir;
use serde_json::Value;

/// How long `sextant dump` may run on a tiny trace before it counts as a hang.
const WATCHDOG: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// The trace written by the tests.

/// Four event classes: a fixed-size one, one with a string, one with a
/// sequence, one with a variant; and one with bit fields.
const METADATA: &str = r#"/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
	};
};

clock {
	name = mono;
	freq = 1000000000;
};

stream {
	id = 0;
	packet.context := struct {
		uint64_t timestamp_begin;
		uint64_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t cpu_id;
	};
	event.header := struct {
		uint16_t id;
		integer { size = 64; align = 8; signed = false; map = clock.mono.value; } timestamp;
	};
};

event {
	name = "tick";
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t n;
	};
};

event {
	name = "msg";
	id = 1;
	stream_id = 0;
	fields := struct {
		uint32_t n;
		string s;
	};
};

event {
	name = "seq";
	id = 2;
	stream_id = 0;
	fields := struct {
		uint16_t len;
		uint8_t data[len];
	};
};

event {
	name = "var";
	id = 3;
	stream_id = 0;
	fields := struct {
		enum : uint8_t { small = 0, big = 1 } tag;
		variant <tag> {
			uint16_t small;
			uint64_t big;
		} v;
	};
};

event {
	name = "bits";
	id = 4;
	stream_id = 0;
	fields := struct {
		integer { size = 3; align = 1; signed = false; } a;
		integer { size = 13; align = 1; signed = true; } b;
		integer { size = 16; align = 1; signed = false; byte_order = be; } c;
	};
};
"#;

const PACKET_MAGIC: u32 = 0xC1FC_1FC1;
/// Packet header (magic, stream_id) and context (4 × u64, cpu_id).
const PACKET_HEADER_BYTES: usize = 8 + 4 * 8 + 4;
const MAGIC_AT: usize = 0;
const CONTENT_SIZE_AT: usize = 8 + 16;
const PACKET_SIZE_AT: usize = 8 + 24;
/// Event header: id (u16), timestamp (u64).
const EVENT_HEADER_BYTES: usize = 10;

fn event(id: u16, ts: u64, payload: &[u8]) -> Vec<u8> {
    let mut e = id.to_le_bytes().to_vec();
    e.extend_from_slice(&ts.to_le_bytes());
    e.extend_from_slice(payload);
    e
}

fn tick(ts: u64, n: u32) -> Vec<u8> {
    event(0, ts, &n.to_le_bytes())
}

fn msg(ts: u64, n: u32, s: &[u8]) -> Vec<u8> {
    let mut p = n.to_le_bytes().to_vec();
    p.extend_from_slice(s);
    event(1, ts, &p)
}

/// A `seq` event: `len` and then `data` as given (they may disagree).
fn seq(ts: u64, len: u16, data: &[u8]) -> Vec<u8> {
    let mut p = len.to_le_bytes().to_vec();
    p.extend_from_slice(data);
    event(2, ts, &p)
}

fn var_small(ts: u64, tag: u8, v: u16) -> Vec<u8> {
    let mut p = vec![tag];
    p.extend_from_slice(&v.to_le_bytes());
    event(3, ts, &p)
}

/// A packet holding `events`, followed by `pad` bytes of padding.
fn packet(events: &[Vec<u8>], pad: usize, cpu: u32) -> Vec<u8> {
    let body: Vec<u8> = events.concat();
    let content = (PACKET_HEADER_BYTES + body.len()) as u64;
    let ts =
        |e: Option<&Vec<u8>>| e.map_or(0, |e| u64::from_le_bytes(e[2..10].try_into().unwrap()));
    let mut p = Vec::new();
    p.extend_from_slice(&PACKET_MAGIC.to_le_bytes());
    p.extend_from_slice(&0u32.to_le_bytes()); // stream_id
    p.extend_from_slice(&ts(events.first()).to_le_bytes());
    p.extend_from_slice(&ts(events.last()).to_le_bytes());
    p.extend_from_slice(&(content * 8).to_le_bytes());
    p.extend_from_slice(&((content + pad as u64) * 8).to_le_bytes());
    p.extend_from_slice(&cpu.to_le_bytes());
    assert_eq!(p.len(), PACKET_HEADER_BYTES);
    p.extend_from_slice(&body);
    p.resize(p.len() + pad, 0);
    p
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Packet A: three events, every payload kind that the later cases corrupt.
fn packet_a() -> Vec<u8> {
    packet(
        &[
            tick(100, 1),
            msg(200, 2, b"hello\0"),
            seq(300, 3, &[7, 8, 9]),
            var_small(350, 0, 0x1234),
        ],
        31,
        0,
    )
}

/// The names and times of packet A's events, as `dump` must print them.
const PACKET_A_EVENTS: [(&str, i64); 4] = [("tick", 100), ("msg", 200), ("seq", 300), ("var", 350)];

// ---------------------------------------------------------------------------
// Trace directories and running `sextant dump` under a watchdog.

/// A trace directory with `METADATA` (or `metadata`) and one stream file.
fn trace(name: &str, metadata: &[u8], stream: &[u8]) -> (TempDir, PathBuf) {
    let dir = TempDir::new(name);
    dir.write("metadata", metadata);
    let s = dir.write("stream_0", stream);
    (dir, s)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `sextant dump DIR --format jsonl`, killed and failed as a hang after `WATCHDOG`.
fn dump(dir: &Path) -> Run {
    dump_with(dir, &[])
}

/// The same with more arguments (`--lenient`, `--jobs N`).
fn dump_with(dir: &Path, more: &[&str]) -> Run {
    let mut child = common::command()
        .args(["dump", dir.to_str().unwrap(), "--format", "jsonl"])
        .args(more)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running sextant");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for sextant") {
            break s;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "HANG: `sextant dump {} --format jsonl {}` still running after {:?}; killed",
                dir.display(),
                more.join(" "),
                WATCHDOG
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = |h: std::thread::JoinHandle<Vec<u8>>| {
        String::from_utf8_lossy(&h.join().unwrap()).into_owned()
    };
    let run = Run {
        code: status.code(),
        stdout: text(out),
        stderr: text(err),
    };
    if run.code.is_none() {
        use std::os::unix::process::ExitStatusExt;
        panic!(
            "sextant was killed by signal {:?}; stderr:\n{}",
            status.signal(),
            run.stderr
        );
    }
    run
}

impl Run {
    /// The JSON lines on standard output.
    fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }

    fn names_and_times(&self) -> Vec<(String, i64)> {
        self.events()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["ts"].as_i64().unwrap(),
                )
            })
            .collect()
    }

    /// Asserts exit status 1 and one error line that starts with `prefix`
    /// (after `sextant: error: `) and mentions `words`; returns the message.
    fn assert_error(&self, prefix: &str, words: &[&str]) -> String {
        assert_ne!(
            self.code,
            Some(101),
            "sextant PANICKED instead of reporting an error; stderr:\n{}",
            self.stderr
        );
        assert_eq!(
            self.code,
            Some(1),
            "expected exit status 1; stderr:\n{}",
            self.stderr
        );
        let line = self
            .stderr
            .lines()
            .find_map(|l| l.strip_prefix("sextant: error: "))
            .unwrap_or_else(|| panic!("no `sextant: error:` line; stderr:\n{}", self.stderr));
        assert!(
            line.starts_with(prefix),
            "error should start with `{prefix}`:\n{line}"
        );
        for w in words {
            assert!(line.contains(w), "error should mention `{w}`:\n{line}");
        }
        line.to_string()
    }

    fn assert_events(&self, expected: &[(&str, i64)]) {
        let got = self.names_and_times();
        let want: Vec<(String, i64)> = expected.iter().map(|(n, t)| (n.to_string(), *t)).collect();
        assert_eq!(got, want, "events printed before the error");
    }
}

/// `<stream file>: byte N: `
fn at_byte(file: &Path, offset: usize) -> String {
    format!("{}: byte {offset}: ", file.display())
}

/// `<dir>/metadata:LINE: `
fn at_line(dir: &Path, line: usize) -> String {
    format!("{}:{line}: ", dir.join("metadata").display())
}

/// 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the metadata"))
        + 1
}

/// 1-based line of the `event {` that encloses `line`.
fn block_line(text: &str, line: usize) -> usize {
    text.lines()
        .take(line)
        .enumerate()
        .filter(|(_, l)| *l == "event {")
        .last()
        .expect("an event block")
        .0
        + 1
}

/// `METADATA` with the first line containing `from` changed to `to`.
fn edit_line(from: &str, to: &str) -> (String, usize) {
    let line = line_of(METADATA, from);
    let text: Vec<String> = METADATA
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line {
                l.replace(from, to)
            } else {
                l.to_string()
            }
        })
        .collect();
    (text.join("\n") + "\n", line)
}

// ---------------------------------------------------------------------------
// The trace as written is valid: the baseline the corruptions start from.

#[test]
fn valid_trace_dumps_every_event() {
    let mut s = packet_a();
    // `var` with tag 1: the u64 option.
    let mut big = vec![1u8];
    big.extend_from_slice(&0x0102_0304_0506_0708u64.to_le_bytes());
    // `bits`: a = 5 (3 bits), b = -2 (13 bits), c = 0xBEEF (big endian).
    let ab: u16 = 5 | (((-2i16 as u16) & 0x1FFF) << 3);
    let mut bits = ab.to_le_bytes().to_vec();
    bits.extend_from_slice(&0xBEEFu16.to_be_bytes());
    s.extend(packet(
        &[tick(400, 4), event(3, 450, &big), event(4, 600, &bits)],
        0,
        1,
    ));
    let (dir, _) = trace("valid", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let ev = run.events();
    let names: Vec<_> = run.names_and_times();
    assert_eq!(
        names,
        [
            ("tick", 100),
            ("msg", 200),
            ("seq", 300),
            ("var", 350),
            ("tick", 400),
            ("var", 450),
            ("bits", 600)
        ]
        .map(|(n, t)| (n.to_string(), t))
    );
    assert_eq!(ev[1]["fields"]["s"], "hello");
    assert_eq!(ev[2]["fields"]["data"], serde_json::json!([7, 8, 9]));
    assert_eq!(ev[3]["fields"]["v"], 0x1234);
    assert_eq!(ev[4]["cpu"], 1);
    assert_eq!(ev[5]["fields"]["v"], 0x0102_0304_0506_0708u64);
    assert_eq!(ev[6]["fields"]["a"], 5);
    assert_eq!(ev[6]["fields"]["b"], -2);
    assert_eq!(ev[6]["fields"]["c"], 0xBEEF);
}

// ---------------------------------------------------------------------------
// (1) A stream file cut in the middle of a packet.

#[test]
fn truncated_stream_names_the_packet_offset() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), tick(500, 5), tick(600, 6)], 16, 0);
    let mut s = a.clone();
    s.extend_from_slice(&b[..b.len() / 2]);
    let (dir, file) = trace("truncated", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, a.len()), &["truncated"]);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn stream_cut_inside_the_packet_header() {
    let a = packet_a();
    let b = packet(&[tick(400, 4)], 0, 0);
    let mut s = a.clone();
    s.extend_from_slice(&b[..20]); // in the packet context
    let (dir, file) = trace("truncated-header", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    let line = run.assert_error(&format!("{}: byte ", file.display()), &[]);
    let offset: usize = line[format!("{}: byte ", file.display()).len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .expect("a byte offset");
    assert!(
        (a.len()..=s.len()).contains(&offset),
        "offset {offset} should be in the cut packet ({}..={}): {line}",
        a.len(),
        s.len()
    );
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn truncated_recorded_trace() {
    let src = common::repo_root().join("fixtures/scenario-a/ctf");
    if !src.join("metadata").is_file() {
        eprintln!("skipped: fixtures/scenario-a/ctf is absent");
        return;
    }
    let dir = TempDir::new("truncated-recorded");
    for f in ["metadata", "perf_stream_0", "perf_stream_1"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    // perf_stream_0 is one packet (the CTF perf writes); cut it in the middle.
    let file = dir.path().join("perf_stream_0");
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[..4].try_into().unwrap()),
        PACKET_MAGIC
    );
    // header: magic, uuid[16], stream_id; context: ts_begin, ts_end, content_size, packet_size
    let packet_bytes = u64::from_le_bytes(bytes[48..56].try_into().unwrap()) as usize / 8;
    assert!(packet_bytes <= bytes.len());
    std::fs::write(&file, &bytes[..packet_bytes / 2]).unwrap();
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, 0), &["truncated"]);
}

// ---------------------------------------------------------------------------
// (2) A packet header whose magic number is wrong.

#[test]
fn corrupt_packet_magic() {
    let a = packet_a();
    let mut b = packet(&[tick(400, 4)], 8, 0);
    put_u32(&mut b, MAGIC_AT, 0xDEAD_BEEF);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("magic", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, a.len()), &["magic"]);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn corrupt_packet_magic_in_recorded_trace() {
    let src = common::repo_root().join("fixtures/scenario-a/ctf");
    if !src.join("metadata").is_file() {
        eprintln!("skipped: fixtures/scenario-a/ctf is absent");
        return;
    }
    let dir = TempDir::new("magic-recorded");
    for f in ["metadata", "perf_stream_0", "perf_stream_1"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let file = dir.path().join("perf_stream_1");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[0] ^= 0xFF;
    std::fs::write(&file, &bytes).unwrap();
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, 0), &["magic"]);
}

// ---------------------------------------------------------------------------
// (3) A syntax error in the metadata, at a known line.

#[test]
fn metadata_syntax_error_names_the_line() {
    let (text, line) = edit_line("minor = 8;", "minor = = 8;");
    let (dir, _) = trace("syntax", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_line(dir.path(), line), &[]);
    assert!(run.stdout.is_empty());
}

#[test]
fn metadata_missing_semicolon_names_the_line() {
    // `uint32_t n` without `;`: the parser sees `}` on the next line.
    let needle = "name = \"tick\";";
    let tick_line = line_of(METADATA, needle);
    // The field line of `tick` is 4 lines after its name.
    let field_line = tick_line + 4;
    let text: String = METADATA
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == field_line {
                assert_eq!(l.trim(), "uint32_t n;");
                l.trim_end_matches(';').to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (dir, _) = trace("semicolon", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    // The error is found at the next token, `}` on the following line.
    run.assert_error(&at_line(dir.path(), field_line + 1), &[]);
}

#[test]
fn metadata_unterminated_comment_names_its_first_line() {
    let (text, line) = edit_line("minor = 8;", "minor = 8; /* never closed");
    let (dir, _) = trace("comment", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_line(dir.path(), line), &["comment"]);
}

// ---------------------------------------------------------------------------
// (4) A field that runs past the end of its packet's content.

#[test]
fn string_past_the_packet_content() {
    let a = packet_a();
    // The string has no terminating null before the content ends.
    let b = packet(&[tick(400, 4), msg(500, 5, b"unterminated")], 0, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("string", METADATA.as_bytes(), &s);
    let string_at = a.len() + PACKET_HEADER_BYTES + 14 + EVENT_HEADER_BYTES + 4;
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, string_at), &["string"]);
    let mut want = PACKET_A_EVENTS.to_vec();
    want.push(("tick", 400));
    run.assert_events(&want);
}

#[test]
fn string_past_the_content_into_padding() {
    // The null byte is in the padding, past content_size: still an error.
    let a = packet_a();
    let b = packet(&[msg(500, 5, b"abc")], 4, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("string-padding", METADATA.as_bytes(), &s);
    let string_at = a.len() + PACKET_HEADER_BYTES + EVENT_HEADER_BYTES + 4;
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, string_at), &["string"]);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn sequence_length_past_the_packet_content() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), seq(500, 60000, &[1, 2, 3])], 64, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("sequence", METADATA.as_bytes(), &s);
    let data_at = a.len() + PACKET_HEADER_BYTES + 14 + EVENT_HEADER_BYTES + 2;
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, data_at), &["sequence"]);
    let mut want = PACKET_A_EVENTS.to_vec();
    want.push(("tick", 400));
    run.assert_events(&want);
}

#[test]
fn sequence_elements_past_the_packet_content() {
    // 20 one-byte elements claimed, 3 present: fewer than the bits left, so
    // the decoder starts and must stop at the fourth element.
    let a = packet_a();
    let b = packet(&[seq(500, 20, &[1, 2, 3])], 0, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("sequence-elements", METADATA.as_bytes(), &s);
    let fourth = a.len() + PACKET_HEADER_BYTES + EVENT_HEADER_BYTES + 2 + 3;
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, fourth), &["past the end"]);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn event_header_past_the_packet_content() {
    // content_size ends 4 bytes into the last event's header.
    let a = packet_a();
    let mut b = packet(&[tick(400, 4), tick(500, 5)], 32, 0);
    let cut = PACKET_HEADER_BYTES + 14 + 4;
    put_u64(&mut b, CONTENT_SIZE_AT, cut as u64 * 8);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("event-header", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    // The event (at its start) or its timestamp (after the 2-byte id) runs past.
    let event_at = a.len() + PACKET_HEADER_BYTES + 14;
    let msg = run.assert_error(&format!("{}: byte ", file.display()), &["past the end"]);
    assert!(
        msg.starts_with(&at_byte(&file, event_at))
            || msg.starts_with(&at_byte(&file, event_at + 2)),
        "should name byte {event_at} (the event) or {} (its timestamp): {msg}",
        event_at + 2
    );
    let mut want = PACKET_A_EVENTS.to_vec();
    want.push(("tick", 400));
    run.assert_events(&want);
}

// ---------------------------------------------------------------------------
// (5) Metadata that refers to an unknown type or field.

#[test]
fn metadata_unknown_type_names_the_line() {
    let (text, line) = edit_line("\t\tstring s;", "\t\tstring_t s;");
    let (dir, _) = trace("unknown-type", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_line(dir.path(), line), &["unknown type", "string_t"]);
}

#[test]
fn metadata_unknown_sequence_length_names_the_event() {
    let (text, field_line) = edit_line("uint8_t data[len];", "uint8_t data[length];");
    // Reference errors are found when resolving, and may be reported at the
    // line of the event block (`event {`) rather than the field's.
    let event_line = block_line(&text, field_line);
    let (dir, _) = trace("unknown-field", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    let msg = run.assert_error(
        &format!("{}:", dir.path().join("metadata").display()),
        &["length"],
    );
    assert!(
        msg.starts_with(&at_line(dir.path(), event_line))
            || msg.starts_with(&at_line(dir.path(), field_line)),
        "should name line {field_line} (the field) or {event_line} (its event): {msg}"
    );
}

#[test]
fn metadata_unknown_variant_tag_names_the_event() {
    let (text, field_line) = edit_line("variant <tag>", "variant <nosuchtag>");
    let (dir, _) = trace("unknown-tag", text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    let msg = run.assert_error(
        &format!("{}:", dir.path().join("metadata").display()),
        &["nosuchtag"],
    );
    let event_line = block_line(&text, field_line);
    assert!(
        msg.starts_with(&at_line(dir.path(), event_line))
            || msg.starts_with(&at_line(dir.path(), field_line)),
        "should name line {field_line} (the field) or {event_line} (its event): {msg}"
    );
}

// ---------------------------------------------------------------------------
// (6) Packet sizes that cannot be right.

fn bad_sizes(name: &str, content_bits: Option<u64>, packet_bits: Option<u64>) {
    let a = packet_a();
    let mut b = packet(&[tick(400, 4)], 8, 0);
    if let Some(c) = content_bits {
        put_u64(&mut b, CONTENT_SIZE_AT, c);
    }
    if let Some(p) = packet_bits {
        put_u64(&mut b, PACKET_SIZE_AT, p);
    }
    let mut s = a.clone();
    s.extend(b);
    s.extend(packet(&[tick(900, 9)], 0, 0));
    let (dir, file) = trace(name, METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    run.assert_error(&at_byte(&file, a.len()), &[]);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn packet_size_zero() {
    bad_sizes("packet-size-zero", None, Some(0));
}

#[test]
fn packet_and_content_size_zero() {
    bad_sizes("both-sizes-zero", Some(0), Some(0));
}

#[test]
fn content_size_larger_than_packet_size() {
    let content = (PACKET_HEADER_BYTES + 14) as u64 * 8;
    bad_sizes("content-over-packet", Some(content + 8 * 64), None);
}

#[test]
fn content_size_smaller_than_the_packet_header() {
    bad_sizes("content-in-header", Some(16), None);
}

#[test]
fn packet_size_not_whole_bytes() {
    let packet_bits = (PACKET_HEADER_BYTES + 14 + 8) as u64 * 8;
    bad_sizes("packet-size-bits", None, Some(packet_bits + 3));
}

#[test]
fn packet_size_past_the_end_of_the_file() {
    bad_sizes("packet-size-huge", None, Some(u64::MAX - 7));
}

#[test]
fn packet_size_smaller_than_its_header() {
    bad_sizes("packet-size-small", Some(16), Some(16));
}

// ---------------------------------------------------------------------------
// (7) An event id that no event class has.

#[test]
fn unknown_event_id() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), event(9, 500, &[0; 4])], 0, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("event-id", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    run.assert_error(
        &at_byte(&file, a.len() + PACKET_HEADER_BYTES + 14),
        &["unknown event id 9"],
    );
    let mut want = PACKET_A_EVENTS.to_vec();
    want.push(("tick", 400));
    run.assert_events(&want);
}

#[test]
fn huge_event_id() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), event(0xFFFF, 500, &[0; 4])], 0, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("event-id-huge", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    run.assert_error(
        &at_byte(&file, a.len() + PACKET_HEADER_BYTES + 14),
        &["unknown event id 65535"],
    );
}

#[test]
fn variant_tag_selecting_no_option() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), var_small(500, 7, 0)], 0, 0);
    let mut s = a.clone();
    s.extend(b);
    let (dir, file) = trace("variant-tag", METADATA.as_bytes(), &s);
    let run = dump(dir.path());
    // The variant starts after the 1-byte tag.
    run.assert_error(
        &at_byte(
            &file,
            a.len() + PACKET_HEADER_BYTES + 14 + EVENT_HEADER_BYTES + 1,
        ),
        &["variant", "7"],
    );
    let mut want = PACKET_A_EVENTS.to_vec();
    want.push(("tick", 400));
    run.assert_events(&want);
}

// ---------------------------------------------------------------------------
// (8) Packetized metadata (as LTTng writes it), truncated.

const METADATA_PACKET_MAGIC: u32 = 0x75D1_1D57;
const METADATA_HEADER_BYTES: usize = 37;

/// `text` in metadata packets of at most `chunk` bytes of text each.
fn packetized(text: &[u8], chunk: usize) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for part in text.chunks(chunk) {
        offsets.push(out.len());
        let content = (METADATA_HEADER_BYTES + part.len()) as u32 * 8;
        let pad = 3usize;
        out.extend_from_slice(&METADATA_PACKET_MAGIC.to_le_bytes());
        out.extend_from_slice(&[0; 16]); // uuid
        out.extend_from_slice(&0u32.to_le_bytes()); // checksum
        out.extend_from_slice(&content.to_le_bytes());
        out.extend_from_slice(&(content + pad as u32 * 8).to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 1, 8]); // compression, encryption, checksum, major, minor
        out.extend_from_slice(part);
        out.resize(out.len() + pad, 0);
    }
    (out, offsets)
}

#[test]
fn packetized_metadata_is_read() {
    let (meta, offsets) = packetized(METADATA.as_bytes(), 300);
    assert!(offsets.len() > 3);
    let (dir, _) = trace("packetized", &meta, &packet_a());
    let run = dump(dir.path());
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    run.assert_events(&PACKET_A_EVENTS);
}

#[test]
fn packetized_metadata_truncated_in_a_packet() {
    let (meta, offsets) = packetized(METADATA.as_bytes(), 300);
    let last = *offsets.last().unwrap();
    // Cut in the middle of the second-to-last packet's text.
    let victim = offsets[offsets.len() - 2];
    let cut = victim + METADATA_HEADER_BYTES + 100;
    assert!(cut < last);
    let (dir, _) = trace("packetized-truncated", &meta[..cut], &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_byte(&dir.path().join("metadata"), victim), &[]);
    assert!(run.stdout.is_empty());
}

#[test]
fn packetized_metadata_truncated_in_a_header() {
    let (meta, offsets) = packetized(METADATA.as_bytes(), 300);
    let last = *offsets.last().unwrap();
    let (dir, _) = trace("packetized-header", &meta[..last + 20], &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_byte(&dir.path().join("metadata"), last), &["truncated"]);
}

#[test]
fn packetized_metadata_with_inconsistent_sizes() {
    let (mut meta, offsets) = packetized(METADATA.as_bytes(), 300);
    let victim = offsets[1];
    // content_size 0: smaller than the header.
    put_u32(&mut meta, victim + 24, 0);
    let (dir, _) = trace("packetized-sizes", &meta, &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_byte(&dir.path().join("metadata"), victim), &[]);
}

#[test]
fn packetized_metadata_with_huge_sizes() {
    // Sizes near u32::MAX bits: must be an error, not an overflow.
    let (mut meta, offsets) = packetized(METADATA.as_bytes(), 300);
    let victim = offsets[1];
    put_u32(&mut meta, victim + 24, u32::MAX - 7);
    put_u32(&mut meta, victim + 28, u32::MAX - 7);
    let (dir, _) = trace("packetized-huge", &meta, &packet_a());
    let run = dump(dir.path());
    run.assert_error(&at_byte(&dir.path().join("metadata"), victim), &[]);
}

// ---------------------------------------------------------------------------
// Lengths read from the data must not make a loop long (ARCHITECTURE.md).

#[test]
fn huge_sequence_of_empty_structures_is_not_a_hang() {
    // A sequence of empty structures takes no bits per element, so the check
    // against what is left of the packet does not bound its length.
    let (text, _) = edit_line("uint8_t data[len];", "struct { } data[len];");
    let text = text.replace(
        "\t\tuint16_t len;\n\t\tstruct",
        "\t\tuint64_t len;\n\t\tstruct",
    );
    assert!(text.contains("uint64_t len;\n\t\tstruct { } data[len];"));
    let s = packet(
        &[tick(400, 4), event(2, 500, &(1u64 << 40).to_le_bytes())],
        0,
        0,
    );
    let (dir, _) = trace("empty-structs", text.as_bytes(), &s);
    let run = dump(dir.path());
    // An error, or a quick success: anything but a hang or a panic.
    assert!(
        run.code == Some(0) || run.code == Some(1),
        "status {:?}; stderr:\n{}",
        run.code,
        run.stderr
    );
}

#[test]
fn huge_array_of_empty_structures_is_not_a_hang() {
    // The same with a length the metadata declares: skipping the payload is
    // free (it has a fixed size of 0 bits), but printing it walks 10^12
    // elements.
    let (text, _) = edit_line(
        "\t\tuint32_t n;",
        "\t\tuint32_t n; struct { } pad[1000000000000];",
    );
    let (dir, _) = trace(
        "empty-array",
        text.as_bytes(),
        &packet(&[tick(400, 4)], 0, 0),
    );
    let run = dump(dir.path());
    assert!(
        run.code == Some(0) || run.code == Some(1),
        "status {:?}; stderr:\n{}",
        run.code,
        run.stderr
    );
}

// ---------------------------------------------------------------------------
// Numbers in the metadata beyond what the arithmetic holds.

fn clock_offset(name: &str, attribute: &str) {
    let (text, line) = edit_line(
        "freq = 1000000000;",
        &format!("freq = 1000000000; {attribute}"),
    );
    let (dir, _) = trace(name, text.as_bytes(), &packet_a());
    let run = dump(dir.path());
    match run.code {
        // Read past, with a warning, like offsets in the wrong unit are.
        Some(0) => assert!(run.stderr.contains("warning"), "stderr:\n{}", run.stderr),
        _ => {
            run.assert_error(&at_line(dir.path(), line), &[]);
        }
    }
}

#[test]
fn huge_clock_offset_s_is_not_a_panic() {
    clock_offset(
        "offset-s-huge",
        "offset_s = 0x7fffffffffffffffffffffffffffffff;",
    );
}

#[test]
fn huge_clock_offset_is_not_a_panic() {
    clock_offset(
        "offset-huge",
        "offset = 0x7fffffffffffffffffffffffffffffff;",
    );
}

// ---------------------------------------------------------------------------
// (9) --lenient: a damaged stream is read up to its damage, the others whole;
// one warning names the file, the byte and what was skipped. Checked against
// babeltrace2 when it is installed (`tests/run-all.sh` installs it).

/// Another stream, on CPU 1, whose events fall before, between and after
/// those of `stream_0`.
fn other_stream() -> Vec<u8> {
    let mut s = packet(&[tick(150, 10), tick(450, 11)], 0, 1);
    s.extend(packet(&[tick(800, 12), tick(950, 13)], 4, 1));
    s
}

/// (name, ts) of the other stream's events.
const OTHER_EVENTS: [(&str, i64); 4] = [("tick", 150), ("tick", 450), ("tick", 800), ("tick", 950)];

/// A trace of `stream_0` and the other stream.
fn two_streams(name: &str, metadata: &str, stream_0: &[u8]) -> (TempDir, PathBuf) {
    let (dir, file) = trace(name, metadata.as_bytes(), stream_0);
    dir.write("stream_1", other_stream());
    (dir, file)
}

/// `a` and `b` merged by time.
fn merged(a: &[(&str, i64)], b: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = a
        .iter()
        .chain(b)
        .map(|(n, t)| (n.to_string(), *t))
        .collect();
    v.sort_by_key(|e| e.1);
    v
}

const HINT: &str = " (--lenient keeps the events before this and skips the rest of the stream)";

/// Strictly: the error with the hint; with `--lenient` on one thread and
/// on two: exit 0, `want`, and the one warning `warning`.
fn check_lenient(dir: &Path, error: &str, want: &[(String, i64)], warning: &str) {
    let strict = dump(dir);
    let line = strict.assert_error(error, &[]);
    assert!(
        line.ends_with(HINT),
        "the error should suggest --lenient:\n{line}"
    );
    for jobs in ["1", "2"] {
        let run = dump_with(dir, &["--lenient", "--jobs", jobs]);
        assert_eq!(run.code, Some(0), "--jobs {jobs}; stderr:\n{}", run.stderr);
        assert_eq!(run.names_and_times(), want, "--jobs {jobs}");
        let warnings: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("sextant: warning: "))
            .collect();
        assert_eq!(
            warnings,
            [format!("sextant: warning: {warning}")],
            "--jobs {jobs}"
        );
    }
}

/// Events as (name, clock value, CPU).
type Events = Vec<(String, i64, u32)>;

/// babeltrace2's events of a trace, and whether it ended in an error;
/// `None` when babeltrace2 is not installed.
fn babeltrace2(dir: &Path) -> Option<(Events, bool)> {
    let out = Command::new("babeltrace2")
        .arg(dir)
        .arg("--clock-cycles")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let events = text
        .lines()
        .filter_map(|l| {
            let ts = l.strip_prefix('[')?.split(']').next()?.parse().ok()?;
            let name = l.split(") ").nth(1)?.split(':').next()?.to_string();
            let cpu = l
                .split("cpu_id = ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()?;
            Some((name, ts, cpu))
        })
        .collect();
    Some((events, !out.status.success()))
}

/// `run`'s events on `cpu`, as babeltrace2's.
fn on_cpu(run: &Run, cpu: u32) -> Events {
    run.events()
        .iter()
        .filter(|e| e["cpu"] == cpu)
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["ts"].as_i64().unwrap(),
                cpu,
            )
        })
        .collect()
}

#[test]
fn lenient_reads_a_stream_cut_in_a_packet_up_to_that_packet() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), tick(500, 5), tick(600, 6)], 16, 0);
    // Cut inside the second event of packet B.
    let cut = PACKET_HEADER_BYTES + 14 + 5;
    let mut s = a.clone();
    s.extend_from_slice(&b[..cut]);
    let (dir, file) = two_streams("lenient-cut", METADATA, &s);
    let error = format!(
        "{}truncated packet: its size is {} bytes but the file has {cut} bytes left",
        at_byte(&file, a.len()),
        b.len()
    );
    let warning = format!(
        "{error}; --lenient: kept the events before, skipped the rest of this stream ({cut} bytes, 1 packet)"
    );
    check_lenient(
        dir.path(),
        &error,
        &merged(&PACKET_A_EVENTS, &OTHER_EVENTS),
        &warning,
    );

    // babeltrace2 refuses the stream whole (it indexes every packet first):
    // on the trace cut where the damaged packet starts, it gives what
    // --lenient gives.
    let clean = TempDir::new("lenient-cut-clean");
    clean.write("metadata", METADATA);
    clean.write("stream_0", &a);
    clean.write("stream_1", other_stream());
    let Some((bt2, failed)) = babeltrace2(clean.path()) else {
        eprintln!("babeltrace2 not installed: the oracle part is skipped");
        return;
    };
    assert!(!failed);
    let run = dump_with(dir.path(), &["--lenient"]);
    let mut ours = on_cpu(&run, 0);
    ours.extend(on_cpu(&run, 1));
    ours.sort_by_key(|e| e.1);
    assert_eq!(
        ours, bt2,
        "sextant --lenient and babeltrace2 up to the damaged packet"
    );
}

#[test]
fn lenient_reads_a_stream_without_packet_sizes_cut_in_an_event() {
    // Without content_size and packet_size a packet runs to the end of the
    // file: a cut there ends its last event early.
    let (text, _) = edit_line("uint64_t content_size;", "uint64_t content_sz;");
    let text = text.replace("uint64_t packet_size;", "uint64_t packet_sz;");
    let events = [tick(100, 1), tick(200, 2), tick(300, 3), tick(400, 4)];
    let s = packet(&events, 0, 0);
    // Inside the fourth event's timestamp.
    let fourth = PACKET_HEADER_BYTES + 3 * 14;
    let cut = fourth + 2 + 6;
    let (dir, file) = two_streams("lenient-no-sizes", &text, &s[..cut]);
    // Its packets have no sizes either: one packet, the whole file.
    let other = [tick(150, 10), tick(450, 11), tick(800, 12), tick(950, 13)];
    dir.write("stream_1", packet(&other, 0, 1));
    // The event (at its start) or its timestamp runs past the end.
    let line =
        dump(dir.path()).assert_error(&format!("{}: byte ", file.display()), &["past the end"]);
    let offset = [fourth, fourth + 2]
        .into_iter()
        .find(|&o| line.starts_with(&at_byte(&file, o)))
        .unwrap_or_else(|| panic!("should name byte {fourth} or {}: {line}", fourth + 2));
    let error = line.trim_end_matches(HINT);
    let warning = format!(
        "{error}; --lenient: kept the events before, skipped the rest of this stream ({} bytes, 1 packet)",
        cut - offset
    );
    let want = merged(
        &[("tick", 100), ("tick", 200), ("tick", 300)],
        &OTHER_EVENTS,
    );
    check_lenient(dir.path(), error, &want, &warning);

    let Some((bt2, failed)) = babeltrace2(dir.path()) else {
        eprintln!("babeltrace2 not installed: the oracle part is skipped");
        return;
    };
    assert!(failed, "babeltrace2 should fail on the cut event");
    let run = dump_with(dir.path(), &["--lenient"]);
    let bt2_0: Vec<_> = bt2.into_iter().filter(|e| e.2 == 0).collect();
    assert_eq!(
        on_cpu(&run, 0),
        bt2_0,
        "stream_0 before babeltrace2's error"
    );
}

#[test]
fn lenient_reads_a_stream_up_to_a_corrupt_event() {
    let a = packet_a();
    let b = packet(&[tick(400, 4), event(9, 500, &[0; 4]), tick(600, 6)], 0, 0);
    let c = packet(&[tick(700, 7)], 8, 0);
    let mut s = a.clone();
    s.extend_from_slice(&b);
    s.extend_from_slice(&c);
    let (dir, file) = two_streams("lenient-event", METADATA, &s);
    let bad = a.len() + PACKET_HEADER_BYTES + 14;
    let error = format!("{}unknown event id 9 in stream 0", at_byte(&file, bad));
    let warning = format!(
        "{error}; --lenient: kept the events before, skipped the rest of this stream ({} bytes, 2 packets)",
        s.len() - bad
    );
    let mut kept = PACKET_A_EVENTS.to_vec();
    kept.push(("tick", 400));
    check_lenient(dir.path(), &error, &merged(&kept, &OTHER_EVENTS), &warning);

    let Some((bt2, failed)) = babeltrace2(dir.path()) else {
        eprintln!("babeltrace2 not installed: the oracle part is skipped");
        return;
    };
    assert!(failed, "babeltrace2 should fail on the event");
    let run = dump_with(dir.path(), &["--lenient"]);
    let bt2_0: Vec<_> = bt2.into_iter().filter(|e| e.2 == 0).collect();
    assert_eq!(
        on_cpu(&run, 0),
        bt2_0,
        "stream_0 before babeltrace2's error"
    );
}
