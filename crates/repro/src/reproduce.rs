//! The `reproduce` pipeline: run the sweeps behind some experiments and turn each experiment's
//! share of the results into files, a plot and claim verdicts.

use std::path::{Path, PathBuf};

use crate::HarnessError;
use crate::claims::ClaimOutcome;
use crate::journal::Journal;
use crate::output::{self, MetricKind, Provenance};
use gridsched_sim::StreamKey;

use crate::model::ParamSet;
use crate::plot::{self, BarChart, Figure, GanttChart, PlotKind, PlotPoint, PlotSeries};
use crate::registry::Experiment;
use crate::runner::{self, RunOptions, SweepRun};
use crate::spec::{FigureKind, Scale, ScaleSpec};
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
    /// The Markdown results table of a `kind = "table"` experiment.
    pub fn table_md(&self, exp: &Experiment, scale: Scale) -> PathBuf {
        self.root
            .join("data")
            .join(exp.paper.key)
            .join(format!("{}.table.md", Self::stem(exp, scale)))
    }

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

    /// Resume journals of a paper's sweeps (not committed), one directory per revision of the
    /// code ([`output::git_revision`]): a journal holds values computed by one revision, so a
    /// run after a commit starts afresh instead of mixing its values with an older code's (the
    /// journal's own name fingerprints only the sweep, size, shard and overrides). A `-dirty`
    /// revision cannot tell uncommitted edits apart; its results are flagged dirty anyway.
    pub fn journal_dir(&self, exp: &Experiment) -> PathBuf {
        self.journal_root(exp)
            .join(output::git_revision(&self.root))
    }

    /// The directory of every revision's journals of a paper's sweeps.
    fn journal_root(&self, exp: &Experiment) -> PathBuf {
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
    // One revision for the whole invocation, taken before anything is written.
    let revision = project.map(|p| output::git_revision(&p.root));
    if let (Some(p), Some(revision)) = (project, &revision)
        && opts.scale() == Scale::Paper
        && !opts.allow_dirty
        && output::is_dirty_revision(revision)
    {
        return Err(HarnessError::Usage(format!(
            "{}: the working tree has uncommitted changes; paper-scale results must come from a \
             committed revision so their provenance names the code that produced them. Commit \
             (or stash) first, or pass --allow-dirty (the results are then marked dirty in \
             REPRODUCTION.md)",
            p.root.display()
        )));
    }
    for exp in experiments {
        exp.spec
            .check_views(&exp.sweep)
            .map_err(|e| HarnessError::Spec(format!("experiments/{}: {e}", exp.source)))?;
    }
    // Results are computed sweep by sweep but returned in the order of `experiments` (callers
    // zip the two), also when experiments sharing a sweep are not adjacent in that order.
    let mut groups: Vec<Vec<(usize, &Experiment)>> = Vec::new();
    for (i, exp) in experiments.iter().copied().enumerate() {
        match groups
            .iter_mut()
            .find(|g| g[0].1.sweep.name == exp.sweep.name)
        {
            Some(group) => group.push((i, exp)),
            None => groups.push(vec![(i, exp)]),
        }
    }
    // Each sweep's journal is locked from before its run until its outputs are written, so a
    // second process running the same sweep (a requeued Slurm task, a resubmitted shard)
    // waits and then resumes instead of writing beside this one (`journal.rs`). All of them
    // are opened first: a journal that another process finishes and deletes while this one
    // waits for an earlier one stays open here, with every run in it, and nothing is
    // recomputed. They are then locked in the order of their paths, before any runs: at quick
    // scale the sweeps share one pool, where a worker waiting in one sweep can take up another
    // sweep's work, so a process could hold one journal while it waits for a second; two
    // processes that both take their journals in one global order can never wait for each
    // other.
    let mut journals: Vec<Option<Journal>> = Vec::with_capacity(groups.len());
    journals.resize_with(groups.len(), || None);
    if let Some(p) = project {
        let mut opened = Vec::with_capacity(groups.len());
        for (i, group) in groups.iter().enumerate() {
            let exp = group[0].1;
            opened.push((
                runner::prepare_journal(&p.journal_dir(exp), &exp.sweep, opts)?,
                i,
            ));
        }
        opened.sort_by(|a, b| a.0.path().cmp(b.0.path()));
        for (journal, i) in opened {
            let exp = groups[i][0].1;
            journals[i] = Some(runner::lock_journal(journal, &exp.sweep, opts)?);
        }
    }
    let run_group = |(group, journal): (&Vec<(usize, &Experiment)>, &Option<Journal>),
                     opts: &RunOptions| {
        let exp = group[0].1;
        let run = runner::run_sweep_with(&exp.sweep, &*exp.model, opts, journal.as_ref())?;
        // Sweeps run one after another at paper scale: what this one's runs shared is not
        // needed again (at quick scale other sweeps may still be using it, and it is small).
        if opts.scale() != Scale::Quick {
            exp.model.sweep_finished();
        }
        let rev = revision.as_deref().unwrap_or("unknown");
        let mut finished = Vec::with_capacity(group.len());
        for &(i, e) in group {
            finished.push((
                i,
                match (project, run.shard) {
                    (Some(p), Some(shard)) => write_shard(e, &run, p, rev, shard, opts.threads)?,
                    _ => finish(e, &run, project.map(|p| (p, rev)), opts.threads)?,
                },
            ));
        }
        if let Some(journal) = journal {
            journal.discard();
        }
        Ok::<_, HarnessError>(finished)
    };
    // At quick scale the sweeps run side by side on one pool: a quick run is a hundred small
    // sweeps, and run one after another each would leave cores idle while its slowest
    // replication finishes. At paper scale they run one after another, so each sweep's wall
    // time in its provenance is its own and only one sweep's results are being built at once.
    // Either way every work item draws from its own seeded stream: the numbers are the same.
    let finished: Vec<Vec<(usize, ExperimentResult)>> = if opts.scale() == Scale::Quick {
        use rayon::prelude::*;
        let pool = runner::thread_pool(opts.threads)?;
        // Inside the pool each sweep's items join the shared queue instead of a pool of their own.
        let inner = RunOptions {
            threads: None,
            ..opts.clone()
        };
        let run_all = || -> Result<Vec<_>, HarnessError> {
            groups
                .par_iter()
                .zip(&journals)
                .map(|g| run_group(g, &inner))
                .collect()
        };
        // Provenance still records the user's thread count: inside the pool, `finish` reads it
        // back as the pool's size.
        match &pool {
            Some(pool) => pool.install(run_all)?,
            None => run_all()?,
        }
    } else {
        groups
            .iter()
            .zip(&journals)
            .map(|g| run_group(g, opts))
            .collect::<Result<_, _>>()?
    };
    let mut results: Vec<Option<ExperimentResult>> = vec![None; experiments.len()];
    for (i, result) in finished.into_iter().flatten() {
        results[i] = Some(result);
    }
    Ok(results.into_iter().flatten().collect())
}

