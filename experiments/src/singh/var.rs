//! `singh-var`: chapter 6's experiments (Figs. 36, 38–41, 43, 44, 46–49), virtual advance
//! reservation (VAR) against adaptive pricing (AR) and their combination (Figure 45).
//!
//! The thesis measured a live site (NCSA's TeraGrid cluster, its QBETS service and `qstat -a`)
//! once a day for 30 days; that cannot be replayed (spec §4.2). The substitute is the spec's
//! proposal: a Parallel Workloads Archive log on a cluster at high load (`site`, default
//! `CTC/430/0.3`: the cleaned CTC-SP2 log on the thesis's 430 CTC processors with Sabin et
//! al.'s load copies kept with probability 0.3, offered load about 0.89 in the week before
//! each sampled day), under conservative backfilling planned with the *requested* run times
//! (jobs end early and the schedule compresses, as on a production site).
//!
//! **One replication is one day.** Day `k` (the replication index) is the instant
//! `T = first submission + warmup_d days + k · spacing_h hours` of the log. At `T`:
//!
//! - **AR**: Figure 22 on the site's state at `T` (running jobs to their requested ends, the
//!   queue in order, conservative backfilling): the fixed price `f` (SU) of `nodes` processors
//!   over `[S, S + D)`, `S = T + start_h`, `D = duration_h`; infeasible (a conflict with running
//!   jobs) is an AR failure. Normalized cost `f / (n · D)`.
//! - **VAR**: the QBETS surrogate is [`WaitHistory`] over the site's own jobs that were
//!   submitted in the `window_d` days before `T` and had started by `T` (requested time as the
//!   walltime, classes by powers of two, widened below `min_samples`). Figure 33
//!   ([`plan_var_reading`], `reading`, 30 s increments) gives the submission time `T1` and the
//!   walltime `D + (S − T1)`. A clone of the site at `T` receives the job (submitted at `T1`,
//!   `nodes` processors, requested = actual run = that walltime: the scheduler plans with the
//!   request, and what the job does after it starts does not change when it starts) and is
//!   simulated to `S`; `T2` is its start. Success iff `T2 ≤ S`; cost `(S − T2)·n`, normalized
//!   `(S − T2)/D`; bound `(S − T)/D` (eq. 22).
//! - **Combined**: [`combine`] (Figure 45, penalty `p`) replayed on the recorded `(f, T1, T2)`
//!   (spec §6 singh-fig-46).
//!
//! The background is never disturbed: every measurement runs on its own clone of the site at
//! `T`. A day is simulated once per process and shared by every reservation type, and every
//! reservation type once per day and shared by the series (`scheme`) that read it.
//!
//! **Metrics.** A metric that is undefined on a day (a cost when the scheme failed, a paired
//! difference when one side failed, a conditional rate outside its condition) is *not emitted*
//! for that replication, so its cell is the mean over the days where it is defined (the
//! harness summarises whatever replications report a metric; the summary's `runs` column says
//! how many). With `ac_over = "all_days"` a failure instead counts as cost 0 (spec §2.12: "a
//! failure has no allocation cost").
//!
//! - `ac`: normalized allocation cost of the series' `scheme` (`vr`, `ar`, `comb`), over the
//!   days it succeeded (default `ac_over = "successes"`, spec §5 \[AMBIG\]).
//! - `success_pct`: 100 if the scheme succeeded, else 0 (its mean is the success rate).
//! - `cheaper_pct`: on days both VAR and AR succeed, 100 if the scheme is strictly cheaper than
//!   the other (`comb`: than both), else 0; `tie_pct`: 100 if VAR and AR cost the same.
//! - Paired differences of normalized cost on the same day: `var_minus_ar` (both succeed),
//!   `comb_minus_ar` (AR succeeds), `comb_minus_var` (VAR succeeds); of success:
//!   `ar_minus_var_success_pct`, `comb_minus_max_success_pct` (combined − the better of the
//!   two).
//! - Against the same reservation with `ref_nodes` (default 32) processors on the same day:
//!   `ar_vs_ref_nodes` (both AR succeed), `var_vs_ref_nodes` (both VAR succeed); 0 when
//!   `nodes == ref_nodes`.
//! - Failure correlation (Fig. 43): `var_fail_if_ar_fail_pct` (100 · VAR failed, on days AR
//!   failed), `var_fail_if_ar_ok_pct` (on days AR succeeded).
//! - VAR internals: `bound` ((S − T)/D), `bound_slack` (bound − VAR cost, on VAR successes),
//!   `probability` (the surrogate's maximum), `t1_minus_t_h`, `t2_minus_t1_h` (on VAR starts by
//!   S), `walltime_h`; `var_used_pct` (combined kept the VAR job), `ar_zero_pct` (f = 0, on AR
//!   successes).
//! - The site: `load` (offered load of the jobs submitted in the window before `T`), `queue`
//!   (queued jobs at `T`), `history` (usable wait records at `T`).
//!
//! **Figure 36** is the curve axis (`evaluation = "curve"`, `x` = submission time in minutes
//! after `T`): `p` is the surrogate's probability at `x` (the reading's walltime and deadline),
//! with `submit_min`, `run_time_min`, `max_p` and `run_time_err_min` (the plan's run time −
//! (D + S − submit), minutes) repeated at every `x`.

