//! End-to-end tests of `gridsched replay`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{gridsched, text};

/// 4 processors: job 1 (2 procs, 100 s) starts at 0; job 2 (4 procs) waits for it until
/// 100; job 3 (1 proc, 20 s, requested 30) arrives at 10 and backfills under EASY (it ends
/// before 100) but not under FCFS; job 4 runs 500 s but requested 50: killed under
/// `--estimates requested`.
const SNIPPET: &str = "; Version: 2.2\n; Computer: test rig\n; MaxProcs: 4\n;\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 0 100 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n\
3 10 0 20 1 -1 -1 1 30 -1 1 2 1 -1 1 -1 -1 -1\n\
4 500 0 500 1 -1 -1 1 50 -1 1 2 1 -1 1 -1 -1 -1\n";

fn snippet(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("small.swf");
    std::fs::write(&p, body).unwrap();
    p
}

fn read_csv(p: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let s = std::fs::read_to_string(p).unwrap();
    let mut lines = s.lines();
    let header = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], row: &[String], name: &str) -> String {
    row[header.iter().position(|h| h == name).expect(name)].clone()
}

#[test]
fn easy_writes_batsim_columns_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(dir.path(), SNIPPET);
    let out = dir.path().join("jobs.csv");
    let json = dir.path().join("summary.json");
    let o = gridsched(&[
        "replay",
        "--policy",
        "easy",
        "--trace",
        swf.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    for want in [
        "easy on 4 processors, requested estimates",
        "jobs 4 (killed at walltime: 1)",
        "bounded (tau = 10 s)",
        "utilization",
        "makespan",
    ] {
        assert!(stdout.contains(want), "missing `{want}` in\n{stdout}");
    }
    let (header, rows) = read_csv(&out);
    // Batsim's names (what evalys's JobSet.from_csv reads).
    for c in [
        "job_id",
        "submission_time",
        "requested_number_of_resources",
        "requested_time",
        "starting_time",
        "execution_time",
        "finish_time",
        "waiting_time",
        "turnaround_time",
        "stretch",
        "success",
        "allocated_resources",
    ] {
        assert!(
            header.iter().any(|h| h == c),
            "column {c} missing: {header:?}"
        );
    }
    assert_eq!(rows.len(), 4);
    let by_id = |id: &str| {
        rows.iter()
            .find(|r| col(&header, r, "job_id") == id)
            .unwrap()
    };
    // Job 3 backfills at its arrival; job 2 starts at 100 when job 1 ends.
    assert_eq!(col(&header, by_id("3"), "starting_time"), "10");
    assert_eq!(col(&header, by_id("2"), "starting_time"), "100");
    // Job 4 is killed at its requested 50 s.
    let j4 = by_id("4");
    assert_eq!(col(&header, j4, "execution_time"), "50");
    assert_eq!(col(&header, j4, "success"), "0");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["policy"], "easy");
    assert_eq!(v["procs"], 4);
    assert_eq!(v["summary"]["jobs"], 4);
    assert_eq!(v["summary"]["killed"], 1);
    // Waits 0, 100, 0, 0.
    assert_eq!(v["summary"]["mean_wait"], 25.0);
}

#[test]
fn fcfs_does_not_backfill_and_actual_estimates_kill_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(dir.path(), SNIPPET);
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "replay",
        "--policy",
        "fcfs",
        "--trace",
        swf.to_str().unwrap(),
        "--estimates",
        "actual",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("killed at walltime: 0"));
    let (header, rows) = read_csv(&out);
    let j3 = rows
        .iter()
        .find(|r| col(&header, r, "job_id") == "3")
        .unwrap();
    // Behind job 2 (which runs [100, 200)): job 3 starts at 200.
    assert_eq!(col(&header, j3, "starting_time"), "200");
    assert!(rows.iter().all(|r| col(&header, r, "success") == "1"));
}

