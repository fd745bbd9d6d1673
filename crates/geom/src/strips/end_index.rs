//! Vertical strips: one (end, start descending, server)-ordered AVL tree per strip of end
//! times, plus the tails' tree (the infinite strip).

use std::cell::Cell;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule, StripOrder};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{INFINITE_STRIP, StripGeometry, StripId};
use crate::tree::{Forest, NIL, NodeId};

use super::TreeConfig;
use super::keys::{ByEnd, Cover, EndSum, NO_END, bound, longest_by_end};
use super::ring::Ring;
use super::scan::scan_select;

/// One tree root (the default is the empty tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Root(NodeId);

impl Default for Root {
    fn default() -> Self {
        Root(NIL)
    }
}

/// Which tree a period lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    /// End strip before the ring base (only dead periods inserted late; dropped by `advance`).
    Past,
    Strip(StripId),
    Tails,
}

/// The mirror image of [`StartStripIndex`](crate::StartStripIndex) for Min-TIP / Max-TIP
/// (Castillo §3.3.4, spec §2.6 variant A, §2.10): idle periods grouped by the strip of their
/// **end** time in a ring of `ceil(L / w) + 2` slots, servers' open-ended tails in one more
/// tree searched last ("`INF_STRIP`").
///
/// Each tree is ordered by (end, start descending, server) — the preference order of
/// [`Rule::EarliestEndAfterDeadline`] — and summarises a subtree by its earliest start and its
/// longest period. Vertical strips expire cleanly: a strip before the clock's holds only ended
/// periods, so rotation just frees it (no T0 pool is needed).
///
/// # Rules and costs
/// With `V_s` periods per strip and `k` strips between those of `r + l` and `d`:
///
/// | rule | cost |
/// |---|---|
/// | [`Rule::LongestInEndStrip`] (Min-TIP step 1, either order) | `O(k + log V_s)`: root max-length test per interior strip, range fold in the two boundary strips |
/// | [`Rule::EarliestEndAfterDeadline`] (Min-TIP step 2) | `O(k' + log V_s)`, `k'` = strips from the deadline's to the first with a fit (then tails) |
/// | [`Rule::LatestEndAfterDeadline`] (Max-TIP) | `O(log n)` if some tail fits, else `O(k'' + log V_s)` from the last strip down |
/// | start-strip rules | `O(V)` scan (documented fallback, identical to [`LinearIndex`](crate::LinearIndex)) |
///
/// `remove` finds the period by its exact (end, start, server) in `O(log V_s)`; if the caller
/// passes a period whose `end` differs from the stored one it falls back to an `O(V)` search by
/// (start, server), as the trait's contract requires.
///
/// [`ExpiryMode::Clip`] moves the start of every period that began before the clock's strip
/// to `now` at each strip change, found through the min-start summaries (`O(log V_s)` each).
///
/// ```
/// use gridsched_geom::{
///     EndStripIndex, IdlePeriod, IdlePeriodIndex, Rule, StripGeometry, StripOrder, TreeConfig,
///     Window,
/// };
///
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
/// let mut index = EndStripIndex::new(config);
/// index.insert(IdlePeriod::new(5.0, 9.5, 0)); // Y
/// index.insert(IdlePeriod::new(6.2, 8.5, 1)); // V
/// index.insert(IdlePeriod::tail(3.0, 2));
/// let job = Window::new(6.5, 1.5, 12.0).unwrap();
/// let tip = Rule::LongestInEndStrip { order: StripOrder::LatestFirst };
/// assert_eq!(index.select(tip, &job), Some(IdlePeriod::new(5.0, 9.5, 0)));
/// // Min-TIP step 2 and Max-TIP: periods ending after the deadline that start by d - l.
/// let tight = Window::new(6.0, 2.0, 9.0).unwrap();
/// assert_eq!(index.select(Rule::EarliestEndAfterDeadline, &tight), Some(IdlePeriod::new(5.0, 9.5, 0)));
/// assert_eq!(index.select(Rule::LatestEndAfterDeadline, &tight), Some(IdlePeriod::tail(3.0, 2)));
/// ```
#[derive(Debug, Clone)]
pub struct EndStripIndex {
    config: TreeConfig,
    forest: Forest<ByEnd, EndSum>,
    past: Root,
    ring: Ring<Root>,
    tails: Root,
    anchored: bool,
    clock_strip: Option<StripId>,
    len: usize,
    steps: Cell<u64>,
}

