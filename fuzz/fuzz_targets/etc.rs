//! Fuzzes the ETC matrix readers (`gridsched_mapping::io`): arbitrary bytes as a Braun file
//! (headerless, with a given shape, with a header) and as CSV. Nothing may panic; an error
//! names the file; a matrix that parses has the shape it says, finite non-negative entries
//! and a finite sum. Run: `cargo +nightly fuzz run etc`.
#![no_main]

use gridsched_mapping::io::{parse_braun, parse_csv};
use libfuzzer_sys::fuzz_target;

fn check(r: Result<gridsched_mapping::EtcMatrix, gridsched_mapping::io::ParseError>) {
    match r {
        Ok(m) => {
            assert!(
                m.tasks() > 0 && m.machines() > 0,
                "an empty matrix accepted"
            );
            let mut sum = 0.0;
            for t in 0..m.tasks() {
                let row = m.row(t);
                assert_eq!(row.len(), m.machines());
                for &v in row {
                    assert!(v.is_finite() && v >= 0.0, "entry {v} accepted");
                    sum += v;
                }
            }
            assert!(sum.is_finite(), "entries summing past f64 accepted");
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.starts_with("fuzz.etc"),
                "error does not name the file: {m}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(parse_braun("fuzz.etc", data, None));
    check(parse_braun("fuzz.etc", data, Some((4, 2))));
    check(parse_csv("fuzz.etc", data));
});
