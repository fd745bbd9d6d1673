//! The actors of a hierarchical grid: workstations (§3.1), schedulers (GSS and inner GSs:
//! self-discovery §3.2, adaptive child scheduling §3.3, Butterfly §3.4, Load-Balance §3.5)
//! and LGSs merged with their servers (§3.7).
//!
//! Bags and channels. Matching is the OS only, so an LGS's bag is "every job in the system
//! that requires my OS", and two branches have equal bags exactly when their servers share an
//! OS: the channels of a scheduler are one per OS present under it, with power the CPUs of
//! those servers (the spec's interpretation of §3.2 and the fast path of §7 item 4). Channels
//! are therefore keyed by [`Os`]; an LGS still keeps its bag as a set of job ids (holes are
//! punched by JOB_STARTED/HOLES, A8's threshold is on its size) and BAG messages are sized by
//! it. Two servers with different OSes and both empty bags would share one channel in the
//! thesis's generic scheme and sit in two here; an empty channel receives no job, so no
//! schedule differs. DESTROY_CHANNELS travels with the round's JOB_BLOCK; what it does is A10's
//! switch [`ChannelRebuild`]: by default channel identity and power are kept across rounds and
//! updated by the round's BAGs, the alternative drops every channel and rebuilds from the BAGs.
//! Either way a scheduler reports up once all its children's BAGs of the round are in (the
//! per-round barrier). CHANNEL_BIND is implied (a child's channel port is its OS) and not
//! sent.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};

use super::idset::IdSet;
use std::rc::Rc;

use gridsched_sim::{Actor, ActorId, Context, Envelope, Millis, SendError, SimRng, TimerId};
use rand::Rng;

use crate::address::{Address, NodeId};
use crate::grid::{Os, Server};
use crate::hierarchy::config::{
    AcceptForeign, ChannelRebuild, DiscoveryTrigger, DonorJob, HierarchyConfig, Peering, RfcOrder,
    RfcRule, ShareBase,
};
use crate::jobs::JobSpec;
use crate::network::{DelayError, PathClass};
use crate::placement::Placement;

/// A job description as it travels: the job, its requirements and its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jd {
    /// The job's index in the workload (the GSS's sequence number).
    pub id: u32,
    pub os: Os,
    pub input_bytes: u64,
    /// The submitting workstation.
    pub ws: ActorId,
    /// The workstation's site index (for proximity).
    pub ws_site: u32,
}

/// Messages (spec §2.5).
#[derive(Debug, Clone)]
pub enum Msg {
    Submit(Jd),
    Rfjm,
    JobBlock {
        round: u32,
        jobs: Rc<[Jd]>,
    },
    /// A child's channels after a round: (OS, power, bag size). `seq` numbers the child's
    /// reports (BAG and CHANNEL_UPDATE) so a parent can tell a stale one under resource
    /// changes.
    Bag {
        round: u32,
        seq: u32,
        channels: Vec<(Os, u64, u32)>,
    },
    /// A child's channels after a resource change, outside any round (CHANNEL_UPDATE, and
    /// CANCEL_CHANNEL for every OS no longer listed; §3.6).
    ChannelUpdate {
        /// The sender's report number (as in BAG).
        seq: u32,
        /// (OS, power, bag size) of every channel the sender now has.
        channels: Vec<(Os, u64, u32)>,
    },
    /// Fallback (§3.6): the job (with its OS) became incomputable in the child's partition.
    JobReturn {
        /// The job.
        job: u32,
        /// Its OS: the channel the sender can no longer serve.
        os: Os,
    },
    Rfc(Os),
    Push(Os, Vec<Jd>),
    CancelJob(u32),
    JobStarted(u32),
    Holes(u32),
    /// A service offer: the job and the server's OS when it offers (for the records).
    Offer(u32, Os),
    Accept(u32),
    Input(u32),
    Output(u32),
    /// Hybrid (§3.9): requests flooded between PGSSs; `origin` is the jobs' own PGSS.
    RequestFile {
        /// The jobs' own PGSS.
        origin: ActorId,
        /// Hops left (the receiver forwards with `ttl − 1` while that is positive).
        ttl: u32,
        /// The requests (JDs).
        jobs: Rc<[Jd]>,
    },
    /// Hybrid: a PGSS tells a foreign job's own PGSS that the job is about to run (starts).
    RemoteStart(u32),
    /// Hybrid: the job started somewhere; every tree drops its copy (flooded with a TTL).
    Purge {
        /// The job that started.
        job: u32,
        /// Hops left.
        ttl: u32,
    },
}

impl Msg {
    /// The message type's name (for counts).
    pub fn kind(&self) -> &'static str {
        Msg::KINDS[self.kind_index()]
    }

    /// Every message type's name, in [`kind_index`](Self::kind_index) order.
    pub const KINDS: [&'static str; 18] = [
        "SUBMIT",
        "RFJM",
        "JOB_BLOCK",
        "BAG",
        "CHANNEL_UPDATE",
        "JOB_RETURN",
        "RFC",
        "PUSH",
        "CANCEL_JOB",
        "JOB_STARTED",
        "HOLES",
        "OFFER",
        "ACCEPT",
        "INPUT",
        "OUTPUT",
        "REQUEST_FILE",
        "REMOTE_START",
        "PURGE",
    ];

    /// The message's type as an index into [`KINDS`](Self::KINDS).
    pub fn kind_index(&self) -> usize {
        match self {
            Msg::Submit(_) => 0,
            Msg::Rfjm => 1,
            Msg::JobBlock { .. } => 2,
            Msg::Bag { .. } => 3,
            Msg::ChannelUpdate { .. } => 4,
            Msg::JobReturn { .. } => 5,
            Msg::Rfc(_) => 6,
            Msg::Push(..) => 7,
            Msg::CancelJob(_) => 8,
            Msg::JobStarted(_) => 9,
            Msg::Holes(_) => 10,
            Msg::Offer(..) => 11,
            Msg::Accept(_) => 12,
            Msg::Input(_) => 13,
            Msg::Output(_) => 14,
            Msg::RequestFile { .. } => 15,
            Msg::RemoteStart(_) => 16,
            Msg::Purge { .. } => 17,
        }
    }
}

/// Messages one actor received, by type: a counter per [`Msg::KINDS`] entry, bumped on every
/// delivery (a map keyed by the type's name cost a string-compared tree lookup per event).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received([u64; Msg::KINDS.len()]);

impl Received {
    fn count(&mut self, msg: &Msg) {
        self.0[msg.kind_index()] += 1;
    }

    /// How many messages of type `kind` arrived; `None` if none did (as a map of the types
    /// received would say).
    pub fn get(&self, kind: &str) -> Option<&u64> {
        let i = Msg::KINDS.iter().position(|&k| k == kind)?;
        Some(&self.0[i]).filter(|&&n| n > 0)
    }

    /// The types received at least once, with their counts, in [`Msg::KINDS`] order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        Msg::KINDS.into_iter().zip(self.0).filter(|&(_, n)| n > 0)
    }
}

/// A handler's failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    #[error(transparent)]
    Send(#[from] SendError<DelayError>),
    #[error("message delivered at {now} ms, before send time {sent} + path delay {delay} ms")]
    EarlyDelivery {
        now: Millis,
        sent: Millis,
        delay: Millis,
    },
    #[error("protocol error: {0}")]
    Protocol(String),
}

