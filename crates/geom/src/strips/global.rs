//! One ordered set of *all* live periods (no strips), in start or in end order.
//!
//! The thesis partitions the periods into strips because its per-strip trees can only prune a
//! whole strip at its root; a query that must find "the first strip with a candidate" then
//! walks strips one by one (`O(k)` strips for First-fit, Max-LIP and Max-TIP, `k` up to
//! `L / w`). A single tree ordered by start (resp. end) whose nodes carry the same summaries
//! (latest end and longest period, resp. earliest start and longest period) answers every
//! start-strip (resp. end-strip) rule with at most two range-restricted descents, i.e. in
//! `O(log V)` whatever the number of strips: the range bounds restrict the keys, the summaries
//! prune the subtrees that hold no candidate, and "the first strip with a candidate" is the
//! strip of the first candidate (a strip is a contiguous key range, because `strip_of` is
//! monotone).
//!
//! **Representation.** The set is the augmented AVL tree once it holds more than 4,096
//! periods. Below that it is *chunked* (the private `set` module): sorted runs of at most 32
//! periods, each with the same summary and its last key. The same searches then test run
//! summaries in key order and scan the runs they cannot skip, `O(V / 32 + 32)` per search, and
//! an update shifts and re-summarizes one run. At the thesis's `n = 20` (a few hundred to a
//! thousand live periods) that is faster than the tree's descents and rebalancing: 214–239 ns
//! per chapter-3 job against 282–342 (docs/benchmarks.md, issue 18). The answers do not
//! depend on the representation; the counted operations do (runs tested and periods read, or
//! nodes visited).
//!
//! The answers are those of [`LinearIndex`](crate::LinearIndex) for the same reasons as the
//! strip trees' (see the module documentation of `strips`): the same stored values, the same
//! thresholds, the same orders.

use std::cell::Cell;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule, StripOrder};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{StripGeometry, StripId};
use crate::tree::Forest;

use super::TreeConfig;
use super::keys::{
    ByEnd, ByStart, EndSum, NO_END, NO_START, StartSum, longest_by_end, longest_by_start,
    same_bits, same_start_key,
};
use super::scan::scan_select;
use super::set::StripSet;

/// All live periods in one (start, server)-ordered set (latest end, earliest end and longest
/// period per subtree or run; chunked or an augmented AVL tree, see the module
/// documentation): the start-strip rules without strips. The costs below are the tree's; the
/// chunked form's are `O(V / 32 + 32)`.
///
/// | rule | cost (`V` live periods) |
/// |---|---|
/// | [`Rule::EarliestFeasible`] (First-fit) | `O(log V)`: leftmost R1 candidate (`start < r`, pruned by latest end), else leftmost R2 candidate (`r <= start <= d - l`, pruned by longest) |
/// | [`Rule::EarliestStartBeforeReady`] (Max-LIP step 1) | `O(log V)` |
/// | [`Rule::EarliestStartFromReady`] | `O(log V)` |
/// | [`Rule::LatestStartBeforeReady`] (Min-LIP step 2) | `O(log V)`: rightmost R1 candidate, then the lowest server with its start |
/// | [`Rule::LongestInFirstStartStrip`] (Min-LIP step 1) | `O(log V)`: leftmost R2 candidate, then a range fold over its strip |
/// | Best-fit and the end-strip rules | `O(V)` scan (fallback, identical to [`LinearIndex`](crate::LinearIndex)) |
///
/// Updates and expiry cost `O(log V)` per period ([`ExpiryMode::Clip`] re-inserts every period
/// that started before the clock's strip at each strip change, exactly as `LinearIndex`).
///
/// ```
/// use gridsched_geom::{
///     GlobalStartIndex, IdlePeriod, IdlePeriodIndex, Rule, StripGeometry, TreeConfig, Window,
/// };
///
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
/// let mut index = GlobalStartIndex::new(config);
/// index.insert(IdlePeriod::new(5.0, 9.5, 0));
/// index.insert(IdlePeriod::new(6.2, 8.5, 1));
/// index.insert(IdlePeriod::new(7.5, 9.4, 2));
/// let job = Window::new(6.5, 1.5, 12.0).unwrap();
/// assert_eq!(index.select(Rule::EarliestFeasible, &job), Some(IdlePeriod::new(5.0, 9.5, 0)));
/// assert_eq!(
///     index.select(Rule::LongestInFirstStartStrip, &job),
///     Some(IdlePeriod::new(7.5, 9.4, 2))
/// );
/// ```
#[derive(Debug, Clone)]
pub struct GlobalStartIndex {
    config: TreeConfig,
    forest: Forest<ByStart, StartSum>,
    set: StripSet<ByStart, StartSum>,
    clock_strip: Option<StripId>,
    /// Live periods (not counting `pending`).
    len: usize,
    /// A period removed by the caller but still in the tree: the scheduler replaces a chosen
    /// period by its fragments, and the leading fragment has the same (start, server) key, so
    /// it takes the node in place ([`StripSet::replace`]) instead of a removal and an
    /// insertion. Any other operation first removes it for real.
    pending: Option<IdlePeriod>,
    /// The last answer of `select`, while nothing changed since: removing it needs no search.
    last_hit: Option<IdlePeriod>,
    /// Periods examined by the fallback scan.
    steps: Cell<u64>,
}

