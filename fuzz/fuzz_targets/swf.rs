//! Fuzzes the SWF reader (`gridsched_workload::swf`): arbitrary bytes as a whole log (header
//! comments, records, gzip magic) and as a single record line. Nothing may panic; every error
//! must be a typed `file:line` error. Run: `cargo +nightly fuzz run swf` (see fuzz/README.md).
#![no_main]

use std::io::Cursor;

use gridsched_workload::swf::{SwfLoadOptions, SwfReader, load_from, parse_record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // One record line.
    let _ = parse_record(data, 1);
    // A whole log: header, records, the keep/skip rules and the submit-order sort.
    if let Ok(reader) = SwfReader::new(Cursor::new(data), "fuzz.swf") {
        if let Ok(log) = load_from(reader, SwfLoadOptions { limit: Some(10_000) }) {
            // Kept jobs satisfy the documented rules.
            for j in &log.jobs {
                assert!(j.run > 0 && j.procs > 0, "kept a job with run {} procs {}", j.run, j.procs);
            }
            assert!(log.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        }
    }
    // The same bytes behind gzip detection (plain input must pass through unchanged).
    if let Ok(input) = gridsched_workload::swf::detect_gzip(Cursor::new(data.to_vec())) {
        if let Ok(reader) = SwfReader::new(input, "fuzz.swf.gz") {
            let _ = load_from(reader, SwfLoadOptions { limit: Some(1_000) });
        }
    }
});
