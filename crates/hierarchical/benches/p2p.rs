//! Wall time and events per second of whole P2P runs (`gridsched_hierarchical::p2p`), Exp 1
//! (continuous submission) on the thesis's grid.
//!
//! Group `p2p/continuous`, benchmarks `<engine>/N=<jobs>,size=<MB>`:
//! - `collapsed` at N ∈ {520, 3000} × {1 GB, 100 GB}: the default engine (flood collapse and
//!   retry skipping, spec §7 item 7). At 100 GB and N = 3000 the naive engine would deliver
//!   ~4 × 10⁸ FORWARDs; this one handles ~7 × 10⁴ events;
//! - `naive` at N = 520 × 1 GB: every message on the actor engine, for comparison.
//!
//! One iteration is one run (setup excluded: grid, jobs and network are built once). The
//! throughput is the run's event count (the engine's own events: messages and timers for
//! `naive`; the collapsed loop's events, skipped retries and replayed FORWARDs excluded, for
//! `collapsed`), so criterion prints events per second; the mean time is the wall time of a run.
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps only N = 520.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridsched_hierarchical::hierarchy::Submission;
use gridsched_hierarchical::p2p::{Flooding, P2pConfig, run_p2p};
use gridsched_hierarchical::{Grid, Network, draw_jobs};
use gridsched_sim::StreamKey;

fn cases() -> Vec<(Flooding, u32, f64)> {
    let mut v = vec![
        (Flooding::Naive, 520, 1000.0),
        (Flooding::Collapsed, 520, 1000.0),
        (Flooding::Collapsed, 520, 100_000.0),
    ];
    if std::env::var_os("GRIDSCHED_BENCH_QUICK").is_none() {
        v.push((Flooding::Collapsed, 3000, 1000.0));
        v.push((Flooding::Collapsed, 3000, 100_000.0));
    }
    v
}

fn p2p(c: &mut Criterion) {
    let key = StreamKey::new(0, "alzoubi-p2p-bench");
    let grid = Grid::thesis(&key);
    let network = Network::thesis();
    let mut group = c.benchmark_group("p2p/continuous");
    group.sample_size(10);
    for (flooding, n, mb) in cases() {
        let jobs = draw_jobs(&key, n, mb).expect("valid workload");
        let config = P2pConfig {
            flooding,
            ..P2pConfig::default()
        };
        let run = || {
            run_p2p(
                &grid,
                network.clone(),
                &jobs,
                &Submission::Continuous,
                &config,
                &key,
            )
            .expect("the run succeeds")
        };
        let events = run().result.counters.events();
        group.throughput(Throughput::Elements(events));
        let engine = match flooding {
            Flooding::Naive => "naive",
            Flooding::Collapsed => "collapsed",
        };
        group.bench_function(
            BenchmarkId::new(engine, format!("N={n},size={mb}MB")),
            |b| b.iter(|| black_box(run())),
        );
    }
    group.finish();
}

criterion_group!(benches, p2p);
criterion_main!(benches);
