//! How outputs draw: the thread-state styles every time graph of thread
//! states shares, states sampled to the viewport's resolution and written
//! as text (`DrawnRows`), and tree headers.

use serde::Serialize;
use serde_json::{json, Value};
use sextant_engine::analysis::thread_table::{Pyramid, States};
use sextant_engine::kernel::model::ThreadState;
use sextant_engine::session::viewport;
use sextant_engine::sync::Correction;

use crate::filters::StateFilter;

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

/// The states of a row overlapping `[start, end]`, at most about one per
/// `resolution` ns, as drawn (`sextant_engine::session::viewport` samples
/// them). Merged states are not tagged: the only tag a viewer knows for a
/// state drawn differently is DIMMED (1), which fades it.
pub fn sample_states(
    states: States<'_>,
    pyramid: &Pyramid<'_>,
    start: i64,
    end: i64,
    resolution: i64,
) -> Vec<DrawnState> {
    viewport::sample(states, pyramid, start, end, resolution)
        .into_iter()
        .map(|s| DrawnState {
            end: s.end,
            start: s.start,
            style: StateStyle {
                parent_key: style_key(s.state),
                values: Empty {},
            },
            tags: None,
            state: s.state,
        })
        .collect()
}

/// `states` (sampled in their trace's clock) on the experiment's timeline.
pub fn moved(mut states: Vec<DrawnState>, on: Correction) -> Vec<DrawnState> {
    if !on.is_identity() {
        for s in &mut states {
            s.start = on.apply(s.start);
            s.end = on.apply(s.end);
        }
    }
    states
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
    use sextant_engine::analysis::states::{Interval, ThreadRow};
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
        let row0 = table.row(0).unwrap();
        let (r, p) = (row0.states, &row0.pyramid);
        let exact = sample_states(r, p, 0, 5000, 1);
        assert_eq!(exact.len(), 201);
        let coarse = sample_states(r, p, 0, 5000, 50);
        assert!(coarse.len() <= 5000 / 50 + 2, "{}", coarse.len());
        let last = coarse.last().unwrap();
        assert_eq!(last.start, 1000);
        assert_eq!(last.style.parent_key, "preempted");
        assert_eq!(coarse[0].style.parent_key, "running");
        // Merged states are not tagged (a viewer would fade them).
        assert!(coarse.iter().all(|s| s.tags.is_none()));
        // A search dims the states it does not match; a filter drops them.
        let search = |map| {
            let body = json!({"parameters": {"requested_timerange": {"start": 0, "end": 1},
                "filter_query_parameters": {"filter_expressions_map": map}}});
            crate::queries::FilteredStates::parse(&body)
                .unwrap()
                .filter
                .unwrap()
        };
        let f = search(json!({"1": ["preempted"]}));
        let looked = filtered(sample_states(r, p, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert_eq!(looked.len(), coarse.len());
        assert_eq!(looked.last().unwrap().tags, None);
        assert_eq!(looked[0].tags, Some(crate::filters::DIMMED));
        let f = search(json!({"4": ["preempted"]}));
        let kept = filtered(sample_states(r, p, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert_eq!(kept.len(), 1);
        let f = search(json!({"1": ["^t$"]}));
        let row_matches = filtered(sample_states(r, p, 0, 5000, 50), Some(&f), &["t", "1"]);
        assert!(row_matches.iter().all(|s| s.tags.is_none()));
        // Only the states overlapping the range.
        let some = sample_states(r, p, 2000, 3000, 1);
        assert_eq!(some.len(), 1);
    }

    #[test]
    fn summaries_draw_as_their_intervals_would() {
        use ThreadState::*;
        // 200,000 short states in cycles of three, with a long one and a gap.
        let mut ivs = Vec::new();
        let mut t = 0;
        for i in 0..200_000i64 {
            let (state, d) = [(Running, 7), (Blocked, 2), (WaitingCpu, 1)][i as usize % 3];
            ivs.push((t, t + d, state));
            t += d;
            if i == 100_000 {
                ivs.push((t, t + 50_000, Preempted));
                t += 60_000;
            }
        }
        let table = ThreadTable::from_rows(vec![row(&ivs)]);
        let r = table.row(0).unwrap();
        assert!(r.pyramid.levels.len() >= 2);
        let plain = Pyramid::default();
        let (start, end) = (0, t);
        // Fine: no summary is shorter than a nanosecond; exact.
        let fine = |p| sample_states(r.states, p, 600_000, 620_000, 1);
        let (a, b) = (fine(&r.pyramid), fine(&plain));
        assert_eq!(a.len(), b.len());
        assert!(a
            .iter()
            .zip(&b)
            .all(|(x, y)| (x.start, x.end) == (y.start, y.end)));
        // Coarse: as many states as pixels, the long one and the gap kept,
        // and mostly running, as the intervals are.
        let resolution = (end - start) / 1000;
        let a = sample_states(r.states, &r.pyramid, start, end, resolution);
        let b = sample_states(r.states, &plain, start, end, resolution);
        for drawn in [&a, &b] {
            assert!(drawn.len() <= 1000 + 4, "{}", drawn.len());
            assert_eq!(drawn[0].start, 0);
            assert_eq!(drawn.last().unwrap().end, t);
            let long = drawn.iter().find(|s| s.state == Preempted).unwrap();
            assert_eq!(long.end - long.start, 50_000);
            assert!(drawn.windows(2).any(|w| w[1].start - w[0].end == 10_000));
            assert!(drawn.iter().filter(|s| s.state == Running).count() > drawn.len() * 9 / 10);
        }
        // A group takes whole summaries, so it may close up to a summary
        // later than one taking states: fewer, never under half as many.
        assert!(
            a.len() <= b.len() && a.len() * 2 >= b.len(),
            "{} vs {}",
            a.len(),
            b.len()
        );
    }

    #[test]
    fn summary_codes_are_the_style_order() {
        use sextant_engine::analysis::thread_table::state_of;
        for (k, (state, ..)) in STATE_STYLES.iter().enumerate() {
            assert_eq!(state_of(k as u8), Some(*state));
        }
    }
}