use std::sync::Arc;

use gridsched_batch::{Estimates, Job, JobPhase, Simulator, Time};
use gridsched_provisioning::var::{
    DEFAULT_PENALTY, StartPredictor, Used, VarOutcome, VarPlan, VarReading, WaitHistory,
    WaitSnapshot, combine, normalized, plan_var_reading, var_bound, var_cost,
};
use gridsched_provisioning::{HOUR, Pricer, PricingPolicy, SiteState, WEEK};
use gridsched_repro::model::{CurveMeasurement, Measurement, Model, ModelError, ParamSet};
use gridsched_sim::StreamKey;

use super::background::{SiteSpec, background_jobs, site_at, span};
use crate::memo::Memo;

/// The model; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SinghVar;

/// The default "NCSA" site: see the module documentation and the entries' interpretations.
pub const DEFAULT_SITE: &str = "CTC/430/0.3";

const PARAMETERS: &[(&str, &str)] = &[
    (
        "site",
        "TRACE/PROCS/COPY_P (default CTC/430/0.3): the log standing in for NCSA's cluster",
    ),
    ("nodes", "processors of the reservation (default 32)"),
    ("duration_h", "reservation duration D, hours (default 1)"),
    (
        "start_h",
        "reservation start S − T, hours (default 4; the axis of Figs. 38–49)",
    ),
    (
        "scheme",
        "vr (default) | ar | comb: whose `ac`, `success_pct` and `cheaper_pct` the series reports",
    ),
    (
        "warmup_d",
        "days of log before the first sample (default 14: past the log's ramp-up week, a full history window)",
    ),
    ("spacing_h", "hours between samples (default 24: daily)"),
    (
        "window_d",
        "the surrogate's trailing window, days (default 7, spec §4.2)",
    ),
    (
        "min_samples",
        "the surrogate widens a class with fewer usable records (default 10)",
    ),
    (
        "increment_s",
        "Figure 33's step between candidate submission times, s (default 30)",
    ),
    (
        "reading",
        "per_candidate (default) | as_printed: Figure 33's walltime and deadline (spec §2.12 [AMBIG])",
    ),
    (
        "penalty",
        "the combined scheme's cancellation factor p (default 0.1)",
    ),
    (
        "ac_over",
        "successes (default: a failed day has no cost value) | all_days (a failure costs 0)",
    ),
    (
        "ref_nodes",
        "the node count `ar_vs_ref_nodes` / `var_vs_ref_nodes` compare with (default 32)",
    ),
];

const METRICS: &[&str] = &[
    "ac",
    "success_pct",
    "cheaper_pct",
    "tie_pct",
    "var_minus_ar",
    "comb_minus_ar",
    "comb_minus_var",
    "ar_minus_var_success_pct",
    "comb_minus_max_success_pct",
    "ar_vs_ref_nodes",
    "var_vs_ref_nodes",
    "var_fail_if_ar_fail_pct",
    "var_fail_if_ar_ok_pct",
    "bound",
    "bound_slack",
    "probability",
    "t1_minus_t_h",
    "t2_minus_t1_h",
    "walltime_h",
    "var_used_pct",
    "ar_zero_pct",
    "load",
    "queue",
    "history",
    // Figure 36 (curve axis).
    "p",
    "submit_min",
    "run_time_min",
    "max_p",
    "run_time_err_min",
];

