//! Fuzzes `gridsched grid`'s input files (`gridsched_schedule_based::io`): arbitrary bytes as
//! a machines CSV (`id,cpus,speed`) and as a jobs CSV (`id,submit,cpus,length[,deadline]`).
//! Nothing may panic; an error names the file; what parses holds machines with CPUs and speed,
//! jobs with processors that fit the widest machine, positive lengths and deadlines after
//! submission. Run: `cargo +nightly fuzz run grid`.
#![no_main]

use gridsched_schedule_based::io::{parse_jobs, parse_machines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_machines(text, "fuzz-machines.csv") {
        Ok(rows) => {
            for r in &rows {
                assert!(r.machine.cpus > 0 && r.machine.speed > 0, "{r:?}");
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz-machines.csv"), "{e}"),
    }
    let widest = 8;
    match parse_jobs(text, "fuzz-jobs.csv", widest) {
        Ok(jobs) => {
            for j in &jobs {
                assert!(j.procs > 0 && j.procs <= widest, "{j:?}");
                assert!(j.run > 0 && j.submit >= 0, "{j:?}");
                if let Some(d) = j.deadline {
                    assert!(d >= j.submit, "deadline before submission: {j:?}");
                }
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz-jobs.csv"), "{e}"),
    }
});
