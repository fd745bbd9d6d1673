//! Heterogeneous servers: idle periods with a *nominal capacity* and the three selection
//! structures of Castillo (2008), chapter 4 (spec §2.12–§2.16).
//!
//! A server of rate `μ ∈ (0, 1]` does `μ` units of work per unit of time, so a job of size
//! (work) `l` runs `l / μ` on it. An idle period `[st, et)` of such a server has nominal capacity
//! `c = μ (et − st)`: the largest job it holds if the job starts at `st` ([`RatedPeriod`]).
//! Servers of equal rate form a *rate class*; classes are numbered in ascending rate
//! ([`RateClasses`]).
//!
//! # The one feasibility test
//!
//! A job `(r, l, d)` fits a period `k` of a rate-`μ` server iff `max(st, r) + l/μ ≤ min(et, d)`.
//! The thesis splits this into conditions the text only half states (spec §2.13); we use all
//! four, each a comparison of one *stored* key against one threshold that [`RatedWindow`]
//! precomputes per (job, class):
//!
//! | condition | stored key | threshold |
//! |---|---|---|
//! | the class can meet the deadline at all: `r + l/μ ≤ d` | — | [`RatedWindow::possible`] |
//! | (4.3) start time: `st ≤ d − l/μ` | `start` | [`RatedWindow::latest_start`] |
//! | dual (capacity at `r`): `μ (et − r) ≥ l` ⇔ `et ≥ r + l/μ` | `end` | [`RatedWindow::earliest_end`] |
//! | nominal capacity: `c ≥ l` | `capacity` | [`RatedWindow::min_capacity`] |
//!
//! Every structure here — the lists of FF-HU and FF-HA, the primal/dual trees of FF-HA+ and the
//! literal reference of the pseudo-code — evaluates exactly this conjunction
//! ([`RatedWindow::admits`]), so they agree bit for bit on what is feasible. The thresholds carry
//! the job window's rounding-level slack ([`Window::tolerance`], eight ulps of the window's
//! times), so a job that fits exactly up to rounding does fit; the capacity threshold gets twice
//! that slack (times `μ`), so that "`st < r` and `et ≥ earliest_end`" practically always implies
//! "`c ≥ min_capacity`" — the tree searches rely on that only for speed, never for correctness.
//!
//! # The selection structures
//!
//! - [`StartOrderedList`] (FF-HU): one list of every idle period in (start, server) order;
//!   the first feasible one is chosen.
//! - [`RateClassLists`] (FF-HA): one such list per rate class, searched class by class (slowest
//!   first by default); the first feasible period of the first class that has one.
//! - [`PrimalDualTrees`] (FF-HA+): per class the 2-D tree of §4.4 — a primal tree by start whose
//!   nodes own a dual tree by end (dual `y = −μ·et`) augmented with the maximum nominal
//!   capacity — searched as the pseudo-code of spec §2.16 on the *implicit balanced shape*, so
//!   the chosen period is a pure function of the live set. [`literal`] runs that pseudo-code on
//!   sorted arrays and is the reference the trees are tested against.
//!
//! All three implement [`RatedIndex`] and count the elementary operations their *algorithm*
//! performs (list elements examined; tree nodes of the thesis's search visited), which is the
//! deterministic stand-in for running time.

mod blocks;
pub mod implicit;
mod lists;
pub mod literal;
pub mod primal_dual;
mod scan;
pub(crate) mod treap;

pub use implicit::failed_dual_visits;
pub use implicit::{ImplicitGroup, dual_split, marked_groups, primal_search};
pub use lists::{RateClassLists, StartOrderedList};
pub use primal_dual::PrimalDualTrees;
pub use scan::ScanLists;

use std::cmp::Ordering;
use std::fmt;

use crate::period::{Time, Window};

/// An idle period of a rated server: `[start, end)` on `server`, which belongs to rate class
/// `class`, with nominal capacity `capacity = μ (end − start)` (`+inf` for a server's tail).
///
/// The capacity is computed once, when the period is created, and stored: every structure
/// compares this same number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatedPeriod {
    pub start: Time,
    pub end: Time,
    pub capacity: f64,
    pub server: u32,
    pub class: u32,
}

impl RatedPeriod {
    /// The period `[start, end)` of `server` (class `class`, rate `rate`).
    pub fn new(start: Time, end: Time, server: u32, class: u32, rate: f64) -> Self {
        let capacity = if end == Time::INFINITY {
            f64::INFINITY
        } else {
            rate * (end - start)
        };
        RatedPeriod {
            start,
            end,
            capacity,
            server,
            class,
        }
    }

    /// The open-ended final idle period of `server` from `start` on.
    pub fn tail(start: Time, server: u32, class: u32) -> Self {
        Self::new(start, Time::INFINITY, server, class, 1.0)
    }

