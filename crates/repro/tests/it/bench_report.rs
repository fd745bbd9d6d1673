//! The benchmark report on a synthetic criterion directory that covers every group the
//! benches write (chapter-3 decisions and index operations, chapter-4 FF-HU / FF-HA / FF-HA+),
//! against golden Markdown and SVG files. The goldens were written by the report generator as
//! it was before the report became data-driven (`GRIDSCHED_BLESS=1` rewrites them), so this
//! test proves the generic engine and the `*.report.toml` files beside the benches reproduce it
//! byte for byte.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A small deterministic generator (the fixture only needs varied numbers).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn bench(dir: &Path, group: &str, function: &str, value: &str, mean: f64) {
    let d = dir
        .join(group.replace('/', "_"))
        .join(function)
        .join(value.replace('/', "_"))
        .join("new");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("benchmark.json"),
        format!(
            r#"{{"group_id":"{group}","function_id":"{function}","value_str":"{value}","throughput":null,"full_id":"{group}/{function}/{value}","directory_name":"x","title":"x"}}"#
        ),
    )
    .unwrap();
    let est = |v: f64| {
        format!(
            r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}},"point_estimate":{v},"standard_error":1.0}}"#,
            v * 0.93,
            v * 1.08
        )
    };
    std::fs::write(
        d.join("estimates.json"),
        format!(
            r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
            est(mean),
            est(mean * 0.99),
            est(1.0),
            est(2.0)
        ),
    )
    .unwrap();
}

const STRATEGIES: [&str; 7] = [
    "lact",
    "best-fit",
    "first-fit",
    "max-lip",
    "max-tip",
    "min-lip",
    "min-tip",
];

/// Writes the whole synthetic criterion directory.
fn criterion_fixture(root: &Path) {
    let mut rng = Lcg(2024);
    let mut steady = String::from("strategy,n,rho,L,idle_periods,warm_seconds\n");
    for s in STRATEGIES {
        for look_ahead in [200, 2000] {
            for rho in ["0.5", "0.9"] {
                for n in [20u32, 200, 2_000, 20_000] {
                    if look_ahead == 2000 && n == 20_000 {
                        continue; // not run, as in the real suite
                    }
                    let v = format!("n={n},rho={rho},L={look_ahead}");
                    let scale = f64::from(n).ln() * (1.0 + rng.next());
                    let group = format!("decide/{s}");
                    if s == "lact" {
                        bench(root, &group, "none", &v, 80.0 * scale);
                    } else {
                        bench(root, &group, "tree", &v, 150.0 * scale);
                        // One linear point missing: the table shows a dash.
                        if !(s == "max-tip" && n == 200 && rho == "0.5") {
                            bench(
                                root,
                                &group,
                                "linear",
                                &v,
                                0.5 * f64::from(n) * scale * (0.2 + 1.5 * rng.next()),
                            );
                        }
                    }
                    // One steady state without a record.
                    if !(s == "best-fit" && n == 20) {
                        let periods = if s == "lact" {
                            0
                        } else {
                            (f64::from(n) * (4.0 + 6.0 * rng.next())) as u64
                        };
                        writeln!(steady, "{s},{n},{rho},{look_ahead},{periods},1.5").unwrap();
                    }
                }
            }
        }
    }
    // A re-recorded state: the last record wins.
    steady.push_str("min-lip,200,0.9,200,777,2.0\n");
    std::fs::write(root.join("gridsched-steady-state.csv"), steady).unwrap();

    for kind in ["tree-start", "linear", "tree-end", "tree-best-fit"] {
        for n in [20u32, 200, 2_000, 20_000] {
            let m = 100.0 * (1.0 + rng.next()) * f64::from(n).ln();
            bench(root, "index/insert-delete", kind, &format!("n={n}"), m);
        }
    }
    for rule in [
        "earliest-feasible",
        "shortest-feasible",
        "latest-start-before-ready",
    ] {
        for n in [20u32, 200, 2_000, 20_000] {
            let v = format!("n={n}");
            let group = format!("index/select/{rule}");
            bench(
                root,
                &group,
                "tree",
                &v,
                60.0 * (1.0 + rng.next()) * f64::from(n).ln(),
            );
            bench(
                root,
                &group,
                "linear",
                &v,
                9.0 * f64::from(n) * (1.0 + rng.next()),
            );
        }
    }

    let mut hetero =
        String::from("axis,n,days,algorithm,idle_periods,seconds,ops_per_decision,decisions\n");
    for (axis, cases) in [
        ("servers", vec![(120u32, 14u32), (1200, 14), (8700, 14)]),
        ("lookahead", vec![(120, 14), (120, 140), (120, 1064)]),
    ] {
        for (n, days) in cases {
            let v = format!("n={n},days={days}");
            let periods = (f64::from(n) * f64::from(days) * (0.8 + 0.4 * rng.next())) as u64;
            writeln!(hetero, "{axis},{n},{days},warm-up,{periods},3.0,0.0,0").unwrap();
            for (i, alg) in ["ff-hu", "ff-ha", "ff-ha-plus"].into_iter().enumerate() {
                let t = (periods as f64).sqrt() * (3.0 - i as f64) * (1.0 + rng.next()) * 50.0;
                // FF-HA+ is missing at one state: its columns show dashes.
                if !(axis == "servers" && n == 1200 && alg == "ff-ha-plus") {
                    bench(root, &format!("hetero/{axis}"), alg, &v, t);
                }
                let ops = t / 7.0;
                writeln!(hetero, "{axis},{n},{days},{alg},{periods},1.0,{ops:.1},100").unwrap();
            }
        }
    }
    std::fs::write(root.join("gridsched-hetero-steady-state.csv"), hetero).unwrap();
    // Stale results and criterion's own report folder are ignored.
    let report = root.join("report");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(report.join("index.html"), "<html/>").unwrap();
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-report")
}

