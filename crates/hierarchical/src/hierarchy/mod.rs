//! Hierarchical scheduling (spec §3.1–§3.7): a forest of schedulers over the grid, run as
//! actors on [`gridsched_sim::Simulation`] with the thesis's network timing every message.
//!
//! - [`tree`]: the generic builder (root level 0, 1 or 2: H1, H4, H16 without peering);
//! - [`bags`]: the generic bag with holes and the channel table (the thesis's examples);
//! - [`config`]: every ★ switch of spec §3.11 the protocol touches, with its default
//!   (A5 scheduler hosts, A6, A7, A8, A9, A10 channel rebuild, A11, A12, A18 Exp 1 submitters);
//! - [`actors`]: workstations, schedulers (self-discovery, adaptive child scheduling,
//!   Butterfly, Load-Balance) and LGS/servers;
//! - [`calib`]: alzoubi-calib-trt520, H1's TRT against the slowest-server bound;
//! - [`run_hierarchy`]: one replication end to end, its per-job records and the §5 metrics.
//!
//! Not here yet: Fallback and resource changes (§3.6, Exp 5), peering of trees (§3.9).

pub mod actors;
pub mod bags;
pub mod calib;
pub mod config;
pub mod tree;

use std::collections::BTreeMap;
use std::rc::Rc;

use gridsched_sim::{ActorId, Counters, Halt, Millis, Simulation, StreamKey};
use rand::seq::{IndexedRandom, SliceRandom};

use crate::address::NodeId;
use crate::grid::Grid;
use crate::jobs::{JobError, JobSpec};
use crate::network::{DelayError, Network};
use crate::placement::Placement;

pub use actors::{Arrivals, HierarchyError, Jd, JobRecord, Msg, b_share, proximity};
pub use calib::{TrtCalibration, calib_trt520, slowest_server_bound_ms};
pub use config::{
    ChannelRebuild, DiscoveryTrigger, DonorJob, Exp1Workstations, HierarchyConfig, MessageSizes,
    Proximity, RfcRule, SchedulerHost, ShareBase,
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
        received: BTreeMap::new(),
    };
    for (i, s) in servers.iter().enumerate() {
        let parent = sched_id(forest.leaf_parent[i]);
        sim.add_actor(wrap(Node::Leaf(Box::new(Leaf::new(*s, parent)))));
    }
    let site_addr: Vec<_> = (0..grid.sites() as u32)
        .map(|s| grid.site_address(s))
        .collect();
    for sch in &forest.schedulers {
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
        sim.add_actor(wrap(Node::Scheduler(Box::new(Scheduler::new(
            parent, children, prox,
        )))));
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
        let ws = Workstation::new(node, site, entry, Rc::clone(&workload), arrivals, mean, rng);
        sim.add_actor(wrap(Node::Workstation(Box::new(ws))));
    }
    // Start: every LGS asks for discovery; workstations submit.
    for i in 0..s_count {
        sim.set_timer(ActorId(i as u32), 0, 0).expect("actor");
    }
    let n_ws = users.len();
    match submission {
        Submission::Continuous => {
            let mut order: Vec<usize> = (0..n_ws).collect();
            if config.exp1_workstations == Exp1Workstations::Random {
                order.shuffle(&mut run.clone().stream("submitters").rng());
            }
            for &w in order.iter().take(jobs.len().min(n_ws)) {
                sim.set_timer(ActorId((ws_base + w) as u32), 0, 0)
                    .expect("actor");
            }
        }
        Submission::HeterogeneousThink | Submission::CommonThink(_) => {
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
    }
    let halt = sim.run()?;
    debug_assert_eq!(halt, Halt::Empty);
    let mut records = Vec::with_capacity(jobs.len());
    let mut messages: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut moves = [0u64; 2];
    for a in sim.actors() {
        if let Node::Scheduler(s) = &a.node {
            moves[0] += s.moves[0];
            moves[1] += s.moves[1];
        }
        for (k, v) in &a.received {
            *messages.entry(k).or_default() += v;
        }
        if let Node::Workstation(w) = &a.node {
            records.extend_from_slice(&w.records);
        }
    }
    records.sort_by_key(|r| r.job);
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
    })
}
