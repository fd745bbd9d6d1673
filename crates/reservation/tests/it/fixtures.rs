//! The worked examples of Castillo (2008) ch. 3 as golden tests (spec §6, fixtures F3.1–F3.3).
//! Times are the spec's instantiation of the thesis's symbolic t_1 < t_2 < ...

use gridsched_geom::{IdlePeriod, Window};
use gridsched_reservation::{
    Booking, MinTipReading, ReservationScheduler, SchedulerConfig, Step2Start, Strategy,
};

type Reservations = Vec<Vec<(f64, f64)>>;

fn scheduler(
    res: &Reservations,
    strategy: Strategy,
    tweak: impl Fn(&mut SchedulerConfig),
) -> ReservationScheduler {
    let mut config = SchedulerConfig::new(res.len() as u32, strategy);
    tweak(&mut config);
    ReservationScheduler::with_reservations(config, res).unwrap()
}

fn decide(res: &Reservations, strategy: Strategy, job: (f64, f64, f64)) -> Option<Booking> {
    decide_with(res, strategy, job, |_| {})
}

fn decide_with(
    res: &Reservations,
    strategy: Strategy,
    job: (f64, f64, f64),
    tweak: impl Fn(&mut SchedulerConfig),
) -> Option<Booking> {
    let mut s = scheduler(res, strategy, tweak);
    s.submit(0.0, &Window::new(job.0, job.1, job.2).unwrap())
        .unwrap()
}

fn booked(server: u32, start: f64, len: f64) -> Option<Booking> {
    Some(Booking {
        server,
        start,
        end: start + len,
    })
}

/// F3.1 — Fig. 3.1: 2 servers, immediate deadline; only Y = [5, 9) on S1 fits; LACT rejects.
fn f3_1() -> Reservations {
    vec![
        vec![(0.0, 1.0), (3.0, 5.0), (9.0, 11.0)],
        vec![(0.0, 2.0), (4.0, 7.0), (8.0, 10.0)],
    ]
}

#[test]
fn f3_1_every_gap_aware_strategy_takes_y_lact_drops() {
    let job = (6.0, 2.0, 8.0);
    for strategy in Strategy::ALL {
        let want = if strategy == Strategy::Lact {
            None
        } else {
            booked(0, 6.0, 2.0)
        };
        assert_eq!(decide(&f3_1(), strategy, job), want, "{strategy}");
    }
    let narrative = decide_with(&f3_1(), Strategy::MinTip, job, |c| {
        c.options.min_tip = MinTipReading::Narrative
    });
    assert_eq!(narrative, booked(0, 6.0, 2.0));
}

#[test]
fn f3_1_fragments_after_placement() {
    let mut s = scheduler(&f3_1(), Strategy::MinLip, |_| {});
    s.submit(0.0, &Window::new(6.0, 2.0, 8.0).unwrap()).unwrap();
    let s1: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 0)
        .collect();
    assert_eq!(
        s1,
        vec![
            IdlePeriod::new(1.0, 3.0, 0),
            IdlePeriod::new(5.0, 6.0, 0),
            IdlePeriod::new(8.0, 9.0, 0),
            IdlePeriod::tail(11.0, 0)
        ]
    );
}

/// F3.2 — Fig. 3.2: 3 servers, Y (S1, R1, strip 2), V (S2, R1, P's own strip), Z (S3, R2).
fn f3_2(z_end_job_start: f64) -> Reservations {
    vec![
        vec![(0.0, 1.0), (3.0, 5.0), (9.5, 11.0)],
        vec![(0.0, 2.0), (2.0, 6.2), (8.5, 12.5)],
        vec![(0.0, 4.0), (4.0, 7.5), (z_end_job_start, 14.0)],
    ]
}

const F3_2_JOB: (f64, f64, f64) = (6.5, 1.5, 12.0);

#[test]
fn f3_2_table() {
    let res = f3_2(9.4);
    let cases = [
        (Strategy::MinLip, booked(2, 7.5, 1.5)), // Z by step 1 (range-restricted: not V)
        (Strategy::BestFit, booked(2, 7.5, 1.5)), // Z, shortest (1.9)
        (Strategy::FirstFit, booked(0, 6.5, 1.5)), // Y, earliest start
        (Strategy::MaxLip, booked(0, 6.5, 1.5)), // Y
        (Strategy::Lact, None),                  // min completion 11 + 1.5 > 12
        (Strategy::MinTip, booked(0, 8.0, 1.5)), // mirror: Y, ending at 9.5
    ];
    for (strategy, want) in cases {
        assert_eq!(decide(&res, strategy, F3_2_JOB), want, "{strategy}");
    }
    let narrative = |c: &mut SchedulerConfig| c.options.min_tip = MinTipReading::Narrative;
    let got = decide_with(&res, Strategy::MinTip, F3_2_JOB, narrative).unwrap();
    assert_eq!(got.server, 2);
    assert!((got.start - 7.9).abs() < 1e-12, "{got:?}");
}

