//! Tree keys (orderings of idle periods), subtree summaries and the shared comparators.
//!
//! The comparators repeat those of `linear.rs` exactly (same `total_cmp` calls, same
//! tie-breaks), so that a tree and the linear scan agree bit for bit.

use std::cmp::Ordering;

use crate::period::{IdlePeriod, Time};
use crate::strip::StripId;
use crate::tree::{Forest, NoBound, Summary};

use super::set::StripSet;

/// No range bound on a start-ordered tree (for the monomorphized descents).
pub(crate) const NO_START: Option<&NoBound<ByStart>> = None;
/// No range bound on an end-ordered tree.
pub(crate) const NO_END: Option<&NoBound<ByEnd>> = None;

/// `a` longer than `b`; ties by earlier start, then lower server (as `linear::longer`).
#[inline]
pub(crate) fn longer(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    match a.len().total_cmp(&b.len()) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => a.cmp_start(b) == Ordering::Less,
    }
}

/// `a` shorter than `b`; ties by earlier start, then lower server (the Best-fit order).
#[inline]
pub(crate) fn shorter(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    by_len(a, b) == Ordering::Less
}

/// The Best-fit order: length, then start, then server.
#[inline]
pub(crate) fn by_len(a: &IdlePeriod, b: &IdlePeriod) -> Ordering {
    a.len().total_cmp(&b.len()).then_with(|| a.cmp_start(b))
}

/// The order of the vertical (end) strips' trees: end ascending, then start *descending*,
/// then server ascending — exactly the preference order of
/// [`Rule::EarliestEndAfterDeadline`](crate::Rule::EarliestEndAfterDeadline).
#[inline]
pub(crate) fn by_end(a: &IdlePeriod, b: &IdlePeriod) -> Ordering {
    a.end
        .total_cmp(&b.end)
        .then_with(|| b.start.total_cmp(&a.start))
        .then_with(|| a.server.cmp(&b.server))
}

/// Better of two optional candidates under a strict "better" relation.
#[inline]
pub(crate) fn pick(
    best: Option<IdlePeriod>,
    cand: Option<IdlePeriod>,
    better: impl Fn(&IdlePeriod, &IdlePeriod) -> bool,
) -> Option<IdlePeriod> {
    match (best, cand) {
        (Some(b), Some(c)) => Some(if better(&c, &b) { c } else { b }),
        (b, None) => b,
        (None, c) => c,
    }
}

macro_rules! ordered_key {
    ($(#[$m:meta])* $name:ident, $cmp:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy)]
        pub(crate) struct $name(pub IdlePeriod);

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.cmp(other) == Ordering::Equal
            }
        }
        impl Eq for $name {}
        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $name {
            fn cmp(&self, other: &Self) -> Ordering {
                let f: fn(&IdlePeriod, &IdlePeriod) -> Ordering = $cmp;
                f(&self.0, &other.0)
            }
        }
    };
}

ordered_key!(
    /// A period ordered by (start, server): the thesis's per-strip trees.
    ByStart,
    IdlePeriod::cmp_start
);
ordered_key!(
    /// A period ordered by (end, start descending, server): the vertical strips' trees.
    ByEnd,
    by_end
);
ordered_key!(
    /// A period ordered by (length, start, server): Best-fit's secondary `t^l`.
    ByLen,
    by_len
);

/// Same (start, server): the identity of a live period (a server's periods are disjoint), and
/// the same key in start order.
#[inline]
pub(crate) fn same_start_key(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    a.start.to_bits() == b.start.to_bits() && a.server == b.server
}

/// Bitwise equality of two periods (what "unchanged" means for a summary).
#[inline]
pub(crate) fn same_bits(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    a.start.to_bits() == b.start.to_bits()
        && a.end.to_bits() == b.end.to_bits()
        && a.server == b.server
}

#[inline]
fn max_t(a: Time, b: Time) -> Time {
    if b > a { b } else { a }
}

#[inline]
fn min_t(a: Time, b: Time) -> Time {
    if b < a { b } else { a }
}

/// Summary of a start-ordered subtree: latest end (the thesis's max-end pointer), earliest
/// end (for expiry) and the greatest length (the thesis's max-length pointer, as a value).
///
/// Only values are kept, not the periods that attain them: then removing one of several
/// equally long periods (typically one of the servers' tails, all infinitely long) leaves
/// the summaries of its ancestors unchanged and the update stops early. The longest period
/// itself is found by one more descent ([`longest_by_start`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StartSum {
    pub max_end: Time,
    pub min_end: Time,
    pub max_len: Time,
}

impl Summary<ByStart> for StartSum {
    #[inline]
    fn of(k: &ByStart) -> Self {
        StartSum {
            max_end: k.0.end,
            min_end: k.0.end,
            max_len: k.0.len(),
        }
    }
    #[inline]
    fn combine(a: &Self, b: &Self) -> Self {
        StartSum {
            max_end: max_t(a.max_end, b.max_end),
            min_end: min_t(a.min_end, b.min_end),
            max_len: max_t(a.max_len, b.max_len),
        }
    }
    #[inline]
    fn unchanged(a: &Self, b: &Self) -> bool {
        a.max_end.to_bits() == b.max_end.to_bits()
            && a.min_end.to_bits() == b.min_end.to_bits()
            && a.max_len.to_bits() == b.max_len.to_bits()
    }
}

