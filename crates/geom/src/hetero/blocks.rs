//! The periods of one rate class in (start, server) order, cut into blocks of 16–64: the lists
//! of FF-HU and FF-HA, and FF-HA+'s primal order and direct group search.
//!
//! **First fit without a scan.** Every block keeps a summary — its first start, latest end and
//! largest nominal capacity — so the first period in start order that a job fits
//! ([`StartBlocks::first_feasible`]) skips every block whose latest end or largest capacity
//! fails the job's thresholds and scans only the blocks that may hold it; its *position* (the
//! number of periods before it) comes from the block sizes. That position is exactly what the
//! thesis's list scan counts (elements examined = position + 1, or the periods up to the latest
//! feasible start when nothing fits), so FF-HU and FF-HA report the list walk's operation count
//! without walking the list (`super::lists`).
//!
//! **FF-HA+'s group search.** FF-HA+'s answer inside the answering group `U` (a range of
//! positions in start order) depends only on `U`'s *dual-feasible* periods `F` (`end >= r +
//! l/μ`; see [`super::primal_dual`]). [`StartBlocks::gather`] walks the blocks of `U` from the
//! position of its first period: a block whose latest end is before `r + l/μ` holds none and is
//! skipped, a block cut by `U`'s ends is filtered, and a block lying wholly inside `U` hands
//! over its part of `F` as one contiguous slice — the suffix of its end-ordered copy from the
//! first end `>= r + l/μ` — once it has one. The end-ordered copy is built *lazily*: any update
//! of a block drops it, and a whole block is filtered like a boundary block until it has been
//! gathered from [`SCANS_BEFORE_SORT`] times without an update, then sorted by end. Where
//! updates are frequent next to searches (the thesis's 120 servers) no update pays for a second
//! order; where blocks are searched many times between updates (thousands of servers, `|F|`
//! in the thousands) each search costs `O(m/B · log B + |F|)` sequential work for a group of
//! `m` periods and blocks of `B`, as with an end order kept current.
//!
//! Blocks hold between [`MIN_BLOCK`] and [`MAX_BLOCK`] periods (a lone block possibly fewer);
//! an update is a binary search over the blocks' last keys plus an `O(B)` insertion or removal
//! in one sorted vector; a block that grows past [`MAX_BLOCK`] splits in two, one that shrinks
//! below [`MIN_BLOCK`] merges with a neighbour (or takes periods from it, if both together are
//! too many for one block). Emptied blocks are kept for reuse with their buffers, so splits and
//! merges do not allocate once the structure has grown. Nothing here decides anything: the set
//! is the class's live set, the order is total, so every answer — positions, first fits, the
//! gathered `F` — is the same whatever the block boundaries and whatever the update history.

use std::cmp::Ordering;

use super::{RatedPeriod, RatedWindow};

/// A block splits when it holds more than this many periods. (Measured on the chapter-4 sweep:
/// 64 costs 5-7 % less per job than 128 in updates, which shift half a block; 16-32 lose it
/// again in block headers; docs/benchmarks.md, issue 32.)
pub(crate) const MAX_BLOCK: usize = 64;
/// A block merges with a neighbour when it holds fewer than this many periods.
pub(crate) const MIN_BLOCK: usize = 16;
/// Whole-block gathers without an update after which a block's end-ordered copy is built (a
/// sort of `B` periods costs about as much as this many filtered scans).
pub(crate) const SCANS_BEFORE_SORT: u32 = 4;

#[derive(Debug, Clone, Default)]
struct Block {
    /// Sorted by (start, server); never empty while the block is in use.
    by_start: Vec<RatedPeriod>,
    /// The same periods sorted by (end, server) if `ends` says so; stale otherwise.
    by_end: Vec<RatedPeriod>,
    /// Whether `by_end` is current.
    ends: bool,
    /// Whole-block gathers since the last update (while `by_end` is stale).
    scans: u32,
}

impl Block {
    /// An empty block with room for `MAX_BLOCK + 1` periods (a block splits beyond
    /// `MAX_BLOCK`), so it never reallocates.
    fn with_room() -> Block {
        Block {
            by_start: Vec::with_capacity(MAX_BLOCK + 1),
            ..Block::default()
        }
    }

