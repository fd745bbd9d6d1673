//! The spec's worked examples (Castillo ch. 3, fixtures F3.1–F3.3) replayed against the
//! reference `LinearIndex` and every tree index.

use gridsched_geom::{
    EndStripIndex, IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StartStripIndex, StripGeometry,
    StripOrder, TreeConfig, TreeIndex, Window,
};

const MIN_LIP_STEP2: Rule = Rule::LatestStartBeforeReady {
    skip_ready_strip: false,
};
const MIN_LIP_STEP2_LITERAL: Rule = Rule::LatestStartBeforeReady {
    skip_ready_strip: true,
};
const MIN_TIP_MIRROR: Rule = Rule::LongestInEndStrip {
    order: StripOrder::LatestFirst,
};
const MIN_TIP_EARLIEST: Rule = Rule::LongestInEndStrip {
    order: StripOrder::EarliestFirst,
};

/// Every index kind over the same periods, clock at 0 (l_min = 1, w = 2, L = 200).
fn indexes(periods: &[IdlePeriod]) -> Vec<(&'static str, Box<dyn IdlePeriodIndex>)> {
    let geometry = StripGeometry::for_min_length(1.0, 1);
    let config = TreeConfig::new(geometry, 200.0);
    let mut out: Vec<(&'static str, Box<dyn IdlePeriodIndex>)> = vec![
        ("linear", Box::new(LinearIndex::new(geometry))),
        ("start", Box::new(StartStripIndex::with_best_fit(config))),
        (
            "start without best-fit",
            Box::new(StartStripIndex::new(config)),
        ),
        ("end", Box::new(EndStripIndex::new(config))),
        ("tree", Box::new(TreeIndex::with_all_rules(config))),
        (
            "tree for min-lip",
            Box::new(TreeIndex::new(
                config,
                &[Rule::LongestInFirstStartStrip, MIN_LIP_STEP2],
            )),
        ),
    ];
    for (_, ix) in &mut out {
        for p in periods {
            ix.insert(*p);
        }
        ix.advance(0.0);
    }
    out
}

