//! Writing a loaded log as CSV: the jobs themselves, or a request stream for the chapter-3
//! reservation scheduler (`gridsched schedule reservation`).

use std::io::Write;

use super::log::SwfJob;

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

/// Header of [`write_jobs_csv`].
pub const JOB_CSV_HEADER: &str =
    "id,submit,wait,run,procs,requested_procs,requested_time,status,user,queue,partition";

/// One row per job, times in seconds; an unknown value is an empty field.
pub fn write_jobs_csv(out: &mut impl Write, jobs: &[SwfJob]) -> std::io::Result<()> {
    writeln!(out, "{JOB_CSV_HEADER}")?;
    for j in jobs {
        write_job_row(out, j)?;
    }
    Ok(())
}

/// The row of one job in [`write_jobs_csv`] (after its header, [`JOB_CSV_HEADER`]), for a
/// writer that streams jobs as they are read.
pub fn write_job_row(out: &mut impl Write, j: &SwfJob) -> std::io::Result<()> {
    writeln!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{}",
        j.id,
        j.submit,
        opt(j.wait),
        j.run,
        j.procs,
        opt(j.requested_procs),
        opt(j.requested_time),
        opt(j.status),
        opt(j.user),
        opt(j.queue),
        opt(j.partition)
    )
}

/// How jobs become `id,arrival,ready,length,deadline` requests (one server each; the job's
/// processor count is ignored, since the chapter-3 model books one server per request).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestConversion {
    /// Seconds per output time unit (1 = seconds, 3600 = hours).
    pub unit_seconds: f64,
    /// Deadline slack: `deadline = ready + length · (1 + slack)`.
    pub slack: f64,
    /// Look-ahead horizon in output units: the deadline is capped at `arrival + horizon`, and a
    /// job that no longer fits (`length > horizon`) is skipped and counted.
    pub horizon: Option<f64>,
    /// Shortest length in output units: shorter jobs are lengthened to it (and counted), since
    /// the scheduler rejects requests shorter than its `l_min`.
    pub l_min: f64,
}

impl Default for RequestConversion {
    fn default() -> Self {
        RequestConversion {
            unit_seconds: 1.0,
            slack: 0.0,
            horizon: None,
            l_min: 1.0,
        }
    }
}

/// What [`write_requests_csv`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConversionReport {
    pub written: u64,
    pub lengthened_to_l_min: u64,
    pub skipped_longer_than_horizon: u64,
}

/// Writes the request CSV read by `gridsched schedule reservation`: arrival = ready = submit,
/// length = run time, deadline per [`RequestConversion`].
pub fn write_requests_csv(
    out: &mut impl Write,
    jobs: &[SwfJob],
    conv: &RequestConversion,
) -> std::io::Result<ConversionReport> {
    let mut report = ConversionReport::default();
    writeln!(out, "{REQUEST_CSV_HEADER}")?;
    for j in jobs {
        write_request_row(out, j, conv, &mut report)?;
    }
    Ok(report)
}

/// Header of [`write_requests_csv`].
pub const REQUEST_CSV_HEADER: &str = "id,arrival,ready,length,deadline";

/// The row of one job in [`write_requests_csv`] (none for a job longer than the horizon),
/// counted in `report`: for a writer that streams jobs as they are read.
pub fn write_request_row(
    out: &mut impl Write,
    j: &SwfJob,
    conv: &RequestConversion,
    report: &mut ConversionReport,
) -> std::io::Result<()> {
    let arrival = j.submit as f64 / conv.unit_seconds;
    let mut length = j.run as f64 / conv.unit_seconds;
    if length < conv.l_min {
        length = conv.l_min;
        report.lengthened_to_l_min += 1;
    }
    let mut deadline = arrival + length * (1.0 + conv.slack);
    if let Some(h) = conv.horizon {
        if length > h {
            report.skipped_longer_than_horizon += 1;
            return Ok(());
        }
        deadline = deadline.min(arrival + h);
    }
    writeln!(out, "{},{arrival},{arrival},{length},{deadline}", j.id)?;
    report.written += 1;
    Ok(())
}
