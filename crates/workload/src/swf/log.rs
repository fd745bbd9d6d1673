//! A whole log loaded as jobs, with the documented keep/skip rules and a report of every record
//! not kept.

use std::io::BufRead;
use std::path::Path;

use super::header::SwfHeader;
use super::reader::{FIELD_NAMES, SwfReader, SwfRecord};
use crate::requests::InputError;
use gridsched_sim::{MAX_SECONDS, MAX_SECONDS_TEXT};

/// A job kept from an SWF log: every field a scheduling model needs is known.
#[derive(Debug, Clone, PartialEq)]
pub struct SwfJob {
    /// \[1\] job number.
    pub id: u64,
    /// Line of the record in the file.
    pub line: u64,
    /// \[2\] submit time, seconds since the log's start.
    pub submit: i64,
    /// \[3\] the batch scheduler's recorded wait, if known.
    pub wait: Option<i64>,
    /// \[4\] run time, seconds (> 0).
    pub run: i64,
    /// \[5\] allocated processors, or \[8\] requested when \[5\] is unknown (> 0).
    pub procs: u32,
    /// \[8\] requested processors.
    pub requested_procs: Option<u32>,
    /// \[9\] requested (estimated) time, seconds.
    pub requested_time: Option<i64>,
    /// \[11\] status.
    pub status: Option<i64>,
    /// \[12\] user id.
    pub user: Option<u32>,
    /// \[15\] queue number.
    pub queue: Option<u32>,
    /// \[16\] partition number.
    pub partition: Option<u32>,
}

/// How a log is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SwfLoadOptions {
    /// Keep at most this many jobs: the first ones in file order (a prefix of the log). Records
    /// after the limit are not read.
    pub limit: Option<usize>,
}

/// What loading did to every record. No record is dropped without being counted here.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SwfLoadReport {
    /// Data records read.
    pub records: u64,
    /// Jobs kept.
    pub kept: u64,
    /// Skipped: submit time unknown (`-1`).
    pub skipped_unknown_submit: u64,
    /// Skipped: run time unknown (`-1`).
    pub skipped_unknown_run_time: u64,
    /// Skipped: run time 0 (nothing to schedule).
    pub skipped_zero_run_time: u64,
    /// Skipped: allocated and requested processors both unknown.
    pub skipped_unknown_procs: u64,
    /// Skipped: 0 processors (allocated 0, or allocated unknown and requested 0; the archive
    /// uses this for jobs cancelled before they started).
    pub skipped_zero_procs: u64,
    /// Kept with the requested processors because the allocated count was unknown.
    pub procs_from_requested: u64,
    /// Kept jobs whose submit time is earlier than an earlier line's.
    pub out_of_order: u64,
    /// Kept jobs sharing a job number with an earlier kept job (in file order). They are
    /// renumbered so that every output row names one job: see [`renumbered`](Self::renumbered).
    pub duplicate_ids: u64,
    /// The renumbered duplicates, in file order: (job number in the log, the number given),
    /// the new numbers following the log's largest one.
    pub renumbered: Vec<(u64, u64)>,
    /// Kept jobs using more processors than the header's MaxProcs.
    pub procs_above_max: u64,
    /// Comment lines after the first record (ignored).
    pub late_comments: u64,
    /// Whether [`SwfLoadOptions::limit`] stopped reading before the end of the file.
    pub truncated: bool,
}

impl SwfLoadReport {
    /// Records not kept.
    pub fn skipped(&self) -> u64 {
        self.skipped_unknown_submit
            + self.skipped_unknown_run_time
            + self.skipped_zero_run_time
            + self.skipped_unknown_procs
            + self.skipped_zero_procs
    }

