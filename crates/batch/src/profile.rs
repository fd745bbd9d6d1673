//! The availability profile of one machine: free processors as a step function of time.
//!
//! The profile stores *changes*, not levels: a job (or a fixed reservation) holding `p`
//! processors over `[s, e)` is the two deltas `-p` at `s` and `+p` at `e`. The level at time
//! `t ≥ now` is `free_now + Σ { delta(k) : now < k ≤ t }`, where every change at or before
//! `now` has been folded into `free_now`. Reserving or releasing a block is therefore two point
//! updates, whatever the number of steps it spans.
//!
//! The deltas live in a treap (an arena of nodes addressed by `u32`, no `Rc`, no `unsafe`) keyed
//! by time and augmented per subtree with the sum of its deltas and the minimum and maximum of
//! its prefix sums. Those three numbers let one descent answer "the first change after `lo` (and
//! before `hi`) where the level drops below `p`" or "... rises to at least `p`" in `O(log n)`,
//! and the earliest-fit query is a short alternation of the two.
//!
//! | operation | cost (n = distinct change times) |
//! |---|---|
//! | [`Profile::add`], [`Profile::reserve`], [`Profile::release`] | `O(log n)` expected |
//! | [`Profile::advance`] (fold the past) | `O(log n)` per folded change, amortized |
//! | [`Profile::free_at`], [`Profile::first_below`], [`Profile::first_at_least`] | `O(log n)` |
//! | [`Profile::fits`], [`Profile::max_free`], [`Profile::min_free`] | `O(log n)` |
//! | [`Profile::earliest_fit`] | `O(log n)` per blocking interval skipped |
//! | `clone` | one `memcpy` of the arena |
//!
//! Nodes freed by a fold or by a delta cancelling to zero go to a free list and are reused, so
//! a profile in steady state allocates nothing.

use crate::Time;

const NIL: u32 = u32::MAX;

/// The largest machine a profile models (processors).
pub const MAX_CAPACITY: u32 = 1 << 28;

/// A change of the level. Deltas and summaries are `i32` (40-byte nodes): every prefix sum is
/// a difference of two levels, within `±2 · capacity` even between the two halves of a
/// reservation, and capacities are limited to [`MAX_CAPACITY`].
#[derive(Debug, Clone, Copy)]
struct Node {
    key: Time,
    delta: i32,
    /// Sum of the deltas in the subtree.
    sum: i32,
    /// Minimum over the subtree's in-order prefix sums (non-empty prefixes).
    min_pref: i32,
    /// Maximum over the subtree's in-order prefix sums.
    max_pref: i32,
    left: u32,
    right: u32,
    prio: u32,
}

/// Free processors of one machine over `[now, ∞)`; see the module documentation.
#[derive(Debug, Clone)]
pub struct Profile {
    capacity: i64,
    now: Time,
    free_now: i64,
    nodes: Vec<Node>,
    root: u32,
    /// Head of the free list (chained through `left`).
    free_head: u32,
    len: u32,
    rng: u32,
}

/// What a search looks for in the running level.
#[derive(Clone, Copy)]
enum Target {
    /// Level `< p`.
    Below(i64),
    /// Level `≥ p`.
    AtLeast(i64),
}

impl Target {
    #[inline]
    fn hit(self, level: i64) -> bool {
        match self {
            Target::Below(p) => level < p,
            Target::AtLeast(p) => level >= p,
        }
    }

    /// Whether a subtree whose prefix sums span `[min, max]`, entered at level `acc`, holds a
    /// change whose level hits.
    #[inline]
    fn may_hit(self, acc: i64, min: i64, max: i64) -> bool {
        match self {
            Target::Below(p) => acc + min < p,
            Target::AtLeast(p) => acc + max >= p,
        }
    }
}

/// One search's state: the running level and what is looked for.
struct Search {
    acc: i64,
    lo: Time,
    hi: Time,
    target: Target,
    /// `lo` itself is still to be tested (the level there is known once every change at or
    /// before it has been added).
    pending_lo: bool,
}

enum Found {
    None,
    Lo,
    Key(Time),
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
            nodes: Vec::new(),
            root: NIL,
            free_head: NIL,
            len: 0,
            rng: 0x9E37_79B9,
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

