//! Conservative backfilling (Mu'alem & Feitelson; Singh spec §2.4).
//!
//! Every queued job holds a reservation in the machine profiles: on arrival it is placed at
//! its earliest fit among the running jobs, the fixed reservations and the reservations of the
//! jobs ahead of it — which is the earliest start that delays nobody. A job starts when its
//! reservation's start comes. Nothing moves while estimates are exact.
//!
//! When a job ends before its estimate the schedule is compressed ([`Compression`]):
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
//! Adding or cancelling a fixed reservation replays the whole queue (a job may have to move
//! later, which in-place compression cannot do).

use std::cmp::Reverse;

use crate::Time;
use crate::config::{Compression, Estimates, MachineSelect};
use crate::sim::{ConsState, JobPhase, PolicyState, Region, Simulator};

impl Simulator {
    fn cons(&mut self) -> &mut ConsState {
        match &mut self.policy {
            PolicyState::Cons(c) => c,
            PolicyState::Queue(_) | PolicyState::External(_) => unreachable!("conservative state"),
        }
    }

    pub(crate) fn round_conservative(&mut self) {
        let c = self.cons();
        if !c.dirty.is_empty() || c.full_replay {
            self.compress();
        }
        let mut arrived = std::mem::take(&mut self.cons().arrived);
        for &idx in &arrived {
            self.place(idx, true);
            let c = self.cons();
            c.q.push(idx);
            c.live += 1;
        }
        arrived.clear();
        self.cons().arrived = arrived;
        self.start_planned();
        let c = self.cons();
        if c.q.len() > 64 && c.q.len() > 2 * c.live {
            self.compact_queue();
        }
        if self.cons().starts.len() > 64 + 2 * self.cons().live {
            self.purge_starts();
        }
    }

    /// Drops the stale entries of the start heap (a job that moved leaves its old entry
    /// behind): they would otherwise pile up until their times pass and slow every pop.
    fn purge_starts(&mut self) {
        let mut starts = std::mem::take(&mut self.cons().starts);
        starts.retain(|&Reverse((s, _, idx))| {
            let st = &self.st[idx as usize];
            st.phase == JobPhase::Queued && st.start == s
        });
        self.cons().starts = starts;
    }

    /// Starts every job whose reservation starts now, in (start, arrival) order, and drops
    /// stale entries from the top of the start heap.
    fn start_planned(&mut self) {
        let now = self.now;
        while let Some(&Reverse((s, _, idx))) = self.cons().starts.peek() {
            let st = self.st[idx as usize];
            let valid = st.phase == JobPhase::Queued && st.start == s;
            if valid && s > now {
                break;
            }
            self.cons().starts.pop();
            if !valid {
                continue;
            }
            debug_assert_eq!(s, now, "a reservation's start passed without an event");
            if self.config.check_invariants
                && !self.promises_void
                && (self.config.compression == Compression::InPlace
                    || self.config.estimates == Estimates::Actual)
            {
                assert!(
                    now <= st.promise,
                    "conservative delayed job {}: promised {}, started {now}",
                    self.jobs[idx as usize].id,
                    st.promise
                );
            }
            self.cons().live -= 1;
            self.start(idx, st.machine as usize, true);
        }
    }

    /// The earliest placement of job `idx` over all machines from now: `(machine, start)`.
    fn best_fit(&self, idx: u32) -> (usize, Time) {
        self.best_fit_from(idx, self.now)
    }

