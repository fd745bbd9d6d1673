//! The event-driven engine and the queue policies (FCFS, EASY, Flexible); conservative
//! backfilling lives in `conservative.rs`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::config::{Config, Estimates, MachineSelect, Policy};
use crate::platform::Platform;
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
    /// Planned start while queued (conservative), actual start once running.
    pub(crate) start: Time,
    /// Actual end once running.
    pub(crate) end: Time,
    /// `start` + the estimate on its machine (the end the scheduler plans with).
    pub(crate) est_end: Time,
    /// The first start promised to the job (conservative; `Time::MAX` if none), for checks.
    pub(crate) promise: Time,
    pub(crate) killed: bool,
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
    };
}

/// One job's fate, as far as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRecord {
    pub job: Job,
    pub phase: JobPhase,
    /// Machine it runs or ran on (or, queued under conservative backfilling, is planned on).
    pub machine: Option<u32>,
    /// Start (planned start while queued under conservative backfilling).
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

#[derive(Debug, Clone, Copy)]
pub(crate) struct QEntry {
    pub(crate) idx: u32,
    pub(crate) procs: u32,
    /// The estimate at the reference speed.
    pub(crate) est: Time,
}

/// A FIFO of waiting jobs with `O(1)` pops at the front and in-place compaction of the rest.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobQueue {
    v: Vec<QEntry>,
    head: usize,
}

impl JobQueue {
    fn len(&self) -> usize {
        self.v.len() - self.head
    }
    fn front(&self) -> Option<QEntry> {
        self.v.get(self.head).copied()
    }
    fn pop_front(&mut self) {
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        } else if self.head >= 4096 && self.head * 2 >= self.v.len() {
            self.v.drain(..self.head);
            self.head = 0;
        }
    }
    fn push(&mut self, e: QEntry) {
        self.v.push(e);
    }
    fn as_slice(&self) -> &[QEntry] {
        &self.v[self.head..]
    }
    fn as_mut_slice(&mut self) -> &mut [QEntry] {
        &mut self.v[self.head..]
    }
    /// Drops the entries `[k, len)` of the live part.
    fn truncate(&mut self, k: usize) {
        self.v.truncate(self.head + k);
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        }
    }
}

/// State of the FCFS, EASY and Flexible policies.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueueState {
    pub(crate) q: JobQueue,
    /// Entries (from the head) already examined against the current reservation and free
    /// capacity; a round with no release and the same head only examines the rest.
    checked: usize,
    /// The head's reservation as last promised: (job index, start), for the non-delay check.
    promise: Option<(u32, Time)>,
    /// Flexible: (priority, arrival seq, entry) scratch.
    keys: Vec<(f64, u32, QEntry)>,
}

/// State of conservative backfilling.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConsState {
    /// Queued jobs in queue order (may hold started jobs until the next compaction).
    pub(crate) q: Vec<u32>,
    /// Arrivals of this instant, placed after any compression.
    pub(crate) arrived: Vec<u32>,
    /// Planned starts: (start, seq, job); an entry is stale unless the job is still queued
    /// with that planned start.
    pub(crate) starts: BinaryHeap<Reverse<(Time, u32, u32)>>,
    /// Base profiles (running jobs and fixed reservations only), one per machine.
    pub(crate) base: Vec<Profile>,
    /// Early completions of this instant: (machine, from, estimated end).
    pub(crate) dirty: Vec<(u32, Time, Time)>,
    /// A fixed reservation was added or cancelled: the next compression replays everything.
    pub(crate) full_replay: bool,
    /// Jobs queued (placed and not started).
    pub(crate) live: usize,
    /// Replay scratch: per machine, the regions freed since the replayed jobs were placed.
    pub(crate) freed: Vec<Vec<Region>>,
}

/// An interval of one machine's profile freed during a compression, with an upper bound on
/// the free processors over it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Region {
    pub(crate) from: Time,
    pub(crate) to: Time,
    pub(crate) level: i64,
}

/// State of an external dispatcher's simulation: what happened since its last round.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExternalState {
    /// Jobs that arrived at this instant, in arrival order.
    arrived: Vec<u32>,
    /// Jobs that completed at this instant, in completion order.
    completed: Vec<u32>,
    /// Jobs arrived and not started.
    waiting: usize,
    /// The earliest time the dispatcher asked to be called again, if later than now.
    wake: Option<Time>,
    /// Waiting jobs in arrival order, as of the start of the current round (compacted then).
    queue: Vec<u32>,
    /// This round's holds: (job, machine, start, end, processors), released when it ends.
    holds: Vec<(u32, u32, Time, Time, u32)>,
}

