//! One flood in isolation, in the naive engine's delivery order: the core of flood collapse
//! (spec §7 item 7 (a)).
//!
//! Why a private event list: in the naive engine a request reaches peers as FORWARD messages
//! ordered by `(arrival time, send order)`; a peer that has seen the `(job, attempt)` drops it,
//! a peer that accepts stops forwarding, and every other peer forwards to all its neighbours
//! with `hop − 1` while `hop > 1`. Replaying exactly that on a small reusable heap gives the
//! same peers, in the same order, at the same times, with the same FORWARD count, as long as
//! nothing else happens at those peers during the flood (a few ms at most: control messages
//! take 0 ms inside a backbone and 6 ms across). Accepting peers block the flood, so the reach
//! is not a static list; a static list is only used to decide whether a retry can succeed at
//! all ([`StaticReach`]), where no peer accepts and the flood is the static one.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use gridsched_sim::Millis;

use super::graph::NeighbourGraph;
use super::peer::Model;
use crate::network::DelayError;

/// A FORWARD (or the SUBMIT) in flight: (arrival, send order, flood, peer, hop count).
type Delivery = (Millis, u64, u32, u32, u32);

/// The flood machinery: edge latencies and reusable buffers.
#[derive(Debug)]
pub(crate) struct Flooder {
    /// Control-message latency of every directed edge, aligned with the graph's adjacency.
    lat: Vec<Vec<Millis>>,
    /// Deliveries later than the current time (a FORWARD across backbones takes 6 ms).
    heap: BinaryHeap<Reverse<Delivery>>,
    /// Deliveries at the current time, in send order. Most FORWARDs take 0 ms, so most
    /// deliveries go here and skip the heap: a delivery at the current time always has a
    /// later send order than the ones already here, and the heap's deliveries for a time are
    /// moved here (in their send order, which precedes every later send) when the clock
    /// reaches it.
    fifo: VecDeque<Delivery>,
    /// `seen[flood · peers + peer] == stamp`: the peer has seen that flood (one stamp per
    /// replay, so nothing is cleared between replays).
    seen: Vec<u32>,
    stamp: u32,
    peers: usize,
}

impl Flooder {
    pub fn new(graph: &NeighbourGraph, model: &Model) -> Result<Flooder, DelayError> {
        let bytes = model.jd_bytes();
        let mut lat = Vec::with_capacity(graph.peers());
        for p in 0..graph.peers() as u32 {
            let from = model.peers[p as usize].node;
            lat.push(
                graph
                    .neighbours(p)
                    .iter()
                    .map(|&q| {
                        model
                            .network
                            .delay(from, model.peers[q as usize].node, bytes)
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        Ok(Flooder {
            lat,
            heap: BinaryHeap::new(),
            fifo: VecDeque::new(),
            seen: vec![0; graph.peers()],
            stamp: 0,
            peers: graph.peers(),
        })
    }

    /// Floods from `entry`, whose SUBMIT arrives at `t0` with hop count `hop`. `visit(peer,
    /// time)` is called once per peer reached, in delivery order; it returns whether the peer
    /// accepts (and so does not forward). Returns the number of FORWARD messages sent.
    pub fn flood<E>(
        &mut self,
        graph: &NeighbourGraph,
        entry: u32,
        t0: Millis,
        hop: u32,
        mut visit: impl FnMut(u32, Millis) -> Result<bool, E>,
    ) -> Result<u64, E> {
        self.flood_many(graph, &[entry], t0, hop, |_, p, t| visit(p, t))
    }

    /// Several floods whose SUBMITs reach their entries at the same millisecond `t0`, in this
    /// order, replayed *together*: the naive engine interleaves them message by message (all
    /// SUBMITs first, then the FORWARDs in the order they were sent), so a peer meets them in
    /// that order, not flood after flood. `visit(i, peer, time)` is called for flood `i`.
    /// Returns the number of FORWARD messages sent.
    pub fn flood_many<E>(
        &mut self,
        graph: &NeighbourGraph,
        entries: &[u32],
        t0: Millis,
        hop: u32,
        mut visit: impl FnMut(u32, u32, Millis) -> Result<bool, E>,
    ) -> Result<u64, E> {
        let need = entries.len() * self.peers;
        if self.seen.len() < need {
            self.seen.resize(need, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.heap.clear();
        self.fifo.clear();
        let mut seq = 0u64;
        let mut forwards = 0u64;
        for (i, &e) in entries.iter().enumerate() {
            self.fifo.push_back((t0, seq, i as u32, e, hop));
            seq += 1;
        }
        loop {
            if self.fifo.is_empty() {
                let Some(&Reverse((t, ..))) = self.heap.peek() else {
                    break;
                };
                while let Some(&Reverse(d)) = self.heap.peek() {
                    if d.0 != t {
                        break;
                    }
                    self.heap.pop();
                    self.fifo.push_back(d);
                }
            }
            let Some((t, _, i, p, h)) = self.fifo.pop_front() else {
                break;
            };
            let slot = &mut self.seen[i as usize * self.peers + p as usize];
            if std::mem::replace(slot, self.stamp) == self.stamp || visit(i, p, t)? || h <= 1 {
                continue;
            }
            for (&q, &d) in graph.neighbours(p).iter().zip(&self.lat[p as usize]) {
                forwards += 1;
                let delivery = (t + d, seq, i, q, h - 1);
                if d == 0 {
                    self.fifo.push_back(delivery);
                } else {
                    self.heap.push(Reverse(delivery));
                }
                seq += 1;
            }
        }
        Ok(forwards)
    }
}

/// What a flood from one entry reaches when no peer accepts.
#[derive(Debug, Clone)]
pub(crate) struct StaticReach {
    /// Latency from the entry's receipt of the SUBMIT to each peer (`Millis::MAX`:
    /// unreachable within the hop count).
    pub lat: Vec<Millis>,
    /// The reached peers of each OS (index [`Os::index`](crate::grid::Os::index)), in
    /// delivery order, with their latency.
    pub by_os: [Vec<(u32, Millis)>; 3],
    /// FORWARD messages of such a flood.
    pub forwards: u64,
}

impl StaticReach {
    pub fn of(
        flooder: &mut Flooder,
        graph: &NeighbourGraph,
        model: &Model,
        entry: u32,
        hop: u32,
    ) -> StaticReach {
        let mut lat = vec![Millis::MAX; graph.peers()];
        let mut by_os: [Vec<(u32, Millis)>; 3] = Default::default();
        let forwards = flooder
            .flood::<std::convert::Infallible>(graph, entry, 0, hop, |p, t| {
                lat[p as usize] = t;
                by_os[model.peers[p as usize].os.index()].push((p, t));
                Ok(false)
            })
            .unwrap_or_else(|e| match e {});
        StaticReach {
            lat,
            by_os,
            forwards,
        }
    }
}
