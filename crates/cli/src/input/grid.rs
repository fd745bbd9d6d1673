//! The inputs of `grid`: a machines CSV and a jobs CSV (`schedule_based::io` parses both,
//! refusing duplicate ids), or jobs taken from a log.

use std::path::Path;

use anyhow::Result;
use gridsched_batch::{Job, swf::trace_jobs};
use gridsched_schedule_based::io::{MachineRow, read_jobs, read_machines};
use gridsched_schedule_based::workload::MS;

use super::logs::LogFile;

/// The machines file (`id,cpus,speed`).
pub fn machines(path: &Path) -> Result<Vec<MachineRow>> {
    super::file(path)?;
    Ok(read_machines(path)?)
}

/// The first `limit` jobs (checked as a log's `--limit` is) of a jobs file
/// (`id,submit,cpus,length[,deadline]`), none wider than `widest` (an error at its line).
pub fn jobs_file(path: &Path, widest: u32, limit: Option<usize>) -> Result<Vec<Job>> {
    super::limits::limit(limit)?;
    super::file(path)?;
    let mut jobs = read_jobs(path, widest)?;
    jobs.truncate(limit.unwrap_or(usize::MAX));
    super::require_jobs(path, jobs.len())?;
    Ok(jobs)
}

/// The jobs of a log on a grid whose widest machine has `widest` processors: wider jobs are
/// dropped (and said so), times go from the log's seconds to the grid model's milliseconds,
/// and no job has a requested time (the grid runs every job for its run time).
pub fn jobs_from_log(log: &LogFile, widest: u32) -> Result<Vec<Job>> {
    let swf = log.load()?;
    let tj = trace_jobs(&swf, widest);
    log.note_too_wide(tj.too_wide, widest, " (the widest machine)");
    super::require_jobs(log.path(), tj.jobs.len())?;
    Ok(tj
        .jobs
        .into_iter()
        .map(|mut j| {
            j.submit *= MS;
            j.run *= MS;
            j.requested = None;
            j
        })
        .collect())
}
