//! Conservative backfilling (Mu'alem & Feitelson; Singh spec §2.4).
//!
//! Every queued job holds a [reservation](Round::reserve): on arrival it is placed at its
//! earliest fit among the running jobs, the fixed reservations and the reservations of the
//! jobs ahead of it — which is the earliest start that delays nobody. A job starts when its
//! reservation's start comes (the policy asks the engine for a round then with
//! [`Round::wake_at`]). Nothing moves while estimates are exact.
//!
//! When a job ends before its estimate ([`Round::early_completions`]) the schedule is
//! compressed ([`Compression`]):
//!
//! - **Replay** (default, Singh's "CB-replay"): the result is the same as rebuilding the
//!   profile from the running jobs and fixed reservations and re-inserting every queued job in
//!   queue order. It is computed incrementally: a queued job can only be placed differently if
//!   the jobs ahead of it are, or if its new window overlaps the freed interval
//!   `[now, estimated end)`, where it needs its processors free at some instant. So the first
//!   job in queue order that is wider than the base profile's maximum over every freed
//!   interval's span, on every machine that freed one — and every job before it — keeps its
//!   reservation, and only the jobs from the first narrower one on are taken out and
//!   re-inserted — each with one sweep of the profile bounded by the regions freed since it
//!   was placed, not a search from now (`replay_from` says why that gives the same place).
//! - **InPlace** (Mu'alem & Feitelson): in queue order, each job whose processors are free at
//!   some instant before its reservation (one range-maximum query) is taken out and put back
//!   at its earliest fit, which is never later than before.
//!
//! Adding or cancelling a fixed reservation ([`Round::reservations_changed`]) replays the
//! whole queue (a job may have to move later, which in-place compression cannot do).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::{Compression, Estimates, MachineSelect};
use crate::sim::{Counters, Dispatcher, Reservation, Round};
use crate::{SimError, Time};

/// Conservative backfilling; see the module documentation for the compression rules and why
/// the incremental replay equals a full one.
#[derive(Debug, Clone, Default)]
pub struct Conservative {
    compression: Compression,
    /// Queued jobs in queue order (may hold started jobs until the next compaction).
    q: Vec<u32>,
    /// Reserved starts: (start, arrival rank, job); an entry is stale unless the job is still
    /// reserved from that start.
    starts: BinaryHeap<Reverse<(Time, u32, u32)>>,
    /// Jobs queued (reserved and not started).
    live: usize,
    /// A fixed reservation was ever added or cancelled: promises may legitimately be broken.
    promises_void: bool,
    /// Replay scratch: per machine, the regions freed since the replayed jobs were placed.
    freed: Vec<Vec<Region>>,
    /// Replay scratch: the reservations of the jobs taken out (`None`: started).
    old: Vec<Option<Reservation>>,
    /// Replay scratch: the jobs kept in place and their reservations.
    kept: Vec<(u32, Reservation)>,
    /// Scratch: per machine that freed capacity, (machine, latest freed end).
    dirty: Vec<(u32, Time)>,
    /// Scratch: per such machine, (processors, the base profile's maximum up to that end).
    bounds: Vec<(u32, i64)>,
    counters: Counters,
}

/// An interval of one machine's profile freed during a compression, with an upper bound on
/// the free processors over it.
#[derive(Debug, Clone, Copy)]
struct Region {
    from: Time,
    to: Time,
    level: i64,
}

impl Conservative {
    /// Conservative backfilling compressing by `compression` when jobs end early.
    pub fn new(compression: Compression) -> Self {
        Conservative {
            compression,
            ..Self::default()
        }
    }

