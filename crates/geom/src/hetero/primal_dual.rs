//! FF-HA+: per rate class, the primal/dual 2-D tree of Castillo §4.4, searched as the
//! pseudo-code of spec §2.16 on the *implicit balanced shape*.
//!
//! # What is computed
//!
//! For a class of `V` live periods sorted by (start, server), the thesis's primal tree is the
//! implicit balanced tree over positions `0..V` (node `[lo, hi]`, median `⌊(lo+hi)/2⌋`, left
//! child `[lo, mid]`); the dual tree of a primal node is the implicit tree over *that node's*
//! periods sorted by (end, server), each node knowing its maximum-capacity period (ties: the
//! smaller (start, server)). Step 1 marks the nodes that cover the prefix of the `k` periods
//! with `start <= d − l/μ`; step 2 runs the dual descent in each marked node in turn and returns
//! its first hit. Because the shape is implicit, the choice is a pure function of the live set.
//!
//! Materialising that shape is out of the question: one insertion shifts every position and
//! with it the contents of almost every node. Instead we derive the choice from rank queries
//! on two shape-independent dynamic structures, using three facts (proofs in the comments of
//! [`implicit`](super::implicit)):
//!
//! 1. Every period of a node marked before the one holding the class's *first feasible period
//!    in start order* (position `i`) is infeasible, and a dual descent finds a feasible period
//!    iff its node holds one. So the answering node `U` is the marked node containing `i`: pure
//!    index arithmetic once `k` and `i` are known ([`primal_search`]).
//! 2. Inside `U` (size `m`, sorted by end), let `p` = the number of periods failing the dual
//!    test (`end < r + l/μ`; they form a prefix) and `q` = the largest rank whose capacity
//!    passes. The descent follows the path to leaf `p` and, at each left turn `[lo, hi]`, tests
//!    the right child `(mid, hi]`: it succeeds exactly at the first node with `p <= mid < q`
//!    ([`dual_split`]), or at leaf `p` when `p == q`.
//! 3. The answer is then the maximum-capacity period among ranks `>= mid + 1` of `U` (`>= p`
//!    at a leaf): ranks above that right child all have capacity below the job's size, so
//!    they cannot win.
//!
//! # The structures (per class)
//!
//! - **Primal order**: the start-ordered blocks below, each with a summary (first start,
//!   latest end, largest capacity). They answer `i` (the first feasible period in start order
//!   and its position): a scan of the block summaries that skips every block whose latest end
//!   or largest capacity already fails, and a scan of the few blocks that may hold it. (This
//!   used to be a treap with the same summaries; at the thesis's sizes its pointer-chasing
//!   updates cost more than the whole search, see docs/benchmarks.md, issue 32.)
//! - **Start-ordered blocks** (`blocks`): the periods cut into blocks of 16–64 consecutive
//!   periods in (start, server) order. They answer `k` (rank of the latest start) and position
//!   → period by a binary search over the blocks' last keys and a short scan of the block
//!   sizes, and they carry the **direct group search**: the answer only involves `U`'s
//!   *dual-feasible* periods `F` (those with `end >= r + l/μ`: ranks `p..m`), since `q >= p`
//!   and the answer's ranks are `>= p`. The blocks of `U` are walked from the position of its
//!   first period: a block whose latest end is before `r + l/μ` is skipped, the others are
//!   filtered by end — or, for a block lying wholly inside `U` that searches keep coming back
//!   to between updates, its part of `F` is read as one contiguous slice of a lazily built
//!   end-ordered copy; then `p = m − |F|`, `q` is the latest-ending capacity-feasible period
//!   of `F`, and the answer is the maximum-capacity period among the `m − a` latest-ending
//!   periods of `F` (linear-time selection). When `U` lies before the job's earliest end (the
//!   usual case), every period of `F` covers `[max start of U, r + l/μ)`, so `|F|` is at most
//!   the number of servers of the class, whatever the look-ahead.
//! - **Dual range tree** (opt-in, [`PrimalDualTrees::with_enumeration_budget`]: used when `|F|`
//!   exceeds the budget): a treap by (end, server) — the dual order — whose every node owns a
//!   secondary treap of its subtree's periods by (start, server) with count and
//!   maximum-capacity period. Since `U` is a range of start keys, "count `U`'s periods with end
//!   below `x`", "the largest end in `U` with capacity `>= l`" and "the maximum-capacity period
//!   of `U` among dual ranks `>= a`" are each one descent of the primary with one secondary
//!   range fold per level: `O(log² V)`. A rotation hands the rotated node's secondary to the
//!   node that takes its place (same set) and rebuilds the other from its children in linear
//!   time; priorities are hashes of the keys, so shapes never depend on history. The tree is
//!   brought up to date lazily: changes are logged and replayed (or the tree is rebuilt in
//!   `O(V log V)` when the log outgrows a quarter of the class) only when a search needs it.
//!   Its `O(V log V)` pointer-linked nodes make every update and catch-up a string of cache
//!   misses: measured on the chapter-4 workload it costs 0.3–0.4 ms per decision at
//!   `V` ≈ 1.4·10⁴–4.6·10⁴, against a few µs for the blocks, so it is no longer used by
//!   default (it used to take over beyond `max(256, 8 log² V_h)` dual-feasible periods); the
//!   tests keep it as a second, independent implementation of the group search.
//!
//! # Costs
//!
//! Per class searched: `O(V_h / B)` block summaries plus the scans of the blocks that pass
//! them for `i` (in the chapter-4 workload one or two blocks: only blocks that straddle the
//! job's ready time pass the end test without holding a feasible period), `O(log V_h + V_h /
//! B)` for `k` and the group's first position (`B` ≈ 16–64: the block sizes are summed, 4
//! bytes each), then for the group `O(m / B)` block summaries, a filtered scan of the blocks
//! that may hold part of `F` (at the thesis's sizes `U` spans two or three blocks), or for
//! whole blocks searched repeatedly between updates a binary search in their end-ordered copy,
//! and linear passes over the gathered `F`, all on contiguous memory. `|F|` is at most the
//! number of servers of the class in the usual case; the search is therefore *not*
//! polylogarithmic in the servers per class, but it runs at memory-streaming speed instead of
//! one cache miss per tree node. Per update: `O(log V_h + B)` (a binary search over the blocks'
//! last keys, one sorted-vector insertion or removal in one block, its summary; a split or
//! merge every `Θ(B)` updates of a block), and the block's end-ordered copy, if it had one,
//! is dropped (rebuilt in `O(B log B)` after a few searches). Memory: `O(V_h)`.
//!
//! The [operation count](super::RatedIndex::operations) is not this structure's
//! work but the pseudo-code's: primal nodes visited, a failed dual descent in every node marked
//! before `U` (charged its height plus one), and the dual nodes the successful descent visits —
//! a deterministic function of the live set.

