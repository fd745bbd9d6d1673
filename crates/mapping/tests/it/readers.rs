//! The ETC readers never panic and always name the file and line: fuzz-style property tests on
//! random bytes and on mutated valid files, and the twelve real Braun instances.

use gridsched_mapping::io::{parse_braun, parse_csv, write_braun, write_csv};
use gridsched_mapping::{Consistency, EtcMatrix, data};
use proptest::prelude::*;

fn check_error_names_file(e: &gridsched_mapping::io::ParseError, lines: usize) {
    assert_eq!(e.file, "fuzz");
    assert!(e.line <= lines + 1, "line {} of {lines}", e.line);
    assert!(e.to_string().starts_with("fuzz:"));
    assert!(!e.message.is_empty());
}

fn lines_of(bytes: &[u8]) -> usize {
    bytes.split(|&b| b == b'\n').count()
}

fn small_matrix() -> impl Strategy<Value = EtcMatrix> {
    (1usize..6, 1usize..5).prop_flat_map(|(t, m)| {
        proptest::collection::vec(0.0f64..1e6, t * m)
            .prop_map(move |v| EtcMatrix::new(t, m, v).unwrap())
    })
}

/// A valid file with a few bytes replaced, inserted or deleted.
fn mutated(text: String) -> impl Strategy<Value = Vec<u8>> {
    let n = text.len().max(1);
    proptest::collection::vec((0..n, 0u8..3, any::<u8>()), 0..4).prop_map(move |edits| {
        let mut b = text.clone().into_bytes();
        for (at, kind, byte) in edits {
            let at = at.min(b.len());
            match kind {
                0 if at < b.len() => b[at] = byte,
                1 => b.insert(at, byte),
                _ if at < b.len() => {
                    b.remove(at);
                }
                _ => {}
            }
        }
        b
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn braun_reader_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        for shape in [None, Some((2, 2)), Some((1, 1))] {
            match parse_braun("fuzz", &bytes, shape) {
                Ok(m) => prop_assert!(m.values().iter().all(|v| v.is_finite() && *v >= 0.0)),
                Err(e) => check_error_names_file(&e, lines_of(&bytes)),
            }
        }
    }

    #[test]
    fn csv_reader_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        match parse_csv("fuzz", &bytes) {
            Ok(m) => prop_assert!(m.values().iter().all(|v| v.is_finite() && *v >= 0.0)),
            Err(e) => check_error_names_file(&e, lines_of(&bytes)),
        }
    }

    #[test]
    fn readers_never_panic_on_mutated_files(
        (m, braun_bytes, csv_bytes) in small_matrix().prop_flat_map(|m| {
            let b = write_braun(&m, true);
            let c = write_csv(&m);
            (Just(m), mutated(b), mutated(c))
        })
    ) {
        let _ = m;
        if let Err(e) = parse_braun("fuzz", &braun_bytes, None) {
            check_error_names_file(&e, lines_of(&braun_bytes));
        }
        if let Err(e) = parse_csv("fuzz", &csv_bytes) {
            check_error_names_file(&e, lines_of(&csv_bytes));
        }
    }

    #[test]
    fn writers_round_trip(m in small_matrix()) {
        prop_assert_eq!(&parse_braun("f", write_braun(&m, true).as_bytes(), None).unwrap(), &m);
        prop_assert_eq!(&parse_csv("f", write_csv(&m).as_bytes()).unwrap(), &m);
    }
}

#[test]
fn the_twelve_braun_instances() {
    let dir = data::data_dir(None);
    if !data::braun_path(&dir, "u_c_hihi").is_file() {
        eprintln!(
            "SKIPPED: Braun instances not found under {} (set {})",
            dir.display(),
            data::ENV
        );
        return;
    }
    for name in data::BRAUN_INSTANCES {
        let m = data::read_braun_instance(&dir, name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((m.tasks(), m.machines()), (512, 16));
        let class = Consistency::from_letter(name.as_bytes()[2] as char).unwrap();
        assert_eq!(m.consistency(), class, "{name}");
        // hi task × hi machine heterogeneity spans up to 3000 × 1000; lo × lo up to 100 × 10.
        let max = m.values().iter().copied().fold(0.0, f64::max);
        let bound = match &name[4..] {
            "hihi" => 3e6,
            "hilo" => 3e4,
            "lohi" => 1e5,
            _ => 1e3,
        };
        assert!(max <= bound && max > bound / 3.0, "{name}: max {max}");
    }
    // Headerless CRLF files read without a shape too (16 machines assumed).
    let bytes = std::fs::read(data::braun_path(&dir, "u_i_lolo")).unwrap();
    assert!(bytes.windows(2).any(|w| w == b"\r\n"));
    let m = parse_braun("u_i_lolo.0", &bytes, None).unwrap();
    assert_eq!((m.tasks(), m.machines()), (512, 16));
}
