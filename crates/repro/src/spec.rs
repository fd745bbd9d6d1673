//! Experiment entries as written in `experiments/<paper>/*.toml`.
//!
//! A *sweep* says what to run: a model, its fixed parameters, the swept parameter (axis) and
//! its values per scale, the series (e.g. algorithms) and the replications and jobs per scale.
//! An *experiment* (one paper figure or table) is a view of a sweep: which metrics it keeps,
//! how it is plotted, and the paper's claims about it. Several figures can share one sweep
//! (Castillo Figs. 3.4–3.7 are four metrics of one load sweep), which then runs once.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::claims::ClaimSpec;

/// A model parameter value as written in TOML.
pub type ParamValue = toml::Value;

/// Named parameters.
pub type Params = BTreeMap<String, ParamValue>;

/// What to run.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Unique name; part of every random stream's key, so renaming a sweep changes its numbers.
    pub name: String,
    /// The model that runs one replication (e.g. `castillo-ch3`).
    pub model: String,
    /// Master seed of all random streams.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The name the random streams are keyed by, when it is not `name`: a sensitivity sweep
    /// that gives another sweep's name here (and its seed and axis values) runs its series on
    /// that sweep's very jobs, so a series both sweeps share gives identical numbers and a new
    /// reading is compared on the same jobs ([`SweepSpec::stream_name`]).
    #[serde(default)]
    pub streams: Option<String>,
    /// Parameters shared by every point and series.
    #[serde(default)]
    pub parameters: Params,
    pub axis: AxisSpec,
    pub series: Vec<SeriesSpec>,
    /// Replications and jobs per scale; must define `quick` and `paper`.
    pub scales: BTreeMap<String, ScaleSpec>,
    /// Real input files the sweep reads, relative to the data directory (`--data-dir`,
    /// `$GRIDSCHED_DATA`, else `../shared/data`), e.g. `etc/braun/u_c_hihi.0`. Lets the test
    /// suite tell "this checkout has no real data" apart from a failure
    /// ([`crate::Experiment::missing_data`]).
    #[serde(default)]
    pub requires_data: Vec<String>,
    /// What one run is, per scale, where "N runs x M jobs" would mislead (e.g. `paper =
    /// "whole logs, one deterministic run per series"` for a log replay whose `jobs` is only
    /// an upper bound). Shown in figure captions instead of the counts.
    #[serde(default)]
    pub size_description: BTreeMap<String, String>,
}

fn default_seed() -> u64 {
    2008
}

/// The swept parameter.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    /// Model parameter that takes the axis values.
    pub parameter: String,
    /// Axis label in plots and tables.
    pub label: String,
    /// Values at paper scale.
    pub paper: Vec<f64>,
    /// Values at quick scale (default: the paper values).
    #[serde(default)]
    pub quick: Option<Vec<f64>>,
    /// Plot this axis on a log scale.
    #[serde(default)]
    pub log: bool,
    /// Names of the paper axis values, one per value, for a categorical axis (`Case I`,
    /// `u_c_hihi`, ...): plots and tables show these instead of the numbers.
    #[serde(default)]
    pub labels: Option<Vec<String>>,
    /// `sweep` (default): every axis value is a separate run with the axis parameter set to it.
    /// `curve`: each run is evaluated at every axis value at once (`Model::run_curve`), for
    /// distribution-valued figures such as CDFs or per-bin curves.
    #[serde(default)]
    pub evaluation: Evaluation,
}

/// How an axis is evaluated; see [`AxisSpec::evaluation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Evaluation {
    /// One run per axis value.
    #[default]
    Sweep,
    /// One run per series and replication, evaluated at every axis value.
    Curve,
}

impl AxisSpec {
    /// The label of axis value `x` (its `labels` entry), if the axis is categorical.
    pub fn label(&self, x: f64) -> Option<&str> {
        let labels = self.labels.as_ref()?;
        let i = self.paper.iter().position(|v| v.total_cmp(&x).is_eq())?;
        labels.get(i).map(String::as_str)
    }

