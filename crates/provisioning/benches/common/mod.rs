//! What the provisioning crate's benchmarks share: the smoke-run switch and the side CSV that
//! `gridsched bench-report` joins to criterion's timings.

use std::io::Write as _;
use std::path::PathBuf;

/// `GRIDSCHED_BENCH_QUICK=1`: a smoke run over fewer states.
pub fn quick() -> bool {
    std::env::var_os("GRIDSCHED_BENCH_QUICK").is_some()
}

/// Where criterion writes (mirrors criterion's own choice for a workspace member).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// Appends `line` to the CSV `file` in criterion's directory (writing `header` first if new).
pub fn record(file: &str, header: &str, line: &str) {
    let dir = criterion_dir();
    let path = dir.join(file);
    let _ = std::fs::create_dir_all(&dir);
    let new = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if new {
            let _ = writeln!(f, "{header}");
        }
        let _ = writeln!(f, "{line}");
    }
}
