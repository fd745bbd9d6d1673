//! `bench-report`: criterion's results (chapter-3 decisions and index operations, chapter-4
//! FF-HU / FF-HA / FF-HA+) as tables and plots in docs/benchmarks.md.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use gridsched_repro::Project;
use gridsched_repro::bench::{ReportPaths, write_report};

#[derive(Debug, Args)]
pub struct BenchReportArgs {
    /// Criterion's output directory (default: target/criterion at the project root).
    #[arg(long)]
    criterion_dir: Option<PathBuf>,
    /// Document whose `<!-- bench:begin -->` ... `<!-- bench:end -->` (chapter 3) and
    /// `<!-- bench-hetero:begin -->` ... `<!-- bench-hetero:end -->` (chapter 4) sections are
    /// regenerated; a section without results in the criterion directory is left as it is
    /// (default: docs/benchmarks.md; created if missing).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the SVG plots go (default: figures/bench).
    #[arg(long)]
    figures: Option<PathBuf>,
    /// Project root (default: found from the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
}

pub fn report(args: BenchReportArgs) -> Result<()> {
    let root = match args.root {
        Some(root) => root,
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            Project::discover(&cwd)
                .context("not inside a gridsched checkout; pass --root DIR")?
                .root
        }
    };
    let paths = ReportPaths {
        criterion_dir: args
            .criterion_dir
            .unwrap_or_else(|| root.join("target/criterion")),
        out: args.out.unwrap_or_else(|| root.join("docs/benchmarks.md")),
        figures_dir: args.figures.unwrap_or_else(|| root.join("figures/bench")),
    };
    let summary = write_report(&paths)?;
    let sections = match (summary.chapter3_written, summary.hetero_written) {
        (true, true) => "chapter-3 and chapter-4 sections",
        (true, false) => "chapter-3 section",
        (false, true) => "chapter-4 section",
        (false, false) => "no section",
    };
    println!(
        "wrote the {sections} of {} ({} benchmarks, {} decision rows, {} hetero rows) and {} plots in {}",
        paths.out.display(),
        summary.benchmarks,
        summary.decision_rows,
        summary.hetero_rows,
        summary.figures.len(),
        paths.figures_dir.display()
    );
    Ok(())
}
