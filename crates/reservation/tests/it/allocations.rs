//! Deciding a job allocates nothing in the steady state (GUIDE: no allocation per event), in
//! chapter 3's reservations and chapter 5's co-allocation.
//!
//! A counting allocator (`allocation-counter`, per thread, so that tests running beside it do
//! not count) measures the allocations of `submit` + `RunRecorder::record` over a chapter-3
//! stream after a warm-up that lets every buffer reach its working size. Amortized growth of a
//! buffer is allowed (a few allocations per ten thousand jobs), and so are the rarer splits of
//! a data structure's nodes, stated per strategy below; an allocation per job, per expiry or
//! per strip rotation is not. Co-allocation is measured by the difference between two runs of
//! different lengths (a run cannot be paused after its warm-up).

use gridsched_reservation::{
    IndexKind, ReservationScheduler, RunRecorder, SchedulerConfig, SizeBins, Strategy,
};
use gridsched_sim::StreamKey;
use gridsched_workload::{Request, ReservationWorkload};

/// Allocations per job over `measured` jobs after `warm` jobs, for one strategy.
fn allocations_per_job(strategy: Strategy, index: IndexKind, load: f64) -> f64 {
    let (warm, measured) = (20_000, 60_000);
    let workload = ReservationWorkload::castillo_ch3(20, load);
    let key = StreamKey::new(2008, "allocations").replication(0);
    let jobs: Vec<Request> = workload
        .stream(&key)
        .unwrap()
        .take(warm + measured)
        .collect();
    let mut config = SchedulerConfig::new(20, strategy);
    config.index = index;
    let mut scheduler = ReservationScheduler::new(config).unwrap();
    let mut recorder = RunRecorder::new(20, SizeBins::from_pareto(&workload.sizes, 100));
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

/// Co-allocation (Castillo ch. 5) on a synthetic stream: `n` requests, Poisson arrivals at
/// offered load 0.7 of 256 servers, widths U{1..64}, durations log-uniform in [1 min, 10 h].
fn coalloc_stream(n: usize) -> Vec<gridsched_reservation::coalloc::CoallocRequest> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(18);
    let (lo, hi) = (60f64.ln(), 36_000f64.ln());
    let mean_len = (36_000.0 - 60.0) / (hi - lo);
    let rate = 0.7 * 256.0 / (32.5 * mean_len);
    let mut t = 0.0f64;
    (0..n)
        .map(|i| {
            t += -(1.0 - rng.random::<f64>()).ln() / rate;
            let length = (lo + (hi - lo) * rng.random::<f64>()).exp().round() as i64;
            let submit = t.round() as i64;
            gridsched_reservation::coalloc::CoallocRequest {
                id: i as u64,
                submit,
                start: submit,
                length: length.max(1),
                servers: rng.random_range(1..=64),
                batch_wait: None,
            }
        })
        .collect()
}

/// The allocations a whole co-allocation run makes, outcomes included.
fn coalloc_allocations(requests: &[gridsched_reservation::coalloc::CoallocRequest]) -> u64 {
    use gridsched_reservation::coalloc::{CoallocConfig, CoallocScheduler};
    let config = CoallocConfig {
        servers: 256,
        ..CoallocConfig::default()
    };
    let scheduler = CoallocScheduler::new(config).unwrap();
    allocation_counter::measure(|| {
        std::hint::black_box(scheduler.run(requests, false).unwrap());
    })
    .count_total
}

/// A co-allocation reservation rewrites the period lists of every quantum it spans; those
/// lists keep their buffers, so the marginal allocations per request (between a run of 2,000
/// and one of 12,000 requests of the same stream) stay well below one: 0.05 measured. Before the
/// lists merged in place and kept emptied buffers, a list update reallocated: 1.5 per request
/// on this stream.
#[test]
fn coalloc_reservations_reuse_their_buffers() {
    let requests = coalloc_stream(12_000);
    let short = coalloc_allocations(&requests[..2_000]);
    let long = coalloc_allocations(&requests);
    let per_request = (long.saturating_sub(short)) as f64 / 10_000.0;
    assert!(
        per_request < 0.15,
        "{per_request:.3} allocations per co-allocation request (runs of 2,000: {short}, \
         12,000: {long})"
    );
}
