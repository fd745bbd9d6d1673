//! Al-Zoubi (2006), *Hierarchical Scheduling in Grid Systems* (seed 003; spec
//! `alzoubi-hierarchical.md`): Grid schedulers organised as a tree over an Internet-like
//! network, against a peer-to-peer baseline.
//!
//! The thesis's result is about *communication*: a hierarchy discovers resources and hands
//! out jobs with few messages, while peers flood each other. Its simulator (DEVS CD++) was a
//! network of cables and routers with the Grid logic in the nodes, and so is this crate's
//! model, in two layers kept apart as the thesis kept them (its Grid code "can be moved to
//! real machines"):
//!
//! - the **network** ([`address`], [`network`]): 2400 nodes addressed `B.N.W.H` (4 backbones ×
//!   4 nets × 10 sites × 15 hosts), static prefix routing and the per-cable stop-and-wait
//!   delay that reproduces the thesis's Table 1 to the millisecond (spec §2.1);
//! - the **nodes**: actors of [`gridsched_sim::Simulation`], the paper-agnostic
//!   message-driven engine (spec §7), whose messages the network times through a
//!   [`Placement`] of actors on nodes.
//!
//! This is the first part of issue 16: the engine and the network. The grid of §2.2 (sites,
//! servers, workstations), the job model and the schedulers (self-discovery, adaptive child
//! scheduling, P2P, hybrids) come next, on top of these two.

pub mod address;
pub mod network;
pub mod placement;

pub use address::{Address, AddressError, NodeId, Topology};
pub use network::{
    Cable, Cables, ConfigError, DelayError, Level, Network, NetworkConfig, PathClass, Rounding,
    Route, SelfDelivery,
};
pub use placement::Placement;
