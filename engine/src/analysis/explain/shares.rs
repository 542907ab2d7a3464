//! Where an execution's time went, thread by thread: the critical path's
//! pieces summed per thread and state. An execution that starts on one
//! thread and ends on another (a `different_tids` model: a timer thread and
//! the worker it creates) is measured on one thread in `analyze`'s columns;
//! this says what each thread of the chain did with its part, and the parts
//! add up to the execution's duration.

use serde::Serialize;

use super::graph::Graph;
use super::path::{PathPiece, PathState};

/// One thread's part of the critical path (ns).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Share {
    pub tid: i64,
    pub comm: String,
    /// Its whole part: the sum of the states below.
    pub total: i64,
    pub running: i64,
    pub preempted: i64,
    /// Woken, waiting for a CPU.
    pub waiting: i64,
    pub blocked: i64,
    /// Nothing known (before its first scheduling event, lost events).
    pub unknown: i64,
}

/// Each thread of `path` in the order the path reaches it, with its time in
/// each state.
pub fn by_thread(path: &[PathPiece], graph: &Graph) -> Vec<Share> {
    let mut shares: Vec<Share> = Vec::new();
    for p in path {
        let k = match shares.iter().position(|s| s.tid == p.tid) {
            Some(k) => k,
            None => {
                shares.push(Share {
                    tid: p.tid,
                    comm: graph.comm(p.tid).to_string(),
                    ..Share::default()
                });
                shares.len() - 1
            }
        };
        let s = &mut shares[k];
        let d = p.end - p.start;
        s.total += d;
        *match p.state {
            PathState::Running => &mut s.running,
            PathState::Preempted => &mut s.preempted,
            PathState::WaitingCpu => &mut s.waiting,
            PathState::Blocked { .. } => &mut s.blocked,
            PathState::Unknown => &mut s.unknown,
        } += d;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::explain::path::Link;

    fn piece(tid: i64, state: PathState, start: i64, end: i64) -> PathPiece {
        PathPiece {
            tid,
            state,
            start,
            end,
            link: Link::Own,
        }
    }

    #[test]
    fn parts_per_thread_add_up_to_the_path() {
        let path = [
            piece(1, PathState::Running, 0, 10),
            piece(1, PathState::WaitingCpu, 10, 15),
            piece(2, PathState::Unknown, 15, 16),
            piece(2, PathState::Running, 16, 20),
            piece(1, PathState::Blocked { woken_by: None }, 20, 30),
            piece(2, PathState::Preempted, 30, 42),
        ];
        let shares = by_thread(&path, &Graph::default());
        assert_eq!(
            shares.iter().map(|s| (s.tid, s.total)).collect::<Vec<_>>(),
            [(1, 25), (2, 17)]
        );
        assert_eq!(
            (shares[0].running, shares[0].waiting, shares[0].blocked),
            (10, 5, 10)
        );
        assert_eq!(
            (shares[1].running, shares[1].preempted, shares[1].unknown),
            (4, 12, 1)
        );
        assert_eq!(shares.iter().map(|s| s.total).sum::<i64>(), 42);
    }
}
