//! The workflow files of the data directory (`<data>/workflows/`, never copied into the
//! repository; see [`gridsched_sim::data_dir`]).

use std::path::{Path, PathBuf};

use crate::dag::Workflow;
use crate::error::WorkflowError;
use crate::io::{ReadOptions, read_workflow};

pub use gridsched_sim::data::{DATA_ENV, data_dir};

/// The Pegasus DAX 2.1 files in `<data>/workflows/pegasus-dax/` (Bharathi et al. 2008).
pub const DAX_FILES: [&str; 8] = [
    "CyberShake_30.xml",
    "CyberShake_50.xml",
    "CyberShake_100.xml",
    "CyberShake_1000.xml",
    "Montage_25.xml",
    "Montage_50.xml",
    "Montage_100.xml",
    "Montage_1000.xml",
];

/// The WfCommons schema-1.5 instances in `<data>/workflows/wfcommons/`.
pub const WFCOMMONS_FILES: [&str; 6] = [
    "montage-chameleon-2mass-005d-001.json",
    "montage-chameleon-2mass-01d-001.json",
    "montage-chameleon-dss-05d-001.json",
    "montage-chameleon-dss-075d-001.json",
    "seismology-chameleon-100p-001.json",
    "seismology-chameleon-200p-001.json",
];

/// `<data>/workflows/pegasus-dax/<name>`.
pub fn dax_path(data: &Path, name: &str) -> PathBuf {
    data.join("workflows").join("pegasus-dax").join(name)
}

/// `<data>/workflows/wfcommons/<name>`.
pub fn wfcommons_path(data: &Path, name: &str) -> PathBuf {
    data.join("workflows").join("wfcommons").join(name)
}

/// Reads one of [`DAX_FILES`] with the default options.
pub fn read_dax_file(data: &Path, name: &str) -> Result<Workflow, WorkflowError> {
    read_workflow(&dax_path(data, name), &ReadOptions::default())
}

/// Reads one of [`WFCOMMONS_FILES`] with the default options.
pub fn read_wfcommons_file(data: &Path, name: &str) -> Result<Workflow, WorkflowError> {
    read_workflow(&wfcommons_path(data, name), &ReadOptions::default())
}
