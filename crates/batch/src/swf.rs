//! Jobs from a Parallel Workloads Archive log, read by `gridsched-workload`'s SWF reader
//! (which decides which records are usable and counts the rest).

use gridsched_workload::InputError;
use gridsched_workload::swf::{
    SwfJob, SwfLoadOptions, SwfLog, SwfReader, load_each, load_from, stream_each,
};

use crate::{Config, Job, Platform, Simulator};

/// A log's jobs ready to simulate on a cluster of a given size.
#[derive(Debug, Clone, PartialEq, Default)]
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

impl TraceJobs {
    /// [`trace_jobs`]'s rule for one job, counted here: the simulator job if it fits a
    /// cluster of `procs` processors (not added to [`jobs`](Self::jobs)). For a log read as a
    /// stream ([`gridsched_workload::swf::load_each`]).
    pub fn admit(&mut self, j: &SwfJob, procs: u32) -> Option<Job> {
        if j.procs > procs {
            self.too_wide += 1;
            return None;
        }
        let job = job_from_swf(j);
        match job.requested {
            None => self.no_requested_time += 1,
            Some(r) if job.run > r => self.run_exceeds_request += 1,
            Some(_) => {}
        }
        Some(job)
    }
}

/// The jobs of `log` that fit a cluster of `procs` processors (the others are counted).
pub fn trace_jobs(log: &SwfLog, procs: u32) -> TraceJobs {
    let mut out = TraceJobs {
        jobs: Vec::with_capacity(log.jobs.len()),
        recorded_wait: Vec::with_capacity(log.jobs.len()),
        ..TraceJobs::default()
    };
    for j in &log.jobs {
        if let Some(job) = out.admit(j, procs) {
            out.jobs.push(job);
            out.recorded_wait.push(j.wait);
        }
    }
    out
}

/// A log simulated while it was read ([`read_while_simulating`]).
#[derive(Debug)]
pub struct Streamed {
    /// The simulator holding every job, run up to the last one's submit time: what
    /// [`Simulator::with_jobs`] on [`trace_jobs`]'s jobs gives once run to the end.
    pub sim: Simulator,
    /// [`trace_jobs`]'s counts (its `jobs` and `recorded_wait` stay empty).
    pub counts: TraceJobs,
    /// Jobs in the simulator.
    pub jobs: usize,
}

/// Opens a log again from its start, for [`read_while_simulating`].
pub type Reopen<'a> =
    dyn Fn() -> Result<SwfReader<Box<dyn std::io::BufRead + Send>>, InputError> + Sync + 'a;

/// Jobs sent from the reading thread to the simulator at a time.
const BATCH: usize = 4096;

/// Reads the log on a second thread (which reads from the inflating one, see
/// [`open_input`](gridsched_workload::swf::open_input)) and feeds the jobs that fit a cluster
/// of `procs` processors to a simulator on `platform` on this thread as they come, so that
/// parsing and simulating overlap on two cores (`gridsched replay`). Each batch extends the simulator's trace, which is then simulated up to the batch's
/// last submit time (what is before it cannot change: the log is in submit order).
///
/// The result is the whole-log simulation exactly (`Simulator::extend_trace`'s property
/// test), or `None` when the log is not a plain stream of jobs in order — jobs out of
/// submit-time order or repeated job numbers (the load sorts and renumbers at the end), a job
/// the simulator refuses — and the caller then simulates the whole log as before (from the
/// same `SwfLog`, so with the same warnings and errors). A read error is the error of the
/// whole load, whatever the simulator did.
///
/// With `reopen` (the log is a file, which can be read again), the reading thread holds no
/// job: the simulator holds them, and a log that turns out not to be a plain stream is read
/// again, whole, by `reopen` ([`stream_each`]). Without it (a pipe), the reading thread keeps
/// every job for that case, so the log is held twice until the end.
pub fn read_while_simulating(
    reader: SwfReader<Box<dyn std::io::BufRead + Send>>,
    options: SwfLoadOptions,
    procs: u32,
    platform: &Platform,
    config: Config,
    reopen: Option<&Reopen<'_>>,
) -> Result<(SwfLog, Option<Streamed>), InputError> {
    if std::thread::available_parallelism().is_ok_and(|n| n.get() < 2) {
        return Ok((load_from(reader, options)?, None));
    }
    // The header's job count, if it is one, sizes the simulator's job arrays once: growing
    // them by doubling copies them and touches fresh pages again. (Reserved memory that is
    // never written costs nothing; the hint is capped against a header that lies.)
    let hint = reader
        .header()
        .max_records
        .or(reader.header().max_jobs)
        .map_or(0, |m| m.min(1 << 24) as usize);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Job>>(8);
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || {
            let mut counts = TraceJobs::default();
            let mut batch = Vec::with_capacity(BATCH);
            let each = |j: &SwfJob| {
                if let Some(job) = counts.admit(j, procs) {
                    batch.push(job);
                    if batch.len() == BATCH {
                        // A simulator that stopped taking jobs is not waited for: the log is
                        // still read to the end, for its errors.
                        let _ = tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                    }
                }
            };
            let log = match reopen {
                Some(_) => stream_each(reader, options, each),
                None => load_each(reader, options, each).map(Some),
            };
            if !batch.is_empty() {
                let _ = tx.send(batch);
            }
            log.map(|log| (log, counts))
        });
        let mut sim: Option<Simulator> = None;
        let mut usable = true;
        let mut jobs = 0;
        for batch in rx {
            if !usable {
                continue;
            }
            jobs += batch.len();
            let Some(last) = batch.last().map(|j| j.submit) else {
                continue;
            };
            let fed = match &mut sim {
                Some(s) => s.extend_trace(&batch).is_ok(),
                // `with_jobs` would sort a batch out of order; the whole log is then sorted
                // differently: not a stream.
                None if batch
                    .windows(2)
                    .all(|w| (w[0].submit, w[0].id) <= (w[1].submit, w[1].id)) =>
                {
                    sim = Simulator::with_jobs(platform.clone(), config, batch).ok();
                    if let Some(s) = &mut sim {
                        s.reserve_trace(hint);
                    }
                    sim.is_some()
                }
                None => false,
            };
            match (&mut sim, fed) {
                (Some(s), true) => s.run_before(last),
                _ => usable = false,
            }
        }
        let (log, counts) = match reading.join() {
            Ok(r) => r?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let plain = |log: &SwfLog| log.report.out_of_order == 0 && log.report.duplicate_ids == 0;
        match (log, reopen) {
            (Some(log), _) if usable && plain(&log) => {
                Ok((log, sim.map(|sim| Streamed { sim, counts, jobs })))
            }
            // Not a plain stream, or a job the simulator refused: the caller's whole-log path
            // takes the log sorted and renumbered, as it was held...
            (Some(log), None) => Ok((log, None)),
            // ... or as it is read again, when the stream held none of it.
            (_, Some(reopen)) => {
                drop(sim);
                Ok((load_from(reopen()?, options)?, None))
            }
            (None, None) => unreachable!("`load_each` returns the whole log"),
        }
    })
}
