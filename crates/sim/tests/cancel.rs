//! The process-wide cancellation flag, tested in its own process: a raised flag would stop
//! any other test's simulation running beside it.

use gridsched_sim::cancel::{checkpoint, clear, is_cancelled, is_requested, request};
use std::panic::{AssertUnwindSafe, catch_unwind};

#[test]
fn a_checkpoint_unwinds_only_while_a_cancellation_is_requested() {
    checkpoint();
    let mut steps = 0;
    let caught = catch_unwind(AssertUnwindSafe(|| {
        for i in 0..10 {
            if i == 3 {
                request();
            }
            checkpoint();
            steps += 1;
        }
    }));
    clear();
    let payload = caught.expect_err("the loop was cancelled");
    assert!(is_cancelled(payload.as_ref()));
    assert_eq!(steps, 3);
    assert!(!is_requested());
    checkpoint();
    let panicked = catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
    assert!(!is_cancelled(panicked.as_ref()));
}
