//! One ordered set of all live periods in Best-fit's own order, (length, start, server).
//!
//! Best-fit asks for the shortest feasible period, ties to the earlier start, then the lower
//! server: that is the *first* feasible key of this order. And for a period at least as long
//! as the job, feasibility is a three-sided condition on stored values: `start <= d - l` and
//! `end >= r + l` (if it starts before the ready time the job starts at `r` and must end by
//! the period's end; if it starts later, its length already covers the job). So the search
//! starts at the job's length and returns the first key that passes the exact test
//! ([`Window::admits`]), skipping every run whose earliest start is too late or whose latest
//! end is too early.
//!
//! Unlike the thesis's 2-D trees (`best_fit`), a run that passes both header tests need not
//! hold a candidate (the earliest start and the latest end may belong to different periods),
//! so the search has no logarithmic worst case: it reads, in length order, every run that
//! cannot be excluded before the answer's. In practice the answer is a few runs from the job's
//! length, and a run costs a few nanoseconds (the `runs` module): 0.24–0.46 µs per chapter-3
//! decision from 200 to 20,000 servers, 9–240× less than the strips and 2-D trees
//! (docs/benchmarks.md, issue 18); 1.0 µs at 100,000 servers (~104,000 periods; 2.1× the
//! cost at 20,000 for 5× the periods). [`TreeIndex`](super::TreeIndex) answers Best-fit from it at every
//! size unless asked for the trees.
//!
//! **Why the answers are those of [`LinearIndex`](crate::LinearIndex).** The order is the
//! linear scan's Best-fit order (`by_len`) and the final test is the very same
//! `Window::admits`. The range bound and the summary tests only skip keys that cannot pass
//! it; they compare against the window's thresholds loosened by one more
//! [`Window::tolerance`], which covers the rounding of `end - start`, `r + l` and `d - l`
//! (a few units in the last place, against the tolerance's sixteen).

use std::cell::Cell;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{StripGeometry, StripId};

use super::TreeConfig;
use super::keys::same_start_key;
use super::runs::{LengthRuns, Pos, RunSummary};
use super::scan::scan_select;

/// All live periods in one (length, start, server)-ordered set of sorted runs (earliest
/// start, latest end and earliest end per run): Best-fit by one forward search.
///
/// | rule | cost (`V` live periods, runs of 32) |
/// |---|---|
/// | [`Rule::ShortestFeasible`] (Best-fit) | `O(log V)` to the job's length, then `O(1)` per run header up to the answer's run and `O(32)` per run the headers cannot exclude: `O(V)` at worst, no logarithmic bound |
/// | every other rule | `O(V)` scan (fallback, identical to [`LinearIndex`](crate::LinearIndex)) |
///
/// Updates cost `O(log V + 32)`; removing the last answer of `select` needs no search;
/// expiry reads nothing before the clock reaches the earliest end.
///
/// ```
/// use gridsched_geom::{
///     GlobalLengthIndex, IdlePeriod, IdlePeriodIndex, Rule, StripGeometry, TreeConfig, Window,
/// };
///
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
/// let mut index = GlobalLengthIndex::new(config);
/// index.insert(IdlePeriod::new(5.0, 9.5, 0));
/// index.insert(IdlePeriod::new(6.2, 8.5, 1));
/// index.insert(IdlePeriod::new(7.5, 9.4, 2));
/// let job = Window::new(6.5, 1.5, 12.0).unwrap();
/// assert_eq!(index.select(Rule::ShortestFeasible, &job), Some(IdlePeriod::new(7.5, 9.4, 2)));
/// ```
#[derive(Debug, Clone)]
pub struct GlobalLengthIndex {
    config: TreeConfig,
    runs: LengthRuns,
    clock_strip: Option<StripId>,
    /// The last answer of `select` and its position, while nothing changed since: removing
    /// it needs no search.
    last_hit: Option<(IdlePeriod, Pos)>,
    /// Smallest end among live periods, or lower (expiry has nothing to do before it).
    next_expiry: Time,
    /// Run headers and lanes read, and periods examined by the fallback scan.
    visits: Cell<u64>,
}

impl GlobalLengthIndex {
    /// An empty index.
    pub fn new(config: TreeConfig) -> Self {
        GlobalLengthIndex {
            config,
            runs: LengthRuns::default(),
            clock_strip: None,
            last_hit: None,
            next_expiry: Time::INFINITY,
            visits: Cell::new(0),
        }
    }

    /// Whether this index answers `rule` from its runs (every other rule is answered by an
    /// `O(V)` scan).
    pub fn supports(rule: Rule) -> bool {
        rule == Rule::ShortestFeasible
    }

    fn geometry(&self) -> StripGeometry {
        self.config.geometry
    }

