//! End-to-end tests of `gridsched trace info` and `gridsched trace convert`.

use std::path::{Path, PathBuf};

use crate::common::{gridsched, text};

const SNIPPET: &str = "; Version: 2.2\n; Computer: test rig\n; MaxProcs: 8\n; Queue: 1 short\n;\n\
; Note: THIS IS A CLEANED VERSION OF THE LOG!\n;   job<=2 (2 jobs removed)\n;\n\
3 0 10 3600 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
4 60 -1 7200 -1 -1 -1 4 7200 -1 1 2 1 -1 1 -1 -1 -1\n\
5 120 0 0 1 -1 -1 1 60 -1 0 2 1 -1 1 -1 -1 -1\n\
6 180 30 1800 1 -1 -1 1 3600 -1 1 2 1 -1 1 -1 -1 -1\n";

fn snippet(dir: &Path) -> PathBuf {
    let p = dir.join("small.swf");
    std::fs::write(&p, SNIPPET).unwrap();
    p
}

#[test]
fn info_prints_header_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let p = snippet(dir.path());
    let o = gridsched(&["trace", "info", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for want in [
        "computer:      test rig",
        "MaxProcs 8",
        "queues:        1 short",
        "2 jobs removed",
        "4 read, 3 kept, 1 skipped",
        "1 skipped: run time 0",
        "1 kept with requested processors",
        "run time (h)",
        "batch wait (h)",
        "offered load:",
    ] {
        assert!(out.contains(want), "missing `{want}` in\n{out}");
    }
}

#[test]
fn info_on_the_real_kth_log() {
    let data = gridsched_workload::swf::data_dir(None);
    if !data.join("traces").is_dir() {
        eprintln!("NOTICE: no traces/ in {}; skipping", data.display());
        return;
    }
    let o = gridsched(&["trace", "info", "KTH", "--data-dir", data.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("28476 read, 28467 kept, 9 skipped"), "{out}");
    assert!(out.contains("Lars Malinowsky"), "{out}");
    assert!(out.contains("= 0.701 of 100"), "{out}");
}

#[test]
fn convert_to_jobs_and_to_requests_that_schedule_reservation_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = snippet(dir.path());
    let jobs = dir.path().join("jobs.csv");
    let o = gridsched(&[
        "trace",
        "convert",
        p.to_str().unwrap(),
        "--to",
        "jobs",
        "--out",
        jobs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(&jobs).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("id,submit,wait,run,procs"));
    assert_eq!(lines[2], "4,60,,7200,4,4,7200,1,2,1,");

    let req = dir.path().join("req.csv");
    let o = gridsched(&[
        "trace",
        "convert",
        p.to_str().unwrap(),
        "--to",
        "requests",
        "--unit-seconds",
        "3600",
        "--slack",
        "1",
        "--horizon",
        "3",
        "--l-min",
        "0.25",
        "--out",
        req.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(&req).unwrap();
    assert_eq!(
        csv,
        "id,arrival,ready,length,deadline\n3,0,0,1,2\n4,0.016666666666666666,0.016666666666666666,2,3.0166666666666666\n6,0.05,0.05,0.5,1.05\n"
    );
    let decisions = dir.path().join("dec.csv");
    let o = gridsched(&[
        "schedule",
        "reservation",
        "--strategy",
        "first-fit",
        "--servers",
        "2",
        "--requests",
        req.to_str().unwrap(),
        "--l-min",
        "0.25",
        "--horizon",
        "3",
        "--out",
        decisions.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn a_bad_line_is_an_error_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.swf");
    std::fs::write(
        &p,
        "; MaxProcs: 8\n1 0 10 3600 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n2 5 x\n",
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    let o = gridsched(&[
        "trace",
        "convert",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("bad.swf:3: expected 18 fields, found 3"),
        "{err}"
    );
    assert!(!out.exists(), "no output on error");
    let o = gridsched(&["trace", "info", "/nonexistent/x.swf"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("/nonexistent/x.swf"));
}
