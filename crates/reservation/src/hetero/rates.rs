//! (H, n)-heterogeneous systems ordered by majorization (Castillo §4.1.1, spec §2.12).
//!
//! A rate vector `C'` *majorizes* `C` (`C' ⪰ C`, "more heterogeneous") when every prefix sum of
//! its rates sorted in descending order is at least `C`'s and the totals are equal (4.1). The
//! thesis runs `n = 120` servers in `H = 3` groups at `L = 4` levels of heterogeneity
//! `(H,n)_4 ⪰ … ⪰ (H,n)_1 ⪰ (H,n)_0` (4.2) with the same total rate, but never gives the rates;
//! [`RateProposal`] holds the two readings of spec §2.12 (switch `rates`, A21).

use std::fmt;

/// Tolerance on sums of rates (they are sums of at most a few thousand numbers in (0, 1]).
const SUM_TOLERANCE: f64 = 1e-9;

/// How the group rates of level `ℓ = 0..=4` are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateProposal {
    /// Three equal groups with rates `(0.5 − 0.1ℓ, 0.5, 0.5 + 0.1ℓ)`: level 1 = (0.4, 0.5, 0.6),
    /// level 4 = (0.1, 0.5, 0.9), total `n / 2` (spec proposal A, the default).
    #[default]
    A,
    /// A few fast servers get faster (§4.6: "the service rate of a few fast processors must
    /// increase further"): groups of `n/6` fast, `n/3` medium and `n/2` slow servers with rates
    /// `f = 0.5 + 0.125ℓ`, `0.5` and whatever keeps the total at `n / 2`; level 4 =
    /// (1.0, 0.5, 1/3) (spec proposal B).
    B,
}

impl RateProposal {
    /// Config name.
    pub fn name(self) -> &'static str {
        match self {
            RateProposal::A => "A",
            RateProposal::B => "B",
        }
    }

    /// Parses a config name (`A` / `B`, any case).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "A" | "a" => Some(RateProposal::A),
            "B" | "b" => Some(RateProposal::B),
            _ => None,
        }
    }
}

/// The most heterogeneous level either proposal defines (`L = 4`).
pub const MAX_LEVEL: u32 = 4;

/// Servers sharing one rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateGroup {
    pub servers: u32,
    pub rate: f64,
}

/// A rate vector that cannot be built or fails a majorization check.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct RateVectorError(pub String);

/// The groups of level `level` for `servers` servers, slowest first.
///
/// Proposal A needs no particular `n` (the slow and fast groups get `⌊n/3⌋` servers each, the
/// middle group the rest, so the total stays `n/2`); proposal B needs `n` divisible by 6.
pub fn level_groups(
    proposal: RateProposal,
    level: u32,
    servers: u32,
) -> Result<Vec<RateGroup>, RateVectorError> {
    if level > MAX_LEVEL {
        return Err(RateVectorError(format!(
            "heterogeneity level {level} is not defined (levels are 0..={MAX_LEVEL})"
        )));
    }
    if servers == 0 {
        return Err(RateVectorError("at least one server is needed".into()));
    }
    let l = f64::from(level);
    let groups = match proposal {
        RateProposal::A => {
            let side = servers / 3;
            vec![
                RateGroup {
                    servers: side,
                    rate: 0.5 - 0.1 * l,
                },
                RateGroup {
                    servers: servers - 2 * side,
                    rate: 0.5,
                },
                RateGroup {
                    servers: side,
                    rate: 0.5 + 0.1 * l,
                },
            ]
        }
        RateProposal::B => {
            if !servers.is_multiple_of(6) {
                return Err(RateVectorError(format!(
                    "rate proposal B needs a number of servers divisible by 6, got {servers}"
                )));
            }
            let (fast, mid, slow) = (servers / 6, servers / 3, servers / 2);
            let f = 0.5 + 0.125 * l;
            let total = 0.5 * f64::from(servers);
            let s = (total - 0.5 * f64::from(mid) - f * f64::from(fast)) / f64::from(slow);
            vec![
                RateGroup {
                    servers: slow,
                    rate: s,
                },
                RateGroup {
                    servers: mid,
                    rate: 0.5,
                },
                RateGroup {
                    servers: fast,
                    rate: f,
                },
            ]
        }
    };
    Ok(groups.into_iter().filter(|g| g.servers > 0).collect())
}

