//! Best-fit's 2-D structure: a dynamic range tree per strip.
//!
//! This is the thesis's structure (Castillo §3.3.3, spec §2.7): a *primary* tree ordered by
//! (start, server) whose every node `u` points to two *secondary* trees over the periods of
//! `u`'s subtree:
//! - `t^e(u)`: ordered by end, each node carrying the shortest period of its subtree (the
//!   thesis's "priority search tree in descending end order with min-length pointers");
//!   answers "the shortest period with `end >= r + l`" by one suffix fold;
//! - `t^l(u)`: ordered by (length, start, server); answers "the shortest period with
//!   `length >= l`" by one successor search.
//!
//! A query whose start range covers a whole strip (an *interior* strip) uses the root's
//! secondaries only: `O(log n)`. A *boundary* strip (the one holding `r`, or `d - l`) splits
//! the start range into `O(log n)` canonical subtrees of the primary, each searched in its
//! secondary: `O(log² n)`.
//!
//! Two engineering choices differ from a textbook range tree, neither changing the bounds:
//! - The primary is a **scapegoat tree** (a weight-balanced BST kept in shape by partial
//!   rebuilding, Galperin & Rivest 1993) instead of a red-black tree. Rotations in a range
//!   tree would have to rebuild the secondaries of the rotated nodes (`O(subtree size)`), and
//!   a red-black/AVL rotation can happen at the root; with partial rebuilding a subtree of
//!   size `s` is rebuilt only after `Ω(s)` updates inside it, so an update costs
//!   `O(log² n)` *amortized* (secondary insertions along the path plus the amortized
//!   rebuilds), the same bound the thesis's update has, and the height stays
//!   `O(log n)` (`<= log_{1/α} n + 1`, `α = 0.7`).
//! - Nodes whose subtree holds fewer than [`SECONDARY_MIN`] periods keep no secondaries; a
//!   query scans such a subtree directly (`O(1)` per query since the constant is fixed).
//!   This removes the lowest levels of secondaries, which are most of the nodes, and roughly
//!   halves the memory.
//!
//! Memory is `O(V log(V_strip))` like any range tree: each period is stored in the
//! secondaries of its `~log2(V_strip / SECONDARY_MIN)` ancestors, about 100 bytes each.
//! Indexes build it only when Best-fit is asked for.

use std::cell::Cell;
use std::cmp::Ordering;

use crate::period::{IdlePeriod, Time};
use crate::tree::{Forest, NIL, NodeId};

use super::keys::{ByEnd, ByLen, Shortest, pick, shorter};

/// Subtrees smaller than this keep no secondary trees and are scanned.
pub(crate) const SECONDARY_MIN: u32 = 16;

/// Scapegoat balance parameter: a node is unbalanced if a child holds more than `α` of it.
const ALPHA: f64 = 0.7;

/// A predicate on the primary key (start, server); monotone (prefix or suffix).
pub(crate) type StartPred<'a> = &'a dyn Fn(&IdlePeriod) -> bool;

#[derive(Debug, Clone)]
struct PNode {
    elem: IdlePeriod,
    left: NodeId,
    right: NodeId,
    size: u32,
    /// Subtree summaries used to skip canonical pieces without searching their secondaries:
    /// latest end, longest and shortest length.
    max_end: Time,
    max_len: Time,
    min_len: Time,
    /// Root of `t^e` over the subtree (NIL when `size < SECONDARY_MIN`).
    by_end: NodeId,
    /// Root of `t^l` over the subtree (NIL when `size < SECONDARY_MIN`).
    by_len: NodeId,
}

/// One strip's 2-D tree: the primary root and the scapegoat bookkeeping.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BfRoot {
    root: NodeId,
    /// Largest size since the last full rebuild (the scapegoat tree's `q`).
    max_size: u32,
}

impl Default for BfRoot {
    fn default() -> Self {
        BfRoot {
            root: NIL,
            max_size: 0,
        }
    }
}

impl BfRoot {
    pub(crate) fn is_empty(&self) -> bool {
        self.root == NIL
    }
}

