//! Times every algorithm at one τ for a given number of jobs (scale planning).
//!
//! `cargo run --release -p gridsched-schedule-based --example size_probe -- JOBS TAU`
use gridsched_batch::Platform;
use gridsched_schedule_based::workload::GridWorkload;
use gridsched_schedule_based::{Algorithm, Config, TabuSetting, run};
use gridsched_sim::StreamKey;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let jobs: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(600);
    let tau: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let w = GridWorkload {
        jobs,
        ..GridWorkload::default()
    };
    let key = StreamKey::new(2008, "probe").replication(0);
    let platform = Platform::grid(w.machine_set(&key), w.reference_speed).expect("grid");
    let stream = w.job_stream(&key, tau);
    for a in [
        Algorithm::Fcfs,
        Algorithm::Easy,
        Algorithm::Flexible,
        Algorithm::EgEdf,
        Algorithm::EgEdfTabu(TabuSetting::PAPER),
        Algorithm::ReComp,
    ] {
        let mut rng = key.clone().stream("m").rng();
        let r = run(&platform, stream.clone(), a, &Config::default(), &mut rng).expect("runs");
        println!(
            "{:<10} {:>8.3} s  delayed {:>4} usage {:.1}",
            a.name(),
            r.cpu_seconds,
            r.metrics.delayed,
            r.metrics.weighted_usage_pct
        );
    }
}
