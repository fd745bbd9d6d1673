//! Result files: per-run CSV, summary CSV, provenance sidecar — written atomically.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::HarnessError;
use crate::registry::Experiment;
use crate::spec::Scale;
use crate::table::{Lookup, RunValue, SummaryTable};

/// Header of the per-run CSV (Castillo spec §5): one row per (point, series, run, metric).
/// `variant` holds the scale; `algorithm` the series name.
pub const RUNS_HEADER: [&str; 8] = [
    "experiment",
    "variant",
    "point_param",
    "point_value",
    "algorithm",
    "run",
    "metric",
    "value",
];

/// The path that means standard output for a per-row output (`--out -`).
pub const STDOUT: &str = "-";

/// Whether `path` names standard output: `-`, or a path to this process's standard output
/// as an open file descriptor (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, a link to one
/// of them, or another descriptor's path open on the same file, as `/dev/fd/3` after `3>&1`).
/// Such a path is written to the stream like `-`, whatever file the stream was redirected to.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT || matches!(descriptor(path), Some(Descriptor::Stdout))
}

/// Whether [`write_atomic`] writes `path` in place rather than replacing a regular file:
/// standard output (`-`, `/dev/stdout`), another open descriptor, a device, FIFO or socket.
/// Such an output holds nothing to read back and update (reading `/dev/full` never ends, a
/// FIFO waits for a writer).
pub fn is_written_in_place(path: &Path) -> bool {
    path.as_os_str() == STDOUT
        || descriptor(path).is_some()
        || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// An already-open file descriptor that a path names.
#[derive(Debug)]
enum Descriptor {
    /// Standard output (descriptor 1, or one open on the same file).
    Stdout,
    /// Standard error (descriptor 2, or one open on the same file).
    Stderr,
    /// Another descriptor, by the path of its entry in the descriptor directory.
    Other(PathBuf),
}

/// Which open descriptor `path` names, if any: the path, or a symbolic link it leads to, is an
/// entry of a descriptor directory (`/proc/<pid>/fd`, `/proc/<pid>/task/<tid>/fd`, `/dev/fd`;
/// `/dev/stdout` is a link to `/proc/self/fd/1`). Such an entry is a "magic" link: opening it
/// reaches the open file itself, which may be a pipe, or a regular file that a rename through
/// the link's text would replace under the shell that opened it (`>> app.log`).
#[cfg(unix)]
fn descriptor(path: &Path) -> Option<Descriptor> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let (link, own) = descriptor_link(path)?;
    match own {
        Some(1) => return Some(Descriptor::Stdout),
        Some(2) => return Some(Descriptor::Stderr),
        _ => {}
    }
    // Another descriptor open on the file of standard output or error (`3>&1`) is that stream.
    let identity = |m: std::fs::Metadata| (m.dev(), m.ino());
    let stream = |fd: std::os::fd::BorrowedFd<'_>| {
        let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        file.metadata().ok().map(identity)
    };
    let target = std::fs::metadata(&link).ok().map(identity);
    if target.is_some() && target == stream(std::io::stdout().as_fd()) {
        Some(Descriptor::Stdout)
    } else if target.is_some() && target == stream(std::io::stderr().as_fd()) {
        Some(Descriptor::Stderr)
    } else {
        Some(Descriptor::Other(link))
    }
}

#[cfg(not(unix))]
fn descriptor(_path: &Path) -> Option<Descriptor> {
    None
}

/// Follows `path` through symbolic links until an entry of a descriptor directory: that entry
/// and, when the descriptor is this process's own, its number.
#[cfg(unix)]
fn descriptor_link(path: &Path) -> Option<(PathBuf, Option<u32>)> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(own) = descriptor_entry(&current) {
            return Some((current, own));
        }
        if !std::fs::symlink_metadata(&current)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
        let target = std::fs::read_link(&current).ok()?;
        current = match current.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    None
}

/// Whether `path` is `<descriptor directory>/<n>`: `Some(Some(n))` for a descriptor of this
/// process, `Some(None)` for another process's.
#[cfg(unix)]
fn descriptor_entry(path: &Path) -> Option<Option<u32>> {
    let name = path.file_name()?.to_str()?;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = name.parse().ok()?;
    let parent = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(parent).ok()?;
    let parts: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let me = std::process::id().to_string();
    let own = match parts.as_slice() {
        ["/", "proc", pid, "fd"] | ["/", "proc", pid, "task", _, "fd"] => *pid == me,
        ["/", "dev", "fd"] => true,
        _ => return None,
    };
    Some(own.then_some(n))
}

/// How many symbolic links [`resolve_links`] follows before it calls the chain a loop (the
/// kernel's own limit for one path lookup is 40).
const MAX_LINKS: usize = 40;

/// Follows `path` through symbolic links to the file it finally names, which need not exist
/// (a dangling link resolves to its target's path). Relative link targets are taken relative to
/// the link's directory.
pub fn resolve_links(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MAX_LINKS} levels of symbolic links"
    )))
}

/// The temporary files staged and not yet renamed into place (or dropped), so that an
/// interrupt can remove them: a signal ends the process without running destructors.
static TEMPORARIES: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

