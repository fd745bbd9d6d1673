//! Castillo (2008) ch. 3: online advance reservations on `n` identical servers.

use gridsched_geom::{ExpiryMode, StripOrder};
use gridsched_reservation::{
    BestFitSearch, EmptyBin, IndexKind, LactLate, MinTipReading, R2Pick, ReservationScheduler,
    RunRecorder, ScheduleAudit, SchedulerConfig, SizeBins, Step2Start, Strategy, StrategyOptions,
    run,
};
use gridsched_sim::{BoundedPareto, StreamKey};
use gridsched_workload::{ReadyOffset, ReservationWorkload};

use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};

/// The chapter 3 model: Poisson arrivals, bounded-Pareto sizes, one strategy.
#[derive(Debug, Clone, Copy)]
pub struct CastilloCh3;

const PARAMETERS: &[(&str, &str)] = &[
    ("servers", "number of identical servers n (default 20)"),
    (
        "load",
        "offered load rho = lambda * mean size / n (required)",
    ),
    (
        "alpha",
        "bounded-Pareto shape (default 1.2, mean 3.286); exclusive with mean_size",
    ),
    (
        "mean_size",
        "target mean job size; the shape is solved for it (spec §2.21)",
    ),
    (
        "size_max",
        "largest job size p (default 50); the smallest is l_min",
    ),
    ("tightness", "deadline tightness q in [0, 1] (default 0.1)"),
    ("look_ahead", "look-ahead L (default 200)"),
    ("l_min", "time unit / shortest job (default 1)"),
    ("strip_multiplier", "strip width multiplier M (default 1)"),
    ("expiry", "pool (default) | clip — spec A14"),
    (
        "ready_offset",
        "uniform_0_L_minus_l (default) | zero | uniform_0_L_clipped — spec A1",
    ),
    (
        "strategy",
        "first-fit | min-lip | min-tip | best-fit | lact | max-lip | max-tip",
    ),
    ("r2_pick", "max_length (default) | earliest_start — spec A6"),
    ("minlip_step2_first", "p (default) | p-1 — spec A7"),
    ("mintip", "mirror (default) | narrative — spec A9"),
    (
        "mintip_step1_order",
        "latest_end (default) | earliest_end — spec §2.6",
    ),
    (
        "lact_late",
        "earliest_completion (default) | latest_feasible_completion — spec A12",
    ),
    (
        "best_fit_search",
        "exact (default) | literal_strip_queries: §3.3.3's per-strip queries without the boundary-strip fixes — spec §2.7, A10 (sensitivity)",
    ),
    ("fairness_bins", "number of size bins B (default 100)"),
    (
        "fairness_empty_bin",
        "skip (default) | count_as_one — spec A16",
    ),
    (
        "index",
        "tree (default) | linear: the idle-period index (decisions are identical)",
    ),
    ("audit", "check every schedule's invariants (default false)"),
];

const METRICS: &[&str] = &[
    "loss",
    "work_loss",
    "utilization",
    "delay",
    "fairness",
    "ops_per_job",
    "cpu_ms",
];

