//! Conservative backfilling with replay compression on heterogeneous grids, with fixed
//! reservations added while the simulation runs, against a naive oracle.
//!
//! The oracle keeps every machine's schedule as a plain list of blocks and, at every event
//! (a submission, a completion, a planned start, a reservation being added), places every
//! queued job again from scratch in queue order: on each machine wide enough, its earliest
//! fit (checked at every breakpoint, `O(n²)`) for its run time scaled to that machine's
//! speed; among machines the smallest key — (start, end, machine) for
//! [`MachineSelect::Fastest`], (start, machine) for [`MachineSelect::FirstFit`]. Jobs whose
//! place starts now start there. This is the definition of CB-replay that the simulator's
//! incremental replay (which re-places only what an early completion can move, and searches
//! only near the freed intervals) must reproduce exactly: machine, start and end per job.
//!
//! A reservation the oracle finds overlapping the running jobs (at their estimated ends) or
//! earlier reservations must be refused by the simulator, and every other one accepted.
//!
//! EASY backfilling on the same grids has its own oracle, written from the textbook rule
//! rather than from the simulator's shortcuts (the head's shadow arithmetic, the checked
//! prefix, the widest-machine filter): at every event, queue heads start on the first
//! machine in selection order where they fit now; the head that does not gets the earliest
//! reservation over all machines (key (start, end, machine)); then every later queued job, in
//! queue order, starts on the first machine in selection order where it fits now in the
//! profile of the running jobs, the fixed reservations and the head's reservation.

use gridsched_batch::{
    Compression, Config, Estimates, Job, Machine, MachineSelect, Platform, Policy, Simulator, audit,
};
use proptest::prelude::*;

type Time = i64;
/// The order of placements among machines.
type Key = (Time, Time, usize);

#[derive(Debug, Clone, Copy)]
struct Block {
    machine: usize,
    start: Time,
    end: Time,
    procs: i64,
}

/// Processors used on machine `m` at instant `t`.
fn used_at(blocks: &[Block], m: usize, t: Time) -> i64 {
    blocks
        .iter()
        .filter(|b| b.machine == m && b.start <= t && t < b.end)
        .map(|b| b.procs)
        .sum()
}

/// Whether `[s, s + d) x p` fits on machine `m` of capacity `cap`: the level only changes at
/// block starts, so `s` and every block start inside the window are checked.
fn fits(blocks: &[Block], m: usize, cap: i64, s: Time, d: Time, p: i64) -> bool {
    std::iter::once(s)
        .chain(
            blocks
                .iter()
                .filter(|b| b.machine == m)
                .map(|b| b.start)
                .filter(|&t| t > s && t < s + d),
        )
        .all(|t| used_at(blocks, m, t) + p <= cap)
}

/// The earliest `t ≥ now` at which the block fits on machine `m`: `now` or some block end.
fn earliest_fit(blocks: &[Block], m: usize, cap: i64, now: Time, d: Time, p: i64) -> Time {
    let mut cands: Vec<Time> = std::iter::once(now)
        .chain(
            blocks
                .iter()
                .filter(|b| b.machine == m)
                .map(|b| b.end)
                .filter(|&t| t > now),
        )
        .collect();
    cands.sort_unstable();
    cands
        .into_iter()
        .find(|&t| fits(blocks, m, cap, t, d, p))
        .expect("everything ends eventually")
}

/// A fixed reservation the test tries to add once the clock reaches `at`.
#[derive(Debug, Clone, Copy)]
struct Attempt {
    at: Time,
    machine: usize,
    offset: Time,
    len: Time,
    procs: u32,
}

#[derive(Debug, Clone, Copy)]
struct Run {
    machine: usize,
    start: Time,
    est_end: Time,
    end: Time,
    procs: i64,
}

/// Scaled duration on machine `m` (the platform's documented rounding, written out again).
fn scaled(machines: &[Machine], reference: u32, m: usize, t: Time) -> Time {
    let s = i64::from(machines[m].speed);
    (t * i64::from(reference) + s - 1) / s
}

/// One generated scenario.
#[derive(Debug, Clone)]
struct Case {
    machines: Vec<Machine>,
    reference: u32,
    select: MachineSelect,
    jobs: Vec<Job>,
    estimates: Estimates,
    attempts: Vec<Attempt>,
}

/// Per job in (submit, id) order, `(machine, start, end)`; per attempt, whether it was
/// accepted.
type Schedule = (Vec<(usize, Time, Time)>, Vec<bool>);

/// A job's run time as the scheduler sees it: its requested time or its actual one.
fn estimate(j: &Job, estimates: Estimates) -> Time {
    match estimates {
        Estimates::Actual => j.run,
        Estimates::Requested => j.requested.unwrap_or(j.run),
    }
}

