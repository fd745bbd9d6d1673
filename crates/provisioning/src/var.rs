//! Virtual advance reservation, chapter 6 (spec §2.12–2.13, §4.2, §4.4): a reservation made
//! without the site's help, by submitting an ordinary best-effort job early enough that it is
//! probably running by the reservation start, padded so that it still runs to the reservation
//! end; and the combined scheme that also holds an adaptively priced reservation (Figure 45).
//!
//! # Figure 33 and its two readings
//!
//! VAR asks a queue-wait predictor (QBETS, eq. 21: [`StartPredictor`]) at every candidate
//! submission time `t ∈ {now, now + inc, …} ∩ [now, S)` how likely a job submitted at `t` is to
//! start by the reservation start `S`, and submits at the most likely `t` ([`plan_var`]). The
//! pseudo-code as printed computes the padded walltime once, `wallTime + (S − now)`, and asks
//! about the absolute deadline `S` every time; the thesis's own worked example (Figure 36: a
//! 1 h request for 240 min ahead is submitted at 110 min with a walltime of 60 + (240 − 110) =
//! 190 min) instead pads by `S − t` for the chosen `t`. [`VarReading::PerCandidate`] (the
//! default, the spec's PROPOSAL in §2.12) queries at `t` with walltime `wallTime + (S − t)` and
//! relative deadline `S − t`, and returns `runTime = wallTime + (S − submit)`.
//! [`VarReading::AsPrinted`] keeps Figure 33 literally: walltime `wallTime + (S − now)` for every
//! candidate and as the run time, deadline `S` (which, for a job submitted at `t`, is `S − t`
//! from its submission). With a predictor that does not change while the plan is made (the
//! thesis's assumption, §4.4), that walltime never shrinks, so the printed reading can only
//! trade a shorter deadline for nothing and picks `now` whenever the probability falls with
//! the deadline; the padding it returns is never cut either.
//!
//! Both keep the first strict maximum, so ties go to the earliest candidate (the printed
//! `if currProb > maxProb`). If every candidate has probability 0 the plan is to submit `now`
//! with probability 0 (the printed `submitTime = 0`, read as "now"); the caller decides whether
//! such a plan is worth submitting.
//!
//! # The QBETS surrogate
//!
//! The live QBETS service of the thesis cannot be replayed (spec §4.2). [`WaitHistory`] is the
//! stand-in the spec proposes: the empirical fraction of the simulated site's own recent jobs
//! of the same size and length that waited no longer than the deadline. See its documentation
//! for the classes, the window, the widening of thin classes and why it never looks at a job
//! that had not started yet.
//!
//! # Costs
//!
//! All costs are in SU (processor-hours), like the adaptive price `f` of
//! [`crate::pricing`]. A VAR job that starts at `T2 ≤ S` idles until `S`: its allocation cost
//! is `(S − T2)·n` ([`var_cost`]); one that has not started by `S` failed and costs nothing.
//! Chapter 6 reports costs normalized by the reservation's own area `n·D` ([`normalized`]), for
//! which VAR has the node-free bound `(S − T)/D` of eq. 22 ([`var_bound`]). [`combine`] is
//! Figure 45 with the penalty model of eq. 23.

use std::collections::BTreeMap;

use gridsched_batch::Time;

use crate::slot::HOUR;

/// Figure 33's `Increment`: 30 seconds between candidate submission times.
pub const DEFAULT_INCREMENT: Time = 30;

/// More candidate submission times than this is refused ([`VarError::TooManyCandidates`]): the
/// thesis plans at most 8 h ahead (960 candidates at 30 s); a bad `start` or `increment` must
/// not turn into an endless loop.
pub const MAX_CANDIDATES: u64 = 1 << 24;

/// The trailing window of [`WaitHistory`]: 7 days, the spec's example (§4.2). QBETS's
/// percentiles are "relatively stable often over many days" (§4.4).
pub const DEFAULT_WINDOW: Time = 7 * 24 * HOUR;

/// Fewer samples than this in a class and [`WaitHistory`] widens it.
pub const DEFAULT_MIN_SAMPLES: usize = 10;

