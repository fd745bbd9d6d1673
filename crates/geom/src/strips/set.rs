//! The periods of one strip: a sorted vector while the strip is small, an augmented AVL tree
//! of the shared arena ([`Forest`]) once it is large.
//!
//! Most strips hold a handful of periods (at `n = 20` servers and strips of width `2 l_min`,
//! about five): for them a sorted vector is faster than any tree — its queries are short
//! linear scans of contiguous memory and its updates shift a few elements. A strip that grows
//! past [`SMALL_MAX`] periods moves into the thesis's augmented balanced tree, and moves back
//! when it falls to [`SMALL_BACK`] (the hysteresis keeps a strip that oscillates around one
//! size from converting at every update).
//!
//! A set built with [`StripSet::chunked`] (the global indexes' sets of *all* live periods, a
//! few hundred to a thousand at `n = 20`) uses sorted runs of at most [`CHUNK_MAX`] keys, each
//! with its summary, instead of the single vector, up to [`CHUNKED_MAX`] keys, and the tree
//! beyond (back in runs at [`CHUNKED_BACK`]).
//!
//! Every query has the same answer in every form: it is defined by the keys, their order and
//! the same predicates. The visits counted differ: tree nodes, or keys and run headers read.

use crate::tree::{Forest, NIL, NoBound, NodeId, Summary};

/// A strip larger than this lives in an AVL tree...
pub(crate) const SMALL_MAX: usize = 16;
/// ...until it falls back to this size.
pub(crate) const SMALL_BACK: usize = 8;

/// A chunked set's chunk that grows past this splits in two. (The chunked form's sizes are
/// small under `cfg(test)`, so that the unit tests split chunks and change forms often.)
pub(crate) const CHUNK_MAX: usize = if cfg!(test) { 4 } else { 32 };
/// A chunked set larger than this lives in an AVL tree...
pub(crate) const CHUNKED_MAX: usize = if cfg!(test) { 24 } else { 4096 };
/// ...until it falls back to this size.
pub(crate) const CHUNKED_BACK: usize = if cfg!(test) { 12 } else { 2048 };

/// A run of consecutive keys of a chunked set, with its summary.
#[derive(Debug, Clone)]
struct Chunk<K, S> {
    /// The run's last key, a copy kept beside the summary so that locating a key's chunk
    /// reads the chunk headers only (one contiguous array), not every run's heap block.
    last: K,
    sum: S,
    keys: Vec<K>,
}

impl<K: Copy, S: Summary<K>> Chunk<K, S> {
    fn new(keys: Vec<K>) -> Self {
        Chunk {
            last: keys[keys.len() - 1],
            sum: fold(&keys),
            keys,
        }
    }

    /// Recomputes `last` and `sum` after a change of `keys` (non-empty).
    #[inline]
    fn refresh(&mut self) {
        self.last = self.keys[self.keys.len() - 1];
        self.sum = fold(&self.keys);
    }
}

/// One strip's set of keys (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct StripSet<K, S> {
    /// The keys in increasing order, while the set is small (`root == NIL`, not chunked).
    small: Vec<K>,
    /// Summary of `small` (`None` if it is empty), kept up to date.
    small_sum: Option<S>,
    /// Whether the set is kept in chunks rather than in `small` while it is not a tree
    /// ([`StripSet::chunked`]).
    chunked: bool,
    /// The keys in increasing order in runs of at most [`CHUNK_MAX`], none empty, while the
    /// set is chunked and not a tree.
    chunks: Vec<Chunk<K, S>>,
    /// The chunked form's summary of every key, computed when asked and forgotten by a
    /// removal (`None` inside: the set is empty).
    total: std::cell::OnceCell<Option<S>>,
    /// The AVL tree, while the set is large.
    root: NodeId,
    len: u32,
}

impl<K, S> Default for StripSet<K, S> {
    fn default() -> Self {
        StripSet {
            small: Vec::new(),
            small_sum: None,
            chunked: false,
            chunks: Vec::new(),
            total: std::cell::OnceCell::new(),
            root: NIL,
            len: 0,
        }
    }
}

