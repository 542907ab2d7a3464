use std::path::{Path, PathBuf};

use super::*;
use crate::value::ValueBuilder;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/tracedat-a")
        .join(name)
}

const FIXTURES: [&str; 3] = ["trace-v6.dat", "trace-v7.dat", "trace-v7-zstd.dat"];

/// A file of `bytes` in a fresh temporary directory (removed on drop).
struct Temp(PathBuf);

impl Temp {
    fn new(tag: &str, bytes: &[u8]) -> Temp {
        let dir =
            std::env::temp_dir().join(format!("sextant-tracedat-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("trace.dat");
        std::fs::write(&p, bytes).unwrap();
        Temp(p)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(d) = self.0.parent() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Reads every event (walking its fields); the first error ends the read.
fn drain(path: &Path) -> Result<usize, String> {
    let mut r = TracedatReader::open(path).map_err(|e| e.to_string())?;
    let mut n = 0;
    loop {
        match r.advance() {
            Ok(true) => {}
            Ok(false) => return Ok(n),
            Err(e) => return Err(e.to_string()),
        }
        let e = r.event().expect("advanced");
        let mut b = ValueBuilder::default();
        e.visit_fields(&mut b).map_err(|e| e.to_string())?;
        n += 1;
    }
}

#[test]
fn fixtures_read_with_their_options() {
    for (name, version) in FIXTURES.iter().zip([6, 7, 7]) {
        let path = fixture(name);
        let r = TracedatReader::open(&path).unwrap();
        assert_eq!(r.version(), version, "{name}");
        assert_eq!(r.info().clock.as_deref(), Some("mono"), "{name}");
        assert!(
            r.info().uname.as_deref().unwrap_or("").starts_with("Linux"),
            "{name}"
        );
        assert!(r
            .formats()
            .iter()
            .any(|f| f.name() == "sched_switch" && f.system() == "sched"));
        let n = drain(&path).unwrap();
        assert!(n > 1000, "{name}: {n} events");
        assert_eq!(EventSource::warnings(&r), Vec::<String>::new(), "{name}");
    }
    let r = TracedatReader::open(&fixture("trace-v7.dat")).unwrap();
    assert_eq!(r.info().cpu_count, Some(2));
}

#[test]
fn events_are_in_time_order_with_threads_and_progress() {
    let mut r = TracedatReader::open(&fixture("trace-v7-zstd.dat")).unwrap();
    let mut last = i64::MIN;
    let mut switches = 0;
    while r.advance().unwrap() {
        let e = r.event().unwrap();
        assert!(e.ts() >= last);
        last = e.ts();
        assert!(e.thread().is_some());
        if e.name() == "sched_switch" {
            switches += 1;
            let names: Vec<_> = e.format().field_names().collect();
            assert_eq!(
                names,
                [
                    "prev_comm",
                    "prev_pid",
                    "prev_prio",
                    "prev_state",
                    "next_comm",
                    "next_pid",
                    "next_prio"
                ]
            );
        }
    }
    assert!(switches > 100);
    let (done, total) = r.progress();
    assert_eq!(done, total);
}

#[test]
fn other_versions_and_magics_are_refused_with_the_offset() {
    let mut bytes = std::fs::read(fixture("trace-v6.dat")).unwrap();
    bytes[10] = b'8';
    let t = Temp::new("v8", &bytes);
    let e = TracedatReader::open(&t.0).err().unwrap().to_string();
    assert!(
        e.contains("trace.dat") && e.contains("byte 10:") && e.contains("version 8"),
        "{e}"
    );
    assert!(e.contains("versions 6 and 7"), "{e}");
}

#[test]
fn a_file_cut_anywhere_gives_an_error_with_the_offset_or_fewer_events() {
    for name in FIXTURES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let full = drain(&fixture(name)).unwrap();
        let t = Temp::new(&format!("cut-{name}"), &[]);
        let mut cut = 0;
        while cut < bytes.len() {
            std::fs::write(&t.0, &bytes[..cut]).unwrap();
            match drain(&t.0) {
                Ok(n) => assert!(n < full, "{name} cut at {cut}: {n} of {full} events"),
                Err(e) => assert!(
                    e.contains(&t.0.display().to_string()) && e.contains("byte "),
                    "{name} cut at {cut}: {e}"
                ),
            }
            cut += if cut < 8192 { 97 } else { 4093 };
        }
    }
}

#[test]
fn damaged_bytes_never_panic() {
    for name in FIXTURES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let t = Temp::new(&format!("flip-{name}"), &[]);
        // A cheap deterministic spread of positions and values.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = bytes.clone();
            for k in 0..4 {
                let at = ((x >> (k * 16)) as usize) % b.len();
                b[at] ^= (x >> (k * 8 + 3)) as u8 | 1;
            }
            std::fs::write(&t.0, &b).unwrap();
            let _ = drain(&t.0);
        }
    }
}

#[test]
fn a_damaged_page_names_the_file_and_its_offset() {
    let path = fixture("trace-v6.dat");
    let mut bytes = std::fs::read(&path).unwrap();
    let layout = header::parse(&bytes).unwrap();
    let cpu0 = layout.cpus[0];
    // The commit word of CPU 0's first page: more events than a page holds.
    let at = cpu0.offset as usize + 8;
    bytes[at..at + 8].copy_from_slice(&0x7ff_ffffu64.to_le_bytes());
    let t = Temp::new("page", &bytes);
    let e = drain(&t.0).unwrap_err();
    assert!(
        e.contains(&format!("byte {}:", cpu0.offset)) && e.contains("CPU 0 page 0"),
        "{e}"
    );
    // The other CPU is still read after the error.
    let mut r = TracedatReader::open(&t.0).unwrap();
    assert!(r.advance().is_err());
    let mut n = 0;
    while r.advance().unwrap() {
        assert_eq!(r.event().unwrap().cpu(), Some(1));
        n += 1;
    }
    assert!(n > 10);
}
