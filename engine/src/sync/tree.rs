//! From pair corrections to one timeline: the hosts and their usable
//! pairs form a graph; the reference is the smallest host identifier in it
//! (Trace Compass's choice), and each host's correction is the chain of
//! pair corrections along a breadth-first path from the reference, so
//! hosts that never talked to the reference directly are still placed.

use std::collections::VecDeque;

use super::{Correction, Pair};

/// The reference host (`None` when no pair is usable) and, per host, its
/// correction onto the reference's clock (`None` for a host no usable pair
/// reaches).
pub fn chain(ids: &[String], pairs: &[Pair]) -> (Option<usize>, Vec<Option<Correction>>) {
    let usable: Vec<&Pair> = pairs.iter().filter(|p| p.quality.usable()).collect();
    let root = usable
        .iter()
        .flat_map(|p| [p.reference, p.other])
        .min_by(|a, b| ids[*a].cmp(&ids[*b]));
    let mut placed = vec![None; ids.len()];
    let Some(root) = root else {
        return (None, placed);
    };
    placed[root] = Some(Correction::IDENTITY);
    let mut queue = VecDeque::from([root]);
    while let Some(at) = queue.pop_front() {
        let here = placed[at].unwrap_or(Correction::IDENTITY);
        for p in &usable {
            // The pair's correction takes the other host onto the reference.
            let (next, step) = if p.reference == at {
                (p.other, p.correction)
            } else if p.other == at {
                (p.reference, p.correction.inverse())
            } else {
                continue;
            };
            if placed[next].is_none() {
                placed[next] = Some(here.after(&step));
                queue.push_back(next);
            }
        }
    }
    (Some(root), placed)
}
