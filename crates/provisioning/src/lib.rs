//! Singh (2008), "An end-to-end framework for provisioning based resource and application
//! management in Grids", chapters 3–4 (spec `singh-provisioning.md`): a site that advertises
//! the holes of its conservative-backfilling schedule as slots, and a user who provisions a
//! workflow on them.
//!
//! - [`slot`]: the slot `<s, n, d, c, f, b, e>` and Table 1's costs.
//! - [`slotset`]: the slot set and Figure 2, "scheduling a task on a set of slots" (also
//!   with release times, for plan evaluation).
//! - [`holes`]: the slots of a conservative-backfilling schedule (the batch simulator's),
//!   its free area cut into per-processor holes: the default slot source.
//! - [`site`]: chapter 3's incremental Figure 2 site ([`SlotSite`]), advertisements and the
//!   advertisement horizon; why Figure 2 is not exactly conservative backfilling.

pub mod holes;
pub mod site;
pub mod slot;
pub mod slotset;

pub use holes::{Busy, HolesError, holes, schedule_holes};
pub use site::{Advertisement, Horizon, SiteError, SlotSite};
pub use slot::{HOUR, Offer, Refusal, Request};
pub use slotset::{Consume, Found, Merge, OPEN, Slot, SlotSet, Use};
