//! Al-Zoubi (2006): hierarchical grid scheduling over an Internet-like network (spec
//! `alzoubi-hierarchical.md`), on `gridsched-hierarchical`.
//!
//! - `alzoubi-network`: the transfer time of one message between two addresses (Table 1, the
//!   path of Fig. 33), beside the thesis's printed value where Table 1 gives one; a 100 B
//!   control message and 9 GB on the same path repeat at every x (the text's other timings).
//!   Deterministic: one run per point.
//! - `alzoubi-hierarchy`: one run of a grid system per replication — P2P (§3.8), H1 (one tree)
//!   or the hybrids H4 / H16 (§3.9) — with `n` jobs (default: the scale's) of mean size
//!   `size_mb` under Exp 1, 2 or 3's submission, optionally with Exp 4's rescheduling off or
//!   Exp 5's OS changes: the §5 metrics (AWT, AET, TRT), saved jobs, the slowest-server bound
//!   of alzoubi-calib-trt520 and the thesis's H1 TRT (Table 4c) where it prints one. Runs are
//!   memoized per process, so the figures and tables that share a sweep run it once. A run
//!   draws its grid and jobs from its sweep's stream key, so the same configuration in another
//!   sweep (Table 7's enabled rows, Table 4's H1 100 GB) is another sample, whichever
//!   experiments one process runs.

use gridsched_hierarchical::hierarchy::{
    DiscoveryTrigger, DonorJob, FirstSubmission, HierarchyConfig, OsChanges, Proximity, RfcOrder,
    RfcRule, RootLevel, RunResult, ShareBase, Submission, run_hierarchy, slowest_server_bound_ms,
};
use gridsched_hierarchical::p2p::{Flooding, P2pConfig, run_p2p};
use gridsched_hierarchical::{
    Address, ExecModel, Grid, Network, NetworkConfig, PathClass, Rounding, draw_jobs,
};
use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};
use gridsched_repro::papers::Paper;
use gridsched_sim::StreamKey;

use crate::memo::Memo;

/// The document.
pub static PAPER: Paper = Paper {
    key: "alzoubi",
    seed: "003",
    citation: "K. Al-Zoubi, \"Hierarchical Scheduling in Grid Systems\", M.C.S. thesis, Ottawa-Carleton Institute for Computer Science, Carleton University, 2006",
    short: "Al-Zoubi 2006",
    spec: "alzoubi-hierarchical.md",
};

/// The models its entries use.
pub fn models() -> Vec<Box<dyn Model>> {
    vec![Box::new(AlzoubiNetwork), Box::new(AlzoubiHierarchy)]
}

const GB: f64 = 1e9;

/// Table 1 (the path of Fig. 33, 132.1.1.1 → 131.1.1.1): (GB, ms).
const TABLE_1: [(f64, f64); 5] = [
    (1.0, 342_700.0),
    (10.0, 3_427_012.0),
    (20.0, 6_854_030.0),
    (50.0, 17_135_078.0),
    (100.0, 34_270_156.0),
];

const FIG_33: (Address, Address) = (Address::new(132, 1, 1, 1), Address::new(131, 1, 1, 1));

/// Mean size in bytes, rejecting what is not a positive finite size.
fn bytes_of(gb: f64, name: &str) -> Result<u64, ModelError> {
    let b = (gb * GB).round();
    if !(b.is_finite() && b >= 1.0) {
        return Err(ModelError(format!(
            "parameter `{name}` must be a positive size, got {gb}"
        )));
    }
    Ok(b as u64)
}

fn address(p: &ParamSet, name: &str, default: &str) -> Result<Address, ModelError> {
    let text = p.str_or(name, default)?;
    text.parse()
        .map_err(|e| ModelError(format!("parameter `{name}`: {e}")))
}

// ---------------------------------------------------------------- alzoubi-network (Table 1)

/// One message's end-to-end delay on the thesis's network.
#[derive(Debug, Clone, Copy)]
pub struct AlzoubiNetwork;

const NETWORK_PARAMS: &[(&str, &str)] = &[
    ("size_gb", "message size in GB (10^9 bytes, spec §2.1)"),
    ("from", "source address (default 132.1.1.1, Fig. 33)"),
    ("to", "destination address (default 131.1.1.1)"),
    (
        "window_bytes",
        "TCP window W in bytes (default 64000: \"64 KB\" with KB = 1000)",
    ),
    (
        "rounding",
        "floor (default, A2) | nearest: how each cable's delay becomes whole ms",
    ),
    (
        "external_load_permille",
        "external load on every cable in thousandths (default 0, A3; the thesis's 10% is 100)",
    ),
];

