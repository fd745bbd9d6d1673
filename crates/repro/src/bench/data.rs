//! Criterion's results as rows of named fields, the records benches write beside them, and
//! the number formats of the report.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::spec::{RecordRef, SourceSpec};
use crate::HarnessError;

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

/// Every benchmark under criterion's output directory `dir` (its `new/` results; `base/`
/// copies and criterion's `report/` pages are ignored), sorted by (group, function, value).
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

/// A field value: a number where the text parses as one (compared numerically, printed as
/// Rust prints an `f64`: `0.5`, `200`), else text.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Num(f64),
    Text(String),
}

impl Val {
    /// Reads a field from its text.
    pub fn parse(s: &str) -> Val {
        let t = s.trim();
        match t.parse::<f64>() {
            Ok(x) if x.is_finite() => Val::Num(x),
            _ => Val::Text(t.to_string()),
        }
    }

    /// The number, if it is one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Val::Num(x) => Some(*x),
            Val::Text(_) => None,
        }
    }

    /// Equal as numbers, or as text.
    pub fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Num(a), Val::Num(b)) => a == b,
            (a, b) => a.to_string() == b.to_string(),
        }
    }

    fn natural_cmp(&self, other: &Val) -> Ordering {
        match (self, other) {
            (Val::Num(a), Val::Num(b)) => a.total_cmp(b),
            (Val::Num(_), Val::Text(_)) => Ordering::Less,
            (Val::Text(_), Val::Num(_)) => Ordering::Greater,
            (Val::Text(a), Val::Text(b)) => a.cmp(b),
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Num(x) => write!(f, "{x}"),
            Val::Text(s) => f.write_str(s),
        }
    }
}

/// One benchmark point: its fields (group captures and value keys) and its result per
/// function id.
#[derive(Debug, Clone)]
pub struct Row {
    pub fields: Vec<(String, Val)>,
    pub results: BTreeMap<String, BenchResult>,
}

impl Row {
    /// A field's value.
    pub fn get(&self, name: &str) -> Option<&Val> {
        self.fields.iter().find(|f| f.0 == name).map(|f| &f.1)
    }

    /// The result of the first function id in `functions` that the row has.
    pub fn time(&self, functions: &[String]) -> Option<&BenchResult> {
        functions.iter().find_map(|f| self.results.get(f))
    }

    /// `time(num) / time(den)`.
    pub fn ratio(&self, [num, den]: &[Vec<String>; 2]) -> Option<f64> {
        Some(self.time(num)?.mean_ns / self.time(den)?.mean_ns)
    }

    /// Whether every `(field, value)` of `filter` matches.
    pub fn matches(&self, filter: &BTreeMap<String, String>) -> bool {
        filter
            .iter()
            .all(|(k, v)| self.get(k).is_some_and(|x| x.same(&Val::parse(v))))
    }

    /// Whether the row has the fields of `key` with equal values.
    pub fn has(&self, key: &[(String, Val)]) -> bool {
        key.iter()
            .all(|(k, v)| self.get(k).is_some_and(|x| x.same(v)))
    }

    /// The values of `names`, as a key.
    pub fn key(&self, names: &[String]) -> Vec<(String, Val)> {
        names
            .iter()
            .filter_map(|n| self.get(n).map(|v| (n.clone(), v.clone())))
            .collect()
    }
}

/// Captures the `{field}`s of a pattern such as `solve/{algorithm}` in `text` (a capture runs
/// to the next literal, the last one to the end; none may be empty).
fn capture(pattern: &str, text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut pat = pattern;
    while !pat.is_empty() {
        if let Some(after) = pat.strip_prefix('{') {
            let close = after.find('}')?;
            let name = &after[..close];
            pat = &after[close + 1..];
            let literal_end = pat.find('{').unwrap_or(pat.len());
            let literal = &pat[..literal_end];
            let taken = if literal.is_empty() {
                rest.len()
            } else {
                rest.find(literal)?
            };
            if taken == 0 {
                return None;
            }
            out.push((name.to_string(), rest[..taken].to_string()));
            rest = &rest[taken..];
        } else {
            let literal_end = pat.find('{').unwrap_or(pat.len());
            rest = rest.strip_prefix(&pat[..literal_end])?;
            pat = &pat[literal_end..];
        }
    }
    rest.is_empty().then_some(out)
}

