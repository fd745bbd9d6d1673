//! The paper's synthetic grid and job streams (spec §4), seeded from named streams.
//!
//! A replication draws one machine set and one job stream; the mean inter-arrival time τ only
//! scales the arrival gaps, so every τ (and every algorithm) sees the same jobs (common random
//! numbers, spec A15).

use gridsched_batch::{Job, Machine};
use gridsched_sim::StreamKey;
use rand::Rng;

use crate::Time;

/// Whether every replication uses one machine set or draws its own (spec A14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MachineSet {
    /// One machine set for every replication; only the jobs are re-drawn ("20 times with
    /// different job attributes"; the spec's proposal).
    #[default]
    Fixed,
    /// Each replication draws its own machines.
    Redrawn,
}

/// Whether the streams of different τ share their random numbers (spec A15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArrivalStreams {
    /// The same jobs and exponential draws at every τ, arrivals scaled by τ (the proposal).
    #[default]
    Common,
    /// Independent draws per τ.
    Independent,
}

/// The generator of spec §4 (defaults: the paper's ranges and the spec's proposals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridWorkload {
    pub machines: u32,
    /// CPUs per machine, uniform integer range.
    pub cpus: (u32, u32),
    /// Machine speeds, uniform integer range.
    pub speed: (u32, u32),
    pub jobs: u32,
    /// Job execution time on the reference machine, seconds, uniform integer range.
    pub exec_s: (u32, u32),
    /// CPUs per job, uniform integer range.
    pub procs: (u32, u32),
    /// Share of jobs with a deadline (Bernoulli per job).
    pub deadline_share: f64,
    /// Deadline `d = r + ceil(δ · e)` with `δ ~ U[lo, hi]` (spec A2: not in the document; a
    /// placeholder proposal, with `[1, 2]` and `[2, 4]` as sensitivity variants).
    pub deadline_delta: (f64, f64),
    /// The reference speed `s_ref` at which execution times are given (spec A1).
    pub reference_speed: u32,
    pub machine_set: MachineSet,
    pub arrivals: ArrivalStreams,
}

impl Default for GridWorkload {
    fn default() -> Self {
        GridWorkload {
            machines: 150,
            cpus: (1, 16),
            speed: (200, 600),
            jobs: 3000,
            exec_s: (500, 3000),
            procs: (1, 8),
            deadline_share: 0.7,
            deadline_delta: (1.0, 3.0),
            reference_speed: 200,
            machine_set: MachineSet::Fixed,
            arrivals: ArrivalStreams::Common,
        }
    }
}

/// Milliseconds per second: the paper's times are seconds, the simulation's milliseconds.
pub const MS: i64 = 1000;

impl GridWorkload {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), String> {
        let range = |name: &str, (lo, hi): (u32, u32)| {
            if lo == 0 || lo > hi {
                Err(format!(
                    "{name} range [{lo}, {hi}] must be positive and ordered"
                ))
            } else {
                Ok(())
            }
        };
        range("CPUs per machine", self.cpus)?;
        range("machine speed", self.speed)?;
        range("job execution time", self.exec_s)?;
        range("CPUs per job", self.procs)?;
        if self.machines == 0 || self.jobs == 0 || self.reference_speed == 0 {
            return Err("machines, jobs and the reference speed must be positive".into());
        }
        if self.procs.1 > self.cpus.1 {
            return Err(format!(
                "jobs of up to {} CPUs cannot run on machines of at most {}",
                self.procs.1, self.cpus.1
            ));
        }
        if !(0.0..=1.0).contains(&self.deadline_share) {
            return Err("the deadline share must be in [0, 1]".into());
        }
        let (a, b) = self.deadline_delta;
        if !(a > 0.0 && a <= b && b.is_finite()) {
            return Err(format!(
                "deadline factor range [{a}, {b}] must be positive and ordered"
            ));
        }
        Ok(())
    }

    /// The machine set of replication `key` (spec §4: `R_i ~ U{cpus}`, `s_i ~ U{speed}`,
    /// redrawn until some machine can run the widest job).
    pub fn machine_set(&self, key: &StreamKey) -> Vec<Machine> {
        let key = match self.machine_set {
            MachineSet::Fixed => key.clone().point("machines").replication(0),
            MachineSet::Redrawn => key.clone().point("machines"),
        };
        let mut rng = key.stream("machines").rng();
        loop {
            let ms: Vec<Machine> = (0..self.machines)
                .map(|_| Machine {
                    cpus: rng.random_range(self.cpus.0..=self.cpus.1),
                    speed: rng.random_range(self.speed.0..=self.speed.1),
                })
                .collect();
            if ms.iter().any(|m| m.cpus >= self.procs.1) {
                return ms;
            }
        }
    }

    /// The job stream of replication `key` at mean inter-arrival time `tau` seconds, in
    /// milliseconds: ids 1.., arrivals `r_j = round(1000 τ Σ E_k)` with `E_k ~ Exp(1)`.
    pub fn job_stream(&self, key: &StreamKey, tau: f64) -> Vec<Job> {
        let key = match self.arrivals {
            ArrivalStreams::Common => key.clone().point("jobs"),
            ArrivalStreams::Independent => key.clone(),
        };
        let mut rng = key.stream("jobs").rng();
        let mut clock = 0.0f64;
        (0..self.jobs)
            .map(|i| {
                // One fixed order of draws per job, so every τ gets the same numbers.
                let gap: f64 = -(1.0 - rng.random::<f64>()).ln();
                let exec: u32 = rng.random_range(self.exec_s.0..=self.exec_s.1);
                let procs: u32 = rng.random_range(self.procs.0..=self.procs.1);
                let has_deadline = rng.random::<f64>() < self.deadline_share;
                let delta = self.deadline_delta.0
                    + (self.deadline_delta.1 - self.deadline_delta.0) * rng.random::<f64>();
                clock += gap;
                let submit = (clock * tau * MS as f64).round() as Time;
                let run = Time::from(exec) * MS;
                let job = Job::new(u64::from(i) + 1, submit, procs, run);
                if has_deadline {
                    // Saturating: a τ so large that times leave i64 is refused by callers
                    // (`gridsched grid generate`), not wrapped into a negative deadline here.
                    job.deadline(submit.saturating_add((delta * run as f64).ceil() as Time))
                } else {
                    job
                }
            })
            .collect()
    }

    /// The offered load `ρ(τ) = E[R_j] E[e_j] s_ref / (τ Σ R_i s_i)` on `machines` (spec §4).
    pub fn offered_load(&self, machines: &[Machine], tau: f64) -> f64 {
        let mean = |(a, b): (u32, u32)| (f64::from(a) + f64::from(b)) / 2.0;
        let capacity: f64 = machines
            .iter()
            .map(|m| f64::from(m.cpus) * f64::from(m.speed))
            .sum();
        mean(self.procs) * mean(self.exec_s) * f64::from(self.reference_speed) / (tau * capacity)
    }
}
