//! The commands that read a whole log hold none of its jobs when it is a file in submit order
//! with rising job numbers (they read it as a stream), load it whole when it is not (a second
//! read of the file), and always load a pipe whole. The three ways must write the same bytes
//! and say the same things (docs/benchmarks.md, "Huge logs in bounded memory").

#![cfg(unix)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gridsched");

/// A log of `n` jobs on 16 processors, in submit order with rising job numbers.
fn log_text(n: u64) -> String {
    let mut x = 35u64;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let mut text = String::from("; Version: 2.2\n; MaxProcs: 16\n;\n");
    let mut t = 0;
    for id in 1..=n {
        t += next(40);
        let procs = 1 + next(16);
        let run = 1 + next(600);
        let req = run + next(600);
        text.push_str(&format!(
            "{id} {t} {} {run} {procs} -1 -1 {procs} {req} -1 1 {} 1 -1 1 -1 -1 -1\n",
            next(100),
            1 + next(9)
        ));
    }
    text
}

/// `args` with the log given as a file, and through a pipe (a link named like the file to
/// `/dev/stdin`, since `replay` names the workload after the file); the outputs (the file after
/// `--out`) and standard errors of both.
fn both_ways(dir: &Path, log: &str, args: &[&str]) -> [(Vec<u8>, String); 2] {
    let file = dir.join("log.swf");
    std::fs::write(&file, log).unwrap();
    let pipe = dir.join("pipe").join("log.swf");
    if !pipe.exists() {
        std::fs::create_dir_all(pipe.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/stdin", &pipe).unwrap();
    }
    let run = |trace: &Path, stdin: Option<&str>, out: &Path| {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .arg("--trace")
            .arg(trace)
            .arg("--out")
            .arg(out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let mut child = cmd.spawn().expect("run gridsched");
        if let Some(text) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            pipe.write_all(text.as_bytes()).unwrap();
        }
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{args:?}: {err}");
        // Timings and the input's name differ between the runs; the rest must not.
        let err: Vec<&str> = err
            .lines()
            .filter(|l| !l.contains(" took ") && !l.starts_with("read "))
            .collect();
        let err = err
            .join("\n")
            .replace(trace.to_str().unwrap(), "LOG")
            .replace(out.to_str().unwrap(), "OUT");
        (std::fs::read(out).unwrap(), err)
    };
    [
        run(&file, None, &dir.join("from-file.csv")),
        run(&pipe, Some(log), &dir.join("from-pipe.csv")),
    ]
}

#[test]
fn a_log_read_as_a_stream_gives_what_the_whole_log_gives() {
    let dir = tempfile::tempdir().unwrap();
    let plain = log_text(3000);
    // Two jobs out of submit order and a repeated job number: the load sorts and renumbers.
    let mut lines: Vec<String> = plain.lines().map(str::to_string).collect();
    lines.swap(100, 101);
    lines[200] = lines[200].replacen("198 ", "197 ", 1);
    let unordered = lines.join("\n") + "\n";
    assert_ne!(plain, unordered);
    let commands: [&[&str]; 4] = [
        &["replay", "--policy", "easy"],
        &["coalloc", "--quantum", "60", "--horizon", "3h"],
        &["trace", "convert"],
        &["trace", "convert", "--to", "requests", "--slack", "1"],
    ];
    for log in [&plain, &unordered] {
        for args in commands {
            let [file, pipe] = both_ways(dir.path(), log, args);
            assert!(file.0.len() > 3000 * 20, "{args:?}: {} bytes", file.0.len());
            assert!(file == pipe, "{args:?}: a file and a pipe differ");
            if std::ptr::eq(log, &unordered) {
                assert!(
                    file.1.contains("repeat an earlier job number"),
                    "{args:?}: {}",
                    file.1
                );
            }
        }
    }
}

/// A log simulated while it is read has no separate simulation time to report: the note
/// gives the time of both together, not a rate over the simulation's last instants (it
/// printed "simulated 0.000 s (101334165834 jobs/s)"); a log loaded whole keeps both times.
#[test]
fn the_timing_note_of_a_streamed_replay_does_not_invent_a_rate() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.swf");
    std::fs::write(&log, log_text(2000)).unwrap();
    let note = |trace: &Path| {
        let o = Command::new(BIN)
            .args(["replay", "--policy", "easy", "--trace"])
            .arg(trace)
            .arg("--out")
            .arg(dir.path().join("jobs.csv"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success());
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        err.lines()
            .find(|l| l.starts_with("read "))
            .unwrap_or_else(|| panic!("no timing note in {err}"))
            .to_string()
    };
    let streamed = note(&log);
    assert!(
        streamed.starts_with("read and simulated ") && !streamed.contains(", simulated"),
        "{streamed}"
    );
    // Out of submit order: loaded whole, then simulated.
    let mut lines: Vec<String> = log_text(2000).lines().map(str::to_string).collect();
    lines.swap(100, 101);
    let shuffled = dir.path().join("shuffled.swf");
    std::fs::write(&shuffled, lines.join("\n") + "\n").unwrap();
    let whole = note(&shuffled);
    assert!(whole.contains(", simulated "), "{whole}");
}
