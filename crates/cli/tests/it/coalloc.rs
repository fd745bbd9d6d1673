//! End-to-end tests of `gridsched coalloc` (Castillo ch. 5 online co-allocation on SWF logs).

use std::path::{Path, PathBuf};

use gridsched_reservation::coalloc::{
    CoallocConfig, CoallocScheduler, LengthField, requests_from_swf,
};
use gridsched_workload::swf::{SwfLoadOptions, load_swf};

use crate::common::{gridsched, text};

/// Four jobs on a 4-processor machine: job 3 (3 procs, 2 h) blocks job 4 (2 procs) for 2 h;
/// job 5 (1 proc) fits beside job 3; job 6 asks for 8 processors (wider than the machine).
const SNIPPET: &str = "; MaxProcs: 4\n\
3 0 0 7200 3 -1 -1 3 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
4 60 100 1800 2 -1 -1 2 3600 -1 1 2 1 -1 1 -1 -1 -1\n\
5 120 5 600 1 -1 -1 1 600 -1 1 2 1 -1 1 -1 -1 -1\n\
6 180 -1 600 8 -1 -1 8 600 -1 1 2 1 -1 1 -1 -1 -1\n";

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn rows(csv: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn writes_one_row_per_job() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "small.swf", SNIPPET);
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "coalloc",
        "--trace",
        log.to_str().unwrap(),
        "--quantum",
        "15m",
        "--horizon",
        "50h",
        "--audit",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("N = 4 servers"), "{err}");
    assert!(err.contains("1 wider than N"), "{err}");
    let head = std::fs::read_to_string(&out).unwrap();
    assert!(head.starts_with(
        "id,submit,requested_start,start,length,servers,retries,holds,wait,wait_from_submit\n"
    ));
    let r = rows(&out);
    assert_eq!(r.len(), 4);
    // Job 3 starts at once on 3 of the 4 servers.
    assert_eq!(r[0], ["3", "0", "0", "0", "7200", "3", "0", "0", "0", "0"]);
    // Job 4 (2 servers) retries every 15 min until job 3 ends at 7200 s: start 60 + 8·900.
    assert_eq!(r[1][0], "4");
    assert_eq!(r[1][3], "7260");
    assert_eq!(r[1][6], "8");
    assert_eq!(r[1][8], "7200");
    // Job 5 fits beside job 3 at once.
    assert_eq!(r[2][3], "120");
    assert_eq!(r[2][8], "0");
    // Job 6 is wider than the machine: listed, never started.
    assert_eq!(r[3], ["6", "180", "180", "", "600", "8", "", "", "", ""]);
}

#[test]
fn advance_reservations_and_durations() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "small.swf", SNIPPET);
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "coalloc",
        "--trace",
        log.to_str().unwrap(),
        "--servers",
        "16",
        "--ar-fraction",
        "1",
        "--quantum",
        "900s",
        "--horizon",
        "1d",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r = rows(&out);
    // Every job is an advance reservation at most 3 h ahead, and with 16 servers (more than all jobs together) nobody waits.
    for row in &r {
        let submit: i64 = row[1].parse().unwrap();
        let requested: i64 = row[2].parse().unwrap();
        assert!((submit..=submit + 10_800).contains(&requested), "{row:?}");
        assert_eq!(row[3], row[2], "{row:?}");
        assert_eq!(row[8], "0");
    }
    // Same seed, same output.
    let again = dir.path().join("again.csv");
    let o = gridsched(&[
        "coalloc",
        "--trace",
        log.to_str().unwrap(),
        "--servers",
        "16",
        "--ar-fraction",
        "1",
        "--horizon",
        "24h",
        "--seed",
        "7",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn bad_input_names_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.swf",
        "; MaxProcs: 4\n1 0 0 60 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 sixty 1\n",
    );
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "coalloc",
        "--trace",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("bad.swf:3"), "{err}");
    assert!(!out.exists(), "no output on error");

    let log = write(dir.path(), "small.swf", SNIPPET);
    for (flag, value, want) in [
        ("--quantum", "15x", "unknown unit"),
        ("--horizon", "0h", "at least 1 s"),
        ("--servers", "0", "--servers must be positive"),
        ("--ar-fraction", "1.5", "[0, 1]"),
    ] {
        let o = gridsched(&[
            "coalloc",
            "--trace",
            log.to_str().unwrap(),
            flag,
            value,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{flag} {value}");
        assert!(text(&o.stderr).contains(want), "{}", text(&o.stderr));
        assert!(!out.exists());
    }
    let o = gridsched(&[
        "coalloc",
        "--trace",
        log.to_str().unwrap(),
        "--quantum",
        "1h",
        "--horizon",
        "30m",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("at least one quantum"),
        "{}",
        text(&o.stderr)
    );
    let o = gridsched(&[
        "coalloc",
        "--trace",
        dir.path().join("missing.swf").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("missing.swf"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn kth_log_matches_the_library() {
    let data = gridsched_workload::swf::data_dir(None);
    if !data.join("traces").is_dir() {
        eprintln!("NOTICE: no traces/ in {}; skipping", data.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kth.csv");
    let o = gridsched(&[
        "coalloc",
        "--trace",
        "KTH",
        "--data-dir",
        data.to_str().unwrap(),
        "--limit",
        "3000",
        "--audit",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("N = 128 servers"));
    let r = rows(&out);
    assert_eq!(r.len(), 3000);
    // The same run through the library.
    let log = load_swf(
        &gridsched_workload::swf::trace_path(&data, "KTH"),
        SwfLoadOptions { limit: Some(3000) },
    )
    .unwrap();
    let (requests, _) = requests_from_swf(&log.jobs, LengthField::Run);
    let run = CoallocScheduler::new(CoallocConfig {
        servers: 128,
        ..CoallocConfig::default()
    })
    .unwrap()
    .run(&requests, false)
    .unwrap();
    assert_eq!(run.outcomes.len(), 3000);
    for (row, o) in r.iter().zip(&run.outcomes) {
        assert_eq!(row[0], o.id.to_string());
        assert_eq!(row[3], o.start.to_string());
        assert_eq!(row[6], o.retries.to_string());
        assert_eq!(row[7], o.holds.to_string());
    }
}

/// `--range-tree` changes the cost, never the schedule: the same CSV byte for byte, with the
/// tree asked for every group (0) and for the large ones only, on a real log.
#[test]
fn range_tree_gives_the_same_schedule() {
    let data = gridsched_workload::swf::data_dir(None);
    if !data.join("traces").is_dir() {
        eprintln!("NOTICE: no traces/ in {}; skipping", data.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec![
            "coalloc",
            "--trace",
            "HPC2N",
            "--data-dir",
            data.to_str().unwrap(),
            "--limit",
            "4000",
            "--ar-fraction",
            "0.5",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = gridsched(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    let plain = run("plain.csv", &[]);
    assert_eq!(plain, run("all.csv", &["--range-tree", "0"]));
    assert_eq!(plain, run("large.csv", &["--range-tree", "16"]));
}
