//! Singh, "An end-to-end framework for provisioning based resource and application management
//! in Grids" (USC PhD thesis, 2008; seed 001), chapters 3–5: the models behind
//! `experiments/singh/*.toml`, on `gridsched-provisioning` and `gridsched-workflow`.
//!
//! - [`slots::SinghSlots`] (`singh-slots`): what a conservative-backfilling site advertises
//!   over a whole log (Figs. 4–8).
//! - [`provision::SinghProvision`] (`singh-provision`): one workflow submission, provisioned
//!   by MOGA and run best effort (Figs. 13–16, 18, 19).
//! - [`pricing::SinghPricing`] (`singh-pricing`): a site where a share of the jobs reserve
//!   priced slots (Figs. 23–31).

use gridsched_repro::model::Model;
use gridsched_repro::papers::Paper;

pub mod background;
pub mod pricing;
pub mod provision;
pub mod slots;
pub mod var;

/// The document.
pub static PAPER: Paper = Paper {
    key: "singh",
    seed: "001",
    citation: "G. Singh, \"An end-to-end framework for provisioning based resource and application management in Grids\", PhD thesis, University of Southern California, 2008",
    short: "Singh 2008",
    spec: "singh-provisioning.md",
};

/// The models its entries use.
pub fn models() -> Vec<Box<dyn Model>> {
    vec![
        Box::new(slots::SinghSlots),
        Box::new(provision::SinghProvision),
        Box::new(pricing::SinghPricing),
        Box::new(var::SinghVar),
    ]
}
