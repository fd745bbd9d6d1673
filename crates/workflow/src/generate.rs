//! The synthetic workflow generator of spec §4.3 (Singh's "parameterized task graph
//! generator", Ch. 4 and 7).
//!
//! The thesis states: `n` tasks (100), `L` levels (10; depth `√n` for the size sweep of Figs.
//! 14/53), about `n / L` tasks per level, mean runtime 1000 s, mean processors per task 22
//! (CTC), 6 (SDSC) or 14 (multi-site), two parents per non-top task (stated for multi-site),
//! 1000 Gb mean data per edge (multi-site). The distributions are not given; every choice
//! below is the spec's PROPOSAL, and every alternative reading is a named field:
//!
//! | field | default (spec §4.3 PROPOSAL) | alternatives |
//! |---|---|---|
//! | [`depth`](SyntheticWorkflow::depth) | `Fixed(10)` | `SqrtTasks`: `round(√n)` (Figs. 14, 53) |
//! | [`level_widths`](SyntheticWorkflow::level_widths) | `Multinomial`: one task per level, the other `n − L` placed uniformly at random | `Even`: `⌊n/L⌋`, the first `n mod L` levels one more |
//! | [`runtime_mean`](SyntheticWorkflow::runtime_mean), [`runtime_spread`](SyntheticWorkflow::runtime_spread) | `U(μ(1−s), μ(1+s))` with μ = 1000 s, s = 0.5: `U(500, 1500)` | any `s ∈ [0, 1]` |
//! | [`procs_mean`](SyntheticWorkflow::procs_mean), [`max_procs`](SyntheticWorkflow::max_procs) | integer `U(1, 2μ_p − 1)`, μ_p = 22; not clamped | clamp to the cluster size |
//! | [`parents`](SyntheticWorkflow::parents) | 2 distinct tasks uniformly from the previous level (all of it if smaller) | any count ≥ 1 |
//! | [`edge_data_mean`](SyntheticWorkflow::edge_data_mean) | `U(0, 2·mean)` bytes, mean = 1000 Gb = 1.25·10¹¹ bytes | 0: no data |
//! | [`dummy_entry_exit`](SyntheticWorkflow::dummy_entry_exit) | `true`: an `entry` and an `exit` task, 0 s, 0 processors, 0-byte edges | `false` |
//!
//! A task of the previous level may end up with no child; it is then an exit (joined to the
//! dummy exit). The thesis does not say whether every task has a child, so nothing forces one.
//!
//! Random streams (named under the caller's [`StreamKey`], so a workflow is a pure function of
//! the key): `workflow.levels` (level widths), `workflow.runtimes`, `workflow.procs`,
//! `workflow.parents`, `workflow.data`. Changing one law never moves another's numbers.

use gridsched_sim::{StreamKey, Uniform};
use rand::Rng;

use crate::dag::{EdgeSource, TaskId, Workflow, WorkflowBuilder};
use crate::error::{ErrorKind, Location, WorkflowError};
use crate::heft::GBIT;

/// The number of levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Exactly this many levels.
    Fixed(u32),
    /// `round(√n)` levels (at least 1): "the depth of the workflow is √n" (Figs. 14, 53).
    SqrtTasks,
}

impl Depth {
    /// The level count for `tasks` tasks.
    pub fn levels(self, tasks: u32) -> u32 {
        match self {
            Depth::Fixed(l) => l,
            Depth::SqrtTasks => (f64::from(tasks).sqrt().round() as u32).max(1),
        }
    }
}

/// How the tasks are spread over the levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelWidths {
    /// One task per level, the remaining `n − L` each placed in a uniformly random level
    /// (multinomial around `n / L`, every level ≥ 1). Spec §4.3's PROPOSAL; the default.
    Multinomial,
    /// `⌊n / L⌋` per level, the first `n mod L` levels one more.
    Even,
}

