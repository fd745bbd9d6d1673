//! Singh (2008), chapter 5: price queries per second on the CTC log (issue 15, item 7).
//!
//! Group `provisioning/pricing/ctc`, benchmarks `<operation>/policy=<p>,queued=<Q>`. The CTC
//! SP2 log (430 processors, exact run times) simulated by the batch simulator under
//! conservative backfilling (`policy=conservative`) or EASY (`policy=easy`); the simulator is
//! stepped through the whole log and the site's state ([`SiteState::of`]) is taken the first
//! time the queue holds at least 25, 100 and 400 jobs. A target the log never reaches under a
//! policy is replaced by the state with the longest queue (when longer than the previous
//! target). `Q` is the queue length of the state taken. Each state gets a [`Pricer`] under
//! the same policy, and a request of 64 processors × 2 h (`SLOT`):
//! - `price-delaying`: one query (17) ([`Pricer::price`], one Figure 22 evaluation) at the
//!   earliest feasible start whose price is positive (the slot delays queued jobs);
//! - `price-free`: one query (17) at the earliest zero-price start (what eq. 20 picks with
//!   α = 1); it is priced by re-scheduling the queue when the slot overlaps a planned job,
//!   without when it lies after them (the record says which);
//! - `query`: one query (18) ([`Pricer::query`] with no earliest start): every feasible
//!   candidate start, each priced; throughput = the candidates priced;
//! - `pricer-new`: [`Pricer::new`] (schedules the queue once under the policy; the state is
//!   cloned outside the timed section). Not `new`: the report reader takes any directory
//!   named `new` for criterion's results.
//!
//! The two `price-*` benchmarks have throughput one element, so criterion prints price queries
//! per second. `<criterion dir>/gridsched-provisioning-pricing.csv` records each state (time,
//! running jobs, candidates) and the two priced starts. `pricing.report.toml` beside this file
//! turns the results into docs/benchmarks.md. Without the CTC log the bench prints a notice
//! and measures nothing.
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps only the 100-job states.

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{quick, record};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time, swf::trace_jobs};
use gridsched_provisioning::{HOUR, Pricer, PricingPolicy, SiteState, choose};
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

/// The CTC SP2 as the thesis simulates it.
const CTC_PROCS: u32 = 430;

/// The priced request: processors × duration.
const SLOT: (u32, Time) = (64, 2 * HOUR);

fn targets() -> Vec<usize> {
    if quick() {
        vec![100]
    } else {
        vec![25, 100, 400]
    }
}

/// The whole CTC log's jobs (none wider than the site), or `None` without the data.
fn ctc_jobs() -> Option<Vec<Job>> {
    let path = trace_path(&data_dir(None), "CTC");
    let log = load_swf(&path, SwfLoadOptions { limit: None }).ok()?;
    let jobs = trace_jobs(&log, CTC_PROCS).jobs;
    (!jobs.is_empty()).then_some(jobs)
}

/// The site states of the CTC log under `policy` (exact run times) at the queue lengths of
/// `targets` (see the module documentation), in target order.
fn states(jobs: &[Job], policy: Policy, targets: &[usize]) -> Vec<SiteState> {
    let mut sim = Simulator::with_jobs(
        Platform::cluster(CTC_PROCS).expect("cluster"),
        Config::new(policy)
            .estimates(Estimates::Actual)
            .check_invariants(false),
        jobs.to_vec(),
    )
    .expect("valid jobs");
    let mut found: Vec<SiteState> = Vec::new();
    let mut longest: Option<SiteState> = None;
    let started = Instant::now();
    while found.len() < targets.len() && sim.step() {
        let queued = sim.queued().len();
        if queued >= targets[found.len()] {
            found.push(SiteState::of(&sim).expect("a cluster"));
        } else if longest.as_ref().is_none_or(|s| queued > s.queue().len()) {
            longest = Some(SiteState::of(&sim).expect("a cluster"));
        }
    }
    if found.len() < targets.len() {
        let below = found.last().map_or(0, |s| s.queue().len());
        eprintln!(
            "NOTICE: CTC under {}: the queue never holds {} jobs (longest {}, at t = {} s)",
            policy.name(),
            targets[found.len()],
            longest.as_ref().map_or(0, |s| s.queue().len()),
            longest.as_ref().map_or(0, |s| s.now()),
        );
        if let Some(s) = longest.filter(|s| s.queue().len() > below) {
            found.push(s);
        }
    }
    eprintln!(
        "CTC under {} ({} jobs): states with {:?} queued jobs (simulated in {:.2} s)",
        policy.name(),
        jobs.len(),
        found.iter().map(|s| s.queue().len()).collect::<Vec<_>>(),
        started.elapsed().as_secs_f64()
    );
    found
}

