//! Horizontal strips: one (start, server)-ordered augmented AVL tree per strip of start times.

use std::cell::Cell;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{StripGeometry, StripId};
use crate::tree::Forest;

use super::TreeConfig;
use super::best_fit::{BestFitForest, BfRoot};
use super::keys::{
    ByStart, Cover, NO_START, StartSum, bound, longest_by_start, pick, same_bits, same_start_key,
    shorter,
};
use super::ring::Ring;
use super::scan::scan_select;
use super::set::StripSet;

/// The trees of one strip (or of the T0 pool).
#[derive(Debug, Clone, Default)]
struct Slot {
    /// The thesis's per-strip tree: (start, server) order, max-end / min-end / max-length
    /// augmentation (a sorted vector while the strip is small, see [`StripSet`]).
    set: StripSet<ByStart, StartSum>,
    /// Best-fit's 2-D tree over the same periods: kept only when Best-fit is enabled and the
    /// strip is large (built at [`BUILD_AT`] periods, dropped below [`DROP_BELOW`]).
    bf: BfRoot,
}

/// A strip's Best-fit range tree is built once it holds this many periods...
const BUILD_AT: u32 = 64;
/// ...and dropped when it falls below this many (hysteresis: a strip oscillating around one
/// size does not rebuild at every update). Below, a query visits the strip's own tree,
/// pruned by its latest-end / longest summaries: `O(V_s)` at worst, which for `V_s < 64`
/// is cheaper than the range tree's `O(log² V_s)` search and its `O(log² V_s)` updates.
const DROP_BELOW: u32 = 32;