/// The penalty factor `p` of Chapter 6's combined-scheme experiments (eq. 23): cancelling an
/// adaptively priced reservation costs `p·f`.
pub const DEFAULT_PENALTY: f64 = 0.1;

/// QBETS's question (eq. 21) for one machine and queue, asked at the instant a job would be
/// submitted: the probability that a job of `nodes` processors requesting `walltime` seconds,
/// submitted at that instant, starts within `deadline` seconds of it.
///
/// A predictor answers as of one time; [`plan_var`] asks about later submission instants as if
/// the answers will still hold then (the thesis's assumption, spec §4.4). Answers must lie in
/// `[0, 1]`. Closures `Fn(nodes, walltime, deadline) -> f64` are predictors.
pub trait StartPredictor {
    /// `P(start − submit ≤ deadline)` for a job of `nodes` processors and requested `walltime`.
    fn probability(&self, nodes: u32, walltime: Time, deadline: Time) -> f64;
}

impl<F: Fn(u32, Time, Time) -> f64> StartPredictor for F {
    fn probability(&self, nodes: u32, walltime: Time, deadline: Time) -> f64 {
        self(nodes, walltime, deadline)
    }
}

/// How Figure 33 pads the walltime and sets the deadline; see the module documentation and
/// spec §2.12 \[AMBIG\].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VarReading {
    /// At candidate `t`: walltime `wallTime + (S − t)`, deadline `S − t`; the run time is
    /// `wallTime + (S − submit)` (spec §2.12 PROPOSAL; matches the thesis's Figure 36 example).
    #[default]
    PerCandidate,
    /// Figure 33 as printed: walltime `wallTime + (S − now)` for every candidate and as the run
    /// time; deadline the absolute `S`, i.e. `S − t` for a job submitted at `t`.
    AsPrinted,
}

/// What Figure 33 decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VarPlan {
    /// `T1`, when to submit the job (in `[now, S)`).
    pub submit: Time,
    /// The walltime to request: the reservation's duration plus the padding to `S`.
    pub run_time: Time,
    /// The predictor's probability that the job starts by `S`, at `submit`.
    pub probability: f64,
}

/// Why a VAR plan, a wait record or a cost cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VarError {
    #[error("the reservation start {start} is not after now ({now})")]
    NotInFuture { now: Time, start: Time },
    #[error("the increment between submission times must be positive, not {0}")]
    BadIncrement(Time),
    #[error("a job needs at least one node")]
    NoNodes,
    #[error("the walltime must be positive, not {0}")]
    BadWalltime(Time),
    #[error("the reservation duration must be positive, not {0}")]
    BadDuration(Time),
    #[error("a wait cannot be negative ({0})")]
    NegativeWait(Time),
    #[error("{count} candidate submission times (more than {max})")]
    TooManyCandidates { count: u64, max: u64 },
    #[error("the predictor answered {p} for a submission at {at} (not a probability)")]
    BadProbability { at: Time, p: f64 },
    #[error("the adaptive price must be a non-negative number of SU, not {0}")]
    BadPrice(f64),
    #[error("the penalty factor must be a finite non-negative number, not {0}")]
    BadPenalty(f64),
    #[error("the VAR job started at {started}, before its submission at {submitted}")]
    StartedBeforeSubmit { submitted: Time, started: Time },
    #[error("time arithmetic overflows")]
    Overflow,
}

/// Figure 33 with the default reading ([`VarReading::PerCandidate`]): when to submit a job of
/// `nodes` processors that must run `walltime` seconds from `start`, asking `pred` every
/// `increment` seconds from `now` (use [`DEFAULT_INCREMENT`]).
pub fn plan_var<P: StartPredictor + ?Sized>(
    pred: &P,
    now: Time,
    nodes: u32,
    walltime: Time,
    start: Time,
    increment: Time,
) -> Result<VarPlan, VarError> {
    plan_var_reading(
        pred,
        VarReading::PerCandidate,
        now,
        nodes,
        walltime,
        start,
        increment,
    )
}

