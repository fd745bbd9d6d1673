//! The chapter-5 co-allocation scheduler: fixtures F5.2b (retries) and F5.2c (hold), property
//! tests against a brute-force scheduler that uses the literal pseudo-code, ARs, and a run on
//! the real KTH log with a full audit.

use std::cmp::Reverse;

use gridsched_geom::coalloc::literal::{literal_search, quantum_members};
use gridsched_geom::coalloc::{CoallocPeriod, OPEN_END};
use gridsched_reservation::coalloc::{
    ArSelect, CoallocConfig, CoallocPick, CoallocRequest, CoallocScheduler, HoldMode, LengthField,
    MAX_QUANTA, MAX_RANGE_TREE_SERVERS, MAX_SERVERS, QuantizedIndex, audit,
    make_advance_reservations, requests_from_swf,
};
use proptest::prelude::*;
use rand::SeedableRng;

fn fig_5_1(horizon: i64) -> CoallocScheduler {
    let cfg = CoallocConfig {
        servers: 4,
        quantum: 10,
        horizon,
        retry_step: 5,
        ..CoallocConfig::default()
    };
    let mut s = CoallocScheduler::new(cfg).unwrap();
    for (server, a, b) in [
        (0, 0, 4),
        (0, 25, 37),
        (1, 0, 15),
        (1, 35, 40),
        (2, 0, 12),
        (2, 30, 45),
        (3, 0, 2),
        (3, 20, 33),
    ] {
        s.index_mut().reserve_on(server, a, b).unwrap();
    }
    s
}

fn request(n: u32) -> CoallocRequest {
    CoallocRequest {
        id: 1,
        submit: 17,
        start: 17,
        length: 12,
        servers: n,
        batch_wait: None,
    }
}

fn servers_of(run: &gridsched_reservation::coalloc::CoallocRun) -> Vec<u32> {
    run.assignments.iter().map(|a| a.0).collect()
}

#[test]
fn f5_2_no_retry() {
    let run = fig_5_1(100).run(&[request(2)], true).unwrap();
    let o = run.outcomes[0];
    assert_eq!((o.start, o.retries, o.holds, o.wait_req()), (17, 0, 0, 0));
    assert_eq!(servers_of(&run), vec![1, 2], "Y (S2) and Z (S3)");
}

#[test]
fn f5_2b_five_retries() {
    let s = fig_5_1(100);
    let run = s.run(&[request(3)], true).unwrap();
    let o = run.outcomes[0];
    assert_eq!(o.start, 42, "s' = 42");
    assert_eq!(o.wait_req(), 25, "W = 25");
    assert_eq!(o.retries, 5);
    assert_eq!(o.holds, 0);
    assert_eq!(o.attempts, 6);
    assert_eq!(
        servers_of(&run),
        vec![1, 0, 3],
        "S2 (exit leaf), then S1 and S4"
    );
}

#[test]
fn f5_2c_hold_then_success() {
    let run = fig_5_1(80).run(&[request(3)], true).unwrap();
    let o = run.outcomes[0];
    assert_eq!(
        o.start, 97,
        "re-submitted at q_r + H = 97 and served at once"
    );
    assert_eq!(o.wait_req(), 80);
    assert_eq!(o.retries, 4, "maxRet = Q/2 = 4");
    assert_eq!(o.holds, 1);
    assert_eq!(servers_of(&run), vec![2, 1, 0], "S3, S2, then S1");
}

#[test]
fn sizes_the_index_cannot_hold_are_refused_before_allocating() {
    let err = |cfg: CoallocConfig| CoallocScheduler::new(cfg).unwrap_err().to_string();
    // 2^31 servers tried to allocate about 100 GB and aborted.
    assert_eq!(
        err(CoallocConfig {
            servers: 1 << 31,
            ..CoallocConfig::default()
        }),
        "2147483648 servers: the index holds at most 16777216 (about 48 bytes each)"
    );
    assert!(
        err(CoallocConfig {
            servers: MAX_RANGE_TREE_SERVERS + 1,
            range_tree_budget: Some(64),
            ..CoallocConfig::default()
        })
        .contains("with the range tree the index holds at most 1048576")
    );
    // 8.64e9 one-second quanta tried to allocate 550 GB.
    let e = err(CoallocConfig {
        servers: 4,
        quantum: 1,
        horizon: 100_000 * 86_400,
        ..CoallocConfig::default()
    });
    assert!(
        e.contains("holds 4294967295 quanta of 1 s: at most 65536"),
        "{e}"
    );
    assert!(
        err(CoallocConfig {
            servers: 4,
            quantum: 1,
            horizon: i64::MAX,
            ..CoallocConfig::default()
        })
        .contains("at most 65536")
    );
    // The limits themselves are accepted.
    let edge = CoallocConfig {
        servers: 4,
        quantum: 1,
        horizon: i64::from(MAX_QUANTA),
        ..CoallocConfig::default()
    };
    assert_eq!(edge.quanta(), MAX_QUANTA);
    assert!(CoallocScheduler::new(edge).is_ok());
    assert!(
        CoallocConfig {
            servers: MAX_SERVERS,
            ..CoallocConfig::default()
        }
        .validate()
        .is_ok()
    );
    assert!(
        QuantizedIndex::new(MAX_SERVERS + 1, 900, 200, 1, 0)
            .unwrap_err()
            .to_string()
            .contains("at most 16777216")
    );
    assert!(QuantizedIndex::new(4, 900, MAX_QUANTA + 1, 1, 0).is_err());
}

