//! Property tests: every reservation strategy against a brute-force oracle.
//!
//! The oracle keeps its *own* model of the schedule: for each server a plain sorted `Vec` of the
//! booked intervals `[start, end)`, updated from the scheduler's bookings and nothing else.
//! Before each request it derives, by brute force, every free gap of every server (between
//! consecutive bookings, plus the open-ended tail) and the set `F` of gaps that can hold the
//! job: `max(gap.start, ready) + length <= min(gap.end, deadline)` up to the same tolerance as
//! `Window::admits` (`Window::tolerance`, eight ulps of `max(|ready|, |deadline|, 1)`).
//!
//! Gaps shorter than `l_min` are left out of `F`. The scheduler discards idle fragments shorter
//! than `l_min` (Castillo spec §2.0), so they are legitimately invisible to it. This changes no
//! answer: every job has `length >= l_min`, and a job needs a gap of at least `length`, so a
//! gap `< l_min <= length` cannot hold it. There is one caveat: the fit test tolerates an
//! overshoot of `tol = Window::tolerance`, so a gap shorter than
//! `l_min` by less than `tol` could admit a job of length exactly `l_min`; the scheduler never
//! sees it and neither does the oracle. Such a gap has measure zero in the continuous streams
//! and cannot occur in the quarter-unit grid streams (where every slack is a multiple of 1/4).
//!
//! Every comparison that a tolerance-level fit can shift (a booking may end up to `tol` past its
//! gap or its deadline) allows `tol`; the rest (which gap, First-fit's start, Best-fit's length,
//! LACT's decision) is exact. The `regression_*` tests at the end pin the fix of a bug these
//! properties found: the tolerance used to be 1e-7 of the absolute time (0.1 at t = 1e6).
//!
//! What is checked, for each request of each stream, each strategy and each option variant:
//! - validity: every decision goes to `ScheduleAudit` (no overlap on a server, start >= ready,
//!   end <= deadline, duration = length), and `start >= arrival`;
//! - gap-aware strategies: a job is dropped only if `F` is empty, and an accepted job lies
//!   inside a gap of `F`, at the position its strategy prescribes (early: `max(s, r)`; late:
//!   ending at `min(e, d)`);
//! - the quantity each strategy optimizes is optimal over `F`: First-fit's start, Min-LIP's
//!   leading idle period, Best-fit's gap length, Min-TIP's trailing idle period, and Max-LIP's
//!   and Max-TIP's maximal LIP and TIP;
//! - the exact choice, tie-breaks included (spec §2.0: primary criterion, then smaller start,
//!   then lower server id), recomputed from `F` following the spec's rules;
//! - the scheduler's own idle periods equal the oracle's visible gaps;
//! - expiry `Clip` is modelled too (`ClipClock`): gaps carry the clipped start the scheduler
//!   sees, so every check above applies to it as well;
//! - LACT, which tracks only completion times, follows spec §2.9 exactly;
//! - determinism, and a fixture-free single-server First-fit check.
//!
//! Streams are random proptest streams (on a quarter-unit grid, where exact ties are common,
//! and continuous) and long seeded `ReservationWorkload` streams.

use std::cmp::Ordering;

use gridsched_geom::{ExpiryMode, IdlePeriod, StripOrder, Time, Window};
use gridsched_reservation::{
    Booking, LactLate, MinTipReading, R2Pick, ReservationScheduler, ScheduleAudit, SchedulerConfig,
    Step2Start, Strategy,
};
use gridsched_sim::{BoundedPareto, StreamKey};
use gridsched_workload::{ReadyOffset, Request, ReservationWorkload};
use proptest::prelude::*;
use proptest::strategy::Strategy as PropStrategy;

// ---------------------------------------------------------------------------------------------
// The oracle's model of the schedule
// ---------------------------------------------------------------------------------------------

/// A free interval of one server in the oracle's model (`end = +inf` for the tail).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Gap {
    server: u32,
    start: Time,
    end: Time,
}

impl Gap {
    fn len(&self) -> Time {
        self.end - self.start
    }
}

/// One server's bookings. Bookings that ended in the past are dropped; `floor` keeps the end
/// of the last one dropped (0 at first), which is where the first remaining gap starts.
#[derive(Debug, Clone, Default)]
struct ServerBook {
    floor: Time,
    booked: Vec<(Time, Time)>,
}

/// The model of expiry `Clip` (spec §2.3, A14): when the clock enters a new strip, every live
/// idle period starting before that strip is re-inserted with `start := now`.
///
/// So at any time, with `t` the arrival that last entered a new strip and `b` the start of that
/// strip, a gap starting before `b` is seen with start `t`, and other gaps are unchanged: a gap
/// clipped at an earlier rotation starts before `b` and is clipped again; leading fragments
/// carved later keep their parent's start; trailing fragments start after `now >= b`.
#[derive(Debug, Clone)]
struct ClipClock {
    width: Time,
    strip: Option<i64>,
    /// (`b`, `t`) of the last rotation.
    rotated: Option<(Time, Time)>,
}

#[derive(Debug, Clone)]
struct Model {
    servers: Vec<ServerBook>,
    clip: Option<ClipClock>,
}

impl Model {
    fn new(config: &SchedulerConfig) -> Self {
        let clip = (config.expiry == ExpiryMode::Clip).then(|| ClipClock {
            width: strip_width(config),
            strip: None,
            rotated: None,
        });
        Model {
            servers: vec![ServerBook::default(); config.servers as usize],
            clip,
        }
    }