type Ctx<'a> = Context<'a, Msg, Placement>;

/// `B_share = ceil(B_pwr / ΣC_pwr × N)` (§3.3), in exact integers; 1 when the scheduler has
/// no known power yet (a branch whose BAG is still on its way).
pub fn b_share(branch_power: u64, total_power: u64, n: usize) -> usize {
    if total_power == 0 || branch_power == 0 {
        return 1;
    }
    let num = u128::from(branch_power) * n as u128;
    num.div_ceil(u128::from(total_power)) as usize
}

/// Common-prefix octets (0–3) between a user's address and the closest of some site
/// addresses (A11): 3 when the user's own site is among them.
pub fn proximity(user: Address, sites: impl IntoIterator<Item = Address>) -> u8 {
    sites
        .into_iter()
        .map(|s| user.common_prefix(s).min(3) as u8)
        .max()
        .unwrap_or(0)
}

/// One job's outcome, as its workstation saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRecord {
    pub job: u32,
    pub workstation: NodeId,
    /// The server (its LGS actor) that ran it.
    pub server: ActorId,
    /// The server's node.
    pub server_node: NodeId,
    /// How far the job's data travelled (the user's site to the server's).
    pub class: PathClass,
    pub os: Os,
    pub input_bytes: u64,
    /// Request time (SUBMIT sent).
    pub rt: Millis,
    /// Start Job Transferring Time (offer received).
    pub sjtt: Millis,
    /// Job Completion Time (output received).
    pub jct: Millis,
    /// The server's (live) OS when it offered the job: always the job's OS.
    pub server_os: Os,
    /// Whether Fallback returned the job at least once (§3.6; a saved job when it completes).
    pub fallback_hit: bool,
}

/// How workstations submit (§3.1).
#[derive(Debug, Clone, PartialEq)]
pub enum Arrivals {
    /// Exp 1: the chosen workstations submit at 0 and resubmit on receiving output (A18).
    Continuous,
    /// Exp 2/3: think times Exp(mean) before the first and after each output; one mean per
    /// workstation.
    Think,
}

/// Shared by the workstations: the workload and the count of submissions so far (the
/// thesis's workload is the first N submissions, whoever makes them).
#[derive(Debug)]
pub struct Workload {
    pub jobs: Rc<[JobSpec]>,
    pub submitted: Cell<u32>,
}

/// A workstation's job in progress: its JD, request time and (server, SJTT) once served.
#[derive(Debug, Clone, Copy)]
struct Outstanding {
    jd: Jd,
    rt: Millis,
    served: Option<(ActorId, Millis, Os)>,
}

/// A user's machine (§3.1): at most one outstanding job; the first offer wins.
#[derive(Debug)]
pub struct Workstation {
    pub node: NodeId,
    pub site: u32,
    pub entry: ActorId,
    pub workload: Rc<Workload>,
    pub arrivals: Arrivals,
    /// Think-time mean in ms (Think only) and the workstation's own stream.
    pub think_mean: f64,
    pub rng: SimRng,
    current: Option<Outstanding>,
    pub records: Vec<JobRecord>,
    /// Completed jobs over all workstations (set when servers change resources, so their
    /// change processes stop once the workload is done).
    pub(crate) completed: Option<Rc<Cell<u32>>>,
}

impl Workstation {
    pub fn new(
        node: NodeId,
        site: u32,
        entry: ActorId,
        workload: Rc<Workload>,
        arrivals: Arrivals,
        think_mean: f64,
        rng: SimRng,
    ) -> Self {
        Workstation {
            node,
            site,
            entry,
            workload,
            arrivals,
            think_mean,
            rng,
            current: None,
            records: Vec::new(),
            completed: None,
        }
    }

    fn submit(&mut self, ctx: &mut Ctx<'_>, sizes: u64) -> Result<(), HierarchyError> {
        let next = self.workload.submitted.get();
        let Some(spec) = self.workload.jobs.get(next as usize) else {
            return Ok(());
        };
        self.workload.submitted.set(next + 1);
        let jd = Jd {
            id: spec.index,
            os: spec.os,
            input_bytes: spec.input_bytes,
            ws: ctx.me(),
            ws_site: self.site,
        };
        self.current = Some(Outstanding {
            jd,
            rt: ctx.now(),
            served: None,
        });
        ctx.send(self.entry, sizes, Msg::Submit(jd))?;
        Ok(())
    }

    fn think(&mut self, ctx: &mut Ctx<'_>) {
        let u: f64 = self.rng.random();
        let t = (-(1.0 - u).ln() * self.think_mean).round() as Millis;
        ctx.set_timer(t, 0);
    }
}

/// A server's resource-change process (Exp 5, [`crate::hierarchy::OsChanges`]): its own
/// stream, its current mean, and the shared count of completed jobs (changes stop once every
/// job is done).
#[derive(Debug)]
pub struct OsProcess {
    rng: SimRng,
    mean: Millis,
    completed: Rc<Cell<u32>>,
    total: u32,
}

impl OsProcess {
    /// Draws the initial mean from `means` (uniform) and returns the process with the delay
    /// of the first change.
    pub fn start(
        mut rng: SimRng,
        means: &[Millis],
        completed: Rc<Cell<u32>>,
        total: u32,
    ) -> (OsProcess, Millis) {
        let mean = means[rng.random_range(0..means.len())];
        let first = exp_ms(&mut rng, mean);
        let p = OsProcess {
            rng,
            mean,
            completed,
            total,
        };
        (p, first)
    }

    /// The current change-interval mean, ms.
    pub fn mean(&self) -> Millis {
        self.mean
    }
}

/// An Exp(mean) interval in whole ms, at least 1 ms (so a change process always advances).
fn exp_ms(rng: &mut SimRng, mean: Millis) -> Millis {
    let u: f64 = rng.random();
    ((-(1.0 - u).ln() * mean as f64).round() as Millis).max(1)
}

/// An LGS merged with its server (§3.7), with Fallback on resource changes (§3.6).
///
/// Its saved requests are kept per OS; its bag is the set of its live OS (under constant
/// resources only that set is kept, as the other two can never become its bag).
#[derive(Debug)]
pub struct Leaf {
    pub server: Server,
    pub parent: ActorId,
    /// The live OS (the grid's until the first change).
    os: Os,
    saved: [IdSet; 3],
    queue: VecDeque<Jd>,
    busy: Option<Jd>,
    offer_timer: Option<TimerId>,
    rfc_outstanding: bool,
    rfjm_outstanding: bool,
    /// Reports (BAG, CHANNEL_UPDATE) sent so far.
    seq: u32,
    changes: Option<OsProcess>,
    /// Jobs this LGS returned by Fallback (a job may appear more than once).
    pub returned: Vec<u32>,
    /// Jobs pushed to this LGS for an OS it had already left (returned at once).
    pub stale_pushes: u64,
    /// OS changes drawn (the irrelevant ones, same OS again, included).
    pub os_changes: u64,
}

const TIMER_START: u64 = 0;
const TIMER_EXEC: u64 = 1;
const TIMER_DELIVERED: u64 = 2;
const TIMER_OFFER: u64 = 3;
/// The timer of a server's next OS change.
pub(crate) const TIMER_OS_CHANGE: u64 = 4;