    /// The label of `x`, or the number itself.
    pub fn display(&self, x: f64) -> String {
        self.label(x).map_or_else(|| x.to_string(), str::to_string)
    }
}

/// One series (curve): a name and the parameters that distinguish it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// Name used in claims (`loss[min-lip]`) and CSV files.
    pub name: String,
    /// Legend label (default: the name).
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub parameters: Params,
}

impl SeriesSpec {
    /// The legend label.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

impl ExperimentSpec {
    /// The document's chapter of this entry: the entry's `chapter` where it gives one, else the
    /// leading number of a dotted figure or table number in its id (`castillo-fig-3.4` → `3`,
    /// `kumar-table-4.1` → `4`), else none (a paper without chapters, or an entry of ours that
    /// does not say).
    pub fn chapter(&self) -> Option<String> {
        if let Some(c) = &self.chapter {
            return Some(c.clone());
        }
        let number = ["-fig-", "-tab-", "-table-"]
            .iter()
            .find_map(|k| self.id.split_once(k).map(|(_, n)| n))?;
        let (chapter, rest) = number.split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let minor: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        (digits(chapter) && digits(&minor)).then(|| chapter.to_string())
    }

    /// Checks the plot and table of an experiment against its sweep (series and metrics
    /// exist, reference rows match the axis, a Gantt chart names one series and one point).
    pub fn check_views(&self, sweep: &SweepSpec) -> Result<(), String> {
        let id = &self.id;
        let has_series = |s: &str| sweep.series.iter().any(|x| x.name == s);
        let is_point = |x: f64| sweep.axis.paper.iter().any(|v| v.total_cmp(&x).is_eq());
        if let Some(points) = &self.plot.points {
            if points.is_empty() {
                return Err(format!("{id}: `plot.points` is empty"));
            }
            if let Some(x) = points.iter().find(|x| !is_point(**x)) {
                return Err(format!("{id}: plot point {x} is not a paper axis value"));
            }
        }
        if let Some([lo, hi]) = self.plot.y_range
            && !(lo.is_finite() && hi.is_finite() && lo < hi)
        {
            return Err(format!(
                "{id}: `plot.y_range` must be [low, high] with low < high"
            ));
        }
        if self.plot.kind == FigureKind::Gantt {
            let one_series = self.plot.series.as_ref().is_some_and(|s| s.len() == 1);
            let one_point = self.plot.points.as_ref().is_some_and(|p| p.len() == 1);
            if !(one_series && one_point) {
                return Err(format!(
                    "{id}: a Gantt chart draws one run: give exactly one `plot.series` and one `plot.points` value"
                ));
            }
        }
        if let Some(table) = &self.table {
            if self.kind != "table" {
                return Err(format!("{id}: a `[table]` needs kind = \"table\""));
            }
            if table.columns.is_empty() {
                return Err(format!("{id}: `[table]` has no columns"));
            }
            for c in &table.columns {
                if !self.metrics.contains(&c.metric) {
                    return Err(format!(
                        "{id}: table column metric `{}` is not in `metrics`",
                        c.metric
                    ));
                }
                if !has_series(&c.series) {
                    return Err(format!(
                        "{id}: table column series `{}` is not a series of sweep `{}`",
                        c.series, sweep.name
                    ));
                }
                if let Some(r) = &c.reference
                    && r.len() != sweep.axis.paper.len()
                {
                    return Err(format!(
                        "{id}: column `{}` has {} reference values for {} paper axis values",
                        c.heading(),
                        r.len(),
                        sweep.axis.paper.len()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Size of a run at one scale.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ScaleSpec {
    pub replications: u32,
    /// Jobs per replication (the model's unit of run length).
    pub jobs: u64,
}

/// Either the name of a sweep file (`experiments/<paper>/sweeps/<name>.toml`) or an inline sweep.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SweepRef {
    Named(String),
    Inline(Box<SweepSpec>),
}

/// One paper figure or table.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// `<paper>-<kind>-<number>`, e.g. `castillo-fig-3.4`.
    pub id: String,
    /// Short title for listings.
    pub title: String,
    /// `figure` or `table`.
    pub kind: String,
    /// The document's chapter the entry belongs to, where its id does not say (an id with a
    /// dotted number, `fig-3.4` or `table-4.1`, is in chapter `3` or `4`); see
    /// [`ExperimentSpec::chapter`].
    #[serde(default)]
    pub chapter: Option<String>,
    /// The document's caption, verbatim where it has one.
    pub caption: String,
    pub sweep: SweepRef,
    /// Metrics kept in this experiment's CSV and usable by its claims (plot metric first).
    pub metrics: Vec<String>,
    pub plot: PlotSpec,
    /// Absolute tolerance floor per metric, used by claims' `tol`.
    #[serde(default)]
    pub floors: BTreeMap<String, f64>,
    #[serde(default)]
    pub claims: Vec<ClaimSpec>,
    /// Readings we had to choose where the document is silent or ambiguous.
    #[serde(default)]
    pub interpretations: Vec<Interpretation>,
    /// Free-form remarks shown in the report.
    #[serde(default)]
    pub notes: Vec<String>,
    /// For `kind = "table"`: the columns the report tabulates (default: every metric of every
    /// series), with the document's values beside ours where it prints them.
    #[serde(default)]
    pub table: Option<TableSpec>,
}

/// The report table of a `kind = "table"` experiment.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub columns: Vec<ColumnSpec>,
    /// Shown under the table (e.g. the document's units, what "reference" means).
    #[serde(default)]
    pub note: Option<String>,
    /// Which way the table runs (default: one row per axis value).
    #[serde(default)]
    pub layout: TableLayout,
    /// How values are written (default: numbers to 4 significant digits).
    #[serde(default)]
    pub values: TableValues,
    /// What follows a mean (default: the 95% CI half-width).
    #[serde(default)]
    pub spread: TableSpread,
}

/// Which way a report table runs.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum TableLayout {
    /// One row per axis value, one column per `[[table.columns]]` entry (and its document
    /// column).
    #[default]
    Rows,
    /// One row per `[[table.columns]]` entry, one column per axis value followed by the
    /// document's value: the layout of a document's table whose columns are the axis (e.g.
    /// "N = 520, 1040, ..." with a row per system and metric).
    Columns,
}

/// How a report table writes values.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum TableValues {
    /// Numbers, 4 significant digits.
    #[default]
    Number,
    /// Seconds written as `H:MM:SS` (hours unbounded), or whole milliseconds (`412 ms`) below
    /// one second, as documents print elapsed times; the document's values are seconds too.
    Duration,
}

/// What a report table shows after each mean.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum TableSpread {
    /// `± half-width` of the Student-t 95% CI of the mean.
    #[default]
    Ci95,
    /// `± sd`: the sample standard deviation over runs (the spread of one run, not of the mean).
    Sd,
}

/// One column of a report table: a metric of a series, as mean ± 95% CI half-width.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub metric: String,
    pub series: String,
    /// Column heading (default `metric[series]`).
    #[serde(default)]
    pub label: Option<String>,
    /// The document's values, one per paper axis value (`nan` where it gives none): shown in
    /// a `(document)` column next to ours.
    #[serde(default)]
    pub reference: Option<Vec<f64>>,
    /// Paper axis values at which the document's value is flagged as anomalous (a likely typo
    /// or a contradiction the spec records): marked `†` in the table, explained by the note.
    #[serde(default)]
    pub flagged: Vec<f64>,
    /// How this column's values are written, if not the table's way (e.g. a count in a table
    /// of durations).
    #[serde(default)]
    pub values: Option<TableValues>,
}

impl ColumnSpec {
    /// The column heading.
    pub fn heading(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| format!("{}[{}]", self.metric, self.series))
    }
}

