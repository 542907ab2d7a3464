//! A stored file checked and mapped, its Arrow batches read in place: the
//! arrays of a mapped table are the file's pages, which become resident only
//! where a query reads them.
//!
//! sextant never changes a stored file once written (units are replaced by
//! renaming new files into place), so a mapping stays valid while a unit is
//! replaced. A file cut short by another process under a running server
//! reads as zeros from there on instead of ending it (`crate::mapped`).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::convert::fb_to_schema;
use arrow_ipc::reader::{read_footer_length, FileDecoder};
use arrow_ipc::root_as_footer;

use super::identity::Fnv;
use crate::mapped::Mapped;

/// The size and FNV-1a checksum over 64-bit words (the tail byte by byte)
/// of `file`'s bytes, read in order (the page cache holds them, not this
/// process), hex.
pub fn checksum(mut file: &File) -> std::io::Result<(u64, String)> {
    let mut h = Fnv::default();
    let mut size = 0u64;
    // At most 1 MiB, a whole number of words, and one word more than a
    // small file: zeroing a MiB for each of a fleet's small units was a
    // tenth of a repeated query's time.
    let len = file.metadata()?.len();
    let words = usize::try_from(len / 8 + 1).unwrap_or(usize::MAX);
    let mut buf = vec![0u8; words.min(1 << 17) * 8];
    loop {
        // Each read but the last fills the buffer, a whole number of words.
        let mut n = 0;
        while n < buf.len() {
            match file.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        size += n as u64;
        h.add_words(&buf[..n]);
        if n < buf.len() {
            return Ok((size, format!("{:016x}", h.0)));
        }
    }
}

/// `file`'s bytes (opened from `path`), mapped.
pub fn map(file: &File, path: &Path) -> std::io::Result<Buffer> {
    if file.metadata()?.len() == 0 {
        return Ok(Buffer::from_vec(Vec::<u8>::new()));
    }
    let map = Mapped::map(file, path)?;
    Ok(Buffer::from(bytes::Bytes::from_owner(map)))
}

/// Every batch of the Arrow IPC file in `bytes`, its arrays slices of
/// `bytes` (copied only where a buffer is misaligned, which our writer does
/// not do).
pub fn batches(bytes: &Buffer) -> Result<Vec<RecordBatch>, String> {
    let len = bytes.len();
    if len < 10 + 8 {
        return Err(format!("{len} bytes: too short for an Arrow file"));
    }
    let trailer: [u8; 10] = bytes[len - 10..].try_into().expect("10 bytes");
    let footer_len = read_footer_length(trailer).map_err(|e| e.to_string())?;
    let footer_start = (len - 10)
        .checked_sub(footer_len)
        .ok_or_else(|| format!("a footer of {footer_len} bytes in a file of {len}"))?;
    let footer = root_as_footer(&bytes[footer_start..len - 10]).map_err(|e| e.to_string())?;
    let schema = footer
        .schema()
        .ok_or_else(|| "no schema in the footer".to_string())?;
    // arrow 59 (DataFusion's) has no fallible `try_fb_to_schema`: its
    // `fb_to_schema` panics only on types our writer never writes
    // (big-endian decimals), and the file's checksum was checked against
    // the manifest before it was mapped (`unit.rs`).
    let decoder = FileDecoder::new(std::sync::Arc::new(fb_to_schema(schema)), footer.version());
    let mut out = Vec::new();
    for block in footer.recordBatches().into_iter().flatten() {
        let start = usize::try_from(block.offset()).map_err(|e| e.to_string())?;
        let block_len = usize::try_from(block.bodyLength())
            .ok()
            .zip(usize::try_from(block.metaDataLength()).ok())
            .and_then(|(b, m)| b.checked_add(m))
            .filter(|&l| start.checked_add(l).is_some_and(|end| end <= footer_start))
            .ok_or_else(|| format!("a batch at byte {start} runs past the data"))?;
        let data = bytes.slice_with_length(start, block_len);
        if let Some(batch) = decoder
            .read_record_batch(block, &data)
            .map_err(|e| e.to_string())?
        {
            out.push(batch);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The checksum's definition, over the bytes at once.
    fn in_one_piece(bytes: &[u8]) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(0x0000_0100_0000_01b3);
        }
        for &b in words.remainder() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    #[test]
    fn checksum_reads_in_chunks_as_in_one_piece() {
        let dir = std::env::temp_dir().join(format!("sextant-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        // Longer than one read, not a whole number of words.
        let bytes: Vec<u8> = (0..(1u32 << 20) + 13)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let (size, sum) = checksum(&File::open(&path).unwrap()).unwrap();
        assert_eq!(size, bytes.len() as u64);
        assert_eq!(sum, in_one_piece(&bytes));
        // Small files, read with a buffer of their own size.
        for n in [0, 5, 8, 13, 4096] {
            std::fs::write(&path, &bytes[..n]).unwrap();
            let (size, small) = checksum(&File::open(&path).unwrap()).unwrap();
            assert_eq!((size, small), (n as u64, in_one_piece(&bytes[..n])));
        }
        std::fs::write(&path, &bytes).unwrap();
        let short = &bytes[..bytes.len() - 1];
        std::fs::write(&path, short).unwrap();
        let (size2, sum2) = checksum(&File::open(&path).unwrap()).unwrap();
        assert_eq!(size2, short.len() as u64);
        assert_ne!(sum, sum2);
        let mapped = map(&File::open(&path).unwrap(), &path).unwrap();
        assert_eq!(mapped.as_slice(), short);
        assert!(batches(&mapped).is_err(), "not an Arrow file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
