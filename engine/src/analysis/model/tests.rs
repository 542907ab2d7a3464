//! Model parsing and checking: accepted models, every rule's error path,
//! round trips through JSON.

use super::*;

fn err(json: &str) -> String {
    match parse_model(json) {
        Ok(m) => panic!("accepted: {m:?}"),
        Err(e) => e.to_string(),
    }
}

fn roundtrip(m: &ExecutionModel) {
    let j = m.to_json();
    let back = model_from_value(&j).unwrap_or_else(|e| panic!("{e} in {j}"));
    assert_eq!(&back, m);
    let text = serde_json::to_string_pretty(&j).unwrap();
    assert_eq!(&parse_model(&text).unwrap(), m);
}

#[test]
fn brief_example() {
    let m = parse_model(
        r#"{ "name": "rt_high job", "mode": "same_tid",
             "threads": { "tids": [13, 12, 13], "process": "^rt_high$" },
             "events": [ { "name": "syscall_exit_clock_nanosleep" },
                         { "name": "syscall_entry_clock_nanosleep", "fields": {"which_clock": 1} } ],
             "deadline": 1000000 }"#,
    )
    .unwrap();
    assert_eq!(m.name, "rt_high job");
    assert_eq!(m.deadline, Some(1_000_000));
    let Mode::SameTid {
        threads,
        events,
        nested,
    } = &m.mode
    else {
        panic!("{m:?}")
    };
    assert!(nested.is_none());
    assert_eq!(threads.tids, Some([12, 13].into_iter().collect()));
    assert!(threads.matches(12, "rt_high"));
    assert!(!threads.matches(12, "rt_high2"));
    assert!(!threads.matches(14, "rt_high"));
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0],
        EventPattern::named("syscall_exit_clock_nanosleep")
    );
    assert_eq!(
        events[1].constraints,
        vec![FieldConstraint::Int {
            field: "which_clock".into(),
            value: 1
        }]
    );
    assert_eq!(events[1].tid_field(), None);
    roundtrip(&m);
}

#[test]
fn default_mode_and_constraint_kinds() {
    let m = parse_model(
        r#"{ "name": "futex wait",
             "events": [ { "name": "syscall_entry_futex",
                           "fields": { "op&0x7f": 0, "uaddr": 18446744073709551615,
                                       "val": -3, "comm": "w", "flags&3": 1 } },
                         { "name": "sched_switch", "fields": { "prev_tid": "$tid" } } ],
             "time_range": { "start": 5 },
             "max_executions": 3 }"#,
    )
    .unwrap();
    let Mode::SameTid {
        threads, events, ..
    } = &m.mode
    else {
        panic!()
    };
    assert!(threads.is_any());
    assert!(threads.matches(1, "anything"));
    use FieldConstraint::*;
    assert_eq!(
        events[0].constraints,
        vec![
            Str {
                field: "comm".into(),
                value: "w".into()
            },
            Masked {
                field: "flags".into(),
                mask: 3,
                value: 1
            },
            Masked {
                field: "op".into(),
                mask: 0x7f,
                value: 0
            },
            Int {
                field: "uaddr".into(),
                value: u64::MAX as i128
            },
            Int {
                field: "val".into(),
                value: -3
            },
        ]
    );
    assert_eq!(events[1].tid_field(), Some("prev_tid"));
    assert_eq!(
        m.time_range,
        Some(TimeRange {
            start: Some(5),
            end: None
        })
    );
    assert!(m.time_range.unwrap().contains(5) && !m.time_range.unwrap().contains(4));
    assert_eq!(m.max_executions.map(NonZeroU64::get), Some(3));
    roundtrip(&m);
}

#[test]
fn constraint_accepts() {
    use FieldConstraint::*;
    let masked = Masked {
        field: "op".into(),
        mask: 0x7f,
        value: 0,
    };
    assert!(masked.accepts(Scalar::Signed(128), 0)); // FUTEX_WAIT | PRIVATE
    assert!(!masked.accepts(Scalar::Signed(129), 0));
    assert!(masked.accepts(Scalar::Unsigned(256), 0));
    assert!(!masked.accepts(Scalar::Float(0.0), 0));
    let big = Int {
        field: "p".into(),
        value: u64::MAX as i128,
    };
    assert!(big.accepts(Scalar::Unsigned(u64::MAX), 0));
    assert!(!big.accepts(Scalar::Signed(-1), 0));
    let neg = Int {
        field: "p".into(),
        value: -1,
    };
    assert!(neg.accepts(Scalar::Signed(-1), 0));
    assert!(!neg.accepts(Scalar::Unsigned(u64::MAX), 0));
    let tid = Tid {
        field: "tid".into(),
    };
    assert!(tid.accepts(Scalar::Signed(42), 42) && tid.accepts(Scalar::Unsigned(42), 42));
    assert!(!tid.accepts(Scalar::Signed(41), 42));
    let s = Str {
        field: "comm".into(),
        value: "rt".into(),
    };
    assert!(s.accepts(Scalar::Str(b"rt"), 0) && !s.accepts(Scalar::Str(b"rt2"), 0));
}

