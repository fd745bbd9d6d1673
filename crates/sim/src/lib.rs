//! The simulation core shared by every model in gridsched.
//!
//! - [`rng`]: reproducible random streams. Every stream is a ChaCha generator seeded from a
//!   stable hash of its *name* — (experiment, sweep point, series, replication, stream) — so
//!   any point of any figure can be recomputed alone, and results never depend on thread count
//!   or execution order.
//! - [`dist`]: the distributions the documents use (exponential, uniform, bounded Pareto with a
//!   solver for the shape that gives a target mean).
//! - [`stats`]: replication statistics with Student-t confidence intervals.
//! - [`events`]: a future-event list with deterministic tie-breaking; [`radix`]: the monotone
//!   radix heap with the same ties that the actor engine uses.
//! - [`actors`]: a message-driven engine on that list — actors with message and timer handlers,
//!   integer-millisecond time, delivery times from a pluggable network delay model.
//! - [`data`]: where the real input data (logs, matrices, workflows) is read from.
//! - [`fmt`]: integer and float formatting for large CSV outputs, byte-identical to `Display`.
//! - [`limits`]: the largest times the integer-second models accept ([`MAX_SECONDS`]).
//! - [`cancel`]: cooperative cancellation of a run from outside (a notebook's Ctrl-C).
//!
//! Nothing here knows about any paper.

pub mod actors;
pub mod cancel;
pub mod data;
pub mod dist;
pub mod events;
pub mod fmt;
pub mod limits;
pub mod radix;
pub mod rng;
pub mod stats;

pub use actors::{
    Actor, ActorId, ConstantDelay, Context, Counters, DelayModel, Envelope, Halt, Millis,
    SendError, Simulation, TimerId, UnknownActor,
};
pub use data::{DATA_ENV, data_dir};
pub use dist::{BoundedPareto, DistError, Exponential, Uniform};
pub use events::EventQueue;
pub use limits::{MAX_SECONDS, MAX_SECONDS_TEXT};
pub use radix::RadixQueue;
pub use rng::{SimRng, StreamKey};
pub use stats::{Summary, mean_ci95};
