//! Replication statistics.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean, sample standard deviation and Student-t 95% confidence half-width of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    /// `t_{0.975, n-1} * sd / sqrt(n)`; 0 for fewer than two values.
    pub half_width: f64,
}

impl Summary {
    /// Summarises independent replications (e.g. 30 runs: `t = 2.045`).
    pub fn of(sample: &[f64]) -> Summary {
        let n = sample.len();
        if n == 0 {
            return Summary {
                n,
                mean: f64::NAN,
                sd: f64::NAN,
                half_width: f64::NAN,
            };
        }
        let mean = sample.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Summary {
                n,
                mean,
                sd: 0.0,
                half_width: 0.0,
            };
        }
        let var = sample.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let half_width = t_quantile_975(n - 1) * sd / (n as f64).sqrt();
        Summary {
            n,
            mean,
            sd,
            half_width,
        }
    }

    /// Lower end of the 95% confidence interval.
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    /// Upper end of the 95% confidence interval.
    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }
}

/// `(mean, 95% half-width)` of a sample.
pub fn mean_ci95(sample: &[f64]) -> (f64, f64) {
    let s = Summary::of(sample);
    (s.mean, s.half_width)
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile_975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(f64::NAN)
}

/// The 0.975 quantile of Student's t with a real number of degrees of freedom (Welch's
/// approximate `ν`).
pub fn t_quantile_975_real(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(f64::NAN)
}

/// The 95 % half-width of a linear combination of independent sample means (Welch): each term
/// is `(c_i · se_i, n_i)`, a mean's coefficient times its standard error and its sample size.
/// The variance is `Σ (c_i se_i)²`, the degrees of freedom Welch–Satterthwaite's
/// `(Σ v_i)² / Σ v_i² / (n_i − 1)`. Terms from fewer than two values carry no variance;
/// without any variance the half-width is 0.
pub fn welch_half_width(terms: &[(f64, usize)]) -> f64 {
    let (mut var, mut den) = (0.0_f64, 0.0_f64);
    for &(c_se, n) in terms {
        if n < 2 || !c_se.is_finite() || c_se == 0.0 {
            continue;
        }
        let v = c_se * c_se;
        var += v;
        den += v * v / (n - 1) as f64;
    }
    if var == 0.0 || den == 0.0 {
        return 0.0;
    }
    t_quantile_975_real(var * var / den) * var.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_half_widths() {
        // One mean: its own Student-t half-width.
        let se = 2.0 / 5.0_f64.sqrt();
        assert!((welch_half_width(&[(se, 5)]) - t_quantile_975(4) * se).abs() < 1e-9);
        // Two equal samples (n = 10 each): df = 18, half-width t(18) · se · sqrt(2).
        let se = 1.0 / 10.0_f64.sqrt();
        let h = welch_half_width(&[(se, 10), (-se, 10)]);
        assert!((h - t_quantile_975(18) * se * 2.0_f64.sqrt()).abs() < 1e-9);
        // A term without variance (or from one value) changes nothing.
        assert_eq!(welch_half_width(&[(se, 10), (0.0, 10), (5.0, 1)]), {
            welch_half_width(&[(se, 10)])
        });
        assert_eq!(welch_half_width(&[]), 0.0);
    }

    #[test]
    fn t_quantiles() {
        assert!((t_quantile_975(29) - 2.045).abs() < 5e-4);
        assert!((t_quantile_975(2) - 4.303).abs() < 5e-4);
        assert!((t_quantile_975(1_000_000) - 1.960).abs() < 5e-4);
    }

    #[test]
    fn summary_of_sample() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.sd - 1.2909944).abs() < 1e-6);
        assert!((s.half_width - 3.182446 * 1.2909944 / 2.0).abs() < 1e-5);
        assert_eq!(Summary::of(&[5.0]).half_width, 0.0);
        assert!(Summary::of(&[]).mean.is_nan());
    }
}
