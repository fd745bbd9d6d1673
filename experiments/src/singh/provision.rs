//! `singh-provision`: chapter 4's experiments (Figs. 13–16, 18, 19). One replication is one
//! submission of a workflow at a sample time of the background log(s): the sites' advertised
//! slots (holes of their conservative schedules, chapter 3 prices), MOGA's Pareto set, the
//! plan eq. 15 picks for the series' α, and the just-in-time best-effort run of the same
//! workflow on clones of the same sites (spec §6: the background is never disturbed).
//!
//! Sample `k` (the replication index) is submitted at `first submit + warmup_h + (k + ½) ·
//! spacing_h`. The workflow is drawn once per sweep point (the thesis evaluates one workflow,
//! its Fig. 12) unless `workflow_draw = "per_sample"`. A sample is computed once per process
//! and shared by the series that read it (α = 0, α = 1 and best effort see the same MOGA run
//! and the same best-effort run).
//!
//! Metrics (hours and SU): `makespan_h` and `ac_su` of the series (`algorithm = moga` at
//! `alpha`, or `be`); `be_makespan_h`, `be_ac_su`; `makespan_ratio` and `ac_ratio`
//! (provisioned / best effort in this sample); the paired differences `makespan_saving_h`
//! (best effort − provisioned) and `ac_extra_su` (provisioned − best effort), and, for MOGA,
//! `makespan_vs_alpha1_h` and `ac_vs_alpha1_su` (this α's plan − the α = 1 plan of the same
//! MOGA run), whose confidence intervals are those of the within-sample differences the
//! claims compare; `slots` advertised, `archive` (Pareto set
//! size), `feasible_frac` (of MOGA's evaluations), `load` (offered load of the first site's
//! background), `tasks` (of the workflow, dummies included).

use std::path::Path;
use std::sync::Arc;

use gridsched_batch::{Estimates, Simulator, Time};
use gridsched_provisioning::{
    App, GreedyPlan, MogaConfig, PricingPolicy, Provisioned, besteffort, offered_load, provision,
    provision_greedy, select,
};
use gridsched_repro::model::{CurveMeasurement, Measurement, Model, ModelError, ParamSet};
use gridsched_sim::StreamKey;
use gridsched_workflow::{
    CyberShake, Depth, GBIT, ReadOptions, SyntheticWorkflow, TransferModel, Workflow, read_workflow,
};

use super::background::{SiteSpec, background_jobs, site_at, span};
use crate::memo::Memo;

/// The model; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SinghProvision;

const PARAMETERS: &[(&str, &str)] = &[
    (
        "sites",
        "TRACE/PROCS/COPY_P[,...] (required): the resources, in order",
    ),
    ("site_count", "use the first N sites (default: all)"),
    ("copy_p", "override every site's COPY_P (the load axis)"),
    ("algorithm", "moga | greedy | be (required)"),
    (
        "alpha",
        "trade-off factor of eq. 15 (moga) or Figure 51 (greedy)",
    ),
    (
        "compare",
        "moga (default) | greedy: the provisioner the figure compares best effort with (greedy: MOGA is not run)",
    ),
    (
        "workflow",
        "synthetic (default) | cybershake | a DAX or WfCommons file",
    ),
    (
        "workflow_draw",
        "per_point (default: one workflow per sweep point) | per_sample",
    ),
    ("tasks", "synthetic: real tasks (default 100)"),
    (
        "depth",
        "synthetic: levels (default 10; 0: round(sqrt(tasks)))",
    ),
    (
        "procs_mean",
        "synthetic: mean processors per task (default 22)",
    ),
    (
        "procs_levels",
        "synthetic: comma-separated mean processors chosen by `procs_level`",
    ),
    (
        "procs_level",
        "1-based index into procs_levels (the task-size axis)",
    ),
    ("runtime_mean", "synthetic: mean run time, s (default 1000)"),
    (
        "edge_gb",
        "synthetic: mean data per edge, gigabits (default 0: none)",
    ),
    (
        "bandwidth_gbps",
        "transfer bandwidth between sites (default 10)",
    ),
    ("latency_s", "transfer latency between sites (default 150)"),
    (
        "warmup_h",
        "hours of log before the first sample (default 48)",
    ),
    ("spacing_h", "hours between samples (default 144)"),
    ("population", "MOGA population (default 100)"),
    ("generations", "MOGA generations (default 10)"),
];

const METRICS: &[&str] = &[
    "makespan_h",
    "ac_su",
    "be_makespan_h",
    "be_ac_su",
    "makespan_ratio",
    "ac_ratio",
    "makespan_saving_h",
    "ac_extra_su",
    "makespan_vs_alpha1_h",
    "ac_vs_alpha1_su",
    "slots",
    "archive",
    "feasible_frac",
    "load",
    "tasks",
    "answers",
];

/// One submission: MOGA's outcome (unless the figure compares the greedy provisioner), the
/// best-effort run, and the sites at the submission time (for the greedy runs).
#[derive(Debug)]
struct Sample {
    app: App,
    provisioned: Option<Provisioned>,
    sites: Vec<Simulator>,
    be_makespan: Time,
    load: f64,
}

