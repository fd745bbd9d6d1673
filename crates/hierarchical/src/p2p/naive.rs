//! [`Flooding::Naive`](super::Flooding): the protocol message by message on the actor engine.
//!
//! Actors: peers `0..S` (server `i` is actor `i`), then workstations. Every SUBMIT, FORWARD,
//! OFFER, ACCEPT and transfer is a message timed by the [`Placement`]; the offer timeout, the
//! compute time, the output delivery and the 2-minute retry are timers.

use std::collections::HashMap;
use std::rc::Rc;

use gridsched_sim::{
    Actor, ActorId, Context, Envelope, Halt, Millis, SendError, SimRng, Simulation, TimerId,
};

use super::peer::PeerCore;
use super::{
    ACCEPT, Acceptance, EngineOut, FORWARD, INPUT, OFFER, OUTPUT, SUBMIT, Setup, protocol, think,
};
use crate::hierarchy::{HierarchyError, JobRecord, RunError};
use crate::jobs::OUTPUT_RATIO;
use crate::network::PathClass;
use crate::placement::Placement;

/// Messages.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Msg {
    /// SUBMIT (`forwarded == false`) or FORWARD.
    Request {
        job: u32,
        ws: u32,
        attempt: u64,
        hop: u32,
        forwarded: bool,
    },
    Offer(u32),
    Accept(u32),
    Input(u32),
    Output(u32),
}

impl Msg {
    fn kind(&self) -> usize {
        match self {
            Msg::Request {
                forwarded: false, ..
            } => SUBMIT,
            Msg::Request { .. } => FORWARD,
            Msg::Offer(_) => OFFER,
            Msg::Accept(_) => ACCEPT,
            Msg::Input(_) => INPUT,
            Msg::Output(_) => OUTPUT,
        }
    }
}

type Ctx<'a> = Context<'a, Msg, Placement>;

const TAG_SUBMIT: u64 = 0;
const TAG_RETRY: u64 = 1;
const TAG_OFFER: u64 = 2;
const TAG_EXEC: u64 = 3;
const TAG_DELIVERED: u64 = 4;

#[derive(Debug)]
struct Peer {
    index: u32,
    core: PeerCore,
    /// The last attempt of each job this peer has seen: attempts of a job are 2 minutes apart
    /// and a flood lasts milliseconds, so "seen" is "attempt ≤ last" and memory stays one
    /// entry per job.
    seen: HashMap<u32, u64>,
    acceptances: Vec<Acceptance>,
}

#[derive(Debug, Clone, Copy)]
struct Current {
    job: u32,
    rt: Millis,
    attempt: u64,
    served: Option<(u32, Millis)>,
    retry: Option<TimerId>,
}

#[derive(Debug)]
struct Ws {
    index: u32,
    entry: ActorId,
    rng: SimRng,
    current: Option<Current>,
    records: Vec<JobRecord>,
    resubmissions: u64,
}

#[derive(Debug)]
enum Role {
    Peer(Box<Peer>),
    Ws(Box<Ws>),
}

#[derive(Debug)]
struct Shared {
    setup: Setup,
    /// Jobs submitted so far (the workload is the first N submissions, whoever makes them).
    submitted: std::cell::Cell<u32>,
    peers: u32,
}

#[derive(Debug)]
struct NaiveActor {
    role: Role,
    shared: Rc<Shared>,
    received: [u64; 6],
}

fn hierr(e: String) -> HierarchyError {
    HierarchyError::Protocol(e)
}

