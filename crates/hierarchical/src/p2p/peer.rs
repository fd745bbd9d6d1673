//! What both engines share: the per-pair usage estimate of A15 and a peer's server (its FIFO
//! of accepted jobs and the estimate of when it will be free).
//!
//! Why one implementation: [`Flooding::Naive`](super::Flooding) and
//! [`Flooding::Collapsed`](super::Flooding) differ only in how a request reaches peers and
//! when a workstation retries; the server a job meets must be the same code, or the
//! equivalence test would compare two models instead of two engines.

use std::collections::VecDeque;

use gridsched_sim::{Millis, TimerId};

use crate::address::NodeId;
use crate::grid::{Os, Server};
use crate::hierarchy::MessageSizes;
use crate::jobs::{ExecModel, JobSpec, OUTPUT_RATIO};
use crate::network::{DelayError, Network};

/// The timings of one job (from one workstation) on one peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usage {
    /// OFFER, peer → workstation (a control message).
    pub offer: Millis,
    /// The input transfer, workstation → peer.
    pub input: Millis,
    /// Compute time on the peer's CPUs.
    pub exec: Millis,
    /// The output transfer (5 × input), peer → workstation.
    pub output: Millis,
}

impl Usage {
    /// `est_usage = T_in + t_exec + T_out` (A15).
    pub fn total(&self) -> Millis {
        self.input + self.exec + self.output
    }
}

/// The static facts every peer and workstation reads: the network, the peers, the users, the
/// jobs and the A15 parameters.
#[derive(Debug)]
pub(crate) struct Model {
    pub network: Network,
    pub exec: ExecModel,
    pub sizes: MessageSizes,
    pub peers: Vec<Server>,
    pub ws_nodes: Vec<NodeId>,
    pub jobs: Vec<JobSpec>,
    /// A15's factor (3): accept iff `wait + u ≤ factor · u`.
    pub deadline_factor: f64,
}

impl Model {
    /// Size of a SUBMIT / FORWARD (one JD).
    pub fn jd_bytes(&self) -> u64 {
        self.sizes.header + self.sizes.per_jd
    }

    /// The timings of `job` from workstation `ws` on `peer`.
    pub fn usage(&self, job: u32, ws: u32, peer: u32) -> Result<Usage, DelayError> {
        let spec = &self.jobs[job as usize];
        let p = &self.peers[peer as usize];
        let w = self.ws_nodes[ws as usize];
        let route = self.network.route(p.node, w)?;
        Ok(Usage {
            offer: self.network.route_delay(route, self.sizes.header)?,
            input: self.network.route_delay(route, spec.input_bytes)?,
            exec: self.exec.exec_ms(spec.input_bytes, p.cpus()),
            output: self
                .network
                .route_delay(route, spec.input_bytes * OUTPUT_RATIO)?,
        })
    }

    /// How long a job of usage `u` may wait for the server and still be accepted (A15:
    /// `(start − now) + u ≤ factor · u`, in whole ms).
    pub fn slack(&self, u: Millis) -> Millis {
        let s = (self.deadline_factor * u as f64 - u as f64).floor();
        if s > 0.0 { s as Millis } else { 0 }
    }

    /// The job's OS.
    pub fn os(&self, job: u32) -> Os {
        self.jobs[job as usize].os
    }
}

/// One accepted job in a peer's FIFO.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    pub job: u32,
    pub ws: u32,
    /// When the input will have arrived if the workstation accepts (commit + offer + input).
    pub input_at: Millis,
    pub exec: Millis,
    pub output: Millis,
    /// The workstation took the offer (its ACCEPT, or in the collapsed engine its receipt of
    /// the OFFER, which precedes the ACCEPT by less than the timeout).
    pub accepted: bool,
    /// The input is at the server.
    pub input: bool,
    /// The 100 ms offer timer (naive engine only).
    pub timer: Option<TimerId>,
}

