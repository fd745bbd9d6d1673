//! Heterogeneous selection structures against the literal reference (`hetero::literal`).
//!
//! Each structure runs its own online schedule (jobs carve the chosen period into a leading
//! and a trailing fragment, old periods expire), and at every step its choice is compared with
//! the reference evaluated on the structure's own live set:
//! - FF-HU / FF-HA: the first feasible period in their documented order;
//! - FF-HA+ (every pick rule, every small-group threshold): the pseudo-code of spec §2.16 on
//!   sorted arrays with the implicit balanced shape;
//! - every returned period is feasible, and a job is dropped only if no class has a feasible
//!   period (FF-HA+ accepts iff FF-HU would accept on the same state).

use gridsched_geom::Window;
use gridsched_geom::hetero::{
    ClassOrder, PlusPick, PrimalDualTrees, RateClassLists, RateClasses, RatedIndex, RatedPeriod,
    RatedWindow, StartOrderedList, literal,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, Copy)]
struct Scenario {
    seed: u64,
    servers: u32,
    classes: usize,
    /// Times on a coarse grid: many exact ties and exact fits.
    grid: bool,
    steps: usize,
}

fn draw(rng: &mut ChaCha8Rng, lo: f64, hi: f64, grid: bool) -> f64 {
    let x = rng.random_range(lo..hi);
    if grid { (x * 2.0).round() / 2.0 } else { x }
}

/// Server rates: `classes` distinct rates in (0, 1], servers spread over them.
fn rates(rng: &mut ChaCha8Rng, s: &Scenario) -> Vec<f64> {
    let mut distinct: Vec<f64> = Vec::new();
    while distinct.len() < s.classes {
        let r = if s.grid {
            f64::from(rng.random_range(1..=10u32)) / 10.0
        } else {
            rng.random_range(0.05..=1.0)
        };
        if !distinct.contains(&r) {
            distinct.push(r);
        }
    }
    (0..s.servers)
        .map(|i| distinct[(i as usize) % s.classes])
        .collect()
}

/// Initial idle periods: per server, gaps separated by reservations, then the tail.
fn initial(
    rng: &mut ChaCha8Rng,
    s: &Scenario,
    rates: &[f64],
    cls: &RateClasses,
) -> Vec<RatedPeriod> {
    let mut out = Vec::new();
    for (server, &rate) in rates.iter().enumerate() {
        let class = cls.class_of(rate).unwrap();
        let mut t = draw(rng, 0.0, 3.0, s.grid);
        for _ in 0..rng.random_range(0..12) {
            let gap = draw(rng, 0.5, 8.0, s.grid).max(0.5);
            out.push(RatedPeriod::new(t, t + gap, server as u32, class, rate));
            t += gap + draw(rng, 0.5, 6.0, s.grid).max(0.5);
        }
        out.push(RatedPeriod::new(
            t,
            f64::INFINITY,
            server as u32,
            class,
            rate,
        ));
    }
    out
}

fn job(rng: &mut ChaCha8Rng, now: f64, s: &Scenario) -> Window {
    let ready = now + draw(rng, 0.0, 40.0, s.grid);
    let length = draw(rng, 0.5, 6.0, s.grid).max(0.5);
    let deadline = ready + length + draw(rng, 0.0, 25.0, s.grid);
    Window::new(ready, length, deadline).unwrap()
}

/// Books the job in `p` like the scheduler: leading and trailing fragments of capacity >= 0.1.
fn carve(index: &mut dyn RatedIndex, p: RatedPeriod, w: &RatedWindow, rate: f64, now: f64) {
    let start = w.start_in(&p);
    let end = start + w.duration;
    let lead = (start > now && rate * (start - p.start) >= 0.1)
        .then(|| RatedPeriod::new(p.start, start, p.server, p.class, rate));
    let trail = (p.end == f64::INFINITY || rate * (p.end - end) >= 0.1)
        .then(|| RatedPeriod::new(end, p.end, p.server, p.class, rate));
    // `carve` is how the scheduler books (a structure may overwrite the period in place with
    // its leading fragment); the reference is recomputed from the resulting live set.
    assert!(index.carve(&p, lead, trail), "chosen period {p} not live");
}

