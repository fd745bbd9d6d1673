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
//! - the **grid** ([`grid`], [`jobs`]): 160 sites, 520 servers of Table 2's seven types with
//!   their OSes, 1880 workstations (spec §2.2), and the job model with the execution-time
//!   calibration (§2.4), drawn per job index so every system of a run sees the same jobs;
//! - the **nodes** ([`hierarchy`]): workstations, schedulers and LGS/servers as actors of
//!   [`gridsched_sim::Simulation`], the paper-agnostic message-driven engine (spec §7),
//!   whose messages the network times through a [`Placement`] of actors on nodes:
//!   self-discovery with bags and channels, adaptive child scheduling with RFCs and
//!   `B_share`, Butterfly, Load-Balance and Fallback under OS changes (§3.2–3.7), on a tree
//!   rooted at level 0, 1 or 2 (H1, H4, H16) whose roots peer in the hybrids (§3.9);
//! - the **P2P baseline** ([`p2p`], §3.8): every server a peer on a nearest-neighbour
//!   overlay, flooding with duplicate suppression and 2-minute resubmission, literally
//!   (`Flooding::Naive`) or with flood collapse and retry skipping (`Flooding::Collapsed`,
//!   the same outcomes, tested).
//!
//! The experiments `alzoubi-table-1`, `alzoubi-calib-trt520`, `alzoubi-table-4` … `-8` (and
//! their figures 34–77) and `gridsched hierarchy` use it.

pub mod address;
pub mod grid;
pub mod hierarchy;
pub mod jobs;
pub mod network;
pub mod p2p;
pub mod placement;

pub use address::{Address, AddressError, NodeId, Topology};
pub use grid::{Grid, GridConfig, GridError, Os, Server, ServerType, TABLE_2};
pub use jobs::{ExecModel, JobError, JobSpec, draw_jobs};
pub use network::{
    Cable, Cables, ConfigError, DelayError, Level, Network, NetworkConfig, PathClass, Rounding,
    Route, SelfDelivery,
};
pub use placement::Placement;
