//! Resume journals, safe against copies of one run and against kills mid-write.
//!
//! A sweep run appends one JSON line per finished work item to its journal
//! ([`crate::runner::journal_path`]); a rerun of the same sweep, size and shard resumes from it,
//! and the run deletes it once its outputs are written. On a cluster the same run can be
//! executing twice: Slurm requeues a task whose node stopped answering while the first copy is
//! still alive, or a user resubmits a shard. And a copy can die at any instruction (SIGKILL at
//! the time limit, a node lost). What keeps the journal and the results whole:
//!
//! - **One writer per journal.** [`Journal::open`] takes an exclusive advisory lock on the file
//!   (`flock`, through `fs4`; Linux's NFS client maps it to a POSIX lock, which the server
//!   arbitrates across nodes) and keeps it until the run has written its outputs and deleted
//!   the journal ([`Journal::discard`]). A second copy waits, saying so on standard error, and
//!   then resumes from whatever the first left: everything, if the first finished (see below),
//!   or the items it completed before it died (the kernel drops a dead process's locks). No two
//!   processes ever append to one journal at once, nor write one run's outputs at once.
//! - **A finished copy leaves its results to the one that waited.** The finished copy deletes
//!   the journal's name, but the waiting copy already holds the file open: it reads the
//!   complete journal from its descriptor, recomputes nothing, writes the same outputs again
//!   and leaves the name alone (by then it may name a newer run's journal).
//! - **Whole lines.** A line is written by one `write` of the line and its newline, under the
//!   lock, so lines never interleave. A kill can still leave a torn last line (a full disk, a
//!   network file system, a crash before the page cache reached the disk, which may leave
//!   zeros): loading skips every line that does not parse and, holding the lock, cuts a torn
//!   tail off before appending, so the next line starts on a line of its own. A line cannot be
//!   torn into a different valid line: a journal line is one JSON object without nested
//!   objects, so a prefix of it never parses, nor do two pieces run together. Resumed values
//!   are therefore exactly those computed; a lost line only costs its recomputation.
//!
//! A file system without locks (`ENOLCK`, an NFS mount without its lock service) gets a warning
//! and no exclusion: copies then recompute what they could have shared, but since every item is
//! a pure function of its stream key and outputs are replaced atomically, they still write the
//! same bytes.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use fs4::FileExt;

use crate::HarnessError;

/// A sweep run's resume journal, open and (where the file system allows) exclusively locked
/// until [`Journal::discard`] or drop.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    /// Whether the exclusive lock is held (false where the file system refused locking).
    locked: bool,
    found: JournalContents,
}

/// What [`Journal::open`] found in the file.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct JournalContents {
    /// The complete lines that parse, in file order.
    pub lines: Vec<String>,
    /// Complete lines that do not parse (pieces of lines torn by an earlier crash).
    pub unreadable: usize,
    /// Bytes of a torn last line (no newline) cut off before appending.
    pub torn_tail: usize,
    /// Whether this process waited for another one holding the journal.
    pub waited: bool,
    /// Whether the file's name had been removed by the time the lock was granted: the
    /// process waited for finished (or the journal was deleted by hand), and these lines are
    /// its last state, read from the open file.
    pub orphaned: bool,
}

/// A journal opened (created if missing) but not yet locked: what a process that runs several
/// sweeps opens first, all of them, before it locks them one by one ([`UnlockedJournal::lock`]).
/// A journal that another copy finishes and deletes meanwhile is then still open here, with
/// every run in it.
#[derive(Debug)]
pub struct UnlockedJournal {
    path: PathBuf,
    file: File,
}

