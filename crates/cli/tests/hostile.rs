//! Issue 35's known defects, each pinned by a test that failed before its fix: sizes refused
//! by name before any work, logs whose skipped and changed records are reported by every
//! command that reads them, and the other defects found trying the program as a new user.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{gridsched, text};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// A refusal: exit code 1, `want` in the error, no panic, `out` not written.
fn refused(o: &Output, want: &str, out: &Path) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(want), "missing `{want}` in\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "wrote {}", out.display());
}

/// Runs the binary under `ulimit -v` of `kib` KiB (an address-space limit, as a batch
/// system's memory limit): the memory check must read it.
fn gridsched_limited(kib: u64, args: &[&str]) -> Output {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec '{}' {}",
            env!("CARGO_BIN_EXE_gridsched"),
            quoted.join(" ")
        ))
        .output()
        .expect("run sh")
}

// ---------------------------------------------------------------------------------------------
// Unbounded sizes: refused by name before any work.

#[test]
fn reproduce_sizes_beyond_memory_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let data = root.join("data");
    for (args, want) in [
        (
            vec!["--reps", "4294967295", "singh-fig-4"],
            "--reps 4294967295 is too large",
        ),
        (
            vec!["--jobs", "18446744073709551615", "fig-3.4"],
            "--jobs 18446744073709551615 is too large",
        ),
        (
            vec!["--threads", "100000", "fig-3.4"],
            "--threads 100000 is too large",
        ),
    ] {
        let mut all = vec!["reproduce", "--root", s(&root)];
        all.extend(args);
        let o = gridsched(&all);
        refused(&o, want, &data);
        assert!(text(&o.stderr).contains("more than"), "{}", text(&o.stderr));
    }
    // `--threads 0` is no pool at all.
    let o = gridsched(&["reproduce", "--threads", "0", "--root", s(&root), "fig-3.4"]);
    refused(&o, "--threads must be positive", &data);
}

#[test]
fn grid_generate_sizes_beyond_memory_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (flag, value) in [("--jobs", "4000000000"), ("--machines", "4000000000")] {
        let o = gridsched(&["grid", "generate", flag, value, "--out-dir", s(&out)]);
        refused(&o, &format!("{flag} {value} is too large"), &out);
    }
}

#[test]
fn hierarchy_sizes_beyond_memory_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.csv");
    let o = gridsched(&[
        "hierarchy",
        "--jobs",
        "4000000000",
        "--size",
        "1GB",
        "--out",
        s(&out),
    ]);
    refused(&o, "--jobs 4000000000 is too large", &out);
    // Under a 3 GB limit, 10^8 jobs do not fit: refused by name, not aborted.
    let o = gridsched_limited(
        3_000_000,
        &[
            "hierarchy",
            "--jobs",
            "100000000",
            "--size",
            "1GB",
            "--out",
            s(&out),
        ],
    );
    refused(&o, "--jobs 100000000 is too large", &out);
    assert!(text(&o.stderr).contains("ulimit -v"), "{}", text(&o.stderr));
}

#[test]
fn hierarchy_os_change_means_below_a_second_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.csv");
    for mean in ["1ms", "999ms", "1d,500ms"] {
        let o = gridsched(&[
            "hierarchy",
            "--jobs",
            "5",
            "--size",
            "1GB",
            "--os-changes",
            mean,
            "--out",
            s(&out),
        ]);
        refused(&o, "at least 1 s", &out);
        assert!(text(&o.stderr).contains("--os-changes"));
    }
}

#[test]
fn provision_sizes_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("p.csv");
    let o = gridsched(&[
        "provision",
        "--workflow",
        "synthetic",
        "--trace",
        s(&log),
        "--at",
        "10",
        "--generations",
        "4000000000",
        "--out",
        s(&out),
    ]);
    refused(&o, "--generations 4000000000 is too large", &out);
    let o = gridsched_limited(
        3_000_000,
        &[
            "provision",
            "--workflow",
            "synthetic",
            "--tasks",
            "100000000",
            "--trace",
            s(&log),
            "--at",
            "10",
            "--out",
            s(&out),
        ],
    );
    refused(&o, "--tasks 100000000 is too large", &out);
}

