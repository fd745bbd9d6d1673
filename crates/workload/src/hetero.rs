//! Seeded request streams of Castillo (2008) ch. 4 (spec §2.21, A17–A20). Time unit: hour.
//!
//! - Arrivals: Poisson at `λ = ρ Σμ / x̄`, so that the offered load `ρ = λ x̄ / Σμ` is the same
//!   at every heterogeneity level (A20).
//! - Book-ahead (A17): "job requests arrive following a uniform distribution in the range from
//!   one minute to 14 days" is read as the ready time lying `U[1 min, 14 d]` after the arrival.
//!   The literal reading (inter-arrival times `U[1 min, 14 d]`, no book-ahead) is the switch
//!   [`Ch4Arrival::Literal`]: it offers a load of about `3·10^-4` whatever `ρ`.
//! - Size (A18): work on a rate-1 server, 80% `U[1 min, 4 h]` and 20% `U(4 h, 36 h]`, mean
//!   5.607 h ("80% … smaller than 4 hours, 20% between 4 and 36 hours; the mean job size is
//!   5.6 hours").
//! - Deadline (A19): `d = r + l + U(0, q)` with `q = 20 h`; the literal `d ~ U(r, r + q)` (which
//!   makes every job longer than its window infeasible on any server) is
//!   [`Ch4Deadline::Literal`].

use gridsched_geom::Time;
use gridsched_sim::{DistError, Exponential, SimRng, StreamKey, Uniform};
use rand::Rng;

/// How arrivals and ready times are drawn (spec A17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ch4Arrival {
    /// Poisson arrivals at the load's rate; ready time `a + U[book-ahead range]` (default).
    #[default]
    BookAhead,
    /// Inter-arrival times uniform on the book-ahead range; ready time = arrival.
    Literal,
}

impl Ch4Arrival {
    /// Config name.
    pub fn name(self) -> &'static str {
        match self {
            Ch4Arrival::BookAhead => "book_ahead",
            Ch4Arrival::Literal => "literal",
        }
    }

    /// Parses a config name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Ch4Arrival::BookAhead, Ch4Arrival::Literal]
            .into_iter()
            .find(|a| a.name() == name)
    }
}

/// How deadlines are drawn (spec A19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ch4Deadline {
    /// `d = r + l + U(0, q)` (default).
    #[default]
    SlackAfterSize,
    /// `d ~ U(r, r + q)`, as the text writes it.
    Literal,
}

impl Ch4Deadline {
    /// Config name.
    pub fn name(self) -> &'static str {
        match self {
            Ch4Deadline::SlackAfterSize => "slack_after_size",
            Ch4Deadline::Literal => "literal",
        }
    }

    /// Parses a config name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Ch4Deadline::SlackAfterSize, Ch4Deadline::Literal]
            .into_iter()
            .find(|d| d.name() == name)
    }
}

/// The two-part uniform size law: with probability `small_fraction` `U[min, split]`, else
/// `U(split, max]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitUniform {
    pub min: f64,
    pub split: f64,
    pub max: f64,
    pub small_fraction: f64,
}

impl Default for SplitUniform {
    /// 80% `U[1 min, 4 h]`, 20% `U(4 h, 36 h]` (spec A18).
    fn default() -> Self {
        SplitUniform {
            min: 1.0 / 60.0,
            split: 4.0,
            max: 36.0,
            small_fraction: 0.8,
        }
    }
}

impl SplitUniform {
    /// The mean size.
    pub fn mean(&self) -> f64 {
        self.small_fraction * (self.min + self.split) / 2.0
            + (1.0 - self.small_fraction) * (self.split + self.max) / 2.0
    }

    fn validate(&self) -> Result<(), DistError> {
        if !(self.min.is_finite() && self.min > 0.0) {
            return Err(DistError::NotPositive("smallest job size", self.min));
        }
        if !(self.split.is_finite()
            && self.max.is_finite()
            && self.min <= self.split
            && self.split <= self.max)
        {
            return Err(DistError::BadRange(self.min, self.max));
        }
        if !(0.0..=1.0).contains(&self.small_fraction) {
            return Err(DistError::BadRange(self.small_fraction, 1.0));
        }
        Ok(())
    }

    /// One draw from two numbers of the `sizes` stream (which part, then where in it).
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        let part: f64 = rng.random();
        let u: f64 = rng.random();
        if part < self.small_fraction {
            self.min + (self.split - self.min) * u
        } else {
            // U(split, max]: 1 - u is in (0, 1].
            self.split + (self.max - self.split) * (1.0 - u)
        }
    }
}

/// One chapter-4 request: at `arrival` a job of `work` (hours on a rate-1 server) asks to run
/// inside `[ready, deadline]`. Under [`Ch4Deadline::Literal`] the deadline may fall before
/// `ready + work`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkRequest {
    pub arrival: Time,
    pub ready: Time,
    pub work: f64,
    pub deadline: Time,
}

/// Castillo ch. 4 workload (defaults: the thesis's setting on `Σμ = 60`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeteroWorkload {
    /// Total service rate `Σμ` of the system.
    pub total_rate: f64,
    /// Offered load `ρ = λ x̄ / Σμ`.
    pub load: f64,
    pub sizes: SplitUniform,
    /// Book-ahead range `[min, max]`, hours (`[1 min, 14 d]`).
    pub book_ahead: (f64, f64),
    /// Deadline tightness `q`, hours (20).
    pub tightness: f64,
    pub arrival: Ch4Arrival,
    pub deadline: Ch4Deadline,
}

