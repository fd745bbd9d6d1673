//! Seeded ETC generators.
//!
//! - [`RangeBased`]: Braun et al. (2001)'s range-based method with task and machine
//!   heterogeneity and the consistent / inconsistent / semi-consistent classes.
//! - [`KumarWorkload`]: Kumar (2010) ch. 5's GridSim-like workload (spec §3.1–§3.2): task
//!   lengths by GridSim's `real()` formula in three cases, resources of 15–20 machines of 2–4
//!   processing elements, `ETC[i][j] = length_i / speed_j`.
//!
//! All draws use `rng.random::<f64>()` (53-bit uniforms in `[0, 1)`) in a fixed, documented
//! order, so a seed gives the same matrix on every platform.

use gridsched_sim::StreamKey;
use rand::Rng;

use crate::etc::{Consistency, EtcError, EtcMatrix, MAX_ENTRIES};

/// A uniform integer in `lo..=hi` from one `f64` draw.
fn int_in<R: Rng + ?Sized>(rng: &mut R, lo: u32, hi: u32) -> u32 {
    let u: f64 = rng.random();
    let span = f64::from(hi - lo + 1);
    lo + ((u * span) as u32).min(hi - lo)
}

/// A uniform real in `[lo, hi)`.
fn real_in<R: Rng + ?Sized>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    lo + (hi - lo) * u
}

/// Braun et al. (2001)'s range-based ETC generation: a task baseline `τ_i ~ U[1, φ_b)`, then
/// `ETC[i][j] = τ_i · U[1, φ_r)`; a consistent matrix has every row sorted ascending, a
/// semi-consistent one the even-indexed columns of every row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeBased {
    pub tasks: usize,
    pub machines: usize,
    /// `φ_b`: 3000 for high, 100 for low task heterogeneity.
    pub task_heterogeneity: f64,
    /// `φ_r`: 1000 for high, 10 for low machine heterogeneity.
    pub machine_heterogeneity: f64,
    pub consistency: Consistency,
}

/// High / low task heterogeneity of Braun et al.
pub const TASK_HET: (f64, f64) = (3000.0, 100.0);
/// High / low machine heterogeneity of Braun et al.
pub const MACHINE_HET: (f64, f64) = (1000.0, 10.0);

impl RangeBased {
    /// The generator of one of the twelve Braun classes by its name (`u_c_hihi`, `u_s_lolo`,
    /// ... — the benchmark's file names without `.0`): 512 tasks × 16 machines.
    pub fn braun_class(name: &str) -> Result<RangeBased, String> {
        let bad = || {
            format!(
                "`{name}` is not a Braun class; expected u_{{c,i,s}}_{{hi,lo}}{{hi,lo}}, e.g. u_c_hihi"
            )
        };
        let rest = name.strip_prefix("u_").ok_or_else(bad)?;
        let mut chars = rest.chars();
        let consistency = chars
            .next()
            .and_then(Consistency::from_letter)
            .ok_or_else(bad)?;
        let het = rest
            .get(2..)
            .filter(|_| chars.next() == Some('_'))
            .ok_or_else(bad)?;
        let level = |s: &str, (hi, lo): (f64, f64)| match s {
            "hi" => Ok(hi),
            "lo" => Ok(lo),
            _ => Err(bad()),
        };
        if het.len() != 4 || !het.is_ascii() {
            return Err(bad());
        }
        Ok(RangeBased {
            tasks: 512,
            machines: 16,
            task_heterogeneity: level(&het[..2], TASK_HET)?,
            machine_heterogeneity: level(&het[2..], MACHINE_HET)?,
            consistency,
        })
    }

