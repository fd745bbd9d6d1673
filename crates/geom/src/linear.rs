//! The reference index: a plain scan of every live idle period.

use std::cmp::Ordering;

use crate::index::{ExpiryMode, IdlePeriodIndex, Rule, StripOrder};
use crate::period::{IdlePeriod, Time, Window};
use crate::strip::{StripGeometry, StripId};

/// Obviously correct `O(V)` implementation of every [`Rule`]; the oracle the tree indexes are
/// tested against, and the linear baseline they are benchmarked against.
#[derive(Debug, Clone)]
pub struct LinearIndex {
    geometry: StripGeometry,
    expiry: ExpiryMode,
    periods: Vec<IdlePeriod>,
    /// Smallest end among live periods: `advance` only sweeps once the clock passes it.
    min_end: Time,
    /// Strip of the clock at the last `advance`, for clipping on strip rotation.
    clock_strip: Option<StripId>,
    operations: u64,
}

impl LinearIndex {
    /// An empty index with the default expiry mode ([`ExpiryMode::Pool`]).
    pub fn new(geometry: StripGeometry) -> Self {
        Self::with_expiry(geometry, ExpiryMode::Pool)
    }

    /// An empty index with the given expiry mode.
    pub fn with_expiry(geometry: StripGeometry, expiry: ExpiryMode) -> Self {
        LinearIndex {
            geometry,
            expiry,
            periods: Vec::new(),
            min_end: Time::INFINITY,
            clock_strip: None,
            operations: 0,
        }
    }

    /// The strip partition used by the strip rules.
    pub fn geometry(&self) -> StripGeometry {
        self.geometry
    }

    /// Best candidate under `better` (returns true if `a` should replace `b`).
    fn best_by(
        &mut self,
        candidate: impl Fn(&IdlePeriod) -> bool,
        better: impl Fn(&IdlePeriod, &IdlePeriod) -> bool,
    ) -> Option<IdlePeriod> {
        self.operations += self.periods.len() as u64;
        let mut best: Option<IdlePeriod> = None;
        for p in &self.periods {
            if candidate(p) && best.is_none_or(|b| better(p, &b)) {
                best = Some(*p);
            }
        }
        best
    }
}

impl LinearIndex {
    /// [`Rule::ShortestByLiteralStripQueries`] in one pass: outside the boundary strips `p`
    /// and `p'` every strip's literal query returns its shortest feasible period (in a strip
    /// before `p` every period starts before `r`; in one strictly between `p` and `p'` every
    /// period starts in `[r, d - l]`), so those strips together contribute the shortest
    /// feasible period among them; the three boundary answers are computed literally and
    /// kept only if the job fits them.
    fn shortest_by_literal_strip_queries(&mut self, w: &Window) -> Option<IdlePeriod> {
        let g = self.geometry;
        let (p, p_last) = (g.strip_of(w.ready), g.strip_of(w.latest_start));
        self.operations += self.periods.len() as u64;
        let keep = |slot: &mut Option<IdlePeriod>, x: &IdlePeriod| {
            if slot.is_none_or(|b| shorter(x, &b)) {
                *slot = Some(*x);
            }
        };
        let (mut best, mut r1_p, mut r2_p, mut r2_last) = (None, None, None, None);
        for x in &self.periods {
            let s = g.strip_of(x.start);
            if s == p {
                if x.end >= w.earliest_end {
                    keep(&mut r1_p, x);
                }
                if x.len() >= w.min_len {
                    keep(&mut r2_p, x);
                }
            } else if s == p_last && p_last > p {
                if x.len() >= w.min_len {
                    keep(&mut r2_last, x);
                }
            } else if w.admits(x) {
                keep(&mut best, x);
            }
        }
        for x in [r1_p, r2_p, r2_last].iter().flatten() {
            if w.admits(x) {
                keep(&mut best, x);
            }
        }
        best
    }
}

