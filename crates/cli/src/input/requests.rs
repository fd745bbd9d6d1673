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
    parse_rates(&text, &path.display().to_string())
}

/// The text of a rates file (`origin` names it in errors, which give `origin:line:`): one
/// rate in (0, 1] per line, `#` starts a comment, blank lines are skipped; at least one rate.
pub fn parse_rates(text: &str, origin: &str) -> Result<Vec<f64>> {
    let mut rates = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let rate = parse_rate(content).map_err(|e| anyhow!("{origin}:{}: {e}", i + 1))?;
        rates.push(rate);
    }
    if rates.is_empty() {
        bail!("{origin}: no server rates (one rate per line)");
    }
    Ok(rates)
}

#[cfg(test)]
mod tests {
    use super::parse_rates;

    #[test]
    fn rates_files_name_their_line() {
        assert_eq!(
            parse_rates("1\n0.5 # slow\n\n# comment\n0.25\n", "r.txt").unwrap(),
            vec![1.0, 0.5, 0.25]
        );
        for (text, needle) in [
            ("1\n2\n", "r.txt:2: rate 2 is not in (0, 1]"),
            ("0.5\nfast\n", "r.txt:2: `fast` is not a number"),
            ("NaN\n", "r.txt:1: rate NaN is not in (0, 1]"),
            ("# only a comment\n\n", "r.txt: no server rates"),
        ] {
            let e = parse_rates(text, "r.txt").unwrap_err().to_string();
            assert!(e.starts_with(needle), "{text:?}: {e}");
        }
    }
}
