//! Issue 27, deliver 6: explain's text speaks the user's words. No
//! identifier of the code (`waiting_cpu`, `QueueEmptyWhileReceivers`)
//! reaches a person: the text of every fixture's longest executions
//! (several presets, and the seed case's model where it applies) is
//! scanned for snake_case and CamelCase words that are not names the trace
//! itself gave (threads, the model). The JSON keeps its stable keys.

mod common;

use std::collections::HashSet;
use std::path::PathBuf;

use common::seed::SEED_MODEL;
use common::{repo_root, run_json, sextant};
use serde_json::Value;

fn traces() -> Vec<PathBuf> {
    [
        "scenario-a/ctf",
        "scenario-a/trace.txt",
        "scenario-b/ctf",
        "scenario-c/ctf",
        "scenario-c/trace.txt",
        "scenario-d/ctf",
        "scenario-d/trace.txt",
        "tracedat-a/trace-v7.dat",
    ]
    .iter()
    .map(|r| repo_root().join("fixtures").join(r))
    .collect()
}

/// Every string under a key naming a thread or a model, anywhere in `v`.
fn names(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k.ends_with("comm") || k == "name" {
                    if let Some(s) = x.as_str() {
                        out.insert(s.to_string());
                    }
                }
                names(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| names(x, out)),
        _ => {}
    }
}

/// Words of `text` spelled as code: `a_b` or `aB` inside a word.
fn code_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|w| {
            let b = w.as_bytes();
            let snake = b.windows(3).any(|x| {
                x[0].is_ascii_alphanumeric() && x[1] == b'_' && x[2].is_ascii_alphabetic()
            });
            let camel = b
                .windows(2)
                .any(|x| x[0].is_ascii_lowercase() && x[1].is_ascii_uppercase());
            snake || camel
        })
        .map(str::to_string)
        .collect()
}

fn explain(trace: &str, what: &[&str], format: &str) -> Option<String> {
    let mut args = vec!["explain", trace, "--longest", "--format", format];
    args.extend_from_slice(what);
    let out = sextant(&args);
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).unwrap())
}

#[test]
fn explain_text_has_no_code_words() {
    let mut explained = 0;
    let mut wrong = Vec::new();
    for trace in traces() {
        let t = trace.to_str().unwrap();
        let seed = ["--model", SEED_MODEL];
        let running = ["--preset", "running"];
        let blocking = ["--preset", "blocking"];
        let mut asks: Vec<&[&str]> = vec![&running, &blocking];
        if t.contains("scenario-c") || t.contains("scenario-d") {
            asks.push(&seed);
        }
        // Every thread's name, as the trace gave it.
        let mut threads = HashSet::new();
        names(
            &run_json(&["analyze", t, "--preset", "whole-thread", "--format", "json"]),
            &mut threads,
        );
        for what in asks {
            let Some(json) = explain(t, what, "json") else {
                continue;
            };
            let mut allowed = threads.clone();
            names(&serde_json::from_str(&json).unwrap(), &mut allowed);
            let text = explain(t, what, "text").expect("text as well as JSON");
            explained += 1;
            let bad: Vec<String> = code_words(&text)
                .into_iter()
                .filter(|w| !allowed.iter().any(|n| n.contains(w.as_str())))
                // Policies as users set them (chrt, sched_setscheduler(2)).
                .filter(|w| !w.starts_with("SCHED_"))
                .collect();
            if !bad.is_empty() {
                let bad: HashSet<String> = bad.into_iter().collect();
                wrong.push(format!("{t} {what:?}: {bad:?}"));
            }
        }
    }
    assert!(explained >= 10, "only {explained} explanations");
    assert!(
        wrong.is_empty(),
        "code words in explain's text:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_finds_code_words() {
    assert_eq!(
        code_words("rt_timer waiting_cpu mq 3 QueueEmptyWhileReceivers (0x7f_ab) 2.5 ms"),
        ["rt_timer", "waiting_cpu", "QueueEmptyWhileReceivers"]
    );
}
