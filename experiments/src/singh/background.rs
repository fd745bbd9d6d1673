//! The background of Singh's experiments: a Parallel Workloads Archive log on a cluster of the
//! thesis's size, its load raised by Sabin et al.'s method (spec §2.15), simulated under
//! conservative backfilling.

use std::path::Path;
use std::sync::Arc;

use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time, swf::trace_jobs};
use gridsched_provisioning::{WEEK, scale_load};
use gridsched_repro::model::ModelError;
use gridsched_sim::StreamKey;
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

use crate::memo::Memo;

/// One site: a log on `procs` processors with a shifted copy of each job kept with
/// probability `copy_p` (0: the log as it is).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteSpec {
    pub trace: String,
    pub procs: u32,
    pub copy_p: f64,
}

impl SiteSpec {
    /// Parses `TRACE/PROCS/P` (e.g. `CTC/430/0.4`).
    pub fn parse(s: &str) -> Result<SiteSpec, ModelError> {
        let bad = || {
            ModelError(format!(
                "site `{s}`: expected TRACE/PROCS/COPY_P, e.g. CTC/430/0.4"
            ))
        };
        let mut it = s.trim().split('/');
        let (Some(t), Some(p), Some(c), None) = (it.next(), it.next(), it.next(), it.next()) else {
            return Err(bad());
        };
        let procs: u32 = p.parse().map_err(|_| bad())?;
        let copy_p: f64 = c.parse().map_err(|_| bad())?;
        if procs == 0 || !(0.0..=1.0).contains(&copy_p) || t.is_empty() {
            return Err(bad());
        }
        Ok(SiteSpec {
            trace: t.to_string(),
            procs,
            copy_p,
        })
    }

    /// A list separated by commas.
    pub fn parse_list(s: &str) -> Result<Vec<SiteSpec>, ModelError> {
        s.split(',').map(SiteSpec::parse).collect()
    }
}

/// The jobs of a site's background: the log's first `jobs` kept jobs that fit `procs`, plus
/// the shifted copies. The copies are drawn from one stream per log (`seed`), so a higher
/// `copy_p` keeps a superset of the copies a lower one keeps.
pub fn background_jobs(site: &SiteSpec, jobs: u64, seed: u64) -> Result<Arc<Vec<Job>>, ModelError> {
    static CACHE: Memo<Vec<Job>> = Memo::new();
    let key = format!(
        "{}|{}|{}|{jobs}|{seed}",
        site.trace, site.procs, site.copy_p
    );
    CACHE.get(key, || {
        let path = trace_path(&data_dir(None), &site.trace);
        let limit = usize::try_from(jobs).ok().filter(|&j| j > 0);
        let log = load_swf(Path::new(&path), SwfLoadOptions { limit }).map_err(|e| {
            ModelError(format!(
                "{e} (logs are read from <data>/traces/: --data-dir, $GRIDSCHED_DATA or ../shared/data)"
            ))
        })?;
        let tj = trace_jobs(&log, site.procs);
        let mut rng = StreamKey::new(seed, "singh-load")
            .point(&site.trace)
            .stream("copies")
            .rng();
        Ok(scale_load(&tj.jobs, site.copy_p, WEEK, &mut rng))
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
                copy_p: 0.4
            }
        );
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
}
