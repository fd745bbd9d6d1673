//! The quantized index: a ring of per-quantum period lists plus the servers' open-ended tails.

use std::cell::Cell;

use super::chunked::{ChunkedList, Key, pkey};
use super::range_tree::{RangeTree, below};
use super::search::{
    CoallocPick, PrimarySeq, RetrievalGroup, SearchScratch, SearchStats, retrieve_by_reading,
    search_seq,
};
use super::{CoallocError, CoallocPeriod, MAX_QUANTA, MAX_SERVERS, OPEN_END};

/// The outcome of one attempt ([`QuantizedIndex::select`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attempt {
    pub stats: SearchStats,
    /// `s_r` lay beyond the last live quantum (a failed attempt, spec §2.19, an interpretation).
    pub beyond_horizon: bool,
}

/// Castillo's quantized co-allocation index (spec §2.18): time is cut into quanta of length
/// `l_q`; the quanta `c ..= c + Q` are live, where `c` is the quantum of the current time; every
/// idle period is stored in every live quantum it intersects, and the tree of a quantum is the
/// implicit balanced 2-D tree over that quantum's periods (see [`search`](fn@super::search)).
///
/// Storage: each live quantum keeps its *finite* periods in a list in primary order (a ring
/// of `Q + 1` slots, so discarding a quantum and opening a new one is `O(1)` plus clearing);
/// the open-ended tails (at most one per server) are kept once, in primary order, and belong
/// to every quantum that ends after their start. At a rotation the new quantum therefore
/// holds every tail that spans it (spec A38) without copying them. A quantum's set is the
/// merge of the two lists, read by rank without being built, so the selection is a pure
/// function of the set of idle periods. The lists are `ChunkedList`s (`chunked.rs`): rank
/// queries and batched updates cost a logarithmic factor plus what they read or change, not
/// the list's length (which on a large machine is about one period per server).
#[derive(Debug, Clone)]
pub struct QuantizedIndex {
    quantum: i64,
    quanta: u32,
    servers: u32,
    min_fragment: i64,
    /// Absolute number of the current quantum.
    current: i64,
    slots: Vec<ChunkedList>,
    tails: ChunkedList,
    scratch: SearchScratch,
    /// Per-slot removals and insertions of one [`reserve`](Self::reserve), reused.
    batch: Vec<(Vec<CoallocPeriod>, Vec<CoallocPeriod>)>,
    /// The lists one [`reserve`](Self::reserve) touched, reused.
    touched: Vec<usize>,
    /// The chosen periods of one [`reserve`](Self::reserve), sorted, reused.
    order: Vec<CoallocPeriod>,
    /// Period insertions and removals in quantum lists (tails count once).
    updates: u64,
    /// The optional range tree ([`with_range_tree`](Self::with_range_tree)) and the group
    /// size above which Phase 2 asks it instead of reading the group.
    tree: Option<(Box<RangeTree>, usize)>,
}

impl QuantizedIndex {
    /// `servers` idle servers from `start` on, quanta of length `quantum`, `quanta` = `Q` (the
    /// horizon is `Q · quantum`), fragments shorter than `min_fragment` dropped.
    pub fn new(
        servers: u32,
        quantum: i64,
        quanta: u32,
        min_fragment: i64,
        start: i64,
    ) -> Result<Self, CoallocError> {
        if servers == 0 {
            return Err(CoallocError::Config(
                "the number of servers must be positive".into(),
            ));
        }
        if servers > MAX_SERVERS {
            return Err(CoallocError::Config(format!(
                "{servers} servers: the index holds at most {MAX_SERVERS} (about 48 bytes each)"
            )));
        }
        if quantum <= 0 {
            return Err(CoallocError::Config(format!(
                "the quantum length must be positive, got {quantum}"
            )));
        }
        if quanta == 0 {
            return Err(CoallocError::Config(
                "the number of quanta Q must be positive".into(),
            ));
        }
        if quanta > MAX_QUANTA {
            return Err(CoallocError::Config(format!(
                "Q = {quanta} quanta: the index keeps at most {MAX_QUANTA} (every idle period is stored in each quantum it spans)"
            )));
        }
        if min_fragment < 1 {
            return Err(CoallocError::Config(format!(
                "min_fragment must be at least 1, got {min_fragment}"
            )));
        }
        let mut tails: Vec<CoallocPeriod> = (0..servers)
            .map(|s| CoallocPeriod {
                start,
                end: OPEN_END,
                server: s,
            })
            .collect();
        tails.sort_by_key(pkey);
        Ok(QuantizedIndex {
            quantum,
            quanta,
            servers,
            min_fragment,
            current: start.div_euclid(quantum),
            slots: vec![ChunkedList::default(); quanta as usize + 1],
            tails: ChunkedList::from_sorted(&tails),
            scratch: SearchScratch::default(),
            batch: vec![(Vec::new(), Vec::new()); quanta as usize + 2],
            touched: Vec::new(),
            order: Vec::new(),
            updates: 0,
            tree: None,
        })
    }

