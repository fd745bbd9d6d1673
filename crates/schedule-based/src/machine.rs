//! One machine's schedule (spec §2.1): the CPUs' running jobs and the ordered list of planned
//! jobs, with compaction, earliest-gap (EG) search, EDF insertion and removal.
//!
//! Running jobs are kept only as each CPU's busy-until time: that is all compaction needs, and
//! a running job can neither move nor change. Planned jobs carry their compacted start and end.

use crate::Time;

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

/// Reusable buffers, so that no operation allocates in steady state.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    free: Vec<(Time, u32)>,
    merged: Vec<(Time, u32)>,
    events: Vec<(Time, i32)>,
    /// A candidate's planned list.
    pub list: Vec<PlannedJob>,
}

/// Compacts `jobs` in list order on CPUs that are busy until `busy` (spec §2.1): each job takes
/// the `procs` CPUs with the smallest (free time, CPU id) and starts at the later of its
/// predecessor's start and the latest of those free times. Returns the list's aggregates.
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
    // job takes them they only need merging back (O(R) per job, where selecting them afresh
    // was the hot spot of re-comp-EG-EDF).
    free.sort_unstable();
    // The latest end of a running job, never `now`: aggregates must not depend on when they
    // were computed.
    let mut agg = Aggregates {
        max_end: busy.iter().copied().max().unwrap_or(now),
        ..Aggregates::default()
    };
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
        agg.max_end = agg.max_end.max(end);
        if job.delayed() {
            agg.delayed += 1;
        } else {
            agg.nondelayed += 1;
        }
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
#[derive(Debug, Clone)]
pub struct MachineSchedule {
    /// Per CPU: when its running job ends (at most now when idle).
    busy: Vec<Time>,
    /// Planned jobs in list order, compacted.
    planned: Vec<PlannedJob>,
    agg: Aggregates,
    /// The used-CPU step profile of the last earliest-gap query, `(time, CPUs used from then
    /// on)` from `profile_at` on; `None` once the schedule changed. incr-EG-EDF asks every
    /// machine and then changes one, so re-computation's thousands of placements per arrival
    /// rebuild one profile each instead of one per machine. Not part of the schedule's value.
    profile: Vec<(Time, i32)>,
    profile_at: Option<Time>,
}

/// Two schedules are equal when their CPUs, lists and aggregates are; a cached profile is not
/// part of the value.
impl PartialEq for MachineSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.busy == other.busy && self.planned == other.planned && self.agg == other.agg
    }
}

