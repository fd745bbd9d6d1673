//! Time per scheduling decision of FF-HU, FF-HA and FF-HA+ (Castillo ch. 4) as the number of
//! live idle periods `V` grows; the target is FF-HA+ at least 20x faster than FF-HA at V = 10^5.
//!
//! Two criterion groups, one per way of growing `V`; inside each, one benchmark per algorithm
//! (`ff-hu`, `ff-ha`, `ff-ha-plus`) and steady state `n=<servers>,days=<look-ahead in days>`:
//!
//! - `hetero/lookahead`: the thesis's 120 servers with a longer book-ahead ("long time horizons
//!   for advance reservations"): 14, 140, 1,064 and 10,640 days, i.e. `V` ≈ 1.4·10³, 1.3·10⁴,
//!   10⁵ and 10⁶ (about 94 live idle periods per day of look-ahead at n = 120);
//! - `hetero/servers`: the thesis's 14-day book-ahead with more servers: n = 120, 1,200, 8,700
//!   and 12,000, i.e. `V` ≈ 1.4·10³, 1.4·10⁴, 10⁵ and 1.4·10⁵ (about 11.5 per server); n = 8,700
//!   is there to put a point at the target's `V` = 10⁵.
//!
//! The system is the chapter-4 one at its most heterogeneous: rates of proposal A, level 4
//! (three equal groups at 0.1, 0.5 and 0.9), offered load 0.8, the thesis's workload
//! (80/20 sizes, book-ahead U(1 min, look-ahead), deadline slack U(0, 20 h) after the size),
//! slowest class first, FF-HA+ with the tree pick.
//!
//! Steady state: an FF-HA+ scheduler is fed requests until arrivals span two look-aheads (the
//! first fills the book-ahead window, the second replaces the requests that saw a half-empty
//! one). Its `state()` seeds one scheduler per algorithm through `from_state` (warming FF-HU
//! itself at `V` = 10⁶ would take hours; every algorithm then starts from the very same live
//! set). Each criterion batch draws its `iters` requests from the continuing stream *outside*
//! the timed section and times only the `submit` calls (clock advance and expiry, selection,
//! carving the chosen period: one remove and up to two inserts), so the state keeps evolving.
//!
//! Environment:
//! - `GRIDSCHED_BENCH_QUICK=1`: smoke run (14 and 140 days at n = 120; n = 120 and 1,200).
//! - `GRIDSCHED_BENCH_HETERO_AXIS=lookahead|servers`, `GRIDSCHED_BENCH_HETERO_DAYS=14,140`,
//!   `GRIDSCHED_BENCH_HETERO_N=120,1200`, `GRIDSCHED_BENCH_HETERO_ALGORITHM=ff-ha,ff-ha-plus`
//!   restrict the grid (a criterion name filter alone would still pay every warm-up).
//!
//! Each warmed state (live idle periods, warm-up time) and each algorithm's operation count per
//! timed decision are appended to `<criterion dir>/gridsched-hetero-steady-state.csv`.
//! `gridsched bench-report` reports them as `hetero.report.toml` (beside this file) describes.

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use gridsched_geom::Window;
use gridsched_reservation::hetero::{
    HeteroAlgorithm, HeteroConfig, HeteroScheduler, RateProposal, rates,
};
use gridsched_sim::StreamKey;
use gridsched_workload::hetero::{HeteroStream, HeteroWorkload, WorkRequest};

/// Offered load of every steady state.
const LOAD: f64 = 0.8;

/// One steady state: servers and book-ahead.
#[derive(Debug, Clone, Copy)]
struct Case {
    axis: &'static str,
    n: u32,
    days: f64,
}

impl Case {
    fn label(&self) -> String {
        format!("n={},days={}", self.n, self.days)
    }

    fn rates(&self) -> Vec<f64> {
        rates::level_rates(RateProposal::A, 4, self.n).expect("valid rate vector")
    }

    fn workload(&self, rates: &[f64]) -> HeteroWorkload {
        let mut w = HeteroWorkload::new(rates.iter().sum(), LOAD);
        w.book_ahead.1 = self.days * 24.0;
        w
    }
}