fn provenance(
    exp: &Experiment,
    run: &SweepRun,
    revision: &str,
    threads: Option<usize>,
) -> Provenance {
    Provenance {
        experiment: exp.spec.id.clone(),
        scale: run.scale.name().to_string(),
        gridsched_version: env!("CARGO_PKG_VERSION").to_string(),
        git_revision: revision.to_string(),
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
    revision: &str,
    shard: (u32, u32),
    threads: Option<usize>,
) -> Result<ExperimentResult, HarnessError> {
    let path = project.shard_csv(exp, run.scale, shard);
    let runs = output::runs_csv(exp, run.scale, &run.values, MetricKind::Deterministic)?;
    let timing_path = path.with_extension("timing.csv");
    let timing = if has_timing(exp) {
        Some(output::runs_csv(
            exp,
            run.scale,
            &run.values,
            MetricKind::Timing,
        )?)
    } else {
        None
    };
    let meta = path.with_extension("meta.json");
    let json = serde_json::to_string_pretty(&provenance(exp, run, revision, threads))
        .map_err(|e| HarnessError::Data(e.to_string()))?;
    let json = format!("{json}\n");
    // A shard's files are renamed into place together once all are written (the provenance,
    // which `merge` reads for the shard's size and seed, last), while this run still holds
    // its journal, which `merge` waits for: a merge does not read them half replaced. (A copy
    // that resumed from a finished run's deleted journal, which `merge` cannot see, writes
    // the same runs again; only the provenance's timings differ.)
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| HarnessError::io(dir, e))?;
    }
    let mut files: Vec<(&Path, &[u8])> = vec![(&path, &runs)];
    if let Some(timing) = &timing {
        files.push((&timing_path, timing));
    }
    files.push((&meta, json.as_bytes()));
    output::write_all_atomic(&files)?;
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
    project: Option<(&Project, &str)>,
    threads: Option<usize>,
) -> Result<ExperimentResult, HarnessError> {
    let table = summarize(exp, &run.values);
    let claims = check_claims(exp, &table, run.scale);
    let mut files = Vec::new();
    if let Some((p, revision)) = project {
        let provenance = provenance(exp, run, revision, threads);
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
    output::write_project_file(
        &runs,
        &output::runs_csv(exp, scale, values, MetricKind::Deterministic)?,
    )?;
    let mut files = vec![runs];
    if has_timing(exp) {
        let timing = project.timing_csv(exp, scale);
        output::write_project_file(
            &timing,
            &output::runs_csv(exp, scale, values, MetricKind::Timing)?,
        )?;
        files.push(timing);
    }
    let summary = project.summary_csv(exp, scale);
    output::write_project_file(&summary, &output::summary_csv(exp, table)?)?;
    let meta = project.meta_json(exp, scale);
    let json =
        serde_json::to_string_pretty(provenance).map_err(|e| HarnessError::Data(e.to_string()))?;
    output::write_project_file(&meta, format!("{json}\n").as_bytes())?;
    let svg = project.figure_svg(exp, scale);
    output::write_project_file(&svg, render_figure(exp, table, scale, size)?.as_bytes())?;
    files.extend([summary, meta, svg]);
    files.extend(write_table_page(exp, table, scale, project)?);
    Ok(files)
}

/// A table experiment's page: the document's table beside ours, as REPRODUCTION.md shows it,
/// readable on its own. Nothing for a figure.
fn write_table_page(
    exp: &Experiment,
    table: &SummaryTable,
    scale: Scale,
    project: &Project,
) -> Result<Option<PathBuf>, HarnessError> {
    if exp.spec.kind != "table" {
        return Ok(None);
    }
    let md = project.table_md(exp, scale);
    let text = format!(
        "# {} — {}\n\n{}",
        exp.spec.id,
        exp.spec.caption,
        crate::report::results_table(exp, table)
    );
    output::write_project_file(&md, text.as_bytes())?;
    Ok(Some(md))
}

/// Re-renders an experiment's SVG (and a table's Markdown page) at `scale` from its results
/// in `data/` (the runs CSV, plus the timing CSV if any) without running anything: what a change of the plotting code needs,
/// since re-running paper-scale sweeps to redraw them would take hours. The summary table is
/// recomputed from the runs exactly as a run computes it, so a replot of untouched results is
/// byte-identical to the SVG the run wrote. The run's size comes from its provenance file
/// (the scale's own size when that is absent, as for the untracked quick provenance).
/// Returns the files written, none when the experiment has no results at this scale.
pub fn replot(
    exp: &Experiment,
    scale: Scale,
    project: &Project,
) -> Result<Vec<PathBuf>, HarnessError> {
    let runs = project.runs_csv(exp, scale);
    if !runs.is_file() {
        return Ok(Vec::new());
    }
    let (id, read_scale, mut values) = output::read_runs_csv(&runs)?;
    if id != exp.spec.id || read_scale != scale {
        return Err(HarnessError::Data(format!(
            "{}: holds {id} at {} scale",
            runs.display(),
            read_scale.name()
        )));
    }
    let timing = project.timing_csv(exp, scale);
    if timing.is_file() {
        values.append(&mut output::read_runs_csv(&timing)?.2);
    }
    let mut size = exp
        .sweep
        .scale(scale)
        .ok_or_else(|| HarnessError::Spec(format!("{}: no {} scale", exp.spec.id, scale.name())))?;
    let meta = project.meta_json(exp, scale);
    if let Ok(text) = std::fs::read_to_string(&meta) {
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| HarnessError::Data(format!("{}: {e}", meta.display())))?;
        let field = |k: &str| json.get(k).and_then(serde_json::Value::as_u64);
        if let (Some(r), Some(j)) = (field("replications"), field("jobs_per_replication")) {
            size.replications = u32::try_from(r)
                .map_err(|_| HarnessError::Data(format!("{}: replications {r}", meta.display())))?;
            size.jobs = j;
        }
    }
    let table = summarize(exp, &values);
    let svg = project.figure_svg(exp, scale);
    output::write_project_file(&svg, render_figure(exp, &table, scale, size)?.as_bytes())?;
    let mut files = vec![svg];
    files.extend(write_table_page(exp, &table, scale, project)?);
    Ok(files)
}

