//! A fleet's table as a Hive-partitioned Parquet dataset:
//! `DIR/TABLE/host=HOST/trace=TRACE/part-0.parquet`, one file per trace
//! holding the engine's columns (the `host` and `trace` columns are the
//! folder names, as DuckDB, pyarrow and Spark read a Hive layout). Each
//! trace's file is written under a temporary name and renamed once
//! complete (`TableFile`), so a reader never sees half of one.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use sextant_engine::export::{Format, TableFile};

use crate::executions::asked;
use crate::partition::{produce, Kind};
use crate::{fleet, Fleet, Log, Query, Reading, SqlError};

/// Which table of the fleet.
pub enum Table<'a> {
    Events,
    ThreadStates,
    /// A model's executions: 'MODEL.json', its JSON, or 'preset:NAME'.
    Executions(&'a str),
}

/// Writes `table` of every trace `query.traces` names below `dir`; the
/// number of rows written. `query.sql` is not used.
pub fn write(dir: &Path, table: Table<'_>, query: Query, log: Arc<Log>) -> Result<u64, SqlError> {
    let kind = match table {
        Table::Events => Kind::Events(Default::default()),
        Table::ThreadStates => Kind::ThreadStates,
        Table::Executions(text) => {
            let asked = asked(text).map_err(|e| SqlError::Output(format!("{text}: {e}")))?;
            Kind::Executions(Arc::new(asked))
        }
    };
    let gate = Arc::new(tokio::sync::Semaphore::new(1));
    let reading = Reading::new(query.places, query.options, gate, log);
    let fleet = Fleet {
        traces: fleet::traces(&query.traces)?,
        reading: Arc::new(reading),
    };
    let never = AtomicBool::new(false);
    let mut rows = 0;
    for trace in &fleet.traces {
        let folder = dir
            .join(kind.table())
            .join(format!("host={}", segment(&trace.host)))
            .join(format!("trace={}", segment(&trace.name)));
        let failed = |e: &dyn std::fmt::Display| SqlError::Trace {
            trace: trace.path.display().to_string(),
            message: format!("{}: {e}", kind.table()),
        };
        std::fs::create_dir_all(&folder).map_err(|e| failed(&e))?;
        let path: PathBuf = folder.join("part-0.parquet");
        let mut file =
            TableFile::create(&path, Format::Parquet, kind.schema()).map_err(|e| failed(&e))?;
        let mut error = None;
        produce(&kind, trace, &fleet.reading, &never, &mut |batch| {
            rows += batch.num_rows() as u64;
            match file.write(&batch) {
                Ok(()) => true,
                Err(e) => {
                    error = Some(e);
                    false
                }
            }
        })
        .map_err(|e| failed(&e))?;
        if let Some(e) = error {
            return Err(failed(&e));
        }
        file.finish().map_err(|e| failed(&e))?;
    }
    Ok(rows)
}

/// A partition value as a folder name: `/` and what else cannot be in one
/// (or would be read as another folder) percent-encoded, as Hive does.
fn segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '/' | '\\' | '%' | '=' | ':' | '#' | '?' | '*' | '"' | '<' | '>' | '|' | '\n' => {
                out.push_str(&format!("%{:02X}", c as u32))
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn partition_values_are_one_folder_each() {
        assert_eq!(super::segment("a/b=c.txt"), "a%2Fb%3Dc.txt");
        assert_eq!(super::segment("100%"), "100%25");
        assert_eq!(super::segment("plain-name_1"), "plain-name_1");
    }
}
