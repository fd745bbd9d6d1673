//! `Rule::ShortestByLiteralStripQueries` (Best-fit as §3.3.3 of Castillo's thesis searches,
//! strip by strip, without the spec's boundary-strip fixes) against a brute-force oracle that
//! builds the thesis's per-strip sets explicitly and asks each strip its literal queries.

use std::collections::BTreeMap;

use gridsched_geom::{
    ExpiryMode, IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StartStripIndex, StripGeometry,
    StripId, Time, TreeConfig, TreeIndex, Window,
};
use proptest::prelude::*;

const LITERAL: Rule = Rule::ShortestByLiteralStripQueries;

/// (length, start, server): Best-fit's order.
fn by_length(a: &IdlePeriod, b: &IdlePeriod) -> std::cmp::Ordering {
    a.len()
        .total_cmp(&b.len())
        .then(a.start.total_cmp(&b.start))
        .then(a.server.cmp(&b.server))
}

/// The thesis's search, literally: group the live periods by start strip; ask every strip up
/// to the ready time's (`p`) the R1 query (the shortest period ending at or after `r + l`)
/// and every strip from `p` to the latest start's (`p'`) the R2 query (the shortest period of
/// length `>= l`); keep the answers the job fits; return the shortest.
fn oracle(periods: &[IdlePeriod], g: StripGeometry, w: &Window) -> Option<IdlePeriod> {
    let mut strips: BTreeMap<StripId, Vec<IdlePeriod>> = BTreeMap::new();
    for p in periods {
        strips.entry(g.strip_of(p.start)).or_default().push(*p);
    }
    let p = g.strip_of(w.ready);
    let p_last = g.strip_of(w.latest_start).max(p);
    let mut answers = Vec::new();
    for (&strip, set) in &strips {
        let mut sorted = set.clone();
        sorted.sort_by(by_length);
        if strip <= p
            && let Some(a) = sorted.iter().find(|x| x.end >= w.earliest_end)
        {
            answers.push(*a);
        }
        if (p..=p_last).contains(&strip)
            && let Some(a) = sorted.iter().find(|x| x.len() >= w.min_len)
        {
            answers.push(*a);
        }
    }
    answers.retain(|a| w.admits(a));
    answers.into_iter().min_by(by_length)
}

/// The exact Best-fit by brute force.
fn exact(periods: &[IdlePeriod], w: &Window) -> Option<IdlePeriod> {
    periods
        .iter()
        .filter(|p| w.admits(p))
        .copied()
        .min_by(by_length)
}

/// Periods on a grid of `0.1` (ties and boundary cases are frequent): per server, alternating
/// idle and busy stretches from a random first start, the last idle one possibly a tail.
fn schedules() -> impl Strategy<Value = Vec<IdlePeriod>> {
    let server = (
        0u32..60,
        prop::collection::vec((1u32..40, 1u32..40), 0..6),
        any::<bool>(),
    );
    prop::collection::vec(server, 1..12).prop_map(|servers| {
        let mut out = Vec::new();
        for (id, (first, stretches, tail)) in servers.into_iter().enumerate() {
            let mut t = f64::from(first) / 10.0;
            for (idle, busy) in &stretches {
                let end = t + f64::from(*idle) / 10.0;
                out.push(IdlePeriod::new(t, end, id as u32));
                t = end + f64::from(*busy) / 10.0;
            }
            if tail || stretches.is_empty() {
                out.push(IdlePeriod::tail(t, id as u32));
            }
        }
        out
    })
}

fn window() -> impl Strategy<Value = (Time, Time, Time)> {
    (0u32..80, 1u32..40, 0u32..60).prop_map(|(r, l, slack)| {
        let (r, l) = (f64::from(r) / 10.0, f64::from(l) / 10.0);
        (r, l, r + l + f64::from(slack) / 10.0)
    })
}

