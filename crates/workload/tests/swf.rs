//! Golden tests of the SWF reader on the Parallel Workloads Archive logs in the data folder
//! (`../shared/data/traces/`, or `$GRIDSCHED_DATA/traces/`), and robustness tests of the parser.

use std::io::Write;
use std::path::PathBuf;

use gridsched_workload::swf::{
    self, SwfLoadOptions, SwfReader, TraceSummary, data_dir, detect_gzip, ecdf, load_from,
    load_swf, trace_path,
};

/// The data folder, or `None` with a printed notice (the logs are present on CI machines).
fn traces() -> Option<PathBuf> {
    let data = data_dir(None);
    if data.join("traces").is_dir() {
        Some(data)
    } else {
        eprintln!(
            "NOTICE: {} has no traces/ folder; skipping the real-log golden tests (set GRIDSCHED_DATA)",
            data.display()
        );
        None
    }
}

/// (short name, first job line fields: job, submit, wait, run, procs, requested procs,
/// requested time; records; kept; header MaxProcs)
#[allow(clippy::type_complexity)]
const GOLDEN: [(&str, [i64; 7], u64, u64, Option<u64>); 6] = [
    (
        "CTC",
        [1, 0, 588_530, 937, 306, -1, 35_100],
        77_222,
        77_205,
        Some(338),
    ),
    (
        "KTH",
        [15, 599_850, 192_180, 3477, 4, 4, 53_940],
        28_476,
        28_467,
        Some(100),
    ),
    (
        "HPC2N",
        [11, 342_072, 32, 43_306, 32, 32, 43_200],
        202_871,
        202_871,
        Some(240),
    ),
    (
        "SDSC",
        [11, 566_129, 5, 28_826, 1, 1, 28_800],
        59_715,
        54_034,
        Some(128),
    ),
    (
        "LCG",
        [1, 0, -1, 83, 1, -1, 1200],
        188_041,
        187_520,
        Some(24_515),
    ),
    (
        "LPC",
        [9933, 3_585_977, 4, 16, 1, 1, 7200],
        234_889,
        214_322,
        Some(140),
    ),
];

fn o(v: Option<i64>) -> i64 {
    v.unwrap_or(-1)
}

#[test]
fn first_records_of_every_log() {
    let Some(data) = traces() else { return };
    for (name, first, records, kept, max_procs) in GOLDEN {
        let path = trace_path(&data, name);
        let mut r = SwfReader::open(&path).unwrap();
        assert_eq!(r.header().max_procs, max_procs, "{name}");
        let rec = r.next().unwrap().unwrap();
        let got = [
            rec.job as i64,
            o(rec.submit),
            o(rec.wait),
            o(rec.run_time),
            o(rec.allocated_procs.map(i64::from)),
            o(rec.requested_procs.map(i64::from)),
            o(rec.requested_time),
        ];
        assert_eq!(got, first, "{name}: first record");
        let log = load_swf(&path, SwfLoadOptions::default()).unwrap();
        assert_eq!(log.report.records, records, "{name}: records");
        assert_eq!(log.report.kept, kept, "{name}: kept ({:?})", log.report);
        assert_eq!(log.report.kept + log.report.skipped(), records, "{name}");
        assert_eq!(
            log.report.out_of_order, 0,
            "{name}: the archive logs are sorted"
        );
        assert!(log.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        // MaxRecords = records, or MaxRecords minus what the cleaning filters removed.
        let h = &log.header;
        let max_records = h.max_records.unwrap();
        assert!(
            max_records == records || max_records - h.removed_by_filters() == records,
            "{name}: MaxRecords {max_records}, filters {}",
            h.removed_by_filters()
        );
    }
}

#[test]
fn headers_are_typed() {
    let Some(data) = traces() else { return };
    let ctc = SwfReader::open(&trace_path(&data, "CTC")).unwrap();
    let h = ctc.header();
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.max_jobs, Some(79_302));
    assert_eq!(h.max_nodes, Some(338));
    assert_eq!(h.unix_start_time, Some(835_823_160));
    assert_eq!(h.time_zone_string.as_deref(), Some("US/Eastern"));
    assert_eq!(h.acknowledge.as_deref(), Some("Dan Dwyer and Steve Hotovy"));
    assert_eq!(h.queues.len(), 4);
    assert_eq!(h.queues[1].name, "astro");
    assert_eq!(h.cleaning_filters.len(), 1);
    assert_eq!(h.cleaning_filters[0].removed, 2080);
    assert!(h.is_cleaned());

    let hpc = SwfReader::open(&trace_path(&data, "HPC2N")).unwrap();
    let h = hpc.header();
    assert_eq!(h.max_jobs, Some(527_371));
    assert_eq!(h.partitions.len(), 2);
    assert_eq!(h.partitions[1].name, "ALL");
    assert_eq!(h.removed_by_filters(), 305_178 + 12_333 + 6984 + 5);

    let lpc = SwfReader::open(&trace_path(&data, "LPC")).unwrap();
    let h = lpc.header();
    assert_eq!(h.max_procs, Some(140));
    assert_eq!(h.max_runtime, Some(259_200));
    assert_eq!(h.time_zone, Some(3600));
    assert_eq!(h.queues.len(), 6);
    assert_eq!(h.cleaning_filters[0].removed, 9932);

    let lcg = SwfReader::open(&trace_path(&data, "LCG")).unwrap();
    assert_eq!(lcg.header().partitions.len(), 170);
    assert_eq!(lcg.header().max_partitions, Some(170));
}

