//! How outputs draw: the thread-state styles every time graph of thread
//! states shares, states sampled to the viewport's resolution and written
//! as text (`DrawnRows`), and tree headers.

use serde::Serialize;
use serde_json::{json, Value};
use sextant_engine::analysis::states::Interval;
use sextant_engine::analysis::thread_table::States;
use sextant_engine::kernel::model::ThreadState;

use crate::service::filters::StateFilter;

/// What a state is drawn as: style key, name, colour.
const STATE_STYLES: [(ThreadState, &str, &str); 4] = [
    (ThreadState::Running, "Running", "#118811"),
    (ThreadState::Preempted, "Preempted", "#c86400"),
    (ThreadState::Blocked, "Blocked", "#c8c800"),
    (ThreadState::WaitingCpu, "Waiting for CPU", "#ff8c00"),
];

/// The thread-state styles: (key, name, colour).
pub fn state_styles() -> [(&'static str, &'static str, &'static str); 4] {
    STATE_STYLES.map(|(s, name, colour)| (style_key(s), name, colour))
}

/// The `styles` map of a time graph drawn with thread states.
pub fn thread_state_style_map() -> serde_json::Map<String, Value> {
    state_styles()
        .into_iter()
        .map(|(key, name, colour)| {
            let style = json!({"values": {
                "style-name": name,
                "background-color": colour,
                "height": 1.0,
                "opacity": 1.0,
            }});
            (key.to_string(), style)
        })
        .collect()
}

/// What a state is called in tooltips.
pub fn state_name(s: ThreadState) -> &'static str {
    STATE_STYLES[state_index(s)].1
}

fn style_key(s: ThreadState) -> &'static str {
    s.as_str()
}

fn state_index(s: ThreadState) -> usize {
    STATE_STYLES
        .iter()
        .position(|(x, _, _)| *x == s)
        .unwrap_or(0)
}

/// The tooltip's state at `t` of a row: its name and interval.
pub fn state_at(states: States<'_>, t: i64) -> Option<Interval> {
    states.at(t)
}

/// One state of a time-graph row as drawn. Fields in sorted order: the
/// answer is written as text straight from these (`Reply::data`).
#[derive(Debug, Serialize)]
pub struct DrawnState {
    end: i64,
    start: i64,
    style: StateStyle,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<i64>,
    #[serde(skip)]
    state: ThreadState,
}

#[derive(Debug, Serialize)]
struct StateStyle {
    #[serde(rename = "parentKey")]
    parent_key: &'static str,
    values: Empty,
}

#[derive(Debug, Serialize)]
struct Empty {}

/// A row of a states answer.
#[derive(Debug, Serialize)]
pub struct DrawnRow {
    #[serde(rename = "entryId")]
    pub entry_id: i64,
    pub states: Vec<DrawnState>,
}

/// The model of a states answer.
#[derive(Debug, Serialize)]
pub struct DrawnRows {
    pub rows: Vec<DrawnRow>,
}

/// The states of `row` overlapping `[start, end]`, at most about one per
/// `resolution` ns: a state shorter than that is merged with its short
/// neighbours into one drawn in the colour of the state that took most of it.
pub fn sample_states(states: States<'_>, start: i64, end: i64, resolution: i64) -> Vec<DrawnState> {
    // Intervals ending at `start` are drawn too (they touch the range).
    let first = states.ending_by(start.saturating_sub(1));
    let mut out = Vec::new();
    let mut group: Option<(i64, i64, [i64; 4])> = None;
    // Merged states are not tagged: the only tag a viewer knows for a state
    // drawn differently is DIMMED (1), which fades it.
    let emit = |out: &mut Vec<DrawnState>, s: i64, e: i64, state: ThreadState| {
        out.push(DrawnState {
            end: e,
            start: s,
            style: StateStyle {
                parent_key: style_key(state),
                values: Empty {},
            },
            tags: None,
            state,
        });
    };
    let flush = |out: &mut Vec<DrawnState>, g: &mut Option<(i64, i64, [i64; 4])>| {
        if let Some((s, e, time)) = g.take() {
            let dominant = (0..4).max_by_key(|&i| time[i]).unwrap_or(0);
            emit(out, s, e, STATE_STYLES[dominant].0);
        }
    };
    for iv in states.starting_at(first) {
        if iv.start > end {
            break;
        }
        let Interval {
            start: s,
            end: e,
            state,
        } = iv;
        if let Some((_, ge, _)) = group {
            if ge != s {
                flush(&mut out, &mut group);
            }
        }
        if e - s >= resolution {
            flush(&mut out, &mut group);
            emit(&mut out, s, e, state);
            continue;
        }
        let g = group.get_or_insert((s, s, [0; 4]));
        g.1 = e;
        g.2[state_index(state)] += e - s;
        if g.1 - g.0 >= resolution {
            flush(&mut out, &mut group);
        }
    }
    flush(&mut out, &mut group);
    out
}

