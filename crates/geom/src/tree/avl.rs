//! Arena-allocated AVL trees with subtree summaries.

use std::cell::Cell;
use std::cmp::Ordering;
use std::fmt::Debug;

/// Index of a node in a [`Forest`]. A tree is identified by its root id; [`NIL`] is the empty
/// tree.
pub type NodeId = u32;

/// The null link / the empty tree.
pub const NIL: NodeId = u32::MAX;

/// A predicate on keys that bounds a range. A lower bound must be *upward closed* (if it holds
/// for a key it holds for every larger key), an upper bound *downward closed*.
pub type KeyPred<'a, K> = &'a dyn Fn(&K) -> bool;

/// Longest root-to-leaf path an update keeps on its stack. An AVL tree of height `h` holds at
/// least `F(h + 2) - 1` keys, so `2^32` node ids allow a height of at most 46.
const MAX_DEPTH: usize = 64;

/// A monoid-like summary of a subtree, recomputed bottom-up on every structural change.
///
/// `combine` must be associative; it is applied in key order (`combine(left, right)` where
/// every key of `left` precedes every key of `right`), so order-dependent summaries such as
/// "first key with property X" are allowed. The summary of a node is
/// `combine(combine(left, of(key)), right)` (missing children are skipped).
pub trait Summary<K>: Clone {
    /// The summary of a single key.
    fn of(key: &K) -> Self;
    /// The summary of two adjacent key ranges, `left` before `right`.
    fn combine(left: &Self, right: &Self) -> Self;
    /// Whether `new` may stand for `old` in every later use, i.e. they are equal bit for bit.
    /// An update stops climbing at a node whose height and summary are unchanged (its
    /// ancestors are then unchanged too). The default, `false`, always climbs to the root.
    #[inline]
    fn unchanged(_old: &Self, _new: &Self) -> bool {
        false
    }
}

/// No augmentation.
impl<K> Summary<K> for () {
    #[inline]
    fn of(_: &K) {}
    #[inline]
    fn combine(_: &(), _: &()) {}
    #[inline]
    fn unchanged(_: &(), _: &()) -> bool {
        true
    }
}

#[derive(Debug, Clone)]
struct Node<K, S> {
    key: K,
    sum: S,
    left: NodeId,
    right: NodeId,
    height: u8,
}

/// Nodes of any number of AVL trees, in one `Vec` with a free list.
///
/// Keys are unique within a tree and ordered by `K: Ord`. Every public operation takes the
/// root of the tree it works on (`&mut NodeId` when the root may change). Counts every node it
/// touches in [`Forest::visits`], a deterministic cost measure.
///
/// Updates are iterative (an explicit path stack) and stop climbing at the first node whose
/// height and summary did not change ([`Summary::unchanged`]), so an insertion or deletion
/// recomputes `O(1)` summaries on average, `O(log n)` at worst. The descents exist in a
/// monomorphized form ([`Forest::first_in`], [`Forest::last_in`], [`Forest::fold_in`]) whose
/// predicates inline, and in a `dyn` form ([`Forest::find_first`], ...) for convenience.
///
/// ```
/// use gridsched_geom::tree::{Forest, NIL, Summary};
///
/// /// Largest key of a subtree.
/// #[derive(Clone, Debug, PartialEq)]
/// struct Max(u32);
/// impl Summary<u32> for Max {
///     fn of(k: &u32) -> Self { Max(*k) }
///     fn combine(a: &Self, b: &Self) -> Self { Max(a.0.max(b.0)) }
/// }
///
/// let mut forest: Forest<u32, Max> = Forest::new();
/// let (mut a, mut b) = (NIL, NIL);
/// for k in [5, 1, 9, 3] { forest.insert(&mut a, k); }
/// forest.insert(&mut b, 42);
/// assert_eq!(forest.summary(a), Some(&Max(9)));
/// // first key >= 2 that is odd, pruning nothing:
/// let hit = forest.find_first(a, Some(&|k: &u32| *k >= 2), None, &|_| true, &|k| k % 2 == 1);
/// assert_eq!(hit.map(|n| *forest.key(n)), Some(3));
/// assert_eq!(forest.remove(&mut a, &9), Some(9));
/// assert_eq!(forest.iter(a).copied().collect::<Vec<_>>(), vec![1, 3, 5]);
/// forest.check(a).unwrap();
/// forest.clear(&mut b);
/// assert_eq!(b, NIL);
/// ```
#[derive(Debug, Clone)]
pub struct Forest<K, S = ()> {
    nodes: Vec<Node<K, S>>,
    free: Vec<NodeId>,
    visits: Cell<u64>,
}

impl<K, S> Default for Forest<K, S> {
    fn default() -> Self {
        Forest {
            nodes: Vec::new(),
            free: Vec::new(),
            visits: Cell::new(0),
        }
    }
}

/// "No bound" for the monomorphized descents: `None::<&NoBound<K>>`.
pub type NoBound<K> = fn(&K) -> bool;

