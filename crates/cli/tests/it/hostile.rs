//! Issue 35's known defects, each pinned by a test that failed before its fix: sizes refused
//! by name before any work, logs whose skipped and changed records are reported by every
//! command that reads them, the other defects found trying the program as a new user, and
//! (item 6) the checks of the one input door (`crates/cli/src/input/`) that some commands
//! lacked before every command read its inputs through it.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{gridsched, text};

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

/// `schedule reservation --servers` holds an idle period per server before the first request
/// (4*10^9 servers ran for minutes; 4*10^8 under a 4 GB limit aborted on allocation).
#[test]
fn schedule_reservation_servers_beyond_memory_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let requests = write(
        dir.path(),
        "r.csv",
        "id,arrival,ready,length,deadline\n1,0,0,1,5\n",
    );
    let out = dir.path().join("o.csv");
    // 4*10^9 servers exceed this machine's memory; 4*10^8 exceed a 3 GB `ulimit -v`.
    for (servers, limited) in [("4000000000", false), ("400000000", true)] {
        let args = [
            "schedule",
            "reservation",
            "--strategy",
            "lact",
            "--servers",
            servers,
            "--requests",
            s(&requests),
            "--out",
            s(&out),
        ];
        let o = if limited {
            gridsched_limited(3_000_000, &args)
        } else {
            gridsched(&args)
        };
        refused(&o, &format!("--servers {servers} is too large"), &out);
        assert!(text(&o.stderr).contains("more than"), "{}", text(&o.stderr));
    }
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

/// A command line from a template: the words split at white space, then each word that is a
/// name in `paths` (`LOG`, `OUT`, ...) replaced by its path (after the split, so a path may
/// hold spaces).
fn line(template: &str, paths: &[(&str, &Path)]) -> Vec<String> {
    template
        .split_whitespace()
        .map(|w| match paths.iter().find(|(name, _)| *name == w) {
            Some((_, p)) => s(p).to_string(),
            None => w.to_string(),
        })
        .collect()
}

/// Every command that reads and schedules (or converts) a log, over `LOG`, `MACHINES` (a
/// 4-processor machine) and `OUT`.
const LOG_COMMANDS: &[&str] = &[
    "trace convert LOG --out OUT",
    "slots --trace LOG --at 10 --out OUT",
    "price --trace LOG --at 10 --procs 1 --duration 60 --out OUT",
    "grid --policy fcfs --machines MACHINES --trace LOG --reference-speed 1 --out OUT",
    "provision --workflow synthetic --tasks 20 --procs-mean 1 --trace LOG --at 10 --out OUT",
    "replay --policy fcfs --trace LOG --out OUT",
    "coalloc --trace LOG --out OUT",
];

#[test]
fn every_command_that_reads_a_log_reports_skipped_sorted_and_renumbered_records() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("out.csv");
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let paths = [("LOG", &*log), ("OUT", &*out), ("MACHINES", &*machines)];
    for template in LOG_COMMANDS {
        let o = gridsched(&line(template, &paths));
        says_what_reading_changed(&log, &o);
    }
}

// ---------------------------------------------------------------------------------------------
// Standard error on a full device, and small option defects.

/// Runs the binary with standard error on `/dev/full` (writes fail with ENOSPC).
fn gridsched_stderr_full(args: &[&str]) -> Option<Output> {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()?;
    Some(
        std::process::Command::new(env!("CARGO_BIN_EXE_gridsched"))
            .args(args)
            .stderr(full)
            .output()
            .expect("run gridsched"),
    )
}

#[test]
fn a_full_standard_error_keeps_the_commands_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("out.csv");
    // A failing command: its error cannot be printed, but the exit code is still 1, not a
    // panic's 101.
    let Some(o) = gridsched_stderr_full(&["trace", "info", s(&dir.path().join("none.swf"))]) else {
        eprintln!("NOTICE: /dev/full is not writable here; skipping");
        return;
    };
    assert_eq!(o.status.code(), Some(1));
    // A succeeding command whose notes (skipped records, `wrote ...`) go to standard error.
    let o = gridsched_stderr_full(&[
        "replay",
        "--policy",
        "fcfs",
        "--trace",
        s(&log),
        "--out",
        s(&out),
    ])
    .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(out.exists());
}

