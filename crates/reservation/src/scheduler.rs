//! The online scheduler: one decision per request, at its arrival, never revised.

use std::collections::BTreeSet;

use gridsched_geom::{
    ExpiryMode, IdlePeriod, IdlePeriodIndex, LinearIndex, Rule, StripGeometry, Time, TreeConfig,
    TreeIndex, Window,
};

use crate::strategy::{LactLate, Placement, Step, Strategy, StrategyOptions};

/// Which idle-period index backs the gap-aware strategies. Both make identical decisions
/// (property-tested); only the cost differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexKind {
    /// The thesis's strip-partitioned augmented trees: `O(log n)` per strip touched.
    #[default]
    Tree,
    /// The `O(V)` reference scan of every live idle period.
    Linear,
}

impl IndexKind {
    /// Config / command-line name.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Tree => "tree",
            IndexKind::Linear => "linear",
        }
    }

    /// Parses a config / command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        [IndexKind::Tree, IndexKind::Linear]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// Everything that defines a scheduler (Castillo ch. 3 defaults: `l_min = 1`, `L = 200`, `M = 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SchedulerConfig {
    pub servers: u32,
    pub strategy: Strategy,
    pub options: StrategyOptions,
    /// Shortest job; idle fragments shorter than this are discarded.
    pub l_min: Time,
    /// Look-ahead `L`: no request reaches further than `arrival + L`.
    pub look_ahead: Time,
    /// Strip-width multiplier `M` (strips are `M * 2 * l_min` wide).
    pub strip_multiplier: u32,
    pub expiry: ExpiryMode,
    pub index: IndexKind,
}

impl SchedulerConfig {
    /// The thesis's defaults for `servers` servers running `strategy`.
    pub fn new(servers: u32, strategy: Strategy) -> Self {
        SchedulerConfig {
            servers,
            strategy,
            options: StrategyOptions::default(),
            l_min: 1.0,
            look_ahead: 200.0,
            strip_multiplier: 1,
            expiry: ExpiryMode::Pool,
            index: IndexKind::default(),
        }
    }

    /// Checks the configuration.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.servers == 0 {
            return Err(ConfigError(
                "the number of servers must be at least 1".into(),
            ));
        }
        if !(self.l_min.is_finite() && self.l_min > 0.0) {
            return Err(ConfigError(format!(
                "l_min must be positive, got {}",
                self.l_min
            )));
        }
        if !(self.look_ahead.is_finite() && self.look_ahead >= self.l_min) {
            return Err(ConfigError(format!(
                "the horizon must be at least l_min, got {}",
                self.look_ahead
            )));
        }
        if self.strip_multiplier == 0 {
            return Err(ConfigError(
                "the strip multiplier M must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// An invalid scheduler configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid scheduler configuration: {0}")]
pub struct ConfigError(pub String);

/// A request the scheduler refuses to consider (a broken stream, not a dropped job).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SubmitError {
    #[error("arrival {arrival} is earlier than the previous arrival {now}")]
    OutOfOrder { arrival: Time, now: Time },
    #[error("arrival {0} is before time 0, when the servers start")]
    BeforeStart(Time),
    #[error("ready time {ready} is before the arrival time {arrival}")]
    ReadyBeforeArrival { ready: Time, arrival: Time },
    #[error("deadline {deadline} is beyond the horizon arrival + L = {limit}")]
    BeyondHorizon { deadline: Time, limit: Time },
    #[error("length {length} is shorter than l_min = {l_min}")]
    TooShort { length: Time, l_min: Time },
}

/// A snapshot of a scheduler (see [`ReservationScheduler::state`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerState {
    /// Time of the last arrival.
    pub now: Time,
    /// Live idle periods in (start, server) order (gap-aware strategies).
    pub idle_periods: Vec<IdlePeriod>,
    /// Completion time per server (LACT).
    pub completion: Vec<Time>,
}

/// An accepted job: `server` runs it over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Booking {
    pub server: u32,
    pub start: Time,
    pub end: Time,
}

/// The online advance-reservation scheduler of Castillo ch. 3 (homogeneous servers).
///
/// ```
/// use gridsched_geom::Window;
/// use gridsched_reservation::{ReservationScheduler, SchedulerConfig, Strategy};
///
/// let mut s = ReservationScheduler::new(SchedulerConfig::new(2, Strategy::MinLip)).unwrap();
/// let booking = s.submit(0.0, &Window::new(5.0, 2.0, 9.0).unwrap()).unwrap().unwrap();
/// assert_eq!((booking.server, booking.start, booking.end), (0, 5.0, 7.0));
/// ```
#[derive(Debug)]
pub struct ReservationScheduler {
    config: SchedulerConfig,
    engine: Engine,
    steps: Vec<Step>,
    now: Time,
    operations: u64,
}

enum Engine {
    Gaps(Box<dyn IdlePeriodIndex + Send>),
    Lact(LactServers),
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Engine::Gaps(ix) => write!(f, "Gaps({} idle periods)", ix.len()),
            Engine::Lact(l) => write!(f, "{l:?}"),
        }
    }
}

