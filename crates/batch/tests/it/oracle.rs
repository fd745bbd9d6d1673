//! Every policy against an independent, deliberately naive implementation on random small
//! workloads on one homogeneous cluster: start and end times must be equal job by job.
//!
//! The oracle keeps the schedule as a plain list of blocks `(start, end, procs)` and answers
//! "does this block fit" by summing the blocks over every breakpoint (`O(n²)`), with no
//! incremental state, no skipping of already-examined queue entries and no compression
//! shortcuts: at every event time it rebuilds what each policy defines.
//!
//! - FCFS: start queue heads while they fit now.
//! - EASY: start heads while they fit; reserve the blocked head at its earliest fit among the
//!   running jobs (planned to their estimated ends); start every other job, in queue order,
//!   whose block `[now, now + estimate)` fits together with the running jobs, the head's
//!   reservation and the jobs started so far in this round.
//! - Flexible: the same after re-sorting the queue by the Klusáček §2.12 priority.
//! - Conservative (replay): at every event, every queued job is placed again, in queue order,
//!   at its earliest fit among the running jobs and the queued jobs ahead of it; jobs whose
//!   place starts now start. (With exact estimates placement never changes; with requested
//!   times this is Singh's CB-replay on every early completion.)
//! - Conservative (in-place compression): placements persist; on an early completion each
//!   queued job in queue order is taken out and put back at its earliest fit if that is
//!   earlier.
//!
//! The simulator runs with its own invariant checks on (debug builds), and the finished
//! schedules also go through `audit`. Separate properties step the simulator and check, from
//! its public records alone, that EASY never starts the head later than the reservation it
//! had, and that conservative backfilling with exact estimates starts every job exactly at
//! its first promised start.

use std::collections::HashMap;

use gridsched_batch::{
    Compression, Config, Estimates, Job, JobPhase, Platform, Policy, Simulator, audit,
};
use proptest::prelude::*;

type Time = i64;

#[derive(Debug, Clone, Copy)]
struct Block {
    start: Time,
    end: Time,
    procs: i64,
}

/// Processors used at instant `t`.
fn used_at(blocks: &[Block], t: Time) -> i64 {
    blocks
        .iter()
        .filter(|b| b.start <= t && t < b.end)
        .map(|b| b.procs)
        .sum()
}

/// Whether `[s, s + d) x p` fits under capacity `cap` together with `blocks`: the level only
/// changes at block starts, so checking `s` and every block start inside the window suffices.
fn fits(blocks: &[Block], cap: i64, s: Time, d: Time, p: i64) -> bool {
    std::iter::once(s)
        .chain(
            blocks
                .iter()
                .map(|b| b.start)
                .filter(|&t| t > s && t < s + d),
        )
        .all(|t| used_at(blocks, t) + p <= cap)
}

/// The earliest `t ≥ now` at which the block fits: `now` or some block end.
fn earliest_fit(blocks: &[Block], cap: i64, now: Time, d: Time, p: i64) -> Time {
    let mut cands: Vec<Time> = std::iter::once(now)
        .chain(blocks.iter().map(|b| b.end).filter(|&t| t > now))
        .collect();
    cands.sort_unstable();
    cands
        .into_iter()
        .find(|&t| fits(blocks, cap, t, d, p))
        .expect("everything ends eventually")
}

#[derive(Debug, Clone, Copy)]
struct Run {
    idx: usize,
    start: Time,
    est_end: Time,
    end: Time,
}