    /// Draws a matrix: per task, `τ` then its `m` multipliers (task order).
    pub fn generate<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<EtcMatrix, EtcError> {
        if !(self.task_heterogeneity >= 1.0 && self.machine_heterogeneity >= 1.0) {
            return Err(EtcError::Invalid {
                task: 0,
                machine: 0,
                value: self.task_heterogeneity.min(self.machine_heterogeneity),
            });
        }
        let n = self
            .tasks
            .checked_mul(self.machines)
            .filter(|&n| n <= MAX_ENTRIES)
            .ok_or(EtcError::TooLarge {
                tasks: self.tasks,
                machines: self.machines,
            })?;
        let mut values = Vec::with_capacity(n.min(1 << 26));
        for _ in 0..self.tasks {
            let tau = real_in(rng, 1.0, self.task_heterogeneity);
            let row_start = values.len();
            for _ in 0..self.machines {
                values.push(tau * real_in(rng, 1.0, self.machine_heterogeneity));
            }
            let row = &mut values[row_start..];
            match self.consistency {
                Consistency::Consistent => row.sort_by(f64::total_cmp),
                Consistency::SemiConsistent => {
                    let mut even: Vec<f64> = row.iter().step_by(2).copied().collect();
                    even.sort_by(f64::total_cmp);
                    for (slot, v) in row.iter_mut().step_by(2).zip(even) {
                        *slot = v;
                    }
                }
                Consistency::Inconsistent => {}
            }
        }
        EtcMatrix::new(self.tasks, self.machines, values)
    }
}

/// Kumar's three task cases (spec §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KumarCase {
    /// Case I: a few (share `p`) short tasks (value 100) among many long ones (value 9000).
    FewShort,
    /// Case II: a few long tasks among many short ones (the text swaps the values: spec A5).
    FewLong,
    /// Case III: `value ~ U(100, 9000)` and `lessFactor`, `moreFactor`, `randDouble ~ U(0, 1)`.
    Random,
}

impl KumarCase {
    /// Case number 1, 2 or 3.
    pub fn from_number(n: u32) -> Option<KumarCase> {
        match n {
            1 => Some(KumarCase::FewShort),
            2 => Some(KumarCase::FewLong),
            3 => Some(KumarCase::Random),
            _ => None,
        }
    }

    /// `Case I`, `Case II`, `Case III`.
    pub fn label(self) -> &'static str {
        match self {
            KumarCase::FewShort => "Case I",
            KumarCase::FewLong => "Case II",
            KumarCase::Random => "Case III",
        }
    }
}

/// Processing-element speed (spec A7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PeSpeed {
    /// The same MIPS rating for every PE (default 377, GridSim's example rating).
    Fixed(f64),
    /// One rating per resource, `U[lo, hi)` (variant: `U[100, 1000)`).
    PerResource(f64, f64),
}

/// GridSim's `GridSimRandom.real(value, lessFactor, moreFactor, randDouble)`.
pub fn gridsim_real(value: f64, less: f64, more: f64, u: f64) -> f64 {
    value * (1.0 - less + (less + more) * u)
}

/// Kumar (2010) ch. 5's workload (spec §3.2): `tasks` tasks on `resources` resources, each
/// modelled as one sequential queue with speed `Σ_PEs MIPS` (spec A7), all tasks in one static
/// batch at time 0 (A8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KumarWorkload {
    pub tasks: usize,
    pub resources: usize,
    pub case: KumarCase,
    /// Share of the minority class in Cases I/II (spec A6: 2–10 %, default 0.06); the count is
    /// `round(p · t)`.
    pub minority_share: f64,
    pub machines_per_resource: (u32, u32),
    pub pes_per_machine: (u32, u32),
    pub pe_speed: PeSpeed,
}

impl KumarWorkload {
    /// The spec's defaults: 1000 tasks, 10 resources of 15–20 machines × 2–4 PEs at 377 MIPS,
    /// minority share 0.06.
    pub fn new(case: KumarCase) -> Self {
        KumarWorkload {
            tasks: 1000,
            resources: 10,
            case,
            minority_share: 0.06,
            machines_per_resource: (15, 20),
            pes_per_machine: (2, 4),
            pe_speed: PeSpeed::Fixed(377.0),
        }
    }

