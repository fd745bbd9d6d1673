//! End-to-end tests of `gridsched slots` and `gridsched provision`, run as a user runs them.
//!
//! The shipped logs and workflows are read from the data directory (`../shared/data/`, or
//! `$GRIDSCHED_DATA`); without it those tests print a NOTICE and pass, unless
//! `GRIDSCHED_REQUIRE_DATA=1`. Every bad-input and output-destination test uses small inputs
//! written here into a temporary directory and always runs.
//!
//! What the schedules are checked against is computed here, independently of the readers and
//! schedulers: a line scan of the DAX text, a `serde_json::Value` walk of the WfCommons JSON,
//! and a sweep over the rows of the CSVs.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{gridsched, text};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The data directory holding the shipped logs and workflows, or `None` with a NOTICE (a
/// failure when `GRIDSCHED_REQUIRE_DATA=1`).
fn data() -> Option<PathBuf> {
    gridsched_sim::data::data_file_or_skip("traces")?;
    gridsched_sim::data::data_file_or_skip("workflows")?;
    Some(gridsched_workload::swf::data_dir(None))
}

/// Processors of the shipped logs (their `MaxProcs`, see the data README).
const CTC_PROCS: u32 = 338;
const SDSC_PROCS: u32 = 128;

/// `20d` in seconds: a moment when both CTC and SDSC have queues (constrained holes).
const AT_20D: i64 = 20 * 86_400;

/// A CSV read with the `csv` crate: header and rows, cells by column name.
#[derive(Debug)]
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn parse(bytes: &[u8]) -> Table {
        let mut r = csv::Reader::from_reader(bytes);
        let header = r.headers().unwrap().iter().map(str::to_string).collect();
        let rows = r
            .records()
            .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
            .collect();
        Table { header, rows }
    }

    fn read(p: &Path) -> Table {
        Table::parse(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
    }

    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    fn get<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        &row[self.col(name)]
    }

    fn int(&self, row: &[String], name: &str) -> i64 {
        let v = self.get(row, name);
        v.parse()
            .unwrap_or_else(|_| panic!("{name} = `{v}` is not an integer"))
    }

    fn float(&self, row: &[String], name: &str) -> f64 {
        let v = self.get(row, name);
        v.parse()
            .unwrap_or_else(|_| panic!("{name} = `{v}` is not a number"))
    }

    fn flag(&self, row: &[String], name: &str) -> bool {
        match self.get(row, name) {
            "true" => true,
            "false" => false,
            v => panic!("{name} = `{v}` is not a boolean"),
        }
    }
}

const SLOTS_HEADER: &str = "start_s,start_h,duration_s,procs,divisible,extensible,cost_su";
const SCHEDULE_HEADER: &str = "task,name,procs,runtime_s,plan_site,plan_start_s,plan_end_s,\
be_site,be_submit_s,be_start_s,be_end_s";
const BOUGHT_HEADER: &str = "site,start_s,end_s,procs,divisible,extensible,selected,charged_su";

/// The most processors that any set of `(start, end, procs)` intervals holds at one instant.
fn peak(intervals: &[(i64, i64, u32)]) -> u32 {
    intervals
        .iter()
        .map(|&(t, _, _)| {
            intervals
                .iter()
                .filter(|&&(a, b, _)| a <= t && t < b)
                .map(|&(_, _, p)| p)
                .sum()
        })
        .max()
        .unwrap_or(0)
}

/// Checks one `slots` CSV of a site of `procs` processors asked at `at`: the header, a row per
/// slot, processors within the site, starts at or after `at`, the derived columns, holes that
/// never hold more processors than the site has at any instant, and every extensible slot
/// running to one horizon at least `horizon_h` after `at`. Returns the rows as
/// `(start, duration, procs, extensible)`.
fn check_slots(csv: &[u8], procs: u32, at: i64, horizon_h: i64) -> Vec<(i64, i64, u32, bool)> {
    let raw = text(csv);
    assert_eq!(raw.lines().next(), Some(SLOTS_HEADER), "{raw}");
    let t = Table::parse(csv);
    assert!(!t.rows.is_empty(), "no slots:\n{raw}");
    let mut out = Vec::new();
    for r in &t.rows {
        let (start, dur, p) = (
            t.int(r, "start_s"),
            t.int(r, "duration_s"),
            t.int(r, "procs"),
        );
        let p = u32::try_from(p).unwrap();
        assert!(
            p >= 1 && p <= procs,
            "{p} processors on a site of {procs}: {r:?}"
        );
        assert!(
            start >= at,
            "slot starts at {start}, before t = {at}: {r:?}"
        );
        assert!(dur > 0, "{r:?}");
        let start_h = (start - at) as f64 / 3600.0;
        assert!((t.float(r, "start_h") - start_h).abs() < 1e-4, "{r:?}");
        let su = f64::from(p) * dur as f64 / 3600.0;
        assert!((t.float(r, "cost_su") - su).abs() < 1e-3, "{r:?}");
        let ext = t.flag(r, "extensible");
        out.push((start, dur, p, ext));
    }
    let intervals: Vec<_> = out.iter().map(|&(s, d, p, _)| (s, s + d, p)).collect();
    assert!(
        peak(&intervals) <= procs,
        "the slots hold {} processors at once on a site of {procs}:\n{raw}",
        peak(&intervals)
    );
    let horizons: BTreeSet<i64> = out
        .iter()
        .filter(|x| x.3)
        .map(|&(s, d, _, _)| s + d)
        .collect();
    assert_eq!(horizons.len(), 1, "extensible slots end at {horizons:?}");
    let horizon = *horizons.first().unwrap();
    assert!(horizon >= at + horizon_h * 3600, "horizon {horizon}");
    assert!(
        out.iter().all(|&(s, d, _, _)| s + d <= horizon),
        "a slot outlasts the horizon {horizon}:\n{raw}"
    );
    out
}

/// Runs `gridsched slots` and returns its output; fails the test if it fails.
fn slots_ok(args: &[&str]) -> Output {
    let mut all = vec!["slots"];
    all.extend_from_slice(args);
    let o = gridsched(&all);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"));
    o
}

// ---------------------------------------------------------------------------------------------
// slots on a hand-checked snippet (no data needed)

/// 4 processors. Job 1 (2 procs, 100 s) runs from 0; job 2 (4 procs, 50 s, requested 80)
/// waits for it until 100; job 3 (1 proc, 30 s, requested 60) backfills at its arrival 5. At
/// t = 10 the conservative schedule leaves one processor free over [10, 100) and one over
/// [35, 100) — [65, 100) when planned with requested times — and all 4 from job 2's end (150,
/// or 180 with requested times) to the horizon 10 + 1 h.
const TINY: &str = "; Version: 2.2\n; Computer: test rig\n; MaxProcs: 4\n;\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 0 0 50 4 -1 -1 4 80 -1 1 1 1 -1 1 -1 -1 -1\n\
3 5 0 30 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n";

