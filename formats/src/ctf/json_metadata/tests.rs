//! CTF 2 metadata: fragments, field classes, roles, locations and errors.

use super::*;
use crate::ctf::metadata::ast::TypeDecl;

fn seq(fragments: &[&str]) -> String {
    fragments.iter().map(|f| format!("\u{1e}{f}\n")).collect()
}

const PREAMBLE: &str = r#"{"type": "preamble", "version": 2}"#;

#[test]
fn malformed_json_names_fragment_and_pointer() {
    let e = parse(&seq(&[PREAMBLE, r#"{"type": "trace-class""#])).unwrap_err();
    assert_eq!(e.fragment, 2);
    assert!(e.message.contains("invalid JSON"), "{e}");
    let e = parse(&seq(&[
        PREAMBLE,
        r#"{"type": "data-stream-class"}"#,
        r#"{"type": "event-record-class", "payload-field-class": {"type": "structure",
            "member-classes": [{"name": "a", "field-class": {"type": "fixed-length-unsigned-integer", "length": "eight"}}]}}"#,
    ]))
    .unwrap_err();
    assert_eq!(e.fragment, 3);
    assert_eq!(
        e.pointer,
        "/payload-field-class/member-classes/0/field-class/length"
    );
    let e = parse(&seq(&[r#"{"type": "preamble", "version": 3}"#])).unwrap_err();
    assert_eq!((e.fragment, e.pointer.as_str()), (1, "/version"));
    let e = parse(&seq(&[r#"{"type": "trace-class"}"#])).unwrap_err();
    assert!(e.message.contains("preamble"), "{e}");
}

#[test]
fn roles_take_reserved_names_and_clocks_both_spellings() {
    for (clock_key, dsc_key) in [
        ("id", "default-clock-class-id"),
        ("name", "default-clock-class-name"),
    ] {
        let m = parse(&seq(&[
            PREAMBLE,
            r#"{"type": "trace-class", "packet-header-field-class": {"type": "structure", "member-classes": [
                {"name": "m", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32, "byte-order": "little-endian", "roles": ["packet-magic-number"]}}]}}"#,
            &format!(r#"{{"type": "clock-class", "{clock_key}": "mono", "frequency": 1000, "offset-from-origin": {{"seconds": 5, "cycles": 7}}}}"#),
            &format!(r#"{{"type": "data-stream-class", "{dsc_key}": "mono", "event-record-header-field-class": {{"type": "structure", "member-classes": [
                {{"name": "t", "field-class": {{"type": "fixed-length-unsigned-integer", "length": 64, "byte-order": "big-endian", "roles": ["default-clock-timestamp"]}}}}]}}}}"#),
        ]))
        .unwrap();
        assert_eq!(m.clocks[0].name, "mono");
        assert_eq!((m.clocks[0].offset_s, m.clocks[0].offset), (5, 7));
        let Some(TypeDecl::Struct { fields, .. }) = &m.trace.packet_header else {
            panic!()
        };
        assert_eq!(fields[0].0, "magic");
        let Some(TypeDecl::Struct { fields, .. }) = &m.streams[0].event_header else {
            panic!()
        };
        assert_eq!(fields[0].0, "timestamp");
        assert!(matches!(&fields[0].1, TypeDecl::Int(i) if i.clock.as_deref() == Some("mono")));
    }
}

#[test]
fn locations_final_and_draft() {
    let at = Ptr::root(1);
    let v: serde_json::Value =
        serde_json::json!({"origin": "event-record-payload", "path": ["len"]});
    assert_eq!(location::path(&v, &at).unwrap(), ["event", "fields", "len"]);
    let v = serde_json::json!(["event-record-header", "id"]);
    assert_eq!(
        location::path(&v, &at).unwrap(),
        ["stream", "event", "header", "id"]
    );
    let v = serde_json::json!({"path": [null, "len"]});
    assert_eq!(location::path(&v, &at).unwrap(), ["len"]);
    let v = serde_json::json!({"origin": "nowhere", "path": ["x"]});
    assert_eq!(location::path(&v, &at).unwrap_err().pointer, "/origin");
}