fn pricing(c: &mut Criterion) {
    let Some(jobs) = ctc_jobs() else {
        eprintln!("NOTICE: no CTC log in the data directory; provisioning/pricing skipped");
        return;
    };
    let targets = targets();
    let (procs, dur) = SLOT;
    let mut group = c.benchmark_group("provisioning/pricing/ctc");
    for (policy, pricing) in [
        (Policy::Conservative, PricingPolicy::Conservative),
        (Policy::Easy, PricingPolicy::Easy),
    ] {
        for state in states(&jobs, policy, &targets) {
            let queued = state.queue().len();
            let now = state.now();
            let running = state.fixed().len();
            let mut pricer = Pricer::new(state.clone(), pricing);
            let quotes = pricer.query(procs, dur, None).expect("a valid request");
            let candidates = quotes.len();
            let delaying = quotes.iter().find(|q| q.delayed > 0).copied();
            let free = quotes[choose(&quotes, 1.0).expect("never empty")];
            // Whether pricing the free start re-schedules the queue (the slot overlaps a
            // planned job) or stops at the overlap test.
            let end = free.start + dur;
            let rescheduled = pricer
                .planned_starts()
                .iter()
                .zip(pricer.state().queue())
                .any(|(&s, q)| s < end && free.start < s + q.run);
            let hours = |t: Time| (t - now) as f64 / HOUR as f64;
            record(
                "gridsched-provisioning-pricing.csv",
                "site,policy,queued,at,running,candidates,delaying_start_h,delaying_price,\
                 delaying_delayed,free_start_h,free_rescheduled,last_end_h",
                &format!(
                    "ctc,{},{queued},{now},{running},{candidates},{},{},{},{:.2},{rescheduled},{:.2}",
                    pricing.name(),
                    delaying.map_or("".into(), |q| format!("{:.2}", hours(q.start))),
                    delaying.map_or("".into(), |q| format!("{:.1}", q.price)),
                    delaying.map_or("".into(), |q| q.delayed.to_string()),
                    hours(free.start),
                    hours(pricer.last_end()),
                ),
            );
            let id = |op: &str| {
                BenchmarkId::new(op, format!("policy={},queued={queued}", pricing.name()))
            };
            group.sample_size(30);
            group.throughput(Throughput::Elements(1));
            match delaying {
                Some(q) => {
                    group.bench_function(id("price-delaying"), |b| {
                        b.iter(|| {
                            pricer
                                .price(black_box(q.start), black_box(procs), black_box(dur))
                                .unwrap()
                        })
                    });
                }
                None => eprintln!(
                    "NOTICE: {} at {queued} queued: no start delays the queue; \
                     price-delaying skipped",
                    pricing.name()
                ),
            }
            group.bench_function(id("price-free"), |b| {
                b.iter(|| {
                    pricer
                        .price(black_box(free.start), black_box(procs), black_box(dur))
                        .unwrap()
                })
            });
            group.throughput(Throughput::Elements(candidates as u64));
            group.bench_function(id("query"), |b| {
                b.iter(|| {
                    pricer
                        .query(black_box(procs), black_box(dur), None)
                        .unwrap()
                })
            });
            group.throughput(Throughput::Elements(1));
            group.bench_function(id("pricer-new"), |b| {
                b.iter_batched(
                    || state.clone(),
                    |s| Pricer::new(s, pricing),
                    BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, pricing);
criterion_main!(benches);