    /// Marks the block changed: its end-ordered copy is stale.
    #[inline]
    fn touched(&mut self) {
        self.ends = false;
        self.scans = 0;
    }
}

/// A block's summary for [`StartBlocks::first_feasible`] and [`StartBlocks::gather`]: the
/// tests that let a search skip the whole block, kept apart from the blocks so that skipping
/// reads one contiguous array.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Head {
    /// The block's first (smallest) start.
    first: f64,
    /// The latest end in the block.
    max_end: f64,
    /// The largest nominal capacity in the block.
    max_cap: f64,
    /// The servers' tails (open-ended periods) in the block: while one is left, the latest end
    /// and the largest capacity stay infinite, so removing another period needs no rescan.
    tails: u32,
}

impl Head {
    fn of(periods: &[RatedPeriod]) -> Head {
        let mut h = Head {
            first: periods[0].start,
            max_end: f64::NEG_INFINITY,
            max_cap: f64::NEG_INFINITY,
            tails: 0,
        };
        for p in periods {
            h.max_end = h.max_end.max(p.end);
            h.max_cap = h.max_cap.max(p.capacity);
            h.tails += u32::from(p.is_tail());
        }
        h
    }

    /// Accounts for `p` joining the block.
    #[inline]
    fn add(&mut self, p: &RatedPeriod) {
        self.max_end = self.max_end.max(p.end);
        self.max_cap = self.max_cap.max(p.capacity);
        self.tails += u32::from(p.is_tail());
    }

    /// Accounts for `p` leaving the block, whose periods are now `rest` (non-empty). Returns
    /// whether the summary was recomputed from `rest`.
    #[inline]
    fn remove(&mut self, p: &RatedPeriod, rest: &[RatedPeriod]) -> bool {
        self.tails -= u32::from(p.is_tail());
        // Only a period that held the block's latest end or largest capacity forces a rescan
        // (a tail does not while another tail remains: both maxima stay infinite).
        let held_max = p.end == self.max_end || p.capacity == self.max_cap;
        if held_max && !(p.is_tail() && self.tails > 0) {
            *self = Head::of(rest);
            true
        } else {
            self.first = rest[0].start;
            false
        }
    }
}

/// Where a period sits: its block and its index in the block. Valid until the next update.
pub(crate) type Spot = (usize, usize);

/// A period found by [`StartBlocks::scan`]: its position in start order and its spot.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found {
    pub(crate) position: usize,
    pub(crate) period: RatedPeriod,
    pub(crate) spot: Spot,
}

/// Start-ordered blocks with summaries (see the [module docs](self)).
#[derive(Debug, Clone, Default)]
pub(crate) struct StartBlocks {
    blocks: Vec<Block>,
    /// The largest (start, server) key of each block.
    lasts: Vec<RatedPeriod>,
    /// The number of periods of each block (summed on the fly for ranks: a short sequential
    /// scan, cheaper than keeping prefix sums current).
    counts: Vec<u32>,
    /// Each block's summary.
    heads: Vec<Head>,
    len: usize,
    /// Emptied blocks, kept with their buffers for the next split.
    spare: Vec<Block>,
}

/// The number of periods at the end of `by_end` (sorted by end) whose end is `>=
/// earliest_end`. Dual-feasible periods are usually a short suffix of a block, so the suffix
/// is walked backwards (the cache lines the caller copies next) before a binary search takes
/// over.
#[inline]
fn suffix_from(by_end: &[RatedPeriod], earliest_end: f64) -> usize {
    const WALK: usize = 16;
    let mut k = by_end.len();
    let stop = k.saturating_sub(WALK);
    while k > stop {
        if by_end[k - 1].end < earliest_end {
            return k;
        }
        k -= 1;
    }
    by_end[..k].partition_point(|x| x.end < earliest_end)
}

#[inline]
fn before(a: &RatedPeriod, b: &RatedPeriod) -> bool {
    a.cmp_start(b) == Ordering::Less
}

