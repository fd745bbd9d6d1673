//! Sorted runs of periods in Best-fit order, (length, start, server), laid out column by
//! column.
//!
//! Each run holds at most [`RUN`] periods as three arrays (starts, ends, servers) beside a
//! header array (each run's last key and its summary: earliest start, latest end, earliest
//! end). The searches test a run's header first, then evaluate their predicate on every lane
//! of the run without a data-dependent branch and take the first set bit of the resulting
//! mask; locating a key counts the lanes before it the same way. At the few hundred periods of
//! the thesis's `n = 20` that costs a fraction of the mispredicted branches of a comparison
//! search or a key-by-key scan (docs/benchmarks.md, issue 18).
//!
//! Comparisons are the `total_cmp` orders of [`by_len`](super::keys::by_len), evaluated with
//! integer operations on every lane, so the order is exactly the linear scan's.

use std::cmp::Ordering;

use crate::period::{IdlePeriod, Time};

use super::keys::by_len;

/// Periods per run; a full run splits in two before an insertion.
pub(crate) const RUN: usize = if cfg!(test) { 8 } else { 32 };
// A run's lane masks are `u64`s.
const _: () = assert!(RUN <= 64);

/// A run's last key and summary, kept apart from the lanes so that locating a run reads one
/// contiguous array.
#[derive(Debug, Clone, Copy)]
struct Header {
    last: IdlePeriod,
    sum: RunSummary,
}

/// One run's lanes; lanes at or beyond `n` are unused. `len[j]` is `end[j] - start[j]`
/// (computed once, as [`IdlePeriod::len`] does).
#[derive(Debug, Clone)]
struct Lanes {
    start: [Time; RUN],
    end: [Time; RUN],
    len: [Time; RUN],
    server: [u32; RUN],
    n: usize,
}

