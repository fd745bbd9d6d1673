//! Workflow reading and HEFT ranking.
//!
//! - `parse/<file>`: the DAX reader on CyberShake_1000 and Montage_1000 from the data directory
//!   (bytes already in memory: parsing, validation, edge derivation, topological order), and
//!   the WfCommons reader on the largest Montage instance. Skipped with a NOTICE when the data
//!   is absent.
//! - `cybershake/build`: Table 2's 8,041-task workflow (with dummies) built from scratch.
//! - `cybershake/upward_ranks`: eq. 7 ranks and the priority list for it (zero transfer, and the
//!   multi-site transfer model with the average link).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gridsched_workflow::data::{data_dir, dax_path, wfcommons_path};
use gridsched_workflow::{
    CyberShake, RankOptions, ReadOptions, ReferenceRuntime, TransferModel, parse_dax_bytes,
    parse_wfcommons_bytes, upward_ranks,
};

fn parse(c: &mut Criterion) {
    let data = data_dir(None);
    let mut g = c.benchmark_group("parse");
    for name in ["CyberShake_1000.xml", "Montage_1000.xml"] {
        let path = dax_path(&data, name);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("NOTICE: no {}; parse/{name} skipped", path.display());
            continue;
        };
        g.bench_function(name, |b| {
            b.iter(|| parse_dax_bytes(name, black_box(&bytes), &ReadOptions::default()).unwrap())
        });
    }
    let name = "montage-chameleon-dss-075d-001.json";
    let path = wfcommons_path(&data, name);
    match std::fs::read(&path) {
        Ok(bytes) => {
            g.bench_function(name, |b| {
                b.iter(|| {
                    parse_wfcommons_bytes(name, black_box(&bytes), &ReadOptions::default()).unwrap()
                })
            });
        }
        Err(_) => eprintln!("NOTICE: no {}; parse/{name} skipped", path.display()),
    }
    g.finish();
}

fn cybershake(c: &mut Criterion) {
    let mut g = c.benchmark_group("cybershake");
    g.bench_function("build", |b| {
        b.iter(|| CyberShake::default().build().unwrap())
    });
    let w = CyberShake::default().build().unwrap();
    assert_eq!(w.len(), 8041);
    g.bench_function("upward_ranks", |b| {
        b.iter(|| upward_ranks(black_box(&w), &ReferenceRuntime, &RankOptions::default()))
    });
    let multisite = RankOptions {
        transfer: TransferModel::singh_multisite(),
        ..RankOptions::default()
    };
    g.bench_function("upward_ranks_multisite", |b| {
        b.iter(|| upward_ranks(black_box(&w), &ReferenceRuntime, &multisite))
    });
    g.finish();
}

criterion_group!(benches, parse, cybershake);
criterion_main!(benches);
