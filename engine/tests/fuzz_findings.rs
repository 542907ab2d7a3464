//! What the fuzz targets (engine/fuzz) found, each kept as a seed of its
//! target (`engine/fuzz/seeds/<target>/finding-*`) and read here the way the
//! target read it: each must end in `Ok` or `Err`, quickly, in little
//! memory. (The BTF row parser's overflow on long numbers is tested beside
//! it, `btf::row::tests`.)

use std::io::Cursor;
use std::path::{Path, PathBuf};

use sextant_engine::btf::{BtfSource, Options};
use sextant_engine::event::{cpu_slot, MAX_CPUS};
use sextant_engine::ftrace::FtraceReader;
use sextant_engine::run::{Pass, Work};

fn seed(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(rel)
}

#[test]
fn cpu_numbers_beyond_the_tables_share_one_slot() {
    assert_eq!(cpu_slot(0), 0);
    assert_eq!(cpu_slot(MAX_CPUS - 1), (MAX_CPUS - 1) as usize);
    assert_eq!(cpu_slot(MAX_CPUS), MAX_CPUS as usize);
    assert_eq!(cpu_slot(u32::MAX), MAX_CPUS as usize);
}

/// `ftrace` (2026-11-26): a line on CPU 4294967295 made the kernel model
/// size its per-CPU table by the number, 64 GiB.
#[test]
fn ftrace_on_cpu_4294967295_reads_in_little_memory() {
    let text = std::fs::read(seed("ftrace/finding-cpu-4294967295.txt")).unwrap();
    let total = text.len() as u64;
    let mut reader = FtraceReader::from_reader("finding.txt", Cursor::new(text), total);
    let ran = Pass::new(&mut [])
        .read_source(&mut reader, &Work::none())
        .expect("read to the end");
    assert!(ran.summary.events >= 1, "{:?}", ran.summary);
}

/// `btf` (2026-11-26): a row on `Core_4294967295` did the same to the BTF
/// model's per-core table and then to the kernel model's.
#[test]
fn btf_on_core_4294967295_reads_in_little_memory() {
    for lenient in [false, true] {
        let path = seed("btf/finding-core-4294967295.btf");
        let mut source = BtfSource::open(&path, Options { lenient }).unwrap();
        let ran = Pass::new(&mut [])
            .read_source(&mut source, &Work::none())
            .expect("read to the end");
        assert!(ran.summary.events >= 5, "{:?}", ran.summary);
    }
}
