//! A stream that cannot be read to its end (a file cut short, a packet
//! header or an event that does not decode). Strictly that is an error that
//! stops the read; with `--lenient` (as Trace Compass reads such a trace)
//! the stream ends there: the events before the damage are kept, the rest
//! of the file is skipped, and a `Damage` says where and how much.

use std::fmt;
use std::path::PathBuf;

use super::super::error::CtfError;
use super::super::pages::Skim;
use super::StreamFile;

/// Where a stream stopped being readable and what `--lenient` skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub path: PathBuf,
    /// Byte of the file where reading failed.
    pub offset: u64,
    pub message: String,
    /// Where the damaged packet starts.
    pub packet: u64,
    /// Bytes skipped: from the damage to the end of the file (from the
    /// packet's start when its header is what does not read).
    pub bytes: u64,
    /// Packets skipped, the damaged one included: a lower bound when
    /// `exact` is false (a header did not read, so where the packets after
    /// it start is unknown).
    pub packets: u64,
    pub exact: bool,
}

impl fmt::Display for Damage {
    /// The warning line: the error as a strict read gives it, then what was skipped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at_least = if self.exact { "" } else { "at least " };
        let s = if self.packets == 1 { "" } else { "s" };
        write!(
            f,
            "{}: byte {}: {}; --lenient: kept the events before, skipped the rest of this stream ({} bytes, {at_least}{} packet{s})",
            self.path.display(),
            self.offset,
            self.message,
            self.bytes,
            self.packets,
        )
    }
}

/// A strict read's error, saying what `--lenient` would do instead.
fn suggest_lenient(e: CtfError) -> CtfError {
    match e {
        CtfError::Data {
            path,
            offset,
            message,
        } => CtfError::Data {
            path,
            offset,
            message: format!(
                "{message} (--lenient keeps the events before this and skips the rest of the stream)"
            ),
        },
        other => other,
    }
}

impl StreamFile {
    /// Reading the stream failed with `e`: strictly, the error (with the
    /// hint); with `--lenient`, the end of the stream (false), the damage
    /// noted (the first one: a seek may meet it again).
    pub(super) fn damaged(&mut self, e: CtfError) -> Result<bool, CtfError> {
        let CtfError::Data {
            offset, message, ..
        } = &e
        else {
            return Err(e);
        };
        if !self.lenient {
            return Err(suggest_lenient(e));
        }
        if self.damage.is_none() {
            // Out of a packet, its header is what failed: none of it is read.
            let packet = self.packet.offset;
            let from = if self.in_packet { *offset } else { packet };
            let (packets, exact) = self.packets_from(packet);
            self.damage = Some(Damage {
                path: self.path.clone(),
                offset: *offset,
                message: message.clone(),
                packet,
                bytes: self.file_len.saturating_sub(from),
                packets,
                exact,
            });
        }
        self.end();
        Ok(false)
    }

    /// Packets from byte `at` to the end of the file, by their headers; and
    /// false when a header does not read (counted, and the count stops).
    fn packets_from(&mut self, mut at: u64) -> (u64, bool) {
        let map = self.map.clone();
        let mut skim = Skim::default();
        let mut n = 0;
        let mut exact = true;
        while at < self.file_len {
            skim.passed(map.as_deref(), at as usize);
            self.data = at as usize..self.file_len as usize;
            n += 1;
            match self.read_packet_header(at) {
                // A packet past the end of the file is the last one.
                Ok((info, _)) => at += info.packet_bits / 8,
                Err(_) => {
                    exact = false;
                    break;
                }
            }
        }
        skim.passed_all(map.as_deref(), at.min(self.file_len) as usize);
        (n, exact)
    }

    /// Ends the stream where it is (damage with `--lenient`): nothing more
    /// is read until a seek, and packets a pool was to frame for it are
    /// given up.
    pub(super) fn end(&mut self) {
        self.release(self.data.clone());
        self.data = 0..0;
        self.reset_batch();
        self.in_packet = false;
        self.on_event = false;
        self.ended = true;
        self.next_packet = self.file_len;
        if let Some(feed) = self.feed.take() {
            feed.pool.abandon(feed.jobs);
        }
    }

    /// Where the stream became unreadable, when it did and was read leniently.
    pub fn damage(&self) -> Option<&Damage> {
        self.damage.as_ref()
    }
}
