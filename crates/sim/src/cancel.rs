//! Cooperative cancellation of a run from outside it: what lets a notebook's Ctrl-C stop a
//! `gridsched` call that runs on a worker thread of the Python package.
//!
//! The long loops of the models (the batch simulator's events, the reservation schedulers'
//! requests, the actor engine's events, a genetic search's generations, the harness's work
//! items) call [`checkpoint`]: one relaxed load of a process-wide flag, which costs nothing
//! measurable beside an event. When [`request`] has set the flag, the checkpoint unwinds out
//! of the run with a [`Cancelled`] payload, which whoever started the work catches with
//! `std::panic::catch_unwind` (the Python boundary does) and recognises with [`is_cancelled`].
//!
//! Unwinding, rather than an error variant in every model's error type, is the way
//! rust-analyzer's query engine cancels stale work too: the cancelled run's partial state is
//! dropped as a whole and never observed, so no model needs a cancelled path of its own. It
//! uses [`std::panic::resume_unwind`], which does not run the panic hook: nothing is printed.
//! What a run already wrote stays valid: outputs are staged in temporary files that are
//! removed when dropped (unwinding drops them), and a harness journal keeps whole lines only.
//!
//! The flag is process-wide, so a request cancels every run in progress in the process; the
//! `gridsched` binary never sets it (its signal handler removes staged files and exits).

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The payload a cancelled run unwinds with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Asks every run in progress to stop at its next [`checkpoint`].
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Lowers the flag (once the cancelled runs have stopped), so later runs proceed.
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether a cancellation is requested.
pub fn is_requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Unwinds with [`Cancelled`] if a cancellation is requested; otherwise returns at once.
#[inline]
pub fn checkpoint() {
    if REQUESTED.load(Ordering::Relaxed) {
        cancel_now();
    }
}

#[cold]
#[inline(never)]
fn cancel_now() -> ! {
    std::panic::resume_unwind(Box::new(Cancelled))
}

/// Whether a caught unwind payload is a cancellation (rather than a panic).
pub fn is_cancelled(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Cancelled>()
}