/// What an experiment's figure is.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FigureKind {
    /// One line per series over the axis, with 95% CI bars.
    #[default]
    Lines,
    /// Grouped bars: one group per axis value (labelled by the axis labels), one bar per
    /// series, 95% CI error bars, and the table's reference values as markers.
    Bars,
    /// The schedule of one run (`plot.series[0]` at `plot.points[0]`, replication 0) as a
    /// Gantt chart, drawn from the model's [`Model::gantt`](crate::model::Model::gantt).
    Gantt,
}

/// How the experiment is drawn.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    pub metric: String,
    pub y_label: String,
    #[serde(default)]
    pub y_log: bool,
    /// Series to draw, in legend order (default: all, in sweep order).
    #[serde(default)]
    pub series: Option<Vec<String>>,
    /// `lines` (default), `bars` or `gantt`.
    #[serde(default)]
    pub kind: FigureKind,
    /// Axis values to draw (default: all that were run).
    #[serde(default)]
    pub points: Option<Vec<f64>>,
    /// Fixed y range `[low, high]` (default: fitted to the data, from 0 for non-negative data).
    #[serde(default)]
    pub y_range: Option<[f64; 2]>,
    /// Line charts only: sub-plots stacked top to bottom, each with its own title and series
    /// (instead of `series`), for a document figure with panels (a), (b), ...
    #[serde(default)]
    pub panels: Option<Vec<PanelSpec>>,
}

