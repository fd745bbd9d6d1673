//! `hierarchy`: Al-Zoubi (2006)'s grid systems — P2P, H1 (one Grid tree) and the hybrids H4 /
//! H16 — on the thesis's grid and network, one run with its per-job records and the AWT / AET
//! / TRT of §5 (and the jobs Fallback saved under OS changes);
//! `hierarchy delay`: the network's transfer time of a message between two addresses
//! (Table 1's model).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use gridsched_hierarchical::hierarchy::{
    FirstSubmission, HierarchyConfig, RfcOrder, RootLevel, RunResult, Submission, run_hierarchy,
};
use gridsched_hierarchical::p2p::{Flooding, P2pConfig, run_p2p};
use gridsched_hierarchical::{Address, Grid, Network, PathClass, draw_jobs};
use gridsched_sim::StreamKey;

use crate::input::values::{MAX_MEAN_HOURS, parse_os_changes, parse_size};
use crate::out;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HierarchyArgs {
    #[command(subcommand)]
    command: Option<HierarchyCommand>,
    #[command(flatten)]
    run: Option<RunArgs>,
}

#[derive(Debug, Subcommand)]
enum HierarchyCommand {
    /// The transfer time of a message between two nodes of the thesis's network (Table 1's
    /// floored per-cable stop-and-wait model).
    Delay(DelayArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SystemArg {
    /// Every server a peer with 3-6 nearby neighbours; requests flood (§3.8).
    P2p,
    /// One Grid tree rooted at the GSS.
    H1,
    /// A tree per backbone, the 4 roots peering (§3.9).
    H4,
    /// A tree per net, the 16 roots peering (§3.9).
    H16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RfcOrderArg {
    /// The requesting branch closest to the job's user first.
    Closest,
    /// RFC-arrival order.
    Arrival,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FirstSubmissionArg {
    /// After a first think time.
    AfterThink,
    /// At t = 0.
    AtZero,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FloodingArg {
    /// Flood collapse and retry skipping (spec §7 item 7): the same outcomes, fast.
    Collapsed,
    /// Every message an event: the reference, for small workloads.
    Naive,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The scheduling system.
    #[arg(long, value_enum, default_value = "h1")]
    system: SystemArg,
    /// Number of jobs in the workload (the thesis's 520 to 10,000).
    #[arg(long)]
    jobs: u32,
    /// Mean job input size with a unit: B, KB, MB or GB (decimal: 1GB = 10^9 bytes), e.g.
    /// 312.7MB or 1GB. Sizes are Poisson in MB around it, so at least 1MB; output = 5 x input.
    #[arg(long)]
    size: String,
    /// 1: continuous submission; 2: a think-time mean per workstation drawn from 10 min to
    /// 1 week; 3: one common think-time mean (--think-hours).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    experiment: u8,
    /// Experiment 3's think-time mean in hours (the thesis's 1, 24, 168; at most 1000000).
    #[arg(long)]
    think_hours: Option<f64>,
    /// Butterfly and Load-Balance, on or off together (the thesis's Experiment 4; hierarchies
    /// only).
    #[arg(long, value_enum, default_value = "on")]
    butterfly: OnOff,
    /// The same as `--butterfly off`.
    #[arg(long, conflicts_with = "butterfly")]
    no_rescheduling: bool,
    /// Servers change OS (Experiment 5; hierarchies only): `thesis` for the thesis's means
    /// (1 d, 3 d, 1 w, 30 d, 90 d, 180 d), or one or more interval means with a unit (ms, s,
    /// min, h, d, w), e.g. `1d` or `6h,1w`: each server draws its mean from the list, waits
    /// Exp(mean), redraws its OS and its mean. Fallback reschedules the jobs a change strands.
    /// A mean is at most 1000000 h.
    #[arg(long)]
    os_changes: Option<String>,
    /// P2P's flooding engine.
    #[arg(long, value_enum, default_value = "collapsed")]
    p2p_flooding: FloodingArg,
    /// P2P's acceptance rule (A15): a peer accepts a job iff (start − now) + usage ≤ F ×
    /// usage; the thesis's 3 by default, 1 offers only when the server is free.
    #[arg(long, default_value_t = 3.0)]
    p2p_deadline_factor: f64,
    /// Which backlogged RFC of a channel a scheduler serves first when jobs arrive (A22):
    /// the branch closest to the job's user (Butterfly's premise), or RFC-arrival order.
    #[arg(long, value_enum, default_value = "closest")]
    rfc_order: RfcOrderArg,
    /// Experiments 2 and 3: a workstation's first job after a think time (A23, the default),
    /// or at t = 0 by the workstations experiment 1 starts (a burst).
    #[arg(long, value_enum, default_value = "after-think")]
    first_submission: FirstSubmissionArg,
    /// Seed of the grid's server types and OSes, the jobs and the submitters.
    #[arg(long, default_value_t = 2006)]
    seed: u64,
    /// One row per job: job, workstation, server, its CPUs, distance, OS, input bytes, RT,
    /// SJTT, JCT, wait and execution time (seconds; `-` for standard output, the summary then
    /// goes to standard error).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Args)]
struct DelayArgs {
    /// Source address, e.g. 132.1.1.1 (backbones 131-134, nets 1-4, sites 1-10, hosts 1-15).
    #[arg(long)]
    from: String,
    /// Destination address.
    #[arg(long)]
    to: String,
    /// Message size with a unit: B, KB, MB or GB (decimal), e.g. 10GB or 100B.
    #[arg(long)]
    bytes: String,
}

pub fn run(args: HierarchyArgs) -> Result<()> {
    match (args.command, args.run) {
        (Some(HierarchyCommand::Delay(d)), _) => delay(d),
        (None, Some(r)) => run_system(r),
        (None, None) => bail!("give --jobs, --size and --out, or `hierarchy delay`"),
    }
}

fn hms_ms(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// `HH:MM:SS` of a number of seconds, rounded to the second.
fn hms(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Milliseconds as seconds with three decimals.
/// Milliseconds written as seconds with three decimals, formatted in place.
struct Secs(u64);

impl std::fmt::Display for Secs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// An optional value, or an empty field.
struct OrEmpty<T>(Option<T>);

impl<T: std::fmt::Display> std::fmt::Display for OrEmpty<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.as_ref().map_or(Ok(()), |v| v.fmt(f))
    }
}

fn class_name(c: PathClass) -> &'static str {
    match c {
        PathClass::SameNode => "same-node",
        PathClass::SameSite => "same-site",
        PathClass::SameNet => "same-net",
        PathClass::SameBackbone => "same-backbone",
        PathClass::OtherBackbone => "other-backbone",
    }
}

fn delay(d: DelayArgs) -> Result<()> {
    let network = Network::thesis();
    let t = network.topology();
    let from: Address = d.from.parse().context("--from")?;
    let to: Address = d.to.parse().context("--to")?;
    let (a, b) = (t.node(from).context("--from")?, t.node(to).context("--to")?);
    let bytes = parse_size(&d.bytes).context("--bytes")?;
    let route = network.route(a, b)?;
    let ms = network.route_delay(route, bytes)?;
    out::say(
        false,
        &format!(
            "{from} -> {to}, {bytes} bytes: {ms} ms ({})\n  route: {}, {} cables, {} routers\n",
            hms_ms(ms),
            class_name(route.class()),
            route.cables().count(),
            route.routers()
        ),
    )
}

fn run_system(a: RunArgs) -> Result<()> {
    if a.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    // Every job's draw, its record and its CSV row (at least 40 bytes) are held at once.
    crate::input::limits::fits_memory(
        "--jobs",
        a.jobs,
        u64::from(a.jobs),
        std::mem::size_of::<gridsched_hierarchical::JobSpec>() as u64 + 40,
        "jobs",
    )?;
    let bytes = parse_size(&a.size).context("--size")?;
    if bytes < 1_000_000 {
        bail!(
            "--size {}: job sizes are drawn in whole MB (Poisson around the mean), so the mean must be at least 1MB",
            a.size
        );
    }
    let mean_mb = bytes as f64 / 1e6;
    let submission = match (a.experiment, a.think_hours) {
        (1, None) => Submission::Continuous,
        (2, None) => Submission::HeterogeneousThink,
        (3, Some(h)) if h > MAX_MEAN_HOURS as f64 => bail!(
            "--think-hours {} is too large: at most {MAX_MEAN_HOURS} h (about 114 years)",
            crate::input::limits::short(h)
        ),
        (3, Some(h)) if h > 0.0 && h.is_finite() => {
            Submission::CommonThink((h * 3_600_000.0).round() as u64)
        }
        (3, Some(h)) => bail!("--think-hours must be positive, got {h}"),
        (3, None) => bail!("--experiment 3 needs --think-hours"),
        (e, Some(_)) => bail!("--think-hours is for --experiment 3, not {e}"),
        (e, None) => bail!("unknown experiment {e}"),
    };
    let rescheduling = a.butterfly == OnOff::On && !a.no_rescheduling;
    let os_changes = a
        .os_changes
        .as_deref()
        .map(parse_os_changes)
        .transpose()
        .context("--os-changes")?;
    if !(a.p2p_deadline_factor >= 1.0 && a.p2p_deadline_factor.is_finite()) {
        bail!(
            "--p2p-deadline-factor must be at least 1, got {}",
            a.p2p_deadline_factor
        );
    }
    if a.system == SystemArg::P2p && (os_changes.is_some() || !rescheduling) {
        bail!(
            "--os-changes and --butterfly off apply to the hierarchies (h1, h4, h16): P2P has no Fallback, Butterfly or Load-Balance"
        );
    }
    let first_submission = match a.first_submission {
        FirstSubmissionArg::AfterThink => FirstSubmission::AfterThink,
        FirstSubmissionArg::AtZero => FirstSubmission::AtZero,
    };
    let key = StreamKey::new(a.seed, "gridsched-hierarchy");
    let grid = Grid::thesis(&key);
    let jobs = draw_jobs(&key, a.jobs, mean_mb)?;
    let name = format!("{:?}", a.system).to_lowercase();
    let changing = os_changes.is_some();
    let r: RunResult = match a.system {
        SystemArg::P2p => {
            let config = P2pConfig {
                flooding: match a.p2p_flooding {
                    FloodingArg::Collapsed => Flooding::Collapsed,
                    FloodingArg::Naive => Flooding::Naive,
                },
                deadline_factor: a.p2p_deadline_factor,
                first_submission,
                ..P2pConfig::default()
            };
            run_p2p(&grid, Network::thesis(), &jobs, &submission, &config, &key)
                .context("running P2P")?
                .result
        }
        SystemArg::H1 | SystemArg::H4 | SystemArg::H16 => {
            let root = match a.system {
                SystemArg::H4 => RootLevel::Backbone,
                SystemArg::H16 => RootLevel::Net,
                _ => RootLevel::Grid,
            };
            let config = HierarchyConfig {
                butterfly_lb: rescheduling,
                os_changes,
                rfc_order: match a.rfc_order {
                    RfcOrderArg::Closest => RfcOrder::Closest,
                    RfcOrderArg::Arrival => RfcOrder::Arrival,
                },
                first_submission,
                ..HierarchyConfig::default()
            };
            run_hierarchy(
                &grid,
                Network::thesis(),
                &jobs,
                &submission,
                root,
                config,
                &key,
            )
            .with_context(|| format!("running {name}"))?
        }
    };
    if r.unfinished > 0 {
        bail!(
            "{} of {} jobs did not complete (a protocol error; please report it)",
            r.unfinished,
            a.jobs
        );
    }
    let t = grid.topology();
    let addr = |n| OrEmpty(t.address(n));
    let mut csv = String::from(
        "job,workstation,server,server_cpus,distance,os,input_bytes,rt,sjtt,jct,wait,exec,fallback\n",
    );
    for rec in &r.records {
        let server = grid.servers()[rec.server.index()];
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            rec.job,
            addr(rec.workstation),
            addr(rec.server_node),
            server.cpus(),
            class_name(rec.class),
            rec.os,
            rec.input_bytes,
            Secs(rec.rt),
            Secs(rec.sjtt),
            Secs(rec.jct),
            Secs(rec.sjtt - rec.rt),
            Secs(rec.jct - rec.sjtt),
            u8::from(rec.fallback_hit),
        )
        .expect("writing to a String");
    }
    out::write(&a.out, csv.as_bytes())?;
    let m = r.metrics;
    let to_stderr = out::data_on_stdout([a.out.as_path()]);
    let messages: u64 = r.messages.values().sum();
    let mut summary = format!(
        "{name}: {} jobs of mean {} bytes on {} servers, experiment {}, seed {}{}{}\n  AWT  {}  ({:.3} s)\n  AET  {}  ({:.3} s)\n  TRT  {}  ({} s)\n  messages {messages}",
        m.jobs,
        bytes,
        grid.servers().len(),
        a.experiment,
        a.seed,
        if rescheduling || a.system == SystemArg::P2p {
            ""
        } else {
            ", Butterfly and Load-Balance off"
        },
        if changing {
            ", servers changing OS"
        } else {
            ""
        },
        hms(m.awt_s),
        m.awt_s,
        hms(m.aet_s),
        m.aet_s,
        hms(m.trt_ms as f64 / 1000.0),
        Secs(m.trt_ms),
    );
    if a.system != SystemArg::P2p {
        summary.push_str(&format!(
            ", butterfly moves {}, load-balance moves {}",
            r.butterfly_moves, r.load_balance_moves
        ));
    }
    if changing {
        summary.push_str(&format!(
            "\n  saved jobs {} ({:.2} %), fallback returns {}",
            r.saved_jobs,
            100.0 * r.saved_jobs as f64 / f64::from(a.jobs),
            r.fallback_returns
        ));
    }
    summary.push('\n');
    out::say(to_stderr, &summary)?;
    if a.experiment != 1 {
        note!(
            "note: the thesis measures TRT only under continuous submission (experiment 1, §5.8)"
        );
    }
    note!("wrote {}", out::display(&a.out));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_the_thesis_does() {
        assert_eq!(hms_ms(3_427_012), "00:57:07.012");
        assert_eq!(hms_ms(992_259_000), "275:37:39.000");
        assert_eq!(hms(35.6), "00:00:36");
    }
}
