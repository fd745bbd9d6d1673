//! The result table of one experiment: per-run metric values, summarised per
//! (metric, series, x) cell with a Student-t 95% confidence interval.

use std::collections::BTreeMap;

/// One measured value: metric `metric` of series `series` at sweep value `x`, replication `run`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunValue {
    pub x: f64,
    pub series: String,
    pub run: u32,
    pub metric: String,
    pub value: f64,
}

/// Mean and 95% confidence-interval half-width of one (metric, series, x) cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub mean: f64,
    /// Half-width of the Student-t 95% CI; 0 when there is a single run.
    pub half_width: f64,
    /// Sample standard deviation (n − 1); 0 when there is a single run.
    pub sd: f64,
    pub runs: usize,
}

/// Read access to a summarised result table, as claims and plots need it.
pub trait Lookup {
    /// Sweep values present in the table, ascending.
    fn xs(&self) -> Vec<f64>;
    /// The summary of one cell, if it was run.
    fn cell(&self, metric: &str, series: &str, x: f64) -> Option<Cell>;
    /// Absolute tolerance floor of a metric (e.g. 0.002 for rates); 0 if none was declared.
    fn floor(&self, metric: &str) -> f64;
}

/// Key used to store x values exactly (f64 bit patterns sort like numbers for finite non-negative values,
/// but we keep negative values correct by using the total order).
pub(crate) fn x_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    if bits < 0 { bits ^ i64::MAX } else { bits }
}

/// The sample standard deviation (n − 1 denominator); 0 below two values.
fn sample_sd(sample: &[f64]) -> f64 {
    let n = sample.len();
    if n < 2 {
        return 0.0;
    }
    let mean = sample.iter().sum::<f64>() / n as f64;
    let ss: f64 = sample.iter().map(|v| (v - mean) * (v - mean)).sum();
    (ss / (n - 1) as f64).sqrt()
}

/// A summarised table built from per-run values.
#[derive(Debug, Clone, Default)]
pub struct SummaryTable {
    cells: BTreeMap<(String, String, i64), Cell>,
    xs: Vec<f64>,
    floors: BTreeMap<String, f64>,
}

impl SummaryTable {
    /// Summarise per-run values; `ci` maps a sample to (mean, half-width).
    pub fn from_runs(values: &[RunValue], ci: impl Fn(&[f64]) -> (f64, f64)) -> Self {
        type Runs = (f64, Vec<(u32, f64)>);
        let mut groups: BTreeMap<(String, String, i64), Runs> = BTreeMap::new();
        for v in values {
            groups
                .entry((v.metric.clone(), v.series.clone(), x_key(v.x)))
                .or_insert_with(|| (v.x, Vec::new()))
                .1
                .push((v.run, v.value));
        }
        let mut cells = BTreeMap::new();
        let mut xs: Vec<f64> = Vec::new();
        for (key, (x, mut runs)) in groups {
            runs.sort_by_key(|r| r.0);
            let sample: Vec<f64> = runs.iter().map(|r| r.1).collect();
            let (mean, half_width) = ci(&sample);
            cells.insert(
                key,
                Cell {
                    mean,
                    half_width,
                    sd: sample_sd(&sample),
                    runs: sample.len(),
                },
            );
            if !xs.contains(&x) {
                xs.push(x);
            }
        }
        xs.sort_by(f64::total_cmp);
        SummaryTable {
            cells,
            xs,
            floors: BTreeMap::new(),
        }
    }

    /// Declare the absolute tolerance floor of a metric.
    pub fn set_floor(&mut self, metric: &str, floor: f64) {
        self.floors.insert(metric.to_string(), floor);
    }

    /// All (metric, series) pairs present.
    pub fn series_of(&self, metric: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .cells
            .keys()
            .filter(|k| k.0 == metric)
            .map(|k| k.1.clone())
            .collect();
        out.dedup();
        out
    }
}

impl Lookup for SummaryTable {
    fn xs(&self) -> Vec<f64> {
        self.xs.clone()
    }
    fn cell(&self, metric: &str, series: &str, x: f64) -> Option<Cell> {
        self.cells
            .get(&(metric.to_string(), series.to_string(), x_key(x)))
            .copied()
    }
    fn floor(&self, metric: &str) -> f64 {
        self.floors.get(metric).copied().unwrap_or(0.0)
    }
}
