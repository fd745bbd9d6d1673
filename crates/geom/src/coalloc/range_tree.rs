//! The optional range tree of the quantized index (issue 18): every live idle period once, in
//! an outer treap by the Phase-2 (secondary) order `(end, server descending)` whose every node
//! owns a secondary treap of its subtree's primary keys `(start descending, server)`.
//!
//! A Phase-2 group of quantum `q` is a range of primary keys among the periods that end after
//! `q`'s start (a finite period is in every live quantum it intersects, and a candidate starts
//! before `q` ends), so the two questions the search asks of a group are range queries here:
//!
//! - `j`, the periods of the group ending before `e_r`: periods with secondary key in
//!   `[(q·l_q + 1, ·), (e_r, ·))` and primary key in the group's range — one descent of the outer
//!   treap per bound, with a rank query in one secondary per level: `O(log² V)`;
//! - the period of secondary rank `r` in the group: one descent, `O(log² V)`.
//!
//! So a selection costs `O(log³ V)` for its counts plus `O(log² V)` per retrieved server, and
//! no longer grows with the size of the groups it inspects. The price is `O(V log V)` nodes and
//! `O(log² V)` expected per period update (a rotation rebuilds the secondary of the node it
//! lowers, `O(log V)` expected in a treap). Priorities are hashes of the keys, so the shape is a
//! function of the set and never of its history.
//!
//! The tree is shared by all quanta (a period is stored once, not once per quantum it spans);
//! periods that no live quantum holds any more are pruned when the clock advances.
//!
//! It follows the scheme of chapter 4's dual range tree (`hetero::primal_dual`), over integer
//! keys and with order statistics where that one folds capacities; a generic range tree shared
//! by both would remove the parallel rotation code.

use std::cmp::{Ordering, Reverse};

use super::CoallocPeriod;
use super::chunked::{Key, pkey};
use crate::hetero::treap::mix;

const NIL: u32 = u32::MAX;

/// The secondary (Phase-2) order: end ascending, then server descending.
pub(super) type SKey = (i64, Reverse<u32>);

#[inline]
pub(super) fn skey(p: &CoallocPeriod) -> SKey {
    (p.end, Reverse(p.server))
}

/// The smallest secondary key with end `t`: `skey(p) < below(t)` iff `p.end < t`.
#[inline]
pub(super) fn below(t: i64) -> SKey {
    (t, Reverse(u32::MAX))
}

#[inline]
fn key_priority(k: &Key) -> u32 {
    (mix((k.0.0 as u64).rotate_left(21) ^ u64::from(k.1)) >> 32) as u32
}

#[inline]
fn period_priority(p: &CoallocPeriod) -> u32 {
    (mix((p.end as u64).rotate_left(29) ^ u64::from(p.server).wrapping_mul(0x9E37_79B9)) >> 32)
        as u32
}

#[derive(Debug, Clone, Copy)]
struct SecNode {
    key: Key,
    prio: u32,
    left: u32,
    right: u32,
    size: u32,
}

/// Order-statistic treaps of primary keys, in one arena.
#[derive(Debug, Clone, Default)]
struct Secondaries {
    nodes: Vec<SecNode>,
    free: Vec<u32>,
    stack: Vec<u32>,
}

impl Secondaries {
    #[inline]
    fn size(&self, id: u32) -> usize {
        if id == NIL {
            0
        } else {
            self.nodes[id as usize].size as usize
        }
    }

    /// Whether node `a` belongs above node `b` (higher priority; ties: smaller key).
    #[inline]
    fn above(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        (na.prio, Reverse(na.key)) > (nb.prio, Reverse(nb.key))
    }

