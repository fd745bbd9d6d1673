//! The external-dispatcher hook drives the same engine as the built-in policies: FCFS and EASY
//! written against [`Dispatcher`] give, job for job, the machine, start and end of the
//! built-in FCFS and EASY on random heterogeneous grids (both machine-selection rules, actual
//! and requested run times), so a policy run through the hook sees the same event order,
//! capacity accounting, run-time scaling and reservations ([`Round::hold`]).
//!
//! The built-in policies are dispatchers themselves ([`policies`]): handed to `run_with`
//! (alone or wrapped in a dispatcher of the user's) they give their policy's schedule and
//! work counts, and the facilities they use ([`Round::reserve`], [`Round::cancel`],
//! [`Round::early_completions`], [`Round::fits_now`]) behave as documented.

use std::collections::VecDeque;

use gridsched_batch::policies::{Builtin, Easy};
use gridsched_batch::{
    Compression, Config, Dispatcher, Estimates, Job, Machine, MachineSelect, Outcome, Platform,
    Policy, Round, SimError, Simulator, audit,
};
use proptest::prelude::*;

/// FCFS through the hook: the queue head starts on the fastest (or first) machine with enough
/// free processors now; nothing overtakes a blocked head.
struct ExternalFcfs {
    queue: VecDeque<u32>,
    select: MachineSelect,
}

impl Dispatcher for ExternalFcfs {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        self.queue.extend(r.arrived().iter().copied());
        let mut order: Vec<usize> = (0..r.platform().len()).collect();
        if self.select == MachineSelect::Fastest {
            order.sort_by_key(|&m| (std::cmp::Reverse(r.platform().machines()[m].speed), m));
        }
        while let Some(&head) = self.queue.front() {
            let procs = i64::from(r.job(head).procs);
            let Some(&m) = order.iter().find(|&&m| {
                r.free_now(m) >= procs && r.platform().machines()[m].cpus >= procs as u32
            }) else {
                break;
            };
            r.start(head, m)?;
            self.queue.pop_front();
        }
        Ok(())
    }
}

/// EASY through the hook: start heads while they fit, hold the blocked head at its earliest
/// start (machine with the earliest start, then end, then index), then start every other
/// waiting job, in queue order, that fits now around that hold.
struct ExternalEasy {
    select: MachineSelect,
}

impl ExternalEasy {
    fn order(&self, r: &Round<'_>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..r.platform().len()).collect();
        if self.select == MachineSelect::Fastest {
            order.sort_by_key(|&m| (std::cmp::Reverse(r.platform().machines()[m].speed), m));
        }
        order
    }

    fn fits_now(r: &Round<'_>, order: &[usize], j: u32) -> Option<usize> {
        let procs = r.job(j).procs;
        order.iter().copied().find(|&m| {
            r.platform().machines()[m].cpus >= procs
                && r.profile(m).fits(r.now(), r.planned_run_time(j, m), procs)
        })
    }
}

impl Dispatcher for ExternalEasy {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let order = self.order(r);
        let queue = r.waiting().to_vec();
        let mut head = 0;
        while let Some(&h) = queue.get(head) {
            let Some(m) = Self::fits_now(r, &order, h) else {
                break;
            };
            r.start(h, m)?;
            head += 1;
        }
        let Some(&h) = queue.get(head) else {
            return Ok(());
        };
        let procs = r.job(h).procs;
        let (start, _, m) = (0..r.platform().len())
            .filter(|&m| r.platform().machines()[m].cpus >= procs)
            .map(|m| {
                let d = r.planned_run_time(h, m);
                let s = r.profile(m).earliest_fit(r.now(), d, procs).unwrap();
                (s, s + d, m)
            })
            .min()
            .unwrap();
        r.hold(h, m, start)?;
        for &j in &queue[head + 1..] {
            if let Some(m) = Self::fits_now(r, &order, j) {
                r.start(j, m)?;
            }
        }
        Ok(())
    }
}

fn outcomes(sim: &Simulator) -> Vec<Outcome> {
    sim.outcomes().collect()
}

