//! `list`, `reproduce`, `merge`, `report` and `site`.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use gridsched_repro::claims::{ClaimKind, Verdict};
use gridsched_repro::report::Counts;
use gridsched_repro::{
    Experiment, ExperimentResult, Project, Registry, RunOptions, Scale, report as repro_report,
};

fn registry() -> Result<Registry> {
    gridsched_experiments::registry().context("loading the experiment entries")
}

fn project(root: Option<PathBuf>) -> Result<Project> {
    match root {
        Some(root) => Ok(Project { root }),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            Project::discover(&cwd).context(
                "not inside a gridsched checkout (no Cargo.toml + experiments/ above the current directory); pass --root DIR",
            )
        }
    }
}

pub fn list() -> Result<()> {
    let registry = registry()?;
    let width = registry
        .all()
        .iter()
        .map(|e| e.paper.short.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut text = format!("{:<22} {:<width$} {:<7} TITLE\n", "ID", "DOCUMENT", "KIND");
    for e in registry.all() {
        text.push_str(&format!(
            "{:<22} {:<width$} {:<7} {}\n",
            e.spec.id, e.paper.short, e.spec.kind, e.spec.title
        ));
    }
    crate::out::say(false, &text)
}

fn parse_scale(s: &str) -> Result<Scale, String> {
    Scale::from_name(s).ok_or_else(|| format!("unknown scale `{s}`; expected quick or paper"))
}

fn parse_shard(s: &str) -> Result<(u32, u32), String> {
    let (k, n) = s.split_once('/').ok_or("expected k/N, e.g. 2/8")?;
    let k: u32 = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: u32 = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a shard count"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: need 1 <= k <= N"));
    }
    Ok((k, n))
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Experiment ids (`castillo-fig-3.4`, or bare `fig-3.4`; a bare id two documents share
    /// means the first document's, e.g. `fig-5.4` is `castillo-fig-5.4`, not `kumar-fig-5.4`).
    #[arg(required_unless_present = "all")]
    ids: Vec<String>,
    /// Reproduce every experiment.
    #[arg(long, conflicts_with = "ids")]
    all: bool,
    /// quick (seconds per figure) or paper (the document's own scale).
    #[arg(long, default_value = "quick", value_parser = parse_scale)]
    scale: Scale,
    /// Override the number of replications per point (requires --root: results of another
    /// size must not replace the committed ones).
    #[arg(long, requires = "root")]
    reps: Option<u32>,
    /// Override the number of jobs per replication (requires --root, as --reps).
    #[arg(long, requires = "root")]
    jobs: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Run only a deterministic 1/N of the work: shard k of N (1-based), e.g. 3/8.
    #[arg(long, value_parser = parse_shard)]
    shard: Option<(u32, u32)>,
    /// Project root holding data/ and figures/ (default: found from the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Where the real input data (logs, ETC matrices, workflows) is read from (default:
    /// $GRIDSCHED_DATA, else ../shared/data next to the checkout).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Override a model parameter for every series, e.g. `--set ready_offset=zero` (a
    /// sensitivity run; requires --root so the committed results are not overwritten).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_override, requires = "root")]
    overrides: Vec<(String, toml::Value)>,
    /// Allow `--scale paper` from a working tree with uncommitted changes (refused by default:
    /// a paper-scale result must name the committed revision that produced it; with this flag
    /// its provenance says `-dirty` and REPRODUCTION.md flags it).
    #[arg(long)]
    allow_dirty: bool,
}

/// `name=value`, the value read as a TOML value (numbers, booleans), else as a string.
fn parse_override(s: &str) -> Result<(String, toml::Value), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|t| t.get("v").cloned())
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    Ok((name.trim().to_string(), parsed))
}