use std::cmp::Ordering;

use super::blocks::StartBlocks;
use super::implicit::{dual_split, failed_dual_visits, primal_search};
use super::treap::{Aggregate, NIL, Treap, end_priority};
use super::{ClassOrder, PlusPick, RateClasses, RatedIndex, RatedPeriod, RatedWindow};

/// Secondary aggregate: count and the maximum-capacity period (ties: smaller start, server).
#[derive(Debug, Clone, Copy, PartialEq)]
struct CapAgg {
    count: u32,
    best: RatedPeriod,
}

const NO_PERIOD: RatedPeriod = RatedPeriod {
    start: f64::INFINITY,
    end: f64::INFINITY,
    capacity: f64::NEG_INFINITY,
    server: u32::MAX,
    class: u32::MAX,
};

impl Aggregate for CapAgg {
    fn empty() -> Self {
        CapAgg {
            count: 0,
            best: NO_PERIOD,
        }
    }
    #[inline]
    fn of(p: &RatedPeriod) -> Self {
        CapAgg { count: 1, best: *p }
    }
    #[inline]
    fn combine(a: &Self, b: &Self) -> Self {
        CapAgg {
            count: a.count + b.count,
            best: if b.best.more_capacity_than(&a.best) {
                b.best
            } else {
                a.best
            },
        }
    }
}

impl CapAgg {
    fn add(&mut self, p: &RatedPeriod) {
        *self = CapAgg::combine(self, &CapAgg::of(p));
    }
    fn found(&self) -> Option<RatedPeriod> {
        (self.count > 0).then_some(self.best)
    }
}