impl<K: Ord + Clone, S: Summary<K>> Forest<K, S> {
    /// An empty forest.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes in use, over all trees.
    pub fn live_nodes(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Cumulative number of nodes touched by every operation.
    pub fn visits(&self) -> u64 {
        self.visits.get()
    }

    #[inline]
    fn touch(&self) {
        self.visits.set(self.visits.get() + 1);
    }

    /// Adds `n` to [`Forest::visits`] (for work done on keys kept outside the trees).
    #[inline]
    pub(crate) fn add_visits(&self, n: u64) {
        self.visits.set(self.visits.get() + n);
    }

    #[inline]
    fn node(&self, id: NodeId) -> &Node<K, S> {
        &self.nodes[id as usize]
    }

    #[inline]
    fn node_mut(&mut self, id: NodeId) -> &mut Node<K, S> {
        &mut self.nodes[id as usize]
    }

    /// The key stored in node `id`.
    #[inline]
    pub fn key(&self, id: NodeId) -> &K {
        &self.node(id).key
    }

    /// The summary of the subtree rooted at `id`, or `None` for [`NIL`].
    #[inline]
    pub fn summary(&self, id: NodeId) -> Option<&S> {
        (id != NIL).then(|| &self.node(id).sum)
    }

    /// Left child of `id` ([`NIL`] if none).
    #[inline]
    pub fn left(&self, id: NodeId) -> NodeId {
        self.node(id).left
    }

    /// Right child of `id` ([`NIL`] if none).
    #[inline]
    pub fn right(&self, id: NodeId) -> NodeId {
        self.node(id).right
    }

    /// Height of the subtree rooted at `id` (0 for [`NIL`]).
    #[inline]
    pub fn height(&self, id: NodeId) -> u8 {
        if id == NIL { 0 } else { self.node(id).height }
    }

    fn alloc(&mut self, key: K) -> NodeId {
        let sum = S::of(&key);
        let node = Node {
            key,
            sum,
            left: NIL,
            right: NIL,
            height: 1,
        };
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = NodeId::try_from(self.nodes.len()).expect("forest full");
                assert!(id != NIL, "forest full");
                self.nodes.push(node);
                id
            }
        }
    }

    /// Recomputes height and summary of `id` from its children.
    #[inline]
    fn update(&mut self, id: NodeId) {
        let node = self.node(id);
        let (l, r) = (node.left, node.right);
        let mut sum = S::of(&node.key);
        let mut h = 0;
        if l != NIL {
            let ln = self.node(l);
            sum = S::combine(&ln.sum, &sum);
            h = ln.height;
        }
        if r != NIL {
            let rn = self.node(r);
            sum = S::combine(&sum, &rn.sum);
            h = h.max(rn.height);
        }
        let node = self.node_mut(id);
        node.sum = sum;
        node.height = h + 1;
    }

    fn rotate_right(&mut self, id: NodeId) -> NodeId {
        let l = self.node(id).left;
        self.node_mut(id).left = self.node(l).right;
        self.node_mut(l).right = id;
        self.update(id);
        self.update(l);
        l
    }

    fn rotate_left(&mut self, id: NodeId) -> NodeId {
        let r = self.node(id).right;
        self.node_mut(id).right = self.node(r).left;
        self.node_mut(r).left = id;
        self.update(id);
        self.update(r);
        r
    }

    /// Restores the AVL balance at `id` (whose children are balanced and up to date) and
    /// recomputes it; returns the new subtree root.
    fn rebalance(&mut self, id: NodeId) -> NodeId {
        let (l, r) = (self.node(id).left, self.node(id).right);
        let (hl, hr) = (self.height(l), self.height(r));
        if hl > hr + 1 {
            if self.height(self.node(l).left) < self.height(self.node(l).right) {
                let nl = self.rotate_left(l);
                self.node_mut(id).left = nl;
            }
            self.rotate_right(id)
        } else if hr > hl + 1 {
            if self.height(self.node(r).right) < self.height(self.node(r).left) {
                let nr = self.rotate_right(r);
                self.node_mut(id).right = nr;
            }
            self.rotate_left(id)
        } else {
            self.update(id);
            id
        }
    }

    /// Links `child` under the last node of `path` (on the side bit `i` of `right` gives for
    /// `path[i]`) and restores balance, heights and summaries upwards. Stops at the first node
    /// below level `force` that is unchanged; otherwise sets `root`.
    fn fix_path(
        &mut self,
        root: &mut NodeId,
        path: &[NodeId],
        right: u64,
        mut child: NodeId,
        force: usize,
    ) {
        for i in (0..path.len()).rev() {
            let v = path[i];
            let node = self.node_mut(v);
            if right >> i & 1 == 1 {
                node.right = child;
            } else {
                node.left = child;
            }
            let (h, sum) = (node.height, node.sum.clone());
            let nv = self.rebalance(v);
            if nv == v
                && i < force
                && self.node(v).height == h
                && S::unchanged(&sum, &self.node(v).sum)
            {
                return;
            }
            child = nv;
        }
        *root = child;
    }

    /// Inserts `key` into the tree at `root`; returns `false` (and drops `key`) if an equal key
    /// is already there. `O(log n)`.
    pub fn insert(&mut self, root: &mut NodeId, key: K) -> bool {
        let mut path = [NIL; MAX_DEPTH];
        let mut right = 0u64;
        let mut n = 0;
        let mut id = *root;
        while id != NIL {
            let node = self.node(id);
            path[n] = id;
            let ord = key.cmp(&node.key);
            if ord == Ordering::Equal {
                self.add_visits(n as u64 + 1);
                return false;
            }
            // Branch-free step (the direction of a random key is unpredictable).
            let go_right = ord == Ordering::Greater;
            right |= u64::from(go_right) << n;
            id = if go_right { node.right } else { node.left };
            n += 1;
        }
        self.add_visits(n as u64);
        let new = self.alloc(key);
        self.fix_path(root, &path[..n], right, new, usize::MAX);
        true
    }

    /// Removes the key equal to `key` from the tree at `root` and returns it. `O(log n)`.
    pub fn remove(&mut self, root: &mut NodeId, key: &K) -> Option<K> {
        let mut path = [NIL; MAX_DEPTH];
        let mut right = 0u64;
        let mut n = 0;
        let mut id = *root;
        loop {
            if id == NIL {
                self.add_visits(n as u64);
                return None;
            }
            let node = self.node(id);
            let ord = key.cmp(&node.key);
            if ord == Ordering::Equal {
                self.add_visits(n as u64 + 1);
                break;
            }
            let go_right = ord == Ordering::Greater;
            right |= u64::from(go_right) << n;
            path[n] = id;
            n += 1;
            id = if go_right { node.right } else { node.left };
        }
        Some(self.unlink(root, &mut path, n, right, id))
    }

    /// Removes node `x`, reached from the root through `path[..n]` (bit `i` of `right`: the
    /// side taken below `path[i]`), and returns its key. The second half of
    /// [`Forest::remove`], shared with [`Forest::remove_first`].
    fn unlink(
        &mut self,
        root: &mut NodeId,
        path: &mut [NodeId; MAX_DEPTH],
        mut n: usize,
        mut right: u64,
        x: NodeId,
    ) -> K {
        let (l, r) = (self.node(x).left, self.node(x).right);
        let out = self.node(x).key.clone();
        self.free.push(x);
        if l == NIL || r == NIL {
            let child = if l == NIL { r } else { l };
            self.fix_path(root, &path[..n], right, child, usize::MAX);
        } else {
            // The successor m (minimum of the right subtree) takes x's place; its own right
            // subtree takes m's. Levels from x's position down must all be recomputed.
            let xi = n;
            right |= 1 << n;
            n += 1;
            let mut c = r;
            while self.node(c).left != NIL {
                self.touch();
                path[n] = c;
                n += 1;
                c = self.node(c).left;
            }
            let m = c;
            let child = self.node(m).right;
            let node = self.node_mut(m);
            node.left = l;
            if m != r {
                node.right = r;
            }
            path[xi] = m;
            self.fix_path(root, &path[..n], right, child, xi);
        }
        out
    }

    /// Removes and returns the first key (in key order) satisfying `pred`, `sub` pruning the
    /// subtrees as in [`Forest::first_in`] without bounds. The same result, tree and
    /// [`Forest::visits`] as `first_in(root, None, None, sub, pred)` followed by
    /// `remove(root, key)` (the search path of a key is the unique root path of its node, so
    /// the removal's descent is replayed from the path the search found), in one descent.
    pub fn remove_first<B, P>(&mut self, root: &mut NodeId, sub: &B, pred: &P) -> Option<K>
    where
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        let mut path = [NIL; MAX_DEPTH];
        let mut right = 0u64;
        let mut n = 0;
        let x = self.first_full_path(*root, sub, pred, &mut path, &mut right, &mut n)?;
        // Sides recorded below the path by abandoned branches are stale.
        right &= (1u64 << n) - 1;
        // What `remove`'s descent to `x` would have counted.
        self.add_visits(n as u64 + 1);
        Some(self.unlink(root, &mut path, n, right, x))
    }

    /// Removes and returns the smallest key if `take` holds for it. The same result, tree and
    /// [`Forest::visits`] as [`Forest::first`] followed (if `take` holds) by
    /// [`Forest::remove`] of that key, in one walk down the left spine.
    pub fn pop_first_if<T>(&mut self, root: &mut NodeId, take: T) -> Option<K>
    where
        T: Fn(&K) -> bool,
    {
        let mut path = [NIL; MAX_DEPTH];
        let mut n = 0;
        let mut id = *root;
        if id == NIL {
            return None;
        }
        loop {
            let left = self.node(id).left;
            if left == NIL {
                break;
            }
            self.touch();
            path[n] = id;
            n += 1;
            id = left;
        }
        if !take(&self.node(id).key) {
            return None;
        }
        self.add_visits(n as u64 + 1);
        Some(self.unlink(root, &mut path, n, 0, id))
    }

    /// [`Forest::first_full`] that also records the root path of the node it finds (the
    /// nodes above it in `path[..n]`, the sides taken in `right`).
    fn first_full_path<B, P>(
        &self,
        id: NodeId,
        sub: &B,
        pred: &P,
        path: &mut [NodeId; MAX_DEPTH],
        right: &mut u64,
        n: &mut usize,
    ) -> Option<NodeId>
    where
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if id == NIL {
            return None;
        }
        self.touch();
        let node = self.node(id);
        if !sub(&node.sum) {
            return None;
        }
        let depth = *n;
        path[depth] = id;
        *n = depth + 1;
        *right &= !(1u64 << depth);
        if let Some(hit) = self.first_full_path(node.left, sub, pred, path, right, n) {
            return Some(hit);
        }
        if pred(&node.key) {
            *n = depth;
            return Some(id);
        }
        *n = depth + 1;
        *right |= 1u64 << depth;
        let hit = self.first_full_path(node.right, sub, pred, path, right, n);
        if hit.is_none() {
            *n = depth;
        }
        hit
    }

    /// Replaces the key equal to `old` by `new` in place if `new` has the same rank, i.e. it
    /// lies strictly between the keys next to `old`; returns whether it did (`false` also if
    /// `old` is absent). Summaries are recomputed along the path, stopping at the first
    /// unchanged one. `O(log n)`, without the rebalancing of a removal and an insertion.
    pub fn replace(&mut self, root: NodeId, old: &K, new: K) -> bool {
        let mut path = [NIL; MAX_DEPTH];
        let mut n = 0;
        let (mut lower, mut upper) = (NIL, NIL);
        let mut id = root;
        loop {
            if id == NIL {
                self.add_visits(n as u64);
                return false;
            }
            let node = self.node(id);
            let ord = old.cmp(&node.key);
            if ord == Ordering::Equal {
                self.add_visits(n as u64 + 1);
                break;
            }
            let go_right = ord == Ordering::Greater;
            if go_right {
                lower = id;
            } else {
                upper = id;
            }
            path[n] = id;
            n += 1;
            id = if go_right { node.right } else { node.left };
        }
        let x = id;
        let (l, r) = (self.node(x).left, self.node(x).right);
        let pred = if l == NIL {
            lower
        } else {
            self.extreme(l, false)
        };
        let succ = if r == NIL {
            upper
        } else {
            self.extreme(r, true)
        };
        if (pred != NIL && self.node(pred).key >= new)
            || (succ != NIL && self.node(succ).key <= new)
        {
            return false;
        }
        self.node_mut(x).key = new;
        for v in std::iter::once(x).chain(path[..n].iter().rev().copied()) {
            let sum = self.node(v).sum.clone();
            self.update(v);
            if S::unchanged(&sum, &self.node(v).sum) {
                break;
            }
        }
        true
    }

    /// The leftmost (`leftmost = true`) or rightmost node of the subtree `id`.
    fn extreme(&self, mut id: NodeId, leftmost: bool) -> NodeId {
        loop {
            self.touch();
            let node = self.node(id);
            let next = if leftmost { node.left } else { node.right };
            if next == NIL {
                return id;
            }
            id = next;
        }
    }

    /// The node holding the key equal to `key`. `O(log n)`.
    pub fn get(&self, root: NodeId, key: &K) -> Option<NodeId> {
        let mut id = root;
        let mut seen = 0;
        while id != NIL {
            seen += 1;
            let node = self.node(id);
            let ord = key.cmp(&node.key);
            if ord == Ordering::Equal {
                self.add_visits(seen);
                return Some(id);
            }
            id = if ord == Ordering::Greater {
                node.right
            } else {
                node.left
            };
        }
        self.add_visits(seen);
        None
    }

    /// The smallest key of the tree.
    pub fn first(&self, root: NodeId) -> Option<&K> {
        let mut id = root;
        if id == NIL {
            return None;
        }
        while self.node(id).left != NIL {
            self.touch();
            id = self.node(id).left;
        }
        Some(&self.node(id).key)
    }

    /// The largest key of the tree.
    pub fn last(&self, root: NodeId) -> Option<&K> {
        let mut id = root;
        if id == NIL {
            return None;
        }
        while self.node(id).right != NIL {
            self.touch();
            id = self.node(id).right;
        }
        Some(&self.node(id).key)
    }

    /// In-order iterator over the keys of the tree.
    pub fn iter(&self, root: NodeId) -> Iter<'_, K, S> {
        let mut it = Iter {
            forest: self,
            stack: Vec::new(),
        };
        it.push_left(root);
        it
    }

    /// Number of keys in the tree (`O(n)`: sizes are not stored).
    pub fn count(&self, root: NodeId) -> usize {
        self.iter(root).count()
    }

    /// Frees every node of the tree and sets `root` to [`NIL`]. The free list itself is the
    /// traversal's queue (a node is appended to it, then its children), so clearing allocates
    /// nothing beyond the free list's amortized growth.
    pub fn clear(&mut self, root: &mut NodeId) {
        if *root == NIL {
            return;
        }
        let mut next = self.free.len();
        self.free.push(*root);
        while next < self.free.len() {
            let node = self.node(self.free[next]);
            let (left, right) = (node.left, node.right);
            for child in [left, right] {
                if child != NIL {
                    self.free.push(child);
                }
            }
            next += 1;
        }
        *root = NIL;
    }

    /// Removes every key of the tree, returned in order; `root` becomes [`NIL`].
    pub fn drain(&mut self, root: &mut NodeId) -> Vec<K> {
        let keys: Vec<K> = self.iter(*root).cloned().collect();
        self.clear(root);
        keys
    }

    /// Builds a perfectly balanced tree from strictly increasing keys in `O(n)`; returns its
    /// root.
    pub fn build_sorted(&mut self, keys: &[K]) -> NodeId {
        debug_assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "keys not strictly increasing"
        );
        self.build_rec(keys)
    }

    fn build_rec(&mut self, keys: &[K]) -> NodeId {
        if keys.is_empty() {
            return NIL;
        }
        let mid = keys.len() / 2;
        let l = self.build_rec(&keys[..mid]);
        let r = self.build_rec(&keys[mid + 1..]);
        let id = self.alloc(keys[mid].clone());
        let node = self.node_mut(id);
        node.left = l;
        node.right = r;
        self.update(id);
        id
    }

    /// The first node in key order whose key lies in the range (`lo`/`hi`: monotone bounds,
    /// `None` = unbounded) and satisfies `pred`.
    ///
    /// `sub(summary)` must be true whenever some key of that subtree satisfies `pred` (it is
    /// used to skip subtrees that lie wholly inside the range). When it is *exactly* "some key
    /// satisfies `pred`", the search visits `O(log n)` nodes; with both bounds `None` and a
    /// failing root summary it costs `O(1)`.
    pub fn find_first(
        &self,
        root: NodeId,
        lo: Option<KeyPred<'_, K>>,
        hi: Option<KeyPred<'_, K>>,
        sub: &dyn Fn(&S) -> bool,
        pred: &dyn Fn(&K) -> bool,
    ) -> Option<NodeId> {
        self.first_in(root, lo, hi, sub, pred)
    }

    /// Mirror of [`Forest::find_first`]: the last node in key order in the range satisfying
    /// `pred`.
    pub fn find_last(
        &self,
        root: NodeId,
        lo: Option<KeyPred<'_, K>>,
        hi: Option<KeyPred<'_, K>>,
        sub: &dyn Fn(&S) -> bool,
        pred: &dyn Fn(&K) -> bool,
    ) -> Option<NodeId> {
        self.last_in(root, lo, hi, sub, pred)
    }

    /// The combined summary of the keys in the range (`None` if it is empty). `O(log n)`.
    pub fn fold(
        &self,
        root: NodeId,
        lo: Option<KeyPred<'_, K>>,
        hi: Option<KeyPred<'_, K>>,
    ) -> Option<S> {
        self.fold_in(root, lo, hi)
    }

    /// [`Forest::find_first`] with statically dispatched predicates (pass
    /// `None::<&NoBound<K>>` for a missing bound).
    pub fn first_in<L, H, B, P>(
        &self,
        id: NodeId,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<NodeId>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        let mut id = id;
        loop {
            if id == NIL {
                return None;
            }
            if lo.is_none() && hi.is_none() {
                return self.first_full(id, sub, pred);
            }
            self.touch();
            let node = self.node(id);
            if lo.is_some_and(|f| !f(&node.key)) {
                id = node.right;
                continue;
            }
            if hi.is_some_and(|f| !f(&node.key)) {
                id = node.left;
                continue;
            }
            if let Some(hit) = self.first_in(node.left, lo, None::<&H>, sub, pred) {
                return Some(hit);
            }
            if pred(&node.key) {
                return Some(id);
            }
            return self.first_in(node.right, None::<&L>, hi, sub, pred);
        }
    }

    fn first_full<B, P>(&self, id: NodeId, sub: &B, pred: &P) -> Option<NodeId>
    where
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if id == NIL {
            return None;
        }
        self.touch();
        let node = self.node(id);
        if !sub(&node.sum) {
            return None;
        }
        if let Some(hit) = self.first_full(node.left, sub, pred) {
            return Some(hit);
        }
        if pred(&node.key) {
            return Some(id);
        }
        self.first_full(node.right, sub, pred)
    }

    /// [`Forest::find_last`] with statically dispatched predicates.
    pub fn last_in<L, H, B, P>(
        &self,
        id: NodeId,
        lo: Option<&L>,
        hi: Option<&H>,
        sub: &B,
        pred: &P,
    ) -> Option<NodeId>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        let mut id = id;
        loop {
            if id == NIL {
                return None;
            }
            if lo.is_none() && hi.is_none() {
                return self.last_full(id, sub, pred);
            }
            self.touch();
            let node = self.node(id);
            if lo.is_some_and(|f| !f(&node.key)) {
                id = node.right;
                continue;
            }
            if hi.is_some_and(|f| !f(&node.key)) {
                id = node.left;
                continue;
            }
            if let Some(hit) = self.last_in(node.right, None::<&L>, hi, sub, pred) {
                return Some(hit);
            }
            if pred(&node.key) {
                return Some(id);
            }
            return self.last_in(node.left, lo, None::<&H>, sub, pred);
        }
    }

    fn last_full<B, P>(&self, id: NodeId, sub: &B, pred: &P) -> Option<NodeId>
    where
        B: Fn(&S) -> bool + ?Sized,
        P: Fn(&K) -> bool + ?Sized,
    {
        if id == NIL {
            return None;
        }
        self.touch();
        let node = self.node(id);
        if !sub(&node.sum) {
            return None;
        }
        if let Some(hit) = self.last_full(node.right, sub, pred) {
            return Some(hit);
        }
        if pred(&node.key) {
            return Some(id);
        }
        self.last_full(node.left, sub, pred)
    }

    /// Calls `f` on every key in the range that satisfies `pred`, in key order, skipping the
    /// subtrees inside the range whose summary fails `sub` (which must hold whenever some key
    /// of the subtree satisfies `pred`). `O((1 + hits) log n)` when `sub` is exact.
    pub fn for_each_in<L, H, B, P, F>(
        &self,
        id: NodeId,
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
        let mut id = id;
        loop {
            if id == NIL {
                return;
            }
            self.touch();
            let node = self.node(id);
            if lo.is_none() && hi.is_none() && !sub(&node.sum) {
                return;
            }
            if lo.is_some_and(|g| !g(&node.key)) {
                id = node.right;
                continue;
            }
            if hi.is_some_and(|g| !g(&node.key)) {
                id = node.left;
                continue;
            }
            self.for_each_in(node.left, lo, None::<&H>, sub, pred, f);
            if pred(&node.key) {
                f(&node.key);
            }
            return self.for_each_in(node.right, None::<&L>, hi, sub, pred, f);
        }
    }

    /// [`Forest::fold`] with statically dispatched bounds.
    pub fn fold_in<L, H>(&self, id: NodeId, lo: Option<&L>, hi: Option<&H>) -> Option<S>
    where
        L: Fn(&K) -> bool + ?Sized,
        H: Fn(&K) -> bool + ?Sized,
    {
        let mut id = id;
        loop {
            if id == NIL {
                return None;
            }
            self.touch();
            let node = self.node(id);
            if lo.is_none() && hi.is_none() {
                return Some(node.sum.clone());
            }
            if lo.is_some_and(|f| !f(&node.key)) {
                id = node.right;
                continue;
            }
            if hi.is_some_and(|f| !f(&node.key)) {
                id = node.left;
                continue;
            }
            let mid = S::of(&node.key);
            let with_left = match self.fold_in(node.left, lo, None::<&H>) {
                Some(l) => S::combine(&l, &mid),
                None => mid,
            };
            return Some(match self.fold_in(node.right, None::<&L>, hi) {
                Some(r) => S::combine(&with_left, &r),
                None => with_left,
            });
        }
    }
}

