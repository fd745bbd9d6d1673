//! Castillo (2008) ch. 5: online co-allocation with advance reservations on Parallel Workloads
//! Archive logs (CTC, KTH, HPC2N), against the batch scheduler the logs recorded. Time unit of
//! the simulation: integer seconds; metrics are reported in hours.
//!
//! One replication runs one log (a prefix of `jobs` jobs) through one *scheduler*:
//!
//! - `online`: [`CoallocScheduler`] with `s_r = q_r`, or with a fraction `ar_fraction` of the
//!   jobs made advance reservations (`s_r = q_r + U[0, 3 h]`, drawn from the replication's
//!   `ar` stream);
//! - `batch`: the baseline of the chapter, the wait the log recorded (SWF field 3);
//! - `none`: the workload only (Table 5.1, Fig. 5.5).
//!
//! `Model::run` gives scalar metrics (means, maxima, fractions); `Model::run_curve` evaluates
//! one run along a curve axis chosen by the `curve` parameter (waiting-time CDF, temporal-size
//! CDF, penalty per `l_r` bin, wait and retrials per `n_r` bin).
//!
//! The parsed logs and the `ρ = 0` online runs (which draw no random numbers) are cached per
//! process, so the figures that share them (5.3, 5.4, 5.6, Table 5.3) schedule each log once.

use cpu_time::ThreadTime;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use gridsched_reservation::coalloc::{
    ArSelect, CoallocConfig, CoallocPick, CoallocRequest, CoallocScheduler, HoldMode, LengthField,
    audit, make_advance_reservations, requests_from_swf,
};
use gridsched_sim::StreamKey;
use gridsched_workload::swf::{SwfLoadOptions, SwfLog, data_dir, load_swf, trace_path};

use gridsched_repro::model::{CurveMeasurement, Measurement, Model, ModelError, ParamSet};

/// The chapter-5 model; see the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct CastilloCh5;

const PARAMETERS: &[(&str, &str)] = &[
    (
        "trace",
        "the log: CTC | KTH | HPC2N (short names under <data>/traces/) or a path",
    ),
    (
        "workload",
        "the log by number, for categorical axes: 1 = CTC, 2 = KTH, 3 = HPC2N",
    ),
    (
        "servers",
        "N (default: Table 5.1's CTC 512, KTH 128, HPC2N 240; required for other logs)",
    ),
    (
        "n_source",
        "table (default: Table 5.1's N) | log_header (the log's MaxProcs) — spec A29",
    ),
    (
        "scheduler",
        "online (default) | batch (the log's recorded wait) | none (workload only)",
    ),
    ("quantum_min", "l_q in minutes (default 15) — spec A27"),
    (
        "horizon_h",
        "H in hours (default 50); Q = ceil(H / l_q) — spec A27",
    ),
    ("retry_min", "Δt in minutes (default 15)"),
    ("max_retries", "maxRet (default Q/2)"),
    ("pick", "tree (default) | latest_start | min_end — spec A32"),
    (
        "hold_mode",
        "latest (default: s_r := max(s_r, q_r + H)) | keep-lead — spec A28",
    ),
    (
        "lr_field",
        "run (default: SWF field 4) | requested (field 9) — spec A29",
    ),
    (
        "round_up_to_lq",
        "round l_r up to l_q (default false) — spec A31",
    ),
    (
        "ar_fraction",
        "ρ, the fraction of jobs that are advance reservations (default 0)",
    ),
    (
        "ar_select",
        "bernoulli (default) | exact_fraction — spec A34",
    ),
    (
        "ar_max_lead_h",
        "AR lead s_r − q_r ~ U[0, this] hours (default 3)",
    ),
    (
        "curve",
        "curve axes: wait_cdf | lr_cdf | length_bins | size_bins (required for curve sweeps)",
    ),
    (
        "wait_ref",
        "waits in curves: sub (default: s'_r − q_r) | req (s'_r − s_r) — spec A33",
    ),
    (
        "size_bin",
        "width of the n_r bins of `size_bins` (default 50)",
    ),
    (
        "audit",
        "check every schedule (n_r distinct idle servers, no double booking; default false)",
    ),
];

