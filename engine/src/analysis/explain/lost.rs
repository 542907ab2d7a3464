//! Windows where the tracer lost events: what ran on the CPU then is
//! unknown. Who ran (`complement`) lists no thread there and says the trace
//! lost events; the diagnosis says "unknown" instead of "no thread ran" or
//! naming a holder the lost switches may contradict.

use crate::event::Loss;

/// [start, end) cut at the windows of `losses` that `applies` keeps:
/// (start, end, index of the window in `losses`, or `None` outside them).
pub fn cut(
    losses: &[Loss],
    applies: impl Fn(&Loss) -> bool,
    start: i64,
    end: i64,
) -> Vec<(i64, i64, Option<usize>)> {
    let mut windows: Vec<(usize, &Loss)> = losses
        .iter()
        .enumerate()
        .filter(|(_, l)| applies(l) && l.from < end && l.to > start)
        .collect();
    windows.sort_by_key(|(_, l)| l.from);
    let mut out = Vec::new();
    let mut at = start;
    for (i, l) in windows {
        let (a, b) = (l.from.max(at), l.to.min(end));
        if b <= a {
            continue;
        }
        if a > at {
            out.push((at, a, None));
        }
        out.push((a, b, Some(i)));
        at = b;
    }
    if end > at {
        out.push((at, end, None));
    }
    out
}

/// Whether a window of `cpu` (or of no known CPU) applies to `cpus`.
pub fn on(l: &Loss, cpus: &[u32]) -> bool {
    l.cpu.is_none_or(|c| cpus.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(cpu: u32, from: i64, to: i64) -> Loss {
        Loss {
            cpu: Some(cpu),
            from,
            to,
            events: Some(10),
        }
    }

    #[test]
    fn cuts_at_the_windows_that_apply() {
        let losses = [loss(1, 20, 30), loss(0, 40, 50), loss(1, 45, 200)];
        let parts = cut(&losses, |l| on(l, &[1]), 0, 100);
        assert_eq!(
            parts,
            [
                (0, 20, None),
                (20, 30, Some(0)),
                (30, 45, None),
                (45, 100, Some(2))
            ]
        );
        let whole: i64 = parts.iter().map(|(a, b, _)| b - a).sum();
        assert_eq!(whole, 100);
        assert_eq!(cut(&[], |_| true, 5, 9), [(5, 9, None)]);
    }
}