impl EndStripIndex {
    /// An empty index.
    pub fn new(config: TreeConfig) -> Self {
        EndStripIndex {
            ring: Ring::new(config.ring_slots(), 0),
            config,
            forest: Forest::new(),
            past: Root::default(),
            tails: Root::default(),
            anchored: false,
            clock_strip: None,
            len: 0,
            steps: Cell::new(0),
        }
    }

    /// Whether this index type answers `rule` from its trees; every other rule is answered by
    /// an `O(V)` scan.
    pub fn supports(rule: Rule) -> bool {
        matches!(
            rule,
            Rule::LongestInEndStrip { .. }
                | Rule::EarliestEndAfterDeadline
                | Rule::LatestEndAfterDeadline
        )
    }

    /// The construction parameters.
    pub fn config(&self) -> &TreeConfig {
        &self.config
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

    fn home(&self, p: &IdlePeriod) -> Home {
        let g = self.geometry().strip_of(p.end);
        if g == INFINITE_STRIP {
            Home::Tails
        } else if g < self.ring.base() {
            Home::Past
        } else {
            Home::Strip(g)
        }
    }

    fn root_mut(&mut self, home: Home, grow: bool) -> Option<&mut NodeId> {
        match home {
            Home::Past => Some(&mut self.past.0),
            Home::Tails => Some(&mut self.tails.0),
            Home::Strip(g) if grow => Some(&mut self.ring.get_or_grow(g).0),
            Home::Strip(g) => self.ring.get_mut(g).map(|r| &mut r.0),
        }
    }

    fn place(&mut self, p: IdlePeriod) -> bool {
        let g = self.geometry().strip_of(p.start);
        self.anchor(g);
        let home = self.home(&p);
        let mut root = *self.root_mut(home, true).expect("grown");
        let added = self.forest.insert(&mut root, ByEnd(p));
        *self.root_mut(home, false).expect("grown") = root;
        added
    }

    /// Removes exactly `p` (same end, start and server) and returns whether it was there.
    fn take_exact(&mut self, p: &IdlePeriod) -> bool {
        let home = self.home(p);
        let Some(root) = self.root_mut(home, false) else {
            return false;
        };
        let mut r = *root;
        let found = self.forest.remove(&mut r, &ByEnd(*p)).is_some();
        *self.root_mut(home, false).expect("present") = r;
        if found {
            self.len -= 1;
        }
        found
    }

    /// Removes the live period with `probe`'s (start, server), returned as stored: `O(log V_s)`
    /// when `probe.end` is the stored end, else an `O(V)` search.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        if !self.anchored {
            return None;
        }
        if self.take_exact(probe) {
            return Some(*probe);
        }
        let stored = self
            .all()
            .find(|p| p.server == probe.server && p.start == probe.start)?;
        self.steps.set(self.steps.get() + self.len as u64);
        let found = self.take_exact(&stored);
        debug_assert!(found);
        Some(stored)
    }

    /// The trees, in ascending end order, as (root, first strip, last strip).
    fn trees(&self) -> impl Iterator<Item = (NodeId, StripId, StripId)> + '_ {
        let base = self.ring.base();
        std::iter::once((self.past.0, StripId::MIN, base - 1))
            .chain(self.ring.iter().map(|(g, r)| (r.0, g, g)))
            .chain(std::iter::once((
                self.tails.0,
                INFINITE_STRIP,
                INFINITE_STRIP,
            )))
    }

    /// The trees that may hold end strips in `[first, last]`, ascending, skipping empty ones.
    fn ascending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (NodeId, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let past =
            (self.past.0 != NIL && first < base).then_some((self.past.0, StripId::MIN, base - 1));
        let lo = first.max(base);
        let hi = last.min(self.ring.end() - 1);
        let tails = (self.tails.0 != NIL && last == INFINITE_STRIP).then_some((
            self.tails.0,
            INFINITE_STRIP,
            INFINITE_STRIP,
        ));
        past.into_iter()
            .chain((lo..=hi).filter_map(move |g| {
                self.step();
                self.ring.get(g).filter(|r| r.0 != NIL).map(|r| (r.0, g, g))
            }))
            .chain(tails)
    }

    /// As [`Self::ascending`], in descending order.
    fn descending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (NodeId, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let past =
            (self.past.0 != NIL && first < base).then_some((self.past.0, StripId::MIN, base - 1));
        let lo = first.max(base);
        let hi = last.min(self.ring.end() - 1);
        let tails = (self.tails.0 != NIL && last == INFINITE_STRIP).then_some((
            self.tails.0,
            INFINITE_STRIP,
            INFINITE_STRIP,
        ));
        tails
            .into_iter()
            .chain((lo..=hi).rev().filter_map(move |g| {
                self.step();
                self.ring.get(g).filter(|r| r.0 != NIL).map(|r| (r.0, g, g))
            }))
            .chain(past)
    }

    fn key(&self, id: NodeId) -> IdlePeriod {
        self.forest.key(id).0
    }

    fn longest_in_end_strip(&self, w: &Window, order: StripOrder) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (pe, pd) = (geo.strip_of(w.earliest_end), geo.strip_of(w.deadline));
        let lo = |k: &ByEnd| k.0.end >= w.earliest_end;
        let hi = |k: &ByEnd| k.0.end <= w.deadline;
        let sub = |s: &EndSum| s.max_len >= w.min_len;
        let pred = |k: &ByEnd| k.0.len() >= w.min_len;
        let search = |root: NodeId, a: StripId, b: StripId| -> Option<IdlePeriod> {
            let (cl, ch) = (Cover::at_least(a, b, pe), Cover::at_most(a, b, pd));
            if cl.and(ch) == Cover::Nothing {
                return None;
            }
            if a != b {
                // The past tree spans many strips: locate the first strip in `order` that has a
                // candidate, then take the longest period inside it.
                let edge = match order {
                    StripOrder::EarliestFirst => {
                        self.forest
                            .first_in(root, bound(cl, &lo), bound(ch, &hi), &sub, &pred)
                    }
                    StripOrder::LatestFirst => {
                        self.forest
                            .last_in(root, bound(cl, &lo), bound(ch, &hi), &sub, &pred)
                    }
                }?;
                let g = geo.strip_of(self.key(edge).end);
                let in_lo = |k: &ByEnd| lo(k) && geo.strip_of(k.0.end) >= g;
                let in_hi = |k: &ByEnd| hi(k) && geo.strip_of(k.0.end) <= g;
                let (lo, hi) = (Some(&in_lo), Some(&in_hi));
                let max_len = self.forest.fold_in(root, lo, hi)?.max_len;
                return longest_by_end(&self.forest, root, lo, hi, max_len);
            }
            let (lo, hi) = (bound(cl, &lo), bound(ch, &hi));
            let max_len = self.forest.fold_in(root, lo, hi)?.max_len;
            if max_len < w.min_len {
                return None;
            }
            longest_by_end(&self.forest, root, lo, hi, max_len)
        };
        match order {
            StripOrder::EarliestFirst => self
                .ascending(pe, pd)
                .find_map(|(root, a, b)| search(root, a, b)),
            StripOrder::LatestFirst => self
                .descending(pe, pd)
                .find_map(|(root, a, b)| search(root, a, b)),
        }
    }

    fn earliest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let pd = self.geometry().strip_of(w.deadline);
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        self.ascending(pd, INFINITE_STRIP).find_map(|(root, a, b)| {
            let cl = Cover::at_least(a, b, pd);
            if cl == Cover::Nothing {
                return None;
            }
            self.forest
                .first_in(root, bound(cl, &lo), NO_END, &sub, &pred)
                .map(|id| self.key(id))
        })
    }

    fn latest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let pd = self.geometry().strip_of(w.deadline);
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        self.descending(pd, INFINITE_STRIP)
            .find_map(|(root, a, b)| {
                let cl = Cover::at_least(a, b, pd);
                if cl == Cover::Nothing {
                    return None;
                }
                let last = self
                    .forest
                    .last_in(root, bound(cl, &lo), NO_END, &sub, &pred)?;
                // Ties on the latest end go to the later start, then the lower server: the first
                // candidate with that end in this order.
                let end = self.key(last).end;
                let same = |k: &ByEnd| k.0.end.total_cmp(&end).is_ge();
                self.forest
                    .first_in(root, Some(&same), NO_END, &sub, &pred)
                    .map(|id| self.key(id))
            })
    }

    /// Every live period (in tree order, not sorted).
    fn all(&self) -> impl Iterator<Item = IdlePeriod> + '_ {
        self.trees()
            .flat_map(move |(root, _, _)| self.forest.iter(root).map(|k| k.0))
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let (got, ops) = scan_select(self.geometry(), self.all(), rule, w);
        self.steps.set(self.steps.get() + ops);
        got
    }

    /// Pops the first period of a tree while `take(period)` holds.
    fn pop_while(&mut self, home: Home, take: &dyn Fn(&IdlePeriod) -> bool) -> Vec<IdlePeriod> {
        let mut out = Vec::new();
        let Some(&mut mut root) = self.root_mut(home, false) else {
            return out;
        };
        while let Some(k) = self.forest.first(root).copied() {
            if !take(&k.0) {
                break;
            }
            self.forest.remove(&mut root, &k);
            out.push(k.0);
        }
        *self.root_mut(home, false).expect("present") = root;
        out
    }

    /// Removes from a tree every period starting before `boundary` (min-start descents).
    fn take_started_before(&mut self, home: Home, boundary: Time, out: &mut Vec<IdlePeriod>) {
        let Some(&mut mut root) = self.root_mut(home, false) else {
            return;
        };
        while let Some(id) =
            self.forest
                .first_in(root, NO_END, NO_END, &|s| s.min_start < boundary, &|k| {
                    k.0.start < boundary
                })
        {
            let k = *self.forest.key(id);
            self.forest.remove(&mut root, &k);
            out.push(k.0);
        }
        *self.root_mut(home, false).expect("present") = root;
    }

    /// Panics unless every tree is a valid AVL tree with exact summaries, every period sits in
    /// the tree of its end strip, and the length and arena are consistent. For tests.
    pub fn check_invariants(&self) {
        let geo = self.geometry();
        let base = self.ring.base();
        let mut total = 0;
        for (root, a, b) in self.trees() {
            let n = self
                .forest
                .check(root)
                .unwrap_or_else(|e| panic!("end strip {a}..{b}: {e}"));
            for k in self.forest.iter(root) {
                let g = geo.strip_of(k.0.end);
                assert!(a <= g && g <= b, "{} (end strip {g}) in tree {a}..{b}", k.0);
                assert!(k.0.start < k.0.end, "empty period {}", k.0);
            }
            if a == StripId::MIN {
                assert!(b == base - 1);
            }
            total += n;
        }
        assert_eq!(total, self.len, "length");
        assert_eq!(self.forest.live_nodes(), self.len, "arena leak");
    }
}

