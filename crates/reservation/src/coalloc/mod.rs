//! Online co-allocation with advance reservations (Castillo 2008, ch. 5; spec §2.17–§2.21).
//!
//! A request `r = (q_r, s_r, l_r, n_r)` arrives at `q_r` and asks for `n_r` servers over the
//! same window `[s_r, s_r + l_r)`. The scheduler searches the quantized 2-D trees of
//! [`gridsched_geom::coalloc`]; when the attempt fails it moves the window by `Δt`
//! (`s_r += Δt`) and retries, at most `maxRet = Q/2` times; then the request is put **on
//! hold** and submitted again at `q_r + H` (spec §2.19). Every choice the spec marks ★ is a
//! field of [`CoallocConfig`].
//!
//! - [`CoallocScheduler`]: the engine (event queue of arrivals and held requests, clock,
//!   retries, holds, per-job outcomes, operation counts).
//! - [`requests_from_swf`] maps a Parallel Workloads Archive log to requests (`q_r` = submit,
//!   `l_r` = run time, `n_r` = processors, `s_r = q_r`); [`make_advance_reservations`] turns a
//!   fraction `ρ` of them into advance reservations with `s_r = q_r + U[0, 3 h]`.
//! - [`CoallocRun`]: what a whole run produced; [`audit`] checks a finished schedule.

mod scheduler;
mod workload;

pub use gridsched_geom::coalloc::{
    CoallocPeriod, CoallocPick, MAX_QUANTA, MAX_RANGE_TREE_SERVERS, MAX_SERVERS, QuantizedIndex,
};
pub use scheduler::{
    CoallocConfig, CoallocError, CoallocRun, CoallocScheduler, HoldMode, JobOutcome, audit,
};
pub use workload::{
    ArSelect, CoallocRequest, LengthField, RequestSetReport, make_advance_reservations,
    request_from_swf, requests_from_swf,
};
