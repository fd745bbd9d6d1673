//! FF-HA+ on states large enough that every class spans many of the direct search's blocks
//! (hundreds of servers, thousands of live periods per class), against the literal pseudo-code
//! (`hetero::literal`). The blocks split while the initial state is loaded, and merge as
//! periods expire and the clock moves on; the groups FF-HA+ answers from cover many blocks, so
//! the gathered dual-feasible periods come from whole blocks (end-ordered suffixes) and from
//! boundary blocks (filtered by start). Each choice is also checked against the dual range
//! tree (`with_enumeration_budget(0)`), which answers without the blocks.

use gridsched_geom::Window;
use gridsched_geom::hetero::{
    ClassOrder, PlusPick, PrimalDualTrees, RateClasses, RatedIndex, RatedPeriod, RatedWindow,
    literal,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn draw(rng: &mut ChaCha8Rng, lo: f64, hi: f64, grid: bool) -> f64 {
    let x = rng.random_range(lo..hi);
    if grid { (x * 2.0).round() / 2.0 } else { x }
}

/// `servers` servers over `classes` rates; per server up to `gaps` idle gaps, then the tail.
fn state(
    rng: &mut ChaCha8Rng,
    servers: u32,
    classes: usize,
    gaps: u32,
    grid: bool,
) -> (RateClasses, Vec<f64>, Vec<RatedPeriod>) {
    let distinct: Vec<f64> = (0..classes)
        .map(|c| 0.1 + 0.8 * c as f64 / classes.max(2) as f64)
        .collect();
    let rates: Vec<f64> = (0..servers)
        .map(|i| distinct[i as usize % classes])
        .collect();
    let cls = RateClasses::from_server_rates(&rates).unwrap();
    let mut live = Vec::new();
    for (server, &rate) in rates.iter().enumerate() {
        let class = cls.class_of(rate).unwrap();
        let mut t = draw(rng, 0.0, 3.0, grid);
        for _ in 0..rng.random_range(0..=gaps) {
            let gap = draw(rng, 0.5, 8.0, grid).max(0.5);
            live.push(RatedPeriod::new(t, t + gap, server as u32, class, rate));
            t += gap + draw(rng, 0.5, 6.0, grid).max(0.5);
        }
        live.push(RatedPeriod::new(
            t,
            f64::INFINITY,
            server as u32,
            class,
            rate,
        ));
    }
    (cls, rates, live)
}

fn job(rng: &mut ChaCha8Rng, now: f64, grid: bool) -> Window {
    let ready = now + draw(rng, 0.0, 60.0, grid);
    let length = draw(rng, 0.5, 6.0, grid).max(0.5);
    let deadline = ready + length + draw(rng, 0.0, 25.0, grid);
    Window::new(ready, length, deadline).unwrap()
}

/// Runs FF-HA+ (`pick`) online on a large state; every choice must be the literal one and the
/// range tree's.
fn run(seed: u64, servers: u32, classes: usize, grid: bool, pick: PlusPick, steps: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (cls, rates, live) = state(&mut rng, servers, classes, 12, grid);
    let mut blocks = PrimalDualTrees::new(cls.clone(), ClassOrder::Ascending, pick);
    let mut tree =
        PrimalDualTrees::new(cls.clone(), ClassOrder::Ascending, pick).with_enumeration_budget(0);
    for p in &live {
        blocks.insert(*p);
        tree.insert(*p);
    }
    let mut now = 0.0;
    let mut windows: Vec<RatedWindow> = Vec::new();
    for step in 0..steps {
        now += draw(&mut rng, 0.0, 0.6, grid);
        for p in blocks.periods() {
            if p.end <= now {
                assert!(blocks.remove(&p));
                assert!(tree.remove(&p));
            }
        }
        let w = job(&mut rng, now, grid);
        cls.windows(&w, &mut windows);
        let current = blocks.periods();
        let want = literal::ff_ha_plus(&current, &windows, ClassOrder::Ascending, pick);
        let got = blocks.select(&windows);
        assert_eq!(got, want, "seed {seed} step {step} job {w:?}");
        assert_eq!(tree.select(&windows), want, "range tree, seed {seed}");
        if let Some(p) = got {
            let rw = windows[p.class as usize];
            let rate = rates[p.server as usize];
            let start = rw.start_in(&p);
            let end = start + rw.duration;
            let mut fragments = Vec::new();
            if start > now && rate * (start - p.start) >= 0.1 {
                fragments.push(RatedPeriod::new(p.start, start, p.server, p.class, rate));
            }
            if p.end == f64::INFINITY || rate * (p.end - end) >= 0.1 {
                fragments.push(RatedPeriod::new(end, p.end, p.server, p.class, rate));
            }
            // The default structure books through `carve` (the leading fragment overwrites the
            // period in place), the range-tree one through removal and insertions.
            let lead = fragments.iter().find(|f| f.start == p.start).copied();
            let trail = fragments.iter().find(|f| f.start != p.start).copied();
            assert!(blocks.carve(&p, lead, trail));
            assert!(tree.remove(&p));
            for f in &fragments {
                tree.insert(*f);
            }
        }
    }
    assert_eq!(blocks.periods(), tree.periods());
    assert!(blocks.operations() > 0);
}

#[test]
fn many_blocks_per_class_match_the_reference() {
    for (seed, grid) in [(11, false), (12, true)] {
        run(seed, 900, 3, grid, PlusPick::Tree, 120);
        run(seed, 600, 1, grid, PlusPick::MaxCapInFirstGroup, 60);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn large_random_states_match_the_reference(
        seed in any::<u64>(),
        servers in 300u32..1_000,
        classes in 1usize..4,
        grid in any::<bool>(),
    ) {
        run(seed, servers, classes, grid, PlusPick::Tree, 40);
    }
}
