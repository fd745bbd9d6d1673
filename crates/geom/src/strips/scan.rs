//! The `O(V)` fallback for rules an index does not organise its trees for.

use crate::index::{IdlePeriodIndex, Rule};
use crate::linear::LinearIndex;
use crate::period::{IdlePeriod, Window};
use crate::strip::StripGeometry;

/// Answers `rule` over `periods` with the reference implementation itself, so the fallback is
/// identical to [`LinearIndex`] by construction. Returns the answer and the number of periods
/// examined. `O(V)` time and memory.
pub(crate) fn scan_select(
    geometry: StripGeometry,
    periods: impl IntoIterator<Item = IdlePeriod>,
    rule: Rule,
    window: &Window,
) -> (Option<IdlePeriod>, u64) {
    let mut reference = LinearIndex::new(geometry);
    for p in periods {
        reference.insert(p);
    }
    let got = reference.select(rule, window);
    (got, reference.operations())
}
