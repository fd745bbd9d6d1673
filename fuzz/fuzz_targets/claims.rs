//! Fuzzes the claim language (`gridsched_repro::claims`): an arbitrary `expect` / `where` /
//! `holds` over an arbitrary table (metrics `m`, `n`, series `a`, `b`, up to six points, means
//! and half-widths from the input, NaN and infinities included). Parsing gives a claim or an
//! error naming the field; evaluation gives a verdict, never a panic or a hang (libFuzzer's
//! timeout). A single comparison of a cell with a number (`m[a] > 0.5`) over a table whose
//! every mean is NaN is never PASS: a NaN comparison is false (the language's rule; `not`
//! of one is true, by the same rule, and constant expressions hold whatever the table).
//! Run: `cargo +nightly fuzz run claims`.
#![no_main]

use gridsched_repro::claims::{Verdict, parse_claim};
use gridsched_repro::table::{Cell, Lookup};
use libfuzzer_sys::fuzz_target;

struct Table {
    xs: Vec<f64>,
    /// (metric, series, x index) -> cell
    cells: Vec<((usize, usize, usize), Cell)>,
}

const METRICS: [&str; 2] = ["m", "n"];
const SERIES: [&str; 2] = ["a", "b"];

impl Lookup for Table {
    fn xs(&self) -> Vec<f64> {
        self.xs.clone()
    }
    fn cell(&self, metric: &str, series: &str, x: f64) -> Option<Cell> {
        let m = METRICS.iter().position(|&n| n == metric)?;
        let s = SERIES.iter().position(|&n| n == series)?;
        let i = self.xs.iter().position(|&v| v == x)?;
        self.cells
            .iter()
            .find(|(k, _)| *k == (m, s, i))
            .map(|(_, c)| *c)
    }
    fn floor(&self, _metric: &str) -> f64 {
        0.0
    }
}

fn number(b: u8) -> f64 {
    match b {
        0xff => f64::NAN,
        0xfe => f64::INFINITY,
        0xfd => f64::NEG_INFINITY,
        b => f64::from(b) / 8.0 - 4.0,
    }
}

/// Whether `expect` is one comparison of a cell with a number, `m[a] <op> <number>`.
fn single_comparison(expect: &str) -> bool {
    let t: String = expect.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(rest) = METRICS
        .iter()
        .find_map(|m| t.strip_prefix(m))
        .and_then(|r| r.strip_prefix('['))
        .and_then(|r| SERIES.iter().find_map(|s| r.strip_prefix(s)))
        .and_then(|r| r.strip_prefix(']'))
    else {
        return false;
    };
    ["<=", ">=", "==", "!=", "<", ">"]
        .iter()
        .find_map(|op| rest.strip_prefix(op))
        .is_some_and(|n| n.parse::<f64>().is_ok_and(f64::is_finite))
}

fuzz_target!(|data: &[u8]| {
    // Text up to the first 0 byte; the rest is the table.
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let Ok(text) = std::str::from_utf8(&data[..split]) else {
        return;
    };
    let numbers = data.get(split + 1..).unwrap_or(&[]);
    let mut lines = text.splitn(3, '\n');
    let expect = lines.next().unwrap_or("");
    let r#where = lines.next().filter(|s| !s.is_empty());
    let holds = lines.next().filter(|s| !s.is_empty());
    let mut spec = toml::Table::new();
    spec.insert("id".into(), "fz".into());
    spec.insert("quote".into(), "q".into());
    spec.insert("expect".into(), expect.into());
    if let Some(w) = r#where {
        spec.insert("where".into(), w.into());
    }
    if let Some(h) = holds {
        spec.insert("holds".into(), h.into());
    }
    let Ok(spec) = toml::Value::Table(spec).try_into() else {
        return;
    };
    let claim = match parse_claim(&spec) {
        Ok(c) => c,
        Err(e) => {
            let m = e.to_string();
            assert!(m.contains("fz"), "error does not name the claim: {m}");
            return;
        }
    };
    let points = usize::from(numbers.first().copied().unwrap_or(3) % 7);
    let xs: Vec<f64> = (0..points).map(|i| i as f64).collect();
    let mut cells = Vec::new();
    let mut it = numbers.iter().skip(1).copied();
    let mut all_nan = true;
    for m in 0..METRICS.len() {
        for s in 0..SERIES.len() {
            for i in 0..points {
                let (Some(mean), Some(hw), Some(runs)) = (it.next(), it.next(), it.next()) else {
                    continue;
                };
                let mean = number(mean);
                all_nan &= mean.is_nan();
                let hw = number(hw).abs();
                cells.push((
                    (m, s, i),
                    Cell {
                        mean,
                        half_width: hw,
                        sd: hw,
                        runs: usize::from(runs % 12),
                    },
                ));
            }
        }
    }
    let table = Table { xs, cells };
    for paper in [false, true] {
        let o = claim.evaluate(&table, paper);
        assert!(o.satisfied <= o.points.len());
        if all_nan && !table.cells.is_empty() && single_comparison(expect) {
            assert_ne!(o.verdict, Verdict::Pass, "NaN-as-PASS: {text:?}");
        }
    }
});
