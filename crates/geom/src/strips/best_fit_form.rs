//! Best-fit's structure: length-ordered runs, or the thesis's 2-D trees, or runs that turn
//! into trees above a size.
//!
//! By default Best-fit is answered from [`GlobalLengthIndex`] (sorted runs in Best-fit's own
//! order, searched without data-dependent branches) at every size. Its search has no
//! logarithmic bound (`O(V)` at worst) where the thesis's strips and 2-D range trees
//! ([`StartStripIndex::with_best_fit`]) have one (`O(log² V)` per boundary strip), but the
//! runs were faster at every size measured, by more as the machine grows: 0.24–0.47 µs per
//! decision from 200 to 20,000 servers against 2.4–90 µs for the trees, 1.0 µs at 100,000
//! servers (~104,000 live periods, against 113 µs for the linear scan), and a 100,000-server
//! CLI run in 0.03 s against 2.34 s and 248 MB (docs/benchmarks.md, issue 18). The trees remain available
//! ([`TreeIndex::with_best_fit_switch`](super::TreeIndex::with_best_fit_switch)): from the
//! start, or above a size with a lower size to come back at (the gap keeps a set that
//! oscillates around one size from converting at every update). A conversion re-inserts every
//! live period into a fresh structure advanced to the last clock, `O(V log V)`, amortized
//! over the at least `to_trees - to_runs` updates between two conversions.
//!
//! Both forms answer exactly as [`LinearIndex`](crate::LinearIndex), so the conversions
//! change no decision; the counted operations are those of the form in use (plus the
//! conversions' insertions).

use crate::index::{IdlePeriodIndex, Rule};
use crate::period::{IdlePeriod, Time, Window};

use super::TreeConfig;
use super::length_index::GlobalLengthIndex;
use super::start_index::StartStripIndex;

#[derive(Debug, Clone)]
enum Form {
    Runs(GlobalLengthIndex),
    /// Boxed: the strip index is several times larger, and a conversion is rare.
    Trees(Box<StartStripIndex>),
}

impl Form {
    fn index(&self) -> &dyn IdlePeriodIndex {
        match self {
            Form::Runs(r) => r,
            Form::Trees(t) => t.as_ref(),
        }
    }

    fn index_mut(&mut self) -> &mut dyn IdlePeriodIndex {
        match self {
            Form::Runs(r) => r,
            Form::Trees(t) => t.as_mut(),
        }
    }
}

/// Best-fit's structure: runs, with an optional switch to the thesis's 2-D trees above a size
/// (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct BestFitIndex {
    config: TreeConfig,
    form: Form,
    /// The runs become trees when the set grows beyond this...
    to_trees: usize,
    /// ...and the trees runs again when it falls below this.
    to_runs: usize,
    /// The last clock given to `advance`, for the fresh structure of a conversion.
    now: Option<Time>,
    /// Operations counted by the structures replaced so far.
    retired: u64,
}

impl BestFitIndex {
    /// Runs at every size.
    pub(crate) fn new(config: TreeConfig) -> Self {
        Self::with_thresholds(config, usize::MAX, 0)
    }

    /// Runs up to `to_trees` periods, trees beyond, runs again below `to_runs`
    /// (`to_runs <= to_trees`).
    pub(crate) fn with_thresholds(config: TreeConfig, to_trees: usize, to_runs: usize) -> Self {
        assert!(to_runs <= to_trees, "thresholds {to_runs} > {to_trees}");
        BestFitIndex {
            config,
            form: Form::Runs(GlobalLengthIndex::new(config)),
            to_trees,
            to_runs,
            now: None,
            retired: 0,
        }
    }

    /// Whether the thesis's trees are in use.
    pub(crate) fn is_trees(&self) -> bool {
        matches!(self.form, Form::Trees(_))
    }

    /// Removes the live period with `probe`'s (start, server), returned as stored.
    pub(crate) fn take(&mut self, probe: &IdlePeriod) -> Option<IdlePeriod> {
        let got = match &mut self.form {
            Form::Runs(r) => r.take(probe),
            Form::Trees(t) => t.take(probe),
        };
        self.settle();
        got
    }

    /// Converts to the form the thresholds ask for at the present size, if it is not the one
    /// in use (an empty set is on trees when `to_trees` is 0).
    pub(crate) fn settle(&mut self) {
        let len = self.form.index().len();
        let fresh = match self.form {
            Form::Runs(_) if len > self.to_trees || self.to_trees == 0 => {
                Form::Trees(Box::new(StartStripIndex::with_best_fit(self.config)))
            }
            Form::Trees(_) if len < self.to_runs => Form::Runs(GlobalLengthIndex::new(self.config)),
            _ => return,
        };
        let old = std::mem::replace(&mut self.form, fresh);
        self.retired += old.index().operations();
        let new = self.form.index_mut();
        if let Some(now) = self.now {
            new.advance(now);
        }
        for p in old.index().periods() {
            new.insert(p);
        }
    }

    /// Panics unless the structure in use is valid. `O(V)`; for tests.
    pub(crate) fn check_invariants(&self) {
        match &self.form {
            Form::Runs(r) => r.check_invariants(),
            Form::Trees(t) => t.check_invariants(),
        }
    }
}

impl IdlePeriodIndex for BestFitIndex {
    fn insert(&mut self, period: IdlePeriod) {
        self.form.index_mut().insert(period);
        self.settle();
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        self.take(period).is_some()
    }

    fn advance(&mut self, now: Time) {
        self.now = Some(now);
        self.form.index_mut().advance(now);
        self.settle();
    }

    fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod> {
        self.form.index_mut().select(rule, window)
    }

    fn len(&self) -> usize {
        self.form.index().len()
    }

    fn operations(&self) -> u64 {
        self.retired + self.form.index().operations()
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        self.form.index().periods()
    }
}
