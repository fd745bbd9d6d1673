//! One tree index for a scheduler, built for the rules its strategy asks.

use crate::index::{IdlePeriodIndex, Rule};
use crate::period::{IdlePeriod, Time, Window};

use super::TreeConfig;
use super::end_index::EndStripIndex;
use super::start_index::StartStripIndex;

/// The strip-tree index a scheduler uses in place of [`LinearIndex`](crate::LinearIndex):
/// it keeps a [`StartStripIndex`] and/or an [`EndStripIndex`] depending on the rules it is
/// built for, routes every query to the index that answers it from its trees, and answers any
/// other rule by an `O(V)` scan (so any strategy runs on it, and answers are always identical
/// to [`LinearIndex`](crate::LinearIndex)).
///
/// - start-strip rules (`EarliestFeasible`, `ShortestFeasible`, `LongestInFirstStartStrip`,
///   `EarliestStartFromReady`, `LatestStartBeforeReady`, `EarliestStartBeforeReady`) need the
///   start index (with Best-fit's 2-D trees only if `ShortestFeasible` is among the rules);
/// - end-strip rules (`LongestInEndStrip`, `EarliestEndAfterDeadline`,
///   `LatestEndAfterDeadline`) need the end index.
///
/// Updates go to every index kept (`O(log V_s)` each).
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
    end: Option<EndStripIndex>,
}

impl TreeIndex {
    /// An index for a strategy that asks `rules` (any subset; empty means "start strips only").
    pub fn new(config: TreeConfig, rules: &[Rule]) -> Self {
        let wants_start = rules.iter().any(|r| StartStripIndex::supports(*r)) || rules.is_empty();
        let wants_end = rules.iter().any(|r| EndStripIndex::supports(*r));
        let start = wants_start.then(|| {
            if rules.contains(&Rule::ShortestFeasible) {
                StartStripIndex::with_best_fit(config)
            } else {
                StartStripIndex::new(config)
            }
        });
        TreeIndex {
            start,
            end: wants_end.then(|| EndStripIndex::new(config)),
        }
    }

    /// An index answering every rule from its trees (both strip families and Best-fit).
    pub fn with_all_rules(config: TreeConfig) -> Self {
        TreeIndex {
            start: Some(StartStripIndex::with_best_fit(config)),
            end: Some(EndStripIndex::new(config)),
        }
    }

    /// Every rule is answered (some by an `O(V)` scan; see [`TreeIndex::indexes`]).
    pub fn supports(_rule: Rule) -> bool {
        true
    }

    /// Whether this index answers `rule` from its trees rather than by a scan.
    pub fn indexes(&self, rule: Rule) -> bool {
        self.start.as_ref().is_some_and(|s| s.indexes(rule))
            || (self.end.is_some() && EndStripIndex::supports(rule))
    }

    /// The start-strip index, if kept.
    pub fn start_index(&self) -> Option<&StartStripIndex> {
        self.start.as_ref()
    }

    /// The end-strip index, if kept.
    pub fn end_index(&self) -> Option<&EndStripIndex> {
        self.end.as_ref()
    }

    /// Checks the invariants of every index kept, and that they hold the same periods.
    pub fn check_invariants(&self) {
        if let Some(s) = &self.start {
            s.check_invariants();
        }
        if let Some(e) = &self.end {
            e.check_invariants();
        }
        if let (Some(s), Some(e)) = (&self.start, &self.end) {
            assert_eq!(s.periods(), e.periods(), "start and end indexes disagree");
        }
    }

    fn primary(&self) -> &dyn IdlePeriodIndex {
        match (&self.start, &self.end) {
            (Some(s), _) => s,
            (None, Some(e)) => e,
            (None, None) => unreachable!("a TreeIndex keeps at least one index"),
        }
    }
}

impl IdlePeriodIndex for TreeIndex {
    fn insert(&mut self, period: IdlePeriod) {
        if let Some(s) = &mut self.start {
            s.insert(period);
        }
        if let Some(e) = &mut self.end {
            e.insert(period);
        }
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        match (&mut self.start, &mut self.end) {
            (Some(s), Some(e)) => match s.take(period) {
                Some(stored) => {
                    let found = e.remove(&stored);
                    debug_assert!(found, "end index lost {stored}");
                    true
                }
                None => false,
            },
            (Some(s), None) => s.remove(period),
            (None, Some(e)) => e.remove(period),
            (None, None) => false,
        }
    }

    fn advance(&mut self, now: Time) {
        if let Some(s) = &mut self.start {
            s.advance(now);
        }
        if let Some(e) = &mut self.end {
            e.advance(now);
        }
    }

    fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod> {
        if let Some(s) = self.start.as_mut().filter(|s| s.indexes(rule)) {
            return s.select(rule, window);
        }
        if let Some(e) = self.end.as_mut().filter(|_| EndStripIndex::supports(rule)) {
            return e.select(rule, window);
        }
        match (&mut self.start, &mut self.end) {
            (Some(s), _) => s.select(rule, window),
            (None, Some(e)) => e.select(rule, window),
            (None, None) => None,
        }
    }

    fn len(&self) -> usize {
        self.primary().len()
    }

    fn operations(&self) -> u64 {
        self.start.as_ref().map_or(0, |s| s.operations())
            + self.end.as_ref().map_or(0, |e| e.operations())
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        self.primary().periods()
    }
}
