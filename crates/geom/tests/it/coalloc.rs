//! The quantized co-allocation index: the thesis's worked example (spec fixture F5.2) and
//! property tests against a brute-force oracle and the literal pseudo-code.

use std::cmp::Reverse;

use gridsched_geom::coalloc::literal::{literal_search, quantum_members};
use gridsched_geom::coalloc::{CoallocPeriod, CoallocPick, OPEN_END, QuantizedIndex};
use proptest::prelude::*;

fn p(start: i64, end: i64, server: u32) -> CoallocPeriod {
    CoallocPeriod { start, end, server }
}

/// Fig. 5.1 as instantiated by spec §6 F5.2 (servers S1..S4 = 0..3), l_q = 10, Q = quanta.
fn fig_5_1(quanta: u32) -> QuantizedIndex {
    let mut ix = QuantizedIndex::new(4, 10, quanta, 1, 0).unwrap();
    for (server, a, b) in [
        (0, 0, 4),
        (0, 25, 37),
        (1, 0, 15),
        (1, 35, 40),
        (2, 0, 12),
        (2, 30, 45),
        (3, 0, 2),
        (3, 20, 33),
    ] {
        ix.reserve_on(server, a, b).unwrap();
    }
    ix
}

const X: CoallocPeriod = CoallocPeriod {
    start: 4,
    end: 25,
    server: 0,
};
const Y: CoallocPeriod = CoallocPeriod {
    start: 15,
    end: 35,
    server: 1,
};
const Z: CoallocPeriod = CoallocPeriod {
    start: 12,
    end: 30,
    server: 2,
};
const V: CoallocPeriod = CoallocPeriod {
    start: 2,
    end: 20,
    server: 3,
};

fn sorted(mut v: Vec<CoallocPeriod>) -> Vec<CoallocPeriod> {
    v.sort();
    v
}

#[test]
fn f5_2_state_matches_the_figure() {
    let ix = fig_5_1(10);
    // X is stored in t0, t10 and t20, as the text says.
    for q in 0..=2 {
        assert!(ix.quantum_set(q).contains(&X), "quantum {q}");
    }
    assert!(!ix.quantum_set(3).contains(&X));
    assert_eq!(
        ix.quantum_set(1),
        vec![Y, Z, X, V],
        "t10 in descending start"
    );
}

#[test]
fn f5_2_phase_1_and_2_choose_y_and_z() {
    let mut ix = fig_5_1(10);
    ix.advance_to(17);
    let (found, stats) = ix.range_search(17, 29);
    assert_eq!(found, vec![Y, Z], "range search [17, 29) returns S2 and S3");
    assert_eq!(stats.candidates, 4);

    let mut chosen = Vec::new();
    let a = ix.select(17, 12, 2, CoallocPick::Tree, &mut chosen);
    assert!(a.stats.success);
    assert_eq!(a.stats.candidates, 4, "C^s = 4");
    assert_eq!(a.stats.feasible, 2, "C^e = 2");
    assert_eq!(chosen, vec![Y, Z]);
    let literal = literal_search(&ix.quantum_set(1), 17, 29, 2);
    assert_eq!(literal.chosen, chosen);
    assert_eq!(literal.visits, a.stats.visits);

    ix.reserve(&chosen, 17, 12).unwrap();
    assert_eq!(
        sorted(ix.quantum_set(1)),
        sorted(vec![X, V, p(15, 17, 1), p(12, 17, 2)]),
        "t10 afterwards = {{X, V, [15,17)_S2, [12,17)_S3}}"
    );
    assert!(ix.quantum_set(2).contains(&p(29, 35, 1)));
    assert!(ix.quantum_set(3).contains(&p(29, 35, 1)));
    assert!(ix.quantum_set(2).contains(&p(29, 30, 2)));
    assert!(!ix.quantum_set(3).contains(&p(29, 30, 2)));
}

#[test]
fn f5_2b_attempt_by_attempt() {
    let mut ix = fig_5_1(10);
    ix.advance_to(17);
    // (s, C^s, C^e, success) per spec §6 F5.2b (n = 3, l = 12, Δt = 5).
    let table = [
        (17, 4, 2, false),
        (22, 3, 1, false),
        (27, 3, 0, false),
        (32, 1, 0, false),
        (37, 3, 2, false),
        (42, 3, 3, true),
    ];
    for (s, cs, ce, ok) in table {
        let mut chosen = Vec::new();
        let a = ix.select(s, 12, 3, CoallocPick::Tree, &mut chosen);
        assert_eq!(a.stats.candidates, cs, "C^s at s = {s}");
        if cs >= 3 {
            assert_eq!(a.stats.feasible, ce, "C^e at s = {s}");
        }
        assert_eq!(a.stats.success, ok, "s = {s}");
        if ok {
            // S2 (the exit leaf), then S1 and S4.
            let servers: Vec<u32> = chosen.iter().map(|p| p.server).collect();
            assert_eq!(servers, vec![1, 0, 3]);
            ix.reserve(&chosen, s, 12).unwrap();
            let live = ix.live_periods();
            for q in [p(37, 42, 0), p(40, 42, 1), p(33, 42, 3)] {
                assert!(live.contains(&q), "{q:?}");
            }
            for server in [0, 1, 3] {
                assert!(live.contains(&p(54, OPEN_END, server)));
            }
        }
    }
}