/// Whether a list scan that stops at the first `start > latest` passes over `start`: the
/// negation of that test (so a NaN `latest` passes everything, as the scan would).
#[inline]
fn not_after(start: f64, latest: f64) -> bool {
    start.partial_cmp(&latest) != Some(Ordering::Greater)
}

impl StartBlocks {
    /// Number of periods.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends every period to `out`, in (start, server) order.
    pub(crate) fn collect(&self, out: &mut Vec<RatedPeriod>) {
        for blk in &self.blocks {
            out.extend_from_slice(&blk.by_start);
        }
    }

    /// The block that holds (or would hold) `key`: the first whose last key is `>= key`, else
    /// the last block.
    #[inline]
    fn block_of(&self, key: &RatedPeriod) -> usize {
        let b = self.lasts.partition_point(|l| before(l, key));
        b.min(self.blocks.len().saturating_sub(1))
    }

    /// A block from the spares (or a new one), empty.
    fn fresh_block(&mut self) -> Block {
        let mut blk = self.spare.pop().unwrap_or_else(Block::with_room);
        blk.by_start.clear();
        blk.touched();
        blk
    }

    /// Adds `p` (its (start, server) must not be present).
    pub(crate) fn insert(&mut self, p: RatedPeriod) {
        self.len += 1;
        if self.blocks.is_empty() {
            let mut blk = self.fresh_block();
            blk.by_start.push(p);
            self.blocks.push(blk);
            self.lasts.push(p);
            self.counts.push(1);
            self.heads.push(Head::of(&[p]));
            return;
        }
        let b = self.block_of(&p);
        self.counts[b] += 1;
        let blk = &mut self.blocks[b];
        let i = blk.by_start.partition_point(|x| before(x, &p));
        debug_assert!(
            blk.by_start
                .get(i)
                .is_none_or(|x| x.cmp_start(&p) != Ordering::Equal),
            "duplicate period {p}"
        );
        blk.by_start.insert(i, p);
        blk.touched();
        let head = &mut self.heads[b];
        head.first = blk.by_start[0].start;
        head.add(&p);
        self.lasts[b] = *blk.by_start.last().expect("non-empty block");
        if blk.by_start.len() > MAX_BLOCK {
            self.split(b);
        }
    }

    /// The block and index of the period with `p`'s (start, server), if present. A `hint`
    /// (where a search found it since the last update) is checked and, if right, used.
    #[inline]
    fn find(&self, p: &RatedPeriod, hint: Option<Spot>) -> Option<Spot> {
        if let Some((b, i)) = hint
            && self
                .blocks
                .get(b)
                .and_then(|blk| blk.by_start.get(i))
                .is_some_and(|x| x.cmp_start(p).is_eq())
        {
            return Some((b, i));
        }
        if self.blocks.is_empty() {
            return None;
        }
        let b = self.block_of(p);
        let blk = &self.blocks[b].by_start;
        let i = blk.partition_point(|x| before(x, p));
        blk.get(i)
            .is_some_and(|x| x.cmp_start(p) == Ordering::Equal)
            .then_some((b, i))
    }

    /// Removes the period with `p`'s (start, server); returns the stored period if it was
    /// there.
    pub(crate) fn remove(&mut self, p: &RatedPeriod) -> Option<RatedPeriod> {
        self.remove_hinted(p, None)
    }

    /// [`Self::remove`], with where a search found `p` since the last update, if known.
    pub(crate) fn remove_hinted(
        &mut self,
        p: &RatedPeriod,
        hint: Option<Spot>,
    ) -> Option<RatedPeriod> {
        let (b, i) = self.find(p, hint)?;
        let blk = &mut self.blocks[b];
        let stored = blk.by_start.remove(i);
        blk.touched();
        self.len -= 1;
        self.counts[b] -= 1;
        match blk.by_start.last() {
            None => {
                let emptied = self.blocks.remove(b);
                self.spare.push(emptied);
                self.lasts.remove(b);
                self.counts.remove(b);
                self.heads.remove(b);
            }
            Some(last) => {
                self.lasts[b] = *last;
                self.heads[b].remove(&stored, &blk.by_start);
                if blk.by_start.len() < MIN_BLOCK && self.blocks.len() > 1 {
                    self.merge(if b + 1 < self.blocks.len() { b } else { b - 1 });
                }
            }
        }
        Some(stored)
    }