impl GlobalStartIndex {
    /// An empty index.
    pub fn new(config: TreeConfig) -> Self {
        GlobalStartIndex {
            config,
            forest: Forest::new(),
            set: StripSet::chunked(),
            clock_strip: None,
            len: 0,
            pending: None,
            last_hit: None,
            steps: Cell::new(0),
        }
    }

    /// Removes the pending period for real.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            let found = self.set.remove(&mut self.forest, &ByStart(p));
            debug_assert!(found.is_some(), "pending {p} lost");
        }
    }

    /// Whether this index answers `rule` from its tree (every other rule is answered by an
    /// `O(V)` scan).
    pub fn supports(rule: Rule) -> bool {
        matches!(
            rule,
            Rule::EarliestFeasible
                | Rule::LongestInFirstStartStrip
                | Rule::EarliestStartFromReady
                | Rule::LatestStartBeforeReady { .. }
                | Rule::EarliestStartBeforeReady
        )
    }

    fn geometry(&self) -> StripGeometry {
        self.config.geometry
    }

    /// Removes the live period with `probe`'s (start, server) and returns it as stored.
    /// `O(log V)`.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        self.flush();
        let got = match self.last_hit.take() {
            Some(hit) if same_start_key(&hit, probe) => hit,
            _ => self.set.get(&self.forest, &ByStart(*probe))?.0,
        };
        self.pending = Some(got);
        self.len -= 1;
        Some(got)
    }

    /// The leftmost R1 candidate: `start < r` and `end >= r + l`.
    fn first_r1(&self, w: &Window) -> Option<IdlePeriod> {
        let hi = |k: &ByStart| k.0.start < w.ready;
        let sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let pred = |k: &ByStart| k.0.end >= w.earliest_end;
        self.set
            .first_in(&self.forest, NO_START, Some(&hi), &sub, &pred)
            .map(|k| k.0)
    }

    /// The leftmost R2 candidate: `r <= start <= d - l` and `len >= l`.
    fn first_r2(&self, w: &Window) -> Option<IdlePeriod> {
        let lo = |k: &ByStart| k.0.start >= w.ready;
        let hi = |k: &ByStart| k.0.start <= w.latest_start;
        let sub = |s: &StartSum| s.max_len >= w.min_len;
        let pred = |k: &ByStart| k.0.len() >= w.min_len;
        self.set
            .first_in(&self.forest, Some(&lo), Some(&hi), &sub, &pred)
            .map(|k| k.0)
    }

    fn longest_in_first_start_strip(&self, w: &Window) -> Option<IdlePeriod> {
        let first = self.first_r2(w)?;
        let geo = self.geometry();
        let g = geo.strip_of(first.start);
        let lo = |k: &ByStart| k.0.start >= w.ready && geo.strip_of(k.0.start) >= g;
        let hi = |k: &ByStart| k.0.start <= w.latest_start && geo.strip_of(k.0.start) <= g;
        // `first` is a candidate of the range, so the range's longest period is one.
        let (lo, hi) = (Some(&lo), Some(&hi));
        let max_len = self.set.fold_in(&self.forest, lo, hi)?.max_len;
        longest_by_start(&self.forest, &self.set, lo, hi, max_len)
    }

    fn latest_start_before_ready(&self, w: &Window, skip_ready_strip: bool) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let limit = if skip_ready_strip {
            geo.strip_start(geo.strip_of(w.ready))
        } else {
            w.ready
        };
        let hi = |k: &ByStart| k.0.start < w.ready && k.0.start < limit;
        let sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let pred = |k: &ByStart| k.0.end >= w.earliest_end;
        let last = self
            .set
            .last_in(&self.forest, NO_START, Some(&hi), &sub, &pred)?;
        // Ties on the latest start go to the lowest server: the first candidate with it.
        let start = last.0.start;
        let lo = |k: &ByStart| k.0.start.total_cmp(&start).is_ge();
        self.set
            .first_in(&self.forest, Some(&lo), Some(&hi), &sub, &pred)
            .map(|k| k.0)
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let all = self.set.iter(&self.forest).map(|k| k.0);
        let (got, ops) = scan_select(self.geometry(), all, rule, w);
        self.steps.set(self.steps.get() + ops);
        got
    }

    /// Panics unless the tree is a valid AVL tree with exact summaries and the length and
    /// arena are consistent. `O(V)`; for tests.
    pub fn check_invariants(&self) {
        let n = self
            .set
            .check(&self.forest)
            .unwrap_or_else(|e| panic!("global start tree: {e}"));
        assert_eq!(n, self.len + usize::from(self.pending.is_some()), "length");
        let in_tree = if self.set.is_tree() { n } else { 0 };
        assert_eq!(self.forest.live_nodes(), in_tree, "arena leak");
    }
}

