//! Fallback rescheduling under resource (OS) changes (spec §3.6, §3.11 A19–A21, Exp 5):
//! every job completes exactly once and only ever starts on a server whose *live* OS is its
//! own (checked against an independent replay of every server's change process), saved jobs
//! are counted, and a run without changes is the same as before Fallback existed.

use crate::common;

use std::collections::BTreeSet;

use gridsched_hierarchical::hierarchy::{
    ChannelRebuild, DiscoveryTrigger, HierarchyConfig, OsChanges, Peering, RfcOrder, RfcRule,
    RootLevel, RunError, RunResult, Submission, run_hierarchy,
};
use gridsched_hierarchical::{Grid, JobSpec, Network, Os, draw_jobs};
use gridsched_sim::{Millis, StreamKey};
use rand::Rng;

fn key(rep: u32) -> StreamKey {
    StreamKey::new(11, "alzoubi-fallback-test").replication(rep)
}

/// One-, three- and ten-minute means: many changes within a 312.7 MB run (~1 h).
fn minutes() -> OsChanges {
    OsChanges::with_means(vec![60_000, 180_000, 600_000])
}

fn run(
    rep: u32,
    root: RootLevel,
    submission: &Submission,
    n: u32,
    mean_mb: f64,
    config: HierarchyConfig,
) -> (Grid, Vec<JobSpec>, RunResult) {
    let k = key(rep);
    let grid = Grid::thesis(&k);
    let jobs = draw_jobs(&k, n, mean_mb).unwrap();
    let r = run_hierarchy(
        &grid,
        Network::thesis(),
        &jobs,
        submission,
        root,
        config,
        &k,
    )
    .unwrap();
    (grid, jobs, r)
}

fn changing(os_changes: OsChanges) -> HierarchyConfig {
    HierarchyConfig {
        os_changes: Some(os_changes),
        audit_delivery: true,
        ..HierarchyConfig::default()
    }
}

/// Replays server `i`'s change process from its stream, independently of the actors: the
/// (time, new OS) of every change up to `horizon`.
fn timeline(k: &StreamKey, i: usize, means: &[Millis], horizon: Millis) -> Vec<(Millis, Os)> {
    let mut rng = k.clone().stream(&format!("os-change/{i}")).rng();
    let exp = |rng: &mut gridsched_sim::SimRng, mean: Millis| -> Millis {
        let u: f64 = rng.random();
        ((-(1.0 - u).ln() * mean as f64).round() as Millis).max(1)
    };
    let mut mean = means[rng.random_range(0..means.len())];
    let mut t = exp(&mut rng, mean);
    let mut out = Vec::new();
    while t <= horizon {
        let os = Os::ALL[rng.random_range(0..3)];
        out.push((t, os));
        mean = means[rng.random_range(0..means.len())];
        t += exp(&mut rng, mean);
    }
    out
}

/// Every job completes exactly once, on a server whose OS *at the time it sent the offer*
/// (replayed from the stream) was the job's; saved jobs are the completed fallback-hit ones.
fn check(rep: u32, grid: &Grid, jobs: &[JobSpec], r: &RunResult, means: &[Millis]) {
    assert_eq!(r.unfinished, 0, "no job lost");
    assert_eq!(r.records.len(), jobs.len());
    let ids: BTreeSet<u32> = r.records.iter().map(|x| x.job).collect();
    assert_eq!(ids.len(), jobs.len(), "every job runs exactly once");
    let horizon = r.records.iter().map(|x| x.jct).max().unwrap();
    let k = key(rep);
    let lines: Vec<Vec<(Millis, Os)>> = (0..grid.servers().len())
        .map(|i| timeline(&k, i, means, horizon))
        .collect();
    let net = Network::thesis();
    let header = HierarchyConfig::default().sizes.header;
    let mut checked = 0;
    for rec in &r.records {
        let job_os = jobs[rec.job as usize].os;
        assert_eq!(rec.os, job_os);
        assert_eq!(
            rec.server_os, job_os,
            "job {} offered by a wrong-OS server",
            rec.job
        );
        // Independent check: the server's replayed OS when it sent the offer.
        let i = rec.server.index();
        let sent = rec.sjtt - net.delay(rec.server_node, rec.workstation, header).unwrap();
        let line = &lines[i];
        if line.iter().any(|&(t, _)| t == sent) {
            continue; // a change in the same ms: the event order decides, skip
        }
        let live = line
            .iter()
            .rev()
            .find(|&&(t, _)| t < sent)
            .map_or(grid.servers()[i].os, |&(_, os)| os);
        assert_eq!(
            live, job_os,
            "job {} started on server {i} running {live}",
            rec.job
        );
        checked += 1;
    }
    assert!(checked * 10 >= jobs.len() * 9, "most starts checked");
    let hit = r.records.iter().filter(|x| x.fallback_hit).count();
    assert_eq!(
        r.saved_jobs, hit,
        "saved = completed fallback-hit jobs, once each"
    );
    assert!(r.saved_jobs <= jobs.len());
    assert!(
        r.stale_pushes <= r.fallback_returns,
        "stale pushes are returned"
    );
    assert!(r.os_changes > 0);
}

