//! Chapter 6 (spec §2.12–2.13, §4.2): Figure 33 on stub predictors (singh-ex-var), the QBETS
//! surrogate built from the site's own waits, and the decision table of Figure 45
//! (singh-ex-combined).

use gridsched_batch::Time;
use gridsched_provisioning::var::{
    Combined, DEFAULT_INCREMENT, DEFAULT_PENALTY, MAX_CANDIDATES, StartPredictor, Used, VarError,
    VarOutcome, VarReading, WaitHistory, combine, normalized, plan_var, plan_var_reading,
    var_bound, var_cost,
};
use proptest::prelude::*;

const MIN: Time = 60;
const H: Time = 3600;

/// A stub QBETS whose answers reproduce Figure 36 under the per-candidate reading:
/// `P(w, d) = 1 − exp(−c·d^β / w^α)` (minutes), rising with the deadline `d` and falling with
/// the requested walltime `w`. Along the per-candidate path of a request of duration `D` at
/// 240 min (`w = D + d`) the exponent peaks at `d = D·β/(α − β)`: with `α/β = 19/13` that is
/// 130 min for `D = 60` (submit at 110 min) and 520 min for `D = 240`, beyond the horizon, so
/// the 4 h request is best submitted at once. `c` and `β` are fitted to the two maxima, 0.772
/// and 0.747.
fn thesis_stub() -> impl Fn(u32, Time, Time) -> f64 {
    let l1 = -(1.0 - 0.772f64).ln();
    let l4 = -(1.0 - 0.747f64).ln();
    let r = 19.0 / 13.0;
    let beta = (l4 / l1).ln() / ((240.0 / 130.0) * (190.0f64 / 480.0).powf(r)).ln();
    let alpha = r * beta;
    let c = l1 * 190f64.powf(alpha) / 130f64.powf(beta);
    move |_nodes, w, d| {
        if w <= 0 || d <= 0 {
            return 0.0;
        }
        let (w, d) = (w as f64 / 60.0, d as f64 / 60.0);
        1.0 - (-c * d.powf(beta) / w.powf(alpha)).exp()
    }
}

/// singh-ex-var: "submit at 110 min with a walltime of 190 min" and "submit at 0 with 480".
#[test]
fn thesis_example_per_candidate() {
    let stub = thesis_stub();
    let one = plan_var(&stub, 0, 32, 60 * MIN, 240 * MIN, DEFAULT_INCREMENT).unwrap();
    assert_eq!(one.submit, 110 * MIN);
    assert_eq!(one.run_time, 190 * MIN);
    assert!(
        (one.probability - 0.772).abs() < 1e-9,
        "{}",
        one.probability
    );

    let four = plan_var(&stub, 0, 32, 240 * MIN, 240 * MIN, DEFAULT_INCREMENT).unwrap();
    assert_eq!(four.submit, 0);
    assert_eq!(four.run_time, 480 * MIN);
    assert!(
        (four.probability - 0.747).abs() < 1e-9,
        "{}",
        four.probability
    );

    // Only differences of times matter.
    let now = 1_234_567;
    let shifted = plan_var(&stub, now, 32, 60 * MIN, now + 240 * MIN, 30).unwrap();
    assert_eq!(shifted.submit, now + 110 * MIN);
    assert_eq!(shifted.run_time, 190 * MIN);
}

/// The printed Figure 33 keeps the walltime padded from `now`: on the same stub, only the
/// shrinking deadline changes, so the 1 h request is submitted at once with 300 min.
#[test]
fn thesis_example_as_printed() {
    let stub = thesis_stub();
    let one = plan_var_reading(
        &stub,
        VarReading::AsPrinted,
        0,
        32,
        60 * MIN,
        240 * MIN,
        DEFAULT_INCREMENT,
    )
    .unwrap();
    assert_eq!((one.submit, one.run_time), (0, 300 * MIN));
    let four = plan_var_reading(
        &stub,
        VarReading::AsPrinted,
        0,
        32,
        240 * MIN,
        240 * MIN,
        DEFAULT_INCREMENT,
    )
    .unwrap();
    assert_eq!((four.submit, four.run_time), (0, 480 * MIN));
    assert_eq!(VarReading::default(), VarReading::PerCandidate);
}

