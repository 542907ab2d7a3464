//! CTF metadata: the TSDL text (plain or packetized) turned into declarations.

pub mod ast;
mod lexer;
mod origin;
mod parser;

pub use origin::{origin, Origin};

use std::fmt;

/// A problem in the metadata text, located by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataError {
    pub line: u32,
    pub message: String,
}

impl MetadataError {
    pub fn at(line: u32, message: impl Into<String>) -> Self {
        MetadataError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses metadata text into declarations.
pub fn parse_text(text: &str) -> Result<ast::MetadataDecl, MetadataError> {
    parser::parse(lexer::tokenize(text)?)
}

const PACKET_MAGIC: u32 = 0x75D1_1D57;
const PACKET_HEADER_BYTES: usize = 37;

/// Where packetized metadata is malformed: byte offset in the metadata file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketizedError {
    pub offset: u64,
    pub message: String,
}

/// Returns the metadata text: the file itself when it is plain TSDL, or the
/// concatenated payloads of its packets when it is packetized (LTTng writes it so).
pub fn metadata_text(bytes: &[u8]) -> Result<String, PacketizedError> {
    let magic_le = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let order_le = match magic_le {
        Some(PACKET_MAGIC) => true,
        Some(m) if m.swap_bytes() == PACKET_MAGIC => false,
        _ => return Ok(String::from_utf8_lossy(bytes).into_owned()),
    };
    let u32_at = |b: &[u8], at: usize| {
        let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if order_le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let mut text = Vec::new();
    let mut packet_version = None;
    let mut off = 0usize;
    while off < bytes.len() {
        let err = |message: String| PacketizedError {
            offset: off as u64,
            message,
        };
        let header = bytes
            .get(off..off + PACKET_HEADER_BYTES)
            .ok_or_else(|| err("truncated metadata packet header".into()))?;
        if u32_at(header, 0) != PACKET_MAGIC {
            return Err(err("bad metadata packet magic".into()));
        }
        let content_bits = u32_at(header, 24) as usize;
        let packet_bits = u32_at(header, 28) as usize;
        let (compression, encryption, checksum) = (header[32], header[33], header[34]);
        // CTF 1.8 packets say 1.8; CTF 2's (CTF2-PMETA) say 2.0 and hold JSON.
        let version = (header[35], header[36]);
        if version != (1, 8) && version != (2, 0) {
            let (major, minor) = version;
            return Err(err(format!(
                "metadata packet of version {major}.{minor}: this reader reads CTF 1.8 and CTF 2, whose packet headers say 1.8 (spec §7.1) or 2.0"
            )));
        }
        if *packet_version.get_or_insert(version) != version {
            return Err(err("metadata packets of different versions".into()));
        }
        if compression != 0 || encryption != 0 || checksum != 0 {
            return Err(err(
                "compressed, encrypted or checksummed metadata packets are not supported".into(),
            ));
        }
        if !content_bits.is_multiple_of(8)
            || !packet_bits.is_multiple_of(8)
            || content_bits / 8 < PACKET_HEADER_BYTES
            || packet_bits < content_bits
        {
            return Err(err(format!(
                "metadata packet sizes are inconsistent (content {content_bits} bits, packet {packet_bits} bits)"
            )));
        }
        let content = bytes
            .get(off + PACKET_HEADER_BYTES..off + content_bits / 8)
            .ok_or_else(|| {
                err(format!(
                    "metadata packet content runs past the end of the file ({} bytes)",
                    bytes.len()
                ))
            })?;
        text.extend_from_slice(content);
        off += packet_bits / 8;
    }
    let json = crate::ctf::json_metadata::is_json_sequence(&text);
    if json != (packet_version == Some((2, 0))) {
        return Err(PacketizedError {
            offset: 0,
            message: if json {
                "metadata packets say CTF 1.8 but hold CTF 2 (JSON) metadata".into()
            } else {
                "metadata packets say CTF 2 (version 2.0) but do not hold JSON metadata".into()
            },
        });
    }
    Ok(String::from_utf8_lossy(&text).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(payload: &[u8], pad: usize) -> Vec<u8> {
        let content = (PACKET_HEADER_BYTES + payload.len()) as u32 * 8;
        let mut p = Vec::new();
        p.extend_from_slice(&PACKET_MAGIC.to_le_bytes());
        p.extend_from_slice(&[0; 20]); // uuid + checksum
        p.extend_from_slice(&content.to_le_bytes());
        p.extend_from_slice(&(content + pad as u32 * 8).to_le_bytes());
        p.extend_from_slice(&[0, 0, 0, 1, 8]);
        p.extend_from_slice(payload);
        p.extend(std::iter::repeat_n(0, pad));
        p
    }

    #[test]
    fn packetized_is_unwrapped() {
        let mut bytes = packet(b"trace { major = 1; ", 5);
        bytes.extend(packet(b"minor = 8; };", 0));
        assert_eq!(
            metadata_text(&bytes).unwrap(),
            "trace { major = 1; minor = 8; };"
        );
    }

    #[test]
    fn packet_of_another_version_is_refused() {
        let mut bytes = packet(b"trace { major = 1; ", 0);
        let first = bytes.len();
        let mut second = packet(b"minor = 8; };", 0);
        second[35] = 3;
        second[36] = 1;
        bytes.extend(second);
        let e = metadata_text(&bytes).unwrap_err();
        assert_eq!(e.offset, first as u64);
        assert!(e.message.contains("version 3.1"), "{}", e.message);
    }

    #[test]
    fn truncated_packet_names_offset() {
        let mut bytes = packet(b"abc", 0);
        let first = bytes.len();
        bytes.extend(&packet(b"defgh", 0)[..40]);
        let e = metadata_text(&bytes).unwrap_err();
        assert_eq!(e.offset, first as u64);
    }
}
