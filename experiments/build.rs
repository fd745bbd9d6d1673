//! Embeds every experiment entry (`<paper>/*.toml` but `ledger.toml`, `<paper>/sweeps/*.toml`)
//! into the crate, so the `gridsched` binary knows all experiments wherever it runs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !["src", "tests", "snapshots", "target"].contains(&name) {
                collect(&path, root, out);
            }
        } else if path.extension().is_some_and(|e| e == "toml")
            // Not entries: the crate manifest, and each document's divergence ledger, which
            // the report reads from the checkout (crates/repro/src/ledger.rs).
            && path
                .file_name()
                .is_some_and(|n| n != "Cargo.toml" && n != "ledger.toml")
        {
            out.push(path.strip_prefix(root).expect("under root").to_path_buf());
        }
    }
}

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from(
        "/// `(path relative to experiments/, file text)` of every entry.\npub static SOURCES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let rel = f.to_string_lossy().replace('\\', "/");
        writeln!(
            code,
            "    ({rel:?}, include_str!({:?})),",
            root.join(f).to_string_lossy()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("sources.rs");
    std::fs::write(out, code).expect("write sources.rs");
    println!("cargo:rerun-if-changed={}", root.display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
        if let Some(parent) = root.join(f).parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
    }
}
