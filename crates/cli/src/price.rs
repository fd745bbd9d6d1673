//! `price` (Singh, chapter 5): the adaptive price (Figure 22) of a reservation at a
//! moment of a site's log, for a fixed start (query 17), every candidate start (18) or the
//! candidates of a window (19), and the start eq. 20 chooses.
//!
//! The site is the log replayed under the pricing policy up to `--at` (as `slots` does under
//! conservative backfilling); the pricer takes its running jobs (to their planned ends) and
//! its queue (with the run times the site plans with) from the simulator.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{ArgGroup, Args, ValueEnum};
use gridsched_batch::{Policy, Time};
use gridsched_provisioning::{Pricer, PricingPolicy, Quote, SiteState, choose};

use crate::input::logs::LogFile;
use crate::input::sites::{EstimatesArg, Site};
use crate::input::times::{parse_signed_time, parse_time, parse_window};
use crate::out;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum PolicyArg {
    /// Conservative backfilling: every queued job holds a planned start.
    #[value(alias = "cb")]
    Conservative,
    /// EASY (aggressive) backfilling; the prices simulate it forward from --at with no
    /// further arrivals.
    #[value(alias = "aggressive")]
    Easy,
}

/// The columns of the table.
pub const HEADER: &str = "start,start_offset_s,price_su,delayed_jobs,chosen";

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("when").args(["start", "window"])))]
pub struct PriceArgs {
    /// The site's Parallel Workloads Archive log: a path or a short name (CTC, SDSC, KTH, ...).
    #[arg(long)]
    trace: String,
    /// Processors of the site, at most 268435456 (2^28; default: the log's MaxProcs; the
    /// thesis used 430 for CTC).
    #[arg(long, visible_alias = "procs-site")]
    site_procs: Option<u32>,
    /// Only the first N jobs of the log.
    #[arg(long, visible_alias = "jobs")]
    limit: Option<usize>,
    /// Data directory for short log names (default: $GRIDSCHED_DATA, else ../shared/data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// When the request is made, in log time (seconds from the log's start): `3600`, `36h`,
    /// `2d12h`, `90m`. The log is replayed up to here (submissions at --at included).
    #[arg(long, value_parser = parse_time)]
    at: Time,
    /// Processors of the reservation.
    #[arg(long)]
    procs: u32,
    /// Duration of the reservation: seconds, or `2h`, `90m`, ...
    #[arg(long, value_parser = parse_signed_time, allow_negative_numbers = true)]
    duration: Time,
    /// Query (17): price this one start (log time, not before --at). A start where the
    /// processors are not free of running jobs is answered with the price `inf`.
    #[arg(long, value_parser = parse_time)]
    start: Option<Time>,
    /// Query (19): the candidate starts from A (A itself included when feasible) up to B, both
    /// in log time (`A..B`, e.g. `40h..2d`); the reservation may end after B. Without
    /// --start and --window, query (18): every candidate start from --at.
    #[arg(long, value_name = "A..B", value_parser = parse_window)]
    window: Option<(Time, Time)>,
    /// The policy the site schedules its queue with, for the replay and for the prices.
    #[arg(long, value_enum, default_value = "conservative")]
    policy: PolicyArg,
    /// Run times the site plans with.
    #[arg(long, value_enum, default_value = "actual")]
    estimates: EstimatesArg,
    /// Trade-off of eq. 20 between start and price: 0 the earliest candidate, 1 the cheapest
    /// (the earliest of the cheapest).
    #[arg(long, default_value_t = 0.0)]
    alpha: f64,
    /// The table: start, start_offset_s (after --at), price_su (the delay caused to the
    /// queue, processor-hours; `inf` when infeasible), delayed_jobs, chosen. `-` (the default)
    /// is standard output; the summary line always goes to standard error.
    #[arg(long, default_value = "-")]
    out: PathBuf,
}

/// Checks what can be checked before the log is read.
fn check_request(a: &PriceArgs) -> Result<()> {
    if a.procs == 0 {
        bail!("--procs must be at least 1 (a reservation of no processors)");
    }
    if a.duration <= 0 {
        bail!("--duration must be positive (got {} s)", a.duration);
    }
    if !(0.0..=1.0).contains(&a.alpha) {
        bail!("--alpha must be in [0, 1] (got {})", a.alpha);
    }
    if let Some(s) = a.start
        && s < a.at
    {
        bail!(
            "--start {s} s is in the past: the request is made at --at {} s",
            a.at
        );
    }
    if let Some((from, to)) = a.window {
        if from > to {
            bail!("--window {from}..{to}: the window starts after it ends");
        }
        if from < a.at {
            bail!(
                "--window {from}..{to} starts in the past: the request is made at --at {} s",
                a.at
            );
        }
    }
    Ok(())
}

