//! THE PER-CPU ORACLE's profile: `src/profile.rs` as it was at revision 00a63de, verbatim but
//! for this header and its imports (`super::` for the library's `crate::`; see `machine.rs`
//! beside it).
//!
//! A machine's used-CPU step profile and its earliest-gap search (spec §2.1).
//!
//! [`first_fit`] is the search as defined: from the earliest candidate start, scan the steps
//! of the window until one has too few free CPUs, then restart after it; it counts every step
//! it examines (the `scanned` work). [`UsageProfile`] keeps the profile of one machine valid
//! between changes (updated in place when a job enters or leaves without moving any other) and
//! answers the same search from an index, with the same count.
//!
//! **Why the index gives the same answer and count.** For a job needing `need` of `cap` CPUs a
//! step is *bad* when more than `cap − need` CPUs are in use. With a positive duration the
//! scan examines steps contiguously from the first one (a failing window restarts right after
//! the bad step that ended it), its candidates are the first step and the steps after bad
//! ones, and a candidate succeeds exactly when the *run* of good steps it starts lasts at least
//! the duration (until the next bad step, or for ever after the last step, where every CPU is
//! free). So the answer is the start of the first run lasting at least `d`, and the count is
//! the number of steps before `answer + d`. The index keeps, per need, each run's start and
//! the longest run so far, so both are binary searches.

use super::Time;
use super::machine::{PlannedJob, Work};

/// One step of a machine's used-CPU profile: from `t` on, `used` CPUs are busy. `events`
/// counts the running-job ends and planned starts and ends at `t` (not kept for the first
/// step, at `now`, which is never removed), so that a job taken out of the profile removes
/// the steps only it made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub t: Time,
    pub used: i32,
    pub events: u32,
}

/// Machines up to this many CPUs index their profile per CPU need.
const MAX_INDEXED_CPUS: usize = 64;
/// Profiles up to this many steps are scanned: the scan is as fast as the index there.
const MIN_INDEXED_STEPS: usize = 12;
/// A need level whose runs were never built.
const UNBUILT: u64 = u64::MAX;

/// One machine's used-CPU step profile from `at` on, and the index of its earliest-gap
/// answers. Not part of any schedule's value: a cache.
#[derive(Debug, Clone, Default)]
pub(crate) struct UsageProfile {
    steps: Vec<Step>,
    /// The time the profile is valid for (`None`: stale).
    at: Option<Time>,
    /// Bumped at every change of `steps`: the index is valid for one generation.
    generation: u64,
    /// Per CPU need: the generation its runs were built for, and their range in `runs`.
    levels: Vec<(u64, u32, u32)>,
    /// The generation the contents of `runs` belong to.
    runs_generation: u64,
    /// Per built level, in time order: `(start of a run of good steps, the longest run from
    /// the level's first run to this one)`; a run after the last bad step lasts `Time::MAX`.
    runs: Vec<(Time, Time)>,
    /// The last answers, by `(procs, duration)` hashed: `(generation, procs, duration, start,
    /// steps scanned)`. Tabu search with a short tabu list keeps trying the same few jobs of
    /// one machine on every other machine, whose profiles do not change until a move is
    /// accepted: the same question gets the same answer and the same count.
    answers: [(u64, u32, Time, Time, u64); ANSWERS],
}

/// Answers kept per machine (a power of two).
const ANSWERS: usize = 16;

impl UsageProfile {
    /// Whether the profile is the schedule's at `now`.
    #[inline]
    pub fn valid_at(&self, now: Time) -> bool {
        self.at == Some(now)
    }

    /// Moves a profile that describes the schedule at an earlier time to `now` (same busy CPUs
    /// and planned jobs), as a rebuild at `now` would make it: the steps up to `now` fold into
    /// the first. Returns `false` (and does nothing) if the profile is stale or newer.
    pub fn advance(&mut self, now: Time) -> bool {
        match self.at {
            Some(at) if at == now => true,
            Some(at) if at < now => {
                let k = self.steps.partition_point(|s| s.t <= now) - 1;
                let used = self.steps[k].used;
                self.steps.drain(..k);
                self.steps[0] = Step {
                    t: now,
                    used,
                    events: 0,
                };
                self.at = Some(now);
                self.generation += 1;
                true
            }
            _ => false,
        }
    }

