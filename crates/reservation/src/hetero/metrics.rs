//! Per-run metrics of Castillo ch. 4 (spec §4) and a schedule audit for rated servers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use gridsched_geom::{Time, time_tolerance};

use crate::scheduler::Booking;

/// The metrics of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeteroMetrics {
    /// Submitted jobs.
    pub jobs: u64,
    /// Dropped jobs / submitted jobs.
    pub loss: f64,
    /// Dropped work / submitted work (work = size on a rate-1 server).
    pub work_loss: f64,
    /// Busy server time inside `[0, T]` / (`n T`), `T` = the last arrival; a job keeps its
    /// server busy `l/μ` (time-based, spec A5).
    pub utilization: f64,
    /// Mean of `start − ready` over accepted jobs (the thesis's waiting time).
    pub waiting: f64,
    /// Mean operations of the algorithm's search per decision.
    pub ops_per_job: f64,
    /// Mean live idle periods per server, sampled after every decision (fragmentation).
    pub idle_periods: f64,
    /// The same for the servers of the fastest class only.
    pub fast_idle_periods: f64,
    /// Share of accepted jobs placed on the slowest class.
    pub slow_share: f64,
}

impl HeteroMetrics {
    /// `(name, value)` pairs in a fixed order, as the experiment tables store them.
    pub fn named(&self) -> [(&'static str, f64); 8] {
        [
            ("work_loss", self.work_loss),
            ("loss", self.loss),
            ("utilization", self.utilization),
            ("waiting", self.waiting),
            ("ops_per_job", self.ops_per_job),
            ("idle_periods", self.idle_periods),
            ("fast_idle_periods", self.fast_idle_periods),
            ("slow_share", self.slow_share),
        ]
    }
}

/// Total order key of a float (for the heap of bookings that may outlast the last arrival).
fn order_key(t: Time) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Accumulates the metrics of a run in `O(1)` memory per job (plus the accepted jobs still
/// running after the current arrival, needed to clip busy time at `T`).
#[derive(Debug, Clone)]
pub struct HeteroRecorder {
    servers: u32,
    fast_servers: u32,
    jobs: u64,
    dropped: u64,
    accepted_slow: u64,
    work: f64,
    work_dropped: f64,
    waiting_sum: f64,
    busy: f64,
    last_arrival: Time,
    operations: u64,
    idle_sum: f64,
    fast_idle_sum: f64,
    /// Accepted jobs that may end after the last arrival: (end key, start, end).
    running: BinaryHeap<Reverse<(u64, u64, u64)>>,
}

impl HeteroRecorder {
    /// A recorder for `servers` servers of which `fast_servers` are in the fastest class.
    pub fn new(servers: u32, fast_servers: u32) -> Self {
        HeteroRecorder {
            servers,
            fast_servers,
            jobs: 0,
            dropped: 0,
            accepted_slow: 0,
            work: 0.0,
            work_dropped: 0.0,
            waiting_sum: 0.0,
            busy: 0.0,
            last_arrival: 0.0,
            operations: 0,
            idle_sum: 0.0,
            fast_idle_sum: 0.0,
            running: BinaryHeap::new(),
        }
    }

    /// Records one decision about a job of `work` ready at `ready`: `booking` if accepted and
    /// whether it went to the slowest class; `operations` is what the decision cost; `idle` and
    /// `fast_idle` are the live idle periods (all / fastest class) after it.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        arrival: Time,
        ready: Time,
        work: f64,
        booking: Option<&Booking>,
        on_slowest_class: bool,
        operations: u64,
        idle: usize,
        fast_idle: usize,
    ) {
        self.jobs += 1;
        self.work += work;
        self.last_arrival = arrival;
        self.operations += operations;
        self.idle_sum += idle as f64;
        self.fast_idle_sum += fast_idle as f64;
        while let Some(Reverse((_, _, end))) = self.running.peek() {
            if f64::from_bits(*end) > arrival {
                break;
            }
            self.running.pop();
        }
        match booking {
            Some(b) => {
                self.waiting_sum += b.start - ready;
                self.busy += b.end - b.start;
                if on_slowest_class {
                    self.accepted_slow += 1;
                }
                self.running.push(Reverse((
                    order_key(b.end),
                    b.start.to_bits(),
                    b.end.to_bits(),
                )));
            }
            None => {
                self.dropped += 1;
                self.work_dropped += work;
            }
        }
    }

    /// The run's metrics.
    pub fn finish(&self) -> HeteroMetrics {
        let t = self.last_arrival;
        let beyond: f64 = self
            .running
            .iter()
            .map(|Reverse((_, s, e))| {
                let (s, e) = (f64::from_bits(*s), f64::from_bits(*e));
                (e - s.max(t)).max(0.0)
            })
            .sum();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let accepted = (self.jobs - self.dropped) as f64;
        let n = self.jobs as f64;
        HeteroMetrics {
            jobs: self.jobs,
            loss: ratio(self.dropped as f64, n),
            work_loss: ratio(self.work_dropped, self.work),
            utilization: ratio(self.busy - beyond, f64::from(self.servers) * t),
            waiting: ratio(self.waiting_sum, accepted),
            ops_per_job: ratio(self.operations as f64, n),
            idle_periods: ratio(self.idle_sum, n * f64::from(self.servers)),
            fast_idle_periods: ratio(self.fast_idle_sum, n * f64::from(self.fast_servers)),
            slow_share: ratio(self.accepted_slow as f64, accepted),
        }
    }
}

/// Checks a finished heterogeneous schedule: every accepted job runs exactly `work / μ` of its
/// server, inside `[ready, deadline]`, not before its arrival, and no server runs two jobs at
/// once — each up to the rounding-level slack of the job's own window (the feasibility test
/// lets a job end at most twice that slack after its idle period or deadline).
#[derive(Debug, Clone, Default)]
pub struct HeteroAudit {
    /// Per server: (start, end, job, the job's window tolerance).
    by_server: Vec<Vec<(Time, Time, usize, Time)>>,
    errors: Vec<String>,
}

impl HeteroAudit {
    /// An empty audit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the decision about job number `job` (work `work`, on a server of rate `rate`).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        job: usize,
        arrival: Time,
        ready: Time,
        work: f64,
        deadline: Time,
        booking: Option<&Booking>,
        rate: f64,
    ) {
        let Some(b) = booking else { return };
        let tol = time_tolerance(ready.abs().max(deadline.abs()));
        if b.start < ready || b.start < arrival {
            self.errors.push(format!(
                "job {job} starts at {} before its ready time {ready} (arrival {arrival})",
                b.start
            ));
        }
        if b.end > deadline + 2.0 * tol {
            self.errors.push(format!(
                "job {job} ends at {} after its deadline {deadline}",
                b.end
            ));
        }
        if ((b.end - b.start) - work / rate).abs() > 2.0 * tol {
            self.errors.push(format!(
                "job {job} runs {} instead of work / rate = {}",
                b.end - b.start,
                work / rate
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
                let ((_, end, a, tol), (start, _, b, _)) = (pair[0], pair[1]);
                if start + 3.0 * tol < end {
                    out.push(format!(
                        "server {server}: job {a} (ends {end}) overlaps job {b} (starts {start})"
                    ));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_a_tiny_run() {
        let mut rec = HeteroRecorder::new(2, 1);
        let b = |server, start: f64, end: f64| Booking { server, start, end };
        // Work 1 on a rate-0.5 server: busy 2 time units.
        rec.record(0.0, 1.0, 1.0, Some(&b(0, 1.0, 3.0)), true, 4, 3, 1);
        rec.record(2.0, 2.0, 3.0, None, false, 6, 3, 1);
        // Runs [5, 6) beyond T = 4: clipped.
        rec.record(4.0, 4.0, 1.0, Some(&b(1, 5.0, 6.0)), false, 2, 5, 3);
        let m = rec.finish();
        assert_eq!(m.jobs, 3);
        assert!((m.loss - 1.0 / 3.0).abs() < 1e-12);
        assert!((m.work_loss - 0.6).abs() < 1e-12);
        assert!((m.utilization - 2.0 / 8.0).abs() < 1e-12);
        assert!((m.waiting - 0.5).abs() < 1e-12);
        assert!((m.ops_per_job - 4.0).abs() < 1e-12);
        assert!((m.idle_periods - 11.0 / 6.0).abs() < 1e-12);
        assert!((m.fast_idle_periods - 5.0 / 3.0).abs() < 1e-12);
        assert!((m.slow_share - 0.5).abs() < 1e-12);
    }

    #[test]
    fn audit_finds_violations() {
        let mut a = HeteroAudit::new();
        let b = |server, start: f64, end: f64| Booking { server, start, end };
        a.record(0, 0.0, 1.0, 1.0, 10.0, Some(&b(0, 1.0, 3.0)), 0.5);
        a.record(1, 0.0, 2.0, 1.0, 10.0, Some(&b(0, 2.5, 3.5)), 1.0);
        a.record(2, 0.0, 2.0, 1.0, 3.0, Some(&b(1, 2.5, 3.5)), 0.5);
        let v = a.violations();
        assert!(v.iter().any(|e| e.contains("overlaps")), "{v:?}");
        assert!(v.iter().any(|e| e.contains("after its deadline")), "{v:?}");
        assert!(
            v.iter().any(|e| e.contains("instead of work / rate")),
            "{v:?}"
        );
    }
}
