//! Number formatting for large CSV outputs: the bytes `std`'s `Display` writes, appended to a
//! byte buffer without an allocation or a trip through `core::fmt`.
//!
//! - [`push_int`]: any primitive integer, as `format!("{v}")` (via `itoa`); [`put_u64`] and
//!   [`put_i64`] the same for 64-bit integers at a cursor in a buffer, without a `memcpy`
//!   call per number.
//! - [`push_f64`]: an `f64` as `format!("{v}")`: the shortest digits that read back to the same
//!   value (via `ryu`), always in positional notation (`1e16` is written
//!   `10000000000000000`, `1e-7` is `0.0000001`), `-0` for negative zero, `NaN`, `inf`,
//!   `-inf`.
//! - [`push_f64_fixed`]: an `f64` with a fixed number of decimals, as `format!("{v:.p$}")`:
//!   the exact binary value rounded half to even, computed in 128-bit integer arithmetic
//!   (values `std` would print with more than 39 integer digits take `std`'s path).
//! - [`push_csv_field`]: a text field as the `csv` crate's default writer quotes it.
//!
//! Each is property-tested against `format!` / `csv::Writer` (`tests/it/fmt.rs`).

/// Appends `v` as `format!("{v}")` would write it.
#[inline]
pub fn push_int<I: itoa::Integer>(out: &mut Vec<u8>, v: I) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(v).as_bytes());
}

/// The eight decimal digits of `v` < 10^8 as ASCII, the most significant first in memory
/// order (byte 0 of the little-endian `u64`). Computed in lanes of one register: the two
/// halves of four digits in 32-bit lanes, divided by 100 in 16-bit lanes, by 10 in bytes; the
/// divisions are multiplications by reciprocals that are exact on these ranges
/// (`x * 5243 >> 19 = x / 100` for x < 10^4, `x * 103 >> 10 = x / 10` for x < 100; checked
/// exhaustively in the tests below).
#[inline]
fn eight_digits(v: u64) -> u64 {
    debug_assert!(v < 100_000_000);
    let m = (v / 10_000) | ((v % 10_000) << 32);
    let hi = ((m * 5243) >> 19) & 0x0000_007f_0000_007f;
    let m = hi | ((m - hi * 100) << 16);
    let hi = ((m * 103) >> 10) & 0x000f_000f_000f_000f;
    let m = hi | ((m - hi * 10) << 8);
    m | 0x3030_3030_3030_3030
}

/// Room [`put_u64`] and [`put_i64`] need after the cursor: they store whole 8-byte blocks.
pub const PUT_ROOM: usize = 24;

/// Writes `v` as `format!("{v}")` would at `buf[at..]` and returns the cursor after it; bytes
/// after the cursor, up to `at + PUT_ROOM`, may be overwritten. For rows with many integer
/// fields (the Batsim jobs CSV): the digits are made in a register (`eight_digits`) and
/// stored as 8-byte blocks, so there is neither a `memcpy` call for a few bytes (what
/// [`push_int`] pays per number) nor single digits stored and read back as a block (a
/// store-forwarding stall). Values of 17 digits or more go through `itoa`. Panics if
/// `buf` has fewer than [`PUT_ROOM`] bytes from `at` on.
#[inline]
pub fn put_u64(buf: &mut [u8], at: usize, v: u64) -> usize {
    const E8: u64 = 100_000_000;
    let room = &mut buf[at..at + PUT_ROOM];
    if v < E8 {
        let n = v.checked_ilog10().map_or(1, |d| d as usize + 1);
        room[..8].copy_from_slice(&(eight_digits(v) >> (8 * (8 - n))).to_le_bytes());
        at + n
    } else if v < E8 * E8 {
        let (hi, lo) = (v / E8, v % E8);
        let n = hi.ilog10() as usize + 1;
        room[..8].copy_from_slice(&(eight_digits(hi) >> (8 * (8 - n))).to_le_bytes());
        room[n..n + 8].copy_from_slice(&eight_digits(lo).to_le_bytes());
        at + n + 8
    } else {
        let mut b = itoa::Buffer::new();
        let text = b.format(v).as_bytes();
        room[..text.len()].copy_from_slice(text);
        at + text.len()
    }
}

/// [`put_u64`] for an `i64`: a `-`, then the magnitude (at most 20 bytes in all).
#[inline]
pub fn put_i64(buf: &mut [u8], at: usize, v: i64) -> usize {
    if v < 0 {
        buf[at] = b'-';
        put_u64(buf, at + 1, v.unsigned_abs())
    } else {
        put_u64(buf, at, v as u64)
    }
}