impl<K: Ord + Clone + Debug, S: Summary<K> + PartialEq + Debug> Forest<K, S> {
    /// Checks every invariant of the tree at `root`: strict key order, stored heights, AVL
    /// balance, and that every stored summary equals the one recomputed from the children.
    /// Returns the number of keys. `O(n)`; for tests and debugging.
    pub fn check(&self, root: NodeId) -> Result<usize, String> {
        self.check_rec(root).map(|(_, n)| n)
    }

    fn check_rec(&self, id: NodeId) -> Result<(u8, usize), String> {
        if id == NIL {
            return Ok((0, 0));
        }
        if id as usize >= self.nodes.len() {
            return Err(format!("dangling node id {id}"));
        }
        let node = self.node(id);
        let (hl, nl) = self.check_rec(node.left)?;
        let (hr, nr) = self.check_rec(node.right)?;
        if node.left != NIL {
            let k = &self.last(node.left).expect("non-empty");
            if *k >= &node.key {
                return Err(format!("order: {k:?} left of {:?}", node.key));
            }
        }
        if node.right != NIL {
            let k = &self.first(node.right).expect("non-empty");
            if *k <= &node.key {
                return Err(format!("order: {k:?} right of {:?}", node.key));
            }
        }
        if hl.abs_diff(hr) > 1 {
            return Err(format!("unbalanced at {:?}: {hl} vs {hr}", node.key));
        }
        let h = 1 + hl.max(hr);
        if node.height != h {
            return Err(format!(
                "height of {:?} is {} not {h}",
                node.key, node.height
            ));
        }
        let mut sum = S::of(&node.key);
        if node.left != NIL {
            sum = S::combine(&self.node(node.left).sum, &sum);
        }
        if node.right != NIL {
            sum = S::combine(&sum, &self.node(node.right).sum);
        }
        if sum != node.sum {
            return Err(format!(
                "summary of {:?} is {:?}, expected {sum:?}",
                node.key, node.sum
            ));
        }
        Ok((h, nl + nr + 1))
    }
}

