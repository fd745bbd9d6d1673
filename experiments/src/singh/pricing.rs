//! `singh-pricing`: chapter 5's experiments (Figs. 23–31). One replication is one run of a
//! site over the first `days` of its log: a random `share` of the jobs reserve a slot instead
//! of queueing (query (18), priced by Figure 22 under the site's policy, chosen by eq. 20 with
//! `alpha`), the rest run best effort around the reservations.
//!
//! Common random numbers: which jobs reserve is a random ranking of the window's jobs drawn
//! per (log, replication): the first `share · n` reserve, so a larger share reserves a
//! superset, and every α, load-independent policy and estimate variant sees the same jobs
//! reserve (the load copies are part of the window and of the ranking). A per-job α drawn
//! uniformly (`alpha_draw = "uniform"`, Fig. 29) comes from its own per-job stream.
//!
//! Metrics: `wait_h` (the mean wait of the reservations, or with `wait_of = best_effort` of the
//! best-effort jobs: two series of one run), `price_su` (mean fixed price f over the reservations, SU), `res_wait_h` (mean
//! chosen start − query time), `be_wait_h` (mean wait of the best-effort jobs),
//! `wait_ratio` (their quotient, Fig. 26), `zero_price_pct`, `reservations`, `candidates`
//! (mean feasible starts per query), `queue` (mean queue length at a query), `load` (spec §5
//! utilization including reservations), `offered_load` (of the window's jobs).

use std::sync::Arc;

use gridsched_batch::{Config, Estimates, Policy};
use gridsched_provisioning::{PricedRun, ReservationRequest, run_priced_site};
use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};
use gridsched_sim::StreamKey;
use rand::Rng;
use rand::seq::SliceRandom;

use super::background::{SiteSpec, UtilizationMeasure, background_jobs, calibrate_copy_p, window};
use crate::memo::Memo;

/// The model; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SinghPricing;

const PARAMETERS: &[(&str, &str)] = &[
    (
        "site",
        "TRACE/PROCS/COPY_P (required), e.g. CTC/430/0 (COPY_P: Sabin et al.'s load scaling)",
    ),
    ("copy_p", "override the site's COPY_P (the load axis)"),
    (
        "utilization",
        "calibrate COPY_P by bisection to this target utilization of the window (spec §2.15 PROPOSAL); overrides COPY_P",
    ),
    (
        "utilization_of",
        "offered (default: the window's work over capacity x submission span) | achieved (spec §5's utilization of the window run alone under conservative backfilling): what `utilization` targets",
    ),
    (
        "utilization_steps",
        "a list of targets, `log` for the log as it is, e.g. \"log,0.684,0.788\": `load_step` picks one (a load axis shared by sites whose targets differ)",
    ),
    ("load_step", "index into `utilization_steps` (0 = first)"),
    (
        "days",
        "the window: the first DAYS days of the log (default 30)",
    ),
    (
        "share",
        "fraction of the window's jobs that reserve (default 0.1)",
    ),
    (
        "alpha",
        "eq. 20's trade-off factor of every reservation (default 0)",
    ),
    (
        "alpha_draw",
        "fixed (default) | uniform: each reservation draws alpha from U[0, 1]",
    ),
    (
        "policy",
        "conservative (default) | easy: the site's backfilling, also the pricing policy",
    ),
    (
        "estimates",
        "actual (default) | requested: what best-effort jobs are planned with",
    ),
    (
        "wait_of",
        "reservations (default) | best_effort: whose mean wait the `wait_h` metric is (a series per kind of job, one run)",
    ),
];

const METRICS: &[&str] = &[
    "price_su",
    "price_vs_cb_su",
    "price_vs_actual_su",
    "wait_gap_h",
    "wait_h",
    "res_wait_h",
    "be_wait_h",
    "wait_ratio",
    "zero_price_pct",
    "reservations",
    "candidates",
    "queue",
    "load",
    "offered_load",
    "copy_p",
];

struct Run {
    run: PricedRun,
    offered_load: f64,
}

/// The parameters a run depends on, parsed (the cache key: two series that differ only in
/// how they spell a default share the run).
#[derive(Debug, Clone, PartialEq)]
struct Setup {
    site: SiteSpec,
    days: f64,
    share: f64,
    uniform: bool,
    alpha: f64,
    policy: Policy,
    estimates: Estimates,
}

