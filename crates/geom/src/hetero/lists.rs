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
//! So the choice and the operation count are exactly the list scan's (the scan itself,
//! [`ScanLists`](super::ScanLists), is their oracle in `crates/geom/tests/it/hetero_lists.rs`),
//! at `O(V / B)` block summaries plus the scan of the one or two blocks that may hold the
//! answer instead of `O(V)` elements.

use super::blocks::{Found, Spot, StartBlocks};
use super::{ClassOrder, RateClasses, RatedIndex, RatedPeriod, RatedWindow};

/// Books in `p` on per-class lists: `p` goes, `lead` (same key as `p`: overwritten in place)
/// and `trail` come. `found` is where the last search found its answer (class and spot), which
/// saves looking `p` up again when it is the period booked.
fn carve(
    lists: &mut [StartBlocks],
    found: Option<(usize, Spot)>,
    p: &RatedPeriod,
    lead: Option<RatedPeriod>,
    trail: Option<RatedPeriod>,
) -> bool {
    let class = p.class as usize;
    if class >= lists.len() {
        return false;
    }
    let hint = found.filter(|&(c, _)| c == class).map(|(_, spot)| spot);
    let list = &mut lists[class];
    let removed = match lead {
        Some(l) if l.class == p.class && l.cmp_start(p).is_eq() => {
            let replaced = list.replace_hinted(l, hint).is_some();
            if !replaced {
                list.insert(l);
            }
            replaced
        }
        _ => {
            let removed = list.remove_hinted(p, hint).is_some();
            if let Some(l) = lead {
                lists[l.class as usize].insert(l);
            }
            removed
        }
    };
    if let Some(t) = trail {
        lists[t.class as usize].insert(t);
    }
    removed
}

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
    /// Where the last search found its answer (class, spot), for the booking that follows.
    found: Option<(usize, Spot)>,
}

impl StartOrderedList {
    /// An empty list for a system with these rate classes.
    pub fn new(classes: RateClasses) -> Self {
        let lists = (0..classes.len()).map(|_| StartBlocks::default()).collect();
        StartOrderedList {
            classes,
            lists,
            operations: 0,
            found: None,
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
        carve(&mut self.lists, self.found.take(), p, lead, trail)
    }

    fn select(&mut self, windows: &[RatedWindow]) -> Option<RatedPeriod> {
        // The fastest class has the latest admissible start: the merged scan stops after it.
        let latest = windows
            .iter()
            .map(|w| w.latest_start)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut best: Option<(usize, Found)> = None;
        for (h, (list, w)) in self.lists.iter().zip(windows).enumerate() {
            // Only a period starting no later than the best so far can beat it: narrow the
            // class's search to those (the window's other thresholds are unchanged).
            let narrowed = RatedWindow {
                latest_start: best
                    .map_or(w.latest_start, |(_, b)| w.latest_start.min(b.period.start)),
                ..*w
            };
            if let Ok(f) = list.scan(&narrowed)
                && best.is_none_or(|(_, b)| f.period.cmp_start(&b.period).is_lt())
            {
                best = Some((h, f));
            }
        }
        self.found = best.map(|(h, f)| (h, f.spot));
        let examined = match &best {
            // Everything before the answer in the merged order, and the answer: its position
            // in its own class plus its rank in each other class.
            Some((h, f)) => {
                let others: usize = (self.lists.iter().enumerate())
                    .filter(|&(c, _)| c != *h)
                    .map(|(_, l)| l.rank_before(&f.period))
                    .sum();
                others + f.position + 1
            }
            None => {
                let passed: usize = self.lists.iter().map(|l| l.rank_not_after(latest)).sum();
                passed + usize::from(passed < self.len())
            }
        };
        self.operations += examined as u64;
        best.map(|(_, f)| f.period)
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
    /// Where the last search found its answer (class, spot), for the booking that follows.
    found: Option<(usize, Spot)>,
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
            found: None,
        }
    }

    /// The first feasible period of one class in start order, counting the elements a scan
    /// from the head would examine: the answer's position plus one, or, if there is none, the
    /// periods up to the latest feasible start plus the one that ends the scan (derived from
    /// block sizes, not by walking the list).
    pub fn first_in_class(&mut self, class: usize, w: &RatedWindow) -> Option<RatedPeriod> {
        let list = &self.lists[class];
        let (examined, found) = match list.scan(w) {
            Ok(f) => (f.position + 1, Some(f)),
            Err(passed) => (passed + usize::from(passed < list.len()), None),
        };
        self.operations += examined as u64;
        self.found = found.map(|f| (class, f.spot));
        found.map(|f| f.period)
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
        carve(&mut self.lists, self.found.take(), p, lead, trail)
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
