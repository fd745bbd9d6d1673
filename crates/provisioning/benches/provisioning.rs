//! Singh (2008): the cost of keeping a site's advertised slots, and of evaluating plans.
//!
//! **Slot maintenance** (group `provisioning/slots/<site>`, benchmarks
//! `<operation>/planned=<N>`). A site of the CTC SP2's 430 processors holding `N` planned
//! jobs (`N` = 10 … 10⁴): the first `N` jobs of the CTC log (processors and exact run times),
//! all released at time 0 so that `N` jobs are in the system at once; without the log, a
//! seeded synthetic stream (site `synthetic`). Then the `(N + 1)`-th job arrives:
//! - `incremental`: chapter 3's site inserts it with Figure 2 ([`SlotSite::submit`]); the slot
//!   set is updated in place.
//! - `rebuild`: the slot set recomputed from a conservative-backfilling schedule that already
//!   holds the `N + 1` jobs: [`schedule_holes`] (every running and planned job assigned
//!   processors in start order, the free area cut into per-processor holes and grouped). The
//!   simulator's own insertion of the job into its profile is not timed.
//! - `replay`: the slot set from scratch by Figure 2: an idle site fed all `N + 1` jobs.
//!
//! The site is cloned outside the timed section (`iter_batched`); `rebuild` reads the schedule
//! and builds a new slot set, `replay` a new site, both timed with their allocations.
//! `<criterion dir>/gridsched-provisioning-slots.csv` records the slots of both sets.
//!
//! **Plan evaluation** (group `provisioning/plan/<site>`, benchmarks
//! `<operation>/workflow=<w>,tasks=<n>`). The CTC site replayed with exact run times to day
//! 10 of its log (conservative backfilling), its advertised slots ([`advertised`]: the holes
//! of its schedule) the candidates, and a workflow submitted then: CyberShake built from the
//! thesis's Table 2 with 497 synthSGT/peakValCal pairs (1,001 tasks with the dummy entry and
//! exit), the shipped Pegasus `CyberShake_1000.xml` (1,002 with dummies; skipped when the data
//! is absent), and the thesis's 8,039-task CyberShake (8,041 with dummies).
//! - `evaluate`: one [`Evaluator::evaluate`] of a random plan on one thread (HEFT on the
//!   selected slots, allocation and scheduling cost). The plans are drawn like MOGA's initial
//!   population (each slot with probability ½) and kept when feasible; an infeasible draw gets
//!   further random slots until it is (an infeasible plan stops at its first unplaceable task
//!   and would flatter the time). Iterations cycle through 16 such plans; the evaluator is
//!   reused across iterations, as each MOGA worker reuses its own.
//! - `moga-gen`: one MOGA generation with the thesis's population of 100 on a one-thread rayon
//!   pool: `moga::run` with no generations after the initial one (100 random plans drawn,
//!   evaluated, archived). Infeasible plans of that population are evaluated too, as MOGA
//!   does.
//!
//! `<criterion dir>/gridsched-provisioning-plan.csv` records the candidate slots, the tasks and
//! the share of feasible random draws. `provisioning.report.toml` and
//! `provisioning-plan.report.toml` beside this file turn the results into docs/benchmarks.md.
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps N ∈ {10, 1000} and only the 1,001-task CyberShake.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{quick, record};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time, swf::trace_jobs};
use gridsched_provisioning::moga::{self, MogaConfig};
use gridsched_provisioning::{App, Candidate, Evaluator, SlotSite, advertised, schedule_holes};
use gridsched_sim::StreamKey;
use gridsched_workflow::data::dax_path;
use gridsched_workflow::{CyberShake, ReadOptions, TransferModel, Workflow, read_workflow};
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};
use rand::Rng;

/// The CTC SP2 as the thesis simulates it.
const CTC_PROCS: u32 = 430;

fn sizes() -> Vec<usize> {
    if quick() {
        vec![10, 1000]
    } else {
        vec![10, 100, 1000, 10_000]
    }
}