/// The target utilization the parameters ask for, if any (`None`: the site's COPY_P as given).
fn target_utilization(params: &ParamSet) -> Result<Option<f64>, ModelError> {
    match (params.has("utilization"), params.has("utilization_steps")) {
        (true, true) => Err(ModelError(
            "give `utilization` or `utilization_steps` with `load_step`, not both".into(),
        )),
        (true, false) => params.f64("utilization").map(Some),
        (false, false) => Ok(None),
        (false, true) => {
            let steps = params.str_or("utilization_steps", "")?;
            let step = params.f64("load_step")?;
            let pick = steps
                .split(',')
                .nth(step as usize)
                .filter(|_| step >= 0.0 && step.fract() == 0.0)
                .ok_or_else(|| {
                    ModelError(format!("load_step {step} is not an index of `{steps}`"))
                })?
                .trim();
            if pick == "log" {
                return Ok(None);
            }
            pick.parse::<f64>().map(Some).map_err(|_| {
                ModelError(format!(
                    "utilization_steps `{steps}`: `{pick}` is neither a utilization nor `log`"
                ))
            })
        }
    }
}

impl Setup {
    fn parse(params: &ParamSet) -> Result<Setup, ModelError> {
        let mut site = SiteSpec::parse(params.str_or("site", "")?)?;
        if params.has("copy_p") {
            site.copy_p = params.f64("copy_p")?;
        }
        let share = params.f64_or("share", 0.1)?;
        if !(0.0..=1.0).contains(&share) {
            return Err(ModelError(format!("share {share} is not in [0, 1]")));
        }
        let alpha = params.f64_or("alpha", 0.0)?;
        if !(0.0..=1.0).contains(&alpha) {
            return Err(ModelError(format!("alpha {alpha} is not in [0, 1]")));
        }
        Ok(Setup {
            site,
            days: params.f64_or("days", 30.0)?,
            share,
            uniform: params.choice("alpha_draw", false, &[("fixed", false), ("uniform", true)])?,
            alpha,
            policy: params.choice(
                "policy",
                Policy::Conservative,
                &[
                    ("conservative", Policy::Conservative),
                    ("easy", Policy::Easy),
                ],
            )?,
            estimates: params.choice(
                "estimates",
                Estimates::Actual,
                &[
                    ("actual", Estimates::Actual),
                    ("requested", Estimates::Requested),
                ],
            )?,
        })
    }
}

fn compute(setup: &Setup, key: &StreamKey, jobs: u64) -> Result<Run, ModelError> {
    let site = &setup.site;
    let window = window(&background_jobs(site, jobs, key.master_seed())?, setup.days);
    if window.is_empty() {
        return Err(ModelError("the window holds no job".into()));
    }
    // The ranking that decides who reserves: per (log, copy level, replication), never per α,
    // policy, estimates or share.
    let base = StreamKey::new(key.master_seed(), "singh-pricing")
        .point(&format!("{}/{}/{}", site.trace, site.procs, site.copy_p))
        .replication(key.replication_index());
    let mut order: Vec<usize> = (0..window.len()).collect();
    order.shuffle(&mut base.clone().stream("reserve").rng());
    let reserving = (setup.share * window.len() as f64).round() as usize;
    let mut is_res = vec![false; window.len()];
    for &i in &order[..reserving] {
        is_res[i] = true;
    }
    let mut alpha_rng = base.stream("alpha").rng();
    let mut requests = Vec::with_capacity(reserving);
    let mut best_effort = Vec::with_capacity(window.len() - reserving);
    for (i, j) in window.iter().enumerate() {
        // One draw per job whatever its role, so a job's α does not depend on the share.
        let a: f64 = alpha_rng.random();
        if is_res[i] {
            requests.push(ReservationRequest {
                id: j.id,
                submit: j.submit,
                procs: j.procs,
                run: j.run,
                alpha: if setup.uniform { a } else { setup.alpha },
            });
        } else {
            best_effort.push(*j);
        }
    }
    let offered_load = gridsched_provisioning::offered_load(&window, site.procs);
    let config = Config::new(setup.policy)
        .estimates(setup.estimates)
        .check_invariants(false);
    let run = run_priced_site(site.procs, config, best_effort, &requests)
        .map_err(ModelError::from_display)?;
    Ok(Run { run, offered_load })
}

fn run_of(setup: &Setup, key: &StreamKey, jobs: u64) -> Result<Arc<Run>, ModelError> {
    static CACHE: Memo<Run> = Memo::new();
    let id = format!(
        "{setup:?}|{}|{}|{jobs}",
        key.master_seed(),
        key.replication_index()
    );
    CACHE.get(id, || compute(setup, key, jobs))
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { 0.0 } else { s / n as f64 }
}

