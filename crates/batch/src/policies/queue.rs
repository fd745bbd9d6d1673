//! FCFS, EASY and Flexible backfilling: policies over one ordered queue of waiting jobs.

use crate::config::FlexWeights;
use crate::sim::{Counters, Dispatcher, Round};
use crate::{SimError, Time};

/// A waiting job with what the policy tests it by, copied at arrival so that the backfill
/// loop reads one contiguous array instead of the job table.
#[derive(Debug, Clone, Copy)]
struct QEntry {
    idx: u32,
    procs: u32,
    /// The planned run time at the reference speed.
    est: Time,
}

/// A FIFO of waiting jobs with `O(1)` pops at the front and in-place compaction of the rest.
#[derive(Debug, Clone, Default)]
struct JobQueue {
    v: Vec<QEntry>,
    head: usize,
}

impl JobQueue {
    fn len(&self) -> usize {
        self.v.len() - self.head
    }
    fn front(&self) -> Option<QEntry> {
        self.v.get(self.head).copied()
    }
    fn pop_front(&mut self) {
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        } else if self.head >= 4096 && self.head * 2 >= self.v.len() {
            self.v.drain(..self.head);
            self.head = 0;
        }
    }
    fn as_slice(&self) -> &[QEntry] {
        &self.v[self.head..]
    }
    fn as_mut_slice(&mut self) -> &mut [QEntry] {
        &mut self.v[self.head..]
    }
    /// Drops the entries `[k, len)` of the live part.
    fn truncate(&mut self, k: usize) {
        self.v.truncate(self.head + k);
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        }
    }
    /// Appends the jobs that arrived since the last round, in arrival order.
    fn admit(&mut self, r: &Round<'_>) {
        let estimates = r.config().estimates;
        self.v.extend(r.arrived().iter().map(|&idx| {
            let job = r.job(idx);
            QEntry {
                idx,
                procs: job.procs,
                est: job.estimate(estimates),
            }
        }));
    }
    fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.as_slice().iter().map(|e| e.idx)
    }
}

/// Whether `e` fits now on machine `m` for `dur`: [`Round::fits_now`] on the entry's cached
/// numbers (`O(1)` on a monotone machine).
#[inline]
fn fits_now(r: &Round<'_>, m: usize, dur: Time, procs: u32) -> bool {
    if r.is_monotone(m) {
        r.free_now(m) >= i64::from(procs)
    } else {
        r.profile(m).fits(r.now(), dur, procs)
    }
}

/// The machine job `e` starts on now, if any, by the configuration's selection rule.
fn pick_now(r: &Round<'_>, e: QEntry) -> Option<usize> {
    let platform = r.platform();
    if platform.len() == 1 {
        return fits_now(r, 0, platform.duration(0, e.est), e.procs).then_some(0);
    }
    r.machine_order().iter().map(|&m| m as usize).find(|&m| {
        platform.machines()[m].cpus >= e.procs
            && fits_now(r, m, platform.duration(m, e.est), e.procs)
    })
}

/// First come, first served: the queue head starts when it fits (on the machine the
/// configuration's selection rule prefers); nothing overtakes it.
#[derive(Debug, Clone, Default)]
pub struct Fcfs {
    q: JobQueue,
}

impl Fcfs {
    /// FCFS with an empty queue (it learns of jobs from each round's arrivals, so hand it to
    /// a simulation from its start).
    pub fn new() -> Self {
        Self::default()
    }

    /// The waiting jobs in queue (arrival) order.
    pub fn queue(&self) -> impl Iterator<Item = u32> + '_ {
        self.q.indices()
    }
}

impl Dispatcher for Fcfs {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        self.q.admit(r);
        while let Some(h) = self.q.front() {
            let Some(m) = pick_now(r, h) else {
                break;
            };
            self.q.pop_front();
            r.start(h.idx, m)?;
        }
        Ok(())
    }
}