    /// A planned job of `procs` CPUs ending at `end` started now (the profile is valid now):
    /// its CPUs' running ends replace its planned end, `procs` events instead of one; the
    /// usage does not change.
    pub fn started(&mut self, now: Time, end: Time, procs: u32) {
        if end > now {
            let i = self.steps.partition_point(|s| s.t < end);
            debug_assert!(self.steps[i].t == end, "the job's end is a step");
            self.steps[i].events += procs - 1;
        }
    }

    /// Marks the profile stale (rebuilt by the next query).
    #[inline]
    pub fn invalidate(&mut self) {
        self.at = None;
    }

    /// The steps (for the tests' comparison with a rebuilt profile).
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Makes it `src`'s (Tabu search's copy of a machine), if `src` is valid.
    pub fn copy_from(&mut self, src: &UsageProfile) {
        self.at = src.at;
        if src.at.is_some() {
            self.steps.clone_from(&src.steps);
            self.generation += 1;
        }
    }

    /// Rebuilds the profile of CPUs busy until `busy` and the compacted `planned` jobs at
    /// `now`.
    pub fn rebuild(
        &mut self,
        busy: &[Time],
        planned: &[PlannedJob],
        now: Time,
        events: &mut Vec<(Time, i32)>,
    ) {
        build_profile(busy, planned, now, events, &mut self.steps);
        self.at = Some(now);
        self.generation += 1;
    }

    /// Adds a job of `procs` CPUs over `[start, end)` (no other job moved), exactly as a
    /// rebuild with it among the planned jobs would have it. The profile must be valid at
    /// `now`.
    pub fn add_job(&mut self, now: Time, start: Time, end: Time, procs: i32) {
        let steps = &mut self.steps;
        let i = step_at(steps, now, start);
        let j = step_at(steps, now, end);
        for s in &mut steps[i..j] {
            s.used += procs;
        }
        self.generation += 1;
    }

    /// Takes a job of `procs` CPUs over `[start, end)` out (no other job moved), and the
    /// steps only its start or end made. The profile must be valid at `now`.
    pub fn remove_job(&mut self, now: Time, start: Time, end: Time, procs: i32) {
        let steps = &mut self.steps;
        let find = |steps: &[Step], t: Time| {
            if t <= now {
                0
            } else {
                let i = steps.partition_point(|s| s.t < t);
                debug_assert!(steps[i].t == t, "the job's events are in the profile");
                i
            }
        };
        let i = find(steps, start);
        let j = find(steps, end);
        for s in &mut steps[i..j] {
            s.used -= procs;
        }
        if j > 0 {
            steps[j].events -= 1;
        }
        if i > 0 {
            steps[i].events -= 1;
        }
        if j > 0 && steps[j].events == 0 {
            steps.remove(j);
        }
        if i > 0 && i != j && steps[i].events == 0 {
            steps.remove(i);
        }
        self.generation += 1;
    }

    /// [`first_fit`] on this profile (valid at `now`), from the index where it pays.
    pub fn first_fit(
        &mut self,
        cap: usize,
        procs: u32,
        duration: Time,
        now: Time,
        work: &mut Work,
    ) -> Time {
        let slot = (duration as usize ^ (procs as usize).wrapping_mul(0x9e37)) % ANSWERS;
        let (generation, p, d, start, scanned) = self.answers[slot];
        if generation == self.generation && p == procs && d == duration {
            work.scanned += scanned;
            return start;
        }
        let before = work.scanned;
        let start = self.search(cap, procs, duration, now, work);
        self.answers[slot] = (
            self.generation,
            procs,
            duration,
            start,
            work.scanned - before,
        );
        start
    }

    /// [`UsageProfile::first_fit`] without the kept answers.
    fn search(
        &mut self,
        cap: usize,
        procs: u32,
        duration: Time,
        now: Time,
        work: &mut Work,
    ) -> Time {
        let need = procs as usize;
        if duration <= 0
            || cap > MAX_INDEXED_CPUS
            || need > cap
            || self.steps.len() <= MIN_INDEXED_STEPS
        {
            return first_fit(&self.steps, cap as i32, procs, duration, now, work);
        }
        let (off, len) = self.level(cap, need);
        let runs = &self.runs[off..off + len];
        // The first run lasting at least `duration` (the last run lasts for ever).
        let i = runs.partition_point(|r| r.1 < duration);
        let start = runs[i].0;
        let scanned = self.steps.partition_point(|s| s.t < start + duration);
        #[cfg(debug_assertions)]
        {
            let mut w = Work::default();
            let t = first_fit(&self.steps, cap as i32, procs, duration, now, &mut w);
            assert_eq!(
                (t, w.scanned),
                (start, scanned as u64),
                "the index answers as the scan"
            );
        }
        work.scanned += scanned as u64;
        start
    }

    /// The runs of need `need` in `runs` (built if this generation has none).
    fn level(&mut self, cap: usize, need: usize) -> (usize, usize) {
        if self.levels.len() != cap + 1 {
            self.levels.clear();
            self.levels.resize(cap + 1, (UNBUILT, 0, 0));
        }
        if self.runs_generation != self.generation {
            self.runs.clear();
            self.runs_generation = self.generation;
        }
        let (generation, off, len) = self.levels[need];
        if generation == self.generation {
            return (off as usize, len as usize);
        }
        let limit = (cap - need) as i32;
        let off = self.runs.len();
        let mut longest = Time::MIN;
        let mut run: Option<Time> = None;
        for s in &self.steps {
            if s.used > limit {
                if let Some(start) = run.take() {
                    longest = longest.max(s.t - start);
                    self.runs.push((start, longest));
                }
            } else if run.is_none() {
                run = Some(s.t);
            }
        }
        // Every CPU is free after the last step: a run to the end lasts for ever.
        let start = run.expect("the last step has every CPU free");
        self.runs.push((start, Time::MAX));
        let len = self.runs.len() - off;
        self.levels[need] = (self.generation, off as u32, len as u32);
        (off, len)
    }
}

