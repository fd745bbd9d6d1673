//! Invariant checks on a finished schedule (used by tests and debug runs).

use gridsched_geom::Time;
use gridsched_workload::Request;

use crate::scheduler::Booking;

/// Collects bookings and checks that the schedule is valid: every accepted job runs for its
/// length inside `[ready, deadline]`, never before its arrival, and no server runs two jobs at
/// once — each up to the rounding-level slack of the job's own window ([`Window::tolerance`]),
/// the only slack the scheduler's feasibility test allows.
///
/// [`Window::tolerance`]: gridsched_geom::Window::tolerance
#[derive(Debug, Clone, Default)]
pub struct ScheduleAudit {
    /// Per server: (start, end, job, the job's window tolerance).
    by_server: Vec<Vec<(Time, Time, usize, Time)>>,
    errors: Vec<String>,
}

impl ScheduleAudit {
    /// An empty audit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the decision about request number `job`.
    pub fn record(&mut self, job: usize, request: &Request, booking: Option<&Booking>) {
        let Some(b) = booking else { return };
        let w = &request.window;
        let tol = w.tolerance;
        if b.start < w.ready {
            self.errors.push(format!(
                "job {job} starts at {} before its ready time {}",
                b.start, w.ready
            ));
        }
        if b.end > w.deadline + tol {
            self.errors.push(format!(
                "job {job} ends at {} after its deadline {}",
                b.end, w.deadline
            ));
        }
        if (b.end - b.start - w.length).abs() > tol {
            self.errors.push(format!(
                "job {job} runs {} instead of {}",
                b.end - b.start,
                w.length
            ));
        }
        let s = b.server as usize;
        if self.by_server.len() <= s {
            self.by_server.resize(s + 1, Vec::new());
        }
        self.by_server[s].push((b.start, b.end, job, tol));
    }

    /// All violations found (empty if the schedule is valid).
    pub fn violations(&mut self) -> Vec<String> {
        let mut out = self.errors.clone();
        for (server, jobs) in self.by_server.iter_mut().enumerate() {
            jobs.sort_by(|a, b| a.0.total_cmp(&b.0));
            for pair in jobs.windows(2) {
                let ((_, end, a, tol_a), (start, _, b, tol_b)) = (pair[0], pair[1]);
                if start + tol_a.max(tol_b) < end {
                    out.push(format!(
                        "server {server}: job {a} (ends {end}) overlaps job {b} (starts {start})"
                    ));
                }
            }
        }
        out
    }
}
