//! The event-driven engine and the door policies drive it through ([`Dispatcher`], [`Round`]).
//! The engine owns time, events, job states, the profiles and the validity of every start,
//! hold and reservation; the policies, built-in ones included (`policies/`), decide.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::config::{Config, Estimates, MachineSelect, Policy};
use crate::platform::Platform;
use crate::policies::Builtin;
use crate::profile::Profile;
use crate::{Job, SimError, Time};

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobPhase {
    /// Known, not yet submitted (its submit time is in the future).
    Pending,
    /// Submitted and waiting.
    Queued,
    Running,
    Done,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct JobState {
    pub(crate) phase: JobPhase,
    pub(crate) machine: u32,
    /// Arrival sequence number: queue order.
    pub(crate) seq: u32,
    /// Reserved start while queued ([`Round::reserve`]), actual start once running.
    pub(crate) start: Time,
    /// Actual end once running.
    pub(crate) end: Time,
    /// `start` + the estimate on its machine (the end the scheduler plans with).
    pub(crate) est_end: Time,
    /// The first start ever reserved for the job (`Time::MAX` if none).
    pub(crate) promise: Time,
    pub(crate) killed: bool,
    /// The reservation generation `machine`/`start`/`est_end` belong to while queued: the
    /// job is reserved when it equals [`Simulator::plan`] (0: never), so that
    /// [`Round::cancel_all`] cancels every reservation in `O(1)`.
    pub(crate) plan: u32,
}

impl JobState {
    const PENDING: JobState = JobState {
        phase: JobPhase::Pending,
        machine: u32::MAX,
        seq: u32::MAX,
        start: Time::MIN,
        end: Time::MIN,
        est_end: Time::MIN,
        promise: Time::MAX,
        killed: false,
        plan: 0,
    };
}

/// One job's fate, as far as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRecord {
    pub job: Job,
    pub phase: JobPhase,
    /// Machine it runs or ran on (or, queued with a reservation, is reserved on).
    pub machine: Option<u32>,
    /// Start (the reserved start while queued with a reservation, e.g. under conservative
    /// backfilling).
    pub start: Option<Time>,
    /// End (once running: when it will end; it is killed then if `killed`).
    pub end: Option<Time>,
}

/// A finished job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub job: Job,
    pub machine: u32,
    pub start: Time,
    pub end: Time,
    /// The run time the scheduler planned with on that machine (Batsim's `requested_time`,
    /// the walltime at which the job is killed under [`Estimates::Requested`]).
    pub walltime: Time,
    /// Killed at its walltime (it would have run longer).
    pub killed: bool,
}

impl Outcome {
    /// Waiting time: start − submit.
    pub fn wait(&self) -> Time {
        self.start - self.job.submit
    }

    /// Execution time: end − start.
    pub fn execution(&self) -> Time {
        self.end - self.start
    }
}

/// A running job as the scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningJob {
    /// Job index.
    pub index: usize,
    pub machine: u32,
    pub procs: u32,
    pub start: Time,
    /// The end the scheduler plans with: start + the estimate on its machine (the actual end
    /// when estimates are exact).
    pub planned_end: Time,
}

/// A fixed reservation not yet ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveReservation {
    pub id: ReservationId,
    pub machine: u32,
    pub start: Time,
    pub end: Time,
    pub procs: u32,
}

/// A fixed reservation's handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReservationId(pub u32);

#[derive(Debug, Clone, Copy)]
struct FixedReservation {
    machine: u32,
    start: Time,
    end: Time,
    procs: u32,
    live: bool,
}

/// Work done, for benchmarks and the per-job runtime metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Distinct event times processed.
    pub events: u64,
    /// Scheduling rounds.
    pub rounds: u64,
    /// Jobs that ended before their estimate.
    pub early_completions: u64,
    /// Conservative: compressions performed.
    pub compressions: u64,
    /// Conservative: queued jobs taken out and placed again by compressions.
    pub replanned: u64,
    /// Conservative: jobs whose reservation a compression changed.
    pub moved: u64,
    /// EASY/Flexible: queued jobs examined as backfill candidates.
    pub backfill_checks: u64,
}

impl Counters {
    /// Adds a policy's own work counts (`compressions`, `replanned`, `moved`,
    /// `backfill_checks`) to the engine's.
    pub(crate) fn add_policy(&mut self, p: &Counters) {
        self.compressions += p.compressions;
        self.replanned += p.replanned;
        self.moved += p.moved;
        self.backfill_checks += p.backfill_checks;
    }
}

/// A job that ended before its planned end (see [`Round::early_completions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarlyCompletion {
    /// Job index.
    pub index: u32,
    pub machine: u32,
    /// The end the profile held it to: `[now, planned_end)` on `machine` has just been freed.
    pub planned_end: Time,
}

/// A waiting job's reservation (see [`Round::reserve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    pub machine: u32,
    pub start: Time,
    /// `start` + the job's planned run time on `machine`.
    pub end: Time,
    /// The first start ever reserved for the job: a policy that promises never to delay a
    /// job (conservative backfilling with exact estimates) can check itself against it.
    pub first_start: Time,
}

/// What the engine tells a dispatcher at each round and what the dispatcher asked for: the
/// notifications since the last round, the waiting list, this round's holds, the wake-up.
#[derive(Debug, Clone, Default)]
pub(crate) struct RoundState {
    /// Jobs that arrived since the last round, in arrival order.
    arrived: Vec<u32>,
    /// Jobs that completed since the last round, in completion order.
    completed: Vec<u32>,
    /// Of those, the ones that ended before their planned end.
    early: Vec<EarlyCompletion>,
    /// Jobs arrived and not started.
    waiting: usize,
    /// Waiting jobs in arrival order, plus started ones not yet dropped (compacted when read,
    /// and when it grows past twice the waiting jobs); kept only from the first
    /// [`Round::waiting`] on (`tracking`), so that policies with a queue of their own pay
    /// nothing for it.
    queue: Vec<u32>,
    tracking: bool,
    /// The earliest time the dispatcher asked to be called again, if later than now.
    wake: Option<Time>,
    /// This round's holds: (job, machine, start, end, processors), released when it ends.
    holds: Vec<(u32, u32, Time, Time, u32)>,
}

