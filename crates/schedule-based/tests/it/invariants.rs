//! The schedule-based algorithms' invariants (spec §6, klusacek-aux-invariants), against
//! brute-force oracles where there is one.

use gridsched_batch::{Estimates, Job, Machine, Platform, audit};
use gridsched_schedule_based::machine::{
    MachineSchedule, PlannedJob, Scratch, Work, compact, earliest_gap_from_scratch,
};
use gridsched_schedule_based::workload::GridWorkload;
use gridsched_schedule_based::{
    Algorithm, Config, GridSchedule, JobInfo, Objective, TabuSetting, accept, run,
};
use gridsched_sim::StreamKey;
use proptest::prelude::*;

type Time = i64;

fn planned(index: u32, procs: u32, duration: Time, deadline: Option<Time>) -> PlannedJob {
    PlannedJob {
        index,
        procs,
        duration,
        deadline,
        release: 0,
        id: u64::from(index),
        start: 0,
        end: 0,
    }
}

/// The machine's busy-until times, one per CPU (in some order: CPU identity is not kept).
fn busy_per_cpu(m: &MachineSchedule) -> Vec<Time> {
    m.busy()
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.until, c.cpus as usize))
        .collect()
}

/// Brute force: CPUs in use at `t` by the running CPUs and the planned jobs.
fn used_at(m: &MachineSchedule, t: Time) -> u32 {
    let running = busy_per_cpu(m).iter().filter(|&&b| b > t).count() as u32;
    let planned: u32 = m
        .planned()
        .iter()
        .filter(|j| j.start <= t && t < j.end)
        .map(|j| j.procs)
        .sum();
    running + planned
}

/// Brute force: the earliest `t ≥ now` among now and every job end where `procs` CPUs are
/// free over `[t, t + d)`, checked at every instant where the profile changes.
fn brute_earliest(m: &MachineSchedule, procs: u32, d: Time, now: Time) -> Time {
    let mut times: Vec<Time> = vec![now];
    times.extend(busy_per_cpu(m).into_iter().filter(|&b| b > now));
    times.extend(m.planned().iter().flat_map(|j| [j.start, j.end]));
    times.sort_unstable();
    times.dedup();
    for &t in times.iter().filter(|&&t| t >= now) {
        let fits = std::iter::once(t)
            .chain(times.iter().copied().filter(|&x| x > t && x < t + d))
            .all(|x| used_at(m, x) + procs <= m.cpus());
        if fits {
            return t;
        }
    }
    unreachable!("the end of the schedule always fits")
}

fn machine_strategy() -> impl Strategy<Value = (MachineSchedule, u32, Time)> {
    (1u32..=6)
        .prop_flat_map(|cpus| {
            let running = prop::collection::vec(0i64..30, cpus as usize);
            let jobs = prop::collection::vec(
                (
                    1u32..=cpus,
                    1i64..25,
                    prop::option::of(0i64..80),
                    any::<bool>(),
                ),
                0..12,
            );
            (Just(cpus), running, jobs, 1u32..=cpus, 1i64..25)
        })
        .prop_map(|(cpus, running, jobs, procs, d)| {
            let mut s = Scratch::default();
            let mut w = Work::default();
            let mut m = MachineSchedule::new(cpus, 0);
            // Running jobs: start the ones planned at 0 with the given lengths first.
            for (c, &len) in running.iter().enumerate() {
                if len > 0 {
                    m.insert(
                        m.planned().len(),
                        planned(1000 + c as u32, 1, len, None),
                        0,
                        &mut s,
                        &mut w,
                    );
                }
            }
            let mut started = Vec::new();
            m.start_due(0, &mut s, &mut started);
            for (i, (p, dur, dl, edf)) in jobs.into_iter().enumerate() {
                let pos = if edf {
                    m.edf_position(dl)
                } else {
                    m.planned().len()
                };
                m.insert(pos, planned(i as u32, p, dur, dl), 0, &mut s, &mut w);
            }
            (m, procs, d)
        })
}

/// The literal compaction of `list` at `now` on `m`'s CPUs (the oracle of the checkpoints):
/// the compacted list and its aggregates.
fn literal(
    m: &MachineSchedule,
    list: &[PlannedJob],
    now: Time,
) -> (
    Vec<PlannedJob>,
    gridsched_schedule_based::machine::Aggregates,
) {
    let mut list = list.to_vec();
    // The literal compaction reads the latest end of a job that ran here from the CPUs'
    // times, which the classes fold to a start when the CPUs are idle: idle CPUs get times
    // not after it, and one of them carries it when it is past.
    let max_end = m.busy_max();
    let mut busy: Vec<Time> = busy_per_cpu(m)
        .into_iter()
        .map(|t| if t <= now { t.min(max_end) } else { t })
        .collect();
    if max_end <= now
        && let Some(b) = busy.first_mut()
    {
        *b = max_end;
    }
    let agg = compact(
        &busy,
        &mut list,
        now,
        &mut Scratch::default(),
        &mut Work::default(),
    );
    (list, agg)
}