/// A range of start keys `lo..=hi` (a marked primal node).
#[derive(Debug, Clone, Copy)]
struct StartRange {
    lo: RatedPeriod,
    hi: RatedPeriod,
}

impl StartRange {
    #[inline]
    fn contains(&self, p: &RatedPeriod) -> bool {
        p.cmp_start(&self.lo) != Ordering::Less && p.cmp_start(&self.hi) != Ordering::Greater
    }
}

#[derive(Debug, Clone)]
struct DualNode {
    period: RatedPeriod,
    prio: u64,
    left: u32,
    right: u32,
    /// Secondary treap (by start) of this node's subtree.
    sec: u32,
}

/// The dual range tree: a treap by (end, server) whose nodes own secondaries by start.
#[derive(Debug, Clone, Default)]
struct DualRangeTree {
    nodes: Vec<DualNode>,
    free: Vec<u32>,
    root: u32,
    sec: Treap<CapAgg>,
    buf_a: Vec<RatedPeriod>,
    buf_b: Vec<RatedPeriod>,
    buf_c: Vec<RatedPeriod>,
}

impl DualRangeTree {
    fn new() -> Self {
        DualRangeTree {
            root: NIL,
            ..Default::default()
        }
    }

    #[inline]
    fn n(&self, id: u32) -> &DualNode {
        &self.nodes[id as usize]
    }

    #[inline]
    fn n_mut(&mut self, id: u32) -> &mut DualNode {
        &mut self.nodes[id as usize]
    }

    #[inline]
    fn above(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (self.n(a), self.n(b));
        na.prio > nb.prio || (na.prio == nb.prio && na.period.cmp_end(&nb.period) == Ordering::Less)
    }

