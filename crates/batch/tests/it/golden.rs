//! Hand-made workloads whose schedules are worked out in the comments: every policy, kills at
//! the requested time, compression after an early completion, fixed reservations, cloning,
//! a heterogeneous grid, the summary and the Batsim CSV.

use gridsched_batch::{
    BATSIM_COLUMNS, Config, Estimates, Job, Machine, MachineSelect, Platform, Policy, Simulator,
    Summary, audit, write_batsim_csv,
};

type Sched = Vec<(u64, i64, i64)>;

/// `(id, start, end)` of every job, by id.
fn schedule(sim: &Simulator) -> Sched {
    let mut v: Sched = sim.outcomes().map(|o| (o.job.id, o.start, o.end)).collect();
    v.sort_unstable();
    v
}

fn run(platform: Platform, config: Config, jobs: Vec<Job>) -> Simulator {
    let mut sim = Simulator::with_jobs(platform.clone(), config, jobs).unwrap();
    sim.run();
    assert!(sim.is_finished());
    let outs: Vec<_> = sim.outcomes().collect();
    audit(&outs, &platform, config.estimates).unwrap();
    sim
}

fn cluster(p: u32) -> Platform {
    Platform::cluster(p).unwrap()
}

/// 4 processors.
/// J1 (0, 2 procs, 10 s) starts at once: 2 left.
/// J2 (0, 4 procs, 5 s) must wait for J1: reservation at 10.
/// J3 (1, 1 proc, 2 s) arrives behind J2.
fn small() -> Vec<Job> {
    vec![
        Job::new(1, 0, 2, 10),
        Job::new(2, 0, 4, 5),
        Job::new(3, 1, 1, 2),
    ]
}

#[test]
fn fcfs_never_overtakes_and_summary() {
    // FCFS: J3 may not pass J2 although it would fit at 1: J2 runs [10, 15), J3 [15, 17).
    let sim = run(cluster(4), Config::new(Policy::Fcfs), small());
    assert_eq!(schedule(&sim), vec![(1, 0, 10), (2, 10, 15), (3, 15, 17)]);
    // waits 0, 10, 14; turnarounds 10, 15, 16; executions 10, 5, 2.
    // slowdown 1, 3, 8 (mean 4); bounded (tau 10): 1, 15/10, 16/10 (mean 1.3667);
    // work 2*10 + 4*5 + 1*2 = 42 over 4 procs x 17 s.
    let outs: Vec<_> = sim.outcomes().collect();
    let s = Summary::new(&outs, sim.platform());
    assert_eq!(s.jobs, 3);
    assert_eq!(s.killed, 0);
    assert!((s.mean_wait - 8.0).abs() < 1e-12);
    assert_eq!(s.median_wait, 10.0);
    assert_eq!(s.max_wait, 14.0);
    assert!((s.mean_slowdown - 4.0).abs() < 1e-12);
    assert!((s.mean_bounded_slowdown - 4.1 / 3.0).abs() < 1e-12);
    assert!((s.utilization - 42.0 / 68.0).abs() < 1e-12);
    assert_eq!(s.makespan, 17);
}

#[test]
fn easy_and_conservative_backfill_the_short_job() {
    // J3 fits the 2 free processors over [1, 3), ending before J2's reservation at 10.
    for p in [Policy::Easy, Policy::Conservative] {
        let sim = run(cluster(4), Config::new(p), small());
        assert_eq!(
            schedule(&sim),
            vec![(1, 0, 10), (2, 10, 15), (3, 1, 3)],
            "{p:?}"
        );
    }
    // Flexible at 0: J2 is shorter (E = 1 against 0) and starts first, [0, 5); J1 waits.
    // At 1: J1 (W = 1, E = 0) ties with J3 (W = 0, E = 1): the earlier arrival, J1, is the
    // head; nothing is free. At 5: W = 1 and 0.8, E = 0 and 1: J3 first, [5, 7), then J1
    // fits the 3 processors left: [5, 15).
    let sim = run(cluster(4), Config::new(Policy::Flexible), small());
    assert_eq!(schedule(&sim), vec![(1, 5, 15), (2, 0, 5), (3, 5, 7)]);
}