/// The oracle: per job (in the simulator's index order: sorted by submit, then id), its
/// `(start, end)`.
fn oracle(
    policy: Policy,
    compression: Compression,
    cap: u32,
    jobs: &[Job],
    estimates: Estimates,
) -> Vec<(Time, Time)> {
    let cap = i64::from(cap);
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].submit, jobs[i].id));
    let jobs: Vec<Job> = order.iter().map(|&i| jobs[i]).collect();
    let n = jobs.len();
    let est = |j: &Job| match estimates {
        Estimates::Actual => j.run,
        Estimates::Requested => j.requested.unwrap_or(j.run),
    };
    let mut result = vec![(Time::MIN, Time::MIN); n];
    let mut running: Vec<Run> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    // Conservative: current planned start per queued job.
    let mut planned: HashMap<usize, Time> = HashMap::new();
    let mut next = 0usize;
    let mut now: Time;
    let mut started = 0usize;
    let start_job =
        |i: usize, now: Time, running: &mut Vec<Run>, result: &mut Vec<(Time, Time)>| {
            let j = &jobs[i];
            let e = est(j);
            let actual = match estimates {
                Estimates::Actual => j.run,
                Estimates::Requested => j.run.min(e),
            };
            running.push(Run {
                idx: i,
                start: now,
                est_end: now + e,
                end: now + actual,
            });
            result[i] = (now, now + actual);
        };
    while started < n {
        // The next event: a submission, a completion, or (conservative) a planned start.
        let mut t = Time::MAX;
        if next < n {
            t = t.min(jobs[next].submit);
        }
        for r in &running {
            t = t.min(r.end);
        }
        for &s in planned.values() {
            t = t.min(s);
        }
        assert!(t < Time::MAX, "oracle stuck");
        now = t;
        let mut early = false;
        running.retain(|r| {
            if r.end <= now {
                early |= r.end < r.est_end;
                false
            } else {
                true
            }
        });
        while next < n && jobs[next].submit <= now {
            queue.push(next);
            next += 1;
        }
        let blocks_of = |running: &[Run]| -> Vec<Block> {
            running
                .iter()
                .map(|r| Block {
                    start: r.start,
                    end: r.est_end,
                    procs: i64::from(jobs[r.idx].procs),
                })
                .collect()
        };
        match policy {
            Policy::Fcfs => {
                while let Some(&h) = queue.first() {
                    let blocks = blocks_of(&running);
                    if cap - used_at(&blocks, now) >= i64::from(jobs[h].procs) {
                        queue.remove(0);
                        start_job(h, now, &mut running, &mut result);
                        started += 1;
                    } else {
                        break;
                    }
                }
            }
            Policy::Easy | Policy::Flexible => {
                if policy == Policy::Flexible {
                    sort_flexible(&mut queue, &jobs, now, &est);
                }
                while let Some(&h) = queue.first() {
                    let blocks = blocks_of(&running);
                    if fits(&blocks, cap, now, est(&jobs[h]), i64::from(jobs[h].procs)) {
                        queue.remove(0);
                        start_job(h, now, &mut running, &mut result);
                        started += 1;
                    } else {
                        break;
                    }
                }
                if let Some(&h) = queue.first() {
                    let mut blocks = blocks_of(&running);
                    let (dh, ph) = (est(&jobs[h]), i64::from(jobs[h].procs));
                    let shadow = earliest_fit(&blocks, cap, now, dh, ph);
                    blocks.push(Block {
                        start: shadow,
                        end: shadow + dh,
                        procs: ph,
                    });
                    let mut k = 1;
                    while k < queue.len() {
                        let i = queue[k];
                        let (d, p) = (est(&jobs[i]), i64::from(jobs[i].procs));
                        if fits(&blocks, cap, now, d, p) {
                            blocks.push(Block {
                                start: now,
                                end: now + d,
                                procs: p,
                            });
                            queue.remove(k);
                            start_job(i, now, &mut running, &mut result);
                            started += 1;
                        } else {
                            k += 1;
                        }
                    }
                }
            }
            Policy::External => unreachable!("the oracle covers the built-in policies"),
            Policy::Conservative => {
                let replay = compression == Compression::Replay || estimates == Estimates::Actual;
                let mut blocks = blocks_of(&running);
                if replay {
                    planned.clear();
                } else if early {
                    // In place: in queue order, move each job to its earliest fit if earlier.
                    let mut others: Vec<(usize, Block)> = queue
                        .iter()
                        .filter_map(|&i| planned.get(&i).map(|&s| (i, s)))
                        .map(|(i, s)| {
                            (
                                i,
                                Block {
                                    start: s,
                                    end: s + est(&jobs[i]),
                                    procs: i64::from(jobs[i].procs),
                                },
                            )
                        })
                        .collect();
                    for k in 0..others.len() {
                        let (i, old) = others[k];
                        let mut bl = blocks.clone();
                        bl.extend(
                            others
                                .iter()
                                .enumerate()
                                .filter(|&(x, _)| x != k)
                                .map(|(_, b)| b.1),
                        );
                        let s = earliest_fit(&bl, cap, now, old.end - old.start, old.procs);
                        if s < old.start {
                            others[k].1 = Block {
                                start: s,
                                end: s + (old.end - old.start),
                                procs: old.procs,
                            };
                            planned.insert(i, s);
                        }
                    }
                }
                if !replay {
                    for &i in &queue {
                        if let Some(&s) = planned.get(&i) {
                            blocks.push(Block {
                                start: s,
                                end: s + est(&jobs[i]),
                                procs: i64::from(jobs[i].procs),
                            });
                        }
                    }
                }
                for &i in &queue {
                    if planned.contains_key(&i) {
                        continue;
                    }
                    let (d, p) = (est(&jobs[i]), i64::from(jobs[i].procs));
                    let s = earliest_fit(&blocks, cap, now, d, p);
                    blocks.push(Block {
                        start: s,
                        end: s + d,
                        procs: p,
                    });
                    planned.insert(i, s);
                }
                let mut k = 0;
                while k < queue.len() {
                    let i = queue[k];
                    if planned[&i] == now {
                        planned.remove(&i);
                        queue.remove(k);
                        start_job(i, now, &mut running, &mut result);
                        started += 1;
                    } else {
                        k += 1;
                    }
                }
            }
        }
    }
    result
}

