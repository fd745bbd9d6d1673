//! ETC matrices (`map --etc`): a Braun-format or CSV file (`mapping::io` parses both), looked
//! up in the data directory when a relative name does not exist.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use gridsched_mapping::EtcMatrix;
use gridsched_mapping::{data, io};

/// The file to read: `path` if it exists, else `<data>/etc/braun/<path>` or `<data>/<path>`;
/// if none exists, an error listing the places tried and how to point elsewhere. The file
/// found is checked ([`super::file()`]).
pub fn locate(path: &Path, data_dir: Option<&Path>) -> Result<PathBuf> {
    if path.exists() || path.is_absolute() {
        super::file(path)?;
        return Ok(path.to_path_buf());
    }
    let data = data::data_dir(data_dir);
    let tried = [
        path.to_path_buf(),
        data.join("etc").join("braun").join(path),
        data.join(path),
    ];
    if let Some(p) = tried[1..].iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "{}: no such file; tried {} (give --data-dir or set GRIDSCHED_DATA; data/README.md says where the ETC matrices come from)",
        path.display(),
        list.join(", ")
    )
}

/// The matrix at `path` (found by [`locate`]) in `format`; `tasks` and `machines` give the
/// shape of a Braun file without a `T M` header, both or neither.
pub fn read(
    path: &Path,
    format: io::Format,
    tasks: Option<usize>,
    machines: Option<usize>,
) -> Result<EtcMatrix> {
    let shape = match (tasks, machines) {
        (Some(t), Some(m)) => Some((t, m)),
        (None, None) => None,
        _ => bail!("give both --tasks and --machines, or neither"),
    };
    Ok(io::read_etc(path, format, shape)?)
}