/// The lane mask of the first `n` lanes.
#[inline]
fn live(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The summary bounds a search may prune a run with (see [`LengthRuns::first`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunSummary {
    pub min_start: Time,
    pub max_end: Time,
    pub min_end: Time,
}

impl RunSummary {
    /// The summary of no period.
    const EMPTY: RunSummary = RunSummary {
        min_start: Time::INFINITY,
        max_end: Time::NEG_INFINITY,
        min_end: Time::INFINITY,
    };

    /// This summary with one more period `[start, end)`.
    #[inline]
    fn with(self, start: Time, end: Time) -> Self {
        RunSummary {
            min_start: self.min_start.min(start),
            max_end: self.max_end.max(end),
            min_end: self.min_end.min(end),
        }
    }

    /// The summary of two sets of periods together.
    #[inline]
    fn combine(self, o: &Self) -> Self {
        RunSummary {
            min_start: self.min_start.min(o.min_start),
            max_end: self.max_end.max(o.max_end),
            min_end: self.min_end.min(o.min_end),
        }
    }
}

impl Lanes {
    fn empty() -> Self {
        Lanes {
            start: [0.0; RUN],
            end: [0.0; RUN],
            len: [0.0; RUN],
            server: [0; RUN],
            n: 0,
        }
    }

    #[inline]
    fn get(&self, i: usize) -> IdlePeriod {
        IdlePeriod {
            start: self.start[i],
            end: self.end[i],
            server: self.server[i],
        }
    }

    #[inline]
    fn set(&mut self, i: usize, p: &IdlePeriod) {
        self.start[i] = p.start;
        self.end[i] = p.end;
        self.len[i] = p.len();
        self.server[i] = p.server;
    }

    /// The mask of live lanes satisfying `pred(start, end, len)` (evaluated on every lane,
    /// no early exit).
    #[inline]
    fn mask(&self, pred: impl Fn(Time, Time, Time) -> bool) -> u64 {
        let mut m = 0u64;
        for j in 0..RUN {
            m |= u64::from(pred(self.start[j], self.end[j], self.len[j])) << j;
        }
        m & live(self.n)
    }

    /// How many live lanes order before `key`. Lengths are positive (or infinite), never
    /// NaN, so `<` and `==` on them agree with `total_cmp`; the few lanes as long as `key`
    /// are ordered by (start, server) one by one.
    #[inline]
    fn rank(&self, key: &IdlePeriod) -> usize {
        let len = key.len();
        let shorter = self.mask(|_, _, l| l < len).count_ones() as usize;
        let mut ties = self.mask(|_, _, l| l == len);
        let mut before = 0;
        while ties != 0 {
            let j = ties.trailing_zeros() as usize;
            ties &= ties - 1;
            before += usize::from(self.get(j).cmp_start(key) == Ordering::Less);
        }
        shorter + before
    }

    fn header(&self) -> Header {
        debug_assert!(self.n > 0);
        let sum = (0..self.n).fold(RunSummary::EMPTY, |s, j| s.with(self.start[j], self.end[j]));
        Header {
            last: self.get(self.n - 1),
            sum,
        }
    }
}

/// A set of idle periods in (length, start, server) order, as sorted runs of at most [`RUN`]
/// (see the module documentation). Every operation counts the run headers and the lanes it
/// reads as its visits.
#[derive(Debug, Clone, Default)]
pub(crate) struct LengthRuns {
    headers: Vec<Header>,
    lanes: Vec<Lanes>,
    len: usize,
}

/// A key's position: (run, lane).
pub(crate) type Pos = (usize, usize);

impl LengthRuns {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The summary of every run together (`None` when empty). `O(V / RUN)`.
    pub(crate) fn summary(&self) -> Option<RunSummary> {
        let first = self.headers.first()?.sum;
        Some(
            self.headers[1..]
                .iter()
                .fold(first, |s, h| s.combine(&h.sum)),
        )
    }

    /// The run that holds `key` or would: the first whose last key is not before it (the
    /// last run if every one is).
    #[inline]
    fn run_of(&self, key: &IdlePeriod, visits: &mut u64) -> usize {
        let n = self.headers.len();
        *visits += 1 + u64::from(n.max(1).ilog2());
        self.headers
            .partition_point(|h| by_len(&h.last, key) == Ordering::Less)
            .min(n - 1)
    }

    /// The position of the stored key equal to `key`.
    pub(crate) fn find(&self, key: &IdlePeriod, visits: &mut u64) -> Option<Pos> {
        if self.headers.is_empty() {
            *visits += 1;
            return None;
        }
        let c = self.run_of(key, visits);
        let lanes = &self.lanes[c];
        *visits += lanes.n as u64;
        let i = lanes.rank(key);
        (i < lanes.n && by_len(&lanes.get(i), key) == Ordering::Equal).then_some((c, i))
    }

    /// The key at `pos`.
    pub(crate) fn get(&self, (c, i): Pos) -> IdlePeriod {
        self.lanes[c].get(i)
    }

    /// Inserts `key`; false if an equal key is already stored.
    pub(crate) fn insert(&mut self, key: IdlePeriod, visits: &mut u64) -> bool {
        if self.headers.is_empty() {
            let mut lanes = Lanes::empty();
            lanes.set(0, &key);
            lanes.n = 1;
            self.headers.push(lanes.header());
            self.lanes.push(lanes);
            self.len = 1;
            *visits += 1;
            return true;
        }
        let mut c = self.run_of(&key, visits);
        *visits += self.lanes[c].n as u64;
        let mut i = self.lanes[c].rank(&key);
        let run = &self.lanes[c];
        if i < run.n && by_len(&run.get(i), &key) == Ordering::Equal {
            return false;
        }
        if run.n == RUN {
            self.split(c);
            // A key ranked exactly at the split ends the left half.
            if i > RUN / 2 {
                c += 1;
                i -= RUN / 2;
            }
        }
        let run = &mut self.lanes[c];
        let n = run.n;
        run.start.copy_within(i..n, i + 1);
        run.end.copy_within(i..n, i + 1);
        run.len.copy_within(i..n, i + 1);
        run.server.copy_within(i..n, i + 1);
        run.set(i, &key);
        run.n += 1;
        let h = &mut self.headers[c];
        h.sum = h.sum.with(key.start, key.end);
        if i == n {
            h.last = key;
        }
        self.len += 1;
        true
    }

    /// Splits full run `c` into two halves.
    fn split(&mut self, c: usize) {
        let half = RUN / 2;
        let mut right = Lanes::empty();
        let left = &mut self.lanes[c];
        right.start[..half].copy_from_slice(&left.start[half..]);
        right.end[..half].copy_from_slice(&left.end[half..]);
        right.len[..half].copy_from_slice(&left.len[half..]);
        right.server[..half].copy_from_slice(&left.server[half..]);
        right.n = half;
        left.n = half;
        self.headers[c] = left.header();
        self.headers.insert(c + 1, right.header());
        self.lanes.insert(c + 1, right);
    }

    /// Removes and returns the key at `pos`.
    pub(crate) fn remove_at(&mut self, (c, i): Pos) -> IdlePeriod {
        let run = &mut self.lanes[c];
        let out = run.get(i);
        let n = run.n;
        run.start.copy_within(i + 1..n, i);
        run.end.copy_within(i + 1..n, i);
        run.len.copy_within(i + 1..n, i);
        run.server.copy_within(i + 1..n, i);
        run.n -= 1;
        if run.n == 0 {
            self.lanes.remove(c);
            self.headers.remove(c);
        } else {
            self.headers[c] = run.header();
            if run.n < RUN / 4 {
                self.merge_small(c);
            }
        }
        self.len -= 1;
        out
    }

    /// Appends run `c` to its left neighbour, or its right neighbour to it, if the two fit in
    /// three quarters of a run: runs stay at least a quarter full (but for a lone run or one
    /// between full neighbours) and a merged run does not split again at once.
    fn merge_small(&mut self, c: usize) {
        let fits = |a: &Lanes, b: &Lanes| a.n + b.n <= RUN * 3 / 4;
        let (left, right) = if c > 0 && fits(&self.lanes[c - 1], &self.lanes[c]) {
            (c - 1, c)
        } else if c + 1 < self.lanes.len() && fits(&self.lanes[c], &self.lanes[c + 1]) {
            (c, c + 1)
        } else {
            return;
        };
        let moved = self.lanes.remove(right);
        self.headers.remove(right);
        let run = &mut self.lanes[left];
        let (at, k) = (run.n, moved.n);
        run.start[at..at + k].copy_from_slice(&moved.start[..k]);
        run.end[at..at + k].copy_from_slice(&moved.end[..k]);
        run.len[at..at + k].copy_from_slice(&moved.len[..k]);
        run.server[at..at + k].copy_from_slice(&moved.server[..k]);
        run.n += k;
        self.headers[left] = run.header();
    }

    /// The first key, from the first run whose last length is at least `floor`, that
    /// satisfies `pred`, skipping runs whose header fails `keep`.
    pub(crate) fn first(
        &self,
        floor: Time,
        keep: impl Fn(&RunSummary) -> bool,
        pred: impl Fn(Time, Time, Time) -> bool + Copy,
        visits: &mut u64,
    ) -> Option<Pos> {
        let n = self.headers.len();
        *visits += 1 + u64::from(n.max(1).ilog2());
        let from = self.headers.partition_point(|h| h.last.len() < floor);
        for c in from..n {
            let h = &self.headers[c];
            *visits += 1;
            if !keep(&h.sum) {
                continue;
            }
            let lanes = &self.lanes[c];
            *visits += lanes.n as u64;
            let m = lanes.mask(pred);
            if m != 0 {
                return Some((c, m.trailing_zeros() as usize));
            }
        }
        None
    }

    /// The keys in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = IdlePeriod> + '_ {
        self.lanes
            .iter()
            .flat_map(|run| (0..run.n).map(move |i| run.get(i)))
    }

    /// Checks order, headers and the length; returns the length.
    pub(crate) fn check(&self) -> Result<usize, String> {
        if self.headers.len() != self.lanes.len() {
            return Err("headers and runs differ in number".into());
        }
        let mut prev: Option<IdlePeriod> = None;
        let mut total = 0;
        for (h, run) in self.headers.iter().zip(&self.lanes) {
            if run.n == 0 || run.n > RUN {
                return Err(format!("run of {} keys", run.n));
            }
            let want = run.header();
            let same = |a: Time, b: Time| a.to_bits() == b.to_bits();
            if !(same(h.sum.min_start, want.sum.min_start)
                && same(h.sum.max_end, want.sum.max_end)
                && same(h.sum.min_end, want.sum.min_end)
                && by_len(&h.last, &want.last) == Ordering::Equal)
            {
                return Err(format!("stale header {h:?}, want {want:?}"));
            }
            for i in 0..run.n {
                let k = run.get(i);
                if prev.is_some_and(|p| by_len(&p, &k) != Ordering::Less) {
                    return Err(format!("{k} out of order"));
                }
                prev = Some(k);
            }
            total += run.n;
        }
        if total != self.len {
            return Err(format!("length {} but {total} keys", self.len));
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;
    use crate::strips::keys::ByLen;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u8, u8),
        Remove(usize),
        First(u8, u8, u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u8..40, 0u8..12, 0u8..4).prop_map(|(s, l, v)| Op::Insert(s, l, v)),
            2 => any::<usize>().prop_map(Op::Remove),
            2 => (0u8..12, 0u8..40, 0u8..60).prop_map(|(f, a, b)| Op::First(f, a, b)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Against a `BTreeSet` in the same order: membership, order, every header after
        /// every operation (runs of 8 here, so splits and merges are frequent), and `first`
        /// with a length floor, a header filter and a lane predicate.
        #[test]
        fn runs_match_an_ordered_set(ops in prop::collection::vec(op(), 0..300)) {
            let mut runs = LengthRuns::default();
            let mut oracle: BTreeSet<ByLen> = BTreeSet::new();
            let mut visits = 0;
            for op in ops {
                match op {
                    Op::Insert(s, l, v) => {
                        let start = f64::from(s) * 0.5;
                        // Length 0 stands for a tail; equal lengths and starts are frequent.
                        let end = if l == 0 { Time::INFINITY } else { start + f64::from(l) };
                        let p = IdlePeriod::new(start, end, u32::from(v));
                        let added = oracle.insert(ByLen(p));
                        prop_assert_eq!(runs.insert(p, &mut visits), added);
                    }
                    Op::Remove(i) => {
                        if let Some(k) = oracle.iter().nth(i % oracle.len().max(1)).copied() {
                            oracle.remove(&k);
                            let pos = runs.find(&k.0, &mut visits).expect("stored key found");
                            prop_assert_eq!(runs.remove_at(pos), k.0);
                            prop_assert!(runs.find(&k.0, &mut visits).is_none());
                        }
                    }
                    Op::First(f, a, b) => {
                        let floor = f64::from(f);
                        let (lo, hi) = (f64::from(a) * 0.5, f64::from(b) * 0.5);
                        // As in Best-fit, the predicate implies the floor and the filter.
                        let pred =
                            move |s: Time, e: Time, l: Time| s >= lo && e <= hi && l >= floor;
                        let keep = |r: &RunSummary| r.max_end >= lo;
                        let want = oracle
                            .iter()
                            .find(|k| pred(k.0.start, k.0.end, k.0.len()))
                            .map(|k| k.0);
                        let got = runs.first(floor, keep, pred, &mut visits).map(|pos| runs.get(pos));
                        prop_assert_eq!(got.map(|p| p.to_string()), want.map(|p| p.to_string()));
                    }
                }
                runs.check().map_err(TestCaseError::fail)?;
                let stored: Vec<IdlePeriod> = runs.iter().collect();
                let want: Vec<IdlePeriod> = oracle.iter().map(|k| k.0).collect();
                prop_assert_eq!(stored, want);
            }
        }
    }
}
