//! The online scheduler on rated servers: one decision per request, at its arrival.

use std::fmt;
use std::str::FromStr;

use gridsched_geom::hetero::{
    ClassOrder, PlusPick, PrimalDualTrees, RateClassLists, RateClasses, RatedIndex, RatedPeriod,
    RatedWindow, ScanLists, StartOrderedList,
};
use gridsched_geom::{Time, Window};

use crate::scheduler::{Booking, ConfigError, SubmitError};

/// The three algorithms of Castillo ch. 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeteroAlgorithm {
    /// First fit over one list of every idle period by start, blind to rates (§4.2).
    FfHu,
    /// First fit over one list per rate class, slowest class first (§4.2).
    FfHa,
    /// FF-HA with a primal/dual 2-D tree per class instead of a list (§4.4).
    FfHaPlus,
}

impl HeteroAlgorithm {
    /// All algorithms.
    pub const ALL: [HeteroAlgorithm; 3] = [
        HeteroAlgorithm::FfHu,
        HeteroAlgorithm::FfHa,
        HeteroAlgorithm::FfHaPlus,
    ];

    /// Command-line / config name.
    pub fn name(self) -> &'static str {
        match self {
            HeteroAlgorithm::FfHu => "ff-hu",
            HeteroAlgorithm::FfHa => "ff-ha",
            HeteroAlgorithm::FfHaPlus => "ff-ha-plus",
        }
    }
}

impl fmt::Display for HeteroAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HeteroAlgorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        HeteroAlgorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                format!("unknown algorithm `{s}`; expected one of ff-hu, ff-ha, ff-ha-plus")
            })
    }
}

/// How FF-HU and FF-HA hold their start-ordered lists (spec A26b). Both give the same choices
/// and count the same operations (elements a scan from the head examines); only the time a
/// decision takes differs, which is what Fig. 4.5's running-time claims compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ListIndex {
    /// Start-ordered blocks with summaries: the scan's answer and count without the scan
    /// (`geom::hetero::StartOrderedList`, `RateClassLists`).
    #[default]
    Blocks,
    /// The thesis's list scan, element by element from the head (`geom::hetero::ScanLists`).
    Scan,
}

/// One minute of work on a rate-1 server, in hours: the default smallest fragment kept (A24).
pub const ONE_MINUTE: f64 = 1.0 / 60.0;

/// Everything that defines a heterogeneous scheduler.
#[derive(Debug, Clone, PartialEq)]
pub struct HeteroConfig {
    /// Service rate of every server, each in `(0, 1]`.
    pub rates: Vec<f64>,
    pub algorithm: HeteroAlgorithm,
    /// FF-HA+'s choice inside the first group with a feasible period (spec A22).
    pub pick: PlusPick,
    /// Class search order of FF-HA and FF-HA+ (slowest first in the thesis).
    pub class_order: ClassOrder,
    /// Idle fragments whose nominal capacity is below this (work units) are discarded (A24).
    pub min_fragment: f64,
    /// How FF-HU's and FF-HA's lists are held (A26b); FF-HA+ has trees, not lists.
    pub list_index: ListIndex,
}

impl HeteroConfig {
    /// The thesis's setting for servers with these rates: slowest class first, tree pick,
    /// fragments of at least one minute of work.
    pub fn new(rates: Vec<f64>, algorithm: HeteroAlgorithm) -> Self {
        HeteroConfig {
            rates,
            algorithm,
            pick: PlusPick::Tree,
            class_order: ClassOrder::Ascending,
            min_fragment: ONE_MINUTE,
            list_index: ListIndex::Blocks,
        }
    }

