//! HEFT support (spec §2.5 eq. 7): upward ranks, the priority list, the critical path, total
//! work, and the data-transfer model.
//!
//! `rank_u(i) = w_i + max_{j ∈ succ(i)} (c_ij + rank_u(j))` (`rank_u = w_i` for an exit), with
//! `w_i` the average computation cost of task `i` over the resources ([`ComputeCost`]) and
//! `c_ij` the average transfer time of edge `i → j` ([`RankOptions`]). Computed once in
//! reverse topological order: `O(V + E)`.

use crate::dag::{Edge, Task, TaskId, Workflow};
use crate::error::{ErrorKind, Location, WorkflowError};

/// The average computation cost `w_i` of a task over the system's resources.
pub trait ComputeCost {
    /// `w_i` in seconds (finite, `>= 0`).
    fn average(&self, task: &Task) -> f64;
}

/// `w_i` = the task's reference runtime: homogeneous resources, as in every experiment of the
/// thesis ("the resources are considered homogeneous in processing capacity").
#[derive(Debug, Clone, Copy, Default)]
pub struct ReferenceRuntime;

impl ComputeCost for ReferenceRuntime {
    fn average(&self, task: &Task) -> f64 {
        task.runtime
    }
}

/// `w_i = runtime × mean_r(1 / speed_r)`: resources that run the reference machine's second in
/// `1 / speed_r` seconds; the mean over resources of the task's runtime there.
#[derive(Debug, Clone)]
pub struct MeanOverSpeeds {
    inverse_mean: f64,
}

impl MeanOverSpeeds {
    /// From the resources' relative speeds (each finite and `> 0`, at least one).
    pub fn new(speeds: &[f64]) -> Result<Self, WorkflowError> {
        if speeds.is_empty() || speeds.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(WorkflowError::new(
                "<heft>",
                Location::None,
                ErrorKind::InvalidParameter {
                    name: "speeds",
                    message: format!("need at least one finite speed > 0, got {speeds:?}"),
                },
            ));
        }
        let inverse_mean = speeds.iter().map(|s| 1.0 / s).sum::<f64>() / speeds.len() as f64;
        Ok(MeanOverSpeeds { inverse_mean })
    }
}

impl ComputeCost for MeanOverSpeeds {
    fn average(&self, task: &Task) -> f64 {
        task.runtime * self.inverse_mean
    }
}

impl<F: Fn(&Task) -> f64> ComputeCost for F {
    fn average(&self, task: &Task) -> f64 {
        self(task)
    }
}

/// Data-transfer time between two tasks on *different* resources (spec §2.5, §4.3: "transfer
/// time = size / bandwidth + latency when the endpoints are on different sites"; zero on the
/// same resource; no contention). The thesis's multi-site numbers are 10 Gbps and 150 s
/// ([`TransferModel::singh_multisite`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferModel {
    /// Bytes per second (`+∞` for free transfers).
    pub bandwidth: f64,
    /// Seconds added to every transfer between different resources.
    pub latency: f64,
    /// **Switch** (spec silent): whether an edge that carries no data (a pure control
    /// dependency, or an edge of a dummy entry/exit task) still pays the latency. Default
    /// `false`: no data, no transfer. The literal reading of "size/bandwidth + latency" is
    /// `true`.
    pub latency_on_empty_edges: bool,
}

impl Default for TransferModel {
    fn default() -> Self {
        TransferModel::none()
    }
}

impl TransferModel {
    /// No transfer cost (single-site experiments, Ch. 4: "the data transfer time between the
    /// tasks is zero since all tasks are executed on the same resource").
    pub const fn none() -> Self {
        TransferModel {
            bandwidth: f64::INFINITY,
            latency: 0.0,
            latency_on_empty_edges: false,
        }
    }

