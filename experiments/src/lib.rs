//! The experiment entries of gridsched and the paper code behind them.
//!
//! - One TOML file per paper figure or table (`experiments/<paper>/<id>.toml`), plus shared
//!   sweeps (`experiments/<paper>/sweeps/`), embedded at build time so the `gridsched` binary
//!   lists and runs them from any directory. Their quick-scale numbers are pinned by the insta
//!   snapshots in `tests/snapshots/`.
//! - One module per document (`src/<paper>/`): its `Paper` record and the
//!   `Model`s its entries name, each model turning one replication of one sweep point into
//!   metrics by calling that document's algorithm crate.
//!
//! The harness (`gridsched-repro`) knows no document: [`catalog`] registers them here, one line
//! per document. Adding a document is a folder of entries, its module here, its algorithm
//! crate, and one line in [`catalog`].

use gridsched_repro::papers::Catalog;
use gridsched_repro::{HarnessError, Registry};

pub mod alzoubi;
pub mod castillo;
pub mod klusacek;
pub mod kumar;
pub mod logs;
mod memo;
pub mod singh;

include!(concat!(env!("OUT_DIR"), "/sources.rs"));

/// Every document and the models its entries use, in seed order (the report's order), then
/// the real-log checks.
pub fn catalog() -> Catalog {
    Catalog::new()
        .document(&castillo::PAPER, castillo::models())
        .document(&singh::PAPER, singh::models())
        .document(&klusacek::PAPER, klusacek::models())
        .document(&alzoubi::PAPER, alzoubi::models())
        .document(&kumar::PAPER, kumar::models())
        .document(&logs::PAPER, logs::models())
}

/// All experiments, validated against the [`catalog`].
pub fn registry() -> Result<Registry, HarnessError> {
    Registry::from_sources(SOURCES, catalog())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_entry_loads() {
        let registry = super::registry().unwrap_or_else(|e| panic!("{e}"));
        assert!(registry.all().len() >= 7);
    }
}