impl UnlockedJournal {
    /// Opens the journal at `path`, creating it and its directory.
    pub fn open(path: &Path) -> Result<UnlockedJournal, HarnessError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| HarnessError::io(dir, e))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| HarnessError::io(path, e))?;
        Ok(UnlockedJournal {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Locks the journal, waiting for another process that holds it, then reads its lines
    /// with `parses` deciding which are whole ([`Journal::found`]), and cuts off a torn last
    /// line. `what` names the run in the waiting message.
    pub fn lock(self, what: &str, parses: impl Fn(&str) -> bool) -> Result<Journal, HarnessError> {
        let UnlockedJournal { path, file } = self;
        let path = path.as_path();
        let io = |e| HarnessError::io(path, e);
        let mut contents = JournalContents::default();
        // Fully qualified: `File::lock` and `File::try_lock` are std's own from Rust 1.89,
        // above the workspace's rust-version.
        let locked = match FileExt::try_lock(&file) {
            Ok(()) => true,
            Err(fs4::TryLockError::WouldBlock) => {
                eprintln!(
                    "{}: another process is running {what}; waiting for it to finish \
                     (this run then resumes from its journal)",
                    path.display()
                );
                FileExt::lock(&file).map_err(io)?;
                contents.waited = true;
                true
            }
            Err(fs4::TryLockError::Error(e)) => {
                eprintln!(
                    "{}: warning: cannot lock the journal ({e}); another copy of {what} \
                     would not be kept out",
                    path.display()
                );
                false
            }
        };
        contents.orphaned = !names(path, &file);
        let mut text = Vec::new();
        (&file)
            .seek(SeekFrom::Start(0))
            .and_then(|_| (&file).read_to_end(&mut text))
            .map_err(io)?;
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for line in text[..complete].split(|&b| b == b'\n') {
            if line.is_empty() {
                continue;
            }
            match std::str::from_utf8(line).ok().filter(|l| parses(l)) {
                Some(l) => contents.lines.push(l.to_string()),
                None => contents.unreadable += 1,
            }
        }
        let tail = &text[complete..];
        if !tail.is_empty() {
            match std::str::from_utf8(tail).ok().filter(|l| parses(l)) {
                // A whole line whose newline was not written (an older writer issued the two
                // separately): keep it and end it.
                Some(l) => {
                    contents.lines.push(l.to_string());
                    (&file).write_all(b"\n").map_err(io)?;
                }
                // Without the lock another writer may be mid-line: end the piece instead of
                // cutting it, so that at worst that writer's line is lost too.
                None if !locked => (&file).write_all(b"\n").map_err(io)?,
                None => {
                    file.set_len(complete as u64).map_err(io)?;
                    contents.torn_tail = tail.len();
                }
            }
        }
        if contents.orphaned && !contents.lines.is_empty() {
            eprintln!(
                "{}: another process finished this run meanwhile; {} runs are taken from its journal",
                path.display(),
                contents.lines.len()
            );
        }
        let mut damage = Vec::new();
        if contents.torn_tail > 0 {
            damage.push(format!(
                "a torn last line of {} bytes cut off",
                contents.torn_tail
            ));
        }
        if contents.unreadable > 0 {
            damage.push(format!("{} unreadable lines skipped", contents.unreadable));
        }
        if !damage.is_empty() {
            eprintln!(
                "{}: {}; their runs are computed again",
                path.display(),
                damage.join(", ")
            );
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            locked,
            found: contents,
        })
    }
}

impl Journal {
    /// Opens and locks the journal at `path` ([`UnlockedJournal::open`], then
    /// [`UnlockedJournal::lock`]).
    pub fn open(
        path: &Path,
        what: &str,
        parses: impl Fn(&str) -> bool,
    ) -> Result<Journal, HarnessError> {
        UnlockedJournal::open(path)?.lock(what, parses)
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the journal held when it was opened.
    pub fn found(&self) -> &JournalContents {
        &self.found
    }

    /// Appends one line (`line` holds no newline): one `write` of the line and its newline,
    /// so that a reader never sees two lines run together.
    pub fn append(&self, line: &str) -> Result<(), HarnessError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        (&*file)
            .write_all(&bytes)
            .map_err(|e| HarnessError::io(&self.path, e))
    }

    /// Deletes the journal of a run whose outputs are written, then releases the lock, so a
    /// copy waiting for it resumes every item from the file it holds open. The name is removed
    /// only while it still names this file: once another process has created a journal under
    /// it (this one's name having been removed before it got the lock), that journal is the
    /// other run's.
    pub fn discard(&self) {
        let file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if names(&self.path, &file) {
            // A journal that cannot be removed is resumed by the next run: complete, it makes
            // that run recompute nothing, which is harmless.
            let _ = std::fs::remove_file(&self.path);
        }
        if self.locked {
            let _ = FileExt::unlock(&*file);
        }
    }
}

/// Whether `path` still names the open `file` (same device and inode).
#[cfg(unix)]
fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Without inode numbers: whether the name still exists.
#[cfg(not(unix))]
fn names(path: &Path, _file: &File) -> bool {
    path.exists()
}

