//! Whole-log replay timing: `cargo run --release -p gridsched-batch --example replay_timing --
//! [TRACE] [policy] [actual|requested] [replay|in-place]` (TRACE: a path or a short name such
//! as HPC2N, or `synthetic:N:LOAD` for the benchmark's seeded stream of N jobs on 256
//! processors at that offered load). Prints CPU seconds (this thread, from
//! /proc/thread-self/schedstat) for reading the gzip log, for the simulation alone, and jobs
//! per CPU second. Environment: `PROCS` (cluster size instead of the header's MaxProcs; wider
//! jobs are dropped), `LIMIT` (the first N jobs of the log only), `SIZES=1` (also step the
//! simulation and print the largest queue and profile seen; slower, not a timing), `EVERY=N`
//! (also print, every N events, the simulated time, CPU seconds so far, queue and profile
//! sizes and the counters: where a replay spends its time).

use std::path::Path;

use gridsched_batch::{
    Compression, Config, Estimates, Platform, Policy, Simulator, swf::trace_jobs,
};
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

#[path = "../benches/common/synthetic.rs"]
mod common;

/// `synthetic:N:LOAD` → (N, LOAD).
fn synthetic_spec(trace: &str) -> Option<(usize, f64)> {
    let rest = trace.strip_prefix("synthetic:")?;
    let (n, load) = rest.split_once(':')?;
    Some((n.parse().ok()?, load.parse().ok()?))
}

/// CPU time of this thread in seconds (nanosecond resolution on Linux), or wall time elsewhere.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(
            || {
                use std::sync::OnceLock;
                static T0: OnceLock<std::time::Instant> = OnceLock::new();
                T0.get_or_init(std::time::Instant::now)
                    .elapsed()
                    .as_secs_f64()
            },
            |ns| ns * 1e-9,
        )
}

/// A numeric environment variable, if set.
fn env_num(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let trace = args.first().map_or("HPC2N", String::as_str);
    let policy = Policy::parse(args.get(1).map_or("easy", String::as_str)).expect("policy");
    let estimates = match args.get(2).map_or("requested", String::as_str) {
        "actual" => Estimates::Actual,
        _ => Estimates::Requested,
    };
    let compression = match args.get(3).map_or("replay", String::as_str) {
        "in-place" => Compression::InPlace,
        _ => Compression::Replay,
    };
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..reps {
        let c0 = cpu_seconds();
        let (procs, jobs) = match synthetic_spec(trace) {
            Some((n, load)) => (256, common::synthetic(n, 256, load)),
            None => {
                let path = trace_path(&data_dir(None), trace);
                let limit = env_num("LIMIT");
                let log = load_swf(Path::new(&path), SwfLoadOptions { limit }).expect("log");
                let procs = env_num("PROCS").map_or_else(
                    || log.header.max_procs.expect("MaxProcs") as u32,
                    |p| p as u32,
                );
                (procs, trace_jobs(&log, procs).jobs)
            }
        };
        let n = jobs.len();
        let c1 = cpu_seconds();
        let config = Config::new(policy)
            .estimates(estimates)
            .compression(compression)
            .check_invariants(false);
        let mut sim =
            Simulator::with_jobs(Platform::cluster(procs).unwrap(), config, jobs).unwrap();
        let mut sizes = (0usize, 0usize);
        let every = env_num("EVERY").filter(|&v| v > 0);
        if env_num("SIZES").is_some_and(|v| v > 0) || every.is_some() {
            let mut step = 0usize;
            while sim.step() {
                sizes.0 = sizes.0.max(sim.waiting());
                sizes.1 = sizes.1.max(sim.profile(0).len());
                step += 1;
                if every.is_some_and(|e| step.is_multiple_of(e)) {
                    println!(
                        "event {step}: t {} cpu {:.3} s queue {} profile {} {:?}",
                        sim.now(),
                        cpu_seconds() - c1,
                        sim.waiting(),
                        sim.profile(0).len(),
                        sim.counters()
                    );
                }
            }
        } else {
            sim.run();
        }
        let c2 = cpu_seconds();
        let done = sim.outcomes().count();
        assert_eq!(done, n);
        let (read, core) = (c1 - c0, c2 - c1);
        best = (best.0.min(core), best.1.min(read + core));
        let ct = sim.counters();
        println!(
            "{trace} {} {estimates:?} {compression:?}: {n} jobs; read {read:.3} s, simulate {core:.3} s CPU -> core {:.0} jobs/s, end to end {:.0} jobs/s; {:?}",
            policy.name(),
            n as f64 / core,
            n as f64 / (read + core),
            ct
        );
        if sizes.0 > 0 {
            println!(
                "largest queue {}, largest profile {} change points",
                sizes.0, sizes.1
            );
        }
    }
    println!("best: core {:.3} s, end to end {:.3} s", best.0, best.1);
}
