//! Kumar (2010)'s worked example (Table 4.1, §4.2) as golden tests: keys, sort order, segment
//! split, every pick (task, machine, sufferage), every intermediate ready time and the final
//! makespans, for both Sufferage readings (spec §4.1–4.3).

use gridsched_mapping::heuristics::{segment_order, split_segments};
use gridsched_mapping::kumar::{self, DocPick};
use gridsched_mapping::{Heuristic, Schedule, SegmentKey, SufferageVariant, naive};

const EPS: f64 = 1e-9;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < EPS
}

fn sufferage(v: SufferageVariant) -> Heuristic {
    Heuristic::Sufferage(v)
}

fn sas(n: usize, v: SufferageVariant) -> Heuristic {
    Heuristic::Sas {
        segments: n,
        variant: v,
    }
}

fn run(h: Heuristic) -> Schedule {
    let etc = kumar::table_4_1();
    let s = h.map(&etc).unwrap();
    s.validate(&etc).unwrap();
    assert_eq!(
        s,
        naive::map(&h, &etc).unwrap(),
        "{h}: fast and naive differ"
    );
    s
}

/// Replays the picks in order and checks each against the document: task, machine, key
/// (to 2 decimals, as printed) and the ready times after it.
fn assert_sequence(s: &Schedule, doc: &[DocPick], ready_after: &[[f64; 4]]) {
    let mut r = [0.0; 4];
    for (k, (p, d)) in s.picks().iter().zip(doc).enumerate() {
        assert_eq!(
            (p.task, p.machine),
            (d.0, d.1),
            "pick {k}: got t{}→R{}, document t{}→R{}",
            p.task + 1,
            p.machine + 1,
            d.0 + 1,
            d.1 + 1
        );
        assert!(
            (p.key - d.2).abs() < 0.005 + EPS,
            "pick {k} (t{}): key {} vs {}",
            p.task + 1,
            p.key,
            d.2
        );
        r[p.machine] = p.end;
        for j in 0..4 {
            assert!(
                (r[j] - ready_after[k][j]).abs() < 1e-9,
                "after pick {k}: r = {r:?}, document {:?}",
                ready_after[k]
            );
        }
    }
    assert_eq!(s.picks().len(), doc.len());
}

#[test]
fn keys_sort_order_and_segments() {
    let etc = kumar::table_4_1();
    let printed = [5.42, 4.64, 5.73, 4.68, 3.67, 6.54, 3.49, 6.33, 5.66, 3.42];
    let exact = [
        5.42, 4.645, 5.735, 4.6825, 3.67, 6.54, 3.495, 6.33, 5.665, 3.425,
    ];
    for i in 0..10 {
        let key = SegmentKey::Avg.of(etc.row(i));
        assert!(close(key, exact[i]), "t{}: {key}", i + 1);
        // The thesis truncates to two decimals.
        assert!(close((key * 100.0 + 1e-9).floor() / 100.0, printed[i]));
    }
    let order = segment_order(&etc, SegmentKey::Avg);
    assert_eq!(order, kumar::SORTED_ORDER);
    let segs = split_segments(&order, 2);
    assert_eq!(segs[0], [5, 7, 2, 8, 0]); // t6, t8, t3, t9, t1
    assert_eq!(segs[1], [3, 1, 4, 6, 9]); // t4, t2, t5, t7, t10
}

#[test]
fn sufferage_sequential_matches_every_step() {
    let s = run(sufferage(SufferageVariant::Sequential));
    assert_sequence(&s, &kumar::SUFFERAGE_PICKS, &kumar::SUFFERAGE_READY);
    assert!(close(s.makespan(), 6.88));
}

