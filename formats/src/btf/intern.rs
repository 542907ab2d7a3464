//! Names seen in a trace, numbered once. Each row names two or three
//! entities, and looking each up in a map keyed by its bytes hashed and
//! compared every name of every row (hashing and `memcmp` were about an
//! eighth of the time). Here a name is first looked up in a direct-mapped
//! cache keyed by its [`Key`]: its length and first and last eight bytes,
//! which for a name of at most 16 bytes (most names) are the name itself,
//! so a hit costs a few word comparisons and no call.

use rustc_hash::FxHashMap as HashMap;

/// A name's length and first and last words: equal keys of names of at
/// most [`EXACT`] bytes mean equal names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    first: u64,
    last: u64,
    len: u32,
}

/// Longest name whose key is the name.
const EXACT: usize = 16;

impl Key {
    #[inline]
    pub fn of(b: &[u8]) -> Key {
        let n = b.len();
        let word = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
        let half = |s: &[u8]| u64::from(u32::from_le_bytes(s.try_into().expect("4 bytes")));
        // Overlapping reads cover every byte without a loop or a copy.
        let (first, last) = if n >= 8 {
            (word(&b[..8]), word(&b[n - 8..]))
        } else if n >= 4 {
            (half(&b[..4]), half(&b[n - 4..]))
        } else {
            let x = b.iter().fold(0, |x, &c| x << 8 | u64::from(c));
            (x, x)
        };
        Key {
            first,
            last,
            len: n as u32,
        }
    }

    /// A key no name has (names are shorter than 4 GiB).
    const NONE: Key = Key {
        first: 0,
        last: 0,
        len: u32::MAX,
    };

    /// Whether a name with this key is `b`, given `Key::of(b) == *self`.
    #[inline]
    pub fn is_exact(&self) -> bool {
        self.len as usize <= EXACT
    }

    /// A hash of the key, its `bits` high bits used.
    #[inline]
    pub fn slot(&self, bits: u32) -> usize {
        let h = (self.first ^ self.last.rotate_left(32) ^ u64::from(self.len))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> (64 - bits)) as usize
    }
}

/// Bits of a cache slot number: 1024 slots of 24 bytes, for the few
/// hundred names a trace has.
const BITS: u32 = 10;

/// Names numbered from 0 in order of first sight.
#[derive(Debug)]
pub struct Names {
    ids: HashMap<Box<[u8]>, u32>,
    names: Vec<Box<[u8]>>,
    cache: Box<[(Key, u32)]>,
}

impl Default for Names {
    fn default() -> Self {
        Names {
            ids: HashMap::default(),
            names: Vec::new(),
            cache: vec![(Key::NONE, 0); 1 << BITS].into_boxed_slice(),
        }
    }
}

impl Names {
    /// The number of a name, given on first sight.
    #[inline]
    pub fn id(&mut self, name: &[u8]) -> u32 {
        let key = Key::of(name);
        let k = key.slot(BITS);
        let (cached, id) = self.cache[k];
        if cached == key && (key.is_exact() || *self.names[id as usize] == *name) {
            return id;
        }
        self.missed(name, key, k)
    }

    /// A name not in its cache slot: looked up (or numbered) and cached.
    #[cold]
    fn missed(&mut self, name: &[u8], key: Key, k: usize) -> u32 {
        let id = match self.ids.get(name) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(name.into());
                self.ids.insert(name.into(), id);
                id
            }
        };
        self.cache[k] = (key, id);
        id
    }

    /// How many names have numbers (the next number given).
    pub fn count(&self) -> usize {
        self.names.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of every length up to 40, differing in one byte anywhere (the
    /// cases a key of the ends alone would confuse), get one number each,
    /// the same every time, whatever else shares their cache slot.
    #[test]
    fn one_number_per_name() {
        let mut names = Names::default();
        let mut all: Vec<Vec<u8>> = Vec::new();
        for len in 0..40usize {
            let base: Vec<u8> = (0..len).map(|i| b'A' + (i % 26) as u8).collect();
            all.push(base.clone());
            for i in 0..len {
                let mut v = base.clone();
                v[i] = b'_';
                all.push(v);
            }
        }
        // Many plain names too, so that cache slots are shared.
        for n in 0..3000 {
            all.push(format!("TASK_{n:03}_1MS").into_bytes());
        }
        let ids: Vec<u32> = all.iter().map(|n| names.id(n)).collect();
        let mut seen = std::collections::HashMap::new();
        for (n, &id) in all.iter().zip(&ids) {
            assert_eq!(*seen.entry(n.clone()).or_insert(id), id, "{n:?}");
        }
        let distinct: std::collections::HashSet<u32> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), seen.len());
        assert_eq!(names.count(), seen.len());
        for _ in 0..2 {
            for (n, &id) in all.iter().zip(&ids).rev() {
                assert_eq!(names.id(n), id, "{n:?}");
            }
        }
    }

    #[test]
    fn keys_of_short_names_are_the_names() {
        let names: [&[u8]; 8] = [b"", b"a", b"ab", b"abc", b"abcd", b"abcde", b"T", b"R"];
        for a in names {
            for b in names {
                assert_eq!(Key::of(a) == Key::of(b), a == b, "{a:?} {b:?}");
            }
        }
        assert_ne!(Key::of(b"\0a"), Key::of(b"a"));
    }
}
