//! Where the CLI's outputs go: per-row files through the harness's one output writer (so `-`
//! means standard output, symlinks are followed, devices and FIFOs are written in place), and
//! human-readable reports on standard output — or on standard error when the data itself goes
//! to standard output, so a pipe carries only the data.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
pub use gridsched_repro::output::Content;

/// Refuses, before the command does any work, outputs that would destroy one of its inputs
/// or each other: an output that is the same file as an input (`trace convert kth.swf --out
/// kth.swf`), two outputs naming one file, or two on standard output. Standard output,
/// devices and FIFOs are exempt from the file checks (`/dev/null` may be given twice).
/// Each path comes with the name the error gives it (`--out`); `None`s are skipped.
pub fn check<'a>(
    inputs: &[(&'a str, Option<&'a Path>)],
    outputs: &[(&'a str, Option<&'a Path>)],
) -> Result<()> {
    let given = |list: &[(&'a str, Option<&'a Path>)]| {
        list.iter()
            .filter_map(|&(name, p)| p.map(|p| (name, p)))
            .collect::<Vec<_>>()
    };
    gridsched_repro::output::check_paths(given(inputs), given(outputs))?;
    Ok(())
}

/// An output directory named by `flag` (`--out-dir`): created when missing, but only the
/// directory itself: its parent must exist (a mistyped path must not grow a tree).
pub fn out_dir(flag: &str, dir: &Path) -> Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => anyhow::bail!(
            "{flag} {}: its parent directory does not exist (only the last directory is created)",
            dir.display()
        ),
        Err(e) => Err(e).with_context(|| format!("{flag} {}", dir.display())),
    }
}

/// Writes a per-row output file (`-`: standard output).
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    write_all(&[(path, bytes)])
}

/// Writes a command's outputs all or nothing: if one cannot be written (a missing directory
/// that cannot be created, a read-only one, a full device), no file is replaced. Standard
/// output and devices are written first; files are renamed into place only after them.
pub fn write_all(outputs: &[(&Path, &[u8])]) -> Result<()> {
    write_all_with(
        outputs
            .iter()
            .map(|&(path, bytes)| (path, Content::Bytes(bytes)))
            .collect(),
    )
}

/// [`write_all`] with contents that may be writer functions: a large output streams into its
/// temporary file instead of being assembled in memory first.
pub fn write_all_with(outputs: Vec<(&Path, Content<'_>)>) -> Result<()> {
    let paths: Vec<&Path> = outputs.iter().map(|(p, _)| *p).collect();
    gridsched_repro::output::write_all_atomic_with(outputs).map_err(|e| {
        // Name the file once: the writer's error usually starts with it, but not when the
        // failure was in its directory (a temporary file that could not be created).
        let shown: Vec<String> = paths.iter().map(|p| display(p)).collect();
        let message = e.to_string();
        if shown.iter().any(|s| message.contains(s.as_str())) {
            anyhow::Error::new(e).context("output not written")
        } else {
            anyhow::Error::new(e).context(format!("output not written to {}", shown.join(", ")))
        }
    })
}

/// `standard output` for `-`, else the path as given (`/dev/stdout` stays `/dev/stdout`).
pub fn display(path: &Path) -> String {
    if path.as_os_str() == gridsched_repro::output::STDOUT {
        "standard output".to_string()
    } else {
        path.display().to_string()
    }
}

/// Whether any of `paths` is standard output, as `-` or as a path to the open descriptor
/// (`/dev/stdout`, whatever it was redirected to): then reports go to standard error.
pub fn data_on_stdout<'a>(paths: impl IntoIterator<Item = &'a Path>) -> bool {
    paths.into_iter().any(gridsched_repro::output::is_stdout)
}

/// Prints a report: to standard output, or to standard error when `to_stderr`. Unlike
/// `println!`, a closed pipe is an error the caller returns (and `main` ends quietly on),
/// not a panic.
pub fn say(to_stderr: bool, text: &str) -> Result<()> {
    let result = if to_stderr {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    result.context("writing to standard output")
}

/// Whether an error is a closed pipe on our output (`gridsched ... | head`): not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let broken = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        // The harness's I/O errors carry the OS error in their message, not as a source.
        c.downcast_ref::<std::io::Error>().is_some_and(broken)
            || matches!(
                c.downcast_ref::<gridsched_repro::HarnessError>(),
                Some(gridsched_repro::HarnessError::Io { error, .. }) if broken(error)
            )
    })
}