/// Every cache of `m` against a from-scratch computation at `now`: the checkpoints and the
/// profile (`check_caches`), and the list and aggregates against the literal compaction.
fn check_machine(m: &MachineSchedule, now: Time) -> Result<(), TestCaseError> {
    m.check_caches(now).map_err(TestCaseError::fail)?;
    let (list, agg) = literal(m, m.planned(), now);
    prop_assert_eq!(&list[..], m.planned(), "the list is compacted");
    prop_assert_eq!(agg, m.aggregates());
    Ok(())
}

/// One operation of [`checkpoints_and_profiles_match_the_from_scratch_oracles`].
#[derive(Debug, Clone)]
enum Op {
    /// Evaluate the EDF-like candidate of a job at a position (as a fraction of the list).
    Candidate(u32, Time, Option<Time>, usize),
    /// Ask for the earliest gap of a job (twice: the second from the kept answer).
    Gap(u32, Time),
    /// Insert a job at its earliest gap, at its EDF position or at a position.
    Insert(u32, Time, Option<Time>, u8, usize),
    /// Remove the job at a position, in place or from a copy (Tabu search's spare).
    Remove(usize, bool),
    /// Time moves to the next planned start, or by a step, and the due jobs start.
    Advance(Time),
    /// Re-computation takes every planned job out.
    Drain,
}

fn op_strategy(cpus: u32) -> impl Strategy<Value = Op> {
    let dl = prop::option::of(0i64..150);
    prop_oneof![
        3 => (1u32..=cpus, 1i64..25, dl.clone(), 0usize..16)
            .prop_map(|(p, d, dl, at)| Op::Candidate(p, d, dl, at)),
        3 => (1u32..=cpus, 1i64..25).prop_map(|(p, d)| Op::Gap(p, d)),
        5 => (1u32..=cpus, 1i64..25, dl, 0u8..3, 0usize..16)
            .prop_map(|(p, d, dl, how, at)| Op::Insert(p, d, dl, how, at)),
        2 => (0usize..16, any::<bool>()).prop_map(|(at, copy)| Op::Remove(at, copy)),
        2 => (0i64..8).prop_map(Op::Advance),
        1 => Just(Op::Drain),
    ]
}

