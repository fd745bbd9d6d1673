//! `singh-slots`: chapter 3's advertisements (Figs. 4–8). One site replays its log under
//! conservative backfilling; every `period_h` hours of the log the slots it advertises are
//! recorded: their number, the jobs in the system, and each slot's start (from the
//! advertisement), duration (an extensible slot's to the horizon) and processors.
//!
//! Slot sources (`source`): `schedule` (default) cuts the conservative schedule's free area
//! into per-processor holes ([`gridsched_provisioning::holes()`]); `figure2` is the thesis's
//! incremental Figure 2 site ([`gridsched_provisioning::SlotSite`], exact run times only),
//! which also reports how often its start times differ from conservative backfilling's.
//!
//! Curves (`evaluation = "curve"`), chosen by `curve`:
//! - `count_hist`: `pct` of advertisements per slot-count bin `x` (0: 0–1, `i`: `3i−1 ..= 3i+1`
//!   up to 56–58, 20: more);
//! - `procs_hist`: `pct` of slots per processor-count bin (0: 1, `i`: `4i−2 ..= 4i+1` up to
//!   62–65, 17: more);
//! - `tasks_slots`: `mean_slots` per bin of jobs in the system (`x`: `10x ..= 10x+9`, 10: 100+);
//! - `start_dur`: `start_pct` and `dur_pct` of slots per 4-hour bin (`x`: `[4x, 4x+4)` h, 25:
//!   100 h and more).
//!
//! Scalars repeated at every `x`: `mean_count`, `pearson_r` (slots vs jobs in the system),
//! `start_median_h`, `dur_median_h`, `start_sd_h`, `dur_sd_h`, `line_frac` (slots ending on the
//! `now + 48 h` line), `fig2_diff_frac` and `fig2_later_frac` (jobs Figure 2 starts at another
//! time than conservative backfilling, later; NaN for `source = schedule`), `ads`, `load`.

use gridsched_batch::{Estimates, Simulator, Time};
use gridsched_provisioning::{Horizon, SlotSet, SlotSite, offered_load, schedule_holes};
use gridsched_repro::model::{CurveMeasurement, Measurement, Model, ModelError, ParamSet};
use gridsched_sim::StreamKey;

use super::background::{SiteSpec, background_jobs, site_at, span};

/// The model; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SinghSlots;

const PARAMETERS: &[(&str, &str)] = &[
    ("site", "TRACE/PROCS/COPY_P, e.g. CTC/430/0 (required)"),
    (
        "source",
        "schedule (default: holes of the conservative schedule) | figure2",
    ),
    ("estimates", "actual (default) | requested"),
    (
        "period_h",
        "hours between advertisements (default 1; the thesis does not say)",
    ),
    (
        "horizon_h",
        "advertisement horizon ahead of now, hours (default 48)",
    ),
    ("curve", "count_hist | procs_hist | tasks_slots | start_dur"),
    ("bin", "curve axis: the bin index"),
];

const METRICS: &[&str] = &[
    "pct",
    "mean_slots",
    "start_pct",
    "dur_pct",
    "mean_count",
    "pearson_r",
    "start_median_h",
    "dur_median_h",
    "start_sd_h",
    "dur_sd_h",
    "line_frac",
    "fig2_diff_frac",
    "fig2_later_frac",
    "ads",
    "load",
];

/// What the advertisements of one replay looked like.
#[derive(Debug, Default)]
struct Stats {
    counts: Vec<u32>,
    tasks: Vec<u32>,
    starts_h: Vec<f64>,
    durs_h: Vec<f64>,
    procs: Vec<u32>,
    on_line: u64,
    fig2_diff: f64,
    fig2_later: f64,
    load: f64,
}

fn record(st: &mut Stats, set: &SlotSet, now: Time, tasks: usize, horizon: Time, ahead: Time) {
    st.counts.push(set.len() as u32);
    st.tasks.push(tasks as u32);
    for s in set.slots() {
        let end = if s.extensible { horizon } else { s.end };
        st.starts_h.push((s.start - now) as f64 / 3600.0);
        st.durs_h.push((end - s.start) as f64 / 3600.0);
        st.procs.push(s.procs);
        if end == now + ahead {
            st.on_line += 1;
        }
    }
}

