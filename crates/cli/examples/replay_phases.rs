//! `gridsched replay` phase by phase against `zcat` of the same log, in one run (issue 32,
//! item 4; docs/benchmarks.md, "Replay I/O against zcat"):
//!
//! `cargo run --release -p gridsched --example replay_phases -- TRACE [REPS] [POLICY]`
//!
//! TRACE is an SWF log (a path or a short name such as HPC2N). Every repetition runs, in turn:
//!
//! - `zcat`: `zcat TRACE > /dev/null` as a child process (wall time; CPU time from the
//!   children's times in `/proc/self/stat`, 10 ms ticks);
//! - `inflate`: the log decompressed by the library, nothing parsed;
//! - `read`: `load_swf` + `trace_jobs` (the whole log read, nothing simulated);
//! - `simulate`: the simulator built from the jobs and run to the end, outcomes collected;
//! - `read+simulate`: what `replay` does: `read_while_simulating` (the log parsed on a second
//!   thread while the simulator runs on this one), run to the end, outcomes collected;
//! - `format`: the Batsim jobs CSV into a sink (formatting only, one thread);
//! - `write`: what `replay` does after simulating: the audit and the summary on a second
//!   thread, the jobs CSV (rows formatted on two threads) through the atomic writer into a
//!   file in the temporary directory.
//!
//! `ONLY=read` (or `ONLY=format`) runs that phase alone `REPS` times and prints only its best CPU
//! time (for a profiler).
//!
//! For each phase it prints the best and the median wall time and process CPU time (all
//! threads: `CLOCK_PROCESS_CPUTIME_ID`), the median CPU time of the calling thread alone
//! (the critical path when helper threads overlap it), and the ratio of the best wall time to
//! zcat's.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use cpu_time::{ProcessTime, ThreadTime};
use gridsched_batch::{
    Config, Estimates, Platform, Policy, Simulator, Summary, audit,
    swf::{read_while_simulating, trace_jobs},
    write_batsim_csv, write_batsim_csv_parallel,
};
use gridsched_workload::swf::{
    SwfLoadOptions, SwfReader, data_dir, load_swf, open_input, trace_path,
};

/// Children's user + system time in seconds (`/proc/self/stat` fields 16 and 17).
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name (which may hold spaces) start at field 3.
    let rest = &stat[stat.rfind(')').expect("stat") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[13].parse::<f64>().unwrap() + f[14].parse::<f64>().unwrap();
    ticks / 100.0
}

#[derive(Default)]
struct Times {
    wall: Vec<f64>,
    cpu: Vec<f64>,
    /// CPU time of the calling thread alone (the rest ran on helper threads).
    own: Vec<f64>,
}

impl Times {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (c0, t0, w0) = (ProcessTime::now(), ThreadTime::now(), Instant::now());
        let v = f();
        self.wall.push(w0.elapsed().as_secs_f64());
        self.cpu.push(c0.elapsed().as_secs_f64());
        self.own.push(t0.elapsed().as_secs_f64());
        v
    }
}