/// The arenas of all strips' 2-D trees (primary nodes and both secondary forests).
#[derive(Debug, Clone, Default)]
pub(crate) struct BestFitForest {
    nodes: Vec<PNode>,
    free: Vec<NodeId>,
    ends: Forest<ByEnd, Shortest>,
    lens: Forest<ByLen, ()>,
    visits: Cell<u64>,
}

/// A canonical piece of a start range: one node's own period, or a whole subtree.
enum Piece {
    Elem(IdlePeriod),
    Subtree(NodeId),
}

impl BestFitForest {
    /// Node visits (primary and secondary).
    pub(crate) fn visits(&self) -> u64 {
        self.visits.get() + self.ends.visits() + self.lens.visits()
    }

    #[inline]
    fn touch(&self) {
        self.visits.set(self.visits.get() + 1);
    }

    #[inline]
    fn n(&self, id: NodeId) -> &PNode {
        &self.nodes[id as usize]
    }

    #[inline]
    fn n_mut(&mut self, id: NodeId) -> &mut PNode {
        &mut self.nodes[id as usize]
    }

    #[inline]
    fn size(&self, id: NodeId) -> u32 {
        if id == NIL { 0 } else { self.n(id).size }
    }

    fn alloc(&mut self, elem: IdlePeriod) -> NodeId {
        let node = PNode {
            elem,
            left: NIL,
            right: NIL,
            size: 1,
            max_end: elem.end,
            max_len: elem.len(),
            min_len: elem.len(),
            by_end: NIL,
            by_len: NIL,
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = NodeId::try_from(self.nodes.len()).expect("best-fit arena full");
                assert!(id != NIL, "best-fit arena full");
                self.nodes.push(node);
                id
            }
        }
    }

    /// Recomputes the summaries of `id` from its period and its children.
    fn fix(&mut self, id: NodeId) {
        let node = self.n(id);
        let (mut max_end, mut max_len, mut min_len) =
            (node.elem.end, node.elem.len(), node.elem.len());
        for c in [node.left, node.right] {
            if c != NIL {
                let c = self.n(c);
                if c.max_end > max_end {
                    max_end = c.max_end;
                }
                if c.max_len > max_len {
                    max_len = c.max_len;
                }
                if c.min_len < min_len {
                    min_len = c.min_len;
                }
            }
        }
        let node = self.n_mut(id);
        node.max_end = max_end;
        node.max_len = max_len;
        node.min_len = min_len;
    }

    /// Frees a node and its secondaries (not its children).
    fn release(&mut self, id: NodeId) {
        self.drop_secondaries(id);
        self.free.push(id);
    }

    fn drop_secondaries(&mut self, id: NodeId) {
        let (mut e, mut l) = (self.n(id).by_end, self.n(id).by_len);
        self.ends.clear(&mut e);
        self.lens.clear(&mut l);
        let node = self.n_mut(id);
        node.by_end = NIL;
        node.by_len = NIL;
    }

    /// The periods of a subtree, in (start, server) order.
    fn collect(&self, id: NodeId, out: &mut Vec<IdlePeriod>) {
        if id == NIL {
            return;
        }
        self.collect(self.n(id).left, out);
        out.push(self.n(id).elem);
        self.collect(self.n(id).right, out);
    }

    /// Builds both secondaries of `id` from its subtree.
    fn build_secondaries(&mut self, id: NodeId) {
        let mut elems = Vec::with_capacity(self.n(id).size as usize);
        self.collect(id, &mut elems);
        let mut by_end: Vec<ByEnd> = elems.iter().map(|p| ByEnd(*p)).collect();
        by_end.sort_unstable();
        let mut by_len: Vec<ByLen> = elems.iter().map(|p| ByLen(*p)).collect();
        by_len.sort_unstable();
        self.set_secondaries(id, &by_end, &by_len);
    }

    fn set_secondaries(&mut self, id: NodeId, by_end: &[ByEnd], by_len: &[ByLen]) {
        let e = self.ends.build_sorted(by_end);
        let l = self.lens.build_sorted(by_len);
        let node = self.n_mut(id);
        node.by_end = e;
        node.by_len = l;
    }

    /// Inserts a period that is not yet present. `O(log² n)` amortized.
    pub(crate) fn insert(&mut self, t: &mut BfRoot, p: IdlePeriod) {
        let new = self.alloc(p);
        if t.root == NIL {
            t.root = new;
            t.max_size = t.max_size.max(1);
            return;
        }
        let mut path: Vec<NodeId> = Vec::with_capacity(48);
        let mut cur = t.root;
        loop {
            path.push(cur);
            self.touch();
            let ord = p.cmp_start(&self.n(cur).elem);
            debug_assert!(ord != Ordering::Equal, "duplicate period {p}");
            let next = if ord == Ordering::Less {
                self.n(cur).left
            } else {
                self.n(cur).right
            };
            if next == NIL {
                if ord == Ordering::Less {
                    self.n_mut(cur).left = new;
                } else {
                    self.n_mut(cur).right = new;
                }
                break;
            }
            cur = next;
        }
        for &v in path.iter().rev() {
            self.fix(v);
        }
        for &v in &path {
            let size = self.n(v).size + 1;
            self.n_mut(v).size = size;
            if size > SECONDARY_MIN {
                let (mut e, mut l) = (self.n(v).by_end, self.n(v).by_len);
                self.ends.insert(&mut e, ByEnd(p));
                self.lens.insert(&mut l, ByLen(p));
                let node = self.n_mut(v);
                node.by_end = e;
                node.by_len = l;
            } else if size == SECONDARY_MIN {
                self.build_secondaries(v);
            }
        }
        let size = self.n(t.root).size;
        t.max_size = t.max_size.max(size);
        // Scapegoat: the new node is too deep, some ancestor is alpha-unbalanced.
        if path.len() as f64 > (size as f64).ln() / (1.0 / ALPHA).ln() {
            let mut child_size = 1u32;
            for i in (0..path.len()).rev() {
                let v = path[i];
                let sv = self.n(v).size;
                if f64::from(child_size) > ALPHA * f64::from(sv) {
                    let parent = if i == 0 { None } else { Some(path[i - 1]) };
                    self.rebuild_at(t, parent, v);
                    return;
                }
                child_size = sv;
            }
        }
    }

    /// Rebuilds the subtree `v` (child of `parent`, or the root) perfectly balanced.
    fn rebuild_at(&mut self, t: &mut BfRoot, parent: Option<NodeId>, v: NodeId) {
        let mut elems = Vec::with_capacity(self.n(v).size as usize);
        self.collect(v, &mut elems);
        self.free_subtree(v);
        let (new, _, _) = self.build(&elems);
        match parent {
            None => t.root = new,
            Some(u) => {
                if self.n(u).left == v {
                    self.n_mut(u).left = new;
                } else {
                    self.n_mut(u).right = new;
                }
            }
        }
    }

    fn free_subtree(&mut self, id: NodeId) {
        if id == NIL {
            return;
        }
        let (l, r) = (self.n(id).left, self.n(id).right);
        self.free_subtree(l);
        self.free_subtree(r);
        self.release(id);
    }

    /// Builds a balanced subtree over sorted `elems`; returns it with its periods sorted by
    /// end and by length (merged bottom-up: `O(s log s)` in total).
    fn build(&mut self, elems: &[IdlePeriod]) -> (NodeId, Vec<ByEnd>, Vec<ByLen>) {
        if elems.is_empty() {
            return (NIL, Vec::new(), Vec::new());
        }
        let mid = elems.len() / 2;
        let (l, le, ll) = self.build(&elems[..mid]);
        let (r, re, rl) = self.build(&elems[mid + 1..]);
        let id = self.alloc(elems[mid]);
        let by_end = merge3(le, ByEnd(elems[mid]), re);
        let by_len = merge3(ll, ByLen(elems[mid]), rl);
        {
            let node = self.n_mut(id);
            node.left = l;
            node.right = r;
            node.size = elems.len() as u32;
        }
        self.fix(id);
        if elems.len() as u32 >= SECONDARY_MIN {
            self.set_secondaries(id, &by_end, &by_len);
        }
        (id, by_end, by_len)
    }

    /// One fewer period under `v`: remove `e` from its secondaries, or drop them when the
    /// subtree falls below the threshold.
    fn shrink(&mut self, v: NodeId, e: &IdlePeriod) {
        let size = self.n(v).size - 1;
        self.n_mut(v).size = size;
        if size >= SECONDARY_MIN {
            let (mut be, mut bl) = (self.n(v).by_end, self.n(v).by_len);
            let a = self.ends.remove(&mut be, &ByEnd(*e));
            let b = self.lens.remove(&mut bl, &ByLen(*e));
            debug_assert!(a.is_some() && b.is_some(), "secondary out of sync at {e}");
            let node = self.n_mut(v);
            node.by_end = be;
            node.by_len = bl;
        } else if size + 1 >= SECONDARY_MIN {
            self.drop_secondaries(v);
        }
    }

    /// Removes the period with `p`'s (start, server); `p` must carry the stored end. Returns
    /// whether it was present. `O(log² n)` amortized.
    pub(crate) fn remove(&mut self, t: &mut BfRoot, p: &IdlePeriod) -> bool {
        let mut path: Vec<NodeId> = Vec::with_capacity(48);
        let mut cur = t.root;
        while cur != NIL {
            self.touch();
            path.push(cur);
            match p.cmp_start(&self.n(cur).elem) {
                Ordering::Less => cur = self.n(cur).left,
                Ordering::Greater => cur = self.n(cur).right,
                Ordering::Equal => break,
            }
        }
        if cur == NIL {
            return false;
        }
        let x = cur;
        let ex = self.n(x).elem;
        let (l, r) = (self.n(x).left, self.n(x).right);
        if l != NIL && r != NIL {
            // Replace x's period by its successor y and splice y's node out.
            let mut chain = Vec::new();
            let mut c = r;
            while self.n(c).left != NIL {
                self.touch();
                chain.push(c);
                c = self.n(c).left;
            }
            let y = c;
            let ey = self.n(y).elem;
            for &v in &path {
                self.shrink(v, &ex);
            }
            for &v in &chain {
                self.shrink(v, &ey);
            }
            let yr = self.n(y).right;
            match chain.last() {
                None => self.n_mut(x).right = yr,
                Some(&u) => self.n_mut(u).left = yr,
            }
            self.n_mut(x).elem = ey;
            self.release(y);
            for &v in chain.iter().rev().chain(path.iter().rev()) {
                self.fix(v);
            }
        } else {
            let child = if l != NIL { l } else { r };
            for &v in &path[..path.len() - 1] {
                self.shrink(v, &ex);
            }
            match path.len().checked_sub(2).map(|i| path[i]) {
                None => t.root = child,
                Some(u) => {
                    if self.n(u).left == x {
                        self.n_mut(u).left = child;
                    } else {
                        self.n_mut(u).right = child;
                    }
                }
            }
            self.release(x);
            for &v in path[..path.len() - 1].iter().rev() {
                self.fix(v);
            }
        }
        let size = self.size(t.root);
        if f64::from(size) < ALPHA * f64::from(t.max_size) {
            if t.root != NIL {
                let root = t.root;
                self.rebuild_at(t, None, root);
            }
            t.max_size = size;
        }
        true
    }

    /// A tree over `elems` (strictly increasing in (start, server) order), perfectly
    /// balanced: `O(s log s)`.
    pub(crate) fn build_root(&mut self, elems: &[IdlePeriod]) -> BfRoot {
        let (root, _, _) = self.build(elems);
        BfRoot {
            root,
            max_size: elems.len() as u32,
        }
    }

    /// Frees the whole tree.
    pub(crate) fn clear(&mut self, t: &mut BfRoot) {
        let root = t.root;
        self.free_subtree(root);
        *t = BfRoot::default();
    }

    /// Canonical decomposition of the start range (`lo`/`hi`: monotone, `None` = unbounded).
    fn pieces(
        &self,
        id: NodeId,
        lo: Option<StartPred<'_>>,
        hi: Option<StartPred<'_>>,
        out: &mut dyn FnMut(&Self, Piece),
    ) {
        if id == NIL {
            return;
        }
        if lo.is_none() && hi.is_none() {
            out(self, Piece::Subtree(id));
            return;
        }
        self.touch();
        let node = self.n(id);
        if lo.is_some_and(|f| !f(&node.elem)) {
            return self.pieces(node.right, lo, hi, out);
        }
        if hi.is_some_and(|f| !f(&node.elem)) {
            return self.pieces(node.left, lo, hi, out);
        }
        self.pieces(node.left, lo, None, out);
        out(self, Piece::Elem(node.elem));
        self.pieces(node.right, None, hi, out);
    }

    /// Scans a small subtree.
    fn scan(&self, id: NodeId, keep: &dyn Fn(&IdlePeriod) -> bool) -> Option<IdlePeriod> {
        if id == NIL {
            return None;
        }
        self.touch();
        let node = self.n(id);
        let mut best = self.scan(node.left, keep);
        if keep(&node.elem) {
            best = pick(best, Some(node.elem), shorter);
        }
        pick(best, self.scan(node.right, keep), shorter)
    }

    /// Whether a whole subtree can be skipped: it has no candidate, or even its shortest
    /// period is strictly longer than `best` (so it cannot win, not even a tie).
    fn useless(&self, id: NodeId, exists: bool, best: Option<IdlePeriod>) -> bool {
        !exists || best.is_some_and(|b| self.n(id).min_len > b.len())
    }

    /// The better of `best` and the shortest period (Best-fit order) among those with start in
    /// the range and `end >= earliest_end` (R1).
    pub(crate) fn shortest_ending_after(
        &self,
        t: &BfRoot,
        lo: Option<StartPred<'_>>,
        hi: Option<StartPred<'_>>,
        earliest_end: Time,
        mut best: Option<IdlePeriod>,
    ) -> Option<IdlePeriod> {
        let keep = |p: &IdlePeriod| p.end >= earliest_end;
        let lo_end = |k: &ByEnd| k.0.end >= earliest_end;
        self.pieces(t.root, lo, hi, &mut |me, piece| {
            let cand = match piece {
                Piece::Elem(e) => keep(&e).then_some(e),
                Piece::Subtree(id) if me.useless(id, me.n(id).max_end >= earliest_end, best) => {
                    None
                }
                Piece::Subtree(id) if me.n(id).size >= SECONDARY_MIN => me
                    .ends
                    .fold(me.n(id).by_end, Some(&lo_end), None)
                    .map(|s| s.0),
                Piece::Subtree(id) => me.scan(id, &keep),
            };
            best = pick(best, cand, shorter);
        });
        best
    }

    /// The better of `best` and the shortest period (Best-fit order) among those with start
    /// in the range and `len() >= min_len` (R2).
    pub(crate) fn shortest_at_least(
        &self,
        t: &BfRoot,
        lo: Option<StartPred<'_>>,
        hi: Option<StartPred<'_>>,
        min_len: Time,
        mut best: Option<IdlePeriod>,
    ) -> Option<IdlePeriod> {
        let keep = |p: &IdlePeriod| p.len() >= min_len;
        let lo_len = |k: &ByLen| k.0.len() >= min_len;
        self.pieces(t.root, lo, hi, &mut |me, piece| {
            let cand = match piece {
                Piece::Elem(e) => keep(&e).then_some(e),
                Piece::Subtree(id) if me.useless(id, me.n(id).max_len >= min_len, best) => None,
                Piece::Subtree(id) if me.n(id).size >= SECONDARY_MIN => me
                    .lens
                    .find_first(me.n(id).by_len, Some(&lo_len), None, &|_| true, &|_| true)
                    .map(|n| me.lens.key(n).0),
                Piece::Subtree(id) => me.scan(id, &keep),
            };
            best = pick(best, cand, shorter);
        });
        best
    }

    /// Checks sizes, order, secondaries (present iff large enough, holding exactly the
    /// subtree, internally valid) and the height bound. Returns the number of periods.
    pub(crate) fn check(&self, t: &BfRoot) -> Result<usize, String> {
        let (n, h) = self.check_rec(t.root)?;
        let bound = (f64::from(t.max_size.max(1))).ln() / (1.0 / ALPHA).ln() + 2.0;
        if f64::from(h) > bound + 1.0 {
            return Err(format!(
                "height {h} exceeds scapegoat bound {bound:.1} (size {n})"
            ));
        }
        if n as u32 > t.max_size {
            return Err(format!("size {n} above max_size {}", t.max_size));
        }
        Ok(n)
    }

    fn check_rec(&self, id: NodeId) -> Result<(usize, u32), String> {
        if id == NIL {
            return Ok((0, 0));
        }
        let node = self.n(id);
        let (nl, hl) = self.check_rec(node.left)?;
        let (nr, hr) = self.check_rec(node.right)?;
        let size = nl + nr + 1;
        if node.size as usize != size {
            return Err(format!("size of {} is {} not {size}", node.elem, node.size));
        }
        let mut elems = Vec::new();
        self.collect(id, &mut elems);
        let max_end = elems
            .iter()
            .map(|p| p.end)
            .fold(Time::NEG_INFINITY, Time::max);
        let max_len = elems
            .iter()
            .map(|p| p.len())
            .fold(Time::NEG_INFINITY, Time::max);
        let min_len = elems
            .iter()
            .map(|p| p.len())
            .fold(Time::INFINITY, Time::min);
        if (node.max_end, node.max_len, node.min_len) != (max_end, max_len, min_len) {
            return Err(format!("summaries of {} are stale", node.elem));
        }
        if elems
            .windows(2)
            .any(|w| w[0].cmp_start(&w[1]) != Ordering::Less)
        {
            return Err(format!("primary order broken under {}", node.elem));
        }
        if node.size >= SECONDARY_MIN {
            let ne = self.ends.check(node.by_end)?;
            let nl2 = self.lens.check(node.by_len)?;
            if ne != size || nl2 != size {
                return Err(format!(
                    "secondary sizes {ne}/{nl2} != {size} at {}",
                    node.elem
                ));
            }
            let mut want_e: Vec<ByEnd> = elems.iter().map(|p| ByEnd(*p)).collect();
            want_e.sort_unstable();
            let got_e: Vec<ByEnd> = self.ends.iter(node.by_end).copied().collect();
            let same_e = want_e
                .iter()
                .zip(&got_e)
                .all(|(a, b)| bits(&a.0) == bits(&b.0));
            let mut want_l: Vec<ByLen> = elems.iter().map(|p| ByLen(*p)).collect();
            want_l.sort_unstable();
            let got_l: Vec<ByLen> = self.lens.iter(node.by_len).copied().collect();
            let same_l = want_l
                .iter()
                .zip(&got_l)
                .all(|(a, b)| bits(&a.0) == bits(&b.0));
            if !same_e || !same_l {
                return Err(format!("secondary contents differ at {}", node.elem));
            }
        } else if node.by_end != NIL || node.by_len != NIL {
            return Err(format!("small subtree at {} keeps secondaries", node.elem));
        }
        Ok((size, 1 + hl.max(hr)))
    }
}