const NETWORK_METRICS: &[&str] = &[
    "ms",
    "thesis_ms",
    "diff_ms",
    "seconds",
    "control_ms",
    "ms_9gb",
];

fn network(p: &ParamSet) -> Result<Network, ModelError> {
    let window = p.f64_or("window_bytes", 64_000.0)?;
    let load = p.u32_or("external_load_permille", 0)?;
    let config = NetworkConfig {
        window_bytes: if window.fract() == 0.0 && window >= 1.0 {
            window as u64
        } else {
            return Err(ModelError(format!(
                "parameter `window_bytes` must be a positive integer, got {window}"
            )));
        },
        rounding: p.choice(
            "rounding",
            Rounding::Floor,
            &[("floor", Rounding::Floor), ("nearest", Rounding::Nearest)],
        )?,
        external_load_permille: u16::try_from(load)
            .map_err(|_| ModelError(format!("`external_load_permille` too large: {load}")))?,
        ..NetworkConfig::THESIS
    };
    Network::new(config).map_err(ModelError::from_display)
}

impl Model for AlzoubiNetwork {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "alzoubi-network"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        NETWORK_PARAMS
    }

    fn metrics(&self) -> &'static [&'static str] {
        NETWORK_METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        _key: &StreamKey,
        _jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let gb = params.f64("size_gb")?;
        let bytes = bytes_of(gb, "size_gb")?;
        let (from, to) = (
            address(params, "from", "132.1.1.1")?,
            address(params, "to", "131.1.1.1")?,
        );
        let n = network(params)?;
        let delay = |b: u64| {
            n.delay_between(from, to, b)
                .map(|ms| ms as f64)
                .map_err(ModelError::from_display)
        };
        let ms = delay(bytes)?;
        // The thesis's value only where Table 1 prints one: its path, its sizes.
        let thesis = if (from, to) == FIG_33 {
            TABLE_1
                .iter()
                .find(|(g, _)| *g == gb)
                .map_or(f64::NAN, |r| r.1)
        } else {
            f64::NAN
        };
        Ok(vec![
            ("ms", ms),
            ("thesis_ms", thesis),
            ("diff_ms", ms - thesis),
            ("seconds", ms / 1000.0),
            ("control_ms", delay(100)?),
            ("ms_9gb", delay(9_000_000_000)?),
        ])
    }
}

// ---------------------------------------------------------------- alzoubi-hierarchy (H1)

/// One run of hierarchical scheduling.
#[derive(Debug, Clone, Copy)]
pub struct AlzoubiHierarchy;

const HIERARCHY_PARAMS: &[(&str, &str)] = &[
    (
        "size_mb",
        "mean job input size in MB (Poisson, spec §2.4; 28.9, 312.7, 1000, 10000, 100000)",
    ),
    (
        "system",
        "p2p (§3.8) | h1 (one Grid tree, default) | h4 (a tree per backbone) | h16 (a tree per net), the hybrids peering per §3.9",
    ),
    (
        "n",
        "the workload's number of jobs N (default: the scale's jobs per replication)",
    ),
    (
        "os_changes",
        "off (default) | thesis: every server changes OS as a Poisson process with a mean from {1 d, 3 d, 1 wk, 30 d, 90 d, 180 d} (Exp 5, §3.6, A21)",
    ),
    (
        "p2p_deadline_factor",
        "A15's factor f: a peer accepts iff (start − now) + usage ≤ f · usage (default 3, L1556); 1 offers only when the server is free",
    ),
    (
        "p2p_flooding",
        "collapsed (default: flood collapse and retry skipping, §7 item 7) | naive (every message an event; small N only)",
    ),
    (
        "experiment",
        "1 (continuous submission, default) | 2 (per-workstation think-time means) | 3 (one common think time, `think_h`)",
    ),
    ("think_h", "Exp 3's common think-time mean in hours"),
    (
        "butterfly_lb",
        "Butterfly and Load-Balance on (default) or off together (Exp 4)",
    ),
    ("discovery", "literal (default) | eager (A9)"),
    ("rfc", "idle-with-bag (default) | every-completion (A7)"),
    ("share_base", "tentative (default) | unassigned (A6)"),
    ("proximity", "best-site (default) | child-address (A11)"),
    ("donor_job", "newest (default) | oldest (A12)"),
    (
        "rfc_order",
        "closest (default) | arrival (A22): which backlogged RFC of a channel gets arriving jobs first",
    ),
    (
        "first_submission",
        "after-think (default) | at-zero (A23): Exp 2/3's first jobs after a think time, or Exp 1's start at t = 0",
    ),
    (
        "exec_b",
        "b of t_exec = S / (b · CPUs), bytes per CPU-second (default 1000, A1)",
    ),
];

