//! The MIPI STPv2 decoder, as CoreSight STM emits it: a stream of 4-bit
//! nibbles (bits 3:0 of a byte first), packets made of an opcode of one to
//! three nibbles and a payload whose fields are written most significant
//! nibble first, optionally followed by a timestamp (a length nibble, then
//! that many nibbles replacing the low bits of the previous timestamp, in
//! natural binary or Gray code as the VERSION packet says). ASYNC (21 or
//! more F nibbles, then a 0) is where decoding can (re)start.
//!
//! Errors never stop the decoding: the decoder warns (with the byte offset)
//! and looks for the next ASYNC.

/// Data sizes of the D packets, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataSize {
    D4 = 4,
    D8 = 8,
    D16 = 16,
    D32 = 32,
    D64 = 64,
}

impl DataSize {
    fn nibbles(self) -> usize {
        self as usize / 4
    }
    pub fn bits(self) -> u8 {
        self as u8
    }
}

/// A decoded packet, before its effect on the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packet {
    Null,
    Async,
    /// Protocol version: 3 = natural binary timestamps, 4 = Gray-coded.
    Version(u8),
    M8(u8),
    /// Master error: data of the current master was lost.
    Merr(u8),
    /// Global error: data of unknown masters was lost.
    Gerr(u8),
    C8(u8),
    C16(u16),
    Data {
        size: DataSize,
        value: u64,
        marked: bool,
    },
    Flag,
    Trig(u8),
    /// Timestamp frequency, Hz.
    Freq(u32),
}

/// A timestamp field: `nibbles` low nibbles of the new value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TsUpdate {
    pub nibbles: u8,
    pub value: u64,
}

/// What the decoder makes of a packet in its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    pub packet: Packet,
    pub master: u16,
    pub channel: u16,
    /// The STM clock at this packet: its own timestamp, or the last one seen.
    pub ts: u64,
    pub timestamped: bool,
    /// Byte offset of the packet's first nibble in the decoded stream.
    pub offset: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TsCode {
    Natural,
    Gray,
}

/// Why a packet did not decode.
enum Bad {
    /// The stream ended inside the packet.
    End,
    Invalid(String),
}

/// Streaming STPv2 decoder over one source's bytes.
pub struct Decoder<'d> {
    data: &'d [u8],
    /// Position in nibbles.
    pos: usize,
    synced: bool,
    ts_code: Option<TsCode>,
    master: u16,
    channel: u16,
    ts: u64,
    /// Byte offset of `data[0]` in what the caller reports.
    base: u64,
    warnings: Vec<String>,
    /// Bytes skipped looking for an ASYNC after an error.
    pub skipped_nibbles: u64,
}

impl<'d> Decoder<'d> {
    pub fn new(data: &'d [u8]) -> Decoder<'d> {
        Decoder {
            data,
            pos: 0,
            synced: false,
            ts_code: None,
            master: 0,
            channel: 0,
            ts: 0,
            base: 0,
            warnings: Vec::new(),
            skipped_nibbles: 0,
        }
    }

    /// Continues with more bytes of the same source after a gap (a buffer
    /// wrap): the state is kept, but decoding waits for the next ASYNC.
    pub fn resume(&mut self, data: &'d [u8], base: u64) {
        self.data = data;
        self.pos = 0;
        self.base = base;
        self.synced = false;
    }

    /// Warnings so far, one sentence each, with byte offsets.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn nibble(&self, i: usize) -> Option<u8> {
        let b = *self.data.get(i / 2)?;
        Some(if i.is_multiple_of(2) { b & 0xf } else { b >> 4 })
    }

    fn offset(&self, nibble: usize) -> u64 {
        self.base + (nibble / 2) as u64
    }

