//! One tree index for a scheduler, built for the rules its strategy asks.

use crate::index::{IdlePeriodIndex, Rule};
use crate::period::{IdlePeriod, Time, Window};

use super::TreeConfig;
use super::best_fit_form::BestFitIndex;
use super::end_index::EndStripIndex;
use super::global::{GlobalEndIndex, GlobalStartIndex};
use super::length_index::GlobalLengthIndex;
use super::start_index::StartStripIndex;

/// The tree index a scheduler uses in place of [`LinearIndex`](crate::LinearIndex): it keeps
/// the structures that answer the rules it is built for, routes every query to the one that
/// answers it from its trees, and answers any other rule by an `O(V)` scan (so any strategy
/// runs on it, and answers are always identical to [`LinearIndex`](crate::LinearIndex)).
///
/// Which structures, for the rules `new` is given (updates go to every structure kept,
/// `O(log V)` each):
///
/// | rules | start family | end family |
/// |---|---|---|
/// | `ShortestFeasible` (Best-fit) | Best-fit's own structure: [`GlobalLengthIndex`] (or the thesis's 2-D trees, [`StartStripIndex`], from a chosen size on: [`TreeIndex::with_best_fit_switch`]) | |
/// | `EarliestFeasible` or `EarliestStartBeforeReady` (First-fit, Max-LIP) | [`GlobalStartIndex`] (answers Max-LIP's step 2 too) | |
/// | else other start-strip rules (Min-LIP) | [`StartStripIndex`] | |
/// | `LatestEndAfterDeadline` (Max-TIP) | | [`GlobalEndIndex`] (answers Max-TIP's step 2 too) |
/// | else other end-strip rules (Min-TIP) | | [`EndStripIndex`] |
///
/// The strip indexes are the thesis's structure; they answer "the first strip, from the ready
/// time's (or the deadline's), that holds a candidate" after `O(1)` root tests on the strips
/// before it, which is what Min-LIP and Min-TIP ask. First-fit, Max-LIP and Max-TIP instead
/// ask for the earliest (latest) candidate over the whole horizon, which a strip index finds
/// by walking every strip up to it (`O(L / w)`); one ordered set of all periods finds it with
/// a few range searches and the same answers (see [`GlobalStartIndex`]). Best-fit's answer is
/// the first feasible period in (length, start, server) order, which sorted runs in that order
/// find 9–240× faster than the thesis's strips and 2-D trees at every size measured, up to
/// 100,000 servers (see [`GlobalLengthIndex`]); the trees, whose search has a logarithmic
/// bound where the runs' has none, are kept for whoever wants that bound.
///
/// ```
/// use gridsched_geom::{
///     ExpiryMode, IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StripGeometry, TreeConfig,
///     TreeIndex, Window,
/// };
///
/// let geometry = StripGeometry::for_min_length(1.0, 1);
/// let config = TreeConfig::new(geometry, 200.0).with_expiry(ExpiryMode::Pool);
/// let rules = [Rule::LongestInFirstStartStrip, Rule::LatestStartBeforeReady { skip_ready_strip: false }];
/// let mut indexes: Vec<Box<dyn IdlePeriodIndex>> =
///     vec![Box::new(LinearIndex::new(geometry)), Box::new(TreeIndex::new(config, &rules))];
/// for index in &mut indexes {
///     for server in 0..3 {
///         index.insert(IdlePeriod::tail(0.0, server));
///     }
///     index.advance(0.0);
/// }
/// let job = Window::new(3.0, 2.0, 9.0).unwrap();
/// let answers: Vec<_> = indexes.iter_mut().map(|ix| ix.select(rules[1], &job)).collect();
/// assert_eq!(answers, vec![Some(IdlePeriod::tail(0.0, 0)); 2]);
/// ```
#[derive(Debug, Clone)]
pub struct TreeIndex {
    start: Option<StartStripIndex>,
    global_start: Option<GlobalStartIndex>,
    end: Option<EndStripIndex>,
    global_end: Option<GlobalEndIndex>,
    /// Boxed: most strategies do not keep it, and it would make every `TreeIndex` larger.
    best_fit: Option<Box<BestFitIndex>>,
}