    /// Checks the configuration; returns the rate classes.
    pub fn validate(&self) -> Result<RateClasses, ConfigError> {
        if !(self.min_fragment.is_finite() && self.min_fragment >= 0.0) {
            return Err(ConfigError(format!(
                "min_fragment must be a non-negative number, got {}",
                self.min_fragment
            )));
        }
        if self.list_index == ListIndex::Scan && self.algorithm == HeteroAlgorithm::FfHaPlus {
            return Err(ConfigError(
                "list_index = scan applies to ff-hu and ff-ha: ff-ha-plus searches trees, not lists"
                    .into(),
            ));
        }
        if self.rates.len() > u32::MAX as usize {
            return Err(ConfigError("too many servers".into()));
        }
        RateClasses::from_server_rates(&self.rates).map_err(|e| ConfigError(e.0))
    }
}

/// A snapshot of a heterogeneous scheduler: enough to rebuild it over another algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct HeteroState {
    /// Time of the last arrival.
    pub now: Time,
    /// Live idle periods in (start, server) order.
    pub idle_periods: Vec<RatedPeriod>,
}

/// The online advance-reservation scheduler of Castillo ch. 4 on servers of different rates.
///
/// A job `(r, l, d)` of work `l` runs `l/μ` on a rate-`μ` server; it is booked at
/// `max(start, r)` in the chosen idle period, which leaves a leading and a trailing fragment
/// (kept if their nominal capacity is at least `min_fragment`). Idle periods that have ended
/// by the current arrival are dropped before each decision, so every algorithm sees the same
/// live set.
///
/// ```
/// use gridsched_geom::Window;
/// use gridsched_reservation::hetero::{HeteroAlgorithm, HeteroConfig, HeteroScheduler};
///
/// // Server 0 at rate 0.5, server 1 at rate 1.
/// let config = HeteroConfig::new(vec![0.5, 1.0], HeteroAlgorithm::FfHaPlus);
/// let mut s = HeteroScheduler::new(config).unwrap();
/// // 2 h of work, ready at 1 h, due at 10 h: fits the slow server (4 h), searched first.
/// let b = s.submit(0.0, &Window::new(1.0, 2.0, 10.0).unwrap()).unwrap().unwrap();
/// assert_eq!((b.server, b.start, b.end), (0, 1.0, 5.0));
/// ```
#[derive(Debug)]
pub struct HeteroScheduler {
    config: HeteroConfig,
    classes: RateClasses,
    server_class: Vec<u32>,
    index: Box<dyn RatedIndex + Send>,
    /// Expiry: each server's live finite periods as (start, end), in start order, which is
    /// also end order (a server's periods are disjoint), so a server's next period to expire
    /// is its first one.
    finite: Vec<Vec<(Time, Time)>>,
    /// The end (as an order key) of each server's first finite period, in a tournament tree
    /// over the servers: the earliest of them is always at the root, and a change of one
    /// server's first end costs one leaf-to-root pass (`log2 n` steps) instead of an ordered
    /// map update per live period.
    fronts: Fronts,
    windows: Vec<RatedWindow>,
    now: Time,
}

/// Maps a float to an integer with the same order.
fn order_key(t: Time) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// A tournament (winner) tree over the servers: each leaf is a server's first finite end as
/// an order key (`u64::MAX`: none), each inner node the smaller of its children, with the
/// server it belongs to.
#[derive(Debug, Clone)]
struct Fronts {
    /// Leaves start at `leaves`; node `i`'s children are `2i` and `2i + 1`; node 0 is unused.
    nodes: Vec<(u64, u32)>,
    leaves: usize,
}

impl Fronts {
    fn new(servers: usize) -> Self {
        let leaves = servers.next_power_of_two().max(1);
        Fronts {
            nodes: vec![(u64::MAX, u32::MAX); 2 * leaves],
            leaves,
        }
    }

    /// Sets `server`'s first finite end.
    fn set(&mut self, server: u32, end: Option<Time>) {
        let mut i = self.leaves + server as usize;
        self.nodes[i] = (end.map_or(u64::MAX, order_key), server);
        while i > 1 {
            i /= 2;
            let (a, b) = (self.nodes[2 * i], self.nodes[2 * i + 1]);
            let winner = if b.0 < a.0 { b } else { a };
            if self.nodes[i] == winner {
                // Nothing above changes either.
                break;
            }
            self.nodes[i] = winner;
        }
    }

