//! `slots` and `provision` (Singh, chapters 3–4): what a conservative-backfilling site
//! advertises at a moment of its log, and a workflow provisioned on those slots by MOGA beside
//! its just-in-time best-effort run on the same sites.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use gridsched_batch::{Estimates, Policy, Simulator, Time};
use gridsched_provisioning::{
    App, Horizon, MAX_POPULATION, MogaConfig, PricingPolicy, SlotSite, besteffort, provision,
    provision_greedy, schedule_holes,
};
use gridsched_sim::{MAX_SECONDS, MAX_SECONDS_TEXT, StreamKey};
use gridsched_workflow::{GBIT, SyntheticWorkflow, TransferModel};

use crate::input::limits;
use crate::input::logs::LogFile;
use crate::input::sites::{self, EstimatesArg, Site};
use crate::input::times::parse_time;
use crate::input::workflows::WorkflowSource;
use crate::out;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum SourceArg {
    /// The holes of the conservative-backfilling schedule (per-processor, grouped).
    Schedule,
    /// The thesis's incremental Figure 2 site (exact run times only).
    Figure2,
}

/// A site: a log and its processor count.
#[derive(Debug, Args)]
struct SiteArgs {
    /// The site's Parallel Workloads Archive log: a path or a short name (CTC, SDSC, KTH, ...).
    #[arg(long)]
    trace: String,
    /// Processors of the site, at most 268435456 (2^28; default: the log's MaxProcs; the
    /// thesis used 430 for CTC).
    #[arg(long)]
    procs: Option<u32>,
    /// Only the first N jobs of the log.
    #[arg(long)]
    limit: Option<usize>,
    /// Data directory for short log names (default: $GRIDSCHED_DATA, else ../shared/data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SlotsArgs {
    #[command(flatten)]
    site: SiteArgs,
    /// When, in log time (seconds from the log's start): `3600`, `36h`, `2d12h`, `90m`.
    #[arg(long, value_parser = parse_time)]
    at: Time,
    /// Run times the site plans with.
    #[arg(long, value_enum, default_value = "actual")]
    estimates: EstimatesArg,
    /// Where the slots come from.
    #[arg(long, value_enum, default_value = "schedule")]
    source: SourceArg,
    /// Advertisement horizon ahead of now, hours (extensible slots run to it; at most
    /// 277777777, 10^12 s).
    #[arg(long, default_value_t = 48.0)]
    horizon_h: f64,
    /// One row per slot: start_s, start_h (after --at), duration_s, procs, divisible,
    /// extensible, cost_su (`-` for standard output; the summary then goes to standard error).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum AlgorithmArg {
    /// The multi-objective genetic algorithm of chapter 4, on the slots the sites advertise.
    Moga,
    /// Chapter 7's greedy algorithm (Figure 51): each task in HEFT order reserves the start
    /// that minimises alpha x cost + (1 - alpha) x finish among the sites' adaptively priced
    /// answers (Figure 22 under conservative backfilling).
    Greedy,
}

