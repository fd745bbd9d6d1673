//! One replication of the paper's setup (150 machines, 3000 jobs) for every algorithm at the
//! given mean inter-arrival times: metrics, work and CPU time per algorithm.
//!
//! `cargo run --release -p gridsched-schedule-based --example paper_run -- 1 2 5`

use gridsched_batch::Platform;
use gridsched_schedule_based::workload::GridWorkload;
use gridsched_schedule_based::{Algorithm, Config, TabuSetting, run};
use gridsched_sim::StreamKey;

fn main() {
    let taus: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let taus = if taus.is_empty() { vec![1.0] } else { taus };
    let w = GridWorkload::default();
    let key = StreamKey::new(2008, "paper-run").replication(0);
    let machines = w.machine_set(&key);
    let platform = Platform::grid(machines, w.reference_speed).expect("valid grid");
    for tau in taus {
        let jobs = w.job_stream(&key, tau);
        println!(
            "tau = {tau} s, rho = {:.2}",
            w.offered_load(platform.machines(), tau)
        );
        for a in [
            Algorithm::Fcfs,
            Algorithm::Easy,
            Algorithm::Flexible,
            Algorithm::EgEdf,
            Algorithm::EgEdfTabu(TabuSetting::PAPER),
            Algorithm::ReComp,
        ] {
            let mut rng = key.clone().stream("move-job").rng();
            let r = run(&platform, jobs.clone(), a, &Config::default(), &mut rng).expect("runs");
            let m = r.metrics;
            println!(
                "  {:<10} delayed {:>5}  usage {:>5.1}%  makespan {:>8.0} s  slowdown {:>7.2}  work {:>12}  cpu {:>8.3} s ({:.3} ms/job)",
                a.name(),
                m.delayed,
                m.weighted_usage_pct,
                m.makespan as f64 / 1000.0,
                m.slowdown,
                r.work,
                r.cpu_seconds,
                1e3 * r.cpu_seconds / m.jobs as f64
            );
        }
    }
}
