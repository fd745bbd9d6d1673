//! Klusáček & Rudová, "Efficient Grid Scheduling through the Incremental Schedule-based
//! Approach" (seed 002): the model behind `experiments/klusacek/*.toml`.
//!
//! `klusacek`: one replication of the paper's synthetic grid (spec §4) at mean inter-arrival
//! time `tau` seconds, scheduled by one of the six algorithms (`gridsched-schedule-based`).
//! The machine set is drawn once for all replications and the job stream once per replication
//! for every τ and algorithm (common random numbers, A14/A15). Time inside is milliseconds;
//! every metric is in the paper's units (seconds, %, counts).

use gridsched_batch::{FlexWeights, MachineSelect, Platform};
use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};
use gridsched_repro::papers::Paper;
use gridsched_schedule_based::workload::{ArrivalStreams, GridWorkload, MS, MachineSet};
use gridsched_schedule_based::{
    Algorithm, Config, NondelayedScope, TabuSetting, TieBreak, UsageDefinition, run,
};
use gridsched_sim::StreamKey;

/// The document.
pub static PAPER: Paper = Paper {
    key: "klusacek",
    seed: "002",
    citation: "D. Klusáček, H. Rudová, \"Efficient Grid Scheduling through the Incremental Schedule-based Approach\", Masaryk University",
    short: "Klusáček & Rudová",
    spec: "klusacek-eg-edf.md",
};

/// The models its entries use.
pub fn models() -> Vec<Box<dyn Model>> {
    vec![Box::new(KlusacekGrid)]
}

/// The paper's grid experiment.
#[derive(Debug, Clone, Copy)]
pub struct KlusacekGrid;

const PARAMETERS: &[(&str, &str)] = &[
    (
        "algorithm",
        "fcfs | easy | flexible | eg-edf | eg-edf-ts | re-comp (required)",
    ),
    ("tau", "mean job inter-arrival time, seconds (required)"),
    (
        "ts",
        "Tabu search FREQUENCY:ITERATIONS for eg-edf-ts (default 5:500, spec §2.7)",
    ),
    (
        "tabu_capacity",
        "tabu-list capacity (default: the iterations, spec A6)",
    ),
    ("machines", "number of machines (default 150)"),
    (
        "s_ref",
        "reference speed of the execution times (default 200, spec A1)",
    ),
    (
        "delta_low",
        "deadline d = r + δ e with δ ~ U[delta_low, delta_high] (default 1, spec A2)",
    ),
    ("delta_high", "see delta_low (default 3)"),
    (
        "usage",
        "predicted (default) | from_zero: usage of a predicted schedule (spec A3)",
    ),
    (
        "nondelayed",
        "all (default) | planned: which jobs the objective counts (spec A4)",
    ),
    (
        "tie_break",
        "earliest_completion (default) | list_order: incr-EG-EDF's choice between candidates scored alike (reading A17)",
    ),
    (
        "queue_machine",
        "fastest (default) | first_fit: FCFS/EASY/Flexible machine choice (spec A9)",
    ),
    (
        "machine_set",
        "fixed (default) | redrawn per replication (spec A14)",
    ),
    (
        "arrivals",
        "common (default: the same jobs at every τ) | independent (spec A15)",
    ),
];

const METRICS: &[&str] = &[
    "delayed",
    "usage_pct",
    "makespan_s",
    "slowdown",
    "work_per_job",
    "rho",
    "max_queue",
    "deadline_jobs",
    "tied_pct",
    "cpu_ms_per_job",
];

impl KlusacekGrid {
    fn setup(p: &ParamSet, jobs: u64) -> Result<(GridWorkload, Algorithm, Config), ModelError> {
        let ts: TabuSetting = p
            .str_or("ts", "5:500")?
            .parse()
            .map_err(|e: String| ModelError(format!("parameter `ts`: {e}")))?;
        let ts = TabuSetting {
            capacity: if p.has("tabu_capacity") {
                Some(p.u32_or("tabu_capacity", 0)?)
            } else {
                None
            },
            ..ts
        };
        let name = p.str_or("algorithm", "")?;
        let algorithm = Algorithm::parse(name, ts).ok_or_else(|| {
            ModelError(format!(
                "parameter `algorithm`: unknown `{name}`; expected fcfs, easy, flexible, eg-edf, eg-edf-ts or re-comp"
            ))
        })?;
        let jobs = u32::try_from(jobs).map_err(|_| ModelError("too many jobs".into()))?;
        let workload = GridWorkload {
            machines: p.u32_or("machines", 150)?,
            jobs,
            reference_speed: p.u32_or("s_ref", 200)?,
            deadline_delta: (p.f64_or("delta_low", 1.0)?, p.f64_or("delta_high", 3.0)?),
            machine_set: p.choice(
                "machine_set",
                MachineSet::Fixed,
                &[
                    ("fixed", MachineSet::Fixed),
                    ("redrawn", MachineSet::Redrawn),
                ],
            )?,
            arrivals: p.choice(
                "arrivals",
                ArrivalStreams::Common,
                &[
                    ("common", ArrivalStreams::Common),
                    ("independent", ArrivalStreams::Independent),
                ],
            )?,
            ..GridWorkload::default()
        };
        workload.validate().map_err(ModelError)?;
        let config = Config {
            usage: p.choice(
                "usage",
                UsageDefinition::Predicted,
                &[
                    ("predicted", UsageDefinition::Predicted),
                    ("from_zero", UsageDefinition::FromZero),
                ],
            )?,
            nondelayed: p.choice(
                "nondelayed",
                NondelayedScope::All,
                &[
                    ("all", NondelayedScope::All),
                    ("planned", NondelayedScope::PlannedOnly),
                ],
            )?,
            tie_break: p.choice(
                "tie_break",
                TieBreak::EarliestCompletion,
                &[
                    ("earliest_completion", TieBreak::EarliestCompletion),
                    ("list_order", TieBreak::ListOrder),
                ],
            )?,
            queue_machine_select: p.choice(
                "queue_machine",
                MachineSelect::Fastest,
                &[
                    ("fastest", MachineSelect::Fastest),
                    ("first_fit", MachineSelect::FirstFit),
                ],
            )?,
            flex: FlexWeights {
                // Flexible's E_j over the workload's execution-time range (spec §2.12).
                exec_range: Some((
                    i64::from(workload.exec_s.0) * MS,
                    i64::from(workload.exec_s.1) * MS,
                )),
                ..FlexWeights::default()
            },
            ..Config::default()
        };
        Ok((workload, algorithm, config))
    }
}