    /// Whether this is a server's tail.
    pub fn is_tail(&self) -> bool {
        self.end == Time::INFINITY
    }

    /// Total order by (start, server): the primal order (list order of FF-HU and FF-HA).
    #[inline]
    pub fn cmp_start(&self, other: &Self) -> Ordering {
        self.start
            .total_cmp(&other.start)
            .then(self.server.cmp(&other.server))
    }

    /// Total order by (end, server): the dual order (ascending end = descending dual `y`).
    #[inline]
    pub fn cmp_end(&self, other: &Self) -> Ordering {
        self.end
            .total_cmp(&other.end)
            .then(self.server.cmp(&other.server))
    }

    /// Whether `self` beats `other` as "the maximum nominal capacity period": larger capacity,
    /// ties broken by the smaller (start, server) (spec §2.0).
    #[inline]
    pub fn more_capacity_than(&self, other: &Self) -> bool {
        match self.capacity.total_cmp(&other.capacity) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => self.cmp_start(other) == Ordering::Less,
        }
    }
}

impl fmt::Display for RatedPeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "server {} (class {}) [{}, {}) capacity {}",
            self.server, self.class, self.start, self.end, self.capacity
        )
    }
}

/// A job's thresholds on one rate class (spec §2.13); see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatedWindow {
    /// `r + l/μ ≤ d` (up to the slack): the class can meet the deadline at all.
    pub possible: bool,
    /// `d − l/μ`, widened: the latest feasible start (condition 4.3).
    pub latest_start: Time,
    /// `r + l/μ`, narrowed: a period must end at or after this (the dual test).
    pub earliest_end: Time,
    /// `l`, narrowed by twice the time slack times `μ`: the smallest feasible nominal capacity.
    pub min_capacity: f64,
    /// The job's running time on this class, `l/μ`.
    pub duration: Time,
    /// The job's ready time `r`.
    pub ready: Time,
    /// The absolute slack of the thresholds ([`Window::tolerance`]).
    pub tolerance: Time,
}

impl RatedWindow {
    /// The thresholds of the job `window` (its `length` is the work `l`) on a rate-`rate` class.
    pub fn new(window: &Window, rate: f64) -> Self {
        let duration = window.length / rate;
        let tol = window.tolerance;
        RatedWindow {
            possible: window.ready + duration <= window.deadline + tol,
            latest_start: window.deadline - duration + tol,
            earliest_end: window.ready + duration - tol,
            min_capacity: window.length - 2.0 * rate * tol,
            duration,
            ready: window.ready,
            tolerance: tol,
        }
    }

    /// The feasibility test: the conjunction of the four conditions.
    #[inline]
    pub fn admits(&self, p: &RatedPeriod) -> bool {
        self.possible
            && p.start <= self.latest_start
            && p.end >= self.earliest_end
            && p.capacity >= self.min_capacity
    }

    /// Where the job starts inside an admitted period: `max(start, ready)`.
    #[inline]
    pub fn start_in(&self, p: &RatedPeriod) -> Time {
        p.start.max(self.ready)
    }
}

/// The distinct service rates of a system, ascending; class `h` is the `h`-th smallest rate.
#[derive(Debug, Clone, PartialEq)]
pub struct RateClasses {
    rates: Vec<f64>,
}

/// An invalid rate vector.
#[derive(Debug, Clone, PartialEq)]
pub struct RateError(pub String);

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RateError {}

impl RateClasses {
    /// The classes of a system whose servers have the given rates (each in `(0, 1]`).
    pub fn from_server_rates(rates: &[f64]) -> Result<Self, RateError> {
        if rates.is_empty() {
            return Err(RateError("at least one server is needed".into()));
        }
        for (i, &r) in rates.iter().enumerate() {
            if !(r.is_finite() && r > 0.0 && r <= 1.0) {
                return Err(RateError(format!("server {i}: rate {r} is not in (0, 1]")));
            }
        }
        let mut distinct = rates.to_vec();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        Ok(RateClasses { rates: distinct })
    }

    /// Number of classes `H`.
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// Always false (a system has at least one class).
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// The rate of class `class`.
    pub fn rate(&self, class: usize) -> f64 {
        self.rates[class]
    }

    /// All rates, ascending.
    pub fn rates(&self) -> &[f64] {
        &self.rates
    }

    /// The class of a rate (exact match), if any.
    pub fn class_of(&self, rate: f64) -> Option<u32> {
        self.rates
            .binary_search_by(|r| r.total_cmp(&rate))
            .ok()
            .map(|c| c as u32)
    }

    /// The job's thresholds on every class, in class order.
    pub fn windows(&self, window: &Window, out: &mut Vec<RatedWindow>) {
        out.clear();
        out.extend(self.rates.iter().map(|&r| RatedWindow::new(window, r)));
    }
}

