//! From the model as written to the checked model: every semantic rule,
//! each error naming the field by its path.

use super::raw::*;
use super::*;

pub(super) fn check_model(raw: RawModel) -> Result<ExecutionModel, ModelError> {
    let name = check_name(raw.name, "name")?;
    let mode_name = raw.mode.unwrap_or(ModeName::SameTid);
    let mode = match mode_name {
        ModeName::SameTid => {
            let hint = if raw.mode.is_none() {
                " (mode defaults to same_tid)"
            } else {
                ""
            };
            for (key, given) in [
                ("start", raw.start.is_some()),
                ("end", raw.end.is_some()),
                ("start_threads", raw.start_threads.is_some()),
                ("end_threads", raw.end_threads.is_some()),
            ] {
                if given {
                    return Err(ModelError::new(
                        key,
                        format!("only used in mode different_tids; same_tid models list their \"events\"{hint}"),
                    ));
                }
            }
            if raw.chained.is_some() {
                return Err(ModelError::new(
                    "chained",
                    format!(
                        "only meaningful in mode different_tids (the end event starting the next execution); \
                         a same_tid execution always starts at its first event{hint}"
                    ),
                ));
            }
            let threads = check_threads(raw.threads.map(|t| t.0), "threads")?;
            let events = check_events(raw.events, "events")?;
            let nested = match raw.nested {
                Some(n) => Some(Box::new(check_nested(n.0, "nested")?)),
                None => None,
            };
            Mode::SameTid {
                threads,
                events,
                nested,
            }
        }
        ModeName::DifferentTids => {
            if raw.events.is_some() {
                return Err(ModelError::new(
                    "events",
                    "not used in mode different_tids: give one \"start\" and one \"end\" event",
                ));
            }
            if raw.nested.is_some() {
                return Err(ModelError::new(
                    "nested",
                    "only a same_tid model can have a nested model",
                ));
            }
            let start = raw
                .start
                .ok_or_else(|| ModelError::new("start", "required in mode different_tids"))?;
            let end = raw
                .end
                .ok_or_else(|| ModelError::new("end", "required in mode different_tids"))?;
            let start = check_event(start.0, "start")?;
            let end = check_event(end.0, "end")?;
            let threads = check_threads(raw.threads.map(|t| t.0), "threads")?;
            let start_threads = match raw.start_threads {
                Some(t) => check_threads(Some(t.0), "start_threads")?,
                None => threads.clone(),
            };
            let end_threads = match raw.end_threads {
                Some(t) => check_threads(Some(t.0), "end_threads")?,
                None => threads,
            };
            Mode::DifferentTids {
                start,
                end,
                start_threads,
                end_threads,
                chained: raw.chained.unwrap_or(false),
            }
        }
    };
    let time_range = match raw.time_range {
        None => None,
        Some(MapOnly(RawTimeRange { start, end })) => {
            let (start, end) = (start.map(|t| t.0), end.map(|t| t.0));
            if let (Some(s), Some(e)) = (start, end) {
                if s > e {
                    return Err(ModelError::new(
                        "time_range",
                        format!("start ({s}) is after end ({e})"),
                    ));
                }
            }
            Some(TimeRange { start, end })
        }
    };
    let max_executions = match raw.max_executions {
        None => None,
        Some(n) => Some(
            NonZeroU64::new(n)
                .ok_or_else(|| ModelError::new("max_executions", "must be a positive integer"))?,
        ),
    };
    Ok(ExecutionModel {
        name,
        description: raw.description,
        mode,
        time_range,
        max_executions,
        deadline: check_deadline(raw.deadline.map(|d| d.0), "deadline")?,
    })
}

fn check_nested(raw: RawModel, path: &str) -> Result<NestedModel, ModelError> {
    let name = check_name(raw.name, &join(path, "name"))?;
    if raw.mode == Some(ModeName::DifferentTids) {
        return Err(ModelError::new(
            join(path, "mode"),
            "a nested model is same_tid only",
        ));
    }
    for (key, given, why) in [
        ("nested", raw.nested.is_some(), "models nest one level only"),
        (
            "threads",
            raw.threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "start",
            raw.start.is_some(),
            "a nested model is same_tid: list its \"events\"",
        ),
        (
            "end",
            raw.end.is_some(),
            "a nested model is same_tid: list its \"events\"",
        ),
        (
            "start_threads",
            raw.start_threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "end_threads",
            raw.end_threads.is_some(),
            "a nested model runs on its parent's thread",
        ),
        (
            "chained",
            raw.chained.is_some(),
            "only meaningful in mode different_tids",
        ),
        (
            "time_range",
            raw.time_range.is_some(),
            "set it on the top-level model",
        ),
        (
            "max_executions",
            raw.max_executions.is_some(),
            "set it on the top-level model",
        ),
    ] {
        if given {
            return Err(ModelError::new(
                join(path, key),
                format!("not allowed in a nested model: {why}"),
            ));
        }
    }
    Ok(NestedModel {
        name,
        description: raw.description,
        events: check_events(raw.events, &join(path, "events"))?,
        deadline: check_deadline(raw.deadline.map(|d| d.0), &join(path, "deadline"))?,
    })
}

fn check_name(name: String, path: &str) -> Result<String, ModelError> {
    if name.trim().is_empty() {
        return Err(ModelError::new(path, "must not be empty"));
    }
    Ok(name)
}

