//! Reading A17: which candidate incr-EG-EDF keeps when its objective scores two alike.
//!
//! A job's weighted work is the same on every machine, so once some other job fixes the
//! predicted makespan, a short job without a deadline scores exactly alike on every machine
//! where it neither extends the makespan nor changes a deadline count. Algorithm 1's strict
//! `weight > 0` then keeps the first such machine in the list; `EarliestCompletion` keeps the
//! one where the job completes first.

use gridsched_batch::{Machine, Platform};
use gridsched_schedule_based::{Config, GridSchedule, JobInfo, TieBreak, accept, weight};

fn job(index: u32, run: i64, deadline: Option<i64>) -> JobInfo {
    JobInfo {
        index,
        id: u64::from(index) + 1,
        release: 0,
        procs: 1,
        run,
        deadline,
    }
}

/// Three one-CPU machines listed slow, fast, medium (speeds 100, 400, 200; reference 200).
fn platform() -> Platform {
    let m = |speed| Machine { cpus: 1, speed };
    Platform::grid(vec![m(100), m(400), m(200)], 200).unwrap()
}

/// Places a long job (it goes to the fast machine, which makes the makespan shortest), then a
/// short one; returns the short job's machine and the number of tied placements.
fn place_short_after_long(tie_break: TieBreak) -> (usize, u64) {
    let config = Config {
        tie_break,
        ..Config::default()
    };
    let mut g = GridSchedule::new(platform(), config, 0);
    let long = g.insert_eg_edf(&job(0, 1_000_000, None), 0);
    assert_eq!(
        long, 1,
        "the long job takes the fast machine: shortest makespan"
    );
    let before = g.work.tied_placements;
    let short = g.insert_eg_edf(&job(1, 100, None), 0);
    (short, g.work.tied_placements - before)
}

#[test]
fn list_order_keeps_the_first_of_equal_candidates() {
    // Slow machine 0 (ends at 200) and medium machine 2 (ends at 100) score alike: neither moves
    // the makespan (500,000 on machine 1) and the job has no deadline. Machine 1 itself would
    // extend the makespan.
    let (m, tied) = place_short_after_long(TieBreak::ListOrder);
    assert_eq!(
        m, 0,
        "Algorithm 1 to the letter: the first machine in the list"
    );
    assert_eq!(tied, 1);
}

#[test]
fn earliest_completion_takes_the_machine_that_finishes_first() {
    let (m, tied) = place_short_after_long(TieBreak::EarliestCompletion);
    assert_eq!(
        m, 2,
        "the medium machine completes the job at 100, the slow one at 200"
    );
    assert_eq!(tied, 1);
}

#[test]
fn a_strictly_better_candidate_wins_under_either_reading() {
    // A deadline of 150 is met on machine 2 (end 100) and missed on machine 0 (end 200): the
    // non-delayed count separates them, so no tie-break is involved.
    for tie_break in [TieBreak::ListOrder, TieBreak::EarliestCompletion] {
        let config = Config {
            tie_break,
            ..Config::default()
        };
        let mut g = GridSchedule::new(platform(), config, 0);
        g.insert_eg_edf(&job(0, 1_000_000, None), 0);
        let before = g.work.tied_placements;
        assert_eq!(
            g.insert_eg_edf(&job(1, 100, Some(150)), 0),
            2,
            "{tie_break:?}"
        );
        assert_eq!(g.work.tied_placements, before, "{tie_break:?}: not a tie");
    }
}

#[test]
fn weight_is_the_criterion_the_acceptance_test_applies() {
    use gridsched_schedule_based::Objective;
    let a = Objective {
        usage: 0.5,
        nondelayed: 10.0,
    };
    let b = Objective {
        usage: 0.5,
        nondelayed: 10.0,
    };
    assert_eq!(weight(a, b, 1e-13), 0.0);
    assert!(!accept(Some(a), b, 1e-13), "a tie is rejected (strict)");
    let c = Objective {
        usage: 0.55,
        nondelayed: 9.0,
    };
    // +10 % usage, -10 % non-delayed: exactly zero up to rounding, and not accepted unless
    // positive.
    assert_eq!(accept(Some(a), c, 1e-13), weight(a, c, 1e-13) > 0.0);
}
