//! End-to-end tests of `gridsched price` (Singh ch. 5: Figure 22 and query forms 17–19, eq.
//! 20), run as a user runs them.
//!
//! The hand-priced site is a small log written here into a temporary directory; the shipped
//! CTC log is read from the data directory (`../shared/data/`, or `$GRIDSCHED_DATA`), and
//! without it that test prints a NOTICE and passes, unless `GRIDSCHED_REQUIRE_DATA=1`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{gridsched, text};

const HEADER: &str = "start,start_offset_s,price_su,delayed_jobs,chosen";

/// 4 processors; the request is made at --at 1 h (3600 s). In hours:
///
/// - running: A (2 p, 0–2 h) and B (2 p, 0–5 h): no processor is free until 2 h, two are
///   free over [2 h, 5 h), all four from 5 h;
/// - queued, all submitted at 1 h: C (3 p × 2 h), D (4 p × 1 h), E (1 p × 7 h).
///
/// Conservative backfilling plans C at 5 h, D at 7 h (after C) and E at 8 h (E would hold a
/// processor through D's start anywhere earlier). EASY only protects the head: at 2 h E fits
/// beside C's reservation (one processor is left beside C over [5 h, 7 h)) and starts, which
/// pushes D to 9 h, after E. So the two policies plan C 5/5, D 7/9, E 8/2.
const SITE: &str = "; Version: 2.2\n; Computer: test rig\n; MaxProcs: 4\n;\n\
1 0 0 7200 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
2 0 0 18000 2 -1 -1 2 18000 -1 1 1 1 -1 1 -1 -1 -1\n\
3 3600 0 7200 3 -1 -1 3 7200 -1 1 1 1 -1 1 -1 -1 -1\n\
4 3600 0 3600 4 -1 -1 4 3600 -1 1 1 1 -1 1 -1 -1 -1\n\
5 3600 0 25200 1 -1 -1 1 25200 -1 1 1 1 -1 1 -1 -1 -1\n";

fn site(dir: &Path) -> PathBuf {
    let p = dir.join("site.swf");
    std::fs::write(&p, SITE).unwrap();
    p
}

/// Runs `gridsched price --trace <swf> --at 1h` with `args`; fails the test if it fails.
fn price_ok(swf: &Path, args: &[&str]) -> Output {
    let mut all = vec!["price", "--trace", swf.to_str().unwrap(), "--at", "1h"];
    all.extend_from_slice(args);
    let o = gridsched(&all);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"));
    o
}

/// `base` followed by `extra`.
fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    [base, extra].concat()
}

/// The rows of a table (without their `chosen` column) with row `chosen` chosen.
fn table(rows: &[&str], chosen: usize) -> String {
    rows.iter()
        .enumerate()
        .map(|(i, r)| format!("{r},{}\n", i == chosen))
        .collect()
}

/// The table a run printed, without its header (checked here).
fn rows(o: &Output) -> String {
    let out = text(&o.stdout);
    let rest = out
        .strip_prefix(HEADER)
        .and_then(|r| r.strip_prefix('\n'))
        .unwrap_or_else(|| panic!("no header in\n{out}"));
    rest.to_string()
}

