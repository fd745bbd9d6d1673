//! The chapter-4 scheduler: the worked example of Figs. 4.1/4.3 (spec fixture F4.1), and
//! random streams against the literal reference with a schedule audit.

use gridsched_geom::Window;
use gridsched_geom::hetero::{ClassOrder, PlusPick, RatedPeriod, literal};
use gridsched_reservation::hetero::{
    HeteroAlgorithm, HeteroAudit, HeteroConfig, HeteroScheduler, ListIndex, RateProposal, rates,
};
use gridsched_sim::StreamKey;
use gridsched_workload::hetero::{HeteroWorkload, WorkRequest};

/// Fig. 4.1 instantiated (spec §6 F4.1): S1 (μ = 1) is busy over [0,1), A [4,5), B [6,7),
/// C [11,12); S2 (μ = 0.5) over [0,2) and E [9,14).
fn f41(algorithm: HeteroAlgorithm, with_s2: bool) -> HeteroScheduler {
    let s1 = vec![(0.0, 1.0), (4.0, 5.0), (6.0, 7.0), (11.0, 12.0)];
    let s2 = vec![(0.0, 2.0), (9.0, 14.0)];
    let (rates, booked) = if with_s2 {
        (vec![1.0, 0.5], vec![s1, s2])
    } else {
        (vec![1.0], vec![s1])
    };
    HeteroScheduler::with_reservations(HeteroConfig::new(rates, algorithm), &booked).unwrap()
}

fn spans(s: &HeteroScheduler) -> Vec<(u32, f64, f64, f64)> {
    s.idle_periods()
        .iter()
        .map(|p| (p.server, p.start, p.end, p.capacity))
        .collect()
}

#[test]
fn fixture_f41_every_algorithm_picks_w() {
    // Job: r = 3, l = 2, d = 12 (P = (3, 2), P' = (10, 2)).
    let job = Window::new(3.0, 2.0, 12.0).unwrap();
    for algorithm in HeteroAlgorithm::ALL {
        let mut s = f41(algorithm, true);
        // x = [1,4), y = [5,6), z = [7,11) on S1; w = [2,9) on S2 (capacity 3.5); two tails.
        assert_eq!(
            spans(&s),
            vec![
                (0, 1.0, 4.0, 3.0),
                (1, 2.0, 9.0, 3.5),
                (0, 5.0, 6.0, 1.0),
                (0, 7.0, 11.0, 4.0),
                (0, 12.0, f64::INFINITY, f64::INFINITY),
                (1, 14.0, f64::INFINITY, f64::INFINITY),
            ]
        );
        let b = s.submit(0.0, &job).unwrap().expect("w is feasible");
        assert_eq!((b.server, b.start, b.end), (1, 3.0, 7.0), "{algorithm}");
        // w is replaced by [2,3) (capacity 0.5) and [7,9) (capacity 1).
        let s2: Vec<_> = spans(&s).into_iter().filter(|p| p.0 == 1).collect();
        assert_eq!(
            s2,
            vec![
                (1, 2.0, 3.0, 0.5),
                (1, 7.0, 9.0, 1.0),
                (1, 14.0, f64::INFINITY, f64::INFINITY)
            ],
            "{algorithm}"
        );
    }
}