/// A trace of our own with the field classes the samples lack: aliases,
/// booleans, optionals (present and absent), dynamic-length strings, BLOBs,
/// variants on integer ranges, floats, static-length arrays and LEB128.
#[test]
fn field_classes_decode() {
    use crate::ctf::writer::tests::{read_back, tmp};
    use crate::value::Value as V;
    let payload = r#"{"type": "structure", "member-classes": [
        {"name": "flag", "field-class": {"type": "fixed-length-boolean", "length": 8, "byte-order": "little-endian", "alignment": 8}},
        {"name": "n", "field-class": "u8"},
        {"name": "s", "field-class": {"type": "dynamic-length-string", "length-field-location": {"origin": "event-record-payload", "path": ["n"]}}},
        {"name": "b", "field-class": {"type": "static-length-blob", "length": 2}},
        {"name": "o", "field-class": {"type": "optional", "selector-field-location": {"path": ["flag"]},
            "field-class": {"type": "fixed-length-unsigned-integer", "length": 16, "byte-order": "big-endian", "alignment": 8}}},
        {"name": "v", "field-class": {"type": "variant", "selector-field-location": {"path": ["n"]}, "options": [
            {"name": "small", "selector-field-ranges": [[0, 2]], "field-class": "u8"},
            {"name": "big", "selector-field-ranges": [[3, 255]], "field-class": {"type": "null-terminated-string"}}]}},
        {"name": "f", "field-class": {"type": "fixed-length-floating-point-number", "length": 64, "byte-order": "little-endian", "alignment": 8}},
        {"name": "db", "field-class": {"type": "dynamic-length-blob", "length-field-location": {"path": ["n"]}}},
        {"name": "vl", "field-class": {"type": "variable-length-signed-integer"}},
        {"name": "arr", "field-class": {"type": "static-length-array", "length": 2, "element-field-class": "u8"}}]}"#;
    let meta = seq(&[
        PREAMBLE,
        r#"{"type": "field-class-alias", "name": "u8", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8, "byte-order": "little-endian", "alignment": 8}}"#,
        r#"{"type": "trace-class"}"#,
        r#"{"type": "data-stream-class"}"#,
        &format!(
            r#"{{"type": "event-record-class", "name": "e", "payload-field-class": {payload}}}"#
        ),
    ]);
    let mut stream = Vec::new();
    for present in [true, false] {
        stream.push(u8::from(present));
        stream.extend_from_slice(&[3, b'a', b'b', b'c', 0xde, 0xad]);
        if present {
            stream.extend_from_slice(&[0x01, 0x02]);
        }
        stream.extend_from_slice(b"hi\0");
        stream.extend_from_slice(&1.5f64.to_le_bytes());
        stream.extend_from_slice(&[1, 2, 3, 0x7e, 7, 8]);
    }
    let dir = tmp("ctf2-classes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("metadata"), meta).unwrap();
    std::fs::write(dir.join("stream"), stream).unwrap();
    let (events, _) = read_back(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(events.len(), 2);
    let p = &events[0].3;
    assert_eq!(p.get("flag"), Some(&V::Unsigned(1)));
    assert_eq!(p.get("s").and_then(V::as_str), Some("abc"));
    assert_eq!(
        p.get("b"),
        Some(&V::List(vec![V::Unsigned(0xde), V::Unsigned(0xad)]))
    );
    assert_eq!(p.get("o"), Some(&V::Unsigned(0x0102)));
    assert_eq!(p.get("v").and_then(V::as_str), Some("hi"));
    assert_eq!(p.get("f"), Some(&V::Float(1.5)));
    assert_eq!(
        p.get("db").map(|l| matches!(l, V::List(x) if x.len() == 3)),
        Some(true)
    );
    assert_eq!(p.get("vl"), Some(&V::Signed(-2)));
    assert_eq!(
        p.get("arr"),
        Some(&V::List(vec![V::Unsigned(7), V::Unsigned(8)]))
    );
    // Absent: nothing read, the fields after it in place.
    let q = &events[1].3;
    assert_eq!(q.get("flag"), Some(&V::Unsigned(0)));
    assert_eq!(q.get("v").and_then(V::as_str), Some("hi"));
    assert_eq!(q.get("vl"), Some(&V::Signed(-2)));
}