/// In-order iterator over the keys of one tree of a [`Forest`].
#[derive(Debug)]
pub struct Iter<'a, K, S> {
    forest: &'a Forest<K, S>,
    stack: Vec<NodeId>,
}

impl<K, S> Iter<'_, K, S> {
    fn push_left(&mut self, mut id: NodeId) {
        while id != NIL {
            self.stack.push(id);
            id = self.forest.nodes[id as usize].left;
        }
    }
}

impl<'a, K, S> Iterator for Iter<'a, K, S> {
    type Item = &'a K;

    fn next(&mut self) -> Option<&'a K> {
        let id = self.stack.pop()?;
        let forest: &'a Forest<K, S> = self.forest;
        let node = &forest.nodes[id as usize];
        self.push_left(node.right);
        Some(&node.key)
    }
}

/// A single augmented AVL tree (a [`Forest`] holding one tree) with a set-like API.
///
/// ```
/// use gridsched_geom::tree::AvlTree;
///
/// let mut t: AvlTree<i32> = AvlTree::new();
/// assert!(t.insert(3));
/// assert!(!t.insert(3));
/// t.insert(1);
/// assert_eq!(t.len(), 2);
/// assert_eq!(t.first(), Some(&1));
/// assert_eq!(t.remove(&3), Some(3));
/// t.check_invariants();
/// ```
#[derive(Debug, Clone)]
pub struct AvlTree<K, S = ()> {
    forest: Forest<K, S>,
    root: NodeId,
    len: usize,
}

