//! Faults mid-run (issue 35 item 4): a shard killed and requeued, as Slurm does, while another
//! copy of the same shard runs must corrupt neither its resume journal nor the merged result.
//! The real binary, real signals: a shard is SIGKILLed mid-run (and its journal given a torn
//! last line, as a kill mid-write leaves it), two copies of it are started together, the other
//! shard runs, and the merge must equal an unsharded run byte for byte.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gridsched");
const EXPERIMENT: &str = "fig-3.4";

/// Quick scale, smaller: 88 runs per shard of a few tens of milliseconds each on one thread,
/// so a shard takes seconds and can be killed in the middle.
fn reproduce(root: &Path, shard: Option<&str>) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args([
        "reproduce",
        EXPERIMENT,
        "--scale",
        "quick",
        "--reps",
        "2",
        "--jobs",
        "20000",
        "--threads",
        "1",
        "--root",
    ])
    .arg(root)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    if let Some(shard) = shard {
        cmd.args(["--shard", shard]);
    }
    cmd
}

fn finish(child: Child, what: &str) -> Output {
    let out = child.wait_with_output().expect(what);
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The journals (`.jsonl`) in the project's cache of Castillo's sweeps (one directory per
/// code revision).
fn journals(root: &Path) -> Vec<PathBuf> {
    let Ok(revisions) = std::fs::read_dir(root.join("data/castillo/.cache")) else {
        return Vec::new();
    };
    revisions
        .flatten()
        .filter_map(|r| std::fs::read_dir(r.path()).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect()
}

/// Complete lines in a file (0 when it does not exist).
fn lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

#[test]
fn a_shard_killed_and_run_twice_at_once_merges_to_the_unsharded_result() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    let sharded = dir.path().join("sharded");
    finish(reproduce(&plain, None).spawn().unwrap(), "unsharded run");

    // Shard 1/2, killed once it has journaled some of its runs.
    let mut first = reproduce(&sharded, Some("1/2")).spawn().unwrap();
    let journal = loop {
        if let Some(j) = journals(&sharded).into_iter().find(|j| lines(j) >= 3) {
            break j;
        }
        assert!(
            first.try_wait().unwrap().is_none(),
            "the shard ended before it could be killed"
        );
        std::thread::yield_now();
    };
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let shard_csv = sharded.join("data/castillo/shards/fig-3.4.quick.shard-1-of-2.csv");
    assert!(!shard_csv.exists(), "killed before it wrote its results");
    let done = lines(&journal);
    assert!((3..88).contains(&done), "{done} of 88 runs journaled");
    // The last line torn by the kill, as a write cut short leaves it.
    let mut text_now = std::fs::read_to_string(&journal).unwrap();
    text_now.push_str(r#"{"index":999,"x":0.5,"series":"first-fit","replication":1,"metr"#);
    std::fs::write(&journal, text_now).unwrap();

    // The requeued task and another copy of the same shard, at once.
    let a = reproduce(&sharded, Some("1/2")).spawn().unwrap();
    let b = reproduce(&sharded, Some("1/2")).spawn().unwrap();
    let (a, b) = (finish(a, "copy a"), finish(b, "copy b"));
    let (err_a, err_b) = (text(&a.stderr), text(&b.stderr));
    let waited: Vec<&String> = [&err_a, &err_b]
        .into_iter()
        .filter(|e| e.contains("waiting for it to finish"))
        .collect();
    assert_eq!(
        waited.len(),
        1,
        "one copy waits for the other:\n{err_a}\n---\n{err_b}"
    );
    // The one that waited recomputes nothing: the other left it every run in its journal.
    assert!(
        waited[0].contains("88 runs are taken from its journal"),
        "{}",
        waited[0]
    );
    let resumed = [text(&a.stdout), text(&b.stdout)];
    assert!(
        resumed.iter().any(|o| o.contains("88 runs resumed")),
        "{resumed:?}"
    );
    // The torn line was cut off, not resumed or appended to.
    assert!(
        [&err_a, &err_b]
            .iter()
            .any(|e| e.contains("a torn last line")),
        "{err_a}\n---\n{err_b}"
    );
    assert!(journals(&sharded).is_empty(), "the journal is discarded");

    finish(
        reproduce(&sharded, Some("2/2")).spawn().unwrap(),
        "shard 2/2",
    );
    let merged = Command::new(BIN)
        .args(["merge", EXPERIMENT, "--scale", "quick", "--root"])
        .arg(&sharded)
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", text(&merged.stderr));

    // The results (numbers, summary, plot) equal the unsharded run's; the timing and
    // provenance sidecars differ by nature.
    let mut compared = 0;
    for sub in ["data/castillo", "figures/castillo"] {
        for entry in std::fs::read_dir(plain.join(sub)).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with("fig-3.4.quick.")
                || name.ends_with(".meta.json")
                || name.ends_with(".timing.csv")
            {
                continue;
            }
            let ours = std::fs::read(sharded.join(sub).join(&name)).unwrap();
            assert!(
                ours == std::fs::read(entry.path()).unwrap(),
                "{sub}/{name} differs"
            );
            compared += 1;
        }
    }
    assert!(compared >= 3, "{compared} result files compared");
    // Nothing half-written is left behind.
    for sub in ["data/castillo", "data/castillo/shards", "figures/castillo"] {
        for entry in std::fs::read_dir(sharded.join(sub)).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with(".gridsched-"), "{sub}/{name} left behind");
        }
    }
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

/// A journal holds values computed by one revision of the code: a run killed at one commit
/// and rerun after another starts afresh (its journals live in one directory per revision),
/// and leaves the older revision's journal alone.
#[test]
fn a_journal_is_not_resumed_by_another_revision_of_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    std::fs::write(root.join("code.txt"), "one").unwrap();
    git(root, &["add", "code.txt"]);
    git(root, &["commit", "-q", "-m", "one"]);

    let mut first = reproduce(root, None).spawn().unwrap();
    let journal = loop {
        if let Some(j) = journals(root).into_iter().find(|j| lines(j) >= 3) {
            break j;
        }
        assert!(
            first.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::yield_now();
    };
    first.kill().unwrap();
    first.wait().unwrap();
    let journaled = std::fs::read(&journal).unwrap();

    std::fs::write(root.join("code.txt"), "two").unwrap();
    git(root, &["commit", "-q", "-am", "two"]);
    let rerun = finish(reproduce(root, None).spawn().unwrap(), "rerun");
    let out = text(&rerun.stdout);
    assert!(!out.contains("resumed"), "{out}");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        journaled,
        "old journal kept"
    );
    assert_eq!(
        journals(root),
        vec![journal],
        "the new run discarded its own"
    );
}