/// One panel of a figure with sub-plots.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PanelSpec {
    /// Shown above the panel, e.g. "(a) CTC".
    pub title: String,
    /// Series to draw, in legend order.
    pub series: Vec<String>,
    /// The metric this panel plots (default: `plot.metric`), for a document figure whose
    /// panels show different quantities (e.g. delayed jobs, usage, makespan).
    #[serde(default)]
    pub metric: Option<String>,
    /// The panel's y label (default: `plot.y_label`).
    #[serde(default)]
    pub y_label: Option<String>,
    /// A log y axis for this panel (default: `plot.y_log`).
    #[serde(default)]
    pub y_log: Option<bool>,
}

/// One interpretation, citing the spec section that proposes it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Interpretation {
    /// The spec's ambiguity id (e.g. `A1`).
    pub id: String,
    /// Spec section (e.g. `§2.21`).
    pub section: String,
    pub text: String,
}

/// The two scales every experiment defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scale {
    Quick,
    Paper,
}

impl Scale {
    /// Name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Paper => "paper",
        }
    }

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Scale> {
        match s {
            "quick" => Some(Scale::Quick),
            "paper" => Some(Scale::Paper),
            _ => None,
        }
    }
}

impl SweepSpec {
    /// The name every random stream of this sweep is keyed by: `streams`, else `name`.
    pub fn stream_name(&self) -> &str {
        self.streams.as_deref().unwrap_or(&self.name)
    }

    /// Axis values at a scale.
    pub fn axis_values(&self, scale: Scale) -> &[f64] {
        match scale {
            Scale::Paper => &self.axis.paper,
            Scale::Quick => self.axis.quick.as_deref().unwrap_or(&self.axis.paper),
        }
    }

    /// Replications and jobs at a scale.
    pub fn scale(&self, scale: Scale) -> Option<ScaleSpec> {
        self.scales.get(scale.name()).copied()
    }

    /// How a figure caption describes the run: the sweep's `size_description` for the scale
    /// when the run has the scale's own size, else `N runs x M jobs`, with `95% CI` only when
    /// there is more than one run to compute an interval from.
    pub fn describe_size(&self, scale: Scale, size: ScaleSpec) -> String {
        if self.scale(scale) == Some(size)
            && let Some(d) = self.size_description.get(scale.name())
        {
            return d.clone();
        }
        let runs = if size.replications == 1 {
            "1 run".to_string()
        } else {
            format!("{} runs", size.replications)
        };
        let ci = if size.replications > 1 {
            ", 95% CI"
        } else {
            ""
        };
        format!("{runs} x {} jobs{ci}", size.jobs)
    }

