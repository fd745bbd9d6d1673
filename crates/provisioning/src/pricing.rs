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
//! Both are checked against the batch simulator itself (`tests/it/pricing.rs`): from a state with
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

#[cfg(test)]
mod reference;

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
///
/// Pricing a slot re-schedules the queue, but only as far as the slot can change it (issue
/// 32; `pricing/reference.rs` keeps the full re-schedule as the unit tests' oracle):
/// - under both policies a slot where the schedule without it (`full`: the fixed blocks and
///   every queued job at its planned start) leaves `procs` processors free throughout changes
///   nobody's start, and is priced 0 at once;
/// - conservative: a job keeps its planned start when nothing before it can have opened an
///   earlier fit and the start still fits (`Pricer::replay_with_slot`), and the unchanged
///   prefix is taken from a checkpoint;
/// - EASY: the forward simulation resumes at the first round of the simulation without the
///   slot that the slot can change (one whose profile has no room for the slot), from the
///   recorded state before it (`Rounds`), and skips the rounds in which no job can start
///   (`easy_forward`).
#[derive(Debug, Clone)]
pub struct Pricer {
    state: SiteState,
    policy: PricingPolicy,
    base: Profile,
    /// `v_q`: planned starts without the slot, in queue order.
    planned: Vec<Time>,
    /// The last end of anything planned (blocks and queued jobs).
    last_end: Time,
    /// `base` with every queued job at its planned start.
    full: Profile,
    scratch: Profile,
    starts: Vec<Time>,
    waiting: Vec<u32>,
    /// EASY: per queued job, a time before which it cannot start (see [`easy_forward`]).
    ready: Vec<Time>,
    /// Conservative: per queued job, its earliest fit on `base` alone. Every profile a replay
    /// sees holds `base` and more, so no job fits before it there either: a search starts
    /// from it instead of from `now`.
    lower: Vec<Time>,
    /// Conservative: `checkpoints[c]` is `base` with queued jobs `0..c·CHECKPOINT_EVERY` at
    /// their planned starts.
    checkpoints: Vec<Profile>,
    /// EASY: the rounds of the forward simulation without a slot.
    rounds: Rounds,
}

/// Queued jobs between two conservative checkpoints: a replay re-reserves fewer than this
/// many unchanged jobs after cloning the checkpoint; memory is `Q / CHECKPOINT_EVERY`
/// profiles of a few hundred points each.
const CHECKPOINT_EVERY: usize = 8;

/// The rounds of an EASY forward simulation, as [`easy_forward`] ran them: enough to resume
/// a simulation with a slot added at the first round the slot can change.
///
/// Round `i`'s tests all ran on profiles holding at least what `after[i]` holds (the profile
/// at the round's end with the head's reservation still in place: jobs only start, and a job
/// started in the round was tested before the jobs after it started). Where `after[i]` still
/// has room for the slot over `[max(start, t_i), end)`, every job that started in round `i`
/// still fits with the slot beside it, the head still fits at its reservation (so that stays
/// its earliest fit), and every test that failed fails again on a profile with less capacity:
/// the round makes the same decisions with the slot, and the rounds the plain simulation
/// skipped or the slot's change points add start nothing (`easy_forward`'s bounds hold on a
/// profile with less capacity; where capacity only falls, or at the slot's end, whose future
/// is the one without the slot, nothing new fits). So the simulation with the slot resumes
/// at the first round without room, from the profile after the round before (its reservation
/// released) with the slot added, the jobs that had not started waiting in queue order.
#[derive(Debug, Clone, Default)]
struct Rounds {
    /// Each round's time.
    time: Vec<Time>,
    /// Each round's head and its reservation's start (`u32::MAX` for the last round, where
    /// every job has started).
    shadow: Vec<(u32, Time)>,
    /// The round in which each queued job starts.
    round_of: Vec<u32>,
    /// `after[i]`: the profile at round `i`'s end, its head's reservation in place, in an
    /// arena of profiles reused from state to state (`used` of them are this state's).
    after: Vec<Profile>,
    used: usize,
}

impl Rounds {
    fn clear(&mut self, jobs: usize) {
        self.time.clear();
        self.shadow.clear();
        self.round_of.clear();
        self.round_of.resize(jobs, u32::MAX);
        self.used = 0;
    }

    fn start(&mut self, job: u32) {
        self.round_of[job as usize] = self.time.len() as u32;
    }

