//! gridsched's reproduction harness: the experiment registry, sweeps, claims, plots and report.

pub mod claims;
pub mod plot;
pub mod table;
