//! The availability profile of one machine: free processors as a step function of time.
//!
//! The profile is the sorted list of its *change points* after `now`: times `t_1 < t_2 < …`
//! and the level (free processors) on `[t_i, t_{i+1})`; before `t_1` it is `free_now`. A
//! point whose level equals the one before it is dropped at once, so every stored point is a
//! real change, and two profiles of the same step function hold the same points whatever
//! happened to them before.
//!
//! # Two layouts, one step function
//!
//! A [`Profile`] keeps its points in one of two layouts and moves between them by its size:
//!
//! - **flat** ([`flat`]): two sorted arrays; an inserted or dropped point is a `memmove` of
//!   the points after it, a search a contiguous sweep. Under FCFS and EASY, in Singh's
//!   pricing, and under conservative backfilling on the real logs at their native sizes, a
//!   profile holds at most a few hundred points, and nothing beats this there (an augmented
//!   treap took 3.4× its time on the whole HPC2N EASY replay; a chunked layout with one or a
//!   few chunks 1.2–1.4× on conservative backfilling over HPC2N and CTC, docs/benchmarks.md);
//! - **chunked** ([`chunked`]): sorted chunks of at most [`chunked::CHUNK`] points with lazy
//!   level offsets and per-chunk level bounds, so that an update costs a chunk and the
//!   chunks' offsets in its range, and a sweep skips whole chunks. Conservative backfilling
//!   with a growing queue (issue 32: the LCG log on 1,500 processors) keeps thousands of
//!   points, where the flat layout's `O(n)` shifts and point-by-point sweeps dominated.
//!
//! A flat profile that grows past [`GROW_AT`] points becomes chunked; a chunked one that
//! shrinks below [`SHRINK_AT`] becomes flat again (the gap keeps a profile near one bound from
//! switching back and forth; a switch copies the points once, `O(n)`, into arrays kept for
//! the next switch). Both layouts hold the same points and give the same answer to every
//! query: the flat layout is the oracle of the chunked one's property tests
//! (`profile/tests.rs`), and the layout is invisible to every caller.

pub mod chunked;
pub mod flat;

use crate::Time;
use chunked::Chunked;
use flat::FlatProfile;

/// The largest machine a profile models (processors): 2^28 = 268,435,456. Free levels are
/// `i64`, so sums of many blocks stay exact far beyond it; the bound is what every reader of
/// a processor count (command-line options, SWF headers, machine files) and
/// [`Platform::grid`](crate::Platform::grid) check against, so that no input reaches
/// [`Profile::new`]'s assertion.
pub const MAX_CAPACITY: u32 = 1 << 28;

/// A flat profile with more change points than this becomes chunked.
pub const GROW_AT: usize = 1024;

/// A chunked profile with fewer change points than this becomes flat.
pub const SHRINK_AT: usize = 512;

/// Free processors of one machine over `[now, ∞)`; see the module documentation.
#[derive(Debug)]
pub struct Profile {
    /// Which layout holds the points; the other is scratch kept for the next switch.
    is_chunked: bool,
    flat: FlatProfile,
    chunked: Chunked,
    /// The switching sizes ([`GROW_AT`], [`SHRINK_AT`] except in tests).
    grow_at: usize,
    shrink_at: usize,
}

/// Runs `$e` with `$p` bound to the layout holding the profile.
macro_rules! layout {
    ($s:expr, $p:ident => $e:expr) => {
        if $s.is_chunked {
            let $p = &$s.chunked;
            $e
        } else {
            let $p = &$s.flat;
            $e
        }
    };
}

/// [`layout!`] for an update, then switches layouts if the size calls for it.
macro_rules! update {
    ($s:expr, $p:ident => $e:expr) => {{
        let r = if $s.is_chunked {
            let $p = &mut $s.chunked;
            $e
        } else {
            let $p = &mut $s.flat;
            $e
        };
        $s.settle();
        r
    }};
}

impl Clone for Profile {
    fn clone(&self) -> Self {
        let mut p = Profile::new(0, self.now());
        p.clone_from(self);
        p
    }

