//! Actors on nodes: the [`Network`] as the actor engine's [`DelayModel`].
//!
//! Why a separate table: the engine knows actors, the network knows nodes, and the two are not
//! one-to-one — the thesis's 2400 nodes carry 520 servers and 1880 workstations, and the 53
//! non-leaf schedulers of a tree have no node of their own, so by default each is co-hosted on
//! a server and takes its address for latency (spec §2.3, A5; the switch
//! [`SchedulerHost`](crate::hierarchy::SchedulerHost) can give each a node of its own
//! instead). A [`Placement`] says which node each
//! actor runs on; a message between two actors is timed between their nodes.

use gridsched_sim::{ActorId, DelayModel, Millis};

use crate::address::NodeId;
use crate::network::{DelayError, Network};

/// The node of every actor (`hosts[i]` for `ActorId(i)`) over a network.
#[derive(Debug, Clone)]
pub struct Placement {
    network: Network,
    hosts: Vec<NodeId>,
    cache: DelayCache,
}

/// Route delays already computed, by message size and route rise: a run sends millions of
/// messages of a handful of sizes (most are a bare header), and the delay of a size along a
/// rise is a pure function of the two, while computing it costs exact fraction arithmetic per
/// cable (issue 32: 15 % of an Exp 2 run). Direct-mapped; only successful delays are kept,
/// so errors are reported as the network reports them.
#[derive(Debug, Clone)]
struct DelayCache {
    /// `(bytes, rise)` of each entry; `bytes = 0` (never a valid size) marks an empty one.
    keys: Vec<(u64, usize)>,
    delays: Vec<Millis>,
}

impl DelayCache {
    const SLOTS: usize = 256;

    fn new() -> Self {
        DelayCache {
            keys: vec![(0, 0); Self::SLOTS],
            delays: vec![0; Self::SLOTS],
        }
    }

    #[inline]
    fn slot(bytes: u64, rise: usize) -> usize {
        (bytes.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize ^ rise
    }
}

impl Placement {
    /// Actor `i` runs on `hosts[i]`; every host must be a node of the network.
    pub fn new(network: Network, hosts: Vec<NodeId>) -> Result<Placement, DelayError> {
        let nodes = network.topology().nodes() as usize;
        if let Some(&bad) = hosts.iter().find(|h| h.index() >= nodes) {
            return Err(DelayError::UnknownNode(bad));
        }
        Ok(Placement {
            network,
            hosts,
            cache: DelayCache::new(),
        })
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The node an actor runs on.
    pub fn host(&self, actor: ActorId) -> Option<NodeId> {
        self.hosts.get(actor.index()).copied()
    }
}

impl DelayModel for Placement {
    type Error = DelayError;

    fn delay(&mut self, src: ActorId, dst: ActorId, bytes: u64) -> Result<Millis, DelayError> {
        let from = self.host(src).ok_or(DelayError::Unplaced(src))?;
        let to = self.host(dst).ok_or(DelayError::Unplaced(dst))?;
        let route = self.network.route(from, to)?;
        let key = (bytes, route.rise());
        let slot = DelayCache::slot(bytes, route.rise());
        if bytes != 0 && self.cache.keys[slot] == key {
            return Ok(self.cache.delays[slot]);
        }
        let d = self.network.route_delay(route, bytes)?;
        self.cache.keys[slot] = key;
        self.cache.delays[slot] = d;
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The cached delays are the network's, on repeated and colliding sizes and on the
        /// sizes the network refuses (0 bytes).
        #[test]
        fn cached_delays_are_the_networks(
            sends in prop::collection::vec(
                (0u32..40, 0u32..40, prop_oneof![Just(0u64), 1u64..200, 1u64..5_000_000_000]),
                1..300,
            ),
        ) {
            let network = Network::thesis();
            // Hosts spread over sites, nets and backbones (every route rise).
            let hosts: Vec<NodeId> = network.topology().node_ids().step_by(61).take(40).collect();
            let mut p = Placement::new(network.clone(), hosts.clone()).unwrap();
            for (a, b, bytes) in sends {
                let want = network.delay(hosts[a as usize], hosts[b as usize], bytes);
                prop_assert_eq!(p.delay(ActorId(a), ActorId(b), bytes), want);
            }
        }
    }
}