    fn close(&mut self, t: Time, shadow: (u32, Time), after: &Profile) {
        self.time.push(t);
        self.shadow.push(shadow);
        if self.used == self.after.len() {
            self.after.push(after.clone());
        } else {
            self.after[self.used].clone_from(after);
        }
        self.used += 1;
    }

    /// The first round without room for `procs` processors over `[start, end)` (from the
    /// round's time on).
    fn first_without_room(&self, start: Time, end: Time, procs: u32) -> Option<usize> {
        self.after[..self.used].iter().position(|p| {
            let a = start.max(p.now());
            a < end && p.min_free(a, end) < i64::from(procs)
        })
    }
}

impl Pricer {
    /// The pricer of `state` under `policy` (schedules the queue once).
    pub fn new(state: SiteState, policy: PricingPolicy) -> Pricer {
        let base = state.base_profile();
        let n = state.queue.len();
        let mut p = Pricer {
            scratch: base.clone(),
            full: base.clone(),
            base,
            state,
            policy,
            planned: Vec::with_capacity(n),
            last_end: 0,
            starts: Vec::with_capacity(n),
            waiting: Vec::with_capacity(n),
            ready: Vec::with_capacity(n),
            lower: Vec::new(),
            checkpoints: Vec::new(),
            rounds: Rounds::default(),
        };
        let now = p.state.now;
        let queue = &p.state.queue;
        match policy {
            PricingPolicy::Conservative => {
                // The queue replayed in order at earliest fits, with a checkpoint every
                // CHECKPOINT_EVERY jobs.
                for (k, q) in queue.iter().enumerate() {
                    if k % CHECKPOINT_EVERY == 0 {
                        p.checkpoints.push(p.scratch.clone());
                    }
                    let s = p
                        .scratch
                        .earliest_fit(now, q.run, q.procs)
                        .expect("a finite set of blocks leaves the whole site free at the end");
                    p.scratch.reserve(s, s + q.run, q.procs);
                    p.planned.push(s);
                }
                p.lower = queue
                    .iter()
                    .map(|q| {
                        p.base
                            .earliest_fit(now, q.run, q.procs)
                            .expect("a finite set of blocks leaves the whole site free at the end")
                    })
                    .collect();
            }
            PricingPolicy::Easy => {
                p.planned.resize(n, Time::MIN);
                p.waiting.extend(0..n as u32);
                p.rounds.clear(n);
                easy_forward(
                    &mut p.scratch,
                    now,
                    queue,
                    &mut p.waiting,
                    &mut p.ready,
                    &mut p.planned,
                    Some(&mut p.rounds),
                );
            }
        }
        p.last_end = p
            .planned
            .iter()
            .zip(queue)
            .map(|(&s, q)| s + q.run)
            .chain(p.state.fixed.iter().map(|b| b.end))
            .fold(now, Time::max);
        for (&s, q) in p.planned.iter().zip(queue) {
            p.full.reserve(s, s + q.run, q.procs);
        }
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
        let free = Quote {
            start,
            price: 0.0,
            delayed: 0,
        };
        // A slot where the schedule without it leaves `procs` processors free changes
        // nobody's start. Conservative: by induction over the queue, each job's planned start
        // still fits (the jobs after it and the slot all fit together there) and no earlier
        // start fits on a profile that only lost capacity. EASY: every test the forward
        // simulation makes succeeds or fails as before, by the same argument (a job that
        // started, or the head at its reservation, fits with the slot beside it). A slot that
        // overlaps no planned job is the common case.
        if self.full.min_free(start, end) >= i64::from(procs) {
            return free;
        }
        let mut starts = std::mem::take(&mut self.starts);
        match self.policy {
            PricingPolicy::Conservative => {
                let k0 = self
                    .planned
                    .iter()
                    .zip(&self.state.queue)
                    .position(|(&s, q)| s < end && start < s + q.run)
                    .expect("a slot the schedule has no room for overlaps a planned job");
                self.replay_with_slot(k0, start, end, procs, &mut starts);
            }
            PricingPolicy::Easy => {
                let queue = &self.state.queue;
                let rounds = &self.rounds;
                let Some(r) = rounds.first_without_room(start, end, procs) else {
                    self.starts = starts;
                    return free;
                };
                starts.clear();
                self.waiting.clear();
                let t0 = if r == 0 {
                    self.scratch.clone_from(&self.base);
                    starts.resize(queue.len(), Time::MIN);
                    self.waiting.extend(0..queue.len() as u32);
                    self.state.now
                } else {
                    self.scratch.clone_from(&rounds.after[r - 1]);
                    let (h, s) = rounds.shadow[r - 1];
                    let h = queue[h as usize];
                    self.scratch.release(s, s + h.run, h.procs);
                    for (j, (&v, &round)) in self.planned.iter().zip(&rounds.round_of).enumerate() {
                        if (round as usize) < r {
                            starts.push(v);
                        } else {
                            starts.push(Time::MIN);
                            self.waiting.push(j as u32);
                        }
                    }
                    rounds.time[r]
                };
                // A start before the profile's present takes the processors from now on.
                self.scratch.reserve(start, end, procs);
                easy_forward(
                    &mut self.scratch,
                    t0,
                    queue,
                    &mut self.waiting,
                    &mut self.ready,
                    &mut starts,
                    None,
                );
            }
        }
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

    /// The conservative replay of the queue with the slot `[start, end) × procs` in place,
    /// `out[k]` queued job `k`'s start: what the full replay (every job at its earliest fit
    /// on `base`, the slot and the jobs before it) gives, without searching for the jobs
    /// whose start provably stays `v_k` (`planned[k]`).
    ///
    /// Let `U_k` be `base` with jobs `0..k` at their planned starts (where job `k`'s earliest
    /// fit is `v_k`) and `X_k` the replay's profile: `base`, the slot and jobs `0..k` at their
    /// new starts. `X_k` has more free processors than `U_k` only inside the old blocks of
    /// jobs that moved, so before `lo_free` (the earliest old start of a moved job) `X_k ≤
    /// U_k`: if job `k`'s window `[v_k, v_k + run)` ends by `lo_free`, every earlier start
    /// fails in `X_k` as it failed in `U_k`, and if `v_k` fits in `X_k` it is job `k`'s start.
    /// Every other job is searched from its earliest fit on `base` (`lower`). In particular
    /// every job before `k0`, the first whose planned block overlaps the slot, keeps `v_k`
    /// (nothing moved yet and the slot is outside its window): the replay starts from the
    /// checkpoint below `k0`.
    fn replay_with_slot(
        &mut self,
        k0: usize,
        start: Time,
        end: Time,
        procs: u32,
        out: &mut Vec<Time>,
    ) {
        let queue = &self.state.queue;
        let planned = &self.planned;
        let profile = &mut self.scratch;
        let c = k0 / CHECKPOINT_EVERY;
        profile.clone_from(&self.checkpoints[c]);
        for (&v, q) in planned[c * CHECKPOINT_EVERY..k0]
            .iter()
            .zip(&queue[c * CHECKPOINT_EVERY..k0])
        {
            profile.reserve(v, v + q.run, q.procs);
        }
        profile.reserve(start, end, procs);
        out.clear();
        out.extend_from_slice(&planned[..k0]);
        let mut lo_free = Time::MAX;
        for k in k0..queue.len() {
            let (q, v) = (queue[k], planned[k]);
            // `try_reserve` tests the fit in the update's own pass.
            let w = if v + q.run <= lo_free && profile.try_reserve(v, v + q.run, q.procs) {
                v
            } else {
                let w = profile
                    .earliest_fit(self.lower[k], q.run, q.procs)
                    .expect("a finite set of blocks leaves the whole site free at the end");
                profile.reserve(w, w + q.run, q.procs);
                w
            };
            if w != v {
                lo_free = lo_free.min(v);
            }
            out.push(w);
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

    /// [`query`](Self::query) followed by [`choose`] with `alpha`: the chosen quote and the
    /// number of candidates. Eq. 20 needs no other price at `α = 0` (the earliest start wins
    /// whatever the prices: the price term is `0 · x`) and none after the first zero price at
    /// `α = 1` (the start term is `0 · x`, every price is at least 0 and some is 0, ties go
    /// to the earliest start), so those two price only what the choice reads; any other α
    /// prices every candidate.
    pub fn query_choose(
        &mut self,
        procs: u32,
        dur: Time,
        not_before: Option<Time>,
        alpha: f64,
    ) -> Result<(Quote, usize), PricingError> {
        let times = self.candidates(procs, dur, not_before)?;
        let n = times.len();
        if alpha == 0.0 {
            return Ok((self.price_feasible(times[0], procs, dur), n));
        }
        if alpha == 1.0 {
            for &t in &times {
                let q = self.price_feasible(t, procs, dur);
                if q.price == 0.0 {
                    return Ok((q, n));
                }
            }
            unreachable!("the last candidate start is after every planned end: price 0");
        }
        let quotes: Vec<Quote> = times
            .into_iter()
            .map(|t| self.price_feasible(t, procs, dur))
            .collect();
        let k = choose(&quotes, alpha).expect("a query's answer is never empty");
        Ok((quotes[k], n))
    }
}

/// EASY backfilling simulated forward on `profile` from `t`, with no further arrivals and
/// every job running for its planned run time: at each instant the queue's head starts while
/// it fits; then the head gets a reservation at its earliest fit and every later job that
/// fits now without touching it (or any fixed block) starts. Rounds happen at every change of
/// the profile (a superset of the completion events the batch simulator rounds at; at a point
/// where free capacity only falls nothing new can start). `waiting` holds the jobs still to
/// start, in queue order; `out[j]` receives job `j`'s start; `rounds`, if given, records the
/// rounds.
///
/// What a round sees only shrinks: the profile a waiting job is tested against (the head
/// without its reservation, a later job with the head's reservation in place) loses capacity
/// from round to round and never gains any, since jobs only start and a head that starts
/// takes exactly its reservation (it cannot fit earlier on a profile that only shrank, and
/// the jobs that started meanwhile all fit around the reservation). So a job that does not
/// fit at `t` cannot start before its earliest fit on the profile it failed on: that is
/// `ready[j]`, and a round skips every job whose `ready` lies ahead; the head's reservation
/// stays where it was first computed while the head waits; and the rounds at change points
/// before the smallest `ready` of the waiting jobs start nothing, so the simulation jumps to
/// the first change point at or after it. Every round that runs is a round of the plain
/// simulation (a change point), with the same starts; the unit tests check the result against
/// the plain simulation (`pricing/reference.rs`).
fn easy_forward(
    profile: &mut Profile,
    mut t: Time,
    queue: &[QueuedJob],
    waiting: &mut Vec<u32>,
    ready: &mut Vec<Time>,
    out: &mut [Time],
    mut rounds: Option<&mut Rounds>,
) {
    ready.clear();
    ready.resize(queue.len(), Time::MIN);
    // The waiting job whose `ready` is its reservation as the blocked head.
    let mut shadow_of = u32::MAX;
    let mut head = 0usize;
    loop {
        profile.advance(t);
        while head < waiting.len() {
            let j = waiting[head];
            let q = queue[j as usize];
            if t < ready[j as usize] {
                break;
            }
            if !profile.fits(t, q.run, q.procs) {
                shadow_of = u32::MAX;
                break;
            }
            profile.reserve(t, t + q.run, q.procs);
            out[j as usize] = t;
            if let Some(r) = rounds.as_deref_mut() {
                r.start(j);
            }
            head += 1;
        }
        if head == waiting.len() {
            if let Some(r) = rounds.as_deref_mut() {
                r.close(t, (u32::MAX, Time::MAX), profile);
            }
            return;
        }
        let hj = waiting[head];
        let h = queue[hj as usize];
        if shadow_of != hj {
            ready[hj as usize] = profile
                .earliest_fit(t, h.run, h.procs)
                .expect("a finite set of blocks leaves the whole site free at the end");
            shadow_of = hj;
        }
        let shadow = ready[hj as usize];
        debug_assert_eq!(profile.earliest_fit(t, h.run, h.procs), Some(shadow));
        profile.reserve(shadow, shadow + h.run, h.procs);
        let mut kept = head + 1;
        let mut next = shadow;
        for k in head + 1..waiting.len() {
            let j = waiting[k];
            let q = queue[j as usize];
            let r = &mut ready[j as usize];
            if *r <= t {
                // `earliest_fit` from `t` is `t` exactly when the job fits now; otherwise no
                // round before it can start the job.
                let s = profile.earliest_fit(t, q.run, q.procs).unwrap_or(Time::MAX);
                if s == t {
                    profile.reserve(t, t + q.run, q.procs);
                    out[j as usize] = t;
                    if let Some(r) = rounds.as_deref_mut() {
                        r.start(j);
                    }
                    continue;
                }
                *r = s;
            }
            next = next.min(*r);
            waiting[kept] = j;
            kept += 1;
        }
        waiting.truncate(kept);
        if let Some(r) = rounds.as_deref_mut() {
            r.close(t, (hj, shadow), profile);
        }
        profile.release(shadow, shadow + h.run, h.procs);
        // The first change point at or after `next` (> t): the rounds before it start nothing.
        t = profile
            .next_change(next - 1)
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
