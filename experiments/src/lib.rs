//! The experiment entries of gridsched: one TOML file per paper figure or table
//! (`experiments/<paper>/<id>.toml`), plus shared sweeps (`experiments/<paper>/sweeps/`).
//!
//! The files are embedded at build time, so the `gridsched` binary lists and runs them from any
//! directory. Adding a figure is adding a file here; its quick-scale numbers are pinned by the
//! insta snapshots in `tests/snapshots/`.

use gridsched_repro::{HarnessError, Registry};

include!(concat!(env!("OUT_DIR"), "/sources.rs"));

/// All experiments, validated.
pub fn registry() -> Result<Registry, HarnessError> {
    Registry::from_sources(SOURCES)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_entry_loads() {
        let registry = super::registry().unwrap_or_else(|e| panic!("{e}"));
        assert!(registry.all().len() >= 7);
    }
}