#[test]
fn config_and_input_validation() {
    assert!(
        CoallocScheduler::new(CoallocConfig {
            servers: 0,
            ..CoallocConfig::default()
        })
        .is_err()
    );
    assert!(
        CoallocScheduler::new(CoallocConfig {
            quantum: 0,
            servers: 2,
            ..CoallocConfig::default()
        })
        .is_err()
    );
    let cfg = CoallocConfig {
        servers: 2,
        ..CoallocConfig::default()
    };
    assert_eq!(cfg.quanta(), 200);
    assert_eq!(cfg.max_ret(), 100);
    let bad = [CoallocRequest {
        start: 5,
        submit: 10,
        ..request(1)
    }];
    let e = CoallocScheduler::new(cfg)
        .unwrap()
        .run(&bad, false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("before the submit"), "{e}");
    let too_big = [request(3), request(1)];
    let run = CoallocScheduler::new(cfg)
        .unwrap()
        .run(&too_big, false)
        .unwrap();
    assert_eq!(run.too_large, vec![0]);
    assert_eq!(run.outcomes.len(), 1);
}

#[test]
fn advance_reservations_are_nested_across_rho() {
    let base: Vec<CoallocRequest> = (0..2000)
        .map(|i| CoallocRequest {
            id: i,
            submit: i as i64 * 10,
            start: i as i64 * 10,
            length: 5,
            servers: 1,
            batch_wait: None,
        })
        .collect();
    let ar = |rho: f64, sel: ArSelect| {
        let mut v = base.clone();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = make_advance_reservations(&mut v, rho, sel, 10_800, &mut rng);
        (v, n)
    };
    let (half, n_half) = ar(0.5, ArSelect::Bernoulli);
    let (all, n_all) = ar(1.0, ArSelect::Bernoulli);
    let (none, n_none) = ar(0.0, ArSelect::Bernoulli);
    assert_eq!((n_all, n_none), (2000, 0));
    assert!((900..1100).contains(&n_half), "{n_half}");
    assert_eq!(none, base);
    for ((h, a), b) in half.iter().zip(&all).zip(&base) {
        assert!(a.start >= b.submit && a.start <= b.submit + 10_800);
        assert!(
            h.start == b.start || h.start == a.start,
            "nested, same lead"
        );
    }
    let (_, exact) = ar(0.3, ArSelect::ExactFraction);
    assert_eq!(exact, 600);
}

/// A held request in the oracle: (time, seq, index, q, s, retries, holds, ops, attempts).
type Held = (i64, u64, usize, i64, i64, u32, u32, u64, u32);

