//! Nothing silently empty (issue 27): each request that used to answer
//! nothing with exit 0 and no word now either fails, naming what the trace
//! has, or warns on stderr why its answer is empty (the JSON staying valid,
//! the warning also in `trace.warnings`). Model times take units, model
//! errors name the file, and `explain` and `export` take `--no-store`.
//!
//! Nothing is written into the repository: the commands run with
//! `--no-store`, or on copies in a temporary directory. The FreeRTOS-logger
//! case on `../shared` skips with a message when it is absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{repo_root, sextant, shared_dir, skip_shared, valid_json_output};
use serde_json::Value;

fn fixture(rel: &str) -> String {
    path(&repo_root().join("fixtures").join(rel))
}

fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A directory of its own under the temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sextant-empty-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        path(&p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `sextant analyze ARGS --format json` that succeeds: its JSON (valid
/// under the result schema) and its stderr.
fn analyze(args: &[&str]) -> (Value, String) {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let doc = valid_json_output("analyze-result.schema.json", &all);
    (doc, stderr(&sextant(&all)))
}

/// `sextant ARGS`, which must fail: its stderr.
fn fails(args: &[&str]) -> String {
    let out = sextant(args);
    assert!(
        !out.status.success(),
        "{args:?} succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr(&out)
}

fn executions(doc: &Value) -> usize {
    doc["executions"].as_array().expect("executions[]").len()
}

/// The warning is on stderr and in the JSON's `trace.warnings`.
fn warned(doc: &Value, err: &str, warning: &str) {
    assert!(
        err.contains(&format!("sextant: warning: {warning}")),
        "stderr lacks {warning:?}:\n{err}"
    );
    let in_json = doc["trace"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains(warning));
    assert!(
        in_json,
        "trace.warnings lacks {warning:?}: {}",
        doc["trace"]
    );
}

const MISSPELT: &str = r#"{"name":"rt_high job","threads":{"process":"^rt_high$"},"events":[
    {"name":"syscall_exit_clock_nanoslep"},{"name":"syscall_entry_clock_nanosleep"}]}"#;

#[test]
fn a_misspelt_event_gets_the_name_meant() {
    let trace = fixture("scenario-a/ctf");
    let (doc, err) = analyze(&[&trace, "--model", MISSPELT, "--no-store"]);
    assert_eq!(executions(&doc), 0);
    warned(
        &doc,
        &err,
        &format!(
            "events[0].name: no event `syscall_exit_clock_nanoslep` in {trace}; \
             did you mean `syscall_exit_clock_nanosleep`?"
        ),
    );
}

#[test]
fn analyze_refuses_a_tid_the_trace_lacks() {
    let trace = fixture("scenario-a/ctf");
    for preset in ["whole-thread", "periodic", "running"] {
        let err = fails(&[
            "analyze",
            &trace,
            "--preset",
            preset,
            "--tid",
            "999999",
            "--no-store",
        ]);
        assert!(
            err.starts_with(&format!(
                "sextant: error: --tid 999999: no such thread in {trace}; it has "
            )),
            "{err}"
        );
        assert!(err.contains("(rt_high)"), "names the threads it has: {err}");
    }
}

#[test]
fn a_time_range_outside_the_trace_says_the_trace_s_range() {
    let trace = fixture("scenario-a/ctf");
    let model = path(&repo_root().join("schemas/examples/wakeup-to-run.json"));
    let (doc, err) = analyze(&[&trace, "--model", &model, "--no-store"]);
    assert_eq!(executions(&doc), 0);
    let start = doc["trace"]["start"].as_i64().unwrap();
    let end = doc["trace"]["end"].as_i64().unwrap();
    warned(
        &doc,
        &err,
        &format!(
            "time_range (1000000000 to 2000000000 ns) is outside {trace}, which runs from \
             {start} to {end} ns"
        ),
    );
}

/// scenario-a's ftrace text without its clock_nanosleep calls, in `dir`.
fn without_nanosleep(dir: &Scratch) -> String {
    let text: String = std::fs::read_to_string(fixture("scenario-a/trace.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.contains("clock_nanosleep"))
        .map(|l| format!("{l}\n"))
        .collect();
    dir.write("trace.txt", &text)
}

#[test]
fn periodic_without_clock_nanosleep_says_what_to_use_even_from_the_store() {
    let dir = Scratch::new("periodic");
    let trace = without_nanosleep(&dir);
    let warning = format!(
        "--preset periodic measures each job between two clock_nanosleep calls of a thread, and \
         {trace} has no `syscall_entry_clock_nanosleep` nor `syscall_exit_clock_nanosleep`"
    );
    // The second run reads the executions from the store: the warning was
    // kept with them.
    for run in ["first", "stored"] {
        let (doc, err) = analyze(&[&trace, "--preset", "periodic", "--store", "beside"]);
        assert_eq!(executions(&doc), 0, "{run}");
        warned(&doc, &err, &warning);
        assert!(
            err.contains("Use --preset running or whole-thread"),
            "{err}"
        );
    }
    assert!(
        dir.0.join("trace.txt.sextant").is_dir(),
        "the executions were stored"
    );
}

/// Two tasks as the FreeRTOS trace logger writes them: resumed and
/// preempted, never activated or terminated.
const FREERTOS: &str = "#version 2.2.0\n#creator FreeRTOS trace logger\n#timeScale us\n\
    10,Core_0,0,T,[0/0001]Runner,0,preempt,create pri:4\n\
    12,Core_0,0,T,[0/0002]IDLE,0,preempt,create pri:0\n\
    20,[0/0000],0,T,[0/0001]Runner,0,resume,\n\
    30,Core_0,0,T,[0/0001]Runner,0,preempt,\n\
    31,[0/0001]Runner,0,T,[0/0002]IDLE,0,resume,\n\
    40,Core_0,0,T,[0/0002]IDLE,0,preempt,\n";

fn task_instance_warns_and_running_works(trace: &str) {
    let (doc, err) = analyze(&[trace, "--preset", "task-instance", "--no-store"]);
    assert_eq!(executions(&doc), 0);
    warned(
        &doc,
        &err,
        &format!(
            "--preset task-instance measures each task instance from its activation to its \
             termination, and {trace} has no `T_activate` nor `T_terminate` rows"
        ),
    );
    assert!(err.contains("Use --preset running"), "{err}");
    let (doc, err) = analyze(&[trace, "--preset", "running", "--no-store"]);
    assert!(executions(&doc) > 0, "the advice works");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn task_instance_on_a_logger_without_activations_points_to_running() {
    let dir = Scratch::new("freertos");
    task_instance_warns_and_running_works(&dir.write("freertos.btf", FREERTOS));
}

#[test]
fn task_instance_on_the_shared_freertos_traces() {
    let Some(shared) = shared_dir() else {
        skip_shared();
        return;
    };
    for name in ["freertos-example.btf", "freertos-example-4cores.btf"] {
        task_instance_warns_and_running_works(&path(&shared.join("traces/btf").join(name)));
    }
}

#[test]
fn explain_refuses_cpus_the_trace_lacks() {
    let dir = Scratch::new("cpus");
    let trace = dir.write(
        "trace.txt",
        &std::fs::read_to_string(fixture("scenario-a/trace.txt")).unwrap(),
    );
    let model = path(&repo_root().join("schemas/examples/periodic-rt_high.json"));
    let explain = |cpus: &str, store: bool| {
        let mut args = vec![
            "explain",
            &trace,
            "--model",
            &model,
            "--longest",
            "--cpus",
            cpus,
            "--format",
            "json",
        ];
        if !store {
            args.push("--no-store");
        }
        sextant(&args)
    };
    let refused = format!("sextant: error: --cpus 7: no such CPU in {trace}; it has CPUs 0,1\n");
    assert_eq!(stderr(&explain("7", false)), refused);
    // The CPUs it has are accepted without a word.
    let out = explain("0,1", false);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // From the store, whose executions come without a read of the trace,
    // CPU 7 is known to have run nothing near the execution.
    assert!(explain("0", true).status.success());
    let out = explain("7", true);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("sextant: warning: --cpus 7: no thread ran there"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn model_times_take_units() {
    let trace = fixture("scenario-a/ctf");
    let model = |deadline: &str| {
        format!(
            r#"{{"name":"rt_high job","threads":{{"process":"^rt_high$"}},"events":[
            {{"name":"syscall_exit_clock_nanosleep"}},
            {{"name":"syscall_entry_clock_nanosleep","fields":{{"which_clock":1}}}}],
            "deadline":{deadline}}}"#
        )
    };
    let (ns, _) = analyze(&[&trace, "--model", &model("1000000"), "--no-store"]);
    for written in [r#""1ms""#, r#""1000us""#, r#""1.0ms""#, r#""1000000ns""#] {
        let (doc, _) = analyze(&[&trace, "--model", &model(written), "--no-store"]);
        assert_eq!(doc["deadline"], 1_000_000, "{written}");
        assert_eq!(doc["stats"], ns["stats"], "{written}");
    }
    let units = path(&repo_root().join("schemas/examples/periodic-rt_high-units.json"));
    let (doc, _) = analyze(&[&trace, "--model", &units, "--no-store"]);
    assert_eq!(doc["deadline"], 1_000_000);
    assert_eq!(doc["stats"]["count"], ns["stats"]["count"]);
}

#[test]
fn a_model_error_names_the_file_the_field_and_the_form() {
    let dir = Scratch::new("model-error");
    let file = dir.write(
        "model.json",
        r#"{"name":"x","events":[{"name":"a"}],"deadline":"1 ms s"}"#,
    );
    let err = fails(&[
        "analyze",
        &fixture("scenario-a/ctf"),
        "--model",
        &file,
        "--no-store",
    ]);
    assert_eq!(
        err.trim_end(),
        format!(
            "sextant: error: {file}: deadline: expected a duration such as 1000000 (ns), \"1ms\" \
             or \"250us\", found \"1 ms s\" (line 1, column 55)"
        )
    );
    let err = fails(&[
        "analyze",
        &fixture("scenario-a/ctf"),
        "--model",
        r#"{"name":"x","events":[{"name":"a"}],"time_range":{"start":true}}"#,
        "--no-store",
    ]);
    assert!(
        err.starts_with("sextant: error: --model: time_range.start: expected a time on the trace clock such as 1500000000 (ns), \"1.5s\" or \"250ms\", found boolean"),
        "{err}"
    );
}

/// `--no-store` on every command that reads a store: nothing is written
/// beside the trace; without it, the executions are stored.
#[test]
fn explain_and_export_take_no_store() {
    let dir = Scratch::new("no-store");
    let trace = dir.write(
        "trace.txt",
        &std::fs::read_to_string(fixture("scenario-a/trace.txt")).unwrap(),
    );
    let store = dir.0.join("trace.txt.sextant");
    let model = path(&repo_root().join("schemas/examples/periodic-rt_high.json"));
    let out_file = path(&dir.0.join("x.csv"));
    let commands: [Vec<&str>; 3] = [
        vec![
            "explain",
            &trace,
            "--model",
            &model,
            "--longest",
            "--format",
            "json",
        ],
        vec!["export", &trace, "--model", &model, "--out", &out_file],
        vec!["analyze", &trace, "--model", &model, "--format", "json"],
    ];
    for c in &commands {
        let mut args = c.clone();
        args.push("--no-store");
        let out = sextant(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(!store.exists(), "{args:?} wrote a store");
    }
    // Kept beside the trace when asked, where this test can see it.
    let mut args = commands[0].clone();
    args.extend(["--store", "beside"]);
    let out = sextant(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        store.is_dir(),
        "explain without --no-store stores the executions"
    );
}