/// Figure 33 under either reading; see [`plan_var`] and the module documentation.
pub fn plan_var_reading<P: StartPredictor + ?Sized>(
    pred: &P,
    reading: VarReading,
    now: Time,
    nodes: u32,
    walltime: Time,
    start: Time,
    increment: Time,
) -> Result<VarPlan, VarError> {
    if nodes == 0 {
        return Err(VarError::NoNodes);
    }
    if walltime <= 0 {
        return Err(VarError::BadWalltime(walltime));
    }
    if increment <= 0 {
        return Err(VarError::BadIncrement(increment));
    }
    if start <= now {
        return Err(VarError::NotInFuture { now, start });
    }
    let ahead = start.checked_sub(now).ok_or(VarError::Overflow)?;
    // Candidates now, now + inc, … while < start: ceil(ahead / inc) of them.
    let count = (ahead as u64).div_ceil(increment as u64);
    if count > MAX_CANDIDATES {
        return Err(VarError::TooManyCandidates {
            count,
            max: MAX_CANDIDATES,
        });
    }
    // The padded walltime of a job submitted `now`, the longest any candidate asks for: if it
    // fits in a Time, every other candidate's does.
    let printed_wall = walltime.checked_add(ahead).ok_or(VarError::Overflow)?;
    let mut best: Option<(Time, f64)> = None;
    let mut t = now;
    while t < start {
        let deadline = start - t;
        let wall = match reading {
            VarReading::PerCandidate => walltime + deadline,
            VarReading::AsPrinted => printed_wall,
        };
        let p = pred.probability(nodes, wall, deadline);
        if !(0.0..=1.0).contains(&p) {
            return Err(VarError::BadProbability { at: t, p });
        }
        if best.is_none_or(|(_, q)| p > q) {
            best = Some((t, p));
        }
        match t.checked_add(increment) {
            Some(next) => t = next,
            None => break,
        }
    }
    // `start > now`, so `now` itself was a candidate.
    let (submit, probability) = best.ok_or(VarError::NotInFuture { now, start })?;
    let run_time = match reading {
        VarReading::PerCandidate => walltime + (start - submit),
        VarReading::AsPrinted => printed_wall,
    };
    Ok(VarPlan {
        submit,
        run_time,
        probability,
    })
}

/// One finished wait: a job submitted at `submit` with `nodes` processors and a requested
/// `walltime` that started `wait` seconds later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitRecord {
    pub submit: Time,
    pub nodes: u32,
    pub walltime: Time,
    pub wait: Time,
}

impl WaitRecord {
    /// When the job started, `submit + wait`: from then on its wait is known.
    pub fn started(&self) -> Time {
        self.submit + self.wait
    }
}

/// The power-of-two bucket of a positive quantity, `⌊log₂ x⌋` (`x < 1` counts as 1).
fn bucket(x: i64) -> u32 {
    (x.max(1) as u64).ilog2()
}

/// A QBETS surrogate (spec §4.2, §4.4): queue waits observed on the simulated site itself.
///
/// The live QBETS service of the thesis fits quantile bounds to a machine's wait history with
/// change-point detection; what VAR needs from it is only eq. 21, a start probability per job
/// shape. This surrogate answers it with the plain empirical distribution, as of a time `now`:
///
/// - **Usable samples.** A record counts at `now` only if its job was submitted within the
///   trailing [`window`](Self::window) (`now − window ≤ submit`) and had *started* by `now`
///   (`submit + wait ≤ now`): a wait is not known before the job starts, and a predictor
///   queried at `now` must not know the future. Jobs still waiting at `now` are invisible to
///   it (they are recorded only when they start), so under rising load the estimate is
///   optimistic, as a wait predictor fed by completed waits is.
/// - **Classes.** Node count and requested walltime are bucketed by powers of two,
///   `⌊log₂ nodes⌋ × ⌊log₂ walltime_seconds⌋`: 32 and 64 nodes are different classes, as are
///   1, 2, 4 and 8 h requests. Power-of-two node counts dominate real logs and backfilling
///   favours short requests, so these are the two dimensions along which waits differ most;
///   the walltime dimension is what lets a later submission, with its shorter padded
///   walltime, be more likely to start in time (Figure 36 left).
/// - **Widening.** A class with fewer than [`min_samples`](Self::min_samples) usable records is
///   widened to its node bucket (every walltime), and that, if still too thin, to every
///   usable record in the window; the widest level is used even when it is thinner than
///   `min_samples`. An empty level is never used (a threshold of 0 counts as 1). With no
///   usable record at all the probability is 0: nothing is known to start.
///
/// The level chosen depends on the job shape and `now` only, never on the deadline, so the
/// probability is non-decreasing in the deadline. Records are kept sorted by submission time:
/// a query finds the window by binary search and scans it
/// ([`probability_at`](Self::probability_at)); [`at`](Self::at) freezes the classes at one
/// time into a [`WaitSnapshot`] whose queries are binary searches, for the many queries of
/// one [`plan_var`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitHistory {
    /// The trailing window, seconds (default [`DEFAULT_WINDOW`]).
    pub window: Time,
    /// The fewest samples a class needs before it is used (default [`DEFAULT_MIN_SAMPLES`]).
    pub min_samples: usize,
    /// Sorted by `submit` (equal submissions in recording order).
    records: Vec<WaitRecord>,
}

