//! Identity of the strip-tree indexes with the reference `LinearIndex`.
//!
//! A simulated scheduler drives a `LinearIndex` and the tree indexes with the same operations,
//! respecting the trait contract: `n` servers start with a tail at 0; at each arrival (at a
//! non-decreasing time `now`) every index advances, a random job window is drawn inside the
//! look-ahead, **every** rule is asked of every index and the answers must be identical bit for
//! bit; then the period chosen by a random rule is carved (removed, and its leading / trailing
//! fragments of length `>= l_min` inserted) in every index alike.

use std::fmt::Write as _;

use gridsched_geom::{
    EndStripIndex, ExpiryMode, GlobalEndIndex, GlobalLengthIndex, GlobalStartIndex, IdlePeriod,
    IdlePeriodIndex, LinearIndex, Rule, StartStripIndex, StripGeometry, StripOrder, Time,
    TreeConfig, TreeIndex, Window,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RULES: [Rule; 12] = [
    Rule::EarliestFeasible,
    Rule::ShortestFeasible,
    Rule::ShortestByLiteralStripQueries,
    Rule::LongestInFirstStartStrip,
    Rule::EarliestStartFromReady,
    Rule::LatestStartBeforeReady {
        skip_ready_strip: false,
    },
    Rule::LatestStartBeforeReady {
        skip_ready_strip: true,
    },
    Rule::EarliestStartBeforeReady,
    Rule::LongestInEndStrip {
        order: StripOrder::LatestFirst,
    },
    Rule::LongestInEndStrip {
        order: StripOrder::EarliestFirst,
    },
    Rule::EarliestEndAfterDeadline,
    Rule::LatestEndAfterDeadline,
];

type Bits = Option<(u64, u64, u32)>;

fn bits(p: Option<IdlePeriod>) -> Bits {
    p.map(|p| (p.start.to_bits(), p.end.to_bits(), p.server))
}

fn all_bits(ps: &[IdlePeriod]) -> Vec<Bits> {
    ps.iter().map(|p| bits(Some(*p))).collect()
}

/// One random stream's parameters.
#[derive(Debug, Clone, Copy)]
struct Params {
    seed: u64,
    servers: u32,
    multiplier: u32,
    expiry: ExpiryMode,
    l_min: Time,
    look_ahead: Time,
    /// Times and lengths are multiples of this (`None`: continuous).
    grid: Option<Time>,
    /// Offered load (jobs' total length per unit time per server).
    load: f64,
    arrivals: usize,
    /// Arrivals before `arrivals` that only fill the schedule (carving the first-fit or
    /// Min-LIP choice) without comparing answers.
    warmup: usize,
    /// Check invariants and compare the full period lists every this many arrivals.
    check_every: usize,
}

/// Per-rule query counts and the number of non-empty answers.
#[derive(Debug, Default, Clone)]
struct Stats {
    queries: [u64; RULES.len()],
    hits: [u64; RULES.len()],
    /// Operations counted by the linear index and by the tree index that indexes the rule.
    linear_ops: [u64; RULES.len()],
    tree_ops: [u64; RULES.len()],
    /// Operations of the global (strip-free) tree that indexes the rule.
    global_ops: [u64; RULES.len()],
    carved: u64,
    /// Sum over compared arrivals of the number of live periods.
    live: u64,
    /// Compared arrivals at which the switching Best-fit index was in the other form than at
    /// the previous one.
    best_fit_switches: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        for i in 0..RULES.len() {
            self.queries[i] += o.queries[i];
            self.hits[i] += o.hits[i];
            self.linear_ops[i] += o.linear_ops[i];
            self.tree_ops[i] += o.tree_ops[i];
            self.global_ops[i] += o.global_ops[i];
        }
        self.carved += o.carved;
        self.live += o.live;
        self.best_fit_switches += o.best_fit_switches;
    }
}

