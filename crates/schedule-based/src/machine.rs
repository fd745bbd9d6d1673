//! One machine's schedule (spec §2.1): the CPUs' running jobs and the ordered list of planned
//! jobs, with compaction, earliest-gap (EG) search, EDF insertion and removal.
//!
//! Running jobs are kept only as the CPUs' busy-until times: that is all compaction needs, and
//! a running job can neither move nor change. Planned jobs carry their compacted start and end.
//! The busy-until times, like every list-scheduling state, are classes of CPUs with one time
//! ([`CpuClass`], module `free`): which CPU holds a time is never observable, so a machine's
//! size costs nothing per operation.

use crate::Time;
pub use crate::free::CpuClass;
use crate::free::{fold_at, fold_in_place, kth, place_on, take};
use crate::profile::{UsageProfile, build_profile, first_fit};

/// A job in a machine's planned list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedJob {
    /// Job index in the simulator.
    pub index: u32,
    pub procs: u32,
    /// Run time on this machine.
    pub duration: Time,
    /// Soft deadline (`None`: never delayed).
    pub deadline: Option<Time>,
    /// Release (submit) time: re-computation's tie-break.
    pub release: Time,
    /// Job id: re-computation's last tie-break.
    pub id: u64,
    /// Compacted start and end.
    pub start: Time,
    pub end: Time,
}

impl PlannedJob {
    /// Whether it ends after its deadline as planned.
    #[inline]
    pub fn delayed(&self) -> bool {
        self.deadline.is_some_and(|d| self.end > d)
    }
}

/// The objective's per-machine aggregates of a compacted list (spec §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Aggregates {
    /// Latest end of a running or planned job (for an idle machine, of the last job it ran,
    /// or the time it became available).
    pub max_end: Time,
    /// Planned jobs ending no later than their deadline (or without one).
    pub nondelayed: u32,
    /// Planned jobs ending after their deadline.
    pub delayed: u32,
}

/// Deterministic work done by the schedule operations (the runtime metric's stand-in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Jobs placed by a compaction pass.
    pub compacted: u64,
    /// Profile steps examined by earliest-gap searches.
    pub scanned: u64,
    /// Candidate schedules evaluated by the acceptance criterion.
    pub candidates: u64,
    /// Jobs placed by incr-EG-EDF (re-comp-EG-EDF places every planned job again). Not work:
    /// not in [`Work::total`].
    pub placements: u64,
    /// Placements in which the criterion scored some candidate exactly like the best so far,
    /// so that the tie-break (reading A17) took part in the choice. Not in [`Work::total`].
    pub tied_placements: u64,
}

impl Work {
    /// All of it, as one count (the operations, not the placement tallies).
    pub fn total(&self) -> u64 {
        self.compacted + self.scanned + self.candidates
    }
}

impl Aggregates {
    /// The aggregates of a machine whose latest running (or last) job ends at `max_end` and
    /// that has no planned job yet.
    fn of_running(max_end: Time) -> Self {
        // The latest end of a running job, never `now`: aggregates must not depend on when
        // they were computed.
        Aggregates {
            max_end,
            ..Aggregates::default()
        }
    }

    /// These aggregates with one more planned job, ending at `end`.
    #[inline]
    fn with_job(mut self, end: Time, deadline: Option<Time>) -> Self {
        self.max_end = self.max_end.max(end);
        if deadline.is_some_and(|d| end > d) {
            self.delayed += 1;
        } else {
            self.nondelayed += 1;
        }
        self
    }
}

/// Reusable buffers, so that no operation allocates in steady state.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    /// The literal compaction's per-CPU (free time, CPU id) pairs ([`compact`] only).
    free: Vec<(Time, u32)>,
    merged: Vec<(Time, u32)>,
    /// A profile's events: (time, usage change, events at that time).
    events: Vec<(Time, i32, u32)>,
    /// A list-scheduling state being advanced past a checkpoint (a candidate's, or a replay).
    row: Vec<CpuClass>,
    /// The jobs a re-compaction moved: `(old start, old end, new start, new end, CPUs)`.
    moves: Vec<(Time, Time, Time, Time, i32)>,
    /// A candidate's planned list (the from-scratch compaction of [`compact`]).
    pub list: Vec<PlannedJob>,
}

