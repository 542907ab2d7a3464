//! Reading numbers and strings from the file's bytes in the file's byte
//! order, every read bounds-checked: a short or damaged file gives a
//! [`Bad`] that names the byte offset, never a panic.

/// What is wrong, and where: a byte offset in the file, or (inside a
/// decompressed section) the offset of that section with `message` saying
/// where in its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bad {
    pub offset: u64,
    pub message: String,
}

/// Byte order of every number in the file (and in the ring buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Endian {
    pub big: bool,
}

impl Endian {
    pub fn u16(self, b: [u8; 2]) -> u16 {
        if self.big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    pub fn u32(self, b: [u8; 4]) -> u32 {
        if self.big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }

    pub fn u64(self, b: [u8; 8]) -> u64 {
        if self.big {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        }
    }

    /// An unsigned number of 1, 2, 4 or 8 bytes at `at` of `data`; `None`
    /// when it does not fit or the size is another.
    pub fn uint(self, data: &[u8], at: usize, size: usize) -> Option<u64> {
        let b = data.get(at..at.checked_add(size)?)?;
        Some(match size {
            1 => b[0] as u64,
            2 => self.u16(b.try_into().ok()?) as u64,
            4 => self.u32(b.try_into().ok()?) as u64,
            8 => self.u64(b.try_into().ok()?),
            _ => return None,
        })
    }
}

/// Where the bytes of a cursor are: at a file offset, or the content of a
/// compressed section (whose own bytes have no file offset).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Origin {
    File(u64),
    Section(u64),
}

/// A read position in a byte slice.
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    origin: Origin,
    pub endian: Endian,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], origin: Origin, endian: Endian) -> Cursor<'a> {
        Cursor {
            data,
            pos: 0,
            origin,
            endian,
        }
    }

    /// An error at the current position.
    pub fn bad(&self, message: impl Into<String>) -> Bad {
        self.bad_at(self.pos, message)
    }

    pub fn bad_at(&self, pos: usize, message: impl Into<String>) -> Bad {
        match self.origin {
            Origin::File(base) => Bad {
                offset: base + pos as u64,
                message: message.into(),
            },
            Origin::Section(at) => Bad {
                offset: at,
                message: format!(
                    "in the decompressed section, byte {pos}: {}",
                    message.into()
                ),
            },
        }
    }

    /// The origin of a cursor over this one's bytes from `pos` on.
    pub fn origin_at(&self, pos: usize) -> Origin {
        match self.origin {
            Origin::File(base) => Origin::File(base + pos as u64),
            // Errors inside name the section, with the position given as
            // the sub-cursor's own: good enough to find the damage.
            Origin::Section(at) => Origin::Section(at),
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], Bad> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            return Err(self.bad(format!(
                "{what}: {n} bytes announced, {left} left (file cut short?)"
            )));
        }
        let s = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Bad> {
        let b = self.bytes(N as u64, what)?;
        Ok(b.try_into().expect("length checked"))
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, Bad> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, Bad> {
        let b = self.array(what)?;
        Ok(self.endian.u16(b))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, Bad> {
        let b = self.array(what)?;
        Ok(self.endian.u32(b))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, Bad> {
        let b = self.array(what)?;
        Ok(self.endian.u64(b))
    }

    /// A NUL-terminated string (without its NUL).
    pub fn cstr(&mut self, what: &str) -> Result<&'a [u8], Bad> {
        let rest = &self.data[self.pos..];
        let Some(n) = memchr::memchr(0, rest) else {
            return Err(self.bad(format!("{what}: string without its NUL terminator")));
        };
        self.pos += n + 1;
        Ok(&rest[..n])
    }

    /// `expected` exactly (a tag such as `header_page\0`).
    pub fn tag(&mut self, expected: &[u8], what: &str) -> Result<(), Bad> {
        let at = self.pos;
        let got = self.bytes(expected.len() as u64, what)?;
        if got != expected {
            return Err(self.bad_at(
                at,
                format!(
                    "expected {what} `{}`, found `{}`",
                    String::from_utf8_lossy(expected).trim_end_matches('\0'),
                    String::from_utf8_lossy(got).escape_debug()
                ),
            ));
        }
        Ok(())
    }
}