    fn alloc(&mut self, period: RatedPeriod, sec: u32) -> u32 {
        let node = DualNode {
            period,
            prio: end_priority(&period),
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
                let id = u32::try_from(self.nodes.len()).expect("dual tree full");
                assert!(id != NIL, "dual tree full");
                self.nodes.push(node);
                id
            }
        }
    }

    fn insert(&mut self, p: RatedPeriod) {
        self.root = self.insert_at(self.root, p);
    }

    fn insert_at(&mut self, x: u32, p: RatedPeriod) -> u32 {
        if x == NIL {
            let sec = self.sec.insert(NIL, p);
            return self.alloc(p, sec);
        }
        let s = self.sec.insert(self.n(x).sec, p);
        self.n_mut(x).sec = s;
        if p.cmp_end(&self.n(x).period) == Ordering::Less {
            let l = self.insert_at(self.n(x).left, p);
            self.n_mut(x).left = l;
            if self.above(l, x) {
                return self.rotate_up_left_child(x);
            }
        } else {
            let r = self.insert_at(self.n(x).right, p);
            self.n_mut(x).right = r;
            if self.above(r, x) {
                return self.rotate_up_right_child(x);
            }
        }
        x
    }

    /// Rotation that lifts `x`'s left child `l` above `x`. `l` now covers exactly `x`'s former
    /// set and inherits its secondary; `x`'s secondary is rebuilt from its new children.
    fn rotate_up_left_child(&mut self, x: u32) -> u32 {
        let l = self.n(x).left;
        let (x_sec, l_sec) = (self.n(x).sec, self.n(l).sec);
        let lr = self.n(l).right;
        self.n_mut(x).left = lr;
        self.n_mut(l).right = x;
        self.sec.free_tree(l_sec);
        self.n_mut(l).sec = x_sec;
        let s = self.rebuild_sec(x, true);
        self.n_mut(x).sec = s;
        l
    }

    /// Mirror of [`Self::rotate_up_left_child`].
    fn rotate_up_right_child(&mut self, x: u32) -> u32 {
        let r = self.n(x).right;
        let (x_sec, r_sec) = (self.n(x).sec, self.n(r).sec);
        let rl = self.n(r).left;
        self.n_mut(x).right = rl;
        self.n_mut(r).left = x;
        self.sec.free_tree(r_sec);
        self.n_mut(r).sec = x_sec;
        let s = self.rebuild_sec(x, true);
        self.n_mut(x).sec = s;
        r
    }

    /// A new secondary for `x`: its children's periods (and its own if `with_self`).
    fn rebuild_sec(&mut self, x: u32, with_self: bool) -> u32 {
        let (l, r) = (self.n(x).left, self.n(x).right);
        let mut a = std::mem::take(&mut self.buf_a);
        let mut b = std::mem::take(&mut self.buf_b);
        let mut c = std::mem::take(&mut self.buf_c);
        a.clear();
        b.clear();
        c.clear();
        if l != NIL {
            self.sec.collect(self.n(l).sec, &mut a);
        }
        if r != NIL {
            self.sec.collect(self.n(r).sec, &mut b);
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].cmp_start(&b[j]) == Ordering::Less {
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
            let me = self.n(x).period;
            let at = c.partition_point(|q| q.cmp_start(&me) == Ordering::Less);
            c.insert(at, me);
        }
        let root = self.sec.build(&c);
        self.buf_a = a;
        self.buf_b = b;
        self.buf_c = c;
        root
    }

    /// Removes `p` (the stored period, with its true end); returns whether it was there.
    fn remove(&mut self, p: &RatedPeriod) -> bool {
        let (root, found) = self.remove_at(self.root, p);
        self.root = root;
        found
    }

    fn remove_at(&mut self, x: u32, p: &RatedPeriod) -> (u32, bool) {
        if x == NIL {
            return (NIL, false);
        }
        let found = match p.cmp_end(&self.n(x).period) {
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
                let (s, _) = self.sec.remove(self.n(x).sec, p);
                self.n_mut(x).sec = s;
                return (self.delete(x), true);
            }
        };
        if found {
            let (s, _) = self.sec.remove(self.n(x).sec, p);
            self.n_mut(x).sec = s;
        }
        (x, found)
    }

    /// Unlinks node `x` (whose own period is already out of its secondary) by rotating it down.
    fn delete(&mut self, x: u32) -> u32 {
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
            let below = self.delete(x);
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
            let below = self.delete(x);
            self.n_mut(r).left = below;
            r
        }
    }

    /// Count and maximum-capacity period of the subtree `x` restricted to the start range.
    #[inline]
    fn fold(&self, x: u32, u: &StartRange) -> CapAgg {
        if x == NIL {
            CapAgg::empty()
        } else {
            self.sec.fold_range(self.n(x).sec, &u.lo, &u.hi)
        }
    }

    /// Number of periods of `u` whose end is below `earliest_end` (they fail the dual test).
    fn count_end_below(&self, earliest_end: f64, u: &StartRange) -> usize {
        let (mut x, mut acc) = (self.root, 0usize);
        while x != NIL {
            let n = self.n(x);
            if n.period.end < earliest_end {
                acc += self.fold(n.left, u).count as usize + usize::from(u.contains(&n.period));
                x = n.right;
            } else {
                x = n.left;
            }
        }
        acc
    }

    /// The period of `u` with the largest (end, server) among those with capacity
    /// `>= min_capacity`, with its rank in `u`'s dual order.
    fn last_with_capacity(
        &self,
        min_capacity: f64,
        u: &StartRange,
    ) -> Option<(usize, RatedPeriod)> {
        let (mut x, mut rank) = (self.root, 0usize);
        while x != NIL {
            let n = self.n(x);
            if self.fold(n.right, u).best.capacity >= min_capacity {
                rank += self.fold(n.left, u).count as usize + usize::from(u.contains(&n.period));
                x = n.right;
                continue;
            }
            if u.contains(&n.period) && n.period.capacity >= min_capacity {
                rank += self.fold(n.left, u).count as usize;
                return Some((rank, n.period));
            }
            x = n.left;
        }
        None
    }

    /// The maximum-capacity period of `u` among its dual ranks `>= a`.
    fn best_from_rank(&self, a: usize, u: &StartRange) -> Option<RatedPeriod> {
        let (mut x, mut a) = (self.root, a);
        let mut acc = CapAgg::empty();
        while x != NIL {
            let n = self.n(x);
            let cl = self.fold(n.left, u).count as usize;
            let me = u.contains(&n.period);
            if a < cl {
                if me {
                    acc.add(&n.period);
                }
                acc = CapAgg::combine(&acc, &self.fold(n.right, u));
                x = n.left;
            } else {
                a -= cl;
                if me {
                    if a == 0 {
                        acc.add(&n.period);
                        acc = CapAgg::combine(&acc, &self.fold(n.right, u));
                        break;
                    }
                    a -= 1;
                }
                x = n.right;
            }
        }
        acc.found()
    }

    /// The maximum-capacity period of `u` among those with `end >= earliest_end`.
    fn best_from_end(&self, earliest_end: f64, u: &StartRange) -> Option<RatedPeriod> {
        let mut x = self.root;
        let mut acc = CapAgg::empty();
        while x != NIL {
            let n = self.n(x);
            if n.period.end >= earliest_end {
                if u.contains(&n.period) {
                    acc.add(&n.period);
                }
                acc = CapAgg::combine(&acc, &self.fold(n.right, u));
                x = n.left;
            } else {
                x = n.right;
            }
        }
        acc.found()
    }

    /// Replaces the tree by one holding `periods` (any order) in `O(V log V)`: the primary is
    /// built as a Cartesian tree over the end order, each secondary from its children's
    /// start-sorted lists. The result is the tree the same insertions would give (treap shapes
    /// depend on the key set only).
    fn rebuild_from(&mut self, periods: &mut [RatedPeriod]) {
        self.nodes.clear();
        self.free.clear();
        self.sec = Treap::default();
        self.root = NIL;
        periods.sort_by(RatedPeriod::cmp_end);
        let mut stack: Vec<u32> = Vec::new();
        for p in periods.iter() {
            let n = self.alloc(*p, NIL);
            let mut last = NIL;
            while let Some(&top) = stack.last() {
                if self.above(top, n) {
                    break;
                }
                stack.pop();
                last = top;
            }
            self.n_mut(n).left = last;
            if let Some(&top) = stack.last() {
                self.n_mut(top).right = n;
            }
            stack.push(n);
        }
        self.root = stack.first().copied().unwrap_or(NIL);
        self.build_secondaries(self.root);
    }

    /// Builds the secondaries of the subtree `x` bottom-up; returns its periods by start.
    fn build_secondaries(&mut self, x: u32) -> Vec<RatedPeriod> {
        if x == NIL {
            return Vec::new();
        }
        let a = self.build_secondaries(self.n(x).left);
        let b = self.build_secondaries(self.n(x).right);
        let me = self.n(x).period;
        let mut c = Vec::with_capacity(a.len() + b.len() + 1);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].cmp_start(&b[j]) == Ordering::Less {
                c.push(a[i]);
                i += 1;
            } else {
                c.push(b[j]);
                j += 1;
            }
        }
        c.extend_from_slice(&a[i..]);
        c.extend_from_slice(&b[j..]);
        let at = c.partition_point(|q| q.cmp_start(&me) == Ordering::Less);
        c.insert(at, me);
        let root = self.sec.build(&c);
        self.n_mut(x).sec = root;
        c
    }

    fn node_count(&self) -> usize {
        self.nodes.len() - self.free.len() + self.sec.live_nodes()
    }
}

