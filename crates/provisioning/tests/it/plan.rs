//! Plan evaluation on hand-made DAGs (spec §2.6) and MOGA's archive (spec §2.7, §6 "property
//! test: MOGA archive members never dominate each other").

use gridsched_batch::Time;
use gridsched_provisioning::moga::{self, archive_insert, dominates, fitness};
use gridsched_provisioning::{
    App, Candidate, Evaluation, Evaluator, Member, MogaConfig, OPEN, select,
};
use gridsched_workflow::{EdgeSource, Location, TransferModel, Workflow, WorkflowBuilder};
use proptest::prelude::*;
use rand::SeedableRng;

const H: Time = 3600;

/// `tasks`: (id, runtime s, procs); `edges`: (parent, child, bytes).
fn dag(tasks: &[(&str, f64, u32)], edges: &[(&str, &str, u64)]) -> Workflow {
    let mut b = WorkflowBuilder::new("<test>");
    for &(id, rt, p) in tasks {
        b.add_task(id, id, rt, p, Location::None).unwrap();
    }
    for &(a, c, bytes) in edges {
        let (a, c) = (b.find(a).unwrap(), b.find(c).unwrap());
        b.add_edge(a, c, bytes);
    }
    b.build(EdgeSource::Explicit).unwrap()
}

fn slot(resource: u32, start: Time, end: Time, procs: u32) -> Candidate {
    let open = end == OPEN;
    Candidate {
        resource,
        start,
        end,
        procs,
        divisible: open,
        extensible: open,
        unit_cost: 1.0,
        fixed_cost: 0.0,
    }
}

/// A chain a → b on one resource: b waits for a; an indivisible slot is charged in full, a
/// divisible one for what is used, an unused one not at all.
#[test]
fn chain_on_one_resource_and_the_charging_rules() {
    let wf = dag(&[("a", H as f64, 2), ("b", H as f64, 1)], &[("a", "b", 0)]);
    let app = App::from_workflow(&wf, &TransferModel::none());
    let cands = [
        slot(0, 0, 3 * H, 2),     // indivisible, 2p x 3h
        slot(0, 0, OPEN, 4),      // edge slot
        slot(0, 5 * H, 6 * H, 8), // unused
    ];
    let mut ev = Evaluator::new(&app, &cands, 0);
    // Only the hole: a [0,1h), b [1h,2h) on its left-over: the hole is charged once, 2 x 3 SU.
    let s = ev.schedule(&[true, false, true]);
    assert_eq!(s.evaluation.sc, Some(2 * H));
    assert_eq!(s.evaluation.ac, 6.0);
    assert_eq!(s.charged, vec![6.0, 0.0, 0.0]);
    // Only the edge slot: charged by use: 2 x 1 + 1 x 1 SU.
    let s = ev.schedule(&[false, true, false]);
    assert_eq!(
        s.evaluation,
        Evaluation {
            ac: 3.0,
            sc: Some(2 * H),
            unscheduled: 0
        }
    );
    // Both: a takes the latest-starting... both start at 0; the tightest (the hole, ending
    // first) is used, so the edge slot stays unused.
    let s = ev.schedule(&[true, true, false]);
    assert_eq!(s.evaluation.ac, 6.0);
    // Only the late hole: a fits at 5h (the hole is charged in full, 8 SU), b does not.
    let e = ev.evaluate(&[false, false, true]);
    assert_eq!(
        e,
        Evaluation {
            ac: 8.0,
            sc: None,
            unscheduled: 1
        }
    );
    // Nothing selected: both unscheduled (b because its parent is).
    let e = ev.evaluate(&[false, false, false]);
    assert_eq!(
        e,
        Evaluation {
            ac: 0.0,
            sc: None,
            unscheduled: 2
        }
    );
    // The best-effort cost is Σ procs × runtime.
    assert_eq!(app.best_effort_cost(), 3.0);
}