    /// A model with `bandwidth` bytes/s and `latency` seconds (both validated).
    pub fn new(bandwidth: f64, latency: f64) -> Result<Self, WorkflowError> {
        let bad = |name: &'static str, v: f64| {
            WorkflowError::new(
                "<heft>",
                Location::None,
                ErrorKind::InvalidParameter {
                    name,
                    message: format!("must be > 0 (bandwidth) / >= 0 (latency), got {v}"),
                },
            )
        };
        if bandwidth.is_nan() || bandwidth <= 0.0 {
            return Err(bad("bandwidth", bandwidth));
        }
        if !(latency.is_finite() && latency >= 0.0) {
            return Err(bad("latency", latency));
        }
        Ok(TransferModel {
            bandwidth,
            latency,
            latency_on_empty_edges: false,
        })
    }

    /// The thesis's multi-site setting (Ch. 4 Fig. 19, Ch. 7 Fig. 56): 10 Gbps (1.25·10⁹
    /// bytes/s) and 150 s latency, so its 1000 Gb mean edge costs 1000/10 + 150 = 250 s.
    pub fn singh_multisite() -> Self {
        TransferModel {
            bandwidth: 10.0 * GBIT,
            latency: 150.0,
            latency_on_empty_edges: false,
        }
    }

    /// Seconds to move `bytes` between two different resources.
    pub fn time(&self, bytes: u64) -> f64 {
        if bytes == 0 && !self.latency_on_empty_edges {
            return 0.0;
        }
        self.latency + bytes as f64 / self.bandwidth
    }

    /// Seconds to move `bytes` from a parent to a child, zero when both run on the same resource.
    pub fn between(&self, bytes: u64, same_resource: bool) -> f64 {
        if same_resource { 0.0 } else { self.time(bytes) }
    }
}

/// One gigabit (10⁹ bits) in bytes: the unit of the thesis's data volumes and bandwidths
/// ("1000 Gb" per edge over "10 Gbps" links).
pub const GBIT: f64 = 1e9 / 8.0;

/// How the rank's average transfer time `c_ij` is formed. **Switch** (spec §2.5: "`c_ij` is
/// the mean transfer time, using average bandwidth and latency").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RankTransfer {
    /// `c_ij = latency + bytes / bandwidth` with the average link (HEFT as published, and the
    /// thesis's wording). The default.
    #[default]
    AverageLink,
    /// `c_ij × (R − 1) / R`: the expected transfer time when parent and child land on one of `R`
    /// resources uniformly and independently (same resource → free).
    ExpectedOverResources { resources: u32 },
    /// `c_ij = 0`: ranks from computation only.
    Zero,
}

/// The edge-cost side of a rank computation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RankOptions {
    /// The transfer model (default: no transfer cost).
    pub transfer: TransferModel,
    /// How `c_ij` averages it (default: the average link).
    pub rank_transfer: RankTransfer,
}

impl RankOptions {
    /// `c_ij` for one edge.
    pub fn edge_cost(&self, e: &Edge) -> f64 {
        match self.rank_transfer {
            RankTransfer::AverageLink => self.transfer.time(e.bytes),
            RankTransfer::ExpectedOverResources { resources } => {
                if resources <= 1 {
                    0.0
                } else {
                    let r = f64::from(resources);
                    self.transfer.time(e.bytes) * (r - 1.0) / r
                }
            }
            RankTransfer::Zero => 0.0,
        }
    }
}

/// Upward ranks of every task, the priority list and the critical path.
#[derive(Debug, Clone)]
pub struct UpwardRanks {
    rank: Vec<f64>,
    /// The successor that attains the max in eq. 7 (lowest id on ties), for the critical path.
    best_child: Vec<Option<TaskId>>,
    priority: Vec<TaskId>,
}

/// Computes `rank_u` for every task of `wf`.
pub fn upward_ranks(wf: &Workflow, compute: &impl ComputeCost, opts: &RankOptions) -> UpwardRanks {
    let n = wf.len();
    let mut rank = vec![0.0f64; n];
    let mut best_child = vec![None; n];
    for &t in wf.topological_order().iter().rev() {
        let mut best = 0.0f64;
        let mut arg = None;
        for e in wf.successors(t) {
            let v = opts.edge_cost(e) + rank[e.child.index()];
            // Strictly greater: successors come in ascending id, so ties keep the lowest id.
            if arg.is_none() || v > best {
                best = v;
                arg = Some(e.child);
            }
        }
        rank[t.index()] = compute.average(wf.task(t)) + best;
        best_child[t.index()] = arg;
    }
    let mut priority: Vec<TaskId> = wf.task_ids().collect();
    priority.sort_by(|&a, &b| {
        rank[b.index()]
            .total_cmp(&rank[a.index()])
            .then(wf.topo_position(a).cmp(&wf.topo_position(b)))
    });
    UpwardRanks {
        rank,
        best_child,
        priority,
    }
}

impl UpwardRanks {
    /// `rank_u(t)`.
    #[inline]
    pub fn rank(&self, t: TaskId) -> f64 {
        self.rank[t.index()]
    }

    /// All ranks, indexed by [`TaskId`].
    pub fn ranks(&self) -> &[f64] {
        &self.rank
    }

