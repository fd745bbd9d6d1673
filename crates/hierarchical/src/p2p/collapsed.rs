//! [`Flooding::Collapsed`](super::Flooding): flood collapse and retry skipping (spec §7 item 7)
//! on a dedicated event loop.
//!
//! Events mirror the naive engine's deliveries that change state (SUBMIT at the entry, OFFER,
//! input, output, the offer timeout, compute end, output delivered); FORWARDs are replayed
//! when the millisecond's SUBMITs are all in, by [`Flooder::flood_many`], and retries that
//! cannot succeed never become events: effective ticks live in their own heap, merged into
//! the event order where the naive engine's retry timer would fire (see
//! [`Flooding::Collapsed`](super::Flooding::Collapsed)). A workstation without an offer
//! waits in its OS's waiting list until its next effective tick; a peer whose `free_at` goes
//! down pulls the ticks of the waiting workstations that reach it forward.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use gridsched_sim::{Counters, Millis, SimRng};

use super::flood::Flooder;
use super::naive::record;
use super::peer::PeerCore;
use super::{
    ACCEPT, Acceptance, EngineOut, FORWARD, INPUT, OFFER, OUTPUT, SUBMIT, Setup, protocol, think,
};
use crate::hierarchy::{JobRecord, RunError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A workstation's think time is over.
    Submit {
        ws: u32,
    },
    /// Its SUBMIT reaches the entry peer: the whole flood.
    Request {
        ws: u32,
        attempt: u64,
    },
    Offer {
        ws: u32,
        peer: u32,
        job: u32,
    },
    OfferTimeout {
        peer: u32,
        job: u32,
    },
    Input {
        peer: u32,
        job: u32,
    },
    ExecDone {
        peer: u32,
    },
    Output {
        ws: u32,
        peer: u32,
        job: u32,
    },
    Delivered {
        peer: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Current {
    job: u32,
    rt: Millis,
    served: Option<(u32, Millis)>,
    /// The last tick (attempt) flooded.
    last_k: u64,
    /// Submission order (ties of retry ticks go by it, as the naive engine's timer chains
    /// started in this order).
    order: u32,
}

#[derive(Debug)]
struct Ws {
    rng: SimRng,
    current: Option<Current>,
    /// Position in its OS's waiting list.
    waiting: Option<u32>,
    epoch: u32,
    next_tick: Millis,
}

/// The future-event list: `(time, sequence)` order, FIFO on ties like the engine's
/// [`gridsched_sim::EventQueue`], and each event's push time, which decides where a retry
/// tick falls among the events of its millisecond.
#[derive(Debug, Default)]
struct Queue {
    heap: BinaryHeap<Reverse<(Millis, u64, Millis, Ev)>>,
    seq: u64,
}

impl Queue {
    fn push(&mut self, t: Millis, pushed_at: Millis, ev: Ev) {
        self.heap.push(Reverse((t, self.seq, pushed_at, ev)));
        self.seq += 1;
    }

    /// The next event's time and push time.
    fn peek(&self) -> Option<(Millis, Millis)> {
        self.heap.peek().map(|Reverse((t, _, p, _))| (*t, *p))
    }

    fn pop(&mut self) -> Option<(Millis, Ev)> {
        self.heap.pop().map(|Reverse((t, _, _, ev))| (t, ev))
    }
}

/// An effective retry tick: (tick, RT, submission order, workstation, epoch).
type Tick = (Millis, Millis, u32, u32, u32);

/// A request waiting for its millisecond's joint flood.
#[derive(Debug, Clone, Copy)]
struct Pending {
    ws: u32,
    attempt: u64,
    job: u32,
    accepted: u32,
}

struct Engine {
    /// Effective retry ticks: (tick, RT, submission order, workstation, epoch); a tick whose
    /// epoch is no longer its workstation's was rescheduled or cancelled.
    ticks: BinaryHeap<Reverse<Tick>>,
    batch: Vec<Pending>,
    entries: Vec<u32>,
    s: Setup,
    flooder: Flooder,
    peers: Vec<PeerCore>,
    ws: Vec<Ws>,
    /// Waiting workstations per OS.
    waiting: [Vec<u32>; 3],
    queue: Queue,
    now: Millis,
    submitted: u32,
    out: EngineOut,
    records: Vec<JobRecord>,
}

impl Engine {
    fn push(&mut self, t: Millis, ev: Ev) {
        debug_assert!(t >= self.now);
        self.queue.push(t, self.now, ev);
    }

    fn submit(&mut self, w: u32) {
        if self.submitted as usize >= self.s.model.jobs.len() {
            return;
        }
        let job = self.submitted;
        self.submitted += 1;
        debug_assert!(self.ws[w as usize].current.is_none(), "one job at a time");
        self.ws[w as usize].current = Some(Current {
            job,
            rt: self.now,
            served: None,
            last_k: 0,
            order: job,
        });
        let t = self.now + self.s.ws_submit[w as usize];
        self.push(t, Ev::Request { ws: w, attempt: 0 });
    }

    /// The floods of the requests that reached their entries at this millisecond, replayed
    /// together in the naive order against the current state ([`Flooder::flood_many`]).
    fn flush(&mut self) -> Result<(), RunError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let mut batch = std::mem::take(&mut self.batch);
        self.out.messages[SUBMIT] += batch.len() as u64;
        self.entries.clear();
        for b in &mut batch {
            let Some(cur) = self.ws[b.ws as usize].current else {
                return Err(protocol("request without a job"));
            };
            b.job = cur.job;
            b.accepted = 0;
            self.entries.push(self.s.ws_entry[b.ws as usize]);
        }
        let (s, peers, queue, acc) = (
            &self.s,
            &mut self.peers,
            &mut self.queue,
            &mut self.out.acceptances,
        );
        let forwards = self.flooder.flood_many(
            &s.graph,
            &self.entries,
            self.now,
            s.config.hop_count,
            |i, p, t| -> Result<bool, RunError> {
                let b = &mut batch[i as usize];
                let (job, w) = (b.job, b.ws);
                if s.model.peers[p as usize].os != s.model.os(job) {
                    return Ok(false);
                }
                let u = s.model.usage(job, w, p)?;
                let core = &mut peers[p as usize];
                if !core.accepts(t, s.model.slack(u.total())) {
                    return Ok(false);
                }
                if s.config.audit {
                    acc.push(Acceptance {
                        job,
                        attempt: b.attempt,
                        peer: p,
                        at: t,
                        wait: core.free_at.saturating_sub(t),
                        usage: u.total(),
                    });
                }
                core.commit(t, job, w, &u);
                queue.push(
                    t + u.offer,
                    t,
                    Ev::Offer {
                        ws: w,
                        peer: p,
                        job,
                    },
                );
                queue.push(
                    t + s.config.offer_timeout_ms,
                    t,
                    Ev::OfferTimeout { peer: p, job },
                );
                b.accepted += 1;
                Ok(true)
            },
        )?;
        self.out.messages[FORWARD] += forwards;
        for b in &batch {
            let served = self.ws[b.ws as usize]
                .current
                .is_some_and(|c| c.served.is_some());
            if b.accepted == 0 && !served && self.s.servable(b.ws, b.job) {
                self.schedule_retry(b.ws)?;
            }
            // A request nobody reachable can run is abandoned (module docs of `p2p`).
        }
        batch.clear();
        self.batch = batch;
        Ok(())
    }

    /// The first tick `t0 + k·R` (k > last_k, tick ≥ `not_before`) at or after `earliest`.
    fn tick_for(&self, cur: &Current, earliest: Millis, not_before: Millis) -> (u64, Millis) {
        let r = self.s.config.retry_ms;
        let target = earliest.max(not_before);
        let k = target
            .saturating_sub(cur.rt)
            .div_ceil(r)
            .max(cur.last_k + 1);
        (k, cur.rt + k * r)
    }

    /// When a reachable OS-matching peer could first accept this workstation's job: the
    /// minimum over its entry's static reach of `accept_from − latency − submit delay`.
    fn earliest(&self, w: u32, job: u32) -> Result<Millis, RunError> {
        let reach = self.s.static_reach(w);
        let d = self.s.ws_submit[w as usize];
        let mut best = Millis::MAX;
        for &(p, lat) in &reach.by_os[self.s.model.os(job).index()] {
            let core = &self.peers[p as usize];
            // An idle peer accepts at once: no need to look further.
            if core.free_at == 0 {
                return Ok(0);
            }
            let u = self.s.model.usage(job, w, p)?;
            let t = core
                .accept_from(self.s.model.slack(u.total()))
                .saturating_sub(lat + d);
            best = best.min(t);
        }
        Ok(best)
    }

    fn schedule_retry(&mut self, w: u32) -> Result<(), RunError> {
        let cur = self.ws[w as usize].current.expect("waiting with a job");
        let earliest = self.earliest(w, cur.job)?;
        let (_, t) = self.tick_for(&cur, earliest, self.now);
        let os = self.s.model.os(cur.job).index();
        let ws = &mut self.ws[w as usize];
        ws.epoch = ws.epoch.wrapping_add(1);
        ws.next_tick = t;
        let epoch = ws.epoch;
        if ws.waiting.is_none() {
            ws.waiting = Some(self.waiting[os].len() as u32);
            self.waiting[os].push(w);
        }
        self.ticks.push(Reverse((t, cur.rt, cur.order, w, epoch)));
        Ok(())
    }

    fn unwait(&mut self, w: u32) {
        let Some(pos) = self.ws[w as usize].waiting.take() else {
            return;
        };
        let os = self
            .s
            .model
            .os(self.ws[w as usize].current.expect("job").job);
        let list = &mut self.waiting[os.index()];
        list.swap_remove(pos as usize);
        if let Some(&moved) = list.get(pos as usize) {
            self.ws[moved as usize].waiting = Some(pos);
        }
    }

    /// A peer's `free_at` went down: pull forward the ticks of the waiting workstations whose
    /// entry reaches it.
    fn notify(&mut self, p: u32) -> Result<(), RunError> {
        let os = self.s.model.peers[p as usize].os.index();
        for i in 0..self.waiting[os].len() {
            let w = self.waiting[os][i];
            let entry = self.s.ws_entry[w as usize];
            let lat = self.s.reach[entry as usize].as_ref().expect("entry").lat[p as usize];
            if lat == Millis::MAX {
                continue;
            }
            let cur = self.ws[w as usize].current.expect("waiting with a job");
            let u = self.s.model.usage(cur.job, w, p)?;
            let earliest = self.peers[p as usize]
                .accept_from(self.s.model.slack(u.total()))
                .saturating_sub(lat + self.s.ws_submit[w as usize]);
            let (_, t) = self.tick_for(&cur, earliest, self.now);
            if t < self.ws[w as usize].next_tick {
                let ws = &mut self.ws[w as usize];
                ws.epoch = ws.epoch.wrapping_add(1);
                ws.next_tick = t;
                let epoch = ws.epoch;
                self.ticks.push(Reverse((t, cur.rt, cur.order, w, epoch)));
            }
        }
        Ok(())
    }

    /// An effective retry tick: the resubmissions it stands for (the skipped ones are
    /// counted with their SUBMIT and FORWARDs), then its SUBMIT.
    fn fire_retry(&mut self, w: u32, epoch: u32) -> Result<(), RunError> {
        let ws = &mut self.ws[w as usize];
        if ws.epoch != epoch {
            self.out.counters.cancelled += 1;
            return Ok(());
        }
        self.out.counters.timers += 1;
        let Some(cur) = ws.current.as_mut().filter(|c| c.served.is_none()) else {
            return Err(protocol("retry of a served or absent job"));
        };
        let r = self.s.config.retry_ms;
        let k = (self.now - cur.rt) / r;
        debug_assert_eq!(cur.rt + k * r, self.now);
        let skipped = k - cur.last_k - 1;
        cur.last_k = k;
        self.out.resubmissions += skipped + 1;
        let forwards = self.s.static_reach(w).forwards;
        self.out.messages[SUBMIT] += skipped;
        self.out.messages[FORWARD] += skipped * forwards;
        self.unwait(w);
        let t = self.now + self.s.ws_submit[w as usize];
        self.push(t, Ev::Request { ws: w, attempt: k });
        Ok(())
    }

    fn start(&mut self, p: u32) {
        if let Some((_, exec)) = self.peers[p as usize].try_start(self.now) {
            let t = self.now + exec;
            self.push(t, Ev::ExecDone { peer: p });
        }
    }

    fn handle(&mut self, ev: Ev) -> Result<(), RunError> {
        let c = &mut self.out.counters;
        match ev {
            Ev::Submit { ws } => {
                c.timers += 1;
                self.submit(ws);
            }
            Ev::Request { .. } => return Err(protocol("requests are batched by the event loop")),
            Ev::Offer { ws: w, peer, job } => {
                c.messages += 1;
                self.out.messages[OFFER] += 1;
                let ws = &mut self.ws[w as usize];
                let Some(cur) = ws
                    .current
                    .as_mut()
                    .filter(|c| c.job == job && c.served.is_none())
                else {
                    return Ok(()); // a later offer: ignored, the peer times out
                };
                cur.served = Some((peer, self.now));
                // Cancels any pending retry.
                ws.epoch = ws.epoch.wrapping_add(1);
                self.unwait(w);
                self.out.messages[ACCEPT] += 1;
                self.out.messages[INPUT] += 1;
                let slot = self.peers[peer as usize]
                    .slot_mut(job)
                    .ok_or_else(|| protocol(format!("offer of job {job} without a slot")))?;
                // The ACCEPT arrives before the timeout (checked by run_p2p): mark it now.
                slot.accepted = true;
                let t = slot.input_at;
                self.push(t, Ev::Input { peer, job });
            }
            Ev::OfferTimeout { peer, job } => {
                let core = &mut self.peers[peer as usize];
                match core.slot_mut(job) {
                    Some(s) if !s.accepted => {
                        c.timers += 1;
                        if core.release(job) {
                            self.notify(peer)?;
                        }
                        self.start(peer);
                    }
                    _ => c.cancelled += 1,
                }
            }
            Ev::Input { peer, job } => {
                c.messages += 1;
                self.peers[peer as usize]
                    .input_arrived(self.now, job)
                    .map_err(protocol)?;
                self.start(peer);
            }
            Ev::ExecDone { peer } => {
                c.timers += 1;
                let r = self.peers[peer as usize]
                    .running
                    .ok_or_else(|| protocol("exec end while idle"))?;
                let t = self.now + r.output;
                self.push(
                    t,
                    Ev::Output {
                        ws: r.ws,
                        peer,
                        job: r.job,
                    },
                );
                self.push(t, Ev::Delivered { peer });
            }
            Ev::Output { ws: w, peer, job } => {
                c.messages += 1;
                self.out.messages[OUTPUT] += 1;
                let Some(Current {
                    job: j,
                    rt,
                    served: Some((p, sjtt)),
                    ..
                }) = self.ws[w as usize].current.take()
                else {
                    return Err(protocol(format!("output of job {job} unexpected")));
                };
                if j != job || p != peer {
                    return Err(protocol(format!("output of job {job} from the wrong peer")));
                }
                self.records
                    .push(record(&self.s, w, job, peer, rt, sjtt, self.now));
                if self.s.continuous {
                    self.submit(w);
                } else {
                    let t = think(&mut self.ws[w as usize].rng, self.s.think_mean[w as usize]);
                    self.push(self.now + t, Ev::Submit { ws: w });
                }
            }
            Ev::Delivered { peer } => {
                c.timers += 1;
                if self.peers[peer as usize].delivered() {
                    self.notify(peer)?;
                }
                self.start(peer);
            }
        }
        Ok(())
    }
}

/// Runs the collapsed engine.
pub(crate) fn run(mut setup: Setup, flooder: Flooder) -> Result<EngineOut, RunError> {
    let rngs = std::mem::take(&mut setup.rngs);
    let ws = rngs
        .into_iter()
        .map(|rng| Ws {
            rng,
            current: None,
            waiting: None,
            epoch: 0,
            next_tick: Millis::MAX,
        })
        .collect();
    let mut e = Engine {
        ticks: BinaryHeap::new(),
        batch: Vec::new(),
        entries: Vec::new(),
        peers: (0..setup.model.peers.len())
            .map(|_| PeerCore::default())
            .collect(),
        s: setup,
        flooder,
        ws,
        waiting: Default::default(),
        queue: Queue::default(),
        now: 0,
        submitted: 0,
        out: EngineOut {
            counters: Counters::default(),
            ..EngineOut::default()
        },
        records: Vec::new(),
    };
    for i in 0..e.s.initial.len() {
        let (w, t) = e.s.initial[i];
        e.push(t, Ev::Submit { ws: w });
    }
    let r = e.s.config.retry_ms;
    loop {
        gridsched_sim::cancel::checkpoint();
        // The naive engine set the timer of a tick at `t` at `t − R` (its previous tick, or
        // the submission): it fires after the events at `t` queued before then and before
        // those queued after. Ticks of one millisecond go by (RT, submission order), the
        // order in which their timer chains started.
        let main = e.queue.peek();
        let tick = e.ticks.peek().map(|&Reverse(k)| k);
        let take_tick = match (main, tick) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some((tm, pushed)), Some(k)) => k.0 < tm || (k.0 == tm && pushed + r >= k.0),
        };
        let next = if take_tick {
            tick.map(|k| k.0)
        } else {
            main.map(|m| m.0)
        };
        let Some(t) = next else {
            if e.batch.is_empty() {
                break;
            }
            e.flush()?;
            continue;
        };
        // The requests of this millisecond are all in: flood them together.
        if !e.batch.is_empty() && t != e.now {
            e.flush()?;
            continue;
        }
        debug_assert!(t >= e.now, "time runs forward");
        e.now = t;
        if take_tick {
            if let Some(Reverse((_, _, _, w, epoch))) = e.ticks.pop() {
                e.fire_retry(w, epoch)?;
            }
            continue;
        }
        let Some((_, ev)) = e.queue.pop() else {
            break;
        };
        if let Ev::Request { ws, attempt } = ev {
            e.out.counters.messages += 1;
            e.batch.push(Pending {
                ws,
                attempt,
                job: 0,
                accepted: 0,
            });
            continue;
        }
        // Anything else ends the batch (its floods are replayed before this event).
        e.flush()?;
        e.handle(ev)?;
    }
    e.out.records = std::mem::take(&mut e.records);
    e.out
        .acceptances
        .sort_by_key(|a| (a.at, a.job, a.attempt, a.peer));
    Ok(e.out)
}