/// The used-CPU step profile of CPUs busy until `busy` and the compacted `planned` jobs, from
/// `now` on: a step at `now` and at every later time where some running job ends or some
/// planned job starts or ends.
pub(crate) fn build_profile(
    busy: &[Time],
    planned: &[PlannedJob],
    now: Time,
    events: &mut Vec<(Time, i32)>,
    steps: &mut Vec<Step>,
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
    steps.push(Step {
        t: now,
        used: used_now,
        events: 0,
    });
    for &(t, d) in events.iter() {
        let last = steps.last_mut().expect("non-empty");
        if t <= last.t {
            last.used += d;
            if last.t > now {
                last.events += 1;
            }
        } else {
            let used = last.used + d;
            steps.push(Step { t, used, events: 1 });
        }
    }
}

/// The index of the step at `t` (`t ≥ now`), made if there is none (it inherits the usage
/// before it); the first step stands for every time up to `now`. Counts the event at `t`.
fn step_at(steps: &mut Vec<Step>, now: Time, t: Time) -> usize {
    if t <= now {
        return 0;
    }
    let i = steps.partition_point(|s| s.t < t);
    if i < steps.len() && steps[i].t == t {
        steps[i].events += 1;
    } else {
        let used = steps[i - 1].used;
        steps.insert(i, Step { t, used, events: 1 });
    }
    i
}

/// The earliest `t ≥ now` with at least `procs` of `cap` CPUs free over `[t, t + duration)` on
/// the step profile `steps`. A start can only be `now` or a time where usage falls, and a
/// window that meets a step with too few free CPUs rules out every start before that step's
/// end.
pub(crate) fn first_fit(
    steps: &[Step],
    cap: i32,
    procs: u32,
    duration: Time,
    now: Time,
    work: &mut Work,
) -> Time {
    let need = procs as i32;
    let mut candidate = 0;
    while candidate < steps.len() {
        let t = steps[candidate].t;
        let mut k = candidate;
        let mut ok = true;
        while k < steps.len() && steps[k].t < t + duration {
            work.scanned += 1;
            if cap - steps[k].used < need {
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
    steps.last().map_or(now, |s| s.t)
}
