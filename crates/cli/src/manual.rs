//! `gridsched completions <shell>` and `gridsched man`: shell completion scripts and man pages
//! generated from the clap definitions, so they can never disagree with the commands.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, CommandFactory};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `gridsched.1` and one `gridsched-<command>.1` per command (and subcommand) into
    /// this directory, created if missing; without it, `gridsched.1` goes to standard output.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// Prints the completion script of `shell` on standard output.
pub fn completions(args: CompletionsArgs) -> Result<()> {
    let mut cmd = crate::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "gridsched", &mut script);
    crate::out::write(Path::new("-"), &script)
}

/// Renders the man pages: the top-level page to standard output, or every page into a
/// directory (all written or none, like every other output).
pub fn man(args: ManArgs) -> Result<()> {
    let cmd = crate::Cli::command();
    let Some(dir) = args.out_dir else {
        return crate::out::write(Path::new("-"), &render(cmd)?);
    };
    crate::out::out_dir("--out-dir", &dir)?;
    let mut pages = Vec::new();
    collect(&cmd, None, &mut pages)?;
    let files: Vec<(PathBuf, Vec<u8>)> = pages
        .into_iter()
        .map(|(name, page)| (dir.join(format!("{name}.1")), page))
        .collect();
    let outputs: Vec<(&Path, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_path(), b.as_slice()))
        .collect();
    crate::out::write_all(&outputs)?;
    note!("wrote {} man pages into {}", files.len(), dir.display());
    Ok(())
}

/// The page of `cmd` and of every visible subcommand below it, named `gridsched-a-b`.
fn collect(
    cmd: &clap::Command,
    parent: Option<&str>,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    let name = match parent {
        Some(p) => format!("{p}-{}", cmd.get_name()),
        None => cmd.get_name().to_string(),
    };
    pages.push((name.clone(), render(cmd.clone().name(name.clone()))?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, Some(&name), pages)?;
    }
    Ok(())
}

fn render(cmd: clap::Command) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .context("rendering a man page")?;
    Ok(page)
}