fn tiny(dir: &Path) -> PathBuf {
    let p = dir.join("tiny.swf");
    std::fs::write(&p, TINY).unwrap();
    p
}

/// `--at` outside the log's submissions is legal but rarely meant: a warning on standard
/// error says which side (a log's clock need not start at 0).
#[test]
fn slots_warn_when_at_lies_outside_the_logs_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let late = dir.path().join("late.swf");
    std::fs::write(
        &late,
        TINY.replace("\n1 0 0", "\n1 1000000 0")
            .replace("\n2 0 0", "\n2 1000000 0")
            .replace("\n3 5 0", "\n3 1000005 0"),
    )
    .unwrap();
    let before = slots_ok(&[
        "--trace",
        late.to_str().unwrap(),
        "--at",
        "10",
        "--out",
        "-",
    ]);
    assert!(
        text(&before.stderr).contains("is before the first submission"),
        "{}",
        text(&before.stderr)
    );
    let after = slots_ok(&[
        "--trace",
        late.to_str().unwrap(),
        "--at",
        "2000000",
        "--out",
        "-",
    ]);
    assert!(text(&after.stderr).contains("is after the last submission"));
    let inside = slots_ok(&[
        "--trace",
        late.to_str().unwrap(),
        "--at",
        "1000002",
        "--out",
        "-",
    ]);
    assert!(
        !text(&inside.stderr).contains("warning"),
        "{}",
        text(&inside.stderr)
    );
}

/// A zero processor count in `--sites NAME:PROCS` is named as such (it used to be reported as
/// `--procs`).
#[test]
fn a_site_of_zero_processors_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let swf = tiny(dir.path());
    let site = format!("{}:0", swf.display());
    let o = gridsched(&[
        "provision",
        "--workflow",
        "synthetic",
        "--sites",
        &site,
        "--at",
        "10",
        "--out",
        "-",
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("--sites") && err.contains("PROCS must be positive"),
        "{err}"
    );
}

#[test]
fn slots_of_a_small_log_are_the_holes_of_its_conservative_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let swf = tiny(dir.path());
    for (estimates, want) in [
        (
            "actual",
            "10,0.0000,90,1,false,false,0.0250\n\
             35,0.0069,65,1,false,false,0.0181\n\
             150,0.0389,3460,4,true,true,3.8444\n",
        ),
        (
            "requested",
            "10,0.0000,90,1,false,false,0.0250\n\
             65,0.0153,35,1,false,false,0.0097\n\
             180,0.0472,3430,4,true,true,3.8111\n",
        ),
    ] {
        let out = dir.path().join(format!("{estimates}.csv"));
        let o = slots_ok(&[
            "--trace",
            s(&swf),
            "--at",
            "10s",
            "--horizon-h",
            "1",
            "--estimates",
            estimates,
            "--out",
            s(&out),
        ]);
        let csv = std::fs::read(&out).unwrap();
        assert_eq!(text(&csv), format!("{SLOTS_HEADER}\n{want}"), "{estimates}");
        check_slots(&csv, 4, 10, 1);
        let stdout = text(&o.stdout);
        let word = if estimates == "actual" {
            "exact"
        } else {
            "requested"
        };
        for line in [
            format!("on 4 processors at t = 10 s (0.00 h), {word} estimates"),
            "tasks in system  3".to_string(),
            "slots            3 (2 constrained holes, 1 edge slots)".to_string(),
        ] {
            assert!(stdout.contains(&line), "missing `{line}` in\n{stdout}");
        }
    }
}

#[test]
fn slots_warn_when_asked_after_the_log_ends_and_not_before() {
    let dir = tempfile::tempdir().unwrap();
    let swf = tiny(dir.path());
    let out = dir.path().join("late.csv");
    // The last submission is at 5 s: 10 s is after it, 4 s is not.
    let late = slots_ok(&["--trace", s(&swf), "--at", "10s", "--out", s(&out)]);
    let err = text(&late.stderr);
    assert!(
        err.contains("warning: --at 0.0 h is after the last submission of")
            && err.contains("tiny.swf"),
        "{err}"
    );
    let early = slots_ok(&["--trace", s(&swf), "--at", "4s", "--out", s(&out)]);
    assert!(
        !text(&early.stderr).contains("warning"),
        "{}",
        text(&early.stderr)
    );
}

// ---------------------------------------------------------------------------------------------
// slots on the shipped logs

#[test]
fn slots_of_the_ctc_log_at_2d12h_are_the_one_running_job() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Of the 3 CTC jobs submitted before 2d12h = 216000 s, only job 3 (submitted at 197154, 306
    // processors, run 35268 s, requested 35100 s) is still running then: 338 - 306 = 32
    // processors are free until the horizon, and all 306 of job 3 from its end — 232422 with
    // exact run times, 232254 when the site plans with the requested time.
    for (estimates, end) in [("actual", 232_422), ("requested", 232_254)] {
        let out = dir.path().join(format!("ctc-{estimates}.csv"));
        let o = slots_ok(&[
            "--trace",
            "CTC",
            "--data-dir",
            s(&data),
            "--at",
            "2d12h",
            "--estimates",
            estimates,
            "--out",
            s(&out),
        ]);
        let csv = std::fs::read(&out).unwrap();
        let rows = check_slots(&csv, CTC_PROCS, 216_000, 48);
        assert_eq!(
            rows,
            vec![
                (216_000, 172_800, 32, true),
                (end, 216_000 + 172_800 - end, 306, true)
            ],
            "{estimates}:\n{}",
            text(&csv)
        );
        let stdout = text(&o.stdout);
        assert!(
            stdout.contains("on 338 processors at t = 216000 s (60.00 h)"),
            "{stdout}"
        );
        assert!(stdout.contains("tasks in system  1\n"), "{stdout}");
    }
}