/// A queue policy driving the [`Simulator`]: the built-in ones
/// ([`policies`](crate::policies)), yours, and the schedule-based policies of
/// `gridsched-schedule-based` all go through this trait and [`Round`]; the engine has no other
/// door. The engine keeps the clock, the event order (completions, then arrivals by submit
/// time and id, then one round per event time), the machines' capacity and every job's
/// outcome; at each event time the dispatcher sees what changed ([`Round::arrived`],
/// [`Round::completed`], [`Round::early_completions`]), the waiting queue
/// ([`Round::waiting`]), the running jobs ([`Round::running`]) and each machine's
/// availability profile ([`Round::profile`]); it starts jobs through [`Round::start`], which
/// refuses a start that does not fit, and may hold machines for the rest of the round
/// ([`Round::hold`], EASY's head) or reserve them until the job starts ([`Round::reserve`],
/// conservative backfilling), so that later starts respect them. Run your own with
/// [`Simulator::run_with`] under [`Policy::External`]; outcomes, metrics
/// ([`Summary`](crate::Summary)), the Batsim CSV and [`audit`](crate::audit) work as for the
/// built-ins, which [`Policy::Fcfs`] and the others select.
///
/// A complete example (shortest-job-first backfilling on a Parallel Workloads Archive log) is
/// `crates/batch/examples/sjf_backfill.rs`; `crates/batch/tests/it/external.rs` checks that FCFS
/// and EASY written against this trait give the built-ins' schedules job for job, and that the
/// built-in dispatchers handed to `run_with` (alone or wrapped) match their policies.
pub trait Dispatcher {
    /// One scheduling round at [`Round::now`].
    fn round(&mut self, round: &mut Round<'_>) -> Result<(), SimError>;
}

/// What a [`Dispatcher`] sees and may do in one round.
#[derive(Debug)]
pub struct Round<'a> {
    sim: &'a mut Simulator,
}

