//! Writes a chapter-3 request stream as the CSV `gridsched schedule reservation` reads, for
//! end-to-end CLI timing (docs/benchmarks.md, "CLI I/O throughput").
//!
//! `cargo run --release -p gridsched-workload --example reservation_requests -- SERVERS LOAD JOBS OUT`
//!
//! The stream is the thesis's (and the CLI tests'): bounded-Pareto sizes on [1, 50] (α = 1.2),
//! look-ahead 200, tightness 0.1, the default ready offset, seeded by the fixed key
//! `(5, "cli-test")`.

use gridsched_sim::StreamKey;
use gridsched_workload::{ReservationWorkload, write_requests};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [servers, load, jobs, out] = args.as_slice() else {
        return Err("usage: reservation_requests SERVERS LOAD JOBS OUT".into());
    };
    let workload = ReservationWorkload::castillo_ch3(servers.parse()?, load.parse()?);
    let requests: Vec<_> = workload
        .stream(&StreamKey::new(5, "cli-test"))?
        .take(jobs.parse()?)
        .collect();
    let file = std::io::BufWriter::new(std::fs::File::create(out)?);
    write_requests(file, &requests)?;
    Ok(())
}