impl HeteroWorkload {
    /// The thesis's workload at load `load` on a system of total rate `total_rate`.
    pub fn new(total_rate: f64, load: f64) -> Self {
        HeteroWorkload {
            total_rate,
            load,
            sizes: SplitUniform::default(),
            book_ahead: (1.0 / 60.0, 14.0 * 24.0),
            tightness: 20.0,
            arrival: Ch4Arrival::default(),
            deadline: Ch4Deadline::default(),
        }
    }

    /// Poisson arrival rate `λ = ρ Σμ / x̄` (per hour).
    pub fn arrival_rate(&self) -> f64 {
        self.load * self.total_rate / self.sizes.mean()
    }

    /// The request stream of one replication: arrivals, sizes, book-ahead and deadline slack
    /// come from four named streams under `key`.
    pub fn stream(&self, key: &StreamKey) -> Result<HeteroStream, DistError> {
        self.sizes.validate()?;
        let (lo, hi) = self.book_ahead;
        let book_ahead = Uniform::new(lo, hi)?;
        if lo < 0.0 {
            return Err(DistError::BadRange(lo, hi));
        }
        if !(self.tightness.is_finite() && self.tightness >= 0.0) {
            return Err(DistError::NotPositive(
                "deadline tightness q",
                self.tightness,
            ));
        }
        let inter_arrival = match self.arrival {
            Ch4Arrival::BookAhead => Some(Exponential::new(self.arrival_rate())?),
            Ch4Arrival::Literal => None,
        };
        Ok(HeteroStream {
            workload: *self,
            inter_arrival,
            book_ahead,
            slack: Uniform::new(0.0, self.tightness)?,
            arrivals: key.clone().stream("arrivals").rng(),
            sizes: key.clone().stream("sizes").rng(),
            ready: key.clone().stream("ready").rng(),
            deadlines: key.clone().stream("deadlines").rng(),
            now: 0.0,
        })
    }
}

/// An endless iterator of chapter-4 requests in arrival order.
#[derive(Debug, Clone)]
pub struct HeteroStream {
    workload: HeteroWorkload,
    inter_arrival: Option<Exponential>,
    book_ahead: Uniform,
    slack: Uniform,
    arrivals: SimRng,
    sizes: SimRng,
    ready: SimRng,
    deadlines: SimRng,
    now: Time,
}

impl Iterator for HeteroStream {
    type Item = WorkRequest;

    fn next(&mut self) -> Option<WorkRequest> {
        let w = &self.workload;
        let (arrival, ready) = match &self.inter_arrival {
            Some(exp) => {
                self.now += exp.sample(&mut self.arrivals);
                (self.now, self.now + self.book_ahead.sample(&mut self.ready))
            }
            None => {
                self.now += self.book_ahead.sample(&mut self.arrivals);
                (self.now, self.now)
            }
        };
        let work = w.sizes.sample(&mut self.sizes);
        let slack = self.slack.sample(&mut self.deadlines);
        let deadline = match w.deadline {
            Ch4Deadline::SlackAfterSize => ready + work + slack,
            Ch4Deadline::Literal => ready + slack,
        };
        Some(WorkRequest {
            arrival,
            ready,
            work,
            deadline,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_has_the_thesis_shape() {
        let w = HeteroWorkload::new(60.0, 0.7);
        assert!((w.sizes.mean() - 5.606_666_666).abs() < 1e-6);
        let reqs: Vec<WorkRequest> = w
            .stream(&StreamKey::new(4, "t"))
            .unwrap()
            .take(100_000)
            .collect();
        let n = reqs.len() as f64;
        let small = reqs.iter().filter(|r| r.work <= 4.0).count() as f64 / n;
        assert!((small - 0.8).abs() < 0.01, "{small}");
        let mean = reqs.iter().map(|r| r.work).sum::<f64>() / n;
        assert!((mean - 5.607).abs() < 0.1, "{mean}");
        let mut prev = 0.0;
        for r in &reqs {
            assert!(r.arrival >= prev);
            prev = r.arrival;
            let ahead = r.ready - r.arrival;
            assert!((1.0 / 60.0..=336.0).contains(&ahead));
            assert!((1.0 / 60.0..=36.0).contains(&r.work));
            let slack = r.deadline - r.ready - r.work;
            assert!((-1e-9..=20.0 + 1e-9).contains(&slack));
        }
        let span = reqs.last().unwrap().arrival;
        let rho = reqs.iter().map(|r| r.work).sum::<f64>() / (60.0 * span);
        assert!((rho - 0.7).abs() < 0.02, "offered load {rho}");
    }

    #[test]
    fn switches_change_only_their_law() {
        let mut w = HeteroWorkload::new(60.0, 0.5);
        let key = StreamKey::new(1, "t").replication(3);
        let a: Vec<WorkRequest> = w.stream(&key).unwrap().take(50).collect();
        w.deadline = Ch4Deadline::Literal;
        let b: Vec<WorkRequest> = w.stream(&key).unwrap().take(50).collect();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.arrival, x.ready, x.work), (y.arrival, y.ready, y.work));
            assert!((x.deadline - x.work - y.deadline).abs() < 1e-9);
        }
        w.arrival = Ch4Arrival::Literal;
        let c: Vec<WorkRequest> = w.stream(&key).unwrap().take(1000).collect();
        assert!(c.iter().all(|r| r.ready == r.arrival));
        let mean_gap = c.last().unwrap().arrival / 1000.0;
        assert!((mean_gap - 168.0).abs() < 15.0, "{mean_gap}");
        for name in ["book_ahead", "literal"] {
            assert_eq!(Ch4Arrival::from_name(name).unwrap().name(), name);
        }
        for name in ["slack_after_size", "literal"] {
            assert_eq!(Ch4Deadline::from_name(name).unwrap().name(), name);
        }
    }
}
