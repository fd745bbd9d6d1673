//! `gridsched replay`: replay a Parallel Workloads Archive log under a queue policy (FCFS,
//! EASY, conservative or Flexible backfilling) on a homogeneous cluster, write Batsim's
//! per-job CSV and print the standard summary.

use std::path::PathBuf;
use std::time::Instant;

use crate::out;
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use gridsched_batch::{
    Compression, Config, Estimates, Platform, Policy, Simulator, Summary, audit,
    swf::{Reopen, Streamed, read_while_simulating, trace_jobs},
    write_batsim_csv_parallel,
};

use crate::input::logs::LogFile;
use gridsched_workload::swf::SwfReader;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PolicyArg {
    /// First come, first served.
    Fcfs,
    /// EASY (aggressive) backfilling: only the queue head holds a reservation.
    Easy,
    /// Conservative backfilling: every queued job holds a reservation.
    Conservative,
    /// Flexible backfilling: EASY over a queue re-sorted by priority (Klusáček §2.12).
    Flexible,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Fcfs => Policy::Fcfs,
            PolicyArg::Easy => Policy::Easy,
            PolicyArg::Conservative => Policy::Conservative,
            PolicyArg::Flexible => Policy::Flexible,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EstimatesArg {
    /// Plan with the actual run times (perfect estimates; nothing is killed).
    Actual,
    /// Plan with the requested times (field 9); jobs running longer are killed at them.
    Requested,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CompressionArg {
    /// Re-insert every queued job in queue order (Singh's CB-replay).
    Replay,
    /// Move each queued job to its earliest fit if earlier (Mu'alem & Feitelson).
    InPlace,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Queue policy.
    #[arg(long, value_enum)]
    policy: PolicyArg,
    /// The log (plain or gzip): a path, or a short name (CTC, KTH, HPC2N, SDSC, LCG, LPC, Curie)
    /// looked up in the data directory's traces/ folder.
    #[arg(long)]
    trace: String,
    /// Data directory for short names (default: $GRIDSCHED_DATA, else ../shared/data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Cluster size, at most 268435456 (2^28; default: the header's MaxProcs). Jobs wider
    /// than it are dropped and counted.
    #[arg(long)]
    procs: Option<u32>,
    /// Which run time the scheduler plans with.
    #[arg(long, value_enum, default_value = "requested")]
    estimates: EstimatesArg,
    /// Conservative backfilling: what happens when a job ends before its estimate.
    #[arg(long, value_enum, default_value = "replay")]
    compression: CompressionArg,
    /// Replay only the first N jobs of the log.
    #[arg(long)]
    limit: Option<usize>,
    /// Per-job CSV with Batsim's columns (written atomically; `-` for standard output, the
    /// summary then goes to standard error).
    #[arg(long)]
    out: PathBuf,
    /// Also write the summary as JSON (written atomically; `-` for standard output).
    #[arg(long)]
    summary_json: Option<PathBuf>,
}

/// Runs a replay's simulator to its end, or stops with an error (an interrupt, a policy's
/// refusal), and hands it back: how [`crate::replay_driven`] lets another front end drive the
/// simulation.
pub type Drive<'a> = &'a mut dyn FnMut(Simulator) -> Result<Simulator>;

pub fn run(args: ReplayArgs) -> Result<()> {
    run_driven(args, None)
}

/// The command, with the simulation run by `driver`'s function (under
/// [`Policy::External`] when its flag is set) instead of [`Simulator::run`].
pub(crate) fn run_driven(args: ReplayArgs, driver: Option<(bool, Drive<'_>)>) -> Result<()> {
    if let Some(p) = args.procs {
        crate::input::limits::procs("--procs", p)?;
    }
    let trace = LogFile::resolve(&args.trace, args.data_dir.as_deref(), args.limit)?;
    let path = trace.path();
    out::check(
        &[("--trace", Some(path))],
        &[
            ("--out", Some(&args.out)),
            ("--summary-json", args.summary_json.as_deref()),
        ],
    )?;
    let policy: Policy = match driver {
        Some((true, _)) => Policy::External,
        _ => args.policy.into(),
    };
    let estimates = match args.estimates {
        EstimatesArg::Actual => Estimates::Actual,
        EstimatesArg::Requested => Estimates::Requested,
    };
    let compression = match args.compression {
        CompressionArg::Replay => Compression::Replay,
        CompressionArg::InPlace => Compression::InPlace,
    };
    let config = Config::new(policy)
        .estimates(estimates)
        .compression(compression)
        .check_invariants(false);
    let t0 = Instant::now();
    let reader = trace.open()?;
    // The cluster is known before the first record when `--procs` is given or the header's
    // MaxProcs is usable: then the log is simulated while it is read. Otherwise (and on every
    // error) the order of the steps below is that of a whole read, so that the user gets the
    // same message as before.
    // A driven simulation is built once the log is read: the driver runs all of it.
    let early = args
        .procs
        .or_else(|| {
            reader
                .header()
                .max_procs
                .filter(|&m| m > 0 && m <= u64::from(gridsched_batch::MAX_CAPACITY))
                .map(|m| m as u32)
        })
        .and_then(|p| Some((p, Platform::cluster(p).ok()?)))
        .filter(|_| driver.is_none());
    // A log in a file can be read a second time, so the streamed read need not keep its jobs
    // (the simulator has them) in case the log turns out to need sorting: on a log of millions
    // of jobs that copy was a third of the peak memory (docs/benchmarks.md, "Huge logs").
    let reopen = || SwfReader::open(path);
    let rereadable = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let (log, streamed) = match early {
        Some((procs, platform)) => read_while_simulating(
            reader,
            trace.options(),
            procs,
            &platform,
            config,
            rereadable.then_some(&reopen as &Reopen<'_>),
        )?,
        None => (trace.finish(reader)?, None),
    };
    trace.report(&log);
    let procs = match args.procs {
        Some(p) => p,
        None => trace.header_procs(&log, "--procs")?,
    };
    // Streamed: the counts were taken while reading and the jobs are in the simulator.
    let (tj, streamed) = match streamed {
        Some(Streamed { sim, counts, jobs }) => (counts, Some((sim, jobs))),
        None => (trace_jobs(&log, procs), None),
    };
    let n = streamed.as_ref().map_or(tj.jobs.len(), |s| s.1);
    let overlapped = streamed.is_some();
    let read_s = t0.elapsed().as_secs_f64();
    trace.note_too_wide(tj.too_wide, procs, "");
    crate::input::require_jobs(path, n)?;
    let platform = Platform::cluster(procs)?;
    let t1 = Instant::now();
    let mut sim = match streamed {
        Some((sim, _)) => sim,
        None => Simulator::with_jobs(platform.clone(), config, tj.jobs)?,
    };
    match driver {
        Some((_, drive)) => sim = drive(sim)?,
        None => sim.run(),
    }
    // Streamed, most of the simulation overlapped the reading.
    let sim_s = t1.elapsed().as_secs_f64();
    // Every job finishes: room for all of them at once (a collect would grow the vector by
    // doubling, copying the outcomes about twice over).
    let mut outcomes = Vec::with_capacity(n);
    outcomes.extend(sim.outcomes());
    // Everything below reads the outcomes only; the simulator's per-job state is not held
    // through the writing: the audit's thread frees it first (off this thread, which goes on
    // to the CSV).
    if outcomes.len() != n {
        bail!("internal error: {} of {n} jobs finished", outcomes.len());
    }
    let summary = std::thread::scope(|scope| -> Result<Summary> {
        // The audit (a pure check of the schedule) and the summary run on a second thread
        // beside the CSV, which reads the same outcomes (and formats half of its rows on one
        // more thread); the CSV's writer waits for the verdict before it returns, so a failing
        // audit still aborts the write and leaves no output file.
        let (outcomes, platform) = (&outcomes, &platform);
        let checked = scope.spawn(move || {
            drop(sim);
            (
                audit(outcomes, platform, estimates),
                Summary::new(outcomes, platform),
            )
        });
        let workload = path
            .file_name()
            .and_then(|f| f.to_str())
            .map(|f| f.trim_end_matches(".gz").trim_end_matches(".swf"))
            .unwrap_or("trace")
            .replace(',', "_");
        let summary = std::cell::OnceCell::new();
        let summary_ref = &summary;
        let workload = &workload;
        // The jobs and the summary, both or neither. The jobs CSV (25 MB on HPC2N) streams into
        // its temporary file (or, for standard output and devices, into memory until every output
        // is ready); nothing is visible under the target names before both are complete. It is
        // staged first: the summary JSON's writer reads the summary it received.
        let jobs_csv = move |w: &mut dyn std::io::Write| {
            write_batsim_csv_parallel(w, outcomes, platform, workload)?;
            match checked.join() {
                Ok((verdict, s)) => {
                    let _ = summary_ref.set(s);
                    verdict.map_err(|e| {
                        std::io::Error::other(format!(
                            "internal error: the schedule fails its audit: {e}"
                        ))
                    })
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        };
        let summary_json = |w: &mut dyn std::io::Write| {
            let summary = summary_ref
                .get()
                .ok_or_else(|| std::io::Error::other("internal error: no summary"))?;
            let v = serde_json::json!({
                "trace": path.display().to_string(),
                "policy": policy.name(),
                "estimates": match estimates { Estimates::Actual => "actual", Estimates::Requested => "requested" },
                "compression": match compression { Compression::Replay => "replay", Compression::InPlace => "in-place" },
                "procs": procs,
                "limit": args.limit,
                "jobs_dropped_too_wide": tj.too_wide,
                "jobs_without_requested_time": tj.no_requested_time,
                "jobs_running_past_request": tj.run_exceeds_request,
                "summary": summary,
            });
            let mut s = serde_json::to_string_pretty(&v).map_err(std::io::Error::other)?;
            s.push('\n');
            w.write_all(s.as_bytes())
        };
        let mut outputs = vec![(args.out.as_path(), out::Content::Writer(Box::new(jobs_csv)))];
        if let Some(p) = &args.summary_json {
            outputs.push((p.as_path(), out::Content::Writer(Box::new(summary_json))));
        }
        out::write_all_with(outputs)?;
        summary
            .into_inner()
            .ok_or_else(|| anyhow::anyhow!("internal error: no summary"))
    })?;
    let mut report = format!(
        "{}: {} on {procs} processors, {} estimates\n",
        path.display(),
        policy.name(),
        match estimates {
            Estimates::Actual => "actual",
            Estimates::Requested => "requested",
        }
    );
    for l in summary.lines() {
        report.push_str(&format!("  {l}\n"));
    }
    let to_stderr = out::data_on_stdout(
        [Some(args.out.as_path()), args.summary_json.as_deref()]
            .into_iter()
            .flatten(),
    );
    out::say(to_stderr, &report)?;
    let wrote = out::display(&args.out);
    if overlapped {
        // The simulation ran while the log was read: `sim_s` is only its tail, and a rate
        // over it would be meaningless.
        let total = read_s + sim_s;
        note!(
            "read and simulated {total:.2} s ({:.0} jobs/s); wrote {wrote}",
            n as f64 / total.max(1e-9)
        );
    } else {
        note!(
            "read {read_s:.2} s, simulated {sim_s:.3} s ({:.0} jobs/s); wrote {wrote}",
            n as f64 / sim_s.max(1e-9)
        );
    }
    Ok(())
}
