//! Benchmark report: criterion's results as Markdown tables and log-log SVG plots.
//!
//! Reads what `cargo bench` left in criterion's output directory (`target/criterion`):
//! for every benchmark, `<group>/<function>/<value>/new/benchmark.json` (its ids) and
//! `.../new/estimates.json` (the mean time per iteration in ns and its confidence interval),
//! plus the steady-state record `gridsched-steady-state.csv` that `benches/decisions.rs`
//! writes (live idle periods per warmed state). From them it renders
//!
//! - the per-decision table (strategy × ρ × L × n: live idle periods, tree µs, linear µs,
//!   speed-up), the speed-up targets of issue item 4 and the growth of tree time with n;
//! - the index-operation tables (`benches/index_ops.rs`);
//! - one log-log plot per strategy of time per decision against n (tree filled markers,
//!   linear open markers), an overview of every strategy's tree time, and insert/delete costs;
//!
//! - the chapter-4 groups `hetero/<axis>` (`benches/hetero.rs`: FF-HU, FF-HA and FF-HA+ per
//!   decision as the live idle periods `V` grow through the look-ahead or the servers), with the
//!   record `gridsched-hetero-steady-state.csv` (`V` of each warmed state, operations per
//!   decision): one table per axis, the FF-HA / FF-HA+ target at `V` ≈ 10⁵ and one log-log plot
//!   per axis of time per decision against `V` (one line per algorithm);
//!
//! and [`write_report`] splices the generated Markdown between [`BEGIN`] and [`END`] (chapter 3)
//! and between [`HETERO_BEGIN`] and [`HETERO_END`] (chapter 4) in `docs/benchmarks.md`, leaving
//! the hand-written parts alone. A section whose benchmarks are absent from the criterion
//! directory is left as it is, so the two benchmark suites can be refreshed separately.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use crate::HarnessError;
use crate::output::write_atomic;
use crate::plot::{Figure, PlotKind, PlotPoint, PlotSeries, Scale, render_svg};

/// Marker opening the generated section of the benchmarks document.
pub const BEGIN: &str = "<!-- bench:begin -->";
/// Marker closing the generated section of the benchmarks document.
pub const END: &str = "<!-- bench:end -->";

/// Name of the steady-state record written by `benches/decisions.rs`.
pub const STEADY_STATE_FILE: &str = "gridsched-steady-state.csv";

/// Marker opening the generated chapter-4 (FF-HU / FF-HA / FF-HA+) section.
pub const HETERO_BEGIN: &str = "<!-- bench-hetero:begin -->";
/// Marker closing the generated chapter-4 section.
pub const HETERO_END: &str = "<!-- bench-hetero:end -->";

/// Name of the steady-state record written by `benches/hetero.rs`.
pub const HETERO_STEADY_STATE_FILE: &str = "gridsched-hetero-steady-state.csv";

/// The chapter-4 algorithms in table order (criterion function ids).
const HETERO_ALGORITHMS: [&str; 3] = ["ff-hu", "ff-ha", "ff-ha-plus"];

/// Target of issue 4, item 7: FF-HA+ at least this many times faster than FF-HA at
/// `V` = [`HETERO_TARGET_V`].
pub const HETERO_TARGET_SPEEDUP: f64 = 20.0;
/// The number of live idle periods the target is stated at.
pub const HETERO_TARGET_V: f64 = 1e5;

/// Strategies in the order the tables list them (the order of the thesis's figures).
const STRATEGY_ORDER: [&str; 7] = [
    "first-fit",
    "min-lip",
    "min-tip",
    "best-fit",
    "max-lip",
    "max-tip",
    "lact",
];

/// Strategies the speed-up targets apply to.
const TARGET_STRATEGIES: [&str; 2] = ["min-lip", "first-fit"];

/// One criterion benchmark: ids and the mean time per iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchResult {
    pub group: String,
    pub function: Option<String>,
    pub value: Option<String>,
    /// Mean time per iteration, ns.
    pub mean_ns: f64,
    /// 95% confidence interval of the mean, ns.
    pub low_ns: f64,
    pub high_ns: f64,
}

#[derive(Deserialize)]
struct CritBenchmark {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
}

#[derive(Deserialize)]
struct CritEstimates {
    mean: CritEstimate,
}

#[derive(Deserialize)]
struct CritEstimate {
    point_estimate: f64,
    confidence_interval: CritInterval,
}

#[derive(Deserialize)]
struct CritInterval {
    lower_bound: f64,
    upper_bound: f64,
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, HarnessError> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| HarnessError::Data(format!("{}: {e}", path.display())))
}

/// Every benchmark under criterion's output directory `dir` (its `new/` results), sorted by
/// (group, function, value).
pub fn read_criterion(dir: &Path) -> Result<Vec<BenchResult>, HarnessError> {
    if !dir.is_dir() {
        return Err(HarnessError::Usage(format!(
            "{}: no criterion results (run `cargo bench` first, or pass --criterion-dir)",
            dir.display()
        )));
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| HarnessError::io(&d, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| HarnessError::io(&d, e))?;
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if entry.file_name() == "new" {
                let (bench, estimates) = (path.join("benchmark.json"), path.join("estimates.json"));
                if bench.is_file() && estimates.is_file() {
                    let b: CritBenchmark = read_json(&bench)?;
                    let e: CritEstimates = read_json(&estimates)?;
                    out.push(BenchResult {
                        group: b.group_id,
                        function: b.function_id,
                        value: b.value_str,
                        mean_ns: e.mean.point_estimate,
                        low_ns: e.mean.confidence_interval.lower_bound,
                        high_ns: e.mean.confidence_interval.upper_bound,
                    });
                }
            } else if entry.file_name() != "report" {
                stack.push(path);
            }
        }
    }
    out.sort_by(|a, b| (&a.group, &a.function, &a.value).cmp(&(&b.group, &b.function, &b.value)));
    Ok(out)
}

/// One warmed steady state: its live idle periods.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyState {
    pub strategy: String,
    pub case: Case,
    pub idle_periods: u64,
}

/// The steady-state records in `dir` (the last record of a state wins); empty if absent.
pub fn read_steady_state(dir: &Path) -> Result<Vec<SteadyState>, HarnessError> {
    read_latest(&dir.join(STEADY_STATE_FILE), 5, |f| {
        let case = Case {
            n: f[1].parse().ok()?,
            rho: f[2].parse().ok()?,
            look_ahead: f[3].parse().ok()?,
        };
        let s = SteadyState {
            strategy: f[0].to_string(),
            case,
            idle_periods: f[4].parse().ok()?,
        };
        Some(((s.strategy.clone(), case.key()), s))
    })
}

/// The records of a comma-separated file with a header line, each parsed from its (trimmed)
/// fields by `parse` into a key and a record; of records with equal keys the last wins, and
/// they come out in key order. Empty if the file is absent; a line with fewer than
/// `min_fields` fields, or that `parse` rejects, is an error naming file and line.
fn read_latest<K: Ord, R>(
    path: &Path,
    min_fields: usize,
    parse: impl Fn(&[&str]) -> Option<(K, R)>,
) -> Result<Vec<R>, HarnessError> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    let mut latest: BTreeMap<K, R> = BTreeMap::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (key, rec) = (f.len() >= min_fields)
            .then(|| parse(&f))
            .flatten()
            .ok_or_else(|| {
                HarnessError::Data(format!("{}:{}: bad record `{line}`", path.display(), i + 1))
            })?;
        latest.insert(key, rec);
    }
    Ok(latest.into_values().collect())
}

