//! The availability profile of one machine: free processors as a step function of time.
//!
//! The profile is the sorted list of its *change points* after `now`: times `t_1 < t_2 < …`
//! and the level (free processors) on `[t_i, t_{i+1})`; before `t_1` it is `free_now`. A
//! point whose level equals the one before it is dropped at once, so every stored point is a
//! real change. Times and levels are two flat arrays, with the folded past cut off lazily.
//!
//! | operation | cost (n = change points, w = points inside the block or range) |
//! |---|---|
//! | [`Profile::reserve`], [`Profile::release`] | `O(log n + w)` plus a `memmove` of `O(n)` |
//! | [`Profile::add`] (from `t` to forever) | `O(n)` |
//! | [`Profile::advance`] (fold the past) | `O(log n)`, amortized |
//! | [`Profile::free_at`] | `O(log n)` |
//! | [`Profile::first_below`], [`Profile::first_at_least`], [`Profile::fits`] | `O(log n)` + the points scanned |
//! | [`Profile::max_free`], [`Profile::min_free`] | `O(log n + w)` |
//! | [`Profile::earliest_fit`] | `O(log n)` + one forward sweep over the points up to the answer |
//! | `clone` / `clone_from` | one `memcpy` (no allocation with `clone_from`) |
//!
//! Why arrays and not a tree: a queue-based scheduler's profile holds two points per running
//! or queued job, at most a few hundred on the Parallel Workloads Archive logs (176 on CTC-SP2
//! under conservative backfilling), and its hot query, the earliest fit, walks forward over
//! consecutive points. A contiguous sweep over a few kilobytes beats the `O(log n)` descents
//! of an augmented search tree per skipped interval; an earlier augmented treap took 3.4× the
//! time on the whole HPC2N log (docs/benchmarks.md). The price is the `O(n)` shift when a
//! point is inserted or dropped, which for `n` in the tens of thousands (a queue of 10,000
//! jobs) costs microseconds per update; the criterion benchmark `batch/conservative` covers
//! such a queue.

use crate::Time;

/// The largest machine a profile models (processors): 2^28 = 268,435,456. Free levels are
/// `i64`, so sums of many blocks stay exact far beyond it; the bound is what every reader of
/// a processor count (command-line options, SWF headers, machine files) and
/// [`Platform::grid`](crate::Platform::grid) check against, so that no input reaches
/// [`Profile::new`]'s assertion.
pub const MAX_CAPACITY: u32 = 1 << 28;

/// Free processors of one machine over `[now, ∞)`; see the module documentation.
#[derive(Debug)]
pub struct Profile {
    capacity: i64,
    now: Time,
    free_now: i64,
    /// Change times, strictly increasing; those before `head` are folded into `free_now`.
    times: Vec<Time>,
    /// `levels[i]`: free processors on `[times[i], times[i + 1])`.
    levels: Vec<i64>,
    head: usize,
}

