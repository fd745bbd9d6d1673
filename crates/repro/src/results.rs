//! The committed results as the report and the site read them, loaded once: per document, each
//! experiment's largest scale run, its summary table, its claims re-evaluated from the per-run
//! CSVs, its provenance and figures; the verdicts counted per kind; the divergence ledger and
//! the hand-written readings; the paper-scale runs.
//!
//! [`report`](crate::report) writes REPRODUCTION.md from it and [`site`](crate::site) the
//! static website, so both say the same thing from the same files.

use std::path::{Path, PathBuf};

use crate::HarnessError;
use crate::claims::{ClaimKind, ClaimOutcome, Verdict};
use crate::ledger::Ledger;
use crate::output::read_runs_csv;
use crate::papers::Paper;
use crate::registry::{Experiment, Registry};
use crate::reproduce::{Project, check_claims, summarize};
use crate::spec::Scale;
use crate::table::SummaryTable;

/// Every document's results.
#[derive(Debug)]
pub struct Results<'r> {
    /// The documents that have entries, in registration order.
    pub papers: Vec<PaperResults<'r>>,
    /// One row per sweep run at paper scale (experiments sharing a sweep share one row).
    pub paper_runs: Vec<PaperRun>,
    /// Every document's verdicts together.
    pub totals: Counts,
}

/// One document's results.
#[derive(Debug)]
pub struct PaperResults<'r> {
    pub paper: &'static Paper,
    /// Its entries in registry order, run or not.
    pub experiments: Vec<ExperimentResults<'r>>,
    pub counts: Counts,
    /// The scales its results were read at, in the order first met.
    pub scales: Vec<Scale>,
    /// How many of its entries have been run.
    pub run: usize,
    /// `experiments/<paper>/ledger.toml`, if it has one.
    pub ledger: Option<Ledger>,
    /// `experiments/<paper>/READINGS.md` (Markdown, trimmed), if it has one.
    pub readings: Option<String>,
}

impl PaperResults<'_> {
    /// The judged claim `claim` of experiment `exp`, with the scale it was judged at.
    pub fn claim(&self, exp: &str, claim: &str) -> Option<(&ClaimOutcome, Scale)> {
        let e = self.experiments.iter().find(|e| e.exp.spec.id == exp)?;
        let scale = e.scale?;
        e.claims.iter().find(|c| c.id == claim).map(|c| (c, scale))
    }
}

/// One experiment's results at the largest scale run.
#[derive(Debug)]
pub struct ExperimentResults<'r> {
    pub exp: &'r Experiment,
    /// Paper where present, else quick; `None` when it has not been run.
    pub scale: Option<Scale>,
    /// The summary of the runs (and the timing sidecar's) at that scale.
    pub table: SummaryTable,
    /// Its claims, in entry order, judged at that scale.
    pub claims: Vec<ClaimOutcome>,
    /// The provenance sidecar (`*.meta.json`) at that scale, if any.
    pub meta: Option<serde_json::Value>,
    /// The timing sidecar at that scale, if any.
    pub timing: Option<PathBuf>,
    /// The figures that exist, paper scale first.
    pub figures: Vec<(Scale, PathBuf)>,
}

impl ExperimentResults<'_> {
    /// A field of the provenance sidecar, `Null` when absent.
    pub fn meta_field(&self, key: &str) -> serde_json::Value {
        self.meta
            .as_ref()
            .and_then(|m| m.get(key))
            .cloned()
            .unwrap_or(serde_json::Value::Null)
    }
}

/// A sweep run at paper scale, from its experiments' `*.paper.meta.json`.
#[derive(Debug, Clone)]
pub struct PaperRun {
    pub sweep: String,
    /// The experiments that share it.
    pub experiments: Vec<String>,
    /// The first experiment's provenance sidecar.
    pub meta: serde_json::Value,
}

