//! Shared by the integration tests that pin runs recorded before a change.

use gridsched_hierarchical::hierarchy::RunResult;

/// What a pinned run is compared on: TRT, a weighted sum over every job's JCT, SJTT and
/// server (so a moved or retimed job changes it), the event and cancelled-timer counts and the
/// Butterfly / Load-Balance moves.
pub type Fingerprint = (u64, u64, u64, u64, u64, u64);

/// The [`Fingerprint`] of a run.
pub fn fingerprint(r: &RunResult) -> Fingerprint {
    let s: u64 = r
        .records
        .iter()
        .map(|x| x.jct * 3 + x.sjtt + x.server.index() as u64 * 7)
        .sum();
    (
        r.metrics.trt_ms,
        s,
        r.counters.events(),
        r.counters.cancelled,
        r.butterfly_moves,
        r.load_balance_moves,
    )
}