impl IdlePeriodIndex for GlobalStartIndex {
    /// `O(log V)`.
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        self.last_hit = None;
        if let Some(old) = self.pending
            && same_start_key(&old, &period)
        {
            let done = self
                .set
                .replace(&mut self.forest, &ByStart(old), ByStart(period));
            debug_assert!(done, "pending {old} lost");
            self.pending = None;
            self.len += 1;
            return;
        }
        let added = self.set.insert(&mut self.forest, ByStart(period));
        debug_assert!(added, "idle period {period} is already live");
        self.len += usize::from(added);
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        self.flush();
        self.last_hit = None;
        // Expire (found through the earliest-end summaries), as `LinearIndex` does first.
        while self
            .set
            .remove_first(
                &mut self.forest,
                &|s: &StartSum| s.min_end <= now,
                &|k: &ByStart| k.0.end <= now,
            )
            .is_some()
        {
            self.len -= 1;
        }
        let geo = self.geometry();
        let s = geo.strip_of(now);
        if self.config.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|c| s > c) {
            // Every period starting before the clock's strip (a prefix) now starts at `now`.
            let boundary = geo.strip_start(s);
            let mut clipped = Vec::new();
            while let Some(k) = self.set.first(&self.forest) {
                if k.0.start >= boundary {
                    break;
                }
                self.set.remove(&mut self.forest, &k);
                clipped.push(k.0);
            }
            for mut p in clipped {
                p.start = now;
                let added = self.set.insert(&mut self.forest, ByStart(p));
                debug_assert!(added, "clipping made {p} collide");
            }
        }
        self.clock_strip = Some(s);
    }

    fn select(&mut self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        self.flush();
        let got = match rule {
            Rule::EarliestFeasible => self.first_r1(w).or_else(|| self.first_r2(w)),
            Rule::EarliestStartBeforeReady => self.first_r1(w),
            Rule::EarliestStartFromReady => self.first_r2(w),
            Rule::LongestInFirstStartStrip => self.longest_in_first_start_strip(w),
            Rule::LatestStartBeforeReady { skip_ready_strip } => {
                self.latest_start_before_ready(w, skip_ready_strip)
            }
            Rule::ShortestFeasible
            | Rule::ShortestByLiteralStripQueries
            | Rule::LongestInEndStrip { .. }
            | Rule::EarliestEndAfterDeadline
            | Rule::LatestEndAfterDeadline => self.scan(rule, w),
        };
        self.last_hit = got;
        got
    }

    fn len(&self) -> usize {
        self.len
    }

    fn operations(&self) -> u64 {
        self.forest.visits() + self.steps.get()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let pending = self.pending;
        self.set
            .iter(&self.forest)
            .map(|k| k.0)
            .filter(|p| !pending.is_some_and(|q| same_bits(p, &q)))
            .collect()
    }
}