impl Clone for Profile {
    fn clone(&self) -> Self {
        let mut p = Profile::new(0, self.now);
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

impl Profile {
    /// An idle machine of `capacity` processors at time `now`.
    pub fn new(capacity: u32, now: Time) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "a profile models at most {MAX_CAPACITY} processors"
        );
        Profile {
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

    /// Moves the present to `t ≥ now`, folding every change at or before `t`.
    pub fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now, "time runs forward: {t} < {}", self.now);
        self.now = t;
        let i = self.after(t);
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The brute-force reference: the level at every integer time of a small horizon.
    #[derive(Clone)]
    struct Levels {
        cap: i64,
        now: Time,
        level: Vec<i64>,
    }

    impl Levels {
        fn new(cap: i64, horizon: usize) -> Self {
            Levels {
                cap,
                now: 0,
                level: vec![cap; horizon],
            }
        }
        fn add(&mut self, t: Time, d: i64) {
            let from = (t.max(self.now) as usize).min(self.level.len());
            for l in &mut self.level[from..] {
                *l += d;
            }
        }
        fn at(&self, t: Time) -> i64 {
            self.level[(t as usize).min(self.level.len() - 1)]
        }
        fn fits(&self, s: Time, d: Time, p: i64) -> bool {
            (s..s + d).all(|t| self.at(t) >= p)
        }
        fn earliest(&self, from: Time, d: Time, p: i64) -> Option<Time> {
            if p > self.cap {
                return None;
            }
            (from.max(self.now)..self.level.len() as Time).find(|&s| self.fits(s, d, p))
        }
    }

    #[test]
    fn singh_figure_1_profile() {
        // Singh Fig. 1: 5 processors; A(2p,3) at 0, C(1p,2) at 0, B(4p,1) at 3, D(3p,2) at 4.
        let mut p = Profile::new(5, 0);
        p.reserve(0, 3, 2);
        p.reserve(0, 2, 1);
        p.reserve(3, 4, 4);
        p.reserve(4, 6, 3);
        assert_eq!(p.steps(), vec![(0, 2), (2, 3), (3, 1), (4, 2), (6, 5)]);
        p.validate().unwrap();
        // A new 2p x 2 task: [0,2) has 2 free -> starts at 0.
        assert_eq!(p.earliest_fit(0, 2, 2), Some(0));
        // 3p x 1: first at [2,3).
        assert_eq!(p.earliest_fit(0, 1, 3), Some(2));
        // 3p x 2: [2,3) then [3,4) has 1 -> after 4: [4,6) has 2 -> at 6.
        assert_eq!(p.earliest_fit(0, 2, 3), Some(6));
        assert_eq!(p.earliest_fit(0, 1, 6), None);
        assert_eq!(p.max_free(0, 6), 3);
        assert_eq!(p.min_free(0, 6), 1);
        p.advance(3);
        assert_eq!(p.free_now(), 1);
        assert_eq!(p.steps(), vec![(3, 1), (4, 2), (6, 5)]);
        p.validate().unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn matches_brute_force(ops in proptest::collection::vec((0u8..4, 0i64..40, 1i64..12, 1u32..6), 1..60)) {
            let cap = 6u32;
            let horizon = 80usize;
            let mut p = Profile::new(cap, 0);
            let mut b = Levels::new(i64::from(cap), horizon);
            let mut blocks: Vec<(Time, Time, u32)> = Vec::new();
            for (op, t, d, q) in ops {
                match op {
                    0 | 1 => {
                        // Reserve at the earliest fit from max(now, t): never overdraws.
                        let from = t.max(p.now());
                        let e = p.earliest_fit(from, d, q);
                        prop_assert_eq!(e, b.earliest(from, d, i64::from(q)));
                        if let Some(s) = e && s + d < horizon as Time {
                            p.reserve(s, s + d, q);
                            b.add(s, -i64::from(q));
                            b.add(s + d, i64::from(q));
                            blocks.push((s, s + d, q));
                        }
                    }
                    2 => {
                        if let Some(k) = blocks.iter().position(|x| x.0 > p.now()) {
                            let (s, e, q) = blocks.swap_remove(k);
                            p.release(s, e, q);
                            b.add(s, i64::from(q));
                            b.add(e, -i64::from(q));
                        }
                    }
                    _ => {
                        let to = (p.now() + t / 4).min(horizon as Time - 20);
                        if to >= p.now() {
                            p.advance(to);
                            b.now = to;
                        }
                    }
                }
                p.validate().map_err(TestCaseError::fail)?;
                let now = p.now();
                for t in now..now + 30 {
                    prop_assert_eq!(p.free_at(t), b.at(t));
                }
                for (a, len) in [(now, 1), (now, 7), (now + 3, 11), (now + 5, 2)] {
                    let lv: Vec<i64> = (a..a + len).map(|t| b.at(t)).collect();
                    prop_assert_eq!(p.min_free(a, a + len), *lv.iter().min().unwrap());
                    prop_assert_eq!(p.max_free(a, a + len), *lv.iter().max().unwrap());
                    for q in 1..=cap {
                        prop_assert_eq!(p.fits(a, len, q), b.fits(a, len, i64::from(q)));
                    }
                }
                for q in 0..=i64::from(cap) + 1 {
                    // The first change after `now` where the level is >= q.
                    let want = (now + 1..horizon as Time).find(|&t| b.at(t) != b.at(t - 1) && b.at(t) >= q);
                    prop_assert_eq!(p.first_at_least(now, q), want);
                }
            }
        }
    }
}