#[test]
fn plan_var_ties_and_zeros() {
    // Constant probability: the first candidate.
    let flat = |_: u32, _: Time, _: Time| 0.5;
    let p = plan_var(&flat, 100, 4, H, 100 + H, 30).unwrap();
    assert_eq!((p.submit, p.run_time, p.probability), (100, 2 * H, 0.5));
    // Nothing ever starts: submit now with probability 0.
    let never = |_: u32, _: Time, _: Time| 0.0;
    let p = plan_var(&never, 0, 4, H, H, 30).unwrap();
    assert_eq!((p.submit, p.probability), (0, 0.0));
    // The last candidate is the last grid point before `start`, not `start` itself.
    let late = |_: u32, _: Time, d: Time| if d <= 30 { 1.0 } else { 0.0 };
    let p = plan_var(&late, 0, 1, 60, 100, 30).unwrap();
    assert_eq!((p.submit, p.run_time), (90, 70));
    // A single candidate when the increment exceeds the lead time.
    let p = plan_var(&flat, 0, 1, 60, 10, 30).unwrap();
    assert_eq!((p.submit, p.run_time), (0, 70));
    // A `dyn` predictor works too.
    let dynamic: &dyn StartPredictor = &flat;
    assert_eq!(plan_var(dynamic, 0, 1, 60, 10, 30).unwrap().submit, 0);
}

#[test]
fn plan_var_rejects_bad_input() {
    let flat = |_: u32, _: Time, _: Time| 0.5;
    assert_eq!(
        plan_var(&flat, 10, 1, 60, 10, 30),
        Err(VarError::NotInFuture { now: 10, start: 10 })
    );
    assert_eq!(
        plan_var(&flat, 10, 1, 60, 5, 30),
        Err(VarError::NotInFuture { now: 10, start: 5 })
    );
    assert_eq!(
        plan_var(&flat, 0, 1, 60, 100, 0),
        Err(VarError::BadIncrement(0))
    );
    assert_eq!(
        plan_var(&flat, 0, 1, 60, 100, -30),
        Err(VarError::BadIncrement(-30))
    );
    assert_eq!(plan_var(&flat, 0, 0, 60, 100, 30), Err(VarError::NoNodes));
    assert_eq!(
        plan_var(&flat, 0, 1, 0, 100, 30),
        Err(VarError::BadWalltime(0))
    );
    assert_eq!(
        plan_var(&flat, 0, 1, -5, 100, 30),
        Err(VarError::BadWalltime(-5))
    );
    assert!(matches!(
        plan_var(&flat, 0, 1, 60, Time::MAX, 1),
        Err(VarError::TooManyCandidates {
            max: MAX_CANDIDATES,
            ..
        })
    ));
    assert_eq!(
        plan_var(&flat, Time::MIN, 1, 60, Time::MAX, Time::MAX),
        Err(VarError::Overflow)
    );
    assert_eq!(
        plan_var(&flat, 0, 1, Time::MAX, 100, 30),
        Err(VarError::Overflow)
    );
    let nan = |_: u32, _: Time, _: Time| f64::NAN;
    assert!(matches!(
        plan_var(&nan, 0, 1, 60, 100, 30),
        Err(VarError::BadProbability { at: 0, .. })
    ));
    let big = |_: u32, _: Time, d: Time| if d < 50 { 1.5 } else { 0.1 };
    assert!(matches!(
        plan_var(&big, 0, 1, 60, 100, 30),
        Err(VarError::BadProbability { at: 60, .. })
    ));
}

/// Figure 33 by brute force: every candidate, the first maximum.
fn oracle(
    pred: &dyn Fn(u32, Time, Time) -> f64,
    reading: VarReading,
    now: Time,
    nodes: u32,
    wall: Time,
    start: Time,
    inc: Time,
) -> (Time, Time, f64) {
    let cands: Vec<Time> = (0..)
        .map(|k| now + k * inc)
        .take_while(|&t| t < start)
        .collect();
    let probs: Vec<f64> = cands
        .iter()
        .map(|&t| {
            let w = match reading {
                VarReading::PerCandidate => wall + (start - t),
                VarReading::AsPrinted => wall + (start - now),
            };
            pred(nodes, w, start - t)
        })
        .collect();
    let max = probs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let k = probs.iter().position(|&p| p == max).unwrap();
    let run = match reading {
        VarReading::PerCandidate => wall + (start - cands[k]),
        VarReading::AsPrinted => wall + (start - now),
    };
    (cands[k], run, max)
}