/// The SVG of an experiment's figure, by its `plot.kind`.
pub fn render_figure(
    exp: &Experiment,
    table: &SummaryTable,
    scale: Scale,
    size: ScaleSpec,
) -> Result<String, HarnessError> {
    Ok(match exp.spec.plot.kind {
        FigureKind::Lines => match &exp.spec.plot.panels {
            None => plot::render_svg(&figure(exp, table, scale, size))?,
            Some(panels) => {
                let figures: Vec<Figure> = panels
                    .iter()
                    .map(|p| Figure {
                        caption: p.title.clone(),
                        ..figure_of(exp, table, scale, size, &p.series, Some(p))
                    })
                    .collect();
                let caption = figures_caption(exp, scale, size);
                plot::render_panels_svg(&caption, &figures)?
            }
        },
        FigureKind::Bars => plot::render_bars_svg(&bar_chart(exp, table, scale, size))?,
        FigureKind::Gantt => plot::render_gantt_svg(&gantt_chart(exp, scale, size)?)?,
    })
}

/// The series an experiment plots, in legend order.
fn plotted_series(exp: &Experiment) -> Vec<String> {
    match &exp.spec.plot.series {
        Some(list) => list.clone(),
        None => exp.sweep.series.iter().map(|s| s.name.clone()).collect(),
    }
}