#[test]
fn slots_of_the_ctc_and_sdsc_logs_fit_the_site_and_follow_the_estimates() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (trace, procs) in [("CTC", CTC_PROCS), ("SDSC", SDSC_PROCS)] {
        let mut by_estimates = Vec::new();
        for (at, at_s) in [("2d12h", 216_000), ("20d", AT_20D)] {
            for estimates in ["actual", "requested"] {
                let out = dir.path().join(format!("{trace}-{at}-{estimates}.csv"));
                let o = slots_ok(&[
                    "--trace",
                    trace,
                    "--data-dir",
                    s(&data),
                    "--at",
                    at,
                    "--estimates",
                    estimates,
                    "--out",
                    s(&out),
                ]);
                let csv = std::fs::read(&out).unwrap();
                let rows = check_slots(&csv, procs, at_s, 48);
                // The summary counts the rows of the CSV.
                let holes = rows.iter().filter(|r| !r.3).count();
                let line = format!(
                    "slots            {} ({holes} constrained holes, {} edge slots)",
                    rows.len(),
                    rows.len() - holes
                );
                let stdout = text(&o.stdout);
                assert!(stdout.contains(&line), "missing `{line}` in\n{stdout}");
                assert!(
                    stdout.contains(&format!("on {procs} processors at t = {at_s} s")),
                    "{stdout}"
                );
                if at == "20d" {
                    // Twenty days in, both logs have queues: the schedule has holes.
                    assert!(holes > 0, "{trace} at {at}: no constrained hole");
                    by_estimates.push(csv);
                }
            }
        }
        assert_ne!(
            by_estimates[0], by_estimates[1],
            "{trace}: --estimates requested changed nothing"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// where slots writes

/// A site to write slots of: the shipped SDSC log, or the snippet without the data.
fn slots_site(dir: &Path) -> Vec<String> {
    match data() {
        Some(data) => ["--trace", "SDSC", "--data-dir", s(&data), "--at", "20d"]
            .map(String::from)
            .to_vec(),
        None => ["--trace", s(&tiny(dir)), "--at", "10"]
            .map(String::from)
            .to_vec(),
    }
}

fn slots_to(site: &[String], out: &Path) -> Output {
    let mut args: Vec<&str> = vec!["slots"];
    args.extend(site.iter().map(String::as_str));
    args.extend(["--out", s(out)]);
    gridsched(&args)
}

#[test]
fn slots_out_dash_is_standard_output_and_the_summary_moves_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let site = slots_site(dir.path());
    let file = dir.path().join("slots.csv");
    let to_file = slots_to(&site, &file);
    assert!(to_file.status.success(), "{}", text(&to_file.stderr));
    assert!(text(&to_file.stdout).contains("tasks in system"));
    let to_stdout = slots_to(&site, Path::new("-"));
    assert!(to_stdout.status.success(), "{}", text(&to_stdout.stderr));
    assert!(text(&to_stdout.stdout).starts_with(SLOTS_HEADER));
    assert_eq!(
        to_stdout.stdout,
        std::fs::read(&file).unwrap(),
        "standard output carries exactly the CSV"
    );
    let err = text(&to_stdout.stderr);
    assert!(
        err.contains("tasks in system") && err.contains("wrote standard output"),
        "{err}"
    );
    assert!(!dir.path().join("-").exists(), "no file named `-`");
}

#[cfg(unix)]
#[test]
fn slots_write_through_a_symlinked_directory_and_to_dev_null() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let site = slots_site(dir.path());
    let plain = dir.path().join("plain.csv");
    let o = slots_to(&site, &plain);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = slots_to(&site, &link.join("slots.csv"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the directory link stays a link"
    );
    assert_eq!(
        std::fs::read(real.join("slots.csv")).unwrap(),
        std::fs::read(&plain).unwrap(),
        "the file lands in the linked directory"
    );
    let left: Vec<_> = std::fs::read_dir(&real)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["slots.csv"], "no temporary file left behind");
    if std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .is_ok()
    {
        let o = slots_to(&site, Path::new("/dev/null"));
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains("wrote /dev/null"));
        let m = std::fs::symlink_metadata("/dev/null").unwrap();
        assert!(
            m.file_type().is_char_device(),
            "/dev/null must stay a device"
        );
    } else {
        eprintln!("NOTICE: /dev/null is not writable here; skipping that case");
    }
}

/// Names of the entries of `dir`.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// A command that must fail: non-zero exit, no panic, every `wants` in its error message,
/// and no file created in `dir` (neither `out` nor a temporary file).
fn must_fail(o: &Output, dir: &Path, before: &BTreeSet<String>, out: &Path, wants: &[&str]) {
    let err = text(&o.stderr);
    assert!(!o.status.success(), "succeeded; stderr:\n{err}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in wants {
        assert!(err.contains(w), "missing `{w}` in\n{err}");
    }
    assert!(!out.exists(), "{} was created", out.display());
    assert_eq!(&entries(dir), before, "files appeared in {}", dir.display());
}

#[test]
fn slots_into_a_parent_that_cannot_exist_fail_and_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let site = slots_site(dir.path());
    // A parent "directory" that is a regular file: it cannot be created nor written into,
    // whoever runs the test.
    let file = dir.path().join("afile");
    std::fs::write(&file, "not a directory").unwrap();
    let before = entries(dir.path());
    for out in [file.join("slots.csv"), file.join("sub").join("slots.csv")] {
        let o = slots_to(&site, &out);
        must_fail(&o, dir.path(), &before, &out, &[s(&out), "Not a directory"]);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
        assert!(o.stdout.is_empty(), "no summary for a failed run");
    }
}

#[test]
fn slots_into_a_missing_parent_are_refused_and_create_nothing() {
    // The one output writer of the CLI (gridsched_repro::output::write_atomic) creates no
    // directory (issue 35: a mistyped --out, as root, made a new top-level directory); the
    // harness creates its own result folders itself.
    let dir = tempfile::tempdir().unwrap();
    let site = slots_site(dir.path());
    let out = dir.path().join("new").join("deeper").join("slots.csv");
    let o = slots_to(&site, &out);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("outputs do not create directories"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.path().join("new").exists());
}

#[cfg(unix)]
#[test]
fn slots_into_a_read_only_directory_fail_and_name_the_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let site = slots_site(dir.path());
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = ro.join("slots.csv");
    // Root (and CAP_DAC_OVERRIDE) writes into 0555 directories; /proc takes no new file from
    // anyone, so it stands in for them there (Linux).
    let probe = ro.join("probe");
    if std::fs::write(&probe, "x").is_ok() {
        std::fs::remove_file(&probe).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
        let proc_out = Path::new("/proc/gridsched-slots-test.csv");
        if !cfg!(target_os = "linux") || !Path::new("/proc/self").is_dir() {
            eprintln!("NOTICE: a 0555 directory is writable here (root?) and no /proc; skipping");
            return;
        }
        let o = slots_to(&site, proc_out);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(s(proc_out)), "{err}");
        assert!(!proc_out.exists());
        assert!(o.stdout.is_empty(), "no summary for a failed run");
        return;
    }
    let o = slots_to(&site, &out);
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    must_fail(
        &o,
        &ro,
        &BTreeSet::new(),
        &out,
        &[s(&out), "ermission denied"],
    );
    assert!(o.stdout.is_empty(), "no summary for a failed run");
}

// ---------------------------------------------------------------------------------------------
// the workflows, read independently of the library

/// A workflow as this test reads it: task ids in file order, their names, run times (s) and
/// processors, and the dependencies (declared, plus producer → consumer of a file).
#[derive(Debug, Default)]
struct Flow {
    ids: Vec<String>,
    name: HashMap<String, String>,
    runtime: HashMap<String, f64>,
    procs: HashMap<String, u32>,
    edges: BTreeSet<(String, String)>,
}