    /// Work done: `compressions`, `replanned` (queued jobs taken out and placed again) and
    /// `moved` (jobs whose reservation a compression changed).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The queued jobs in queue (arrival) order, possibly with jobs started since the last
    /// compaction.
    pub fn queue(&self) -> impl Iterator<Item = u32> + '_ {
        self.q.iter().copied()
    }

    /// Drops the stale entries of the start heap (a job that moved leaves its old entry
    /// behind): they would otherwise pile up until their times pass and slow every pop.
    fn purge_starts(&mut self, r: &Round<'_>) {
        self.starts
            .retain(|&Reverse((s, _, idx))| r.reservation(idx).is_some_and(|p| p.start == s));
    }

    /// Starts every job whose reservation starts now, in (start, arrival) order, and drops
    /// stale entries from the top of the start heap.
    fn start_planned(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let now = r.now();
        while let Some(&Reverse((s, _, idx))) = self.starts.peek() {
            let res = r.reservation(idx).filter(|p| p.start == s);
            if res.is_some() && s > now {
                break;
            }
            self.starts.pop();
            let Some(p) = res else {
                continue;
            };
            debug_assert_eq!(s, now, "a reservation's start passed without an event");
            let config = r.config();
            if config.check_invariants
                && !self.promises_void
                && (self.compression == Compression::InPlace
                    || config.estimates == Estimates::Actual)
            {
                assert!(
                    now <= p.first_start,
                    "conservative delayed job {}: promised {}, started {now}",
                    r.job(idx).id,
                    p.first_start
                );
            }
            self.live -= 1;
            r.start(idx, p.machine as usize)?;
        }
        Ok(())
    }

    /// Reserves job `idx` on machine `m` from `s` and files the start.
    fn commit(&mut self, r: &mut Round<'_>, idx: u32, m: usize, s: Time) -> Result<(), SimError> {
        r.reserve(idx, m, s)?;
        self.starts.push(Reverse((s, r.arrival_rank(idx), idx)));
        Ok(())
    }

    fn compress(&mut self, r: &mut Round<'_>, full: bool) -> Result<(), SimError> {
        self.counters.compressions += 1;
        if full {
            self.replay_from(r, 0, true)?;
        } else {
            match self.compression {
                Compression::Replay => {
                    if let Some(k) = self.first_affected(r) {
                        self.replay_from(r, k, false)?;
                    }
                }
                Compression::InPlace => self.compress_in_place(r)?,
            }
        }
        self.compact_queue(r);
        Ok(())
    }

    /// The position in the queue of the first job whose placement a replay could change (see
    /// the module documentation), if any.
    fn first_affected(&mut self, r: &Round<'_>) -> Option<usize> {
        let now = r.now();
        // Per dirty machine: the latest freed end, then the base profile's maximum up to it.
        self.dirty.clear();
        self.dirty.extend(
            r.early_completions()
                .iter()
                .map(|e| (e.machine, e.planned_end)),
        );
        self.dirty
            .sort_unstable_by_key(|&(m, end)| (m, Reverse(end)));
        self.dirty.dedup_by_key(|d| d.0);
        let machines = r.platform().machines();
        self.bounds.clear();
        self.bounds.extend(self.dirty.iter().map(|&(m, end)| {
            let bound = r.base_profile(m as usize).max_free(now, end);
            (machines[m as usize].cpus, bound)
        }));
        let bounds = &self.bounds;
        self.q.iter().position(|&idx| {
            if !r.is_waiting(idx) {
                return false;
            }
            let p = r.job(idx).procs;
            bounds
                .iter()
                .any(|&(cpus, bound)| cpus >= p && i64::from(p) <= bound)
        })
    }

    /// Takes every queued job from queue position `k` on out of the profiles and places them
    /// again in queue order.
    ///
    /// Job `j`'s old reservation was its earliest fit (by [`best_fit`]'s key) in the profile
    /// of the jobs ahead of it. Since then that profile has gained free processors only in
    /// the *freed* regions: the early completions' `[now, estimated end)` and the old windows
    /// of the jobs this replay moved. A window that fits now and beats the old one by that
    /// key therefore covers an instant of a freed region — otherwise it fitted before too —
    /// and every other window that fits now comes after the old one. So [`replace`] needs no
    /// search from now: on each machine with a freed region as wide as the job (an upper bound
    /// on its free level: read when an early completion freed it, which only falls as the
    /// replay adds reservations, or the machine's size for a moved job's old window), one
    /// sweep from the first window that can overlap that region, stopped after the old start;
    /// on the old machine that sweep also tests the old window itself; and only if nothing up
    /// to the old start fits, a search from the old start on.
    ///
    /// After a fixed reservation changed, every job is searched again from now.
    fn replay_from(&mut self, r: &mut Round<'_>, k: usize, full: bool) -> Result<(), SimError> {
        let q = std::mem::take(&mut self.q);
        self.take_out_from(r, &q, k)?;
        let mut freed = std::mem::take(&mut self.freed);
        freed.resize_with(r.platform().len(), Vec::new);
        freed.iter_mut().for_each(Vec::clear);
        if !full {
            let now = r.now();
            for e in r.early_completions() {
                let m = e.machine as usize;
                let level = r.profile(m).max_free(now, e.planned_end);
                add_freed(&mut freed[m], now, e.planned_end, level);
            }
        }
        let old = std::mem::take(&mut self.old);
        for (&idx, old) in q[k..].iter().zip(&old) {
            let Some(old) = *old else {
                continue;
            };
            self.counters.replanned += 1;
            let m0 = old.machine as usize;
            let (m, s) = if full {
                best_fit(r, idx, r.now())
            } else {
                replace(r, idx, &old, &freed)
            };
            if (m, s) == (m0, old.start) {
                // Same place: its start-heap entry is still valid.
                r.reserve(idx, m, s)?;
            } else {
                self.counters.moved += 1;
                // Its old window is free for the jobs behind it. Bounded by the machine's
                // size, not by the window's largest free level: any upper bound is exact here
                // (it can only make a sweep start earlier, never skip a region a job fits
                // in), and measuring the window cost 14% of a long-queue replay (LCG at 1,500
                // processors) for sweeps that rarely end up shorter — most jobs are narrow
                // enough for any freed region, and a sweep skips full stretches chunk by
                // chunk.
                let level = i64::from(r.profile(m0).capacity());
                add_freed(&mut freed[m0], old.start, old.end, level);
                self.commit(r, idx, m, s)?;
            }
        }
        self.old = old;
        self.q = q;
        self.freed = freed;
        Ok(())
    }

    /// Takes the queued jobs of `q[k..]` out of the profiles, recording their reservations in
    /// `self.old`: by cancelling each, or, when fewer jobs precede `k` than follow it, by
    /// cancelling all ([`Round::cancel_all`]) and reserving the jobs of `q[..k]` again.
    fn take_out_from(&mut self, r: &mut Round<'_>, q: &[u32], k: usize) -> Result<(), SimError> {
        self.old.clear();
        if k < q.len() - k {
            self.old
                .extend(q[k..].iter().map(|&idx| r.reservation(idx)));
            self.kept.clear();
            self.kept.extend(
                q[..k]
                    .iter()
                    .filter_map(|&idx| r.reservation(idx).map(|p| (idx, p))),
            );
            r.cancel_all();
            for &(idx, p) in &self.kept {
                r.reserve(idx, p.machine as usize, p.start)?;
            }
        } else {
            for &idx in &q[k..] {
                let old = match r.reservation(idx) {
                    Some(_) => Some(r.cancel(idx)?),
                    None => None,
                };
                self.old.push(old);
            }
        }
        Ok(())
    }

    /// Mu'alem & Feitelson's compression: each queued job, in order, moves to its earliest
    /// fit if that is earlier than its reservation.
    fn compress_in_place(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let now = r.now();
        let q = std::mem::take(&mut self.q);
        for &idx in &q {
            let Some(old) = r.reservation(idx) else {
                continue;
            };
            if old.start <= now {
                continue;
            }
            let p = r.job(idx).procs;
            let machines = r.platform().machines();
            let may_move = (0..machines.len()).any(|m| {
                machines[m].cpus >= p && r.profile(m).max_free(now, old.start) >= i64::from(p)
            });
            if !may_move {
                continue;
            }
            self.counters.replanned += 1;
            r.cancel(idx)?;
            let (m, s) = best_fit(r, idx, now);
            if s < old.start {
                self.counters.moved += 1;
                self.commit(r, idx, m, s)?;
            } else {
                r.reserve(idx, old.machine as usize, old.start)?;
            }
            if r.config().check_invariants && !self.promises_void {
                assert!(
                    r.reservation(idx).is_some_and(|p| p.start <= old.start),
                    "in-place compression delayed job {}",
                    r.job(idx).id
                );
            }
        }
        self.q = q;
        Ok(())
    }

    /// Drops started jobs from the queue.
    fn compact_queue(&mut self, r: &Round<'_>) {
        self.q.retain(|&idx| r.is_waiting(idx));
    }
}

