//! The pricer as it was before the incremental replays (issue 32): every Figure 22
//! evaluation clones the fixed blocks, adds the slot and schedules the whole queue again,
//! conservative backfilling by searching every job from `now`, EASY by a round at every
//! change point testing every waiting job. It is the oracle of the fast paths: the unit tests
//! below require identical planned starts and quotes on random states.

use gridsched_batch::{Profile, Time};

use super::{PricingPolicy, QueuedJob, Quote, SiteState};
use crate::slot::HOUR;

/// The whole queue scheduled on `profile` (fixed blocks and any slot) under `policy`.
pub(super) fn schedule(
    profile: &mut Profile,
    state: &SiteState,
    policy: PricingPolicy,
) -> Vec<Time> {
    let now = state.now;
    let queue = &state.queue;
    match policy {
        PricingPolicy::Conservative => queue
            .iter()
            .map(|q| {
                let s = profile.earliest_fit(now, q.run, q.procs).unwrap();
                profile.reserve(s, s + q.run, q.procs);
                s
            })
            .collect(),
        PricingPolicy::Easy => {
            let mut out = vec![Time::MIN; queue.len()];
            let mut waiting: Vec<u32> = (0..queue.len() as u32).collect();
            easy_forward(profile, now, queue, &mut waiting, &mut out);
            out
        }
    }
}

/// The planned starts without a slot.
pub(super) fn planned(state: &SiteState, policy: PricingPolicy) -> Vec<Time> {
    schedule(&mut state.base_profile(), state, policy)
}

/// Figure 22 at a feasible start, by a full re-schedule.
pub(super) fn price(
    state: &SiteState,
    policy: PricingPolicy,
    start: Time,
    procs: u32,
    dur: Time,
) -> Quote {
    let planned = planned(state, policy);
    let end = start + dur;
    let overlaps = planned
        .iter()
        .zip(&state.queue)
        .any(|(&s, q)| s < end && start < s + q.run);
    if !overlaps {
        return Quote {
            start,
            price: 0.0,
            delayed: 0,
        };
    }
    let mut profile = state.base_profile();
    profile.reserve(start, end, procs);
    let starts = schedule(&mut profile, state, policy);
    let mut area: i128 = 0;
    let mut delayed = 0;
    for ((&v, &w), q) in planned.iter().zip(&starts).zip(&state.queue) {
        if w > v {
            area += i128::from(q.procs) * i128::from(w - v);
            delayed += 1;
        }
    }
    Quote {
        start,
        price: area as f64 / HOUR as f64,
        delayed,
    }
}

/// EASY forward with a round at every change point, every waiting job tested in every round.
fn easy_forward(
    profile: &mut Profile,
    now: Time,
    queue: &[QueuedJob],
    waiting: &mut Vec<u32>,
    out: &mut [Time],
) {
    let mut t = now;
    let mut head = 0usize;
    loop {
        profile.advance(t);
        while head < waiting.len() {
            let q = queue[waiting[head] as usize];
            if !profile.fits(t, q.run, q.procs) {
                break;
            }
            profile.reserve(t, t + q.run, q.procs);
            out[waiting[head] as usize] = t;
            head += 1;
        }
        if head == waiting.len() {
            return;
        }
        let h = queue[waiting[head] as usize];
        let shadow = profile.earliest_fit(t, h.run, h.procs).unwrap();
        profile.reserve(shadow, shadow + h.run, h.procs);
        let mut kept = head + 1;
        for k in head + 1..waiting.len() {
            let j = waiting[k];
            let q = queue[j as usize];
            if profile.free_now() >= i64::from(q.procs) && profile.fits(t, q.run, q.procs) {
                profile.reserve(t, t + q.run, q.procs);
                out[j as usize] = t;
            } else {
                waiting[kept] = j;
                kept += 1;
            }
        }
        waiting.truncate(kept);
        profile.release(shadow, shadow + h.run, h.procs);
        t = profile.next_change(t).unwrap();
    }
}

mod tests {
    use proptest::prelude::*;

    use super::super::{Pricer, PricingPolicy, QueuedJob, SiteState};
    use crate::holes::Busy;
    use gridsched_batch::{Profile, Time};

