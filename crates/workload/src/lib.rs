//! Workload inputs for gridsched's models.
//!
//! - [`requests`]: advance-reservation request streams `(id, arrival, ready, length, deadline)`:
//!   the CSV format read by `gridsched schedule reservation`, validated row by row with errors
//!   that name the file and line.
//! - [`synthetic`]: seeded generators of such streams (Castillo 2008 ch. 3: Poisson arrivals,
//!   bounded-Pareto lengths, book-ahead ready times, uniform deadline slack).

pub mod requests;
pub mod synthetic;

pub use requests::{read_requests, write_requests, InputError, Request, RequestLimits};
pub use synthetic::{ReadyOffset, ReservationStream, ReservationWorkload};
