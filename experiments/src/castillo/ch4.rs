//! Castillo (2008) ch. 4: online advance reservations on `(H, n)`-heterogeneous servers
//! (FF-HU, FF-HA, FF-HA+). Time unit: hour.

use cpu_time::ThreadTime;

use gridsched_geom::Window;
use gridsched_geom::hetero::RatedWindow;
use gridsched_reservation::hetero::{
    ClassOrder, HeteroAlgorithm, HeteroAudit, HeteroConfig, HeteroScheduler, ListIndex, ONE_MINUTE,
    PlusPick, RateProposal, rates,
};
use gridsched_sim::StreamKey;
use gridsched_workload::hetero::{Ch4Arrival, Ch4Deadline, HeteroWorkload, SplitUniform};

use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};

/// The chapter 4 model: Poisson arrivals booked up to 14 days ahead on `n` servers whose rates
/// form one of the `(H, n)` heterogeneity levels, scheduled by one algorithm.
#[derive(Debug, Clone, Copy)]
pub struct CastilloCh4;

const PARAMETERS: &[(&str, &str)] = &[
    ("servers", "number of servers n (default 120)"),
    (
        "level",
        "heterogeneity level 0..4 (0 = homogeneous, 4 = most heterogeneous; default 4) — spec A25",
    ),
    (
        "rates",
        "A (default: 3 equal groups 0.5∓0.1·level) | B (a few fast servers get faster) — spec A21",
    ),
    ("algorithm", "ff-hu | ff-ha | ff-ha-plus (required)"),
    (
        "ffha_plus_pick",
        "tree (default) | max_cap_in_first_group | earliest_start — spec A22",
    ),
    (
        "class_order",
        "ascending (default: slowest class first) | descending — FF-HA and FF-HA+ list order",
    ),
    (
        "list_index",
        "blocks (default: block summaries) | scan (the thesis's list walked from the head) — FF-HU and FF-HA; same decisions, only cpu_ms differs — spec A26b",
    ),
    (
        "load",
        "offered load rho = lambda * mean size / total rate (required)",
    ),
    (
        "tightness",
        "deadline tightness q in hours (default 20) — slack U(0, q)",
    ),
    (
        "ch4_deadline",
        "slack_after_size (default: d = r + l + U(0,q)) | literal (d ~ U(r, r+q)) — spec A19",
    ),
    (
        "ch4_arrival",
        "book_ahead (default: Poisson, r - a ~ U[book-ahead]) | literal (inter-arrivals U[book-ahead]) — spec A17",
    ),
    (
        "book_ahead_min",
        "shortest book-ahead, hours (default 1/60)",
    ),
    (
        "book_ahead_max",
        "longest book-ahead, hours (default 336 = 14 days)",
    ),
    (
        "size_min",
        "smallest job size (work), hours (default 1/60) — spec A18",
    ),
    ("size_split", "small/large size boundary, hours (default 4)"),
    ("size_max", "largest job size, hours (default 36)"),
    (
        "small_fraction",
        "fraction of jobs in U[size_min, size_split] (default 0.8)",
    ),
    (
        "min_fragment",
        "idle fragments below this nominal capacity (work, hours) are discarded (default 1/60) — spec A24",
    ),
    ("audit", "check every schedule's invariants (default false)"),
];

const METRICS: &[&str] = &[
    "work_loss",
    "loss",
    "utilization",
    "waiting",
    "ops_per_job",
    "idle_periods",
    "fast_idle_periods",
    "slow_share",
    "feasible_work_loss",
    "cpu_ms",
];

/// Everything one run needs, parsed from the parameters.
#[derive(Debug, Clone)]
struct Ch4Config {
    workload: HeteroWorkload,
    scheduler: HeteroConfig,
    audit: bool,
}