    /// Moves the clock to `now` (the next arrival): forgets the past and rotates the strips.
    fn advance(&mut self, now: Time) {
        self.forget_past(now);
        if let Some(c) = &mut self.clip {
            let g = strip(now, c.width);
            if c.strip.is_some_and(|prev| g > prev) {
                c.rotated = Some((g as Time * c.width, now));
            }
            c.strip = Some(g);
        }
    }

    /// A gap as the scheduler sees it (with its clipped start under expiry `Clip`).
    fn seen(&self, mut g: Gap) -> Gap {
        if let Some((boundary, at)) = self.clip.as_ref().and_then(|c| c.rotated)
            && g.start < boundary
        {
            g.start = at;
        }
        g
    }

    /// Forgets bookings that ended by `now`. The gap that follows them is kept (through
    /// `floor`), and any gap ending by `now` cannot hold a job ready at or after `now`.
    fn forget_past(&mut self, now: Time) {
        for s in &mut self.servers {
            let k = s.booked.partition_point(|&(_, end)| end <= now);
            if k > 0 {
                s.floor = s.booked[k - 1].1;
                s.booked.drain(..k);
            }
        }
    }

    /// Every gap of every server, including empty and short ones, with the start the
    /// scheduler sees (see [`ClipClock`]).
    fn all_gaps(&self) -> Vec<Gap> {
        let mut out = Vec::new();
        for (server, s) in self.servers.iter().enumerate() {
            let server = server as u32;
            let mut free_from = s.floor;
            for &(start, end) in &s.booked {
                out.push(Gap {
                    server,
                    start: free_from,
                    end: start,
                });
                free_from = end;
            }
            out.push(Gap {
                server,
                start: free_from,
                end: Time::INFINITY,
            });
        }
        out.into_iter().map(|g| self.seen(g)).collect()
    }

    /// The gaps the scheduler can use: at least `l_min` long. (Under expiry `Clip`, the
    /// scheduler may still hold a period that clipping made shorter than `l_min`; it ends
    /// before `now + l_min` and can hold no job, as every job is ready at or after `now`.)
    fn visible_gaps(&self, l_min: Time) -> Vec<Gap> {
        let mut gaps = self.all_gaps();
        gaps.retain(|g| g.len() >= l_min);
        gaps
    }

    /// End of the server's last booking (0 if none): LACT's completion time.
    fn completion(&self, server: usize) -> Time {
        let s = &self.servers[server];
        s.booked.last().map_or(s.floor, |&(_, end)| end)
    }

    /// Records a booking; returns by how much it overlaps its neighbours (0 if it does not).
    fn book(&mut self, b: &Booking) -> Time {
        let s = &mut self.servers[b.server as usize];
        let at = s.booked.partition_point(|&(start, _)| start < b.start);
        let before = if at > 0 { s.booked[at - 1].1 } else { s.floor };
        let after = s.booked.get(at).map_or(Time::INFINITY, |&(start, _)| start);
        s.booked.insert(at, (b.start, b.end));
        (before - b.start).max(b.end - after).max(0.0)
    }
}

fn tol(w: &Window) -> Time {
    w.tolerance
}

/// Brute-force feasibility: the job fits somewhere inside the gap and inside its window.
fn fits(g: &Gap, w: &Window) -> bool {
    g.start.max(w.ready) + w.length <= g.end.min(w.deadline) + tol(w)
}

/// Equality up to the window's tolerance (infinities must match exactly): a job admitted by a
/// tolerance-level fit may end up to `tol(w)` past its gap's end or its deadline.
fn close(a: Time, b: Time, w: &Window) -> bool {
    a == b || (a - b).abs() <= tol(w)
}

// ---------------------------------------------------------------------------------------------
// The expected choice, recomputed from F following the spec
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Start as early as possible in the gap: `max(gap.start, ready)`.
    Early,
    /// End as late as possible: at `min(gap.end, deadline)`.
    Late,
}

fn placed(g: &Gap, place: Place, w: &Window) -> Booking {
    let earliest = g.start.max(w.ready);
    let start = match place {
        Place::Early => earliest,
        Place::Late => (g.end.min(w.deadline) - w.length).max(earliest),
    };
    Booking {
        server: g.server,
        start,
        end: start + w.length,
    }
}

fn strip_width(c: &SchedulerConfig) -> Time {
    f64::from(c.strip_multiplier) * 2.0 * c.l_min
}

/// Absolute strip number of a time (`+inf` after every finite strip).
fn strip(t: Time, width: Time) -> i64 {
    if t == Time::INFINITY {
        i64::MAX
    } else {
        (t / width).floor() as i64
    }
}

/// (start, server): the fall-back order of every tie-break.
fn by_start(a: &Gap, b: &Gap) -> Ordering {
    a.start.total_cmp(&b.start).then(a.server.cmp(&b.server))
}

/// Whether Min-LIP's step 2 (also used by the narrative Min-TIP) is the literal `T_{p-1}`
/// reading, which never looks at the R1 part of the ready time's own strip (spec §2.5, A7).
fn literal_step2(c: &SchedulerConfig) -> bool {
    c.options.step2_start == Step2Start::StripAbove
        && (c.strategy == Strategy::MinLip
            || (c.strategy == Strategy::MinTip && c.options.min_tip == MinTipReading::Narrative))
}

/// The start of the ready time's strip: under the literal step-2 reading, R1 gaps starting at or
/// after it are never searched.
fn ready_strip_start(c: &SchedulerConfig, w: &Window) -> Time {
    let width = strip_width(c);
    strip(w.ready, width) as Time * width
}