/// A brute-force scheduler: every idle period in a plain vector, the quantum's members
/// recomputed by definition, the choice by the literal pseudo-code on explicit trees, and
/// feasibility cross-checked by counting free servers.
fn oracle_run(cfg: &CoallocConfig, requests: &[CoallocRequest]) -> Vec<(i64, u32, u32, u64, u32)> {
    let lq = cfg.quantum;
    let qn = i64::from(cfg.quanta());
    let mut live: Vec<CoallocPeriod> = (0..cfg.servers)
        .map(|s| CoallocPeriod {
            start: 0,
            end: OPEN_END,
            server: s,
        })
        .collect();
    let mut out = vec![None; requests.len()];
    let mut pending: Vec<Held> = Vec::new();
    let mut seq = 0;
    let mut next = 0;
    let mut current = 0i64;
    loop {
        pending.sort_by_key(|p| Reverse((p.0, p.1)));
        let arrival = requests.get(next).map(|r| r.submit);
        let held_first = match (pending.last(), arrival) {
            (Some(p), Some(a)) => p.0 <= a,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (t, i, mut q, mut s, mut retries, mut holds, mut ops, mut attempts) = if held_first {
            let p = pending.pop().unwrap();
            (p.0, p.2, p.3, p.4, p.5, p.6, p.7, p.8)
        } else {
            let r = requests[next];
            next += 1;
            if r.servers > cfg.servers {
                continue;
            }
            (r.submit, next - 1, r.submit, r.start, 0, 0, 0, 0)
        };
        let r = requests[i];
        current = current.max(t.div_euclid(lq));
        let mut a = 0;
        loop {
            attempts += 1;
            let e = s + r.length;
            let qs = s.div_euclid(lq);
            let free = live.iter().filter(|p| p.contains(s, e)).count();
            let ok = if qs > current + qn {
                false
            } else {
                let members = quantum_members(&live, qs, lq);
                let lit = literal_search(&members, s, e, r.servers as usize);
                ops += lit.visits;
                assert_eq!(
                    lit.success,
                    free >= r.servers as usize,
                    "feasibility by brute force"
                );
                if lit.success {
                    for c in &lit.chosen {
                        let k = live.iter().position(|p| p == c).unwrap();
                        live.swap_remove(k);
                        if s - c.start >= cfg.min_fragment {
                            live.push(CoallocPeriod {
                                start: c.start,
                                end: s,
                                server: c.server,
                            });
                        }
                        if c.end == OPEN_END || c.end - e >= cfg.min_fragment {
                            live.push(CoallocPeriod {
                                start: e,
                                end: c.end,
                                server: c.server,
                            });
                        }
                    }
                }
                lit.success
            };
            if ok {
                out[i] = Some((s, retries, holds, ops, attempts));
                break;
            }
            if a < cfg.max_ret() && qs <= current + qn {
                a += 1;
                retries += 1;
                s += cfg.retry_step;
            } else {
                holds += 1;
                q += cfg.horizon;
                s = match cfg.hold_mode {
                    HoldMode::Latest => s.max(q),
                    HoldMode::KeepLead => q + (r.start - r.submit),
                };
                pending.push((q, seq, i, q, s, retries, holds, ops, attempts));
                seq += 1;
                break;
            }
        }
        // Keep the oracle's state small: periods that ended before the current quantum are dead.
        live.retain(|p| p.end == OPEN_END || p.end > current * lq);
    }
    out.into_iter().flatten().collect()
}

fn requests_strategy() -> impl Strategy<Value = Vec<CoallocRequest>> {
    proptest::collection::vec((0i64..6, 0i64..12, 1i64..30, 1u32..5), 1..40).prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, lead, length, servers))| {
                t += gap;
                CoallocRequest {
                    id: i as u64,
                    submit: t,
                    start: t + lead,
                    length,
                    servers,
                    batch_wait: None,
                }
            })
            .collect()
    })
}