impl Flow {
    fn file_edges(
        &mut self,
        producers: &HashMap<String, Vec<String>>,
        consumers: &HashMap<String, Vec<String>>,
    ) {
        for (file, made_by) in producers {
            for p in made_by {
                for c in consumers.get(file).into_iter().flatten() {
                    if p != c {
                        self.edges.insert((p.clone(), c.clone()));
                    }
                }
            }
        }
    }
}

/// The value of ` key="..."` on a line (the generator writes one element per line).
fn attr<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!(" {key}=\"");
    let start = line.find(&pat)? + pat.len();
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

/// A line scan of a generator-written DAX.
fn scan_dax(path: &Path) -> Flow {
    let mut f = Flow::default();
    let (mut producers, mut consumers) = (HashMap::new(), HashMap::new());
    let (mut job, mut child) = (String::new(), String::new());
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let l = line.trim_start();
        if l.starts_with("<job ") {
            job = attr(l, "id").unwrap().to_string();
            f.ids.push(job.clone());
            f.name
                .insert(job.clone(), attr(l, "name").unwrap().to_string());
            f.runtime
                .insert(job.clone(), attr(l, "runtime").unwrap().parse().unwrap());
            f.procs.insert(job.clone(), 1);
        } else if l.starts_with("<uses ") {
            let file = attr(l, "file").unwrap().to_string();
            let side = match attr(l, "link").unwrap() {
                "input" => &mut consumers,
                "output" => &mut producers,
                other => panic!("link {other}"),
            };
            side.entry(file).or_insert_with(Vec::new).push(job.clone());
        } else if l.starts_with("<child ") {
            child = attr(l, "ref").unwrap().to_string();
        } else if l.starts_with("<parent ") {
            f.edges
                .insert((attr(l, "ref").unwrap().to_string(), child.clone()));
        }
    }
    f.file_edges(&producers, &consumers);
    f
}

/// A `serde_json::Value` walk of a WfCommons 1.5 instance.
fn scan_wfcommons(path: &Path) -> Flow {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut f = Flow::default();
    let (mut producers, mut consumers) = (HashMap::new(), HashMap::new());
    let strings = |t: &serde_json::Value, key: &str| -> Vec<String> {
        t[key]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    for t in v["workflow"]["specification"]["tasks"].as_array().unwrap() {
        let id = t["id"].as_str().unwrap().to_string();
        f.ids.push(id.clone());
        for p in strings(t, "parents") {
            f.edges.insert((p, id.clone()));
        }
        for c in strings(t, "children") {
            f.edges.insert((id.clone(), c));
        }
        for file in strings(t, "inputFiles") {
            consumers
                .entry(file)
                .or_insert_with(Vec::new)
                .push(id.clone());
        }
        for file in strings(t, "outputFiles") {
            producers
                .entry(file)
                .or_insert_with(Vec::new)
                .push(id.clone());
        }
    }
    for t in v["workflow"]["execution"]["tasks"].as_array().unwrap() {
        let id = t["id"].as_str().unwrap().to_string();
        f.runtime
            .insert(id.clone(), t["runtimeInSeconds"].as_f64().unwrap());
        f.procs.insert(
            id.clone(),
            t["coreCount"]
                .as_u64()
                .map_or(1, |c| u32::try_from(c).unwrap()),
        );
        f.name
            .insert(id, t["command"]["program"].as_str().unwrap().to_string());
    }
    f.file_edges(&producers, &consumers);
    f
}

// ---------------------------------------------------------------------------------------------
// provision

/// The numbers `provision` prints: advertised slots, the Pareto set `(AC SU, makespan h)`, the
/// chosen plan `(makespan h, AC SU, slots bought)` and best effort `(makespan h, AC SU)`.
#[derive(Debug)]
struct Summary {
    advertised: usize,
    pareto: Vec<(f64, f64)>,
    plan: (f64, f64, usize),
    best_effort: (f64, f64),
}

fn summary(out: &str) -> Summary {
    let num = |w: &str| -> f64 {
        w.trim_end_matches(',')
            .parse()
            .unwrap_or_else(|_| panic!("`{w}` in\n{out}"))
    };
    let mut advertised = None;
    let mut pareto = Vec::new();
    let mut plan = None;
    let mut best_effort = None;
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["advertised", "slots", n] => advertised = Some(n.parse().unwrap()),
            ["AC", ac, "SU", "makespan", mk, "h"] => pareto.push((num(ac), num(mk))),
            [
                "plan",
                _,
                _,
                "makespan",
                mk,
                "h,",
                "allocation",
                "cost",
                ac,
                "SU,",
                n,
                "slots",
                "bought",
            ] => {
                plan = Some((num(mk), num(ac), n.parse().unwrap()));
            }
            [
                "best",
                "effort",
                "makespan",
                mk,
                "h,",
                "allocation",
                "cost",
                ac,
                "SU",
            ] => {
                best_effort = Some((num(mk), num(ac)));
            }
            _ => {}
        }
    }
    Summary {
        advertised: advertised.unwrap_or_else(|| panic!("no advertised slots in\n{out}")),
        pareto,
        plan: plan.unwrap_or_else(|| panic!("no plan line in\n{out}")),
        best_effort: best_effort.unwrap_or_else(|| panic!("no best-effort line in\n{out}")),
    }
}