/// A pending change of the dual range tree.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Insert(RatedPeriod),
    Remove(RatedPeriod),
}

/// The 2-D tree of one rate class: the primal order, always current, and the dual range tree,
/// brought up to date only when a search needs it.
#[derive(Debug, Clone)]
struct ClassTree {
    /// The periods in start-ordered blocks with end-ordered copies: the primal order (the
    /// first feasible period and its position, ranks, position → period) and the direct group
    /// search.
    blocks: StartBlocks,
    dual: DualRangeTree,
    /// Changes not yet applied to `dual`.
    pending: Vec<Pending>,
    /// `dual` must be rebuilt from the primal order (the log grew past its size, or no search
    /// has needed the range tree yet: nothing is logged until one does, so a class that never
    /// falls back to it pays nothing for it).
    stale: bool,
}

impl ClassTree {
    fn new() -> Self {
        ClassTree {
            blocks: StartBlocks::default(),
            dual: DualRangeTree::new(),
            pending: Vec::new(),
            stale: true,
        }
    }

    fn len(&self) -> usize {
        self.blocks.len()
    }

    fn log(&mut self, change: Pending) {
        if self.stale {
            return;
        }
        self.pending.push(change);
        if self.pending.len() > 2 * self.len() + 1024 {
            // Replaying would cost more than rebuilding: forget the log.
            self.pending.clear();
            self.stale = true;
        }
    }

