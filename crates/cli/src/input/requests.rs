//! The inputs of `schedule reservation` and `schedule hetero`: a request CSV
//! (`workload::read_requests` parses and validates it row by row, refusing duplicate ids) and
//! the servers' rates (`--rates`, `--rates-file`).

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use gridsched_workload::{RequestFile, RequestLimits, read_requests};

/// The requests of the file at `path`, each checked against `limits`.
pub fn read(path: &Path, limits: &RequestLimits) -> Result<RequestFile> {
    super::file(path)?;
    Ok(read_requests(path, limits)?)
}

/// Parses one rate, which must be a number in (0, 1].
fn parse_rate(text: &str) -> Result<f64, String> {
    let r: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number", text.trim()))?;
    if !(r.is_finite() && r > 0.0 && r <= 1.0) {
        return Err(format!("rate {r} is not in (0, 1]"));
    }
    Ok(r)
}

/// `--rates R1,R2,...`: server i gets the i-th rate.
pub fn rates_list(list: &[String]) -> Result<Vec<f64>> {
    list.iter()
        .enumerate()
        .map(|(i, t)| parse_rate(t).map_err(|e| anyhow!("--rates: server {i}: {e}")))
        .collect()
}

/// A rates file: one rate per line, `#` comments, blank lines skipped; at least one rate.
pub fn rates_file(path: &Path) -> Result<Vec<f64>> {
    super::file(path)?;
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let mut rates = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let rate = parse_rate(content).map_err(|e| anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        rates.push(rate);
    }
    if rates.is_empty() {
        bail!("{}: no server rates (one rate per line)", path.display());
    }
    Ok(rates)
}
