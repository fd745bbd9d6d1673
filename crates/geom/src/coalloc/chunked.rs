//! A sorted sequence of idle periods with rank access: the storage of one quantum's list (and of
//! the tails), so that neither a selection nor a reservation touches all `N` periods.
//!
//! The periods are kept in primary order in chunks of at most [`MAX_CHUNK`] periods, with a
//! Fenwick tree over the chunk lengths. Counting the periods before a key is a binary search over
//! the chunks' last keys and inside one chunk; the period at a rank is a Fenwick descent; a batch
//! of removals and insertions rewrites only the chunks it touches. A selection therefore costs a
//! logarithmic number of steps plus the periods it reads, and a reservation the periods it changes
//! plus one chunk per changed period — never the length of the list, which on a machine of
//! `10^5` servers holds a period per server. (A vector with one merge pass per reservation, the
//! previous storage, cost `O(N)` per touched list.)
//!
//! Splitting a chunk that grew past `MAX_CHUNK`, or dropping an emptied one, rebuilds the
//! Fenwick tree in `O(N / CHUNK)`; that happens at most once per `CHUNK / 2` insertions into a
//! chunk, so it adds `O(N / CHUNK²)` amortized per update.

use super::CoallocPeriod;

/// A chunk that grows past this splits in two (small under `cfg(test)`, so that the unit
/// tests split and drop chunks often).
const MAX_CHUNK: usize = if cfg!(test) { 8 } else { 256 };
/// The size chunks are cut to when a list is built or a chunk splits.
const CHUNK: usize = MAX_CHUNK / 2;

/// The order every list is kept in (see [`pkey`](super::index)): start descending, then server.
pub(super) type Key = (std::cmp::Reverse<i64>, u32);

#[inline]
pub(super) fn pkey(p: &CoallocPeriod) -> Key {
    (std::cmp::Reverse(p.start), p.server)
}

/// A sorted list of periods (primary order, distinct keys) in chunks, with rank queries.
#[derive(Debug, Clone, Default)]
pub(super) struct ChunkedList {
    chunks: Vec<Vec<CoallocPeriod>>,
    /// Fenwick tree (1-based) over `chunks[i].len()`.
    fenwick: Vec<usize>,
    len: usize,
    /// Chunk spans of one [`apply`](Self::apply), reused.
    spans: Vec<(usize, usize, usize, usize, usize)>,
    /// An emptied chunk's buffer, kept for the next chunk the list needs (a quantum's list
    /// that empties and refills, as small ones do at every reservation, allocates nothing).
    spare: Vec<CoallocPeriod>,
    /// The chunk vector a restructuring rebuilds from, kept with its capacity.
    retired: Vec<Vec<CoallocPeriod>>,
}

