//! Write your own policy: shortest-job-first backfilling on a Parallel Workloads Archive log.
//!
//! EASY keeps its queue head's reservation and backfills in queue order; this policy keeps the
//! same reservation but tries the backfill candidates shortest planned run time first, so
//! short jobs slip into holes before long ones take them. It is a [`Dispatcher`] run by the
//! same engine as the built-in policies, and gets the same metrics, audit and Batsim CSV.
//!
//! ```sh
//! cargo run --release -p gridsched-batch --example sjf_backfill -- KTH [jobs.csv] [--limit N]
//! ```
//!
//! The log is a path or a short name looked up in the data directory (`$GRIDSCHED_DATA`, else
//! `../shared/data`); it prints this policy's summary beside the built-in EASY's.

use gridsched_batch::swf::trace_jobs;
use gridsched_batch::{
    Config, Dispatcher, Estimates, Platform, Policy, Round, SimError, Simulator, Summary, audit,
    write_batsim_csv,
};
use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};

/// The policy: start the queue in order while it fits; hold the first job that does not at its
/// earliest start; then start the others, shortest first, wherever they fit around that hold.
#[derive(Debug, Default)]
pub struct SjfBackfill {
    candidates: Vec<(i64, u32)>,
}

impl Dispatcher for SjfBackfill {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let queue = r.waiting().to_vec();
        let mut head = 0;
        while let Some(&job) = queue.get(head) {
            match fits_now(r, job) {
                Some(m) => r.start(job, m)?,
                None => break,
            }
            head += 1;
        }
        let Some(&blocked) = queue.get(head) else {
            return Ok(());
        };
        // The blocked head's reservation: the machine where it can start earliest.
        let procs = r.job(blocked).procs;
        let (start, m) = (0..r.platform().len())
            .filter(|&m| r.platform().machines()[m].cpus >= procs)
            .filter_map(|m| {
                let run = r.planned_run_time(blocked, m);
                Some((r.profile(m).earliest_fit(r.now(), run, procs)?, m))
            })
            .min()
            .expect("a job no wider than a machine fits on it eventually");
        r.hold(blocked, m, start)?;
        // Backfill, shortest planned run time first (ties: queue order).
        self.candidates.clear();
        for &job in &queue[head + 1..] {
            self.candidates.push((r.planned_run_time(job, 0), job));
        }
        self.candidates.sort_unstable();
        for &(_, job) in &self.candidates {
            if let Some(m) = fits_now(r, job) {
                r.start(job, m)?;
            }
        }
        Ok(())
    }
}

/// The first machine where `job` can start now without touching any reservation.
fn fits_now(r: &Round<'_>, job: u32) -> Option<usize> {
    let procs = r.job(job).procs;
    (0..r.platform().len()).find(|&m| {
        r.platform().machines()[m].cpus >= procs
            && r.profile(m)
                .fits(r.now(), r.planned_run_time(job, m), procs)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let limit = match args.iter().position(|a| a == "--limit") {
        Some(i) => {
            let n = args.get(i + 1).ok_or("--limit needs a number")?.parse()?;
            args.drain(i..=i + 1);
            Some(n)
        }
        None => None,
    };
    let log_name = args
        .first()
        .ok_or("usage: sjf_backfill LOG [jobs.csv] [--limit N]")?;
    let path = trace_path(&data_dir(None), log_name);
    let log = load_swf(&path, SwfLoadOptions { limit })?;
    let procs = log
        .header
        .max_procs
        .ok_or("the log's header has no MaxProcs")? as u32;
    let jobs = trace_jobs(&log, procs).jobs;
    let platform = Platform::cluster(procs)?;
    let estimates = Estimates::Requested;

    let mut mine = Simulator::with_jobs(
        platform.clone(),
        Config::new(Policy::External).estimates(estimates),
        jobs.clone(),
    )?;
    mine.run_with(&mut SjfBackfill::default())?;
    let mut easy = Simulator::with_jobs(
        platform.clone(),
        Config::new(Policy::Easy).estimates(estimates),
        jobs,
    )?;
    easy.run();

    for (name, sim) in [("sjf-backfill", &mine), ("easy (built-in)", &easy)] {
        let outcomes: Vec<_> = sim.outcomes().collect();
        audit(&outcomes, &platform, estimates)?;
        println!("{name}:");
        for line in Summary::new(&outcomes, &platform).lines() {
            println!("  {line}");
        }
    }
    if let Some(out) = args.get(1) {
        let outcomes: Vec<_> = mine.outcomes().collect();
        let mut csv = Vec::new();
        write_batsim_csv(&mut csv, &outcomes, &platform, "sjf-backfill")?;
        std::fs::write(out, csv)?;
        println!("wrote {out}");
    }
    Ok(())
}
