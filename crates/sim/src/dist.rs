//! The distributions the documents' workloads are built from.

use rand::Rng;
use rand_distr::Distribution;

/// An invalid distribution parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DistError {
    #[error("{0} must be a positive finite number, got {1}")]
    NotPositive(&'static str, f64),
    #[error("bounded Pareto needs 0 < k < p, got k = {k}, p = {p}")]
    BadBounds { k: f64, p: f64 },
    #[error("uniform needs low <= high (finite), got [{0}, {1}]")]
    BadRange(f64, f64),
    #[error(
        "no bounded Pareto on [{k}, {p}] has mean {mean}: reachable means are ({lo:.4}, {hi:.4})"
    )]
    MeanOutOfReach {
        k: f64,
        p: f64,
        mean: f64,
        lo: f64,
        hi: f64,
    },
}

/// Exponential distribution with the given rate (mean `1 / rate`); Poisson inter-arrival times.
#[derive(Debug, Clone, Copy)]
pub struct Exponential {
    inner: rand_distr::Exp<f64>,
    rate: f64,
}

impl Exponential {
    /// Exponential with rate `rate > 0`.
    pub fn new(rate: f64) -> Result<Self, DistError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(DistError::NotPositive("rate", rate));
        }
        let inner = rand_distr::Exp::new(rate).map_err(|_| DistError::NotPositive("rate", rate))?;
        Ok(Exponential { inner, rate })
    }

    /// The rate.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// One draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.inner.sample(rng)
    }
}

/// Continuous uniform distribution on `[low, high]`; `low == high` is allowed (a constant), as
/// the documents' formulas produce it at their boundary parameters (e.g. deadline slack `q = 0`).
#[derive(Debug, Clone, Copy)]
pub struct Uniform {
    low: f64,
    high: f64,
}

impl Uniform {
    /// Uniform on `[low, high]`.
    pub fn new(low: f64, high: f64) -> Result<Self, DistError> {
        if !(low.is_finite() && high.is_finite() && low <= high) {
            return Err(DistError::BadRange(low, high));
        }
        Ok(Uniform { low, high })
    }

    /// One draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        if self.low == self.high {
            // Still consume a number so a stream's later draws do not depend on the boundary.
            let _: f64 = rng.random();
            return self.low;
        }
        let u: f64 = rng.random();
        self.low + (self.high - self.low) * u
    }
}

/// Bounded Pareto distribution on `[k, p]` with shape `alpha` (Castillo ch. 3 job sizes:
/// `k = l_min = 1`, `p = 50`, `alpha ~ 1.2` for a mean of 3.28).
///
/// Sampled by inverting the CDF `F(x) = (1 - (k/x)^alpha) / (1 - (k/p)^alpha)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundedPareto {
    k: f64,
    p: f64,
    alpha: f64,
    /// `1 - (k/p)^alpha`, the normalising mass.
    mass: f64,
}