    fn count(&self, n: u64) {
        self.visits.set(self.visits.get() + n);
    }

    /// Removes the live period with `probe`'s (start, server) and returns it as stored:
    /// without a search if it is the last answer of `select`, by its key when `probe.end` is
    /// the stored end, else by an `O(V)` search.
    pub fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        let mut visits = 0;
        let pos = match self.last_hit.take() {
            Some((hit, pos)) if same_start_key(&hit, probe) => Some(pos),
            _ => self.runs.find(probe, &mut visits),
        };
        let pos = pos.or_else(|| {
            visits += self.runs.len() as u64;
            let stored = self.runs.iter().find(|p| same_start_key(p, probe))?;
            self.runs.find(&stored, &mut visits)
        });
        self.count(visits);
        Some(self.runs.remove_at(pos?))
    }

    /// The first key from the job's length on that the job fits in (see the module
    /// documentation for the loosened bounds).
    fn shortest_feasible(&self, w: &Window) -> Option<(IdlePeriod, Pos)> {
        let (floor, latest_start, earliest_end) = (
            w.min_len - w.tolerance,
            w.latest_start + w.tolerance,
            w.earliest_end - w.tolerance,
        );
        let keep = |s: &RunSummary| s.min_start <= latest_start && s.max_end >= earliest_end;
        let (ready, ee, ls, ml) = (w.ready, w.earliest_end, w.latest_start, w.min_len);
        // `Window::admits` without a data-dependent branch.
        let admits = move |s: Time, e: Time, len: Time| {
            let before = s < ready;
            (before & (e >= ee)) | (!before & (s <= ls) & (len >= ml))
        };
        let mut visits = 0;
        let got = self.runs.first(floor, keep, admits, &mut visits);
        self.count(visits);
        got.map(|pos| (self.runs.get(pos), pos))
    }

    /// Removes every period satisfying `pred`, found through the run summaries `keep`,
    /// handing each to `removed`.
    fn remove_all(
        &mut self,
        keep: impl Fn(&RunSummary) -> bool + Copy,
        pred: impl Fn(Time, Time, Time) -> bool + Copy,
        mut removed: impl FnMut(IdlePeriod),
    ) {
        let mut visits = 0;
        while let Some(pos) = self.runs.first(Time::NEG_INFINITY, keep, pred, &mut visits) {
            removed(self.runs.remove_at(pos));
        }
        self.count(visits);
    }

    fn scan(&self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let (got, ops) = scan_select(self.geometry(), self.runs.iter(), rule, w);
        self.count(ops);
        got
    }

    /// Panics unless the runs are sorted with exact headers and the expiry bound is a lower
    /// bound. `O(V)`; for tests.
    pub fn check_invariants(&self) {
        self.runs
            .check()
            .unwrap_or_else(|e| panic!("global length runs: {e}"));
        if let Some(s) = self.runs.summary() {
            assert!(
                self.next_expiry <= s.min_end,
                "expiry bound above the first end"
            );
        }
    }
}

impl IdlePeriodIndex for GlobalLengthIndex {
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        self.last_hit = None;
        if period.end < self.next_expiry {
            self.next_expiry = period.end;
        }
        let mut visits = 0;
        let added = self.runs.insert(period, &mut visits);
        self.count(visits);
        debug_assert!(added, "idle period {period} is already live");
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        self.last_hit = None;
        if now >= self.next_expiry {
            self.remove_all(|s| s.min_end <= now, move |_, e, _| e <= now, |_| ());
            self.next_expiry = self.runs.summary().map_or(Time::INFINITY, |s| s.min_end);
        }
        let geo = self.geometry();
        let s = geo.strip_of(now);
        if self.config.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|c| s > c) {
            // Every period starting before the clock's strip now starts at `now`.
            let boundary = geo.strip_start(s);
            let mut clipped = Vec::new();
            self.remove_all(
                |s| s.min_start < boundary,
                move |s, _, _| s < boundary,
                |p| clipped.push(p),
            );
            let mut visits = 0;
            for mut p in clipped {
                p.start = now;
                let added = self.runs.insert(p, &mut visits);
                debug_assert!(added, "clipping made {p} collide");
            }
            self.count(visits);
        }
        self.clock_strip = Some(s);
    }

    fn select(&mut self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        if rule == Rule::ShortestFeasible {
            self.last_hit = self.shortest_feasible(w);
            return self.last_hit.map(|(p, _)| p);
        }
        self.last_hit = None;
        self.scan(rule, w)
    }

    fn len(&self) -> usize {
        self.runs.len()
    }

    fn operations(&self) -> u64 {
        self.visits.get()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let mut out: Vec<IdlePeriod> = self.runs.iter().collect();
        out.sort_by(IdlePeriod::cmp_start);
        out
    }
}