/// What the reference says `index`'s algorithm must choose on `live`.
type Reference = fn(&[RatedPeriod], &[RatedWindow]) -> Option<RatedPeriod>;

fn run(s: Scenario, mut index: Box<dyn RatedIndex>, reference: Reference, label: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
    let rates = rates(&mut rng, &s);
    let cls = RateClasses::from_server_rates(&rates).unwrap();
    for p in initial(&mut rng, &s, &rates, &cls) {
        index.insert(p);
    }
    let mut now = 0.0;
    let mut windows = Vec::new();
    let mut accepted = 0;
    for step in 0..s.steps {
        now += draw(&mut rng, 0.0, 1.5, s.grid);
        // Expire periods that ended.
        for p in index.periods() {
            if p.end <= now {
                assert!(index.remove(&p));
            }
        }
        let w = job(&mut rng, now, &s);
        cls.windows(&w, &mut windows);
        let live = index.periods();
        let want = reference(&live, &windows);
        let got = index.select(&windows);
        assert_eq!(
            got, want,
            "{label}: step {step}, job {w:?}, scenario {s:?}, live {live:?}"
        );
        // Completeness: dropped only if nothing is feasible anywhere.
        assert_eq!(
            got.is_some(),
            literal::any_feasible(&live, &windows),
            "{label}: step {step}"
        );
        if let Some(p) = got {
            let rw = windows[p.class as usize];
            assert!(rw.admits(&p));
            let start = rw.start_in(&p);
            let end = start + rw.duration;
            assert!(start >= w.ready && end <= w.deadline + 1e-9 && end <= p.end + 1e-9);
            carve(index.as_mut(), p, &rw, cls.rate(p.class as usize), now);
            accepted += 1;
        }
        if step % 50 == 0 {
            let mut sorted = index.periods();
            sorted.sort_by(RatedPeriod::cmp_start);
            assert_eq!(sorted.len(), index.len());
            let by_class: usize = (0..cls.len()).map(|h| index.class_len(h)).sum();
            assert_eq!(by_class, index.len());
        }
    }
    assert!(
        accepted > 0 || s.steps < 5,
        "{label}: nothing accepted in {s:?}"
    );
}

fn lists(s: Scenario, order: ClassOrder, cls: RateClasses) -> Box<dyn RatedIndex> {
    let _ = s;
    Box::new(RateClassLists::new(cls, order))
}

fn classes_of(s: &Scenario) -> RateClasses {
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
    RateClasses::from_server_rates(&rates(&mut rng, s)).unwrap()
}