/// What a day depends on.
#[derive(Debug, Clone, PartialEq)]
struct DaySetup {
    site: SiteSpec,
    warmup: Time,
    spacing: Time,
    window: Time,
    min_samples: usize,
}

/// One reservation type on top of a day.
#[derive(Debug, Clone, PartialEq)]
struct CaseSetup {
    nodes: u32,
    duration: Time,
    start: Time,
    increment: Time,
    reading: VarReading,
}

/// The site at one sample instant `t`.
struct Day {
    t: Time,
    sim: Simulator,
    predictor: WaitSnapshot,
    load: f64,
    queue: usize,
}

/// One reservation type on one day: what was recorded.
#[derive(Debug, Clone, Copy)]
struct Case {
    t: Time,
    s: Time,
    /// AR's fixed price f (SU); `None`: infeasible.
    price: Option<f64>,
    plan: VarPlan,
    /// T2 if the VAR job started by S.
    started: Option<Time>,
}

/// A positive duration parameter in `unit` seconds (`HOUR` or a day), as whole seconds.
fn duration(params: &ParamSet, name: &str, default: f64, unit: Time) -> Result<Time, ModelError> {
    let h = params.f64_or(name, default)?;
    if !(h.is_finite() && h > 0.0) {
        return Err(ModelError(format!(
            "parameter `{name}` must be positive, got {h}"
        )));
    }
    Ok((h * unit as f64).round() as Time)
}

fn hours(params: &ParamSet, name: &str, default: f64) -> Result<Time, ModelError> {
    duration(params, name, default, HOUR)
}

impl DaySetup {
    fn parse(params: &ParamSet) -> Result<DaySetup, ModelError> {
        let warmup_d = params.f64_or("warmup_d", 14.0)?;
        if !(warmup_d.is_finite() && warmup_d >= 0.0) {
            return Err(ModelError(format!(
                "parameter `warmup_d` must be a non-negative number of days, got {warmup_d}"
            )));
        }
        Ok(DaySetup {
            site: SiteSpec::parse(params.str_or("site", DEFAULT_SITE)?)?,
            warmup: (warmup_d * 24.0 * HOUR as f64).round() as Time,
            spacing: hours(params, "spacing_h", 24.0)?,
            window: duration(params, "window_d", 7.0, 24 * HOUR)?,
            min_samples: params.u32_or("min_samples", 10)? as usize,
        })
    }
}

impl CaseSetup {
    fn parse(params: &ParamSet) -> Result<CaseSetup, ModelError> {
        let nodes = params.u32_or("nodes", 32)?;
        if nodes == 0 {
            return Err(ModelError("parameter `nodes` must be at least 1".into()));
        }
        let increment = params.u32_or("increment_s", 30)?;
        if increment == 0 {
            return Err(ModelError(
                "parameter `increment_s` must be at least 1".into(),
            ));
        }
        Ok(CaseSetup {
            nodes,
            duration: hours(params, "duration_h", 1.0)?,
            start: hours(params, "start_h", 4.0)?,
            increment: Time::from(increment),
            reading: params.choice(
                "reading",
                VarReading::PerCandidate,
                &[
                    ("per_candidate", VarReading::PerCandidate),
                    ("as_printed", VarReading::AsPrinted),
                ],
            )?,
        })
    }
}

fn day_id(setup: &DaySetup, key: &StreamKey, jobs: u64) -> String {
    format!(
        "{setup:?}|{}|{}|{jobs}",
        key.master_seed(),
        key.replication_index()
    )
}

