//! Issue 27, deliver 2: where the trace lost events, explain says what ran
//! is unknown ("unknown (the trace lost N events here)", kind `lost` in
//! JSON), never "no thread ran" or a holder the lost events could
//! contradict, in the causes or in who ran (the complement's `running`,
//! which lists the window under `lost` instead).
//!
//! The loss is made the way ftrace reports one: in a copy of
//! fixtures/scenario-d's ftrace text (written in a temporary directory),
//! every line of one CPU inside the middle half of an interval where the
//! rogue held that CPU from the path is deleted, and `CPU:N [LOST k EVENTS]`
//! is put before the first line of that half, as the kernel prints it
//! before the CPU's next event. Expectations come from the text of the
//! copy, not from sextant: the window spans at least that half and at most
//! the time between the CPU's events around the marker.

mod common;

use std::path::{Path, PathBuf};

use common::seed::{executions, explain, SEED_MODEL};
use common::{copy_into, repo_root, sextant, TempDir};
use serde_json::Value;

fn fixture() -> PathBuf {
    repo_root().join("fixtures/scenario-d/trace.txt")
}

/// CPU and time (ns) of an ftrace event line.
fn cpu_ts(line: &str) -> Option<(u32, i64)> {
    let open = line.find("] ")?;
    let cpu_at = line[..open].rfind('[')?;
    let cpu: u32 = line[cpu_at + 1..open].parse().ok()?;
    let rest = &line[open + 2..];
    let colon = rest.find(": ")?;
    let ts = rest[..colon].split_whitespace().last()?;
    let (s, us) = ts.split_once('.')?;
    Some((
        cpu,
        s.parse::<i64>().ok()? * 1_000_000_000 + us.parse::<i64>().ok()? * 1_000,
    ))
}

/// The made loss: its CPU, the events the marker says were lost, and the
/// CPU's events just before and after the marker.
struct Made {
    cpu: u32,
    count: usize,
    before: i64,
    after: i64,
}

/// `trace` copied to `dir` without `cpu`'s lines in [from, to] and a lost
/// marker before the first line (of any CPU) at or after `from`. A CPU
/// running one spinning thread prints nothing, so the marker counts the
/// lines deleted and 100 events besides.
fn lose(trace: &Path, cpu: u32, from: i64, to: i64, dir: &Path) -> (PathBuf, Made) {
    let text = std::fs::read_to_string(trace).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let of_cpu = |l: &str| cpu_ts(l).filter(|(c, _)| *c == cpu).map(|(_, t)| t);
    let gone: Vec<usize> = (0..lines.len())
        .filter(|&i| of_cpu(lines[i]).is_some_and(|t| from <= t && t <= to))
        .collect();
    let at = (0..lines.len())
        .find(|&i| cpu_ts(lines[i]).is_some_and(|(_, t)| t >= from))
        .unwrap();
    let before = lines[..at].iter().rev().find_map(|l| of_cpu(l)).unwrap();
    let after = (at..lines.len())
        .filter(|i| !gone.contains(i))
        .find_map(|i| of_cpu(lines[i]))
        .unwrap();
    let made = Made {
        cpu,
        count: gone.len() + 100,
        before,
        after,
    };
    let mut out = String::with_capacity(text.len());
    for (i, l) in lines.iter().enumerate() {
        if i == at {
            out.push_str(&format!("CPU:{cpu} [LOST {} EVENTS]\n", made.count));
        }
        if !gone.contains(&i) {
            out.push_str(l);
        }
    }
    let dst = dir.join("trace.txt");
    std::fs::write(&dst, out).unwrap();
    (dst, made)
}

/// The first interval of the path's complement where one thread held a CPU
/// for over 1 ms: (CPU, start, end of that run's interval, runner tid).
fn held_interval(doc: &Value) -> Option<(u32, i64, i64, i64)> {
    doc["complement"].as_array()?.iter().find_map(|h| {
        let run = h["running"]
            .as_array()?
            .iter()
            .find(|r| r["held"] == true && r["duration"].as_i64().unwrap_or(0) > 1_000_000)?;
        Some((
            run["cpu"].as_u64()? as u32,
            h["start"].as_i64()?,
            h["end"].as_i64()?,
            run["tid"].as_i64()?,
        ))
    })
}

