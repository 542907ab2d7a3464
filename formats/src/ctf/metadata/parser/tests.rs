//! TSDL parsing: declarations, aliases, scopes and errors.

use super::super::lexer::tokenize;
use super::*;

fn meta(src: &str) -> MetadataDecl {
    parse(tokenize(src).unwrap()).unwrap()
}

#[test]
fn lttng_like_header_and_sequences() {
    let m = meta(
        r#"
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        trace { major = 1; minor = 8; byte_order = le;
                uuid = "2a1bda29-ffc3-e248-8053-81ccaf830d2f";
                packet.header := struct { uint32_t magic; uint8_t uuid[16]; }; };
        clock { name = monotonic; freq = 1000000000; offset = 1361203559332331489; };
        struct event_header_compact {
            enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
            variant <id> { struct { uint32_t timestamp; } compact;
                           struct { uint32_t id; unsigned long timestamp; } extended; } v;
        } align(8);
        stream { id = 0; event.header := struct event_header_compact; };
        event { name = "x"; id = 3; stream_id = 0;
                fields := struct { uint32_t _len; uint8_t _data[_len]; unsigned long _x[2][3]; }; };
        "#,
    );
    assert_eq!(m.trace.byte_order, Some(ByteOrder::Little));
    assert_eq!(m.clocks[0].offset, 1361203559332331489);
    let Some(TypeDecl::Struct { fields, min_align }) = &m.streams[0].event_header else {
        panic!()
    };
    assert_eq!(*min_align, 8);
    assert!(
        matches!(&fields[1].1, TypeDecl::Variant { tag: Some(t), .. } if t == &vec!["id".to_string()])
    );
    let Some(TypeDecl::Struct { fields, .. }) = &m.events[0].fields else {
        panic!()
    };
    assert_eq!(fields[0].0, "len");
    assert!(
        matches!(&fields[1].1, TypeDecl::Sequence { len, .. } if len == &vec!["len".to_string()])
    );
    let TypeDecl::Array { elem, len: 2 } = &fields[2].1 else {
        panic!()
    };
    assert!(matches!(**elem, TypeDecl::Array { len: 3, .. }));
}

#[test]
fn errors_point_at_the_line() {
    let e = parse(
        tokenize("trace {\n major = 1;\n packet.header := struct { nosuch_t x; };\n};").unwrap(),
    )
    .unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("nosuch_t"), "{}", e.message);
    let e = parse(tokenize("event {\n name = \"a\"\n id = 1; };").unwrap()).unwrap_err();
    assert_eq!(e.line, 3);
}

fn parse_err(src: &str) -> MetadataError {
    match tokenize(src) {
        Err(e) => e,
        Ok(toks) => parse(toks).unwrap_err(),
    }
}

const U8: &str = "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n";

#[test]
fn character_constants_in_enumerations_and_attributes() {
    let m = meta(&format!(
        "{U8}event {{ name = \"e\"; id = '\\x01';\n fields := struct {{\n enum : uint8_t {{ test1 = 'a', test2 = '\\101', test3 = '\\n', test4 = '\\'' }} e;\n }}; }};"
    ));
    assert_eq!(m.events[0].id, Some(1));
    let Some(TypeDecl::Struct { fields, .. }) = &m.events[0].fields else {
        panic!()
    };
    let TypeDecl::Enum { mappings, .. } = &fields[0].1 else {
        panic!()
    };
    let values: Vec<i128> = mappings.iter().map(|m| m.lo).collect();
    assert_eq!(values, [97, 65, 10, 39]);
}

#[test]
fn unary_plus_on_constants() {
    let m = meta(&format!(
        "{U8}clock {{ name = c; freq = +1000; offset = +1234; }};\n event {{ name = \"e\"; id = +3;\n fields := struct {{ enum : uint8_t {{ a = +1 ... +2 }} e; }}; }};"
    ));
    assert_eq!(m.clocks[0].offset, 1234);
    assert_eq!(m.clocks[0].freq, 1000);
    assert_eq!(m.events[0].id, Some(3));
    let e = parse_err("clock { name = c;\n offset = + x; };");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("C.2"), "{}", e.message);
}

#[test]
fn unknown_type_attribute_in_event_warns_and_goes_on() {
    let m = meta(&format!(
        "{U8}event {{ name = \"e\"; id = 0;\n whatever := struct {{ uint8_t x; }};\n fields := struct {{ uint8_t y; }}; }};"
    ));
    assert!(m.events[0].fields.is_some());
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].starts_with("line 3:"), "{}", m.warnings[0]);
    assert!(m.warnings[0].contains("whatever"), "{}", m.warnings[0]);
}

#[test]
fn pointer_type_aliases() {
    let m = meta(
        "typealias integer { size = 64; align = 64; signed = false; } := void *;\n\
         typealias integer { size = 32; align = 32; signed = false; } := struct page *;\n\
         event { name = \"e\"; fields := struct { void * p; struct page * pg; }; };",
    );
    let Some(TypeDecl::Struct { fields, .. }) = &m.events[0].fields else {
        panic!()
    };
    assert_eq!(fields[0].0, "p");
    assert!(matches!(&fields[0].1, TypeDecl::Int(i) if i.size == 64));
    assert_eq!(fields[1].0, "pg");
    assert!(matches!(&fields[1].1, TypeDecl::Int(i) if i.size == 32));
}

#[test]
fn versions_other_than_1_8_are_refused() {
    let e = parse_err("trace {\n major = 0;\n minor = 1; };");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("major = 1; minor = 8"), "{}", e.message);
    let e = parse_err("trace {\n major = 1;\n minor = 9; };");
    assert_eq!(e.line, 3);
    assert!(
        meta("trace { major = 1; minor = 8; };").trace.minor == Some(8),
        "1.8 reads"
    );
}

#[test]
fn escapes_follow_the_spec() {
    let m = meta("env {\n a = \"x\\ty\\101\\x42\\u00e9\\\\\\\"\"; };");
    assert_eq!(
        m.env[0].1,
        EnvValue::Str("x\ty\u{41}\u{42}\u{e9}\\\"".to_string())
    );
    let e = parse_err("env {\n a = \"hello\";\n b = \"x\\o040\"; };");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("\\o"), "{}", e.message);
    assert!(e.message.contains("C.1.5"), "{}", e.message);
}
