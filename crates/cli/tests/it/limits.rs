//! Numbers beyond what a model represents are refused up front: a clear error that names the
//! option (or the file and line), exit code 1, nothing written, no panic, no huge allocation,
//! no hang. Every command here panicked, aborted, looped or printed wrong numbers before.

use std::path::{Path, PathBuf};

use crate::common::{gridsched, text};

/// A small log: 6 processors, three jobs.
const LOG: &str = "; Version: 2.2\n; MaxProcs: 6\n;\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
2 10 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n\
3 20 0 50 1 -1 -1 1 60 -1 1 2 1 -1 1 -1 -1 -1\n";

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Runs `args` (with `{out}` replaced by a file in `dir`) and checks the refusal: exit code 1,
/// `want` in the error, no panic, and no output written.
fn refused(dir: &Path, args: &[&str], want: &str) {
    let out = dir.join("out.csv");
    let args: Vec<String> = args.iter().map(|a| a.replace("{out}", &s(&out))).collect();
    let o = gridsched(&args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}\n{err}");
    assert!(err.starts_with("error: "), "{args:?}\n{err}");
    assert!(err.contains(want), "{args:?}: missing `{want}` in\n{err}");
    assert!(!err.contains("panicked"), "{args:?}\n{err}");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

/// Runs `args` and expects success.
fn accepted(dir: &Path, args: &[&str]) -> String {
    let out = dir.join("ok.csv");
    let args: Vec<String> = args.iter().map(|a| a.replace("{out}", &s(&out))).collect();
    let o = gridsched(&args);
    assert!(o.status.success(), "{args:?}\n{}", text(&o.stderr));
    std::fs::read_to_string(&out).unwrap_or_default()
}

#[test]
fn processor_counts_above_the_profile_limit_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let log = s(&write(dir.path(), "small.swf", LOG));
    let huge = s(&write(
        dir.path(),
        "huge.swf",
        &LOG.replace("MaxProcs: 6", "MaxProcs: 4294967295"),
    ));
    let d = dir.path();
    let too_large = "2147483648 is too large: a machine has at most 268435456 processors";
    refused(
        d,
        &[
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            &log,
            "--procs",
            "2147483648",
            "--out",
            "{out}",
        ],
        &format!("--procs {too_large}"),
    );
    refused(
        d,
        &[
            "replay", "--policy", "easy", "--trace", &huge, "--out", "{out}",
        ],
        &format!("{huge}:2: MaxProcs 4294967295 is too large"),
    );
    refused(
        d,
        &[
            "slots",
            "--trace",
            &log,
            "--procs",
            "2147483648",
            "--at",
            "1h",
            "--out",
            "{out}",
        ],
        &format!("--procs {too_large}"),
    );
    refused(
        d,
        &["slots", "--trace", &huge, "--at", "1h", "--out", "{out}"],
        &format!("{huge}:2: MaxProcs 4294967295 is too large"),
    );
    refused(
        d,
        &[
            "price",
            "--trace",
            &log,
            "--site-procs",
            "2147483648",
            "--at",
            "10",
            "--procs",
            "1",
            "--duration",
            "1h",
            "--out",
            "{out}",
        ],
        &format!("--site-procs {too_large}"),
    );
    refused(
        d,
        &[
            "provision",
            "--workflow",
            "cybershake",
            "--trace",
            &log,
            "--procs",
            "2147483648",
            "--at",
            "10",
            "--out",
            "{out}",
        ],
        &format!("--procs {too_large}"),
    );
    refused(
        d,
        &[
            "provision",
            "--workflow",
            "cybershake",
            "--sites",
            &format!("{log}:2147483648"),
            "--at",
            "10",
            "--out",
            "{out}",
        ],
        &format!("PROCS {too_large}"),
    );
    refused(
        d,
        &[
            "provision",
            "--workflow",
            "cybershake",
            "--sites",
            &huge,
            "--at",
            "10",
            "--out",
            "{out}",
        ],
        "MaxProcs 4294967295 is too large: a machine has at most 268435456 processors; give NAME:PROCS in --sites",
    );
    // A grid machine file.
    let machines = s(&write(
        d,
        "machines.csv",
        "id,cpus,speed\na,4,200\nb,300000000,200\n",
    ));
    let jobs = s(&write(d, "jobs.csv", "id,submit,cpus,length\n1,0,2,10\n"));
    refused(
        d,
        &[
            "grid",
            "--policy",
            "fcfs",
            "--machines",
            &machines,
            "--jobs",
            &jobs,
            "--out",
            "{out}",
        ],
        &format!("{machines}:3: machine `b`: cpus 300000000 is too large"),
    );
    // The limit itself is a machine.
    let csv = accepted(
        d,
        &[
            "replay",
            "--policy",
            "fcfs",
            "--trace",
            &log,
            "--procs",
            "268435456",
            "--out",
            "{out}",
        ],
    );
    assert_eq!(csv.lines().count(), 4, "{csv}");
}