/// Which structure answers a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Start,
    GlobalStart,
    End,
    GlobalEnd,
    BestFit,
}

/// Rules whose answer is the earliest candidate over the whole horizon (a strip walk).
fn walks_start_strips(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::EarliestFeasible | Rule::EarliestStartBeforeReady
    )
}

/// Which structures [`TreeIndex::new`] builds for `rules`.
struct Wants {
    start: bool,
    global_start: bool,
    end: bool,
    global_end: bool,
    best_fit: bool,
}

impl Wants {
    fn of(rules: &[Rule]) -> Self {
        let end = rules.iter().any(|r| EndStripIndex::supports(*r));
        let start = rules
            .iter()
            .any(|r| *r != Rule::ShortestFeasible && StartStripIndex::supports(*r))
            || rules.is_empty();
        let best_fit = rules.contains(&Rule::ShortestFeasible);
        Wants {
            // Rules no structure indexes (answered by a scan) still need one to hold the
            // periods: the start strips, as for no rules at all.
            start: start || !(end || best_fit),
            global_start: rules.iter().any(|r| walks_start_strips(*r)),
            end,
            global_end: rules.contains(&Rule::LatestEndAfterDeadline),
            best_fit,
        }
    }
}

impl TreeIndex {
    /// Whether [`TreeIndex::new`] builds a strip ring for `rules` (a [`StartStripIndex`] or
    /// an [`EndStripIndex`]): then the configuration's
    /// [`ring_slots`](TreeConfig::ring_slots) must be at most
    /// [`MAX_RING_SLOTS`](super::MAX_RING_SLOTS). The global sets and Best-fit's runs keep no
    /// ring, whatever the look-ahead.
    pub fn uses_strip_rings(rules: &[Rule]) -> bool {
        let w = Wants::of(rules);
        (w.start && !w.global_start) || (w.end && !w.global_end)
    }

    /// An index for a strategy that asks `rules` (any subset; empty means "start strips only").
    ///
    /// Panics if it builds a strip ring ([`TreeIndex::uses_strip_rings`]) for a look-ahead of
    /// more than [`MAX_RING_SLOTS`](super::MAX_RING_SLOTS) slots.
    pub fn new(config: TreeConfig, rules: &[Rule]) -> Self {
        let Wants {
            start: wants_start,
            global_start,
            end: wants_end,
            global_end,
            best_fit,
        } = Wants::of(rules);
        TreeIndex {
            start: (wants_start && !global_start).then(|| StartStripIndex::new(config)),
            global_start: (wants_start && global_start).then(|| GlobalStartIndex::new(config)),
            end: (wants_end && !global_end).then(|| EndStripIndex::new(config)),
            global_end: (wants_end && global_end).then(|| GlobalEndIndex::new(config)),
            best_fit: best_fit.then(|| Box::new(BestFitIndex::new(config))),
        }
    }

    /// [`TreeIndex::new`] whose Best-fit structure (when `rules` asks Best-fit) turns from
    /// runs into the thesis's 2-D trees above `to_trees` live periods and back below
    /// `to_runs` (by default it stays runs: `usize::MAX` and `0`): to bound Best-fit's worst
    /// case by the trees' `O(log² V)` on large sets, to measure the thesis's structure (`0`
    /// and `0`: trees from the start), or to test the conversions.
    pub fn with_best_fit_switch(
        config: TreeConfig,
        rules: &[Rule],
        to_trees: usize,
        to_runs: usize,
    ) -> Self {
        let mut index = Self::new(config, rules);
        if index.best_fit.is_some() {
            let mut best_fit = BestFitIndex::with_thresholds(config, to_trees, to_runs);
            // Start in the form the thresholds ask for an empty set.
            best_fit.settle();
            index.best_fit = Some(Box::new(best_fit));
        }
        index
    }