/// The decision the spec prescribes, from the feasible gaps `f` (expiry `Pool`).
fn expected_choice(c: &SchedulerConfig, w: &Window, f: &[Gap]) -> Option<(Gap, Place)> {
    let o = &c.options;
    let width = strip_width(c);
    let (r, d) = (w.ready, w.deadline);
    let longer_first = |a: &Gap, b: &Gap| b.len().total_cmp(&a.len());
    // Min-LIP step 1: a gap starting at or after the ready time (zero leading idle period).
    let r2 = || {
        let cands = f.iter().filter(|g| g.start >= r);
        match o.r2_pick {
            R2Pick::MaxLength => cands.min_by(|a, b| {
                strip(a.start, width)
                    .cmp(&strip(b.start, width))
                    .then(longer_first(a, b))
                    .then(by_start(a, b))
            }),
            R2Pick::EarliestStart => cands.min_by(|a, b| by_start(a, b)),
        }
    };
    // Min-LIP step 2: the latest-starting gap before the ready time (smallest leading idle).
    let r1 = || {
        let limit = if literal_step2(c) {
            ready_strip_start(c, w)
        } else {
            r
        };
        f.iter()
            .filter(|g| g.start < r && g.start < limit)
            .min_by(|a, b| b.start.total_cmp(&a.start).then(a.server.cmp(&b.server)))
    };
    // Min-TIP step 1: gaps the job can end exactly at the end of (trailing idle 0), grouped by
    // end strip; the longest in the first strip visited.
    let tip1 = || {
        f.iter().filter(|g| g.end <= d).min_by(|a, b| {
            let (sa, sb) = (strip(a.end, width), strip(b.end, width));
            let first = match o.min_tip_step1_order {
                StripOrder::LatestFirst => sb.cmp(&sa),
                StripOrder::EarliestFirst => sa.cmp(&sb),
            };
            first.then(longer_first(a, b)).then(by_start(a, b))
        })
    };
    // Ending after the deadline: by end, then later start, then lower server.
    let after_deadline = |latest_end: bool| {
        f.iter().filter(|g| g.end > d).min_by(|a, b| {
            let by_end = a.end.total_cmp(&b.end);
            let by_end = if latest_end { by_end.reverse() } else { by_end };
            by_end
                .then(b.start.total_cmp(&a.start))
                .then(a.server.cmp(&b.server))
        })
    };
    let early = |g: Option<&Gap>| g.map(|g| (*g, Place::Early));
    let late = |g: Option<&Gap>| g.map(|g| (*g, Place::Late));
    match c.strategy {
        Strategy::FirstFit => early(f.iter().min_by(|a, b| by_start(a, b))),
        Strategy::BestFit => early(
            f.iter()
                .min_by(|a, b| a.len().total_cmp(&b.len()).then(by_start(a, b))),
        ),
        Strategy::MinLip => early(r2()).or_else(|| early(r1())),
        Strategy::MinTip => match o.min_tip {
            MinTipReading::Mirror => late(tip1()).or_else(|| late(after_deadline(false))),
            MinTipReading::Narrative => late(r2()).or_else(|| late(r1())),
        },
        Strategy::MaxLip => early(
            f.iter()
                .filter(|g| g.start < r)
                .min_by(|a, b| by_start(a, b)),
        )
        .or_else(|| early(r2())),
        Strategy::MaxTip => late(after_deadline(true)).or_else(|| late(tip1())),
        Strategy::Lact => unreachable!("LACT does not search gaps"),
    }
}

/// LACT (spec §2.9), from the oracle's completion times.
fn expected_lact(c: &SchedulerConfig, model: &Model, w: &Window) -> Option<Booking> {
    let n = model.servers.len();
    let comp: Vec<Time> = (0..n).map(|i| model.completion(i)).collect();
    let book = |i: usize, start: Time| Booking {
        server: i as u32,
        start,
        end: start + w.length,
    };
    // The latest completion at or before `t`, lowest server on ties.
    let latest_by = |t: Time| {
        (0..n)
            .filter(|&i| comp[i] <= t)
            .min_by(|&a, &b| comp[b].total_cmp(&comp[a]).then(a.cmp(&b)))
    };
    if let Some(i) = latest_by(w.ready) {
        return Some(book(i, w.ready));
    }
    let latest_start = w.deadline - w.length + tol(w);
    let i = match c.options.lact_late {
        LactLate::EarliestCompletion => {
            (0..n).min_by(|&a, &b| comp[a].total_cmp(&comp[b]).then(a.cmp(&b)))?
        }
        LactLate::LatestFeasibleCompletion => latest_by(latest_start)?,
    };
    (comp[i] <= latest_start).then(|| book(i, comp[i]))
}

// ---------------------------------------------------------------------------------------------
// The checked run
// ---------------------------------------------------------------------------------------------

/// Options of a checked run.
#[derive(Debug, Clone, Copy)]
struct RunOpts {
    /// How often (in requests) the scheduler's idle periods are compared with the oracle's gaps.
    state_every: usize,
    /// Whether `ScheduleAudit`'s overlap violations fail the run even when the oracle verified
    /// that each overlap is within the tolerance the scheduler's fit test grants (see
    /// [`STRICT_AUDIT`]).
    strict_audit: bool,
}

/// Whether `ScheduleAudit`'s overlap check is enforced (true since the tolerance fix; the
/// oracle's own per-job overlap check runs in any case).
const STRICT_AUDIT: bool = true;

impl RunOpts {
    fn every(state_every: usize) -> Self {
        RunOpts {
            state_every,
            strict_audit: STRICT_AUDIT,
        }
    }
}

fn show_gaps(gaps: &[Gap]) -> String {
    let mut s: Vec<String> = gaps
        .iter()
        .take(12)
        .map(|g| format!("s{}[{}, {})", g.server, g.start, g.end))
        .collect();
    if gaps.len() > 12 {
        s.push(format!("... {} more", gaps.len() - 12));
    }
    format!("[{}]", s.join(", "))
}

