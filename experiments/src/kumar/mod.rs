//! Kumar (2010): mapping independent tasks from ETC matrices (spec `kumar-sufferage.md`).
//!
//! - `kumar-example`: the worked example of §4 (Table 4.1's 10 × 4 matrix, deterministic):
//!   makespan, final ready times, §5.1 metrics and how much of the document's pick sequence
//!   is reproduced; draws the Gantt charts of Figs. 4.2 and 4.3.
//! - `kumar-ch5`: chapter 5's GridSim-like workload (spec §3.2, Cases I–III), with each run's
//!   makespan compared with Sufferage, Min-Min and Max-Min on the *same* matrix (improvement %
//!   and win indicator), so per-seed win rates are means of the win metrics.
//! - `braun-2001`: the twelve Braun et al. (2001) 512 × 16 instances (read from the data
//!   directory), or matrices regenerated with their range-based method.

use gridsched_repro::papers::Paper;

/// The document.
pub static PAPER: Paper = Paper {
    key: "kumar",
    seed: "004",
    citation: "A. Kumar, \"Segmented Average-Sufferage Heuristic for Independent Task Scheduling in Grid\", M.Tech. dissertation, IIT Roorkee, 2010",
    short: "Kumar 2010",
    spec: "kumar-sufferage.md",
};

/// The models its entries use (the Braun et al. benchmark model runs the same heuristics on
/// the published instances).
pub fn models() -> Vec<Box<dyn Model>> {
    vec![
        Box::new(KumarExample),
        Box::new(KumarCh5),
        Box::new(Braun2001),
    ]
}
use gridsched_mapping::generate::{KumarCase, KumarWorkload, PeSpeed, RangeBased};
use gridsched_mapping::{
    EtcMatrix, Heuristic, Schedule, SegmentKey, SufferageVariant, data, kumar as example,
};
use gridsched_sim::StreamKey;

use gridsched_repro::model::{Gantt, Measurement, Model, ModelError, ParamSet};
use gridsched_repro::plot::GanttBar;

const HEURISTIC_PARAMS: [(&str, &str); 4] = [
    (
        "heuristic",
        "olb | met | mct | min-min | max-min | sufferage | sufferage-seq | duplex | segmented-min-min | sas | sas-seq",
    ),
    (
        "sufferage",
        "batch | sequential: the Sufferage reading of sufferage and sas (spec §2.3, A2; default: the name's)",
    ),
    (
        "segments",
        "segments N of sas / segmented-min-min (default 4; spec A1)",
    ),
    (
        "segment_key",
        "avg (default) | min | max: segmented-min-min's key",
    ),
];

/// The heuristic a run's parameters name.
fn heuristic(p: &ParamSet) -> Result<Heuristic, ModelError> {
    let name = p.str_or("heuristic", "")?;
    let mut h: Heuristic = name.parse().map_err(ModelError)?;
    if p.has("sufferage") {
        h = h.with_variant(p.choice(
            "sufferage",
            SufferageVariant::Batch,
            &[
                ("batch", SufferageVariant::Batch),
                ("sequential", SufferageVariant::Sequential),
            ],
        )?);
    }
    if p.has("segments") {
        let n = p.u32_or("segments", 4)?;
        if n == 0 {
            return Err(ModelError("parameter `segments` must be at least 1".into()));
        }
        h = h.with_segments(n as usize);
    }
    if let Heuristic::SegmentedMinMin { segments, .. } = h {
        let key = p.choice(
            "segment_key",
            SegmentKey::Avg,
            &[
                ("avg", SegmentKey::Avg),
                ("min", SegmentKey::Min),
                ("max", SegmentKey::Max),
            ],
        )?;
        h = Heuristic::SegmentedMinMin { segments, key };
    }
    Ok(h)
}

fn map(h: &Heuristic, etc: &EtcMatrix) -> Result<Schedule, ModelError> {
    h.map(etc).map_err(ModelError::from_display)
}

fn params_with(
    extra: &'static [(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<_> = extra.to_vec();
    v.extend(HEURISTIC_PARAMS);
    v
}

/// Leaks a parameter table built at startup (the trait wants `'static`; a few hundred bytes,
/// once per model kind).
fn leak(v: Vec<(&'static str, &'static str)>) -> &'static [(&'static str, &'static str)] {
    Box::leak(v.into_boxed_slice())
}

// ---------------------------------------------------------------- the worked example (§4)