/// Body of the wide-job properties: `width[i]` servers asked by request `i`, arriving after
/// `gaps[i].0`, with lead `gaps[i].1` and length `gaps[i].2`; the run must pass the audit and
/// equal the brute-force scheduler job by job.
fn wide_jobs_equal_the_brute_force_scheduler(
    servers: u32,
    quantum: i64,
    quanta: i64,
    width: Vec<u32>,
    gaps: Vec<(i64, i64, i64)>,
    range_tree_budget: Option<usize>,
) -> Result<(), TestCaseError> {
    let cfg = CoallocConfig {
        servers,
        quantum,
        horizon: quantum * quanta,
        retry_step: 2,
        range_tree_budget,
        ..CoallocConfig::default()
    };
    let mut t = 0;
    let requests: Vec<CoallocRequest> = width
        .iter()
        .zip(&gaps)
        .enumerate()
        .map(|(i, (&w, &(gap, lead, length)))| {
            t += gap;
            CoallocRequest {
                id: i as u64,
                submit: t,
                start: t + lead,
                length,
                servers: w,
                batch_wait: None,
            }
        })
        .collect();
    let run = CoallocScheduler::new(cfg)
        .unwrap()
        .run(&requests, true)
        .unwrap();
    prop_assert!(
        audit(&requests, &run).is_ok(),
        "{:?}",
        audit(&requests, &run)
    );
    let got: Vec<(i64, u32, u32, u64, u32)> = run
        .outcomes
        .iter()
        .map(|o| (o.start, o.retries, o.holds, o.ops, o.attempts))
        .collect();
    prop_assert_eq!(got, oracle_run(&cfg, &requests));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The scheduler equals the brute-force literal scheduler job by job (start, retries, holds,
    /// operation count, attempts), and its schedule passes the audit.
    #[test]
    fn scheduler_equals_the_brute_force_literal_scheduler(
        servers in 1u32..5,
        quantum in 1i64..6,
        quanta in 2i64..10,
        step in 1i64..6,
        keep_lead in any::<bool>(),
        requests in requests_strategy(),
    ) {
        let cfg = CoallocConfig {
            servers,
            quantum,
            horizon: quantum * quanta,
            retry_step: step,
            hold_mode: if keep_lead { HoldMode::KeepLead } else { HoldMode::Latest },
            ..CoallocConfig::default()
        };
        let max_lead = cfg.horizon - 2 * cfg.quantum;
        let result = CoallocScheduler::new(cfg).unwrap().run(&requests, true);
        if keep_lead && requests.iter().any(|r| r.start - r.submit > max_lead) {
            // Such a request would be held forever: refused up front, never a hang.
            prop_assert!(result.is_err());
            return Ok(());
        }
        let run = result.unwrap();
        prop_assert!(audit(&requests, &run).is_ok(), "{:?}", audit(&requests, &run));
        let got: Vec<(i64, u32, u32, u64, u32)> =
            run.outcomes.iter().map(|o| (o.start, o.retries, o.holds, o.ops, o.attempts)).collect();
        prop_assert_eq!(got, oracle_run(&cfg, &requests));
        for o in &run.outcomes {
            prop_assert!(o.start >= o.requested_start);
        }
    }

    /// Wide jobs on a larger machine (issue 18: a reservation updates each touched period list
    /// in one pass): still the brute-force scheduler's result job by job.
    #[test]
    fn wide_jobs_on_many_servers_equal_the_brute_force_scheduler(
        servers in 16u32..96,
        quantum in 2i64..6,
        quanta in 3i64..8,
        width in prop::collection::vec(1u32..96, 1..30),
        gaps in prop::collection::vec((0i64..4, 0i64..10, 1i64..25), 30),
    ) {
        wide_jobs_equal_the_brute_force_scheduler(servers, quantum, quanta, width, gaps, None)?;
    }

    /// The same on machines of 400–1,500 servers, whose period lists span many chunks of the
    /// index's storage (issue 18: the lists are read by rank and updated chunk by chunk).
    #[test]
    fn wide_jobs_on_large_machines_equal_the_brute_force_scheduler(
        servers in 400u32..1500,
        quantum in 2i64..6,
        quanta in 3i64..8,
        width in prop::collection::vec(prop_oneof![1u32..64, 1u32..1500], 1..30),
        gaps in prop::collection::vec((0i64..4, 0i64..10, 1i64..25), 30),
    ) {
        wide_jobs_equal_the_brute_force_scheduler(servers, quantum, quanta, width, gaps, None)?;
    }

    /// The same with the optional range tree answering the large Phase-2 groups (issue 18: the
    /// bounded index changes the cost, never a job's outcome).
    #[test]
    fn wide_jobs_with_the_range_tree_equal_the_brute_force_scheduler(
        servers in 400u32..1500,
        quantum in 2i64..6,
        quanta in 3i64..8,
        width in prop::collection::vec(prop_oneof![1u32..64, 1u32..1500], 1..30),
        gaps in prop::collection::vec((0i64..4, 0i64..10, 1i64..25), 30),
        budget in prop_oneof![Just(0usize), 1usize..300],
    ) {
        wide_jobs_equal_the_brute_force_scheduler(servers, quantum, quanta, width, gaps, Some(budget))?;
    }

    /// The alternative picks also give valid schedules.
    #[test]
    fn other_picks_are_valid(
        pick in prop_oneof![Just(CoallocPick::LatestStart), Just(CoallocPick::MinEnd)],
        requests in requests_strategy(),
    ) {
        let cfg = CoallocConfig { servers: 3, quantum: 3, horizon: 24, retry_step: 3, pick, ..CoallocConfig::default() };
        let run = CoallocScheduler::new(cfg).unwrap().run(&requests, true).unwrap();
        prop_assert!(audit(&requests, &run).is_ok());
        prop_assert_eq!(run.outcomes.len() + run.too_large.len(), requests.len());
    }
}

#[test]
fn kth_prefix_is_valid_and_deterministic() {
    use gridsched_workload::swf::{SwfLoadOptions, data_dir, load_swf, trace_path};
    let data = data_dir(None);
    if !data.join("traces").is_dir() {
        eprintln!(
            "NOTICE: no traces/ in {}; skipping the KTH run",
            data.display()
        );
        return;
    }
    let log = load_swf(
        &trace_path(&data, "KTH"),
        SwfLoadOptions { limit: Some(3000) },
    )
    .unwrap();
    let (requests, _) = requests_from_swf(&log.jobs, LengthField::Run);
    let cfg = CoallocConfig {
        servers: 128,
        ..CoallocConfig::default()
    };
    let a = CoallocScheduler::new(cfg)
        .unwrap()
        .run(&requests, true)
        .unwrap();
    audit(&requests, &a).unwrap();
    assert_eq!(a.outcomes.len(), 3000);
    let b = CoallocScheduler::new(cfg)
        .unwrap()
        .run(&requests, false)
        .unwrap();
    assert_eq!(a.outcomes, b.outcomes);
}