    /// Scans for the end of an ASYNC from the current position; true when
    /// found (the position is then just after it).
    fn find_async(&mut self) -> bool {
        let mut fs = 0usize;
        let start = self.pos;
        while let Some(n) = self.nibble(self.pos) {
            self.pos += 1;
            match n {
                0xf => fs += 1,
                0 if fs >= 21 => {
                    self.synced = true;
                    // The ASYNC itself does not count as skipped.
                    self.skipped_nibbles += (self.pos - start).saturating_sub(fs + 1) as u64;
                    return true;
                }
                _ => fs = 0,
            }
        }
        self.skipped_nibbles += (self.pos - start) as u64;
        false
    }

    /// The next message; `None` at the end of the data.
    pub fn next_message(&mut self) -> Option<Message> {
        loop {
            if !self.synced {
                let at = self.pos;
                if !self.find_async() {
                    return None;
                }
                // Reported so that consumers know decoding (re)started here.
                return Some(self.message(Packet::Async, None, at));
            }
            let start = self.pos;
            match self.packet() {
                Ok((p, ts)) => {
                    if let Err(m) = self.apply(p, ts) {
                        self.warn_resync(start, &m);
                        continue;
                    }
                    return Some(self.message(p, ts, start));
                }
                Err(Bad::End) => {
                    if self.nibble(start).is_some() && !self.tail_is_padding(start) {
                        self.warnings.push(format!(
                            "byte {}: the stream ends inside a packet",
                            self.offset(start)
                        ));
                    }
                    self.pos = self.data.len() * 2;
                    return None;
                }
                Err(Bad::Invalid(m)) => self.warn_resync(start, &m),
            }
        }
    }

    /// A trailing run of F nibbles (the start of an ASYNC, or fill) is not a
    /// cut packet.
    fn tail_is_padding(&self, from: usize) -> bool {
        (from..self.data.len() * 2).all(|i| self.nibble(i) == Some(0xf))
    }

    fn warn_resync(&mut self, at: usize, why: &str) {
        self.warnings.push(format!(
            "byte {}: {why}; resynchronising at the next ASYNC",
            self.offset(at)
        ));
        self.synced = false;
        self.pos = at + 1;
    }

    fn message(&self, packet: Packet, ts: Option<TsUpdate>, at: usize) -> Message {
        Message {
            packet,
            master: self.master,
            channel: self.channel,
            ts: self.ts,
            timestamped: ts.is_some(),
            offset: self.offset(at),
        }
    }

    /// The effect of a packet on master, channel and time.
    fn apply(&mut self, p: Packet, ts: Option<TsUpdate>) -> Result<(), String> {
        match p {
            Packet::Version(3) => self.ts_code = Some(TsCode::Natural),
            Packet::Version(4) => self.ts_code = Some(TsCode::Gray),
            Packet::Version(v) => return Err(format!("VERSION {v} is not STPv2 (3 or 4)")),
            Packet::M8(m) => {
                self.master = u16::from(m);
                self.channel = 0;
            }
            Packet::C8(c) => self.channel = (self.channel & 0xff00) | u16::from(c),
            Packet::C16(c) => self.channel = c,
            Packet::Merr(_) => self.channel = 0,
            Packet::Gerr(_) => self.master = 0,
            _ => {}
        }
        if let Packet::Version(_) = p {
            self.master = 0;
            self.channel = 0;
        }
        if let Some(u) = ts {
            let code = self
                .ts_code
                .ok_or("a timestamp before any VERSION packet (its encoding is unknown)")?;
            self.ts = splice(self.ts, u, code);
        }
        Ok(())
    }

    fn take(&mut self) -> Result<u8, Bad> {
        let n = self.nibble(self.pos).ok_or(Bad::End)?;
        self.pos += 1;
        Ok(n)
    }

    /// `count` nibbles, most significant first.
    fn field(&mut self, count: usize) -> Result<u64, Bad> {
        let mut v = 0u64;
        for _ in 0..count {
            v = (v << 4) | u64::from(self.take()?);
        }
        Ok(v)
    }