/// Kumar's Table 4.1 example.
#[derive(Debug, Clone, Copy)]
pub struct KumarExample;

const EXAMPLE_METRICS: &[&str] = &[
    "makespan",
    "flowtime",
    "utilization",
    "deviation",
    "load_balance",
    "r1",
    "r2",
    "r3",
    "r4",
    "machines_match",
    "order_match",
];

/// The document's decisions for this heuristic, if it gives them: `(picks with machines,
/// order only)`.
fn documented(
    h: &Heuristic,
) -> (
    Option<&'static [example::DocPick]>,
    Option<&'static [usize]>,
) {
    match h {
        Heuristic::Sufferage(_) => (Some(&example::SUFFERAGE_PICKS), None),
        Heuristic::Sas { segments: 2, .. } => (Some(&example::SAS2_PICKS), None),
        Heuristic::MinMin => (None, Some(&example::MIN_MIN_ORDER)),
        Heuristic::MaxMin => (None, Some(&example::MAX_MIN_ORDER)),
        _ => (None, None),
    }
}

impl Model for KumarExample {
    fn name(&self) -> &'static str {
        "kumar-example"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        static P: std::sync::OnceLock<&'static [(&'static str, &'static str)]> =
            std::sync::OnceLock::new();
        P.get_or_init(|| leak(params_with(&[])))
    }

    fn metrics(&self) -> &'static [&'static str] {
        EXAMPLE_METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        _key: &StreamKey,
        _jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let h = heuristic(params)?;
        let s = map(&h, &example::table_4_1())?;
        let m = s.metrics();
        let r = s.ready_times();
        let (picks, order) = documented(&h);
        let machines_match = picks.map_or(f64::NAN, |doc| {
            doc.iter().filter(|d| s.pick_of(d.0).machine == d.1).count() as f64 / doc.len() as f64
        });
        let order_match = match (picks, order) {
            (Some(doc), _) => example::picks_matched(s.picks(), doc),
            (None, Some(doc)) => {
                s.picks()
                    .iter()
                    .zip(doc)
                    .filter(|(p, t)| p.task == **t)
                    .count() as f64
                    / doc.len() as f64
            }
            (None, None) => f64::NAN,
        };
        Ok(vec![
            ("makespan", m.makespan),
            ("flowtime", m.flowtime),
            ("utilization", m.utilization),
            ("deviation", m.deviation),
            ("load_balance", m.load_balance),
            ("r1", r[0]),
            ("r2", r[1]),
            ("r3", r[2]),
            ("r4", r[3]),
            ("machines_match", machines_match),
            ("order_match", order_match),
        ])
    }

    fn gantt(
        &self,
        params: &ParamSet,
        _key: &StreamKey,
        _jobs: u64,
    ) -> Result<Option<Gantt>, ModelError> {
        params.check_known(self)?;
        let s = map(&heuristic(params)?, &example::table_4_1())?;
        Ok(Some(gantt_of(
            &s,
            |j| format!("R{}", j + 1),
            |t| format!("t{}", t + 1),
        )))
    }
}

/// A schedule as a Gantt chart (rows = machines, boxes = tasks in execution order).
fn gantt_of(s: &Schedule, row: impl Fn(usize) -> String, task: impl Fn(usize) -> String) -> Gantt {
    Gantt {
        rows: (0..s.machines()).map(row).collect(),
        bars: (0..s.machines())
            .flat_map(|j| s.machine_sequence(j))
            .map(|p| GanttBar {
                row: p.machine,
                start: p.start,
                end: p.end,
                label: task(p.task),
            })
            .collect(),
        time_label: "Time".into(),
    }
}

// ---------------------------------------------------------------- chapter 5 (GridSim workload)

/// Kumar's chapter 5 experiments on the seeded workload of spec §3.2.
#[derive(Debug, Clone, Copy)]
pub struct KumarCh5;

const CH5_PARAMS: &[(&str, &str)] = &[
    (
        "case",
        "1 (few short tasks), 2 (few long tasks), 3 (random lengths) — spec §3.1, A5",
    ),
    (
        "minority_share",
        "share p of the few tasks in Cases I/II (default 0.06; spec A6)",
    ),
    ("resources", "number of resources (default 10)"),
    (
        "machines_low",
        "machines per resource, low end (default 15)",
    ),
    (
        "machines_high",
        "machines per resource, high end (default 20)",
    ),
    ("pes_low", "PEs per machine, low end (default 2)"),
    ("pes_high", "PEs per machine, high end (default 4)"),
    (
        "pe_speed",
        "fixed (default: `mips` per PE) | per_resource (U[mips_low, mips_high) per resource) — spec A7",
    ),
    ("mips", "MIPS per PE with pe_speed = fixed (default 377)"),
    ("mips_low", "per_resource MIPS, low end (default 100)"),
    ("mips_high", "per_resource MIPS, high end (default 1000)"),
    (
        "baseline_sufferage",
        "batch (default) | sequential: the reading of the Sufferage baseline in the improvement metrics",
    ),
];

