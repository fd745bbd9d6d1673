//! Fuzzes the option values with units that commands parse themselves
//! (`gridsched_cli::input::values` and `::times`) and the server-rates file of `schedule
//! hetero --rates-file` (`input::requests::parse_rates`): arbitrary text through every parser.
//! Nothing may panic; a value that parses is within the bounds its option documents
//! (`hierarchy --size` 1 B to 10^15 B, the hierarchy's means 1 ms to 10^6 h and OS-change means
//! at least 1 s, `coalloc`'s durations 1 s to 10^12 s, log times 0 to 10^12 s, rates in (0, 1]);
//! errors quote the text or, for the rates file, start with the file's name.
//! Run: `cargo +nightly fuzz run --sanitizer none values`.
#![no_main]

use gridsched_cli::input::requests::parse_rates;
use gridsched_cli::input::times::{parse_signed_time, parse_time, parse_window};
use gridsched_cli::input::values::{
    MAX_MEAN_MS, MIN_OS_CHANGE_MS, parse_duration_ms, parse_duration_s, parse_hours,
    parse_os_changes, parse_range, parse_size,
};
use gridsched_sim::MAX_SECONDS;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_size(text) {
        Ok(b) => assert!((1..=1_000_000_000_000_000).contains(&b), "{text:?}: {b} B"),
        Err(e) => assert!(e.to_string().contains(text), "{text:?}: {e}"),
    }
    match parse_duration_ms(text) {
        Ok(ms) => assert!((1..=MAX_MEAN_MS).contains(&ms), "{text:?}: {ms} ms"),
        Err(e) => assert!(e.to_string().contains(text), "{text:?}: {e}"),
    }
    if let Ok(changes) = parse_os_changes(text) {
        assert!(!changes.means_ms.is_empty(), "{text:?}: no means");
        for &ms in &changes.means_ms {
            assert!(
                (MIN_OS_CHANGE_MS..=MAX_MEAN_MS).contains(&ms),
                "{text:?}: {ms} ms"
            );
        }
    }
    match parse_duration_s(text) {
        Ok(s) => assert!((1..=MAX_SECONDS).contains(&s), "{text:?}: {s} s"),
        Err(e) => assert!(e.contains(text), "{text:?}: {e}"),
    }
    // `--min-fragment` and `--mips-range` are range-checked by the models they configure
    // (`HeteroConfig::validate`, the Kumar generator): any number may come back.
    let _ = parse_hours(text);
    let _ = parse_range(text);
    if let Ok(t) = parse_time(text) {
        assert!((0..=MAX_SECONDS).contains(&t), "{text:?}: {t} s");
    }
    if let Ok(t) = parse_signed_time(text) {
        assert!(t.abs() <= MAX_SECONDS, "{text:?}: {t} s");
    }
    if let Ok((a, b)) = parse_window(text) {
        assert!((0..=MAX_SECONDS).contains(&a) && (0..=MAX_SECONDS).contains(&b));
    }
    match parse_rates(text, "rates.txt") {
        Ok(rates) => {
            assert!(!rates.is_empty(), "{text:?}: no rates");
            for r in rates {
                assert!(r > 0.0 && r <= 1.0, "{text:?}: rate {r}");
            }
        }
        Err(e) => assert!(e.to_string().starts_with("rates.txt:"), "{text:?}: {e}"),
    }
});