#[derive(Debug, Args)]
pub struct ProvisionArgs {
    /// The workflow: a Pegasus DAX (.xml/.dax) or WfCommons (.json) file, optionally gzipped;
    /// or `synthetic` (the thesis's generator: --tasks, --procs-mean) or `cybershake` (Table 2).
    #[arg(long)]
    workflow: String,
    /// The site's log (one site); or use --sites.
    #[arg(long, conflicts_with = "sites", required_unless_present = "sites")]
    trace: Option<String>,
    /// Several sites: comma-separated logs, each NAME or NAME:PROCS (e.g. CTC:430,SDSC:128;
    /// PROCS at most 268435456).
    #[arg(long, value_delimiter = ',')]
    sites: Vec<String>,
    /// Processors of the --trace site, at most 268435456 (2^28; default: the log's MaxProcs).
    #[arg(long, requires = "trace")]
    procs: Option<u32>,
    /// Only the first N jobs of each log.
    #[arg(long)]
    limit: Option<usize>,
    /// Data directory for short log names.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Submission time, in log time: `3600`, `36h`, `2d12h`.
    #[arg(long, value_parser = parse_time)]
    at: Time,
    /// Trade-off factor: MOGA (eq. 15) 1 the cheapest plan of the Pareto set, 0 the fastest;
    /// greedy (Figure 51) per task, 1 the cheapest start (never delays the queue), 0 the
    /// earliest finish.
    #[arg(long, default_value_t = 0.5)]
    alpha: f64,
    /// Provisioning algorithm.
    #[arg(long, value_enum, default_value = "moga")]
    algorithm: AlgorithmArg,
    /// MOGA population, from 2 to 10000 (MOGA ranks every pair of plans in each generation).
    #[arg(long, default_value_t = 100)]
    population: usize,
    /// MOGA generations.
    #[arg(long, default_value_t = 10)]
    generations: usize,
    /// Seed of MOGA (and of a synthetic workflow).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Synthetic workflow: tasks.
    #[arg(long, default_value_t = 100)]
    tasks: u32,
    /// Synthetic workflow: mean processors per task.
    #[arg(long, default_value_t = 22)]
    procs_mean: u32,
    /// Bandwidth between sites, Gbit/s (multi-site).
    #[arg(long, default_value_t = 10.0)]
    bandwidth_gbps: f64,
    /// Latency between sites, seconds (multi-site).
    #[arg(long, default_value_t = 150.0)]
    latency_s: f64,
    /// The task schedule: one row per task with its provisioned and best-effort placement
    /// (`-` for standard output; the summary then goes to standard error).
    #[arg(long)]
    out: PathBuf,
    /// Also write the slots: MOGA, one row per advertised slot with its charge; greedy, one row
    /// per reservation with its adaptive price.
    #[arg(long)]
    slots_out: Option<PathBuf>,
}

/// The last planned finish of a conservative schedule.
fn last_finish(sim: &Simulator) -> Time {
    let run = sim.running().iter().map(|r| r.planned_end).max();
    let queued = sim
        .queued()
        .into_iter()
        .filter_map(|i| sim.record(i).start.map(|s| s + sim.planned_run_time(i)))
        .max();
    run.max(queued).unwrap_or(sim.now())
}

pub fn slots(a: SlotsArgs) -> Result<()> {
    let log = LogFile::resolve(&a.site.trace, a.site.data_dir.as_deref(), a.site.limit)?;
    out::check(&[("--trace", Some(log.path()))], &[("--out", Some(&a.out))])?;
    let site = Site::load(&log, a.site.procs, "--procs")?;
    site.warn_past_end(a.at);
    let (procs, path) = (site.procs, site.path.clone());
    if !(a.horizon_h > 0.0 && a.horizon_h.is_finite()) {
        bail!("--horizon-h must be positive");
    }
    if a.horizon_h * 3600.0 > MAX_SECONDS as f64 {
        bail!(
            "--horizon-h {} is too large: at most {} h, {MAX_SECONDS_TEXT}",
            limits::short(a.horizon_h),
            MAX_SECONDS / 3600
        );
    }
    let horizon = Horizon {
        ahead: (a.horizon_h * 3600.0).round() as Time,
        ..Horizon::default()
    };
    let (set, tasks, h) = match a.source {
        SourceArg::Schedule => {
            let mut sim = site.simulator(Policy::Conservative, a.estimates.into())?;
            sim.run_until(a.at);
            let set = schedule_holes(&sim, 0)?;
            let tasks = sim.running_count() + sim.queued().len();
            let h = horizon.at(a.at, last_finish(&sim));
            (set, tasks, h)
        }
        SourceArg::Figure2 => {
            if a.estimates != EstimatesArg::Actual {
                bail!(
                    "--source figure2 needs --estimates actual (Figure 2 cannot compress a schedule)"
                );
            }
            let first = site.jobs.first().map_or(0, |j| j.submit);
            let mut figure2 = SlotSite::new(procs, first.min(a.at));
            for j in site.jobs.iter().filter(|j| j.submit <= a.at) {
                figure2.submit(j.id, j.submit, j.procs, j.run)?;
            }
            figure2.advance(a.at);
            let ad = figure2.advertise(&horizon);
            (figure2.slots().clone(), figure2.tasks(), ad.horizon)
        }
    };
    let mut csv = String::from("start_s,start_h,duration_s,procs,divisible,extensible,cost_su\n");
    let offers = set.offers(h, 1.0, 0.0);
    for o in &offers {
        writeln!(
            csv,
            "{},{:.4},{},{},{},{},{:.4}",
            o.start,
            (o.start - a.at) as f64 / 3600.0,
            o.duration,
            o.procs,
            o.divisible,
            o.extensible,
            f64::from(o.procs) * o.duration as f64 / 3600.0
        )?;
    }
    out::write(&a.out, csv.as_bytes())?;
    let constrained = offers.iter().filter(|o| !o.extensible).count();
    out::say(
        out::data_on_stdout([a.out.as_path()]),
        &format!(
            "{path} on {procs} processors at t = {} s ({:.2} h), {} estimates, {} source\n  tasks in system  {tasks}\n  slots            {} ({constrained} constrained holes, {} edge slots)\n  horizon          {:.2} h ahead\n",
            a.at,
            a.at as f64 / 3600.0,
            match a.estimates {
                EstimatesArg::Actual => "exact",
                EstimatesArg::Requested => "requested",
            },
            match a.source {
                SourceArg::Schedule => "schedule-holes",
                SourceArg::Figure2 => "Figure 2",
            },
            offers.len(),
            offers.len() - constrained,
            (h - a.at) as f64 / 3600.0
        ),
    )?;
    note!("wrote {}", out::display(&a.out));
    Ok(())
}