#[test]
fn conservative_prices_by_hand_and_alpha_picks_the_earliest_or_the_free_start() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    // 3 processors × 1 h. Candidates (18): now (1 h) and the change points 2, 5, 7, 8 and 15 h
    // (E ends); 1 h and 2 h lack a third processor (A and B hold all four, then two).
    // - 5 h: C cannot start before 6 h (+1 h × 3 p), D follows it at 8 h (+1 h × 4 p), E
    //   must then wait for D: 9 h (+1 h × 1 p): 8 SU, 3 jobs.
    // - 7 h: C keeps 5 h; D waits for the slot: 8 h (+4 SU); E, which would now hold a
    //   processor through 8 h, goes after D: 9 h (+1 SU): 5 SU, 2 jobs.
    // - 8 h: D is done, E fits beside the slot: 0. 15 h: the site is idle: 0.
    let body = [
        "18000,14400,8.0000,3",
        "25200,21600,5.0000,2",
        "28800,25200,0.0000,0",
        "54000,50400,0.0000,0",
    ];
    let args = ["--procs", "3", "--duration", "1h"];
    for (alpha, chosen, summary) in [
        (
            "0",
            0,
            "4 candidates; chosen (alpha 0): start 18000 s (+14400 s), price 8.0000 SU, 3 jobs delayed",
        ),
        (
            "1",
            2,
            "4 candidates; chosen (alpha 1): start 28800 s (+25200 s), price 0.0000 SU, 0 jobs delayed",
        ),
    ] {
        let o = price_ok(&swf, &with(&args, &["--alpha", alpha]));
        assert_eq!(rows(&o), table(&body, chosen), "alpha {alpha}");
        let err = text(&o.stderr);
        assert!(
            err.contains(
                "site.swf (4 processors; at t = 3600 s: 2 running, 3 queued; conservative)"
            ) && err.contains(summary),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "one summary line:\n{err}");
        assert!(!err.contains("warning"), "{err}");
    }
    // The default policy is conservative, the site's size is its MaxProcs, and `3600` is
    // `1h`.
    let a = price_ok(&swf, &args);
    let b = gridsched(&with(
        &[
            "price",
            "--trace",
            swf.to_str().unwrap(),
            "--at",
            "3600",
            "--policy",
            "cb",
            "--procs-site",
            "4",
        ],
        &args,
    ));
    assert!(b.status.success(), "{}", text(&b.stderr));
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn easy_prices_by_hand_differ_from_conservative_ones() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    // 2 processors × 1 h under EASY (planned: E 2 h, C 5 h, D 9 h). Candidates: 2 h (A ends,
    // E starts), 5 h, 7 h (C ends), 9 h (E ends, D starts) and 10 h (D ends); 1 h is full.
    // - 2 h: the slot takes the two free processors, E starts at 3 h instead (+1 SU) and
    //   still ends after D could start, so D waits until 10 h (+1 h × 4 p): 5 SU, 2 jobs.
    // - 5 h: C (3 p) no longer fits beside the slot: 6 h (+3 SU). E still starts at 2 h
    //   (one processor is left beside the slot, then beside C) and D still waits for it
    //   until 9 h: 3 SU, 1 job.
    // - 7 h: C has ended; E and the slot share the site: nobody moves. 9 h: D must wait for
    //   the slot: 10 h (+4 SU). 10 h: idle: 0.
    let body = [
        "7200,3600,5.0000,2",
        "18000,14400,3.0000,1",
        "25200,21600,0.0000,0",
        "32400,28800,4.0000,1",
        "36000,32400,0.0000,0",
    ];
    for (alpha, chosen) in [("0", 0), ("1", 2)] {
        let o = price_ok(
            &swf,
            &[
                "--procs",
                "2",
                "--duration",
                "3600",
                "--policy",
                "easy",
                "--alpha",
                alpha,
            ],
        );
        assert_eq!(rows(&o), table(&body, chosen), "alpha {alpha}");
        assert!(text(&o.stderr).contains("3 queued; easy)"));
    }
    // The same request under conservative backfilling (planned: C 5 h, D 7 h, E 8 h): at 2 h
    // the slot ends before anybody is planned to start (0); at 5 h C moves to 6 h (+3), D
    // to 8 h (+4) and E to 9 h (+1): 8; at 7 h D moves to 8 h (+4) and E to 9 h (+1): 5; at
    // 8 h and 15 h nobody moves. Earlier is not always pricier (Table 3's point).
    let o = price_ok(&swf, &["--procs", "2", "--duration", "1h", "--alpha", "1"]);
    assert_eq!(
        rows(&o),
        "7200,3600,0.0000,0,true\n\
         18000,14400,8.0000,3,false\n\
         25200,21600,5.0000,2,false\n\
         28800,25200,0.0000,0,false\n\
         54000,50400,0.0000,0,false\n"
    );
}

