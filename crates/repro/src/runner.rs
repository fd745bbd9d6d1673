//! Running a sweep: work items, parallel execution, resumption and shards.
//!
//! A work item is one replication of one series at one axis value. Items are numbered in a
//! fixed order (axis value, then series, then replication); each draws its random numbers from
//! a stream named by (sweep, axis value, replication) — the series is left out on purpose, so
//! every series of a point sees the *same* jobs (common random numbers). Results therefore do
//! not depend on thread count, execution order or sharding.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use gridsched_sim::StreamKey;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::HarnessError;
use crate::model::{ParamSet, model_named};
use crate::spec::{Scale, ScaleSpec, SweepSpec};
use crate::table::RunValue;

/// How to run a sweep.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub scale: Option<Scale>,
    /// Override the scale's replications.
    pub replications: Option<u32>,
    /// Override the scale's jobs per replication.
    pub jobs: Option<u64>,
    /// Worker threads (default: rayon's default, one per core).
    pub threads: Option<usize>,
    /// Run only shard `k` of `n` (1-based): items `i` with `i % n == k - 1`.
    pub shard: Option<(u32, u32)>,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// Directory for resume journals (`None`: no journal).
    pub journal_dir: Option<PathBuf>,
    /// Parameters that override the sweep's and every series' values (sensitivity runs).
    pub overrides: crate::spec::Params,
}

impl RunOptions {
    /// The scale (quick unless set).
    pub fn scale(&self) -> Scale {
        self.scale.unwrap_or(Scale::Quick)
    }
}

/// One replication of one series at one axis value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkItem {
    pub index: usize,
    pub x: f64,
    pub series: usize,
    pub replication: u32,
}

/// The results of a sweep at one scale.
#[derive(Debug, Clone)]
pub struct SweepRun {
    pub sweep: SweepSpec,
    pub scale: Scale,
    /// Replications and jobs actually used (after overrides).
    pub size: ScaleSpec,
    /// Every metric of every item that ran (all items, or one shard's).
    pub values: Vec<RunValue>,
    /// Items computed in this process / taken from a resume journal.
    pub computed: usize,
    pub resumed: usize,
    pub wall_seconds: f64,
    pub shard: Option<(u32, u32)>,
}

/// The canonical name of an axis point, used in random-stream keys.
pub fn point_name(parameter: &str, x: f64) -> String {
    format!("{parameter}={x}")
}

/// All work items of a sweep at a scale, in canonical order.
pub fn work_items(sweep: &SweepSpec, scale: Scale, size: ScaleSpec) -> Vec<WorkItem> {
    let mut items = Vec::new();
    for &x in sweep.axis_values(scale) {
        for series in 0..sweep.series.len() {
            for replication in 0..size.replications {
                items.push(WorkItem {
                    index: items.len(),
                    x,
                    series,
                    replication,
                });
            }
        }
    }
    items
}

#[derive(Debug, Serialize, Deserialize)]
struct JournalLine {
    index: usize,
    x: f64,
    series: String,
    replication: u32,
    metrics: Vec<(String, f64)>,
}

