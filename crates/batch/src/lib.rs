//! Queue-based scheduling of rigid parallel jobs on space-shared machines: FCFS, EASY
//! (aggressive) backfilling, conservative backfilling with compression on early completion,
//! and Flexible backfilling — the schedulers Singh (2008) builds on and Klusáček & Rudová
//! compare against, and what most users run first on a Parallel Workloads Archive log.
//!
//! - [`Simulator`]: one event-driven engine for a homogeneous cluster ([`Platform::cluster`])
//!   and a heterogeneous grid of machines with CPU counts and speeds ([`Platform::grid`]; a
//!   parallel job runs on one machine, its run time scaled by the machine's speed). Jobs come
//!   from a trace ([`Simulator::with_jobs`]) or are submitted while it runs
//!   ([`Simulator::submit`]); fixed reservations ([`Simulator::add_reservation`]) are blocks no
//!   job may overlap; the whole state clones cheaply (`Clone`: a few `memcpy`s, the job table
//!   is shared).
//! - [`policies`]: the built-in policies, each a [`Dispatcher`] driving the engine through the
//!   public [`Round`] API only, so a policy of yours ([`Simulator::run_with`]) can do, reuse
//!   or wrap anything they do.
//! - [`Profile`]: the availability profile of one machine, flat arrays of free-processor
//!   changes with `O(log n)` updates and earliest-fit queries; reusable on its own.
//! - [`Summary`] (wait, slowdown, bounded slowdown, utilization, makespan, killed jobs) and
//!   [`write_batsim_csv`] (per-job CSV with Batsim's columns, readable by evalys).
//! - [`audit`]: an independent check of a finished schedule (capacity never exceeded on any
//!   machine, no job before its submission, run times consistent with the kill rule).
//!
//! # Time and event order
//!
//! Time is an integer ([`Time`], seconds for trace replay; any unit for synthetic models, e.g.
//! milliseconds for Klusáček's grid). At one instant the engine applies, in this order: every
//! completion (jobs ending at that time, by job index), every fixed reservation ending, every
//! arrival (by submit time, then job id, then input position), and then runs **one** scheduling
//! round. Completions are applied before the round, so their order cannot change a decision.
//!
//! # Tie-breaks
//!
//! - Queue order is arrival order (FCFS, EASY, conservative); Flexible re-sorts by priority,
//!   ties to the earlier arrival.
//! - A job that can start now on several machines takes the fastest (lowest index among equally
//!   fast) or, with [`MachineSelect::FirstFit`], the lowest index.
//! - EASY reserves for the head on the machine with the earliest start, then the earliest end
//!   (the faster machine), then the lowest index (Klusáček spec A11).
//! - Conservative places a job at its earliest start over all machines; ties to the earliest end
//!   then the lowest index ([`MachineSelect::Fastest`]), or to the lowest index
//!   ([`MachineSelect::FirstFit`]).
//!
//! # Example
//!
//! ```
//! use gridsched_batch::{Config, Job, Platform, Policy, Simulator};
//!
//! let jobs = vec![
//!     Job::new(1, 0, 4, 100),  // id, submit, processors, run time
//!     Job::new(2, 0, 4, 100),  // waits for job 1
//!     Job::new(3, 5, 1, 50),   // backfills: ends at 55, before job 2's reservation at 100
//! ];
//! let mut sim = Simulator::with_jobs(Platform::cluster(5)?, Config::new(Policy::Easy), jobs)?;
//! sim.run();
//! let starts: Vec<i64> = sim.outcomes().map(|o| o.start).collect();
//! assert_eq!(starts, vec![0, 100, 5]);
//! # Ok::<(), gridsched_batch::SimError>(())
//! ```

mod audit;
mod config;
mod metrics;
mod output;
mod platform;
pub mod policies;
pub mod profile;
mod sim;
pub mod swf;

pub use audit::audit;
pub use config::{Compression, Config, Estimates, FlexWeights, MachineSelect, Policy};
pub use metrics::{BOUNDED_SLOWDOWN_TAU, Summary};
pub use output::{
    BATSIM_COLUMNS, BatsimRows, assign_processors, write_batsim_csv, write_batsim_csv_parallel,
};
pub use platform::{Machine, Platform};
pub use profile::{MAX_CAPACITY, Profile};
pub use sim::{
    Counters, Dispatcher, EarlyCompletion, JobPhase, JobRecord, LiveReservation, Outcome,
    Reservation, ReservationId, Round, RunningJob, Simulator,
};

/// Simulated time: integer seconds for trace replay (any integer unit for synthetic models).
pub type Time = i64;

/// A rigid job as submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// The job's number (the log's field 1); output rows carry it.
    pub id: u64,
    /// Submission time.
    pub submit: Time,
    /// Processors, all on one machine (`> 0`).
    pub procs: u32,
    /// Actual run time at the platform's reference speed (`> 0`).
    pub run: Time,
    /// The user's estimate (requested time) at the reference speed, if known (`> 0`).
    pub requested: Option<Time>,
    /// A soft deadline (Klusáček), used by Flexible backfilling's priority and counted in the
    /// summary; `None` for trace jobs.
    pub deadline: Option<Time>,
}

impl Job {
    /// A job with no requested time and no deadline.
    pub fn new(id: u64, submit: Time, procs: u32, run: Time) -> Self {
        Job {
            id,
            submit,
            procs,
            run,
            requested: None,
            deadline: None,
        }
    }

    /// With a requested time.
    pub fn requested(mut self, t: Time) -> Self {
        self.requested = Some(t);
        self
    }

    /// With a deadline.
    pub fn deadline(mut self, t: Time) -> Self {
        self.deadline = Some(t);
        self
    }

    /// The run time the scheduler plans with, at the reference speed.
    #[inline]
    pub fn estimate(&self, e: Estimates) -> Time {
        match e {
            Estimates::Actual => self.run,
            Estimates::Requested => self.requested.unwrap_or(self.run),
        }
    }
}

/// Why a simulation cannot be built or a request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A platform or configuration that cannot run anything.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A job that cannot be simulated (no processors, no run time, wider than every machine,
    /// submitted in the past).
    #[error("job {id}: {reason}")]
    Job { id: u64, reason: String },
    /// A fixed reservation that cannot be placed.
    #[error("reservation refused: {0}")]
    Reservation(String),
}
