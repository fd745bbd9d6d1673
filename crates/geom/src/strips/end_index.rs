//! Vertical strips: one (end, start descending, server)-ordered AVL tree per strip of end
//! times, plus the tails' tree (the infinite strip).

use std::cell::Cell;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule, StripOrder};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{INFINITE_STRIP, StripGeometry, StripId};
use crate::tree::Forest;

use super::TreeConfig;
use super::keys::{ByEnd, Cover, EndSum, NO_END, bound, longest_by_end, same_bits};
use super::ring::Ring;
use super::scan::scan_select;
use super::set::StripSet;

/// One end strip's periods (a sorted vector while small, an AVL tree while large).
type EndSet = StripSet<ByEnd, EndSum>;

/// The set of `home` among the past set, the ring's strips and the tails' set.
fn home_set<'a>(
    past: &'a mut EndSet,
    ring: &'a mut Ring<EndSet>,
    tails: &'a mut EndSet,
    home: Home,
    grow: bool,
) -> Option<&'a mut EndSet> {
    match home {
        Home::Past => Some(past),
        Home::Tails => Some(tails),
        Home::Strip(g) if grow => Some(ring.get_or_grow(g)),
        Home::Strip(g) => ring.get_mut(g),
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
/// greatest length. Vertical strips expire cleanly: a strip before the clock's holds only ended
/// periods, so rotation just frees it (no T0 pool is needed). As in the start index, a strip of
/// at most 16 periods is kept as a sorted vector with its summary (a tree above 16, a vector
/// again at 8).
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
    past: EndSet,
    ring: Ring<EndSet>,
    tails: EndSet,
    anchored: bool,
    /// No ring strip above this one holds a period (kept exact: raised by insertions, lowered
    /// when a removal empties it). The walks up to the tails' strip, which every Min-TIP step 2
    /// and Max-TIP fallback makes, stop here instead of reading the empty slots up to the end
    /// of the ring (about three in four of the slots they walked at n = 20).
    top: StripId,
    /// Tests only: walk every slot up to the end of the ring, as the thesis's walk does,
    /// ignoring `top` (the reference the bounded walks are checked against).
    #[cfg(test)]
    whole_ring: bool,
    clock_strip: Option<StripId>,
    /// Live periods (not counting `pending`).
    len: usize,
    /// A period removed by the caller but still in its strip: the trailing fragment the
    /// scheduler inserts next has the same end, and takes its place when no other period of
    /// the strip sits between them. Any other operation first removes it for real.
    pending: Option<IdlePeriod>,
    /// The last answer of `select`, while nothing changed since: removing it needs no search.
    last_hit: Option<IdlePeriod>,
    steps: Cell<u64>,
}