fn selected<'a>(registry: &'a Registry, ids: &[String], all: bool) -> Result<Vec<&'a Experiment>> {
    if all {
        return Ok(registry.all().iter().collect());
    }
    let mut out: Vec<&Experiment> = Vec::new();
    for id in ids {
        let e = registry.resolve(id)?;
        let candidates = registry.candidates(id);
        if candidates.len() > 1 {
            note!(
                "note: `{id}` names {}; running {} (use the full id for another)",
                candidates.join(" and "),
                e.spec.id
            );
        }
        if !out.iter().any(|x| x.spec.id == e.spec.id) {
            out.push(e);
        }
    }
    Ok(out)
}

/// What a run's runner holds at the least per run before any model runs: its work item and
/// the slot its rows come back in.
const BYTES_PER_RUN: u64 = 64;
/// What a replication holds at the least per job in the models that keep their jobs (all but
/// the chapter-3 reservation models, which stream them): a submit time and a length.
const BYTES_PER_JOB: u64 = 16;
/// A worker thread's stack (std's default, which rayon keeps).
const BYTES_PER_THREAD: u64 = 2 << 20;

/// `--reps`, `--jobs` and `--threads` checked against the memory the run would hold, before
/// any work (`limits::fits_memory`): a size that cannot fit is refused by name.
fn check_sizes(args: &ReproduceArgs, experiments: &[&Experiment]) -> Result<()> {
    let workers = match args.threads {
        Some(0) => bail!("--threads must be positive"),
        Some(t) => {
            let t = t as u64;
            crate::input::limits::fits_memory(
                "--threads",
                t,
                t,
                BYTES_PER_THREAD,
                "worker stacks",
            )?;
            t
        }
        None => std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    };
    if let Some(reps) = args.reps {
        for exp in experiments {
            let Some(base) = exp.sweep.scale(args.scale) else {
                continue;
            };
            let size = gridsched_repro::spec::ScaleSpec {
                replications: reps,
                jobs: base.jobs,
            };
            let runs = gridsched_repro::runner::work_items_len(&exp.sweep, args.scale, size);
            crate::input::limits::fits_memory("--reps", reps, runs as u64, BYTES_PER_RUN, "runs")
                .with_context(|| format!("{} at {} scale", exp.spec.id, args.scale.name()))?;
        }
    }
    if let Some(jobs) = args.jobs {
        crate::input::limits::fits_memory(
            "--jobs",
            jobs,
            jobs.saturating_mul(workers),
            BYTES_PER_JOB,
            "jobs (one replication per worker)",
        )?;
    }
    Ok(())
}

pub fn reproduce(args: ReproduceArgs) -> Result<()> {
    if let Some(dir) = &args.data_dir {
        gridsched_sim::data::set_process_data_dir(dir);
    }
    let registry = registry()?;
    let experiments = selected(&registry, &args.ids, args.all)?;
    check_sizes(&args, &experiments)?;
    let project = project(args.root)?;
    let opts = RunOptions {
        scale: Some(args.scale),
        replications: args.reps,
        jobs: args.jobs,
        threads: args.threads,
        shard: args.shard,
        progress: true,
        journal_dir: None,
        overrides: args.overrides.into_iter().collect(),
        allow_dirty: args.allow_dirty,
    };
    let results = gridsched_repro::reproduce(&experiments, &opts, Some(&project))?;
    let mut totals = Counts::default();
    for (exp, result) in experiments.iter().zip(&results) {
        print_result(exp, result, &project)?;
        result.claims.iter().for_each(|c| totals.add(c));
    }
    if results.len() > 1 {
        crate::out::say(
            false,
            &format!("{} experiments: {}\n", results.len(), totals.line()),
        )?;
    }
    Ok(())
}

