//! Throughput of the chapter-5 online co-allocation scheduler (Castillo ch. 5): requests per
//! second of `CoallocScheduler::run` over a whole request stream, as the number of servers
//! `N` and the number of quanta `Q = H / l_q` grow.
//!
//! - `coalloc/servers`: N = 64, 256, 1,024 at the thesis's setting l_q = Δt = 15 min,
//!   H = 50 h (Q = 200, maxRet = 100);
//! - `coalloc/quanta`: N = 256 with H = 50 h and l_q = 60, 15 and 3.75 min (Q = 50, 200, 800;
//!   Δt = l_q, maxRet = Q/2), so the retry window stays 25 h;
//! - `coalloc/kth`: the first 10,000 jobs of the KTH log at N = 128 (skipped when the log is
//!   not under the data directory);
//! - `coalloc/large-n`: N = 1,024 … 131,072 with the *same* job widths at every N (log-uniform
//!   in 1 … 1,024 servers) and the load scaled with N (0.7 offered), so the machine holds about
//!   one idle period per server: the cost per request must grow with the width and a
//!   logarithmic factor, not with N (issue 18).
//! - `coalloc/worst-case`: one attempt for 2 servers on an index built so that Phase 2 must
//!   inspect the largest group (every server idle from 0 until shortly before the requested
//!   end, then busy): `fail` finds no feasible period, `last-group` finds exactly two, on the
//!   two highest server ids (the last group in Phase 2's order). The thesis's structures bound
//!   this by `O(log² N)`; the default index reads every inspected group, so this measures that
//!   gap, and the `…/tree` and `…/tree-all` variants measure the optional range tree
//!   (`QuantizedIndex::with_range_tree`, budgets 1,024 and 0) that closes it.
//!
//! The synthetic stream is seeded and the same in every iteration: Poisson arrivals at offered
//! load 0.7 of N, half of the jobs on one server and the rest on U{1..N/4} servers, durations
//! log-uniform in [1 min, 10 h], s_r = q_r (no advance reservations: the retry-heavy case).
//! One iteration builds an empty scheduler and serves the whole stream; the throughput is
//! requests per second. `GRIDSCHED_BENCH_QUICK=1` makes a short smoke run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridsched_geom::coalloc::{CoallocPeriod, CoallocPick, OPEN_END, QuantizedIndex};
use gridsched_reservation::coalloc::{
    CoallocConfig, CoallocRequest, CoallocScheduler, LengthField, requests_from_swf,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const REQUESTS: usize = 5_000;

/// Poisson arrivals at offered load 0.7 of `servers` for jobs of mean width `mean_n`,
/// log-uniform durations in [1 min, 10 h], s_r = q_r; `width` draws each job's width (after its
/// arrival and duration, from the same generator).
fn stream_with(
    servers: u32,
    count: usize,
    seed: u64,
    mean_n: f64,
    width: impl Fn(&mut ChaCha8Rng) -> u32,
) -> Vec<CoallocRequest> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (lo, hi) = (60f64.ln(), 36_000f64.ln());
    let mean_len = (36_000.0 - 60.0) / (hi - lo);
    let rate = 0.7 * f64::from(servers) / (mean_n * mean_len);
    let mut t = 0.0f64;
    (0..count)
        .map(|i| {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / rate;
            let len = (lo + (hi - lo) * rng.random::<f64>()).exp().round() as i64;
            let n = width(&mut rng);
            let submit = t.round() as i64;
            CoallocRequest {
                id: i as u64,
                submit,
                start: submit,
                length: len.max(1),
                servers: n,
                batch_wait: None,
            }
        })
        .collect()
}

/// Half the jobs on one server, half on U{1..N/4}.
fn stream(servers: u32, count: usize, seed: u64) -> Vec<CoallocRequest> {
    let wide = (servers / 4).max(1);
    let mean_n = 0.5 * 1.0 + 0.5 * (f64::from(wide) + 1.0) / 2.0;
    stream_with(servers, count, seed, mean_n, |rng| {
        if rng.random::<bool>() {
            1
        } else {
            rng.random_range(1..=wide)
        }
    })
}

/// The `coalloc/large-n` stream: widths log-uniform in 1 ..= 1,024 whatever `servers`, offered
/// load 0.7 of `servers`, the same durations as [`stream`].
fn wide_stream(servers: u32, count: usize, seed: u64) -> Vec<CoallocRequest> {
    let max_w = 1024f64;
    let mean_n = (max_w - 1.0) / max_w.ln();
    stream_with(servers, count, seed, mean_n, |rng| {
        let n = (max_w.ln() * rng.random::<f64>()).exp().floor() as u32;
        n.clamp(1, servers)
    })
}

