//! Where the real input data lives (Parallel Workloads Archive logs, ETC matrices,
//! workflows): one rule for every crate and command that reads it.
//!
//! The data is never copied into the repository: it is read from `../shared/data/` next to the
//! checkout unless `$GRIDSCHED_DATA` (or a command's `--data-dir`) names another copy.

use std::path::{Path, PathBuf};

/// The environment variable that overrides the data directory.
pub const DATA_ENV: &str = "GRIDSCHED_DATA";

/// The process-wide data directory a command's `--data-dir` set (see [`set_process_data_dir`]).
static PROCESS_DATA_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes `dir` the data directory of every later [`data_dir`]`(None)` in this process (what a
/// command's `--data-dir` does for code that does not take the directory as an argument, such
/// as the experiment models). Set once; a second call is ignored and returns `false`.
pub fn set_process_data_dir(dir: &Path) -> bool {
    PROCESS_DATA_DIR.set(dir.to_path_buf()).is_ok()
}

/// The data directory: `explicit` if given, else the process's `--data-dir`
/// ([`set_process_data_dir`]), else `$GRIDSCHED_DATA`, else `../shared/data` next to the
/// gridsched checkout containing the current directory, else next to the checkout this crate
/// was built from.
pub fn data_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = PROCESS_DATA_DIR.get() {
        return p.clone();
    }
    if let Some(p) = std::env::var_os(DATA_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let from_cwd = std::env::current_dir().ok().and_then(|cwd| {
        cwd.ancestors()
            .find(|d| d.join("Cargo.toml").is_file() && d.join("experiments").is_dir())
            .and_then(|root| root.parent())
            .map(|parent| parent.join("shared").join("data"))
    });
    // The checkout's parent, found by walking up rather than joining `..`, so paths shown in
    // messages read `/work/shared/data/…`, not `/work/main/crates/sim/../../../shared/data/…`.
    let built_from = || {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        manifest.ancestors().nth(3).map_or_else(
            || manifest.join("../../../shared/data"),
            |p| p.join("shared").join("data"),
        )
    };
    from_cwd.filter(|p| p.is_dir()).unwrap_or_else(built_from)
}

/// The variable that turns a missing data file into a test failure (CI sets it when the data
/// directory exists).
pub const REQUIRE_DATA_ENV: &str = "GRIDSCHED_REQUIRE_DATA";

/// For tests that read the real data: the path of `relative` under [`data_dir`], or `None`
/// after a NOTICE on stderr when it is missing, so a checkout without the data still passes,
/// unless `$GRIDSCHED_REQUIRE_DATA` is `1`, where a missing file panics.
pub fn data_file_or_skip(relative: &str) -> Option<PathBuf> {
    let path = data_dir(None).join(relative);
    if path.exists() {
        return Some(path);
    }
    let msg = format!("{} is missing; skipping (set {DATA_ENV})", path.display());
    if std::env::var(REQUIRE_DATA_ENV).is_ok_and(|v| v == "1") {
        panic!("{REQUIRE_DATA_ENV}=1 but {msg}");
    }
    eprintln!("NOTICE: {msg}");
    None
}
