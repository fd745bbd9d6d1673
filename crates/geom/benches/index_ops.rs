//! Raw index operations, tree vs linear (insert/delete and select costs; reported by
//! `gridsched bench-report` as `index_ops.report.toml` beside this file describes).
//!
//! A synthetic steady state of `n` servers is built directly from idle periods (no scheduler:
//! geom does not depend on the reservation crate). Each server's timeline over the look-ahead
//! `[0, L = 200)` alternates reservations of length U(1, 20) with, half of the time, an idle gap
//! of length U(1, 10); after `L` the server's open-ended tail follows. That is about 8 live
//! idle periods per server (the real steady states of `benches/decisions.rs` hold from ~1.2
//! per server for Min-LIP up to ~160 for First-fit at L = 2000).
//!
//! Groups (value `n=<servers>`, n ∈ {20, 200, 2000, 20000}):
//! - `index/insert-delete`: one `remove` of a live period followed by its re-`insert` (the set
//!   stays constant), for `linear`, `tree-start` (start strips: First-fit, Min-LIP, Max-LIP),
//!   `tree-best-fit` (start strips plus Best-fit's 2-D trees) and `tree-end` (end strips:
//!   Min-TIP, Max-TIP). Time is per pair.
//! - `index/select/<rule>`: one `select` for every `Rule`, `linear` vs `tree` (an index with
//!   every tree), on job windows drawn like the Castillo ch. 3 workload (q = 0.1).
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps n ∈ {20, 2000}.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gridsched_geom::{
    EndStripIndex, IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StartStripIndex, StripGeometry,
    StripOrder, TreeConfig, TreeIndex, Window,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const LOOK_AHEAD: f64 = 200.0;

/// Builds an empty index of one kind.
type MakeIndex = fn() -> Box<dyn IdlePeriodIndex>;

fn sizes() -> Vec<u32> {
    if std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0") {
        vec![20, 2_000]
    } else {
        vec![20, 200, 2_000, 20_000]
    }
}

fn geometry() -> StripGeometry {
    StripGeometry::for_min_length(1.0, 1)
}

fn tree_config() -> TreeConfig {
    TreeConfig::new(geometry(), LOOK_AHEAD)
}

/// The live idle periods of `n` servers (see the module docs), in (server, start) order.
fn steady_state(n: u32, rng: &mut ChaCha8Rng) -> Vec<IdlePeriod> {
    let mut periods = Vec::new();
    for server in 0..n {
        let mut t = 0.0;
        loop {
            if rng.random_bool(0.5) {
                let gap = rng.random_range(1.0..10.0);
                periods.push(IdlePeriod::new(t, t + gap, server));
                t += gap;
            }
            t += rng.random_range(1.0..20.0);
            if t >= LOOK_AHEAD {
                break;
            }
        }
        periods.push(IdlePeriod::tail(t, server));
    }
    periods
}

/// Job windows like the Castillo ch. 3 workload at arrival 0: bounded-Pareto-ish lengths on
/// [1, 50], ready `U(0, L - l)`, deadline slack `U(0, 0.1 (L - r - l))`.
fn windows(count: usize, rng: &mut ChaCha8Rng) -> Vec<Window> {
    (0..count)
        .map(|_| {
            // Inverse-CDF bounded Pareto (k = 1, p = 50, α = 1.2).
            let (k, p, a): (f64, f64, f64) = (1.0, 50.0, 1.2);
            let u: f64 = rng.random_range(0.0..1.0);
            let ratio = (k / p).powf(a);
            let length = k / (1.0 - u * (1.0 - ratio)).powf(1.0 / a);
            let room = LOOK_AHEAD - length;
            let ready = rng.random_range(0.0..room);
            let slack = 0.1 * (room - ready);
            let deadline = ready + length + rng.random_range(0.0..=slack);
            Window::new(ready, length, deadline).expect("valid window")
        })
        .collect()
}

fn filled(mut index: Box<dyn IdlePeriodIndex>, periods: &[IdlePeriod]) -> Box<dyn IdlePeriodIndex> {
    index.advance(0.0);
    for p in periods {
        index.insert(*p);
    }
    index
}

/// The live periods in a random order, so removals hit random places of the index.
fn shuffled(periods: &[IdlePeriod], rng: &mut ChaCha8Rng) -> Vec<IdlePeriod> {
    let mut v = periods.to_vec();
    for i in (1..v.len()).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
    v
}

fn configure(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
}

fn insert_delete(c: &mut Criterion) {
    let mut group = c.benchmark_group("index/insert-delete");
    configure(&mut group);
    for n in sizes() {
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(n));
        let periods = steady_state(n, &mut rng);
        let order = shuffled(&periods, &mut rng);
        let kinds: [(&str, MakeIndex); 4] = [
            ("linear", || Box::new(LinearIndex::new(geometry()))),
            ("tree-start", || {
                Box::new(StartStripIndex::new(tree_config()))
            }),
            ("tree-best-fit", || {
                Box::new(StartStripIndex::with_best_fit(tree_config()))
            }),
            ("tree-end", || Box::new(EndStripIndex::new(tree_config()))),
        ];
        for (name, make) in kinds {
            let mut index = filled(make(), &periods);
            let mut i = 0;
            group.bench_function(BenchmarkId::new(name, format!("n={n}")), |b| {
                b.iter(|| {
                    let p = order[i];
                    i = (i + 1) % order.len();
                    black_box(index.remove(black_box(&p)));
                    index.insert(p);
                });
            });
            assert_eq!(index.len(), periods.len());
        }
    }
    group.finish();
}

/// Every rule, with a file-name-friendly name.
const RULES: [(&str, Rule); 9] = [
    ("earliest-feasible", Rule::EarliestFeasible),
    ("shortest-feasible", Rule::ShortestFeasible),
    (
        "longest-in-first-start-strip",
        Rule::LongestInFirstStartStrip,
    ),
    ("earliest-start-from-ready", Rule::EarliestStartFromReady),
    (
        "latest-start-before-ready",
        Rule::LatestStartBeforeReady {
            skip_ready_strip: false,
        },
    ),
    (
        "earliest-start-before-ready",
        Rule::EarliestStartBeforeReady,
    ),
    (
        "longest-in-end-strip",
        Rule::LongestInEndStrip {
            order: StripOrder::LatestFirst,
        },
    ),
    (
        "earliest-end-after-deadline",
        Rule::EarliestEndAfterDeadline,
    ),
    ("latest-end-after-deadline", Rule::LatestEndAfterDeadline),
];

fn select(c: &mut Criterion) {
    for n in sizes() {
        let mut rng = ChaCha8Rng::seed_from_u64(1_000 + u64::from(n));
        let periods = steady_state(n, &mut rng);
        let jobs = windows(4_096, &mut rng);
        let mut linear = filled(Box::new(LinearIndex::new(geometry())), &periods);
        let mut tree = filled(Box::new(TreeIndex::with_all_rules(tree_config())), &periods);
        for (name, rule) in RULES {
            let mut group = c.benchmark_group(format!("index/select/{name}"));
            configure(&mut group);
            for (kind, index) in [("tree", &mut tree), ("linear", &mut linear)] {
                let mut i = 0;
                group.bench_function(BenchmarkId::new(kind, format!("n={n}")), |b| {
                    b.iter(|| {
                        let w = &jobs[i];
                        i = (i + 1) % jobs.len();
                        black_box(index.select(rule, black_box(w)))
                    });
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, insert_delete, select);
criterion_main!(benches);
