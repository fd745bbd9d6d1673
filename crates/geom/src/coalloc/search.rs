//! Phase 1 / Phase 2 of the co-allocation search (spec §2.19) on the implicit balanced shape,
//! as index arithmetic over one quantum's periods in primary order.
//!
//! The primary tree `t_q^s` of a quantum is the implicit balanced tree over its periods sorted
//! by (start **descending**, server ascending): node `[lo, hi]`, `mid = ⌊(lo + hi) / 2⌋`, left
//! child `[lo, mid]` (later starts), right child `(mid, hi]`; its median is the start at `mid`
//! (the smallest start of the left subtree). The secondary tree `t^e` of a primary node is the
//! implicit tree over *that node's* periods sorted by (end ascending, server **descending**);
//! its median is the end at `mid` (the largest end of the left subtree). The server orders make
//! the search prefer the smaller server id on ties: Phase 1 takes groups from the left (later
//! start, then smaller id), Phase 2 from the right (later end, then smaller id).
//!
//! Every decision depends only on ranks: Phase 1 on `k` (periods starting after `s_r`),
//! Phase 2 in a group on `j` (periods ending before `e_r`). So the selection is a pure function
//! of the quantum's set, whatever structure stores it.

use super::CoallocPeriod;

/// Which periods a successful attempt reserves (spec A32, config `coalloc_pick`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum CoallocPick {
    /// The thesis's tree search on the implicit balanced shape: Phase-2 groups in reverse
    /// marking order, in-order retrieval (default).
    #[default]
    Tree,
    /// The `n_r` feasible periods with the latest starts (smallest leading gaps; ties: smaller
    /// server).
    LatestStart,
    /// The `n_r` feasible periods with the earliest ends (tightest fits; ties: smaller server).
    MinEnd,
}

/// What one attempt found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchStats {
    /// `C^s_r`: candidates (start ≤ `s_r`) counted by Phase 1.
    pub candidates: usize,
    /// `C^e_r`: feasible periods counted by Phase 2 before it stopped.
    pub feasible: usize,
    /// Tree nodes visited: Phase 1 + Phase 2 + in-order retrieval (spec A35).
    pub visits: u64,
    /// Whether `n_r` periods were found.
    pub success: bool,
}

/// Secondary order: end ascending, then server descending.
#[inline]
fn sec_key(p: &CoallocPeriod) -> (i64, std::cmp::Reverse<u32>) {
    (p.end, std::cmp::Reverse(p.server))
}

/// Nodes visited by an in-order traversal of the implicit tree over `[a, b]` that stops after
/// `need` leaves.
fn inorder_visits(a: usize, b: usize, need: usize) -> u64 {
    let size = b - a + 1;
    if need >= size {
        return 2 * size as u64 - 1;
    }
    if a == b {
        return 1;
    }
    let mid = (a + b) / 2;
    let left = mid - a + 1;
    let mut v = 1 + inorder_visits(a, mid, need.min(left));
    if need > left {
        v += inorder_visits(mid + 1, b, need - left);
    }
    v
}

/// Reusable buffers of [`search`].
#[derive(Debug, Default, Clone)]
pub struct SearchScratch {
    marked: Vec<(usize, usize)>,
    feasible: Vec<CoallocPeriod>,
    pushes: Vec<(usize, usize)>,
}

