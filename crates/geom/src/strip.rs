//! The partition of the time axis into strips of equal width (Castillo §3.2.1, footnote 2).

use crate::period::Time;

/// Absolute strip number: `floor(t / width)`. Absolute numbers never wrap; a ring of trees maps
/// them to slots modulo its length.
pub type StripId = i64;

/// Strip id given to `+inf` (the end of a server's tail), larger than every finite strip.
pub const INFINITE_STRIP: StripId = StripId::MAX;

/// Strips of width `w = M * 2 * l_min`: each holds at most `M` idle periods per server, because
/// consecutive idle periods on a server are separated by a job of length >= `l_min` and are
/// themselves >= `l_min` long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StripGeometry {
    width: Time,
}

impl StripGeometry {
    /// Strips of the given width. Panics if `width` is not positive and finite (a programming
    /// error: schedulers validate their configuration before building an index).
    pub fn new(width: Time) -> Self {
        assert!(
            width.is_finite() && width > 0.0,
            "strip width must be positive, got {width}"
        );
        StripGeometry { width }
    }

    /// The thesis's strips: width `multiplier * 2 * l_min`.
    pub fn for_min_length(l_min: Time, multiplier: u32) -> Self {
        Self::new(f64::from(multiplier.max(1)) * 2.0 * l_min)
    }

    /// Strip width.
    pub fn width(&self) -> Time {
        self.width
    }

    /// The strip containing time `t` (`INFINITE_STRIP` for `+inf`).
    #[inline]
    pub fn strip_of(&self, t: Time) -> StripId {
        if t == Time::INFINITY {
            INFINITE_STRIP
        } else {
            floor_to_strip(t / self.width)
        }
    }

    /// Start of strip `g`.
    #[inline]
    pub fn strip_start(&self, g: StripId) -> Time {
        g as Time * self.width
    }
}

/// `x.floor() as StripId` for every `x` (NaN, infinities and out-of-range values included:
/// `as` saturates, and so does this), without the libm call `floor` compiles to on baseline
/// x86-64.
#[inline]
fn floor_to_strip(x: Time) -> StripId {
    let i = x as StripId; // truncates toward zero, saturating
    if (i as Time) > x && i != StripId::MIN {
        i - 1
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_matches_libm() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.999_999_999,
            -1.000_000_001,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            9.223_372_036_854_776e18,
            -9.223_372_036_854_776e18,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        let mut x: f64 = 1e-3;
        while x < 1e20 {
            let (up, down) = (
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            );
            xs.extend([x, -x, up, down, -up, -down]);
            x *= 1.37;
        }
        for x in xs {
            assert_eq!(floor_to_strip(x), x.floor() as StripId, "{x}");
        }
    }

    #[test]
    fn strip_numbers() {
        let g = StripGeometry::for_min_length(1.0, 1);
        assert_eq!(g.strip_of(0.0), 0);
        assert_eq!(g.strip_of(1.999), 0);
        assert_eq!(g.strip_of(2.0), 1);
        assert_eq!(g.strip_of(6.5), 3);
        assert_eq!(g.strip_of(f64::INFINITY), INFINITE_STRIP);
        assert_eq!(StripGeometry::for_min_length(1.0, 4).width(), 8.0);
    }
}
