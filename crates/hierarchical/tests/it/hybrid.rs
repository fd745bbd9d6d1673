//! Hybrid peering of trees (spec §3.9, §3.11 A16): H4 and H16 with PGSSs flooding request
//! files. Every job runs exactly once (one accepted offer, one execution) however many trees
//! hold a copy; `Isolated` is the forest as it was before peering; jobs do run abroad.

use crate::common;

use std::collections::BTreeSet;

use gridsched_hierarchical::hierarchy::{
    AcceptForeign, Forest, HierarchyConfig, Peering, RfcOrder, RootLevel, RunResult, Submission,
    jobs_run_abroad, peer_graph, run_hierarchy,
};
use gridsched_hierarchical::{Grid, JobSpec, Network, draw_jobs};
use gridsched_sim::StreamKey;

fn run(
    k: &StreamKey,
    root: RootLevel,
    submission: &Submission,
    n: u32,
    config: HierarchyConfig,
) -> (Grid, Vec<JobSpec>, RunResult) {
    let grid = Grid::thesis(k);
    let jobs = draw_jobs(k, n, 312.7).unwrap();
    let r = run_hierarchy(&grid, Network::thesis(), &jobs, submission, root, config, k).unwrap();
    (grid, jobs, r)
}

fn key(rep: u32) -> StreamKey {
    StreamKey::new(12, "alzoubi-hybrid-test").replication(rep)
}

fn peered() -> HierarchyConfig {
    HierarchyConfig {
        peering: Peering::Flood { ttl: 100 },
        audit_delivery: true,
        ..HierarchyConfig::default()
    }
}

/// Exactly once: one record per job, one INPUT per job (only an accepted offer is answered
/// with the input, so only one server ever runs it), on a server with the job's OS.
fn check_once(grid: &Grid, jobs: &[JobSpec], r: &RunResult) {
    assert_eq!(r.unfinished, 0, "every job completes");
    assert_eq!(r.records.len(), jobs.len());
    let ids: BTreeSet<u32> = r.records.iter().map(|x| x.job).collect();
    assert_eq!(ids.len(), jobs.len(), "every job completes exactly once");
    assert_eq!(
        r.messages.get("INPUT"),
        Some(&(jobs.len() as u64)),
        "one execution each"
    );
    assert_eq!(r.messages.get("OUTPUT"), Some(&(jobs.len() as u64)));
    for rec in &r.records {
        let server = grid.servers()[rec.server.index()];
        assert_eq!(server.os, jobs[rec.job as usize].os);
        assert_eq!(rec.server_os, server.os);
        assert!(rec.rt <= rec.sjtt && rec.sjtt < rec.jct);
    }
}

#[test]
fn peering_runs_every_job_exactly_once() {
    for root in [RootLevel::Backbone, RootLevel::Net] {
        for (sub, n) in [
            (Submission::Continuous, 700),
            (Submission::HeterogeneousThink, 400),
        ] {
            for rep in 0..3 {
                let (grid, jobs, r) = run(&key(rep), root, &sub, n, peered());
                check_once(&grid, &jobs, &r);
                assert!(r.messages["REQUEST_FILE"] > 0);
                assert!(r.messages["PURGE"] > 0);
            }
        }
    }
    // Deterministic.
    let (_, _, a) = run(
        &key(7),
        RootLevel::Net,
        &Submission::Continuous,
        500,
        peered(),
    );
    let (_, _, b) = run(
        &key(7),
        RootLevel::Net,
        &Submission::Continuous,
        500,
        peered(),
    );
    assert_eq!(a.records, b.records);
    assert_eq!(a.counters, b.counters);
    assert_eq!(a.messages, b.messages);
}

/// `Isolated` is the forest before peering: pinned before §3.9 existed (same runs as
/// `tests/it/fallback.rs`'s constant pins): (TRT ms, Σ(3·JCT + SJTT + 7·server), events,
/// cancelled timers, Butterfly, Load-Balance).
#[test]
fn isolated_trees_are_bit_identical_to_before() {
    let pins = [
        (
            RootLevel::Backbone,
            Submission::Continuous,
            520,
            2,
            (3231795, 1442733313, 87349, 520, 543, 45),
        ),
        (
            RootLevel::Net,
            Submission::Continuous,
            520,
            3,
            (3038417, 1350103186, 28868, 520, 291, 12),
        ),
        (
            RootLevel::Backbone,
            Submission::HeterogeneousThink,
            400,
            4,
            (3596482, 1676278041, 237033, 400, 589, 0),
        ),
        (
            RootLevel::Net,
            Submission::HeterogeneousThink,
            400,
            5,
            (3432757, 1539929246, 64712, 400, 289, 0),
        ),
    ];
    for (root, sub, n, rep, want) in pins {
        let k = StreamKey::new(11, "alzoubi-fallback-test").replication(rep);
        let config = HierarchyConfig {
            peering: Peering::Isolated,
            // The pins predate A22: backlogged RFCs served in arrival order.
            rfc_order: RfcOrder::Arrival,
            ..HierarchyConfig::default()
        };
        let (grid, jobs, r) = run(&k, root, &sub, n, config.clone());
        check_once(&grid, &jobs, &r);
        let got = common::fingerprint(&r);
        assert_eq!(got, want, "{root:?} {sub:?} rep {rep}");
        assert!(!r.messages.contains_key("REQUEST_FILE"));
        assert!(jobs_run_abroad(&grid, root, &config, &r).is_empty());
    }
}