fn compute_day(setup: &DaySetup, key: &StreamKey, jobs: u64) -> Result<Day, ModelError> {
    let site = &setup.site;
    let all = background_jobs(site, jobs, key.master_seed())?;
    let (first, last) = span(&all);
    // The copies run a week past the log's own last job; the sampled days must lie where the
    // log itself still runs (a day needs up to 8 h + D of arrivals after it).
    let last = if site.copy_p > 0.0 { last - WEEK } else { last };
    let k = Time::from(key.replication_index());
    let t = first + setup.warmup + k * setup.spacing;
    if t + 24 * HOUR > last {
        return Err(ModelError(format!(
            "day {k} at {t} s is within a day of the end of the loaded log ({last} s): fewer replications or more jobs"
        )));
    }
    let sim = site_at(site, &all, Estimates::Requested, t)?;
    // The QBETS surrogate: every job submitted in the window that had started by `t`, with
    // the walltime it requested (the run time where the log has no request).
    let mut history = WaitHistory::with(setup.window, setup.min_samples);
    let from = t - setup.window;
    let mut area = 0.0;
    for i in 0..sim.job_count() {
        let r = sim.record(i);
        let j = r.job;
        if j.submit < from || j.submit > t {
            continue;
        }
        if j.submit < t {
            area += f64::from(j.procs) * j.run as f64;
        }
        if let (JobPhase::Running | JobPhase::Done, Some(start)) = (r.phase, r.start)
            && start <= t
        {
            history
                .record(
                    j.submit,
                    j.procs,
                    j.estimate(Estimates::Requested),
                    start - j.submit,
                )
                .map_err(ModelError::from_display)?;
        }
    }
    let queue = sim.queued().len();
    Ok(Day {
        t,
        predictor: history.at(t),
        load: area / (f64::from(site.procs) * setup.window as f64),
        queue,
        sim,
    })
}

fn day(setup: &DaySetup, key: &StreamKey, jobs: u64) -> Result<Arc<Day>, ModelError> {
    static CACHE: Memo<Day> = Memo::new();
    CACHE.get(day_id(setup, key, jobs), || compute_day(setup, key, jobs))
}

fn compute_case(day: &Day, c: &CaseSetup) -> Result<Case, ModelError> {
    let t = day.t;
    let s = t + c.start;
    if c.nodes > day.sim.platform().machines()[0].cpus {
        return Err(ModelError(format!(
            "{} nodes do not fit the site's {} processors",
            c.nodes,
            day.sim.platform().machines()[0].cpus
        )));
    }
    // AR: Figure 22 on the state at T.
    let state = SiteState::of(&day.sim).map_err(ModelError::from_display)?;
    let mut pricer = Pricer::new(state, PricingPolicy::Conservative);
    let price = pricer
        .price(s, c.nodes, c.duration)
        .map_err(ModelError::from_display)?
        .map(|q| q.price);
    // VAR: Figure 33 on the surrogate as of T, then the job in a clone of the site.
    let plan = plan_var_reading(
        &day.predictor,
        c.reading,
        t,
        c.nodes,
        c.duration,
        s,
        c.increment,
    )
    .map_err(ModelError::from_display)?;
    let mut sim = day.sim.clone();
    let job = Job::new(u64::MAX, plan.submit, c.nodes, plan.run_time).requested(plan.run_time);
    let idx = sim.submit(job).map_err(ModelError::from_display)?;
    sim.run_until(s);
    let r = sim.record(idx);
    let started = match (r.phase, r.start) {
        (JobPhase::Running | JobPhase::Done, Some(t2)) if t2 <= s => Some(t2),
        _ => None,
    };
    Ok(Case {
        t,
        s,
        price,
        plan,
        started,
    })
}

fn case(
    setup: &DaySetup,
    c: &CaseSetup,
    key: &StreamKey,
    jobs: u64,
) -> Result<Arc<Case>, ModelError> {
    static CACHE: Memo<Case> = Memo::new();
    let d = day(setup, key, jobs)?;
    CACHE.get(format!("{}|{c:?}", day_id(setup, key, jobs)), || {
        compute_case(&d, c)
    })
}

/// The normalized costs of one case: VAR, AR, combined (each `None` on failure).
struct Costs {
    var: Option<f64>,
    ar: Option<f64>,
    comb: Option<f64>,
    used: Used,
}