/// A pinned run: forest, submission, N, mean size (MB), replication, fingerprint.
type Pin = (
    RootLevel,
    Submission,
    u32,
    f64,
    u32,
    (u64, u64, u64, u64, u64, u64),
);

/// Pinned before Fallback existed (the same runs, same code path with `os_changes = None`):
/// (TRT ms, Σ(3·JCT + SJTT + 7·server), events, cancelled timers, Butterfly, Load-Balance).
#[test]
fn constant_resources_are_bit_identical_to_before() {
    let expected: [Pin; 6] = [
        (
            RootLevel::Grid,
            Submission::Continuous,
            520,
            100_000.0,
            0,
            (994706847, 551846977633, 314271, 520, 476, 112),
        ),
        (
            RootLevel::Grid,
            Submission::HeterogeneousThink,
            520,
            100_000.0,
            1,
            (995602828, 534666639732, 1165193, 520, 885, 0),
        ),
        (
            RootLevel::Backbone,
            Submission::Continuous,
            520,
            312.7,
            2,
            (3231795, 1442733313, 87349, 520, 543, 45),
        ),
        (
            RootLevel::Net,
            Submission::Continuous,
            520,
            312.7,
            3,
            (3038417, 1350103186, 28868, 520, 291, 12),
        ),
        (
            RootLevel::Backbone,
            Submission::HeterogeneousThink,
            400,
            312.7,
            4,
            (3596482, 1676278041, 237033, 400, 589, 0),
        ),
        (
            RootLevel::Net,
            Submission::HeterogeneousThink,
            400,
            312.7,
            5,
            (3432757, 1539929246, 64712, 400, 289, 0),
        ),
    ];
    for (root, sub, n, mb, rep, want) in expected {
        // H4 / H16 as they were: trees in isolation (B's peering is pinned in hybrid.rs).
        let config = HierarchyConfig {
            peering: Peering::Isolated,
            // The pins predate A22: backlogged RFCs served in arrival order.
            rfc_order: RfcOrder::Arrival,
            ..HierarchyConfig::default()
        };
        let (_, _, r) = run(rep, root, &sub, n, mb, config);
        let got = common::fingerprint(&r);
        assert_eq!(got, want, "{root:?} {sub:?} N={n} {mb} MB rep {rep}");
        assert_eq!((r.saved_jobs, r.fallback_returns, r.os_changes), (0, 0, 0));
        assert!(!r.messages.contains_key("JOB_RETURN"));
        assert!(!r.messages.contains_key("CHANNEL_UPDATE"));
        assert!(r.records.iter().all(|x| !x.fallback_hit));
    }
}

/// Exp 1 with many changes: every job once, on its live OS; Fallback saves jobs.
#[test]
fn os_changes_exp1_every_job_once_and_jobs_saved() {
    let means = minutes().means_ms;
    let mut saved = 0;
    for rep in 0..3 {
        let (grid, jobs, r) = run(
            rep,
            RootLevel::Grid,
            &Submission::Continuous,
            3000,
            312.7,
            changing(minutes()),
        );
        check(rep, &grid, &jobs, &r, &means);
        assert!(r.fallback_returns > 0, "changes strand queued jobs");
        assert!(r.saved_jobs > 0);
        saved += r.saved_jobs;
        eprintln!(
            "rep {rep}: saved {} returns {} changes {} stale pushes {} {:?}",
            r.saved_jobs, r.fallback_returns, r.os_changes, r.stale_pushes, r.metrics
        );
    }
    assert!(saved > 0);
}

/// Exp 2 (think times) and the thesis's means under heavy load: no job lost.
#[test]
fn os_changes_exp2_and_thesis_means_lose_no_job() {
    let (grid, jobs, r) = run(
        4,
        RootLevel::Grid,
        &Submission::HeterogeneousThink,
        600,
        312.7,
        changing(minutes()),
    );
    check(4, &grid, &jobs, &r, &minutes().means_ms);
    let thesis = OsChanges::thesis();
    assert_eq!(
        thesis.means_ms,
        vec![
            86_400_000,
            259_200_000,
            604_800_000,
            2_592_000_000,
            7_776_000_000,
            15_552_000_000
        ]
    );
    let (grid, jobs, r) = run(
        5,
        RootLevel::Grid,
        &Submission::Continuous,
        3000,
        100_000.0,
        changing(thesis.clone()),
    );
    check(5, &grid, &jobs, &r, &thesis.means_ms);
    assert!(r.saved_jobs > 0, "A19 100 GB, N = 3000: some jobs saved");
}