#[test]
fn log_times_beyond_the_limit_are_refused_at_load_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // coalloc looped at 100% CPU on this job and replay wrote a negative end time.
    let log = s(&write(
        d,
        "late.swf",
        &format!("{LOG}4 9223372036854775800 0 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"),
    ));
    let want = format!(
        "{log}:7: job 4: field 2 (submit time) 9223372036854775800 s is beyond 10^12 s (about 31,700 years)"
    );
    refused(d, &["coalloc", "--trace", &log, "--out", "{out}"], &want);
    for policy in ["fcfs", "easy", "conservative"] {
        refused(
            d,
            &[
                "replay", "--policy", policy, "--trace", &log, "--out", "{out}",
            ],
            &want,
        );
    }
    // At the limit, every time is still exact.
    let edge = s(&write(
        d,
        "edge.swf",
        &format!(
            "{LOG}4 1000000000000 0 1000000000000 1 -1 -1 1 1000000000000 -1 1 1 1 -1 1 -1 -1 -1\n"
        ),
    ));
    let csv = accepted(
        d,
        &[
            "replay", "--policy", "easy", "--trace", &edge, "--out", "{out}",
        ],
    );
    assert!(
        csv.lines().last().unwrap().contains(",2000000000000,"),
        "{csv}"
    );
    let csv = accepted(d, &["coalloc", "--trace", &edge, "--out", "{out}"]);
    assert!(
        csv.lines()
            .last()
            .unwrap()
            .starts_with("4,1000000000000,1000000000000,1000000000000,"),
        "{csv}"
    );
}

#[test]
fn coalloc_refuses_server_and_quantum_counts_its_index_cannot_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = s(&write(d, "small.swf", LOG));
    let huge = s(&write(
        d,
        "huge.swf",
        &LOG.replace("MaxProcs: 6", "MaxProcs: 2147483648"),
    ));
    // 2^31 servers aborted after trying to allocate about 100 GB.
    refused(
        d,
        &[
            "coalloc",
            "--trace",
            &log,
            "--servers",
            "2147483648",
            "--out",
            "{out}",
        ],
        "--servers 2147483648 is too large: the index holds at most 16777216 servers",
    );
    refused(
        d,
        &["coalloc", "--trace", &huge, "--out", "{out}"],
        &format!(
            "{huge}:2: MaxProcs 2147483648 is too large: the index holds at most 16777216 servers"
        ),
    );
    refused(
        d,
        &[
            "coalloc",
            "--trace",
            &log,
            "--servers",
            "1048577",
            "--range-tree",
            "64",
            "--out",
            "{out}",
        ],
        "--servers 1048577 is too large: with --range-tree the index holds at most 1048576 servers",
    );
    // 8.64e9 one-second quanta tried to allocate 550 GB.
    refused(
        d,
        &[
            "coalloc",
            "--trace",
            &log,
            "--horizon",
            "100000d",
            "--quantum",
            "1s",
            "--out",
            "{out}",
        ],
        "is 8640000000 quanta: at most 65536",
    );
    // The duration parser said "at least 1 s" of a duration too large (clap's usage error).
    let o = gridsched(&[
        "coalloc",
        "--trace",
        &log,
        "--horizon",
        "106751991167300d",
        "--out",
        &s(&d.join("out.csv")),
    ]);
    let err = text(&o.stderr);
    assert!(
        err.contains("`106751991167300d` is too large: a duration must be at most 10^12 s"),
        "{err}"
    );
    assert!(!err.contains("at least 1 s"), "{err}");
    assert!(!d.join("out.csv").exists());
    // At the limits.
    accepted(
        d,
        &[
            "coalloc",
            "--trace",
            &log,
            "--horizon",
            "65536s",
            "--quantum",
            "1s",
            "--out",
            "{out}",
        ],
    );
    accepted(
        d,
        &[
            "coalloc",
            "--trace",
            &log,
            "--servers",
            "1048576",
            "--out",
            "{out}",
        ],
    );
}

