//! Adaptive slot pricing, chapter 5 (spec §2.9–2.11): the price of a reservation is the
//! delay it causes the site's queued best-effort jobs.
//!
//! A [`Pricer`] holds one site's state at one instant ([`SiteState`]: running jobs to their
//! planned ends and fixed reservations, which cannot move, and the queue in order) and the
//! schedule of the queue under the site's policy. Pricing a slot `(s, n, d)` is Figure 22:
//!
//! 1. `v_q`: the start of every queued job `q` in the schedule without the slot (computed once
//!    per state);
//! 2. a slot that overlaps running jobs or fixed reservations is infeasible (price ∞; queued
//!    jobs do not make a slot infeasible, they make it expensive);
//! 3. `v'_q`: the starts with the slot in place as a fixed block;
//! 4. `f = Σ_q n_q · max(0, v'_q − v_q)`, in SU (processor-hours).
//!
//! "The schedule of the queue under policy π" ([`PricingPolicy`]):
//! - **conservative backfilling**: the queue replayed in order, each job at its earliest fit
//!   around the fixed blocks and the jobs before it (spec §2.4 "CB-replay"; with exact run
//!   times, the batch simulator's own plan);
//! - **EASY (aggressive) backfilling**: EASY simulated forward from the state with no further
//!   arrivals, every job running for the scheduler's estimate (spec §2.4 PROPOSAL, \[AMBIG\]).
//!
//! Both are checked against the batch simulator itself (`tests/pricing.rs`): from a state with
//! no future arrivals and exact estimates, the simulator starts every queued job where the
//! pricer plans it.
//!
//! The query forms: (17) a fixed start ([`Pricer::price`]); (18) every candidate start
//! ([`Pricer::query`] with no earliest start): now and every instant where the schedule's
//! availability changes (a start or end of a running job, a planned queued job or a fixed
//! reservation), kept where the slot is feasible; (19) the same from an earliest start `s`
//! ([`Pricer::query`] with `Some(s)`), `s` itself included if feasible. An answer is never
//! empty: after the last planned end the whole site is free and the slot delays nobody, so
//! every answer has a zero price. [`choose`] is eq. 20.

use gridsched_batch::{Profile, Simulator, Time};

use crate::holes::Busy;
use crate::slot::HOUR;

/// The policy whose schedule of the queue the price is measured on (spec §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PricingPolicy {
    /// Conservative backfilling: every queued job has a planned start.
    #[default]
    Conservative,
    /// EASY (aggressive) backfilling, simulated forward with no further arrivals.
    Easy,
}

impl PricingPolicy {
    /// `conservative` (or `cb`) and `easy` (or `aggressive`, `ab`).
    pub fn parse(s: &str) -> Option<PricingPolicy> {
        match s {
            "conservative" | "cb" => Some(PricingPolicy::Conservative),
            "easy" | "aggressive" | "ab" => Some(PricingPolicy::Easy),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PricingPolicy::Conservative => "conservative",
            PricingPolicy::Easy => "easy",
        }
    }
}

/// A queued best-effort job as the scheduler plans it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuedJob {
    pub id: u64,
    pub procs: u32,
    /// The run time the scheduler plans with (its estimate).
    pub run: Time,
}

/// Why a state cannot be priced or a request cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PricingError {
    #[error("the pricer models one cluster; this platform has {0} machines")]
    NotACluster(usize),
    #[error("more than {capacity} processors are held at time {at}")]
    Overfull { capacity: u32, at: Time },
    #[error("queued job {id}: {procs} processors and run time {run} on a site of {capacity}")]
    BadJob {
        id: u64,
        procs: u32,
        run: Time,
        capacity: u32,
    },
    #[error("a request for {procs} processors on a site of {capacity}")]
    TooWide { procs: u32, capacity: u32 },
    #[error("a request needs at least one processor")]
    NoProcessors,
    #[error("a request needs a positive duration (got {0})")]
    NoDuration(Time),
    #[error("a start at {start} is in the past (the site's time is {now})")]
    Past { start: Time, now: Time },
}

/// One site at one instant, as the pricer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteState {
    capacity: u32,
    now: Time,
    /// Running jobs (to their planned ends) and fixed reservations: blocks that cannot move.
    fixed: Vec<Busy>,
    /// The queue, in order.
    queue: Vec<QueuedJob>,
}