impl<K, S> StripSet<K, S> {
    /// An empty set kept in chunks of at most [`CHUNK_MAX`] keys, each with its summary, up to
    /// [`CHUNKED_MAX`] keys, and in an AVL tree beyond: what one set of *all* live periods
    /// (the global indexes) is at the thesis's sizes, a few hundred periods. A query tests
    /// chunk summaries in order and scans one or two chunks of contiguous keys; an update
    /// shifts and re-summarizes one chunk — much cheaper at that size than a tree's descents
    /// and rebalancing. The summary must not depend on the order of the keys it combines
    /// (`combine` commutative and associative, as the latest / earliest / longest summaries
    /// are): an insertion combines the new key into its chunk's summary.
    pub(crate) fn chunked() -> Self {
        StripSet {
            chunked: true,
            ..StripSet::default()
        }
    }
}

impl<K: Ord + Copy, S: Summary<K> + Copy> StripSet<K, S> {
    /// Number of keys.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Whether the set is held in an AVL tree (rather than a vector).
    #[inline]
    pub(crate) fn is_tree(&self) -> bool {
        self.root != NIL
    }

    /// Whether the set is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The summary of the whole set (`O(1)`).
    #[inline]
    pub(crate) fn summary<'a>(&'a self, forest: &'a Forest<K, S>) -> Option<&'a S> {
        if self.root != NIL {
            forest.summary(self.root)
        } else if self.chunked {
            self.total
                .get_or_init(|| {
                    self.chunks
                        .iter()
                        .map(|c| c.sum)
                        .reduce(|a, b| S::combine(&a, &b))
                })
                .as_ref()
        } else {
            self.small_sum.as_ref()
        }
    }

    fn resum(&mut self) {
        self.small_sum = (!self.small.is_empty()).then(|| fold(&self.small));
    }

    /// Inserts `key`; `false` if an equal key is present.
    pub(crate) fn insert(&mut self, forest: &mut Forest<K, S>, key: K) -> bool {
        if self.root != NIL {
            if !forest.insert(&mut self.root, key) {
                return false;
            }
        } else if self.chunked {
            if !self.chunk_insert(forest, key) {
                return false;
            }
        } else {
            forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
            let Err(i) = self.small.binary_search(&key) else {
                return false;
            };
            self.small.insert(i, key);
            if self.small.len() > SMALL_MAX {
                self.root = forest.build_sorted(&self.small);
                self.small.clear();
                self.small_sum = None;
            } else {
                self.resum();
            }
        }
        self.len += 1;
        if self.chunked && self.root == NIL && self.len as usize > CHUNKED_MAX {
            let keys: Vec<K> = self.chunks.drain(..).flat_map(|c| c.keys).collect();
            self.total = std::cell::OnceCell::new();
            self.root = forest.build_sorted(&keys);
        }
        true
    }

    /// After a removal from the tree: back to chunks (or to the vector) once small enough.
    fn after_tree_removal(&mut self, forest: &mut Forest<K, S>) {
        let left = self.len as usize - 1;
        if self.chunked {
            if left <= CHUNKED_BACK {
                let keys = forest.drain(&mut self.root);
                self.chunks = keys
                    .chunks(CHUNK_MAX / 2)
                    .map(|run| Chunk::new(run.to_vec()))
                    .collect();
                self.total = std::cell::OnceCell::new();
            }
        } else if left <= SMALL_BACK {
            self.small = forest.drain(&mut self.root);
            self.resum();
        }
    }

    /// Removes and returns the key equal to `key`.
    pub(crate) fn remove(&mut self, forest: &mut Forest<K, S>, key: &K) -> Option<K> {
        let out = if self.root != NIL {
            let out = forest.remove(&mut self.root, key)?;
            self.after_tree_removal(forest);
            out
        } else if self.chunked {
            let (c, found) = self.chunk_locate(forest, key)?;
            self.chunk_remove_at(c, found.ok()?)?
        } else {
            forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
            let i = self.small.binary_search(key).ok()?;
            let out = self.small.remove(i);
            self.resum();
            out
        };
        self.len -= 1;
        Some(out)
    }