#[test]
fn f5_2c_after_the_hold() {
    let mut ix = fig_5_1(8);
    ix.advance_to(97);
    let mut chosen = Vec::new();
    let a = ix.select(97, 12, 3, CoallocPick::Tree, &mut chosen);
    assert!(a.stats.success);
    let servers: Vec<u32> = chosen.iter().map(|p| p.server).collect();
    assert_eq!(
        servers,
        vec![2, 1, 0],
        "S3, S2, then S1 (wins the tie with S4 by id)"
    );
}

#[test]
fn beyond_the_horizon_fails() {
    let mut ix = QuantizedIndex::new(2, 10, 4, 1, 0).unwrap();
    assert_eq!(ix.horizon_end(), 50);
    let mut chosen = Vec::new();
    let a = ix.select(50, 5, 1, CoallocPick::Tree, &mut chosen);
    assert!(a.beyond_horizon && !a.stats.success);
    let a = ix.select(49, 5, 1, CoallocPick::Tree, &mut chosen);
    assert!(a.stats.success);
    assert!(QuantizedIndex::new(0, 10, 4, 1, 0).is_err());
    assert!(QuantizedIndex::new(1, 0, 4, 1, 0).is_err());
    assert!(ix.reserve_on(0, 60, 70).is_err());
}

/// Brute-force model of the same state: every idle period of every server.
#[derive(Debug, Clone)]
struct Oracle {
    periods: Vec<CoallocPeriod>,
    min_fragment: i64,
}

impl Oracle {
    fn carve(&mut self, chosen: &[CoallocPeriod], s: i64, l: i64) {
        for c in chosen {
            let i = self
                .periods
                .iter()
                .position(|p| p == c)
                .expect("chosen is live");
            self.periods.swap_remove(i);
            if s - c.start >= self.min_fragment {
                self.periods.push(p(c.start, s, c.server));
            }
            if c.end == OPEN_END || c.end - (s + l) >= self.min_fragment {
                self.periods.push(p(s + l, c.end, c.server));
            }
        }
    }

    fn free(&self, s: i64, e: i64) -> usize {
        self.periods.iter().filter(|p| p.contains(s, e)).count()
    }
}

#[derive(Debug, Clone)]
enum Op {
    Advance(i64),
    Request { offset: i64, length: i64, n: u32 },
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            1 => (0i64..25).prop_map(Op::Advance),
            4 => (0i64..60, 1i64..40, 1u32..5).prop_map(|(offset, length, n)| Op::Request { offset, length, n }),
        ],
        1..60,
    )
}

fn pick_strategy() -> impl Strategy<Value = CoallocPick> {
    prop_oneof![
        4 => Just(CoallocPick::Tree),
        1 => Just(CoallocPick::LatestStart),
        1 => Just(CoallocPick::MinEnd),
    ]
}