impl Slot {
    fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

type StartForest = Forest<ByStart, StartSum>;

/// Best-fit's structure and its size thresholds.
#[derive(Debug, Clone)]
struct BestFit {
    forest: BestFitForest,
    build_at: u32,
    drop_below: u32,
}

fn slot_insert(
    forest: &mut StartForest,
    best_fit: &mut Option<BestFit>,
    slot: &mut Slot,
    p: IdlePeriod,
) -> bool {
    if !slot.set.insert(forest, ByStart(p)) {
        return false;
    }
    if let Some(bf) = best_fit {
        if !slot.bf.is_empty() {
            bf.forest.insert(&mut slot.bf, p);
        } else if slot.set.len() >= bf.build_at {
            let elems: Vec<IdlePeriod> = slot.set.iter(forest).map(|k| k.0).collect();
            slot.bf = bf.forest.build_root(&elems);
        }
    }
    true
}

fn slot_remove(
    forest: &mut StartForest,
    best_fit: &mut Option<BestFit>,
    slot: &mut Slot,
    probe: &IdlePeriod,
) -> Option<IdlePeriod> {
    let got = slot.set.remove(forest, &ByStart(*probe))?.0;
    if let Some(bf) = best_fit {
        if slot.bf.is_empty() {
        } else if slot.set.len() < bf.drop_below {
            bf.forest.clear(&mut slot.bf);
        } else {
            let found = bf.forest.remove(&mut slot.bf, &got);
            debug_assert!(found, "best-fit tree out of sync for {got}");
        }
    }
    Some(got)
}

/// The thesis's horizontal-strip index (Castillo §3.2.1, §3.3; spec §2.3, §2.5, §2.7, §2.8):
/// idle periods grouped by the strip of their **start** time, one augmented AVL tree per strip
/// in a ring of `ceil(L / w) + 2` slots, plus the T0 pool of live periods whose start strip has
/// rotated into the past.
///
/// Every tree is ordered by (start, server), which is the median-start navigation of the
/// thesis's leaf-oriented trees, and each node summarises its subtree by the latest end (the
/// max-end pointer), the earliest end (for expiry) and the greatest length (the max-length
/// pointer; the longest period itself, ties as in [`Rule`], is found by one more descent).
///
/// **Small strips.** A strip (or the pool) of at most 16 periods is kept as a sorted vector
/// with its summary instead of a tree (it becomes a tree above 16 and a vector again at 8):
/// the same queries are then short scans of contiguous memory. At `n = 20` nearly every strip
/// is small; the bounds below are those of the tree form, which every large strip uses.
///
/// # Rules and costs
/// With `V_s <= M n` periods in a strip, `k` = number of strips between the ready time's
/// strip and that of `d - l`, `m` = number of live strips before the ready time's strip:
///
/// | rule | cost |
/// |---|---|
/// | [`Rule::EarliestFeasible`] (first-fit) | `O(m + k + log V_s)`: `O(1)` skip per strip, one descent in the first strip with a fit, `O(log V_s)` in the two boundary strips |
/// | [`Rule::LongestInFirstStartStrip`] (Min-LIP step 1) | `O(k + log V_s)`: root max-length test in interior strips, range fold in the boundary strips (A8) |
/// | [`Rule::EarliestStartFromReady`] | `O(k + log V_s)` |
/// | [`Rule::LatestStartBeforeReady`] (Min-LIP step 2) | `O(m + log V_s)`: root max-end test per strip, from the ready strip down, then T0 |
/// | [`Rule::EarliestStartBeforeReady`] (Max-LIP) | `O(m + log V_s)` |
/// | [`Rule::ShortestFeasible`] (Best-fit), built [`with_best_fit`](Self::with_best_fit) | `O((m + k) log V_s + log² V_s)` (see the Best-fit structure below) |
/// | end-strip rules (Min-TIP, Max-TIP), or Best-fit without its structure | `O(V)` scan (documented fallback, identical to [`LinearIndex`](crate::LinearIndex)) |
///
/// The T0 pool is searched like one more tree (`O(log n)`, `<= n` periods) in front of the
/// strips. Updates cost `O(log V_s)` (`O(log² V_s)` amortized with Best-fit).
///
/// # Best-fit structure
/// Built only by [`StartStripIndex::with_best_fit`]: per strip, a dynamic range tree whose
/// primary is ordered by (start, server) and whose nodes own two secondary trees over their
/// subtree, one ordered by end with min-length summaries (`t^e`, for R1: "shortest period
/// ending at or after `r + l`") and one ordered by length (`t^l`, for R2: "shortest period of
/// length at least `l`"). This is the thesis's 2-D structure; its primary is a scapegoat tree
/// (partial rebuilding) rather than a red-black tree, because rotations would force rebuilding
/// secondaries of arbitrary size while partial rebuilding amortizes them: `O(log V_s)` per
/// interior strip, `O(log² V_s)` per boundary strip, `O(log² V_s)` amortized per update,
/// `O(V log V_s)` memory. Subtrees below 16 periods keep no secondaries and are scanned.
/// Two prunings that change no answer cut the typical cost: R2 strips are searched first,
/// then R1 strips from the ready time's downwards, stopping as soon as a strip's lower bound on
/// any candidate's length (`r + l - its end`) exceeds the best length found; and a canonical
/// subtree is skipped when its (latest end, longest, shortest) summary shows it holds no
/// candidate or nothing at most as short as the best.
///
/// **Size threshold.** A strip keeps its range tree only while it is large: the tree is built
/// (`O(V_s log V_s)`) when the strip reaches 64 periods and dropped when it falls below 32.
/// A smaller strip is searched in its own (start, server) tree, visiting the periods that
/// satisfy the query's start bounds and its latest-end (R1) or longest (R2) test, pruned by
/// the same summaries: `O(V_s)` at worst, less than the range tree's search and upkeep at
/// that size (at `n = 20` every strip is small, and Best-fit costs no more than the scan of
/// [`LinearIndex`](crate::LinearIndex)). The answers do not depend on the representation.
///
/// # Clock, ring and horizon
/// The ring is anchored at the strip of the first inserted start (or of the first `advance`)
/// and rotated by [`advance`](IdlePeriodIndex::advance) in `O(1)` per strip. Periods of a
/// rotated strip that are still alive move into the T0 pool (`O(log n)` each, at most once per
/// period; [`ExpiryMode::Pool`] keeps their start, [`ExpiryMode::Clip`] moves every start before
/// the current strip to `now` on each strip change, exactly as
/// [`LinearIndex`](crate::LinearIndex)). A period starting beyond the ring's last strip (which
/// the contract `start <= now + L` excludes) makes the ring grow by doubling (`O(slots)`);
/// it panics only past `2^22` slots.
///
/// ```
/// use gridsched_geom::{
///     IdlePeriod, IdlePeriodIndex, Rule, StartStripIndex, StripGeometry, TreeConfig, Window,
/// };
///
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
/// let mut index = StartStripIndex::with_best_fit(config);
/// index.insert(IdlePeriod::new(5.0, 9.5, 0));
/// index.insert(IdlePeriod::new(6.2, 8.5, 1));
/// index.insert(IdlePeriod::new(7.5, 9.4, 2));
/// index.advance(0.0);
/// let job = Window::new(6.5, 1.5, 12.0).unwrap();
/// assert_eq!(index.select(Rule::EarliestFeasible, &job), Some(IdlePeriod::new(5.0, 9.5, 0)));
/// assert_eq!(index.select(Rule::ShortestFeasible, &job), Some(IdlePeriod::new(7.5, 9.4, 2)));
/// // Min-LIP: step 1 finds Z in the ready time's strip (not V, which starts before r).
/// assert_eq!(
///     index.select(Rule::LongestInFirstStartStrip, &job),
///     Some(IdlePeriod::new(7.5, 9.4, 2))
/// );
/// ```
#[derive(Debug, Clone)]
pub struct StartStripIndex {
    config: TreeConfig,
    forest: StartForest,
    best_fit: Option<BestFit>,
    pool: Slot,
    ring: Ring<Slot>,
    anchored: bool,
    /// Strip of the clock at the last `advance` (as `LinearIndex`, for clipping).
    clock_strip: Option<StripId>,
    /// Live periods (not counting `pending`).
    len: usize,
    /// A period removed by the caller but still in its strip: the scheduler replaces a
    /// chosen period by its fragments, and the leading fragment has the same (start, server)
    /// key, so it takes the period's place in its strip instead of a removal and an insertion.
    /// Any other operation first removes it for real.
    pending: Option<IdlePeriod>,
    /// The last answer of `select`, while nothing changed since: removing it needs no search.
    last_hit: Option<IdlePeriod>,
    /// Strips examined and fallback periods scanned.
    steps: Cell<u64>,
    /// Scratch for the periods of a strip that rotates into the past (reused, so a rotation
    /// allocates nothing).
    rotated: Vec<ByStart>,
}

impl StartStripIndex {
    /// An empty index without the Best-fit structure (Best-fit then falls back to a scan).
    pub fn new(config: TreeConfig) -> Self {
        StartStripIndex {
            ring: Ring::new(config.ring_slots(), 0),
            config,
            forest: Forest::new(),
            best_fit: None,
            pool: Slot::default(),
            anchored: false,
            clock_strip: None,
            len: 0,
            pending: None,
            last_hit: None,
            steps: Cell::new(0),
            rotated: Vec::new(),
        }
    }

