//! Hierarchical scheduling (spec §3.1–§3.7): a forest of schedulers over the grid, run as
//! actors on [`gridsched_sim::Simulation`] with the thesis's network timing every message.
//!
//! - [`tree`]: the generic builder (root level 0, 1 or 2: H1, H4, H16), peered by
//!   [`peer_graph`] under [`Peering::Flood`] (§3.9, A16: the roots become PGSSs flooding
//!   request files, purging copies once a job starts; [`jobs_run_abroad`] finds the jobs that
//!   ran in a foreign tree);
//! - [`bags`]: the generic bag with holes and the channel table (the thesis's examples);
//! - [`config`]: every ★ switch of spec §3.11 the protocol touches, with its default
//!   (A5 scheduler hosts, A6, A7, A8, A9, A10 channel rebuild, A11, A12, A16 peering and
//!   foreign acceptance, A18 Exp 1 submitters, A19–A21 resource changes);
//! - [`actors`]: workstations, schedulers (self-discovery, adaptive child scheduling,
//!   Butterfly, Load-Balance) and LGS/servers;
//! - [`calib`]: alzoubi-calib-trt520, H1's TRT against the slowest-server bound;
//! - [`run_hierarchy`]: one replication end to end, its per-job records and the §5 metrics.
//!
//! Fallback and resource changes (§3.6, A19–A21, Exp 5): [`HierarchyConfig::os_changes`]
//! runs each server's OS-change process ([`OsChanges`]); LGSs keep their live OS, return the
//! tentative jobs a change strands (JOB_RETURN) and report their channels (CHANNEL_UPDATE);
//! schedulers reschedule within their partition or pass the job up, and the GSS keeps a job
//! no bag matches until one does. [`RunResult::saved_jobs`] counts the saved jobs.

pub mod actors;
pub mod bags;
pub mod calib;
pub mod config;
pub mod idset;
pub mod tree;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use gridsched_sim::{ActorId, Counters, Halt, Millis, Simulation, StreamKey};
use rand::seq::{IndexedRandom, SliceRandom};

use crate::address::NodeId;
use crate::grid::Grid;
use crate::jobs::{JobError, JobSpec};
use crate::network::{DelayError, Network};
use crate::placement::Placement;

pub use actors::{
    Arrivals, HierarchyError, Jd, JobRecord, Msg, OsProcess, PeerState, Received, b_share,
    proximity,
};
pub use calib::{TrtCalibration, calib_trt520, slowest_server_bound_ms};
pub use config::{
    AcceptForeign, ChannelRebuild, DiscoveryTrigger, DonorJob, Exp1Workstations, FirstSubmission,
    HierarchyConfig, MessageSizes, OsChanges, Peering, Proximity, RfcOrder, RfcRule, SchedulerHost,
    ShareBase,
};
pub use tree::{Forest, RootLevel, TreeChild};

use actors::{HierarchyActor, Leaf, Node, Scheduler, Workload, Workstation};

/// Think-time means of Exp 2 (one drawn per workstation), in ms.
pub const EXP2_THINK_MEANS: [Millis; 6] = [
    600_000,
    1_800_000,
    3_600_000,
    18_000_000,
    86_400_000,
    604_800_000,
];

/// How the workload is submitted.
#[derive(Debug, Clone, PartialEq)]
pub enum Submission {
    /// Exp 1 (A18): `min(N, workstations)` workstations submit at 0, each resubmits on
    /// receiving its output; which ones is [`HierarchyConfig::exp1_workstations`] (random by
    /// default).
    Continuous,
    /// Exp 2: each workstation draws its think-time mean from [`EXP2_THINK_MEANS`].
    HeterogeneousThink,
    /// Exp 3: every workstation thinks Exp(mean) with this mean (ms).
    CommonThink(Millis),
}

/// The §5 metrics of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    pub jobs: usize,
    /// Average waiting time `mean(SJTT − RT)`, seconds.
    pub awt_s: f64,
    /// Average execution time `mean(JCT − SJTT)`, seconds.
    pub aet_s: f64,
    /// Total response time `LJC − FRS`, ms.
    pub trt_ms: Millis,
}