/// The most jobs waiting at once (submitted, not started), from the outcomes.
fn max_queue(outcomes: &[gridsched_batch::Outcome]) -> usize {
    let mut events: Vec<(i64, i32)> = outcomes
        .iter()
        .filter(|o| o.start > o.job.submit)
        .flat_map(|o| [(o.job.submit, 1), (o.start, -1)])
        .collect();
    events.sort_unstable();
    let (mut level, mut max) = (0i64, 0i64);
    for (_, d) in events {
        level += i64::from(d);
        max = max.max(level);
    }
    max as usize
}

impl Model for KlusacekGrid {
    fn name(&self) -> &'static str {
        "klusacek"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        PARAMETERS
    }

    fn metrics(&self) -> &'static [&'static str] {
        METRICS
    }

    /// One replication: the machine set of the sweep (fixed, A14), this replication's jobs
    /// at every τ (A15), MoveJob's permutations from the replication's own stream.
    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let (workload, algorithm, config) = Self::setup(params, jobs)?;
        let tau = params.f64("tau")?;
        if !(tau > 0.0 && tau.is_finite()) {
            return Err(ModelError(format!(
                "parameter `tau` must be positive, got {tau}"
            )));
        }
        let machines = workload.machine_set(key);
        let rho = workload.offered_load(&machines, tau);
        let platform =
            Platform::grid(machines, workload.reference_speed).map_err(ModelError::from_display)?;
        let stream = workload.job_stream(key, tau);
        let mut rng = key.clone().stream("move-job").rng();
        let r = run(&platform, stream, algorithm, &config, &mut rng)
            .map_err(ModelError::from_display)?;
        let m = r.metrics;
        let n = m.jobs.max(1) as f64;
        Ok(vec![
            ("delayed", m.delayed as f64),
            ("usage_pct", m.weighted_usage_pct),
            ("makespan_s", m.makespan as f64 / MS as f64),
            ("slowdown", m.slowdown),
            ("work_per_job", r.work as f64 / n),
            ("rho", rho),
            ("max_queue", max_queue(&r.outcomes) as f64),
            ("deadline_jobs", m.deadline_jobs as f64),
            (
                "tied_pct",
                100.0 * r.tied_placements as f64 / r.placements.max(1) as f64,
            ),
            ("cpu_ms_per_job", 1e3 * r.cpu_seconds / n),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::model::measured;

    #[test]
    fn every_algorithm_runs_and_parameters_are_checked() {
        let key = StreamKey::new(1, "t").replication(0);
        for a in ["fcfs", "easy", "flexible", "eg-edf", "eg-edf-ts", "re-comp"] {
            let p = ParamSet::from_pairs(&[
                ("algorithm", a.into()),
                ("tau", 2.0.into()),
                ("machines", 20.into()),
                ("ts", "5:20".into()),
            ]);
            let m = KlusacekGrid.run(&p, &key, 100).unwrap();
            assert_eq!(m.len(), METRICS.len());
            assert!(measured(&m, "makespan_s").unwrap() > 0.0, "{a}");
        }
        let bad = |pairs: &[(&str, gridsched_repro::spec::ParamValue)]| {
            KlusacekGrid
                .run(&ParamSet::from_pairs(pairs), &key, 10)
                .unwrap_err()
                .to_string()
        };
        assert!(
            bad(&[("algorithm", "lifo".into()), ("tau", 1.0.into())]).contains("unknown `lifo`")
        );
        assert!(
            bad(&[
                ("algorithm", "eg-edf-ts".into()),
                ("tau", 1.0.into()),
                ("ts", "0:5".into())
            ])
            .contains("parameter `ts`")
        );
        assert!(
            bad(&[("algorithm", "fcfs".into()), ("tau", 0.0.into())])
                .contains("`tau` must be positive")
        );
    }
}