struct Sim {
    p: Params,
    rng: ChaCha8Rng,
    geometry: StripGeometry,
    now: Time,
    linear: LinearIndex,
    start: StartStripIndex,
    end: EndStripIndex,
    /// Best-fit's range trees in every strip, and in strips of at least 6 periods.
    start_bf_always: StartStripIndex,
    start_bf_small: StartStripIndex,
    global_start: GlobalStartIndex,
    global_end: GlobalEndIndex,
    global_length: GlobalLengthIndex,
    facade: TreeIndex,
    facade_rules: Vec<Rule>,
    /// Best-fit's runs turning into trees above 12 periods and back below 6.
    best_fit_switching: TreeIndex,
    best_fit_form: Option<bool>,
    stats: Stats,
}

impl Sim {
    fn new(p: Params) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let geometry = StripGeometry::for_min_length(p.l_min, p.multiplier);
        let config = TreeConfig::new(geometry, p.look_ahead).with_expiry(p.expiry);
        // The facade is built for a random subset of the rules; it must still answer all.
        let facade_rules: Vec<Rule> = RULES
            .iter()
            .copied()
            .filter(|_| rng.random_bool(0.4))
            .collect();
        let mut sim = Sim {
            p,
            rng,
            geometry,
            now: 0.0,
            linear: LinearIndex::with_expiry(geometry, p.expiry),
            start: StartStripIndex::with_best_fit(config),
            end: EndStripIndex::new(config),
            start_bf_always: StartStripIndex::with_best_fit_thresholds(config, 1, 0),
            start_bf_small: StartStripIndex::with_best_fit_thresholds(config, 6, 3),
            global_start: GlobalStartIndex::new(config),
            global_end: GlobalEndIndex::new(config),
            global_length: GlobalLengthIndex::new(config),
            facade: TreeIndex::new(config, &facade_rules),
            facade_rules,
            best_fit_switching: TreeIndex::with_best_fit_switch(
                config,
                &[Rule::ShortestFeasible],
                12,
                6,
            ),
            best_fit_form: Some(false),
            stats: Stats::default(),
        };
        for s in 0..p.servers {
            sim.insert(IdlePeriod::tail(0.0, s));
        }
        sim
    }

    fn indexes(&mut self) -> [&mut dyn IdlePeriodIndex; 10] {
        [
            &mut self.linear,
            &mut self.start,
            &mut self.end,
            &mut self.start_bf_always,
            &mut self.start_bf_small,
            &mut self.global_start,
            &mut self.global_end,
            &mut self.global_length,
            &mut self.facade,
            &mut self.best_fit_switching,
        ]
    }

    fn insert(&mut self, p: IdlePeriod) {
        for ix in self.indexes() {
            ix.insert(p);
        }
    }

    fn remove(&mut self, p: &IdlePeriod) {
        let seed = self.p.seed;
        for (i, ix) in self.indexes().into_iter().enumerate() {
            assert!(ix.remove(p), "index {i} lost {p} (seed {seed})");
        }
    }

    fn snap(&self, t: Time) -> Time {
        snap(self.p.grid, t)
    }

    fn check(&self, context: &str) {
        self.start.check_invariants();
        self.end.check_invariants();
        self.start_bf_always.check_invariants();
        self.start_bf_small.check_invariants();
        self.global_start.check_invariants();
        self.global_end.check_invariants();
        self.global_length.check_invariants();
        self.facade.check_invariants();
        self.best_fit_switching.check_invariants();
        let want = all_bits(&self.linear.periods());
        assert_eq!(
            all_bits(&self.start.periods()),
            want,
            "start periods {context}"
        );
        assert_eq!(all_bits(&self.end.periods()), want, "end periods {context}");
        assert_eq!(
            all_bits(&self.global_start.periods()),
            want,
            "global start periods {context}"
        );
        assert_eq!(
            all_bits(&self.global_end.periods()),
            want,
            "global end periods {context}"
        );
        assert_eq!(
            all_bits(&self.facade.periods()),
            want,
            "facade periods {context}"
        );
        assert_eq!(
            all_bits(&self.global_length.periods()),
            want,
            "global length periods {context}"
        );
        assert_eq!(
            all_bits(&self.best_fit_switching.periods()),
            want,
            "switching Best-fit periods {context}"
        );
    }

    fn job_length(&mut self) -> Time {
        let l_min = self.p.l_min;
        let l = match self.rng.random_range(0..10) {
            0..=4 => l_min * self.rng.random_range(1.0..10.0),
            5..=7 => {
                // Bounded Pareto on [1, 50] (alpha 1.2), in units of l_min.
                let u: f64 = self.rng.random();
                let (k, pmax, a): (f64, f64, f64) = (1.0, 50.0, 1.2);
                let x = (-(u * pmax.powf(a) - u * k.powf(a) - pmax.powf(a))
                    / (pmax.powf(a) * k.powf(a)))
                .powf(-1.0 / a);
                l_min * x
            }
            _ => l_min * f64::from(self.rng.random_range(1..4u32)),
        };
        self.snap(l).max(l_min).min(self.p.look_ahead * 0.9)
    }

    /// A random job window inside the look-ahead; `None` if the draw is unusable.
    fn window(&mut self) -> Option<Window> {
        let grid = self.p.grid;
        let (now, horizon) = (self.now, self.now + self.p.look_ahead);
        let w = self.geometry.width();
        let exact = self.rng.random_bool(0.08);
        let (ready, length) = if exact {
            // Exactly the length of a live period, starting at its start (or at now).
            let ps = self.linear.periods();
            let q = ps[self.rng.random_range(0..ps.len())];
            let length = if q.is_tail() {
                self.job_length()
            } else {
                q.len()
            };
            (q.start.max(now), length)
        } else {
            let length = self.job_length();
            let ready = match self.rng.random_range(0..10) {
                0 => now,
                1 => (now / w).ceil() * w, // a strip edge
                2 => ((now + self.rng.random_range(0.0..self.p.look_ahead)) / w).floor() * w,
                _ => snap(
                    grid,
                    now + self
                        .rng
                        .random_range(0.0..(self.p.look_ahead - length).max(0.0)),
                ),
            };
            (ready.max(now), length)
        };
        let deadline = match self.rng.random_range(0..10) {
            0..=2 => ready + length,
            3..=6 => snap(
                grid,
                ready + length + self.rng.random_range(0.0..(length * 3.0)),
            ),
            _ => snap(
                grid,
                ready + length + self.rng.random_range(0.0..self.p.look_ahead),
            ),
        };
        let deadline = deadline.min(horizon).max(ready + length);
        if deadline > horizon + 1e-9 {
            return None;
        }
        Window::new(ready, length, deadline).ok()
    }

    fn arrival(&mut self, k: usize) {
        let mean_gap = 5.0 * self.p.l_min / (f64::from(self.p.servers) * self.p.load);
        let u: f64 = self.rng.random();
        let gap = if self.rng.random_bool(0.05) {
            0.0
        } else {
            -mean_gap * (1.0 - u).ln()
        };
        self.now = self.snap(self.now + gap).max(self.now);
        let now = self.now;
        for ix in self.indexes() {
            ix.advance(now);
        }
        let lens: Vec<usize> = self.indexes().iter().map(|ix| ix.len()).collect();
        assert!(
            lens.iter().all(|n| *n == lens[0]),
            "lengths {lens:?} at arrival {k}, seed {}",
            self.p.seed
        );
        if k.is_multiple_of(self.p.check_every) {
            self.check(&format!(
                "after advance({now}) at arrival {k}, seed {}",
                self.p.seed
            ));
        }
        let on_trees = self.best_fit_switching.best_fit_on_trees();
        if on_trees != self.best_fit_form {
            self.stats.best_fit_switches += 1;
            self.best_fit_form = on_trees;
        }
        let Some(w) = self.window() else { return };
        self.stats.live += self.linear.len() as u64;
        let mut answers = Vec::with_capacity(RULES.len());
        for (i, rule) in RULES.iter().enumerate() {
            let ops = (
                self.linear.operations(),
                self.start.operations() + self.end.operations(),
                self.global_start.operations() + self.global_end.operations(),
            );
            let want = self.linear.select(*rule, &w);
            let got = [
                StartStripIndex::supports(*rule).then(|| self.start.select(*rule, &w)),
                EndStripIndex::supports(*rule).then(|| self.end.select(*rule, &w)),
                GlobalStartIndex::supports(*rule).then(|| self.global_start.select(*rule, &w)),
                GlobalEndIndex::supports(*rule).then(|| self.global_end.select(*rule, &w)),
                (*rule == Rule::ShortestFeasible).then(|| self.start_bf_always.select(*rule, &w)),
                (*rule == Rule::ShortestFeasible).then(|| self.start_bf_small.select(*rule, &w)),
                GlobalLengthIndex::supports(*rule).then(|| self.global_length.select(*rule, &w)),
                (*rule == Rule::ShortestFeasible)
                    .then(|| self.best_fit_switching.select(*rule, &w)),
            ];
            self.stats.linear_ops[i] += self.linear.operations() - ops.0;
            self.stats.tree_ops[i] += self.start.operations() + self.end.operations() - ops.1;
            self.stats.global_ops[i] +=
                self.global_start.operations() + self.global_end.operations() - ops.2;
            let got = [
                got[0],
                got[1],
                got[2],
                got[3],
                got[4],
                got[5],
                got[6],
                got[7],
                Some(self.facade.select(*rule, &w)),
            ];
            for (j, g) in got.into_iter().enumerate() {
                if let Some(g) = g
                    && bits(g) != bits(want)
                {
                    let mut msg = String::new();
                    let _ = writeln!(msg, "index {j} answers {g:?}, LinearIndex {want:?}");
                    let _ = writeln!(msg, "rule {rule:?}, window {w:?}, now {now}");
                    let _ = writeln!(msg, "arrival {k}, params {:?}", self.p);
                    let _ = writeln!(msg, "facade rules {:?}", self.facade_rules);
                    let _ = writeln!(msg, "live periods {:?}", self.linear.periods());
                    panic!("{msg}");
                }
            }
            self.stats.queries[i] += 1;
            self.stats.hits[i] += u64::from(want.is_some());
            answers.push((*rule, want));
        }
        // Carve the period chosen by a random rule that found one.
        let found: Vec<(Rule, IdlePeriod)> = answers
            .iter()
            .filter_map(|(r, a)| a.map(|a| (*r, a)))
            .collect();
        if found.is_empty() || self.rng.random_bool(0.1) {
            return;
        }
        let (rule, chosen) = found[self.rng.random_range(0..found.len())];
        self.carve(rule, chosen, &w);
    }

    /// Schedules the job in `chosen` as the strategy using `rule` would (spec §2.4) and
    /// replaces the period by its fragments of length `>= l_min`.
    fn carve(&mut self, rule: Rule, chosen: IdlePeriod, w: &Window) {
        let sigma = match rule {
            Rule::LongestInEndStrip { .. } => chosen.end - w.length,
            Rule::EarliestEndAfterDeadline | Rule::LatestEndAfterDeadline => w.deadline - w.length,
            _ => chosen.start.max(w.ready),
        }
        .max(chosen.start);
        let job_end = sigma + w.length;
        self.remove(&chosen);
        if sigma - chosen.start >= self.p.l_min {
            self.insert(IdlePeriod::new(chosen.start, sigma, chosen.server));
        }
        if chosen.end - job_end >= self.p.l_min {
            self.insert(IdlePeriod::new(job_end, chosen.end, chosen.server));
        }
        self.stats.carved += 1;
    }

    /// A warm-up arrival: advance, place the job by first-fit (or latest start before the
    /// ready time), no comparison.
    fn fill(&mut self) {
        let mean_gap = 5.0 * self.p.l_min / (f64::from(self.p.servers) * self.p.load);
        let u: f64 = self.rng.random();
        self.now = self
            .snap(self.now - mean_gap * (1.0 - u).ln())
            .max(self.now);
        let now = self.now;
        for ix in self.indexes() {
            ix.advance(now);
        }
        let Some(w) = self.window() else { return };
        let rule = if self.rng.random_bool(0.5) {
            Rule::EarliestFeasible
        } else {
            Rule::LatestStartBeforeReady {
                skip_ready_strip: false,
            }
        };
        if let Some(chosen) = self.start.select(rule, &w) {
            self.carve(rule, chosen, &w);
        }
    }

    fn run(mut self) -> Stats {
        for _ in 0..self.p.warmup {
            self.fill();
        }
        for k in 0..self.p.arrivals {
            self.arrival(k);
        }
        self.check(&format!("at the end, seed {}", self.p.seed));
        self.stats
    }
}

