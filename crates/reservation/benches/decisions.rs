//! Time per scheduling decision in steady state, tree index vs linear scan.
//!
//! One criterion group per strategy (`decide/<strategy>`: the six gap-aware strategies and
//! LACT as an index-free reference); inside it one benchmark per index (`tree`, `linear`;
//! LACT: `none`) and steady state `n=<servers>,rho=<load>,L=<look-ahead>`, so criterion
//! compares tree and linear on the same state.
//!
//! Steady state: a *tree*-backed scheduler is fed the Castillo ch. 3 workload (bounded Pareto
//! sizes on [1, 50] with α = 1.2, mean 3.286; q = 0.1; λ = ρ n / 3.286) until arrivals span
//! `2 L` (the first `L` fills the look-ahead window from empty servers, the second replaces the
//! requests that saw a half-empty window). Its `state()` then seeds both a tree and a linear
//! scheduler through `from_state` (warming the linear index itself at n = 20,000 would take
//! hours). Each timed batch continues the same request stream: `iters` requests are generated
//! outside the timed section, then only the `submit` calls are timed, so the state keeps
//! evolving in steady state.
//!
//! Environment:
//! - `GRIDSCHED_BENCH_QUICK=1`: a CI smoke run (n ∈ {20, 2000}, ρ = 0.9, L = 200).
//! - `GRIDSCHED_BENCH_N=20,200` / `GRIDSCHED_BENCH_RHO=0.9` / `GRIDSCHED_BENCH_L=200`:
//!   restrict the grid (comma-separated), e.g. to refresh one column.
//! - `GRIDSCHED_BENCH_STRATEGY=min-lip,first-fit`: only these strategies (a criterion filter
//!   alone would still pay every strategy's warm-up).
//!
//! Skipped combinations (also listed in docs/benchmarks.md): L = 2000 at n = 20,000. Its
//! warm-up is 2 L λ ≈ 22 M decisions per strategy and load (12 warm-ups, several minutes each),
//! and First-fit's state would hold ~3 M live idle periods (10 × the 240-320 k measured at
//! n = 2000, L = 2000), i.e. ~10 ms per linear decision.
//!
//! Each warm-up's live idle-period count is appended to
//! `<criterion dir>/gridsched-steady-state.csv`. `gridsched bench-report` turns the results
//! into docs/benchmarks.md as `decisions.report.toml` (beside this file) describes: tables,
//! the speed-up targets (10x at n = 2,000, 100x at n = 20,000), growth against log n, plots.

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use gridsched_reservation::{IndexKind, ReservationScheduler, SchedulerConfig, Strategy};
use gridsched_sim::StreamKey;
use gridsched_workload::{Request, ReservationStream, ReservationWorkload};

/// One steady state: servers, offered load, look-ahead.
#[derive(Debug, Clone, Copy)]
struct Case {
    n: u32,
    rho: f64,
    look_ahead: f64,
}

impl Case {
    fn label(&self) -> String {
        format!("n={},rho={},L={}", self.n, self.rho, self.look_ahead)
    }

    fn workload(&self) -> ReservationWorkload {
        ReservationWorkload {
            look_ahead: self.look_ahead,
            ..ReservationWorkload::castillo_ch3(self.n, self.rho)
        }
    }

    fn config(&self, strategy: Strategy, index: IndexKind) -> SchedulerConfig {
        let mut c = SchedulerConfig::new(self.n, strategy);
        c.look_ahead = self.look_ahead;
        c.index = index;
        c
    }

    /// Why this combination is not benchmarked, if it is not.
    fn skip(&self) -> Option<&'static str> {
        (self.n >= 20_000 && self.look_ahead >= 2_000.0)
            .then_some("22M-decision warm-up per strategy and load; up to ~3M live idle periods")
    }
}

