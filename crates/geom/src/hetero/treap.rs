//! Arena treaps with commutative subtree aggregates, keyed by a period's (start, server).
//!
//! Priorities are a hash of the key, so a tree's shape is a function of its key set alone
//! (never of the update history): runs are reproducible, and a tree built from a sorted slice
//! in `O(n)` ([`Treap::build`]) is the very tree the same insertions would give. Many trees
//! share one arena (a tree is its root id), which is what the secondary trees of
//! [`super::PrimalDualTrees`] need.

use std::cmp::Ordering;

use super::RatedPeriod;

/// The empty tree / null link.
pub(crate) const NIL: u32 = u32::MAX;

/// A commutative, associative summary of a set of periods with an identity element.
pub(crate) trait Aggregate: Copy {
    /// The summary of no period.
    fn empty() -> Self;
    /// The summary of one period.
    fn of(p: &RatedPeriod) -> Self;
    /// The summary of the union of two disjoint sets.
    fn combine(a: &Self, b: &Self) -> Self;
}

/// A 64-bit mix of the (start, server) key (splitmix64 finaliser): the treap priority.
#[inline]
pub(crate) fn start_priority(p: &RatedPeriod) -> u64 {
    mix(p.start.to_bits() ^ (u64::from(p.server) << 32 | u64::from(p.server)))
}

/// A 64-bit mix of the (end, server) key: the priority in end-ordered trees.
#[inline]
pub(crate) fn end_priority(p: &RatedPeriod) -> u64 {
    mix(p.end.to_bits().rotate_left(17) ^ u64::from(p.server).wrapping_mul(0x9E37_79B9))
}

/// splitmix64's finaliser (also the co-allocation range tree's priorities).
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Debug, Clone)]
struct Node<A> {
    key: RatedPeriod,
    agg: A,
    prio: u64,
    left: u32,
    right: u32,
}

/// Treaps of periods ordered by (start, server), in one arena.
#[derive(Debug, Clone)]
pub(crate) struct Treap<A> {
    nodes: Vec<Node<A>>,
    free: Vec<u32>,
    stack: Vec<u32>,
}

impl<A: Aggregate> Default for Treap<A> {
    fn default() -> Self {
        Treap {
            nodes: Vec::new(),
            free: Vec::new(),
            stack: Vec::new(),
        }
    }
}

impl<A: Aggregate> Treap<A> {
    /// Nodes in use over all trees.
    pub(crate) fn live_nodes(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    #[inline]
    pub(crate) fn key(&self, id: u32) -> &RatedPeriod {
        &self.nodes[id as usize].key
    }

    #[inline]
    pub(crate) fn left(&self, id: u32) -> u32 {
        self.nodes[id as usize].left
    }

    #[inline]
    pub(crate) fn right(&self, id: u32) -> u32 {
        self.nodes[id as usize].right
    }

    /// The aggregate of a tree (the identity for [`NIL`]).
    #[inline]
    pub(crate) fn agg(&self, id: u32) -> A {
        if id == NIL {
            A::empty()
        } else {
            self.nodes[id as usize].agg
        }
    }

    /// Whether node `a` must sit above node `b` (higher priority; ties by the smaller key).
    #[inline]
    fn above(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        na.prio > nb.prio || (na.prio == nb.prio && na.key.cmp_start(&nb.key) == Ordering::Less)
    }

    fn alloc(&mut self, key: RatedPeriod) -> u32 {
        let node = Node {
            key,
            agg: A::of(&key),
            prio: start_priority(&key),
            left: NIL,
            right: NIL,
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = u32::try_from(self.nodes.len()).expect("treap arena full");
                assert!(id != NIL, "treap arena full");
                self.nodes.push(node);
                id
            }
        }
    }

    #[inline]
    fn pull(&mut self, id: u32) {
        let n = &self.nodes[id as usize];
        let mut a = A::of(&n.key);
        if n.left != NIL {
            a = A::combine(&a, &self.nodes[n.left as usize].agg);
        }
        if n.right != NIL {
            a = A::combine(&a, &self.nodes[n.right as usize].agg);
        }
        self.nodes[id as usize].agg = a;
    }

    fn rotate_right(&mut self, x: u32) -> u32 {
        let l = self.left(x);
        self.nodes[x as usize].left = self.right(l);
        self.nodes[l as usize].right = x;
        self.pull(x);
        self.pull(l);
        l
    }

    fn rotate_left(&mut self, x: u32) -> u32 {
        let r = self.right(x);
        self.nodes[x as usize].right = self.left(r);
        self.nodes[r as usize].left = x;
        self.pull(x);
        self.pull(r);
        r
    }