impl ChunkedList {
    /// A list holding `sorted` (primary order, distinct keys).
    pub(super) fn from_sorted(sorted: &[CoallocPeriod]) -> Self {
        let mut list = ChunkedList {
            chunks: sorted.chunks(CHUNK).map(<[_]>::to_vec).collect(),
            len: sorted.len(),
            ..ChunkedList::default()
        };
        list.rebuild_fenwick();
        list
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn clear(&mut self) {
        if let Some(chunk) = self.chunks.pop() {
            self.keep_spare(chunk);
        }
        self.chunks.clear();
        self.fenwick.clear();
        self.len = 0;
    }

    /// Keeps `chunk`'s buffer (emptied) as the spare if it is larger than the one kept.
    fn keep_spare(&mut self, mut chunk: Vec<CoallocPeriod>) {
        if chunk.capacity() > self.spare.capacity() {
            chunk.clear();
            self.spare = chunk;
        }
    }

    /// Rebuilds the Fenwick tree over the chunk lengths, padded with empty chunks to a power
    /// of two so that [`locate`](Self::locate)'s descent needs no bound test.
    fn rebuild_fenwick(&mut self) {
        let c = self.chunks.len();
        let size = if c == 0 { 0 } else { c.next_power_of_two() };
        self.fenwick.clear();
        self.fenwick.resize(size + 1, 0);
        for i in 1..=size {
            if i <= c {
                self.fenwick[i] += self.chunks[i - 1].len();
            }
            let parent = i + (i & i.wrapping_neg());
            if parent <= size {
                self.fenwick[parent] += self.fenwick[i];
            }
        }
    }

    fn fenwick_add(&mut self, chunk: usize, delta: isize) {
        let mut i = chunk + 1;
        while i < self.fenwick.len() {
            self.fenwick[i] = self.fenwick[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Periods in the chunks before `chunk`.
    fn chunk_rank(&self, chunk: usize) -> usize {
        let (mut i, mut sum) = (chunk, 0);
        while i > 0 {
            sum += self.fenwick[i];
            i &= i - 1;
        }
        sum
    }

    /// The chunk and offset of the period at `rank` (`rank < len`).
    ///
    /// A Fenwick descent written without branches on the data (the padding to a power of two
    /// removes the bound test): each step's direction is a coin flip that a branch would
    /// mispredict half the time, and the merged view's rank searches make this descent the
    /// hottest loop of a selection on a large machine.
    #[inline]
    fn locate(&self, rank: usize) -> (usize, usize) {
        debug_assert!(rank < self.len);
        let fenwick = &self.fenwick;
        let (mut pos, mut rest) = (0usize, rank);
        let mut step = fenwick.len().saturating_sub(1);
        while step > 0 {
            let next = pos + step;
            let v = fenwick[next];
            let take = v <= rest;
            pos = if take { next } else { pos };
            rest -= if take { v } else { 0 };
            step >>= 1;
        }
        (pos, rest)
    }

    /// Periods in the chunks before `chunk` (the rank of its first period).
    #[inline]
    pub(super) fn chunk_start(&self, chunk: usize) -> usize {
        self.chunk_rank(chunk)
    }

    /// The periods of chunk `chunk`, in order.
    #[inline]
    pub(super) fn chunk(&self, chunk: usize) -> &[CoallocPeriod] {
        &self.chunks[chunk]
    }

    /// The chunk holding `rank` (`rank < len`).
    #[inline]
    pub(super) fn chunk_of(&self, rank: usize) -> usize {
        self.locate(rank).0
    }

    /// The period at `rank`.
    pub(super) fn get(&self, rank: usize) -> &CoallocPeriod {
        let (c, o) = self.locate(rank);
        &self.chunks[c][o]
    }

    /// The number of leading periods satisfying `pred`, which must hold on a prefix.
    pub(super) fn partition_point(&self, pred: impl Fn(&CoallocPeriod) -> bool) -> usize {
        let c = self
            .chunks
            .partition_point(|ch| pred(ch.last().expect("chunks are never empty")));
        if c == self.chunks.len() {
            return self.len;
        }
        self.chunk_rank(c) + self.chunks[c].partition_point(pred)
    }

    /// A cursor at `rank` (at the end if `rank >= len`).
    pub(super) fn cursor(&self, rank: usize) -> Cursor<'_> {
        let (chunk, offset) = if rank >= self.len {
            (self.chunks.len(), 0)
        } else {
            self.locate(rank)
        };
        Cursor {
            list: self,
            chunk,
            offset,
        }
    }

    /// Every period, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &CoallocPeriod> {
        self.chunks.iter().flatten()
    }

    /// Calls `f` on the slices of the chunks that hold ranks `a..b`, in order.
    fn pieces(&self, a: usize, b: usize, mut f: impl FnMut(&[CoallocPeriod])) {
        if a >= b {
            return;
        }
        let (ca, oa) = self.locate(a);
        let (cb, ob) = if b >= self.len {
            (self.chunks.len(), 0)
        } else {
            self.locate(b)
        };
        if ca == cb {
            f(&self.chunks[ca][oa..ob]);
            return;
        }
        f(&self.chunks[ca][oa..]);
        for ch in &self.chunks[ca + 1..cb] {
            f(ch);
        }
        if ob > 0 {
            f(&self.chunks[cb][..ob]);
        }
    }

    /// The number of periods of ranks `a..b` ending before `e`: a count over contiguous
    /// slices, with no per-period cursor step or merge.
    pub(super) fn count_ending_before(&self, a: usize, b: usize, e: i64) -> usize {
        let mut count = 0;
        self.pieces(a, b, |piece| {
            count += piece.iter().filter(|p| p.end < e).count();
        });
        count
    }

    /// Appends the periods of ranks `a..b` ending at or after `e` to `out`, in primary order.
    pub(super) fn extend_ending_from(
        &self,
        a: usize,
        b: usize,
        e: i64,
        out: &mut Vec<CoallocPeriod>,
    ) {
        self.pieces(a, b, |piece| {
            out.extend(piece.iter().filter(|p| p.end >= e));
        });
    }

    /// Appends the periods of ranks `a..b` to `out`, in primary order.
    pub(super) fn extend_range(&self, a: usize, b: usize, out: &mut Vec<CoallocPeriod>) {
        self.pieces(a, b, |piece| out.extend_from_slice(piece));
    }

    /// Removes the periods of `rem` (all present) and inserts those of `ins` (all absent); both
    /// in primary order. Returns the number of removals and insertions.
    pub(super) fn apply(&mut self, rem: &[CoallocPeriod], ins: &[CoallocPeriod]) -> u64 {
        if rem.is_empty() && ins.is_empty() {
            return 0;
        }
        if self.chunks.is_empty() {
            self.chunks.push(std::mem::take(&mut self.spare));
            self.rebuild_fenwick();
        }
        // Assign every update to a chunk first (the chunk holding it, or the one it goes into:
        // the first whose last key is not below it, else the last), then rewrite each touched
        // chunk once; assignments are made on the unchanged list.
        let last = self.chunks.len() - 1;
        let chunk_of = |chunks: &[Vec<CoallocPeriod>], p: &CoallocPeriod| {
            chunks
                .partition_point(|ch| ch.last().is_some_and(|l| pkey(l) < pkey(p)))
                .min(last)
        };
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        let (mut r, mut i) = (0, 0);
        while r < rem.len() || i < ins.len() {
            let cr = rem.get(r).map(|p| chunk_of(&self.chunks, p));
            let ci = ins.get(i).map(|p| chunk_of(&self.chunks, p));
            let c = match (cr, ci) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => unreachable!(),
            };
            // All updates of chunk `c`: those sorting before the next chunk's first key.
            let bound = self.chunks.get(c + 1).map(|ch| pkey(&ch[0]));
            let below = |p: &CoallocPeriod| bound.is_none_or(|b| pkey(p) < b);
            let r_end = r + rem[r..].partition_point(below);
            let i_end = i + ins[i..].partition_point(below);
            spans.push((c, r, r_end, i, i_end));
            r = r_end;
            i = i_end;
        }
        let mut changed = 0u64;
        let mut restructure = false;
        for &(c, r0, r1, i0, i1) in &spans {
            let before = self.chunks[c].len();
            changed += merge_into(&mut self.chunks[c], &rem[r0..r1], &ins[i0..i1]);
            let after = self.chunks[c].len();
            self.fenwick_add(c, after as isize - before as isize);
            restructure |= after == 0 || after > MAX_CHUNK;
        }
        self.len = self.len + ins.len() - rem.len();
        self.spans = spans;
        if restructure {
            let mut old = std::mem::replace(&mut self.chunks, std::mem::take(&mut self.retired));
            for ch in old.drain(..) {
                if ch.len() > MAX_CHUNK {
                    self.chunks.extend(ch.chunks(CHUNK).map(<[_]>::to_vec));
                } else if !ch.is_empty() {
                    self.chunks.push(ch);
                } else {
                    self.keep_spare(ch);
                }
            }
            self.retired = old;
            self.rebuild_fenwick();
        }
        debug_assert_eq!(self.len, self.chunks.iter().map(Vec::len).sum::<usize>());
        changed
    }
}

/// A position in a [`ChunkedList`], moving forward.
#[derive(Debug, Clone)]
pub(super) struct Cursor<'a> {
    list: &'a ChunkedList,
    chunk: usize,
    offset: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(super) fn peek(&self) -> Option<&'a CoallocPeriod> {
        self.list.chunks.get(self.chunk).map(|ch| &ch[self.offset])
    }

    #[inline]
    pub(super) fn advance(&mut self) {
        self.offset += 1;
        if self.offset == self.list.chunks[self.chunk].len() {
            self.chunk += 1;
            self.offset = 0;
        }
    }
}