/// Under H1 there is one tree: the switch changes nothing.
#[test]
fn h1_ignores_peering() {
    let iso = HierarchyConfig {
        peering: Peering::Isolated,
        ..HierarchyConfig::default()
    };
    let (_, _, a) = run(&key(1), RootLevel::Grid, &Submission::Continuous, 400, iso);
    let (_, _, b) = run(
        &key(1),
        RootLevel::Grid,
        &Submission::Continuous,
        400,
        peered(),
    );
    assert_eq!(a.records, b.records);
    assert_eq!(a.counters, b.counters);
}

/// Peering lets jobs run in a foreign tree: H16, Exp 1 (and H4).
#[test]
fn peering_runs_jobs_in_foreign_trees() {
    for root in [RootLevel::Net, RootLevel::Backbone] {
        let config = peered();
        let (grid, jobs, r) = run(&key(0), root, &Submission::Continuous, 700, config.clone());
        check_once(&grid, &jobs, &r);
        let abroad = jobs_run_abroad(&grid, root, &config, &r);
        eprintln!(
            "{root:?}: {} of {} jobs ran in a foreign tree; REMOTE_START {} PURGE {} \
             REQUEST_FILE {} OFFER {}",
            abroad.len(),
            jobs.len(),
            r.messages.get("REMOTE_START").unwrap_or(&0),
            r.messages["PURGE"],
            r.messages["REQUEST_FILE"],
            r.messages["OFFER"],
        );
        assert!(!abroad.is_empty(), "{root:?}: some job runs abroad");
        assert!(r.messages["REMOTE_START"] > 0);
        // Such a job's server is in a tree other than its user's.
        let forest = Forest::build(&grid, root);
        let j = abroad[0] as usize;
        let rec = &r.records[j];
        let mut s = forest.leaf_parent[rec.server.index()];
        while let Some(p) = forest.schedulers[s].parent {
            s = p;
        }
        assert_ne!(s, forest.site_root[grid.site_of(rec.workstation) as usize]);
    }
}

/// TTL 1: a request file reaches the neighbours only, never forwarded: exactly one file per
/// (job, neighbour), 4 neighbours under H16.
#[test]
fn ttl_one_reaches_only_neighbours() {
    let config = HierarchyConfig {
        peering: Peering::Flood { ttl: 1 },
        ..peered()
    };
    let (grid, jobs, r) = run(
        &key(2),
        RootLevel::Net,
        &Submission::Continuous,
        600,
        config,
    );
    check_once(&grid, &jobs, &r);
    assert_eq!(r.messages["REQUEST_FILE"], 4 * jobs.len() as u64);
    assert!(r.messages["PURGE"] <= 4 * jobs.len() as u64);
}

/// The knob `IdleMatchingServer` keeps exactly-once and accepts fewer foreign jobs.
#[test]
fn accept_only_with_an_idle_matching_server() {
    for sub in [Submission::Continuous, Submission::HeterogeneousThink] {
        let strict = HierarchyConfig {
            accept_foreign: AcceptForeign::IdleMatchingServer,
            ..peered()
        };
        let (grid, jobs, a) = run(&key(3), RootLevel::Net, &sub, 500, strict.clone());
        check_once(&grid, &jobs, &a);
        let (_, _, b) = run(&key(3), RootLevel::Net, &sub, 500, peered());
        assert_ne!(a.records, b.records, "the knob changes the schedule");
        let abroad =
            |c: &HierarchyConfig, r: &RunResult| jobs_run_abroad(&grid, RootLevel::Net, c, r).len();
        eprintln!(
            "{sub:?}: abroad strict {} default {}",
            abroad(&strict, &a),
            abroad(&peered(), &b)
        );
    }
}

/// The proposed neighbour sets: H4 a complete graph, H16 three nets of the backbone plus the
/// same net of the next backbone.
#[test]
fn peer_graphs_h4_h16() {
    let grid = Grid::thesis(&key(0));
    let h4 = Forest::build(&grid, RootLevel::Backbone);
    let g = peer_graph(&grid, &h4, Peering::default()).unwrap();
    assert_eq!(g[0], vec![1, 2, 3]);
    assert!(g.iter().all(|n| n.len() == 3));
    let h16 = Forest::build(&grid, RootLevel::Net);
    let g = peer_graph(&grid, &h16, Peering::default()).unwrap();
    assert_eq!(g[0], vec![1, 2, 3, 4]);
    assert_eq!(g[5], vec![4, 6, 7, 9]);
    assert_eq!(g[13], vec![1, 12, 14, 15]);
    assert!(g.iter().all(|n| n.len() == 4));
    assert!(peer_graph(&grid, &h16, Peering::Isolated).is_none());
    let h1 = Forest::build(&grid, RootLevel::Grid);
    assert!(peer_graph(&grid, &h1, Peering::default()).is_none());
}
