//! The exact reference for [`heft`](crate::heft): every path enumerated, nothing memoized.
//! Exponential in the DAG's size; for tests on small DAGs only.
//!
//! `rank_u(i)` is the longest path starting at `i` (costs `w` on tasks, `c` on edges), which
//! equals eq. 7's recursion; the critical path is the longest path of all.

use crate::dag::{TaskId, Workflow};
use crate::heft::{ComputeCost, RankOptions};

/// Every maximal path starting at `from` (ending at a task without children), in DFS order
/// (children ascending).
pub fn paths_from(wf: &Workflow, from: TaskId) -> Vec<Vec<TaskId>> {
    let mut out = Vec::new();
    let mut path = vec![from];
    walk(wf, &mut path, &mut out);
    out
}

fn walk(wf: &Workflow, path: &mut Vec<TaskId>, out: &mut Vec<Vec<TaskId>>) {
    let t = *path.last().expect("non-empty path");
    let succ = wf.successors(t);
    if succ.is_empty() {
        out.push(path.clone());
        return;
    }
    for e in succ {
        path.push(e.child);
        walk(wf, path, out);
        path.pop();
    }
}

/// `Σ w` over the path's tasks plus `Σ c` over its edges, summed from the start. `None` if two
/// consecutive tasks are not joined by an edge.
pub fn path_length(
    wf: &Workflow,
    path: &[TaskId],
    compute: &impl ComputeCost,
    opts: &RankOptions,
) -> Option<f64> {
    let mut len = 0.0;
    for (i, &t) in path.iter().enumerate() {
        len += compute.average(wf.task(t));
        if let Some(&next) = path.get(i + 1) {
            len += opts.edge_cost(wf.edge(t, next)?);
        }
    }
    Some(len)
}

/// `rank_u` of every task, as the longest of its paths.
pub fn brute_force_ranks(
    wf: &Workflow,
    compute: &impl ComputeCost,
    opts: &RankOptions,
) -> Vec<f64> {
    wf.task_ids()
        .map(|t| {
            paths_from(wf, t)
                .iter()
                .map(|p| path_length(wf, p, compute, opts).expect("enumerated paths follow edges"))
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect()
}

/// The length of the longest path in the DAG (0 for an empty one).
pub fn brute_force_critical_path(
    wf: &Workflow,
    compute: &impl ComputeCost,
    opts: &RankOptions,
) -> f64 {
    brute_force_ranks(wf, compute, opts)
        .into_iter()
        .fold(0.0, f64::max)
}