/// The last planned finish of a conservative simulator's schedule.
fn last_finish(sim: &Simulator) -> Time {
    let run = sim.running().iter().map(|r| r.planned_end).max();
    let queued = sim
        .queued()
        .into_iter()
        .filter_map(|i| sim.record(i).start.map(|s| s + sim.planned_run_time(i)))
        .max();
    run.max(queued).unwrap_or(sim.now())
}

fn replay(params: &ParamSet, key: &StreamKey, jobs: u64) -> Result<Stats, ModelError> {
    let site = SiteSpec::parse(params.str_or("site", "")?)?;
    let figure2 = params.choice("source", false, &[("schedule", false), ("figure2", true)])?;
    let estimates = params.choice(
        "estimates",
        Estimates::Actual,
        &[
            ("actual", Estimates::Actual),
            ("requested", Estimates::Requested),
        ],
    )?;
    if figure2 && estimates != Estimates::Actual {
        return Err(ModelError(
            "source = figure2 needs exact run times (estimates = actual): Figure 2 cannot \
             compress a schedule (spec §2.2)"
                .into(),
        ));
    }
    let period = (params.f64_or("period_h", 1.0)? * 3600.0) as Time;
    let ahead = (params.f64_or("horizon_h", 48.0)? * 3600.0) as Time;
    if period <= 0 || ahead <= 0 {
        return Err(ModelError("period_h and horizon_h must be positive".into()));
    }
    let horizon = Horizon {
        ahead,
        ..Horizon::default()
    };
    let bg = background_jobs(&site, jobs, key.master_seed())?;
    let (first, last) = span(&bg);
    let mut st = Stats {
        load: offered_load(&bg, site.procs),
        ..Stats::default()
    };
    // The conservative-backfilling replay (also the reference for Figure 2's starts).
    let mut sim = site_at(&site, &bg, estimates, first)?;
    let mut site_f2 = SlotSite::new(site.procs, first);
    let mut f2_starts: Vec<(u64, Time)> = Vec::new();
    let mut next_job = 0usize;
    let mut t = first + period;
    while t <= last {
        sim.run_until(t);
        if figure2 {
            while next_job < bg.len() && bg[next_job].submit <= t {
                let j = &bg[next_job];
                let s = site_f2
                    .submit(j.id, j.submit, j.procs, j.run)
                    .map_err(ModelError::from_display)?;
                f2_starts.push((j.id, s));
                next_job += 1;
            }
            site_f2.advance(t);
            let ad = site_f2.advertise(&horizon);
            record(
                &mut st,
                site_f2.slots(),
                t,
                site_f2.tasks(),
                ad.horizon,
                ahead,
            );
        } else {
            let set = schedule_holes(&sim, 0).map_err(ModelError::from_display)?;
            let h = horizon.at(t, last_finish(&sim));
            record(
                &mut st,
                &set,
                t,
                sim.running_count() + sim.queued().len(),
                h,
                ahead,
            );
        }
        t += period;
    }
    if figure2 {
        sim.run();
        let mut cb: Vec<(u64, Time)> = sim.outcomes().map(|o| (o.job.id, o.start)).collect();
        cb.sort_unstable();
        f2_starts.sort_unstable();
        let compared = f2_starts.len().max(1) as f64;
        let mut diff = 0usize;
        let mut later = 0usize;
        for (a, b) in f2_starts.iter().zip(&cb) {
            debug_assert_eq!(a.0, b.0);
            if a.1 != b.1 {
                diff += 1;
            }
            if a.1 > b.1 {
                later += 1;
            }
        }
        st.fig2_diff = diff as f64 / compared;
        st.fig2_later = later as f64 / compared;
    } else {
        st.fig2_diff = f64::NAN;
        st.fig2_later = f64::NAN;
    }
    if st.counts.is_empty() {
        return Err(ModelError(format!(
            "the log spans less than one advertisement period ({} s)",
            period
        )));
    }
    Ok(st)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len().max(2) - 1) as f64).sqrt()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let vy: f64 = y.iter().map(|b| (b - my) * (b - my)).sum();
    cov / (vx * vy).sqrt()
}

/// Which bin of the thesis's slot-count histogram (0–1, 2–4, …, 56–58, more) `c` falls in.
fn count_bin(c: u32) -> usize {
    if c <= 1 {
        0
    } else {
        (((c - 2) / 3 + 1) as usize).min(20)
    }
}