/// Compacts `jobs` in list order on CPUs that are busy until `busy` (spec §2.1): each job takes
/// the `procs` CPUs with the smallest (free time, CPU id) and starts at the later of its
/// predecessor's start and the latest of those free times. Returns the list's aggregates.
///
/// This is the literal list scheduling, CPU by CPU (`busy` has one entry per CPU), from the
/// start of the list. The schedules run the equivalent checkpointed form on classes of CPUs
/// ([`MachineSchedule`]); this one is its oracle in the tests.
pub fn compact(
    busy: &[Time],
    jobs: &mut [PlannedJob],
    now: Time,
    scratch: &mut Scratch,
    work: &mut Work,
) -> Aggregates {
    let Scratch { free, merged, .. } = scratch;
    free.clear();
    free.extend(
        busy.iter()
            .enumerate()
            .map(|(c, &b)| (b.max(now), c as u32)),
    );
    // Kept sorted by (free time, CPU id): the r smallest pairs are the first r, and after a
    // job takes them they only need merging back.
    free.sort_unstable();
    let mut agg = Aggregates::of_running(busy.iter().copied().max().unwrap_or(now));
    let mut prev = now;
    for job in jobs.iter_mut() {
        let r = job.procs as usize;
        debug_assert!(r >= 1 && r <= free.len(), "job wider than its machine");
        let start = prev.max(free[r - 1].0);
        let end = start + job.duration;
        for f in &mut free[..r] {
            f.0 = end;
        }
        merge_taken(free, r, merged);
        job.start = start;
        job.end = end;
        prev = start;
        agg = agg.with_job(end, job.deadline);
    }
    work.compacted += jobs.len() as u64;
    agg
}

/// Restores the (free time, CPU id) order of `free` after its first `r` pairs were given one
/// new free time: sorts them by CPU and merges them with the (sorted) rest.
fn merge_taken(free: &mut Vec<(Time, u32)>, r: usize, merged: &mut Vec<(Time, u32)>) {
    let (taken, rest) = free.split_at_mut(r);
    taken.sort_unstable();
    if rest.first().is_none_or(|&first| taken[r - 1] <= first) {
        return; // already in order
    }
    merged.clear();
    let (mut i, mut j) = (0, 0);
    while i < taken.len() && j < rest.len() {
        if taken[i] <= rest[j] {
            merged.push(taken[i]);
            i += 1;
        } else {
            merged.push(rest[j]);
            j += 1;
        }
    }
    merged.extend_from_slice(&taken[i..]);
    merged.extend_from_slice(&rest[j..]);
    std::mem::swap(free, merged);
}

/// Where the earliest suitable gap is: the start time and the list position that puts the job
/// there without moving any other job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub start: Time,
    pub position: usize,
}

/// One machine's schedule.
///
/// Besides the schedule itself (the CPUs' busy-until times and the compacted list), it keeps
/// two caches, both valid for one `now` and both part of no comparison:
///
/// - **Compaction checkpoints.** List scheduling is a left-to-right pass, so a change at
///   position `p` leaves the jobs before `p` and the state the pass had reached there
///   unchanged. The schedule keeps that state (the CPUs' free times, as classes) before some
///   jobs, after the last job (`tail`), and the aggregates of every prefix, so that inserting
///   or removing at `p`, or evaluating an EDF candidate there, compacts only from `p`: from
///   the tail when `p` is the end of the list (every EDF candidate of re-computation, whose
///   jobs come in deadline order). A state is stored before job `k` when the jobs since the
///   last stored one number at least its classes / 16, so the rows cost about 16 classes per
///   job and a replay from one passes that many jobs at most; the
///   rule reads only the pass itself, so a partial recompaction stores the rows a full one
///   would.
/// - **The used-CPU step profile** of the earliest-gap search, updated in place when a job
///   is inserted or removed without moving any other (an EG placement, an append, the
///   removal of a last job), rebuilt otherwise on the next query.
///
/// The work counters count what the from-scratch algorithms count (the whole list per
/// compaction), so the work metric does not depend on these caches.
#[derive(Debug)]
pub struct MachineSchedule {
    cpus: u32,
    /// When the CPUs' running jobs end, as classes in decreasing time; CPUs idle at the last
    /// start are one class (at most `now` when idle).
    busy: Vec<CpuClass>,
    /// The latest end of a job that ran or runs here, or the time the machine was made: the
    /// aggregates' `max_end` without planned jobs (the idle CPUs' times are folded).
    busy_max: Time,
    /// Planned jobs in list order, compacted.
    planned: Vec<PlannedJob>,
    agg: Aggregates,
    /// The stored checkpoint rows in list order: `(job k, offset in rows)`, row `i` running
    /// to the next one's offset (or the end): the free times before job `k`. The first is
    /// job 0's whenever the list is not empty.
    ckpts: Vec<(usize, usize)>,
    rows: Vec<CpuClass>,
    /// `prefix[k]`: the aggregates of the running jobs and `planned[..k]` (`len + 1` entries).
    prefix: Vec<Aggregates>,
    /// The free times after the last planned job.
    tail: Vec<CpuClass>,
    /// On a machine of at most [`RANKED_CPUS`] CPUs, the tail's free times one per CPU in
    /// increasing order (empty on larger ones), so that the candidate at the end of the list
    /// (every EDF candidate of re-computation) reads its start in `O(1)` as the per-CPU
    /// layout did, instead of walking the classes.
    tail_rank: Vec<Time>,
    /// The time the checkpoints were computed at (`None`: stale).
    ckpt_at: Option<Time>,
    /// The used-CPU step profile (valid for one `now`). incr-EG-EDF asks every machine and
    /// then changes one, so a placement rebuilds or updates one profile instead of one per
    /// machine.
    profile: UsageProfile,
    /// The latest deadline key ([`deadline_key`]) of a planned job (`None`: no planned job),
    /// so that an EDF position at the end of the list (every one of re-computation, which
    /// inserts in deadline order) is found without reading the list.
    latest_deadline: Option<(bool, Time)>,
}