/// 4 processors; EASY protects only the head, conservative every queued job.
/// J1 (0, 3 procs, 10 s) runs [0, 10): 1 processor left.
/// J2 (0, 3 procs, 10 s) is the head: reservation [10, 20), leaving 1 processor spare then.
/// J3 (0, 4 procs, 5 s) is second: conservative reserves it [20, 25).
/// J4 (1, 1 proc, 30 s) arrives.
fn protect() -> Vec<Job> {
    vec![
        Job::new(1, 0, 3, 10),
        Job::new(2, 0, 3, 10),
        Job::new(3, 0, 4, 5),
        Job::new(4, 1, 1, 30),
    ]
}

#[test]
fn easy_backfills_past_the_second_job() {
    // EASY at 1: J4 needs 1 processor, 1 is free now; it runs past the shadow time 10 but
    // the head leaves 4 - 3 = 1 spare processor then, so it starts at 1 and ends at 31.
    // J2 runs [10, 20); J3 needs all 4 and waits for J4: [31, 36).
    let sim = run(cluster(4), Config::new(Policy::Easy), protect());
    assert_eq!(
        schedule(&sim),
        vec![(1, 0, 10), (2, 10, 20), (3, 31, 36), (4, 1, 31)]
    );
}

#[test]
fn conservative_protects_every_queued_job() {
    // Conservative at 1: J4 needs 1 processor over 30 s. Candidate starts: 1 (but [20, 25)
    // has none free: J3), 10 and 20 (same), 25: fits. J3 keeps [20, 25); J4 runs [25, 55).
    let sim = run(cluster(4), Config::new(Policy::Conservative), protect());
    assert_eq!(
        schedule(&sim),
        vec![(1, 0, 10), (2, 10, 20), (3, 20, 25), (4, 25, 55)]
    );
    // FCFS happens to give the same schedule: J4 waits behind J3, which starts at 20 and
    // takes all 4 processors until 25.
    let fcfs = run(cluster(4), Config::new(Policy::Fcfs), protect());
    assert_eq!(schedule(&fcfs), schedule(&sim));
}

#[test]
fn flexible_reorders_by_priority() {
    // Flexible, unit weights, no deadlines.
    // t = 0: queue J1, J2, J3, all waits 0 (W = 0); estimates 10, 10, 5 give E = 0, 0, 1.
    //   J3 (4 procs) is first and starts [0, 5). J1 is then the head, blocked until 5.
    // t = 1: J4 arrives; waits 1, 1, 0 -> W = 1, 1, 0; estimates 10, 10, 30 -> E = 1, 1, 0.
    //   Order J1, J2, J4; no processor is free.
    // t = 5: J3 ends. Waits 5, 5, 4 -> W = 1, 1, 0.8; E = 1, 1, 0: J1 starts [5, 15);
    //   J2 (3 procs) does not fit (1 free): reservation at 15, 1 spare then; J4 (1 proc,
    //   30 s) backfills on that spare processor: [5, 35).
    // t = 15: J1 ends; J2 starts [15, 25).
    let sim = run(cluster(4), Config::new(Policy::Flexible), protect());
    assert_eq!(
        schedule(&sim),
        vec![(1, 5, 15), (2, 15, 25), (3, 0, 5), (4, 5, 35)]
    );
}

/// 2 processors, requested times as estimates.
/// J1 (0, 2 procs, runs 5, requested 10): planned [0, 10), ends at 5.
/// J2 (0, 2 procs, runs 20, requested 8): planned [10, 18); would run 20, killed after 8.
/// J3 (1, 1 proc, runs 3, requested 3): planned at 18 (nothing free before).
fn kills() -> Vec<Job> {
    vec![
        Job::new(1, 0, 2, 5).requested(10),
        Job::new(2, 0, 2, 20).requested(8),
        Job::new(3, 1, 1, 3).requested(3),
    ]
}