#[derive(Debug, Clone)]
pub(crate) enum PolicyState {
    Queue(QueueState),
    Cons(ConsState),
    External(ExternalState),
}

/// A queue policy of your own driving the [`Simulator`] (also how the schedule-based policies
/// of `gridsched-schedule-based` run). The engine keeps the clock, the event order
/// (completions, then arrivals by submit time and id, then one round per event time), the
/// machines' capacity and every job's outcome, exactly as for the built-in policies; at each
/// event time the dispatcher sees the waiting queue ([`Round::waiting`]), the running jobs
/// ([`Round::running`]) and each machine's availability profile ([`Round::profile`]), starts
/// jobs through [`Round::start`], which refuses a start that does not fit, and may hold
/// reservations for the rest of the round ([`Round::hold`]) so that later starts respect them,
/// as EASY does for its queue head. Run it with [`Simulator::run_with`] under
/// [`Policy::External`]; outcomes, metrics ([`Summary`](crate::Summary)), the Batsim CSV and
/// [`audit`](crate::audit) work as for the built-ins.
///
/// A complete example (shortest-job-first backfilling on a Parallel Workloads Archive log) is
/// `crates/batch/examples/sjf_backfill.rs`; `crates/batch/tests/external.rs` checks that FCFS
/// and EASY written against this trait give the built-ins' schedules job for job.
pub trait Dispatcher {
    /// One scheduling round at [`Round::now`].
    fn round(&mut self, round: &mut Round<'_>) -> Result<(), SimError>;
}

/// What a [`Dispatcher`] sees and may do in one round.
#[derive(Debug)]
pub struct Round<'a> {
    sim: &'a mut Simulator,
    arrived: &'a [u32],
    completed: &'a [u32],
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

    /// Job indices that arrived at this instant (submit order, then id).
    pub fn arrived(&self) -> &[u32] {
        self.arrived
    }

    /// Job indices that completed at this instant.
    pub fn completed(&self) -> &[u32] {
        self.completed
    }

    /// Job `index` as submitted.
    pub fn job(&self, index: u32) -> &Job {
        &self.sim.jobs[index as usize]
    }

    /// Processors of machine `m` free now.
    pub fn free_now(&self, m: usize) -> i64 {
        self.sim.profiles[m].free_now()
    }

    /// The waiting jobs (indices) in arrival order, as of the start of this round: a job
    /// started during the round stays listed until the next one (check [`is_waiting`](Self::is_waiting)
    /// when that matters).
    pub fn waiting(&self) -> &[u32] {
        match &self.sim.policy {
            PolicyState::External(x) => &x.queue,
            _ => &[],
        }
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
        sim.running.iter().map(move |&Reverse((_, idx))| {
            let s = &sim.st[idx as usize];
            RunningJob {
                index: idx as usize,
                machine: s.machine,
                procs: sim.jobs[idx as usize].procs,
                start: s.start,
                planned_end: s.est_end,
            }
        })
    }

    /// Machine `m`'s availability profile: running jobs to their planned ends, fixed
    /// reservations and this round's [holds](Self::hold). A block that
    /// [`fits`](Profile::fits) in it delays none of them.
    pub fn profile(&self, m: usize) -> &Profile {
        &self.sim.profiles[m]
    }

    /// The run time the engine plans job `index` with on machine `m`: its actual or requested
    /// time per [`Config::estimates`](crate::Config), scaled by the machine's speed.
    pub fn planned_run_time(&self, index: u32, m: usize) -> Time {
        let job = &self.sim.jobs[index as usize];
        self.sim
            .platform
            .duration(m, job.estimate(self.sim.config.estimates))
    }

