//! Every experiment at quick scale: its numbers and claim verdicts are pinned by an insta
//! snapshot (`tests/snapshots/quick__<id>.snap`). When a change moves them on purpose, review
//! with `cargo insta review` and say why in the commit message.

use gridsched_repro::snapshot::snapshot_text;
use gridsched_repro::{RunOptions, Scale, reproduce};

#[test]
fn quick_scale_snapshots() {
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    let experiments: Vec<_> = registry.all().iter().collect();
    let opts = RunOptions {
        scale: Some(Scale::Quick),
        ..RunOptions::default()
    };
    let results = reproduce(&experiments, &opts, None).unwrap_or_else(|e| panic!("{e}"));
    for (exp, result) in experiments.iter().zip(&results) {
        insta::assert_snapshot!(exp.spec.id.clone(), snapshot_text(exp, result));
    }
}
