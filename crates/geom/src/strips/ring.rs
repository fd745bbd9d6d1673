//! The circular queue of per-strip trees (Castillo §3.2.1: "a circular queue to record the tree
//! indices, and modulo-H arithmetic").

use crate::strip::StripId;

use super::MAX_RING_SLOTS as MAX_SLOTS;

/// Slots for the strips `[base, base + len)`; slot of strip `g` = `(head + g - base) mod len`.
/// Rotation by one strip is `O(1)`: the oldest slot is taken out and reused for the new last
/// strip.
#[derive(Debug, Clone)]
pub(crate) struct Ring<T> {
    slots: Vec<T>,
    head: usize,
    base: StripId,
}

impl<T: Default + Clone> Ring<T> {
    /// At least `len` empty slots (rounded up to a power of two, so that a slot is found by
    /// masking rather than by a division) starting at strip `base`.
    ///
    /// Panics if `len` is above [`MAX_RING_SLOTS`](super::MAX_RING_SLOTS): a look-ahead of too
    /// many strips (callers check `TreeConfig::ring_slots` first, as the reservation
    /// scheduler's configuration check does).
    pub(crate) fn new(len: usize, base: StripId) -> Self {
        assert!(
            len <= MAX_SLOTS,
            "a strip ring of {len} slots: the look-ahead spans more than {MAX_SLOTS} strips"
        );
        Ring {
            slots: vec![T::default(); len.max(1).next_power_of_two()],
            head: 0,
            base,
        }
    }

    /// First strip of the ring.
    pub(crate) fn base(&self) -> StripId {
        self.base
    }

    /// Number of slots.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// One past the last strip of the ring.
    pub(crate) fn end(&self) -> StripId {
        self.base + self.slots.len() as StripId
    }

    /// Moves an empty ring to start at `base` (used once, when the index is anchored).
    pub(crate) fn rebase_empty(&mut self, base: StripId) {
        self.base = base;
        self.head = 0;
    }

    #[inline]
    fn index(&self, g: StripId) -> usize {
        debug_assert!(g >= self.base && g < self.end());
        (self.head + (g - self.base) as usize) & (self.slots.len() - 1)
    }

    /// The slot of strip `g`, if `g` is in the ring.
    #[inline]
    pub(crate) fn get(&self, g: StripId) -> Option<&T> {
        (g >= self.base && g < self.end()).then(|| &self.slots[self.index(g)])
    }

    /// Mutable slot of strip `g`, growing the ring if `g` lies beyond its end.
    ///
    /// Panics if `g < base` (callers route past strips to their pool) or if the ring would
    /// have to grow beyond `MAX_SLOTS` slots.
    pub(crate) fn get_or_grow(&mut self, g: StripId) -> &mut T {
        assert!(
            g >= self.base,
            "strip {g} is before the ring base {}",
            self.base
        );
        if g >= self.end() {
            self.grow((g - self.base) as usize + 1);
        }
        let i = self.index(g);
        &mut self.slots[i]
    }

    /// Mutable slot of strip `g` if it is in the ring.
    pub(crate) fn get_mut(&mut self, g: StripId) -> Option<&mut T> {
        if g >= self.base && g < self.end() {
            let i = self.index(g);
            Some(&mut self.slots[i])
        } else {
            None
        }
    }

    /// Grows (by doubling) to at least `need` slots, keeping every strip in its place. `O(len)`.
    fn grow(&mut self, need: usize) {
        let mut len = self.slots.len();
        while len < need {
            len *= 2;
        }
        assert!(
            len <= MAX_SLOTS,
            "an idle period lies {need} strips after the current one: the index's look-ahead \
             (ring of {} slots) is far too small for this schedule",
            self.slots.len()
        );
        let mut slots = Vec::with_capacity(len);
        for i in 0..self.slots.len() {
            let j = (self.head + i) % self.slots.len();
            slots.push(std::mem::take(&mut self.slots[j]));
        }
        slots.resize(len, T::default());
        self.slots = slots;
        self.head = 0;
    }

