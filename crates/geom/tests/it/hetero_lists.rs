//! FF-HU and FF-HA against the list scans they replaced (the oracle): same choice, same
//! operation count (elements examined), at every decision of an online schedule.
//!
//! `StartOrderedList` and `RateClassLists` find the first feasible period through block
//! summaries and *count* the elements a scan from the head would examine (`hetero::lists`).
//! The oracle is the previous implementation, now `hetero::ScanLists` (the structure Castillo's
//! chapter-4 model times under `list_index = scan`): ordered maps walked element by element,
//! stopping at the first start past the latest feasible one. States range from a
//! few servers (one block per class) to hundreds (many blocks, splits and merges), on a coarse
//! time grid (ties in start, exact fits) and off it.

use gridsched_geom::Window;
use gridsched_geom::hetero::{
    ClassOrder, RateClassLists, RateClasses, RatedIndex, RatedPeriod, ScanLists, StartOrderedList,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn draw(rng: &mut ChaCha8Rng, lo: f64, hi: f64, grid: bool) -> f64 {
    let x = rng.random_range(lo..hi);
    if grid { (x * 2.0).round() / 2.0 } else { x }
}

#[derive(Debug, Clone, Copy)]
struct Scenario {
    seed: u64,
    servers: u32,
    classes: usize,
    grid: bool,
    steps: usize,
}

/// Runs the fast structure and the oracle side by side on one online schedule.
fn run(s: Scenario, order: Option<ClassOrder>) {
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
    let distinct: Vec<f64> = (0..s.classes)
        .map(|c| {
            if s.grid {
                0.1 + 0.2 * c as f64
            } else {
                rng.random_range(0.05..=1.0)
            }
        })
        .collect();
    let rates: Vec<f64> = (0..s.servers)
        .map(|i| distinct[i as usize % s.classes])
        .collect();
    let cls = RateClasses::from_server_rates(&rates).unwrap();
    let mut fast: Box<dyn RatedIndex> = match order {
        None => Box::new(StartOrderedList::new(cls.clone())),
        Some(o) => Box::new(RateClassLists::new(cls.clone(), o)),
    };
    let mut oracle = match order {
        None => ScanLists::ff_hu(cls.clone()),
        Some(o) => ScanLists::ff_ha(cls.clone(), o),
    };
    let add = |fast: &mut Box<dyn RatedIndex>, oracle: &mut ScanLists, p: RatedPeriod| {
        fast.insert(p);
        oracle.insert(p);
    };
    for (server, &rate) in rates.iter().enumerate() {
        let class = cls.class_of(rate).unwrap();
        let mut t = draw(&mut rng, 0.0, 3.0, s.grid);
        for _ in 0..rng.random_range(0..12) {
            let gap = draw(&mut rng, 0.5, 8.0, s.grid).max(0.5);
            add(
                &mut fast,
                &mut oracle,
                RatedPeriod::new(t, t + gap, server as u32, class, rate),
            );
            t += gap + draw(&mut rng, 0.5, 6.0, s.grid).max(0.5);
        }
        add(
            &mut fast,
            &mut oracle,
            RatedPeriod::new(t, f64::INFINITY, server as u32, class, rate),
        );
    }
    let mut now = 0.0;
    let mut windows = Vec::new();
    for step in 0..s.steps {
        now += draw(&mut rng, 0.0, 1.5, s.grid);
        for p in oracle.periods() {
            if p.end <= now {
                assert!(oracle.remove(&p));
                assert!(fast.remove(&p));
            }
        }
        let ready = now + draw(&mut rng, 0.0, 40.0, s.grid);
        let length = draw(&mut rng, 0.5, 6.0, s.grid).max(0.5);
        // Some deadlines no class can meet (FF-HA still scans such a class, and counts it).
        let deadline = ready + length + draw(&mut rng, 0.0, 25.0, s.grid);
        let w = Window::new(ready, length, deadline).unwrap();
        cls.windows(&w, &mut windows);
        let want = oracle.select(&windows);
        let got = fast.select(&windows);
        assert_eq!(got, want, "{order:?} step {step} job {w:?} {s:?}");
        assert_eq!(
            fast.operations(),
            oracle.operations(),
            "{order:?}: operation count, step {step} job {w:?} {s:?}"
        );
        if let Some(p) = got {
            let rw = windows[p.class as usize];
            let rate = cls.rate(p.class as usize);
            let start = rw.start_in(&p);
            let end = start + rw.duration;
            // The fast structure books through `carve` (the leading fragment overwrites the
            // period in place), the oracle through removal and insertions.
            let lead = (start > now && rate * (start - p.start) >= 0.1)
                .then(|| RatedPeriod::new(p.start, start, p.server, p.class, rate));
            let trail = (p.end == f64::INFINITY || rate * (p.end - end) >= 0.1)
                .then(|| RatedPeriod::new(end, p.end, p.server, p.class, rate));
            assert!(oracle.remove(&p));
            for f in [lead, trail].into_iter().flatten() {
                oracle.insert(f);
            }
            assert!(fast.carve(&p, lead, trail));
        }
        if step % 25 == 0 {
            assert_eq!(fast.periods(), oracle.periods());
            let by_class: usize = (0..cls.len()).map(|h| fast.class_len(h)).sum();
            assert_eq!(by_class, fast.len());
            for h in 0..cls.len() {
                assert_eq!(fast.class_len(h), oracle.class_len(h), "class {h}");
            }
            assert_eq!(fast.len(), oracle.len());
        }
    }
}

fn check_all(s: Scenario) {
    run(s, None);
    run(s, Some(ClassOrder::Ascending));
    run(s, Some(ClassOrder::Descending));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Small systems: one block per class, many ties on the grid.
    #[test]
    fn small_systems_match_the_list_scan(
        seed in any::<u64>(),
        servers in 1u32..14,
        classes in 1usize..4,
        grid in any::<bool>(),
    ) {
        let classes = classes.min(servers as usize);
        check_all(Scenario { seed, servers, classes, grid, steps: 150 });
    }

    /// Hundreds of servers: many blocks per class, splits and merges as the clock moves on.
    #[test]
    fn large_systems_match_the_list_scan(
        seed in any::<u64>(),
        servers in 100u32..600,
        classes in 1usize..4,
        grid in any::<bool>(),
    ) {
        check_all(Scenario { seed, servers, classes, grid, steps: 200 });
    }
}