/// A steady state of the decision benchmarks: servers, load, look-ahead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    pub n: u32,
    pub rho: f64,
    pub look_ahead: f64,
}

/// Orderable form of a [`Case`]: (L, ρ, n) with ρ in thousandths.
type CaseKey = (u64, u64, u32);

impl Case {
    /// Parses a criterion value string `n=2000,rho=0.9,L=200`.
    pub fn parse(value: &str) -> Option<Case> {
        let mut n = None;
        let mut rho = None;
        let mut look_ahead = None;
        for part in value.split(',') {
            let (k, v) = part.split_once('=')?;
            match k.trim() {
                "n" => n = v.trim().parse().ok(),
                "rho" => rho = v.trim().parse().ok(),
                "L" => look_ahead = v.trim().parse().ok(),
                _ => return None,
            }
        }
        Some(Case {
            n: n?,
            rho: rho?,
            look_ahead: look_ahead?,
        })
    }

    fn key(&self) -> CaseKey {
        (
            self.look_ahead.round() as u64,
            (self.rho * 1000.0).round() as u64,
            self.n,
        )
    }

    /// The (ρ, L) part of the case, e.g. `ρ = 0.9, L = 200`.
    fn load_label(&self) -> String {
        format!("ρ = {}, L = {}", self.rho, self.look_ahead)
    }
}

/// One row of the per-decision table.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRow {
    pub strategy: String,
    pub case: Case,
    /// Live idle periods of the warmed state, if recorded.
    pub idle_periods: Option<u64>,
    /// Tree index (LACT: its index-free scheduler).
    pub tree: Option<BenchResult>,
    pub linear: Option<BenchResult>,
}

impl DecisionRow {
    /// `linear / tree`.
    pub fn speedup(&self) -> Option<f64> {
        Some(self.linear.as_ref()?.mean_ns / self.tree.as_ref()?.mean_ns)
    }
}

fn strategy_rank(s: &str) -> usize {
    STRATEGY_ORDER
        .iter()
        .position(|x| *x == s)
        .unwrap_or(STRATEGY_ORDER.len())
}

/// Rows of the `decide/<strategy>` groups, ordered by strategy, L, ρ, n.
pub fn decision_rows(results: &[BenchResult], steady: &[SteadyState]) -> Vec<DecisionRow> {
    let mut rows: BTreeMap<(usize, String, CaseKey), DecisionRow> = BTreeMap::new();
    for r in results {
        let Some(strategy) = r.group.strip_prefix("decide/") else {
            continue;
        };
        let Some(case) = r.value.as_deref().and_then(Case::parse) else {
            continue;
        };
        let row = rows
            .entry((strategy_rank(strategy), strategy.to_string(), case.key()))
            .or_insert_with(|| DecisionRow {
                strategy: strategy.to_string(),
                case,
                idle_periods: steady
                    .iter()
                    .find(|s| s.strategy == strategy && s.case.key() == case.key())
                    .map(|s| s.idle_periods),
                tree: None,
                linear: None,
            });
        match r.function.as_deref() {
            Some("linear") => row.linear = Some(r.clone()),
            _ => row.tree = Some(r.clone()),
        }
    }
    rows.into_values().collect()
}

/// Time in µs with three significant digits.
fn us(ns: f64) -> String {
    let v = ns / 1000.0;
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}×")
    } else if x >= 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.2}×")
    }
}

fn cell(r: &Option<BenchResult>) -> String {
    r.as_ref().map_or("—".to_string(), |r| us(r.mean_ns))
}

