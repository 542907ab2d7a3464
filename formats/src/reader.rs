//! Opening a trace whatever its format: a CTF directory (or a directory of
//! CTF traces), an ftrace text file, a trace-cmd `trace.dat` or a BTF file
//! (told by its content, not its name).

use std::io::Read;
use std::path::Path;

use crate::btf::{looks_like_btf, BtfSource};
use crate::ctf::CtfReader;
use crate::event::{EventSource, ReadError};
use crate::ftrace::FtraceReader;
use crate::hosts::{self, HostPick};
use crate::tracedat::{looks_like_tracedat, TracedatReader};

/// A reader of any supported format.
pub enum AnyReader {
    Ctf(Box<CtfReader>),
    Ftrace(Box<FtraceReader>),
    Btf(Box<BtfSource>),
    Tracedat(Box<TracedatReader>),
}

/// How to read a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Skip malformed rows of a text trace (BTF), counted in the warnings,
    /// instead of stopping at the first; end a CTF stream at damage (a file
    /// cut short, a packet or event that does not decode) with a warning,
    /// keeping the events before it and the other streams.
    pub lenient: bool,
    /// Threads framing CTF packets (`None`: one per core, or one for a
    /// trace under `SMALL_TRACE` bytes; see `CtfReader::with_jobs`).
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Which host's traces to read when the path holds several machines'.
    pub host: HostPick,
}

/// Stream bytes under which the default is one thread: starting workers and
/// scanning packet headers cost more than they save on such a trace (many
/// threads, 8 MB: 0.95x with two).
const SMALL_TRACE: u64 = 32 << 20;

impl OpenOptions {
    /// Threads for a CTF trace of `bytes` of streams: as asked, else the default.
    fn jobs_for(&self, bytes: u64) -> usize {
        match self.jobs {
            Some(n) => n.get(),
            None if bytes < SMALL_TRACE => 1,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    fn ctf(&self, reader: CtfReader) -> CtfReader {
        let jobs = self.jobs_for(reader.progress().1);
        reader.lenient(self.lenient).with_jobs(jobs)
    }
}

/// Work to do with a reader, whatever its concrete type.
pub trait WithSource {
    type Output;
    fn run<S: EventSource>(self, source: S) -> Self::Output;
}

#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct UnknownFormat {
    path: std::path::PathBuf,
    message: String,
}

impl AnyReader {
    pub fn open(path: &Path) -> Result<AnyReader, ReadError> {
        AnyReader::open_with(path, OpenOptions::default())
    }

    pub fn open_with(path: &Path, options: OpenOptions) -> Result<AnyReader, ReadError> {
        if let Some(root) = hosts::ctf_root(path) {
            let reader = hosts::open_ctf(&root, options.host).map_err(ReadError::from_boxed)?;
            return Ok(AnyReader::Ctf(Box::new(options.ctf(reader))));
        }
        let mut head = [0u8; 4096];
        let n = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .map_err(|e| ReadError::new(crate::ctf::CtfError::io(path, e)))?;
        if n == 0 {
            return Err(ReadError::new(UnknownFormat {
                path: path.to_path_buf(),
                message: "empty file: not a trace".into(),
            }));
        }
        if looks_like_tracedat(&head[..n]) {
            return Ok(AnyReader::Tracedat(Box::new(
                TracedatReader::open(path).map_err(ReadError::new)?,
            )));
        }
        if looks_like_btf(&head[..n]) {
            let lenient = crate::btf::Options {
                lenient: options.lenient,
            };
            return Ok(AnyReader::Btf(Box::new(
                BtfSource::open(path, lenient).map_err(ReadError::new)?,
            )));
        }
        if looks_like_ftrace(&head[..n]) {
            return Ok(AnyReader::Ftrace(Box::new(
                FtraceReader::open(path).map_err(ReadError::new)?,
            )));
        }
        Err(ReadError::new(UnknownFormat {
            path: path.to_path_buf(),
            message: "not a trace sextant reads: expected a CTF trace directory, an ftrace text file (/sys/kernel/tracing/trace), a trace-cmd trace.dat or a BTF file (#version 2.1 or 2.2)".into(),
        }))
    }