/// Streams over `n` servers: every combination of M in {1, 4} and both expiry modes, on a
/// grid (exact ties, strip edges, exact fits) and continuous.
/// Rounds `t` to the grid.
fn snap(grid: Option<Time>, t: Time) -> Time {
    match grid {
        Some(g) => (t / g).round() * g,
        None => t,
    }
}

fn streams(servers: u32, warmup: usize, arrivals: usize, check_every: usize, seed: u64) -> Stats {
    let mut total = Stats::default();
    let mut k = 0;
    for multiplier in [1, 4] {
        for expiry in [ExpiryMode::Pool, ExpiryMode::Clip] {
            for grid in [Some(0.5), None] {
                k += 1;
                let p = Params {
                    seed: seed * 1000 + k,
                    servers,
                    multiplier,
                    expiry,
                    l_min: 1.0,
                    look_ahead: if k % 2 == 0 { 200.0 } else { 60.0 },
                    grid,
                    load: [0.5, 0.9, 1.2][k as usize % 3],
                    arrivals,
                    warmup,
                    check_every,
                };
                total.add(&Sim::new(p).run());
            }
        }
    }
    total
}

fn report(name: &str, s: &Stats) {
    let mean_live = s.live as f64 / s.queries[0].max(1) as f64;
    eprintln!(
        "{name}: {} carved, {mean_live:.0} live periods on average",
        s.carved
    );
    for (i, rule) in RULES.iter().enumerate() {
        eprintln!(
            "  {:<60} {:>8} queries {:>8} hits {:>9.1} linear ops/query {:>7.1} tree ops/query \
             {:>7.1} global ops/query",
            format!("{rule:?}"),
            s.queries[i],
            s.hits[i],
            s.linear_ops[i] as f64 / s.queries[i].max(1) as f64,
            s.tree_ops[i] as f64 / s.queries[i].max(1) as f64,
            s.global_ops[i] as f64 / s.queries[i].max(1) as f64,
        );
    }
}

