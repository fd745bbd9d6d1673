//! The `reproduce` pipeline: run the sweeps behind some experiments and turn each experiment's
//! share of the results into files, a plot and claim verdicts.

use std::path::{Path, PathBuf};

use crate::HarnessError;
use crate::claims::ClaimOutcome;
use crate::output::{self, MetricKind, Provenance};
use crate::plot::{self, Figure, PlotKind, PlotPoint, PlotSeries};
use crate::registry::Experiment;
use crate::runner::{self, RunOptions, SweepRun};
use crate::spec::{Scale, ScaleSpec};
use crate::table::{Lookup, RunValue, SummaryTable};

/// Where a project's outputs live: `data/<paper>/` and `figures/<paper>/` under `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub root: PathBuf,
}

impl Project {
    /// The project containing `start`: the nearest ancestor with `Cargo.toml` and `experiments/`.
    pub fn discover(start: &Path) -> Option<Project> {
        start
            .ancestors()
            .find(|d| d.join("Cargo.toml").is_file() && d.join("experiments").is_dir())
            .map(|d| Project {
                root: d.to_path_buf(),
            })
    }

    fn stem(exp: &Experiment, scale: Scale) -> String {
        format!("{}.{}", exp.short_id(), scale.name())
    }

    /// `data/<paper>/<id>.<scale>.csv`: every run's values.
    pub fn runs_csv(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join(format!("{}.csv", Self::stem(exp, scale)))
    }

    /// `data/<paper>/<id>.<scale>.summary.csv`: means and confidence intervals.
    pub fn summary_csv(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join(format!("{}.summary.csv", Self::stem(exp, scale)))
    }

    /// `data/<paper>/<id>.<scale>.timing.csv`: per-run `cpu_*` metrics (not reproducible).
    pub fn timing_csv(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join(format!("{}.timing.csv", Self::stem(exp, scale)))
    }

    /// `data/<paper>/<id>.<scale>.meta.json`: provenance.
    pub fn meta_json(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join(format!("{}.meta.json", Self::stem(exp, scale)))
    }

    /// `figures/<paper>/<id>.<scale>.svg`.
    pub fn figure_svg(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("figures")
            .join(exp.paper.key)
            .join(format!("{}.svg", Self::stem(exp, scale)))
    }

    /// `data/<paper>/shards/<id>.<scale>.shard-<k>-of-<n>.csv`.
    pub fn shard_csv(&self, exp: &Experiment, scale: Scale, (k, n): (u32, u32)) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join("shards")
            .join(format!("{}.shard-{k}-of-{n}.csv", Self::stem(exp, scale)))
    }

    /// Resume journals of a paper's sweeps (not committed).
    pub fn journal_dir(&self, exp: &Experiment) -> PathBuf {
        self.root.join("data").join(exp.paper.key).join(".cache")
    }
}

/// What one experiment produced.
#[derive(Debug, Clone)]
pub struct ExperimentResult {
    pub id: String,
    pub scale: Scale,
    pub size: ScaleSpec,
    pub table: SummaryTable,
    pub claims: Vec<ClaimOutcome>,
    /// Files written (empty when no project was given).
    pub files: Vec<PathBuf>,
    pub computed: usize,
    pub resumed: usize,
    pub wall_seconds: f64,
    pub shard: Option<(u32, u32)>,
}