/// Klusáček §2.12 with unit weights, the execution range taken from the queue: a stable sort
/// by descending priority, ties to the earlier arrival (queue entries carry their arrival
/// order as their index here, since jobs arrive in index order).
fn sort_flexible(queue: &mut [usize], jobs: &[Job], now: Time, est: &dyn Fn(&Job) -> Time) {
    if queue.len() < 2 {
        return;
    }
    let e_lo = queue.iter().map(|&i| est(&jobs[i])).min().unwrap();
    let e_hi = queue.iter().map(|&i| est(&jobs[i])).max().unwrap();
    let w_max = queue.iter().map(|&i| now - jobs[i].submit).max().unwrap();
    let d_max = queue
        .iter()
        .filter_map(|&i| jobs[i].deadline.map(|d| d - now))
        .max();
    let prio = |i: usize| -> f64 {
        let j = &jobs[i];
        let e = if e_hi > e_lo {
            (e_hi - est(j)) as f64 / (e_hi - e_lo) as f64
        } else {
            0.0
        };
        let w = if w_max > 0 {
            (now - j.submit) as f64 / w_max as f64
        } else {
            0.0
        };
        let d = match (j.deadline, d_max) {
            (None, _) => 0.0,
            // Every deadline in the queue has passed: all are maximally urgent.
            (Some(_), Some(m)) if m <= 0 => 1.0,
            (Some(dj), Some(m)) => 1.0 - ((dj - now) as f64 / m as f64).clamp(0.0, 1.0),
            (Some(_), None) => unreachable!(),
        };
        d + w + e
    };
    queue.sort_by(|&a, &b| prio(b).total_cmp(&prio(a)).then(a.cmp(&b)));
}

fn simulate(
    policy: Policy,
    compression: Compression,
    cap: u32,
    jobs: &[Job],
    estimates: Estimates,
) -> Vec<(Time, Time)> {
    let config = Config::new(policy)
        .estimates(estimates)
        .compression(compression)
        .check_invariants(true);
    let platform = Platform::cluster(cap).unwrap();
    let mut sim = Simulator::with_jobs(platform.clone(), config, jobs.to_vec()).unwrap();
    sim.run();
    assert!(sim.is_finished());
    let outs: Vec<_> = sim.outcomes().collect();
    assert_eq!(outs.len(), jobs.len());
    audit(&outs, &platform, estimates).unwrap();
    outs.iter().map(|o| (o.start, o.end)).collect()
}

/// Random small workloads: up to 12 processors, up to 23 jobs arriving in bursts (equal submit
/// times are common), run times 1..30, requested times from 50% to 200% of the run time
/// (so some jobs are killed and many end early), and a deadline on some jobs.
fn workload() -> impl Strategy<Value = (u32, Vec<Job>)> {
    (1u32..=12).prop_flat_map(|cap| {
        let job = (
            0i64..40,
            1..=cap,
            1i64..30,
            0i64..=30,
            proptest::option::of(0i64..80),
        );
        (
            Just(cap),
            proptest::collection::vec(job, 1..24).prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(k, (submit, procs, run, r, dl))| {
                        let req = (run * (5 + r) / 10).max(1);
                        let mut j = Job::new(k as u64 + 1, submit, procs, run).requested(req);
                        if let Some(d) = dl {
                            j = j.deadline(submit + d);
                        }
                        j
                    })
                    .collect()
            }),
        )
    })
}

