//! A machine's CPUs by free time: the multiset the schedule operations read, stored as classes
//! of CPUs that share one free time, so that its size and every operation's cost follow the
//! jobs (running and planned), not the CPUs.
//!
//! **Why CPU identity can go.** Compaction gives a job the `R_j` CPUs with the smallest
//! (free time, CPU id) and every quantity a schedule produces — a start (the latest of those
//! free times), an end, the used-CPU profile, the aggregates — depends only on the free times
//! taken, never on which CPUs of equal free time carry them. So the schedule keeps the free
//! times as a multiset: `(time, count)` classes with distinct times. A machine of `R` CPUs
//! running `J` jobs has at most `J + 1` classes (the idle CPUs fold into one class at `now`),
//! and a list-scheduling state after `k` planned jobs at most `J + k + 1`, whatever `R` is.
//! `machine::compact`, the literal per-CPU list scheduling with the CPU-id tie rule, stays the
//! oracle (`tests/it/invariants.rs`, `tests/it/per_cpu_oracle.rs`).
//!
//! **Why descending order.** A placement removes the `r` earliest free times (the end of the
//! vector: a truncation) and adds `r` CPUs free at the job's end, which is usually among the
//! latest times (near the front), so the insertion shifts only the classes free before that
//! end — the same elements the per-CPU layout shifted, grouped.

use crate::Time;

/// CPUs of one machine that all become free at `until` (all running until then, or all free
/// then in a list-scheduling state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuClass {
    pub until: Time,
    /// Number of CPUs (at least 1).
    pub cpus: u32,
}

/// The free times of `busy` at `now` into `out`, classes in decreasing time: every CPU free
/// by `now` counts as free at `now` (one class, last).
pub(crate) fn fold_at(busy: &[CpuClass], now: Time, out: &mut Vec<CpuClass>) {
    out.clear();
    let later = busy.partition_point(|c| c.until > now);
    out.extend_from_slice(&busy[..later]);
    let idle: u32 = busy[later..].iter().map(|c| c.cpus).sum();
    if idle > 0 {
        out.push(CpuClass {
            until: now,
            cpus: idle,
        });
    }
}

/// Folds the classes of `busy` free by `now` into one class at `now`, in place (so that the
/// classes of CPUs idle since different times do not accumulate).
pub(crate) fn fold_in_place(busy: &mut Vec<CpuClass>, now: Time) {
    let later = busy.partition_point(|c| c.until > now);
    if later == busy.len() {
        return;
    }
    let idle: u32 = busy[later..].iter().map(|c| c.cpus).sum();
    busy.truncate(later);
    busy.push(CpuClass {
        until: now,
        cpus: idle,
    });
}

/// The `r`-th earliest free time of `state` (`1 ≤ r ≤` its CPUs).
#[inline]
pub(crate) fn kth(state: &[CpuClass], r: u32) -> Time {
    state[kth_class(state, r).0].until
}

/// The class holding the `r`-th earliest free time of `state` (`1 ≤ r ≤` its CPUs), and how
/// many of its CPUs are among the `r` earliest.
#[inline]
fn kth_class(state: &[CpuClass], r: u32) -> (usize, u32) {
    // Most jobs fit in the earliest class (on a large machine, the idle CPUs).
    if let Some(last) = state.last()
        && last.cpus >= r
    {
        return (state.len() - 1, r);
    }
    let mut left = r;
    let mut i = state.len();
    loop {
        assert!(i > 0, "job wider than its machine");
        i -= 1;
        let c = state[i].cpus;
        if c >= left {
            return (i, left);
        }
        left -= c;
    }
}

/// The `r` earliest free times of `state` become `end` (not before any of them): what a job
/// of `r` CPUs ending at `end` does to the state of list scheduling, and what a started job
/// does to the busy CPUs.
#[inline]
pub(crate) fn take(state: &mut Vec<CpuClass>, r: u32, end: Time) {
    if r == 0 {
        return;
    }
    let (i, left) = kth_class(state, r);
    take_through(state, i, left, r, end);
}