    /// One line per skip reason and anomaly that occurred, for logs and `trace info`.
    pub fn notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        for (n, what) in [
            (self.skipped_unknown_submit, "skipped: submit time unknown"),
            (
                self.skipped_unknown_run_time,
                "skipped: run time unknown (-1)",
            ),
            (self.skipped_zero_run_time, "skipped: run time 0"),
            (
                self.skipped_unknown_procs,
                "skipped: allocated and requested processors unknown",
            ),
            (self.skipped_zero_procs, "skipped: 0 processors"),
            (
                self.procs_from_requested,
                "kept with requested processors (allocated unknown)",
            ),
        ] {
            if n > 0 {
                v.push(format!("{n} {what}"));
            }
        }
        v.extend(self.warnings());
        v
    }

    /// Anomalies worth a warning (the log is still usable).
    pub fn warnings(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.out_of_order > 0 {
            v.push(format!(
                "warning: {} jobs were out of submit-time order; jobs were sorted by submit time (stable)",
                self.out_of_order
            ));
        }
        if self.duplicate_ids > 0 {
            let shown: Vec<String> = self
                .renumbered
                .iter()
                .take(3)
                .map(|(old, new)| format!("{old} -> {new}"))
                .collect();
            let more = if self.renumbered.len() > 3 {
                ", ..."
            } else {
                ""
            };
            v.push(format!(
                "warning: {} jobs repeat an earlier job number; each repeat was renumbered after the log's largest number, in file order ({}{more})",
                self.duplicate_ids,
                shown.join(", ")
            ));
        }
        if self.procs_above_max > 0 {
            v.push(format!(
                "warning: {} jobs use more processors than the header's MaxProcs",
                self.procs_above_max
            ));
        }
        if self.late_comments > 0 {
            v.push(format!(
                "warning: {} comment lines after the first record were ignored",
                self.late_comments
            ));
        }
        v
    }
}

/// A loaded log: header, kept jobs in non-decreasing submit order, and the report.
#[derive(Debug, Clone, PartialEq)]
pub struct SwfLog {
    /// The file as given.
    pub path: String,
    pub header: SwfHeader,
    pub jobs: Vec<SwfJob>,
    pub report: SwfLoadReport,
}

/// Why a record is not kept, or the job it becomes.
pub fn keep(record: &SwfRecord) -> Result<(SwfJob, bool), Skip> {
    let submit = record.submit.ok_or(Skip::UnknownSubmit)?;
    let run = match record.run_time {
        None => return Err(Skip::UnknownRunTime),
        Some(0) => return Err(Skip::ZeroRunTime),
        Some(r) => r,
    };
    let (procs, from_requested) = match (record.allocated_procs, record.requested_procs) {
        (Some(0), _) => return Err(Skip::ZeroProcs),
        (Some(p), _) => (p, false),
        (None, Some(0)) => return Err(Skip::ZeroProcs),
        (None, Some(p)) => (p, true),
        (None, None) => return Err(Skip::UnknownProcs),
    };
    Ok((
        SwfJob {
            id: record.job,
            line: record.line,
            submit,
            wait: record.wait,
            run,
            procs,
            requested_procs: record.requested_procs,
            requested_time: record.requested_time,
            status: record.status,
            user: record.user,
            queue: record.queue,
            partition: record.partition,
        },
        from_requested,
    ))
}

/// Refuses a kept job whose submit, wait, run or requested time is beyond
/// [`MAX_SECONDS`]: a simulation adds them up (and a scheduler adds horizons and retry steps
/// to them), so such a time would overflow or lose its last seconds instead of being
/// scheduled.
fn check_times(job: &SwfJob) -> Result<(), String> {
    for (field, value) in [
        (2, Some(job.submit)),
        (3, job.wait),
        (4, Some(job.run)),
        (9, job.requested_time),
    ] {
        if let Some(v) = value
            && v > MAX_SECONDS
        {
            return Err(format!(
                "job {}: field {field} ({}) {v} s is beyond {MAX_SECONDS_TEXT}, the longest time a log may hold",
                job.id, FIELD_NAMES[field]
            ));
        }
    }
    Ok(())
}

/// Why a record was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    UnknownSubmit,
    UnknownRunTime,
    ZeroRunTime,
    UnknownProcs,
    ZeroProcs,
}

/// Loads a log file (plain or gzip).
pub fn load_swf(path: &Path, options: SwfLoadOptions) -> Result<SwfLog, InputError> {
    let reader = SwfReader::open(path)?;
    load_from(reader, options)
}

/// Loads a log from an open reader.
pub fn load_from<R: BufRead>(
    reader: SwfReader<R>,
    options: SwfLoadOptions,
) -> Result<SwfLog, InputError> {
    load_each(reader, options, |_| {})
}