/// Runs Phase 1 and Phase 2 over `m` (one quantum's periods in primary order) for the window
/// `[s, e)` and `n` servers, appending the chosen periods to `out` in retrieval order.
/// `n = usize::MAX` is the read-only range search: every feasible period is returned.
pub fn search(
    m: &[CoallocPeriod],
    s: i64,
    e: i64,
    n: usize,
    pick: CoallocPick,
    scratch: &mut SearchScratch,
    out: &mut Vec<CoallocPeriod>,
) -> SearchStats {
    let mut st = SearchStats::default();
    let v = m.len();
    if v == 0 || n == 0 {
        return st;
    }
    debug_assert!(
        m.windows(2)
            .all(|w| (w[0].start, std::cmp::Reverse(w[0].server))
                > (w[1].start, std::cmp::Reverse(w[1].server)))
    );
    // Phase 1: k = periods starting after s (a prefix in descending-start order).
    let k = m.partition_point(|p| p.start > s);
    let marked = &mut scratch.marked;
    marked.clear();
    let (mut lo, mut hi) = (0usize, v - 1);
    while lo < hi {
        st.visits += 1;
        let mid = (lo + hi) / 2;
        if mid < k {
            lo = mid + 1;
        } else {
            marked.push((mid + 1, hi));
            hi = mid;
        }
    }
    st.visits += 1;
    if lo >= k {
        marked.push((lo, lo));
    }
    st.candidates = v - k;
    // Fewer candidates than servers asked for: fail (the range search needs one).
    if st.candidates < if n == usize::MAX { 1 } else { n } {
        return st;
    }
    // Phase 2: groups in reverse marking order.
    let start_len = out.len();
    let mut ce = 0usize;
    let mut retrieval_left = n;
    let mut retrieval_visits = 0u64;
    for gi in (0..marked.len()).rev() {
        let (glo, ghi) = marked[gi];
        let group = &m[glo..=ghi];
        let g = group.len();
        let j = group.iter().filter(|p| p.end < e).count();
        let pushes = &mut scratch.pushes;
        pushes.clear();
        let (mut lo, mut hi) = (0usize, g - 1);
        while lo < hi && ce < n {
            st.visits += 1;
            let mid = (lo + hi) / 2;
            if mid >= j {
                pushes.push((mid + 1, hi));
                ce += hi - mid;
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo == hi && ce < n {
            st.visits += 1;
            if lo >= j {
                pushes.push((lo, lo));
                ce += 1;
            }
        }
        if pick == CoallocPick::Tree && !pushes.is_empty() {
            // E[j..g) = the group's feasible periods in secondary order.
            let feas = &mut scratch.feasible;
            feas.clear();
            feas.extend(group.iter().filter(|p| p.end >= e).copied());
            feas.sort_unstable_by_key(sec_key);
            for &(a, b) in pushes.iter() {
                if retrieval_left == 0 {
                    break;
                }
                let take = retrieval_left.min(b - a + 1);
                retrieval_visits += inorder_visits(a, b, take);
                out.extend_from_slice(&feas[a - j..a - j + take]);
                retrieval_left -= take;
            }
        }
        if ce >= n {
            break;
        }
    }
    st.feasible = ce;
    st.success = if n == usize::MAX { ce > 0 } else { ce >= n };
    if !st.success {
        out.truncate(start_len);
        return st;
    }
    match pick {
        CoallocPick::Tree => st.visits += retrieval_visits,
        CoallocPick::LatestStart => {
            out.extend(m[k..].iter().filter(|p| p.end >= e).take(n).copied());
            st.visits += out.len().saturating_sub(start_len) as u64;
        }
        CoallocPick::MinEnd => {
            let feas = &mut scratch.feasible;
            feas.clear();
            feas.extend(m[k..].iter().filter(|p| p.end >= e).copied());
            feas.sort_unstable_by_key(|p| (p.end, p.server));
            let take = n.min(feas.len());
            out.extend_from_slice(&feas[..take]);
            st.visits += take as u64;
        }
    }
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inorder_visit_counts() {
        assert_eq!(inorder_visits(0, 0, 1), 1);
        assert_eq!(inorder_visits(0, 3, 4), 7);
        // [0,3]: root, [0,1], leaf 0 → 3 nodes for one leaf.
        assert_eq!(inorder_visits(0, 3, 1), 3);
        // root, [0,1], 0, 1, [2,3], 2 → 6 nodes for three leaves.
        assert_eq!(inorder_visits(0, 3, 3), 6);
    }
}
