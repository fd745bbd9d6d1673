//! `batch-replay`: a Parallel Workloads Archive log replayed under one of `gridsched-batch`'s
//! queue policies (EASY by default, with the requested times as estimates and kills at them),
//! compared with the waits the log itself recorded (SWF field 3). One deterministic pass per
//! run; no random stream is used.
//!
//! Curves (`evaluation = "curve"`, axis `threshold_h`): `cdf` is the fraction of jobs whose
//! wait is at most `x` hours, for the series' wait source (`waits = "log"` or `"replay"`).
//! Scalar metrics are repeated at every `x`: the mean / median / 90th-percentile wait (hours)
//! of that source, and `ks`, the Kolmogorov–Smirnov distance between the two sources' wait
//! distributions over the same jobs (so both series of one log report the same `ks`).
//!
//! The jobs are the log's kept jobs (the SWF reader's rules) that fit the machine
//! (`MaxProcs`), and, for both sources, only those whose recorded wait is known, so that the
//! two distributions are over the same set.

use gridsched_repro::papers::Paper;

/// Not a seed document: checks of the queue-based schedulers (`crates/batch`) against what
/// real machines did, on Parallel Workloads Archive logs.
pub static PAPER: Paper = Paper {
    key: "logs",
    seed: "-",
    citation: "Real-world checks on Parallel Workloads Archive logs (queue-based batch scheduling)",
    short: "PWA logs",
    spec: "klusacek-eg-edf.md",
};

/// The models its entries use.
pub fn models() -> Vec<Box<dyn Model>> {
    vec![Box::new(BatchReplay)]
}
use std::path::Path;

use gridsched_batch::{Config, Estimates, Platform, Policy, Simulator, swf::trace_jobs};
use gridsched_sim::StreamKey;
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

use gridsched_repro::model::{CurveMeasurement, Measurement, Model, ModelError, ParamSet};

/// The model; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct BatchReplay;

const PARAMETERS: &[(&str, &str)] = &[
    (
        "trace",
        "the log: a short name (KTH, CTC, HPC2N, SDSC, ...) or a path under <data>/traces/",
    ),
    (
        "waits",
        "`log` (recorded, field 3) or `replay` (our policy)",
    ),
    (
        "policy",
        "`easy` (default), `fcfs`, `conservative`, `flexible`",
    ),
    (
        "estimates",
        "`requested` (default: field 9, killed at it) or `actual`",
    ),
    ("curve", "`wait_cdf` (the only curve)"),
    ("threshold_h", "curve axis: wait threshold in hours"),
];

const METRICS: &[&str] = &[
    "cdf",
    "mean_wait_h",
    "median_wait_h",
    "p90_wait_h",
    "ks",
    "jobs",
];

/// Waits (seconds) of the same jobs: recorded by the log and from our replay.
struct Waits {
    log: Vec<f64>,
    replay: Vec<f64>,
}

fn replay(params: &ParamSet, jobs: u64) -> Result<Waits, ModelError> {
    let trace = params.str_or("trace", "")?;
    if trace.is_empty() {
        return Err(ModelError("parameter `trace` is required".into()));
    }
    let policy = params.choice(
        "policy",
        Policy::Easy,
        &[
            ("easy", Policy::Easy),
            ("fcfs", Policy::Fcfs),
            ("conservative", Policy::Conservative),
            ("flexible", Policy::Flexible),
        ],
    )?;
    let estimates = params.choice(
        "estimates",
        Estimates::Requested,
        &[
            ("requested", Estimates::Requested),
            ("actual", Estimates::Actual),
        ],
    )?;
    let path = trace_path(&data_dir(None), trace);
    let limit = usize::try_from(jobs).ok().filter(|&j| j > 0);
    let log = load_swf(Path::new(&path), SwfLoadOptions { limit }).map_err(|e| {
        ModelError(format!(
            "{e} (logs are read from the data directory: --data-dir, $GRIDSCHED_DATA or ../shared/data)"
        ))
    })?;
    let procs = log
        .header
        .max_procs
        .and_then(|m| u32::try_from(m).ok())
        .filter(|&m| m > 0)
        .ok_or_else(|| ModelError(format!("{}: no usable MaxProcs", path.display())))?;
    let tj = trace_jobs(&log, procs);
    let config = Config::new(policy)
        .estimates(estimates)
        .check_invariants(false);
    let platform = Platform::cluster(procs).map_err(ModelError::from_display)?;
    let mut sim = Simulator::with_jobs(platform, config, tj.jobs.clone())
        .map_err(ModelError::from_display)?;
    sim.run();
    // Outcomes come in the simulator's job order (submit, then id); map back by position.
    let mut order: Vec<usize> = (0..tj.jobs.len()).collect();
    order.sort_by_key(|&i| (tj.jobs[i].submit, tj.jobs[i].id));
    let outcomes: Vec<_> = sim.outcomes().collect();
    if outcomes.len() != tj.jobs.len() {
        return Err(ModelError(format!(
            "{} of {} jobs finished",
            outcomes.len(),
            tj.jobs.len()
        )));
    }
    let mut w = Waits {
        log: Vec::with_capacity(outcomes.len()),
        replay: Vec::with_capacity(outcomes.len()),
    };
    for (o, &i) in outcomes.iter().zip(&order) {
        debug_assert_eq!(o.job.id, tj.jobs[i].id);
        if let Some(rec) = tj.recorded_wait[i].filter(|&r| r >= 0) {
            w.log.push(rec as f64);
            w.replay.push(o.wait() as f64);
        }
    }
    if w.log.is_empty() {
        return Err(ModelError(format!(
            "{}: no job with a recorded wait",
            path.display()
        )));
    }
    w.log.sort_by(f64::total_cmp);
    w.replay.sort_by(f64::total_cmp);
    Ok(w)
}