impl MachineSchedule {
    /// An idle machine of `cpus` CPUs at time `now`.
    pub fn new(cpus: u32, now: Time) -> Self {
        MachineSchedule {
            busy: vec![now; cpus as usize],
            planned: Vec::new(),
            agg: Aggregates {
                max_end: now,
                ..Aggregates::default()
            },
            profile: Vec::new(),
            profile_at: None,
        }
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
    pub fn compact(&mut self, now: Time, scratch: &mut Scratch, work: &mut Work) {
        self.profile_at = None;
        self.agg = compact(&self.busy, &mut self.planned, now, scratch, work);
    }

    /// The earliest suitable gap for a job of `procs` CPUs running `duration` (spec §2.1): the
    /// first time `t ≥ now` at which at least `procs` CPUs are free over `[t, t + duration)`
    /// in the current schedule, and the position before the first planned job starting later.
    /// Builds the machine's used-CPU profile at `now` unless the last query left it valid.
    pub fn earliest_gap(
        &mut self,
        procs: u32,
        duration: Time,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> Gap {
        if self.profile_at != Some(now) {
            build_profile(
                &self.busy,
                &self.planned,
                now,
                &mut scratch.events,
                &mut self.profile,
            );
            self.profile_at = Some(now);
        }
        let start = first_fit(
            &self.profile,
            self.busy.len() as i32,
            procs,
            duration,
            now,
            work,
        );
        let position = self.planned.partition_point(|j| j.start <= start);
        Gap { start, position }
    }

    /// Where EDF insertion puts a job with `deadline` (spec §2.2): before the first planned job
    /// with a later deadline (no deadline counts as +∞), else at the end.
    pub fn edf_position(&self, deadline: Option<Time>) -> usize {
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

    /// Inserts `job` at `position` and re-compacts.
    pub fn insert(
        &mut self,
        position: usize,
        job: PlannedJob,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) {
        self.planned.insert(position, job);
        self.compact(now, scratch, work);
    }

    /// Removes the planned job at `position` and re-compacts (later jobs may start earlier).
    pub fn remove(
        &mut self,
        position: usize,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> PlannedJob {
        let job = self.planned.remove(position);
        self.compact(now, scratch, work);
        job
    }

    /// Takes every planned job out (re-computation), leaving the running ones.
    pub fn drain_planned(&mut self, now: Time, out: &mut Vec<PlannedJob>) {
        self.profile_at = None;
        out.append(&mut self.planned);
        self.agg = Aggregates {
            max_end: self.busy.iter().copied().max().unwrap_or(now),
            ..Aggregates::default()
        };
    }

    /// The aggregates the list would have with `job` inserted at `position`, in `scratch.list`
    /// (compacted) — for candidates that shift other jobs (EDF, removal).
    pub fn aggregates_with(
        &self,
        position: usize,
        job: PlannedJob,
        now: Time,
        scratch: &mut Scratch,
        work: &mut Work,
    ) -> Aggregates {
        let mut list = std::mem::take(&mut scratch.list);
        list.clear();
        list.extend_from_slice(&self.planned[..position]);
        list.push(job);
        list.extend_from_slice(&self.planned[position..]);
        let agg = compact(&self.busy, &mut list, now, scratch, work);
        scratch.list = list;
        agg
    }

    /// The aggregates after an EG placement at `gap`: no other job moves (spec §2.1), so they
    /// are the current ones plus the job's own, with no compaction.
    pub fn aggregates_with_gap(&self, gap: Gap, job: &PlannedJob) -> Aggregates {
        let end = gap.start + job.duration;
        let mut agg = self.agg;
        agg.max_end = agg.max_end.max(end);
        if job.deadline.is_some_and(|d| end > d) {
            agg.delayed += 1;
        } else {
            agg.nondelayed += 1;
        }
        agg
    }

    /// Starts every planned job whose compacted start is `now` (a prefix of the list): their
    /// CPUs (the same the compaction chose) become busy until their ends. Pushes them to
    /// `started`.
    pub fn start_due(&mut self, now: Time, scratch: &mut Scratch, started: &mut Vec<PlannedJob>) {
        let due = self.planned.iter().take_while(|j| j.start == now).count();
        if due == 0 {
            return;
        }
        self.profile_at = None;
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
            free.select_nth_unstable(r - 1);
            debug_assert!(free[r - 1].0 <= now, "a due job's CPUs are free now");
            for f in &mut free[..r] {
                f.0 = job.end;
                self.busy[f.1 as usize] = job.end;
            }
        }
        started.extend(self.planned.drain(..due));
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
}

/// The used-CPU step profile of CPUs busy until `busy` and the compacted `planned` jobs, from
/// `now` on: `(time, CPUs used from this time on)`, the first step at `now`.
fn build_profile(
    busy: &[Time],
    planned: &[PlannedJob],
    now: Time,
    events: &mut Vec<(Time, i32)>,
    steps: &mut Vec<(Time, i32)>,
) {
    events.clear();
    let mut used_now = 0;
    for &b in busy {
        if b > now {
            used_now += 1;
            events.push((b, -1));
        }
    }
    for j in planned {
        events.push((j.start, j.procs as i32));
        events.push((j.end, -(j.procs as i32)));
    }
    events.sort_unstable();
    steps.clear();
    steps.push((now, used_now));
    for &(t, d) in events.iter() {
        let last = steps.last_mut().expect("non-empty");
        if t <= last.0 {
            last.1 += d;
        } else {
            let used = last.1 + d;
            steps.push((t, used));
        }
    }
}

/// The earliest `t ≥ now` with at least `procs` of `cap` CPUs free over `[t, t + duration)` on
/// the step profile `steps`. A start can only be `now` or a time where usage falls, and a
/// window that meets a step with too few free CPUs rules out every start before that step's
/// end.
fn first_fit(
    steps: &[(Time, i32)],
    cap: i32,
    procs: u32,
    duration: Time,
    now: Time,
    work: &mut Work,
) -> Time {
    let need = procs as i32;
    let mut candidate = 0;
    while candidate < steps.len() {
        let t = steps[candidate].0;
        let mut k = candidate;
        let mut ok = true;
        while k < steps.len() && steps[k].0 < t + duration {
            work.scanned += 1;
            if cap - steps[k].1 < need {
                ok = false;
                break;
            }
            k += 1;
        }
        if ok {
            return t;
        }
        // Every start before the end of step k overlaps it.
        candidate = k + 1;
    }
    // After the last step every CPU is free.
    steps.last().map_or(now, |s| s.0)
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
