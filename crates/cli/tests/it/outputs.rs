//! Where outputs go, end to end: `/dev/stdout` and other open descriptors written to their
//! stream, outputs that would destroy an input or each other refused before any work, all or
//! nothing across files and devices, reports that never panic on a full device or a closed
//! pipe, and inputs read once.
#![cfg(unix)]

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{gridsched, text};

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
// ---------------------------------------------------------------------------------------------
// 2. an output that is an input is refused before any work

fn writable(device: &str) -> bool {
    std::fs::OpenOptions::new().write(true).open(device).is_ok()
}

fn fixtures(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let write = |name: &'static str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        (name, p)
    };
    vec![
        write("site.swf", LOG),
        write("m.csv", "id,cpus,speed\nfast,8,400\nslow,4,200\n"),
        write("j.csv", "id,submit,cpus,length\n1,0,2,10\n2,5,4,20\n"),
        write(
            "r.csv",
            "id,arrival,ready,length,deadline\na,0,1,2,10\nb,1,2,3,20\n",
        ),
        write("rates.txt", "1\n0.5\n"),
        write("etc.csv", "R1,R2\n1,2\n3,4\n5,1\n"),
        write(
            "wf.xml",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\">\n\
             \x20 <job id=\"A\" name=\"a\" runtime=\"60\"/>\n\
             \x20 <job id=\"B\" name=\"b\" runtime=\"60\"/>\n\
             \x20 <child ref=\"B\">\n    <parent ref=\"A\"/>\n  </child>\n</adag>\n",
        ),
    ]
}

