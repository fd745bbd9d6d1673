//! Plan evaluation (spec §2.5–2.6): HEFT list scheduling of a workflow on the slots a plan
//! selects, one bin of slots per resource, and the plan's allocation cost (eq. 4) and
//! scheduling cost (eq. 5, the makespan from submission).
//!
//! A *plan* is a subset of the advertised slots (one bit per [`Candidate`]). Tasks are visited
//! in HEFT priority order (non-increasing upward rank, eq. 7); each goes to the resource whose
//! bin gives it the earliest start ([`SlotSet::earliest`] with the release time
//! `max_parents(finish + transfer)`), ties to the lowest resource index, and is carved out of
//! that bin (Figure 2 with release times). A task that fits no bin leaves the plan
//! *infeasible*; its descendants are not scheduled either, and the number of unscheduled
//! tasks ranks infeasible plans (§2.7).
//!
//! Allocation cost (§2.6.5): an indivisible slot used by any task is charged in full
//! (`n·d·c + f`; an extensible indivisible one to the end of its last use, Table 1), and its
//! left-over pieces are free for later tasks; a divisible slot is charged only what tasks use
//! (`Σ n_task·d_task·c`, plus `f` once); selected slots no task uses cost nothing.
//!
//! Task run times are whole seconds (rounded up); tasks with no processors or no run time
//! (the dummy entry and exit) take no slot and finish when released.

use gridsched_batch::Time;
use gridsched_workflow::{ReferenceRuntime, TransferModel, UpwardRanks, Workflow};

use crate::slot::HOUR;
use crate::slotset::{Merge, SlotSet, Use};

/// One advertised slot of the global set `Â` (eq. 3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Index of the resource (site) advertising it.
    pub resource: u32,
    pub start: Time,
    /// [`OPEN`](crate::OPEN) for an extensible slot.
    pub end: Time,
    pub procs: u32,
    pub divisible: bool,
    pub extensible: bool,
    /// SU per processor-hour.
    pub unit_cost: f64,
    /// SU per slot.
    pub fixed_cost: f64,
}

/// A workflow compiled for repeated evaluation: priority order, processors, whole-second run
/// times and, per task, its parents with the transfer time when they run elsewhere.
#[derive(Debug, Clone)]
pub struct App {
    order: Vec<u32>,
    procs: Vec<u32>,
    duration: Vec<Time>,
    pred_start: Vec<u32>,
    /// (parent, transfer seconds between different resources).
    preds: Vec<(u32, Time)>,
    /// `Σ procs × run time`, processor-seconds (eq. 16's best-effort cost, in seconds).
    area: i64,
}

impl App {
    /// Compiles `wf` with HEFT ranks from reference run times and `transfer` (its average link
    /// for `c_ij`, spec §2.5).
    pub fn new(wf: &Workflow, ranks: &UpwardRanks, transfer: &TransferModel) -> App {
        let n = wf.len();
        let mut procs = Vec::with_capacity(n);
        let mut duration = Vec::with_capacity(n);
        let mut pred_start = Vec::with_capacity(n + 1);
        let mut preds = Vec::new();
        let mut area = 0i64;
        for t in wf.task_ids() {
            let task = wf.task(t);
            let d = whole_seconds(task.runtime);
            procs.push(task.procs);
            duration.push(d);
            area += i64::from(task.procs) * d;
            pred_start.push(preds.len() as u32);
            preds.extend(
                wf.predecessors(t)
                    .map(|e| (e.parent.0, whole_seconds(transfer.time(e.bytes)))),
            );
        }
        pred_start.push(preds.len() as u32);
        let order = ranks.priority_list().iter().map(|t| t.0).collect();
        App {
            order,
            procs,
            duration,
            pred_start,
            preds,
            area,
        }
    }

    /// Convenience: ranks from reference run times and `transfer`.
    pub fn from_workflow(wf: &Workflow, transfer: &TransferModel) -> App {
        let opts = gridsched_workflow::RankOptions {
            transfer: *transfer,
            ..Default::default()
        };
        let ranks = gridsched_workflow::upward_ranks(wf, &ReferenceRuntime, &opts);
        App::new(wf, &ranks, transfer)
    }

    pub fn len(&self) -> usize {
        self.procs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// Tasks in priority order.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    pub fn procs(&self, task: u32) -> u32 {
        self.procs[task as usize]
    }

    pub fn duration(&self, task: u32) -> Time {
        self.duration[task as usize]
    }

    /// `(parent, transfer seconds when on another resource)` of `task`.
    pub fn parents(&self, task: u32) -> &[(u32, Time)] {
        &self.preds
            [self.pred_start[task as usize] as usize..self.pred_start[task as usize + 1] as usize]
    }

