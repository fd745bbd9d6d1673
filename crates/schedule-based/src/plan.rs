//! The schedule of the whole grid and the schedule-based algorithms on it: the objective and
//! AcceptanceCriterion (spec §2.3), incr-EG-EDF (§2.4), Tabu search with MoveJob (§2.5–2.6),
//! re-comp-EG-EDF (§2.8) and the start of due jobs (§2.9).

use std::collections::VecDeque;

use gridsched_batch::Platform;
use gridsched_sim::SimRng;
use rand::seq::SliceRandom;

use crate::machine::{Aggregates, Gap, MachineSchedule, PlannedJob, Scratch, Work};
use crate::{Config, NondelayedScope, TieBreak, Time, UsageDefinition};

/// What the schedule needs to know of a job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobInfo {
    pub index: u32,
    pub id: u64,
    pub release: Time,
    pub procs: u32,
    /// Run time on the reference machine.
    pub run: Time,
    pub deadline: Option<Time>,
}

/// The objective of a (partly future) schedule: its predicted weighted usage and its number of
/// non-delayed jobs (spec §2.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Objective {
    pub usage: f64,
    pub nondelayed: f64,
}

/// AcceptanceCriterion (Algorithm 2): the sum of the relative improvements in usage and in
/// non-delayed jobs must be strictly positive (ties are rejected); anything beats no schedule.
/// A zero denominator is replaced by `epsilon` (spec A5).
pub fn accept(best: Option<Objective>, new: Objective, epsilon: f64) -> bool {
    best.is_none_or(|best| weight(best, new, epsilon) > 0.0)
}

/// Algorithm 2's `weight`: the relative improvement of `new` over `best` in usage plus that in
/// non-delayed jobs, each over a denominator floored at `epsilon` (spec A5).
pub fn weight(best: Objective, new: Objective, epsilon: f64) -> f64 {
    let w_usage = (new.usage - best.usage) / best.usage.max(epsilon);
    let w_deadline = (new.nondelayed - best.nondelayed) / best.nondelayed.max(epsilon);
    w_usage + w_deadline
}

/// The sign of [`weight`] (`Greater`: `w > 0`, `Equal`: `w == 0`, `Less` otherwise), exactly,
/// without its two divisions when both terms have the same sign.
///
/// With `epsilon > 0` both denominators are positive. Non-delayed counts are whole numbers
/// (exact in `f64`), so fewer non-delayed jobs makes the deadline term at most `−1 / n` with
/// `n ≤ 2^53`: strictly negative, never rounded to zero. A usage that is not higher makes the
/// usage term `≤ 0` (rounding is monotone), and a strictly negative term plus a non-positive
/// one is strictly negative. The mirror case is strictly positive. Anything else is computed.
fn weight_sign(best: Objective, new: Objective, epsilon: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if epsilon > 0.0 {
        if new.nondelayed < best.nondelayed && new.usage <= best.usage {
            return Ordering::Less;
        }
        if new.nondelayed > best.nondelayed && new.usage >= best.usage {
            return Ordering::Greater;
        }
        if new.nondelayed == best.nondelayed {
            // The deadline term is +0.0, so `w` is the usage term (a −0.0 one makes +0.0):
            // its numerator's sign, unless the quotient underflows to zero. It cannot when
            // |du| > den · 1e-200: then |du| / den exceeds 1e-200 (den ≥ 1e-100), or, where
            // that product underflows (den < 1e-100 < 1), it is at least |du| > 0.
            let du = new.usage - best.usage;
            let den = best.usage.max(epsilon);
            if du == 0.0 {
                return Ordering::Equal;
            }
            if du.abs() > den * 1e-200 {
                return if du > 0.0 {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
            }
        }
    }
    let w = weight(best, new, epsilon);
    if w > 0.0 {
        Ordering::Greater
    } else if w == 0.0 {
        Ordering::Equal
    } else {
        Ordering::Less
    }
}

/// The usage term of the last two predicted makespans evaluated in one decision (its planned
/// and arrived work and `now` are fixed): the candidates of a decision share a few makespans
/// (most leave the grid's largest end as it is), and each usage costs a division.
#[derive(Debug, Clone, Copy, Default)]
struct UsageMemo {
    entries: [Option<(Time, f64)>; 2],
    next: usize,
}

/// What the objective of a candidate schedule depends on, within one decision: its predicted
/// makespan and its planned non-delayed jobs (the planned work, the capacity, the finished
/// jobs and `now` are the same for every candidate of a decision).
///
/// Two candidates with the same key have the same objective, so the criterion's weight
/// between them is exactly 0 (`(x − x) / d` is `+0.0` for finite `x`): most candidates of a
/// backlog tie with the best so far (reading A17), and comparing keys decides them without
/// the three divisions of evaluating and weighing the objectives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    cmax: Time,
    nondelayed: u64,
}