/// Least-squares slope of `ln y` against `ln x`.
fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let pts: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Log-log slope of a time proportional to `log2 n` over the same `n` values (the yardstick
/// for "grows no faster than O(log n)").
fn log_n_slope(ns: &[f64]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = ns.iter().map(|&n| (n, n.log2())).collect();
    log_log_slope(&pts)
}

/// Growth of tree time with n is called O(log n)-consistent when, for every decade of n
/// measured (200 → 2,000 and 2,000 → 20,000), the time ratio is at most this factor times the
/// ratio of the logarithms.
pub const LOG_GROWTH_TOLERANCE: f64 = 1.5;

/// The per-decision section (tables and targets) in Markdown; `figures` are (caption, link).
pub fn decisions_markdown(rows: &[DecisionRow], figures: &[(String, String)]) -> String {
    let mut md = String::new();
    if rows.is_empty() {
        md.push_str("No `decide/*` results found (run `cargo bench -p gridsched-reservation --bench decisions`).\n\n");
        return md;
    }
    md.push_str("### Time per decision (steady state)\n\n");
    md.push_str(
        "Mean wall time of one `submit` (advance the clock, select, carve), in µs. \
         *V* = live idle periods of the warmed state; speed-up = linear / tree. \
         LACT keeps no idle periods: its index-free time is shown as the tree column.\n\n",
    );
    for (caption, link) in figures {
        writeln!(md, "![{caption}]({link})\n").ok();
    }
    let mut strategies: Vec<&str> = Vec::new();
    for r in rows {
        if !strategies.contains(&r.strategy.as_str()) {
            strategies.push(&r.strategy);
        }
    }
    for s in &strategies {
        writeln!(md, "#### {s}\n").ok();
        md.push_str(
            "| ρ | L | n | V | tree µs | linear µs | speed-up |\n|---|---|---|---|---|---|---|\n",
        );
        for r in rows.iter().filter(|r| r.strategy == *s) {
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.case.rho,
                r.case.look_ahead,
                r.case.n,
                r.idle_periods.map_or("—".to_string(), |v| v.to_string()),
                cell(&r.tree),
                cell(&r.linear),
                r.speedup().map_or("—".to_string(), ratio)
            )
            .ok();
        }
        md.push('\n');
    }

    md.push_str("### Speed-up targets (Min-LIP and First-fit)\n\n");
    md.push_str("Targets: tree ≥ 10× faster than linear at n = 2,000, ≥ 100× at n = 20,000.\n\n");
    md.push_str("| strategy | ρ | L | speed-up n = 2,000 | ≥ 10× | speed-up n = 20,000 | ≥ 100× |\n|---|---|---|---|---|---|---|\n");
    let mut loads: Vec<Case> = Vec::new();
    for r in rows {
        if !loads
            .iter()
            .any(|c| c.rho == r.case.rho && c.look_ahead == r.case.look_ahead)
        {
            loads.push(r.case);
        }
    }
    loads.sort_by_key(|c| c.key());
    for s in TARGET_STRATEGIES {
        for c in &loads {
            let at = |n: u32| {
                rows.iter()
                    .find(|r| {
                        r.strategy == s
                            && r.case.n == n
                            && r.case.rho == c.rho
                            && r.case.look_ahead == c.look_ahead
                    })
                    .and_then(DecisionRow::speedup)
            };
            let verdict = |x: Option<f64>, target: f64| match x {
                Some(x) if x >= target => "met",
                Some(_) => "**missed**",
                None => "not run",
            };
            let (a, b) = (at(2_000), at(20_000));
            writeln!(
                md,
                "| {s} | {} | {} | {} | {} | {} | {} |",
                c.rho,
                c.look_ahead,
                a.map_or("—".to_string(), ratio),
                verdict(a, 10.0),
                b.map_or("—".to_string(), ratio),
                verdict(b, 100.0)
            )
            .ok();
        }
    }
    md.push('\n');

    md.push_str("### Growth of tree time with n\n\n");
    writeln!(
        md,
        "O(log n) predicts a time ratio of ln 2,000 / ln 200 = {:.2} from n = 200 to 2,000 and \
         ln 20,000 / ln 2,000 = {:.2} from 2,000 to 20,000 (O(n): 10 and 10), and a log-log slope \
         (least squares over n ≥ 200) of {:.2} (O(n): 1). A row is marked *≈ log n* when every \
         decade's ratio is at most {LOG_GROWTH_TOLERANCE} × the log n prediction (room for \
         timing noise and the cache hierarchy), else **faster**. V ratio = V(20,000) / V(2,000): \
         the indexes hold V periods, and V/n differs by strategy.\n",
        2_000f64.ln() / 200f64.ln(),
        20_000f64.ln() / 2_000f64.ln(),
        log_n_slope(&[200.0, 2_000.0, 20_000.0]).unwrap_or(f64::NAN),
    )
    .ok();
    md.push_str("| strategy | ρ | L | tree t(2,000) / t(200) | tree t(20,000) / t(2,000) | V ratio | log-log slope | vs log n |\n|---|---|---|---|---|---|---|---|\n");
    for s in &strategies {
        for c in &loads {
            let pick = |n: u32| {
                rows.iter().find(|r| {
                    r.strategy == *s
                        && r.case.n == n
                        && r.case.rho == c.rho
                        && r.case.look_ahead == c.look_ahead
                })
            };
            let t = |n: u32| pick(n).and_then(|r| r.tree.as_ref()).map(|b| b.mean_ns);
            let pts: Vec<(f64, f64)> = [200, 2_000, 20_000]
                .into_iter()
                .filter_map(|n| t(n).map(|y| (f64::from(n), y)))
                .collect();
            if pts.len() < 2 {
                continue;
            }
            let slope = log_log_slope(&pts);
            let decades: Vec<(f64, f64)> = [(200, 2_000), (2_000, 20_000)]
                .into_iter()
                .filter_map(|(a, b)| {
                    let r = t(b)? / t(a)?;
                    Some((r, f64::from(b).ln() / f64::from(a).ln()))
                })
                .collect();
            let r = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if a > 0.0 && b > 0.0 => format!("{:.2}", a / b),
                _ => "—".to_string(),
            };
            let v = |n: u32| pick(n).and_then(|r| r.idle_periods).map(|v| v as f64);
            let verdict = if decades.is_empty() {
                "—"
            } else if decades
                .iter()
                .all(|(ratio, log)| *ratio <= LOG_GROWTH_TOLERANCE * log)
            {
                "≈ log n"
            } else {
                "**faster**"
            };
            writeln!(
                md,
                "| {s} | {} | {} | {} | {} | {} | {} | {verdict} |",
                c.rho,
                c.look_ahead,
                r(t(2_000), t(200)),
                r(t(20_000), t(2_000)),
                r(v(20_000), v(2_000)),
                slope.map_or("—".to_string(), |x| format!("{x:.2}")),
            )
            .ok();
        }
    }
    md.push('\n');
    md
}