    fn insert(&mut self, p: RatedPeriod) {
        self.blocks.insert(p);
        self.log(Pending::Insert(p));
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        match self.blocks.remove(p) {
            Some(stored) => {
                self.log(Pending::Remove(stored));
                true
            }
            None => false,
        }
    }

    /// Replaces the period with `new`'s (start, server) by `new`; returns whether it was there.
    fn replace(&mut self, new: RatedPeriod) -> bool {
        match self.blocks.replace(new) {
            Some(stored) => {
                self.log(Pending::Remove(stored));
                self.log(Pending::Insert(new));
                true
            }
            None => false,
        }
    }

    /// Brings the dual range tree up to date: replays the log, or rebuilds from the primal
    /// order when that is cheaper (amortized `O(log² V)` per change either way).
    fn sync_dual(&mut self) {
        if self.stale || self.pending.len() > self.len() / 4 + 16 {
            let mut all = Vec::with_capacity(self.len());
            self.blocks.collect(&mut all);
            self.dual.rebuild_from(&mut all);
            self.stale = false;
        } else {
            for change in &self.pending {
                match change {
                    Pending::Insert(p) => self.dual.insert(*p),
                    Pending::Remove(p) => {
                        let ok = self.dual.remove(p);
                        debug_assert!(ok, "primal and dual trees disagree on {p}");
                    }
                }
            }
        }
        self.pending.clear();
    }
}

/// FF-HA+: one primal/dual 2-D tree per rate class, searched class by class in `order`
/// (slowest first by default); see the [module docs](self) for the structure and costs.
#[derive(Debug, Clone)]
pub struct PrimalDualTrees {
    classes: RateClasses,
    order: ClassOrder,
    pick: PlusPick,
    /// Largest `|F|` the direct (blocks) search of a group gathers before it falls back to the
    /// dual range tree (`None`: no limit, the range tree is never used).
    budget: Option<usize>,
    trees: Vec<ClassTree>,
    operations: u64,
    scratch: Vec<RatedPeriod>,
}

impl PrimalDualTrees {
    /// Empty trees for these classes, searched in `order`, choosing with `pick`.
    pub fn new(classes: RateClasses, order: ClassOrder, pick: PlusPick) -> Self {
        let trees = (0..classes.len()).map(|_| ClassTree::new()).collect();
        PrimalDualTrees {
            classes,
            order,
            pick,
            budget: None,
            trees,
            operations: 0,
            scratch: Vec::new(),
        }
    }

    /// Lets the direct search of a group gather at most `n` dual-feasible periods before it
    /// falls back to the dual range tree (default: no limit, the range tree is never used; `0`
    /// always uses the range tree). The choice never changes, only the speed.
    pub fn with_enumeration_budget(mut self, n: usize) -> Self {
        self.budget = Some(n);
        self
    }

    /// Nodes held by all primary and secondary trees (a memory measure).
    pub fn structure_nodes(&self) -> usize {
        self.trees
            .iter()
            .map(|t| t.len() + t.dual.node_count() + t.pending.len())
            .sum()
    }