fn series_label<'a>(exp: &'a Experiment, name: &'a str) -> &'a str {
    exp.sweep
        .series
        .iter()
        .find(|s| s.name == name)
        .map_or(name, |s| s.label())
}

/// The axis values an experiment plots: `plot.points` (those that were run) or all.
fn plotted_xs(exp: &Experiment, table: &SummaryTable) -> Vec<f64> {
    let xs = table.xs();
    match &exp.spec.plot.points {
        Some(points) => xs
            .into_iter()
            .filter(|x| points.iter().any(|p| p.total_cmp(x).is_eq()))
            .collect(),
        None => xs,
    }
}

fn figure_caption(exp: &Experiment, scale: Scale, detail: &str) -> String {
    let number = exp
        .short_id()
        .replace("fig-", "Fig. ")
        .replace("table-", "Table ")
        .replace("tab-", "Table ");
    format!(
        "{number}. {} [gridsched, {} scale: {detail}]",
        without_own_number(&exp.spec.caption),
        scale.name()
    )
}

/// A caption without the document's own "Figure 40:" / "Table 4." in front: the title already
/// numbers the figure, so a caption quoted verbatim would say it twice.
fn without_own_number(caption: &str) -> &str {
    for word in ["Figure ", "Fig. ", "Table "] {
        if let Some(rest) = caption.strip_prefix(word) {
            let digits = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'));
            if let Some(end) = digits
                && let Some(after) = rest[end..].strip_prefix(':')
            {
                return after.trim_start();
            }
        }
    }
    caption
}

/// The grouped bar chart of an experiment: one group per plotted axis value (its label), one
/// bar per plotted series, with the `[table]` reference values of the plot metric as markers.
pub fn bar_chart(
    exp: &Experiment,
    table: &SummaryTable,
    scale: Scale,
    size: ScaleSpec,
) -> BarChart {
    let xs = plotted_xs(exp, table);
    let metric = &exp.spec.plot.metric;
    let reference = |series: &str, x: f64| -> Option<f64> {
        let column = exp
            .spec
            .table
            .as_ref()?
            .columns
            .iter()
            .find(|c| &c.metric == metric && c.series == series && c.reference.is_some())?;
        let i = exp
            .sweep
            .axis
            .paper
            .iter()
            .position(|v| v.total_cmp(&x).is_eq())?;
        column
            .reference
            .as_ref()?
            .get(i)
            .copied()
            .filter(|r| r.is_finite())
    };
    let series = plotted_series(exp)
        .iter()
        .map(|name| plot::BarSeries {
            name: series_label(exp, name).to_string(),
            bars: xs
                .iter()
                .map(|&x| {
                    table.cell(metric, name, x).map(|c| plot::Bar {
                        value: c.mean,
                        half_width: if c.half_width.is_finite() {
                            c.half_width
                        } else {
                            0.0
                        },
                        reference: reference(name, x),
                    })
                })
                .collect(),
        })
        .collect();
    BarChart {
        caption: figure_caption(exp, scale, &exp.sweep.describe_size(scale, size)),
        x_label: exp.sweep.axis.label.clone(),
        y_label: exp.spec.plot.y_label.clone(),
        groups: xs.iter().map(|&x| exp.sweep.axis.display(x)).collect(),
        series,
        y_range: exp.spec.plot.y_range.map(|[a, b]| (a, b)),
    }
}