fn workload() -> impl Strategy<Value = (Vec<Machine>, Vec<Job>)> {
    let machines = prop::collection::vec((1u32..=8, 1u32..=4), 1..5).prop_map(|v| {
        v.into_iter()
            .map(|(cpus, speed)| Machine { cpus, speed })
            .collect::<Vec<_>>()
    });
    machines.prop_flat_map(|ms: Vec<Machine>| {
        let widest = ms.iter().map(|m| m.cpus).max().unwrap_or(1);
        let jobs =
            prop::collection::vec((0i64..40, 1u32..=widest, 1i64..30), 1..40).prop_map(|v| {
                let mut t = 0;
                v.into_iter()
                    .enumerate()
                    .map(|(i, (gap, procs, run))| {
                        t += gap;
                        Job::new(i as u64 + 1, t, procs, run)
                    })
                    .collect::<Vec<_>>()
            });
        (Just(ms), jobs)
    })
}

proptest! {
    #[test]
    fn external_fcfs_equals_builtin_fcfs((machines, jobs) in workload(), first_fit in any::<bool>()) {
        let select = if first_fit { MachineSelect::FirstFit } else { MachineSelect::Fastest };
        let platform = Platform::grid(machines, 2).unwrap();
        let mut builtin = Simulator::with_jobs(
            platform.clone(),
            Config::new(Policy::Fcfs).machine_select(select),
            jobs.clone(),
        ).unwrap();
        builtin.run();
        let mut external = Simulator::with_jobs(
            platform,
            Config::new(Policy::External).machine_select(select),
            jobs,
        ).unwrap();
        external
            .run_with(&mut ExternalFcfs { queue: VecDeque::new(), select })
            .unwrap();
        prop_assert!(external.is_finished());
        prop_assert_eq!(external.waiting(), 0);
        prop_assert_eq!(outcomes(&external), outcomes(&builtin));
        prop_assert!(audit(&outcomes(&external), external.platform(), Estimates::Actual).is_ok());
    }
}

proptest! {
    #[test]
    fn external_easy_equals_builtin_easy(
        (machines, jobs) in workload(),
        first_fit in any::<bool>(),
        requested in prop::collection::vec(1i64..40, 40),
        use_requested in any::<bool>(),
    ) {
        let select = if first_fit { MachineSelect::FirstFit } else { MachineSelect::Fastest };
        let estimates = if use_requested { Estimates::Requested } else { Estimates::Actual };
        let jobs: Vec<Job> = jobs.into_iter().zip(requested).map(|(j, q)| j.requested(q)).collect();
        let platform = Platform::grid(machines, 2).unwrap();
        let config = |p| Config::new(p).machine_select(select).estimates(estimates).check_invariants(true);
        let mut builtin = Simulator::with_jobs(platform.clone(), config(Policy::Easy), jobs.clone()).unwrap();
        builtin.run();
        let mut external = Simulator::with_jobs(platform, config(Policy::External), jobs).unwrap();
        external.run_with(&mut ExternalEasy { select }).unwrap();
        prop_assert!(external.is_finished());
        prop_assert_eq!(outcomes(&external), outcomes(&builtin));
        prop_assert!(audit(&outcomes(&external), external.platform(), estimates).is_ok());
    }

    /// `begin_round` / `round` (the door of a dispatcher living outside Rust, the Python
    /// package's) drive the engine exactly as `run_with` does: the built-in EASY handed to
    /// each, round by round, gives the same schedule, with holds released between rounds.
    #[test]
    fn stepped_rounds_equal_run_with(
        (machines, jobs) in workload(),
        requested in prop::collection::vec(1i64..40, 40),
    ) {
        let jobs: Vec<Job> = jobs.into_iter().zip(requested).map(|(j, q)| j.requested(q)).collect();
        let platform = Platform::grid(machines, 2).unwrap();
        let config = Config::new(Policy::External).estimates(Estimates::Requested);
        let mut whole = Simulator::with_jobs(platform.clone(), config, jobs.clone()).unwrap();
        whole.run_with(&mut Easy::new()).unwrap();
        let mut stepped = Simulator::with_jobs(platform, config, jobs).unwrap();
        prop_assert!(stepped.current_round().is_none());
        let mut easy = Easy::new();
        while stepped.begin_round().unwrap() {
            easy.round(&mut stepped.current_round().unwrap()).unwrap();
        }
        prop_assert!(stepped.current_round().is_none());
        prop_assert!(stepped.is_finished());
        prop_assert_eq!(outcomes(&stepped), outcomes(&whole));
    }
}