    /// The best-effort allocation cost (eq. 16) in SU: `Σ procs × run time`.
    pub fn best_effort_cost(&self) -> f64 {
        self.area as f64 / HOUR as f64
    }

    /// The largest processor count of any task.
    pub fn widest(&self) -> u32 {
        self.procs.iter().copied().max().unwrap_or(0)
    }
}

/// Seconds, rounded up to a whole second (non-negative finite input).
pub fn whole_seconds(s: f64) -> Time {
    if s <= 0.0 { 0 } else { s.ceil() as Time }
}

/// The two objectives of a plan, and how far an infeasible one got.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Allocation cost, SU (eq. 4).
    pub ac: f64,
    /// Makespan from submission in seconds (eq. 5); `None` when infeasible.
    pub sc: Option<Time>,
    /// Tasks the plan could not schedule (0 when feasible).
    pub unscheduled: u32,
}

impl Evaluation {
    pub fn feasible(&self) -> bool {
        self.sc.is_some()
    }
}

/// Where one task ran in an evaluated plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub resource: u32,
    pub start: Time,
    pub end: Time,
}

/// A plan evaluated in full: the objectives, every task's placement (`None`: unscheduled), and
/// what each selected slot was charged (SU; 0 if unused).
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub evaluation: Evaluation,
    pub tasks: Vec<Option<Placement>>,
    pub charged: Vec<f64>,
}

/// Evaluates plans over one candidate set for one application, reusing its buffers.
#[derive(Debug, Clone)]
pub struct Evaluator<'a> {
    app: &'a App,
    candidates: &'a [Candidate],
    resources: usize,
    submit: Time,
    bins: Vec<SlotSet>,
    finish: Vec<Time>,
    placed_on: Vec<u32>,
    uses: Vec<Use>,
    used: Vec<bool>,
    /// Processor-seconds used in each divisible candidate.
    divisible_area: Vec<i64>,
    last_end: Vec<Time>,
    /// Each candidate's price class, and the distinct (unit, fixed) prices: costs are summed
    /// in integer processor-seconds per class, so equal plans cost exactly the same.
    price_class: Vec<usize>,
    prices: Vec<(f64, f64)>,
    class_area: Vec<i64>,
    class_fees: Vec<u32>,
}

const UNPLACED: u32 = u32::MAX;

impl<'a> Evaluator<'a> {
    /// An evaluator for `app` submitted at `submit` on the slots `candidates` (of resources
    /// `0..resources`).
    pub fn new(app: &'a App, candidates: &'a [Candidate], submit: Time) -> Self {
        let resources = candidates
            .iter()
            .map(|c| c.resource as usize + 1)
            .max()
            .unwrap_or(1);
        let mut prices: Vec<(f64, f64)> = Vec::new();
        let price_class = candidates
            .iter()
            .map(|c| {
                let p = (c.unit_cost, c.fixed_cost);
                prices.iter().position(|&q| q == p).unwrap_or_else(|| {
                    prices.push(p);
                    prices.len() - 1
                })
            })
            .collect();
        Evaluator {
            app,
            candidates,
            resources,
            submit,
            bins: (0..resources)
                .map(|_| SlotSet::new(Merge::ShapeAndOrigin))
                .collect(),
            finish: vec![0; app.len()],
            placed_on: vec![UNPLACED; app.len()],
            uses: Vec::new(),
            used: vec![false; candidates.len()],
            divisible_area: vec![0; candidates.len()],
            last_end: vec![0; candidates.len()],
            price_class,
            class_area: vec![0; prices.len()],
            class_fees: vec![0; prices.len()],
            prices,
        }
    }

    pub fn candidates(&self) -> &[Candidate] {
        self.candidates
    }

    /// The objectives of `plan` (one bit per candidate).
    pub fn evaluate(&mut self, plan: &[bool]) -> Evaluation {
        self.run(plan, None)
    }

    /// The objectives, every placement and every slot's charge.
    pub fn schedule(&mut self, plan: &[bool]) -> Schedule {
        let mut tasks = vec![None; self.app.len()];
        let evaluation = self.run(plan, Some(&mut tasks));
        let charged = (0..self.candidates.len()).map(|i| self.charge(i)).collect();
        Schedule {
            evaluation,
            tasks,
            charged,
        }
    }

    /// Candidate `i`'s charge: (processor-seconds, fees).
    fn charge_parts(&self, i: usize) -> (i64, u32) {
        let c = &self.candidates[i];
        if !self.used[i] {
            (0, 0)
        } else if c.divisible {
            (self.divisible_area[i], 1)
        } else if c.extensible {
            (i64::from(c.procs) * (self.last_end[i] - c.start), 1)
        } else {
            (i64::from(c.procs) * (c.end - c.start), 1)
        }
    }