    /// Number of distinct future change times.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the level stays at `free_now` forever.
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    /// Moves the present to `t ≥ now`, folding every change at or before `t`.
    pub fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now, "time runs forward: {t} < {}", self.now);
        self.now = t;
        while self.root != NIL {
            let (key, delta) = self.min_node();
            if key > t {
                break;
            }
            self.free_now += i64::from(delta);
            self.root = self.pop_min(self.root);
            self.len -= 1;
        }
    }

    /// Adds `delta` processors to the level from time `t` on. A change at or before `now` is
    /// folded into [`free_now`](Self::free_now) at once.
    pub fn add(&mut self, t: Time, delta: i64) {
        if delta == 0 {
            return;
        }
        if t <= self.now {
            self.free_now += delta;
            return;
        }
        let d = i32::try_from(delta).expect("a change larger than any machine");
        self.root = self.insert(self.root, t, d);
    }

    /// Takes `procs` processors over `[start, end)` (a job or a fixed reservation).
    #[inline]
    pub fn reserve(&mut self, start: Time, end: Time, procs: u32) {
        debug_assert!(start < end, "empty block [{start}, {end})");
        self.add(start, -i64::from(procs));
        self.add(end, i64::from(procs));
    }

    /// Gives back a block taken with [`reserve`](Self::reserve).
    #[inline]
    pub fn release(&mut self, start: Time, end: Time, procs: u32) {
        self.add(start, i64::from(procs));
        self.add(end, -i64::from(procs));
    }

    /// Free processors at time `t ≥ now`.
    pub fn free_at(&self, t: Time) -> i64 {
        if t <= self.now {
            return self.free_now;
        }
        let mut acc = self.free_now;
        let mut n = self.root;
        while n != NIL {
            let node = &self.nodes[n as usize];
            if node.key <= t {
                acc += self.sum(node.left) + i64::from(node.delta);
                n = node.right;
            } else {
                n = node.left;
            }
        }
        acc
    }

    /// The first change time `k` with `lo < k < hi` at which the level drops below `p`.
    pub fn first_below(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        self.first_where(lo, hi, Target::Below(p), false)
    }

    /// The first change time `k > lo` at which the level is at least `p`.
    pub fn first_at_least(&self, lo: Time, p: i64) -> Option<Time> {
        self.first_where(lo, Time::MAX, Target::AtLeast(p), false)
    }

    /// `lo` itself if the level there is below `p`, else [`first_below`](Self::first_below):
    /// the first instant of `[lo, hi)` with fewer than `p` free processors. One descent.
    pub fn first_below_from(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        self.first_where(lo, hi, Target::Below(p), true)
    }

    fn first_where(&self, lo: Time, hi: Time, target: Target, check_lo: bool) -> Option<Time> {
        let lo = lo.max(self.now);
        let mut s = Search {
            acc: self.free_now,
            lo,
            hi,
            target,
            pending_lo: check_lo,
        };
        if hi <= lo {
            return None;
        }
        match self.search(self.root, &mut s, false, false) {
            Found::Key(k) => Some(k),
            Found::Lo => Some(lo),
            Found::None => (s.pending_lo && target.hit(s.acc)).then_some(lo),
        }
    }

    /// In-order search for the first change in `(lo, hi)` whose level hits the target (or,
    /// with `pending_lo`, for `lo` itself). `s.acc` is the level just before the subtree's
    /// first change; changes at or before `lo` are added on the way down (so no separate
    /// descent computes the level at `lo`). `lo_ok`/`hi_ok` say that the whole subtree is
    /// known to lie above `lo`/below `hi`, which is when its summary can prune it. Visits
    /// `O(log n)` nodes.
    fn search(&self, n: u32, s: &mut Search, lo_ok: bool, hi_ok: bool) -> Found {
        let mut n = n;
        let mut lo_ok = lo_ok;
        loop {
            if n == NIL {
                return Found::None;
            }
            let node = &self.nodes[n as usize];
            if !lo_ok && node.key <= s.lo {
                // The node and its left subtree are at or before `lo`.
                s.acc += self.sum(node.left) + i64::from(node.delta);
                n = node.right;
                continue;
            }
            if !hi_ok && node.key >= s.hi {
                n = node.left;
                continue;
            }
            if lo_ok && hi_ok {
                // Everything at or before `lo` has been added: `acc` is the level at `lo`.
                if s.pending_lo {
                    s.pending_lo = false;
                    if s.target.hit(s.acc) {
                        return Found::Lo;
                    }
                }
                if !s
                    .target
                    .may_hit(s.acc, i64::from(node.min_pref), i64::from(node.max_pref))
                {
                    s.acc += i64::from(node.sum);
                    return Found::None;
                }
            }
            match self.search(node.left, s, lo_ok, true) {
                Found::None => {}
                f => return f,
            }
            if s.pending_lo {
                s.pending_lo = false;
                if s.target.hit(s.acc) {
                    return Found::Lo;
                }
            }
            s.acc += i64::from(node.delta);
            if s.target.hit(s.acc) {
                return Found::Key(node.key);
            }
            n = node.right;
            lo_ok = true;
        }
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
        let p = i64::from(procs);
        if p > self.capacity {
            return None;
        }
        let mut t = from.max(self.now);
        loop {
            match self.first_below_from(t, t.saturating_add(dur), p) {
                None => return Some(t),
                Some(bad) => t = self.first_at_least(bad, p)?,
            }
        }
    }

    /// The minimum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn min_free(&self, a: Time, b: Time) -> i64 {
        let a = a.max(self.now);
        let mut acc = self.free_at(a);
        let mut m = acc;
        self.extreme(self.root, &mut acc, a, b, false, false, &mut m, true);
        m
    }

    /// The maximum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn max_free(&self, a: Time, b: Time) -> i64 {
        let a = a.max(self.now);
        let mut acc = self.free_at(a);
        let mut m = acc;
        self.extreme(self.root, &mut acc, a, b, false, false, &mut m, false);
        m
    }

    #[allow(clippy::too_many_arguments)]
    fn extreme(
        &self,
        n: u32,
        acc: &mut i64,
        lo: Time,
        hi: Time,
        lo_ok: bool,
        hi_ok: bool,
        m: &mut i64,
        min: bool,
    ) {
        let mut n = n;
        let mut lo_ok = lo_ok;
        loop {
            if n == NIL {
                return;
            }
            let node = &self.nodes[n as usize];
            if !lo_ok && node.key <= lo {
                n = node.right;
                continue;
            }
            if !hi_ok && node.key >= hi {
                n = node.left;
                continue;
            }
            if lo_ok && hi_ok {
                let v = if min {
                    *acc + i64::from(node.min_pref)
                } else {
                    *acc + i64::from(node.max_pref)
                };
                *m = if min { (*m).min(v) } else { (*m).max(v) };
                *acc += i64::from(node.sum);
                return;
            }
            self.extreme(node.left, acc, lo, hi, lo_ok, true, m, min);
            *acc += i64::from(node.delta);
            *m = if min { (*m).min(*acc) } else { (*m).max(*acc) };
            n = node.right;
            lo_ok = true;
        }
    }

    /// The steps `(time, level)` from `now` on: the first is `(now, free_now)`, then one per
    /// change time (a change that leaves the level unchanged is not listed).
    pub fn steps(&self) -> Vec<(Time, i64)> {
        let mut out = vec![(self.now, self.free_now)];
        let mut acc = self.free_now;
        let mut stack = Vec::new();
        let mut n = self.root;
        while n != NIL || !stack.is_empty() {
            while n != NIL {
                stack.push(n);
                n = self.nodes[n as usize].left;
            }
            let m = stack.pop().expect("non-empty");
            let node = &self.nodes[m as usize];
            acc += i64::from(node.delta);
            if out.last().is_some_and(|&(_, l)| l != acc) {
                out.push((node.key, acc));
            }
            n = node.right;
        }
        out
    }

    /// Checks the profile's invariants (summaries correct, keys ordered and after `now`, heap
    /// order of priorities, level within `[0, capacity]` everywhere); `Err` names the first
    /// violation. `O(n)`: for tests and debug checks.
    pub fn validate(&self) -> Result<(), String> {
        if !(0..=self.capacity).contains(&self.free_now) {
            return Err(format!(
                "free processors at {} = {} outside [0, {}]",
                self.now, self.free_now, self.capacity
            ));
        }
        let mut count = 0u32;
        self.validate_node(self.root, self.now, Time::MAX, u32::MAX, &mut count)?;
        if count != self.len {
            return Err(format!("{count} nodes reachable, {} counted", self.len));
        }
        for (t, l) in self.steps() {
            if !(0..=self.capacity).contains(&l) {
                return Err(format!(
                    "free processors at {t} = {l} outside [0, {}]",
                    self.capacity
                ));
            }
        }
        Ok(())
    }

    fn validate_node(
        &self,
        n: u32,
        lo: Time,
        hi: Time,
        max_prio: u32,
        count: &mut u32,
    ) -> Result<(i64, i64, i64), String> {
        if n == NIL {
            return Ok((0, i64::MAX, i64::MIN));
        }
        *count += 1;
        let node = &self.nodes[n as usize];
        if node.key <= lo || node.key >= hi {
            return Err(format!("key {} outside ({lo}, {hi})", node.key));
        }
        if node.delta == 0 {
            return Err(format!("zero delta kept at {}", node.key));
        }
        if node.prio > max_prio {
            return Err(format!("heap order broken at {}", node.key));
        }
        let l = self.validate_node(node.left, lo, node.key, node.prio, count)?;
        let r = self.validate_node(node.right, node.key, hi, node.prio, count)?;
        let d = i64::from(node.delta);
        let sum = l.0 + d + r.0;
        let mid = l.0 + d;
        let min =
            l.1.min(mid)
                .min(if r.1 == i64::MAX { i64::MAX } else { mid + r.1 });
        let max =
            l.2.max(mid)
                .max(if r.2 == i64::MIN { i64::MIN } else { mid + r.2 });
        let stored = (
            i64::from(node.sum),
            i64::from(node.min_pref),
            i64::from(node.max_pref),
        );
        if (sum, min, max) != stored {
            return Err(format!("stale summary at {}", node.key));
        }
        Ok((sum, min, max))
    }

    // --- treap internals -------------------------------------------------------------------

    #[inline]
    fn sum(&self, n: u32) -> i64 {
        if n == NIL {
            0
        } else {
            i64::from(self.nodes[n as usize].sum)
        }
    }

    #[inline]
    fn pull(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        let (ls, lmin, lmax) = if node.left == NIL {
            (0, i32::MAX, i32::MIN)
        } else {
            let l = &self.nodes[node.left as usize];
            (l.sum, l.min_pref, l.max_pref)
        };
        let mid = ls + node.delta;
        let (sum, min, max) = if node.right == NIL {
            (mid, lmin.min(mid), lmax.max(mid))
        } else {
            let r = &self.nodes[node.right as usize];
            (
                mid + r.sum,
                lmin.min(mid).min(mid + r.min_pref),
                lmax.max(mid).max(mid + r.max_pref),
            )
        };
        let node = &mut self.nodes[n as usize];
        node.sum = sum;
        node.min_pref = min;
        node.max_pref = max;
    }

    fn alloc(&mut self, key: Time, delta: i32) -> u32 {
        // xorshift32: priorities only shape the tree, never an answer.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        let node = Node {
            key,
            delta,
            sum: delta,
            min_pref: delta,
            max_pref: delta,
            left: NIL,
            right: NIL,
            prio: x,
        };
        self.len += 1;
        if self.free_head != NIL {
            let n = self.free_head;
            self.free_head = self.nodes[n as usize].left;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn dealloc(&mut self, n: u32) {
        self.nodes[n as usize].left = self.free_head;
        self.free_head = n;
    }

    fn rotate_right(&mut self, n: u32) -> u32 {
        let l = self.nodes[n as usize].left;
        self.nodes[n as usize].left = self.nodes[l as usize].right;
        self.nodes[l as usize].right = n;
        self.pull(n);
        self.pull(l);
        l
    }

    fn rotate_left(&mut self, n: u32) -> u32 {
        let r = self.nodes[n as usize].right;
        self.nodes[n as usize].right = self.nodes[r as usize].left;
        self.nodes[r as usize].left = n;
        self.pull(n);
        self.pull(r);
        r
    }

    fn insert(&mut self, n: u32, key: Time, delta: i32) -> u32 {
        if n == NIL {
            return self.alloc(key, delta);
        }
        let k = self.nodes[n as usize].key;
        if key == k {
            let d = self.nodes[n as usize].delta + delta;
            if d == 0 {
                let (l, r) = (self.nodes[n as usize].left, self.nodes[n as usize].right);
                self.dealloc(n);
                self.len -= 1;
                return self.merge(l, r);
            }
            self.nodes[n as usize].delta = d;
            self.pull(n);
            return n;
        }
        if key < k {
            let l = self.insert(self.nodes[n as usize].left, key, delta);
            self.nodes[n as usize].left = l;
            if l != NIL && self.nodes[l as usize].prio > self.nodes[n as usize].prio {
                return self.rotate_right(n);
            }
        } else {
            let r = self.insert(self.nodes[n as usize].right, key, delta);
            self.nodes[n as usize].right = r;
            if r != NIL && self.nodes[r as usize].prio > self.nodes[n as usize].prio {
                return self.rotate_left(n);
            }
        }
        self.pull(n);
        n
    }

    /// Joins two treaps whose keys are ordered (all of `a` before all of `b`).
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    fn min_node(&self) -> (Time, i32) {
        let mut n = self.root;
        loop {
            let node = &self.nodes[n as usize];
            if node.left == NIL {
                return (node.key, node.delta);
            }
            n = node.left;
        }
    }

    fn pop_min(&mut self, n: u32) -> u32 {
        let l = self.nodes[n as usize].left;
        if l == NIL {
            let r = self.nodes[n as usize].right;
            self.dealloc(n);
            return r;
        }
        let l = self.pop_min(l);
        self.nodes[n as usize].left = l;
        self.pull(n);
        n
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
