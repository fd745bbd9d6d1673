//! Same seed, same bytes: whatever the thread count, sharding or interruption.

use std::path::Path;

use gridsched_repro::reproduce::merge;
use gridsched_repro::runner::{journal_path, run_sweep};
use gridsched_repro::{Experiment, Project, RunOptions, Scale, reproduce};

fn small(threads: usize) -> RunOptions {
    RunOptions {
        scale: Some(Scale::Quick),
        replications: Some(2),
        jobs: Some(2_000),
        threads: Some(threads),
        ..RunOptions::default()
    }
}

fn experiments(registry: &gridsched_repro::Registry, ids: &[&str]) -> Vec<Experiment> {
    ids.iter()
        .map(|id| registry.resolve(id).unwrap().clone())
        .collect()
}

fn outputs(project: &Project, exp: &Experiment) -> Vec<(String, Vec<u8>)> {
    [
        project.runs_csv(exp, Scale::Quick),
        project.summary_csv(exp, Scale::Quick),
        project.figure_svg(exp, Scale::Quick),
    ]
    .iter()
    .map(|p| {
        (
            p.display().to_string(),
            std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        )
    })
    .collect()
}

fn assert_same_outputs(a: &Project, b: &Project, exp: &Experiment) {
    for ((pa, xa), (pb, xb)) in outputs(a, exp).into_iter().zip(outputs(b, exp)) {
        assert!(xa == xb, "{pa} and {pb} differ");
    }
}

fn temp_project(dir: &Path) -> Project {
    Project {
        root: dir.to_path_buf(),
    }
}

#[test]
fn one_and_two_threads_write_identical_files() {
    let registry = gridsched_experiments::registry().unwrap();
    let exps = experiments(&registry, &["fig-3.4", "fig-3.10"]);
    let refs: Vec<&Experiment> = exps.iter().collect();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (p1, p2) = (temp_project(d1.path()), temp_project(d2.path()));
    reproduce(&refs, &small(1), Some(&p1)).unwrap();
    reproduce(&refs, &small(2), Some(&p2)).unwrap();
    for exp in &exps {
        assert_same_outputs(&p1, &p2, exp);
    }
}

#[test]
fn merged_shards_equal_an_unsharded_run() {
    let registry = gridsched_experiments::registry().unwrap();
    let exps = experiments(&registry, &["fig-3.4"]);
    let exp = &exps[0];
    let (whole, sharded) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (pw, ps) = (temp_project(whole.path()), temp_project(sharded.path()));
    reproduce(&[exp], &small(2), Some(&pw)).unwrap();
    // No shards yet: nothing to merge.
    assert!(merge(exp, Scale::Quick, &ps).unwrap().is_none());
    for k in [3, 1] {
        let opts = RunOptions {
            shard: Some((k, 3)),
            ..small(1)
        };
        reproduce(&[exp], &opts, Some(&ps)).unwrap();
    }
    let err = merge(exp, Scale::Quick, &ps).unwrap_err().to_string();
    assert!(err.contains("missing shards 2/3"), "{err}");
    reproduce(
        &[exp],
        &RunOptions {
            shard: Some((2, 3)),
            ..small(2)
        },
        Some(&ps),
    )
    .unwrap();
    let merged = merge(exp, Scale::Quick, &ps)
        .unwrap()
        .expect("shards present");
    assert_eq!(
        merged.computed,
        exp.sweep.axis_values(Scale::Quick).len() * exp.sweep.series.len() * 2
    );
    assert_same_outputs(&pw, &ps, exp);
}

#[test]
fn an_interrupted_sweep_resumes_without_recomputing() {
    let registry = gridsched_experiments::registry().unwrap();
    let exp = registry.resolve("fig-3.10").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = RunOptions {
        journal_dir: Some(dir.path().to_path_buf()),
        ..small(2)
    };
    let first = run_sweep(&exp.sweep, &*exp.model, &opts).unwrap();
    assert_eq!(first.resumed, 0);
    // Keep half of the journal and a torn last line, as a kill mid-write would leave it.
    let size = gridsched_repro::spec::ScaleSpec {
        replications: 2,
        jobs: 2_000,
    };
    let path = journal_path(
        dir.path(),
        &exp.sweep,
        Scale::Quick,
        size,
        None,
        &Default::default(),
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let half = lines.len() / 2;
    let mut kept = lines[..half].join("\n");
    kept.push('\n');
    kept.push_str(&lines[half][..lines[half].len() / 2]);
    std::fs::write(&path, kept).unwrap();
    let second = run_sweep(&exp.sweep, &*exp.model, &opts).unwrap();
    assert_eq!(second.resumed, half);
    assert_eq!(second.computed, first.computed - half);
    let deterministic = |values: &[gridsched_repro::table::RunValue]| -> Vec<_> {
        values
            .iter()
            .filter(|v| !gridsched_repro::output::is_timing_metric(&v.metric))
            .cloned()
            .collect()
    };
    assert!(
        deterministic(&first.values) == deterministic(&second.values),
        "resumed values differ from a clean run"
    );
}

#[test]
fn replot_redraws_exactly_the_figure_a_run_wrote() {
    let registry = gridsched_experiments::registry().unwrap();
    // A line figure run at a non-default size (read back from its provenance), a Gantt chart
    // and a grouped bar chart.
    let exps = experiments(&registry, &["fig-3.4", "kumar-fig-4.2", "kumar-fig-5.4"]);
    let table = experiments(&registry, &["kumar-table-4.1"]);
    let refs: Vec<&Experiment> = exps.iter().collect();
    let dir = tempfile::tempdir().unwrap();
    let project = temp_project(dir.path());
    reproduce(&refs[..1], &small(2), Some(&project)).unwrap();
    let quick = RunOptions {
        scale: Some(Scale::Quick),
        threads: Some(2),
        ..RunOptions::default()
    };
    reproduce(&refs[1..], &quick, Some(&project)).unwrap();
    // A table's page is redrawn beside its SVG, byte for byte.
    reproduce(&[&table[0]], &quick, Some(&project)).unwrap();
    let md = project.table_md(&table[0], Scale::Quick);
    let page = std::fs::read(&md).unwrap();
    std::fs::remove_file(&md).unwrap();
    let files = gridsched_repro::reproduce::replot(&table[0], Scale::Quick, &project).unwrap();
    assert_eq!(
        files,
        vec![project.figure_svg(&table[0], Scale::Quick), md.clone()]
    );
    assert!(std::fs::read(&md).unwrap() == page);
    for exp in &exps {
        let svg = project.figure_svg(exp, Scale::Quick);
        let written = std::fs::read(&svg).unwrap();
        std::fs::remove_file(&svg).unwrap();
        let redrawn = gridsched_repro::reproduce::replot(exp, Scale::Quick, &project).unwrap();
        assert_eq!(redrawn, vec![svg.clone()]);
        assert!(
            std::fs::read(&svg).unwrap() == written,
            "{}: replot differs from the run's SVG",
            exp.spec.id
        );
        // No results at the other scale: nothing to redraw.
        assert!(
            gridsched_repro::reproduce::replot(exp, Scale::Paper, &project)
                .unwrap()
                .is_empty()
        );
    }
}