    /// An empty index that also maintains Best-fit's 2-D trees.
    pub fn with_best_fit(config: TreeConfig) -> Self {
        Self::with_best_fit_thresholds(config, BUILD_AT, DROP_BELOW)
    }

    /// [`StartStripIndex::with_best_fit`] whose strips keep a range tree from `build_at`
    /// periods on and drop it below `drop_below` (`1, 0`: always). For tests.
    #[doc(hidden)]
    pub fn with_best_fit_thresholds(config: TreeConfig, build_at: u32, drop_below: u32) -> Self {
        assert!(
            drop_below <= build_at,
            "thresholds {build_at} / {drop_below}"
        );
        StartStripIndex {
            best_fit: Some(BestFit {
                forest: BestFitForest::default(),
                build_at,
                drop_below,
            }),
            ..Self::new(config)
        }
    }

    /// Whether this index type answers `rule` from its trees (given the Best-fit structure for
    /// [`Rule::ShortestFeasible`]). Every other rule is still answered, by an `O(V)` scan.
    pub fn supports(rule: Rule) -> bool {
        matches!(
            rule,
            Rule::EarliestFeasible
                | Rule::ShortestFeasible
                | Rule::LongestInFirstStartStrip
                | Rule::EarliestStartFromReady
                | Rule::LatestStartBeforeReady { .. }
                | Rule::EarliestStartBeforeReady
        )
    }

    /// Whether *this* index answers `rule` from its trees (i.e. [`Self::supports`], and the
    /// Best-fit structure exists if `rule` is Best-fit).
    pub fn indexes(&self, rule: Rule) -> bool {
        Self::supports(rule) && (rule != Rule::ShortestFeasible || self.best_fit.is_some())
    }

