//! Slot sets against brute force and against the batch simulator's conservative backfilling
//! (spec §2.2, "equivalence property"):
//!
//! - the holes of a conservative schedule ([`schedule_holes`]) have the simulator's free
//!   capacity at every event, with exact or requested estimates, early completions,
//!   compression and fixed reservations, and each hole ends at a planned start or is open;
//! - Figure 2 ([`SlotSite`]) returns the earliest start its own slots allow (a brute-force
//!   search over the slots), never a start the processor count forbids, and never moves a
//!   placed job;
//! - Figure 2 is *not* conservative backfilling: two minimal counterexamples the property
//!   test found are kept as regression tests, one per [`Consume`] rule.

use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time};
use gridsched_provisioning::{Consume, OPEN, SlotSet, SlotSite, schedule_holes};
use proptest::prelude::*;

/// Brute force: the earliest `t ≥ submit` where `procs` fit over `[t, t + run)` beside every
/// job placed so far (candidates: `submit` and every end after it).
fn brute_force_starts(capacity: u32, jobs: &[Job]) -> Vec<Time> {
    let mut placed: Vec<(Time, Time, u32)> = Vec::new();
    let mut starts = Vec::new();
    for j in jobs {
        let mut cands: Vec<Time> = placed
            .iter()
            .map(|p| p.1)
            .filter(|&e| e > j.submit)
            .collect();
        cands.push(j.submit);
        cands.sort_unstable();
        let fits = |t: Time| {
            // Usage only rises at starts; check t and every start inside the window.
            let mut points = vec![t];
            points.extend(
                placed
                    .iter()
                    .map(|p| p.0)
                    .filter(|&s| s > t && s < t + j.run),
            );
            points.iter().all(|&x| {
                let used: u32 = placed
                    .iter()
                    .filter(|p| p.0 <= x && x < p.1)
                    .map(|p| p.2)
                    .sum();
                used + j.procs <= capacity
            })
        };
        let t = cands.into_iter().find(|&t| fits(t)).unwrap();
        placed.push((t, t + j.run, j.procs));
        starts.push(t);
    }
    starts
}

fn jobs_strategy(capacity: u32) -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..40, 1..=capacity, 1i64..30, 0i64..20), 1..40).prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, p, run, extra))| {
                t += gap / 4; // many simultaneous arrivals
                Job::new(i as u64 + 1, t, p, run).requested(run + extra)
            })
            .collect()
    })
}

/// Free processors of the simulator's profile from `now` on, as `(time, level)` changes.
fn sim_free(sim: &Simulator) -> Vec<(Time, i64)> {
    let mut v: Vec<(Time, i64)> = sim
        .profile(0)
        .steps()
        .into_iter()
        .map(|(t, l)| (t.max(sim.now()), l))
        .collect();
    // Steps before now collapse onto now: keep the last.
    let mut out: Vec<(Time, i64)> = Vec::new();
    for (t, l) in v.drain(..) {
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 = l,
            _ => out.push((t, l)),
        }
    }
    out.dedup_by(|b, a| a.1 == b.1);
    norm(out)
}

/// Drops leading steps at level 0 (a slot set cannot say "nothing free from now").
fn norm(mut v: Vec<(Time, i64)>) -> Vec<(Time, i64)> {
    let k = v.iter().take_while(|s| s.1 == 0).count();
    v.drain(..k);
    v
}