fn estimates() -> impl Strategy<Value = Estimates> {
    prop_oneof![Just(Estimates::Actual), Just(Estimates::Requested)]
}

fn check(policy: Policy, compression: Compression, cap: u32, jobs: &[Job], e: Estimates) {
    let got = simulate(policy, compression, cap, jobs, e);
    let want = oracle(policy, compression, cap, jobs, e);
    assert_eq!(got, want, "{policy:?} {compression:?} {e:?} on {cap} procs");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn fcfs_matches_oracle((cap, jobs) in workload(), e in estimates()) {
        check(Policy::Fcfs, Compression::Replay, cap, &jobs, e);
    }

    #[test]
    fn easy_matches_oracle((cap, jobs) in workload(), e in estimates()) {
        check(Policy::Easy, Compression::Replay, cap, &jobs, e);
    }

    #[test]
    fn flexible_matches_oracle((cap, jobs) in workload(), e in estimates()) {
        check(Policy::Flexible, Compression::Replay, cap, &jobs, e);
    }

    #[test]
    fn conservative_replay_matches_oracle((cap, jobs) in workload(), e in estimates()) {
        check(Policy::Conservative, Compression::Replay, cap, &jobs, e);
    }

    #[test]
    fn conservative_in_place_matches_oracle((cap, jobs) in workload(), e in estimates()) {
        check(Policy::Conservative, Compression::InPlace, cap, &jobs, e);
    }

    /// Stepping the simulator, the queue head's reservation (recomputed here from the running
    /// jobs' records) never moves later while that job stays at the head, and the head starts
    /// no later than it.
    #[test]
    fn easy_never_delays_the_head((cap, jobs) in workload(), e in estimates()) {
        let config = Config::new(Policy::Easy).estimates(e).check_invariants(false);
        let mut sim = Simulator::with_jobs(Platform::cluster(cap).unwrap(), config, jobs).unwrap();
        let mut promise: Option<(usize, Time)> = None;
        while sim.step() {
            let now = sim.now();
            if let Some((h, p)) = promise {
                let r = sim.record(h);
                if matches!(r.phase, JobPhase::Running | JobPhase::Done) {
                    prop_assert!(r.start.unwrap() <= p, "head started at {:?} after its reservation {p}", r.start);
                    promise = None;
                }
            }
            let Some(&h) = sim.queued().first() else { continue };
            let blocks: Vec<Block> = (0..sim.job_count())
                .map(|i| sim.record(i))
                .filter(|r| r.phase == JobPhase::Running)
                .map(|r| {
                    let s = r.start.unwrap();
                    Block { start: s, end: s + r.job.estimate(e), procs: i64::from(r.job.procs) }
                })
                .collect();
            let job = sim.record(h).job;
            let shadow = earliest_fit(&blocks, i64::from(cap), now, job.estimate(e), i64::from(job.procs));
            match promise {
                Some((j, p)) if j == h => {
                    prop_assert!(shadow <= p, "head {h}'s reservation moved from {p} to {shadow}");
                    promise = Some((h, shadow));
                }
                _ => promise = Some((h, shadow)),
            }
        }
        prop_assert!(sim.is_finished());
    }

    /// With exact estimates, conservative backfilling starts every job exactly at the first
    /// start it was promised (read from its record after the round that queued it).
    #[test]
    fn conservative_keeps_every_promise((cap, jobs) in workload(), c in prop_oneof![Just(Compression::Replay), Just(Compression::InPlace)]) {
        let config = Config::new(Policy::Conservative).compression(c).check_invariants(false);
        let mut sim = Simulator::with_jobs(Platform::cluster(cap).unwrap(), config, jobs).unwrap();
        let mut promised: HashMap<usize, Time> = HashMap::new();
        while sim.step() {
            for i in 0..sim.job_count() {
                let r = sim.record(i);
                match r.phase {
                    JobPhase::Queued => {
                        let s = r.start.expect("a queued job holds a reservation");
                        prop_assert!(s > sim.now());
                        let p = *promised.entry(i).or_insert(s);
                        prop_assert!(s <= p, "job {} promised {p}, now planned at {s}", r.job.id);
                    }
                    JobPhase::Running | JobPhase::Done => {
                        let s = r.start.unwrap();
                        if let Some(&p) = promised.get(&i) {
                            prop_assert_eq!(s, p, "job {} started off its promise", r.job.id);
                        }
                    }
                    JobPhase::Pending => {}
                }
            }
        }
    }
}