    /// Inserts `key` into the tree `root`; returns the new root. A key equal to a live one is
    /// a caller bug (debug-asserted) and is ignored.
    pub(crate) fn insert(&mut self, root: u32, key: RatedPeriod) -> u32 {
        if root == NIL {
            return self.alloc(key);
        }
        match key.cmp_start(self.key(root)) {
            Ordering::Less => {
                let l = self.insert(self.left(root), key);
                self.nodes[root as usize].left = l;
                if self.above(l, root) {
                    return self.rotate_right(root);
                }
            }
            Ordering::Greater => {
                let r = self.insert(self.right(root), key);
                self.nodes[root as usize].right = r;
                if self.above(r, root) {
                    return self.rotate_left(root);
                }
            }
            Ordering::Equal => {
                debug_assert!(false, "duplicate key {key}");
                return root;
            }
        }
        self.pull(root);
        root
    }

    /// Removes the key with `key`'s (start, server) from the tree `root`; returns the new root
    /// and the removed period.
    pub(crate) fn remove(&mut self, root: u32, key: &RatedPeriod) -> (u32, Option<RatedPeriod>) {
        if root == NIL {
            return (NIL, None);
        }
        let out = match key.cmp_start(self.key(root)) {
            Ordering::Less => {
                let (l, out) = self.remove(self.left(root), key);
                self.nodes[root as usize].left = l;
                out
            }
            Ordering::Greater => {
                let (r, out) = self.remove(self.right(root), key);
                self.nodes[root as usize].right = r;
                out
            }
            Ordering::Equal => {
                let found = *self.key(root);
                let merged = self.merge(self.left(root), self.right(root));
                self.free.push(root);
                return (merged, Some(found));
            }
        };
        if out.is_some() {
            self.pull(root);
        }
        (root, out)
    }

    /// Joins two trees whose keys are all ordered `a < b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.above(a, b) {
            let r = self.merge(self.right(a), b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.left(b));
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Builds the tree of strictly increasing keys in `O(n)` (a Cartesian tree by priority).
    pub(crate) fn build(&mut self, keys: &[RatedPeriod]) -> u32 {
        debug_assert!(
            keys.windows(2)
                .all(|w| w[0].cmp_start(&w[1]) == Ordering::Less)
        );
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        for key in keys {
            let n = self.alloc(*key);
            let mut last = NIL;
            while let Some(&top) = stack.last() {
                if self.above(top, n) {
                    break;
                }
                stack.pop();
                // `top`'s subtree is complete: its right child (if any) was popped just before.
                self.pull(top);
                last = top;
            }
            self.nodes[n as usize].left = last;
            if let Some(&top) = stack.last() {
                self.nodes[top as usize].right = n;
            }
            stack.push(n);
        }
        let mut root = NIL;
        while let Some(top) = stack.pop() {
            self.pull(top);
            root = top;
        }
        self.stack = stack;
        root
    }

    /// Appends the keys of the tree, in order, to `out`.
    pub(crate) fn collect(&self, root: u32, out: &mut Vec<RatedPeriod>) {
        let mut stack: Vec<u32> = Vec::new();
        let mut id = root;
        loop {
            while id != NIL {
                stack.push(id);
                id = self.left(id);
            }
            let Some(top) = stack.pop() else { break };
            out.push(*self.key(top));
            id = self.right(top);
        }
    }

    /// Appends the keys `lo <= key <= hi` (by (start, server)), in order, to `out`.
    #[cfg(test)]
    pub(crate) fn collect_range(
        &self,
        id: u32,
        lo: &RatedPeriod,
        hi: &RatedPeriod,
        out: &mut Vec<RatedPeriod>,
    ) {
        if id == NIL {
            return;
        }
        let k = self.key(id);
        let ge_lo = k.cmp_start(lo) != Ordering::Less;
        let le_hi = k.cmp_start(hi) != Ordering::Greater;
        if ge_lo {
            self.collect_range(self.left(id), lo, hi, out);
        }
        if ge_lo && le_hi {
            out.push(*k);
        }
        if le_hi {
            self.collect_range(self.right(id), lo, hi, out);
        }
    }