#[test]
fn killed_at_requested_time_and_compressed() {
    // At 5 J1 ends early. Conservative compression (both rules) moves J2 to [5, 13) and J3
    // to [13, 16); EASY and FCFS start J2 at 5 and J3 at 13 directly. J2 is killed at 13.
    let c = Config::new(Policy::Conservative).estimates(Estimates::Requested);
    let mut reservation_at_1 = None;
    {
        let mut sim = Simulator::with_jobs(cluster(2), c, kills()).unwrap();
        sim.run_until(1);
        // Before the early completion: J3 (index 2) is promised 18.
        reservation_at_1 = reservation_at_1.or(sim.record(2).start);
    }
    assert_eq!(reservation_at_1, Some(18));
    for config in [
        c,
        c.compression(gridsched_batch::Compression::InPlace),
        Config::new(Policy::Easy).estimates(Estimates::Requested),
        Config::new(Policy::Fcfs).estimates(Estimates::Requested),
    ] {
        let sim = run(cluster(2), config, kills());
        assert_eq!(
            schedule(&sim),
            vec![(1, 0, 5), (2, 5, 13), (3, 13, 16)],
            "{config:?}"
        );
        let outs: Vec<_> = sim.outcomes().collect();
        let killed: Vec<u64> = outs.iter().filter(|o| o.killed).map(|o| o.job.id).collect();
        assert_eq!(killed, vec![2]);
        assert_eq!(Summary::new(&outs, sim.platform()).killed, 1);
        assert_eq!(sim.counters().early_completions, 1);
    }
    // Flexible puts J2 (8 s planned) before J1 (10 s): J2 [0, 8), killed. At 8, J3 (W = 7/8,
    // E = 1) passes J1 (W = 1, E = 0): J3 [8, 11); J1 waits for 2 processors: [11, 16).
    let sim = run(
        cluster(2),
        Config::new(Policy::Flexible).estimates(Estimates::Requested),
        kills(),
    );
    assert_eq!(schedule(&sim), vec![(1, 11, 16), (2, 0, 8), (3, 8, 11)]);
    // With the actual run times nobody is killed: J2 runs [5, 25), J3 [25, 28).
    let sim = run(cluster(2), Config::new(Policy::Conservative), kills());
    assert_eq!(schedule(&sim), vec![(1, 0, 5), (2, 5, 25), (3, 25, 28)]);
    assert!(sim.outcomes().all(|o| !o.killed));
}

/// 4 processors with a fixed reservation of all 4 over [10, 20).
/// J1 (0, 2 procs, 5 s) fits before it: [0, 5).
/// J2 (0, 4 procs, 8 s) cannot end by 10 from 0 or 5: earliest start 20.
/// J3 (0, 2 procs, 15 s) would cross the reservation from 0 or 5; after J2: [28, 43).
/// J4 (0, 2 procs, 4 s) fits next to J1 before 10: [0, 4).
fn reserved() -> Vec<Job> {
    vec![
        Job::new(1, 0, 2, 5),
        Job::new(2, 0, 4, 8),
        Job::new(3, 0, 2, 15),
        Job::new(4, 0, 2, 4),
    ]
}

fn with_block(config: Config) -> (Simulator, gridsched_batch::ReservationId) {
    let mut sim = Simulator::with_jobs(cluster(4), config, reserved()).unwrap();
    let id = sim.add_reservation(0, 10, 20, 4).unwrap();
    (sim, id)
}

#[test]
fn fixed_reservations_are_never_overlapped() {
    for p in [Policy::Easy, Policy::Conservative, Policy::Flexible] {
        let (mut sim, _) = with_block(Config::new(p));
        sim.run();
        // (Flexible sorts J4, J1, J2, J3 by estimate and gets the same schedule: J2 is the
        // head and J3 can never cross the block before 20.)
        assert_eq!(
            schedule(&sim),
            vec![(1, 0, 5), (2, 20, 28), (3, 28, 43), (4, 0, 4)],
            "{p:?}"
        );
    }
    // FCFS: J4 waits behind J3, which starts at 28 with 2 processors to spare: [28, 32).
    let (mut sim, _) = with_block(Config::new(Policy::Fcfs));
    sim.run();
    assert_eq!(
        schedule(&sim),
        vec![(1, 0, 5), (2, 20, 28), (3, 28, 43), (4, 28, 32)]
    );
}