/// Runs `gridsched provision` on `workflow` and `site_args`, submitted at 20d, with `extra`
/// arguments; returns the output, the schedule and the slots CSV paths.
fn provision(
    dir: &Path,
    tag: &str,
    workflow: &Path,
    site_args: &[&str],
    extra: &[&str],
) -> (Output, PathBuf, PathBuf) {
    let out = dir.join(format!("{tag}.csv"));
    let bought = dir.join(format!("{tag}-slots.csv"));
    let mut args = vec!["provision", "--workflow", s(workflow), "--at", "20d"];
    args.extend_from_slice(site_args);
    args.extend_from_slice(extra);
    args.extend(["--out", s(&out), "--slots-out", s(&bought)]);
    let o = gridsched(&args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"));
    (o, out, bought)
}

/// Checks a provisioned schedule against the workflow `flow`, on sites named `sites` with
/// their processors, submitted at `at`: one row per task of the file, the file's run times
/// (rounded up to whole seconds), names and processors, each task starting at or after each
/// parent's end (plan and best effort), the plan inside the slots it bought, and the printed
/// makespans matching the rows.
fn check_schedule(
    flow: &Flow,
    sites: &[(&str, u32)],
    at: i64,
    o: &Output,
    out: &Path,
    bought: &Path,
) {
    let stdout = text(&o.stdout);
    let sum = summary(&stdout);
    let raw = std::fs::read_to_string(out).unwrap();
    assert_eq!(raw.lines().next(), Some(SCHEDULE_HEADER));
    let t = Table::read(out);
    // One row per task of the file, in file order, each once.
    let ids: Vec<&str> = t.rows.iter().map(|r| t.get(r, "task")).collect();
    assert_eq!(ids, flow.ids, "the rows are not the file's tasks");
    assert!(
        stdout.contains(&format!(
            "({} tasks) submitted at t = {at} s",
            flow.ids.len()
        )),
        "{stdout}"
    );
    let site_names: Vec<&str> = sites.iter().map(|x| x.0).collect();
    let mut row: HashMap<&str, &Vec<String>> = HashMap::new();
    let mut plan_runs: HashMap<&str, Vec<(i64, i64, u32)>> = HashMap::new();
    for r in &t.rows {
        let id = t.get(r, "task");
        row.insert(id, r);
        assert_eq!(t.get(r, "name"), flow.name[id], "{r:?}");
        let procs = flow.procs[id];
        assert_eq!(t.int(r, "procs"), i64::from(procs), "{r:?}");
        let d = flow.runtime[id].ceil() as i64;
        assert_eq!(t.int(r, "runtime_s"), d, "{r:?}");
        let (ps, pe) = (t.int(r, "plan_start_s"), t.int(r, "plan_end_s"));
        assert!(ps >= at, "planned before submission: {r:?}");
        assert_eq!(pe - ps, d, "{r:?}");
        let plan_site = t.get(r, "plan_site");
        assert!(site_names.contains(&plan_site), "{r:?}");
        plan_runs
            .entry(plan_site)
            .or_default()
            .push((ps, pe, procs));
        let (bsub, bs, be) = (
            t.int(r, "be_submit_s"),
            t.int(r, "be_start_s"),
            t.int(r, "be_end_s"),
        );
        assert!(at <= bsub && bsub <= bs, "{r:?}");
        assert_eq!(be - bs, d, "{r:?}");
        if d > 0 {
            assert!(site_names.contains(&t.get(r, "be_site")), "{r:?}");
        }
    }
    // Precedence: every dependency of the file, planned and best effort.
    assert!(!flow.edges.is_empty());
    for (p, c) in &flow.edges {
        let (pr, cr) = (row[p.as_str()], row[c.as_str()]);
        for (start, end) in [("plan_start_s", "plan_end_s"), ("be_start_s", "be_end_s")] {
            assert!(
                t.int(cr, start) >= t.int(pr, end),
                "{c} starts ({start}) at {} before its parent {p} ends at {}",
                t.int(cr, start),
                t.int(pr, end)
            );
        }
    }
    // The printed makespans (hours, 2 decimals) are those of the rows, from submission.
    let last = |col: &str| t.rows.iter().map(|r| t.int(r, col)).max().unwrap();
    let mk = (last("plan_end_s") - at) as f64 / 3600.0;
    assert!((sum.plan.0 - mk).abs() <= 0.0051, "plan {mk} h vs {sum:?}");
    let be = (last("be_end_s") - at) as f64 / 3600.0;
    assert!(
        (sum.best_effort.0 - be).abs() <= 0.0051,
        "BE {be} h vs {sum:?}"
    );
    // The slots: one row per advertised slot, each within its site; the plan never runs more
    // processors on a site than the slots it selected there hold at that instant.
    let raw = std::fs::read_to_string(bought).unwrap();
    assert_eq!(raw.lines().next(), Some(BOUGHT_HEADER));
    let b = Table::read(bought);
    assert_eq!(b.rows.len(), sum.advertised, "{sum:?}");
    let mut charged = 0;
    for (name, procs) in sites {
        let mut selected = Vec::new();
        for r in b.rows.iter().filter(|r| b.get(r, "site") == *name) {
            let p = u32::try_from(b.int(r, "procs")).unwrap();
            assert!(p >= 1 && p <= *procs, "{r:?}");
            assert!(b.int(r, "start_s") >= at, "{r:?}");
            if b.flag(r, "selected") {
                let end = match b.get(r, "end_s") {
                    "" => i64::MAX,
                    e => e.parse().unwrap(),
                };
                selected.push((b.int(r, "start_s"), end, p));
                charged += usize::from(b.float(r, "charged_su") > 0.0);
            } else {
                assert_eq!(b.float(r, "charged_su"), 0.0, "{r:?}");
            }
        }
        let runs = plan_runs.remove(name).unwrap_or_default();
        for &(t0, _, _) in &runs {
            let used: u32 = runs
                .iter()
                .filter(|&&(a, e, _)| a <= t0 && t0 < e)
                .map(|x| x.2)
                .sum();
            let held: u32 = selected
                .iter()
                .filter(|&&(a, e, _)| a <= t0 && t0 < e)
                .map(|x| x.2)
                .sum();
            assert!(
                used <= held,
                "{name} at {t0}: {used} processors in {held} bought"
            );
        }
    }
    assert_eq!(charged, sum.plan.2, "slots bought: {sum:?}");
}

/// Small shipped workflows and the site each is provisioned on.
fn shipped(data: &Path) -> Vec<(PathBuf, Flow, &'static str, u32)> {
    let dax = data.join("workflows").join("pegasus-dax");
    let wfc = data.join("workflows").join("wfcommons");
    let mut out = Vec::new();
    for (file, trace, procs) in [
        ("CyberShake_30.xml", "SDSC", SDSC_PROCS),
        ("Montage_25.xml", "CTC", CTC_PROCS),
    ] {
        let p = dax.join(file);
        out.push((p.clone(), scan_dax(&p), trace, procs));
    }
    for (file, trace, procs) in [
        ("montage-chameleon-dss-05d-001.json", "CTC", CTC_PROCS),
        ("seismology-chameleon-100p-001.json", "SDSC", SDSC_PROCS),
    ] {
        let p = wfc.join(file);
        out.push((p.clone(), scan_wfcommons(&p), trace, procs));
    }
    out
}

#[test]
fn provision_of_shipped_dax_and_wfcommons_workflows_respects_precedence() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (i, (path, flow, trace, procs)) in shipped(&data).into_iter().enumerate() {
        // What the independent scan found (the sizes the data README gives).
        assert!(flow.ids.len() >= 25 && flow.edges.len() >= flow.ids.len() - 1);
        let site = ["--trace", trace, "--data-dir", s(&data)];
        let (o, out, bought) = provision(dir.path(), &format!("w{i}"), &path, &site, &[]);
        let stdout = text(&o.stdout);
        for want in [
            format!("{} ({} tasks)", path.display(), flow.ids.len()),
            format!("on {trace}:{procs}"),
            "plan (alpha 0.50)".to_string(),
            "best effort".to_string(),
            "provisioned / BE".to_string(),
        ] {
            assert!(stdout.contains(&want), "missing `{want}` in\n{stdout}");
        }
        check_schedule(&flow, &[(trace, procs)], AT_20D, &o, &out, &bought);
    }
}