/// Brute force: the earliest start Figure 2 may give — the first candidate (the release or a
/// slot start after it) where slots spanning the whole window hold enough processors.
fn vertical_fit(set: &SlotSet, release: Time, procs: u32, run: Time) -> Option<Time> {
    let mut cands: Vec<Time> = set
        .slots()
        .iter()
        .map(|s| s.start)
        .filter(|&t| t > release)
        .collect();
    cands.push(release);
    cands.sort_unstable();
    cands.into_iter().find(|&t| {
        set.slots()
            .iter()
            .filter(|s| s.start <= t && s.end >= t + run)
            .map(|s| s.procs)
            .sum::<u32>()
            >= procs
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn holes_have_the_schedules_capacity(
        jobs in jobs_strategy(6),
        requested in any::<bool>(),
        resv in prop::collection::vec((0i64..60, 1i64..20, 1u32..4), 0..3),
    ) {
        let est = if requested { Estimates::Requested } else { Estimates::Actual };
        let mut sim = Simulator::with_jobs(
            Platform::cluster(6).unwrap(),
            Config::new(Policy::Conservative).estimates(est).check_invariants(true),
            jobs,
        ).unwrap();
        for (s, d, p) in resv {
            let _ = sim.add_reservation(0, s, s + d, p);
        }
        loop {
            let set = schedule_holes(&sim, 0).unwrap();
            set.validate().unwrap();
            prop_assert_eq!(norm(set.free_profile()), sim_free(&sim));
            // A hole ends at OPEN or where something planned starts.
            let mut starts: Vec<Time> = sim.queued().iter().filter_map(|&i| sim.record(i).start).collect();
            starts.extend(sim.live_reservations().map(|r| r.start));
            for h in set.slots() {
                prop_assert!(h.end == OPEN || starts.contains(&h.end), "{:?}", h);
                prop_assert_eq!(h.extensible, h.divisible);
            }
            if !sim.step() { break; }
        }
    }

    #[test]
    fn figure_2_is_sound(cap in 1u32..9, jobs in jobs_strategy(8), literal in any::<bool>()) {
        let consume = if literal { Consume::Figure2 } else { Consume::Tightest };
        let jobs: Vec<Job> = jobs.into_iter().map(|mut j| { j.procs = j.procs.min(cap); j }).collect();
        let mut site = SlotSite::with_consume(cap, 0, consume);
        let mut placed: Vec<Job> = Vec::new();
        let mut starts = Vec::new();
        for j in &jobs {
            // What the count allows beside the jobs Figure 2 has placed so far.
            let mut with = placed.clone();
            with.push(*j);
            let count_fit = *brute_force_starts_given(cap, &with, &starts).last().unwrap();
            let mut before = site.slots().clone();
            before.clip(j.submit.max(site.now()));
            let expect = vertical_fit(&before, j.submit, j.procs, j.run);
            let t = site.submit(j.id, j.submit, j.procs, j.run).unwrap();
            site.slots().validate().unwrap();
            prop_assert_eq!(Some(t), expect);
            prop_assert!(t >= count_fit, "started at {} where the count allows only {}", t, count_fit);
            placed.push(*j);
            starts.push(t);
            // The free area is the capacity minus every placed job.
            let mut used: Vec<(Time, i64)> = Vec::new();
            for (k, p) in placed.iter().enumerate() {
                used.push((starts[k].max(site.now()), -(p.procs as i64)));
                used.push((starts[k] + p.run, p.procs as i64));
            }
            let free = norm(site.slots().free_profile());
            for &(x, level) in &free {
                let busy: i64 = placed.iter().enumerate()
                    .filter(|(k, p)| starts[*k] <= x && x < starts[*k] + p.run)
                    .map(|(_, p)| p.procs as i64).sum();
                prop_assert_eq!(level, cap as i64 - busy);
            }
            for s in site.slots().slots() {
                prop_assert!(s.end == OPEN || starts.contains(&s.end));
            }
        }
    }
}

/// Brute-force conservative backfilling of the last job of `jobs` given fixed starts for the
/// others.
fn brute_force_starts_given(capacity: u32, jobs: &[Job], fixed: &[Time]) -> Vec<Time> {
    let mut out = fixed.to_vec();
    let placed: Vec<(Time, Time, u32)> = fixed
        .iter()
        .zip(jobs)
        .map(|(&s, j)| (s, s + j.run, j.procs))
        .collect();
    let j = jobs.last().unwrap();
    let mut cands: Vec<Time> = placed
        .iter()
        .map(|p| p.1)
        .filter(|&e| e > j.submit)
        .collect();
    cands.push(j.submit);
    cands.sort_unstable();
    let fits = |t: Time| {
        let mut points = vec![t];
        points.extend(
            placed
                .iter()
                .map(|p| p.0)
                .filter(|&s| s > t && s < t + j.run),
        );
        points.iter().all(|&x| {
            let used: u32 = placed
                .iter()
                .filter(|p| p.0 <= x && x < p.1)
                .map(|p| p.2)
                .sum();
            used + j.procs <= capacity
        })
    };
    out.push(cands.into_iter().find(|&t| fits(t)).unwrap());
    out
}

fn starts_of(consume: Consume, cap: u32, jobs: &[(Time, u32, Time)]) -> Vec<Time> {
    let mut site = SlotSite::with_consume(cap, 0, consume);
    jobs.iter()
        .enumerate()
        .map(|(i, &(s, p, r))| site.submit(i as u64 + 1, s, p, r).unwrap())
        .collect()
}

fn cb_starts(cap: u32, jobs: &[(Time, u32, Time)]) -> Vec<Time> {
    let jobs: Vec<Job> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(s, p, r))| Job::new(i as u64 + 1, s, p, r))
        .collect();
    brute_force_starts(cap, &jobs)
}