/// Two resources and a transfer: the child goes where its earliest start is, counting the
/// transfer when it leaves its parent's resource.
#[test]
fn transfer_between_resources() {
    // 1000 Gb edge at 10 Gbps + 150 s = 250 s.
    let wf = dag(
        &[("a", 100.0, 1), ("b", 100.0, 1), ("c", 100.0, 1)],
        &[("a", "b", 125_000_000_000), ("a", "c", 125_000_000_000)],
    );
    let app = App::from_workflow(&wf, &TransferModel::singh_multisite());
    // Resource 0: one processor, free from 0; resource 1: one processor, free from 0.
    let cands = [slot(0, 0, OPEN, 1), slot(1, 0, OPEN, 1)];
    let mut ev = Evaluator::new(&app, &cands, 0);
    let s = ev.schedule(&[true, true]);
    let t: Vec<_> = s.tasks.iter().map(|p| p.unwrap()).collect();
    assert_eq!((t[0].resource, t[0].start), (0, 0));
    // The first child stays on resource 0 at 100; the second starts at 200 there, or at
    // 100 + 250 = 350 on resource 1: it stays too.
    assert_eq!((t[1].resource, t[1].start), (0, 100));
    assert_eq!((t[2].resource, t[2].start), (0, 200));
    assert_eq!(s.evaluation.sc, Some(300));
    // With resource 0 busy until 1000 for the children (a hole ends at 200), one goes remote.
    let cands = [slot(0, 0, 200, 1), slot(1, 0, OPEN, 1)];
    let mut ev = Evaluator::new(&app, &cands, 0);
    let s = ev.schedule(&[true, true]);
    let t: Vec<_> = s.tasks.iter().map(|p| p.unwrap()).collect();
    assert_eq!((t[1].resource, t[1].start), (0, 100));
    assert_eq!((t[2].resource, t[2].start), (1, 350));
}

/// A task wider than any single slot uses slots stacked vertically over its whole window.
#[test]
fn wide_task_stacks_slots() {
    let wf = dag(&[("a", 10.0, 5)], &[]);
    let app = App::from_workflow(&wf, &TransferModel::none());
    let cands = [slot(0, 0, 5, 4), slot(0, 3, 20, 2), slot(0, 30, OPEN, 5)];
    let mut ev = Evaluator::new(&app, &cands, 0);
    // [0,5) ends too early: 5p from 30.
    assert_eq!(ev.evaluate(&[true, true, true]).sc, Some(40));
    // Without the edge slot no window holds 5 processors.
    assert_eq!(ev.evaluate(&[true, true, false]).sc, None);
}

#[test]
fn alpha_selects_cheapest_and_fastest() {
    let m = |ac: f64, sc: Time| Member {
        genome: vec![],
        eval: Evaluation {
            ac,
            sc: Some(sc),
            unscheduled: 0,
        },
    };
    let archive = vec![m(10.0, 100), m(12.0, 60), m(20.0, 50)];
    assert_eq!(select(&archive, 1.0).unwrap().eval.ac, 10.0);
    assert_eq!(select(&archive, 0.0).unwrap().eval.ac, 20.0);
    // α = 0.5: 0.5·(2/10) + 0.5·(10/50) = 0.2 beats 0.5 and 0.5.
    assert_eq!(select(&archive, 0.5).unwrap().eval.ac, 12.0);
    assert!(select(&[], 0.5).is_none());
}

fn eval_strategy() -> impl Strategy<Value = Evaluation> {
    (
        0u32..20,
        0u32..20,
        prop::option::weighted(0.8, 0i64..20),
        0u32..4,
    )
        .prop_map(|(ac, _, sc, u)| Evaluation {
            ac: f64::from(ac),
            sc,
            unscheduled: if sc.is_some() { 0 } else { u + 1 },
        })
}