    /// The HEFT priority list: tasks by non-increasing `rank_u`; ties go to the task earlier in
    /// the workflow's [topological order](Workflow::topological_order) (Kahn's order, lowest
    /// ready id first). With non-negative costs a parent's rank is never below its child's, so
    /// this tie rule makes the list a topological order even when zero-cost tasks or edges
    /// (dummy entry/exit) give a parent and a child equal ranks.
    pub fn priority_list(&self) -> &[TaskId] {
        &self.priority
    }

    /// The critical path: from the task with the largest rank (first in the priority list)
    /// along the successors attaining eq. 7's max (lowest id on ties). Its length is that
    /// task's rank. `None` for an empty workflow.
    pub fn critical_path(&self) -> Option<CriticalPath> {
        let &start = self.priority.first()?;
        let mut tasks = vec![start];
        let mut t = start;
        while let Some(next) = self.best_child[t.index()] {
            tasks.push(next);
            t = next;
        }
        Some(CriticalPath {
            length: self.rank[start.index()],
            tasks,
        })
    }
}

/// A longest path through the DAG, with computation and transfer costs.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalPath {
    /// `Σ w` over its tasks + `Σ c` over its edges (seconds).
    pub length: f64,
    /// Its tasks, entry first.
    pub tasks: Vec<TaskId>,
}

/// The critical path of `wf` (0-length, empty for an empty workflow).
pub fn critical_path(
    wf: &Workflow,
    compute: &impl ComputeCost,
    opts: &RankOptions,
) -> CriticalPath {
    upward_ranks(wf, compute, opts)
        .critical_path()
        .unwrap_or(CriticalPath {
            length: 0.0,
            tasks: Vec::new(),
        })
}

/// `Σ_i w_i`: the work of the whole workflow in seconds (one processor each).
pub fn total_work(wf: &Workflow, compute: &impl ComputeCost) -> f64 {
    wf.tasks().iter().map(|t| compute.average(t)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::{EdgeSource, WorkflowBuilder};

    #[test]
    fn singh_transfer_example() {
        // "1000/10 + 150 = 250 seconds".
        let m = TransferModel::singh_multisite();
        let bytes = (1000.0 * GBIT) as u64;
        assert!((m.time(bytes) - 250.0).abs() < 1e-9);
        assert_eq!(m.between(bytes, true), 0.0);
        assert_eq!(m.time(0), 0.0);
        let literal = TransferModel {
            latency_on_empty_edges: true,
            ..m
        };
        assert_eq!(literal.time(0), 150.0);
        assert_eq!(TransferModel::none().time(bytes), 0.0);
    }

    #[test]
    fn ranks_of_a_small_dag() {
        // a(2) -> b(3) -> d(1); a -> c(5) -> d; edge a->b carries 10 s of data.
        let mut bl = WorkflowBuilder::new("t");
        let ids: Vec<_> = [("a", 2.0), ("b", 3.0), ("c", 5.0), ("d", 1.0)]
            .iter()
            .map(|(id, r)| bl.add_task(*id, "T", *r, 1, Location::None).unwrap())
            .collect();
        bl.add_edge(ids[0], ids[1], 10);
        bl.add_edge(ids[0], ids[2], 0);
        bl.add_edge(ids[1], ids[3], 0);
        bl.add_edge(ids[2], ids[3], 0);
        let w = bl.build(EdgeSource::Union).unwrap();
        let opts = RankOptions {
            transfer: TransferModel::new(1.0, 0.0).unwrap(),
            rank_transfer: RankTransfer::AverageLink,
        };
        let r = upward_ranks(&w, &ReferenceRuntime, &opts);
        assert_eq!(r.ranks(), &[2.0 + 10.0 + 4.0, 4.0, 6.0, 1.0]);
        assert_eq!(r.priority_list(), &[ids[0], ids[2], ids[1], ids[3]]);
        let cp = r.critical_path().unwrap();
        assert_eq!(cp.length, 16.0);
        assert_eq!(cp.tasks, vec![ids[0], ids[1], ids[3]]);
        let half = RankOptions {
            rank_transfer: RankTransfer::ExpectedOverResources { resources: 2 },
            ..opts
        };
        assert_eq!(
            upward_ranks(&w, &ReferenceRuntime, &half).rank(ids[0]),
            11.0
        );
        assert_eq!(total_work(&w, &ReferenceRuntime), 11.0);
        let fast = MeanOverSpeeds::new(&[1.0, 4.0]).unwrap(); // mean(1, 1/4) = 0.625
        assert_eq!(total_work(&w, &fast), 11.0 * 0.625);
        assert_eq!(total_work(&w, &|t: &Task| t.runtime * 2.0), 22.0);
    }
}
