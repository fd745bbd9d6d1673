//! The literal pseudo-code of spec §2.19 on explicitly built trees: the reference the fast
//! search is tested against. Builds the whole 2-D tree of a quantum for every query (`O(v log v)`
//! nodes), so it is for tests only.
//!
//! Shape: the implicit balanced tree (node over sorted positions `[lo, hi]`, left child
//! `[lo, ⌊(lo+hi)/2⌋]`); primary order (start descending, server ascending), median = start of
//! the last left leaf; secondary order (end ascending, server descending), median = end of the
//! last left leaf.

use std::cmp::Reverse;

use super::{CoallocPeriod, OPEN_END};

#[derive(Debug)]
struct SecNode {
    median: i64,
    size: usize,
    leaf: Option<CoallocPeriod>,
    left: Option<Box<SecNode>>,
    right: Option<Box<SecNode>>,
}

#[derive(Debug)]
struct PriNode {
    median: i64,
    size: usize,
    leaf: Option<CoallocPeriod>,
    left: Option<Box<PriNode>>,
    right: Option<Box<PriNode>>,
    secondary: Box<SecNode>,
}

fn build_sec(items: &[CoallocPeriod]) -> Box<SecNode> {
    if items.len() == 1 {
        return Box::new(SecNode {
            median: items[0].end,
            size: 1,
            leaf: Some(items[0]),
            left: None,
            right: None,
        });
    }
    let mid = (items.len() - 1) / 2;
    Box::new(SecNode {
        median: items[mid].end,
        size: items.len(),
        leaf: None,
        left: Some(build_sec(&items[..=mid])),
        right: Some(build_sec(&items[mid + 1..])),
    })
}

fn build_pri(items: &[CoallocPeriod]) -> Box<PriNode> {
    let mut by_end = items.to_vec();
    by_end.sort_by_key(|p| (p.end, Reverse(p.server)));
    let secondary = build_sec(&by_end);
    if items.len() == 1 {
        return Box::new(PriNode {
            median: items[0].start,
            size: 1,
            leaf: Some(items[0]),
            left: None,
            right: None,
            secondary,
        });
    }
    let mid = (items.len() - 1) / 2;
    Box::new(PriNode {
        median: items[mid].start,
        size: items.len(),
        leaf: None,
        left: Some(build_pri(&items[..=mid])),
        right: Some(build_pri(&items[mid + 1..])),
        secondary,
    })
}

/// In-order traversal of `node`, appending leaves to `out` until it holds `limit`; counts
/// visited nodes.
fn inorder(node: &SecNode, out: &mut Vec<CoallocPeriod>, limit: usize, visits: &mut u64) {
    if out.len() >= limit {
        return;
    }
    *visits += 1;
    if let Some(p) = node.leaf {
        out.push(p);
        return;
    }
    if let Some(l) = &node.left {
        inorder(l, out, limit, visits);
    }
    if let Some(r) = &node.right {
        inorder(r, out, limit, visits);
    }
}

/// The literal result of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralResult {
    pub chosen: Vec<CoallocPeriod>,
    pub candidates: usize,
    pub feasible: usize,
    pub visits: u64,
    pub success: bool,
}

/// The periods of a set that intersect quantum `q` (`[q·l_q, (q+1)·l_q)`), the quantum's tree
/// contents: the definition the fast index must agree with.
pub fn quantum_members(periods: &[CoallocPeriod], q: i64, quantum: i64) -> Vec<CoallocPeriod> {
    let (qs, qe) = (q * quantum, (q + 1) * quantum);
    periods
        .iter()
        .filter(|p| p.start < qe && (p.end == OPEN_END || p.end > qs))
        .copied()
        .collect()
}

/// Phase 1, Phase 2 and retrieval as the spec's pseudo-code, on the explicit tree over `set`
/// (any order), for the window `[s, e)` and `n` servers (`usize::MAX`: range search).
pub fn literal_search(set: &[CoallocPeriod], s: i64, e: i64, n: usize) -> LiteralResult {
    let mut r = LiteralResult {
        chosen: Vec::new(),
        candidates: 0,
        feasible: 0,
        visits: 0,
        success: false,
    };
    if set.is_empty() || n == 0 {
        return r;
    }
    let mut items = set.to_vec();
    items.sort_by_key(|p| (Reverse(p.start), p.server));
    let root = build_pri(&items);
    // Phase 1.
    let mut marked: Vec<&PriNode> = Vec::new();
    let mut u: &PriNode = &root;
    while u.leaf.is_none() {
        r.visits += 1;
        let (left, right) = (u.left.as_deref().unwrap(), u.right.as_deref().unwrap());
        if u.median > s {
            u = right;
        } else {
            marked.push(right);
            r.candidates += right.size;
            u = left;
        }
    }
    r.visits += 1;
    if u.leaf.unwrap().start <= s {
        marked.push(u);
        r.candidates += 1;
    }
    let need = if n == usize::MAX { 1 } else { n };
    if r.candidates < need {
        return r;
    }
    // Phase 2.
    let mut groups: Vec<&SecNode> = Vec::new();
    let mut ce = 0usize;
    for u in marked.iter().rev() {
        let mut x: &SecNode = &u.secondary;
        while x.leaf.is_none() && ce < n {
            r.visits += 1;
            let (left, right) = (x.left.as_deref().unwrap(), x.right.as_deref().unwrap());
            if x.median >= e {
                groups.push(right);
                ce += right.size;
                x = left;
            } else {
                x = right;
            }
        }
        if let Some(p) = x.leaf
            && ce < n
        {
            r.visits += 1;
            if p.end >= e {
                groups.push(x);
                ce += 1;
            }
        }
        if ce >= n {
            break;
        }
    }
    r.feasible = ce;
    r.success = if n == usize::MAX { ce > 0 } else { ce >= n };
    if !r.success {
        return r;
    }
    for g in groups {
        inorder(g, &mut r.chosen, n, &mut r.visits);
    }
    r
}