#[test]
fn identical_one_server() {
    let s = streams(1, 0, 5_000, 1, 1);
    report("n = 1", &s);
    assert!(s.queries.iter().all(|q| *q >= 30_000));
    assert!(
        s.best_fit_switches >= 20,
        "{} switches",
        s.best_fit_switches
    );
}

#[test]
fn identical_two_servers() {
    let s = streams(2, 0, 4_500, 1, 2);
    report("n = 2", &s);
    assert!(s.queries.iter().all(|q| *q >= 30_000));
    assert!(
        s.best_fit_switches >= 20,
        "{} switches",
        s.best_fit_switches
    );
}

#[test]
fn identical_twenty_servers() {
    let s = streams(20, 200, 12_000, 25, 20);
    report("n = 20", &s);
    assert!(s.queries.iter().all(|q| *q >= 30_000));
}

#[test]
fn identical_five_hundred_servers() {
    let s = streams(500, 6_000, 2_000, 100, 500);
    report("n = 500", &s);
    // Efficiency: the tree indexes touch O(strips + log n) nodes, not O(V).
    for (i, rule) in RULES.iter().enumerate() {
        let (lin, tree) = (s.linear_ops[i] as f64, s.tree_ops[i] as f64);
        assert!(
            tree * 8.0 < lin,
            "{rule:?}: tree {tree} ops vs linear {lin}"
        );
        if rule != &Rule::ShortestFeasible {
            let global = s.global_ops[i] as f64;
            assert!(
                global * 8.0 < lin,
                "{rule:?}: global tree {global} ops vs linear {lin}"
            );
        }
    }
    assert!(s.queries.iter().all(|q| *q >= 12_000));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    /// Short streams over odd geometries: widths that are not powers of two (strip edges that
    /// floating point cannot represent exactly), other grids and l_min values.
    #[test]
    fn identical_on_odd_geometries(
        seed in any::<u64>(),
        servers in 1u32..7,
        multiplier in prop::sample::select(vec![1u32, 2, 3, 4]),
        clip in any::<bool>(),
        l_min in prop::sample::select(vec![1.0, 0.3, 0.7, 15.0, 1800.0]),
        grid in prop::sample::select(vec![None, Some(0.1), Some(0.25), Some(1.0)]),
        look_ahead in prop::sample::select(vec![10.0, 50.0, 200.0]),
        load in 0.3f64..1.5,
    ) {
        let p = Params {
            seed,
            servers,
            multiplier,
            expiry: if clip { ExpiryMode::Clip } else { ExpiryMode::Pool },
            l_min,
            look_ahead: look_ahead * l_min,
            grid: grid.map(|g| g * l_min),
            load,
            arrivals: 300,
            warmup: 0,
            check_every: 7,
        };
        Sim::new(p).run();
    }
}

