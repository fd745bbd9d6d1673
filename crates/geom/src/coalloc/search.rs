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
pub(super) fn sec_key(p: &CoallocPeriod) -> (i64, std::cmp::Reverse<u32>) {
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
    /// Every inspected group's pushes (secondary rank ranges), group after group.
    pushes: Vec<(usize, usize)>,
    /// The inspected groups: primary ranks `lo..=hi`, `j`, and their pushes' range in `pushes`.
    groups: Vec<InspectedGroup>,
}

/// A Phase-2 group, as the counting pass leaves it for the retrieval pass.
#[derive(Debug, Clone, Copy)]
struct InspectedGroup {
    lo: usize,
    hi: usize,
    j: usize,
    pushes: (usize, usize),
}

/// One quantum's periods in primary order, as the search reads them: by rank, never as a
/// whole, so that the storage decides what a read costs (a slice, or the quantized index's
/// chunked lists merged on the fly). Phase 2 needs no group in primary order, only its count of
/// periods ending before `e_r` and its feasible periods in any order, which the quantized index
/// takes from contiguous chunk slices without merging the finite periods with the tails.
pub(super) trait PrimarySeq {
    fn len(&self) -> usize;
    /// The number of periods starting after `s` (a prefix in primary order).
    fn starting_after(&self, s: i64) -> usize;
    /// Appends the periods of ranks `lo..=hi` to `out`.
    fn read(&self, lo: usize, hi: usize, out: &mut Vec<CoallocPeriod>);
    /// The number of periods of ranks `lo..=hi` ending before `e` (a group's `j`).
    fn count_ending_before(&self, lo: usize, hi: usize, e: i64) -> usize;
    /// Appends the periods of ranks `lo..=hi` ending at or after `e` to `out`, in any order.
    fn read_ending_from(&self, lo: usize, hi: usize, e: i64, out: &mut Vec<CoallocPeriod>);
    /// Calls `f` on the periods from rank `lo` on, in order, until it returns `false`.
    fn scan_from(&self, lo: usize, f: &mut dyn FnMut(&CoallocPeriod) -> bool);
    /// Appends, for each push `(a, b)` of the group of ranks `lo..=hi` in turn, the periods of
    /// the group's secondary ranks `a .. a + take` (`take = min(left, b - a + 1)`) in secondary
    /// order, lowering `left` until it reaches 0. `j` is the group's count of periods ending
    /// before `e`. By default it reads the group's feasible periods and selects the ranks.
    fn retrieve(
        &self,
        group: RetrievalGroup,
        e: i64,
        left: &mut usize,
        scratch: &mut Vec<CoallocPeriod>,
        out: &mut Vec<CoallocPeriod>,
    ) {
        retrieve_by_reading(self, group, e, left, scratch, out);
    }
}

/// One Phase-2 group to retrieve from: its primary ranks, its `j` and its pushes.
#[derive(Debug, Clone, Copy)]
pub(super) struct RetrievalGroup<'a> {
    pub lo: usize,
    pub hi: usize,
    pub j: usize,
    pub pushes: &'a [(usize, usize)],
}

/// [`PrimarySeq::retrieve`] by reading the group's feasible periods (`O(group)`).
pub(super) fn retrieve_by_reading<M: PrimarySeq + ?Sized>(
    m: &M,
    group: RetrievalGroup,
    e: i64,
    left: &mut usize,
    feas: &mut Vec<CoallocPeriod>,
    out: &mut Vec<CoallocPeriod>,
) {
    // E[j..g) = the group's feasible periods in secondary order.
    // The pushes are contiguous rank ranges going down from the top, and each gives
    // its lowest `take` ranks: selections isolate them without sorting the group
    // (the keys are distinct, so the result is what a full sort gives, whatever order
    // the feasible periods arrive in).
    let j = group.j;
    feas.clear();
    m.read_ending_from(group.lo, group.hi, e, feas);
    debug_assert_eq!(feas.len(), group.hi - group.lo + 1 - j);
    for &(a, b) in group.pushes {
        if *left == 0 {
            break;
        }
        let take = (*left).min(b - a + 1);
        // feas[..=b - j] holds the group's feasible ranks 0 ..= b - j.
        let (lo, hi) = (a - j, b - j + 1);
        if lo > 0 {
            feas[..hi].select_nth_unstable_by_key(lo, sec_key);
        }
        let range = &mut feas[lo..hi];
        if take < range.len() {
            range.select_nth_unstable_by_key(take, sec_key);
        }
        range[..take].sort_unstable_by_key(sec_key);
        out.extend_from_slice(&range[..take]);
        *left -= take;
    }
}