/// A candidate of incr-EG-EDF: its objective's key, the objective once evaluated, the
/// machine, the list position and the new job's completion in it.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    key: Key,
    objective: Option<Objective>,
    machine: usize,
    position: usize,
    end: Time,
}

/// Rows of job durations on every machine, one per planned job, reused after the job starts.
#[derive(Debug, Clone, Default)]
struct Durations {
    /// By job index: its row, or [`NO_ROW`].
    slot: Vec<u32>,
    /// Row `r` holds machines `0..M` from `r · M`.
    rows: Vec<Time>,
    /// Rows of started jobs.
    free: Vec<u32>,
}

const NO_ROW: u32 = u32::MAX;

impl Durations {
    /// The job left the schedule: its row can be reused.
    fn release(&mut self, index: u32) {
        if let Some(slot) = self.slot.get_mut(index as usize)
            && *slot != NO_ROW
        {
            self.free.push(*slot);
            *slot = NO_ROW;
        }
    }
}

/// The three largest machine ends, so that the predicted makespan of a candidate that changes
/// one or two machines is found in constant time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TopEnds([(Time, usize); 3]);

impl TopEnds {
    fn of(machines: &[MachineSchedule]) -> Self {
        let mut top = [(Time::MIN, usize::MAX); 3];
        for (i, m) in machines.iter().enumerate() {
            let e = m.aggregates().max_end;
            if e > top[2].0 {
                top[2] = (e, i);
                top.sort_by_key(|x| std::cmp::Reverse(x.0));
            }
        }
        TopEnds(top)
    }

    /// The largest end of the machines other than `a` and `b`.
    fn excluding(&self, a: usize, b: usize) -> Time {
        self.0
            .iter()
            .find(|(_, i)| *i != a && *i != b)
            .map_or(Time::MIN, |x| x.0)
    }
}

/// The grid's schedule and the algorithms that change it.
#[derive(Debug, Clone)]
pub struct GridSchedule {
    platform: Platform,
    config: Config,
    machines: Vec<MachineSchedule>,
    top: TopEnds,
    /// Σ over machines of planned non-delayed jobs.
    planned_nondelayed: u64,
    /// Finished and running jobs that are (or will be, with exact run times) on time.
    fixed_nondelayed: u64,
    /// Machine-independent work `R_j · e_j · s_ref` of planned jobs, and of all arrived jobs.
    planned_work: f64,
    arrived_work: f64,
    /// `Σ R_i · s_i`.
    capacity: f64,
    /// Each machine's speed.
    speeds: Vec<u32>,
    /// Each machine's CPU count (Tabu search filters its shuffled machine order by it).
    cpus: Vec<u32>,
    /// Each planned job's duration on every machine: computed once per job instead of once
    /// per candidate (re-computation places every planned job on every machine at every
    /// arrival, Tabu search moves a few jobs many times, and each is a 64-bit division).
    durations: Durations,
    scratch: Scratch,
    /// A machine schedule reused for Tabu search's "source without the moved job".
    spare: MachineSchedule,
    /// The machine schedules Tabu search's setup copies the schedule into (the last call's
    /// replaced schedule, so that the copy reuses its buffers instead of allocating them).
    tabu_copy: Vec<MachineSchedule>,
    /// Tabu search: membership of the tabu FIFO, by job index.
    tabu_mark: Vec<bool>,
    pub work: Work,
}

impl GridSchedule {
    /// An empty schedule of idle machines at `now`.
    pub fn new(platform: Platform, config: Config, now: Time) -> Self {
        let machines: Vec<MachineSchedule> = platform
            .machines()
            .iter()
            .map(|m| MachineSchedule::new(m.cpus, now))
            .collect();
        let capacity = platform
            .machines()
            .iter()
            .map(|m| f64::from(m.cpus) * f64::from(m.speed))
            .sum();
        let speeds = platform.machines().iter().map(|m| m.speed).collect();
        let cpus = platform.machines().iter().map(|m| m.cpus).collect();
        GridSchedule {
            top: TopEnds::of(&machines),
            machines,
            platform,
            config,
            planned_nondelayed: 0,
            fixed_nondelayed: 0,
            planned_work: 0.0,
            arrived_work: 0.0,
            capacity,
            speeds,
            cpus,
            durations: Durations::default(),
            scratch: Scratch::default(),
            spare: MachineSchedule::new(1, now),
            tabu_copy: Vec::new(),
            tabu_mark: Vec::new(),
            work: Work::default(),
        }
    }

    /// The machine schedules.
    pub fn machines(&self) -> &[MachineSchedule] {
        &self.machines
    }