#[test]
fn fixture_f41_primal_dual_facts() {
    let job = Window::new(3.0, 2.0, 12.0).unwrap();
    let s = f41(HeteroAlgorithm::FfHu, true);
    let live = s.idle_periods();
    let mut windows = Vec::new();
    s.classes().windows(&job, &mut windows);
    // Classes ascending: 0 = rate 0.5, 1 = rate 1. (4.3) bounds: 8 and 10.
    assert_eq!(windows[0].latest_start, 8.0 + windows[0].tolerance);
    assert_eq!(windows[1].latest_start, 10.0 + windows[1].tolerance);
    let find = |start: f64| *live.iter().find(|p| p.start == start).unwrap();
    let (x, y, z, w) = (find(1.0), find(5.0), find(7.0), find(2.0));
    let on = |p: &RatedPeriod| windows[p.class as usize];
    // x passes (4.3) but lies above P* (dual y = -4 > -5): residual 1·(4 − 3) = 1 < 2.
    assert!(x.start <= on(&x).latest_start && x.end < on(&x).earliest_end);
    // y lies below P* (dual −6 <= −5) yet its capacity 1 < 2: the text's contradiction.
    assert!(y.end >= on(&y).earliest_end && y.capacity < on(&y).min_capacity);
    assert!(!on(&y).admits(&y));
    // z and w are feasible; both tails fail (4.3).
    assert!(on(&z).admits(&z) && on(&w).admits(&w));
    for tail in live.iter().filter(|p| p.is_tail()) {
        assert!(tail.start > on(tail).latest_start);
    }
    // Order preservation: P lies above x's line (2 > −3 + 4 = 1) iff x* lies above P*.
    let p_above_line = 2.0 > -3.0 + x.end;
    // P* at x = -1: y = 3·(-1) - 2.
    let dual_above = -x.end > -3.0 - 2.0;
    assert!(p_above_line && dual_above);
    for pick in [PlusPick::Tree, PlusPick::MaxCapInFirstGroup] {
        assert_eq!(
            literal::ff_ha_plus(&live, &windows, ClassOrder::Ascending, pick),
            Some(w)
        );
    }
}

#[test]
fn fixture_f41b_without_s2_every_algorithm_picks_z() {
    let job = Window::new(3.0, 2.0, 12.0).unwrap();
    for algorithm in HeteroAlgorithm::ALL {
        let mut s = f41(algorithm, false);
        let b = s.submit(0.0, &job).unwrap().expect("z is feasible");
        assert_eq!((b.server, b.start, b.end), (0, 7.0, 9.0), "{algorithm}");
        assert!(spans(&s).contains(&(0, 9.0, 11.0, 2.0)), "{algorithm}");
    }
}

fn requests(load: f64, n: usize, seed: u64) -> Vec<WorkRequest> {
    // A small system (Σμ = 6) keeps the literal reference fast.
    let mut w = HeteroWorkload::new(6.0, load);
    w.book_ahead = (1.0 / 60.0, 48.0);
    w.stream(&StreamKey::new(seed, "hetero-props"))
        .unwrap()
        .take(n)
        .collect()
}

fn config(algorithm: HeteroAlgorithm, pick: PlusPick, level: u32) -> HeteroConfig {
    let mut c = HeteroConfig::new(
        rates::level_rates(RateProposal::A, level, 12).unwrap(),
        algorithm,
    );
    c.pick = pick;
    c
}