/// `begin_round` needs an external policy, as `run_with` does.
#[test]
fn begin_round_needs_an_external_policy() {
    let platform = Platform::cluster(4).unwrap();
    let jobs = vec![Job::new(1, 0, 2, 5)];
    let mut sim = Simulator::with_jobs(platform, Config::new(Policy::Easy), jobs).unwrap();
    assert!(sim.begin_round().is_err());
}

/// Holds: refused for a job that is not waiting, twice for the same job, on a machine too
/// small, in the past or where the block does not fit; a later start must respect a hold; a
/// refused start of the held job keeps its hold; holds end with the round.
#[test]
fn holds_are_checked_and_respected() {
    struct Probe;
    impl Dispatcher for Probe {
        fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
            if r.now() != 0 {
                return Ok(());
            }
            // Machine 0 has 4 processors; jobs 0 (4 procs, 10 s), 1 (2 procs, 20 s), 2 (9 procs).
            assert!(
                r.hold(2, 0, 0)
                    .unwrap_err()
                    .to_string()
                    .contains("cannot be held")
            );
            assert!(r.hold(0, 0, -1).is_err(), "in the past");
            r.hold(0, 0, 5)?;
            assert!(
                r.hold(0, 0, 5)
                    .unwrap_err()
                    .to_string()
                    .contains("already held")
            );
            assert_eq!(r.profile(0).free_at(5), 0);
            // Job 1 would run over [0, 20) and overlap the hold on [5, 15): refused.
            assert!(
                r.start(1, 0)
                    .unwrap_err()
                    .to_string()
                    .contains("does not fit")
            );
            // The held job itself starts now (its hold is released first).
            r.start(0, 0)?;
            assert_eq!(r.profile(0).free_at(12), 4);
            Ok(())
        }
    }
    let platform = Platform::grid(
        vec![Machine { cpus: 4, speed: 1 }, Machine { cpus: 9, speed: 1 }],
        1,
    )
    .unwrap();
    let jobs = vec![
        Job::new(1, 0, 4, 10),
        Job::new(2, 0, 2, 20),
        Job::new(3, 0, 9, 5),
    ];
    let mut sim = Simulator::with_jobs(platform, Config::new(Policy::External), jobs).unwrap();
    sim.run_with(&mut Probe).unwrap();
    // Jobs 1 and 2 were never started; job 0 ran [0, 10); no hold outlived its round.
    assert_eq!(sim.waiting(), 2);
    assert_eq!(sim.profile(0).free_at(20), 4);
    assert_eq!(sim.profile(0).free_at(0), 4);
}

/// A dispatcher that starts nothing leaves every job waiting; one that starts a job twice, on
/// a machine too small or where it does not fit, is refused with an error and changes nothing.
#[test]
fn bad_starts_are_refused() {
    struct Greedy;
    impl Dispatcher for Greedy {
        fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
            let arrived = r.arrived().to_vec();
            for &j in &arrived {
                r.start(j, 0)?;
            }
            Ok(())
        }
    }
    let platform = Platform::grid(vec![Machine { cpus: 2, speed: 1 }], 1).unwrap();
    // Two 2-processor jobs at once: the second does not fit.
    let jobs = vec![Job::new(1, 0, 2, 10), Job::new(2, 0, 2, 10)];
    let mut sim =
        Simulator::with_jobs(platform.clone(), Config::new(Policy::External), jobs).unwrap();
    let err = sim.run_with(&mut Greedy).unwrap_err().to_string();
    assert!(
        err.contains("job 2") && err.contains("does not fit"),
        "{err}"
    );
    // Not the external policy.
    let mut sim =
        Simulator::with_jobs(platform.clone(), Config::new(Policy::Fcfs), vec![]).unwrap();
    assert!(sim.run_with(&mut Greedy).is_err());
    // Nothing started: the jobs wait forever and the run ends.
    struct Idle;
    impl Dispatcher for Idle {
        fn round(&mut self, _: &mut Round<'_>) -> Result<(), SimError> {
            Ok(())
        }
    }
    let mut sim = Simulator::with_jobs(
        platform,
        Config::new(Policy::External),
        vec![Job::new(1, 5, 1, 10)],
    )
    .unwrap();
    sim.run_with(&mut Idle).unwrap();
    assert_eq!(sim.waiting(), 1);
    assert_eq!(sim.queued(), vec![0]);
}