/// The most MOGA generations `--generations` accepts.
const MAX_GENERATIONS: u32 = 100_000;

pub fn provision_cmd(a: ProvisionArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&a.alpha) {
        bail!("--alpha must be in [0, 1]");
    }
    if a.population < 2 {
        bail!("--population must be at least 2");
    }
    if a.population > MAX_POPULATION {
        bail!(
            "--population {} is too large: at most {MAX_POPULATION} (MOGA ranks every pair of plans in each generation)",
            a.population
        );
    }
    if a.generations > 0 {
        limits::count(
            "--generations",
            u32::try_from(a.generations).unwrap_or(u32::MAX),
            MAX_GENERATIONS,
            &format!(
                "at most {MAX_GENERATIONS} (10^4 times the thesis's 10: each generation evaluates and ranks the whole population)"
            ),
        )?;
    }
    let workflow = WorkflowSource::parse(&a.workflow)?;
    if workflow == WorkflowSource::Synthetic {
        limits::fits_memory(
            "--tasks",
            a.tasks,
            u64::from(a.tasks),
            std::mem::size_of::<gridsched_workflow::Task>() as u64,
            "tasks",
        )?;
    }
    // The sites.
    let specs: Vec<(String, Option<u32>)> = match &a.trace {
        Some(t) => vec![(t.clone(), a.procs)],
        None => sites::parse_list(&a.sites)?,
    };
    let logs: Vec<LogFile> = specs
        .iter()
        .map(|(name, _)| LogFile::resolve(name, a.data_dir.as_deref(), a.limit))
        .collect::<Result<_>>()?;
    let log_flag = if a.trace.is_some() {
        "--trace"
    } else {
        "--sites"
    };
    let mut inputs: Vec<(&str, Option<&Path>)> =
        logs.iter().map(|l| (log_flag, Some(l.path()))).collect();
    inputs.push(("--workflow", workflow.file()));
    out::check(
        &inputs,
        &[
            ("--out", Some(&a.out)),
            ("--slots-out", a.slots_out.as_deref()),
        ],
    )?;
    let procs_flag = if a.trace.is_some() {
        "--procs"
    } else {
        "NAME:PROCS in --sites"
    };
    let mut sites = Vec::new();
    let mut names = Vec::new();
    for ((name, procs), log) in specs.iter().zip(&logs) {
        let site = Site::load(log, *procs, procs_flag)?;
        site.warn_past_end(a.at);
        names.push(format!("{name}:{} ({})", site.procs, site.path));
        let mut sim = site.simulator(Policy::Conservative, Estimates::Actual)?;
        sim.run_until(a.at);
        sites.push(sim);
    }
    let widest = sites
        .iter()
        .map(|s| s.platform().machines()[0].cpus)
        .max()
        .unwrap_or(0);
    let synthetic = SyntheticWorkflow {
        tasks: a.tasks,
        procs_mean: a.procs_mean,
        max_procs: Some(widest),
        ..SyntheticWorkflow::default()
    };
    let (wf, own) = workflow.load(&synthetic, a.seed, widest)?;
    let transfer = if sites.len() > 1 {
        TransferModel::new(a.bandwidth_gbps * GBIT, a.latency_s)?
    } else {
        TransferModel::none()
    };
    let app = App::from_workflow(&wf, &transfer);
    // A task without run time or processors runs on no site (best effort and greedy give it
    // none; MOGA's evaluator places it where it is released first).
    let site_name = |r: u32| {
        if r == u32::MAX {
            "none".to_string()
        } else {
            specs[r as usize].0.clone()
        }
    };
    let plan = match a.algorithm {
        AlgorithmArg::Moga => plan_moga(&a, &app, &sites, &site_name)?,
        AlgorithmArg::Greedy => plan_greedy(&a, &app, &sites, &site_name)?,
    };
    let mut be_sites = sites;
    let be = besteffort::run(&app, &mut be_sites)?;
    // Such a task has no reservation in a greedy plan: it starts and ends when its last parent
    // ends (at the submission without parents), as in best effort. HEFT order is topological.
    let mut planned = plan.tasks.clone();
    for &t in app.order() {
        if planned[t as usize].is_none() && (app.duration(t) == 0 || app.procs(t) == 0) {
            let released = app
                .parents(t)
                .iter()
                .filter_map(|&(p, _)| planned[p as usize].map(|x| x.2))
                .fold(a.at, Time::max);
            planned[t as usize] = Some((u32::MAX, released, released));
        }
    }
    // The task schedule.
    let mut csv = String::from(
        "task,name,procs,runtime_s,plan_site,plan_start_s,plan_end_s,be_site,be_submit_s,be_start_s,be_end_s\n",
    );
    for t in wf.task_ids().take(own) {
        let task = wf.task(t);
        let pl = planned[t.index()];
        let b = be.tasks[t.index()];
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&task.id),
            csv_field(&task.name),
            task.procs,
            app.duration(t.0),
            pl.map(|x| site_name(x.0)).unwrap_or_default(),
            pl.map(|x| x.1.to_string()).unwrap_or_default(),
            pl.map(|x| x.2.to_string()).unwrap_or_default(),
            site_name(b.0),
            b.1,
            b.2,
            b.3
        )?;
    }
    let slots_csv = a
        .slots_out
        .as_ref()
        .map(|path| (path.as_path(), plan.slots_csv.clone()));
    // Both files or neither.
    let mut outputs = vec![(a.out.as_path(), csv.as_bytes())];
    outputs.extend(slots_csv.as_ref().map(|(p, s)| (*p, s.as_bytes())));
    out::write_all(&outputs)?;
    let mut text = format!(
        "{} ({} tasks) submitted at t = {} s on {}\n",
        wf.source(),
        own,
        a.at,
        names.join(", "),
    );
    text.push_str(&plan.summary);
    let be_h = be.makespan as f64 / 3600.0;
    writeln!(
        text,
        "  best effort        makespan {:.2} h, allocation cost {:.2} SU\n  provisioned / BE   makespan {}, cost {}",
        be_h,
        be.cost,
        times(plan.makespan_h, be_h),
        times(plan.cost, be.cost)
    )?;
    let to_stderr = out::data_on_stdout(
        [Some(a.out.as_path()), a.slots_out.as_deref()]
            .into_iter()
            .flatten(),
    );
    out::say(to_stderr, &text)?;
    note!("wrote {}", out::display(&a.out));
    Ok(())
}