/// `a` shorter than `b`; ties by earlier start, then lower server (Best-fit's order).
fn shorter(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    match a.len().total_cmp(&b.len()) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => earlier(a, b),
    }
}

/// `a` before `b` by (start, server).
fn earlier(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    a.cmp_start(b) == Ordering::Less
}

/// `a` longer than `b`; ties by earlier start, then lower server.
fn longer(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    match a.len().total_cmp(&b.len()) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => earlier(a, b),
    }
}

/// Ties by later start, then lower server (the mirror-image tie-break of the end rules).
fn later_start_then_server(a: &IdlePeriod, b: &IdlePeriod) -> bool {
    match a.start.total_cmp(&b.start) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => a.server < b.server,
    }
}

impl IdlePeriodIndex for LinearIndex {
    fn insert(&mut self, period: IdlePeriod) {
        debug_assert!(period.start < period.end, "empty idle period {period}");
        self.min_end = self.min_end.min(period.end);
        self.periods.push(period);
    }

    fn remove(&mut self, period: &IdlePeriod) -> bool {
        let found = self
            .periods
            .iter()
            .position(|p| p.server == period.server && p.start == period.start);
        self.operations += found.map_or(self.periods.len(), |i| i + 1) as u64;
        match found {
            Some(i) => {
                self.periods.swap_remove(i);
                true
            }
            None => false,
        }
    }

    fn advance(&mut self, now: Time) {
        if now >= self.min_end {
            self.operations += self.periods.len() as u64;
            self.periods.retain(|p| p.end > now);
            self.min_end = self
                .periods
                .iter()
                .map(|p| p.end)
                .fold(Time::INFINITY, Time::min);
        }
        let strip = self.geometry.strip_of(now);
        if self.expiry == ExpiryMode::Clip && self.clock_strip.is_some_and(|s| strip > s) {
            let boundary = self.geometry.strip_start(strip);
            self.operations += self.periods.len() as u64;
            for p in &mut self.periods {
                if p.start < boundary {
                    p.start = now;
                }
            }
        }
        self.clock_strip = Some(strip);
    }

