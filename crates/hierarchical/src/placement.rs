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
}

impl Placement {
    /// Actor `i` runs on `hosts[i]`; every host must be a node of the network.
    pub fn new(network: Network, hosts: Vec<NodeId>) -> Result<Placement, DelayError> {
        let nodes = network.topology().nodes() as usize;
        if let Some(&bad) = hosts.iter().find(|h| h.index() >= nodes) {
            return Err(DelayError::UnknownNode(bad));
        }
        Ok(Placement { network, hosts })
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
        self.network.delay(from, to, bytes)
    }
}
