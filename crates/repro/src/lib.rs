//! gridsched's reproduction harness.
//!
//! An experiment entry (`experiments/<paper>/<id>.toml`, see [`spec`]) names a sweep of a
//! [`model`]; [`runner`] runs it in parallel with deterministic random streams; the per-run
//! values become a [`table`] of means and 95% confidence intervals; [`claims`] checks the
//! document's statements against it; [`plot`] draws it; [`output`] writes the CSV, summary,
//! provenance and SVG files atomically; [`report`] turns everything into REPRODUCTION.md.

pub mod bench;
pub mod claims;
pub mod journal;
pub mod ledger;
pub mod model;
pub mod output;
pub mod papers;
pub mod plot;
pub mod registry;
pub mod report;
pub mod reproduce;
pub mod results;
pub mod runner;
pub mod site;
pub mod snapshot;
pub mod spec;
pub mod table;
#[cfg(test)]
pub(crate) mod testing;

pub use registry::{Experiment, Registry};
pub use reproduce::{ExperimentResult, Project, reproduce};
pub use runner::RunOptions;
pub use spec::Scale;

use std::path::Path;

/// Everything that can go wrong in the harness; messages name the file or experiment.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    // Not `source`: the message already carries the I/O error, and a source would make
    // `{:#}` chains print it twice.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{0}")]
    Spec(String),
    #[error("{0}")]
    Model(String),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Data(String),
    #[error("plot: {0}")]
    Plot(#[from] plot::PlotError),
}

impl HarnessError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        HarnessError::Io {
            path: path.display().to_string(),
            error: source,
        }
    }
}
