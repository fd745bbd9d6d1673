//! The online scheduler: one decision per request, at its arrival, never revised.

use std::collections::BTreeSet;

use gridsched_geom::{
    ExpiryMode, IdlePeriod, IdlePeriodIndex, LinearIndex, MAX_RING_SLOTS, Rule, StripGeometry,
    Time, TreeConfig, TreeIndex, Window,
};

use crate::strategy::{LactLate, Placement, Strategy, StrategyOptions};

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
        if !self.strip_width().is_finite() {
            return Err(ConfigError(format!(
                "the strip width 2·M·l_min = 2·{}·{:e} is not a finite number",
                self.strip_multiplier, self.l_min
            )));
        }
        Ok(())
    }

    /// Strip width `w = 2·M·l_min`.
    pub fn strip_width(&self) -> Time {
        f64::from(self.strip_multiplier.max(1)) * 2.0 * self.l_min
    }

    /// Slots of each strip ring the tree index keeps for `rules` (`⌈L / w⌉ + 2`, saturating),
    /// or `None` when it keeps none: the linear index, LACT, and strategies answered by the
    /// global sets or Best-fit's runs, whatever the look-ahead. A valid configuration (see
    /// [`validate`](Self::validate)) needs at most [`MAX_RING_SLOTS`]; more is refused when
    /// the scheduler is built.
    pub fn ring_slots_for(&self, rules: &[Rule]) -> Option<usize> {
        if self.index != IndexKind::Tree
            || !self.strategy.uses_idle_periods()
            || !TreeIndex::uses_strip_rings(rules)
        {
            return None;
        }
        let w = self.strip_width();
        Some(((self.look_ahead / w).ceil() as usize).saturating_add(2))
    }

    /// [`ring_slots_for`](Self::ring_slots_for) the built-in strategy's rules.
    pub fn ring_slots(&self) -> Option<usize> {
        self.ring_slots_for(&self.options.rule_steps(self.strategy).rules())
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
    /// A [`PeriodChooser`] returned a period that is not live or does not admit the window.
    #[error("the period chooser's answer is refused: {0}")]
    Chooser(String),
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
    chooser: Box<dyn PeriodChooser>,
    now: Time,
    operations: u64,
}

/// A reservation strategy: which idle period a job is carved from, and where inside it. The
/// built-in gap-aware strategies are [`RuleSteps`]; a strategy of your own implements this
/// trait and runs through [`ReservationScheduler::with_chooser`] on either index, with the same
/// carving, expiry, metrics and audit. `crates/reservation/examples/least_waste.rs` is one.
pub trait PeriodChooser: Send + std::fmt::Debug {
    /// The rules this chooser asks [`Periods::select`]: the tree index builds its structures
    /// for them (another rule is answered by an `O(V)` scan). Default: none.
    fn rules(&self) -> Vec<Rule> {
        Vec::new()
    }

    /// The period to carve `window`'s job from and its placement, or `None` to reject the job.
    /// The period must be live and admit the window (see [`Window::admits`]); otherwise the
    /// submission fails with [`SubmitError::Chooser`] and no period changes (the clock has
    /// moved to the arrival, as for any submission).
    fn choose(
        &mut self,
        periods: &mut Periods<'_>,
        window: &Window,
    ) -> Option<(IdlePeriod, Placement)>;
}

/// What a [`PeriodChooser`] may ask of the live idle periods.
pub struct Periods<'a> {
    index: &'a mut (dyn IdlePeriodIndex + Send),
}

impl std::fmt::Debug for Periods<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Periods({} live)", self.index.len())
    }
}

impl Periods<'_> {
    /// The period `rule` selects for `window` (the thesis's strip trees on the tree index).
    pub fn select(&mut self, rule: Rule, window: &Window) -> Option<IdlePeriod> {
        self.index.select(rule, window)
    }

    /// Every live idle period that admits `window`, in (start, server) order: `O(V)`, for
    /// strategies the rules do not express.
    pub fn feasible(&self, window: &Window) -> Vec<IdlePeriod> {
        let mut v = self.index.periods();
        v.retain(|p| window.admits(p));
        v
    }

    /// Number of live idle periods.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether there is no live idle period.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

impl StrategyOptions {
    /// `strategy`'s steps under these readings, as the chooser [`ReservationScheduler::new`]
    /// runs (empty for LACT).
    pub fn rule_steps(&self, strategy: Strategy) -> RuleSteps {
        RuleSteps(self.steps(strategy))
    }
}

/// A built-in strategy as a [`PeriodChooser`]: its rules tried in order, the first period
/// found wins (spec §2.10–§2.15; [`StrategyOptions`](crate::StrategyOptions) picks the
/// readings).
#[derive(Debug, Clone, PartialEq)]
pub struct RuleSteps(pub Vec<(Rule, Placement)>);

impl PeriodChooser for RuleSteps {
    fn rules(&self) -> Vec<Rule> {
        self.0.iter().map(|s| s.0).collect()
    }

