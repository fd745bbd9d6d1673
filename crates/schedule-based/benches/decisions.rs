//! Cost of one scheduling decision as the schedule grows: incr-EG-EDF's insertion of one job,
//! one Tabu search call (500 iterations, the paper's 5:500) and re-comp-EG-EDF's insertion of
//! one job (every planned job re-inserted), on the paper's 150-machine grid holding `N`
//! planned jobs (`N` = 10 … 10⁴, all released at time 0 and placed by incr-EG-EDF).
//!
//! Group `schedule-based/m150`, benchmarks `<operation>/planned=<N>` (operation `eg-edf`,
//! `tabu-500`, `re-comp`); `decisions.report.toml` beside this file turns them into
//! docs/benchmarks.md's table and target. The state is cloned outside
//! the timed section (`iter_batched`), so only the decision is timed.
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps N ∈ {10, 1000}.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use gridsched_batch::Platform;
use gridsched_schedule_based::workload::GridWorkload;
use gridsched_schedule_based::{Config, GridSchedule, JobInfo};
use gridsched_sim::StreamKey;

fn sizes() -> Vec<usize> {
    if std::env::var_os("GRIDSCHED_BENCH_QUICK").is_some() {
        vec![10, 1000]
    } else {
        vec![10, 100, 1000, 10_000]
    }
}

/// A grid schedule holding `n` planned jobs, and one more job to insert.
fn state(n: usize) -> (GridSchedule, Vec<JobInfo>, JobInfo) {
    let w = GridWorkload {
        jobs: n as u32 + 1,
        ..GridWorkload::default()
    };
    let key = StreamKey::new(2008, "bench").replication(0);
    let platform = Platform::grid(w.machine_set(&key), w.reference_speed).expect("grid");
    let jobs: Vec<JobInfo> = w
        .job_stream(&key, 1.0)
        .iter()
        .enumerate()
        .map(|(i, j)| JobInfo {
            index: i as u32,
            id: j.id,
            release: 0,
            procs: j.procs,
            run: j.run,
            deadline: j.deadline.map(|d| d - j.submit),
        })
        .collect();
    let mut g = GridSchedule::new(platform, Config::default(), 0);
    for j in &jobs[..n] {
        g.insert_eg_edf(j, 0);
    }
    let next = jobs[n];
    (g, jobs, next)
}

fn decisions(c: &mut Criterion) {
    // One group for the paper's grid; function = the operation, value = the planned jobs.
    let mut group = c.benchmark_group("schedule-based/m150");
    for n in sizes() {
        let (g, jobs, next) = state(n);
        let id = |op: &str| BenchmarkId::new(op, format!("planned={n}"));
        group.sample_size(50);
        group.measurement_time(Duration::from_secs(3));
        group.bench_function(id("eg-edf"), |b| {
            b.iter_batched(
                || g.clone(),
                |mut g| {
                    black_box(g.insert_eg_edf(&next, 0));
                    g
                },
                BatchSize::LargeInput,
            )
        });
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(5));
        group.bench_function(id("tabu-500"), |b| {
            b.iter_batched(
                || (g.clone(), StreamKey::new(1, "bench").rng()),
                |(mut g, mut rng)| {
                    g.tabu_search(500, 500, 0, &jobs, &mut rng);
                    g
                },
                BatchSize::LargeInput,
            )
        });
        // Re-computation re-inserts all N planned jobs: seconds at N = 10^4.
        group.measurement_time(Duration::from_secs(if n >= 10_000 { 60 } else { 5 }));
        group.bench_function(id("re-comp"), |b| {
            b.iter_batched(
                || g.clone(),
                |mut g| {
                    g.recompute_with(&next, 0, &jobs);
                    g
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
