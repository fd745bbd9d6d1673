//! Parallel Workloads Archive logs, as every command reads them: `trace info` and `trace
//! convert`, `replay`, `coalloc`, `grid --trace` and the sites of `slots`, `price` and
//! `provision`. The format and its keep/skip rules are `workload::swf`'s; this is where a
//! `--trace` is resolved, `--limit` checked, and what reading changed said on standard error.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use gridsched_workload::swf::{
    DATA_ENV, SwfLoadOptions, SwfLog, SwfReader, TRACES, data_dir, load_from, load_swf_with_sha256,
    trace_path,
};

use super::limits;

/// The file a `--trace` names (a path, or a short name in the data directory), or an error
/// that says where it was looked for and how to point elsewhere: `--data-dir`,
/// `$GRIDSCHED_DATA`, and data/README.md for where the logs come from. A directory is
/// refused here, before any work (`input::file`).
pub fn log_path(trace: &str, data: Option<&Path>) -> Result<PathBuf> {
    let dir = data_dir(data);
    let path = trace_path(&dir, trace);
    if path.exists() {
        super::file(&path)?;
        return Ok(path);
    }
    let names: Vec<&str> = TRACES.iter().map(|(n, _)| *n).collect();
    if names.iter().any(|n| n.eq_ignore_ascii_case(trace)) {
        bail!(
            "{}: no such file (the log `{trace}` of the data directory {}; give --data-dir or set {DATA_ENV}; data/README.md says where the logs come from)",
            path.display(),
            dir.display()
        );
    }
    bail!(
        "{trace}: no such file, and not a log name ({}) of the data directory {}",
        names.join(", "),
        dir.display()
    );
}

/// The log `trace` names (see [`log_path`]), its first `limit` jobs, read without a note on
/// standard error (the caller shows the report itself): the door for front ends other than
/// the commands (the Python package's `read_swf`).
pub fn read_log(trace: &str, data: Option<&Path>, limit: Option<usize>) -> Result<SwfLog> {
    LogFile::resolve(trace, data, limit)?.read()
}

/// A log a command was asked to read: its file and how many jobs to keep. Made by
/// [`LogFile::resolve`], so that no command reads a log whose name or `--limit` was not
/// checked.
#[derive(Debug, Clone)]
pub struct LogFile {
    path: PathBuf,
    limit: Option<usize>,
}

impl LogFile {
    /// `--limit` checked (a prefix of no jobs is nothing to read), then the file `trace`
    /// names ([`log_path`]).
    pub fn resolve(trace: &str, data: Option<&Path>, limit: Option<usize>) -> Result<LogFile> {
        limits::limit(limit)?;
        Ok(LogFile {
            path: log_path(trace, data)?,
            limit,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How the reader is to load it (`--limit`), for a reader driven by the command.
    pub fn options(&self) -> SwfLoadOptions {
        SwfLoadOptions { limit: self.limit }
    }

    /// The log opened with its header read, for a command that consumes the records as they
    /// are read (`replay` simulates while it reads); [`LogFile::finish`] then loads them.
    pub fn open(&self) -> Result<SwfReader<Box<dyn BufRead + Send>>> {
        Ok(SwfReader::open(&self.path)?)
    }

    /// The rest of an [`open`](Self::open)ed log, loaded as [`read`](Self::read) does.
    pub fn finish<R: BufRead>(&self, reader: SwfReader<R>) -> Result<SwfLog> {
        Ok(load_from(reader, self.options())?)
    }

    /// The log, without a note: for a command whose output is the report itself (`trace
    /// info`) or a front end that returns it.
    pub fn read(&self) -> Result<SwfLog> {
        self.finish(self.open()?)
    }

    /// The log and the SHA-256 of the file's bytes, in one read: a FIFO or a pipe on
    /// `/dev/stdin` cannot be reopened.
    pub fn read_with_sha256(&self) -> Result<(SwfLog, String)> {
        Ok(load_swf_with_sha256(&self.path, self.options())?)
    }

    /// The log, with what reading it changed said on standard error ([`LogFile::report`]):
    /// how every command that schedules a log reads it.
    pub fn load(&self) -> Result<SwfLog> {
        let log = self.read()?;
        self.report(&log);
        Ok(log)
    }

    /// What reading `log` dropped or changed, one line each on standard error: the skipped
    /// records with their reasons, then the reader's warnings (jobs re-sorted, job numbers
    /// renumbered). Nothing when it changed nothing. A failed write to standard error is
    /// ignored (the command's result still counts).
    pub fn report(&self, log: &SwfLog) {
        use std::io::Write as _;
        let r = &log.report;
        let path = self.path.display();
        let mut text = String::new();
        if r.skipped() > 0 {
            let reasons: Vec<String> = r
                .notes()
                .into_iter()
                .filter(|n| n.contains("skipped: "))
                .map(|n| n.replace("skipped: ", ""))
                .collect();
            let _ = writeln!(
                text,
                "{path}: {} of {} records skipped ({})",
                r.skipped(),
                r.records,
                reasons.join("; ")
            );
        }
        for w in r.warnings() {
            let _ = writeln!(text, "{path}: {w}");
        }
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// The machine the log was recorded on, from the header's MaxProcs, as a count of at most
    /// `max` (`limit` says why in messages). A missing, zero or too large MaxProcs is an
    /// error at the header's line that tells the user to give `flag` instead.
    pub fn header_size(&self, log: &SwfLog, flag: &str, max: u32, limit: &str) -> Result<u32> {
        let path = self.path.display();
        let Some(m) = log.header.max_procs else {
            bail!("{path}: no MaxProcs in the header: give {flag}");
        };
        let at = log
            .header
            .max_procs_line
            .map_or_else(String::new, |l| format!(":{l}"));
        if m == 0 {
            bail!("{path}{at}: MaxProcs 0 is not a machine size; give {flag}");
        }
        if m > u64::from(max) {
            bail!("{path}{at}: MaxProcs {m} is too large: {limit}; give {flag}");
        }
        Ok(m as u32)
    }

    /// [`header_size`](Self::header_size) for a batch-simulator machine
    /// ([`gridsched_batch::MAX_CAPACITY`]).
    pub fn header_procs(&self, log: &SwfLog, flag: &str) -> Result<u32> {
        self.header_size(
            log,
            flag,
            gridsched_batch::MAX_CAPACITY,
            &limits::machine_limit(),
        )
    }

    /// Says on standard error that `count` jobs wider than the `procs` processors of the
    /// machine (`which`: empty, or e.g. ` (the widest machine)`) were dropped.
    pub fn note_too_wide(&self, count: u64, procs: u32, which: &str) {
        if count > 0 {
            note!(
                "{}: {count} jobs need more than {procs} processors{which} and are dropped",
                self.path.display()
            );
        }
    }
}