    /// Removes and returns the first key satisfying `pred` (`sub` as in
    /// [`StripSet::first_in`] without bounds). Same result, set and visits as `first_in`
    /// followed by `remove` of the key found, with one search instead of two.
    pub(crate) fn remove_first<B, P>(
        &mut self,
        forest: &mut Forest<K, S>,
        sub: &B,
        pred: &P,
    ) -> Option<K>
    where
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        let out = if self.root != NIL {
            let out = forest.remove_first(&mut self.root, sub, pred)?;
            self.after_tree_removal(forest);
            out
        } else if self.chunked {
            let (c, i) =
                self.chunk_find_first(forest, None::<&NoBound<K>>, None::<&NoBound<K>>, sub, pred)?;
            self.chunk_remove_at(c, i)?
        } else {
            if !self.small_sum.as_ref().is_some_and(sub) {
                forest.add_visits(1);
                return None;
            }
            let Some(i) = self.small.iter().position(pred) else {
                forest.add_visits(self.small.len() as u64);
                return None;
            };
            // The scan's visits, then the binary search's of `remove`.
            forest.add_visits(i as u64 + 1);
            forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
            let out = self.small.remove(i);
            self.resum();
            out
        };
        self.len -= 1;
        Some(out)
    }

    /// Removes and returns the smallest key if `take` holds for it. Same result, set and
    /// visits as `first` followed (if `take` holds) by `remove` of that key.
    pub(crate) fn pop_first_if<T>(&mut self, forest: &mut Forest<K, S>, take: T) -> Option<K>
    where
        T: Fn(&K) -> bool,
    {
        let out = if self.root != NIL {
            let out = forest.pop_first_if(&mut self.root, take)?;
            self.after_tree_removal(forest);
            out
        } else if self.chunked {
            if !take(self.chunks.first()?.keys.first()?) {
                return None;
            }
            forest.add_visits(1);
            self.chunk_remove_at(0, 0)?
        } else {
            if !take(self.small.first()?) {
                return None;
            }
            forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
            let out = self.small.remove(0);
            self.resum();
            out
        };
        self.len -= 1;
        Some(out)
    }

    /// Replaces the key equal to `old` by `new` in place if `new` has the same rank (see
    /// [`Forest::replace`]); returns whether it did.
    pub(crate) fn replace(&mut self, forest: &mut Forest<K, S>, old: &K, new: K) -> bool {
        if self.root != NIL {
            return forest.replace(self.root, old, new);
        }
        if self.chunked {
            return self.chunk_replace(forest, old, new);
        }
        forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
        let Ok(i) = self.small.binary_search(old) else {
            return false;
        };
        if (i > 0 && self.small[i - 1] >= new) || self.small.get(i + 1).is_some_and(|k| *k <= new) {
            return false;
        }
        self.small[i] = new;
        self.resum();
        true
    }

    /// The stored key equal to `key`.
    pub(crate) fn get(&self, forest: &Forest<K, S>, key: &K) -> Option<K> {
        if self.root != NIL {
            return forest.get(self.root, key).map(|id| *forest.key(id));
        }
        if self.chunked {
            let (c, found) = self.chunk_locate(forest, key)?;
            return found.ok().map(|i| self.chunks[c].keys[i]);
        }
        forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
        self.small.binary_search(key).ok().map(|i| self.small[i])
    }

    /// The smallest key.
    pub(crate) fn first(&self, forest: &Forest<K, S>) -> Option<K> {
        if self.root != NIL {
            forest.first(self.root).copied()
        } else if self.chunked {
            self.chunks.first().map(|c| c.keys[0])
        } else {
            self.small.first().copied()
        }
    }

    /// Empties the set, keeping its vector's capacity; returns how many keys it held.
    pub(crate) fn clear(&mut self, forest: &mut Forest<K, S>) -> usize {
        let n = self.len as usize;
        self.len = 0;
        self.small_sum = None;
        self.total = std::cell::OnceCell::new();
        forest.clear(&mut self.root);
        self.chunks.clear();
        self.small.clear();
        n
    }

    /// Appends every key to `out` in order and empties the set, keeping its vector's capacity
    /// (a ring slot is emptied at every rotation and refilled as a new strip: reusing the
    /// vector keeps the rotation free of allocations).
    pub(crate) fn drain_into(&mut self, forest: &mut Forest<K, S>, out: &mut Vec<K>) {
        self.len = 0;
        self.small_sum = None;
        self.total = std::cell::OnceCell::new();
        if self.root != NIL {
            out.extend(forest.iter(self.root).copied());
            forest.clear(&mut self.root);
        } else if self.chunked {
            out.extend(self.chunks.drain(..).flat_map(|c| c.keys));
        } else {
            out.append(&mut self.small);
        }
    }

    /// The keys in order.
    pub(crate) fn iter<'a>(&'a self, forest: &'a Forest<K, S>) -> impl Iterator<Item = &'a K> {
        self.small
            .iter()
            .chain(self.chunks.iter().flat_map(|c| c.keys.iter()))
            .chain(forest.iter(self.root))
    }

    /// The first key in the range (`lo`/`hi`: monotone bounds) satisfying `pred`; `sub` as in
    /// [`Forest::first_in`].
    pub(crate) fn first_in<L, H, B, P>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<K>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if self.root != NIL {
            return forest
                .first_in(self.root, lo, hi, sub, pred)
                .map(|id| *forest.key(id));
        }
        if self.chunked {
            return self
                .chunk_find_first(forest, lo, hi, sub, pred)
                .map(|(c, i)| self.chunks[c].keys[i]);
        }
        if lo.is_none() && hi.is_none() && !self.small_sum.as_ref().is_some_and(sub) {
            forest.add_visits(1);
            return None;
        }
        let mut seen = 0;
        let mut hit = None;
        for k in &self.small {
            seen += 1;
            if lo.is_some_and(|f| !f(k)) {
                continue;
            }
            if hi.is_some_and(|f| !f(k)) {
                break;
            }
            if pred(k) {
                hit = Some(*k);
                break;
            }
        }
        forest.add_visits(seen);
        hit
    }

    /// Mirror of [`StripSet::first_in`]: the last key in the range satisfying `pred`.
    pub(crate) fn last_in<L, H, B, P>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<K>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if self.root != NIL {
            return forest
                .last_in(self.root, lo, hi, sub, pred)
                .map(|id| *forest.key(id));
        }
        if self.chunked {
            return self.chunk_last_in(forest, lo, hi, sub, pred);
        }
        if lo.is_none() && hi.is_none() && !self.small_sum.as_ref().is_some_and(sub) {
            forest.add_visits(1);
            return None;
        }
        let mut seen = 0;
        let mut hit = None;
        for k in self.small.iter().rev() {
            seen += 1;
            if hi.is_some_and(|f| !f(k)) {
                continue;
            }
            if lo.is_some_and(|f| !f(k)) {
                break;
            }
            if pred(k) {
                hit = Some(*k);
                break;
            }
        }
        forest.add_visits(seen);
        hit
    }

    /// The combined summary of the keys in the range (`None` if it is empty).
    pub(crate) fn fold_in<L, H>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
    ) -> Option<S>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
    {
        if self.root != NIL {
            return forest.fold_in(self.root, lo, hi);
        }
        if self.chunked {
            return self.chunk_fold_in(forest, lo, hi);
        }
        if lo.is_none() && hi.is_none() {
            forest.add_visits(1);
            return self.small_sum;
        }
        let mut seen = 0;
        let mut acc: Option<S> = None;
        for k in &self.small {
            seen += 1;
            if lo.is_some_and(|f| !f(k)) {
                continue;
            }
            if hi.is_some_and(|f| !f(k)) {
                break;
            }
            let s = S::of(k);
            acc = Some(match acc {
                Some(a) => S::combine(&a, &s),
                None => s,
            });
        }
        forest.add_visits(seen);
        acc
    }

    /// Calls `f` on every key in the range satisfying `pred`, in order (`sub` as in
    /// [`Forest::for_each_in`]).
    pub(crate) fn for_each_in<L, H, B, P, F>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
        f: &mut F,
    ) where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
        F: FnMut(&K) + ?Sized,
    {
        if self.root != NIL {
            return forest.for_each_in(self.root, lo, hi, sub, pred, f);
        }
        if self.chunked {
            self.chunk_scan(forest, lo, hi, sub, pred, |k| {
                f(k);
                false
            });
            return;
        }
        if lo.is_none() && hi.is_none() && !self.small_sum.as_ref().is_some_and(sub) {
            forest.add_visits(1);
            return;
        }
        let mut seen = 0;
        for k in &self.small {
            seen += 1;
            if lo.is_some_and(|g| !g(k)) {
                continue;
            }
            if hi.is_some_and(|g| !g(k)) {
                break;
            }
            if pred(k) {
                f(k);
            }
        }
        forest.add_visits(seen);
    }
}

