//! The flat plans against the walk.

use super::*;
use crate::ctf::decode::{walk, State};
use crate::ctf::types::{Field, IntType, Role};
use crate::value::ValueBuilder;

fn int(bits: u8, align: u32, signed: bool) -> FieldType {
    FieldType::with_align(
        Kind::Int(IntType {
            bits,
            signed,
            order: ByteOrder::Little,
            store: None,
            role: Role::Plain,
        }),
        align,
    )
}

fn strukt(fields: Vec<FieldType>) -> FieldType {
    let fields: Vec<Field> = fields
        .into_iter()
        .enumerate()
        .map(|(i, ty)| Field {
            name: format!("f{i}").into(),
            ty,
        })
        .collect();
    FieldType::new(Kind::Struct(fields.into()))
}

/// u32 (align 8), string, u8 (align 8), i64 (align 32), 3-bit, string.
fn sample() -> (FieldType, Vec<u8>) {
    let t = strukt(vec![
        int(32, 8, false),
        FieldType::new(Kind::Str),
        int(8, 8, false),
        int(64, 32, true),
        int(3, 1, false),
        FieldType::new(Kind::Str),
    ]);
    let mut d = vec![1, 2, 3, 4, b'a', b'b', 0, 9];
    d.extend((-2i64).to_le_bytes());
    d.push(0b101);
    d.extend(b"c\0");
    (t, d)
}

#[test]
fn runs_merge_and_strings_split_them() {
    let (t, d) = sample();
    let plan = FlatPayload::new(&t).unwrap();
    let shape: Vec<_> = plan
        .ops
        .iter()
        .map(|o| match o {
            Op::Run { align, bits, .. } => (*align, *bits),
            Op::Str { .. } => (0, 0),
        })
        .collect();
    assert_eq!(shape, vec![(32, 32), (0, 0), (8, 8), (32, 67), (0, 0)]);
    let mut cur = Cursor::new(&d, 0, d.len() as u64 * 8);
    plan.skip(&mut cur).unwrap();
    assert_eq!(cur.pos, d.len() as u64 * 8);
    let short = &d[..d.len() - 1];
    let mut cur = Cursor::new(short, 0, short.len() as u64 * 8);
    assert!(plan.skip(&mut cur).is_err());
}

#[test]
fn nul_found_at_every_position() {
    for len in 0..40 {
        for at in 0..=len {
            let mut b = vec![b'x'; len];
            if at < len {
                b[at] = 0;
                // A byte after the first null must not matter.
                b[len - 1] = 0;
            }
            let want = b.iter().position(|&c| c == 0);
            assert_eq!(find_nul(&b), want, "len {len}, null at {at}");
        }
    }
    // 0x01 after a zero byte: the borrow flags it falsely, above the zero.
    let b = [b'a', 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
    assert_eq!(find_nul(&b), Some(1));
}

/// Every width and sign, read as words (bytes to spare after the run)
/// and field by field (the run ends the packet): the walk's values.
#[test]
fn words_of_every_width_and_sign_equal_the_walk() {
    let widths = [8u8, 16, 32, 64];
    let t = strukt(
        widths
            .iter()
            .flat_map(|&b| [int(b, 8, true), int(b, 8, false)])
            .collect(),
    );
    let mut d = Vec::new();
    for b in widths {
        let n = usize::from(b / 8);
        d.extend(&(-3i64).to_le_bytes()[..n]);
        d.extend(&(u64::MAX - 1).to_le_bytes()[..n]);
    }
    let end = d.len() as u64 * 8;
    for spare in [0, 8] {
        let mut bytes = d.clone();
        bytes.resize(d.len() + spare, 0xa5);
        let fast = decoded_as_walked(&t, &bytes, end);
        assert_eq!(fast.get("f6").and_then(|v| v.as_i64()), Some(-3));
        assert_eq!(fast.get("f1").and_then(|v| v.as_i64()), Some(254));
    }
}

/// The plan's decoding of `ty` in `bytes` up to bit `end`, checked equal
/// to the walk's, values and end position.
fn decoded_as_walked(ty: &FieldType, bytes: &[u8], end: u64) -> crate::value::Value {
    let plan = FlatPayload::new(ty).unwrap();
    assert!(plan.decodable());
    let mut fast = ValueBuilder::default();
    let mut cur = Cursor::new(bytes, 0, end);
    plan.decode(ty, &mut cur, &mut fast).unwrap();
    let mut slow = ValueBuilder::default();
    let mut walked = Cursor::new(bytes, 0, end);
    let mut st = State {
        slots: &[],
        event_id: None,
        clock: 0,
    };
    walk(ty, None, &mut walked, &mut st, &mut slow).unwrap();
    assert_eq!(cur.pos, walked.pos);
    let (fast, slow) = (fast.finish().unwrap(), slow.finish().unwrap());
    assert_eq!(fast, slow);
    fast
}

#[test]
fn decoding_equals_the_walk() {
    let (t, d) = sample();
    let fast = decoded_as_walked(&t, &d, d.len() as u64 * 8);
    assert_eq!(fast.get("f3").and_then(|v| v.as_i64()), Some(-2));
}