const CH5_METRICS: &[&str] = &[
    "makespan",
    "flowtime",
    "utilization",
    "deviation",
    "load_balance",
    "improvement_vs_sufferage",
    "improvement_vs_min_min",
    "improvement_vs_max_min",
    "win_vs_sufferage",
    "win_vs_min_min",
    "win_vs_max_min",
    "makespan_lb_ratio",
];

/// A lower bound on any schedule's makespan for a rank-1 matrix `ETC[i][j] = len_i / s_j`
/// (uniform machines, as Kumar's workload is): the larger of the fluid bound `Σ len / Σ s =
/// Σ_i 1 / Σ_j (1 / ETC[i][j])` and the longest task on its fastest machine.
fn uniform_lower_bound(etc: &EtcMatrix) -> f64 {
    let mut fluid = 0.0;
    let mut longest: f64 = 0.0;
    for i in 0..etc.tasks() {
        let row = etc.row(i);
        let rate: f64 = row.iter().map(|e| 1.0 / e).sum();
        fluid += 1.0 / rate;
        longest = longest.max(row.iter().copied().fold(f64::INFINITY, f64::min));
    }
    fluid.max(longest)
}

impl KumarCh5 {
    fn workload(p: &ParamSet, tasks: u64) -> Result<KumarWorkload, ModelError> {
        let case_number = p.u32_or("case", 0)?;
        let case = KumarCase::from_number(case_number).ok_or_else(|| {
            ModelError(format!(
                "parameter `case` must be 1, 2 or 3, got {case_number}"
            ))
        })?;
        let pe_speed = match p.str_or("pe_speed", "fixed")? {
            "fixed" => PeSpeed::Fixed(p.f64_or("mips", 377.0)?),
            "per_resource" => {
                PeSpeed::PerResource(p.f64_or("mips_low", 100.0)?, p.f64_or("mips_high", 1000.0)?)
            }
            other => {
                return Err(ModelError(format!(
                    "parameter `pe_speed`: unknown value `{other}`; expected fixed or per_resource"
                )));
            }
        };
        let w = KumarWorkload {
            tasks: usize::try_from(tasks).map_err(|_| ModelError("too many tasks".into()))?,
            resources: p.u32_or("resources", 10)? as usize,
            case,
            minority_share: p.f64_or("minority_share", 0.06)?,
            machines_per_resource: (
                p.u32_or("machines_low", 15)?,
                p.u32_or("machines_high", 20)?,
            ),
            pes_per_machine: (p.u32_or("pes_low", 2)?, p.u32_or("pes_high", 4)?),
            pe_speed,
        };
        w.validate().map_err(ModelError)?;
        Ok(w)
    }
}

impl Model for KumarCh5 {
    fn name(&self) -> &'static str {
        "kumar-ch5"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        static P: std::sync::OnceLock<&'static [(&'static str, &'static str)]> =
            std::sync::OnceLock::new();
        P.get_or_init(|| leak(params_with(CH5_PARAMS)))
    }

    fn metrics(&self) -> &'static [&'static str] {
        CH5_METRICS
    }

    /// One seed: one workload (streams `resources`, `classes`, `lengths` under `key`, shared
    /// by every heuristic), `jobs` tasks.
    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let h = heuristic(params)?;
        let etc = Self::workload(params, jobs)?
            .generate(key)
            .map_err(ModelError)?;
        let s = map(&h, &etc)?;
        let m = s.metrics();
        let baseline_reading = params.choice(
            "baseline_sufferage",
            SufferageVariant::Batch,
            &[
                ("batch", SufferageVariant::Batch),
                ("sequential", SufferageVariant::Sequential),
            ],
        )?;
        let mut out = vec![
            ("makespan", m.makespan),
            ("flowtime", m.flowtime),
            ("utilization", m.utilization),
            ("deviation", m.deviation),
            ("load_balance", m.load_balance),
        ];
        let baselines = [
            ("sufferage", Heuristic::Sufferage(baseline_reading)),
            ("min_min", Heuristic::MinMin),
            ("max_min", Heuristic::MaxMin),
        ];
        let mut wins = Vec::new();
        for (name, b) in baselines {
            let base = if b == h {
                m.makespan
            } else {
                map(&b, &etc)?.makespan()
            };
            let improvement = (base - m.makespan) / base * 100.0;
            let win = if m.makespan < base { 1.0 } else { 0.0 };
            out.push((improvement_name(name), improvement));
            wins.push((win_name(name), win));
        }
        out.extend(wins);
        out.push(("makespan_lb_ratio", m.makespan / uniform_lower_bound(&etc)));
        Ok(out)
    }
}