/// Appends `v` as `format!("{v}")` would write it (shortest round-trip digits, positional
/// notation).
pub fn push_f64(out: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        out.extend_from_slice(if v.is_nan() {
            b"NaN"
        } else if v > 0.0 {
            b"inf"
        } else {
            b"-inf"
        });
        return;
    }
    if v.is_sign_negative() {
        out.push(b'-');
    }
    if v == 0.0 {
        out.push(b'0');
        return;
    }
    let mut buf = ryu::Buffer::new();
    // `ryu` writes `d.ddd`, `ddd.d`, `ddd.0`, `0.000ddd` (what `Display` writes, but for the
    // `.0` of integers) or, outside [1e-5, 1e16), `de±x` / `d.ddde±x` (no sign: `v.abs()`).
    let text = buf.format_finite(v.abs()).as_bytes();
    if let Some(dot) = text.iter().position(|&c| c == b'.')
        && !text.contains(&b'e')
    {
        let (int, frac) = (&text[..dot], &text[dot + 1..]);
        if frac == b"0" {
            // An integer below 1e16; ties are only possible at or above 2^53.
            if v.abs() >= 9_007_199_254_740_992.0 && int.ends_with(b"0") {
                std_display(out, v.abs());
            } else {
                out.extend_from_slice(int);
            }
        } else if may_be_tie(v, -(frac.len() as i32)) {
            std_display(out, v.abs());
        } else {
            out.extend_from_slice(text);
        }
        return;
    }
    // Scientific notation: collect the significant digits and the decimal exponent `point`
    // of `value = 0.d₁d₂…dₙ × 10^point`.
    let (mantissa, exp) = match text.iter().position(|&c| c == b'e') {
        Some(e) => (&text[..e], parse_exp(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 24];
    let mut n = 0usize;
    let mut int_digits = 0i32;
    let mut seen_point = false;
    for &c in mantissa {
        if c == b'.' {
            seen_point = true;
            continue;
        }
        if n == 0 && c == b'0' {
            // A leading zero (`0.00123`): moves the point, not a digit.
            if seen_point {
                int_digits -= 1;
            }
            continue;
        }
        digits[n] = c;
        n += 1;
        if !seen_point {
            int_digits += 1;
        }
    }
    // Trailing zeros of the mantissa (`1.0`, `100.0`) are not significant digits.
    let mut last = n;
    while last > 0 && digits[last - 1] == b'0' {
        last -= 1;
    }
    let digits = &digits[..last];
    let point = int_digits + exp;
    let n = digits.len() as i32;
    if may_be_tie(v, point - n) {
        // `ryu` breaks an exact tie between two shortest candidates to the even digit, `std`
        // away from zero; let `std` write the rare value where that can differ (the sign is
        // already written).
        std_display(out, v.abs());
        return;
    }
    if point <= 0 {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-point) as usize, b'0');
        out.extend_from_slice(digits);
    } else if point < n {
        let p = point as usize;
        out.extend_from_slice(&digits[..p]);
        out.push(b'.');
        out.extend_from_slice(&digits[p..]);
    } else {
        out.extend_from_slice(digits);
        out.resize(out.len() + (point - n) as usize, b'0');
    }
}

/// Whether `v`'s exact value could lie exactly halfway between two candidates whose last digit
/// has weight `10^last` (then `ryu` and `std` may choose differently). `|v| = m · 2^k` with `m`
/// odd: a fraction (`k < 0`) has exactly `-k` decimals, the last a 5, so it is a tie exactly
/// when those end one place below `10^last`; an integer can only be one when `last ≥ 1` and
/// it is at least 2^53 (below, neighbouring doubles are at most 1 apart and the integer's own
/// digits are the shortest form).
fn may_be_tie(v: f64, last: i32) -> bool {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (m, k) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let k = k + m.trailing_zeros() as i32;
    if k >= 0 {
        // An integer below 2^53 is its own shortest form.
        last >= 1 && v.abs() >= 9_007_199_254_740_992.0
    } else {
        -k == 1 - last
    }
}

fn std_display(out: &mut Vec<u8>, v: f64) {
    use std::io::Write as _;
    // Writing to a `Vec` cannot fail.
    let _ = write!(out, "{v}");
}

fn parse_exp(s: &[u8]) -> i32 {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let v = digits
        .iter()
        .fold(0i32, |acc, &c| acc * 10 + i32::from(c - b'0'));
    if neg { -v } else { v }
}

