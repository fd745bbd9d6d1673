//! Al-Zoubi (2006): hierarchical grid scheduling over an Internet-like network (spec
//! `alzoubi-hierarchical.md`), on `gridsched-hierarchical`.
//!
//! - `alzoubi-network`: the transfer time of one message between two addresses (Table 1, the
//!   path of Fig. 33), beside the thesis's printed value where Table 1 gives one; a 100 B
//!   control message and 9 GB on the same path repeat at every x (the text's other timings).
//!   Deterministic: one run per point.
//! - `alzoubi-hierarchy`: one run of hierarchical scheduling (H1) per replication, `jobs` jobs
//!   of mean size `size_mb`, with the §5 metrics (AWT, AET, TRT), the slowest-server bound of
//!   alzoubi-calib-trt520 and the thesis's H1 TRT (Table 4c) where it prints one.

use gridsched_hierarchical::hierarchy::{
    DiscoveryTrigger, DonorJob, HierarchyConfig, Proximity, RfcRule, RootLevel, ShareBase,
    Submission, run_hierarchy, slowest_server_bound_ms,
};
use gridsched_hierarchical::{
    Address, ExecModel, Grid, Network, NetworkConfig, Rounding, draw_jobs,
};
use gridsched_repro::model::{Measurement, Model, ModelError, ParamSet};
use gridsched_repro::papers::Paper;
use gridsched_sim::StreamKey;

/// The document.
pub static PAPER: Paper = Paper {
    key: "alzoubi",
    seed: "003",
    citation: "K. Al-Zoubi, \"Hierarchical Scheduling in Grid Systems\", M.C.S. thesis, Ottawa-Carleton Institute for Computer Science, Carleton University, 2006",
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
        "h1 (one Grid tree; P2P and the hybrids are issue 17)",
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
        ..HierarchyConfig::default()
    })
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
        let root = match params.str_or("system", "h1")? {
            "h1" => RootLevel::Grid,
            s => {
                return Err(ModelError(format!(
                    "parameter `system`: unknown value `{s}`; expected h1"
                )));
            }
        };
        let mb = params.f64("size_mb")?;
        let n = u32::try_from(jobs).map_err(|_| ModelError(format!("too many jobs: {jobs}")))?;
        let config = hierarchy_config(params)?;
        let submission = submission(params)?;
        let grid = Grid::thesis(key);
        let specs = draw_jobs(key, n, mb).map_err(ModelError::from_display)?;
        let network = Network::thesis();
        let bound_ms = slowest_server_bound_ms(&network, &config.exec, mb)
            .map_err(ModelError::from_display)?;
        let r = run_hierarchy(&grid, network, &specs, &submission, root, config, key)
            .map_err(ModelError::from_display)?;
        let trt_s = r.metrics.trt_ms as f64 / 1000.0;
        let bound_s = bound_ms as f64 / 1000.0;
        let thesis =
            if submission == Submission::Continuous && params.bool_or("butterfly_lb", true)? {
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
            ("system", ParamValue::String("p2p".into())),
        ]);
        assert!(AlzoubiHierarchy.run(&p, &key, 10).is_err());
    }
}
