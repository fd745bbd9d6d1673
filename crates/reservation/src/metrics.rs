//! Per-run metrics of Castillo ch. 3 (spec §4): loss, work loss, utilization, delay, fairness.

use std::collections::VecDeque;

use gridsched_geom::Time;
use gridsched_sim::BoundedPareto;
use gridsched_workload::Request;

use crate::scheduler::Booking;

/// Equal-width job-size bins with weights, for the fairness index
/// `F = sum_i w_i z'_i / z_i` (thesis eq. 3.1): `z_i` jobs of bin `i` arrived, `z'_i` were
/// scheduled, `w_i` is the size distribution's probability mass in bin `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeBins {
    low: f64,
    width: f64,
    weights: Vec<f64>,
}

impl SizeBins {
    /// `count` equal bins over the distribution's support `[k, p]`, weighted by its mass
    /// (B = 100 bins over [1, 50] in the thesis).
    pub fn from_pareto(sizes: &BoundedPareto, count: usize) -> Self {
        let (low, high) = (sizes.min(), sizes.max());
        let width = (high - low) / count as f64;
        let weights = (0..count)
            .map(|i| sizes.cdf(low + width * (i + 1) as f64) - sizes.cdf(low + width * i as f64))
            .collect();
        SizeBins {
            low,
            width,
            weights,
        }
    }

    /// A single bin of weight 1 covering every size: the fairness index is then the plain
    /// acceptance ratio (for streams whose size law is unknown).
    pub fn single() -> Self {
        SizeBins {
            low: 0.0,
            width: f64::INFINITY,
            weights: vec![1.0],
        }
    }

    /// The bin of a job size (sizes at or beyond the ends fall in the first/last bin).
    pub fn bin_of(&self, size: f64) -> usize {
        if self.weights.len() == 1 {
            return 0;
        }
        // `as` truncates toward zero and saturates (NaN -> 0): after `max(0.0)` that is
        // `floor` without the libm call (no SSE4.1 `roundsd` in the baseline target).
        let i = ((size - self.low) / self.width).max(0.0);
        (i as usize).min(self.weights.len() - 1)
    }

    /// Bin weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
}

/// How a bin that received no job enters the fairness index (Castillo spec A16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmptyBin {
    /// Leave it out and renormalise by the weight of the populated bins.
    #[default]
    Skip,
    /// Count it as perfectly fair (`z'/z = 1`).
    CountAsOne,
}

/// The metrics of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunMetrics {
    /// Submitted jobs.
    pub jobs: u64,
    /// Dropped jobs / submitted jobs.
    pub loss: f64,
    /// Dropped work / submitted work.
    pub work_loss: f64,
    /// Busy server time inside `[0, T]` / (`n T`), `T` = the last arrival.
    pub utilization: f64,
    /// Mean of `start - ready` over accepted jobs.
    pub delay: f64,
    /// Fairness index `F` in `[0, 1]`.
    pub fairness: f64,
    /// Mean elementary operations per decision.
    pub ops_per_job: f64,
}

impl RunMetrics {
    /// `(name, value)` pairs in a fixed order, as the experiment tables store them.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("loss", self.loss),
            ("work_loss", self.work_loss),
            ("utilization", self.utilization),
            ("delay", self.delay),
            ("fairness", self.fairness),
            ("ops_per_job", self.ops_per_job),
        ]
    }
}

/// Accumulates the metrics of a run in O(1) memory per job (plus the jobs of the last
/// look-ahead window, needed to clip busy time at `T`).
#[derive(Debug, Clone)]
pub struct RunRecorder {
    bins: SizeBins,
    arrived: Vec<u64>,
    scheduled: Vec<u64>,
    servers: u32,
    jobs: u64,
    dropped: u64,
    work: f64,
    work_dropped: f64,
    delay_sum: f64,
    busy: f64,
    last_arrival: Time,
    /// Accepted jobs that may still end after the last arrival: (start, end).
    recent: VecDeque<(Time, Time)>,
    operations: u64,
}

impl RunRecorder {
    /// A recorder for `servers` servers.
    pub fn new(servers: u32, bins: SizeBins) -> Self {
        let b = bins.weights().len();
        RunRecorder {
            bins,
            arrived: vec![0; b],
            scheduled: vec![0; b],
            servers,
            jobs: 0,
            dropped: 0,
            work: 0.0,
            work_dropped: 0.0,
            delay_sum: 0.0,
            busy: 0.0,
            last_arrival: 0.0,
            recent: VecDeque::new(),
            operations: 0,
        }
    }

