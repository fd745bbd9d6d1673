//! [`IdSet`]: a set of job ids as a bitset. Job ids are indices into one run's workload
//! (dense, from 0), and every LGS keeps the requests of its OS (HOLES removes one from each
//! LGS when a job starts, so a run of N jobs on 520 servers does O(N · 520) inserts and
//! removals): a bit per id makes each O(1) and allocation-free once the set has grown, where
//! a `BTreeSet<u32>` walked a tree and allocated nodes (issue 32: 30 % of an Exp 1 run).

/// A set of `u32` ids, stored as one bit per id up to the largest id inserted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdSet {
    words: Vec<u64>,
    len: usize,
}

impl IdSet {
    /// An empty set.
    pub fn new() -> Self {
        IdSet::default()
    }

    /// Number of ids in the set.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set holds no id.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `id` is in the set.
    #[inline]
    pub fn contains(&self, id: &u32) -> bool {
        let (w, b) = (*id as usize / 64, id % 64);
        self.words.get(w).is_some_and(|&x| x >> b & 1 == 1)
    }

    /// Adds `id`; whether it was absent (as `BTreeSet::insert`).
    #[inline]
    pub fn insert(&mut self, id: u32) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let fresh = self.words[w] >> b & 1 == 0;
        self.words[w] |= 1 << b;
        self.len += usize::from(fresh);
        fresh
    }

    /// Removes `id`; whether it was present (as `BTreeSet::remove`).
    #[inline]
    pub fn remove(&mut self, id: &u32) -> bool {
        let (w, b) = (*id as usize / 64, id % 64);
        match self.words.get_mut(w) {
            Some(x) if *x >> b & 1 == 1 => {
                *x &= !(1 << b);
                self.len -= 1;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IdSet;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Every operation answers as `BTreeSet<u32>` does (the set it replaced).
        #[test]
        fn answers_as_a_btreeset(ops in prop::collection::vec((0u8..3, 0u32..300), 0..400)) {
            let (mut fast, mut oracle) = (IdSet::new(), BTreeSet::new());
            for (op, id) in ops {
                match op {
                    0 => prop_assert_eq!(fast.insert(id), oracle.insert(id)),
                    1 => prop_assert_eq!(fast.remove(&id), oracle.remove(&id)),
                    _ => prop_assert_eq!(fast.contains(&id), oracle.contains(&id)),
                }
                prop_assert_eq!(fast.len(), oracle.len());
                prop_assert_eq!(fast.is_empty(), oracle.is_empty());
            }
        }
    }
}