/// An operation of the free-form test.
#[derive(Debug, Clone)]
enum Op {
    /// Insert `[start, start + len)` (a tail if `len == 0`) on a server, if it does not overlap
    /// that server's live periods.
    Insert { server: u32, start: i32, len: u8 },
    /// Remove the `i`-th live period (mod the count).
    Remove(usize),
    /// Advance the clock by `dt` quarter units.
    Advance(u16),
    /// Ask every rule; `ready` relative to `now` in quarter units (may be negative, which the
    /// contract excludes but the indexes must still answer identically).
    Query { ready: i32, len: u8, slack: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u32..4, -40i32..400, 0u8..40).prop_map(|(server, start, len)| Op::Insert { server, start, len }),
        2 => any::<usize>().prop_map(Op::Remove),
        2 => prop_oneof![3 => 0u16..12, 1 => 0u16..600].prop_map(Op::Advance),
        4 => (-20i32..300, 1u8..30, 0u8..60).prop_map(|(ready, len, slack)| Op::Query { ready, len, slack }),
    ]
}

fn run_free_form(ops: &[Op], multiplier: u32, expiry: ExpiryMode) {
    let q = 0.25;
    let geometry = StripGeometry::for_min_length(1.0, multiplier);
    let config = TreeConfig::new(geometry, 30.0).with_expiry(expiry);
    let mut linear = LinearIndex::with_expiry(geometry, expiry);
    let mut start = StartStripIndex::with_best_fit(config);
    let mut end = EndStripIndex::new(config);
    let mut global_start = GlobalStartIndex::new(config);
    let mut global_end = GlobalEndIndex::new(config);
    let mut facade = TreeIndex::with_all_rules(config);
    let mut global_length = GlobalLengthIndex::new(config);
    // Best-fit's runs turning into trees above 8 periods and back below 4.
    let mut switching = TreeIndex::with_best_fit_switch(config, &[Rule::ShortestFeasible], 8, 4);
    // Best-fit's range trees in every strip, and in strips of at least 4 periods.
    let mut bf_always = StartStripIndex::with_best_fit_thresholds(config, 1, 0);
    let mut bf_small = StartStripIndex::with_best_fit_thresholds(config, 4, 2);
    let mut now: Time = 0.0;
    for (k, op) in ops.iter().enumerate() {
        match *op {
            Op::Insert {
                server,
                start: s,
                len,
            } => {
                let s = f64::from(s) * q;
                let e = if len == 0 {
                    Time::INFINITY
                } else {
                    s + f64::from(len) * q
                };
                let clash = linear
                    .periods()
                    .iter()
                    .any(|p| p.server == server && p.start < e && s < p.end);
                if !clash {
                    let p = IdlePeriod::new(s, e, server);
                    linear.insert(p);
                    start.insert(p);
                    end.insert(p);
                    global_start.insert(p);
                    global_end.insert(p);
                    facade.insert(p);
                    bf_always.insert(p);
                    bf_small.insert(p);
                    global_length.insert(p);
                    switching.insert(p);
                }
            }
            Op::Remove(i) => {
                let ps = linear.periods();
                if !ps.is_empty() {
                    let mut p = ps[i % ps.len()];
                    if i % 3 == 0 {
                        // Periods are matched by (start, server) only: a wrong end must work.
                        p.end = if p.is_tail() {
                            p.start + 1.0
                        } else {
                            p.end + 0.5
                        };
                    }
                    assert!(linear.remove(&p));
                    assert!(start.remove(&p), "op {k}: start lost {p}");
                    assert!(end.remove(&p), "op {k}: end lost {p}");
                    assert!(facade.remove(&p), "op {k}: facade lost {p}");
                    assert!(global_start.remove(&p), "op {k}: global start lost {p}");
                    assert!(global_end.remove(&p), "op {k}: global end lost {p}");
                    assert!(bf_always.remove(&p), "op {k}: bf_always lost {p}");
                    assert!(bf_small.remove(&p), "op {k}: bf_small lost {p}");
                    assert!(global_length.remove(&p), "op {k}: global length lost {p}");
                    assert!(switching.remove(&p), "op {k}: switching lost {p}");
                    assert!(
                        !global_length.remove(&p),
                        "op {k}: global length removed {p} twice"
                    );
                    assert!(!end.remove(&p), "op {k}: end removed {p} twice");
                    assert!(
                        !global_end.remove(&p),
                        "op {k}: global end removed {p} twice"
                    );
                }
            }
            Op::Advance(dt) => {
                now += f64::from(dt) * q;
                linear.advance(now);
                start.advance(now);
                end.advance(now);
                global_start.advance(now);
                global_end.advance(now);
                facade.advance(now);
                bf_always.advance(now);
                bf_small.advance(now);
                global_length.advance(now);
                switching.advance(now);
            }
            Op::Query { ready, len, slack } => {
                let ready = now + f64::from(ready) * q;
                let length = f64::from(len) * q;
                let w = Window::new(ready, length, ready + length + f64::from(slack) * q).unwrap();
                for rule in RULES {
                    let want = bits(linear.select(rule, &w));
                    assert_eq!(
                        bits(start.select(rule, &w)),
                        want,
                        "op {k}: start, {rule:?}, {w:?}, now {now}"
                    );
                    assert_eq!(
                        bits(end.select(rule, &w)),
                        want,
                        "op {k}: end, {rule:?}, {w:?}, now {now}"
                    );
                    assert_eq!(
                        bits(facade.select(rule, &w)),
                        want,
                        "op {k}: facade, {rule:?}, {w:?}, now {now}"
                    );
                    assert_eq!(
                        bits(global_start.select(rule, &w)),
                        want,
                        "op {k}: global start, {rule:?}, {w:?}, now {now}"
                    );
                    assert_eq!(
                        bits(global_end.select(rule, &w)),
                        want,
                        "op {k}: global end, {rule:?}, {w:?}, now {now}"
                    );
                    assert_eq!(
                        bits(global_length.select(rule, &w)),
                        want,
                        "op {k}: global length, {rule:?}, {w:?}, now {now}"
                    );
                    if rule == Rule::ShortestFeasible {
                        assert_eq!(bits(bf_always.select(rule, &w)), want, "op {k}: bf_always");
                        assert_eq!(bits(bf_small.select(rule, &w)), want, "op {k}: bf_small");
                        assert_eq!(bits(switching.select(rule, &w)), want, "op {k}: switching");
                    }
                }
            }
        }
        let want = all_bits(&linear.periods());
        assert_eq!(all_bits(&start.periods()), want, "op {k}: start periods");
        assert_eq!(all_bits(&end.periods()), want, "op {k}: end periods");
        assert_eq!(all_bits(&facade.periods()), want, "op {k}: facade periods");
        assert_eq!(
            all_bits(&global_start.periods()),
            want,
            "op {k}: global start periods"
        );
        assert_eq!(
            all_bits(&global_end.periods()),
            want,
            "op {k}: global end periods"
        );
        start.check_invariants();
        end.check_invariants();
        global_start.check_invariants();
        global_end.check_invariants();
        facade.check_invariants();
        bf_always.check_invariants();
        bf_small.check_invariants();
        global_length.check_invariants();
        switching.check_invariants();
        assert_eq!(
            all_bits(&global_length.periods()),
            want,
            "op {k}: global length periods"
        );
        assert_eq!(
            all_bits(&switching.periods()),
            want,
            "op {k}: switching periods"
        );
        assert_eq!(
            all_bits(&bf_always.periods()),
            want,
            "op {k}: bf_always periods"
        );
        assert_eq!(
            all_bits(&bf_small.periods()),
            want,
            "op {k}: bf_small periods"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Free-form operation sequences, including what a scheduler never does (periods starting
    /// in the past or far beyond the look-ahead, windows with `ready < now`, periods inserted
    /// before the first `advance`): the trees must still answer exactly like `LinearIndex`.
    #[test]
    fn identical_under_arbitrary_operations(
        ops in prop::collection::vec(op(), 0..250),
        multiplier in prop::sample::select(vec![1u32, 3]),
        clip in any::<bool>(),
    ) {
        run_free_form(&ops, multiplier, if clip { ExpiryMode::Clip } else { ExpiryMode::Pool });
    }
}

/// Best-fit's structure is the length-ordered runs at every size unless the thesis's trees are
/// asked for, from the start or above a size (and back below another).
#[test]
fn best_fit_structure_by_request() {
    let config = TreeConfig::new(StripGeometry::for_min_length(1.0, 1), 200.0);
    let best_fit = [Rule::ShortestFeasible];
    let mut runs = TreeIndex::new(config, &best_fit);
    let mut trees = TreeIndex::with_best_fit_switch(config, &best_fit, 0, 0);
    let mut switching = TreeIndex::with_best_fit_switch(config, &best_fit, 3_000, 1_000);
    assert_eq!(
        TreeIndex::new(config, &[Rule::EarliestFeasible]).best_fit_on_trees(),
        None
    );
    assert_eq!(trees.best_fit_on_trees(), Some(true));
    let periods: Vec<IdlePeriod> = (0..5_000u32)
        .map(|s| IdlePeriod::new(f64::from(s % 50), 60.0 + f64::from(s % 7), s))
        .collect();
    for p in &periods {
        for ix in [&mut runs, &mut trees, &mut switching] {
            ix.insert(*p);
        }
    }
    assert_eq!(runs.best_fit_on_trees(), Some(false));
    assert_eq!(trees.best_fit_on_trees(), Some(true));
    assert_eq!(switching.best_fit_on_trees(), Some(true));
    let w = Window::new(10.0, 45.0, 70.0).unwrap();
    let want = runs.select(Rule::ShortestFeasible, &w);
    assert!(want.is_some());
    assert_eq!(trees.select(Rule::ShortestFeasible, &w), want);
    assert_eq!(switching.select(Rule::ShortestFeasible, &w), want);
    for p in &periods[..4_200] {
        assert!(switching.remove(p));
    }
    assert_eq!(switching.best_fit_on_trees(), Some(false));
    switching.check_invariants();
}