impl SiteState {
    /// A state of `capacity` processors at `now`. Blocks ending by `now` are dropped.
    pub fn new(
        capacity: u32,
        now: Time,
        fixed: Vec<Busy>,
        queue: Vec<QueuedJob>,
    ) -> Result<SiteState, PricingError> {
        if let Some(q) = queue
            .iter()
            .find(|q| q.procs == 0 || q.procs > capacity || q.run <= 0)
        {
            return Err(PricingError::BadJob {
                id: q.id,
                procs: q.procs,
                run: q.run,
                capacity,
            });
        }
        let fixed: Vec<Busy> = fixed
            .into_iter()
            .filter(|b| b.end > now && b.procs > 0)
            .map(|b| Busy {
                start: b.start.max(now),
                ..b
            })
            .collect();
        let state = SiteState {
            capacity,
            now,
            fixed,
            queue,
        };
        // Overfull blocks: the profile would go negative somewhere.
        let base = state.base_profile();
        if let Some(&(at, _)) = base.steps().iter().find(|&&(_, level)| level < 0) {
            return Err(PricingError::Overfull { capacity, at });
        }
        Ok(state)
    }

    /// The state of a one-machine batch simulator now: its running jobs at their planned
    /// ends, its fixed reservations and its queue with the run times it plans with.
    pub fn of(sim: &Simulator) -> Result<SiteState, PricingError> {
        let machines = sim.platform().machines();
        if machines.len() != 1 {
            return Err(PricingError::NotACluster(machines.len()));
        }
        let now = sim.now();
        let mut fixed: Vec<Busy> = sim
            .running()
            .iter()
            .map(|r| Busy {
                start: r.start,
                end: r.planned_end,
                procs: r.procs,
            })
            .collect();
        fixed.extend(sim.live_reservations().map(|r| Busy {
            start: r.start,
            end: r.end,
            procs: r.procs,
        }));
        let queue = sim
            .queued()
            .into_iter()
            .map(|i| QueuedJob {
                id: sim.record(i).job.id,
                procs: sim.record(i).job.procs,
                run: sim.planned_run_time(i),
            })
            .collect();
        SiteState::new(machines[0].cpus, now, fixed, queue)
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn fixed(&self) -> &[Busy] {
        &self.fixed
    }

    pub fn queue(&self) -> &[QueuedJob] {
        &self.queue
    }

    /// Free processors around the fixed blocks only.
    fn base_profile(&self) -> Profile {
        let mut p = Profile::new(self.capacity, self.now);
        for b in &self.fixed {
            p.reserve(b.start, b.end, b.procs);
        }
        p
    }
}

/// A priced slot start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quote {
    pub start: Time,
    /// The fixed price `f` in SU (processor-hours); the total is `n·d·c + f`.
    pub price: f64,
    /// Queued jobs the slot delays.
    pub delayed: u32,
}

/// Figure 22 on one site state; see the module documentation.
#[derive(Debug, Clone)]
pub struct Pricer {
    state: SiteState,
    policy: PricingPolicy,
    base: Profile,
    /// `v_q`: planned starts without the slot, in queue order.
    planned: Vec<Time>,
    /// The last end of anything planned (blocks and queued jobs).
    last_end: Time,
    scratch: Profile,
    starts: Vec<Time>,
    waiting: Vec<u32>,
}

impl Pricer {
    /// The pricer of `state` under `policy` (schedules the queue once).
    pub fn new(state: SiteState, policy: PricingPolicy) -> Pricer {
        let base = state.base_profile();
        let mut p = Pricer {
            scratch: base.clone(),
            base,
            state,
            policy,
            planned: Vec::new(),
            last_end: 0,
            starts: Vec::new(),
            waiting: Vec::new(),
        };
        let mut planned = Vec::new();
        p.scratch.clone_from(&p.base);
        p.schedule_into_scratch(&mut planned);
        p.last_end = planned
            .iter()
            .zip(&p.state.queue)
            .map(|(&s, q)| s + q.run)
            .chain(p.state.fixed.iter().map(|b| b.end))
            .fold(p.state.now, Time::max);
        p.planned = planned;
        p
    }

    pub fn state(&self) -> &SiteState {
        &self.state
    }

    pub fn policy(&self) -> PricingPolicy {
        self.policy
    }

