//! The schema (schemas/execution-model.schema.json) and the parser
//! (`analysis::model::parse_model`) must agree on every example in
//! schemas/examples: `invalid-*.json` rejected by both, the others accepted by
//! both. Valid examples also survive `to_json`, and what `to_json` writes is
//! valid under the schema.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sextant_engine::analysis::model::{parse_model, Preset, ThreadFilter};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

fn validator() -> jsonschema::Validator {
    let path = schemas_dir().join("execution-model.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{} is not a valid 2020-12 schema: {e}", path.display());
    }
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn examples() -> Vec<(String, String)> {
    let dir = schemas_dir().join("examples");
    let mut out: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Which field each invalid example is wrong about (the parser's error path),
/// so that an example cannot be rejected for an accidental reason.
const INVALID: &[(&str, &str)] = &[
    ("invalid-chained-same-tid.json", "chained"),
    ("invalid-deadline-unit.json", "deadline"),
    ("invalid-deadline-zero.json", "deadline"),
    ("invalid-empty-events.json", "events"),
    ("invalid-empty-tids.json", "threads.tids"),
    ("invalid-events-in-different-tids.json", "events"),
    ("invalid-field-bool.json", "events[0].fields.success"),
    ("invalid-mask.json", "events[1].fields.op&x"),
    ("invalid-masked-string.json", "events[0].fields.op&0x7f"),
    ("invalid-missing-end.json", "end"),
    ("invalid-nested-different-tids.json", "nested.mode"),
    ("invalid-nested-twice.json", "nested.nested"),
    ("invalid-null-option.json", "deadline"),
    ("invalid-regex.json", "threads.process"),
    ("invalid-unknown-key.json", "deadine"),
    ("invalid-unknown-mode.json", "mode"),
    ("invalid-unknown-variable.json", "events[0].fields.tid"),
];

/// `events[1].fields.op&x` as a JSON pointer: `/events/1/fields/op&x`.
fn to_pointer(path: &str) -> String {
    let mut out = String::new();
    for part in path.split('.') {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        out.push('/');
        out.push_str(key);
        for i in indices.split('[').filter(|s| !s.is_empty()) {
            out.push('/');
            out.push_str(i.trim_end_matches(']'));
        }
    }
    out
}

#[test]
fn schema_and_parser_agree_on_examples() {
    let validator = validator();
    let examples = examples();
    assert!(examples.iter().any(|(n, _)| n.starts_with("invalid-")));
    assert!(examples.iter().any(|(n, _)| !n.starts_with("invalid-")));
    let mut wrong = Vec::new();
    for (name, text) in &examples {
        let json: Value =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
        let schema_errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        let parsed = parse_model(text);
        if name.starts_with("invalid-") {
            if schema_errors.is_empty() {
                wrong.push(format!("{name}: the schema accepts it"));
            }
            match parsed {
                Ok(m) => wrong.push(format!("{name}: the parser accepts it: {m:?}")),
                Err(e) => match INVALID.iter().find(|(n, _)| n == name) {
                    None => wrong.push(format!("{name}: add it to INVALID (the parser says {e})")),
                    Some((_, path)) if e.path != *path => {
                        wrong.push(format!("{name}: expected an error at {path}, got {e}"))
                    }
                    Some((_, path)) => {
                        // The schema must object to the same place (or to an
                        // object containing it).
                        let pointer = to_pointer(path);
                        let near = validator
                            .iter_errors(&json)
                            .any(|se| pointer.starts_with(se.instance_path().as_str()));
                        if !near {
                            wrong.push(format!(
                                "{name}: the parser objects to {pointer}, the schema to {}",
                                schema_errors.join("; ")
                            ));
                        }
                    }
                },
            }
        } else {
            if !schema_errors.is_empty() {
                wrong.push(format!(
                    "{name}: the schema rejects it: {}",
                    schema_errors.join("; ")
                ));
            }
            match parsed {
                Err(e) => wrong.push(format!("{name}: the parser rejects it: {e}")),
                Ok(m) => {
                    let out = m.to_json();
                    if !validator.is_valid(&out) {
                        wrong.push(format!(
                            "{name}: to_json is not valid under the schema: {out}"
                        ));
                    }
                    match parse_model(&out.to_string()) {
                        Ok(back) if back == m => {}
                        Ok(back) => {
                            wrong.push(format!("{name}: round trip changed it: {m:?} -> {back:?}"))
                        }
                        Err(e) => wrong.push(format!("{name}: to_json does not parse back: {e}")),
                    }
                }
            }
        }
    }
    for (n, _) in INVALID {
        if !examples.iter().any(|(e, _)| e == n) {
            wrong.push(format!(
                "{n}: listed in INVALID but missing from schemas/examples"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn periodic_preset_is_valid_under_the_schema() {
    let m = Preset::Periodic.model(ThreadFilter::default()).unwrap();
    let json = m.to_json();
    let errors: Vec<String> = validator()
        .iter_errors(&json)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{json}: {errors:?}");
}

/// Every property in the schema has a description: TSP clients show them.
#[test]
fn schema_describes_every_property() {
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(schemas_dir().join("execution-model.schema.json")).unwrap(),
    )
    .unwrap();
    fn walk(v: &Value, path: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for key in ["properties", "patternProperties", "$defs"] {
                    if let Some(Value::Object(props)) = m.get(key) {
                        for (name, p) in props {
                            if p.is_object() && p.get("description").is_none() {
                                missing.push(format!("{path}/{key}/{name}"));
                            }
                        }
                    }
                }
                for (k, child) in m {
                    walk(child, &format!("{path}/{k}"), missing);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    walk(child, &format!("{path}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let mut missing = Vec::new();
    walk(&schema, "#", &mut missing);
    // Only the mode-exclusion subschemas in allOf (`"start": false`) have no description.
    missing.retain(|p| !p.starts_with("#/allOf"));
    assert!(missing.is_empty(), "no description: {missing:?}");
}