/// A provisioned plan, whatever the algorithm: per task `(site, start, end)` (dummies
/// `None`), its makespan and cost, the summary lines and the `--slots-out` table.
struct PlanOut {
    tasks: Vec<Option<(u32, Time, Time)>>,
    makespan_h: f64,
    cost: f64,
    summary: String,
    slots_csv: String,
}

fn plan_moga(
    a: &ProvisionArgs,
    app: &App,
    sites: &[Simulator],
    site_name: &dyn Fn(u32) -> String,
) -> Result<PlanOut> {
    let config = MogaConfig {
        population: a.population,
        generations: a.generations,
        ..MogaConfig::default()
    };
    let mut rng = StreamKey::new(a.seed, "gridsched-provision")
        .stream("moga")
        .rng();
    let p = provision(app, sites, &config, &mut rng)?;
    let (member, schedule) = p.plan(app, a.alpha).with_context(|| {
        format!(
            "no feasible plan among {} evaluations ({} slots advertised); a larger search may find one (raise --population and --generations)",
            p.moga.evaluations,
            p.candidates.len()
        )
    })?;
    let bought = (0..p.candidates.len())
        .filter(|&i| member.genome[i] && schedule.charged[i] > 0.0)
        .count();
    let mut slots_csv =
        String::from("site,start_s,end_s,procs,divisible,extensible,selected,charged_su\n");
    for (i, c) in p.candidates.iter().enumerate() {
        writeln!(
            slots_csv,
            "{},{},{},{},{},{},{},{:.4}",
            site_name(c.resource),
            c.start,
            if c.extensible {
                String::new()
            } else {
                c.end.to_string()
            },
            c.procs,
            c.divisible,
            c.extensible,
            member.genome[i],
            schedule.charged[i]
        )?;
    }
    let mut summary = format!(
        "  advertised slots   {}\n  MOGA               {} plans evaluated ({} feasible), Pareto set of {}:\n",
        p.candidates.len(),
        p.moga.evaluations,
        p.moga.feasible,
        p.moga.archive.len()
    );
    for m in &p.moga.archive {
        writeln!(
            summary,
            "    AC {:>10.2} SU   makespan {:>8.2} h",
            m.eval.ac,
            m.eval.sc.unwrap_or(0) as f64 / 3600.0
        )?;
    }
    let makespan_h = member.eval.sc.unwrap_or(0) as f64 / 3600.0;
    writeln!(
        summary,
        "  plan (alpha {:.2})   makespan {:.2} h, allocation cost {:.2} SU, {} slots bought",
        a.alpha, makespan_h, member.eval.ac, bought
    )?;
    Ok(PlanOut {
        tasks: schedule
            .tasks
            .iter()
            .map(|t| t.map(|x| (x.resource, x.start, x.end)))
            .collect(),
        makespan_h,
        cost: member.eval.ac,
        summary,
        slots_csv,
    })
}