    /// The choice inside the answering group `lo..=hi` of class `h` (which holds the first
    /// feasible period `first`), and the dual nodes the pseudo-code visits there.
    fn pick_in_group(
        &mut self,
        h: usize,
        lo: usize,
        hi: usize,
        w: &RatedWindow,
        first: RatedPeriod,
    ) -> (RatedPeriod, u64) {
        let m = hi - lo + 1;
        if m == 1 {
            return (first, 1);
        }
        if self.pick == PlusPick::EarliestStart {
            return (first, failed_dual_visits(m));
        }
        // Direct search: the group's dual-feasible periods (end >= r + l/μ), found through the
        // blocks' latest-end summaries. Every rank the descent can return is among them.
        let mut f = std::mem::take(&mut self.scratch);
        f.clear();
        let complete = self.trees[h].blocks.gather(
            lo,
            hi,
            w.earliest_end,
            self.budget.unwrap_or(usize::MAX),
            &mut f,
        );
        let out = if complete {
            Some(match self.pick {
                PlusPick::MaxCapInFirstGroup => (
                    best_of(&f).expect("the group holds a feasible period"),
                    failed_dual_visits(m),
                ),
                _ => {
                    // Ranks within U: F holds ranks p..m (the largest ends).
                    let p = m - f.len();
                    let top = f
                        .iter()
                        .filter(|x| x.capacity >= w.min_capacity)
                        .copied()
                        .reduce(|a, b| {
                            if b.cmp_end(&a) == Ordering::Greater {
                                b
                            } else {
                                a
                            }
                        })
                        .expect("the group holds a feasible period");
                    let above = f
                        .iter()
                        .filter(|x| x.cmp_end(&top) == Ordering::Greater)
                        .count();
                    let (a, visits) = dual_split(m, p, m - 1 - above);
                    // The answer: the maximum capacity among the m - a largest ends.
                    let cut = a - p;
                    if cut > 0 {
                        f.select_nth_unstable_by(cut, RatedPeriod::cmp_end);
                    }
                    (best_of(&f[cut..]).expect("rank q is in the range"), visits)
                }
            })
        } else {
            None
        };
        self.scratch = f;
        if let Some(out) = out {
            return out;
        }
        // Too many to collect: the dual range tree answers in O(log² V).
        let t = &mut self.trees[h];
        let u = StartRange {
            lo: t.blocks.select(lo),
            hi: t.blocks.select(hi),
        };
        t.sync_dual();
        match self.pick {
            PlusPick::MaxCapInFirstGroup => {
                let best = t
                    .dual
                    .best_from_end(w.earliest_end, &u)
                    .expect("the group holds a feasible period");
                (best, failed_dual_visits(m))
            }
            _ => {
                let p = t.dual.count_end_below(w.earliest_end, &u);
                let (q, _) = t
                    .dual
                    .last_with_capacity(w.min_capacity, &u)
                    .expect("the group holds a feasible period");
                debug_assert!(p <= q && q < m, "p={p} q={q} m={m}");
                let (a, visits) = dual_split(m, p, q);
                let best = t
                    .dual
                    .best_from_rank(a, &u)
                    .expect("rank q is in the range");
                (best, visits)
            }
        }
    }
}

/// The maximum-capacity period (ties: smaller start, server).
fn best_of(periods: &[RatedPeriod]) -> Option<RatedPeriod> {
    periods
        .iter()
        .copied()
        .reduce(|a, b| if b.more_capacity_than(&a) { b } else { a })
}

