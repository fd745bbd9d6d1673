//! Running a sweep: work items, parallel execution, resumption and shards.
//!
//! A work item is one replication of one series at one axis value. Items are numbered in a
//! fixed order (axis value, then series, then replication); each draws its random numbers from
//! a stream named by (sweep, axis value, replication) — the series is left out on purpose, so
//! every series of a point sees the *same* jobs (common random numbers). Results therefore do
//! not depend on thread count, execution order or sharding.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use gridsched_sim::StreamKey;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::HarnessError;
use crate::journal::{Journal, UnlockedJournal};
use crate::model::{Model, ParamSet};
use crate::spec::{Evaluation, Scale, ScaleSpec, SweepSpec};
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
    /// Report progress on standard error: a bar on a terminal, else a plain line at most every
    /// [`PROGRESS_INTERVAL`] (a batch job's log; `$GRIDSCHED_PROGRESS_SECS` overrides it).
    pub progress: bool,
    /// Directory for resume journals (`None`: no journal).
    pub journal_dir: Option<PathBuf>,
    /// Parameters that override the sweep's and every series' values (sensitivity runs).
    pub overrides: crate::spec::Params,
    /// Write paper-scale results from a working tree with uncommitted changes (their
    /// provenance then names a `-dirty` revision, which the report flags).
    pub allow_dirty: bool,
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
/// A `curve` axis has one item per series and replication (with `x = 0`), evaluated at every
/// axis value at once.
pub fn work_items(sweep: &SweepSpec, scale: Scale, size: ScaleSpec) -> Vec<WorkItem> {
    let mut items = Vec::new();
    let points: &[f64] = match sweep.axis.evaluation {
        Evaluation::Sweep => sweep.axis_values(scale),
        Evaluation::Curve => &[0.0],
    };
    for &x in points {
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
    /// Sweep items: the metrics at `x`.
    #[serde(default)]
    metrics: Vec<(String, f64)>,
    /// Curve items: `(x, metric, value)` rows along the axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rows: Option<Vec<(f64, String, f64)>>,
}

/// What one work item measured: `(x, metric, value)` rows.
type Rows = Vec<(f64, String, f64)>;

impl JournalLine {
    fn rows(self) -> Rows {
        match self.rows {
            Some(rows) => rows,
            None => self
                .metrics
                .into_iter()
                .map(|(m, v)| (self.x, m, v))
                .collect(),
        }
    }
}

/// Runs (one shard of) a sweep of `model`. With `opts.journal_dir`, the run resumes from and
/// appends to its journal, locked for the duration of this call (see [`crate::journal`]); the
/// journal is kept for the caller to delete (or a later run to resume). [`crate::reproduce()`]
/// instead holds the journal until the run's outputs are written ([`run_sweep_with`]).
pub fn run_sweep(
    sweep: &SweepSpec,
    model: &dyn Model,
    opts: &RunOptions,
) -> Result<SweepRun, HarnessError> {
    let journal = match &opts.journal_dir {
        Some(dir) => Some(open_journal(dir, sweep, opts)?),
        None => None,
    };
    run_sweep_with(sweep, model, opts, journal.as_ref())
}

/// The replications and jobs a run of `sweep` uses: the scale's, unless `opts` overrides them.
pub fn run_size(sweep: &SweepSpec, opts: &RunOptions) -> Result<ScaleSpec, HarnessError> {
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
    Ok(size)
}

/// Opens and locks the journal of a run of `sweep` with `opts` (in `dir`), waiting for
/// another process running the same sweep, size and shard.
pub fn open_journal(
    dir: &Path,
    sweep: &SweepSpec,
    opts: &RunOptions,
) -> Result<Journal, HarnessError> {
    lock_journal(prepare_journal(dir, sweep, opts)?, sweep, opts)
}

/// Opens (without locking) the journal of a run of `sweep` with `opts` in `dir`.
pub fn prepare_journal(
    dir: &Path,
    sweep: &SweepSpec,
    opts: &RunOptions,
) -> Result<UnlockedJournal, HarnessError> {
    let size = run_size(sweep, opts)?;
    UnlockedJournal::open(&journal_path(
        dir,
        sweep,
        opts.scale(),
        size,
        opts.shard,
        &opts.overrides,
    ))
}

/// Locks a journal [`prepare_journal`] opened for `sweep` and `opts` (waiting, with a message,
/// for a process that holds it) and reads its whole lines.
pub fn lock_journal(
    journal: UnlockedJournal,
    sweep: &SweepSpec,
    opts: &RunOptions,
) -> Result<Journal, HarnessError> {
    let what = format!(
        "sweep `{}` at {} scale{}",
        sweep.name,
        opts.scale().name(),
        opts.shard
            .map_or(String::new(), |(k, n)| format!(", shard {k}/{n}"))
    );
    journal.lock(&what, |line| {
        serde_json::from_str::<JournalLine>(line).is_ok()
    })
}

/// [`run_sweep`] with a journal the caller opened ([`open_journal`]) and keeps: the lines it
/// held when opened are resumed, and each item computed is appended.
pub fn run_sweep_with(
    sweep: &SweepSpec,
    model: &dyn Model,
    opts: &RunOptions,
    journal: Option<&Journal>,
) -> Result<SweepRun, HarnessError> {
    let started = Instant::now();
    let scale = opts.scale();
    let size = run_size(sweep, opts)?;
    let mut items = work_items(sweep, scale, size);
    if let Some((k, n)) = opts.shard {
        items.retain(|it| it.index % n as usize == (k - 1) as usize);
    }

    let mut done: Vec<Option<Rows>> = vec![None; work_items_len(sweep, scale, size)];
    let mut resumed = 0;
    if let Some(journal) = journal {
        resumed = resume(&journal.found().lines, sweep, &items, &mut done);
    }
    let todo: Vec<WorkItem> = items
        .iter()
        .copied()
        .filter(|it| done[it.index].is_none())
        .collect();
    let bar = progress_bar(opts.progress, todo.len(), &sweep.name);

    let curve = sweep.axis.evaluation == Evaluation::Curve;
    let xs = sweep.axis_values(scale);
    let run_item = |it: &WorkItem| -> Result<(usize, Rows), HarnessError> {
        gridsched_sim::cancel::checkpoint();
        let series = &sweep.series[it.series];
        let mut params =
            ParamSet::merged(&[&sweep.parameters, &series.parameters, &opts.overrides]);
        let point = if curve {
            "curve".to_string()
        } else {
            params.set(&sweep.axis.parameter, toml::Value::Float(it.x));
            point_name(&sweep.axis.parameter, it.x)
        };
        let key = StreamKey::new(sweep.seed, sweep.stream_name())
            .point(&point)
            .replication(it.replication);
        let fail = |e: crate::model::ModelError| {
            let at = if curve {
                String::new()
            } else {
                format!(", {} = {}", sweep.axis.parameter, it.x)
            };
            HarnessError::Model(format!(
                "sweep `{}`{at}, series `{}`, replication {}: {e}",
                sweep.name, series.name, it.replication
            ))
        };
        let rows: Rows = if curve {
            let rows = model
                .run_curve(&params, &key, size.jobs, xs)
                .map_err(fail)?;
            rows.into_iter()
                .map(|(x, m, v)| (x, m.to_string(), v))
                .collect()
        } else {
            let metrics = model.run(&params, &key, size.jobs).map_err(fail)?;
            metrics
                .into_iter()
                .map(|(m, v)| (it.x, m.to_string(), v))
                .collect()
        };
        if let Some(journal) = &journal {
            let (metrics, journal_rows) = if curve {
                (Vec::new(), Some(rows.clone()))
            } else {
                (rows.iter().map(|(_, m, v)| (m.clone(), *v)).collect(), None)
            };
            let line = JournalLine {
                index: it.index,
                x: it.x,
                series: series.name.clone(),
                replication: it.replication,
                metrics,
                rows: journal_rows,
            };
            let text =
                serde_json::to_string(&line).map_err(|e| HarnessError::Spec(e.to_string()))?;
            journal.append(&text)?;
        }
        if let Some(bar) = &bar {
            bar.inc();
        }
        Ok((it.index, rows))
    };

    type ItemResult = Result<(usize, Rows), HarnessError>;
    let results: Vec<ItemResult> = match thread_pool(opts.threads)? {
        Some(pool) => pool.install(|| todo.par_iter().map(run_item).collect()),
        None => todo.par_iter().map(run_item).collect(),
    };
    if let Some(bar) = &bar {
        bar.finish();
    }
    for r in results {
        let (index, metrics) = r?;
        done[index] = Some(metrics);
    }

    let mut values = Vec::new();
    for it in &items {
        let rows = done[it.index]
            .as_ref()
            .expect("every item ran or was resumed");
        for (x, metric, value) in rows {
            values.push(RunValue {
                x: *x,
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

/// A pool of `threads` workers, or `None` for rayon's global pool (one worker per core).
pub fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>, HarnessError> {
    threads
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| HarnessError::Usage(format!("cannot start {t} threads: {e}")))
        })
        .transpose()
}

/// How many runs (work items) a sweep has at `scale` with `size`'s replications: the points
/// (one for a curve axis) times the series times the replications, saturating.
pub fn work_items_len(sweep: &SweepSpec, scale: Scale, size: ScaleSpec) -> usize {
    let points = match sweep.axis.evaluation {
        Evaluation::Sweep => sweep.axis_values(scale).len(),
        Evaluation::Curve => 1,
    };
    points
        .saturating_mul(sweep.series.len())
        .saturating_mul(size.replications as usize)
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

/// Takes completed items from a journal's lines (those [`Journal::open`] found whole); returns
/// how many. An item recorded twice (by copies of one run before journals were locked) is
/// taken once: every copy computed the same values.
fn resume(
    lines: &[String],
    sweep: &SweepSpec,
    items: &[WorkItem],
    done: &mut [Option<Rows>],
) -> usize {
    let mut count = 0;
    for line in lines {
        let Ok(entry) = serde_json::from_str::<JournalLine>(line) else {
            continue;
        };
        let matches = items.iter().any(|it| {
            it.index == entry.index
                && it.x == entry.x
                && it.replication == entry.replication
                && sweep.series[it.series].name == entry.series
        });
        if matches && done[entry.index].is_none() {
            let index = entry.index;
            done[index] = Some(entry.rows());
            count += 1;
        }
    }
    count
}

/// How often a run off a terminal prints a progress line (default).
pub const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// Progress of one sweep: indicatif's bar on a terminal; off a terminal (stderr redirected to
/// a file, a Slurm task's log) a plain line — items done / total, elapsed, ETA — at most once
/// per interval, and a last line at the end if any was printed.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines {
        name: String,
        total: usize,
        done: std::sync::atomic::AtomicUsize,
        start: std::time::Instant,
        interval: std::time::Duration,
        /// When the last line was printed (or the start), and whether any was.
        last: Mutex<(std::time::Instant, bool)>,
    },
}

fn progress_bar(enabled: bool, len: usize, name: &str) -> Option<Progress> {
    if !enabled || len == 0 {
        return None;
    }
    if !std::io::stderr().is_terminal() {
        let interval = std::env::var("GRIDSCHED_PROGRESS_SECS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map_or(PROGRESS_INTERVAL, std::time::Duration::from_secs_f64);
        let now = std::time::Instant::now();
        return Some(Progress::Lines {
            name: name.to_string(),
            total: len,
            done: std::sync::atomic::AtomicUsize::new(0),
            start: now,
            interval,
            last: Mutex::new((now, false)),
        });
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name.to_string());
    Some(Progress::Bar(bar))
}

/// `1 h 02 min`, `3 min 05 s`, `12 s`.
fn human_duration(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

impl Progress {
    fn inc(&self) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines {
                done,
                interval,
                last,
                ..
            } => {
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
                if last.0.elapsed() >= *interval {
                    *last = (std::time::Instant::now(), true);
                    self.line(n);
                }
            }
        }
    }

    fn line(&self, n: usize) {
        if let Progress::Lines {
            name, total, start, ..
        } = self
        {
            let elapsed = start.elapsed();
            let eta = if n > 0 && n < *total {
                let left = elapsed.mul_f64((*total - n) as f64 / n as f64);
                format!(", ETA {}", human_duration(left))
            } else {
                String::new()
            };
            let pct = 100.0 * n as f64 / *total as f64;
            // A standard error that cannot be written loses the line, not the run.
            let _ = writeln!(
                std::io::stderr().lock(),
                "{name}: {n}/{total} runs ({pct:.0}%), {} elapsed{eta}",
                human_duration(elapsed)
            );
        }
    }

    fn finish(&self) {
        match self {
            Progress::Bar(bar) => bar.finish_and_clear(),
            Progress::Lines { done, last, .. } => {
                let printed = last.lock().unwrap_or_else(|p| p.into_inner()).1;
                if printed {
                    self.line(done.load(std::sync::atomic::Ordering::Relaxed));
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{CurveMeasurement, Measurement, Model, ModelError};
    use crate::spec::{AxisSpec, SeriesSpec};
    use rand::Rng;

    pub(crate) const CURVE_MODEL: &str = "test-curve";

    /// Draws `jobs` uniform numbers and reports their empirical CDF at each x.
    #[derive(Debug)]
    pub(crate) struct CurveModel;

    impl Model for CurveModel {
        fn name(&self) -> &'static str {
            CURVE_MODEL
        }
        fn parameters(&self) -> &'static [(&'static str, &'static str)] {
            &[("scale", "multiplies every draw")]
        }
        fn metrics(&self) -> &'static [&'static str] {
            &["cdf"]
        }
        fn run(&self, _: &ParamSet, _: &StreamKey, _: u64) -> Result<Measurement, ModelError> {
            Err(ModelError("curve only".into()))
        }
        fn run_curve(
            &self,
            p: &ParamSet,
            key: &StreamKey,
            jobs: u64,
            xs: &[f64],
        ) -> Result<CurveMeasurement, ModelError> {
            let scale = p.f64_or("scale", 1.0)?;
            let mut rng = key.rng();
            let draws: Vec<f64> = (0..jobs).map(|_| scale * rng.random::<f64>()).collect();
            Ok(xs
                .iter()
                .map(|&x| {
                    (
                        x,
                        "cdf",
                        draws.iter().filter(|&&d| d <= x).count() as f64 / jobs as f64,
                    )
                })
                .collect())
        }
    }

    fn curve_sweep() -> SweepSpec {
        let series = |name: &str, scale: f64| SeriesSpec {
            name: name.into(),
            label: None,
            parameters: [("scale".to_string(), toml::Value::Float(scale))]
                .into_iter()
                .collect(),
        };
        let axis: AxisSpec = toml::from_str(
            "parameter = \"x\"\nlabel = \"x\"\npaper = [0.25, 0.5, 1.0]\nevaluation = \"curve\"",
        )
        .unwrap();
        SweepSpec {
            name: "curve-test".into(),
            model: CURVE_MODEL.into(),
            seed: 1,
            streams: None,
            parameters: Default::default(),
            axis,
            series: vec![series("unit", 1.0), series("double", 2.0)],
            requires_data: Vec::new(),
            size_description: Default::default(),
            scales: [
                (
                    "quick".to_string(),
                    ScaleSpec {
                        replications: 3,
                        jobs: 4000,
                    },
                ),
                (
                    "paper".to_string(),
                    ScaleSpec {
                        replications: 3,
                        jobs: 4000,
                    },
                ),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn curve_axes_run_once_per_series_and_replication() {
        let sweep = curve_sweep();
        let dir = tempfile::tempdir().unwrap();
        let opts = RunOptions {
            journal_dir: Some(dir.path().to_path_buf()),
            ..RunOptions::default()
        };
        let run = run_sweep(&sweep, &CurveModel, &opts).unwrap();
        assert_eq!(run.computed, 6, "one item per series and replication");
        assert_eq!(run.values.len(), 6 * 3);
        let mean = |series: &str, x: f64| {
            let v: Vec<f64> = run
                .values
                .iter()
                .filter(|v| v.series == series && v.x == x)
                .map(|v| v.value)
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        assert!((mean("unit", 0.5) - 0.5).abs() < 0.03);
        assert!((mean("double", 0.5) - 0.25).abs() < 0.03);
        assert_eq!(mean("unit", 1.0), 1.0);
        // Every row of a replication comes from the same draws: the CDF is monotone.
        assert!(mean("unit", 0.25) <= mean("unit", 0.5));
        // Resuming from the journal gives the same rows without recomputing.
        let again = run_sweep(&sweep, &CurveModel, &opts).unwrap();
        assert_eq!((again.computed, again.resumed), (0, 6));
        assert!(again.values == run.values);
    }

    #[test]
    fn a_sweep_keyed_by_another_sweeps_streams_sees_its_draws() {
        let base = curve_sweep();
        let renamed = SweepSpec {
            name: "curve-test-renamed".into(),
            ..curve_sweep()
        };
        let shared = SweepSpec {
            streams: Some(base.name.clone()),
            ..renamed.clone()
        };
        assert_eq!(shared.stream_name(), "curve-test");
        let opts = RunOptions::default();
        let run = |s: &SweepSpec| run_sweep(s, &CurveModel, &opts).unwrap().values;
        let values = |v: Vec<RunValue>| v.into_iter().map(|v| v.value).collect::<Vec<_>>();
        let (a, b, c) = (
            values(run(&base)),
            values(run(&renamed)),
            values(run(&shared)),
        );
        assert_eq!(a, c, "same streams, same numbers");
        assert_ne!(a, b, "another name draws other numbers");
    }
}