fn check_deadline(d: Option<i64>, path: &str) -> Result<Option<i64>, ModelError> {
    match d {
        Some(d) if d <= 0 => Err(ModelError::new(
            path,
            format!("expected a positive duration such as 1000000 (ns), \"1ms\" or \"250us\", found {d}"),
        )),
        d => Ok(d),
    }
}

fn check_threads(raw: Option<RawThreads>, path: &str) -> Result<ThreadFilter, ModelError> {
    let Some(raw) = raw else {
        return Ok(ThreadFilter::default());
    };
    let tids = match raw.tids {
        None => None,
        Some(t) => {
            if t.is_empty() {
                return Err(ModelError::new(
                    join(path, "tids"),
                    "empty: no thread would match (leave \"tids\" out to accept every thread)",
                ));
            }
            if let Some(i) = t.iter().position(|&x| x < 0) {
                return Err(ModelError::new(
                    format!("{}[{i}]", join(path, "tids")),
                    "a thread id is not negative",
                ));
            }
            Some(t.into_iter().collect())
        }
    };
    let process = match raw.process {
        None => None,
        Some(p) => Some(Regex::new(&p).map_err(|e| {
            // regex's syntax errors draw the pattern over several lines; keep the last.
            let msg = e.to_string();
            let last = msg.lines().last().unwrap_or_default();
            let last = last.strip_prefix("error: ").unwrap_or(last);
            ModelError::new(
                join(path, "process"),
                format!("invalid regular expression: {last}"),
            )
        })?),
    };
    Ok(ThreadFilter { tids, process })
}

fn check_events(
    raw: Option<Vec<MapOnly<RawEvent>>>,
    path: &str,
) -> Result<Vec<EventPattern>, ModelError> {
    let raw = raw.ok_or_else(|| ModelError::new(path, "required in mode same_tid"))?;
    if raw.is_empty() {
        return Err(ModelError::new(path, "must list at least one event"));
    }
    raw.into_iter()
        .enumerate()
        .map(|(i, e)| check_event(e.0, &format!("{path}[{i}]")))
        .collect()
}

fn check_event(raw: RawEvent, path: &str) -> Result<EventPattern, ModelError> {
    let name = check_name(raw.name, &join(path, "name"))?;
    let fields_path = join(path, "fields");
    let mut constraints: Vec<FieldConstraint> = Vec::new();
    for (key, value) in raw.fields.0 {
        let kpath = join(&fields_path, &key);
        let c = check_constraint(&key, value, &kpath)?;
        if matches!(c, FieldConstraint::Tid { .. }) {
            if let Some(other) = constraints.iter().find_map(|c| match c {
                FieldConstraint::Tid { field } => Some(field),
                _ => None,
            }) {
                return Err(ModelError::new(
                    kpath,
                    format!("only one field of an event can be \"$tid\" (\"{other}\" already is)"),
                ));
            }
        }
        if let FieldConstraint::Masked { field, mask, .. } = &c {
            if constraints
                .iter()
                .any(|o| matches!(o, FieldConstraint::Masked { field: f, mask: m, .. } if f == field && m == mask))
            {
                return Err(ModelError::new(kpath, "the same field and mask are already constrained"));
            }
        }
        constraints.push(c);
    }
    constraints.sort_by(|a, b| a.field().cmp(b.field()).then_with(|| a.cmp(b)));
    Ok(EventPattern { name, constraints })
}

fn is_field_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const FIELD_NAME_RULE: &str =
    "not a field name: letters, digits and '_', not starting with a digit \
     (a mask is written \"field&mask\", e.g. \"flags&0x3\")";

fn check_constraint(key: &str, value: RawValue, path: &str) -> Result<FieldConstraint, ModelError> {
    let Some((field, mask)) = key.split_once('&') else {
        if !is_field_name(key) {
            return Err(ModelError::new(path, FIELD_NAME_RULE));
        }
        let field = key.to_string();
        return match value {
            RawValue::Int(value) => Ok(FieldConstraint::Int { field, value }),
            RawValue::Str(s) if s == TID_VARIABLE => Ok(FieldConstraint::Tid { field }),
            RawValue::Str(s) if s.starts_with('$') => Err(ModelError::new(
                path,
                format!("unknown variable \"{s}\": the only variable is \"$tid\""),
            )),
            RawValue::Str(value) => Ok(FieldConstraint::Str { field, value }),
        };
    };
    if field.is_empty() {
        return Err(ModelError::new(path, "field name missing before '&'"));
    }
    if !is_field_name(field) {
        return Err(ModelError::new(path, FIELD_NAME_RULE));
    }
    let parsed = match mask.strip_prefix("0x").or_else(|| mask.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !mask.is_empty() && mask.bytes().all(|b| b.is_ascii_digit()) => {
            mask.parse::<u64>().ok()
        }
        None => None,
    };
    let Some(mask) = parsed else {
        return Err(ModelError::new(
            path,
            "mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ));
    };
    if mask == 0 {
        return Err(ModelError::new(
            path,
            "mask is 0: the test would not read the field",
        ));
    }
    let value = match value {
        RawValue::Int(v) => u64::try_from(v)
            .map_err(|_| ModelError::new(path, "a masked value must be a non-negative integer"))?,
        RawValue::Str(_) => {
            return Err(ModelError::new(
                path,
                "a masked value must be an integer, not a string",
            ));
        }
    };
    if value & !mask != 0 {
        return Err(ModelError::new(
            path,
            format!("value {value:#x} has bits outside mask {mask:#x}: it would never match"),
        ));
    }
    Ok(FieldConstraint::Masked {
        field: field.to_string(),
        mask,
        value,
    })
}