/// The summary of a non-empty run of keys.
#[inline]
fn fold<K, S: Summary<K>>(keys: &[K]) -> S {
    let mut acc = S::of(&keys[0]);
    for k in &keys[1..] {
        acc = S::combine(&acc, &S::of(k));
    }
    acc
}

/// The chunked form's operations (see [`StripSet::chunked`]). Visits count the chunks whose
/// bounds or summary a query tests, the keys it reads, and `1 + log2` per binary search.
impl<K: Ord + Copy, S: Summary<K> + Copy> StripSet<K, S> {
    /// The chunk that holds `key` or would receive it, and the key's position in it; `None`
    /// if the set is empty.
    #[inline]
    fn chunk_locate(
        &self,
        forest: &Forest<K, S>,
        key: &K,
    ) -> Option<(usize, Result<usize, usize>)> {
        let n = self.chunks.len();
        if n == 0 {
            forest.add_visits(1);
            return None;
        }
        let c = self.chunks.partition_point(|ch| ch.last < *key).min(n - 1);
        let keys = &self.chunks[c].keys;
        forest.add_visits(2 + u64::from(n.ilog2()) + u64::from(keys.len().ilog2()));
        Some((c, keys.binary_search(key)))
    }

    fn chunk_insert(&mut self, forest: &mut Forest<K, S>, key: K) -> bool {
        let Some((c, found)) = self.chunk_locate(forest, &key) else {
            let mut keys = Vec::with_capacity(CHUNK_MAX + 1);
            keys.push(key);
            self.chunks.push(Chunk::new(keys));
            self.total = std::cell::OnceCell::new();
            return true;
        };
        let Err(i) = found else {
            return false;
        };
        let one = S::of(&key);
        let chunk = &mut self.chunks[c];
        chunk.keys.insert(i, key);
        chunk.sum = S::combine(&chunk.sum, &one);
        if i + 1 == chunk.keys.len() {
            chunk.last = key;
        }
        if let Some(Some(total)) = self.total.get_mut() {
            *total = S::combine(total, &one);
        }
        if chunk.keys.len() > CHUNK_MAX {
            // Room for the right half to grow back to a full chunk without reallocating.
            let mut right = Vec::with_capacity(CHUNK_MAX + 1);
            right.extend(chunk.keys.drain(CHUNK_MAX / 2..));
            chunk.refresh();
            self.chunks.insert(c + 1, Chunk::new(right));
        }
        true
    }

