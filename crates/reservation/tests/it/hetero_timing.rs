//! Per-decision CPU time of FF-HU, FF-HA and FF-HA+ as the number of live idle periods `V`
//! grows (the thesis's scalability claim, §4.4). Informational, so ignored by default; run it
//! in release mode:
//!
//! ```sh
//! cargo test --release -p gridsched-reservation --test it hetero_timing:: -- --ignored --nocapture
//! ```
//!
//! The chapter-4 system (rates: proposal A, level 4) at load 0.8 is grown to hold about `V`
//! live idle periods in two ways: more servers `n` (14-day book-ahead), or the thesis's 120
//! servers with a longer book-ahead ("long time horizons for advance reservations"). FF-HA+
//! fills the look-ahead twice over; then every algorithm continues from that very state
//! (`from_state`) and the time of its next decisions (search, booking and fragment updates,
//! expiry) is measured. `HETERO_TIMING=n120` (or `n`, `horizon`) restricts the runs.

use std::time::Instant;

use gridsched_geom::Window;
use gridsched_reservation::hetero::{
    HeteroAlgorithm, HeteroConfig, HeteroScheduler, RateProposal, rates,
};
use gridsched_sim::StreamKey;
use gridsched_workload::hetero::{HeteroWorkload, WorkRequest};

fn measure(servers: u32, book_ahead_days: f64, decisions: usize) {
    let rates = rates::level_rates(RateProposal::A, 4, servers).unwrap();
    let total: f64 = rates.iter().sum();
    let mut workload = HeteroWorkload::new(total, 0.8);
    workload.book_ahead.1 = book_ahead_days * 24.0;
    // Warm-up: about two look-aheads' worth of jobs.
    let warm = (2.0 * workload.book_ahead.1 * workload.arrival_rate()) as usize;
    let reqs: Vec<WorkRequest> = workload
        .stream(&StreamKey::new(1, "hetero-timing"))
        .unwrap()
        .take(warm + decisions)
        .collect();
    let config = |a| HeteroConfig::new(rates.clone(), a);
    let mut warmer = HeteroScheduler::new(config(HeteroAlgorithm::FfHaPlus)).unwrap();
    let t0 = Instant::now();
    for r in &reqs[..warm] {
        let w = Window::new(r.ready, r.work, r.deadline).unwrap();
        warmer.submit(r.arrival, &w).unwrap();
    }
    let warm_s = t0.elapsed().as_secs_f64();
    let state = warmer.state();
    let v = state.idle_periods.len();
    let mut line = format!(
        "n = {servers:>5}  book-ahead {book_ahead_days:>5} d  V = {v:>7}  (warm-up {warm} jobs, {warm_s:.1} s)"
    );
    let mut per = Vec::new();
    for a in HeteroAlgorithm::ALL {
        let mut s = HeteroScheduler::from_state(config(a), &state).unwrap();
        let before = s.operations();
        let t = Instant::now();
        let mut accepted = 0;
        for r in &reqs[warm..] {
            let w = Window::new(r.ready, r.work, r.deadline).unwrap();
            accepted += usize::from(s.submit(r.arrival, &w).unwrap().is_some());
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / decisions as f64;
        let ops = (s.operations() - before) as f64 / decisions as f64;
        per.push(us);
        line += &format!(
            "\n    {:<10} {us:>9.2} us/decision  {ops:>9.1} ops/decision  accepted {accepted}",
            a.name()
        );
    }
    line += &format!(
        "\n    FF-HA / FF-HA+ = {:.1}x, FF-HU / FF-HA+ = {:.1}x",
        per[1] / per[2],
        per[0] / per[2]
    );
    println!("{line}");
}

#[test]
#[ignore = "timing run; use --release --ignored --nocapture"]
fn per_decision_time_as_v_grows() {
    let only = std::env::var("HETERO_TIMING").unwrap_or_default();
    let runs: [(&str, u32, f64, usize); 6] = [
        ("n120", 120, 14.0, 20_000),
        ("n", 400, 14.0, 20_000),
        ("n", 4000, 14.0, 5_000),
        ("horizon", 120, 140.0, 20_000),
        ("horizon", 120, 1400.0, 5_000),
        ("n", 40, 14.0, 20_000),
    ];
    for (tag, servers, days, decisions) in runs {
        if only.is_empty() || only.split(',').any(|t| t == tag) {
            measure(servers, days, decisions);
        }
    }
}