    /// Records one decision; `operations` is what the decision cost.
    pub fn record(&mut self, request: &Request, booking: Option<&Booking>, operations: u64) {
        let w = &request.window;
        let bin = self.bins.bin_of(w.length);
        self.jobs += 1;
        self.arrived[bin] += 1;
        self.work += w.length;
        self.last_arrival = request.arrival;
        self.operations += operations;
        while self
            .recent
            .front()
            .is_some_and(|&(_, end)| end <= request.arrival)
        {
            self.recent.pop_front();
        }
        match booking {
            Some(b) => {
                self.scheduled[bin] += 1;
                self.delay_sum += b.start - w.ready;
                self.busy += b.end - b.start;
                self.recent.push_back((b.start, b.end));
            }
            None => {
                self.dropped += 1;
                self.work_dropped += w.length;
            }
        }
    }

    /// The run's metrics.
    pub fn finish(&self, empty_bin: EmptyBin) -> RunMetrics {
        let t = self.last_arrival;
        let beyond: f64 = self
            .recent
            .iter()
            .map(|&(s, e)| (e - s.max(t)).max(0.0))
            .sum();
        let utilization = if t > 0.0 {
            (self.busy - beyond) / (f64::from(self.servers) * t)
        } else {
            0.0
        };
        let accepted = self.jobs - self.dropped;
        let (mut f, mut mass) = (0.0, 0.0);
        for ((&z, &zs), &w) in self
            .arrived
            .iter()
            .zip(&self.scheduled)
            .zip(self.bins.weights())
        {
            if z > 0 {
                f += w * zs as f64 / z as f64;
                mass += w;
            } else if empty_bin == EmptyBin::CountAsOne {
                f += w;
                mass += w;
            }
        }
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        RunMetrics {
            jobs: self.jobs,
            loss: ratio(self.dropped as f64, self.jobs as f64),
            work_loss: ratio(self.work_dropped, self.work),
            utilization,
            delay: ratio(self.delay_sum, accepted as f64),
            fairness: ratio(f, mass),
            ops_per_job: ratio(self.operations as f64, self.jobs as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridsched_geom::Window;

    /// Spec F-dist: fairness weights for alpha = 1.2, B = 100 over [1, 50].
    #[test]
    fn fairness_weights_fixture() {
        let bins = SizeBins::from_pareto(&BoundedPareto::new(1.0, 50.0, 1.2).unwrap(), 100);
        let w = bins.weights();
        let expect = [
            (0, 0.38382),
            (1, 0.18079),
            (2, 0.10362),
            (3, 0.06656),
            (4, 0.04608),
        ];
        for (i, v) in expect {
            assert!((w[i] - v).abs() < 5e-6, "w_{} = {}", i + 1, w[i]);
        }
        assert!((w[99] - 1.0973e-4).abs() < 5e-9, "w_100 = {}", w[99]);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(bins.bin_of(1.0), 0);
        assert_eq!(bins.bin_of(1.49), 1);
        assert_eq!(bins.bin_of(50.0), 99);
    }

    #[test]
    fn metrics_of_a_tiny_run() {
        let bins = SizeBins::from_pareto(&BoundedPareto::new(1.0, 50.0, 1.2).unwrap(), 100);
        let mut rec = RunRecorder::new(2, bins);
        let req = |a: f64, r: f64, l: f64| Request {
            arrival: a,
            window: Window::new(r, l, r + l + 1.0).unwrap(),
        };
        rec.record(
            &req(0.0, 0.0, 1.0),
            Some(&Booking {
                server: 0,
                start: 0.5,
                end: 1.5,
            }),
            3,
        );
        rec.record(&req(1.0, 2.0, 3.0), None, 5);
        rec.record(
            &req(4.0, 4.0, 1.0),
            Some(&Booking {
                server: 1,
                start: 4.0,
                end: 5.0,
            }),
            1,
        );
        let m = rec.finish(EmptyBin::Skip);
        assert_eq!(m.jobs, 3);
        assert!((m.loss - 1.0 / 3.0).abs() < 1e-12);
        assert!((m.work_loss - 3.0 / 5.0).abs() < 1e-12);
        assert!((m.delay - 0.25).abs() < 1e-12);
        // Busy inside [0, 4]: 1.0 (first job) + 0 (second job starts at 4) over 2 * 4.
        assert!((m.utilization - 1.0 / 8.0).abs() < 1e-12);
        // Bin 0 (size 1): 2 of 2; bin 4 (size 3): 0 of 1.
        let w = SizeBins::from_pareto(&BoundedPareto::new(1.0, 50.0, 1.2).unwrap(), 100);
        let (w0, w4) = (w.weights()[0], w.weights()[4]);
        assert!((m.fairness - w0 / (w0 + w4)).abs() < 1e-12);
        assert!((m.ops_per_job - 3.0).abs() < 1e-12);
    }
}