    /// Holds machine `m` for waiting job `index` from `start` for its planned run time, until
    /// the end of this round: the block is in [`profile`](Self::profile), so later
    /// [`start`](Self::start)s must leave room for it (EASY's reservation for its blocked
    /// head; hold every waiting job for conservative backfilling). Starting the held job
    /// releases its hold first. Refused if the job is not waiting, the machine is too small,
    /// `start` is in the past or the block does not fit.
    pub fn hold(&mut self, index: u32, m: usize, start: Time) -> Result<(), SimError> {
        let sim = &mut *self.sim;
        let job = Self::waiting_job(sim, index, m, "be held")?;
        if let PolicyState::External(x) = &sim.policy
            && x.holds.iter().any(|h| h.0 == index)
        {
            return Err(SimError::Job {
                id: job.id,
                reason: "is already held this round".into(),
            });
        }
        let dur = sim.platform.duration(m, job.estimate(sim.config.estimates));
        if start < sim.now || !sim.profiles[m].fits(start, dur, job.procs) {
            return Err(SimError::Job {
                id: job.id,
                reason: format!("cannot be held on machine {m} from {start} (it does not fit)"),
            });
        }
        sim.profiles[m].reserve(start, start + dur, job.procs);
        if let PolicyState::External(x) = &mut sim.policy {
            x.holds
                .push((index, m as u32, start, start + dur, job.procs));
        }
        Ok(())
    }

