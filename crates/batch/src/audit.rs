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
    events.sort_unstable_by_key(|&(mi, t, d)| (mi, t, d));
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
