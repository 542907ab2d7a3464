//! Decompression of v7 sections and CPU data chunks. trace-cmd 3.1 as
//! Debian builds it compresses with zstd only (`trace-cmd list -c`); another
//! algorithm is named in the error.

/// Largest uncompressed size believed: a damaged size field must not make
/// the reader allocate gigabytes (trace-cmd's chunks are a few pages).
const MAX_UNCOMPRESSED: usize = 256 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Zstd,
}

impl Codec {
    /// The codec of the file's compression header (`none`: no codec).
    pub fn from_name(name: &str) -> Result<Option<Codec>, String> {
        match name {
            "none" | "" => Ok(None),
            "zstd" => Ok(Some(Codec::Zstd)),
            other => Err(format!(
                "compression `{other}`: sextant reads trace.dat files compressed with zstd or not compressed"
            )),
        }
    }

    /// `data` decompressed; it must give exactly `size` bytes.
    pub fn decompress(self, data: &[u8], size: usize) -> Result<Vec<u8>, String> {
        if size > MAX_UNCOMPRESSED {
            return Err(format!(
                "{size} bytes uncompressed announced, more than the {MAX_UNCOMPRESSED} believed"
            ));
        }
        let out = match self {
            Codec::Zstd => zstd::bulk::decompress(data, size).map_err(|e| format!("zstd: {e}"))?,
        };
        if out.len() != size {
            return Err(format!(
                "{} bytes uncompressed, {size} announced",
                out.len()
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        let z = zstd::bulk::compress(b"hello hello hello", 3).unwrap();
        assert_eq!(
            Codec::Zstd.decompress(&z, 17).unwrap(),
            b"hello hello hello"
        );
        assert!(Codec::Zstd.decompress(&z, 16).is_err());
        assert!(Codec::Zstd.decompress(&z, 18).is_err());
        assert!(Codec::Zstd.decompress(b"junk", 4).is_err());
        assert!(Codec::Zstd.decompress(&z, usize::MAX).is_err());
        assert!(Codec::from_name("zlib").is_err());
        assert_eq!(Codec::from_name("none"), Ok(None));
    }
}