/// Checkpoint rows cost about this many classes per planned job ([`MachineSchedule`]).
const ROW_BUDGET: usize = 16;

/// Machines up to this many CPUs keep their tail's free times per CPU as well.
const RANKED_CPUS: u32 = 64;

/// Whether the list-scheduling pass stores its state before job `k`, having stored the last
/// one before job `last` (`None`: none yet), when the state has `classes` classes.
#[inline]
fn stores_row(k: usize, last: Option<usize>, classes: usize) -> bool {
    last.is_none_or(|last| (k - last) * ROW_BUDGET >= classes)
}

/// A deadline's place in EDF order: no deadline counts as +∞, after every deadline.
#[inline]
fn deadline_key(deadline: Option<Time>) -> (bool, Time) {
    (deadline.is_none(), deadline.unwrap_or(0))
}

/// Field by field, with a `clone_from` that reuses the target's buffers: Tabu search copies the
/// whole grid's schedule at every call (the paper's setup cost) into the same spare copy, and
/// a derived `clone_from` would allocate every buffer of every machine again.
impl Clone for MachineSchedule {
    fn clone(&self) -> Self {
        MachineSchedule {
            cpus: self.cpus,
            busy: self.busy.clone(),
            busy_max: self.busy_max,
            planned: self.planned.clone(),
            agg: self.agg,
            ckpts: self.ckpts.clone(),
            rows: self.rows.clone(),
            prefix: self.prefix.clone(),
            tail: self.tail.clone(),
            tail_rank: self.tail_rank.clone(),
            ckpt_at: self.ckpt_at,
            profile: self.profile.clone(),
            latest_deadline: self.latest_deadline,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.cpus = src.cpus;
        self.busy.clone_from(&src.busy);
        self.busy_max = src.busy_max;
        self.planned.clone_from(&src.planned);
        self.agg = src.agg;
        self.ckpts.clone_from(&src.ckpts);
        self.rows.clone_from(&src.rows);
        self.prefix.clone_from(&src.prefix);
        self.tail.clone_from(&src.tail);
        self.tail_rank.clone_from(&src.tail_rank);
        self.ckpt_at = src.ckpt_at;
        self.profile.clone_from(&src.profile);
        self.latest_deadline = src.latest_deadline;
    }
}

/// Two schedules are equal when their CPUs, lists and aggregates are; the checkpoints and the
/// cached profile are not part of the value.
impl PartialEq for MachineSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.cpus == other.cpus
            && self.busy == other.busy
            && self.busy_max == other.busy_max
            && self.planned == other.planned
            && self.agg == other.agg
    }
}

impl MachineSchedule {
    /// An idle machine of `cpus` CPUs at time `now`.
    pub fn new(cpus: u32, now: Time) -> Self {
        let busy = if cpus == 0 {
            Vec::new()
        } else {
            vec![CpuClass { until: now, cpus }]
        };
        let agg = Aggregates::of_running(now);
        let mut m = MachineSchedule {
            cpus,
            tail: busy.clone(),
            tail_rank: Vec::new(),
            busy,
            busy_max: now,
            planned: Vec::new(),
            agg,
            ckpts: Vec::new(),
            rows: Vec::new(),
            prefix: vec![agg],
            ckpt_at: Some(now),
            profile: UsageProfile::default(),
            latest_deadline: None,
        };
        m.refresh_tail_rank();
        m
    }