/// EASY (aggressive) backfilling, or Flexible backfilling ([`Easy::flexible`]): start heads
/// while they fit, reserve for the blocked head at its earliest start (the machine with the
/// earliest start, then the earliest end, then the lowest index; Klusáček A11), then start
/// every other job, in queue order, that fits now without touching that reservation.
///
/// Two shortcuts keep a round cheap, both through the public [`Round`] API: on a
/// [monotone](Round::is_monotone) machine the head's reservation is two numbers (its start
/// and the processors free then beyond the head's), so a backfill test is arithmetic, not a
/// profile sweep; and a round in which no capacity was released
/// ([`Round::capacity_released`]) and the head did not change examines only the jobs that
/// arrived since, since the ones examined before still cannot start.
#[derive(Debug, Clone, Default)]
pub struct Easy {
    q: JobQueue,
    /// Entries (from the head) already examined against the current reservation and free
    /// capacity; a round with no release and the same head only examines the rest.
    checked: usize,
    /// The head's reservation as last promised: (job index, start), for the non-delay check.
    promise: Option<(u32, Time)>,
    /// Flexible backfilling's weights; `None` for EASY.
    flex: Option<FlexWeights>,
    /// Flexible: (priority, arrival rank, entry) scratch.
    keys: Vec<(f64, u32, QEntry)>,
    counters: Counters,
}

impl Easy {
    /// EASY backfilling over the queue in arrival order.
    pub fn new() -> Self {
        Self::default()
    }

    /// Flexible backfilling (Klusáček spec §2.12): EASY over a queue re-sorted at every
    /// round by `weights`' priority, ties to the earlier arrival.
    pub fn flexible(weights: FlexWeights) -> Self {
        Easy {
            flex: Some(weights),
            ..Self::default()
        }
    }

    /// Work done: `backfill_checks` (queued jobs examined as backfill candidates).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The waiting jobs in queue order (for Flexible, the order of the last round).
    pub fn queue(&self) -> impl Iterator<Item = u32> + '_ {
        self.q.indices()
    }

    /// The blocked head's reservation: the machine with the earliest start, then the
    /// earliest end, then the lowest index (Klusáček A11); `(machine, start)`.
    fn head_reservation(r: &Round<'_>, h: QEntry) -> (usize, Time) {
        let platform = r.platform();
        let now = r.now();
        let mut best: Option<(Time, Time, usize)> = None;
        for m in 0..platform.len() {
            if platform.machines()[m].cpus < h.procs {
                continue;
            }
            let d = platform.duration(m, h.est);
            let p = r.profile(m);
            let s = if r.is_monotone(m) {
                if p.free_now() >= i64::from(h.procs) {
                    Some(now)
                } else {
                    p.first_at_least(now, i64::from(h.procs))
                }
            } else {
                p.earliest_fit(now, d, h.procs)
            };
            let s = s.expect("a job no wider than its machine always fits eventually");
            let key = (s, s + d, m);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (s, _, m) = best.expect("validated: some machine is wide enough");
        (m, s)
    }

    fn note_head_promise(&mut self, r: &Round<'_>, idx: u32, shadow: Time) {
        let flexible = self.flex.is_some();
        let check = r.config().check_invariants && !flexible;
        let fresh = flexible || r.reservations_changed();
        match self.promise {
            Some((j, p)) if j == idx && !fresh => {
                if check {
                    assert!(
                        shadow <= p,
                        "EASY delayed the head's reservation: job index {idx} promised {p}, now {shadow}"
                    );
                }
                self.promise = Some((j, shadow));
            }
            _ => self.promise = Some((idx, shadow)),
        }
    }

    fn check_head_promise(&mut self, r: &Round<'_>, idx: u32) {
        // A promise is renewed at every round after a fixed reservation changes, so the
        // check holds with reservations too; Flexible's top job can lose its place.
        let check = r.config().check_invariants && self.flex.is_none();
        if let Some((j, p)) = self.promise
            && j == idx
        {
            if check {
                let now = r.now();
                assert!(
                    now <= p,
                    "EASY started the head (job index {idx}) at {now}, after its reservation {p}"
                );
            }
            self.promise = None;
        }
    }

    /// Flexible backfilling: re-sort the queue by the Klusáček priority (spec §2.12).
    fn sort_by_priority(&mut self, r: &Round<'_>, w: FlexWeights) {
        if self.q.len() < 2 {
            return;
        }
        let now = r.now();
        let (mut emin, mut emax, mut wmax, mut dmax) = (Time::MAX, Time::MIN, 0, Time::MIN);
        for e in self.q.as_slice() {
            let j = r.job(e.idx);
            emin = emin.min(e.est);
            emax = emax.max(e.est);
            wmax = wmax.max(now - j.submit);
            if let Some(d) = j.deadline {
                dmax = dmax.max(d - now);
            }
        }
        let (elo, ehi) = w.exec_range.unwrap_or((emin, emax));
        self.keys.clear();
        for e in self.q.as_slice() {
            let j = r.job(e.idx);
            let ex = if ehi > elo {
                (ehi - e.est) as f64 / (ehi - elo) as f64
            } else {
                0.0
            };
            let wt = if wmax > 0 {
                (now - j.submit) as f64 / wmax as f64
            } else {
                0.0
            };
            let dl = match j.deadline {
                None => 0.0,
                Some(_) if dmax <= 0 => 1.0,
                Some(d) => 1.0 - ((d - now) as f64 / dmax as f64).clamp(0.0, 1.0),
            };
            let prio = w.deadline * dl + w.wait * wt + w.exec * ex;
            self.keys.push((prio, r.arrival_rank(e.idx), *e));
        }
        self.keys
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (slot, k) in self.q.as_mut_slice().iter_mut().zip(&self.keys) {
            *slot = k.2;
        }
    }
}