/// The index-operation section (`index/*` groups) in Markdown.
pub fn index_ops_markdown(results: &[BenchResult], figures: &[(String, String)]) -> String {
    let mut md = String::new();
    let ops: Vec<&BenchResult> = results
        .iter()
        .filter(|r| r.group.starts_with("index/"))
        .collect();
    if ops.is_empty() {
        return md;
    }
    let n_of = |r: &BenchResult| {
        r.value
            .as_deref()
            .and_then(|v| v.strip_prefix("n="))
            .and_then(|v| v.parse::<u32>().ok())
    };
    md.push_str("### Index operations (synthetic steady state, L = 200)\n\n");
    for (caption, link) in figures {
        writeln!(md, "![{caption}]({link})\n").ok();
    }
    let insert: Vec<&&BenchResult> = ops
        .iter()
        .filter(|r| r.group == "index/insert-delete")
        .collect();
    if !insert.is_empty() {
        let mut kinds: Vec<&str> = Vec::new();
        let mut ns: Vec<u32> = Vec::new();
        for r in &insert {
            let k = r.function.as_deref().unwrap_or("");
            if !kinds.contains(&k) {
                kinds.push(k);
            }
            if let Some(n) = n_of(r) {
                if !ns.contains(&n) {
                    ns.push(n);
                }
            }
        }
        kinds.sort_by_key(|k| (*k != "linear", *k));
        ns.sort_unstable();
        md.push_str("One `remove` + re-`insert` of a live period, µs per pair.\n\n| n |");
        for k in &kinds {
            write!(md, " {k} |").ok();
        }
        md.push_str("\n|---|");
        md.push_str(&"---|".repeat(kinds.len()));
        md.push('\n');
        for n in &ns {
            write!(md, "| {n} |").ok();
            for k in &kinds {
                let v = insert
                    .iter()
                    .find(|r| r.function.as_deref() == Some(k) && n_of(r) == Some(*n));
                write!(md, " {} |", v.map_or("—".to_string(), |r| us(r.mean_ns))).ok();
            }
            md.push('\n');
        }
        md.push('\n');
    }
    let mut rules: Vec<&str> = Vec::new();
    for r in &ops {
        if let Some(rule) = r.group.strip_prefix("index/select/") {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    if !rules.is_empty() {
        md.push_str("One `select`, µs (speed-up = linear / tree).\n\n| rule | n | tree µs | linear µs | speed-up |\n|---|---|---|---|---|\n");
        for rule in rules {
            let group = format!("index/select/{rule}");
            let mut ns: Vec<u32> = ops
                .iter()
                .filter(|r| r.group == group)
                .filter_map(|r| n_of(r))
                .collect();
            ns.sort_unstable();
            ns.dedup();
            for n in ns {
                let get = |f: &str| {
                    ops.iter()
                        .find(|r| {
                            r.group == group
                                && r.function.as_deref() == Some(f)
                                && n_of(r) == Some(n)
                        })
                        .map(|r| r.mean_ns)
                };
                let (t, l) = (get("tree"), get("linear"));
                writeln!(
                    md,
                    "| {rule} | {n} | {} | {} | {} |",
                    t.map_or("—".to_string(), us),
                    l.map_or("—".to_string(), us),
                    t.zip(l).map_or("—".to_string(), |(t, l)| ratio(l / t)),
                )
                .ok();
            }
        }
        md.push('\n');
    }
    md
}

fn point(n: u32, r: &BenchResult) -> PlotPoint {
    PlotPoint {
        x: f64::from(n),
        y: r.mean_ns / 1000.0,
        y_low: r.low_ns / 1000.0,
        y_high: r.high_ns / 1000.0,
    }
}

fn loglog(caption: String, y_label: &str, series: Vec<PlotSeries>) -> Figure {
    Figure {
        caption,
        x_label: "Servers n".into(),
        y_label: y_label.into(),
        x_scale: Scale::Log10,
        y_scale: Scale::Log10,
        x_range: None,
        y_range: None,
        kind: PlotKind::Lines,
        series,
    }
}

/// The figures (file stem, figure): one per strategy (every (ρ, L), tree series first so
/// they get the filled markers, linear series open), an overview of the tree times at each
/// (ρ, L) that has every strategy, and insert/delete costs.
pub fn figures(rows: &[DecisionRow], results: &[BenchResult]) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    let mut strategies: Vec<&str> = Vec::new();
    let mut loads: Vec<Case> = Vec::new();
    for r in rows {
        if !strategies.contains(&r.strategy.as_str()) {
            strategies.push(&r.strategy);
        }
        if !loads
            .iter()
            .any(|c| c.rho == r.case.rho && c.look_ahead == r.case.look_ahead)
        {
            loads.push(r.case);
        }
    }
    loads.sort_by_key(|c| c.key());
    let series_of = |s: &str, c: &Case, linear: bool| {
        let points: Vec<PlotPoint> = rows
            .iter()
            .filter(|r| r.strategy == s && r.case.rho == c.rho && r.case.look_ahead == c.look_ahead)
            .filter_map(|r| {
                let b = if linear { &r.linear } else { &r.tree };
                b.as_ref().map(|b| point(r.case.n, b))
            })
            .collect();
        points
    };
    for s in &strategies {
        let mut series = Vec::new();
        for linear in [false, true] {
            for c in &loads {
                let points = series_of(s, c, linear);
                if points.is_empty() {
                    continue;
                }
                let kind = match (linear, *s == "lact") {
                    (_, true) => "no index",
                    (false, false) => "tree",
                    (true, false) => "linear",
                };
                series.push(PlotSeries {
                    name: format!("{kind}, {}", c.load_label()),
                    points,
                });
            }
        }
        if series.is_empty() {
            continue;
        }
        let caption = if *s == "lact" {
            format!("{s} (no idle-period index): time per decision vs servers")
        } else {
            format!("{s}: time per decision vs servers (filled: tree, open: linear)")
        };
        out.push((
            format!("decide-{s}"),
            loglog(caption, "Time per decision (µs)", series),
        ));
    }
    for c in &loads {
        let series: Vec<PlotSeries> = strategies
            .iter()
            .map(|s| PlotSeries {
                name: s.to_string(),
                points: series_of(s, c, false),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if series.len() < 2 {
            continue;
        }
        out.push((
            format!("decide-tree-rho{}-L{}", c.rho, c.look_ahead),
            loglog(
                format!(
                    "Tree index: time per decision vs servers, {}",
                    c.load_label()
                ),
                "Time per decision (µs)",
                series,
            ),
        ));
    }
    let mut kinds: Vec<&str> = Vec::new();
    for r in results.iter().filter(|r| r.group == "index/insert-delete") {
        let k = r.function.as_deref().unwrap_or("");
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds.sort_by_key(|k| (*k != "linear", *k));
    let series: Vec<PlotSeries> = kinds
        .iter()
        .map(|k| PlotSeries {
            name: k.to_string(),
            points: results
                .iter()
                .filter(|r| r.group == "index/insert-delete" && r.function.as_deref() == Some(k))
                .filter_map(|r| {
                    let n = r.value.as_deref()?.strip_prefix("n=")?.parse().ok()?;
                    Some(point(n, r))
                })
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    if !series.is_empty() {
        out.push((
            "index-insert-delete".into(),
            loglog(
                "Index update: remove + re-insert of one idle period".into(),
                "Time per pair (µs)",
                series,
            ),
        ));
    }
    out
}

/// A steady state of the chapter-4 benchmarks: how `V` was grown, servers, look-ahead.
#[derive(Debug, Clone, PartialEq)]
pub struct HeteroCase {
    /// `lookahead` or `servers` (the criterion group is `hetero/<axis>`).
    pub axis: String,
    pub n: u32,
    /// Book-ahead (look-ahead) in days.
    pub days: f64,
}

/// Orderable form of a [`HeteroCase`]: (axis, n, days in thousandths).
type HeteroKey = (String, u32, u64);

impl HeteroCase {
    /// Parses a criterion value string `n=120,days=14` of the group `hetero/<axis>`.
    pub fn parse(axis: &str, value: &str) -> Option<HeteroCase> {
        let (mut n, mut days) = (None, None);
        for part in value.split(',') {
            let (k, v) = part.split_once('=')?;
            match k.trim() {
                "n" => n = v.trim().parse().ok(),
                "days" => days = v.trim().parse().ok(),
                _ => return None,
            }
        }
        Some(HeteroCase {
            axis: axis.to_string(),
            n: n?,
            days: days?,
        })
    }

    fn key(&self) -> HeteroKey {
        (
            self.axis.clone(),
            self.n,
            (self.days * 1000.0).round() as u64,
        )
    }
}

/// One record of the chapter-4 steady-state CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct HeteroRecord {
    pub case: HeteroCase,
    /// `warm-up` (the warmed state) or an algorithm (its timed decisions).
    pub algorithm: String,
    /// Live idle periods: of the warmed state, or after the algorithm's timed decisions.
    pub idle_periods: u64,
    /// Operations per timed decision (0 for the warm-up).
    pub ops_per_decision: f64,
}

/// The chapter-4 records in `dir` (the last record of a (state, algorithm) wins); empty if absent.
pub fn read_hetero_steady_state(dir: &Path) -> Result<Vec<HeteroRecord>, HarnessError> {
    read_latest(&dir.join(HETERO_STEADY_STATE_FILE), 7, |f| {
        let rec = HeteroRecord {
            case: HeteroCase {
                axis: f[0].to_string(),
                n: f[1].parse().ok()?,
                days: f[2].parse().ok()?,
            },
            algorithm: f[3].to_string(),
            idle_periods: f[4].parse().ok()?,
            ops_per_decision: f[6].parse().ok()?,
        };
        Some(((rec.case.key(), rec.algorithm.clone()), rec))
    })
}

/// One row of a chapter-4 table: a steady state and each algorithm's time per decision.
#[derive(Debug, Clone, PartialEq)]
pub struct HeteroRow {
    pub case: HeteroCase,
    /// Live idle periods of the warmed state, if recorded.
    pub idle_periods: Option<u64>,
    /// Per algorithm (in `HETERO_ALGORITHMS` order): the benchmark, if run.
    pub times: [Option<BenchResult>; 3],
    /// Per algorithm: operations per timed decision, if recorded.
    pub ops: [Option<f64>; 3],
}

impl HeteroRow {
    /// `t(ff-ha) / t(ff-ha-plus)`.
    pub fn speedup_ha(&self) -> Option<f64> {
        Some(self.times[1].as_ref()?.mean_ns / self.times[2].as_ref()?.mean_ns)
    }

    /// `t(ff-hu) / t(ff-ha-plus)`.
    pub fn speedup_hu(&self) -> Option<f64> {
        Some(self.times[0].as_ref()?.mean_ns / self.times[2].as_ref()?.mean_ns)
    }
}

fn algorithm_index(a: &str) -> Option<usize> {
    HETERO_ALGORITHMS.iter().position(|x| *x == a)
}

/// Rows of the `hetero/<axis>` groups, ordered by axis (look-ahead first), n, days.
pub fn hetero_rows(results: &[BenchResult], records: &[HeteroRecord]) -> Vec<HeteroRow> {
    let mut rows: BTreeMap<(bool, HeteroKey), HeteroRow> = BTreeMap::new();
    for r in results {
        let Some(axis) = r.group.strip_prefix("hetero/") else {
            continue;
        };
        let Some(case) = r.value.as_deref().and_then(|v| HeteroCase::parse(axis, v)) else {
            continue;
        };
        let Some(a) = r.function.as_deref().and_then(algorithm_index) else {
            continue;
        };
        let row = rows
            .entry((axis != "lookahead", case.key()))
            .or_insert_with(|| {
                let of = |alg: &str| {
                    records
                        .iter()
                        .find(|x| x.case.key() == case.key() && x.algorithm == alg)
                };
                HeteroRow {
                    idle_periods: of("warm-up").map(|x| x.idle_periods),
                    ops: HETERO_ALGORITHMS.map(|alg| of(alg).map(|x| x.ops_per_decision)),
                    times: [None, None, None],
                    case,
                }
            });
        row.times[a] = Some(r.clone());
    }
    rows.into_values().collect()
}

fn axis_title(axis: &str) -> String {
    match axis {
        "lookahead" => "V grown through the look-ahead (n = 120)".to_string(),
        "servers" => "V grown through the servers (14-day look-ahead)".to_string(),
        other => format!("V grown through `{other}`"),
    }
}

fn axes(rows: &[HeteroRow]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.case.axis.as_str()) {
            out.push(&r.case.axis);
        }
    }
    out
}

/// The row of `axis` whose `V` is nearest to [`HETERO_TARGET_V`] (in log scale), if one lies
/// within a factor of 1.5 of it.
fn target_row<'a>(rows: &'a [HeteroRow], axis: &str) -> Option<&'a HeteroRow> {
    rows.iter()
        .filter(|r| r.case.axis == axis)
        .filter_map(|r| Some((r, (r.idle_periods? as f64 / HETERO_TARGET_V).ln().abs())))
        .filter(|(_, d)| *d <= 1.5f64.ln())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| r)
}