/// The body of the oracle/literal property: every attempt agrees with the oracle (feasible iff
/// n servers are free over the window and the window starts inside the live quanta), the
/// quantum's contents are exactly the live periods intersecting it, the tree pick equals the
/// literal pseudo-code (chosen periods, counters, visits), and every allocation is valid.
fn agrees_with_oracle_and_literal(
    servers: u32,
    quantum: i64,
    quanta: u32,
    min_fragment: i64,
    pick: CoallocPick,
    ops: Vec<Op>,
    tree_budget: Option<usize>,
) -> Result<(), TestCaseError> {
    let mut ix = QuantizedIndex::new(servers, quantum, quanta, min_fragment, 0).unwrap();
    if let Some(budget) = tree_budget {
        ix = ix.with_range_tree(budget);
    }
    let mut oracle = Oracle {
        periods: (0..servers).map(|s| p(0, OPEN_END, s)).collect(),
        min_fragment,
    };
    let mut now = 0i64;
    for op in ops {
        match op {
            Op::Advance(d) => {
                now += d;
                ix.advance_to(now);
            }
            Op::Request { offset, length, n } => {
                let s = now + offset;
                let e = s + length;
                let mut chosen = Vec::new();
                let a = ix.select(s, length, n, pick, &mut chosen);
                let q = s.div_euclid(quantum);
                let in_window = s < ix.horizon_end();
                prop_assert_eq!(a.beyond_horizon, !in_window);
                let free = oracle.free(s, e);
                prop_assert_eq!(
                    a.stats.success,
                    in_window && free >= n as usize,
                    "s={} e={} n={} free={}",
                    s,
                    e,
                    n,
                    free
                );
                if !in_window {
                    continue;
                }
                let mut members = quantum_members(&oracle.periods, q, quantum);
                members.sort_by_key(|p| (Reverse(p.start), p.server));
                prop_assert_eq!(ix.quantum_set(q), members.clone());
                let lit = literal_search(&members, s, e, n as usize);
                prop_assert_eq!(lit.success, a.stats.success);
                prop_assert_eq!(lit.candidates, a.stats.candidates);
                if lit.candidates >= n as usize {
                    prop_assert_eq!(lit.feasible, a.stats.feasible);
                }
                let mut feasible: Vec<CoallocPeriod> = members
                    .iter()
                    .filter(|p| p.contains(s, e))
                    .copied()
                    .collect();
                match pick {
                    CoallocPick::Tree => {
                        prop_assert_eq!(&lit.chosen, &chosen);
                        prop_assert_eq!(lit.visits, a.stats.visits);
                    }
                    CoallocPick::LatestStart => {
                        feasible.sort_by_key(|p| (Reverse(p.start), p.server));
                        if a.stats.success {
                            prop_assert_eq!(&feasible[..n as usize], &chosen[..]);
                        }
                    }
                    CoallocPick::MinEnd => {
                        feasible.sort_by_key(|p| (p.end, p.server));
                        if a.stats.success {
                            prop_assert_eq!(&feasible[..n as usize], &chosen[..]);
                        }
                    }
                }
                // The range search returns every free server.
                let (all, _) = ix.range_search(s, e);
                prop_assert_eq!(all.len(), free);
                if a.stats.success {
                    prop_assert_eq!(chosen.len(), n as usize);
                    let mut ids: Vec<u32> = chosen.iter().map(|c| c.server).collect();
                    ids.sort_unstable();
                    ids.dedup();
                    prop_assert_eq!(ids.len(), n as usize, "distinct servers");
                    prop_assert!(chosen.iter().all(|c| c.contains(s, e)));
                    ix.reserve(&chosen, s, length).unwrap();
                    oracle.carve(&chosen, s, length);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Every attempt agrees with the oracle (feasible iff n servers are free over the window
    /// and the window starts inside the live quanta), the quantum's contents are exactly the
    /// live periods intersecting it, the tree pick equals the literal pseudo-code (chosen
    /// periods, counters, visits), and every allocation is valid.
    #[test]
    fn index_agrees_with_oracle_and_literal(
        servers in 1u32..7,
        quantum in 1i64..8,
        quanta in 1u32..9,
        min_fragment in 1i64..4,
        pick in pick_strategy(),
        ops in ops(),
    ) {
        agrees_with_oracle_and_literal(servers, quantum, quanta, min_fragment, pick, ops, None)?;
    }
}

/// Requests up to the width of a large machine, so that quantum lists span many chunks of the
/// index's storage and Phase 2 reads groups across chunk and list boundaries.
fn wide_ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            1 => (0i64..25).prop_map(Op::Advance),
            4 => (0i64..60, 1i64..40, prop_oneof![1u32..8, 1u32..400, 1u32..1400])
                .prop_map(|(offset, length, n)| Op::Request { offset, length, n }),
        ],
        1..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The same property on machines of 300–1,400 servers with wide requests (issue 18: the
    /// quantum lists are chunked and read by rank, never merged whole).
    #[test]
    fn wide_requests_on_large_machines_agree_with_oracle_and_literal(
        servers in 300u32..1400,
        quantum in 1i64..8,
        quanta in 1u32..9,
        min_fragment in 1i64..4,
        pick in pick_strategy(),
        ops in wide_ops(),
    ) {
        agrees_with_oracle_and_literal(servers, quantum, quanta, min_fragment, pick, ops, None)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The same property with the optional range tree answering the Phase-2 groups larger than
    /// `budget` (0: every group): the counts, the retrieval and every choice are unchanged.
    #[test]
    fn index_with_range_tree_agrees_with_oracle_and_literal(
        servers in 1u32..7,
        quantum in 1i64..8,
        quanta in 1u32..9,
        min_fragment in 1i64..4,
        pick in pick_strategy(),
        ops in ops(),
        budget in prop_oneof![Just(0usize), 1usize..4],
    ) {
        agrees_with_oracle_and_literal(servers, quantum, quanta, min_fragment, pick, ops, Some(budget))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Wide requests on large machines with the range tree (issue 18: the bounded index).
    #[test]
    fn wide_requests_with_range_tree_agree_with_oracle_and_literal(
        servers in 300u32..1400,
        quantum in 1i64..8,
        quanta in 1u32..9,
        min_fragment in 1i64..4,
        pick in pick_strategy(),
        ops in wide_ops(),
        budget in prop_oneof![Just(0usize), 1usize..64],
    ) {
        agrees_with_oracle_and_literal(servers, quantum, quanta, min_fragment, pick, ops, Some(budget))?;
    }
}