const METRICS: &[&str] = &[
    "jobs",
    "servers",
    "mean_lr_h",
    "f_lr_2h",
    "max_procs",
    "wait_sub_h",
    "wait_req_h",
    "max_wait_h",
    "p50_wait_h",
    "p90_wait_h",
    "p99_wait_h",
    "f_wait_1h",
    "f_wait_2h",
    "utilization",
    "unknown_wait",
    "ar_share",
    "retries",
    "holds",
    "held_share",
    "ops",
    "attempts",
    "too_large",
    // Curve metrics.
    "cdf",
    "hist",
    "penalty",
    "mean_wait_h",
    "bin_jobs",
    "cpu_ms",
];

/// Table 5.1: the logs and the thesis's machine sizes.
const TABLE_5_1: [(&str, u32); 3] = [("CTC", 512), ("KTH", 128), ("HPC2N", 240)];

const HOUR: f64 = 3600.0;

/// The `l_r` bins of Fig. 5.3 (spec A37), hours; bin `k` (1-based) is `[EDGES[k-1], EDGES[k])`.
pub const LENGTH_BIN_EDGES: [f64; 10] =
    [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, f64::INFINITY];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheduler {
    Online,
    Batch,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curve {
    WaitCdf,
    LrCdf,
    LengthBins,
    SizeBins,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitRef {
    Sub,
    Req,
}

/// Everything one run needs.
#[derive(Debug, Clone)]
struct Ch5Config {
    path: PathBuf,
    scheduler: Scheduler,
    coalloc: CoallocConfig,
    lr_field: LengthField,
    ar_fraction: f64,
    ar_select: ArSelect,
    ar_max_lead: i64,
    audit: bool,
    wait_ref: WaitRef,
    size_bin: u32,
}

/// One job's outcome, whatever the scheduler.
#[derive(Debug, Clone, Copy, Default)]
struct JobRecord {
    length: i64,
    servers: u32,
    submit: i64,
    /// `s'_r − q_r` (batch: the recorded wait), if known.
    wait_sub: Option<i64>,
    /// `s'_r − s_r`.
    wait_req: Option<i64>,
    retries: u32,
    holds: u32,
    ops: u64,
    attempts: u32,
}

/// What one run produced.
#[derive(Debug, Clone, Default)]
struct RunData {
    servers: u32,
    records: Vec<JobRecord>,
    too_large: usize,
    ar_jobs: usize,
    max_procs: u32,
    cpu_ms: f64,
}

fn minutes(p: &ParamSet, name: &str, default: f64) -> Result<i64, ModelError> {
    let v = p.f64_or(name, default)?;
    let s = (v * 60.0).round();
    if !(1.0..1e12).contains(&s) {
        return Err(ModelError(format!(
            "parameter `{name}` must be a positive duration, got {v}"
        )));
    }
    Ok(s as i64)
}

impl CastilloCh5 {
    fn config(&self, p: &ParamSet) -> Result<Ch5Config, ModelError> {
        let name = match (p.has("trace"), p.has("workload")) {
            (true, true) => {
                return Err(ModelError(
                    "give either `trace` or `workload`, not both".into(),
                ));
            }
            (false, false) => {
                return Err(ModelError(
                    "parameter `trace` (or `workload`) is required".into(),
                ));
            }
            (true, false) => p.str_or("trace", "")?.to_string(),
            (false, true) => {
                let w = p.u32_or("workload", 0)?;
                TABLE_5_1
                    .get((w as usize).wrapping_sub(1))
                    .map(|t| t.0.to_string())
                    .ok_or_else(|| {
                        ModelError(format!(
                            "parameter `workload` must be 1 (CTC), 2 (KTH) or 3 (HPC2N), got {w}"
                        ))
                    })?
            }
        };
        let path = trace_path(&data_dir(None), &name);
        let table_n = TABLE_5_1
            .iter()
            .find(|t| t.0.eq_ignore_ascii_case(&name))
            .map(|t| t.1);
        let n_source_header =
            p.choice("n_source", false, &[("table", false), ("log_header", true)])?;
        // 0 = "from the log header", resolved once the log is loaded.
        let servers = if p.has("servers") {
            p.u32_or("servers", 0)?
        } else if n_source_header {
            0
        } else {
            table_n.ok_or_else(|| {
                ModelError(format!(
                    "parameter `servers` is required for `{name}` (Table 5.1 gives N only for CTC, KTH and HPC2N)"
                ))
            })?
        };
        let scheduler = p.choice(
            "scheduler",
            Scheduler::Online,
            &[
                ("online", Scheduler::Online),
                ("batch", Scheduler::Batch),
                ("none", Scheduler::None),
            ],
        )?;
        let quantum = minutes(p, "quantum_min", 15.0)?;
        let horizon_h = p.f64_or("horizon_h", 50.0)?;
        let horizon = (horizon_h * HOUR).round();
        if !(horizon.is_finite() && horizon >= 1.0) {
            return Err(ModelError(format!(
                "parameter `horizon_h` must be positive, got {horizon_h}"
            )));
        }
        let coalloc = CoallocConfig {
            servers,
            quantum,
            horizon: horizon as i64,
            retry_step: minutes(p, "retry_min", 15.0)?,
            max_retries: if p.has("max_retries") {
                Some(p.u32_or("max_retries", 0)?)
            } else {
                None
            },
            pick: p.choice(
                "pick",
                CoallocPick::Tree,
                &[
                    ("tree", CoallocPick::Tree),
                    ("latest_start", CoallocPick::LatestStart),
                    ("min_end", CoallocPick::MinEnd),
                ],
            )?,
            hold_mode: p.choice(
                "hold_mode",
                HoldMode::Latest,
                &[
                    ("latest", HoldMode::Latest),
                    ("keep-lead", HoldMode::KeepLead),
                ],
            )?,
            round_up_to_quantum: p.bool_or("round_up_to_lq", false)?,
            ..CoallocConfig::default()
        };
        let ar_fraction = p.f64_or("ar_fraction", 0.0)?;
        if !(0.0..=1.0).contains(&ar_fraction) {
            return Err(ModelError(format!(
                "parameter `ar_fraction` must be in [0, 1], got {ar_fraction}"
            )));
        }
        let lead_h = p.f64_or("ar_max_lead_h", 3.0)?;
        if !(lead_h.is_finite() && lead_h >= 0.0) {
            return Err(ModelError(format!(
                "parameter `ar_max_lead_h` must be non-negative, got {lead_h}"
            )));
        }
        let size_bin = p.u32_or("size_bin", 50)?;
        if size_bin == 0 {
            return Err(ModelError("parameter `size_bin` must be positive".into()));
        }
        Ok(Ch5Config {
            path,
            scheduler,
            coalloc,
            lr_field: p.choice(
                "lr_field",
                LengthField::Run,
                &[
                    ("run", LengthField::Run),
                    ("requested", LengthField::Requested),
                ],
            )?,
            ar_fraction,
            ar_select: p.choice(
                "ar_select",
                ArSelect::Bernoulli,
                &[
                    ("bernoulli", ArSelect::Bernoulli),
                    ("exact_fraction", ArSelect::ExactFraction),
                ],
            )?,
            ar_max_lead: (lead_h * HOUR).round() as i64,
            audit: p.bool_or("audit", false)?,
            wait_ref: p.choice(
                "wait_ref",
                WaitRef::Sub,
                &[("sub", WaitRef::Sub), ("req", WaitRef::Req)],
            )?,
            size_bin,
        })
    }
}

type LogCache = Mutex<BTreeMap<(PathBuf, u64), Arc<OnceLock<Result<Arc<SwfLog>, String>>>>>;
type RunCache = Mutex<BTreeMap<String, Arc<OnceLock<Result<Arc<RunData>, String>>>>>;

/// The prefix of `jobs` jobs of a log, parsed once per process.
fn load_log(path: &Path, jobs: u64) -> Result<Arc<SwfLog>, ModelError> {
    static CACHE: OnceLock<LogCache> = OnceLock::new();
    let cell = {
        let mut cache = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        cache.entry((path.to_path_buf(), jobs)).or_default().clone()
    };
    cell.get_or_init(|| {
        let limit = usize::try_from(jobs).ok();
        load_swf(path, SwfLoadOptions { limit })
            .map(Arc::new)
            .map_err(|e| {
                format!(
                    "{e} (the Parallel Workloads Archive logs are read from <data>/traces/; set \
                     GRIDSCHED_DATA or see data/README.md)"
                )
            })
    })
    .clone()
    .map_err(ModelError)
}

fn run_online(c: &Ch5Config, log: &SwfLog, key: &StreamKey) -> Result<RunData, ModelError> {
    let (mut requests, _) = requests_from_swf(&log.jobs, c.lr_field);
    let mut ar_jobs = 0;
    if c.ar_fraction > 0.0 {
        let mut rng = key.clone().stream("ar").rng();
        ar_jobs = make_advance_reservations(
            &mut requests,
            c.ar_fraction,
            c.ar_select,
            c.ar_max_lead,
            &mut rng,
        );
    }
    let mut cfg = c.coalloc;
    let max_procs = log.jobs.iter().map(|j| j.procs).max().unwrap_or(0);
    if cfg.servers == 0 {
        cfg.servers = log
            .header
            .max_procs
            .and_then(|m| u32::try_from(m).ok())
            .filter(|&m| m > 0)
            .ok_or_else(|| {
                ModelError(format!(
                    "n_source = log_header: {} has no MaxProcs header",
                    log.path
                ))
            })?;
    }
    // CPU time of this thread (a replication runs on one), not wall-clock time.
    let started = ThreadTime::now();
    let scheduler = CoallocScheduler::new(cfg).map_err(ModelError::from_display)?;
    let run = scheduler
        .run(&requests, c.audit)
        .map_err(ModelError::from_display)?;
    let cpu_ms = started.elapsed().as_secs_f64() * 1e3;
    if c.audit {
        audit(&requests, &run).map_err(|e| ModelError(format!("audit: {e}")))?;
    }
    let records = run
        .outcomes
        .iter()
        .map(|o| JobRecord {
            length: o.length,
            servers: o.servers,
            submit: o.submit,
            wait_sub: Some(o.wait_sub()),
            wait_req: Some(o.wait_req()),
            retries: o.retries,
            holds: o.holds,
            ops: o.ops,
            attempts: o.attempts,
        })
        .collect();
    Ok(RunData {
        servers: cfg.servers,
        records,
        too_large: run.too_large.len(),
        ar_jobs,
        max_procs,
        cpu_ms,
    })
}

fn log_records(c: &Ch5Config, log: &SwfLog, requests: &[CoallocRequest]) -> RunData {
    let records = requests
        .iter()
        .map(|r| JobRecord {
            length: r.length,
            servers: r.servers,
            submit: r.submit,
            wait_sub: r.batch_wait.filter(|_| c.scheduler == Scheduler::Batch),
            wait_req: r.batch_wait.filter(|_| c.scheduler == Scheduler::Batch),
            ..JobRecord::default()
        })
        .collect();
    let servers = if c.coalloc.servers == 0 {
        log.header
            .max_procs
            .and_then(|m| u32::try_from(m).ok())
            .unwrap_or(0)
    } else {
        c.coalloc.servers
    };
    RunData {
        servers,
        records,
        max_procs: log.jobs.iter().map(|j| j.procs).max().unwrap_or(0),
        ..RunData::default()
    }
}

/// Runs (or, for `ρ = 0` online runs, reuses) one replication.
fn run_data(c: &Ch5Config, key: &StreamKey, jobs: u64) -> Result<Arc<RunData>, ModelError> {
    let log = load_log(&c.path, jobs)?;
    match c.scheduler {
        Scheduler::Online if c.ar_fraction > 0.0 => run_online(c, &log, key).map(Arc::new),
        Scheduler::Online => {
            // No random numbers are drawn: the run depends on the configuration and the log only.
            static CACHE: OnceLock<RunCache> = OnceLock::new();
            let id = format!(
                "{}|{jobs}|{:?}|{:?}|{}",
                c.path.display(),
                c.coalloc,
                c.lr_field,
                c.audit
            );
            let cell = {
                let mut cache = CACHE
                    .get_or_init(Default::default)
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                cache.entry(id).or_default().clone()
            };
            cell.get_or_init(|| run_online(c, &log, key).map(Arc::new).map_err(|e| e.0))
                .clone()
                .map_err(ModelError)
        }
        Scheduler::Batch | Scheduler::None => {
            let (requests, _) = requests_from_swf(&log.jobs, c.lr_field);
            Ok(Arc::new(log_records(c, &log, &requests)))
        }
    }
}

fn mean(it: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = it.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

/// The `p`-quantile (nearest rank) of sorted values.
fn quantile(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

fn fraction_at_most(sorted: &[i64], t: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted.partition_point(|&w| (w as f64) <= t) as f64 / sorted.len() as f64
}

fn waits(d: &RunData, r: WaitRef) -> Vec<i64> {
    let mut w: Vec<i64> = d
        .records
        .iter()
        .filter_map(|j| match r {
            WaitRef::Sub => j.wait_sub,
            WaitRef::Req => j.wait_req,
        })
        .collect();
    w.sort_unstable();
    w
}

fn measure(c: &Ch5Config, d: &RunData) -> Measurement {
    let n = d.records.len();
    let mut out: Measurement = vec![
        ("jobs", n as f64),
        ("servers", f64::from(d.servers)),
        (
            "mean_lr_h",
            mean(d.records.iter().map(|j| j.length as f64 / HOUR)),
        ),
        (
            "f_lr_2h",
            mean(
                d.records
                    .iter()
                    .map(|j| f64::from(u8::from(j.length as f64 <= 2.0 * HOUR))),
            ),
        ),
        ("max_procs", f64::from(d.max_procs)),
    ];
    if c.scheduler != Scheduler::None {
        let sub = waits(d, WaitRef::Sub);
        let known = sub.len();
        out.extend([
            ("wait_sub_h", mean(sub.iter().map(|&w| w as f64 / HOUR))),
            (
                "wait_req_h",
                mean(
                    d.records
                        .iter()
                        .filter_map(|j| j.wait_req)
                        .map(|w| w as f64 / HOUR),
                ),
            ),
            (
                "max_wait_h",
                sub.last().map_or(f64::NAN, |&w| w as f64 / HOUR),
            ),
            ("p50_wait_h", quantile(&sub, 0.5) / HOUR),
            ("p90_wait_h", quantile(&sub, 0.9) / HOUR),
            ("p99_wait_h", quantile(&sub, 0.99) / HOUR),
            ("f_wait_1h", fraction_at_most(&sub, HOUR)),
            ("f_wait_2h", fraction_at_most(&sub, 2.0 * HOUR)),
            ("utilization", utilization(d)),
            ("unknown_wait", (n - known) as f64),
        ]);
    }
    if c.scheduler == Scheduler::Online {
        let per = |f: &dyn Fn(&JobRecord) -> f64| mean(d.records.iter().map(f));
        out.extend([
            (
                "ar_share",
                d.ar_jobs as f64 / (n + d.too_large).max(1) as f64,
            ),
            ("retries", per(&|j| f64::from(j.retries))),
            ("holds", per(&|j| f64::from(j.holds))),
            ("held_share", per(&|j| f64::from(u8::from(j.holds > 0)))),
            ("ops", per(&|j| j.ops as f64)),
            ("attempts", per(&|j| f64::from(j.attempts))),
            ("too_large", d.too_large as f64),
            ("cpu_ms", d.cpu_ms),
        ]);
    }
    out
}

/// Busy server area `Σ n_r · |[s', s' + l_r) ∩ [0, T]|` over `N · T`, with `T` the last
/// submit time (spec §4, ch. 5: as in ch. 3).
fn utilization(d: &RunData) -> f64 {
    let t = d.records.iter().map(|j| j.submit).max().unwrap_or(0);
    if t <= 0 || d.servers == 0 {
        return f64::NAN;
    }
    let busy: f64 = d
        .records
        .iter()
        .filter_map(|j| {
            let s = j.submit + j.wait_sub?;
            let e = (s + j.length).min(t);
            Some(f64::from(j.servers) * (e - s).max(0) as f64)
        })
        .sum();
    busy / (f64::from(d.servers) * t as f64)
}

fn curve_rows(
    c: &Ch5Config,
    curve: Curve,
    d: &RunData,
    xs: &[f64],
) -> Result<CurveMeasurement, ModelError> {
    let mut rows = CurveMeasurement::new();
    match curve {
        Curve::WaitCdf | Curve::LrCdf => {
            let values: Vec<i64> = if curve == Curve::WaitCdf {
                if c.scheduler == Scheduler::None {
                    return Err(ModelError(
                        "curve = wait_cdf needs scheduler = online or batch".into(),
                    ));
                }
                waits(d, c.wait_ref)
            } else {
                let mut l: Vec<i64> = d.records.iter().map(|j| j.length).collect();
                l.sort_unstable();
                l
            };
            let mut prev: Option<(f64, f64)> = None;
            for &x in xs {
                if x.is_nan() || x <= 0.0 {
                    return Err(ModelError(format!(
                        "CDF thresholds must be positive hours, got {x}"
                    )));
                }
                let f = fraction_at_most(&values, x * HOUR);
                rows.push((x, "cdf", f));
                // Density per hour over (previous threshold, x]; the first bin starts above 0.
                let (px, pf) = prev.unwrap_or((0.0, fraction_at_most(&values, 0.0)));
                rows.push((x, "hist", (f - pf) / (x - px)));
                prev = Some((x, f));
            }
            if curve == Curve::WaitCdf {
                let max = values.last().map_or(f64::NAN, |&w| w as f64 / HOUR);
                let p99 = quantile(&values, 0.99) / HOUR;
                for &x in xs {
                    rows.push((x, "max_wait_h", max));
                    rows.push((x, "p99_wait_h", p99));
                }
            }
        }
        Curve::LengthBins => {
            for &x in xs {
                let k = x as usize;
                if x.fract() != 0.0 || !(1..LENGTH_BIN_EDGES.len()).contains(&k) {
                    return Err(ModelError(format!(
                        "length_bins: axis values must be bin numbers 1..=9, got {x}"
                    )));
                }
                let (lo, hi) = (LENGTH_BIN_EDGES[k - 1] * HOUR, LENGTH_BIN_EDGES[k] * HOUR);
                let in_bin: Vec<&JobRecord> = d
                    .records
                    .iter()
                    .filter(|j| (j.length as f64) >= lo && (j.length as f64) < hi)
                    .filter(|j| j.wait_req.is_some())
                    .collect();
                if in_bin.is_empty() {
                    continue;
                }
                rows.push((x, "bin_jobs", in_bin.len() as f64));
                rows.push((
                    x,
                    "penalty",
                    mean(
                        in_bin
                            .iter()
                            .map(|j| j.wait_req.unwrap_or(0) as f64 / j.length as f64),
                    ),
                ));
                rows.push((
                    x,
                    "mean_wait_h",
                    mean(in_bin.iter().map(|j| j.wait_req.unwrap_or(0) as f64 / HOUR)),
                ));
            }
        }
        Curve::SizeBins => {
            let w = i64::from(c.size_bin);
            for &x in xs {
                if x.fract() != 0.0 || x < 1.0 {
                    return Err(ModelError(format!(
                        "size_bins: axis values must be bin numbers 1, 2, ..., got {x}"
                    )));
                }
                let k = x as i64;
                let (lo, hi) = ((k - 1) * w, k * w);
                let in_bin: Vec<&JobRecord> = d
                    .records
                    .iter()
                    .filter(|j| i64::from(j.servers) > lo && i64::from(j.servers) <= hi)
                    .filter(|j| j.wait_req.is_some() || c.scheduler == Scheduler::None)
                    .collect();
                if in_bin.is_empty() {
                    continue;
                }
                rows.push((x, "bin_jobs", in_bin.len() as f64));
                if c.scheduler != Scheduler::None {
                    rows.push((
                        x,
                        "mean_wait_h",
                        mean(in_bin.iter().map(|j| j.wait_req.unwrap_or(0) as f64 / HOUR)),
                    ));
                }
                if c.scheduler == Scheduler::Online {
                    rows.push((
                        x,
                        "retries",
                        mean(in_bin.iter().map(|j| f64::from(j.retries))),
                    ));
                    rows.push((x, "holds", mean(in_bin.iter().map(|j| f64::from(j.holds)))));
                }
            }
        }
    }
    Ok(rows)
}

impl Model for CastilloCh5 {
    fn name(&self) -> &'static str {
        "castillo-ch5"
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
        let d = run_data(&c, key, jobs)?;
        Ok(measure(&c, &d))
    }

    fn run_curve(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
        xs: &[f64],
    ) -> Result<CurveMeasurement, ModelError> {
        params.check_known(self)?;
        let c = self.config(params)?;
        let curve = params.choice(
            "curve",
            None,
            &[
                ("wait_cdf", Some(Curve::WaitCdf)),
                ("lr_cdf", Some(Curve::LrCdf)),
                ("length_bins", Some(Curve::LengthBins)),
                ("size_bins", Some(Curve::SizeBins)),
            ],
        )?;
        let curve = curve
            .ok_or_else(|| ModelError("parameter `curve` is required on a curve axis".into()))?;
        let d = run_data(&c, key, jobs)?;
        curve_rows(&c, curve, &d, xs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::model::measured;
    use gridsched_repro::spec::ParamValue;

    fn have_logs() -> bool {
        trace_path(&data_dir(None), "KTH").is_file()
    }

    #[test]
    fn kth_prefix_online_batch_and_workload() {
        if !have_logs() {
            eprintln!("skipped: no KTH log under the data directory");
            return;
        }
        let key = StreamKey::new(1, "t");
        let run = |extra: &[(&str, ParamValue)]| {
            let mut pairs = vec![("trace", "KTH".into()), ("audit", true.into())];
            pairs.extend_from_slice(extra);
            CastilloCh5
                .run(&ParamSet::from_pairs(&pairs), &key, 1500)
                .unwrap()
        };
        let online = run(&[]);
        let batch = run(&[("scheduler", "batch".into())]);
        let none = run(&[("scheduler", "none".into())]);
        assert_eq!(measured(&online, "jobs").unwrap(), 1500.0);
        assert_eq!(measured(&online, "servers").unwrap(), 128.0);
        assert_eq!(
            measured(&none, "mean_lr_h").unwrap(),
            measured(&batch, "mean_lr_h").unwrap()
        );
        // s_r = q_r: both waits agree.
        assert_eq!(
            measured(&online, "wait_sub_h").unwrap(),
            measured(&online, "wait_req_h").unwrap()
        );
        assert!(measured(&online, "ops").unwrap() > 0.0);
        assert!(none.iter().all(|m| m.0 != "wait_sub_h"));
        // Advance reservations: W_sub ≥ W_req on average (the lead is part of W_sub).
        let ar = run(&[("ar_fraction", 0.5.into())]);
        assert!(
            measured(&ar, "ar_share").unwrap() > 0.4 && measured(&ar, "ar_share").unwrap() < 0.6
        );
        assert!(measured(&ar, "wait_sub_h").unwrap() > measured(&ar, "wait_req_h").unwrap());
        // Curves: a CDF ends at 1 and is non-decreasing.
        let p = ParamSet::from_pairs(&[("trace", "KTH".into()), ("curve", "wait_cdf".into())]);
        let rows = CastilloCh5
            .run_curve(&p, &key, 1500, &[1.0, 2.0, 5000.0])
            .unwrap();
        let cdf: Vec<f64> = rows.iter().filter(|r| r.1 == "cdf").map(|r| r.2).collect();
        assert!(
            cdf.windows(2).all(|w| w[0] <= w[1]) && cdf[2] == 1.0,
            "{cdf:?}"
        );
        let p = ParamSet::from_pairs(&[("trace", "KTH".into()), ("curve", "size_bins".into())]);
        let rows = CastilloCh5
            .run_curve(&p, &key, 1500, &[1.0, 2.0, 3.0])
            .unwrap();
        let jobs: f64 = rows.iter().filter(|r| r.1 == "bin_jobs").map(|r| r.2).sum();
        assert_eq!(jobs, 1500.0);
        assert!(
            rows.iter().all(|r| r.0 != 3.0),
            "KTH has no job above 100 procs"
        );
    }

    #[test]
    fn bad_parameters_are_reported() {
        let err = |pairs: &[(&str, ParamValue)]| {
            CastilloCh5
                .run(&ParamSet::from_pairs(pairs), &StreamKey::new(1, "t"), 10)
                .unwrap_err()
                .0
        };
        assert!(err(&[]).contains("`trace`"));
        assert!(err(&[("workload", 4.into())]).contains("1 (CTC)"));
        assert!(err(&[("trace", "my.swf".into())]).contains("`servers` is required"));
        assert!(err(&[("trace", "KTH".into()), ("ar_fraction", 1.5.into())]).contains("[0, 1]"));
        assert!(err(&[("trace", "KTH".into()), ("pick", "best".into())]).contains("unknown value"));
        assert!(
            err(&[
                ("trace", "/nonexistent/x.swf".into()),
                ("servers", 4.into())
            ])
            .contains("GRIDSCHED_DATA")
        );
        let p = ParamSet::from_pairs(&[("trace", "KTH".into())]);
        assert!(
            CastilloCh5
                .run_curve(&p, &StreamKey::new(1, "t"), 10, &[1.0])
                .unwrap_err()
                .0
                .contains("`curve` is required")
        );
    }
}