fn register_temporary(path: &Path) {
    if let Ok(mut live) = TEMPORARIES.lock() {
        live.push(path.to_path_buf());
    }
}

fn forget_temporary(path: &Path) {
    if let Ok(mut live) = TEMPORARIES.lock() {
        live.retain(|p| p != path);
    }
}

/// Removes every temporary file an output has staged and not yet put in place: what an
/// interrupt handler calls before it ends the process (`gridsched` does on SIGINT, SIGTERM
/// and SIGHUP), so no hidden `.gridsched-XXXXXX` file is left beside an output. A file
/// dropped on an error path is already gone; removing it again is harmless.
pub fn remove_temporary_files() {
    if let Ok(mut live) = TEMPORARIES.lock() {
        for p in live.drain(..) {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Writes an output file wherever it points, the one way every command and the harness write:
///
/// - `-`, or a path that names standard output as an open descriptor (`/dev/stdout`,
///   `/dev/fd/1`, `/proc/self/fd/1`; see [`is_stdout`]): standard output, written to the
///   stream itself, so `--out /dev/stdout >> app.log` appends to app.log and never replaces it;
///   `/dev/stderr` (and the like) likewise goes to standard error;
/// - a path to another open descriptor (`/dev/fd/3`): opened through that path in append mode
///   and written in place, never replaced;
/// - a symbolic link is followed to the file it names (the link stays a link);
/// - a regular file, or a path that does not exist yet: through a temporary file in the same
///   directory and a rename, so a reader (or an interrupted run) never sees a half-written file.
///   A new file gets the permissions `File::create` would give (`0666` less the umask); a
///   replaced file keeps its permission bits;
/// - a character or block device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe):
///   written directly, never replaced;
/// - a directory: an error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), HarnessError> {
    stage(path, bytes)?.commit()
}

/// [`write_atomic`] for a file of the project's own layout (`data/<paper>/…`,
/// `figures/<paper>/…`, the benchmark figures): its directory is created first. A user's
/// output path never goes through here.
pub fn write_project_file(path: &Path, bytes: &[u8]) -> Result<(), HarnessError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| HarnessError::io(dir, e))?;
    }
    write_atomic(path, bytes)
}

/// Writes several outputs all or nothing, as far as the file system allows:
///
/// 1. every target is checked and every regular file's content is written to a temporary
///    file beside it (the other outputs' content is assembled in memory);
/// 2. standard output, standard error, devices, FIFOs and open descriptors are written, in
///    the order given: they cannot be written aside and renamed, nor taken back;
/// 3. only when all of them succeeded are the temporary files renamed over their targets.
///
/// A failure in step 1 or 2 (a directory that cannot be created, `/dev/full`, a closed pipe)
/// leaves every regular file as it was, and no temporary file behind; a failure in step 2
/// may leave the streams and devices before it written. Only a rename failing in step 3 (a
/// target replaced by a directory meanwhile) can leave some files replaced and others not.
pub fn write_all_atomic(outputs: &[(&Path, &[u8])]) -> Result<(), HarnessError> {
    write_all_atomic_with(
        outputs
            .iter()
            .map(|&(path, bytes)| (path, Content::Bytes(bytes)))
            .collect(),
    )
}

/// [`write_all_atomic`] for outputs given as [`Content`]: one whose content is a writer
/// function streams into its temporary file instead of being assembled in memory first.
/// Streams and devices are written before any regular file is renamed into place, and the
/// renames happen only if they all succeeded (see [`write_all_atomic`]).
pub fn write_all_atomic_with(outputs: Vec<(&Path, Content<'_>)>) -> Result<(), HarnessError> {
    let staged = outputs
        .into_iter()
        .map(|(path, content)| stage_content(path, content))
        .collect::<Result<Vec<_>, _>>()?;
    let (files, in_place): (Vec<_>, Vec<_>) = staged.into_iter().partition(Staged::is_file);
    // On an error here, `files` is dropped and its temporary files deleted.
    in_place.into_iter().try_for_each(Staged::commit)?;
    files.into_iter().try_for_each(Staged::commit)
}

/// What an output holds: bytes already in memory, or a function that writes them (called
/// once, with the temporary file of a regular file's target — through a 256 KiB buffer — or
/// with a buffer in memory for standard output and devices, which are only written at
/// commit).
pub enum Content<'a> {
    Bytes(&'a [u8]),
    Writer(WriteFn<'a>),
}

/// A function that writes an output's content (see [`Content::Writer`]).
pub type WriteFn<'a> = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()> + 'a>;

impl std::fmt::Debug for Content<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Bytes(b) => write!(f, "Content::Bytes({} bytes)", b.len()),
            Content::Writer(_) => f.write_str("Content::Writer(..)"),
        }
    }
}

/// An output ready to be committed (see [`write_atomic`] for the kinds of target).
#[derive(Debug)]
pub struct Staged<'a> {
    path: &'a Path,
    kind: StagedKind<'a>,
}

