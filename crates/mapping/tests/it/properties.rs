//! Property tests: every fast engine against the literal `O(t²·m)` oracle (identical picks,
//! keys and ready times, bit for bit), schedule validity, Min-Min's step optimality, and
//! determinism — on random matrices chosen to produce ties: continuous values, small
//! integers (exact ties everywhere) and large ready times that round small ETC differences
//! away (`fl(r + 1) = fl(r + 0)` for `r = 2^53`).

use gridsched_mapping::{Engine, EtcMatrix, Heuristic, SegmentKey, SufferageVariant, naive};
use proptest::prelude::*;

fn heuristics(segments: usize, key: SegmentKey) -> Vec<Heuristic> {
    use SufferageVariant::*;
    vec![
        Heuristic::Olb,
        Heuristic::Met,
        Heuristic::Mct,
        Heuristic::MinMin,
        Heuristic::MaxMin,
        Heuristic::Sufferage(Batch),
        Heuristic::Sufferage(Sequential),
        Heuristic::Duplex,
        Heuristic::SegmentedMinMin { segments, key },
        Heuristic::Sas {
            segments,
            variant: Batch,
        },
        Heuristic::Sas {
            segments,
            variant: Sequential,
        },
    ]
}

/// (matrix, initial ready times)
fn instance() -> impl Strategy<Value = (EtcMatrix, Vec<f64>)> {
    (1usize..28, 1usize..9, 0u8..4).prop_flat_map(|(t, m, kind)| {
        let value = match kind {
            0 => (0.0f64..100.0).boxed(),
            1 => (0u32..4).prop_map(f64::from).boxed(),
            2 => prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(2.0), 0.0f64..3.0].boxed(),
            _ => (0u32..3).prop_map(|v| f64::from(v) * 0.1).boxed(),
        };
        let ready = match kind {
            2 => prop_oneof![
                Just(0.0),
                Just(9007199254740992.0),
                Just(9007199254740994.0)
            ]
            .boxed(),
            3 => prop_oneof![Just(0.0), Just(0.2), Just(0.30000000000000004)].boxed(),
            _ => prop_oneof![Just(0.0), 0.0f64..50.0].boxed(),
        };
        (
            proptest::collection::vec(value, t * m),
            proptest::collection::vec(ready, m),
        )
            .prop_map(move |(v, r)| (EtcMatrix::new(t, m, v).unwrap(), r))
    })
}

