//! The chunked layout of the profile, for profiles of many change points (see the parent
//! module for the semantics and for when a [`Profile`](super::Profile) uses it).
//!
//! # Layout: sorted chunks with lazy offsets and level bounds
//!
//! The points are cut into *chunks* of at most [`CHUNK`] consecutive points. Each chunk keeps
//! its points in one fixed-size slot of two flat arenas (times, levels) and, in a small
//! contiguous directory in time order, its last time, a lazy level offset (`delta`: every
//! level stored in the chunk is `delta` below the real one) and the minimum and maximum of its
//! stored levels. So:
//!
//! - a point is found by a binary search over the directory's last times, then one inside the
//!   chunk;
//! - inserting or dropping a point shifts at most [`CHUNK`] entries of one chunk (a full
//!   chunk is split in two; a chunk that falls below a quarter is merged into a neighbour),
//!   instead of half of two arrays of `n`;
//! - adding to the level over a range updates the points of the (at most two) partly covered
//!   chunks and only the offset of every chunk inside the range;
//! - the forward sweeps behind [`Chunked::earliest_fit`] and the other searches skip whole
//!   chunks from the directory: a chunk whose maximum is below the width wanted cannot hold
//!   the next start, and one whose minimum is at least the width, ending before the window
//!   does, cannot interrupt the window.
//!
//! | operation | cost (n = change points, c = n / [`CHUNK`] chunks, w = chunks in the range) |
//! |---|---|
//! | [`Chunked::reserve`], [`Chunked::release`], [`Chunked::try_reserve`] | `O(log n + CHUNK + w)`, plus `O(c)` when a chunk is split or merged |
//! | [`Chunked::add`] (from `t` to forever) | `O(log n + CHUNK + c)` |
//! | [`Chunked::advance`] (fold the past) | `O(log n + CHUNK)` plus the chunks passed |
//! | [`Chunked::free_at`], [`Chunked::next_change`] | `O(log n)` |
//! | [`Chunked::first_below`], [`Chunked::first_at_least`], [`Chunked::fits`] | `O(log n)` + the chunks swept, each `O(1)` unless it holds the answer or a bound does not decide it |
//! | [`Chunked::max_free`], [`Chunked::min_free`] | `O(log n + CHUNK + w)` |
//! | [`Chunked::earliest_fit`] | `O(log n)` + one forward sweep that reads only the chunks bounds do not decide |
//! | `clone` / `clone_from` | `O(n)` copies (no allocation with `clone_from` once the target is large enough) |
//!
//! A chunk's bounds stay exact without re-reading the chunk on every update: adding to a
//! range of its points moves the bound in the update's direction by the range's own extreme,
//! and the other bound is re-read only when it was attained inside the range; dropping a point
//! that repeats the level before it in the same chunk changes neither.
//!
//! # Why chunks and not a balanced tree
//!
//! Under conservative backfilling with a growing queue a profile holds thousands of points
//! and every compression re-places hundreds of queued jobs, each a release, an earliest-fit
//! search and a reservation: there the flat arrays' `O(n)` `memmove` per inserted or dropped
//! point and the point-by-point sweeps dominated (issue 32). Inside a chunk everything is the
//! flat layout's contiguous sweep over at most [`CHUNK`] points, and across chunks the
//! directory (tens of entries of 40 bytes for a profile of thousands of points) bounds the
//! work like the top level of a B-tree, without pointers, rebalancing rotations or allocation
//! after warm-up (freed slots are reused). A segment tree with lazy range-add would give
//! `O(log n)` range updates too, but it needs a fixed time domain or re-indexing on every
//! inserted point, and its root-to-leaf descents for "next point at or above `p`" cost more
//! than a scan of a few cache lines at these sizes. Below a few hundred points the chunks'
//! bookkeeping costs more than it saves, which is why small profiles stay flat (parent
//! module).
//!
//! The flat arrays (`profile/flat.rs`) are the oracle of the property tests: every answer and
//! every state of this layout must equal theirs.

