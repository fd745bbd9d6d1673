//! The profile against a brute-force level array (small horizons) and against the flat layout
//! (`flat.rs`, the oracle): random operation sequences long enough to split, merge and drop
//! chunks, and to switch layouts back and forth, must give identical answers to every query
//! and identical states after every operation. The sequences run with the default switching
//! sizes, with the chunked layout from the first point on (switching sizes 0), and with small
//! switching sizes that make profiles change layout every few dozen operations.

use super::flat::FlatProfile;
use super::*;
use proptest::prelude::*;

/// The brute-force reference: the level at every integer time of a small horizon.
#[derive(Clone)]
struct Levels {
    cap: i64,
    now: Time,
    level: Vec<i64>,
}

impl Levels {
    fn new(cap: i64, horizon: usize) -> Self {
        Levels {
            cap,
            now: 0,
            level: vec![cap; horizon],
        }
    }
    fn add(&mut self, t: Time, d: i64) {
        let from = (t.max(self.now) as usize).min(self.level.len());
        for l in &mut self.level[from..] {
            *l += d;
        }
    }
    fn at(&self, t: Time) -> i64 {
        self.level[(t as usize).min(self.level.len() - 1)]
    }
    fn fits(&self, s: Time, d: Time, p: i64) -> bool {
        (s..s + d).all(|t| self.at(t) >= p)
    }
    fn earliest(&self, from: Time, d: Time, p: i64) -> Option<Time> {
        if p > self.cap {
            return None;
        }
        (from.max(self.now)..self.level.len() as Time).find(|&s| self.fits(s, d, p))
    }
}

#[test]
fn singh_figure_1_profile() {
    // Singh Fig. 1: 5 processors; A(2p,3) at 0, C(1p,2) at 0, B(4p,1) at 3, D(3p,2) at 4.
    for p in [Profile::new(5, 0), Profile::with_switch(5, 0, 0, 0)] {
        singh_figure_1(p);
    }
}

fn singh_figure_1(mut p: Profile) {
    p.reserve(0, 3, 2);
    p.reserve(0, 2, 1);
    p.reserve(3, 4, 4);
    p.reserve(4, 6, 3);
    assert_eq!(p.steps(), vec![(0, 2), (2, 3), (3, 1), (4, 2), (6, 5)]);
    p.validate().unwrap();
    // A new 2p x 2 task: [0,2) has 2 free -> starts at 0.
    assert_eq!(p.earliest_fit(0, 2, 2), Some(0));
    // 3p x 1: first at [2,3).
    assert_eq!(p.earliest_fit(0, 1, 3), Some(2));
    // 3p x 2: [2,3) then [3,4) has 1 -> after 4: [4,6) has 2 -> at 6.
    assert_eq!(p.earliest_fit(0, 2, 3), Some(6));
    assert_eq!(p.earliest_fit(0, 1, 6), None);
    assert_eq!(p.max_free(0, 6), 3);
    assert_eq!(p.min_free(0, 6), 1);
    p.advance(3);
    assert_eq!(p.free_now(), 1);
    assert_eq!(p.steps(), vec![(3, 1), (4, 2), (6, 5)]);
    p.validate().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn matches_brute_force(
        ops in proptest::collection::vec((0u8..4, 0i64..40, 1i64..12, 1u32..6), 1..60),
        switch in prop_oneof![
            Just((GROW_AT, SHRINK_AT)),
            Just((0, 0)),
            (1usize..8).prop_map(|g| (g, g + 1)),
        ],
    ) {
        let cap = 6u32;
        let horizon = 80usize;
        let mut p = Profile::with_switch(cap, 0, switch.0, switch.1);
        let mut b = Levels::new(i64::from(cap), horizon);
        let mut blocks: Vec<(Time, Time, u32)> = Vec::new();
        for (op, t, d, q) in ops {
            match op {
                0 | 1 => {
                    // Reserve at the earliest fit from max(now, t): never overdraws.
                    let from = t.max(p.now());
                    let e = p.earliest_fit(from, d, q);
                    prop_assert_eq!(e, b.earliest(from, d, i64::from(q)));
                    if let Some(s) = e && s + d < horizon as Time {
                        p.reserve(s, s + d, q);
                        b.add(s, -i64::from(q));
                        b.add(s + d, i64::from(q));
                        blocks.push((s, s + d, q));
                    }
                }
                2 => {
                    if let Some(k) = blocks.iter().position(|x| x.0 > p.now()) {
                        let (s, e, q) = blocks.swap_remove(k);
                        p.release(s, e, q);
                        b.add(s, i64::from(q));
                        b.add(e, -i64::from(q));
                    }
                }
                _ => {
                    let to = (p.now() + t / 4).min(horizon as Time - 20);
                    if to >= p.now() {
                        p.advance(to);
                        b.now = to;
                    }
                }
            }
            p.validate().map_err(TestCaseError::fail)?;
            let now = p.now();
            for t in now..now + 30 {
                prop_assert_eq!(p.free_at(t), b.at(t));
            }
            for (a, len) in [(now, 1), (now, 7), (now + 3, 11), (now + 5, 2)] {
                let lv: Vec<i64> = (a..a + len).map(|t| b.at(t)).collect();
                prop_assert_eq!(p.min_free(a, a + len), *lv.iter().min().unwrap());
                prop_assert_eq!(p.max_free(a, a + len), *lv.iter().max().unwrap());
                for q in 1..=cap {
                    prop_assert_eq!(p.fits(a, len, q), b.fits(a, len, i64::from(q)));
                }
            }
            for q in 0..=i64::from(cap) + 1 {
                // The first change after `now` where the level is >= q.
                let want = (now + 1..horizon as Time).find(|&t| b.at(t) != b.at(t - 1) && b.at(t) >= q);
                prop_assert_eq!(p.first_at_least(now, q), want);
            }
        }
    }
}

