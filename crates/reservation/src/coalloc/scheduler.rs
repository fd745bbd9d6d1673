//! The online co-allocation engine: arrivals, attempts, retries and holds.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use gridsched_geom::coalloc::{
    CoallocPeriod, CoallocPick, MAX_QUANTA, MAX_RANGE_TREE_SERVERS, MAX_SERVERS, QuantizedIndex,
};

use super::workload::CoallocRequest;

/// What happens to `s_r` when a request is put on hold (spec A28★, `hold_mode`). Either way
/// the request is submitted again at `q_r + H` and its retry counter restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HoldMode {
    /// `s_r := max(s_r, q_r + H)` with the new `q_r` (default).
    #[default]
    Latest,
    /// `s_r := q_r + (s⁰_r − q⁰_r)` with the new `q_r`: the request keeps its *original* lead
    /// over its submit time (the shifts of the retries before the hold are dropped, as the
    /// retry counter restarts). A lead that cannot fit in the live quanta would never be
    /// served in this mode, so [`CoallocScheduler::run`] refuses leads above `H − 2·l_q`.
    KeepLead,
}

/// Every parameter of the chapter-5 scheduler (integer seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoallocConfig {
    /// `N`.
    pub servers: u32,
    /// `l_q` (default 15 min, spec A27★).
    pub quantum: i64,
    /// `H` (default 50 h, spec A27★); `Q = ⌈H / l_q⌉`.
    pub horizon: i64,
    /// `Δt` (default 15 min).
    pub retry_step: i64,
    /// `maxRet` (default `Q / 2`).
    pub max_retries: Option<u32>,
    /// Which feasible periods to reserve (spec A32★).
    pub pick: CoallocPick,
    /// `s_r` after a hold (spec A28★).
    pub hold_mode: HoldMode,
    /// Idle fragments shorter than this are dropped (default 1 s: ch. 5 keeps fragments that
    /// could hold the shortest job, and the logs have 1-second jobs).
    pub min_fragment: i64,
    /// Round `l_r` up to `l_q` (spec A31, off).
    pub round_up_to_quantum: bool,
    /// Keep the index's range tree and answer the Phase-2 groups larger than this many periods
    /// from it ([`QuantizedIndex::with_range_tree`]): every choice is the same, a selection's
    /// cost is bounded by its width times a polylogarithmic factor instead of growing with the
    /// groups it reads, and every period update costs `O(log² V)` more. `None` (default): no
    /// range tree.
    pub range_tree_budget: Option<usize>,
}

impl Default for CoallocConfig {
    fn default() -> Self {
        CoallocConfig {
            servers: 1,
            quantum: 900,
            horizon: 50 * 3600,
            retry_step: 900,
            max_retries: None,
            pick: CoallocPick::Tree,
            hold_mode: HoldMode::Latest,
            min_fragment: 1,
            round_up_to_quantum: false,
            range_tree_budget: None,
        }
    }
}

impl CoallocConfig {
    /// `Q = ⌈H / l_q⌉` (`u32::MAX` when larger).
    pub fn quanta(&self) -> u32 {
        let q = self.quantum.max(1);
        let quanta = self.horizon / q + i64::from(self.horizon % q > 0);
        u32::try_from(quanta).unwrap_or(u32::MAX)
    }

    /// `maxRet`.
    pub fn max_ret(&self) -> u32 {
        self.max_retries.unwrap_or(self.quanta() / 2)
    }

    /// Rejects nonsensical settings, and sizes the index cannot hold
    /// ([`MAX_SERVERS`], [`MAX_RANGE_TREE_SERVERS`] with the range tree, [`MAX_QUANTA`]).
    pub fn validate(&self) -> Result<(), CoallocError> {
        let bad = |m: String| Err(CoallocError::Config(m));
        if self.servers == 0 {
            return bad("the number of servers must be positive".into());
        }
        if self.servers > MAX_SERVERS {
            return bad(format!(
                "{} servers: the index holds at most {MAX_SERVERS} (about 48 bytes each)",
                self.servers
            ));
        }
        if self.range_tree_budget.is_some() && self.servers > MAX_RANGE_TREE_SERVERS {
            return bad(format!(
                "{} servers: with the range tree the index holds at most {MAX_RANGE_TREE_SERVERS} (about 1 KB each)",
                self.servers
            ));
        }
        if self.quantum <= 0 {
            return bad(format!(
                "the quantum must be positive, got {} s",
                self.quantum
            ));
        }
        if self.horizon < self.quantum {
            return bad(format!(
                "the horizon ({} s) must be at least one quantum ({} s)",
                self.horizon, self.quantum
            ));
        }
        if self.quanta() > MAX_QUANTA {
            return bad(format!(
                "the horizon ({} s) holds {} quanta of {} s: at most {MAX_QUANTA} (every idle period is stored in each quantum it spans)",
                self.horizon,
                self.quanta(),
                self.quantum
            ));
        }
        if self.retry_step <= 0 {
            return bad(format!("Δt must be positive, got {} s", self.retry_step));
        }
        if self.min_fragment < 1 {
            return bad(format!(
                "min_fragment must be ≥ 1 s, got {}",
                self.min_fragment
            ));
        }
        Ok(())
    }
}

