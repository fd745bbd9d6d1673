//! Where the real input data lives and the Braun et al. benchmark instances in it.
//!
//! The data is never copied into the repository: it is read from `../shared/data/` relative to
//! the repository root unless `GRIDSCHED_DATA` (or a command's `--data-dir`) names another
//! copy.

use std::path::{Path, PathBuf};

use crate::etc::EtcMatrix;
use crate::io::{ParseError, parse_braun};

/// The environment variable that overrides the data directory.
pub const ENV: &str = "GRIDSCHED_DATA";

/// The twelve Braun et al. (2001) instances (512 tasks × 16 machines), in the benchmark's
/// usual order: consistency c, i, s; then task/machine heterogeneity hihi, hilo, lohi, lolo.
pub const BRAUN_INSTANCES: [&str; 12] = [
    "u_c_hihi", "u_c_hilo", "u_c_lohi", "u_c_lolo", "u_i_hihi", "u_i_hilo", "u_i_lohi", "u_i_lolo",
    "u_s_hihi", "u_s_hilo", "u_s_lohi", "u_s_lolo",
];

/// The data directory: `explicit` if given, else `$GRIDSCHED_DATA`, else `../shared/data` next
/// to the gridsched checkout containing the current directory, else next to the checkout this
/// crate was built from.
pub fn data_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let from_cwd = std::env::current_dir().ok().and_then(|cwd| {
        cwd.ancestors()
            .find(|d| d.join("Cargo.toml").is_file() && d.join("experiments").is_dir())
            .map(|root| root.join("..").join("shared").join("data"))
    });
    from_cwd
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

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
