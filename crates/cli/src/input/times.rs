//! Times in a log's clock, as `slots`, `price` and `provision` take them (`--at`, and
//! `price`'s `--start`, `--window` and `--duration`): whole seconds, with units.

use gridsched_batch::Time;
use gridsched_sim::{MAX_SECONDS, MAX_SECONDS_TEXT};

/// Parses `3600`, `90s`, `36h`, `2d12h`, `1d2h30m`: seconds, at most [`MAX_SECONDS`]
/// (10^12 s, the latest time a log may hold).
pub fn parse_time(s: &str) -> Result<Time, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty time".into());
    }
    let too_large = || format!("`{s}` is too large: a time must be at most {MAX_SECONDS_TEXT}");
    if let Ok(v) = s.parse::<i64>() {
        return if v < 0 {
            Err(format!("negative time {v}"))
        } else if v > MAX_SECONDS {
            Err(too_large())
        } else {
            Ok(v)
        };
    }
    let mut total: i64 = 0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400.0,
            'h' => 3_600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return Err(format!("`{s}`: unknown unit `{c}` (use d, h, m, s)")),
        };
        let v: f64 = num
            .parse()
            .map_err(|_| format!("`{s}`: a number must come before `{c}`"))?;
        let part = (v * unit).round();
        if part > MAX_SECONDS as f64 {
            return Err(too_large());
        }
        total += part as i64;
        if total > MAX_SECONDS {
            return Err(too_large());
        }
        num.clear();
    }
    if !num.is_empty() {
        return Err(format!("`{s}`: `{num}` has no unit"));
    }
    Ok(total)
}

/// `price --window`: `A..B`, each side as `--at`.
pub fn parse_window(s: &str) -> Result<(Time, Time), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}`: a window is A..B, e.g. 36h..48h"))?;
    Ok((parse_time(a)?, parse_time(b)?))
}

/// `price --duration`: a duration as `--at`, and a negative number of seconds too (refused with the other
/// bad requests, by name).
pub fn parse_signed_time(s: &str) -> Result<Time, String> {
    match s.trim().strip_prefix('-') {
        Some(rest) => parse_time(rest).map(|t| -t),
        None => parse_time(s),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn times() {
        assert_eq!(parse_time("3600"), Ok(3600));
        assert_eq!(parse_time("2d12h"), Ok(216_000));
        assert_eq!(parse_time("1.5h"), Ok(5400));
        assert_eq!(parse_time("90m"), Ok(5400));
        assert!(parse_time("5x").is_err());
        assert!(parse_time("-5").is_err());
        assert!(parse_time("h").is_err());
        assert!(parse_time("12").is_ok());
        assert!(parse_time("3h20").is_err());
        // 106751991167300 days is i64::MAX seconds: `price --duration` gave price 0.
        assert_eq!(
            parse_time("106751991167300d").unwrap_err(),
            "`106751991167300d` is too large: a time must be at most 10^12 s (about 31,700 years)"
        );
        assert!(
            parse_time("9223372036854775807")
                .unwrap_err()
                .contains("too large")
        );
        assert!(parse_time("11574074d2h").unwrap_err().contains("too large"));
        assert_eq!(parse_time("1000000000000"), Ok(1_000_000_000_000));
        assert_eq!(parse_time("11574074d"), Ok(999_999_993_600));
    }
}
