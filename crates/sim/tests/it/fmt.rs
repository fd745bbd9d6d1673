//! The fast formatters write exactly what `format!` / `csv::Writer` write.

use gridsched_sim::fmt::{
    PUT_ROOM, push_csv_field, push_f64, push_f64_fixed, push_int, put_i64, put_u64,
};
use proptest::prelude::*;

fn display(v: f64) -> String {
    let mut out = Vec::new();
    push_f64(&mut out, v);
    String::from_utf8(out).unwrap()
}

fn fixed(v: f64, p: usize) -> String {
    let mut out = Vec::new();
    push_f64_fixed(&mut out, v, p);
    String::from_utf8(out).unwrap()
}

/// Floats from every corner: raw bit patterns (subnormals, NaNs with payloads, infinities,
/// both zeros), values with few decimals (as in the outputs: times, ratios), integers, powers
/// of two and ten, and exact ties for rounding.
fn any_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        (any::<i64>(), 0u32..12).prop_map(|(m, e)| m as f64 / 10f64.powi(e as i32)),
        (-1_000_000_000i64..1_000_000_000, 1i64..100_000).prop_map(|(a, b)| a as f64 / b as f64),
        any::<i32>().prop_map(f64::from),
        (-1074i32..1024).prop_map(|e| 2f64.powi(e)),
        (-323i32..309).prop_map(|e| 10f64.powi(e)),
        (any::<i32>(), 1u32..30).prop_map(|(m, e)| (f64::from(m) + 0.5) / f64::from(1u32 << e)),
        Just(0.0),
        Just(-0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn f64_matches_display(v in any_float()) {
        prop_assert_eq!(display(v), format!("{v}"), "{:?}", v);
    }

    #[test]
    fn f64_fixed_matches_format(v in any_float(), p in 0usize..13) {
        prop_assert_eq!(fixed(v, p), format!("{v:.p$}"), "{:?} .{}", v, p);
    }

    #[test]
    fn integers_match_display(a in any::<i64>(), b in any::<u64>(), c in any::<u32>()) {
        let mut out = Vec::new();
        push_int(&mut out, a);
        out.push(b',');
        push_int(&mut out, b);
        out.push(b',');
        push_int(&mut out, c);
        prop_assert_eq!(String::from_utf8(out).unwrap(), format!("{a},{b},{c}"));
    }

    /// Every digit count (values near powers of ten, and small ones) and the extremes.
    #[test]
    fn u64_and_i64_match_display(
        e in 0u32..20,
        d in -3i64..3,
        small in 0u64..1000,
        a in any::<i64>(),
        b in any::<u64>(),
    ) {
        let near = 10u64.pow(e).saturating_add_signed(d);
        let unsigned = [near, small, b, 0, u64::MAX];
        let signed = [near as i64, (near as i64).wrapping_neg(), small as i64, -(small as i64), a, i64::MIN, i64::MAX];
        let mut buf = vec![b'#'; 12 * PUT_ROOM];
        let mut at = 0;
        let mut expected = String::new();
        for v in unsigned {
            at = put_u64(&mut buf, at, v);
            buf[at] = b',';
            at += 1;
            expected.push_str(&format!("{v},"));
        }
        for v in signed {
            at = put_i64(&mut buf, at, v);
            buf[at] = b',';
            at += 1;
            expected.push_str(&format!("{v},"));
        }
        let out = buf[..at].to_vec();
        prop_assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn csv_field_matches_csv_writer(field in "[a-z,\"\r\n #0-9\t]{0,12}", other in "[a-z0-9]{0,4}") {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([field.as_str(), other.as_str()]).unwrap();
        let expected = w.into_inner().unwrap();
        let mut out = Vec::new();
        push_csv_field(&mut out, field.as_bytes());
        out.push(b',');
        push_csv_field(&mut out, other.as_bytes());
        out.push(b'\n');
        prop_assert_eq!(out, expected);
    }
}

/// A longer sweep than the property tests (`cargo test --release -p gridsched-sim --test it
/// fmt:: -- --ignored`): 2 × 10⁷ floats from raw bit patterns and from times with few decimals.
#[test]
#[ignore = "long: 20 million values"]
fn long_sweep_matches_std() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..20_000_000u64 {
        let r = next();
        let v = if i % 2 == 0 {
            f64::from_bits(r)
        } else {
            (r % 1_000_000_000) as f64 / [1.0, 8.0, 1000.0, 3.0, 1024.0][(r >> 60) as usize % 5]
        };
        assert_eq!(display(v), format!("{v}"), "{v:?}");
        let p = (r >> 40) as usize % 10;
        assert_eq!(fixed(v, p), format!("{v:.p$}"), "{v:?} .{p}");
    }
}
