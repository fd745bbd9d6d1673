//! The periods of one strip: a sorted vector while the strip is small, an augmented AVL tree
//! of the shared arena ([`Forest`]) once it is large.
//!
//! Most strips hold a handful of periods (at `n = 20` servers and strips of width `2 l_min`,
//! about five): for them a sorted vector is faster than any tree — its queries are short
//! linear scans of contiguous memory and its updates shift a few elements. A strip that grows
//! past [`SMALL_MAX`] periods moves into the thesis's augmented balanced tree, and moves back
//! when it falls to [`SMALL_BACK`] (the hysteresis keeps a strip that oscillates around one
//! size from converting at every update). Every query has the same answer in both forms: it
//! is defined by the keys, their order and the same predicates.

use crate::tree::{Forest, NIL, NodeId, Summary};

/// A strip larger than this lives in an AVL tree...
pub(crate) const SMALL_MAX: usize = 16;
/// ...until it falls back to this size.
pub(crate) const SMALL_BACK: usize = 8;

/// One strip's set of keys (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct StripSet<K, S> {
    /// The keys in increasing order, while the set is small (`root == NIL`).
    small: Vec<K>,
    /// Summary of `small` (`None` if it is empty), kept up to date.
    small_sum: Option<S>,
    /// The AVL tree, while the set is large.
    root: NodeId,
    len: u32,
}

impl<K, S> Default for StripSet<K, S> {
    fn default() -> Self {
        StripSet {
            small: Vec::new(),
            small_sum: None,
            root: NIL,
            len: 0,
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
        } else {
            self.small_sum.as_ref()
        }
    }

    fn resum(&mut self) {
        let mut it = self.small.iter();
        self.small_sum = it
            .next()
            .map(|k| it.fold(S::of(k), |acc, k| S::combine(&acc, &S::of(k))));
    }

    /// Inserts `key`; `false` if an equal key is present.
    pub(crate) fn insert(&mut self, forest: &mut Forest<K, S>, key: K) -> bool {
        if self.root != NIL {
            if !forest.insert(&mut self.root, key) {
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
        true
    }

    /// Removes and returns the key equal to `key`.
    pub(crate) fn remove(&mut self, forest: &mut Forest<K, S>, key: &K) -> Option<K> {
        let out = if self.root != NIL {
            let out = forest.remove(&mut self.root, key)?;
            if self.len as usize - 1 <= SMALL_BACK {
                self.small = forest.drain(&mut self.root);
                self.resum();
            }
            out
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
            if self.len as usize - 1 <= SMALL_BACK {
                self.small = forest.drain(&mut self.root);
                self.resum();
            }
            out
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
            if self.len as usize - 1 <= SMALL_BACK {
                self.small = forest.drain(&mut self.root);
                self.resum();
            }
            out
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
        forest.add_visits(1 + u64::from(self.len.max(1).ilog2()));
        self.small.binary_search(key).ok().map(|i| self.small[i])
    }

    /// The smallest key.
    pub(crate) fn first(&self, forest: &Forest<K, S>) -> Option<K> {
        if self.root != NIL {
            forest.first(self.root).copied()
        } else {
            self.small.first().copied()
        }
    }

    /// Removes every key, returned in order.
    pub(crate) fn drain(&mut self, forest: &mut Forest<K, S>) -> Vec<K> {
        self.len = 0;
        self.small_sum = None;
        if self.root != NIL {
            forest.drain(&mut self.root)
        } else {
            std::mem::take(&mut self.small)
        }
    }

    /// The keys in order.
    pub(crate) fn iter<'a>(&'a self, forest: &'a Forest<K, S>) -> impl Iterator<Item = &'a K> {
        self.small.iter().chain(forest.iter(self.root))
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

impl<K, S> StripSet<K, S>
where
    K: Ord + Copy + std::fmt::Debug,
    S: Summary<K> + Copy + PartialEq + std::fmt::Debug,
{
    /// Checks the representation (sorted vector with an exact summary while small, a valid
    /// tree while large, a consistent length); returns the number of keys.
    pub(crate) fn check(&self, forest: &Forest<K, S>) -> Result<usize, String> {
        let n = if self.root != NIL {
            if !self.small.is_empty() {
                return Err("a large strip also keeps a vector".into());
            }
            let n = forest.check(self.root)?;
            if n <= SMALL_BACK {
                return Err(format!("a strip of {n} periods kept as a tree"));
            }
            n
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
            let mut want = None;
            for k in &self.small {
                let s = S::of(k);
                want = Some(match want {
                    Some(a) => S::combine(&a, &s),
                    None => s,
                });
            }
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
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => (0..60u16, 0..100u16).prop_map(|(k, v)| Op::Insert(k, v)),
            4 => (0..60u16).prop_map(Op::Remove),
            3 => (0..64u16, 0..64u16, 0..100u16).prop_map(|(a, b, t)| Op::Query(a, b, t)),
        ]
    }

    /// Every query of a set agrees with a `BTreeMap` oracle while the set crosses the
    /// vector / tree thresholds in both directions.
    fn run(ops: &[Op]) {
        let mut forest: Forest<Key, Sum> = Forest::new();
        let mut set: StripSet<Key, Sum> = StripSet::default();
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
            let keys: Vec<Key> = set.iter(&forest).copied().collect();
            let want: Vec<Key> = oracle.iter().map(|(k, v)| Key(*k, *v)).collect();
            assert_eq!(keys, want);
            assert_eq!(set.first(&forest), want.first().copied());
            let live = if set.is_tree() { oracle.len() } else { 0 };
            assert_eq!(forest.live_nodes(), live);
        }
        assert_eq!(set.drain(&mut forest).len(), oracle.len());
        assert!(set.is_empty());
        assert_eq!(forest.live_nodes(), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_btreemap_across_thresholds(ops in prop::collection::vec(op(), 0..400)) {
            run(&ops);
        }
    }
}
