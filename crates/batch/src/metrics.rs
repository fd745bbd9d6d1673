//! Summary statistics of a finished schedule.

use serde::Serialize;

use crate::Time;
use crate::platform::Platform;
use crate::sim::Outcome;

/// The bounded-slowdown threshold τ (seconds): `max(1, turnaround / max(run, τ))`, so that
/// very short jobs do not dominate the mean (Feitelson et al.).
pub const BOUNDED_SLOWDOWN_TAU: Time = 10;

/// Standard metrics of a schedule. Percentiles are nearest-rank: the smallest value with at
/// least that share of jobs at or below it. Slowdown is turnaround over execution time (the
/// run time actually used, so a killed job counts with its truncated run).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub jobs: u64,
    /// Jobs killed at their walltime.
    pub killed: u64,
    pub mean_wait: f64,
    pub median_wait: f64,
    pub p90_wait: f64,
    pub p99_wait: f64,
    pub max_wait: f64,
    pub mean_turnaround: f64,
    pub mean_slowdown: f64,
    /// Mean of `max(1, turnaround / max(execution, τ))` with τ = [`BOUNDED_SLOWDOWN_TAU`].
    pub mean_bounded_slowdown: f64,
    /// `Σ procs · execution / (total processors · (last end − first submit))`.
    pub utilization: f64,
    /// The same weighted by machine speed (Klusáček's "machine usage"); equals `utilization`
    /// on a homogeneous platform.
    pub weighted_utilization: f64,
    /// Last end − first submit.
    pub makespan: Time,
    pub first_submit: Time,
    pub last_end: Time,
    /// Jobs that ended after their deadline.
    pub deadline_misses: u64,
}

/// The nearest-rank percentiles `qs` (ascending, in (0, 1]) of `values` (not empty): for
/// each `q`, the `⌈q·n⌉`-th smallest value. Each is selected in the part of `values` left
/// below the next one, in linear time: three ranks need no full sort of every wait (202,871
/// on HPC2N, summarized beside the replay's CSV).
fn nearest_rank_percentiles<const K: usize>(mut values: Vec<Time>, qs: [f64; K]) -> [f64; K] {
    let n = values.len();
    let rank = |q: f64| ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
    let mut out = [0.0; K];
    // From the highest rank down: after selecting rank `r`, `values[..r]` holds the `r`
    // smallest values, where every lower rank is.
    let mut len = n;
    for (j, &q) in qs.iter().enumerate().rev() {
        let r = rank(q);
        debug_assert!(r < len, "percentiles not ascending");
        let (_, &mut v, _) = values[..len].select_nth_unstable(r);
        out[j] = v as f64;
        len = r + 1;
    }
    out
}

impl Summary {
    /// Summarizes finished jobs on `platform`.
    pub fn new(outcomes: &[Outcome], platform: &Platform) -> Summary {
        let n = outcomes.len();
        if n == 0 {
            return Summary {
                jobs: 0,
                killed: 0,
                mean_wait: 0.0,
                median_wait: 0.0,
                p90_wait: 0.0,
                p99_wait: 0.0,
                max_wait: 0.0,
                mean_turnaround: 0.0,
                mean_slowdown: 0.0,
                mean_bounded_slowdown: 0.0,
                utilization: 0.0,
                weighted_utilization: 0.0,
                makespan: 0,
                first_submit: 0,
                last_end: 0,
                deadline_misses: 0,
            };
        }
        let waits: Vec<Time> = outcomes.iter().map(Outcome::wait).collect();
        let max_wait = waits.iter().copied().max().unwrap_or(0) as f64;
        let [median_wait, p90_wait, p99_wait] = nearest_rank_percentiles(waits, [0.5, 0.9, 0.99]);
        let first_submit = outcomes.iter().map(|o| o.job.submit).min().unwrap_or(0);
        let last_end = outcomes.iter().map(|o| o.end).max().unwrap_or(0);
        let span = (last_end - first_submit).max(1) as f64;
        let (mut sw, mut st, mut ss, mut sb) = (0f64, 0f64, 0f64, 0f64);
        let (mut work, mut wwork) = (0f64, 0f64);
        let (mut killed, mut misses) = (0u64, 0u64);
        let speed_sum: f64 = platform
            .machines()
            .iter()
            .map(|m| f64::from(m.cpus) * f64::from(m.speed))
            .sum();
        for o in outcomes {
            let exec = o.execution().max(1) as f64;
            let turnaround = (o.end - o.job.submit) as f64;
            sw += o.wait() as f64;
            st += turnaround;
            ss += turnaround / exec;
            sb += (turnaround / exec.max(BOUNDED_SLOWDOWN_TAU as f64)).max(1.0);
            let w = f64::from(o.job.procs) * o.execution() as f64;
            work += w;
            wwork += w * f64::from(platform.machines()[o.machine as usize].speed);
            killed += u64::from(o.killed);
            misses += u64::from(o.job.deadline.is_some_and(|d| o.end > d));
        }
        let nf = n as f64;
        Summary {
            jobs: n as u64,
            killed,
            mean_wait: sw / nf,
            median_wait,
            p90_wait,
            p99_wait,
            max_wait,
            mean_turnaround: st / nf,
            mean_slowdown: ss / nf,
            mean_bounded_slowdown: sb / nf,
            utilization: work / (platform.total_cpus() as f64 * span),
            weighted_utilization: wwork / (speed_sum * span),
            makespan: last_end - first_submit,
            first_submit,
            last_end,
            deadline_misses: misses,
        }
    }

    /// Human-readable lines (for the CLI).
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!("jobs {} (killed at walltime: {})", self.jobs, self.killed),
            format!(
                "wait: mean {:.1} s, median {:.0} s, p90 {:.0} s, p99 {:.0} s, max {:.0} s",
                self.mean_wait, self.median_wait, self.p90_wait, self.p99_wait, self.max_wait
            ),
            format!(
                "slowdown: mean {:.2}; bounded (tau = {BOUNDED_SLOWDOWN_TAU} s): mean {:.2}",
                self.mean_slowdown, self.mean_bounded_slowdown
            ),
            format!(
                "utilization {:.4}; makespan {} s (first submit {}, last end {})",
                self.utilization, self.makespan, self.first_submit, self.last_end
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The selected percentiles are those of the sorted values (the former computation).
        #[test]
        fn percentiles_are_those_of_the_sorted_values(
            values in prop::collection::vec(prop_oneof![Just(0i64), 0i64..50, -5i64..1_000_000], 1..400),
        ) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let n = sorted.len();
            let pct = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64;
            let qs = [0.5, 0.9, 0.99];
            prop_assert_eq!(nearest_rank_percentiles(values, qs), qs.map(pct));
        }
    }
}