#[test]
fn sufferage_iteration_tables_as_printed() {
    // §4.2: iteration 1 sufferage values, then iteration 2 with r = (0, 0, 0, 1.37).
    let etc = kumar::table_4_1();
    let suff = |task: usize, r: [f64; 4]| {
        let mut ct: Vec<f64> = (0..4).map(|j| etc.get(task, j) + r[j]).collect();
        ct.sort_by(f64::total_cmp);
        ct[1] - ct[0]
    };
    let it1 = [1.14, 0.98, 1.21, 0.99, 0.77, 1.38, 0.74, 1.33, 1.19, 0.72];
    let it2 = [
        0.23,
        0.39,
        0.16,
        0.38,
        0.6,
        f64::NAN,
        0.63,
        0.04,
        0.18,
        0.65,
    ];
    let it3 = [
        1.21,
        1.05,
        1.28,
        1.06,
        0.84,
        f64::NAN,
        0.81,
        1.40,
        1.26,
        f64::NAN,
    ];
    for t in 0..10 {
        assert!(
            (suff(t, [0.0; 4]) - it1[t]).abs() < 0.005 + EPS,
            "it1 t{}",
            t + 1
        );
        if it2[t].is_finite() {
            assert!(
                (suff(t, [0.0, 0.0, 0.0, 1.37]) - it2[t]).abs() < 0.005 + EPS,
                "it2 t{}",
                t + 1
            );
        }
        if it3[t].is_finite() {
            assert!(
                (suff(t, [0.0, 1.44, 0.0, 1.37]) - it3[t]).abs() < 0.005 + EPS,
                "it3 t{}",
                t + 1
            );
        }
    }
}

#[test]
fn sufferage_batch_matches_pass_by_pass() {
    let s = run(sufferage(SufferageVariant::Batch));
    // Same decisions; t7 and t3 share a pass, assigned in machine order (R3 before R4).
    let passes: Vec<Vec<(usize, usize)>> = {
        let mut v: Vec<Vec<(usize, usize)>> = Vec::new();
        for p in s.picks() {
            if v.len() <= p.round {
                v.push(Vec::new());
            }
            v[p.round].push((p.task, p.machine));
        }
        v
    };
    assert_eq!(
        passes,
        vec![
            vec![(5, 3)],
            vec![(9, 1)],
            vec![(7, 3)],
            vec![(1, 1)],
            vec![(6, 2), (2, 3)],
            vec![(8, 3)],
            vec![(4, 1)],
            vec![(0, 3)],
            vec![(3, 2)],
        ]
    );
    for d in kumar::SUFFERAGE_PICKS {
        let p = s.pick_of(d.0);
        assert_eq!(p.machine, d.1);
        // t7 is decided in the same pass as t3, i.e. before t3 raises r4 to 3.90: its
        // sufferage is then 3.43 − 2.94 = 0.49, not the sequential reading's 1.69.
        let key = if d.0 == 6 { 0.49 } else { d.2 };
        assert!((p.key - key).abs() < 0.005 + EPS, "t{}: {}", d.0 + 1, p.key);
    }
    assert_eq!(
        s.ready_times(),
        run(sufferage(SufferageVariant::Sequential)).ready_times()
    );
    assert!(close(s.makespan(), 6.88));
}

