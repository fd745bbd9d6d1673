//! The set of experiment entries, loaded from `experiments/<paper>/*.toml`.

use std::collections::BTreeMap;

use crate::HarnessError;
use crate::claims::{ParsedClaim, parse_claim};
use crate::model::ParamSet;
use crate::papers::{Catalog, ModelRef, Paper};
use crate::spec::{ExperimentSpec, FigureKind, SweepRef, SweepSpec};

/// One loaded experiment: its entry, its resolved sweep and its parsed claims.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub spec: ExperimentSpec,
    pub sweep: SweepSpec,
    pub claims: Vec<ParsedClaim>,
    pub paper: &'static Paper,
    /// The model its sweep names.
    pub model: ModelRef,
    /// File the entry came from (relative to `experiments/`).
    pub source: String,
}

impl Experiment {
    /// The sweep's `requires_data` files that are not in the data directory (empty when every
    /// real input is present, or the sweep needs none).
    pub fn missing_data(&self) -> Vec<std::path::PathBuf> {
        let dir = gridsched_sim::data_dir(None);
        self.sweep
            .requires_data
            .iter()
            .map(|f| dir.join(f))
            .filter(|p| !p.is_file())
            .collect()
    }

    /// The id without its paper prefix (`fig-3.4`), used in file names.
    pub fn short_id(&self) -> &str {
        self.spec
            .id
            .strip_prefix(self.paper.key)
            .and_then(|s| s.strip_prefix('-'))
            .unwrap_or(&self.spec.id)
    }
}

/// All experiments, sorted by id.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    experiments: Vec<Experiment>,
    catalog: Catalog,
}

