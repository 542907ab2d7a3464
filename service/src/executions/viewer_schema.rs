//! The execution-model schema as served in `/config/types`: derived from
//! `schemas/execution-model.schema.json` so that it survives what the VS Code
//! Trace Viewer does with a configuration type's schema. Its JSON editor
//! keeps only `properties`, `oneOf`, `required` and `additionalProperties` of
//! the top level and compiles the result with Ajv's 2020 dialect in strict
//! mode, so the served schema has no `$ref` (the `$defs` would be gone), no
//! `allOf` (dropped) and no custom `format` (an error in strict mode). Nor
//! has it the 64-bit bounds: the viewer's TSP client reads numbers of more
//! than 15 characters as `BigInt`s, which Ajv refuses as `minimum` or
//! `maximum` (the server checks those bounds when the model is posted). The
//! result is written in `schemas/execution-model.viewer.schema.json`; a test
//! keeps the two equal.

use serde_json::{json, Map, Value};

/// `source` made self-contained: every local `$ref` replaced by its
/// definition (the referring schema's own keywords, such as its
/// `description`, kept over the definition's), `format`s and bounds too
/// wide for a JavaScript client dropped, and a
/// top-level `allOf` of `if`/`then`/`else` rules written as a top-level
/// `oneOf` of two exclusive branches, `if` and `then` or not `if` and
/// `else`. Panics on a shape it does not know, which the test of the
/// embedded schema would show.
pub fn self_contained(source: &Value) -> Value {
    let defs = source.get("$defs").cloned().unwrap_or(Value::Null);
    let mut out = inline(source, &defs);
    let top = out.as_object_mut().expect("the schema is an object");
    top.remove("$defs");
    if let Some(rules) = top.remove("allOf") {
        let branches: Vec<Value> = rules
            .as_array()
            .expect("allOf is an array")
            .iter()
            .flat_map(branches_of)
            .collect();
        assert_eq!(branches.len(), 2, "one if/then/else rule in allOf");
        top.insert("oneOf".into(), Value::Array(branches));
    }
    out
}

/// The two exclusive branches equivalent to one `if`/`then`/`else` rule.
fn branches_of(rule: &Value) -> [Value; 2] {
    let cond = rule.get("if").expect("an allOf rule is an if/then/else");
    let then = rule.get("then").cloned().unwrap_or(json!({}));
    let otherwise = rule.get("else").cloned().unwrap_or(json!({}));
    let mut when = merge(cond, &then);
    let mut unless = otherwise;
    let unless_obj = unless.as_object_mut().expect("else is an object");
    unless_obj.insert("not".into(), strict_ready(cond.clone()));
    for branch in [&mut when, &mut unless] {
        *branch = strict_ready(branch.take());
    }
    [when, unless]
}

/// `v` with what Ajv's strict mode asks of a subschema: an explicit type
/// beside `properties` and `required` (strict types), and each required
/// property named in its own `properties` (strict required; `true` adds no
/// constraint).
fn strict_ready(mut v: Value) -> Value {
    let o = v.as_object_mut().expect("a branch is an object");
    o.insert("type".into(), json!("object"));
    let required: Vec<String> = o
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|k| k.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if !required.is_empty() {
        let props = o
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("properties is an object");
        for k in required {
            props.entry(k).or_insert(Value::Bool(true));
        }
    }
    v
}

/// `a` and `b` as one schema: `required` lists joined, `properties` merged.
fn merge(a: &Value, b: &Value) -> Value {
    let mut out = a.as_object().expect("if is an object").clone();
    for (k, v) in b.as_object().expect("then is an object") {
        match (k.as_str(), out.get_mut(k)) {
            ("required", Some(Value::Array(have))) => {
                for r in v.as_array().expect("required is an array") {
                    if !have.contains(r) {
                        have.push(r.clone());
                    }
                }
            }
            ("properties", Some(Value::Object(have))) => {
                for (p, s) in v.as_object().expect("properties is an object") {
                    assert!(!have.contains_key(p), "{p} constrained by if and then");
                    have.insert(p.clone(), s.clone());
                }
            }
            (_, Some(_)) => panic!("{k} in both if and then"),
            (_, None) => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// `v` with its local references replaced, its formats and 64-bit bounds
/// dropped.
fn inline(v: &Value, defs: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            if let Some(r) = o.get("$ref") {
                let name = r
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .expect("only local references to $defs");
                let def = defs.get(name).expect("the reference is defined");
                if let Value::Object(d) = inline(def, defs) {
                    out.extend(d);
                }
            }
            for (k, x) in o {
                let wide_bound = matches!(k.as_str(), "minimum" | "maximum")
                    && x.as_number().is_some_and(|n| n.to_string().len() > 15);
                if k != "$ref" && k != "format" && !wide_bound {
                    out.insert(k.clone(), inline(x, defs));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| inline(x, defs)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = include_str!("../../../schemas/execution-model.schema.json");
    const WRITTEN: &str = include_str!("../../../schemas/execution-model.viewer.schema.json");

    fn keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    out.push(k.clone());
                    keys(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }

    #[test]
    fn the_written_viewer_schema_is_the_generated_one() {
        let generated = self_contained(&serde_json::from_str(SOURCE).unwrap());
        let written: Value = serde_json::from_str(WRITTEN).unwrap();
        assert_eq!(
            generated,
            written,
            "schemas/execution-model.viewer.schema.json is out of date; write it again from:\n{}",
            serde_json::to_string_pretty(&generated).unwrap()
        );
    }

    #[test]
    fn nothing_the_viewer_drops_or_rejects_is_left() {
        let generated = self_contained(&serde_json::from_str(SOURCE).unwrap());
        let mut all = Vec::new();
        keys(&generated, &mut all);
        for gone in ["$ref", "$defs", "allOf", "if", "then", "else", "format"] {
            assert!(!all.iter().any(|k| k == gone), "{gone} left");
        }
        let branches = generated["oneOf"].as_array().unwrap();
        assert_eq!(branches[0]["required"], json!(["mode", "start", "end"]));
        assert_eq!(branches[1]["required"], json!(["events"]));
        let in_ns = &generated["properties"]["deadline"]["oneOf"][0];
        assert_eq!(
            in_ns["minimum"],
            json!(1),
            "the duration definition is inlined"
        );
        assert_eq!(in_ns.get("maximum"), None);
        assert_eq!(
            generated["properties"]["deadline"]["description"],
            json!("Deadline (ns, or with a unit: \"1ms\"): an execution whose elapsed time is greater misses it."),
            "the referring schema's description wins"
        );
    }
}