    fn alloc(&mut self, key: Key) -> u32 {
        let node = SecNode {
            key,
            prio: key_priority(&key),
            left: NIL,
            right: NIL,
            size: 1,
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = u32::try_from(self.nodes.len()).expect("range tree: too many nodes");
                assert!(id != NIL, "range tree: too many nodes");
                self.nodes.push(node);
                id
            }
        }
    }

    #[inline]
    fn pull(&mut self, id: u32) {
        let n = self.nodes[id as usize];
        self.nodes[id as usize].size = (1 + self.size(n.left) + self.size(n.right)) as u32;
    }

    fn insert(&mut self, root: u32, key: Key) -> u32 {
        if root == NIL {
            return self.alloc(key);
        }
        let n = self.nodes[root as usize];
        if key < n.key {
            let l = self.insert(n.left, key);
            self.nodes[root as usize].left = l;
            if self.above(l, root) {
                self.nodes[root as usize].left = self.nodes[l as usize].right;
                self.nodes[l as usize].right = root;
                self.pull(root);
                self.pull(l);
                return l;
            }
        } else {
            let r = self.insert(n.right, key);
            self.nodes[root as usize].right = r;
            if self.above(r, root) {
                self.nodes[root as usize].right = self.nodes[r as usize].left;
                self.nodes[r as usize].left = root;
                self.pull(root);
                self.pull(r);
                return r;
            }
        }
        self.pull(root);
        root
    }

    /// Joins two treaps whose keys are all smaller in `a` than in `b`.
    fn join(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.above(a, b) {
            let r = self.join(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.join(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    fn remove(&mut self, root: u32, key: &Key) -> u32 {
        if root == NIL {
            return NIL;
        }
        let n = self.nodes[root as usize];
        match key.cmp(&n.key) {
            Ordering::Less => {
                let l = self.remove(n.left, key);
                self.nodes[root as usize].left = l;
            }
            Ordering::Greater => {
                let r = self.remove(n.right, key);
                self.nodes[root as usize].right = r;
            }
            Ordering::Equal => {
                self.free.push(root);
                return self.join(n.left, n.right);
            }
        }
        self.pull(root);
        root
    }

    /// A treap of `keys` (sorted, distinct) in linear time: the Cartesian tree by priority.
    fn build(&mut self, keys: &[Key]) -> u32 {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        for &k in keys {
            let id = self.alloc(k);
            let mut last = NIL;
            while let Some(&top) = stack.last() {
                if self.above(id, top) {
                    last = top;
                    stack.pop();
                    // `top`'s subtree is complete: its size is final.
                    self.pull(top);
                } else {
                    break;
                }
            }
            self.nodes[id as usize].left = last;
            if let Some(&top) = stack.last() {
                self.nodes[top as usize].right = id;
            }
            stack.push(id);
        }
        // The right spine, bottom up.
        let root = stack.first().copied().unwrap_or(NIL);
        while let Some(id) = stack.pop() {
            self.pull(id);
        }
        self.stack = stack;
        root
    }

    fn collect(&self, root: u32, out: &mut Vec<Key>) {
        if root == NIL {
            return;
        }
        let n = &self.nodes[root as usize];
        self.collect(n.left, out);
        out.push(n.key);
        self.collect(n.right, out);
    }

    fn free_tree(&mut self, root: u32) {
        if root == NIL {
            return;
        }
        let n = self.nodes[root as usize];
        self.free.push(root);
        self.free_tree(n.left);
        self.free_tree(n.right);
    }

    /// Keys `< k` (`strict`) or `<= k`.
    fn rank(&self, mut id: u32, k: &Key, strict: bool) -> usize {
        let mut r = 0;
        while id != NIL {
            let n = &self.nodes[id as usize];
            let go_right = if strict { n.key < *k } else { n.key <= *k };
            if go_right {
                r += 1 + self.size(n.left);
                id = n.right;
            } else {
                id = n.left;
            }
        }
        r
    }

    /// Keys in `[lo, hi]`.
    #[inline]
    fn count_in(&self, root: u32, lo: &Key, hi: &Key) -> usize {
        if root == NIL {
            return 0;
        }
        self.rank(root, hi, false)
            .saturating_sub(self.rank(root, lo, true))
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    period: CoallocPeriod,
    prio: u32,
    left: u32,
    right: u32,
    /// The secondary treap of this node's subtree.
    sec: u32,
}

/// A dynamic 2-D range tree over idle periods (see the module documentation).
#[derive(Debug, Clone, Default)]
pub(super) struct RangeTree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    len: usize,
    sec: Secondaries,
    buf_a: Vec<Key>,
    buf_b: Vec<Key>,
    buf_c: Vec<Key>,
}

impl RangeTree {
    pub(super) fn new() -> Self {
        RangeTree {
            root: NIL,
            ..Default::default()
        }
    }

    #[inline]
    fn n(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    #[inline]
    fn n_mut(&mut self, id: u32) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    #[inline]
    fn sec_of(&self, id: u32) -> u32 {
        if id == NIL { NIL } else { self.n(id).sec }
    }

    #[inline]
    fn above(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (self.n(a), self.n(b));
        (na.prio, Reverse(skey(&na.period))) > (nb.prio, Reverse(skey(&nb.period)))
    }

    fn alloc(&mut self, period: CoallocPeriod, sec: u32) -> u32 {
        let node = Node {
            period,
            prio: period_priority(&period),
            left: NIL,
            right: NIL,
            sec,
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = u32::try_from(self.nodes.len()).expect("range tree: too many nodes");
                assert!(id != NIL, "range tree: too many nodes");
                self.nodes.push(node);
                id
            }
        }
    }

    /// Adds `p` (not already present).
    pub(super) fn insert(&mut self, p: CoallocPeriod) {
        self.root = self.insert_at(self.root, p);
        self.len += 1;
    }

    fn insert_at(&mut self, x: u32, p: CoallocPeriod) -> u32 {
        if x == NIL {
            let sec = self.sec.insert(NIL, pkey(&p));
            return self.alloc(p, sec);
        }
        let s = self.sec.insert(self.n(x).sec, pkey(&p));
        self.n_mut(x).sec = s;
        if skey(&p) < skey(&self.n(x).period) {
            let l = self.insert_at(self.n(x).left, p);
            self.n_mut(x).left = l;
            if self.above(l, x) {
                return self.lift_left(x);
            }
        } else {
            let r = self.insert_at(self.n(x).right, p);
            self.n_mut(x).right = r;
            if self.above(r, x) {
                return self.lift_right(x);
            }
        }
        x
    }

    /// Lifts `x`'s left child above `x`: the child now covers `x`'s former set and takes its
    /// secondary; `x`'s secondary is rebuilt from its new children and itself.
    fn lift_left(&mut self, x: u32) -> u32 {
        let l = self.n(x).left;
        let lr = self.n(l).right;
        self.n_mut(x).left = lr;
        self.n_mut(l).right = x;
        self.sec.free_tree(self.n(l).sec);
        self.n_mut(l).sec = self.n(x).sec;
        let s = self.rebuild_sec(x, true);
        self.n_mut(x).sec = s;
        l
    }

    /// Mirror of [`Self::lift_left`].
    fn lift_right(&mut self, x: u32) -> u32 {
        let r = self.n(x).right;
        let rl = self.n(r).left;
        self.n_mut(x).right = rl;
        self.n_mut(r).left = x;
        self.sec.free_tree(self.n(r).sec);
        self.n_mut(r).sec = self.n(x).sec;
        let s = self.rebuild_sec(x, true);
        self.n_mut(x).sec = s;
        r
    }

    /// A new secondary for `x`: its children's keys merged, with its own if `with_self` (not
    /// while `x` is on its way out).
    fn rebuild_sec(&mut self, x: u32, with_self: bool) -> u32 {
        let (mut a, mut b, mut c) = (
            std::mem::take(&mut self.buf_a),
            std::mem::take(&mut self.buf_b),
            std::mem::take(&mut self.buf_c),
        );
        a.clear();
        b.clear();
        c.clear();
        self.sec.collect(self.sec_of(self.n(x).left), &mut a);
        self.sec.collect(self.sec_of(self.n(x).right), &mut b);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] < b[j] {
                c.push(a[i]);
                i += 1;
            } else {
                c.push(b[j]);
                j += 1;
            }
        }
        c.extend_from_slice(&a[i..]);
        c.extend_from_slice(&b[j..]);
        if with_self {
            let me = pkey(&self.n(x).period);
            let at = c.partition_point(|k| *k < me);
            c.insert(at, me);
        }
        let root = self.sec.build(&c);
        (self.buf_a, self.buf_b, self.buf_c) = (a, b, c);
        root
    }

    /// Removes `p`; returns whether it was there.
    pub(super) fn remove(&mut self, p: &CoallocPeriod) -> bool {
        let (root, found) = self.remove_at(self.root, p);
        self.root = root;
        if found {
            self.len -= 1;
        }
        found
    }

    fn remove_at(&mut self, x: u32, p: &CoallocPeriod) -> (u32, bool) {
        if x == NIL {
            return (NIL, false);
        }
        let here = self.n(x).period;
        let found = match skey(p).cmp(&skey(&here)) {
            Ordering::Less => {
                let (l, found) = self.remove_at(self.n(x).left, p);
                self.n_mut(x).left = l;
                found
            }
            Ordering::Greater => {
                let (r, found) = self.remove_at(self.n(x).right, p);
                self.n_mut(x).right = r;
                found
            }
            Ordering::Equal => {
                if here != *p {
                    return (x, false);
                }
                let s = self.sec.remove(self.n(x).sec, &pkey(p));
                self.n_mut(x).sec = s;
                return (self.unlink(x), true);
            }
        };
        if found {
            let s = self.sec.remove(self.n(x).sec, &pkey(p));
            self.n_mut(x).sec = s;
        }
        (x, found)
    }

    /// Rotates `x` (whose own key is already out of its secondary) down to a leaf and drops it.
    fn unlink(&mut self, x: u32) -> u32 {
        let (l, r) = (self.n(x).left, self.n(x).right);
        if l == NIL || r == NIL {
            self.sec.free_tree(self.n(x).sec);
            self.free.push(x);
            return if l == NIL { r } else { l };
        }
        let x_sec = self.n(x).sec;
        if self.above(l, r) {
            self.sec.free_tree(self.n(l).sec);
            let lr = self.n(l).right;
            self.n_mut(x).left = lr;
            self.n_mut(l).right = x;
            self.n_mut(l).sec = x_sec;
            let s = self.rebuild_sec(x, false);
            self.n_mut(x).sec = s;
            let below = self.unlink(x);
            self.n_mut(l).right = below;
            l
        } else {
            self.sec.free_tree(self.n(r).sec);
            let rl = self.n(r).left;
            self.n_mut(x).right = rl;
            self.n_mut(r).left = x;
            self.n_mut(r).sec = x_sec;
            let s = self.rebuild_sec(x, false);
            self.n_mut(x).sec = s;
            let below = self.unlink(x);
            self.n_mut(r).left = below;
            r
        }
    }

    /// Removes every period whose end is at most `t` (they are the smallest secondary keys).
    pub(super) fn prune_ending_by(&mut self, t: i64) {
        loop {
            let mut x = self.root;
            if x == NIL {
                return;
            }
            while self.n(x).left != NIL {
                x = self.n(x).left;
            }
            let p = self.n(x).period;
            if p.end > t {
                return;
            }
            self.remove(&p);
        }
    }

    /// Periods with secondary key below `bound` and primary key in `[lo, hi]`.
    fn count_below(&self, bound: &SKey, lo: &Key, hi: &Key) -> usize {
        let mut x = self.root;
        let mut c = 0;
        while x != NIL {
            let n = self.n(x);
            if skey(&n.period) < *bound {
                c += self.sec.count_in(self.sec_of(n.left), lo, hi);
                let k = pkey(&n.period);
                c += usize::from(*lo <= k && k <= *hi);
                x = n.right;
            } else {
                x = n.left;
            }
        }
        c
    }

    /// Periods with secondary key in `[s_lo, s_hi)` and primary key in `[lo, hi]`.
    pub(super) fn count(&self, s_lo: &SKey, s_hi: &SKey, lo: &Key, hi: &Key) -> usize {
        self.count_below(s_hi, lo, hi)
            .saturating_sub(self.count_below(s_lo, lo, hi))
    }

    /// The period of rank `r` (from 0) in secondary order among those with secondary key at
    /// least `s_lo` and primary key in `[lo, hi]`.
    pub(super) fn select(
        &self,
        s_lo: &SKey,
        r: usize,
        lo: &Key,
        hi: &Key,
    ) -> Option<CoallocPeriod> {
        let mut r = r + self.count_below(s_lo, lo, hi);
        let mut x = self.root;
        while x != NIL {
            let n = self.n(x);
            let c = self.sec.count_in(self.sec_of(n.left), lo, hi);
            if r < c {
                x = n.left;
                continue;
            }
            r -= c;
            let k = pkey(&n.period);
            if *lo <= k && k <= *hi {
                if r == 0 {
                    return Some(n.period);
                }
                r -= 1;
            }
            x = n.right;
        }
        None
    }

    /// Checks the heap and search orders, and that every secondary holds exactly its subtree's
    /// keys; returns the number of periods (tests).
    #[cfg(test)]
    pub(super) fn check(&self) -> usize {
        fn rec(t: &RangeTree, x: u32, out: &mut Vec<CoallocPeriod>) {
            if x == NIL {
                return;
            }
            let n = t.n(x);
            for c in [n.left, n.right] {
                if c != NIL {
                    assert!(!t.above(c, x), "heap order");
                }
            }
            let mut mine = Vec::new();
            rec(t, n.left, &mut mine);
            if let Some(last) = mine.last() {
                assert!(skey(last) < skey(&n.period), "search order");
            }
            mine.push(n.period);
            let mut right = Vec::new();
            rec(t, n.right, &mut right);
            if let Some(first) = right.first() {
                assert!(skey(&n.period) < skey(first), "search order");
            }
            mine.extend(right);
            let mut keys: Vec<Key> = mine.iter().map(pkey).collect();
            keys.sort();
            let mut sec = Vec::new();
            t.sec.collect(n.sec, &mut sec);
            assert_eq!(sec, keys, "secondary of node {x}");
            assert_eq!(t.sec.size(n.sec), keys.len());
            out.extend(mine);
        }
        let mut all = Vec::new();
        rec(self, self.root, &mut all);
        assert_eq!(all.len(), self.len);
        all.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute_count(set: &[CoallocPeriod], s_lo: &SKey, s_hi: &SKey, lo: &Key, hi: &Key) -> usize {
        set.iter()
            .filter(|p| *s_lo <= skey(p) && skey(p) < *s_hi && *lo <= pkey(p) && pkey(p) <= *hi)
            .count()
    }

    proptest! {
        /// Counts and selections agree with a filter over the set, through insertions and
        /// removals (including pruning).
        #[test]
        fn range_tree_agrees_with_brute_force(
            ops in proptest::collection::vec((0u8..4, 0i64..40, 1i64..40, 0u32..6), 1..120),
            queries in proptest::collection::vec((0i64..80, 0i64..80, 0i64..40, 0i64..40, 0usize..20), 1..20),
        ) {
            let mut tree = RangeTree::new();
            let mut set: Vec<CoallocPeriod> = Vec::new();
            for (op, start, len, server) in ops {
                let p = CoallocPeriod { start, end: start + len, server };
                match op {
                    0 | 1 => {
                        // Keep both keys distinct, as the index's periods are.
                        if !set.iter().any(|q| pkey(q) == pkey(&p) || skey(q) == skey(&p)) {
                            tree.insert(p);
                            set.push(p);
                        }
                    }
                    2 => {
                        let present = set.iter().position(|q| *q == p);
                        prop_assert_eq!(tree.remove(&p), present.is_some());
                        if let Some(i) = present {
                            set.swap_remove(i);
                        }
                    }
                    _ => {
                        tree.prune_ending_by(start);
                        set.retain(|q| q.end > start);
                    }
                }
                prop_assert_eq!(tree.check(), set.len());
            }
            for (a, b, s0, s1, r) in queries {
                let (lo, hi) = (pkey(&CoallocPeriod { start: a.max(b), end: 0, server: 0 }),
                                pkey(&CoallocPeriod { start: a.min(b), end: 0, server: 9 }));
                let (s_lo, s_hi) = (below(s0.min(s1)), below(s0.max(s1)));
                prop_assert_eq!(tree.count(&s_lo, &s_hi, &lo, &hi), brute_count(&set, &s_lo, &s_hi, &lo, &hi));
                let mut inside: Vec<CoallocPeriod> = set.iter().copied()
                    .filter(|p| s_lo <= skey(p) && lo <= pkey(p) && pkey(p) <= hi)
                    .collect();
                inside.sort_by_key(skey);
                prop_assert_eq!(tree.select(&s_lo, r, &lo, &hi), inside.get(r).copied());
            }
        }
    }
}
