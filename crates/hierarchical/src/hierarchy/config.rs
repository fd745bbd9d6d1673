//! The interpretation switches of hierarchical scheduling (spec §3.11), each with the spec's
//! proposed default, and the message sizes of §2.5.

use gridsched_sim::Millis;

use crate::jobs::ExecModel;

/// When a discovery round starts at the GSS (A9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiscoveryTrigger {
    /// Only on an RFJM (or a submission while an RFJM is backlogged): under heavy load raw jobs
    /// wait until some LGS's bag empties. The thesis's literal behaviour.
    #[default]
    Literal,
    /// Also when the GSS has raw jobs and a backlogged RFC.
    Eager,
}

/// When an LGS sends an RFC (A7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RfcRule {
    /// Idle, local queue empty, bag non-empty (the spec's proposal).
    #[default]
    IdleWithBag,
    /// After every completed job while the bag is non-empty, even with jobs queued (L1074 read
    /// literally: "once it completes a job").
    EveryCompletion,
}

/// What `N` in `B_share = ceil(B_pwr / ΣC_pwr × N)` counts (A6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShareBase {
    /// Every non-raw, not yet started job of the scheduler's JST, all channels: unassigned at
    /// the scheduler plus tentatively assigned below it (the spec's proposal).
    #[default]
    Tentative,
    /// Only the jobs unassigned at the scheduler.
    Unassigned,
}

/// How Butterfly judges closeness of a user to a branch (A11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Proximity {
    /// The best common-prefix octets between the user's site and any site of the branch.
    #[default]
    BestSite,
    /// The common prefix with the child's own (host node, A5) address, as the thesis's Fig. 22
    /// example compares child IPs.
    ChildAddress,
}

/// Which job Load-Balance takes from the donor branch (A12). The donor is always the branch
/// with the largest excess of assigned jobs over its own `B_share` (lowest port on ties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DonorJob {
    /// The most recently assigned tentative job (the spec's proposal).
    #[default]
    Newest,
    /// The oldest.
    Oldest,
}

/// Which backlogged RFC a scheduler serves first when jobs arrive for a channel (A22). The
/// thesis's self-scheduling pushes jobs "upon receiving an RFC"; when jobs reach a scheduler
/// that holds RFCs from several branches of their channel (the jobs arrived after the RFCs),
/// it does not say which branch gets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RfcOrder {
    /// The branch closest to the user of the oldest waiting job (A11's proximity; ties by RFC
    /// arrival): Butterfly's premise (L1147: a job is rescheduled on the closest resource "once
    /// it becomes available if it had been busy when the user's job was scheduled"; L1160:
    /// "Suppose the GSS pushes the job to GS2 because GS1 is busy") is that a job goes to the
    /// closest branch that can take it.
    #[default]
    Closest,
    /// In RFC-arrival order, whoever the job's user is (spec §3.3's pseudo-code, "in
    /// RFC-arrival order"; the only order before issue 31).
    Arrival,
}

/// Where the non-leaf schedulers run (A5). The thesis's 2400 nodes are all servers or
/// workstations and it never says which node a GS occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchedulerHost {
    /// Co-hosted on the first (lowest-addressed) server of its region (the spec's proposal).
    #[default]
    FirstServer,
    /// On a node of its own: host `H − level` (1-based, `H` hosts per site) of the last site of
    /// its region, so the GSS of the thesis grid sits on 134.4.10.15, the backbone-131
    /// scheduler on 131.4.10.14, the net-131.1 one on 131.1.10.13 and the half-nets on
    /// 131.1.5.12 and 131.1.10.12; regions of one level are disjoint, so no two schedulers
    /// share a node. Such a node exists only where the site has fewer than `H − level`
    /// servers (true for every site of the thesis grid, at most 6 servers of 15 hosts); where
    /// it does not, that scheduler falls back to [`SchedulerHost::FirstServer`]. The
    /// workstation on a chosen node is taken out of the grid's users (it never submits), so
    /// the node is otherwise unused; the thesis grid then has 1880 − 53 = 1827 users under H1.
    DedicatedNode,
}

