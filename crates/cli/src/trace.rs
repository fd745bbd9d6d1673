//! `gridsched trace ...`: inspect and convert Parallel Workloads Archive (SWF) logs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use gridsched_workload::InputError;
use gridsched_workload::swf::{
    ConversionReport, Distribution, JOB_CSV_HEADER, REQUEST_CSV_HEADER, RequestConversion, SwfLog,
    SwfReader, TraceSummary, ecdf, stream_each, write_job_row, write_jobs_csv, write_request_row,
    write_requests_csv,
};

use crate::input::logs::LogFile;

#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Header metadata and a workload summary of an SWF log (plain or gzip).
    Info(InfoArgs),
    /// Convert an SWF log to a job CSV, or to the request CSV of `schedule reservation`.
    Convert(ConvertArgs),
}

/// Where a log comes from.
#[derive(Debug, Args)]
pub struct TraceInput {
    /// The log: a path, or a short name (CTC, KTH, HPC2N, SDSC, LCG, LPC, Curie) looked up in
    /// the data directory's traces/ folder.
    #[arg(required_unless_present = "trace", conflicts_with = "trace")]
    file: Option<String>,
    /// The log, named as `replay` and `coalloc` name it (the same as the positional FILE).
    #[arg(long, value_name = "LOG")]
    trace: Option<String>,
    /// Data directory for short names (default: $GRIDSCHED_DATA, else ../shared/data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Keep only the first N jobs (a prefix of the log).
    #[arg(long)]
    limit: Option<usize>,
}

impl TraceInput {
    /// The log the input names, with its `--limit`.
    fn log(&self) -> Result<LogFile> {
        let name = self
            .file
            .as_deref()
            .or(self.trace.as_deref())
            .unwrap_or_default();
        LogFile::resolve(name, self.data_dir.as_deref(), self.limit)
    }
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    input: TraceInput,
    /// Machine size for the offered load (default: the header's MaxProcs).
    #[arg(long)]
    processors: Option<u32>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Target {
    /// id,submit,wait,run,procs,requested_procs,requested_time,status,user,queue,partition
    /// (seconds; unknown = empty).
    Jobs,
    /// id,arrival,ready,length,deadline for `gridsched schedule reservation` (one server per
    /// job; arrival = ready = submit; length = run time).
    Requests,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    input: TraceInput,
    /// Output format.
    #[arg(long, value_enum, default_value = "jobs")]
    to: Target,
    /// Output CSV (written atomically; `-` for standard output).
    #[arg(long)]
    out: PathBuf,
    /// Requests: seconds per output time unit (e.g. 3600 for hours).
    #[arg(long, default_value_t = 1.0)]
    unit_seconds: f64,
    /// Requests: deadline = ready + length * (1 + SLACK).
    #[arg(long, default_value_t = 0.0)]
    slack: f64,
    /// Requests: look-ahead horizon in output units; deadlines are capped at arrival + HORIZON
    /// and jobs longer than it are skipped (counted). Match `schedule reservation --horizon`.
    #[arg(long)]
    horizon: Option<f64>,
    /// Requests: shortest length in output units; shorter jobs are lengthened (counted). Match
    /// `schedule reservation --l-min`.
    #[arg(long, default_value_t = 1.0)]
    l_min: f64,
}

pub fn run(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Info(args) => info(&args),
        TraceCommand::Convert(args) => convert(&args),
    }
}

fn hours(d: &Option<Distribution>) -> String {
    match d {
        None => "  (unknown in every record)".to_string(),
        Some(d) => format!(
            "{:>10.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>10.3}",
            d.mean / 3600.0,
            d.p10 / 3600.0,
            d.p25 / 3600.0,
            d.p50 / 3600.0,
            d.p75 / 3600.0,
            d.p90 / 3600.0,
            d.p99 / 3600.0,
            d.max / 3600.0
        ),
    }
}

fn count(d: &Option<Distribution>) -> String {
    match d {
        None => "  (unknown)".to_string(),
        Some(d) => format!(
            "{:>10.3} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
            d.mean, d.p10, d.p25, d.p50, d.p75, d.p90, d.p99, d.max
        ),
    }
}

