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