    /// Removes and returns the key at position `i` of chunk `c`.
    fn chunk_remove_at(&mut self, c: usize, i: usize) -> Option<K> {
        let chunk = &mut self.chunks[c];
        let out = chunk.keys.remove(i);
        if chunk.keys.is_empty() {
            self.chunks.remove(c);
        } else {
            chunk.refresh();
        }
        self.total = std::cell::OnceCell::new();
        Some(out)
    }

    fn chunk_replace(&mut self, forest: &mut Forest<K, S>, old: &K, new: K) -> bool {
        let Some((c, Ok(i))) = self.chunk_locate(forest, old) else {
            return false;
        };
        let keys = &self.chunks[c].keys;
        let before = if i > 0 {
            Some(&keys[i - 1])
        } else {
            c.checked_sub(1).map(|p| &self.chunks[p].last)
        };
        let after = keys
            .get(i + 1)
            .or_else(|| self.chunks.get(c + 1).map(|ch| &ch.keys[0]));
        if before.is_some_and(|k| *k >= new) || after.is_some_and(|k| *k <= new) {
            return false;
        }
        let chunk = &mut self.chunks[c];
        chunk.keys[i] = new;
        chunk.refresh();
        self.total = std::cell::OnceCell::new();
        true
    }

    /// The first chunk that may hold a key satisfying `lo` (`lo` holds on a suffix).
    #[inline]
    fn chunk_from<L>(&self, lo: Option<&L>, seen: &mut u64) -> usize
    where
        L: Fn(&K) -> bool + ?Sized,
    {
        match lo {
            Some(f) => {
                *seen += 1 + u64::from(self.chunks.len().max(1).ilog2());
                self.chunks.partition_point(|ch| !f(&ch.last))
            }
            None => 0,
        }
    }

    /// One past the last chunk that may hold a key satisfying `hi` (`hi` holds on a prefix).
    #[inline]
    fn chunk_until<H>(&self, hi: Option<&H>, seen: &mut u64) -> usize
    where
        H: Fn(&K) -> bool + ?Sized,
    {
        match hi {
            Some(f) => {
                *seen += 1 + u64::from(self.chunks.len().max(1).ilog2());
                self.chunks.partition_point(|ch| f(&ch.keys[0]))
            }
            None => self.chunks.len(),
        }
    }

