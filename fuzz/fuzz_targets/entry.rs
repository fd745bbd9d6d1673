//! Fuzzes experiment entries: arbitrary text as an entry TOML and as a sweep TOML, loaded
//! through `Registry::from_sources` against the real catalog (documents and models), so
//! schema, validation against the model and claim parsing all run. Nothing may panic; an error
//! names the file; an entry that loads has a known document, model and parsed claims.
//! Run: `cargo +nightly fuzz run entry`.
#![no_main]

use gridsched_repro::Registry;
use libfuzzer_sys::fuzz_target;

/// A real sweep and entry, so a fuzzed entry can name the sweep and a fuzzed sweep can be
/// named by the entry.
const SWEEP: &str = include_str!("../../experiments/castillo/sweeps/ch3-load.toml");
const ENTRY: &str = include_str!("../../experiments/castillo/fig-3.4.toml");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for sources in [
        [
            ("castillo/sweeps/ch3-load.toml", SWEEP),
            ("castillo/fuzz.toml", text),
        ],
        [
            ("castillo/sweeps/fuzz.toml", text),
            ("castillo/fig-3.4.toml", ENTRY),
        ],
    ] {
        match Registry::from_sources(&sources, gridsched_experiments::catalog()) {
            Ok(r) => {
                for e in r.all() {
                    assert!(e.spec.id.starts_with(e.paper.key), "{}", e.spec.id);
                    assert_eq!(e.claims.len(), e.spec.claims.len());
                }
            }
            Err(e) => {
                let m = e.to_string();
                // The error names the file it is in (the fuzzed one, or the real entry when
                // the fuzzed sweep is not the one it names), or the duplicate.
                assert!(
                    m.contains("fuzz.toml")
                        || m.contains("fig-3.4.toml")
                        || m.contains("duplicate"),
                    "{m}"
                );
            }
        }
    }
});