/// The chapter-4 section (tables, targets) in Markdown; `figures` are (caption, link).
pub fn hetero_markdown(rows: &[HeteroRow], figures: &[(String, String)]) -> String {
    let mut md = String::new();
    if rows.is_empty() {
        md.push_str("No `hetero/*` results found (run `cargo bench -p gridsched-reservation --bench hetero`).\n");
        return md;
    }
    md.push_str("### Time per decision as V grows (steady state)\n\n");
    md.push_str(
        "Mean wall time of one `submit` (advance the clock and expire, select, carve), in µs. \
         *V* = live idle periods of the warmed state (an FF-HA+ state that every algorithm \
         continues from); ops = the algorithm's own operation count per timed decision (list \
         elements examined; nodes of the thesis's tree search visited).\n\n",
    );
    for (caption, link) in figures {
        writeln!(md, "![{caption}]({link})\n").ok();
    }
    let opt = |x: Option<f64>, f: fn(f64) -> String| x.map_or("—".to_string(), f);
    for axis in axes(rows) {
        writeln!(md, "#### {}\n", axis_title(axis)).ok();
        md.push_str(
            "| n | look-ahead (days) | V | FF-HU µs | FF-HA µs | FF-HA+ µs | FF-HA / FF-HA+ | \
             FF-HU / FF-HA+ | ops FF-HU | ops FF-HA | ops FF-HA+ |\n\
             |---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for r in rows.iter().filter(|r| r.case.axis == axis) {
            let ops = |i: usize| opt(r.ops[i], |x| format!("{x:.1}"));
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.case.n,
                r.case.days,
                r.idle_periods.map_or("—".to_string(), |v| v.to_string()),
                cell(&r.times[0]),
                cell(&r.times[1]),
                cell(&r.times[2]),
                opt(r.speedup_ha(), ratio),
                opt(r.speedup_hu(), ratio),
                ops(0),
                ops(1),
                ops(2),
            )
            .ok();
        }
        md.push('\n');
    }
    writeln!(
        md,
        "### Target: FF-HA+ ≥ {HETERO_TARGET_SPEEDUP}× faster than FF-HA at V = 10⁵\n\n\
         On each axis, the state whose V is nearest to 10⁵ (within a factor of 1.5).\n\n\
         | axis | n | look-ahead (days) | V | FF-HA / FF-HA+ | ≥ {HETERO_TARGET_SPEEDUP}× |\n\
         |---|---|---|---|---|---|"
    )
    .ok();
    for axis in axes(rows) {
        match target_row(rows, axis) {
            Some(r) => {
                let s = r.speedup_ha();
                writeln!(
                    md,
                    "| {axis} | {} | {} | {} | {} | {} |",
                    r.case.n,
                    r.case.days,
                    r.idle_periods.map_or("—".to_string(), |v| v.to_string()),
                    opt(s, ratio),
                    match s {
                        Some(x) if x >= HETERO_TARGET_SPEEDUP => "met",
                        Some(_) => "**missed**",
                        None => "not run",
                    }
                )
                .ok();
            }
            None => {
                writeln!(md, "| {axis} | — | — | — | — | not run |").ok();
            }
        }
    }
    md.push('\n');
    md
}

/// One log-log figure per axis: time per decision against `V`, one line per algorithm.
pub fn hetero_figures(rows: &[HeteroRow]) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    for axis in axes(rows) {
        let series: Vec<PlotSeries> = HETERO_ALGORITHMS
            .iter()
            .enumerate()
            .map(|(i, alg)| PlotSeries {
                name: match *alg {
                    "ff-hu" => "FF-HU",
                    "ff-ha" => "FF-HA",
                    _ => "FF-HA+",
                }
                .to_string(),
                points: rows
                    .iter()
                    .filter(|r| r.case.axis == axis)
                    .filter_map(|r| {
                        let b = r.times[i].as_ref()?;
                        Some(PlotPoint {
                            x: r.idle_periods? as f64,
                            y: b.mean_ns / 1000.0,
                            y_low: b.low_ns / 1000.0,
                            y_high: b.high_ns / 1000.0,
                        })
                    })
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        out.push((
            format!("hetero-{axis}"),
            Figure {
                caption: format!(
                    "Time per decision vs live idle periods, {}",
                    axis_title(axis)
                ),
                x_label: "Live idle periods V".into(),
                y_label: "Time per decision (µs)".into(),
                x_scale: Scale::Log10,
                y_scale: Scale::Log10,
                x_range: None,
                y_range: None,
                kind: PlotKind::Lines,
                series,
            },
        ));
    }
    out
}

/// Byte offset of the first line at or after `from` that is exactly `marker` (surrounding
/// whitespace aside), so a marker quoted inside prose is not taken for the real one.
fn marker_line(doc: &str, marker: &str, from: usize) -> Option<(usize, usize)> {
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        if offset >= from && line.trim() == marker {
            return Some((offset, offset + line.trim_end_matches(['\n', '\r']).len()));
        }
        offset += line.len();
    }
    None
}