impl Registry {
    /// Loads entries from `(path, text)` pairs; paths under a `sweeps/` folder are sweep files,
    /// the others experiment entries. Every entry must belong to a document of `catalog` and is
    /// validated against its model there.
    pub fn from_sources(sources: &[(&str, &str)], catalog: Catalog) -> Result<Self, HarnessError> {
        catalog.check().map_err(HarnessError::Spec)?;
        let mut sweeps: BTreeMap<String, SweepSpec> = BTreeMap::new();
        for (path, text) in sources.iter().filter(|(p, _)| is_sweep_file(p)) {
            let sweep: SweepSpec = toml::from_str(text)
                .map_err(|e| HarnessError::Spec(format!("experiments/{path}: {e}")))?;
            if sweeps.insert(sweep.name.clone(), sweep).is_some() {
                return Err(HarnessError::Spec(format!(
                    "experiments/{path}: duplicate sweep name"
                )));
            }
        }
        let mut experiments = Vec::new();
        for (path, text) in sources.iter().filter(|(p, _)| !is_sweep_file(p)) {
            let fail = |m: String| HarnessError::Spec(format!("experiments/{path}: {m}"));
            let spec: ExperimentSpec = toml::from_str(text).map_err(|e| fail(e.to_string()))?;
            let paper = catalog.paper_of(&spec.id).ok_or_else(|| {
                fail(format!(
                    "id `{}` does not start with the key of a registered document",
                    spec.id
                ))
            })?;
            let sweep = match &spec.sweep {
                SweepRef::Named(name) => sweeps
                    .get(name)
                    .cloned()
                    .ok_or_else(|| fail(format!("unknown sweep `{name}`")))?,
                SweepRef::Inline(s) => (**s).clone(),
            };
            let model = catalog
                .model(&sweep.model)
                .cloned()
                .ok_or_else(|| fail(format!("unknown model `{}`", sweep.model)))?;
            validate(&spec, &sweep, &model).map_err(fail)?;
            let claims = spec
                .claims
                .iter()
                .map(parse_claim)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| fail(e.to_string()))?;
            experiments.push(Experiment {
                spec,
                sweep,
                claims,
                paper,
                model,
                source: path.to_string(),
            });
        }
        experiments.sort_by_key(|e| natural_key(&e.spec.id));
        for pair in experiments.windows(2) {
            if pair[0].spec.id == pair[1].spec.id {
                return Err(HarnessError::Spec(format!(
                    "duplicate experiment id `{}`",
                    pair[0].spec.id
                )));
            }
        }
        // Inline sweeps must not reuse a name with different content: the name keys the RNG.
        let mut by_name: BTreeMap<&str, &SweepSpec> = BTreeMap::new();
        for e in &experiments {
            if let Some(other) = by_name.insert(&e.sweep.name, &e.sweep)
                && other != &e.sweep
            {
                return Err(HarnessError::Spec(format!(
                    "two different sweeps are named `{}`",
                    e.sweep.name
                )));
            }
        }
        Ok(Registry {
            experiments,
            catalog,
        })
    }

    /// The registered documents, in registration order.
    pub fn papers(&self) -> &[&'static Paper] {
        self.catalog.papers()
    }

    /// All experiments.
    pub fn all(&self) -> &[Experiment] {
        &self.experiments
    }

    /// The full ids a bare id (`fig-5.4`) matches, in document order (seed 000 first).
    pub fn candidates(&self, id: &str) -> Vec<&str> {
        let mut matches: Vec<&Experiment> = self
            .experiments
            .iter()
            .filter(|e| e.short_id() == id)
            .collect();
        matches.sort_by_key(|e| e.paper.seed);
        matches.iter().map(|e| e.spec.id.as_str()).collect()
    }

    /// Resolves a full id (`castillo-fig-3.4`) or a bare one (`fig-3.4`). A bare id that
    /// several documents use (`fig-5.4`: Castillo's and Kumar's) means the first document's in
    /// seed order (the documents' numbering in `shared/seeds/`); [`candidates`](Self::candidates)
    /// lists the others so a front end can say so.
    pub fn resolve(&self, id: &str) -> Result<&Experiment, HarnessError> {
        if let Some(e) = self.experiments.iter().find(|e| e.spec.id == id) {
            return Ok(e);
        }
        let matches: Vec<&Experiment> = self
            .experiments
            .iter()
            .filter(|e| e.short_id() == id)
            .collect();
        match matches.as_slice() {
            [] => Err(HarnessError::Usage(format!(
                "no experiment `{id}`; `gridsched list` shows them all"
            ))),
            many => Ok(many
                .iter()
                .min_by_key(|e| e.paper.seed)
                .expect("at least one match")),
        }
    }
}

fn is_sweep_file(path: &str) -> bool {
    path.split('/').any(|part| part == "sweeps")
}

/// Sorts `fig-3.10` after `fig-3.9`.
fn natural_key(id: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num = String::new();
    for c in id.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() || !text.is_empty() {
                out.push((std::mem::take(&mut text), num.parse().unwrap_or(0)));
                num.clear();
            }
            text.push(c);
        }
    }
    out.push((text, num.parse().unwrap_or(0)));
    out
}