#[test]
fn different_tids_resolves_threads() {
    let m = parse_model(
        r#"{ "name": "worker", "mode": "different_tids",
             "threads": { "process": "^rt_" },
             "start": { "name": "sched_process_fork", "fields": { "child_tid": "$tid" } },
             "end": { "name": "sched_process_exit", "fields": { "tid": "$tid" } },
             "end_threads": { "tids": [7] },
             "chained": true, "deadline": 5 }"#,
    )
    .unwrap();
    let Mode::DifferentTids {
        start,
        end,
        start_threads,
        end_threads,
        chained,
    } = &m.mode
    else {
        panic!()
    };
    assert!(*chained);
    assert_eq!(start.tid_field(), Some("child_tid"));
    assert_eq!(end.tid_field(), Some("tid"));
    assert_eq!(start_threads.process.as_ref().unwrap().as_str(), "^rt_");
    assert!(start_threads.tids.is_none());
    assert!(end_threads.process.is_none());
    assert!(end_threads.matches(7, "x") && !end_threads.matches(8, "rt_x"));
    roundtrip(&m);
    // chained defaults to false
    let m = parse_model(
        r#"{"name":"w","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"}}"#,
    )
    .unwrap();
    assert!(matches!(m.mode, Mode::DifferentTids { chained: false, .. }));
    roundtrip(&m);
}

#[test]
fn nested_model() {
    let m = parse_model(
        r#"{ "name": "job", "events": [ {"name": "a"}, {"name": "b"} ],
             "nested": { "name": "lock", "mode": "same_tid", "deadline": 10,
                         "events": [ {"name": "syscall_entry_futex"}, {"name": "syscall_exit_futex"} ] } }"#,
    )
    .unwrap();
    let Mode::SameTid {
        nested: Some(n), ..
    } = &m.mode
    else {
        panic!()
    };
    assert_eq!(n.name, "lock");
    assert_eq!(n.deadline, Some(10));
    assert_eq!(n.events.len(), 2);
    roundtrip(&m);
}

#[test]
fn presets() {
    for (name, desc) in Preset::all() {
        let p: Preset = name.parse().unwrap();
        assert_eq!(p.name(), *name);
        assert_eq!(p.to_string(), *name);
        assert_eq!(p.description(), *desc);
    }
    assert_eq!(
        "periodc".parse::<Preset>().unwrap_err().to_string(),
        "preset: unknown preset \"periodc\", expected one of whole-thread, running, blocking, periodic, task-instance"
    );
    for p in [
        Preset::WholeThread,
        Preset::Running,
        Preset::Blocking,
        Preset::TaskInstance,
    ] {
        assert!(p.model(ThreadFilter::default()).is_none());
    }
    let threads = ThreadFilter {
        tids: None,
        process: Some(Regex::new("^rt_high$").unwrap()),
    };
    let m = Preset::Periodic.model(threads.clone()).unwrap();
    let Mode::SameTid {
        threads: t,
        events,
        nested: None,
    } = &m.mode
    else {
        panic!()
    };
    assert_eq!(*t, threads);
    assert_eq!(events[0].name, "syscall_exit_clock_nanosleep");
    assert_eq!(events[1].name, "syscall_entry_clock_nanosleep");
    roundtrip(&m);
}

