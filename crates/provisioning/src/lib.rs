//! Singh (2008), "An end-to-end framework for provisioning based resource and application
//! management in Grids", chapters 3–4 (spec `singh-provisioning.md`): a site that advertises
//! the holes of its conservative-backfilling schedule as slots, and a user who provisions a
//! workflow on them.
//!
//! - [`slot`]: the slot `<s, n, d, c, f, b, e>` and Table 1's costs.
//! - [`slotset`]: the slot set and Figure 2, "scheduling a task on a set of slots" (also
//!   with release times, for plan evaluation).
//! - [`holes`](mod@holes): the slots of a conservative-backfilling schedule (the batch simulator's),
//!   its free area cut into per-processor holes: the default slot source.
//! - [`plan`]: plan evaluation, HEFT on slot bins with release times, and the allocation-cost
//!   rules of §2.6.
//! - [`moga`]: MOGA (§2.7) and the α selector (eq. 15).
//! - [`provision`](mod@provision): the advertised slots of several sites, one MOGA run per submission, the
//!   plan per α; load scaling of background traces (§2.15).
//! - [`greedy`]: chapter 7's greedy provisioning with adaptive pricing (Figure 51).
//! - [`besteffort`]: the just-in-time best-effort baseline on the sites' batch queues (§2.4),
//!   single- and multi-site.
//! - [`pricing`]: chapter 5's adaptive slot pricing (Figure 22) under conservative and EASY
//!   backfilling, the query forms (17)–(19) and the eq. 20 start-time choice.
//! - [`reservations`]: chapter 5's site, a best-effort trace where some jobs reserve a priced
//!   slot instead of queueing.
//! - [`var`]: chapter 6's virtual advance reservation (Figure 33) with a queue-wait predictor
//!   built from the site's own history, and the combined VAR + pricing scheme (Figure 45).
//! - [`site`]: chapter 3's incremental Figure 2 site ([`SlotSite`]), advertisements and the
//!   advertisement horizon; why Figure 2 is not exactly conservative backfilling.

pub mod besteffort;
pub mod greedy;
pub mod holes;
pub mod moga;
pub mod plan;
pub mod pricing;
pub mod provision;
pub mod reservations;
pub mod site;
pub mod slot;
pub mod slotset;
pub mod var;

pub use besteffort::{BestEffort, BestEffortError};
pub use greedy::{GreedyError, GreedyPlan, Reservation, provision_greedy};
pub use holes::{Busy, HolesError, holes, schedule_holes};
pub use moga::{MAX_POPULATION, Member, MogaConfig, MogaResult, select};
pub use plan::{App, Candidate, Evaluation, Evaluator, Placement, Schedule, candidates_of};
pub use pricing::{Pricer, PricingError, PricingPolicy, QueuedJob, Quote, SiteState, choose};
pub use provision::{
    Provisioned, WEEK, advertised, offered_load, provision, scale_load, thin_load,
};
pub use reservations::{PricedRun, PricedRunError, ReservationRequest, Reserved, run_priced_site};
pub use site::{Advertisement, Horizon, SiteError, SlotSite};
pub use slot::{HOUR, Offer, Refusal, Request};
pub use slotset::{Consume, Found, Merge, OPEN, Slot, SlotSet, Use};