#[test]
fn schedule_reservation_refuses_a_look_ahead_of_too_many_strips() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let req = s(&write(
        d,
        "req.csv",
        "id,arrival,ready,length,deadline\na,0,0,5,20\nb,1,2,3,10\n",
    ));
    let run = |extra: &[&str]| {
        let mut a = vec![
            "schedule",
            "reservation",
            "--servers",
            "2",
            "--requests",
            &req,
            "--out",
            "{out}",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    // A ring panic, a capacity overflow, a 73 GB allocation and a run that never ended.
    for (extra, want) in [
        (
            &["--strategy", "min-lip", "--l-min", "1e-20"][..],
            "--horizon 200 is 1e22 strips of 2 x --strip-multiplier 1 x --l-min 1e-20: min-lip on the tree index keeps at most 4194302",
        ),
        (
            &["--strategy", "min-lip", "--horizon", "1e18"],
            "--horizon 1e18 is 5e17 strips",
        ),
        (
            &["--strategy", "min-tip", "--horizon", "1e9"],
            "--horizon 1000000000 is 500000000 strips",
        ),
        (
            &["--strategy", "min-lip", "--l-min", "1e-6"],
            "use a larger --l-min or --strip-multiplier, a shorter --horizon, or --index linear",
        ),
    ] {
        let args = run(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(d, &args, want);
    }
    // Strategies without a strip ring, and the linear index, take any look-ahead.
    for extra in [
        &["--strategy", "first-fit", "--horizon", "1e18"][..],
        &[
            "--strategy",
            "min-lip",
            "--horizon",
            "1e9",
            "--index",
            "linear",
        ],
    ] {
        let args = run(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let csv = accepted(d, &args);
        assert_eq!(csv.lines().count(), 3, "{csv}");
    }
}

#[test]
fn huge_segment_task_resource_and_population_counts_do_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let etc = s(&write(d, "etc.csv", "m0,m1\n3,1\n2,5\n4,4\n"));
    // Segments: any number maps every task (the empty segments are skipped, not allocated).
    for h in ["sas", "sas-seq", "segmented-min-min"] {
        let o = gridsched(&[
            "map",
            "--heuristic",
            h,
            "--segments",
            "18446744073709551615",
            "--etc",
            &etc,
            "--schedule",
            "-",
        ]);
        assert!(o.status.success(), "{h}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout).lines().count(), 4, "{h}");
    }
    // Kumar's generator says "too large" as Braun's does.
    for opt in ["--tasks", "--resources"] {
        refused(
            d,
            &[
                "map",
                "generate",
                "--model",
                "kumar",
                opt,
                "18446744073709551615",
                "--out",
                "{out}",
            ],
            "is too large",
        );
    }
    let log = s(&write(d, "small.swf", LOG));
    refused(
        d,
        &[
            "provision",
            "--workflow",
            "synthetic",
            "--tasks",
            "3",
            "--trace",
            &log,
            "--at",
            "10",
            "--population",
            "18446744073709551615",
            "--out",
            "{out}",
        ],
        "--population 18446744073709551615 is too large: at most 10000",
    );
}

/// Values the models cannot represent gave wrong numbers with exit code 0: now each is refused
/// with its limit in the message.
#[test]
fn values_beyond_what_the_models_represent_are_refused_not_clamped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = s(&write(d, "small.swf", LOG));
    // A DAX task of 1e300 s: negative end times and costs.
    let dax = s(&write(
        d,
        "t.dax",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"t\">\n\
         <job id=\"ID0\" namespace=\"x\" name=\"a\" version=\"1.0\" runtime=\"10\"/>\n\
         <job id=\"ID1\" namespace=\"x\" name=\"b\" version=\"1.0\" runtime=\"1e300\"/>\n\
         </adag>\n",
    ));
    refused(
        d,
        &[
            "provision",
            "--workflow",
            &dax,
            "--trace",
            &log,
            "--at",
            "10",
            "--out",
            "{out}",
        ],
        &format!("{dax}:4:1 (byte 177): task \"ID1\": runtime 1e300 s is beyond 10^12 s"),
    );
    // grid: a length of 1e300 was cut, a submit of 1e300 never ran.
    let machines = s(&write(d, "machines.csv", "id,cpus,speed\na,4,200\n"));
    for (row, want) in [
        ("1,0,2,1e300", "job 1: length 1e300 s is beyond 10^12 s"),
        (
            "1,1e300,2,10",
            "job 1: submit time 1e300 s is beyond 10^12 s",
        ),
    ] {
        let jobs = s(&write(
            d,
            "jobs.csv",
            &format!("id,submit,cpus,length\n{row}\n"),
        ));
        refused(
            d,
            &[
                "grid",
                "--policy",
                "eg-edf",
                "--machines",
                &machines,
                "--jobs",
                &jobs,
                "--out",
                "{out}",
            ],
            &format!("{jobs}:2: {want}"),
        );
    }
    // grid generate --tau 1e300 wrote negative deadlines.
    let gen_dir = d.join("gen");
    let o = gridsched(&[
        "grid",
        "generate",
        "--tau",
        "1e300",
        "--out-dir",
        &s(&gen_dir),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--tau 1e300: job 1 would be submitted or due after 10^12 s"),
        "{err}"
    );
    assert!(!gen_dir.join("jobs.csv").exists());
    // slots --horizon-h 1e300 advertised 0.08 h.
    refused(
        d,
        &[
            "slots",
            "--trace",
            &log,
            "--at",
            "10",
            "--horizon-h",
            "1e300",
            "--out",
            "{out}",
        ],
        "--horizon-h 1e300 is too large: at most 277777777 h, 10^12 s",
    );
    // schedule reservation: an arrival of 1e17 with a length of 5 booked start == end.
    let req = s(&write(
        d,
        "req.csv",
        "id,arrival,ready,length,deadline\na,0,0,5,20\nb,1e17,1e17,5,1e17\n",
    ));
    refused(
        d,
        &[
            "schedule",
            "reservation",
            "--strategy",
            "first-fit",
            "--servers",
            "2",
            "--horizon",
            "1e18",
            "--requests",
            &req,
            "--out",
            "{out}",
        ],
        &format!("{req}:3: request `b`: time 100000000000000000 is beyond 2^32 × the length 5"),
    );
    // hierarchy --think-hours 1e15 was clamped to u64::MAX ms.
    refused(
        d,
        &[
            "hierarchy",
            "--jobs",
            "10",
            "--size",
            "1GB",
            "--experiment",
            "3",
            "--think-hours",
            "1e15",
            "--out",
            "{out}",
        ],
        "--think-hours 1e15 is too large: at most 1000000 h",
    );
    // price --duration 106751991167300d (i64::MAX s) priced 0: a usage error now (clap's).
    let o = gridsched(&[
        "price",
        "--trace",
        &log,
        "--at",
        "10",
        "--procs",
        "1",
        "--duration",
        "106751991167300d",
        "--out",
        &s(&d.join("out.csv")),
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("`106751991167300d` is too large: a time must be at most 10^12 s"),
        "{err}"
    );
    assert!(!d.join("out.csv").exists());
}