/// The parameters of one synthetic workflow (see the module docs for each default's source).
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticWorkflow {
    /// Real tasks `n` (the dummies come on top).
    pub tasks: u32,
    /// Levels `L`.
    pub depth: Depth,
    /// Tasks per level.
    pub level_widths: LevelWidths,
    /// Mean runtime μ, seconds.
    pub runtime_mean: f64,
    /// Runtimes are `U(μ(1 − s), μ(1 + s))`; `s ∈ [0, 1]`.
    pub runtime_spread: f64,
    /// Mean processors μ_p; processors are integer `U(1, 2μ_p − 1)`.
    pub procs_mean: u32,
    /// Clamp processors to this (the cluster size), if given.
    pub max_procs: Option<u32>,
    /// Parents per non-top task (fewer when the previous level is smaller).
    pub parents: u32,
    /// Mean data per edge in bytes; volumes are `U(0, 2·mean)`.
    pub edge_data_mean: f64,
    /// Add the dummy entry and exit tasks.
    pub dummy_entry_exit: bool,
}

impl Default for SyntheticWorkflow {
    /// The Ch. 4 workflow on CTC: 100 tasks, 10 levels, 1000 s, 22 processors.
    fn default() -> Self {
        SyntheticWorkflow {
            tasks: 100,
            depth: Depth::Fixed(10),
            level_widths: LevelWidths::Multinomial,
            runtime_mean: 1000.0,
            runtime_spread: 0.5,
            procs_mean: 22,
            max_procs: None,
            parents: 2,
            edge_data_mean: 1000.0 * GBIT,
            dummy_entry_exit: true,
        }
    }
}

impl SyntheticWorkflow {
    /// Ch. 4/7 on CTC (430 processors): 22 processors per task on average.
    pub fn singh_ctc() -> Self {
        SyntheticWorkflow {
            max_procs: Some(430),
            ..SyntheticWorkflow::default()
        }
    }

    /// Ch. 4/7 on SDSC (128 processors): 6 processors per task on average.
    pub fn singh_sdsc() -> Self {
        SyntheticWorkflow {
            procs_mean: 6,
            max_procs: Some(128),
            ..SyntheticWorkflow::default()
        }
    }

    /// The multi-site workflow of Figs. 19/56: 14 processors per task, 2 parents, 1000 Gb edges.
    pub fn singh_multisite() -> Self {
        SyntheticWorkflow {
            procs_mean: 14,
            ..SyntheticWorkflow::default()
        }
    }

    /// The size sweep of Figs. 14/53: `n` tasks, depth `√n`.
    pub fn with_size(self, tasks: u32) -> Self {
        SyntheticWorkflow {
            tasks,
            depth: Depth::SqrtTasks,
            ..self
        }
    }

    fn invalid(name: &'static str, message: String) -> WorkflowError {
        WorkflowError::new(
            "<synthetic>",
            Location::None,
            ErrorKind::InvalidParameter { name, message },
        )
    }

    /// Checks every parameter's domain.
    pub fn validate(&self) -> Result<(), WorkflowError> {
        let levels = self.depth.levels(self.tasks);
        if self.tasks == 0 {
            return Err(Self::invalid("tasks", "must be at least 1".into()));
        }
        if levels == 0 || levels > self.tasks {
            return Err(Self::invalid(
                "depth",
                format!(
                    "{levels} levels for {} tasks: need 1 <= levels <= tasks",
                    self.tasks
                ),
            ));
        }
        if !(self.runtime_mean.is_finite() && self.runtime_mean >= 0.0) {
            return Err(Self::invalid(
                "runtime_mean",
                format!("must be finite and >= 0, got {}", self.runtime_mean),
            ));
        }
        if !(0.0..=1.0).contains(&self.runtime_spread) {
            return Err(Self::invalid(
                "runtime_spread",
                format!("must be in [0, 1], got {}", self.runtime_spread),
            ));
        }
        if self.procs_mean == 0 || self.procs_mean > u32::MAX / 2 {
            return Err(Self::invalid(
                "procs_mean",
                format!("must be at least 1, got {}", self.procs_mean),
            ));
        }
        if self.max_procs == Some(0) {
            return Err(Self::invalid("max_procs", "must be at least 1".into()));
        }
        if self.parents == 0 {
            return Err(Self::invalid("parents", "must be at least 1".into()));
        }
        if !(self.edge_data_mean.is_finite()
            && self.edge_data_mean >= 0.0
            && self.edge_data_mean < 4e18)
        {
            return Err(Self::invalid(
                "edge_data_mean",
                format!("must be finite and >= 0, got {}", self.edge_data_mean),
            ));
        }
        Ok(())
    }