fn improvement_name(base: &str) -> &'static str {
    match base {
        "sufferage" => "improvement_vs_sufferage",
        "min_min" => "improvement_vs_min_min",
        _ => "improvement_vs_max_min",
    }
}

fn win_name(base: &str) -> &'static str {
    match base {
        "sufferage" => "win_vs_sufferage",
        "min_min" => "win_vs_min_min",
        _ => "win_vs_max_min",
    }
}

// ---------------------------------------------------------------- Braun et al. (2001)

/// The Braun et al. 512 × 16 benchmark (an extension beyond Kumar's thesis).
#[derive(Debug, Clone, Copy)]
pub struct Braun2001;

const BRAUN_PARAMS: &[(&str, &str)] = &[
    (
        "instance",
        "index 0..11 into u_c_hihi, u_c_hilo, ..., u_s_lolo (the axis)",
    ),
    (
        "source",
        "file (default: the benchmark files) | generated (Braun's range-based method, one matrix per replication)",
    ),
    (
        "data_dir",
        "data directory holding etc/braun/ (default: $GRIDSCHED_DATA, else ../shared/data)",
    ),
];

const BRAUN_METRICS: &[&str] = &[
    "makespan",
    "flowtime",
    "utilization",
    "load_balance",
    "makespan_ratio",
];

impl Braun2001 {
    fn matrix(p: &ParamSet, key: &StreamKey, jobs: u64) -> Result<EtcMatrix, ModelError> {
        let i = p.u32_or("instance", 0)? as usize;
        let name = data::BRAUN_INSTANCES
            .get(i)
            .ok_or_else(|| ModelError(format!("parameter `instance` must be 0..=11, got {i}")))?;
        match p.str_or("source", "file")? {
            "file" => {
                let dir = match p.str_or("data_dir", "")? {
                    "" => data::data_dir(None),
                    d => std::path::PathBuf::from(d),
                };
                data::read_braun_instance(&dir, name).map_err(ModelError::from_display)
            }
            "generated" => {
                let mut g = RangeBased::braun_class(name).map_err(ModelError)?;
                g.tasks = usize::try_from(jobs).map_err(|_| ModelError("too many tasks".into()))?;
                g.generate(&mut key.clone().stream("etc").rng())
                    .map_err(ModelError::from_display)
            }
            other => Err(ModelError(format!(
                "parameter `source`: unknown value `{other}`; expected file or generated"
            ))),
        }
    }
}