/// In which order the per-class structures are searched (FF-HA, FF-HA+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassOrder {
    /// Slowest class first (the thesis's experiments).
    #[default]
    Ascending,
    /// Fastest class first.
    Descending,
}

impl ClassOrder {
    /// The classes `0..h` in this order.
    pub fn iter(self, h: usize) -> impl Iterator<Item = usize> {
        (0..h).map(move |i| match self {
            ClassOrder::Ascending => i,
            ClassOrder::Descending => h - 1 - i,
        })
    }

    /// Config name.
    pub fn name(self) -> &'static str {
        match self {
            ClassOrder::Ascending => "ascending",
            ClassOrder::Descending => "descending",
        }
    }
}

/// Which period FF-HA+ returns from the first group (marked primal node) holding a feasible
/// one (Castillo spec A22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlusPick {
    /// The dual-tree search of the pseudo-code on the implicit balanced shape (default).
    #[default]
    Tree,
    /// The feasible period of maximum nominal capacity in that group.
    MaxCapInFirstGroup,
    /// The feasible period with the earliest start (then FF-HA+ chooses exactly as FF-HA).
    EarliestStart,
}

impl PlusPick {
    /// Config name.
    pub fn name(self) -> &'static str {
        match self {
            PlusPick::Tree => "tree",
            PlusPick::MaxCapInFirstGroup => "max_cap_in_first_group",
            PlusPick::EarliestStart => "earliest_start",
        }
    }

    /// Parses a config name.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            PlusPick::Tree,
            PlusPick::MaxCapInFirstGroup,
            PlusPick::EarliestStart,
        ]
        .into_iter()
        .find(|p| p.name() == name)
    }
}

/// A store of rated idle periods that chooses a period for a job: the common interface of the
/// FF-HU list, the FF-HA lists and the FF-HA+ trees.
pub trait RatedIndex: fmt::Debug {
    /// The rate classes.
    fn classes(&self) -> &RateClasses;
    /// Adds a period (its `(start, server)` must not be live already).
    fn insert(&mut self, p: RatedPeriod);
    /// Removes the live period with `p`'s (start, server); returns whether it was there.
    fn remove(&mut self, p: &RatedPeriod) -> bool;
    /// Replaces the live period `p` by what a booking leaves of it: `lead` (if any; it has
    /// `p`'s start and server and ends earlier) and `trail` (if any). The same as
    /// [`Self::remove`] of `p` then [`Self::insert`] of each fragment (the default), which a
    /// structure may do in fewer steps; returns whether `p` was live.
    fn carve(
        &mut self,
        p: &RatedPeriod,
        lead: Option<RatedPeriod>,
        trail: Option<RatedPeriod>,
    ) -> bool {
        let removed = self.remove(p);
        for f in [lead, trail].into_iter().flatten() {
            self.insert(f);
        }
        removed
    }
    /// The algorithm's choice for a job whose thresholds on class `h` are `windows[h]`, or
    /// `None` if no live period is feasible (in the classes the algorithm searches).
    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod>;
    /// Number of live periods.
    fn len(&self) -> usize;
    /// Whether no period is live.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of live periods of one class.
    fn class_len(&self, class: usize) -> usize;
    /// Every live period, in (start, server) order.
    fn periods(&self) -> Vec<RatedPeriod>;
    /// Cumulative operations of the algorithm's searches (see the type's docs).
    fn operations(&self) -> u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fits_are_feasible() {
        // Job of work 0.3 on a 0.5-rate server: 0.6 h; period [0.1, 0.7) exactly.
        let w = Window::new(0.1, 0.3, 0.7).unwrap();
        let rw = RatedWindow::new(&w, 0.5);
        assert!(rw.possible);
        assert!(rw.admits(&RatedPeriod::new(0.1, 0.7, 0, 0, 0.5)));
        assert!(rw.admits(&RatedPeriod::new(0.0, 0.7, 0, 0, 0.5)));
        assert!(!rw.admits(&RatedPeriod::new(0.0, 0.69, 0, 0, 0.5)));
        // The class cannot meet the deadline at rate 0.4.
        assert!(!RatedWindow::new(&w, 0.4).possible);
    }

    #[test]
    fn classes_are_ascending_and_validated() {
        let c = RateClasses::from_server_rates(&[0.9, 0.1, 0.5, 0.1]).unwrap();
        assert_eq!(c.rates(), &[0.1, 0.5, 0.9]);
        assert_eq!(c.class_of(0.5), Some(1));
        assert!(RateClasses::from_server_rates(&[0.5, 1.5]).is_err());
        assert!(RateClasses::from_server_rates(&[0.0]).is_err());
        assert!(RateClasses::from_server_rates(&[]).is_err());
        assert_eq!(
            ClassOrder::Descending.iter(3).collect::<Vec<_>>(),
            vec![2, 1, 0]
        );
    }
}
