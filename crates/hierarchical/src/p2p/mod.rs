//! The P2P baseline of Al-Zoubi (2006) (spec §2.3 P2P bullet, §3.8, A13–A15): every server is a
//! peer, workstations submit to their own site's peer, and a peer that cannot meet a request
//! floods it to its neighbours.
//!
//! The protocol ([`run_p2p`]):
//! - a workstation sends SUBMIT (hop count 100) to its entry peer and, without an offer
//!   within 2 minutes, resubmits (a new attempt id; the request time stays the first);
//! - a peer accepts iff the OS matches and A15 holds: `(start_est − now) + u ≤ 3·u`, with
//!   `u = T_in + t_exec + T_out` for this workstation and this server and
//!   `start_est = max(now, free_at)`, `free_at` being when the server will have delivered
//!   every job it holds (running, queued, and reserved as if accepted). The model is
//!   deterministic, so `free_at` is an exact prediction (the fold
//!   `t = max(t, input arrival) + t_exec + T_out` over the FIFO) except when a reservation
//!   that is never accepted holds the FIFO's head until its timeout. It then reserves its server
//!   and sends an OFFER; otherwise, while `hop > 1`, it forwards to all its neighbours with
//!   `hop − 1`, and drops a `(job, attempt)` it has already seen;
//! - the workstation takes the first offer (SJTT = its receipt), ACCEPTs and starts sending
//!   the input; later offers are ignored and their peers release the reservation after
//!   100 ms without ACCEPT;
//! - a server runs one job at a time in the FIFO order of its reservations, each once its
//!   input is in, and is busy until the output has reached the workstation: queueing after
//!   acceptance counts in AET.
//!
//! Two engines ([`Flooding`]): `Naive` sends every message on [`gridsched_sim::Simulation`];
//! `Collapsed` is spec §7 item 7's shortcut, a dedicated event loop that (a) replays the floods
//! of a millisecond at once in the naive delivery order (private module `flood`) and (b) skips
//! retries that no reachable peer could accept. The peer's server (private module `peer`) is
//! shared code. Where the two can differ, and by how much, is stated on
//! [`Flooding::Collapsed`].
//!
//! A request that no reachable peer can ever run (no server with its OS in the entry's
//! component, or within the hop count) is abandoned after its first flood in both engines:
//! the thesis's workstation would resubmit it forever. It counts in
//! [`RunResult::unfinished`], and with continuous submission its workstation stops.

#![warn(missing_docs)]

mod collapsed;
mod flood;
pub mod graph;
mod naive;
mod peer;

use gridsched_sim::{Counters, Millis, SimRng, StreamKey};
use rand::seq::{IndexedRandom, SliceRandom};

use crate::grid::Grid;
use crate::hierarchy::{
    EXP2_THINK_MEANS, Exp1Workstations, FirstSubmission, HierarchyError, JobRecord, MessageSizes,
    Metrics, RunError, RunResult, Submission,
};
use crate::jobs::{ExecModel, JobSpec};
use crate::network::Network;

pub use graph::{NeighbourGraph, NeighbourPolicy};

use flood::{Flooder, StaticReach};
use peer::Model;