    pub fn with<W: WithSource>(self, work: W) -> W::Output {
        match self {
            AnyReader::Ctf(r) => work.run(*r),
            AnyReader::Ftrace(r) => work.run(*r),
            AnyReader::Btf(r) => work.run(*r),
            AnyReader::Tracedat(r) => work.run(*r),
        }
    }
}

/// ftrace text starts with `# tracer:` or has, among its first lines, one
/// the ftrace reader parses as an event (`TASK-PID [CPU] ... TS: name:`):
/// a source file or a log with brackets and colons is not a trace.
fn looks_like_ftrace(head: &[u8]) -> bool {
    head.starts_with(b"# tracer:")
        || head.split(|&b| b == b'\n').take(20).any(|l| {
            let l = l.strip_suffix(b"\r").unwrap_or(l);
            matches!(
                crate::ftrace::line::parse(l),
                Ok(crate::ftrace::line::Line::Event(_))
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    /// (time, name, cpu) of every event from where the reader stands.
    struct Drain;
    impl WithSource for Drain {
        type Output = Vec<(i64, String, Option<u32>)>;
        fn run<S: EventSource>(self, mut s: S) -> Self::Output {
            let mut out = Vec::new();
            while s.advance().expect("fixture reads") {
                let e = s.event().expect("advanced");
                out.push((e.ts(), e.name().to_string(), e.cpu()));
            }
            out
        }
    }

    struct SeekThenDrain(i64);
    impl WithSource for SeekThenDrain {
        type Output = Vec<(i64, String, Option<u32>)>;
        fn run<S: EventSource>(self, mut s: S) -> Self::Output {
            s.seek(self.0).expect("seek");
            Drain.run(s)
        }
    }

    fn fixture(rel: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    /// After `seek(t)`, a reader yields exactly the events a full read yields
    /// from the first one at or after `t`.
    fn check_seeks(path: &Path) {
        let all = AnyReader::open(path).unwrap().with(Drain);
        assert!(all.len() > 1000, "{}: fixture too small", path.display());
        let first = all[0].0;
        let last = all[all.len() - 1].0;
        let mut points = vec![first - 1, first, last, last + 1];
        for k in [1, 7, 100, 333, 500, 901, 999] {
            let i = all.len() * k / 1000;
            points.push(all[i].0);
            points.push(all[i].0 + 1);
        }
        for t in points {
            let from = all.partition_point(|e| e.0 < t);
            let tail = AnyReader::open(path).unwrap().with(SeekThenDrain(t));
            assert_eq!(
                tail.len(),
                all.len() - from,
                "{}: seek to {t}: event count",
                path.display()
            );
            assert!(tail[..] == all[from..], "{}: seek to {t}", path.display());
        }
    }

    #[test]
    fn seek_ctf_equals_tail_of_full_read() {
        check_seeks(&fixture("scenario-a/ctf"));
        check_seeks(&fixture("scenario-b/ctf"));
    }

    #[test]
    fn seek_ftrace_equals_tail_of_full_read() {
        check_seeks(&fixture("scenario-a/trace.txt"));
    }

    #[test]
    fn seek_tracedat_equals_tail_of_full_read() {
        for f in ["trace-v6.dat", "trace-v7.dat", "trace-v7-zstd.dat"] {
            check_seeks(&fixture(&format!("tracedat-a/{f}")));
        }
    }

    #[test]
    fn only_text_the_ftrace_reader_parses_is_taken_for_ftrace() {
        for f in ["scenario-a/trace.txt", "taskset/trace.txt"] {
            let text = std::fs::read(fixture(f)).unwrap();
            assert!(looks_like_ftrace(&text[..4096.min(text.len())]), "{f}");
        }
        // The recording programs' sources and READMEs sit beside the traces.
        for f in [
            "tracedat-a/scenario.c",
            "taskset/taskset.c",
            "taskset/README.md",
            "scenario-b/record.sh",
            "scenario-b/ground-truth.tsv",
            "README.md",
        ] {
            let text = std::fs::read(fixture(f)).unwrap();
            assert!(!looks_like_ftrace(&text[..4096.min(text.len())]), "{f}");
        }
    }

    #[test]
    fn small_traces_default_to_one_thread_and_asked_jobs_are_kept() {
        let default = OpenOptions::default();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(default.jobs_for(SMALL_TRACE - 1), 1);
        assert_eq!(default.jobs_for(SMALL_TRACE), cores);
        let three = OpenOptions {
            jobs: std::num::NonZeroUsize::new(3),
            ..OpenOptions::default()
        };
        assert_eq!(three.jobs_for(1), 3);
        assert_eq!(three.jobs_for(SMALL_TRACE * 10), 3);
    }
}