#[test]
fn provision_on_two_sites_respects_precedence() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = data.join("workflows/pegasus-dax/CyberShake_50.xml");
    let flow = scan_dax(&path);
    let site = ["--sites", "CTC,SDSC:100", "--data-dir", s(&data)];
    let (o, out, bought) = provision(dir.path(), "two", &path, &site, &[]);
    assert!(
        text(&o.stdout).contains("on CTC:338 (") && text(&o.stdout).contains(", SDSC:100 ("),
        "{}",
        text(&o.stdout)
    );
    check_schedule(
        &flow,
        &[("CTC", CTC_PROCS), ("SDSC", 100)],
        AT_20D,
        &o,
        &out,
        &bought,
    );
    // Both sites advertise slots.
    let b = Table::read(&bought);
    for name in ["CTC", "SDSC"] {
        assert!(b.rows.iter().any(|r| b.get(r, "site") == name), "{name}");
    }
}

#[test]
fn provision_is_deterministic() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = data.join("workflows/wfcommons/montage-chameleon-dss-05d-001.json");
    let site = ["--trace", "CTC", "--data-dir", s(&data)];
    let extra = ["--alpha", "0.3", "--seed", "7"];
    let (a, a_out, a_slots) = provision(dir.path(), "a", &path, &site, &extra);
    let (b, b_out, b_slots) = provision(dir.path(), "b", &path, &site, &extra);
    assert_eq!(text(&a.stdout), text(&b.stdout), "the summaries differ");
    let (a_csv, b_csv) = (
        std::fs::read(&a_out).unwrap(),
        std::fs::read(&b_out).unwrap(),
    );
    assert!(a_csv.len() > SCHEDULE_HEADER.len());
    assert!(a_csv == b_csv, "the schedules differ");
    assert!(
        std::fs::read(&a_slots).unwrap() == std::fs::read(&b_slots).unwrap(),
        "the slot files differ"
    );
}

#[test]
fn provision_alpha_0_is_the_fastest_plan_and_alpha_1_the_cheapest() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = data.join("workflows/pegasus-dax/CyberShake_30.xml");
    let flow = scan_dax(&path);
    let site = ["--trace", "SDSC", "--data-dir", s(&data)];
    let (fast, fast_out, fast_slots) = provision(dir.path(), "a0", &path, &site, &["--alpha", "0"]);
    let (cheap, cheap_out, cheap_slots) =
        provision(dir.path(), "a1", &path, &site, &["--alpha", "1"]);
    check_schedule(
        &flow,
        &[("SDSC", SDSC_PROCS)],
        AT_20D,
        &fast,
        &fast_out,
        &fast_slots,
    );
    check_schedule(
        &flow,
        &[("SDSC", SDSC_PROCS)],
        AT_20D,
        &cheap,
        &cheap_out,
        &cheap_slots,
    );
    let (f, c) = (summary(&text(&fast.stdout)), summary(&text(&cheap.stdout)));
    assert!(text(&fast.stdout).contains("plan (alpha 0.00)"));
    assert!(text(&cheap.stdout).contains("plan (alpha 1.00)"));
    // The same Pareto set, with a real trade-off on this input.
    assert_eq!(f.pareto, c.pareto);
    let min_mk = f.pareto.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let min_ac = f.pareto.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let max_mk = f.pareto.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    assert!(max_mk > min_mk, "no trade-off in {:?}", f.pareto);
    assert_eq!(f.plan.0, min_mk, "alpha 0 is not the fastest: {f:?}");
    assert_eq!(c.plan.1, min_ac, "alpha 1 is not the cheapest: {c:?}");
    assert!(f.plan.0 < c.plan.0 && c.plan.1 < f.plan.1, "{f:?} vs {c:?}");
    assert_ne!(
        std::fs::read(&fast_out).unwrap(),
        std::fs::read(&cheap_out).unwrap()
    );
}

#[test]
fn provision_out_dash_is_standard_output() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = data.join("workflows/pegasus-dax/Montage_25.xml");
    let file = dir.path().join("m.csv");
    let run = |out: &str| {
        gridsched(&[
            "provision",
            "--workflow",
            s(&path),
            "--trace",
            "SDSC",
            "--data-dir",
            s(&data),
            "--at",
            "20d",
            "--out",
            out,
        ])
    };
    let to_file = run(s(&file));
    assert!(to_file.status.success(), "{}", text(&to_file.stderr));
    let to_stdout = run("-");
    assert!(to_stdout.status.success(), "{}", text(&to_stdout.stderr));
    assert_eq!(to_stdout.stdout, std::fs::read(&file).unwrap());
    assert!(text(&to_stdout.stderr).contains("best effort"));
    assert!(!dir.path().join("-").exists());
    // Both outputs on standard output are refused before any work.
    let both = gridsched(&[
        "provision",
        "--workflow",
        s(&path),
        "--trace",
        "SDSC",
        "--data-dir",
        s(&data),
        "--at",
        "20d",
        "--out",
        "-",
        "--slots-out",
        "-",
    ]);
    assert!(!both.status.success());
    assert!(both.stdout.is_empty());
    assert!(
        text(&both.stderr).contains("--out and --slots-out"),
        "{}",
        text(&both.stderr)
    );
}

// ---------------------------------------------------------------------------------------------
// bad input: a clean error naming the file and the element, no panic, no output

/// Two small sites: 16 and 8 processors, a few jobs each.
fn small_sites(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("site16.swf");
    std::fs::write(
        &a,
        "; MaxProcs: 16\n1 0 0 600 8 -1 -1 8 600 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 10 0 300 16 -1 -1 16 300 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let b = dir.join("site8.swf");
    std::fs::write(
        &b,
        "; MaxProcs: 8\n1 0 0 400 4 -1 -1 4 400 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    (a, b)
}

/// A three-task DAX, A -> B -> C, with `C -> A` closing a cycle. Line 3 holds job A, line 13
/// the `<parent ref="C"/>` of A.
const CYCLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1">
  <job id="A" name="a" runtime="10"/>
  <job id="B" name="b" runtime="20"/>
  <job id="C" name="c" runtime="30"/>
  <child ref="B">
    <parent ref="A"/>
  </child>
  <child ref="C">
    <parent ref="B"/>
  </child>
  <child ref="A">
    <parent ref="C"/>
  </child>
</adag>
"#;

/// The same chain without the cycle.
fn chain() -> String {
    CYCLE.replace(
        "  <child ref=\"A\">\n    <parent ref=\"C\"/>\n  </child>\n",
        "",
    )
}

/// A WfCommons 1.5 instance of two tasks, `small` (1 core) -> `huge` (`cores`), run times
/// `runtime_huge` (JSON text, or absent).
fn wfcommons(cores: u32, runtime_huge: Option<&str>) -> String {
    let rt = runtime_huge.map_or(String::new(), |r| format!(", \"runtimeInSeconds\": {r}"));
    format!(
        r#"{{"name": "two", "schemaVersion": "1.5",
 "workflow": {{
  "specification": {{"tasks": [
     {{"id": "small", "name": "small", "parents": [], "children": ["huge"]}},
     {{"id": "huge", "name": "huge", "parents": ["small"], "children": []}}],
   "files": []}},
  "execution": {{"tasks": [
     {{"id": "small", "runtimeInSeconds": 60, "coreCount": 1}},
     {{"id": "huge", "coreCount": {cores}{rt}}}]}}}}}}
"#
    )
}