/// Found by `figure_2_is_sound`'s predecessor (which asserted equality): under the literal
/// rule, job 13 (3p at 49) takes the processor free since 23 instead of the one free from 49,
/// and job 15 (1p x 18) then starts at 49 where conservative backfilling starts it at 32.
#[test]
fn figure_2_as_written_is_not_conservative_backfilling() {
    let jobs = [
        (0, 1, 1),
        (0, 1, 1),
        (0, 2, 24),
        (5, 7, 13),
        (9, 1, 1),
        (14, 5, 11),
        (14, 4, 20),
        (14, 1, 1),
        (14, 2, 12),
        (14, 5, 11),
        (14, 3, 1),
        (17, 3, 1),
        (23, 3, 2),
        (27, 1, 1),
        (32, 1, 18),
    ];
    let fig2 = starts_of(Consume::Figure2, 8, &jobs);
    let cb = cb_starts(8, &jobs);
    assert_eq!(fig2[..14], cb[..14]);
    assert_eq!((fig2[14], cb[14]), (49, 32));
    // The tightest-fit rule handles this stream.
    assert_eq!(starts_of(Consume::Tightest, 8, &jobs), cb);
}

/// No rule that commits processors at planning time is conservative backfilling: under the
/// tightest-fit rule, job 10 (3p at 21) takes the processor free since 20 and keeps the one
/// free since 4, and job 14 (1p x 7) then starts at 21 where conservative backfilling starts
/// it at 20.
#[test]
fn no_consume_rule_is_conservative_backfilling() {
    let jobs = [
        (0, 1, 1),
        (0, 1, 1),
        (0, 2, 1),
        (0, 4, 16),
        (0, 1, 1),
        (2, 5, 4),
        (2, 4, 20),
        (2, 1, 1),
        (3, 2, 18),
        (4, 3, 11),
        (7, 2, 10),
        (8, 2, 9),
        (10, 1, 11),
        (10, 1, 7),
        (10, 1, 1),
        (10, 1, 1),
    ];
    let tight = starts_of(Consume::Tightest, 8, &jobs);
    let cb = cb_starts(8, &jobs);
    assert_eq!(tight[..13], cb[..13]);
    assert_eq!((tight[13], cb[13]), (21, 20));
}

/// Every slot the site holds ends at OPEN or at the start of a job on all its processors, and
/// the extensible slots together cover every processor at the last planned finish.
#[test]
fn slots_end_at_job_starts() {
    let jobs = [
        (0, 3, 50),
        (0, 2, 20),
        (5, 4, 10),
        (6, 1, 100),
        (7, 5, 5),
        (9, 2, 7),
    ];
    let mut site = SlotSite::new(6, 0);
    let mut starts = Vec::new();
    for (i, &(s, p, r)) in jobs.iter().enumerate() {
        starts.push(site.submit(i as u64, s, p, r).unwrap());
    }
    let set: &SlotSet = site.slots();
    for s in set.slots() {
        assert!(s.end == OPEN || starts.contains(&s.end), "{s:?} {starts:?}");
    }
    let open: u32 = set
        .slots()
        .iter()
        .filter(|s| s.extensible)
        .map(|s| s.procs)
        .sum();
    assert_eq!(open, 6);
}