impl Default for WaitHistory {
    fn default() -> Self {
        WaitHistory::new()
    }
}

/// Usable-sample tallies at the three widening levels: (samples, within the deadline).
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    class: (usize, usize),
    node: (usize, usize),
    all: (usize, usize),
}

impl WaitHistory {
    /// An empty history with the default window and class threshold.
    pub fn new() -> Self {
        WaitHistory {
            window: DEFAULT_WINDOW,
            min_samples: DEFAULT_MIN_SAMPLES,
            records: Vec::new(),
        }
    }

    /// An empty history with its own window and class threshold.
    pub fn with(window: Time, min_samples: usize) -> Self {
        WaitHistory {
            window,
            min_samples,
            records: Vec::new(),
        }
    }

    /// Records that a job submitted at `submit` with `nodes` processors and requested
    /// `walltime` waited `wait` seconds (call it when the job starts; any order is accepted).
    pub fn record(
        &mut self,
        submit: Time,
        nodes: u32,
        walltime: Time,
        wait: Time,
    ) -> Result<(), VarError> {
        if nodes == 0 {
            return Err(VarError::NoNodes);
        }
        if walltime <= 0 {
            return Err(VarError::BadWalltime(walltime));
        }
        if wait < 0 {
            return Err(VarError::NegativeWait(wait));
        }
        submit.checked_add(wait).ok_or(VarError::Overflow)?;
        let r = WaitRecord {
            submit,
            nodes,
            walltime,
            wait,
        };
        // Jobs start roughly in submission order, so this is usually a push.
        let at = self.records.partition_point(|x| x.submit <= submit);
        self.records.insert(at, r);
        Ok(())
    }

    /// Every record, by submission time.
    pub fn records(&self) -> &[WaitRecord] {
        &self.records
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records usable at `now`: in the window and started by `now`.
    pub fn usable(&self, now: Time) -> impl Iterator<Item = &WaitRecord> + '_ {
        let from = now.saturating_sub(self.window);
        let lo = self.records.partition_point(|r| r.submit < from);
        let hi = self.records.partition_point(|r| r.submit <= now);
        self.records[lo..hi.max(lo)]
            .iter()
            .filter(move |r| r.started() <= now)
    }

    /// Eq. 21 as of `now` by one scan of the window.
    pub fn probability_at(&self, now: Time, nodes: u32, walltime: Time, deadline: Time) -> f64 {
        let (nb, wb) = (bucket(nodes.into()), bucket(walltime));
        let mut t = Tally::default();
        for r in self.usable(now) {
            let hit = usize::from(r.wait <= deadline);
            t.all.0 += 1;
            t.all.1 += hit;
            if bucket(r.nodes.into()) == nb {
                t.node.0 += 1;
                t.node.1 += hit;
                if bucket(r.walltime) == wb {
                    t.class.0 += 1;
                    t.class.1 += hit;
                }
            }
        }
        let enough = self.min_samples.max(1);
        let (n, k) = if t.class.0 >= enough {
            t.class
        } else if t.node.0 >= enough {
            t.node
        } else {
            t.all
        };
        if n == 0 { 0.0 } else { k as f64 / n as f64 }
    }