    /// Checks the parameters (a matrix of more than [`MAX_ENTRIES`] entries is too large).
    pub fn validate(&self) -> Result<(), String> {
        if self.tasks == 0 || self.resources == 0 {
            return Err("need at least one task and one resource".into());
        }
        if self
            .tasks
            .checked_mul(self.resources)
            .is_none_or(|n| n > MAX_ENTRIES)
        {
            // The same refusal as the matrix's (EtcError::TooLarge), before anything is drawn.
            return Err(EtcError::TooLarge {
                tasks: self.tasks,
                machines: self.resources,
            }
            .to_string());
        }
        if !(0.0..=1.0).contains(&self.minority_share) {
            return Err(format!(
                "minority share {} is not in [0, 1]",
                self.minority_share
            ));
        }
        let (a, b) = self.machines_per_resource;
        let (c, d) = self.pes_per_machine;
        if a == 0 || a > b || c == 0 || c > d {
            return Err("machine and PE counts need 1 <= low <= high".into());
        }
        match self.pe_speed {
            PeSpeed::Fixed(s) if s.is_finite() && s > 0.0 => Ok(()),
            PeSpeed::PerResource(lo, hi)
                if lo.is_finite() && hi.is_finite() && 0.0 < lo && lo <= hi =>
            {
                Ok(())
            }
            s => Err(format!("PE speed {s:?} must be positive and finite")),
        }
    }