    fn work_of(&self, job: &JobInfo) -> f64 {
        f64::from(job.procs) * job.run as f64 * f64::from(self.platform.reference_speed())
    }

    /// `Platform::duration` (`ceil(run · s_ref / s_m)`), in 64-bit arithmetic when the product
    /// fits (every workload of the paper), since the 128-bit division it otherwise takes was
    /// a visible share of re-computation's time (one per machine per placement).
    #[inline]
    fn duration(&self, m: usize, run: Time) -> Time {
        let s = u64::from(self.speeds[m]);
        let reference = u64::from(self.platform.reference_speed());
        if s == reference {
            return run;
        }
        match u64::try_from(run)
            .ok()
            .and_then(|t| t.checked_mul(reference))
            .and_then(|num| num.checked_add(s - 1))
        {
            Some(num) if num / s <= i64::MAX as u64 => (num / s) as Time,
            _ => self.platform.duration(m, run),
        }
    }

    /// The offset in `durations.rows` of `job`'s durations on every machine (computed if it
    /// has none).
    fn durations_of(&mut self, job: &JobInfo) -> usize {
        let n = self.machines.len();
        let index = job.index as usize;
        if index >= self.durations.slot.len() {
            self.durations.slot.resize(index + 1, NO_ROW);
        }
        if self.durations.slot[index] != NO_ROW {
            return self.durations.slot[index] as usize * n;
        }
        let row = match self.durations.free.pop() {
            Some(row) => row as usize,
            None => {
                self.durations.rows.resize(self.durations.rows.len() + n, 0);
                self.durations.rows.len() / n - 1
            }
        };
        self.durations.slot[index] = row as u32;
        for m in 0..n {
            self.durations.rows[row * n + m] = self.duration(m, job.run);
        }
        row * n
    }

    /// `job` on machine `m`, its duration from the row at `offset` ([`Self::durations_of`]).
    fn planned(&self, job: &JobInfo, m: usize, offset: usize) -> PlannedJob {
        PlannedJob {
            index: job.index,
            procs: job.procs,
            duration: self.durations.rows[offset + m],
            deadline: job.deadline,
            release: job.release,
            id: job.id,
            start: 0,
            end: 0,
        }
    }

    /// The objective of the schedule with objective key `key`.
    fn objective_of(&self, now: Time, key: Key) -> Objective {
        Objective {
            usage: self.usage_of(now, key.cmax),
            nondelayed: self.nondelayed_of(key),
        }
    }

    /// [`GridSchedule::objective_of`] with the usage term from `memo` when it holds the
    /// makespan (the same value: the memo lives for one decision, whose work is fixed).
    fn objective_memo(&self, now: Time, key: Key, memo: &mut UsageMemo) -> Objective {
        let usage = match memo.entries.iter().flatten().find(|e| e.0 == key.cmax) {
            Some(&(_, usage)) => usage,
            None => {
                let usage = self.usage_of(now, key.cmax);
                memo.entries[memo.next] = Some((key.cmax, usage));
                memo.next ^= 1;
                usage
            }
        };
        Objective {
            usage,
            nondelayed: self.nondelayed_of(key),
        }
    }