impl Dispatcher for Easy {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        self.q.admit(r);
        if let Some(w) = self.flex {
            self.sort_by_priority(r, w);
        }
        let full = self.flex.is_some() || r.capacity_released() || r.reservations_changed();
        let mut head_started = false;
        loop {
            let Some(h) = self.q.front() else {
                self.checked = 0;
                self.promise = None;
                return Ok(());
            };
            let Some(m) = pick_now(r, h) else {
                break;
            };
            self.q.pop_front();
            self.check_head_promise(r, h.idx);
            r.start(h.idx, m)?;
            head_started = true;
        }
        let from = if full || head_started {
            1
        } else {
            self.checked.max(1)
        };
        let qlen = self.q.len();
        if from >= qlen {
            self.checked = qlen;
            if !(full || head_started) {
                return Ok(());
            }
        }
        let head = self.q.front().expect("non-empty");
        let (rm, shadow) = Self::head_reservation(r, head);
        self.note_head_promise(r, head.idx, shadow);
        if from >= qlen {
            return Ok(());
        }
        let fast = r.is_monotone(rm);
        if !fast {
            // Released when the round ends.
            r.hold(head.idx, rm, shadow)?;
        }
        // `extra`: processors free at the shadow time beyond the head's (monotone profile).
        let mut extra = if fast {
            r.profile(rm).free_at(shadow) - i64::from(head.procs)
        } else {
            0
        };
        let single = r.platform().len() == 1;
        let machines = r.platform().len();
        let mut free_total: i64 = (0..machines).map(|m| r.free_now(m)).sum();
        // The most processors free on one machine: a job needing more starts on none, which
        // this answers without asking every machine in turn (on a saturated grid most of the
        // queue is such jobs, and the scan was queue length × machines per round).
        let most_free = |r: &Round<'_>| (0..machines).map(|m| r.free_now(m)).max().unwrap_or(0);
        let mut widest = most_free(r);
        let now = r.now();
        let mut w = from;
        let mut i = from;
        while i < qlen {
            if free_total <= 0 {
                break;
            }
            let e = self.q.as_slice()[i];
            i += 1;
            self.counters.backfill_checks += 1;
            let platform = r.platform();
            let chosen = if single {
                // The machine's own run time, not the reference one: a one-machine grid may
                // be slower or faster than the reference speed.
                let d = platform.duration(0, e.est);
                let ok = r.free_now(0) >= i64::from(e.procs)
                    && if fast {
                        now + d <= shadow || i64::from(e.procs) <= extra
                    } else {
                        r.profile(0).fits(now, d, e.procs)
                    };
                ok.then_some(0)
            } else if i64::from(e.procs) > widest {
                None
            } else {
                r.machine_order().iter().map(|&m| m as usize).find(|&m| {
                    if platform.machines()[m].cpus < e.procs || r.free_now(m) < i64::from(e.procs) {
                        return false;
                    }
                    let d = platform.duration(m, e.est);
                    if m == rm && fast {
                        now + d <= shadow || i64::from(e.procs) <= extra
                    } else {
                        fits_now(r, m, d, e.procs)
                    }
                })
            };
            match chosen {
                Some(m) => {
                    let d = r.platform().duration(m, e.est);
                    if m == rm && fast && now + d > shadow {
                        extra -= i64::from(e.procs);
                    }
                    free_total -= i64::from(e.procs);
                    r.start(e.idx, m)?;
                    widest = most_free(r);
                }
                None => {
                    self.q.as_mut_slice()[w] = e;
                    w += 1;
                }
            }
        }
        // Keep the unexamined tail.
        if w < i {
            let s = self.q.as_mut_slice();
            s.copy_within(i..qlen, w);
            let kept = w + (qlen - i);
            self.q.truncate(kept);
        }
        self.checked = self.q.len();
        Ok(())
    }
}
