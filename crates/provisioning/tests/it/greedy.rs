//! Greedy provisioning with adaptive pricing (spec §2.14, Figure 51): a hand-worked case, and
//! properties on random workflows over random loaded sites: α = 1 costs exactly the
//! best-effort cost (every chosen price 0), precedence and transfers hold, reservations fit
//! around running jobs and fixed reservations, and α = 0 finishes every task at the earliest
//! finish brute force finds.

use gridsched_batch::{Config, Job, Platform, Policy, Simulator, Time};
use gridsched_provisioning::{App, Pricer, PricingPolicy, SiteState, besteffort, provision_greedy};
use gridsched_workflow::{EdgeSource, Location, TransferModel, Workflow, WorkflowBuilder};
use proptest::prelude::*;

fn dag(tasks: &[(String, f64, u32)], edges: &[(String, String, u64)]) -> Workflow {
    let mut b = WorkflowBuilder::new("<test>");
    for (id, rt, p) in tasks {
        b.add_task(id, id, *rt, *p, Location::None).unwrap();
    }
    for (a, c, bytes) in edges {
        let (a, c) = (b.find(a).unwrap(), b.find(c).unwrap());
        b.add_edge(a, c, *bytes);
    }
    b.build(EdgeSource::Explicit).unwrap()
}

fn site(cap: u32, background: Vec<Job>, at: Time) -> Simulator {
    let mut s = Simulator::with_jobs(
        Platform::cluster(cap).unwrap(),
        Config::new(Policy::Conservative),
        background,
    )
    .unwrap();
    s.run_until(at);
    s
}

#[test]
fn a_chain_on_a_loaded_site_trades_price_for_finish() {
    // 4 processors at time 100: a background job holds 2 until 1000, another (4 p, 500 s)
    // waits for it, planned at [1000, 1500). The workflow: a (2 p, 300 s) → b (2 p, 300 s).
    let s = site(
        4,
        vec![Job::new(1, 0, 2, 1000), Job::new(2, 50, 4, 500)],
        100,
    );
    let t = |id: &str, rt, p| (id.to_string(), rt, p);
    let wf = dag(
        &[t("a", 300.0, 2), t("b", 300.0, 2)],
        &[("a".into(), "b".into(), 0)],
    );
    let app = App::from_workflow(&wf, &TransferModel::none());
    // α = 0: a at 100 (free now, delays nobody: it ends at 400), b at 400 (ends at 700 <
    // 1000): nobody is delayed, makespan 600 s, cost Σ n·d = 2·300·2 / 3600 SU.
    let mut sites = [s.clone()];
    let g = provision_greedy(&app, &mut sites, PricingPolicy::Conservative, 0.0).unwrap();
    assert_eq!(g.makespan, 600);
    assert_eq!(g.cost, 1200.0 / 3600.0);
    assert!(g.reservations.iter().all(|r| r.price == 0.0));
    // The reservations are in the site's schedule: the background job 2 still starts at 1000.
    let mut after = sites[0].clone();
    after.run();
    assert_eq!(after.record(1).start, Some(1000));
}

#[test]
fn a_reservation_that_must_delay_the_queue_is_priced_and_alpha_one_waits() {
    // 4 processors at 0: job 1 holds 2 until 1000; job 2 (4 p, 500 s) is planned at 1000.
    // Task a (2 p, 1200 s) started now would run into job 2's plan: job 2 → 1200 (+200 s × 4
    // p = 800 p·s). α = 0 takes it (finish 1200); α = 1 waits until 1500 (finish 2700, free).
    let s = site(4, vec![Job::new(1, 0, 2, 1000), Job::new(2, 0, 4, 500)], 0);
    let wf = dag(&[("a".to_string(), 1200.0, 2)], &[]);
    let app = App::from_workflow(&wf, &TransferModel::none());
    let g0 = provision_greedy(&app, &mut [s.clone()], PricingPolicy::Conservative, 0.0).unwrap();
    assert_eq!((g0.reservations[0].start, g0.makespan), (0, 1200));
    assert_eq!(g0.reservations[0].price, 800.0 / 3600.0);
    assert_eq!(g0.cost, (2400.0 + 800.0) / 3600.0);
    let g1 = provision_greedy(&app, &mut [s], PricingPolicy::Conservative, 1.0).unwrap();
    assert_eq!(
        (g1.reservations[0].start, g1.reservations[0].price),
        (1500, 0.0)
    );
    assert_eq!(g1.cost, app.best_effort_cost());
}