fn describe(c: &SchedulerConfig) -> String {
    format!(
        "{} n={} l_min={} M={} expiry={:?} {:?}",
        c.strategy, c.servers, c.l_min, c.strip_multiplier, c.expiry, c.options
    )
}

/// Runs `requests` through a scheduler built from `config`, checking every decision against
/// the oracle. Returns the decisions.
fn run_checked(
    config: SchedulerConfig,
    requests: &[Request],
    opts: RunOpts,
) -> Result<Vec<Option<Booking>>, String> {
    let mut sched = ReservationScheduler::new(config).map_err(|e| e.to_string())?;
    let mut model = Model::new(&config);
    let mut audit = ScheduleAudit::new();
    let mut out = Vec::with_capacity(requests.len());
    let mut tolerance_overlaps = 0;
    for (i, req) in requests.iter().enumerate() {
        let w = &req.window;
        model.advance(req.arrival);
        let feasible: Vec<Gap> = model
            .visible_gaps(config.l_min)
            .into_iter()
            .filter(|g| fits(g, w))
            .collect();
        let lact_want =
            (config.strategy == Strategy::Lact).then(|| expected_lact(&config, &model, w));
        let got = sched
            .submit(req.arrival, w)
            .map_err(|e| format!("request {i} refused: {e}"))?;
        let ctx = || {
            format!(
                "[{}] request {i}: arrival {} ready {} length {} deadline {} -> {:?}\n  feasible gaps: {}",
                describe(&config),
                req.arrival,
                w.ready,
                w.length,
                w.deadline,
                got,
                show_gaps(&feasible)
            )
        };
        audit.record(i, req, got.as_ref());
        if let Some(b) = &got
            && b.start < req.arrival
        {
            return Err(format!("starts before its arrival\n{}", ctx()));
        }
        let verdict = match lact_want {
            Some(want) => {
                if got == want {
                    Ok(())
                } else {
                    Err(format!("LACT expected {want:?}"))
                }
            }
            None => check_gap_aware(&config, w, &model, &feasible, got.as_ref()),
        };
        verdict.map_err(|e| format!("{e}\n{}", ctx()))?;
        if let Some(b) = &got {
            let overlap = model.book(b);
            if overlap > tol(w) {
                return Err(format!("overlaps another booking by {overlap}\n{}", ctx()));
            }
            tolerance_overlaps += usize::from(overlap > 0.0);
        }
        let state_due =
            opts.state_every > 0 && (i % opts.state_every == 0 || i + 1 == requests.len());
        if state_due && config.strategy.uses_idle_periods() {
            check_state(&sched, &model, config.l_min, req.arrival)
                .map_err(|e| format!("{e}\n{}", ctx()))?;
        }
        out.push(got);
    }
    let violations: Vec<String> = audit
        .violations()
        .into_iter()
        .filter(|v| opts.strict_audit || tolerance_overlaps == 0 || !v.contains(" overlaps "))
        .collect();
    if !violations.is_empty() {
        return Err(format!(
            "[{}] audit: {}",
            describe(&config),
            violations[..violations.len().min(5)].join("; ")
        ));
    }
    Ok(out)
}

