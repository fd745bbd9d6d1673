//! Where the real input data lives and the Braun et al. benchmark instances in it.
//!
//! The data is never copied into the repository: it is read from `../shared/data/` relative to
//! the repository root unless `GRIDSCHED_DATA` (or a command's `--data-dir`) names another
//! copy.

use std::path::{Path, PathBuf};

use crate::etc::EtcMatrix;
use crate::io::{ParseError, parse_braun};

pub use gridsched_sim::data::{DATA_ENV as ENV, data_dir};

/// The twelve Braun et al. (2001) instances (512 tasks × 16 machines), in the benchmark's
/// usual order: consistency c, i, s; then task/machine heterogeneity hihi, hilo, lohi, lolo.
pub const BRAUN_INSTANCES: [&str; 12] = [
    "u_c_hihi", "u_c_hilo", "u_c_lohi", "u_c_lolo", "u_i_hihi", "u_i_hilo", "u_i_lohi", "u_i_lolo",
    "u_s_hihi", "u_s_hilo", "u_s_lohi", "u_s_lolo",
];

/// `<data>/etc/braun/<name>.0`.
pub fn braun_path(data: &Path, name: &str) -> PathBuf {
    data.join("etc").join("braun").join(format!("{name}.0"))
}

/// Reads one Braun instance by name (`u_c_hihi`), 512 × 16.
pub fn read_braun_instance(data: &Path, name: &str) -> Result<EtcMatrix, ParseError> {
    let path = braun_path(data, name);
    let file = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(|e| ParseError {
        file: file.clone(),
        line: 0,
        message: format!(
            "{e} (set {ENV} or --data-dir to the folder holding etc/braun/; see data/README.md)"
        ),
    })?;
    parse_braun(&file, &bytes, Some((512, 16)))
}
