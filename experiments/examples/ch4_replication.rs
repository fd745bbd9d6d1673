//! One Castillo ch. 4 replication of the `castillo-ch4-load` sweep, for profiling (`perf record`)
//! and for comparing builds: prints every metric of the run and its CPU time.
//!
//! `cargo run --release -p gridsched-experiments --example ch4_replication -- ALGORITHM LEVEL
//! LOAD JOBS [REPLICATION [SERVERS]]`, e.g. `ff-ha 4 0.9 200000`. The parameters are the sweep's
//! (`experiments/castillo/sweeps/ch4-load.toml`) and the stream key is the runner's, so the
//! numbers are those of the sweep's cell (with SERVERS, default 120, a larger system).

use gridsched_experiments::castillo::ch4::CastilloCh4;
use gridsched_repro::model::{Model, ParamSet};
use gridsched_sim::StreamKey;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: ch4_replication ALGORITHM LEVEL LOAD JOBS [REPLICATION [SERVERS]]");
        std::process::exit(2);
    }
    let level: u32 = args[1].parse().expect("LEVEL");
    let load: f64 = args[2].parse().expect("LOAD");
    let jobs: u64 = args[3].parse().expect("JOBS");
    let replication: u32 = args.get(4).map_or(0, |r| r.parse().expect("REPLICATION"));
    let servers: u32 = args.get(5).map_or(120, |n| n.parse().expect("SERVERS"));
    let p = ParamSet::from_pairs(&[
        ("servers", servers.into()),
        ("rates", "A".into()),
        ("tightness", 20.0.into()),
        ("book_ahead_max", 336.0.into()),
        ("min_fragment", (1.0f64 / 60.0).into()),
        ("algorithm", args[0].as_str().into()),
        ("level", level.into()),
        ("load", load.into()),
    ]);
    let point = format!("load={load}");
    let key = StreamKey::new(2008, "castillo-ch4-load")
        .point(&point)
        .replication(replication);
    let m = CastilloCh4.run(&p, &key, jobs).expect("run");
    for (name, v) in m {
        println!("{name} {v:?}");
    }
}