const HIERARCHY_METRICS: &[&str] = &[
    "awt_s",
    "aet_s",
    "trt_s",
    "bound_s",
    "trt_over_bound",
    "thesis_trt_s",
    "trt_over_thesis",
    "jobs",
    "unfinished",
    "events",
    "messages",
    "butterfly_moves",
    "load_balance_moves",
    "saved_jobs",
    "saved_pct",
    "fallback_returns",
    "p2p_resubmissions",
    "p2p_components",
    "transfer_s",
    "compute_s",
    "queue_s",
    "server_cpus",
    "same_site_pct",
    "other_backbone_pct",
];

/// Table 4c's H1 TRTs for N = 520 (Exp 1), seconds: (N, MB, TRT).
const THESIS_H1_TRT: [(u32, f64, f64); 5] = [
    (520, 28.9, 114.0),
    (520, 312.7, 3_375.0),
    (520, 1000.0, 10_312.0),
    (520, 10_000.0, 100_404.0),
    (520, 100_000.0, 992_259.0),
];

fn hierarchy_config(p: &ParamSet) -> Result<HierarchyConfig, ModelError> {
    let b = p.f64_or("exec_b", 1000.0)?;
    if !(b >= 1.0 && b.fract() == 0.0) {
        return Err(ModelError(format!(
            "parameter `exec_b` must be a positive integer, got {b}"
        )));
    }
    Ok(HierarchyConfig {
        butterfly_lb: p.bool_or("butterfly_lb", true)?,
        discovery_trigger: p.choice(
            "discovery",
            DiscoveryTrigger::Literal,
            &[
                ("literal", DiscoveryTrigger::Literal),
                ("eager", DiscoveryTrigger::Eager),
            ],
        )?,
        rfc_rule: p.choice(
            "rfc",
            RfcRule::IdleWithBag,
            &[
                ("idle-with-bag", RfcRule::IdleWithBag),
                ("every-completion", RfcRule::EveryCompletion),
            ],
        )?,
        share_base: p.choice(
            "share_base",
            ShareBase::Tentative,
            &[
                ("tentative", ShareBase::Tentative),
                ("unassigned", ShareBase::Unassigned),
            ],
        )?,
        proximity: p.choice(
            "proximity",
            Proximity::BestSite,
            &[
                ("best-site", Proximity::BestSite),
                ("child-address", Proximity::ChildAddress),
            ],
        )?,
        donor_job: p.choice(
            "donor_job",
            DonorJob::Newest,
            &[("newest", DonorJob::Newest), ("oldest", DonorJob::Oldest)],
        )?,
        exec: ExecModel {
            bytes_per_cpu_second: b as u64,
        },
        os_changes: p
            .choice("os_changes", None, &[("off", None), ("thesis", Some(()))])?
            .map(|()| OsChanges::thesis()),
        rfc_order: p.choice(
            "rfc_order",
            RfcOrder::Closest,
            &[
                ("closest", RfcOrder::Closest),
                ("arrival", RfcOrder::Arrival),
            ],
        )?,
        first_submission: first_submission(p)?,
        ..HierarchyConfig::default()
    })
}

fn first_submission(p: &ParamSet) -> Result<FirstSubmission, ModelError> {
    p.choice(
        "first_submission",
        FirstSubmission::AfterThink,
        &[
            ("after-think", FirstSubmission::AfterThink),
            ("at-zero", FirstSubmission::AtZero),
        ],
    )
}

/// Where a run's execution time went, averaged over its jobs (the trace of issue 31):
/// `transfer` = the input's and the output's transfer times on the job's path, `compute` =
/// `t_exec` on its server, `queue` = AET − transfer − compute (a P2P job's wait behind the
/// server's earlier jobs after its offer; the ACCEPT and scheduling messages otherwise), the
/// mean CPUs of the servers the jobs ran on, and the shares of jobs that ran in their user's
/// site and on another backbone.
fn decompose(
    grid: &Grid,
    network: &Network,
    exec: &ExecModel,
    r: &RunResult,
) -> Result<[f64; 6], ModelError> {
    let n = r.records.len().max(1) as f64;
    let servers = grid.servers();
    let (mut transfer, mut compute, mut cpus, mut site, mut far) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for rec in &r.records {
        let s = servers
            .get(rec.server.index())
            .ok_or_else(|| ModelError(format!("job {} ran on an unknown server", rec.job)))?;
        let delay = |a, b, bytes| {
            network
                .delay(a, b, bytes)
                .map(|ms| ms as f64 / 1000.0)
                .map_err(ModelError::from_display)
        };
        transfer += delay(rec.workstation, s.node, rec.input_bytes)?
            + delay(s.node, rec.workstation, rec.input_bytes * 5)?;
        compute += exec.exec_ms(rec.input_bytes, s.cpus()) as f64 / 1000.0;
        cpus += f64::from(s.cpus());
        match rec.class {
            PathClass::SameSite => site += 1.0,
            PathClass::OtherBackbone => far += 1.0,
            _ => {}
        }
    }
    let (transfer, compute) = (transfer / n, compute / n);
    Ok([
        transfer,
        compute,
        r.metrics.aet_s - transfer - compute,
        cpus / n,
        100.0 * site / n,
        100.0 * far / n,
    ])
}

