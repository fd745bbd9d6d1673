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

/// The best candidate of incr-EG-EDF so far: its objective, machine, list position and the
/// new job's completion in it.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    objective: Objective,
    machine: usize,
    position: usize,
    end: Time,
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
    scratch: Scratch,
    /// A machine schedule reused for Tabu search's "source without the moved job".
    spare: MachineSchedule,
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
            scratch: Scratch::default(),
            spare: MachineSchedule::new(1, now),
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

    fn planned(&self, job: &JobInfo, m: usize) -> PlannedJob {
        PlannedJob {
            index: job.index,
            procs: job.procs,
            duration: self.platform.duration(m, job.run),
            deadline: job.deadline,
            release: job.release,
            id: job.id,
            start: 0,
            end: 0,
        }
    }

    /// The objective of the schedule whose predicted makespan is `cmax` and whose planned
    /// non-delayed count is `planned_nd`.
    fn objective_of(&self, now: Time, cmax: Time, planned_nd: u64) -> Objective {
        let eps = self.config.epsilon;
        let nondelayed = planned_nd
            + match self.config.nondelayed {
                NondelayedScope::All => self.fixed_nondelayed,
                NondelayedScope::PlannedOnly => 0,
            };
        let usage = match self.config.usage {
            UsageDefinition::Predicted => {
                self.planned_work / (self.capacity * ((cmax - now) as f64).max(eps))
            }
            UsageDefinition::FromZero => {
                self.arrived_work / (self.capacity * (cmax as f64).max(eps))
            }
        };
        Objective {
            usage,
            nondelayed: nondelayed as f64,
        }
    }

    /// The current schedule's objective.
    pub fn objective(&self, now: Time) -> Objective {
        self.objective_of(now, self.top.0[0].0, self.planned_nondelayed)
    }

    /// The objective with machine `a` (and `b`) replaced by the given aggregates.
    fn objective_with(
        &self,
        now: Time,
        a: (usize, Aggregates),
        b: Option<(usize, Aggregates)>,
    ) -> Objective {
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
        self.objective_of(now, cmax, nd)
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
    fn improves(&self, best: Option<Candidate>, new: Candidate, tied: &mut bool) -> bool {
        let Some(best) = best else {
            return true;
        };
        let w = weight(best.objective, new.objective, self.config.epsilon);
        if w == 0.0 {
            *tied = true;
            return self.config.tie_break == TieBreak::EarliestCompletion && new.end < best.end;
        }
        w > 0.0
    }

    fn place(&mut self, job: &JobInfo, now: Time) -> usize {
        // The job's work is planned in every candidate, so it counts in all of them alike.
        self.planned_work += self.work_of(job);
        let mut best: Option<Candidate> = None;
        let mut tied = false;
        for i in 0..self.machines.len() {
            if self.machines[i].cpus() < job.procs {
                continue;
            }
            let pj = self.planned(job, i);
            let gap = self.machines[i].earliest_gap(
                job.procs,
                pj.duration,
                now,
                &mut self.scratch,
                &mut self.work,
            );
            let agg = self.machines[i].aggregates_with_gap(gap, &pj);
            let eg = Candidate {
                objective: self.objective_with(now, (i, agg), None),
                machine: i,
                position: gap.position,
                end: gap.start + pj.duration,
            };
            self.work.candidates += 1;
            if self.improves(best, eg, &mut tied) {
                best = Some(eg);
                continue;
            }
            let position = self.machines[i].edf_position(job.deadline);
            let agg = self.machines[i].aggregates_with(
                position,
                pj,
                now,
                &mut self.scratch,
                &mut self.work,
            );
            let edf = Candidate {
                objective: self.objective_with(now, (i, agg), None),
                machine: i,
                position,
                // `aggregates_with` leaves the compacted candidate list in the scratch.
                end: self.scratch.list[position].end,
            };
            self.work.candidates += 1;
            if self.improves(best, edf, &mut tied) {
                best = Some(edf);
            }
        }
        let best = best.expect("the job fits some machine (checked on input)");
        self.work.placements += 1;
        self.work.tied_placements += u64::from(tied);
        let m = best.machine;
        let pj = self.planned(job, m);
        self.machines[m].insert(best.position, pj, now, &mut self.scratch, &mut self.work);
        self.refresh_totals();
        // An EG candidate was evaluated without compaction: this checks that it moved nobody.
        debug_assert_eq!(
            self.objective(now),
            best.objective,
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
        let mut copy = self.machines.clone();
        for m in &mut copy {
            m.compact(now, &mut self.scratch, &mut self.work);
        }
        debug_assert_eq!(copy, self.machines, "the schedule is always compacted");
        self.machines = copy;
        self.refresh_totals();
        let eps = self.config.epsilon;
        let n = self.machines.len();
        if self.tabu_mark.len() < jobs.len() {
            self.tabu_mark.resize(jobs.len(), false);
        }
        let mut tabu: VecDeque<u32> = VecDeque::with_capacity(capacity.min(4096));
        let mut used = vec![false; n];
        let mut order: Vec<usize> = (0..n).collect();
        let mut best = self.objective(now);
        for _ in 0..iterations {
            // The unused machine with the most delayed planned jobs (ties: lowest index).
            let source = (0..n)
                .filter(|&k| !used[k])
                .max_by_key(|&k| (self.machines[k].delayed(), std::cmp::Reverse(k)));
            let Some(source) = source else {
                used.fill(false);
                continue;
            };
            let Some(position) = self.machines[source]
                .planned()
                .iter()
                .rposition(|j| !self.tabu_mark[j.index as usize])
            else {
                used[source] = true;
                continue;
            };
            let moved = self.machines[source].planned()[position];
            let info = jobs[moved.index as usize];
            // The source without the job (later jobs may start earlier).
            self.spare.clone_from(&self.machines[source]);
            self.spare
                .remove(position, now, &mut self.scratch, &mut self.work);
            let source_after = self.spare.aggregates();
            order.shuffle(rng);
            let mut accepted: Option<(usize, Gap)> = None;
            for &j in &order {
                if self.machines[j].cpus() < info.procs {
                    continue;
                }
                let pj = self.planned(&info, j);
                let target = if j == source {
                    &mut self.spare
                } else {
                    &mut self.machines[j]
                };
                let gap = target.earliest_gap(
                    info.procs,
                    pj.duration,
                    now,
                    &mut self.scratch,
                    &mut self.work,
                );
                let agg = target.aggregates_with_gap(gap, &pj);
                self.work.candidates += 1;
                let obj = if j == source {
                    self.objective_with(now, (source, agg), None)
                } else {
                    self.objective_with(now, (source, source_after), Some((j, agg)))
                };
                if accept(Some(best), obj, eps) {
                    accepted = Some((j, gap));
                    best = obj;
                    break;
                }
            }
            if let Some((j, gap)) = accepted {
                std::mem::swap(&mut self.machines[source], &mut self.spare);
                let pj = self.planned(&info, j);
                self.machines[j].insert(gap.position, pj, now, &mut self.scratch, &mut self.work);
                self.refresh_totals();
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