/// The new profile and the oracle side by side, with the blocks taken so far.
struct Pair {
    new: Profile,
    old: FlatProfile,
    /// A profile with its own history, to test `clone_from` into used arenas.
    spare: Profile,
    blocks: Vec<(Time, Time, u32)>,
    /// Blocks that never end, taken with `add`.
    forever: Vec<(Time, u32)>,
}

/// One operation: kind, then parameters the operation reads as it needs.
type Op = (u8, i64, i64, u32, i64);

/// The same operation on both profiles: identical answers, identical states.
impl Pair {
    fn new(cap: u32, now: Time, (grow, shrink): (usize, usize)) -> Self {
        Pair {
            new: Profile::with_switch(cap, now, grow, shrink),
            old: FlatProfile::new(cap, now),
            spare: Profile::with_switch(cap, now, grow, shrink),
            blocks: Vec::new(),
            forever: Vec::new(),
        }
    }

    fn apply(&mut self, (kind, a, b, c, d): Op, horizon: Time) -> Result<(), TestCaseError> {
        let kind = if kind >= 14 { 1 } else { kind };
        let cap = self.new.capacity();
        let now = self.new.now();
        let procs = 1 + c % cap.max(1);
        match kind {
            // Reserve at the earliest fit (as the schedulers do).
            0..=4 => {
                let from = now + a.rem_euclid(horizon);
                let dur = 1 + b.rem_euclid(horizon / 8);
                let e = self.new.earliest_fit(from, dur, procs);
                prop_assert_eq!(e, self.old.earliest_fit(from, dur, procs));
                if let Some(s) = e {
                    if kind == 0 {
                        prop_assert!(self.new.try_reserve(s, s + dur, procs));
                        prop_assert!(self.old.try_reserve(s, s + dur, procs));
                    } else {
                        self.new.reserve(s, s + dur, procs);
                        self.old.reserve(s, s + dur, procs);
                    }
                    self.blocks.push((s, s + dur, procs));
                }
            }
            // Try an arbitrary block, sometimes between existing change times.
            5 | 6 => {
                let steps = self.old.steps();
                let (s, e) = if kind == 6 && steps.len() > 2 {
                    let i = 1 + a.rem_euclid(steps.len() as i64 - 1) as usize;
                    let j = i + b.rem_euclid(4) as usize;
                    let s = steps[i].0;
                    let e = steps.get(j).map_or(s + 1 + d.rem_euclid(50), |x| x.0);
                    (s, e.max(s + 1))
                } else {
                    let s = now + a.rem_euclid(horizon);
                    (s, s + 1 + b.rem_euclid(horizon / 4))
                };
                let ok = self.new.try_reserve(s, e, procs);
                prop_assert_eq!(
                    ok,
                    self.old.try_reserve(s, e, procs),
                    "try_reserve({}, {}, {})",
                    s,
                    e,
                    procs
                );
                if ok {
                    self.blocks.push((s, e, procs));
                }
            }
            // Give a block (or its rest) back.
            7..=9 if !self.blocks.is_empty() => {
                let (s, e, q) = self
                    .blocks
                    .swap_remove(a.rem_euclid(self.blocks.len() as i64) as usize);
                self.new.release(s, e, q);
                self.old.release(s, e, q);
            }
            // Fold the past.
            10 => {
                let to = now + a.rem_euclid(horizon / 16);
                self.new.advance(to);
                self.old.advance(to);
                self.blocks.retain(|&(_, e, _)| e > to);
            }
            // A block that never ends, if it fits.
            11 => {
                let t = now + a.rem_euclid(horizon);
                let q = 1 + c % 4;
                // Fits if the level is at least `q` at `t` and at every change after it.
                let fits = self.old.free_at(t) >= i64::from(q)
                    && self
                        .old
                        .steps()
                        .iter()
                        .all(|&(x, l)| x <= t || l >= i64::from(q));
                if fits {
                    self.new.add(t, -i64::from(q));
                    self.old.add(t, -i64::from(q));
                    self.forever.push((t, q));
                }
            }
            12 if !self.forever.is_empty() => {
                let (t, q) = self
                    .forever
                    .swap_remove(a.rem_euclid(self.forever.len() as i64) as usize);
                self.new.add(t, i64::from(q));
                self.old.add(t, i64::from(q));
            }
            // Copy through a used profile.
            13 => {
                self.spare.clone_from(&self.new);
                std::mem::swap(&mut self.spare, &mut self.new);
                let copy = self.old.clone();
                self.old = copy;
            }
            _ => {}
        }
        self.check_state()
    }