#[test]
fn f3_2_fragments() {
    // Min-LIP into Z: the 0.4 trailing fragment is discarded.
    let mut s = scheduler(&f3_2(9.4), Strategy::MinLip, |_| {});
    s.submit(0.0, &Window::new(6.5, 1.5, 12.0).unwrap())
        .unwrap();
    let s3: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 2)
        .collect();
    assert_eq!(s3, vec![IdlePeriod::tail(14.0, 2)]);
    // First-fit into Y keeps both fragments [5, 6.5) and [8, 9.5).
    let mut s = scheduler(&f3_2(9.4), Strategy::FirstFit, |_| {});
    s.submit(0.0, &Window::new(6.5, 1.5, 12.0).unwrap())
        .unwrap();
    let s1: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 0)
        .collect();
    assert_eq!(
        s1,
        vec![
            IdlePeriod::new(1.0, 3.0, 0),
            IdlePeriod::new(5.0, 6.5, 0),
            IdlePeriod::new(8.0, 9.5, 0),
            IdlePeriod::tail(11.0, 0)
        ]
    );
    // Min-TIP (mirror) into Y keeps the leading [5, 8) only.
    let mut s = scheduler(&f3_2(9.4), Strategy::MinTip, |_| {});
    s.submit(0.0, &Window::new(6.5, 1.5, 12.0).unwrap())
        .unwrap();
    let s1: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 0)
        .collect();
    assert_eq!(s1[1], IdlePeriod::new(5.0, 8.0, 0));
    assert_eq!(s1.len(), 3);
}

/// F3.2b — Z shortened to 1.4 (< l): Min-LIP's two readings of step 2 differ (spec A7).
#[test]
fn f3_2b_step2_readings() {
    let res = f3_2(8.9);
    assert_eq!(
        decide(&res, Strategy::MinLip, F3_2_JOB),
        booked(1, 6.5, 1.5)
    ); // V
    let literal = |c: &mut SchedulerConfig| c.options.step2_start = Step2Start::StripAbove;
    assert_eq!(
        decide_with(&res, Strategy::MinLip, F3_2_JOB, literal),
        booked(0, 6.5, 1.5)
    ); // Y
    assert_eq!(
        decide(&res, Strategy::BestFit, F3_2_JOB),
        booked(1, 6.5, 1.5)
    ); // V
    assert_eq!(
        decide(&res, Strategy::FirstFit, F3_2_JOB),
        booked(0, 6.5, 1.5)
    ); // Y
    // Both of V's fragments (0.3 and 0.5) are discarded: S2 keeps only its tail.
    let mut s = scheduler(&res, Strategy::MinLip, |_| {});
    s.submit(0.0, &Window::new(6.5, 1.5, 12.0).unwrap())
        .unwrap();
    let s2: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 1)
        .collect();
    assert_eq!(s2, vec![IdlePeriod::tail(12.5, 1)]);
}

/// F3.2c — a guard against the O(1) max-length test in the deadline's strip (spec A8).
#[test]
fn f3_2c_drop_when_only_the_tail_is_long_enough() {
    let res = vec![f3_2(9.4)[0].clone()];
    for strategy in Strategy::ALL {
        assert_eq!(decide(&res, strategy, (9.0, 1.5, 12.2)), None, "{strategy}");
    }
}

/// F3.3 — Fig. 3.3: the second strip [2, 4) holds X, Y, Z, V; the job (r = 4.5, l = 2) fits
/// only Y, Z and V; Min-LIP's R1 search returns V (latest start).
fn f3_3() -> Reservations {
    vec![
        vec![(0.0, 2.0), (6.2, 100.0)], // X = [2, 6.2)
        vec![(0.0, 2.8), (6.5, 100.0)], // Y = [2.8, 6.5)
        vec![(0.0, 2.8), (9.0, 100.0)], // Z = [2.8, 9)
        vec![(0.0, 3.4), (7.5, 100.0)], // V = [3.4, 7.5)
    ]
}

#[test]
fn f3_3_r1_queries() {
    let job = (4.5, 2.0, 8.0);
    assert_eq!(decide(&f3_3(), Strategy::MinLip, job), booked(3, 4.5, 2.0)); // V
    assert_eq!(decide(&f3_3(), Strategy::BestFit, job), booked(1, 4.5, 2.0)); // Y (3.7)
    assert_eq!(
        decide(&f3_3(), Strategy::FirstFit, job),
        booked(1, 4.5, 2.0)
    ); // Y (tie with Z)
    let mut s = scheduler(&f3_3(), Strategy::MinLip, |_| {});
    s.submit(0.0, &Window::new(4.5, 2.0, 8.0).unwrap()).unwrap();
    let v: Vec<IdlePeriod> = s
        .idle_periods()
        .into_iter()
        .filter(|p| p.server == 3)
        .collect();
    // Leading [3.4, 4.5) = 1.1 and trailing [6.5, 7.5) = 1.0 are both kept.
    assert_eq!(
        v[..2],
        [IdlePeriod::new(3.4, 4.5, 3), IdlePeriod::new(6.5, 7.5, 3)]
    );
}
