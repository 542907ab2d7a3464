//! Issue 27, deliver 2: where the trace lost events, explain says what ran
//! is unknown ("unknown (the trace lost N events here)", kind `lost` in
//! JSON), never "no thread ran" or a holder the lost events could
//! contradict.
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

#[test]
fn a_loss_on_the_held_cpu_is_unknown_not_idle() {
    let dir = TempDir::new("explain-lost");
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
    let lossy = TempDir::new("explain-lost-copy");
    let (copy, made) = lose(&original, cpu, s + quarter, e - quarter, lossy.path());
    println!(
        "execution {index}: CPU {cpu} held by {holder} over [{s}, {e}]; CPU {} lost {} events in [{}, {}] (its events around the marker: {}, {})",
        made.cpu,
        made.count,
        s + quarter,
        e - quarter,
        made.before,
        made.after
    );
    let again = executions(&copy);
    let same = again
        .iter()
        .find(|x| x.1 == start)
        .expect("the same execution in the copy");
    let lost_doc = explain(&copy, same.0);
    let lost: Vec<&Value> = lost_doc["causes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "lost")
        .collect();
    assert_eq!(lost.len(), 1, "one loss window: {:#?}", lost_doc["causes"]);
    let l = lost[0];
    assert_eq!(l["events"], made.count as u64, "{l}");
    assert_eq!(l["cpu"], cpu, "{l}");
    let text = l["text"].as_str().unwrap();
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
    let cost = l["cost"].as_i64().unwrap();
    let inside = |a: i64, b: i64| (b.min(e) - a.max(s)).max(0);
    assert!(
        cost >= inside(s + quarter, e - quarter) && cost <= inside(made.before, made.after),
        "lost cost {cost} ns, middle half {} ns, window at most {} ns",
        inside(s + quarter, e - quarter),
        inside(made.before, made.after)
    );
    // Nothing of the window became "no thread ran".
    assert!(
        cost_of(&lost_doc, "idle_cpu") <= cost_of(&doc, "idle_cpu"),
        "idle grew from {} to {} ns",
        cost_of(&doc, "idle_cpu"),
        cost_of(&lost_doc, "idle_cpu")
    );
    // The text says it too.
    let out = sextant(&[
        "explain",
        copy.to_str().unwrap(),
        "--model",
        SEED_MODEL,
        "--execution",
        &same.0.to_string(),
        "--format",
        "text",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        stdout.contains(&format!("(the trace lost {} events here)", made.count)),
        "{stdout}"
    );
}