    /// The predictor as of `now`: the usable records sorted into classes once.
    pub fn at(&self, now: Time) -> WaitSnapshot {
        let mut class: BTreeMap<(u32, u32), Vec<Time>> = BTreeMap::new();
        let mut node: BTreeMap<u32, Vec<Time>> = BTreeMap::new();
        let mut all = Vec::new();
        for r in self.usable(now) {
            let nb = bucket(r.nodes.into());
            class
                .entry((nb, bucket(r.walltime)))
                .or_default()
                .push(r.wait);
            node.entry(nb).or_default().push(r.wait);
            all.push(r.wait);
        }
        for v in class.values_mut().chain(node.values_mut()) {
            v.sort_unstable();
        }
        all.sort_unstable();
        WaitSnapshot {
            now,
            min_samples: self.min_samples,
            class,
            node,
            all,
        }
    }
}

/// A [`WaitHistory`] frozen at one time: the sorted waits of every class, node bucket and the
/// whole window. Answers exactly as [`WaitHistory::probability_at`] at that time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitSnapshot {
    now: Time,
    min_samples: usize,
    class: BTreeMap<(u32, u32), Vec<Time>>,
    node: BTreeMap<u32, Vec<Time>>,
    all: Vec<Time>,
}

impl WaitSnapshot {
    /// The time the snapshot was taken.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Usable samples in the window.
    pub fn samples(&self) -> usize {
        self.all.len()
    }

    /// The sorted waits a job of this shape is judged by (after widening).
    fn waits(&self, nodes: u32, walltime: Time) -> &[Time] {
        let nb = bucket(nodes.into());
        let enough = |v: &&Vec<Time>| v.len() >= self.min_samples.max(1);
        self.class
            .get(&(nb, bucket(walltime)))
            .filter(enough)
            .or_else(|| self.node.get(&nb).filter(enough))
            .unwrap_or(&self.all)
    }
}

impl StartPredictor for WaitSnapshot {
    fn probability(&self, nodes: u32, walltime: Time, deadline: Time) -> f64 {
        let w = self.waits(nodes, walltime);
        if w.is_empty() {
            return 0.0;
        }
        w.partition_point(|&x| x <= deadline) as f64 / w.len() as f64
    }
}

/// How a VAR job turned out: submitted at `T1`, started at `T2` (`None`: not by the
/// reservation start, or never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarOutcome {
    pub submitted: Time,
    pub started: Option<Time>,
}

impl VarOutcome {
    /// VAR succeeds iff the job starts by the reservation start: `T2 ≤ S`.
    pub fn succeeded(&self, start: Time) -> bool {
        self.started.is_some_and(|t2| t2 <= start)
    }
}

/// VAR's allocation cost in SU (spec §2.12): a job started at `started ≤ start` idles
/// `(S − T2)·n` processor-seconds before the reservation begins. `None` when it started after
/// `start`: VAR failed, and a failure has no allocation cost.
pub fn var_cost(nodes: u32, start: Time, started: Time) -> Option<f64> {
    (started <= start).then(|| (start - started) as f64 * f64::from(nodes) / HOUR as f64)
}

/// Chapter 6's normalized allocation cost: `cost_su / (n × D_hours)`, the cost per SU of the
/// reservation itself. For VAR it is `(S − T2)/D`.
pub fn normalized(cost_su: f64, nodes: u32, duration: Time) -> Result<f64, VarError> {
    if nodes == 0 {
        return Err(VarError::NoNodes);
    }
    if duration <= 0 {
        return Err(VarError::BadDuration(duration));
    }
    Ok(cost_su / (f64::from(nodes) * duration as f64 / HOUR as f64))
}

/// Eq. 22: VAR's normalized cost is at most `(S − T)/D` whatever the node count, because the
/// job cannot start before it is planned (`T ≤ T1 ≤ T2`).
pub fn var_bound(now: Time, start: Time, duration: Time) -> Result<f64, VarError> {
    if duration <= 0 {
        return Err(VarError::BadDuration(duration));
    }
    if start < now {
        return Err(VarError::NotInFuture { now, start });
    }
    Ok((start - now) as f64 / duration as f64)
}