impl Round<'_> {
    /// The current time.
    pub fn now(&self) -> Time {
        self.sim.now
    }

    /// The machines.
    pub fn platform(&self) -> &Platform {
        &self.sim.platform
    }

    /// The simulation's configuration: a policy reads the planning estimates, the
    /// machine-selection rule and whether to check its own invariants here, so that one
    /// dispatcher serves every configuration.
    pub fn config(&self) -> &Config {
        &self.sim.config
    }

    /// Machine indices in the order [`Config::machine_select`](crate::Config) prefers them
    /// (fastest first, ties to the lowest index; or by index): computed once per simulation
    /// rather than sorted by every policy at every round.
    pub fn machine_order(&self) -> &[u32] {
        &self.sim.select_order
    }

    /// Job indices that arrived since the last round (submit order, then id).
    pub fn arrived(&self) -> &[u32] {
        &self.sim.rs.arrived
    }

    /// Job indices that completed since the last round.
    pub fn completed(&self) -> &[u32] {
        &self.sim.rs.completed
    }

    /// The completions since the last round that came before their planned end (a job
    /// finishing under its requested time). Each left a hole `[now, planned_end)` in its
    /// machine's profile; a policy that keeps reservations (conservative backfilling) needs
    /// to know where, so that it re-plans only the jobs the hole can move instead of the
    /// whole queue.
    pub fn early_completions(&self) -> &[EarlyCompletion] {
        &self.sim.rs.early
    }

    /// Whether capacity was freed at this instant: a completion or a fixed reservation
    /// ending. Without it (and without [`reservations_changed`](Self::reservations_changed))
    /// the free capacity only fell since the last round, so a job that could not start then
    /// cannot start now — EASY skips the candidates it already rejected.
    pub fn capacity_released(&self) -> bool {
        self.sim.released
    }

    /// Whether a fixed reservation was added or cancelled since the last round: the profiles
    /// changed in a way no notification above describes, so earlier plans and promises must
    /// be recomputed.
    pub fn reservations_changed(&self) -> bool {
        self.sim.reservations_changed
    }

    /// Job `index` as submitted.
    pub fn job(&self, index: u32) -> &Job {
        &self.sim.jobs[index as usize]
    }

    /// Job `index`'s rank in arrival order (0 for the first job to arrive): the tie-break a
    /// policy that re-sorts its queue needs to stay deterministic and FCFS among equals.
    pub fn arrival_rank(&self, index: u32) -> u32 {
        self.sim.st[index as usize].seq
    }

    /// Processors of machine `m` free now.
    pub fn free_now(&self, m: usize) -> i64 {
        self.sim.profiles[m].free_now()
    }

    /// The waiting jobs (indices) in arrival order (a job started later in this round stays
    /// in the returned slice; check [`is_waiting`](Self::is_waiting) when that matters).
    /// `&mut`: the engine builds the list at the first call and drops the jobs started since
    /// the last call here, so that a policy keeping its own queue (every built-in one) pays
    /// nothing for it.
    pub fn waiting(&mut self) -> &[u32] {
        let sim = &mut *self.sim;
        if !sim.rs.tracking {
            sim.rs.queue = sim.waiting_in_arrival_order();
            sim.rs.tracking = true;
        }
        let st = &sim.st;
        sim.rs
            .queue
            .retain(|&i| st[i as usize].phase == JobPhase::Queued);
        &sim.rs.queue
    }

    /// Whether job `index` has arrived and not started.
    pub fn is_waiting(&self, index: u32) -> bool {
        self.sim
            .st
            .get(index as usize)
            .is_some_and(|s| s.phase == JobPhase::Queued)
    }

    /// The running jobs, in no particular order (`planned_end`: start + the planned run time,
    /// the end the profiles hold them to).
    pub fn running(&self) -> impl Iterator<Item = RunningJob> + '_ {
        let sim = &*self.sim;
        sim.running
            .iter()
            .map(move |&Reverse((_, idx))| sim.running_job(idx))
    }

    /// Machine `m`'s availability profile: running jobs to their planned ends, fixed
    /// reservations, reservations ([`reserve`](Self::reserve)) and this round's
    /// [holds](Self::hold). A block that [`fits`](Profile::fits) in it delays none of them.
    pub fn profile(&self, m: usize) -> &Profile {
        &self.sim.profiles[m]
    }

    /// Machine `m`'s profile of running jobs and fixed reservations only, without any
    /// waiting job's reservation or hold: what a policy re-planning its reservations from
    /// scratch starts from. Kept by the engine only once some job has been
    /// [reserved](Self::reserve); until then it is [`profile`](Self::profile).
    pub fn base_profile(&self, m: usize) -> &Profile {
        self.sim.base_profile(m)
    }

    /// Whether machine `m`'s profile is non-decreasing from now on — no fixed reservation,
    /// reservation or hold on it — so that a job fits now exactly when enough processors are
    /// free now, and the free processors at any later time are at least those. EASY's
    /// backfilling test on such a machine is arithmetic on two numbers, not a profile sweep.
    pub fn is_monotone(&self, m: usize) -> bool {
        self.sim.monotone(m)
    }

    /// Whether waiting job `index` can start now on machine `m` for its planned run time:
    /// exactly what [`start`](Self::start) accepts, in `O(1)` on a
    /// [monotone](Self::is_monotone) machine.
    pub fn fits_now(&self, index: u32, m: usize) -> bool {
        let sim = &*self.sim;
        let job = &sim.jobs[index as usize];
        m < sim.platform.len()
            && job.procs <= sim.platform.machines()[m].cpus
            && sim.fits_now(m, sim.planned(job, m), job.procs)
    }

    /// The run time the engine plans job `index` with on machine `m`: its actual or requested
    /// time per [`Config::estimates`](crate::Config), scaled by the machine's speed.
    pub fn planned_run_time(&self, index: u32, m: usize) -> Time {
        self.sim.planned(&self.sim.jobs[index as usize], m)
    }

    /// Holds machine `m` for waiting job `index` from `start` for its planned run time, until
    /// the end of this round: the block is in [`profile`](Self::profile), so later
    /// [`start`](Self::start)s must leave room for it (EASY's reservation for its blocked
    /// head). Starting the held job releases its hold first. Refused if the job is not
    /// waiting, the machine is too small, `start` is in the past or the block does not fit.
    pub fn hold(&mut self, index: u32, m: usize, start: Time) -> Result<(), SimError> {
        let sim = &mut *self.sim;
        let job = Self::waiting_job(sim, index, m, "be held")?;
        if sim.rs.holds.iter().any(|h| h.0 == index) {
            return Err(SimError::Job {
                id: job.id,
                reason: "is already held this round".into(),
            });
        }
        let dur = sim.planned(&job, m);
        if start < sim.now || !sim.profiles[m].try_reserve(start, start + dur, job.procs) {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("cannot be held on machine {m} from {start} (it does not fit)"),
            });
        }
        sim.blocks[m] += 1;
        sim.rs
            .holds
            .push((index, m as u32, start, start + dur, job.procs));
        Ok(())
    }

    /// Reserves machine `m` for waiting job `index` from `start` for its planned run time,
    /// until the job starts or the reservation is [cancelled](Self::cancel): unlike a
    /// [hold](Self::hold) it outlives the round, which is what conservative backfilling's
    /// plan is. The block is in [`profile`](Self::profile) (not in
    /// [`base_profile`](Self::base_profile)); [`Simulator::record`] shows it as the job's
    /// planned machine and start. The engine does not start the job by itself: the policy
    /// calls [`start`](Self::start) when the time comes (ask for a round then with
    /// [`wake_at`](Self::wake_at)), and a start there and then takes the reserved block
    /// without another fit test. Refused if the job is not waiting or already has a
    /// reservation, the machine is too small, `start` is in the past or the block does not
    /// fit.
    pub fn reserve(&mut self, index: u32, m: usize, start: Time) -> Result<(), SimError> {
        let sim = &mut *self.sim;
        let job = Self::waiting_job(sim, index, m, "be reserved")?;
        if sim.reserved(index as usize) {
            return Err(SimError::Job {
                id: job.id,
                reason: "already has a reservation".into(),
            });
        }
        let dur = sim.planned(&job, m);
        sim.keep_base();
        if start < sim.now || !sim.profiles[m].try_reserve(start, start + dur, job.procs) {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("cannot be reserved on machine {m} from {start} (it does not fit)"),
            });
        }
        sim.blocks[m] += 1;
        let plan = sim.plan;
        let s = &mut sim.st[index as usize];
        s.machine = m as u32;
        s.start = start;
        s.est_end = start + dur;
        s.plan = plan;
        if s.promise == Time::MAX {
            s.promise = start;
        }
        Ok(())
    }

    /// Job `index`'s reservation, if it has one.
    pub fn reservation(&self, index: u32) -> Option<Reservation> {
        let sim = &*self.sim;
        sim.reserved(index as usize).then(|| {
            let s = &sim.st[index as usize];
            Reservation {
                machine: s.machine,
                start: s.start,
                end: s.est_end,
                first_start: s.promise,
            }
        })
    }

    /// Cancels job `index`'s reservation and returns it (its block leaves the profile): how a
    /// policy re-plans a job — taken out first, so that its own block does not stand in the
    /// way of its new place.
    pub fn cancel(&mut self, index: u32) -> Result<Reservation, SimError> {
        let Some(r) = self.reservation(index) else {
            return Err(SimError::Job {
                id: self.sim.jobs.get(index as usize).map_or(0, |j| j.id),
                reason: "has no reservation".into(),
            });
        };
        let sim = &mut *self.sim;
        let procs = sim.jobs[index as usize].procs;
        sim.profiles[r.machine as usize].release(r.start, r.end, procs);
        sim.blocks[r.machine as usize] -= 1;
        sim.st[index as usize].plan = 0;
        Ok(r)
    }

    /// Cancels every reservation at once by resetting each profile to its
    /// [`base_profile`](Self::base_profile) (this round's holds are kept): `O(profile)` per
    /// machine instead of one release per job — what a policy re-planning most of its queue
    /// wants. Read the [`reservation`](Self::reservation)s you need first.
    pub fn cancel_all(&mut self) {
        let sim = &mut *self.sim;
        let Some(base) = &sim.base else {
            return; // Nothing was ever reserved.
        };
        for (p, b) in sim.profiles.iter_mut().zip(base) {
            p.clone_from(b);
        }
        for b in &mut sim.blocks {
            *b = 0;
        }
        for &(_, m, start, end, procs) in &sim.rs.holds {
            sim.profiles[m as usize].reserve(start, end, procs);
            sim.blocks[m as usize] += 1;
        }
        sim.plan += 1;
    }

    /// Job `index` if it is waiting and machine `m` is wide enough for it; the error says it
    /// cannot `verb` on the machine otherwise.
    #[inline]
    fn waiting_job(sim: &Simulator, index: u32, m: usize, verb: &str) -> Result<Job, SimError> {
        if let Some(job) = sim.jobs.get(index as usize)
            && sim.st[index as usize].phase == JobPhase::Queued
            && m < sim.platform.len()
            && job.procs <= sim.platform.machines()[m].cpus
        {
            return Ok(*job);
        }
        Err(Self::refusal(sim, index, m, verb))
    }

    /// Why [`waiting_job`](Self::waiting_job) refused.
    #[cold]
    fn refusal(sim: &Simulator, index: u32, m: usize, verb: &str) -> SimError {
        match Self::refusal_checks(sim, index, m, verb) {
            Err(e) => e,
            Ok(_) => unreachable!("refused for no reason"),
        }
    }

    fn refusal_checks(sim: &Simulator, index: u32, m: usize, verb: &str) -> Result<Job, SimError> {
        let Some(job) = sim.jobs.get(index as usize).copied() else {
            return Err(SimError::Config(format!("no job index {index}")));
        };
        if sim.st[index as usize].phase != JobPhase::Queued {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("is not waiting at {}", sim.now),
            });
        }
        if m >= sim.platform.len() || job.procs > sim.platform.machines()[m].cpus {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("cannot {verb} on machine {m}"),
            });
        }
        Ok(job)
    }

    /// Releases and returns job `index`'s hold, if it has one.
    fn take_hold(sim: &mut Simulator, index: u32) -> Option<(u32, u32, Time, Time, u32)> {
        let i = sim.rs.holds.iter().position(|h| h.0 == index)?;
        let h @ (_, m, start, end, procs) = sim.rs.holds.swap_remove(i);
        sim.profiles[m as usize].release(start, end, procs);
        sim.blocks[m as usize] -= 1;
        Some(h)
    }

    /// Starts waiting job `index` now on machine `m`; refused (nothing changes) if the job is
    /// not waiting or does not fit there now for its whole run time. A job reserved on `m`
    /// from now takes its reserved block; any other hold or reservation of the job is
    /// released first.
    pub fn start(&mut self, index: u32, m: usize) -> Result<(), SimError> {
        let sim = &mut *self.sim;
        let job = Self::waiting_job(sim, index, m, "run")?;
        let i = index as usize;
        let reserved = sim
            .reserved(i)
            .then(|| (sim.st[i].machine, sim.st[i].start));
        if reserved == Some((m as u32, sim.now)) {
            sim.blocks[m] -= 1;
            sim.start(index, m, true);
            return Ok(());
        }
        let held = Self::take_hold(sim, index);
        if let Some((rm, rs)) = reserved {
            let procs = job.procs;
            sim.profiles[rm as usize].release(rs, sim.st[i].est_end, procs);
            sim.blocks[rm as usize] -= 1;
        }
        let dur = sim.planned(&job, m);
        if !sim.fits_now(m, dur, job.procs) {
            // A refused start changes nothing: the job keeps its hold and reservation.
            if let Some(h @ (_, hm, hs, he, hp)) = held {
                sim.profiles[hm as usize].reserve(hs, he, hp);
                sim.blocks[hm as usize] += 1;
                sim.rs.holds.push(h);
            }
            if let Some((rm, rs)) = reserved {
                sim.profiles[rm as usize].reserve(rs, sim.st[i].est_end, job.procs);
                sim.blocks[rm as usize] += 1;
            }
            return Err(SimError::Job {
                id: job.id,
                reason: format!(
                    "does not fit on machine {m} at {} ({} of {} processors free)",
                    sim.now,
                    sim.profiles[m].free_now(),
                    sim.platform.machines()[m].cpus
                ),
            });
        }
        sim.start(index, m, false);
        Ok(())
    }

    /// Asks to be called again at time `t` (later than now) even if nothing arrives or
    /// completes then; several requests keep the earliest.
    pub fn wake_at(&mut self, t: Time) {
        if t > self.sim.now {
            let w = &mut self.sim.rs.wake;
            *w = Some(w.map_or(t, |w| w.min(t)));
        }
    }

    /// Withdraws every pending [`wake_at`](Self::wake_at) request: a policy whose next
    /// deadline moved later (a reservation re-planned) replaces its request instead of being
    /// woken for nothing.
    pub fn clear_wake(&mut self) {
        self.sim.rs.wake = None;
    }
}

