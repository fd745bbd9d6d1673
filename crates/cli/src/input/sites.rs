//! Sites: a log replayed on a cluster of its processors, as `slots`, `price` and `provision`
//! (Singh) take them: one `--trace` with its processor count, or a `--sites NAME[:PROCS],...`
//! list.

use anyhow::{Result, bail};
use clap::ValueEnum;
use gridsched_batch::{Config, Estimates, Job, Platform, Policy, Simulator, Time, swf::trace_jobs};

use super::limits;
use super::logs::LogFile;

/// Run times a site plans with (`--estimates` of `slots` and `price`).
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EstimatesArg {
    /// Exact run times (the thesis's default).
    Actual,
    /// The log's requested times (field 9); jobs end early and the schedule is compressed.
    Requested,
}

impl From<EstimatesArg> for Estimates {
    fn from(e: EstimatesArg) -> Estimates {
        match e {
            EstimatesArg::Actual => Estimates::Actual,
            EstimatesArg::Requested => Estimates::Requested,
        }
    }
}

/// A site's log loaded as jobs on its processors.
#[derive(Debug)]
pub struct Site {
    /// The jobs the site runs: the log's, less those wider than it.
    pub jobs: Vec<Job>,
    /// Its processors.
    pub procs: u32,
    /// The log's file, as messages name it.
    pub path: String,
}

impl Site {
    /// Loads `log` (saying what reading changed) on `procs` processors (checked), or on the
    /// header's MaxProcs when `None`; `procs_flag` names the option that sets the count in
    /// messages. Jobs wider than the site are dropped and counted; a site left without jobs
    /// is refused.
    pub fn load(log: &LogFile, procs: Option<u32>, procs_flag: &str) -> Result<Site> {
        let swf = log.load()?;
        let procs = match procs {
            Some(p) => limits::procs(procs_flag, p)?,
            None => log.header_procs(&swf, procs_flag)?,
        };
        let tj = trace_jobs(&swf, procs);
        log.note_too_wide(tj.too_wide, procs, "");
        super::require_jobs(log.path(), tj.jobs.len())?;
        Ok(Site {
            jobs: tj.jobs,
            procs,
            path: log.path().display().to_string(),
        })
    }

    /// Warns (on standard error, so a piped CSV stays clean) when `at` is before the log's
    /// first submission or after its last: the site is then empty, or holds only what is left
    /// of its log — legal, but rarely what was meant (a log's clock need not start at 0:
    /// CEA-Curie's first job is submitted on day 366).
    pub fn warn_past_end(&self, at: Time) {
        let first = self.jobs.iter().map(|j| j.submit).min();
        let last = self.jobs.iter().map(|j| j.submit).max();
        let hours = |t: Time| t as f64 / 3600.0;
        let path = &self.path;
        if let Some(first) = first
            && at < first
        {
            note!(
                "warning: --at {:.1} h is before the first submission of {path} ({:.1} h = day {:.1}): the site is empty then",
                hours(at),
                hours(first),
                first as f64 / 86_400.0
            );
        } else if let Some(last) = last
            && at > last
        {
            note!(
                "warning: --at {:.1} h is after the last submission of {path} ({:.1} h): the site holds only what is left of its log",
                hours(at),
                hours(last)
            );
        }
    }

    /// The site as a simulator of its jobs under `policy`, planning with `estimates` (not yet
    /// run).
    pub fn simulator(self, policy: Policy, estimates: Estimates) -> Result<Simulator> {
        Ok(Simulator::with_jobs(
            Platform::cluster(self.procs)?,
            Config::new(policy)
                .estimates(estimates)
                .check_invariants(false),
            self.jobs,
        )?)
    }
}

/// `--sites NAME[:PROCS],...`: each site's log name and its processor count if given
/// (checked). A name given twice is refused: a site's name is its column value in the
/// schedule, which two alike would make ambiguous.
pub fn parse_list(sites: &[String]) -> Result<Vec<(String, Option<u32>)>> {
    let specs = sites
        .iter()
        .map(|s| match s.split_once(':') {
            Some((n, p)) => {
                let p = p
                    .parse::<u32>()
                    .map_err(|_| anyhow::anyhow!("--sites: `{s}`: PROCS must be a number"))?;
                limits::procs(&format!("--sites: `{s}`: PROCS"), p)?;
                Ok((n.to_string(), Some(p)))
            }
            None => Ok((s.clone(), None)),
        })
        .collect::<Result<Vec<_>>>()?;
    for (i, (name, _)) in specs.iter().enumerate() {
        if specs[..i].iter().any(|(n, _)| n == name) {
            bail!("--sites: `{name}` names the site of two entries; give each site once");
        }
    }
    Ok(specs)
}