/// Each error: where, and what.
#[test]
fn error_messages() {
    let cases: &[(&str, &str)] = &[
        // syntax and types, through serde_path_to_error
        (
            r#"{"name":"x","mode":"sametid","events":[{"name":"a"}]}"#,
            "mode: unknown variant \"sametid\", expected one of same_tid, different_tids (line 1, column 28)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadine":5}"#,
            "deadine: unknown field (expected one of name, description, mode, threads, events, start, end, \
             start_threads, end_threads, time_range, max_executions, chained, nested, deadline)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","feilds":{}}]}"#,
            "events[0].feilds: unknown field (expected name or fields)",
        ),
        (r#"{"events":[{"name":"a"}]}"#, "name: required field is missing"),
        (
            r#"{"name":"x","events":[{"fields":{}}]}"#,
            "events[0].name: required field is missing",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"prio":1.5}}]}"#,
            "events[0].fields.prio: expected an integer or a string, found floating point \"1.5\" (line 1, column 54)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"prio":1,"prio":2}}]}"#,
            "events[0].fields: key \"prio\" is written twice (line 1, column 59)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":null}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found null (line 1, column 51)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"max_executions":-1}"#,
            "max_executions: expected an integer, 0 or more, found integer \"-1\" (line 1, column 55)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":["12"]}}"#,
            "threads.tids[0]: expected an integer, found string \"12\" (line 1, column 59)",
        ),
        ("[1]", "(root): expected an object, found an array (line 1, column 0)"),
        (
            r#"{"name":"x","events":[["a"]]}"#,
            "events[0]: expected an object, found an array (line 1, column 22)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}]} x"#,
            "(root): trailing characters (line 1, column 38)",
        ),
        (
            r#"{"name":"x","#,
            "(root): EOF while parsing a value (line 1, column 12)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a",}]}"#,
            "events[0]: trailing comma (line 1, column 35)",
        ),
        // semantic checks
        (r#"{"name":" ","events":[{"name":"a"}]}"#, "name: must not be empty"),
        (r#"{"name":"x"}"#, "events: required in mode same_tid"),
        (r#"{"name":"x","events":[]}"#, "events: must list at least one event"),
        (r#"{"name":"x","events":[{"name":""}]}"#, "events[0].name: must not be empty"),
        (
            r#"{"name":"x","events":[{"name":"a"},{"name":"b","fields":{"flags&x":1}}]}"#,
            "events[1].fields.flags&x: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&0x":1}}]}"#,
            "events[0].fields.flags&0x: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&99999999999999999999":1}}]}"#,
            "events[0].fields.flags&99999999999999999999: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"&3":1}}]}"#,
            "events[0].fields.&3: field name missing before '&'",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&0":0}}]}"#,
            "events[0].fields.flags&0: mask is 0: the test would not read the field",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":4}}]}"#,
            "events[0].fields.flags&3: value 0x4 has bits outside mask 0x3: it would never match",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":-1}}]}"#,
            "events[0].fields.flags&3: a masked value must be a non-negative integer",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":"$tid"}}]}"#,
            "events[0].fields.flags&3: a masked value must be an integer, not a string",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"flags&3":1,"flags&0x3":1}}]}"#,
            "events[0].fields.flags&0x3: the same field and mask are already constrained",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"prev tid":1}}]}"#,
            "events[0].fields.prev tid: not a field name: letters, digits and '_', not starting with a digit \
             (a mask is written \"field&mask\", e.g. \"flags&0x3\")",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"tid":"$TID"}}]}"#,
            "events[0].fields.tid: unknown variable \"$TID\": the only variable is \"$tid\"",
        ),
        (
            r#"{"name":"x","events":[{"name":"a","fields":{"tid":"$tid","next_tid":"$tid"}}]}"#,
            "events[0].fields.next_tid: only one field of an event can be \"$tid\" (\"tid\" already is)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"process":"^rt_("}}"#,
            "threads.process: invalid regular expression: unclosed group",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":[]}}"#,
            "threads.tids: empty: no thread would match (leave \"tids\" out to accept every thread)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"threads":{"tids":[1,-1]}}"#,
            "threads.tids[1]: a thread id is not negative",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"chained":true}"#,
            "chained: only meaningful in mode different_tids (the end event starting the next execution); \
             a same_tid execution always starts at its first event (mode defaults to same_tid)",
        ),
        (
            r#"{"name":"x","mode":"same_tid","events":[{"name":"a"}],"chained":false}"#,
            "chained: only meaningful in mode different_tids (the end event starting the next execution); \
             a same_tid execution always starts at its first event",
        ),
        (
            r#"{"name":"x","start":{"name":"a"},"end":{"name":"b"}}"#,
            "start: only used in mode different_tids; same_tid models list their \"events\" (mode defaults to same_tid)",
        ),
        (
            r#"{"name":"x","mode":"different_tids","start":{"name":"a"}}"#,
            "end: required in mode different_tids",
        ),
        (
            r#"{"name":"x","mode":"different_tids","end":{"name":"a"}}"#,
            "start: required in mode different_tids",
        ),
        (
            r#"{"name":"x","mode":"different_tids","events":[{"name":"a"}]}"#,
            "events: not used in mode different_tids: give one \"start\" and one \"end\" event",
        ),
        (
            r#"{"name":"x","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"},
                "nested":{"name":"n","events":[{"name":"c"}]}}"#,
            "nested: only a same_tid model can have a nested model",
        ),
        (
            r#"{"name":"x","mode":"different_tids","start":{"name":"a"},"end":{"name":"b"},
                "end_threads":{"process":"("}}"#,
            "end_threads.process: invalid regular expression: unclosed group",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],
                "nested":{"name":"m","events":[{"name":"d"}]}}}"#,
            "nested.nested: not allowed in a nested model: models nest one level only",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","mode":"different_tids",
                "start":{"name":"c"},"end":{"name":"d"}}}"#,
            "nested.mode: a nested model is same_tid only",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],
                "threads":{"tids":[1]}}}"#,
            "nested.threads: not allowed in a nested model: a nested model runs on its parent's thread",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c","fields":{"a&z":1}}]}}"#,
            "nested.events[0].fields.a&z: mask is not an integer (decimal or 0x hexadecimal, at most 64 bits)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],"deadline":0}}"#,
            "nested.deadline: expected a positive duration such as 1000000 (ns), \"1ms\" or \"250us\", found 0",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":-5}"#,
            "deadline: expected a positive duration such as 1000000 (ns), \"1ms\" or \"250us\", found -5",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"max_executions":0}"#,
            "max_executions: must be a positive integer",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"time_range":{"start":10,"end":9}}"#,
            "time_range: start (10) is after end (9)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"time_range":{"begin":10}}"#,
            "time_range.begin: unknown field (expected start or end)",
        ),
        // times: integers of ns, or a number and a unit
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":"1 ms s"}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found \"1 ms s\" (line 1, column 55)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":"1000"}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found \"1000\" (line 1, column 53)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":1.5}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found floating point \"1.5\" (line 1, column 50)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":"1.0000005ms"}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found \"1.0000005ms\" (finer than a nanosecond) (line 1, column 60)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":"0ms"}"#,
            "deadline: expected a positive duration such as 1000000 (ns), \"1ms\" or \"250us\", found 0",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"nested":{"name":"n","events":[{"name":"c"}],"deadline":"2 days"}}"#,
            "nested.deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found \"2 days\" (line 1, column 100)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"time_range":{"start":"1.5x"}}"#,
            "time_range.start: expected a time on the trace clock such as 1500000000 (ns), \"1.5s\" or \"250ms\", found \"1.5x\" (line 1, column 64)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"time_range":{"start":"2s","end":"1500ms"}}"#,
            "time_range: start (2000000000) is after end (1500000000)",
        ),
        (
            r#"{"name":"x","events":[{"name":"a"}],"deadline":9223372036854775808}"#,
            "deadline: expected a duration such as 1000000 (ns), \"1ms\" or \"250us\", found 9223372036854775808 (too large) (line 1, column 66)",
        ),
    ];
    let mut wrong = Vec::new();
    for (json, want) in cases {
        let got = err(json);
        if got != *want {
            wrong.push(format!("{json}\n  got: {got}\n want: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn errors_from_value_have_paths_too() {
    let v: Value = serde_json::from_str(r#"{"name":"x","mode":"different_tids","start":{"name":"a","fields":{"x":true}},"end":{"name":"b"}}"#).unwrap();
    assert_eq!(
        model_from_value(&v).unwrap_err().to_string(),
        "start.fields.x: expected an integer or a string, found boolean \"true\""
    );
}

#[test]
fn times_take_units() {
    let m = parse_model(
        r#"{"name":"x","events":[{"name":"a"}],"deadline":"1.5ms",
            "time_range":{"start":"2s","end":"2500ms"},
            "nested":{"name":"n","events":[{"name":"c"}],"deadline":"250us"}}"#,
    )
    .unwrap();
    assert_eq!(m.deadline, Some(1_500_000));
    assert_eq!(
        m.time_range,
        Some(TimeRange {
            start: Some(2_000_000_000),
            end: Some(2_500_000_000)
        })
    );
    let Mode::SameTid {
        nested: Some(n), ..
    } = &m.mode
    else {
        panic!("{m:?}")
    };
    assert_eq!(n.deadline, Some(250_000));
    for (written, ns) in [
        ("\"1ms\"", 1_000_000),
        ("\"100ns\"", 100),
        ("\"2s\"", 2_000_000_000),
        ("1000", 1000),
    ] {
        let m = parse_model(&format!(
            r#"{{"name":"x","events":[{{"name":"a"}}],"deadline":{written}}}"#
        ))
        .unwrap();
        assert_eq!(m.deadline, Some(ns), "{written}");
    }
    // Written back in ns, so that a model keeps one canonical JSON (the
    // store's key) however its times were written.
    assert_eq!(m.to_json()["deadline"], 1_500_000);
    roundtrip(&m);
}