/// [`take`] once the `r` earliest free times are known to be the classes after `i` and
/// `left` CPUs of class `i`.
#[inline]
fn take_through(state: &mut Vec<CpuClass>, i: usize, left: u32, r: u32, end: Time) {
    debug_assert!(
        state[i].until <= end,
        "a job ends after the CPUs it takes are free"
    );
    if state[i].cpus == left {
        state.truncate(i);
    } else {
        state[i].cpus -= left;
        state.truncate(i + 1);
    }
    // The classes free before `end` come after the new class: the scan passes exactly the
    // classes the insertion shifts.
    let mut j = state.len();
    while j > 0 && state[j - 1].until < end {
        j -= 1;
    }
    match j.checked_sub(1).map(|k| &mut state[k]) {
        Some(c) if c.until == end => c.cpus += r,
        _ => state.insert(
            j,
            CpuClass {
                until: end,
                cpus: r,
            },
        ),
    }
}

/// One step of list scheduling on `state`: a job of `r` CPUs running `duration` after a
/// predecessor that started at `prev` starts at the later of `prev` and its `r`-th earliest
/// free time. Returns its start and end.
#[inline]
pub(crate) fn place_on(
    state: &mut Vec<CpuClass>,
    r: u32,
    duration: Time,
    prev: Time,
) -> (Time, Time) {
    let (i, left) = kth_class(state, r);
    let start = prev.max(state[i].until);
    let end = start + duration;
    take_through(state, i, left, r, end);
    (start, end)
}

/// The number of CPUs of `state`.
pub(crate) fn total(state: &[CpuClass]) -> u64 {
    state.iter().map(|c| u64::from(c.cpus)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn expand(state: &[CpuClass]) -> Vec<Time> {
        let mut v: Vec<Time> = state
            .iter()
            .flat_map(|c| std::iter::repeat_n(c.until, c.cpus as usize))
            .collect();
        v.sort_unstable();
        v
    }

    fn classes(times: &[Time]) -> Vec<CpuClass> {
        let mut out: Vec<CpuClass> = Vec::new();
        let mut sorted = times.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for t in sorted {
            match out.last_mut() {
                Some(c) if c.until == t => c.cpus += 1,
                _ => out.push(CpuClass { until: t, cpus: 1 }),
            }
        }
        out
    }

    fn valid(state: &[CpuClass]) -> bool {
        state.windows(2).all(|w| w[0].until > w[1].until) && state.iter().all(|c| c.cpus > 0)
    }

    proptest! {
        /// Classes against the sorted per-CPU free times: the `r`-th earliest time, a
        /// placement (the earliest `r` become the end) and the folds at `now`.
        #[test]
        fn classes_are_the_per_cpu_multiset(
            times in prop::collection::vec(0i64..20, 1..40),
            steps in prop::collection::vec((1usize..40, 0i64..15, 0i64..25), 1..20),
            now in 0i64..20,
        ) {
            let mut cpu: Vec<Time> = times.clone();
            cpu.sort_unstable();
            let mut cls = classes(&times);
            prop_assert_eq!(expand(&cls), cpu.clone());
            let mut folded = Vec::new();
            fold_at(&cls, now, &mut folded);
            let mut by_cpu: Vec<Time> = cpu.iter().map(|&t| t.max(now)).collect();
            by_cpu.sort_unstable();
            prop_assert!(valid(&folded));
            prop_assert_eq!(expand(&folded), by_cpu);
            let mut in_place = cls.clone();
            fold_in_place(&mut in_place, now);
            prop_assert!(valid(&in_place));
            prop_assert_eq!(&in_place, &folded);
            let mut prev = 0;
            for (r, d, p) in steps {
                let r = 1 + (r - 1) % cpu.len();
                prop_assert_eq!(kth(&cls, r as u32), cpu[r - 1]);
                let start = prev.max(p).max(cpu[r - 1]);
                let (s, e) = place_on(&mut cls, r as u32, d, prev.max(p));
                prop_assert_eq!((s, e), (start, start + d));
                for t in &mut cpu[..r] {
                    *t = e;
                }
                cpu.sort_unstable();
                prop_assert!(valid(&cls));
                prop_assert_eq!(expand(&cls), cpu.clone());
                prop_assert_eq!(total(&cls), cpu.len() as u64);
                prev = s;
            }
        }
    }
}