/// Runs the sweeps behind `experiments` (each shared sweep once) and finishes every experiment.
/// With a `project`, writes its files there and keeps resume journals; without, only computes.
/// With `opts.shard`, writes only the shard's per-run CSVs (combine them with [`merge`]).
pub fn reproduce(
    experiments: &[&Experiment],
    opts: &RunOptions,
    project: Option<&Project>,
) -> Result<Vec<ExperimentResult>, HarnessError> {
    if let Some((k, n)) = opts.shard
        && (n == 0 || k == 0 || k > n)
    {
        return Err(HarnessError::Usage(format!(
            "--shard {k}/{n}: need 1 <= k <= n"
        )));
    }
    let mut results = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for exp in experiments {
        if done.contains(&exp.sweep.name.as_str()) {
            continue;
        }
        done.push(&exp.sweep.name);
        let group: Vec<&Experiment> = experiments
            .iter()
            .copied()
            .filter(|e| e.sweep.name == exp.sweep.name)
            .collect();
        let mut run_opts = opts.clone();
        run_opts.journal_dir = project.map(|p| p.journal_dir(exp));
        let run = runner::run_sweep(&exp.sweep, &run_opts)?;
        for e in group {
            results.push(match (project, run.shard) {
                (Some(p), Some(shard)) => write_shard(e, &run, p, shard)?,
                _ => finish(e, &run, project, opts.threads)?,
            });
        }
        if let Some(dir) = run_opts.journal_dir.as_deref() {
            runner::discard_journal(dir, &run, &opts.overrides);
        }
    }
    Ok(results)
}

