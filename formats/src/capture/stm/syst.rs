//! MIPI SyS-T messages carried over STP (Linux's `p_sys-t` protocol): on one
//! master/channel, a timestamped 32-bit header, then the GUID, an optional
//! 16-bit length, an optional 64-bit timestamp and the payload, written as
//! data packets and closed by a FLAG. Data bytes are the packets' values,
//! least significant byte first (the order the CPU stored them).

/// Header bits.
const OPT_LOC: u32 = 1 << 8;
const OPT_LEN: u32 = 1 << 9;
const OPT_CHK: u32 = 1 << 10;
const OPT_TS: u32 = 1 << 11;
const OPT_GUID: u32 = 1 << 23;

/// A decoded SyS-T message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystMessage {
    /// Message type (bits 3:0: 1 build, 2 string, 3 catalog, 8 clock, ...).
    pub kind: u8,
    pub subtype: u8,
    /// 0 (max) .. 7; Linux writes 4 (info).
    pub severity: u8,
    /// The GUID as text, or empty when the header has none.
    pub guid: String,
    /// The sender's own time stamp (ns, CLOCK_REALTIME for Linux), if any.
    pub timestamp: Option<u64>,
    pub payload: Vec<u8>,
}

/// Parses one message's bytes; `None` when they are not a SyS-T message
/// (another protocol on the channel, or a message cut short).
pub fn parse(b: &[u8]) -> Option<SystMessage> {
    let header = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?);
    let kind = (header & 0xf) as u8;
    // Types 0 and 9..15 are reserved, and location records are not
    // something Linux writes: such bytes are another protocol.
    if kind == 0 || kind > 8 || header & OPT_LOC != 0 {
        return None;
    }
    let mut at = 4;
    let guid = if header & OPT_GUID != 0 {
        let g: &[u8; 16] = b.get(at..at + 16)?.try_into().ok()?;
        at += 16;
        crate::ctf::metadata::ast::uuid_text(g)
    } else {
        String::new()
    };
    let len = if header & OPT_LEN != 0 {
        let l = u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        Some(usize::from(l))
    } else {
        None
    };
    let timestamp = if header & OPT_TS != 0 {
        let t = u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?);
        at += 8;
        Some(t)
    } else {
        None
    };
    let mut end = b.len();
    if header & OPT_CHK != 0 {
        end = end.checked_sub(4)?;
    }
    let payload = match len {
        Some(l) => b.get(at..at + l)?,
        None => b.get(at..end)?,
    };
    Some(SystMessage {
        kind,
        subtype: (header >> 24) as u8 & 0x3f,
        severity: ((header >> 4) & 7) as u8,
        guid,
        timestamp,
        payload: payload.to_vec(),
    })
}
