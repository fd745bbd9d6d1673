//! Online advance-reservation scheduling on identical servers (Castillo 2008, ch. 3).
//!
//! A request `(ready, length, deadline)` arrives and is decided at once: booked on one server
//! inside its window, or dropped. The gap-aware strategies (First-fit, Min-LIP, Min-TIP,
//! Best-fit, Max-LIP, Max-TIP) pick an idle period through an
//! [`IdlePeriodIndex`](gridsched_geom::IdlePeriodIndex); LACT only tracks each server's
//! completion time. [`run`] drives a request stream through a scheduler and measures the
//! thesis's metrics.

mod audit;
mod metrics;
mod scheduler;
mod strategy;

pub use audit::ScheduleAudit;
pub use metrics::{EmptyBin, RunMetrics, RunRecorder, SizeBins};
pub use scheduler::{
    Booking, ConfigError, IndexKind, PeriodChooser, Periods, ReservationScheduler, RuleSteps,
    SchedulerConfig, SubmitError,
};
pub use strategy::{
    BestFitSearch, LactLate, MinTipReading, Placement, R2Pick, Step2Start, Strategy,
    StrategyOptions,
};

use gridsched_workload::Request;

/// Feeds `requests` to `scheduler` in order, recording every decision.
pub fn run(
    scheduler: &mut ReservationScheduler,
    requests: impl IntoIterator<Item = Request>,
    recorder: &mut RunRecorder,
) -> Result<(), SubmitError> {
    for request in requests {
        let before = scheduler.operations();
        let booking = scheduler.submit(request.arrival, &request.window)?;
        recorder.record(&request, booking.as_ref(), scheduler.operations() - before);
    }
    Ok(())
}
pub mod coalloc;
pub mod hetero;