    fn choose(
        &mut self,
        periods: &mut Periods<'_>,
        window: &Window,
    ) -> Option<(IdlePeriod, Placement)> {
        self.0
            .iter()
            .find_map(|&(rule, placement)| periods.select(rule, window).map(|p| (p, placement)))
    }
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
        let steps = config.options.rule_steps(config.strategy);
        Self::build(config, Box::new(steps))
    }

    /// A scheduler whose idle periods are chosen by `chooser` (a strategy of your own) instead
    /// of `config.strategy`'s rules; every other setting of `config` applies. The strategy in
    /// `config` must be a gap-aware one (not LACT, which keeps no idle periods).
    pub fn with_chooser(
        config: SchedulerConfig,
        chooser: Box<dyn PeriodChooser>,
    ) -> Result<Self, ConfigError> {
        if !config.strategy.uses_idle_periods() {
            return Err(ConfigError(
                "a period chooser needs a gap-aware strategy in the config, not LACT".into(),
            ));
        }
        Self::build(config, chooser)
    }

    fn build(
        config: SchedulerConfig,
        chooser: Box<dyn PeriodChooser>,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        let rules = chooser.rules();
        if let Some(slots) = config.ring_slots_for(&rules)
            && slots > MAX_RING_SLOTS
        {
            return Err(ConfigError(format!(
                "the look-ahead L = {:e} spans {:e} strips of width 2·M·l_min = {:e}: the tree index's \
                 strip rings hold at most {} (L ≤ {} w); use a larger l_min or M, a shorter L, or \
                 the linear index",
                config.look_ahead,
                (config.look_ahead / config.strip_width()).ceil(),
                config.strip_width(),
                MAX_RING_SLOTS - 2,
                MAX_RING_SLOTS - 2
            )));
        }
        let engine = if config.strategy.uses_idle_periods() {
            let geometry = StripGeometry::for_min_length(config.l_min, config.strip_multiplier);
            let mut index: Box<dyn IdlePeriodIndex + Send> = match config.index {
                IndexKind::Linear => Box::new(LinearIndex::with_expiry(geometry, config.expiry)),
                IndexKind::Tree => {
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
        Ok(ReservationScheduler {
            config,
            engine,
            chooser,
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
                if let Engine::Gaps(index) = &mut s.engine
                    && start - free_from >= config.l_min
                {
                    index.insert(IdlePeriod::new(free_from, start, server));
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
                let chosen = self.chooser.choose(
                    &mut Periods {
                        index: index.as_mut(),
                    },
                    w,
                );
                let booking = match chosen {
                    Some((period, placement)) => {
                        if !w.admits(&period) && placement != Placement::Late {
                            return Err(SubmitError::Chooser(format!(
                                "period {period} does not admit the window"
                            )));
                        }
                        Some(carve(
                            index.as_mut(),
                            period,
                            placement,
                            w,
                            self.config.l_min,
                            arrival,
                        )?)
                    }
                    None => None,
                };
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
) -> Result<Booking, SubmitError> {
    let earliest = period.start.max(w.ready);
    let start = match placement {
        Placement::Early => earliest,
        // Clamp: a tolerance-level fit must not start before the ready time or the period.
        Placement::Late => (period.end.min(w.deadline) - w.length).max(earliest),
    };
    let end = start + w.length;
    if !index.remove(&period) {
        return Err(SubmitError::Chooser(format!(
            "period {period} is not a live idle period"
        )));
    }
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
    Ok(Booking {
        server: period.server,
        start,
        end,
    })
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

#[cfg(test)]
mod ring_limit_tests {
    use super::*;

    fn config(strategy: Strategy, look_ahead: Time, l_min: Time) -> SchedulerConfig {
        let mut c = SchedulerConfig::new(2, strategy);
        c.look_ahead = look_ahead;
        c.l_min = l_min;
        c
    }

    /// A look-ahead of too many strips was a capacity-overflow panic (1e18), a 73 GB
    /// allocation (1e9), a panic in the ring (l_min = 1e-20) or a run that never ended
    /// (l_min = 1e-6): each is now a configuration error, for the strategies that keep a strip
    /// ring on the tree index only.
    #[test]
    fn look_aheads_of_too_many_strips_are_refused_where_a_ring_is_built() {
        for (strategy, look_ahead, l_min) in [
            (Strategy::MinLip, 1e18, 1.0),
            (Strategy::MinLip, 1e9, 1.0),
            (Strategy::MinTip, 1e9, 1.0),
            (Strategy::MinLip, 200.0, 1e-20),
            (Strategy::MinLip, 200.0, 1e-6),
        ] {
            let c = config(strategy, look_ahead, l_min);
            assert!(c.ring_slots().unwrap() > MAX_RING_SLOTS);
            let e = ReservationScheduler::new(c).unwrap_err().to_string();
            assert!(e.contains("strip rings hold at most 4194302"), "{e}");
        }
        // The limit itself: L = 4,194,302 strips of width 2.
        let edge = config(Strategy::MinLip, 2.0 * 4_194_302.0, 1.0);
        assert_eq!(edge.ring_slots(), Some(MAX_RING_SLOTS));
        assert!(ReservationScheduler::new(edge).is_ok());
        // No ring: the global sets, Best-fit's runs, LACT and the linear index take any L.
        for strategy in [
            Strategy::FirstFit,
            Strategy::BestFit,
            Strategy::MaxLip,
            Strategy::MaxTip,
            Strategy::Lact,
        ] {
            let c = config(strategy, 1e18, 1.0);
            assert_eq!(c.ring_slots(), None, "{strategy}");
            assert!(ReservationScheduler::new(c).is_ok(), "{strategy}");
        }
        let mut linear = config(Strategy::MinLip, 1e18, 1.0);
        linear.index = IndexKind::Linear;
        assert_eq!(linear.ring_slots(), None);
        assert!(ReservationScheduler::new(linear).is_ok());
        // A chooser of one's own that asks no rule gets the start strips: a ring.
        let own = RuleSteps(Vec::new());
        let e =
            ReservationScheduler::with_chooser(config(Strategy::FirstFit, 1e9, 1.0), Box::new(own))
                .unwrap_err();
        assert!(e.to_string().contains("strip rings"), "{e}");
    }

    #[test]
    fn a_strip_width_that_overflows_is_refused() {
        let c = config(Strategy::MinLip, 1e308, 1e308);
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("is not a finite number")
        );
    }
}