fn expect(
    ixs: &mut [(&'static str, Box<dyn IdlePeriodIndex>)],
    w: &Window,
    rule: Rule,
    want: Option<IdlePeriod>,
) {
    for (name, ix) in ixs.iter_mut() {
        assert_eq!(ix.select(rule, w), want, "{name}: {rule:?}");
    }
}

/// Places the job at `sigma` inside `chosen` in every index (fragments kept iff >= l_min = 1).
fn carve(
    ixs: &mut [(&'static str, Box<dyn IdlePeriodIndex>)],
    chosen: IdlePeriod,
    sigma: f64,
    length: f64,
) {
    for (name, ix) in ixs.iter_mut() {
        assert!(ix.remove(&chosen), "{name} lost {chosen}");
        if sigma - chosen.start >= 1.0 {
            ix.insert(IdlePeriod::new(chosen.start, sigma, chosen.server));
        }
        if chosen.end - (sigma + length) >= 1.0 {
            ix.insert(IdlePeriod::new(sigma + length, chosen.end, chosen.server));
        }
    }
}

fn same_periods(ixs: &[(&'static str, Box<dyn IdlePeriodIndex>)], want: &[IdlePeriod]) {
    for (name, ix) in ixs {
        assert_eq!(ix.periods(), want, "{name}");
    }
}

#[test]
fn f3_1_immediate_deadline() {
    let y = IdlePeriod::new(5.0, 9.0, 0);
    let periods = [
        IdlePeriod::new(1.0, 3.0, 0),
        y,
        IdlePeriod::tail(11.0, 0),
        IdlePeriod::new(2.0, 4.0, 1),
        IdlePeriod::new(7.0, 8.0, 1),
        IdlePeriod::tail(10.0, 1),
    ];
    let mut ixs = indexes(&periods);
    let w = Window::new(6.0, 2.0, 8.0).unwrap();
    // Only Y completely contains P = (6, 8): first-fit, Best-fit, Min-LIP (step 1 empty,
    // step 2 finds Y in strip 2), Max-LIP and Min-TIP (step 1 empty, step 2) all choose it.
    expect(&mut ixs, &w, Rule::EarliestFeasible, Some(y));
    expect(&mut ixs, &w, Rule::ShortestFeasible, Some(y));
    expect(&mut ixs, &w, Rule::LongestInFirstStartStrip, None);
    expect(&mut ixs, &w, Rule::EarliestStartFromReady, None);
    expect(&mut ixs, &w, MIN_LIP_STEP2, Some(y));
    expect(&mut ixs, &w, MIN_LIP_STEP2_LITERAL, Some(y));
    expect(&mut ixs, &w, Rule::EarliestStartBeforeReady, Some(y));
    expect(&mut ixs, &w, MIN_TIP_MIRROR, None);
    expect(&mut ixs, &w, MIN_TIP_EARLIEST, None);
    expect(&mut ixs, &w, Rule::EarliestEndAfterDeadline, Some(y));
    expect(&mut ixs, &w, Rule::LatestEndAfterDeadline, Some(y));
    // Placement at sigma = 6 leaves [5, 6) and [8, 9), both of length 1: kept.
    carve(&mut ixs, y, 6.0, 2.0);
    same_periods(
        &ixs,
        &[
            IdlePeriod::new(1.0, 3.0, 0),
            IdlePeriod::new(2.0, 4.0, 1),
            IdlePeriod::new(5.0, 6.0, 0),
            IdlePeriod::new(7.0, 8.0, 1),
            IdlePeriod::new(8.0, 9.0, 0),
            IdlePeriod::tail(10.0, 1),
            IdlePeriod::tail(11.0, 0),
        ],
    );
}

const Y: IdlePeriod = IdlePeriod::new(5.0, 9.5, 0);
const V: IdlePeriod = IdlePeriod::new(6.2, 8.5, 1);
const Z: IdlePeriod = IdlePeriod::new(7.5, 9.4, 2);

fn f3_2_periods(z: IdlePeriod) -> Vec<IdlePeriod> {
    vec![
        IdlePeriod::new(1.0, 3.0, 0),
        Y,
        IdlePeriod::tail(11.0, 0),
        V,
        IdlePeriod::tail(12.5, 1),
        z,
        IdlePeriod::tail(14.0, 2),
    ]
}

#[test]
fn f3_2_general_deadline() {
    let mut ixs = indexes(&f3_2_periods(Z));
    let w = Window::new(6.5, 1.5, 12.0).unwrap();
    // Min-LIP step 1 must return Z: a literal O(1) max-length test in strip p = 3 would pick
    // V, an R1 period (A8).
    expect(&mut ixs, &w, Rule::LongestInFirstStartStrip, Some(Z));
    expect(&mut ixs, &w, Rule::EarliestStartFromReady, Some(Z));
    expect(&mut ixs, &w, Rule::ShortestFeasible, Some(Z));
    expect(&mut ixs, &w, Rule::EarliestFeasible, Some(Y));
    expect(&mut ixs, &w, Rule::EarliestStartBeforeReady, Some(Y));
    expect(&mut ixs, &w, MIN_LIP_STEP2, Some(V));
    expect(&mut ixs, &w, MIN_LIP_STEP2_LITERAL, Some(Y));
    // Min-TIP mirror: all three feasible periods end in vertical strip 4; the longest is Y.
    expect(&mut ixs, &w, MIN_TIP_MIRROR, Some(Y));
    expect(&mut ixs, &w, MIN_TIP_EARLIEST, Some(Y));
    // Min-LIP places Z at 7.5; its trailing fragment [9.0, 9.4) is discarded.
    carve(&mut ixs, Z, 7.5, 1.5);
    let mut want = f3_2_periods(Z);
    want.retain(|p| *p != Z);
    want.sort_by(IdlePeriod::cmp_start);
    same_periods(&ixs, &want);
}

#[test]
fn f3_2b_min_lip_step_two_readings() {
    let z = IdlePeriod::new(7.5, 8.9, 2); // 1.4 < 1.5: infeasible
    let mut ixs = indexes(&f3_2_periods(z));
    let w = Window::new(6.5, 1.5, 12.0).unwrap();
    expect(&mut ixs, &w, Rule::LongestInFirstStartStrip, None);
    expect(&mut ixs, &w, MIN_LIP_STEP2, Some(V)); // default: step 2 starts at strip p
    expect(&mut ixs, &w, MIN_LIP_STEP2_LITERAL, Some(Y)); // literal: starts at T_{p-1}
    expect(&mut ixs, &w, Rule::ShortestFeasible, Some(V));
    expect(&mut ixs, &w, Rule::EarliestFeasible, Some(Y));
    // Min-LIP into V at 6.5: both fragments (0.3 and 0.5) are discarded.
    carve(&mut ixs, V, 6.5, 1.5);
    let mut want = f3_2_periods(z);
    want.retain(|p| *p != V);
    want.sort_by(IdlePeriod::cmp_start);
    same_periods(&ixs, &want);
}

#[test]
fn f3_2c_boundary_strip_guard() {
    let periods = [IdlePeriod::new(1.0, 3.0, 0), Y, IdlePeriod::tail(11.0, 0)];
    let mut ixs = indexes(&periods);
    let w = Window::new(9.0, 1.5, 12.2).unwrap();
    // Y fails (10.5 > 9.5) and the tail fails (11 + 1.5 > 12.2): every rule drops the job.
    // A literal O(1) max-length test in strip p' = 5 would return the tail.
    for rule in [
        Rule::EarliestFeasible,
        Rule::ShortestFeasible,
        Rule::LongestInFirstStartStrip,
        Rule::EarliestStartFromReady,
        MIN_LIP_STEP2,
        MIN_LIP_STEP2_LITERAL,
        Rule::EarliestStartBeforeReady,
        MIN_TIP_MIRROR,
        MIN_TIP_EARLIEST,
        Rule::EarliestEndAfterDeadline,
        Rule::LatestEndAfterDeadline,
    ] {
        expect(&mut ixs, &w, rule, None);
    }
}

#[test]
fn f3_3_per_strip_tree_query() {
    // The strip [2, 4) of Fig. 3.3; Y and Z share the start 2.8.
    let x = IdlePeriod::new(2.0, 6.2, 1);
    let y = IdlePeriod::new(2.8, 6.5, 2);
    let z = IdlePeriod::new(2.8, 9.0, 3);
    let v = IdlePeriod::new(3.4, 7.5, 4);
    let mut ixs = indexes(&[x, y, z, v]);
    // r = 4.5, l = 2: E = 6.5 = e_2, an inclusive tie (Y may be feasible).
    let w = Window::new(4.5, 2.0, 6.5).unwrap();
    expect(&mut ixs, &w, MIN_LIP_STEP2, Some(v));
    expect(&mut ixs, &w, Rule::ShortestFeasible, Some(y)); // 3.7 < 4.1 < 6.2; X infeasible
    expect(&mut ixs, &w, Rule::EarliestFeasible, Some(y)); // tie with Z broken by server
    expect(&mut ixs, &w, Rule::EarliestStartBeforeReady, Some(y));
    // Min-LIP into V at 4.5: leading [3.4, 4.5) stays in this strip, trailing [6.5, 7.5)
    // goes to strip 3.
    carve(&mut ixs, v, 4.5, 2.0);
    same_periods(
        &ixs,
        &[
            x,
            y,
            z,
            IdlePeriod::new(3.4, 4.5, 4),
            IdlePeriod::new(6.5, 7.5, 4),
        ],
    );
}

/// The scheduler keeps its index as `Box<dyn IdlePeriodIndex + Send>`.
#[test]
fn tree_indexes_are_send() {
    fn boxed<T: IdlePeriodIndex + Send + 'static>(t: T) -> Box<dyn IdlePeriodIndex + Send> {
        Box::new(t)
    }
    let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 4), 200.0);
    let all = [
        boxed(StartStripIndex::with_best_fit(config)),
        boxed(EndStripIndex::new(config)),
        boxed(TreeIndex::new(config, &[Rule::EarliestFeasible])),
    ];
    assert!(all.iter().all(|ix| ix.is_empty()));
}
