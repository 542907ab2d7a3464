//! The names nearest to one a user wrote, for "did you mean" hints.

/// Edits (insert, delete, substitute a character) from `a` to `b`.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The candidate that is surely what `written` meant: a few edits away
/// (one per four characters, at most three), or `written` cut short.
pub(super) fn meant<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let allowed = (written.chars().count() / 4).clamp(1, 3);
    candidates
        .into_iter()
        .map(|c| (distance(written, c), c))
        .filter(|&(d, c)| d <= allowed || (written.len() >= 3 && c.starts_with(written)))
        .min()
        .map(|(_, c)| c)
}

/// The `n` candidates nearest to `written`, nearest first: those holding it
/// whole (`mq_timedsend` in `syscall_entry_mq_timedsend`), then by edits
/// (ties in the candidates' order).
pub(super) fn nearest<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let mut scored: Vec<(bool, usize, usize, &str)> = candidates
        .into_iter()
        .enumerate()
        .map(|(i, c)| (!c.contains(written), distance(written, c), i, c))
        .collect();
    scored.sort_unstable();
    scored.into_iter().take(n).map(|(.., c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("nanoslep", "nanosleep"), 1);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn a_misspelt_name_finds_what_was_meant() {
        let names = [
            "syscall_entry_clock_nanosleep",
            "syscall_exit_clock_nanosleep",
            "sched_switch",
        ];
        assert_eq!(
            meant("syscall_exit_clock_nanoslep", names),
            Some("syscall_exit_clock_nanosleep")
        );
        assert_eq!(meant("sched_swich", names), Some("sched_switch"));
        assert_eq!(meant("sched_sw", names), Some("sched_switch"));
        assert_eq!(meant("irq_handler_entry", names), None);
        assert_eq!(nearest("sched_wakeup", names, 1), vec!["sched_switch"]);
        assert_eq!(
            nearest("clock_nanosleep", names, 2),
            vec![
                "syscall_exit_clock_nanosleep",
                "syscall_entry_clock_nanosleep"
            ]
        );
    }
}