impl Model for SinghPricing {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "singh-pricing"
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
        let mut setup = Setup::parse(params)?;
        if let Some(target) = target_utilization(params)? {
            let measure = params.choice(
                "utilization_of",
                UtilizationMeasure::Offered,
                &[
                    ("offered", UtilizationMeasure::Offered),
                    ("achieved", UtilizationMeasure::Achieved),
                ],
            )?;
            setup.site.copy_p = calibrate_copy_p(
                &setup.site,
                jobs,
                key.master_seed(),
                setup.days,
                target,
                measure,
            )?
            .copy_p;
        }
        let of_reservations = params.choice(
            "wait_of",
            true,
            &[("reservations", true), ("best_effort", false)],
        )?;
        let r = run_of(&setup, key, jobs)?;
        let price = |r: &Run| mean(r.run.reservations.iter().map(|x| x.price));
        // Paired differences (same jobs reserve, same α draws): against conservative
        // backfilling (Fig. 29) and against exact estimates (Fig. 30).
        let vs_cb = match setup.policy {
            Policy::Conservative => 0.0,
            _ => {
                let cb = Setup {
                    policy: Policy::Conservative,
                    ..setup.clone()
                };
                price(&r) - price(&*run_of(&cb, key, jobs)?)
            }
        };
        let vs_actual = match setup.estimates {
            Estimates::Actual => 0.0,
            Estimates::Requested => {
                let exact = Setup {
                    estimates: Estimates::Actual,
                    ..setup.clone()
                };
                price(&r) - price(&*run_of(&exact, key, jobs)?)
            }
        };
        let res = &r.run.reservations;
        let be = &r.run.best_effort;
        let res_wait = mean(res.iter().map(|x| x.wait() as f64 / 3600.0));
        let be_wait = mean(be.iter().map(|o| o.wait() as f64 / 3600.0));
        Ok(vec![
            ("price_su", price(&r)),
            ("price_vs_cb_su", vs_cb),
            ("price_vs_actual_su", vs_actual),
            ("res_wait_h", res_wait),
            ("be_wait_h", be_wait),
            ("wait_gap_h", be_wait - res_wait),
            ("wait_h", if of_reservations { res_wait } else { be_wait }),
            (
                "wait_ratio",
                if be_wait > 0.0 {
                    res_wait / be_wait
                } else {
                    0.0
                },
            ),
            (
                "zero_price_pct",
                100.0 * mean(res.iter().map(|x| f64::from(u8::from(x.price == 0.0)))),
            ),
            ("reservations", res.len() as f64),
            (
                "candidates",
                mean(res.iter().map(|x| f64::from(x.candidates))),
            ),
            ("queue", mean(res.iter().map(|x| f64::from(x.queued)))),
            ("load", r.run.utilization()),
            ("offered_load", r.offered_load),
            ("copy_p", setup.site.copy_p),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::spec::ParamValue;

    fn params(pairs: &[(&str, ParamValue)]) -> ParamSet {
        ParamSet::from_pairs(pairs)
    }

    #[test]
    fn load_targets_come_from_utilization_or_a_step_list() {
        let steps = || ParamValue::String("log, 0.684,0.788".into());
        assert_eq!(target_utilization(&params(&[])).unwrap(), None);
        assert_eq!(
            target_utilization(&params(&[("utilization", ParamValue::Float(0.7))])).unwrap(),
            Some(0.7)
        );
        for (step, want) in [(0.0, None), (1.0, Some(0.684)), (2.0, Some(0.788))] {
            let p = params(&[
                ("utilization_steps", steps()),
                ("load_step", ParamValue::Float(step)),
            ]);
            assert_eq!(target_utilization(&p).unwrap(), want, "step {step}");
        }
        for step in [3.0, 0.5, -1.0] {
            let p = params(&[
                ("utilization_steps", steps()),
                ("load_step", ParamValue::Float(step)),
            ]);
            assert!(target_utilization(&p).is_err(), "step {step}");
        }
        let both = params(&[
            ("utilization", ParamValue::Float(0.7)),
            ("utilization_steps", steps()),
            ("load_step", ParamValue::Float(1.0)),
        ]);
        assert!(target_utilization(&both).is_err());
        let junk = params(&[
            ("utilization_steps", ParamValue::String("log,high".into())),
            ("load_step", ParamValue::Float(1.0)),
        ]);
        assert!(target_utilization(&junk).unwrap_err().0.contains("`high`"));
    }
}
