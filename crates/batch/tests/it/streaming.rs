//! A trace that arrives in pieces (`Simulator::extend_trace` + `run_before`, as `gridsched
//! replay` feeds the simulator while the log is still being read) gives the run that the whole
//! trace given at once gives: the same outcomes and the same counters, under every policy,
//! both estimates and both compressions, on one machine and on a heterogeneous grid.

use gridsched_batch::{
    Compression, Config, Estimates, Job, Machine, Platform, Policy, SimError, Simulator,
};
use proptest::prelude::*;

/// Sorted traces as a log gives them: submit times in bursts (equal times common), rising
/// ids, run times from 1 to 40 and requested times from 50 % to 200 % of them.
fn trace() -> impl Strategy<Value = (Vec<Machine>, Vec<Job>)> {
    let machines = prop_oneof![
        (1u32..=12).prop_map(|cpus| vec![Machine { cpus, speed: 1 }]),
        prop::collection::vec((1u32..=8, 1u32..=3), 2..4).prop_map(|v| {
            v.into_iter()
                .map(|(cpus, speed)| Machine { cpus, speed })
                .collect()
        }),
    ];
    machines.prop_flat_map(|machines| {
        let widest = machines.iter().map(|m| m.cpus).max().unwrap();
        let job = (0i64..6, 1..=widest, 1i64..40, 0i64..=30, prop::bool::ANY);
        (
            Just(machines),
            prop::collection::vec(job, 1..60).prop_map(|v| {
                let mut submit = 0;
                v.into_iter()
                    .enumerate()
                    .map(|(k, (gap, procs, run, r, estimated))| {
                        submit += gap;
                        let j = Job::new(3 * k as u64 + 1, submit, procs, run);
                        if estimated {
                            j.requested((run * (5 + r) / 10).max(1))
                        } else {
                            j
                        }
                    })
                    .collect()
            }),
        )
    })
}

fn config() -> impl Strategy<Value = Config> {
    (
        prop::sample::select(vec![
            Policy::Fcfs,
            Policy::Easy,
            Policy::Conservative,
            Policy::Flexible,
        ]),
        prop::bool::ANY,
        prop::bool::ANY,
    )
        .prop_map(|(policy, requested, in_place)| {
            Config::new(policy)
                .estimates(if requested {
                    Estimates::Requested
                } else {
                    Estimates::Actual
                })
                .compression(if in_place {
                    Compression::InPlace
                } else {
                    Compression::Replay
                })
        })
}

/// Outcomes and counters of a finished run.
fn result(sim: &Simulator) -> (Vec<gridsched_batch::Outcome>, gridsched_batch::Counters) {
    (sim.outcomes().collect(), sim.counters())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn extending_the_trace_is_replaying_it(
        (machines, jobs) in trace(),
        config in config(),
        cuts in prop::collection::vec(0usize..60, 0..6),
    ) {
        let platform = Platform::grid(machines, 1).unwrap();
        let mut whole = Simulator::with_jobs(platform.clone(), config, jobs.clone()).unwrap();
        whole.run();

        // The pieces: the trace cut at the given places (an empty piece included).
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(jobs.len())).collect();
        cuts.push(1);
        cuts.push(jobs.len());
        cuts.sort_unstable();
        let mut sim = Simulator::with_jobs(platform, config, jobs[..1].to_vec()).unwrap();
        sim.run_before(jobs[0].submit);
        let mut from = 1;
        for &to in &cuts {
            if to < from {
                continue;
            }
            sim.extend_trace(&jobs[from..to]).unwrap();
            // Everything before the last job known so far may be simulated.
            sim.run_before(jobs[to - 1].submit);
            from = to;
        }
        sim.run();
        prop_assert_eq!(result(&sim), result(&whole));
    }
}

#[test]
fn the_trace_must_stay_in_order_and_in_the_future() {
    let platform = Platform::cluster(4).unwrap();
    let config = Config::new(Policy::Easy);
    let mut sim = Simulator::with_jobs(platform, config, vec![Job::new(5, 10, 2, 100)]).unwrap();
    // Before the trace's last job: refused, nothing appended.
    let err = sim
        .extend_trace(&[Job::new(6, 12, 1, 5), Job::new(4, 10, 1, 5)])
        .unwrap_err();
    assert!(matches!(err, SimError::Job { id: 4, .. }), "{err}");
    assert_eq!(sim.job_count(), 1);
    sim.extend_trace(&[Job::new(6, 10, 1, 5)]).unwrap();
    sim.run_before(10);
    assert_eq!(sim.next_event(), Some(10));
    sim.run_before(11);
    // Time 10 was simulated: a job submitted then would have arrived in that step.
    let err = sim.extend_trace(&[Job::new(7, 10, 1, 5)]).unwrap_err();
    assert!(err.to_string().contains("<= now 10"), "{err}");
    sim.extend_trace(&[Job::new(7, 11, 1, 5)]).unwrap();
    // An invalid job is refused as `with_jobs` refuses it.
    let err = sim.extend_trace(&[Job::new(8, 12, 5, 5)]).unwrap_err();
    assert!(err.to_string().contains("needs 5 processors"), "{err}");
    // No growing once jobs were submitted.
    sim.submit(Job::new(100, 20, 1, 1)).unwrap();
    assert!(sim.extend_trace(&[Job::new(9, 30, 1, 5)]).is_err());
    sim.run();
    assert!(sim.is_finished());
}