fn indexes(
    geometry: StripGeometry,
    now: Time,
    periods: &[IdlePeriod],
) -> Vec<(String, Box<dyn IdlePeriodIndex>)> {
    let config = TreeConfig::new(geometry, 200.0).with_expiry(ExpiryMode::Pool);
    let mut out: Vec<(String, Box<dyn IdlePeriodIndex>)> = vec![
        ("linear".into(), Box::new(LinearIndex::new(geometry))),
        (
            "tree for the literal rule".into(),
            Box::new(TreeIndex::new(config, &[LITERAL])),
        ),
        (
            "tree for both Best-fits".into(),
            Box::new(TreeIndex::new(config, &[LITERAL, Rule::ShortestFeasible])),
        ),
        (
            "start strips".into(),
            Box::new(StartStripIndex::with_best_fit(config)),
        ),
    ];
    for (_, ix) in &mut out {
        for p in periods {
            ix.insert(*p);
        }
        ix.advance(now);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn literal_strip_queries_match_the_oracle(
        periods in schedules(),
        (ready, length, deadline) in window(),
        width in prop::sample::select(vec![1.0, 2.0, 4.0]),
        clock in 0u32..30,
    ) {
        let geometry = StripGeometry::new(width);
        // The clock may pass some periods' starts (they go to the pool) but never the ready time.
        let now = (f64::from(clock) / 10.0).min(ready);
        let live: Vec<IdlePeriod> = periods.iter().copied().filter(|p| p.end > now).collect();
        let w = Window::new(ready, length, deadline).unwrap();
        let want = oracle(&live, geometry, &w);
        for (name, mut ix) in indexes(geometry, now, &periods) {
            prop_assert_eq!(ix.select(LITERAL, &w), want, "{}", name);
        }
        // What the literal search can and cannot differ in.
        let best = exact(&live, &w);
        match (want, best) {
            (Some(a), Some(b)) => {
                prop_assert!(w.admits(&a));
                prop_assert!(a.len() >= b.len());
                let (p, p_last) = (geometry.strip_of(w.ready), geometry.strip_of(w.latest_start));
                let s = geometry.strip_of(b.start);
                if s != p && s != p_last {
                    prop_assert_eq!(a, b, "outside the boundary strips the answers agree");
                }
            }
            (Some(a), None) => prop_assert!(false, "literal found {} where nothing fits", a),
            (None, _) => {}
        }
    }
}

/// The miss the boundary strips allow, by hand (l_min = 1, w = 2; job r = 6.5, l = 1.5,
/// d = 12, so p = strip 3 = [6, 8) and p' = strip 5). Strip 3 holds C = [7.0, 8.2) (starts
/// after r, ends after r + l = 8, only 1.2 long), D = [6.0, 9.0) (feasible, length 3) and
/// E = [6.1, 7.7) (starts before r, 1.6 long, ends before 8). The R1 query answers C and the
/// R2 query E, neither of which the job fits, so the strip offers nothing and the literal
/// search takes the tail of server 3; the exact Best-fit is D.
#[test]
fn boundary_strip_answers_the_job_does_not_fit_hide_the_best_fit() {
    let c = IdlePeriod::new(7.0, 8.2, 0);
    let d = IdlePeriod::new(6.0, 9.0, 1);
    let e = IdlePeriod::new(6.1, 7.7, 2);
    let tail = IdlePeriod::tail(0.5, 3);
    let geometry = StripGeometry::for_min_length(1.0, 1);
    let w = Window::new(6.5, 1.5, 12.0).unwrap();
    for (name, mut ix) in indexes(geometry, 0.0, &[c, d, e, tail]) {
        assert_eq!(ix.select(Rule::ShortestFeasible, &w), Some(d), "{name}");
        assert_eq!(ix.select(LITERAL, &w), Some(tail), "{name}");
    }
    assert_eq!(oracle(&[c, d, e, tail], geometry, &w), Some(tail));
    // Without the tail the literal search drops a job that fits.
    for (name, mut ix) in indexes(geometry, 0.0, &[c, d, e]) {
        assert_eq!(ix.select(LITERAL, &w), None, "{name}");
    }
}

/// In the latest start's strip the R2 query can answer a period starting after `d - l`.
#[test]
fn last_strip_answer_after_the_latest_start_hides_a_fit() {
    // Job r = 0.5, l = 2, d = 12.4: p' = strip of 10.4 = [10, 12). There, A = [10.6, 12.7)
    // (2.1 long, starts after 10.4) is shorter than B = [10.2, 13.0) (2.8, fits).
    let a = IdlePeriod::new(10.6, 12.7, 0);
    let b = IdlePeriod::new(10.2, 13.0, 1);
    let tail = IdlePeriod::tail(20.0, 2);
    let geometry = StripGeometry::for_min_length(1.0, 1);
    let w = Window::new(0.5, 2.0, 12.4).unwrap();
    for (name, mut ix) in indexes(geometry, 0.0, &[a, b, tail]) {
        assert_eq!(ix.select(Rule::ShortestFeasible, &w), Some(b), "{name}");
        assert_eq!(ix.select(LITERAL, &w), None, "{name}");
    }
}
