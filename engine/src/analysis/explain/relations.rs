//! Threads related to the analysed one in a range: directly (it woke them,
//! they woke it, one forked the other) or indirectly (through a chain of such
//! interactions). Components come from a union-find with union by size and
//! path halving: O(n log n + m) at worst for n threads and m edges, near
//! linear in practice.
//!
//! `tie` finds how two threads (the start and end threads of a
//! different-TIDs execution) are connected: the shortest chain of creations
//! and wake-ups between them.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::graph::{Context, Graph};

/// Disjoint sets over dense indices.
#[derive(Debug, Default)]
pub struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    pub fn add(&mut self) -> usize {
        let i = self.parent.len();
        self.parent.push(i);
        self.size.push(1);
        i
    }

    pub fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Merges the sets of `a` and `b`, the smaller under the larger, so a
    /// tree's height stays logarithmic.
    pub fn union(&mut self, a: usize, b: usize) {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        if self.size[ra] < self.size[rb] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb] = ra;
        self.size[ra] += self.size[rb];
    }

    pub fn set_size(&mut self, i: usize) -> usize {
        let r = self.find(i);
        self.size[r]
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Relations {
    /// Threads that interacted with the analysed one, by tid.
    pub direct: Vec<i64>,
    /// Threads connected to it only through others, by tid.
    pub indirect: Vec<i64>,
}

/// One interaction between two threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub ts: i64,
    /// The creator or the waker.
    pub from: i64,
    /// The created or woken thread.
    pub to: i64,
    pub how: How,
}

/// Creations first: of two interactions at one instant (a fork and the
/// new thread's wake-up), the creation says more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    Created,
    Woke,
}

/// Every thread-to-thread interaction of the graph: wake-ups in the range,
/// creations since the replay's start.
fn edges(graph: &Graph) -> impl Iterator<Item = Edge> + '_ {
    graph
        .wakeups()
        .filter_map(|w| match w.waker {
            Context::Thread { tid } => Some(Edge {
                ts: w.ts,
                from: tid,
                to: w.wakee,
                how: How::Woke,
            }),
            _ => None,
        })
        .chain(graph.creations.values().map(|f| Edge {
            ts: f.ts,
            from: f.parent,
            to: f.child,
            how: How::Created,
        }))
        .filter(|e| e.from != e.to && e.from > 0 && e.to > 0)
}

/// The shortest chain of interactions from `a` to `b` (in the order walked
/// from `a`), `None` when they are not connected; empty when `a == b`.
/// Among chains of one length, the one found first in time order of the
/// edges.
pub fn tie(graph: &Graph, a: i64, b: i64) -> Option<Vec<Edge>> {
    if a == b {
        return Some(Vec::new());
    }
    let mut all: Vec<Edge> = edges(graph).collect();
    all.sort_by_key(|e| (e.ts, e.how, e.from, e.to));
    let mut adjacent: HashMap<i64, Vec<usize>> = HashMap::default();
    for (i, e) in all.iter().enumerate() {
        adjacent.entry(e.from).or_default().push(i);
        adjacent.entry(e.to).or_default().push(i);
    }
    // Breadth first from `a`; `came` holds the edge each thread was reached by.
    let mut came: HashMap<i64, Option<usize>> = HashMap::default();
    came.insert(a, None);
    let mut queue = VecDeque::from([a]);
    while let Some(t) = queue.pop_front() {
        if t == b {
            break;
        }
        for &i in adjacent.get(&t).map_or(&[][..], |v| v.as_slice()) {
            let e = all[i];
            let other = if e.from == t { e.to } else { e.from };
            if let std::collections::hash_map::Entry::Vacant(v) = came.entry(other) {
                v.insert(Some(i));
                queue.push_back(other);
            }
        }
    }
    came.get(&b)?;
    let mut chain = Vec::new();
    let mut t = b;
    while let Some(Some(i)) = came.get(&t) {
        let e = all[*i];
        chain.push(e);
        t = if e.from == t { e.to } else { e.from };
    }
    chain.reverse();
    Some(chain)
}

