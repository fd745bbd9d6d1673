//! The tree index and the linear reference index make the *same* decision (server, start) for
//! every request, for every strategy and interpretation switch, on random streams covering
//! n ∈ {1, 2, 20, 500}, q ∈ {0, 0.1, 1}, loads 0.3–1.2, M ∈ {1, 4} and both expiry modes.
//! At least 10^5 requests per strategy.

use gridsched_geom::{ExpiryMode, StripOrder};
use gridsched_reservation::{
    IndexKind, MinTipReading, R2Pick, ReservationScheduler, SchedulerConfig, Step2Start, Strategy,
};
use gridsched_sim::StreamKey;
use gridsched_workload::ReservationWorkload;

/// (servers, load, tightness, requests)
const CASES: [(u32, f64, f64, usize); 9] = [
    (1, 0.3, 0.1, 8_000),
    (1, 1.2, 1.0, 8_000),
    (2, 0.6, 0.0, 10_000),
    (2, 0.9, 0.1, 10_000),
    (20, 0.3, 1.0, 12_000),
    (20, 0.9, 0.1, 20_000),
    (20, 1.2, 0.0, 12_000),
    (500, 0.6, 0.1, 12_000),
    (500, 1.1, 1.0, 10_000),
];

fn compare(strategy: Strategy, tweak: impl Fn(&mut SchedulerConfig), label: &str) -> usize {
    let mut decisions = 0;
    for (case, &(servers, load, q, jobs)) in CASES.iter().enumerate() {
        let workload = ReservationWorkload {
            tightness: q,
            ..ReservationWorkload::castillo_ch3(servers, load)
        };
        let make = |index| {
            let mut c = SchedulerConfig::new(servers, strategy);
            c.index = index;
            tweak(&mut c);
            ReservationScheduler::new(c).unwrap()
        };
        let (mut tree, mut linear) = (make(IndexKind::Tree), make(IndexKind::Linear));
        let key = StreamKey::new(17, "identity")
            .point(&format!("{case}"))
            .replication(strategy as u32);
        for (i, r) in workload.stream(&key).unwrap().take(jobs).enumerate() {
            let a = tree.submit(r.arrival, &r.window).unwrap();
            let b = linear.submit(r.arrival, &r.window).unwrap();
            assert_eq!(
                a, b,
                "{label}, case {case} (n={servers}, load={load}, q={q}), request {i}: tree {a:?} vs linear {b:?}"
            );
            decisions += 1;
        }
        assert_eq!(
            tree.idle_periods(),
            linear.idle_periods(),
            "{label}, case {case}: idle periods differ"
        );
    }
    decisions
}

#[test]
fn every_strategy_decides_identically_on_both_indexes() {
    for strategy in Strategy::ALL.into_iter().filter(|s| s.uses_idle_periods()) {
        let n = compare(strategy, |_| {}, strategy.name());
        assert!(n >= 100_000, "{strategy}: only {n} requests compared");
    }
}

#[test]
fn interpretation_switches_decide_identically() {
    type Variant = (Strategy, &'static str, fn(&mut SchedulerConfig));
    let variants: [Variant; 7] = [
        (Strategy::MinTip, "min-tip narrative", |c| {
            c.options.min_tip = MinTipReading::Narrative
        }),
        (Strategy::MinTip, "min-tip earliest end first", |c| {
            c.options.min_tip_step1_order = StripOrder::EarliestFirst
        }),
        (Strategy::MinLip, "min-lip strip above", |c| {
            c.options.step2_start = Step2Start::StripAbove
        }),
        (Strategy::MinLip, "min-lip earliest start", |c| {
            c.options.r2_pick = R2Pick::EarliestStart
        }),
        (Strategy::MinLip, "min-lip M = 4", |c| {
            c.strip_multiplier = 4
        }),
        (Strategy::FirstFit, "first-fit clip expiry", |c| {
            c.expiry = ExpiryMode::Clip
        }),
        (Strategy::BestFit, "best-fit M = 4, clip", |c| {
            c.strip_multiplier = 4;
            c.expiry = ExpiryMode::Clip;
        }),
    ];
    for (strategy, label, tweak) in variants {
        compare(strategy, tweak, label);
    }
}

/// A state taken from a tree-backed scheduler and loaded into a linear one continues identically.
#[test]
fn state_transfer_between_indexes() {
    let workload = ReservationWorkload::castillo_ch3(50, 0.9);
    for strategy in Strategy::ALL {
        let mut stream = workload.stream(&StreamKey::new(3, "transfer")).unwrap();
        let mut config = SchedulerConfig::new(50, strategy);
        let mut warm = ReservationScheduler::new(config).unwrap();
        for r in stream.by_ref().take(5_000) {
            warm.submit(r.arrival, &r.window).unwrap();
        }
        let state = warm.state();
        config.index = IndexKind::Linear;
        let mut linear = ReservationScheduler::from_state(config, &state).unwrap();
        assert_eq!(linear.state(), state, "{strategy}");
        for r in stream.take(3_000) {
            assert_eq!(
                warm.submit(r.arrival, &r.window).unwrap(),
                linear.submit(r.arrival, &r.window).unwrap(),
                "{strategy}"
            );
        }
    }
}
