//! End-to-end tests of the `gridsched` binary.

use std::path::Path;
use std::process::Command;

use gridsched_reservation::{ReservationScheduler, ScheduleAudit, SchedulerConfig, Strategy};
use gridsched_sim::StreamKey;
use gridsched_workload::{RequestLimits, ReservationWorkload, read_requests, write_requests};

use crate::common::{gridsched, text};

#[test]
fn list_shows_every_chapter_3_figure() {
    let out = gridsched(&["list"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for id in ["castillo-fig-3.4", "castillo-fig-3.7", "castillo-fig-3.10"] {
        assert!(stdout.contains(id), "{stdout}");
    }
    // Documents are named by author and year, not by their seed number.
    let row = stdout
        .lines()
        .find(|l| l.starts_with("castillo-fig-3.4 "))
        .unwrap();
    assert!(row.contains("Castillo 2008"), "{row}");
    assert!(
        stdout.contains("Kumar 2010") && !row.contains(" 000 "),
        "{stdout}"
    );
}

#[test]
fn unknown_experiment_is_an_error() {
    let out = gridsched(&["reproduce", "fig-99.9"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no experiment `fig-99.9`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn reproduce_writes_csv_svg_and_prints_claims() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let out = gridsched(&[
        "reproduce",
        "fig-3.4",
        "--root",
        root,
        "--reps",
        "2",
        "--jobs",
        "500",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("3.4b"), "{stdout}");
    assert!(stdout.contains("claims:"), "{stdout}");
    for f in [
        "data/castillo/fig-3.4.quick.csv",
        "data/castillo/fig-3.4.quick.summary.csv",
        "figures/castillo/fig-3.4.quick.svg",
    ] {
        assert!(dir.path().join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(dir.path().join("data/castillo/fig-3.4.quick.csv")).unwrap();
    assert!(
        csv.starts_with("experiment,variant,point_param,point_value,algorithm,run,metric,value\n")
    );
    // The report picks the quick result up.
    let out = gridsched(&["report", "--root", root]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = std::fs::read_to_string(dir.path().join("REPRODUCTION.md")).unwrap();
    assert!(report.contains("castillo-fig-3.4"));
    assert!(report.contains("figures/castillo/fig-3.4.quick.svg"));
    assert!(report.contains("Not run yet: `cargo reproduce castillo-fig-3.5`"));
    // So does the site; it rebuilds over itself, and never over a folder of the user's.
    let site = dir.path().join("site");
    let site_arg = site.to_str().unwrap();
    for _ in 0..2 {
        let out = gridsched(&["site", "--root", root, "--out", site_arg]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let page = std::fs::read_to_string(site.join("exp/castillo-fig-3.4.html")).unwrap();
    assert!(
        page.contains("../figures/castillo/fig-3.4.quick.svg"),
        "{page}"
    );
    assert!(site.join("figures/castillo/fig-3.4.quick.svg").is_file());
    assert!(site.join("exp/castillo-fig-3.5.html").is_file());
    let mine = dir.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let out = gridsched(&["site", "--root", root, "--out", mine.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--replace"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    let nowhere = dir.path().join("nowhere");
    let out = gridsched(&[
        "site",
        "--root",
        nowhere.to_str().unwrap(),
        "--out",
        dir.path().join("site2").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("nowhere"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.path().join("site2").exists());
    // `replot` redraws the same bytes from the results, and says when there are none.
    let svg = dir.path().join("figures/castillo/fig-3.4.quick.svg");
    let written = std::fs::read(&svg).unwrap();
    std::fs::remove_file(&svg).unwrap();
    let out = gridsched(&["replot", "fig-3.4", "--root", root]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("redrew figures/castillo/fig-3.4.quick.svg"));
    assert!(std::fs::read(&svg).unwrap() == written);
    let out = gridsched(&["replot", "fig-3.5", "--root", root]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no results"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn sensitivity_overrides_need_a_separate_root_and_change_the_numbers() {
    let out = gridsched(&["reproduce", "fig-3.10", "--set", "ready_offset=zero"]);
    assert!(
        !out.status.success(),
        "--set without --root must be refused"
    );
    for (flag, value) in [("--reps", "2"), ("--jobs", "100")] {
        let out = gridsched(&["reproduce", "fig-3.10", flag, value]);
        assert!(
            !out.status.success() && text(&out.stderr).contains("--root"),
            "{flag} without --root must be refused: {}",
            text(&out.stderr)
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "reproduce",
            "fig-3.10",
            "--root",
            root,
            "--reps",
            "1",
            "--jobs",
            "300",
        ];
        args.extend_from_slice(extra);
        let out = gridsched(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read(dir.path().join("data/castillo/fig-3.10.quick.csv")).unwrap()
    };
    let base = run(&[]);
    assert_ne!(base, run(&["--set", "ready_offset=zero"]));
    let out = gridsched(&[
        "reproduce",
        "fig-3.10",
        "--root",
        root,
        "--set",
        "colour=blue",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no parameter `colour`"),
        "{}",
        text(&out.stderr)
    );
}

fn write_stream(path: &Path, jobs: usize) {
    let workload = ReservationWorkload::castillo_ch3(20, 0.9);
    let requests: Vec<_> = workload
        .stream(&StreamKey::new(5, "cli-test"))
        .unwrap()
        .take(jobs)
        .collect();
    write_requests(std::fs::File::create(path).unwrap(), &requests).unwrap();
}

/// `--index tree` and `--index linear` write byte-identical output.
#[test]
fn tree_and_linear_indexes_write_identical_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("requests.csv");
    write_stream(&input, 20_000);
    for strategy in [
        "first-fit",
        "min-lip",
        "min-tip",
        "best-fit",
        "max-lip",
        "max-tip",
    ] {
        let mut outputs = Vec::new();
        for index in ["tree", "linear"] {
            let output = dir.path().join(format!("{strategy}-{index}.csv"));
            let out = gridsched(&[
                "schedule",
                "reservation",
                "--strategy",
                strategy,
                "--servers",
                "20",
                "--index",
                index,
                "--requests",
                input.to_str().unwrap(),
                "--out",
                output.to_str().unwrap(),
            ]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            outputs.push(std::fs::read(&output).unwrap());
        }
        assert!(
            outputs[0] == outputs[1],
            "{strategy}: tree and linear outputs differ"
        );
    }
}

/// 100,000 requests: the output is valid, in input order, and equals the library's decisions.
#[test]
fn schedule_reservation_handles_a_large_stream() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("requests.csv");
    let output = dir.path().join("out.csv");
    write_stream(&input, 100_000);
    for strategy in ["min-lip", "lact"] {
        let out = gridsched(&[
            "schedule",
            "reservation",
            "--strategy",
            strategy,
            "--servers",
            "20",
            "--requests",
            input.to_str().unwrap(),
            "--out",
            output.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("100000 requests"),
            "{}",
            text(&out.stderr)
        );

        let file = read_requests(&input, &RequestLimits::default()).unwrap();
        let mut scheduler = ReservationScheduler::new(SchedulerConfig::new(
            20,
            strategy.parse::<Strategy>().unwrap(),
        ))
        .unwrap();
        let mut audit = ScheduleAudit::new();
        let mut reader = csv::Reader::from_path(&output).unwrap();
        assert_eq!(
            reader.headers().unwrap(),
            vec!["id", "accepted", "server", "start", "end"]
        );
        let mut rows = 0;
        for (i, (rec, req)) in reader.records().zip(&file.requests).enumerate() {
            let rec = rec.unwrap();
            assert_eq!(&rec[0], file.ids[i]);
            let expected = scheduler.submit(req.arrival, &req.window).unwrap();
            audit.record(i, req, expected.as_ref());
            match expected {
                Some(b) => {
                    assert_eq!(&rec[1], "true");
                    assert_eq!(rec[2].parse::<u32>().unwrap(), b.server);
                    assert_eq!(rec[3].parse::<f64>().unwrap(), b.start);
                    assert_eq!(rec[4].parse::<f64>().unwrap(), b.end);
                }
                None => assert_eq!((&rec[1], &rec[2], &rec[3]), ("false", "", "")),
            }
            rows += 1;
        }
        assert_eq!(rows, 100_000);
        assert_eq!(audit.violations(), Vec::<String>::new());
    }
}

#[test]
fn bad_input_names_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "id,arrival,ready,length,deadline\na,0,1,2,5\nb,1,2,oops,9\n",
            ":3: length: `oops` is not a number",
        ),
        (
            "id,arrival,ready,length,deadline\na,2,3,2,6\nb,1,2,2,9\n",
            ":3: request `b`: arrival 1 is earlier",
        ),
        (
            "id,arrival,ready,length,deadline\na,0,3,2,4\n",
            ":2: request `a`: deadline 4 is before ready + length",
        ),
        (
            "id,arrival,ready,length,deadline\na,0,3,-2,4\n",
            ":2: request `a`: length must be positive",
        ),
        (
            "id,arrival,ready,length,deadline\na,0,3,2,5,7\n",
            ":2: expected 5 fields, found 6",
        ),
        ("id,arrival,ready\n", ":1: missing column `length`"),
        ("\u{0}\u{1}garbage", ":1:"),
    ];
    for (i, (content, want)) in cases.iter().enumerate() {
        let input = dir.path().join(format!("bad{i}.csv"));
        std::fs::write(&input, content).unwrap();
        let output = dir.path().join(format!("out{i}.csv"));
        let out = gridsched(&[
            "schedule",
            "reservation",
            "--strategy",
            "first-fit",
            "--servers",
            "3",
            "--requests",
            input.to_str().unwrap(),
            "--out",
            output.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "case {i} succeeded");
        assert!(
            stderr.contains(&format!("bad{i}.csv{want}")),
            "case {i}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "case {i}: {stderr}");
        assert!(!output.exists(), "case {i} wrote an output file");
    }
    let out = gridsched(&[
        "schedule",
        "reservation",
        "--strategy",
        "first-fit",
        "--servers",
        "0",
        "--requests",
        "x",
        "--out",
        "y",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("at least 1"),
        "{}",
        text(&out.stderr)
    );
    let out = gridsched(&[
        "schedule",
        "reservation",
        "--strategy",
        "worst-fit",
        "--servers",
        "2",
        "--requests",
        "x",
        "--out",
        "y",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("unknown strategy `worst-fit`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn paper_scale_refuses_a_dirty_tree_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        assert!(ok, "git {args:?}");
    };
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("NOTICE: git not installed; skipping");
        return;
    }
    git(&["init", "-q"]);
    std::fs::write(root.join("tracked.txt"), "a").unwrap();
    git(&["add", "tracked.txt"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "x",
    ]);
    std::fs::write(root.join("tracked.txt"), "b").unwrap();
    let r = root.to_str().unwrap();
    let out = gridsched(&[
        "reproduce",
        "kumar-fig-4.3",
        "--scale",
        "paper",
        "--root",
        r,
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("uncommitted changes") && err.contains("--allow-dirty"),
        "{err}"
    );
    assert!(!root.join("data").exists(), "nothing written");
    let out = gridsched(&[
        "reproduce",
        "kumar-fig-4.3",
        "--scale",
        "paper",
        "--root",
        r,
        "--allow-dirty",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let meta = std::fs::read_to_string(root.join("data/kumar/fig-4.3.paper.meta.json")).unwrap();
    assert!(meta.contains("-dirty"), "{meta}");
    // Quick scale never needs a clean tree.
    let out = gridsched(&["reproduce", "kumar-fig-4.3", "--root", r]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Results written by earlier runs (data/, figures/) do not make the tree dirty: a second
    // paper-scale run on committed code is accepted and names a clean revision.
    git(&["checkout", "-q", "tracked.txt"]);
    git(&["add", "data", "figures"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "results",
    ]);
    for _ in 0..2 {
        let out = gridsched(&[
            "reproduce",
            "kumar-fig-4.3",
            "--scale",
            "paper",
            "--root",
            r,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let meta = std::fs::read_to_string(root.join("data/kumar/fig-4.3.paper.meta.json")).unwrap();
    assert!(!meta.contains("-dirty"), "{meta}");
}

/// Off a terminal (here stderr is a pipe) `reproduce` reports progress as plain lines — done /
/// total, elapsed, ETA — at the interval `$GRIDSCHED_PROGRESS_SECS` sets, ending at 100 %.
#[test]
fn progress_is_plain_lines_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args(["reproduce", "fig-3.9", "--root"])
        .arg(dir.path())
        .env("GRIDSCHED_PROGRESS_SECS", "0")
        .output()
        .expect("run gridsched");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(" runs (")).collect();
    assert!(lines.len() >= 2, "{stderr}");
    assert!(lines[0].contains("elapsed, ETA"), "{}", lines[0]);
    let last = lines.last().unwrap();
    assert!(last.contains("100%") && !last.contains("ETA"), "{last}");
    assert!(!stderr.contains('\r'), "no terminal bar in a log");
}

/// One vocabulary for inputs: `reproduce` takes `--data-dir` like every command that reads
/// data (a wrong one is named in the error), and `trace info` names its log with `--trace`
/// like `replay` and `coalloc` (the positional form stays).
#[test]
fn data_dir_and_trace_are_accepted_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-data-here");
    let out = gridsched(&[
        "reproduce",
        "logs-easy-replay",
        "--data-dir",
        missing.to_str().unwrap(),
        "--root",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("no-data-here/traces/KTH"), "{err}");
    assert!(err.contains("--data-dir"), "{err}");

    let swf = dir.path().join("tiny.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let by_flag = gridsched(&["trace", "info", "--trace", swf.to_str().unwrap()]);
    let positional = gridsched(&["trace", "info", swf.to_str().unwrap()]);
    assert!(by_flag.status.success(), "{}", text(&by_flag.stderr));
    assert_eq!(by_flag.stdout, positional.stdout);
    let both = gridsched(&["trace", "info", "x", "--trace", "y"]);
    assert!(!both.status.success());

    // A short name missing from the data directory: every log-reading command says where it
    // looked and how to point elsewhere, once.
    for cmd in [
        vec!["replay", "--policy", "easy", "--out", "-"],
        vec!["coalloc", "--out", "-"],
        vec!["trace", "info"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--trace", "KTH", "--data-dir", missing.to_str().unwrap()]);
        let out = gridsched(&args);
        assert!(!out.status.success());
        let err = text(&out.stderr);
        assert!(
            err.contains("GRIDSCHED_DATA") && err.contains("data/README.md"),
            "{cmd:?}: {err}"
        );
        assert_eq!(err.matches("no such file").count(), 1, "{err}");
    }
}

/// `map --etc NAME` that is nowhere: the error lists every place tried and the fix, once.
#[test]
fn a_missing_etc_matrix_names_the_places_tried() {
    let dir = tempfile::tempdir().unwrap();
    let out = gridsched(&[
        "map",
        "--etc",
        "u_c_nowhere.0",
        "--heuristic",
        "min-min",
        "--data-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    let braun = dir.path().join("etc").join("braun").join("u_c_nowhere.0");
    assert!(err.contains(&braun.display().to_string()), "{err}");
    assert!(
        err.contains("GRIDSCHED_DATA") && err.contains("data/README.md"),
        "{err}"
    );
    assert_eq!(err.matches("no such file").count(), 1, "{err}");
}

#[test]
fn an_experiments_numbers_do_not_depend_on_what_else_the_process_runs() {
    // alzoubi-calib-trt520 runs H1 on Exp 1 at N = 520 for the sizes alzoubi-table-4's sweep
    // also runs, under another sweep name: a per-process memo once let whichever ran first
    // decide the other's numbers. Each, run with the other, must equal itself alone (separate
    // processes: the memo is process-wide). One replication is enough to share the memo.
    let run = |ids: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["reproduce"];
        args.extend(ids);
        args.extend(["--reps", "1", "--root", dir.path().to_str().unwrap()]);
        let out = gridsched(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        dir
    };
    let ids = ["alzoubi-table-4", "alzoubi-calib-trt520"];
    let together = run(&ids);
    for id in ids {
        let alone = run(&[id]);
        let csv = |d: &Path| {
            let name = id.trim_start_matches("alzoubi-");
            std::fs::read(d.join(format!("data/alzoubi/{name}.quick.csv"))).unwrap()
        };
        assert!(
            csv(together.path()) == csv(alone.path()),
            "{id} differs when the other runs in the same process"
        );
    }
}