    /// Job `index` if it is waiting and machine `m` is wide enough for it; the error says it
    /// cannot `verb` on the machine otherwise.
    fn waiting_job(sim: &Simulator, index: u32, m: usize, verb: &str) -> Result<Job, SimError> {
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

    /// Releases every hold of the round.
    fn release_holds(sim: &mut Simulator) {
        if let PolicyState::External(x) = &mut sim.policy {
            for (_, m, start, end, procs) in x.holds.drain(..) {
                sim.profiles[m as usize].release(start, end, procs);
            }
        }
    }

    /// Releases and returns job `index`'s hold, if it has one.
    fn take_hold(sim: &mut Simulator, index: u32) -> Option<(u32, u32, Time, Time, u32)> {
        let PolicyState::External(x) = &mut sim.policy else {
            return None;
        };
        let i = x.holds.iter().position(|h| h.0 == index)?;
        let h @ (_, m, start, end, procs) = x.holds.swap_remove(i);
        sim.profiles[m as usize].release(start, end, procs);
        Some(h)
    }

    /// Starts waiting job `index` now on machine `m`; refused (nothing changes) if the job is
    /// not waiting or does not fit there now for its whole run time.
    pub fn start(&mut self, index: u32, m: usize) -> Result<(), SimError> {
        let sim = &mut *self.sim;
        let job = Self::waiting_job(sim, index, m, "run")?;
        let held = Self::take_hold(sim, index);
        let dur = sim.platform.duration(m, job.estimate(sim.config.estimates));
        if !sim.profiles[m].fits(sim.now, dur, job.procs) {
            // A refused start changes nothing: the job keeps its hold.
            if let Some(h @ (_, hm, hs, he, hp)) = held {
                sim.profiles[hm as usize].reserve(hs, he, hp);
                if let PolicyState::External(x) = &mut sim.policy {
                    x.holds.push(h);
                }
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
        if let PolicyState::External(x) = &mut sim.policy {
            x.waiting -= 1;
        }
        Ok(())
    }

    /// Asks to be called again at time `t` (later than now) even if nothing arrives or
    /// completes then.
    pub fn wake_at(&mut self, t: Time) {
        if let PolicyState::External(x) = &mut self.sim.policy
            && t > self.sim.now
        {
            x.wake = Some(x.wake.map_or(t, |w| w.min(t)));
        }
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
    /// Per machine: running jobs, fixed reservations, and (conservative) queued reservations.
    pub(crate) profiles: Vec<Profile>,
    /// Per machine: fixed reservations not yet ended (a machine without any has a
    /// non-decreasing profile under FCFS/EASY/Flexible, which allows `O(1)` fit tests).
    fixed_live: Vec<u32>,
    reservations: Vec<FixedReservation>,
    reservation_ends: BinaryHeap<Reverse<(Time, u32)>>,
    /// Machines in selection order (fastest first, or by index).
    pub(crate) select_order: Vec<u32>,
    pub(crate) policy: PolicyState,
    /// Capacity was released at this instant (a completion or a reservation end).
    released: bool,
    /// A fixed reservation was added or cancelled since the last round.
    reservations_changed: bool,
    /// Some fixed reservation was ever added: promises may legitimately be broken.
    pub(crate) promises_void: bool,
    pub(crate) counters: Counters,
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
        let policy = match config.policy {
            Policy::Conservative => PolicyState::Cons(ConsState {
                base: profiles.clone(),
                ..ConsState::default()
            }),
            Policy::External => PolicyState::External(ExternalState::default()),
            _ => PolicyState::Queue(QueueState::default()),
        };
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
            fixed_live: vec![0; m],
            reservations: Vec::new(),
            reservation_ends: BinaryHeap::new(),
            select_order,
            policy,
            released: false,
            reservations_changed: false,
            promises_void: false,
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

    /// Work counters.
    pub fn counters(&self) -> Counters {
        self.counters
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

    /// Machine `m`'s profile of running jobs and fixed reservations only (under FCFS, EASY and
    /// Flexible the same as [`profile`](Self::profile)).
    pub fn base_profile(&self, m: usize) -> &Profile {
        match &self.policy {
            PolicyState::Cons(c) => &c.base[m],
            PolicyState::Queue(_) | PolicyState::External(_) => &self.profiles[m],
        }
    }

    /// Job `index`'s record (indices follow [`with_jobs`](Self::with_jobs)' sorted order,
    /// then [`submit`](Self::submit) order).
    pub fn record(&self, index: usize) -> JobRecord {
        let s = &self.st[index];
        let known = matches!(s.phase, JobPhase::Running | JobPhase::Done)
            || (s.phase == JobPhase::Queued && s.machine != u32::MAX);
        JobRecord {
            job: self.jobs[index],
            phase: s.phase,
            machine: known.then_some(s.machine),
            start: known.then_some(s.start),
            end: matches!(s.phase, JobPhase::Running | JobPhase::Done).then_some(s.end),
        }
    }

    /// The waiting jobs in queue order (indices; for Flexible, the order of the last round).
    pub fn queued(&self) -> Vec<usize> {
        match &self.policy {
            PolicyState::Queue(q) => q.q.as_slice().iter().map(|e| e.idx as usize).collect(),
            PolicyState::Cons(c) => {
                c.q.iter()
                    .chain(&c.arrived)
                    .filter(|&&i| self.st[i as usize].phase == JobPhase::Queued)
                    .map(|&i| i as usize)
                    .collect()
            }
            // Arrival order: the dispatcher keeps its own order.
            PolicyState::External(_) => {
                let mut q: Vec<(u32, usize)> = (0..self.st.len())
                    .filter(|&i| self.st[i].phase == JobPhase::Queued)
                    .map(|i| (self.st[i].seq, i))
                    .collect();
                q.sort_unstable();
                q.into_iter().map(|(_, i)| i).collect()
            }
        }
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
            .map(|&Reverse((_, idx))| {
                let s = &self.st[idx as usize];
                RunningJob {
                    index: idx as usize,
                    machine: s.machine,
                    procs: self.jobs[idx as usize].procs,
                    start: s.start,
                    planned_end: s.est_end,
                }
            })
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

    /// The run time the scheduler plans job `index` with on its (planned) machine, or on
    /// machine 0 if it has none yet: the actual or the requested time per
    /// [`Config::estimates`], scaled by the machine's speed.
    pub fn planned_run_time(&self, index: usize) -> Time {
        let m = match self.st[index].machine {
            u32::MAX => 0,
            m => m as usize,
        };
        self.platform
            .duration(m, self.jobs[index].estimate(self.config.estimates))
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
        if let PolicyState::Cons(c) = &mut self.policy {
            c.base[m].reserve(start, end, procs);
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
        if let PolicyState::Cons(c) = &mut self.policy {
            c.base[m].release(r.start, r.end, r.procs);
        }
        self.after_reservation_change();
        Ok(())
    }

    fn after_reservation_change(&mut self) {
        self.reservations_changed = true;
        self.promises_void = true;
        if let PolicyState::Cons(c) = &mut self.policy {
            c.full_replay = true;
        }
        // Queued jobs may start now (a cancellation frees processors; a replay can move a
        // job into room another job left).
        self.round();
        self.reservations_changed = false;
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
        if let PolicyState::Cons(c) = &self.policy
            && let Some(Reverse((s, _, _))) = c.starts.peek()
        {
            t = t.min(*s);
        }
        if let PolicyState::External(x) = &self.policy
            && let Some(w) = x.wake
        {
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
        while let Some(t) = self.next_event() {
            if let PolicyState::External(x) = &mut self.policy
                && x.wake.is_some_and(|w| w <= t)
            {
                x.wake = None;
            }
            self.process(t);
            let (arrived, completed) = match &mut self.policy {
                PolicyState::External(x) => (
                    std::mem::take(&mut x.arrived),
                    std::mem::take(&mut x.completed),
                ),
                _ => unreachable!("checked above"),
            };
            if let PolicyState::External(x) = &mut self.policy {
                let st = &self.st;
                x.queue
                    .retain(|&i| st[i as usize].phase == JobPhase::Queued);
            }
            let result = dispatcher.round(&mut Round {
                sim: self,
                arrived: &arrived,
                completed: &completed,
            });
            Round::release_holds(self);
            // Hand the buffers back so the next instant reuses their allocations.
            if let PolicyState::External(x) = &mut self.policy {
                let (mut a, mut c) = (arrived, completed);
                a.clear();
                c.clear();
                x.arrived = a;
                x.completed = c;
            }
            result?;
        }
        Ok(())
    }

    /// Jobs arrived and not yet started under [`Policy::External`] (0 for other policies).
    pub fn waiting(&self) -> usize {
        match &self.policy {
            PolicyState::External(x) => x.waiting,
            _ => 0,
        }
    }

    fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now);
        self.now = t;
        for p in &mut self.profiles {
            p.advance(t);
        }
        if let PolicyState::Cons(c) = &mut self.policy {
            for p in &mut c.base {
                p.advance(t);
            }
        }
    }

    fn process(&mut self, t: Time) {
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
        self.released = false;
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
        if let PolicyState::External(x) = &mut self.policy {
            x.completed.push(idx);
        }
        if idx as usize >= self.n_trace {
            self.submitted_done.push(idx);
        }
        if est_end > now {
            // Ended before its estimate: the profile still holds it until `est_end`.
            self.counters.early_completions += 1;
            self.profiles[m].release(now, est_end, procs);
            if let PolicyState::Cons(c) = &mut self.policy {
                c.base[m].release(now, est_end, procs);
                c.dirty.push((m as u32, now, est_end));
            }
        }
    }

    fn arrive(&mut self, idx: u32) {
        let seq = self.arrivals;
        self.arrivals += 1;
        let s = &mut self.st[idx as usize];
        s.phase = JobPhase::Queued;
        s.seq = seq;
        let job = self.jobs[idx as usize];
        match &mut self.policy {
            PolicyState::Queue(q) => q.q.push(QEntry {
                idx,
                procs: job.procs,
                est: job.estimate(self.config.estimates),
            }),
            PolicyState::Cons(c) => c.arrived.push(idx),
            PolicyState::External(x) => {
                x.arrived.push(idx);
                x.queue.push(idx);
                x.waiting += 1;
            }
        }
    }

    /// Starts job `idx` now on machine `m`. `reserved`: its block is already in the profile
    /// (a conservative reservation starting now).
    pub(crate) fn start(&mut self, idx: u32, m: usize, reserved: bool) {
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
        if let PolicyState::Cons(c) = &mut self.policy {
            c.base[m].reserve(now, now + est, job.procs);
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
        self.running.push(Reverse((s.end, idx)));
    }

    // --- scheduling rounds -----------------------------------------------------------------

    fn round(&mut self) {
        self.counters.rounds += 1;
        match self.config.policy {
            Policy::Fcfs => self.round_fcfs(),
            Policy::Easy => self.round_easy(false),
            Policy::Flexible => self.round_easy(true),
            Policy::Conservative => self.round_conservative(),
            // The dispatcher's round follows, in `run_with`.
            Policy::External => {}
        }
        if self.config.check_invariants {
            self.check_invariants();
        }
    }

    /// Whether machine `m`'s profile is non-decreasing from now on (no fixed reservation and
    /// no planned job in it), so that "fits now" is "enough processors free now".
    #[inline]
    fn monotone(&self, m: usize) -> bool {
        self.fixed_live[m] == 0
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

    /// The machine job `e` starts on now, if any, by the selection rule.
    fn pick_now(&self, e: QEntry) -> Option<usize> {
        if self.profiles.len() == 1 {
            return self
                .fits_now(0, self.platform.duration(0, e.est), e.procs)
                .then_some(0);
        }
        self.select_order.iter().map(|&m| m as usize).find(|&m| {
            self.platform.machines()[m].cpus >= e.procs
                && self.fits_now(m, self.platform.duration(m, e.est), e.procs)
        })
    }

    fn queue_state(&mut self) -> &mut QueueState {
        match &mut self.policy {
            PolicyState::Queue(q) => q,
            PolicyState::Cons(_) | PolicyState::External(_) => unreachable!("queue policy state"),
        }
    }

    fn round_fcfs(&mut self) {
        loop {
            let Some(h) = self.queue_state().q.front() else {
                return;
            };
            let Some(m) = self.pick_now(h) else {
                return;
            };
            self.queue_state().q.pop_front();
            self.start(h.idx, m, false);
        }
    }

    /// EASY (and Flexible, after re-sorting): start heads while they fit, reserve for the
    /// blocked head at its earliest start, then start every other job (in queue order) that
    /// fits now without touching that reservation.
    fn round_easy(&mut self, flexible: bool) {
        if flexible {
            self.sort_by_priority();
        }
        let full = flexible || self.released || self.reservations_changed;
        let mut head_started = false;
        loop {
            let Some(h) = self.queue_state().q.front() else {
                let qs = self.queue_state();
                qs.checked = 0;
                qs.promise = None;
                return;
            };
            let Some(m) = self.pick_now(h) else {
                break;
            };
            self.queue_state().q.pop_front();
            self.check_head_promise(h.idx, flexible);
            self.start(h.idx, m, false);
            head_started = true;
        }
        let from = if full || head_started {
            1
        } else {
            self.queue_state().checked.max(1)
        };
        let qlen = self.queue_state().q.len();
        if from >= qlen {
            self.queue_state().checked = qlen;
            if !(full || head_started) {
                return;
            }
        }
        let head = self.queue_state().q.front().expect("non-empty");
        let (rm, shadow) = self.head_reservation(head);
        self.note_head_promise(head.idx, shadow, flexible);
        if from >= qlen {
            return;
        }
        let dur_h = self.platform.duration(rm, head.est);
        let fast = self.monotone(rm);
        if !fast {
            self.profiles[rm].reserve(shadow, shadow + dur_h, head.procs);
        }
        // `extra`: processors free at the shadow time beyond the head's (monotone profile).
        let mut extra = if fast {
            self.profiles[rm].free_at(shadow) - i64::from(head.procs)
        } else {
            0
        };
        let single = self.profiles.len() == 1;
        let mut free_total: i64 = self.profiles.iter().map(|p| p.free_now()).sum();
        let now = self.now;
        let mut w = from;
        let mut i = from;
        while i < qlen {
            if free_total <= 0 {
                break;
            }
            let e = self.queue_state().q.as_slice()[i];
            i += 1;
            self.counters.backfill_checks += 1;
            let chosen = if single {
                // The machine's own run time, not the reference one: a one-machine grid may
                // be slower or faster than the reference speed.
                let d = self.platform.duration(0, e.est);
                let ok = self.profiles[0].free_now() >= i64::from(e.procs)
                    && if fast {
                        now + d <= shadow || i64::from(e.procs) <= extra
                    } else {
                        self.profiles[0].fits(now, d, e.procs)
                    };
                ok.then_some(0)
            } else {
                self.select_order.iter().map(|&m| m as usize).find(|&m| {
                    if self.platform.machines()[m].cpus < e.procs
                        || self.profiles[m].free_now() < i64::from(e.procs)
                    {
                        return false;
                    }
                    let d = self.platform.duration(m, e.est);
                    if m == rm && fast {
                        now + d <= shadow || i64::from(e.procs) <= extra
                    } else {
                        self.fits_now(m, d, e.procs)
                    }
                })
            };
            match chosen {
                Some(m) => {
                    let d = self.platform.duration(m, e.est);
                    if m == rm && fast && now + d > shadow {
                        extra -= i64::from(e.procs);
                    }
                    free_total -= i64::from(e.procs);
                    self.start(e.idx, m, false);
                }
                None => {
                    let qs = self.queue_state();
                    qs.q.as_mut_slice()[w] = e;
                    w += 1;
                }
            }
        }
        // Keep the unexamined tail.
        let qs = self.queue_state();
        if w < i {
            let s = qs.q.as_mut_slice();
            s.copy_within(i..qlen, w);
            let kept = w + (qlen - i);
            qs.q.truncate(kept);
        }
        qs.checked = qs.q.len();
        if !fast {
            self.profiles[rm].release(shadow, shadow + dur_h, head.procs);
        }
    }

    /// The blocked head's reservation: the machine with the earliest start, then the
    /// earliest end, then the lowest index (Klusáček A11); `(machine, start)`.
    fn head_reservation(&self, h: QEntry) -> (usize, Time) {
        let mut best: Option<(Time, Time, usize)> = None;
        for m in 0..self.profiles.len() {
            if self.platform.machines()[m].cpus < h.procs {
                continue;
            }
            let d = self.platform.duration(m, h.est);
            let p = &self.profiles[m];
            let s = if self.monotone(m) {
                if p.free_now() >= i64::from(h.procs) {
                    Some(self.now)
                } else {
                    p.first_at_least(self.now, i64::from(h.procs))
                }
            } else {
                p.earliest_fit(self.now, d, h.procs)
            };
            let s = s.expect("a job no wider than its machine always fits eventually");
            let key = (s, s + d, m);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (s, _, m) = best.expect("validated: some machine is wide enough");
        (m, s)
    }

    fn note_head_promise(&mut self, idx: u32, shadow: Time, flexible: bool) {
        let check = self.config.check_invariants && !flexible;
        let fresh = flexible || self.reservations_changed;
        let qs = self.queue_state();
        match qs.promise {
            Some((j, p)) if j == idx && !fresh => {
                if check {
                    assert!(
                        shadow <= p,
                        "EASY delayed the head's reservation: job index {idx} promised {p}, now {shadow}"
                    );
                }
                qs.promise = Some((j, shadow));
            }
            _ => qs.promise = Some((idx, shadow)),
        }
    }

    fn check_head_promise(&mut self, idx: u32, flexible: bool) {
        let now = self.now;
        // A promise is renewed at every round after a fixed reservation changes, so the
        // check holds with reservations too; Flexible's top job can lose its place.
        let check = self.config.check_invariants && !flexible;
        let qs = self.queue_state();
        if let Some((j, p)) = qs.promise
            && j == idx
        {
            if check {
                assert!(
                    now <= p,
                    "EASY started the head (job index {idx}) at {now}, after its reservation {p}"
                );
            }
            qs.promise = None;
        }
    }

    /// Flexible backfilling: re-sort the queue by the Klusáček priority (spec §2.12).
    fn sort_by_priority(&mut self) {
        let now = self.now;
        let w = self.config.flex;
        let PolicyState::Queue(qs) = &mut self.policy else {
            unreachable!("queue policy state")
        };
        if qs.q.len() < 2 {
            return;
        }
        let jobs = &self.jobs;
        let st = &self.st;
        let (mut emin, mut emax, mut wmax, mut dmax) = (Time::MAX, Time::MIN, 0, Time::MIN);
        for e in qs.q.as_slice() {
            let j = &jobs[e.idx as usize];
            emin = emin.min(e.est);
            emax = emax.max(e.est);
            wmax = wmax.max(now - j.submit);
            if let Some(d) = j.deadline {
                dmax = dmax.max(d - now);
            }
        }
        let (elo, ehi) = w.exec_range.unwrap_or((emin, emax));
        qs.keys.clear();
        for e in qs.q.as_slice() {
            let j = &jobs[e.idx as usize];
            let ex = if ehi > elo {
                (ehi - e.est) as f64 / (ehi - elo) as f64
            } else {
                0.0
            };
            let wt = if wmax > 0 {
                (now - j.submit) as f64 / wmax as f64
            } else {
                0.0
            };
            let dl = match j.deadline {
                None => 0.0,
                Some(_) if dmax <= 0 => 1.0,
                Some(d) => 1.0 - ((d - now) as f64 / dmax as f64).clamp(0.0, 1.0),
            };
            let prio = w.deadline * dl + w.wait * wt + w.exec * ex;
            qs.keys.push((prio, st[e.idx as usize].seq, *e));
        }
        qs.keys
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (slot, k) in qs.q.as_mut_slice().iter_mut().zip(&qs.keys) {
            *slot = k.2;
        }
    }

    // --- invariants ------------------------------------------------------------------------

    fn check_invariants(&self) {
        for (m, p) in self.profiles.iter().enumerate() {
            if let Err(e) = p.validate() {
                panic!("machine {m} profile at {}: {e}", self.now);
            }
        }
        if let PolicyState::Cons(c) = &self.policy {
            for (m, p) in c.base.iter().enumerate() {
                if let Err(e) = p.validate() {
                    panic!("machine {m} base profile at {}: {e}", self.now);
                }
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