/// `k=v,k=v` with exactly the keys `keys`.
fn value_fields(value: &str, keys: &[String]) -> Option<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for part in value.split(',') {
        let (k, v) = part.split_once('=')?;
        let k = k.trim();
        if !keys.iter().any(|x| x == k) {
            return None;
        }
        out.push((k.to_string(), v.trim().to_string()));
    }
    keys.iter()
        .all(|k| out.iter().any(|(x, _)| x == k))
        .then_some(out)
}

/// Rank of a value in a field's explicit order (listed values first).
fn rank(order: &BTreeMap<String, Vec<String>>, field: &str, v: &Val) -> usize {
    order
        .get(field)
        .and_then(|list| list.iter().position(|x| Val::parse(x).same(v)))
        .unwrap_or(usize::MAX)
}

/// Compares two rows by `sort` fields (explicit orders first).
pub fn compare(
    a: &[(String, Val)],
    b: &[(String, Val)],
    sort: &[String],
    order: &BTreeMap<String, Vec<String>>,
) -> Ordering {
    let get = |row: &[(String, Val)], k: &str| row.iter().find(|f| f.0 == k).map(|f| f.1.clone());
    for k in sort {
        let (x, y) = (get(a, k), get(b, k));
        let ord = match (&x, &y) {
            (Some(x), Some(y)) => rank(order, k, x)
                .cmp(&rank(order, k, y))
                .then_with(|| x.natural_cmp(y)),
            _ => x.is_some().cmp(&y.is_some()),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// The rows of `source` among `results`, in its order.
pub fn rows(source: &SourceSpec, results: &[BenchResult]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for r in results {
        let Some(group) = capture(&source.group, &r.group) else {
            continue;
        };
        let Some(value) = r
            .value
            .as_deref()
            .and_then(|v| value_fields(v, &source.value))
        else {
            continue;
        };
        let function = r.function.clone().unwrap_or_default();
        if source
            .functions
            .as_ref()
            .is_some_and(|f| !f.contains(&function))
        {
            continue;
        }
        let fields: Vec<(String, Val)> = group
            .into_iter()
            .chain(value)
            .map(|(k, v)| (k, Val::parse(&v)))
            .collect();
        match rows.iter_mut().find(|row| row.has(&fields)) {
            Some(row) => {
                row.results.insert(function, r.clone());
            }
            None => rows.push(Row {
                fields,
                results: BTreeMap::from([(function, r.clone())]),
            }),
        }
    }
    rows.sort_by(|a, b| compare(&a.fields, &b.fields, &source.sort, &source.order));
    rows
}

/// Distinct values of `names` over `rows`, in row order, then stably sorted by `sort`.
pub fn distinct(rows: &[&Row], names: &[String], sort: &[String]) -> Vec<Vec<(String, Val)>> {
    let mut out: Vec<Vec<(String, Val)>> = Vec::new();
    for r in rows {
        let k = r.key(names);
        if k.len() == names.len()
            && !out
                .iter()
                .any(|x| x.iter().zip(&k).all(|(a, b)| a.1.same(&b.1)))
        {
            out.push(k);
        }
    }
    out.sort_by(|a, b| compare(a, b, sort, &BTreeMap::new()));
    out
}

/// A CSV that a bench writes beside criterion's results: a header, then records.
#[derive(Debug, Clone, Default)]
pub struct Record {
    columns: Vec<String>,
    lines: Vec<Vec<Val>>,
}

impl Record {
    /// Reads `path` (empty when absent); a line whose field count differs from the header's
    /// is an error naming file and line.
    pub fn read(path: &Path) -> Result<Record, HarnessError> {
        if !path.is_file() {
            return Ok(Record::default());
        }
        let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
        let mut lines = text.lines();
        let columns: Vec<String> = lines
            .next()
            .unwrap_or("")
            .split(',')
            .map(|c| c.trim().to_string())
            .collect();
        let mut out = Vec::new();
        for (i, line) in lines.enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let f: Vec<Val> = line.split(',').map(Val::parse).collect();
            if f.len() != columns.len() {
                return Err(HarnessError::Data(format!(
                    "{}:{}: bad record `{line}`: {} fields, the header has {}",
                    path.display(),
                    i + 2,
                    f.len(),
                    columns.len()
                )));
            }
            out.push(f);
        }
        Ok(Record {
            columns,
            lines: out,
        })
    }

    /// The last line matching the row (every column named like one of its fields) and
    /// `filter`: its `column`.
    pub fn lookup(
        &self,
        row: &Row,
        column: &str,
        filter: &BTreeMap<String, String>,
    ) -> Option<&Val> {
        let c = self.columns.iter().position(|x| x == column)?;
        let checks: Vec<(usize, Val)> = self
            .columns
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                filter
                    .get(name)
                    .map(|v| Val::parse(v))
                    .or_else(|| row.get(name).cloned())
                    .map(|v| (i, v))
            })
            .collect();
        self.lines
            .iter()
            .rev()
            .find(|l| checks.iter().all(|(i, v)| l[*i].same(v)))
            .map(|l| &l[c])
    }
}