#[test]
fn bad_input_fails_with_file_and_line_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let bad = format!("{SNIPPET}5 600 0 abc 1 -1 -1 1 50 -1 1 2 1 -1 1 -1 -1 -1\n");
    let swf = snippet(dir.path(), &bad);
    let out = dir.path().join("jobs.csv");
    std::fs::write(&out, "previous\n").unwrap();
    let o = gridsched(&[
        "replay",
        "--policy",
        "conservative",
        "--trace",
        swf.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("small.swf:9"), "no file:line in {err}");
    // The previous file is untouched and no temporary file is left behind.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous\n");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn missing_file_unknown_policy_and_missing_size_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "replay",
        "--policy",
        "easy",
        "--trace",
        dir.path().join("nope.swf").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("nope.swf"), "{}", text(&o.stderr));
    let swf = snippet(dir.path(), SNIPPET);
    let o = gridsched(&[
        "replay",
        "--policy",
        "sjf",
        "--trace",
        swf.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let no_header = SNIPPET.replace("; MaxProcs: 4\n", "");
    let swf = snippet(dir.path(), &no_header);
    let o = gridsched(&[
        "replay",
        "--policy",
        "easy",
        "--trace",
        swf.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--procs"), "{}", text(&o.stderr));
    assert!(!out.exists());
    // With --procs 2 the 4-processor job is dropped (and said so); the rest runs.
    let o = gridsched(&[
        "replay",
        "--policy",
        "easy",
        "--trace",
        swf.to_str().unwrap(),
        "--procs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("1 jobs need more than 2 processors"));
    assert_eq!(read_csv(&out).1.len(), 3);
}

#[test]
fn the_kth_log_replays_under_every_policy() {
    let data = gridsched_workload::swf::data_dir(None);
    if !data.join("traces").is_dir() {
        eprintln!("NOTICE: no traces/ in {}; skipping", data.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (policy, limit) in [
        ("easy", None),
        ("fcfs", Some("3000")),
        ("conservative", Some("3000")),
        ("flexible", Some("3000")),
    ] {
        let out = dir.path().join(format!("{policy}.csv"));
        let mut args = vec![
            "replay",
            "--policy",
            policy,
            "--trace",
            "KTH",
            "--data-dir",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(l) = limit {
            args.extend(["--limit", l]);
        }
        let o = gridsched(&args);
        assert!(o.status.success(), "{policy}: {}", text(&o.stderr));
        let (_, rows) = read_csv(&out);
        let want = limit.map_or(28_000, |l| l.parse().unwrap());
        // The whole KTH log keeps about 28.5k jobs; a prefix exactly `limit`.
        if limit.is_some() {
            assert_eq!(rows.len(), want, "{policy}");
        } else {
            assert!(rows.len() > want, "{policy}: {} rows", rows.len());
        }
        assert!(
            text(&o.stdout).contains("on 100 processors"),
            "{}",
            text(&o.stdout)
        );
    }
}

#[test]
fn out_dash_is_standard_output_and_the_summary_moves_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(dir.path(), SNIPPET);
    let file = dir.path().join("jobs.csv");
    let args = |out: &str| {
        gridsched(&[
            "replay",
            "--policy",
            "easy",
            "--trace",
            swf.to_str().unwrap(),
            "--out",
            out,
        ])
    };
    let to_file = args(file.to_str().unwrap());
    assert!(to_file.status.success(), "{}", text(&to_file.stderr));
    let to_stdout = args("-");
    assert!(to_stdout.status.success(), "{}", text(&to_stdout.stderr));
    assert_eq!(
        to_stdout.stdout,
        std::fs::read(&file).unwrap(),
        "stdout carries exactly the CSV"
    );
    assert!(text(&to_stdout.stderr).contains("easy on 4 processors"));
    assert!(!dir.path().join("-").exists(), "no file named `-`");
    // Two outputs to standard output are refused.
    let both = gridsched(&[
        "replay",
        "--policy",
        "easy",
        "--trace",
        swf.to_str().unwrap(),
        "--out",
        "-",
        "--summary-json",
        "-",
    ]);
    assert!(!both.status.success());
    assert!(
        text(&both.stderr).contains("standard output"),
        "{}",
        text(&both.stderr)
    );
}

#[cfg(unix)]
#[test]
fn out_follows_symlinks_and_leaves_devices_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(dir.path(), SNIPPET);
    let real = dir.path().join("real.csv");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = |out: &Path| {
        let o = gridsched(&[
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            swf.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    run(&link);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .starts_with("job_id,")
    );
    if std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .is_ok()
    {
        run(Path::new("/dev/null"));
        let m = std::fs::symlink_metadata("/dev/null").unwrap();
        assert!(
            m.file_type().is_char_device(),
            "/dev/null must stay a device"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read as _;
    use std::process::Stdio;
    // A log large enough that its CSV does not fit in a pipe buffer.
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("; MaxProcs: 4\n");
    for i in 1..=20_000 {
        body.push_str(&format!(
            "{i} {i} 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ));
    }
    let swf = snippet(dir.path(), &body);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args([
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            swf.to_str().unwrap(),
            "--out",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "exit {status}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `--out /dev/stdout` with standard output a pipe (`gridsched replay ... --out /dev/stdout |
/// cat`): the kernel's `/proc/self/fd/1` link names `pipe:[…]`, not a path, and the CSV must go
/// down the pipe rather than into a file of that name.
#[test]
fn dev_stdout_on_a_pipe_is_written_in_place() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(
        dir.path(),
        "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .current_dir(dir.path())
        .args([
            "replay",
            "--policy",
            "easy",
            "--trace",
            swf.to_str().unwrap(),
            "--out",
            "/dev/stdout",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.starts_with("job_id,"), "{csv}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("pipe:")),
        "no file named after the pipe"
    );
}

/// Input hygiene found on real logs: a UTF-8 byte-order mark before the header is accepted, and
/// a job number used twice is reported by `trace info`, warned about by `replay` and
/// `coalloc`, and renumbered (after the log's largest number) so no two output rows share one.
#[test]
fn byte_order_mark_and_repeated_job_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let swf = snippet(
        dir.path(),
        "\u{feff}; MaxProcs: 4\n\
         1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 1 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 2 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let info = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args(["trace", "info", swf.to_str().unwrap()])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&info.stdout).to_string() + &String::from_utf8_lossy(&info.stderr);
    assert!(info.status.success(), "{text}");
    assert!(
        text.contains("1 jobs repeat an earlier job number"),
        "{text}"
    );
    assert!(text.contains("2 -> 3"), "{text}");

    let csv = dir.path().join("jobs.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args([
            "replay",
            "--policy",
            "easy",
            "--trace",
            swf.to_str().unwrap(),
            "--out",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("repeat an earlier job number"), "{stderr}");
    let (_, rows) = read_csv(&csv);
    let mut ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["1", "2", "3"]);

    let out = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args(["coalloc", "--trace", swf.to_str().unwrap(), "--out"])
        .arg(dir.path().join("co.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("repeat an earlier job number"), "{stderr}");
}