impl Leaf {
    pub fn new(server: Server, parent: ActorId) -> Self {
        Leaf {
            server,
            parent,
            os: server.os,
            saved: Default::default(),
            queue: VecDeque::new(),
            busy: None,
            offer_timer: None,
            rfc_outstanding: false,
            rfjm_outstanding: false,
            seq: 0,
            changes: None,
            returned: Vec::new(),
            stale_pushes: 0,
            os_changes: 0,
        }
    }

    /// Attaches a resource-change process (its first change is a `TIMER_OS_CHANGE` timer
    /// the caller sets).
    pub fn with_os_changes(mut self, process: OsProcess) -> Self {
        self.changes = Some(process);
        self
    }

    /// The server's live OS.
    pub fn os(&self) -> Os {
        self.os
    }

    fn bag(&self) -> &IdSet {
        &self.saved[self.os.index()]
    }

    fn rfjm_if_low(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
    ) -> Result<(), HierarchyError> {
        if self.bag().len() < c.rfjm_threshold && !self.rfjm_outstanding {
            self.rfjm_outstanding = true;
            ctx.send(self.parent, c.sizes.header, Msg::Rfjm)?;
        }
        Ok(())
    }

    fn rfc(&mut self, ctx: &mut Ctx<'_>, c: &HierarchyConfig) -> Result<(), HierarchyError> {
        if !self.bag().is_empty() && !self.rfc_outstanding {
            self.rfc_outstanding = true;
            ctx.send(self.parent, c.sizes.header, Msg::Rfc(self.os))?;
        }
        Ok(())
    }

    /// Fallback: the job no longer matches this server; JOB_RETURN it to the parent.
    fn fall_back(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        jd: Jd,
    ) -> Result<(), HierarchyError> {
        self.returned.push(jd.id);
        let msg = Msg::JobReturn {
            job: jd.id,
            os: jd.os,
        };
        ctx.send(self.parent, c.sizes.header, msg)?;
        Ok(())
    }

    fn start_next(&mut self, ctx: &mut Ctx<'_>, c: &HierarchyConfig) -> Result<(), HierarchyError> {
        while let Some(jd) = self.queue.pop_front() {
            if !self.saved[jd.os.index()].contains(&jd.id) {
                continue; // started elsewhere (its HOLES came first)
            }
            if jd.os != self.os {
                self.fall_back(ctx, c, jd)?;
                continue;
            }
            self.saved[jd.os.index()].remove(&jd.id);
            self.busy = Some(jd);
            ctx.send(jd.ws, c.sizes.header, Msg::Offer(jd.id, self.os))?;
            ctx.send(self.parent, c.sizes.header, Msg::JobStarted(jd.id))?;
            self.offer_timer = Some(ctx.set_timer(c.offer_timeout, TIMER_OFFER));
            return Ok(());
        }
        Ok(())
    }

    fn after_job(&mut self, ctx: &mut Ctx<'_>, c: &HierarchyConfig) -> Result<(), HierarchyError> {
        self.busy = None;
        if c.rfc_rule == RfcRule::EveryCompletion {
            self.rfc(ctx, c)?;
        }
        self.work_or_ask(ctx, c)
    }

    /// An idle server starts its next queued job; if none can start, it asks for work (an
    /// RFC, and an RFJM when its bag is low).
    fn work_or_ask(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
    ) -> Result<(), HierarchyError> {
        if self.busy.is_none() {
            self.start_next(ctx, c)?;
            if self.busy.is_none() {
                self.rfc(ctx, c)?;
                self.rfjm_if_low(ctx, c)?;
            }
        }
        Ok(())
    }

    /// §3.6 "LGS on resource change": the bag becomes the saved requests of the new OS; a
    /// CHANNEL_UPDATE goes up; queued (tentative, not yet offered) jobs that no longer match
    /// are returned; a running job continues (A20); an idle server asks for work.
    fn change_os(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        new: Os,
    ) -> Result<(), HierarchyError> {
        self.os = new;
        // The parent drops this branch's RFC of the old channel on the update.
        self.rfc_outstanding = false;
        self.seq += 1;
        let len = self.bag().len() as u32;
        let bytes = c.sizes.header + c.sizes.per_bag_slot * u64::from(len);
        let channels = vec![(new, u64::from(self.server.cpus()), len)];
        let seq = self.seq;
        ctx.send(self.parent, bytes, Msg::ChannelUpdate { seq, channels })?;
        for _ in 0..self.queue.len() {
            let jd = self.queue.pop_front().expect("counted");
            if jd.os == new || !self.saved[jd.os.index()].contains(&jd.id) {
                self.queue.push_back(jd);
            } else {
                self.fall_back(ctx, c, jd)?;
            }
        }
        self.work_or_ask(ctx, c)
    }

    fn on_message(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        msg: Envelope<Msg>,
    ) -> Result<(), HierarchyError> {
        match msg.payload {
            Msg::JobBlock { round, jobs } => {
                self.rfjm_outstanding = false;
                let os = self.os;
                // Under resource changes every request is saved (any may match later).
                let keep_all = c.os_changes.is_some();
                for j in jobs.iter().filter(|j| keep_all || j.os == os) {
                    self.saved[j.os.index()].insert(j.id);
                }
                let len = self.bag().len() as u32;
                let bytes = c.sizes.header + c.sizes.per_bag_slot * u64::from(len);
                let channels = vec![(os, u64::from(self.server.cpus()), len)];
                self.seq += 1;
                let seq = self.seq;
                ctx.send(
                    self.parent,
                    bytes,
                    Msg::Bag {
                        round,
                        seq,
                        channels,
                    },
                )?;
                if self.bag().len() < c.rfjm_threshold {
                    self.rfjm_if_low(ctx, c)?;
                } else if self.busy.is_none() && self.queue.is_empty() {
                    self.rfc(ctx, c)?;
                }
            }
            Msg::Push(os, jobs) => {
                if jobs.iter().any(|j| j.os != os) {
                    return Err(HierarchyError::Protocol(format!(
                        "a push on channel {os} carries a job of another OS"
                    )));
                }
                if os != self.os {
                    // Pushed for the OS this server just left (the RFC crossed the change):
                    // Fallback returns the jobs at once; they never run here.
                    self.stale_pushes += jobs.len() as u64;
                    for jd in jobs {
                        if self.saved[jd.os.index()].contains(&jd.id) {
                            self.fall_back(ctx, c, jd)?;
                        }
                    }
                    return Ok(());
                }
                self.rfc_outstanding = false;
                self.queue.extend(jobs);
                self.work_or_ask(ctx, c)?;
            }
            Msg::CancelJob(id) => self.queue.retain(|j| j.id != id),
            Msg::Holes(id) => {
                for s in &mut self.saved {
                    s.remove(&id);
                }
                self.queue.retain(|j| j.id != id);
                if self.busy.is_none() && self.queue.is_empty() {
                    self.rfjm_if_low(ctx, c)?;
                }
            }
            Msg::Accept(id) => {
                if self.busy.map(|j| j.id) == Some(id)
                    && let Some(t) = self.offer_timer.take()
                {
                    ctx.cancel_timer(t);
                }
            }
            Msg::Input(id) => {
                let jd = self.busy.filter(|j| j.id == id).ok_or_else(|| {
                    HierarchyError::Protocol(format!("input of job {id} at an LGS not running it"))
                })?;
                let t = c.exec.exec_ms(jd.input_bytes, self.server.cpus());
                ctx.set_timer(t, TIMER_EXEC);
            }
            other => {
                return Err(HierarchyError::Protocol(format!(
                    "LGS got {}",
                    other.kind()
                )));
            }
        }
        Ok(())
    }

