//! The flat layout of the profile: the step function as two flat sorted arrays, every
//! insertion and removal a `memmove`, every search a point-by-point sweep. It is what a
//! [`Profile`](super::Profile) of few change points uses (fastest there: everything is one
//! contiguous sweep over a few kilobytes), and the oracle of the property tests
//! (`profile/tests.rs`): its answers define the profile's semantics, down to edge cases such
//! as a zero duration, and the chunked layout must give the same answers and states.

use super::MAX_CAPACITY;
use crate::Time;

/// Free processors of one machine over `[now, ∞)`; see the module documentation.
#[derive(Debug)]
pub struct FlatProfile {
    capacity: i64,
    now: Time,
    free_now: i64,
    /// Change times, strictly increasing; those before `head` are folded into `free_now`.
    times: Vec<Time>,
    /// `levels[i]`: free processors on `[times[i], times[i + 1])`.
    levels: Vec<i64>,
    head: usize,
}

impl Clone for FlatProfile {
    fn clone(&self) -> Self {
        let mut p = FlatProfile::new(0, self.now);
        p.clone_from(self);
        p
    }

    /// Reuses `self`'s arrays: a compression that rebuilds a profile from its base allocates
    /// nothing.
    fn clone_from(&mut self, src: &Self) {
        self.capacity = src.capacity;
        self.now = src.now;
        self.free_now = src.free_now;
        self.times.clear();
        self.times.extend_from_slice(&src.times[src.head..]);
        self.levels.clear();
        self.levels.extend_from_slice(&src.levels[src.head..]);
        self.head = 0;
    }
}