#[test]
fn trace_info_refuses_zero_processors() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let o = gridsched(&["trace", "info", s(&log), "--processors", "0"]);
    refused(
        &o,
        "--processors must be positive",
        &dir.path().join("none"),
    );
    assert!(!text(&o.stdout).contains("inf"), "{}", text(&o.stdout));
}

/// `grid --limit` takes the first N jobs of a jobs file as of a log (it was silently ignored
/// with `--jobs`).
#[test]
fn grid_limit_applies_to_a_jobs_file() {
    let dir = tempfile::tempdir().unwrap();
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let jobs = write(
        dir.path(),
        "j.csv",
        "id,submit,cpus,length\n1,0,1,10\n2,5,1,10\n3,6,2,10\n",
    );
    let out = dir.path().join("o.csv");
    let o = gridsched(&[
        "grid",
        "--policy",
        "fcfs",
        "--machines",
        s(&machines),
        "--jobs",
        s(&jobs),
        "--reference-speed",
        "1",
        "--limit",
        "2",
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let o = gridsched(&[
        "grid",
        "--policy",
        "fcfs",
        "--machines",
        s(&machines),
        "--jobs",
        s(&jobs),
        "--limit",
        "0",
        "--out",
        s(&dir.path().join("zero.csv")),
    ]);
    refused(&o, "--limit must be positive", &dir.path().join("zero.csv"));
}

/// `grid --jobs FILE` measures makespan and usage from the first submission, as `grid
/// --trace` does: the same log as a jobs file and as a log gives the same summary.
#[test]
fn grid_jobs_file_measures_from_the_first_submission_like_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let log = write(
        dir.path(),
        "late.swf",
        "; MaxProcs: 4\n1 1000 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 1010 0 50 4 -1 -1 4 80 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let jobs = write(
        dir.path(),
        "late.csv",
        "id,submit,cpus,length\n1,1000,2,100\n2,1010,4,50\n",
    );
    let summary = |input: &[&str]| {
        let json = dir.path().join("s.json");
        let csv = dir.path().join("o.csv");
        let mut args = vec![
            "grid",
            "--policy",
            "fcfs",
            "--machines",
            s(&machines),
            "--reference-speed",
            "1",
            "--out",
            s(&csv),
            "--summary-json",
            s(&json),
        ];
        args.extend_from_slice(input);
        let o = gridsched(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (
            v["makespan_s"].clone(),
            v["weighted_usage_pct"].clone(),
            v["origin_s"].clone(),
        )
    };
    let from_log = summary(&["--trace", s(&log)]);
    let from_file = summary(&["--jobs", s(&jobs)]);
    assert_eq!(from_log, from_file);
    assert_eq!(from_file.0, serde_json::json!(150.0));
}

#[test]
fn provision_refuses_a_site_named_twice() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("p.csv");
    let sites = format!("{0}:4,{0}:2", s(&log));
    let o = gridsched(&[
        "provision",
        "--workflow",
        "synthetic",
        "--tasks",
        "20",
        "--procs-mean",
        "1",
        "--sites",
        &sites,
        "--at",
        "10",
        "--out",
        s(&out),
    ]);
    refused(&o, "names the site", &out);
}

/// A shard's provenance records the worker threads it ran with (`--threads`), as an unsharded
/// run's does, not the machine's core count.
#[test]
fn a_shards_meta_json_records_its_threads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let o = gridsched(&[
        "reproduce",
        "fig-3.4",
        "--root",
        s(root),
        "--reps",
        "1",
        "--jobs",
        "200",
        "--threads",
        "1",
        "--shard",
        "1/2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let meta = std::fs::read_dir(root.join("data/castillo/shards"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".meta.json"))
        .expect("a shard's meta.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    assert_eq!(v["threads"], serde_json::json!(1), "{v}");
}

// ---------------------------------------------------------------------------------------------
// Zero-length tasks in `provision`.

/// A DAX of three tasks in a chain, with the given run times.
fn chain(runtimes: [&str; 3]) -> String {
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"z\">\n",
    );
    for (i, r) in runtimes.iter().enumerate() {
        x.push_str(&format!(
            "  <job id=\"ID{i}\" namespace=\"z\" name=\"t{i}\" version=\"1.0\" runtime=\"{r}\"/>\n"
        ));
    }
    x.push_str("  <child ref=\"ID1\"><parent ref=\"ID0\"/></child>\n");
    x.push_str("  <child ref=\"ID2\"><parent ref=\"ID1\"/></child>\n</adag>\n");
    x
}

#[test]
fn provision_gives_zero_length_tasks_full_rows_and_no_nan() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    for (name, runtimes) in [
        ("middle.xml", ["30", "0", "40"]),
        ("zero.xml", ["0", "0", "0"]),
    ] {
        let dax = write(dir.path(), name, &chain(runtimes));
        for algorithm in ["moga", "greedy"] {
            let out = dir.path().join(format!("{name}.{algorithm}.csv"));
            let o = gridsched(&[
                "provision",
                "--workflow",
                s(&dax),
                "--trace",
                s(&log),
                "--at",
                "10",
                "--algorithm",
                algorithm,
                "--out",
                s(&out),
            ]);
            let report = text(&o.stdout);
            assert!(o.status.success(), "{}", text(&o.stderr));
            assert!(!report.contains("NaN"), "{name} {algorithm}: {report}");
            let csv = std::fs::read_to_string(&out).unwrap();
            for row in csv.lines().skip(1) {
                assert!(
                    row.split(',').all(|f| !f.is_empty()),
                    "{name} {algorithm}: an empty column in `{row}`"
                );
            }
            // The zero-length task starts and ends when its parent ends, in both schedules.
            if name == "middle.xml" {
                let rows: Vec<Vec<&str>> = csv
                    .lines()
                    .skip(1)
                    .map(|r| r.split(',').collect())
                    .collect();
                let (first, middle) = (&rows[0], &rows[1]);
                assert_eq!(
                    middle[5], first[6],
                    "{algorithm}: plan start = parent's end"
                );
                assert_eq!(middle[5], middle[6], "{algorithm}: plan start = end");
                assert_eq!(middle[9], first[10], "{algorithm}: best-effort start");
                assert_eq!(
                    middle[9], middle[10],
                    "{algorithm}: best-effort start = end"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reports that hide loss.

/// `reproduce fig-3.4` at a tiny size under `root` (sharded when `shard` is given).
fn tiny_run(root: &Path, shard: Option<&str>) {
    let mut args = vec![
        "reproduce",
        "fig-3.4",
        "--root",
        s(root),
        "--reps",
        "1",
        "--jobs",
        "200",
    ];
    if let Some(k) = shard {
        args.extend(["--shard", k]);
    }
    let o = gridsched(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn report_refuses_a_root_without_results() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("missing");
    let o = gridsched(&["report", "--root", s(&root)]);
    refused(&o, "no data/ directory", &root);
}

#[test]
fn report_fails_on_unreadable_readings_and_garbled_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tiny_run(root, None);
    let out = root.join("REPRODUCTION.md");
    let ok = gridsched(&["report", "--root", s(root)]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    std::fs::remove_file(&out).unwrap();
    // Readings that are not UTF-8 are an error naming the file, not a section left out.
    let readings = root.join("experiments/singh/READINGS.md");
    std::fs::create_dir_all(readings.parent().unwrap()).unwrap();
    std::fs::write(&readings, b"# Readings\n\xff\xfe broken\n").unwrap();
    let o = gridsched(&["report", "--root", s(root)]);
    refused(&o, "READINGS.md: not UTF-8", &out);
    std::fs::remove_file(&readings).unwrap();
    // A garbled provenance sidecar is an error naming the file, not "null replications".
    let meta = root.join("data/castillo/fig-3.4.quick.meta.json");
    assert!(meta.is_file(), "a run writes its provenance");
    std::fs::write(&meta, "{\"replications\": 1,").unwrap();
    let o = gridsched(&["report", "--root", s(root)]);
    refused(&o, "fig-3.4.quick.meta.json: not valid JSON", &out);
}

#[test]
fn merge_refuses_shards_of_another_seed_and_non_finite_points() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tiny_run(root, Some("1/2"));
    tiny_run(root, Some("2/2"));
    let shards = root.join("data/castillo/shards");
    let meta = shards.join("fig-3.4.quick.shard-2-of-2.meta.json");
    let good = std::fs::read_to_string(&meta).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["seed"] = serde_json::json!(v["seed"].as_u64().unwrap() + 1);
    std::fs::write(&meta, v.to_string()).unwrap();
    let merged = root.join("data/castillo/fig-3.4.quick.csv");
    let o = gridsched(&["merge", "fig-3.4", "--scale", "quick", "--root", s(root)]);
    refused(&o, "is not the sweep's", &merged);
    std::fs::write(&meta, good).unwrap();
    // A point that is not a number.
    let csv = shards.join("fig-3.4.quick.shard-2-of-2.csv");
    let body = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = body.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[1].split(',').map(String::from).collect();
    fields[3] = "NaN".into();
    lines[1] = fields.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let o = gridsched(&["merge", "fig-3.4", "--scale", "quick", "--root", s(root)]);
    refused(&o, "the point `NaN` is not finite", &merged);
    // An infinite value.
    let mut fields: Vec<String> = body
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    fields[7] = "inf".into();
    lines[1] = fields.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let o = gridsched(&["merge", "fig-3.4", "--scale", "quick", "--root", s(root)]);
    refused(&o, "the value `inf` is not finite", &merged);
}

// ---------------------------------------------------------------------------------------------
// Outputs: a user's file system is not ours to reshape.

#[test]
fn out_creates_no_directory_follows_no_dangling_link_and_replaces_no_read_only_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let convert = |out: &Path| gridsched(&["trace", "convert", s(&log), "--out", s(out)]);
    // A missing parent directory is not created.
    let nested = dir.path().join("new/dir/jobs.csv");
    let o = convert(&nested);
    refused(&o, "outputs do not create directories", &nested);
    assert!(!dir.path().join("new").exists());
    // A dangling symbolic link: its target is not created.
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("target.csv", &link).unwrap();
    let o = convert(&link);
    refused(&o, "which does not exist", &dir.path().join("target.csv"));
    // A read-only file is not replaced (as root, a rename would replace it).
    let ro = write(dir.path(), "ro.csv", "keep me\n");
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    let o = convert(&ro);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("is read-only"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep me\n");
    // `grid generate --out-dir` creates its directory, not the directory's parents.
    let o = gridsched(&[
        "grid",
        "generate",
        "--jobs",
        "5",
        "--machines",
        "2",
        "--out-dir",
        s(&dir.path().join("a/b")),
    ]);
    refused(
        &o,
        "its parent directory does not exist",
        &dir.path().join("a"),
    );
}

/// An interrupt while outputs are being put in place leaves no hidden temporary file. The
/// jobs CSV is staged into `.gridsched-XXXXXX` first; the summary goes to a FIFO, whose
/// opening blocks until a reader comes: the test waits (on that condition, not on a clock)
/// until the temporary file exists, then sends SIGINT.
#[test]
fn an_interrupt_during_the_final_write_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let fifo = dir.path().join("summary.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("NOTICE: mkfifo unavailable; skipping");
        return;
    }
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args([
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            s(&log),
            "--out",
            s(&out.join("jobs.csv")),
            "--summary-json",
            s(&fifo),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let temporary = || {
        std::fs::read_dir(&out)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".gridsched-"))
            .count()
    };
    while temporary() == 0 {
        assert!(child.try_wait().unwrap().is_none(), "exited before staging");
        std::thread::yield_now();
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(temporary(), 0, "a .gridsched-* file was left behind");
    assert!(!out.join("jobs.csv").exists());
}

// ---------------------------------------------------------------------------------------------
// Item 6: one door for inputs. Checks that some commands made and others lacked, now made by
// the door every command reads through.

/// A log every record of which is skipped (run time 0).
const EMPTY: &str = "; MaxProcs: 4\n1 0 0 0 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n";

/// `--limit 0` keeps no job: refused by every command that takes it (it was refused by
/// `replay`, `coalloc` and `grid` only; `slots`, `price` and `provision` said `no jobs`,
/// `trace info` and `trace convert` ran on nothing).
#[test]
fn limit_zero_is_refused_by_every_command_that_reads_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("out.csv");
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let paths = [("LOG", &*log), ("OUT", &*out), ("MACHINES", &*machines)];
    let more = [
        "trace info LOG",
        "provision --workflow synthetic --tasks 5 --procs-mean 1 --sites LOG --at 10 --out OUT",
    ];
    for template in LOG_COMMANDS.iter().chain(&more) {
        let mut args = line(template, &paths);
        args.extend(["--limit".into(), "0".into()]);
        let o = gridsched(&args);
        refused(&o, "--limit must be positive", &out);
        assert!(text(&o.stdout).is_empty(), "{args:?}: {}", text(&o.stdout));
    }
}

/// [`refused`], before any work: the log (`SITE`) was not read, or the command would have
/// said what reading it changed.
fn refused_before_reading_the_log(o: &Output, want: &str, out: &Path) {
    refused(o, want, out);
    let err = text(&o.stderr);
    assert!(!err.contains("records skipped"), "{err}");
}

/// A directory given as any input file is refused before any work, with one message, by
/// every command (the readers found it on their first read, with messages that differed by
/// format: `PATH:1: malformed CSV: Is a directory` for requests, after the sites were read
/// and replayed for a workflow).
#[test]
fn a_directory_is_refused_as_every_kind_of_input() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.swf");
    std::fs::create_dir(&folder).unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let out = dir.path().join("out.csv");
    let machines = write(dir.path(), "m.csv", "id,cpus,speed\nA,4,1\n");
    let requests = "id,arrival,ready,length,deadline\n1,0,0,1,5\n";
    let requests = write(dir.path(), "r.csv", requests);
    let paths = [
        ("DIR", &*folder),
        ("LOG", &*log),
        ("OUT", &*out),
        ("MACHINES", &*machines),
        ("REQUESTS", &*requests),
    ];
    let mut templates: Vec<String> = LOG_COMMANDS
        .iter()
        .map(|t| t.replace("LOG", "DIR"))
        .collect();
    templates.extend(
        [
            "trace info DIR",
            "provision --workflow synthetic --sites DIR --at 10 --out OUT",
            "provision --workflow DIR --trace LOG --at 10 --out OUT",
            "grid --policy fcfs --machines DIR --trace LOG --out OUT",
            "grid --policy fcfs --machines MACHINES --jobs DIR --out OUT",
            "map --heuristic min-min --etc DIR --schedule OUT",
            "schedule reservation --strategy first-fit --servers 2 --requests DIR --out OUT",
            "schedule hetero --algorithm ff-hu --rates 1 --requests DIR --out OUT",
            "schedule hetero --algorithm ff-hu --rates-file DIR --requests REQUESTS --out OUT",
        ]
        .map(String::from),
    );
    for template in &templates {
        let args = line(template, &paths);
        let o = gridsched(&args);
        let want = format!("{}: is a directory, not a file", s(&folder));
        refused_before_reading_the_log(&o, &want, &out);
    }
}

/// A missing `--workflow` file is refused before the sites are read and replayed (it was
/// found only after them: minutes on a large log).
#[test]
fn provision_refuses_a_missing_workflow_before_reading_the_sites() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "site.swf", SITE);
    let missing = dir.path().join("nowhere.xml");
    let out = dir.path().join("p.csv");
    let paths = [("LOG", &*log), ("OUT", &*out), ("WORKFLOW", &*missing)];
    let o = gridsched(&line(
        "provision --workflow WORKFLOW --trace LOG --at 10 --out OUT",
        &paths,
    ));
    refused_before_reading_the_log(&o, &format!("{}: No such file", s(&missing)), &out);
}

/// A log left without a job is refused by `coalloc` as by the other commands that schedule a
/// log (it wrote a header-only CSV and a summary of zeros), and `replay` says what reading
/// skipped before refusing it (it refused it without saying why).
#[test]
fn a_log_without_jobs_is_refused_saying_what_was_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "empty.swf", EMPTY);
    let out = dir.path().join("out.csv");
    let paths = [("LOG", &*log), ("OUT", &*out)];
    for template in [
        "coalloc --trace LOG --out OUT",
        "replay --policy fcfs --trace LOG --out OUT",
        "slots --trace LOG --at 10 --out OUT",
    ] {
        let o = gridsched(&line(template, &paths));
        refused(&o, &format!("{}: no jobs", s(&log)), &out);
        let skipped = format!("{}: 1 of 1 records skipped (1 run time 0)", s(&log));
        assert!(
            text(&o.stderr).contains(&skipped),
            "{template}: {}",
            text(&o.stderr)
        );
    }
}
