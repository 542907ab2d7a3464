//! `sextant dump`: every event of a trace.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use sextant_engine::event::{Event, EventSource};
use sextant_engine::reader::{OpenOptions, WithSource};
use sextant_engine::value::{Scalar, Sink};

use super::clock::Clock;
use super::progress::Progress;
use super::DumpFormat;
use sextant_engine::jsonl::{write_str, JsonSink};

pub fn run(
    trace: &Path,
    format: DumpFormat,
    no_payload: bool,
    clock: Clock,
    options: OpenOptions,
) -> anyhow::Result<()> {
    super::open_trace(trace, options)?.with(Dump {
        trace,
        format,
        no_payload,
        clock,
    })
}

struct Dump<'a> {
    trace: &'a Path,
    format: DumpFormat,
    no_payload: bool,
    clock: Clock,
}

impl WithSource for Dump<'_> {
    type Output = anyhow::Result<()>;

    fn run<S: EventSource>(self, mut reader: S) -> anyhow::Result<()> {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        let mut line = Vec::with_capacity(512);
        let mut summary = Summary::default();
        let progress = Progress::bytes(reader.progress().1, "reading");
        // Text times are from the first event (events come in time order).
        let mut origin = None;
        let result = (|| -> anyhow::Result<()> {
            while reader.advance()? {
                let ev = reader.event().expect("advance returned true");
                summary.events += 1;
                if summary.events % 65536 == 0 {
                    progress.set(reader.progress().0);
                }
                line.clear();
                match self.format {
                    DumpFormat::Jsonl => jsonl_line(&ev, self.no_payload, &mut line)?,
                    DumpFormat::Text => {
                        let origin = match origin {
                            Some(o) => o,
                            None => {
                                self.clock.check(Some(ev.ts()), self.trace)?;
                                *origin.insert(ev.ts())
                            }
                        };
                        text_line(&ev, self.no_payload, self.clock, origin, &mut line)?
                    }
                    DumpFormat::None => {
                        summary.first.get_or_insert(ev.ts());
                        summary.last = ev.ts();
                        if !self.no_payload {
                            ev.visit_fields(&mut summary.values)?;
                        }
                        continue;
                    }
                }
                line.push(b'\n');
                out.write_all(&line).context("writing to standard output")?;
            }
            Ok(())
        })();
        progress.finish();
        out.flush().context("writing to standard output")?;
        drop(out);
        for w in reader.warnings() {
            eprintln!("sextant: warning: {w}");
        }
        result?;
        if self.format == DumpFormat::None {
            println!(
                "{} events, {} fields decoded (checksum {:#x}), from {} to {} ns",
                summary.events,
                summary.values.scalars,
                summary.values.checksum,
                summary.first.unwrap_or(0),
                summary.last
            );
        }
        Ok(())
    }
}

fn jsonl_line<'s>(ev: &impl Event<'s>, no_payload: bool, line: &mut Vec<u8>) -> anyhow::Result<()> {
    let _ = write!(line, "{{\"ts\":{},\"name\":", ev.ts());
    write_str(line, ev.name().as_bytes());
    match ev.cpu() {
        Some(c) => {
            let _ = write!(line, ",\"cpu\":{c},\"fields\":");
        }
        None => line.extend_from_slice(b",\"cpu\":null,\"fields\":"),
    }
    if no_payload {
        line.extend_from_slice(b"{}");
    } else {
        ev.visit_fields(&mut JsonSink::new(line))?;
    }
    line.push(b'}');
    Ok(())
}

fn text_line<'s>(
    ev: &impl Event<'s>,
    no_payload: bool,
    clock: Clock,
    origin: i64,
    line: &mut Vec<u8>,
) -> anyhow::Result<()> {
    // "+" marks times from the first event, as babeltrace2 marks deltas.
    let plus = if clock == Clock::Relative { "+" } else { "" };
    let _ = write!(
        line,
        "[{plus}{}] {}",
        clock.show(ev.ts(), origin),
        ev.name()
    );
    if let Some(c) = ev.cpu() {
        let _ = write!(line, " cpu={c}");
    }
    if let Some(t) = ev.thread() {
        let _ = write!(line, " tid={t}");
    }
    if !no_payload {
        line.extend_from_slice(b" ");
        ev.visit_fields(&mut JsonSink::new(line))?;
    }
    Ok(())
}

#[derive(Default)]
struct Summary {
    events: u64,
    first: Option<i64>,
    last: i64,
    values: Checksum,
}

/// Consumes every decoded value, so that `--format none` pays the full cost of
/// decoding and the optimiser cannot drop it.
#[derive(Default)]
struct Checksum {
    scalars: u64,
    checksum: u64,
}

impl<'d> Sink<'d> for Checksum {
    fn scalar(&mut self, _: Option<&str>, v: Scalar<'d>) {
        self.scalars += 1;
        let x = match v {
            Scalar::Unsigned(u) => u,
            Scalar::Signed(i) => i as u64,
            Scalar::Float(f) => f.to_bits(),
            Scalar::Str(s) => s.len() as u64,
        };
        self.checksum = self.checksum.rotate_left(5) ^ x;
    }
    fn open(&mut self, _: Option<&str>, _: bool) {}
    fn close(&mut self, _: bool) {}
}