impl EndStripIndex {
    /// An empty index.
    pub fn new(config: TreeConfig) -> Self {
        EndStripIndex {
            ring: Ring::new(config.ring_slots(), 0),
            config,
            forest: Forest::new(),
            past: EndSet::default(),
            tails: EndSet::default(),
            anchored: false,
            top: StripId::MIN,
            #[cfg(test)]
            whole_ring: false,
            clock_strip: None,
            len: 0,
            pending: None,
            last_hit: None,
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

    fn place(&mut self, p: IdlePeriod) -> bool {
        let g = self.geometry().strip_of(p.start);
        self.anchor(g);
        let home = self.home(&p);
        if let Home::Strip(g) = home {
            self.top = self.top.max(g);
        }
        let set =
            home_set(&mut self.past, &mut self.ring, &mut self.tails, home, true).expect("grown");
        set.insert(&mut self.forest, ByEnd(p))
    }

    /// Removes exactly `p` (same end, start and server) and returns whether it was there.
    fn take_exact(&mut self, p: &IdlePeriod) -> bool {
        let home = self.home(p);
        let Some(set) = home_set(&mut self.past, &mut self.ring, &mut self.tails, home, false)
        else {
            return false;
        };
        let found = set.remove(&mut self.forest, &ByEnd(*p)).is_some();
        if found {
            self.len -= 1;
            self.lower_top();
        }
        found
    }

    /// Lowers `top` past the empty slots below it (after a removal may have emptied it).
    fn lower_top(&mut self) {
        let base = self.ring.base();
        while self.top >= base && self.ring.get(self.top).is_none_or(EndSet::is_empty) {
            self.top -= 1;
        }
    }

    /// The ring part of a walk over the strips `[first, last]`: the last strip to read (`last`
    /// clamped to the ring and to `top`) and how many slots above `top` the walk passes without
    /// reading them. Those are counted as steps all the same, so the operation counts stay
    /// those of the thesis's walk over every strip of the range.
    fn ring_span(&self, first: StripId, last: StripId) -> (StripId, u64) {
        let (lo, hi) = (first.max(self.ring.base()), last.min(self.ring.end() - 1));
        #[cfg(test)]
        if self.whole_ring {
            return (hi, 0);
        }
        let read_hi = hi.min(self.top);
        let skipped = (hi - read_hi.max(lo - 1)).max(0) as u64;
        (read_hi, skipped)
    }

    /// Removes the live period with `probe`'s (start, server), returned as stored: `O(1)` if
    /// it is the last answer of `select`, `O(log V_s)` when `probe.end` is the stored end, else
    /// an `O(V)` search.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        self.flush();
        if !self.anchored {
            return None;
        }
        let stored = match self.last_hit.take() {
            Some(hit) if hit.server == probe.server && hit.start == probe.start => hit,
            _ => {
                let home = self.home(probe);
                let exact = match home {
                    Home::Past => self.past.get(&self.forest, &ByEnd(*probe)),
                    Home::Tails => self.tails.get(&self.forest, &ByEnd(*probe)),
                    Home::Strip(g) => self
                        .ring
                        .get(g)
                        .and_then(|set| set.get(&self.forest, &ByEnd(*probe))),
                };
                match exact {
                    Some(k) => k.0,
                    None => {
                        self.steps.set(self.steps.get() + self.len as u64);
                        self.all()
                            .find(|p| p.server == probe.server && p.start == probe.start)?
                    }
                }
            }
        };
        self.pending = Some(stored);
        self.len -= 1;
        Some(stored)
    }

    /// Removes the pending period for real.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            self.len += 1;
            let found = self.take_exact(&p);
            debug_assert!(found, "pending {p} lost");
        }
    }

    /// Lets `period` take the pending period's place if they have the same end and server
    /// and the same rank in their strip; whether it did.
    fn replace_pending(&mut self, period: IdlePeriod) -> bool {
        let Some(old) = self
            .pending
            .filter(|old| old.server == period.server && old.end.to_bits() == period.end.to_bits())
        else {
            return false;
        };
        let home = self.home(&old);
        let set = home_set(&mut self.past, &mut self.ring, &mut self.tails, home, false)
            .expect("pending period's strip");
        if !set.replace(&mut self.forest, &ByEnd(old), ByEnd(period)) {
            return false;
        }
        self.pending = None;
        true
    }

    /// The sets, in ascending end order, as (set, first strip, last strip).
    fn trees(&self) -> impl Iterator<Item = (&EndSet, StripId, StripId)> + '_ {
        let base = self.ring.base();
        std::iter::once((&self.past, StripId::MIN, base - 1))
            .chain(self.ring.iter().map(|(g, r)| (r, g, g)))
            .chain(std::iter::once((
                &self.tails,
                INFINITE_STRIP,
                INFINITE_STRIP,
            )))
    }

    /// An empty walk segment that counts `skipped` steps when the walk reaches it (and not if
    /// the walk stops before).
    fn skip_steps(&self, skipped: u64) -> impl Iterator<Item = (&EndSet, StripId, StripId)> + '_ {
        std::iter::once_with(move || {
            self.steps.set(self.steps.get() + skipped);
            None
        })
        .flatten()
    }

    /// The sets that may hold end strips in `[first, last]`, ascending, skipping empty ones.
    fn ascending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (&EndSet, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let past =
            (!self.past.is_empty() && first < base).then_some((&self.past, StripId::MIN, base - 1));
        let tails = (!self.tails.is_empty() && last == INFINITE_STRIP).then_some((
            &self.tails,
            INFINITE_STRIP,
            INFINITE_STRIP,
        ));
        let (read_hi, skipped) = self.ring_span(first, last);
        past.into_iter()
            .chain(self.ring.range(first, read_hi).filter_map(move |(g, r)| {
                self.step();
                (!r.is_empty()).then_some((r, g, g))
            }))
            .chain(self.skip_steps(skipped))
            .chain(tails)
    }

    /// As [`Self::ascending`], in descending order.
    fn descending(
        &self,
        first: StripId,
        last: StripId,
    ) -> impl Iterator<Item = (&EndSet, StripId, StripId)> + '_ {
        let base = self.ring.base();
        let past =
            (!self.past.is_empty() && first < base).then_some((&self.past, StripId::MIN, base - 1));
        let tails = (!self.tails.is_empty() && last == INFINITE_STRIP).then_some((
            &self.tails,
            INFINITE_STRIP,
            INFINITE_STRIP,
        ));
        let (read_hi, skipped) = self.ring_span(first, last);
        tails
            .into_iter()
            .chain(self.skip_steps(skipped))
            .chain(
                self.ring
                    .range(first, read_hi)
                    .rev()
                    .filter_map(move |(g, r)| {
                        self.step();
                        (!r.is_empty()).then_some((r, g, g))
                    }),
            )
            .chain(past)
    }

    fn longest_in_end_strip(&self, w: &Window, order: StripOrder) -> Option<IdlePeriod> {
        let geo = self.geometry();
        let (pe, pd) = (geo.strip_of(w.earliest_end), geo.strip_of(w.deadline));
        let lo = |k: &ByEnd| k.0.end >= w.earliest_end;
        let hi = |k: &ByEnd| k.0.end <= w.deadline;
        let sub = |s: &EndSum| s.max_len >= w.min_len;
        let pred = |k: &ByEnd| k.0.len() >= w.min_len;
        let forest = &self.forest;
        let search = |set: &EndSet, a: StripId, b: StripId| -> Option<IdlePeriod> {
            let (cl, ch) = (Cover::at_least(a, b, pe), Cover::at_most(a, b, pd));
            if cl.and(ch) == Cover::Nothing {
                return None;
            }
            // O(1) skip of a whole strip by its max-length pointer.
            if set.summary(forest).is_none_or(|s| !sub(s)) {
                return None;
            }
            if a != b {
                // The past set spans many strips: locate the first strip in `order` that has a
                // candidate, then take the longest period inside it.
                let edge = match order {
                    StripOrder::EarliestFirst => {
                        set.first_in(forest, bound(cl, &lo), bound(ch, &hi), &sub, &pred)
                    }
                    StripOrder::LatestFirst => {
                        set.last_in(forest, bound(cl, &lo), bound(ch, &hi), &sub, &pred)
                    }
                }?;
                let g = geo.strip_of(edge.0.end);
                let in_lo = |k: &ByEnd| lo(k) && geo.strip_of(k.0.end) >= g;
                let in_hi = |k: &ByEnd| hi(k) && geo.strip_of(k.0.end) <= g;
                let (lo, hi) = (Some(&in_lo), Some(&in_hi));
                let max_len = set.fold_in(forest, lo, hi)?.max_len;
                return longest_by_end(forest, set, lo, hi, max_len);
            }
            let (lo, hi) = (bound(cl, &lo), bound(ch, &hi));
            let max_len = set.fold_in(forest, lo, hi)?.max_len;
            if max_len < w.min_len {
                return None;
            }
            longest_by_end(forest, set, lo, hi, max_len)
        };
        match order {
            StripOrder::EarliestFirst => self
                .ascending(pe, pd)
                .find_map(|(set, a, b)| search(set, a, b)),
            StripOrder::LatestFirst => self
                .descending(pe, pd)
                .find_map(|(set, a, b)| search(set, a, b)),
        }
    }

    fn earliest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let pd = self.geometry().strip_of(w.deadline);
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        let forest = &self.forest;
        // The sets holding end strips up to the deadline's (the past set, the deadline's own
        // strip): only their periods ending after the deadline count.
        let near = self.ascending(pd, pd).find_map(|(set, a, b)| {
            let cl = Cover::at_least(a, b, pd);
            if cl == Cover::Nothing {
                return None;
            }
            set.first_in(forest, bound(cl, &lo), NO_END, &sub, &pred)
                .map(|k| k.0)
        });
        if near.is_some() {
            return near;
        }
        // Every strip after the deadline's: each is rejected or answered by its summary (the
        // earliest start of its periods) alone, which this loop reads without a call. Its steps
        // (one per slot) and visits (one per non-empty slot whose summary rejects it, as
        // `first_in` counts them) are those of the walk through `ascending`.
        let (read_hi, skipped) = self.ring_span(pd + 1, INFINITE_STRIP);
        let (mut steps, mut rejected) = (0u64, 0u64);
        let mut hit = None;
        for (_, set) in self.ring.range(pd + 1, read_hi) {
            steps += 1;
            let Some(summary) = set.summary(forest) else {
                continue;
            };
            if sub(summary) {
                hit = set.first_in(forest, NO_END, NO_END, &sub, &pred);
                if hit.is_some() {
                    break;
                }
            } else {
                rejected += 1;
            }
        }
        forest.add_visits(rejected);
        if hit.is_none() {
            steps += skipped;
        }
        self.steps.set(self.steps.get() + steps);
        if let Some(k) = hit {
            return Some(k.0);
        }
        if self.tails.is_empty() {
            return None;
        }
        self.tails
            .first_in(forest, NO_END, NO_END, &sub, &pred)
            .map(|k| k.0)
    }

    fn latest_end_after_deadline(&self, w: &Window) -> Option<IdlePeriod> {
        let pd = self.geometry().strip_of(w.deadline);
        let lo = |k: &ByEnd| k.0.end > w.deadline;
        let sub = |s: &EndSum| s.min_start <= w.latest_start;
        let pred = |k: &ByEnd| k.0.start <= w.latest_start;
        self.descending(pd, INFINITE_STRIP).find_map(|(set, a, b)| {
            let cl = Cover::at_least(a, b, pd);
            if cl == Cover::Nothing {
                return None;
            }
            let last = set.last_in(&self.forest, bound(cl, &lo), NO_END, &sub, &pred)?;
            // Ties on the latest end go to the later start, then the lower server: the first
            // candidate with that end in this order.
            let end = last.0.end;
            let same = |k: &ByEnd| k.0.end.total_cmp(&end).is_ge();
            set.first_in(&self.forest, Some(&same), NO_END, &sub, &pred)
                .map(|k| k.0)
        })
    }

    /// Every live period (in tree order, not sorted).
    fn all(&self) -> impl Iterator<Item = IdlePeriod> + '_ {
        self.trees()
            .flat_map(move |(set, _, _)| set.iter(&self.forest).map(|k| k.0))
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let (got, ops) = scan_select(self.geometry(), self.all(), rule, w);
        self.steps.set(self.steps.get() + ops);
        got
    }

    /// Removes the first period of a set while `take(period)` holds; returns how many.
    fn pop_while(&mut self, home: Home, take: &dyn Fn(&IdlePeriod) -> bool) -> usize {
        let mut popped = 0;
        let Some(set) = home_set(&mut self.past, &mut self.ring, &mut self.tails, home, false)
        else {
            return popped;
        };
        while let Some(k) = set.first(&self.forest) {
            if !take(&k.0) {
                break;
            }
            set.remove(&mut self.forest, &k);
            popped += 1;
        }
        popped
    }

    /// Removes from a set every period starting before `boundary` (min-start descents).
    fn take_started_before(&mut self, home: Home, boundary: Time, out: &mut Vec<IdlePeriod>) {
        let Some(set) = home_set(&mut self.past, &mut self.ring, &mut self.tails, home, false)
        else {
            return;
        };
        while let Some(k) = set.first_in(
            &self.forest,
            NO_END,
            NO_END,
            &|s: &EndSum| s.min_start < boundary,
            &|k: &ByEnd| k.0.start < boundary,
        ) {
            set.remove(&mut self.forest, &k);
            out.push(k.0);
        }
    }

    /// Panics unless every tree is a valid AVL tree with exact summaries, every period sits in
    /// the tree of its end strip, and the length and arena are consistent. For tests.
    pub fn check_invariants(&self) {
        let geo = self.geometry();
        let base = self.ring.base();
        let (mut total, mut in_trees) = (0, 0);
        for (set, a, b) in self.trees() {
            let n = set
                .check(&self.forest)
                .unwrap_or_else(|e| panic!("end strip {a}..{b}: {e}"));
            if set.is_tree() {
                in_trees += n;
            }
            for k in set.iter(&self.forest) {
                let g = geo.strip_of(k.0.end);
                assert!(a <= g && g <= b, "{} (end strip {g}) in tree {a}..{b}", k.0);
                assert!(k.0.start < k.0.end, "empty period {}", k.0);
            }
            if a == StripId::MIN {
                assert!(b == base - 1);
            }
            total += n;
        }
        assert_eq!(
            total,
            self.len + usize::from(self.pending.is_some()),
            "length"
        );
        let highest = self
            .ring
            .iter()
            .filter(|(_, set)| !set.is_empty())
            .map(|(g, _)| g)
            .max();
        match highest {
            Some(g) => assert_eq!(self.top, g, "top strip"),
            None => assert!(self.top < base, "top strip {} of an empty ring", self.top),
        }
        assert_eq!(self.forest.live_nodes(), in_trees, "arena leak");
    }
}