/// Which bin of the processor-count histogram (1, 2–5, …, 62–65, more).
fn procs_bin(p: u32) -> usize {
    if p <= 1 {
        0
    } else {
        (((p - 2) / 4 + 1) as usize).min(17)
    }
}

impl Model for SinghSlots {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "singh-slots"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        PARAMETERS
    }

    fn metrics(&self) -> &'static [&'static str] {
        METRICS
    }

    fn run(&self, _: &ParamSet, _: &StreamKey, _: u64) -> Result<Measurement, ModelError> {
        Err(ModelError(
            "model `singh-slots` needs a curve axis (evaluation = \"curve\")".into(),
        ))
    }

    fn run_curve(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        params.check_known(self)?;
        let curve = params.choice(
            "curve",
            0,
            &[
                ("count_hist", 0),
                ("procs_hist", 1),
                ("tasks_slots", 2),
                ("start_dur", 3),
            ],
        )?;
        if !params.has("curve") {
            return Err(ModelError("parameter `curve` is required".into()));
        }
        let st = replay(params, key, jobs)?;
        let counts: Vec<f64> = st.counts.iter().map(|&c| f64::from(c)).collect();
        let tasks: Vec<f64> = st.tasks.iter().map(|&c| f64::from(c)).collect();
        let ads = counts.len() as f64;
        let slots = st.procs.len().max(1) as f64;
        let scalars = [
            ("mean_count", mean(&counts)),
            ("pearson_r", pearson(&tasks, &counts)),
            ("start_median_h", median(&st.starts_h)),
            ("dur_median_h", median(&st.durs_h)),
            ("start_sd_h", sd(&st.starts_h)),
            ("dur_sd_h", sd(&st.durs_h)),
            ("line_frac", st.on_line as f64 / slots),
            ("fig2_diff_frac", st.fig2_diff),
            ("fig2_later_frac", st.fig2_later),
            ("ads", ads),
            ("load", st.load),
        ];
        let mut rows = Vec::new();
        for &x in xs {
            let b = x as usize;
            match curve {
                0 => {
                    let n = st.counts.iter().filter(|&&c| count_bin(c) == b).count();
                    rows.push((x, "pct", 100.0 * n as f64 / ads));
                }
                1 => {
                    let n = st.procs.iter().filter(|&&p| procs_bin(p) == b).count();
                    rows.push((x, "pct", 100.0 * n as f64 / slots));
                }
                2 => {
                    let bin = |t: u32| (t / 10).min(10) as usize;
                    let v: Vec<f64> = st
                        .tasks
                        .iter()
                        .zip(&st.counts)
                        .filter(|(t, _)| bin(**t) == b)
                        .map(|(_, &c)| f64::from(c))
                        .collect();
                    rows.push((
                        x,
                        "mean_slots",
                        if v.is_empty() { f64::NAN } else { mean(&v) },
                    ));
                }
                _ => {
                    let bin = |h: f64| ((h / 4.0).floor().max(0.0) as usize).min(25);
                    let s = st.starts_h.iter().filter(|&&h| bin(h) == b).count();
                    let d = st.durs_h.iter().filter(|&&h| bin(h) == b).count();
                    rows.push((x, "start_pct", 100.0 * s as f64 / slots));
                    rows.push((x, "dur_pct", 100.0 * d as f64 / slots));
                }
            }
            for &(m, v) in &scalars {
                rows.push((x, m, v));
            }
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_bins() {
        assert_eq!(
            (
                count_bin(0),
                count_bin(1),
                count_bin(2),
                count_bin(4),
                count_bin(5)
            ),
            (0, 0, 1, 1, 2)
        );
        assert_eq!((count_bin(56), count_bin(58), count_bin(59)), (19, 19, 20));
        assert_eq!(
            (procs_bin(1), procs_bin(2), procs_bin(5), procs_bin(6)),
            (0, 1, 1, 2)
        );
        assert_eq!(
            (procs_bin(16), procs_bin(32), procs_bin(64), procs_bin(66)),
            (4, 8, 16, 17)
        );
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.5]) - 0.999).abs() < 0.01);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    }
}