    /// Replaces the period with `new`'s (start, server) by `new` (a booking's leading
    /// fragment: same key, earlier end); returns the stored period if there was one. The same
    /// as [`Self::remove`] then [`Self::insert`], without shifting the block.
    pub(crate) fn replace(&mut self, new: RatedPeriod) -> Option<RatedPeriod> {
        self.replace_hinted(new, None)
    }

    /// [`Self::replace`], with where a search found the period since the last update, if
    /// known.
    pub(crate) fn replace_hinted(
        &mut self,
        new: RatedPeriod,
        hint: Option<Spot>,
    ) -> Option<RatedPeriod> {
        let (b, i) = self.find(&new, hint)?;
        let blk = &mut self.blocks[b];
        let stored = std::mem::replace(&mut blk.by_start[i], new);
        blk.touched();
        if i + 1 == blk.by_start.len() {
            self.lasts[b] = new;
        }
        // `by_start` already holds `new`: a rescan counts it, otherwise add it.
        let head = &mut self.heads[b];
        if !head.remove(&stored, &blk.by_start) {
            head.add(&new);
        }
        Some(stored)
    }

    /// Refreshes the last key, count and summary of block `b` from its periods.
    fn resummarize(&mut self, b: usize) {
        let blk = &self.blocks[b].by_start;
        self.lasts[b] = *blk.last().expect("non-empty block");
        self.counts[b] = blk.len() as u32;
        self.heads[b] = Head::of(blk);
    }

    /// Splits block `b` into two halves.
    fn split(&mut self, b: usize) {
        let mut right = self.fresh_block();
        let left = &mut self.blocks[b];
        let half = left.by_start.len() / 2;
        right.by_start.extend_from_slice(&left.by_start[half..]);
        left.by_start.truncate(half);
        left.touched();
        self.blocks.insert(b + 1, right);
        let placeholder = self.lasts[b];
        self.lasts.insert(b + 1, placeholder);
        self.counts.insert(b + 1, 0);
        self.heads.insert(b + 1, self.heads[b]);
        self.resummarize(b);
        self.resummarize(b + 1);
    }

    /// Joins blocks `b` and `b + 1` into one, or, if that would be too large, evens out their
    /// sizes (both then hold more than `MAX_BLOCK / 2 >= MIN_BLOCK` periods).
    fn merge(&mut self, b: usize) {
        let (l, r) = self.blocks.split_at_mut(b + 1);
        let (left, right) = (&mut l[b], &mut r[0]);
        let total = left.by_start.len() + right.by_start.len();
        left.touched();
        right.touched();
        if total <= MAX_BLOCK {
            left.by_start.extend_from_slice(&right.by_start);
            let emptied = self.blocks.remove(b + 1);
            self.spare.push(emptied);
            self.lasts.remove(b + 1);
            self.counts.remove(b + 1);
            self.heads.remove(b + 1);
            self.resummarize(b);
            return;
        }
        let want = total / 2;
        let n = left.by_start.len();
        if n < want {
            // Move the right block's first periods to the end of the left one.
            let k = want - n;
            left.by_start.extend_from_slice(&right.by_start[..k]);
            right.by_start.drain(..k);
        } else {
            // Move the left block's last periods to the front of the right one.
            let k = n - want;
            right.by_start.extend_from_slice(&left.by_start[want..]);
            right.by_start.rotate_right(k);
            left.by_start.truncate(want);
        }
        self.resummarize(b);
        self.resummarize(b + 1);
    }

    /// Number of periods with `start <= latest_start`.
    pub(crate) fn rank_le(&self, latest_start: f64) -> usize {
        let b = self.lasts.partition_point(|l| l.start <= latest_start);
        let before: usize = self.counts[..b].iter().map(|&c| c as usize).sum();
        before
            + self.blocks.get(b).map_or(0, |blk| {
                blk.by_start.partition_point(|x| x.start <= latest_start)
            })
    }

