//! The reservation-strategy extension point (`PeriodChooser`): the built-in strategies run
//! through it (a scheduler built from a strategy's `RuleSteps` by `with_chooser` books every
//! request exactly as `new` does, on both indexes), a chooser of one's own gives valid
//! schedules, and a chooser's bad answer is refused with an error instead of corrupting the
//! index.

#[allow(dead_code)]
#[path = "../../examples/least_waste.rs"]
mod least_waste;

use gridsched_geom::{IdlePeriod, Window};
use gridsched_reservation::{
    IndexKind, PeriodChooser, Periods, Placement, ReservationScheduler, RuleSteps, ScheduleAudit,
    SchedulerConfig, Strategy, SubmitError,
};
use gridsched_sim::StreamKey;
use gridsched_workload::{Request, ReservationWorkload};
use least_waste::LeastWaste;

fn requests(servers: u32, n: usize, seed: u64) -> Vec<Request> {
    let workload = ReservationWorkload::castillo_ch3(servers, 0.9);
    workload
        .stream(&StreamKey::new(seed, "chooser-test"))
        .unwrap()
        .take(n)
        .collect()
}

/// The built-in strategy's own steps, handed in from outside: same bookings, same operation
/// counts.
#[derive(Debug)]
struct Outside(RuleSteps);

impl PeriodChooser for Outside {
    fn rules(&self) -> Vec<gridsched_geom::Rule> {
        self.0.rules()
    }
    fn choose(&mut self, p: &mut Periods<'_>, w: &Window) -> Option<(IdlePeriod, Placement)> {
        self.0.choose(p, w)
    }
}

#[test]
fn built_in_strategies_run_through_the_chooser_api() {
    let reqs = requests(8, 4000, 3);
    for strategy in Strategy::ALL.into_iter().filter(|s| s.uses_idle_periods()) {
        for index in [IndexKind::Tree, IndexKind::Linear] {
            let mut config = SchedulerConfig::new(8, strategy);
            config.index = index;
            let mut builtin = ReservationScheduler::new(config).unwrap();
            let steps = config.options.rule_steps(strategy);
            let mut outside =
                ReservationScheduler::with_chooser(config, Box::new(Outside(steps))).unwrap();
            for r in &reqs {
                let a = builtin.submit(r.arrival, &r.window).unwrap();
                let b = outside.submit(r.arrival, &r.window).unwrap();
                assert_eq!(a, b, "{} on {index:?}", strategy.name());
            }
            assert_eq!(builtin.operations(), outside.operations());
        }
    }
}

#[test]
fn a_chooser_of_ones_own_gives_valid_schedules() {
    let reqs = requests(6, 3000, 5);
    for index in [IndexKind::Tree, IndexKind::Linear] {
        let mut config = SchedulerConfig::new(6, Strategy::BestFit);
        config.index = index;
        let mut s =
            ReservationScheduler::with_chooser(config, Box::new(LeastWaste { useful: 2.0 }))
                .unwrap();
        let mut audit = ScheduleAudit::new();
        let mut accepted = 0;
        for (i, r) in reqs.iter().enumerate() {
            let b = s.submit(r.arrival, &r.window).unwrap();
            accepted += usize::from(b.is_some());
            audit.record(i, r, b.as_ref());
        }
        assert_eq!(audit.violations(), Vec::<String>::new());
        assert!(accepted > reqs.len() / 2, "{accepted} of {}", reqs.len());
    }
}

#[test]
fn bad_answers_are_refused() {
    #[derive(Debug)]
    struct Invent;
    impl PeriodChooser for Invent {
        fn choose(&mut self, _: &mut Periods<'_>, w: &Window) -> Option<(IdlePeriod, Placement)> {
            // A period nobody has: server 0 idle over exactly the window, from a made-up start.
            Some((
                IdlePeriod::new(w.ready - 0.5, w.deadline, 0),
                Placement::Early,
            ))
        }
    }
    #[derive(Debug)]
    struct TooShort;
    impl PeriodChooser for TooShort {
        fn choose(&mut self, p: &mut Periods<'_>, w: &Window) -> Option<(IdlePeriod, Placement)> {
            // A live period, but one that ends before the job could.
            let mut any = p.feasible(&Window::new(0.0, 1.0, 1000.0).unwrap());
            let first = any.remove(0);
            let _ = w;
            Some((
                IdlePeriod::new(first.start, first.start + 0.5, first.server),
                Placement::Early,
            ))
        }
    }
    let config = SchedulerConfig::new(2, Strategy::FirstFit);
    let w = Window::new(1.0, 2.0, 10.0).unwrap();
    let mut s = ReservationScheduler::with_chooser(config, Box::new(Invent)).unwrap();
    let e = s.submit(0.0, &w).unwrap_err();
    assert!(matches!(e, SubmitError::Chooser(_)), "{e}");
    // Nothing was carved: the built-in First-fit on the same state still books the job.
    let state = s.state();
    assert_eq!(state.idle_periods.len(), 2);
    let mut s = ReservationScheduler::with_chooser(config, Box::new(TooShort)).unwrap();
    let e = s.submit(0.0, &w).unwrap_err();
    assert!(e.to_string().contains("does not admit"), "{e}");
    // LACT keeps no idle periods: no chooser.
    let lact = SchedulerConfig::new(2, Strategy::Lact);
    assert!(ReservationScheduler::with_chooser(lact, Box::new(Invent)).is_err());
}