    /// Recomputes [`MachineSchedule::tail_rank`] after the tail changed.
    fn refresh_tail_rank(&mut self) {
        self.tail_rank.clear();
        if self.cpus <= RANKED_CPUS {
            for c in self.tail.iter().rev() {
                self.tail_rank
                    .extend(std::iter::repeat_n(c.until, c.cpus as usize));
            }
        }
    }

    /// Recomputes [`MachineSchedule::latest_deadline`] after jobs left the list.
    fn refresh_latest_deadline(&mut self) {
        self.latest_deadline = self.planned.iter().map(|j| deadline_key(j.deadline)).max();
    }

    /// Number of CPUs.
    pub fn cpus(&self) -> u32 {
        self.cpus
    }

    /// The planned jobs, in list order, with their compacted starts.
    pub fn planned(&self) -> &[PlannedJob] {
        &self.planned
    }

    /// When the CPUs' running jobs end: classes of CPUs with one busy-until time, in
    /// decreasing time, whose counts sum to [`MachineSchedule::cpus`]. CPUs idle since before
    /// the last start of a job are one class with a time at most that start.
    pub fn busy(&self) -> &[CpuClass] {
        &self.busy
    }

    /// The latest end of a job that ran or runs on the machine (its creation time if none).
    pub fn busy_max(&self) -> Time {
        self.busy_max
    }

    /// The aggregates of the current (compacted) list.
    pub fn aggregates(&self) -> Aggregates {
        self.agg
    }

    /// Re-compacts the list at `now` (after any change).
    pub fn compact(&mut self, now: Time, _scratch: &mut Scratch, work: &mut Work) {
        self.rebuild(now);
        work.compacted += self.planned.len() as u64;
    }

    /// Compacts the whole list at `now` and stores every checkpoint. Returns whether a job's
    /// start changed (then the profile is dropped).
    fn rebuild(&mut self, now: Time) -> bool {
        fold_at(&self.busy, now, &mut self.tail);
        self.rows.clear();
        self.ckpts.clear();
        self.prefix.clear();
        let mut agg = Aggregates::of_running(self.busy_max);
        self.prefix.push(agg);
        let mut prev = now;
        let mut moved = false;
        for (k, job) in self.planned.iter_mut().enumerate() {
            if stores_row(k, self.ckpts.last().map(|c| c.0), self.tail.len()) {
                self.ckpts.push((k, self.rows.len()));
                self.rows.extend_from_slice(&self.tail);
            }
            let (start, end) = place_on(&mut self.tail, job.procs, job.duration, prev);
            moved |= start != job.start;
            job.start = start;
            job.end = end;
            prev = start;
            agg = agg.with_job(end, job.deadline);
            self.prefix.push(agg);
        }
        self.agg = agg;
        self.refresh_tail_rank();
        self.ckpt_at = Some(now);
        if moved {
            self.profile.invalidate();
        }
        moved
    }

    /// Makes the checkpoints valid at `now`.
    #[inline]
    fn ensure_checkpoints(&mut self, now: Time) {
        if self.ckpt_at != Some(now) {
            // Jobs due before `now` have started, so a compaction at a later time gives every
            // planned job its start again; the rebuild checks that.
            let moved = self.rebuild(now);
            debug_assert!(!moved, "a compacted list does not move when time passes");
        }
    }

    /// The list-scheduling state before job `p` of the current list (`p ≤ len`) into `out`,
    /// from the nearest checkpoint at or before it.
    fn state_before(&self, p: usize, out: &mut Vec<CpuClass>) {
        out.clear();
        if p == self.planned.len() {
            out.extend_from_slice(&self.tail);
            return;
        }
        let i = self.ckpts.partition_point(|c| c.0 <= p) - 1;
        out.extend_from_slice(self.row(i));
        // Replay the jobs between the checkpoint and `p` with their known ends.
        for job in &self.planned[self.ckpts[i].0..p] {
            take(out, job.procs, job.end);
        }
    }

    /// Checkpoint row `i`.
    fn row(&self, i: usize) -> &[CpuClass] {
        let from = self.ckpts[i].1;
        let to = self.ckpts.get(i + 1).map_or(self.rows.len(), |c| c.1);
        &self.rows[from..to]
    }

