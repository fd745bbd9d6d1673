//! Numbers from options and log headers checked against the limits the libraries state, with
//! messages that name the option (or the file and line) and the limit, before any of them
//! reaches a model that would panic, allocate without bound or overflow on it.

use std::path::Path;

use anyhow::{Result, bail};
use gridsched_batch::MAX_CAPACITY;
use gridsched_workload::swf::SwfLog;

/// What a machine of the batch simulator can have, for messages.
pub fn machine_limit() -> String {
    format!("a machine has at most {MAX_CAPACITY} processors")
}

/// A processor count given by `what` (an option, e.g. `--procs`): at least 1 and at most
/// [`MAX_CAPACITY`], the largest machine the batch simulator's profiles model.
pub fn procs(what: &str, value: u32) -> Result<u32> {
    count(what, value, MAX_CAPACITY, &machine_limit())
}

/// A count given by `what`: at least 1 and at most `max`; `limit` says why (in messages).
pub fn count(what: &str, value: u32, max: u32, limit: &str) -> Result<u32> {
    if value == 0 {
        bail!("{what} must be positive");
    }
    if value > max {
        bail!("{what} {value} is too large: {limit}");
    }
    Ok(value)
}

/// The header's MaxProcs of `log` (read from `path`) as a count of at most `max` (`limit` says
/// why), or `None` when the header has none. A value of 0 or above `max` is an error at the
/// header's line that tells the user to give `flag` instead.
pub fn header_count(
    log: &SwfLog,
    path: &Path,
    flag: &str,
    max: u32,
    limit: &str,
) -> Result<Option<u32>> {
    let Some(m) = log.header.max_procs else {
        return Ok(None);
    };
    let at = log
        .header
        .max_procs_line
        .map_or_else(String::new, |l| format!(":{l}"));
    if m == 0 {
        bail!(
            "{}{at}: MaxProcs 0 is not a machine size; give {flag}",
            path.display()
        );
    }
    if m > u64::from(max) {
        bail!(
            "{}{at}: MaxProcs {m} is too large: {limit}; give {flag}",
            path.display()
        );
    }
    Ok(Some(m as u32))
}

/// [`header_count`] for a batch-simulator machine ([`MAX_CAPACITY`]).
pub fn header_procs(log: &SwfLog, path: &Path, flag: &str) -> Result<Option<u32>> {
    header_count(log, path, flag, MAX_CAPACITY, &machine_limit())
}

/// A number for a message: as `Display` writes it, or in exponent form when that would be
/// long (`1e-20` and `1e300`, not hundreds of digits).
pub fn short(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}
