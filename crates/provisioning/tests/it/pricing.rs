//! Adaptive slot pricing (spec §2.9–2.11): a hand-priced scenario (singh-ex-pricing), the
//! batch simulator itself as the oracle of Figure 22 under both policies, the query forms and
//! eq. 20 against brute force, and bad requests.

use gridsched_batch::{Config, Job, Platform, Policy, Simulator, Time};
use gridsched_provisioning::holes::Busy;
use gridsched_provisioning::{
    Pricer, PricingError, PricingPolicy, QueuedJob, Quote, SiteState, choose,
};
use proptest::prelude::*;

const H: Time = 3600;

/// singh-ex-pricing. 4 processors at time 0; A holds 2 of them until 4 h. Queue: C (2 p, 3 h),
/// D (4 p, 2 h), E (1 p, 1 h).
///
/// Without a slot (both policies): C starts at 0 on the 2 free processors, D needs all 4 and
/// waits for A and C (4 h), E backfills into [3 h, 4 h) when C ends.
/// With X = 2 p × 2 h at 1 h: C no longer fits at 0 (X takes its processors over [1, 3)), so
/// it starts at 3 h (+3 h); D then waits for C: 6 h (+2 h); E moves earlier to 0 (a gain,
/// not a price). f = 2·3 + 4·2 = 14 SU.
fn scenario() -> SiteState {
    SiteState::new(
        4,
        0,
        vec![Busy {
            start: 0,
            end: 4 * H,
            procs: 2,
        }],
        vec![
            QueuedJob {
                id: 1,
                procs: 2,
                run: 3 * H,
            },
            QueuedJob {
                id: 2,
                procs: 4,
                run: 2 * H,
            },
            QueuedJob {
                id: 3,
                procs: 1,
                run: H,
            },
        ],
    )
    .unwrap()
}

#[test]
fn a_hand_priced_slot_costs_the_delay_it_causes() {
    for policy in [PricingPolicy::Conservative, PricingPolicy::Easy] {
        let mut p = Pricer::new(scenario(), policy);
        assert_eq!(p.planned_starts(), &[0, 4 * H, 3 * H], "{policy:?}");
        assert_eq!(p.last_end(), 6 * H);
        let q = p.price(H, 2, 2 * H).unwrap().unwrap();
        assert_eq!((q.price, q.delayed), (14.0, 2), "{policy:?}");
        // 3 processors at 0 overlap A: infeasible (price ∞), whatever the queue.
        assert_eq!(p.price(0, 3, H).unwrap(), None);
        // After the last planned end nobody is delayed.
        let q = p.price(6 * H, 4, 5 * H).unwrap().unwrap();
        assert_eq!((q.price, q.delayed), (0.0, 0));
        // 2 p × 1 h at 4 h: D (4 p from 4 h) moves to 5 h: 4 SU.
        assert_eq!(p.price(4 * H, 2, H).unwrap().unwrap().price, 4.0);
    }
}

#[test]
fn the_flexible_query_lists_every_feasible_change_point_and_ends_free() {
    let mut p = Pricer::new(scenario(), PricingPolicy::Conservative);
    // 2 p × 1 h: feasible at 0, 1 h? (A holds 2, so 2 are free of fixed blocks until 4 h).
    let quotes = p.query(2, H, None).unwrap();
    let starts: Vec<Time> = quotes.iter().map(|q| q.start / H).collect();
    // Change points: 0 (now, C), 3 (C ends, E), 4 (A ends, D), 6 (D ends); E ends at 4.
    assert_eq!(starts, vec![0, 3, 4, 6]);
    let prices: Vec<f64> = quotes.iter().map(|q| q.price).collect();
    // At 0: C → 1 h (+1 h, 2 SU), D stays at 4 h, E → 6 h (+3 h, 3 SU): 5. At 3 h: C and D
    // keep their starts, E → 6 h: 3. At 4 h: D → 5 h: 4. At 6 h: nobody. Earlier is not
    // always pricier (Table 3's point).
    assert_eq!(prices, vec![5.0, 3.0, 4.0, 0.0]);
    // Eq. 20: α = 0 the earliest, α = 1 the earliest free one.
    assert_eq!(choose(&quotes, 0.0), Some(0));
    assert_eq!(choose(&quotes, 1.0), Some(3));
    // Query (19) from 2 h: 2 h itself is feasible and joins the list.
    let from2: Vec<Time> = p
        .query(2, H, Some(2 * H))
        .unwrap()
        .iter()
        .map(|q| q.start / H)
        .collect();
    assert_eq!(from2, vec![2, 3, 4, 6]);
}