    /// Re-compacts from position `p` after the list changed there (an insertion or a
    /// removal), from `state`, the pass's state before `p` (unchanged by the change). Lists in
    /// `moves` the jobs from `skip_from` on that got another start. Returns the old tail's
    /// buffer.
    fn recompact_from(
        &mut self,
        p: usize,
        skip_from: usize,
        mut state: Vec<CpuClass>,
        now: Time,
        moves: &mut Vec<(Time, Time, Time, Time, i32)>,
    ) -> Vec<CpuClass> {
        moves.clear();
        // Rows of jobs before `p` stay; the rest are rewritten.
        let kept = self.ckpts.partition_point(|c| c.0 < p);
        if let Some(&(_, offset)) = self.ckpts.get(kept) {
            self.rows.truncate(offset);
        }
        self.ckpts.truncate(kept);
        self.prefix.truncate(p + 1);
        let mut agg = self.prefix[p];
        let mut prev = if p == 0 {
            now
        } else {
            self.planned[p - 1].start
        };
        for (k, job) in self.planned.iter_mut().enumerate().skip(p) {
            if stores_row(k, self.ckpts.last().map(|c| c.0), state.len()) {
                self.ckpts.push((k, self.rows.len()));
                self.rows.extend_from_slice(&state);
            }
            let (start, end) = place_on(&mut state, job.procs, job.duration, prev);
            if k >= skip_from && start != job.start {
                moves.push((job.start, job.end, start, end, job.procs as i32));
            }
            job.start = start;
            job.end = end;
            prev = start;
            agg = agg.with_job(end, job.deadline);
            self.prefix.push(agg);
        }
        self.agg = agg;
        // The final state is the new tail; the old tail's buffer goes back to the caller.
        std::mem::swap(&mut self.tail, &mut state);
        self.refresh_tail_rank();
        state
    }

    /// Updates the profile for a change at `now` that added (`Some`) or removed a job's
    /// rectangle and moved the jobs in `moves`: in place while few jobs moved, else it is
    /// dropped (and rebuilt by the next query).
    fn update_profile(
        &mut self,
        now: Time,
        added: Option<&PlannedJob>,
        removed: Option<&PlannedJob>,
        moves: &[(Time, Time, Time, Time, i32)],
    ) {
        /// Beyond this many moved jobs a rebuild (one sort) is cheaper.
        const MAX_MOVES: usize = 8;
        if moves.len() > MAX_MOVES || !self.profile.advance(now) {
            self.profile.invalidate();
            return;
        }
        if let Some(j) = removed {
            self.profile.remove_job(now, j.start, j.end, j.procs as i32);
        }
        for &(old_start, old_end, _, _, procs) in moves {
            self.profile.remove_job(now, old_start, old_end, procs);
        }
        for &(_, _, start, end, procs) in moves {
            self.profile.add_job(now, start, end, procs);
        }
        if let Some(j) = added {
            self.profile.add_job(now, j.start, j.end, j.procs as i32);
        }
    }