    fn charge(&self, i: usize) -> f64 {
        let (area, fees) = self.charge_parts(i);
        let (unit, fixed) = self.prices[self.price_class[i]];
        area as f64 / HOUR as f64 * unit + f64::from(fees) * fixed
    }

    /// The plan's AC: integer processor-seconds and fee counts per price class.
    fn total_charge(&mut self) -> f64 {
        self.class_area.fill(0);
        self.class_fees.fill(0);
        for i in 0..self.candidates.len() {
            let (area, fees) = self.charge_parts(i);
            self.class_area[self.price_class[i]] += area;
            self.class_fees[self.price_class[i]] += fees;
        }
        self.prices
            .iter()
            .enumerate()
            .map(|(k, &(unit, fixed))| {
                self.class_area[k] as f64 / HOUR as f64 * unit
                    + f64::from(self.class_fees[k]) * fixed
            })
            .sum()
    }

    fn run(&mut self, plan: &[bool], mut out: Option<&mut Vec<Option<Placement>>>) -> Evaluation {
        assert_eq!(
            plan.len(),
            self.candidates.len(),
            "one bit per candidate slot"
        );
        for b in &mut self.bins {
            b.clear();
        }
        for (i, c) in self.candidates.iter().enumerate() {
            self.used[i] = false;
            self.divisible_area[i] = 0;
            self.last_end[i] = c.start;
            if plan[i] {
                self.bins[c.resource as usize].add(
                    c.start,
                    c.end,
                    c.procs,
                    c.extensible,
                    c.divisible,
                    i as u32,
                );
            }
        }
        let app = self.app;
        self.placed_on.fill(UNPLACED);
        let mut unscheduled = 0u32;
        let mut makespan_end = self.submit;
        for &t in &app.order {
            let ti = t as usize;
            let parents = app.parents(t);
            if parents
                .iter()
                .any(|&(p, _)| self.placed_on[p as usize] == UNPLACED)
            {
                unscheduled += 1;
                continue;
            }
            // The release time on resource r.
            let submit = self.submit;
            let release = |r: u32, finish: &[Time], placed_on: &[u32]| {
                parents.iter().fold(submit, |acc, &(p, c)| {
                    let on_r = placed_on[p as usize] == r;
                    acc.max(finish[p as usize] + if on_r { 0 } else { c })
                })
            };
            let (procs, dur) = (app.procs[ti], app.duration[ti]);
            let mut best: Option<(Time, u32, crate::slotset::Found)> = None;
            let mut best_free: Option<(Time, u32)> = None;
            for r in 0..self.resources as u32 {
                let rel = release(r, &self.finish, &self.placed_on);
                if procs == 0 || dur == 0 {
                    if best_free.is_none_or(|(b, _)| rel < b) {
                        best_free = Some((rel, r));
                    }
                    continue;
                }
                if let Some(f) = self.bins[r as usize].earliest(rel, procs, dur)
                    && best.is_none_or(|(b, _, _)| f.start < b)
                {
                    best = Some((f.start, r, f));
                }
            }
            let (start, r) = if procs == 0 || dur == 0 {
                best_free.expect("at least one resource")
            } else if let Some((start, r, found)) = best {
                self.uses.clear();
                self.bins[r as usize].carve(found, procs, dur, &mut self.uses);
                for u in &self.uses {
                    let o = u.slot.origin as usize;
                    self.used[o] = true;
                    self.last_end[o] = self.last_end[o].max(start + dur);
                    if self.candidates[o].divisible {
                        self.divisible_area[o] += i64::from(u.procs) * dur;
                    }
                }
                (start, r)
            } else {
                unscheduled += 1;
                continue;
            };
            self.finish[ti] = start + dur;
            self.placed_on[ti] = r;
            makespan_end = makespan_end.max(start + dur);
            if let Some(out) = out.as_deref_mut() {
                out[ti] = Some(Placement {
                    resource: r,
                    start,
                    end: start + dur,
                });
            }
        }
        let ac = self.total_charge();
        Evaluation {
            ac,
            sc: (unscheduled == 0).then_some(makespan_end - self.submit),
            unscheduled,
        }
    }
}

/// The candidates of one resource's slot set (Ch. 3 prices: `c`, `f` as given).
pub fn candidates_of(
    set: &SlotSet,
    resource: u32,
    unit_cost: f64,
    fixed_cost: f64,
) -> Vec<Candidate> {
    set.slots()
        .iter()
        .map(|s| Candidate {
            resource,
            start: s.start,
            end: s.end,
            procs: s.procs,
            divisible: s.divisible,
            extensible: s.extensible,
            unit_cost,
            fixed_cost,
        })
        .collect()
}
