//! Machines: one homogeneous cluster, or a grid of machines with CPU counts and speeds.

use crate::{MAX_CAPACITY, SimError, Time};

/// One space-shared machine: `cpus` identical processors running at `speed` (operations per
/// time unit; only ratios to the platform's reference speed matter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    pub cpus: u32,
    pub speed: u32,
}

/// The machines jobs run on. A parallel job runs on exactly one machine; its run time there is
/// its reference run time scaled by `reference_speed / speed`, rounded up (Klusáček spec §2.0,
/// A1: `p_ij = ceil(e_j · s_ref / s_i)`). A homogeneous cluster is one machine at the
/// reference speed, where durations are unscaled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    machines: Vec<Machine>,
    reference_speed: u32,
    /// Resource id of each machine's first processor (machines are numbered consecutively).
    first_cpu: Vec<u32>,
    max_cpus: u32,
}

impl Platform {
    /// A homogeneous cluster of `procs` processors (one machine, unscaled run times).
    pub fn cluster(procs: u32) -> Result<Self, SimError> {
        Self::grid(
            vec![Machine {
                cpus: procs,
                speed: 1,
            }],
            1,
        )
    }

    /// A heterogeneous grid; `reference_speed` is the speed at which job run times are given.
    /// Every machine needs `1..=`[`MAX_CAPACITY`] CPUs and a positive speed.
    pub fn grid(machines: Vec<Machine>, reference_speed: u32) -> Result<Self, SimError> {
        if machines.is_empty() {
            return Err(SimError::Config(
                "a platform needs at least one machine".into(),
            ));
        }
        if reference_speed == 0 {
            return Err(SimError::Config(
                "the reference speed must be positive".into(),
            ));
        }
        if let Some((i, m)) = machines
            .iter()
            .enumerate()
            .find(|(_, m)| m.cpus == 0 || m.speed == 0)
        {
            return Err(SimError::Config(format!(
                "machine {i} has {} CPUs at speed {}: both must be positive",
                m.cpus, m.speed
            )));
        }
        if let Some((i, m)) = machines
            .iter()
            .enumerate()
            .find(|(_, m)| m.cpus > MAX_CAPACITY)
        {
            return Err(SimError::Config(format!(
                "machine {i} has {} CPUs: a machine has at most {MAX_CAPACITY}",
                m.cpus
            )));
        }
        let mut first_cpu = Vec::with_capacity(machines.len());
        let mut total = 0u64;
        for m in &machines {
            first_cpu.push(total as u32);
            total += u64::from(m.cpus);
        }
        if total > u64::from(u32::MAX) {
            return Err(SimError::Config("more than 2^32 processors".into()));
        }
        let max_cpus = machines.iter().map(|m| m.cpus).max().unwrap_or(0);
        Ok(Platform {
            machines,
            reference_speed,
            first_cpu,
            max_cpus,
        })
    }

    /// The machines, by index.
    pub fn machines(&self) -> &[Machine] {
        &self.machines
    }

    /// Number of machines.
    pub fn len(&self) -> usize {
        self.machines.len()
    }

    /// Always false: a platform has at least one machine.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The speed reference run times are given at.
    pub fn reference_speed(&self) -> u32 {
        self.reference_speed
    }

    /// The largest machine's CPU count (the widest job that can run).
    pub fn max_cpus(&self) -> u32 {
        self.max_cpus
    }

    /// Total processors.
    pub fn total_cpus(&self) -> u64 {
        self.machines.iter().map(|m| u64::from(m.cpus)).sum()
    }

    /// Global id of machine `m`'s first processor (for Batsim's `allocated_resources`).
    pub fn first_cpu(&self, m: usize) -> u32 {
        self.first_cpu[m]
    }

    /// A reference duration on machine `m`: `ceil(t · reference_speed / speed)`.
    #[inline]
    pub fn duration(&self, m: usize, t: Time) -> Time {
        let s = self.machines[m].speed;
        if s == self.reference_speed {
            return t;
        }
        let num = i128::from(t) * i128::from(self.reference_speed);
        let s = i128::from(s);
        ((num + s - 1) / s) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machines_beyond_the_profile_limit_are_refused() {
        assert!(Platform::cluster(MAX_CAPACITY).is_ok());
        let e = Platform::cluster(MAX_CAPACITY + 1).unwrap_err();
        assert!(e.to_string().contains("at most 268435456"), "{e}");
        let machines = vec![
            Machine { cpus: 4, speed: 1 },
            Machine {
                cpus: u32::MAX,
                speed: 1,
            },
        ];
        let e = Platform::grid(machines, 1).unwrap_err();
        assert!(
            e.to_string().contains("machine 1 has 4294967295 CPUs"),
            "{e}"
        );
    }
}