impl CastilloCh3 {
    fn config(
        &self,
        p: &ParamSet,
    ) -> Result<(ReservationWorkload, SchedulerConfig, usize, EmptyBin, bool), ModelError> {
        let servers = p.u32_or("servers", 20)?;
        let l_min = p.f64_or("l_min", 1.0)?;
        let size_max = p.f64_or("size_max", 50.0)?;
        let sizes = match (p.has("alpha"), p.has("mean_size")) {
            (true, true) => {
                return Err(ModelError(
                    "give either `alpha` or `mean_size`, not both".into(),
                ));
            }
            (_, true) => BoundedPareto::with_mean(l_min, size_max, p.f64("mean_size")?),
            _ => BoundedPareto::new(l_min, size_max, p.f64_or("alpha", 1.2)?),
        }
        .map_err(ModelError::from_display)?;
        let strategy: Strategy = p
            .str_or("strategy", "")?
            .parse()
            .map_err(|e: String| ModelError(e))?;
        let options = StrategyOptions {
            r2_pick: p.choice(
                "r2_pick",
                R2Pick::MaxLength,
                &[
                    ("max_length", R2Pick::MaxLength),
                    ("earliest_start", R2Pick::EarliestStart),
                ],
            )?,
            step2_start: p.choice(
                "minlip_step2_first",
                Step2Start::ReadyStrip,
                &[
                    ("p", Step2Start::ReadyStrip),
                    ("p-1", Step2Start::StripAbove),
                ],
            )?,
            min_tip: p.choice(
                "mintip",
                MinTipReading::Mirror,
                &[
                    ("mirror", MinTipReading::Mirror),
                    ("narrative", MinTipReading::Narrative),
                ],
            )?,
            min_tip_step1_order: p.choice(
                "mintip_step1_order",
                StripOrder::LatestFirst,
                &[
                    ("latest_end", StripOrder::LatestFirst),
                    ("earliest_end", StripOrder::EarliestFirst),
                ],
            )?,
            lact_late: p.choice(
                "lact_late",
                LactLate::EarliestCompletion,
                &[
                    ("earliest_completion", LactLate::EarliestCompletion),
                    (
                        "latest_feasible_completion",
                        LactLate::LatestFeasibleCompletion,
                    ),
                ],
            )?,
            best_fit_search: p.choice(
                "best_fit_search",
                BestFitSearch::Exact,
                &[
                    ("exact", BestFitSearch::Exact),
                    ("literal_strip_queries", BestFitSearch::LiteralStripQueries),
                ],
            )?,
        };
        let name = p.str_or("ready_offset", ReadyOffset::default().name())?;
        let ready_offset = ReadyOffset::from_name(name).ok_or_else(|| {
            ModelError(format!("parameter `ready_offset`: unknown value `{name}`"))
        })?;
        let look_ahead = p.f64_or("look_ahead", 200.0)?;
        let workload = ReservationWorkload {
            servers,
            load: p.f64("load")?,
            sizes,
            look_ahead,
            tightness: p.f64_or("tightness", 0.1)?,
            ready_offset,
        };
        if !(workload.load.is_finite() && workload.load > 0.0) {
            return Err(ModelError(format!(
                "parameter `load` must be positive, got {}",
                workload.load
            )));
        }
        let index_name = p.str_or("index", IndexKind::default().name())?;
        let config = SchedulerConfig {
            servers,
            strategy,
            options,
            l_min,
            look_ahead,
            strip_multiplier: p.u32_or("strip_multiplier", 1)?,
            expiry: p.choice(
                "expiry",
                ExpiryMode::Pool,
                &[("pool", ExpiryMode::Pool), ("clip", ExpiryMode::Clip)],
            )?,
            index: IndexKind::from_name(index_name).ok_or_else(|| {
                ModelError(format!("parameter `index`: unknown value `{index_name}`"))
            })?,
        };
        config.validate().map_err(ModelError::from_display)?;
        let bins = p.u32_or("fairness_bins", 100)? as usize;
        if bins == 0 {
            return Err(ModelError(
                "parameter `fairness_bins` must be at least 1".into(),
            ));
        }
        let empty = p.choice(
            "fairness_empty_bin",
            EmptyBin::Skip,
            &[
                ("skip", EmptyBin::Skip),
                ("count_as_one", EmptyBin::CountAsOne),
            ],
        )?;
        Ok((workload, config, bins, empty, p.bool_or("audit", false)?))
    }
}

