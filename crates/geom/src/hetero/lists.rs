//! FF-HU and FF-HA: first fit over lists sorted by start (Castillo §4.2, spec §2.15).
//!
//! The thesis keeps linked lists in ascending start order and scans them element by element
//! from the head. A scan stops once the start time passes the latest start that condition
//! (4.3) allows (for FF-HU: on the fastest class), since no later element can be feasible. The
//! operation count is the number of elements examined (the one that ends the scan included).
//! Unlike FF-HA+, FF-HA has no per-class "can this rate meet the deadline at all" pre-check:
//! the thesis describes a plain scan of each list in turn.
//!
//! We keep each class's list as start-ordered blocks with per-block summaries (`blocks`) and
//! find the scan's answer without the scan: the first feasible period of a class is found by
//! skipping every block whose latest end or largest capacity fails the job, and the elements
//! the scan would have examined are *counted*, not visited:
//!
//! - if the scan finds a period, it examined exactly the periods up to and including it: its
//!   position in the list plus one (every earlier period starts no later, so the scan cannot
//!   have stopped before it);
//! - if it finds none, it examined every period with `!(start > latest)`, plus the first one
//!   after them if there is one (the element that ends the scan).
//!
//! So the choice and the operation count are exactly the list scan's (the scan itself is the
//! oracle of `crates/geom/tests/hetero_lists.rs`), at `O(V / B)` block summaries plus the
//! scan of the one or two blocks that may hold the answer instead of `O(V)` elements.

use super::blocks::StartBlocks;
use super::{ClassOrder, RateClasses, RatedIndex, RatedPeriod, RatedWindow};

/// FF-HU: one list of the idle periods of every server, in (start, server) order; a job gets
/// the first feasible period (the earliest start, ties by server), whatever its server's rate.
///
/// Stored as one start-ordered block list per class: the merged list's first feasible period
/// is the earliest of the classes' first feasible periods, and its position in the merged list
/// is the sum of the classes' ranks of its key.
#[derive(Debug, Clone)]
pub struct StartOrderedList {
    classes: RateClasses,
    lists: Vec<StartBlocks>,
    operations: u64,
}

impl StartOrderedList {
    /// An empty list for a system with these rate classes.
    pub fn new(classes: RateClasses) -> Self {
        let lists = (0..classes.len()).map(|_| StartBlocks::default()).collect();
        StartOrderedList {
            classes,
            lists,
            operations: 0,
        }
    }
}

impl RatedIndex for StartOrderedList {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        self.lists[p.class as usize].insert(p);
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        self.lists
            .get_mut(p.class as usize)
            .is_some_and(|l| l.remove(p).is_some())
    }

    fn carve(
        &mut self,
        p: &RatedPeriod,
        lead: Option<RatedPeriod>,
        trail: Option<RatedPeriod>,
    ) -> bool {
        let Some(list) = self.lists.get_mut(p.class as usize) else {
            return false;
        };
        // The leading fragment keeps the period's key: overwrite it in place.
        let removed = match lead {
            Some(l) if l.class == p.class && l.cmp_start(p).is_eq() => {
                list.replace(l).is_some() || {
                    self.insert(l);
                    false
                }
            }
            _ => {
                let removed = list.remove(p).is_some();
                if let Some(l) = lead {
                    self.insert(l);
                }
                removed
            }
        };
        if let Some(t) = trail {
            self.insert(t);
        }
        removed
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        // The fastest class has the latest admissible start: the merged scan stops after it.
        let latest = windows
            .iter()
            .map(|w| w.latest_start)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut best: Option<RatedPeriod> = None;
        for (list, w) in self.lists.iter().zip(windows) {
            if let Some((_, p)) = list.first_feasible(w)
                && best.is_none_or(|b| p.cmp_start(&b).is_lt())
            {
                best = Some(p);
            }
        }
        let examined = match &best {
            // Everything before the answer in the merged order, and the answer.
            Some(p) => self.lists.iter().map(|l| l.rank_before(p)).sum::<usize>() + 1,
            None => {
                let passed: usize = self.lists.iter().map(|l| l.rank_not_after(latest)).sum();
                passed + usize::from(passed < self.len())
            }
        };
        self.operations += examined as u64;
        best
    }

    fn len(&self) -> usize {
        self.lists.iter().map(StartBlocks::len).sum()
    }

    fn class_len(&self, class: usize) -> usize {
        self.lists[class].len()
    }

    fn periods(&self) -> Vec<RatedPeriod> {
        let mut all = Vec::with_capacity(self.len());
        for l in &self.lists {
            l.collect(&mut all);
        }
        all.sort_by(RatedPeriod::cmp_start);
        all
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
    lists: Vec<StartBlocks>,
    operations: u64,
}

impl RateClassLists {
    /// Empty lists for these classes, searched in `order`.
    pub fn new(classes: RateClasses, order: ClassOrder) -> Self {
        let lists = (0..classes.len()).map(|_| StartBlocks::default()).collect();
        RateClassLists {
            classes,
            order,
            lists,
            operations: 0,
        }
    }

    /// The first feasible period of one class in start order, counting the elements a scan
    /// from the head would examine (see the [module docs](self)).
    pub fn first_in_class(&mut self, class: usize, w: &RatedWindow) -> Option<RatedPeriod> {
        let list = &self.lists[class];
        let (examined, found) = match list.first_feasible(w) {
            Some((i, p)) => (i + 1, Some(p)),
            None => {
                let passed = list.rank_not_after(w.latest_start);
                (passed + usize::from(passed < list.len()), None)
            }
        };
        self.operations += examined as u64;
        found
    }
}

impl RatedIndex for RateClassLists {
    fn classes(&self) -> &RateClasses {
        &self.classes
    }

    fn insert(&mut self, p: RatedPeriod) {
        self.lists[p.class as usize].insert(p);
    }

    fn remove(&mut self, p: &RatedPeriod) -> bool {
        self.lists
            .get_mut(p.class as usize)
            .is_some_and(|l| l.remove(p).is_some())
    }

    fn carve(
        &mut self,
        p: &RatedPeriod,
        lead: Option<RatedPeriod>,
        trail: Option<RatedPeriod>,
    ) -> bool {
        let Some(list) = self.lists.get_mut(p.class as usize) else {
            return false;
        };
        // The leading fragment keeps the period's key: overwrite it in place.
        let removed = match lead {
            Some(l) if l.class == p.class && l.cmp_start(p).is_eq() => {
                list.replace(l).is_some() || {
                    self.insert(l);
                    false
                }
            }
            _ => {
                let removed = list.remove(p).is_some();
                if let Some(l) = lead {
                    self.insert(l);
                }
                removed
            }
        };
        if let Some(t) = trail {
            self.insert(t);
        }
        removed
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
        self.lists.iter().map(StartBlocks::len).sum()
    }

    fn class_len(&self, class: usize) -> usize {
        self.lists[class].len()
    }

    fn periods(&self) -> Vec<RatedPeriod> {
        let mut all = Vec::with_capacity(self.len());
        for l in &self.lists {
            l.collect(&mut all);
        }
        all.sort_by(RatedPeriod::cmp_start);
        all
    }

    fn operations(&self) -> u64 {
        self.operations
    }
}
