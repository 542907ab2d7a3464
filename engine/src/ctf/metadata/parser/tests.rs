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
