//! alzoubi-calib-trt520 (spec §6): H1's total response time for 520 jobs under continuous
//! submission against the "slowest server" bound that supports the execution-time
//! calibration of A1.
//!
//! Why this bound: with 520 jobs on 520 servers, every job runs at once, so the run lasts
//! about as long as the worst job: the one on a 128-CPU server (Table 2's smallest), whose
//! user is a backbone away. The bound is `S / (b · 128)` plus the cross-backbone transfer of
//! `S` in and `5 S` out, with `S` the workload's mean size; the thesis's H1 TRTs sit 0.5–9%
//! above it for 312.7 MB – 100 GB.

use gridsched_sim::{Millis, StreamKey};

use crate::address::Address;
use crate::grid::{Grid, TABLE_2};
use crate::hierarchy::{HierarchyConfig, RootLevel, RunError, Submission, run_hierarchy};
use crate::jobs::{ExecModel, OUTPUT_RATIO, draw_jobs};
use crate::network::{DelayError, Network};

/// One size's measured TRT beside its bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrtCalibration {
    pub mean_mb: f64,
    /// H1's TRT, ms.
    pub trt_ms: Millis,
    /// The slowest-server bound, ms.
    pub bound_ms: Millis,
    /// `trt / bound` (the spec's acceptance band is 1.00–1.15).
    pub ratio: f64,
}

/// The bound for jobs of `mean_mb` MB: compute on the slowest Table 2 server plus the input
/// and output crossing backbones (131.1.1.1 ↔ 132.1.1.1).
pub fn slowest_server_bound_ms(
    network: &Network,
    exec: &ExecModel,
    mean_mb: f64,
) -> Result<Millis, DelayError> {
    let s = (mean_mb * 1e6).round() as u64;
    let cpus = TABLE_2.iter().map(|t| t.cpus()).min().unwrap_or(1);
    let (a, b) = (Address::new(131, 1, 1, 1), Address::new(132, 1, 1, 1));
    let t_in = network.delay_between(a, b, s)?;
    let t_out = network.delay_between(b, a, s * OUTPUT_RATIO)?;
    Ok(exec.exec_ms(s, cpus) + t_in + t_out)
}

/// Runs H1 on the thesis's grid with 520 jobs of mean `mean_mb` MB submitted continuously
/// (Exp 1) and compares its TRT with the bound.
pub fn calib_trt520(
    run: &StreamKey,
    mean_mb: f64,
    config: &HierarchyConfig,
) -> Result<TrtCalibration, RunError> {
    let grid = Grid::thesis(run);
    let jobs = draw_jobs(run, 520, mean_mb)?;
    let network = Network::thesis();
    let bound_ms = slowest_server_bound_ms(&network, &config.exec, mean_mb)?;
    let result = run_hierarchy(
        &grid,
        network,
        &jobs,
        &Submission::Continuous,
        RootLevel::Grid,
        config.clone(),
        run,
    )?;
    let trt_ms = result.metrics.trt_ms;
    Ok(TrtCalibration {
        mean_mb,
        trt_ms,
        bound_ms,
        ratio: trt_ms as f64 / bound_ms as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's §2.4 table of predicted bounds.
    #[test]
    fn bounds_match_the_spec_table() {
        let (n, e) = (Network::thesis(), ExecModel::default());
        let hms = |h: u64, m: u64, s: u64| (h * 3600 + m * 60 + s) * 1000;
        for (mb, want) in [
            (312.7, hms(0, 51, 25)),
            (1000.0, hms(2, 44, 28)),
            (10_000.0, hms(27, 24, 47)),
            (100_000.0, hms(274, 7, 50)),
        ] {
            let got = slowest_server_bound_ms(&n, &e, mb).unwrap();
            assert!(got.abs_diff(want) < 1000, "{mb} MB: {got} ms vs {want} ms");
        }
    }
}
