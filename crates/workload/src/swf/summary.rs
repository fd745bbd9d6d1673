//! Summary statistics of a loaded log (what `gridsched trace info` prints).

use super::log::SwfLog;

/// Mean and nearest-rank percentiles of a sample (percentile `p` = the smallest value with at
/// least a fraction `p` of the sample at or below it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distribution {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub p10: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    /// `None` for an empty sample. Sorts `values`.
    pub fn of(values: &mut [f64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let q = |p: f64| values[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Distribution {
            count: n,
            mean: values.iter().sum::<f64>() / n as f64,
            min: values[0],
            p10: q(0.10),
            p25: q(0.25),
            p50: q(0.50),
            p75: q(0.75),
            p90: q(0.90),
            p99: q(0.99),
            max: values[n - 1],
        })
    }
}

/// The fraction of a sorted sample at or below `x` (empirical CDF).
pub fn ecdf(sorted: &[f64], x: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted.partition_point(|&v| v <= x) as f64 / sorted.len() as f64
}

/// A log's workload at a glance. Times in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSummary {
    pub jobs: usize,
    /// Largest processor count of a kept job.
    pub max_job_procs: u32,
    /// Last submit minus first submit.
    pub span: i64,
    pub run_time: Option<Distribution>,
    /// Over the jobs whose requested time is known.
    pub requested_time: Option<Distribution>,
    pub size: Option<Distribution>,
    /// Between consecutive submits (jobs − 1 values).
    pub inter_arrival: Option<Distribution>,
    /// The log's own (batch) wait, over the jobs whose wait is known.
    pub wait: Option<Distribution>,
    /// Σ run·procs / span: processors kept busy on average by the offered work.
    pub offered_busy_procs: f64,
}

impl TraceSummary {
    /// Summarizes the kept jobs of `log`.
    pub fn of(log: &SwfLog) -> TraceSummary {
        let jobs = &log.jobs;
        let mut run: Vec<f64> = jobs.iter().map(|j| j.run as f64).collect();
        let mut req: Vec<f64> = jobs
            .iter()
            .filter_map(|j| j.requested_time.map(|t| t as f64))
            .collect();
        let mut size: Vec<f64> = jobs.iter().map(|j| f64::from(j.procs)).collect();
        let mut gaps: Vec<f64> = jobs
            .windows(2)
            .map(|w| (w[1].submit - w[0].submit) as f64)
            .collect();
        let mut wait: Vec<f64> = jobs
            .iter()
            .filter_map(|j| j.wait.map(|t| t as f64))
            .collect();
        let span = match (jobs.first(), jobs.last()) {
            (Some(a), Some(b)) => b.submit - a.submit,
            _ => 0,
        };
        let area: f64 = jobs.iter().map(|j| j.run as f64 * f64::from(j.procs)).sum();
        TraceSummary {
            jobs: jobs.len(),
            max_job_procs: jobs.iter().map(|j| j.procs).max().unwrap_or(0),
            span,
            run_time: Distribution::of(&mut run),
            requested_time: Distribution::of(&mut req),
            size: Distribution::of(&mut size),
            inter_arrival: Distribution::of(&mut gaps),
            wait: Distribution::of(&mut wait),
            offered_busy_procs: if span > 0 {
                area / span as f64
            } else {
                f64::NAN
            },
        }
    }

    /// Offered load on `processors` processors: [`offered_busy_procs`](Self::offered_busy_procs)
    /// divided by `processors`.
    pub fn offered_load(&self, processors: u32) -> f64 {
        self.offered_busy_procs / f64::from(processors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<f64> = (1..=10).map(f64::from).collect();
        let d = Distribution::of(&mut v).unwrap();
        assert_eq!(
            (d.p10, d.p50, d.p90, d.p99, d.max),
            (1.0, 5.0, 9.0, 10.0, 10.0)
        );
        assert_eq!(d.mean, 5.5);
        assert_eq!(ecdf(&v, 5.0), 0.5);
        assert_eq!(ecdf(&v, 0.5), 0.0);
        assert!(Distribution::of(&mut []).is_none());
    }
}
