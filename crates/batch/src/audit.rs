//! An independent check of a finished schedule, from the outcomes alone.

use crate::config::Estimates;
use crate::platform::Platform;
use crate::sim::Outcome;

/// Checks a schedule without trusting the simulator's bookkeeping:
/// - every job ran on an existing machine wide enough for it, after its submission;
/// - it ran for its run time on that machine, or was killed at its walltime (and only under
///   [`Estimates::Requested`], and only if it would have run longer);
/// - on no machine, at no instant, do running jobs hold more processors than it has (a job's
///   processors are free again at its end instant).
pub fn audit(
    outcomes: &[Outcome],
    platform: &Platform,
    estimates: Estimates,
) -> Result<(), String> {
    let m = platform.len();
    let mut events: Vec<(usize, i64, i64)> = Vec::with_capacity(2 * outcomes.len());
    for o in outcomes {
        let id = o.job.id;
        let mi = o.machine as usize;
        if mi >= m {
            return Err(format!("job {id} ran on machine {mi}; there are {m}"));
        }
        if o.job.procs > platform.machines()[mi].cpus {
            return Err(format!(
                "job {id} needs {} processors; machine {mi} has {}",
                o.job.procs,
                platform.machines()[mi].cpus
            ));
        }
        if o.start < o.job.submit {
            return Err(format!(
                "job {id} started at {} before its submission at {}",
                o.start, o.job.submit
            ));
        }
        let run = platform.duration(mi, o.job.run);
        let est = platform.duration(mi, o.job.estimate(estimates));
        if o.walltime != est {
            return Err(format!(
                "job {id}: walltime {} but its estimate on machine {mi} is {est}",
                o.walltime
            ));
        }
        let expected = if o.killed { est } else { run };
        if o.killed && (estimates == Estimates::Actual || run <= est) {
            return Err(format!("job {id} was killed but fits its walltime"));
        }
        if !o.killed && run > est {
            return Err(format!("job {id} outran its walltime without being killed"));
        }
        if o.end - o.start != expected {
            return Err(format!(
                "job {id} ran {} time units; expected {expected}",
                o.end - o.start
            ));
        }
        events.push((mi, o.start, i64::from(o.job.procs)));
        events.push((mi, o.end, -i64::from(o.job.procs)));
    }
    // Per machine, by time, releases before acquisitions at the same instant.
    sort_events(&mut events);
    let mut used = 0i64;
    let mut cur = usize::MAX;
    for (mi, t, d) in events {
        if mi != cur {
            cur = mi;
            used = 0;
        }
        used += d;
        let cap = i64::from(platform.machines()[mi].cpus);
        if used > cap {
            return Err(format!(
                "machine {mi} at time {t}: {used} processors in use, capacity {cap}"
            ));
        }
    }
    Ok(())
}

/// Sorts `(machine, time, change)` events by their tuple order. On one machine, with times
/// spanning less than 2^32 and changes of less than 2^31 processors (every log), through keys
/// packed into a `u64` of the same order: sorting the tuples was most of the audit's time.
fn sort_events(events: &mut [(usize, i64, i64)]) {
    const LOW: i64 = 1 << 31;
    let t0 = events.iter().map(|e| e.1).min().unwrap_or(0);
    let packable = events.iter().all(|&(mi, t, d)| {
        mi == 0 && t.checked_sub(t0).is_some_and(|s| s < 1 << 32) && d.abs() < LOW
    });
    if !packable {
        events.sort_unstable_by_key(|&(mi, t, d)| (mi, t, d));
        return;
    }
    // Time above, then the change shifted to be non-negative: `d + 2^31` orders as `d` does,
    // releases (negative) before acquisitions.
    let mut keys: Vec<u64> = events
        .iter()
        .map(|&(_, t, d)| ((t - t0) as u64) << 32 | (d + LOW) as u64)
        .collect();
    keys.sort_unstable();
    for (e, k) in events.iter_mut().zip(keys) {
        *e = (0, (k >> 32) as i64 + t0, (k & 0xffff_ffff) as i64 - LOW);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(events: Vec<(usize, i64, i64)>) -> Result<(), TestCaseError> {
        let mut expected = events.clone();
        expected.sort_unstable_by_key(|&(mi, t, d)| (mi, t, d));
        let mut got = events;
        sort_events(&mut got);
        prop_assert_eq!(got, expected);
        Ok(())
    }

    proptest! {
        /// On one machine (the packed keys): the tuples' order, times up to the largest
        /// span and changes up to the largest size that pack.
        #[test]
        fn packed_events_sort_as_tuples(
            events in prop::collection::vec(
                (Just(0usize),
                 prop_oneof![-3i64..40, Just(-3 + (1i64 << 32) - 1)],
                 prop_oneof![-20i64..20, Just(-(1i64 << 31) + 1), Just((1i64 << 31) - 1)]),
                0..200),
        ) {
            check(events)?;
        }

        /// Any events (several machines, spans and changes too large to pack): the tuples'
        /// order.
        #[test]
        fn any_events_sort_as_tuples(
            events in prop::collection::vec(
                (prop_oneof![9 => Just(0usize), 1 => 0usize..3],
                 prop_oneof![8 => -3i64..40, 1 => Just(i64::MAX), 1 => Just(1i64 << 33)],
                 prop_oneof![8 => -20i64..20, 1 => Just(1i64 << 31), 1 => Just(-(1i64 << 31))]),
                0..20),
        ) {
            check(events)?;
        }
    }
}