    /// Frees every node of the tree.
    pub(crate) fn free_tree(&mut self, root: u32) {
        if root == NIL {
            return;
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(root);
        while let Some(id) = stack.pop() {
            let (l, r) = (self.left(id), self.right(id));
            if l != NIL {
                stack.push(l);
            }
            if r != NIL {
                stack.push(r);
            }
            self.free.push(id);
        }
        self.stack = stack;
    }

    /// The aggregate of the keys `lo <= key <= hi` of the tree. `O(depth)`.
    pub(crate) fn fold_range(&self, root: u32, lo: &RatedPeriod, hi: &RatedPeriod) -> A {
        let mut x = root;
        // Find the top node inside the range.
        while x != NIL {
            let k = self.key(x);
            if k.cmp_start(lo) == Ordering::Less {
                x = self.right(x);
            } else if k.cmp_start(hi) == Ordering::Greater {
                x = self.left(x);
            } else {
                break;
            }
        }
        if x == NIL {
            return A::empty();
        }
        let mut acc = A::of(self.key(x));
        // Keys >= lo in the left subtree.
        let mut y = self.left(x);
        while y != NIL {
            if self.key(y).cmp_start(lo) != Ordering::Less {
                acc = A::combine(&acc, &A::of(self.key(y)));
                acc = A::combine(&acc, &self.agg(self.right(y)));
                y = self.left(y);
            } else {
                y = self.right(y);
            }
        }
        // Keys <= hi in the right subtree.
        let mut y = self.right(x);
        while y != NIL {
            if self.key(y).cmp_start(hi) != Ordering::Greater {
                acc = A::combine(&acc, &A::of(self.key(y)));
                acc = A::combine(&acc, &self.agg(self.left(y)));
                y = self.right(y);
            } else {
                y = self.left(y);
            }
        }
        acc
    }

    /// Checks key order, heap order and aggregates; returns the number of keys. For tests.
    #[cfg(test)]
    pub(crate) fn check(&self, root: u32) -> usize
    where
        A: PartialEq + std::fmt::Debug,
    {
        fn rec<A: Aggregate + PartialEq + std::fmt::Debug>(t: &Treap<A>, id: u32) -> (usize, A) {
            if id == NIL {
                return (0, A::empty());
            }
            let (l, r) = (t.left(id), t.right(id));
            for c in [l, r] {
                if c != NIL {
                    assert!(t.above(id, c), "heap order");
                }
            }
            if l != NIL {
                assert_eq!(t.key(l).cmp_start(t.key(id)), Ordering::Less);
            }
            if r != NIL {
                assert_eq!(t.key(r).cmp_start(t.key(id)), Ordering::Greater);
            }
            let (nl, al) = rec(t, l);
            let (nr, ar) = rec(t, r);
            let a = A::combine(&A::combine(&A::of(t.key(id)), &al), &ar);
            assert_eq!(a, t.agg(id), "aggregate");
            (nl + nr + 1, a)
        }
        rec(self, root).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Count(u32, f64);
    impl Aggregate for Count {
        fn empty() -> Self {
            Count(0, 0.0)
        }
        fn of(p: &RatedPeriod) -> Self {
            Count(1, p.start)
        }
        fn combine(a: &Self, b: &Self) -> Self {
            Count(a.0 + b.0, a.1 + b.1)
        }
    }

    fn p(start: f64, server: u32) -> RatedPeriod {
        RatedPeriod::new(start, start + 1.0, server, 0, 1.0)
    }

    #[test]
    fn insert_remove_build_fold_agree() {
        let mut t: Treap<Count> = Treap::default();
        let mut root = NIL;
        let mut keys: Vec<RatedPeriod> = (0..200).map(|i| p((i * 37 % 101) as f64, i)).collect();
        for k in &keys {
            root = t.insert(root, *k);
        }
        keys.sort_by(|a, b| a.cmp_start(b));
        assert_eq!(t.check(root), 200);
        // Same shape as a build from the sorted keys.
        let mut t2: Treap<Count> = Treap::default();
        let root2 = t2.build(&keys);
        let shape = |t: &Treap<Count>, r: u32| -> Vec<(u32, u32, u32)> {
            let mut v = Vec::new();
            let mut st = vec![r];
            while let Some(x) = st.pop() {
                if x == NIL {
                    continue;
                }
                let key = |y: u32| if y == NIL { u32::MAX } else { t.key(y).server };
                v.push((t.key(x).server, key(t.left(x)), key(t.right(x))));
                st.push(t.left(x));
                st.push(t.right(x));
            }
            v
        };
        assert_eq!(shape(&t, root), shape(&t2, root2));
        assert_eq!(t2.check(root2), 200);
        let (lo, hi) = (keys[20], keys[150]);
        let f = t.fold_range(root, &lo, &hi);
        let expect: f64 = keys[20..=150].iter().map(|k| k.start).sum();
        assert_eq!(f.0, 131);
        assert!((f.1 - expect).abs() < 1e-9);
        let mut out = Vec::new();
        t.collect_range(root, &lo, &hi, &mut out);
        assert_eq!(out, keys[20..=150].to_vec());
        for k in keys.iter().step_by(3) {
            let (r, got) = t.remove(root, k);
            root = r;
            assert_eq!(got, Some(*k));
        }
        assert_eq!(t.remove(root, &p(1000.0, 0)).1, None);
        assert_eq!(t.check(root), 200 - 67);
        t.free_tree(root);
        assert_eq!(t.live_nodes(), 0);
    }
}