    /// Visits the keys of the range satisfying `pred` in order until `visit` returns `true`,
    /// and returns where it stopped (chunk, index). A chunk whose summary fails `sub` holds no
    /// such key (`sub` is implied by `pred`) and is skipped. The one forward search behind
    /// `first_in`, `remove_first` and `for_each_in`.
    fn chunk_scan<L, H, B, P>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
        mut visit: impl FnMut(&K) -> bool,
    ) -> Option<(usize, usize)>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        let mut seen = 0;
        let (a, b) = (
            self.chunk_from(lo, &mut seen),
            self.chunk_until(hi, &mut seen),
        );
        let mut hit = None;
        'chunks: for c in a..b {
            seen += 1;
            let chunk = &self.chunks[c];
            if !sub(&chunk.sum) {
                continue;
            }
            for (i, k) in chunk.keys.iter().enumerate() {
                seen += 1;
                if lo.is_some_and(|f| !f(k)) {
                    continue;
                }
                if hi.is_some_and(|f| !f(k)) {
                    break 'chunks;
                }
                if pred(k) && visit(k) {
                    hit = Some((c, i));
                    break 'chunks;
                }
            }
        }
        forest.add_visits(seen.max(1));
        hit
    }

    /// Position (chunk, index) of the first key in the range satisfying `pred`.
    #[inline]
    fn chunk_find_first<L, H, B, P>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<(usize, usize)>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if self.chunks.is_empty() {
            forest.add_visits(1);
            return None;
        }
        self.chunk_scan(forest, lo, hi, sub, pred, |_| true)
    }

    fn chunk_last_in<L, H, B, P>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<K>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if self.chunks.is_empty() {
            forest.add_visits(1);
            return None;
        }
        let mut seen = 0;
        let (a, b) = (
            self.chunk_from(lo, &mut seen),
            self.chunk_until(hi, &mut seen),
        );
        let mut hit = None;
        'chunks: for c in (a..b).rev() {
            seen += 1;
            let chunk = &self.chunks[c];
            if !sub(&chunk.sum) {
                continue;
            }
            for k in chunk.keys.iter().rev() {
                seen += 1;
                if hi.is_some_and(|f| !f(k)) {
                    continue;
                }
                if lo.is_some_and(|f| !f(k)) {
                    break 'chunks;
                }
                if pred(k) {
                    hit = Some(*k);
                    break 'chunks;
                }
            }
        }
        forest.add_visits(seen);
        hit
    }

    fn chunk_fold_in<L, H>(
        &self,
        forest: &Forest<K, S>,
        lo: Option<&L>,
        hi: Option<&H>,
    ) -> Option<S>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
    {
        let mut seen = 0;
        let (a, b) = (
            self.chunk_from(lo, &mut seen),
            self.chunk_until(hi, &mut seen),
        );
        let mut acc: Option<S> = None;
        let mut add = |s: S| {
            acc = Some(match acc {
                Some(x) => S::combine(&x, &s),
                None => s,
            });
        };
        for chunk in &self.chunks[a..b] {
            seen += 1;
            if lo.is_none_or(|f| f(&chunk.keys[0])) && hi.is_none_or(|f| f(&chunk.last)) {
                add(chunk.sum);
                continue;
            }
            for k in &chunk.keys {
                seen += 1;
                if lo.is_some_and(|f| !f(k)) {
                    continue;
                }
                if hi.is_some_and(|f| !f(k)) {
                    break;
                }
                add(S::of(k));
            }
        }
        forest.add_visits(seen.max(1));
        acc
    }
}