    /// The tasks per level drawn from `key`'s `workflow.levels` stream.
    pub fn draw_level_widths(&self, key: &StreamKey) -> Result<Vec<u32>, WorkflowError> {
        self.validate()?;
        let levels = self.depth.levels(self.tasks) as usize;
        let n = self.tasks as usize;
        Ok(match self.level_widths {
            LevelWidths::Even => (0..levels)
                .map(|i| (n / levels + usize::from(i < n % levels)) as u32)
                .collect(),
            LevelWidths::Multinomial => {
                let mut rng = key.clone().stream("workflow.levels").rng();
                let mut w = vec![1u32; levels];
                for _ in 0..n - levels {
                    w[rng.random_range(0..levels)] += 1;
                }
                w
            }
        })
    }

    /// Generates the workflow named by `key`. Task ids: `t0 .. t{n-1}` in level order, plus
    /// `entry` and `exit`; names `synthetic` and `dummy`.
    pub fn generate(&self, key: &StreamKey) -> Result<Workflow, WorkflowError> {
        let widths = self.draw_level_widths(key)?;
        let mut runtimes = key.clone().stream("workflow.runtimes").rng();
        let mut procs_rng = key.clone().stream("workflow.procs").rng();
        let mut parents_rng = key.clone().stream("workflow.parents").rng();
        let mut data_rng = key.clone().stream("workflow.data").rng();
        let runtime = Uniform::new(
            self.runtime_mean * (1.0 - self.runtime_spread),
            self.runtime_mean * (1.0 + self.runtime_spread),
        )
        .map_err(|e| Self::invalid("runtime_mean", e.to_string()))?;
        let data = Uniform::new(0.0, 2.0 * self.edge_data_mean)
            .map_err(|e| Self::invalid("edge_data_mean", e.to_string()))?;
        let procs_max = 2 * self.procs_mean - 1;

        let mut b = WorkflowBuilder::new("<synthetic>");
        let mut levels: Vec<Vec<TaskId>> = Vec::with_capacity(widths.len());
        let mut i = 0u32;
        for &w in &widths {
            let mut level = Vec::with_capacity(w as usize);
            for _ in 0..w {
                let rt = runtime.sample(&mut runtimes);
                let mut p = procs_rng.random_range(1..=procs_max);
                if let Some(m) = self.max_procs {
                    p = p.min(m);
                }
                let t = b.add_task(format!("t{i}"), "synthetic", rt, p, Location::None)?;
                if let Some(prev) = levels.last() {
                    let prev: &Vec<TaskId> = prev;
                    let k = (self.parents as usize).min(prev.len());
                    let mut chosen =
                        rand::seq::index::sample(&mut parents_rng, prev.len(), k).into_vec();
                    chosen.sort_unstable();
                    for j in chosen {
                        let bytes = data.sample(&mut data_rng).round() as u64;
                        b.add_edge(prev[j], t, bytes);
                    }
                }
                level.push(t);
                i += 1;
            }
            levels.push(level);
        }
        let w = b.build(EdgeSource::Explicit)?;
        if self.dummy_entry_exit {
            w.with_entry_exit(false)
        } else {
            Ok(w)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_of_the_default() {
        let key = StreamKey::new(1, "unit").stream("ignored");
        let w = SyntheticWorkflow::default().generate(&key).unwrap();
        assert_eq!(w.len(), 102);
        assert_eq!(w.depth(), 12); // entry + 10 levels + exit
        assert_eq!(w.entries().len(), 1);
        assert_eq!(w.exits().len(), 1);
    }

    #[test]
    fn parameters_are_validated() {
        let key = StreamKey::new(1, "unit");
        let bad = SyntheticWorkflow {
            tasks: 5,
            depth: Depth::Fixed(6),
            ..SyntheticWorkflow::default()
        };
        let e = bad.generate(&key).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::InvalidParameter { name: "depth", .. }),
            "{e}"
        );
        assert_eq!(Depth::SqrtTasks.levels(200), 14);
        assert_eq!(Depth::SqrtTasks.levels(1), 1);
    }
}