    /// The construction parameters.
    pub fn config(&self) -> &TreeConfig {
        &self.config
    }

    /// Number of ring slots (grows only if the horizon contract is violated).
    pub fn ring_slots(&self) -> usize {
        self.ring.len()
    }

    fn geometry(&self) -> StripGeometry {
        self.config.geometry
    }

    #[inline]
    fn step(&self) {
        self.steps.set(self.steps.get() + 1);
    }

    fn anchor(&mut self, g: StripId) {
        if !self.anchored {
            self.ring.rebase_empty(g);
            self.anchored = true;
        }
    }

    /// Inserts into the pool or the ring slot of the period's start strip.
    fn place(&mut self, p: IdlePeriod) -> bool {
        let g = self.geometry().strip_of(p.start);
        self.anchor(g);
        let slot = if g < self.ring.base() {
            &mut self.pool
        } else {
            self.ring.get_or_grow(g)
        };
        slot_insert(&mut self.forest, &mut self.best_fit, slot, p)
    }

    /// Removes the live period with `probe`'s (start, server) and returns it as stored.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        self.flush();
        if !self.anchored {
            return None;
        }
        let got = match self.last_hit.take() {
            Some(hit) if same_start_key(&hit, probe) => hit,
            _ => {
                let slot = self.slot_of(probe.start)?;
                slot.set.get(&self.forest, &ByStart(*probe))?.0
            }
        };
        self.pending = Some(got);
        self.len -= 1;
        Some(got)
    }

    /// The slot holding the periods that start at `start`, if it exists.
    fn slot_of(&self, start: Time) -> Option<&Slot> {
        let g = self.geometry().strip_of(start);
        if g < self.ring.base() {
            Some(&self.pool)
        } else {
            self.ring.get(g)
        }
    }