proptest! {
    /// The checkpointed compaction, the profile kept between queries (updated in place,
    /// moved forward in time, indexed per CPU need, with kept answers) and Tabu search's copy
    /// without a job, against their from-scratch oracles: through random insertions,
    /// removals, candidates, queries, drains and starts at advancing times, every candidate's
    /// aggregates and end are the literal compaction's, every gap and its scanned-step count
    /// are the rebuilt profile's, the work counts are the from-scratch algorithms', and every
    /// cache equals its recomputation. Machines of up to 40 CPUs, so that checkpoints with a
    /// stride above one job are exercised too.
    #[test]
    fn checkpoints_and_profiles_match_the_from_scratch_oracles(
        (cpus, ops) in prop_oneof![3 => 1u32..=8, 1 => 30u32..=40]
            .prop_flat_map(|cpus| (Just(cpus), prop::collection::vec(op_strategy(cpus), 1..60))),
    ) {
        let mut s = Scratch::default();
        let mut w = Work::default();
        let mut m = MachineSchedule::new(cpus, 0);
        let mut spare = MachineSchedule::new(1, 0);
        let mut now: Time = 0;
        let mut next = 0u32;
        let mut started = Vec::new();
        let mut drained = Vec::new();
        for op in ops {
            let len = m.planned().len();
            match op {
                Op::Candidate(p, d, dl, at) => {
                    let pos = at % (len + 1);
                    let job = planned(next, p, d, dl);
                    let before = w;
                    let (agg, end) = m.aggregates_with(pos, job, now, &mut s, &mut w);
                    let mut list = m.planned().to_vec();
                    list.insert(pos, job);
                    let (list, oracle) = literal(&m, &list, now);
                    prop_assert_eq!(agg, oracle);
                    prop_assert_eq!(end, list[pos].end);
                    prop_assert_eq!(w.compacted - before.compacted, len as u64 + 1);
                }
                Op::Gap(p, d) => {
                    for _ in 0..2 {
                        let before = w;
                        let g = m.earliest_gap(p, d, now, &mut s, &mut w);
                        let mut ow = Work::default();
                        let oracle = earliest_gap_from_scratch(&m, p, d, now, &mut ow);
                        prop_assert_eq!(g, oracle);
                        prop_assert_eq!(g.start, brute_earliest(&m, p, d, now));
                        prop_assert_eq!(w.scanned - before.scanned, ow.scanned);
                    }
                }
                Op::Insert(p, d, dl, how, at) => {
                    let pos = match how {
                        0 => m.earliest_gap(p, d, now, &mut s, &mut w).position,
                        1 => m.edf_position(dl),
                        _ => at % (len + 1),
                    };
                    let before = w;
                    m.insert(pos, planned(next, p, d, dl), now, &mut s, &mut w);
                    next += 1;
                    prop_assert_eq!(w.compacted - before.compacted, len as u64 + 1);
                }
                Op::Remove(at, copy) if len > 0 => {
                    let pos = at % len;
                    let mut oracle = m.clone();
                    let before = w;
                    let removed = oracle.remove(pos, now, &mut s, &mut w);
                    prop_assert_eq!(w.compacted - before.compacted, len as u64 - 1);
                    if copy {
                        let before = w;
                        let job = m.copy_without(pos, &mut spare, now, &mut s, &mut w);
                        prop_assert_eq!(w.compacted - before.compacted, len as u64 - 1);
                        prop_assert_eq!(job, removed);
                        prop_assert_eq!(&spare, &oracle);
                        check_machine(&spare, now)?;
                        // Tabu search keeps the copy when the move is accepted.
                        std::mem::swap(&mut m, &mut spare);
                    } else {
                        m = oracle;
                    }
                }
                Op::Remove(..) => {}
                Op::Advance(step) => {
                    let target = m.planned().first().map_or(now + step, |j| j.start.min(now + step));
                    now = now.max(target);
                    started.clear();
                    m.start_due(now, &mut s, &mut started);
                }
                Op::Drain => {
                    drained.clear();
                    m.drain_planned(now, &mut drained);
                }
            }
            check_machine(&m, now)?;
        }
    }
}

proptest! {
    /// EG placement: the start the profile search finds is the brute-force earliest fit, the
    /// job gets exactly that start after insertion and compaction, and no other job moves.
    #[test]
    fn eg_placement_never_moves_other_jobs((mut m, procs, d) in machine_strategy()) {
        let mut s = Scratch::default();
        let mut w = Work::default();
        let gap = m.earliest_gap(procs, d, 0, &mut s, &mut w);
        prop_assert_eq!(gap.start, brute_earliest(&m, procs, d, 0));
        let before: Vec<(u32, Time)> = m.planned().iter().map(|j| (j.index, j.start)).collect();
        let mut after = m.clone();
        after.insert(gap.position, planned(999, procs, d, None), 0, &mut s, &mut w);
        let new = after.planned().iter().find(|j| j.index == 999).unwrap();
        prop_assert_eq!(new.start, gap.start);
        for (idx, start) in before {
            let j = after.planned().iter().find(|j| j.index == idx).unwrap();
            prop_assert_eq!(j.start, start, "job {} moved", idx);
        }
        // The aggregates computed without compaction equal the compacted ones.
        prop_assert_eq!(m.aggregates_with_gap(gap, &planned(999, procs, d, None)), after.aggregates());
    }

    /// The profile an earliest-gap query caches is rebuilt whenever the schedule changes or
    /// time moves: through random queries, insertions, removals and starts at advancing
    /// times, every answer is the brute-force earliest fit of the schedule as it is then.
    #[test]
    fn cached_profiles_never_answer_for_an_old_schedule(
        (mut m, _, _) in machine_strategy(),
        ops in prop::collection::vec((0u8..4, 1u32..=6, 1i64..25, 0usize..12), 1..40),
    ) {
        let mut s = Scratch::default();
        let mut w = Work::default();
        let mut now: Time = 0;
        let mut next_index = 1000;
        let mut started = Vec::new();
        for (op, procs, d, at) in ops {
            let procs = procs.min(m.cpus());
            match op {
                // A query (twice: the second answer comes from the cache).
                0 => {
                    for _ in 0..2 {
                        let g = m.earliest_gap(procs, d, now, &mut s, &mut w);
                        prop_assert_eq!(g.start, brute_earliest(&m, procs, d, now));
                    }
                }
                // Insert at the earliest gap or at an arbitrary position.
                1 => {
                    let g = m.earliest_gap(procs, d, now, &mut s, &mut w);
                    let pos = if at % 2 == 0 { g.position } else { at.min(m.planned().len()) };
                    m.insert(pos, planned(next_index, procs, d, None), now, &mut s, &mut w);
                    next_index += 1;
                }
                // Remove a planned job.
                2 if !m.planned().is_empty() => {
                    let pos = at % m.planned().len();
                    m.remove(pos, now, &mut s, &mut w);
                }
                // Time moves to the next planned start and the due jobs start.
                _ => {
                    if let Some(t) = m.planned().first().map(|j| j.start) {
                        now = now.max(t);
                        started.clear();
                        m.start_due(now, &mut s, &mut started);
                    }
                }
            }
            let g = m.earliest_gap(procs, d, now, &mut s, &mut w);
            prop_assert_eq!(g.start, brute_earliest(&m, procs, d, now));
        }
    }

    /// Compaction: starts are non-decreasing along the list, no job starts before now, and the
    /// CPUs in use never exceed the machine's.
    #[test]
    fn compaction_keeps_list_order_and_capacity((m, _, _) in machine_strategy()) {
        let starts: Vec<Time> = m.planned().iter().map(|j| j.start).collect();
        prop_assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!(starts.iter().all(|&s| s >= 0));
        let mut times: Vec<Time> = m.planned().iter().map(|j| j.start).collect();
        times.push(0);
        for t in times {
            prop_assert!(used_at(&m, t) <= m.cpus(), "capacity exceeded at {}", t);
        }
    }
}