/// Summary of an end-ordered subtree: earliest start and greatest length (values only, as
/// [`StartSum`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct EndSum {
    pub min_start: Time,
    pub max_len: Time,
}

impl Summary<ByEnd> for EndSum {
    #[inline]
    fn of(k: &ByEnd) -> Self {
        EndSum {
            min_start: k.0.start,
            max_len: k.0.len(),
        }
    }
    #[inline]
    fn combine(a: &Self, b: &Self) -> Self {
        EndSum {
            min_start: min_t(a.min_start, b.min_start),
            max_len: max_t(a.max_len, b.max_len),
        }
    }
    #[inline]
    fn unchanged(a: &Self, b: &Self) -> bool {
        a.min_start.to_bits() == b.min_start.to_bits() && a.max_len.to_bits() == b.max_len.to_bits()
    }
}

/// The longest period of a start-ordered set's key range (ties as [`longer`]: earlier
/// start, then lower server), given `max_len`, the greatest length in the range (from a fold
/// or a root summary). The first key of the range, in (start, server) order, that is that
/// long *is* the one: `O(log n)`.
#[inline]
pub(crate) fn longest_by_start<L, H>(
    forest: &Forest<ByStart, StartSum>,
    set: &StripSet<ByStart, StartSum>,
    lo: Option<&L>,
    hi: Option<&H>,
    max_len: Time,
) -> Option<IdlePeriod>
where
    L: Fn(&ByStart) -> bool + ?Sized,
    H: Fn(&ByStart) -> bool + ?Sized,
{
    let sub = |s: &StartSum| s.max_len >= max_len;
    let pred = |k: &ByStart| k.0.len() >= max_len;
    set.first_in(forest, lo, hi, &sub, &pred).map(|k| k.0)
}

/// The longest period of an end-ordered set's key range (ties as [`longer`]), given the
/// greatest length in the range. The set's order is not the tie-break order, so every key
/// of the range that long is visited (`O((1 + ties) log n)`).
#[inline]
pub(crate) fn longest_by_end<L, H>(
    forest: &Forest<ByEnd, EndSum>,
    set: &StripSet<ByEnd, EndSum>,
    lo: Option<&L>,
    hi: Option<&H>,
    max_len: Time,
) -> Option<IdlePeriod>
where
    L: Fn(&ByEnd) -> bool + ?Sized,
    H: Fn(&ByEnd) -> bool + ?Sized,
{
    let sub = |s: &EndSum| s.max_len >= max_len;
    let pred = |k: &ByEnd| k.0.len() >= max_len;
    let mut best = None;
    set.for_each_in(forest, lo, hi, &sub, &pred, &mut |k: &ByEnd| {
        best = pick(best, Some(k.0), longer);
    });
    best
}

/// The shortest period of a subtree (Best-fit order): the min-length pointer of `t^e`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shortest(pub IdlePeriod);

impl Summary<ByEnd> for Shortest {
    #[inline]
    fn of(k: &ByEnd) -> Self {
        Shortest(k.0)
    }
    #[inline]
    fn combine(a: &Self, b: &Self) -> Self {
        if shorter(&b.0, &a.0) { *b } else { *a }
    }
    #[inline]
    fn unchanged(a: &Self, b: &Self) -> bool {
        same_bits(&a.0, &b.0)
    }
}

/// How much of a tree covering strips `[a, b]` satisfies a bound on its key time `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cover {
    /// Every key satisfies it: no predicate needed, subtree summaries apply at the root.
    All,
    /// Some keys may: test the predicate while descending.
    Part,
    /// No key does: skip the tree.
    Nothing,
}

impl Cover {
    /// Keys with `t >= x` (or `t > x`), `sx = strip_of(x)`. Since `strip_of` is monotone,
    /// `strip_of(t) > sx` implies `t > x` and `strip_of(t) < sx` implies `t < x`.
    #[inline]
    pub(crate) fn at_least(a: StripId, b: StripId, sx: StripId) -> Cover {
        if a > sx {
            Cover::All
        } else if b < sx {
            Cover::Nothing
        } else {
            Cover::Part
        }
    }

    /// Keys with `t < x` (or `t <= x`), `sx = strip_of(x)`.
    #[inline]
    pub(crate) fn at_most(a: StripId, b: StripId, sx: StripId) -> Cover {
        if b < sx {
            Cover::All
        } else if a > sx {
            Cover::Nothing
        } else {
            Cover::Part
        }
    }

    /// Both bounds at once.
    #[inline]
    pub(crate) fn and(self, other: Cover) -> Cover {
        match (self, other) {
            (Cover::Nothing, _) | (_, Cover::Nothing) => Cover::Nothing,
            (Cover::All, Cover::All) => Cover::All,
            _ => Cover::Part,
        }
    }
}

/// `Some(pred)` when the cover is partial, `None` when it is total (callers skip `Nothing`).
#[inline]
pub(crate) fn bound<F: ?Sized>(cover: Cover, pred: &F) -> Option<&F> {
    (cover == Cover::Part).then_some(pred)
}