impl<K, S> StripSet<K, S>
where
    K: Ord + Copy + std::fmt::Debug,
    S: Summary<K> + Copy + PartialEq + std::fmt::Debug,
{
    /// Checks the representation (sorted vector with an exact summary while small, a valid
    /// tree while large, a consistent length); returns the number of keys.
    pub(crate) fn check(&self, forest: &Forest<K, S>) -> Result<usize, String> {
        let n = if self.root != NIL {
            if !self.small.is_empty() || !self.chunks.is_empty() {
                return Err("a large strip also keeps a vector".into());
            }
            let n = forest.check(self.root)?;
            if n <= if self.chunked {
                CHUNKED_BACK
            } else {
                SMALL_BACK
            } {
                return Err(format!("a strip of {n} periods kept as a tree"));
            }
            n
        } else if self.chunked {
            if !self.small.is_empty() {
                return Err("a chunked set also keeps a vector".into());
            }
            let keys: Vec<K> = self
                .chunks
                .iter()
                .flat_map(|c| c.keys.iter().copied())
                .collect();
            if keys.windows(2).any(|w| w[0] >= w[1]) {
                return Err("chunked set out of order".into());
            }
            for chunk in &self.chunks {
                if chunk.keys.is_empty() || chunk.keys.len() > CHUNK_MAX {
                    return Err(format!("a chunk of {} keys", chunk.keys.len()));
                }
                if chunk.last != chunk.keys[chunk.keys.len() - 1] {
                    return Err("a chunk's last key is stale".into());
                }
                let want: S = fold(&chunk.keys);
                if want != chunk.sum {
                    return Err(format!("chunk summary {:?}, expected {want:?}", chunk.sum));
                }
            }
            if let Some(total) = self.total.get() {
                let want = (!keys.is_empty()).then(|| fold::<K, S>(&keys));
                if *total != want {
                    return Err(format!("chunked total {total:?}, expected {want:?}"));
                }
            }
            if keys.len() > CHUNKED_MAX {
                return Err(format!("a chunked set of {} keys", keys.len()));
            }
            keys.len()
        } else {
            if self.small.windows(2).any(|w| w[0] >= w[1]) {
                return Err("small strip out of order".into());
            }
            if self.small.len() > SMALL_MAX {
                return Err(format!(
                    "a strip of {} periods kept as a vector",
                    self.small.len()
                ));
            }
            let want = (!self.small.is_empty()).then(|| fold::<K, S>(&self.small));
            if want != self.small_sum {
                return Err(format!(
                    "small strip summary {:?}, expected {want:?}",
                    self.small_sum
                ));
            }
            self.small.len()
        };
        if n != self.len as usize {
            return Err(format!("strip length {} but {n} keys", self.len));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Key = (k, v) ordered by k only; summary = (max v, count).
    #[derive(Debug, Clone, Copy)]
    struct Key(u16, u16);

    impl PartialEq for Key {
        fn eq(&self, o: &Self) -> bool {
            (self.0, self.1) == (o.0, o.1)
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Key {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.cmp(&o.0)
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Sum(u16, u32);

    impl Summary<Key> for Sum {
        fn of(k: &Key) -> Self {
            Sum(k.1, 1)
        }
        fn combine(a: &Self, b: &Self) -> Self {
            Sum(a.0.max(b.0), a.1 + b.1)
        }
        fn unchanged(a: &Self, b: &Self) -> bool {
            a == b
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u16, u16),
        Remove(u16),
        Query(u16, u16, u16),
        /// Replace the key at `.0` by `(.1, .2)` (refused unless it keeps its rank).
        Replace(u16, u16, u16),
        PopFirstIf(u16),
        RemoveFirst(u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => (0..60u16, 0..100u16).prop_map(|(k, v)| Op::Insert(k, v)),
            4 => (0..60u16).prop_map(Op::Remove),
            3 => (0..64u16, 0..64u16, 0..100u16).prop_map(|(a, b, t)| Op::Query(a, b, t)),
            2 => (0..60u16, 0..60u16, 0..100u16).prop_map(|(k, n, v)| Op::Replace(k, n, v)),
            1 => (0..100u16).prop_map(Op::PopFirstIf),
            1 => (0..100u16).prop_map(Op::RemoveFirst),
        ]
    }

    /// Every query of a set agrees with a `BTreeMap` oracle while the set crosses the
    /// vector / tree thresholds in both directions.
    fn run(ops: &[Op], chunked: bool) {
        let mut forest: Forest<Key, Sum> = Forest::new();
        let mut set: StripSet<Key, Sum> = if chunked {
            StripSet::chunked()
        } else {
            StripSet::default()
        };
        let mut oracle: BTreeMap<u16, u16> = BTreeMap::new();
        for op in ops {
            match *op {
                Op::Insert(k, v) => {
                    let fresh = !oracle.contains_key(&k);
                    if fresh {
                        oracle.insert(k, v);
                    }
                    assert_eq!(set.insert(&mut forest, Key(k, v)), fresh);
                }
                Op::Remove(k) => {
                    let want = oracle.remove(&k).map(|v| Key(k, v));
                    assert_eq!(set.remove(&mut forest, &Key(k, 0)), want);
                }
                Op::Replace(k, n, v) => {
                    let old = oracle.get(&k).map(|v| Key(k, *v));
                    let before = oracle.range(..k).next_back().map(|(a, _)| *a);
                    let after = oracle.range(k + 1..).next().map(|(a, _)| *a);
                    let fits = old.is_some()
                        && before.is_none_or(|b| b < n)
                        && after.is_none_or(|a| a > n);
                    let probe = old.unwrap_or(Key(k, 0));
                    assert_eq!(set.replace(&mut forest, &probe, Key(n, v)), fits);
                    if fits {
                        oracle.remove(&k);
                        oracle.insert(n, v);
                    }
                    assert_eq!(
                        set.get(&forest, &Key(n, 0)),
                        oracle.get(&n).map(|v| Key(n, *v))
                    );
                }
                Op::PopFirstIf(t) => {
                    let first = oracle.iter().next().map(|(k, v)| (*k, *v));
                    let want = first.filter(|(_, v)| *v >= t).map(|(k, v)| Key(k, v));
                    if let Some(Key(k, _)) = want {
                        oracle.remove(&k);
                    }
                    assert_eq!(set.pop_first_if(&mut forest, |k: &Key| k.1 >= t), want);
                }
                Op::RemoveFirst(t) => {
                    let want = oracle
                        .iter()
                        .find(|(_, v)| **v >= t)
                        .map(|(k, v)| Key(*k, *v));
                    if let Some(Key(k, _)) = want {
                        oracle.remove(&k);
                    }
                    let got =
                        set.remove_first(&mut forest, &|s: &Sum| s.0 >= t, &|k: &Key| k.1 >= t);
                    assert_eq!(got, want);
                }
                Op::Query(a, b, t) => {
                    let (lo, hi) = (a.min(b), a.max(b));
                    let lo_f = |k: &Key| k.0 >= lo;
                    let hi_f = |k: &Key| k.0 <= hi;
                    let sub = |s: &Sum| s.0 >= t;
                    let pred = |k: &Key| k.1 >= t;
                    for (use_lo, use_hi) in
                        [(true, true), (true, false), (false, true), (false, false)]
                    {
                        let l = use_lo.then_some(&lo_f);
                        let h = use_hi.then_some(&hi_f);
                        let range: Vec<Key> = oracle
                            .iter()
                            .map(|(k, v)| Key(*k, *v))
                            .filter(|k| (!use_lo || lo_f(k)) && (!use_hi || hi_f(k)))
                            .collect();
                        let hits: Vec<Key> = range.iter().copied().filter(pred).collect();
                        assert_eq!(
                            set.first_in(&forest, l, h, &sub, &pred),
                            hits.first().copied()
                        );
                        assert_eq!(
                            set.last_in(&forest, l, h, &sub, &pred),
                            hits.last().copied()
                        );
                        let mut seen = Vec::new();
                        set.for_each_in(&forest, l, h, &sub, &pred, &mut |k: &Key| seen.push(*k));
                        assert_eq!(seen, hits);
                        let want = range
                            .iter()
                            .map(Sum::of)
                            .reduce(|a, b| Sum::combine(&a, &b));
                        assert_eq!(set.fold_in(&forest, l, h), want);
                    }
                }
            }
            assert_eq!(set.check(&forest), Ok(oracle.len()));
            let total = oracle
                .iter()
                .map(|(k, v)| Sum::of(&Key(*k, *v)))
                .reduce(|a, b| Sum::combine(&a, &b));
            assert_eq!(set.summary(&forest).copied(), total);
            assert_eq!(set.check(&forest), Ok(oracle.len()));
            let keys: Vec<Key> = set.iter(&forest).copied().collect();
            let want: Vec<Key> = oracle.iter().map(|(k, v)| Key(*k, *v)).collect();
            assert_eq!(keys, want);
            assert_eq!(set.first(&forest), want.first().copied());
            let live = if set.is_tree() { oracle.len() } else { 0 };
            assert_eq!(forest.live_nodes(), live);
        }
        let want: Vec<Key> = oracle.iter().map(|(k, v)| Key(*k, *v)).collect();
        if want.len().is_multiple_of(2) {
            assert_eq!(set.clear(&mut forest), want.len());
        } else {
            let mut drained = vec![Key(u16::MAX, u16::MAX)];
            set.drain_into(&mut forest, &mut drained);
            assert_eq!(drained[1..], want[..]);
        }
        assert!(set.is_empty());
        assert_eq!(forest.live_nodes(), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_btreemap_across_thresholds(ops in prop::collection::vec(op(), 0..400)) {
            run(&ops, false);
        }

        /// The same for the chunked form, across chunk splits and the chunks / tree
        /// thresholds.
        #[test]
        fn chunked_matches_btreemap_across_thresholds(ops in prop::collection::vec(op(), 0..400)) {
            run(&ops, true);
        }
    }
}