/// Job `j` started on machine `m` at `now`: its times scaled to the machine's speed, killed
/// at its estimate.
fn run_on(j: &Job, m: usize, now: Time, case: &Case) -> Run {
    let e = scaled(
        &case.machines,
        case.reference,
        m,
        estimate(j, case.estimates),
    );
    let run = scaled(&case.machines, case.reference, m, j.run);
    let actual = match case.estimates {
        Estimates::Actual => run,
        Estimates::Requested => run.min(e),
    };
    Run {
        machine: m,
        start: now,
        est_end: now + e,
        end: now + actual,
        procs: i64::from(j.procs),
    }
}

/// What occupies the machines from `now` on: the fixed reservations not over yet and the
/// running jobs up to their estimated ends.
fn live_blocks(fixed: &[Block], running: &[Run], now: Time) -> Vec<Block> {
    let mut blocks: Vec<Block> = fixed.iter().filter(|b| b.end > now).copied().collect();
    blocks.extend(running.iter().map(|r| Block {
        machine: r.machine,
        start: r.start,
        end: r.est_end,
        procs: r.procs,
    }));
    blocks
}

/// Whether the reservation attempt `a` must be accepted (it overlaps neither the running
/// jobs at their estimated ends nor earlier reservations); an accepted one joins `fixed`.
fn try_reservation(
    a: &Attempt,
    machines: &[Machine],
    fixed: &mut Vec<Block>,
    running: &[Run],
) -> bool {
    let blocks = live_blocks(fixed, running, a.at);
    let cap = i64::from(machines[a.machine].cpus);
    let (start, p) = (a.at + a.offset, i64::from(a.procs));
    let ok = p <= cap && fits(&blocks, a.machine, cap, start, a.len, p);
    if ok {
        fixed.push(Block {
            machine: a.machine,
            start,
            end: start + a.len,
            procs: p,
        });
    }
    ok
}

/// Processes the oracles' next instant: the next reservation attempt if it comes before `t`
/// (the earliest other event), else the events at `t` (completions, then submissions into
/// `queue`). Returns the instant.
#[allow(clippy::too_many_arguments)]
fn advance(
    t: Time,
    case: &Case,
    jobs: &[Job],
    next: &mut usize,
    next_attempt: &mut usize,
    accepted: &mut Vec<bool>,
    fixed: &mut Vec<Block>,
    running: &mut Vec<Run>,
    queue: &mut Vec<usize>,
) -> Time {
    if let Some(a) = case.attempts.get(*next_attempt).filter(|a| a.at < t) {
        // Every event up to the attempt's time has been processed: add it, then a round.
        *next_attempt += 1;
        accepted.push(try_reservation(a, &case.machines, fixed, running));
        return a.at;
    }
    assert!(t < Time::MAX, "oracle stuck");
    running.retain(|r| r.end > t);
    while *next < jobs.len() && jobs[*next].submit <= t {
        queue.push(*next);
        *next += 1;
    }
    t
}

/// The oracle.
fn oracle(case: &Case) -> Schedule {
    let Case {
        machines,
        reference,
        select,
        estimates,
        attempts,
        ..
    } = case;
    let (reference, select, estimates) = (*reference, *select, *estimates);
    let mut jobs = case.jobs.clone();
    jobs.sort_by_key(|j| (j.submit, j.id));
    let n = jobs.len();
    let est = |j: &Job| estimate(j, estimates);
    let mut result = vec![(usize::MAX, Time::MIN, Time::MIN); n];
    let mut accepted = Vec::new();
    let mut running: Vec<Run> = Vec::new();
    let mut fixed: Vec<Block> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut planned: Vec<(usize, usize, Time)> = Vec::new();
    let mut next = 0usize;
    let mut next_attempt = 0usize;
    let mut started = 0usize;
    while started < n || next_attempt < attempts.len() {
        let mut t = Time::MAX;
        if next < n {
            t = t.min(jobs[next].submit);
        }
        for r in &running {
            t = t.min(r.end);
        }
        for &(_, _, s) in &planned {
            t = t.min(s);
        }
        let now = advance(
            t,
            case,
            &jobs,
            &mut next,
            &mut next_attempt,
            &mut accepted,
            &mut fixed,
            &mut running,
            &mut queue,
        );
        // Replay: every queued job again, in queue order.
        let mut blocks = live_blocks(&fixed, &running, now);
        planned.clear();
        for &i in &queue {
            let j = &jobs[i];
            let p = i64::from(j.procs);
            // (key, machine, start, duration)
            let mut best: Option<(Key, usize, Time, Time)> = None;
            for (m, mc) in machines.iter().enumerate() {
                if mc.cpus < j.procs {
                    continue;
                }
                let d = scaled(machines, reference, m, est(j));
                let s = earliest_fit(&blocks, m, i64::from(mc.cpus), now, d, p);
                let key = match select {
                    MachineSelect::Fastest => (s, s + d, m),
                    MachineSelect::FirstFit => (s, 0, m),
                };
                if best.is_none_or(|b| key < b.0) {
                    best = Some((key, m, s, d));
                }
            }
            let (_, m, s, d) = best.expect("some machine is wide enough");
            blocks.push(Block {
                machine: m,
                start: s,
                end: s + d,
                procs: p,
            });
            planned.push((i, m, s));
        }
        let mut k = 0;
        while k < planned.len() {
            let (i, m, s) = planned[k];
            if s == now {
                planned.remove(k);
                queue.retain(|&x| x != i);
                let run = run_on(&jobs[i], m, now, case);
                running.push(run);
                result[i] = (m, now, run.end);
                started += 1;
            } else {
                k += 1;
            }
        }
    }
    (result, accepted)
}

