//! The machine schedule on classes of CPUs against the per-CPU one it replaced (issue 35):
//! `per_cpu/` is the old `MachineSchedule` and its profile, frozen, with one busy-until time
//! and one free time per CPU. Both are driven through the same random operations — EG and EDF
//! insertions, candidates, gap queries, removals in place and through Tabu search's copy,
//! starts at advancing times, drains — on machines from one CPU to a few thousand, with jobs
//! from one CPU to the whole machine, and must answer alike at every step: every planned
//! start and end, aggregate, gap (start and position), candidate, started and drained job,
//! every work count, and the busy CPUs (the per-CPU times as a multiset).

use gridsched_schedule_based::machine::{
    Aggregates, Gap, MachineSchedule, PlannedJob, Scratch, Work, earliest_gap_from_scratch,
};
use proptest::prelude::*;

/// The oracle's modules name the library's time type as `super::Time` (`crate::Time` in the
/// library they were copied from).
type Time = i64;

// The oracle is the old library code as it was: the parts of its API this test does not call
// stay unused.
#[allow(dead_code)]
#[path = "per_cpu/machine.rs"]
mod machine;
#[allow(dead_code)]
#[path = "per_cpu/profile.rs"]
mod profile;

use machine as old;

fn to_old(j: &PlannedJob) -> old::PlannedJob {
    old::PlannedJob {
        index: j.index,
        procs: j.procs,
        duration: j.duration,
        deadline: j.deadline,
        release: j.release,
        id: j.id,
        start: j.start,
        end: j.end,
    }
}

fn same_job(a: &PlannedJob, b: &old::PlannedJob) -> bool {
    to_old(a) == *b
}

fn same_list(a: &[PlannedJob], b: &[old::PlannedJob]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_job(x, y))
}

fn same_agg(a: Aggregates, b: old::Aggregates) -> bool {
    (a.max_end, a.nondelayed, a.delayed) == (b.max_end, b.nondelayed, b.delayed)
}

fn same_work(a: &Work, b: &old::Work) -> bool {
    (
        a.compacted,
        a.scanned,
        a.candidates,
        a.placements,
        a.tied_placements,
    ) == (
        b.compacted,
        b.scanned,
        b.candidates,
        b.placements,
        b.tied_placements,
    )
}

fn same_gap(a: Gap, b: old::Gap) -> bool {
    (a.start, a.position) == (b.start, b.position)
}

/// The two machines hold the same schedule at `now`: lists, aggregates, CPU count, and busy
/// CPUs — the same busy-until times after `now` (a multiset), as many idle ones, and the same
/// latest end of a job that ran there (the aggregates of an empty list read it).
fn check_same(
    new: &MachineSchedule,
    old: &old::MachineSchedule,
    now: Time,
) -> Result<(), TestCaseError> {
    prop_assert!(same_list(new.planned(), old.planned()), "planned lists");
    prop_assert!(same_agg(new.aggregates(), old.aggregates()), "aggregates");
    prop_assert_eq!(new.cpus(), old.cpus());
    let mut old_busy: Vec<Time> = old.busy().iter().map(|&b| b.max(now)).collect();
    old_busy.sort_unstable();
    let mut new_busy: Vec<Time> = new
        .busy()
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.until.max(now), c.cpus as usize))
        .collect();
    new_busy.sort_unstable();
    prop_assert_eq!(new_busy, old_busy, "busy CPUs at {}", now);
    if let Some(&max) = old.busy().iter().max() {
        prop_assert_eq!(new.busy_max(), max, "latest end of a job that ran");
    }
    new.check_caches(now).map_err(TestCaseError::fail)?;
    Ok(())
}

fn job(index: u32, procs: u32, duration: Time, deadline: Option<Time>) -> PlannedJob {
    PlannedJob {
        index,
        procs,
        duration,
        deadline,
        release: i64::from(index % 7),
        id: u64::from(index) * 3 + 1,
        start: 0,
        end: 0,
    }
}