proptest! {
    #[test]
    fn archive_members_never_dominate_each_other(evals in prop::collection::vec(eval_strategy(), 0..60)) {
        let mut archive = Vec::new();
        for e in &evals {
            archive_insert(&mut archive, &Member { genome: vec![], eval: *e });
        }
        for a in &archive {
            prop_assert!(a.eval.feasible());
            for b in &archive {
                prop_assert!(!dominates(&a.eval, &b.eval));
            }
        }
        // Every feasible evaluation is in the archive or dominated by (or equal to) a member.
        for e in evals.iter().filter(|e| e.feasible()) {
            prop_assert!(archive.iter().any(|a| dominates(&a.eval, e) || (a.eval.ac == e.ac && a.eval.sc == e.sc)));
        }
    }

    /// Fitness: a member never has less than one it dominates (eq. 10's averaging keeps rank
    /// classes ordered; sharing only moves fitness within a class).
    #[test]
    fn fitness_respects_rank(evals in prop::collection::vec(eval_strategy(), 2..40)) {
        let f = fitness(&evals, 0.041);
        prop_assert!(f.iter().all(|x| x.is_finite() && *x > 0.0));
        let n = evals.len();
        let rank: Vec<usize> = (0..n).map(|i| (0..n).filter(|&j| dominates(&evals[j], &evals[i])).count()).collect();
        // Class totals are F(r)·μ(r), decreasing in rank.
        let mut totals = std::collections::BTreeMap::<usize, f64>::new();
        for i in 0..n { *totals.entry(rank[i]).or_default() += f[i]; }
        let t: Vec<f64> = totals.values().copied().collect();
        let mut count = std::collections::BTreeMap::<usize, f64>::new();
        for &r in &rank { *count.entry(r).or_default() += 1.0; }
        let per: Vec<f64> = t.iter().zip(count.values()).map(|(a, b)| a / b).collect();
        for w in per.windows(2) { prop_assert!(w[0] > w[1] - 1e-9); }
    }
}

/// MOGA on a small instance finds the whole Pareto front that brute force over every subset
/// finds (8 slots: 256 plans, MOGA evaluates 1100), and the same seed gives the same archive
/// whatever the thread count.
#[test]
fn moga_finds_the_brute_force_front_and_is_deterministic() {
    let wf = dag(
        &[
            ("a", 1800.0, 2),
            ("b", 3600.0, 3),
            ("c", 1200.0, 1),
            ("d", 600.0, 2),
        ],
        &[("a", "b", 0), ("a", "c", 0), ("b", "d", 0), ("c", "d", 0)],
    );
    let app = App::from_workflow(&wf, &TransferModel::none());
    let cands = [
        slot(0, 0, 2 * H, 3),
        slot(0, 0, H, 1),
        slot(0, H, 3 * H, 2),
        slot(0, 2 * H, 4 * H, 4),
        slot(0, 0, OPEN, 1),
        slot(0, 3 * H, OPEN, 2),
        slot(0, 5 * H, OPEN, 4),
        slot(0, H / 2, 2 * H, 2),
    ];
    let mut brute = Vec::new();
    let mut ev = Evaluator::new(&app, &cands, 0);
    for mask in 0u32..256 {
        let plan: Vec<bool> = (0..8).map(|k| mask >> k & 1 == 1).collect();
        archive_insert(
            &mut brute,
            &Member {
                genome: plan.clone(),
                eval: ev.evaluate(&plan),
            },
        );
    }
    let front = |a: &[Member]| {
        let mut v: Vec<(u64, Option<Time>)> =
            a.iter().map(|m| (m.eval.ac.to_bits(), m.eval.sc)).collect();
        v.sort_unstable();
        v
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            moga::run(8, &MogaConfig::default(), &mut rng, || {
                let mut e = Evaluator::new(&app, &cands, 0);
                move |g: &[bool]| e.evaluate(g)
            })
        })
    };
    let one = run(1);
    let four = run(4);
    assert_eq!(one, four);
    assert_eq!(one.evaluations, 1100);
    assert_eq!(front(&one.archive), front(&brute));
}
