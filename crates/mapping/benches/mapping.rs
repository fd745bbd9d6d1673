//! Mapping heuristics against the number of tasks t and machines m.
//!
//! Groups `map/<heuristic>`, benchmarks `<engine>/t=<tasks>,m=<machines>` on Braun et al.'s
//! range-based matrices (inconsistent, high task and machine heterogeneity, like `u_i_hihi`;
//! `map/*-consistent` groups use consistent ones, where every task prefers the same machines),
//! t ∈ {512, 4096, 32768}, m ∈ {16, 128}. Engines (identical schedules, see
//! `gridsched_mapping::Engine`): `auto` (what `Heuristic::map` runs), `dense`, `tracked`, and
//! the literal `naive` O(t²·m) algorithm as the baseline (only where it takes seconds, not
//! minutes). Min-Min's fast engine is the sorted-column one (`auto`).
//!
//! `GRIDSCHED_BENCH_QUICK=1`: t ∈ {512, 4096} only.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gridsched_mapping::generate::RangeBased;
use gridsched_mapping::{Consistency, Engine, EtcMatrix, Heuristic, SufferageVariant};
use gridsched_sim::StreamKey;

fn shapes() -> Vec<(usize, usize)> {
    let quick = std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let ts: &[usize] = if quick {
        &[512, 4096]
    } else {
        &[512, 4096, 32768]
    };
    ts.iter().flat_map(|&t| [(t, 16), (t, 128)]).collect()
}

fn matrix(t: usize, m: usize, consistency: Consistency) -> EtcMatrix {
    let key = StreamKey::new(2001, "bench-mapping").point(&format!("t={t},m={m},{consistency:?}"));
    RangeBased {
        tasks: t,
        machines: m,
        task_heterogeneity: 3000.0,
        machine_heterogeneity: 1000.0,
        consistency,
    }
    .generate(&mut key.rng())
    .expect("valid generator")
}

/// Whether the literal algorithm is cheap enough to time at this shape (O(t²·m) work).
fn naive_affordable(h: Heuristic, t: usize, m: usize) -> bool {
    let work = (t * t) as f64 * m as f64;
    match h {
        // Batch passes map up to m tasks each, so the literal version is O(t²) in practice.
        Heuristic::Sufferage(SufferageVariant::Batch) => t <= 4096,
        _ => work <= 4096.0 * 4096.0 * 16.0,
    }
}

fn group(
    c: &mut Criterion,
    name: &str,
    h: Heuristic,
    consistency: Consistency,
    engines: &[Engine],
) {
    let mut g = c.benchmark_group(format!("map/{name}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (t, m) in shapes() {
        let etc = matrix(t, m, consistency);
        let ready = vec![0.0; m];
        let value = format!("t={t},m={m}");
        let mut run = |label: &str, engine: Engine| {
            g.bench_with_input(BenchmarkId::new(label, &value), &etc, |b, etc| {
                b.iter(|| black_box(h.map_with(etc, &ready, engine).expect("maps")));
            });
        };
        for &e in engines {
            run(engine_name(e), e);
        }
        if naive_affordable(h, t, m) {
            run("naive", Engine::Naive);
        }
    }
    g.finish();
}

fn engine_name(e: Engine) -> &'static str {
    match e {
        Engine::Auto => "auto",
        Engine::Dense => "dense",
        Engine::Tracked => "tracked",
        Engine::Naive => "naive",
    }
}

fn benches(c: &mut Criterion) {
    use Consistency::*;
    use SufferageVariant::*;
    let both = [Engine::Dense, Engine::Tracked];
    group(
        c,
        "min-min",
        Heuristic::MinMin,
        Inconsistent,
        &[Engine::Auto],
    );
    group(c, "max-min", Heuristic::MaxMin, Inconsistent, &both);
    group(
        c,
        "sufferage-batch",
        Heuristic::Sufferage(Batch),
        Inconsistent,
        &[Engine::Auto],
    );
    group(
        c,
        "sufferage-seq",
        Heuristic::Sufferage(Sequential),
        Inconsistent,
        &both,
    );
    group(
        c,
        "sas",
        Heuristic::Sas {
            segments: 4,
            variant: Batch,
        },
        Inconsistent,
        &[Engine::Auto],
    );
    group(c, "mct", Heuristic::Mct, Inconsistent, &[Engine::Auto]);
    group(
        c,
        "min-min-consistent",
        Heuristic::MinMin,
        Consistent,
        &[Engine::Auto],
    );
    group(
        c,
        "max-min-consistent",
        Heuristic::MaxMin,
        Consistent,
        &both,
    );
    group(
        c,
        "sufferage-batch-consistent",
        Heuristic::Sufferage(Batch),
        Consistent,
        &[Engine::Auto],
    );
}

criterion_group!(mapping, benches);
criterion_main!(mapping);