/// Removes the periods of `rem` found in `list` and merges in `ins` (all three in primary
/// order, keys distinct), in one pass each; returns the number of removals and insertions made,
/// as the per-period updates count them. The merge runs from the back, in the chunk's own
/// buffer: it moves only the periods after the first insertion point and allocates only when
/// the chunk outgrows its capacity.
fn merge_into(list: &mut Vec<CoallocPeriod>, rem: &[CoallocPeriod], ins: &[CoallocPeriod]) -> u64 {
    let mut j = 0;
    let mut removed = 0u64;
    if !rem.is_empty() {
        list.retain(|p| {
            while j < rem.len() && pkey(&rem[j]) < pkey(p) {
                j += 1;
            }
            if j < rem.len() && pkey(&rem[j]) == pkey(p) {
                j += 1;
                removed += 1;
                false
            } else {
                true
            }
        });
    }
    let Some(&filler) = ins.first() else {
        return removed;
    };
    let (mut a, mut b) = (list.len(), ins.len());
    list.resize(a + b, filler);
    // Write position `a + b` down to 0; once every insertion is placed, the rest of `list` is
    // already where it belongs.
    while b > 0 {
        if a > 0 && pkey(&list[a - 1]) > pkey(&ins[b - 1]) {
            list[a + b - 1] = list[a - 1];
            a -= 1;
        } else {
            list[a + b - 1] = ins[b - 1];
            b -= 1;
        }
    }
    removed + ins.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn p(start: i64, server: u32) -> CoallocPeriod {
        CoallocPeriod {
            start,
            end: start + 1,
            server,
        }
    }

    proptest! {
        /// Batches of removals and insertions keep the list equal to a `BTreeMap` oracle, and
        /// ranks, `get` and `partition_point` agree with the oracle's sorted vector.
        #[test]
        fn batches_match_an_ordered_map(
            ops in prop::collection::vec(
                prop::collection::vec((0i64..400, 0u32..8, any::<bool>()), 0..300),
                1..12,
            ),
            probe in 0i64..400,
            cuts in prop::collection::vec((0usize..1200, 0usize..1200), 1..6),
        ) {
            let mut list = ChunkedList::default();
            let mut oracle: BTreeMap<Key, CoallocPeriod> = BTreeMap::new();
            for batch in ops {
                let mut rem = Vec::new();
                let mut ins = Vec::new();
                let mut seen = std::collections::BTreeSet::new();
                for (start, server, insert) in batch {
                    let q = p(start, server);
                    if !seen.insert(pkey(&q)) {
                        continue;
                    }
                    match (insert, oracle.contains_key(&pkey(&q))) {
                        (true, false) => ins.push(q),
                        (false, true) => rem.push(q),
                        _ => {}
                    }
                }
                rem.sort_by_key(pkey);
                ins.sort_by_key(pkey);
                let changed = list.apply(&rem, &ins);
                prop_assert_eq!(changed, (rem.len() + ins.len()) as u64);
                for q in &rem { oracle.remove(&pkey(q)); }
                for q in &ins { oracle.insert(pkey(q), *q); }
                let want: Vec<CoallocPeriod> = oracle.values().copied().collect();
                let got: Vec<CoallocPeriod> = list.iter().copied().collect();
                prop_assert_eq!(&got, &want);
                prop_assert_eq!(list.len(), want.len());
                for (r, q) in want.iter().enumerate() {
                    prop_assert_eq!(list.get(r), q);
                }
                let cut = want.partition_point(|q| q.start > probe);
                prop_assert_eq!(list.partition_point(|q| q.start > probe), cut);
                let mut cur = list.cursor(cut);
                for q in &want[cut..] {
                    prop_assert_eq!(cur.peek(), Some(q));
                    cur.advance();
                }
                prop_assert_eq!(cur.peek(), None);
                // Range counts and reads against the oracle's range, on ranges that start and
                // end inside chunks, at chunk bounds, or span several chunks.
                for &(x, y) in &cuts {
                    let (a, b) = (x.min(y).min(want.len()), x.max(y).min(want.len()));
                    let range = &want[a..b];
                    prop_assert_eq!(
                        list.count_ending_before(a, b, probe),
                        range.iter().filter(|q| q.end < probe).count()
                    );
                    let mut got = Vec::new();
                    list.extend_ending_from(a, b, probe, &mut got);
                    let feasible: Vec<CoallocPeriod> =
                        range.iter().filter(|q| q.end >= probe).copied().collect();
                    prop_assert_eq!(got, feasible);
                    let mut all = Vec::new();
                    list.extend_range(a, b, &mut all);
                    prop_assert_eq!(all.as_slice(), range);
                }
            }
        }
    }

    #[test]
    fn built_lists_split_into_chunks() {
        let v: Vec<CoallocPeriod> = (0..1000).rev().map(|s| p(s, 0)).collect();
        let list = ChunkedList::from_sorted(&v);
        assert_eq!(list.len(), 1000);
        assert_eq!(list.chunks.len(), 1000usize.div_ceil(CHUNK));
        assert_eq!(*list.get(999), v[999]);
        assert_eq!(list.partition_point(|q| q.start > 500), 499);
    }
}