/// The Gantt chart of an experiment: the model's schedule of `plot.series[0]` at
/// `plot.points[0]`, replication 0 (parameter overrides of a sensitivity run do not apply).
pub fn gantt_chart(
    exp: &Experiment,
    scale: Scale,
    size: ScaleSpec,
) -> Result<GanttChart, HarnessError> {
    let sweep = &exp.sweep;
    let bad = |m: String| HarnessError::Spec(format!("{}: {m}", exp.spec.id));
    let name = plotted_series(exp)
        .into_iter()
        .next()
        .ok_or_else(|| bad("a Gantt chart needs `plot.series`".into()))?;
    let series = sweep
        .series
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| bad(format!("no series `{name}`")))?;
    let x = *exp
        .spec
        .plot
        .points
        .as_ref()
        .and_then(|p| p.first())
        .ok_or_else(|| bad("a Gantt chart needs `plot.points`".into()))?;
    let model = &exp.model;
    let mut params = ParamSet::merged(&[&sweep.parameters, &series.parameters]);
    params.set(&sweep.axis.parameter, toml::Value::Float(x));
    let key = StreamKey::new(sweep.seed, sweep.stream_name())
        .point(&runner::point_name(&sweep.axis.parameter, x))
        .replication(0);
    let gantt = model
        .gantt(&params, &key, size.jobs)
        .map_err(|e| HarnessError::Model(format!("{}: {e}", exp.spec.id)))?
        .ok_or_else(|| bad(format!("model `{}` draws no Gantt chart", sweep.model)))?;
    let makespan = gantt.bars.iter().map(|b| b.end).fold(0.0, f64::max);
    Ok(GanttChart {
        caption: figure_caption(
            exp,
            scale,
            &format!(
                "{}, {} = {}",
                series.label(),
                sweep.axis.parameter,
                sweep.axis.display(x)
            ),
        ),
        time_label: gantt.time_label,
        rows: gantt.rows,
        bars: gantt.bars,
        marker: Some((
            makespan,
            format!("makespan {} ", crate::claims::fmt_sig4(makespan)),
        )),
    })
}

/// The plot of an experiment: its metric's means with 95% CI bars, one line per series.
pub fn figure(exp: &Experiment, table: &SummaryTable, scale: Scale, size: ScaleSpec) -> Figure {
    figure_of(exp, table, scale, size, &plotted_series(exp), None)
}

/// The caption of an experiment's line figure.
fn figures_caption(exp: &Experiment, scale: Scale, size: ScaleSpec) -> String {
    figure_caption(exp, scale, &exp.sweep.describe_size(scale, size))
}

/// The line chart of the series `names` of an experiment.
fn figure_of(
    exp: &Experiment,
    table: &SummaryTable,
    scale: Scale,
    size: ScaleSpec,
    names: &[String],
    panel: Option<&crate::spec::PanelSpec>,
) -> Figure {
    let xs = plotted_xs(exp, table);
    let plot = &exp.spec.plot;
    let metric = panel
        .and_then(|p| p.metric.as_ref())
        .unwrap_or(&plot.metric);
    let y_label = panel
        .and_then(|p| p.y_label.as_ref())
        .unwrap_or(&plot.y_label);
    let y_log = panel.and_then(|p| p.y_log).unwrap_or(plot.y_log);
    let series = names
        .iter()
        .map(|name| {
            let label = series_label(exp, name);
            let points = xs
                .iter()
                .copied()
                .filter_map(|x| {
                    table
                        .cell(metric, name, x)
                        .map(|c| PlotPoint::with_ci(x, c.mean, c.half_width))
                })
                .collect();
            PlotSeries {
                name: label.to_string(),
                points,
            }
        })
        .collect();
    let caption = figures_caption(exp, scale, size);
    Figure {
        caption,
        x_label: exp.sweep.axis.label.clone(),
        y_label: y_label.clone(),
        x_scale: if exp.sweep.axis.log {
            plot::Scale::Log10
        } else {
            plot::Scale::Linear
        },
        y_scale: if y_log {
            plot::Scale::Log10
        } else {
            plot::Scale::Linear
        },
        x_range: None,
        y_range: exp.spec.plot.y_range.map(|[a, b]| (a, b)),
        kind: PlotKind::Lines,
        series,
    }
}