/// The CTC log's jobs (at most `limit`, none wider than the site), or `None` without the data.
fn ctc_jobs(limit: usize) -> Option<Vec<Job>> {
    let path = trace_path(&data_dir(None), "CTC");
    let log = load_swf(&path, SwfLoadOptions { limit: Some(limit) }).ok()?;
    let jobs = trace_jobs(&log, CTC_PROCS).jobs;
    (!jobs.is_empty()).then_some(jobs)
}

/// `n` jobs (processors, run time) for the slot benchmark, and the site they come from.
fn slot_jobs(n: usize) -> (&'static str, Vec<(u32, Time)>) {
    if let Some(jobs) = ctc_jobs(n + n / 10 + 100)
        && jobs.len() >= n
    {
        return ("ctc", jobs[..n].iter().map(|j| (j.procs, j.run)).collect());
    }
    eprintln!(
        "NOTICE: no CTC log in the data directory; provisioning/slots uses a synthetic stream"
    );
    let mut rng = StreamKey::new(2008, "bench-provisioning")
        .stream("slots")
        .rng();
    let jobs = (0..n)
        .map(|_| {
            let procs = 1u32 << rng.random_range(0..=8u32);
            // Log-uniform run times between one minute and one day.
            let run = (60.0 * 1440f64.powf(rng.random::<f64>())).round() as Time;
            (procs, run)
        })
        .collect();
    ("synthetic", jobs)
}