    fn check_state(&self) -> Result<(), TestCaseError> {
        let (n, o) = (&self.new, &self.old);
        prop_assert_eq!(n.steps(), o.steps());
        prop_assert_eq!(n.len(), o.len());
        prop_assert_eq!(n.is_empty(), o.is_empty());
        prop_assert_eq!(n.now(), o.now());
        prop_assert_eq!(n.free_now(), o.free_now());
        prop_assert_eq!(n.capacity(), o.capacity());
        n.validate().map_err(TestCaseError::fail)?;
        o.validate().map_err(TestCaseError::fail)?;
        Ok(())
    }

    /// Every query with parameters drawn from `(a, b, c, d)`, on both profiles.
    fn query(&self, (_, a, b, c, d): Op, horizon: Time) -> Result<(), TestCaseError> {
        let (n, o) = (&self.new, &self.old);
        let now = n.now();
        let cap = i64::from(n.capacity());
        // Times from a little before now (the queries clamp) to past the last block.
        let t = now - 3 + a.rem_euclid(horizon + 6);
        let dur = b.rem_euclid(horizon / 4); // zero included
        let p = i64::from(c) % (cap + 2); // zero and more than the machine included
        let procs = p as u32;
        let hi = t + d.rem_euclid(horizon / 2);
        let limit = t + (d / 3).rem_euclid(horizon);
        prop_assert_eq!(n.free_at(t.max(now)), o.free_at(t.max(now)));
        prop_assert_eq!(n.first_below(t, hi, p), o.first_below(t, hi, p));
        prop_assert_eq!(n.first_at_least(t, p), o.first_at_least(t, p));
        prop_assert_eq!(n.first_below_from(t, hi, p), o.first_below_from(t, hi, p));
        prop_assert_eq!(
            n.fits(t.max(now), dur, procs),
            o.fits(t.max(now), dur, procs)
        );
        prop_assert_eq!(n.earliest_fit(t, dur, procs), o.earliest_fit(t, dur, procs));
        prop_assert_eq!(
            n.earliest_fit_before(t, dur, procs, limit),
            o.earliest_fit_before(t, dur, procs, limit),
            "earliest_fit_before({}, {}, {}, {})",
            t,
            dur,
            procs,
            limit
        );
        prop_assert_eq!(n.next_change(t), o.next_change(t));
        let (lo, up) = (t.max(now), hi.max(t.max(now) + 1));
        prop_assert_eq!(n.min_free(lo, up), o.min_free(lo, up));
        prop_assert_eq!(n.max_free(lo, up), o.max_free(lo, up));
        // Again with change times as the ends, as the schedulers ask (a block's own ends).
        let steps = o.steps();
        let i = a.rem_euclid(steps.len() as i64) as usize;
        let j = i + 1 + b.rem_euclid(70) as usize;
        let (ta, tb) = (steps[i].0, steps.get(j).map_or(steps[i].0 + 1, |x| x.0));
        prop_assert_eq!(n.min_free(ta, tb), o.min_free(ta, tb));
        prop_assert_eq!(n.max_free(ta, tb), o.max_free(ta, tb));
        prop_assert_eq!(n.first_below(ta, tb, p), o.first_below(ta, tb, p));
        prop_assert_eq!(n.first_below_from(ta, tb, p), o.first_below_from(ta, tb, p));
        prop_assert_eq!(n.fits(ta, tb - ta, procs), o.fits(ta, tb - ta, procs));
        prop_assert_eq!(
            n.earliest_fit(ta, tb - ta, procs),
            o.earliest_fit(ta, tb - ta, procs)
        );
        prop_assert_eq!(
            n.earliest_fit_before(ta, tb - ta, procs, tb),
            o.earliest_fit_before(ta, tb - ta, procs, tb)
        );
        prop_assert_eq!(n.next_change(ta), o.next_change(ta));
        prop_assert_eq!(n.first_at_least(ta, p), o.first_at_least(ta, p));
        Ok(())
    }
}