/// Butterfly and Load-Balance (on by default) move many jobs while servers change; no move
/// ever lets a job start on a server whose live OS is not its own (the replayed check), and
/// a push that crossed a change is returned at once. Same seed, same run.
#[test]
fn butterfly_and_load_balance_never_start_a_job_on_a_wrong_os() {
    let means = minutes().means_ms;
    let (grid, jobs, a) = run(
        6,
        RootLevel::Grid,
        &Submission::Continuous,
        2000,
        312.7,
        changing(minutes()),
    );
    check(6, &grid, &jobs, &a, &means);
    assert!(a.butterfly_moves > 0 && a.load_balance_moves > 0);
    let (_, _, b) = run(
        6,
        RootLevel::Grid,
        &Submission::Continuous,
        2000,
        312.7,
        changing(minutes()),
    );
    assert_eq!(a.records, b.records);
    assert_eq!(a.counters, b.counters);
    // The changes use their own streams: the jobs and submitters are the constant run's.
    let (_, _, c) = run(
        6,
        RootLevel::Grid,
        &Submission::Continuous,
        2000,
        312.7,
        HierarchyConfig::default(),
    );
    let first = |r: &RunResult| {
        r.records
            .iter()
            .map(|x| x.workstation)
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(first(&a), first(&c));
}

/// Fallback under the other switches and forests: A10 DestroyAll, A7 EveryCompletion, A9
/// Eager, Butterfly/Load-Balance off, H4 and H16 trees.
#[test]
fn os_changes_under_every_switch_and_forest() {
    let means = minutes().means_ms;
    let variants = [
        HierarchyConfig {
            channel_rebuild: ChannelRebuild::DestroyAll,
            ..changing(minutes())
        },
        HierarchyConfig {
            rfc_rule: RfcRule::EveryCompletion,
            ..changing(minutes())
        },
        HierarchyConfig {
            discovery_trigger: DiscoveryTrigger::Eager,
            ..changing(minutes())
        },
        HierarchyConfig {
            butterfly_lb: false,
            ..changing(minutes())
        },
    ];
    for (v, cfg) in variants.into_iter().enumerate() {
        let rep = 10 + v as u32;
        let (grid, jobs, r) = run(
            rep,
            RootLevel::Grid,
            &Submission::Continuous,
            1500,
            312.7,
            cfg,
        );
        check(rep, &grid, &jobs, &r, &means);
    }
    for (v, root) in [RootLevel::Backbone, RootLevel::Net]
        .into_iter()
        .enumerate()
    {
        let rep = 20 + v as u32;
        for sub in [Submission::Continuous, Submission::HeterogeneousThink] {
            let (grid, jobs, r) = run(rep, root, &sub, 1200, 312.7, changing(minutes()));
            check(rep, &grid, &jobs, &r, &means);
        }
    }
}

#[test]
fn invalid_means_are_rejected() {
    let k = key(0);
    let grid = Grid::thesis(&k);
    let jobs = draw_jobs(&k, 10, 312.7).unwrap();
    for means in [vec![], vec![60_000, 0]] {
        let cfg = HierarchyConfig {
            os_changes: Some(OsChanges::with_means(means)),
            ..HierarchyConfig::default()
        };
        let e = run_hierarchy(
            &grid,
            Network::thesis(),
            &jobs,
            &Submission::Continuous,
            RootLevel::Grid,
            cfg,
            &k,
        );
        assert!(matches!(e, Err(RunError::Config(_))));
    }
}

/// alzoubi-table-8's first cell, one replication (A19 100 GB, N = 520, Exp 1, the thesis's
/// means): saved jobs and JOB_RETURNs.
#[test]
#[ignore = "measurement"]
fn measure_table8_cells() {
    for (sub, n) in [
        (Submission::Continuous, 520),
        (Submission::Continuous, 1040),
        (Submission::Continuous, 1560),
        (Submission::Continuous, 3000),
        (Submission::HeterogeneousThink, 520),
        (Submission::HeterogeneousThink, 3000),
    ] {
        let cfg = HierarchyConfig {
            os_changes: Some(OsChanges::thesis()),
            ..HierarchyConfig::default()
        };
        let (_, _, r) = run(0, RootLevel::Grid, &sub, n, 100_000.0, cfg);
        eprintln!(
            "{sub:?} N={n}: saved {} ({:.2}%) returns {} changes {} unfinished {} {:?}",
            r.saved_jobs,
            100.0 * r.saved_jobs as f64 / f64::from(n),
            r.fallback_returns,
            r.os_changes,
            r.unfinished,
            r.metrics
        );
    }
}