/// What a sample depends on: the parameters but the series' own (`algorithm`, `alpha`).
fn sample_id(params: &ParamSet, key: &StreamKey, jobs: u64) -> String {
    let mut p = params.clone();
    p.remove("algorithm");
    p.remove("alpha");
    format!("{p:?}|{:?}|{jobs}", key.clone().series(""))
}

fn workflow(params: &ParamSet, key: &StreamKey, max_procs: u32) -> Result<Workflow, ModelError> {
    let kind = params.str_or("workflow", "synthetic")?;
    match kind {
        "cybershake" => CyberShake::default()
            .build()
            .map_err(ModelError::from_display),
        "synthetic" => {
            let tasks = params.u32_or("tasks", 100)?;
            let depth = match params.u32_or("depth", 10)? {
                0 => Depth::SqrtTasks,
                d => Depth::Fixed(d),
            };
            let procs_mean = if params.has("procs_levels") {
                let levels: Vec<u32> = params
                    .str_or("procs_levels", "")?
                    .split(',')
                    .map(|s| s.trim().parse::<u32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| ModelError("procs_levels: comma-separated integers".into()))?;
                let i = params.u32_or("procs_level", 0)? as usize;
                *levels.get(i.wrapping_sub(1)).ok_or_else(|| {
                    ModelError(format!("procs_level {i} is not in 1..={}", levels.len()))
                })?
            } else {
                params.u32_or("procs_mean", 22)?
            };
            let g = SyntheticWorkflow {
                tasks,
                depth,
                procs_mean,
                max_procs: Some(max_procs),
                runtime_mean: params.f64_or("runtime_mean", 1000.0)?,
                edge_data_mean: params.f64_or("edge_gb", 0.0)? * GBIT,
                ..SyntheticWorkflow::default()
            };
            let draw = params.choice(
                "workflow_draw",
                false,
                &[("per_point", false), ("per_sample", true)],
            )?;
            let k = key.clone().series("");
            let k = if draw { k } else { k.replication(0) };
            g.generate(&k.stream("workflow"))
                .map_err(ModelError::from_display)
        }
        path => read_workflow(Path::new(path), &ReadOptions::default())
            .and_then(|w| w.with_entry_exit(true))
            .map_err(ModelError::from_display),
    }
}

fn compute(params: &ParamSet, key: &StreamKey, jobs: u64) -> Result<Sample, ModelError> {
    let mut sites = SiteSpec::parse_list(params.str_or("sites", "")?)?;
    if params.has("site_count") {
        let n = params.u32_or("site_count", 0)? as usize;
        if n == 0 || n > sites.len() {
            return Err(ModelError(format!(
                "site_count {n} is not in 1..={}",
                sites.len()
            )));
        }
        sites.truncate(n);
    }
    if params.has("copy_p") {
        let p = params.f64("copy_p")?;
        for s in &mut sites {
            s.copy_p = p;
        }
    }
    let backgrounds = sites
        .iter()
        .map(|s| background_jobs(s, jobs, key.master_seed()))
        .collect::<Result<Vec<_>, _>>()?;
    let warmup = (params.f64_or("warmup_h", 48.0)? * 3600.0) as Time;
    let spacing = (params.f64_or("spacing_h", 144.0)? * 3600.0) as Time;
    let first = backgrounds.iter().map(|b| span(b).0).min().unwrap_or(0);
    let last = backgrounds.iter().map(|b| span(b).1).min().unwrap_or(0);
    let k = Time::from(key.replication_index());
    let submit = first + warmup + k * spacing + spacing / 2;
    if submit > last {
        return Err(ModelError(format!(
            "sample {k} at {submit} s is past the end of a log ({last} s): fewer samples, a smaller spacing_h or more jobs"
        )));
    }
    let widest = sites.iter().map(|s| s.procs).max().unwrap_or(0);
    let wf = workflow(params, key, widest)?;
    let multi = sites.len() > 1;
    let transfer = if multi {
        TransferModel::new(
            params.f64_or("bandwidth_gbps", 10.0)? * GBIT,
            params.f64_or("latency_s", 150.0)?,
        )
        .map_err(ModelError::from_display)?
    } else {
        TransferModel::none()
    };
    let app = App::from_workflow(&wf, &transfer);
    let sims = sites
        .iter()
        .zip(&backgrounds)
        .map(|(s, b)| site_at(s, b, Estimates::Actual, submit))
        .collect::<Result<Vec<_>, _>>()?;
    let config = MogaConfig {
        population: params.u32_or("population", 100)? as usize,
        generations: params.u32_or("generations", 10)? as usize,
        ..MogaConfig::default()
    };
    let provisioned = if compare_greedy(params)? {
        None
    } else {
        let mut rng = key.clone().series("").stream("moga").rng();
        Some(provision(&app, &sims, &config, &mut rng).map_err(ModelError::from_display)?)
    };
    let mut be_sites = sims.clone();
    let be = besteffort::run(&app, &mut be_sites).map_err(ModelError::from_display)?;
    Ok(Sample {
        load: offered_load(&backgrounds[0], sites[0].procs),
        app,
        provisioned,
        sites: sims,
        be_makespan: be.makespan,
    })
}