impl Peer {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        if let Some((_, exec)) = self.core.try_start(ctx.now()) {
            ctx.set_timer(exec, TAG_EXEC);
        }
    }

    fn on_message(
        &mut self,
        ctx: &mut Ctx<'_>,
        sh: &Shared,
        msg: Envelope<Msg>,
    ) -> Result<(), HierarchyError> {
        let s = &sh.setup;
        match msg.payload {
            Msg::Request {
                job,
                ws,
                attempt,
                hop,
                ..
            } => {
                if self.seen.get(&job).is_some_and(|&last| last >= attempt) {
                    return Ok(());
                }
                self.seen.insert(job, attempt);
                let now = ctx.now();
                let me = self.index;
                if s.model.peers[me as usize].os == s.model.os(job) {
                    let u = s.model.usage(job, ws, me).map_err(SendError::Delay)?;
                    let slack = s.model.slack(u.total());
                    if self.core.accepts(now, slack) {
                        if s.config.audit {
                            self.acceptances.push(Acceptance {
                                job,
                                attempt,
                                peer: me,
                                at: now,
                                wait: self.core.free_at.saturating_sub(now),
                                usage: u.total(),
                            });
                        }
                        self.core.commit(now, job, ws, &u);
                        ctx.send(
                            ActorId(sh.peers + ws),
                            s.config.sizes.header,
                            Msg::Offer(job),
                        )?;
                        let timer = ctx.set_timer(
                            s.config.offer_timeout_ms,
                            TAG_OFFER | (u64::from(job) << 8),
                        );
                        if let Some(slot) = self.core.slot_mut(job) {
                            slot.timer = Some(timer);
                        }
                        return Ok(());
                    }
                }
                if hop > 1 {
                    for &q in s.graph.neighbours(me) {
                        ctx.send(
                            ActorId(q),
                            s.model.jd_bytes(),
                            Msg::Request {
                                job,
                                ws,
                                attempt,
                                hop: hop - 1,
                                forwarded: true,
                            },
                        )?;
                    }
                }
            }
            Msg::Accept(job) => {
                let slot = self
                    .core
                    .slot_mut(job)
                    .filter(|s| !s.accepted)
                    .ok_or_else(|| hierr(format!("ACCEPT of job {job} after its release")))?;
                slot.accepted = true;
                if let Some(t) = slot.timer.take() {
                    ctx.cancel_timer(t);
                }
            }
            Msg::Input(job) => {
                self.core.input_arrived(ctx.now(), job).map_err(hierr)?;
                self.start(ctx);
            }
            other => return Err(hierr(format!("peer got {other:?}"))),
        }
        Ok(())
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, sh: &Shared, tag: u64) -> Result<(), HierarchyError> {
        match tag & 0xff {
            TAG_OFFER => {
                let job = (tag >> 8) as u32;
                self.core.release(job);
                self.start(ctx);
            }
            TAG_EXEC => {
                let r = self
                    .core
                    .running
                    .ok_or_else(|| hierr("exec end while idle".into()))?;
                let bytes = sh.setup.model.jobs[r.job as usize].input_bytes * OUTPUT_RATIO;
                ctx.send(ActorId(sh.peers + r.ws), bytes, Msg::Output(r.job))?;
                ctx.set_timer(r.output, TAG_DELIVERED);
            }
            TAG_DELIVERED => {
                self.core.delivered();
                self.start(ctx);
            }
            _ => return Err(hierr(format!("unknown peer timer {tag}"))),
        }
        Ok(())
    }
}

impl Ws {
    fn submit(&mut self, ctx: &mut Ctx<'_>, sh: &Shared) -> Result<(), HierarchyError> {
        let next = sh.submitted.get();
        if next as usize >= sh.setup.model.jobs.len() {
            return Ok(());
        }
        sh.submitted.set(next + 1);
        debug_assert!(self.current.is_none(), "one job at a time");
        self.current = Some(Current {
            job: next,
            rt: ctx.now(),
            attempt: 0,
            served: None,
            retry: None,
        });
        self.request(ctx, sh)
    }

    fn request(&mut self, ctx: &mut Ctx<'_>, sh: &Shared) -> Result<(), HierarchyError> {
        let Some(cur) = self.current.as_mut() else {
            return Ok(());
        };
        let s = &sh.setup;
        ctx.send(
            self.entry,
            s.model.jd_bytes(),
            Msg::Request {
                job: cur.job,
                ws: self.index,
                attempt: cur.attempt,
                hop: s.config.hop_count,
                forwarded: false,
            },
        )?;
        // A request no reachable peer can run is abandoned (module docs).
        if s.servable(self.index, cur.job) {
            cur.retry = Some(ctx.set_timer(s.config.retry_ms, TAG_RETRY));
        }
        Ok(())
    }

    fn on_message(
        &mut self,
        ctx: &mut Ctx<'_>,
        sh: &Shared,
        msg: Envelope<Msg>,
    ) -> Result<(), HierarchyError> {
        let s = &sh.setup;
        match msg.payload {
            Msg::Offer(job) => {
                let now = ctx.now();
                if let Some(cur) = self
                    .current
                    .as_mut()
                    .filter(|c| c.job == job && c.served.is_none())
                {
                    cur.served = Some((msg.src.0, now));
                    if let Some(t) = cur.retry.take() {
                        ctx.cancel_timer(t);
                    }
                    let bytes = s.model.jobs[job as usize].input_bytes;
                    ctx.send(msg.src, s.config.sizes.header, Msg::Accept(job))?;
                    ctx.send(msg.src, bytes, Msg::Input(job))?;
                }
            }
            Msg::Output(job) => {
                let Some(Current {
                    job: j,
                    rt,
                    served: Some((peer, sjtt)),
                    ..
                }) = self.current.take()
                else {
                    return Err(hierr(format!("output of job {job} unexpected")));
                };
                if j != job {
                    return Err(hierr(format!("output of job {job} while running {j}")));
                }
                self.records
                    .push(record(s, self.index, job, peer, rt, sjtt, ctx.now()));
                if s.continuous {
                    self.submit(ctx, sh)?;
                } else {
                    let t = think(&mut self.rng, s.think_mean[self.index as usize]);
                    ctx.set_timer(t, TAG_SUBMIT);
                }
            }
            other => return Err(hierr(format!("workstation got {other:?}"))),
        }
        Ok(())
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, sh: &Shared, tag: u64) -> Result<(), HierarchyError> {
        match tag {
            TAG_SUBMIT => self.submit(ctx, sh),
            TAG_RETRY => {
                if let Some(cur) = self.current.as_mut().filter(|c| c.served.is_none()) {
                    cur.attempt += 1;
                    self.resubmissions += 1;
                    self.request(ctx, sh)?;
                }
                Ok(())
            }
            _ => Err(hierr(format!("unknown workstation timer {tag}"))),
        }
    }
}