/// The records of a report, by name.
pub type Records = BTreeMap<String, Record>;

/// A record value for a row.
pub fn record_value<'a>(records: &'a Records, r: &RecordRef, row: &Row) -> Option<&'a Val> {
    records.get(&r.record)?.lookup(row, &r.column, &r.filter)
}

/// Time in µs with three significant digits.
pub fn us(ns: f64) -> String {
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

/// A ratio with three significant digits and `×`.
pub fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}×")
    } else if x >= 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.2}×")
    }
}

/// Least-squares slope of `ln y` against `ln x`.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
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

/// Log-log slope of a time proportional to `log2 x` over the same `x` values (the yardstick
/// for "grows no faster than O(log x)").
pub fn log_slope(xs: &[f64]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = xs.iter().map(|&n| (n, n.log2())).collect();
    log_log_slope(&pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_capture_fields() {
        let c = capture("solve/{algorithm}", "solve/quick-sort").unwrap();
        assert_eq!(c, [("algorithm".to_string(), "quick-sort".to_string())]);
        let c = capture("ops/{op}", "ops/select/first").unwrap();
        assert_eq!(c[0].1, "select/first");
        assert!(capture("solve/{s}", "other/x").is_none());
        assert!(capture("solve/{s}", "solve/").is_none());
        let c = capture("{a}-{b}/x", "p-q/x").unwrap();
        assert_eq!((c[0].1.as_str(), c[1].1.as_str()), ("p", "q"));
    }

    #[test]
    fn values_need_exactly_their_keys() {
        let keys = ["n".to_string(), "rho".to_string()];
        assert!(value_fields("n=20,rho=0.5", &keys).is_some());
        assert!(value_fields("rho=0.5,n=20", &keys).is_some());
        assert!(value_fields("n=20", &keys).is_none());
        assert!(value_fields("n=20,rho=0.5,L=2", &keys).is_none());
        assert!(value_fields("garbage", &keys).is_none());
    }

    #[test]
    fn numbers_compare_and_print_as_numbers() {
        assert!(Val::parse("0.90").same(&Val::parse("0.9")));
        assert_eq!(Val::parse("200").to_string(), "200");
        assert_eq!(Val::parse("quick-sort").to_string(), "quick-sort");
        assert_eq!(us(1234.0), "1.23");
        assert_eq!(ratio(153.2), "153×");
        let s = log_slope(&[200.0, 2000.0, 20000.0]).unwrap();
        assert!((s - 0.14).abs() < 0.01, "{s}");
    }

    #[test]
    fn bad_records_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.csv");
        std::fs::write(&p, "a,b,c\n1,2,3\n1,2\n").unwrap();
        let e = Record::read(&p).unwrap_err().to_string();
        assert!(e.contains("r.csv:3: bad record `1,2`"), "{e}");
        assert!(Record::read(&dir.path().join("absent.csv")).is_ok());
    }
}