/// Writes `body` as `name` in `dir`, runs `provision` on it and the 16-processor site (plus
/// `extra`), and checks it fails cleanly with `wants` in its message (and the file's path, if
/// `name_the_file`).
fn run_bad(
    dir: &Path,
    name: &str,
    body: &str,
    extra: &[&str],
    wants: &[&str],
    name_the_file: bool,
) {
    let (site, _) = small_sites(dir);
    let wf = dir.join(name);
    std::fs::write(&wf, body).unwrap();
    let out = dir.join(format!("{name}.out.csv"));
    let bought = dir.join(format!("{name}.slots.csv"));
    let before = entries(dir);
    let mut args = vec![
        "provision",
        "--workflow",
        s(&wf),
        "--trace",
        s(&site),
        "--at",
        "100",
    ];
    args.extend_from_slice(extra);
    args.extend(["--out", s(&out), "--slots-out", s(&bought)]);
    let o = gridsched(&args);
    let mut all = wants.to_vec();
    if name_the_file {
        all.push(s(&wf));
    }
    must_fail(&o, dir, &before, &out, &all);
    assert!(!bought.exists());
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

/// [`run_bad`] for a defect of the workflow file: its path is always wanted in the message.
fn bad_workflow(dir: &Path, name: &str, body: &str, extra: &[&str], wants: &[&str]) {
    run_bad(dir, name, body, extra, wants, true);
}

#[test]
fn the_good_inputs_of_the_bad_input_tests_work() {
    // The bad inputs below differ from these by the one defect each is about.
    let dir = tempfile::tempdir().unwrap();
    let (site16, site8) = small_sites(dir.path());
    let dax = dir.path().join("chain.xml");
    std::fs::write(&dax, chain()).unwrap();
    let json = dir.path().join("two.json");
    std::fs::write(&json, wfcommons(16, Some("30"))).unwrap();
    for (wf, sites) in [
        (&dax, s(&site16).to_string()),
        (&json, format!("{},{}", s(&site16), s(&site8))),
    ] {
        let out = dir.path().join("ok.csv");
        let o = gridsched(&[
            "provision",
            "--workflow",
            s(wf),
            "--sites",
            &sites,
            "--at",
            "100",
            "--out",
            s(&out),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let t = Table::read(&out);
        let ids: Vec<&str> = t.rows.iter().map(|r| t.get(r, "task")).collect();
        if wf == &dax {
            assert_eq!(ids, ["A", "B", "C"]);
            // A -> B -> C on one site: each starts when its parent ends, or later.
            let end = |i: usize| t.int(&t.rows[i], "plan_end_s");
            let start = |i: usize| t.int(&t.rows[i], "plan_start_s");
            assert!(start(1) >= end(0) && start(2) >= end(1), "{:?}", t.rows);
        } else {
            assert_eq!(ids, ["small", "huge"]);
            assert_eq!(t.get(&t.rows[1], "procs"), "16");
        }
    }
}

#[test]
fn a_dax_with_a_cycle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    bad_workflow(
        dir.path(),
        "cycle.xml",
        CYCLE,
        &[],
        &[":3:3", "dependency cycle", "A -> B -> C -> A"],
    );
}

#[test]
fn a_dax_with_an_unknown_parent_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let body = CYCLE.replace("<parent ref=\"C\"/>", "<parent ref=\"Z9\"/>");
    bad_workflow(
        dir.path(),
        "unknown.xml",
        &body,
        &[],
        &[":13:5", "unknown parent \"Z9\" of task \"A\""],
    );
}

#[test]
fn a_task_without_runtime_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let body = chain().replace(" runtime=\"20\"", "");
    bad_workflow(
        dir.path(),
        "noruntime.xml",
        &body,
        &[],
        &[":4:3", "task \"B\" has no runtime"],
    );
    bad_workflow(
        dir.path(),
        "noruntime.json",
        &wfcommons(1, None),
        &[],
        &[
            "workflow.execution.tasks[1]",
            "task \"huge\" has no runtime",
        ],
    );
    let body = chain().replace("runtime=\"20\"", "runtime=\"soon\"");
    bad_workflow(
        dir.path(),
        "badruntime.xml",
        &body,
        &[],
        &[":4:3", "task \"B\": runtime \"soon\""],
    );
}

#[test]
fn malformed_xml_and_json_are_refused_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    // `<parent ref="A">` left open on line 7: `</child>` on line 8 does not match it.
    let body = chain().replace("<parent ref=\"A\"/>", "<parent ref=\"A\">");
    bad_workflow(
        dir.path(),
        "malformed.xml",
        &body,
        &[],
        &[":8:3", "malformed XML", "</parent>"],
    );
    // Truncated: the document ends inside the open `<adag>`.
    let cut = &chain()[..chain().find("<child").unwrap()];
    bad_workflow(
        dir.path(),
        "truncated.xml",
        cut,
        &[],
        &["malformed XML", "unexpected end of file inside <adag>"],
    );
    // A JSON syntax error on line 3.
    let body = wfcommons(1, Some("30")).replacen("\"tasks\": [", "\"tasks\": [,", 1);
    bad_workflow(
        dir.path(),
        "malformed.json",
        &body,
        &[],
        &[":3:", "malformed JSON"],
    );
    // Well-formed JSON that is not a WfCommons instance.
    bad_workflow(
        dir.path(),
        "notwf.json",
        "{\"tasks\": []}\n",
        &[],
        &["workflow: missing"],
    );
}

#[test]
fn an_empty_or_missing_workflow_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    bad_workflow(
        dir.path(),
        "empty.xml",
        "<adag version=\"2.1\">\n</adag>\n",
        &[],
        &["no tasks"],
    );
    let (site, _) = small_sites(dir.path());
    let missing = dir.path().join("nowhere.xml");
    let out = dir.path().join("o.csv");
    let before = entries(dir.path());
    let o = gridsched(&[
        "provision",
        "--workflow",
        s(&missing),
        "--trace",
        s(&site),
        "--at",
        "100",
        "--out",
        s(&out),
    ]);
    // Refused before the sites are read (`input::file`), as every missing input is.
    must_fail(
        &o,
        dir.path(),
        &before,
        &out,
        &[s(&missing), "No such file"],
    );
}