fn env_list<T: std::str::FromStr>(name: &str) -> Option<Vec<T>> {
    let v = std::env::var(name).ok()?;
    Some(v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
}

fn cases() -> Vec<Case> {
    let quick = std::env::var("GRIDSCHED_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let (days, ns): (Vec<f64>, Vec<u32>) = if quick {
        (vec![14.0, 140.0], vec![120, 1_200])
    } else {
        (
            vec![14.0, 140.0, 1_064.0, 10_640.0],
            vec![120, 1_200, 8_700, 12_000],
        )
    };
    let days = env_list("GRIDSCHED_BENCH_HETERO_DAYS").unwrap_or(days);
    let ns = env_list("GRIDSCHED_BENCH_HETERO_N").unwrap_or(ns);
    let axes: Option<Vec<String>> = env_list("GRIDSCHED_BENCH_HETERO_AXIS");
    let wants = |axis: &str| axes.as_ref().is_none_or(|a| a.iter().any(|x| x == axis));
    let mut out = Vec::new();
    if wants("lookahead") {
        out.extend(days.iter().map(|&days| Case {
            axis: "lookahead",
            n: 120,
            days,
        }));
    }
    if wants("servers") {
        out.extend(ns.iter().map(|&n| Case {
            axis: "servers",
            n,
            days: 14.0,
        }));
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

/// Appends one record to the hetero steady-state CSV: the warmed state (`algorithm` =
/// `warm-up`) or one algorithm's timed decisions (operations per decision, live periods after).
fn record(case: &Case, algorithm: &str, periods: usize, seconds: f64, ops: f64, decisions: u64) {
    let dir = criterion_dir();
    let path = dir.join("gridsched-hetero-steady-state.csv");
    let _ = std::fs::create_dir_all(&dir);
    let new = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if new {
            let _ = writeln!(
                f,
                "axis,n,days,algorithm,idle_periods,seconds,ops_per_decision,decisions"
            );
        }
        let _ = writeln!(
            f,
            "{},{},{},{algorithm},{periods},{seconds:.1},{ops:.1},{decisions}",
            case.axis, case.n, case.days
        );
    }
}

fn window(r: &WorkRequest) -> Window {
    Window::new(r.ready, r.work, r.deadline).expect("the thesis's deadlines follow the size")
}

/// Feeds an FF-HA+ scheduler until arrivals span two look-aheads; returns it and the
/// continuing stream.
fn warm(case: &Case, rates: &[f64]) -> (HeteroScheduler, HeteroStream) {
    let t = Instant::now();
    let key = StreamKey::new(2008, "bench-hetero");
    let mut stream = case.workload(rates).stream(&key).expect("valid workload");
    let config = HeteroConfig::new(rates.to_vec(), HeteroAlgorithm::FfHaPlus);
    let mut s = HeteroScheduler::new(config).expect("valid configuration");
    let until = 2.0 * case.days * 24.0;
    let mut jobs = 0u64;
    for r in stream.by_ref() {
        s.submit(r.arrival, &window(&r)).expect("valid request");
        jobs += 1;
        if r.arrival >= until {
            break;
        }
    }
    let periods = s.live_periods();
    let elapsed = t.elapsed().as_secs_f64();
    eprintln!(
        "warm {} {}: {jobs} jobs, {periods} live idle periods ({elapsed:.1} s)",
        case.axis,
        case.label()
    );
    record(case, "warm-up", periods, elapsed, 0.0, jobs);
    (s, stream)
}

/// Times `iters` decisions of `scheduler` on the next `iters` requests of `stream`.
fn time_decisions(
    scheduler: &mut HeteroScheduler,
    stream: &mut HeteroStream,
    iters: u64,
) -> Duration {
    let requests: Vec<(f64, Window)> = stream
        .by_ref()
        .take(iters as usize)
        .map(|r| (r.arrival, window(&r)))
        .collect();
    let start = Instant::now();
    for (arrival, w) in &requests {
        black_box(
            scheduler
                .submit(*arrival, black_box(w))
                .expect("valid request"),
        );
    }
    start.elapsed()
}

fn bench_axis(c: &mut Criterion, axis: &str, only: Option<&[String]>) {
    let mut group = c.benchmark_group(format!("hetero/{axis}"));
    for case in cases().into_iter().filter(|c| c.axis == axis) {
        let rates = case.rates();
        let (warmed, stream) = warm(&case, &rates);
        let state = warmed.state();
        drop(warmed);
        let v = state.idle_periods.len();
        for algorithm in HeteroAlgorithm::ALL {
            if only.is_some_and(|o| !o.iter().any(|a| a == algorithm.name())) {
                continue;
            }
            let config = HeteroConfig::new(rates.clone(), algorithm);
            let mut scheduler = HeteroScheduler::from_state(config, &state).expect("valid state");
            let mut stream = stream.clone();
            // A list scan over ~10^5 live periods or more takes 0.1-10 ms: few, flat samples
            // there; the others take microseconds.
            let slow = algorithm != HeteroAlgorithm::FfHaPlus && v > 50_000;
            if slow {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(3));
            } else {
                group
                    .sampling_mode(SamplingMode::Auto)
                    .sample_size(20)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            }
            let (mut decisions, ops_before) = (0u64, scheduler.operations());
            let t = Instant::now();
            group.bench_function(BenchmarkId::new(algorithm.name(), case.label()), |b| {
                b.iter_custom(|iters| {
                    decisions += iters;
                    time_decisions(&mut scheduler, &mut stream, iters)
                });
            });
            let ops = (scheduler.operations() - ops_before) as f64 / decisions.max(1) as f64;
            record(
                &case,
                algorithm.name(),
                scheduler.live_periods(),
                t.elapsed().as_secs_f64(),
                ops,
                decisions,
            );
        }
    }
    group.finish();
}

fn hetero(c: &mut Criterion) {
    let only: Option<Vec<String>> = env_list("GRIDSCHED_BENCH_HETERO_ALGORITHM");
    for axis in ["lookahead", "servers"] {
        bench_axis(c, axis, only.as_deref());
    }
}

criterion_group!(benches, hetero);
criterion_main!(benches);
