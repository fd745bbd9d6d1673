//! The one door through which every command reads what a user gives it: files (SWF logs,
//! sites, workflows, ETC matrices, request and grid CSVs, rate files) and sizes. Parsing
//! stays in the library crates (`workload::swf`, `workflow`, `mapping::io`,
//! `schedule_based::io`, `workload::read_requests`), which return `file:line:` errors; what is
//! here is what the CLI adds around them — resolving short names in the data directory,
//! the checks made before any work, the notes on standard error about what reading changed —
//! so that a check added once protects every command that reads that kind of input.
//!
//! - [`file()`]: every input file a command names is checked here before any work: it must
//!   exist and not be a directory. FIFOs and devices are let through: every reader here reads
//!   its input once, front to back, so `/dev/stdin` and a pipe work.
//! - [`logs`]: a Parallel Workloads Archive log (`--trace`): resolution, `--limit`, reading
//!   with its report of skipped, re-sorted and renumbered records, the machine size from the
//!   header, jobs wider than the machine, a log left without jobs.
//! - [`sites`]: a log on a cluster of its processors, replayed as a site (`slots`, `price`,
//!   `provision`), the `--sites NAME[:PROCS]` list, the `--at` warning.
//! - [`workflows`], [`matrices`], [`requests`], [`grid`]: the other input languages.
//! - [`limits`]: sizes and counts against what the models and the machine's memory hold.
//! - [`times`]: the log-time options (`--at`, `--start`, `--window`, `--duration`).
//! - [`values`]: the other option values with units (sizes, durations, hours, ranges).

pub mod grid;
pub mod limits;
pub mod logs;
pub mod matrices;
pub mod requests;
pub mod sites;
pub mod times;
pub mod values;
pub mod workflows;

use std::path::Path;

use anyhow::{Result, bail};

/// Checks, before any work, that `path` names a file a reader can open: it exists (the
/// error is the one the readers give, `PATH: No such file or directory (os error 2)`) and is
/// not a directory (which the readers would only find on their first read, with messages
/// that differ by format, after the work done before it).
pub fn file(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Err(e) => bail!("{}: {e}", path.display()),
        Ok(m) if m.is_dir() => bail!("{}: is a directory, not a file", path.display()),
        Ok(_) => Ok(()),
    }
}

/// Refuses an input left with no job to schedule (every record skipped or dropped, or a
/// jobs file without rows): a run of nothing would write an empty schedule and a summary of
/// zeros.
pub fn require_jobs(path: &Path, jobs: usize) -> Result<()> {
    if jobs == 0 {
        bail!("{}: no jobs", path.display());
    }
    Ok(())
}