fn best_median(v: &[f64]) -> (f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[0], s[s.len() / 2])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let trace = trace_path(
        &data_dir(None),
        args.first().map_or("HPC2N", String::as_str),
    );
    let reps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(7);
    let policy = Policy::parse(args.get(2).map_or("easy", String::as_str)).expect("policy");
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("temp dir");
    let out = dir.path().join("jobs.csv");
    let names = [
        "zcat",
        "inflate",
        "read",
        "simulate",
        "read+simulate",
        "format",
        "write",
    ];
    let mut t: Vec<Times> = names.iter().map(|_| Times::default()).collect();
    let mut jobs = 0;
    let only = std::env::var("ONLY").ok();
    if only.as_deref() == Some("read") {
        // For a profiler: the read phase alone, `reps` times.
        let mut t = Times::default();
        for _ in 0..reps {
            t.time(|| {
                let log = load_swf(&trace, SwfLoadOptions::default()).expect("log");
                let procs = log.header.max_procs.expect("MaxProcs") as u32;
                std::hint::black_box(trace_jobs(&log, procs));
            });
        }
        println!(
            "read: best CPU {:.1} ms, main thread {:.1} ms",
            best_median(&t.cpu).0 * 1e3,
            best_median(&t.own).0 * 1e3
        );
        return;
    }
    if only.as_deref() == Some("format") {
        let log = load_swf(&trace, SwfLoadOptions::default()).expect("log");
        let procs = log.header.max_procs.expect("MaxProcs") as u32;
        let platform = Platform::cluster(procs).unwrap();
        let config = Config::new(policy).check_invariants(false);
        let mut sim =
            Simulator::with_jobs(platform.clone(), config, trace_jobs(&log, procs).jobs).unwrap();
        sim.run();
        let outcomes: Vec<_> = sim.outcomes().collect();
        let mut t = Times::default();
        for _ in 0..reps {
            t.time(|| {
                write_batsim_csv(std::io::sink(), &outcomes, &platform, "trace").expect("format")
            });
        }
        println!("format: best CPU {:.1} ms", best_median(&t.cpu).0 * 1e3);
        return;
    }
    for _ in 0..reps {
        let c0 = children_cpu();
        t[0].time(|| {
            let s = std::process::Command::new("zcat")
                .arg(&trace)
                .stdout(std::process::Stdio::null())
                .status()
                .expect("zcat");
            assert!(s.success());
        });
        *t[0].cpu.last_mut().unwrap() = children_cpu() - c0;
        *t[0].own.last_mut().unwrap() = children_cpu() - c0;
        t[1].time(|| {
            let mut input = open_input(&trace).expect("open");
            let mut buf = vec![0u8; 1 << 16];
            while input.read(&mut buf).expect("read") > 0 {}
        });
        let (procs, tj) = t[2].time(|| {
            let log = load_swf(&trace, SwfLoadOptions::default()).expect("log");
            let procs = log.header.max_procs.expect("MaxProcs") as u32;
            (procs, trace_jobs(&log, procs))
        });
        jobs = tj.jobs.len();
        let platform = Platform::cluster(procs).unwrap();
        let estimates = Estimates::Requested;
        let config = Config::new(policy)
            .estimates(estimates)
            .check_invariants(false);
        let outcomes = t[3].time(|| {
            let mut sim = Simulator::with_jobs(platform.clone(), config, tj.jobs).unwrap();
            sim.run();
            sim.outcomes().collect::<Vec<_>>()
        });
        let streamed = t[4].time(|| {
            let reader = SwfReader::open(&trace).expect("open");
            let reopen = || SwfReader::open(&trace);
            let (_, streamed) = read_while_simulating(
                reader,
                SwfLoadOptions::default(),
                procs,
                &platform,
                config,
                Some(&reopen),
            )
            .expect("log");
            let mut sim = streamed.expect("a log in order").sim;
            sim.run();
            sim.outcomes().collect::<Vec<_>>()
        });
        assert_eq!(streamed, outcomes);
        t[5].time(|| {
            write_batsim_csv(std::io::sink(), &outcomes, &platform, "trace").expect("format");
        });
        t[6].time(|| {
            std::thread::scope(|scope| {
                let checked = scope.spawn(|| {
                    (
                        audit(&outcomes, &platform, estimates),
                        Summary::new(&outcomes, &platform),
                    )
                });
                let fill = |w: &mut dyn std::io::Write| {
                    write_batsim_csv_parallel(w, &outcomes, &platform, "trace")?;
                    let (verdict, summary) = checked.join().unwrap();
                    std::hint::black_box(summary);
                    verdict.map_err(std::io::Error::other)
                };
                gridsched_repro::output::write_all_atomic_with(vec![(
                    Path::new(&out),
                    gridsched_repro::output::Content::Writer(Box::new(fill)),
                )])
                .expect("write");
            })
        });
    }
    let (zw, _) = best_median(&t[0].wall);
    println!(
        "{}: {jobs} jobs, {}, {reps} repetitions, load average {}",
        trace.display(),
        policy.name(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .unwrap_or("?")
    );
    println!(
        "| phase | best wall | median wall | best CPU | median CPU | median CPU, main thread | best wall / zcat's |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, t) in names.iter().zip(&t) {
        let (bw, mw) = best_median(&t.wall);
        let (bc, mc) = best_median(&t.cpu);
        let (_, mo) = best_median(&t.own);
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.2} |",
            bw * 1e3,
            mw * 1e3,
            bc * 1e3,
            mc * 1e3,
            mo * 1e3,
            bw / zw
        );
    }
}