/// Random inputs of Figure 45: a price (none, free, finite or ∞), a penalty, a node count, a
/// reservation start and a VAR job submitted before it that starts before or after it, or never.
fn outcome_strategy() -> impl Strategy<Value = (Option<f64>, f64, u32, Time, VarOutcome)> {
    (
        prop_oneof![
            Just(None),
            Just(Some(0.0)),
            (0.0f64..2000.0).prop_map(Some),
            Just(Some(f64::INFINITY)),
        ],
        prop_oneof![Just(DEFAULT_PENALTY), 0.0f64..1.5],
        1u32..256,
        0 as Time..100_000,
        0 as Time..50_000,
        prop::option::of(0 as Time..60_000),
    )
        .prop_map(|(f, p, n, lead, before, delay)| {
            let start = 1_000_000 + lead;
            let submitted = start - before - 1;
            (
                f,
                p,
                n,
                start,
                VarOutcome {
                    submitted,
                    started: delay.map(|d| submitted + d),
                },
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// plan_var equals the brute-force first argmax on random tabulated predictors (with
    /// ties), under both readings; the plan's submit time and run time are as Figure 33 says.
    #[test]
    fn plan_var_matches_oracle(
        table in prop::collection::vec(prop_oneof![Just(0.0), Just(0.25), Just(0.5), 0.0f64..=1.0], 1..40),
        now in -1_000_000 as Time..1_000_000,
        ahead in 1 as Time..20_000,
        inc in 1 as Time..2_000,
        wall in 1 as Time..20_000,
        nodes in 1u32..128,
    ) {
        let len = table.len() as i64;
        let pred = move |n: u32, w: Time, d: Time| {
            table[(w.wrapping_mul(31).wrapping_add(d.wrapping_mul(17)).wrapping_add(n as i64))
                .rem_euclid(len) as usize]
        };
        let start = now + ahead;
        for reading in [VarReading::PerCandidate, VarReading::AsPrinted] {
            let plan = plan_var_reading(&pred, reading, now, nodes, wall, start, inc).unwrap();
            let (submit, run, p) = oracle(&pred, reading, now, nodes, wall, start, inc);
            prop_assert_eq!((plan.submit, plan.run_time, plan.probability), (submit, run, p));
            prop_assert!(now <= plan.submit && plan.submit < start);
            prop_assert_eq!((plan.submit - now) % inc, 0);
            if reading == VarReading::PerCandidate {
                prop_assert_eq!(plan.run_time, wall + (start - plan.submit));
            }
        }
    }

    /// Figure 45 never costs more than the adaptive reservation when that is feasible, and
    /// fails only when both mechanisms fail.
    #[test]
    fn combined_dominates_adaptive((f, p, n, s, var) in outcome_strategy()) {
        let c = combine(f, p, n, s, var).unwrap();
        let feasible = f.filter(|f| f.is_finite());
        prop_assert_eq!(c.adaptive_ok, feasible.is_some());
        prop_assert_eq!(c.var_ok, var.succeeded(s));
        prop_assert_eq!(c.succeeded(), c.adaptive_ok || c.var_ok);
        prop_assert_eq!(c.cost.is_some(), c.succeeded());
        if let Some(f) = feasible {
            prop_assert!(c.cost.unwrap() <= f);
        }
        let padding = var.started.and_then(|t2| var_cost(n, s, t2));
        match c.used {
            Used::Adaptive => prop_assert_eq!(c.cost, feasible),
            Used::Var => prop_assert_eq!(c.cost, Some(padding.unwrap() + p * feasible.unwrap())),
            Used::VarOnly => {
                prop_assert!(feasible.is_none());
                prop_assert_eq!(c.cost, padding);
            }
            Used::Failed => prop_assert!(feasible.is_none() && !var.succeeded(s)),
        }
        prop_assert_eq!(c.var_submitted, feasible != Some(0.0));
    }

    /// The normalized VAR cost is (S − T2)/D and never exceeds eq. 22's (S − T)/D.
    #[test]
    fn var_cost_bound(
        nodes in 1u32..512,
        lead in 1 as Time..10 * H,
        dur in 1 as Time..10 * H,
        frac in 0.0f64..=1.0,
    ) {
        let (now, start) = (5 * H, 5 * H + lead);
        let t2 = now + (lead as f64 * frac) as Time;
        let cost = var_cost(nodes, start, t2).unwrap();
        let norm = normalized(cost, nodes, dur).unwrap();
        prop_assert!((norm - (start - t2) as f64 / dur as f64).abs() < 1e-9);
        prop_assert!(norm <= var_bound(now, start, dur).unwrap() + 1e-9);
    }
}

/// singh-ex-combined: every branch of Figure 45 with p = 0.1, 32 nodes, s = 4 h, by hand.
#[test]
fn figure_45_decision_table() {
    let (n, s) = (32, 4 * H);
    let started = |t2: Time| VarOutcome {
        submitted: s - 2 * H,
        started: Some(t2),
    };
    let stalled = VarOutcome {
        submitted: s - 2 * H,
        started: None,
    };
    let run = |f: Option<f64>, v: VarOutcome| combine(f, DEFAULT_PENALTY, n, s, v).unwrap();

    // f = 0: the free reservation, VAR never submitted (whatever it would have done).
    let c = run(Some(0.0), started(s - 30 * MIN));
    assert_eq!(
        c,
        Combined {
            used: Used::Adaptive,
            adaptive_ok: true,
            var_submitted: false,
            var_ok: true,
            cost: Some(0.0),
        }
    );
    // f = ∞, VAR started 30 min early: VAR only, 0.5 h × 32 = 16 SU.
    let c = run(None, started(s - 30 * MIN));
    assert_eq!(
        (c.used, c.cost, c.adaptive_ok),
        (Used::VarOnly, Some(16.0), false)
    );
    assert_eq!(run(Some(f64::INFINITY), started(s - 30 * MIN)), c);
    // f = ∞, VAR not started by s (or only after s): both fail.
    let c = run(None, stalled);
    assert_eq!((c.used, c.cost, c.succeeded()), (Used::Failed, None, false));
    assert_eq!(run(None, started(s + 1)).used, Used::Failed);
    // f = 20, VAR not started by s: keep the adaptive reservation, 20 SU.
    let c = run(Some(20.0), stalled);
    assert_eq!(
        (c.used, c.cost, c.var_ok),
        (Used::Adaptive, Some(20.0), false)
    );
    assert_eq!(run(Some(20.0), started(s + 60)).cost, Some(20.0));
    // f = 20, VAR idle 30 min: 16 + 0.1·20 = 18 ≤ 20, VAR kept.
    let c = run(Some(20.0), started(s - 30 * MIN));
    assert_eq!((c.used, c.cost), (Used::Var, Some(18.0)));
    // f = 20, VAR idle 45 min: 24 + 2 = 26 > 20, adaptive kept.
    let c = run(Some(20.0), started(s - 45 * MIN));
    assert_eq!((c.used, c.cost), (Used::Adaptive, Some(20.0)));
    // Tie: idle 2025 s = 18 SU, 18 + 2 = 20 ≤ 20, VAR kept.
    let c = run(Some(20.0), started(s - 2025));
    assert_eq!((c.used, c.cost), (Used::Var, Some(20.0)));
    // VAR started exactly at s: no padding, only the penalty.
    let c = run(Some(20.0), started(s));
    assert_eq!((c.used, c.cost), (Used::Var, Some(2.0)));

    // Normalized by n·D with D = 1 h: 18 SU / 32 SU.
    assert_eq!(normalized(18.0, n, H), Ok(0.5625));
    // Plain VAR: (S − T2)·n.
    assert_eq!(var_cost(n, s, s - 30 * MIN), Some(16.0));
    assert_eq!(var_cost(n, s, s + 1), None);
    assert_eq!(var_bound(0, s, H), Ok(4.0));
}

#[test]
fn combine_rejects_bad_input() {
    let v = VarOutcome {
        submitted: 0,
        started: Some(10),
    };
    assert_eq!(combine(Some(1.0), 0.1, 0, 100, v), Err(VarError::NoNodes));
    assert_eq!(
        combine(Some(-1.0), 0.1, 4, 100, v),
        Err(VarError::BadPrice(-1.0))
    );
    assert!(matches!(
        combine(Some(f64::NAN), 0.1, 4, 100, v),
        Err(VarError::BadPrice(_))
    ));
    assert_eq!(
        combine(Some(1.0), -0.1, 4, 100, v),
        Err(VarError::BadPenalty(-0.1))
    );
    assert!(matches!(
        combine(Some(1.0), f64::NAN, 4, 100, v),
        Err(VarError::BadPenalty(_))
    ));
    let early = VarOutcome {
        submitted: 50,
        started: Some(10),
    };
    assert_eq!(
        combine(Some(1.0), 0.1, 4, 100, early),
        Err(VarError::StartedBeforeSubmit {
            submitted: 50,
            started: 10
        })
    );
    assert_eq!(normalized(1.0, 0, H), Err(VarError::NoNodes));
    assert_eq!(normalized(1.0, 4, 0), Err(VarError::BadDuration(0)));
    assert_eq!(var_bound(0, H, -1), Err(VarError::BadDuration(-1)));
    assert_eq!(
        var_bound(H, 0, H),
        Err(VarError::NotInFuture { now: H, start: 0 })
    );
}

#[test]
fn history_never_peeks() {
    let mut h = WaitHistory::new();
    h.record(0, 32, H, 500).unwrap();
    h.record(1000, 32, H, 0).unwrap();
    // Before the first job starts nothing is known.
    assert_eq!(h.probability_at(499, 32, H, 10 * H), 0.0);
    assert_eq!(h.at(499).samples(), 0);
    assert_eq!(h.at(499).probability(32, H, 10 * H), 0.0);
    // From its start on, its wait is.
    assert_eq!(h.probability_at(500, 32, H, 500), 1.0);
    assert_eq!(h.probability_at(500, 32, H, 499), 0.0);
    // The second job is not used before it is submitted (and started).
    assert_eq!(h.at(999).samples(), 1);
    assert_eq!(h.at(1000).samples(), 2);
    assert_eq!(h.probability_at(1000, 32, H, 0), 0.5);
    assert_eq!(h.at(1000).probability(32, H, 0), 0.5);
}

#[test]
fn history_window() {
    let mut h = WaitHistory::with(100, 1);
    h.record(0, 8, H, 0).unwrap();
    assert_eq!(h.at(100).samples(), 1);
    assert_eq!(h.probability_at(100, 8, H, 0), 1.0);
    assert_eq!(h.at(101).samples(), 0);
    assert_eq!(h.probability_at(101, 8, H, 0), 0.0);
    // Default: 7 days back.
    let mut d = WaitHistory::default();
    d.record(-7 * 24 * H, 1, 60, 0).unwrap();
    d.record(-7 * 24 * H - 1, 1, 60, 0).unwrap();
    assert_eq!(d.at(0).samples(), 1);
    assert_eq!(d.len(), 2);
    assert!(!d.is_empty());
    // A negative window holds nothing.
    let mut n = WaitHistory::with(-5, 1);
    n.record(0, 1, 60, 0).unwrap();
    assert_eq!(n.at(10).samples(), 0);
}

#[test]
fn history_widens_thin_classes() {
    let mut h = WaitHistory::with(10 * 24 * H, 3);
    // Class (32–63 nodes, 1 h): three immediate starts.
    for k in 0..3 {
        h.record(k, 32 + 10 * k as u32, H, 0).unwrap();
    }
    // Class (32–63, 4 h): one long wait.
    h.record(10, 40, 4 * H, 1000).unwrap();
    // Class (1, 1 h): two waits of 50 s.
    h.record(20, 1, H, 50).unwrap();
    h.record(21, 1, H + 5, 50).unwrap();
    let now = 2 * H;
    let snap = h.at(now);
    for (nodes, wall, deadline, p) in [
        // A full class answers for itself; 63 nodes is still 32's bucket.
        (32, H, 0, 1.0),
        (63, H, 0, 1.0),
        // Thin (32, 4 h): the 32-node bucket, 3 of 4 immediate.
        (32, 4 * H, 0, 0.75),
        (32, 4 * H, 1000, 1.0),
        // Thin (1, 1 h) and a thin 1-node bucket: every record, 3 of 6.
        (1, H, 0, 0.5),
        (1, H, 50, 5.0 / 6.0),
        // An unseen bucket (64 nodes): every record.
        (64, H, 0, 0.5),
    ] {
        assert_eq!(
            h.probability_at(now, nodes, wall, deadline),
            p,
            "{nodes} {wall} {deadline}"
        );
        assert_eq!(
            snap.probability(nodes, wall, deadline),
            p,
            "{nodes} {wall} {deadline}"
        );
    }
    assert_eq!(WaitHistory::new().at(0).probability(32, H, H), 0.0);
}

#[test]
fn history_rejects_bad_records() {
    let mut h = WaitHistory::new();
    assert_eq!(h.record(0, 0, H, 0), Err(VarError::NoNodes));
    assert_eq!(h.record(0, 1, 0, 0), Err(VarError::BadWalltime(0)));
    assert_eq!(h.record(0, 1, H, -1), Err(VarError::NegativeWait(-1)));
    assert_eq!(h.record(Time::MAX, 1, H, 1), Err(VarError::Overflow));
    assert!(h.is_empty());
}

/// The walltime classes make a later submission likelier (Figure 36 left, spec §4.2): on a
/// site where 32-node jobs requesting under 4096 s (the [2048, 4096) bucket) start at once and
/// longer ones wait 10 h, a 1 h reservation 4 h ahead is submitted as soon as its padded
/// walltime drops below 4096 s.
#[test]
fn surrogate_peaks_later_through_walltime() {
    let mut h = WaitHistory::new();
    for k in 0..10 {
        h.record(k * 60, 32, H, 0).unwrap();
        h.record(k * 60, 32, 5 * H, 10 * H).unwrap();
    }
    let now = 12 * H;
    let snap = h.at(now);
    let plan = plan_var(&snap, now, 32, H, now + 4 * H, DEFAULT_INCREMENT).unwrap();
    // H + (4 H − t) < 4096 ⇔ t > 13 904 s: the next 30 s point is 13 920.
    assert_eq!(plan.submit, now + 13_920);
    assert_eq!(plan.run_time, 4080);
    assert_eq!(plan.probability, 1.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The surrogate is non-decreasing in the deadline, the snapshot answers as the scan, and
    /// both equal a from-scratch recount that uses only records in the window and started.
    #[test]
    fn history_properties(
        recs in prop::collection::vec((0 as Time..20 * H, 1u32..200, 60 as Time..40 * H, 0 as Time..10 * H), 0..120),
        now in 0 as Time..30 * H,
        window in 1 as Time..30 * H,
        min_samples in 0usize..12,
        nodes in 1u32..200,
        wall in 60 as Time..40 * H,
        deadlines in prop::collection::vec(-H..12 * H, 1..8),
    ) {
        let mut h = WaitHistory::with(window, min_samples);
        for &(s, n, w, q) in &recs {
            h.record(s, n, w, q).unwrap();
        }
        prop_assert!(h.records().windows(2).all(|p| p[0].submit <= p[1].submit));
        let snap = h.at(now);
        let mut ds = deadlines.clone();
        ds.sort_unstable();
        let mut last = 0.0;
        for &d in &ds {
            let p = h.probability_at(now, nodes, wall, d);
            prop_assert_eq!(p, snap.probability(nodes, wall, d));
            prop_assert!((0.0..=1.0).contains(&p));
            prop_assert!(p >= last);
            last = p;
            // Recount.
            let usable: Vec<_> = recs
                .iter()
                .filter(|&&(s, _, _, q)| now - window <= s && s + q <= now)
                .collect();
            let b = |x: i64| (x as u64).ilog2();
            let class: Vec<_> = usable.iter().filter(|r| b(r.1 as i64) == b(nodes as i64) && b(r.2) == b(wall)).collect();
            let node: Vec<_> = usable.iter().filter(|r| b(r.1 as i64) == b(nodes as i64)).collect();
            let frac = |v: &[&&(Time, u32, Time, Time)]| {
                if v.is_empty() { 0.0 } else { v.iter().filter(|r| r.3 <= d).count() as f64 / v.len() as f64 }
            };
            let all: Vec<_> = usable.iter().collect();
            let enough = min_samples.max(1);
            let want = if class.len() >= enough {
                frac(&class)
            } else if node.len() >= enough {
                frac(&node)
            } else {
                frac(&all)
            };
            prop_assert_eq!(p, want);
        }
    }
}