/// The simulator; see the crate documentation.
#[derive(Debug, Clone)]
pub struct Simulator {
    pub(crate) platform: Platform,
    pub(crate) config: Config,
    pub(crate) now: Time,
    /// Every job known: the trace (sorted by submit, id) then dynamic submissions.
    pub(crate) jobs: Arc<Vec<Job>>,
    pub(crate) st: Vec<JobState>,
    /// Next trace job to arrive; trace jobs are `0..n_trace`.
    next_trace: usize,
    n_trace: usize,
    /// Dynamic submissions not yet arrived: (submit, id, index).
    dynamic: BinaryHeap<Reverse<(Time, u64, u32)>>,
    pub(crate) arrivals: u32,
    /// Running jobs by actual end: (end, index).
    running: BinaryHeap<Reverse<(Time, u32)>>,
    /// Per machine: running jobs, fixed reservations, reservations and this round's holds.
    pub(crate) profiles: Vec<Profile>,
    /// Per machine: running jobs and fixed reservations only; kept from the first
    /// reservation on ([`Round::base_profile`]).
    base: Option<Vec<Profile>>,
    /// The current reservation generation (see [`JobState::plan`]).
    plan: u32,
    /// Per machine: fixed reservations not yet ended (a machine without any, and without
    /// `blocks`, has a non-decreasing profile, which allows `O(1)` fit tests).
    fixed_live: Vec<u32>,
    /// Per machine: reservations and holds of waiting jobs.
    blocks: Vec<u32>,
    reservations: Vec<FixedReservation>,
    reservation_ends: BinaryHeap<Reverse<(Time, u32)>>,
    /// Machines in selection order (fastest first, or by index).
    pub(crate) select_order: Vec<u32>,
    /// The built-in policy the configuration selects (`None`: [`Policy::External`]); boxed
    /// so that taking it out for a round moves a pointer, not the policy's state.
    builtin: Option<Box<Builtin>>,
    /// Notifications for the next round and what the dispatcher asked for.
    rs: RoundState,
    /// Capacity was released at this instant (a completion or a reservation end).
    released: bool,
    /// A fixed reservation was added or cancelled since the last round.
    reservations_changed: bool,
    /// A round opened by [`Simulator::begin_round`] is waiting to be closed.
    round_open: bool,
    counters: Counters,
    /// Jobs added by [`Simulator::submit`] that finished, in completion order, until taken by
    /// [`Simulator::take_submitted_completions`] (how an application runner on top of the
    /// background trace learns that its tasks ended, without scanning).
    submitted_done: Vec<u32>,
}