#[test]
fn a_task_wider_than_every_site_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    bad_workflow(
        dir.path(),
        "wide.json",
        &wfcommons(17, Some("30")),
        &[],
        &["task huge needs 17 processors", "the widest site has 16"],
    );
    // On both sites (16 and 8 processors) the message names the widest.
    let (site16, site8) = small_sites(dir.path());
    let sites = format!("{},{}", s(&site16), s(&site8));
    let wf = dir.path().join("wide.json");
    let out = dir.path().join("wide2.csv");
    let before = entries(dir.path());
    let o = gridsched(&[
        "provision",
        "--workflow",
        s(&wf),
        "--sites",
        &sites,
        "--at",
        "100",
        "--out",
        s(&out),
    ]);
    must_fail(
        &o,
        dir.path(),
        &before,
        &out,
        &[
            s(&wf),
            "task huge needs 17 processors",
            "the widest site has 16",
        ],
    );
}

#[test]
fn an_unknown_trace_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("chain.xml");
    std::fs::write(&wf, chain()).unwrap();
    let (site16, _) = small_sites(dir.path());
    let out = dir.path().join("o.csv");
    let before = entries(dir.path());
    let wants = ["NOSUCH", "not a log name", "CTC", "SDSC"];
    for args in [
        vec!["provision", "--workflow", s(&wf), "--trace", "NOSUCH"],
        vec![
            "provision",
            "--workflow",
            s(&wf),
            "--sites",
            &format!("{},NOSUCH:64", s(&site16)),
        ],
        vec!["slots", "--trace", "NOSUCH"],
    ] {
        let mut args: Vec<String> = args.into_iter().map(String::from).collect();
        args.extend(
            ["--data-dir", s(dir.path()), "--at", "100", "--out", s(&out)].map(String::from),
        );
        let o = gridsched(&args);
        must_fail(&o, dir.path(), &before, &out, &wants);
    }
    // A known short name whose file the data directory lacks names the file looked for.
    let o = gridsched(&[
        "slots",
        "--trace",
        "SDSC",
        "--data-dir",
        s(dir.path()),
        "--at",
        "100",
        "--out",
        s(&out),
    ]);
    must_fail(
        &o,
        dir.path(),
        &before,
        &out,
        &["SDSC-SP2-1998-4.2-cln.swf.gz: no such file", "--data-dir"],
    );
}

#[test]
fn alpha_outside_0_1_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for alpha in ["1.5", "-0.5", "NaN"] {
        let flag = format!("--alpha={alpha}");
        run_bad(
            dir.path(),
            "chain.xml",
            &chain(),
            &[&flag],
            &["--alpha must be in [0, 1]"],
            false,
        );
    }
}

/// `--out` and `--slots-out` are written both or neither: when the second cannot be written
/// (its directory lies under a file), the first, which could be, is not left behind alone.
#[test]
fn provision_writes_both_outputs_or_neither() {
    let dir = tempfile::tempdir().unwrap();
    let (site, _) = small_sites(dir.path());
    let dax = dir.path().join("chain.xml");
    std::fs::write(&dax, chain()).unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out = dir.path().join("plan.csv");
    let bought = blocker.join("bought.csv");
    let run = |slots: &Path| {
        gridsched(&[
            "provision",
            "--workflow",
            s(&dax),
            "--trace",
            s(&site),
            "--at",
            "100",
            "--out",
            s(&out),
            "--slots-out",
            s(slots),
        ])
    };
    let before = entries(dir.path());
    let o = run(&bought);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains(s(&blocker)) && !err.contains("panicked"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "plan.csv written although bought.csv could not be"
    );
    assert_eq!(entries(dir.path()), before, "a file was left behind");
    // The same command with a writable second path writes both.
    let ok = dir.path().join("bought.csv");
    let o = run(&ok);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.exists() && ok.exists());
}

/// `provision --algorithm greedy` (chapter 7, Figure 51) on a shipped DAX: every task of the
/// file reserved once, at or after the submission and after each parent's end; the cost is
/// the sum of the reservations' base charges and prices; α = 1 never pays a price, so its
/// cost is exactly the best-effort cost, and α = 0 costs at least as much.
#[test]
fn greedy_provisioning_respects_precedence_and_alpha_1_costs_best_effort() {
    let Some(data) = data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = data.join("workflows/pegasus-dax/CyberShake_30.xml");
    let flow = scan_dax(&path);
    let site = ["--trace", "SDSC", "--data-dir", s(&data)];
    let mut costs = Vec::new();
    for alpha in ["0", "1"] {
        let (o, out, res) = provision(
            dir.path(),
            &format!("g{alpha}"),
            &path,
            &site,
            &["--algorithm", "greedy", "--alpha", alpha],
        );
        let stdout = text(&o.stdout);
        let t = Table::read(&out);
        assert_eq!(t.rows.len(), flow.ids.len(), "one row per task of the file");
        let mut start = HashMap::new();
        let mut end = HashMap::new();
        for r in &t.rows {
            let id = t.get(r, "task").to_string();
            assert_eq!(t.get(r, "plan_site"), "SDSC");
            let (s0, e0) = (t.int(r, "plan_start_s"), t.int(r, "plan_end_s"));
            assert!(s0 >= AT_20D && e0 > s0, "{r:?}");
            start.insert(id.clone(), s0);
            end.insert(id, e0);
        }
        for (p, c) in &flow.edges {
            assert!(end[p] <= start[c], "{p} → {c}: {} > {}", end[p], start[c]);
        }
        let rs = Table::read(&res);
        assert_eq!(rs.rows.len(), flow.ids.len(), "one reservation per task");
        let num = |r: &[String], c: &str| rs.get(r, c).parse::<f64>().unwrap();
        let total: f64 = rs
            .rows
            .iter()
            .map(|r| num(r, "base_su") + num(r, "price_su"))
            .sum();
        let printed = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("plan "))
            .and_then(|l| l.split("allocation cost ").nth(1))
            .and_then(|l| l.split_whitespace().next())
            .map(|v| v.parse::<f64>().unwrap())
            .unwrap_or_else(|| panic!("no plan line in\n{stdout}"));
        assert!(
            (total - printed).abs() < 0.01 * flow.ids.len() as f64,
            "{total} vs {printed}"
        );
        if alpha == "1" {
            assert!(rs.rows.iter().all(|r| num(r, "price_su") == 0.0));
            assert!(stdout.contains("cost x1.000"), "{stdout}");
        }
        costs.push(printed);
    }
    assert!(costs[0] >= costs[1], "{costs:?}");
}
