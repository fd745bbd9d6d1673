//! The background of Singh's experiments: a Parallel Workloads Archive log on a cluster of the
//! thesis's size, its load raised by Sabin et al.'s method (spec §2.15), simulated under
//! conservative backfilling.

use std::path::Path;
use std::sync::Arc;

use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time, swf::trace_jobs};
use gridsched_provisioning::{WEEK, offered_load, run_priced_site, scale_load, thin_load};
use gridsched_repro::model::ModelError;
use gridsched_sim::StreamKey;
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

use crate::memo::Memo;

/// One site: a log on `procs` processors, each of its jobs kept with probability `keep` (1: all
/// of them), with a shifted copy of each kept job kept with probability `copy_p` (0: none).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteSpec {
    pub trace: String,
    pub procs: u32,
    pub copy_p: f64,
    /// Thinning of the log itself (a load below the log's own; 1 = the log as it is).
    pub keep: f64,
}

impl SiteSpec {
    /// Parses `TRACE/PROCS/COPY_P` (e.g. `CTC/430/0.4`), optionally followed by `/KEEP`, the
    /// probability with which each of the log's own jobs is kept (e.g. `SDSC/128/0/0.84`).
    pub fn parse(s: &str) -> Result<SiteSpec, ModelError> {
        let bad = || {
            ModelError(format!(
                "site `{s}`: expected TRACE/PROCS/COPY_P[/KEEP], e.g. CTC/430/0.4 or SDSC/128/0/0.84"
            ))
        };
        let mut it = s.trim().split('/');
        let (Some(t), Some(p), Some(c), k, None) =
            (it.next(), it.next(), it.next(), it.next(), it.next())
        else {
            return Err(bad());
        };
        let procs: u32 = p.parse().map_err(|_| bad())?;
        let copy_p: f64 = c.parse().map_err(|_| bad())?;
        let keep: f64 = k.map_or(Ok(1.0), str::parse).map_err(|_| bad())?;
        if procs == 0
            || !(0.0..=1.0).contains(&copy_p)
            || !(keep > 0.0 && keep <= 1.0)
            || t.is_empty()
        {
            return Err(bad());
        }
        Ok(SiteSpec {
            trace: t.to_string(),
            procs,
            copy_p,
            keep,
        })
    }

    /// A list separated by commas.
    pub fn parse_list(s: &str) -> Result<Vec<SiteSpec>, ModelError> {
        s.split(',').map(SiteSpec::parse).collect()
    }
}

/// The jobs of a site's background: the log's first `jobs` kept jobs that fit `procs`, thinned
/// to `keep`, plus the shifted copies. The thinning and the copies are drawn from two streams
/// per log (`seed`), so a higher `keep` keeps a superset of the jobs a lower one keeps, and a
/// higher `copy_p` a superset of the copies.
pub fn background_jobs(site: &SiteSpec, jobs: u64, seed: u64) -> Result<Arc<Vec<Job>>, ModelError> {
    static CACHE: Memo<Vec<Job>> = Memo::new();
    let key = format!(
        "{}|{}|{}|{}|{jobs}|{seed}",
        site.trace, site.procs, site.copy_p, site.keep
    );
    CACHE.get(key, || Ok(scaled(&log_jobs(site, jobs)?, site, seed)))
}

/// The log's first `jobs` kept jobs that fit the site, as they are.
fn log_jobs(site: &SiteSpec, jobs: u64) -> Result<Arc<Vec<Job>>, ModelError> {
    static CACHE: Memo<Vec<Job>> = Memo::new();
    CACHE.get(format!("{}|{}|{jobs}", site.trace, site.procs), || {
        let path = trace_path(&data_dir(None), &site.trace);
        let limit = usize::try_from(jobs).ok().filter(|&j| j > 0);
        let log = load_swf(Path::new(&path), SwfLoadOptions { limit }).map_err(|e| {
            ModelError(format!(
                "{e} (logs are read from <data>/traces/: --data-dir, $GRIDSCHED_DATA or ../shared/data)"
            ))
        })?;
        Ok(trace_jobs(&log, site.procs).jobs)
    })
}

/// `log` thinned to the site's `keep`, with the site's copies (the same draws for every `keep`
/// and every `copy_p`; `keep = 1` draws nothing, so such a site is exactly what it was before
/// thinning existed).
fn scaled(log: &[Job], site: &SiteSpec, seed: u64) -> Vec<Job> {
    let key = StreamKey::new(seed, "singh-load").point(&site.trace);
    let thinned;
    let log = if site.keep < 1.0 {
        thinned = thin_load(log, site.keep, &mut key.clone().stream("thin").rng());
        &thinned[..]
    } else {
        log
    };
    let mut rng = key.stream("copies").rng();
    scale_load(log, site.copy_p, WEEK, &mut rng)
}

/// The jobs of `all` submitted in the first `days` days (from the first submission).
pub fn window(all: &[Job], days: f64) -> Vec<Job> {
    let first = all.first().map_or(0, |j| j.submit);
    let end = first + (days * 86_400.0) as Time;
    all.iter().copied().filter(|j| j.submit < end).collect()
}

