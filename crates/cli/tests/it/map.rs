//! End-to-end tests of `gridsched map` and `gridsched map generate`.

use std::path::{Path, PathBuf};

use crate::common::{gridsched, text};

/// The Braun data directory next to the checkout, if present.
fn braun_file(name: &str) -> Option<PathBuf> {
    let data = std::env::var_os("GRIDSCHED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let p = data.join("etc/braun").join(name);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("SKIPPED: {} not found (set GRIDSCHED_DATA)", p.display());
        None
    }
}

fn table_4_1(dir: &Path) -> PathBuf {
    let rows = [
        "13.7,2.28,4.56,1.14",
        "11.75,1.95,3.91,0.97",
        "14.5,2.41,4.83,1.2",
        "11.84,1.97,3.94,0.98",
        "9.28,1.54,3.09,0.77",
        "16.53,2.75,5.51,1.37",
        "8.84,1.47,2.94,0.73",
        "16,2.66,5.33,1.33",
        "14.32,2.38,4.77,1.19",
        "8.66,1.44,2.88,0.72",
    ];
    let path = dir.join("table-4.1.csv");
    std::fs::write(&path, format!("R1,R2,R3,R4\n{}\n", rows.join("\n"))).unwrap();
    path
}

fn value(stdout: &str, field: &str) -> f64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {stdout}"))
}

#[test]
fn min_min_on_a_braun_instance_prints_the_makespan() {
    let Some(file) = braun_file("u_c_hihi.0") else {
        return;
    };
    let out = gridsched(&[
        "map",
        "--heuristic",
        "min-min",
        "--etc",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // The value published for this instance (8,460,675).
    assert!(
        (value(&stdout, "makespan") - 8_460_675.0).abs() < 1.0,
        "{stdout}"
    );
    assert!(
        stdout.contains("512 tasks x 16 machines, consistent"),
        "{stdout}"
    );
    for field in ["flowtime", "utilization", "load balance"] {
        assert!(stdout.contains(field), "{stdout}");
    }
    // A bare file name is found in the data directory.
    let data = file.parent().unwrap().parent().unwrap().parent().unwrap();
    let out = gridsched(&[
        "map",
        "--heuristic",
        "mct",
        "--etc",
        "u_c_hihi.0",
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn kumar_worked_example_from_csv_with_schedule_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let etc = table_4_1(dir.path());
    let sched = dir.path().join("sas.csv");
    let out = gridsched(&[
        "map",
        "--heuristic",
        "sas",
        "--segments",
        "2",
        "--etc",
        etc.to_str().unwrap(),
        "--schedule",
        sched.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!((value(&text(&out.stdout), "makespan") - 6.2).abs() < 1e-9);
    let csv = std::fs::read_to_string(&sched).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "task,machine,start,end,order,segment,round,key");
    assert_eq!(lines.len(), 11);
    // t6 (index 5) is the first decision, on R4 (index 3), from 0 to 1.37.
    assert!(lines[6].starts_with("5,3,0,1.37,0,0,"), "{csv}");
    for (heuristic, reading, makespan) in [
        ("sufferage", "batch", 6.88),
        ("sufferage", "sequential", 6.88),
        ("min-min", "", 6.57),
        ("max-min", "", 6.22),
    ] {
        let mut args = vec![
            "map",
            "--heuristic",
            heuristic,
            "--etc",
            etc.to_str().unwrap(),
            "--json",
        ];
        if !reading.is_empty() {
            args.extend(["--sufferage", reading]);
        }
        let out = gridsched(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json = text(&out.stdout);
        assert!(
            json.starts_with('{') && json.trim_end().ends_with('}'),
            "{json}"
        );
        let m = json
            .split("\"makespan\":")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap();
        assert!((m - makespan).abs() < 1e-9, "{heuristic}: {json}");
        assert!(json.contains("\"tasks\":10,\"machines\":4"), "{json}");
    }
}

#[test]
fn bad_inputs_are_errors_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        (
            "bad.0",
            "2 2\r\n1\r\nx\r\n3\r\n4\r\n",
            "bad.0:3: `x` is not a number",
        ),
        ("neg.0", "1 2\n1\n-5\n", "neg.0:3: negative ETC value -5"),
        (
            "short.0",
            "2 2\n1\n2\n3\n",
            "short.0:4: the file ends after 3 values",
        ),
        (
            "bad.csv",
            "a,b\n1,2\n3,NaN\n",
            "bad.csv:3: machine column 2",
        ),
    ];
    for (name, content, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let out = gridsched(&[
            "map",
            "--heuristic",
            "min-min",
            "--etc",
            path.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{name}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains(expected),
            "{name}: {stderr}"
        );
    }
    let out = gridsched(&["map", "--heuristic", "best-fit", "--etc", "x.0"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown heuristic `best-fit`"));
    let out = gridsched(&[
        "map",
        "--heuristic",
        "min-min",
        "--segments",
        "2",
        "--etc",
        "x.0",
    ]);
    assert!(
        text(&out.stderr).contains("--segments applies to sas"),
        "{}",
        text(&out.stderr)
    );
    let out = gridsched(&["map", "--heuristic", "min-min", "--etc", "/nonexistent/m.0"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("/nonexistent/m.0"));
    let out = gridsched(&["map", "--etc", "x.0"]);
    assert!(!out.status.success(), "--heuristic is required");
}

#[test]
fn generated_matrices_round_trip_through_map() {
    let dir = tempfile::tempdir().unwrap();
    let braun = dir.path().join("gen.0");
    let out = gridsched(&[
        "map",
        "generate",
        "--model",
        "braun",
        "--class",
        "u_s_lohi",
        "--tasks",
        "64",
        "--seed",
        "7",
        "--out",
        braun.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("64 tasks x 16 machines, semi-consistent"));
    let first = std::fs::read(&braun).unwrap();
    // Same seed, same bytes.
    gridsched(&[
        "map",
        "generate",
        "--model",
        "braun",
        "--class",
        "u_s_lohi",
        "--tasks",
        "64",
        "--seed",
        "7",
        "--out",
        braun.to_str().unwrap(),
    ]);
    assert_eq!(first, std::fs::read(&braun).unwrap());
    let out = gridsched(&[
        "map",
        "--heuristic",
        "duplex",
        "--etc",
        braun.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let kumar = dir.path().join("kumar.csv");
    let out = gridsched(&[
        "map",
        "generate",
        "--model",
        "kumar",
        "--case",
        "2",
        "--tasks",
        "200",
        "--out",
        kumar.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = gridsched(&[
        "map",
        "--heuristic",
        "sas",
        "--etc",
        kumar.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("200 tasks x 10 machines, consistent"));
    let out = gridsched(&[
        "map",
        "generate",
        "--model",
        "kumar",
        "--case",
        "4",
        "--out",
        kumar.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
}

#[test]
fn map_generate_writes_to_standard_output() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args([
            "map",
            "generate",
            "--model",
            "braun",
            "--tasks",
            "4",
            "--machines",
            "2",
            "--seed",
            "1",
            "--out",
            "-",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(csv.lines().count(), 5, "a header and four tasks:\n{csv}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote standard output"));
}
