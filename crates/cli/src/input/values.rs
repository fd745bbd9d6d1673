//! Option values with units that single commands take (the log-time options are in
//! [`super::times`]): sizes in bytes, durations in milliseconds, seconds or hours, ranges.
//! Each grammar is the one its option documents; they differ on purpose where the options do
//! (`coalloc`'s durations default to seconds, `--min-fragment` to hours, `hierarchy`'s means
//! need a unit and take weeks). Public so that the `values` fuzz target reaches every one of
//! them: any text gives a value within the bounds stated here or an error quoting the text,
//! never a panic.

use anyhow::{Context, Result, bail};
use gridsched_hierarchical::hierarchy::OsChanges;
use gridsched_sim::{MAX_SECONDS, MAX_SECONDS_TEXT};

/// `hierarchy --size` and `hierarchy delay --bytes`: a size with a decimal unit (`B`, `KB`, `MB`, `GB`, case-insensitive) in bytes; at least
/// one byte, whole bytes.
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    if split == t.len() {
        bail!("size `{text}` has no unit: write e.g. 100B, 64KB, 312.7MB or 10GB");
    }
    let (number, unit) = (t[..split].trim(), &t[split..]);
    let scale: f64 = match unit.to_ascii_uppercase().as_str() {
        "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => bail!(
            "size `{text}`: unknown unit `{unit}` (B, KB, MB or GB; decimal, 1GB = 10^9 bytes)"
        ),
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && !number.starts_with(['+', '-']))
        .with_context(|| format!("size `{text}`: `{number}` is not a number"))?;
    let bytes = value * scale;
    if bytes <= 0.0 {
        bail!("size `{text}` must be positive");
    }
    if bytes > 1e15 {
        bail!("size `{text}` is too large (at most 1,000,000GB)");
    }
    let whole = bytes.round();
    if (bytes - whole).abs() > 1e-6 * bytes.max(1.0) {
        bail!("size `{text}` is not a whole number of bytes");
    }
    // A positive size below half a byte is within the tolerance of 0 (found by the `values`
    // fuzz target: `.000…07B` was 0 bytes).
    if whole < 1.0 {
        bail!("size `{text}` is less than one byte");
    }
    Ok(whole as u64)
}