/// A configuration or input problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoallocError {
    #[error("{0}")]
    Config(String),
    #[error("request {index} (job {id}): {message}")]
    Request {
        index: usize,
        id: u64,
        message: String,
    },
}

/// How one request was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobOutcome {
    /// Job number.
    pub id: u64,
    /// Position in the request list.
    pub index: usize,
    /// Original `q_r`.
    pub submit: i64,
    /// Original `s_r`.
    pub requested_start: i64,
    /// `s'_r`: when the reservation starts.
    pub start: i64,
    /// `l_r` as scheduled.
    pub length: i64,
    /// `n_r`.
    pub servers: u32,
    /// `s_r` increments over the request's life, holds included (spec §2.19).
    pub retries: u32,
    /// Times the request was put on hold.
    pub holds: u32,
    /// Tree nodes visited over all attempts (spec A35).
    pub ops: u64,
    /// Attempts (searches) made.
    pub attempts: u32,
}

impl JobOutcome {
    /// `W_req = s'_r − s_r` (the thesis's `W_r`, from the original earliest start).
    pub fn wait_req(&self) -> i64 {
        self.start - self.requested_start
    }

    /// `W_sub = s'_r − q_r` (from the original submit time; spec A33).
    pub fn wait_sub(&self) -> i64 {
        self.start - self.submit
    }
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CoallocRun {
    /// One per scheduled request, in request order.
    pub outcomes: Vec<JobOutcome>,
    /// Requests asking for more servers than exist (never schedulable): positions, not run.
    pub too_large: Vec<usize>,
    /// Searches made.
    pub attempts: u64,
    /// Period insertions/removals in quantum lists.
    pub updates: u64,
    /// `(server, start, end, request position)` of every reservation, when recorded.
    pub assignments: Vec<(u32, i64, i64, usize)>,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    q: i64,
    s: i64,
    retries: u32,
    holds: u32,
    ops: u64,
    attempts: u32,
}

/// The online co-allocation scheduler.
#[derive(Debug, Clone)]
pub struct CoallocScheduler {
    config: CoallocConfig,
    index: QuantizedIndex,
    max_ret: u32,
    chosen: Vec<CoallocPeriod>,
}

impl CoallocScheduler {
    /// An empty system (every server idle from time 0 on).
    pub fn new(config: CoallocConfig) -> Result<Self, CoallocError> {
        config.validate()?;
        let index = QuantizedIndex::new(
            config.servers,
            config.quantum,
            config.quanta(),
            config.min_fragment,
            0,
        )
        .map_err(|e| CoallocError::Config(e.to_string()))?;
        let index = match config.range_tree_budget {
            Some(budget) => index.with_range_tree(budget),
            None => index,
        };
        Ok(CoallocScheduler {
            max_ret: config.max_ret(),
            config,
            index,
            chosen: Vec::new(),
        })
    }

    /// The index (e.g. for the read-only range search).
    pub fn index_mut(&mut self) -> &mut QuantizedIndex {
        &mut self.index
    }

    /// Checks the request list: submits non-decreasing and non-negative, `s_r ≥ q_r`,
    /// `l_r > 0`, `n_r > 0`.
    fn check(&self, requests: &[CoallocRequest]) -> Result<(), CoallocError> {
        let max_lead = self.config.horizon - 2 * self.config.quantum;
        let mut prev = 0i64;
        for (index, r) in requests.iter().enumerate() {
            let err = |message: String| CoallocError::Request {
                index,
                id: r.id,
                message,
            };
            if r.submit < prev {
                return Err(err(format!(
                    "submit time {} is before the previous request's {prev} (requests must be sorted)",
                    r.submit
                )));
            }
            prev = r.submit;
            if r.start < r.submit {
                return Err(err(format!(
                    "earliest start {} is before the submit time {}",
                    r.start, r.submit
                )));
            }
            if self.config.hold_mode == HoldMode::KeepLead && r.start - r.submit > max_lead {
                // Every hold would move the start out of reach again: it could never be served.
                return Err(err(format!(
                    "earliest start {} is {} s after the submit time, beyond the {max_lead} s \
                     a request can lead by with hold_mode = keep-lead (H - 2 l_q)",
                    r.start,
                    r.start - r.submit
                )));
            }
            if r.length <= 0 {
                return Err(err(format!("length must be positive, got {}", r.length)));
            }
            if r.servers == 0 {
                return Err(err("a request needs at least one server".into()));
            }
        }
        Ok(())
    }