impl Model for Braun2001 {
    fn name(&self) -> &'static str {
        "braun-2001"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        static P: std::sync::OnceLock<&'static [(&'static str, &'static str)]> =
            std::sync::OnceLock::new();
        P.get_or_init(|| leak(params_with(BRAUN_PARAMS)))
    }

    fn metrics(&self) -> &'static [&'static str] {
        BRAUN_METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let h = heuristic(params)?;
        let etc = Self::matrix(params, key, jobs)?;
        let m = map(&h, &etc)?.metrics();
        let min_min = if h == Heuristic::MinMin {
            m.makespan
        } else {
            map(&Heuristic::MinMin, &etc)?.makespan()
        };
        Ok(vec![
            ("makespan", m.makespan),
            ("flowtime", m.flowtime),
            ("utilization", m.utilization),
            ("load_balance", m.load_balance),
            ("makespan_ratio", m.makespan / min_min),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::model::measured;

    #[test]
    fn worked_example_metrics_and_matches() {
        let key = StreamKey::new(1, "t");
        let sas = ParamSet::from_pairs(&[("heuristic", "sas".into()), ("segments", 2.0.into())]);
        let m = KumarExample.run(&sas, &key, 10).unwrap();
        assert!((measured(&m, "makespan").unwrap() - 6.20).abs() < 1e-9);
        assert_eq!(measured(&m, "machines_match").unwrap(), 1.0);
        assert_eq!(measured(&m, "order_match").unwrap(), 1.0);
        assert!((measured(&m, "r4").unwrap() - 5.85).abs() < 1e-9);
        let seq = ParamSet::from_pairs(&[
            ("heuristic", "sufferage".into()),
            ("sufferage", "sequential".into()),
        ]);
        assert_eq!(
            measured(&KumarExample.run(&seq, &key, 10).unwrap(), "order_match").unwrap(),
            1.0
        );
        // The batch reading assigns t7 (R3) and t3 (R4) in one pass, in machine order.
        let batch = ParamSet::from_pairs(&[("heuristic", "sufferage".into())]);
        let m = KumarExample.run(&batch, &key, 10).unwrap();
        assert_eq!(measured(&m, "order_match").unwrap(), 0.8);
        assert_eq!(measured(&m, "machines_match").unwrap(), 1.0);
        let g = KumarExample.gantt(&sas, &key, 10).unwrap().unwrap();
        assert_eq!(g.rows, ["R1", "R2", "R3", "R4"]);
        let r2: Vec<&str> = g
            .bars
            .iter()
            .filter(|b| b.row == 1)
            .map(|b| b.label.as_str())
            .collect();
        assert_eq!(r2, ["t1", "t9", "t5"]);
        let olb = ParamSet::from_pairs(&[("heuristic", "olb".into())]);
        assert!(
            measured(&KumarExample.run(&olb, &key, 10).unwrap(), "order_match")
                .unwrap()
                .is_nan()
        );
    }

    #[test]
    fn chapter_5_runs_share_the_workload_and_compare_with_baselines() {
        let key = StreamKey::new(7, "kumar").point("case=1").replication(0);
        let run = |h: &str| {
            KumarCh5
                .run(
                    &ParamSet::from_pairs(&[("heuristic", h.into()), ("case", 1.0.into())]),
                    &key,
                    300,
                )
                .unwrap()
        };
        let sas = run("sas");
        let suff = run("sufferage");
        assert_eq!(measured(&suff, "improvement_vs_sufferage").unwrap(), 0.0);
        assert_eq!(measured(&suff, "win_vs_sufferage").unwrap(), 0.0);
        let expected = (measured(&suff, "makespan").unwrap() - measured(&sas, "makespan").unwrap())
            / measured(&suff, "makespan").unwrap()
            * 100.0;
        assert_eq!(
            measured(&sas, "improvement_vs_sufferage").unwrap(),
            expected
        );
        let ratio = measured(&sas, "makespan_lb_ratio").unwrap();
        assert!((1.0..1.1).contains(&ratio), "{ratio}");
        let err = KumarCh5
            .run(
                &ParamSet::from_pairs(&[("heuristic", "sas".into()), ("case", 4.0.into())]),
                &key,
                10,
            )
            .unwrap_err();
        assert!(err.0.contains("`case`"), "{err}");
        let err = KumarCh5
            .run(
                &ParamSet::from_pairs(&[("heuristic", "best".into()), ("case", 1.0.into())]),
                &key,
                10,
            )
            .unwrap_err();
        assert!(err.0.contains("unknown heuristic"), "{err}");
    }

    #[test]
    fn braun_generated_and_bad_parameters() {
        let key = StreamKey::new(7, "braun").replication(0);
        let p = ParamSet::from_pairs(&[
            ("heuristic", "min-min".into()),
            ("instance", 3.0.into()),
            ("source", "generated".into()),
        ]);
        let m = Braun2001.run(&p, &key, 64).unwrap();
        assert_eq!(measured(&m, "makespan_ratio").unwrap(), 1.0);
        let bad =
            ParamSet::from_pairs(&[("heuristic", "min-min".into()), ("instance", 12.0.into())]);
        assert!(
            Braun2001
                .run(&bad, &key, 64)
                .unwrap_err()
                .0
                .contains("0..=11")
        );
        let missing = ParamSet::from_pairs(&[
            ("heuristic", "min-min".into()),
            ("data_dir", "/nonexistent".into()),
        ]);
        let err = Braun2001.run(&missing, &key, 64).unwrap_err().0;
        assert!(
            err.contains("/nonexistent") && err.contains("GRIDSCHED_DATA"),
            "{err}"
        );
    }
}
