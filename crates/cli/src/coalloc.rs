//! `gridsched coalloc`: Castillo's online co-allocation (ch. 5) on a Parallel Workloads Archive
//! log: every job asks for `n_r` servers over one common window, searched in quantized 2-D trees,
//! retried `Δt` later up to `maxRet` times and then held until `q_r + H`. Writes one CSV row per
//! job and prints a summary.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use gridsched_reservation::coalloc::{
    ArSelect, CoallocConfig, CoallocError, CoallocPick, CoallocRequest, CoallocScheduler, HoldMode,
    LengthField, MAX_QUANTA, MAX_RANGE_TREE_SERVERS, MAX_SERVERS, RequestSetReport, audit,
    make_advance_reservations, request_from_swf, requests_from_swf,
};
use gridsched_sim::StreamKey;
use gridsched_workload::swf::{SwfLog, stream_each};

use crate::input::logs::LogFile;
use crate::input::values::parse_duration_s;

/// Table 5.1's machine sizes for the thesis's logs (used when `--servers` is not given).
const TABLE_5_1: [(&str, u32); 3] = [("CTC", 512), ("KTH", 128), ("HPC2N", 240)];

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PickArg {
    /// The thesis's tree search (Phase-2 groups in reverse marking order, in-order retrieval).
    Tree,
    /// The feasible periods with the latest starts (smallest leading gaps).
    LatestStart,
    /// The feasible periods with the earliest ends.
    MinEnd,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum HoldArg {
    /// After a hold, s_r := max(s_r, q_r + H).
    Latest,
    /// After a hold, the request keeps its original lead s_r − q_r.
    KeepLead,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LengthArg {
    /// l_r = run time (SWF field 4).
    Run,
    /// l_r = requested time (field 9; the run time where unknown).
    Requested,
}

#[derive(Debug, Args)]
pub struct CoallocArgs {
    /// The log (plain or gzip): a path, or a short name (CTC, KTH, HPC2N, SDSC, LCG, LPC, Curie)
    /// looked up in the data directory's traces/ folder.
    #[arg(long)]
    trace: String,
    /// Data directory for short names (default: $GRIDSCHED_DATA, else ../shared/data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Use only the first N jobs of the log.
    #[arg(long)]
    limit: Option<usize>,
    /// Number of servers N (default: Table 5.1's 512 / 128 / 240 for CTC / KTH / HPC2N, else
    /// the log header's MaxProcs). Jobs wider than N are never scheduled (empty start). At
    /// most 16777216 (2^24): the index keeps about 48 bytes per server (800 MB at the limit);
    /// with --range-tree at most 1048576 (2^20), about 1 KB per server.
    #[arg(long)]
    servers: Option<u32>,
    /// Fraction ρ of jobs made advance reservations, s_r = q_r + U[0, --ar-lead].
    #[arg(long, default_value_t = 0.0)]
    ar_fraction: f64,
    /// Longest advance-reservation lead (e.g. 3h).
    #[arg(long, default_value = "3h", value_parser = parse_duration_s)]
    ar_lead: i64,
    /// Quantum length l_q (e.g. 15m, 900s, 1h).
    #[arg(long, default_value = "15m", value_parser = parse_duration_s)]
    quantum: i64,
    /// Scheduling horizon H (e.g. 50h); Q = ceil(H / l_q) quanta, at most 65536 (every idle
    /// period is stored in each quantum it spans).
    #[arg(long, default_value = "50h", value_parser = parse_duration_s)]
    horizon: i64,
    /// Retry step Δt added to s_r after a failed attempt.
    #[arg(long, default_value = "15m", value_parser = parse_duration_s)]
    retry_step: i64,
    /// Retries before a hold (default Q/2).
    #[arg(long)]
    max_retries: Option<u32>,
    /// Which feasible idle periods a request gets.
    #[arg(long, value_enum, default_value = "tree")]
    pick: PickArg,
    /// Start time after a hold.
    #[arg(long, value_enum, default_value = "latest")]
    hold_mode: HoldArg,
    /// Which SWF field is the duration l_r.
    #[arg(long, value_enum, default_value = "run")]
    length: LengthArg,
    /// Seed of the advance-reservation draws.
    #[arg(long, default_value_t = 2008)]
    seed: u64,
    /// Check the finished schedule (distinct servers, no double booking) before writing.
    #[arg(long)]
    audit: bool,
    /// Also keep a range tree over the idle periods and answer every Phase-2 group larger than
    /// this many periods from it: the same schedule, with a selection's cost bounded by the
    /// request's width times a polylogarithmic factor rather than by the machine's size, at the
    /// price of slower updates and more memory (docs/benchmarks.md, "Co-allocation"). Off by
    /// default; 0 answers every group from the tree.
    #[arg(long, value_name = "PERIODS")]
    range_tree: Option<usize>,
    /// Per-job CSV (written atomically; `-` for standard output).
    #[arg(long)]
    out: PathBuf,
}

/// The log's requests and each one's line in the log (for errors), and the log itself without
/// its jobs (its header and report, said on standard error as every command says them). A
/// log in a file is read as a stream and only the requests are held, unless it needs sorting
/// or renumbering (then, and from a pipe, the jobs are loaded whole first and dropped once
/// mapped): 64 bytes a job rather than the log's 120 on top.
fn read_requests(
    trace: &LogFile,
    field: LengthField,
) -> Result<(SwfLog, Vec<CoallocRequest>, RequestSetReport, Vec<u64>)> {
    if std::fs::metadata(trace.path()).is_ok_and(|m| m.is_file()) {
        let (mut requests, mut lines) = (Vec::new(), Vec::new());
        let mut mapping = RequestSetReport::default();
        let streamed = stream_each(trace.open()?, trace.options(), |j| {
            requests.push(request_from_swf(j, field, &mut mapping));
            lines.push(j.line);
        })?;
        if let Some(log) = streamed {
            trace.report(&log);
            return Ok((log, requests, mapping, lines));
        }
    }
    let mut log = trace.load()?;
    let (requests, mapping) = requests_from_swf(&log.jobs, field);
    let lines = log.jobs.iter().map(|j| j.line).collect();
    log.jobs = Vec::new();
    Ok((log, requests, mapping, lines))
}

fn hours(s: f64) -> f64 {
    s / 3600.0
}

pub fn run(args: CoallocArgs) -> Result<()> {
    let (max_servers, server_limit) = match args.range_tree {
        None => (
            MAX_SERVERS,
            format!("the index holds at most {MAX_SERVERS} servers (about 48 bytes each)"),
        ),
        Some(_) => (
            MAX_RANGE_TREE_SERVERS,
            format!(
                "with --range-tree the index holds at most {MAX_RANGE_TREE_SERVERS} servers (about 1 KB each)"
            ),
        ),
    };
    if let Some(n) = args.servers {
        crate::input::limits::count("--servers", n, max_servers, &server_limit)?;
    }
    let quanta = args.horizon / args.quantum + i64::from(args.horizon % args.quantum > 0);
    if quanta > i64::from(MAX_QUANTA) {
        bail!(
            "--horizon {} s over --quantum {} s is {quanta} quanta: at most {MAX_QUANTA} (every idle period is stored in each quantum it spans; use a longer --quantum or a shorter --horizon)",
            args.horizon,
            args.quantum
        );
    }
    if !(0.0..=1.0).contains(&args.ar_fraction) {
        bail!("--ar-fraction must be in [0, 1], got {}", args.ar_fraction);
    }
    let trace = LogFile::resolve(&args.trace, args.data_dir.as_deref(), args.limit)?;
    let path = trace.path();
    crate::out::check(&[("--trace", Some(path))], &[("--out", Some(&args.out))])?;
    let field = match args.length {
        LengthArg::Run => LengthField::Run,
        LengthArg::Requested => LengthField::Requested,
    };
    let (log, mut requests, mapping, lines) = read_requests(&trace, field)?;
    let servers = match args.servers {
        Some(n) => n,
        None => match TABLE_5_1
            .iter()
            .find(|t| t.0.eq_ignore_ascii_case(&args.trace))
        {
            Some(t) => t.1,
            None => trace.header_size(&log, "--servers", max_servers, &server_limit)?,
        },
    };
    crate::input::require_jobs(path, requests.len())?;
    drop(log);
    let ar_jobs = if args.ar_fraction > 0.0 {
        let mut rng = StreamKey::new(args.seed, "gridsched coalloc")
            .stream("ar")
            .rng();
        make_advance_reservations(
            &mut requests,
            args.ar_fraction,
            ArSelect::Bernoulli,
            args.ar_lead,
            &mut rng,
        )
    } else {
        0
    };
    let config = CoallocConfig {
        servers,
        quantum: args.quantum,
        horizon: args.horizon,
        retry_step: args.retry_step,
        max_retries: args.max_retries,
        pick: match args.pick {
            PickArg::Tree => CoallocPick::Tree,
            PickArg::LatestStart => CoallocPick::LatestStart,
            PickArg::MinEnd => CoallocPick::MinEnd,
        },
        hold_mode: match args.hold_mode {
            HoldArg::Latest => HoldMode::Latest,
            HoldArg::KeepLead => HoldMode::KeepLead,
        },
        range_tree_budget: args.range_tree,
        ..CoallocConfig::default()
    };
    let started = Instant::now();
    let scheduler = CoallocScheduler::new(config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let outcome = scheduler.run(&requests, args.audit);
    let elapsed = started.elapsed().as_secs_f64();
    let run = outcome.map_err(|e| match e {
        CoallocError::Request { index, id, message } => anyhow::anyhow!(
            "{}:{}: job {id}: {message}",
            path.display(),
            lines.get(index).copied().unwrap_or(0)
        ),
        e => anyhow::anyhow!("{e}"),
    })?;
    if args.audit {
        audit(&requests, &run).map_err(|e| anyhow::anyhow!("audit failed: {e}"))?;
    }

    // One row per request, in request order (the outcomes are in request order too); the
    // rows stream into the output's temporary file rather than being built in memory first.
    let csv = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        w.write_all(
            b"id,submit,requested_start,start,length,servers,retries,holds,wait,wait_from_submit\n",
        )?;
        let mut outcomes = run.outcomes.iter().peekable();
        for (i, r) in requests.iter().enumerate() {
            match outcomes.next_if(|o| o.index == i) {
                Some(o) => writeln!(
                    w,
                    "{},{},{},{},{},{},{},{},{},{}",
                    o.id,
                    o.submit,
                    o.requested_start,
                    o.start,
                    o.length,
                    o.servers,
                    o.retries,
                    o.holds,
                    o.wait_req(),
                    o.wait_sub()
                )?,
                // Wider than the machine: never scheduled.
                None => writeln!(
                    w,
                    "{},{},{},,{},{},,,,",
                    r.id, r.submit, r.start, r.length, r.servers
                )?,
            }
        }
        if outcomes.next().is_some() {
            return Err(std::io::Error::other(
                "internal error: the outcomes are not in request order",
            ));
        }
        Ok(())
    };
    crate::out::write_all_with(vec![(
        args.out.as_path(),
        crate::out::Content::Writer(Box::new(csv)),
    )])?;

    let n = run.outcomes.len().max(1) as f64;
    let mean = |f: &dyn Fn(&gridsched_reservation::coalloc::JobOutcome) -> f64| {
        run.outcomes.iter().map(f).sum::<f64>() / n
    };
    let max_wait = run.outcomes.iter().map(|o| o.wait_req()).max().unwrap_or(0);
    note!(
        "{}: {} jobs on N = {servers} servers (l_q = {} s, H = {} s, Δt = {} s, maxRet = {}); {} advance reservations{}",
        path.display(),
        requests.len(),
        config.quantum,
        config.horizon,
        config.retry_step,
        config.max_ret(),
        ar_jobs,
        if mapping.requested_time_fallback > 0 {
            format!(
                "; {} jobs without a requested time use their run time",
                mapping.requested_time_fallback
            )
        } else {
            String::new()
        }
    );
    note!(
        "  scheduled {} ({} wider than N, not scheduled); mean wait {:.3} h, max {:.2} h; \
         {:.3} retries, {:.4} holds, {:.1} tree-node visits per request",
        run.outcomes.len(),
        run.too_large.len(),
        mean(&|o| hours(o.wait_req() as f64)),
        hours(max_wait as f64),
        mean(&|o| f64::from(o.retries)),
        mean(&|o| f64::from(o.holds)),
        mean(&|o| o.ops as f64),
    );
    note!(
        "  scheduling took {elapsed:.2} s ({:.0} requests/s); wrote {}",
        requests.len() as f64 / elapsed.max(1e-9),
        crate::out::display(&args.out)
    );
    Ok(())
}