/// What DESTROY_CHANNELS (sent with every round's JOB_BLOCK) does to a scheduler's channels
/// (A10). Both keep the per-round barrier: a scheduler reports its BAG up only when every
/// child's BAG of that round is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChannelRebuild {
    /// Rebuild keeping equivalent channels: a channel and its branches' powers survive the
    /// round and are updated as the round's BAGs arrive (the spec's proposal).
    #[default]
    KeepEquivalent,
    /// Drop every channel on each DESTROY_CHANNELS and rebuild from scratch from the round's
    /// BAGs: until they are in, the scheduler knows no power, so `B_share` is 1 for every
    /// RFC it serves in the meantime. The job tables (JST) are kept.
    DestroyAll,
}

/// Which workstations submit in Exp 1 when `N` is below the number of workstations (A18):
/// one job each at t = 0, each resubmitting on receiving its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Exp1Workstations {
    /// `N` workstations drawn at random from the run's `submitters` stream (the spec's
    /// proposal).
    #[default]
    Random,
    /// The first `N` workstations in address order.
    First,
}

/// When a workstation submits its first job under Exp 2 and Exp 3 (A23); later jobs always
/// follow a think time after the previous job's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FirstSubmission {
    /// After a first think time Exp(mean), like every later job: a workstation "stays
    /// inactive until a user submits a request" (L1829) and users arrive at the workstation's
    /// rate (the spec's proposal, §3.1).
    #[default]
    AfterThink,
    /// At t = 0, by the workstations Exp 1 would start ([`Exp1Workstations`]: `min(N,
    /// workstations)` of them), think times only between jobs: a burst of first submissions.
    AtZero,
}

/// Resource (OS) changes on the servers (Exp 5, spec §3.6 "Resource-change process", A21).
///
/// At t = 0 each server (its initial OS is the grid's) picks a change-interval mean uniformly
/// from [`OsChanges::means_ms`]; changes form a Poisson process (the next one after
/// Exp(mean)); at each change the server re-draws its OS uniformly over the three (possibly
/// the same one) and re-draws its mean. Every server draws from its own stream
/// `os-change/{server}` of the run's key, so the jobs, think times and submitters are the
/// same as in a constant-resource run (common random numbers). Changes stop once every job
/// of the workload has completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OsChanges {
    /// The change-interval means a server draws from, ms (non-empty, each > 0).
    pub means_ms: Vec<Millis>,
}

impl OsChanges {
    /// One day, ms.
    pub const DAY_MS: Millis = 86_400_000;

    /// The thesis's means (L1913): 1 day, 3 days, 1 week, 1 month, 3 months and 6 months,
    /// with a month of 30 days (A21).
    pub fn thesis() -> OsChanges {
        let d = OsChanges::DAY_MS;
        OsChanges {
            means_ms: vec![d, 3 * d, 7 * d, 30 * d, 90 * d, 180 * d],
        }
    }

    /// Changes with the given means (ms), e.g. minutes in tests to force many changes.
    pub fn with_means(means_ms: Vec<Millis>) -> OsChanges {
        OsChanges { means_ms }
    }
}

/// How the trees of a forest with more than one tree (H4, H16) peer (spec §3.9, A16). With
/// one tree (H1) there is nothing to peer and the switch is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peering {
    /// Every tree runs alone on its own workstations' jobs (the forest before §3.9).
    Isolated,
    /// The roots are PGSSs: a PGSS queues its own workstations' SUBMITs as a GSS does and
    /// floods them as REQUEST_FILEs to its neighbour PGSSs (H4: the complete graph of the 4;
    /// H16: the 3 other nets of the same backbone and the same-index net of the next
    /// backbone, a ring). Request files are always forwarded, even when accepted, with TTL − 1
    /// (dropped at 0) and duplicate suppression by job id; a foreign request is accepted into
    /// the receiving tree's raw queue by [`AcceptForeign`]. The executing LGS OFFERs straight
    /// to the workstation, which takes the first offer; an LGS whose offer is ignored moves on
    /// after [`HierarchyConfig::offer_timeout`]. A PGSS running a foreign job tells the job's
    /// own PGSS (REMOTE_START) when it starts; the job's own PGSS, on learning it started
    /// (there or in its own tree), floods a PURGE (same TTL) so every other tree drops its
    /// copy.
    Flood {
        /// Hops a request file (and a purge) travels (§3.9's proposal: 100).
        ttl: u32,
    },
}

impl Default for Peering {
    /// `Flood { ttl: 100 }` (§3.9).
    fn default() -> Self {
        Peering::Flood { ttl: 100 }
    }
}

