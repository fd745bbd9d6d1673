//! Quantized 2-D trees for online co-allocation (Castillo 2008, ch. 5; spec §2.18–§2.20).
//!
//! A request asks for `n_r` servers over the same window `[s_r, s_r + l_r)`. Time is cut into
//! quanta of length `l_q`; every idle period is stored in every quantum it intersects, and each
//! quantum has a 2-D tree: a primary tree over its periods by start (descending), whose nodes
//! point to secondary trees over their subtree by end (ascending). Phase 1 walks the primary
//! tree of the quantum containing `s_r`, marking the subtrees whose periods all start at or
//! before `s_r` and counting them (`C^s_r`); Phase 2 walks the secondaries of the marked
//! subtrees in reverse marking order, collecting subtrees whose periods all end at or after
//! `e_r` (`C^e_r`) until `n_r` are found; an in-order traversal retrieves them.
//!
//! **Shape.** Which periods Phase 2 collects depends on the trees' shapes (a red-black tree's
//! shape depends on its insertion history). Here the trees are the *implicit balanced* trees
//! over the sorted sequences (spec §2.16/§2.19, A32): node `[lo, hi]` splits at
//! `⌊(lo + hi) / 2⌋`. The search in [`search()`] therefore only does index arithmetic on ranks,
//! and its answer is a pure function of the quantum's set of idle periods — identical however
//! the set was reached, and identical to the literal pseudo-code on explicit trees
//! ([`literal`], the test reference).
//!
//! Integer time (seconds in the traces); [`OPEN_END`] marks a server's open-ended tail.
//!
//! ```
//! use gridsched_geom::coalloc::{CoallocPick, QuantizedIndex};
//!
//! // 4 servers, quanta of 10, Q = 10 (horizon 100), fragments of any positive length kept.
//! let mut index = QuantizedIndex::new(4, 10, 10, 1, 0).unwrap();
//! index.reserve_on(1, 0, 15).unwrap();                 // server 1 busy over [0, 15)
//! let mut chosen = Vec::new();
//! let attempt = index.select(5, 10, 3, CoallocPick::Tree, &mut chosen);
//! assert!(attempt.stats.success);
//! assert!(chosen.iter().all(|p| p.server != 1));
//! index.reserve(&chosen, 5, 10).unwrap();              // book [5, 15) on the three servers
//! ```

mod chunked;
mod index;
pub mod literal;
mod range_tree;
mod search;

pub use index::{Attempt, QuantizedIndex};
pub use search::{CoallocPick, SearchScratch, SearchStats, search};

/// The end of an open-ended idle period (a server's tail).
pub const OPEN_END: i64 = i64::MAX;

/// The most servers a [`QuantizedIndex`] holds: 2^24 = 16,777,216. Every server keeps at
/// least its tail in the lists (a 24-byte period, built once and copied into the chunked
/// list), about 48 bytes per server measured, so about 800 MB at the limit;
/// [`QuantizedIndex::new`] refuses more (a larger count would try to allocate tens of GB
/// before the first request).
pub const MAX_SERVERS: u32 = 1 << 24;

/// The most servers a [`QuantizedIndex`] holds with its range tree
/// ([`QuantizedIndex::with_range_tree`]): 2^20 = 1,048,576. The tree costs about 1 KB per
/// live period (its `O(V log V)` secondaries), so about 1 GB at the limit.
pub const MAX_RANGE_TREE_SERVERS: u32 = 1 << 20;

/// The most quanta `Q` a [`QuantizedIndex`] keeps live: 2^16 = 65,536 (e.g. 1-second quanta
/// over 18 hours, or the thesis's 15-minute quanta over 1.9 years; the thesis has 200). Every
/// idle period is stored in each live quantum it intersects, so memory grows with `Q` times
/// the idle periods, and the ring allocates its `Q + 1` lists up front.
pub const MAX_QUANTA: u32 = 1 << 16;

/// An idle period `[start, end)` of one server, in integer time; `end == OPEN_END` for a tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoallocPeriod {
    pub start: i64,
    pub end: i64,
    pub server: u32,
}

impl CoallocPeriod {
    /// Whether the period contains the window `[s, e)`.
    #[inline]
    pub fn contains(&self, s: i64, e: i64) -> bool {
        self.start <= s && e <= self.end
    }
}

/// An invalid configuration or reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoallocError {
    Config(String),
    /// The server is not idle over the whole interval (or the interval is empty or beyond the
    /// live quanta).
    NotIdle {
        server: u32,
        start: i64,
        end: i64,
    },
}

impl std::fmt::Display for CoallocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CoallocError::Config(m) => write!(f, "{m}"),
            CoallocError::NotIdle { server, start, end } => write!(
                f,
                "server {server} is not idle over [{start}, {end}) inside the live quanta"
            ),
        }
    }
}

impl std::error::Error for CoallocError {}