/// Replaces the text between the lines [`BEGIN`] and [`END`] in `doc` by `generated`;
/// appends a marked section when the markers are missing.
pub fn splice(doc: &str, generated: &str) -> Result<String, HarnessError> {
    splice_between(doc, generated, BEGIN, END, "## Results")
}

/// Replaces the text between the lines `begin` and `end` in `doc` by `generated`; appends
/// `heading` and a marked section when the markers are missing.
pub fn splice_between(
    doc: &str,
    generated: &str,
    begin_marker: &str,
    end_marker: &str,
    heading: &str,
) -> Result<String, HarnessError> {
    let body = format!("{begin_marker}\n{}\n{end_marker}", generated.trim_end());
    let begin = marker_line(doc, begin_marker, 0);
    let end = begin.and_then(|(_, b)| marker_line(doc, end_marker, b));
    match (begin, end) {
        (Some((b, _)), Some((_, e))) => Ok(format!("{}{body}{}", &doc[..b], &doc[e..])),
        (None, None) if marker_line(doc, end_marker, 0).is_none() => {
            let mut out = doc.trim_end().to_string();
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(heading);
            out.push_str("\n\n");
            out.push_str(&body);
            out.push('\n');
            Ok(out)
        }
        _ => Err(HarnessError::Data(format!(
            "the marker lines {begin_marker} and {end_marker} must both appear, in this order"
        ))),
    }
}

/// `to` relative to the directory `from` (both made absolute first), with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, to) = (abs(from), abs(to));
    let norm = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    v.pop();
                }
                Component::CurDir => {}
                c => v.push(c.as_os_str().to_string_lossy().into_owned()),
            }
        }
        v
    };
    let (f, t) = (norm(&from), norm(&to));
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); f.len() - common];
    parts.extend(t[common..].iter().cloned());
    parts.join("/")
}

/// Where `write_report` reads and writes.
#[derive(Debug, Clone)]
pub struct ReportPaths {
    /// Criterion's output directory (`target/criterion`).
    pub criterion_dir: PathBuf,
    /// The Markdown document whose marked section is regenerated.
    pub out: PathBuf,
    /// Where the SVG plots go (`figures/bench`).
    pub figures_dir: PathBuf,
}

/// What `write_report` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSummary {
    pub benchmarks: usize,
    pub decision_rows: usize,
    /// Rows of the chapter-4 (`hetero/*`) tables.
    pub hetero_rows: usize,
    pub figures: Vec<PathBuf>,
    /// Whether the chapter-3 section (decisions, index operations) was regenerated.
    pub chapter3_written: bool,
    /// Whether the chapter-4 section was regenerated.
    pub hetero_written: bool,
}