impl RatedIndex for PrimalDualTrees {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        self.trees[p.class as usize].insert(p);
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        self.trees
            .get_mut(p.class as usize)
            .is_some_and(|t| t.remove(p))
    }

    fn carve(
        &mut self,
        p: &RatedPeriod,
        lead: Option<RatedPeriod>,
        trail: Option<RatedPeriod>,
    ) -> bool {
        let Some(t) = self.trees.get_mut(p.class as usize) else {
            return false;
        };
        // The leading fragment keeps the period's key: overwrite it in place.
        let removed = match lead {
            Some(l) if l.class == p.class && l.cmp_start(p).is_eq() => {
                t.replace(l) || {
                    self.insert(l);
                    false
                }
            }
            _ => {
                let removed = t.remove(p);
                if let Some(l) = lead {
                    self.insert(l);
                }
                removed
            }
        };
        if let Some(f) = trail {
            self.insert(f);
        }
        removed
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        for h in self.order.iter(self.classes.len()) {
            let w = windows[h];
            // The class pre-check `r + l/μ <= d`.
            self.operations += 1;
            if !w.possible {
                continue;
            }
            let t = &self.trees[h];
            let v = t.len();
            if v == 0 {
                continue;
            }
            // `k`: the periods with start <= d − l/μ. A scan that finds nothing has counted
            // them on the way (the window's times are finite, so `!(start > x)` is `start <= x`).
            let (k, hit) = match t.blocks.scan(&w) {
                Ok(f) => (
                    t.blocks.rank_le(w.latest_start),
                    Some((f.position, f.period)),
                ),
                Err(passed) => (passed, None),
            };
            debug_assert_eq!(k, t.blocks.rank_le(w.latest_start));
            let (group, ops) = primal_search(v, k, hit.map(|(i, _)| i));
            self.operations += ops;
            let (Some(g), Some((_, first))) = (group, hit) else {
                continue;
            };
            let (chosen, visits) = self.pick_in_group(h, g.lo, g.hi, &w, first);
            self.operations += visits;
            debug_assert!(w.admits(&chosen), "FF-HA+ chose an infeasible {chosen}");
            return Some(chosen);
        }
        None
    }

    fn len(&self) -> usize {
        self.trees.iter().map(ClassTree::len).sum()
    }

    fn class_len(&self, class: usize) -> usize {
        self.trees[class].len()
    }

    fn periods(&self) -> Vec<RatedPeriod> {
        let mut all = Vec::with_capacity(self.len());
        for t in &self.trees {
            t.blocks.collect(&mut all);
        }
        all.sort_by(RatedPeriod::cmp_start);
        all
    }

    fn operations(&self) -> u64 {
        self.operations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(start: f64, end: f64, server: u32, cap: f64) -> RatedPeriod {
        RatedPeriod {
            start,
            end,
            capacity: cap,
            server,
            class: 0,
        }
    }

    /// The range-tree queries against brute force on a random set, with inserts and removals.
    #[test]
    fn dual_range_tree_queries() {
        let mut rng = 0x1234_5678_u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut tree = DualRangeTree::new();
        let mut live: Vec<RatedPeriod> = Vec::new();
        for step in 0..3000u32 {
            if live.len() > 50 && next() % 3 == 0 {
                let i = (next() % live.len() as u64) as usize;
                let p = live.swap_remove(i);
                assert!(tree.remove(&p));
            } else {
                let s = (next() % 1000) as f64 / 10.0;
                let e = s + 1.0 + (next() % 500) as f64 / 10.0;
                let p = period(s, e, step, (next() % 40) as f64);
                tree.insert(p);
                live.push(p);
            }
            if step % 97 != 0 {
                continue;
            }
            let mut by_start = live.clone();
            by_start.sort_by(RatedPeriod::cmp_start);
            let n = by_start.len();
            let (i, j) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
            let (i, j) = (i.min(j), i.max(j));
            let u = StartRange {
                lo: by_start[i],
                hi: by_start[j],
            };
            let mut group: Vec<RatedPeriod> = by_start[i..=j].to_vec();
            group.sort_by(RatedPeriod::cmp_end);
            let e = (next() % 1500) as f64 / 10.0;
            let c = (next() % 40) as f64;
            assert_eq!(
                tree.count_end_below(e, &u),
                group.iter().filter(|p| p.end < e).count()
            );
            let last = group
                .iter()
                .enumerate()
                .rev()
                .find(|(_, p)| p.capacity >= c)
                .map(|(r, p)| (r, *p));
            assert_eq!(tree.last_with_capacity(c, &u), last);
            let a = (next() % group.len() as u64) as usize;
            let best = group[a..]
                .iter()
                .copied()
                .reduce(|x, y| if y.more_capacity_than(&x) { y } else { x });
            assert_eq!(tree.best_from_rank(a, &u), best);
            let best_e = group
                .iter()
                .filter(|p| p.end >= e)
                .copied()
                .reduce(|x, y| if y.more_capacity_than(&x) { y } else { x });
            assert_eq!(tree.best_from_end(e, &u), best_e);
            // A bulk-built tree answers identically.
            let mut bulk = DualRangeTree::new();
            bulk.rebuild_from(&mut live.clone());
            assert_eq!(bulk.count_end_below(e, &u), tree.count_end_below(e, &u));
            assert_eq!(bulk.last_with_capacity(c, &u), last);
            assert_eq!(bulk.best_from_rank(a, &u), best);
            assert_eq!(bulk.node_count(), tree.node_count());
        }
        for p in live.drain(..) {
            assert!(tree.remove(&p));
        }
        assert_eq!(tree.node_count(), 0);
    }
}