#[test]
fn acceptance_is_strict_and_empty_best_accepts() {
    let o = Objective {
        usage: 0.5,
        nondelayed: 10.0,
    };
    assert!(accept(None, o, 1e-13));
    assert!(!accept(Some(o), o, 1e-13), "a tie is rejected");
    let better_usage = Objective { usage: 0.6, ..o };
    assert!(accept(Some(o), better_usage, 1e-13));
    // +50% usage, -50% non-delayed: exactly zero, rejected.
    let traded = Objective {
        usage: 0.75,
        nondelayed: 5.0,
    };
    assert!(!accept(Some(o), traded, 1e-13));
    // From zero: any gain is accepted overwhelmingly (the epsilon denominator).
    let zero = Objective {
        usage: 0.0,
        nondelayed: 0.0,
    };
    assert!(accept(
        Some(zero),
        Objective {
            usage: 0.0,
            nondelayed: 1.0
        },
        1e-13
    ));
    assert!(!accept(Some(zero), zero, 1e-13));
}

fn small_grid() -> (Platform, Vec<Job>, GridWorkload) {
    let w = GridWorkload {
        machines: 12,
        jobs: 240,
        ..GridWorkload::default()
    };
    let key = StreamKey::new(7, "test").replication(0);
    let machines = w.machine_set(&key);
    let platform = Platform::grid(machines, w.reference_speed).unwrap();
    // A heavy load: τ such that ρ ≈ 1.5.
    let tau = w.offered_load(platform.machines(), 1.0) / 1.5;
    (platform, w.job_stream(&key, tau), w)
}

const ALL: [Algorithm; 6] = [
    Algorithm::Fcfs,
    Algorithm::Easy,
    Algorithm::Flexible,
    Algorithm::EgEdf,
    Algorithm::EgEdfTabu(TabuSetting {
        frequency: 5,
        iterations: 50,
        capacity: None,
    }),
    Algorithm::ReComp,
];

/// Every algorithm runs every job exactly once, never over capacity, never before its
/// submission, for exactly its run time on its machine (the executed trace is the schedule,
/// since run times are exact); the same seed gives the same schedule.
#[test]
fn every_algorithm_runs_every_job_once_within_capacity_and_reruns_identically() {
    let (platform, jobs, _) = small_grid();
    for a in ALL {
        let go = || {
            let mut rng = StreamKey::new(1, "t").stream("ts").rng();
            run(&platform, jobs.clone(), a, &Config::default(), &mut rng).unwrap()
        };
        let r = go();
        assert_eq!(r.outcomes.len(), jobs.len(), "{a:?}");
        audit(&r.outcomes, &platform, Estimates::Actual).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        for o in &r.outcomes {
            assert!(o.start >= o.job.submit);
            assert_eq!(
                o.end - o.start,
                platform.duration(o.machine as usize, o.job.run)
            );
        }
        let again = go();
        assert_eq!(again.outcomes, r.outcomes, "{a:?} is deterministic");
        assert_eq!(again.work, r.work);
        assert_eq!(again.metrics, r.metrics);
    }
}