impl<K, S> Default for AvlTree<K, S> {
    fn default() -> Self {
        AvlTree {
            forest: Forest::default(),
            root: NIL,
            len: 0,
        }
    }
}

impl<K: Ord + Clone, S: Summary<K>> AvlTree<K, S> {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The underlying forest (for the descent helpers) and the root.
    pub fn forest(&self) -> &Forest<K, S> {
        &self.forest
    }

    /// The root node ([`NIL`] if empty).
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// Inserts `key`; `false` if an equal key is present.
    pub fn insert(&mut self, key: K) -> bool {
        let added = self.forest.insert(&mut self.root, key);
        self.len += usize::from(added);
        added
    }

    /// Removes and returns the key equal to `key`.
    pub fn remove(&mut self, key: &K) -> Option<K> {
        let out = self.forest.remove(&mut self.root, key);
        self.len -= usize::from(out.is_some());
        out
    }

    /// The stored key equal to `key`.
    pub fn get(&self, key: &K) -> Option<&K> {
        self.forest
            .get(self.root, key)
            .map(|id| self.forest.key(id))
    }

    /// Whether a key equal to `key` is present.
    pub fn contains(&self, key: &K) -> bool {
        self.forest.get(self.root, key).is_some()
    }

    /// Smallest key.
    pub fn first(&self) -> Option<&K> {
        self.forest.first(self.root)
    }