fn check_all(s: Scenario) {
    let cls = classes_of(&s);
    run(
        s,
        Box::new(StartOrderedList::new(cls.clone())),
        literal::ff_hu,
        "FF-HU",
    );
    run(
        s,
        lists(s, ClassOrder::Ascending, cls.clone()),
        |l, w| literal::ff_ha(l, w, ClassOrder::Ascending),
        "FF-HA",
    );
    run(
        s,
        lists(s, ClassOrder::Descending, cls.clone()),
        |l, w| literal::ff_ha(l, w, ClassOrder::Descending),
        "FF-HA desc",
    );
    for budget in [0, 3, 1 << 20] {
        run(
            s,
            Box::new(
                PrimalDualTrees::new(cls.clone(), ClassOrder::Ascending, PlusPick::Tree)
                    .with_enumeration_budget(budget),
            ),
            |l, w| literal::ff_ha_plus(l, w, ClassOrder::Ascending, PlusPick::Tree),
            "FF-HA+ tree",
        );
        run(
            s,
            Box::new(
                PrimalDualTrees::new(
                    cls.clone(),
                    ClassOrder::Ascending,
                    PlusPick::MaxCapInFirstGroup,
                )
                .with_enumeration_budget(budget),
            ),
            |l, w| literal::ff_ha_plus(l, w, ClassOrder::Ascending, PlusPick::MaxCapInFirstGroup),
            "FF-HA+ max-cap",
        );
    }
    run(
        s,
        Box::new(PrimalDualTrees::new(
            cls.clone(),
            ClassOrder::Descending,
            PlusPick::Tree,
        )),
        |l, w| literal::ff_ha_plus(l, w, ClassOrder::Descending, PlusPick::Tree),
        "FF-HA+ tree desc",
    );
    run(
        s,
        Box::new(PrimalDualTrees::new(
            cls,
            ClassOrder::Ascending,
            PlusPick::EarliestStart,
        )),
        |l, w| literal::ff_ha(l, w, ClassOrder::Ascending),
        "FF-HA+ earliest = FF-HA",
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn every_structure_matches_the_reference(
        seed in any::<u64>(),
        servers in 1u32..14,
        classes in 1usize..4,
        grid in any::<bool>(),
    ) {
        let classes = classes.min(servers as usize);
        check_all(Scenario { seed, servers, classes, grid, steps: 120 });
    }
}

/// Large groups (hundreds of periods per marked node) exercise the dual range tree's descents
/// and its rotations; the literal reference is slow, so few steps.
#[test]
fn large_states_match_the_reference() {
    for (seed, grid) in [(1, false), (2, true)] {
        let s = Scenario {
            seed,
            servers: 60,
            classes: 3,
            grid,
            steps: 150,
        };
        check_all(s);
    }
}

/// FF-HA+ accepts exactly when FF-HU does, on the very same state (spec §5, extra property).
#[test]
fn ffha_plus_accepts_iff_ffhu_accepts_on_the_same_state() {
    for seed in 0..40 {
        let s = Scenario {
            seed,
            servers: 9,
            classes: 3,
            grid: seed % 2 == 0,
            steps: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rates = rates(&mut rng, &s);
        let cls = RateClasses::from_server_rates(&rates).unwrap();
        let live = initial(&mut rng, &s, &rates, &cls);
        let mut hu = StartOrderedList::new(cls.clone());
        let mut plus = PrimalDualTrees::new(cls.clone(), ClassOrder::Ascending, PlusPick::Tree)
            .with_enumeration_budget(2);
        for p in &live {
            hu.insert(*p);
            plus.insert(*p);
        }
        let mut windows = Vec::new();
        for _ in 0..300 {
            let w = job(&mut rng, 0.0, &s);
            cls.windows(&w, &mut windows);
            assert_eq!(
                hu.select(&windows).is_some(),
                plus.select(&windows).is_some()
            );
        }
        assert!(plus.operations() > 0 && hu.operations() > 0);
    }
}

/// A long change log (no search needed the range tree for a while) makes the dual range tree
/// stale; the next fallback rebuilds it from the primal order and must answer exactly.
#[test]
fn stale_range_tree_is_rebuilt_exactly() {
    for seed in 0..6 {
        let s = Scenario {
            seed,
            servers: 30,
            classes: 2,
            grid: seed % 2 == 1,
            steps: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rates = rates(&mut rng, &s);
        let cls = RateClasses::from_server_rates(&rates).unwrap();
        let live = initial(&mut rng, &s, &rates, &cls);
        let mut plus = PrimalDualTrees::new(cls.clone(), ClassOrder::Ascending, PlusPick::Tree)
            .with_enumeration_budget(0);
        for p in &live {
            plus.insert(*p);
        }
        // Churn: take periods out and put them back, far more often than the log allows.
        for _ in 0..3000 {
            let p = live[rng.random_range(0..live.len())];
            assert!(plus.remove(&p));
            plus.insert(p);
        }
        let mut windows = Vec::new();
        for _ in 0..100 {
            let w = job(&mut rng, 0.0, &s);
            cls.windows(&w, &mut windows);
            let want = literal::ff_ha_plus(&live, &windows, ClassOrder::Ascending, PlusPick::Tree);
            assert_eq!(plus.select(&windows), want, "seed {seed}");
        }
    }
}
