//! Workload inputs for gridsched's models.
//!
//! - [`requests`]: advance-reservation request streams `(id, arrival, ready, length, deadline)`:
//!   the CSV format read by `gridsched schedule reservation`, validated row by row with errors
//!   that name the file and line.
//! - [`synthetic`]: seeded generators of such streams (Castillo 2008 ch. 3: Poisson arrivals,
//!   bounded-Pareto lengths, book-ahead ready times, uniform deadline slack).

pub mod requests;
pub mod synthetic;

pub use requests::{
    InputError, MAX_TIME_IN_LENGTHS, Request, RequestFile, RequestLimits, read_requests,
    read_requests_from, write_requests,
};
pub use synthetic::{ReadyOffset, ReservationStream, ReservationWorkload};
pub mod hetero;
pub mod swf;
pub use swf::{
    SwfHeader, SwfJob, SwfLoadOptions, SwfLoadReport, SwfLog, SwfReader, SwfRecord, load_swf,
};