/// The grid system a run simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum System {
    P2p,
    Tree(RootLevel),
}

/// One finished run and what only P2P reports.
struct Run {
    result: RunResult,
    p2p_resubmissions: f64,
    p2p_components: f64,
    /// [`decompose`]'s means.
    parts: [f64; 6],
}

fn submission(p: &ParamSet) -> Result<Submission, ModelError> {
    match p.u32_or("experiment", 1)? {
        1 => Ok(Submission::Continuous),
        2 => Ok(Submission::HeterogeneousThink),
        3 => {
            let h = p.f64("think_h")?;
            if !(h > 0.0 && h.is_finite()) {
                return Err(ModelError(format!(
                    "parameter `think_h` must be positive, got {h}"
                )));
            }
            Ok(Submission::CommonThink((h * 3_600_000.0).round() as u64))
        }
        e => Err(ModelError(format!(
            "parameter `experiment` must be 1, 2 or 3, got {e}"
        ))),
    }
}

impl Model for AlzoubiHierarchy {
    fn sweep_finished(&self) {
        crate::memo::release_all();
    }

    fn name(&self) -> &'static str {
        "alzoubi-hierarchy"
    }

    fn parameters(&self) -> &'static [(&'static str, &'static str)] {
        HIERARCHY_PARAMS
    }

    fn metrics(&self) -> &'static [&'static str] {
        HIERARCHY_METRICS
    }

    fn run(
        &self,
        params: &ParamSet,
        key: &StreamKey,
        jobs: u64,
    ) -> Result<Measurement, ModelError> {
        params.check_known(self)?;
        let system = match params.str_or("system", "h1")? {
            "p2p" => System::P2p,
            "h1" => System::Tree(RootLevel::Grid),
            "h4" => System::Tree(RootLevel::Backbone),
            "h16" => System::Tree(RootLevel::Net),
            s => {
                return Err(ModelError(format!(
                    "parameter `system`: unknown value `{s}`; expected p2p, h1, h4 or h16"
                )));
            }
        };
        let mb = params.f64("size_mb")?;
        let n = if params.has("n") {
            let n = params.f64("n")?;
            if !(n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX)) {
                return Err(ModelError(format!(
                    "parameter `n` must be a positive whole number of jobs, got {n}"
                )));
            }
            n as u32
        } else {
            u32::try_from(jobs).map_err(|_| ModelError(format!("too many jobs: {jobs}")))?
        };
        let config = hierarchy_config(params)?;
        let submission = submission(params)?;
        let flooding = params.choice(
            "p2p_flooding",
            Flooding::Collapsed,
            &[
                ("collapsed", Flooding::Collapsed),
                ("naive", Flooding::Naive),
            ],
        )?;
        let deadline_factor = params.f64_or("p2p_deadline_factor", 3.0)?;
        if !(deadline_factor >= 1.0 && deadline_factor.is_finite()) {
            return Err(ModelError(format!(
                "parameter `p2p_deadline_factor` must be at least 1, got {deadline_factor}"
            )));
        }
        let network = Network::thesis();
        let bound_ms = slowest_server_bound_ms(&network, &config.exec, mb)
            .map_err(ModelError::from_display)?;
        // Everything a run depends on, the whole stream key included: the grid and the jobs
        // are drawn from it, so two sweeps that name the same configuration under different
        // names must not share a run (they did, by seed and replication alone, and which one
        // ran first then decided the other's numbers; `experiments/tests/determinism.rs`).
        let memo_key = format!(
            "{system:?}|{mb}|{n}|{submission:?}|{config:?}|{flooding:?}|{deadline_factor}|{key:?}"
        );
        static RUNS: Memo<Run> = Memo::new();
        let run = RUNS.get(memo_key, || {
            let grid = Grid::thesis(key);
            let specs = draw_jobs(key, n, mb).map_err(ModelError::from_display)?;
            match system {
                System::Tree(root) => {
                    let result = run_hierarchy(&grid, network.clone(), &specs, &submission, root, config.clone(), key)
                        .map_err(ModelError::from_display)?;
                    Ok(Run {
                        parts: decompose(&grid, &network, &config.exec, &result)?,
                        result,
                        p2p_resubmissions: f64::NAN,
                        p2p_components: f64::NAN,
                    })
                }
                System::P2p => {
                    if config.os_changes.is_some() {
                        return Err(ModelError(
                            "os_changes applies to the hierarchies (Fallback, §3.6); the thesis's P2P has no resource changes".into(),
                        ));
                    }
                    let p2p = P2pConfig {
                        flooding,
                        deadline_factor,
                        exec: config.exec,
                        first_submission: config.first_submission,
                        ..P2pConfig::default()
                    };
                    let r = run_p2p(&grid, network.clone(), &specs, &submission, &p2p, key)
                        .map_err(ModelError::from_display)?;
                    Ok(Run {
                        parts: decompose(&grid, &network, &config.exec, &r.result)?,
                        result: r.result,
                        p2p_resubmissions: r.resubmissions as f64,
                        p2p_components: r.components as f64,
                    })
                }
            }
        })?;
        let r = &run.result;
        let trt_s = r.metrics.trt_ms as f64 / 1000.0;
        let bound_s = bound_ms as f64 / 1000.0;
        let thesis = if system == System::Tree(RootLevel::Grid)
            && submission == Submission::Continuous
            && config.butterfly_lb
            && config.os_changes.is_none()
        {
            THESIS_H1_TRT
                .iter()
                .find(|t| t.0 == n && t.1 == mb)
                .map_or(f64::NAN, |t| t.2)
        } else {
            f64::NAN
        };
        Ok(vec![
            ("awt_s", r.metrics.awt_s),
            ("aet_s", r.metrics.aet_s),
            ("trt_s", trt_s),
            ("bound_s", bound_s),
            ("trt_over_bound", trt_s / bound_s),
            ("thesis_trt_s", thesis),
            ("trt_over_thesis", trt_s / thesis),
            ("jobs", r.records.len() as f64),
            ("unfinished", r.unfinished as f64),
            ("events", (r.counters.messages + r.counters.timers) as f64),
            ("messages", r.messages.values().sum::<u64>() as f64),
            ("butterfly_moves", r.butterfly_moves as f64),
            ("load_balance_moves", r.load_balance_moves as f64),
            ("saved_jobs", r.saved_jobs as f64),
            ("saved_pct", 100.0 * r.saved_jobs as f64 / f64::from(n)),
            ("fallback_returns", r.fallback_returns as f64),
            ("p2p_resubmissions", run.p2p_resubmissions),
            ("p2p_components", run.p2p_components),
            ("transfer_s", run.parts[0]),
            ("compute_s", run.parts[1]),
            ("queue_s", run.parts[2]),
            ("server_cpus", run.parts[3]),
            ("same_site_pct", run.parts[4]),
            ("other_backbone_pct", run.parts[5]),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_repro::spec::ParamValue;

    #[test]
    fn table_1_row_through_the_model() {
        let p = ParamSet::from_pairs(&[("size_gb", ParamValue::Float(10.0))]);
        let m = AlzoubiNetwork.run(&p, &StreamKey::new(1, "t"), 1).unwrap();
        let get = |k: &str| m.iter().find(|x| x.0 == k).unwrap().1;
        assert_eq!(get("ms"), 3_427_012.0);
        assert_eq!(get("diff_ms"), 0.0);
        assert_eq!(get("control_ms"), 6.0);
        assert_eq!(get("ms_9gb"), 3_084_312.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let key = StreamKey::new(1, "t");
        for pairs in [
            vec![("size_gb", ParamValue::Float(0.0))],
            vec![
                ("size_gb", ParamValue::Float(1.0)),
                ("from", ParamValue::String("135.2.2.2".into())),
            ],
            vec![
                ("size_gb", ParamValue::Float(1.0)),
                ("rounding", ParamValue::String("up".into())),
            ],
        ] {
            assert!(
                AlzoubiNetwork
                    .run(&ParamSet::from_pairs(&pairs), &key, 1)
                    .is_err()
            );
        }
        let p = ParamSet::from_pairs(&[
            ("size_mb", ParamValue::Float(312.7)),
            ("system", ParamValue::String("p2q".into())),
        ]);
        assert!(AlzoubiHierarchy.run(&p, &key, 10).is_err());
    }
}