fn cost_of(doc: &Value, kind: &str) -> i64 {
    doc["causes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| c["cost"].as_i64().unwrap())
        .sum()
}

/// An execution explained on the recording and on a copy that lost events
/// in the middle half of a wait where one thread held the path's CPU.
struct Lossy {
    /// Keep the temporary directories while the copy is read.
    _dirs: (TempDir, TempDir),
    copy: PathBuf,
    /// The execution's index in the copy.
    index: usize,
    /// Its explanation on the recording, and on the copy.
    doc: Value,
    lost_doc: Value,
    made: Made,
    /// The held wait: [s, e), and the middle half whose CPU lines are gone.
    s: i64,
    e: i64,
    half: (i64, i64),
}

/// `name`: the test's, for its own temporary directories.
fn lossy(name: &str) -> Lossy {
    let dir = TempDir::new(name);
    let original = copy_into(&fixture(), dir.path());
    // The longest execution whose path waited over 1 ms for a CPU held by
    // one thread (the rogue, in this scenario).
    let mut all = executions(&original);
    all.sort_by_key(|x| -x.3);
    let (index, start, doc, (cpu, s, e, holder)) = all
        .iter()
        .find_map(|&(index, start, _, _)| {
            let doc = explain(&original, index);
            held_interval(&doc).map(|h| (index, start, doc, h))
        })
        .expect("an execution held back over 1 ms");
    let quarter = (e - s) / 4;
    let half = (s + quarter, e - quarter);
    let copies = TempDir::new(&format!("{name}-copy"));
    let (copy, made) = lose(&original, cpu, half.0, half.1, copies.path());
    println!(
        "execution {index}: CPU {cpu} held by {holder} over [{s}, {e}]; CPU {} lost {} events in [{}, {}] (its events around the marker: {}, {})",
        made.cpu, made.count, half.0, half.1, made.before, made.after
    );
    let again = executions(&copy);
    let same = again
        .iter()
        .find(|x| x.1 == start)
        .expect("the same execution in the copy");
    let lost_doc = explain(&copy, same.0);
    Lossy {
        _dirs: (dir, copies),
        copy,
        index: same.0,
        doc,
        lost_doc,
        made,
        s,
        e,
        half,
    }
}

/// `explain --format text` of the copy's execution.
fn explain_text(l: &Lossy) -> String {
    let out = sextant(&[
        "explain",
        l.copy.to_str().unwrap(),
        "--model",
        SEED_MODEL,
        "--execution",
        &l.index.to_string(),
        "--format",
        "text",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_loss_on_the_held_cpu_is_unknown_not_idle() {
    let l = lossy("explain-lost");
    let (doc, lost_doc, made, s, e) = (&l.doc, &l.lost_doc, &l.made, l.s, l.e);
    let cpu = made.cpu;
    let lost: Vec<&Value> = lost_doc["causes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "lost")
        .collect();
    assert_eq!(lost.len(), 1, "one loss window: {:#?}", lost_doc["causes"]);
    let c = lost[0];
    assert_eq!(c["events"], made.count as u64, "{c}");
    assert_eq!(c["cpu"], cpu, "{c}");
    let text = c["text"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            "unknown (the trace lost {} events here)",
            made.count
        )),
        "{text}"
    );
    // The window holds at least the middle half of the wait (where the
    // CPU's lines are gone) and at most the span between the CPU's events
    // around the marker.
    let cost = c["cost"].as_i64().unwrap();
    let inside = |a: i64, b: i64| (b.min(e) - a.max(s)).max(0);
    assert!(
        cost >= inside(l.half.0, l.half.1) && cost <= inside(made.before, made.after),
        "lost cost {cost} ns, middle half {} ns, window at most {} ns",
        inside(l.half.0, l.half.1),
        inside(made.before, made.after)
    );
    // Nothing of the window became "no thread ran".
    assert!(
        cost_of(lost_doc, "idle_cpu") <= cost_of(doc, "idle_cpu"),
        "idle grew from {} to {} ns",
        cost_of(doc, "idle_cpu"),
        cost_of(lost_doc, "idle_cpu")
    );
    // The text says it too.
    let stdout = explain_text(&l);
    println!("{stdout}");
    assert!(
        stdout.contains(&format!("(the trace lost {} events here)", made.count)),
        "{stdout}"
    );
}

/// Who ran while the path waited: inside the loss window the trace does
/// not show who held the CPU, so no thread is listed as running there
/// (the model's states are no evidence then), and the window is listed
/// as unknown, in the JSON and in the text.
#[test]
fn who_ran_names_nobody_inside_a_loss_window() {
    let l = lossy("explain-lost-who-ran");
    let made = &l.made;
    let inside = |(a, b): (i64, i64), (s, e): (i64, i64)| (b.min(e) - a.max(s)).max(0);
    let mut windows = Vec::new();
    for h in l.lost_doc["complement"].as_array().unwrap() {
        let span = (h["start"].as_i64().unwrap(), h["end"].as_i64().unwrap());
        let gone = inside(l.half, span);
        if gone == 0 || h["cpu"] != made.cpu {
            continue;
        }
        // Who ran on the CPU it waited for, as stated, fits outside the
        // part of the interval whose events were lost.
        let ran: i64 = h["running"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["cpu"] == made.cpu)
            .map(|r| r["duration"].as_i64().unwrap())
            .sum();
        assert!(
            ran <= (span.1 - span.0) - gone,
            "{} ({}) waited over [{}, {}]: explain lists {ran} ns of threads running on CPU {}, \
             but the trace lost that CPU's events over {gone} ns of it: {:#}",
            h["path_comm"],
            h["path_tid"],
            span.0,
            span.1,
            made.cpu,
            h["running"]
        );
        let parts: Vec<(i64, i64)> = h["lost"]
            .as_array()
            .expect("lost[] in each interval")
            .iter()
            .map(|u| {
                assert_eq!(u["cpu"], made.cpu, "{u}");
                assert_eq!(u["events"], made.count as u64, "{u}");
                (u["start"].as_i64().unwrap(), u["end"].as_i64().unwrap())
            })
            .collect();
        let listed: i64 = parts.iter().map(|w| inside(*w, span)).sum();
        assert!(
            listed >= gone,
            "the interval's lost parts cover {listed} ns of the {gone} ns lost: {parts:?}"
        );
        windows.extend(parts);
    }
    assert!(!windows.is_empty(), "no interval lists the loss");
    let stdout = explain_text(&l);
    let who_ran = stdout
        .split_once("who ran while the path waited for a CPU:")
        .and_then(|(_, rest)| rest.split_once("\nrelated threads:"))
        .map(|(section, _)| section)
        .expect("a who-ran section");
    println!("who ran:{who_ran}");
    assert!(
        who_ran.contains(&format!(
            "unknown (the trace lost {} events here)",
            made.count
        )),
        "{who_ran}"
    );
}
