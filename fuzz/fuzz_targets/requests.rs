//! Fuzzes the reservation request CSV reader (`gridsched_workload::read_requests_from`):
//! arbitrary bytes as a request file. Nothing may panic; an error names the file; a file that
//! reads is a valid stream (arrival order, finite times, `ready >= arrival`, `length >= l_min`,
//! the window fits before its deadline, ids unique). Run: `cargo +nightly fuzz run requests`.
#![no_main]

use gridsched_workload::{RequestLimits, read_requests_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = RequestLimits::default();
    match read_requests_from(data, "fuzz.csv", &limits) {
        Ok(file) => {
            assert_eq!(file.ids.len(), file.requests.len());
            assert_eq!(file.lines.len(), file.requests.len());
            let mut ids: Vec<&String> = file.ids.iter().collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), file.ids.len(), "duplicate ids accepted");
            for w in file.requests.windows(2) {
                assert!(
                    w[0].arrival <= w[1].arrival,
                    "rows out of arrival order accepted"
                );
            }
            for r in &file.requests {
                let w = &r.window;
                assert!(r.arrival.is_finite() && r.arrival >= 0.0);
                assert!(w.ready.is_finite() && w.length.is_finite() && w.deadline.is_finite());
                assert!(w.ready >= r.arrival, "ready before arrival");
                assert!(w.length >= limits.l_min, "length below l_min");
            }
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.starts_with("fuzz.csv"),
                "error does not name the file: {m}"
            );
        }
    }
});