    fn timestamp(&mut self) -> Result<TsUpdate, Bad> {
        let nibbles = match self.take()? {
            n @ 0..=12 => n,
            0xd => 14,
            0xe => 16,
            _ => return Err(Bad::Invalid("timestamp length nibble 0xF".into())),
        };
        let value = self.field(usize::from(nibbles))?;
        Ok(TsUpdate { nibbles, value })
    }

    fn data(
        &mut self,
        size: DataSize,
        marked: bool,
        ts: bool,
    ) -> Result<(Packet, Option<TsUpdate>), Bad> {
        let value = self.field(size.nibbles())?;
        let ts = if ts { Some(self.timestamp()?) } else { None };
        Ok((
            Packet::Data {
                size,
                value,
                marked,
            },
            ts,
        ))
    }

    fn packet(&mut self) -> Result<(Packet, Option<TsUpdate>), Bad> {
        use DataSize::*;
        let sizes = [D8, D16, D32, D64];
        let op = self.take()?;
        Ok(match op {
            0x0 => (Packet::Null, None),
            0x1 => (Packet::M8(self.field(2)? as u8), None),
            0x2 => (Packet::Merr(self.field(2)? as u8), None),
            0x3 => (Packet::C8(self.field(2)? as u8), None),
            0x4..=0x7 => return self.data(sizes[usize::from(op - 4)], false, false),
            0x8..=0xb => return self.data(sizes[usize::from(op - 8)], true, true),
            0xc => return self.data(D4, false, false),
            0xd => return self.data(D4, true, true),
            0xe => (Packet::Flag, Some(self.timestamp()?)),
            _ => {
                let op2 = self.take()?;
                match op2 {
                    0x0 => {
                        let op3 = self.take()?;
                        match op3 {
                            0x0 => (Packet::Version(self.take()?), None),
                            0x1 => (Packet::Null, Some(self.timestamp()?)),
                            0x6 => (Packet::Trig(self.field(2)? as u8), None),
                            0x7 => {
                                let v = self.field(2)? as u8;
                                (Packet::Trig(v), Some(self.timestamp()?))
                            }
                            0x8 => (Packet::Freq(self.field(8)? as u32), None),
                            _ => {
                                return Err(Bad::Invalid(format!(
                                    "reserved or unsupported opcode F0{op3:X}"
                                )))
                            }
                        }
                    }
                    0x2 => (Packet::Gerr(self.field(2)? as u8), None),
                    0x3 => (Packet::C16(self.field(4)? as u16), None),
                    0x4..=0x7 => return self.data(sizes[usize::from(op2 - 4)], false, true),
                    0x8..=0xb => return self.data(sizes[usize::from(op2 - 8)], true, false),
                    0xc => return self.data(D4, false, true),
                    0xd => return self.data(D4, true, false),
                    0xe => (Packet::Flag, None),
                    0xf => {
                        // ASYNC: F nibbles up to 21 or more in all, then a 0.
                        let mut fs = 2usize;
                        loop {
                            match self.take()? {
                                0xf => fs += 1,
                                0 if fs >= 21 => break,
                                _ => return Err(Bad::Invalid("a malformed ASYNC".into())),
                            }
                        }
                        (Packet::Async, None)
                    }
                    _ => {
                        return Err(Bad::Invalid(format!(
                            "reserved or unsupported opcode F{op2:X}"
                        )))
                    }
                }
            }
        })
    }
}

/// The timestamp after an update: the low `4 * nibbles` bits replaced, in
/// the code the stream uses.
fn splice(prev: u64, u: TsUpdate, code: TsCode) -> u64 {
    let bits = 4 * u32::from(u.nibbles);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match code {
        TsCode::Natural => (prev & !mask) | (u.value & mask),
        TsCode::Gray => from_gray((to_gray(prev) & !mask) | (u.value & mask)),
    }
}

pub fn to_gray(b: u64) -> u64 {
    b ^ (b >> 1)
}

pub fn from_gray(mut g: u64) -> u64 {
    let mut shift = 1;
    while shift < 64 {
        g ^= g >> shift;
        shift <<= 1;
    }
    g
}