use super::MAX_CAPACITY;
use crate::Time;

/// The most change points one chunk holds (see the module documentation).
pub const CHUNK: usize = 64;

/// A chunk below this many points is merged into a neighbour when the two fit in
/// [`MERGE_TO`] points.
const MERGE_BELOW: usize = CHUNK / 4;
const MERGE_TO: usize = CHUNK * 3 / 4;

/// Points per chunk when a chunked profile is built from a list of points.
const FILL: usize = CHUNK * 3 / 4;

/// One chunk's directory entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Chunk {
    /// The chunk's last change time.
    last: Time,
    /// Added to every stored level of the chunk to give the real level.
    delta: i64,
    /// The smallest and largest *stored* level of the chunk.
    min: i64,
    max: i64,
    /// Where its points are: `times[slot * CHUNK..][..len]` and likewise `levels`.
    slot: u32,
    len: u32,
}

/// A position among the change points: chunk `k` (in time order), point `i` inside it; `k`
/// equal to the number of chunks is the end.
type Pos = (usize, usize);

/// What [`Chunked::split`] did to put a point at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// The point was there.
    Found,
    /// Inserted into its chunk: later points of that chunk moved up by one.
    Inserted,
    /// Inserted after splitting a full chunk: later positions changed.
    Rechunked,
}

/// Free processors of one machine over `[now, ∞)`; see the module documentation.
#[derive(Debug)]
pub struct Chunked {
    capacity: i64,
    now: Time,
    free_now: i64,
    /// The chunks in time order.
    chunks: Vec<Chunk>,
    /// Points of chunk slot `s` in `times[s * CHUNK..]`, strictly increasing, all after `now`.
    times: Vec<Time>,
    /// Stored levels, parallel to `times`: the real level on `[t_i, t_{i+1})` minus the
    /// chunk's `delta`.
    levels: Vec<i64>,
    /// Slots not used by any chunk.
    free_slots: Vec<u32>,
    /// Number of change points.
    count: usize,
}

impl Clone for Chunked {
    fn clone(&self) -> Self {
        let mut p = Chunked::new(0, self.now);
        p.clone_from(self);
        p
    }

    /// Reuses `self`'s arenas: a compression that rebuilds a profile from its base allocates
    /// nothing. The copy is compact (chunk `k` in slot `k`).
    fn clone_from(&mut self, src: &Self) {
        self.capacity = src.capacity;
        self.now = src.now;
        self.free_now = src.free_now;
        self.count = src.count;
        let n = src.chunks.len();
        self.chunks.clear();
        self.chunks.extend_from_slice(&src.chunks);
        if self.times.len() < n * CHUNK {
            self.times.resize(n * CHUNK, 0);
            self.levels.resize(n * CHUNK, 0);
        }
        for (k, c) in self.chunks.iter_mut().enumerate() {
            let (from, to, len) = (c.slot as usize * CHUNK, k * CHUNK, c.len as usize);
            self.times[to..to + len].copy_from_slice(&src.times[from..from + len]);
            self.levels[to..to + len].copy_from_slice(&src.levels[from..from + len]);
            c.slot = k as u32;
        }
        let slots = (self.times.len() / CHUNK) as u32;
        self.free_slots.clear();
        self.free_slots.extend((n as u32..slots).rev());
    }
}