    /// The sign of the criterion's weight of the schedule with key `new` against the one with
    /// key `best`, from the keys alone when it follows from them, exactly (`None`: evaluate).
    ///
    /// The usage term is `W / (CAP · x)` with `x` the predicted makespan (from `now`, or from
    /// time 0 under [`UsageDefinition::FromZero`]) as a whole number of time units. When `W`
    /// and `CAP` are normal numbers within `[1e-100, 1e100]`, `epsilon < 1` and both `x` lie
    /// in `[1, 2^48)`, the makespan decides the usage strictly: `x_n ≥ x_b + 1 ≥ x_b (1 +
    /// 2^-48)`, so after the rounding of the product and of the quotient (`2^-53` each) the
    /// usages still differ by a factor above `1 + 2^-50`, and their relative difference over
    /// the usage denominator stays a normal number (no underflow to a tie). The non-delayed
    /// counts are whole numbers, so their term is zero or at least `2^-53` in magnitude. The
    /// weight's sign is then the two terms' common sign, or the one non-zero term's; only a
    /// candidate that trades one objective for the other is evaluated. (Debug builds check
    /// every decided sign against [`weight`].)
    fn key_order(&self, now: Time, best: Key, new: Key) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering;
        if best == new {
            return Some(Ordering::Equal);
        }
        let eps = self.config.epsilon;
        let (w, xb, xn) = match self.config.usage {
            UsageDefinition::Predicted => (self.planned_work, best.cmax - now, new.cmax - now),
            UsageDefinition::FromZero => (self.arrived_work, best.cmax, new.cmax),
        };
        const LIMIT: Time = 1 << 48;
        let normal = |v: f64| (1e-100..=1e100).contains(&v);
        if !(eps > 0.0
            && eps < 1.0
            && normal(w)
            && normal(self.capacity)
            && (1..LIMIT).contains(&xb)
            && (1..LIMIT).contains(&xn))
        {
            return None;
        }
        // A smaller makespan is a higher usage.
        let usage = xb.cmp(&xn);
        let deadline = new.nondelayed.cmp(&best.nondelayed);
        let sign = match (usage, deadline) {
            (u, Ordering::Equal) => u,
            (Ordering::Equal, d) => d,
            (u, d) if u == d => u,
            _ => self.traded_order(w, xb, xn, best, new)?,
        };
        debug_assert_eq!(
            sign,
            weight_sign(
                self.objective_of(now, best),
                self.objective_of(now, new),
                eps
            ),
            "the keys decide the weight's sign"
        );
        Some(sign)
    }

    /// [`GridSchedule::key_order`]'s remaining case: one term positive, the other negative.
    ///
    /// In real numbers the usage term is `x_b / x_n − 1` (the usages are `W / (CAP · x)`)
    /// and the deadline term `Δn / n_b`, so the weight is `N / (x_n · n_b)` with the integer
    /// `N = (x_b − x_n) · n_b + Δn · x_n`. Evaluated in floating point (two roundings per
    /// usage, then the subtraction, the two quotients and the sum) the weight is off by less
    /// than `2^-48 · (1 + |usage term| + |deadline term|)`, given that both usages exceed
    /// `epsilon` (so it is not the denominator) — which `W / CAP > epsilon · 2^50` ensures
    /// for `x < 2^48`. Where the real weight exceeds `2^-32` times that bracket its sign is
    /// the computed one; in integers, `2^32 · |N| > x_n · n_b + |x_b − x_n| · n_b + |Δn| ·
    /// x_n` (everything below `2^122` when `n_b < 2^40`). Closer calls are evaluated.
    fn traded_order(
        &self,
        w: f64,
        xb: Time,
        xn: Time,
        best: Key,
        new: Key,
    ) -> Option<std::cmp::Ordering> {
        const MAX_COUNT: u64 = 1 << 40;
        let nb = self.nondelayed_count(best);
        let nn = self.nondelayed_count(new);
        if !(w / self.capacity > self.config.epsilon * (1u64 << 50) as f64
            && (1..MAX_COUNT).contains(&nb)
            && nn < MAX_COUNT)
        {
            return None;
        }
        let (xb, xn, nb, nn) = (
            i128::from(xb),
            i128::from(xn),
            i128::from(nb),
            i128::from(nn),
        );
        let dn = nn - nb;
        let numerator = (xb - xn) * nb + dn * xn;
        let bracket = xn * nb + (xb - xn).abs() * nb + dn.abs() * xn;
        if (numerator.abs() << 32) > bracket {
            Some(numerator.cmp(&0))
        } else {
            None
        }
    }

    /// The usage term of a schedule whose predicted makespan is `cmax`.
    fn usage_of(&self, now: Time, cmax: Time) -> f64 {
        let eps = self.config.epsilon;
        match self.config.usage {
            UsageDefinition::Predicted => {
                self.planned_work / (self.capacity * ((cmax - now) as f64).max(eps))
            }
            UsageDefinition::FromZero => {
                self.arrived_work / (self.capacity * (cmax as f64).max(eps))
            }
        }
    }

    /// The non-delayed term of a schedule with `key.nondelayed` planned non-delayed jobs.
    fn nondelayed_of(&self, key: Key) -> f64 {
        self.nondelayed_count(key) as f64
    }

    /// The jobs the non-delayed term counts in a schedule with key `key`.
    fn nondelayed_count(&self, key: Key) -> u64 {
        key.nondelayed
            + match self.config.nondelayed {
                NondelayedScope::All => self.fixed_nondelayed,
                NondelayedScope::PlannedOnly => 0,
            }
    }

    /// The current schedule's objective.
    pub fn objective(&self, now: Time) -> Objective {
        self.objective_of(now, self.key())
    }

    /// The current schedule's objective key.
    fn key(&self) -> Key {
        Key {
            cmax: self.top.0[0].0,
            nondelayed: self.planned_nondelayed,
        }
    }

    /// The objective key with machine `a` (and `b`) replaced by the given aggregates.
    fn key_with(&self, a: (usize, Aggregates), b: Option<(usize, Aggregates)>) -> Key {
        let (ia, aa) = a;
        let ib = b.map_or(ia, |x| x.0);
        let mut cmax = self.top.excluding(ia, ib).max(aa.max_end);
        let mut nd = self.planned_nondelayed - u64::from(self.machines[ia].aggregates().nondelayed)
            + u64::from(aa.nondelayed);
        if let Some((ib, ab)) = b
            && ib != ia
        {
            cmax = cmax.max(ab.max_end);
            nd = nd - u64::from(self.machines[ib].aggregates().nondelayed)
                + u64::from(ab.nondelayed);
        }
        Key {
            cmax,
            nondelayed: nd,
        }
    }

    fn refresh_totals(&mut self) {
        self.top = TopEnds::of(&self.machines);
        self.planned_nondelayed = self
            .machines
            .iter()
            .map(|m| u64::from(m.aggregates().nondelayed))
            .sum();
    }

    /// incr-EG-EDF (Algorithm 1): for each machine wide enough, in index order, the earliest-gap
    /// candidate, and only if the criterion rejects it the EDF candidate; the best accepted one
    /// becomes the schedule. Returns the machine chosen.
    pub fn insert_eg_edf(&mut self, job: &JobInfo, now: Time) -> usize {
        self.arrived_work += self.work_of(job);
        self.place(job, now)
    }

    /// Whether incr-EG-EDF takes `new` over `best` (Algorithm 1, lines 7 and 13): the
    /// acceptance criterion, and under [`TieBreak::EarliestCompletion`] a candidate it scores
    /// exactly like the best whose new job completes earlier. Sets `tied` when the criterion
    /// scores the two alike.
    /// Evaluates the objectives only when the keys differ (see [`Key`]).
    fn improves(
        &self,
        now: Time,
        best: &mut Option<Candidate>,
        new: &mut Candidate,
        tied: &mut bool,
        memo: &mut UsageMemo,
    ) -> bool {
        use std::cmp::Ordering;
        let Some(best) = best else {
            return true;
        };
        let sign = match self.key_order(now, best.key, new.key) {
            Some(sign) => sign,
            None => {
                let b = *best
                    .objective
                    .get_or_insert_with(|| self.objective_memo(now, best.key, memo));
                let n = *new
                    .objective
                    .get_or_insert_with(|| self.objective_memo(now, new.key, memo));
                weight_sign(b, n, self.config.epsilon)
            }
        };
        match sign {
            Ordering::Equal => {
                *tied = true;
                self.config.tie_break == TieBreak::EarliestCompletion && new.end < best.end
            }
            Ordering::Greater => true,
            Ordering::Less => false,
        }
    }

    fn place(&mut self, job: &JobInfo, now: Time) -> usize {
        // The job's work is planned in every candidate, so it counts in all of them alike.
        self.planned_work += self.work_of(job);
        let mut best: Option<Candidate> = None;
        let mut tied = false;
        let mut memo = UsageMemo::default();
        let offset = self.durations_of(job);
        for i in 0..self.machines.len() {
            if self.machines[i].cpus() < job.procs {
                continue;
            }
            let pj = self.planned(job, i, offset);
            let start = self.machines[i].earliest_start(
                job.procs,
                pj.duration,
                now,
                &mut self.scratch,
                &mut self.work,
            );
            let agg = self.machines[i].aggregates_with_gap(Gap { start, position: 0 }, &pj);
            let mut eg = Candidate {
                key: self.key_with((i, agg), None),
                objective: None,
                machine: i,
                // Found below if the candidate is kept.
                position: usize::MAX,
                end: start + pj.duration,
            };
            self.work.candidates += 1;
            if self.improves(now, &mut best, &mut eg, &mut tied, &mut memo) {
                eg.position = self.machines[i].gap_position(start);
                best = Some(eg);
                continue;
            }
            let position = self.machines[i].edf_position(job.deadline);
            let (agg, end) = self.machines[i].aggregates_with(
                position,
                pj,
                now,
                &mut self.scratch,
                &mut self.work,
            );
            let mut edf = Candidate {
                key: self.key_with((i, agg), None),
                objective: None,
                machine: i,
                position,
                end,
            };
            self.work.candidates += 1;
            if self.improves(now, &mut best, &mut edf, &mut tied, &mut memo) {
                best = Some(edf);
            }
        }
        let best = best.expect("the job fits some machine (checked on input)");
        self.work.placements += 1;
        self.work.tied_placements += u64::from(tied);
        let m = best.machine;
        let pj = self.planned(job, m, offset);
        self.machines[m].insert(best.position, pj, now, &mut self.scratch, &mut self.work);
        self.refresh_totals();
        // An EG candidate was evaluated without compaction: this checks that it moved nobody.
        debug_assert_eq!(
            self.key(),
            best.key,
            "the committed schedule is the candidate"
        );
        debug_assert_eq!(
            self.machines[m].planned()[best.position].end,
            best.end,
            "the job ends where its candidate said"
        );
        m
    }

    /// re-comp-EG-EDF (spec §2.8): every planned job and the new one are taken out and placed
    /// again by incr-EG-EDF one at a time, in deadline order (no deadline last; ties by
    /// release time, then id).
    pub fn recompute_with(&mut self, job: &JobInfo, now: Time, jobs: &[JobInfo]) {
        self.arrived_work += self.work_of(job);
        let mut planned: Vec<PlannedJob> = Vec::new();
        for m in &mut self.machines {
            m.drain_planned(now, &mut planned);
        }
        self.planned_work = 0.0;
        self.refresh_totals();
        let mut all: Vec<JobInfo> = planned
            .iter()
            .map(|p| jobs[p.index as usize])
            .chain(std::iter::once(*job))
            .collect();
        all.sort_by_key(|j| (j.deadline.is_none(), j.deadline, j.release, j.id));
        for j in &all {
            self.place(j, now);
        }
    }

    /// Tabu search (Algorithm 3) with MoveJob (Algorithm 4): `iterations` moves of the last
    /// non-tabu planned job of the machine with the most delayed jobs into the earliest gap of
    /// the first machine, in a random order, whose candidate the criterion accepts. Like the
    /// paper's implementation, each call first copies the schedule and evaluates its objective
    /// from scratch (the per-call setup cost of Fig. 1), works on the copy, and keeps it.
    pub fn tabu_search(
        &mut self,
        iterations: u32,
        capacity: usize,
        now: Time,
        jobs: &[JobInfo],
        rng: &mut SimRng,
    ) {
        // Setup: the working copy, compacted and evaluated afresh.
        let mut copy = std::mem::take(&mut self.tabu_copy);
        copy.clone_from(&self.machines);
        for m in &mut copy {
            m.compact(now, &mut self.scratch, &mut self.work);
        }
        debug_assert_eq!(copy, self.machines, "the schedule is always compacted");
        std::mem::swap(&mut self.machines, &mut copy);
        self.tabu_copy = copy;
        self.refresh_totals();
        let eps = self.config.epsilon;
        let n = self.machines.len();
        if self.tabu_mark.len() < jobs.len() {
            self.tabu_mark.resize(jobs.len(), false);
        }
        let mut tabu: VecDeque<u32> = VecDeque::with_capacity(capacity.min(4096));
        let mut used = vec![false; n];
        let mut order: Vec<usize> = (0..n).collect();
        let mut eligible: Vec<usize> = vec![0; n];
        let mut best = self.objective(now);
        let mut best_key = self.key();
        // Moves change neither the planned work nor `now`.
        let mut memo = UsageMemo::default();
        // The source of the last iteration: it stays the source until a machine is used up or
        // a move changes the delayed counts (most iterations of a short tabu list move
        // nothing), so the choice is not redone over every machine each time.
        let mut chosen: Option<Option<usize>> = None;
        // Whether a job was tried since every machine was last marked used: when a whole round
        // of the machines tried none, every planned job is tabu and stays so (nothing leaves a
        // tabu list that nothing enters), so every further iteration would do nothing.
        let mut tried = false;
        for _ in 0..iterations {
            // The unused machine with the most delayed planned jobs (ties: lowest index).
            let source = *chosen.get_or_insert_with(|| {
                (0..n)
                    .filter(|&k| !used[k])
                    .max_by_key(|&k| (self.machines[k].delayed(), std::cmp::Reverse(k)))
            });
            let Some(source) = source else {
                if !tried {
                    break;
                }
                tried = false;
                used.fill(false);
                chosen = None;
                continue;
            };
            let Some(position) = self.machines[source]
                .planned()
                .iter()
                .rposition(|j| !self.tabu_mark[j.index as usize])
            else {
                used[source] = true;
                chosen = None;
                continue;
            };
            tried = true;
            let moved = self.machines[source].planned()[position];
            let info = jobs[moved.index as usize];
            let offset = self.durations_of(&info);
            // The source without the job (later jobs may start earlier).
            self.machines[source].copy_without(
                position,
                &mut self.spare,
                now,
                &mut self.scratch,
                &mut self.work,
            );
            let source_after = self.spare.aggregates();
            order.shuffle(rng);
            // The machines with enough CPUs, in the shuffled order, kept without a branch:
            // which machines qualify is random in that order, so a test per machine inside
            // the candidate loop mispredicted (its hottest instruction in a profile).
            let mut count = 0;
            for &j in &order {
                eligible[count] = j;
                count += usize::from(self.cpus[j] >= info.procs);
            }
            let mut accepted: Option<(usize, Gap)> = None;
            for &j in &eligible[..count] {
                let pj = self.planned(&info, j, offset);
                let target = if j == source {
                    &mut self.spare
                } else {
                    &mut self.machines[j]
                };
                let start = target.earliest_start(
                    info.procs,
                    pj.duration,
                    now,
                    &mut self.scratch,
                    &mut self.work,
                );
                let agg = target.aggregates_with_gap(Gap { start, position: 0 }, &pj);
                self.work.candidates += 1;
                let key = if j == source {
                    self.key_with((source, agg), None)
                } else {
                    self.key_with((source, source_after), Some((j, agg)))
                };
                let sign = match self.key_order(now, best_key, key) {
                    Some(sign) => sign,
                    None => weight_sign(best, self.objective_memo(now, key, &mut memo), eps),
                };
                if sign == std::cmp::Ordering::Greater {
                    // The position is needed only now (a binary search over the list).
                    let position = if j == source {
                        self.spare.gap_position(start)
                    } else {
                        self.machines[j].gap_position(start)
                    };
                    accepted = Some((j, Gap { start, position }));
                    best = self.objective_memo(now, key, &mut memo);
                    best_key = key;
                    break;
                }
            }
            if let Some((j, gap)) = accepted {
                chosen = None;
                std::mem::swap(&mut self.machines[source], &mut self.spare);
                let pj = self.planned(&info, j, offset);
                self.machines[j].insert(gap.position, pj, now, &mut self.scratch, &mut self.work);
                self.refresh_totals();
                debug_assert_eq!(self.key(), best_key);
                debug_assert_eq!(self.objective(now), best);
            }
            if tabu.len() == capacity
                && let Some(old) = tabu.pop_front()
            {
                self.tabu_mark[old as usize] = false;
            }
            if capacity > 0 {
                tabu.push_back(moved.index);
                self.tabu_mark[moved.index as usize] = true;
            }
        }
        for j in tabu {
            self.tabu_mark[j as usize] = false;
        }
    }

    /// Starts the planned jobs whose start is `now` (spec §2.9), in machine then list order:
    /// pushes `(machine, job)` to `started`.
    pub fn start_due(
        &mut self,
        now: Time,
        jobs: &[JobInfo],
        started: &mut Vec<(usize, PlannedJob)>,
    ) {
        let mut buf = std::mem::take(&mut self.scratch.list);
        for (m, machine) in self.machines.iter_mut().enumerate() {
            buf.clear();
            machine.start_due(now, &mut self.scratch, &mut buf);
            for job in &buf {
                if !job.delayed() {
                    self.fixed_nondelayed += 1;
                }
                let info = &jobs[job.index as usize];
                self.durations.release(job.index);
                self.planned_work -= f64::from(info.procs)
                    * info.run as f64
                    * f64::from(self.platform.reference_speed());
                started.push((m, *job));
            }
        }
        self.scratch.list = buf;
        if !started.is_empty() {
            self.refresh_totals();
        }
    }

    /// Total number of planned jobs.
    pub fn planned_len(&self) -> usize {
        self.machines.iter().map(|m| m.planned().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_batch::Machine;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn grid(config: Config) -> GridSchedule {
        let platform = Platform::grid(
            vec![
                Machine {
                    cpus: 4,
                    speed: 200,
                },
                Machine {
                    cpus: 8,
                    speed: 300,
                },
            ],
            200,
        )
        .unwrap();
        GridSchedule::new(platform, config, 0)
    }

    /// The order the weight gives, computed (the oracle of the key shortcuts).
    fn computed(g: &GridSchedule, now: Time, best: Key, new: Key) -> Ordering {
        weight_sign(
            g.objective_of(now, best),
            g.objective_of(now, new),
            g.config.epsilon,
        )
    }

    fn literal(g: &GridSchedule, now: Time, best: Key, new: Key) -> Ordering {
        let w = weight(
            g.objective_of(now, best),
            g.objective_of(now, new),
            g.config.epsilon,
        );
        if w > 0.0 {
            Ordering::Greater
        } else if w == 0.0 {
            Ordering::Equal
        } else {
            Ordering::Less
        }
    }

    proptest! {
        /// Whatever the keys decide (`key_order`) and the shortcuts of `weight_sign` are the
        /// sign of Algorithm 2's weight as computed, over makespans and counts from tiny to
        /// beyond the shortcuts' limits, work from 0 to huge, both usage readings, both
        /// non-delayed scopes and floors of the denominators from 0 to above 1.
        #[test]
        fn key_shortcuts_give_the_weights_sign(
            work_exp in -120i32..120,
            fixed in 0u64..5000,
            from_zero in any::<bool>(),
            planned_only in any::<bool>(),
            eps in prop_oneof![Just(1e-13), Just(0.0), Just(2.0), Just(1e-300)],
            now in 0i64..1_000_000,
            b in (0i64..(1 << 50), 0u64..3000),
            d in (-2000i64..2000, -3i64..3, prop_oneof![Just(0i64), 1i64..1000, 0i64..(1 << 50)]),
        ) {
            let mut g = grid(Config {
                epsilon: eps,
                usage: if from_zero {
                    UsageDefinition::FromZero
                } else {
                    UsageDefinition::Predicted
                },
                nondelayed: if planned_only {
                    NondelayedScope::PlannedOnly
                } else {
                    NondelayedScope::All
                },
                ..Config::default()
            });
            g.planned_work = 1.37 * 10f64.powi(work_exp);
            g.arrived_work = 2.11 * 10f64.powi(work_exp);
            g.fixed_nondelayed = fixed;
            let best = Key { cmax: now + b.0, nondelayed: b.1 };
            // Near and far makespans, equal ones included.
            let cmax = if d.2 == 0 { best.cmax + d.0 } else { best.cmax + d.2 * d.0.signum() };
            let new = Key {
                cmax: cmax.max(0),
                nondelayed: (b.1 as i64 + d.1).max(0) as u64,
            };
            let truth = literal(&g, now, best, new);
            prop_assert_eq!(computed(&g, now, best, new), truth);
            if let Some(order) = g.key_order(now, best, new) {
                prop_assert_eq!(order, truth);
            }
        }
    }

    /// The close calls the integer test leaves to the computed weight: a makespan one unit
    /// longer against one more job on time, at the sizes where the two terms nearly cancel.
    #[test]
    fn near_cancellations_are_evaluated_or_decided_right() {
        let mut g = grid(Config::default());
        g.planned_work = 3.0e9;
        g.fixed_nondelayed = 0;
        let now = 0;
        for x in [1i64, 2, 999, 1000, 1001, 123_456, 1 << 30, (1 << 47) + 5] {
            for n in [1u64, 2, 999, 1000, 1001, 123_456] {
                for (dx, dn) in [
                    (1i64, 1i64),
                    (-1, -1),
                    (x, n as i64),
                    (-x / 2, -(n as i64) / 2),
                ] {
                    let best = Key {
                        cmax: x,
                        nondelayed: n,
                    };
                    let new = Key {
                        cmax: (x + dx).max(1),
                        nondelayed: (n as i64 + dn).max(0) as u64,
                    };
                    let truth = literal(&g, now, best, new);
                    assert_eq!(computed(&g, now, best, new), truth, "{best:?} {new:?}");
                    if let Some(order) = g.key_order(now, best, new) {
                        assert_eq!(order, truth, "{best:?} {new:?}");
                    }
                }
            }
        }
        // Real weights of ±1 / (x_n · n_b): `(x_b − x_n) · n_b + Δn · x_n = ±1` from Bézout's
        // identity, where rounding decides the computed sign.
        let mut decided = 0;
        for xn in [
            1_000_003i64,
            7_654_321,
            99_999_989,
            1 << 40 | 1,
            (1 << 47) - 1,
        ] {
            for nb in [2_003i64, 65_537, 999_983, 16_777_259] {
                let (g0, a, b) = ext_gcd(nb, xn); // a·nb + b·xn = 1
                assert_eq!(g0, 1);
                for sign in [1i64, -1] {
                    // Shift along the solutions until both keys are valid.
                    let (mut dx, mut dn) = (sign * a, sign * b);
                    while nb + dn < 0 {
                        dx -= xn;
                        dn += nb;
                    }
                    while xn + dx < 1 {
                        dx += xn;
                        dn -= nb;
                    }
                    if nb + dn < 0 {
                        continue;
                    }
                    let best = Key {
                        cmax: xn + dx,
                        nondelayed: nb as u64,
                    };
                    let new = Key {
                        cmax: xn,
                        nondelayed: (nb + dn) as u64,
                    };
                    let truth = literal(&g, now, best, new);
                    assert_eq!(computed(&g, now, best, new), truth, "{best:?} {new:?}");
                    if let Some(order) = g.key_order(now, best, new) {
                        decided += 1;
                        assert_eq!(order, truth, "{best:?} {new:?}");
                    }
                }
            }
        }
        assert!(decided < 40, "close calls are left to the computed weight");
    }

    /// `(g, a, b)` with `a·x + b·y = g = gcd(x, y)`.
    fn ext_gcd(x: i64, y: i64) -> (i64, i64, i64) {
        if y == 0 {
            (x, 1, 0)
        } else {
            let (g, a, b) = ext_gcd(y, x % y);
            (g, b, a - (x / y) * b)
        }
    }
}
