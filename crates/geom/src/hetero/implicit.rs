//! Index arithmetic of the implicit balanced trees that define FF-HA+'s choices (spec §2.16).
//!
//! A tree over the sorted positions `[lo, hi]` is a leaf if `lo == hi`; otherwise its median is
//! `mid = ⌊(lo + hi) / 2⌋`, its left child covers `[lo, mid]` and its right child `(mid, hi]`.
//! The primal tree of a class is this tree over its periods sorted by (start, server); the dual
//! tree of a primal node is this tree over *that node's* periods sorted by (end, server).
//! Nothing here touches a period: the functions only walk index ranges, so any structure that
//! can count and select by rank can reproduce the search exactly.

/// A node of an implicit tree: the sorted positions `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImplicitGroup {
    pub lo: usize,
    pub hi: usize,
}

impl ImplicitGroup {
    /// Number of positions covered.
    pub fn len(&self) -> usize {
        self.hi - self.lo + 1
    }

    /// Always false (a node covers at least one position).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether `i` lies in the node.
    pub fn contains(&self, i: usize) -> bool {
        self.lo <= i && i <= self.hi
    }
}

/// Nodes an unsuccessful dual descent over `m` periods visits, as FF-HA+'s operation count
/// charges it: the dual tree's height `⌈log2 m⌉` internal nodes plus the leaf. (The exact leaf
/// depth of the descent is `⌊log2 m⌋` or `⌈log2 m⌉`; charging the height keeps the count a
/// function of `m` alone.)
pub fn failed_dual_visits(m: usize) -> u64 {
    debug_assert!(m >= 1);
    u64::from(usize::BITS - (m - 1).leading_zeros()) + 1
}

/// Step 1 of the pseudo-code on a class of `v` periods of which the first `k` (in start order)
/// satisfy the start-time condition (4.3): the marked nodes, in marking order (ascending
/// positions), and the number of primal nodes visited (internal nodes plus the exit leaf).
///
/// The marked nodes are the left children passed on the way down plus, if it qualifies, the
/// exit leaf: together they cover exactly the positions `0..k`.
pub fn marked_groups(v: usize, k: usize) -> (Vec<ImplicitGroup>, u64) {
    let mut out = Vec::new();
    let visits = walk_primal(v, k, |g| {
        out.push(g);
        false
    });
    (out, visits)
}

/// Step 1, stopping at the marked node that holds position `target` (the first feasible period
/// in start order, which the caller has found): that node (`None` if `target` is `None`) and
/// the operations the pseudo-code spends until it starts that node's dual search — the primal
/// nodes it visits plus a failed dual descent in every node marked before (none of them holds
/// a feasible period, since `target` is the first).
pub fn primal_search(v: usize, k: usize, target: Option<usize>) -> (Option<ImplicitGroup>, u64) {
    let mut found = None;
    let mut failed = 0;
    let visits = walk_primal(v, k, |g| {
        if target.is_some_and(|t| g.contains(t)) {
            found = Some(g);
            true
        } else {
            failed += failed_dual_visits(g.len());
            false
        }
    });
    (found, visits + failed)
}

/// Walks the primal descent for a prefix of length `k` of `v` positions, calling `mark` on each
/// marked node in order until it returns true. Returns the primal nodes visited (the full
/// descent to the exit leaf: the pseudo-code marks everything before searching any dual tree).
fn walk_primal(v: usize, k: usize, mut mark: impl FnMut(ImplicitGroup) -> bool) -> u64 {
    if v == 0 {
        return 0;
    }
    debug_assert!(k <= v);
    let (mut lo, mut hi) = (0, v - 1);
    let mut visits = 1;
    let mut stopped = false;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if mid < k {
            // The median start satisfies (4.3): the whole left child does.
            if !stopped {
                stopped = mark(ImplicitGroup { lo, hi: mid });
            }
            lo = mid + 1;
        } else {
            hi = mid;
        }
        visits += 1;
    }
    if lo < k && !stopped {
        mark(ImplicitGroup { lo, hi: lo });
    }
    visits
}

/// The dual descent of one marked node of `m` periods (sorted by end, server), in rank terms:
/// `p` is the number of periods failing the dual test (they form a prefix), `q >= p` the
/// largest rank whose nominal capacity passes. The descent goes right while the median fails
/// the dual test and otherwise inspects the right child's maximum-capacity period; it returns
/// at the first node where `p <= mid < q` (that right child `(mid, hi]` holds rank `q`), or at
/// the leaf `p == q`.
///
/// Returns `(a, visits)`: the answer is the maximum-capacity period among ranks `a..` (ranks
/// beyond the right child all fail the capacity test, so they cannot win), and `visits` the
/// dual nodes the descent touched.
pub fn dual_split(m: usize, p: usize, q: usize) -> (usize, u64) {
    debug_assert!(p <= q && q < m);
    let (mut lo, mut hi) = (0, m - 1);
    let mut visits = 1;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if p > mid {
            lo = mid + 1;
        } else if q > mid {
            return (mid + 1, visits);
        } else {
            hi = mid;
        }
        visits += 1;
    }
    (lo, visits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_groups_cover_the_prefix_in_order() {
        for v in 1..70 {
            for k in 0..=v {
                let (groups, visits) = marked_groups(v, k);
                let mut next = 0;
                for g in &groups {
                    assert_eq!(g.lo, next, "v={v} k={k} {groups:?}");
                    next = g.hi + 1;
                }
                assert_eq!(next, k, "v={v} k={k} {groups:?}");
                assert!(groups.len() as u64 <= visits);
            }
        }
        let (g, _) = marked_groups(4, 3);
        assert_eq!(
            g,
            vec![
                ImplicitGroup { lo: 0, hi: 1 },
                ImplicitGroup { lo: 2, hi: 2 }
            ]
        );
    }

    #[test]
    fn primal_search_finds_the_holding_group() {
        for v in 1..40 {
            for k in 1..=v {
                let (groups, _) = marked_groups(v, k);
                for t in 0..k {
                    let (g, _) = primal_search(v, k, Some(t));
                    assert_eq!(g, groups.iter().copied().find(|g| g.contains(t)));
                }
            }
        }
    }

    /// `dual_split` against a literal walk of the descent.
    #[test]
    fn dual_split_matches_the_descent() {
        for m in 1..50 {
            for p in 0..m {
                for q in p..m {
                    let (mut lo, mut hi) = (0, m - 1);
                    let expect = loop {
                        if lo == hi {
                            break lo;
                        }
                        let mid = (lo + hi) / 2;
                        if mid < p {
                            lo = mid + 1;
                        } else if (mid + 1..=hi).contains(&q) {
                            break mid + 1;
                        } else {
                            hi = mid;
                        }
                    };
                    assert_eq!(dual_split(m, p, q).0, expect, "m={m} p={p} q={q}");
                }
            }
        }
        assert_eq!(failed_dual_visits(1), 1);
        assert_eq!(failed_dual_visits(2), 2);
        assert_eq!(failed_dual_visits(5), 4);
    }
}
