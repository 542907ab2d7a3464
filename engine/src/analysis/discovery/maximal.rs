//! The frequent episodes as the search finds them, as a prefix tree; which
//! of them are maximal; their ranking.
//!
//! An episode the search ends on (no frequent extension at its end) is
//! maximal unless inserting one type elsewhere in it gives a frequent
//! episode: if it is a subsequence of a frequent `α`, inserting one of `α`'s
//! missing types at its place in `α` gives a subsequence of `α`, frequent too.
//! Such an insertion before the `i`-th type starts with the first `i` types
//! followed by the inserted one, so it is a node of the tree below that
//! prefix: a few walks down the tree decide.

use std::cmp::Ordering;

use super::budget::Budget;

/// Episodes tested for maximality between two looks at the clock.
const TESTS_PER_CHECK: usize = 1024;

/// Frequent episodes of dense type ids: node 0 is the empty episode, each
/// node's children (its frequent extensions by one type) are contiguous and
/// ascend by type.
#[derive(Debug)]
pub(super) struct Tree {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    ty: u32,
    first: u32,
    len: u32,
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node {
                ty: u32::MAX,
                first: 0,
                len: 0,
            }],
        }
    }

    /// Gives `n` its children, of `types` (ascending); the first child's node.
    pub fn add_children(&mut self, n: u32, types: impl ExactSizeIterator<Item = u32>) -> u32 {
        let first = self.nodes.len() as u32;
        self.nodes[n as usize].first = first;
        self.nodes[n as usize].len = types.len() as u32;
        self.nodes.extend(types.map(|ty| Node {
            ty,
            first: 0,
            len: 0,
        }));
        first
    }

    fn children(&self, n: u32) -> &[Node] {
        let n = self.nodes[n as usize];
        &self.nodes[n.first as usize..(n.first + n.len) as usize]
    }

    fn child(&self, n: u32, ty: u32) -> Option<u32> {
        let first = self.nodes[n as usize].first;
        self.children(n)
            .binary_search_by_key(&ty, |c| c.ty)
            .ok()
            .map(|i| first + i as u32)
    }

    /// Whether `ep`, an episode without a frequent extension at its end, is
    /// a subsequence of another frequent episode.
    fn extensible(&self, ep: &[u32]) -> bool {
        let mut prefix = 0;
        for (i, &next) in ep.iter().enumerate() {
            for (k, c) in self.children(prefix).iter().enumerate() {
                if c.ty == next || ep.contains(&c.ty) {
                    continue;
                }
                let inserted = self.nodes[prefix as usize].first + k as u32;
                if ep[i..]
                    .iter()
                    .try_fold(inserted, |n, &ty| self.child(n, ty))
                    .is_some()
                {
                    return true;
                }
            }
            prefix = self
                .child(prefix, next)
                .expect("every prefix of a found episode is in the tree");
        }
        false
    }
}

/// The episodes the search ended on, with their support and span.
#[derive(Debug, Default)]
pub(super) struct Ends {
    elems: Vec<u32>,
    items: Vec<Item>,
}

#[derive(Debug)]
struct Item {
    from: usize,
    to: usize,
    support: u32,
    span: u64,
}

impl Ends {
    pub fn push(&mut self, episode: &[u32], support: u32, span: u64) {
        let from = self.elems.len();
        self.elems.extend_from_slice(episode);
        self.items.push(Item {
            from,
            to: self.elems.len(),
            support,
            span,
        });
    }

    /// Episode, support and span of the `i`-th.
    pub fn get(&self, i: usize) -> (&[u32], u32, u64) {
        let it = &self.items[i];
        (&self.elems[it.from..it.to], it.support, it.span)
    }

    /// Episodes the search ended on.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Indices of the maximal episodes, best first: higher support, then
    /// longer, then smaller span, then by ids; and how many episodes were
    /// tested (all, unless `budget` was spent first: those are left out).
    pub fn maximal_ranked(&self, tree: &Tree, budget: &Budget) -> (Vec<usize>, usize) {
        let mut out = Vec::new();
        let mut checked = 0;
        while checked < self.items.len() {
            if checked.is_multiple_of(TESTS_PER_CHECK) && budget.spent() {
                break;
            }
            if !tree.extensible(self.get(checked).0) {
                out.push(checked);
            }
            checked += 1;
        }
        out.sort_by(|&a, &b| self.rank(a, b));
        (out, checked)
    }

    fn rank(&self, a: usize, b: usize) -> Ordering {
        let (ea, sa, pa) = self.get(a);
        let (eb, sb, pb) = self.get(b);
        sb.cmp(&sa)
            .then(eb.len().cmp(&ea.len()))
            .then(pa.cmp(&pb))
            .then_with(|| ea.cmp(eb))
    }
}
