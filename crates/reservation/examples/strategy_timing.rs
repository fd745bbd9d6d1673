//! Wall-clock cost of one scheduling decision (advance + select + carve) per strategy and index.
//!
//! ```text
//! cargo run --release -p gridsched-reservation --example strategy_timing
//!     [-- [--n 20,100] [--strategies first-fit,min-lip] [--index tree,linear] [--jobs 300000]
//!         [--reps 1]]
//! cargo run --release -p gridsched-reservation --example strategy_timing -- scale
//!     [--n 2000,20000] [--strategies first-fit,min-lip] [--seconds 0.5]
//! ```
//!
//! Times are CPU time of the measuring thread where Linux provides it (less disturbed by other
//! processes on a shared machine than wall-clock time). The default mode times `--jobs` decisions of a fresh scheduler (ρ = 0.9, L = 200, q = 0.1,
//! bounded-Pareto sizes on [1, 50]) and prints µs/decision (the best of `--reps` runs).
//!
//! `scale` warms a tree-backed scheduler at load 0.9 until its horizon is full (arrivals up to
//! t = 1.5 L), snapshots it, loads the snapshot into a tree-backed and a linear-backed
//! scheduler and times further decisions on both for about `--seconds` each (the decisions
//! both made are asserted identical); then the same for queries alone (advance + the
//! strategy's rules, no carving) on a `TreeIndex` and a `LinearIndex` loaded with the
//! snapshot.

use std::time::Instant;

use gridsched_geom::{
    IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StripGeometry, StripOrder, TreeConfig,
    TreeIndex,
};
use gridsched_reservation::*;
use gridsched_sim::StreamKey;
use gridsched_workload::{Request, ReservationWorkload};

/// A clock that counts only the time this thread spent on a CPU (Linux
/// `/proc/thread-self/schedstat`, in ns), so that other processes sharing the machine inflate
/// the measurement less; wall-clock time elsewhere.
struct Clock(Option<u64>, Instant);

fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Self {
        Clock(thread_cpu_ns(), Instant::now())
    }

    /// Seconds since `start`.
    fn elapsed(&self) -> f64 {
        match (self.0, thread_cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
            _ => self.1.elapsed().as_secs_f64(),
        }
    }
}

fn workload(n: u32) -> ReservationWorkload {
    ReservationWorkload::castillo_ch3(n, 0.9)
}

fn list<T>(args: &[String], flag: &str, default: Vec<T>, parse: impl Fn(&str) -> T) -> Vec<T> {
    match args.iter().position(|a| a == flag) {
        Some(i) => args[i + 1].split(',').map(parse).collect(),
        None => default,
    }
}

fn index_name(k: IndexKind) -> &'static str {
    match k {
        IndexKind::Tree => "Tree",
        IndexKind::Linear => "Linear",
    }
}

fn per_decision(args: &[String]) {
    let ns = list(args, "--n", vec![20u32, 100], |s| s.parse().unwrap());
    let strategies = list(args, "--strategies", Strategy::ALL.to_vec(), |s| {
        s.parse().unwrap()
    });
    let indexes = list(
        args,
        "--index",
        vec![IndexKind::Tree, IndexKind::Linear],
        |s| IndexKind::from_name(s).unwrap(),
    );
    let jobs = list(args, "--jobs", vec![300_000usize], |s| s.parse().unwrap())[0];
    let reps = list(args, "--reps", vec![1usize], |s| s.parse().unwrap())[0];
    for &n in &ns {
        let key = StreamKey::new(1, "t");
        let reqs: Vec<_> = workload(n).stream(&key).unwrap().take(jobs).collect();
        for &index in &indexes {
            for &strategy in &strategies {
                let mut best = f64::INFINITY;
                let mut accepted = 0;
                let mut ops = 0;
                for _ in 0..reps {
                    let mut c = SchedulerConfig::new(n, strategy);
                    c.index = index;
                    let mut s = ReservationScheduler::new(c).unwrap();
                    let t = Clock::start();
                    accepted = 0;
                    for r in &reqs {
                        accepted += usize::from(s.submit(r.arrival, &r.window).unwrap().is_some());
                    }
                    best = best.min(t.elapsed());
                    ops = s.operations();
                }
                println!(
                    "n={n} {} {:10} {:.3} us/decision  (accepted {accepted}, {:.1} ops/decision)",
                    index_name(index),
                    strategy.name(),
                    best * 1e6 / jobs as f64,
                    ops as f64 / jobs as f64
                );
            }
        }
    }
}

/// Runs `step(i)` for `i = 0, 1, ...` (at most `max` times) until about `budget` seconds of
/// wall-clock time have passed; returns (CPU seconds per step, steps run).
fn timed(max: usize, budget: f64, mut step: impl FnMut(usize)) -> (f64, usize) {
    let wall = Instant::now();
    let cpu = Clock::start();
    let mut i = 0;
    while i < max && (i % 64 != 0 || wall.elapsed().as_secs_f64() < budget) {
        step(i);
        i += 1;
    }
    (cpu.elapsed() / i.max(1) as f64, i)
}

