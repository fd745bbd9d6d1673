//! One simulation of one algorithm on one platform and job stream.

use cpu_time::ThreadTime;
use gridsched_batch::{
    Config as BatchConfig, Dispatcher, Estimates, Job, Outcome, Platform, Policy, Round, SimError,
    Simulator,
};
use gridsched_sim::SimRng;

use crate::machine::PlannedJob;
use crate::metrics::Metrics;
use crate::plan::{GridSchedule, JobInfo};
use crate::{Config, Error, TabuSetting};

/// The six algorithms of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Fcfs,
    Easy,
    Flexible,
    /// incr-EG-EDF.
    EgEdf,
    /// incr-EG-EDF+TS.
    EgEdfTabu(TabuSetting),
    /// re-comp-EG-EDF.
    ReComp,
}

impl Algorithm {
    /// Parses `fcfs`, `easy`, `flexible`, `eg-edf`, `eg-edf-ts` (with `tabu`), `re-comp`.
    pub fn parse(name: &str, tabu: TabuSetting) -> Option<Algorithm> {
        Some(match name {
            "fcfs" => Algorithm::Fcfs,
            "easy" => Algorithm::Easy,
            "flexible" | "flex" => Algorithm::Flexible,
            "eg-edf" => Algorithm::EgEdf,
            "eg-edf-ts" => Algorithm::EgEdfTabu(tabu),
            "re-comp" => Algorithm::ReComp,
            _ => return None,
        })
    }

    /// The canonical name.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Fcfs => "fcfs",
            Algorithm::Easy => "easy",
            Algorithm::Flexible => "flexible",
            Algorithm::EgEdf => "eg-edf",
            Algorithm::EgEdfTabu(_) => "eg-edf-ts",
            Algorithm::ReComp => "re-comp",
        }
    }

    /// Whether it keeps a schedule (rather than a queue).
    pub fn schedule_based(&self) -> bool {
        matches!(
            self,
            Algorithm::EgEdf | Algorithm::EgEdfTabu(_) | Algorithm::ReComp
        )
    }
}

/// What one run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Every job's machine, start and end, in job-index order (submit, then id).
    pub outcomes: Vec<Outcome>,
    pub metrics: Metrics,
    /// Deterministic work of the scheduler (see [`crate::machine::Work`] for the
    /// schedule-based algorithms; scheduling rounds plus queued jobs examined for the
    /// queue-based ones).
    pub work: u64,
    /// Scheduling events (distinct event times).
    pub events: u64,
    /// Jobs placed by incr-EG-EDF (re-comp-EG-EDF counts every re-placement; 0 for the
    /// queue-based algorithms).
    pub placements: u64,
    /// Placements in which the objective scored two candidates exactly alike, so that the
    /// tie-break ([`crate::TieBreak`], reading A17) took part in the machine choice.
    pub tied_placements: u64,
    /// CPU time of the whole simulation on this thread (engine and scheduler), seconds: not
    /// reproducible bit for bit.
    pub cpu_seconds: f64,
}

/// The schedule-based algorithms as an external dispatcher of the batch engine.
struct ScheduleDispatcher<'a> {
    algorithm: Algorithm,
    schedule: GridSchedule,
    jobs: Vec<JobInfo>,
    arrivals: u64,
    rng: &'a mut SimRng,
    started: Vec<(usize, PlannedJob)>,
}

impl Dispatcher for ScheduleDispatcher<'_> {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let now = r.now();
        for &idx in r.arrived() {
            let job = self.jobs[idx as usize];
            match self.algorithm {
                Algorithm::ReComp => self.schedule.recompute_with(&job, now, &self.jobs),
                _ => {
                    self.schedule.insert_eg_edf(&job, now);
                }
            }
            self.arrivals += 1;
            if let Algorithm::EgEdfTabu(ts) = self.algorithm
                && self.arrivals.is_multiple_of(u64::from(ts.frequency))
            {
                self.schedule.tabu_search(
                    ts.iterations,
                    ts.tabu_capacity(),
                    now,
                    &self.jobs,
                    self.rng,
                );
            }
        }
        self.started.clear();
        self.schedule.start_due(now, &self.jobs, &mut self.started);
        for &(m, job) in &self.started {
            r.start(job.index, m)?;
        }
        Ok(())
    }
}

/// Runs `algorithm` on `platform` over `jobs` (any order; the engine sorts them by submit time,
/// then id). `rng` drives MoveJob's random machine order (the only random choice of the
/// schedule-based algorithms).
pub fn run(
    platform: &Platform,
    jobs: Vec<Job>,
    algorithm: Algorithm,
    config: &Config,
    rng: &mut SimRng,
) -> Result<RunResult, Error> {
    let policy = match algorithm {
        Algorithm::Fcfs => Policy::Fcfs,
        Algorithm::Easy => Policy::Easy,
        Algorithm::Flexible => Policy::Flexible,
        _ => Policy::External,
    };
    let mut batch = BatchConfig::new(policy)
        .estimates(Estimates::Actual)
        .machine_select(config.queue_machine_select);
    batch.flex = config.flex;
    batch.check_invariants = false;
    let started = ThreadTime::now();
    let mut sim = Simulator::with_jobs(platform.clone(), batch, jobs)?;
    let mut placements = (0, 0);
    let work = if algorithm.schedule_based() {
        let n = sim.job_count();
        let infos: Vec<JobInfo> = (0..n)
            .map(|i| {
                let j = sim.record(i).job;
                JobInfo {
                    index: i as u32,
                    id: j.id,
                    release: j.submit,
                    procs: j.procs,
                    run: j.run,
                    deadline: j.deadline,
                }
            })
            .collect();
        let mut d = ScheduleDispatcher {
            algorithm,
            schedule: GridSchedule::new(platform.clone(), *config, sim.now()),
            jobs: infos,
            arrivals: 0,
            rng,
            started: Vec::new(),
        };
        sim.run_with(&mut d)?;
        placements = (d.schedule.work.placements, d.schedule.work.tied_placements);
        d.schedule.work.total()
    } else {
        sim.run();
        let c = sim.counters();
        c.rounds + c.backfill_checks
    };
    let cpu_seconds = started.elapsed().as_secs_f64();
    let outcomes: Vec<Outcome> = sim.outcomes().collect();
    if outcomes.len() != sim.job_count() {
        return Err(Error::Config(format!(
            "{} of {} jobs never ran",
            sim.job_count() - outcomes.len(),
            sim.job_count()
        )));
    }
    let metrics = Metrics::of(&outcomes, platform);
    Ok(RunResult {
        outcomes,
        metrics,
        work,
        events: sim.counters().events,
        placements: placements.0,
        tied_placements: placements.1,
        cpu_seconds,
    })
}
