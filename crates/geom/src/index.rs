//! The interface every idle-period index implements, and the selection rules it answers.

use crate::period::{IdlePeriod, Time, Window};

/// Which idle period a query selects. Each rule is a pure function of the set of live idle
/// periods (and, for the strip rules, of the strip width), so any two correct indexes answer
/// it identically. Ties are always broken explicitly, last by the lower server id.
///
/// Regions follow the thesis (Castillo §3.2.1): for a job window `(r, l, d)`,
/// R1 = periods starting before the ready time (`start < r`, feasible iff `end >= r + l`),
/// R2 = periods starting at or after it (`r <= start <= d - l` and `len >= l`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// First-fit: the feasible period with the earliest start (ties: lower server).
    EarliestFeasible,
    /// Best-fit: the shortest feasible period (ties: earlier start, lower server).
    ShortestFeasible,
    /// Best-fit as §3.3.3 of the thesis searches, strip by strip, *without* the spec's
    /// boundary-strip fixes (spec §2.7, A10): a sensitivity reading, not the stated objective.
    ///
    /// Strips are start strips; `p` is the ready time's and `p'` the latest start's. Each strip
    /// up to `p` is asked the thesis's R1 query (the shortest period ending at or after
    /// `r + l`, found through the end-ordered secondary tree), each strip from `p` to `p'` its
    /// R2 query (the shortest period of length `>= l`, the binary search in the
    /// length-ordered tree), so strip `p` is asked both. The thesis assumes that every period
    /// a query sees lies in the query's region; that holds in every strip but `p` (which also
    /// holds periods starting after `r`, and before it) and `p'` (which also holds periods
    /// starting after `d - l`). There a query can return a period the job does not fit;
    /// such an answer is discarded, and the strip offers nothing for that query even if
    /// another of its periods fits. The answer is the shortest of the strips' feasible
    /// answers (ties: earlier start, lower server), so it is never shorter than
    /// [`Rule::ShortestFeasible`]'s, is the same period whenever that one lies outside the
    /// strips `p` and `p'`, and may be `None` where a feasible period exists.
    ShortestByLiteralStripQueries,
    /// Min-LIP step 1 as the thesis states it: group the R2 periods by start strip; in the
    /// first (earliest) strip that has one, the longest (ties: earlier start, lower server).
    LongestInFirstStartStrip,
    /// Min-LIP step 1, alternative reading: the R2 period with the earliest start.
    EarliestStartFromReady,
    /// Min-LIP step 2: the R1 period with the latest start (ties: lower server).
    /// `skip_ready_strip` excludes the ready time's own strip (the thesis's literal search
    /// order, which starts at `T_{p-1}`).
    LatestStartBeforeReady { skip_ready_strip: bool },
    /// Max-LIP: the R1 period with the earliest start (ties: lower server).
    EarliestStartBeforeReady,
    /// Min-TIP step 1 (mirror of Min-LIP step 1 under `t -> -t`): periods that can hold the job
    /// ending exactly at their end (`r + l <= end <= d`, `len >= l`), grouped by *end* strip; in
    /// the first strip in `order`, the longest (ties: earlier start, lower server).
    LongestInEndStrip { order: StripOrder },
    /// Min-TIP step 2: periods ending after the deadline that start no later than `d - l`; the
    /// one with the earliest end (ties: later start, lower server).
    EarliestEndAfterDeadline,
    /// Max-TIP: same set as [`Rule::EarliestEndAfterDeadline`], the latest end (ties: later
    /// start, lower server).
    LatestEndAfterDeadline,
}

/// Order in which strips are visited by a strip rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StripOrder {
    /// From the deadline's strip downwards (the exact mirror of Min-LIP).
    LatestFirst,
    /// From the strip of `r + l` upwards.
    EarliestFirst,
}

/// What happens to periods whose start strip falls into the past when the clock advances.
///
/// The thesis discards the oldest strip's tree in O(1), which silently loses a server's
/// open-ended tail or a long period cut out of it (Castillo spec §2.3, A14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExpiryMode {
    /// Keep every live period with its original start (in a pool searched as "strip 0").
    #[default]
    Pool,
    /// Re-insert survivors with `start := now` (changes tie-breaking among them).
    Clip,
}

/// A set of live idle periods that answers [`Rule`] queries.
///
/// Contract: `(start, server)` identifies a live period; periods of one server never overlap;
/// `advance` is called with non-decreasing times and drops every period with `end <= now`;
/// every query window has `ready >= now`.
pub trait IdlePeriodIndex {
    /// Adds a live idle period.
    fn insert(&mut self, period: IdlePeriod);
    /// Removes a live period (matched by start and server); returns whether it was present.
    fn remove(&mut self, period: &IdlePeriod) -> bool;
    /// Moves the clock to `now`, expiring dead periods (and clipping, in [`ExpiryMode::Clip`]).
    fn advance(&mut self, now: Time);
    /// The period `rule` selects for `window`, if any.
    fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod>;
    /// Number of live periods.
    fn len(&self) -> usize;
    /// Whether there is no live period.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Cumulative count of elementary steps (periods examined, tree nodes visited): a
    /// deterministic stand-in for running time.
    fn operations(&self) -> u64;
    /// All live periods in (start, server) order — for tests and invariant checks.
    fn periods(&self) -> Vec<IdlePeriod>;
}
