//! One provisioning sample on a real log, timed: `cargo run --release -p
//! gridsched-provisioning --example probe -- CTC 430 22 [day] [cybershake]`.
use std::time::Instant;

use gridsched_batch::{Config, Platform, Policy, Simulator, swf::trace_jobs};
use gridsched_provisioning::{App, MogaConfig, besteffort, provision};
use gridsched_sim::StreamKey;
use gridsched_workflow::{CyberShake, SyntheticWorkflow, TransferModel};
use gridsched_workload::swf::{SwfLoadOptions, load_swf, trace_path};
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let trace = args.get(1).map_or("CTC", String::as_str);
    let cap: u32 = args.get(2).map_or(430, |s| s.parse().unwrap());
    let pm: u32 = args.get(3).map_or(22, |s| s.parse().unwrap());
    let day: i64 = args.get(4).map_or(30, |s| s.parse().unwrap());
    let cyber = args.get(5).is_some_and(|s| s == "cybershake");
    let t0 = Instant::now();
    let path = trace_path(&gridsched_sim::data_dir(None), trace);
    let log = load_swf(&path, SwfLoadOptions::default()).unwrap();
    let tj = trace_jobs(&log, cap);
    println!("{} jobs loaded in {:?}", tj.jobs.len(), t0.elapsed());
    let mut sim = Simulator::with_jobs(
        Platform::cluster(cap).unwrap(),
        Config::new(Policy::Conservative).check_invariants(false),
        tj.jobs,
    )
    .unwrap();
    let t = Instant::now();
    sim.run_until(day * 86400);
    println!(
        "simulated to day {day} in {:?}; {} running, {} queued",
        t.elapsed(),
        sim.running_count(),
        sim.queued().len()
    );
    let wf = if cyber {
        CyberShake::default().build().unwrap()
    } else {
        SyntheticWorkflow {
            procs_mean: pm,
            max_procs: Some(cap),
            ..SyntheticWorkflow::default()
        }
        .generate(&StreamKey::new(1, "probe"))
        .unwrap()
    };
    let app = App::from_workflow(&wf, &TransferModel::none());
    println!(
        "workflow: {} tasks, AC_BE {:.1} SU",
        app.len(),
        app.best_effort_cost()
    );
    let sites = [sim.clone()];
    let t = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let p = provision(&app, &sites, &MogaConfig::default(), &mut rng).unwrap();
    let el = t.elapsed();
    println!(
        "MOGA: {} slots, {} evaluations ({} feasible) in {:?} ({:.0} evals/s), archive {}",
        p.candidates.len(),
        p.moga.evaluations,
        p.moga.feasible,
        el,
        p.moga.evaluations as f64 / el.as_secs_f64(),
        p.moga.archive.len()
    );
    for m in &p.moga.archive {
        println!(
            "  AC {:8.1} SU  SC {:6.2} h",
            m.eval.ac,
            m.eval.sc.unwrap() as f64 / 3600.0
        );
    }
    for a in [0.0, 0.5, 1.0] {
        let (m, _) = p.plan(&app, a).unwrap();
        println!(
            "alpha {a}: AC {:.1} SC {:.2} h",
            m.eval.ac,
            m.eval.sc.unwrap() as f64 / 3600.0
        );
    }
    let mut be_sites = [sim];
    let t = Instant::now();
    let be = besteffort::run(&app, &mut be_sites).unwrap();
    println!(
        "BE: makespan {:.2} h, AC {:.1} SU ({:?})",
        be.makespan as f64 / 3600.0,
        be.cost,
        t.elapsed()
    );
}