fn key() -> impl Strategy<Value = SegmentKey> {
    prop_oneof![
        Just(SegmentKey::Avg),
        Just(SegmentKey::Min),
        Just(SegmentKey::Max)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fast_engines_equal_the_literal_algorithms(
        (etc, ready) in instance(), segments in 1usize..6, key in key()
    ) {
        for h in heuristics(segments, key) {
            let fast = h.map_from(&etc, &ready).unwrap();
            let slow = naive::map_from(&h, &etc, &ready).unwrap();
            prop_assert_eq!(&fast, &slow, "{}", h);
            for engine in [Engine::Dense, Engine::Tracked] {
                let other = h.map_with(&etc, &ready, engine).unwrap();
                prop_assert_eq!(&other, &slow, "{} with {:?}", h, engine);
            }
            // Valid: every task once, ETC durations, back to back, ready = last completion.
            prop_assert!(fast.validate(&etc).is_ok(), "{}: {:?}", h, fast.validate(&etc));
            let max_end = fast.picks().iter().map(|p| p.end).fold(0.0, f64::max);
            let max_ready = fast.ready_times().iter().copied().fold(0.0, f64::max);
            prop_assert_eq!(fast.makespan(), max_ready);
            prop_assert!(max_end <= max_ready);
            // Deterministic.
            prop_assert_eq!(&fast, &h.map_from(&etc, &ready).unwrap());
        }
    }

    #[test]
    fn min_min_takes_the_least_completion_time_at_every_step((etc, ready) in instance()) {
        let s = Heuristic::MinMin.map_from(&etc, &ready).unwrap();
        let mut r = ready.clone();
        let mut left: Vec<usize> = (0..etc.tasks()).collect();
        for p in s.picks() {
            let best = left
                .iter()
                .flat_map(|&i| (0..etc.machines()).map(move |j| (i, j)))
                .map(|(i, j)| etc.get(i, j) + r[j])
                .fold(f64::INFINITY, f64::min);
            prop_assert_eq!(p.end, best);
            // The first task in list order reaching it, on its lowest machine reaching it.
            let first = left
                .iter()
                .copied()
                .find(|&i| (0..etc.machines()).any(|j| etc.get(i, j) + r[j] == best))
                .unwrap();
            prop_assert_eq!(p.task, first);
            let j = (0..etc.machines()).find(|&j| etc.get(first, j) + r[j] == best).unwrap();
            prop_assert_eq!(p.machine, j);
            r[p.machine] = p.end;
            left.retain(|&i| i != p.task);
        }
    }

    #[test]
    fn immediate_heuristics_and_duplex((etc, ready) in instance()) {
        let met = Heuristic::Met.map_from(&etc, &ready).unwrap();
        for p in met.picks() {
            let row = etc.row(p.task);
            prop_assert_eq!(row[p.machine], row.iter().copied().fold(f64::INFINITY, f64::min));
            prop_assert!(row[..p.machine].iter().all(|&v| v > row[p.machine]));
        }
        let mct = Heuristic::Mct.map_from(&etc, &ready).unwrap();
        let tasks: Vec<usize> = mct.picks().iter().map(|p| p.task).collect();
        prop_assert_eq!(tasks, (0..etc.tasks()).collect::<Vec<_>>());
        let duplex = Heuristic::Duplex.map_from(&etc, &ready).unwrap();
        let a = Heuristic::MinMin.map_from(&etc, &ready).unwrap().makespan();
        let b = Heuristic::MaxMin.map_from(&etc, &ready).unwrap().makespan();
        prop_assert_eq!(duplex.makespan(), a.min(b));
    }

    #[test]
    fn one_segment_is_the_inner_heuristic_on_the_sorted_list((etc, ready) in instance()) {
        for v in [SufferageVariant::Batch, SufferageVariant::Sequential] {
            let sas1 = Heuristic::Sas { segments: 1, variant: v }.map_from(&etc, &ready).unwrap();
            let order = gridsched_mapping::heuristics::segment_order(&etc, SegmentKey::Avg);
            let sorted = etc.select_tasks(&order).unwrap();
            let suff = Heuristic::Sufferage(v).map_from(&sorted, &ready).unwrap();
            prop_assert_eq!(sas1.ready_times(), suff.ready_times());
            for (a, b) in sas1.picks().iter().zip(suff.picks()) {
                prop_assert_eq!((a.task, a.machine), (order[b.task], b.machine));
            }
        }
    }
}

/// Larger instances (fewer cases): the tracker's rebuild paths need `m > 4` and long runs.
#[test]
fn larger_random_instances_agree() {
    use gridsched_mapping::Consistency;
    use gridsched_mapping::generate::RangeBased;
    let mut rng = gridsched_sim::StreamKey::new(11, "mapping-props").rng();
    for (k, &(t, m)) in [(200, 16), (150, 9), (300, 5), (64, 33)].iter().enumerate() {
        for consistency in [
            Consistency::Consistent,
            Consistency::Inconsistent,
            Consistency::SemiConsistent,
        ] {
            let g = RangeBased {
                tasks: t,
                machines: m,
                task_heterogeneity: if k % 2 == 0 { 3000.0 } else { 100.0 },
                machine_heterogeneity: if k < 2 { 1000.0 } else { 10.0 },
                consistency,
            };
            let etc = g.generate(&mut rng).unwrap();
            for h in heuristics(4, SegmentKey::Avg) {
                let slow = naive::map(&h, &etc).unwrap();
                for engine in [Engine::Auto, Engine::Dense, Engine::Tracked] {
                    let fast = h.map_with(&etc, &vec![0.0; m], engine).unwrap();
                    assert_eq!(fast, slow, "{h} with {engine:?} on {t}×{m} {consistency:?}");
                }
            }
        }
    }
}