    /// Resource speeds (MIPS), drawn from `rng` in resource order: machine count, then each
    /// machine's PE count, then (per-resource speeds only) the MIPS rating.
    pub fn speeds<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        (0..self.resources)
            .map(|_| {
                let machines = int_in(
                    rng,
                    self.machines_per_resource.0,
                    self.machines_per_resource.1,
                );
                let pes: u32 = (0..machines)
                    .map(|_| int_in(rng, self.pes_per_machine.0, self.pes_per_machine.1))
                    .sum();
                let mips = match self.pe_speed {
                    PeSpeed::Fixed(s) => s,
                    PeSpeed::PerResource(lo, hi) => real_in(rng, lo, hi),
                };
                f64::from(pes) * mips
            })
            .collect()
    }

    /// Task lengths (MI). Cases I/II: the class vector `[few; round(p·t)] ++ [many; ...]` is
    /// Fisher–Yates shuffled with `classes`, then each task draws `randDouble` from `lengths`
    /// in task order. Case III: per task, `value`, `lessFactor`, `moreFactor`, `randDouble`
    /// from `lengths`.
    pub fn lengths<R: Rng + ?Sized>(&self, classes: &mut R, lengths: &mut R) -> Vec<f64> {
        let t = self.tasks;
        let (few, many) = match self.case {
            KumarCase::FewShort => (100.0, 9000.0),
            KumarCase::FewLong => (9000.0, 100.0),
            KumarCase::Random => {
                return (0..t)
                    .map(|_| {
                        let value = real_in(lengths, 100.0, 9000.0);
                        let less: f64 = lengths.random();
                        let more: f64 = lengths.random();
                        let u: f64 = lengths.random();
                        gridsim_real(value, less, more, u)
                    })
                    .collect();
            }
        };
        let n_few = ((self.minority_share * t as f64).round() as usize).min(t);
        let mut value: Vec<f64> = (0..t).map(|i| if i < n_few { few } else { many }).collect();
        for i in (1..t).rev() {
            let j = int_in(classes, 0, i as u32) as usize;
            value.swap(i, j);
        }
        value
            .into_iter()
            .map(|v| {
                let u: f64 = lengths.random();
                gridsim_real(v, 0.1, 0.9, u)
            })
            .collect()
    }

    /// The ETC matrix of one replication: streams `resources`, `classes` and `lengths` under
    /// `key`.
    pub fn generate(&self, key: &StreamKey) -> Result<EtcMatrix, String> {
        self.validate()?;
        let speeds = self.speeds(&mut key.clone().stream("resources").rng());
        let lengths = self.lengths(
            &mut key.clone().stream("classes").rng(),
            &mut key.clone().stream("lengths").rng(),
        );
        let mut values = Vec::with_capacity(lengths.len() * speeds.len());
        for len in &lengths {
            values.extend(speeds.iter().map(|s| len / s));
        }
        EtcMatrix::new(lengths.len(), speeds.len(), values).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braun_classes_parse() {
        let g = RangeBased::braun_class("u_s_lohi").unwrap();
        assert_eq!(g.consistency, Consistency::SemiConsistent);
        assert_eq!(
            (g.task_heterogeneity, g.machine_heterogeneity),
            (100.0, 1000.0)
        );
        for bad in [
            "u_x_hihi",
            "c_hihi",
            "u_c_hih",
            "u_c_hihii",
            "u_chihi",
            "u_c_mehi",
            "u_c_hi€",
        ] {
            assert!(RangeBased::braun_class(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn range_based_classes_and_ranges() {
        let mut rng = StreamKey::new(1, "t").rng();
        for c in ["c", "i", "s"] {
            for het in ["hihi", "hilo", "lohi", "lolo"] {
                let g = RangeBased::braun_class(&format!("u_{c}_{het}")).unwrap();
                let m = g.generate(&mut rng).unwrap();
                assert_eq!((m.tasks(), m.machines()), (512, 16));
                let max = g.task_heterogeneity * g.machine_heterogeneity;
                assert!(m.values().iter().all(|&v| (1.0..max).contains(&v)));
                let class = m.consistency();
                assert_eq!(class, g.consistency, "u_{c}_{het}");
            }
        }
    }

    #[test]
    fn kumar_cases_have_the_stated_lengths() {
        let key = StreamKey::new(3, "kumar");
        for case in [KumarCase::FewShort, KumarCase::FewLong, KumarCase::Random] {
            let w = KumarWorkload::new(case);
            let etc = w.generate(&key).unwrap();
            assert_eq!((etc.tasks(), etc.machines()), (1000, 10));
            let lens = w.lengths(
                &mut key.clone().stream("classes").rng(),
                &mut key.clone().stream("lengths").rng(),
            );
            let short = lens.iter().filter(|&&l| l <= 190.0).count();
            match case {
                KumarCase::FewShort => assert_eq!(short, 60),
                KumarCase::FewLong => assert_eq!(short, 940),
                KumarCase::Random => {
                    assert!(lens.iter().all(|&l| (0.0..18000.0).contains(&l)));
                    let mean = lens.iter().sum::<f64>() / 1000.0;
                    assert!((mean - 4550.0).abs() < 400.0, "{mean}");
                }
            }
            if case != KumarCase::Random {
                assert!(
                    lens.iter()
                        .all(|&l| (90.0..=190.0).contains(&l) || (8100.0..=17100.0).contains(&l))
                );
            }
            // Rank 1: every row is the same speed vector scaled.
            assert_eq!(etc.consistency(), Consistency::Consistent);
            let speeds = w.speeds(&mut key.clone().stream("resources").rng());
            assert!(
                speeds
                    .iter()
                    .all(|&s| (30.0 * 377.0..=80.0 * 377.0).contains(&s))
            );
        }
    }

    #[test]
    fn integers_cover_their_range() {
        let mut rng = StreamKey::new(9, "int").rng();
        let mut seen = [0; 6];
        for _ in 0..6000 {
            seen[(int_in(&mut rng, 15, 20) - 15) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    /// `--tasks` or `--resources` 18446744073709551615 was a capacity-overflow panic.
    #[test]
    fn matrices_too_large_are_refused_before_drawing() {
        let key = StreamKey::new(1, "too-large");
        let mut w = KumarWorkload::new(KumarCase::FewShort);
        w.tasks = usize::MAX;
        assert_eq!(
            w.generate(&key).unwrap_err(),
            "18446744073709551615 tasks × 10 machines is too large"
        );
        w.tasks = 1000;
        w.resources = usize::MAX;
        assert!(w.generate(&key).unwrap_err().contains("too large"));
        w.tasks = 1 << 16;
        w.resources = 1 << 16;
        assert!(w.validate().unwrap_err().contains("too large"));
        // Braun's generator says so before drawing 2^32 values.
        let mut r = RangeBased::braun_class("u_i_hihi").unwrap();
        r.tasks = 1 << 32;
        r.machines = 1;
        assert!(matches!(
            r.generate(&mut key.stream("etc").rng()),
            Err(EtcError::TooLarge { .. })
        ));
    }
}