#[test]
fn a_fixed_start_is_priced_alone_and_an_infeasible_one_costs_inf() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    // Query (17) at 5 h: the rows of (18) above.
    for (policy, row, summary) in [
        (
            "conservative",
            "18000,14400,8.0000,3,true\n",
            "start 18000 s (+14400 s): price 8.0000 SU, 3 jobs delayed",
        ),
        (
            "easy",
            "18000,14400,3.0000,1,true\n",
            "start 18000 s (+14400 s): price 3.0000 SU, 1 jobs delayed",
        ),
    ] {
        let o = price_ok(
            &swf,
            &[
                "--procs",
                "2",
                "--duration",
                "1h",
                "--start",
                "5h",
                "--policy",
                policy,
            ],
        );
        assert_eq!(rows(&o), row, "{policy}");
        assert!(text(&o.stderr).contains(summary), "{}", text(&o.stderr));
    }
    // At 1 h A and B hold all four processors: infeasible is an answer (price inf), exit 0.
    let o = price_ok(
        &swf,
        &["--procs", "2", "--duration", "1h", "--start", "3600"],
    );
    assert_eq!(rows(&o), "3600,0,inf,,false\n");
    let err = text(&o.stderr);
    assert!(
        err.contains("start 3600 s is infeasible")
            && err.contains("the earliest feasible start after it is 7200 s"),
        "{err}"
    );
    // A start between change points is priced as asked: 3 h, before anybody's planned start.
    let o = price_ok(&swf, &["--procs", "2", "--duration", "1h", "--start", "3h"]);
    assert_eq!(rows(&o), "10800,7200,0.0000,0,true\n");
}

#[test]
fn a_window_keeps_the_candidates_from_its_start_to_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    // Query (19) from 3 h: 3 h itself joins (two processors are free over [3 h, 4 h)), then
    // the change points up to 8 h. Conservative: at 3 h nobody moves (0); EASY: E, planned
    // at 2 h, now waits for the slot to end at 4 h: +2 h × 1 p, and D then waits for E until
    // 11 h: +2 h × 4 p: 10 SU. The candidates after 8 h (conservative 15 h, EASY 9 h and
    // 10 h) are left out.
    for (policy, want, summary) in [
        (
            "conservative",
            "10800,7200,0.0000,0,true\n\
             18000,14400,8.0000,3,false\n\
             25200,21600,5.0000,2,false\n\
             28800,25200,0.0000,0,false\n",
            "4 candidates in [10800, 28800]; chosen (alpha 1): start 10800 s",
        ),
        (
            "easy",
            "10800,7200,10.0000,2,false\n\
             18000,14400,3.0000,1,false\n\
             25200,21600,0.0000,0,true\n",
            "3 candidates in [10800, 28800]; chosen (alpha 1): start 25200 s",
        ),
    ] {
        let o = price_ok(
            &swf,
            &[
                "--procs",
                "2",
                "--duration",
                "1h",
                "--window",
                "3h..8h",
                "--alpha",
                "1",
                "--policy",
                policy,
            ],
        );
        assert_eq!(rows(&o), want, "{policy}");
        assert!(text(&o.stderr).contains(summary), "{}", text(&o.stderr));
    }
    // A window where the request never fits is an empty answer, not an error: 4 processors
    // are first free at 5 h.
    let o = price_ok(
        &swf,
        &["--procs", "4", "--duration", "1h", "--window", "2h..3h"],
    );
    assert_eq!(rows(&o), "");
    assert!(
        text(&o.stderr)
            .contains("no feasible start in the window; the earliest after it is 18000 s"),
        "{}",
        text(&o.stderr)
    );
    // A window of one instant.
    let o = price_ok(
        &swf,
        &["--procs", "2", "--duration", "1h", "--window", "5h..5h"],
    );
    assert_eq!(rows(&o), "18000,14400,8.0000,3,true\n");
}

