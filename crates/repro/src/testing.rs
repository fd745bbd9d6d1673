//! Test doubles: a document and a model that exercise the harness without any paper code.

use gridsched_sim::StreamKey;
use rand::Rng;

use crate::model::{Gantt, Measurement, Model, ModelError, ParamSet};
use crate::papers::{Catalog, Paper};
use crate::plot::GanttBar;

/// The test document: ids `toy-...`.
pub static TOY: Paper = Paper {
    key: "toy",
    seed: "900",
    citation: "A toy document for the harness's own tests",
    short: "Toy",
    spec: "toy.md",
};

/// Name of [`ToyModel`].
pub const TOY_MODEL: &str = "toy";

/// A model with a known answer: `makespan` is 6.2 for the series `heuristic = "sas"` and 7.0
/// otherwise, times `case` when given (default 1), plus a uniform draw in `[0, noise)` from
/// the replication's stream (default no noise); `utilization` is `1 / makespan`. Its Gantt
/// chart is ten tasks `t1`..`t10` on rows `R1`..`R4` ending at the makespan.
#[derive(Debug, Clone, Copy)]
pub struct ToyModel;

impl ToyModel {
    fn makespan(params: &ParamSet, key: &StreamKey) -> Result<f64, ModelError> {
        let base = match params.str_or("heuristic", "sas")? {
            "sas" => 6.2,
            _ => 7.0,
        };
        let noise = params.f64_or("noise", 0.0)?;
        let draw = if noise > 0.0 {
            noise * key.rng().random::<f64>()
        } else {
            0.0
        };
        Ok(base * params.f64_or("case", 1.0)? + draw)
    }
}

impl Model for ToyModel {
    fn name(&self) -> &'static str {
        TOY_MODEL
    }
    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("heuristic", "sas (6.2) or anything else (7.0)"),
            ("segments", "accepted and ignored (an axis to sweep)"),
            ("case", "multiplies the makespan"),
            ("noise", "width of a uniform draw added to the makespan"),
        ]
    }
    fn metrics(&self) -> &'static [&'static str] {
        &["makespan", "utilization"]
    }
    fn run(&self, params: &ParamSet, key: &StreamKey, _: u64) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let m = Self::makespan(params, key)?;
        Ok(vec![("makespan", m), ("utilization", 1.0 / m)])
    }
    fn gantt(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        _: u64,
    ) -> Result<Option<Gantt>, ModelError> {
        let end = Self::makespan(params, key)?;
        let bars = (0..10)
            .map(|t| {
                let row = t % 4;
                let slot = (t / 4) as f64;
                let last = t + 4 >= 10;
                GanttBar {
                    row,
                    start: slot * 2.0,
                    end: if last && row == 0 {
                        end
                    } else {
                        slot * 2.0 + 1.5
                    },
                    label: format!("t{}", t + 1),
                }
            })
            .collect();
        Ok(Some(Gantt {
            rows: (1..=4).map(|r| format!("R{r}")).collect(),
            bars,
            time_label: "Time".into(),
        }))
    }
}

/// A catalog with the toy document and model (plus any extra models).
pub fn catalog(extra: Vec<Box<dyn Model>>) -> Catalog {
    let mut models: Vec<Box<dyn Model>> = vec![Box::new(ToyModel)];
    models.extend(extra);
    Catalog::new().document(&TOY, models)
}