/// `wake_at` calls the dispatcher at a time where nothing else happens.
#[test]
fn wake_at_schedules_a_round() {
    struct Later {
        calls: Vec<i64>,
    }
    impl Dispatcher for Later {
        fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
            self.calls.push(r.now());
            if r.now() == 0 {
                r.wake_at(7);
            } else if r.now() == 7 {
                r.start(0, 0)?;
            }
            Ok(())
        }
    }
    let platform = Platform::grid(vec![Machine { cpus: 1, speed: 1 }], 1).unwrap();
    let mut sim = Simulator::with_jobs(
        platform,
        Config::new(Policy::External),
        vec![Job::new(1, 0, 1, 3)],
    )
    .unwrap();
    let mut d = Later { calls: Vec::new() };
    sim.run_with(&mut d).unwrap();
    assert_eq!(d.calls, [0, 7, 10]);
    let o: Vec<_> = sim.outcomes().collect();
    assert_eq!((o[0].start, o[0].end), (7, 10));
}

proptest! {
    /// `Policy::X` is nothing but its built-in dispatcher: the same dispatcher driven through
    /// `run_with` gives the same schedule, rounds and work counts, for every policy, both
    /// machine-selection rules, both estimates and both compression rules.
    #[test]
    fn builtin_dispatchers_equal_their_policies(
        (machines, jobs) in workload(),
        policy in prop::sample::select(vec![Policy::Fcfs, Policy::Easy, Policy::Flexible, Policy::Conservative]),
        first_fit in any::<bool>(),
        requested in prop::collection::vec(1i64..40, 40),
        use_requested in any::<bool>(),
        in_place in any::<bool>(),
    ) {
        let select = if first_fit { MachineSelect::FirstFit } else { MachineSelect::Fastest };
        let estimates = if use_requested { Estimates::Requested } else { Estimates::Actual };
        let compression = if in_place { Compression::InPlace } else { Compression::Replay };
        let jobs: Vec<Job> = jobs.into_iter().zip(requested).map(|(j, q)| j.requested(q)).collect();
        let platform = Platform::grid(machines, 2).unwrap();
        let config = |p| {
            Config::new(p)
                .machine_select(select)
                .estimates(estimates)
                .compression(compression)
                .check_invariants(true)
        };
        let mut builtin = Simulator::with_jobs(platform.clone(), config(policy), jobs.clone()).unwrap();
        builtin.run();
        let mut d = Builtin::for_config(&config(policy)).unwrap();
        let mut external = Simulator::with_jobs(platform, config(Policy::External), jobs).unwrap();
        external.run_with(&mut d).unwrap();
        prop_assert!(external.is_finished());
        prop_assert_eq!(outcomes(&external), outcomes(&builtin));
        let (b, e, p) = (builtin.counters(), external.counters(), d.counters());
        prop_assert_eq!((b.events, b.rounds), (e.events, e.rounds));
        prop_assert_eq!(
            (b.backfill_checks, b.compressions, b.replanned, b.moved),
            (p.backfill_checks, p.compressions, p.replanned, p.moved)
        );
    }
}