/// Waits for every process still running a shard of `exp`'s sweep at `scale` in `project`
/// (one holding a shard's journal: a copy started after the shard's task, such as a
/// resubmission, or a requeued task while the merge was started by hand). Such a process
/// writes the shard's files when it finishes, so merging before would read files about to
/// be replaced, or miss a shard it has not written yet.
fn wait_for_running_shards(exp: &Experiment, scale: Scale, project: &Project) {
    let prefix = format!("{}.{}.shard-", exp.sweep.name, scale.name());
    // Every revision's directory: a shard may run code of another revision than the merge.
    let Ok(revisions) = std::fs::read_dir(project.journal_root(exp)) else {
        return;
    };
    let mut held: Vec<PathBuf> = revisions
        .flatten()
        .filter_map(|r| std::fs::read_dir(r.path()).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".jsonl"))
        })
        .filter(|p| crate::journal::is_held(p))
        .collect();
    held.sort();
    for path in held {
        eprintln!(
            "{}: a process is still running a shard of sweep `{}`; merging {} once it has finished",
            path.display(),
            exp.sweep.name,
            exp.spec.id
        );
        crate::journal::wait_until_free(&path);
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
    wait_for_running_shards(exp, scale, project);
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
    // The merged result names the revisions its shards were computed at (sorted, distinct).
    let mut revisions: Vec<String> = Vec::new();
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
        let revision = json
            .get("git_revision")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("unknown")
            .to_string();
        if !revisions.contains(&revision) {
            revisions.push(revision);
        }
        // Shards of other seeds are other experiments: their runs would merge into numbers no
        // single run gives.
        let seed = json.get("seed").and_then(serde_json::Value::as_u64);
        if seed != Some(exp.sweep.seed) {
            return Err(HarnessError::Data(format!(
                "{}: seed {} is not the sweep's {}: the shards of one result must share its seed",
                meta.display(),
                seed.map_or("missing".to_string(), |s| s.to_string()),
                exp.sweep.seed
            )));
        }
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
    revisions.sort();
    let revision = revisions.join("+");
    let mut result = finish(exp, &run, Some((project, &revision)), Some(1))?;
    result.computed = computed;
    Ok(Some(result))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_caption_that_numbers_itself_is_not_numbered_twice() {
        assert_eq!(
            without_own_number("Figure 40: Total Response Times"),
            "Total Response Times"
        );
        assert_eq!(without_own_number("Table 4:  Exp 1"), "Exp 1");
        for kept in [
            "Fig. 5.8. Average waiting time",
            "Figure 3 shows: nothing",
            "Loss rate against load",
            "Figure",
        ] {
            assert_eq!(without_own_number(kept), kept);
        }
    }
    use super::*;
    use crate::registry::Registry;

    const SWEEP: &str = r#"
name = "toy-test"
model = "toy"
[axis]
parameter = "segments"
label = "Segments N"
paper = [1, 2]
labels = ["one", "two"]
[[series]]
name = "sas"
label = "SAS"
parameters = { heuristic = "sas" }
[[series]]
name = "sufferage"
parameters = { heuristic = "sufferage" }
[scales.quick]
replications = 1
jobs = 10
[scales.paper]
replications = 1
jobs = 10
"#;

    fn registry(entry: &str) -> Registry {
        Registry::from_sources(
            &[("toy/sweeps/t.toml", SWEEP), ("toy/x.toml", entry)],
            crate::testing::catalog(vec![]),
        )
        .unwrap()
    }

    fn entry(kind: &str, plot: &str) -> String {
        format!(
            "id = \"toy-fig-9\"\ntitle = \"t\"\nkind = \"{kind}\"\ncaption = \"Result\"\nsweep = \"toy-test\"\nmetrics = [\"makespan\"]\n[plot]\nmetric = \"makespan\"\ny_label = \"Makespan\"\n{plot}"
        )
    }

    fn run(reg: &Registry) -> (ExperimentResult, ScaleSpec) {
        let exp = &reg.all()[0];
        let result = reproduce(&[exp], &RunOptions::default(), None)
            .unwrap()
            .remove(0);
        let size = result.size;
        (result, size)
    }

    /// Counts the sweeps it was told had finished.
    struct Releasing(std::sync::Arc<std::sync::atomic::AtomicUsize>);
    use crate::model::{Measurement, Model, ModelError};

    impl Model for Releasing {
        fn name(&self) -> &'static str {
            "toy-releasing"
        }
        fn parameters(&self) -> &'static [(&'static str, &'static str)] {
            crate::testing::ToyModel.parameters()
        }
        fn metrics(&self) -> &'static [&'static str] {
            crate::testing::ToyModel.metrics()
        }
        fn run(
            &self,
            params: &ParamSet,
            key: &StreamKey,
            jobs: u64,
        ) -> Result<Measurement, ModelError> {
            crate::testing::ToyModel.run(params, key, jobs)
        }
        fn sweep_finished(&self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn a_model_is_told_when_its_paper_scale_sweep_has_finished_and_not_at_quick_scale() {
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let sweep = SWEEP
            .replace("model = \"toy\"", "model = \"toy-releasing\"")
            .replace("toy-test", "toy-releasing");
        let entry = entry("figure", "").replace("toy-test", "toy-releasing");
        let reg = Registry::from_sources(
            &[("toy/sweeps/r.toml", &sweep), ("toy/x.toml", &entry)],
            crate::testing::catalog(vec![Box::new(Releasing(count.clone()))]),
        )
        .unwrap();
        let exp = &reg.all()[0];
        let at = |scale| RunOptions {
            scale: Some(scale),
            ..RunOptions::default()
        };
        reproduce(&[exp], &at(Scale::Quick), None).unwrap();
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 0);
        reproduce(&[exp], &at(Scale::Paper), None).unwrap();
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn panels_render_one_figure_per_panel_and_are_validated() {
        let panels = "[[plot.panels]]\ntitle = \"(a) SAS\"\nseries = [\"sas\"]\n[[plot.panels]]\ntitle = \"(b) Sufferage\"\nseries = [\"sufferage\"]\n";
        let reg = registry(&entry("figure", panels));
        let (result, size) = run(&reg);
        let svg = render_figure(&reg.all()[0], &result.table, Scale::Quick, size).unwrap();
        assert!(svg.contains("(a) SAS") && svg.contains("(b) Sufferage"));
        assert!(svg.contains(&format!("height=\"{}\"", 60 + 2 * plot::PANEL_HEIGHT)));
        let bad = |plot: &str| {
            Registry::from_sources(
                &[
                    ("toy/sweeps/t.toml", SWEEP),
                    ("toy/x.toml", &entry("figure", plot)),
                ],
                crate::testing::catalog(vec![]),
            )
            .unwrap_err()
            .to_string()
        };
        let e = bad(&format!("series = [\"sas\"]\n{panels}"));
        assert!(e.contains("both `series` and `panels`"), "{e}");
        let e = bad("[[plot.panels]]\ntitle = \"(a)\"\nseries = [\"lact\"]\n");
        assert!(e.contains("plot series `lact` is not a series"), "{e}");
        let e = bad("[[plot.panels]]\ntitle = \"(a)\"\nseries = []\n");
        assert!(e.contains("at least one series"), "{e}");
        let e = bad(&format!("kind = \"bars\"\n{panels}"));
        assert!(e.contains("line charts only"), "{e}");
        let e =
            bad("[[plot.panels]]\ntitle = \"(a)\"\nseries = [\"sas\"]\nmetric = \"utilization\"\n");
        assert!(
            e.contains("panel metric `utilization` is not in `metrics`"),
            "{e}"
        );
    }

    #[test]
    fn bars_use_axis_labels_points_and_references() {
        let reg = registry(&entry(
            "table",
            "kind = \"bars\"\npoints = [2]\n[[table.columns]]\nmetric = \"makespan\"\nseries = \"sas\"\nreference = [nan, 6.2]\n",
        ));
        let (result, size) = run(&reg);
        let exp = &reg.all()[0];
        let chart = bar_chart(exp, &result.table, Scale::Quick, size);
        assert_eq!(chart.groups, ["two"]);
        assert_eq!(chart.series[0].name, "SAS");
        let bar = chart.series[0].bars[0].unwrap();
        assert!((bar.value - 6.2).abs() < 1e-9);
        assert_eq!(bar.reference, Some(6.2));
        assert_eq!(chart.series[1].bars[0].unwrap().reference, None);
        assert!(
            chart
                .caption
                .starts_with("Fig. 9. Result [gridsched, quick scale")
        );
        let svg = render_figure(exp, &result.table, Scale::Quick, size).unwrap();
        assert!(svg.contains("two") && svg.contains("document"));
    }

    #[test]
    fn gantt_charts_come_from_the_model() {
        let reg = registry(&entry(
            "figure",
            "kind = \"gantt\"\nseries = [\"sas\"]\npoints = [2]\n",
        ));
        let (result, size) = run(&reg);
        let exp = &reg.all()[0];
        let chart = gantt_chart(exp, Scale::Quick, size).unwrap();
        assert_eq!(chart.rows, ["R1", "R2", "R3", "R4"]);
        assert_eq!(chart.bars.len(), 10);
        let (t, label) = chart.marker.clone().unwrap();
        assert!((t - 6.2).abs() < 1e-9, "{t}");
        assert_eq!(label, "makespan 6.2 ");
        assert!(
            chart.caption.contains("SAS, segments = two"),
            "{}",
            chart.caption
        );
        let svg = render_figure(exp, &result.table, Scale::Quick, size).unwrap();
        assert!(svg.contains("t10"));
    }

    #[test]
    fn results_come_back_in_the_order_asked_even_when_a_sweep_is_shared() {
        let other = r#"
name = "toy-other"
model = "toy"
[axis]
parameter = "segments"
label = "N"
paper = [2]
[[series]]
name = "min-min"
parameters = { heuristic = "min-min" }
[scales.quick]
replications = 1
jobs = 10
[scales.paper]
replications = 1
jobs = 10
"#;
        let e = |id: &str, sweep: &str| {
            format!(
                "id = \"{id}\"\ntitle = \"t\"\nkind = \"figure\"\ncaption = \"c\"\nsweep = \"{sweep}\"\nmetrics = [\"makespan\"]\n[plot]\nmetric = \"makespan\"\ny_label = \"y\"\n"
            )
        };
        let (a, b, c) = (
            e("toy-fig-1", "toy-test"),
            e("toy-fig-2", "toy-other"),
            e("toy-fig-3", "toy-test"),
        );
        let reg = Registry::from_sources(
            &[
                ("toy/sweeps/t.toml", SWEEP),
                ("toy/sweeps/o.toml", other),
                ("toy/a.toml", &a),
                ("toy/b.toml", &b),
                ("toy/c.toml", &c),
            ],
            crate::testing::catalog(vec![]),
        )
        .unwrap();
        let exps: Vec<&Experiment> = reg.all().iter().collect();
        let results = reproduce(&exps, &RunOptions::default(), None).unwrap();
        let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["toy-fig-1", "toy-fig-2", "toy-fig-3"]);
    }

    #[test]
    fn bar_and_gantt_outputs_are_byte_identical_on_1_and_2_threads() {
        let ch5 = r#"
name = "toy-ch5-test"
model = "toy"
[axis]
parameter = "case"
label = "Task case"
paper = [1, 2, 3]
labels = ["Case I", "Case II", "Case III"]
[[series]]
name = "sas"
parameters = { heuristic = "sas" }
[[series]]
name = "max-min"
parameters = { heuristic = "max-min", noise = 1.0 }
[scales.quick]
replications = 3
jobs = 120
[scales.paper]
replications = 3
jobs = 120
"#;
        let bars = "id = \"toy-table-8\"\ntitle = \"t\"\nkind = \"table\"\ncaption = \"c\"\nsweep = \"toy-ch5-test\"\nmetrics = [\"makespan\", \"utilization\"]\n[plot]\nkind = \"bars\"\nmetric = \"makespan\"\ny_label = \"y\"\n[[table.columns]]\nmetric = \"makespan\"\nseries = \"sas\"\nreference = [1.0, 2.0, 3.0]\n";
        let gantt = entry(
            "figure",
            "kind = \"gantt\"\nseries = [\"sas\"]\npoints = [2]\n",
        );
        let reg = Registry::from_sources(
            &[
                ("toy/sweeps/t.toml", SWEEP),
                ("toy/sweeps/c.toml", ch5),
                ("toy/bars.toml", bars),
                ("toy/gantt.toml", &gantt),
            ],
            crate::testing::catalog(vec![]),
        )
        .unwrap();
        let exps: Vec<&Experiment> = reg.all().iter().collect();
        let files = |threads: usize| {
            let dir = tempfile::tempdir().unwrap();
            let project = Project {
                root: dir.path().to_path_buf(),
            };
            let opts = RunOptions {
                threads: Some(threads),
                ..RunOptions::default()
            };
            reproduce(&exps, &opts, Some(&project)).unwrap();
            exps.iter()
                .flat_map(|e| {
                    [
                        project.runs_csv(e, Scale::Quick),
                        project.summary_csv(e, Scale::Quick),
                        project.figure_svg(e, Scale::Quick),
                    ]
                })
                .map(|p| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
                .collect::<Vec<_>>()
        };
        let (one, two) = (files(1), files(2));
        assert_eq!(one.len(), 6);
        assert!(one == two, "outputs differ between 1 and 2 threads");
    }

    #[test]
    fn lines_respect_points_and_invalid_views_stop_the_run() {
        let reg = registry(&entry("figure", "points = [1]\ny_range = [5.0, 8.0]\n"));
        let (result, size) = run(&reg);
        let fig = figure(&reg.all()[0], &result.table, Scale::Quick, size);
        assert!(fig.series.iter().all(|s| s.points.len() == 1));
        assert_eq!(fig.y_range, Some((5.0, 8.0)));
        let bad = registry(&entry("figure", "kind = \"gantt\"\n"));
        let err = reproduce(&[&bad.all()[0]], &RunOptions::default(), None).unwrap_err();
        assert!(err.to_string().contains("one run"), "{err}");
    }
}