/// `10^p` for the precisions [`push_f64_fixed`] computes itself.
const POW10: [u128; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Appends `v` with `decimals` digits after the point, as `format!("{v:.decimals$}")` would
/// write it: the exact value of `v` rounded half to even, `-` kept on negative values that
/// round to zero (`-0.000000`), `NaN`, `inf`, `-inf`.
pub fn push_f64_fixed(out: &mut Vec<u8>, v: f64, decimals: usize) {
    if !v.is_finite() || decimals >= POW10.len() {
        std_fixed(out, v, decimals);
        return;
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    // |v| = m · 2^k exactly.
    let (m, k) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let scale = POW10[decimals];
    // m < 2^53 and scale < 2^30, so `x` < 2^83.
    let x = u128::from(m) * scale;
    let scaled = if k >= 0 {
        if k > 44 {
            // |v| ≥ 2^97: beyond what 128 bits hold after scaling; rare in any output.
            std_fixed(out, v, decimals);
            return;
        }
        x << k
    } else {
        let shift = (-k) as u32;
        if shift >= 128 {
            // x < 2^83 ≤ half of 2^shift: rounds to zero.
            0
        } else {
            let q = x >> shift;
            let r = x & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            if r > half || (r == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        }
    };
    if v.is_sign_negative() {
        out.push(b'-');
    }
    let mut buf = itoa::Buffer::new();
    // 64-bit arithmetic where it suffices (128-bit division is a library call).
    let frac = match u64::try_from(scaled) {
        Ok(s) => {
            let scale = scale as u64;
            out.extend_from_slice(buf.format(s / scale).as_bytes());
            s % scale
        }
        Err(_) => {
            out.extend_from_slice(buf.format(scaled / scale).as_bytes());
            (scaled % scale) as u64
        }
    };
    if decimals > 0 {
        out.push(b'.');
        let f = buf.format(frac).as_bytes();
        out.resize(out.len() + decimals - f.len(), b'0');
        out.extend_from_slice(f);
    }
}

fn std_fixed(out: &mut Vec<u8>, v: f64, decimals: usize) {
    use std::io::Write as _;
    // Writing to a `Vec` cannot fail.
    let _ = write!(out, "{v:.decimals$}");
}

/// Appends a text field as the `csv` crate's default writer (`QuoteStyle::Necessary`, `,`
/// delimiter, `"` quote, doubled quotes) writes a field of a record with more than one field:
/// quoted when it holds a `,`, a `"`, a `\r` or a `\n`, each `"` doubled inside the quotes.
pub fn push_csv_field(out: &mut Vec<u8>, field: &[u8]) {
    if !field
        .iter()
        .any(|&c| matches!(c, b',' | b'"' | b'\r' | b'\n'))
    {
        out.extend_from_slice(field);
        return;
    }
    out.push(b'"');
    for &c in field {
        if c == b'"' {
            out.push(b'"');
        }
        out.push(c);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(v: f64) -> String {
        let mut out = Vec::new();
        push_f64(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    fn fixed(v: f64, p: usize) -> String {
        let mut out = Vec::new();
        push_f64_fixed(&mut out, v, p);
        String::from_utf8(out).unwrap()
    }

    /// The reciprocals [`eight_digits`] divides by, on every value of their ranges, and the
    /// digits of every power of ten and its neighbours.
    #[test]
    fn eight_digits_is_exact() {
        for x in 0u64..10_000 {
            assert_eq!((x * 5243) >> 19, x / 100, "{x}");
        }
        for x in 0u64..100 {
            assert_eq!((x * 103) >> 10, x / 10, "{x}");
        }
        for e in 0..8 {
            for v in [10u64.pow(e) - 1, 10u64.pow(e), 10u64.pow(e) + 1, 99_999_999] {
                assert_eq!(eight_digits(v).to_le_bytes(), *format!("{v:08}").as_bytes());
            }
        }
    }

    #[test]
    fn edge_floats_match_display() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            1e15,
            1e16,
            1e17,
            1.5e300,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-7,
            1.234e-5,
            0.000123,
            123456.789,
            9007199254740993.0,
            // An exact tie between two 16-digit candidates (-543736.82861328125).
            -4_454_292_100.0 / 8192.0,
            2f64.powi(60),
            2f64.powi(-20),
            10.0,
            1230.0,
            9.1e15,
            9007199254740994.0,
            9999999999999998.0,
            4503599627370496.0 + 1.5,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(shown(v), format!("{v}"), "{v:?}");
        }
    }

    #[test]
    fn fixed_rounds_half_to_even_like_std() {
        for (v, p) in [
            (0.5, 0),
            (1.5, 0),
            (2.5, 0),
            (0.25, 1),
            (0.125, 2),
            (1.0078125, 6),
            (-0.0, 6),
            (-1e-9, 6),
            (1e16, 6),
            (2f64.powi(96), 6),
            (2f64.powi(97), 6),
            (1e300, 3),
            (5e-324, 9),
            (123456789.125, 2),
            (f64::NAN, 6),
            (f64::NEG_INFINITY, 6),
            (0.1, 12),
        ] {
            assert_eq!(fixed(v, p), format!("{v:.p$}"), "{v:?} .{p}");
        }
    }

    #[test]
    fn integers_match_display() {
        let mut out = Vec::new();
        push_int(&mut out, i64::MIN);
        out.push(b' ');
        push_int(&mut out, u64::MAX);
        out.push(b' ');
        push_int(&mut out, 0u32);
        assert_eq!(out, format!("{} {} 0", i64::MIN, u64::MAX).as_bytes());
    }
}
