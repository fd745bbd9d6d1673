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
    /// Parameters shared by every point and series.
    #[serde(default)]
    pub parameters: Params,
    pub axis: AxisSpec,
    pub series: Vec<SeriesSpec>,
    /// Replications and jobs per scale; must define `quick` and `paper`.
    pub scales: BTreeMap<String, ScaleSpec>,
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
        if self.parameters.contains_key(&self.axis.parameter) {
            return Err(format!(
                "sweep `{}`: `{}` is both a fixed parameter and the axis",
                self.name, self.axis.parameter
            ));
        }
        Ok(())
    }
}