    /// Keeps a range tree over the live periods (`range_tree.rs`) beside the lists, and answers
    /// every Phase-2 group larger than `budget` periods from it: a group's count and each
    /// retrieved period then cost `O(log² V)` instead of a read of the group, so a selection is
    /// bounded by the servers it retrieves times a polylogarithmic factor, not by `N`. The
    /// selections are the same (they are a function of the quantum's set); only the cost moves
    /// — `O(log² V)` expected per period update and `O(V log V)` memory. `budget = 0` asks
    /// the tree for every group.
    pub fn with_range_tree(mut self, budget: usize) -> Self {
        let mut tree = RangeTree::new();
        for p in self.live_periods() {
            tree.insert(p);
        }
        self.tree = Some((Box::new(tree), budget));
        self
    }

    /// Whether a new period is stored: a tail, or a finite period long enough to keep that
    /// spans a live quantum.
    fn kept(&self, p: &CoallocPeriod) -> bool {
        match self.buckets(p) {
            Some((first, last)) => p.end == OPEN_END || first <= last,
            None => false,
        }
    }

    /// Quantum length `l_q`.
    pub fn quantum(&self) -> i64 {
        self.quantum
    }

    /// `Q`.
    pub fn quanta(&self) -> u32 {
        self.quanta
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        self.servers
    }

    /// Absolute number of the current quantum.
    pub fn current_quantum(&self) -> i64 {
        self.current
    }

    /// The end of the last live quantum: a window must start before it.
    pub fn horizon_end(&self) -> i64 {
        (self.current + i64::from(self.quanta) + 1) * self.quantum
    }

    /// Period insertions and removals performed in quantum lists so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    #[inline]
    fn slot(&self, q: i64) -> usize {
        q.rem_euclid(i64::from(self.quanta) + 1) as usize
    }

    /// Live quanta a finite period intersects, as an inclusive range (empty if none).
    fn span(&self, p: &CoallocPeriod) -> (i64, i64) {
        let first = p.start.div_euclid(self.quantum).max(self.current);
        let last = (p.end - 1)
            .div_euclid(self.quantum)
            .min(self.current + i64::from(self.quanta));
        (first, last)
    }

    /// Moves the clock to `t`: quanta that ended are discarded and new ones opened (spec
    /// §2.18). Time never goes back.
    pub fn advance_to(&mut self, t: i64) {
        let q = t.div_euclid(self.quantum);
        if q <= self.current {
            return;
        }
        let steps = (q - self.current).min(i64::from(self.quanta) + 1);
        for i in 0..steps {
            let s = self.slot(self.current + i);
            self.slots[s].clear();
        }
        self.current = q;
        if let Some((tree, _)) = &mut self.tree {
            // Periods ending by the current quantum's start are in no live quantum.
            tree.prune_ending_by(q * self.quantum);
        }
    }

