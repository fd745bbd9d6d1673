//! FF-HU and FF-HA: first fit over lists sorted by start (Castillo §4.2, spec §2.15).
//!
//! The thesis keeps linked lists in ascending start order; we keep ordered maps (the same
//! order, `O(log V)` insertion instead of a linked list's `O(V)` walk) and scan them exactly as
//! a list: element by element from the head. A scan stops once the start time passes the latest
//! start that condition (4.3) allows (for FF-HU: on the fastest class), since no later element
//! can be feasible. The operation count is the number of elements examined (the one that ends
//! the scan included). Unlike FF-HA+, FF-HA has no per-class "can this rate meet the deadline
//! at all" pre-check: the thesis describes a plain scan of each list in turn.

use std::collections::BTreeMap;

use super::{ClassOrder, RateClasses, RatedIndex, RatedPeriod, RatedWindow};

/// The (start, server) order as an integer key (`f64` total order mapped to `u64`).
fn start_key(p: &RatedPeriod) -> (u64, u32) {
    let bits = p.start.to_bits();
    let k = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    (k, p.server)
}

/// FF-HU: one list of the idle periods of every server, in (start, server) order; a job gets
/// the first feasible period (the earliest start, ties by server), whatever its server's rate.
#[derive(Debug, Clone)]
pub struct StartOrderedList {
    classes: RateClasses,
    list: BTreeMap<(u64, u32), RatedPeriod>,
    per_class: Vec<usize>,
    operations: u64,
}

impl StartOrderedList {
    /// An empty list for a system with these rate classes.
    pub fn new(classes: RateClasses) -> Self {
        let h = classes.len();
        StartOrderedList {
            classes,
            list: BTreeMap::new(),
            per_class: vec![0; h],
            operations: 0,
        }
    }
}

impl RatedIndex for StartOrderedList {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        let old = self.list.insert(start_key(&p), p);
        debug_assert!(old.is_none(), "duplicate period {p}");
        if old.is_none() {
            self.per_class[p.class as usize] += 1;
        }
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        match self.list.remove(&start_key(p)) {
            Some(q) => {
                self.per_class[q.class as usize] -= 1;
                true
            }
            None => false,
        }
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        // The fastest class has the latest admissible start.
        let latest = windows
            .iter()
            .map(|w| w.latest_start)
            .fold(f64::NEG_INFINITY, f64::max);
        for p in self.list.values() {
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

    fn len(&self) -> usize {
        self.list.len()
    }

    fn class_len(&self, class: usize) -> usize {
        self.per_class[class]
    }

    fn periods(&self) -> Vec<RatedPeriod> {
        self.list.values().copied().collect()
    }

    fn operations(&self) -> u64 {
        self.operations
    }
}

/// FF-HA: one list per rate class, each in (start, server) order, searched class by class in
/// `order` (slowest first by default); a job gets the first feasible period of the first class
/// that has one.
#[derive(Debug, Clone)]
pub struct RateClassLists {
    classes: RateClasses,
    order: ClassOrder,
    lists: Vec<BTreeMap<(u64, u32), RatedPeriod>>,
    operations: u64,
}

impl RateClassLists {
    /// Empty lists for these classes, searched in `order`.
    pub fn new(classes: RateClasses, order: ClassOrder) -> Self {
        let lists = vec![BTreeMap::new(); classes.len()];
        RateClassLists {
            classes,
            order,
            lists,
            operations: 0,
        }
    }

    /// The first feasible period of one class in start order, counting examined elements.
    pub fn first_in_class(&mut self, class: usize, w: &RatedWindow) -> Option<RatedPeriod> {
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

impl RatedIndex for RateClassLists {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        let old = self.lists[p.class as usize].insert(start_key(&p), p);
        debug_assert!(old.is_none(), "duplicate period {p}");
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        self.lists
            .get_mut(p.class as usize)
            .is_some_and(|l| l.remove(&start_key(p)).is_some())
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        for class in self.order.iter(self.classes.len()) {
            if let Some(p) = self.first_in_class(class, &windows[class]) {
                return Some(p);
            }
        }
        None
    }

    fn len(&self) -> usize {
        self.lists.iter().map(BTreeMap::len).sum()
    }

    fn class_len(&self, class: usize) -> usize {
        self.lists[class].len()
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