/// Fraction of the sorted `v` at or below `x`.
fn ecdf(v: &[f64], x: f64) -> f64 {
    v.partition_point(|&w| w <= x) as f64 / v.len() as f64
}

/// Nearest-rank quantile of the sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let n = v.len();
    let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
    v[rank - 1]
}

/// Kolmogorov–Smirnov distance `sup_x |F_a(x) − F_b(x)|` of two sorted samples (evaluated at
/// every sample value, where the supremum is reached).
fn ks_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .chain(b)
        .map(|&x| (ecdf(a, x) - ecdf(b, x)).abs())
        .fold(0.0, f64::max)
}

impl Model for BatchReplay {
    fn name(&self) -> &'static str {
        "batch-replay"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        PARAMETERS
    }

    fn metrics(&self) -> &'static [&'static str] {
        METRICS
    }

    fn run(&self, _: &ParamSet, _: &StreamKey, _: u64) -> Result<Measurement, ModelError> {
        Err(ModelError(
            "model `batch-replay` needs a curve axis (evaluation = \"curve\")".into(),
        ))
    }

    fn run_curve(
        &self,
        params: &ParamSet,
        _key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        params.check_known(self)?;
        params.choice("curve", (), &[("wait_cdf", ())])?;
        let log_waits = params.choice("waits", true, &[("log", true), ("replay", false)])?;
        if !params.has("waits") {
            return Err(ModelError(
                "parameter `waits` (`log` or `replay`) is required".into(),
            ));
        }
        let w = replay(params, jobs)?;
        let ks = ks_distance(&w.log, &w.replay);
        let v = if log_waits { &w.log } else { &w.replay };
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let mut rows = Vec::with_capacity(xs.len() * METRICS.len());
        for &x in xs {
            rows.push((x, "cdf", ecdf(v, x * 3600.0)));
            rows.push((x, "mean_wait_h", mean / 3600.0));
            rows.push((x, "median_wait_h", quantile(v, 0.5) / 3600.0));
            rows.push((x, "p90_wait_h", quantile(v, 0.9) / 3600.0));
            rows.push((x, "ks", ks));
            rows.push((x, "jobs", v.len() as f64));
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_and_quantiles() {
        let a = [0.0, 1.0, 2.0, 3.0];
        let b = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(ks_distance(&a, &b), 0.0);
        // b shifted right by 10: at x = 3, F_a = 1 and F_b = 0.
        let b = [10.0, 11.0, 12.0, 13.0];
        assert_eq!(ks_distance(&a, &b), 1.0);
        // One value differs: sup |F_a - F_b| = 1/4.
        let b = [0.0, 1.0, 2.0, 5.0];
        assert_eq!(ks_distance(&a, &b), 0.25);
        assert_eq!(quantile(&a, 0.5), 1.0);
        assert_eq!(quantile(&a, 0.9), 3.0);
        assert_eq!(ecdf(&a, 1.5), 0.5);
    }
}