/// The numbers of spec §7 (castillo-reservations.md, local data checks).
#[test]
fn summaries_match_the_spec_data_checks() {
    let Some(data) = traces() else { return };
    // (name, mean run h, F_run(2 h), batch max wait h, offered busy procs)
    for (name, mean_h, f2, max_wait_h, busy) in [
        ("CTC", 3.133, 0.670, 2008.7, 284.5),
        ("KTH", 2.465, 0.707, 272.23, 70.1),
        ("HPC2N", 4.729, 0.635, 2641.3, 144.4),
    ] {
        let log = load_swf(&trace_path(&data, name), SwfLoadOptions::default()).unwrap();
        let s = TraceSummary::of(&log);
        let run = s.run_time.unwrap();
        assert!(
            (run.mean / 3600.0 - mean_h).abs() < 0.001,
            "{name}: {}",
            run.mean
        );
        let mut runs: Vec<f64> = log.jobs.iter().map(|j| j.run as f64).collect();
        runs.sort_by(f64::total_cmp);
        assert!((ecdf(&runs, 7200.0) - f2).abs() < 0.001, "{name}");
        assert!(
            (s.wait.unwrap().max / 3600.0 - max_wait_h).abs() < 0.05,
            "{name}"
        );
        assert!(
            (s.offered_busy_procs - busy).abs() < 0.1,
            "{name}: {}",
            s.offered_busy_procs
        );
    }
}

#[test]
fn limit_reads_a_prefix_of_a_real_log() {
    let Some(data) = traces() else { return };
    let log = load_swf(
        &trace_path(&data, "KTH"),
        SwfLoadOptions { limit: Some(5000) },
    )
    .unwrap();
    assert_eq!(log.jobs.len(), 5000);
    assert!(log.report.truncated);
    assert_eq!(log.jobs[0].id, 15);
}

#[test]
fn checksum_matches_the_data_folder_list() {
    let Some(data) = traces() else { return };
    let sums = std::fs::read_to_string(data.join("SHA256SUMS")).unwrap();
    let line = sums
        .lines()
        .find(|l| l.ends_with("traces/KTH-SP2-1996-2.1-cln.swf.gz"))
        .expect("KTH in SHA256SUMS");
    let want = line.split_whitespace().next().unwrap();
    assert_eq!(swf::file_sha256(&trace_path(&data, "KTH")).unwrap(), want);
}

const SNIPPET: &str = "; Version: 2.2\n; MaxProcs: 8\n;\n\
    1 0 10 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n\
    2 5 -1 50 -1 -1 -1 4 60 -1 1 2 1 -1 1 -1 -1 -1\n";

#[test]
fn gzip_is_detected_by_magic_bytes() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(SNIPPET.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let plain = load_from(
        SwfReader::new(
            detect_gzip(std::io::Cursor::new(SNIPPET.as_bytes().to_vec())).unwrap(),
            "p",
        )
        .unwrap(),
        SwfLoadOptions::default(),
    )
    .unwrap();
    let zipped = load_from(
        SwfReader::new(detect_gzip(std::io::Cursor::new(bytes)).unwrap(), "p").unwrap(),
        SwfLoadOptions::default(),
    )
    .unwrap();
    assert_eq!(plain, zipped);
    assert_eq!(plain.jobs.len(), 2);
    assert_eq!(plain.jobs[1].procs, 4);
    assert_eq!(plain.report.procs_from_requested, 1);
}

#[test]
fn corrupt_gzip_is_an_error_with_a_line() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(SNIPPET.repeat(50).as_bytes()).unwrap();
    let mut bytes = gz.finish().unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    let result = SwfReader::new(
        detect_gzip(std::io::Cursor::new(bytes)).unwrap(),
        "bad.swf.gz",
    )
    .and_then(|r| load_from(r, SwfLoadOptions::default()));
    let err = result.unwrap_err().to_string();
    assert!(err.starts_with("bad.swf.gz:"), "{err}");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(bytes: &[u8]) {
        if let Ok(r) = SwfReader::new(bytes, "fuzz") {
            let _ = load_from(r, SwfLoadOptions::default());
        }
        if let Ok(input) = detect_gzip(std::io::Cursor::new(bytes.to_vec()))
            && let Ok(r) = SwfReader::new(input, "fuzz")
        {
            let _ = load_from(r, SwfLoadOptions::default());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any bytes: no panic (the equivalent of the cargo-fuzz target `fuzz/fuzz_targets/swf.rs`).
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            parse_all(&bytes);
        }

        /// Lines made of SWF-like tokens (numbers, -1, decimals, junk, comments).
        #[test]
        fn random_lines_never_panic(lines in proptest::collection::vec(
            proptest::collection::vec(
                prop_oneof![
                    Just("-1".to_string()),
                    Just(";".to_string()),
                    Just("; MaxProcs:".to_string()),
                    Just("1.5".to_string()),
                    Just("99999999999999999999".to_string()),
                    Just("-9223372036854775808".to_string()),
                    Just("inf".to_string()),
                    (0i64..100_000).prop_map(|v| v.to_string()),
                    "[ -~]{0,6}",
                ],
                0..22,
            ),
            0..12,
        )) {
            let text: String = lines.iter().map(|l| l.join(" ") + "\n").collect();
            parse_all(text.as_bytes());
        }

        /// Well-formed records always parse, and unknowns come back as `None`.
        #[test]
        fn well_formed_records_parse(fields in proptest::collection::vec(-1i64..1_000_000, 18)) {
            let mut fields = fields;
            fields[0] = fields[0].max(0);
            let line: Vec<String> = fields.iter().map(i64::to_string).collect();
            let rec = swf::parse_record(line.join("  ").as_bytes(), 1).unwrap();
            prop_assert_eq!(rec.submit, (fields[1] >= 0).then_some(fields[1]));
            prop_assert_eq!(rec.run_time, (fields[3] >= 0).then_some(fields[3]));
        }
    }
}