impl Chunked {
    /// An idle machine of `capacity` processors at time `now`.
    pub fn new(capacity: u32, now: Time) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "a profile models at most {MAX_CAPACITY} processors"
        );
        Chunked {
            capacity: i64::from(capacity),
            now,
            free_now: i64::from(capacity),
            chunks: Vec::new(),
            times: Vec::new(),
            levels: Vec::new(),
            free_slots: Vec::new(),
            count: 0,
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
        self.count
    }

    /// Whether the level stays at `free_now` forever.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Becomes the profile of `capacity` processors at `now` with `free_now` free and the
    /// change points `times` (strictly increasing, after `now`) at real levels `levels`,
    /// reusing its arenas. Chunks are filled to three quarters of [`CHUNK`], so that the next
    /// insertions do not split them at once.
    pub fn assign(
        &mut self,
        capacity: i64,
        now: Time,
        free_now: i64,
        times: &[Time],
        levels: &[i64],
    ) {
        debug_assert_eq!(times.len(), levels.len());
        self.capacity = capacity;
        self.now = now;
        self.free_now = free_now;
        self.count = times.len();
        self.chunks.clear();
        let n = times.len().div_ceil(FILL);
        if self.times.len() < n * CHUNK {
            self.times.resize(n * CHUNK, 0);
            self.levels.resize(n * CHUNK, 0);
        }
        for (k, (ts, ls)) in times.chunks(FILL).zip(levels.chunks(FILL)).enumerate() {
            let s = k * CHUNK;
            self.times[s..s + ts.len()].copy_from_slice(ts);
            self.levels[s..s + ls.len()].copy_from_slice(ls);
            self.chunks.push(Chunk {
                last: ts[ts.len() - 1],
                delta: 0,
                min: ls.iter().copied().fold(i64::MAX, i64::min),
                max: ls.iter().copied().fold(i64::MIN, i64::max),
                slot: k as u32,
                len: ts.len() as u32,
            });
        }
        let slots = (self.times.len() / CHUNK) as u32;
        self.free_slots.clear();
        self.free_slots.extend((n as u32..slots).rev());
    }

    /// The change points in time order, as (time, real level).
    pub fn points(&self) -> impl Iterator<Item = (Time, i64)> + '_ {
        self.chunks.iter().enumerate().flat_map(move |(k, c)| {
            self.ctimes(k)
                .iter()
                .zip(self.clevels(k))
                .map(move |(&t, &l)| (t, l + c.delta))
        })
    }

    // ---- chunk access ----

    /// The times of chunk `k`.
    #[inline]
    fn ctimes(&self, k: usize) -> &[Time] {
        let c = &self.chunks[k];
        let s = c.slot as usize * CHUNK;
        &self.times[s..s + c.len as usize]
    }

    /// The stored levels of chunk `k`.
    #[inline]
    fn clevels(&self, k: usize) -> &[i64] {
        let c = &self.chunks[k];
        let s = c.slot as usize * CHUNK;
        &self.levels[s..s + c.len as usize]
    }

    /// The time of the point at `(k, i)` (which must exist).
    #[inline]
    fn time(&self, (k, i): Pos) -> Time {
        self.times[self.chunks[k].slot as usize * CHUNK + i]
    }

    /// The real level of the point at `(k, i)` (which must exist).
    #[inline]
    fn level(&self, (k, i): Pos) -> i64 {
        let c = &self.chunks[k];
        self.levels[c.slot as usize * CHUNK + i] + c.delta
    }

    /// The level just before position `(k, i)` (from `now` if it is the first point).
    #[inline]
    fn level_before(&self, (k, i): Pos) -> i64 {
        if i > 0 {
            self.level((k, i - 1))
        } else if k > 0 {
            self.level((k - 1, self.chunks[k - 1].len as usize - 1))
        } else {
            self.free_now
        }
    }

    /// The position of the first point after `t`.
    #[inline]
    fn after(&self, t: Time) -> Pos {
        let k = self.chunks.partition_point(|c| c.last <= t);
        if k == self.chunks.len() {
            return (k, 0);
        }
        (k, self.ctimes(k).partition_point(|&x| x <= t))
    }

    /// The position of the first point at or after `t`.
    #[inline]
    fn at_or_after(&self, t: Time) -> Pos {
        let k = self.chunks.partition_point(|c| c.last < t);
        if k == self.chunks.len() {
            return (k, 0);
        }
        (k, self.ctimes(k).partition_point(|&x| x < t))
    }

    /// Recomputes chunk `k`'s level bounds.
    #[inline]
    fn rebound(&mut self, k: usize) {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for &l in self.clevels(k) {
            lo = lo.min(l);
            hi = hi.max(l);
        }
        let c = &mut self.chunks[k];
        c.min = lo;
        c.max = hi;
    }

    /// A free slot, growing the arenas if there is none.
    fn alloc_slot(&mut self) -> u32 {
        if let Some(s) = self.free_slots.pop() {
            return s;
        }
        let s = (self.times.len() / CHUNK) as u32;
        self.times.resize(self.times.len() + CHUNK, 0);
        self.levels.resize(self.levels.len() + CHUNK, 0);
        s
    }

    /// Splits full chunk `k` into two halves (`k` and `k + 1`).
    fn split_chunk(&mut self, k: usize) {
        let slot = self.alloc_slot();
        let c = self.chunks[k];
        let half = c.len as usize / 2;
        let (from, to) = (c.slot as usize * CHUNK, slot as usize * CHUNK);
        let moved = c.len as usize - half;
        self.times
            .copy_within(from + half..from + c.len as usize, to);
        self.levels
            .copy_within(from + half..from + c.len as usize, to);
        self.chunks[k].len = half as u32;
        self.chunks[k].last = self.times[from + half - 1];
        self.chunks.insert(
            k + 1,
            Chunk {
                last: c.last,
                delta: c.delta,
                min: 0,
                max: 0,
                slot,
                len: moved as u32,
            },
        );
        self.rebound(k);
        self.rebound(k + 1);
    }

    /// Inserts a point `(t, level)` at position `pos` (between its neighbours in time);
    /// returns its position and whether a chunk was split to make room.
    fn insert_at(&mut self, (mut k, mut i): Pos, t: Time, level: i64) -> (Pos, bool) {
        self.count += 1;
        let n = self.chunks.len();
        if n == 0 {
            let slot = self.alloc_slot();
            self.chunks.push(Chunk {
                last: t,
                delta: 0,
                min: level,
                max: level,
                slot,
                len: 1,
            });
            let s = slot as usize * CHUNK;
            self.times[s] = t;
            self.levels[s] = level;
            return ((0, 0), false);
        }
        if k == n {
            k = n - 1;
            i = self.chunks[k].len as usize;
        } else if i == 0 && k > 0 && (self.chunks[k - 1].len as usize) < CHUNK {
            // Between two chunks: append to the earlier one if it has room.
            k -= 1;
            i = self.chunks[k].len as usize;
        }
        let mut split = false;
        if self.chunks[k].len as usize == CHUNK {
            self.split_chunk(k);
            split = true;
            let half = self.chunks[k].len as usize;
            if i > half {
                k += 1;
                i -= half;
            }
        }
        let c = &mut self.chunks[k];
        let len = c.len as usize;
        let s = c.slot as usize * CHUNK;
        let stored = level - c.delta;
        c.len += 1;
        if i == len {
            c.last = t;
        }
        c.min = c.min.min(stored);
        c.max = c.max.max(stored);
        self.times.copy_within(s + i..s + len, s + i + 1);
        self.levels.copy_within(s + i..s + len, s + i + 1);
        self.times[s + i] = t;
        self.levels[s + i] = stored;
        ((k, i), split)
    }

    /// Removes the point at `(k, i)`, whose level equals the one before it (a point that no
    /// longer changes the level), merging its chunk into a neighbour if it became small.
    /// Returns whether chunks were merged or removed; if not, only the points after `(k, i)`
    /// in its chunk moved (down by one).
    fn remove_at(&mut self, (k, i): Pos) -> bool {
        self.count -= 1;
        let c = self.chunks[k];
        let len = c.len as usize;
        let s = c.slot as usize * CHUNK;
        if len == 1 {
            self.free_slots.push(c.slot);
            self.chunks.remove(k);
            return true;
        }
        let removed = self.levels[s + i];
        self.times.copy_within(s + i + 1..s + len, s + i);
        self.levels.copy_within(s + i + 1..s + len, s + i);
        let c = &mut self.chunks[k];
        c.len -= 1;
        if i == len - 1 {
            c.last = self.times[s + i - 1];
        }
        // A point dropped as flat repeats the level before it: if that point is in the same
        // chunk, the chunk's set of levels, and so its bounds, did not change.
        if (removed == c.min || removed == c.max) && i == 0 {
            self.rebound(k);
        }
        if len - 1 < MERGE_BELOW {
            if k + 1 < self.chunks.len() && len - 1 + self.chunks[k + 1].len as usize <= MERGE_TO {
                self.merge_next(k);
                return true;
            } else if k > 0 && len - 1 + self.chunks[k - 1].len as usize <= MERGE_TO {
                self.merge_next(k - 1);
                return true;
            }
        }
        false
    }

    /// Appends chunk `k + 1`'s points to chunk `k` and drops chunk `k + 1`.
    fn merge_next(&mut self, k: usize) {
        let (a, b) = (self.chunks[k], self.chunks[k + 1]);
        let (sa, sb) = (a.slot as usize * CHUNK, b.slot as usize * CHUNK);
        let (la, lb) = (a.len as usize, b.len as usize);
        self.times.copy_within(sb..sb + lb, sa + la);
        let shift = b.delta - a.delta;
        let (mut lo, mut hi) = (a.min, a.max);
        for j in 0..lb {
            let l = self.levels[sb + j] + shift;
            self.levels[sa + la + j] = l;
            lo = lo.min(l);
            hi = hi.max(l);
        }
        let c = &mut self.chunks[k];
        c.len = (la + lb) as u32;
        c.last = b.last;
        c.min = lo;
        c.max = hi;
        self.free_slots.push(b.slot);
        self.chunks.remove(k + 1);
    }

    /// Drops the point at `pos` if the level does not change there; returns whether chunks
    /// were merged or removed (see [`remove_at`](Self::remove_at)).
    #[inline]
    fn drop_if_flat(&mut self, pos: Pos) -> bool {
        pos.0 < self.chunks.len()
            && self.level(pos) == self.level_before(pos)
            && self.remove_at(pos)
    }

    /// The position of the point at `t > now`, inserted (with the level already there) if
    /// absent, and what that took.
    fn split(&mut self, t: Time) -> (Pos, Split) {
        let pos = self.at_or_after(t);
        if pos.0 < self.chunks.len() && self.time(pos) == t {
            return (pos, Split::Found);
        }
        let level = self.level_before(pos);
        match self.insert_at(pos, t, level) {
            (pos, false) => (pos, Split::Inserted),
            (pos, true) => (pos, Split::Rechunked),
        }
    }

    // ---- updates ----

    /// Moves the present to `t ≥ now`, folding every change at or before `t`.
    pub fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.now, "time runs forward: {t} < {}", self.now);
        self.now = t;
        let (k, i) = self.after(t);
        if (k, i) == (0, 0) {
            return;
        }
        self.free_now = self.level_before((k, i));
        for c in &self.chunks[..k] {
            self.count -= c.len as usize;
            self.free_slots.push(c.slot);
        }
        self.chunks.drain(..k);
        if i > 0 {
            let c = &mut self.chunks[0];
            let (s, len) = (c.slot as usize * CHUNK, c.len as usize);
            c.len -= i as u32;
            self.count -= i;
            self.times.copy_within(s + i..s + len, s);
            self.levels.copy_within(s + i..s + len, s);
            self.rebound(0);
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
    /// `[start, end)`. The fit test rides on the update's own pass over the block's chunks,
    /// so a caller that must check a block before taking it (the simulator refusing an
    /// invalid reservation) pays no second sweep for the check.
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
        let from_now = s <= self.now;
        // The point at `e` first, then the one at `s` (which cannot move the one at `e`
        // across chunks unless it splits a chunk).
        let mut b = if e == Time::MAX {
            (self.chunks.len(), 0)
        } else {
            self.split(e).0
        };
        let a = if from_now {
            (0, 0)
        } else {
            let (a, split) = self.split(s);
            match split {
                Split::Found => {}
                Split::Inserted if e == Time::MAX => b.0 = self.chunks.len(),
                Split::Inserted => {
                    if a.0 == b.0 {
                        b.1 += 1;
                    }
                }
                Split::Rechunked if e == Time::MAX => b = (self.chunks.len(), 0),
                Split::Rechunked => b = self.at_or_after(e),
            }
            a
        };
        let mut low = i64::MAX;
        if from_now {
            self.free_now += delta;
            low = self.free_now;
        }
        if a.0 == b.0 {
            if a.1 < b.1 {
                low = low.min(self.add_points::<CHECK>(a.0, a.1, b.1, delta));
            }
        } else {
            // `a` is in a chunk (a.0 < b.0); add to its tail, the offsets of the chunks
            // between, and the head of `b`'s chunk.
            let ka = if a.1 == 0 {
                a.0
            } else {
                let len = self.chunks[a.0].len as usize;
                low = low.min(self.add_points::<CHECK>(a.0, a.1, len, delta));
                a.0 + 1
            };
            for c in &mut self.chunks[ka..b.0] {
                c.delta += delta;
                if CHECK {
                    low = low.min(c.min + c.delta);
                }
            }
            if b.1 > 0 {
                low = low.min(self.add_points::<CHECK>(b.0, 0, b.1, delta));
            }
        }
        // Only the two ends can have become non-changes. `b` first: dropping it leaves `a`
        // where it was unless chunks were merged or removed.
        let mut a = a;
        if e != Time::MAX && self.drop_if_flat(b) && !from_now {
            a = self.at_or_after(s);
        }
        if !from_now {
            self.drop_if_flat(a);
        }
        !CHECK || low >= 0
    }

    /// Adds `delta` to the stored levels of points `i..j` of chunk `k` and keeps its bounds
    /// exact; with `CHECK`, returns the smallest new real level among them.
    ///
    /// The bounds follow from the touched points alone unless the bound that moves *away*
    /// from `delta`'s direction (the maximum when taking processors, the minimum when giving
    /// them back) was attained only among them: then the untouched points are read too. The
    /// bound in `delta`'s direction is always `min`/`max` of the old bound and the touched
    /// points' new extreme. So a block in a long chunk costs its own points, as in the flat
    /// arrays, and not the chunk's.
    #[inline]
    fn add_points<const CHECK: bool>(&mut self, k: usize, i: usize, j: usize, delta: i64) -> i64 {
        let c = self.chunks[k];
        let s = c.slot as usize * CHUNK;
        let len = c.len as usize;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for l in &mut self.levels[s + i..s + j] {
            lo = lo.min(*l);
            hi = hi.max(*l);
            *l += delta;
        }
        let (lo, hi) = (lo + delta, hi + delta);
        let whole = i == 0 && j == len;
        let (min, max) = if whole {
            (lo, hi)
        } else if delta < 0 {
            let max = if hi - delta < c.max {
                c.max
            } else {
                self.untouched(s, len, i, j, hi, i64::max)
            };
            (c.min.min(lo), max)
        } else {
            let min = if lo - delta > c.min {
                c.min
            } else {
                self.untouched(s, len, i, j, lo, i64::min)
            };
            (min, c.max.max(hi))
        };
        let c = &mut self.chunks[k];
        c.min = min;
        c.max = max;
        if CHECK { lo + c.delta } else { i64::MAX }
    }

    /// Folds `f` over the stored levels of a chunk at `s` of `len` points outside `i..j`,
    /// starting from `acc`.
    #[inline]
    fn untouched(
        &self,
        s: usize,
        len: usize,
        i: usize,
        j: usize,
        acc: i64,
        f: impl Fn(i64, i64) -> i64,
    ) -> i64 {
        let levels = &self.levels[s..s + len];
        let acc = levels[..i].iter().copied().fold(acc, &f);
        levels[j..].iter().copied().fold(acc, &f)
    }

    // ---- queries ----

    /// Free processors at time `t ≥ now`.
    pub fn free_at(&self, t: Time) -> i64 {
        if t <= self.now {
            return self.free_now;
        }
        self.level_before(self.after(t))
    }

    /// The first point from `pos` on whose level is at least `p`, if it comes before `limit`.
    #[inline]
    fn find_at_least(&self, (mut k, mut i): Pos, p: i64, limit: Time) -> Option<Pos> {
        while k < self.chunks.len() {
            let c = &self.chunks[k];
            if c.max + c.delta >= p {
                let need = p - c.delta;
                if let Some(j) = self.clevels(k)[i..].iter().position(|&l| l >= need) {
                    let pos = (k, i + j);
                    return (self.time(pos) < limit).then_some(pos);
                }
            }
            if c.last >= limit {
                return None;
            }
            k += 1;
            i = 0;
        }
        None
    }

    /// The first point from `pos` on, before `end`, whose level is below `p`.
    #[inline]
    fn find_below(&self, (mut k, mut i): Pos, end: Time, p: i64) -> Option<Pos> {
        while k < self.chunks.len() {
            let c = &self.chunks[k];
            if c.min + c.delta >= p {
                // Nothing below `p` here.
                if c.last >= end {
                    return None;
                }
            } else {
                let need = p - c.delta;
                let (times, levels) = (self.ctimes(k), self.clevels(k));
                for j in i..times.len() {
                    if times[j] >= end {
                        return None;
                    }
                    if levels[j] < need {
                        return Some((k, j));
                    }
                }
            }
            k += 1;
            i = 0;
        }
        None
    }

    /// The first change time `k` with `lo < k < hi` at which the level drops below `p`.
    pub fn first_below(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        self.find_below(self.after(lo.max(self.now)), hi, p)
            .map(|pos| self.time(pos))
    }

    /// The first change time `k > lo` at which the level is at least `p`.
    pub fn first_at_least(&self, lo: Time, p: i64) -> Option<Time> {
        self.find_at_least(self.after(lo.max(self.now)), p, Time::MAX)
            .map(|pos| self.time(pos))
    }

    /// `lo` itself if the level there is below `p`, else [`first_below`](Self::first_below):
    /// the first instant of `[lo, hi)` with fewer than `p` free processors.
    pub fn first_below_from(&self, lo: Time, hi: Time, p: i64) -> Option<Time> {
        let lo = lo.max(self.now);
        if hi <= lo {
            return None;
        }
        let pos = self.after(lo);
        if self.level_before(pos) < p {
            return Some(lo);
        }
        self.find_below(pos, hi, p).map(|pos| self.time(pos))
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
        let mut t = from.max(self.now);
        let (mut k, mut i) = self.after(t);
        // One forward sweep, the flat layout's inside a chunk. `t` is the candidate start
        // when `open` (the level is at least `p` from `t` to the point before `(k, i)`, and
        // the window ends at `end`); otherwise the level is below `p` before `(k, i)`.
        let mut open = self.level_before((k, i)) >= p;
        let mut end = 0;
        if open {
            if t >= limit {
                return None;
            }
            end = t.saturating_add(dur);
        }
        while k < self.chunks.len() {
            let c = self.chunks[k];
            let need = p - c.delta;
            if i == 0 {
                // A chunk its bounds decide: no start in it, or no interruption of the window.
                if !open && c.max < need {
                    if c.last >= limit {
                        return None;
                    }
                    k += 1;
                    continue;
                }
                if open && c.min >= need {
                    if c.last >= end {
                        return Some(t);
                    }
                    k += 1;
                    continue;
                }
            }
            let s = c.slot as usize * CHUNK;
            let len = c.len as usize;
            let (times, levels) = (&self.times[s..s + len], &self.levels[s..s + len]);
            while i < len {
                if open {
                    while i < len && times[i] < end && levels[i] >= need {
                        i += 1;
                    }
                    if i == len {
                        break;
                    }
                    if times[i] >= end {
                        return Some(t);
                    }
                    open = false;
                    i += 1;
                } else {
                    let Some(j) = levels[i..].iter().position(|&l| l >= need) else {
                        break;
                    };
                    i += j;
                    t = times[i];
                    if t >= limit {
                        return None;
                    }
                    end = t.saturating_add(dur);
                    open = true;
                    i += 1;
                }
            }
            if !open && c.last >= limit {
                return None;
            }
            k += 1;
            i = 0;
        }
        // Past the last point the level stays where it is.
        open.then_some(t)
    }

    /// The first change time after `t`, if any: where a forward simulation with no arrivals
    /// has its next event (a scheduling round at a point where the level only falls can start
    /// nothing that could not start before it).
    pub fn next_change(&self, t: Time) -> Option<Time> {
        let pos = self.after(t.max(self.now));
        (pos.0 < self.chunks.len()).then(|| self.time(pos))
    }

    /// The minimum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn min_free(&self, a: Time, b: Time) -> i64 {
        self.fold_range(a, b, i64::MAX, |c| c.min, i64::min)
    }

    /// The maximum level over `[a, b)` (`a < b`, `a ≥ now`).
    pub fn max_free(&self, a: Time, b: Time) -> i64 {
        self.fold_range(a, b, i64::MIN, |c| c.max, i64::max)
    }

    /// Folds `f` over the level at `a` and the levels of the points strictly inside `(a, b)`,
    /// using a chunk's stored bound `bound` (`min` or `max`) for chunks wholly inside.
    #[inline]
    fn fold_range(
        &self,
        a: Time,
        b: Time,
        unit: i64,
        bound: impl Fn(&Chunk) -> i64,
        f: impl Fn(i64, i64) -> i64,
    ) -> i64 {
        let a = a.max(self.now);
        let (mut k, i) = self.after(a);
        let mut acc = self.level_before((k, i));
        let mut i = i;
        while k < self.chunks.len() {
            let c = &self.chunks[k];
            if i == 0 && c.last < b {
                acc = f(acc, bound(c) + c.delta);
            } else {
                let (times, levels) = (self.ctimes(k), self.clevels(k));
                let j = i + times[i..].partition_point(|&x| x < b);
                let part = levels[i..j].iter().copied().fold(unit, &f);
                if j > i {
                    acc = f(acc, part + c.delta);
                }
                if j < times.len() {
                    break;
                }
            }
            k += 1;
            i = 0;
        }
        acc
    }

    /// The steps `(time, level)` from `now` on: the first is `(now, free_now)`, then one per
    /// change time.
    pub fn steps(&self) -> Vec<(Time, i64)> {
        let mut out = Vec::with_capacity(self.count + 1);
        out.push((self.now, self.free_now));
        out.extend(self.points());
        out
    }

    /// Checks the profile's invariants (times increasing and after `now`, every point a real
    /// change, level within `[0, capacity]` everywhere, and the chunk directory consistent
    /// with the points); `Err` names the first violation. `O(n)`: for tests and debug checks.
    pub fn validate(&self) -> Result<(), String> {
        let mut slots: Vec<u32> = self.chunks.iter().map(|c| c.slot).collect();
        slots.extend_from_slice(&self.free_slots);
        slots.sort_unstable();
        if slots.windows(2).any(|w| w[0] == w[1])
            || slots.len() != self.times.len() / CHUNK
            || self.times.len() != self.levels.len()
        {
            return Err("chunk slots out of step with the arenas".to_string());
        }
        let mut total = 0;
        for (k, c) in self.chunks.iter().enumerate() {
            if c.len == 0 || c.len as usize > CHUNK {
                return Err(format!("chunk {k} holds {} points", c.len));
            }
            total += c.len as usize;
            let (times, levels) = (self.ctimes(k), self.clevels(k));
            if c.last != times[times.len() - 1] {
                return Err(format!("chunk {k}'s last time is stale"));
            }
            let lo = levels.iter().copied().min().unwrap_or(i64::MAX);
            let hi = levels.iter().copied().max().unwrap_or(i64::MIN);
            if (lo, hi) != (c.min, c.max) {
                return Err(format!("chunk {k}'s level bounds are stale"));
            }
        }
        if total != self.count {
            return Err(format!("{total} points in chunks, {} counted", self.count));
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