/// The relations of `tid` through the wake-ups and forks of `graph`, and
/// through `extra` interactions (its creation, a tie to another thread).
pub fn relations(graph: &Graph, tid: i64, extra: &[Edge]) -> Relations {
    let mut index: HashMap<i64, usize> = HashMap::default();
    let mut tids: Vec<i64> = Vec::new();
    let mut uf = UnionFind::default();
    let mut node = |t: i64, uf: &mut UnionFind| {
        *index.entry(t).or_insert_with(|| {
            tids.push(t);
            uf.add()
        })
    };
    let me = node(tid, &mut uf);
    let mut direct: Vec<i64> = Vec::new();
    let thread_edges = graph
        .wakeups()
        .filter_map(|w| match w.waker {
            Context::Thread { tid: waker } => Some((waker, w.wakee)),
            _ => None,
        })
        .chain(graph.forks.iter().map(|f| (f.parent, f.child)))
        .chain(extra.iter().map(|e| (e.from, e.to)));
    for (a, b) in thread_edges {
        if a == b || a <= 0 || b <= 0 {
            continue;
        }
        let (ia, ib) = (node(a, &mut uf), node(b, &mut uf));
        uf.union(ia, ib);
        if a == tid {
            direct.push(b);
        } else if b == tid {
            direct.push(a);
        }
    }
    direct.sort_unstable();
    direct.dedup();
    let root = uf.find(me);
    let mut indirect: Vec<i64> = tids
        .iter()
        .enumerate()
        .filter(|&(i, t)| *t != tid && uf.find(i) == root && direct.binary_search(t).is_err())
        .map(|(_, t)| *t)
        .collect();
    indirect.sort_unstable();
    Relations { direct, indirect }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::explain::graph::{Fork, Line, Wakeup};

    #[test]
    fn union_by_size_and_find() {
        let mut uf = UnionFind::default();
        let n: Vec<usize> = (0..6).map(|_| uf.add()).collect();
        uf.union(n[0], n[1]);
        uf.union(n[2], n[3]);
        uf.union(n[3], n[4]);
        assert_eq!(uf.find(n[0]), uf.find(n[1]));
        assert_ne!(uf.find(n[0]), uf.find(n[2]));
        assert_eq!(uf.set_size(n[4]), 3);
        // The smaller set goes under the larger one's root.
        let big = uf.find(n[2]);
        uf.union(n[0], n[4]);
        assert_eq!(uf.find(n[1]), big);
        assert_eq!(uf.set_size(n[0]), 5);
        assert_eq!(uf.set_size(n[5]), 1);
    }

    #[test]
    fn direct_and_indirect() {
        // 2 wakes 1, 1 forks 3, 4 wakes 2, 5 wakes 6 (unrelated), an
        // interrupt wakes 7 (no thread edge).
        let mut g = Graph::default();
        let mut wake = |waker: Context, wakee: i64| {
            g.lines
                .entry(wakee)
                .or_insert_with(Line::default)
                .wakeups
                .push(Wakeup {
                    ts: 1,
                    wakee,
                    waker,
                    cpu: None,
                    since: None,
                    timer: None,
                });
        };
        wake(Context::Thread { tid: 2 }, 1);
        wake(Context::Thread { tid: 4 }, 2);
        wake(Context::Thread { tid: 5 }, 6);
        wake(Context::Irq { irq: 3 }, 7);
        g.forks.push(Fork {
            ts: 2,
            parent: 1,
            child: 3,
        });
        let r = relations(&g, 1, &[]);
        assert_eq!(r.direct, vec![2, 3]);
        assert_eq!(r.indirect, vec![4]);
        assert_eq!(relations(&g, 7, &[]), Relations::default());
    }

    #[test]
    fn tie_through_the_creator() {
        // 10 created 1 (before the range) and 2; 2 woke 3.
        let mut g = Graph::default();
        for (ts, child) in [(5, 1), (50, 2)] {
            g.creations.insert(
                child,
                Fork {
                    ts,
                    parent: 10,
                    child,
                },
            );
        }
        g.lines.entry(3).or_default().wakeups.push(Wakeup {
            ts: 60,
            wakee: 3,
            waker: Context::Thread { tid: 2 },
            cpu: None,
            since: None,
            timer: None,
        });
        let chain = tie(&g, 1, 3).expect("tied");
        let got: Vec<(i64, i64, How)> = chain.iter().map(|e| (e.from, e.to, e.how)).collect();
        assert_eq!(
            got,
            vec![
                (10, 1, How::Created),
                (10, 2, How::Created),
                (2, 3, How::Woke)
            ]
        );
        assert_eq!(tie(&g, 1, 1), Some(vec![]));
        assert_eq!(tie(&g, 1, 99), None);
        // The creation from before the range relates 1 to 10 when given.
        let c = g.creations[&1];
        let extra = [Edge {
            ts: c.ts,
            from: c.parent,
            to: c.child,
            how: How::Created,
        }];
        assert_eq!(relations(&g, 1, &extra).direct, vec![10]);
        assert_eq!(relations(&g, 1, &[]).direct, Vec::<i64>::new());
    }
}