fn slots(c: &mut Criterion) {
    let ns = sizes();
    let (site_name, all) = slot_jobs(ns.iter().max().unwrap() + 1);
    let mut group = c.benchmark_group(format!("provisioning/slots/{site_name}"));
    for &n in &ns {
        let jobs = &all[..=n];
        let (procs, run) = jobs[n];
        // Figure 2's site with the first N jobs.
        let mut site = SlotSite::new(CTC_PROCS, 0);
        for (i, &(p, r)) in jobs[..n].iter().enumerate() {
            site.submit(i as u64, 0, p, r).expect("fits the site");
        }
        // The conservative schedule with all N + 1.
        let sim_jobs: Vec<Job> = jobs
            .iter()
            .enumerate()
            .map(|(i, &(p, r))| Job::new(i as u64, 0, p, r))
            .collect();
        let mut sim = Simulator::with_jobs(
            Platform::cluster(CTC_PROCS).expect("cluster"),
            Config::new(Policy::Conservative)
                .estimates(Estimates::Actual)
                .check_invariants(false),
            sim_jobs,
        )
        .expect("valid jobs");
        sim.run_until(0);
        let mut after = site.clone();
        after.submit(n as u64, 0, procs, run).expect("fits");
        let holes = schedule_holes(&sim, 0).expect("a valid schedule");
        record(
            "gridsched-provisioning-slots.csv",
            "site,planned,figure2_slots,hole_slots",
            &format!("{site_name},{n},{},{}", after.slots().len(), holes.len()),
        );
        let id = |op: &str| BenchmarkId::new(op, format!("planned={n}"));
        group.sample_size(50);
        group.measurement_time(Duration::from_secs(3));
        group.bench_function(id("incremental"), |b| {
            b.iter_batched(
                || site.clone(),
                |mut s| {
                    black_box(s.submit(n as u64, 0, procs, run).unwrap());
                    s
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(id("rebuild"), |b| {
            b.iter(|| schedule_holes(black_box(&sim), 0).unwrap())
        });
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if n >= 10_000 { 10 } else { 5 }));
        group.bench_function(id("replay"), |b| {
            b.iter(|| {
                let mut s = SlotSite::new(CTC_PROCS, 0);
                for (i, &(p, r)) in black_box(jobs).iter().enumerate() {
                    s.submit(i as u64, 0, p, r).unwrap();
                }
                s
            })
        });
    }
    group.finish();
}

/// The CTC site at day 10 of its log (exact run times, conservative backfilling), or `None`.
fn ctc_site() -> Option<Simulator> {
    const AT: Time = 10 * 86_400;
    let jobs: Vec<Job> = ctc_jobs(20_000)?
        .into_iter()
        .filter(|j| j.submit <= AT)
        .collect();
    let mut sim = Simulator::with_jobs(
        Platform::cluster(CTC_PROCS).ok()?,
        Config::new(Policy::Conservative)
            .estimates(Estimates::Actual)
            .check_invariants(false),
        jobs,
    )
    .ok()?;
    sim.run_until(AT);
    Some(sim)
}

/// The workflows: (name, workflow).
fn workflows() -> Vec<(&'static str, Workflow)> {
    let mut out = vec![(
        "cybershake-table2",
        CyberShake {
            synth_tasks: 497,
            ..CyberShake::default()
        }
        .build()
        .expect("CyberShake"),
    )];
    if quick() {
        return out;
    }
    let path = dax_path(&data_dir(None), "CyberShake_1000.xml");
    match read_workflow(&path, &ReadOptions::default()).and_then(|w| w.with_entry_exit(true)) {
        Ok(w) => out.push(("cybershake-dax", w)),
        Err(e) => eprintln!("NOTICE: {}: {e}; skipped", path.display()),
    }
    out.push((
        "cybershake-table2",
        CyberShake::default().build().expect("CyberShake"),
    ));
    out
}

/// `count` random feasible plans, and the share of feasible first draws.
fn random_plans(
    ev: &mut Evaluator<'_>,
    bits: usize,
    count: usize,
    rng: &mut impl Rng,
) -> (Vec<Vec<bool>>, f64) {
    let mut plans = Vec::with_capacity(count);
    let mut feasible_first = 0usize;
    for _ in 0..count {
        let mut g: Vec<bool> = (0..bits).map(|_| rng.random_bool(0.5)).collect();
        if ev.evaluate(&g).feasible() {
            feasible_first += 1;
        }
        // Add random slots until it is feasible (all slots always are: every processor's last
        // hole is open-ended).
        while !ev.evaluate(&g).feasible() {
            for b in g.iter_mut() {
                *b |= rng.random_bool(0.5);
            }
        }
        plans.push(g);
    }
    (plans, feasible_first as f64 / count as f64)
}

fn plans(c: &mut Criterion) {
    let Some(sim) = ctc_site() else {
        eprintln!("NOTICE: no CTC log in the data directory; provisioning/plan skipped");
        return;
    };
    let submit = sim.now();
    let candidates: Vec<Candidate> = advertised(std::slice::from_ref(&sim)).expect("holes");
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let mut group = c.benchmark_group("provisioning/plan/ctc");
    for (name, wf) in workflows() {
        let app = App::from_workflow(&wf, &TransferModel::none());
        let tasks = app.len();
        let mut ev = Evaluator::new(&app, &candidates, submit);
        let mut rng = StreamKey::new(2008, "bench-provisioning")
            .stream(name)
            .rng();
        let (pool, feasible) = random_plans(&mut ev, candidates.len(), 16, &mut rng);
        record(
            "gridsched-provisioning-plan.csv",
            "site,workflow,tasks,candidates,feasible_draws",
            &format!("ctc,{name},{tasks},{},{feasible:.2}", candidates.len()),
        );
        let id = |op: &str| BenchmarkId::new(op, format!("workflow={name},tasks={tasks}"));
        group.sample_size(20);
        group.measurement_time(Duration::from_secs(if tasks > 2000 { 10 } else { 4 }));
        group.bench_function(id("evaluate"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % pool.len();
                black_box(ev.evaluate(black_box(&pool[i])))
            })
        });
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(5));
        let config = MogaConfig {
            generations: 0,
            ..MogaConfig::default()
        };
        group.bench_function(id("moga-gen"), |b| {
            b.iter_batched(
                || {
                    StreamKey::new(2008, "bench-provisioning")
                        .stream("moga")
                        .rng()
                },
                |mut rng| {
                    single.install(|| {
                        moga::run(candidates.len(), &config, &mut rng, || {
                            let mut e = Evaluator::new(&app, &candidates, submit);
                            move |g: &[bool]| e.evaluate(g)
                        })
                    })
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, slots, plans);
criterion_main!(benches);