/// How requests travel between peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flooding {
    /// Every SUBMIT, FORWARD, OFFER, ACCEPT, transfer and timer is an event of the actor
    /// engine; every retry floods. The reference, affordable for small workloads.
    Naive,
    /// Flood collapse and retry skipping (spec §7 item 7).
    ///
    /// (a) The floods whose SUBMITs reach their entries in one millisecond are replayed
    /// together, at once, in the naive delivery order (all SUBMITs, then the FORWARDs in the
    /// order they were sent), so the same peers accept at the same times and the FORWARD count
    /// is the same. They are replayed against the peers' state at that instant, and before any
    /// other event of that millisecond: a state change at a reached peer *during* a flood (a
    /// release, a completion, another millisecond's flood) is seen by the naive engine only.
    ///
    /// (b) A retry is skipped, exactly, when no peer of the entry's static reach with the
    /// job's OS could pass A15 at its delivery time: such a flood changes nothing but message
    /// counts, which are added as if it had run. The next effective retry is the first 2-minute
    /// tick at or after the earliest time any such peer could accept (a peer's `free_at`
    /// changes only with its FIFO), recomputed when a reachable peer's `free_at` goes down;
    /// when it goes up the tick is tried and, finding no acceptor, rescheduled. A tick at `t`
    /// fires where the naive engine's timer, set at `t − R`, would: after the events of `t`
    /// queued before `t − R`, before the others; ticks of one millisecond go by (RT,
    /// submission order).
    ///
    /// Hence the equivalence, tested in `tests/it/p2p.rs`: when every flood lasts less than a
    /// millisecond — nearest neighbours, whose components are nets, and control messages inside
    /// a backbone take 0 ms — records, message counts, resubmissions and acceptances equal
    /// the naive engine's exactly (thesis grid, N up to 3000, every submission mode, 1–100 GB;
    /// 500 random small configurations). With random neighbours a flood crosses backbones
    /// (6 ms a crossing) and (a) is an approximation: ≥ 95% identical outcomes, AET within 2%,
    /// message counts within 1% in the tests. Left exact-only-in-practice: two chains of
    /// retries with different RTs ticking in the same millisecond are ordered by RT, which is
    /// the naive order unless a chain's submission was triggered by an event queued more than
    /// 2 minutes before it (a think timer).
    #[default]
    Collapsed,
}

/// Everything the P2P baseline leaves open, with the thesis's values as defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct P2pConfig {
    /// Hop count of a new request (L1551: 100).
    pub hop_count: u32,
    /// Resubmission timeout without an offer (L1558: 2 min).
    pub retry_ms: Millis,
    /// How long a peer waits for the ACCEPT (L1437: 100 ms); must exceed every offer round
    /// trip.
    pub offer_timeout_ms: Millis,
    /// A15: accept iff `(start_est − now) + u ≤ factor · u` (L1556: 3).
    pub deadline_factor: f64,
    /// The engine.
    pub flooding: Flooding,
    /// The overlay (A13).
    pub neighbours: NeighbourPolicy,
    /// A1: compute time.
    pub exec: ExecModel,
    /// §2.5 sizes (SUBMIT/FORWARD carry one JD; OFFER/ACCEPT are headers).
    pub sizes: MessageSizes,
    /// A18, as in [`crate::hierarchy::HierarchyConfig::exp1_workstations`].
    pub exp1_workstations: Exp1Workstations,
    /// A23, as in [`crate::hierarchy::HierarchyConfig::first_submission`].
    pub first_submission: FirstSubmission,
    /// Record every acceptance in [`P2pRun::acceptances`] (tests).
    pub audit: bool,
}

impl Default for P2pConfig {
    fn default() -> Self {
        P2pConfig {
            hop_count: 100,
            retry_ms: 120_000,
            offer_timeout_ms: 100,
            deadline_factor: 3.0,
            flooding: Flooding::Collapsed,
            neighbours: NeighbourPolicy::Nearest,
            exec: ExecModel::default(),
            sizes: MessageSizes::default(),
            exp1_workstations: Exp1Workstations::Random,
            first_submission: FirstSubmission::AfterThink,
            audit: false,
        }
    }
}

/// One acceptance (an OFFER sent), recorded when [`P2pConfig::audit`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acceptance {
    /// The job (its index in the workload).
    pub job: u32,
    /// The request's attempt: 0 for the first SUBMIT, `k` for the `k`-th resubmission.
    pub attempt: u64,
    /// The peer (server index).
    pub peer: u32,
    /// When the peer accepted.
    pub at: Millis,
    /// `start_est − at` (0 when the server was free).
    pub wait: Millis,
    /// `u = T_in + t_exec + T_out`.
    pub usage: Millis,
}

/// A finished P2P run.
#[derive(Debug, Clone)]
pub struct P2pRun {
    /// Records and metrics as for the hierarchies (`server` is the peer's index; Butterfly and
    /// Load-Balance moves are 0).
    pub result: RunResult,
    /// Connected components of the overlay.
    pub components: usize,
    /// Mean degree of the overlay.
    pub mean_degree: f64,
    /// Resubmissions (retries after 2 minutes without an offer), skipped ones included.
    pub resubmissions: u64,
    /// Every acceptance, in the order made (only with [`P2pConfig::audit`]).
    pub acceptances: Vec<Acceptance>,
}