/// Operations of kinds `0..kinds` (every kind from 14 on is a reservation at the earliest
/// fit, so a larger `kinds` grows the profile to more chunks).
fn ops(kinds: u8, len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<(Op, Op)>> {
    let op = (
        0u8..kinds,
        any::<i64>(),
        any::<i64>(),
        any::<u32>(),
        any::<i64>(),
    );
    proptest::collection::vec((op.clone(), op), len)
}

/// Switching sizes: the defaults, chunked from the first point on, or no gap at a size drawn
/// among those the sequences reach (chunked above `g` points, flat at `g` or fewer: the
/// layout changes at every crossing).
fn switch() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![
        Just((GROW_AT, SHRINK_AT)),
        Just((0, 0)),
        (4usize..250).prop_map(|g| (g, g + 1)),
    ]
}

fn run_against_oracle(
    cap: u32,
    horizon: Time,
    seq: &[(Op, Op)],
    switch: (usize, usize),
) -> Result<(), TestCaseError> {
    let mut pair = Pair::new(cap, 1_000, switch);
    for (i, &(op, q)) in seq.iter().enumerate() {
        pair.apply(op, horizon)?;
        pair.query(q, horizon)?;
        if std::env::var("PROFILE_TEST_SIZES").is_ok() && i % 200 == 0 {
            eprintln!(
                "{} points, chunked: {}",
                pair.new.len(),
                pair.new.is_chunked()
            );
        }
        // Re-draw the spare's history now and then.
        if i % 97 == 0 {
            pair.spare.reserve(
                pair.spare.now() + 1 + i as Time,
                pair.spare.now() + 2 + i as Time,
                1,
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Hundreds of blocks on a wide machine: many chunks, splits and merges.
    #[test]
    fn equals_flat_oracle_large(seq in ops(14, 200..2500), switch in switch()) {
        run_against_oracle(64, 40_000, &seq, switch)?;
    }

    /// Mostly reservations on a long horizon: profiles of a thousand points and more.
    #[test]
    fn equals_flat_oracle_deep(seq in ops(40, 1000..4000), switch in switch()) {
        run_against_oracle(256, 400_000, &seq, switch)?;
    }

    /// Few processors and a short horizon: many shared change times, drops of flat points
    /// and chunks emptied.
    #[test]
    fn equals_flat_oracle_dense(seq in ops(14, 50..1200), switch in switch()) {
        run_against_oracle(5, 600, &seq, switch)?;
    }
}