/// The rate of every server at a level: servers are numbered group by group, slowest group
/// first (so among equal start times the lowest server id — the thesis's tie-break — is the
/// slowest server).
pub fn level_rates(
    proposal: RateProposal,
    level: u32,
    servers: u32,
) -> Result<Vec<f64>, RateVectorError> {
    let groups = level_groups(proposal, level, servers)?;
    let mut rates = Vec::with_capacity(servers as usize);
    for g in groups {
        rates.extend(std::iter::repeat_n(g.rate, g.servers as usize));
    }
    Ok(rates)
}

/// Prefix sums of the rates sorted in descending order: `Σ_{i<=k} μ_[i]` for `k = 1..=n`.
pub fn descending_prefix_sums(rates: &[f64]) -> Vec<f64> {
    let mut sorted = rates.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    sorted
        .iter()
        .scan(0.0, |acc, r| {
            *acc += r;
            Some(*acc)
        })
        .collect()
}

/// Checks `more ⪰ less` (4.1): equal length, equal totals, and every descending prefix sum of
/// `more` at least that of `less` (all up to a tolerance of `1e-9`).
pub fn check_majorizes(more: &[f64], less: &[f64]) -> Result<(), RateVectorError> {
    if more.len() != less.len() {
        return Err(RateVectorError(format!(
            "vectors of {} and {} servers cannot be compared",
            more.len(),
            less.len()
        )));
    }
    let (a, b) = (descending_prefix_sums(more), descending_prefix_sums(less));
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        if *x + SUM_TOLERANCE < *y {
            return Err(RateVectorError(format!(
                "prefix sum of the {} largest rates is {x}, below {y}",
                k + 1
            )));
        }
    }
    if let (Some(x), Some(y)) = (a.last(), b.last())
        && (x - y).abs() > SUM_TOLERANCE
    {
        return Err(RateVectorError(format!("total rates differ: {x} vs {y}")));
    }
    Ok(())
}

/// Checks that a proposal's levels form the chain (4.2): every rate in (0, 1], and each level
/// majorizes the previous one with the same total rate.
pub fn check_level_chain(proposal: RateProposal, servers: u32) -> Result<(), RateVectorError> {
    let mut previous: Option<Vec<f64>> = None;
    for level in 0..=MAX_LEVEL {
        let rates = level_rates(proposal, level, servers)?;
        if let Some(bad) = rates
            .iter()
            .find(|r| !(**r > 0.0 && **r <= 1.0 + SUM_TOLERANCE))
        {
            return Err(RateVectorError(format!(
                "proposal {} level {level}: rate {bad} is not in (0, 1]",
                proposal.name()
            )));
        }
        if let Some(prev) = &previous {
            check_majorizes(&rates, prev).map_err(|e| {
                RateVectorError(format!(
                    "proposal {} level {level} does not majorize level {}: {e}",
                    proposal.name(),
                    level - 1
                ))
            })?;
        }
        previous = Some(rates);
    }
    Ok(())
}

impl fmt::Display for RateGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} x {}", self.servers, self.rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec §6 F4.1 "majorization check (proposal A)".
    #[test]
    fn proposal_a_prefix_sums_match_the_spec() {
        let sums =
            |level| descending_prefix_sums(&level_rates(RateProposal::A, level, 120).unwrap());
        let (l0, l1, l4) = (sums(0), sums(1), sums(4));
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(near(l0[39], 20.0) && near(l1[39], 24.0) && near(l4[39], 36.0));
        assert!(near(l0[79], 40.0) && near(l1[79], 44.0) && near(l4[79], 56.0));
        for s in [&l0, &l1, &l4] {
            assert!(near(s[119], 60.0));
        }
        check_level_chain(RateProposal::A, 120).unwrap();
    }

    #[test]
    fn proposal_b_keeps_the_total_and_majorizes() {
        let g = level_groups(RateProposal::B, 4, 120).unwrap();
        assert_eq!(g[0].servers, 60);
        assert!((g[0].rate - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((g[2].servers, g[2].rate), (20, 1.0));
        check_level_chain(RateProposal::B, 120).unwrap();
        check_level_chain(RateProposal::A, 7).unwrap();
        assert!(level_groups(RateProposal::B, 1, 100).is_err());
        assert!(level_groups(RateProposal::A, 5, 120).is_err());
    }

    #[test]
    fn majorization_violations_are_reported() {
        let homogeneous = vec![0.5; 4];
        let spread = vec![0.2, 0.4, 0.6, 0.8];
        check_majorizes(&spread, &homogeneous).unwrap();
        let err = check_majorizes(&homogeneous, &spread).unwrap_err();
        assert!(err.0.contains("prefix sum of the 1 largest"), "{err}");
        let err = check_majorizes(&[0.9, 0.5, 0.5, 0.5], &homogeneous).unwrap_err();
        assert!(err.0.contains("total rates differ"), "{err}");
    }
}
