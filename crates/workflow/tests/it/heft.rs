//! HEFT upward ranks and critical paths against the brute-force oracle (every path enumerated)
//! on random DAGs, and the priority list's order.

use gridsched_workflow::reference::{
    brute_force_critical_path, brute_force_ranks, path_length, paths_from,
};
use gridsched_workflow::{
    EdgeSource, Location, RankOptions, RankTransfer, ReferenceRuntime, Task, TransferModel,
    Workflow, WorkflowBuilder, critical_path, total_work, upward_ranks,
};
use proptest::prelude::*;

/// A random DAG of up to 9 tasks: tasks added in a random order (so ids are not a topological
/// order), an edge `i → j` for `i < j` in a hidden order with probability ~0.35, runtimes with
/// zeros among them, data volumes with zeros among them.
fn dag() -> impl Strategy<Value = Workflow> {
    (1usize..10)
        .prop_flat_map(|n| {
            (
                Just(n),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                proptest::collection::vec(prop_oneof![Just(0.0), 0.0f64..1000.0], n),
                proptest::collection::vec(
                    (
                        any::<bool>(),
                        any::<bool>(),
                        prop_oneof![Just(0u64), 0u64..5_000],
                    ),
                    n * n,
                ),
            )
        })
        .prop_map(|(n, order, runtimes, pairs)| {
            let mut b = WorkflowBuilder::new("prop");
            // Task k of the hidden order gets id order[k].
            let mut ids = vec![None; n];
            let mut by_id: Vec<usize> = (0..n).collect();
            by_id.sort_by_key(|&k| order[k]);
            for k in by_id {
                ids[k] = Some(
                    b.add_task(
                        format!("t{}", order[k]),
                        "T",
                        runtimes[k],
                        1,
                        Location::None,
                    )
                    .unwrap(),
                );
            }
            for i in 0..n {
                for j in i + 1..n {
                    let (x, y, bytes) = pairs[i * n + j];
                    if x && (!y || bytes % 3 == 0) {
                        b.add_edge(ids[i].unwrap(), ids[j].unwrap(), bytes);
                    }
                }
            }
            b.build(EdgeSource::Union).unwrap()
        })
}

fn options() -> impl Strategy<Value = RankOptions> {
    (
        prop_oneof![Just(f64::INFINITY), 1.0f64..100.0],
        prop_oneof![Just(0.0), 0.0f64..50.0],
        any::<bool>(),
        prop_oneof![
            Just(RankTransfer::AverageLink),
            (1u32..5).prop_map(|r| RankTransfer::ExpectedOverResources { resources: r }),
            Just(RankTransfer::Zero),
        ],
    )
        .prop_map(|(bandwidth, latency, empty, rank_transfer)| RankOptions {
            transfer: TransferModel {
                bandwidth,
                latency,
                latency_on_empty_edges: empty,
            },
            rank_transfer,
        })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn ranks_equal_the_longest_path_from_each_task(w in dag(), opts in options()) {
        let r = upward_ranks(&w, &ReferenceRuntime, &opts);
        let oracle = brute_force_ranks(&w, &ReferenceRuntime, &opts);
        for t in w.task_ids() {
            prop_assert!(close(r.rank(t), oracle[t.index()]), "task {}: {} vs {}", t.index(), r.rank(t), oracle[t.index()]);
        }
    }

    #[test]
    fn critical_path_is_a_longest_path(w in dag(), opts in options()) {
        let cp = critical_path(&w, &ReferenceRuntime, &opts);
        let best = brute_force_critical_path(&w, &ReferenceRuntime, &opts);
        prop_assert!(close(cp.length, best), "{} vs {}", cp.length, best);
        // The path itself: starts at an entry, ends at an exit, follows edges, has that length.
        let first = cp.tasks[0];
        let last = *cp.tasks.last().unwrap();
        prop_assert_eq!(w.parents(first).len(), 0);
        prop_assert!(w.successors(last).is_empty());
        let len = path_length(&w, &cp.tasks, &ReferenceRuntime, &opts);
        prop_assert!(len.is_some_and(|l| close(l, best)));
        // And it is one of the enumerated paths from its start.
        prop_assert!(paths_from(&w, first).contains(&cp.tasks));
    }

    #[test]
    fn priority_list_is_sorted_and_topological(w in dag(), opts in options()) {
        let r = upward_ranks(&w, &ReferenceRuntime, &opts);
        let list = r.priority_list();
        prop_assert_eq!(list.len(), w.len());
        let mut pos = vec![usize::MAX; w.len()];
        for (i, t) in list.iter().enumerate() {
            prop_assert_eq!(pos[t.index()], usize::MAX, "listed twice");
            pos[t.index()] = i;
        }
        for pair in list.windows(2) {
            prop_assert!(r.rank(pair[0]) >= r.rank(pair[1]));
            if r.rank(pair[0]) == r.rank(pair[1]) {
                prop_assert!(w.topo_position(pair[0]) < w.topo_position(pair[1]));
            }
        }
        for e in w.edges() {
            prop_assert!(pos[e.parent.index()] < pos[e.child.index()]);
        }
        // Deterministic: a second computation gives the same list.
        let again = upward_ranks(&w, &ReferenceRuntime, &opts);
        prop_assert_eq!(again.priority_list(), list);
    }

    #[test]
    fn pluggable_compute_cost(w in dag(), factor in 0.1f64..10.0) {
        let scaled = |t: &Task| t.runtime * factor;
        let opts = RankOptions::default();
        let r = upward_ranks(&w, &scaled, &opts);
        let oracle = brute_force_ranks(&w, &scaled, &opts);
        for t in w.task_ids() {
            prop_assert!(close(r.rank(t), oracle[t.index()]));
        }
        prop_assert!(close(total_work(&w, &scaled), w.total_runtime() * factor));
    }
}

#[test]
fn equal_ranks_along_an_edge_keep_topological_order() {
    // Zero-cost chain: every rank is 0, the list must still put parents first.
    let mut b = WorkflowBuilder::new("zeros");
    let c = b.add_task("c", "T", 0.0, 1, Location::None).unwrap();
    let a = b.add_task("a", "T", 0.0, 1, Location::None).unwrap();
    let m = b.add_task("m", "T", 0.0, 1, Location::None).unwrap();
    b.add_edge(a, m, 0);
    b.add_edge(m, c, 0);
    let w = b.build(EdgeSource::Union).unwrap();
    let r = upward_ranks(&w, &ReferenceRuntime, &RankOptions::default());
    assert_eq!(r.priority_list(), &[a, m, c]);
}