    /// Largest key.
    pub fn last(&self) -> Option<&K> {
        self.forest.last(self.root)
    }

    /// Summary of the whole tree.
    pub fn summary(&self) -> Option<&S> {
        self.forest.summary(self.root)
    }

    /// Keys in order.
    pub fn iter(&self) -> Iter<'_, K, S> {
        self.forest.iter(self.root)
    }

    /// See [`Forest::find_first`].
    pub fn find_first(
        &self,
        lo: Option<KeyPred<'_, K>>,
        hi: Option<KeyPred<'_, K>>,
        sub: &dyn Fn(&S) -> bool,
        pred: &dyn Fn(&K) -> bool,
    ) -> Option<&K> {
        self.forest
            .find_first(self.root, lo, hi, sub, pred)
            .map(|id| self.forest.key(id))
    }

    /// See [`Forest::find_last`].
    pub fn find_last(
        &self,
        lo: Option<KeyPred<'_, K>>,
        hi: Option<KeyPred<'_, K>>,
        sub: &dyn Fn(&S) -> bool,
        pred: &dyn Fn(&K) -> bool,
    ) -> Option<&K> {
        self.forest
            .find_last(self.root, lo, hi, sub, pred)
            .map(|id| self.forest.key(id))
    }

    /// See [`Forest::fold`].
    pub fn fold(&self, lo: Option<KeyPred<'_, K>>, hi: Option<KeyPred<'_, K>>) -> Option<S> {
        self.forest.fold(self.root, lo, hi)
    }

    /// Cumulative node visits.
    pub fn visits(&self) -> u64 {
        self.forest.visits()
    }
}