/// Reads the criterion results, writes the plots and regenerates the marked sections of the
/// document (created if missing). A section none of whose benchmarks are in the criterion
/// directory is left untouched (the chapter-3 one is written, with a note, when neither
/// suite has results).
pub fn write_report(paths: &ReportPaths) -> Result<ReportSummary, HarnessError> {
    let results = read_criterion(&paths.criterion_dir)?;
    let steady = read_steady_state(&paths.criterion_dir)?;
    let rows = decision_rows(&results, &steady);
    let hetero = hetero_rows(&results, &read_hetero_steady_state(&paths.criterion_dir)?);
    let has_ch3 = !rows.is_empty() || results.iter().any(|r| r.group.starts_with("index/"));
    let write_ch3 = has_ch3 || hetero.is_empty();
    let doc_dir = paths
        .out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let mut written = Vec::new();
    let (mut decide_links, mut index_links, mut hetero_links) =
        (Vec::new(), Vec::new(), Vec::new());
    let mut all_figures = if write_ch3 {
        figures(&rows, &results)
    } else {
        Vec::new()
    };
    all_figures.extend(hetero_figures(&hetero));
    for (stem, fig) in all_figures {
        let path = paths.figures_dir.join(format!("{stem}.svg"));
        write_atomic(&path, render_svg(&fig)?.as_bytes())?;
        let link = (fig.caption.clone(), relative(&doc_dir, &path));
        if stem.starts_with("index-") {
            index_links.push(link);
        } else if stem.starts_with("hetero-") {
            hetero_links.push(link);
        } else {
            decide_links.push(link);
        }
        written.push(path);
    }
    let note = "<!-- Generated by `gridsched bench-report` from criterion's results; edits here are overwritten. -->\n\n";
    let mut doc = match std::fs::read_to_string(&paths.out) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "# Benchmarks\n".to_string(),
        Err(e) => return Err(HarnessError::io(&paths.out, e)),
    };
    if write_ch3 {
        let mut generated = String::from(note);
        generated.push_str(&decisions_markdown(&rows, &decide_links));
        generated.push_str(&index_ops_markdown(&results, &index_links));
        doc = splice(&doc, &generated)?;
    }
    if !hetero.is_empty() {
        let mut generated = String::from(note);
        generated.push_str(&hetero_markdown(&hetero, &hetero_links));
        doc = splice_between(
            &doc,
            &generated,
            HETERO_BEGIN,
            HETERO_END,
            "## Chapter 4: FF-HU, FF-HA and FF-HA+ as V grows",
        )?;
    }
    write_atomic(&paths.out, doc.as_bytes())?;
    Ok(ReportSummary {
        benchmarks: results.len(),
        decision_rows: rows.len(),
        hetero_rows: hetero.len(),
        figures: written,
        chapter3_written: write_ch3,
        hetero_written: !hetero.is_empty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(dir: &Path, group: &str, function: &str, value: &str, mean: f64) {
        let d = dir
            .join(group.replace('/', "_"))
            .join(function)
            .join(value.replace('/', "_"))
            .join("new");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("benchmark.json"),
            format!(
                r#"{{"group_id":"{group}","function_id":"{function}","value_str":"{value}","throughput":null,"full_id":"{group}/{function}/{value}","directory_name":"x","title":"x"}}"#
            ),
        )
        .unwrap();
        let est = |v: f64| {
            format!(
                r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}},"point_estimate":{v},"standard_error":1.0}}"#,
                v * 0.9,
                v * 1.1
            )
        };
        std::fs::write(
            d.join("estimates.json"),
            format!(
                r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
                est(mean),
                est(mean * 0.99),
                est(1.0),
                est(2.0)
            ),
        )
        .unwrap();
    }

    /// A criterion directory like `cargo bench` leaves it (plus a stale `base/` copy and a
    /// `report/` folder that must be ignored).
    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (n, tree, linear) in [
            (200, 400.0, 2_000.0),
            (2_000, 500.0, 20_000.0),
            (20_000, 600.0, 200_000.0),
        ] {
            let v = format!("n={n},rho=0.9,L=200");
            bench(root, "decide/min-lip", "tree", &v, tree);
            bench(root, "decide/min-lip", "linear", &v, linear);
            bench(
                root,
                "decide/first-fit",
                "tree",
                &v,
                tree * f64::from(n).sqrt(),
            );
            bench(root, "decide/first-fit", "linear", &v, linear);
            bench(root, "decide/lact", "none", &v, 100.0);
        }
        bench(root, "index/insert-delete", "linear", "n=20", 120.0);
        bench(root, "index/insert-delete", "tree-start", "n=20", 150.0);
        bench(
            root,
            "index/select/earliest-feasible",
            "tree",
            "n=20",
            300.0,
        );
        bench(
            root,
            "index/select/earliest-feasible",
            "linear",
            "n=20",
            900.0,
        );
        let stale = root.join("decide_min-lip/tree/n=200,rho=0.9,L=200/base");
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::write(stale.join("estimates.json"), "not json").unwrap();
        std::fs::create_dir_all(root.join("report")).unwrap();
        std::fs::write(
            root.join(STEADY_STATE_FILE),
            "strategy,n,rho,L,idle_periods,warm_seconds\nmin-lip,2000,0.9,200,1,0.5\nmin-lip,2000,0.9,200,2305,1.1\nlact,2000,0.9,200,0,0.1\nlact,20000,0.9,200,0,0.4\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn reads_criterion_results_and_ids() {
        let dir = fixture();
        let results = read_criterion(dir.path()).unwrap();
        assert_eq!(results.len(), 19);
        let r = results
            .iter()
            .find(|r| {
                r.group == "decide/min-lip"
                    && r.function.as_deref() == Some("linear")
                    && r.value.as_deref() == Some("n=2000,rho=0.9,L=200")
            })
            .unwrap();
        assert_eq!(
            (r.mean_ns, r.low_ns, r.high_ns),
            (20_000.0, 18_000.0, 22_000.0)
        );
    }

    #[test]
    fn rows_pair_tree_and_linear_and_steady_state() {
        let dir = fixture();
        let results = read_criterion(dir.path()).unwrap();
        let steady = read_steady_state(dir.path()).unwrap();
        assert_eq!(steady.len(), 3, "the last record of a state wins");
        let rows = decision_rows(&results, &steady);
        assert_eq!(rows.len(), 9);
        assert_eq!(
            rows[0].strategy, "first-fit",
            "thesis order, not alphabetical"
        );
        let r = rows
            .iter()
            .find(|r| r.strategy == "min-lip" && r.case.n == 2_000)
            .unwrap();
        assert_eq!(r.idle_periods, Some(2305));
        assert_eq!(r.speedup(), Some(40.0));
        let lact = rows.iter().find(|r| r.strategy == "lact").unwrap();
        assert!(lact.tree.is_some() && lact.linear.is_none());
    }

    #[test]
    fn steady_state_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STEADY_STATE_FILE);
        let header = "strategy,n,rho,look_ahead,idle_periods\n";
        std::fs::write(
            &path,
            format!("{header}first-fit,20,0.5,200,17\nmin-lip,20,0.5\n"),
        )
        .unwrap();
        let e = read_steady_state(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{}:3: bad record", path.display())),
            "{e}"
        );
        std::fs::write(&path, format!("{header}first-fit,twenty,0.5,200,17\n")).unwrap();
        let e = read_steady_state(dir.path()).unwrap_err().to_string();
        assert!(e.contains(":2: bad record `first-fit,twenty"), "{e}");
        assert!(
            read_steady_state(&dir.path().join("absent"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn markdown_reports_targets_and_growth() {
        let dir = fixture();
        let results = read_criterion(dir.path()).unwrap();
        let rows = decision_rows(&results, &read_steady_state(dir.path()).unwrap());
        let md = decisions_markdown(&rows, &[]);
        assert!(
            md.contains("| 0.9 | 200 | 2000 | 2305 | 0.500 | 20.0 | 40.0× |"),
            "{md}"
        );
        // min-lip: 40× at 2,000 (met), 333× at 20,000 (met); first-fit's tree time grows like
        // sqrt(n): 20,000 / (500 sqrt 2000) = 0.89× and 200,000 / (600 sqrt 20000) = 2.36×.
        assert!(
            md.contains("| min-lip | 0.9 | 200 | 40.0× | met | 333× | met |"),
            "{md}"
        );
        assert!(
            md.contains("| first-fit | 0.9 | 200 | 0.89× | **missed** | 2.36× | **missed** |"),
            "{md}"
        );
        // Tree time ∝ sqrt(n) (slope 0.5 + 0.09 from the 400/500/600 factors) grows faster than
        // log n (slope 0.14); a slowly growing one does not.
        assert!(
            md.contains("| first-fit | 0.9 | 200 | 3.95 | 3.79 | — | 0.59 | **faster** |"),
            "{md}"
        );
        assert!(
            md.contains("| min-lip | 0.9 | 200 | 1.25 | 1.20 | — | 0.09 | ≈ log n |"),
            "{md}"
        );
        // No idle periods (LACT): no V ratio rather than 0 / 0.
        assert!(
            md.contains("| lact | 0.9 | 200 | 1.00 | 1.00 | — | 0.00 | ≈ log n |"),
            "{md}"
        );
        let ops = index_ops_markdown(&results, &[]);
        assert!(ops.contains("| n | linear | tree-start |"), "{ops}");
        assert!(
            ops.contains("| earliest-feasible | 20 | 0.300 | 0.900 | 3.00× |"),
            "{ops}"
        );
    }

    #[test]
    fn parses_cases_and_rejects_others() {
        assert_eq!(
            Case::parse("n=20000,rho=0.5,L=2000"),
            Some(Case {
                n: 20_000,
                rho: 0.5,
                look_ahead: 2_000.0
            })
        );
        assert_eq!(Case::parse("n=20"), None);
        assert_eq!(Case::parse("n=20,rho=0.5,L=200,x=1"), None);
    }

    #[test]
    fn splice_keeps_hand_written_text() {
        let doc = format!(
            "# B\n\nquoted `{BEGIN}` ... `{END}` in prose\n\n{BEGIN}\nold\n{END}\n\n## Verdict\nkept\n"
        );
        let out = splice(&doc, "new table\n").unwrap();
        assert_eq!(
            out,
            format!(
                "# B\n\nquoted `{BEGIN}` ... `{END}` in prose\n\n{BEGIN}\nnew table\n{END}\n\n## Verdict\nkept\n"
            )
        );
        let appended = splice("# B\n", "t").unwrap();
        assert!(appended.starts_with("# B\n\n## Results\n\n") && appended.contains(BEGIN));
        assert!(splice(&format!("{END}\n{BEGIN}\n"), "t").is_err());
        assert!(splice(&format!("{BEGIN}\n"), "t").is_err());
    }

    #[test]
    fn write_report_writes_plots_and_the_marked_section() {
        let dir = fixture();
        let out_root = tempfile::tempdir().unwrap();
        let paths = ReportPaths {
            criterion_dir: dir.path().to_path_buf(),
            out: out_root.path().join("docs/benchmarks.md"),
            figures_dir: out_root.path().join("figures/bench"),
        };
        std::fs::create_dir_all(out_root.path().join("docs")).unwrap();
        std::fs::write(
            &paths.out,
            format!("# Benchmarks\n\n{BEGIN}\n{END}\n\nverdict\n"),
        )
        .unwrap();
        let summary = write_report(&paths).unwrap();
        assert_eq!(summary.benchmarks, 19);
        let names: Vec<String> = summary
            .figures
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.contains(&"decide-min-lip.svg".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"decide-tree-rho0.9-L200.svg".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"index-insert-delete.svg".to_string()),
            "{names:?}"
        );
        for p in &summary.figures {
            assert!(std::fs::read_to_string(p).unwrap().starts_with("<svg"));
        }
        let doc = std::fs::read_to_string(&paths.out).unwrap();
        assert!(
            doc.contains("(../figures/bench/decide-min-lip.svg)"),
            "{doc}"
        );
        assert!(doc.ends_with(&format!("{END}\n\nverdict\n")));
        // Idempotent.
        write_report(&paths).unwrap();
        assert_eq!(std::fs::read_to_string(&paths.out).unwrap(), doc);
    }

    /// A criterion directory with only chapter-4 results.
    fn hetero_fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // (days, V, hu, ha, plus) on the look-ahead axis; (n, V, ...) on the servers axis.
        for (days, v, hu, ha, plus) in [
            (14.0, 1_400, 4_000.0, 3_000.0, 1_500.0),
            (1064.0, 101_000, 900_000.0, 300_000.0, 6_000.0),
        ] {
            let value = format!("n=120,days={days}");
            bench(root, "hetero/lookahead", "ff-hu", &value, hu);
            bench(root, "hetero/lookahead", "ff-ha", &value, ha);
            bench(root, "hetero/lookahead", "ff-ha-plus", &value, plus);
            let _ = v;
        }
        for (n, hu, ha, plus) in [
            (120, 4_000.0, 3_000.0, 1_500.0),
            (8700, 200_000.0, 150_000.0, 15_000.0),
        ] {
            let value = format!("n={n},days=14");
            bench(root, "hetero/servers", "ff-hu", &value, hu);
            bench(root, "hetero/servers", "ff-ha", &value, ha);
            bench(root, "hetero/servers", "ff-ha-plus", &value, plus);
        }
        std::fs::write(
            root.join(HETERO_STEADY_STATE_FILE),
            "axis,n,days,algorithm,idle_periods,seconds,ops_per_decision,decisions\n\
             lookahead,120,14,warm-up,1,0.0,0.0,5000\n\
             lookahead,120,14,warm-up,1400,0.0,0.0,5000\n\
             lookahead,120,14,ff-ha,1390,2.5,610.5,100000\n\
             lookahead,120,1064,warm-up,101000,6.0,0.0,400000\n\
             lookahead,120,1064,ff-ha-plus,101200,2.5,82.4,100000\n\
             servers,120,14,warm-up,1400,0.0,0.0,5000\n\
             servers,8700,14,warm-up,99000,20.0,0.0,400000\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn hetero_rows_tables_targets_and_figures() {
        let dir = hetero_fixture();
        let results = read_criterion(dir.path()).unwrap();
        let records = read_hetero_steady_state(dir.path()).unwrap();
        let rows = hetero_rows(&results, &records);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].case.axis, "lookahead", "look-ahead axis first");
        assert_eq!(rows[0].idle_periods, Some(1400), "the last record wins");
        assert_eq!(rows[0].ops[1], Some(610.5));
        assert_eq!(rows[1].speedup_ha(), Some(50.0));
        assert_eq!(rows[3].speedup_hu(), Some(200_000.0 / 15_000.0));
        let md = hetero_markdown(&rows, &[]);
        assert!(
            md.contains("| 120 | 1064 | 101000 | 900 | 300 | 6.00 | 50.0× | 150× | — | — | 82.4 |"),
            "{md}"
        );
        assert!(
            md.contains("| lookahead | 120 | 1064 | 101000 | 50.0× | met |"),
            "{md}"
        );
        assert!(
            md.contains("| servers | 8700 | 14 | 99000 | 10.0× | **missed** |"),
            "{md}"
        );
        let figs = hetero_figures(&rows);
        let stems: Vec<&str> = figs.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(stems, ["hetero-lookahead", "hetero-servers"]);
        assert_eq!(figs[0].1.series.len(), 3);
        assert_eq!(figs[0].1.series[2].name, "FF-HA+");
        assert_eq!(figs[0].1.series[2].points[1].x, 101_000.0);
        assert_eq!(
            HeteroCase::parse("servers", "n=12000,days=14"),
            Some(HeteroCase {
                axis: "servers".into(),
                n: 12_000,
                days: 14.0
            })
        );
        assert_eq!(HeteroCase::parse("servers", "n=12000,rho=0.5"), None);
    }

    /// Only chapter-4 results: the chapter-3 section is left alone, the chapter-4 one written.
    #[test]
    fn hetero_report_leaves_the_chapter_3_section_alone() {
        let dir = hetero_fixture();
        let out_root = tempfile::tempdir().unwrap();
        let paths = ReportPaths {
            criterion_dir: dir.path().to_path_buf(),
            out: out_root.path().join("docs/benchmarks.md"),
            figures_dir: out_root.path().join("figures/bench"),
        };
        std::fs::create_dir_all(out_root.path().join("docs")).unwrap();
        let original = format!(
            "# Benchmarks\n\n{BEGIN}\nchapter 3 tables\n{END}\n\n## Chapter 4\n\n{HETERO_BEGIN}\nold\n{HETERO_END}\n\nverdict\n"
        );
        std::fs::write(&paths.out, &original).unwrap();
        let summary = write_report(&paths).unwrap();
        assert!(!summary.chapter3_written && summary.hetero_written);
        assert_eq!(summary.hetero_rows, 4);
        assert_eq!(summary.figures.len(), 2);
        let doc = std::fs::read_to_string(&paths.out).unwrap();
        assert!(
            doc.contains(&format!("{BEGIN}\nchapter 3 tables\n{END}")),
            "{doc}"
        );
        assert!(
            doc.contains("(../figures/bench/hetero-servers.svg)"),
            "{doc}"
        );
        assert!(!doc.contains("\nold\n"), "{doc}");
        assert!(doc.ends_with(&format!("{HETERO_END}\n\nverdict\n")));
        write_report(&paths).unwrap();
        assert_eq!(
            std::fs::read_to_string(&paths.out).unwrap(),
            doc,
            "idempotent"
        );
        // Without markers, the section is appended under its heading.
        std::fs::write(&paths.out, "# Benchmarks\n").unwrap();
        write_report(&paths).unwrap();
        let doc = std::fs::read_to_string(&paths.out).unwrap();
        assert!(doc.contains(
            "## Chapter 4: FF-HU, FF-HA and FF-HA+ as V grows\n\n<!-- bench-hetero:begin -->"
        ));
        assert!(!doc.contains(BEGIN));
    }

    #[test]
    fn missing_directory_is_a_usage_error() {
        let err = read_criterion(Path::new("/nonexistent/criterion")).unwrap_err();
        assert!(err.to_string().contains("run `cargo bench` first"), "{err}");
    }
}