/// Which foreign requests a PGSS accepts (§3.9 "Acceptance", A16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AcceptForeign {
    /// Iff the tree has a channel matching the job's OS (the spec's proposal). Before the
    /// tree's first discovery round has reported any channel the PGSS cannot tell and
    /// accepts; the round then files the job as unmatched if no channel holds its OS.
    #[default]
    MatchingChannel,
    /// Iff the tree has a matching channel with an idle server: the PGSS holds an unserved
    /// RFC on that channel (§3.9's alternative knob).
    IdleMatchingServer,
}

/// Sizes of control messages (§2.5: the thesis says "few bytes"; A-proposal of §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageSizes {
    /// Every packet's header (source, destination, length).
    pub header: u64,
    /// Per job description carried (SUBMIT, JOB_BLOCK, PUSH).
    pub per_jd: u64,
    /// Per bag slot (BAG).
    pub per_bag_slot: u64,
}

impl Default for MessageSizes {
    fn default() -> Self {
        MessageSizes {
            header: 20,
            per_jd: 100,
            per_bag_slot: 1,
        }
    }
}

/// Everything hierarchical scheduling leaves open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyConfig {
    /// Butterfly (§3.4) and Load-Balance (§3.5), on or off together as in Exp 4 (L1880).
    pub butterfly_lb: bool,
    /// A9.
    pub discovery_trigger: DiscoveryTrigger,
    /// A8: an LGS asks for discovery (RFJM) when its bag holds fewer jobs than this.
    pub rfjm_threshold: usize,
    /// A7.
    pub rfc_rule: RfcRule,
    /// A6.
    pub share_base: ShareBase,
    /// A11.
    pub proximity: Proximity,
    /// A12.
    pub donor_job: DonorJob,
    /// A22.
    pub rfc_order: RfcOrder,
    /// A5.
    pub scheduler_host: SchedulerHost,
    /// A10.
    pub channel_rebuild: ChannelRebuild,
    /// A18.
    pub exp1_workstations: Exp1Workstations,
    /// A23.
    pub first_submission: FirstSubmission,
    /// A1: compute time.
    pub exec: ExecModel,
    /// §2.5 sizes.
    pub sizes: MessageSizes,
    /// How long an LGS waits for the workstation to accept an offer before moving on (the
    /// 100 ms of L1437; in one tree only a duplicate offer after a Butterfly/Load-Balance race
    /// is ever ignored).
    pub offer_timeout: Millis,
    /// Resource changes (spec §3.6, §3.11 A19–A21, Exp 5): `None` (the default) keeps every
    /// server's OS constant, as in Exps 1–4; `Some` runs the OS-change process of
    /// [`OsChanges`] on every server, and Fallback (always on) reschedules the tentative jobs
    /// a change strands. A run with `None` is the same, event for event, as before Fallback
    /// existed.
    pub os_changes: Option<OsChanges>,
    /// Peering of the trees of H4 / H16 (spec §3.9, §3.11 A16); ignored under H1.
    pub peering: Peering,
    /// Which foreign requests a PGSS accepts under [`Peering::Flood`] (spec §3.9, A16).
    pub accept_foreign: AcceptForeign,
    /// Check every delivery against `sent_at + path delay` (tests; costs a second delay
    /// computation per message).
    pub audit_delivery: bool,
}

impl Default for HierarchyConfig {
    fn default() -> Self {
        HierarchyConfig {
            butterfly_lb: true,
            discovery_trigger: DiscoveryTrigger::Literal,
            rfjm_threshold: 1,
            rfc_rule: RfcRule::IdleWithBag,
            share_base: ShareBase::Tentative,
            proximity: Proximity::BestSite,
            donor_job: DonorJob::Newest,
            rfc_order: RfcOrder::Closest,
            scheduler_host: SchedulerHost::FirstServer,
            channel_rebuild: ChannelRebuild::KeepEquivalent,
            exp1_workstations: Exp1Workstations::Random,
            first_submission: FirstSubmission::AfterThink,
            exec: ExecModel::default(),
            sizes: MessageSizes::default(),
            offer_timeout: 100,
            os_changes: None,
            peering: Peering::default(),
            accept_foreign: AcceptForeign::default(),
            audit_delivery: false,
        }
    }
}