/// Machine indices in the selection order: fastest first (ties to the lower index), or by
/// index.
fn selection_order(machines: &[Machine], select: MachineSelect) -> Vec<usize> {
    let mut order: Vec<usize> = (0..machines.len()).collect();
    if select == MachineSelect::Fastest {
        order.sort_by_key(|&m| (std::cmp::Reverse(machines[m].speed), m));
    }
    order
}

/// The EASY oracle (module comment): the same events (submissions, completions, the ends of
/// fixed reservations, reservation attempts), the textbook rule at each.
fn easy_oracle(case: &Case) -> Schedule {
    let Case {
        machines,
        reference,
        select,
        estimates,
        attempts,
        ..
    } = case;
    let reference = *reference;
    let order = selection_order(machines, *select);
    let mut jobs = case.jobs.clone();
    jobs.sort_by_key(|j| (j.submit, j.id));
    let n = jobs.len();
    let est = |j: &Job| estimate(j, *estimates);
    let mut result = vec![(usize::MAX, Time::MIN, Time::MIN); n];
    let mut accepted = Vec::new();
    let mut running: Vec<Run> = Vec::new();
    let mut fixed: Vec<Block> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let mut next_attempt = 0usize;
    while result.iter().any(|r| r.0 == usize::MAX) || next_attempt < attempts.len() {
        let mut t = Time::MAX;
        if next < n {
            t = t.min(jobs[next].submit);
        }
        for r in &running {
            t = t.min(r.end);
        }
        // The ends of fixed reservations release capacity (those past are dropped below).
        for b in &fixed {
            t = t.min(b.end);
        }
        let now = advance(
            t,
            case,
            &jobs,
            &mut next,
            &mut next_attempt,
            &mut accepted,
            &mut fixed,
            &mut running,
            &mut queue,
        );
        fixed.retain(|b| b.end > now);
        let mut blocks = live_blocks(&fixed, &running, now);
        // Starts job `i` on machine `m` now.
        let mut start = |i: usize, m: usize, blocks: &mut Vec<Block>, running: &mut Vec<Run>| {
            let run = run_on(&jobs[i], m, now, case);
            running.push(run);
            blocks.push(Block {
                machine: m,
                start: now,
                end: run.est_end,
                procs: run.procs,
            });
            result[i] = (m, now, run.end);
        };
        // The first machine in selection order where job `i` fits now.
        let fits_now = |i: usize, blocks: &[Block]| -> Option<usize> {
            let j = &jobs[i];
            order.iter().copied().find(|&m| {
                let cap = i64::from(machines[m].cpus);
                let d = scaled(machines, reference, m, est(j));
                i64::from(j.procs) <= cap && fits(blocks, m, cap, now, d, i64::from(j.procs))
            })
        };
        while let Some(&h) = queue.first() {
            let Some(m) = fits_now(h, &blocks) else {
                break;
            };
            queue.remove(0);
            start(h, m, &mut blocks, &mut running);
        }
        let Some(&h) = queue.first() else {
            continue;
        };
        let head = &jobs[h];
        let p = i64::from(head.procs);
        let mut reservation: Option<(Time, Time, usize)> = None;
        for (m, mc) in machines.iter().enumerate() {
            if mc.cpus < head.procs {
                continue;
            }
            let d = scaled(machines, reference, m, est(head));
            let s = earliest_fit(&blocks, m, i64::from(mc.cpus), now, d, p);
            if reservation.is_none_or(|b| (s, s + d, m) < b) {
                reservation = Some((s, s + d, m));
            }
        }
        let (s, e, m) = reservation.expect("some machine is wide enough");
        // The head's reservation is only a block the backfilled jobs must leave room for.
        let held = blocks.len();
        blocks.push(Block {
            machine: m,
            start: s,
            end: e,
            procs: p,
        });
        let mut k = 1;
        while k < queue.len() {
            let i = queue[k];
            match fits_now(i, &blocks) {
                Some(m) => {
                    queue.remove(k);
                    start(i, m, &mut blocks, &mut running);
                }
                None => k += 1,
            }
        }
        blocks.remove(held);
    }
    (result, accepted)
}