/// Prints an experiment's result on standard output (through `out::say`: a closed pipe ends
/// the command quietly, a full device is an error, neither a panic).
fn print_result(exp: &Experiment, r: &ExperimentResult, project: &Project) -> Result<()> {
    let mut s = String::new();
    let rel = |p: &PathBuf| {
        p.strip_prefix(&project.root)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let resumed = if r.resumed > 0 {
        format!(", {} runs resumed from a journal", r.resumed)
    } else {
        String::new()
    };
    writeln!(
        s,
        "{} — {} ({} scale: {} runs x {} jobs per point; {:.1} s{resumed})",
        exp.spec.id,
        exp.spec.title,
        r.scale.name(),
        r.size.replications,
        r.size.jobs,
        r.wall_seconds
    )?;
    if let Some((k, n)) = r.shard {
        writeln!(
            s,
            "  shard {k}/{n}: {} runs; combine the shards with `gridsched merge {}`",
            r.computed, exp.spec.id
        )?;
    }
    for (c, claim) in r.claims.iter().zip(&exp.claims) {
        let soft = if c.soft && c.verdict != Verdict::SoftFail {
            " (soft)"
        } else {
            ""
        };
        let kind = match c.kind {
            ClaimKind::Document => "",
            ClaimKind::Calibrated => " [calibrated]",
            ClaimKind::Ours => " [our check]",
            ClaimKind::Sensitivity => " [sensitivity]",
        };
        writeln!(
            s,
            "  {:<9} {}{soft}{kind}: {}",
            c.verdict.as_str(),
            c.id,
            c.summary
        )?;
        if matches!(c.verdict, Verdict::Tie | Verdict::Fail | Verdict::SoftFail) {
            let why = c.if_fails.as_deref().unwrap_or("not investigated yet");
            // A reason is investigated on the committed results, the paper-scale ones where
            // they exist: its numbers are then not the ones printed above.
            let scale_of_reason = if c.if_fails.is_some()
                && claim.spec().if_fails_quick.is_none()
                && r.scale != Scale::Paper
                && project.runs_csv(exp, Scale::Paper).is_file()
            {
                " (investigated at paper scale)"
            } else {
                ""
            };
            writeln!(s, "            why{scale_of_reason}: {why}")?;
        }
    }
    if !r.claims.is_empty() {
        let mut counts = Counts::default();
        r.claims.iter().for_each(|c| counts.add(c));
        writeln!(s, "  claims: {}", counts.line())?;
    }
    // A table entry prints its table (ours beside the document's cells), as written.
    if let Some(md) = r
        .files
        .iter()
        .find(|f| f.to_string_lossy().ends_with(".table.md"))
        .and_then(|f| std::fs::read_to_string(f).ok())
    {
        for line in md
            .lines()
            .skip_while(|l| l.starts_with('#') || l.is_empty())
        {
            writeln!(s, "  {line}")?;
        }
    }
    for f in &r.files {
        writeln!(s, "  wrote {}", rel(f))?;
    }
    crate::out::say(false, &s)
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Experiment ids whose shards to combine.
    #[arg(required_unless_present = "all")]
    ids: Vec<String>,
    /// Merge every experiment that has shard files.
    #[arg(long, conflicts_with = "ids")]
    all: bool,
    /// The scale whose shards to combine (quick or paper).
    #[arg(long, default_value = "paper", value_parser = parse_scale)]
    scale: Scale,
    /// Project root holding data/ and figures/ (default: found from the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
}

pub fn merge(args: MergeArgs) -> Result<()> {
    let registry = registry()?;
    let project = project(args.root)?;
    let experiments = selected(&registry, &args.ids, args.all)?;
    let mut merged = 0;
    for exp in experiments {
        match gridsched_repro::reproduce::merge(exp, args.scale, &project)? {
            Some(result) => {
                print_result(exp, &result, &project)?;
                merged += 1;
            }
            None if !args.all => bail!(
                "{}: no shard files for {} scale under data/{}/shards/",
                exp.spec.id,
                args.scale.name(),
                exp.paper.key
            ),
            None => {}
        }
    }
    if merged == 0 {
        bail!("no shard files found");
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ReplotArgs {
    /// Experiment ids whose figures to redraw.
    #[arg(required_unless_present = "all")]
    ids: Vec<String>,
    /// Redraw every experiment that has results (SVGs, and tables' Markdown pages).
    #[arg(long, conflicts_with = "ids")]
    all: bool,
    /// Only this scale (quick or paper); default: both, wherever results exist.
    #[arg(long, value_parser = parse_scale)]
    scale: Option<Scale>,
    /// Project root holding data/ and figures/ (default: found from the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
}

/// Redraws SVGs from the runs CSVs in data/: the summaries, claims and CSVs are untouched.
pub fn replot(args: ReplotArgs) -> Result<()> {
    let registry = registry()?;
    let project = project(args.root)?;
    let experiments = selected(&registry, &args.ids, args.all)?;
    let scales = match args.scale {
        Some(s) => vec![s],
        None => vec![Scale::Quick, Scale::Paper],
    };
    let mut drawn = 0;
    for exp in &experiments {
        let mut any = false;
        for &scale in &scales {
            for file in gridsched_repro::reproduce::replot(exp, scale, &project)? {
                let shown = file.strip_prefix(&project.root).unwrap_or(&file);
                crate::out::say(
                    false,
                    &format!("{}: redrew {}\n", exp.spec.id, shown.display()),
                )?;
                drawn += 1;
                any = true;
            }
        }
        if !any && !args.all {
            bail!(
                "{}: no results in data/{}/ to redraw; run `gridsched reproduce {}` first",
                exp.spec.id,
                exp.paper.key,
                exp.spec.id
            );
        }
    }
    if drawn == 0 {
        bail!(
            "no results found under {}",
            project.root.join("data").display()
        );
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Output file (default: REPRODUCTION.md at the project root).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Project root whose data/ and figures/ the report reads (default: found from the current
    /// directory).
    #[arg(long)]
    root: Option<PathBuf>,
}

pub fn report(args: ReportArgs) -> Result<()> {
    let registry = registry()?;
    let project = project(args.root)?;
    // The report is built from what the root holds: a root that is not there has nothing,
    // and an empty report would say so only by omission (`replot` refuses it too).
    if !project.root.join("data").is_dir() {
        bail!(
            "{}: no data/ directory with results to report (is this the project root?)",
            project.root.display()
        );
    }
    let out = args
        .out
        .unwrap_or_else(|| project.root.join("REPRODUCTION.md"));
    let summary = repro_report::write_report(&registry, &project, &out)?;
    // With the report itself on standard output (`--out -`), the note goes to standard error.
    crate::out::say(
        crate::out::data_on_stdout([out.as_path()]),
        &format!("wrote {} ({summary})\n", out.display()),
    )
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// Folder to write the site to. It is replaced as a whole, so it must be missing, empty,
    /// or a site this command wrote before (unless --replace).
    #[arg(long)]
    out: PathBuf,
    /// Project root whose data/, figures/, experiments/ and docs/ the site is built from
    /// (default: found from the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Folder of the implementation specs, rendered as pages that the interpretations' section
    /// references link to (default: shared/spec beside the project root, when it exists).
    #[arg(long)]
    spec_dir: Option<PathBuf>,
    /// Replace --out even when it holds other files (everything in it is deleted).
    #[arg(long)]
    replace: bool,
}

pub fn site(args: SiteArgs) -> Result<()> {
    let registry = registry()?;
    let project = project(args.root)?;
    let spec_dir = match args.spec_dir {
        Some(dir) if !dir.is_dir() => bail!("{}: no such spec folder", dir.display()),
        Some(dir) => Some(dir),
        None => project
            .root
            .parent()
            .map(|p| p.join("shared").join("spec"))
            .filter(|d| d.is_dir()),
    };
    let options = gridsched_repro::site::SiteOptions {
        spec_dir,
        repository: env!("CARGO_PKG_REPOSITORY").to_string(),
    };
    let site = gridsched_repro::site::render_site(&registry, &project, &options)?;
    gridsched_repro::site::write_site(&site, &args.out, args.replace)?;
    let pages = site.pages().count();
    eprintln!(
        "wrote {} ({pages} pages, {} files{})",
        args.out.display(),
        site.files.len(),
        if options.spec_dir.is_some() {
            ", specs linked"
        } else {
            "; no spec folder, section references left as text"
        }
    );
    Ok(())
}