impl PrimarySeq for [CoallocPeriod] {
    fn len(&self) -> usize {
        <[CoallocPeriod]>::len(self)
    }
    fn starting_after(&self, s: i64) -> usize {
        self.partition_point(|p| p.start > s)
    }
    fn read(&self, lo: usize, hi: usize, out: &mut Vec<CoallocPeriod>) {
        out.extend_from_slice(&self[lo..=hi]);
    }
    fn count_ending_before(&self, lo: usize, hi: usize, e: i64) -> usize {
        self[lo..=hi].iter().filter(|p| p.end < e).count()
    }
    fn read_ending_from(&self, lo: usize, hi: usize, e: i64, out: &mut Vec<CoallocPeriod>) {
        out.extend(self[lo..=hi].iter().filter(|p| p.end >= e));
    }
    fn scan_from(&self, lo: usize, f: &mut dyn FnMut(&CoallocPeriod) -> bool) {
        for p in &self[lo..] {
            if !f(p) {
                break;
            }
        }
    }
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
    debug_assert!(
        m.windows(2)
            .all(|w| (w[0].start, std::cmp::Reverse(w[0].server))
                > (w[1].start, std::cmp::Reverse(w[1].server)))
    );
    search_seq(m, s, e, n, pick, scratch, out)
}

/// [`search`] over any [`PrimarySeq`]. It reads the sequence only by rank: `O(log v)` steps for
/// the phases' arithmetic, a count per Phase-2 group it inspects, and (with the default pick,
/// on success only) the feasible periods of the groups it retrieves from; so its cost does not
/// grow with the quantum's size when the first groups suffice. The counts still read every
/// period of an inspected group (see `docs/benchmarks.md`, issue 18, third slice).
pub(super) fn search_seq<M: PrimarySeq + ?Sized>(
    m: &M,
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
    // Phase 1: k = periods starting after s (a prefix in descending-start order).
    let k = m.starting_after(s);
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
    // Phase 2: groups in reverse marking order. A first pass decides everything from counts
    // (each group's `j`, its pushes, `C^e_r`), so a failed attempt copies no period; a second
    // pass retrieves from the groups with pushes, reading only their feasible periods.
    let start_len = out.len();
    let mut ce = 0usize;
    let pushes = &mut scratch.pushes;
    pushes.clear();
    let groups = &mut scratch.groups;
    groups.clear();
    for gi in (0..marked.len()).rev() {
        let (glo, ghi) = marked[gi];
        let g = ghi - glo + 1;
        let j = m.count_ending_before(glo, ghi, e);
        let first = pushes.len();
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
        groups.push(InspectedGroup {
            lo: glo,
            hi: ghi,
            j,
            pushes: (first, pushes.len()),
        });
        if ce >= n {
            break;
        }
    }
    st.feasible = ce;
    st.success = if n == usize::MAX { ce > 0 } else { ce >= n };
    if !st.success {
        return st;
    }
    let mut retrieval_left = n;
    let mut retrieval_visits = 0u64;
    if pick == CoallocPick::Tree {
        for grp in groups.iter() {
            let group_pushes = &pushes[grp.pushes.0..grp.pushes.1];
            if group_pushes.is_empty() {
                continue;
            }
            if retrieval_left == 0 {
                break;
            }
            let mut left = retrieval_left;
            for &(a, b) in group_pushes {
                if left == 0 {
                    break;
                }
                let take = left.min(b - a + 1);
                retrieval_visits += inorder_visits(a, b, take);
                left -= take;
            }
            let group = RetrievalGroup {
                lo: grp.lo,
                hi: grp.hi,
                j: grp.j,
                pushes: group_pushes,
            };
            m.retrieve(group, e, &mut retrieval_left, &mut scratch.feasible, out);
        }
    }
    match pick {
        CoallocPick::Tree => st.visits += retrieval_visits,
        CoallocPick::LatestStart => {
            let mut left = n;
            m.scan_from(k, &mut |p| {
                if p.end >= e {
                    out.push(*p);
                    left -= 1;
                }
                left > 0
            });
            st.visits += out.len().saturating_sub(start_len) as u64;
        }
        CoallocPick::MinEnd => {
            let feas = &mut scratch.feasible;
            feas.clear();
            m.scan_from(k, &mut |p| {
                if p.end >= e {
                    feas.push(*p);
                }
                true
            });
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