impl CastilloCh4 {
    fn config(&self, p: &ParamSet) -> Result<Ch4Config, ModelError> {
        let servers = p.u32_or("servers", 120)?;
        let level = p.u32_or("level", rates::MAX_LEVEL)?;
        let proposal_name = p.str_or("rates", RateProposal::default().name())?;
        let proposal = RateProposal::from_name(proposal_name).ok_or_else(|| {
            ModelError(format!(
                "parameter `rates`: unknown value `{proposal_name}`; expected A or B"
            ))
        })?;
        let server_rates = rates::level_rates(proposal, level, servers)
            .map_err(|e| ModelError(format!("parameters `rates`/`level`/`servers`: {e}")))?;
        let algorithm: HeteroAlgorithm = p
            .str_or("algorithm", "")?
            .parse()
            .map_err(|e: String| ModelError(format!("parameter `algorithm`: {e}")))?;
        let pick = p.choice(
            "ffha_plus_pick",
            PlusPick::Tree,
            &[
                ("tree", PlusPick::Tree),
                ("max_cap_in_first_group", PlusPick::MaxCapInFirstGroup),
                ("earliest_start", PlusPick::EarliestStart),
            ],
        )?;
        let class_order = p.choice(
            "class_order",
            ClassOrder::Ascending,
            &[
                ("ascending", ClassOrder::Ascending),
                ("descending", ClassOrder::Descending),
            ],
        )?;
        let list_index = p.choice(
            "list_index",
            ListIndex::Blocks,
            &[("blocks", ListIndex::Blocks), ("scan", ListIndex::Scan)],
        )?;
        let mut scheduler = HeteroConfig::new(server_rates, algorithm);
        scheduler.pick = pick;
        scheduler.class_order = class_order;
        scheduler.list_index = list_index;
        scheduler.min_fragment = p.f64_or("min_fragment", ONE_MINUTE)?;
        scheduler.validate().map_err(ModelError::from_display)?;

        let load = p.f64("load")?;
        if !(load.is_finite() && load > 0.0) {
            return Err(ModelError(format!(
                "parameter `load` must be positive, got {load}"
            )));
        }
        let total_rate: f64 = scheduler.rates.iter().sum();
        let mut workload = HeteroWorkload::new(total_rate, load);
        workload.tightness = p.f64_or("tightness", workload.tightness)?;
        workload.book_ahead = (
            p.f64_or("book_ahead_min", workload.book_ahead.0)?,
            p.f64_or("book_ahead_max", workload.book_ahead.1)?,
        );
        workload.sizes = SplitUniform {
            min: p.f64_or("size_min", workload.sizes.min)?,
            split: p.f64_or("size_split", workload.sizes.split)?,
            max: p.f64_or("size_max", workload.sizes.max)?,
            small_fraction: p.f64_or("small_fraction", workload.sizes.small_fraction)?,
        };
        workload.deadline = p.choice(
            "ch4_deadline",
            Ch4Deadline::SlackAfterSize,
            &[
                ("slack_after_size", Ch4Deadline::SlackAfterSize),
                ("literal", Ch4Deadline::Literal),
            ],
        )?;
        workload.arrival = p.choice(
            "ch4_arrival",
            Ch4Arrival::BookAhead,
            &[
                ("book_ahead", Ch4Arrival::BookAhead),
                ("literal", Ch4Arrival::Literal),
            ],
        )?;
        Ok(Ch4Config {
            workload,
            scheduler,
            audit: p.bool_or("audit", false)?,
        })
    }
}

impl Model for CastilloCh4 {
    fn name(&self) -> &'static str {
        "castillo-ch4"
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
        let c = self.config(params)?;
        let mut stream = c
            .workload
            .stream(key)
            .map_err(ModelError::from_display)?
            .take(jobs as usize);
        let mut scheduler =
            HeteroScheduler::new(c.scheduler.clone()).map_err(ModelError::from_display)?;
        let mut recorder = scheduler.recorder();
        let mut audit = c.audit.then(HeteroAudit::new);
        let fastest = scheduler.classes().len() - 1;
        let fastest_rate = scheduler.classes().rate(fastest);
        let mut busy = std::time::Duration::ZERO;
        // Work that could meet its deadline at all (on the fastest class, with no other job in
        // the way), and how much of it was booked: the loss that the scheduler, not the rate
        // vector, is responsible for.
        let (mut feasible_work, mut booked_feasible) = (0.0, 0.0);
        // Jobs go through in batches: generate a batch, decide it under the clock, then record
        // it. Only the scheduling routine is timed (spec A26: scheduler time per run), and two
        // clock reads per batch instead of per decision keep the clock out of the measurement
        // (they cost about as much as a tenth of a decision; docs/benchmarks.md, issue 32).
        const BATCH: usize = 256;
        let mut batch = Vec::with_capacity(BATCH);
        let mut decided = Vec::with_capacity(BATCH);
        let mut i = 0usize;
        loop {
            batch.clear();
            batch.extend(stream.by_ref().take(BATCH));
            if batch.is_empty() {
                break;
            }
            decided.clear();
            let started = ThreadTime::now();
            for r in &batch {
                let d = scheduler
                    .decide(r.arrival, r.ready, r.work, r.deadline)
                    .map_err(ModelError::from_display)?;
                decided.push((
                    d,
                    scheduler.live_periods(),
                    scheduler.live_in_class(fastest),
                ));
            }
            busy += started.elapsed();
            for (r, &(d, live, fast_live)) in batch.iter().zip(&decided) {
                // A window the deadline makes impossible even at rate 1 (the literal deadline
                // reading) is infeasible everywhere.
                if let Ok(window) = Window::new(r.ready, r.work, r.deadline)
                    && RatedWindow::new(&window, fastest_rate).possible
                {
                    feasible_work += r.work;
                    if d.booking.is_some() {
                        booked_feasible += r.work;
                    }
                }
                recorder.record(
                    r.arrival,
                    r.ready,
                    r.work,
                    d.booking.as_ref(),
                    d.on_slowest_class,
                    d.operations,
                    live,
                    fast_live,
                );
                if let (Some(a), Some(b)) = (audit.as_mut(), d.booking.as_ref()) {
                    let class = scheduler.class_of_server(b.server) as usize;
                    let rate = scheduler.classes().rate(class);
                    a.record(i, r.arrival, r.ready, r.work, r.deadline, Some(b), rate);
                }
                i += 1;
            }
        }
        if let Some(a) = audit.as_mut() {
            let violations = a.violations();
            if let Some(first) = violations.first() {
                return Err(ModelError(format!(
                    "{} schedule violations, first: {first}",
                    violations.len()
                )));
            }
        }
        let mut out = recorder.finish().named().to_vec();
        let feasible_loss = if feasible_work > 0.0 {
            1.0 - booked_feasible / feasible_work
        } else {
            0.0
        };
        out.push(("feasible_work_loss", feasible_loss));
        // CPU time of the scheduling routine over the run (this thread's: the machine's other
        // work does not count); the harness keeps `cpu_*` metrics out of every reproducible
        // output.
        out.push(("cpu_ms", busy.as_secs_f64() * 1e3));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::model::measured;
    use gridsched_repro::spec::ParamValue;

