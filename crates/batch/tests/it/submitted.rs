//! The hooks an application runner uses on top of a background trace: jobs submitted while the
//! simulation runs report their completions, and the running jobs and live reservations can
//! be listed.

use gridsched_batch::{Config, Job, Platform, Policy, Simulator};

#[test]
fn submitted_jobs_report_their_completions_in_order() {
    let trace = vec![Job::new(1, 0, 2, 100), Job::new(2, 10, 4, 50)];
    let mut sim = Simulator::with_jobs(
        Platform::cluster(4).unwrap(),
        Config::new(Policy::Conservative),
        trace,
    )
    .unwrap();
    sim.run_until(5);
    let a = sim.submit(Job::new(10, 5, 2, 30)).unwrap();
    let b = sim.submit(Job::new(11, 5, 1, 10)).unwrap();
    let mut done = Vec::new();
    // Both are submitted at the current time: the next step processes them at 5.
    assert_eq!(sim.next_event(), Some(5));
    while sim.step() {
        sim.take_submitted_completions(&mut done);
    }
    // a takes the two free processors; b backfills when a ends, before job 2's place at 100.
    assert_eq!(sim.record(a).start, Some(5));
    assert_eq!(sim.record(b).start, Some(35));
    assert_eq!(done, vec![a, b]);
    // Trace jobs are not reported.
    assert_eq!(done.len(), 2);
}

#[test]
fn running_jobs_and_reservations_are_listed() {
    let trace = vec![Job::new(1, 0, 2, 100).requested(150), Job::new(2, 0, 1, 40)];
    let mut sim = Simulator::with_jobs(
        Platform::cluster(4).unwrap(),
        Config::new(Policy::Conservative).estimates(gridsched_batch::Estimates::Requested),
        trace,
    )
    .unwrap();
    let r = sim.add_reservation(0, 200, 300, 3).unwrap();
    sim.run_until(10);
    let running = sim.running();
    assert_eq!(running.len(), 2);
    assert_eq!((running[0].index, running[0].planned_end), (0, 150));
    assert_eq!((running[1].index, running[1].planned_end), (1, 40));
    let live: Vec<_> = sim.live_reservations().collect();
    assert_eq!(live.len(), 1);
    assert_eq!(
        (live[0].id, live[0].start, live[0].end, live[0].procs),
        (r, 200, 300, 3)
    );
    assert_eq!(sim.planned_run_time(0), 150);
    sim.run_until(300);
    assert_eq!(sim.live_reservations().count(), 0);
}