    /// `v_q`: the queue's planned starts without any new slot, in queue order.
    pub fn planned_starts(&self) -> &[Time] {
        &self.planned
    }

    /// The end of the last planned block or job: from there on the site is idle.
    pub fn last_end(&self) -> Time {
        self.last_end
    }

    fn check(&self, procs: u32, dur: Time) -> Result<(), PricingError> {
        if procs == 0 {
            return Err(PricingError::NoProcessors);
        }
        if procs > self.state.capacity {
            return Err(PricingError::TooWide {
                procs,
                capacity: self.state.capacity,
            });
        }
        if dur <= 0 {
            return Err(PricingError::NoDuration(dur));
        }
        Ok(())
    }

    /// Whether `procs` processors are free of running jobs and fixed reservations over
    /// `[start, start + dur)` (Figure 22, step 3).
    pub fn is_feasible(&self, start: Time, procs: u32, dur: Time) -> bool {
        start >= self.state.now && procs <= self.state.capacity && self.base.fits(start, dur, procs)
    }

    /// Query (17): the price of a slot at a fixed start, `None` when infeasible (∞).
    pub fn price(
        &mut self,
        start: Time,
        procs: u32,
        dur: Time,
    ) -> Result<Option<Quote>, PricingError> {
        self.check(procs, dur)?;
        if start < self.state.now {
            return Err(PricingError::Past {
                start,
                now: self.state.now,
            });
        }
        if !self.base.fits(start, dur, procs) {
            return Ok(None);
        }
        Ok(Some(self.price_feasible(start, procs, dur)))
    }

    fn price_feasible(&mut self, start: Time, procs: u32, dur: Time) -> Quote {
        let end = start + dur;
        // A slot no planned job overlaps changes nothing: under conservative backfilling every
        // job keeps its earliest fit (the slot only takes capacity where nobody was planned);
        // under EASY the forward simulation makes the same decisions (no job that started in
        // it overlaps the slot, and capacity away from the slot is unchanged).
        let overlaps = self
            .planned
            .iter()
            .zip(&self.state.queue)
            .any(|(&s, q)| s < end && start < s + q.run);
        if !overlaps {
            return Quote {
                start,
                price: 0.0,
                delayed: 0,
            };
        }
        self.scratch.clone_from(&self.base);
        self.scratch.reserve(start, end, procs);
        let mut starts = std::mem::take(&mut self.starts);
        self.schedule_into_scratch(&mut starts);
        let mut area: i128 = 0;
        let mut delayed = 0;
        for ((&v, &w), q) in self.planned.iter().zip(&starts).zip(&self.state.queue) {
            if w > v {
                area += i128::from(q.procs) * i128::from(w - v);
                delayed += 1;
            }
        }
        self.starts = starts;
        Quote {
            start,
            price: area as f64 / HOUR as f64,
            delayed,
        }
    }

    /// The candidate starts of queries (18) and (19) for `procs × dur`, feasible ones only,
    /// in time order: now (or `not_before`) and every later instant where availability
    /// changes.
    pub fn candidates(
        &self,
        procs: u32,
        dur: Time,
        not_before: Option<Time>,
    ) -> Result<Vec<Time>, PricingError> {
        self.check(procs, dur)?;
        let from = match not_before {
            Some(s) if s < self.state.now => {
                return Err(PricingError::Past {
                    start: s,
                    now: self.state.now,
                });
            }
            Some(s) => s,
            None => self.state.now,
        };
        let mut times: Vec<Time> = std::iter::once(from)
            .chain(self.state.fixed.iter().flat_map(|b| [b.start, b.end]))
            .chain(
                self.planned
                    .iter()
                    .zip(&self.state.queue)
                    .flat_map(|(&s, q)| [s, s + q.run]),
            )
            .filter(|&t| t >= from)
            .collect();
        times.sort_unstable();
        times.dedup();
        times.retain(|&t| self.base.fits(t, dur, procs));
        Ok(times)
    }

    /// Queries (18) (`not_before = None`) and (19): every feasible candidate start with its
    /// price, in time order. Never empty for a valid request.
    pub fn query(
        &mut self,
        procs: u32,
        dur: Time,
        not_before: Option<Time>,
    ) -> Result<Vec<Quote>, PricingError> {
        let times = self.candidates(procs, dur, not_before)?;
        Ok(times
            .into_iter()
            .map(|t| self.price_feasible(t, procs, dur))
            .collect())
    }