impl Dispatcher for Conservative {
    /// Compresses after early completions (or replays everything after a fixed reservation
    /// changed), places the arrivals, starts the jobs whose reservations start now, and asks
    /// for a round at the next reserved start (replacing any earlier wake-up request).
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        let full = r.reservations_changed();
        self.promises_void |= full;
        if !r.early_completions().is_empty() || full {
            self.compress(r, full)?;
        }
        for i in 0..r.arrived().len() {
            let idx = r.arrived()[i];
            let (m, s) = best_fit(r, idx, r.now());
            self.commit(r, idx, m, s)?;
            self.q.push(idx);
            self.live += 1;
        }
        self.start_planned(r)?;
        if self.q.len() > 64 && self.q.len() > 2 * self.live {
            self.compact_queue(r);
        }
        if self.starts.len() > 64 + 2 * self.live {
            self.purge_starts(r);
        }
        r.clear_wake();
        if let Some(&Reverse((s, _, _))) = self.starts.peek() {
            r.wake_at(s);
        }
        Ok(())
    }
}

/// The order of placements among machines: earliest start, then (with
/// [`MachineSelect::Fastest`]) earliest end, then machine index.
#[inline]
fn fit_key(select: MachineSelect, m: usize, s: Time, d: Time) -> (Time, Time, usize) {
    match select {
        MachineSelect::Fastest => (s, s + d, m),
        MachineSelect::FirstFit => (s, 0, m),
    }
}