impl ReservationScheduler {
    /// A scheduler whose servers are all idle from time 0 on.
    pub fn new(config: SchedulerConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let steps = config.options.steps(config.strategy);
        let engine = if config.strategy.uses_idle_periods() {
            let geometry = StripGeometry::for_min_length(config.l_min, config.strip_multiplier);
            let mut index: Box<dyn IdlePeriodIndex + Send> = match config.index {
                IndexKind::Linear => Box::new(LinearIndex::with_expiry(geometry, config.expiry)),
                IndexKind::Tree => {
                    let rules: Vec<Rule> = steps.iter().map(|s| s.0).collect();
                    let tree =
                        TreeConfig::new(geometry, config.look_ahead).with_expiry(config.expiry);
                    Box::new(TreeIndex::new(tree, &rules))
                }
            };
            for server in 0..config.servers {
                index.insert(IdlePeriod::tail(0.0, server));
            }
            Engine::Gaps(index)
        } else {
            Engine::Lact(LactServers::new(config.servers, config.options.lact_late))
        };
        let steps = config.options.steps(config.strategy);
        Ok(ReservationScheduler {
            config,
            engine,
            steps,
            now: 0.0,
            operations: 0,
        })
    }

    /// A scheduler whose servers already hold `reservations` (per server, `[start, end)`
    /// intervals, sorted and disjoint, all at or after time 0): the idle periods are the gaps of
    /// at least `l_min` between them plus each server's tail; LACT's completion time is the end
    /// of the last one. Used to replay worked examples.
    pub fn with_reservations(
        config: SchedulerConfig,
        reservations: &[Vec<(Time, Time)>],
    ) -> Result<Self, ConfigError> {
        if reservations.len() != config.servers as usize {
            return Err(ConfigError(format!(
                "{} servers configured but reservations given for {}",
                config.servers,
                reservations.len()
            )));
        }
        let mut s = Self::new(config)?;
        for (server, booked) in reservations.iter().enumerate() {
            let server = server as u32;
            let mut free_from = 0.0;
            for &(start, end) in booked {
                if !(start >= free_from && end > start) {
                    return Err(ConfigError(format!(
                        "server {server}: reservation [{start}, {end}) overlaps or is out of order"
                    )));
                }
                if let Engine::Gaps(index) = &mut s.engine {
                    if start - free_from >= config.l_min {
                        index.insert(IdlePeriod::new(free_from, start, server));
                    }
                }
                free_from = end;
            }
            match &mut s.engine {
                Engine::Gaps(index) => {
                    index.remove(&IdlePeriod::tail(0.0, server));
                    index.insert(IdlePeriod::tail(free_from, server));
                }
                Engine::Lact(lact) => lact.set_completion(server, free_from),
            }
        }
        Ok(s)
    }

    /// The scheduler's state: the clock, every live idle period (gap-aware strategies) and every
    /// server's completion time (LACT) — enough to rebuild it, e.g. over another index.
    pub fn state(&self) -> SchedulerState {
        match &self.engine {
            Engine::Gaps(index) => SchedulerState {
                now: self.now,
                idle_periods: index.periods(),
                completion: Vec::new(),
            },
            Engine::Lact(l) => SchedulerState {
                now: self.now,
                idle_periods: Vec::new(),
                completion: l.completion.clone(),
            },
        }
    }

    /// A scheduler in the given state (see [`ReservationScheduler::state`]); `config` may choose
    /// another index than the one the state was taken from.
    pub fn from_state(
        config: SchedulerConfig,
        state: &SchedulerState,
    ) -> Result<Self, ConfigError> {
        let mut s = Self::new(config)?;
        s.now = state.now;
        match &mut s.engine {
            Engine::Gaps(index) => {
                for server in 0..config.servers {
                    index.remove(&IdlePeriod::tail(0.0, server));
                }
                index.advance(state.now);
                for p in &state.idle_periods {
                    if p.server >= config.servers {
                        return Err(ConfigError(format!(
                            "idle period {p} names a server beyond {}",
                            config.servers
                        )));
                    }
                    index.insert(*p);
                }
            }
            Engine::Lact(l) => {
                if state.completion.len() != config.servers as usize {
                    return Err(ConfigError(
                        "LACT state needs one completion time per server".into(),
                    ));
                }
                for (server, &c) in state.completion.iter().enumerate() {
                    l.set_completion(server as u32, c);
                }
            }
        }
        Ok(s)
    }