/// Every file under `dir`, as (relative path, bytes), sorted.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs the report into `out_root` (`docs/benchmarks.md` started from `start`, plots in
/// `figures/bench`).
fn run_report(criterion: &Path, out_root: &Path, start: Option<&str>) {
    let doc = out_root.join("docs/benchmarks.md");
    std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
    if let Some(text) = start {
        std::fs::write(&doc, text).unwrap();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let paths = gridsched_repro::bench::ReportPaths {
        criterion_dir: criterion.to_path_buf(),
        out: doc,
        figures_dir: out_root.join("figures/bench"),
        specs: gridsched_repro::bench::discover_specs(&root).unwrap(),
    };
    gridsched_repro::bench::write_report(&paths).unwrap();
}

/// Compares the report's files (only the Markdown when `markdown_only`) with the golden ones.
fn check(name: &str, start: Option<&str>, markdown_only: bool) {
    let criterion = tempfile::tempdir().unwrap();
    criterion_fixture(criterion.path());
    let out = tempfile::tempdir().unwrap();
    run_report(criterion.path(), out.path(), start);
    if markdown_only {
        std::fs::remove_dir_all(out.path().join("figures")).unwrap();
    }
    let golden = golden_dir().join(name);
    if std::env::var_os("GRIDSCHED_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (rel, bytes) in files(out.path()) {
            let p = golden.join(&rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        return;
    }
    let (got, want) = (files(out.path()), files(&golden));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "the same files");
    for ((rel, g), (_, w)) in got.iter().zip(&want) {
        if g != w {
            let (g, w) = (String::from_utf8_lossy(g), String::from_utf8_lossy(w));
            let (i, (a, b)) = g
                .lines()
                .zip(w.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, ("(length differs)", "")));
            panic!(
                "{rel} differs from tests/fixtures/bench-report/{name}/{rel} at line {}:\n got: {a}\nwant: {b}",
                i + 1
            );
        }
    }
}

#[test]
fn report_from_scratch_matches_the_golden_files() {
    check("from-scratch", None, false);
}

#[test]
fn report_spliced_into_the_real_document_matches_the_golden_files() {
    // A frozen copy of docs/benchmarks.md's hand-written text with both marked sections.
    let start = std::fs::read_to_string(golden_dir().join("start.md")).unwrap();
    check("spliced", Some(&start), true);
}

fn specs() -> Vec<PathBuf> {
    gridsched_repro::bench::discover_specs(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .unwrap()
}

/// Only chapter-4 results: the chapter-3 section is left alone, the chapter-4 one rewritten;
/// rerunning changes nothing.
#[test]
fn a_section_without_results_is_left_alone() {
    let all = tempfile::tempdir().unwrap();
    criterion_fixture(all.path());
    let criterion = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(all.path()).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("hetero") || name == "gridsched-hetero-steady-state.csv" {
            std::fs::rename(&p, criterion.path().join(&name)).unwrap();
        }
    }
    let out = tempfile::tempdir().unwrap();
    let doc = out.path().join("benchmarks.md");
    let original = "# B\n\n<!-- bench:begin -->\nchapter 3 tables\n<!-- bench:end -->\n\n## Ch. 4\n\n<!-- bench-hetero:begin -->\nold\n<!-- bench-hetero:end -->\n\nverdict\n";
    std::fs::write(&doc, original).unwrap();
    let paths = gridsched_repro::bench::ReportPaths {
        criterion_dir: criterion.path().to_path_buf(),
        out: doc.clone(),
        figures_dir: out.path().join("figs"),
        specs: specs(),
    };
    let summary = gridsched_repro::bench::write_report(&paths).unwrap();
    assert_eq!(summary.sections, [("bench-hetero".to_string(), 6)]);
    assert_eq!(summary.figures.len(), 2);
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(text.contains("<!-- bench:begin -->\nchapter 3 tables\n<!-- bench:end -->"));
    assert!(
        !text.contains("\nold\n") && text.contains("(figs/hetero-servers.svg)"),
        "{text}"
    );
    assert!(text.ends_with("<!-- bench-hetero:end -->\n\nverdict\n"));
    gridsched_repro::bench::write_report(&paths).unwrap();
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), text, "idempotent");
}

/// No results at all: the first section says what to run.
#[test]
fn no_results_say_what_to_run() {
    let criterion = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let paths = gridsched_repro::bench::ReportPaths {
        criterion_dir: criterion.path().to_path_buf(),
        out: out.path().join("b.md"),
        figures_dir: out.path().join("figs"),
        specs: specs(),
    };
    let summary = gridsched_repro::bench::write_report(&paths).unwrap();
    assert_eq!(summary.sections, [("bench".to_string(), 0)]);
    let text = std::fs::read_to_string(&paths.out).unwrap();
    assert!(
        text.contains("No `decide/*` results found (run `cargo bench"),
        "{text}"
    );
    assert!(!text.contains("bench-hetero"), "{text}");
}