/// A random layered workflow of up to `n` tasks, each with 1–2 parents in the previous level.
fn workflow_strategy(max_procs: u32) -> impl Strategy<Value = Workflow> {
    prop::collection::vec(
        (
            1u32..=3,
            prop::collection::vec((100u32..2000, 1u32..=max_procs), 3),
        ),
        1..4,
    )
    .prop_flat_map(|levels| {
        let widths: Vec<u32> = levels.iter().map(|l| l.0).collect();
        let parents = prop::collection::vec((0u32..3, 0u32..3, 0u64..4), 12);
        (Just(levels), Just(widths), parents)
    })
    .prop_map(|(levels, widths, parents)| {
        let mut tasks = Vec::new();
        let mut edges = Vec::new();
        let mut prev: Vec<String> = Vec::new();
        let mut k = 0;
        for (li, (w, specs)) in levels.iter().enumerate() {
            let mut cur = Vec::new();
            for (i, spec) in specs.iter().take(*w as usize).enumerate() {
                let id = format!("t{li}_{i}");
                tasks.push((id.clone(), f64::from(spec.0), spec.1));
                if !prev.is_empty() {
                    let (a, b, gb) = parents[k % parents.len()];
                    k += 1;
                    let pa = prev[a as usize % prev.len()].clone();
                    let pb = prev[b as usize % prev.len()].clone();
                    edges.push((pa.clone(), id.clone(), gb * 1_250_000_000));
                    if pb != pa {
                        edges.push((pb, id.clone(), 0));
                    }
                }
                cur.push(id);
            }
            prev = cur;
        }
        let _ = widths;
        dag(&tasks, &edges)
    })
}

fn background_strategy(cap: u32) -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..3000, 1u32..=cap, 100i64..3000), 0..12).prop_map(|v| {
        let mut v: Vec<Job> = v
            .into_iter()
            .enumerate()
            .map(|(i, (s, p, r))| Job::new(i as u64 + 1, s, p, r))
            .collect();
        v.sort_by_key(|j| (j.submit, j.id));
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn greedy_plans_are_feasible_and_alpha_one_costs_best_effort(
        wf in workflow_strategy(6),
        bg0 in background_strategy(6),
        bg1 in background_strategy(8),
        two in any::<bool>(),
        alpha in prop::sample::select(vec![0.0, 0.3, 0.7, 1.0]),
    ) {
        let transfer = if two { TransferModel::singh_multisite() } else { TransferModel::none() };
        let app = App::from_workflow(&wf, &transfer);
        let at = 1500;
        let mut sites = vec![site(6, bg0, at)];
        if two {
            sites.push(site(8, bg1, at));
        }
        let before = sites.clone();
        let g = provision_greedy(&app, &mut sites, PricingPolicy::Conservative, alpha).unwrap();
        // Every real task reserved once, after its parents (plus transfers across resources).
        let mut by_task = vec![None; app.len()];
        for r in &g.reservations {
            prop_assert!(by_task[r.task as usize].is_none());
            by_task[r.task as usize] = Some(*r);
            prop_assert!(r.start >= at && r.end - r.start == app.duration(r.task));
            prop_assert!(r.price >= 0.0);
            for &(p, c) in app.parents(r.task) {
                if let Some(pr) = by_task[p as usize] {
                    let lag = if pr.resource != r.resource { c } else { 0 };
                    prop_assert!(pr.end + lag <= r.start, "{pr:?} before {r:?}");
                }
            }
        }
        for t in 0..app.len() as u32 {
            let real = app.procs(t) > 0 && app.duration(t) > 0;
            prop_assert_eq!(by_task[t as usize].is_some(), real);
        }
        // The reservations fit together around running jobs (the simulators accepted them)
        // and the cost adds up.
        let area: f64 = g.reservations.iter()
            .map(|r| f64::from(r.procs) * (r.end - r.start) as f64 / 3600.0 + r.price).sum();
        prop_assert!((g.cost - area).abs() < 1e-9);
        prop_assert!(g.cost >= app.best_effort_cost() - 1e-9);
        if alpha == 1.0 {
            prop_assert!(g.reservations.iter().all(|r| r.price == 0.0));
            prop_assert_eq!(g.cost, app.best_effort_cost());
        }
        // α = 0: every task finishes at the earliest finish any resource allows then, found
        // by scanning every start second from its ready time (on the schedule as it was when
        // the task was placed: replay the reservations in order).
        if alpha == 0.0 {
            let mut replay = before.clone();
            for r in &g.reservations {
                let mut best = Time::MAX;
                for (k, s) in replay.iter().enumerate() {
                    if s.platform().machines()[0].cpus < r.procs {
                        continue;
                    }
                    let ready = app.parents(r.task).iter().map(|&(p, c)| {
                        let pr = by_task[p as usize];
                        match pr {
                            Some(pr) => pr.end + if pr.resource as usize != k { c } else { 0 },
                            None => at,
                        }
                    }).fold(at, Time::max);
                    let pricer = Pricer::new(SiteState::of(s).unwrap(), PricingPolicy::Conservative);
                    let d = r.end - r.start;
                    let first = (ready..).find(|&t| pricer.is_feasible(t, r.procs, d)).unwrap();
                    best = best.min(first + d);
                }
                prop_assert_eq!(r.end, best, "task {}", r.task);
                replay[r.resource as usize].add_reservation(0, r.start, r.end, r.procs).unwrap();
            }
        }
        // The best-effort run of the same workflow still works on the untouched clones.
        let mut be_sites = before;
        prop_assert!(besteffort::run(&app, &mut be_sites).is_ok());
    }
}