/// Runs (one shard of) a sweep.
pub fn run_sweep(sweep: &SweepSpec, opts: &RunOptions) -> Result<SweepRun, HarnessError> {
    let started = Instant::now();
    let scale = opts.scale();
    let base = sweep.scale(scale).ok_or_else(|| {
        HarnessError::Spec(format!(
            "sweep `{}` has no {} scale",
            sweep.name,
            scale.name()
        ))
    })?;
    let size = ScaleSpec {
        replications: opts.replications.unwrap_or(base.replications),
        jobs: opts.jobs.unwrap_or(base.jobs),
    };
    if size.replications == 0 || size.jobs == 0 {
        return Err(HarnessError::Usage(
            "--reps and --jobs must be at least 1".into(),
        ));
    }
    let model = model_named(&sweep.model)
        .ok_or_else(|| HarnessError::Spec(format!("unknown model `{}`", sweep.model)))?;
    let mut items = work_items(sweep, scale, size);
    if let Some((k, n)) = opts.shard {
        items.retain(|it| it.index % n as usize == (k - 1) as usize);
    }

    let journal_path = opts
        .journal_dir
        .as_ref()
        .map(|dir| journal_path(dir, sweep, scale, size, opts.shard, &opts.overrides));
    let mut done: Vec<Option<Vec<(String, f64)>>> = vec![None; work_items_len(sweep, scale, size)];
    let mut resumed = 0;
    if let Some(path) = &journal_path {
        resumed = load_journal(path, sweep, &items, &mut done)?;
    }
    let todo: Vec<WorkItem> = items
        .iter()
        .copied()
        .filter(|it| done[it.index].is_none())
        .collect();

    let journal = match &journal_path {
        Some(path) => {
            fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
                .map_err(|e| HarnessError::io(path, e))?;
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| HarnessError::io(path, e))?;
            Some(Mutex::new(file))
        }
        None => None,
    };
    let bar = progress_bar(opts.progress, todo.len(), &sweep.name);

    let run_item = |it: &WorkItem| -> Result<(usize, Vec<(String, f64)>), HarnessError> {
        let series = &sweep.series[it.series];
        let mut params =
            ParamSet::merged(&[&sweep.parameters, &series.parameters, &opts.overrides]);
        params.set(&sweep.axis.parameter, toml::Value::Float(it.x));
        let key = StreamKey::new(sweep.seed, &sweep.name)
            .point(&point_name(&sweep.axis.parameter, it.x))
            .replication(it.replication);
        let metrics = model.run(&params, &key, size.jobs).map_err(|e| {
            HarnessError::Model(format!(
                "sweep `{}`, {} = {}, series `{}`, replication {}: {e}",
                sweep.name, sweep.axis.parameter, it.x, series.name, it.replication
            ))
        })?;
        let metrics: Vec<(String, f64)> = metrics
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        if let Some(journal) = &journal {
            let line = JournalLine {
                index: it.index,
                x: it.x,
                series: series.name.clone(),
                replication: it.replication,
                metrics: metrics.clone(),
            };
            let text =
                serde_json::to_string(&line).map_err(|e| HarnessError::Spec(e.to_string()))?;
            let mut file = journal.lock().unwrap_or_else(|p| p.into_inner());
            writeln!(file, "{text}").map_err(|e| {
                HarnessError::io(journal_path.as_deref().unwrap_or(Path::new("journal")), e)
            })?;
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        Ok((it.index, metrics))
    };

    type ItemResult = Result<(usize, Vec<(String, f64)>), HarnessError>;
    let results: Vec<ItemResult> = match opts.threads {
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| HarnessError::Usage(format!("cannot start {t} threads: {e}")))?
            .install(|| todo.par_iter().map(run_item).collect()),
        None => todo.par_iter().map(run_item).collect(),
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    for r in results {
        let (index, metrics) = r?;
        done[index] = Some(metrics);
    }

    let mut values = Vec::new();
    for it in &items {
        let metrics = done[it.index]
            .as_ref()
            .expect("every item ran or was resumed");
        for (metric, value) in metrics {
            values.push(RunValue {
                x: it.x,
                series: sweep.series[it.series].name.clone(),
                run: it.replication,
                metric: metric.clone(),
                value: *value,
            });
        }
    }
    Ok(SweepRun {
        sweep: sweep.clone(),
        scale,
        size,
        values,
        computed: todo.len(),
        resumed,
        wall_seconds: started.elapsed().as_secs_f64(),
        shard: opts.shard,
    })
}

fn work_items_len(sweep: &SweepSpec, scale: Scale, size: ScaleSpec) -> usize {
    sweep.axis_values(scale).len() * sweep.series.len() * size.replications as usize
}

/// The journal of a sweep run: its name carries a fingerprint of everything that defines the
/// numbers, so a changed experiment file never resumes from a stale journal.
pub fn journal_path(
    dir: &Path,
    sweep: &SweepSpec,
    scale: Scale,
    size: ScaleSpec,
    shard: Option<(u32, u32)>,
    overrides: &crate::spec::Params,
) -> PathBuf {
    let fingerprint = blake3::hash(
        format!(
            "{sweep:?}|{}|{}|{}|{overrides:?}",
            scale.name(),
            size.replications,
            size.jobs
        )
        .as_bytes(),
    );
    let shard = shard.map_or(String::new(), |(k, n)| format!(".shard-{k}-of-{n}"));
    dir.join(format!(
        "{}.{}{}.{}.jsonl",
        sweep.name,
        scale.name(),
        shard,
        &fingerprint.to_hex()[..16]
    ))
}

/// Loads completed items from a journal; a torn last line (killed mid-write) is ignored.
fn load_journal(
    path: &Path,
    sweep: &SweepSpec,
    items: &[WorkItem],
    done: &mut [Option<Vec<(String, f64)>>],
) -> Result<usize, HarnessError> {
    let Ok(file) = File::open(path) else {
        return Ok(0);
    };
    let mut count = 0;
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|e| HarnessError::io(path, e))?;
        let Ok(entry) = serde_json::from_str::<JournalLine>(&line) else {
            continue;
        };
        let matches = items.iter().any(|it| {
            it.index == entry.index
                && it.x == entry.x
                && it.replication == entry.replication
                && sweep.series[it.series].name == entry.series
        });
        if matches && done[entry.index].is_none() {
            done[entry.index] = Some(entry.metrics);
            count += 1;
        }
    }
    Ok(count)
}

/// Removes a finished run's journal.
pub fn discard_journal(dir: &Path, run: &SweepRun, overrides: &crate::spec::Params) {
    let path = journal_path(dir, &run.sweep, run.scale, run.size, run.shard, overrides);
    let _ = fs::remove_file(path);
}

fn progress_bar(enabled: bool, len: usize, name: &str) -> Option<indicatif::ProgressBar> {
    if !enabled || len == 0 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name.to_string());
    Some(bar)
}