/// Every decision against the reference on the scheduler's own state, plus the audit.
#[test]
fn random_streams_match_the_reference_and_pass_the_audit() {
    let cases = [
        (HeteroAlgorithm::FfHu, PlusPick::Tree),
        (HeteroAlgorithm::FfHa, PlusPick::Tree),
        (HeteroAlgorithm::FfHaPlus, PlusPick::Tree),
        (HeteroAlgorithm::FfHaPlus, PlusPick::MaxCapInFirstGroup),
        (HeteroAlgorithm::FfHaPlus, PlusPick::EarliestStart),
    ];
    for (seed, load) in [(1, 0.4), (2, 0.8), (3, 1.1)] {
        let reqs = requests(load, 1500, seed);
        for level in [1, 4] {
            for (algorithm, pick) in cases {
                let mut s = HeteroScheduler::new(config(algorithm, pick, level)).unwrap();
                let mut audit = HeteroAudit::new();
                let mut windows = Vec::new();
                let mut accepted = 0;
                for (i, r) in reqs.iter().enumerate() {
                    let w = Window::new(r.ready, r.work, r.deadline).unwrap();
                    s.classes().windows(&w, &mut windows);
                    let live: Vec<RatedPeriod> = s
                        .idle_periods()
                        .into_iter()
                        .filter(|p| p.end > r.arrival)
                        .collect();
                    let want = match algorithm {
                        HeteroAlgorithm::FfHu => literal::ff_hu(&live, &windows),
                        HeteroAlgorithm::FfHa => {
                            literal::ff_ha(&live, &windows, ClassOrder::Ascending)
                        }
                        HeteroAlgorithm::FfHaPlus => {
                            literal::ff_ha_plus(&live, &windows, ClassOrder::Ascending, pick)
                        }
                    };
                    let b = s.submit(r.arrival, &w).unwrap();
                    assert_eq!(
                        b.map(|b| b.server),
                        want.map(|p| p.server),
                        "{algorithm} {pick:?} level {level} load {load} job {i}"
                    );
                    assert_eq!(b.is_some(), literal::any_feasible(&live, &windows));
                    if let (Some(b), Some(p)) = (b, want) {
                        assert_eq!(b.start, p.start.max(r.ready));
                        accepted += 1;
                    }
                    let rate = b.map_or(1.0, |b| {
                        s.classes().rate(s.class_of_server(b.server) as usize)
                    });
                    audit.record(i, r.arrival, r.ready, r.work, r.deadline, b.as_ref(), rate);
                }
                let v = audit.violations();
                assert!(v.is_empty(), "{algorithm} {pick:?}: {v:?}");
                assert!(accepted > 100, "{algorithm}: {accepted} accepted");
            }
        }
    }
}

/// Spec §5: FF-HA+ accepts a job iff FF-HU does, both run on the very same state.
#[test]
fn ffha_plus_accepts_iff_ffhu_accepts_on_the_same_state() {
    let reqs = requests(0.9, 3000, 7);
    let mut driver =
        HeteroScheduler::new(config(HeteroAlgorithm::FfHu, PlusPick::Tree, 4)).unwrap();
    let (mut both, mut neither) = (0, 0);
    for (i, r) in reqs.iter().enumerate() {
        let w = Window::new(r.ready, r.work, r.deadline).unwrap();
        if i % 10 == 0 {
            let state = driver.state();
            let mut hu = HeteroScheduler::from_state(
                config(HeteroAlgorithm::FfHu, PlusPick::Tree, 4),
                &state,
            )
            .unwrap();
            let mut plus = HeteroScheduler::from_state(
                config(HeteroAlgorithm::FfHaPlus, PlusPick::Tree, 4),
                &state,
            )
            .unwrap();
            let a = hu.submit(r.arrival, &w).unwrap().is_some();
            let b = plus.submit(r.arrival, &w).unwrap().is_some();
            assert_eq!(a, b, "job {i}");
            if a {
                both += 1;
            } else {
                neither += 1;
            }
        }
        driver.submit(r.arrival, &w).unwrap();
    }
    assert!(
        both > 50 && neither > 5,
        "accepted {both}, dropped {neither}"
    );
}

#[test]
fn runs_are_deterministic() {
    let reqs = requests(0.8, 2000, 11);
    let run = || {
        let mut s =
            HeteroScheduler::new(config(HeteroAlgorithm::FfHaPlus, PlusPick::Tree, 3)).unwrap();
        let mut rec = s.recorder();
        for r in &reqs {
            s.decide_and_record(r.arrival, r.ready, r.work, r.deadline, &mut rec)
                .unwrap();
        }
        (rec.finish(), s.state())
    };
    assert_eq!(run(), run());
}