fn provenance(
    exp: &Experiment,
    run: &SweepRun,
    project: &Project,
    threads: Option<usize>,
) -> Provenance {
    Provenance {
        experiment: exp.spec.id.clone(),
        scale: run.scale.name().to_string(),
        gridsched_version: env!("CARGO_PKG_VERSION").to_string(),
        git_revision: output::git_revision(&project.root),
        sweep: exp.sweep.name.clone(),
        seed: exp.sweep.seed,
        replications: run.size.replications,
        jobs_per_replication: run.size.jobs,
        axis_parameter: exp.sweep.axis.parameter.clone(),
        axis_values: exp.sweep.axis_values(run.scale).to_vec(),
        wall_seconds: run.wall_seconds,
        work_items_computed: run.computed,
        work_items_resumed: run.resumed,
        threads: threads.unwrap_or_else(rayon::current_num_threads),
        machine: output::machine_description(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    }
}

fn write_shard(
    exp: &Experiment,
    run: &SweepRun,
    project: &Project,
    shard: (u32, u32),
) -> Result<ExperimentResult, HarnessError> {
    let path = project.shard_csv(exp, run.scale, shard);
    output::write_atomic(
        &path,
        &output::runs_csv(exp, run.scale, &run.values, MetricKind::Deterministic)?,
    )?;
    if has_timing(exp) {
        output::write_atomic(
            &path.with_extension("timing.csv"),
            &output::runs_csv(exp, run.scale, &run.values, MetricKind::Timing)?,
        )?;
    }
    let meta = path.with_extension("meta.json");
    let json = serde_json::to_string_pretty(&provenance(exp, run, project, None))
        .map_err(|e| HarnessError::Data(e.to_string()))?;
    output::write_atomic(&meta, format!("{json}\n").as_bytes())?;
    Ok(ExperimentResult {
        id: exp.spec.id.clone(),
        scale: run.scale,
        size: run.size,
        table: SummaryTable::default(),
        claims: Vec::new(),
        files: vec![path, meta],
        computed: run.computed,
        resumed: run.resumed,
        wall_seconds: run.wall_seconds,
        shard: Some(shard),
    })
}

/// Whether the experiment measures wall-clock metrics (`cpu_*`).
pub fn has_timing(exp: &Experiment) -> bool {
    exp.spec.metrics.iter().any(|m| output::is_timing_metric(m))
}

/// The summary table of an experiment's values, with its declared tolerance floors.
pub fn summarize(exp: &Experiment, values: &[RunValue]) -> SummaryTable {
    let own: Vec<RunValue> = values
        .iter()
        .filter(|v| exp.spec.metrics.contains(&v.metric))
        .cloned()
        .collect();
    let mut table = SummaryTable::from_runs(&own, gridsched_sim::mean_ci95);
    for (metric, floor) in &exp.spec.floors {
        table.set_floor(metric, *floor);
    }
    table
}

/// Checks every claim of `exp` against `table`.
pub fn check_claims(exp: &Experiment, table: &SummaryTable, scale: Scale) -> Vec<ClaimOutcome> {
    exp.claims
        .iter()
        .map(|c| c.evaluate(table, scale == Scale::Paper))
        .collect()
}

fn finish(
    exp: &Experiment,
    run: &SweepRun,
    project: Option<&Project>,
    threads: Option<usize>,
) -> Result<ExperimentResult, HarnessError> {
    let table = summarize(exp, &run.values);
    let claims = check_claims(exp, &table, run.scale);
    let mut files = Vec::new();
    if let Some(p) = project {
        let provenance = provenance(exp, run, p, threads);
        files = write_outputs(
            exp,
            run.scale,
            run.size,
            &run.values,
            &table,
            &provenance,
            p,
        )?;
    }
    Ok(ExperimentResult {
        id: exp.spec.id.clone(),
        scale: run.scale,
        size: run.size,
        table,
        claims,
        files,
        computed: run.computed,
        resumed: run.resumed,
        wall_seconds: run.wall_seconds,
        shard: None,
    })
}

/// Writes CSV, summary, provenance and SVG of one experiment.
pub fn write_outputs(
    exp: &Experiment,
    scale: Scale,
    size: ScaleSpec,
    values: &[RunValue],
    table: &SummaryTable,
    provenance: &Provenance,
    project: &Project,
) -> Result<Vec<PathBuf>, HarnessError> {
    let runs = project.runs_csv(exp, scale);
    output::write_atomic(
        &runs,
        &output::runs_csv(exp, scale, values, MetricKind::Deterministic)?,
    )?;
    let mut files = vec![runs];
    if has_timing(exp) {
        let timing = project.timing_csv(exp, scale);
        output::write_atomic(
            &timing,
            &output::runs_csv(exp, scale, values, MetricKind::Timing)?,
        )?;
        files.push(timing);
    }
    let summary = project.summary_csv(exp, scale);
    output::write_atomic(&summary, &output::summary_csv(exp, table)?)?;
    let meta = project.meta_json(exp, scale);
    let json =
        serde_json::to_string_pretty(provenance).map_err(|e| HarnessError::Data(e.to_string()))?;
    output::write_atomic(&meta, format!("{json}\n").as_bytes())?;
    let svg = project.figure_svg(exp, scale);
    output::write_atomic(
        &svg,
        plot::render_svg(&figure(exp, table, scale, size))?.as_bytes(),
    )?;
    files.extend([summary, meta, svg]);
    Ok(files)
}

/// The plot of an experiment: its metric's means with 95% CI bars, one line per series.
pub fn figure(exp: &Experiment, table: &SummaryTable, scale: Scale, size: ScaleSpec) -> Figure {
    let names: Vec<String> = match &exp.spec.plot.series {
        Some(list) => list.clone(),
        None => exp.sweep.series.iter().map(|s| s.name.clone()).collect(),
    };
    let series = names
        .iter()
        .map(|name| {
            let label = exp
                .sweep
                .series
                .iter()
                .find(|s| &s.name == name)
                .map_or(name.as_str(), |s| s.label());
            let points = table
                .xs()
                .into_iter()
                .filter_map(|x| {
                    table
                        .cell(&exp.spec.plot.metric, name, x)
                        .map(|c| PlotPoint::with_ci(x, c.mean, c.half_width))
                })
                .collect();
            PlotSeries {
                name: label.to_string(),
                points,
            }
        })
        .collect();
    let number = exp
        .short_id()
        .replace("fig-", "Fig. ")
        .replace("table-", "Table ")
        .replace("tab-", "Table ");
    let caption = format!(
        "{number}. {} [gridsched, {} scale: {} runs x {} jobs, 95% CI]",
        exp.spec.caption,
        scale.name(),
        size.replications,
        size.jobs
    );
    Figure {
        caption,
        x_label: exp.sweep.axis.label.clone(),
        y_label: exp.spec.plot.y_label.clone(),
        x_scale: if exp.sweep.axis.log {
            plot::Scale::Log10
        } else {
            plot::Scale::Linear
        },
        y_scale: if exp.spec.plot.y_log {
            plot::Scale::Log10
        } else {
            plot::Scale::Linear
        },
        x_range: None,
        y_range: None,
        kind: PlotKind::Lines,
        series,
    }
}

/// Combines the shard files of `reproduce --shard k/N` into exactly the files an unsharded run
/// writes. Returns `None` if the experiment has no shard files at this scale; fails if a shard
/// is missing or the shards do not cover every work item exactly once.
pub fn merge(
    exp: &Experiment,
    scale: Scale,
    project: &Project,
) -> Result<Option<ExperimentResult>, HarnessError> {
    let dir = project.root.join("data").join(exp.paper.key).join("shards");
    let prefix = format!("{}.{}.shard-", exp.short_id(), scale.name());
    let mut shards: Vec<(u32, u32, PathBuf)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(rest) = name
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".csv"))
            else {
                continue;
            };
            let Some((k, n)) = rest.split_once("-of-") else {
                continue;
            };
            if let (Ok(k), Ok(n)) = (k.parse(), n.parse()) {
                shards.push((k, n, entry.path()));
            }
        }
    }
    if shards.is_empty() {
        return Ok(None);
    }
    shards.sort();
    let n = shards[0].1;
    if shards.iter().any(|s| s.1 != n) {
        return Err(HarnessError::Data(format!(
            "{}: shard files of different shard counts in {}",
            exp.spec.id,
            dir.display()
        )));
    }
    let present: Vec<u32> = shards.iter().map(|s| s.0).collect();
    let missing: Vec<String> = (1..=n)
        .filter(|k| !present.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(HarnessError::Data(format!(
            "{}: missing shards {}",
            exp.spec.id,
            missing.join(", ")
        )));
    }
    let mut values = Vec::new();
    let (mut wall, mut computed, mut size) = (0.0, 0, None);
    for (_, _, path) in &shards {
        let (id, s, mut v) = output::read_runs_csv(path)?;
        if has_timing(exp) {
            let (_, _, mut t) = output::read_runs_csv(&path.with_extension("timing.csv"))?;
            v.append(&mut t);
        }
        if id != exp.spec.id || s != scale {
            return Err(HarnessError::Data(format!(
                "{}: holds {id} at {} scale",
                path.display(),
                s.name()
            )));
        }
        values.append(&mut v);
        let meta = path.with_extension("meta.json");
        let text = std::fs::read_to_string(&meta).map_err(|e| HarnessError::io(&meta, e))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| HarnessError::Data(format!("{}: {e}", meta.display())))?;
        let field = |k: &str| {
            json.get(k)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0)
        };
        wall += field("wall_seconds");
        computed += field("work_items_computed") as usize;
        let this = ScaleSpec {
            replications: field("replications") as u32,
            jobs: field("jobs_per_replication") as u64,
        };
        if size.is_some_and(|s| s != this) {
            return Err(HarnessError::Data(format!(
                "{}: shards were run with different --reps/--jobs",
                exp.spec.id
            )));
        }
        size = Some(this);
    }
    let size = size.unwrap_or(ScaleSpec {
        replications: 0,
        jobs: 0,
    });
    // Every work item exactly once.
    let mut keys: Vec<(u64, &str, u32)> = values
        .iter()
        .map(|v| (v.x.to_bits(), v.series.as_str(), v.run))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let expected =
        exp.sweep.axis_values(scale).len() * exp.sweep.series.len() * size.replications as usize;
    if keys.len() != expected || values.len() != expected * exp.spec.metrics.len() {
        return Err(HarnessError::Data(format!(
            "{}: the shards hold {} distinct runs ({} values), expected {expected} runs of {} metrics",
            exp.spec.id,
            keys.len(),
            values.len(),
            exp.spec.metrics.len()
        )));
    }
    let run = SweepRun {
        sweep: exp.sweep.clone(),
        scale,
        size,
        values,
        computed,
        resumed: 0,
        wall_seconds: wall,
        shard: None,
    };
    let mut result = finish(exp, &run, Some(project), Some(1))?;
    result.computed = computed;
    Ok(Some(result))
}