/// The text `trace info` prints, for the log read from `path` whose bytes hash to `sha`.
pub fn info_text(path: &Path, sha: &str, log: &SwfLog, processors: Option<u32>) -> Result<String> {
    let h = &log.header;
    let mut s = String::new();
    writeln!(s, "file:          {}", path.display())?;
    writeln!(s, "sha256:        {sha}")?;
    for (k, v) in [
        ("computer", &h.computer),
        ("installation", &h.installation),
        ("acknowledge", &h.acknowledge),
        ("version", &h.version),
        ("time zone", &h.time_zone_string),
        ("start", &h.start_time),
        ("end", &h.end_time),
        ("preemption", &h.preemption),
    ] {
        if let Some(v) = v {
            writeln!(s, "{:<15}{}", format!("{k}:"), v.replace('\n', " "))?;
        }
    }
    let num = |v: Option<u64>| v.map_or("-".to_string(), |x| x.to_string());
    writeln!(
        s,
        "header:        MaxJobs {}, MaxRecords {}, MaxNodes {}, MaxProcs {}, UnixStartTime {}",
        num(h.max_jobs),
        num(h.max_records),
        num(h.max_nodes),
        num(h.max_procs),
        h.unix_start_time.map_or("-".to_string(), |x| x.to_string())
    )?;
    if let Some(raw) = h.get("MaxNodes")
        && raw.contains('(')
    {
        writeln!(s, "               MaxNodes note: {raw}")?;
    }
    if !h.queues.is_empty() {
        let q: Vec<String> = h
            .queues
            .iter()
            .map(|q| format!("{} {}", q.id, q.name))
            .collect();
        writeln!(s, "queues:        {}", q.join(", "))?;
    }
    if !h.partitions.is_empty() {
        let shown: Vec<String> = h
            .partitions
            .iter()
            .take(8)
            .map(|p| format!("{} {}", p.id, p.name))
            .collect();
        let more = h.partitions.len().saturating_sub(8);
        let tail = if more > 0 {
            format!(", ... ({more} more)")
        } else {
            String::new()
        };
        writeln!(s, "partitions:    {}{tail}", shown.join(", "))?;
    }
    if h.is_cleaned() {
        writeln!(
            s,
            "cleaned log:   {} jobs removed by",
            h.removed_by_filters()
        )?;
        for f in &h.cleaning_filters {
            writeln!(s, "                 {} ({} jobs)", f.filter, f.removed)?;
        }
    }
    for w in &h.warnings {
        writeln!(s, "header warning: {w}")?;
    }
    let r = &log.report;
    writeln!(
        s,
        "records:       {} read, {} kept, {} skipped{}",
        r.records,
        r.kept,
        r.skipped(),
        if r.truncated {
            " (stopped at --limit)"
        } else {
            ""
        }
    )?;
    for n in r.notes() {
        writeln!(s, "               {n}")?;
    }
    let sum = TraceSummary::of(log);
    if sum.jobs == 0 {
        writeln!(s, "no jobs kept")?;
        return Ok(s);
    }
    let machine = processors.or(h.max_procs.and_then(|m| u32::try_from(m).ok()));
    writeln!(
        s,
        "processors:    largest job {}{}",
        sum.max_job_procs,
        machine.map_or(String::new(), |m| format!(", machine {m}"))
    )?;
    writeln!(
        s,
        "span:          {:.1} days of submits",
        sum.span as f64 / 86_400.0
    )?;
    writeln!(
        s,
        "\n{:<22}{:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "", "mean", "p10", "p25", "p50", "p75", "p90", "p99", "max"
    )?;
    writeln!(s, "{:<22}{}", "run time (h)", hours(&sum.run_time))?;
    writeln!(
        s,
        "{:<22}{}",
        "requested time (h)",
        hours(&sum.requested_time)
    )?;
    writeln!(s, "{:<22}{}", "size (processors)", count(&sum.size))?;
    writeln!(
        s,
        "{:<22}{}",
        "inter-arrival (h)",
        hours(&sum.inter_arrival)
    )?;
    writeln!(s, "{:<22}{}", "batch wait (h)", hours(&sum.wait))?;
    let mut waits: Vec<f64> = log
        .jobs
        .iter()
        .filter_map(|j| j.wait.map(|w| w as f64))
        .collect();
    waits.sort_by(f64::total_cmp);
    if !waits.is_empty() {
        writeln!(
            s,
            "\nbatch wait CDF: F(0) = {:.3}, F(1 h) = {:.3}, F(2 h) = {:.3}, F(24 h) = {:.3} ({} jobs with a known wait)",
            ecdf(&waits, 0.0),
            ecdf(&waits, 3600.0),
            ecdf(&waits, 7200.0),
            ecdf(&waits, 86_400.0),
            waits.len()
        )?;
    }
    write!(
        s,
        "offered load:  {:.1} busy processors (sum of run x procs / span)",
        sum.offered_busy_procs
    )?;
    match machine {
        Some(m) => writeln!(s, " = {:.3} of {m}", sum.offered_load(m))?,
        None => writeln!(s)?,
    }
    Ok(s)
}

fn info(args: &InfoArgs) -> Result<()> {
    if let Some(p) = args.processors {
        crate::input::limits::procs("--processors", p)?;
    }
    let input = args.input.log()?;
    let path = input.path();
    // One read for the log and its hash: a FIFO or a pipe on /dev/stdin cannot be reopened.
    let (log, sha) = input.read_with_sha256()?;
    crate::out::say(false, &info_text(path, &sha, &log, args.processors)?)
}