/// The scheduler's live idle periods after every decision against a naive model of the same
/// rules: drop every period that has ended, book the literal reference's choice, keep the
/// leading and trailing fragments of at least `min_fragment`. The expiry bookkeeping (per-server
/// lists, the tournament over the servers' first ends) and the in-place carving must leave
/// exactly that set, for every algorithm.
#[test]
fn live_periods_match_a_naive_model() {
    for (seed, load) in [(21, 0.5), (22, 1.0)] {
        let reqs = requests(load, 1200, seed);
        for level in [1, 3] {
            for algorithm in HeteroAlgorithm::ALL {
                let c = config(algorithm, PlusPick::Tree, level);
                let min_fragment = c.min_fragment;
                let mut s = HeteroScheduler::new(c).unwrap();
                let mut live: Vec<RatedPeriod> = s.idle_periods();
                let mut windows = Vec::new();
                for (i, r) in reqs.iter().enumerate() {
                    let w = Window::new(r.ready, r.work, r.deadline).unwrap();
                    s.classes().windows(&w, &mut windows);
                    live.retain(|p| p.end > r.arrival);
                    let want = match algorithm {
                        HeteroAlgorithm::FfHu => literal::ff_hu(&live, &windows),
                        HeteroAlgorithm::FfHa => {
                            literal::ff_ha(&live, &windows, ClassOrder::Ascending)
                        }
                        HeteroAlgorithm::FfHaPlus => literal::ff_ha_plus(
                            &live,
                            &windows,
                            ClassOrder::Ascending,
                            PlusPick::Tree,
                        ),
                    };
                    if let Some(p) = want {
                        let class = p.class as usize;
                        let rate = s.classes().rate(class);
                        let rw = windows[class];
                        let start = p.start.max(r.ready);
                        let end = start + rw.duration;
                        live.retain(|q| q.cmp_start(&p).is_ne());
                        let lead = RatedPeriod::new(p.start, start, p.server, p.class, rate);
                        if start > r.arrival && start > p.start && lead.capacity >= min_fragment {
                            live.push(lead);
                        }
                        if p.is_tail() || rate * (p.end - end) >= min_fragment {
                            live.push(RatedPeriod::new(end, p.end, p.server, p.class, rate));
                        }
                    }
                    let b = s.submit(r.arrival, &w).unwrap();
                    assert_eq!(b.map(|b| b.server), want.map(|p| p.server));
                    live.sort_by(RatedPeriod::cmp_start);
                    assert_eq!(
                        s.idle_periods(),
                        live,
                        "{algorithm} level {level} load {load} job {i}"
                    );
                    assert_eq!(s.live_periods(), live.len());
                    for h in 0..s.classes().len() {
                        let n = live.iter().filter(|p| p.class as usize == h).count();
                        assert_eq!(s.live_in_class(h), n);
                    }
                }
            }
        }
    }
}

/// A26b: FF-HU and FF-HA make the same bookings and count the same operations whether their
/// lists are blocks with summaries (default) or the thesis's scan from the head.
#[test]
fn list_index_changes_no_decision_and_no_operation_count() {
    for (seed, load) in [(11, 0.5), (12, 1.0)] {
        let reqs = requests(load, 2000, seed);
        for level in [1, 4] {
            for algorithm in [HeteroAlgorithm::FfHu, HeteroAlgorithm::FfHa] {
                let run = |index: ListIndex| {
                    let mut c = config(algorithm, PlusPick::Tree, level);
                    c.list_index = index;
                    let mut s = HeteroScheduler::new(c).unwrap();
                    let bookings: Vec<_> = reqs
                        .iter()
                        .map(|r| {
                            let w = Window::new(r.ready, r.work, r.deadline).unwrap();
                            s.submit(r.arrival, &w)
                                .unwrap()
                                .map(|b| (b.server, b.start))
                        })
                        .collect();
                    (bookings, s.operations())
                };
                let (blocks, scan) = (run(ListIndex::Blocks), run(ListIndex::Scan));
                assert!(blocks.0.iter().flatten().count() > 100);
                assert_eq!(blocks, scan, "{algorithm} level {level} load {load}");
            }
        }
    }
    let mut c = config(HeteroAlgorithm::FfHaPlus, PlusPick::Tree, 4);
    c.list_index = ListIndex::Scan;
    assert!(HeteroScheduler::new(c).is_err(), "FF-HA+ has no lists");
}