    fn on_timer(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        tag: u64,
    ) -> Result<(), HierarchyError> {
        match tag {
            TIMER_START => self.rfjm_if_low(ctx, c)?,
            TIMER_EXEC => {
                let jd = self
                    .busy
                    .ok_or_else(|| HierarchyError::Protocol("exec end while idle".into()))?;
                let out = jd.input_bytes * crate::jobs::OUTPUT_RATIO;
                ctx.send(jd.ws, out, Msg::Output(jd.id))?;
                let p = ctx.network();
                let (from, to) = (p.host(ctx.me()), p.host(jd.ws));
                let t = match (from, to) {
                    (Some(a), Some(b)) => p.network().delay(a, b, out).map_err(SendError::Delay)?,
                    _ => return Err(HierarchyError::Protocol("unplaced actor".into())),
                };
                ctx.set_timer(t, TIMER_DELIVERED);
            }
            TIMER_DELIVERED => self.after_job(ctx, c)?,
            TIMER_OFFER => {
                // The workstation ignored the offer (a duplicate): move on.
                self.offer_timer = None;
                self.after_job(ctx, c)?;
            }
            TIMER_OS_CHANGE => {
                let (Some(p), Some(oc)) = (self.changes.as_mut(), c.os_changes.as_ref()) else {
                    return Err(HierarchyError::Protocol(
                        "OS change without a change process".into(),
                    ));
                };
                let new = Os::draw(&mut p.rng);
                p.mean = oc.means_ms[p.rng.random_range(0..oc.means_ms.len())];
                if p.completed.get() < p.total {
                    let t = exp_ms(&mut p.rng, p.mean);
                    ctx.set_timer(t, TIMER_OS_CHANGE);
                }
                self.os_changes += 1;
                if new != self.os {
                    self.change_os(ctx, c, new)?;
                }
            }
            _ => return Err(HierarchyError::Protocol(format!("unknown LGS timer {tag}"))),
        }
        Ok(())
    }
}

/// A PGSS's peer side (§3.9): its neighbour PGSSs and what it has seen.
#[derive(Debug, Default)]
pub struct PeerState {
    /// Neighbour PGSSs (out-edges of the peer graph).
    pub neighbours: Vec<ActorId>,
    /// Requests seen (its own workstations' and foreign ones): duplicate suppression.
    seen: IdSet,
    /// Purges already flooded or forwarded.
    purged: IdSet,
    /// Accepted foreign jobs and their own PGSS.
    home: BTreeMap<u32, ActorId>,
    /// Foreign requests accepted into this tree.
    pub accepted: u64,
}

impl PeerState {
    /// A PGSS with these neighbours.
    pub fn new(neighbours: Vec<ActorId>) -> Self {
        PeerState {
            neighbours,
            ..PeerState::default()
        }
    }
}

/// A non-leaf scheduler: the GSS when it has no parent.
#[derive(Debug)]
pub struct Scheduler {
    pub parent: Option<ActorId>,
    pub children: Vec<ActorId>,
    /// `prox[child][site]` (A11).
    prox: Vec<Vec<u8>>,
    /// Each child's power per channel (from its last BAG).
    power: Vec<[u64; 3]>,
    total_power: u64,
    /// Under resource changes: each child's last applied report (its `seq`) and bag sizes.
    power_seq: Vec<u32>,
    bag_len: Vec<[u32; 3]>,
    /// This scheduler's reports sent up, and the channel powers last reported.
    seq: u32,
    reported: [u64; 3],
    rounds: BTreeMap<u32, (usize, [u64; 3], [u32; 3])>,
    rfjm_forwarded: bool,
    // GSS only.
    raw: Vec<Jd>,
    backlogged_rfjm: bool,
    next_round: u32,
    round_jobs: BTreeMap<u32, Rc<[Jd]>>,
    unmatched: Vec<Jd>,
    // The JST.
    unassigned: [VecDeque<Jd>; 3],
    assigned: Vec<Vec<Jd>>,
    /// RFCs not yet served, in arrival order: (child, channel).
    pending: Vec<(usize, Os)>,
    rfc_outstanding: [bool; 3],
    gone: IdSet,
    /// Jobs moved by Butterfly and by Load-Balance (CANCEL_JOB + re-push) at this scheduler.
    pub moves: [u64; 2],
    /// Jobs this scheduler found stranded by Fallback (unassigned in a deleted channel, or
    /// pushed for a channel it no longer has); a job may appear more than once.
    pub returned: Vec<u32>,
    /// Hybrid: the peer side of a PGSS (roots of a peered forest only).
    pub peer: Option<Box<PeerState>>,
}

impl Scheduler {
    pub fn new(parent: Option<ActorId>, children: Vec<ActorId>, prox: Vec<Vec<u8>>) -> Self {
        let n = children.len();
        Scheduler {
            parent,
            children,
            prox,
            power: vec![[0; 3]; n],
            total_power: 0,
            power_seq: vec![0; n],
            bag_len: vec![[0; 3]; n],
            seq: 0,
            reported: [0; 3],
            rounds: BTreeMap::new(),
            rfjm_forwarded: false,
            raw: Vec::new(),
            backlogged_rfjm: false,
            next_round: 0,
            round_jobs: BTreeMap::new(),
            unmatched: Vec::new(),
            unassigned: Default::default(),
            assigned: vec![Vec::new(); n],
            pending: Vec::new(),
            rfc_outstanding: [false; 3],
            gone: IdSet::new(),
            moves: [0; 2],
            returned: Vec::new(),
            peer: None,
        }
    }

    fn child(&self, id: ActorId) -> Result<usize, HierarchyError> {
        self.children
            .iter()
            .position(|&c| c == id)
            .ok_or_else(|| HierarchyError::Protocol(format!("{id} is not a child")))
    }

    fn n_jobs(&self, c: &HierarchyConfig) -> usize {
        let un: usize = self.unassigned.iter().map(VecDeque::len).sum();
        match c.share_base {
            ShareBase::Tentative => un + self.assigned.iter().map(Vec::len).sum::<usize>(),
            ShareBase::Unassigned => un,
        }
    }

    fn share(&self, c: &HierarchyConfig, b: usize, os: Os) -> usize {
        b_share(self.power[b][os.index()], self.total_power, self.n_jobs(c))
    }