fn scale(args: &[String]) {
    let ns = list(args, "--n", vec![2_000u32, 20_000], |s| s.parse().unwrap());
    let strategies = list(
        args,
        "--strategies",
        vec![Strategy::FirstFit, Strategy::MinLip],
        |s| s.parse().unwrap(),
    );
    let budget = list(args, "--seconds", vec![0.5f64], |s| s.parse().unwrap())[0];
    for &n in &ns {
        for &strategy in &strategies {
            let w = workload(n);
            let mut stream = w.stream(&StreamKey::new(7, "scale")).unwrap();
            let config = SchedulerConfig::new(n, strategy);
            let mut warm = ReservationScheduler::new(config).unwrap();
            // Fill the horizon: arrivals over 1.5 L time units.
            let t = Clock::start();
            let mut warmed = 0usize;
            let mut last = 0.0;
            for r in stream.by_ref() {
                warm.submit(r.arrival, &r.window).unwrap();
                warmed += 1;
                last = r.arrival;
                if r.arrival > 300.0 {
                    break;
                }
            }
            let warm_time = t.elapsed();
            let state = warm.state();
            let live = state.idle_periods.len();
            // Enough requests for `budget` seconds of tree decisions (about 1 us each).
            let reqs: Vec<_> = stream.take((budget * 2e6) as usize).collect();
            let mut per = Vec::new();
            let mut decisions = Vec::new();
            for index in [IndexKind::Tree, IndexKind::Linear] {
                let mut c = config;
                c.index = index;
                let mut s = ReservationScheduler::from_state(c, &state).unwrap();
                let ops = s.operations();
                let mut d = Vec::new();
                let (secs, runs) = timed(reqs.len(), budget, |i| {
                    d.push(s.submit(reqs[i].arrival, &reqs[i].window).unwrap());
                });
                per.push((
                    secs * 1e6,
                    (s.operations() - ops) as f64 / runs as f64,
                    runs,
                ));
                decisions.push(d);
            }
            let common = per[1].2;
            assert_eq!(
                decisions[0][..common],
                decisions[1][..common],
                "tree and linear decisions differ"
            );
            let q = time_queries(state.now, &state.idle_periods, strategy, &reqs, budget);
            println!(
                "n={n} {:10} warm {warmed} requests to t={last:.0} in {warm_time:.1} s \
                 ({:.2} us/decision), {live} live periods\n  decisions: tree {:.3} us \
                 ({:.0} ops, {} timed), linear {:.3} us ({:.0} ops, {} timed): ratio {:.1}x\n  \
                 queries only (advance + select, no carving): tree {:.3} us, linear {:.3} us: \
                 ratio {:.1}x",
                strategy.name(),
                warm_time * 1e6 / warmed as f64,
                per[0].0,
                per[0].1,
                per[0].2,
                per[1].0,
                per[1].1,
                per[1].2,
                per[1].0 / per[0].0,
                q.0,
                q.1,
                q.1 / q.0
            );
        }
    }
}

/// The rules a strategy asks with the default options (as `StrategyOptions::steps`).
fn rules(strategy: Strategy) -> Vec<Rule> {
    let r2 = Rule::LongestInFirstStartStrip;
    let r1 = Rule::LatestStartBeforeReady {
        skip_ready_strip: false,
    };
    let tip1 = Rule::LongestInEndStrip {
        order: StripOrder::LatestFirst,
    };
    match strategy {
        Strategy::FirstFit => vec![Rule::EarliestFeasible],
        Strategy::BestFit => vec![Rule::ShortestFeasible],
        Strategy::MinLip => vec![r2, r1],
        Strategy::MinTip => vec![tip1, Rule::EarliestEndAfterDeadline],
        Strategy::MaxLip => vec![Rule::EarliestStartBeforeReady, r2],
        Strategy::MaxTip => vec![Rule::LatestEndAfterDeadline, tip1],
        Strategy::Lact => Vec::new(),
    }
}

/// µs per request of `advance` + every rule of the strategy (no carving, so the state stays
/// the snapshot's but for expiry) on a tree index and on the linear index, each for about
/// `budget` seconds; the answers to the requests both saw are asserted equal.
fn time_queries(
    now: f64,
    periods: &[IdlePeriod],
    strategy: Strategy,
    reqs: &[Request],
    budget: f64,
) -> (f64, f64) {
    let geometry = StripGeometry::for_min_length(1.0, 1);
    let rules = rules(strategy);
    let tree = TreeIndex::new(TreeConfig::new(geometry, 200.0), &rules);
    let mut indexes: [Box<dyn IdlePeriodIndex>; 2] =
        [Box::new(tree), Box::new(LinearIndex::new(geometry))];
    let mut times = [0.0; 2];
    let mut answers = [Vec::new(), Vec::new()];
    for (i, ix) in indexes.iter_mut().enumerate() {
        ix.advance(now);
        for p in periods {
            ix.insert(*p);
        }
        let (secs, _) = timed(reqs.len(), budget, |j| {
            ix.advance(reqs[j].arrival);
            for rule in &rules {
                answers[i].push(ix.select(*rule, &reqs[j].window));
            }
        });
        times[i] = secs * 1e6;
    }
    let common = answers[1].len();
    assert_eq!(
        answers[0][..common],
        answers[1][..common],
        "tree and linear answers differ"
    );
    (times[0], times[1])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "scale") {
        scale(&args);
    } else {
        per_decision(&args);
    }
}