    /// The earliest placement of job `idx` over all machines from `from`.
    fn best_fit_from(&self, idx: u32, from: Time) -> (usize, Time) {
        let job = &self.jobs[idx as usize];
        let est = job.estimate(self.config.estimates);
        let mut best: Option<(Time, Time, usize)> = None;
        for (m, p) in self.profiles.iter().enumerate() {
            if self.platform.machines()[m].cpus < job.procs {
                continue;
            }
            let d = self.platform.duration(m, est);
            let s = p
                .earliest_fit(from, d, job.procs)
                .expect("a job no wider than its machine always fits eventually");
            let key = self.fit_key(m, s, d);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (s, _, m) = best.expect("validated: some machine is wide enough");
        (m, s)
    }

    /// The order of placements among machines: earliest start, then (with
    /// [`MachineSelect::Fastest`]) earliest end, then machine index.
    #[inline]
    fn fit_key(&self, m: usize, s: Time, d: Time) -> (Time, Time, usize) {
        match self.config.machine_select {
            MachineSelect::Fastest => (s, s + d, m),
            MachineSelect::FirstFit => (s, 0, m),
        }
    }

    /// Places job `idx` at its earliest fit and records the reservation. `first`: this is
    /// its first promise.
    fn place(&mut self, idx: u32, first: bool) -> (usize, Time) {
        let (m, s) = self.best_fit(idx);
        self.commit(idx, m, s, first);
        (m, s)
    }

    fn commit(&mut self, idx: u32, m: usize, s: Time, first: bool) {
        let job = self.jobs[idx as usize];
        let d = self
            .platform
            .duration(m, job.estimate(self.config.estimates));
        self.profiles[m].reserve(s, s + d, job.procs);
        let st = &mut self.st[idx as usize];
        st.machine = m as u32;
        st.start = s;
        st.est_end = s + d;
        if first {
            st.promise = s;
        }
        let seq = st.seq;
        self.cons().starts.push(Reverse((s, seq, idx)));
    }

    /// Takes job `idx`'s reservation out of the profile.
    fn unplace(&mut self, idx: u32) {
        let st = self.st[idx as usize];
        let procs = self.jobs[idx as usize].procs;
        self.profiles[st.machine as usize].release(st.start, st.est_end, procs);
    }

    fn compress(&mut self) {
        self.counters.compressions += 1;
        let full = self.cons().full_replay;
        if full {
            self.replay_from(0);
        } else {
            match self.config.compression {
                Compression::Replay => {
                    if let Some(k) = self.first_affected() {
                        self.replay_from(k);
                    }
                }
                Compression::InPlace => self.compress_in_place(),
            }
        }
        let c = self.cons();
        c.dirty.clear();
        c.full_replay = false;
        self.compact_queue();
    }

    /// The position in the queue of the first job whose placement a replay could change (see
    /// the module documentation), if any.
    fn first_affected(&mut self) -> Option<usize> {
        let now = self.now;
        // Per dirty machine: the latest freed end, then the base profile's maximum up to it.
        let mut dirty = std::mem::take(&mut self.cons().dirty);
        dirty.sort_unstable_by_key(|&(m, _, end)| (m, Reverse(end)));
        dirty.dedup_by_key(|d| d.0);
        let mut bounds: Vec<(u32, u32, i64)> = Vec::with_capacity(dirty.len());
        for &(m, _, end) in &dirty {
            let c = self.cons();
            let bound = c.base[m as usize].max_free(now, end);
            bounds.push((m, self.platform.machines()[m as usize].cpus, bound));
        }
        self.cons().dirty = dirty;
        let c = match &self.policy {
            PolicyState::Cons(c) => c,
            PolicyState::Queue(_) | PolicyState::External(_) => unreachable!(),
        };
        c.q.iter().position(|&idx| {
            let s = &self.st[idx as usize];
            if s.phase != JobPhase::Queued {
                return false;
            }
            let p = self.jobs[idx as usize].procs;
            bounds
                .iter()
                .any(|&(_, cpus, bound)| cpus >= p && i64::from(p) <= bound)
        })
    }

    /// Takes every queued job from queue position `k` on out of the profiles and places them
    /// again in queue order.
    ///
    /// Job `j`'s old reservation was its earliest fit (by [`best_fit`](Self::best_fit)'s key)
    /// in the profile of the jobs ahead of it. Since then that profile has gained free
    /// processors only in the *freed* regions: the early completions' `[now, estimated end)`
    /// and the old windows of the jobs this replay moved. A window that fits now and beats the
    /// old one by that key therefore covers an instant of a freed region — otherwise it
    /// fitted before too — and every other window that fits now comes after the old one. So
    /// [`replace`](Self::replace) needs no search from now: on each machine with a freed region
    /// as wide as the job (its largest level, read when freed, only falls as the replay adds
    /// reservations), one sweep from the first window that can overlap that region, stopped
    /// after the old start; on the old machine that sweep also tests the old window itself;
    /// and only if nothing up to the old start fits, a search from the old start on.
    ///
    /// After a fixed reservation changed, every job is searched again from now.
    fn replay_from(&mut self, k: usize) {
        let q = std::mem::take(&mut self.cons().q);
        let full = self.cons().full_replay;
        self.take_out_from(&q, k);
        let mut freed = std::mem::take(&mut self.cons().freed);
        freed.resize_with(self.profiles.len(), Vec::new);
        freed.iter_mut().for_each(Vec::clear);
        if !full {
            for i in 0..self.cons().dirty.len() {
                let (m, from, to) = self.cons().dirty[i];
                let level = self.profiles[m as usize].max_free(from, to);
                add_freed(&mut freed[m as usize], from, to, level);
            }
        }
        for &idx in &q[k..] {
            let st = self.st[idx as usize];
            if st.phase != JobPhase::Queued {
                continue;
            }
            self.counters.replanned += 1;
            let procs = self.jobs[idx as usize].procs;
            let m0 = st.machine as usize;
            let (m, s) = if full {
                self.best_fit(idx)
            } else {
                self.replace(idx, &freed)
            };
            if (m, s) == (m0, st.start) {
                // Same place: its start-heap entry is still valid.
                self.profiles[m].reserve(s, st.est_end, procs);
            } else {
                self.counters.moved += 1;
                // Its old window is free for the jobs behind it.
                let level = self.profiles[m0].max_free(st.start, st.est_end);
                add_freed(&mut freed[m0], st.start, st.est_end, level);
                self.commit(idx, m, s, false);
            }
        }
        let c = self.cons();
        c.q = q;
        c.freed = freed;
    }

    /// The new placement of queued job `idx` (out of the profiles) during a replay, given the
    /// regions freed since it was placed: see [`replay_from`](Self::replay_from).
    fn replace(&self, idx: u32, freed: &[Vec<Region>]) -> (usize, Time) {
        let job = &self.jobs[idx as usize];
        let st = &self.st[idx as usize];
        let est = job.estimate(self.config.estimates);
        let p = i64::from(job.procs);
        let m0 = st.machine as usize;
        let mut best: Option<(Time, Time, usize)> = None;
        for (m, regions) in freed.iter().enumerate() {
            if self.platform.machines()[m].cpus < job.procs {
                continue;
            }
            let d = self.platform.duration(m, est);
            // Windows `[s, s + d)` overlapping a region `[from, to)` start after `from - d`.
            let region_from = regions
                .iter()
                .find(|r| r.level >= p)
                .map(|r| r.from.saturating_sub(d - 1));
            let from = match region_from {
                Some(f) if m == m0 => f.min(st.start),
                Some(f) => f,
                None if m == m0 => st.start,
                None => continue,
            };
            let limit = best.map_or(st.start, |b| b.0).saturating_add(1);
            if let Some(s) = self.profiles[m].earliest_fit_before(from, d, job.procs, limit) {
                let key = self.fit_key(m, s, d);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        match best {
            Some((s, _, m)) => (m, s),
            // Nothing fits up to the old start: every window that fits starts later.
            None => self.best_fit_from(idx, st.start),
        }
    }

    /// Takes the queued jobs of `q[k..]` out of the profiles: by releasing each, or, when
    /// fewer jobs precede `k` than follow it, by copying the base profiles (running jobs and
    /// fixed reservations) and reserving the jobs of `q[..k]` again.
    fn take_out_from(&mut self, q: &[u32], k: usize) {
        if k < q.len() - k {
            if let PolicyState::Cons(c) = &self.policy {
                for (p, b) in self.profiles.iter_mut().zip(&c.base) {
                    p.clone_from(b);
                }
            }
            for &idx in &q[..k] {
                let st = self.st[idx as usize];
                if st.phase == JobPhase::Queued {
                    let procs = self.jobs[idx as usize].procs;
                    self.profiles[st.machine as usize].reserve(st.start, st.est_end, procs);
                }
            }
        } else {
            for &idx in &q[k..] {
                if self.st[idx as usize].phase == JobPhase::Queued {
                    self.unplace(idx);
                }
            }
        }
    }

    /// Mu'alem & Feitelson's compression: each queued job, in order, moves to its earliest
    /// fit if that is earlier than its reservation.
    fn compress_in_place(&mut self) {
        let now = self.now;
        let q = std::mem::take(&mut self.cons().q);
        for &idx in &q {
            let st = self.st[idx as usize];
            if st.phase != JobPhase::Queued || st.start <= now {
                continue;
            }
            let p = self.jobs[idx as usize].procs;
            let may_move = self.profiles.iter().enumerate().any(|(m, prof)| {
                self.platform.machines()[m].cpus >= p
                    && prof.max_free(now, st.start) >= i64::from(p)
            });
            if !may_move {
                continue;
            }
            self.counters.replanned += 1;
            self.unplace(idx);
            let (m, s) = self.best_fit(idx);
            if s < st.start {
                self.counters.moved += 1;
                self.commit(idx, m, s, false);
            } else {
                let d = st.est_end - st.start;
                self.profiles[st.machine as usize].reserve(st.start, st.start + d, p);
            }
            if self.config.check_invariants && !self.promises_void {
                assert!(
                    self.st[idx as usize].start <= st.start,
                    "in-place compression delayed job {}",
                    self.jobs[idx as usize].id
                );
            }
        }
        self.cons().q = q;
    }

    /// Drops started jobs from the queue.
    fn compact_queue(&mut self) {
        let mut q = std::mem::take(&mut self.cons().q);
        q.retain(|&idx| self.st[idx as usize].phase == JobPhase::Queued);
        self.cons().q = q;
    }
}

/// Adds `[from, to)` with free-level bound `level` to a machine's freed regions, kept sorted
/// and disjoint: overlapping regions merge into their union with the larger bound (still an
/// upper bound over the union).
fn add_freed(regions: &mut Vec<Region>, from: Time, to: Time, level: i64) {
    let mut r = Region { from, to, level };
    // The first region that ends after `from`; every region before it is untouched.
    let i = regions.partition_point(|x| x.to <= from);
    let mut j = i;
    while j < regions.len() && regions[j].from < r.to {
        r.from = r.from.min(regions[j].from);
        r.to = r.to.max(regions[j].to);
        r.level = r.level.max(regions[j].level);
        j += 1;
    }
    regions.splice(i..j, std::iter::once(r));
}