fn costs(c: &Case, setup: &CaseSetup, penalty: f64) -> Result<Costs, ModelError> {
    let norm =
        |su: f64| normalized(su, setup.nodes, setup.duration).map_err(ModelError::from_display);
    let var = c
        .started
        .and_then(|t2| var_cost(setup.nodes, c.s, t2))
        .map(norm)
        .transpose()?;
    let ar = c.price.map(norm).transpose()?;
    let comb = combine(
        c.price,
        penalty,
        setup.nodes,
        c.s,
        VarOutcome {
            submitted: c.plan.submit,
            started: c.started,
        },
    )
    .map_err(ModelError::from_display)?;
    Ok(Costs {
        var,
        ar,
        comb: comb.cost.map(norm).transpose()?,
        used: comb.used,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Var,
    Ar,
    Comb,
}

fn pct(b: bool) -> f64 {
    if b { 100.0 } else { 0.0 }
}

/// How a series reports a case.
#[derive(Debug, Clone, Copy)]
struct Reporting {
    scheme: Scheme,
    penalty: f64,
    /// `ac_over = "all_days"`: a failure reports cost 0 instead of nothing.
    all_days: bool,
}

/// The metrics of one case (one reservation type on one day) as the series `how` reports
/// them; `reference` is the same reservation with `ref_nodes` processors on the same day
/// (`None` when this case has that many). A metric undefined on this day is left out (see the
/// module documentation).
fn measure(
    c: &Case,
    cs: &CaseSetup,
    reference: Option<(&Case, &CaseSetup)>,
    how: Reporting,
) -> Result<Measurement, ModelError> {
    let k = costs(c, cs, how.penalty)?;
    let mut m: Measurement = Vec::new();
    let own = match how.scheme {
        Scheme::Var => k.var,
        Scheme::Ar => k.ar,
        Scheme::Comb => k.comb,
    };
    match (own, how.all_days) {
        (Some(x), _) => m.push(("ac", x)),
        (None, true) => m.push(("ac", 0.0)),
        (None, false) => {}
    }
    m.push(("success_pct", pct(own.is_some())));
    if let (Some(v), Some(a)) = (k.var, k.ar) {
        let cheaper = match how.scheme {
            Scheme::Var => v < a,
            Scheme::Ar => a < v,
            Scheme::Comb => k.comb.is_some_and(|x| x < v.min(a)),
        };
        m.push(("cheaper_pct", pct(cheaper)));
        m.push(("tie_pct", pct(v == a)));
        m.push(("var_minus_ar", v - a));
    }
    if let (Some(x), Some(a)) = (k.comb, k.ar) {
        m.push(("comb_minus_ar", x - a));
    }
    if let (Some(x), Some(v)) = (k.comb, k.var) {
        m.push(("comb_minus_var", x - v));
    }
    let (vok, aok, cok) = (k.var.is_some(), k.ar.is_some(), k.comb.is_some());
    m.push(("ar_minus_var_success_pct", pct(aok) - pct(vok)));
    m.push(("comb_minus_max_success_pct", pct(cok) - pct(vok || aok)));
    match reference {
        None => {
            m.push(("ar_vs_ref_nodes", 0.0));
            m.push(("var_vs_ref_nodes", 0.0));
        }
        Some((rc, rs)) => {
            let rk = costs(rc, rs, how.penalty)?;
            if let (Some(a), Some(b)) = (k.ar, rk.ar) {
                m.push(("ar_vs_ref_nodes", a - b));
            }
            if let (Some(a), Some(b)) = (k.var, rk.var) {
                m.push(("var_vs_ref_nodes", a - b));
            }
        }
    }
    m.push((
        if aok {
            "var_fail_if_ar_ok_pct"
        } else {
            "var_fail_if_ar_fail_pct"
        },
        pct(!vok),
    ));
    let bound = var_bound(c.t, c.s, cs.duration).map_err(ModelError::from_display)?;
    m.push(("bound", bound));
    if let Some(v) = k.var {
        m.push(("bound_slack", bound - v));
    }
    m.push(("probability", c.plan.probability));
    m.push(("t1_minus_t_h", (c.plan.submit - c.t) as f64 / HOUR as f64));
    if let Some(t2) = c.started {
        m.push(("t2_minus_t1_h", (t2 - c.plan.submit) as f64 / HOUR as f64));
    }
    m.push(("walltime_h", c.plan.run_time as f64 / HOUR as f64));
    m.push((
        "var_used_pct",
        pct(matches!(k.used, Used::Var | Used::VarOnly)),
    ));
    if let Some(f) = c.price {
        m.push(("ar_zero_pct", pct(f == 0.0)));
    }
    Ok(m)
}

impl Model for SinghVar {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "singh-var"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        PARAMETERS
    }

    fn metrics(&self) -> &'static [&'static str] {
        METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let ds = DaySetup::parse(params)?;
        let cs = CaseSetup::parse(params)?;
        let scheme = params.choice(
            "scheme",
            Scheme::Var,
            &[
                ("vr", Scheme::Var),
                ("ar", Scheme::Ar),
                ("comb", Scheme::Comb),
            ],
        )?;
        let penalty = params.f64_or("penalty", DEFAULT_PENALTY)?;
        let all_days = params.choice(
            "ac_over",
            false,
            &[("successes", false), ("all_days", true)],
        )?;
        let ref_nodes = params.u32_or("ref_nodes", 32)?;
        let d = day(&ds, key, jobs)?;
        let c = case(&ds, &cs, key, jobs)?;
        let reference = if cs.nodes == ref_nodes {
            None
        } else {
            let rs = CaseSetup {
                nodes: ref_nodes,
                ..cs.clone()
            };
            let rc = case(&ds, &rs, key, jobs)?;
            Some((*rc, rs))
        };
        let how = Reporting {
            scheme,
            penalty,
            all_days,
        };
        let mut m = measure(&c, &cs, reference.as_ref().map(|(c, s)| (c, s)), how)?;
        m.push(("load", d.load));
        m.push(("queue", d.queue as f64));
        m.push(("history", d.predictor.samples() as f64));
        Ok(m)
    }

    /// Figure 36: the surrogate's probability at every submission time `x` (minutes after the
    /// sample instant), and the plan Figure 33 makes from it.
    fn run_curve(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        params.check_known(self)?;
        let ds = DaySetup::parse(params)?;
        let cs = CaseSetup::parse(params)?;
        let d = day(&ds, key, jobs)?;
        let (t, s) = (d.t, d.t + cs.start);
        let plan = plan_var_reading(
            &d.predictor,
            cs.reading,
            t,
            cs.nodes,
            cs.duration,
            s,
            cs.increment,
        )
        .map_err(ModelError::from_display)?;
        let minutes = |x: Time| x as f64 / 60.0;
        let scalars = [
            ("submit_min", minutes(plan.submit - t)),
            ("run_time_min", minutes(plan.run_time)),
            ("max_p", plan.probability),
            (
                "run_time_err_min",
                minutes(plan.run_time - (cs.duration + s - plan.submit)),
            ),
        ];
        let mut rows = Vec::new();
        for &x in xs {
            let at = t + (x * 60.0).round() as Time;
            if !(t..s).contains(&at) {
                return Err(ModelError(format!(
                    "submission time {x} min is outside [0, {}) min",
                    minutes(cs.start)
                )));
            }
            let wall = match cs.reading {
                VarReading::PerCandidate => cs.duration + (s - at),
                VarReading::AsPrinted => cs.duration + (s - t),
            };
            rows.push((x, "p", d.predictor.probability(cs.nodes, wall, s - at)));
            for (name, v) in scalars {
                rows.push((x, name, v));
            }
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::model::measured;

    const T: Time = 1_000_000;

    /// A reservation of 32 nodes for 1 h, 4 h ahead; VAR submitted at T + 1 h.
    fn setup() -> CaseSetup {
        CaseSetup {
            nodes: 32,
            duration: HOUR,
            start: 4 * HOUR,
            increment: 30,
            reading: VarReading::PerCandidate,
        }
    }

    fn case(price: Option<f64>, started: Option<Time>) -> Case {
        Case {
            t: T,
            s: T + 4 * HOUR,
            price,
            plan: VarPlan {
                submit: T + HOUR,
                run_time: 4 * HOUR,
                probability: 0.5,
            },
            started,
        }
    }

    fn how(scheme: Scheme) -> Reporting {
        Reporting {
            scheme,
            penalty: DEFAULT_PENALTY,
            all_days: false,
        }
    }

    fn get(m: &Measurement, name: &str) -> Option<f64> {
        measured(m, name)
    }

    #[test]
    fn both_succeed_var_replaces_an_expensive_reservation() {
        // VAR starts 1 h before S: 32 SU of padding, normalized 1; AR costs 320 SU (10).
        let c = case(Some(320.0), Some(T + 3 * HOUR));
        let cs = setup();
        let v = measure(&c, &cs, None, how(Scheme::Var)).unwrap();
        assert_eq!(get(&v, "ac"), Some(1.0));
        assert_eq!(get(&v, "cheaper_pct"), Some(100.0));
        assert_eq!(get(&v, "var_minus_ar"), Some(-9.0));
        assert_eq!(get(&v, "bound"), Some(4.0));
        assert_eq!(get(&v, "bound_slack"), Some(3.0));
        assert_eq!(get(&v, "t1_minus_t_h"), Some(1.0));
        assert_eq!(get(&v, "t2_minus_t1_h"), Some(2.0));
        assert_eq!(get(&v, "var_fail_if_ar_ok_pct"), Some(0.0));
        assert_eq!(get(&v, "var_fail_if_ar_fail_pct"), None);
        let a = measure(&c, &cs, None, how(Scheme::Ar)).unwrap();
        assert_eq!(get(&a, "ac"), Some(10.0));
        assert_eq!(get(&a, "cheaper_pct"), Some(0.0));
        // Figure 45: 32 + 0.1 · 320 = 64 SU ≤ 320: VAR kept, normalized 2.
        let x = measure(&c, &cs, None, how(Scheme::Comb)).unwrap();
        assert_eq!(get(&x, "ac"), Some(2.0));
        assert_eq!(get(&x, "comb_minus_ar"), Some(-8.0));
        assert_eq!(get(&x, "comb_minus_var"), Some(1.0));
        assert_eq!(get(&x, "var_used_pct"), Some(100.0));
        assert_eq!(get(&x, "cheaper_pct"), Some(0.0));
        assert_eq!(get(&x, "comb_minus_max_success_pct"), Some(0.0));
    }

    #[test]
    fn a_failed_scheme_reports_no_cost_unless_failures_count_as_zero() {
        let c = case(None, None);
        let cs = setup();
        for scheme in [Scheme::Var, Scheme::Ar, Scheme::Comb] {
            let m = measure(&c, &cs, None, how(scheme)).unwrap();
            assert_eq!(get(&m, "ac"), None);
            assert_eq!(get(&m, "success_pct"), Some(0.0));
            for undefined in ["cheaper_pct", "tie_pct", "var_minus_ar", "comb_minus_ar"] {
                assert_eq!(get(&m, undefined), None, "{undefined}");
            }
            assert_eq!(get(&m, "var_fail_if_ar_fail_pct"), Some(100.0));
            let all = Reporting {
                all_days: true,
                ..how(scheme)
            };
            assert_eq!(get(&measure(&c, &cs, None, all).unwrap(), "ac"), Some(0.0));
        }
    }

    #[test]
    fn a_free_reservation_is_kept_and_only_var_may_fail() {
        // AR free; VAR never started: the combined scheme uses the free reservation.
        let c = case(Some(0.0), None);
        let cs = setup();
        let x = measure(&c, &cs, None, how(Scheme::Comb)).unwrap();
        assert_eq!(get(&x, "ac"), Some(0.0));
        assert_eq!(get(&x, "success_pct"), Some(100.0));
        assert_eq!(get(&x, "ar_minus_var_success_pct"), Some(100.0));
        assert_eq!(get(&x, "var_used_pct"), Some(0.0));
        assert_eq!(get(&x, "ar_zero_pct"), Some(100.0));
        // A VAR start after S is a failure, not a negative cost.
        let late = case(Some(5.0), Some(T + 5 * HOUR));
        let v = measure(&late, &cs, None, how(Scheme::Var)).unwrap();
        assert_eq!(get(&v, "ac"), None);
        assert_eq!(get(&v, "success_pct"), Some(0.0));
    }

    #[test]
    fn the_reference_node_count_is_compared_on_the_same_day() {
        let cs64 = CaseSetup {
            nodes: 64,
            ..setup()
        };
        // 64 nodes: AR 640 SU (10 per node-hour), VAR 1 h early (1); 32 nodes: AR 160 SU (5).
        let c64 = case(Some(640.0), Some(T + 3 * HOUR));
        let c32 = case(Some(160.0), None);
        let m = measure(&c64, &cs64, Some((&c32, &setup())), how(Scheme::Ar)).unwrap();
        assert_eq!(get(&m, "ar_vs_ref_nodes"), Some(5.0));
        assert_eq!(get(&m, "var_vs_ref_nodes"), None);
    }
}