/// All live periods in one (end, start descending, server)-ordered set (earliest start and
/// greatest length per subtree or run; chunked or an augmented AVL tree, see the module
/// documentation), the servers' open-ended tails apart in a second one (at most `n`, usually
/// a single run): the end-strip rules without strips. The costs below are the tree's; the
/// chunked form's are `O(V / 32 + 32)`.
///
/// | rule | cost (`V` live periods) |
/// |---|---|
/// | [`Rule::LatestEndAfterDeadline`] (Max-TIP step 1) | `O(log n)` if a tail fits (the first fitting tail in (start descending, server) order), else `O(log V)`: rightmost period with `end > d` and `start <= d - l` (pruned by earliest start), then the first one with its end |
/// | [`Rule::EarliestEndAfterDeadline`] (Min-TIP step 2) | `O(log V)` |
/// | [`Rule::LongestInEndStrip`] (either order) | `O(log V)`: first (or last) candidate in `[r + l, d]`, then a range fold over its end strip |
/// | start-strip rules | `O(V)` scan (fallback, identical to [`LinearIndex`](crate::LinearIndex)) |
///
/// Expiry pops the prefix `end <= now` (`O(log V)` per period, nothing at all before the
/// clock reaches the earliest end); [`ExpiryMode::Clip`] finds the periods that started
/// before the clock's strip through the earliest-start summaries. `remove` is `O(1)` for the
/// last answer of `select`, `O(log V)` by the exact (end, start, server), and `O(V)` by
/// (start, server) alone if the caller's `end` differs from the stored one. The next
/// insertion of a fragment with the removed period's end and server takes its node in place
/// when it has the same rank.
///
/// ```
/// use gridsched_geom::{
///     GlobalEndIndex, IdlePeriod, IdlePeriodIndex, Rule, StripGeometry, TreeConfig, Window,
/// };
///
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
/// let mut index = GlobalEndIndex::new(config);
/// index.insert(IdlePeriod::new(5.0, 9.5, 0));
/// index.insert(IdlePeriod::new(6.2, 8.5, 1));
/// index.insert(IdlePeriod::tail(3.0, 2));
/// let tight = Window::new(6.0, 2.0, 9.0).unwrap();
/// assert_eq!(index.select(Rule::EarliestEndAfterDeadline, &tight), Some(IdlePeriod::new(5.0, 9.5, 0)));
/// assert_eq!(index.select(Rule::LatestEndAfterDeadline, &tight), Some(IdlePeriod::tail(3.0, 2)));
/// ```
#[derive(Debug, Clone)]
pub struct GlobalEndIndex {
    config: TreeConfig,
    forest: Forest<ByEnd, EndSum>,
    /// Periods with a finite end.
    finite: StripSet<ByEnd, EndSum>,
    /// The servers' tails (`end = +inf`), which come after every finite period in end order.
    tails: StripSet<ByEnd, EndSum>,
    clock_strip: Option<StripId>,
    /// Live periods (not counting `pending`).
    len: usize,
    /// A period removed by the caller but still stored (as in [`GlobalStartIndex`]): the
    /// trailing fragment the scheduler inserts next has the same end, and takes the node in
    /// place when no other period sits between them in end order.
    pending: Option<IdlePeriod>,
    /// The last answer of `select`, while nothing changed since.
    last_hit: Option<IdlePeriod>,
    /// Smallest end among live periods, or lower (expiry has nothing to do before it).
    next_expiry: Time,
    steps: Cell<u64>,
}

impl GlobalEndIndex {
    /// An empty index.
    pub fn new(config: TreeConfig) -> Self {
        GlobalEndIndex {
            config,
            forest: Forest::new(),
            finite: StripSet::chunked(),
            tails: StripSet::chunked(),
            clock_strip: None,
            len: 0,
            pending: None,
            last_hit: None,
            next_expiry: Time::INFINITY,
            steps: Cell::new(0),
        }
    }

    /// Whether this index answers `rule` from its tree (every other rule is answered by an
    /// `O(V)` scan).
    pub fn supports(rule: Rule) -> bool {
        matches!(
            rule,
            Rule::LongestInEndStrip { .. }
                | Rule::EarliestEndAfterDeadline
                | Rule::LatestEndAfterDeadline
        )
    }

    fn geometry(&self) -> StripGeometry {
        self.config.geometry
    }