/// Every command that reads a file, with one of its inputs given again as its output: each
/// command would run (these are valid inputs), so without the check the input would be
/// replaced by the output.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures(dir.path());
    let f = |name: &str| s(&files.iter().find(|(n, _)| *n == name).unwrap().1).to_string();
    let (swf, m, j, r, rates, etc, wf) = (
        f("site.swf"),
        f("m.csv"),
        f("j.csv"),
        f("r.csv"),
        f("rates.txt"),
        f("etc.csv"),
        f("wf.xml"),
    );
    let strings = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // (command line, the input given as an output)
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            strings(&["trace", "convert", &swf, "--out", &swf]),
            "site.swf",
        ),
        (
            strings(&[
                "trace", "convert", "--trace", &swf, "--to", "requests", "--out", &swf,
            ]),
            "site.swf",
        ),
        (
            strings(&["replay", "--policy", "easy", "--trace", &swf, "--out", &swf]),
            "site.swf",
        ),
        (
            strings(&[
                "replay",
                "--policy",
                "easy",
                "--trace",
                &swf,
                "--out",
                "x.csv",
                "--summary-json",
                &swf,
            ]),
            "site.swf",
        ),
        (
            strings(&["coalloc", "--trace", &swf, "--out", &swf]),
            "site.swf",
        ),
        (
            strings(&["slots", "--trace", &swf, "--at", "1h", "--out", &swf]),
            "site.swf",
        ),
        (
            strings(&[
                "price",
                "--trace",
                &swf,
                "--at",
                "1h",
                "--procs",
                "1",
                "--duration",
                "1h",
                "--out",
                &swf,
            ]),
            "site.swf",
        ),
        (
            strings(&[
                "provision",
                "--workflow",
                &wf,
                "--trace",
                &swf,
                "--at",
                "1h",
                "--population",
                "4",
                "--generations",
                "1",
                "--out",
                &wf,
            ]),
            "wf.xml",
        ),
        (
            strings(&[
                "provision",
                "--workflow",
                &wf,
                "--trace",
                &swf,
                "--at",
                "1h",
                "--population",
                "4",
                "--generations",
                "1",
                "--out",
                "x.csv",
                "--slots-out",
                &swf,
            ]),
            "site.swf",
        ),
        (
            strings(&[
                "grid",
                "--policy",
                "eg-edf",
                "--machines",
                &m,
                "--jobs",
                &j,
                "--out",
                &m,
            ]),
            "m.csv",
        ),
        (
            strings(&[
                "grid",
                "--policy",
                "eg-edf",
                "--machines",
                &m,
                "--jobs",
                &j,
                "--out",
                &j,
            ]),
            "j.csv",
        ),
        (
            strings(&[
                "grid",
                "--policy",
                "eg-edf",
                "--machines",
                &m,
                "--jobs",
                &j,
                "--out",
                "x.csv",
                "--summary-json",
                &j,
            ]),
            "j.csv",
        ),
        (
            strings(&[
                "schedule",
                "reservation",
                "--strategy",
                "first-fit",
                "--servers",
                "2",
                "--requests",
                &r,
                "--out",
                &r,
            ]),
            "r.csv",
        ),
        (
            strings(&[
                "schedule",
                "hetero",
                "--algorithm",
                "ff-ha",
                "--rates",
                "1,0.5",
                "--requests",
                &r,
                "--out",
                &r,
            ]),
            "r.csv",
        ),
        (
            strings(&[
                "schedule",
                "hetero",
                "--algorithm",
                "ff-ha",
                "--rates-file",
                &rates,
                "--requests",
                &r,
                "--out",
                &rates,
            ]),
            "rates.txt",
        ),
        (
            strings(&[
                "map",
                "--heuristic",
                "min-min",
                "--etc",
                &etc,
                "--schedule",
                &etc,
            ]),
            "etc.csv",
        ),
    ];
    for (args, victim) in &cases {
        let before: Vec<Vec<u8>> = files
            .iter()
            .map(|(_, p)| std::fs::read(p).unwrap())
            .collect();
        let o = Command::new(BIN)
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("same file") && err.matches(victim).count() >= 2,
            "{args:?}: the error names the output and the input: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let after: Vec<Vec<u8>> = files
            .iter()
            .map(|(_, p)| std::fs::read(p).unwrap())
            .collect();
        assert!(before == after, "{args:?}: an input changed");
        assert!(!dir.path().join("x.csv").exists(), "{args:?}: no output");
        assert!(leftovers(dir.path()).is_empty(), "{args:?}");
    }
    // The same file under another name: relative, through a symbolic link, a hard link.
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&swf, &link).unwrap();
    let hard = dir.path().join("hard.csv");
    std::fs::hard_link(&swf, &hard).unwrap();
    for out in ["./site.swf", "link.csv", "hard.csv"] {
        let o = Command::new(BIN)
            .current_dir(dir.path())
            .args(["trace", "convert", "site.swf", "--out", out])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{out}");
        assert!(
            text(&o.stderr).contains("same file"),
            "{out}: {}",
            text(&o.stderr)
        );
        assert_eq!(std::fs::read_to_string(&swf).unwrap(), LOG, "{out}");
    }
    // Devices are not files to protect: a log read from standard input, written to /dev/null.
    if writable("/dev/null") {
        let mut child = Command::new(BIN)
            .args(["trace", "convert", "/dev/stdin", "--out", "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(LOG.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
}

// ---------------------------------------------------------------------------------------------
// 3. two outputs of one command with one path

#[test]
fn two_outputs_with_one_path_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures(dir.path());
    let f = |name: &str| s(&files.iter().find(|(n, _)| *n == name).unwrap().1).to_string();
    let (swf, m, j, wf) = (f("site.swf"), f("m.csv"), f("j.csv"), f("wf.xml"));
    let same = dir.path().join("s.out");
    let link = dir.path().join("s.link");
    std::os::unix::fs::symlink("s.out", &link).unwrap();
    for existing in [false, true] {
        if existing {
            std::fs::write(&same, "KEEP\n").unwrap();
        }
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (
                vec![
                    "replay",
                    "--policy",
                    "easy",
                    "--trace",
                    &swf,
                    "--out",
                    "s.out",
                    "--summary-json",
                    "s.out",
                ],
                "--out and --summary-json",
            ),
            (
                vec![
                    "replay",
                    "--policy",
                    "easy",
                    "--trace",
                    &swf,
                    "--out",
                    "s.out",
                    "--summary-json",
                    "./s.out",
                ],
                "--out and --summary-json",
            ),
            (
                vec![
                    "replay",
                    "--policy",
                    "easy",
                    "--trace",
                    &swf,
                    "--out",
                    "s.link",
                    "--summary-json",
                    "s.out",
                ],
                "--out and --summary-json",
            ),
            (
                vec![
                    "grid",
                    "--policy",
                    "eg-edf",
                    "--machines",
                    &m,
                    "--jobs",
                    &j,
                    "--out",
                    "s.out",
                    "--summary-json",
                    "s.out",
                ],
                "--out and --summary-json",
            ),
            (
                vec![
                    "provision",
                    "--workflow",
                    &wf,
                    "--trace",
                    &swf,
                    "--at",
                    "1h",
                    "--population",
                    "4",
                    "--generations",
                    "1",
                    "--out",
                    "s.out",
                    "--slots-out",
                    "s.out",
                ],
                "--out and --slots-out",
            ),
        ];
        for (args, want) in cases {
            let o = Command::new(BIN)
                .current_dir(dir.path())
                .args(&args)
                .output()
                .unwrap();
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains(want) && err.contains("s.out"),
                "{args:?}: {err}"
            );
            if existing {
                assert_eq!(
                    std::fs::read_to_string(&same).unwrap(),
                    "KEEP\n",
                    "{args:?}"
                );
            } else {
                assert!(!same.exists(), "{args:?}");
            }
            assert!(leftovers(dir.path()).is_empty(), "{args:?}");
        }
    }
    // A device may be given twice.
    if writable("/dev/null") {
        let o = gridsched(&[
            "replay",
            "--policy",
            "easy",
            "--trace",
            &swf,
            "--out",
            "/dev/null",
            "--summary-json",
            "/dev/null",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
}
// ---------------------------------------------------------------------------------------------
// 4. all or nothing across files and devices

#[test]
fn a_failing_device_leaves_every_file_untouched() {
    if !writable("/dev/full") {
        eprintln!("NOTICE: no writable /dev/full; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures(dir.path());
    let f = |name: &str| s(&files.iter().find(|(n, _)| *n == name).unwrap().1).to_string();
    let (swf, m, j, wf) = (f("site.swf"), f("m.csv"), f("j.csv"), f("wf.xml"));
    let keep = dir.path().join("p.csv");
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "replay",
            "--policy",
            "easy",
            "--trace",
            &swf,
            "--out",
            "p.csv",
            "--summary-json",
            "/dev/full",
        ],
        vec![
            "replay",
            "--policy",
            "easy",
            "--trace",
            &swf,
            "--out",
            "/dev/full",
            "--summary-json",
            "p.csv",
        ],
        vec![
            "grid",
            "--policy",
            "eg-edf",
            "--machines",
            &m,
            "--jobs",
            &j,
            "--out",
            "p.csv",
            "--summary-json",
            "/dev/full",
        ],
        vec![
            "provision",
            "--workflow",
            &wf,
            "--trace",
            &swf,
            "--at",
            "1h",
            "--population",
            "4",
            "--generations",
            "1",
            "--out",
            "p.csv",
            "--slots-out",
            "/dev/full",
        ],
    ];
    for args in cases {
        std::fs::write(&keep, "KEEP\n").unwrap();
        let o = Command::new(BIN)
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("/dev/full"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(&keep).unwrap(),
            "KEEP\n",
            "{args:?}: p.csv was replaced although /dev/full failed"
        );
        assert!(leftovers(dir.path()).is_empty(), "{args:?}");
    }
}
// ---------------------------------------------------------------------------------------------
// 8. success is reported only after the write

#[test]
fn trace_convert_reports_success_only_after_writing() {
    if !writable("/dev/full") {
        eprintln!("NOTICE: no writable /dev/full; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    for to in ["jobs", "requests"] {
        let o = gridsched(&[
            "trace",
            "convert",
            s(&swf),
            "--to",
            to,
            "--out",
            "/dev/full",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{to}: {err}");
        assert!(err.contains("/dev/full"), "{to}: {err}");
        assert!(
            !err.contains(&format!("{to} written")),
            "{to}: success reported: {err}"
        );
    }
}

/// A valid run still says what it wrote, after writing it.
#[test]
fn trace_convert_reports_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    let out = dir.path().join("jobs.csv");
    let o = gridsched(&["trace", "convert", s(&swf), "--out", s(&out)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("4 jobs written (4 records, 0 skipped)"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("id,submit,")
    );
}
// ---------------------------------------------------------------------------------------------
// 5. `report` and `bench-report`: no panic on standard output, their note off it

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `report` and `bench-report` with their note going to `stdout`.
fn reports(dir: &Path) -> Vec<Command> {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("data")).unwrap();
    let criterion = dir.join("criterion");
    std::fs::create_dir_all(&criterion).unwrap();
    let mut report = Command::new(BIN);
    report.args(["report", "--root", s(&root), "--out", s(&dir.join("R.md"))]);
    let mut bench = Command::new(BIN);
    bench.args([
        "bench-report",
        "--root",
        s(&repo_root()),
        "--criterion-dir",
        s(&criterion),
        "--figures",
        s(&dir.join("figures")),
        "--out",
        s(&dir.join("B.md")),
    ]);
    vec![report, bench]
}

#[test]
fn reports_on_a_full_device_fail_and_on_a_closed_pipe_end_quietly() {
    let dir = tempfile::tempdir().unwrap();
    if writable("/dev/full") {
        for mut cmd in reports(dir.path()) {
            let o = cmd
                .stdout(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open("/dev/full")
                        .unwrap(),
                )
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{cmd:?}: {err}");
            assert!(!err.contains("panicked"), "{cmd:?}: {err}");
            assert!(err.contains("standard output"), "{cmd:?}: {err}");
        }
    }
    for mut cmd in reports(dir.path()) {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = text(&o.stderr);
        assert!(o.status.success(), "{cmd:?}: {err}");
        assert!(!err.contains("panicked"), "{cmd:?}: {err}");
    }
}

/// `--out -`: the document alone on standard output, the note on standard error.
#[test]
fn reports_to_standard_output_keep_their_note_off_it() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in reports(dir.path()) {
        let mut args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        *args.last_mut().unwrap() = "-".into();
        let o = Command::new(BIN)
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(out.starts_with("# "), "{args:?}: {out}");
        assert!(
            !out.contains("wrote "),
            "{args:?}: the note is on stdout: {out}"
        );
        assert!(!dir.path().join("-").exists(), "{args:?}");
        assert!(err.contains("wrote "), "{args:?}: {err}");
    }
}
// ---------------------------------------------------------------------------------------------
// 6. `bench-report` does not read a device

/// Runs `cmd` with standard output and error in files; `None` (after killing it) if it has
/// not ended within `secs` seconds.
fn run_for(
    cmd: &mut Command,
    dir: &Path,
    secs: u64,
) -> Option<(std::process::ExitStatus, String, String)> {
    let (out, err) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let read = |p: &Path| text(&std::fs::read(p).unwrap());
            return Some((status, read(&out), read(&err)));
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `bench-report --out /dev/full` used to read the device to splice its sections into it,
/// forever. Run under a memory limit, so that a regression fails instead of eating the machine.
#[test]
fn bench_report_does_not_read_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let criterion = dir.path().join("criterion");
    std::fs::create_dir_all(&criterion).unwrap();
    for (device, ok) in [("/dev/full", false), ("/dev/null", true)] {
        if !writable(device) {
            continue;
        }
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("ulimit -v 4000000 2>/dev/null; exec \"$@\"")
            .arg("sh")
            .args([BIN, "bench-report", "--root", s(&repo_root())])
            .args(["--criterion-dir", s(&criterion)])
            .args(["--figures", s(&dir.path().join("figures")), "--out", device]);
        let (status, _, err) =
            run_for(&mut cmd, dir.path(), 60).unwrap_or_else(|| panic!("{device}: still running"));
        assert_eq!(status.success(), ok, "{device}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("memory"),
            "{device}: {err}"
        );
        if !ok {
            assert_eq!(status.code(), Some(1), "{device}: {err}");
            assert!(err.contains(device), "{device}: {err}");
        }
    }
}

/// `bench-report --out -` starts from an empty document: a file named `-` in the current
/// directory is neither read (its markers would be an error) nor written.
#[test]
fn bench_report_to_standard_output_reads_no_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let criterion = dir.path().join("criterion");
    std::fs::create_dir_all(&criterion).unwrap();
    let junk = "<!-- bench:end -->\nnot a document\n";
    std::fs::write(dir.path().join("-"), junk).unwrap();
    let o = Command::new(BIN)
        .current_dir(dir.path())
        .args(["bench-report", "--root", s(&repo_root())])
        .args(["--criterion-dir", s(&criterion), "--figures", "figures"])
        .args(["--out", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with("# Benchmarks\n"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("-")).unwrap(), junk);
}
// ---------------------------------------------------------------------------------------------
// 7. `trace info` reads its input once

/// The lines of `trace info` but the first (the file's name).
fn info_body(stdout: &str) -> String {
    stdout.lines().skip(1).collect::<Vec<_>>().join("\n")
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn trace_info_reads_standard_input_once() {
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    let plain = gridsched(&["trace", "info", s(&swf)]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let want = info_body(&text(&plain.stdout));
    assert!(want.contains("sha256:"), "{want}");
    // The hash is the whole file's, whatever --limit keeps.
    let limited = gridsched(&["trace", "info", s(&swf), "--limit", "1"]);
    assert!(limited.status.success(), "{}", text(&limited.stderr));
    let sha = |o: &str| {
        o.lines()
            .find(|l| l.starts_with("sha256:"))
            .unwrap()
            .to_string()
    };
    assert_eq!(sha(&text(&limited.stdout)), sha(&want));

    // Standard input from a pipe.
    let mut child = Command::new(BIN)
        .args(["trace", "info", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(LOG.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(info_body(&text(&o.stdout)), want, "from a pipe");
}

/// A named pipe, written once.
#[test]
fn trace_info_reads_a_fifo_once() {
    let dir = tempfile::tempdir().unwrap();
    let swf = log(dir.path());
    let plain = gridsched(&["trace", "info", s(&swf)]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let want = info_body(&text(&plain.stdout));
    let fifo = dir.path().join("log.fifo");
    if !mkfifo(&fifo) {
        eprintln!("NOTICE: mkfifo unavailable; skipping the FIFO");
        return;
    }
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, LOG).unwrap())
    };
    let mut cmd = Command::new(BIN);
    cmd.args(["trace", "info", s(&fifo)]);
    let ran = run_for(&mut cmd, dir.path(), 30);
    if !writer.is_finished() {
        // Nobody opened the FIFO: open it here so that the writer ends.
        drop(std::fs::File::open(&fifo));
    }
    writer.join().unwrap();
    let (status, out, err) = ran.expect("trace info on a FIFO still waiting after 30 s");
    assert!(status.success(), "{err}");
    assert_eq!(info_body(&out), want, "from a FIFO");
}
