//! Greedy provisioning with adaptive pricing, chapter 7 (spec §2.14, Figure 51): tasks in HEFT
//! order, each asks every resource for its earliest-start answer (query (19) from the task's
//! ready time on that resource), picks one priced start by the trade-off factor α over cost
//! and finish, and reserves it at once, so the next task's queries see the queue the
//! reservation pushed back.
//!
//! A start `s` on resource `r` for task `v` of `n` processors and run time `d`:
//! - finish `s + d`;
//! - cost `n·d·c + f` in SU, with `c` = 1 SU per processor-hour and `f` the adaptive price
//!   (Figure 22 under the resource's policy).
//!
//! The choice minimises `α·(cost − cost_min)/(cost_max − cost_min) + (1 − α)·(finish −
//! finish_min)/(finish_max − finish_min)` over every answer of every resource; a zero-range term
//! counts as 0; ties go to the earliest finish, then the lowest resource index, then the
//! earliest start (spec §2.14 PROPOSAL). With α = 1 every chosen price is 0, because every
//! answer contains a free start and `n·d·c` is the same on every resource, so the allocation
//! cost is exactly the best-effort cost `Σ n·d` (eq. 16).
//!
//! The resources are batch simulators carrying their background traces, at the submission
//! time (usually clones, so the background run is never disturbed; spec §6). A task's ready
//! time on `r` is the latest of its parents' finishes plus the transfer time of each parent on
//! another resource; dummy tasks (no processors or no run time) reserve nothing and finish
//! when ready.

use gridsched_batch::{Simulator, Time};

use crate::plan::App;
use crate::pricing::{Pricer, PricingError, PricingPolicy, SiteState};
use crate::slot::HOUR;

/// One reserved task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reservation {
    pub task: u32,
    /// The resource (index into the sites).
    pub resource: u32,
    pub start: Time,
    pub end: Time,
    pub procs: u32,
    /// The adaptive price `f`, SU.
    pub price: f64,
}

/// The outcome of a greedy run.
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyPlan {
    pub submit: Time,
    /// Finish of the last task − submission time, seconds.
    pub makespan: Time,
    /// `Σ (n·d·c + f)` over the reservations, SU.
    pub cost: f64,
    /// One per real task, in the order they were reserved (HEFT order).
    pub reservations: Vec<Reservation>,
    /// Answers examined (candidate starts over every resource and task).
    pub answers: u64,
}

/// Why a greedy run failed.
#[derive(Debug, thiserror::Error)]
pub enum GreedyError {
    #[error("task {task} needs {procs} processors; no resource has that many")]
    TooWide { task: u32, procs: u32 },
    #[error("the resources' clocks differ ({0} and {1}); clone them at the submission time")]
    Clocks(Time, Time),
    #[error("no resources")]
    NoResources,
    #[error("pricing: {0}")]
    Pricing(#[from] PricingError),
    #[error("reserving: {0}")]
    Reserve(#[from] gridsched_batch::SimError),
}

/// Provisions `app` on `sites` (one-machine simulators, all at the submission time; the
/// reservations are added to them) with trade-off factor `alpha`, prices under `policy`.
pub fn provision_greedy(
    app: &App,
    sites: &mut [Simulator],
    policy: PricingPolicy,
    alpha: f64,
) -> Result<GreedyPlan, GreedyError> {
    let Some(first) = sites.first() else {
        return Err(GreedyError::NoResources);
    };
    let submit = first.now();
    for s in sites.iter() {
        if s.now() != submit {
            return Err(GreedyError::Clocks(submit, s.now()));
        }
    }
    let capacity: Vec<u32> = sites
        .iter()
        .map(|s| {
            s.platform()
                .machines()
                .iter()
                .map(|m| m.cpus)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let n = app.len();
    const NONE: u32 = u32::MAX;
    let mut finish = vec![submit; n];
    let mut placed = vec![NONE; n];
    let mut reservations = Vec::new();
    let mut answers = 0u64;
    // Candidates of the current task: (resource, start, finish, cost).
    let mut cands: Vec<(u32, Time, Time, f64, f64)> = Vec::new();
    for &t in app.order() {
        let ti = t as usize;
        let (procs, dur) = (app.procs(t), app.duration(t));
        let ready_on = |r: u32| {
            app.parents(t)
                .iter()
                .map(|&(p, c)| {
                    let remote = placed[p as usize] != NONE && placed[p as usize] != r;
                    finish[p as usize] + if remote { c } else { 0 }
                })
                .fold(submit, Time::max)
        };
        if procs == 0 || dur == 0 {
            // A dummy: no reservation; it finishes when its parents' data could reach it
            // (on no resource: every transfer counts as local).
            finish[ti] = app
                .parents(t)
                .iter()
                .map(|&(p, _)| finish[p as usize])
                .fold(submit, Time::max);
            continue;
        }
        cands.clear();
        for (r, sim) in sites.iter().enumerate() {
            if capacity[r] < procs {
                continue;
            }
            let ready = ready_on(r as u32);
            let mut pricer = Pricer::new(SiteState::of(sim)?, policy);
            let base = f64::from(procs) * dur as f64 / HOUR as f64;
            for q in pricer.query(procs, dur, Some(ready))? {
                cands.push((r as u32, q.start, q.start + dur, base + q.price, q.price));
            }
        }
        if cands.is_empty() {
            return Err(GreedyError::TooWide { task: t, procs });
        }
        answers += cands.len() as u64;
        let k = pick(&cands, alpha);
        let (r, start, end, _, price) = cands[k];
        sites[r as usize].add_reservation(0, start, end, procs)?;
        placed[ti] = r;
        finish[ti] = end;
        reservations.push(Reservation {
            task: t,
            resource: r,
            start,
            end,
            procs,
            price,
        });
    }
    let last = finish.iter().copied().fold(submit, Time::max);
    // The base charge summed in whole processor-seconds, so that with every price 0 the cost
    // is exactly the best-effort cost of eq. 16.
    let area: i128 = reservations
        .iter()
        .map(|r| i128::from(r.procs) * i128::from(r.end - r.start))
        .sum();
    let cost = area as f64 / HOUR as f64 + reservations.iter().map(|r| r.price).sum::<f64>();
    Ok(GreedyPlan {
        submit,
        makespan: last - submit,
        cost,
        reservations,
        answers,
    })
}

/// Figure 51's choice over `(resource, start, finish, cost, price)`; see the module
/// documentation.
fn pick(cands: &[(u32, Time, Time, f64, f64)], alpha: f64) -> usize {
    let (mut c_lo, mut c_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut m_lo, mut m_hi) = (Time::MAX, Time::MIN);
    for &(_, _, end, cost, _) in cands {
        c_lo = c_lo.min(cost);
        c_hi = c_hi.max(cost);
        m_lo = m_lo.min(end);
        m_hi = m_hi.max(end);
    }
    let norm = |x: f64, lo: f64, hi: f64| if hi > lo { (x - lo) / (hi - lo) } else { 0.0 };
    let score = |c: &(u32, Time, Time, f64, f64)| {
        alpha * norm(c.3, c_lo, c_hi) + (1.0 - alpha) * norm(c.2 as f64, m_lo as f64, m_hi as f64)
    };
    let mut best = 0;
    for i in 1..cands.len() {
        let (a, b) = (score(&cands[i]), score(&cands[best]));
        let key = |c: &(u32, Time, Time, f64, f64)| (c.2, c.0, c.1);
        if a < b || (a == b && key(&cands[i]) < key(&cands[best])) {
            best = i;
        }
    }
    best
}