    /// The set a period belongs to, with the forest.
    fn set_of(
        &mut self,
        p: &IdlePeriod,
    ) -> (&mut StripSet<ByEnd, EndSum>, &mut Forest<ByEnd, EndSum>) {
        let set = if p.is_tail() {
            &mut self.tails
        } else {
            &mut self.finite
        };
        (set, &mut self.forest)
    }

    /// Every stored period (`pending` included), finite ones first, in end order.
    fn stored(&self) -> impl Iterator<Item = IdlePeriod> + '_ {
        self.finite
            .iter(&self.forest)
            .chain(self.tails.iter(&self.forest))
            .map(|k| k.0)
    }

    /// Removes exactly `p` from its set; whether it was there.
    fn remove_stored(&mut self, p: &IdlePeriod) -> bool {
        let (set, forest) = self.set_of(p);
        set.remove(forest, &ByEnd(*p)).is_some()
    }

    /// Removes the pending period for real.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            let found = self.remove_stored(&p);
            debug_assert!(found, "pending {p} lost");
        }
    }

    /// Removes exactly `p` (same end, start and server); whether it was there. `O(log V)`.
    pub fn remove_exact(&mut self, p: &IdlePeriod) -> bool {
        self.flush();
        self.last_hit = None;
        let found = self.remove_stored(p);
        self.len -= usize::from(found);
        found
    }

    /// Removes the live period with `probe`'s (start, server), returned as stored: `O(1)` if
    /// it is the last answer of `select`, `O(log V)` when `probe.end` is the stored end, else
    /// an `O(V)` search.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        self.flush();
        let set = if probe.is_tail() {
            &self.tails
        } else {
            &self.finite
        };
        let stored = match self.last_hit.take() {
            Some(hit) if same_start_key(&hit, probe) => hit,
            _ => match set.get(&self.forest, &ByEnd(*probe)) {
                Some(k) => k.0,
                None => {
                    self.steps.set(self.steps.get() + self.len as u64);
                    self.stored().find(|p| same_start_key(p, probe))?
                }
            },
        };
        self.pending = Some(stored);
        self.len -= 1;
        Some(stored)
    }

    fn earliest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        self.finite
            .first_in(&self.forest, Some(&lo), NO_END, &sub, &pred)
            .or_else(|| {
                self.tails
                    .first_in(&self.forest, Some(&lo), NO_END, &sub, &pred)
            })
            .map(|k| k.0)
    }

    fn latest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        // Every tail ends after the deadline, at the same (infinite) end: the best is the first
        // fitting one in (start descending, server) order.
        if let Some(k) = self
            .tails
            .first_in(&self.forest, Some(&lo), NO_END, &sub, &pred)
        {
            return Some(k.0);
        }
        let last = self
            .finite
            .last_in(&self.forest, Some(&lo), NO_END, &sub, &pred)?;
        // Ties on the latest end go to the later start, then the lower server: the first
        // candidate with that end in this order.
        let end = last.0.end;
        let same = |k: &ByEnd| k.0.end.total_cmp(&end).is_ge();
        self.finite
            .first_in(&self.forest, Some(&same), NO_END, &sub, &pred)
            .map(|k| k.0)
    }

    fn longest_in_end_strip(&self, w: &Window, order: StripOrder) -> Option<IdlePeriod> {
        // Candidates end by the (finite) deadline: no tail is one.
        let geo = self.geometry();
        let lo = |k: &ByEnd| k.0.end >= w.earliest_end;
        let hi = |k: &ByEnd| k.0.end <= w.deadline;
        let sub = |s: &EndSum| s.max_len >= w.min_len;
        let pred = |k: &ByEnd| k.0.len() >= w.min_len;
        let set = &self.finite;
        let edge = match order {
            StripOrder::EarliestFirst => {
                set.first_in(&self.forest, Some(&lo), Some(&hi), &sub, &pred)
            }
            StripOrder::LatestFirst => set.last_in(&self.forest, Some(&lo), Some(&hi), &sub, &pred),
        }?;
        let g = geo.strip_of(edge.0.end);
        let in_lo = |k: &ByEnd| lo(k) && geo.strip_of(k.0.end) >= g;
        let in_hi = |k: &ByEnd| hi(k) && geo.strip_of(k.0.end) <= g;
        // The edge is a candidate of that strip, so the strip's longest period is one.
        let (lo, hi) = (Some(&in_lo), Some(&in_hi));
        let max_len = set.fold_in(&self.forest, lo, hi)?.max_len;
        longest_by_end(&self.forest, set, lo, hi, max_len)
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let (got, ops) = scan_select(self.geometry(), self.stored(), rule, w);
        self.steps.set(self.steps.get() + ops);
        got
    }

    /// Panics unless the trees are valid AVL trees with exact summaries, the tails and only
    /// they are in the tails' tree, and the length and arena are consistent. `O(V)`; for
    /// tests.
    pub fn check_invariants(&self) {
        let check = |set: &StripSet<ByEnd, EndSum>, what: &str| {
            let n = set
                .check(&self.forest)
                .unwrap_or_else(|e| panic!("global end tree ({what}): {e}"));
            (n, if set.is_tree() { n } else { 0 })
        };
        let (nf, tf) = check(&self.finite, "finite");
        let (nt, tt) = check(&self.tails, "tails");
        assert!(self.finite.iter(&self.forest).all(|k| !k.0.is_tail()));
        assert!(self.tails.iter(&self.forest).all(|k| k.0.is_tail()));
        assert_eq!(
            nf + nt,
            self.len + usize::from(self.pending.is_some()),
            "length"
        );
        if let Some(first) = self.finite.first(&self.forest) {
            assert!(
                self.next_expiry <= first.0.end,
                "expiry bound above the first end"
            );
        }
        assert_eq!(self.forest.live_nodes(), tf + tt, "arena leak");
    }
}

