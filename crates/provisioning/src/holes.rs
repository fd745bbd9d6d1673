//! The slots of a conservative-backfilling schedule: its free area cut into per-processor
//! holes (spec §2.2, "worked example, Figure 1": the thesis's slot set S1–S5 is exactly the
//! holes of a lowest-index-first processor assignment, processors with identical holes
//! grouped).
//!
//! The site's schedule is a processor-count profile (the batch simulator's conservative
//! backfilling); processors are assigned only here, when the slots are listed: jobs in start
//! order (running jobs first, then planned jobs and fixed reservations by planned start, ties
//! by queue order) each take the lowest-index processors free at their start. In start order
//! a free processor stays free until a later start takes it, so the assignment never fails
//! and never migrates a job. Each processor's free intervals are its holes: a hole ends at
//! [`OPEN`] (divisible and extensible: an edge slot) or at the start of a job on that
//! processor (indivisible and non-extensible: a constrained hole), exactly the two kinds
//! chapter 3 advertises.
//!
//! Figure 2 keeps the same kind of set incrementally ([`crate::SlotSite`]) but commits
//! processors when a job is *planned*; that is not conservative backfilling (see
//! [`crate::site`]), so the default slot source is this one.

use gridsched_batch::{JobPhase, Simulator, Time};

use crate::slotset::{Merge, OPEN, SlotSet};

/// A block of processors a schedule holds: a running or planned job, or a fixed reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy {
    pub start: Time,
    pub end: Time,
    pub procs: u32,
}

/// Why a schedule cannot be cut into holes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HolesError {
    #[error("more than {capacity} processors busy at {at}")]
    Overfull { capacity: u32, at: Time },
    #[error("no machine {0}")]
    NoMachine(usize),
}

/// The holes of `capacity` processors from `now` on around `busy` (in priority order: ties at
/// one start are assigned in this order). Blocks starting before `now` are running.
pub fn holes(capacity: u32, now: Time, busy: &[Busy]) -> Result<SlotSet, HolesError> {
    let mut order: Vec<usize> = (0..busy.len()).filter(|&i| busy[i].end > now).collect();
    order.sort_by_key(|&i| (busy[i].start.max(now), i));
    // Per processor: the time it becomes free (its current job's end), and its holes so far.
    let n = capacity as usize;
    let mut free_from: Vec<Time> = vec![now; n];
    let mut holes: Vec<(Time, Time)> = Vec::new(); // (start, end), one per processor-hole
    for &i in &order {
        let b = busy[i];
        let t = b.start.max(now);
        let mut need = b.procs;
        for f in free_from.iter_mut() {
            if need == 0 {
                break;
            }
            if *f <= t {
                if *f < t {
                    holes.push((*f, t));
                }
                *f = b.end;
                need -= 1;
            }
        }
        if need > 0 {
            return Err(HolesError::Overfull { capacity, at: t });
        }
    }
    // The last hole of every processor runs to OPEN.
    let mut all: Vec<(Time, Time)> = holes;
    all.extend(free_from.iter().map(|&f| (f, OPEN)));
    // Group processors with identical holes.
    all.sort_unstable();
    let mut set = SlotSet::new(Merge::Shape);
    let mut k = 0;
    while k < all.len() {
        let mut m = k + 1;
        while m < all.len() && all[m] == all[k] {
            m += 1;
        }
        let (s, e) = all[k];
        let open = e == OPEN;
        set.add(s, e, (m - k) as u32, open, open, 0);
        k = m;
    }
    Ok(set)
}

/// The holes of machine `machine` of a conservative-backfilling simulator now: its running
/// jobs (to their planned ends), fixed reservations and queued jobs at their planned starts.
pub fn schedule_holes(sim: &Simulator, machine: usize) -> Result<SlotSet, HolesError> {
    let Some(mc) = sim.platform().machines().get(machine) else {
        return Err(HolesError::NoMachine(machine));
    };
    let now = sim.now();
    let mut busy: Vec<Busy> = Vec::new();
    for r in sim.running() {
        if r.machine as usize == machine {
            busy.push(Busy {
                start: r.start,
                end: r.planned_end,
                procs: r.procs,
            });
        }
    }
    for r in sim.live_reservations() {
        if r.machine as usize == machine {
            busy.push(Busy {
                start: r.start,
                end: r.end,
                procs: r.procs,
            });
        }
    }
    for idx in sim.queued() {
        let rec = sim.record(idx);
        debug_assert_eq!(rec.phase, JobPhase::Queued);
        if let (Some(m), Some(start)) = (rec.machine, rec.start)
            && m as usize == machine
        {
            busy.push(Busy {
                start,
                end: start + sim.planned_run_time(idx),
                procs: rec.job.procs,
            });
        }
    }
    holes(mc.cpus, now, &busy)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Time = 3600;

    /// singh-ex-fig1: the conservative schedule of Figure 1 (A [0,3) 2p, C [0,2) 1p,
    /// B [3,4) 4p, D [4,6) 3p on 5 processors) has exactly the thesis's slots S1–S5.
    #[test]
    fn figure_1_slots_s1_to_s5() {
        let busy = [
            Busy {
                start: 0,
                end: 3 * H,
                procs: 2,
            }, // A
            Busy {
                start: 0,
                end: 2 * H,
                procs: 1,
            }, // C
            Busy {
                start: 3 * H,
                end: 4 * H,
                procs: 4,
            }, // B
            Busy {
                start: 4 * H,
                end: 6 * H,
                procs: 3,
            }, // D
        ];
        let set = holes(5, 0, &busy).unwrap();
        set.validate().unwrap();
        let got: Vec<(Time, Time, u32, bool)> = set
            .slots()
            .iter()
            .map(|s| (s.start, s.end, s.procs, s.extensible))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 3 * H, 1, false),     // S3
                (0, OPEN, 1, true),       // S1
                (2 * H, 3 * H, 1, false), // S2
                (4 * H, OPEN, 1, true),   // S4
                (6 * H, OPEN, 3, true),   // S5
            ]
        );
        // "If S1 and S3 are provisioned, a 2p x 2h task fits in S1 + S3."
        let mut s = set.clone();
        let mut uses = Vec::new();
        assert_eq!(s.place(0, 2, 2 * H, &mut uses), Some(0));
        // "If A finishes after 1 h instead of 3 h, an extra 2p x 2h slot appears" (the other
        // jobs keep their places).
        let mut early = busy;
        early[0].end = H;
        let set = holes(5, 0, &early).unwrap();
        assert!(
            set.slots()
                .iter()
                .any(|s| (s.start, s.end, s.procs) == (H, 3 * H, 2))
        );
    }

    #[test]
    fn overfull_schedule_is_an_error() {
        let busy = [
            Busy {
                start: 0,
                end: 10,
                procs: 2,
            },
            Busy {
                start: 5,
                end: 10,
                procs: 1,
            },
        ];
        assert_eq!(
            holes(2, 0, &busy).unwrap_err(),
            HolesError::Overfull { capacity: 2, at: 5 }
        );
    }
}