fn validate(spec: &ExperimentSpec, sweep: &SweepSpec, model: &ModelRef) -> Result<(), String> {
    sweep.validate()?;
    for series in &sweep.series {
        let mut params = ParamSet::merged(&[&sweep.parameters, &series.parameters]);
        if sweep.axis.evaluation == crate::spec::Evaluation::Sweep {
            params.set(&sweep.axis.parameter, toml::Value::Float(0.0));
        }
        params
            .check_known(&**model)
            .map_err(|e| format!("series `{}`: {e}", series.name))?;
    }
    if !["figure", "table"].contains(&spec.kind.as_str()) {
        return Err(format!(
            "kind must be `figure` or `table`, got `{}`",
            spec.kind
        ));
    }
    if spec.metrics.is_empty() {
        return Err("`metrics` is empty".into());
    }
    for m in spec.metrics.iter().chain(spec.floors.keys()) {
        if !model.metrics().contains(&m.as_str()) {
            return Err(format!(
                "model `{}` has no metric `{m}`; it measures {}",
                model.name(),
                model.metrics().join(", ")
            ));
        }
    }
    if crate::output::is_timing_metric(&spec.plot.metric) {
        return Err(format!(
            "plot metric `{}` is wall-clock time: plots must be reproducible (plot an operation count)",
            spec.plot.metric
        ));
    }
    if !spec.metrics.contains(&spec.plot.metric) {
        return Err(format!(
            "plot metric `{}` is not in `metrics`",
            spec.plot.metric
        ));
    }
    if let Some(panels) = &spec.plot.panels {
        if spec.plot.kind != FigureKind::Lines {
            return Err("plot panels are for line charts only".to_string());
        }
        if spec.plot.series.is_some() {
            return Err("plot has both `series` and `panels`: give the series per panel".into());
        }
        if panels.is_empty() || panels.iter().any(|p| p.series.is_empty()) {
            return Err("plot panels must be non-empty, each with at least one series".into());
        }
        for m in panels.iter().filter_map(|p| p.metric.as_ref()) {
            if crate::output::is_timing_metric(m) {
                return Err(format!(
                    "panel metric `{m}` is wall-clock time: plots must be reproducible"
                ));
            }
            if !spec.metrics.contains(m) {
                return Err(format!("panel metric `{m}` is not in `metrics`"));
            }
        }
    }
    let panel_series = spec.plot.panels.iter().flatten().flat_map(|p| &p.series);
    for s in spec.plot.series.iter().flatten().chain(panel_series) {
        if !sweep.series.iter().any(|x| &x.name == s) {
            return Err(format!(
                "plot series `{s}` is not a series of sweep `{}`",
                sweep.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWEEP: &str = "name = \"s\"\nmodel = \"toy\"\n[axis]\nparameter = \"segments\"\nlabel = \"N\"\npaper = [1]\n[[series]]\nname = \"sas\"\n[scales.quick]\nreplications = 1\njobs = 1\n[scales.paper]\nreplications = 1\njobs = 1\n";

    fn entry(id: &str) -> String {
        format!(
            "id = \"{id}\"\ntitle = \"t\"\nkind = \"figure\"\ncaption = \"c\"\nsweep = \"s\"\nmetrics = [\"makespan\"]\n[plot]\nmetric = \"makespan\"\ny_label = \"y\"\n"
        )
    }

    #[test]
    fn entries_belong_to_registered_documents_and_models() {
        let load = |id: &str, catalog: Catalog| {
            Registry::from_sources(
                &[("x/sweeps/s.toml", SWEEP), ("x/e.toml", &entry(id))],
                catalog,
            )
        };
        let reg = load("toy-fig-1", crate::testing::catalog(vec![])).unwrap();
        assert_eq!(reg.all()[0].paper.key, "toy");
        assert_eq!(reg.all()[0].model.name(), "toy");
        assert_eq!(reg.papers().len(), 1);
        let e = load("other-fig-1", crate::testing::catalog(vec![])).unwrap_err();
        assert!(
            e.to_string().contains("key of a registered document"),
            "{e}"
        );
        let e = load("toy-fig-1", Catalog::new()).unwrap_err();
        assert!(e.to_string().contains("registered document"), "{e}");
        let no_models = Catalog::new().document(&crate::testing::TOY, vec![]);
        let e = load("toy-fig-1", no_models).unwrap_err();
        assert!(e.to_string().contains("unknown model `toy`"), "{e}");
        let twice = crate::testing::catalog(vec![Box::new(crate::testing::ToyModel)]);
        let e = load("toy-fig-1", twice).unwrap_err();
        assert!(e.to_string().contains("two models are named `toy`"), "{e}");
    }

    #[test]
    fn natural_order() {
        let mut ids = vec!["castillo-fig-3.10", "castillo-fig-3.9", "castillo-fig-3.4"];
        ids.sort_by_key(|a| natural_key(a));
        assert_eq!(
            ids,
            ["castillo-fig-3.4", "castillo-fig-3.9", "castillo-fig-3.10"]
        );
    }
}
