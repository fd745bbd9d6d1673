//! Cost per job of a chapter-3 experiment replication, as the paper-scale sweeps run it.
//!
//! Not a criterion benchmark: one replication is a long, state-carrying run (the look-ahead
//! fills, the strips rotate), so this harness times whole runs the way `castillo-ch3` does them
//! and reports nanoseconds per job:
//!
//! - `generate`: drawing the jobs (`ReservationStream::next`, streamed as the experiments do);
//! - `<strategy>/<index>`: decision + index update + metrics, i.e. `submit` and
//!   `RunRecorder::record` for every job of the pre-generated stream, from an empty system.
//!
//! The workload is the thesis's (n = 20, bounded Pareto on [1, 50] with α = 1.2, q = 0.1,
//! L = 200). Every measurement is repeated and the median printed (with min and max). Run it
//! pinned to one core, e.g.
//!
//! ```sh
//! taskset -c 1 cargo bench -p gridsched-reservation --bench ch3_job
//! ```
//!
//! Environment: `GRIDSCHED_CH3_JOBS` (default 1,000,000, the paper's replication length),
//! `GRIDSCHED_CH3_REPEAT` (default 5), `GRIDSCHED_CH3_RHO` (comma-separated loads, default
//! `0.6,0.9`), `GRIDSCHED_CH3_STRATEGY` (comma-separated names), `GRIDSCHED_CH3_INDEX`
//! (`tree`, `linear` or both, default `tree,linear`).

use std::hint::black_box;
use std::time::Instant;

use gridsched_reservation::{
    EmptyBin, IndexKind, ReservationScheduler, RunRecorder, SchedulerConfig, SizeBins, Strategy,
    StrategyOptions,
};
use gridsched_sim::{BoundedPareto, StreamKey};
use gridsched_workload::{Request, ReservationWorkload};

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// One run: every job submitted and recorded; returns ns per job and a checksum of the metrics.
fn run_once(config: SchedulerConfig, sizes: &BoundedPareto, jobs: &[Request]) -> (f64, f64) {
    let started = Instant::now();
    let mut scheduler = ReservationScheduler::new(config).expect("valid config");
    let mut recorder = RunRecorder::new(config.servers, SizeBins::from_pareto(sizes, 100));
    for request in jobs {
        let before = scheduler.operations();
        let booking = scheduler
            .submit(request.arrival, &request.window)
            .expect("generated requests are valid");
        recorder.record(request, booking.as_ref(), scheduler.operations() - before);
    }
    let m = recorder.finish(EmptyBin::Skip);
    let ns = started.elapsed().as_secs_f64() * 1e9 / jobs.len() as f64;
    (ns, m.loss + m.utilization)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let jobs = env_usize("GRIDSCHED_CH3_JOBS", 1_000_000);
    let repeat = env_usize("GRIDSCHED_CH3_REPEAT", 5).max(1);
    let loads: Vec<f64> = env_list("GRIDSCHED_CH3_RHO", "0.6,0.9")
        .iter()
        .map(|s| s.parse().expect("GRIDSCHED_CH3_RHO: numbers"))
        .collect();
    let strategies: Vec<Strategy> = env_list(
        "GRIDSCHED_CH3_STRATEGY",
        "first-fit,min-lip,min-tip,best-fit,max-lip,max-tip,lact",
    )
    .iter()
    .map(|s| s.parse().expect("GRIDSCHED_CH3_STRATEGY: strategy names"))
    .collect();
    let indexes: Vec<IndexKind> = env_list("GRIDSCHED_CH3_INDEX", "tree,linear")
        .iter()
        .map(|s| IndexKind::from_name(s).expect("GRIDSCHED_CH3_INDEX: tree | linear"))
        .collect();
    println!("# n = 20, {jobs} jobs per run, median (min-max) of {repeat} runs, ns per job");
    println!("rho,what,index,median_ns,min_ns,max_ns");
    for &load in &loads {
        let workload = ReservationWorkload::castillo_ch3(20, load);
        let key = StreamKey::new(2008, "ch3-job").replication(0);
        // Generation as the experiments stream it (no vector), then once more into a vector
        // (untimed) for the decision runs.
        let mut times = Vec::new();
        for _ in 0..repeat {
            let started = Instant::now();
            for request in workload.stream(&key).expect("valid").take(jobs) {
                black_box(request);
            }
            times.push(started.elapsed().as_secs_f64() * 1e9 / jobs as f64);
        }
        let generated: Vec<Request> = workload.stream(&key).expect("valid").take(jobs).collect();
        let (m, lo, hi) = median(times);
        println!("{load},generate,-,{m:.1},{lo:.1},{hi:.1}");
        for &strategy in &strategies {
            let kinds: &[IndexKind] = if strategy.uses_idle_periods() {
                &indexes
            } else {
                &[IndexKind::Tree]
            };
            for &index in kinds {
                let mut config = SchedulerConfig::new(20, strategy);
                config.options = StrategyOptions::default();
                config.index = index;
                let mut times = Vec::new();
                for _ in 0..repeat {
                    let (ns, check) = run_once(config, &workload.sizes, &generated);
                    black_box(check);
                    times.push(ns);
                }
                let (m, lo, hi) = median(times);
                let index = if strategy.uses_idle_periods() {
                    index.name()
                } else {
                    "none"
                };
                println!("{load},{strategy},{index},{m:.1},{lo:.1},{hi:.1}");
            }
        }
    }
}
