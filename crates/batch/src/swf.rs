//! Jobs from a Parallel Workloads Archive log, read by `gridsched-workload`'s SWF reader
//! (which decides which records are usable and counts the rest).

use gridsched_workload::swf::{SwfJob, SwfLog};

use crate::Job;

/// A log's jobs ready to simulate on a cluster of a given size.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceJobs {
    /// In the log's order (non-decreasing submit time).
    pub jobs: Vec<Job>,
    /// The wait the log recorded for each kept job (field 3), aligned with `jobs`.
    pub recorded_wait: Vec<Option<i64>>,
    /// Jobs dropped because they need more processors than the cluster has.
    pub too_wide: u64,
    /// Kept jobs without a usable requested time (unknown or 0): planned with their run time.
    pub no_requested_time: u64,
    /// Kept jobs whose run time exceeds their requested time (killed at it under
    /// [`Estimates::Requested`](crate::Estimates::Requested)).
    pub run_exceeds_request: u64,
}

/// One SWF job as a simulator job: run time = field 4, processors = field 5 (or 8),
/// requested time = field 9 when positive.
pub fn job_from_swf(j: &SwfJob) -> Job {
    Job {
        id: j.id,
        submit: j.submit,
        procs: j.procs,
        run: j.run,
        requested: j.requested_time.filter(|&r| r > 0),
        deadline: None,
    }
}

/// The jobs of `log` that fit a cluster of `procs` processors (the others are counted).
pub fn trace_jobs(log: &SwfLog, procs: u32) -> TraceJobs {
    let mut out = TraceJobs {
        jobs: Vec::with_capacity(log.jobs.len()),
        recorded_wait: Vec::with_capacity(log.jobs.len()),
        too_wide: 0,
        no_requested_time: 0,
        run_exceeds_request: 0,
    };
    for j in &log.jobs {
        if j.procs > procs {
            out.too_wide += 1;
            continue;
        }
        let job = job_from_swf(j);
        match job.requested {
            None => out.no_requested_time += 1,
            Some(r) if job.run > r => out.run_exceeds_request += 1,
            Some(_) => {}
        }
        out.jobs.push(job);
        out.recorded_wait.push(j.wait);
    }
    out
}
