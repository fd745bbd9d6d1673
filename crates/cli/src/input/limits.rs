//! Numbers from options checked against the limits the libraries state, with messages that
//! name the option and the limit, before any of them reaches a model that would panic,
//! allocate without bound or overflow on it. (A log header's MaxProcs is checked against the
//! same limits where the header is read, [`super::logs::LogFile::header_size`].)

use anyhow::{Result, bail};
use gridsched_batch::MAX_CAPACITY;

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

/// `--limit N`, a prefix of N jobs of a log or jobs file: at least one job (a prefix of none
/// is nothing to run).
pub fn limit(value: Option<usize>) -> Result<()> {
    if value == Some(0) {
        bail!("--limit must be positive");
    }
    Ok(())
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

/// How much memory this process may hold, in bytes, and whose limit that is (for messages):
/// the least of the machine's memory (`MemTotal` of `/proc/meminfo`), the address-space and
/// data limits (`ulimit -v`, `ulimit -d`, from `/proc/self/limits`) and the cgroup's
/// `memory.max`. `None` where none of them can be read (then no size is refused for memory).
pub fn memory_limit() -> Option<(u64, String)> {
    let mut limits: Vec<(u64, String)> = Vec::new();
    if let Ok(info) = std::fs::read_to_string("/proc/meminfo")
        && let Some(kb) = info
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    {
        limits.push((kb.saturating_mul(1024), "this machine's memory".into()));
    }
    if let Ok(text) = std::fs::read_to_string("/proc/self/limits") {
        for (row, name) in [
            ("Max address space", "the address-space limit (ulimit -v)"),
            ("Max data size", "the data-size limit (ulimit -d)"),
        ] {
            if let Some(soft) = text
                .lines()
                .find_map(|l| l.strip_prefix(row))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
            {
                limits.push((soft, name.into()));
            }
        }
    }
    for file in [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ] {
        if let Ok(v) = std::fs::read_to_string(file)
            && let Ok(bytes) = v.trim().parse::<u64>()
        {
            limits.push((bytes, format!("the cgroup's limit ({file})")));
        }
    }
    limits.into_iter().min_by_key(|(bytes, _)| *bytes)
}

/// Bytes for a message: `3.2 GB` (decimal units, as the hierarchy's sizes).
pub fn bytes(b: u64) -> String {
    match b {
        b if b >= 1_000_000_000_000 => format!("{:.1} TB", b as f64 / 1e12),
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{b} B"),
    }
}

/// A size given by `what` (`--jobs 4000000000`) whose run must hold `units` things (`noun`:
/// `jobs`, `runs`) of at least `bytes_each` bytes each at once: refused, before any work, when
/// that is more than [`memory_limit`] allows. The estimate is a lower bound (what the command
/// cannot do without), so a refusal is certain and an accepted size may still be too large.
pub fn fits_memory(
    what: &str,
    value: impl std::fmt::Display,
    units: u64,
    bytes_each: u64,
    noun: &str,
) -> Result<()> {
    let need = units.saturating_mul(bytes_each);
    if let Some((limit, whose)) = memory_limit()
        && need > limit
    {
        bail!(
            "{what} {value} is too large: {units} {noun} of at least {bytes_each} B each need {}, more than {whose}, {}",
            bytes(need),
            bytes(limit)
        );
    }
    Ok(())
}