    /// Collects up to `B_share` jobs for branch (b, os) and pushes them; whether any went.
    fn serve(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        b: usize,
        os: Os,
    ) -> Result<bool, HierarchyError> {
        let k = self.share(c, b, os);
        let mut jobs: Vec<Jd> = Vec::new();
        if c.butterfly_lb {
            // 1. Butterfly: tentative jobs elsewhere whose user is closer to b.
            let mut cands: Vec<(u8, u32, usize)> = Vec::new();
            for (o, list) in self.assigned.iter().enumerate() {
                if o == b {
                    continue;
                }
                for j in list.iter().filter(|j| j.os == os) {
                    let (here, there) = (
                        self.prox[b][j.ws_site as usize],
                        self.prox[o][j.ws_site as usize],
                    );
                    if here > there {
                        cands.push((here - there, j.id, o));
                    }
                }
            }
            cands.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
            for (_, id, o) in cands.into_iter().take(k) {
                let pos = self.assigned[o]
                    .iter()
                    .position(|j| j.id == id)
                    .expect("candidate");
                jobs.push(self.assigned[o].remove(pos));
                self.moves[0] += 1;
                ctx.send(self.children[o], c.sizes.header, Msg::CancelJob(id))?;
            }
        }
        // 2. Unassigned jobs of the channel, FIFO.
        while jobs.len() < k {
            match self.unassigned[os.index()].pop_front() {
                Some(j) => jobs.push(j),
                None => break,
            }
        }
        if c.butterfly_lb {
            // 3. Load-Balance: from the branch with the largest excess over its share.
            while jobs.len() < k {
                let mut best: Option<(usize, usize)> = None;
                for o in (0..self.children.len()).filter(|&o| o != b) {
                    let have = self.assigned[o].iter().filter(|j| j.os == os).count();
                    let excess = have.saturating_sub(self.share(c, o, os));
                    if excess > 0 && best.is_none_or(|(_, e)| excess > e) {
                        best = Some((o, excess));
                    }
                }
                let Some((o, _)) = best else { break };
                let list = &self.assigned[o];
                let pos = match c.donor_job {
                    DonorJob::Newest => list.iter().rposition(|j| j.os == os),
                    DonorJob::Oldest => list.iter().position(|j| j.os == os),
                }
                .expect("a donor has a job of the channel");
                let j = self.assigned[o].remove(pos);
                self.moves[1] += 1;
                ctx.send(self.children[o], c.sizes.header, Msg::CancelJob(j.id))?;
                jobs.push(j);
            }
        }
        if jobs.is_empty() {
            return Ok(false);
        }
        self.assigned[b].extend(jobs.iter().copied());
        let bytes = c.sizes.header + c.sizes.per_jd * jobs.len() as u64;
        ctx.send(self.children[b], bytes, Msg::Push(os, jobs))?;
        Ok(true)
    }

