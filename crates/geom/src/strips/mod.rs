//! Castillo's strip-partitioned tree indexes (`O(log n)` per strip), and strip-free global
//! trees for the rules that walk the whole horizon, identical in every answer to
//! [`LinearIndex`](crate::LinearIndex).
//!
//! - [`StartStripIndex`]: horizontal strips by start time, the T0 pool, Min-LIP, First-fit,
//!   Max-LIP and (optionally) Best-fit's 2-D trees.
//! - [`EndStripIndex`]: vertical strips by end time plus the tails' strip, Min-TIP / Max-TIP.
//! - [`GlobalStartIndex`] / [`GlobalEndIndex`]: one set of all periods in start (end) order
//!   (chunked up to 4,096 periods, an augmented tree beyond); every start-strip (end-strip) rule
//!   but Best-fit with a few range searches.
//! - [`GlobalLengthIndex`]: all periods in Best-fit's order (length, start, server), as sorted
//!   runs searched without data-dependent branches; Best-fit's structure while small.
//! - [`TreeIndex`]: the facade a scheduler builds for the rules of its strategy; it picks the
//!   structures (see its documentation: First-fit, Max-LIP and Max-TIP use the global trees,
//!   Min-LIP and Min-TIP the strips, Best-fit the length-ordered runs; the thesis's 2-D trees
//!   on request).
//!
//! All of them share a [`TreeConfig`] (strip geometry, expiry mode, look-ahead `L`).
//!
//! **Representation.** Trees are arena-allocated augmented AVL trees (`crate::tree`) whose
//! updates stop climbing at the first unchanged node. A strip of at most 16 periods is kept as
//! a sorted vector with a cached summary instead (the private `set` module: a tree above 16
//! periods, a vector again at 8), which is what most strips are at `n = 20`. The global sets
//! are instead kept in sorted runs of at most 32 periods, each with its summary, up to 4,096
//! periods (a tree beyond): at a few hundred periods, testing run summaries in order and
//! shifting one run costs less than a tree's descents and rebalancing. Summaries hold
//! values (latest end, greatest length, ...), not the periods attaining them, so that removing
//! one of several equal periods (the servers' tails) changes nothing above it. A period the
//! scheduler removes stays in place as *pending* until the next operation: if that is the
//! insertion of a fragment with the same key (or, in end order, the same end and rank), the
//! fragment takes the node in place; otherwise the removal is carried out first. Removing the
//! last answer of `select` needs no search.
//!
//! **Why the answers are identical.** Each rule is a pure function of the live set with a
//! total tie-break order. The trees store the very same `IdlePeriod` values, compare them only
//! against the `Window`'s precomputed thresholds with the same operators as `LinearIndex`, and
//! use the same `total_cmp` orders; a subtree is skipped only when its summary (latest end,
//! greatest length, ...) proves that none of its periods is a candidate, and strips are grouped
//! with the same `StripGeometry::strip_of`. Strip boundaries are never compared as numbers
//! against stored keys: the monotonicity of `strip_of` decides which trees are wholly inside a
//! bound, and the exact predicate is tested in the (at most two) boundary trees. The global
//! trees find "the first strip with a candidate" as the strip of the first candidate, and
//! restrict the following fold to that strip with the same monotone `strip_of` bounds.

mod best_fit;
mod best_fit_form;
mod end_index;
mod facade;
mod global;
mod keys;
mod length_index;
mod ring;
mod runs;
mod scan;
mod set;
mod start_index;

pub use end_index::EndStripIndex;
pub use facade::TreeIndex;
pub use global::{GlobalEndIndex, GlobalStartIndex};
pub use length_index::GlobalLengthIndex;
pub use start_index::StartStripIndex;

use crate::index::ExpiryMode;
use crate::period::Time;
use crate::strip::StripGeometry;

/// Construction parameters of the tree indexes.
///
/// ```
/// use gridsched_geom::{ExpiryMode, StripGeometry, TreeConfig};
///
/// // Castillo ch. 3: l_min = 1, M = 1 (w = 2), look-ahead L = 200: 102 ring slots.
/// let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0)
///     .with_expiry(ExpiryMode::Pool);
/// assert_eq!(config.ring_slots(), 102);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeConfig {
    /// Strip partition (`StripGeometry::for_min_length(l_min, M)` for the thesis's strips).
    pub geometry: StripGeometry,
    /// What happens to live periods whose start strip falls into the past.
    pub expiry: ExpiryMode,
    /// Look-ahead `L`: the contract is that every stored start and every finite end lies
    /// before `now + L` (true when deadlines are at most `L` after arrival).
    pub look_ahead: Time,
}

impl TreeConfig {
    /// Parameters with the default expiry mode ([`ExpiryMode::Pool`]). Panics if `look_ahead`
    /// is negative or not finite.
    pub fn new(geometry: StripGeometry, look_ahead: Time) -> Self {
        assert!(
            look_ahead.is_finite() && look_ahead >= 0.0,
            "look-ahead must be finite and non-negative, got {look_ahead}"
        );
        TreeConfig {
            geometry,
            expiry: ExpiryMode::default(),
            look_ahead,
        }
    }

    /// The same parameters with another expiry mode.
    pub fn with_expiry(mut self, expiry: ExpiryMode) -> Self {
        self.expiry = expiry;
        self
    }

    /// Ring slots: `ceil(L / w) + 2` (spec §2.3), enough for the strips of
    /// `[floor(now / w) w, now + L]` (saturating at `usize::MAX`). An index that keeps strip
    /// rings ([`StartStripIndex`], [`EndStripIndex`]; [`TreeIndex::uses_strip_rings`] says
    /// which rules build one) can be built only when this is at most [`MAX_RING_SLOTS`].
    pub fn ring_slots(&self) -> usize {
        ((self.look_ahead / self.geometry.width()).ceil() as usize).saturating_add(2)
    }
}

/// The most slots a strip ring may have: 2^22 = 4,194,304, so a look-ahead of at most
/// 4,194,302 strips (`L ≤ 4,194,302 · w`). A slot costs 112–136 bytes and the ring is
/// allocated whole (rounded up to a power of two), so a ring at the limit takes about
/// 0.5 GB; a longer look-ahead would allocate tens of GB or overflow, and walking its strips
/// would take as long. Building a [`StartStripIndex`] or [`EndStripIndex`] for more panics;
/// `ReservationScheduler` refuses such configurations with an error.
pub const MAX_RING_SLOTS: usize = 1 << 22;

#[cfg(test)]
mod ring_limit_tests {
    use super::*;
    use crate::Rule;

    #[test]
    fn ring_slots_saturate_and_only_strip_indexes_need_a_ring() {
        let tiny = TreeConfig::new(StripGeometry::new(2e-20), 200.0);
        assert_eq!(tiny.ring_slots(), usize::MAX);
        let huge = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 1e300);
        assert_eq!(huge.ring_slots(), usize::MAX);
        let edge = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 2.0 * 4_194_302.0);
        assert_eq!(edge.ring_slots(), MAX_RING_SLOTS);
        assert!(!TreeIndex::uses_strip_rings(&[Rule::EarliestFeasible]));
        assert!(!TreeIndex::uses_strip_rings(&[Rule::ShortestFeasible]));
        assert!(TreeIndex::uses_strip_rings(&[]));
        // The index at the limit builds; one slot more would panic instead of allocating.
        let _ = TreeIndex::new(edge, &[]);
        let over = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 2.0 * 4_194_303.0);
        assert!(std::panic::catch_unwind(|| StartStripIndex::new(over)).is_err());
    }
}