/// What a load level's target utilization is measured as when the copy probability is
/// calibrated to it (spec §2.15 PROPOSAL: bisection on p; the measure is our reading).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UtilizationMeasure {
    /// Spec §5's utilization of the window's jobs run alone under conservative backfilling
    /// (no reservations): Σ procs × run over capacity × (last completion − first
    /// submission). The `load` metric of a priced run is the same quantity with the
    /// reservations placed.
    Achieved,
    /// The window's work over capacity × (last − first submission): a property of the log,
    /// no simulation.
    Offered,
}

/// A copy probability calibrated to a target utilization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub copy_p: f64,
    /// The utilization measured at `copy_p`.
    pub utilization: f64,
}

/// The copy probability whose `days`-day window reaches `target` under `measure` (spec
/// §2.15: "calibrate p by bisection to hit the target utilizations"): the smallest p found
/// by 30 halvings of [0, 1] whose measure is at least `target`. The copies are the ones
/// [`background_jobs`] draws, so the calibrated site is exactly the one a run simulates. A
/// target the log already reaches is p = 0; one it cannot reach even with every copy is an
/// error naming the utilization at p = 1.
pub fn calibrate_copy_p(
    site: &SiteSpec,
    jobs: u64,
    seed: u64,
    days: f64,
    target: f64,
    measure: UtilizationMeasure,
) -> Result<Calibration, ModelError> {
    static CACHE: Memo<Calibration> = Memo::new();
    let key = format!(
        "{}|{}|{}|{jobs}|{seed}|{days}|{target}|{measure:?}",
        site.trace, site.procs, site.keep
    );
    let log = log_jobs(site, jobs)?;
    let at = |p: f64| -> Result<f64, ModelError> {
        let s = SiteSpec {
            copy_p: p,
            ..site.clone()
        };
        let w = window(&scaled(&log, &s, seed), days);
        Ok(match measure {
            UtilizationMeasure::Offered => offered_load(&w, site.procs),
            UtilizationMeasure::Achieved => {
                run_priced_site(site.procs, Config::new(Policy::Conservative), w, &[])
                    .map_err(ModelError::from_display)?
                    .utilization()
            }
        })
    };
    CACHE
        .get(key, || {
            bisect_copy_p(target, at).map_err(|e| match e {
                BisectError::Unreachable(u1) => ModelError(format!(
                    "{}/{}: utilization {target} is out of reach of load scaling: {u1:.4} with every copy ({measure:?}, first {days} days of {jobs} jobs)",
                    site.trace, site.procs
                )),
                BisectError::Target => ModelError(format!(
                    "target utilization {target} is not in (0, 1]"
                )),
                BisectError::Measure(e) => e,
            })
        })
        .map(|c| *c)
}

#[derive(Debug)]
enum BisectError {
    Target,
    /// The measure at p = 1.
    Unreachable(f64),
    Measure(ModelError),
}

/// The bisection of [`calibrate_copy_p`] on any measure of p.
fn bisect_copy_p(
    target: f64,
    at: impl Fn(f64) -> Result<f64, ModelError>,
) -> Result<Calibration, BisectError> {
    if !(target > 0.0 && target <= 1.0) {
        return Err(BisectError::Target);
    }
    let at = |p| at(p).map_err(BisectError::Measure);
    let u0 = at(0.0)?;
    if u0 >= target {
        return Ok(Calibration {
            copy_p: 0.0,
            utilization: u0,
        });
    }
    let u1 = at(1.0)?;
    if u1 < target {
        return Err(BisectError::Unreachable(u1));
    }
    let (mut lo, mut hi, mut u_hi) = (0.0_f64, 1.0_f64, u1);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        let u = at(mid)?;
        if u >= target {
            (hi, u_hi) = (mid, u);
        } else {
            lo = mid;
        }
    }
    Ok(Calibration {
        copy_p: hi,
        utilization: u_hi,
    })
}

/// The site's conservative-backfilling simulator at time `t`.
pub fn site_at(
    site: &SiteSpec,
    jobs: &[Job],
    estimates: Estimates,
    t: Time,
) -> Result<Simulator, ModelError> {
    let mut sim = Simulator::with_jobs(
        Platform::cluster(site.procs).map_err(ModelError::from_display)?,
        Config::new(Policy::Conservative)
            .estimates(estimates)
            .check_invariants(false),
        jobs.to_vec(),
    )
    .map_err(ModelError::from_display)?;
    sim.run_until(t);
    Ok(sim)
}

