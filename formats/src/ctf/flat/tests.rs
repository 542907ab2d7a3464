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
        let fast = decoded_as_walked(&t, &bytes, 0, end);
        assert_eq!(fast.get("f6").and_then(|v| v.as_i64()), Some(-3));
        assert_eq!(fast.get("f1").and_then(|v| v.as_i64()), Some(254));
    }
}

/// The plan's decoding of `ty` in `bytes` from bit `start` up to bit
/// `end`, checked equal to the walk's, values and end position.
fn decoded_as_walked(ty: &FieldType, bytes: &[u8], start: u64, end: u64) -> crate::value::Value {
    let plan = FlatPayload::new(ty).unwrap();
    assert!(plan.decodable());
    let mut fast = ValueBuilder::default();
    let mut cur = Cursor::new(bytes, start, end);
    plan.decode(ty, &mut cur, &mut fast).unwrap();
    let mut skipped = Cursor::new(bytes, start, end);
    plan.skip(&mut skipped).unwrap();
    assert_eq!(cur.pos, skipped.pos);
    let mut slow = ValueBuilder::default();
    let mut walked = Cursor::new(bytes, start, end);
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
    let fast = decoded_as_walked(&t, &d, 0, d.len() as u64 * 8);
    assert_eq!(fast.get("f3").and_then(|v| v.as_i64()), Some(-2));
}

fn array(elem: FieldType, len: u64) -> FieldType {
    FieldType::new(Kind::Array {
        elem: Box::new(elem),
        len,
    })
}

/// `bytes` moved `n` (< 8) bits later, as CTF numbers little-endian bits.
fn shifted(bytes: &[u8], n: u32) -> Vec<u8> {
    let mut out = vec![0u8; bytes.len() + 1];
    for (i, b) in bytes.iter().enumerate() {
        out[i] |= b << n;
        out[i + 1] |= ((*b as u16) << n >> 8) as u8;
    }
    out
}

/// perf's `raw_syscalls:sys_enter` (scalars of alignment 1, then
/// `u64 args[6]`), and a byte after the array for its end: every
/// element, in order, and the byte after it read as the walk reads
/// them, on a byte (as words, or one by one at the end of the packet)
/// and 3 bits into one (bit by bit).
#[test]
fn a_fixed_array_of_u64_equals_the_walk() {
    let u = |bits| int(bits, 1, false);
    let i = |bits| int(bits, 1, true);
    let t = strukt(vec![
        u(64),
        i(32),
        i(32),
        u(64),
        u(64),
        u(32),
        u(32),
        u(32),
        i(32),
        i(64),
        array(u(64), 6),
        u(8),
    ]);
    let args = [1, u64::MAX, 0x0123_4567_89ab_cdef, 0, 42, 1 << 63];
    let mut d = Vec::new();
    d.extend(0xffff_ffff_8100_0000u64.to_le_bytes());
    d.extend((-7i32).to_le_bytes());
    d.extend(1234i32.to_le_bytes());
    d.extend(5u64.to_le_bytes());
    d.extend(1u64.to_le_bytes());
    for v in [22u32, 1, 0] {
        d.extend(v.to_le_bytes());
    }
    d.extend(1234i32.to_le_bytes());
    d.extend((-1i64).to_le_bytes());
    for a in args {
        d.extend(a.to_le_bytes());
    }
    d.push(0x5a);
    let plan = FlatPayload::new(&t).unwrap();
    assert_eq!(plan.ops.len(), 1, "one run");
    let bits = d.len() as u64 * 8;
    for (bytes, start) in [(d.clone(), 0), (shifted(&d, 3), 3)] {
        for spare in [0, 8] {
            let mut b = bytes.clone();
            b.resize(bytes.len() + spare, 0xa5);
            let v = decoded_as_walked(&t, &b, start, start + bits);
            let want: Vec<_> = args
                .iter()
                .map(|a| crate::value::Value::Unsigned(*a))
                .collect();
            assert_eq!(v.get("f10"), Some(&crate::value::Value::List(want)));
            assert_eq!(v.get("f11").and_then(|v| v.as_i64()), Some(0x5a));
            assert_eq!(v.get("f9").and_then(|v| v.as_i64()), Some(-1));
        }
    }
}

/// Structures and arrays nested in each other, of several alignments,
/// empty ones included: the walk's values, nesting and end.
#[test]
fn nested_structures_and_arrays_equal_the_walk() {
    let pair = strukt(vec![int(8, 8, false), int(16, 16, true)]);
    let t = strukt(vec![
        int(8, 8, false),
        strukt(vec![int(16, 16, false), int(3, 1, true), int(32, 32, true)]),
        array(pair, 3),
        array(array(int(4, 1, false), 3), 2),
        array(int(32, 32, false), 0),
        strukt(Vec::new()),
        int(8, 8, false),
    ]);
    let d: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37)).collect();
    let v = decoded_as_walked(&t, &d, 0, 40 * 8);
    let inner = v.get("f3").unwrap();
    assert!(matches!(inner, crate::value::Value::List(l) if l.len() == 2));
}

/// An array of more values than a plan holds is skipped by the plan
/// and decoded by the walk.
#[test]
fn large_arrays_are_walked() {
    let t = strukt(vec![int(8, 8, false), array(int(8, 8, false), 1000)]);
    let plan = FlatPayload::new(&t).unwrap();
    assert!(!plan.decodable());
    let d = vec![0u8; 1001];
    let mut cur = Cursor::new(&d, 0, d.len() as u64 * 8);
    plan.skip(&mut cur).unwrap();
    assert_eq!(cur.pos, d.len() as u64 * 8);
}
