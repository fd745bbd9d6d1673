//! A set of free slots and Singh's Figure 2, "scheduling a task on a set of slots" (spec §2.2):
//! the data structure of the non-delaying (conservative-backfilling) site scheduler of
//! chapter 3, and, with release times, the bins of the plan evaluator of chapter 4 (§2.6).
//!
//! # Representation
//!
//! A [`Slot`] is `procs` processors free over `[start, end)`. An *extensible* slot has
//! `end == OPEN`: the spec's proposal for the thesis's "extend 5 minutes past the task"
//! rule (§2.2, AMBIG 1), which exists only so that an extensible piece always survives; the
//! advertised duration of an extensible slot is computed against the horizon when it is
//! reported ([`SlotSet::offers`]). Chapter 3 uses two of Table 1's four kinds: constrained
//! holes (indivisible, non-extensible: their end is the start of a task on all their
//! processors) and edge slots (divisible, extensible). The set keeps the general pair of flags.
//!
//! The slots are kept sorted by `(start, non-extensible first, end, divisible, creation
//! order)`, the spec's tie-breaking proposal. Every slot ends at [`OPEN`] or at the start of a
//! task on all of its processors, so a processor free at time `t` lies in exactly one slot
//! and there is no horizontal joining: a task needs slots that each span its whole window
//! (vertical stacking only, §2.2).
//!
//! # Figure 2
//!
//! Visit the slots in order; slot `S_i` proposes `t = max(S_i.start, release)`. If `S_i` is
//! *active* over `[t, t + d)` (it ends at or after `t + d`) and, together with the active slots
//! before it, holds at least `n` processors, the task starts at `t`. Processors are taken
//! from `S_i` first, then `S_{i−1}`, `S_{i−2}`, … (the last one partially). Each slot used
//! leaves up to three pieces (spec §2.2, RECON from Fig. 3): its unused processors on its whole
//! interval (kept in place: the slot shrinks), the used processors *before* the task
//! (`[start, t)`, indivisible and non-extensible: its end is now a task start) and *after* it
//! (`[t + d, end)`, with the slot's own attributes). Pieces of identical shape are merged
//! ([`Merge`]). The sweep keeps the active processors in a running sum and drops slots whose
//! end falls inside the window from a heap of ends, so one query is `O(S log S)` and a
//! placement `O(S)` more, with no allocation once the set's buffers have grown.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use gridsched_batch::Time;

use crate::slot::Offer;

/// The end of an extensible slot.
pub const OPEN: Time = Time::MAX;

/// One free slot (or piece of one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub start: Time,
    /// [`OPEN`] exactly when `extensible`.
    pub end: Time,
    pub procs: u32,
    pub extensible: bool,
    pub divisible: bool,
    /// The slot of the initial set this piece was cut from (plan evaluation charges by it);
    /// the site scheduler does not use it.
    pub origin: u32,
    /// Creation order, the last tie-break.
    seq: u32,
}

impl Slot {
    /// Its position in the set's order.
    fn key(&self) -> (Time, bool, Time, bool, u32) {
        (
            self.start,
            self.extensible,
            self.end,
            self.divisible,
            self.seq,
        )
    }

    fn shape(&self) -> (Time, bool, Time, bool) {
        (self.start, self.extensible, self.end, self.divisible)
    }

    /// Its creation number (unique in its set).
    pub fn seq(&self) -> u32 {
        self.seq
    }
}

/// Which pieces of identical shape (start, end and both flags) are merged into one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Merge {
    /// Any two (the site's advertised set, spec §2.2: "merge slots with identical
    /// (start, end, b, e)").
    #[default]
    Shape,
    /// Only pieces of the same initial slot (plan evaluation, which charges per slot taken).
    ShapeAndOrigin,
}

/// Where Figure 2 puts a task: its start and the slot whose start proposed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: Time,
    anchor: usize,
}

/// Processors a placed task took from one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    /// The slot as it was before the task.
    pub slot: Slot,
    pub procs: u32,
}

/// The set of free slots of one resource.
#[derive(Debug, Clone, Default)]
pub struct SlotSet {
    slots: Vec<Slot>,
    next_seq: u32,
    merge: Merge,
    // Scratch buffers reused by every query and placement.
    ends: BinaryHeap<Reverse<(Time, u32)>>,
    taken: Vec<(usize, u32)>,
    pieces: Vec<Slot>,
    order: Vec<(Reverse<Time>, Time, Reverse<u32>, usize)>,
    consume: Consume,
}