impl Model for CastilloCh3 {
    fn name(&self) -> &'static str {
        "castillo-ch3"
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
        let (workload, config, bins, empty, audit) = self.config(params)?;
        let stream = workload
            .stream(key)
            .map_err(ModelError::from_display)?
            .take(jobs as usize);
        // CPU time of this thread (a replication runs on one), not wall-clock time.
        let started = cpu_time::ThreadTime::now();
        let mut scheduler = ReservationScheduler::new(config).map_err(ModelError::from_display)?;
        let mut recorder =
            RunRecorder::new(config.servers, SizeBins::from_pareto(&workload.sizes, bins));
        if audit {
            let mut check = ScheduleAudit::new();
            for (i, request) in stream.enumerate() {
                let before = scheduler.operations();
                let booking = scheduler
                    .submit(request.arrival, &request.window)
                    .map_err(ModelError::from_display)?;
                recorder.record(&request, booking.as_ref(), scheduler.operations() - before);
                check.record(i, &request, booking.as_ref());
            }
            let violations = check.violations();
            if let Some(first) = violations.first() {
                return Err(ModelError(format!(
                    "{} schedule violations, first: {first}",
                    violations.len()
                )));
            }
        } else {
            run(&mut scheduler, stream, &mut recorder).map_err(ModelError::from_display)?;
        }
        let m = recorder.finish(empty);
        let mut out = m.named().to_vec();
        // Wall time of the whole replication on its worker thread (generation included); the
        // harness keeps `cpu_*` metrics out of every reproducible output.
        out.push(("cpu_ms", started.elapsed().as_secs_f64() * 1e3));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::spec::ParamValue;

    #[test]
    fn runs_and_audits_every_strategy() {
        for s in Strategy::ALL {
            let p = ParamSet::from_pairs(&[
                ("load", 0.8.into()),
                ("strategy", s.name().into()),
                ("audit", true.into()),
            ]);
            let m = CastilloCh3.run(&p, &StreamKey::new(1, "t"), 3000).unwrap();
            let loss = m.iter().find(|x| x.0 == "loss").unwrap().1;
            assert!((0.0..=1.0).contains(&loss), "{s}: {loss}");
        }
    }

    #[test]
    fn literal_best_fit_reading_runs_audited_and_differs() {
        let run = |search: &str, index: &str| {
            let p = ParamSet::from_pairs(&[
                ("load", 0.9.into()),
                ("strategy", "best-fit".into()),
                ("best_fit_search", search.into()),
                ("index", index.into()),
                ("audit", true.into()),
            ]);
            CastilloCh3.run(&p, &StreamKey::new(1, "t"), 5000).unwrap()
        };
        let metric = |m: &Measurement, name: &str| m.iter().find(|x| x.0 == name).unwrap().1;
        let (exact, literal) = (run("exact", "tree"), run("literal_strip_queries", "tree"));
        assert_eq!(
            metric(&literal, "loss"),
            metric(&run("literal_strip_queries", "linear"), "loss"),
            "the index does not change decisions"
        );
        assert_ne!(
            (metric(&exact, "loss"), metric(&exact, "delay")),
            (metric(&literal, "loss"), metric(&literal, "delay")),
            "at rho = 0.9 the boundary strips change some decisions"
        );
    }

    #[test]
    fn bad_parameters_are_reported() {
        let err = |pairs: &[(&str, ParamValue)]| {
            CastilloCh3
                .run(&ParamSet::from_pairs(pairs), &StreamKey::new(1, "t"), 10)
                .unwrap_err()
                .0
        };
        assert!(
            err(&[("load", 0.5.into()), ("strategy", "worst-fit".into())])
                .contains("unknown strategy")
        );
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("strategy", "lact".into()),
                ("colour", 1.into())
            ])
            .contains("no parameter `colour`")
        );
        assert!(err(&[("strategy", "lact".into())]).contains("`load` is required"));
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("strategy", "lact".into()),
                ("servers", 0.into())
            ])
            .contains("at least 1")
        );
        assert!(
            err(&[
                ("load", 0.5.into()),
                ("strategy", "lact".into()),
                ("mintip", "x".into())
            ])
            .contains("unknown value `x`")
        );
    }
}