#[test]
fn bad_requests_are_refused_with_their_reason() {
    let mut p = Pricer::new(scenario(), PricingPolicy::Conservative);
    assert_eq!(
        p.price(0, 5, H),
        Err(PricingError::TooWide {
            procs: 5,
            capacity: 4
        })
    );
    assert_eq!(p.price(0, 0, H), Err(PricingError::NoProcessors));
    assert_eq!(p.price(0, 1, 0), Err(PricingError::NoDuration(0)));
    let mut later = Pricer::new(
        SiteState::new(4, 100, vec![], vec![]).unwrap(),
        PricingPolicy::Easy,
    );
    assert_eq!(
        later.price(50, 1, 10),
        Err(PricingError::Past {
            start: 50,
            now: 100
        })
    );
    assert!(matches!(
        later.query(1, 10, Some(99)),
        Err(PricingError::Past { .. })
    ));
    assert!(matches!(
        SiteState::new(
            4,
            0,
            vec![
                Busy {
                    start: 0,
                    end: 10,
                    procs: 3
                },
                Busy {
                    start: 5,
                    end: 8,
                    procs: 2
                }
            ],
            vec![]
        ),
        Err(PricingError::Overfull { at: 5, .. })
    ));
    assert!(matches!(
        SiteState::new(
            4,
            0,
            vec![],
            vec![QueuedJob {
                id: 7,
                procs: 5,
                run: 1
            }]
        ),
        Err(PricingError::BadJob { id: 7, .. })
    ));
}

fn jobs_strategy(cap: u32) -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..40, 1u32..=cap, 1i64..30), 1..14).prop_map(|v| {
        let mut v: Vec<Job> = v
            .into_iter()
            .enumerate()
            .map(|(i, (s, p, r))| Job::new(i as u64 + 1, s, p, r))
            .collect();
        v.sort_by_key(|j| (j.submit, j.id));
        v
    })
}

/// The simulator at `t` (after the trace's last submission, so nothing more arrives).
fn site_at(
    cap: u32,
    policy: Policy,
    jobs: Vec<Job>,
    resv: &[(Time, Time, u32)],
    t: Time,
) -> Simulator {
    let mut sim = Simulator::with_jobs(
        Platform::cluster(cap).unwrap(),
        Config::new(policy).check_invariants(true),
        jobs,
    )
    .unwrap();
    for &(s, d, p) in resv {
        // Reservations that do not fit are simply not made.
        let _ = sim.add_reservation(0, s, s + d, p);
    }
    sim.run_until(t);
    sim
}

