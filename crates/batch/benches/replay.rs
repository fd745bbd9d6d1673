//! Batch replay throughput: the simulation core of EASY, conservative backfilling (replay
//! compression) and FCFS, from jobs in memory to every job finished.
//!
//! Groups `batch/<policy>`, benchmarks `<workload>/n=<jobs>`; throughput in jobs (criterion
//! prints jobs/s):
//! - `synthetic`: a seeded stream on 256 processors (sizes 1..=64 skewed to small, log-uniform
//!   run times 1 s..36 h, requested times 1–5 times the run time, arrivals at ~90% offered
//!   load), so the bench runs without data;
//! - `overload`: the same stream at 120% offered load (a queue of thousands of jobs);
//! - `hpc2n`: a prefix of the HPC2N log (240 processors), when the log is in the data
//!   directory ($GRIDSCHED_DATA or ../shared/data).
//!
//! Estimates are the requested times (jobs killed at them). Invariant checks are off, as in
//! the CLI. The whole-log timing, including reading the gzip log, is the `replay_timing`
//! example (see docs/benchmarks.md). `GRIDSCHED_BENCH_QUICK=1`: the smaller sizes only.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, swf::trace_jobs};

#[path = "common/synthetic.rs"]
mod common;
use common::synthetic;
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

fn quick() -> bool {
    std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn hpc2n(n: usize) -> Option<(u32, Vec<Job>)> {
    let path = trace_path(&data_dir(None), "HPC2N");
    let log = load_swf(Path::new(&path), SwfLoadOptions { limit: Some(n) }).ok()?;
    let procs = log.header.max_procs? as u32;
    Some((procs, trace_jobs(&log, procs).jobs))
}

fn bench(c: &mut Criterion) {
    let sizes: &[usize] = if quick() {
        &[10_000]
    } else {
        &[10_000, 100_000]
    };
    let mut workloads: Vec<(String, u32, Vec<Job>)> = Vec::new();
    for &n in sizes {
        workloads.push((format!("synthetic/n={n}"), 256, synthetic(n, 256, 0.9)));
        if let Some((p, jobs)) = hpc2n(n) {
            workloads.push((format!("hpc2n/n={}", jobs.len()), p, jobs));
        }
    }
    // Offered load 1.2: the queue grows to thousands of jobs, each holding a reservation
    // (the profile's worst case; conservative backfilling's compressions re-place them all).
    workloads.push(("overload/n=10000".into(), 256, synthetic(10_000, 256, 1.2)));
    for policy in [Policy::Easy, Policy::Conservative, Policy::Fcfs] {
        let mut g = c.benchmark_group(format!("batch/{}", policy.name()));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        for (name, procs, jobs) in &workloads {
            g.throughput(Throughput::Elements(jobs.len() as u64));
            g.bench_with_input(BenchmarkId::from_parameter(name), jobs, |b, jobs| {
                let config = Config::new(policy)
                    .estimates(Estimates::Requested)
                    .check_invariants(false);
                let platform = Platform::cluster(*procs).unwrap();
                b.iter_batched(
                    || jobs.clone(),
                    |jobs| {
                        let mut sim = Simulator::with_jobs(platform.clone(), config, jobs).unwrap();
                        sim.run();
                        black_box(sim.counters())
                    },
                    criterion::BatchSize::LargeInput,
                );
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