    /// Live quantum `q`'s set, as the search reads it (`None` outside the live quanta).
    fn view(&self, q: i64) -> Option<QuantumView<'_>> {
        if q < self.current || q > self.current + i64::from(self.quanta) {
            return None;
        }
        let qend = (q + 1) * self.quantum;
        Some(QuantumView {
            finite: &self.slots[self.slot(q)],
            tails: &self.tails,
            // The tails starting at or after the quantum's end are a prefix (start descending).
            skip: self.tails.partition_point(|p| p.start >= qend),
            last_split: Cell::new((usize::MAX, 0)),
            tree: self
                .tree
                .as_ref()
                .map(|(tree, budget)| (&**tree, *budget, q * self.quantum)),
        })
    }

    /// The periods of live quantum `q` in primary order (start descending, server ascending)
    /// into `out`.
    pub fn quantum_set_into(&self, q: i64, out: &mut Vec<CoallocPeriod>) {
        out.clear();
        if let Some(view) = self.view(q) {
            let v = view.len();
            if v > 0 {
                view.read(0, v - 1, out);
            }
        }
    }

    /// The periods of live quantum `q` in primary order.
    pub fn quantum_set(&self, q: i64) -> Vec<CoallocPeriod> {
        let mut v = Vec::new();
        self.quantum_set_into(q, &mut v);
        v
    }

    /// Every live idle period (in some live quantum, or a tail), sorted by (server, start).
    pub fn live_periods(&self) -> Vec<CoallocPeriod> {
        let mut v: Vec<CoallocPeriod> = self.slots.iter().flat_map(|l| l.iter()).copied().collect();
        v.extend(self.tails.iter());
        v.sort_by_key(|p| (p.server, p.start, p.end));
        v.dedup();
        v
    }

    /// One attempt for the window `[s, s + length)` on `n` servers: Phase 1 and Phase 2 in the
    /// quantum containing `s`, appending the chosen periods to `chosen` (nothing is reserved;
    /// see [`reserve`](Self::reserve)). `s` must not precede the current quantum.
    pub fn select(
        &mut self,
        s: i64,
        length: i64,
        n: u32,
        pick: CoallocPick,
        chosen: &mut Vec<CoallocPeriod>,
    ) -> Attempt {
        let q = s.div_euclid(self.quantum).max(self.current);
        if q > self.current + i64::from(self.quanta) {
            return Attempt {
                stats: SearchStats::default(),
                beyond_horizon: true,
            };
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let view = self.view(q).expect("q is live");
        let stats = search_seq(
            &view,
            s,
            s.saturating_add(length),
            n as usize,
            pick,
            &mut scratch,
            chosen,
        );
        self.scratch = scratch;
        Attempt {
            stats,
            beyond_horizon: false,
        }
    }

    /// The read-only range search of spec §2.19: every idle period containing `[ta, tb)` found
    /// by the phases in the quantum of `ta` (in retrieval order), without reserving anything.
    pub fn range_search(&mut self, ta: i64, tb: i64) -> (Vec<CoallocPeriod>, SearchStats) {
        let mut out = Vec::new();
        let q = ta.div_euclid(self.quantum);
        if tb <= ta || q < self.current || q > self.current + i64::from(self.quanta) {
            return (out, SearchStats::default());
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let view = self.view(q).expect("q is live");
        let stats = search_seq(
            &view,
            ta,
            tb,
            usize::MAX,
            CoallocPick::Tree,
            &mut scratch,
            &mut out,
        );
        self.scratch = scratch;
        (out, stats)
    }

    /// Where a new period goes: `None` for a finite fragment too short to keep (or spanning no
    /// live quantum), the tails' bucket for an open-ended one, else its live quanta.
    fn buckets(&self, p: &CoallocPeriod) -> Option<(i64, i64)> {
        if p.end == OPEN_END {
            return Some((i64::MIN, i64::MIN));
        }
        if p.end - p.start < self.min_fragment {
            return None;
        }
        Some(self.span(p))
    }

    /// The batch bucket of live quantum `q`; the last bucket holds the tails.
    fn bucket(&self, q: i64) -> usize {
        if q == i64::MIN {
            self.quanta as usize + 1
        } else {
            self.slot(q)
        }
    }
    /// Reserves `[start, start + length)` inside each of `chosen` (periods returned by
    /// [`select`](Self::select) on the current state): each is removed from every quantum it
    /// spans and replaced by its leading and trailing fragments, stored in every quantum they
    /// span (spec §2.19, update).
    pub fn reserve(
        &mut self,
        chosen: &[CoallocPeriod],
        start: i64,
        length: i64,
    ) -> Result<(), CoallocError> {
        let end = start.saturating_add(length);
        for p in chosen {
            if p.start > start || p.end < end || length <= 0 {
                return Err(CoallocError::NotIdle {
                    server: p.server,
                    start,
                    end,
                });
            }
        }
        // One batch per touched list instead of one insert or remove per period: a wide job on
        // a large machine changes thousands of periods, and the list rewrites each of its
        // chunks once. The chosen periods are on distinct servers (a server's idle periods are
        // disjoint and each contains the window), so every key below is distinct and the
        // result is the set the per-period updates give.
        let mut batch = std::mem::take(&mut self.batch);
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        let mut add = |b: usize, removal: bool, p: CoallocPeriod, touched: &mut Vec<usize>| {
            let (rem, ins) = &mut batch[b];
            if rem.is_empty() && ins.is_empty() {
                touched.push(b);
            }
            if removal { rem.push(p) } else { ins.push(p) }
        };
        // Every list's removals and insertions come out in primary order without sorting each
        // list's batch: trailing fragments all start at the window's end, after every chosen
        // period's start, so they sort first, by server; removals and leading fragments keep
        // their period's key, so they follow the chosen periods in primary order.
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend_from_slice(chosen);
        order.sort_unstable_by_key(|p| p.server);
        for p in &order {
            let trailing = CoallocPeriod {
                start: end,
                end: p.end,
                server: p.server,
            };
            if let Some((first, last)) = self.buckets(&trailing) {
                for q in first..=last {
                    add(self.bucket(q), false, trailing, &mut touched);
                }
            }
        }
        order.sort_unstable_by_key(pkey);
        for p in &order {
            if p.end == OPEN_END {
                add(self.bucket(i64::MIN), true, *p, &mut touched);
            } else {
                let (first, last) = self.span(p);
                for q in first..=last {
                    add(self.bucket(q), true, *p, &mut touched);
                }
            }
            let leading = CoallocPeriod {
                start: p.start,
                end: start,
                server: p.server,
            };
            if let Some((first, last)) = self.buckets(&leading) {
                for q in first..=last {
                    add(self.bucket(q), false, leading, &mut touched);
                }
            }
        }
        // The range tree holds each period once (not once per quantum): the chosen periods go,
        // their kept fragments come in.
        if let Some((mut tree, budget)) = self.tree.take() {
            for p in &order {
                let leading = CoallocPeriod {
                    start: p.start,
                    end: start,
                    server: p.server,
                };
                let trailing = CoallocPeriod {
                    start: end,
                    end: p.end,
                    server: p.server,
                };
                let removed = tree.remove(p);
                debug_assert!(removed, "a chosen period is in the range tree");
                if self.kept(&leading) {
                    tree.insert(leading);
                }
                if self.kept(&trailing) {
                    tree.insert(trailing);
                }
            }
            self.tree = Some((tree, budget));
        }
        self.order = order;
        let tails = self.quanta as usize + 1;
        for &b in &touched {
            let (rem, ins) = &mut batch[b];
            debug_assert!(rem.is_sorted_by_key(pkey) && ins.is_sorted_by_key(pkey));
            let list = if b == tails {
                &mut self.tails
            } else {
                &mut self.slots[b]
            };
            self.updates += list.apply(rem, ins);
            rem.clear();
            ins.clear();
        }
        self.batch = batch;
        self.touched = touched;
        Ok(())
    }

    /// Books `[start, end)` on one server (to set up a state, e.g. the thesis's Fig. 5.1): the
    /// server must be idle over the whole interval, which must start inside the live quanta.
    pub fn reserve_on(&mut self, server: u32, start: i64, end: i64) -> Result<(), CoallocError> {
        let err = CoallocError::NotIdle { server, start, end };
        if end <= start || start >= self.horizon_end() || server >= self.servers {
            return Err(err);
        }
        let q = start.div_euclid(self.quantum).max(self.current);
        let set = self.quantum_set(q);
        let p = set
            .into_iter()
            .find(|p| p.server == server && p.start <= start && p.end >= end)
            .ok_or(err)?;
        self.reserve(&[p], start, end - start)
    }
}

/// One live quantum's set: its finite list merged with the tails from rank `skip` on, read by
/// rank without being built.
struct QuantumView<'a> {
    finite: &'a ChunkedList,
    tails: &'a ChunkedList,
    skip: usize,
    /// The last `(r, split(r))`: Phase 2's groups tile a rank range, so each group's first
    /// boundary is the previous group's last.
    last_split: Cell<(usize, usize)>,
    /// The index's range tree, the group size above which it answers, and the quantum's
    /// start (a finite period is in this quantum iff it ends after it).
    tree: Option<(&'a RangeTree, usize, i64)>,
}

impl QuantumView<'_> {
    /// How many of the first `r` periods of the merge come from the finite list.
    ///
    /// The smallest `i` whose `finite[i]` sorts after `tails[skip + r - i - 1]` (keys are
    /// distinct: a finite period and a tail of one server have different starts). Searched
    /// first over the finite list's chunks (testing each chunk's first period), then inside the
    /// one chunk left, so that it reads `O(log(N / CHUNK))` periods at random places rather than
    /// two per step of a binary search over ranks (each a Fenwick descent to a cold chunk).
    fn split(&self, r: usize) -> usize {
        let (memo_r, memo) = self.last_split.get();
        if memo_r == r {
            return memo;
        }
        let (f, t) = (self.finite, self.tails);
        let tl = t.len() - self.skip;
        let (mut lo, mut hi) = (r.saturating_sub(tl), r.min(f.len()));
        // `before(i, p)`: `p = finite[i]` is among the first `r` of the merge. It holds on a
        // prefix of `lo..hi`.
        let before = |i: usize, p: &CoallocPeriod| pkey(p) < pkey(t.get(self.skip + r - i - 1));
        if lo < hi {
            let (ca, cb) = (f.chunk_of(lo), f.chunk_of(hi - 1));
            // The first chunk in `ca + 1 ..= cb` whose first period is not before; the answer
            // lies in the chunk ahead of it (or is that first period).
            let (mut a, mut b) = (ca + 1, cb + 1);
            while a < b {
                let c = (a + b) / 2;
                if before(f.chunk_start(c), &f.chunk(c)[0]) {
                    a = c + 1;
                } else {
                    b = c;
                }
            }
            let base = f.chunk_start(a - 1);
            if a - 1 > ca {
                lo = base + 1;
            }
            if a <= cb {
                hi = hi.min(f.chunk_start(a));
            }
            let chunk = f.chunk(a - 1);
            while lo < hi {
                let i = (lo + hi) / 2;
                if before(i, &chunk[i - base]) {
                    lo = i + 1;
                } else {
                    hi = i;
                }
            }
        }
        self.last_split.set((r, lo));
        lo
    }

    /// The period of rank `r`.
    fn get(&self, r: usize) -> CoallocPeriod {
        let i = self.split(r);
        let t = self.skip + r - i;
        match (i < self.finite.len(), t < self.tails.len()) {
            (true, true) => {
                let (f, tl) = (self.finite.get(i), self.tails.get(t));
                if pkey(f) < pkey(tl) { *f } else { *tl }
            }
            (true, false) => *self.finite.get(i),
            _ => *self.tails.get(t),
        }
    }

    /// The range tree, the quantum's start and the primary-key bounds of the group `lo..=hi`,
    /// when the group is larger than the tree's budget.
    fn tree_for(&self, lo: usize, hi: usize) -> Option<(&RangeTree, i64, (Key, Key))> {
        let (tree, budget, qstart) = self.tree?;
        (hi + 1 - lo > budget).then(|| (tree, qstart, (pkey(&self.get(lo)), pkey(&self.get(hi)))))
    }

    /// The finite list's ranks and the tails' ranks that make up the view's ranks `lo..=hi`.
    fn ranges(&self, lo: usize, hi: usize) -> ((usize, usize), (usize, usize)) {
        let (f0, f1) = (self.split(lo), self.split(hi + 1));
        ((f0, f1), (self.skip + lo - f0, self.skip + hi + 1 - f1))
    }
}