/// Which reservation Figure 45 ends up using.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Used {
    /// The adaptively priced reservation: it was free (`f = 0`, VAR never submitted), VAR did
    /// not start by `s`, or VAR plus the cancellation penalty would cost more.
    Adaptive,
    /// The running VAR job; the adaptive reservation is cancelled for `p·f`.
    Var,
    /// The adaptive reservation was infeasible (`f = ∞`) and the VAR job started in time.
    VarOnly,
    /// Neither: the adaptive reservation was infeasible and VAR did not start by `s`.
    Failed,
}

/// What Figure 45 did for one reservation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Combined {
    pub used: Used,
    /// The adaptive reservation was feasible (`f < ∞`).
    pub adaptive_ok: bool,
    /// The scheme submitted the VAR job (it does not when `f = 0`).
    pub var_submitted: bool,
    /// The VAR job started by `s`, as recorded (in the replay of Chapter 6's data every VAR
    /// job was run, even where the combined scheme would not have submitted it).
    pub var_ok: bool,
    /// Allocation cost in SU (§2.13): `(s − t2)·n + p·f` for [`Used::Var`], `f` for
    /// [`Used::Adaptive`], `(s − t2)·n` for [`Used::VarOnly`]; `None` on failure.
    pub cost: Option<f64>,
}

impl Combined {
    /// The combined scheme fails only if both mechanisms do.
    pub fn succeeded(&self) -> bool {
        self.used != Used::Failed
    }
}

/// Figure 45 with the cost accounting of spec §2.13, for a reservation of `nodes` processors
/// from `start`: `price` is the adaptive price `f` in SU (`None`, or `+∞`, when the
/// reservation is infeasible), `penalty` the cancellation factor `p` ([`DEFAULT_PENALTY`]),
/// `var` the VAR job's outcome (a start after `start` is a VAR failure).
///
/// A free adaptive reservation is used at once: VAR cannot cost less than nothing. Otherwise
/// the VAR job runs alongside; if it has started by `s`, it is kept iff its idle padding plus
/// the penalty for cancelling the adaptive reservation does not exceed `f` (ties keep VAR, as
/// the printed `≤`). The cost therefore never exceeds `f` when the adaptive reservation is
/// feasible, and the scheme fails only when both do.
pub fn combine(
    price: Option<f64>,
    penalty: f64,
    nodes: u32,
    start: Time,
    var: VarOutcome,
) -> Result<Combined, VarError> {
    if nodes == 0 {
        return Err(VarError::NoNodes);
    }
    if !penalty.is_finite() || penalty < 0.0 {
        return Err(VarError::BadPenalty(penalty));
    }
    let price = match price {
        Some(f) if f.is_nan() || f < 0.0 => return Err(VarError::BadPrice(f)),
        Some(f) if f == f64::INFINITY => None,
        other => other,
    };
    if let Some(t2) = var.started.filter(|&t2| t2 < var.submitted) {
        return Err(VarError::StartedBeforeSubmit {
            submitted: var.submitted,
            started: t2,
        });
    }
    let var_ok = var.succeeded(start);
    // Some exactly when VAR succeeded (started by `start`).
    let padding = var.started.and_then(|t2| var_cost(nodes, start, t2));
    let adaptive_ok = price.is_some();
    let (used, var_submitted, cost) = match (price, padding) {
        (Some(0.0), _) => (Used::Adaptive, false, Some(0.0)),
        (None, Some(c)) => (Used::VarOnly, true, Some(c)),
        (None, None) => (Used::Failed, true, None),
        (Some(f), None) => (Used::Adaptive, true, Some(f)),
        (Some(f), Some(c)) => {
            let with_var = c + penalty * f;
            if with_var <= f {
                (Used::Var, true, Some(with_var))
            } else {
                (Used::Adaptive, true, Some(f))
            }
        }
    };
    Ok(Combined {
        used,
        adaptive_ok,
        var_submitted,
        var_ok,
        cost,
    })
}