/// The `coalloc/worst-case` index: quanta of 15 min over 50 h; server `i` is idle over
/// `[0, 1,000 + (i mod 500))` and busy until 40 h, so a request for `[0, 1,800)` fits none of
/// them, except the servers of `feasible`, which stay idle until 30 h. Built with one
/// reservation per distinct busy window (the servers' tails are known), so that it takes
/// seconds even at a million servers.
fn worst_case_index(servers: u32, feasible: &[u32]) -> QuantizedIndex {
    let mut index = QuantizedIndex::new(servers, 900, 200, 1, 0).expect("valid index");
    let mut groups: std::collections::BTreeMap<i64, Vec<CoallocPeriod>> = Default::default();
    for server in 0..servers {
        let free_until = if feasible.contains(&server) {
            30 * 3600
        } else {
            1_000 + i64::from(server % 500)
        };
        groups.entry(free_until).or_default().push(CoallocPeriod {
            start: 0,
            end: OPEN_END,
            server,
        });
    }
    for (free_until, tails) in groups {
        index
            .reserve(&tails, free_until, 40 * 3600 - free_until)
            .expect("the servers are idle there");
    }
    index
}

fn config(servers: u32, quantum: i64) -> CoallocConfig {
    CoallocConfig {
        servers,
        quantum,
        horizon: 50 * 3600,
        retry_step: quantum,
        ..CoallocConfig::default()
    }
}

fn serve(cfg: CoallocConfig, requests: &[CoallocRequest]) -> usize {
    let run = CoallocScheduler::new(cfg)
        .expect("valid configuration")
        .run(requests, false)
        .expect("valid requests");
    run.outcomes.len()
}

fn quick() -> bool {
    std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| v == "1")
}

fn tune(c: &mut Criterion) -> Criterion {
    let _ = c;
    let base = Criterion::default().configure_from_args();
    if quick() {
        base.sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_secs(1))
    } else {
        base.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5))
    }
}

fn benches(c: &mut Criterion) {
    let mut c = tune(c);
    {
        let mut g = c.benchmark_group("coalloc/servers");
        for servers in [64u32, 256, 1024] {
            let reqs = stream(servers, REQUESTS, 5);
            g.throughput(Throughput::Elements(reqs.len() as u64));
            g.bench_with_input(
                BenchmarkId::from_parameter(format!("N={servers},Q=200")),
                &reqs,
                |b, reqs| b.iter(|| black_box(serve(config(servers, 900), reqs))),
            );
        }
        g.finish();
    }
    {
        let mut g = c.benchmark_group("coalloc/quanta");
        let reqs = stream(256, REQUESTS, 6);
        for quantum in [3600i64, 900, 225] {
            let q = 50 * 3600 / quantum;
            g.throughput(Throughput::Elements(reqs.len() as u64));
            g.bench_with_input(
                BenchmarkId::from_parameter(format!("N=256,Q={q}")),
                &reqs,
                |b, reqs| b.iter(|| black_box(serve(config(256, quantum), reqs))),
            );
        }
        g.finish();
    }
    {
        let mut g = c.benchmark_group("coalloc/large-n");
        for servers in [1_024u32, 8_192, 32_768, 131_072] {
            let reqs = wide_stream(servers, REQUESTS, 7);
            g.throughput(Throughput::Elements(reqs.len() as u64));
            g.bench_with_input(
                BenchmarkId::from_parameter(format!("N={servers},Q=200")),
                &reqs,
                |b, reqs| b.iter(|| black_box(serve(config(servers, 900), reqs))),
            );
        }
        g.finish();
    }
    {
        let mut g = c.benchmark_group("coalloc/worst-case");
        for servers in [1_024u32, 8_192, 32_768, 131_072, 1_048_576] {
            for (case, feasible) in [
                ("fail", vec![]),
                ("last-group", vec![servers - 2, servers - 1]),
            ] {
                let plain = worst_case_index(servers, &feasible);
                // The same index with the optional range tree, asked for every group larger
                // than 1,024 periods (`tree`) or for every group (`tree-all`).
                let variants = [
                    (case.to_string(), plain.clone()),
                    (format!("{case}/tree"), plain.clone().with_range_tree(1_024)),
                    (format!("{case}/tree-all"), plain.with_range_tree(0)),
                ];
                for (name, mut index) in variants {
                    let mut chosen = Vec::new();
                    let attempt = index.select(0, 1_800, 2, CoallocPick::Tree, &mut chosen);
                    assert_eq!(attempt.stats.success, !feasible.is_empty(), "{name}");
                    g.bench_function(BenchmarkId::new(name, format!("N={servers}")), |b| {
                        b.iter(|| {
                            chosen.clear();
                            black_box(index.select(0, 1_800, 2, CoallocPick::Tree, &mut chosen))
                        })
                    });
                }
            }
        }
        g.finish();
    }
    let data = gridsched_workload::swf::data_dir(None);
    let kth = gridsched_workload::swf::trace_path(&data, "KTH");
    if kth.is_file() {
        let log = gridsched_workload::swf::load_swf(
            &kth,
            gridsched_workload::swf::SwfLoadOptions {
                limit: Some(10_000),
            },
        )
        .expect("the KTH log parses");
        let (reqs, _) = requests_from_swf(&log.jobs, LengthField::Run);
        let mut g = c.benchmark_group("coalloc/kth");
        g.throughput(Throughput::Elements(reqs.len() as u64));
        g.bench_function("N=128,Q=200,first-10000-jobs", |b| {
            b.iter(|| black_box(serve(config(128, 900), &reqs)))
        });
        g.finish();
    } else {
        eprintln!(
            "NOTICE: no KTH log at {}; coalloc/kth skipped",
            kth.display()
        );
    }
}

criterion_group!(coalloc, benches);
criterion_main!(coalloc);
