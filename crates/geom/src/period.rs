//! Idle periods, job windows and the one feasibility test everything shares.

use std::cmp::Ordering;
use std::fmt;

/// Simulated time. Continuous models (Castillo ch. 3, unit = `l_min`) use `f64`.
pub type Time = f64;

/// Relative slack allowed when a job must fit *exactly*: a job whose end equals a period's end
/// or its deadline up to floating-point rounding (e.g. `0.1 + 0.2` vs `0.3`) still fits.
///
/// It is eight units in the last place of the times involved ([`time_tolerance`]) — rounding
/// level at every magnitude, so it never lets a job overlap a reservation or miss a deadline by a
/// meaningful amount, however late the simulated clock is. It is used only in the thresholds a
/// [`Window`] precomputes, so every index compares stored keys against the very same numbers and
/// therefore makes the same decision.
pub const TIME_TOLERANCE: Time = 8.0 * f64::EPSILON;

/// The absolute slack at times of the given magnitude: `TIME_TOLERANCE * max(|t|, 1)`.
#[inline]
pub fn time_tolerance(magnitude: Time) -> Time {
    TIME_TOLERANCE * magnitude.abs().max(1.0)
}

/// A maximal free interval `[start, end)` of one server. `end = +inf` marks the server's
/// open-ended final idle period (its *tail*).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdlePeriod {
    pub start: Time,
    pub end: Time,
    pub server: u32,
}

impl IdlePeriod {
    /// A finite idle period. `start < end` is the caller's invariant.
    pub const fn new(start: Time, end: Time, server: u32) -> Self {
        IdlePeriod { start, end, server }
    }

    /// A server's open-ended idle period starting at `start`.
    pub const fn tail(start: Time, server: u32) -> Self {
        IdlePeriod {
            start,
            end: Time::INFINITY,
            server,
        }
    }

    /// `end - start` (`+inf` for a tail).
    #[inline]
    pub fn len(&self) -> Time {
        self.end - self.start
    }

    /// Whether this is a server's open-ended final period.
    #[inline]
    pub fn is_tail(&self) -> bool {
        self.end == Time::INFINITY
    }

    /// Whether the job `window` can be placed in this period (see [`Window`] for the rule).
    #[inline]
    pub fn is_feasible_for(&self, window: &Window) -> bool {
        window.admits(self)
    }

    /// Total order by (start, server): the order of the thesis's per-strip trees, and the
    /// tie-break every rule falls back to. Two live periods never share (start, server).
    #[inline]
    pub fn cmp_start(&self, other: &Self) -> Ordering {
        self.start
            .total_cmp(&other.start)
            .then(self.server.cmp(&other.server))
    }
}

impl fmt::Display for IdlePeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server {} [{}, {})", self.server, self.start, self.end)
    }
}

/// Why a job window is invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowError {
    NonFinite,
    NonPositiveLength,
    DeadlineTooEarly,
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WindowError::NonFinite => "ready time, length and deadline must be finite numbers",
            WindowError::NonPositiveLength => "length must be positive",
            WindowError::DeadlineTooEarly => "deadline is earlier than ready time + length",
        })
    }
}

impl std::error::Error for WindowError {}

/// A job's placement window: it needs `length` time units inside `[ready, deadline]`.
///
/// Geometrically it is the segment from `P = (ready, ready + length)` to
/// `P' = (deadline - length, deadline)`. An idle period `I` is feasible iff
/// `max(I.start, ready) + length <= min(I.end, deadline)` (up to [`Window::tolerance`]).
///
/// The test is split exactly on `I.start < ready` (the thesis's regions R1 and R2) and each
/// side compares stored keys against one precomputed threshold, so a tree that compares the
/// same keys against the same thresholds decides identically to a linear scan:
/// - R1 (`start < ready`): the job starts at `ready`; feasible iff `end >= earliest_end`.
/// - R2 (`start >= ready`): the job starts at `start`; feasible iff `start <= latest_start`
///   and `len() >= min_len`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub ready: Time,
    pub length: Time,
    pub deadline: Time,
    /// `deadline - length`, widened by the tolerance: the latest feasible start.
    pub latest_start: Time,
    /// `ready + length`, narrowed by the tolerance: the earliest end of a feasible period in R1.
    pub earliest_end: Time,
    /// `length`, narrowed by the tolerance: the shortest feasible period in R2.
    pub min_len: Time,
    /// The absolute slack of this window's thresholds: `time_tolerance(max(|ready|, |deadline|))`.
    pub tolerance: Time,
}

impl Window {
    /// A window; rejects non-finite numbers, `length <= 0` and `deadline < ready + length`.
    pub fn new(ready: Time, length: Time, deadline: Time) -> Result<Self, WindowError> {
        if !(ready.is_finite() && length.is_finite() && deadline.is_finite()) {
            return Err(WindowError::NonFinite);
        }
        if length <= 0.0 {
            return Err(WindowError::NonPositiveLength);
        }
        let tol = time_tolerance(ready.abs().max(deadline.abs()));
        if ready + length > deadline + tol {
            return Err(WindowError::DeadlineTooEarly);
        }
        Ok(Window {
            ready,
            length,
            deadline,
            latest_start: deadline - length + tol,
            earliest_end: ready + length - tol,
            min_len: length - tol,
            tolerance: tol,
        })
    }

    /// The feasibility test; see the type documentation.
    #[inline]
    pub fn admits(&self, p: &IdlePeriod) -> bool {
        if p.start < self.ready {
            p.end >= self.earliest_end
        } else {
            p.start <= self.latest_start && p.len() >= self.min_len
        }
    }

    /// Feasibility when the job must *end* at the period's end (Min-TIP's zero trailing idle
    /// period): `end <= deadline` is checked by the caller's partition; here the job
    /// `[end - length, end)` must start no earlier than `ready` and no earlier than `start`.
    #[inline]
    pub fn admits_end_aligned(&self, p: &IdlePeriod) -> bool {
        p.end >= self.earliest_end && p.len() >= self.min_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fit_with_rounding_is_feasible() {
        let w = Window::new(0.1, 0.2, 0.3).unwrap();
        assert!(w.admits(&IdlePeriod::new(0.0, 0.3, 0)));
        assert!(w.admits(&IdlePeriod::new(0.1, 0.3, 0)));
    }

    #[test]
    fn regions() {
        let w = Window::new(6.5, 1.5, 12.0).unwrap();
        assert!(w.admits(&IdlePeriod::new(5.0, 9.5, 0))); // R1
        assert!(!w.admits(&IdlePeriod::new(1.0, 3.0, 0)));
        assert!(w.admits(&IdlePeriod::new(7.5, 9.4, 0))); // R2
        assert!(!w.admits(&IdlePeriod::new(7.5, 8.9, 0)));
        assert!(!w.admits(&IdlePeriod::tail(11.0, 0))); // starts after d - l
        assert!(w.admits(&IdlePeriod::tail(10.5, 0)));
    }

    #[test]
    fn invalid_windows() {
        assert_eq!(
            Window::new(0.0, 0.0, 1.0),
            Err(WindowError::NonPositiveLength)
        );
        assert_eq!(
            Window::new(0.0, 2.0, 1.0),
            Err(WindowError::DeadlineTooEarly)
        );
        assert_eq!(Window::new(f64::NAN, 1.0, 1.0), Err(WindowError::NonFinite));
    }
}