impl<'r> Results<'r> {
    /// Reads every registered experiment's results under `project`.
    pub fn load(registry: &'r Registry, project: &Project) -> Result<Self, HarnessError> {
        let mut papers = Vec::new();
        let mut totals = Counts::default();
        for &paper in registry.papers() {
            let mut experiments = Vec::new();
            let mut counts = Counts::default();
            let mut scales = Vec::new();
            let mut run = 0;
            for exp in registry.all().iter().filter(|e| e.paper.key == paper.key) {
                let r = load_experiment(exp, project)?;
                if let Some(scale) = r.scale {
                    run += 1;
                    if !scales.contains(&scale) {
                        scales.push(scale);
                    }
                }
                for c in &r.claims {
                    counts.add(c);
                    totals.add(c);
                }
                experiments.push(r);
            }
            if experiments.is_empty() {
                continue;
            }
            let ledger = crate::ledger::load_ledger(&project.root, paper.key)?;
            let readings_path = project
                .root
                .join("experiments")
                .join(paper.key)
                .join("READINGS.md");
            // A document without readings has no file; one that cannot be read (not UTF-8, a
            // directory, no permission) is an error, not a section silently left out.
            let readings = match std::fs::read(&readings_path) {
                Ok(bytes) => Some(
                    String::from_utf8(bytes)
                        .map_err(|e| {
                            HarnessError::Data(format!(
                                "{}: not UTF-8 text (byte {}); the report would leave its readings out",
                                readings_path.display(),
                                e.utf8_error().valid_up_to()
                            ))
                        })?
                        .trim_end()
                        .to_string(),
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(HarnessError::io(&readings_path, e)),
            };
            papers.push(PaperResults {
                paper,
                experiments,
                counts,
                scales,
                run,
                ledger,
                readings,
            });
        }
        Ok(Results {
            papers,
            paper_runs: paper_runs(registry, project)?,
            totals,
        })
    }
}

fn load_experiment<'r>(
    exp: &'r Experiment,
    project: &Project,
) -> Result<ExperimentResults<'r>, HarnessError> {
    let figures = [Scale::Paper, Scale::Quick]
        .into_iter()
        .map(|s| (s, project.figure_svg(exp, s)))
        .filter(|(_, p)| p.is_file())
        .collect();
    let scale = [Scale::Paper, Scale::Quick]
        .into_iter()
        .find(|s| project.runs_csv(exp, *s).is_file());
    let Some(scale) = scale else {
        return Ok(ExperimentResults {
            exp,
            scale: None,
            table: SummaryTable::default(),
            claims: Vec::new(),
            meta: None,
            timing: None,
            figures,
        });
    };
    let (_, _, mut values) = read_runs_csv(&project.runs_csv(exp, scale))?;
    let timing = project.timing_csv(exp, scale);
    let timing = if timing.is_file() {
        values.append(&mut read_runs_csv(&timing)?.2);
        Some(timing)
    } else {
        None
    };
    let table = summarize(exp, &values);
    let claims = check_claims(exp, &table, scale);
    let meta = read_meta(&project.meta_json(exp, scale), exp)?;
    Ok(ExperimentResults {
        exp,
        scale: Some(scale),
        table,
        claims,
        meta,
        timing,
        figures,
    })
}

/// A run's provenance sidecar: `None` when there is none (quick-scale results do not keep
/// theirs), an error naming the file when it is there but unreadable or not a JSON object, so a
/// damaged file does not become "null replications ... revision `?`".
fn read_meta(path: &Path, exp: &Experiment) -> Result<Option<serde_json::Value>, HarnessError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(HarnessError::io(path, e)),
    };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(v) if v.is_object() => Ok(Some(v)),
        Ok(_) => Err(HarnessError::Data(format!(
            "{}: not the provenance object a run writes; rerun `gridsched reproduce {}` or restore the file",
            path.display(),
            exp.spec.id
        ))),
        Err(e) => Err(HarnessError::Data(format!(
            "{}: not valid JSON ({e}); rerun `gridsched reproduce {}` or restore the file",
            path.display(),
            exp.spec.id
        ))),
    }
}