fn convert(args: &ConvertArgs) -> Result<()> {
    let input = args.input.log()?;
    let path = input.path();
    crate::out::check(&[("the log", Some(path))], &[("--out", Some(&args.out))])?;
    let conv = match args.to {
        Target::Jobs => None,
        Target::Requests => {
            if !(args.unit_seconds > 0.0 && args.unit_seconds.is_finite()) {
                bail!("--unit-seconds must be positive");
            }
            if !(args.slack >= 0.0 && args.slack.is_finite()) {
                bail!("--slack must be a non-negative number");
            }
            if args.horizon.is_some_and(|h| h.is_nan() || h <= 0.0) {
                bail!("--horizon must be positive");
            }
            if !(args.l_min > 0.0 && args.l_min.is_finite()) {
                bail!("--l-min must be positive");
            }
            Some(RequestConversion {
                unit_seconds: args.unit_seconds,
                slack: args.slack,
                horizon: args.horizon,
                l_min: args.l_min,
            })
        }
    };
    // A log in a file is converted as it is read, holding no job, when it needs neither
    // sorting nor renumbering (every archive log: `stream_each`); otherwise, and from a pipe,
    // which cannot be read twice, the jobs are loaded whole first (the load sorts them and
    // renumbers repeats). Either way the rows stream into the output's temporary file.
    let streamed = if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        convert_streaming(args, &input, conv.as_ref())?
    } else {
        None
    };
    let (log, report, written) = match streamed {
        Some((log, report)) => (log, report, Ok(())),
        None => {
            let log = input.read()?;
            let report = std::cell::Cell::new(None);
            let rows = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
                let mut w = w;
                match &conv {
                    None => write_jobs_csv(&mut w, &log.jobs),
                    Some(conv) => {
                        report.set(Some(write_requests_csv(&mut w, &log.jobs, conv)?));
                        Ok(())
                    }
                }
            };
            let written = crate::out::write_all_with(vec![(
                args.out.as_path(),
                crate::out::Content::Writer(Box::new(rows)),
            )]);
            let report = report.get();
            (log, report, written)
        }
    };
    // What reading changed (skipped records, re-sorting, renumbering) is said in any case;
    // what was written only once it is.
    input.report(&log);
    if written.is_ok() {
        match report {
            None => note!(
                "{}: {} jobs written ({} records, {} skipped)",
                path.display(),
                log.report.kept,
                log.report.records,
                log.report.skipped()
            ),
            Some(rep) => note!(
                "{}: {} requests written; {} lengthened to l_min; {} skipped (longer than the horizon); {} records skipped by the reader",
                path.display(),
                rep.written,
                rep.lengthened_to_l_min,
                rep.skipped_longer_than_horizon,
                log.report.skipped()
            ),
        }
    }
    written
}

/// `trace convert` of a log file read as a stream, holding no job: the log (its header and
/// report, no jobs) and, for requests, what the conversion did. `None` when the log needs the
/// whole-log load (jobs out of submit-time order or job numbers not rising in file order):
/// nothing is then written, and the caller converts the loaded log.
fn convert_streaming(
    args: &ConvertArgs,
    input: &LogFile,
    conv: Option<&RequestConversion>,
) -> Result<Option<(SwfLog, Option<ConversionReport>)>> {
    use std::cell::RefCell;
    // What the writer found, besides its output: the log, or why it stopped.
    enum Found {
        Log(Box<SwfLog>, Option<ConversionReport>),
        NotAStream,
        Unreadable(InputError),
    }
    let found = RefCell::new(None);
    let rows = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut w = w;
        let stop = |why: Found| {
            *found.borrow_mut() = Some(why);
            // Not the command's error (which is `found`'s): it only keeps the partial output
            // from being put in place.
            Err(std::io::Error::other("conversion stopped"))
        };
        let reader = match SwfReader::open(input.path()) {
            Ok(r) => r,
            Err(e) => return stop(Found::Unreadable(e)),
        };
        let header = if conv.is_some() {
            REQUEST_CSV_HEADER
        } else {
            JOB_CSV_HEADER
        };
        writeln!(w, "{header}")?;
        let mut report = ConversionReport::default();
        let mut write_error = None;
        let log = stream_each(reader, input.options(), |j| {
            if write_error.is_some() {
                return;
            }
            let row = match conv {
                None => write_job_row(&mut w, j),
                Some(conv) => write_request_row(&mut w, j, conv, &mut report),
            };
            write_error = row.err();
        });
        // The output's error, which names the output.
        if let Some(e) = write_error {
            return Err(e);
        }
        match log {
            Ok(Some(log)) => {
                *found.borrow_mut() = Some(Found::Log(Box::new(log), conv.map(|_| report)));
                Ok(())
            }
            Ok(None) => stop(Found::NotAStream),
            Err(e) => stop(Found::Unreadable(e)),
        }
    };
    let written = crate::out::write_all_with(vec![(
        args.out.as_path(),
        crate::out::Content::Writer(Box::new(rows)),
    )]);
    match (found.into_inner(), written) {
        (Some(Found::Log(log, report)), Ok(())) => Ok(Some((*log, report))),
        (Some(Found::NotAStream), _) => Ok(None),
        (Some(Found::Unreadable(e)), _) => Err(e.into()),
        (_, Err(e)) => Err(e),
        (None, Ok(())) => unreachable!("the writer records what it found"),
    }
}