#[test]
fn reservations_refused_cancelled_and_cloned() {
    for p in [Policy::Easy, Policy::Conservative] {
        let (mut sim, id) = with_block(Config::new(p));
        sim.run_until(1);
        // J1 and J4 hold all 4 processors over [1, 4): a block there is refused.
        assert!(sim.add_reservation(0, 2, 6, 1).is_err());
        assert!(sim.add_reservation(0, 0, 6, 1).is_err(), "in the past");
        assert!(sim.add_reservation(1, 30, 40, 1).is_err(), "no machine 1");
        // A clone runs on independently: the original keeps the block, the clone cancels it.
        let mut clone = sim.clone();
        clone.cancel_reservation(id).unwrap();
        assert!(clone.cancel_reservation(id).is_err(), "cancelled twice");
        sim.run();
        clone.run();
        assert_eq!(
            schedule(&sim),
            vec![(1, 0, 5), (2, 20, 28), (3, 28, 43), (4, 0, 4)]
        );
        // Without the block: J2 is the head with reservation 5 (J1 ends at 5, J4 at 4);
        // J3 cannot start at 4 (it would cross 5 with no spare processor). J2 [5, 13),
        // J3 [13, 28).
        assert_eq!(
            schedule(&clone),
            vec![(1, 0, 5), (2, 5, 13), (3, 13, 28), (4, 0, 4)],
            "{p:?}"
        );
    }
}

#[test]
fn clones_are_independent_and_resume_identically() {
    let jobs: Vec<Job> = (0..60u64)
        .map(|k| {
            let k = k as i64;
            Job::new(k as u64 + 1, k * 3, 1 + (k * 7 % 5) as u32, 5 + k * 13 % 40)
                .requested(10 + k * 11 % 50)
        })
        .collect();
    for p in [
        Policy::Easy,
        Policy::Conservative,
        Policy::Flexible,
        Policy::Fcfs,
    ] {
        let config = Config::new(p).estimates(Estimates::Requested);
        let whole = run(cluster(6), config, jobs.clone());
        let mut sim = Simulator::with_jobs(cluster(6), config, jobs.clone()).unwrap();
        sim.run_until(70);
        let mut a = sim.clone();
        let mut b = sim.clone();
        // A job submitted to one clone is unknown to the others.
        b.submit(Job::new(999, 80, 6, 100)).unwrap();
        a.run();
        b.run();
        sim.run();
        assert_eq!(schedule(&a), schedule(&whole), "{p:?}");
        assert_eq!(schedule(&sim), schedule(&whole), "{p:?}");
        assert_eq!(b.job_count(), jobs.len() + 1);
        assert_eq!(a.job_count(), jobs.len());
        assert!(schedule(&b).iter().any(|&(id, _, _)| id == 999));
    }
}