/// Names of the entries of `dir`.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn bad_requests_name_what_is_wrong_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    let malformed = dir.path().join("malformed.swf");
    std::fs::write(
        &malformed,
        "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 ten 1\n",
    )
    .unwrap();
    let no_size = dir.path().join("nosize.swf");
    std::fs::write(&no_size, "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n").unwrap();
    let out = dir.path().join("prices.csv");
    let (swf, malformed, no_size, out_s) = (
        swf.to_str().unwrap(),
        malformed.to_str().unwrap(),
        no_size.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let missing = dir.path().join("missing.swf");
    let missing = missing.to_str().unwrap();
    let good = ["--procs", "2", "--duration", "1h"];
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["--trace", swf, "--procs", "5", "--duration", "1h"],
            &["--procs 5: the site has only 4 processors", "site.swf"],
        ),
        (
            vec!["--trace", swf, "--procs", "0", "--duration", "1h"],
            &["--procs must be at least 1"],
        ),
        (
            vec!["--trace", swf, "--procs", "1", "--duration", "0"],
            &["--duration must be positive (got 0 s)"],
        ),
        (
            vec!["--trace", swf, "--procs", "1", "--duration", "-60"],
            &["--duration must be positive (got -60 s)"],
        ),
        (
            with(&good, &["--trace", swf, "--start", "1000"]),
            &["--start 1000 s is in the past", "--at 3600 s"],
        ),
        (
            with(&good, &["--trace", swf, "--window", "30m..3h"]),
            &["--window 1800..10800 starts in the past", "--at 3600 s"],
        ),
        (
            with(&good, &["--trace", swf, "--window", "3h..2h"]),
            &["--window 10800..7200: the window starts after it ends"],
        ),
        (
            with(&good, &["--trace", swf, "--window", "3h"]),
            &["--window", "a window is A..B"],
        ),
        (
            with(
                &good,
                &["--trace", swf, "--start", "2h", "--window", "2h..3h"],
            ),
            &["--window", "cannot be used with", "--start"],
        ),
        (
            with(&good, &["--trace", swf, "--policy", "fcfs"]),
            &["--policy", "fcfs", "conservative, easy"],
        ),
        (
            with(&good, &["--trace", swf, "--alpha", "1.5"]),
            &["--alpha must be in [0, 1]"],
        ),
        (
            vec!["--trace", swf, "--procs", "1", "--duration", "2x"],
            &["--duration", "unknown unit"],
        ),
        (
            with(&good, &["--trace", missing]),
            &["missing.swf: no such file"],
        ),
        (with(&good, &["--trace", malformed]), &["malformed.swf:3:"]),
        (
            with(&good, &["--trace", no_size]),
            &["no MaxProcs in the header: give --site-procs"],
        ),
        (
            with(&good, &["--trace", no_size, "--site-procs", "0"]),
            &["--site-procs must be positive"],
        ),
    ];
    let before = entries(dir.path());
    for (args, wants) in cases {
        let mut all = vec!["price", "--at", "1h", "--out", out_s];
        all.extend(&args);
        let o = gridsched(&all);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded:\n{err}");
        assert!(!err.contains("panicked"), "{err}");
        for w in wants {
            assert!(err.contains(w), "{args:?}: missing `{w}` in\n{err}");
        }
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
        assert!(!out.exists(), "{args:?} wrote {out_s}");
        assert_eq!(entries(dir.path()), before, "{args:?} left files behind");
    }
}

#[test]
fn the_table_goes_to_standard_output_or_to_a_file_and_runs_are_identical() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    let args = ["--procs", "2", "--duration", "1h", "--policy", "easy"];
    let plain = price_ok(&swf, &args);
    assert!(text(&plain.stdout).starts_with(HEADER));
    assert!(!text(&plain.stderr).contains("wrote"));
    // Determinism: byte-identical twice, and `--out -` is the default.
    let again = price_ok(&swf, &with(&args, &["--out", "-"]));
    assert_eq!(plain.stdout, again.stdout);
    assert_eq!(plain.stderr, again.stderr);
    // To a file: the same bytes, nothing on standard output.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let file = dir.path().join("sub").join("prices.csv");
    let o = price_ok(&swf, &with(&args, &["--out", file.to_str().unwrap()]));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    assert_eq!(std::fs::read(&file).unwrap(), plain.stdout);
    let err = text(&o.stderr);
    assert!(
        err.contains("price of 2 processors x 3600 s on") && err.contains("wrote"),
        "{err}"
    );
    assert!(!dir.path().join("-").exists(), "no file named `-`");
    // A reader that goes away before the table is written: the command still ends quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args(["price", "--trace", swf.to_str().unwrap(), "--at", "1h"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
}