/// Whether some process holds the journal at `path` (a run of it is under way): a shared
/// lock cannot be had without waiting. A file that cannot be opened or locked at all is not
/// held.
pub fn is_held(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    matches!(
        FileExt::try_lock_shared(&file),
        Err(fs4::TryLockError::WouldBlock)
    )
}

/// Waits until no process holds the journal at `path` exclusively (a shared lock, dropped at
/// once). A file that cannot be opened or locked is not waited for.
pub fn wait_until_free(path: &Path) {
    if let Ok(file) = File::open(path) {
        let _ = FileExt::lock_shared(&file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(l: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object())
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_cut_off_before_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache").join("j.jsonl");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Two whole lines, a piece of a third left mid-line by a kill, as the next run finds it.
        let torn = r#"{"index":2,"x":0.5,"metrics":[["loss",0.12"#;
        std::fs::write(&path, format!("{{\"index\":0}}\n{{\"index\":1}}\n{torn}")).unwrap();
        let journal = Journal::open(&path, "test", parses).unwrap();
        let found = journal.found();
        assert_eq!(found.lines, [r#"{"index":0}"#, r#"{"index":1}"#]);
        assert_eq!((found.unreadable, found.torn_tail), (0, torn.len()));
        assert!(!found.waited && !found.orphaned);
        journal.append(r#"{"index":2}"#).unwrap();
        drop(journal);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"index\":0}\n{\"index\":1}\n{\"index\":2}\n",
            "the new line starts on a line of its own"
        );
        // A piece that ran into a later line (an older writer without the lock), zeros from a
        // crash, and a whole last line whose newline is missing.
        std::fs::write(
            &path,
            format!("{{\"index\":0}}\n{torn}{{\"index\":1}}\n\0\0\0\n{{\"index\":3}}"),
        )
        .unwrap();
        let journal = Journal::open(&path, "test", parses).unwrap();
        let found = journal.found();
        assert_eq!(found.lines, [r#"{"index":0}"#, r#"{"index":3}"#]);
        assert_eq!((found.unreadable, found.torn_tail), (2, 0));
        journal.append(r#"{"index":4}"#).unwrap();
        drop(journal);
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .ends_with("\n{\"index\":3}\n{\"index\":4}\n")
        );
    }

    /// flock locks belong to an open file description, so a second open in this process is a
    /// second copy. Linux only: it sees the second copy blocked in `/proc/locks`.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_copy_that_waited_resumes_from_the_journal_the_finished_one_discarded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let first = Journal::open(&path, "test", parses).unwrap();
        first.append(r#"{"index":0}"#).unwrap();
        assert!(is_held(&path));
        let second = std::thread::spawn({
            let path = path.clone();
            move || Journal::open(&path, "test", parses).unwrap()
        });
        while !blocked_on(&path) {
            assert!(!second.is_finished(), "the second copy did not wait");
            std::thread::yield_now();
        }
        first.append(r#"{"index":1}"#).unwrap();
        first.discard();
        let second = second.join().unwrap();
        let found = second.found();
        assert!(found.waited && found.orphaned, "{found:?}");
        assert_eq!(found.lines, [r#"{"index":0}"#, r#"{"index":1}"#]);
        assert!(!path.exists());
        // A third copy started now finds no journal; the second's discard must not remove it.
        let third = Journal::open(&path, "test", parses).unwrap();
        assert!(third.found().lines.is_empty() && !third.found().orphaned);
        second.discard();
        assert!(path.exists(), "the newer run's journal is left alone");
        third.discard();
        assert!(!path.exists() && !is_held(&path));
    }

    /// Whether some process waits for a lock on `path`'s file: `/proc/locks` lists a blocked
    /// request as `N: -> FLOCK ... MAJ:MIN:INODE ...`.
    #[cfg(target_os = "linux")]
    fn blocked_on(path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let ino = std::fs::metadata(path).unwrap().ino().to_string();
        let locks = std::fs::read_to_string("/proc/locks").unwrap();
        locks.lines().any(|l| {
            l.contains("->")
                && l.split_whitespace()
                    .any(|f| f.contains(':') && f.rsplit(':').next() == Some(ino.as_str()))
        })
    }
}
