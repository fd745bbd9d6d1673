//! Klusáček & Rudová's incremental schedule-based grid scheduling (seed 002; spec
//! `klusacek-eg-edf.md`): EG-EDF, Tabu search and re-computation, against the queue-based FCFS,
//! EASY and Flexible backfilling of `gridsched-batch`, on one event engine.
//!
//! # The model (spec §2.0)
//!
//! A grid of machines with `R_i` CPUs at speed `s_i`; a rigid job of `R_j` CPUs runs on one
//! machine for `p_ij = ceil(e_j · s_ref / s_i)` (its run time `e_j` is given at the reference
//! speed `s_ref`, spec A1); run times are exact; a soft deadline is missed, not enforced. Time
//! is an integer (milliseconds for the paper's workload).
//!
//! # The schedule (spec §2.1–2.2, [`machine`])
//!
//! Instead of a queue, each machine keeps an ordered list of planned jobs, *compacted* in list
//! order: a job takes the CPUs that are free earliest (ties to the lowest CPU id) and never
//! starts before its predecessor. Which CPUs a job takes is never observable (starts, ends
//! and usage depend only on how many CPUs are free when), so the schedules keep CPUs as
//! classes of one free time with a count, and a machine's size costs nothing per operation. A new job goes into the **earliest gap** (EG) long and wide
//! enough for it — the position that moves no other job — or, by **EDF insertion**, before the
//! first planned job with a later deadline, which shifts the jobs behind it.
//!
//! # The algorithms ([`plan`])
//!
//! - **incr-EG-EDF** (Algorithm 1): per machine wide enough, in index order, the EG candidate
//!   and, only if the acceptance criterion rejects it, the EDF candidate.
//! - **AcceptanceCriterion** (Algorithm 2): the relative improvement in predicted weighted
//!   usage plus that in non-delayed jobs must be strictly positive; an empty best accepts.
//! - **Tabu search** (Algorithm 3) with **MoveJob** (Algorithm 4), run after every `F`-th
//!   arrival for `I` iterations ([`TabuSetting`], e.g. `5:500`).
//! - **re-comp-EG-EDF** (§2.8): on every arrival all planned jobs are re-inserted, in deadline
//!   order, by incr-EG-EDF.
//! - **FCFS, EASY, Flexible backfilling** (§2.10–2.12): `gridsched-batch`'s policies with the
//!   spec's tie-breaks ([`Config::queue_machine_select`], Flexible's priority over the
//!   workload's execution-time range).
//!
//! # One engine, one event order (spec §2.9, §7)
//!
//! Every algorithm runs on [`gridsched_batch::Simulator`]: the queue-based ones as built-in
//! policies, the schedule-based ones through its [`Dispatcher`](gridsched_batch::Dispatcher)
//! hook. At each event time: completions, then arrivals in submit/id order (each followed by its
//! EG-EDF insertion, and Tabu search when triggered), then every planned job whose start is now
//! starts. Exact run times make every planned start an event time, so no timer is needed.
//!
//! # Interpretation switches (spec §2.13)
//!
//! Every undefined part is a field of [`Config`] (A3 usage, A4 non-delayed scope, A5 epsilon,
//! A6 tabu capacity, A9 queue machine choice, A10 Flexible weights, A17 the choice between
//! candidates the criterion scores alike) or of the workload ([`workload::GridWorkload`]: A1
//! `s_ref`, A2 deadlines, A14 machine set, A15 common random numbers across τ); defaults are
//! the spec's proposals, and A17's, which the spec does not list, is [`TieBreak`]'s.

mod free;
pub mod io;
pub mod machine;
pub mod metrics;
pub mod plan;
mod profile;
pub mod run;
pub mod workload;

pub use metrics::Metrics;
pub use plan::{GridSchedule, JobInfo, Objective, accept, weight};
pub use run::{Algorithm, RunResult, run};

/// Simulated time (milliseconds for the paper's workload).
pub type Time = i64;

/// What "usage" of a predicted schedule means (spec §2.3, A3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UsageDefinition {
    /// `W / (CAP · (Cmax_pred − now))`: the planned work over the capacity until the predicted
    /// makespan (Alea's `predictWeightedMachineUsage`; the spec's proposal).
    #[default]
    Predicted,
    /// The paper's `wu_avg` applied to the predicted schedule from time 0:
    /// `(W_done + W_running + W_planned) / (CAP · Cmax_pred)`.
    FromZero,
}