/// With one job waiting at a time re-computation is incr-EG-EDF: on a stream spaced so that
/// every job starts before the next arrives, the schedules are identical.
#[test]
fn recomputation_equals_incremental_when_one_job_waits() {
    let platform = Platform::grid(
        vec![
            Machine {
                cpus: 4,
                speed: 200,
            },
            Machine {
                cpus: 2,
                speed: 400,
            },
        ],
        200,
    )
    .unwrap();
    let jobs: Vec<Job> = (0..40)
        .map(|i| {
            Job::new(
                i + 1,
                i as i64 * 10_000,
                1 + (i % 4) as u32,
                3_000 + 100 * i as i64,
            )
        })
        .collect();
    let go = |a| {
        let mut rng = StreamKey::new(1, "t").rng();
        run(&platform, jobs.clone(), a, &Config::default(), &mut rng).unwrap()
    };
    assert_eq!(
        go(Algorithm::ReComp).outcomes,
        go(Algorithm::EgEdf).outcomes
    );
}

/// Tabu search never loses or duplicates a job and never makes the objective worse.
#[test]
fn tabu_search_keeps_every_job_and_improves() {
    let (platform, jobs, _) = small_grid();
    let infos: Vec<JobInfo> = {
        let mut sorted = jobs.clone();
        sorted.sort_by_key(|j| (j.submit, j.id));
        sorted
            .iter()
            .enumerate()
            .map(|(i, j)| JobInfo {
                index: i as u32,
                id: j.id,
                release: j.submit,
                procs: j.procs,
                run: j.run,
                deadline: j.deadline,
            })
            .collect()
    };
    // Everything arrives at once (now = 0), so the whole stream is planned.
    let mut g = GridSchedule::new(platform, Config::default(), 0);
    for j in &infos {
        g.insert_eg_edf(j, 0);
    }
    let before = g.objective(0);
    let count = |g: &GridSchedule| {
        let mut ids: Vec<u32> = g
            .machines()
            .iter()
            .flat_map(|m| m.planned().iter().map(|j| j.index))
            .collect();
        ids.sort_unstable();
        ids
    };
    let ids = count(&g);
    assert_eq!(ids, (0..infos.len() as u32).collect::<Vec<_>>());
    let mut rng = StreamKey::new(3, "ts").rng();
    g.tabu_search(2000, 2000, 0, &infos, &mut rng);
    assert_eq!(count(&g), ids, "no job lost or duplicated");
    let after = g.objective(0);
    assert!(
        after == before || accept(Some(before), after, 1e-13),
        "the search only accepts improvements: {before:?} -> {after:?}"
    );
}

#[test]
fn tabu_settings_parse() {
    let t: TabuSetting = "5:500".parse().unwrap();
    assert_eq!(
        (t.frequency, t.iterations, t.tabu_capacity()),
        (5, 500, 500)
    );
    assert_eq!(t.to_string(), "5:500");
    for bad in ["5", "0:10", "a:1", "5:x", ""] {
        assert!(bad.parse::<TabuSetting>().is_err(), "{bad}");
    }
}

/// The generator: common random numbers across τ (same jobs, arrivals scaled), the spec's
/// ranges, about 70% deadlines, a fixed machine set across replications.
#[test]
fn workload_streams_share_their_jobs_across_tau() {
    let w = GridWorkload::default();
    let key = StreamKey::new(2008, "klusacek").replication(3);
    let a = w.job_stream(&key.clone().point("tau=1"), 1.0);
    let b = w.job_stream(&key.clone().point("tau=2"), 2.0);
    assert_eq!(a.len(), 3000);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            (x.procs, x.run, x.deadline.is_some()),
            (y.procs, y.run, y.deadline.is_some())
        );
        assert!(
            (y.submit - 2 * x.submit).abs() <= 1,
            "arrivals scale with τ"
        );
        assert!((500_000..=3_000_000).contains(&x.run) && (1..=8).contains(&x.procs));
        if let Some(d) = x.deadline {
            assert!(d >= x.submit + x.run && d <= x.submit + 3 * x.run + 1);
        }
    }
    let share = a.iter().filter(|j| j.deadline.is_some()).count() as f64 / 3000.0;
    assert!((share - 0.7).abs() < 0.03, "{share}");
    let m0 = w.machine_set(&key.clone().replication(0));
    let m3 = w.machine_set(&key);
    assert_eq!(m0, m3, "one machine set for every replication");
    assert_eq!(m0.len(), 150);
    assert!(m0.iter().any(|m| m.cpus >= 8));
    // ρ(τ) of the spec's table with s_ref = 200: about 3.09 / τ on an average machine set.
    let rho = w.offered_load(&m0, 5.0);
    assert!(rho > 0.5 && rho < 0.75, "{rho}");
}