    /// The earliest suitable gap for a job of `procs` CPUs running `duration` (spec §2.1): the
    /// first time `t ≥ now` at which at least `procs` CPUs are free over `[t, t + duration)`
    /// in the current schedule, and the position before the first planned job starting later.
    /// Builds the machine's used-CPU profile at `now` unless it is valid.
    pub fn earliest_gap(
        &mut self,
        procs: u32,
        duration: Time,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> Gap {
        let start = self.earliest_start(procs, duration, now, scratch, work);
        Gap {
            start,
            position: self.gap_position(start),
        }
    }

    /// [`MachineSchedule::earliest_gap`]'s start alone: the position is only needed for the
    /// candidate that is kept, and finding it is a binary search over the list.
    pub fn earliest_start(
        &mut self,
        procs: u32,
        duration: Time,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> Time {
        // A profile of this schedule at an earlier time is moved to `now`; any other is rebuilt.
        if !self.profile.advance(now) {
            self.profile
                .rebuild(&self.busy, &self.planned, now, &mut scratch.events);
        }
        self.profile
            .first_fit(self.cpus as usize, procs, duration, now, work)
    }

    /// The list position of a gap starting at `start`: before the first planned job starting
    /// later.
    pub fn gap_position(&self, start: Time) -> usize {
        self.planned.partition_point(|j| j.start <= start)
    }

    /// Where EDF insertion puts a job with `deadline` (spec §2.2): before the first planned job
    /// with a later deadline (no deadline counts as +∞), else at the end.
    pub fn edf_position(&self, deadline: Option<Time>) -> usize {
        // `later` below is exactly "a greater deadline key".
        if self
            .latest_deadline
            .is_none_or(|latest| latest <= deadline_key(deadline))
        {
            return self.planned.len();
        }
        let later = |d: Option<Time>| match (d, deadline) {
            (None, _) => deadline.is_some(),
            (Some(_), None) => false,
            (Some(a), Some(b)) => a > b,
        };
        self.planned
            .iter()
            .position(|j| later(j.deadline))
            .unwrap_or(self.planned.len())
    }

    /// Inserts `job` at `position` and re-compacts (from `position`: the jobs before it do
    /// not change).
    pub fn insert(
        &mut self,
        position: usize,
        job: PlannedJob,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) {
        self.ensure_checkpoints(now);
        let mut state = std::mem::take(&mut scratch.row);
        self.state_before(position, &mut state);
        self.planned.insert(position, job);
        self.latest_deadline = self.latest_deadline.max(Some(deadline_key(job.deadline)));
        let mut moves = std::mem::take(&mut scratch.moves);
        scratch.row = self.recompact_from(position, position + 1, state, now, &mut moves);
        work.compacted += self.planned.len() as u64;
        let job = self.planned[position];
        self.update_profile(now, Some(&job), None, &moves);
        scratch.moves = moves;
    }

    /// Removes the planned job at `position` and re-compacts (later jobs may start earlier).
    pub fn remove(
        &mut self,
        position: usize,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> PlannedJob {
        self.ensure_checkpoints(now);
        let mut state = std::mem::take(&mut scratch.row);
        self.state_before(position, &mut state);
        let job = self.planned.remove(position);
        self.refresh_latest_deadline();
        let mut moves = std::mem::take(&mut scratch.moves);
        scratch.row = self.recompact_from(position, position, state, now, &mut moves);
        work.compacted += self.planned.len() as u64;
        self.update_profile(now, None, Some(&job), &moves);
        scratch.moves = moves;
        job
    }

    /// Makes `into` this schedule without the planned job at `position`, re-compacted (Tabu
    /// search's source machine without the job MoveJob takes out), as
    /// `into.clone_from(self); into.remove(position, ..)` would, copying only the checkpoints
    /// the removal keeps.
    pub fn copy_without(
        &self,
        position: usize,
        into: &mut MachineSchedule,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> PlannedJob {
        if self.ckpt_at != Some(now) {
            into.clone_from(self);
            return into.remove(position, now, scratch, work);
        }
        into.cpus = self.cpus;
        into.busy.clone_from(&self.busy);
        into.busy_max = self.busy_max;
        into.planned.clone_from(&self.planned);
        into.agg = self.agg;
        into.latest_deadline = self.latest_deadline;
        // The rows up to the one `position` starts from, and the prefix aggregates up to it.
        let last = self.ckpts.partition_point(|c| c.0 <= position);
        into.ckpts.clear();
        into.ckpts.extend_from_slice(&self.ckpts[..last]);
        let rows_end = self.ckpts.get(last).map_or(self.rows.len(), |c| c.1);
        into.rows.clear();
        into.rows.extend_from_slice(&self.rows[..rows_end]);
        into.prefix.clear();
        into.prefix.extend_from_slice(&self.prefix[..=position]);
        // The tail is recomputed by the removal.
        into.ckpt_at = self.ckpt_at;
        into.profile.copy_from(&self.profile);
        into.remove(position, now, scratch, work)
    }

    /// Takes every planned job out (re-computation), leaving the running ones.
    pub fn drain_planned(&mut self, now: Time, out: &mut Vec<PlannedJob>) {
        out.append(&mut self.planned);
        self.latest_deadline = None;
        self.agg = Aggregates::of_running(self.busy_max);
        // The checkpoints of the empty list: the CPUs' free times.
        fold_at(&self.busy, now, &mut self.tail);
        self.refresh_tail_rank();
        self.ckpts.clear();
        self.rows.clear();
        self.prefix.clear();
        self.prefix.push(self.agg);
        self.ckpt_at = Some(now);
        self.profile.invalidate();
    }

    /// The aggregates the list would have with `job` inserted at `position`, and the job's
    /// end in it — for candidates that shift other jobs (EDF). Compacts from `position` on,
    /// from the checkpoint before it; at the end of the list that is the job alone.
    pub fn aggregates_with(
        &mut self,
        position: usize,
        job: PlannedJob,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> (Aggregates, Time) {
        self.ensure_checkpoints(now);
        let len = self.planned.len();
        // What compacting the whole candidate list counts.
        work.compacted += len as u64 + 1;
        let r = job.procs;
        let prev = if position == 0 {
            now
        } else {
            self.planned[position - 1].start
        };
        if position == len {
            debug_assert!(r >= 1 && r <= self.cpus, "job wider than its machine");
            let free = match self.tail_rank.get(r as usize - 1) {
                Some(&t) => t,
                None => kth(&self.tail, r),
            };
            let end = prev.max(free) + job.duration;
            return (self.agg.with_job(end, job.deadline), end);
        }
        let mut state = std::mem::take(&mut scratch.row);
        self.state_before(position, &mut state);
        let (start, job_end) = place_on(&mut state, r, job.duration, prev);
        let mut agg = self.prefix[position].with_job(job_end, job.deadline);
        let mut prev = start;
        for j in &self.planned[position..] {
            let (start, end) = place_on(&mut state, j.procs, j.duration, prev);
            prev = start;
            agg = agg.with_job(end, j.deadline);
        }
        scratch.row = state;
        (agg, job_end)
    }

    /// The aggregates after an EG placement at `gap`: no other job moves (spec §2.1), so they
    /// are the current ones plus the job's own, with no compaction.
    pub fn aggregates_with_gap(&self, gap: Gap, job: &PlannedJob) -> Aggregates {
        self.agg.with_job(gap.start + job.duration, job.deadline)
    }

    /// Starts every planned job whose compacted start is `now` (a prefix of the list): their
    /// CPUs (as many free CPUs as the compaction chose) become busy until their ends. Pushes
    /// them to `started`.
    pub fn start_due(&mut self, now: Time, _scratch: &mut Scratch, started: &mut Vec<PlannedJob>) {
        let due = self.planned.iter().take_while(|j| j.start == now).count();
        if due == 0 {
            return;
        }
        // Starting jobs changes no CPU's usage over time, so a profile moved to `now` stays
        // the schedule's.
        let keep_profile = self.profile.advance(now);
        self.ckpt_at = None;
        // The CPUs idle now are one class at `now`: a due job takes from it.
        fold_in_place(&mut self.busy, now);
        for job in &self.planned[..due] {
            if keep_profile {
                self.profile.started(now, job.end, job.procs);
            }
            debug_assert!(
                kth(&self.busy, job.procs) <= now,
                "a due job's CPUs are free now"
            );
            take(&mut self.busy, job.procs, job.end);
            self.busy_max = self.busy_max.max(job.end);
        }
        started.extend(self.planned.drain(..due));
        self.refresh_latest_deadline();
        // The remaining jobs keep their starts: they were compacted against the same CPUs.
        self.agg.nondelayed -= started[started.len() - due..]
            .iter()
            .filter(|j| !j.delayed())
            .count() as u32;
        self.agg.delayed -= started[started.len() - due..]
            .iter()
            .filter(|j| j.delayed())
            .count() as u32;
    }

    /// Planned jobs ending after their deadline.
    pub fn delayed(&self) -> u32 {
        self.agg.delayed
    }

    /// Checks the caches against a from-scratch computation at `now` (for the tests): valid
    /// checkpoints equal the rows, prefix aggregates and tail of a full compaction whose
    /// starts are the planned ones, and a valid profile equals the one built afresh.
    pub fn check_caches(&self, now: Time) -> Result<(), String> {
        let classes_valid = self.busy.windows(2).all(|w| w[0].until > w[1].until)
            && self.busy.iter().all(|c| c.cpus > 0)
            && crate::free::total(&self.busy) == u64::from(self.cpus);
        if !classes_valid {
            return Err(format!(
                "busy classes {:?} are not {} CPUs in decreasing time",
                self.busy, self.cpus
            ));
        }
        let latest = self.planned.iter().map(|j| deadline_key(j.deadline)).max();
        if latest != self.latest_deadline {
            return Err(format!(
                "latest deadline {:?}, the list's is {latest:?}",
                self.latest_deadline
            ));
        }
        if self.ckpt_at == Some(now) {
            let mut fresh = self.clone();
            fresh.ckpt_at = None;
            fresh.profile.invalidate();
            let moved = fresh.rebuild(now);
            if moved || fresh.planned != self.planned {
                return Err("the planned starts are not the compaction's".into());
            }
            if fresh.agg != self.agg || fresh.prefix != self.prefix {
                return Err(format!(
                    "aggregates differ: {:?} / {:?} vs {:?} / {:?}",
                    self.agg, self.prefix, fresh.agg, fresh.prefix
                ));
            }
            if fresh.ckpts != self.ckpts
                || fresh.rows != self.rows
                || fresh.tail != self.tail
                || fresh.tail_rank != self.tail_rank
            {
                return Err(format!(
                    "checkpoint rows differ: {:?} {:?} / {:?} {:?} vs {:?} {:?} / {:?} {:?}",
                    self.ckpts,
                    self.rows,
                    self.tail,
                    self.tail_rank,
                    fresh.ckpts,
                    fresh.rows,
                    fresh.tail,
                    fresh.tail_rank
                ));
            }
        }
        if self.profile.valid_at(now) {
            let mut steps = Vec::new();
            build_profile(&self.busy, &self.planned, now, &mut Vec::new(), &mut steps);
            if steps != self.profile.steps() {
                return Err(format!(
                    "profile differs: {:?} vs {steps:?}",
                    self.profile.steps()
                ));
            }
        }
        Ok(())
    }
}

/// The earliest gap found afresh: the used-CPU profile of `machine` built at `now` and
/// searched, as [`MachineSchedule::earliest_gap`] does without its cache (the tests' oracle).
pub fn earliest_gap_from_scratch(
    machine: &MachineSchedule,
    procs: u32,
    duration: Time,
    now: Time,
    work: &mut Work,
) -> Gap {
    let mut steps = Vec::new();
    build_profile(
        &machine.busy,
        &machine.planned,
        now,
        &mut Vec::new(),
        &mut steps,
    );
    let start = first_fit(&steps, machine.cpus as i32, procs, duration, now, work);
    let position = machine.planned.partition_point(|j| j.start <= start);
    Gap { start, position }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(index: u32, procs: u32, duration: Time, deadline: Option<Time>) -> PlannedJob {
        PlannedJob {
            index,
            procs,
            duration,
            deadline,
            release: 0,
            id: u64::from(index),
            start: 0,
            end: 0,
        }
    }

    /// Hand-worked: 2 CPUs, CPU 1 busy until 5. A (1 CPU, 4) takes CPU 0 at 0 (the smallest
    /// free time); B (2 CPUs, 3) needs both, free at 4 and 5: it starts at 5 and ends at 8,
    /// after its deadline 7; C (1 CPU, 2) may not start before B (list order) and finds both
    /// CPUs busy until 8.
    #[test]
    fn compaction_in_list_order_with_the_cpu_tie_rule() {
        let mut s = Scratch::default();
        let mut w = Work::default();
        let busy = [0, 5];
        let mut jobs = [
            job(0, 1, 4, None),
            job(1, 2, 3, Some(7)),
            job(2, 1, 2, None),
        ];
        let agg = compact(&busy, &mut jobs, 0, &mut s, &mut w);
        let starts: Vec<(Time, Time)> = jobs.iter().map(|j| (j.start, j.end)).collect();
        assert_eq!(starts, [(0, 4), (5, 8), (8, 10)]);
        assert_eq!(agg.max_end, 10);
        assert_eq!((agg.nondelayed, agg.delayed), (2, 1));
        // Ties in free time go to the lowest CPU id: two idle CPUs, a 1-CPU job takes CPU 0,
        // so a following 1-CPU job (which may not start before it) takes CPU 1 at 0 too.
        let mut jobs = [job(0, 1, 4, None), job(1, 1, 1, None)];
        compact(&[0, 0], &mut jobs, 0, &mut s, &mut w);
        assert_eq!((jobs[1].start, jobs[1].end), (0, 1));
    }

    /// EDF insertion shifts the jobs behind it; EG fills a gap and moves nobody.
    #[test]
    fn edf_shifts_later_jobs_and_eg_fills_gaps() {
        let mut s = Scratch::default();
        let mut w = Work::default();
        let mut m = MachineSchedule::new(2, 0);
        // A: 2 CPUs [0,10) deadline 100; B: 1 CPU [10, 15) deadline 12 (delayed? no: 15 > 12 yes).
        m.insert(0, job(0, 2, 10, Some(100)), 0, &mut s, &mut w);
        m.insert(1, job(1, 1, 5, Some(12)), 0, &mut s, &mut w);
        assert_eq!(m.planned()[1].start, 10);
        // The gap [10, 15) on the other CPU takes a 1-CPU job of length 5 without moving B.
        let g = m.earliest_gap(1, 5, 0, &mut s, &mut w);
        assert_eq!(
            g,
            Gap {
                start: 10,
                position: 2
            }
        );
        // EDF: deadline 50 goes before A (deadline 100): A and B shift by 3.
        let p = m.edf_position(Some(50));
        assert_eq!(p, 0);
        m.insert(p, job(2, 2, 3, Some(50)), 0, &mut s, &mut w);
        let starts: Vec<Time> = m.planned().iter().map(|j| j.start).collect();
        assert_eq!(starts, [0, 3, 13]);
        // No deadline goes last.
        assert_eq!(m.edf_position(None), 3);
    }
}