fn plan_greedy(
    a: &ProvisionArgs,
    app: &App,
    sites: &[Simulator],
    site_name: &dyn Fn(u32) -> String,
) -> Result<PlanOut> {
    // The reservations go into clones: the best-effort run sees the sites as they were.
    let mut clones = sites.to_vec();
    let g = provision_greedy(app, &mut clones, PricingPolicy::Conservative, a.alpha)?;
    let mut tasks = vec![None; app.len()];
    let mut slots_csv = String::from("task,site,start_s,end_s,procs,base_su,price_su\n");
    let mut priced = 0;
    for r in &g.reservations {
        tasks[r.task as usize] = Some((r.resource, r.start, r.end));
        priced += usize::from(r.price > 0.0);
        writeln!(
            slots_csv,
            "{},{},{},{},{},{:.4},{:.4}",
            r.task,
            site_name(r.resource),
            r.start,
            r.end,
            r.procs,
            f64::from(r.procs) * (r.end - r.start) as f64 / 3600.0,
            r.price
        )?;
    }
    let makespan_h = g.makespan as f64 / 3600.0;
    let summary = format!(
        "  greedy (alpha {:.2}) {} reservations ({} priced above 0) chosen among {} priced starts\n  plan               makespan {:.2} h, allocation cost {:.2} SU\n",
        a.alpha,
        g.reservations.len(),
        priced,
        g.answers,
        makespan_h,
        g.cost
    );
    Ok(PlanOut {
        tasks,
        makespan_h,
        cost: g.cost,
        summary,
        slots_csv,
    })
}

/// `x` as a multiple of `of` (`x1.250`), or `-` when `of` is 0 (a workflow whose tasks take
/// no time: 0/0 is no ratio).
fn times(x: f64, of: f64) -> String {
    if of > 0.0 {
        format!("x{:.3}", x / of)
    } else {
        "-".to_string()
    }
}

/// A CSV field, quoted when it holds a comma, quote or newline.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
