//! Where outputs go, end to end: `/dev/stdout` and other open descriptors written to their
//! stream, outputs that would destroy an input or each other refused before any work, all or
//! nothing across files and devices, reports that never panic on a full device or a closed
//! pipe, and inputs read once.
#![cfg(unix)]

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;
use common::{gridsched, text};

const BIN: &str = env!("CARGO_BIN_EXE_gridsched");

/// Four jobs on a 4-processor machine (the first three are kept by `--limit 3`).
const LOG: &str = "; Version: 2.2\n; Computer: test rig\n; MaxProcs: 4\n;\n\
1 0 0 7200 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
2 0 0 18000 2 -1 -1 2 18000 -1 1 1 1 -1 1 -1 -1 -1\n\
3 3600 0 7200 3 -1 -1 3 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
4 3600 0 3600 4 -1 -1 4 3600 -1 1 1 1 -1 1 -1 -1 -1\n";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn log(dir: &Path) -> PathBuf {
    let p = dir.join("site.swf");
    std::fs::write(&p, LOG).unwrap();
    p
}

/// The temporary files the writer left in `dir` (there must be none).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".gridsched-"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 1. `/dev/stdout` (and any open descriptor) is the stream, never a file to replace

/// `gridsched ... --out /dev/stdout >> app.log` appends to app.log exactly what `--out -`
/// writes; `> app.log` leaves exactly that; the file is never replaced (same inode), and the
/// reports go to standard error.
#[test]
fn dev_stdout_redirected_to_a_file_is_written_to_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    let convert = |out: &str| {
        let mut c = Command::new(BIN);
        c.args(["trace", "convert", s(&swf), "--limit", "3", "--out", out]);
        c
    };
    let dash = convert("-").output().unwrap();
    assert!(dash.status.success(), "{}", text(&dash.stderr));
    let csv = text(&dash.stdout);
    assert!(csv.starts_with("id,submit,"), "{csv}");
    let app = dir.path().join("app.log");
    for path in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        if !Path::new(path).exists() {
            eprintln!("NOTICE: no {path} here; skipping it");
            continue;
        }
        for append in [true, false] {
            std::fs::write(&app, "OLD\n").unwrap();
            let inode = std::fs::metadata(&app).unwrap().ino();
            let file = if append {
                std::fs::OpenOptions::new().append(true).open(&app).unwrap()
            } else {
                std::fs::File::create(&app).unwrap()
            };
            let o = convert(path)
                .stdout(file)
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            assert!(o.status.success(), "{path}: {}", text(&o.stderr));
            let want = if append {
                format!("OLD\n{csv}")
            } else {
                csv.clone()
            };
            assert_eq!(
                std::fs::read_to_string(&app).unwrap(),
                want,
                "{path} (append {append})"
            );
            assert_eq!(
                std::fs::metadata(&app).unwrap().ino(),
                inode,
                "{path}: app.log was replaced"
            );
            assert!(text(&o.stderr).contains("3 jobs written"), "{path}");
            assert!(leftovers(dir.path()).is_empty(), "{path}");
        }
    }
    // A report printed on standard output moves to standard error, as with `-`.
    let replay = |out: &str, stdout: Stdio| {
        Command::new(BIN)
            .args([
                "replay",
                "--policy",
                "easy",
                "--trace",
                s(&swf),
                "--out",
                out,
            ])
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    let dash = replay("-", Stdio::piped());
    assert!(dash.status.success(), "{}", text(&dash.stderr));
    std::fs::write(&app, "OLD\n").unwrap();
    let file = std::fs::OpenOptions::new().append(true).open(&app).unwrap();
    let o = replay("/dev/stdout", file.into());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut want = b"OLD\n".to_vec();
    want.extend_from_slice(&dash.stdout);
    assert_eq!(std::fs::read(&app).unwrap(), want);
    assert!(
        text(&o.stderr).contains("easy on 4 processors"),
        "{}",
        text(&o.stderr)
    );
    // Standard output and /dev/stdout at once are two outputs on one stream.
    let both = Command::new(BIN)
        .args(["replay", "--policy", "easy", "--trace", s(&swf)])
        .args(["--out", "-", "--summary-json", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(!both.status.success());
    assert!(
        text(&both.stderr).contains("standard output"),
        "{}",
        text(&both.stderr)
    );
}

/// `/dev/stderr` goes to the error stream, another open descriptor (`3>>file`, `/dev/fd/3`) is
/// appended to through its path: neither is renamed over.
#[test]
fn other_open_descriptors_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    let dash = gridsched(&["trace", "convert", s(&swf), "--out", "-"]);
    assert!(dash.status.success(), "{}", text(&dash.stderr));
    let csv = text(&dash.stdout);
    if Path::new("/dev/stderr").exists() {
        let err = dir.path().join("err.log");
        std::fs::write(&err, "E\n").unwrap();
        let inode = std::fs::metadata(&err).unwrap().ino();
        let file = std::fs::OpenOptions::new().append(true).open(&err).unwrap();
        let o = Command::new(BIN)
            .args(["trace", "convert", s(&swf), "--out", "/dev/stderr"])
            .stderr(file)
            .output()
            .unwrap();
        let logged = std::fs::read_to_string(&err).unwrap();
        assert!(o.status.success(), "{logged}");
        assert!(o.stdout.is_empty());
        assert!(
            logged.starts_with("E\n") && logged.contains(&csv),
            "{logged}"
        );
        assert!(logged.contains("4 jobs written"), "{logged}");
        assert_eq!(std::fs::metadata(&err).unwrap().ino(), inode);
    }
    if Path::new("/dev/fd").exists() {
        let three = dir.path().join("three.log");
        std::fs::write(&three, "OLD\n").unwrap();
        let inode = std::fs::metadata(&three).unwrap().ino();
        let o = Command::new("sh")
            .arg("-c")
            .arg("exec 3>>\"$2\"; exec \"$0\" trace convert \"$1\" --out /dev/fd/3")
            .args([BIN, s(&swf), s(&three)])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(
            std::fs::read_to_string(&three).unwrap(),
            format!("OLD\n{csv}")
        );
        assert_eq!(std::fs::metadata(&three).unwrap().ino(), inode);
    }
}