impl BoundedPareto {
    /// Bounded Pareto on `[k, p]` with shape `alpha > 0`.
    pub fn new(k: f64, p: f64, alpha: f64) -> Result<Self, DistError> {
        if !(k.is_finite() && p.is_finite() && 0.0 < k && k < p) {
            return Err(DistError::BadBounds { k, p });
        }
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(DistError::NotPositive("alpha", alpha));
        }
        Ok(BoundedPareto {
            k,
            p,
            alpha,
            mass: 1.0 - (k / p).powf(alpha),
        })
    }

    /// The bounded Pareto on `[k, p]` whose mean is `mean` (shape found by bisection; the mean
    /// decreases strictly in `alpha`, from `(p - k) / ln(p / k)` at 0 towards `k`).
    pub fn with_mean(k: f64, p: f64, mean: f64) -> Result<Self, DistError> {
        BoundedPareto::new(k, p, 1.0)?;
        let mean_at = |alpha: f64| BoundedPareto::new(k, p, alpha).map(|d| d.mean());
        let (mut lo, mut hi) = (1e-9_f64, 200.0_f64);
        let (m_lo, m_hi) = (mean_at(lo)?, mean_at(hi)?);
        if !(mean < m_lo && mean > m_hi) {
            return Err(DistError::MeanOutOfReach {
                k,
                p,
                mean,
                lo: m_hi,
                hi: m_lo,
            });
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mean_at(mid)? > mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        BoundedPareto::new(k, p, 0.5 * (lo + hi))
    }

    /// Lower bound `k`.
    pub fn min(&self) -> f64 {
        self.k
    }

    /// Upper bound `p`.
    pub fn max(&self) -> f64 {
        self.p
    }

    /// Shape.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Mean: `alpha/(alpha-1) * k^alpha * (k^(1-alpha) - p^(1-alpha)) / mass`, and
    /// `k ln(p/k) / mass` at `alpha = 1`.
    pub fn mean(&self) -> f64 {
        let (k, p, a) = (self.k, self.p, self.alpha);
        if (a - 1.0).abs() < 1e-12 {
            k * (p / k).ln() / self.mass
        } else {
            a / (a - 1.0) * k.powf(a) * (k.powf(1.0 - a) - p.powf(1.0 - a)) / self.mass
        }
    }

    /// Cumulative distribution function (0 below `k`, 1 above `p`).
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= self.k {
            0.0
        } else if x >= self.p {
            1.0
        } else {
            (1.0 - (self.k / x).powf(self.alpha)) / self.mass
        }
    }

    /// Inverse CDF at `u` in `[0, 1)`.
    pub fn quantile(&self, u: f64) -> f64 {
        let x = self.k * (1.0 - u * self.mass).powf(-1.0 / self.alpha);
        x.clamp(self.k, self.p)
    }

    /// One draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.quantile(rng.random())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StreamKey;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Castillo spec §2.21: x̄(alpha) for k = 1, p = 50.
    #[test]
    fn bounded_pareto_mean_table() {
        let table = [
            (2.0, 1.961),
            (1.5, 2.583),
            (1.2, 3.286),
            (1.0, 3.992),
            (0.8, 4.964),
            (0.64, 5.981),
            (0.5, 7.071),
            (0.4, 7.971),
            (0.3, 8.973),
            (0.2, 10.073),
        ];
        for (alpha, mean) in table {
            let d = BoundedPareto::new(1.0, 50.0, alpha).unwrap();
            assert!(
                close(d.mean(), mean, 5e-4),
                "alpha {alpha}: {} vs {mean}",
                d.mean()
            );
        }
        // F-dist fixtures.
        assert!(close(
            BoundedPareto::new(1.0, 50.0, 1.2).unwrap().mean(),
            3.2862,
            5e-5
        ));
        assert!(close(
            BoundedPareto::new(1.0, 50.0, 1.0).unwrap().mean(),
            50.0 * 50f64.ln() / 49.0,
            1e-12
        ));
    }

    #[test]
    fn quantile_fixture_and_bounds() {
        let d = BoundedPareto::new(1.0, 50.0, 1.2).unwrap();
        assert!(close(d.quantile(0.5), 1.76833, 5e-6));
        assert_eq!(d.quantile(0.0), 1.0);
        assert!(d.quantile(1.0 - 1e-16) <= 50.0);
        assert!(close(d.cdf(d.quantile(0.3)), 0.3, 1e-12));
    }

    #[test]
    fn solver_finds_alpha_for_target_mean() {
        let d = BoundedPareto::with_mean(1.0, 50.0, 3.28).unwrap();
        assert!(close(d.alpha(), 1.2021, 5e-4), "alpha {}", d.alpha());
        assert!(close(d.mean(), 3.28, 1e-9));
        for target in [1.5, 3.0, 6.0, 12.0] {
            let d = BoundedPareto::with_mean(1.0, 50.0, target).unwrap();
            assert!(close(d.mean(), target, 1e-9));
        }
        assert!(BoundedPareto::with_mean(1.0, 50.0, 12.6).is_err());
        assert!(BoundedPareto::with_mean(1.0, 50.0, 0.9).is_err());
    }

    #[test]
    fn sample_means_match() {
        let mut rng = StreamKey::new(3, "dist-test").rng();
        let n = 200_000;
        let bp = BoundedPareto::new(1.0, 50.0, 1.2).unwrap();
        let m: f64 = (0..n).map(|_| bp.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!(close(m, bp.mean(), 0.05), "{m}");
        let ex = Exponential::new(4.0).unwrap();
        let m: f64 = (0..n).map(|_| ex.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!(close(m, 0.25, 0.005), "{m}");
        let u = Uniform::new(2.0, 6.0).unwrap();
        let m: f64 = (0..n).map(|_| u.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!(close(m, 4.0, 0.02), "{m}");
        assert_eq!(Uniform::new(3.0, 3.0).unwrap().sample(&mut rng), 3.0);
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert!(Exponential::new(0.0).is_err());
        assert!(Exponential::new(f64::NAN).is_err());
        assert!(Uniform::new(2.0, 1.0).is_err());
        assert!(BoundedPareto::new(2.0, 1.0, 1.0).is_err());
        assert!(BoundedPareto::new(1.0, 2.0, -1.0).is_err());
    }
}