impl<K: Ord + Clone + Debug, S: Summary<K> + PartialEq + Debug> AvlTree<K, S> {
    /// Panics unless every invariant holds (see [`Forest::check`]) and the length is right.
    pub fn check_invariants(&self) {
        let n = self
            .forest
            .check(self.root)
            .unwrap_or_else(|e| panic!("AVL invariant: {e}"));
        assert_eq!(n, self.len, "AVL length");
        assert_eq!(self.forest.live_nodes(), self.len, "AVL arena leak");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// (count, sum, max) of a subtree plus the first and last key: exercises an
    /// order-dependent summary.
    #[derive(Clone, Debug, PartialEq)]
    struct Stats {
        count: usize,
        sum: i64,
        max_val: i64,
        first: (i32, i64),
        last: (i32, i64),
    }

    /// Key = (k, v) ordered by k only (a map entry).
    #[derive(Clone, Copy, Debug)]
    struct Entry(i32, i64);
    impl PartialEq for Entry {
        fn eq(&self, o: &Self) -> bool {
            self.0 == o.0
        }
    }
    impl Eq for Entry {}
    impl PartialOrd for Entry {
        fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Entry {
        fn cmp(&self, o: &Self) -> Ordering {
            self.0.cmp(&o.0)
        }
    }

    impl Summary<Entry> for Stats {
        fn of(e: &Entry) -> Self {
            Stats {
                count: 1,
                sum: e.1,
                max_val: e.1,
                first: (e.0, e.1),
                last: (e.0, e.1),
            }
        }
        fn combine(a: &Self, b: &Self) -> Self {
            Stats {
                count: a.count + b.count,
                sum: a.sum + b.sum,
                max_val: a.max_val.max(b.max_val),
                first: a.first,
                last: b.last,
            }
        }
        // Exercises the early stop of updates.
        fn unchanged(a: &Self, b: &Self) -> bool {
            a == b
        }
    }

    /// A forest's trees and visit count, for comparing two ways of doing the same thing.
    fn snapshot(f: &Forest<Entry, Stats>, root: NodeId) -> (Vec<(i32, i64, u8)>, u64) {
        let mut shape = Vec::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if id != NIL {
                let k = f.key(id);
                shape.push((k.0, k.1, f.height(id)));
                stack.push(f.left(id));
                stack.push(f.right(id));
            }
        }
        (shape, f.visits())
    }

    proptest! {
        /// `remove_first` and `pop_first_if` leave the same tree (shape included) and count the
        /// same visits as the search followed by `remove` they replace.
        #[test]
        fn fused_removals_match_search_then_remove(
            keys in prop::collection::vec((0..300i32, -1000..1000i64), 1..200),
            limits in prop::collection::vec(-1000..1000i64, 1..20),
        ) {
            let (mut a, mut b) = (Forest::<Entry, Stats>::new(), Forest::<Entry, Stats>::new());
            let (mut ra, mut rb) = (NIL, NIL);
            for &(k, v) in &keys {
                a.insert(&mut ra, Entry(k, v));
                b.insert(&mut rb, Entry(k, v));
            }
            for &m in &limits {
                let sub = |s: &Stats| s.max_val >= m;
                let pred = |e: &Entry| e.1 >= m;
                let want = a.first_in(ra, None::<&NoBound<Entry>>, None::<&NoBound<Entry>>, &sub, &pred)
                    .map(|id| *a.key(id));
                if let Some(k) = want {
                    a.remove(&mut ra, &k);
                }
                let got = b.remove_first(&mut rb, &sub, &pred);
                prop_assert_eq!(want.map(|e| (e.0, e.1)), got.map(|e| (e.0, e.1)));
                prop_assert_eq!(snapshot(&a, ra), snapshot(&b, rb), "remove_first");
                // (`check` counts visits too.)
                a.check(ra).unwrap();
                b.check(rb).unwrap();
                let take = |e: &Entry| e.1 < m;
                let want = a.first(ra).copied().filter(take);
                if let Some(k) = want {
                    a.remove(&mut ra, &k);
                }
                let got = b.pop_first_if(&mut rb, take);
                prop_assert_eq!(want.map(|e| (e.0, e.1)), got.map(|e| (e.0, e.1)));
                prop_assert_eq!(snapshot(&a, ra), snapshot(&b, rb), "pop_first_if");
                // (`check` counts visits too.)
                a.check(ra).unwrap();
                b.check(rb).unwrap();
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(i32, i64),
        Remove(i32),
        Query(i32, i32, i64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0..200i32, -1000..1000i64).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (0..200i32).prop_map(Op::Remove),
            2 => (0..220i32, 0..220i32, -1000..1000i64).prop_map(|(a, b, t)| Op::Query(a, b, t)),
        ]
    }

    fn check_queries(
        t: &AvlTree<Entry, Stats>,
        oracle: &BTreeMap<i32, i64>,
        a: i32,
        b: i32,
        th: i64,
    ) {
        let (lo, hi) = (a.min(b), a.max(b));
        let lo_f = move |e: &Entry| e.0 >= lo;
        let hi_f = move |e: &Entry| e.0 <= hi;
        // find_first / find_last with a value threshold, pruned by max.
        let sub = |s: &Stats| s.max_val >= th;
        let pred = |e: &Entry| e.1 >= th;
        for (lo_o, hi_o) in [(true, true), (true, false), (false, true), (false, false)] {
            let lo_p: Option<KeyPred<'_, Entry>> = lo_o.then_some(&lo_f);
            let hi_p: Option<KeyPred<'_, Entry>> = hi_o.then_some(&hi_f);
            let sel: Vec<(i32, i64)> = oracle
                .iter()
                .filter(|(k, _)| (!lo_o || **k >= lo) && (!hi_o || **k <= hi))
                .map(|(k, v)| (*k, *v))
                .collect();
            let wf = sel.iter().find(|(_, v)| *v >= th).map(|(k, _)| *k);
            let wl = sel.iter().rev().find(|(_, v)| *v >= th).map(|(k, _)| *k);
            assert_eq!(t.find_first(lo_p, hi_p, &sub, &pred).map(|e| e.0), wf);
            assert_eq!(t.find_last(lo_p, hi_p, &sub, &pred).map(|e| e.0), wl);
            let folded = t.fold(lo_p, hi_p);
            match sel.first() {
                None => assert!(folded.is_none()),
                Some(f) => {
                    let s = folded.unwrap();
                    assert_eq!(s.count, sel.len());
                    assert_eq!(s.sum, sel.iter().map(|x| x.1).sum::<i64>());
                    assert_eq!(s.first, *f);
                    assert_eq!(s.last, *sel.last().unwrap());
                }
            }
        }
    }

    fn run_ops(ops: &[Op]) {
        let mut t: AvlTree<Entry, Stats> = AvlTree::new();
        let mut oracle = BTreeMap::new();
        for op in ops {
            match *op {
                Op::Insert(k, v) => {
                    let fresh = !oracle.contains_key(&k);
                    if fresh {
                        oracle.insert(k, v);
                    }
                    assert_eq!(t.insert(Entry(k, v)), fresh);
                }
                Op::Remove(k) => {
                    let want = oracle.remove(&k).map(|v| (k, v));
                    assert_eq!(t.remove(&Entry(k, 0)).map(|e| (e.0, e.1)), want);
                }
                Op::Query(a, b, th) => check_queries(&t, &oracle, a, b, th),
            }
            t.check_invariants();
            let got: Vec<(i32, i64)> = t.iter().map(|e| (e.0, e.1)).collect();
            let want: Vec<(i32, i64)> = oracle.iter().map(|(k, v)| (*k, *v)).collect();
            assert_eq!(got, want);
            assert_eq!(t.first().map(|e| e.0), oracle.keys().next().copied());
            assert_eq!(t.last().map(|e| e.0), oracle.keys().next_back().copied());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_btreemap(ops in prop::collection::vec(op(), 0..300)) {
            run_ops(&ops);
        }
    }

    #[test]
    fn sequential_and_reverse_inserts_stay_balanced() {
        let mut t: AvlTree<i64> = AvlTree::new();
        for k in 0..5000 {
            t.insert(k);
        }
        for k in (-5000..0).rev() {
            t.insert(k);
        }
        t.check_invariants();
        // height <= 1.44 log2(n + 2)
        assert!(t.forest().height(t.root()) <= 20);
        for k in (0..5000).step_by(2) {
            assert_eq!(t.remove(&k), Some(k));
        }
        t.check_invariants();
        assert_eq!(t.len(), 7500);
    }

    #[test]
    fn free_list_reuses_slots() {
        let mut f: Forest<u32> = Forest::new();
        let mut a = NIL;
        for k in 0..100 {
            f.insert(&mut a, k);
        }
        let keys = f.drain(&mut a);
        assert_eq!(keys, (0..100).collect::<Vec<_>>());
        assert_eq!(f.live_nodes(), 0);
        let mut b = f.build_sorted(&keys);
        assert_eq!(f.check(b), Ok(100));
        assert_eq!(f.nodes.len(), 100);
        f.remove(&mut b, &50);
        f.insert(&mut b, 1000);
        assert_eq!(f.nodes.len(), 100);
        assert_eq!(f.check(b), Ok(100));
    }

    #[test]
    fn full_descent_is_logarithmic() {
        #[derive(Clone, Debug, PartialEq)]
        struct Max(u64);
        impl Summary<u64> for Max {
            fn of(k: &u64) -> Self {
                Max(*k % 1000)
            }
            fn combine(a: &Self, b: &Self) -> Self {
                Max(a.0.max(b.0))
            }
        }
        let mut t: AvlTree<u64, Max> = AvlTree::new();
        for k in 0..100_000u64 {
            t.insert(k * 7919 % 100_000);
        }
        let before = t.visits();
        let hit = t.find_first(
            Some(&|k: &u64| *k >= 50_000),
            None,
            &|s: &Max| s.0 >= 999,
            &|k: &u64| k % 1000 >= 999,
        );
        assert_eq!(hit, Some(&50_999));
        assert!(t.visits() - before < 200, "visited {}", t.visits() - before);
        let before = t.visits();
        assert!(
            t.find_first(None, None, &|s: &Max| s.0 >= 1000, &|_| true)
                .is_none()
        );
        assert_eq!(t.visits() - before, 1);
    }
}
