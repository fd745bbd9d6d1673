//! Provisioning a workflow at one moment (chapter 4): the sites' advertised slots, MOGA's
//! Pareto set of plans, a plan per trade-off factor α, and the load scaling of the
//! background traces (spec §2.15).

use gridsched_batch::{Job, Simulator, Time};
use rand::Rng;

use crate::holes::{HolesError, schedule_holes};
use crate::moga::{self, Member, MogaConfig, MogaResult};
use crate::plan::{App, Candidate, Evaluator, Schedule, candidates_of};

/// The slots every site advertises now (the holes of its conservative schedule, chapter 3
/// prices: 1 SU per processor-hour, no fixed cost), site `r` as resource `r`.
pub fn advertised(sites: &[Simulator]) -> Result<Vec<Candidate>, HolesError> {
    let mut out = Vec::new();
    for (r, s) in sites.iter().enumerate() {
        let set = schedule_holes(s, 0)?;
        out.extend(candidates_of(&set, r as u32, 1.0, 0.0));
    }
    Ok(out)
}

/// MOGA's outcome for one application at one submission time.
#[derive(Debug, Clone, PartialEq)]
pub struct Provisioned {
    /// Submission time.
    pub submit: Time,
    /// The advertised slots (the genome's bits).
    pub candidates: Vec<Candidate>,
    pub moga: MogaResult,
}

impl Provisioned {
    /// The plan eq. 15 picks for `alpha`, evaluated in full (`None`: no feasible plan found).
    pub fn plan(&self, app: &App, alpha: f64) -> Option<(Member, Schedule)> {
        let m = moga::select(&self.moga.archive, alpha)?.clone();
        let mut ev = Evaluator::new(app, &self.candidates, self.submit);
        let s = ev.schedule(&m.genome);
        Some((m, s))
    }
}

/// Runs MOGA for `app` submitted now on `sites` (all at the same time).
pub fn provision(
    app: &App,
    sites: &[Simulator],
    config: &MogaConfig,
    rng: &mut impl Rng,
) -> Result<Provisioned, HolesError> {
    let submit = sites.first().map_or(0, Simulator::now);
    let candidates = advertised(sites)?;
    let cands = &candidates;
    let result = moga::run(candidates.len(), config, rng, || {
        let mut e = Evaluator::new(app, cands, submit);
        move |g: &[bool]| e.evaluate(g)
    });
    Ok(Provisioned {
        submit,
        candidates,
        moga: result,
    })
}

/// One week, the shift of the second copy in Sabin et al.'s load scaling.
pub const WEEK: Time = 7 * 24 * 3600;

/// Sabin et al.'s load scaling (spec §2.15): every job of `jobs`, plus each job again,
/// shifted by `shift`, independently with probability `p` (draws in job order from `rng`).
/// Copies get ids above every original id.
pub fn scale_load(jobs: &[Job], p: f64, shift: Time, rng: &mut impl Rng) -> Vec<Job> {
    let mut out = jobs.to_vec();
    let base = jobs.iter().map(|j| j.id).max().unwrap_or(0) + 1;
    for j in jobs {
        // Always draw, so the copies kept at p are a subset of those kept at any p' > p.
        let u: f64 = rng.random();
        if u < p {
            let mut c = *j;
            c.id += base;
            c.submit += shift;
            if let Some(d) = c.deadline.as_mut() {
                *d += shift;
            }
            out.push(c);
        }
    }
    out.sort_by_key(|j| (j.submit, j.id));
    out
}

/// The mirror of [`scale_load`] for a lower load: each job of `jobs` kept independently with
/// probability `keep` (draws in job order from `rng`, one per job whatever `keep`, so the jobs
/// kept at `keep` are a subset of those kept at any `keep' > keep`). Submit times, ids and
/// shapes are unchanged; `keep = 1` returns the jobs as they are.
pub fn thin_load(jobs: &[Job], keep: f64, rng: &mut impl Rng) -> Vec<Job> {
    jobs.iter()
        .filter(|_| {
            let u: f64 = rng.random();
            u < keep
        })
        .copied()
        .collect()
}

/// Offered load: `Σ procs × run / (capacity × (last submit − first submit))`.
pub fn offered_load(jobs: &[Job], capacity: u32) -> f64 {
    let (Some(lo), Some(hi)) = (
        jobs.iter().map(|j| j.submit).min(),
        jobs.iter().map(|j| j.submit).max(),
    ) else {
        return 0.0;
    };
    let area: f64 = jobs.iter().map(|j| f64::from(j.procs) * j.run as f64).sum();
    if hi <= lo {
        return 0.0;
    }
    area / (f64::from(capacity) * (hi - lo) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn load_scaling_adds_shifted_copies_monotonically() {
        let jobs: Vec<Job> = (0..1000)
            .map(|i| Job::new(i, i as Time * 100, 2, 50))
            .collect();
        let mut r1 = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut r2 = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let lo = scale_load(&jobs, 0.2, WEEK, &mut r1);
        let hi = scale_load(&jobs, 0.4, WEEK, &mut r2);
        assert!(lo.len() > 1100 && lo.len() < 1300, "{}", lo.len());
        assert!(hi.len() > lo.len());
        // Every copy kept at 0.2 is kept at 0.4.
        for j in lo.iter().filter(|j| j.id >= 1000) {
            assert!(hi.contains(j));
            assert_eq!(j.submit, jobs[(j.id - 1000) as usize].submit + WEEK);
        }
        assert_eq!(scale_load(&jobs, 0.0, WEEK, &mut r1).len(), 1000);
        assert!((offered_load(&jobs, 4) - 0.25).abs() < 0.01);
    }

    #[test]
    fn thinning_keeps_a_monotone_subset_in_order_and_lowers_the_load() {
        let jobs: Vec<Job> = (0..10_000)
            .map(|i| Job::new(i, i as Time * 100, 2, 50))
            .collect();
        let thin = |keep: f64| {
            let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            thin_load(&jobs, keep, &mut r)
        };
        assert_eq!(thin(1.0), jobs);
        assert!(thin(0.0).is_empty());
        let lo = thin(0.6);
        let hi = thin(0.84);
        // Every job kept at 0.6 is kept at 0.84, unchanged and in order.
        assert!(
            lo.iter()
                .all(|j| hi.contains(j) && jobs[j.id as usize] == *j)
        );
        assert!(hi.windows(2).all(|w| w[0].submit < w[1].submit));
        assert!(
            (hi.len() as f64 / 10_000.0 - 0.84).abs() < 0.02,
            "{}",
            hi.len()
        );
        let (full, kept) = (offered_load(&jobs, 4), offered_load(&hi, 4));
        assert!((kept / full - 0.84).abs() < 0.02, "{kept} vs {full}");
    }
}