/// A finished job's record.
pub(crate) fn record(
    s: &Setup,
    ws: u32,
    job: u32,
    peer: u32,
    rt: Millis,
    sjtt: Millis,
    jct: Millis,
) -> JobRecord {
    let spec = &s.model.jobs[job as usize];
    let server = &s.model.peers[peer as usize];
    let node = s.model.ws_nodes[ws as usize];
    let t = s.model.network.topology();
    let class = match t.address(node) {
        Some(a) => PathClass::between(a, server.address),
        None => PathClass::OtherBackbone,
    };
    JobRecord {
        job,
        workstation: node,
        server: ActorId(peer),
        server_node: server.node,
        class,
        os: spec.os,
        input_bytes: spec.input_bytes,
        rt,
        sjtt,
        jct,
        server_os: server.os,
        fallback_hit: false,
    }
}

impl Actor<Placement> for NaiveActor {
    type Payload = Msg;
    type Error = HierarchyError;

    fn on_message(&mut self, ctx: &mut Ctx<'_>, msg: Envelope<Msg>) -> Result<(), HierarchyError> {
        self.received[msg.payload.kind()] += 1;
        let sh = Rc::clone(&self.shared);
        match &mut self.role {
            Role::Peer(p) => p.on_message(ctx, &sh, msg),
            Role::Ws(w) => w.on_message(ctx, &sh, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, tag: u64) -> Result<(), HierarchyError> {
        let sh = Rc::clone(&self.shared);
        match &mut self.role {
            Role::Peer(p) => p.on_timer(ctx, &sh, tag),
            Role::Ws(w) => w.on_timer(ctx, &sh, tag),
        }
    }
}

/// Runs the naive engine.
pub(crate) fn run(mut setup: Setup) -> Result<EngineOut, RunError> {
    let peers = setup.model.peers.len() as u32;
    let mut hosts: Vec<_> = setup.model.peers.iter().map(|p| p.node).collect();
    hosts.extend_from_slice(&setup.model.ws_nodes);
    let placement = Placement::new(setup.model.network.clone(), hosts)?;
    let rngs = std::mem::take(&mut setup.rngs);
    let shared = Rc::new(Shared {
        setup,
        submitted: std::cell::Cell::new(0),
        peers,
    });
    let mut sim: Simulation<NaiveActor, Placement> = Simulation::new(placement);
    for index in 0..peers {
        sim.add_actor(NaiveActor {
            role: Role::Peer(Box::new(Peer {
                index,
                core: PeerCore::default(),
                seen: HashMap::new(),
                acceptances: Vec::new(),
            })),
            shared: Rc::clone(&shared),
            received: [0; 6],
        });
    }
    for (i, rng) in rngs.into_iter().enumerate() {
        sim.add_actor(NaiveActor {
            role: Role::Ws(Box::new(Ws {
                index: i as u32,
                entry: ActorId(shared.setup.ws_entry[i]),
                rng,
                current: None,
                records: Vec::new(),
                resubmissions: 0,
            })),
            shared: Rc::clone(&shared),
            received: [0; 6],
        });
    }
    for &(w, t) in &shared.setup.initial {
        sim.set_timer(ActorId(peers + w), t, TAG_SUBMIT)
            .map_err(|e| protocol(e.to_string()))?;
    }
    let halt = sim.run()?;
    debug_assert_eq!(halt, Halt::Empty);
    let mut out = EngineOut {
        counters: sim.counters(),
        ..EngineOut::default()
    };
    let mut acc = Vec::new();
    for a in sim.actors() {
        for (m, r) in out.messages.iter_mut().zip(a.received) {
            *m += r;
        }
        match &a.role {
            Role::Peer(p) => acc.extend_from_slice(&p.acceptances),
            Role::Ws(w) => {
                out.records.extend_from_slice(&w.records);
                out.resubmissions += w.resubmissions;
            }
        }
    }
    acc.sort_by_key(|a| (a.at, a.job, a.attempt, a.peer));
    out.acceptances = acc;
    Ok(out)
}