#[derive(Debug, Clone)]
enum Op {
    /// The EDF-like candidate of a job at a position (a fraction of the list).
    Candidate(u32, Time, Option<Time>, usize),
    /// The earliest gap of a job, twice (the second from the kept answer), and its start
    /// alone as Tabu search asks.
    Gap(u32, Time),
    /// Insert a job at its earliest gap, at its EDF position or at a position.
    Insert(u32, Time, Option<Time>, u8, usize),
    /// Remove the job at a position, in place or from a copy (Tabu search's spare).
    Remove(usize, bool),
    /// Time moves to the next planned start or by a step; the due jobs start.
    Advance(Time),
    /// Re-computation takes every planned job out.
    Drain,
    /// A re-compaction (Tabu search's setup) and the from-scratch gap oracle.
    Compact(u32, Time),
}

/// CPU needs: one, a few, about half, the whole machine, anything.
fn procs(cpus: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        2 => Just(1u32),
        2 => 1u32..=cpus.min(4),
        1 => Just(cpus.div_ceil(2)),
        1 => Just(cpus),
        3 => 1u32..=cpus,
    ]
}

fn op_strategy(cpus: u32) -> impl Strategy<Value = Op> {
    let dl = prop::option::of(0i64..200);
    let d = prop_oneof![3 => 1i64..25, 1 => 1i64..400];
    prop_oneof![
        3 => (procs(cpus), d.clone(), dl.clone(), 0usize..32)
            .prop_map(|(p, d, dl, at)| Op::Candidate(p, d, dl, at)),
        3 => (procs(cpus), d.clone()).prop_map(|(p, d)| Op::Gap(p, d)),
        6 => (procs(cpus), d.clone(), dl, 0u8..3, 0usize..32)
            .prop_map(|(p, d, dl, how, at)| Op::Insert(p, d, dl, how, at)),
        2 => (0usize..32, any::<bool>()).prop_map(|(at, copy)| Op::Remove(at, copy)),
        3 => prop_oneof![0i64..8, 0i64..100].prop_map(Op::Advance),
        1 => Just(Op::Drain),
        1 => (procs(cpus), d).prop_map(|(p, d)| Op::Compact(p, d)),
    ]
}

