//! Every experiment at quick scale: its numbers and claim verdicts are pinned by an insta
//! snapshot (`tests/snapshots/quick__<id>.snap`). When a change moves them on purpose, review
//! with `cargo insta review` and say why in the commit message.

use gridsched_repro::snapshot::snapshot_text;
use gridsched_repro::{RunOptions, Scale, reproduce};

#[test]
fn quick_scale_snapshots() {
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    // Experiments on real data (Braun matrices, Parallel Workloads Archive logs) need the data
    // directory; a checkout without it skips them loudly, unless GRIDSCHED_REQUIRE_DATA=1
    // (set by .ci/run whenever the data is there) makes a missing file a failure.
    let require = std::env::var("GRIDSCHED_REQUIRE_DATA").is_ok_and(|v| v == "1");
    let mut experiments = Vec::new();
    for exp in registry.all() {
        let missing = exp.missing_data();
        if missing.is_empty() {
            experiments.push(exp);
        } else if require {
            panic!("{}: missing real data {missing:?}", exp.spec.id);
        } else {
            eprintln!(
                "NOTICE: skipping {} (no {}; set GRIDSCHED_DATA, see data/README.md)",
                exp.spec.id,
                missing[0].display()
            );
        }
    }
    let opts = RunOptions {
        scale: Some(Scale::Quick),
        ..RunOptions::default()
    };
    let results = reproduce(&experiments, &opts, None).unwrap_or_else(|e| panic!("{e}"));
    for (exp, result) in experiments.iter().zip(&results) {
        insta::assert_snapshot!(exp.spec.id.clone(), snapshot_text(exp, result));
    }
}