    fn select(&mut self, rule: Rule, w: &Window) -> Option<IdlePeriod> {
        let g = self.geometry;
        match rule {
            Rule::EarliestFeasible => self.best_by(|p| w.admits(p), earlier),
            Rule::ShortestFeasible => self.best_by(|p| w.admits(p), shorter),
            Rule::ShortestByLiteralStripQueries => self.shortest_by_literal_strip_queries(w),
            Rule::LongestInFirstStartStrip => {
                let r2 = |p: &IdlePeriod| p.start >= w.ready && w.admits(p);
                self.best_by(r2, |a, b| {
                    match g.strip_of(a.start).cmp(&g.strip_of(b.start)) {
                        Ordering::Less => true,
                        Ordering::Greater => false,
                        Ordering::Equal => longer(a, b),
                    }
                })
            }
            Rule::EarliestStartFromReady => {
                self.best_by(|p| p.start >= w.ready && w.admits(p), earlier)
            }
            Rule::LatestStartBeforeReady { skip_ready_strip } => {
                let limit = if skip_ready_strip {
                    g.strip_start(g.strip_of(w.ready))
                } else {
                    w.ready
                };
                self.best_by(
                    |p| p.start < w.ready && p.start < limit && w.admits(p),
                    |a, b| match a.start.total_cmp(&b.start) {
                        Ordering::Greater => true,
                        Ordering::Less => false,
                        Ordering::Equal => a.server < b.server,
                    },
                )
            }
            Rule::EarliestStartBeforeReady => {
                self.best_by(|p| p.start < w.ready && w.admits(p), earlier)
            }
            Rule::LongestInEndStrip { order } => {
                let end_aligned = |p: &IdlePeriod| p.end <= w.deadline && w.admits_end_aligned(p);
                self.best_by(end_aligned, |a, b| {
                    let (sa, sb) = (g.strip_of(a.end), g.strip_of(b.end));
                    let first = match order {
                        StripOrder::LatestFirst => sb.cmp(&sa),
                        StripOrder::EarliestFirst => sa.cmp(&sb),
                    };
                    match first {
                        Ordering::Less => true,
                        Ordering::Greater => false,
                        Ordering::Equal => longer(a, b),
                    }
                })
            }
            Rule::EarliestEndAfterDeadline => self.best_by(
                |p| p.end > w.deadline && p.start <= w.latest_start,
                |a, b| match a.end.total_cmp(&b.end) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => later_start_then_server(a, b),
                },
            ),
            Rule::LatestEndAfterDeadline => self.best_by(
                |p| p.end > w.deadline && p.start <= w.latest_start,
                |a, b| match a.end.total_cmp(&b.end) {
                    Ordering::Greater => true,
                    Ordering::Less => false,
                    Ordering::Equal => later_start_then_server(a, b),
                },
            ),
        }
    }

    fn len(&self) -> usize {
        self.periods.len()
    }

    fn operations(&self) -> u64 {
        self.operations
    }

    fn periods(&self) -> Vec<IdlePeriod> {
        let mut out = self.periods.clone();
        out.sort_by(IdlePeriod::cmp_start);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Castillo Fig. 3.2 instantiation (spec fixture F3.2).
    fn f32_index() -> LinearIndex {
        let mut ix = LinearIndex::new(StripGeometry::for_min_length(1.0, 1));
        for p in [
            IdlePeriod::new(1.0, 3.0, 0),
            IdlePeriod::new(5.0, 9.5, 0), // Y
            IdlePeriod::tail(11.0, 0),
            IdlePeriod::new(6.2, 8.5, 1), // V
            IdlePeriod::tail(12.5, 1),
            IdlePeriod::new(7.5, 9.4, 2), // Z
            IdlePeriod::tail(14.0, 2),
        ] {
            ix.insert(p);
        }
        ix
    }

    #[test]
    fn fixture_f3_2_rules() {
        let mut ix = f32_index();
        let w = Window::new(6.5, 1.5, 12.0).unwrap();
        let y = IdlePeriod::new(5.0, 9.5, 0);
        let v = IdlePeriod::new(6.2, 8.5, 1);
        let z = IdlePeriod::new(7.5, 9.4, 2);
        assert_eq!(ix.select(Rule::EarliestFeasible, &w), Some(y));
        assert_eq!(ix.select(Rule::ShortestFeasible, &w), Some(z));
        assert_eq!(ix.select(Rule::LongestInFirstStartStrip, &w), Some(z));
        let step2 = Rule::LatestStartBeforeReady {
            skip_ready_strip: false,
        };
        assert_eq!(ix.select(step2, &w), Some(v));
        let literal = Rule::LatestStartBeforeReady {
            skip_ready_strip: true,
        };
        assert_eq!(ix.select(literal, &w), Some(y));
        let tip = Rule::LongestInEndStrip {
            order: StripOrder::LatestFirst,
        };
        assert_eq!(ix.select(tip, &w), Some(y));
    }

    #[test]
    fn expiry_drops_dead_periods_and_keeps_tails() {
        let mut ix = f32_index();
        ix.advance(9.45);
        let ends: Vec<Time> = ix.periods().iter().map(|p| p.end).collect();
        assert_eq!(
            ends,
            vec![9.5, Time::INFINITY, Time::INFINITY, Time::INFINITY]
        );
    }

    #[test]
    fn clip_mode_moves_old_starts_to_now() {
        let mut ix = LinearIndex::with_expiry(StripGeometry::new(2.0), ExpiryMode::Clip);
        ix.insert(IdlePeriod::tail(0.0, 0));
        ix.insert(IdlePeriod::tail(3.0, 1));
        ix.advance(0.5);
        ix.advance(4.5); // strip 0 -> 2: everything starting before 4 is clipped
        assert_eq!(
            ix.periods(),
            vec![IdlePeriod::tail(4.5, 0), IdlePeriod::tail(4.5, 1)]
        );
    }
}