    /// Rotates until `base >= new_base`, handing each slot taken out (with its strip id) to
    /// `empty`, which must leave it empty: the slot is then reused, as it is, for the new last
    /// strip (so a slot's allocations survive the rotation). `O(min(new_base - base, len))`.
    pub(crate) fn advance_to(&mut self, new_base: StripId, mut empty: impl FnMut(StripId, &mut T)) {
        let mut steps = 0;
        while self.base < new_base && steps < self.slots.len() {
            empty(self.base, &mut self.slots[self.head]);
            self.head = (self.head + 1) & (self.slots.len() - 1);
            self.base += 1;
            steps += 1;
        }
        // Every slot has been emptied: jump.
        if self.base < new_base {
            self.base = new_base;
        }
    }

    /// The slots of strips `lo..=hi` (clamped to the ring) with their strips, in strip order;
    /// double-ended, so `.rev()` walks them downwards. Two contiguous slices, no per-strip
    /// index arithmetic.
    pub(crate) fn range(
        &self,
        lo: StripId,
        hi: StripId,
    ) -> impl DoubleEndedIterator<Item = (StripId, &T)> + '_ {
        let lo = lo.max(self.base);
        let hi = hi.min(self.end() - 1);
        let (first, count) = if lo > hi {
            (0, 0)
        } else {
            ((lo - self.base) as usize, (hi - lo) as usize + 1)
        };
        let n = self.slots.len();
        let start = (self.head + first) & (n - 1);
        let head_len = count.min(n - start);
        let a = &self.slots[start..start + head_len];
        let b = &self.slots[..count - head_len];
        let mid = lo + head_len as StripId;
        let a = a
            .iter()
            .enumerate()
            .map(move |(i, t)| (lo + i as StripId, t));
        let b = b
            .iter()
            .enumerate()
            .map(move |(i, t)| (mid + i as StripId, t));
        a.chain(b)
    }

    /// All slots with their strips, in strip order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (StripId, &T)> + '_ {
        (0..self.slots.len()).map(move |i| {
            (
                self.base + i as StripId,
                &self.slots[(self.head + i) & (self.slots.len() - 1)],
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rotates to `new_base`, returning the non-zero slots taken out (and zeroing them).
    fn take_out(r: &mut Ring<u32>, new_base: StripId) -> Vec<(StripId, u32)> {
        let mut out = Vec::new();
        r.advance_to(new_base, |g, x| {
            if *x != 0 {
                out.push((g, std::mem::take(x)));
            }
        });
        out
    }

    #[test]
    fn rotation_and_growth_keep_strips() {
        let mut r: Ring<u32> = Ring::new(3, 10);
        assert_eq!(r.len(), 4);
        *r.get_or_grow(10) = 1;
        *r.get_or_grow(12) = 3;
        assert_eq!(take_out(&mut r, 11), vec![(10, 1)]);
        assert_eq!(r.base(), 11);
        assert_eq!(r.end(), 15);
        *r.get_or_grow(13) = 4;
        *r.get_or_grow(16) = 7; // grows to 8 slots
        assert_eq!(r.len(), 8);
        let got: Vec<(StripId, u32)> = r.iter().map(|(g, x)| (g, *x)).collect();
        assert_eq!(
            got,
            vec![
                (11, 0),
                (12, 3),
                (13, 4),
                (14, 0),
                (15, 0),
                (16, 7),
                (17, 0),
                (18, 0)
            ]
        );
        let range: Vec<(StripId, u32)> = r.range(12, 16).map(|(g, x)| (g, *x)).collect();
        assert_eq!(range, vec![(12, 3), (13, 4), (14, 0), (15, 0), (16, 7)]);
        let back: Vec<StripId> = r.range(0, 100).rev().map(|(g, _)| g).collect();
        assert_eq!(back, (11..=18).rev().collect::<Vec<_>>());
        assert_eq!(r.range(17, 12).count(), 0);
        assert_eq!(take_out(&mut r, 100), vec![(12, 3), (13, 4), (16, 7)]);
        assert_eq!(r.base(), 100);
        assert!(r.iter().all(|(_, x)| *x == 0));
        assert_eq!(r.get(99), None);
        assert_eq!(r.get(105), Some(&0));
    }
}