/// Tabu search with the default tabu list tries each planned job at most once per call, so
/// iterations beyond that change nothing: `1:1000000` must give the same schedule and work as
/// `1:100` on 30 jobs (it ran essentially forever before).
#[test]
fn grid_tabu_iterations_beyond_the_planned_jobs_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,200\nB,2,100\n");
    let mut jobs = String::from("id,submit,cpus,length,deadline\n");
    for i in 1..=30 {
        jobs.push_str(&format!(
            "{i},{},{},{},{}\n",
            i * 3,
            1 + i % 4,
            20 + (i * 37) % 90,
            i * 3 + 60 + (i * 53) % 200
        ));
    }
    let jobs = write(dir.path(), "j.csv", &jobs);
    let run = |ts: &str| {
        let out = dir.path().join(format!("{}.csv", ts.replace(':', "_")));
        let json = dir.path().join(format!("{}.json", ts.replace(':', "_")));
        let o = gridsched(&[
            "grid",
            "--policy",
            "eg-edf-ts",
            "--ts",
            ts,
            "--machines",
            s(&machines),
            "--jobs",
            s(&jobs),
            "--out",
            s(&out),
            "--summary-json",
            s(&json),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (std::fs::read_to_string(&out).unwrap(), v["work"].clone())
    };
    let (few, few_work) = run("1:100");
    let (many, many_work) = run("1:1000000");
    assert_eq!(few, many);
    assert_eq!(few_work, many_work);
}

// ---------------------------------------------------------------------------------------------
// Records dropped in silence: every command that reads a log says what reading it changed.

/// 4 processors. Record 3 has run time 0 (skipped); record 4 is submitted before record 2
/// (re-sorted); record 5 repeats job number 2 (renumbered).
const SITE: &str = "; Version: 2.2\n; MaxProcs: 4\n;\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 20 0 50 1 -1 -1 1 80 -1 1 1 1 -1 1 -1 -1 -1\n\
3 25 0 0 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n\
4 5 0 30 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n\
2 30 0 40 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n";

fn says_what_reading_changed(log: &Path, o: &Output) {
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    let name = s(log);
    assert!(
        err.contains(&format!("{name}: 1 of 5 records skipped (1 run time 0)")),
        "{err}"
    );
    assert!(err.contains("out of submit-time order"), "{err}");
    assert!(err.contains("repeat an earlier job number"), "{err}");
}

#[test]
fn every_command_that_reads_a_log_reports_skipped_sorted_and_renumbered_records() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("out.csv");
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let runs: Vec<Vec<&str>> = vec![
        vec!["slots", "--trace", s(&log), "--at", "10", "--out", s(&out)],
        vec![
            "price",
            "--trace",
            s(&log),
            "--at",
            "10",
            "--procs",
            "1",
            "--duration",
            "60",
            "--out",
            s(&out),
        ],
        vec![
            "grid",
            "--policy",
            "fcfs",
            "--machines",
            s(&machines),
            "--trace",
            s(&log),
            "--reference-speed",
            "1",
            "--out",
            s(&out),
        ],
        vec![
            "provision",
            "--workflow",
            "synthetic",
            "--tasks",
            "20",
            "--procs-mean",
            "1",
            "--trace",
            s(&log),
            "--at",
            "10",
            "--out",
            s(&out),
        ],
        vec![
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            s(&log),
            "--out",
            s(&out),
        ],
        vec!["coalloc", "--trace", s(&log), "--out", s(&out)],
    ];
    for args in runs {
        let o = gridsched(&args);
        says_what_reading_changed(&log, &o);
    }
}