/// The earliest placement of waiting job `idx` over all machines from `from`:
/// `(machine, start)`.
fn best_fit(r: &Round<'_>, idx: u32, from: Time) -> (usize, Time) {
    let procs = r.job(idx).procs;
    let machines = r.platform().machines();
    let select = r.config().machine_select;
    let mut best: Option<(Time, Time, usize)> = None;
    for (m, mc) in machines.iter().enumerate() {
        if mc.cpus < procs {
            continue;
        }
        let d = r.planned_run_time(idx, m);
        let s = r
            .profile(m)
            .earliest_fit(from, d, procs)
            .expect("a job no wider than its machine always fits eventually");
        let key = fit_key(select, m, s, d);
        if best.is_none_or(|b| key < b) {
            best = Some(key);
        }
    }
    let (s, _, m) = best.expect("validated: some machine is wide enough");
    (m, s)
}

/// The new placement of queued job `idx` (out of the profiles) during a replay, given its
/// old reservation and the regions freed since it was placed: see
/// [`Conservative::replay_from`].
fn replace(r: &Round<'_>, idx: u32, old: &Reservation, freed: &[Vec<Region>]) -> (usize, Time) {
    let procs = r.job(idx).procs;
    let p = i64::from(procs);
    let m0 = old.machine as usize;
    let machines = r.platform().machines();
    let select = r.config().machine_select;
    let mut best: Option<(Time, Time, usize)> = None;
    for (m, regions) in freed.iter().enumerate() {
        if machines[m].cpus < procs {
            continue;
        }
        let d = r.planned_run_time(idx, m);
        // Windows `[s, s + d)` overlapping a region `[from, to)` start after `from - d`.
        let region_from = regions
            .iter()
            .find(|g| g.level >= p)
            .map(|g| g.from.saturating_sub(d - 1));
        let from = match region_from {
            Some(f) if m == m0 => f.min(old.start),
            Some(f) => f,
            None if m == m0 => old.start,
            None => continue,
        };
        let limit = best.map_or(old.start, |b| b.0).saturating_add(1);
        if let Some(s) = r.profile(m).earliest_fit_before(from, d, procs, limit) {
            let key = fit_key(select, m, s, d);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
    }
    match best {
        Some((s, _, m)) => (m, s),
        // Nothing fits up to the old start: every window that fits starts later.
        None => best_fit(r, idx, old.start),
    }
}

/// Adds `[from, to)` with free-level bound `level` to a machine's freed regions, kept sorted
/// and disjoint: overlapping regions merge into their union with the larger bound (still an
/// upper bound over the union).
fn add_freed(regions: &mut Vec<Region>, from: Time, to: Time, level: i64) {
    let mut g = Region { from, to, level };
    // The first region that ends after `from`; every region before it is untouched.
    let i = regions.partition_point(|x| x.to <= from);
    let mut j = i;
    while j < regions.len() && regions[j].from < g.to {
        g.from = g.from.min(regions[j].from);
        g.to = g.to.max(regions[j].to);
        g.level = g.level.max(regions[j].level);
        j += 1;
    }
    regions.splice(i..j, std::iter::once(g));
}