    /// Checks internal consistency (names unique, scales present, values finite).
    pub fn validate(&self) -> Result<(), String> {
        for scale in [Scale::Quick, Scale::Paper] {
            let s = self
                .scale(scale)
                .ok_or_else(|| format!("sweep `{}` has no [scales.{}]", self.name, scale.name()))?;
            if s.replications == 0 || s.jobs == 0 {
                return Err(format!(
                    "sweep `{}`: scale {} needs replications and jobs >= 1",
                    self.name,
                    scale.name()
                ));
            }
            let values = self.axis_values(scale);
            if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
                return Err(format!(
                    "sweep `{}`: axis values at {} scale must be finite and non-empty",
                    self.name,
                    scale.name()
                ));
            }
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            sorted.dedup();
            if sorted.len() != values.len() {
                return Err(format!("sweep `{}`: duplicate axis values", self.name));
            }
        }
        if self.scales.keys().any(|k| Scale::from_name(k).is_none()) {
            return Err(format!(
                "sweep `{}`: scales must be `quick` and `paper`",
                self.name
            ));
        }
        let mut names: Vec<&str> = self.series.iter().map(|s| s.name.as_str()).collect();
        if names.is_empty() {
            return Err(format!("sweep `{}` has no series", self.name));
        }
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!("sweep `{}`: duplicate series names", self.name));
        }
        if let Some(labels) = &self.axis.labels {
            if labels.len() != self.axis.paper.len() {
                return Err(format!(
                    "sweep `{}`: {} axis labels for {} paper axis values",
                    self.name,
                    labels.len(),
                    self.axis.paper.len()
                ));
            }
            if let Some(v) = self
                .axis_values(Scale::Quick)
                .iter()
                .find(|v| self.axis.label(**v).is_none())
            {
                return Err(format!(
                    "sweep `{}`: quick axis value {v} is not a labelled paper value",
                    self.name
                ));
            }
        }
        if self.parameters.contains_key(&self.axis.parameter) {
            return Err(format!(
                "sweep `{}`: `{}` is both a fixed parameter and the axis",
                self.name, self.axis.parameter
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWEEP: &str = r#"
name = "s"
model = "kumar-ch5"
[axis]
parameter = "case"
label = "Task case"
paper = [1, 2, 3]
quick = [1, 3]
labels = ["Case I", "Case II", "Case III"]
[[series]]
name = "sas"
parameters = { heuristic = "sas" }
[scales.quick]
replications = 2
jobs = 10
[scales.paper]
replications = 3
jobs = 10
"#;

    fn sweep() -> SweepSpec {
        toml::from_str(SWEEP).unwrap()
    }

    fn experiment(extra: &str) -> ExperimentSpec {
        toml::from_str(&format!(
            "id = \"kumar-x\"\ntitle = \"t\"\nkind = \"table\"\ncaption = \"c\"\nsweep = \"s\"\nmetrics = [\"makespan\"]\n{extra}"
        ))
        .unwrap()
    }

    #[test]
    fn chapters_come_from_the_entry_or_a_dotted_number_in_the_id() {
        let with_id = |id: &str, extra: &str| {
            let mut e = experiment(&format!(
                "{extra}[plot]\nmetric = \"makespan\"\ny_label = \"y\"\n"
            ));
            e.id = id.to_string();
            e.chapter()
        };
        assert_eq!(with_id("castillo-fig-3.10", ""), Some("3".into()));
        assert_eq!(with_id("kumar-table-4.1", ""), Some("4".into()));
        assert_eq!(with_id("castillo-tab-5.1", ""), Some("5".into()));
        assert_eq!(with_id("singh-fig-38-sites", ""), None);
        assert_eq!(with_id("alzoubi-table-4", ""), None);
        assert_eq!(with_id("castillo-sens-a27", ""), None);
        assert_eq!(
            with_id("singh-fig-38", "chapter = \"6\"\n"),
            Some("6".into())
        );
        assert_eq!(
            with_id("castillo-fig-3.4", "chapter = \"A\"\n"),
            Some("A".into())
        );
    }

    #[test]
    fn categorical_axis_labels() {
        let s = sweep();
        s.validate().unwrap();
        assert_eq!(s.axis.label(2.0), Some("Case II"));
        assert_eq!(s.axis.display(3.0), "Case III");
        assert_eq!(s.axis.label(4.0), None);
        let mut bad = s.clone();
        bad.axis.labels = Some(vec!["only one".into()]);
        assert!(bad.validate().unwrap_err().contains("1 axis labels for 3"));
        let mut bad = s.clone();
        bad.axis.quick = Some(vec![1.5]);
        assert!(
            bad.validate()
                .unwrap_err()
                .contains("not a labelled paper value")
        );
        let plain: SweepSpec = toml::from_str(
            &SWEEP.replace("labels = [\"Case I\", \"Case II\", \"Case III\"]\n", ""),
        )
        .unwrap();
        assert_eq!(plain.axis.display(2.0), "2");
    }

    #[test]
    fn plot_kinds_points_and_tables_parse_and_check() {
        let s = sweep();
        let e = experiment(
            r#"
[plot]
kind = "bars"
metric = "makespan"
y_label = "y"
points = [2]
y_range = [0.5, 1.0]
[table]
note = "n"
[[table.columns]]
metric = "makespan"
series = "sas"
reference = [39.37, nan, 42.99]
"#,
        );
        assert_eq!(e.plot.kind, FigureKind::Bars);
        assert_eq!(e.plot.y_range, Some([0.5, 1.0]));
        let t = e.table.as_ref().unwrap();
        assert_eq!(t.columns[0].heading(), "makespan[sas]");
        assert!(t.columns[0].reference.as_ref().unwrap()[1].is_nan());
        e.check_views(&s).unwrap();
        // Defaults: lines, no points, no table.
        let plain = experiment("[plot]\nmetric = \"makespan\"\ny_label = \"y\"\n");
        assert_eq!(plain.plot.kind, FigureKind::Lines);
        plain.check_views(&s).unwrap();
        assert!(
            toml::from_str::<PlotSpec>("metric = \"m\"\ny_label = \"y\"\nkind = \"pie\"").is_err()
        );
    }

    #[test]
    fn bad_views_are_rejected() {
        let s = sweep();
        let err = |extra: &str| experiment(extra).check_views(&s).unwrap_err();
        let plot = "[plot]\nmetric = \"makespan\"\ny_label = \"y\"\n";
        assert!(err(&format!("{plot}points = [7]")).contains("not a paper axis value"));
        assert!(err(&format!("{plot}points = []")).contains("empty"));
        assert!(err(&format!("{plot}y_range = [1.0, 0.0]")).contains("low < high"));
        assert!(err(&format!("{plot}kind = \"gantt\"\nseries = [\"sas\"]")).contains("one run"));
        let column = |c: &str| format!("{plot}[[table.columns]]\n{c}");
        assert!(
            err(&column("metric = \"flowtime\"\nseries = \"sas\"")).contains("not in `metrics`")
        );
        assert!(err(&column("metric = \"makespan\"\nseries = \"x\"")).contains("not a series"));
        assert!(
            err(&column(
                "metric = \"makespan\"\nseries = \"sas\"\nreference = [1.0]"
            ))
            .contains("1 reference values for 3")
        );
        assert!(err(&format!("{plot}[table]\ncolumns = []")).contains("no columns"));
        let mut figure = experiment(&column("metric = \"makespan\"\nseries = \"sas\""));
        figure.kind = "figure".into();
        assert!(
            figure
                .check_views(&s)
                .unwrap_err()
                .contains("kind = \"table\"")
        );
    }
}