fn bits(p: &IdlePeriod) -> (u64, u64, u32) {
    (p.start.to_bits(), p.end.to_bits(), p.server)
}

/// Merges two sorted vectors and one extra element.
fn merge3<T: Ord + Copy>(a: Vec<T>, mid: T, b: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len() + 1);
    let (mut i, mut j) = (0, 0);
    let mut mid = Some(mid);
    loop {
        let mut best: Option<(T, u8)> = None;
        for (cand, src) in [(a.get(i).copied(), 0u8), (b.get(j).copied(), 1), (mid, 2)] {
            if let Some(c) = cand
                && best.is_none_or(|(bc, _)| c < bc)
            {
                best = Some((c, src));
            }
        }
        match best {
            None => return out,
            Some((c, src)) => {
                out.push(c);
                match src {
                    0 => i += 1,
                    1 => j += 1,
                    _ => mid = None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute_r1(all: &[IdlePeriod], ready: Time, e: Time) -> Option<IdlePeriod> {
        all.iter()
            .filter(|p| p.start < ready && p.end >= e)
            .copied()
            .fold(None, |b, c| pick(b, Some(c), shorter))
    }

    fn brute_r2(all: &[IdlePeriod], a: Time, b: Time, l: Time) -> Option<IdlePeriod> {
        all.iter()
            .filter(|p| p.start >= a && p.start <= b && p.len() >= l)
            .copied()
            .fold(None, |x, c| pick(x, Some(c), shorter))
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u8, u8),
        Remove(usize),
        Query(u8, u8, u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..60u8, 1..30u8, 0..40u8).prop_map(|(s, l, v)| Op::Insert(s, l, v)),
            2 => any::<usize>().prop_map(Op::Remove),
            2 => (0..70u8, 0..70u8, 1..30u8).prop_map(|(a, b, l)| Op::Query(a, b, l)),
        ]
    }

    fn run(ops: &[Op]) {
        let mut f = BestFitForest::default();
        let mut t = BfRoot::default();
        let mut all: Vec<IdlePeriod> = Vec::new();
        for op in ops {
            match *op {
                Op::Insert(s, l, v) => {
                    let p = IdlePeriod::new(
                        f64::from(s) * 0.5,
                        f64::from(s) * 0.5 + f64::from(l) * 0.25,
                        u32::from(v),
                    );
                    if !all.iter().any(|q| q.cmp_start(&p) == Ordering::Equal) {
                        all.push(p);
                        f.insert(&mut t, p);
                    }
                }
                Op::Remove(i) => {
                    if !all.is_empty() {
                        let p = all.swap_remove(i % all.len());
                        assert!(f.remove(&mut t, &p));
                        assert!(!f.remove(&mut t, &p));
                    }
                }
                Op::Query(a, b, l) => {
                    let (a, b) = (f64::from(a.min(b)) * 0.5, f64::from(a.max(b)) * 0.5);
                    let l = f64::from(l) * 0.25;
                    let lo = |p: &IdlePeriod| p.start >= a;
                    let hi = |p: &IdlePeriod| p.start <= b;
                    let below = |p: &IdlePeriod| p.start < a;
                    assert_eq!(
                        f.shortest_at_least(&t, Some(&lo), Some(&hi), l, None),
                        brute_r2(&all, a, b, l)
                    );
                    assert_eq!(
                        f.shortest_at_least(&t, None, None, l, None),
                        brute_r2(&all, f64::NEG_INFINITY, f64::INFINITY, l)
                    );
                    assert_eq!(
                        f.shortest_ending_after(&t, None, Some(&below), b + l, None),
                        brute_r1(&all, a, b + l)
                    );
                    assert_eq!(
                        f.shortest_ending_after(&t, None, None, b + l, None),
                        brute_r1(&all, f64::INFINITY, b + l)
                    );
                }
            }
            assert_eq!(f.check(&t), Ok(all.len()));
        }
        f.clear(&mut t);
        assert_eq!(f.nodes.len(), f.free.len());
        assert_eq!(f.ends.live_nodes() + f.lens.live_nodes(), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn matches_brute_force(ops in prop::collection::vec(op(), 0..400)) {
            run(&ops);
        }
    }

    #[test]
    fn sequential_inserts_and_deletes_keep_height_logarithmic() {
        let mut f = BestFitForest::default();
        let mut t = BfRoot::default();
        let ps: Vec<IdlePeriod> = (0..3000)
            .map(|i| IdlePeriod::new(f64::from(i), f64::from(i) + 1.0 + f64::from(i % 7), 0))
            .collect();
        for p in &ps {
            f.insert(&mut t, *p);
        }
        assert_eq!(f.check(&t), Ok(3000));
        for p in ps.iter().step_by(3) {
            assert!(f.remove(&mut t, p));
        }
        assert_eq!(f.check(&t), Ok(2000));
    }
}
