//! The non-delaying site of chapter 3 as the thesis builds it: a cluster whose scheduler *is*
//! "insert each arriving job into the slot set with Figure 2", and what a site advertises
//! (spec §2.1–2.3).
//!
//! # Figure 2 is not quite conservative backfilling
//!
//! The thesis (and the spec's equivalence property, §2.2) says the start times of Figure 2
//! are exactly conservative backfilling's. They are not, whatever processors a placed job is
//! given: the slot set commits processors to *planned* jobs, while conservative backfilling
//! plans on a processor count and assigns processors only when jobs start. A later job can
//! then fit the count over its window but not any set of processors left free for all of it
//! (it would have to move from a processor that a planned job was given to one that job could
//! have used instead). The property test (`tests/it/figure2.rs`) found counterexamples for both
//! [`Consume`] rules; it checks what does hold: Figure 2 never starts a job where the count
//! does not allow it, returns the earliest start its own slots allow, and never moves a placed
//! job. How often the two differ on the real logs is measured by `singh-fig-4`. The default
//! slot source of the experiments is therefore the conservative-backfilling schedule itself,
//! cut into holes ([`crate::holes()`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use gridsched_batch::Time;

use crate::slot::{HOUR, Offer};
use crate::slotset::{Consume, SlotSet, Use};

/// The advertisement horizon rule (spec §2.1): slots are advertised from now to
/// `max(now + ahead, last planned finish + margin)`; every extensible slot runs to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    pub ahead: Time,
    pub margin: Time,
}

impl Default for Horizon {
    /// The thesis's 48 hours and 5 minutes.
    fn default() -> Self {
        Horizon {
            ahead: 48 * HOUR,
            margin: 300,
        }
    }
}

impl Horizon {
    /// The horizon at `now` when the last planned job finishes at `last_finish`.
    pub fn at(&self, now: Time, last_finish: Time) -> Time {
        (now + self.ahead).max(last_finish.saturating_add(self.margin))
    }
}

/// What a site advertises at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct Advertisement {
    pub time: Time,
    pub horizon: Time,
    /// Jobs in the system (running or queued).
    pub tasks: usize,
    /// The slots (Ch. 3 prices: c = 1 SU per processor-hour, f = 0).
    pub offers: Vec<Offer>,
}

/// Why a job cannot be scheduled on a site.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiteError {
    #[error("job {id}: {procs} processors on a site of {capacity}")]
    TooWide { id: u64, procs: u32, capacity: u32 },
    #[error("job {id}: run time {run} is not positive")]
    NoRunTime { id: u64, run: Time },
    #[error("job {id} submitted at {submit}, before the site's time {now}")]
    Past { id: u64, submit: Time, now: Time },
}

/// Chapter 3's slot scheduler on one cluster: jobs arrive in time order with exact run times;
/// each is placed at its earliest start by Figure 2, which never delays a job already placed.
#[derive(Debug, Clone)]
pub struct SlotSite {
    capacity: u32,
    now: Time,
    set: SlotSet,
    /// Planned ends of the jobs in the system.
    ends: BinaryHeap<Reverse<Time>>,
    last_finish: Time,
    uses: Vec<Use>,
}

impl SlotSite {
    /// An idle site of `capacity` processors at time `now`, with the default [`Consume`]
    /// rule.
    pub fn new(capacity: u32, now: Time) -> Self {
        Self::with_consume(capacity, now, Consume::default())
    }

    /// An idle site taking processors by `consume`.
    pub fn with_consume(capacity: u32, now: Time, consume: Consume) -> Self {
        SlotSite {
            capacity,
            now,
            set: SlotSet::idle(capacity, now).with_consume(consume),
            ends: BinaryHeap::new(),
            last_finish: now,
            uses: Vec::new(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// The free slots now.
    pub fn slots(&self) -> &SlotSet {
        &self.set
    }

    /// Jobs in the system (started or planned, not yet ended).
    pub fn tasks(&self) -> usize {
        self.ends.len()
    }

    /// Moves the clock to `t` (never back).
    pub fn advance(&mut self, t: Time) {
        if t <= self.now {
            return;
        }
        self.now = t;
        self.set.clip(t);
        while self.ends.peek().is_some_and(|e| e.0 <= t) {
            self.ends.pop();
        }
    }

    /// A job arrives at `submit` (not before the site's time): Figure 2 places it. Returns its
    /// start.
    pub fn submit(
        &mut self,
        id: u64,
        submit: Time,
        procs: u32,
        run: Time,
    ) -> Result<Time, SiteError> {
        if procs > self.capacity || procs == 0 {
            return Err(SiteError::TooWide {
                id,
                procs,
                capacity: self.capacity,
            });
        }
        if run <= 0 {
            return Err(SiteError::NoRunTime { id, run });
        }
        if submit < self.now {
            return Err(SiteError::Past {
                id,
                submit,
                now: self.now,
            });
        }
        self.advance(submit);
        self.uses.clear();
        let start = self
            .set
            .place(submit, procs, run, &mut self.uses)
            .expect("an idle processor set always ends in extensible slots covering the site");
        self.ends.push(Reverse(start + run));
        self.last_finish = self.last_finish.max(start + run);
        Ok(start)
    }

    /// What the site advertises now.
    pub fn advertise(&self, horizon: &Horizon) -> Advertisement {
        let h = horizon.at(self.now, self.last_finish);
        Advertisement {
            time: self.now,
            horizon: h,
            tasks: self.tasks(),
            offers: self.set.offers(h, 1.0, 0.0),
        }
    }
}