    /// Schedules the queue on `self.scratch` (which holds the fixed blocks and any slot);
    /// `out[k]` is queued job `k`'s start.
    fn schedule_into_scratch(&mut self, out: &mut Vec<Time>) {
        out.clear();
        let now = self.state.now;
        let queue = &self.state.queue;
        let profile = &mut self.scratch;
        match self.policy {
            PricingPolicy::Conservative => {
                for q in queue {
                    let s = profile
                        .earliest_fit(now, q.run, q.procs)
                        .expect("a finite set of blocks leaves the whole site free at the end");
                    profile.reserve(s, s + q.run, q.procs);
                    out.push(s);
                }
            }
            PricingPolicy::Easy => {
                out.resize(queue.len(), Time::MIN);
                let waiting = &mut self.waiting;
                waiting.clear();
                waiting.extend(0..queue.len() as u32);
                easy_forward(profile, now, queue, waiting, out);
            }
        }
    }
}

/// EASY backfilling simulated forward on `profile` from `now`, with no further arrivals and
/// every job running for its planned run time: at each instant the queue's head starts while
/// it fits; then the head gets a reservation at its earliest fit and every later job that
/// fits now without touching it (or any fixed block) starts. Rounds happen at every change of
/// the profile (a superset of the completion events the batch simulator rounds at; at a point
/// where free capacity only falls nothing new can start).
fn easy_forward(
    profile: &mut Profile,
    now: Time,
    queue: &[QueuedJob],
    waiting: &mut Vec<u32>,
    out: &mut [Time],
) {
    let mut t = now;
    let mut head = 0usize;
    loop {
        profile.advance(t);
        while head < waiting.len() {
            let q = queue[waiting[head] as usize];
            if !profile.fits(t, q.run, q.procs) {
                break;
            }
            profile.reserve(t, t + q.run, q.procs);
            out[waiting[head] as usize] = t;
            head += 1;
        }
        if head == waiting.len() {
            return;
        }
        let h = queue[waiting[head] as usize];
        let shadow = profile
            .earliest_fit(t, h.run, h.procs)
            .expect("a finite set of blocks leaves the whole site free at the end");
        profile.reserve(shadow, shadow + h.run, h.procs);
        let mut kept = head + 1;
        for k in head + 1..waiting.len() {
            let j = waiting[k];
            let q = queue[j as usize];
            if profile.free_now() >= i64::from(q.procs) && profile.fits(t, q.run, q.procs) {
                profile.reserve(t, t + q.run, q.procs);
                out[j as usize] = t;
            } else {
                waiting[kept] = j;
                kept += 1;
            }
        }
        waiting.truncate(kept);
        profile.release(shadow, shadow + h.run, h.procs);
        t = profile
            .next_change(t)
            .expect("a blocked head waits for a change of the profile");
    }
}

/// Eq. 20: the quote minimising `α·(f − f_min)/(f_max − f_min) + (1 − α)·(s − s_min)/(s_max −
/// s_min)`; a term whose range is zero counts as 0, ties go to the earliest start (so α = 1
/// picks the earliest zero-price start, α = 0 the earliest feasible one). `None` if `quotes`
/// is empty.
pub fn choose(quotes: &[Quote], alpha: f64) -> Option<usize> {
    let first = quotes.first()?;
    let (mut f_lo, mut f_hi, mut s_lo, mut s_hi) =
        (first.price, first.price, first.start, first.start);
    for q in quotes {
        f_lo = f_lo.min(q.price);
        f_hi = f_hi.max(q.price);
        s_lo = s_lo.min(q.start);
        s_hi = s_hi.max(q.start);
    }
    let norm = |x: f64, lo: f64, hi: f64| if hi > lo { (x - lo) / (hi - lo) } else { 0.0 };
    let score = |q: &Quote| {
        alpha * norm(q.price, f_lo, f_hi)
            + (1.0 - alpha) * norm(q.start as f64, s_lo as f64, s_hi as f64)
    };
    let mut best = 0;
    for (i, q) in quotes.iter().enumerate().skip(1) {
        let (a, b) = (score(q), score(&quotes[best]));
        if a < b || (a == b && q.start < quotes[best].start) {
            best = i;
        }
    }
    Some(best)
}
