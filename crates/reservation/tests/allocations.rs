//! Deciding a job allocates nothing in the steady state (GUIDE: no allocation per event).
//!
//! A counting allocator (per thread, so that tests running beside it do not count) measures the
//! allocations of `submit` + `RunRecorder::record` over a chapter-3 stream after a warm-up
//! that lets every buffer reach its working size. Amortized growth of a buffer is allowed (a
//! few allocations per ten thousand jobs), and so are the rarer splits of a data structure's
//! nodes, stated per strategy below; an allocation per job, per expiry or per strip rotation is
//! not.

use gridsched_reservation::{
    IndexKind, ReservationScheduler, RunRecorder, SchedulerConfig, SizeBins, Strategy,
};
use gridsched_sim::{BoundedPareto, StreamKey};
use gridsched_workload::{ReadyOffset, Request, ReservationWorkload};

/// Allocations per job over `measured` jobs after `warm` jobs, for one strategy.
fn allocations_per_job(strategy: Strategy, index: IndexKind, load: f64) -> f64 {
    let (warm, measured) = (20_000, 60_000);
    let sizes = BoundedPareto::new(1.0, 50.0, 1.2).unwrap();
    let workload = ReservationWorkload {
        servers: 20,
        load,
        sizes,
        look_ahead: 200.0,
        tightness: 0.1,
        ready_offset: ReadyOffset::default(),
    };
    let key = StreamKey::new(2008, "allocations").replication(0);
    let jobs: Vec<Request> = workload
        .stream(&key)
        .unwrap()
        .take(warm + measured)
        .collect();
    let mut config = SchedulerConfig::new(20, strategy);
    config.index = index;
    let mut scheduler = ReservationScheduler::new(config).unwrap();
    let mut recorder = RunRecorder::new(20, SizeBins::from_pareto(&sizes, 100));
    let mut run = |jobs: &[Request]| {
        for request in jobs {
            let ops = scheduler.operations();
            let booking = scheduler.submit(request.arrival, &request.window).unwrap();
            recorder.record(request, booking.as_ref(), scheduler.operations() - ops);
        }
    };
    run(&jobs[..warm]);
    let info = allocation_counter::measure(|| run(&jobs[warm..]));
    info.count_total as f64 / measured as f64
}

/// The most allocations per job each strategy may make in the steady state, and why it makes
/// any. A per-event allocation (a vector per expiry, per strip rotation or per decision) costs
/// 0.05–0.2 per job at these loads and fails.
fn allowed(strategy: Strategy) -> (f64, &'static str) {
    match strategy {
        Strategy::MinLip | Strategy::MinTip | Strategy::BestFit => {
            (0.002, "only amortized growth of vectors")
        }
        Strategy::FirstFit | Strategy::MaxLip | Strategy::MaxTip => (
            0.04,
            "a global set's run of 32 periods splits (one vector) every 16 or more insertions",
        ),
        Strategy::Lact => (
            0.05,
            "std's BTreeSet of server completions splits and merges nodes",
        ),
    }
}

#[test]
fn steady_state_decisions_do_not_allocate() {
    let mut failures = Vec::new();
    for strategy in Strategy::ALL {
        for load in [0.6, 0.9] {
            let per_job = allocations_per_job(strategy, IndexKind::Tree, load);
            let (limit, why) = allowed(strategy);
            if per_job > limit {
                failures.push(format!(
                    "{} at load {load}: {per_job:.4} allocations per job, more than {limit} \
                     ({why})",
                    strategy.name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