/// Figure 22 by the simulator itself: the starts of the queued jobs when it runs on with and
/// without the slot as a fixed reservation.
fn oracle_price(sim: &Simulator, slot: (Time, u32, Time)) -> Option<(f64, u32, Vec<Time>)> {
    let queued = sim.queued();
    let starts = |s: &mut Simulator| -> Vec<Time> {
        s.run();
        queued.iter().map(|&i| s.record(i).start.unwrap()).collect()
    };
    let before = starts(&mut sim.clone());
    let mut with = sim.clone();
    with.add_reservation(0, slot.0, slot.0 + slot.2, slot.1)
        .ok()?;
    let after = starts(&mut with);
    let mut area = 0i64;
    let mut delayed = 0;
    for (k, &i) in queued.iter().enumerate() {
        if after[k] > before[k] {
            area += i64::from(sim.record(i).job.procs) * (after[k] - before[k]);
            delayed += 1;
        }
    }
    Some((area as f64 / H as f64, delayed, before))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The pricer's schedule of the queue and its price equal what the batch simulator does
    /// with exact estimates and no further arrivals, under conservative and EASY backfilling.
    #[test]
    fn figure_22_equals_the_simulator_run_on_with_and_without_the_slot(
        jobs in jobs_strategy(6),
        easy in any::<bool>(),
        resv in prop::collection::vec((0i64..60, 1i64..20, 1u32..4), 0..3),
        slot in (0i64..80, 1u32..=6, 1i64..40),
    ) {
        let policy = if easy { Policy::Easy } else { Policy::Conservative };
        let pricing = if easy { PricingPolicy::Easy } else { PricingPolicy::Conservative };
        let now = jobs.last().unwrap().submit;
        let sim = site_at(6, policy, jobs, &resv, now);
        let state = SiteState::of(&sim).unwrap();
        let mut pricer = Pricer::new(state, pricing);
        let start = now + slot.0;
        let got = pricer.price(start, slot.1, slot.2).unwrap();
        match oracle_price(&sim, (start, slot.1, slot.2)) {
            None => prop_assert!(got.is_none(), "the simulator refused the slot, the pricer priced it"),
            Some((price, delayed, before)) => {
                prop_assert_eq!(pricer.planned_starts(), before.as_slice());
                let q = got.expect("the simulator took the slot, the pricer refused it");
                prop_assert_eq!((q.price, q.delayed), (price, delayed));
                // Never negative; zero exactly when nobody is delayed.
                prop_assert!(q.price >= 0.0);
                prop_assert_eq!(q.price == 0.0, q.delayed == 0);
            }
        }
    }

    /// Queries (18) and (19) against brute force over every integer start: the candidates are
    /// feasible, the first is the earliest feasible start, the answer ends in a free slot, and
    /// eq. 20 picks what an exhaustive scan of the normalized objective picks.
    #[test]
    fn queries_and_eq_20_match_brute_force(
        jobs in jobs_strategy(5),
        easy in any::<bool>(),
        req in (1u32..=5, 1i64..25),
        from in prop::option::of(0i64..50),
        alpha in prop::sample::select(vec![0.0, 0.25, 0.5, 0.75, 1.0]),
    ) {
        let policy = if easy { Policy::Easy } else { Policy::Conservative };
        let pricing = if easy { PricingPolicy::Easy } else { PricingPolicy::Conservative };
        let now = jobs.last().unwrap().submit;
        let sim = site_at(5, policy, jobs, &[], now);
        let mut pricer = Pricer::new(SiteState::of(&sim).unwrap(), pricing);
        let not_before = from.map(|f| now + f);
        let quotes = pricer.query(req.0, req.1, not_before).unwrap();
        prop_assert!(!quotes.is_empty());
        prop_assert!(quotes.iter().any(|q| q.price == 0.0));
        prop_assert!(quotes.windows(2).all(|w| w[0].start < w[1].start));
        let lo = not_before.unwrap_or(now);
        let earliest = (lo..=pricer.last_end().max(lo))
            .find(|&t| pricer.is_feasible(t, req.0, req.1))
            .unwrap();
        prop_assert_eq!(quotes[0].start, earliest);
        for q in &quotes {
            prop_assert!(q.start >= lo && pricer.is_feasible(q.start, req.0, req.1));
            let again = pricer.price(q.start, req.0, req.1).unwrap().unwrap();
            prop_assert_eq!(again, *q);
        }
        let k = choose(&quotes, alpha).unwrap();
        prop_assert_eq!(k, brute_choose(&quotes, alpha));
        if alpha == 1.0 {
            prop_assert_eq!(quotes[k].price, 0.0);
        }
        if alpha == 0.0 {
            prop_assert_eq!(k, 0);
        }
    }
}

/// Eq. 20 written out: scores with zero-range terms as 0, the lowest score, the earliest start
/// among equals.
fn brute_choose(quotes: &[Quote], alpha: f64) -> usize {
    let fs: Vec<f64> = quotes.iter().map(|q| q.price).collect();
    let ss: Vec<f64> = quotes.iter().map(|q| q.start as f64).collect();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let ((flo, fhi), (slo, shi)) = (range(&fs), range(&ss));
    let scores: Vec<f64> = quotes
        .iter()
        .map(|q| {
            let a = if fhi > flo {
                (q.price - flo) / (fhi - flo)
            } else {
                0.0
            };
            let b = if shi > slo {
                (q.start as f64 - slo) / (shi - slo)
            } else {
                0.0
            };
            alpha * a + (1.0 - alpha) * b
        })
        .collect();
    let best = scores.iter().copied().fold(f64::INFINITY, f64::min);
    (0..quotes.len())
        .filter(|&i| scores[i] == best)
        .min_by_key(|&i| quotes[i].start)
        .unwrap()
}