    /// The configuration.
    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }

    /// Decides the request arriving at `arrival`: `Some(booking)` if accepted, `None` if dropped.
    /// Arrivals must be non-decreasing and requests must respect the horizon.
    pub fn submit(&mut self, arrival: Time, w: &Window) -> Result<Option<Booking>, SubmitError> {
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
        let limit = arrival + self.config.look_ahead;
        if w.deadline > limit + gridsched_geom::time_tolerance(limit) {
            return Err(SubmitError::BeyondHorizon {
                deadline: w.deadline,
                limit,
            });
        }
        if w.length < self.config.l_min {
            return Err(SubmitError::TooShort {
                length: w.length,
                l_min: self.config.l_min,
            });
        }
        self.now = arrival;
        let booking = match &mut self.engine {
            Engine::Lact(servers) => {
                let b = servers.submit(w);
                self.operations += servers.take_operations();
                b
            }
            Engine::Gaps(index) => {
                let before = index.operations();
                index.advance(arrival);
                let mut booking = None;
                for &(rule, placement) in &self.steps {
                    if let Some(period) = index.select(rule, w) {
                        debug_assert!(w.admits(&period) || placement == Placement::Late);
                        booking = Some(carve(
                            index.as_mut(),
                            period,
                            placement,
                            w,
                            self.config.l_min,
                            arrival,
                        ));
                        break;
                    }
                }
                self.operations += index.operations() - before;
                booking
            }
        };
        Ok(booking)
    }

    /// Cumulative elementary operations (periods examined / tree nodes visited).
    pub fn operations(&self) -> u64 {
        self.operations
    }

    /// The live idle periods (empty for LACT), in (start, server) order.
    pub fn idle_periods(&self) -> Vec<IdlePeriod> {
        match &self.engine {
            Engine::Gaps(index) => index.periods(),
            Engine::Lact(_) => Vec::new(),
        }
    }
}

/// Books the job inside `period` and returns the leftover fragments to the index.
fn carve(
    index: &mut dyn IdlePeriodIndex,
    period: IdlePeriod,
    placement: Placement,
    w: &Window,
    l_min: Time,
    now: Time,
) -> Booking {
    let earliest = period.start.max(w.ready);
    let start = match placement {
        Placement::Early => earliest,
        // Clamp: a tolerance-level fit must not start before the ready time or the period.
        Placement::Late => (period.end.min(w.deadline) - w.length).max(earliest),
    };
    let end = start + w.length;
    let removed = index.remove(&period);
    debug_assert!(removed, "selected period {period} was not in the index");
    if start - period.start >= l_min && start > now {
        index.insert(IdlePeriod::new(period.start, start, period.server));
    }
    if period.end - end >= l_min {
        index.insert(IdlePeriod {
            start: end,
            end: period.end,
            server: period.server,
        });
    }
    Booking {
        server: period.server,
        start,
        end,
    }
}

/// LACT's state: each server's completion time (end of its last reservation), ordered so the
/// latest completion before a time and the earliest completion are `O(log n)` lookups.
#[derive(Debug, Clone)]
struct LactServers {
    completion: Vec<Time>,
    /// (order key of completion, u32::MAX - server): among equal completions the *lowest*
    /// server is the largest entry, which is what `next_back` finds.
    ordered: BTreeSet<(u64, u32)>,
    late: LactLate,
    operations: u64,
    log_n: u64,
}

/// Maps a float to an integer with the same order (total order on f64).
fn order_key(t: Time) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

impl LactServers {
    fn new(servers: u32, late: LactLate) -> Self {
        let completion = vec![0.0; servers as usize];
        let ordered = (0..servers)
            .map(|s| (order_key(0.0), u32::MAX - s))
            .collect();
        let log_n = u64::from(servers.max(2).next_power_of_two().trailing_zeros());
        LactServers {
            completion,
            ordered,
            late,
            operations: 0,
            log_n,
        }
    }

    fn set_completion(&mut self, server: u32, c: Time) {
        let old = self.completion[server as usize];
        self.ordered.remove(&(order_key(old), u32::MAX - server));
        self.ordered.insert((order_key(c), u32::MAX - server));
        self.completion[server as usize] = c;
    }

    fn take_operations(&mut self) -> u64 {
        std::mem::take(&mut self.operations)
    }

    /// Latest completion `<= t` (lowest server among ties).
    fn latest_at_or_before(&mut self, t: Time) -> Option<u32> {
        self.operations += self.log_n;
        self.ordered
            .range(..=(order_key(t), u32::MAX))
            .next_back()
            .map(|&(_, s)| u32::MAX - s)
    }

    fn submit(&mut self, w: &Window) -> Option<Booking> {
        let chosen = if let Some(server) = self.latest_at_or_before(w.ready) {
            Some((server, w.ready))
        } else {
            let server = match self.late {
                LactLate::EarliestCompletion => {
                    self.operations += self.log_n;
                    let &(key, _) = self.ordered.first()?;
                    // Lowest server among those with the earliest completion.
                    self.ordered
                        .range((key, 0)..=(key, u32::MAX))
                        .next_back()
                        .map(|&(_, s)| u32::MAX - s)
                }
                LactLate::LatestFeasibleCompletion => self.latest_at_or_before(w.latest_start),
            }?;
            let c = self.completion[server as usize];
            (c <= w.latest_start).then_some((server, c))
        };
        let (server, start) = chosen?;
        let end = start + w.length;
        self.set_completion(server, end);
        self.operations += 2 * self.log_n;
        Some(Booking { server, start, end })
    }
}
