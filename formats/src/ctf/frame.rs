//! Framing: finding where each event of a packet is, its class and its time,
//! without decoding its fields.
//!
//! A stream frames a run of events at once (`frame`) into a reused buffer and
//! then hands them out one by one: the loop over a packet keeps its layout in
//! registers, and `advance` is an index increment. The same function frames a
//! whole packet on a worker thread for `--jobs` (`parallel.rs`), so both give
//! the same events by construction.

use std::cell::Cell;

use super::ahead::Ahead;
use super::decode::{self, Cursor, DecodeError, State};
use super::layout::{Clock, StreamClass};

/// An event located in its packet.
#[derive(Debug, Clone, Copy)]
pub(super) struct Framed {
    pub class: u64,
    /// Clock value in cycles.
    pub cycles: u64,
    pub ns: i64,
    /// Bit positions in the packet: the event's start, its own context, its payload.
    pub start: u64,
    pub event_context: u64,
    pub payload: u64,
}

/// Where framing stopped: the next event's position and the clock after the
/// last framed event, and the error that stopped it before the content end.
pub(super) struct Stop {
    pub pos: u64,
    pub clock: u64,
    pub error: Option<DecodeError>,
}

/// Where framing starts: bit `pos` of a packet whose content ends at bit
/// `end`, with `clock` the clock before the first event.
pub(super) struct Start {
    pub pos: u64,
    pub end: u64,
    pub clock: u64,
}

/// Frames up to `most` events of `bytes` from `start` into `out`. Stops at the content end, after `most` events, or at the first
/// event that cannot be framed (its error in the `Stop`; the events before
/// it are in `out`).
pub(super) fn frame(
    sc: &StreamClass,
    clocks: &[Clock],
    slots: &[Cell<i64>],
    bytes: &[u8],
    start: Start,
    most: usize,
    out: &mut Vec<Framed>,
) -> Stop {
    let Start {
        mut pos,
        end,
        mut clock,
    } = start;
    let clock_of = sc.clock.map(|c| &clocks[c]);
    let limit = out.len() + most;
    let mut ahead = Ahead::new(pos);
    while pos < end && out.len() < limit {
        ahead.fetch(bytes, pos);
        match one(sc, slots, bytes, pos, end, clock) {
            Ok((mut f, next)) => {
                f.ns = match clock_of {
                    Some(c) => c.ns_from_origin(f.cycles),
                    None => f.cycles as i64,
                };
                clock = f.cycles;
                pos = next;
                out.push(f);
            }
            Err(e) => {
                return Stop {
                    pos,
                    clock,
                    error: Some(e),
                }
            }
        }
    }
    Stop {
        pos,
        clock,
        error: None,
    }
}

/// Frames the event at `start`: header read, contexts and payload skipped.
/// Returns it (time not yet converted to ns) and where the next one starts.
#[inline(always)]
fn one(
    sc: &StreamClass,
    slots: &[Cell<i64>],
    bytes: &[u8],
    start: u64,
    end: u64,
    clock: u64,
) -> Result<(Framed, u64), DecodeError> {
    let mut cur = Cursor::new(bytes, start, end);
    let mut st = State {
        slots,
        event_id: None,
        clock,
    };
    match (&sc.header_plan, &sc.event_header) {
        (Some(plan), _) => {
            let h = plan.read(&mut cur, st.clock)?;
            st.event_id = h.id;
            st.clock = h.clock;
        }
        (None, Some(h)) => decode::skip(h, &mut cur, &mut st)?,
        (None, None) => {}
    }
    if let Some(c) = &sc.event_context {
        decode::skip(c, &mut cur, &mut st)?;
    }
    let class_id = match st.event_id {
        Some(id) => id,
        None if sc.events.len() == 1 => 0,
        None => {
            return Err(DecodeError {
                bit: start,
                message: "event header without an id, and the stream has several event classes"
                    .into(),
            })
        }
    };
    let Some(class) = sc.event(class_id) else {
        return Err(unknown_class(start, class_id, sc.id));
    };
    let event_context = cur.pos;
    if let Some(c) = &class.context {
        decode::skip(c, &mut cur, &mut st)?;
    }
    let payload = cur.pos;
    match (&class.payload_flat, &class.payload) {
        (Some(plan), _) => plan.skip(&mut cur)?,
        (None, Some(p)) => decode::skip(p, &mut cur, &mut st)?,
        (None, None) => {}
    }
    if cur.pos == start {
        return Err(DecodeError {
            bit: start,
            message: "event of size zero: the layout cannot advance".into(),
        });
    }
    let framed = Framed {
        class: class_id,
        cycles: st.clock,
        ns: 0,
        start,
        event_context,
        payload,
    };
    Ok((framed, cur.pos))
}

#[cold]
fn unknown_class(bit: u64, id: u64, stream: u64) -> DecodeError {
    DecodeError {
        bit,
        message: format!("unknown event id {id} in stream {stream}"),
    }
}

/// Whether decoding an event's context or payload after framing must first
/// replay its header and contexts: when they store values (sequence
/// lengths, variant tags) that later scopes may read, since framing ahead
/// leaves the values of the last framed event in the slots.
pub(super) fn needs_replay(sc: &StreamClass) -> bool {
    let header =
        sc.header_plan.is_none() && sc.event_header.as_ref().is_some_and(|h| h.has_effects);
    let stream_context = sc.event_context.as_ref().is_some_and(|c| c.has_effects);
    let class_context = sc
        .events
        .iter()
        .flatten()
        .any(|e| e.context.as_ref().is_some_and(|c| c.has_effects));
    header || stream_context || class_context
}

/// Replays the framing of the event `f` up to its payload, so that the slots
/// hold what its header and contexts stored (see `needs_replay`).
#[inline(never)]
pub(super) fn replay(
    sc: &StreamClass,
    slots: &[Cell<i64>],
    bytes: &[u8],
    f: &Framed,
    end: u64,
) -> Result<(), DecodeError> {
    // Stores do not depend on the clock: the event's own will do.
    one(sc, slots, bytes, f.start, end, f.cycles).map(|_| ())
}