impl Metrics {
    /// From per-job records (any order).
    pub fn of(records: &[JobRecord]) -> Metrics {
        let n = records.len();
        let frs = records.iter().map(|r| r.rt).min().unwrap_or(0);
        let ljc = records.iter().map(|r| r.jct).max().unwrap_or(0);
        let mean = |f: &dyn Fn(&JobRecord) -> Millis| {
            records.iter().map(|r| f(r) as f64).sum::<f64>() / n.max(1) as f64 / 1000.0
        };
        Metrics {
            jobs: n,
            awt_s: mean(&|r| r.sjtt - r.rt),
            aet_s: mean(&|r| r.jct - r.sjtt),
            trt_ms: ljc - frs,
        }
    }
}

/// One finished run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Per-job records, job order.
    pub records: Vec<JobRecord>,
    pub metrics: Metrics,
    /// Events the engine delivered.
    pub counters: Counters,
    /// Messages received, by type.
    pub messages: BTreeMap<&'static str, u64>,
    /// The node of every actor (`records[i].server` resolves here).
    pub hosts: Vec<NodeId>,
    /// Jobs moved by Butterfly, over all schedulers.
    pub butterfly_moves: u64,
    /// Jobs moved by Load-Balance, over all schedulers.
    pub load_balance_moves: u64,
    /// Jobs submitted but not completed when the event list ran dry (0 in a healthy run).
    pub unfinished: usize,
    /// Saved jobs (Exp 5, §5): jobs Fallback returned at least once that later completed,
    /// each counted once (`records[i].fallback_hit`).
    pub saved_jobs: usize,
    /// JOB_RETURN messages (LGS → parent and scheduler → parent), over the run.
    pub fallback_returns: u64,
    /// OS changes drawn over all servers (irrelevant ones, the same OS again, included).
    pub os_changes: u64,
    /// Jobs pushed to an LGS for an OS it had already left (the RFC crossed the change; the
    /// LGS returned them at once, none ran there).
    pub stale_pushes: u64,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Delay(#[from] DelayError),
    #[error(transparent)]
    Protocol(#[from] HierarchyError),
    #[error(transparent)]
    Jobs(#[from] JobError),
    #[error("a workload needs at least one job")]
    Empty,
    /// A switch of [`HierarchyConfig`] out of its domain (e.g. an empty or zero OS-change mean).
    #[error("invalid configuration: {0}")]
    Config(String),
}

/// The peer graph of a forest's roots (PGSSs) under [`Peering::Flood`], as indexes into
/// `forest.roots`: `None` with one tree or [`Peering::Isolated`]. Roots at the backbone level
/// (H4) form a complete graph; roots at the net level (H16) see the other nets of their
/// backbone and the net of the same index in the next backbone (a ring over backbones).
pub fn peer_graph(grid: &Grid, forest: &Forest, peering: Peering) -> Option<Vec<Vec<usize>>> {
    if forest.roots.len() < 2 || peering == Peering::Isolated {
        return None;
    }
    let t = grid.topology();
    let (nets, sites) = (usize::from(t.nets), usize::from(t.sites));
    let level = forest.schedulers[forest.roots[0]].level;
    let n = forest.roots.len();
    // Each root's (backbone, net-in-backbone) from its first site.
    let place: Vec<(usize, usize)> = forest
        .roots
        .iter()
        .map(|&r| {
            let net = forest.schedulers[r].sites[0] as usize / sites;
            (net / nets, net % nets)
        })
        .collect();
    let backbones = place.iter().map(|p| p.0).max().unwrap_or(0) + 1;
    let graph = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| j != i)
                .filter(|&j| {
                    let ((bi, ni), (bj, nj)) = (place[i], place[j]);
                    level < 2 || bi == bj || (bj == (bi + 1) % backbones && nj == ni)
                })
                .collect()
        })
        .collect();
    Some(graph)
}

/// The jobs of a run that ran in a tree other than their workstation's (possible only with
/// [`Peering::Flood`]): the tree of the server against the tree of the user's site.
pub fn jobs_run_abroad(
    grid: &Grid,
    root: RootLevel,
    config: &HierarchyConfig,
    result: &RunResult,
) -> Vec<u32> {
    let forest = Forest::build_hosted(grid, root, config.scheduler_host);
    let tree_of = |mut k: usize| {
        while let Some(p) = forest.schedulers[k].parent {
            k = p;
        }
        k
    };
    result
        .records
        .iter()
        .filter(|r| {
            let server = tree_of(forest.leaf_parent[r.server.index()]);
            let user = forest.site_root[grid.site_of(r.workstation) as usize];
            server != user
        })
        .map(|r| r.job)
        .collect()
}