/// `states` of the row labelled `labels` as a request's filter shows them:
/// dimmed, left out, or as they were (TSP's search and filter, `filters`).
pub fn filtered(
    states: Vec<DrawnState>,
    filter: Option<&StateFilter>,
    labels: &[&str],
) -> Vec<DrawnState> {
    let Some(f) = filter else {
        return states;
    };
    let mut texts = labels.to_vec();
    texts.push("");
    let last = texts.len() - 1;
    states
        .into_iter()
        .filter_map(|mut s| {
            texts[last] = state_name(s.state);
            s.tags = f.verdict(&texts).tags()?;
            Some(s)
        })
        .collect()
}

/// A tree's `headers` from (name, tooltip, data type).
pub fn headers<'a>(h: impl Iterator<Item = &'a (&'a str, &'a str, Option<&'a str>)>) -> Value {
    Value::Array(
        h.map(|(name, tooltip, ty)| {
            let mut v = json!({"name": name, "tooltip": tooltip});
            if let Some(t) = ty {
                v["dataType"] = json!(t);
            }
            v
        })
        .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sextant_engine::analysis::states::ThreadRow;
    use sextant_engine::analysis::thread_table::ThreadTable;

    fn row(intervals: &[(i64, i64, ThreadState)]) -> ThreadRow {
        ThreadRow {
            tid: 1,
            pid: None,
            comm: "t".into(),
            start: intervals[0].0,
            end: intervals.last().unwrap().1,
            intervals: intervals
                .iter()
                .map(|&(start, end, state)| Interval { start, end, state })
                .collect(),
        }
    }

    #[test]
    fn short_states_merge_long_ones_stay() {
        use ThreadState::*;
        let mut ivs = Vec::new();
        for i in 0..100 {
            ivs.push((i * 10, i * 10 + 7, Running));
            ivs.push((i * 10 + 7, i * 10 + 10, Blocked));
        }
        ivs.push((1000, 5000, Preempted));
        // As the index keeps them: columns.
        let table = ThreadTable::from_rows(vec![row(&ivs)]);
        let r = table.row(0).unwrap().states;
        let exact = sample_states(r, 0, 5000, 1);
        assert_eq!(exact.len(), 201);
        let coarse = sample_states(r, 0, 5000, 50);
        assert!(coarse.len() <= 5000 / 50 + 2, "{}", coarse.len());
        let last = coarse.last().unwrap();
        assert_eq!(last.start, 1000);
        assert_eq!(last.style.parent_key, "preempted");
        assert_eq!(coarse[0].style.parent_key, "running");
        // Merged states are not tagged (a viewer would fade them).
        assert!(coarse.iter().all(|s| s.tags.is_none()));
        // A search dims the states it does not match; a filter drops them.
        let search = |map| {
            let body =
                json!({"parameters": {"filter_query_parameters": {"filter_expressions_map": map}}});
            StateFilter::of(&crate::service::params::parameters(&body).unwrap())
                .unwrap()
                .unwrap()
        };
        let f = search(json!({"1": ["preempted"]}));
        let looked = filtered(sample_states(r, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert_eq!(looked.len(), coarse.len());
        assert_eq!(looked.last().unwrap().tags, None);
        assert_eq!(looked[0].tags, Some(crate::service::filters::DIMMED));
        let f = search(json!({"4": ["preempted"]}));
        let kept = filtered(sample_states(r, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert_eq!(kept.len(), 1);
        let f = search(json!({"1": ["^t$"]}));
        let row_matches = filtered(sample_states(r, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert!(row_matches.iter().all(|s| s.tags.is_none()));
        // Only the states overlapping the range.
        let some = sample_states(r, 2000, 3000, 1);
        assert_eq!(some.len(), 1);
    }
}