impl IdlePeriodIndex for EndStripIndex {
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
        // Rotate: an end strip before the clock's holds only ended periods.
        if s > self.ring.base() {
            let (forest, len) = (&mut self.forest, &mut self.len);
            self.ring.advance_to(s, |_, set| *len -= set.clear(forest));
        }
        let ended = |p: &IdlePeriod| p.end <= now;
        let mut dead = self.pop_while(Home::Past, &ended);
        for g in self.ring.base()..=s.min(self.ring.end() - 1) {
            dead += self.pop_while(Home::Strip(g), &ended);
        }
        self.len -= dead;
        self.lower_top();
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
        self.flush();
        let got = match rule {
            Rule::LongestInEndStrip { order } => self.longest_in_end_strip(window, order),
            Rule::EarliestEndAfterDeadline => self.earliest_end_after_deadline(window),
            Rule::LatestEndAfterDeadline => self.latest_end_after_deadline(window),
            _ => self.scan(rule, window),
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
            .all()
            .filter(|p| !pending.is_some_and(|q| same_bits(p, &q)))
            .collect();
        out.sort_by(IdlePeriod::cmp_start);
        out
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    impl EndStripIndex {
        /// Min-TIP step 2 as one generic walk over every set from the deadline's strip on:
        /// the reference for the loop of `earliest_end_after_deadline`.
        fn earliest_end_after_deadline_by_walk(&self, w: &Window) -> Option<IdlePeriod> {
            let pd = self.geometry().strip_of(w.deadline);
            let lo = |k: &ByEnd| k.0.end > w.deadline;
            let sub = |s: &EndSum| s.min_start <= w.latest_start;
            let pred = |k: &ByEnd| k.0.start <= w.latest_start;
            self.ascending(pd, INFINITE_STRIP).find_map(|(set, a, b)| {
                let cl = Cover::at_least(a, b, pd);
                if cl == Cover::Nothing {
                    return None;
                }
                set.first_in(&self.forest, bound(cl, &lo), NO_END, &sub, &pred)
                    .map(|k| k.0)
            })
        }

        /// `f`'s answer and the operations it counted.
        fn counted<T>(&self, f: impl FnOnce(&Self) -> T) -> (T, u64) {
            let before = self.operations();
            let got = f(self);
            (got, self.operations() - before)
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert { server: u32, start: u16, len: u16 },
        Remove(usize),
        Advance(u16),
        Query { ready: u16, len: u8, slack: u16 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => (0u32..6, 0u16..400, 0u16..120)
                .prop_map(|(server, start, len)| Op::Insert { server, start, len }),
            2 => any::<usize>().prop_map(Op::Remove),
            1 => (0u16..20).prop_map(Op::Advance),
            4 => (0u16..400, 1u8..40, 0u16..300)
                .prop_map(|(ready, len, slack)| Op::Query { ready, len, slack }),
        ]
    }

    proptest! {
        /// The walks bounded by `top` (and Min-TIP step 2's summary loop) give the answers and
        /// the operation counts of walking every slot to the end of the ring.
        #[test]
        fn bounded_walks_count_as_the_whole_ring(ops in prop::collection::vec(op(), 1..200)) {
            let q = 0.25;
            let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 40.0);
            let mut index = EndStripIndex::new(config);
            let mut live: Vec<IdlePeriod> = Vec::new();
            let mut now: Time = 0.0;
            for op in ops {
                match op {
                    Op::Insert { server, start, len } => {
                        let s = now + f64::from(start) * q;
                        let e = if len == 0 { Time::INFINITY } else { s + f64::from(len) * q };
                        if !live.iter().any(|p| p.server == server && p.start < e && s < p.end) {
                            let p = IdlePeriod::new(s, e, server);
                            index.insert(p);
                            live.push(p);
                        }
                    }
                    Op::Remove(i) if !live.is_empty() => {
                        let p = live.swap_remove(i % live.len());
                        prop_assert!(index.remove(&p));
                    }
                    Op::Remove(_) => {}
                    Op::Advance(dt) => {
                        now += f64::from(dt) * q;
                        index.advance(now);
                        live.retain(|p| p.end > now);
                    }
                    Op::Query { ready, len, slack } => {
                        let r = now + f64::from(ready) * q;
                        let l = f64::from(len) * q;
                        let w = Window::new(r, l, r + l + f64::from(slack) * q).unwrap();
                        let mut whole = index.clone();
                        whole.whole_ring = true;
                        prop_assert_eq!(
                            index.counted(|i| i.earliest_end_after_deadline(&w)),
                            whole.counted(|i| i.earliest_end_after_deadline_by_walk(&w))
                        );
                        for order in [StripOrder::EarliestFirst, StripOrder::LatestFirst] {
                            prop_assert_eq!(
                                index.counted(|i| i.longest_in_end_strip(&w, order)),
                                whole.counted(|i| i.longest_in_end_strip(&w, order))
                            );
                        }
                        prop_assert_eq!(
                            index.counted(|i| i.latest_end_after_deadline(&w)),
                            whole.counted(|i| i.latest_end_after_deadline(&w))
                        );
                    }
                }
                index.check_invariants();
            }
        }
    }
}