    /// A random site: fixed blocks that fit the capacity (a block that would overfill is
    /// dropped), a queue of jobs no wider than the site.
    fn state_strategy() -> impl Strategy<Value = SiteState> {
        (1u32..=12, 0i64..20).prop_flat_map(|(cap, now)| {
            (
                Just(cap),
                Just(now),
                prop::collection::vec((0i64..60, 1i64..40, 1u32..=cap), 0..8),
                prop::collection::vec((1u32..=cap, 1i64..30), 0..40),
            )
                .prop_map(|(cap, now, blocks, queue)| {
                    let mut p = Profile::new(cap, 0);
                    let mut fixed = Vec::new();
                    for (s, d, n) in blocks {
                        if p.min_free(s, s + d) >= i64::from(n) {
                            p.reserve(s, s + d, n);
                            fixed.push(Busy {
                                start: s,
                                end: s + d,
                                procs: n,
                            });
                        }
                    }
                    let queue = queue
                        .into_iter()
                        .enumerate()
                        .map(|(i, (procs, run))| QueuedJob {
                            id: i as u64,
                            procs,
                            run,
                        })
                        .collect();
                    SiteState::new(cap, now, fixed, queue).unwrap()
                })
        })
    }

    fn policy(easy: bool) -> PricingPolicy {
        if easy {
            PricingPolicy::Easy
        } else {
            PricingPolicy::Conservative
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// The incremental replays (conservative: checkpoints, unchanged jobs kept, searches
        /// from the base's earliest fit; EASY: rounds skipped until a job can be ready) give
        /// the full re-schedule's planned starts and the same quote at every candidate start
        /// of a random request, and at random feasible starts.
        #[test]
        fn fast_pricing_equals_the_full_replay(
            state in state_strategy(),
            easy in any::<bool>(),
            req in (1u32..=12, 1i64..40),
            extra in prop::collection::vec(0i64..150, 0..6),
        ) {
            let policy = policy(easy);
            let procs = req.0.min(state.capacity());
            let mut pricer = Pricer::new(state.clone(), policy);
            let planned = super::planned(&state, policy);
            prop_assert_eq!(pricer.planned_starts(), planned.as_slice());
            let quotes = pricer.query(procs, req.1, None).unwrap();
            for q in &quotes {
                prop_assert_eq!(*q, super::price(&state, policy, q.start, procs, req.1));
            }
            for alpha in [0.0, 0.3, 1.0] {
                let (q, n) = pricer.query_choose(procs, req.1, None, alpha).unwrap();
                prop_assert_eq!(n, quotes.len());
                prop_assert_eq!(q, quotes[super::super::choose(&quotes, alpha).unwrap()]);
            }
            for dt in extra {
                let t = state.now() + dt;
                if let Some(q) = pricer.price(t, procs, req.1).unwrap() {
                    prop_assert_eq!(q, super::price(&state, policy, t, procs, req.1));
                }
            }
        }
    }

    /// Long queues on a wide site, where checkpoints and skipped rounds matter most.
    #[test]
    fn fast_pricing_equals_the_full_replay_on_long_queues() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(32);
        for case in 0..40 {
            let cap = rng.random_range(16..=128u32);
            let mut p = Profile::new(cap, 0);
            let mut fixed = Vec::new();
            for _ in 0..rng.random_range(0..30) {
                let (s, d, n) = (
                    rng.random_range(0..5_000i64),
                    rng.random_range(1..3_000i64),
                    rng.random_range(1..=cap / 2),
                );
                if p.min_free(s, s + d) >= i64::from(n) {
                    p.reserve(s, s + d, n);
                    fixed.push(Busy {
                        start: s,
                        end: s + d,
                        procs: n,
                    });
                }
            }
            let queue: Vec<QueuedJob> = (0..rng.random_range(50..250u64))
                .map(|id| QueuedJob {
                    id,
                    procs: if rng.random_bool(0.5) {
                        rng.random_range(1..=4)
                    } else {
                        rng.random_range(1..=cap)
                    },
                    run: rng.random_range(1..4_000),
                })
                .collect();
            let state = SiteState::new(cap, 0, fixed, queue).unwrap();
            for easy in [false, true] {
                let policy = policy(easy);
                let mut pricer = Pricer::new(state.clone(), policy);
                assert_eq!(
                    pricer.planned_starts(),
                    super::planned(&state, policy),
                    "case {case}"
                );
                let procs = rng.random_range(1..=cap);
                let dur: Time = rng.random_range(1..5_000);
                let quotes = pricer.query(procs, dur, None).unwrap();
                for &q in &quotes {
                    assert_eq!(
                        q,
                        super::price(&state, policy, q.start, procs, dur),
                        "case {case}, {easy}"
                    );
                }
                for alpha in [0.0, 0.5, 1.0] {
                    let k = super::super::choose(&quotes, alpha).unwrap();
                    assert_eq!(
                        pricer.query_choose(procs, dur, None, alpha).unwrap(),
                        (quotes[k], quotes.len())
                    );
                }
            }
        }
    }
}