/// Which free processors a task takes once its start is known (spec §2.2, AMBIG 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Consume {
    /// Of every slot spanning the window, the latest-starting first, then the one ending
    /// first (the tightest fit; it keeps long free intervals whole). Like
    /// [`Consume::Figure2`] it is not conservative backfilling: committing
    /// processors at planning time can leave a later job no set of slots spanning its window
    /// although the processor count would (`tests/it/figure2.rs` keeps a minimal counterexample).
    #[default]
    Tightest,
    /// Figure 2 as the spec reconstructs it: the slot that proposed the start, then the slots
    /// *before* it in the set's order (`S_i`, `S_{i−1}`, …). It can take a processor whose
    /// free interval began earlier while a slot with the same start but a later place in the
    /// order stays free, and a later job then starts later than under conservative
    /// backfilling (found by the property test: see `tests/it/figure2.rs`).
    Figure2,
}

impl SlotSet {
    /// An empty set.
    pub fn new(merge: Merge) -> Self {
        SlotSet {
            merge,
            ..SlotSet::default()
        }
    }

    /// With another [`Consume`] rule.
    pub fn with_consume(mut self, consume: Consume) -> Self {
        self.consume = consume;
        self
    }

    /// A resource of `capacity` processors, all free from `now` on: one extensible slot.
    pub fn idle(capacity: u32, now: Time) -> Self {
        let mut s = SlotSet::new(Merge::Shape);
        if capacity > 0 {
            s.add(now, OPEN, capacity, true, true, 0);
        }
        s
    }

    /// The slots in order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Removes every slot (keeping the buffers).
    pub fn clear(&mut self) {
        self.slots.clear();
        self.next_seq = 0;
    }

    /// Adds a free slot (merged with one of identical shape per the set's [`Merge`] rule).
    /// `extensible` slots must end at [`OPEN`], others before it.
    pub fn add(
        &mut self,
        start: Time,
        end: Time,
        procs: u32,
        extensible: bool,
        divisible: bool,
        origin: u32,
    ) {
        debug_assert!(procs > 0 && start < end && (end == OPEN) == extensible);
        let slot = Slot {
            start,
            end,
            procs,
            extensible,
            divisible,
            origin,
            seq: self.next_seq,
        };
        self.next_seq += 1;
        self.insert(slot);
    }

    fn insert(&mut self, slot: Slot) {
        let shape = slot.shape();
        let lo = self.slots.partition_point(|s| s.shape() < shape);
        let hi = lo + self.slots[lo..].partition_point(|s| s.shape() == shape);
        for s in &mut self.slots[lo..hi] {
            if self.merge == Merge::Shape || s.origin == slot.origin {
                s.procs += slot.procs;
                return;
            }
        }
        // `slot` is the newest: it goes after every slot of its shape.
        self.slots.insert(hi, slot);
    }

    /// Figure 2's search: the earliest `t ≥ release` at which the set holds `procs`
    /// processors free over `[t, t + duration)` in slots that each span the whole window.
    /// `None` if it never does (no extensible slot is large enough).
    pub fn earliest(&mut self, release: Time, procs: u32, duration: Time) -> Option<Found> {
        debug_assert!(procs > 0 && duration > 0);
        self.ends.clear();
        let need = i64::from(procs);
        let mut sum = 0i64;
        for (i, s) in self.slots.iter().enumerate() {
            let t = s.start.max(release);
            let until = t + duration;
            while let Some(&Reverse((end, j))) = self.ends.peek() {
                if end >= until {
                    break;
                }
                self.ends.pop();
                sum -= i64::from(self.slots[j as usize].procs);
            }
            if s.end < until {
                continue;
            }
            sum += i64::from(s.procs);
            if sum >= need {
                return Some(Found {
                    start: t,
                    anchor: i,
                });
            }
            if !s.extensible {
                self.ends.push(Reverse((s.end, i as u32)));
            }
        }
        None
    }