impl IdlePeriodIndex for GlobalEndIndex {
    /// `O(log V)`.
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        self.last_hit = None;
        if period.end < self.next_expiry {
            self.next_expiry = period.end;
        }
        if let Some(old) = self.pending
            && old.server == period.server
            && old.end.to_bits() == period.end.to_bits()
        {
            let (set, forest) = self.set_of(&old);
            if set.replace(forest, &ByEnd(old), ByEnd(period)) {
                self.pending = None;
                self.len += 1;
                return;
            }
        }
        let (set, forest) = self.set_of(&period);
        let added = set.insert(forest, ByEnd(period));
        debug_assert!(added, "idle period {period} is already live");
        self.len += usize::from(added);
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        self.flush();
        self.last_hit = None;
        // Expire: the ended periods are a prefix of the finite ones' end order.
        if now >= self.next_expiry {
            while self
                .finite
                .pop_first_if(&mut self.forest, |k| k.0.end <= now)
                .is_some()
            {
                self.len -= 1;
            }
            self.next_expiry = self
                .finite
                .first(&self.forest)
                .map_or(Time::INFINITY, |k| k.0.end);
        }
        let geo = self.geometry();
        let s = geo.strip_of(now);
        if self.config.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|c| s > c) {
            let boundary = geo.strip_start(s);
            let mut clipped = Vec::new();
            for set in [&mut self.finite, &mut self.tails] {
                while let Some(k) = set.first_in(
                    &self.forest,
                    NO_END,
                    NO_END,
                    &|s: &EndSum| s.min_start < boundary,
                    &|k: &ByEnd| k.0.start < boundary,
                ) {
                    set.remove(&mut self.forest, &k);
                    clipped.push(k.0);
                }
            }
            for mut p in clipped {
                p.start = now;
                let (set, forest) = self.set_of(&p);
                let added = set.insert(forest, ByEnd(p));
                debug_assert!(added, "clipping made {p} collide");
            }
        }
        self.clock_strip = Some(s);
    }

    fn select(&mut self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        self.flush();
        let got = match rule {
            Rule::LongestInEndStrip { order } => self.longest_in_end_strip(w, order),
            Rule::EarliestEndAfterDeadline => self.earliest_end_after_deadline(w),
            Rule::LatestEndAfterDeadline => self.latest_end_after_deadline(w),
            _ => self.scan(rule, w),
        };
        self.last_hit = got;
        got
    }

    fn len(&self) -> usize {
        self.len
    }

    fn operations(&self) -> u64 {
        self.forest.visits() + self.steps.get()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let pending = self.pending;
        let mut out: Vec<IdlePeriod> = self
            .stored()
            .filter(|p| !pending.is_some_and(|q| same_bits(p, &q)))
            .collect();
        out.sort_by(IdlePeriod::cmp_start);
        out
    }
}