impl IdlePeriodIndex for EndStripIndex {
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        let added = self.place(period);
        debug_assert!(added, "idle period {period} is already live");
        self.len += usize::from(added);
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        let geo = self.geometry();
        let s = geo.strip_of(now);
        self.anchor(s);
        // Rotate: an end strip before the clock's holds only ended periods.
        if s > self.ring.base() {
            for (_, mut root) in self.ring.advance_to(s, |r| r.0 == NIL) {
                let n = self.forest.drain(&mut root.0).len();
                self.len -= n;
            }
        }
        let ended = |p: &IdlePeriod| p.end <= now;
        let mut dead = self.pop_while(Home::Past, &ended).len();
        for g in self.ring.base()..=s.min(self.ring.end() - 1) {
            dead += self.pop_while(Home::Strip(g), &ended).len();
        }
        self.len -= dead;
        if self.config.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|c| s > c) {
            let boundary = geo.strip_start(s);
            let mut clipped = Vec::new();
            let homes: Vec<Home> = std::iter::once(Home::Past)
                .chain((self.ring.base()..self.ring.end()).map(Home::Strip))
                .chain(std::iter::once(Home::Tails))
                .collect();
            for home in homes {
                self.step();
                self.take_started_before(home, boundary, &mut clipped);
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
        match rule {
            Rule::LongestInEndStrip { order } => self.longest_in_end_strip(window, order),
            Rule::EarliestEndAfterDeadline => self.earliest_end_after_deadline(window),
            Rule::LatestEndAfterDeadline => self.latest_end_after_deadline(window),
            _ => self.scan(rule, window),
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn operations(&self) -> u64 {
        self.forest.visits() + self.steps.get()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let mut out: Vec<IdlePeriod> = self.all().collect();
        out.sort_by(IdlePeriod::cmp_start);
        out
    }
}