impl Simulator {
    /// An empty simulator at time 0; add jobs with [`submit`](Self::submit).
    pub fn new(platform: Platform, config: Config) -> Self {
        Self::build(platform, config, Vec::new(), 0)
    }

    /// A simulator replaying `jobs` (any order; sorted by submit time, then id, then input
    /// position). The clock starts at 0 (or at the first submit time if negative). Every job is
    /// validated: processors and run time positive, requested time positive if given, and
    /// at most the largest machine's CPU count.
    pub fn with_jobs(platform: Platform, config: Config, jobs: Vec<Job>) -> Result<Self, SimError> {
        let mut jobs = jobs;
        for j in &jobs {
            validate_job(&platform, j)?;
        }
        if !jobs
            .windows(2)
            .all(|w| (w[0].submit, w[0].id) <= (w[1].submit, w[1].id))
        {
            jobs.sort_by_key(|j| (j.submit, j.id));
        }
        // The clock starts at 0, or at the first submission if that is earlier.
        let start = jobs.first().map_or(0, |j| j.submit.min(0));
        let n = jobs.len();
        Ok(Self::build(platform, config, jobs, start).with_trace_len(n))
    }

    /// Appends jobs to the trace of a simulator made by [`with_jobs`](Self::with_jobs), for a
    /// trace that arrives in pieces (a log still being read): the jobs must continue the
    /// trace's order (submit time, then id, each at or after the last trace job), no job may
    /// have been [`submit`](Self::submit)ted, and nothing at or after their submit times may
    /// have been simulated — run the simulator only with
    /// [`run_before`](Self::run_before) the last trace job's submit time until the trace is
    /// complete. Then the run is the one [`with_jobs`](Self::with_jobs) on the whole trace
    /// gives (same schedule, same counters; property test `extending_the_trace_is_replaying_it`).
    /// Jobs are validated as by `with_jobs`; on an error nothing is appended.
    pub fn extend_trace(&mut self, jobs: &[Job]) -> Result<(), SimError> {
        if self.jobs.len() != self.n_trace {
            return Err(SimError::Config(
                "the trace cannot grow after jobs were submitted".into(),
            ));
        }
        let mut last = self.jobs.last().map(|j| (j.submit, j.id));
        for j in jobs {
            validate_job(&self.platform, j)?;
            if last.is_some_and(|l| (j.submit, j.id) < l) {
                return Err(SimError::Job {
                    id: j.id,
                    reason: "out of the trace's order (submit time, id)".into(),
                });
            }
            if self.counters.events > 0 && j.submit <= self.now {
                return Err(SimError::Job {
                    id: j.id,
                    reason: format!("submitted at {} <= now {}", j.submit, self.now),
                });
            }
            last = Some((j.submit, j.id));
        }
        if self.jobs.len() + jobs.len() > u32::MAX as usize {
            return Err(SimError::Config("too many jobs".into()));
        }
        Arc::make_mut(&mut self.jobs).extend_from_slice(jobs);
        self.st.resize(self.jobs.len(), JobState::PENDING);
        self.n_trace = self.jobs.len();
        Ok(())
    }

    /// Makes room for `additional` more trace jobs ([`extend_trace`](Self::extend_trace))
    /// at once.
    pub fn reserve_trace(&mut self, additional: usize) {
        Arc::make_mut(&mut self.jobs).reserve(additional);
        self.st.reserve(additional);
    }

    fn with_trace_len(mut self, n: usize) -> Self {
        self.n_trace = n;
        self
    }

    fn build(platform: Platform, config: Config, jobs: Vec<Job>, now: Time) -> Self {
        let m = platform.len();
        let profiles: Vec<Profile> = platform
            .machines()
            .iter()
            .map(|mc| Profile::new(mc.cpus, now))
            .collect();
        let mut select_order: Vec<u32> = (0..m as u32).collect();
        if config.machine_select == MachineSelect::Fastest {
            select_order.sort_by_key(|&i| (Reverse(platform.machines()[i as usize].speed), i));
        }
        let builtin = Builtin::for_config(&config).map(Box::new);
        let n = jobs.len();
        Simulator {
            platform,
            config,
            now,
            jobs: Arc::new(jobs),
            st: vec![JobState::PENDING; n],
            next_trace: 0,
            n_trace: 0,
            dynamic: BinaryHeap::new(),
            arrivals: 0,
            running: BinaryHeap::new(),
            profiles,
            base: None,
            plan: 1,
            fixed_live: vec![0; m],
            blocks: vec![0; m],
            reservations: Vec::new(),
            reservation_ends: BinaryHeap::new(),
            select_order,
            builtin,
            rs: RoundState::default(),
            released: false,
            reservations_changed: false,
            round_open: false,
            counters: Counters::default(),
            submitted_done: Vec::new(),
        }
    }

    // --- queries ---------------------------------------------------------------------------