/// The job the server is running (computing, then sending its output).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Running {
    pub job: u32,
    pub ws: u32,
    pub output: Millis,
    /// When the output will have been delivered (the server is free again).
    pub done: Millis,
}

/// A peer's server: one job at a time, a FIFO of accepted jobs (reservations included).
///
/// `free_at` is the exact prediction (the model is deterministic) of when the server will have
/// delivered every job it holds, assuming every reservation is accepted: the fold over the FIFO
/// of `t = max(t, input_at) + exec + output`, from the running job's end. It changes only when
/// the FIFO changes (a commit raises it, a release may lower it), which is what makes retry
/// skipping possible (spec §7 item 7 (b)). 0 means idle with nothing queued.
#[derive(Debug, Default)]
pub(crate) struct PeerCore {
    pub queue: VecDeque<Slot>,
    pub running: Option<Running>,
    pub free_at: Millis,
}

impl PeerCore {
    fn refold(&mut self) {
        let mut t = self.running.map_or(0, |r| r.done);
        for s in &self.queue {
            t = t.max(s.input_at) + s.exec + s.output;
        }
        self.free_at = t;
    }

    /// The earliest time at which a job with this slack passes the deadline test.
    pub fn accept_from(&self, slack: Millis) -> Millis {
        self.free_at.saturating_sub(slack)
    }

    /// A15 at `now`: the server would start the job within `slack` ms.
    pub fn accepts(&self, now: Millis, slack: Millis) -> bool {
        self.free_at.saturating_sub(now) <= slack
    }

    /// Reserves the server for `job` (an OFFER is being sent at `now`).
    pub fn commit(&mut self, now: Millis, job: u32, ws: u32, u: &Usage) {
        debug_assert!(self.queue.iter().all(|s| s.job != job), "job {job} twice");
        self.queue.push_back(Slot {
            job,
            ws,
            input_at: now + u.offer + u.input,
            exec: u.exec,
            output: u.output,
            accepted: false,
            input: false,
            timer: None,
        });
        self.refold();
    }

    /// The slot of a job, if held.
    pub fn slot_mut(&mut self, job: u32) -> Option<&mut Slot> {
        self.queue.iter_mut().find(|s| s.job == job)
    }

    /// Drops an unaccepted reservation; returns whether `free_at` went down.
    pub fn release(&mut self, job: u32) -> bool {
        let before = self.free_at;
        if let Some(i) = self.queue.iter().position(|s| s.job == job) {
            debug_assert!(!self.queue[i].accepted);
            self.queue.remove(i);
            self.refold();
        }
        self.free_at < before
    }

    /// Marks a job's input as arrived.
    pub fn input_arrived(&mut self, now: Millis, job: u32) -> Result<(), String> {
        let s = self
            .slot_mut(job)
            .ok_or_else(|| format!("input of job {job} at a peer not holding it"))?;
        if !s.accepted {
            return Err(format!("input of job {job} before its ACCEPT"));
        }
        debug_assert_eq!(s.input_at, now, "input arrival predicted exactly");
        s.input = true;
        Ok(())
    }

    /// Starts the head of the FIFO if the server is free and its input is in; returns the
    /// job and its compute time. `free_at` never goes down here.
    pub fn try_start(&mut self, now: Millis) -> Option<(u32, Millis)> {
        if self.running.is_some() || !self.queue.front().is_some_and(|s| s.input) {
            return None;
        }
        let s = self.queue.pop_front()?;
        self.running = Some(Running {
            job: s.job,
            ws: s.ws,
            output: s.output,
            done: now + s.exec + s.output,
        });
        // The prediction holds unless a released reservation held the FIFO's head (the
        // server then starts later than predicted, and `free_at` rises).
        self.refold();
        Some((s.job, s.exec))
    }

    /// The output has been delivered: the server is free. Returns whether `free_at` went
    /// down (it does when nothing is queued: "free since now" is stored as 0).
    pub fn delivered(&mut self) -> bool {
        let before = self.free_at;
        self.running = None;
        self.refold();
        self.free_at < before
    }
}