/// The checks of one gap-aware decision (see the module documentation).
fn check_gap_aware(
    c: &SchedulerConfig,
    w: &Window,
    model: &Model,
    feasible: &[Gap],
    got: Option<&Booking>,
) -> Result<(), String> {
    let (r, d) = (w.ready, w.deadline);
    // Under the literal step-2 reading (Step2Start::StripAbove), R1 gaps starting inside the
    // ready time's own strip are never searched, so such a job may be dropped or get a larger
    // leading idle period than the optimum: that is the reading, not a bug. Its guarantees are
    // then relative to the gaps it does search.
    let searched: Vec<Gap> = if literal_step2(c) {
        let limit = ready_strip_start(c, w);
        feasible
            .iter()
            .filter(|g| !(g.start < r && g.start >= limit))
            .copied()
            .collect()
    } else {
        feasible.to_vec()
    };
    let Some(b) = got else {
        if searched.is_empty() {
            return Ok(());
        }
        return Err("dropped although a feasible gap exists".into());
    };
    // The oracle's gap containing the booking (gaps of one server are disjoint).
    let g = model
        .all_gaps()
        .into_iter()
        .find(|g| g.server == b.server && g.start <= b.start && b.start < g.end)
        .ok_or("the booking starts inside another booking")?;
    if !feasible.contains(&g) {
        return Err(format!(
            "booked into gap s{}[{}, {}), which is not a feasible visible gap",
            g.server, g.start, g.end
        ));
    }
    if b.end > g.end + tol(w) {
        return Err(format!("overruns its gap, which ends at {}", g.end));
    }
    if (b.end - b.start - w.length).abs() > tol(w) {
        return Err("wrong duration".into());
    }
    // Placement inside the gap: early strategies start at max(s, r); late ones end at
    // min(e, d) (clamped so the job never starts before max(s, r)).
    let late = match c.strategy {
        Strategy::MinTip | Strategy::MaxTip => true,
        Strategy::FirstFit | Strategy::BestFit | Strategy::MinLip | Strategy::MaxLip => false,
        Strategy::Lact => unreachable!(),
    };
    let want_place = placed(&g, if late { Place::Late } else { Place::Early }, w);
    if want_place != *b {
        return Err(format!(
            "placed at {b:?} inside gap s{}[{}, {}), expected {want_place:?}",
            g.server, g.start, g.end
        ));
    }

    // The optimized quantity. Under expiry `Clip` the gaps carry the clipped start the
    // scheduler sees (see `ClipClock`): a clipped gap is shorter, and it moves from R1 to R2
    // when `ready == now`, so leading idle periods and lengths are measured from that start.
    let lip = |g: &Gap| if g.start >= r { 0.0 } else { r - g.start };
    let tip = |g: &Gap| (g.end - d).max(0.0);
    let min_of = |it: &mut dyn Iterator<Item = Time>| it.fold(Time::INFINITY, Time::min);
    let max_of = |it: &mut dyn Iterator<Item = Time>| it.fold(Time::NEG_INFINITY, Time::max);
    match c.strategy {
        Strategy::FirstFit => {
            // Job start = max(s, r) is monotone in s, so it does not depend on clipping.
            let best = min_of(&mut feasible.iter().map(|g| g.start.max(r)));
            if b.start != best {
                return Err(format!(
                    "First-fit start {} but {best} was possible",
                    b.start
                ));
            }
        }
        Strategy::BestFit => {
            let best = min_of(&mut feasible.iter().map(Gap::len));
            if g.len() != best {
                return Err(format!(
                    "Best-fit used a gap of length {} but {best} was possible",
                    g.len()
                ));
            }
        }
        Strategy::MinLip => {
            let best = min_of(&mut searched.iter().map(lip));
            let got_lip = b.start - g.start;
            if !close(got_lip, best, w) {
                return Err(format!(
                    "Min-LIP leading idle period {got_lip} but {best} was possible"
                ));
            }
        }
        Strategy::MinTip if c.options.min_tip == MinTipReading::Mirror => {
            // The trailing idle period only depends on ends: valid under both expiry modes.
            let best = min_of(&mut feasible.iter().map(tip));
            let got_tip = g.end - b.end;
            if !close(got_tip, best, w) {
                return Err(format!(
                    "Min-TIP trailing idle period {got_tip} but {best} was possible"
                ));
            }
        }
        Strategy::MaxLip => {
            let r1 = max_of(&mut feasible.iter().filter(|g| g.start < r).map(lip));
            if r1 > 0.0 && !close(b.start - g.start, r1, w) {
                return Err(format!(
                    "Max-LIP leading idle period {} but {r1} was possible",
                    b.start - g.start
                ));
            }
        }
        Strategy::MaxTip => {
            let after = max_of(&mut feasible.iter().filter(|g| g.end > d).map(tip));
            if after > 0.0 && !close(g.end - b.end, after, w) {
                return Err(format!(
                    "Max-TIP trailing idle period {} but {after} was possible",
                    g.end - b.end
                ));
            }
        }
        _ => {}
    }

    // The exact choice, tie-breaks included.
    let (eg, place) = expected_choice(c, w, feasible).ok_or("dropped by the spec's rule")?;
    let want = placed(&eg, place, w);
    if want != *b {
        return Err(format!(
            "expected {want:?} (gap s{}[{}, {})) by the spec's rule",
            eg.server, eg.start, eg.end
        ));
    }
    Ok(())
}