#[test]
fn sas_two_segments_matches_every_step_in_both_readings() {
    for v in [SufferageVariant::Batch, SufferageVariant::Sequential] {
        let s = run(sas(2, v));
        assert_sequence(&s, &kumar::SAS2_PICKS, &kumar::SAS2_READY);
        assert!(close(s.makespan(), 6.20), "{v:?}");
        let segs: Vec<usize> = s.picks().iter().map(|p| p.segment).collect();
        assert_eq!(segs, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
        // The printed sufferage slips, documented rather than asserted: the exact t2 value at
        // S2.3 is 0.76 (printed 0.95), t7 at S2.4 0.31 (printed 0.76).
        assert!((s.pick_of(1).key - 0.76).abs() < 0.005 + EPS);
        assert!((s.pick_of(1).key - 0.95).abs() > 0.1);
        assert!((s.pick_of(6).key - 0.31).abs() < 0.005 + EPS);
    }
}

#[test]
fn gantt_charts_of_figures_4_2_and_4_3() {
    let tasks = |s: &Schedule, j: usize| -> Vec<usize> {
        s.machine_sequence(j).iter().map(|p| p.task + 1).collect()
    };
    let suff = run(sufferage(SufferageVariant::Batch));
    assert_eq!(tasks(&suff, 0), Vec::<usize>::new());
    assert_eq!(tasks(&suff, 1), [10, 2, 5]);
    assert_eq!(tasks(&suff, 2), [7, 4]);
    assert_eq!(tasks(&suff, 3), [6, 8, 3, 9, 1]);
    let sas2 = run(sas(2, SufferageVariant::Batch));
    assert_eq!(tasks(&sas2, 0), Vec::<usize>::new());
    assert_eq!(tasks(&sas2, 1), [1, 9, 5]);
    assert_eq!(tasks(&sas2, 2), [10, 7]);
    assert_eq!(tasks(&sas2, 3), [6, 8, 3, 4, 2]);
    // Back to back from 0.
    for s in [&suff, &sas2] {
        for j in 0..4 {
            let seq = s.machine_sequence(j);
            let mut at = 0.0;
            for p in seq {
                assert_eq!(p.start, at);
                at = p.end;
            }
            assert_eq!(at, s.ready_times()[j]);
        }
    }
}

#[test]
fn regression_fixtures_of_section_4_3() {
    let cases: Vec<(&str, Heuristic)> = vec![
        ("sufferage", sufferage(SufferageVariant::Batch)),
        ("sas-2", sas(2, SufferageVariant::Batch)),
        ("min-min", Heuristic::MinMin),
        ("max-min", Heuristic::MaxMin),
        ("sas-4", sas(4, SufferageVariant::Batch)),
        ("sas-3", sas(3, SufferageVariant::Batch)),
        ("sas-5", sas(5, SufferageVariant::Batch)),
    ];
    for (name, h) in cases {
        let expected = kumar::FINAL_READY.iter().find(|f| f.0 == name).unwrap().1;
        for v in [SufferageVariant::Batch, SufferageVariant::Sequential] {
            let s = run(h.with_variant(v));
            for j in 0..4 {
                assert!(
                    (s.ready_times()[j] - expected[j]).abs() < 1e-9,
                    "{name} {v:?}: r = {:?}, spec {expected:?}",
                    s.ready_times()
                );
            }
        }
    }
    // N = 1 is Sufferage on the sorted list: same makespan 6.88.
    assert!(close(run(sas(1, SufferageVariant::Batch)).makespan(), 6.88));
    let order = |h| -> Vec<usize> { run(h).picks().iter().map(|p| p.task).collect() };
    assert_eq!(order(Heuristic::MinMin), kumar::MIN_MIN_ORDER);
    assert_eq!(order(Heuristic::MaxMin), kumar::MAX_MIN_ORDER);
}

#[test]
fn metrics_of_section_4_3() {
    // (name, heuristic, ru, d, beta) with T = makespan.
    let cases = [
        (
            "sufferage",
            sufferage(SufferageVariant::Batch),
            0.6555,
            0.3920,
            0.4020,
        ),
        (
            "sas-2",
            sas(2, SufferageVariant::Batch),
            0.7206,
            0.4167,
            0.4217,
        ),
        ("min-min", Heuristic::MinMin, 0.6591, 0.3921, 0.4051),
        ("max-min", Heuristic::MaxMin, 0.6785, 0.4056, 0.4022),
    ];
    for (name, h, ru, d, beta) in cases {
        let m = run(h).metrics();
        assert!(
            (m.utilization - ru).abs() < 5e-5,
            "{name}: ru {}",
            m.utilization
        );
        assert!((m.deviation - d).abs() < 5e-5, "{name}: d {}", m.deviation);
        assert!(
            (m.load_balance - beta).abs() < 5e-5,
            "{name}: beta {}",
            m.load_balance
        );
    }
}
