//! Idle-period geometry for advance-reservation scheduling.
//!
//! A server's free time between two reservations is an *idle period* `[start, end)`; a job
//! request `(ready, length, deadline)` is a *window* that an idle period must contain
//! (Castillo 2008, §3.2: the idle period, seen as the point `(start, end)`, must "completely
//! contain" a point of the job's segment `PP'`). This crate stores idle periods and answers the
//! selection queries that online reservation strategies ask ("the earliest feasible period",
//! "the shortest feasible one", "the latest start below the ready time", ...).
//!
//! It knows nothing of simulation, workloads or I/O: a scheduler owns the clock and the
//! servers, and tells an [`IdlePeriodIndex`] which periods appear and disappear.
//!
//! Two families of indexes implement the same trait and must return *identical* answers:
//! [`LinearIndex`], an obviously correct scan of every live period (the reference), and the
//! strip-partitioned balanced trees of the thesis (fast, `O(log n)` per strip).
//!
//! ```
//! use gridsched_geom::{IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StripGeometry, Window};
//!
//! let mut index = LinearIndex::new(StripGeometry::new(2.0));
//! index.insert(IdlePeriod::new(5.0, 9.0, 0));          // server 0 is idle over [5, 9)
//! index.insert(IdlePeriod::tail(10.0, 1));             // server 1 is idle from 10 on
//! let job = Window::new(6.0, 2.0, 8.0).unwrap();       // ready 6, length 2, deadline 8
//! let chosen = index.select(Rule::EarliestFeasible, &job).unwrap();
//! assert_eq!(chosen, IdlePeriod::new(5.0, 9.0, 0));
//! ```

mod index;
mod linear;
mod period;
mod strip;
mod strips;
pub mod tree;

pub use index::{ExpiryMode, IdlePeriodIndex, Rule, StripOrder};
pub use linear::LinearIndex;
pub use period::{IdlePeriod, TIME_TOLERANCE, Time, Window, WindowError, time_tolerance};
pub use strip::{StripGeometry, StripId};
pub use strips::{
    EndStripIndex, GlobalEndIndex, GlobalLengthIndex, GlobalStartIndex, MAX_RING_SLOTS,
    StartStripIndex, TreeConfig, TreeIndex,
};
pub mod coalloc;
pub mod hetero;