fn env_list<T: std::str::FromStr>(name: &str) -> Option<Vec<T>> {
    let v = std::env::var(name).ok()?;
    Some(v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
}

fn cases() -> Vec<Case> {
    let quick = std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let (ns, rhos, ls) = if quick {
        (vec![20, 2_000], vec![0.9], vec![200.0])
    } else {
        (
            vec![20, 200, 2_000, 20_000],
            vec![0.5, 0.9],
            vec![200.0, 2_000.0],
        )
    };
    let ns = env_list("GRIDSCHED_BENCH_N").unwrap_or(ns);
    let rhos = env_list("GRIDSCHED_BENCH_RHO").unwrap_or(rhos);
    let ls = env_list("GRIDSCHED_BENCH_L").unwrap_or(ls);
    let mut out = Vec::new();
    for &look_ahead in &ls {
        for &rho in &rhos {
            for &n in &ns {
                out.push(Case { n, rho, look_ahead });
            }
        }
    }
    out
}

/// Where criterion writes (mirrors criterion's own choice for a workspace member).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// Appends one warm-up record to the steady-state CSV.
fn record_steady_state(strategy: Strategy, case: &Case, periods: usize, warm: Duration) {
    let dir = criterion_dir();
    let path = dir.join("gridsched-steady-state.csv");
    let _ = std::fs::create_dir_all(&dir);
    let new = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if new {
            let _ = writeln!(f, "strategy,n,rho,L,idle_periods,warm_seconds");
        }
        let _ = writeln!(
            f,
            "{},{},{},{},{},{:.1}",
            strategy.name(),
            case.n,
            case.rho,
            case.look_ahead,
            periods,
            warm.as_secs_f64()
        );
    }
}

/// Feeds a tree-backed scheduler until arrivals span `2 L`; returns the scheduler and the
/// continuing stream.
fn warm(strategy: Strategy, case: &Case) -> (ReservationScheduler, ReservationStream) {
    let t = Instant::now();
    let key = StreamKey::new(2008, "bench-decisions");
    let mut stream = case.workload().stream(&key).expect("valid workload");
    let mut s = ReservationScheduler::new(case.config(strategy, IndexKind::Tree))
        .expect("valid configuration");
    let until = 2.0 * case.look_ahead;
    for r in stream.by_ref() {
        s.submit(r.arrival, &r.window).expect("valid request");
        if r.arrival >= until {
            break;
        }
    }
    let periods = s.idle_periods().len();
    let elapsed = t.elapsed();
    eprintln!(
        "warm {} {}: {periods} live idle periods ({:.1} s)",
        strategy.name(),
        case.label(),
        elapsed.as_secs_f64()
    );
    record_steady_state(strategy, case, periods, elapsed);
    (s, stream)
}

/// Times `iters` decisions of `scheduler` on the next `iters` requests of `stream`.
fn time_decisions(
    scheduler: &mut ReservationScheduler,
    stream: &mut ReservationStream,
    iters: u64,
) -> Duration {
    let requests: Vec<Request> = stream.by_ref().take(iters as usize).collect();
    let start = Instant::now();
    for r in &requests {
        black_box(
            scheduler
                .submit(r.arrival, black_box(&r.window))
                .expect("valid request"),
        );
    }
    start.elapsed()
}

fn bench_strategy(c: &mut Criterion, strategy: Strategy) {
    let mut group = c.benchmark_group(format!("decide/{}", strategy.name()));
    for case in cases() {
        if let Some(why) = case.skip() {
            eprintln!("skip {} {}: {why}", strategy.name(), case.label());
            continue;
        }
        let (warmed, stream) = warm(strategy, &case);
        let indexes: &[IndexKind] = if strategy.uses_idle_periods() {
            &[IndexKind::Tree, IndexKind::Linear]
        } else {
            &[IndexKind::Tree]
        };
        let state = warmed.state();
        drop(warmed);
        for &index in indexes {
            let mut scheduler =
                ReservationScheduler::from_state(case.config(strategy, index), &state)
                    .expect("valid state");
            let mut stream = stream.clone();
            // A linear decision scans every live period (a few ms at ~10^6 of them): few,
            // flat samples there; tree decisions take microseconds.
            let slow = index == IndexKind::Linear && state.idle_periods.len() > 20_000;
            if slow {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            } else {
                group
                    .sampling_mode(SamplingMode::Auto)
                    .sample_size(20)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            }
            let function = if strategy.uses_idle_periods() {
                index.name()
            } else {
                "none"
            };
            group.bench_function(BenchmarkId::new(function, case.label()), |b| {
                b.iter_custom(|iters| time_decisions(&mut scheduler, &mut stream, iters));
            });
        }
    }
    group.finish();
}

fn decisions(c: &mut Criterion) {
    let only: Option<Vec<Strategy>> = env_list("GRIDSCHED_BENCH_STRATEGY");
    for strategy in [
        Strategy::FirstFit,
        Strategy::MinLip,
        Strategy::MinTip,
        Strategy::BestFit,
        Strategy::MaxLip,
        Strategy::MaxTip,
        Strategy::Lact,
    ] {
        if only.as_ref().is_some_and(|o| !o.contains(&strategy)) {
            continue;
        }
        bench_strategy(c, strategy);
    }
}

criterion_group!(benches, decisions);
criterion_main!(benches);