    /// The current time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The platform.
    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Work counters: the engine's, plus the built-in policy's own (a dispatcher of yours
    /// counts its work itself; the built-in ones have `counters()` too).
    pub fn counters(&self) -> Counters {
        let mut c = self.counters;
        if let Some(b) = &self.builtin {
            c.add_policy(&b.counters());
        }
        c
    }

    /// Number of jobs known (trace and submitted).
    pub fn job_count(&self) -> usize {
        self.jobs.len()
    }

    /// The availability profile of machine `m` as the policy sees it: running jobs (to their
    /// estimated ends), fixed reservations and, under conservative backfilling, every queued
    /// job's reservation. A block that fits in it delays nobody.
    pub fn profile(&self, m: usize) -> &Profile {
        &self.profiles[m]
    }

    /// Machine `m`'s profile of running jobs and fixed reservations only (the same as
    /// [`profile`](Self::profile) until some job is reserved, e.g. always under FCFS, EASY
    /// and Flexible).
    pub fn base_profile(&self, m: usize) -> &Profile {
        self.base.as_ref().map_or(&self.profiles[m], |b| &b[m])
    }

    /// Job `index`'s record (indices follow [`with_jobs`](Self::with_jobs)' sorted order,
    /// then [`submit`](Self::submit) order).
    pub fn record(&self, index: usize) -> JobRecord {
        let s = &self.st[index];
        let known = matches!(s.phase, JobPhase::Running | JobPhase::Done) || self.reserved(index);
        JobRecord {
            job: self.jobs[index],
            phase: s.phase,
            machine: known.then_some(s.machine),
            start: known.then_some(s.start),
            end: matches!(s.phase, JobPhase::Running | JobPhase::Done).then_some(s.end),
        }
    }

    /// The waiting jobs in queue order (indices): the built-in policy's queue (for Flexible,
    /// the order of the last round), or arrival order under [`Policy::External`] (the
    /// dispatcher keeps its own order).
    pub fn queued(&self) -> Vec<usize> {
        let waiting = |i: &u32| self.st[*i as usize].phase == JobPhase::Queued;
        match &self.builtin {
            Some(b) => b.queue().filter(waiting).map(|i| i as usize).collect(),
            None => self
                .waiting_in_arrival_order()
                .into_iter()
                .map(|i| i as usize)
                .collect(),
        }
    }

    /// The waiting jobs in arrival order, from the job states.
    fn waiting_in_arrival_order(&self) -> Vec<u32> {
        if self.rs.tracking {
            let st = &self.st;
            return self
                .rs
                .queue
                .iter()
                .copied()
                .filter(|&i| st[i as usize].phase == JobPhase::Queued)
                .collect();
        }
        let mut q: Vec<(u32, u32)> = (0..self.st.len())
            .filter(|&i| self.st[i].phase == JobPhase::Queued)
            .map(|i| (self.st[i].seq, i as u32))
            .collect();
        q.sort_unstable();
        q.into_iter().map(|(_, i)| i).collect()
    }

    /// Number of running jobs.
    pub fn running_count(&self) -> usize {
        self.running.len()
    }

    /// The running jobs, by job index.
    pub fn running(&self) -> Vec<RunningJob> {
        let mut out: Vec<RunningJob> = self
            .running
            .iter()
            .map(|&Reverse((_, idx))| self.running_job(idx))
            .collect();
        out.sort_unstable_by_key(|r| r.index);
        out
    }

    /// The fixed reservations that have not ended, by id.
    pub fn live_reservations(&self) -> impl Iterator<Item = LiveReservation> + '_ {
        self.reservations
            .iter()
            .enumerate()
            .filter(|(_, r)| r.live && r.end > self.now)
            .map(|(i, r)| LiveReservation {
                id: ReservationId(i as u32),
                machine: r.machine,
                start: r.start,
                end: r.end,
                procs: r.procs,
            })
    }

    /// The run time the scheduler plans job `index` with on its (reserved) machine, or on
    /// machine 0 if it has none yet: the actual or the requested time per
    /// [`Config::estimates`], scaled by the machine's speed.
    pub fn planned_run_time(&self, index: usize) -> Time {
        let s = &self.st[index];
        let placed = matches!(s.phase, JobPhase::Running | JobPhase::Done) || self.reserved(index);
        let m = if placed { s.machine as usize } else { 0 };
        self.planned(&self.jobs[index], m)
    }

    /// Whether job `index` is waiting with a reservation.
    #[inline]
    pub(crate) fn reserved(&self, index: usize) -> bool {
        let s = &self.st[index];
        s.phase == JobPhase::Queued && s.plan == self.plan
    }

    /// Job `job`'s planned run time on machine `m`.
    #[inline]
    fn planned(&self, job: &Job, m: usize) -> Time {
        self.platform
            .duration(m, job.estimate(self.config.estimates))
    }

    fn running_job(&self, idx: u32) -> RunningJob {
        let s = &self.st[idx as usize];
        RunningJob {
            index: idx as usize,
            machine: s.machine,
            procs: self.jobs[idx as usize].procs,
            start: s.start,
            planned_end: s.est_end,
        }
    }

    /// Starts keeping the base profiles (at the first reservation): the profiles without
    /// this round's holds, since no reservation exists yet.
    fn keep_base(&mut self) {
        if self.base.is_some() {
            return;
        }
        let mut base = self.profiles.clone();
        for &(_, m, start, end, procs) in &self.rs.holds {
            base[m as usize].release(start, end, procs);
        }
        self.base = Some(base);
    }

    /// Moves the indices of jobs added by [`submit`](Self::submit) that finished since the
    /// last call into `out` (appended, in completion order).
    pub fn take_submitted_completions(&mut self, out: &mut Vec<usize>) {
        out.extend(self.submitted_done.drain(..).map(|i| i as usize));
    }