/// The scheduler's live idle periods equal the oracle's visible gaps that end after `now`
/// (under expiry `Clip`, ignoring the periods clipping made shorter than `l_min`: see
/// [`Model::visible_gaps`]).
fn check_state(
    sched: &ReservationScheduler,
    model: &Model,
    l_min: Time,
    now: Time,
) -> Result<(), String> {
    let key = |p: &IdlePeriod| (p.start.to_bits(), p.end.to_bits(), p.server);
    let mut want: Vec<IdlePeriod> = model
        .visible_gaps(l_min)
        .into_iter()
        .filter(|g| g.end > now)
        .map(|g| IdlePeriod {
            start: g.start,
            end: g.end,
            server: g.server,
        })
        .collect();
    let mut have = sched.idle_periods();
    if model.clip.is_some() {
        have.retain(|p| p.len() >= l_min);
    }
    want.sort_by(IdlePeriod::cmp_start);
    have.sort_by(IdlePeriod::cmp_start);
    if want.iter().map(key).ne(have.iter().map(key)) {
        let missing: Vec<String> = want
            .iter()
            .filter(|p| !have.iter().any(|q| key(q) == key(p)))
            .map(|p| p.to_string())
            .collect();
        let extra: Vec<String> = have
            .iter()
            .filter(|p| !want.iter().any(|q| key(q) == key(p)))
            .map(|p| p.to_string())
            .collect();
        return Err(format!(
            "idle periods differ from the oracle's gaps: missing {missing:?}, extra {extra:?}"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies and option variants
// ---------------------------------------------------------------------------------------------

const GAP_AWARE: [Strategy; 6] = [
    Strategy::FirstFit,
    Strategy::MinLip,
    Strategy::MinTip,
    Strategy::BestFit,
    Strategy::MaxLip,
    Strategy::MaxTip,
];

/// A configuration variant and the strategies it affects.
struct Variant {
    name: &'static str,
    strategies: &'static [Strategy],
    tweak: fn(&mut SchedulerConfig),
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "default",
        strategies: &Strategy::ALL,
        tweak: |_| {},
    },
    Variant {
        name: "min-tip narrative",
        strategies: &[Strategy::MinTip],
        tweak: |c| c.options.min_tip = MinTipReading::Narrative,
    },
    Variant {
        name: "step 2 strip above",
        strategies: &[Strategy::MinLip],
        tweak: |c| c.options.step2_start = Step2Start::StripAbove,
    },
    Variant {
        name: "r2 earliest start",
        strategies: &[Strategy::MinLip, Strategy::MaxLip],
        tweak: |c| c.options.r2_pick = R2Pick::EarliestStart,
    },
    Variant {
        name: "narrative + strip above + r2 earliest start",
        strategies: &[Strategy::MinTip],
        tweak: |c| {
            c.options.min_tip = MinTipReading::Narrative;
            c.options.step2_start = Step2Start::StripAbove;
            c.options.r2_pick = R2Pick::EarliestStart;
        },
    },
    Variant {
        name: "tip step 1 earliest first",
        strategies: &[Strategy::MinTip, Strategy::MaxTip],
        tweak: |c| c.options.min_tip_step1_order = StripOrder::EarliestFirst,
    },
    Variant {
        name: "lact latest feasible",
        strategies: &[Strategy::Lact],
        tweak: |c| c.options.lact_late = LactLate::LatestFeasibleCompletion,
    },
    Variant {
        name: "expiry clip",
        strategies: &GAP_AWARE,
        tweak: |c| c.expiry = ExpiryMode::Clip,
    },
    Variant {
        name: "expiry clip + strips x4 + strip above + narrative + r2 earliest start",
        strategies: &[Strategy::MinLip, Strategy::MinTip, Strategy::MaxLip],
        tweak: |c| {
            c.expiry = ExpiryMode::Clip;
            c.strip_multiplier = 4;
            c.options.step2_start = Step2Start::StripAbove;
            c.options.min_tip = MinTipReading::Narrative;
            c.options.r2_pick = R2Pick::EarliestStart;
        },
    },
    Variant {
        name: "strips x4",
        strategies: &[
            Strategy::MinLip,
            Strategy::MinTip,
            Strategy::MaxLip,
            Strategy::MaxTip,
        ],
        tweak: |c| c.strip_multiplier = 4,
    },
    Variant {
        name: "strips x4 + strip above + narrative",
        strategies: &[Strategy::MinLip, Strategy::MinTip],
        tweak: |c| {
            c.strip_multiplier = 4;
            c.options.step2_start = Step2Start::StripAbove;
            c.options.min_tip = MinTipReading::Narrative;
        },
    },
    Variant {
        name: "l_min 0.7 (strip width 1.4)",
        strategies: &Strategy::ALL,
        tweak: |c| c.l_min = 0.7,
    },
];

/// Every (variant, strategy) configuration for `servers` servers.
fn configs(servers: u32) -> Vec<(&'static str, SchedulerConfig)> {
    let mut out = Vec::new();
    for v in VARIANTS {
        for &strategy in v.strategies {
            let mut c = SchedulerConfig::new(servers, strategy);
            (v.tweak)(&mut c);
            out.push((v.name, c));
        }
    }
    out
}

fn check_every_config(servers: u32, requests: &[Request], opts: RunOpts) -> Result<(), String> {
    for (name, config) in configs(servers) {
        run_checked(config, requests, opts).map_err(|e| format!("variant `{name}`: {e}"))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Request streams
// ---------------------------------------------------------------------------------------------

/// Requests from (inter-arrival, ready offset, length, slack) tuples.
fn build(items: impl IntoIterator<Item = (Time, Time, Time, Time)>) -> Vec<Request> {
    let mut t = 0.0;
    items
        .into_iter()
        .map(|(dt, offset, length, slack)| {
            t += dt;
            let ready = t + offset;
            Request {
                arrival: t,
                window: Window::new(ready, length, ready + length + slack).unwrap(),
            }
        })
        .collect()
}

/// Streams on a quarter-unit grid: exact arithmetic, many exact ties, exact fits and starts
/// on strip boundaries. Lengths 1–8, ready up to 20 ahead (often 0), slack 0–10 (often 0).
fn grid_stream(
    len: std::ops::RangeInclusive<usize>,
    with_slack: bool,
) -> impl PropStrategy<Value = Vec<Request>> {
    let slack_max = if with_slack { 40u32 } else { 0 };
    let item = (
        0u32..=12,
        prop_oneof![1 => Just(0u32), 3 => 0u32..=80],
        4u32..=32,
        prop_oneof![1 => Just(0u32), 2 => 0u32..=slack_max],
    );
    prop::collection::vec(item, len).prop_map(|raw| {
        let q = |x: u32| f64::from(x) * 0.25;
        build(
            raw.into_iter()
                .map(|(dt, off, l, s)| (q(dt), q(off), q(l), q(s))),
        )
    })
}

/// Continuous streams with the same ranges.
fn continuous_stream(
    len: std::ops::RangeInclusive<usize>,
    with_slack: bool,
) -> impl PropStrategy<Value = Vec<Request>> {
    let item = (
        0.0f64..3.0,
        prop_oneof![1 => Just(0.0f64), 3 => 0.0f64..20.0],
        prop_oneof![1 => Just(1.0f64), 4 => 1.0f64..8.0],
        prop_oneof![1 => Just(0.0f64), 2 => 0.0f64..10.0]
            .prop_map(move |slack| if with_slack { slack } else { 0.0 }),
    );
    prop::collection::vec(item, len).prop_map(build)
}

/// `count` requests of Castillo's ch. 3 workload (bounded Pareto sizes 1–50, L = 200).
fn seeded_stream(
    servers: u32,
    load: f64,
    q: f64,
    ready_offset: ReadyOffset,
    count: usize,
) -> Vec<Request> {
    let workload = ReservationWorkload {
        servers,
        load,
        sizes: BoundedPareto::new(1.0, 50.0, 1.2).unwrap(),
        look_ahead: 200.0,
        tightness: q,
        ready_offset,
    };
    let key = StreamKey::new(2008, "reservation-properties").point(&format!(
        "n={servers} rho={load} q={q} {}",
        ready_offset.name()
    ));
    workload.stream(&key).unwrap().take(count).collect()
}

// ---------------------------------------------------------------------------------------------
// Random streams
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every strategy and variant against the oracle, quarter-unit grid streams.
    #[test]
    fn every_strategy_matches_the_oracle_on_grid_streams(
        servers in 1u32..=4,
        requests in grid_stream(50..=250, true),
    ) {
        let opts = RunOpts::every(1);
        check_every_config(servers, &requests, opts).map_err(TestCaseError::fail)?;
    }

    /// Every strategy and variant against the oracle, continuous streams.
    #[test]
    fn every_strategy_matches_the_oracle_on_continuous_streams(
        servers in 1u32..=4,
        requests in continuous_stream(50..=250, true),
    ) {
        let opts = RunOpts::every(1);
        check_every_config(servers, &requests, opts).map_err(TestCaseError::fail)?;
    }
}

/// Bookings plus the operation count (bit for bit).
type Trace = (Vec<Option<(u32, u64, u64)>>, u64);

fn trace(config: SchedulerConfig, requests: &[Request]) -> Trace {
    let mut s = ReservationScheduler::new(config).unwrap();
    let bookings = requests
        .iter()
        .map(|r| {
            s.submit(r.arrival, &r.window)
                .unwrap()
                .map(|b| (b.server, b.start.to_bits(), b.end.to_bits()))
        })
        .collect();
    (bookings, s.operations())
}

/// Acceptances of a hand-rolled single-server simulation with immediate deadlines: a job is
/// accepted iff `[ready, ready + length)` is free (up to the window tolerance, as in
/// `Window::admits`), and then runs there.
fn single_server_immediate(requests: &[Request]) -> Vec<Option<(Time, Time)>> {
    let mut busy: Vec<(Time, Time)> = Vec::new();
    requests
        .iter()
        .map(|req| {
            let (s, e) = (req.window.ready, req.window.ready + req.window.length);
            let slack = tol(&req.window);
            let free = busy.iter().all(|&(a, b)| b <= s + slack || a >= e - slack);
            free.then(|| {
                busy.push((s, e));
                (s, e)
            })
        })
        .collect()
}

fn check_single_server_immediate(requests: &[Request]) -> Result<(), String> {
    let want = single_server_immediate(requests);
    let ff = trace(SchedulerConfig::new(1, Strategy::FirstFit), requests).0;
    for (i, (w, g)) in want.iter().zip(&ff).enumerate() {
        let g = g.map(|(server, s, e)| (server, f64::from_bits(s), f64::from_bits(e)));
        let slack = tol(&requests[i].window);
        // A tolerance-level fit may start up to `slack` after the ready time.
        let same = match (w, g) {
            (None, None) => true,
            (Some((s, e)), Some((0, gs, ge))) => (gs - s).abs() <= slack && (ge - e).abs() <= slack,
            _ => false,
        };
        if !same {
            return Err(format!(
                "request {i} {:?}: hand-rolled {w:?}, First-fit {g:?}",
                requests[i]
            ));
        }
    }
    // With one server and no slack the placement is forced, so every gap-aware strategy and
    // variant must produce the very same schedule -- except the literal Min-LIP step 2
    // (Step2Start::StripAbove), which never searches R1 gaps starting in the ready time's own
    // strip and so legitimately drops some jobs that fit.
    // (Late placements compute the start as `deadline - length`, which may differ from the
    // ready time by rounding, hence the comparison up to the tolerance.)
    for (name, config) in configs(1) {
        if !config.strategy.uses_idle_periods() || literal_step2(&config) {
            continue;
        }
        let other = trace(config, requests).0;
        for (i, (a, b)) in ff.iter().zip(&other).enumerate() {
            let start = |x: &(u32, u64, u64)| f64::from_bits(x.1);
            let same = match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => (start(a) - start(b)).abs() <= tol(&requests[i].window),
                _ => false,
            };
            if !same {
                return Err(format!(
                    "request {i}: {} ({name}) decided {b:?}, First-fit {a:?}",
                    config.strategy
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The same stream run twice gives identical bookings (and operation counts).
    #[test]
    fn decisions_are_deterministic(
        servers in 1u32..=4,
        requests in continuous_stream(50..=200, true),
    ) {
        for (name, config) in configs(servers) {
            let a = trace(config, &requests);
            let b = trace(config, &requests);
            prop_assert_eq!(a, b, "{} ({})", config.strategy, name);
        }
    }

    /// Single server, immediate deadlines (q = 0): First-fit accepts exactly what a hand-rolled
    /// "is the interval free" simulation accepts.
    #[test]
    fn single_server_first_fit_matches_hand_rolled_on_grid_streams(
        requests in grid_stream(50..=300, false),
    ) {
        check_single_server_immediate(&requests).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn single_server_first_fit_matches_hand_rolled_on_continuous_streams(
        requests in continuous_stream(50..=300, false),
    ) {
        check_single_server_immediate(&requests).map_err(TestCaseError::fail)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Long seeded streams
// ---------------------------------------------------------------------------------------------

/// (load, q, ready offset) of the long streams run for each number of servers.
const SEEDED: [(f64, f64, ReadyOffset); 4] = [
    (0.3, 0.0, ReadyOffset::UniformToHorizon),
    (0.7, 0.1, ReadyOffset::UniformToHorizon),
    (1.2, 1.0, ReadyOffset::UniformToHorizon),
    (0.9, 0.1, ReadyOffset::Zero),
];

fn check_seeded(servers: u32, count: usize) {
    for (load, q, offset) in SEEDED {
        let requests = seeded_stream(servers, load, q, offset, count);
        let opts = RunOpts::every(16);
        if let Err(e) = check_every_config(servers, &requests, opts) {
            panic!("n={servers} rho={load} q={q} {}: {e}", offset.name());
        }
    }
}

#[test]
fn seeded_streams_one_server() {
    check_seeded(1, 3000);
    for load in [0.3, 0.6, 0.9, 1.2] {
        let requests = seeded_stream(1, load, 0.0, ReadyOffset::UniformToHorizon, 3000);
        check_single_server_immediate(&requests).unwrap();
    }
}

#[test]
fn seeded_streams_two_servers() {
    check_seeded(2, 3000);
}

#[test]
fn seeded_streams_three_servers() {
    check_seeded(3, 3000);
}

#[test]
fn seeded_streams_seven_servers() {
    check_seeded(7, 2000);
}

#[test]
fn seeded_streams_twenty_servers() {
    check_seeded(20, 2000);
}

// ---------------------------------------------------------------------------------------------
// Regression tests for a library bug found by the properties above (fixed: the tolerance is now
// eight ulps of the window's magnitude, and the audit uses each job's own window tolerance)
// ---------------------------------------------------------------------------------------------
//
// `Window::new` used to set the fit tolerance to `1e-7 * max(|ready|, |deadline|, 1)`,
// meant to absorb rounding. It was far more than rounding
// (an f64 ulp at t = 1e6 is 1e-10) and it grows with the simulated time, so a job may be booked
// into a gap that is shorter than it by up to that much -- overlapping the next reservation --
// or placed in a period that starts after `deadline - length`, ending after its hard deadline.
// `ScheduleAudit` measures overlaps with a *different* slack, `1e-7 * max(|start|, 1)`, so when
// the window's deadline lies further out than the overlapping job's start, it flags the
// scheduler's own schedule (seen on seeded Best-fit streams); and at large times it accepts
// overlaps and deadline misses of a sizeable fraction of `l_min`.

fn submit_all(
    config: SchedulerConfig,
    reservations: &[Vec<(Time, Time)>],
    jobs: &[(Time, Time, Time, Time)],
) -> (Vec<Option<Booking>>, Vec<String>) {
    let mut s = ReservationScheduler::with_reservations(config, reservations).unwrap();
    let mut audit = ScheduleAudit::new();
    let mut out = Vec::new();
    for (i, &(arrival, ready, length, deadline)) in jobs.iter().enumerate() {
        let req = Request {
            arrival,
            window: Window::new(ready, length, deadline).unwrap(),
        };
        let b = s.submit(arrival, &req.window).unwrap();
        audit.record(i, &req, b.as_ref());
        out.push(b);
    }
    (out, audit.violations())
}

/// The scheduler's own schedule fails `ScheduleAudit`: job B (ready 10, length 2, deadline 200,
/// window tolerance 2e-5) is admitted into the gap [0, 11.999985) and overlaps job A, booked at
/// 11.999985, by 1.5e-5; the audit's overlap slack there is only 1.2e-6.
#[test]
fn regression_scheduler_schedule_fails_its_own_audit() {
    let config = SchedulerConfig::new(1, Strategy::FirstFit);
    let jobs = [
        (0.0, 11.999985, 5.0, 16.999985), // A
        (0.0, 10.0, 2.0, 200.0),          // B
    ];
    let (bookings, violations) = submit_all(config, &[vec![]], &jobs);
    assert!(
        violations.is_empty(),
        "bookings {bookings:?}\nviolations {violations:?}"
    );
}

/// The same on a realistic seeded stream (n = 7, rho = 1.2, q = 1, Best-fit) with the audit's
/// overlap check enforced.
#[test]
fn regression_seeded_best_fit_schedule_fails_its_own_audit() {
    let requests = seeded_stream(7, 1.2, 1.0, ReadyOffset::UniformToHorizon, 2000);
    let opts = RunOpts {
        state_every: 0,
        strict_audit: true,
    };
    run_checked(SchedulerConfig::new(7, Strategy::BestFit), &requests, opts).unwrap();
}

/// At t = 1e6 (reached by the thesis's 10^6-job runs at low load) the tolerance is 0.1 time
/// units, 10% of `l_min`: a job of length 2 is booked into a gap of length 1.95, overlapping
/// the next reservation by 0.05. `ScheduleAudit` accepts it.
#[test]
fn regression_fit_tolerance_overlap_at_large_times() {
    let t = 1e6;
    // A occupies [t + 1.95, t + 6.95); B (immediate deadline, length 2) is ready at t.
    let config = SchedulerConfig::new(1, Strategy::FirstFit);
    let jobs = [(t, t + 1.95, 5.0, t + 6.95), (t, t, 2.0, t + 2.0)];
    let (bookings, violations) = submit_all(config, &[vec![]], &jobs);
    assert!(violations.is_empty(), "{violations:?}"); // the audit sees nothing wrong
    if let (Some(a), Some(b)) = (bookings[0], bookings[1]) {
        assert!(
            b.end <= a.start + 1e-9 * t,
            "B {b:?} overlaps A {a:?} by {}",
            b.end - a.start
        );
    }
}

/// At t = 1e6 an immediate-deadline job is started 0.05 after its ready time in a period that
/// starts after `deadline - length`, and ends 0.05 after its hard deadline. `ScheduleAudit`
/// accepts it.
#[test]
fn regression_fit_tolerance_deadline_miss_at_large_times() {
    let t = 1e6;
    // The server is busy until t + 0.05; the job must run in [t, t + 2].
    let config = SchedulerConfig::new(1, Strategy::FirstFit);
    let (bookings, violations) =
        submit_all(config, &[vec![(0.0, t + 0.05)]], &[(t, t, 2.0, t + 2.0)]);
    assert!(violations.is_empty(), "{violations:?}"); // the audit sees nothing wrong
    if let Some(b) = bookings[0] {
        assert!(
            b.end <= t + 2.0 + 1e-9 * t,
            "{b:?} ends {} after its deadline",
            b.end - (t + 2.0)
        );
    }
}
