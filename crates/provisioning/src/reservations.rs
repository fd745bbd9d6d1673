//! Chapter 5's site (spec §3 ch. 5, §2.15): a cluster running a best-effort trace under
//! conservative or EASY backfilling, where some jobs ask for a reservation instead of
//! queueing. When such a job arrives, the site prices every candidate start (query (18),
//! Figure 22 under the site's own policy), the job picks one by eq. 20 with its trade-off
//! factor α, and the slot is inserted as a fixed block the queue must go around.
//!
//! The reservation's length is the job's actual run time (spec §6 singh-fig-30 \[AMBIG\]: with
//! inaccurate best-effort estimates, reservations still use the actual run time).

use gridsched_batch::{Config, Job, Outcome, Platform, Policy, SimError, Simulator, Time};

use crate::pricing::{Pricer, PricingError, PricingPolicy, SiteState};

/// A job that reserves instead of queueing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReservationRequest {
    pub id: u64,
    /// When it asks (the query time).
    pub submit: Time,
    pub procs: u32,
    /// The slot's length.
    pub run: Time,
    /// Eq. 20's trade-off factor: 0 the earliest start, 1 the earliest free one.
    pub alpha: f64,
}

/// A reservation as granted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserved {
    pub request: ReservationRequest,
    pub start: Time,
    /// The fixed price `f`, SU.
    pub price: f64,
    /// Queued jobs it delayed.
    pub delayed: u32,
    /// Feasible candidate starts it chose from.
    pub candidates: u32,
    /// Queue length when it asked.
    pub queued: u32,
}

impl Reserved {
    /// Chosen start − query time.
    pub fn wait(&self) -> Time {
        self.start - self.request.submit
    }
}

/// The whole run.
#[derive(Debug, Clone)]
pub struct PricedRun {
    pub reservations: Vec<Reserved>,
    /// The best-effort jobs, finished.
    pub best_effort: Vec<Outcome>,
    pub capacity: u32,
}

impl PricedRun {
    /// Spec §5: Σ procs × actual run time of every job and reservation over capacity × (last
    /// completion − first submission).
    pub fn utilization(&self) -> f64 {
        let first = self
            .best_effort
            .iter()
            .map(|o| o.job.submit)
            .chain(self.reservations.iter().map(|r| r.request.submit))
            .min();
        let last = self
            .best_effort
            .iter()
            .map(|o| o.end)
            .chain(self.reservations.iter().map(|r| r.start + r.request.run))
            .max();
        let (Some(first), Some(last)) = (first, last) else {
            return 0.0;
        };
        let work: f64 = self
            .best_effort
            .iter()
            .map(|o| f64::from(o.job.procs) * (o.end - o.start) as f64)
            .chain(
                self.reservations
                    .iter()
                    .map(|r| f64::from(r.request.procs) * r.request.run as f64),
            )
            .sum();
        work / (f64::from(self.capacity) * (last - first).max(1) as f64)
    }
}

/// Why a priced run failed.
#[derive(Debug, thiserror::Error)]
pub enum PricedRunError {
    #[error("site simulation: {0}")]
    Sim(#[from] SimError),
    #[error("pricing: {0}")]
    Pricing(#[from] PricingError),
    #[error("the site's policy must be conservative or EASY backfilling, not {0}")]
    Policy(&'static str),
    #[error("reservation requests must come in submission order (job {0})")]
    Unsorted(u64),
}

/// Runs `jobs` (best effort) and `requests` (reservations, in submission order) on a cluster
/// of `capacity` processors under `config` (conservative or EASY backfilling; its estimates
/// are what the queue is planned and priced with).
pub fn run_priced_site(
    capacity: u32,
    config: Config,
    jobs: Vec<Job>,
    requests: &[ReservationRequest],
) -> Result<PricedRun, PricedRunError> {
    let policy = match config.policy {
        Policy::Conservative => PricingPolicy::Conservative,
        Policy::Easy => PricingPolicy::Easy,
        p => return Err(PricedRunError::Policy(p.name())),
    };
    if let Some(w) = requests.windows(2).find(|w| w[1].submit < w[0].submit) {
        return Err(PricedRunError::Unsorted(w[1].id));
    }
    let mut sim = Simulator::with_jobs(Platform::cluster(capacity)?, config, jobs)?;
    let mut reservations = Vec::with_capacity(requests.len());
    for &r in requests {
        sim.run_until(r.submit);
        let state = SiteState::of(&sim)?;
        let queued = state.queue().len() as u32;
        let mut pricer = Pricer::new(state, policy);
        let (q, candidates) = pricer.query_choose(r.procs, r.run, None, r.alpha)?;
        sim.add_reservation(0, q.start, q.start + r.run, r.procs)?;
        reservations.push(Reserved {
            request: r,
            start: q.start,
            price: q.price,
            delayed: q.delayed,
            candidates: candidates as u32,
            queued,
        });
    }
    sim.run();
    Ok(PricedRun {
        reservations,
        best_effort: sim.outcomes().collect(),
        capacity,
    })
}