/// Message kinds, counted on receipt (index = position).
pub(crate) const KINDS: [&str; 6] = ["SUBMIT", "FORWARD", "OFFER", "ACCEPT", "INPUT", "OUTPUT"];
pub(crate) const SUBMIT: usize = 0;
pub(crate) const FORWARD: usize = 1;
pub(crate) const OFFER: usize = 2;
pub(crate) const ACCEPT: usize = 3;
pub(crate) const INPUT: usize = 4;
pub(crate) const OUTPUT: usize = 5;

/// What an engine returns.
#[derive(Debug, Default)]
pub(crate) struct EngineOut {
    pub records: Vec<JobRecord>,
    pub counters: Counters,
    pub messages: [u64; 6],
    pub resubmissions: u64,
    pub acceptances: Vec<Acceptance>,
}

/// Everything both engines start from (the same for both: common random numbers).
#[derive(Debug)]
pub(crate) struct Setup {
    pub model: Model,
    pub graph: NeighbourGraph,
    pub config: P2pConfig,
    /// Each workstation's entry peer.
    pub ws_entry: Vec<u32>,
    /// Static reach per entry peer (indexed by peer; only entries are filled).
    pub reach: Vec<Option<StaticReach>>,
    /// SUBMIT latency workstation → entry.
    pub ws_submit: Vec<Millis>,
    pub think_mean: Vec<f64>,
    pub rngs: Vec<SimRng>,
    /// First submissions: (workstation, time), in the order their timers are set.
    pub initial: Vec<(u32, Millis)>,
    pub continuous: bool,
}

impl Setup {
    /// Whether some peer reachable from this workstation's entry runs `job`'s OS.
    pub fn servable(&self, ws: u32, job: u32) -> bool {
        let r = self.reach[self.ws_entry[ws as usize] as usize]
            .as_ref()
            .expect("entry");
        !r.by_os[self.model.os(job).index()].is_empty()
    }

    pub fn static_reach(&self, ws: u32) -> &StaticReach {
        self.reach[self.ws_entry[ws as usize] as usize]
            .as_ref()
            .expect("entry")
    }
}

fn protocol(msg: impl Into<String>) -> RunError {
    RunError::Protocol(HierarchyError::Protocol(msg.into()))
}