#[derive(Debug)]
enum StagedKind<'a> {
    Stdout(Cow<'a, [u8]>),
    Stderr(Cow<'a, [u8]>),
    /// A device, FIFO or socket, written in place at commit; `append` for another process
    /// descriptor's path (`/dev/fd/3`), whose file may already hold what was written to it.
    Direct {
        target: PathBuf,
        append: bool,
        bytes: Cow<'a, [u8]>,
    },
    /// A regular file's content, already written and synced to a temporary file.
    Temp(tempfile::NamedTempFile, PathBuf),
}

/// Checks the target of `path` and, for a regular file, writes `bytes` to a temporary file
/// beside it; [`Staged::commit`] puts it in place.
pub fn stage<'a>(path: &'a Path, bytes: &'a [u8]) -> Result<Staged<'a>, HarnessError> {
    stage_content(path, Content::Bytes(bytes))
}

/// [`stage`] for any [`Content`].
pub fn stage_content<'a>(path: &'a Path, content: Content<'a>) -> Result<Staged<'a>, HarnessError> {
    let in_memory = |content: Content<'a>| -> Result<Cow<'a, [u8]>, HarnessError> {
        match content {
            Content::Bytes(b) => Ok(Cow::Borrowed(b)),
            Content::Writer(fill) => {
                let mut v = Vec::new();
                fill(&mut v).map_err(|e| HarnessError::io(path, e))?;
                Ok(Cow::Owned(v))
            }
        }
    };
    if path.as_os_str() == STDOUT {
        return Ok(Staged {
            path,
            kind: StagedKind::Stdout(in_memory(content)?),
        });
    }
    // A path to an open descriptor (`/dev/stdout` is a link to `/proc/self/fd/1`) before
    // anything else: the link's text names a pipe (`pipe:[…]`) or the file the shell opened,
    // and following it by hand would invent a file of that name or replace the shell's file.
    match descriptor(path) {
        Some(Descriptor::Stdout) => {
            return Ok(Staged {
                path,
                kind: StagedKind::Stdout(in_memory(content)?),
            });
        }
        Some(Descriptor::Stderr) => {
            return Ok(Staged {
                path,
                kind: StagedKind::Stderr(in_memory(content)?),
            });
        }
        Some(Descriptor::Other(link)) => {
            return Ok(Staged {
                path,
                kind: StagedKind::Direct {
                    target: link,
                    append: true,
                    bytes: in_memory(content)?,
                },
            });
        }
        None => {}
    }
    // The kernel's own lookup next: whatever it reaches that is neither a regular file nor a
    // directory is written in place through the path as given.
    if let Ok(m) = std::fs::metadata(path)
        && !m.is_file()
        && !m.is_dir()
    {
        return Ok(Staged {
            path,
            kind: StagedKind::Direct {
                target: path.to_path_buf(),
                append: false,
                bytes: in_memory(content)?,
            },
        });
    }
    let target = resolve_links(path).map_err(|e| HarnessError::io(path, e))?;
    let existing = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        // A link whose target is missing is not an invitation to create that target (as
        // root, anywhere): the user's file system is theirs to shape.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && target != path => {
            return Err(HarnessError::io(
                path,
                std::io::Error::other(format!(
                    "a symbolic link to {}, which does not exist; not creating it (create the file, or remove the link)",
                    target.display()
                )),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(HarnessError::io(path, e)),
    };
    if let Some(m) = &existing {
        if m.is_dir() {
            return Err(HarnessError::io(
                path,
                std::io::Error::other("is a directory, not a file"),
            ));
        }
        if m.is_file() && m.permissions().readonly() {
            // A rename would replace it whatever its mode (and root may write anything): its
            // owner made it read-only, so it is not ours to replace.
            return Err(HarnessError::io(
                path,
                std::io::Error::other("is read-only; not replaced (make it writable first)"),
            ));
        }
        if !m.is_file() {
            // A device, FIFO or socket: renaming over it would replace the node itself.
            return Ok(Staged {
                path,
                kind: StagedKind::Direct {
                    target,
                    append: false,
                    bytes: in_memory(content)?,
                },
            });
        }
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // An output's directory is never created here: a mistyped `--out` must not make
    // directories (as root, anywhere). The harness creates the project's own directories
    // itself (`write_project_file`).
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(HarnessError::io(
                path,
                std::io::Error::other(format!("{} is not a directory", dir.display())),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(HarnessError::io(
                path,
                std::io::Error::other(format!(
                    "no directory {}; outputs do not create directories (create it first)",
                    dir.display()
                )),
            ));
        }
        Err(e) => return Err(HarnessError::io(dir, e)),
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".gridsched-");
    // A new output file gets `0666` masked by the umask at creation, as with `File::create`
    // (tempfile's default would be `0600`).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| HarnessError::io(dir, e))?;
    register_temporary(tmp.path());
    if let Some(m) = &existing {
        tmp.as_file()
            .set_permissions(m.permissions())
            .map_err(|e| HarnessError::io(path, e))?;
    }
    match content {
        Content::Bytes(bytes) => tmp.write_all(bytes),
        Content::Writer(fill) => {
            let mut w =
                std::io::BufWriter::with_capacity(1 << 18, WritebackBehind::new(tmp.as_file_mut()));
            fill(&mut w).and_then(|()| w.flush())
        }
    }
    .map_err(|e| HarnessError::io(path, e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| HarnessError::io(path, e))?;
    Ok(Staged {
        path,
        kind: StagedKind::Temp(tmp, target),
    })
}

/// A file written through this starts the kernel's writeback of every MiB as soon as it is
/// written, so that the `fsync` that makes a large output durable finds little left to
/// write: on HPC2N's 25 MB jobs CSV that `fsync` took 13–17 ms, and about 1 ms with the
/// writeback started behind the writer, while the CSV is still being formatted
/// (docs/benchmarks.md, "Replay I/O: writeback behind the writer").
///
/// The call is `posix_fadvise(POSIX_FADV_DONTNEED)` on the range just written: on Linux it
/// starts an asynchronous writeback of the range's dirty pages and drops only the pages
/// already clean, which few of these are: the output stays in the page cache (23.6 of its
/// 23.9 MB, `fincore`). `sync_file_range(SYNC_FILE_RANGE_WRITE)`, the call made for this, has no safe
/// wrapper in rustix, and the workspace forbids `unsafe`. It is only a hint: its failure is
/// ignored (the `fsync` is what makes the output durable), and elsewhere than on Linux
/// nothing is called.
struct WritebackBehind<'a> {
    file: &'a mut std::fs::File,
    /// Bytes written, and the offset up to which writeback was started.
    written: u64,
    started: u64,
}

impl<'a> WritebackBehind<'a> {
    /// How much is written between two hints.
    const STRIDE: u64 = 1 << 20;

    fn new(file: &'a mut std::fs::File) -> Self {
        WritebackBehind {
            file,
            written: 0,
            started: 0,
        }
    }
}

impl Write for WritebackBehind<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= Self::STRIDE {
            #[cfg(target_os = "linux")]
            {
                let _ = rustix::fs::fadvise(
                    &*self.file,
                    self.started,
                    std::num::NonZeroU64::new(self.written - self.started),
                    rustix::fs::Advice::DontNeed,
                );
            }
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Staged<'_> {
    /// Whether this output is a regular file, put in place by a rename at commit (not a
    /// stream, device, FIFO or open descriptor, written in place).
    pub fn is_file(&self) -> bool {
        matches!(self.kind, StagedKind::Temp(..))
    }

    /// Puts the output in place: renames a regular file's temporary file over its target,
    /// or writes to standard output or error, the device or the descriptor.
    pub fn commit(self) -> Result<(), HarnessError> {
        let path = self.path;
        // Standard output as named: `standard output` for `-`, else the path given.
        let stream = |name: &str| {
            if path.as_os_str() == STDOUT {
                name.to_string()
            } else {
                path.display().to_string()
            }
        };
        match self.kind {
            StagedKind::Stdout(bytes) => {
                let mut out = std::io::stdout().lock();
                out.write_all(&bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| HarnessError::io(Path::new(&stream("standard output")), e))
            }
            StagedKind::Stderr(bytes) => {
                let mut err = std::io::stderr().lock();
                err.write_all(&bytes)
                    .and_then(|()| err.flush())
                    .map_err(|e| HarnessError::io(path, e))
            }
            StagedKind::Direct {
                target,
                append,
                bytes,
            } => {
                let mut f = std::fs::OpenOptions::new()
                    .write(!append)
                    .append(append)
                    .open(&target)
                    .map_err(|e| HarnessError::io(path, e))?;
                f.write_all(&bytes).map_err(|e| HarnessError::io(path, e))
            }
            StagedKind::Temp(tmp, target) => {
                let name = tmp.path().to_path_buf();
                let persisted = tmp.persist(&target);
                forget_temporary(&name);
                persisted.map_err(|e| HarnessError::io(path, e.error))?;
                Ok(())
            }
        }
    }
}

/// Refuses two outputs of one command that both go to standard output.
pub fn check_one_stdout<'a>(
    outputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Result<(), HarnessError> {
    let to_stdout: Vec<&str> = outputs
        .into_iter()
        .filter(|(_, p)| is_stdout(p))
        .map(|(name, _)| name)
        .collect();
    if to_stdout.len() > 1 {
        return Err(HarnessError::Usage(format!(
            "{} all write to standard output (`-`); give all but one a file",
            to_stdout.join(" and ")
        )));
    }
    Ok(())
}

/// Refuses, before any work is done, outputs that would destroy an input or each other:
///
/// - two outputs on standard output (as [`check_one_stdout`]);
/// - two outputs that name one file: the same path, or two paths (relative and absolute, a
///   symbolic link and its target, two hard links) to one regular file or to one file yet to
///   be created: one would silently replace the other;
/// - an output that is the same regular file as an input (`trace convert kth.swf --out
///   kth.swf`): writing it would replace the input.
///
/// Standard output, devices, FIFOs and open descriptors (`/dev/null`, `/dev/stdin`) are
/// written or read in place, never replaced, and may be given more than once. Each output
/// and input comes with the name the error gives it (its option, as `--out`).
pub fn check_paths<'a>(
    inputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
    outputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Result<(), HarnessError> {
    let outputs: Vec<(&str, &Path)> = outputs.into_iter().collect();
    check_one_stdout(outputs.iter().copied())?;
    let keys: Vec<Option<FileKey>> = outputs.iter().map(|(_, p)| output_key(p)).collect();
    for (i, ((a, pa), ka)) in outputs.iter().zip(&keys).enumerate() {
        for ((b, pb), kb) in outputs.iter().zip(&keys).skip(i + 1) {
            if ka.is_some() && ka == kb {
                let files = if pa == pb {
                    pa.display().to_string()
                } else {
                    format!("one file ({} and {})", pa.display(), pb.display())
                };
                return Err(HarnessError::Usage(format!(
                    "{a} and {b} both name {files}: one would overwrite the other; give each its own file"
                )));
            }
        }
    }
    for (input, path) in inputs {
        let Some(key) = input_key(path) else {
            continue;
        };
        if let Some(((name, out), _)) = outputs
            .iter()
            .zip(&keys)
            .find(|(_, k)| k.as_ref() == Some(&key))
        {
            return Err(HarnessError::Usage(format!(
                "{name} {}: the same file as the input {} ({input}); writing it would destroy the input, give {name} another file",
                out.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// What makes two paths one file: an existing regular file's device and inode, or where a
/// file yet to be created will be (its directory's canonical path and its name).
#[derive(Debug, PartialEq, Eq)]
enum FileKey {
    Inode(u64, u64),
    Path(PathBuf),
}

#[cfg(unix)]
fn inode_key(m: &std::fs::Metadata, _path: &Path) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    Some(FileKey::Inode(m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode_key(_m: &std::fs::Metadata, path: &Path) -> Option<FileKey> {
    std::fs::canonicalize(path).ok().map(FileKey::Path)
}

/// An input's key: only a regular file can be destroyed by an output.
fn input_key(path: &Path) -> Option<FileKey> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => inode_key(&m, path),
        _ => None,
    }
}

/// An output's key, `None` for what is written in place (standard output, devices, FIFOs,
/// open descriptors) or refused by the writer (a directory).
fn output_key(path: &Path) -> Option<FileKey> {
    if path.as_os_str() == STDOUT || descriptor(path).is_some() {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => inode_key(&m, path),
        Ok(_) => None,
        Err(_) => {
            // Not there yet: where the writer will create it (through dangling links).
            let target = std::path::absolute(resolve_links(path).ok()?).ok()?;
            let name = target.file_name()?;
            let dir = target.parent()?;
            Some(FileKey::Path(match std::fs::canonicalize(dir) {
                Ok(dir) => dir.join(name),
                Err(_) => target.clone(),
            }))
        }
    }
}

/// Sorts values into the canonical order: axis value, series (sweep order), run, metric
/// (experiment order). Sharded and unsharded runs write identical files because of it.
pub fn canonical_sort(exp: &Experiment, values: &mut [RunValue]) {
    let series_rank = |s: &str| {
        exp.sweep
            .series
            .iter()
            .position(|x| x.name == s)
            .unwrap_or(usize::MAX)
    };
    let metric_rank = |m: &str| {
        exp.spec
            .metrics
            .iter()
            .position(|x| x == m)
            .unwrap_or(usize::MAX)
    };
    values.sort_by(|a, b| {
        a.x.total_cmp(&b.x)
            .then(series_rank(&a.series).cmp(&series_rank(&b.series)))
            .then(a.run.cmp(&b.run))
            .then(metric_rank(&a.metric).cmp(&metric_rank(&b.metric)))
    });
}

/// Whether a metric is measured wall-clock/CPU time (`cpu_*`): it cannot be reproduced bit for
/// bit, so it is kept out of the CSV, summary, plots and snapshots and goes to a timing sidecar.
pub fn is_timing_metric(metric: &str) -> bool {
    metric.starts_with("cpu_")
}

/// Which metrics a per-run CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Deterministic metrics: the experiment's CSV.
    Deterministic,
    /// `cpu_*` metrics: the `.timing.csv` sidecar.
    Timing,
}

impl MetricKind {
    /// Whether `metric` is of this kind.
    pub fn includes(self, metric: &str) -> bool {
        is_timing_metric(metric) == (self == MetricKind::Timing)
    }
}

/// The per-run CSV of an experiment (only its own metrics of `kind`, canonical order).
pub fn runs_csv(
    exp: &Experiment,
    scale: Scale,
    values: &[RunValue],
    kind: MetricKind,
) -> Result<Vec<u8>, HarnessError> {
    let mut rows: Vec<RunValue> = values
        .iter()
        .filter(|v| exp.spec.metrics.contains(&v.metric) && kind.includes(&v.metric))
        .cloned()
        .collect();
    canonical_sort(exp, &mut rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    let csv_err = |e: csv::Error| HarnessError::Data(e.to_string());
    w.write_record(RUNS_HEADER).map_err(csv_err)?;
    for v in &rows {
        w.write_record([
            exp.spec.id.as_str(),
            scale.name(),
            exp.sweep.axis.parameter.as_str(),
            &v.x.to_string(),
            &v.series,
            &v.run.to_string(),
            &v.metric,
            &v.value.to_string(),
        ])
        .map_err(csv_err)?;
    }
    w.into_inner()
        .map_err(|e| HarnessError::Data(e.to_string()))
}

/// Reads a per-run CSV back (for `report` and `merge`).
pub fn read_runs_csv(path: &Path) -> Result<(String, Scale, Vec<RunValue>), HarnessError> {
    let name = path.display().to_string();
    let bad = |line: u64, m: String| HarnessError::Data(format!("{name}:{line}: {m}"));
    let mut r =
        csv::Reader::from_path(path).map_err(|e| HarnessError::Data(format!("{name}: {e}")))?;
    let header = r.headers().map_err(|e| bad(1, e.to_string()))?.clone();
    if header.iter().ne(RUNS_HEADER) {
        return Err(bad(
            1,
            format!("unexpected header; expected {}", RUNS_HEADER.join(",")),
        ));
    }
    let (mut id, mut scale) = (String::new(), None);
    let mut values = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = rec.position().map_or(0, |p| p.line());
        let s = Scale::from_name(&rec[1])
            .ok_or_else(|| bad(line, format!("unknown scale `{}`", &rec[1])))?;
        if scale.is_some_and(|x| x != s) || (!id.is_empty() && id != rec[0]) {
            return Err(bad(
                line,
                "rows of different experiments or scales in one file".into(),
            ));
        }
        (id, scale) = (rec[0].to_string(), Some(s));
        let num = |i: usize| {
            rec[i]
                .parse::<f64>()
                .map_err(|_| bad(line, format!("`{}` is not a number", &rec[i])))
        };
        // An axis point is a number; a value is a number or `NaN`, the writer's word for a
        // metric undefined in that run (no P2P resubmissions under a hierarchy, an empty
        // CDF). Nothing writes another non-finite spelling or an infinity.
        let x = num(3)?;
        if !x.is_finite() {
            return Err(bad(line, format!("the point `{}` is not finite", &rec[3])));
        }
        let value = num(7)?;
        if !value.is_finite() && &rec[7] != "NaN" {
            return Err(bad(
                line,
                format!(
                    "the value `{}` is not finite (an undefined metric is written `NaN`)",
                    &rec[7]
                ),
            ));
        }
        values.push(RunValue {
            x,
            series: rec[4].to_string(),
            run: rec[5]
                .parse()
                .map_err(|_| bad(line, format!("`{}` is not a run number", &rec[5])))?,
            metric: rec[6].to_string(),
            value,
        });
    }
    let scale = scale.ok_or_else(|| bad(2, "no rows".into()))?;
    Ok((id, scale, values))
}

/// The summary CSV: mean and 95% CI half-width per (point, series, metric).
pub fn summary_csv(exp: &Experiment, table: &SummaryTable) -> Result<Vec<u8>, HarnessError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let csv_err = |e: csv::Error| HarnessError::Data(e.to_string());
    w.write_record([
        "point_param",
        "point_value",
        "algorithm",
        "metric",
        "mean",
        "ci95_half_width",
        "runs",
    ])
    .map_err(csv_err)?;
    for x in table.xs() {
        for series in &exp.sweep.series {
            for metric in exp.spec.metrics.iter().filter(|m| !is_timing_metric(m)) {
                if let Some(c) = table.cell(metric, &series.name, x) {
                    w.write_record([
                        exp.sweep.axis.parameter.clone(),
                        x.to_string(),
                        series.name.clone(),
                        metric.clone(),
                        c.mean.to_string(),
                        c.half_width.to_string(),
                        c.runs.to_string(),
                    ])
                    .map_err(csv_err)?;
                }
            }
        }
    }
    w.into_inner()
        .map_err(|e| HarnessError::Data(e.to_string()))
}

/// Provenance of a result file (a sidecar: it holds the wall time, which is not reproducible).
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub experiment: String,
    pub scale: String,
    pub gridsched_version: String,
    pub git_revision: String,
    pub sweep: String,
    pub seed: u64,
    pub replications: u32,
    pub jobs_per_replication: u64,
    pub axis_parameter: String,
    pub axis_values: Vec<f64>,
    pub wall_seconds: f64,
    pub work_items_computed: usize,
    pub work_items_resumed: usize,
    pub threads: usize,
    pub machine: String,
    pub command: String,
}

/// The current git revision of the project (with `-dirty` if the code or entries have
/// uncommitted changes), or `unknown` outside a git checkout.
///
/// The generated outputs (`data/`, `figures/`, `REPRODUCTION.md`, `docs/`) do not make a tree
/// dirty: writing results must not change the revision the next result is attributed to, and
/// they do not change what the code computes.
pub fn git_revision(root: &Path) -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let dirty = run(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":(exclude)data",
                ":(exclude)figures",
                ":(exclude)docs",
                ":(exclude)REPRODUCTION.md",
            ])
            .is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        None => "unknown".to_string(),
    }
}

/// Whether a revision from [`git_revision`] was taken from a working tree with uncommitted
/// changes.
pub fn is_dirty_revision(revision: &str) -> bool {
    // A merged result lists its shards' revisions joined by `+`.
    revision.split('+').any(|r| r.ends_with("-dirty"))
}

/// A one-line description of this machine (CPU model and core count), for provenance.
pub fn machine_description() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores, {}", std::env::consts::OS)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_file_gets_the_mode_file_create_would_give() {
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).unwrap();
        let out = dir.path().join("sub/out.csv");
        // No output creates its directory; the harness's own files do.
        assert!(write_atomic(&out, b"a,b\n").is_err());
        assert!(!dir.path().join("sub").exists());
        write_project_file(&out, b"a,b\n").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"a,b\n");
        assert_eq!(mode(&out), mode(&reference), "0666 less the umask");
        let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["out.csv"], "no temporary file left behind");
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(mode(&out), 0o640);
    }

    #[test]
    fn symbolic_links_are_written_through_and_stay_links() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A chain of links, and a dangling link: the final target is created.
        let chain = dir.path().join("chain.csv");
        std::os::unix::fs::symlink(&link, &chain).unwrap();
        write_atomic(&chain, b"chained").unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"chained");
        // A dangling link is refused: its target is not created (nor its directory).
        let dangling = dir.path().join("dangling.csv");
        std::os::unix::fs::symlink("later/made.csv", &dangling).unwrap();
        let e = write_atomic(&dangling, b"made").unwrap_err().to_string();
        assert!(e.contains("which does not exist"), "{e}");
        assert!(!dir.path().join("later").exists());
        std::os::unix::fs::symlink("made.csv", dir.path().join("flat.csv")).unwrap();
        assert!(write_atomic(&dir.path().join("flat.csv"), b"made").is_err());
        assert!(!dir.path().join("made.csv").exists());
        // A loop is an error, not a hang.
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let e = write_atomic(&a, b"x").unwrap_err().to_string();
        assert!(e.contains("symbolic links"), "{e}");
    }

    #[test]
    fn devices_are_written_directly_and_survive() {
        let null = Path::new("/dev/null");
        if std::fs::OpenOptions::new().write(true).open(null).is_err() {
            eprintln!("NOTICE: /dev/null is not writable here; skipping");
            return;
        }
        write_atomic(null, b"discarded").unwrap();
        let m = std::fs::symlink_metadata(null).unwrap();
        assert!(
            m.file_type().is_char_device(),
            "/dev/null is still a device"
        );
    }

    #[test]
    fn fifos_are_written_directly() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("NOTICE: mkfifo unavailable; skipping");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        write_atomic(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }

    fn streamed(text: &'static str) -> Content<'static> {
        Content::Writer(Box::new(move |w: &mut dyn Write| {
            // Several small writes, as a row-by-row writer does.
            for chunk in text.as_bytes().chunks(3) {
                w.write_all(chunk)?;
            }
            Ok(())
        }))
    }

    /// Content larger than several writeback strides, written in odd-sized pieces: the file
    /// holds exactly what was written (the writeback hints change nothing in it).
    #[test]
    fn a_large_streamed_file_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.csv");
        let text: Vec<u8> = (0..(3 * WritebackBehind::STRIDE as usize + 12_345))
            .map(|i| b'a' + (i % 23) as u8)
            .collect();
        let expected = text.clone();
        write_all_atomic_with(vec![(
            &path,
            Content::Writer(Box::new(move |w: &mut dyn Write| {
                for piece in text.chunks(100_003) {
                    w.write_all(piece)?;
                }
                Ok(())
            })),
        )])
        .unwrap();
        assert!(std::fs::read(&path).unwrap() == expected);
    }

    #[test]
    fn streamed_content_goes_where_bytes_go() {
        let dir = tempfile::tempdir().unwrap();
        // A regular file, through a symbolic link that stays one.
        let real = dir.path().join("real.csv");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let other = dir.path().join("other.json");
        write_all_atomic_with(vec![
            (&link, streamed("a,b\n1,2\n")),
            (&other, Content::Bytes(b"{}")),
        ])
        .unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"a,b\n1,2\n");
        assert_eq!(mode(&real), 0o640);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&other).unwrap(), b"{}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with(".gridsched-"))
            .collect();
        assert!(names.is_empty(), "temporary files left: {names:?}");
        // A FIFO is written in place, at commit.
        let fifo = dir.path().join("pipe");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::read(&fifo).unwrap())
            };
            write_all_atomic_with(vec![(&fifo, streamed("through the pipe"))]).unwrap();
            assert_eq!(reader.join().unwrap(), b"through the pipe");
            assert!(
                std::fs::symlink_metadata(&fifo)
                    .unwrap()
                    .file_type()
                    .is_fifo()
            );
        }
        // A device survives.
        let null = Path::new("/dev/null");
        if std::fs::OpenOptions::new().write(true).open(null).is_ok() {
            write_all_atomic_with(vec![(null, streamed("discarded"))]).unwrap();
            assert!(
                std::fs::symlink_metadata(null)
                    .unwrap()
                    .file_type()
                    .is_char_device()
            );
        }
    }

    #[test]
    fn a_failing_writer_leaves_nothing_written() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first.json");
        let out = dir.path().join("out.csv");
        std::fs::write(&out, "old").unwrap();
        let failing = Content::Writer(Box::new(|w: &mut dyn Write| {
            w.write_all(b"half a fi")?;
            Err(std::io::Error::other("formatting failed"))
        }));
        let e = write_all_atomic_with(vec![(&first, Content::Bytes(b"{}")), (&out, failing)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("formatting failed"), "{e}");
        assert!(!first.exists(), "no output is written when one fails");
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.csv"], "no temporary file left behind");
    }

    #[test]
    fn a_failing_device_leaves_every_file_as_it_was() {
        let full = Path::new("/dev/full");
        if std::fs::OpenOptions::new().write(true).open(full).is_err() {
            eprintln!("NOTICE: /dev/full is not writable here; skipping");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let new = dir.path().join("new.json");
        for device_first in [false, true] {
            std::fs::write(&out, "old").unwrap();
            let mut outputs = vec![
                (out.as_path(), Content::Bytes(b"new")),
                (new.as_path(), streamed("{}")),
            ];
            let device = (full, Content::Bytes(&b"x"[..]));
            if device_first {
                outputs.insert(0, device);
            } else {
                outputs.push(device);
            }
            let e = write_all_atomic_with(outputs).unwrap_err().to_string();
            assert!(e.contains("/dev/full"), "{e}");
            assert_eq!(
                std::fs::read(&out).unwrap(),
                b"old",
                "device first: {device_first}"
            );
            assert!(!new.exists());
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["out.csv"], "no temporary file left behind");
        }
    }

    #[test]
    fn descriptor_paths_are_streams() {
        for path in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            if Path::new(path).exists() {
                assert!(is_stdout(Path::new(path)), "{path}");
                assert!(matches!(
                    descriptor(Path::new(path)),
                    Some(Descriptor::Stdout)
                ));
            }
        }
        if Path::new("/dev/stderr").exists() {
            assert!(matches!(
                descriptor(Path::new("/dev/stderr")),
                Some(Descriptor::Stdout | Descriptor::Stderr)
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out.csv");
        std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
        if Path::new("/proc/self/fd/1").exists() {
            assert!(
                is_stdout(&link),
                "a link to a descriptor is that descriptor"
            );
        }
        // A file named like a descriptor elsewhere is a file.
        let one = dir.path().join("1");
        std::fs::write(&one, "x").unwrap();
        assert!(descriptor(&one).is_none());
        assert!(!is_stdout(&one));
        assert!(descriptor(Path::new("/dev/null")).is_none());
    }

    #[test]
    fn outputs_that_destroy_an_input_or_each_other_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.swf");
        std::fs::write(&input, "log").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("in.swf", &link).unwrap();
        let hard = dir.path().join("hard.csv");
        std::fs::hard_link(&input, &hard).unwrap();
        let new = dir.path().join("new.csv");
        let new_again = sub.join("../new.csv");
        let dangling = dir.path().join("dangling.csv");
        std::os::unix::fs::symlink("new.csv", &dangling).unwrap();
        let ins = [("the log", input.as_path())];
        let check = |outputs: &[(&'static str, &Path)]| {
            check_paths(ins.iter().copied(), outputs.iter().copied()).map_err(|e| e.to_string())
        };
        assert!(check(&[("--out", &new), ("--summary-json", &sub.join("s.json"))]).is_ok());
        for out in [&input, &link, &hard] {
            let e = check(&[("--out", out)]).unwrap_err();
            assert!(
                e.contains("--out") && e.contains("same file as the input"),
                "{e}"
            );
            assert!(e.contains(&input.display().to_string()), "{e}");
        }
        for (a, b) in [
            (&new, &new),
            (&new, &new_again),
            (&new, &dangling),
            (&link, &hard),
        ] {
            let e = check(&[("--out", a), ("--summary-json", b)]).unwrap_err();
            assert!(e.contains("--out and --summary-json both name"), "{e}");
        }
        let null = Path::new("/dev/null");
        if null.exists() {
            assert!(check(&[("--out", null), ("--summary-json", null)]).is_ok());
            assert!(
                check_paths([("the log", null)], [("--out", null)]).is_ok(),
                "a device is read and written in place"
            );
        }
        if Path::new("/dev/stdout").exists() {
            let e = check(&[
                ("--out", Path::new("-")),
                ("--summary-json", Path::new("/dev/stdout")),
            ])
            .unwrap_err();
            assert!(e.contains("standard output"), "{e}");
        }
    }

    #[test]
    fn a_directory_is_an_error_and_two_stdouts_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(dir.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let dash = Path::new("-");
        let file = Path::new("f.csv");
        assert!(check_one_stdout([("--out", dash), ("--summary-json", file)]).is_ok());
        let e = check_one_stdout([("--out", dash), ("--summary-json", dash)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--out and --summary-json"), "{e}");
    }
}
