//! The reference semantics of FF-HU, FF-HA and FF-HA+ on plain sorted arrays.
//!
//! These functions are deliberately naive (`O(V log V)` per query: they sort the live periods
//! every time) and follow the thesis's text and the pseudo-code of spec §2.16 line by line,
//! with the implicit balanced shape: a node over positions `[lo, hi]` has median
//! `mid = ⌊(lo + hi) / 2⌋`, left child `[lo, mid]`, right child `(mid, hi]`. They define what
//! the fast structures must return; the tests compare the two on random states.

use super::{ClassOrder, PlusPick, RatedPeriod, RatedWindow};

/// The periods of one class, sorted by (start, server).
fn class_sorted(periods: &[RatedPeriod], class: usize) -> Vec<RatedPeriod> {
    let mut a: Vec<RatedPeriod> = periods
        .iter()
        .filter(|p| p.class as usize == class)
        .copied()
        .collect();
    a.sort_by(RatedPeriod::cmp_start);
    a
}

/// Whether any live period admits the job (on any class).
pub fn any_feasible(periods: &[RatedPeriod], windows: &[RatedWindow]) -> bool {
    periods.iter().any(|p| windows[p.class as usize].admits(p))
}

/// FF-HU: the feasible period with the earliest (start, server), any class.
pub fn ff_hu(periods: &[RatedPeriod], windows: &[RatedWindow]) -> Option<RatedPeriod> {
    periods
        .iter()
        .filter(|p| windows[p.class as usize].admits(p))
        .min_by(|a, b| a.cmp_start(b))
        .copied()
}

/// FF-HA: the feasible period with the earliest (start, server) in the first class (in
/// `order`) that has one.
pub fn ff_ha(
    periods: &[RatedPeriod],
    windows: &[RatedWindow],
    order: ClassOrder,
) -> Option<RatedPeriod> {
    order.iter(windows.len()).find_map(|h| {
        class_sorted(periods, h)
            .into_iter()
            .find(|p| windows[h].admits(p))
    })
}

/// Step 1 of the pseudo-code on the start-sorted periods `a` of a class: the marked
/// `(lo, hi)` position ranges, in marking order.
pub fn marked(a: &[RatedPeriod], w: &RatedWindow) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if a.is_empty() {
        return out;
    }
    let (mut lo, mut hi) = (0, a.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if a[mid].start <= w.latest_start {
            out.push((lo, mid));
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if a[lo].start <= w.latest_start {
        out.push((lo, lo));
    }
    out
}

/// Step 2 of the pseudo-code on one marked node: its periods sorted by (end, server) and the
/// descent of the dual tree, which takes the maximum-capacity period of a right child as soon
/// as that child lies wholly below the job's dual line.
pub fn dual_descent(group: &[RatedPeriod], w: &RatedWindow) -> Option<RatedPeriod> {
    let mut d = group.to_vec();
    d.sort_by(RatedPeriod::cmp_end);
    let (mut lo, mut hi) = (0, d.len() - 1);
    loop {
        if lo == hi {
            let x = d[lo];
            return (x.end >= w.earliest_end && x.capacity >= w.min_capacity).then_some(x);
        }
        let mid = (lo + hi) / 2;
        if d[mid].end < w.earliest_end {
            // yP < median y: the left child lies above the job's line.
            lo = mid + 1;
        } else {
            let k = d[mid + 1..=hi]
                .iter()
                .copied()
                .reduce(|a, b| if b.more_capacity_than(&a) { b } else { a })
                .expect("a right child is never empty");
            if k.capacity >= w.min_capacity {
                return Some(k);
            }
            hi = mid;
        }
    }
}

/// FF-HA+ with the given pick rule, classes searched in `order`.
pub fn ff_ha_plus(
    periods: &[RatedPeriod],
    windows: &[RatedWindow],
    order: ClassOrder,
    pick: PlusPick,
) -> Option<RatedPeriod> {
    for h in order.iter(windows.len()) {
        let w = &windows[h];
        if !w.possible {
            continue;
        }
        let a = class_sorted(periods, h);
        for (lo, hi) in marked(&a, w) {
            let group = &a[lo..=hi];
            let hit = match pick {
                PlusPick::Tree => dual_descent(group, w),
                PlusPick::MaxCapInFirstGroup => group
                    .iter()
                    .filter(|p| w.admits(p))
                    .copied()
                    .reduce(|a, b| if b.more_capacity_than(&a) { b } else { a }),
                PlusPick::EarliestStart => group.iter().find(|p| w.admits(p)).copied(),
            };
            if let Some(p) = hit {
                debug_assert!(w.admits(&p), "FF-HA+ returned an infeasible period {p}");
                return Some(p);
            }
        }
    }
    None
}