/// A dispatcher of the user's can own a built-in one and delegate to it: here EASY plus an
/// audit after every round (no machine over capacity, every running job inside its profile)
/// gives EASY's schedule. The wrapped policy must see every round, since it learns of
/// arrivals from the round's notifications.
#[test]
fn a_user_dispatcher_can_wrap_builtin_easy() {
    struct Audited {
        inner: Easy,
        rounds: u64,
    }
    impl Dispatcher for Audited {
        fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
            self.rounds += 1;
            self.inner.round(r)?;
            for m in 0..r.platform().len() {
                assert!(
                    r.free_now(m) >= 0,
                    "machine {m} over capacity at {}",
                    r.now()
                );
            }
            Ok(())
        }
    }
    let platform = Platform::grid(
        vec![Machine { cpus: 4, speed: 2 }, Machine { cpus: 6, speed: 1 }],
        1,
    )
    .unwrap();
    let jobs: Vec<Job> = (0..60)
        .map(|i| {
            Job::new(
                i + 1,
                (i as i64 * 7) % 50,
                1 + (i as u32 * 5) % 6,
                5 + (i as i64 * 13) % 40,
            )
        })
        .map(|j| j.requested(j.run + 9))
        .collect();
    let config = |p| {
        Config::new(p)
            .estimates(Estimates::Requested)
            .check_invariants(true)
    };
    let mut builtin =
        Simulator::with_jobs(platform.clone(), config(Policy::Easy), jobs.clone()).unwrap();
    builtin.run();
    let mut d = Audited {
        inner: Easy::new(),
        rounds: 0,
    };
    let mut sim = Simulator::with_jobs(platform, config(Policy::External), jobs).unwrap();
    sim.run_with(&mut d).unwrap();
    assert_eq!(outcomes(&sim), outcomes(&builtin));
    assert_eq!(d.rounds, sim.counters().rounds);
    assert_eq!(
        d.inner.counters().backfill_checks,
        builtin.counters().backfill_checks
    );
}

/// Reservations outlive their round, show in the profile (not the base profile), are refused twice or where they do not fit, can be cancelled one by one or
/// all at once, and a start at the reserved place takes the reserved block; early
/// completions are reported with the hole they leave.
#[test]
fn reservations_persist_until_started_or_cancelled() {
    #[derive(Default)]
    struct Probe {
        early: Vec<(i64, u32, i64)>,
    }
    impl Dispatcher for Probe {
        fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
            for e in r.early_completions() {
                self.early.push((r.now(), e.index, e.planned_end));
            }
            match r.now() {
                0 => {
                    // One machine of 4: job 0 (4 procs) runs [0, 10) planned to 20.
                    r.start(0, 0)?;
                    assert!(!r.fits_now(1, 0));
                    assert!(r.is_monotone(0));
                    r.reserve(1, 0, 20)?;
                    assert!(!r.is_monotone(0));
                    assert!(
                        r.reserve(1, 0, 30)
                            .unwrap_err()
                            .to_string()
                            .contains("already")
                    );
                    assert!(
                        r.reserve(2, 0, 15)
                            .unwrap_err()
                            .to_string()
                            .contains("not fit")
                    );
                    r.reserve(2, 0, 30)?;
                    assert_eq!(r.profile(0).free_at(22), 2);
                    assert_eq!(r.base_profile(0).free_at(22), 4);
                    assert_eq!(r.cancel(2)?.start, 30);
                    assert!(r.reservation(2).is_none());
                    r.reserve(2, 0, 30)?;
                    r.wake_at(20);
                }
                10 => {
                    // Job 0 ended early: the hole [10, 20) is reported; re-plan everything.
                    let one = r.reservation(1).unwrap();
                    assert_eq!((one.start, one.first_start), (20, 20));
                    r.cancel_all();
                    assert!(r.reservation(1).is_none() && r.reservation(2).is_none());
                    assert_eq!(r.profile(0).free_at(25), 4);
                    r.reserve(1, 0, 10)?;
                    r.reserve(2, 0, 10)?;
                    assert_eq!(r.reservation(1).unwrap().first_start, 20);
                    r.start(1, 0)?;
                    r.start(2, 0)?;
                }
                _ => {}
            }
            Ok(())
        }
    }
    let platform = Platform::grid(vec![Machine { cpus: 4, speed: 1 }], 1).unwrap();
    let jobs = vec![
        Job::new(1, 0, 4, 10).requested(20),
        Job::new(2, 0, 2, 5).requested(10),
        Job::new(3, 0, 2, 5).requested(10),
    ];
    let config = Config::new(Policy::External).estimates(Estimates::Requested);
    let mut sim = Simulator::with_jobs(platform, config, jobs).unwrap();
    let mut d = Probe::default();
    sim.run_with(&mut d).unwrap();
    assert_eq!(d.early, [(10, 0, 20), (15, 1, 20), (15, 2, 20)]);
    let o = outcomes(&sim);
    assert_eq!((o[1].start, o[2].start), (10, 10));
}
