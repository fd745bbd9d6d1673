//! The independent anchor of issue 31: our FCFS, EASY and conservative backfilling replayed on
//! real logs and compared, job for job, with the start times Alea (Klusáček's GridSim-based
//! simulator, run outside this repository) gave the same jobs. The Alea waits are committed in
//! `data/anchors/alea/` (provenance and the cause of every divergence in its README.md); this
//! test recomputes our side and checks that the agreement is exactly the recorded one: every
//! job identical where Alea agrees, and the recorded number of divergences, with their first
//! jobs (or all of them where there are few), where it does not. A change to our schedulers
//! that moves any job, in either direction, fails it.
//!
//! Needs the logs of the data directory; without them it prints a NOTICE and passes, unless
//! `GRIDSCHED_REQUIRE_DATA=1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gridsched_batch::swf::trace_jobs;
use gridsched_batch::{Config, Estimates, Platform, Policy, Simulator};
use gridsched_workload::swf::{SwfLoadOptions, load_swf};

fn anchor_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/anchors/alea")
}

/// One committed CSV: `job_id` then one column of Alea waits (seconds) per Alea run.
struct AleaWaits {
    columns: Vec<String>,
    rows: Vec<(u64, Vec<i64>)>,
}

fn read_waits(name: &str) -> AleaWaits {
    let path = anchor_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (committed anchor data)", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_owned)
        .collect();
    assert_eq!(header[0], "job_id", "{name}");
    let rows = lines
        .map(|l| {
            let mut f = l.split(',');
            let id = f.next().unwrap().parse().unwrap();
            (id, f.map(|v| v.parse().unwrap()).collect())
        })
        .collect();
    AleaWaits {
        columns: header[1..].to_vec(),
        rows,
    }
}

/// Our start time of every job of `log` (first `limit` records) under `policy`.
fn our_starts(
    log: &Path,
    limit: Option<usize>,
    policy: Policy,
    estimates: Estimates,
) -> HashMap<u64, (i64, i64)> {
    let log = load_swf(log, SwfLoadOptions { limit }).unwrap();
    let procs = log.header.max_procs.unwrap() as u32;
    let tj = trace_jobs(&log, procs);
    let config = Config::new(policy).estimates(estimates);
    let mut sim = Simulator::with_jobs(Platform::cluster(procs).unwrap(), config, tj.jobs).unwrap();
    sim.run();
    sim.outcomes()
        .map(|o| (o.job.id, (o.job.submit, o.start)))
        .collect()
}

/// What one Alea column must show against our schedule.
struct Expect {
    column: &'static str,
    policy: Policy,
    identical: usize,
    /// The first divergent jobs in time order (earlier of the two starts, then submission,
    /// then id); all of them when the list is as long as the divergences.
    first: &'static [u64],
}

fn check(log_name: &str, limit: Option<usize>, file: &str, estimates: Estimates, cases: &[Expect]) {
    let Some(log) = gridsched_sim::data::data_file_or_skip(&format!("traces/{log_name}")) else {
        return;
    };
    let alea = read_waits(file);
    for case in cases {
        let col = alea
            .columns
            .iter()
            .position(|c| c == case.column)
            .unwrap_or_else(|| panic!("{file}: no column {}", case.column));
        let ours = our_starts(&log, limit, case.policy, estimates);
        assert_eq!(ours.len(), alea.rows.len(), "{file}: job count");
        let mut div: Vec<(i64, i64, u64)> = Vec::new();
        for (id, waits) in &alea.rows {
            let &(submit, start) = ours
                .get(id)
                .unwrap_or_else(|| panic!("{file}: job {id} not in our replay"));
            let theirs = submit + waits[col];
            if theirs != start {
                div.push((theirs.min(start), submit, *id));
            }
        }
        div.sort_unstable();
        let identical = alea.rows.len() - div.len();
        let first: Vec<u64> = div.iter().take(case.first.len()).map(|d| d.2).collect();
        assert_eq!(
            (identical, first.as_slice()),
            (case.identical, case.first),
            "{file} {}: (identical jobs, first divergent jobs) moved; if our scheduler changed \
             on purpose, rerun the anchor (data/anchors/alea/README.md)",
            case.column
        );
        if case.identical == alea.rows.len() {
            assert!(div.is_empty());
        }
    }
}

#[test]
fn kth_exact_run_times() {
    check(
        "KTH-SP2-1996-2.1-cln.swf.gz",
        None,
        "kth-exact-alea-waits.csv",
        Estimates::Actual,
        &[
            Expect {
                column: "fcfs",
                policy: Policy::Fcfs,
                identical: 28467,
                first: &[],
            },
            // Alea's EASY as shipped: its shadow time comes from a corrupted per-CPU
            // prediction of the running jobs (README, cause E1).
            Expect {
                column: "easy",
                policy: Policy::Easy,
                identical: 17680,
                first: &[263, 264, 262],
            },
            // Alea's EASY with E1 corrected, a job ending at the shadow time backfilled and
            // no transfer delay: the three jobs of one instant where Alea ran a pass for an
            // arrival before applying a completion (cause E4). All of them.
            Expect {
                column: "easy_corrected",
                policy: Policy::Easy,
                identical: 28464,
                first: &[9135, 9136, 9138],
            },
            // Alea's CONS searches holes on a per-CPU plan (cause C1).
            Expect {
                column: "cons",
                policy: Policy::Conservative,
                identical: 24967,
                first: &[971, 976, 983],
            },
        ],
    );
}

#[test]
fn kth_requested_times() {
    check(
        "KTH-SP2-1996-2.1-cln.swf.gz",
        None,
        "kth-requested-alea-waits.csv",
        Estimates::Requested,
        &[
            Expect {
                column: "fcfs",
                policy: Policy::Fcfs,
                identical: 28467,
                first: &[],
            },
            Expect {
                column: "easy",
                policy: Policy::Easy,
                identical: 17382,
                first: &[264, 261, 265],
            },
            // Compression re-inserts in Alea's planned-start order, ours in queue order (C2).
            Expect {
                column: "cons",
                policy: Policy::Conservative,
                identical: 15463,
                first: &[189, 198, 199],
            },
        ],
    );
}

#[test]
fn hpc2n_prefix_exact_run_times() {
    check(
        "HPC2N-2002-2.2-cln.swf.gz",
        Some(30_000),
        "hpc2n30k-exact-alea-waits.csv",
        Estimates::Actual,
        &[
            Expect {
                column: "fcfs",
                policy: Policy::Fcfs,
                identical: 30000,
                first: &[],
            },
            Expect {
                column: "easy",
                policy: Policy::Easy,
                identical: 22082,
                first: &[843, 837, 838],
            },
            Expect {
                column: "easy_corrected",
                policy: Policy::Easy,
                identical: 29998,
                first: &[103052, 103048],
            },
            Expect {
                column: "cons",
                policy: Policy::Conservative,
                identical: 29534,
                first: &[2246, 2247, 2248],
            },
        ],
    );
}