/// The simulator's schedule under `policy`.
fn simulate(case: &Case, policy: Policy) -> Schedule {
    let Case {
        machines,
        reference,
        select,
        jobs,
        estimates,
        attempts,
    } = case;
    let (reference, select, estimates) = (*reference, *select, *estimates);
    let config = Config::new(policy)
        .estimates(estimates)
        .compression(Compression::Replay)
        .machine_select(select)
        .check_invariants(true);
    let platform = Platform::grid(machines.to_vec(), reference).unwrap();
    let mut sim = Simulator::with_jobs(platform.clone(), config, jobs.to_vec()).unwrap();
    let mut accepted = Vec::new();
    for a in attempts {
        sim.run_until(a.at);
        let r = sim.add_reservation(a.machine, a.at + a.offset, a.at + a.offset + a.len, a.procs);
        accepted.push(r.is_ok());
    }
    sim.run();
    assert!(sim.is_finished());
    let outs: Vec<_> = sim.outcomes().collect();
    assert_eq!(outs.len(), jobs.len());
    audit(&outs, &platform, estimates).unwrap();
    let got = outs
        .iter()
        .map(|o| (o.machine as usize, o.start, o.end))
        .collect();
    (got, accepted)
}

/// 1–3 machines of 1–8 CPUs at speeds 1–3 (reference speed 2, so durations round), up to 20
/// jobs in bursts with requested times from 50% to 200% of the run time, and up to three
/// reservation attempts at increasing times.
fn case() -> impl Strategy<Value = (Vec<Machine>, Vec<Job>, Vec<Attempt>)> {
    proptest::collection::vec((1u32..=8, 1u32..=3), 1..=3).prop_flat_map(|ms| {
        let machines: Vec<Machine> = ms
            .iter()
            .map(|&(cpus, speed)| Machine { cpus, speed })
            .collect();
        let widest = machines.iter().map(|m| m.cpus).max().unwrap();
        let nm = machines.len();
        let job = (0i64..40, 1..=widest, 1i64..30, 0i64..=30);
        let attempt = (0i64..60, 0..nm, 0i64..10, 1i64..20, 1u32..=8);
        (
            Just(machines),
            proptest::collection::vec(job, 1..20).prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(k, (submit, procs, run, r))| {
                        let req = (run * (5 + r) / 10).max(1);
                        Job::new(k as u64 + 1, submit, procs, run).requested(req)
                    })
                    .collect::<Vec<_>>()
            }),
            proptest::collection::vec(attempt, 0..=3).prop_map(|mut v| {
                v.sort_by_key(|a| a.0);
                v.into_iter()
                    .map(|(at, machine, offset, len, procs)| Attempt {
                        at,
                        machine,
                        offset,
                        len,
                        procs,
                    })
                    .collect::<Vec<_>>()
            }),
        )
    })
}

/// A whole scenario: [`case`] under either machine order and either kind of estimate.
fn scenario() -> impl Strategy<Value = Case> {
    (
        case(),
        prop_oneof![Just(MachineSelect::Fastest), Just(MachineSelect::FirstFit)],
        prop_oneof![Just(Estimates::Actual), Just(Estimates::Requested)],
    )
        .prop_map(|((machines, jobs, attempts), select, estimates)| Case {
            machines,
            reference: 2,
            select,
            jobs,
            estimates,
            attempts,
        })
}

/// The simulator under `policy` schedules `case` as `oracle` does, and accepts the same
/// reservations.
fn matches(
    case: &Case,
    policy: Policy,
    oracle: fn(&Case) -> Schedule,
) -> Result<(), TestCaseError> {
    let (got, got_ok) = simulate(case, policy);
    let (want, want_ok) = oracle(case);
    prop_assert_eq!(got_ok, want_ok, "reservations accepted");
    prop_assert_eq!(got, want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn conservative_replay_on_grids_matches_oracle(case in scenario()) {
        matches(&case, Policy::Conservative, oracle)?;
    }

    #[test]
    fn easy_on_grids_matches_oracle(case in scenario()) {
        matches(&case, Policy::Easy, easy_oracle)?;
    }
}
