//! The best-effort baseline (spec §2.4): a workflow run just in time on sites' batch queues.
//! Each task is submitted as an ordinary job (exact run time) when its last parent finishes;
//! tasks that become ready together are submitted in HEFT priority order. With several sites,
//! a ready task goes to the site with the fewest tasks running or queued (ties: the lowest
//! index), and is submitted there when the data of every parent on another site has arrived
//! (spec §2.4 PROPOSAL: the site is chosen at the ready time; the submission waits for
//! `max_j(finish_j + transfer(j → site))`).
//!
//! The sites are batch simulators carrying the background trace, usually clones taken at the
//! submission time, so the application never disturbs the run it was sampled from. They are
//! advanced together in time order until the last task ends.

use gridsched_batch::{Job, SimError, Simulator, Time};

use crate::plan::App;
use crate::slot::HOUR;

/// The outcome of a best-effort run.
#[derive(Debug, Clone, PartialEq)]
pub struct BestEffort {
    /// Last task's end − submission time, seconds.
    pub makespan: Time,
    /// Eq. 16: `Σ procs × run time`, SU.
    pub cost: f64,
    /// Per task: (site, submitted, started, ended); dummies (no processors or no run time)
    /// have no site (`u32::MAX`) and start and end when released.
    pub tasks: Vec<(u32, Time, Time, Time)>,
}

/// Why a best-effort run failed.
#[derive(Debug, thiserror::Error)]
pub enum BestEffortError {
    #[error("task {task} needs {procs} processors; no site has that many")]
    TooWide { task: u32, procs: u32 },
    #[error("the sites' clocks differ ({0} and {1}); clone them at the submission time")]
    Clocks(Time, Time),
    #[error("site simulation: {0}")]
    Sim(#[from] SimError),
    #[error("the sites ran out of events with {0} tasks unfinished")]
    Stuck(usize),
}

/// Job ids of submitted tasks: high enough never to meet a trace's.
const ID_BASE: u64 = 1 << 48;

/// Runs `app` just in time on `sites` (all at the same time, the submission time).
pub fn run(app: &App, sites: &mut [Simulator]) -> Result<BestEffort, BestEffortError> {
    let submit = sites.first().map_or(0, Simulator::now);
    for s in sites.iter() {
        if s.now() != submit {
            return Err(BestEffortError::Clocks(submit, s.now()));
        }
    }
    let widest_site = sites
        .iter()
        .flat_map(|s| s.platform().machines().iter().map(|m| m.cpus))
        .max()
        .unwrap_or(0);
    let n = app.len();
    // Priority position of every task (ready tasks are submitted in this order).
    let mut pos = vec![0u32; n];
    for (k, &t) in app.order().iter().enumerate() {
        pos[t as usize] = k as u32;
        if app.procs(t) > widest_site && app.duration(t) > 0 {
            return Err(BestEffortError::TooWide {
                task: t,
                procs: app.procs(t),
            });
        }
    }
    let mut waiting_parents: Vec<u32> =
        (0..n as u32).map(|t| app.parents(t).len() as u32).collect();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in 0..n as u32 {
        for &(p, _) in app.parents(t) {
            children[p as usize].push(t);
        }
    }
    const NONE: u32 = u32::MAX;
    let mut site_of = vec![NONE; n];
    let mut rec = vec![(NONE, 0, 0, 0); n];
    let mut finish = vec![0 as Time; n];
    // Job index on its site → task.
    let mut job_task: Vec<std::collections::HashMap<usize, u32>> =
        vec![std::collections::HashMap::new(); sites.len()];
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&t| waiting_parents[t as usize] == 0)
        .collect();
    let mut done = 0usize;
    let mut completions = Vec::new();
    let mut last_end = submit;
    let multi = sites.len() > 1;
    loop {
        // Release every ready task at the current time, in priority order.
        while !ready.is_empty() {
            ready.sort_unstable_by_key(|&t| pos[t as usize]);
            let batch = std::mem::take(&mut ready);
            for t in batch {
                let ti = t as usize;
                let released = app
                    .parents(t)
                    .iter()
                    .map(|&(p, _)| finish[p as usize])
                    .max()
                    .unwrap_or(submit)
                    .max(submit);
                if app.procs(t) == 0 || app.duration(t) == 0 {
                    // A dummy: no job; it ends when released (its data goes nowhere).
                    finish[ti] = released;
                    rec[ti] = (NONE, released, released, released);
                    done += 1;
                    last_end = last_end.max(released);
                    for &c in &children[ti] {
                        waiting_parents[c as usize] -= 1;
                        if waiting_parents[c as usize] == 0 {
                            ready.push(c);
                        }
                    }
                    continue;
                }
                let r = if multi {
                    (0..sites.len())
                        .filter(|&r| sites[r].platform().machines()[0].cpus >= app.procs(t))
                        .min_by_key(|&r| (sites[r].running_count() + sites[r].queued().len(), r))
                        .expect("checked: some site is wide enough")
                } else {
                    0
                };
                let at = app
                    .parents(t)
                    .iter()
                    .map(|&(p, c)| {
                        let remote = site_of[p as usize] != NONE && site_of[p as usize] != r as u32;
                        finish[p as usize] + if remote { c } else { 0 }
                    })
                    .max()
                    .unwrap_or(submit)
                    .max(released)
                    .max(sites[r].now());
                let idx = sites[r].submit(Job::new(
                    ID_BASE + u64::from(t),
                    at,
                    app.procs(t),
                    app.duration(t),
                ))?;
                job_task[r].insert(idx, t);
                site_of[ti] = r as u32;
                rec[ti] = (r as u32, at, 0, 0);
            }
        }
        if done == n {
            break;
        }
        // Advance the site(s) with the earliest event.
        let Some(t) = sites.iter().filter_map(Simulator::next_event).min() else {
            return Err(BestEffortError::Stuck(n - done));
        };
        for (r, s) in sites.iter_mut().enumerate() {
            if s.next_event() == Some(t) {
                s.step();
                completions.clear();
                s.take_submitted_completions(&mut completions);
                for &idx in &completions {
                    let Some(&task) = job_task[r].get(&idx) else {
                        continue;
                    };
                    let record = s.record(idx);
                    let ti = task as usize;
                    finish[ti] = record.end.expect("completed");
                    rec[ti].2 = record.start.expect("completed");
                    rec[ti].3 = finish[ti];
                    last_end = last_end.max(finish[ti]);
                    done += 1;
                    for &c in &children[ti] {
                        waiting_parents[c as usize] -= 1;
                        if waiting_parents[c as usize] == 0 {
                            ready.push(c);
                        }
                    }
                }
            } else if s.now() < t {
                // Keep the clocks together, so a submission at `t` is never in a site's past.
                s.run_until(t);
            }
        }
    }
    Ok(BestEffort {
        makespan: last_end - submit,
        cost: app.best_effort_cost(),
        tasks: rec,
    })
}

/// SU of `procs` processors for `secs` seconds.
pub fn su(procs: u32, secs: Time) -> f64 {
    f64::from(procs) * secs as f64 / HOUR as f64
}