    /// Serves the pending RFCs of `only` (or all channels). Under [`RfcOrder::Closest`] the
    /// oldest unassigned job of a channel first goes to the requesting branch closest to its
    /// user (ties by RFC arrival), which takes its `B_share` from there on; then, as under
    /// [`RfcOrder::Arrival`], every pending RFC is served in arrival order (Butterfly and
    /// Load-Balance candidates, and jobs left over).
    fn serve_pending(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        only: Option<Os>,
    ) -> Result<(), HierarchyError> {
        if c.rfc_order == RfcOrder::Closest {
            for os in Os::ALL.into_iter().filter(|&o| only.is_none_or(|x| x == o)) {
                while let Some(head) = self.unassigned[os.index()].front().copied() {
                    let site = head.ws_site as usize;
                    let best = self
                        .pending
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.1 == os)
                        .max_by(|(i, x), (j, y)| {
                            self.prox[x.0][site]
                                .cmp(&self.prox[y.0][site])
                                .then(j.cmp(i))
                        })
                        .map(|(i, _)| i);
                    let Some(i) = best else { break };
                    let (b, _) = self.pending[i];
                    if self.serve(ctx, c, b, os)? {
                        self.pending.remove(i);
                    } else {
                        break;
                    }
                }
            }
        }
        let mut i = 0;
        while i < self.pending.len() {
            let (b, os) = self.pending[i];
            if only.is_none_or(|o| o == os) && self.serve(ctx, c, b, os)? {
                self.pending.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    fn ask_parent(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        os: Os,
    ) -> Result<(), HierarchyError> {
        if let Some(p) = self.parent
            && !self.rfc_outstanding[os.index()]
        {
            self.rfc_outstanding[os.index()] = true;
            ctx.send(p, c.sizes.header, Msg::Rfc(os))?;
        }
        Ok(())
    }

    fn start_round(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
    ) -> Result<(), HierarchyError> {
        let round = self.next_round;
        self.next_round += 1;
        if self.peer.is_some() {
            // Copies of jobs that started in another tree while queued here.
            let gone = &self.gone;
            self.raw.retain(|j| !gone.contains(&j.id));
        }
        let jobs: Rc<[Jd]> = std::mem::take(&mut self.raw).into();
        self.round_jobs.insert(round, jobs.clone());
        self.backlogged_rfjm = false;
        self.broadcast_block(ctx, c, round, jobs)
    }

    fn broadcast_block(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        round: u32,
        jobs: Rc<[Jd]>,
    ) -> Result<(), HierarchyError> {
        self.rfjm_forwarded = false;
        if c.channel_rebuild == ChannelRebuild::DestroyAll {
            // DESTROY_CHANNELS: forget every channel; the round's BAGs rebuild them.
            self.power.iter_mut().for_each(|p| *p = [0; 3]);
            self.total_power = 0;
        }
        self.rounds.insert(round, (0, [0; 3], [0; 3]));
        let bytes = c.sizes.header + c.sizes.per_jd * jobs.len() as u64;
        for i in 0..self.children.len() {
            let msg = Msg::JobBlock {
                round,
                jobs: jobs.clone(),
            };
            ctx.send(self.children[i], bytes, msg)?;
        }
        Ok(())
    }

    fn forget(&mut self, id: u32) {
        for q in &mut self.unassigned {
            q.retain(|j| j.id != id);
        }
        for l in &mut self.assigned {
            l.retain(|j| j.id != id);
        }
        self.unmatched.retain(|j| j.id != id);
    }

    /// The channel powers of this scheduler: its children's, summed per OS.
    fn aggregate(&self) -> [u64; 3] {
        let mut agg = [0u64; 3];
        for p in &self.power {
            for (a, x) in agg.iter_mut().zip(p) {
                *a += x;
            }
        }
        agg
    }

    /// Applies a child's report (BAG or CHANNEL_UPDATE) under resource changes: a stale one
    /// (an older `seq`) is ignored; a channel the branch left loses the branch's pending RFC.
    fn apply_report(&mut self, b: usize, seq: u32, channels: &[(Os, u64, u32)]) {
        if seq <= self.power_seq[b] {
            return;
        }
        self.power_seq[b] = seq;
        let old = self.power[b];
        self.power[b] = [0; 3];
        self.bag_len[b] = [0; 3];
        for &(os, pwr, len) in channels {
            self.power[b][os.index()] = pwr;
            self.bag_len[b][os.index()] = len;
        }
        for os in Os::ALL {
            let i = os.index();
            if old[i] > 0 && self.power[b][i] == 0 {
                self.pending.retain(|&p| p != (b, os));
            }
        }
        self.set_branch_power_total(old, b);
    }

    /// `total_power` after branch `b`'s powers changed from `old`: the sum of every branch's,
    /// kept by difference (a report reaches H1's GSS from each of its 520 branches per round,
    /// and re-summing all branches on each was quadratic per round).
    fn set_branch_power_total(&mut self, old: [u64; 3], b: usize) {
        let sum = |p: [u64; 3]| p.iter().sum::<u64>();
        self.total_power = self.total_power - sum(old) + sum(self.power[b]);
        debug_assert_eq!(self.total_power, self.power.iter().flatten().sum::<u64>());
    }

    /// The channels as a report: (OS, power, largest child bag) of every live channel.
    fn report(&self, agg: [u64; 3]) -> (Vec<(Os, u64, u32)>, u64) {
        let channels: Vec<(Os, u64, u32)> = Os::ALL
            .into_iter()
            .filter(|o| agg[o.index()] > 0)
            .map(|o| {
                let len = self.bag_len.iter().map(|l| l[o.index()]).max().unwrap_or(0);
                (o, agg[o.index()], len)
            })
            .collect();
        let slots: u64 = channels.iter().map(|x| u64::from(x.2)).sum();
        (channels, slots)
    }

    /// Hybrid: the job started in some tree; drop this tree's copy (HOLES down, as for a
    /// local start).
    fn drop_copy(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        id: u32,
    ) -> Result<(), HierarchyError> {
        if self.gone.insert(id) {
            self.forget(id);
            for i in 0..self.children.len() {
                ctx.send(self.children[i], c.sizes.header, Msg::Holes(id))?;
            }
        }
        Ok(())
    }

    /// Hybrid: the job's own PGSS floods a purge of its other copies (once per job).
    fn flood_purge(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        id: u32,
        except: Option<ActorId>,
    ) -> Result<(), HierarchyError> {
        let Peering::Flood { ttl } = c.peering else {
            return Ok(());
        };
        let Some(p) = self.peer.as_mut() else {
            return Ok(());
        };
        if ttl == 0 || !p.purged.insert(id) {
            return Ok(());
        }
        for &n in p.neighbours.iter().filter(|&&n| Some(n) != except) {
            ctx.send(n, c.sizes.header, Msg::Purge { job: id, ttl })?;
        }
        Ok(())
    }

    /// After a change of channel powers under resource changes (§3.6, "Scheduler X"):
    /// unassigned jobs of a deleted channel are treated as returned (passed up, or kept
    /// waiting at the GSS); at the GSS waiting jobs whose channel reappeared become
    /// schedulable; an inner scheduler tells its parent of any change (CHANNEL_UPDATE,
    /// CANCEL_CHANNEL). Deleted channels wait for the end of a discovery round in progress
    /// (A10 DestroyAll empties the powers until the round's BAGs are in).
    fn power_changed(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
    ) -> Result<(), HierarchyError> {
        let agg = self.aggregate();
        if self.rounds.is_empty() {
            for os in Os::ALL {
                let i = os.index();
                if agg[i] > 0 {
                    continue;
                }
                if self.parent.is_some() {
                    self.rfc_outstanding[i] = false;
                }
                while let Some(j) = self.unassigned[i].pop_front() {
                    self.returned.push(j.id);
                    match self.parent {
                        Some(p) => {
                            let msg = Msg::JobReturn { job: j.id, os };
                            ctx.send(p, c.sizes.header, msg)?;
                        }
                        None => self.unmatched.push(j),
                    }
                }
            }
        }
        match self.parent {
            None => {
                if self.unmatched.iter().any(|j| agg[j.os.index()] > 0) {
                    for j in std::mem::take(&mut self.unmatched) {
                        if agg[j.os.index()] > 0 {
                            self.unassigned[j.os.index()].push_back(j);
                        } else {
                            self.unmatched.push(j);
                        }
                    }
                }
                self.serve_pending(ctx, c, None)?;
            }
            Some(p) => {
                if agg != self.reported {
                    self.reported = agg;
                    self.seq += 1;
                    let (channels, slots) = self.report(agg);
                    let bytes = c.sizes.header + c.sizes.per_bag_slot * slots;
                    let seq = self.seq;
                    ctx.send(p, bytes, Msg::ChannelUpdate { seq, channels })?;
                }
            }
        }
        Ok(())
    }

    /// Fallback at a scheduler (§3.6): a job returned by branch `from` (or pushed here for
    /// a channel this scheduler no longer has) is rescheduled in this partition if another
    /// branch's channel holds its OS, else passed up (kept waiting at the GSS).
    fn reroute(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        jd: Jd,
        from: Option<usize>,
    ) -> Result<(), HierarchyError> {
        let i = jd.os.index();
        let elsewhere = self
            .power
            .iter()
            .enumerate()
            .any(|(o, p)| Some(o) != from && p[i] > 0);
        if elsewhere {
            self.unassigned[i].push_back(jd);
            self.serve_pending(ctx, c, Some(jd.os))?;
        } else if let Some(p) = self.parent {
            let msg = Msg::JobReturn {
                job: jd.id,
                os: jd.os,
            };
            ctx.send(p, c.sizes.header, msg)?;
        } else {
            self.unmatched.push(jd);
        }
        Ok(())
    }

    fn round_done(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        round: u32,
    ) -> Result<(), HierarchyError> {
        let mut fresh = self
            .round_jobs
            .remove(&round)
            .map(|j| j.to_vec())
            .unwrap_or_default();
        if self.peer.is_some() && fresh.iter().any(|j| self.gone.contains(&j.id)) {
            // A copy purged while its round was under way: its HOLES may have overtaken the
            // JOB_BLOCK, so punch it again now that every LGS has the block.
            let gone: Vec<u32> = fresh
                .iter()
                .filter(|j| self.gone.contains(&j.id))
                .map(|j| j.id)
                .collect();
            for id in gone {
                for i in 0..self.children.len() {
                    ctx.send(self.children[i], c.sizes.header, Msg::Holes(id))?;
                }
            }
            let gone = &self.gone;
            fresh.retain(|j| !gone.contains(&j.id));
        }
        let mut waiting = std::mem::take(&mut self.unmatched);
        waiting.append(&mut fresh);
        for j in waiting {
            let has = self.power.iter().any(|p| p[j.os.index()] > 0);
            if has {
                self.unassigned[j.os.index()].push_back(j);
            } else {
                self.unmatched.push(j);
            }
        }
        self.serve_pending(ctx, c, None)
    }

    fn on_message(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: &HierarchyConfig,
        msg: Envelope<Msg>,
    ) -> Result<(), HierarchyError> {
        let src = msg.src;
        match msg.payload {
            Msg::Submit(jd) => {
                if let (Some(p), Peering::Flood { ttl }) = (self.peer.as_mut(), c.peering) {
                    p.seen.insert(jd.id);
                    if ttl > 0 {
                        let jobs: Rc<[Jd]> = Rc::new([jd]);
                        let bytes = c.sizes.header + c.sizes.per_jd;
                        let me = ctx.me();
                        for &n in &p.neighbours {
                            let msg = Msg::RequestFile {
                                origin: me,
                                ttl,
                                jobs: jobs.clone(),
                            };
                            ctx.send(n, bytes, msg)?;
                        }
                    }
                }
                self.raw.push(jd);
                let eager =
                    c.discovery_trigger == DiscoveryTrigger::Eager && !self.pending.is_empty();
                if self.backlogged_rfjm || eager {
                    self.start_round(ctx, c)?;
                }
            }
            Msg::Rfjm => match self.parent {
                None if !self.raw.is_empty() => self.start_round(ctx, c)?,
                None => self.backlogged_rfjm = true,
                Some(p) => {
                    if !self.rfjm_forwarded {
                        self.rfjm_forwarded = true;
                        ctx.send(p, c.sizes.header, Msg::Rfjm)?;
                    }
                }
            },
            Msg::JobBlock { round, jobs } => self.broadcast_block(ctx, c, round, jobs)?,
            Msg::Bag {
                round,
                seq,
                channels,
            } => {
                let b = self.child(src)?;
                if c.os_changes.is_some() {
                    self.apply_report(b, seq, &channels);
                } else {
                    let old = self.power[b];
                    self.power[b] = [0; 3];
                    for &(os, pwr, _) in &channels {
                        self.power[b][os.index()] = pwr;
                    }
                    self.set_branch_power_total(old, b);
                }
                let n = self.children.len();
                let entry = self.rounds.get_mut(&round).ok_or_else(|| {
                    HierarchyError::Protocol(format!("BAG of unknown round {round}"))
                })?;
                entry.0 += 1;
                for &(os, pwr, len) in &channels {
                    entry.1[os.index()] += pwr;
                    entry.2[os.index()] = entry.2[os.index()].max(len);
                }
                if entry.0 == n {
                    let (_, pwr, len) = self.rounds.remove(&round).expect("entry");
                    match self.parent {
                        None => {
                            self.round_done(ctx, c, round)?;
                            if c.os_changes.is_some() {
                                self.power_changed(ctx, c)?;
                            }
                        }
                        Some(p) if c.os_changes.is_some() => {
                            // The channels as they are now (reports since the round's BAGs
                            // included), then any deleted channel's jobs go up.
                            let agg = self.aggregate();
                            self.reported = agg;
                            self.seq += 1;
                            let (channels, slots) = self.report(agg);
                            let bytes = c.sizes.header + c.sizes.per_bag_slot * slots;
                            let seq = self.seq;
                            let msg = Msg::Bag {
                                round,
                                seq,
                                channels,
                            };
                            ctx.send(p, bytes, msg)?;
                            self.power_changed(ctx, c)?;
                        }
                        Some(p) => {
                            let channels: Vec<(Os, u64, u32)> = Os::ALL
                                .into_iter()
                                .filter(|o| pwr[o.index()] > 0)
                                .map(|o| (o, pwr[o.index()], len[o.index()]))
                                .collect();
                            let slots: u64 = channels.iter().map(|x| u64::from(x.2)).sum();
                            let bytes = c.sizes.header + c.sizes.per_bag_slot * slots;
                            self.seq += 1;
                            let seq = self.seq;
                            let msg = Msg::Bag {
                                round,
                                seq,
                                channels,
                            };
                            ctx.send(p, bytes, msg)?;
                        }
                    }
                }
            }
            Msg::Rfc(os) => {
                let b = self.child(src)?;
                if !self.pending.contains(&(b, os)) {
                    self.pending.push((b, os));
                }
                if self.serve(ctx, c, b, os)? {
                    self.pending.retain(|&p| p != (b, os));
                } else if self.parent.is_some() {
                    self.ask_parent(ctx, c, os)?;
                } else if c.discovery_trigger == DiscoveryTrigger::Eager && !self.raw.is_empty() {
                    self.start_round(ctx, c)?;
                }
            }
            Msg::Push(os, jobs) => {
                self.rfc_outstanding[os.index()] = false;
                // Under resource changes the channel may have died since the RFC: Fallback
                // passes the jobs back up.
                let alive = c.os_changes.is_none()
                    || !self.rounds.is_empty()
                    || self.power.iter().any(|p| p[os.index()] > 0);
                for j in jobs {
                    if self.gone.contains(&j.id) {
                        continue;
                    }
                    if alive {
                        self.unassigned[os.index()].push_back(j);
                    } else {
                        self.returned.push(j.id);
                        self.reroute(ctx, c, j, None)?;
                    }
                }
                self.serve_pending(ctx, c, Some(os))?;
                if self.pending.iter().any(|&(_, o)| o == os) {
                    self.ask_parent(ctx, c, os)?;
                }
            }
            Msg::CancelJob(id) => {
                let q = &mut self.unassigned;
                if let Some((oi, pos)) = q
                    .iter()
                    .enumerate()
                    .find_map(|(i, v)| v.iter().position(|j| j.id == id).map(|p| (i, p)))
                {
                    q[oi].remove(pos);
                } else if let Some((b, pos)) = self
                    .assigned
                    .iter()
                    .enumerate()
                    .find_map(|(i, v)| v.iter().position(|j| j.id == id).map(|p| (i, p)))
                {
                    self.assigned[b].remove(pos);
                    ctx.send(self.children[b], c.sizes.header, Msg::CancelJob(id))?;
                }
            }
            Msg::JobStarted(id) => {
                if self.gone.insert(id) {
                    self.forget(id);
                    match self.parent {
                        Some(p) => ctx.send(p, c.sizes.header, Msg::JobStarted(id))?,
                        None => {
                            for i in 0..self.children.len() {
                                ctx.send(self.children[i], c.sizes.header, Msg::Holes(id))?;
                            }
                            let home = self.peer.as_ref().map(|p| p.home.get(&id).copied());
                            match home {
                                None => {}
                                Some(Some(h)) => {
                                    ctx.send(h, c.sizes.header, Msg::RemoteStart(id))?;
                                }
                                Some(None) => self.flood_purge(ctx, c, id, None)?,
                            }
                        }
                    }
                }
            }
            Msg::RequestFile { origin, ttl, jobs } => {
                let accept_rule = c.accept_foreign;
                let agg = self.aggregate();
                let total = self.total_power;
                let mut accepted = false;
                let mut fresh: Vec<Jd> = Vec::new();
                {
                    let pending = &self.pending;
                    let p = self.peer.as_mut().ok_or_else(|| {
                        HierarchyError::Protocol(
                            "REQUEST_FILE at a scheduler that is no PGSS".into(),
                        )
                    })?;
                    for &jd in jobs.iter() {
                        if !p.seen.insert(jd.id) {
                            continue;
                        }
                        fresh.push(jd);
                        let matching = agg[jd.os.index()] > 0;
                        let ok = match accept_rule {
                            AcceptForeign::MatchingChannel => matching || total == 0,
                            AcceptForeign::IdleMatchingServer => {
                                matching && pending.iter().any(|&(_, o)| o == jd.os)
                            }
                        };
                        if ok {
                            p.home.insert(jd.id, origin);
                            p.accepted += 1;
                            self.raw.push(jd);
                            accepted = true;
                        }
                    }
                    if ttl > 1 && !fresh.is_empty() {
                        let jobs: Rc<[Jd]> = fresh.into();
                        let bytes = c.sizes.header + c.sizes.per_jd * jobs.len() as u64;
                        for &n in p.neighbours.iter().filter(|&&n| n != src) {
                            let msg = Msg::RequestFile {
                                origin,
                                ttl: ttl - 1,
                                jobs: jobs.clone(),
                            };
                            ctx.send(n, bytes, msg)?;
                        }
                    }
                }
                if accepted {
                    // Foreign and home requests are queued in the same fashion.
                    let eager =
                        c.discovery_trigger == DiscoveryTrigger::Eager && !self.pending.is_empty();
                    if self.backlogged_rfjm || eager {
                        self.start_round(ctx, c)?;
                    }
                }
            }
            Msg::RemoteStart(id) => {
                self.drop_copy(ctx, c, id)?;
                self.flood_purge(ctx, c, id, None)?;
            }
            Msg::Purge { job, ttl } => {
                let fresh = match self.peer.as_mut() {
                    Some(p) => {
                        p.seen.insert(job);
                        p.purged.insert(job)
                    }
                    None => {
                        return Err(HierarchyError::Protocol(
                            "PURGE at a scheduler that is no PGSS".into(),
                        ));
                    }
                };
                if fresh {
                    self.drop_copy(ctx, c, job)?;
                    if ttl > 1 {
                        let p = self.peer.as_ref().expect("a PGSS");
                        for &n in p.neighbours.iter().filter(|&&n| n != src) {
                            let msg = Msg::Purge { job, ttl: ttl - 1 };
                            ctx.send(n, c.sizes.header, msg)?;
                        }
                    }
                }
            }
            Msg::ChannelUpdate { seq, channels } => {
                let b = self.child(src)?;
                self.apply_report(b, seq, &channels);
                self.power_changed(ctx, c)?;
            }
            Msg::JobReturn { job, os } => {
                let b = self.child(src)?;
                // The branch cannot take this channel now; its RFCs for it are stale (an RFC
                // it sends later arrives after this return: same size, same path).
                self.pending.retain(|&p| p != (b, os));
                if let Some(pos) = self.assigned[b].iter().position(|j| j.id == job) {
                    let jd = self.assigned[b].remove(pos);
                    if !self.gone.contains(&job) {
                        self.reroute(ctx, c, jd, Some(b))?;
                    }
                }
                // Not found: Butterfly or Load-Balance already moved it elsewhere.
            }
            Msg::Holes(id) => {
                self.gone.insert(id);
                self.forget(id);
                for i in 0..self.children.len() {
                    ctx.send(self.children[i], c.sizes.header, Msg::Holes(id))?;
                }
            }
            other => {
                return Err(HierarchyError::Protocol(format!(
                    "scheduler got {}",
                    other.kind()
                )));
            }
        }
        Ok(())
    }
}

/// Every role of a hierarchical grid.
#[derive(Debug)]
pub enum Node {
    Workstation(Box<Workstation>),
    Scheduler(Box<Scheduler>),
    Leaf(Box<Leaf>),
}

/// A node with the configuration every handler reads.
#[derive(Debug)]
pub struct HierarchyActor {
    pub node: Node,
    pub config: Rc<HierarchyConfig>,
    /// Messages received, by type.
    pub received: Received,
}

impl Actor<Placement> for HierarchyActor {
    type Payload = Msg;
    type Error = HierarchyError;

    fn on_message(&mut self, ctx: &mut Ctx<'_>, msg: Envelope<Msg>) -> Result<(), HierarchyError> {
        let c = Rc::clone(&self.config);
        self.received.count(&msg.payload);
        if c.audit_delivery {
            let p = ctx.network();
            let (a, b) = (p.host(msg.src), p.host(ctx.me()));
            if let (Some(a), Some(b)) = (a, b) {
                let delay = p
                    .network()
                    .delay(a, b, msg.bytes)
                    .map_err(SendError::Delay)?;
                if ctx.now() != msg.sent_at + delay {
                    return Err(HierarchyError::EarlyDelivery {
                        now: ctx.now(),
                        sent: msg.sent_at,
                        delay,
                    });
                }
            }
        }
        match &mut self.node {
            Node::Scheduler(s) => s.on_message(ctx, &c, msg),
            Node::Leaf(l) => l.on_message(ctx, &c, msg),
            Node::Workstation(w) => {
                match msg.payload {
                    Msg::Offer(id, server_os) => {
                        let now = ctx.now();
                        let fresh = w
                            .current
                            .as_ref()
                            .is_some_and(|o| o.jd.id == id && o.served.is_none());
                        if let (true, Some(o)) = (fresh, &mut w.current) {
                            o.served = Some((msg.src, now, server_os));
                            let bytes = o.jd.input_bytes;
                            ctx.send(msg.src, c.sizes.header, Msg::Accept(id))?;
                            ctx.send(msg.src, bytes, Msg::Input(id))?;
                        }
                    }
                    Msg::Output(id) => {
                        let Some(Outstanding {
                            jd,
                            rt,
                            served: Some((server, sjtt, server_os)),
                        }) = w.current.take()
                        else {
                            return Err(HierarchyError::Protocol(format!(
                                "output of job {id} unexpected"
                            )));
                        };
                        let p = ctx.network();
                        let server_node = p.host(server).ok_or_else(|| {
                            HierarchyError::Protocol(format!("{server} is not placed"))
                        })?;
                        let t = p.network().topology();
                        let class = match (t.address(w.node), t.address(server_node)) {
                            (Some(a), Some(b)) => PathClass::between(a, b),
                            _ => return Err(HierarchyError::Protocol("unknown node".into())),
                        };
                        w.records.push(JobRecord {
                            job: jd.id,
                            workstation: w.node,
                            server,
                            server_node,
                            class,
                            os: jd.os,
                            input_bytes: jd.input_bytes,
                            rt,
                            sjtt,
                            jct: ctx.now(),
                            server_os,
                            fallback_hit: false,
                        });
                        if let Some(done) = &w.completed {
                            done.set(done.get() + 1);
                        }
                        match w.arrivals {
                            Arrivals::Continuous => {
                                w.submit(ctx, c.sizes.header + c.sizes.per_jd)?
                            }
                            Arrivals::Think => w.think(ctx),
                        }
                    }
                    other => {
                        return Err(HierarchyError::Protocol(format!(
                            "workstation got {}",
                            other.kind()
                        )));
                    }
                }
                Ok(())
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, tag: u64) -> Result<(), HierarchyError> {
        let c = Rc::clone(&self.config);
        match &mut self.node {
            Node::Leaf(l) => l.on_timer(ctx, &c, tag),
            Node::Workstation(w) => w.submit(ctx, c.sizes.header + c.sizes.per_jd),
            Node::Scheduler(_) => Err(HierarchyError::Protocol("scheduler timer".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// alzoubi-unit-examples (b): channel A one branch of 305×4 CPUs, channel B two branches of
    /// 64×2; N = 10 and an RFC on a B branch: ceil(128 / 1476 × 10) = 1.
    #[test]
    fn b_share_worked_example() {
        assert_eq!(b_share(128, 1220 + 2 * 128, 10), 1);
        assert_eq!(b_share(1220, 1476, 10), 9);
        // Fig. 20's GSS: channel powers 1:2, three jobs -> 1 and 2.
        assert_eq!((b_share(1, 3, 3), b_share(2, 3, 3)), (1, 2));
        assert_eq!(b_share(0, 0, 5), 1);
    }

    /// alzoubi-unit-examples (e), Fig. 22: user 132.4.4.5 prefers GS1 (132.4.1.1) to GS2
    /// (133.6.6.7), and inside GS1, GS3 (132.4.4.6) to GS4 (132.4.5.5).
    #[test]
    fn butterfly_proximity_fig_22() {
        let a = |s: &str| s.parse::<Address>().unwrap();
        let user = a("132.4.4.5");
        assert!(proximity(user, [a("132.4.1.1")]) > proximity(user, [a("133.6.6.7")]));
        assert!(proximity(user, [a("132.4.4.6")]) > proximity(user, [a("132.4.5.5")]));
        assert_eq!(proximity(user, [a("132.4.4.6")]), 3);
        // No preference when the user's prefix matches no child.
        let far = a("135.4.4.5");
        assert_eq!(
            proximity(far, [a("132.4.1.1")]),
            proximity(far, [a("133.6.6.7")])
        );
        // A11: the best site of a region.
        assert_eq!(proximity(user, [a("132.1.1.0"), a("132.4.4.0")]), 3);
    }
}
