//! `bench-report`: criterion's results as tables and plots in docs/benchmarks.md.

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
    /// Document whose `<!-- bench:begin -->` ... `<!-- bench:end -->` section is regenerated
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
    println!(
        "wrote {} ({} benchmarks, {} decision rows) and {} plots in {}",
        paths.out.display(),
        summary.benchmarks,
        summary.decision_rows,
        summary.figures.len(),
        paths.figures_dir.display()
    );
    Ok(())
}
