//! `executions('MODEL.json' | '{...}' | 'preset:NAME')`: a model's
//! executions in every trace, with `analyze`'s columns. Each trace's are
//! asked of the engine's front door (`Session::host_executions`: the
//! store's answer, else a pass with the census that explains an empty
//! answer, kept in the store), so a second query reads no trace. Not
//! `session::executions::in_traces`: it numbers the executions of all
//! traces again, where each trace's rows here keep the numbers `analyze`
//! gives them on that trace.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::plan_err;
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use sextant_engine::analysis::model::request::Request;
use sextant_engine::analysis::model::{parse_model, Preset, ThreadFilter};
use sextant_engine::hosts::HostPick;
use sextant_engine::run::Work;
use sextant_engine::session::executions::Source;
use sextant_engine::session::Session;

use crate::fleet::Trace;
use crate::partition::{Failure, Kind};
use crate::tables::TraceTable;
use crate::{Fleet, Reading};

/// A model as the query asked for it.
#[derive(Debug)]
pub(crate) struct Asked {
    pub(crate) name: String,
    pub(crate) request: Request,
    /// What `asked` reads it again from: 'preset:NAME' or the model's
    /// JSON (a file's content, so that a worker needs no copy of it).
    pub(crate) text: String,
}

/// The table function, over the fleet's traces.
#[derive(Debug)]
pub(crate) struct ExecutionsFn {
    pub(crate) fleet: Arc<Fleet>,
}

impl TableFunctionImpl for ExecutionsFn {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let text = match args.exprs() {
            [Expr::Literal(v, _)] => v.try_as_str().flatten(),
            _ => None,
        };
        let Some(text) = text else {
            return plan_err!(
                "executions() takes one text argument: 'MODEL.json', the model's JSON, or 'preset:NAME'"
            );
        };
        let asked = asked(text).map_err(|e| {
            datafusion::error::DataFusionError::Plan(format!("executions('{text}'): {e}"))
        })?;
        Ok(Arc::new(TraceTable::new(
            Kind::Executions(Arc::new(asked)),
            self.fleet.clone(),
        )))
    }
}

/// The model a table function's argument names, as `analyze --model` and
/// `--preset` read them (a preset on every thread).
pub(crate) fn asked(text: &str) -> Result<Asked, String> {
    if let Some(name) = text.strip_prefix("preset:") {
        let preset: Preset = name.parse().map_err(|e| format!("{e}"))?;
        return Ok(Asked {
            name: preset.name().to_string(),
            request: Request::preset(preset, ThreadFilter::default(), Vec::new()),
            text: text.to_string(),
        });
    }
    let json = if text.trim_start().starts_with('{') {
        text.to_string()
    } else {
        std::fs::read_to_string(text).map_err(|e| format!("reading the model: {e}"))?
    };
    let model = parse_model(&json).map_err(|e| e.to_string())?;
    Ok(Asked {
        name: model.name.clone(),
        request: Request::model(model),
        text: json,
    })
}

/// The executions of `asked` in `trace` as batches of `analyze`'s
/// columns (`host` and `trace` not yet before them), as the engine's front
/// door gives them: from the trace's store when it keeps them, else found
/// by a pass and kept there. What the trace lacks for the model is one
/// warning, and no rows.
pub(crate) fn of_trace(
    asked: &Asked,
    trace: &Trace,
    reading: &Reading,
    work: &Work<'_>,
) -> Result<Vec<RecordBatch>, Failure> {
    let session = Session::open(&trace.path, reading.options, reading.places.clone());
    let found = session.host_executions_table(&asked.request, HostPick::Sole, work)?;
    tell(
        reading,
        trace,
        found.source == Source::Store,
        &found.notes,
        &found.warnings,
    );
    Ok(found.batches)
}

/// Says what the front door said of a trace's executions: whether the
/// store answered, its notes, and the reader's and the census's warnings
/// as one line per trace (`explain()` says the same of the executions it
/// explains).
pub(crate) fn tell(
    reading: &Reading,
    trace: &Trace,
    from_store: bool,
    notes: &[String],
    warnings: &[String],
) {
    reading.log.counted(from_store);
    reading.log.warn_all(trace, notes);
    if !warnings.is_empty() {
        reading.log.warn(trace, &warnings.join("; "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_name_presets_models_and_files() {
        assert_eq!(asked("preset:running").unwrap().name, "running");
        assert!(asked("preset:nope").unwrap_err().contains("whole-thread"));
        let inline =
            r#"{"name": "m", "mode": "same_tid", "events": [{"name": "a"}, {"name": "b"}]}"#;
        assert_eq!(asked(inline).unwrap().name, "m");
        assert!(asked(r#"{"name": "m"}"#).is_err());
        assert!(asked("/no/such/model.json")
            .unwrap_err()
            .starts_with("reading the model"));
    }
}