/// `(first, last)` submit time.
pub fn span(jobs: &[Job]) -> (Time, Time) {
    (
        jobs.first().map_or(0, |j| j.submit),
        jobs.last().map_or(0, |j| j.submit),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_specs_parse() {
        assert_eq!(
            SiteSpec::parse("CTC/430/0.4").unwrap(),
            SiteSpec {
                trace: "CTC".into(),
                procs: 430,
                copy_p: 0.4,
                keep: 1.0
            }
        );
        assert_eq!(SiteSpec::parse("SDSC/128/0/0.84").unwrap().keep, 0.84);
        assert_eq!(
            SiteSpec::parse("SDSC/128/0/1").unwrap(),
            SiteSpec::parse("SDSC/128/0").unwrap()
        );
        for bad in [
            "SDSC/128/0/0",
            "SDSC/128/0/1.2",
            "SDSC/128/0/x",
            "SDSC/128/0/0.8/1",
        ] {
            assert!(SiteSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(SiteSpec::parse("CTC/430").is_err());
        assert!(SiteSpec::parse("CTC/x/0.1").is_err());
        assert!(SiteSpec::parse("CTC/430/1.5").is_err());
        assert_eq!(
            SiteSpec::parse_list("CTC/430/0,SDSC/128/0.2")
                .unwrap()
                .len(),
            2
        );
    }

    /// A thinned site keeps a subset of its log's jobs (their shapes and times unchanged) and
    /// its offered load falls by about the kept fraction; `keep = 1` is the log as it is.
    #[test]
    fn thinning_a_site_keeps_a_subset_of_its_log() {
        let log: Vec<Job> = (0..20_000)
            .map(|i| Job::new(i, i as Time * 60, 1 + (i % 7) as u32, 300))
            .collect();
        let site = |k: f64| SiteSpec {
            trace: "T".into(),
            procs: 8,
            copy_p: 0.0,
            keep: k,
        };
        assert_eq!(scaled(&log, &site(1.0), 2008), log);
        let thin = scaled(&log, &site(0.84), 2008);
        assert!(thin.iter().all(|j| log[j.id as usize] == *j));
        let ratio = offered_load(&thin, 8) / offered_load(&log, 8);
        assert!((ratio - 0.84).abs() < 0.02, "{ratio}");
        // Copies are of the kept jobs only.
        let both = scaled(
            &log,
            &SiteSpec {
                copy_p: 0.5,
                ..site(0.84)
            },
            2008,
        );
        let base = thin.iter().map(|j| j.id).max().unwrap() + 1;
        assert!(both.len() > thin.len());
        assert!(both.iter().filter(|j| j.id < base).eq(thin.iter()));
    }

    /// The bisection finds the smallest p of a step measure to within 2^-30, and says when
    /// the log already reaches the target or cannot.
    #[test]
    fn bisection_finds_the_first_p_reaching_the_target() {
        // 1,000 copies whose kept count rises by one at each p = k / 1000 (the copies' draws).
        let steps = |p: f64| Ok(0.5 + 0.4 * (p * 1000.0).floor() / 1000.0);
        for target in [0.5004, 0.6, 0.7, 0.8999, 0.9] {
            let c = bisect_copy_p(target, steps).unwrap();
            let k = ((target - 0.5) / 0.4 * 1000.0 - 1e-9).ceil() / 1000.0;
            assert!(c.utilization >= target, "{target}: {c:?}");
            assert!((c.copy_p - k).abs() < 1e-8, "{target}: {c:?} vs {k}");
            assert_eq!(c.utilization, steps(c.copy_p).unwrap());
        }
        assert_eq!(bisect_copy_p(0.4, steps).unwrap().copy_p, 0.0);
        assert!(matches!(
            bisect_copy_p(0.95, steps),
            Err(BisectError::Unreachable(u)) if (u - 0.9).abs() < 1e-12
        ));
        assert!(matches!(
            bisect_copy_p(0.0, steps),
            Err(BisectError::Target)
        ));
        assert!(matches!(
            bisect_copy_p(1.2, steps),
            Err(BisectError::Target)
        ));
    }

    /// On the real CTC log: the calibrated site is the one a run simulates, its window's
    /// offered load reaches the target, and a hair less copying does not.
    #[test]
    fn calibration_on_the_ctc_log_reaches_the_target() {
        let Some(_) = gridsched_sim::data::data_file_or_skip("traces/CTC-SP2-1996-3.1-cln.swf.gz")
        else {
            return;
        };
        let site = SiteSpec::parse("CTC/430/0").unwrap();
        for target in [0.684, 0.788] {
            let c = calibrate_copy_p(
                &site,
                7_000,
                2008,
                30.0,
                target,
                UtilizationMeasure::Offered,
            )
            .unwrap();
            let at = |p: f64| {
                let s = SiteSpec {
                    copy_p: p,
                    ..site.clone()
                };
                offered_load(
                    &window(&background_jobs(&s, 7_000, 2008).unwrap(), 30.0),
                    430,
                )
            };
            assert_eq!(at(c.copy_p), c.utilization);
            assert!(
                c.utilization >= target && c.utilization < target + 0.01,
                "{c:?}"
            );
            assert!(at(c.copy_p - 1e-6) < target, "{c:?}");
        }
        let err = calibrate_copy_p(&site, 7_000, 2008, 30.0, 0.99, UtilizationMeasure::Offered)
            .unwrap_err();
        assert!(err.0.contains("out of reach"), "{}", err.0);
    }
}
