//! `gridsched`: reproduce the figures of five grid-scheduling documents, and run their
//! schedulers on your own inputs. A thin layer over the `gridsched-*` libraries.
//!
//! The commands are a library (`gridsched_cli`) as well as the `gridsched` binary, so that
//! another front end (the Python package, `python/`) runs a command exactly as the binary
//! does — same options, same checks, same output files — through [`run_args`], and replays a
//! log under a policy it drives itself through [`replay_driven`].

/// `eprintln!` for the CLI's notes and errors: a standard error that cannot be written (a
/// full device, a closed pipe) loses the note instead of panicking, so the command's own
/// exit code stands (`2>/dev/full` gave 101).
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod bench;
mod coalloc;
mod grid;
mod hierarchy;
pub mod input;
mod manual;
mod map;
mod out;
mod price;
mod provision;
mod replay;
pub use replay::Drive;
mod reproduce;
mod schedule;
mod trace;
pub use input::logs::{log_path, read_log};

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Reproduce grid-scheduling research and run its schedulers.
#[derive(Debug, Parser)]
#[command(name = "gridsched", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every experiment: id, document, kind and title.
    List,
    /// Regenerate figures/tables: data CSV, SVG plot, and the document's claims checked.
    Reproduce(reproduce::ReproduceArgs),
    /// Combine the shard outputs of `reproduce --shard k/N` into the files an unsharded run writes.
    Merge(reproduce::MergeArgs),
    /// Redraw figures from the results already in data/ (after a change of the plotting code),
    /// without running anything.
    Replot(reproduce::ReplotArgs),
    /// Write REPRODUCTION.md from the results in data/ (paper scale where present, else quick).
    Report(reproduce::ReportArgs),
    /// Write the reproduction as a static website (no server needed; opens from file://):
    /// every document's verdicts, a page per experiment, the claims index, the benchmarks.
    Site(reproduce::SiteArgs),
    /// Regenerate the results section and plots of docs/benchmarks.md from `cargo bench` output.
    BenchReport(bench::BenchReportArgs),
    /// Run a scheduler on your own input.
    #[command(subcommand)]
    Schedule(schedule::ScheduleCommand),
    /// Map independent tasks from an ETC matrix (Min-Min, Sufferage, SAS, ...); `map generate`
    /// writes a seeded matrix.
    Map(map::MapArgs),
    /// Inspect (`trace info`) or convert (`trace convert`) a Parallel Workloads Archive log.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// Replay an SWF log under FCFS, EASY, conservative or Flexible backfilling: Batsim jobs
    /// CSV and summary.
    Replay(replay::ReplayArgs),
    /// Online co-allocation with advance reservations (Castillo ch. 5) on an SWF log: one CSV
    /// row per job (submit, requested start, start, servers, retries, holds, wait).
    Coalloc(coalloc::CoallocArgs),
    /// Schedule jobs on your own heterogeneous grid with EG-EDF, Tabu search or re-computation
    /// (Klusáček & Rudová) or FCFS / EASY / Flexible backfilling; `grid generate` writes the
    /// paper's workload.
    Grid(grid::GridArgs),
    /// The slots a conservative-backfilling site advertises at a moment of its log (Singh
    /// ch. 3): one row per slot (start, duration, processors, kind, cost).
    Slots(provision::SlotsArgs),
    /// Provision a workflow (DAX, WfCommons, synthetic or CyberShake) on the slots of one or
    /// more sites with MOGA (Singh ch. 4), beside its just-in-time best-effort run.
    Provision(provision::ProvisionArgs),
    /// The adaptive price of a reservation at a moment of a site's log (Singh ch. 5, Figure
    /// 22): one row per candidate start (query 17 with --start, 19 with --window, else 18)
    /// with the delay it causes the queue, and the start eq. 20 chooses (--alpha).
    Price(price::PriceArgs),
    /// Hierarchical grid scheduling (Al-Zoubi 2006, H1) on the thesis's 2400-node grid: one
    /// CSV row per job and AWT / AET / TRT; `hierarchy delay` gives a message's transfer time.
    Hierarchy(hierarchy::HierarchyArgs),
    /// Print a shell completion script, e.g. `gridsched completions bash >
    /// ~/.local/share/bash-completion/completions/gridsched`.
    Completions(manual::CompletionsArgs),
    /// Man pages generated from these definitions: `gridsched man --out-dir DIR` writes
    /// gridsched.1 and a page per command; without --out-dir, gridsched.1 goes to stdout.
    Man(manual::ManArgs),
}

impl Command {
    fn run(self) -> anyhow::Result<()> {
        match self {
            Command::List => reproduce::list(),
            Command::Reproduce(args) => reproduce::reproduce(args),
            Command::Merge(args) => reproduce::merge(args),
            Command::Replot(args) => reproduce::replot(args),
            Command::Report(args) => reproduce::report(args),
            Command::Site(args) => reproduce::site(args),
            Command::BenchReport(args) => bench::report(args),
            Command::Schedule(cmd) => schedule::run(cmd),
            Command::Map(args) => map::run(args),
            Command::Trace(cmd) => trace::run(cmd),
            Command::Replay(args) => replay::run(args),
            Command::Coalloc(args) => coalloc::run(args),
            Command::Grid(args) => grid::run_command(args),
            Command::Slots(args) => provision::slots(args),
            Command::Provision(args) => provision::provision_cmd(args),
            Command::Price(args) => price::run(args),
            Command::Hierarchy(args) => hierarchy::run(args),
            Command::Completions(args) => manual::completions(args),
            Command::Man(args) => manual::man(args),
        }
    }
}

/// Parses `args` (the first is the program name, as in `std::env::args_os`) and runs the
/// command they name, exactly as the `gridsched` binary does; an invalid command line is an
/// error carrying clap's message (usage included) instead of an exit.
pub fn run_args<I, T>(args: I) -> anyhow::Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args)
        .map_err(|e| anyhow::anyhow!("{}", e.render()))?
        .command
        .run()
}

/// `gridsched replay` with the simulation run by `drive` instead of to its end in one call:
/// `args` is a `replay` command line (program name first, `replay` second). The log is read,
/// checked and turned into a simulator as the command does; `drive` receives it (its policy
/// the one `--policy` names, or [`Policy::External`](gridsched_batch::Policy::External) when
/// `external`), runs it to the end (the built-in policy with [`step`]s, an external one with
/// [`begin_round`]s) or stops with an error (an interrupt), and hands it back; the schedule is
/// then audited, summarized and written as the command writes it.
///
/// [`step`]: gridsched_batch::Simulator::step
/// [`begin_round`]: gridsched_batch::Simulator::begin_round
pub fn replay_driven<I, T>(args: I, external: bool, drive: Drive<'_>) -> anyhow::Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match Cli::try_parse_from(args)
        .map_err(|e| anyhow::anyhow!("{}", e.render()))?
        .command
    {
        Command::Replay(args) => replay::run_driven(args, Some((external, drive))),
        _ => anyhow::bail!("replay_driven runs `replay` command lines only"),
    }
}

/// The binary's `main`: parses the process's arguments, runs the command and reports its
/// error on standard error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of a pipe went away (`gridsched ... --out - | head`): like cat, stop quietly.
        Err(e) if out::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            note!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