    /// Number of periods that a list scan stopping at the first `start > latest` passes over:
    /// those with `!(start > latest)` (the same as [`Self::rank_le`] for every non-NaN
    /// `latest`, and all of them for a NaN one, as the scan's test says).
    pub(crate) fn rank_not_after(&self, latest: f64) -> usize {
        let b = self.lasts.partition_point(|l| not_after(l.start, latest));
        let before: usize = self.counts[..b].iter().map(|&c| c as usize).sum();
        before
            + self.blocks.get(b).map_or(0, |blk| {
                blk.by_start.partition_point(|x| not_after(x.start, latest))
            })
    }

    /// Number of periods before `key` in (start, server) order.
    pub(crate) fn rank_before(&self, key: &RatedPeriod) -> usize {
        let b = self.lasts.partition_point(|l| before(l, key));
        let n: usize = self.counts[..b].iter().map(|&c| c as usize).sum();
        n + self
            .blocks
            .get(b)
            .map_or(0, |blk| blk.by_start.partition_point(|x| before(x, key)))
    }

    /// The first period in (start, server) order that `w` admits, with its position (the
    /// number of periods before it). Blocks whose summary fails the job's end or capacity
    /// threshold are skipped whole; the search stops at the first start after
    /// `w.latest_start`, where a list scan would.
    #[cfg(test)]
    pub(crate) fn first_feasible(&self, w: &RatedWindow) -> Option<(usize, RatedPeriod)> {
        self.scan(w).ok().map(|f| (f.position, f.period))
    }

    /// A list scan's outcome, without the scan: `Ok` as [`Self::first_feasible`] (with where
    /// the period sits), or, if no period is admitted, `Err` with the number of periods the
    /// scan passes over (those with `!(start > w.latest_start)`, as [`Self::rank_not_after`]).
    pub(crate) fn scan(&self, w: &RatedWindow) -> Result<Found, usize> {
        let latest = w.latest_start;
        let mut base = 0usize;
        for (b, head) in self.heads.iter().enumerate() {
            if head.first > latest {
                return Err(base);
            }
            let blk = &self.blocks[b].by_start;
            if w.possible && head.max_end >= w.earliest_end && head.max_cap >= w.min_capacity {
                for (i, x) in blk.iter().enumerate() {
                    if x.start > latest {
                        return Err(base + i);
                    }
                    if w.admits(x) {
                        return Ok(Found {
                            position: base + i,
                            period: *x,
                            spot: (b, i),
                        });
                    }
                }
            } else if self.lasts[b].start > latest {
                // The scan would stop inside this block.
                return Err(base + blk.partition_point(|x| not_after(x.start, latest)));
            }
            base += blk.len();
        }
        Err(base)
    }

    /// The block holding position `i` (`i < len`) and the position inside it.
    #[inline]
    fn locate(&self, mut i: usize) -> (usize, usize) {
        for (b, &c) in self.counts.iter().enumerate() {
            let c = c as usize;
            if i < c {
                return (b, i);
            }
            i -= c;
        }
        panic!("position {i} past the end");
    }

    /// The period at position `i` in start order (`i < len`).
    pub(crate) fn select(&self, i: usize) -> RatedPeriod {
        let (b, i) = self.locate(i);
        self.blocks[b].by_start[i]
    }