    /// Takes `procs` processors over `[found.start, found.start + duration)` where
    /// [`earliest`](Self::earliest) found them (the set must not have changed in between),
    /// appending what was taken from each slot to `uses`. Which slots give the processors is
    /// the set's [`Consume`] rule.
    pub fn carve(&mut self, found: Found, procs: u32, duration: Time, uses: &mut Vec<Use>) {
        let t = found.start;
        let until = t + duration;
        self.taken.clear();
        let covers = |s: &Slot| s.start <= t && s.end >= until;
        match self.consume {
            Consume::Figure2 => {
                let mut need = procs;
                for j in (0..=found.anchor).rev() {
                    if covers(&self.slots[j]) {
                        let q = need.min(self.slots[j].procs);
                        self.taken.push((j, q));
                        need -= q;
                        if need == 0 {
                            break;
                        }
                    }
                }
                assert_eq!(need, 0, "carve: the set changed since `earliest`");
            }
            Consume::Tightest => {
                // Every slot covering the window, also those after the anchor with its start.
                let hi = self.slots.partition_point(|s| s.start <= t);
                let mut cand: Vec<(Reverse<Time>, Time, Reverse<u32>, usize)> = Vec::new();
                std::mem::swap(&mut cand, &mut self.order);
                cand.clear();
                cand.extend(
                    self.slots[..hi]
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| covers(s))
                        .map(|(j, s)| (Reverse(s.start), s.end, Reverse(s.seq), j)),
                );
                cand.sort_unstable();
                let mut need = procs;
                for &(_, _, _, j) in &cand {
                    let q = need.min(self.slots[j].procs);
                    self.taken.push((j, q));
                    need -= q;
                    if need == 0 {
                        break;
                    }
                }
                assert_eq!(need, 0, "carve: the set changed since `earliest`");
                self.order = cand;
                // Removals below need decreasing indices.
                self.taken.sort_unstable_by_key(|&(j, _)| Reverse(j));
            }
        }
        self.pieces.clear();
        // `taken` is in decreasing index order, so removals keep the other indices valid.
        for k in 0..self.taken.len() {
            let (j, q) = self.taken[k];
            let s = self.slots[j];
            uses.push(Use { slot: s, procs: q });
            if t > s.start {
                self.pieces.push(Slot {
                    start: s.start,
                    end: t,
                    procs: q,
                    extensible: false,
                    divisible: false,
                    origin: s.origin,
                    seq: 0,
                });
            }
            if until < s.end {
                self.pieces.push(Slot {
                    start: until,
                    procs: q,
                    ..s
                });
            }
            // The unused processors stay where they are: the slot shrinks.
            if s.procs == q {
                self.slots.remove(j);
            } else {
                self.slots[j].procs -= q;
            }
        }
        for k in 0..self.pieces.len() {
            let mut p = self.pieces[k];
            p.seq = self.next_seq;
            self.next_seq += 1;
            self.insert(p);
        }
    }

    /// Figure 2 in one call: places a task released at `release` and returns its start. A
    /// task with no processors or no duration takes nothing and starts at `release`.
    pub fn place(
        &mut self,
        release: Time,
        procs: u32,
        duration: Time,
        uses: &mut Vec<Use>,
    ) -> Option<Time> {
        if procs == 0 || duration <= 0 {
            return Some(release);
        }
        let found = self.earliest(release, procs, duration)?;
        self.carve(found, procs, duration, uses);
        Some(found.start)
    }

    /// Moves the set to time `now`: slots that ended are dropped, slots that began are cut to
    /// start at `now` (and merged with equal ones).
    pub fn clip(&mut self, now: Time) {
        if self.slots.first().is_none_or(|s| s.start >= now)
            && self.slots.iter().all(|s| s.end > now)
        {
            return;
        }
        self.slots.retain(|s| s.end > now);
        for s in &mut self.slots {
            s.start = s.start.max(now);
        }
        self.slots.sort_unstable_by_key(Slot::key);
        // Merge equal shapes (per the merge rule) that clipping made adjacent.
        let mut out = 0;
        for i in 0..self.slots.len() {
            let s = self.slots[i];
            let merged = (0..out)
                .rev()
                .take_while(|&k| self.slots[k].shape() == s.shape())
                .find(|&k| self.merge == Merge::Shape || self.slots[k].origin == s.origin);
            match merged {
                Some(k) => self.slots[k].procs += s.procs,
                None => {
                    self.slots[out] = s;
                    out += 1;
                }
            }
        }
        self.slots.truncate(out);
    }

    /// Free processors as a step function: `(time, free from then on)` at every change, the
    /// first at the earliest slot start (nothing is free before it).
    pub fn free_profile(&self) -> Vec<(Time, i64)> {
        let mut ev: Vec<(Time, i64)> = Vec::with_capacity(2 * self.slots.len());
        for s in &self.slots {
            ev.push((s.start, i64::from(s.procs)));
            if s.end != OPEN {
                ev.push((s.end, -i64::from(s.procs)));
            }
        }
        ev.sort_unstable();
        let mut out: Vec<(Time, i64)> = Vec::new();
        let mut level = 0;
        for (t, d) in ev {
            level += d;
            match out.last_mut() {
                Some(last) if last.0 == t => last.1 = level,
                _ => out.push((t, level)),
            }
        }
        out.dedup_by(|b, a| a.1 == b.1);
        out
    }

    /// The slots as a resource advertises them (eq. 2): extensible slots run to `horizon`.
    pub fn offers(&self, horizon: Time, unit_cost: f64, fixed_cost: f64) -> Vec<Offer> {
        self.slots
            .iter()
            .map(|s| Offer {
                start: s.start,
                procs: s.procs,
                duration: if s.extensible {
                    horizon - s.start
                } else {
                    s.end - s.start
                },
                unit_cost,
                fixed_cost,
                divisible: s.divisible,
                extensible: s.extensible,
            })
            .collect()
    }

    /// Checks the representation: sorted, positive, extensible exactly when open-ended.
    pub fn validate(&self) -> Result<(), String> {
        for (i, s) in self.slots.iter().enumerate() {
            if s.procs == 0 || s.start >= s.end || (s.end == OPEN) != s.extensible {
                return Err(format!("slot {i} is malformed: {s:?}"));
            }
            if i > 0 && self.slots[i - 1].key() >= s.key() {
                return Err(format!("slots {} and {i} are out of order", i - 1));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Time = 3600;

    /// singh-ex-fig1: 5 processors; A(2p, 3h), B(4p, 1h), C(1p, 2h), D(3p, 2h) inserted in
    /// that order start at A 0, C 0, B 3, D 4, and the free profile is [0,2)=2, [2,3)=3,
    /// [3,4)=1, [4,6)=2, [6,∞)=5 (spec §2.2).
    #[test]
    fn figure_1_starts_and_free_profile() {
        let mut set = SlotSet::idle(5, 0);
        let mut uses = Vec::new();
        let a = set.place(0, 2, 3 * H, &mut uses).unwrap();
        let b = set.place(0, 4, H, &mut uses).unwrap();
        let c = set.place(0, 1, 2 * H, &mut uses).unwrap();
        let d = set.place(0, 3, 2 * H, &mut uses).unwrap();
        assert_eq!((a, b, c, d), (0, 3 * H, 0, 4 * H));
        assert_eq!(
            set.free_profile(),
            vec![(0, 2), (2 * H, 3), (3 * H, 1), (4 * H, 2), (6 * H, 5)]
        );
        set.validate().unwrap();
        // Every slot ends at OPEN or at the start of a task (A, C start at 0; B at 3; D at 4).
        for s in set.slots() {
            assert!(s.extensible || [3 * H, 4 * H].contains(&s.end), "{s:?}");
            assert_eq!(s.extensible, s.divisible);
        }
        // A new 2p x 2h task backfills at 0 ("fits in S1 + S3").
        assert_eq!(set.place(0, 2, 2 * H, &mut uses), Some(0));
    }

    #[test]
    fn release_time_delays_the_start() {
        let mut set = SlotSet::idle(4, 0);
        let mut uses = Vec::new();
        assert_eq!(set.place(0, 4, 10, &mut uses), Some(0));
        assert_eq!(set.place(3, 2, 5, &mut uses), Some(10));
        // The two free processors over [10, 15) were the whole slot [10, OPEN): a before piece
        // cannot appear (the slot starts at the task's start).
        assert_eq!(set.place(12, 2, 2, &mut uses), Some(12));
        // That one started inside a slot: [10, 12) is left as an indivisible piece.
        assert!(
            set.slots()
                .iter()
                .any(|s| s.start == 10 && s.end == 12 && !s.extensible && !s.divisible)
        );
        set.validate().unwrap();
    }

    #[test]
    fn no_horizontal_joining() {
        // Processor free [0, 10) in one slot and another free from 10: a 1p x 20 task cannot
        // use the first; it starts at 10.
        let mut set = SlotSet::new(Merge::Shape);
        set.add(0, 10, 1, false, false, 0);
        set.add(10, OPEN, 1, true, true, 1);
        let mut uses = Vec::new();
        assert_eq!(set.place(0, 1, 20, &mut uses), Some(10));
        assert_eq!(uses.len(), 1);
        assert_eq!(uses[0].slot.start, 10);
    }

    #[test]
    fn infeasible_without_an_extensible_slot() {
        let mut set = SlotSet::new(Merge::ShapeAndOrigin);
        set.add(0, 10, 4, false, false, 0);
        assert_eq!(set.earliest(0, 2, 11), None);
        assert_eq!(set.earliest(0, 5, 1), None);
        assert_eq!(set.earliest(0, 4, 10).map(|f| f.start), Some(0));
    }

    #[test]
    fn clip_drops_ended_and_merges() {
        let mut set = SlotSet::new(Merge::Shape);
        set.add(0, 10, 1, false, false, 0);
        set.add(5, 20, 2, false, false, 1);
        set.add(7, 20, 1, false, false, 2);
        set.clip(10);
        assert_eq!(set.len(), 1);
        assert_eq!((set.slots()[0].start, set.slots()[0].procs), (10, 3));
        set.validate().unwrap();
    }
}
