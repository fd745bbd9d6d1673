//! The largest times the integer-second models accept, stated once so that every reader and
//! option refuses the same values.

/// The latest time and the longest duration, in seconds, that a trace-driven model accepts:
/// 10^12 s, about 31,700 years. A log's submit, wait, run and requested times, a workflow's
/// total run time and the times given on the command line are checked against it where they
/// are read, so the sums a simulation forms (submit + wait + run, a start plus a horizon) stay
/// far inside `i64`, remain exact in an `f64` (below 2^53) and still fit in milliseconds.
pub const MAX_SECONDS: i64 = 1_000_000_000_000;

/// [`MAX_SECONDS`] as messages print it.
pub const MAX_SECONDS_TEXT: &str = "10^12 s (about 31,700 years)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_of_a_few_limits_stay_exact() {
        // submit + wait + run + requested, in milliseconds: exact in f64 and in i64.
        let sum = 4 * MAX_SECONDS * 1000;
        assert!(sum < 1 << 53);
        assert_eq!(sum as f64 as i64, sum);
    }
}