    /// Appends to `out` every period at positions `lo..=hi` (`hi < len`) in start order with
    /// `end >= earliest_end`, in no particular order. Returns `false` (and stops, leaving some
    /// of them in `out`) if there are more than `limit`. Takes `&mut self` only to build end-ordered copies
    /// (see the [module docs](self)); the periods are untouched.
    pub(crate) fn gather(
        &mut self,
        lo: usize,
        hi: usize,
        earliest_end: f64,
        limit: usize,
        out: &mut Vec<RatedPeriod>,
    ) -> bool {
        let (mut b, mut from) = self.locate(lo);
        let mut left = hi + 1 - lo;
        while left > 0 {
            let n = self.counts[b] as usize;
            let take = (n - from).min(left);
            if self.heads[b].max_end >= earliest_end {
                let blk = &mut self.blocks[b];
                let whole = take == n;
                if whole && !blk.ends {
                    blk.scans += 1;
                    if blk.scans > SCANS_BEFORE_SORT {
                        blk.by_end.clear();
                        blk.by_end.extend_from_slice(&blk.by_start);
                        blk.by_end.sort_unstable_by(RatedPeriod::cmp_end);
                        blk.ends = true;
                    }
                }
                if whole && blk.ends {
                    let tail = &blk.by_end[suffix_from(&blk.by_end, earliest_end)..];
                    if out.len() + tail.len() > limit {
                        return false;
                    }
                    out.extend_from_slice(tail);
                } else {
                    // Branch-free compaction: every period is written, the length only grows
                    // past the dual-feasible ones (which ones pass is data-dependent, so a branch
                    // per period would mispredict often).
                    let slice = &blk.by_start[from..from + take];
                    let mut k = out.len();
                    out.resize(k + take, slice[0]);
                    for x in slice {
                        out[k] = *x;
                        k += usize::from(x.end >= earliest_end);
                    }
                    out.truncate(k);
                    if k > limit {
                        return false;
                    }
                }
            }
            left -= take;
            from = 0;
            b += 1;
        }
        true
    }