/// Runs the jobs on the grid under the P2P baseline. `run` keys the overlay, the submitters
/// and the think times; the submitters (`submitters`) and think times (`think-mean`,
/// `think/{i}`) are drawn exactly as [`crate::hierarchy::run_hierarchy`] draws them, so every
/// system of a replication sees the same draws.
pub fn run_p2p(
    grid: &Grid,
    network: Network,
    jobs: &[JobSpec],
    submission: &Submission,
    config: &P2pConfig,
    run: &StreamKey,
) -> Result<P2pRun, RunError> {
    if jobs.is_empty() {
        return Err(RunError::Empty);
    }
    if jobs.iter().enumerate().any(|(i, j)| j.index as usize != i) {
        return Err(RunError::Config(
            "jobs must be in index order from 0".into(),
        ));
    }
    if config.retry_ms == 0 || config.hop_count == 0 {
        return Err(RunError::Config(
            "retry timeout and hop count must be positive".into(),
        ));
    }
    let servers = grid.servers().to_vec();
    if servers.is_empty() {
        return Err(RunError::Config(
            "a grid without servers has no peers".into(),
        ));
    }
    let graph = NeighbourGraph::build(grid, config.neighbours, run);
    let users: Vec<_> = grid.workstations().to_vec();
    let model = Model {
        network,
        exec: config.exec,
        sizes: config.sizes,
        peers: servers,
        ws_nodes: users.clone(),
        jobs: jobs.to_vec(),
        deadline_factor: config.deadline_factor,
    };
    // The 100 ms wait must outlast every OFFER + ACCEPT round trip, or a workstation could
    // send its input to a peer that has already released it.
    let t = model.network.topology();
    let (first, last) = (t.node_ids().next(), t.node_ids().last());
    if let (Some(a), Some(b)) = (first, last) {
        let rt = 2 * model.network.delay(a, b, config.sizes.header)?;
        if config.offer_timeout_ms <= rt {
            return Err(RunError::Config(format!(
                "offer timeout {} ms does not exceed the longest offer round trip {rt} ms",
                config.offer_timeout_ms
            )));
        }
    }
    let site_entry = NeighbourGraph::site_entries(grid);
    let ws_entry: Vec<u32> = users
        .iter()
        .map(|&w| site_entry[grid.site_of(w) as usize])
        .collect();
    let mut flooder = Flooder::new(&graph, &model)?;
    let mut reach: Vec<Option<StaticReach>> = vec![None; graph.peers()];
    for &e in &ws_entry {
        if reach[e as usize].is_none() {
            reach[e as usize] = Some(StaticReach::of(
                &mut flooder,
                &graph,
                &model,
                e,
                config.hop_count,
            ));
        }
    }
    let ws_submit = users
        .iter()
        .zip(&ws_entry)
        .map(|(&w, &e)| {
            model
                .network
                .delay(w, model.peers[e as usize].node, model.jd_bytes())
        })
        .collect::<Result<Vec<_>, _>>()?;

    // Submitters and think times: run_hierarchy's draws, in its order.
    let mut means = run.clone().stream("think-mean").rng();
    let mut think_mean = Vec::with_capacity(users.len());
    let mut rngs = Vec::with_capacity(users.len());
    for i in 0..users.len() {
        think_mean.push(match submission {
            Submission::Continuous => 0.0,
            Submission::HeterogeneousThink => {
                *EXP2_THINK_MEANS.choose(&mut means).expect("non-empty") as f64
            }
            Submission::CommonThink(m) => *m as f64,
        });
        rngs.push(run.clone().stream(&format!("think/{i}")).rng());
    }
    let n_ws = users.len();
    let burst = config.first_submission == FirstSubmission::AtZero;
    let initial: Vec<(u32, Millis)> = match submission {
        Submission::HeterogeneousThink | Submission::CommonThink(_) if !burst => (0..n_ws)
            .map(|w| (w as u32, think(&mut rngs[w], think_mean[w])))
            .collect(),
        // Exp 1, and Exp 2/3 under A23 `AtZero`: the A18 workstations submit at 0.
        _ => {
            let mut order: Vec<usize> = (0..n_ws).collect();
            if config.exp1_workstations == Exp1Workstations::Random {
                order.shuffle(&mut run.clone().stream("submitters").rng());
            }
            order
                .iter()
                .take(jobs.len().min(n_ws))
                .map(|&w| (w as u32, 0))
                .collect()
        }
    };
    let setup = Setup {
        model,
        graph,
        config: config.clone(),
        ws_entry,
        reach,
        ws_submit,
        think_mean,
        rngs,
        initial,
        continuous: matches!(submission, Submission::Continuous),
    };
    let components = setup.graph.components();
    let mean_degree = setup.graph.mean_degree();
    let out = match config.flooding {
        Flooding::Naive => naive::run(setup)?,
        Flooding::Collapsed => collapsed::run(setup, flooder)?,
    };
    let mut records = out.records;
    records.sort_by_key(|r| r.job);
    let unfinished = jobs.len() - records.len();
    let mut hosts: Vec<_> = grid.servers().iter().map(|s| s.node).collect();
    hosts.extend_from_slice(&users);
    Ok(P2pRun {
        result: RunResult {
            metrics: Metrics::of(&records),
            records,
            counters: out.counters,
            messages: KINDS
                .iter()
                .zip(out.messages)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| (*k, n))
                .collect(),
            hosts,
            butterfly_moves: 0,
            load_balance_moves: 0,
            unfinished,
            saved_jobs: 0,
            fallback_returns: 0,
            os_changes: 0,
            stale_pushes: 0,
        },
        components,
        mean_degree,
        resubmissions: out.resubmissions,
        acceptances: out.acceptances,
    })
}

/// An Exp(mean) think time in ms, drawn as the hierarchy's workstations draw it.
pub(crate) fn think(rng: &mut SimRng, mean: f64) -> Millis {
    let u: f64 = rand::Rng::random(rng);
    (-(1.0 - u).ln() * mean).round() as Millis
}