/// [`load_from`], calling `on_job` with every kept job as it is read, in file order: what a
/// consumer can start on before the whole log is read (`gridsched replay` simulates while
/// the log is still being parsed). The jobs it sees are the log's jobs before the two
/// changes made once the whole log is known: repeated job numbers renumbered
/// ([`SwfLoadReport::duplicate_ids`]) and jobs sorted by submit time
/// ([`SwfLoadReport::out_of_order`]); when both counts are 0 they are exactly
/// [`SwfLog::jobs`]. A read error after some jobs is still the error of the whole load.
pub fn load_each<R: BufRead>(
    mut reader: SwfReader<R>,
    options: SwfLoadOptions,
    mut on_job: impl FnMut(&SwfJob),
) -> Result<SwfLog, InputError> {
    let mut jobs: Vec<SwfJob> = Vec::new();
    let mut report = scan(&mut reader, options, |job| {
        on_job(&job);
        jobs.push(job);
    })?;
    report.late_comments = reader.late_comments();
    // Job numbers rising in file order (every archive log) repeat none; only otherwise are
    // they sorted to count the repeats.
    let (duplicate_ids, largest_id) = if jobs.windows(2).all(|w| w[0].id < w[1].id) {
        (0, jobs.last().map_or(0, |j| j.id))
    } else {
        let mut ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
        ids.sort_unstable();
        (
            ids.windows(2).filter(|w| w[0] == w[1]).count() as u64,
            ids.last().copied().unwrap_or(0),
        )
    };
    report.duplicate_ids = duplicate_ids;
    if report.duplicate_ids > 0 {
        // Two rows of an output with one job number would be ambiguous: every repeat, in file
        // order, gets the next number after the log's largest.
        let mut next = largest_id;
        let mut seen = std::collections::HashSet::with_capacity(jobs.len());
        for job in &mut jobs {
            if !seen.insert(job.id) {
                next = next.checked_add(1).ok_or_else(|| InputError::Invalid {
                    path: reader.path().to_string(),
                    line: reader.line(),
                    message: "job numbers too large to renumber the repeated ones".into(),
                })?;
                report.renumbered.push((job.id, next));
                job.id = next;
            }
        }
    }
    if report.out_of_order > 0 {
        jobs.sort_by_key(|j| j.submit);
    }
    report.kept = jobs.len() as u64;
    Ok(SwfLog {
        path: reader.path().to_string(),
        header: reader.header().clone(),
        jobs,
        report,
    })
}

/// [`load_each`] without holding the jobs, for a consumer that keeps what it needs of each one
/// itself (`gridsched replay` and `coalloc` on a log of millions of jobs, which would
/// otherwise hold every job twice). Returns the log with its header and complete report but no
/// jobs when the jobs `on_job` saw are exactly those [`load_each`] would return: none out of
/// submit-time order and job numbers rising in file order (so none repeated, as in every
/// archive log). Otherwise returns `None`: the consumer needs the whole log sorted and
/// renumbered, and loads it again with [`load_each`] (a file can be read twice; a pipe cannot,
/// and is loaded with [`load_each`] from the start).
pub fn stream_each<R: BufRead>(
    mut reader: SwfReader<R>,
    options: SwfLoadOptions,
    mut on_job: impl FnMut(&SwfJob),
) -> Result<Option<SwfLog>, InputError> {
    let mut kept = 0u64;
    let mut last_id: Option<u64> = None;
    let mut ids_rising = true;
    let mut report = scan(&mut reader, options, |job| {
        on_job(&job);
        kept += 1;
        ids_rising &= last_id.is_none_or(|last| last < job.id);
        last_id = Some(job.id);
    })?;
    if report.out_of_order > 0 || !ids_rising {
        return Ok(None);
    }
    report.late_comments = reader.late_comments();
    report.kept = kept;
    Ok(Some(SwfLog {
        path: reader.path().to_string(),
        header: reader.header().clone(),
        jobs: Vec::new(),
        report,
    }))
}