/// One row per sweep run at paper scale, in registry order of its first experiment.
fn paper_runs(registry: &Registry, project: &Project) -> Result<Vec<PaperRun>, HarnessError> {
    let mut rows: Vec<PaperRun> = Vec::new();
    for exp in registry.all() {
        let Some(meta) = read_meta(&project.meta_json(exp, Scale::Paper), exp)? else {
            continue;
        };
        let sweep = meta
            .get("sweep")
            .and_then(|v| v.as_str())
            .unwrap_or(&exp.spec.id)
            .to_string();
        match rows.iter_mut().find(|r| r.sweep == sweep) {
            Some(row) => row.experiments.push(exp.spec.id.clone()),
            None => rows.push(PaperRun {
                sweep,
                experiments: vec![exp.spec.id.clone()],
                meta,
            }),
        }
    }
    Ok(rows)
}

/// A path relative to the project root, as the report prints it.
pub fn relative(project: &Project, path: &Path) -> String {
    path.strip_prefix(&project.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The verdicts in counting order.
pub const VERDICTS: [Verdict; 5] = [
    Verdict::Pass,
    Verdict::Tie,
    Verdict::Fail,
    Verdict::SoftFail,
    Verdict::Skip,
];

/// Claim verdicts counted per kind: `[PASS, TIE, FAIL, SOFT-FAIL, SKIP]` for each
/// [`ClaimKind`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    by_kind: [[usize; 5]; 4],
}

impl Counts {
    fn kind_index(kind: ClaimKind) -> usize {
        match kind {
            ClaimKind::Document => 0,
            ClaimKind::Calibrated => 1,
            ClaimKind::Ours => 2,
            ClaimKind::Sensitivity => 3,
        }
    }

    /// Counts one outcome.
    pub fn add(&mut self, c: &ClaimOutcome) {
        self.by_kind[Self::kind_index(c.kind)][verdict_index(c.verdict)] += 1;
    }

    /// `[PASS, TIE, FAIL, SOFT-FAIL, SKIP]` of one kind.
    pub fn of(&self, kind: ClaimKind) -> [usize; 5] {
        self.by_kind[Self::kind_index(kind)]
    }

    /// `a / b / c / d / e`.
    pub fn slashed(c: [usize; 5]) -> String {
        format!("{} / {} / {} / {} / {}", c[0], c[1], c[2], c[3], c[4])
    }

    /// One line: the document claims' verdicts, then the other kinds, e.g.
    /// `212 PASS, 4 TIE, 9 FAIL, 3 SOFT-FAIL, 12 SKIP (document claims); sensitivity 6 / 2 / 3 / 0 / 0; calibrated 3 / 0 / 0 / 0 / 0; our checks 20 / 0 / 0 / 0 / 0 (PASS / TIE / FAIL / SOFT-FAIL / SKIP)`.
    pub fn line(&self) -> String {
        let d = self.of(ClaimKind::Document);
        format!(
            "{} PASS, {} TIE, {} FAIL, {} SOFT-FAIL, {} SKIP (document claims); sensitivity {}; calibrated {}; our checks {} (PASS / TIE / FAIL / SOFT-FAIL / SKIP)",
            d[0],
            d[1],
            d[2],
            d[3],
            d[4],
            Self::slashed(self.of(ClaimKind::Sensitivity)),
            Self::slashed(self.of(ClaimKind::Calibrated)),
            Self::slashed(self.of(ClaimKind::Ours)),
        )
    }
}

/// The position of a verdict in [`VERDICTS`].
pub fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Pass => 0,
        Verdict::Tie => 1,
        Verdict::Fail => 2,
        Verdict::SoftFail => 3,
        Verdict::Skip => 4,
    }
}