    /// Removes the pending period for real.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            let g = self.geometry().strip_of(p.start);
            let slot = if g < self.ring.base() {
                &mut self.pool
            } else {
                self.ring.get_mut(g).expect("pending period's strip")
            };
            let found = slot_remove(&mut self.forest, &mut self.best_fit, slot, &p);
            debug_assert!(found.is_some(), "pending {p} lost");
        }
    }

    /// Lets `period` take the pending period's place if they have the same key; whether it
    /// did.
    fn replace_pending(&mut self, period: IdlePeriod) -> bool {
        let Some(old) = self.pending.filter(|old| same_start_key(old, &period)) else {
            return false;
        };
        self.pending = None;
        let Self {
            forest, best_fit, ..
        } = self;
        let g = self.config.geometry.strip_of(old.start);
        let slot = if g < self.ring.base() {
            &mut self.pool
        } else {
            self.ring.get_mut(g).expect("pending period's strip")
        };
        let done = slot.set.replace(forest, &ByStart(old), ByStart(period));
        debug_assert!(done, "pending {old} lost");
        if let Some(bf) = best_fit
            && !slot.bf.is_empty()
        {
            bf.forest.remove(&mut slot.bf, &old);
            bf.forest.insert(&mut slot.bf, period);
        }
        true
    }

    /// Removes every period of `slot` with `end <= now` (`O(log n)` each, found through the
    /// min-end summaries).
    fn expire(&mut self, which: Option<StripId>, now: Time) {
        loop {
            let slot = match which {
                None => &mut self.pool,
                Some(g) => match self.ring.get_mut(g) {
                    Some(s) => s,
                    None => return,
                },
            };
            let dead = slot
                .set
                .first_in(
                    &self.forest,
                    NO_START,
                    NO_START,
                    &|s: &StartSum| s.min_end <= now,
                    &|k: &ByStart| k.0.end <= now,
                )
                .map(|k| k.0);
            let Some(dead) = dead else { return };
            slot_remove(&mut self.forest, &mut self.best_fit, slot, &dead);
            self.len -= 1;
        }
    }

    /// Takes out every period of `slot` starting before `boundary` (a prefix of its order).
    fn take_before(&mut self, which: Option<StripId>, boundary: Time, out: &mut Vec<IdlePeriod>) {
        loop {
            let slot = match which {
                None => &mut self.pool,
                Some(g) => match self.ring.get_mut(g) {
                    Some(s) => s,
                    None => return,
                },
            };
            match slot.set.first(&self.forest).map(|k| k.0) {
                Some(p) if p.start < boundary => {
                    slot_remove(&mut self.forest, &mut self.best_fit, slot, &p);
                    out.push(p);
                }
                _ => return,
            }
        }
    }

    /// The trees that may hold strips `<= last`, in ascending strip order, as
    /// (root, slot, first strip, last strip); the pool covers `(-inf, base - 1]`.
    fn ascending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (&Slot, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let pool =
            (!self.pool.is_empty() && first < base).then_some((&self.pool, StripId::MIN, base - 1));
        pool.into_iter()
            .chain(self.ring.range(first, last).filter_map(move |(g, s)| {
                self.step();
                (!s.is_empty()).then_some((s, g, g))
            }))
    }

    /// As [`Self::ascending`], in descending order (the pool last).
    fn descending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (&Slot, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let pool =
            (!self.pool.is_empty() && first < base).then_some((&self.pool, StripId::MIN, base - 1));
        self.ring
            .range(first, last)
            .rev()
            .filter_map(move |(g, s)| {
                self.step();
                (!s.is_empty()).then_some((s, g, g))
            })
            .chain(pool)
    }

    fn earliest_feasible(&self, w: &Window) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (p, p2) = (geo.strip_of(w.ready), geo.strip_of(w.latest_start));
        let r1_hi = |k: &ByStart| k.0.start < w.ready;
        let r1_sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let r1_pred = |k: &ByStart| k.0.end >= w.earliest_end;
        let r2_lo = |k: &ByStart| k.0.start >= w.ready;
        let r2_hi = |k: &ByStart| k.0.start <= w.latest_start;
        let r2_sub = |s: &StartSum| s.max_len >= w.min_len;
        let r2_pred = |k: &ByStart| k.0.len() >= w.min_len;
        for (slot, a, b) in self.ascending(StripId::MIN, p.max(p2)) {
            let c1 = Cover::at_most(a, b, p);
            if c1 != Cover::Nothing {
                let hit =
                    slot.set
                        .first_in(&self.forest, NO_START, bound(c1, &r1_hi), &r1_sub, &r1_pred);
                if let Some(k) = hit {
                    return Some(k.0);
                }
            }
            let (lo, hi) = (Cover::at_least(a, b, p), Cover::at_most(a, b, p2));
            if lo.and(hi) != Cover::Nothing {
                let hit = slot.set.first_in(
                    &self.forest,
                    bound(lo, &r2_lo),
                    bound(hi, &r2_hi),
                    &r2_sub,
                    &r2_pred,
                );
                if let Some(k) = hit {
                    return Some(k.0);
                }
            }
        }
        None
    }

    fn earliest_start_from_ready(&self, w: &Window) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (p, p2) = (geo.strip_of(w.ready), geo.strip_of(w.latest_start));
        let r2_lo = |k: &ByStart| k.0.start >= w.ready;
        let r2_hi = |k: &ByStart| k.0.start <= w.latest_start;
        let r2_sub = |s: &StartSum| s.max_len >= w.min_len;
        let r2_pred = |k: &ByStart| k.0.len() >= w.min_len;
        for (slot, a, b) in self.ascending(p, p2) {
            let (lo, hi) = (Cover::at_least(a, b, p), Cover::at_most(a, b, p2));
            if lo.and(hi) == Cover::Nothing {
                continue;
            }
            let hit = slot.set.first_in(
                &self.forest,
                bound(lo, &r2_lo),
                bound(hi, &r2_hi),
                &r2_sub,
                &r2_pred,
            );
            if let Some(k) = hit {
                return Some(k.0);
            }
        }
        None
    }

    fn longest_in_first_start_strip(&self, w: &Window) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (p, p2) = (geo.strip_of(w.ready), geo.strip_of(w.latest_start));
        let r2_lo = |k: &ByStart| k.0.start >= w.ready;
        let r2_hi = |k: &ByStart| k.0.start <= w.latest_start;
        let r2_sub = |s: &StartSum| s.max_len >= w.min_len;
        let r2_pred = |k: &ByStart| k.0.len() >= w.min_len;
        for (slot, a, b) in self.ascending(p, p2) {
            let (lo, hi) = (Cover::at_least(a, b, p), Cover::at_most(a, b, p2));
            if lo.and(hi) == Cover::Nothing {
                continue;
            }
            // O(1) skip of a whole strip by its max-length pointer.
            if slot.set.summary(&self.forest).is_none_or(|s| !r2_sub(s)) {
                continue;
            }
            if a != b {
                // The pool spans many strips: find the first strip with a candidate, then the
                // longest period inside it.
                let first = slot.set.first_in(
                    &self.forest,
                    bound(lo, &r2_lo),
                    bound(hi, &r2_hi),
                    &r2_sub,
                    &r2_pred,
                );
                let Some(first) = first else { continue };
                let g = geo.strip_of(first.0.start);
                let in_lo = |k: &ByStart| r2_lo(k) && geo.strip_of(k.0.start) >= g;
                let in_hi = |k: &ByStart| r2_hi(k) && geo.strip_of(k.0.start) <= g;
                let (lo, hi) = (Some(&in_lo), Some(&in_hi));
                let max_len = slot.set.fold_in(&self.forest, lo, hi)?.max_len;
                return longest_by_start(&self.forest, &slot.set, lo, hi, max_len);
            }
            let (lo, hi) = (bound(lo, &r2_lo), bound(hi, &r2_hi));
            let folded = slot.set.fold_in(&self.forest, lo, hi);
            if let Some(s) = folded.filter(|s| s.max_len >= w.min_len) {
                return longest_by_start(&self.forest, &slot.set, lo, hi, s.max_len);
            }
        }
        None
    }

    fn latest_start_before_ready(&self, w: &Window, skip_ready_strip: bool) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let p = geo.strip_of(w.ready);
        let limit = if skip_ready_strip {
            geo.strip_start(p)
        } else {
            w.ready
        };
        let pl = geo.strip_of(limit);
        let hi = |k: &ByStart| k.0.start < w.ready && k.0.start < limit;
        let sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let pred = |k: &ByStart| k.0.end >= w.earliest_end;
        for (slot, a, b) in self.descending(StripId::MIN, p.max(pl)) {
            let c = Cover::at_most(a, b, p).and(Cover::at_most(a, b, pl));
            if c == Cover::Nothing {
                continue;
            }
            let Some(last) = slot
                .set
                .last_in(&self.forest, NO_START, bound(c, &hi), &sub, &pred)
            else {
                continue;
            };
            // Ties on the latest start go to the lowest server: the first candidate with it.
            let start = last.0.start;
            let lo = |k: &ByStart| k.0.start.total_cmp(&start).is_ge();
            let first = slot
                .set
                .first_in(&self.forest, Some(&lo), bound(c, &hi), &sub, &pred);
            return first.map(|k| k.0);
        }
        None
    }

    fn earliest_start_before_ready(&self, w: &Window) -> Option<IdlePeriod> {
        let p = self.geometry().strip_of(w.ready);
        let hi = |k: &ByStart| k.0.start < w.ready;
        let sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let pred = |k: &ByStart| k.0.end >= w.earliest_end;
        for (slot, a, b) in self.ascending(StripId::MIN, p) {
            let c = Cover::at_most(a, b, p);
            if c == Cover::Nothing {
                continue;
            }
            if let Some(k) = slot
                .set
                .first_in(&self.forest, NO_START, bound(c, &hi), &sub, &pred)
            {
                return Some(k.0);
            }
        }
        None
    }

    fn shortest_feasible(&self, bf: &BestFitForest, w: &Window) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (p, p2) = (geo.strip_of(w.ready), geo.strip_of(w.latest_start));
        let r1_hi = |e: &IdlePeriod| e.start < w.ready;
        let r2_lo = |e: &IdlePeriod| e.start >= w.ready;
        let r2_hi = |e: &IdlePeriod| e.start <= w.latest_start;
        let k1_hi = |k: &ByStart| k.0.start < w.ready;
        let k2_lo = |k: &ByStart| k.0.start >= w.ready;
        let k2_hi = |k: &ByStart| k.0.start <= w.latest_start;
        let r1_sub = |s: &StartSum| s.max_end >= w.earliest_end;
        let r1_pred = |k: &ByStart| k.0.end >= w.earliest_end;
        let r2_sub = |s: &StartSum| s.max_len >= w.min_len;
        let r2_pred = |k: &ByStart| k.0.len() >= w.min_len;
        let mut best = None;
        // R2 first (strips p..=p'): it usually yields a short candidate that prunes R1.
        for (slot, a, b) in self.ascending(p, p2) {
            let (lo, hi) = (Cover::at_least(a, b, p), Cover::at_most(a, b, p2));
            if lo.and(hi) == Cover::Nothing {
                continue;
            }
            let root = slot.set.summary(&self.forest).expect("non-empty slot");
            // O(1) skip of a whole strip by its max-length pointer.
            if root.max_len < w.min_len {
                continue;
            }
            best = if slot.bf.is_empty() {
                let mut best = best;
                slot.set.for_each_in(
                    &self.forest,
                    bound(lo, &k2_lo),
                    bound(hi, &k2_hi),
                    &r2_sub,
                    &r2_pred,
                    &mut |k: &ByStart| best = pick(best, Some(k.0), shorter),
                );
                best
            } else {
                bf.shortest_at_least(
                    &slot.bf,
                    bound(lo, &r2_lo),
                    bound(hi, &r2_hi),
                    w.min_len,
                    best,
                )
            };
        }
        // R1 from the ready time's strip downwards, then T0. A period of a strip <= b starts
        // before strip_start(b + 1) (one more strip of margin absorbs rounding in strip_of),
        // so it is at least `earliest_end - strip_start(b + 2)` long: once that bound exceeds
        // the best length found, no earlier strip can win, not even a tie.
        for (slot, a, b) in self.descending(StripId::MIN, p) {
            let bound_len = w.earliest_end - geo.strip_start(b.saturating_add(2));
            if best.is_some_and(|x: IdlePeriod| bound_len > x.len()) {
                break;
            }
            let c1 = Cover::at_most(a, b, p);
            let root = slot.set.summary(&self.forest).expect("non-empty slot");
            // O(1) skip of a whole strip by its max-end pointer.
            if c1 == Cover::Nothing || root.max_end < w.earliest_end {
                continue;
            }
            best = if slot.bf.is_empty() {
                let mut best = best;
                slot.set.for_each_in(
                    &self.forest,
                    NO_START,
                    bound(c1, &k1_hi),
                    &r1_sub,
                    &r1_pred,
                    &mut |k: &ByStart| best = pick(best, Some(k.0), shorter),
                );
                best
            } else {
                bf.shortest_ending_after(&slot.bf, None, bound(c1, &r1_hi), w.earliest_end, best)
            };
        }
        best
    }

    /// Every live period in (start, server) order.
    fn all(&self) -> impl Iterator<Item = IdlePeriod> + '_ {
        std::iter::once(&self.pool)
            .chain(self.ring.iter().map(|(_, s)| s))
            .flat_map(move |slot| slot.set.iter(&self.forest).map(|k| k.0))
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let (got, ops) = scan_select(self.geometry(), self.all(), rule, w);
        self.steps.set(self.steps.get() + ops);
        got
    }

    /// Panics unless every tree is a valid AVL tree with exact summaries, every period sits in
    /// the tree of its start strip (T0: before the ring base), the Best-fit trees hold the same
    /// periods, and the length and the arena are consistent. `O(V log V)`; for tests.
    pub fn check_invariants(&self) {
        let geo = self.geometry();
        let base = self.ring.base();
        let (mut total, mut in_trees) = (0, 0);
        let slots =
            std::iter::once((None, &self.pool)).chain(self.ring.iter().map(|(g, s)| (Some(g), s)));
        for (g, slot) in slots {
            let n = slot
                .set
                .check(&self.forest)
                .unwrap_or_else(|e| panic!("strip {g:?}: {e}"));
            if slot.set.is_tree() {
                in_trees += n;
            }
            for k in slot.set.iter(&self.forest) {
                let s = geo.strip_of(k.0.start);
                match g {
                    None => assert!(s < base, "pool holds {} of strip {s} >= base {base}", k.0),
                    Some(g) => assert_eq!(s, g, "{} in strip {g}", k.0),
                }
                assert!(k.0.start < k.0.end, "empty period {}", k.0);
            }
            let len = slot.set.len();
            match &self.best_fit {
                Some(bf) if !slot.bf.is_empty() => {
                    let m = bf
                        .forest
                        .check(&slot.bf)
                        .unwrap_or_else(|e| panic!("best-fit strip {g:?}: {e}"));
                    assert_eq!(m, n, "best-fit size in strip {g:?}");
                    assert!(len >= bf.drop_below, "best-fit tree kept for {n} periods");
                }
                Some(bf) => assert!(len < bf.build_at.max(1), "no best-fit tree for {n} periods"),
                None => assert!(slot.bf.is_empty()),
            }
            total += n;
        }
        assert_eq!(
            total,
            self.len + usize::from(self.pending.is_some()),
            "length"
        );
        assert_eq!(self.forest.live_nodes(), in_trees, "arena leak");
    }
}

