//! The job model of spec §2.4: a job description (required OS, input size), its output
//! (5 × input) and its compute time on a server (the calibration of A1).
//!
//! Why jobs are a table drawn up front: common random numbers across systems (spec §7 item
//! 6). Job `i` — the `i`-th submission of the workload, whichever workstation makes it — has
//! the same OS and size under H1, H4, H16 and P2P of one run, because its draws are the `i`-th
//! draws of the run's `job-os` and `job-size` streams, not draws made when and where a system
//! happens to submit it. A longer workload extends a shorter one (the prefix is unchanged).

use gridsched_sim::{Millis, StreamKey};
use rand_distr::{Distribution, Poisson};

use crate::grid::Os;

/// Output size over input size (L1584).
pub const OUTPUT_RATIO: u64 = 5;

/// One job's attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSpec {
    /// The job's index in the workload (its submission order), the key of its draws.
    pub index: u32,
    /// The required OS (the job's minimum requirements, JMR).
    pub os: Os,
    /// Input bytes (Poisson in MB × 10⁶, never 0).
    pub input_bytes: u64,
}

impl JobSpec {
    /// Output bytes: `OUTPUT_RATIO` × input.
    pub fn output_bytes(&self) -> u64 {
        self.input_bytes * OUTPUT_RATIO
    }
}

/// The execution-time calibration (A1): `t_exec = S / (b · CPUs)` seconds, `b` in bytes per
/// CPU-second; the thesis gives no formula, and `b = 1000` makes its 520-job TRTs equal the
/// slowest server's time plus a cross-backbone transfer within 0.5–5% (spec §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecModel {
    /// `b`, bytes per CPU per second (A1; default 1000).
    pub bytes_per_cpu_second: u64,
}

impl Default for ExecModel {
    fn default() -> Self {
        ExecModel {
            bytes_per_cpu_second: 1000,
        }
    }
}

impl ExecModel {
    /// Compute time of `input_bytes` on `cpus` CPUs, in ms, rounded to the nearest ms
    /// (exact integer arithmetic).
    pub fn exec_ms(&self, input_bytes: u64, cpus: u32) -> Millis {
        let denom = u128::from(self.bytes_per_cpu_second) * u128::from(cpus.max(1));
        let num = u128::from(input_bytes) * 1000;
        ((num + denom / 2) / denom) as Millis
    }
}

/// Why a workload cannot be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JobError {
    #[error("mean job size must be a positive number of MB, got {0}")]
    Size(f64),
    #[error("a workload needs at least one job")]
    Empty,
}

/// The first `n` jobs of a run's workload, index order.
pub fn draw_jobs(run: &StreamKey, n: u32, mean_mb: f64) -> Result<Vec<JobSpec>, JobError> {
    if n == 0 {
        return Err(JobError::Empty);
    }
    if !(mean_mb.is_finite() && mean_mb > 0.0) {
        return Err(JobError::Size(mean_mb));
    }
    let poisson = Poisson::new(mean_mb).map_err(|_| JobError::Size(mean_mb))?;
    let mut os_rng = run.clone().stream("job-os").rng();
    let mut size_rng = run.clone().stream("job-size").rng();
    Ok((0..n)
        .map(|index| {
            let os = Os::draw(&mut os_rng);
            let mb: f64 = poisson.sample(&mut size_rng);
            // A 0 MB draw (only possible for tiny means) becomes 1 MB: no empty transfers.
            let input_bytes = ((mb.max(1.0)) * 1e6).round() as u64;
            JobSpec {
                index,
                os,
                input_bytes,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_matches_the_spec_bound() {
        let e = ExecModel::default();
        // 1 GB on the slowest (128-CPU) server: 10^9 / 128000 s = 7812.5 s.
        assert_eq!(e.exec_ms(1_000_000_000, 128), 7_812_500);
        assert_eq!(e.exec_ms(100_000_000_000, 128), 781_250_000);
    }

    #[test]
    fn jobs_depend_on_index_only() {
        let key = StreamKey::new(1, "jobs-test").replication(4);
        let short = draw_jobs(&key, 50, 1000.0).unwrap();
        let long = draw_jobs(&key, 500, 1000.0).unwrap();
        assert_eq!(short[..], long[..50]);
        let mean = long.iter().map(|j| j.input_bytes as f64).sum::<f64>() / 500.0;
        assert!((mean / 1e9 - 1.0).abs() < 0.01, "{mean}");
        for os in Os::ALL {
            assert!(long.iter().filter(|j| j.os == os).count() > 120);
        }
        assert_eq!(long[0].output_bytes(), 5 * long[0].input_bytes);
    }

    #[test]
    fn bad_parameters() {
        let key = StreamKey::new(1, "jobs-test");
        assert_eq!(draw_jobs(&key, 0, 1.0), Err(JobError::Empty));
        assert!(draw_jobs(&key, 1, 0.0).is_err());
        assert!(draw_jobs(&key, 1, f64::NAN).is_err());
    }
}
