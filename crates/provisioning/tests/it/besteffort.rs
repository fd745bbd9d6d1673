//! The best-effort baseline (spec §2.4) and provisioning end to end on small simulated sites.

use gridsched_batch::{Config, Job, Platform, Policy, Simulator, Time};
use gridsched_provisioning::besteffort;
use gridsched_provisioning::{App, MogaConfig, provision};
use gridsched_workflow::{EdgeSource, Location, TransferModel, Workflow, WorkflowBuilder};
use rand::SeedableRng;

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
fn just_in_time_on_an_idle_site_follows_the_critical_path() {
    // a (2p, 100) → b (1p, 50), c (3p, 70) → d (1p, 10): on 4 idle processors b and c
    // cannot run together (4 > 4? 1 + 3 = 4: they can).
    let wf = dag(
        &[
            ("a", 100.0, 2),
            ("b", 50.0, 1),
            ("c", 70.0, 3),
            ("d", 10.0, 1),
        ],
        &[("a", "b", 0), ("a", "c", 0), ("b", "d", 0), ("c", "d", 0)],
    );
    let app = App::from_workflow(&wf, &TransferModel::none());
    let mut sites = [site(4, vec![], 1000)];
    let be = besteffort::run(&app, &mut sites).unwrap();
    assert_eq!(be.makespan, 100 + 70 + 10);
    // Each task is submitted when its last parent ends.
    let d = &be.tasks[3];
    assert_eq!((d.1, d.2, d.3), (1170, 1170, 1180));
    assert_eq!(be.cost, (200.0 + 50.0 + 210.0 + 10.0) / 3600.0);
}

#[test]
fn background_jobs_delay_the_tasks_queue_waits() {
    let wf = dag(&[("a", 100.0, 2), ("b", 100.0, 2)], &[("a", "b", 0)]);
    let app = App::from_workflow(&wf, &TransferModel::none());
    // A background job holds 3 of 4 processors over [0, 500); another arrives at 150 and is
    // planned before b is submitted (at 600).
    let bg = vec![Job::new(1, 0, 3, 500), Job::new(2, 150, 4, 300)];
    let mut sites = [site(4, bg, 0)];
    let be = besteffort::run(&app, &mut sites).unwrap();
    // a waits for job 1: [500, 600); job 2 was planned at 600 (conservative: after a), so b
    // starts at 900.
    assert_eq!(be.tasks[0].2, 500);
    assert_eq!(be.tasks[1].1, 600);
    assert_eq!(be.tasks[1].2, 900);
    assert_eq!(be.makespan, 1000);
}

#[test]
fn multi_site_takes_the_least_loaded_site_and_waits_for_data() {
    // a → b with a 1000 Gb edge (250 s at 10 Gbps + 150 s).
    let wf = dag(
        &[("a", 100.0, 1), ("b", 100.0, 1)],
        &[("a", "b", 125_000_000_000)],
    );
    let app = App::from_workflow(&wf, &TransferModel::singh_multisite());
    // a goes to site 0 (both idle: the lowest index). When it ends at 100, site 0 starts a
    // background job, site 1 is idle: b goes to site 1 and is submitted when a's data has
    // arrived (100 + 250 s).
    let s0 = site(2, vec![Job::new(1, 50, 2, 1000)], 0);
    let s1 = site(2, vec![], 0);
    let mut sites = [s0, s1];
    let be = besteffort::run(&app, &mut sites).unwrap();
    assert_eq!(be.tasks[0].0, 0);
    assert_eq!(be.tasks[1].0, 1);
    assert_eq!(be.tasks[1].1, 350);
    assert_eq!(be.makespan, 450);
}

#[test]
fn provisioned_plans_cost_at_least_best_effort_and_include_its_schedule() {
    // A 6-task workflow on a loaded 16-processor site.
    let wf = dag(
        &[
            ("a", 600.0, 4),
            ("b", 1200.0, 8),
            ("c", 900.0, 2),
            ("d", 300.0, 6),
            ("e", 1500.0, 3),
            ("f", 200.0, 1),
        ],
        &[
            ("a", "b", 0),
            ("a", "c", 0),
            ("b", "d", 0),
            ("c", "e", 0),
            ("d", "f", 0),
            ("e", "f", 0),
        ],
    );
    let app = App::from_workflow(&wf, &TransferModel::none());
    let bg: Vec<Job> = (0..40)
        .map(|i| {
            Job::new(
                i,
                i as Time * 97,
                1 + (i as u32 * 7) % 12,
                300 + (i as Time * 131) % 2400,
            )
        })
        .collect();
    let sites = [site(16, bg, 1800)];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let p = provision(&app, &sites, &MogaConfig::default(), &mut rng).unwrap();
    assert!(!p.moga.archive.is_empty());
    for m in &p.moga.archive {
        // Ch. 3 prices: a plan pays at least the best-effort cost (eq. 16, §2.6.6).
        assert!(m.eval.ac >= app.best_effort_cost() - 1e-9, "{:?}", m.eval);
    }
    let (m, s) = p.plan(&app, 0.5).unwrap();
    assert_eq!(Some(m.eval), Some(s.evaluation));
    // Every task placed inside the plan's slots, after its parents.
    for (i, t) in s.tasks.iter().enumerate() {
        let t = t.unwrap();
        for &(par, _) in app.parents(i as u32) {
            assert!(s.tasks[par as usize].unwrap().end <= t.start);
        }
        assert!(t.start >= 1800);
    }
}