impl IdlePeriodIndex for StartStripIndex {
    /// `O(log V_s)` (`O(log² V_s)` amortized with Best-fit). Duplicate (start, server) pairs
    /// violate the contract (debug assertion).
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        self.last_hit = None;
        if self.replace_pending(period) {
            self.len += 1;
            return;
        }
        let added = self.place(period);
        debug_assert!(added, "idle period {period} is already live");
        self.len += usize::from(added);
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        self.flush();
        self.last_hit = None;
        let geo = self.geometry();
        let s = geo.strip_of(now);
        self.anchor(s);
        // Rotate: strips wholly in the past hand their live periods to T0.
        if s > self.ring.base() {
            let (forest, best_fit, pool, len) = (
                &mut self.forest,
                &mut self.best_fit,
                &mut self.pool,
                &mut self.len,
            );
            let keys = &mut self.rotated;
            self.ring.advance_to(s, |_, slot| {
                if slot.is_empty() {
                    return;
                }
                keys.clear();
                slot.set.drain_into(forest, keys);
                if let Some(bf) = best_fit.as_mut() {
                    bf.forest.clear(&mut slot.bf);
                }
                for k in keys.iter() {
                    if k.0.end > now {
                        slot_insert(forest, best_fit, pool, k.0);
                    } else {
                        *len -= 1;
                    }
                }
            });
        }
        // Expire: only periods starting before `now` can have ended (T0 and the clock's strip).
        self.expire(None, now);
        for g in self.ring.base()..=s.min(self.ring.end() - 1) {
            self.expire(Some(g), now);
        }
        if self.config.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|c| s > c) {
            let boundary = geo.strip_start(s);
            let mut clipped = Vec::new();
            self.take_before(None, boundary, &mut clipped);
            for g in self.ring.base()..=geo.strip_of(boundary).min(self.ring.end() - 1) {
                self.take_before(Some(g), boundary, &mut clipped);
            }
            for mut p in clipped {
                p.start = now;
                let added = self.place(p);
                debug_assert!(added, "clipping made {p} collide");
            }
        }
        self.clock_strip = Some(s);
    }

    fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod> {
        self.flush();
        let got = match rule {
            Rule::EarliestFeasible => self.earliest_feasible(window),
            Rule::ShortestFeasible => match &self.best_fit {
                Some(bf) => self.shortest_feasible(&bf.forest, window),
                None => self.scan(rule, window),
            },
            Rule::LongestInFirstStartStrip => self.longest_in_first_start_strip(window),
            Rule::EarliestStartFromReady => self.earliest_start_from_ready(window),
            Rule::LatestStartBeforeReady { skip_ready_strip } => {
                self.latest_start_before_ready(window, skip_ready_strip)
            }
            Rule::EarliestStartBeforeReady => self.earliest_start_before_ready(window),
            Rule::ShortestByLiteralStripQueries
            | Rule::LongestInEndStrip { .. }
            | Rule::EarliestEndAfterDeadline
            | Rule::LatestEndAfterDeadline => self.scan(rule, window),
        };
        self.last_hit = got;
        got
    }

    fn len(&self) -> usize {
        self.len
    }

    fn operations(&self) -> u64 {
        self.forest.visits()
            + self.best_fit.as_ref().map_or(0, |bf| bf.forest.visits())
            + self.steps.get()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let pending = self.pending;
        self.all()
            .filter(|p| !pending.is_some_and(|q| same_bits(p, &q)))
            .collect()
    }
}
