//! Empty answers say why: each case runs the real pass (`request::find`) on
//! a fixture or a small trace written here, and checks the words.

use std::path::{Path, PathBuf};

use super::{unknown_tids, warnings};
use crate::analysis::executions::{Executions, Target};
use crate::analysis::model::census::TraceFacts;
use crate::analysis::model::request::{find, FindError, Request};
use crate::analysis::model::{parse_model, Preset, ThreadFilter};
use crate::reader::OpenOptions;
use crate::run::Work;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
}

/// A file under the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        // In the temporary directory itself: dropping the file leaves nothing.
        let path =
            std::env::temp_dir().join(format!("sextant-unmatched-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn model(json: &str) -> Request {
    Request {
        target: Target::Model(Box::new(parse_model(json).unwrap())),
        preset: None,
        tids: Vec::new(),
    }
}

fn preset(p: Preset, tids: &[i64]) -> Request {
    let filter = ThreadFilter {
        tids: (!tids.is_empty()).then(|| tids.iter().copied().collect()),
        process: None,
    };
    Request {
        target: match p.model(filter.clone()) {
            Some(m) => Target::Model(Box::new(m)),
            None => Target::States(p, filter),
        },
        preset: Some(p),
        tids: tids.to_vec(),
    }
}

fn run(trace: &Path, req: &Request) -> Result<(Executions, Vec<String>), FindError> {
    find(trace, OpenOptions::default(), req, &Work::none()).map(|f| (f.executions, f.ran.warnings))
}

/// Only the warnings about the request (the reader's own, if any, are not
/// what these tests are about).
fn said(trace: &Path, req: &Request) -> (usize, Vec<String>) {
    let (x, warnings) = run(trace, req).unwrap();
    let name = trace.display().to_string();
    let ours = warnings
        .into_iter()
        .filter(|w| w.contains(&name) || w.starts_with("--"))
        .collect();
    (x.executions.len(), ours)
}

const SCENARIO_A: &str = "scenario-a/ctf";

#[test]
fn a_misspelt_event_is_named_with_the_one_meant() {
    let trace = fixture(SCENARIO_A);
    let (found, warnings) = said(
        &trace,
        &model(
            r#"{"name":"job","threads":{"process":"^rt_high$"},"events":[
                {"name":"syscall_exit_clock_nanoslep"},{"name":"syscall_entry_clock_nanosleep"}]}"#,
        ),
    );
    assert_eq!(found, 0);
    assert_eq!(
        warnings,
        [format!(
            "events[0].name: no event `syscall_exit_clock_nanoslep` in {}; did you mean `syscall_exit_clock_nanosleep`?",
            trace.display()
        )]
    );
}

#[test]
fn an_event_far_from_every_name_lists_the_nearest() {
    let trace = fixture(SCENARIO_A);
    let (_, warnings) = said(
        &trace,
        &model(
            r#"{"name":"x","mode":"different_tids","start":{"name":"irq_handler_entry"},"end":{"name":"sched_switch"}}"#,
        ),
    );
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with(&format!(
            "start.name: no event `irq_handler_entry` in {}, which has ",
            trace.display()
        )),
        "{w}"
    );
    assert!(w.contains("event types (the nearest: `"), "{w}");
}

#[test]
fn a_tid_the_trace_lacks_is_refused_with_the_threads_it_has() {
    let trace = fixture(SCENARIO_A);
    for p in [Preset::WholeThread, Preset::Periodic] {
        let Err(FindError::UnknownThreads(e)) = run(&trace, &preset(p, &[999_999])) else {
            panic!("--tid 999999 accepted with --preset {p}");
        };
        let start = format!(
            "--tid 999999: no such thread in {}; it has ",
            trace.display()
        );
        assert!(e.starts_with(&start), "{e}");
        assert!(e.contains(" threads, the nearest: "), "{e}");
        assert!(e.ends_with("--preset whole-thread` lists them all"), "{e}");
    }
    // A thread it has passes.
    let (all, _) = run(&trace, &preset(Preset::WholeThread, &[])).unwrap();
    let tid = all.executions.last().unwrap().tid;
    let (found, warnings) = said(&trace, &preset(Preset::WholeThread, &[tid]));
    assert_eq!((found, warnings), (1, vec![]));
}

#[test]
fn a_model_thread_the_trace_lacks_is_said() {
    let trace = fixture(SCENARIO_A);
    let (found, warnings) = said(
        &trace,
        &model(
            r#"{"name":"x","threads":{"tids":[999999],"process":"^rt_hihg$"},"events":[
                {"name":"syscall_exit_clock_nanosleep"},{"name":"syscall_entry_clock_nanosleep"}]}"#,
        ),
    );
    assert_eq!(found, 0);
    let [tids, process] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        tids.starts_with("threads.tids: no thread 999999 in "),
        "{tids}"
    );
    assert!(
        process.starts_with("threads.process `^rt_hihg$` matches no thread name in "),
        "{process}"
    );
    assert!(process.contains("(the nearest: `rt_high`"), "{process}");
}

#[test]
fn a_time_range_outside_the_trace_says_the_trace_s_range() {
    let trace = fixture(SCENARIO_A);
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/examples/wakeup-to-run.json"),
    )
    .unwrap();
    let (found, warnings) = said(&trace, &model(&text));
    assert_eq!(found, 0);
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    let start = format!(
        "time_range (1000000000 to 2000000000 ns) is outside {}, which runs from ",
        trace.display()
    );
    assert!(w.starts_with(&start), "{w}");
    assert!(
        w.ends_with("give times in that range, or leave time_range out"),
        "{w}"
    );
}

