//! The paper's criteria (spec §5), from the jobs' outcomes.

use gridsched_batch::{Outcome, Platform};

/// Delayed jobs, weighted machine usage, makespan and slowdown of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    pub jobs: usize,
    /// Jobs with a deadline.
    pub deadline_jobs: usize,
    /// `U = Σ U_j`: jobs completed after their deadline.
    pub delayed: usize,
    /// `wu_avg` in %: `Σ_j R_j · p_ij · s_i / (Σ_i R_i s_i · C_max)`, the time average of the
    /// momentary weighted usage over `[0, C_max]`.
    pub weighted_usage_pct: f64,
    /// `C_max`, from the origin (time 0 for the paper's workload), in the simulation's time
    /// unit.
    pub makespan: i64,
    /// `(1/n) Σ (C_j − r_j) / p_ij`, over all jobs.
    pub slowdown: f64,
}

impl Metrics {
    /// The metrics of finished jobs on `platform`, with time 0 as the origin (the paper's
    /// workload starts there).
    pub fn of(outcomes: &[Outcome], platform: &Platform) -> Metrics {
        Metrics::since(outcomes, platform, 0)
    }

    /// [`Metrics::of`] with `origin` as the start of the measured interval `[origin, C_max]`:
    /// a log's first submission, whose clock does not start at 0 (CEA-Curie's first job is
    /// submitted on day 366 of its clock, so from 0 its machine usage would be a fraction of
    /// the true one).
    pub fn since(outcomes: &[Outcome], platform: &Platform, origin: i64) -> Metrics {
        let capacity: f64 = platform
            .machines()
            .iter()
            .map(|m| f64::from(m.cpus) * f64::from(m.speed))
            .sum();
        let makespan = outcomes
            .iter()
            .map(|o| o.end)
            .max()
            .map_or(0, |end| end - origin);
        let busy: f64 = outcomes
            .iter()
            .map(|o| {
                f64::from(o.job.procs)
                    * (o.end - o.start) as f64
                    * f64::from(platform.machines()[o.machine as usize].speed)
            })
            .sum();
        let slowdown = outcomes
            .iter()
            .map(|o| (o.end - o.job.submit) as f64 / (o.end - o.start).max(1) as f64)
            .sum::<f64>()
            / outcomes.len().max(1) as f64;
        Metrics {
            jobs: outcomes.len(),
            deadline_jobs: outcomes.iter().filter(|o| o.job.deadline.is_some()).count(),
            delayed: outcomes
                .iter()
                .filter(|o| o.job.deadline.is_some_and(|d| o.end > d))
                .count(),
            weighted_usage_pct: if makespan > 0 {
                100.0 * busy / (capacity * makespan as f64)
            } else {
                0.0
            },
            makespan,
            slowdown,
        }
    }
}