/// Reads every record (up to the limit), counts the skipped ones and hands each kept job to
/// `keep` in file order: the pass [`load_each`] and [`stream_each`] share. The report's
/// counts of the whole log (late comments, kept jobs, repeats) are left to them.
fn scan<R: BufRead>(
    reader: &mut SwfReader<R>,
    options: SwfLoadOptions,
    mut keep_job: impl FnMut(SwfJob),
) -> Result<SwfLoadReport, InputError> {
    let mut report = SwfLoadReport::default();
    let mut kept = 0usize;
    let max_procs = reader.header().max_procs;
    let path = reader.path().to_string();
    let mut latest_submit = i64::MIN;
    for record in reader.by_ref() {
        let record = record?;
        if options.limit.is_some_and(|l| kept >= l) {
            report.truncated = true;
            break;
        }
        report.records += 1;
        match keep(&record) {
            Err(Skip::UnknownSubmit) => report.skipped_unknown_submit += 1,
            Err(Skip::UnknownRunTime) => report.skipped_unknown_run_time += 1,
            Err(Skip::ZeroRunTime) => report.skipped_zero_run_time += 1,
            Err(Skip::UnknownProcs) => report.skipped_unknown_procs += 1,
            Err(Skip::ZeroProcs) => report.skipped_zero_procs += 1,
            Ok((job, from_requested)) => {
                check_times(&job).map_err(|message| InputError::Invalid {
                    path: path.clone(),
                    line: job.line,
                    message,
                })?;
                report.procs_from_requested += u64::from(from_requested);
                if job.submit < latest_submit {
                    report.out_of_order += 1;
                }
                latest_submit = latest_submit.max(job.submit);
                if max_procs.is_some_and(|m| u64::from(job.procs) > m) {
                    report.procs_above_max += 1;
                }
                kept += 1;
                keep_job(job);
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> SwfLog {
        let r = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        load_from(r, SwfLoadOptions::default()).unwrap()
    }

    const F: &str = "-1 -1 -1 -1 -1 -1 -1 -1 -1";

    #[test]
    fn skip_rules_are_counted() {
        let text = format!(
            "; MaxProcs: 8\n\
             1 10 0 100 2 -1 -1 2 200 {F}\n\
             2 -1 0 100 2 -1 -1 2 200 {F}\n\
             3 11 0 -1 2 -1 -1 2 200 {F}\n\
             4 12 0 0 2 -1 -1 2 200 {F}\n\
             5 13 0 100 -1 -1 -1 -1 200 {F}\n\
             6 14 0 100 0 -1 -1 4 200 {F}\n\
             7 15 0 100 -1 -1 -1 3 200 {F}\n\
             8 5 0 100 16 -1 -1 16 200 {F}\n\
             8 16 -1 100 1 -1 -1 1 200 {F}\n"
        );
        let log = load(&text);
        let r = &log.report;
        assert_eq!(r.records, 9);
        assert_eq!(r.kept, 4);
        assert_eq!(r.skipped(), 5);
        assert_eq!(
            (
                r.skipped_unknown_submit,
                r.skipped_unknown_run_time,
                r.skipped_zero_run_time,
                r.skipped_unknown_procs,
                r.skipped_zero_procs
            ),
            (1, 1, 1, 1, 1)
        );
        assert_eq!(r.procs_from_requested, 1);
        assert_eq!(r.out_of_order, 1);
        assert_eq!(r.duplicate_ids, 1);
        assert_eq!(r.procs_above_max, 1);
        // The second job 8 in file order (submitted at 16) is renumbered after the largest.
        assert_eq!(r.renumbered, vec![(8, 9)]);
        let order: Vec<u64> = log.jobs.iter().map(|j| j.id).collect();
        assert_eq!(order, vec![8, 1, 7, 9]);
        assert!(r.warnings().iter().any(|w| w.contains("8 -> 9")));
        assert_eq!(log.jobs[2].procs, 3);
        assert_eq!(log.jobs[3].wait, None);
        assert!(r.warnings().iter().any(|w| w.contains("sorted")));
    }

    /// A file written by an editor that puts a UTF-8 byte-order mark first reads as without.
    #[test]
    fn a_byte_order_mark_is_ignored() {
        let plain = format!("; MaxProcs: 8\n1 10 0 100 2 -1 -1 2 200 {F}\n");
        let with_bom = format!("\u{feff}{plain}");
        assert_eq!(load(&with_bom).jobs, load(&plain).jobs);
        assert_eq!(load(&with_bom).header.max_procs, Some(8));
        // Also when the first line is a record.
        let record = format!("\u{feff}1 10 0 100 2 -1 -1 2 200 {F}\n");
        assert_eq!(load(&record).jobs.len(), 1);
    }

    /// A log in order with rising job numbers streams to the jobs and report the whole load
    /// gives, holding none; one that the load would sort or renumber is refused, so that the
    /// caller loads it whole.
    #[test]
    fn stream_each_sees_the_loaded_jobs_or_refuses() {
        let stream = |text: &str, limit: Option<usize>| {
            let mut seen = Vec::new();
            let r = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
            let log = stream_each(r, SwfLoadOptions { limit }, |j| seen.push(j.clone())).unwrap();
            (log, seen)
        };
        let plain = format!(
            "; MaxProcs: 4\n1 10 0 100 2 -1 -1 2 200 {F}\n2 11 0 0 2 -1 -1 2 200 {F}\n\
             5 11 0 100 8 -1 -1 8 200 {F}\n; late\n9 12 0 100 -1 -1 -1 3 200 {F}\n"
        );
        for limit in [None, Some(1), Some(2)] {
            let whole = load_from(
                SwfReader::new(plain.as_bytes(), "t.swf").unwrap(),
                SwfLoadOptions { limit },
            )
            .unwrap();
            let (log, seen) = stream(&plain, limit);
            let log = log.expect("a plain stream");
            assert_eq!(seen, whole.jobs);
            assert!(log.jobs.is_empty());
            assert_eq!(log.report, whole.report);
            assert_eq!(log.header, whole.header);
        }
        let job = |id: u64, submit: i64| format!("{id} {submit} 0 100 2 -1 -1 2 200 {F}\n");
        let out_of_order = job(1, 10) + &job(2, 9);
        let repeated = job(1, 10) + &job(1, 11);
        let falling = job(2, 10) + &job(1, 11);
        for text in [out_of_order, repeated, falling] {
            let (log, seen) = stream(&text, None);
            assert!(log.is_none(), "{text}");
            assert_eq!(seen.len(), 2, "every job was still seen");
        }
    }

    #[test]
    fn limit_keeps_a_prefix() {
        let text = format!(
            "1 10 0 100 2 -1 -1 2 200 {F}\n2 11 0 0 2 -1 -1 2 200 {F}\n3 12 0 100 2 -1 -1 2 200 {F}\n4 13 0 100 2 -1 -1 2 200 {F}\n"
        );
        let r = SwfReader::new(text.as_bytes(), "t").unwrap();
        let log = load_from(r, SwfLoadOptions { limit: Some(2) }).unwrap();
        assert_eq!(log.jobs.len(), 2);
        assert_eq!(log.report.records, 3);
        assert!(log.report.truncated);
    }

    #[test]
    fn times_beyond_the_limit_are_refused_at_their_line() {
        let err = |text: &str| {
            let r = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
            load_from(r, SwfLoadOptions::default())
                .unwrap_err()
                .to_string()
        };
        let ok = format!("1 10 0 100 2 -1 -1 2 200 {F}\n");
        assert_eq!(
            err(&format!(
                "; MaxProcs: 8\n{ok}2 9223372036854775800 0 100 1 -1 -1 1 100 {F}\n"
            )),
            "t.swf:3: job 2: field 2 (submit time) 9223372036854775800 s is beyond 10^12 s \
             (about 31,700 years), the longest time a log may hold"
        );
        assert!(
            err(&format!("{ok}2 10 0 1000000000001 1 -1 -1 1 100 {F}\n"))
                .starts_with("t.swf:2: job 2: field 4 (run time) 1000000000001 s is beyond")
        );
        assert!(
            err(&format!("2 10 5000000000000 100 1 -1 -1 1 100 {F}\n"))
                .contains("field 3 (wait time)")
        );
        assert!(
            err(&format!("2 10 0 100 1 -1 -1 1 5000000000000 {F}\n"))
                .contains("field 9 (requested time)")
        );
        // The limit itself is a time; a skipped record is not looked at.
        let edge = format!(
            "1 1000000000000 1000000000000 1000000000000 1 -1 -1 1 1000000000000 {F}\n\
             2 9223372036854775800 0 -1 1 -1 -1 1 100 {F}\n"
        );
        assert_eq!(load(&edge).jobs.len(), 1);
    }
}