#[test]
fn grid_scales_run_times_and_selects_machines() {
    // Machine 0: 4 CPUs at speed 1; machine 1: 2 CPUs at speed 2 (reference speed 1).
    let grid = Platform::grid(
        vec![Machine { cpus: 4, speed: 1 }, Machine { cpus: 2, speed: 2 }],
        1,
    )
    .unwrap();
    let jobs = vec![
        Job::new(1, 0, 2, 10),
        Job::new(2, 0, 2, 10),
        Job::new(3, 0, 4, 4),
        Job::new(4, 1, 2, 3),
    ];
    // Fastest first, EASY:
    // J1 -> machine 1, 10 / 2 = 5 s: [0, 5). J2 -> machine 0 (machine 1 is full): [0, 10).
    // J3 needs 4 CPUs: only machine 0, reserved at 10. J4 at 1: machine 1 is busy until 5;
    // machine 0 has 2 free over [1, 4), ending before 10: [1, 4) on machine 0.
    // J3 [10, 14) on machine 0.
    let sim = run(grid.clone(), Config::new(Policy::Easy), jobs.clone());
    let got: Vec<_> = sim
        .outcomes()
        .map(|o| (o.job.id, o.machine, o.start, o.end))
        .collect();
    assert_eq!(
        got,
        vec![(1, 1, 0, 5), (2, 0, 0, 10), (3, 0, 10, 14), (4, 0, 1, 4)]
    );
    // First fit (lowest index): J1 and J2 both on machine 0, [0, 10); J3 reserved there at
    // 10; J4 at 1 finds machine 0 full and takes machine 1: 3 / 2 rounded up = 2 s, [1, 3).
    let sim = run(
        grid,
        Config::new(Policy::Easy).machine_select(MachineSelect::FirstFit),
        jobs,
    );
    let got: Vec<_> = sim
        .outcomes()
        .map(|o| (o.job.id, o.machine, o.start, o.end))
        .collect();
    assert_eq!(
        got,
        vec![(1, 0, 0, 10), (2, 0, 0, 10), (3, 0, 10, 14), (4, 1, 1, 3)]
    );
}

#[test]
fn batsim_csv_columns_and_rows() {
    let sim = run(
        cluster(2),
        Config::new(Policy::Easy).estimates(Estimates::Requested),
        kills(),
    );
    let outs: Vec<_> = sim.outcomes().collect();
    let mut buf = Vec::new();
    write_batsim_csv(&mut buf, &outs, sim.platform(), "w").unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, BATSIM_COLUMNS);
    for col in [
        "job_id",
        "submission_time",
        "requested_number_of_resources",
        "requested_time",
        "starting_time",
        "execution_time",
        "finish_time",
        "waiting_time",
        "turnaround_time",
        "stretch",
        "success",
        "allocated_resources",
    ] {
        assert!(header.contains(&col), "{col}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3);
    let field =
        |r: &Vec<&str>, c: &str| r[header.iter().position(|h| *h == c).unwrap()].to_string();
    // J2: submitted 0, started 5, killed at its requested 8 s: success 0.
    let j2 = &rows[1];
    assert_eq!(field(j2, "job_id"), "2");
    assert_eq!(field(j2, "starting_time"), "5");
    assert_eq!(field(j2, "execution_time"), "8");
    assert_eq!(field(j2, "finish_time"), "13");
    assert_eq!(field(j2, "waiting_time"), "5");
    assert_eq!(field(j2, "turnaround_time"), "13");
    assert_eq!(field(j2, "requested_time"), "8");
    assert_eq!(field(j2, "success"), "0");
    assert_eq!(field(j2, "final_state"), "COMPLETED_WALLTIME_REACHED");
    assert_eq!(field(j2, "allocated_resources"), "0-1");
    assert_eq!(field(j2, "stretch"), "1.625000");
    // J3 (1 proc) runs [13, 16) on processor 0.
    assert_eq!(field(&rows[2], "allocated_resources"), "0");
    assert_eq!(field(&rows[2], "success"), "1");
}

#[test]
fn invalid_jobs_and_platforms_are_rejected() {
    assert!(Platform::cluster(0).is_err());
    let bad = [
        Job::new(1, 0, 0, 10),
        Job::new(1, 0, 1, 0),
        Job::new(1, 0, 5, 10),
        Job::new(1, 0, 1, 10).requested(0),
    ];
    for j in bad {
        assert!(
            Simulator::with_jobs(cluster(4), Config::new(Policy::Easy), vec![j]).is_err(),
            "{j:?}"
        );
    }
    let mut sim = Simulator::with_jobs(cluster(4), Config::new(Policy::Easy), small()).unwrap();
    sim.run_until(5);
    assert!(
        sim.submit(Job::new(9, 4, 1, 1)).is_err(),
        "submitted in the past"
    );
}
