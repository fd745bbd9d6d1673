//! FF-HU and FF-HA as the thesis runs them (Castillo §4.2, spec §2.15): start-ordered lists
//! scanned element by element from the head, stopping at the first feasible period or at the
//! first start past the latest feasible one (condition 4.3).
//!
//! [`StartOrderedList`](super::StartOrderedList) and [`RateClassLists`](super::RateClassLists)
//! give the same choices and *count* the same elements examined without visiting them (block
//! summaries, `lists.rs`); this type visits them. It is their oracle in
//! `crates/geom/tests/it/hetero_lists.rs`, and the structure Castillo's chapter-4 model times when
//! `list_index = scan` (spec A26b), so that the running-time claims (Fig. 4.5) can be checked on
//! the thesis's linear scan and not only on our block indices.
//!
//! Each list is a B-tree map in (start, server) order: the search walks it from the head as a
//! linked list would; inserts and removes find their place in O(log n), where the thesis's
//! linked list would walk to it, so this reading can only understate the list's cost.

use std::collections::BTreeMap;

use super::{ClassOrder, RateClasses, RatedIndex, RatedPeriod, RatedWindow};

/// The (start, server) order as an integer key (`f64`'s total order mapped to `u64`).
fn start_key(p: &RatedPeriod) -> (u64, u32) {
    let bits = p.start.to_bits();
    let k = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    (k, p.server)
}

/// FF-HU's one list of every idle period, or FF-HA's list per rate class, scanned from the head.
#[derive(Debug, Clone)]
pub struct ScanLists {
    classes: RateClasses,
    /// `None`: FF-HU (one list of every period); `Some(order)`: FF-HA, classes in this order.
    order: Option<ClassOrder>,
    lists: Vec<BTreeMap<(u64, u32), RatedPeriod>>,
    /// Live periods per class, kept so that `class_len` is O(1) as in the other structures
    /// (Castillo's model reads it after every decision, inside the timed routine).
    per_class: Vec<usize>,
    operations: u64,
}

impl ScanLists {
    /// FF-HU: one list of the idle periods of every server.
    pub fn ff_hu(classes: RateClasses) -> Self {
        Self::new(classes, None)
    }

    /// FF-HA: one list per rate class, searched class by class in `order`.
    pub fn ff_ha(classes: RateClasses, order: ClassOrder) -> Self {
        Self::new(classes, Some(order))
    }

    fn new(classes: RateClasses, order: Option<ClassOrder>) -> Self {
        let n = if order.is_some() { classes.len() } else { 1 };
        ScanLists {
            per_class: vec![0; classes.len()],
            classes,
            order,
            lists: vec![BTreeMap::new(); n],
            operations: 0,
        }
    }

    fn list_of(&self, p: &RatedPeriod) -> usize {
        if self.order.is_some() {
            p.class as usize
        } else {
            0
        }
    }

    /// FF-HU's scan: the first period of the merged list that its class's window admits; the
    /// scan stops past the latest start any class allows.
    fn scan_all(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        let latest = windows
            .iter()
            .map(|w| w.latest_start)
            .fold(f64::NEG_INFINITY, f64::max);
        for p in self.lists[0].values() {
            self.operations += 1;
            if p.start > latest {
                break;
            }
            if windows[p.class as usize].admits(p) {
                return Some(*p);
            }
        }
        None
    }

    /// FF-HA's scan of one class.
    fn scan_class(&mut self, class: usize, w: &RatedWindow) -> Option<RatedPeriod> {
        for p in self.lists[class].values() {
            self.operations += 1;
            if p.start > w.latest_start {
                break;
            }
            if w.admits(p) {
                return Some(*p);
            }
        }
        None
    }
}

impl RatedIndex for ScanLists {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        let l = self.list_of(&p);
        let previous = self.lists[l].insert(start_key(&p), p);
        debug_assert!(previous.is_none(), "period {p:?} was live already");
        if previous.is_none() {
            self.per_class[p.class as usize] += 1;
        }
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        let l = self.list_of(p);
        let removed = self
            .lists
            .get_mut(l)
            .and_then(|list| list.remove(&start_key(p)));
        // The stored period's class, not the argument's: only (start, server) identifies it.
        if let Some(q) = removed {
            self.per_class[q.class as usize] -= 1;
        }
        removed.is_some()
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        match self.order {
            None => self.scan_all(windows),
            Some(order) => order
                .iter(self.classes.len())
                .find_map(|class| self.scan_class(class, &windows[class])),
        }
    }

    fn len(&self) -> usize {
        self.lists.iter().map(BTreeMap::len).sum()
    }

    fn class_len(&self, class: usize) -> usize {
        self.per_class[class]
    }

    fn periods(&self) -> Vec<RatedPeriod> {
        let mut all: Vec<RatedPeriod> = self
            .lists
            .iter()
            .flat_map(|l| l.values().copied())
            .collect();
        all.sort_by(RatedPeriod::cmp_start);
        all
    }

    fn operations(&self) -> u64 {
        self.operations
    }
}