fn sample(params: &ParamSet, key: &StreamKey, jobs: u64) -> Result<Arc<Sample>, ModelError> {
    static CACHE: Memo<Sample> = Memo::new();
    CACHE.get(sample_id(params, key, jobs), || compute(params, key, jobs))
}

fn compare_greedy(params: &ParamSet) -> Result<bool, ModelError> {
    params.choice("compare", false, &[("moga", false), ("greedy", true)])
}

/// Figure 51 on clones of the sample's sites, once per (sample, α).
fn greedy(s: &Sample, id: &str, alpha: f64) -> Result<Arc<GreedyPlan>, ModelError> {
    static CACHE: Memo<GreedyPlan> = Memo::new();
    CACHE.get(format!("{id}|{alpha}"), || {
        let mut sites = s.sites.clone();
        provision_greedy(&s.app, &mut sites, PricingPolicy::Conservative, alpha)
            .map_err(ModelError::from_display)
    })
}

fn measure(s: &Sample, id: &str, algo: Algorithm, alpha: f64) -> Result<Measurement, ModelError> {
    let be_h = s.be_makespan as f64 / 3600.0;
    let be_ac = s.app.best_effort_cost();
    let moga_of = |a: f64| {
        let p = s.provisioned.as_ref().ok_or_else(|| {
            ModelError("algorithm = moga needs compare = moga (the default)".into())
        })?;
        let m = select(&p.moga.archive, a).ok_or_else(|| {
            ModelError(format!(
                "MOGA found no feasible plan among {} evaluations",
                p.moga.evaluations
            ))
        })?;
        Ok::<_, ModelError>((
            m.eval.sc.expect("archive plans are feasible") as f64 / 3600.0,
            m.eval.ac,
        ))
    };
    let greedy_of = |a: f64| {
        let g = greedy(s, id, a)?;
        Ok::<_, ModelError>((g.makespan as f64 / 3600.0, g.cost, g.answers as f64))
    };
    let (mk, ac, mk1, ac1, answers) = match algo {
        Algorithm::Moga => {
            let (mk, ac) = moga_of(alpha)?;
            let (mk1, ac1) = moga_of(1.0)?;
            (mk, ac, mk1, ac1, 0.0)
        }
        Algorithm::Greedy => {
            let (mk, ac, n) = greedy_of(alpha)?;
            let (mk1, ac1, _) = greedy_of(1.0)?;
            (mk, ac, mk1, ac1, n)
        }
        Algorithm::BestEffort => (be_h, be_ac, be_h, be_ac, 0.0),
    };
    let mut out = vec![
        ("makespan_h", mk),
        ("ac_su", ac),
        ("be_makespan_h", be_h),
        ("be_ac_su", be_ac),
        ("makespan_ratio", mk / be_h),
        ("ac_ratio", ac / be_ac),
        ("makespan_saving_h", be_h - mk),
        ("ac_extra_su", ac - be_ac),
        ("makespan_vs_alpha1_h", mk - mk1),
        ("ac_vs_alpha1_su", ac - ac1),
    ];
    if let Some(p) = &s.provisioned {
        out.extend([
            ("slots", p.candidates.len() as f64),
            ("archive", p.moga.archive.len() as f64),
            (
                "feasible_frac",
                p.moga.feasible as f64 / p.moga.evaluations.max(1) as f64,
            ),
        ]);
    }
    out.extend([("load", s.load), ("tasks", s.app.len() as f64)]);
    if s.provisioned.is_none() {
        out.push(("answers", answers));
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Moga,
    Greedy,
    BestEffort,
}

fn algorithm(params: &ParamSet) -> Result<Algorithm, ModelError> {
    if !params.has("algorithm") {
        return Err(ModelError(
            "parameter `algorithm` (moga | greedy | be) is required".into(),
        ));
    }
    params.choice(
        "algorithm",
        Algorithm::Moga,
        &[
            ("moga", Algorithm::Moga),
            ("greedy", Algorithm::Greedy),
            ("be", Algorithm::BestEffort),
        ],
    )
}

impl Model for SinghProvision {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "singh-provision"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        PARAMETERS
    }

    fn metrics(&self) -> &'static [&'static str] {
        METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let algo = algorithm(params)?;
        let alpha = params.f64_or("alpha", 0.5)?;
        let s = sample(params, key, jobs)?;
        measure(&s, &sample_id(params, key, jobs), algo, alpha)
    }

    /// The α axis of Fig. 13: one sample, every α.
    fn run_curve(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        params.check_known(self)?;
        let algo = algorithm(params)?;
        let s = sample(params, key, jobs)?;
        let id = sample_id(params, key, jobs);
        let mut rows = Vec::new();
        for &x in xs {
            for (m, v) in measure(&s, &id, algo, x)? {
                rows.push((x, m, v));
            }
        }
        Ok(rows)
    }
}