    /// Checks the invariants; returns the periods in start order. For tests.
    #[cfg(test)]
    pub(crate) fn check(&self) -> Vec<RatedPeriod> {
        let mut all = Vec::new();
        assert_eq!(self.blocks.len(), self.lasts.len());
        assert_eq!(self.blocks.len(), self.counts.len());
        assert_eq!(self.blocks.len(), self.heads.len());
        for (i, (blk, last)) in self.blocks.iter().zip(&self.lasts).enumerate() {
            assert!(!blk.by_start.is_empty());
            assert_eq!(self.heads[i], Head::of(&blk.by_start), "block {i}");
            assert!(blk.by_start.len() <= MAX_BLOCK);
            assert!(
                blk.by_start.len() >= MIN_BLOCK || self.blocks.len() == 1,
                "block {i}"
            );
            assert_eq!(blk.by_start.last(), Some(last));
            assert_eq!(blk.by_start.len(), self.counts[i] as usize);
            assert!(blk.by_start.windows(2).all(|w| before(&w[0], &w[1])));
            if blk.ends {
                assert!(
                    blk.by_end
                        .windows(2)
                        .all(|w| w[0].cmp_end(&w[1]) == Ordering::Less)
                );
                let mut e = blk.by_end.clone();
                e.sort_by(RatedPeriod::cmp_start);
                assert_eq!(e, blk.by_start);
            }
            all.extend_from_slice(&blk.by_start);
        }
        assert!(all.windows(2).all(|w| before(&w[0], &w[1])));
        assert_eq!(all.len(), self.len);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(start: f64, end: f64, server: u32) -> RatedPeriod {
        RatedPeriod::new(start, end, server, 0, 0.5)
    }

    /// Inserts, replacements, removals, splits, merges and rebalancing against a sorted vector;
    /// ranks, first fits and gathers (filtered, and from end-ordered copies once built)
    /// against filters over it.
    #[test]
    fn blocks_match_a_sorted_vector() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut blocks = StartBlocks::default();
        let mut live: Vec<RatedPeriod> = Vec::new();
        for step in 0..20_000u32 {
            // Grow to ~3,000 periods, shrink to ~100, grow again: splits and merges.
            let target = if (step / 5_000) % 2 == 0 { 3_000 } else { 100 };
            let remove = !live.is_empty() && (live.len() > target || next() % 4 == 0);
            if !live.is_empty() && next() % 5 == 0 {
                // A booking's leading fragment: same key, another end.
                let i = (next() % live.len() as u64) as usize;
                let old = live[i];
                let end = old.start + 0.25 + (next() % 400) as f64 / 8.0;
                let new = period(old.start, end, old.server);
                assert_eq!(blocks.replace(new), Some(old));
                live[i] = new;
                assert_eq!(blocks.replace(period(-1.0, 0.0, u32::MAX)), None);
            } else if remove {
                let i = (next() % live.len() as u64) as usize;
                let p = live.swap_remove(i);
                assert_eq!(blocks.remove(&p), Some(p));
                assert_eq!(blocks.remove(&p), None);
            } else {
                let s = (next() % 2_000) as f64 / 4.0;
                let e = if next() % 10 == 0 {
                    f64::INFINITY
                } else {
                    s + 0.25 + (next() % 400) as f64 / 4.0
                };
                let p = period(s, e, step);
                blocks.insert(p);
                live.push(p);
            }
            if step % 499 != 0 {
                continue;
            }
            let mut sorted = live.clone();
            sorted.sort_by(RatedPeriod::cmp_start);
            assert_eq!(blocks.check(), sorted);
            assert_eq!(blocks.len(), sorted.len());
            let mut all = Vec::new();
            blocks.collect(&mut all);
            assert_eq!(all, sorted);
            if sorted.is_empty() {
                continue;
            }
            for _ in 0..20 {
                let i = (next() % sorted.len() as u64) as usize;
                assert_eq!(blocks.select(i), sorted[i]);
                assert_eq!(blocks.rank_before(&sorted[i]), i);
                let t = (next() % 2_100) as f64 / 4.0;
                let want = sorted.iter().filter(|p| p.start <= t).count();
                assert_eq!(blocks.rank_le(t), want);
                assert_eq!(blocks.rank_not_after(t), want);
                assert_eq!(
                    blocks.rank_le(sorted[i].start),
                    sorted.partition_point(|p| p.start <= sorted[i].start)
                );
            }
            assert_eq!(blocks.rank_not_after(f64::NAN), sorted.len());
            for _ in 0..40 {
                let ready = (next() % 2_100) as f64 / 4.0;
                let length = 0.25 + (next() % 200) as f64 / 8.0;
                let deadline = ready + length + (next() % 300) as f64 / 4.0;
                let w = crate::period::Window::new(ready, length, deadline).unwrap();
                let rw = RatedWindow::new(&w, 0.5);
                let want = sorted
                    .iter()
                    .position(|p| rw.admits(p))
                    .map(|i| (i, sorted[i]));
                assert_eq!(blocks.first_feasible(&rw), want, "{rw:?}");
                let passed = sorted
                    .iter()
                    .filter(|p| not_after(p.start, rw.latest_start))
                    .count();
                let got = blocks.scan(&rw).map(|f| {
                    assert_eq!(blocks.select(f.position), f.period);
                    assert_eq!(blocks.find(&f.period, Some(f.spot)), Some(f.spot));
                    (f.position, f.period)
                });
                assert_eq!(got, want.ok_or(passed), "{rw:?}");
                let impossible = RatedWindow {
                    possible: false,
                    ..rw
                };
                assert!(matches!(blocks.scan(&impossible), Err(n) if n == passed));
            }
            // Repeated gathers over the same ranges: the first ones filter, later ones read
            // the end-ordered copies they caused to be built.
            let ranges: Vec<(usize, usize, f64)> = (0..10)
                .map(|_| {
                    let i = (next() % sorted.len() as u64) as usize;
                    let j = (next() % sorted.len() as u64) as usize;
                    (i.min(j), i.max(j), (next() % 3_000) as f64 / 4.0)
                })
                .collect();
            for _round in 0..=SCANS_BEFORE_SORT + 1 {
                for &(lo, hi, ee) in &ranges {
                    let mut want: Vec<RatedPeriod> = sorted[lo..=hi]
                        .iter()
                        .filter(|p| p.end >= ee)
                        .copied()
                        .collect();
                    let mut got = Vec::new();
                    assert!(blocks.gather(lo, hi, ee, usize::MAX, &mut got));
                    got.sort_by(RatedPeriod::cmp_start);
                    want.sort_by(RatedPeriod::cmp_start);
                    assert_eq!(got, want);
                    if !want.is_empty() {
                        let mut few = Vec::new();
                        assert!(!blocks.gather(lo, hi, ee, want.len() - 1, &mut few));
                        few.clear();
                        assert!(blocks.gather(lo, hi, ee, want.len(), &mut few));
                    }
                }
            }
            blocks.check();
        }
    }
}