    #[test]
    fn runs_and_audits_every_algorithm() {
        for a in HeteroAlgorithm::ALL {
            for (level, rates) in [(1, "A"), (4, "B")] {
                let p = ParamSet::from_pairs(&[
                    ("load", 0.8.into()),
                    ("algorithm", a.name().into()),
                    ("level", level.into()),
                    ("rates", rates.into()),
                    ("audit", true.into()),
                ]);
                let m = CastilloCh4.run(&p, &StreamKey::new(1, "t"), 3000).unwrap();
                let wl = measured(&m, "work_loss").unwrap();
                assert!((0.0..=1.0).contains(&wl), "{a}: {wl}");
                // 3,000 jobs span about the 14-day look-ahead: the system is still filling.
                let u = measured(&m, "utilization").unwrap();
                assert!(u > 0.05 && u <= 1.0, "{a}: {u}");
                assert_eq!(m.len(), METRICS.len());
                assert!(m.iter().zip(METRICS).all(|(x, n)| x.0 == *n));
            }
        }
    }

    #[test]
    fn literal_switches_run() {
        let p = ParamSet::from_pairs(&[
            ("load", 0.5.into()),
            ("algorithm", "ff-ha-plus".into()),
            ("ch4_deadline", "literal".into()),
        ]);
        let m = CastilloCh4.run(&p, &StreamKey::new(2, "t"), 2000).unwrap();
        // About a quarter of the jobs cannot fit even on a rate-1 server.
        assert!(measured(&m, "loss").unwrap() > 0.2, "{m:?}");
        let p = ParamSet::from_pairs(&[
            ("load", 0.5.into()),
            ("algorithm", "ff-hu".into()),
            ("ch4_arrival", "literal".into()),
        ]);
        let m = CastilloCh4.run(&p, &StreamKey::new(2, "t"), 500).unwrap();
        assert!(measured(&m, "utilization").unwrap() < 0.01, "{m:?}");
    }

    #[test]
    fn bad_parameters_are_reported() {
        let err = |pairs: &[(&str, ParamValue)]| {
            CastilloCh4
                .run(&ParamSet::from_pairs(pairs), &StreamKey::new(1, "t"), 10)
                .unwrap_err()
                .0
        };
        assert!(err(&[("load", 0.5.into())]).contains("parameter `algorithm`"));
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("algorithm", "ff-hu".into()),
                ("level", 7.into())
            ])
            .contains("level 7")
        );
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("algorithm", "ff-hu".into()),
                ("rates", "C".into())
            ])
            .contains("unknown value `C`")
        );
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("algorithm", "ff-hu".into()),
                ("rates", "B".into()),
                ("servers", 100.into())
            ])
            .contains("divisible by 6")
        );
        assert!(err(&[("algorithm", "ff-hu".into())]).contains("`load` is required"));
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("algorithm", "ff-hu".into()),
                ("colour", 1.into())
            ])
            .contains("no parameter `colour`")
        );
    }
}