impl FlatProfile {
    /// An idle machine of `capacity` processors at time `now`.
    pub fn new(capacity: u32, now: Time) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "a profile models at most {MAX_CAPACITY} processors"
        );
        FlatProfile {
            capacity: i64::from(capacity),
            now,
            free_now: i64::from(capacity),
            times: Vec::new(),
            levels: Vec::new(),
            head: 0,
        }
    }

    /// Processors of the machine.
    pub fn capacity(&self) -> u32 {
        self.capacity as u32
    }

    /// The profile's present: every change at or before it is folded.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Free processors at [`now`](Self::now).
    #[inline]
    pub fn free_now(&self) -> i64 {
        self.free_now
    }

    /// Number of future change times.
    pub fn len(&self) -> usize {
        self.times.len() - self.head
    }

    /// Whether the level stays at `free_now` forever.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Becomes the profile of `capacity` processors at `now` with `free_now` free and the
    /// change points `points` (time, real level; times strictly increasing, after `now`),
    /// reusing its arrays.
    pub fn assign(
        &mut self,
        capacity: i64,
        now: Time,
        free_now: i64,
        points: impl Iterator<Item = (Time, i64)>,
    ) {
        self.capacity = capacity;
        self.now = now;
        self.free_now = free_now;
        self.head = 0;
        self.times.clear();
        self.levels.clear();
        for (t, l) in points {
            self.times.push(t);
            self.levels.push(l);
        }
    }

    /// The change points: times (strictly increasing, after `now`) and the levels from them.
    pub fn points(&self) -> (&[Time], &[i64]) {
        (&self.times[self.head..], &self.levels[self.head..])
    }

    /// Moves the present to `t ≥ now`, folding every change at or before `t`.
    pub fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now, "time runs forward: {t} < {}", self.now);
        self.now = t;
        let i = self.search_after(t);
        if i > self.head {
            self.free_now = self.levels[i - 1];
            self.head = i;
        }
        // Cut the folded past off once it is most of the arrays: amortized O(1) per point.
        if self.head >= 64 && 2 * self.head >= self.times.len() {
            self.times.drain(..self.head);
            self.levels.drain(..self.head);
            self.head = 0;
        }
    }

    /// Adds `delta` processors to the level from time `t` on (a change at or before `now`
    /// also changes [`free_now`](Self::free_now)).
    pub fn add(&mut self, t: Time, delta: i64) {
        self.add_range::<false>(t, Time::MAX, delta);
    }

    /// Takes `procs` processors over `[start, end)` (a job or a fixed reservation).
    #[inline]
    pub fn reserve(&mut self, start: Time, end: Time, procs: u32) {
        debug_assert!(start < end, "empty block [{start}, {end})");
        self.add_range::<false>(start, end, -i64::from(procs));
    }

    /// [`reserve`](Self::reserve) only if the block fits (`start ≥ now`): `false`, and the
    /// profile unchanged, if it would leave fewer than zero processors free anywhere in
    /// `[start, end)`. The fit test rides on the update's own pass over the block's points, so
    /// a caller that must check a block before taking it (the simulator refusing an invalid
    /// reservation) pays no second sweep for the check.
    pub fn try_reserve(&mut self, start: Time, end: Time, procs: u32) -> bool {
        debug_assert!(start < end, "empty block [{start}, {end})");
        if self.add_range::<true>(start, end, -i64::from(procs)) {
            return true;
        }
        self.add_range::<false>(start, end, i64::from(procs));
        false
    }

    /// Gives back a block taken with [`reserve`](Self::reserve) (or the rest of one: a start
    /// at or before `now` gives the processors back from now on).
    #[inline]
    pub fn release(&mut self, start: Time, end: Time, procs: u32) {
        self.add_range::<false>(start, end, i64::from(procs));
    }

    /// Adds `delta` to the level over `[s, e)` (`e = Time::MAX`: forever). With `CHECK`,
    /// returns whether no level over the range is negative afterwards; without, `true`.
    fn add_range<const CHECK: bool>(&mut self, s: Time, e: Time, delta: i64) -> bool {
        if delta == 0 || e <= self.now || e <= s {
            return true;
        }
        let a = if s <= self.now {
            self.head
        } else {
            self.split(s)
        };
        let b = if e == Time::MAX {
            self.times.len()
        } else {
            self.split(e)
        };
        if s <= self.now {
            self.free_now += delta;
        }
        let ok = if CHECK {
            // The sign bit of the OR of the new levels: whether any is negative, with plain
            // SSE2 ops in the update's own loop (no packed 64-bit compare or minimum there).
            let mut or = if s <= self.now { self.free_now } else { 0 };
            for l in &mut self.levels[a..b] {
                *l += delta;
                or |= *l;
            }
            or >= 0
        } else {
            for l in &mut self.levels[a..b] {
                *l += delta;
            }
            true
        };
        // Only the two ends can have become non-changes.
        self.drop_if_flat(b);
        if s > self.now {
            self.drop_if_flat(a);
        }
        ok
    }

    /// The index of the point at `t > now`, inserted (with the level already there) if absent.
    fn split(&mut self, t: Time) -> usize {
        let i = self.after(t);
        if i > self.head && self.times[i - 1] == t {
            return i - 1;
        }
        let level = self.level_before(i);
        self.times.insert(i, t);
        self.levels.insert(i, level);
        i
    }

    /// Drops point `i` if the level does not change there.
    fn drop_if_flat(&mut self, i: usize) {
        if i < self.times.len() && self.levels[i] == self.level_before(i) {
            self.times.remove(i);
            self.levels.remove(i);
        }
    }

    /// The index of the first point after `t`.
    #[inline]
    fn after(&self, t: Time) -> usize {
        // Every point left is after `now` (`validate` checks it): a search from the present,
        // the common case (EASY's forward pricing asks about every waiting job at the profile's
        // present), needs no binary search.
        if t <= self.now {
            return self.head;
        }
        self.search_after(t)
    }

    /// [`after`](Self::after) by binary search alone (what `advance` needs: it moves `now`
    /// before it folds).
    #[inline]
    fn search_after(&self, t: Time) -> usize {
        self.head + self.times[self.head..].partition_point(|&x| x <= t)
    }

    /// The level just before point `i` (from `now` if `i` is the first).
    #[inline]
    fn level_before(&self, i: usize) -> i64 {
        if i == self.head {
            self.free_now
        } else {
            self.levels[i - 1]
        }
    }

    /// Free processors at time `t ≥ now`.
    pub fn free_at(&self, t: Time) -> i64 {
        if t <= self.now {
            return self.free_now;
        }
        self.level_before(self.after(t))
    }

    /// The first change time `k` with `lo < k < hi` at which the level drops below `p`.
    pub fn first_below(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        self.scan(self.after(lo.max(self.now)), hi, |l| l < p)
    }

    /// The first change time `k > lo` at which the level is at least `p`.
    pub fn first_at_least(&self, lo: Time, p: i64) -> Option<Time> {
        self.scan(self.after(lo.max(self.now)), Time::MAX, |l| l >= p)
    }

    /// `lo` itself if the level there is below `p`, else [`first_below`](Self::first_below):
    /// the first instant of `[lo, hi)` with fewer than `p` free processors.
    pub fn first_below_from(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        let lo = lo.max(self.now);
        if hi <= lo {
            return None;
        }
        let i = self.after(lo);
        if self.level_before(i) < p {
            return Some(lo);
        }
        self.scan(i, hi, |l| l < p)
    }

    /// The first point from index `i` before `hi` whose level satisfies `hit`.
    #[inline]
    fn scan(&self, i: usize, hi: Time, hit: impl Fn(i64) -> bool) -> Option<Time> {
        let end = i + self.times[i..].partition_point(|&x| x < hi);
        let j = self.levels[i..end].iter().position(|&l| hit(l))?;
        Some(self.times[i + j])
    }

    /// Whether `procs` processors are free over `[start, start + dur)` (`start ≥ now`).
    #[inline]
    pub fn fits(&self, start: Time, dur: Time, procs: u32) -> bool {
        self.first_below_from(start, start.saturating_add(dur), i64::from(procs))
            .is_none()
    }

    /// The earliest `t ≥ from` (and `≥ now`) such that `procs` processors are free over
    /// `[t, t + dur)`; `None` when the level never reaches `procs` for that long (more
    /// processors than the machine has, or a block that never ends).
    pub fn earliest_fit(&self, from: Time, dur: Time, procs: u32) -> Option<Time> {
        self.earliest_fit_before(from, dur, procs, Time::MAX)
    }

    /// [`earliest_fit`](Self::earliest_fit) limited to starts before `limit`: `None` when the
    /// earliest fit is at or after `limit`, found without sweeping the points beyond it (a
    /// compression asks "can this job start earlier than its reservation?").
    pub fn earliest_fit_before(
        &self,
        from: Time,
        dur: Time,
        procs: u32,
        limit: Time,
    ) -> Option<Time> {
        let p = i64::from(procs);
        if p > self.capacity {
            return None;
        }
        let (times, levels) = (&self.times, &self.levels);
        let n = times.len();
        let mut t = from.max(self.now);
        let mut i = self.after(t);
        let mut level = self.level_before(i);
        // One forward sweep: `t` is the candidate start, `i` the first point after it.
        loop {
            if level < p {
                // Skip to the first point where the level reaches `p`.
                i += levels[i..].iter().position(|&l| l >= p)?;
                t = times[i];
                i += 1;
            }
            if t >= limit {
                return None;
            }
            let end = t.saturating_add(dur);
            while i < n && times[i] < end && levels[i] >= p {
                i += 1;
            }
            if i == n || times[i] >= end {
                return Some(t);
            }
            level = levels[i];
            i += 1;
        }
    }

    /// The first change time after `t`, if any: where a forward simulation with no arrivals
    /// has its next event (a scheduling round at a point where the level only falls can start
    /// nothing that could not start before it).
    pub fn next_change(&self, t: Time) -> Option<Time> {
        self.times.get(self.after(t.max(self.now))).copied()
    }

    /// The minimum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn min_free(&self, a: Time, b: Time) -> i64 {
        let (i, j, first) = self.range(a, b);
        self.levels[i..j].iter().copied().fold(first, i64::min)
    }

    /// The maximum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn max_free(&self, a: Time, b: Time) -> i64 {
        let (i, j, first) = self.range(a, b);
        self.levels[i..j].iter().copied().fold(first, i64::max)
    }

    /// The points strictly inside `(a, b)` (as an index range) and the level at `a`.
    fn range(&self, a: Time, b: Time) -> (usize, usize, i64) {
        let a = a.max(self.now);
        let i = self.after(a);
        let j = i + self.times[i..].partition_point(|&x| x < b);
        (i, j, self.level_before(i))
    }

    /// The steps `(time, level)` from `now` on: the first is `(now, free_now)`, then one per
    /// change time.
    pub fn steps(&self) -> Vec<(Time, i64)> {
        std::iter::once((self.now, self.free_now))
            .chain(
                self.times[self.head..]
                    .iter()
                    .copied()
                    .zip(self.levels[self.head..].iter().copied()),
            )
            .collect()
    }

    /// Checks the profile's invariants (times increasing and after `now`, every point a real
    /// change, level within `[0, capacity]` everywhere); `Err` names the first violation.
    /// `O(n)`: for tests and debug checks.
    pub fn validate(&self) -> Result<(), String> {
        if self.times.len() != self.levels.len() || self.head > self.times.len() {
            return Err("times and levels out of step".to_string());
        }
        let mut prev = (self.now, self.free_now);
        if !(0..=self.capacity).contains(&self.free_now) {
            return Err(format!(
                "free processors at {} = {} outside [0, {}]",
                self.now, self.free_now, self.capacity
            ));
        }
        for (t, l) in self.steps().into_iter().skip(1) {
            if t <= prev.0 {
                return Err(format!("change time {t} not after {}", prev.0));
            }
            if l == prev.1 {
                return Err(format!("no change kept at {t}"));
            }
            if !(0..=self.capacity).contains(&l) {
                return Err(format!(
                    "free processors at {t} = {l} outside [0, {}]",
                    self.capacity
                ));
            }
            prev = (t, l);
        }
        Ok(())
    }
}