fn run(cpus: u32, start: Time, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let (mut s, mut os) = (Scratch::default(), old::Scratch::default());
    let (mut w, mut ow) = (Work::default(), old::Work::default());
    let mut m = MachineSchedule::new(cpus, start);
    let mut o = old::MachineSchedule::new(cpus, start);
    let mut spare = MachineSchedule::new(1, start);
    let mut ospare = old::MachineSchedule::new(1, start);
    let mut now = start;
    let mut next = 0u32;
    let (mut started, mut ostarted) = (Vec::new(), Vec::new());
    check_same(&m, &o, now)?;
    for op in ops {
        let len = m.planned().len();
        match op {
            Op::Candidate(p, d, dl, at) => {
                let pos = at % (len + 1);
                let j = job(next, p, d, dl);
                let a = m.aggregates_with(pos, j, now, &mut s, &mut w);
                let b = o.aggregates_with(pos, to_old(&j), now, &mut os, &mut ow);
                prop_assert!(same_agg(a.0, b.0) && a.1 == b.1, "candidate at {}", pos);
                let g = m.earliest_gap(p, d, now, &mut s, &mut w);
                let og = o.earliest_gap(p, d, now, &mut os, &mut ow);
                prop_assert!(same_gap(g, og));
                prop_assert!(same_agg(
                    m.aggregates_with_gap(g, &j),
                    o.aggregates_with_gap(og, &to_old(&j))
                ));
                prop_assert_eq!(m.edf_position(dl), o.edf_position(dl));
            }
            Op::Gap(p, d) => {
                for _ in 0..2 {
                    let g = m.earliest_gap(p, d, now, &mut s, &mut w);
                    let og = o.earliest_gap(p, d, now, &mut os, &mut ow);
                    prop_assert!(same_gap(g, og), "gap {:?} vs {:?}", g, og);
                }
                let t = m.earliest_start(p, d, now, &mut s, &mut w);
                let ot = o.earliest_start(p, d, now, &mut os, &mut ow);
                prop_assert_eq!(t, ot);
                prop_assert_eq!(m.gap_position(t), o.gap_position(ot));
            }
            Op::Insert(p, d, dl, how, at) => {
                let pos = match how {
                    0 => {
                        let g = m.earliest_gap(p, d, now, &mut s, &mut w);
                        let og = o.earliest_gap(p, d, now, &mut os, &mut ow);
                        prop_assert!(same_gap(g, og));
                        g.position
                    }
                    1 => {
                        let e = m.edf_position(dl);
                        prop_assert_eq!(e, o.edf_position(dl));
                        e
                    }
                    _ => at % (len + 1),
                };
                let j = job(next, p, d, dl);
                next += 1;
                m.insert(pos, j, now, &mut s, &mut w);
                o.insert(pos, to_old(&j), now, &mut os, &mut ow);
            }
            Op::Remove(at, copy) if len > 0 => {
                let pos = at % len;
                if copy {
                    let a = m.copy_without(pos, &mut spare, now, &mut s, &mut w);
                    let b = o.copy_without(pos, &mut ospare, now, &mut os, &mut ow);
                    prop_assert!(same_job(&a, &b));
                    check_same(&spare, &ospare, now)?;
                    // Tabu search keeps the copy when the move is accepted.
                    std::mem::swap(&mut m, &mut spare);
                    std::mem::swap(&mut o, &mut ospare);
                } else {
                    let a = m.remove(pos, now, &mut s, &mut w);
                    let b = o.remove(pos, now, &mut os, &mut ow);
                    prop_assert!(same_job(&a, &b));
                }
            }
            Op::Remove(..) => {}
            Op::Advance(step) => {
                let target = m
                    .planned()
                    .first()
                    .map_or(now + step, |j| j.start.min(now + step));
                now = now.max(target);
                started.clear();
                ostarted.clear();
                m.start_due(now, &mut s, &mut started);
                o.start_due(now, &mut os, &mut ostarted);
                prop_assert!(same_list(&started, &ostarted), "started at {}", now);
            }
            Op::Drain => {
                started.clear();
                ostarted.clear();
                m.drain_planned(now, &mut started);
                o.drain_planned(now, &mut ostarted);
                prop_assert!(same_list(&started, &ostarted), "drained at {}", now);
            }
            Op::Compact(p, d) => {
                m.compact(now, &mut s, &mut w);
                o.compact(now, &mut os, &mut ow);
                let (mut a, mut b) = (Work::default(), old::Work::default());
                let g = earliest_gap_from_scratch(&m, p, d, now, &mut a);
                let og = old::earliest_gap_from_scratch(&o, p, d, now, &mut b);
                prop_assert!(same_gap(g, og) && same_work(&a, &b));
            }
        }
        prop_assert!(same_work(&w, &ow), "work {:?} vs {:?}", w, ow);
        check_same(&m, &o, now)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Small machines (the paper's grid has 1 to 16 CPUs) and ones whose old checkpoints
    /// skipped jobs (a stride above one from 32 CPUs).
    #[test]
    fn small_and_medium_machines_answer_as_per_cpu(
        (cpus, start, ops) in prop_oneof![3 => 1u32..=16, 1 => 30u32..=70]
            .prop_flat_map(|cpus| (
                Just(cpus),
                0i64..50,
                prop::collection::vec(op_strategy(cpus), 1..80),
            )),
    ) {
        run(cpus, start, ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Large machines: many idle CPUs in one class, wide and narrow jobs, long lists.
    #[test]
    fn large_machines_answer_as_per_cpu(
        (cpus, start, ops) in (200u32..=3000)
            .prop_flat_map(|cpus| (
                Just(cpus),
                0i64..50,
                prop::collection::vec(op_strategy(cpus), 1..120),
            )),
    ) {
        run(cpus, start, ops)?;
    }
}