/// Which jobs "non-delayed" counts (spec §2.3, A4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NondelayedScope {
    /// Finished, running and planned jobs on time (the spec's proposal).
    #[default]
    All,
    /// Planned jobs only.
    PlannedOnly,
}

/// Which candidate incr-EG-EDF keeps when the acceptance criterion scores two exactly alike
/// (spec §2.4 with §2.3; reading A17, not in the spec's register).
///
/// The weighted work of a job, `R_j · p_ij · s_i = R_j · e_j · s_ref` (A1), is the same on
/// every machine, so under any reading of usage built on the paper's `wu_avg` (A3) the usage
/// term moves only when a candidate moves the predicted makespan, and the deadline term only
/// when it changes the count of non-delayed jobs. Most arrivals in a backlog do neither: every
/// candidate machine then scores `w = 0` against the best so far, and Algorithm 1's strict
/// `weight > 0` keeps the first machine in list order, an order the paper never gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TieBreak {
    /// A candidate that scores exactly like the best so far replaces it when the new job
    /// completes earlier in it (ties again: the earlier machine). The paper's narrative: "our
    /// algorithms prefer to wait for a while until the fast machine is available, finishing
    /// the job earlier than if executed immediately on a slow machine" (§4).
    #[default]
    EarliestCompletion,
    /// Algorithm 1 to the letter: a tie is rejected, so the earliest machine in the list that
    /// reached the best score is kept; the choice then depends on the machines' order.
    ListOrder,
}

/// Tabu search's period and length: after every `frequency`-th arrival, `iterations` moves
/// (the paper's `XX:YYY` notation, e.g. `5:500`), with a FIFO tabu list of `capacity` jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TabuSetting {
    pub frequency: u32,
    pub iterations: u32,
    /// Tabu-list capacity (spec A6: not given; `None` = `iterations`, so each job is tried at
    /// most once per call).
    pub capacity: Option<u32>,
}

impl TabuSetting {
    /// The paper's final setting, `5:500`.
    pub const PAPER: TabuSetting = TabuSetting {
        frequency: 5,
        iterations: 500,
        capacity: None,
    };

    /// The tabu-list capacity in effect.
    pub fn tabu_capacity(&self) -> usize {
        self.capacity.unwrap_or(self.iterations) as usize
    }
}

impl std::str::FromStr for TabuSetting {
    type Err = String;

    /// `F:I`, e.g. `5:500` (frequency ≥ 1 arrivals, iterations ≥ 0).
    fn from_str(s: &str) -> Result<Self, String> {
        let (f, i) = s
            .split_once(':')
            .ok_or_else(|| format!("`{s}`: expected FREQUENCY:ITERATIONS, e.g. 5:500"))?;
        let frequency: u32 = f
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: the frequency `{f}` is not a whole number"))?;
        let iterations: u32 = i
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: the iterations `{i}` are not a whole number"))?;
        if frequency == 0 {
            return Err(format!("`{s}`: the frequency must be at least 1 arrival"));
        }
        Ok(TabuSetting {
            frequency,
            iterations,
            capacity: None,
        })
    }
}

impl std::fmt::Display for TabuSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.frequency, self.iterations)
    }
}

/// Every interpretation switch of the schedule-based algorithms and the baselines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// A3.
    pub usage: UsageDefinition,
    /// A4.
    pub nondelayed: NondelayedScope,
    /// A5: the denominator floor of the relative improvements (Alea's `1e-13`).
    pub epsilon: f64,
    /// A17: incr-EG-EDF's choice between candidates the criterion scores alike.
    pub tie_break: TieBreak,
    /// A9: FCFS / EASY / Flexible start a job on the fastest machine that can take it (the
    /// spec's proposal) or on the first one.
    pub queue_machine_select: gridsched_batch::MachineSelect,
    /// A10: Flexible backfilling's priority weights and the execution-time range of its `E_j`.
    pub flex: gridsched_batch::FlexWeights,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            usage: UsageDefinition::default(),
            nondelayed: NondelayedScope::default(),
            epsilon: 1e-13,
            tie_break: TieBreak::default(),
            queue_machine_select: gridsched_batch::MachineSelect::Fastest,
            flex: gridsched_batch::FlexWeights::default(),
        }
    }
}

/// Why a run cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A job or machine the model refuses (wider than every machine, no run time, ...).
    #[error(transparent)]
    Sim(#[from] gridsched_batch::SimError),
    /// A parameter out of range.
    #[error("{0}")]
    Config(String),
}