/// One row: a candidate start and its quote (`None`: infeasible).
fn row(csv: &mut String, at: Time, start: Time, q: Option<&Quote>, chosen: bool) -> Result<()> {
    match q {
        Some(q) => writeln!(
            csv,
            "{start},{},{:.4},{},{chosen}",
            start - at,
            q.price,
            q.delayed
        )?,
        None => writeln!(csv, "{start},{},inf,,{chosen}", start - at)?,
    }
    Ok(())
}

pub fn run(a: PriceArgs) -> Result<()> {
    check_request(&a)?;
    let log = LogFile::resolve(&a.trace, a.data_dir.as_deref(), a.limit)?;
    out::check(&[("--trace", Some(log.path()))], &[("--out", Some(&a.out))])?;
    let site = Site::load(&log, a.site_procs, "--site-procs")?;
    let (capacity, path) = (site.procs, site.path.clone());
    if a.procs > capacity {
        bail!(
            "--procs {}: the site has only {capacity} processors ({path})",
            a.procs
        );
    }
    site.warn_past_end(a.at);
    let (policy, pricing) = match a.policy {
        PolicyArg::Conservative => (Policy::Conservative, PricingPolicy::Conservative),
        PolicyArg::Easy => (Policy::Easy, PricingPolicy::Easy),
    };
    let mut sim = site.simulator(policy, a.estimates.into())?;
    sim.run_until(a.at);
    let running = sim.running_count();
    let mut pricer = Pricer::new(SiteState::of(&sim)?, pricing);
    let queued = pricer.state().queue().len();
    let (n, d) = (a.procs, a.duration);

    let mut csv = format!("{HEADER}\n");
    let site = format!(
        "{path} ({capacity} processors; at t = {} s: {running} running, {queued} queued; {})",
        a.at,
        pricing.name()
    );
    let request = format!("{n} processors x {d} s");
    let answer = if let Some(s) = a.start {
        // Query (17): one start; infeasible is an answer (price ∞), not an error.
        let q = pricer.price(s, n, d)?;
        row(&mut csv, a.at, s, q.as_ref(), q.is_some())?;
        match q {
            Some(q) => format!(
                "start {s} s (+{} s): price {:.4} SU, {} jobs delayed",
                s - a.at,
                q.price,
                q.delayed
            ),
            None => {
                let next = pricer.candidates(n, d, Some(s))?;
                format!(
                    "start {s} s is infeasible (price inf: the processors are not free of running jobs over [{s}, {})); the earliest feasible start after it is {} s",
                    s + d,
                    next.first()
                        .map_or_else(|| "-".to_string(), |t| t.to_string())
                )
            }
        }
    } else {
        // Query (18) from --at, or (19) from A keeping the starts up to B.
        let from = a.window.map(|(from, _)| from);
        let mut quotes = pricer.query(n, d, from)?;
        // The answer is never empty: its last start (the site idle) may be after the window.
        let first_after = a
            .window
            .and_then(|(_, to)| quotes.iter().find(|q| q.start > to).map(|q| q.start));
        if let Some((_, to)) = a.window {
            quotes.retain(|q| q.start <= to);
        }
        let pick = choose(&quotes, a.alpha);
        for (i, q) in quotes.iter().enumerate() {
            row(&mut csv, a.at, q.start, Some(q), pick == Some(i))?;
        }
        let what = match a.window {
            Some((from, to)) => format!("candidates in [{from}, {to}]"),
            None => "candidates".to_string(),
        };
        match pick {
            Some(i) => {
                let q = &quotes[i];
                format!(
                    "{} {what}; chosen (alpha {}): start {} s (+{} s), price {:.4} SU, {} jobs delayed",
                    quotes.len(),
                    a.alpha,
                    q.start,
                    q.start - a.at,
                    q.price,
                    q.delayed
                )
            }
            None => format!(
                "no feasible start in the window; the earliest after it is {} s",
                first_after.map_or_else(|| "-".to_string(), |t| t.to_string())
            ),
        }
    };
    out::write(&a.out, csv.as_bytes())?;
    note!("price of {request} on {site}: {answer}");
    if !out::data_on_stdout([a.out.as_path()]) {
        note!("wrote {}", out::display(&a.out));
    }
    Ok(())
}