    /// Reuses `self`'s arrays: a compression that rebuilds a profile from its base allocates
    /// nothing once they are large enough.
    fn clone_from(&mut self, src: &Self) {
        self.is_chunked = src.is_chunked;
        self.grow_at = src.grow_at;
        self.shrink_at = src.shrink_at;
        if src.is_chunked {
            self.chunked.clone_from(&src.chunked);
        } else {
            self.flat.clone_from(&src.flat);
        }
    }
}

impl Profile {
    /// An idle machine of `capacity` processors at time `now`.
    pub fn new(capacity: u32, now: Time) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "a profile models at most {MAX_CAPACITY} processors"
        );
        Profile {
            is_chunked: false,
            flat: FlatProfile::new(capacity, now),
            chunked: Chunked::new(capacity, now),
            grow_at: GROW_AT,
            shrink_at: SHRINK_AT,
        }
    }

    /// A profile that switches layouts at other sizes (`shrink_at ≤ grow_at + 1`), for the
    /// tests of the switches and of the chunked layout in small profiles.
    #[cfg(test)]
    pub(crate) fn with_switch(capacity: u32, now: Time, grow_at: usize, shrink_at: usize) -> Self {
        assert!(shrink_at <= grow_at + 1);
        let mut p = Profile::new(capacity, now);
        p.grow_at = grow_at;
        p.shrink_at = shrink_at;
        p.settle();
        p
    }

    /// Whether the points are in the chunked layout (for tests and benchmarks).
    pub fn is_chunked(&self) -> bool {
        self.is_chunked
    }

    /// Switches layouts if the size crossed its bound.
    #[inline]
    fn settle(&mut self) {
        if self.is_chunked {
            if self.chunked.len() < self.shrink_at {
                self.switch_to_flat();
            }
        } else if self.flat.len() > self.grow_at {
            self.switch_to_chunked();
        }
    }

    #[cold]
    fn switch_to_flat(&mut self) {
        let c = &self.chunked;
        let cap = i64::from(c.capacity());
        self.flat.assign(cap, c.now(), c.free_now(), c.points());
        self.is_chunked = false;
    }

    #[cold]
    fn switch_to_chunked(&mut self) {
        let f = &self.flat;
        let (times, levels) = f.points();
        let cap = i64::from(f.capacity());
        self.chunked
            .assign(cap, f.now(), f.free_now(), times, levels);
        self.is_chunked = true;
    }

    /// Processors of the machine.
    pub fn capacity(&self) -> u32 {
        layout!(self, p => p.capacity())
    }

    /// The profile's present: every change at or before it is folded.
    pub fn now(&self) -> Time {
        layout!(self, p => p.now())
    }

    /// Free processors at [`now`](Self::now).
    #[inline]
    pub fn free_now(&self) -> i64 {
        layout!(self, p => p.free_now())
    }

    /// Number of future change times.
    pub fn len(&self) -> usize {
        layout!(self, p => p.len())
    }

    /// Whether the level stays at `free_now` forever.
    pub fn is_empty(&self) -> bool {
        layout!(self, p => p.is_empty())
    }

    /// Moves the present to `t ≥ now`, folding every change at or before `t`.
    pub fn advance(&mut self, t: Time) {
        update!(self, p => p.advance(t))
    }

    /// Adds `delta` processors to the level from time `t` on (a change at or before `now`
    /// also changes [`free_now`](Self::free_now)).
    pub fn add(&mut self, t: Time, delta: i64) {
        update!(self, p => p.add(t, delta))
    }

    /// Takes `procs` processors over `[start, end)` (a job or a fixed reservation).
    #[inline]
    pub fn reserve(&mut self, start: Time, end: Time, procs: u32) {
        update!(self, p => p.reserve(start, end, procs))
    }

    /// [`reserve`](Self::reserve) only if the block fits (`start ≥ now`): `false`, and the
    /// profile unchanged, if it would leave fewer than zero processors free anywhere in
    /// `[start, end)`. The fit test rides on the update's own pass over the block, so a
    /// caller that must check a block before taking it (the simulator refusing an invalid
    /// reservation) pays no second sweep for the check.
    #[inline]
    pub fn try_reserve(&mut self, start: Time, end: Time, procs: u32) -> bool {
        update!(self, p => p.try_reserve(start, end, procs))
    }

    /// Gives back a block taken with [`reserve`](Self::reserve) (or the rest of one: a start
    /// at or before `now` gives the processors back from now on).
    #[inline]
    pub fn release(&mut self, start: Time, end: Time, procs: u32) {
        update!(self, p => p.release(start, end, procs))
    }

    /// Free processors at time `t ≥ now`.
    pub fn free_at(&self, t: Time) -> i64 {
        layout!(self, p => p.free_at(t))
    }

    /// The first change time `k` with `lo < k < hi` at which the level drops below `p`.
    pub fn first_below(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        layout!(self, x => x.first_below(lo, hi, p))
    }

    /// The first change time `k > lo` at which the level is at least `p`.
    pub fn first_at_least(&self, lo: Time, p: i64) -> Option<Time> {
        layout!(self, x => x.first_at_least(lo, p))
    }

    /// `lo` itself if the level there is below `p`, else [`first_below`](Self::first_below):
    /// the first instant of `[lo, hi)` with fewer than `p` free processors.
    pub fn first_below_from(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        layout!(self, x => x.first_below_from(lo, hi, p))
    }

    /// Whether `procs` processors are free over `[start, start + dur)` (`start ≥ now`).
    #[inline]
    pub fn fits(&self, start: Time, dur: Time, procs: u32) -> bool {
        layout!(self, p => p.fits(start, dur, procs))
    }

    /// The earliest `t ≥ from` (and `≥ now`) such that `procs` processors are free over
    /// `[t, t + dur)`; `None` when the level never reaches `procs` for that long (more
    /// processors than the machine has, or a block that never ends).
    #[inline]
    pub fn earliest_fit(&self, from: Time, dur: Time, procs: u32) -> Option<Time> {
        layout!(self, p => p.earliest_fit(from, dur, procs))
    }

    /// [`earliest_fit`](Self::earliest_fit) limited to starts before `limit`: `None` when the
    /// earliest fit is at or after `limit`, found without sweeping the points beyond it (a
    /// compression asks "can this job start earlier than its reservation?").
    #[inline]
    pub fn earliest_fit_before(
        &self,
        from: Time,
        dur: Time,
        procs: u32,
        limit: Time,
    ) -> Option<Time> {
        layout!(self, p => p.earliest_fit_before(from, dur, procs, limit))
    }

    /// The first change time after `t`, if any: where a forward simulation with no arrivals
    /// has its next event (a scheduling round at a point where the level only falls can start
    /// nothing that could not start before it).
    pub fn next_change(&self, t: Time) -> Option<Time> {
        layout!(self, p => p.next_change(t))
    }

    /// The minimum level over `[a, b)` (`a < b`, `a ≥ now`).
    #[inline]
    pub fn min_free(&self, a: Time, b: Time) -> i64 {
        layout!(self, p => p.min_free(a, b))
    }

    /// The maximum level over `[a, b)` (`a < b`, `a ≥ now`).
    #[inline]
    pub fn max_free(&self, a: Time, b: Time) -> i64 {
        layout!(self, p => p.max_free(a, b))
    }

    /// The steps `(time, level)` from `now` on: the first is `(now, free_now)`, then one per
    /// change time.
    pub fn steps(&self) -> Vec<(Time, i64)> {
        layout!(self, p => p.steps())
    }

    /// Checks the profile's invariants (times increasing and after `now`, every point a real
    /// change, level within `[0, capacity]` everywhere, the layout's own bookkeeping, and the
    /// layout the one its size calls for); `Err` names the first violation. `O(n)`: for tests
    /// and debug checks.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.len();
        if self.is_chunked && n < self.shrink_at {
            return Err(format!("chunked with {n} points (< {})", self.shrink_at));
        }
        if !self.is_chunked && n > self.grow_at {
            return Err(format!("flat with {n} points (> {})", self.grow_at));
        }
        layout!(self, p => p.validate())
    }
}

#[cfg(test)]
mod tests;