#[test]
fn periodic_without_clock_nanosleep_says_what_to_use() {
    // scenario-a's ftrace text without its clock_nanosleep calls.
    let text: String = std::fs::read_to_string(fixture("scenario-a/trace.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.contains("clock_nanosleep"))
        .map(|l| format!("{l}\n"))
        .collect();
    let f = TempFile::new("no-nanosleep.txt", &text);
    let (found, warnings) = said(&f.0, &preset(Preset::Periodic, &[]));
    assert_eq!(found, 0);
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with(&format!(
            "--preset periodic measures each job between two clock_nanosleep calls of a thread, and {} \
             has no `syscall_entry_clock_nanosleep` nor `syscall_exit_clock_nanosleep`",
            f.0.display()
        )),
        "{w}"
    );
    assert!(w.contains("Use --preset running or whole-thread"), "{w}");
    // The original has them: no warning.
    let (found, warnings) = said(
        &fixture("scenario-a/trace.txt"),
        &preset(Preset::Periodic, &[]),
    );
    assert!(found > 0 && warnings.is_empty(), "{found} {warnings:?}");
}

/// As the FreeRTOS trace logger writes: tasks resumed and preempted, never
/// activated or terminated.
const FREERTOS: &str = "#version 2.2.0\n#creator FreeRTOS trace logger\n#timeScale us\n\
    10,Core_0,0,T,[0/0001]Runner,0,preempt,create pri:4\n\
    12,Core_0,0,T,[0/0002]IDLE,0,preempt,create pri:0\n\
    20,[0/0000],0,T,[0/0001]Runner,0,resume,\n\
    30,Core_0,0,T,[0/0001]Runner,0,preempt,\n\
    31,[0/0001]Runner,0,T,[0/0002]IDLE,0,resume,\n\
    40,Core_0,0,T,[0/0002]IDLE,0,preempt,\n\
    41,[0/0002]IDLE,0,T,[0/0001]Runner,0,resume,\n\
    50,Core_0,0,T,[0/0001]Runner,0,preempt,\n";

#[test]
fn task_instances_without_activations_point_to_a_preset_that_works() {
    let f = TempFile::new("freertos.btf", FREERTOS);
    let (found, warnings) = said(&f.0, &preset(Preset::TaskInstance, &[]));
    assert_eq!(found, 0);
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with(&format!(
            "--preset task-instance measures each task instance from its activation to its termination, \
             and {} has no `T_activate` nor `T_terminate` rows (its task events: `T_preempt`, `T_resume`",
            f.0.display()
        )),
        "{w}"
    );
    assert!(w.ends_with("Use --preset running (each interval a task runs, from its resume to its preemption) or --preset whole-thread"), "{w}");
    // The advice holds: running finds the three runs.
    let (found, warnings) = said(&f.0, &preset(Preset::Running, &[]));
    assert_eq!((found, warnings), (3, vec![]));
}

#[test]
fn task_instances_on_a_kernel_trace_say_they_are_for_btf() {
    let trace = fixture(SCENARIO_A);
    let (_, warnings) = said(&trace, &preset(Preset::TaskInstance, &[]));
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with("--preset task-instance is for BTF traces"),
        "{w}"
    );
}

#[test]
fn events_present_but_never_in_order_say_so() {
    let trace = fixture(SCENARIO_A);
    let (found, warnings) = said(
        &trace,
        &model(
            r#"{"name":"never","threads":{"process":"^rt_high$"},"events":[
                {"name":"syscall_exit_clock_nanosleep","fields":{"ret":12345}}]}"#,
        ),
    );
    assert_eq!(found, 0);
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with(&format!(
            "the model `never` found no execution in {}",
            trace.display()
        )),
        "{w}"
    );
}

#[test]
fn a_missing_nested_event_is_said_beside_the_executions_found() {
    let trace = fixture(SCENARIO_A);
    let (found, warnings) = said(
        &trace,
        &model(
            r#"{"name":"x","threads":{"process":"^rt_high$"},"events":[
                {"name":"syscall_exit_clock_nanosleep"},{"name":"syscall_entry_clock_nanosleep"}],
                "nested":{"name":"n","events":[{"name":"mq_timedsend"}]}}"#,
        ),
    );
    assert!(found > 0);
    let [w] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert!(
        w.starts_with("nested.events[0].name: no event `mq_timedsend` in "),
        "{w}"
    );
    for near in [
        "`syscall_entry_mq_timedsend`",
        "`syscall_exit_mq_timedsend`",
    ] {
        assert!(w.contains(near), "{w}");
    }
}

#[test]
fn the_census_has_the_trace_s_cpus() {
    let trace = fixture(SCENARIO_A);
    let found = find(
        &trace,
        OpenOptions::default(),
        &preset(Preset::Running, &[]),
        &Work::none(),
    )
    .unwrap();
    assert_eq!(found.facts.cpus.into_iter().collect::<Vec<_>>(), [0, 1]);
    assert!(found.facts.complete);
}

#[test]
fn a_pass_ended_early_claims_nothing_absent() {
    // max_executions ends the read: what lies after is unknown, not absent.
    let req = model(r#"{"name":"x","threads":{"tids":[7]},"events":[{"name":"a"}]}"#);
    let facts = TraceFacts {
        complete: false,
        ..TraceFacts::default()
    };
    let found = Executions {
        name: "x".into(),
        executions: Vec::new(),
        incomplete: 0,
        deadline: None,
    };
    assert!(warnings(&req.target, None, &found, &facts, "T").is_empty());
    assert_eq!(unknown_tids(&[7], &facts, "T"), None);
    let complete = TraceFacts {
        complete: true,
        ..facts
    };
    assert_eq!(warnings(&req.target, None, &found, &complete, "T").len(), 2);
    assert!(unknown_tids(&[7], &complete, "T").is_some());
}
