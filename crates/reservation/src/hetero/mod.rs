//! Online advance reservations on servers of different service rates (Castillo 2008, ch. 4).
//!
//! A server of rate `μ ∈ (0, 1]` runs a job of work `l` in `l/μ`. [`HeteroScheduler`] decides
//! each request at its arrival with one of the chapter's three algorithms
//! ([`HeteroAlgorithm`]): FF-HU (first fit over one list of every idle period, blind to
//! rates), FF-HA (one list per rate class, slowest class first) and FF-HA+ (a primal/dual 2-D
//! tree per class, `O(log² V)` per class instead of `O(V)`). The idle-period structures live in
//! [`gridsched_geom::hetero`]; this module owns the clock, the carving of booked periods,
//! expiry, the (H, n)-heterogeneous rate vectors ([`rates`]) and the chapter's metrics
//! ([`HeteroRecorder`]).

mod metrics;
pub mod rates;
mod scheduler;

pub use gridsched_geom::hetero::{ClassOrder, PlusPick};
pub use metrics::{HeteroAudit, HeteroMetrics, HeteroRecorder};
pub use rates::{RateGroup, RateProposal, RateVectorError};
pub use scheduler::{
    HeteroAlgorithm, HeteroConfig, HeteroScheduler, HeteroState, ListIndex, ONE_MINUTE,
};

use gridsched_geom::{Time, Window};

use crate::scheduler::{Booking, SubmitError};

/// One decision of [`HeteroScheduler::decide`], with what the recorder needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub booking: Option<Booking>,
    /// Whether the job went to a server of the slowest class.
    pub on_slowest_class: bool,
    /// Operations the decision cost.
    pub operations: u64,
}

impl HeteroScheduler {
    /// Submits a job given by its raw fields and returns the decision with its cost. A job whose
    /// deadline is earlier than `ready + work` (possible under the literal deadline reading,
    /// spec A19) cannot run on any server of rate `<= 1` and is dropped without a search.
    pub fn decide(
        &mut self,
        arrival: Time,
        ready: Time,
        work: f64,
        deadline: Time,
    ) -> Result<Decision, SubmitError> {
        let before = self.operations();
        let booking = match Window::new(ready, work, deadline) {
            Ok(w) => self.submit(arrival, &w)?,
            Err(_) => None,
        };
        let on_slowest_class = booking.is_some_and(|b| self.class_of_server(b.server) == 0);
        Ok(Decision {
            booking,
            on_slowest_class,
            operations: self.operations() - before,
        })
    }

    /// A recorder sized for this scheduler's servers.
    pub fn recorder(&self) -> HeteroRecorder {
        let fastest = (self.classes().len() - 1) as u32;
        let fast = (0..self.servers())
            .filter(|&s| self.class_of_server(s) == fastest)
            .count() as u32;
        HeteroRecorder::new(self.servers(), fast)
    }

    /// Decides one job and records it.
    pub fn decide_and_record(
        &mut self,
        arrival: Time,
        ready: Time,
        work: f64,
        deadline: Time,
        recorder: &mut HeteroRecorder,
    ) -> Result<Decision, SubmitError> {
        let d = self.decide(arrival, ready, work, deadline)?;
        let fastest = self.classes().len() - 1;
        recorder.record(
            arrival,
            ready,
            work,
            d.booking.as_ref(),
            d.on_slowest_class,
            d.operations,
            self.live_periods(),
            self.live_in_class(fastest),
        );
        Ok(d)
    }
}
