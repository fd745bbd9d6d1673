//! `bench-report`: criterion's results as tables and plots in docs/benchmarks.md, as the
//! `*.report.toml` file beside each benchmark describes them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use gridsched_repro::Project;
use gridsched_repro::bench::{ReportPaths, discover_specs, write_report};

#[derive(Debug, Args)]
pub struct BenchReportArgs {
    /// Criterion's output directory (default: target/criterion at the project root).
    #[arg(long)]
    criterion_dir: Option<PathBuf>,
    /// Document whose marked sections (`<!-- <section>:begin -->` ... `<!-- <section>:end -->`,
    /// one per section the report files name) are regenerated; a section without results in
    /// the criterion directory is left as it is (default: docs/benchmarks.md; created if
    /// missing; `-` for standard output, which, like a device or FIFO, gets a new document).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the SVG plots go (default: figures/bench).
    #[arg(long)]
    figures: Option<PathBuf>,
    /// A report file to use (repeatable; default: every crates/*/benches/*.report.toml).
    #[arg(long = "spec", value_name = "FILE")]
    specs: Vec<PathBuf>,
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
    let specs = if args.specs.is_empty() {
        discover_specs(&root)?
    } else {
        args.specs
    };
    let paths = ReportPaths {
        criterion_dir: args
            .criterion_dir
            .unwrap_or_else(|| root.join("target/criterion")),
        out: args.out.unwrap_or_else(|| root.join("docs/benchmarks.md")),
        figures_dir: args.figures.unwrap_or_else(|| root.join("figures/bench")),
        specs,
    };
    let summary = write_report(&paths)?;
    let sections: Vec<String> = summary
        .sections
        .iter()
        .map(|(s, rows)| format!("`{s}` ({rows} rows)"))
        .collect();
    // With the document itself on standard output (`--out -`), the note goes to standard error.
    crate::out::say(
        crate::out::data_on_stdout([paths.out.as_path()]),
        &format!(
            "wrote {} of {} from {} benchmarks, and {} plots in {}\n",
            if sections.is_empty() {
                "no section".to_string()
            } else {
                format!("the sections {}", sections.join(", "))
            },
            paths.out.display(),
            summary.benchmarks,
            summary.figures.len(),
            paths.figures_dir.display()
        ),
    )
}