/// `hierarchy --os-changes`: `thesis` or a comma list of durations with a unit (ms, s, min, h, d, w).
pub fn parse_os_changes(text: &str) -> Result<OsChanges> {
    if text.trim().eq_ignore_ascii_case("thesis") {
        return Ok(OsChanges::thesis());
    }
    let means = text
        .split(',')
        .map(|d| {
            let ms = parse_duration_ms(d.trim())?;
            if ms < MIN_OS_CHANGE_MS {
                bail!(
                    "`{}` is too short: an OS-change mean must be at least 1 s (each of the grid's 520 servers changes about once per mean, so a run of simulated hours at shorter means takes billions of changes; the thesis's means are days to months)",
                    d.trim()
                );
            }
            Ok(ms)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(OsChanges::with_means(means))
}

/// The shortest OS-change mean `--os-changes` accepts, ms.
pub const MIN_OS_CHANGE_MS: u64 = 1_000;

/// A mean of `hierarchy` (an OS-change interval): a positive duration with a unit (`ms`, `s`, `min`, `h`, `d`, `w`), in whole ms.
pub fn parse_duration_ms(text: &str) -> Result<u64> {
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .with_context(|| format!("`{text}`: a duration needs a unit (ms, s, min, h, d, w)"))?;
    let (num, unit) = text.split_at(split);
    let value: f64 = num
        .trim()
        .parse()
        .with_context(|| format!("`{text}`: `{num}` is not a number"))?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "ms" => 1.0,
        "s" => 1e3,
        "min" | "m" => 6e4,
        "h" => 3.6e6,
        "d" => 8.64e7,
        "w" | "wk" => 6.048e8,
        u => bail!("`{text}`: unknown unit `{u}` (ms, s, min, h, d, w)"),
    };
    let ms = (value * scale).round();
    if ms > MAX_MEAN_MS as f64 {
        bail!("`{text}` is too large: a mean must be at most {MAX_MEAN_HOURS} h");
    }
    if ms.is_nan() || ms < 1.0 {
        bail!("`{text}`: a duration must be at least 1 ms");
    }

    Ok(ms as u64)
}

/// The longest mean think time or OS-change interval: 1,000,000 hours (about 114 years; the
/// thesis's longest is 180 days). Draws are Exp(mean) in whole milliseconds, up to about 37
/// means each, and a workstation adds one per job to its clock (`u64` milliseconds): a larger
/// mean would be clamped or overflow instead of being simulated.
pub const MAX_MEAN_HOURS: u64 = 1_000_000;
pub const MAX_MEAN_MS: u64 = MAX_MEAN_HOURS * 3_600_000;

/// `coalloc`'s durations (`--max-wait`, `--step`, ...): a number with an optional unit `s` (default), `m`, `h` or `d`, e.g. `15m`,
/// `50h`, `900s`, `1.5h`, `900`. Rounded to whole seconds; from 1 s to
/// [`MAX_SECONDS`] (10^12 s).
pub fn parse_duration_s(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let (num, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let factor = match unit.trim() {
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        u => {
            return Err(format!(
                "`{text}`: unknown unit `{u}` (use s, m, h or d, e.g. 15m)"
            ));
        }
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 15m, 50h, 900s)"))?;
    let secs = (v * factor).round();
    if secs > MAX_SECONDS as f64 {
        return Err(format!(
            "`{text}` is too large: a duration must be at most {MAX_SECONDS_TEXT}"
        ));
    }
    if secs.is_nan() || secs < 1.0 {
        return Err(format!("`{text}`: a duration must be at least 1 s"));
    }
    Ok(secs as i64)
}

/// `schedule hetero --min-fragment`: hours, a number, or a number with the unit `s`, `min` or `h` (`1min` is exactly 1/60).
pub fn parse_hours(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, per_hour) = if let Some(n) = t.strip_suffix("min") {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 3600.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{t}` is not a duration (hours, or 30s, 1min, 2h)"))?;
    Ok(v / per_hour)
}

/// `map generate --mips-range`: `LOW,HIGH`, two numbers (their range is checked by the
/// generator).
pub fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s.split_once(',').ok_or("expected LOW,HIGH")?;
    let num = |v: &str| {
        v.trim()
            .parse::<f64>()
            .map_err(|_| format!("`{v}` is not a number"))
    };
    Ok((num(a)?, num(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_reservation::hetero::ONE_MINUTE;

    #[test]
    fn sizes_are_decimal() {
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("312.7MB").unwrap(), 312_700_000);
        assert_eq!(parse_size("64kb").unwrap(), 64_000);
        assert_eq!(parse_size("100B").unwrap(), 100);
        assert_eq!(parse_size("10 GB").unwrap(), 10_000_000_000);
        for bad in [
            "0GB",
            "0",
            "10",
            "-1GB",
            "1TB",
            "GB",
            "1.5B",
            "abcMB",
            "nanGB",
            "+1GB",
            "0.0000001B",
            ".000000000000000000000000007B",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn os_change_means_parse_with_units() {
        assert_eq!(parse_os_changes("thesis").unwrap(), OsChanges::thesis());
        assert_eq!(
            parse_os_changes("6h, 1w").unwrap().means_ms,
            vec![21_600_000, 604_800_000]
        );
        assert_eq!(parse_duration_ms("90s").unwrap(), 90_000);
        assert_eq!(parse_duration_ms("1.5min").unwrap(), 90_000);
        // A mean too large said "at least 1 ms".
        assert_eq!(
            parse_duration_ms("1000000000000000h")
                .unwrap_err()
                .to_string(),
            "`1000000000000000h` is too large: a mean must be at most 1000000 h"
        );
        assert_eq!(parse_duration_ms("1000000h").unwrap(), MAX_MEAN_MS);
        for bad in ["", "1", "h", "0d", "-1d", "1y", "nand", "1d,"] {
            assert!(parse_os_changes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_s("15m"), Ok(900));
        assert_eq!(parse_duration_s("50h"), Ok(180_000));
        assert_eq!(parse_duration_s("900s"), Ok(900));
        assert_eq!(parse_duration_s("900"), Ok(900));
        assert_eq!(parse_duration_s("1.5h"), Ok(5400));
        assert_eq!(parse_duration_s("2d"), Ok(172_800));
        assert!(
            parse_duration_s("15x")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(
            parse_duration_s("abc")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(
            parse_duration_s("h")
                .unwrap_err()
                .contains("not a duration")
        );
        assert!(parse_duration_s("0m").unwrap_err().contains("at least 1 s"));
        assert!(
            parse_duration_s("-5m")
                .unwrap_err()
                .contains("at least 1 s")
        );
        assert_eq!(
            parse_duration_s("106751991167300d").unwrap_err(),
            "`106751991167300d` is too large: a duration must be at most 10^12 s (about 31,700 years)"
        );
        assert!(
            parse_duration_s("100000000000000000000000000")
                .unwrap_err()
                .contains("too large")
        );
        assert_eq!(parse_duration_s("1000000000000s"), Ok(1_000_000_000_000));
        assert!(
            parse_duration_s("1000000000001")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn durations_in_hours() {
        assert_eq!(parse_hours("1min"), Ok(ONE_MINUTE));
        assert_eq!(parse_hours("0.5"), Ok(0.5));
        assert_eq!(parse_hours("90s"), Ok(90.0 / 3600.0));
        assert_eq!(parse_hours("2h"), Ok(2.0));
        assert_eq!(parse_hours("-1"), Ok(-1.0));
        assert!(parse_hours("soon").is_err());
    }
}