/// Runs the jobs on the grid under a forest rooted at `root` (H1: [`RootLevel::Grid`]).
/// `run` keys the submitters and think times (common to every system of a replication).
pub fn run_hierarchy(
    grid: &Grid,
    network: Network,
    jobs: &[JobSpec],
    submission: &Submission,
    root: RootLevel,
    config: HierarchyConfig,
    run: &StreamKey,
) -> Result<RunResult, RunError> {
    if jobs.is_empty() {
        return Err(RunError::Empty);
    }
    if let Some(oc) = &config.os_changes
        && (oc.means_ms.is_empty() || oc.means_ms.contains(&0))
    {
        return Err(RunError::Config(
            "OS-change means must be non-empty and positive".into(),
        ));
    }
    let forest = Forest::build_hosted(grid, root, config.scheduler_host);
    // A5 DedicatedNode: a workstation whose node hosts a scheduler is not a user.
    let taken = forest.dedicated_hosts(grid);
    let users: Vec<NodeId> = grid
        .workstations()
        .iter()
        .copied()
        .filter(|w| taken.binary_search(w).is_err())
        .collect();
    let config = Rc::new(config);
    let t = *grid.topology();
    let servers = grid.servers();
    // Actor ids: LGSs 0..S, schedulers S..S+K, workstations after.
    let s_count = servers.len();
    let sched_id = |i: usize| ActorId((s_count + i) as u32);
    let ws_base = s_count + forest.schedulers.len();
    let mut hosts: Vec<NodeId> = servers.iter().map(|s| s.node).collect();
    hosts.extend(forest.schedulers.iter().map(|s| s.host));
    hosts.extend(users.iter().copied());
    let placement = Placement::new(network, hosts.clone())?;
    let mut sim: Simulation<HierarchyActor, Placement> = Simulation::new(placement);
    let wrap = |node| HierarchyActor {
        node,
        config: Rc::clone(&config),
        received: Received::default(),
    };
    // Exp 5: each server's change process on its own stream; the first change's delay.
    let completed = Rc::new(std::cell::Cell::new(0u32));
    let mut first_change: Vec<Millis> = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let parent = sched_id(forest.leaf_parent[i]);
        let mut leaf = Leaf::new(*s, parent);
        if let Some(oc) = &config.os_changes {
            let rng = run.clone().stream(&format!("os-change/{i}")).rng();
            let total = jobs.len() as u32;
            let (p, t) = OsProcess::start(rng, &oc.means_ms, Rc::clone(&completed), total);
            leaf = leaf.with_os_changes(p);
            first_change.push(t);
        }
        sim.add_actor(wrap(Node::Leaf(Box::new(leaf))));
    }
    let site_addr: Vec<_> = (0..grid.sites() as u32)
        .map(|s| grid.site_address(s))
        .collect();
    let neighbours = peer_graph(grid, &forest, config.peering);
    for (k, sch) in forest.schedulers.iter().enumerate() {
        let children: Vec<ActorId> = sch
            .children
            .iter()
            .map(|c| match *c {
                TreeChild::Scheduler(k) => sched_id(k),
                TreeChild::Leaf(k) => ActorId(k as u32),
            })
            .collect();
        let prox: Vec<Vec<u8>> = sch
            .children
            .iter()
            .map(|c| {
                let (sites, host) = match *c {
                    TreeChild::Scheduler(k) => (
                        forest.schedulers[k].sites.clone(),
                        forest.schedulers[k].host,
                    ),
                    TreeChild::Leaf(k) => (vec![servers[k].site], servers[k].node),
                };
                let host = t.address(host).expect("placed");
                site_addr
                    .iter()
                    .map(|&user| match config.proximity {
                        Proximity::BestSite => {
                            proximity(user, sites.iter().map(|&s| site_addr[s as usize]))
                        }
                        Proximity::ChildAddress => proximity(user, [host]),
                    })
                    .collect()
            })
            .collect();
        let parent = sch.parent.map(sched_id);
        let mut scheduler = Scheduler::new(parent, children, prox);
        if let Some(pos) = forest.roots.iter().position(|&r| r == k)
            && let Some(nb) = &neighbours
        {
            let ids = nb[pos].iter().map(|&q| sched_id(forest.roots[q])).collect();
            scheduler.peer = Some(Box::new(PeerState::new(ids)));
        }
        sim.add_actor(wrap(Node::Scheduler(Box::new(scheduler))));
    }
    let workload = Rc::new(Workload {
        jobs: jobs.to_vec().into(),
        submitted: std::cell::Cell::new(0),
    });
    let mut means = run.clone().stream("think-mean").rng();
    for (i, &node) in users.iter().enumerate() {
        let site = grid.site_of(node);
        let entry = sched_id(forest.site_root[site as usize]);
        let (arrivals, mean) = match submission {
            Submission::Continuous => (Arrivals::Continuous, 0.0),
            Submission::HeterogeneousThink => {
                let m = *EXP2_THINK_MEANS.choose(&mut means).expect("non-empty");
                (Arrivals::Think, m as f64)
            }
            Submission::CommonThink(m) => (Arrivals::Think, *m as f64),
        };
        let rng = run.clone().stream(&format!("think/{i}")).rng();
        let mut ws = Workstation::new(node, site, entry, Rc::clone(&workload), arrivals, mean, rng);
        if config.os_changes.is_some() {
            ws.completed = Some(Rc::clone(&completed));
        }
        sim.add_actor(wrap(Node::Workstation(Box::new(ws))));
    }
    // Start: every LGS asks for discovery; workstations submit.
    for i in 0..s_count {
        sim.set_timer(ActorId(i as u32), 0, 0).expect("actor");
    }
    for (i, &t) in first_change.iter().enumerate() {
        sim.set_timer(ActorId(i as u32), t, actors::TIMER_OS_CHANGE)
            .expect("actor");
    }
    let n_ws = users.len();
    let burst = config.first_submission == FirstSubmission::AtZero;
    match submission {
        Submission::HeterogeneousThink | Submission::CommonThink(_) if !burst => {
            for w in 0..n_ws {
                let id = ActorId((ws_base + w) as u32);
                if let Some(HierarchyActor {
                    node: Node::Workstation(ws),
                    ..
                }) = sim.actor_mut(id)
                {
                    let u: f64 = rand::Rng::random(&mut ws.rng);
                    let t = (-(1.0 - u).ln() * ws.think_mean).round() as Millis;
                    sim.set_timer(id, t, 0).expect("actor");
                }
            }
        }
        // Exp 1, and Exp 2/3 under A23 `AtZero`: the A18 workstations submit at 0.
        _ => {
            let mut order: Vec<usize> = (0..n_ws).collect();
            if config.exp1_workstations == Exp1Workstations::Random {
                order.shuffle(&mut run.clone().stream("submitters").rng());
            }
            for &w in order.iter().take(jobs.len().min(n_ws)) {
                sim.set_timer(ActorId((ws_base + w) as u32), 0, 0)
                    .expect("actor");
            }
        }
    }
    let halt = sim.run()?;
    debug_assert_eq!(halt, Halt::Empty);
    let mut records = Vec::with_capacity(jobs.len());
    let mut messages: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut moves = [0u64; 2];
    let mut hit: BTreeSet<u32> = BTreeSet::new();
    let (mut os_changes, mut stale_pushes) = (0u64, 0u64);
    for a in sim.actors() {
        if let Node::Leaf(l) = &a.node {
            hit.extend(l.returned.iter().copied());
            os_changes += l.os_changes;
            stale_pushes += l.stale_pushes;
        }
        if let Node::Scheduler(s) = &a.node {
            moves[0] += s.moves[0];
            moves[1] += s.moves[1];
            hit.extend(s.returned.iter().copied());
        }
        for (k, v) in a.received.iter() {
            *messages.entry(k).or_default() += v;
        }
        if let Node::Workstation(w) = &a.node {
            records.extend_from_slice(&w.records);
        }
    }
    records.sort_by_key(|r| r.job);
    for r in &mut records {
        r.fallback_hit = hit.contains(&r.job);
    }
    let saved_jobs = records.iter().filter(|r| r.fallback_hit).count();
    let fallback_returns = messages.get("JOB_RETURN").copied().unwrap_or(0);
    let unfinished = jobs.len() - records.len();
    Ok(RunResult {
        metrics: Metrics::of(&records),
        records,
        counters: sim.counters(),
        messages,
        hosts,
        butterfly_moves: moves[0],
        load_balance_moves: moves[1],
        unfinished,
        saved_jobs,
        fallback_returns,
        os_changes,
        stale_pushes,
    })
}
