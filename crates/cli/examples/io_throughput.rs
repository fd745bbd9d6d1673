//! CSV and log I/O throughput of the CLI's readers and writers, phase by phase (docs/benchmarks.md,
//! "CLI I/O throughput"):
//!
//! `cargo run --release -p gridsched --example io_throughput -- TRACE REQUESTS [REPS]`
//!
//! TRACE is an SWF log (a path or a short name such as HPC2N), REQUESTS a request CSV (e.g.
//! from `cargo run --release -p gridsched-workload --example reservation_requests -- 2000 0.9
//! 200000 requests.csv`). Each phase runs REPS times (default 5); the median CPU time of this
//! thread (from /proc/thread-self/schedstat), the median wall time (which includes waiting for
//! the disk: fsync) and rows per second of each are printed:
//!
//! - `inflate`: the gzip log decompressed, nothing parsed;
//! - `swf read`: `load_swf` (inflate + parse + keep rules), rows = records;
//! - `batsim format`: `write_batsim_csv` of the EASY replay into a sink (formatting only);
//! - `batsim write`: the same through the atomic writer to a file in the temp directory
//!   (temporary file, fsync, rename), as `gridsched replay --out` does;
//! - `requests read`: `read_requests` (parse, validate, duplicate ids);
//! - `requests format`: `schedule reservation`'s output row (`id,true,server,start,end`) for
//!   every request, with the request's own ready time and end as the booking.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use gridsched_batch::{Config, Estimates, Platform, Policy, Simulator, swf::trace_jobs};
use gridsched_sim::fmt::{push_csv_field, push_f64, push_int};
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, open_input, trace_path};
use gridsched_workload::{RequestLimits, read_requests};

fn cpu_seconds() -> f64 {
    let ns: f64 = std::fs::read_to_string("/proc/thread-self/schedstat")
        .expect("Linux /proc/thread-self/schedstat")
        .split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .expect("schedstat");
    ns * 1e-9
}

/// Runs `f` `reps` times; prints the median CPU and wall seconds (and the CPU range).
fn phase(name: &str, rows: usize, reps: usize, mut f: impl FnMut()) {
    let (mut cpu, mut wall): (Vec<f64>, Vec<f64>) = (0..reps)
        .map(|_| {
            let (c0, w0) = (cpu_seconds(), std::time::Instant::now());
            f();
            (cpu_seconds() - c0, w0.elapsed().as_secs_f64())
        })
        .unzip();
    cpu.sort_by(f64::total_cmp);
    wall.sort_by(f64::total_cmp);
    let (c, w) = (cpu[reps / 2], wall[reps / 2]);
    println!(
        "{name:<16} {rows:>7} rows  CPU {:>6.1} ms ({:>5.1}-{:>5.1})  {:>6.2} M rows/s  wall {:>6.1} ms  {:>6.2} M rows/s",
        c * 1e3,
        cpu[0] * 1e3,
        cpu[reps - 1] * 1e3,
        rows as f64 / c / 1e6,
        w * 1e3,
        rows as f64 / w / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let trace = trace_path(
        &data_dir(None),
        args.first().map_or("HPC2N", String::as_str),
    );
    let requests = PathBuf::from(
        args.get(1)
            .expect("usage: io_throughput TRACE REQUESTS [REPS]"),
    );
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);

    let log = load_swf(&trace, SwfLoadOptions::default()).expect("log");
    let records = log.report.records as usize;
    phase("inflate", records, reps, || {
        let mut input = open_input(&trace).expect("open");
        let mut buf = vec![0u8; 1 << 16];
        while input.read(&mut buf).expect("read") > 0 {}
    });
    phase("swf read", records, reps, || {
        load_swf(&trace, SwfLoadOptions::default()).expect("log");
    });

    let procs = log.header.max_procs.expect("MaxProcs") as u32;
    let platform = Platform::cluster(procs).unwrap();
    let config = Config::new(Policy::Easy)
        .estimates(Estimates::Requested)
        .check_invariants(false);
    let mut sim =
        Simulator::with_jobs(platform.clone(), config, trace_jobs(&log, procs).jobs).unwrap();
    sim.run();
    let outcomes: Vec<_> = sim.outcomes().collect();
    phase("batsim format", outcomes.len(), reps, || {
        gridsched_batch::write_batsim_csv(std::io::sink(), &outcomes, &platform, "HPC2N")
            .expect("format");
    });
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("temp dir");
    let out = dir.path().join("jobs.csv");
    phase("batsim write", outcomes.len(), reps, || {
        let fill =
            |w: &mut dyn Write| gridsched_batch::write_batsim_csv(w, &outcomes, &platform, "HPC2N");
        gridsched_repro::output::write_all_atomic_with(vec![(
            out.as_path(),
            gridsched_repro::output::Content::Writer(Box::new(fill)),
        )])
        .expect("write");
    });

    let limits = RequestLimits::default();
    let file = read_requests(&requests, &limits).expect("requests");
    let n = file.requests.len();
    phase("requests read", n, reps, || {
        read_requests(Path::new(&requests), &limits).expect("requests");
    });
    let mut bytes = Vec::new();
    phase("requests format", n, reps, || {
        bytes = Vec::with_capacity(48 * n);
        for (k, (id, r)) in file.ids.iter().zip(&file.requests).enumerate() {
            // `schedule reservation`'s `push_row`.
            push_csv_field(&mut bytes, id.as_bytes());
            bytes.extend_from_slice(b",true,");
            push_int(&mut bytes, k as u32 % 2000);
            bytes.push(b',');
            push_f64(&mut bytes, r.window.ready);
            bytes.push(b',');
            push_f64(&mut bytes, r.window.ready + r.window.length);
            bytes.push(b'\n');
        }
    });
    assert!(!bytes.is_empty());
}
