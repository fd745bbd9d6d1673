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
//!   re-inserted.
//! - **InPlace** (Mu'alem & Feitelson): in queue order, each job whose processors are free at
//!   some instant before its reservation (one range-maximum query) is taken out and put back
//!   at its earliest fit, which is never later than before.
//!
//! Adding or cancelling a fixed reservation replays the whole queue (a job may have to move
//! later, which in-place compression cannot do).

use std::cmp::Reverse;

use crate::Time;
use crate::config::{Compression, Estimates, MachineSelect};
use crate::sim::{ConsState, JobPhase, PolicyState, Simulator};

impl Simulator {
    fn cons(&mut self) -> &mut ConsState {
        match &mut self.policy {
            PolicyState::Cons(c) => c,
            PolicyState::Queue(_) => unreachable!("conservative state"),
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
        let job = &self.jobs[idx as usize];
        let est = job.estimate(self.config.estimates);
        let mut best: Option<(Time, Time, usize)> = None;
        for (m, p) in self.profiles.iter().enumerate() {
            if self.platform.machines()[m].cpus < job.procs {
                continue;
            }
            let d = self.platform.duration(m, est);
            let s = p
                .earliest_fit(self.now, d, job.procs)
                .expect("a job no wider than its machine always fits eventually");
            let key = match self.config.machine_select {
                MachineSelect::Fastest => (s, s + d, m),
                MachineSelect::FirstFit => (s, 0, m),
            };
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (s, _, m) = best.expect("validated: some machine is wide enough");
        (m, s)
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
            PolicyState::Queue(_) => unreachable!(),
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
    /// A job keeps its place without a search when (a) no job re-placed before it in this
    /// replay now covers any instant of its old window on its machine (so the old window still
    /// fits), and (b) on every machine it is wider than the largest level the profile showed,
    /// when they became free, over the intervals freed since its placement (the early
    /// completions' `[now, estimated end)` and the old windows of re-placed jobs): a window
    /// starting earlier than before must use such an instant. Reservations are only added
    /// during a replay, so those maxima stay upper bounds.
    fn replay_from(&mut self, k: usize) {
        let nm = self.profiles.len();
        let q = std::mem::take(&mut self.cons().q);
        for &idx in &q[k..] {
            if self.st[idx as usize].phase == JobPhase::Queued {
                self.unplace(idx);
            }
        }
        let full = self.cons().full_replay;
        // Per machine: the largest level over the freed intervals, and the new windows of the
        // jobs that moved onto it.
        let mut bound = vec![i64::MIN; nm];
        let mut taken: Vec<Vec<(Time, Time)>> = vec![Vec::new(); nm];
        if full {
            bound.fill(i64::MAX);
        } else {
            let dirty = std::mem::take(&mut self.cons().dirty);
            for &(m, from, to) in &dirty {
                let b = self.profiles[m as usize].max_free(from, to);
                bound[m as usize] = bound[m as usize].max(b);
            }
            self.cons().dirty = dirty;
        }
        for &idx in &q[k..] {
            let st = self.st[idx as usize];
            if st.phase != JobPhase::Queued {
                continue;
            }
            self.counters.replanned += 1;
            let job = self.jobs[idx as usize];
            let p = i64::from(job.procs);
            let m0 = st.machine as usize;
            let keeps = (0..nm).all(|m| p > bound[m])
                && taken[m0]
                    .iter()
                    .all(|&(a, b)| b <= st.start || a >= st.est_end);
            let (m, s) = if keeps {
                (m0, st.start)
            } else {
                self.best_fit(idx)
            };
            if (m as u32, s) == (st.machine, st.start) {
                // Same place: its start-heap entry is still valid.
                self.profiles[m].reserve(s, st.est_end, job.procs);
            } else {
                self.counters.moved += 1;
                // Its old window is free for the jobs behind it.
                let b = self.profiles[m0].max_free(st.start, st.est_end);
                bound[m0] = bound[m0].max(b);
                self.commit(idx, m, s, false);
                let st2 = self.st[idx as usize];
                taken[m].push((st2.start, st2.est_end));
            }
        }
        self.cons().q = q;
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
