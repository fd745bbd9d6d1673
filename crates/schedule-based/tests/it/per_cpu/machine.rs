//! THE PER-CPU ORACLE: `src/machine.rs` as it was at revision 00a63de (before issue 35's
//! classes of CPUs), kept verbatim but for this header, its unit tests and its imports (the
//! library's `crate::` is `super::` here, `tests/it/per_cpu_oracle.rs`, whose oracle this is).
//! It holds one busy-until time per CPU and list-scheduling states of one free time per CPU;
//! do not change it to follow the library.
//!
//! One machine's schedule (spec §2.1): the CPUs' running jobs and the ordered list of planned
//! jobs, with compaction, earliest-gap (EG) search, EDF insertion and removal.
//!
//! Running jobs are kept only as each CPU's busy-until time: that is all compaction needs, and
//! a running job can neither move nor change. Planned jobs carry their compacted start and end.

use super::Time;
use super::profile::{UsageProfile, build_profile, first_fit};

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
    /// The aggregates of a machine whose running jobs end by `busy` and that has no planned
    /// job yet.
    fn of_running(busy: &[Time], now: Time) -> Self {
        // The latest end of a running job, never `now`: aggregates must not depend on when
        // they were computed.
        Aggregates {
            max_end: busy.iter().copied().max().unwrap_or(now),
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
    free: Vec<(Time, u32)>,
    merged: Vec<(Time, u32)>,
    events: Vec<(Time, i32)>,
    /// A list-scheduling state being advanced past a checkpoint (a candidate's, or a replay).
    row: Vec<Time>,
    /// The jobs a re-compaction moved: `(old start, old end, new start, new end, CPUs)`.
    moves: Vec<(Time, Time, Time, Time, i32)>,
    /// A candidate's planned list (the from-scratch compaction of [`compact`]).
    pub list: Vec<PlannedJob>,
}

/// Compacts `jobs` in list order on CPUs that are busy until `busy` (spec §2.1): each job takes
/// the `procs` CPUs with the smallest (free time, CPU id) and starts at the later of its
/// predecessor's start and the latest of those free times. Returns the list's aggregates.
///
/// This is the literal list scheduling, CPU by CPU, from the start of the list. The schedules
/// run the equivalent checkpointed form ([`MachineSchedule`]); this one is its oracle in the
/// tests.
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
    let mut agg = Aggregates::of_running(busy, now);
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

/// One step of list scheduling on the sorted free times of a machine's CPUs: a job of `r`
/// CPUs running `duration` after a predecessor that started at `prev`. Returns its start and
/// end and leaves `free` sorted.
///
/// Only the multiset of free times decides starts and ends: which CPUs of equal free time a
/// job takes (the CPU-id tie rule of [`compact`]) changes none of them, so the checkpoints
/// keep times alone. The `r` earliest CPUs all become free at `end ≥ free[r − 1]`: the rest
/// shift down to the first time not before `end`, and `end` fills the `r` slots after them,
/// in `O(R)` without a sort.
#[inline]
fn place_on(free: &mut [Time], r: usize, duration: Time, prev: Time) -> (Time, Time) {
    debug_assert!(r >= 1 && r <= free.len(), "job wider than its machine");
    let start = prev.max(free[r - 1]);
    let end = start + duration;
    take(free, r, end);
    (start, end)
}

/// The `r` earliest free times of the sorted `free` become `end` (not before any of them).
#[inline]
fn take(free: &mut [Time], r: usize, end: Time) {
    let k = free[r..].iter().take_while(|&&t| t < end).count();
    free.copy_within(r..r + k, 0);
    free[k..k + r].fill(end);
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
///   unchanged. The schedule keeps that state (the sorted free times of the CPUs) before
///   every `stride`-th job, after the last job (`tail`), and the aggregates of every prefix,
///   so that inserting or removing at `p`, or evaluating an EDF candidate there, compacts
///   only from `p`: from the tail in `O(1)` when `p` is the end of the list (every EDF
///   candidate of re-computation, whose jobs come in deadline order). `stride` is 1 up to 16
///   CPUs and grows with the machine, so that the checkpoints cost about 16 times per job.
/// - **The used-CPU step profile** of the earliest-gap search, updated in place when a job
///   is inserted or removed without moving any other (an EG placement, an append, the
///   removal of a last job), rebuilt otherwise on the next query.
///
/// The work counters count what the from-scratch algorithms count (the whole list per
/// compaction), so the work metric does not depend on these caches.
#[derive(Debug, Clone)]
pub struct MachineSchedule {
    /// Per CPU: when its running job ends (at most now when idle).
    busy: Vec<Time>,
    /// Planned jobs in list order, compacted.
    planned: Vec<PlannedJob>,
    agg: Aggregates,
    /// Jobs between two stored checkpoint rows.
    stride: usize,
    /// Row `q` (`R` times from `q · R`): the sorted free times before job `q · stride`, for
    /// every such job of the list.
    rows: Vec<Time>,
    /// `prefix[k]`: the aggregates of the running jobs and `planned[..k]` (`len + 1` entries).
    prefix: Vec<Aggregates>,
    /// The sorted free times after the last planned job.
    tail: Vec<Time>,
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

/// A deadline's place in EDF order: no deadline counts as +∞, after every deadline.
#[inline]
fn deadline_key(deadline: Option<Time>) -> (bool, Time) {
    (deadline.is_none(), deadline.unwrap_or(0))
}

/// Two schedules are equal when their CPUs, lists and aggregates are; the checkpoints and the
/// cached profile are not part of the value.
impl PartialEq for MachineSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.busy == other.busy && self.planned == other.planned && self.agg == other.agg
    }
}

impl MachineSchedule {
    /// An idle machine of `cpus` CPUs at time `now`.
    pub fn new(cpus: u32, now: Time) -> Self {
        let busy = vec![now; cpus as usize];
        let agg = Aggregates::of_running(&busy, now);
        MachineSchedule {
            tail: busy.clone(),
            busy,
            planned: Vec::new(),
            agg,
            stride: (cpus as usize / 16).max(1),
            rows: Vec::new(),
            prefix: vec![agg],
            ckpt_at: Some(now),
            profile: UsageProfile::default(),
            latest_deadline: None,
        }
    }

    /// Recomputes [`MachineSchedule::latest_deadline`] after jobs left the list.
    fn refresh_latest_deadline(&mut self) {
        self.latest_deadline = self.planned.iter().map(|j| deadline_key(j.deadline)).max();
    }

    /// Number of CPUs.
    pub fn cpus(&self) -> u32 {
        self.busy.len() as u32
    }

    /// The planned jobs, in list order, with their compacted starts.
    pub fn planned(&self) -> &[PlannedJob] {
        &self.planned
    }

    /// Per CPU, when its running job ends.
    pub fn busy(&self) -> &[Time] {
        &self.busy
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
        let r = self.busy.len();
        self.tail.clear();
        self.tail.extend(self.busy.iter().map(|&b| b.max(now)));
        self.tail.sort_unstable();
        self.rows.clear();
        self.prefix.clear();
        let mut agg = Aggregates::of_running(&self.busy, now);
        self.prefix.push(agg);
        let mut prev = now;
        let mut moved = false;
        for (k, job) in self.planned.iter_mut().enumerate() {
            if k % self.stride == 0 {
                self.rows.extend_from_slice(&self.tail[..r]);
            }
            let (start, end) = place_on(&mut self.tail, job.procs as usize, job.duration, prev);
            moved |= start != job.start;
            job.start = start;
            job.end = end;
            prev = start;
            agg = agg.with_job(end, job.deadline);
            self.prefix.push(agg);
        }
        self.agg = agg;
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
    fn state_before(&self, p: usize, out: &mut Vec<Time>) {
        out.clear();
        if p == self.planned.len() {
            out.extend_from_slice(&self.tail);
            return;
        }
        let r = self.busy.len();
        let q = p / self.stride;
        out.extend_from_slice(&self.rows[q * r..(q + 1) * r]);
        // Replay the jobs between the checkpoint and `p` with their known ends.
        for job in &self.planned[q * self.stride..p] {
            take(out, job.procs as usize, job.end);
        }
    }

    /// Re-compacts from position `p` after the list changed there (an insertion or a
    /// removal), from `state`, the pass's state before `p` (unchanged by the change). Lists in
    /// `moves` the jobs from `skip_from` on that got another start. Returns the old tail's
    /// buffer.
    fn recompact_from(
        &mut self,
        p: usize,
        skip_from: usize,
        mut state: Vec<Time>,
        now: Time,
        moves: &mut Vec<(Time, Time, Time, Time, i32)>,
    ) -> Vec<Time> {
        moves.clear();
        let r = self.busy.len();
        // Rows of jobs before `p` stay; the rest are rewritten.
        self.rows.truncate(p.div_ceil(self.stride) * r);
        self.prefix.truncate(p + 1);
        let mut agg = self.prefix[p];
        let mut prev = if p == 0 {
            now
        } else {
            self.planned[p - 1].start
        };
        for (k, job) in self.planned.iter_mut().enumerate().skip(p) {
            if k % self.stride == 0 {
                self.rows.extend_from_slice(&state);
            }
            let (start, end) = place_on(&mut state, job.procs as usize, job.duration, prev);
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
            .first_fit(self.busy.len(), procs, duration, now, work)
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
        let r = self.busy.len();
        into.busy.clone_from(&self.busy);
        into.planned.clone_from(&self.planned);
        into.agg = self.agg;
        into.stride = self.stride;
        into.latest_deadline = self.latest_deadline;
        // The row `position` starts from, and the prefix aggregates up to it.
        let q = position / self.stride;
        into.rows.clear();
        into.rows.extend_from_slice(&self.rows[..(q + 1) * r]);
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
        self.agg = Aggregates::of_running(&self.busy, now);
        // The checkpoints of the empty list: the CPUs' free times.
        self.tail.clear();
        self.tail.extend(self.busy.iter().map(|&b| b.max(now)));
        self.tail.sort_unstable();
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
        let r = job.procs as usize;
        let prev = if position == 0 {
            now
        } else {
            self.planned[position - 1].start
        };
        if position == len {
            debug_assert!(r >= 1 && r <= self.tail.len(), "job wider than its machine");
            let end = prev.max(self.tail[r - 1]) + job.duration;
            return (self.agg.with_job(end, job.deadline), end);
        }
        let mut state = std::mem::take(&mut scratch.row);
        self.state_before(position, &mut state);
        let (start, job_end) = place_on(&mut state, r, job.duration, prev);
        let mut agg = self.prefix[position].with_job(job_end, job.deadline);
        let mut prev = start;
        for j in &self.planned[position..] {
            let (start, end) = place_on(&mut state, j.procs as usize, j.duration, prev);
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
    /// CPUs (the same the compaction chose) become busy until their ends. Pushes them to
    /// `started`.
    pub fn start_due(&mut self, now: Time, scratch: &mut Scratch, started: &mut Vec<PlannedJob>) {
        let due = self.planned.iter().take_while(|j| j.start == now).count();
        if due == 0 {
            return;
        }
        // Starting jobs changes no CPU's usage over time, so a profile moved to `now` stays
        // the schedule's.
        let keep_profile = self.profile.advance(now);
        self.ckpt_at = None;
        let free = &mut scratch.free;
        free.clear();
        free.extend(
            self.busy
                .iter()
                .enumerate()
                .map(|(c, &b)| (b.max(now), c as u32)),
        );
        for job in &self.planned[..due] {
            let r = job.procs as usize;
            if keep_profile {
                self.profile.started(now, job.end, job.procs);
            }
            free.select_nth_unstable(r - 1);
            debug_assert!(free[r - 1].0 <= now, "a due job's CPUs are free now");
            for f in &mut free[..r] {
                f.0 = job.end;
                self.busy[f.1 as usize] = job.end;
            }
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
            if fresh.rows != self.rows || fresh.tail != self.tail {
                return Err(format!(
                    "checkpoint rows differ: {:?} / {:?} vs {:?} / {:?}",
                    self.rows, self.tail, fresh.rows, fresh.tail
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
    let start = first_fit(
        &steps,
        machine.busy.len() as i32,
        procs,
        duration,
        now,
        work,
    );
    let position = machine.planned.partition_point(|j| j.start <= start);
    Gap { start, position }
}