    /// Whether Best-fit is answered by the thesis's 2-D trees at present (`None` if this index
    /// does not keep Best-fit's structure).
    pub fn best_fit_on_trees(&self) -> Option<bool> {
        self.best_fit.as_ref().map(|b| b.is_trees())
    }

    /// An index answering every rule from its trees (both strip families and Best-fit).
    pub fn with_all_rules(config: TreeConfig) -> Self {
        TreeIndex {
            start: Some(StartStripIndex::with_best_fit(config)),
            global_start: None,
            end: Some(EndStripIndex::new(config)),
            global_end: None,
            best_fit: None,
        }
    }

    /// Every rule is answered (some by an `O(V)` scan; see [`TreeIndex::indexes`]).
    pub fn supports(_rule: Rule) -> bool {
        true
    }

    /// The structure that answers `rule` from its trees, if any.
    fn route(&self, rule: Rule) -> Option<Route> {
        if self.best_fit.is_some() && GlobalLengthIndex::supports(rule) {
            Some(Route::BestFit)
        } else if self.start.as_ref().is_some_and(|s| s.indexes(rule)) && !self.prefers_global(rule)
        {
            Some(Route::Start)
        } else if self.global_start.is_some() && GlobalStartIndex::supports(rule) {
            Some(Route::GlobalStart)
        } else if self.global_end.is_some() && GlobalEndIndex::supports(rule) {
            Some(Route::GlobalEnd)
        } else if self.end.is_some() && EndStripIndex::supports(rule) {
            Some(Route::End)
        } else {
            None
        }
    }

    fn prefers_global(&self, rule: Rule) -> bool {
        self.global_start.is_some() && GlobalStartIndex::supports(rule)
    }

    /// Whether this index answers `rule` from its trees rather than by a scan.
    pub fn indexes(&self, rule: Rule) -> bool {
        self.route(rule).is_some()
    }

    /// The start-strip index, if kept.
    pub fn start_index(&self) -> Option<&StartStripIndex> {
        self.start.as_ref()
    }

    /// The end-strip index, if kept.
    pub fn end_index(&self) -> Option<&EndStripIndex> {
        self.end.as_ref()
    }

    /// The global start-ordered tree, if kept.
    pub fn global_start_index(&self) -> Option<&GlobalStartIndex> {
        self.global_start.as_ref()
    }

    /// The global end-ordered tree, if kept.
    pub fn global_end_index(&self) -> Option<&GlobalEndIndex> {
        self.global_end.as_ref()
    }

    /// Checks the invariants of every index kept, and that they hold the same periods.
    pub fn check_invariants(&self) {
        if let Some(s) = &self.start {
            s.check_invariants();
        }
        if let Some(s) = &self.global_start {
            s.check_invariants();
        }
        if let Some(e) = &self.end {
            e.check_invariants();
        }
        if let Some(e) = &self.global_end {
            e.check_invariants();
        }
        if let Some(b) = &self.best_fit {
            b.check_invariants();
        }
        let all = self.all();
        let want = all[0].periods();
        for ix in &all[1..] {
            assert_eq!(ix.periods(), want, "the structures of a TreeIndex disagree");
        }
    }

    /// Every structure kept.
    fn all(&self) -> Vec<&dyn IdlePeriodIndex> {
        let mut out: Vec<&dyn IdlePeriodIndex> = Vec::new();
        if let Some(s) = &self.start {
            out.push(s);
        }
        if let Some(s) = &self.global_start {
            out.push(s);
        }
        if let Some(e) = &self.end {
            out.push(e);
        }
        if let Some(e) = &self.global_end {
            out.push(e);
        }
        if let Some(b) = &self.best_fit {
            out.push(b.as_ref());
        }
        out
    }

    fn primary(&self) -> &dyn IdlePeriodIndex {
        self.all()
            .into_iter()
            .next()
            .expect("a TreeIndex keeps at least one index")
    }