    /// Finished jobs, in job-index order.
    pub fn outcomes(&self) -> impl Iterator<Item = Outcome> + '_ {
        self.st
            .iter()
            .enumerate()
            .filter(|(_, s)| s.phase == JobPhase::Done)
            .map(|(i, s)| self.outcome(i, s))
    }

    fn outcome(&self, i: usize, s: &JobState) -> Outcome {
        Outcome {
            job: self.jobs[i],
            machine: s.machine,
            start: s.start,
            end: s.end,
            walltime: s.est_end - s.start,
            killed: s.killed,
        }
    }

    /// Whether every known job has finished.
    pub fn is_finished(&self) -> bool {
        self.next_event().is_none() && self.st.iter().all(|s| s.phase == JobPhase::Done)
    }

    // --- input -----------------------------------------------------------------------------

    /// Submits a job while the simulation runs (its submit time must not be in the past).
    /// Returns its index.
    pub fn submit(&mut self, job: Job) -> Result<usize, SimError> {
        validate_job(&self.platform, &job)?;
        if job.submit < self.now {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("submitted at {} < now {}", job.submit, self.now),
            });
        }
        let idx = self.jobs.len();
        if idx >= u32::MAX as usize {
            return Err(SimError::Job {
                id: job.id,
                reason: "too many jobs".into(),
            });
        }
        Arc::make_mut(&mut self.jobs).push(job);
        self.st.push(JobState::PENDING);
        self.dynamic.push(Reverse((job.submit, job.id, idx as u32)));
        Ok(idx)
    }

    /// Adds a fixed reservation of `procs` processors over `[start, end)` on machine `m`: a
    /// block no job may overlap and no policy may move (Singh §2.4). It must fit around the
    /// running jobs (at their estimated ends) and the other fixed reservations; queued jobs
    /// make room (conservative: a full replay of the queue, then a scheduling round now).
    pub fn add_reservation(
        &mut self,
        m: usize,
        start: Time,
        end: Time,
        procs: u32,
    ) -> Result<ReservationId, SimError> {
        if m >= self.platform.len() {
            return Err(SimError::Reservation(format!("no machine {m}")));
        }
        if start < self.now || end <= start || procs == 0 {
            return Err(SimError::Reservation(format!(
                "[{start}, {end}) x {procs} on machine {m} at time {}: needs now <= start < end and procs > 0",
                self.now
            )));
        }
        if !self.base_profile(m).fits(start, end - start, procs) {
            return Err(SimError::Reservation(format!(
                "[{start}, {end}) x {procs} on machine {m} overlaps running jobs or fixed reservations"
            )));
        }
        let id = ReservationId(self.reservations.len() as u32);
        self.reservations.push(FixedReservation {
            machine: m as u32,
            start,
            end,
            procs,
            live: true,
        });
        self.reservation_ends.push(Reverse((end, id.0)));
        self.fixed_live[m] += 1;
        self.profiles[m].reserve(start, end, procs);
        if let Some(b) = &mut self.base {
            b[m].reserve(start, end, procs);
        }
        self.after_reservation_change();
        Ok(id)
    }

    /// Cancels a fixed reservation that has not ended; its processors become free for the
    /// rest of its interval.
    pub fn cancel_reservation(&mut self, id: ReservationId) -> Result<(), SimError> {
        let Some(r) = self.reservations.get(id.0 as usize).copied() else {
            return Err(SimError::Reservation(format!("no reservation {}", id.0)));
        };
        if !r.live || r.end <= self.now {
            return Err(SimError::Reservation(format!(
                "reservation {} has already ended",
                id.0
            )));
        }
        self.reservations[id.0 as usize].live = false;
        let m = r.machine as usize;
        self.fixed_live[m] -= 1;
        self.profiles[m].release(r.start, r.end, r.procs);
        if let Some(b) = &mut self.base {
            b[m].release(r.start, r.end, r.procs);
        }
        self.after_reservation_change();
        Ok(())
    }

    fn after_reservation_change(&mut self) {
        self.reservations_changed = true;
        // Queued jobs may start now (a cancellation frees processors; a replay can move a
        // job into room another job left).
        self.round();
    }

    // --- running ---------------------------------------------------------------------------

    /// The time of the next event, if any.
    pub fn next_event(&self) -> Option<Time> {
        let mut t = Time::MAX;
        if self.next_trace < self.n_trace {
            t = t.min(self.jobs[self.next_trace].submit);
        }
        if let Some(Reverse((s, _, _))) = self.dynamic.peek() {
            t = t.min(*s);
        }
        if let Some(Reverse((e, _))) = self.running.peek() {
            t = t.min(*e);
        }
        if let Some(Reverse((e, _))) = self.reservation_ends.peek() {
            t = t.min(*e);
        }
        if let Some(w) = self.rs.wake {
            t = t.min(w);
        }
        (t != Time::MAX).then_some(t)
    }

    /// Processes the next event time; `false` when nothing is left.
    pub fn step(&mut self) -> bool {
        let Some(t) = self.next_event() else {
            return false;
        };
        self.process(t);
        true
    }

    /// Processes every event up to and including `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: Time) {
        while let Some(e) = self.next_event() {
            if e > t {
                break;
            }
            self.process(e);
        }
        if t > self.now {
            self.advance(t);
        }
    }

    /// Processes every event strictly before `t` (the clock stays at the last one): with a
    /// trace that is still growing ([`extend_trace`](Self::extend_trace)), everything before
    /// the next job's submit time is already what the whole trace gives.
    pub fn run_before(&mut self, t: Time) {
        while let Some(e) = self.next_event() {
            if e >= t {
                break;
            }
            self.process(e);
        }
    }

    /// Runs until every job has finished.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Runs to the end with an external [`Dispatcher`] deciding the starts (the configuration's
    /// policy must be [`Policy::External`]). At each event time the engine applies every
    /// completion, then every arrival, then calls the dispatcher once. Stops with the
    /// dispatcher's first error.
    pub fn run_with<D: Dispatcher + ?Sized>(&mut self, dispatcher: &mut D) -> Result<(), SimError> {
        if self.config.policy != Policy::External {
            return Err(SimError::Config(format!(
                "run_with needs Policy::External, not {}",
                self.config.policy.name()
            )));
        }
        while self.begin_round()? {
            let result = dispatcher.round(&mut Round { sim: self });
            if result.is_err() {
                self.end_round();
            }
            result?;
        }
        Ok(())
    }

    /// [`run_with`](Self::run_with) one round at a time, for a dispatcher that cannot be
    /// handed to it as a `&mut` (one that lives in another language's runtime and reaches the
    /// simulator through a handle it owns): closes the round it opened last (its holds
    /// released, its notifications forgotten), processes the next event time and opens the
    /// round there, which [`current_round`](Self::current_round) gives; `false` (and no
    /// round open) when nothing is left. So
    /// `while sim.begin_round()? { my_round(&mut sim.current_round().unwrap()) }` is
    /// `run_with`. Needs [`Policy::External`].
    pub fn begin_round(&mut self) -> Result<bool, SimError> {
        if self.config.policy != Policy::External {
            return Err(SimError::Config(format!(
                "begin_round needs Policy::External, not {}",
                self.config.policy.name()
            )));
        }
        if self.round_open {
            self.end_round();
        }
        let Some(t) = self.next_event() else {
            return Ok(false);
        };
        self.process(t);
        self.round_open = true;
        Ok(true)
    }

    /// The round [`begin_round`](Self::begin_round) opened, if one is open.
    pub fn current_round(&mut self) -> Option<Round<'_>> {
        self.round_open.then_some(Round { sim: self })
    }

    /// Forgets the round's holds and notifications (keeping the buffers' allocations).
    fn end_round(&mut self) {
        self.round_open = false;
        self.released = false;
        self.reservations_changed = false;
        for (_, m, start, end, procs) in self.rs.holds.drain(..) {
            self.profiles[m as usize].release(start, end, procs);
            self.blocks[m as usize] -= 1;
        }
        self.rs.arrived.clear();
        self.rs.completed.clear();
        self.rs.early.clear();
    }

    /// Jobs arrived and not yet started.
    pub fn waiting(&self) -> usize {
        self.rs.waiting
    }

    fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now);
        self.now = t;
        for p in &mut self.profiles {
            p.advance(t);
        }
        for p in self.base.iter_mut().flatten() {
            p.advance(t);
        }
    }

    fn process(&mut self, t: Time) {
        // A notebook's Ctrl-C stops the run here (crates/sim/src/cancel.rs).
        gridsched_sim::cancel::checkpoint();
        if self.rs.wake.is_some_and(|w| w <= t) {
            self.rs.wake = None;
        }
        self.advance(t);
        self.counters.events += 1;
        while let Some(&Reverse((end, idx))) = self.running.peek() {
            if end > t {
                break;
            }
            self.running.pop();
            self.complete(idx);
        }
        while let Some(&Reverse((end, id))) = self.reservation_ends.peek() {
            if end > t {
                break;
            }
            self.reservation_ends.pop();
            let r = &mut self.reservations[id as usize];
            if r.live {
                r.live = false;
                self.fixed_live[r.machine as usize] -= 1;
                self.released = true;
            }
        }
        loop {
            let trace = (self.next_trace < self.n_trace).then(|| {
                let j = &self.jobs[self.next_trace];
                (j.submit, j.id, self.next_trace as u32)
            });
            let dynamic = self.dynamic.peek().map(|r| r.0);
            let next = match (trace, dynamic) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if next.0 > t {
                break;
            }
            if trace == Some(next) {
                self.next_trace += 1;
            } else {
                self.dynamic.pop();
            }
            self.arrive(next.2);
        }
        self.round();
    }

    fn complete(&mut self, idx: u32) {
        let now = self.now;
        let s = &mut self.st[idx as usize];
        debug_assert_eq!(s.phase, JobPhase::Running);
        debug_assert_eq!(s.end, now);
        s.phase = JobPhase::Done;
        let (m, est_end) = (s.machine as usize, s.est_end);
        let procs = self.jobs[idx as usize].procs;
        self.released = true;
        self.rs.completed.push(idx);
        if idx as usize >= self.n_trace {
            self.submitted_done.push(idx);
        }
        if est_end > now {
            // Ended before its estimate: the profile still holds it until `est_end`.
            self.counters.early_completions += 1;
            self.profiles[m].release(now, est_end, procs);
            if let Some(b) = &mut self.base {
                b[m].release(now, est_end, procs);
            }
            self.rs.early.push(EarlyCompletion {
                index: idx,
                machine: m as u32,
                planned_end: est_end,
            });
        }
    }

    fn arrive(&mut self, idx: u32) {
        let seq = self.arrivals;
        self.arrivals += 1;
        let s = &mut self.st[idx as usize];
        s.phase = JobPhase::Queued;
        s.seq = seq;
        let rs = &mut self.rs;
        rs.arrived.push(idx);
        rs.waiting += 1;
        if rs.tracking {
            if rs.queue.len() >= 64 + 2 * rs.waiting {
                let st = &self.st;
                rs.queue
                    .retain(|&i| st[i as usize].phase == JobPhase::Queued);
            }
            rs.queue.push(idx);
        }
    }

    /// Starts job `idx` now on machine `m`. `reserved`: its block is already in the profile
    /// (a reservation starting now).
    fn start(&mut self, idx: u32, m: usize, reserved: bool) {
        let now = self.now;
        let job = self.jobs[idx as usize];
        debug_assert!(now >= job.submit, "job {} starts before submission", job.id);
        let est_ref = job.estimate(self.config.estimates);
        let est = self.platform.duration(m, est_ref);
        let run = self.platform.duration(m, job.run);
        let (executed, killed) = match self.config.estimates {
            Estimates::Actual => (run, false),
            Estimates::Requested => (run.min(est), run > est),
        };
        if !reserved {
            self.profiles[m].reserve(now, now + est, job.procs);
        }
        if let Some(b) = &mut self.base {
            b[m].reserve(now, now + est, job.procs);
        }
        debug_assert!(
            self.profiles[m].free_now() >= 0,
            "capacity exceeded on machine {m} at {now} starting job {}",
            job.id
        );
        let s = &mut self.st[idx as usize];
        s.phase = JobPhase::Running;
        s.machine = m as u32;
        s.start = now;
        s.end = now + executed;
        s.est_end = now + est;
        s.killed = killed;
        s.plan = 0;
        self.running.push(Reverse((s.end, idx)));
        self.rs.waiting -= 1;
    }

    // --- scheduling rounds -----------------------------------------------------------------

    /// One round of the built-in policy, if the configuration selects one (under
    /// [`Policy::External`] the dispatcher's round follows, in `run_with`).
    fn round(&mut self) {
        self.counters.rounds += 1;
        if let Some(mut b) = self.builtin.take() {
            b.round(&mut Round { sim: self })
                .expect("a built-in policy only makes valid requests");
            self.builtin = Some(b);
            self.end_round();
        }
        if self.config.check_invariants {
            self.check_invariants();
        }
    }

    /// Whether machine `m`'s profile is non-decreasing from now on (no fixed reservation,
    /// reservation or hold in it), so that "fits now" is "enough processors free now".
    #[inline]
    fn monotone(&self, m: usize) -> bool {
        self.fixed_live[m] == 0 && self.blocks[m] == 0
    }

    #[inline]
    fn fits_now(&self, m: usize, dur: Time, procs: u32) -> bool {
        let p = &self.profiles[m];
        if self.monotone(m) {
            p.free_now() >= i64::from(procs)
        } else {
            p.fits(self.now, dur, procs)
        }
    }

    // --- invariants ------------------------------------------------------------------------

    fn check_invariants(&self) {
        for (m, p) in self.profiles.iter().enumerate() {
            if let Err(e) = p.validate() {
                panic!("machine {m} profile at {}: {e}", self.now);
            }
        }
        for (m, p) in self.base.iter().flatten().enumerate() {
            if let Err(e) = p.validate() {
                panic!("machine {m} base profile at {}: {e}", self.now);
            }
        }
    }
}

fn validate_job(platform: &Platform, j: &Job) -> Result<(), SimError> {
    let reason = if j.procs == 0 {
        Some("needs at least one processor".to_string())
    } else if j.run <= 0 {
        Some(format!("run time {} must be positive", j.run))
    } else if j.requested.is_some_and(|r| r <= 0) {
        Some("requested time must be positive".to_string())
    } else if j.procs > platform.max_cpus() {
        Some(format!(
            "needs {} processors; the largest machine has {}",
            j.procs,
            platform.max_cpus()
        ))
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SimError::Job { id: j.id, reason }),
        None => Ok(()),
    }
}
