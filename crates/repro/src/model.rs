//! Models: what one replication of one sweep point runs.

use std::collections::BTreeMap;

use gridsched_sim::StreamKey;

use crate::spec::{ParamValue, Params};

/// A failure inside a model run (bad parameter, invalid generated state): reported with the
/// experiment and point, never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ModelError(pub String);

impl ModelError {
    /// Wraps any displayable error.
    pub fn from_display(e: impl std::fmt::Display) -> Self {
        ModelError(e.to_string())
    }
}

/// One replication's measured metrics, in the model's fixed metric order.
pub type Measurement = Vec<(&'static str, f64)>;

/// The value of `metric` in a measurement, if the model measured it.
pub fn measured(m: &Measurement, metric: &str) -> Option<f64> {
    m.iter().find(|x| x.0 == metric).map(|x| x.1)
}

/// One replication evaluated along a curve axis: `(x, metric, value)` rows.
pub type CurveMeasurement = Vec<(f64, &'static str, f64)>;

/// A simulation model the harness can sweep.
pub trait Model: Sync + Send {
    /// Name used in sweep files (`model = "castillo-ch3"`).
    fn name(&self) -> &'static str;
    /// Accepted parameters with a one-line description each (unknown names are rejected).
    fn parameters(&self) -> &'static [(&'static str, &'static str)];
    /// Metrics every run returns.
    fn metrics(&self) -> &'static [&'static str];
    /// Runs one replication of `jobs` jobs with the random streams under `key`.
    fn run(&self, params: &ParamSet, key: &StreamKey, jobs: u64)
    -> Result<Measurement, ModelError>;

    /// For sweeps whose axis has `evaluation = "curve"`: runs one replication and evaluates it
    /// at every axis value `xs`, returning `(x, metric, value)` rows (e.g. a waiting-time CDF
    /// at the thresholds `xs`). Models without curves refuse.
    fn run_curve(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        let _ = (params, key, jobs, xs);
        Err(ModelError(format!(
            "model `{}` cannot evaluate a curve axis",
            self.name()
        )))
    }

    /// Called after a sweep of this model has finished, at paper scale (where sweeps run one
    /// after another). A model whose runs share values through process-wide caches (a parsed
    /// log, a simulated background several series read) drops them here, so that a long
    /// `reproduce` holds one sweep's shared values, not every sweep's. No-op by default.
    fn sweep_finished(&self) {}

    /// The schedule of the same replication as a Gantt chart, for models that produce one
    /// (experiments with `plot.kind = "gantt"`); `None` by default.
    fn gantt(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Option<Gantt>, ModelError> {
        let _ = (params, key, jobs);
        Ok(None)
    }
}

/// A schedule to draw: one row per resource (top to bottom), boxes with labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Gantt {
    /// Row names, e.g. `R1`, `R2`, ...
    pub rows: Vec<String>,
    pub bars: Vec<crate::plot::GanttBar>,
    /// Label of the time axis.
    pub time_label: String,
}

/// The parameters of one run (sweep + series + axis value), with typed accessors whose errors
/// name the parameter.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParamSet {
    values: BTreeMap<String, ParamValue>,
}

impl ParamSet {
    /// Merges layers; later layers override earlier ones.
    pub fn merged(layers: &[&Params]) -> Self {
        let mut values = BTreeMap::new();
        for layer in layers {
            for (k, v) in layer.iter() {
                values.insert(k.clone(), v.clone());
            }
        }
        ParamSet { values }
    }

    /// A parameter set from `(name, value)` pairs (for models called directly, e.g. in tests).
    pub fn from_pairs(pairs: &[(&str, ParamValue)]) -> Self {
        ParamSet {
            values: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// Sets one value.
    /// Removes a parameter (e.g. to name what a run shares with other series).
    pub fn remove(&mut self, name: &str) {
        self.values.remove(name);
    }

    pub fn set(&mut self, name: &str, value: ParamValue) {
        self.values.insert(name.to_string(), value);
    }

    /// Names present.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Whether a parameter is set.
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// A number (integers are accepted).
    pub fn f64_or(&self, name: &str, default: f64) -> Result<f64, ModelError> {
        match self.values.get(name) {
            None => Ok(default),
            Some(ParamValue::Float(x)) => Ok(*x),
            Some(ParamValue::Integer(i)) => Ok(*i as f64),
            Some(v) => Err(ModelError(format!(
                "parameter `{name}` must be a number, got {v}"
            ))),
        }
    }

    /// A required number.
    pub fn f64(&self, name: &str) -> Result<f64, ModelError> {
        if !self.has(name) {
            return Err(ModelError(format!("parameter `{name}` is required")));
        }
        self.f64_or(name, f64::NAN)
    }

    /// A non-negative integer that fits in u32 (a float with no fractional part is accepted,
    /// since swept axis values are floats).
    pub fn u32_or(&self, name: &str, default: u32) -> Result<u32, ModelError> {
        let x = self.f64_or(name, f64::from(default))?;
        if x.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&x) {
            return Err(ModelError(format!(
                "parameter `{name}` must be a non-negative integer, got {x}"
            )));
        }
        Ok(x as u32)
    }

    /// A string.
    pub fn str_or<'a>(&'a self, name: &str, default: &'a str) -> Result<&'a str, ModelError> {
        match self.values.get(name) {
            None => Ok(default),
            Some(ParamValue::String(s)) => Ok(s),
            Some(v) => Err(ModelError(format!(
                "parameter `{name}` must be a string, got {v}"
            ))),
        }
    }

    /// A boolean.
    pub fn bool_or(&self, name: &str, default: bool) -> Result<bool, ModelError> {
        match self.values.get(name) {
            None => Ok(default),
            Some(ParamValue::Boolean(b)) => Ok(*b),
            Some(v) => Err(ModelError(format!(
                "parameter `{name}` must be true or false, got {v}"
            ))),
        }
    }

    /// One of a fixed set of string choices.
    pub fn choice<T: Copy>(
        &self,
        name: &str,
        default: T,
        choices: &[(&str, T)],
    ) -> Result<T, ModelError> {
        match self.values.get(name) {
            None => Ok(default),
            Some(ParamValue::String(s)) => choices
                .iter()
                .find(|c| c.0 == s)
                .map(|c| c.1)
                .ok_or_else(|| {
                    let names: Vec<&str> = choices.iter().map(|c| c.0).collect();
                    ModelError(format!(
                        "parameter `{name}`: unknown value `{s}`; expected one of {}",
                        names.join(", ")
                    ))
                }),
            Some(v) => Err(ModelError(format!(
                "parameter `{name}` must be a string, got {v}"
            ))),
        }
    }

    /// Rejects parameters the model does not know (catches typos in experiment files).
    pub fn check_known(&self, model: &dyn Model) -> Result<(), ModelError> {
        let known: Vec<&str> = model.parameters().iter().map(|p| p.0).collect();
        for name in self.names() {
            if !known.contains(&name) {
                return Err(ModelError(format!(
                    "model `{}` has no parameter `{name}`; it accepts: {}",
                    model.name(),
                    known.join(", ")
                )));
            }
        }
        Ok(())
    }
}