#[test]
fn asking_after_the_last_submission_warns_and_estimates_can_be_requested() {
    let dir = tempfile::tempdir().unwrap();
    let swf = site(dir.path());
    // The last submission is at 1 h: at 2 h the site is draining (warning); at 1 h it is not.
    let o = gridsched(&[
        "price",
        "--trace",
        swf.to_str().unwrap(),
        "--at",
        "2h",
        "--procs",
        "1",
        "--duration",
        "1h",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("warning: --at 2.0 h is after the last submission of")
            && err.contains("site.swf"),
        "{err}"
    );
    // The requested times of this log are its run times: the same prices.
    let args = ["--procs", "2", "--duration", "1h", "--policy", "easy"];
    let actual = price_ok(&swf, &args);
    let requested = price_ok(&swf, &with(&args, &["--estimates", "requested"]));
    assert_eq!(actual.stdout, requested.stdout);
}

// ---------------------------------------------------------------------------------------------
// the shipped CTC log

/// The data directory holding the shipped logs, or `None` with a NOTICE (a failure when
/// `GRIDSCHED_REQUIRE_DATA=1`).
fn data() -> Option<PathBuf> {
    gridsched_sim::data::data_file_or_skip("traces")?;
    Some(gridsched_workload::swf::data_dir(None))
}

/// A row of the table: start, offset, price, delayed jobs, chosen.
type Row = (i64, i64, f64, u32, bool);

fn parse(o: &Output) -> Vec<Row> {
    rows(o)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 5, "{l}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_ctc_log_answers_every_query_form_consistently() {
    let Some(data) = data() else { return };
    let at = 5 * 86_400;
    let run = |extra: &[&str]| {
        let mut all = vec![
            "price",
            "--trace",
            "CTC",
            "--data-dir",
            data.to_str().unwrap(),
            "--jobs",
            "3000",
            "--at",
            "5d",
            "--procs",
            "64",
            "--duration",
            "2h",
        ];
        all.extend_from_slice(extra);
        let o = gridsched(&all);
        assert!(o.status.success(), "{extra:?}: {}", text(&o.stderr));
        assert!(!text(&o.stderr).contains("warning"), "{}", text(&o.stderr));
        o
    };
    for policy in ["conservative", "easy"] {
        let o0 = run(&["--policy", policy]);
        let all = parse(&o0);
        assert!(all.len() >= 4, "{policy}: {}", text(&o0.stdout));
        let err = text(&o0.stderr);
        assert!(
            err.contains("(338 processors; at t = 432000 s:")
                && err.contains(&format!("{} candidates;", all.len())),
            "{err}"
        );
        // Starts in time order from --at, offsets from --at, prices finite and non-negative,
        // and the site idle at the last one.
        for w in all.windows(2) {
            assert!(w[0].0 < w[1].0, "{policy}: unsorted {w:?}");
        }
        for r in &all {
            assert!(
                r.0 >= at && r.1 == r.0 - at && r.2 >= 0.0,
                "{policy}: {r:?}"
            );
            assert_eq!(r.2 == 0.0, r.3 == 0, "{policy}: {r:?}");
        }
        assert_eq!(all.last().unwrap().2, 0.0, "{policy}");
        // α = 0: the first candidate; α = 1: the earliest of the cheapest (a free one).
        assert_eq!(
            all.iter().map(|r| r.4).collect::<Vec<_>>(),
            (0..all.len()).map(|i| i == 0).collect::<Vec<_>>()
        );
        let free = all.iter().position(|r| r.2 == 0.0).unwrap();
        let o1 = run(&["--policy", policy, "--alpha", "1"]);
        let cheapest = parse(&o1);
        assert_eq!(cheapest.iter().filter(|r| r.4).count(), 1);
        assert!(cheapest[free].4, "{policy}: {}", text(&o1.stdout));
        // Query (17) at a candidate is its row of (18).
        let mid = &all[all.len() / 2];
        let fixed = parse(&run(&["--policy", policy, "--start", &mid.0.to_string()]));
        assert_eq!(fixed, vec![(mid.0, mid.1, mid.2, mid.3, true)], "{policy}");
        // Query (19) over the middle of the answer: the same rows after the window's start
        // (which is a row of its own when feasible), none after its end.
        let (a, b) = (all[1].0 + 1, mid.0);
        let window = parse(&run(&[
            "--policy",
            policy,
            "--window",
            &format!("{a}..{b}"),
        ]));
        let inner: Vec<(i64, f64)> = all
            .iter()
            .filter(|r| r.0 > a && r.0 <= b)
            .map(|r| (r.0, r.2))
            .collect();
        let got: Vec<(i64, f64)> = window
            .iter()
            .filter(|r| r.0 > a)
            .map(|r| (r.0, r.2))
            .collect();
        assert_eq!(got, inner, "{policy}");
        assert!(window.iter().all(|r| r.0 >= a && r.0 <= b), "{policy}");
        // Deterministic.
        assert_eq!(run(&["--policy", policy]).stdout, o0.stdout);
    }
}