    /// The server whose first finite period ends earliest, if that end is not after `now`.
    #[inline]
    fn earliest_at_or_before(&self, now: Time) -> Option<u32> {
        let (key, server) = self.nodes[1];
        // The float comparison `!(end > now)`, not the key order: the two differ on -0.0 and
        // 0.0.
        let due = from_order_key(key).partial_cmp(&now) != Some(std::cmp::Ordering::Greater);
        (key != u64::MAX && due).then_some(server)
    }
}

/// The inverse of [`order_key`].
fn from_order_key(key: u64) -> Time {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

impl HeteroScheduler {
    /// A scheduler whose servers are all idle from time 0 on.
    pub fn new(config: HeteroConfig) -> Result<Self, ConfigError> {
        let classes = config.validate()?;
        let server_class: Vec<u32> = config
            .rates
            .iter()
            .map(|&r| classes.class_of(r).expect("every rate has a class"))
            .collect();
        let index: Box<dyn RatedIndex + Send> = match (config.algorithm, config.list_index) {
            (HeteroAlgorithm::FfHu, ListIndex::Blocks) => {
                Box::new(StartOrderedList::new(classes.clone()))
            }
            (HeteroAlgorithm::FfHu, ListIndex::Scan) => Box::new(ScanLists::ff_hu(classes.clone())),
            (HeteroAlgorithm::FfHa, ListIndex::Blocks) => {
                Box::new(RateClassLists::new(classes.clone(), config.class_order))
            }
            (HeteroAlgorithm::FfHa, ListIndex::Scan) => {
                Box::new(ScanLists::ff_ha(classes.clone(), config.class_order))
            }
            (HeteroAlgorithm::FfHaPlus, _) => Box::new(PrimalDualTrees::new(
                classes.clone(),
                config.class_order,
                config.pick,
            )),
        };
        let n = server_class.len();
        let mut s = HeteroScheduler {
            config,
            classes,
            server_class,
            index,
            finite: vec![Vec::new(); n],
            fronts: Fronts::new(n),
            windows: Vec::new(),
            now: 0.0,
        };
        for server in 0..s.server_class.len() as u32 {
            let p = s.period(0.0, Time::INFINITY, server);
            s.add(p);
        }
        Ok(s)
    }

    /// A scheduler whose servers already hold `reservations` (per server, sorted disjoint
    /// `[start, end)` intervals at or after time 0); the idle periods are the gaps of nominal
    /// capacity at least `min_fragment` between them plus each server's tail. Used to replay
    /// worked examples.
    pub fn with_reservations(
        config: HeteroConfig,
        reservations: &[Vec<(Time, Time)>],
    ) -> Result<Self, ConfigError> {
        if reservations.len() != config.rates.len() {
            return Err(ConfigError(format!(
                "{} servers configured but reservations given for {}",
                config.rates.len(),
                reservations.len()
            )));
        }
        let mut s = Self::new(config)?;
        for (server, booked) in reservations.iter().enumerate() {
            let server = server as u32;
            let mut free_from = 0.0;
            s.drop_period(&s.period(0.0, Time::INFINITY, server));
            for &(start, end) in booked {
                if !(start >= free_from && end > start && end.is_finite()) {
                    return Err(ConfigError(format!(
                        "server {server}: reservation [{start}, {end}) overlaps or is out of order"
                    )));
                }
                let gap = s.period(free_from, start, server);
                if start > free_from && gap.capacity >= s.config.min_fragment {
                    s.add(gap);
                }
                free_from = end;
            }
            let tail = s.period(free_from, Time::INFINITY, server);
            s.add(tail);
        }
        Ok(s)
    }

    /// The scheduler's state (see [`HeteroState`]).
    pub fn state(&self) -> HeteroState {
        HeteroState {
            now: self.now,
            idle_periods: self.index.periods(),
        }
    }

    /// A scheduler in the given state; `config` may choose another algorithm than the one the
    /// state was taken from (its rates must hold the state's servers and classes).
    pub fn from_state(config: HeteroConfig, state: &HeteroState) -> Result<Self, ConfigError> {
        let mut s = Self::new(config)?;
        for server in 0..s.server_class.len() as u32 {
            s.drop_period(&s.period(0.0, Time::INFINITY, server));
        }
        s.now = state.now;
        for p in &state.idle_periods {
            let ok = s
                .server_class
                .get(p.server as usize)
                .is_some_and(|&c| c == p.class);
            if !ok {
                return Err(ConfigError(format!(
                    "idle period {p} does not match the configured servers"
                )));
            }
            s.add(*p);
        }
        Ok(s)
    }

    /// The configuration.
    pub fn config(&self) -> &HeteroConfig {
        &self.config
    }

    /// The rate classes (ascending rates).
    pub fn classes(&self) -> &RateClasses {
        &self.classes
    }

    /// The class of a server.
    pub fn class_of_server(&self, server: u32) -> u32 {
        self.server_class[server as usize]
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        self.server_class.len() as u32
    }

    /// Live idle periods.
    pub fn live_periods(&self) -> usize {
        self.index.len()
    }

    /// Live idle periods of one class.
    pub fn live_in_class(&self, class: usize) -> usize {
        self.index.class_len(class)
    }

    /// Every live idle period, in (start, server) order.
    pub fn idle_periods(&self) -> Vec<RatedPeriod> {
        self.index.periods()
    }

    /// Cumulative operations of the algorithm's searches (list elements examined / tree nodes
    /// of the thesis's search visited).
    pub fn operations(&self) -> u64 {
        self.index.operations()
    }

    fn period(&self, start: Time, end: Time, server: u32) -> RatedPeriod {
        let class = self.server_class[server as usize];
        RatedPeriod::new(start, end, server, class, self.classes.rate(class as usize))
    }

    fn add(&mut self, p: RatedPeriod) {
        self.track(p.server, None, [Some(p), None]);
        self.index.insert(p);
    }

    fn drop_period(&mut self, p: &RatedPeriod) {
        self.track(p.server, Some(p), [None, None]);
        let removed = self.index.remove(p);
        debug_assert!(removed, "period {p} was not live");
    }

    /// Updates the expiry lists of `server`: its period `old` goes, `new` come (tails are not
    /// tracked: they never expire). If the server's first finite period now ends at another
    /// time, the tournament learns it. A booking's fragments lie inside the booked period, so
    /// the first one takes its slot (no shift) and the second goes right after it.
    fn track(&mut self, server: u32, old: Option<&RatedPeriod>, new: [Option<RatedPeriod>; 2]) {
        let list = &mut self.finite[server as usize];
        let front = list.first().map(|&(_, e)| e);
        let mut slot = None;
        if let Some(p) = old.filter(|p| !p.is_tail()) {
            let at = list.partition_point(|&(s, _)| s.total_cmp(&p.start).is_lt());
            debug_assert!(
                list.get(at)
                    .is_some_and(|&(s, e)| s == p.start && e == p.end),
                "period {p} is not tracked"
            );
            slot = Some(at);
        }
        for p in new.into_iter().flatten().filter(|p| !p.is_tail()) {
            match slot.take() {
                Some(at) => list[at] = (p.start, p.end),
                None => {
                    let at = list.partition_point(|&(s, _)| s.total_cmp(&p.start).is_lt());
                    list.insert(at, (p.start, p.end));
                }
            }
        }
        if let Some(at) = slot {
            list.remove(at);
        }
        debug_assert!(
            list.windows(2).all(|w| w[0].1 <= w[1].0),
            "overlapping periods"
        );
        let now_front = list.first().map(|&(_, e)| e);
        if now_front.map(f64::to_bits) != front.map(f64::to_bits) {
            self.fronts.set(server, now_front);
        }
    }

    /// Drops every idle period that ends at or before `now`. Which order they leave the index
    /// in does not matter: no structure's answers or counts depend on its update history.
    fn expire(&mut self, now: Time) {
        while let Some(server) = self.fronts.earliest_at_or_before(now) {
            let list = &mut self.finite[server as usize];
            let (start, end) = list.remove(0);
            self.fronts.set(server, list.first().map(|&(_, e)| e));
            let p = self.period(start, end, server);
            let removed = self.index.remove(&p);
            debug_assert!(removed, "expired period {p} was not live");
        }
    }

    /// Decides the job arriving at `arrival` with window `w` (`w.length` is its work on a
    /// rate-1 server): `Some(booking)` if accepted, `None` if dropped. Arrivals must be
    /// non-decreasing.
    pub fn submit(&mut self, arrival: Time, w: &Window) -> Result<Option<Booking>, SubmitError> {
        gridsched_sim::cancel::checkpoint();
        if arrival < self.now {
            return Err(SubmitError::OutOfOrder {
                arrival,
                now: self.now,
            });
        }
        if arrival < 0.0 {
            return Err(SubmitError::BeforeStart(arrival));
        }
        if w.ready < arrival {
            return Err(SubmitError::ReadyBeforeArrival {
                ready: w.ready,
                arrival,
            });
        }
        self.now = arrival;
        self.expire(arrival);
        self.classes.windows(w, &mut self.windows);
        let Some(p) = self.index.select(&self.windows) else {
            return Ok(None);
        };
        let class = p.class as usize;
        let rw = self.windows[class];
        let rate = self.classes.rate(class);
        let start = rw.start_in(&p);
        let end = start + rw.duration;
        let lead = self.period(p.start, start, p.server);
        let lead =
            (start > arrival && start > p.start && lead.capacity >= self.config.min_fragment)
                .then_some(lead);
        let trail = (p.is_tail() || rate * (p.end - end) >= self.config.min_fragment)
            .then(|| self.period(end, p.end, p.server));
        // One call for the removal and both insertions: the leading fragment keeps the period's
        // key, so a structure can overwrite it in place.
        self.track(p.server, Some(&p), [lead, trail]);
        let removed = self.index.carve(&p, lead, trail);
        debug_assert!(removed, "period {p} was not live");
        Ok(Some(Booking {
            server: p.server,
            start,
            end,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names_round_trip() {
        for a in HeteroAlgorithm::ALL {
            assert_eq!(a.name().parse::<HeteroAlgorithm>(), Ok(a));
        }
        assert!("ff".parse::<HeteroAlgorithm>().is_err());
    }

    #[test]
    fn invalid_configurations_are_rejected() {
        let bad = HeteroConfig::new(vec![0.5, 1.2], HeteroAlgorithm::FfHu);
        assert!(HeteroScheduler::new(bad).unwrap_err().0.contains("(0, 1]"));
        let mut bad = HeteroConfig::new(vec![0.5], HeteroAlgorithm::FfHu);
        bad.min_fragment = -1.0;
        assert!(HeteroScheduler::new(bad).is_err());
        assert!(HeteroScheduler::new(HeteroConfig::new(vec![], HeteroAlgorithm::FfHa)).is_err());
    }

    #[test]
    fn expiry_and_out_of_order_arrivals() {
        let c = HeteroConfig::new(vec![1.0], HeteroAlgorithm::FfHaPlus);
        let mut s = HeteroScheduler::with_reservations(c, &[vec![(1.0, 2.0)]]).unwrap();
        assert_eq!(s.live_periods(), 2);
        s.submit(1.5, &Window::new(3.0, 1.0, 5.0).unwrap()).unwrap();
        // [0, 1) expired at 1.5; the tail was split into [2, 3) and [4, inf).
        let live: Vec<(f64, f64)> = s.idle_periods().iter().map(|p| (p.start, p.end)).collect();
        assert_eq!(live, vec![(2.0, 3.0), (4.0, f64::INFINITY)]);
        assert!(s.submit(1.0, &Window::new(3.0, 1.0, 5.0).unwrap()).is_err());
        assert!(s.submit(2.0, &Window::new(1.0, 1.0, 5.0).unwrap()).is_err());
    }
}