impl PrimarySeq for QuantumView<'_> {
    fn len(&self) -> usize {
        self.finite.len() + self.tails.len() - self.skip
    }

    fn starting_after(&self, s: i64) -> usize {
        self.finite.partition_point(|p| p.start > s)
            + self.tails.partition_point(|p| p.start > s).max(self.skip)
            - self.skip
    }

    fn read(&self, lo: usize, hi: usize, out: &mut Vec<CoallocPeriod>) {
        let mut left = hi + 1 - lo;
        out.reserve(left);
        self.scan_from(lo, &mut |p| {
            out.push(*p);
            left -= 1;
            left > 0
        });
    }

    fn count_ending_before(&self, lo: usize, hi: usize, e: i64) -> usize {
        // Only finite periods count: a tail ends at OPEN_END = i64::MAX, and `e` (a saturating
        // sum) never exceeds it.
        if let Some((tree, qstart, (a, b))) = self.tree_for(lo, hi) {
            return tree.count(&below(qstart + 1), &below(e), &a, &b);
        }
        let ((f0, f1), _) = self.ranges(lo, hi);
        self.finite.count_ending_before(f0, f1, e)
    }

    fn read_ending_from(&self, lo: usize, hi: usize, e: i64, out: &mut Vec<CoallocPeriod>) {
        // Every tail contains any window's end (see above): the tails of the range are all
        // feasible and are copied as they lie.
        let ((f0, f1), (t0, t1)) = self.ranges(lo, hi);
        self.finite.extend_ending_from(f0, f1, e, out);
        self.tails.extend_range(t0, t1, out);
    }

    fn retrieve(
        &self,
        group: RetrievalGroup,
        e: i64,
        left: &mut usize,
        scratch: &mut Vec<CoallocPeriod>,
        out: &mut Vec<CoallocPeriod>,
    ) {
        let Some((tree, qstart, (a, b))) = self.tree_for(group.lo, group.hi) else {
            return retrieve_by_reading(self, group, e, left, scratch, out);
        };
        // The group's periods in secondary order are the tree's periods in the group's key
        // range that end after the quantum's start (the tails last, by server descending).
        for &(lo, hi) in group.pushes {
            if *left == 0 {
                break;
            }
            let take = (*left).min(hi - lo + 1);
            for r in lo..lo + take {
                out.push(
                    tree.select(&below(qstart + 1), r, &a, &b)
                        .expect("the group holds this rank"),
                );
            }
            *left -= take;
        }
    }

    fn scan_from(&self, lo: usize, f: &mut dyn FnMut(&CoallocPeriod) -> bool) {
        let i = self.split(lo);
        let mut a = self.finite.cursor(i);
        let mut b = self.tails.cursor(self.skip + lo - i);
        loop {
            let p = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if pkey(x) < pkey(y) => {
                    a.advance();
                    x
                }
                (_, Some(y)) => {
                    b.advance();
                    y
                }
                (Some(x), None) => {
                    a.advance();
                    x
                }
                (None, None) => return,
            };
            if !f(p) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coalloc::chunked::Key;
    use proptest::prelude::*;

    proptest! {
        /// `split(r)` is the number of finite periods among the first `r` of the merged view,
        /// counted on the merge itself, for every `r` and in any call order (the memo), on
        /// lists of many chunks (chunks hold at most 8 periods under `cfg(test)`).
        #[test]
        fn split_counts_the_finite_periods_of_a_merge_prefix(
            finite in prop::collection::btree_set((0i64..300, 0u32..4), 0..150),
            tails in prop::collection::btree_set((0i64..300, 4u32..8), 0..150),
            skip_at in 0i64..300,
            order in prop::collection::vec(0usize..310, 0..40),
        ) {
            let period = |(start, server): (i64, u32), end| CoallocPeriod { start, end, server };
            let mut f: Vec<CoallocPeriod> = finite.iter().map(|&k| period(k, k.0 + 1)).collect();
            let mut t: Vec<CoallocPeriod> = tails.iter().map(|&k| period(k, OPEN_END)).collect();
            f.sort_by_key(pkey);
            t.sort_by_key(pkey);
            let (fl, tl) = (ChunkedList::from_sorted(&f), ChunkedList::from_sorted(&t));
            let skip = tl.partition_point(|p| p.start >= skip_at);
            let view = QuantumView {
                finite: &fl,
                tails: &tl,
                skip,
                last_split: Cell::new((usize::MAX, 0)),
                tree: None,
            };
            let mut merged: Vec<(Key, bool)> = f.iter().map(|p| (pkey(p), true)).collect();
            merged.extend(t[skip..].iter().map(|p| (pkey(p), false)));
            merged.sort();
            let want = |r: usize| merged[..r].iter().filter(|m| m.1).count();
            for r in (0..=merged.len()).chain(order.iter().map(|&r| r.min(merged.len()))) {
                prop_assert_eq!(view.split(r), want(r), "r = {}", r);
            }
        }
    }
}
