//! Generic arena-allocated augmented AVL trees.
//!
//! [`Forest`] stores the nodes of any number of AVL trees in one `Vec`, addressed by `u32`
//! [`NodeId`]s with a free list; a tree is just its root id. Every node carries a [`Summary`]
//! of its subtree (a monoid-like value recomputed from the children on every structural
//! change), which the descent helpers ([`Forest::find_first`], [`Forest::find_last`],
//! [`Forest::fold`]) use to prune whole subtrees. [`AvlTree`] wraps a forest holding a single
//! tree, for simple uses and tests.
//!
//! No `Rc<RefCell>`, no `unsafe`: links are plain indices.

mod avl;

pub use avl::{AvlTree, Forest, Iter, KeyPred, NIL, NoBound, NodeId, Summary};