    fn primary_mut(&mut self) -> &mut dyn IdlePeriodIndex {
        if let Some(s) = &mut self.start {
            return s;
        }
        if let Some(s) = &mut self.global_start {
            return s;
        }
        if let Some(e) = &mut self.end {
            return e;
        }
        if let Some(e) = &mut self.global_end {
            return e;
        }
        self.best_fit
            .as_deref_mut()
            .expect("a TreeIndex keeps at least one index")
    }
}

impl IdlePeriodIndex for TreeIndex {
    fn insert(&mut self, period: IdlePeriod) {
        if let Some(s) = &mut self.start {
            s.insert(period);
        }
        if let Some(s) = &mut self.global_start {
            s.insert(period);
        }
        if let Some(e) = &mut self.end {
            e.insert(period);
        }
        if let Some(e) = &mut self.global_end {
            e.insert(period);
        }
        if let Some(b) = &mut self.best_fit {
            b.insert(period);
        }
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        // Find the stored period (its end may differ from the caller's) by (start, server) in
        // a start-ordered structure if there is one, then remove it exactly everywhere else.
        let stored = if let Some(s) = &mut self.start {
            s.take(period)
        } else if let Some(s) = &mut self.global_start {
            s.take(period)
        } else if let Some(e) = &mut self.end {
            e.take(period)
        } else if let Some(e) = &mut self.global_end {
            e.take(period)
        } else if let Some(b) = &mut self.best_fit {
            b.take(period)
        } else {
            None
        };
        let Some(stored) = stored else {
            return false;
        };
        if self.start.is_some()
            && let Some(s) = &mut self.global_start
        {
            let found = s.take(&stored).is_some();
            debug_assert!(found, "global start index lost {stored}");
        }
        if (self.start.is_some() || self.global_start.is_some())
            && let Some(e) = &mut self.end
        {
            let found = e.take(&stored).is_some();
            debug_assert!(found, "end index lost {stored}");
        }
        if (self.start.is_some() || self.global_start.is_some() || self.end.is_some())
            && let Some(e) = &mut self.global_end
        {
            let found = e.remove_exact(&stored);
            debug_assert!(found, "global end index lost {stored}");
        }
        let others = self.start.is_some()
            || self.global_start.is_some()
            || self.end.is_some()
            || self.global_end.is_some();
        if others && let Some(b) = &mut self.best_fit {
            let found = b.take(&stored).is_some();
            debug_assert!(found, "Best-fit index lost {stored}");
        }
        true
    }

    fn advance(&mut self, now: Time) {
        if let Some(s) = &mut self.start {
            s.advance(now);
        }
        if let Some(s) = &mut self.global_start {
            s.advance(now);
        }
        if let Some(e) = &mut self.end {
            e.advance(now);
        }
        if let Some(e) = &mut self.global_end {
            e.advance(now);
        }
        if let Some(b) = &mut self.best_fit {
            b.advance(now);
        }
    }

    fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod> {
        match self.route(rule) {
            Some(Route::Start) => self.start.as_mut().map(|s| s.select(rule, window))?,
            Some(Route::GlobalStart) => {
                self.global_start.as_mut().map(|s| s.select(rule, window))?
            }
            Some(Route::End) => self.end.as_mut().map(|e| e.select(rule, window))?,
            Some(Route::GlobalEnd) => self.global_end.as_mut().map(|e| e.select(rule, window))?,
            Some(Route::BestFit) => self.best_fit.as_mut().map(|b| b.select(rule, window))?,
            None => self.primary_mut().select(rule, window),
        }
    }

    fn len(&self) -> usize {
        self.primary().len()
    }

    fn operations(&self) -> u64 {
        self.start.as_ref().map_or(0, |s| s.operations())
            + self.global_start.as_ref().map_or(0, |s| s.operations())
            + self.end.as_ref().map_or(0, |e| e.operations())
            + self.global_end.as_ref().map_or(0, |e| e.operations())
            + self.best_fit.as_ref().map_or(0, |b| b.operations())
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        self.primary().periods()
    }
}