    /// Serves `requests` (sorted by submit time) online and returns every outcome.
    /// `record` keeps every reservation's servers for [`audit`].
    pub fn run(
        mut self,
        requests: &[CoallocRequest],
        record: bool,
    ) -> Result<CoallocRun, CoallocError> {
        self.check(requests)?;
        let h = self.config.horizon;
        let mut run = CoallocRun::default();
        // The outcomes in the order requests are scheduled, sorted into request order at the
        // end: a slot per request (`Option`s) and then a collected copy held both at once,
        // 150 bytes a request at the end of a log of millions of jobs.
        let mut outcomes: Vec<JobOutcome> = Vec::with_capacity(requests.len());
        let mut state: Vec<Pending> = Vec::with_capacity(requests.len());
        // Held requests: (time, sequence, position). At equal times held requests go first.
        let mut held: BinaryHeap<Reverse<(i64, u64, usize)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut next = 0usize;
        loop {
            gridsched_sim::cancel::checkpoint();
            let arrival = requests.get(next).map(|r| r.submit);
            let take_held = match (held.peek(), arrival) {
                (Some(Reverse((t, _, _))), Some(a)) => *t <= a,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (t, i) = if take_held {
                let Reverse((t, _, i)) = held.pop().expect("peeked");
                (t, i)
            } else {
                let r = &requests[next];
                let i = next;
                next += 1;
                state.push(Pending {
                    q: r.submit,
                    s: r.start,
                    retries: 0,
                    holds: 0,
                    ops: 0,
                    attempts: 0,
                });
                if r.servers > self.config.servers {
                    run.too_large.push(i);
                    continue;
                }
                (r.submit, i)
            };
            let r = &requests[i];
            let length = if self.config.round_up_to_quantum {
                r.length.max(self.config.quantum)
            } else {
                r.length
            };
            self.index.advance_to(t);
            let p = &mut state[i];
            let mut a = 0u32;
            loop {
                self.chosen.clear();
                let attempt =
                    self.index
                        .select(p.s, length, r.servers, self.config.pick, &mut self.chosen);
                p.ops += attempt.stats.visits;
                p.attempts += 1;
                run.attempts += 1;
                if attempt.stats.success {
                    self.index
                        .reserve(&self.chosen, p.s, length)
                        .expect("a selected period contains the window");
                    if record {
                        for c in &self.chosen {
                            run.assignments.push((c.server, p.s, p.s + length, i));
                        }
                    }
                    outcomes.push(JobOutcome {
                        id: r.id,
                        index: i,
                        submit: r.submit,
                        requested_start: r.start,
                        start: p.s,
                        length,
                        servers: r.servers,
                        retries: p.retries,
                        holds: p.holds,
                        ops: p.ops,
                        attempts: p.attempts,
                    });
                    break;
                }
                // Beyond the live quanta, further retries only move `s_r` further out: hold at
                // once (otherwise a retry step above 2·l_q could outrun the horizon forever).
                if a < self.max_ret && !attempt.beyond_horizon {
                    a += 1;
                    p.retries += 1;
                    p.s += self.config.retry_step;
                } else {
                    p.holds += 1;
                    p.q += h;
                    p.s = match self.config.hold_mode {
                        HoldMode::Latest => p.s.max(p.q),
                        HoldMode::KeepLead => p.q + (r.start - r.submit),
                    };
                    held.push(Reverse((p.q, seq, i)));
                    seq += 1;
                    break;
                }
            }
        }
        drop(state);
        // Each request is scheduled once: the indices are distinct, so the order is total.
        outcomes.sort_unstable_by_key(|o| o.index);
        run.outcomes = outcomes;
        run.updates = self.index.updates();
        Ok(run)
    }
}

/// Checks a recorded run: every reservation has `n_r` distinct servers, starts at or after its
/// earliest start (itself at or after the submit), and no server holds two reservations at once.
pub fn audit(requests: &[CoallocRequest], run: &CoallocRun) -> Result<(), String> {
    let mut per_job = vec![0u32; requests.len()];
    for &(_, s, e, i) in &run.assignments {
        per_job[i] += 1;
        let r = &requests[i];
        if s < r.start || r.start < r.submit || e - s < r.length {
            return Err(format!(
                "job {}: reservation [{s}, {e}) breaks its window",
                r.id
            ));
        }
    }
    for o in &run.outcomes {
        if per_job[o.index] != o.servers {
            return Err(format!(
                "job {}: {} servers reserved, {} asked",
                o.id, per_job[o.index], o.servers
            ));
        }
    }
    let mut by_server = run.assignments.clone();
    by_server.sort_unstable();
    for w in by_server.windows(2) {
        if w[0].0 == w[1].0 && w[1].1 < w[0].2 {
            return Err(format!(
                "server {} double-booked: [{}, {}) (job {}) and [{}, {}) (job {})",
                w[0].0, w[0].1, w[0].2, requests[w[0].3].id, w[1].1, w[1].2, requests[w[1].3].id
            ));
        }
    }
    Ok(())
}
