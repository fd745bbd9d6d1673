//! Paper-style SVG figures: line plots with 95% CI error bars, empirical-CDF step plots,
//! grouped bar charts (categorical axes, CI bars, the document's values as markers) and Gantt
//! charts.
//!
//! Figures are the artefacts reviewers compare against the original papers, so they must look
//! like paper figures (boxed axes, light grid, legend, distinct markers that survive grayscale
//! printing) and be reproducible bit-for-bit: the same [`Figure`] always renders to the same SVG
//! bytes. Text is laid out with an embedded DejaVu Sans registered through plotters' `ab_glyph`
//! support, so no system font lookup (and no fontconfig) is involved; tick positions and labels
//! are computed here rather than by plotters so they are stable and readable on log axes.

use std::ops::Range;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::FontTransform;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every rendered figure in pixels (fixed so report pages line up).
pub const WIDTH: u32 = 800;
/// Height of every rendered figure in pixels.
pub const HEIGHT: u32 = 560;

/// The font family name every text element uses; it maps to the embedded font.
const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Okabe–Ito colour-blind-safe palette, yellow last because it is faint on white.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(240, 228, 66),  // yellow
];
/// Dash patterns (dash, gap) for step series, which have no markers to tell them apart.
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((9, 4)), Some((3, 3)), Some((16, 4))];

/// How values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base-10 logarithmic; every plotted value on this axis must be positive.
    Log10,
}

/// What the series of a figure look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotKind {
    /// Lines with one marker per point and vertical 95% CI error bars (sweep results).
    Lines,
    /// Post-step lines (horizontal, then vertical at the next x) without markers or error bars
    /// (empirical CDFs); CI bounds are ignored, and a one-point series draws nothing. Series
    /// differ by colour and dash pattern.
    Steps,
}

/// One point of a series; `y_low == y_high == y` means no error bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotPoint {
    pub x: f64,
    pub y: f64,
    pub y_low: f64,
    pub y_high: f64,
}

impl PlotPoint {
    /// A point without an error bar.
    pub fn new(x: f64, y: f64) -> Self {
        Self::with_ci(x, y, 0.0)
    }

    /// A point with a symmetric confidence interval `y ± half_width`.
    pub fn with_ci(x: f64, y: f64, half_width: f64) -> Self {
        Self {
            x,
            y,
            y_low: y - half_width,
            y_high: y + half_width,
        }
    }
}

/// A named curve; its index in [`Figure::series`] fixes its colour, marker and dash pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotSeries {
    pub name: String,
    /// Drawn in ascending `x` order (points are sorted, stably, before drawing).
    pub points: Vec<PlotPoint>,
}

/// Everything needed to draw one figure; rendering is a pure function of this value.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Chart title; wrapped onto two lines at 22–16 px when it does not fit on one, and onto
    /// up to four at 15–13 px when it does not fit on two, never inside `a = b`.
    pub caption: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    /// `None` computes the range from the data with a small margin.
    pub x_range: Option<(f64, f64)>,
    /// `None` computes the range from the data including CI bars; a linear axis starts at 0
    /// when all data are non-negative so magnitudes are not exaggerated.
    pub y_range: Option<(f64, f64)>,
    pub kind: PlotKind,
    pub series: Vec<PlotSeries>,
}

/// Which axis an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
}

/// Why a figure could not be rendered; rendering never panics.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("nothing to plot: no series has a point with finite x and y")]
    NoData,
    #[error("series {series:?} has {axis:?} = {value}, not representable on a log10 axis")]
    NonPositiveOnLogAxis {
        axis: Axis,
        series: String,
        value: f64,
    },
    #[error("invalid {axis:?} range ({lo}, {hi}): need finite lo < hi, and lo > 0 on a log axis")]
    InvalidRange { axis: Axis, lo: f64, hi: f64 },
    #[error("the embedded font could not be registered with plotters")]
    Font,
    #[error("plot backend failed: {0}")]
    Backend(String),
    #[error("invalid chart element: {0}")]
    InvalidElement(String),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Backend(e.to_string())
    }
}

/// Registers the embedded font once per process; plotters' `ab_glyph` mode fails on any
/// family that was not registered, so system fonts can never leak into the layout.
fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()
    });
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// A point mapped to axis space (log10 applied); `lo` is `-inf` for a bar reaching `<= 0` on
/// a log axis, which is drawn down to the axis.
#[derive(Debug, Clone, Copy)]
struct Pt {
    x: f64,
    y: f64,
    lo: f64,
    hi: f64,
}

fn to_axis(v: f64, scale: Scale) -> Option<f64> {
    match scale {
        Scale::Linear => Some(v),
        Scale::Log10 => (v > 0.0).then(|| v.log10()),
    }
}

/// Drops non-finite points, maps to axis space and sorts by x.
fn prepare(fig: &Figure) -> Result<Vec<Vec<Pt>>, PlotError> {
    let mut all = Vec::with_capacity(fig.series.len());
    for s in &fig.series {
        let mut pts = Vec::with_capacity(s.points.len());
        for p in s
            .points
            .iter()
            .filter(|p| p.x.is_finite() && p.y.is_finite())
        {
            let bad = |axis, value| PlotError::NonPositiveOnLogAxis {
                axis,
                series: s.name.clone(),
                value,
            };
            let x = to_axis(p.x, fig.x_scale).ok_or_else(|| bad(Axis::X, p.x))?;
            let y = to_axis(p.y, fig.y_scale).ok_or_else(|| bad(Axis::Y, p.y))?;
            let bar =
                |v: f64, pick: fn(f64, f64) -> f64| if v.is_finite() { pick(v, p.y) } else { p.y };
            let (lo, hi) = (bar(p.y_low, f64::min), bar(p.y_high, f64::max));
            let lo = to_axis(lo, fig.y_scale).unwrap_or(f64::NEG_INFINITY);
            let hi = to_axis(hi, fig.y_scale).unwrap_or(y);
            pts.push(Pt { x, y, lo, hi });
        }
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));
        all.push(pts);
    }
    if all.iter().all(Vec::is_empty) {
        return Err(PlotError::NoData);
    }
    Ok(all)
}

/// The axis-space range: the user's (validated) or one fitted to `values`.
fn axis_range(
    axis: Axis,
    given: Option<(f64, f64)>,
    scale: Scale,
    values: impl Iterator<Item = f64>,
    zero_base: bool,
) -> Result<(f64, f64), PlotError> {
    if let Some((lo, hi)) = given {
        let invalid = PlotError::InvalidRange { axis, lo, hi };
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(invalid);
        }
        return match (to_axis(lo, scale), to_axis(hi, scale)) {
            (Some(a), Some(b)) if a < b => Ok((a, b)),
            _ => Err(invalid),
        };
    }
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return Err(PlotError::NoData);
    }
    let zero_base = zero_base && scale == Scale::Linear && lo >= 0.0;
    if zero_base {
        lo = 0.0;
    }
    let span = hi - lo;
    if span <= 1e-12 * hi.abs().max(lo.abs()) {
        // Degenerate (single value): pad so the value sits mid-axis.
        let pad = match scale {
            Scale::Log10 => 0.5,
            Scale::Linear if hi != 0.0 => hi.abs() * 0.1,
            Scale::Linear => 1.0,
        };
        (lo, hi) = (if zero_base { 0.0 } else { lo - pad }, hi + pad);
    } else {
        let margin = if axis == Axis::X { 0.03 } else { 0.05 } * span;
        (lo, hi) = (if zero_base { 0.0 } else { lo - margin }, hi + margin);
    }
    if lo.is_finite() && hi.is_finite() && lo < hi {
        Ok((lo, hi))
    } else {
        Err(PlotError::InvalidRange { axis, lo, hi })
    }
}

/// Tick positions (axis space) with their labels, plus minor grid positions.
#[derive(Debug, Default)]
struct Ticks {
    major: Vec<(f64, String)>,
    minor: Vec<f64>,
}

impl Ticks {
    /// The label of the tick nearest to `v` (plotters hands back exactly our tick values).
    fn label(&self, v: f64) -> String {
        let dist = |t: &&(f64, String)| (t.0 - v).abs();
        let nearest = self.major.iter().min_by(|a, b| dist(a).total_cmp(&dist(b)));
        nearest.map(|t| t.1.clone()).unwrap_or_default()
    }
}

fn superscript(n: i32) -> String {
    let digits = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let sign = if n < 0 { "⁻" } else { "" };
    let body: String = n
        .unsigned_abs()
        .to_string()
        .bytes()
        .map(|b| digits[usize::from(b - b'0')])
        .collect();
    format!("{sign}{body}")
}

/// Formats tick `v` (a multiple of `step`) with just enough decimals; when the axis magnitude
/// `axis_mag` (decimal exponent of its largest tick) is huge or tiny, every tick of the axis is
/// written as `m×10ⁿ` with the common exponent `axis_mag`, so labels stay short and comparable.
fn format_tick(v: f64, step: f64, axis_mag: i32) -> String {
    let step_mag = step.log10().floor() as i32;
    if (-4..6).contains(&axis_mag) {
        let decimals = usize::try_from(-step_mag).unwrap_or(0);
        return format!("{v:.decimals$}");
    }
    if v == 0.0 {
        return "0".into();
    }
    let decimals = usize::try_from(axis_mag - step_mag).unwrap_or(0).min(10);
    let m = v / 10f64.powi(axis_mag);
    format!("{m:.decimals$}×10{}", superscript(axis_mag))
}

/// Round 1-2-5 step giving roughly `target` intervals over `span`.
fn nice_step(span: f64, target: f64) -> f64 {
    let rough = span / target;
    let mag = 10f64.powf(rough.log10().floor());
    let norm = rough / mag;
    let unit = [(1.5, 1.0), (3.0, 2.0), (7.0, 5.0)]
        .iter()
        .find(|u| norm < u.0)
        .map_or(10.0, |u| u.1);
    unit * mag
}

fn linear_ticks(lo: f64, hi: f64) -> Ticks {
    let step = nice_step(hi - lo, 6.0);
    if !(step.is_finite() && step > 0.0) {
        return Ticks::default();
    }
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    let values: Vec<f64> = (first..=last.min(first + 50))
        .map(|i| if i == 0 { 0.0 } else { i as f64 * step })
        .collect();
    let top = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let axis_mag = if top > 0.0 {
        top.log10().floor() as i32
    } else {
        0
    };
    let major = values
        .into_iter()
        .map(|v| (v, format_tick(v, step, axis_mag)))
        .collect();
    let minor = Vec::new();
    Ticks { major, minor }
}

/// Log-axis ticks at 10ⁿ, falling back to 1-2-5 and then 1..9 multiples on short ranges so
/// there are always at least three labelled ticks; minor grid lines at 2..9 × 10ⁿ.
fn log_ticks(lo: f64, hi: f64) -> Ticks {
    let (d0, d1) = (lo.floor().max(-300.0) as i32, hi.ceil().min(300.0) as i32);
    let inside = |t: f64| t >= lo - 1e-9 && t <= hi + 1e-9;
    let stride = ((d1 - d0) / 8).max(1);
    for mults in [&[1][..], &[1, 2, 5], &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
        let mut major: Vec<(f64, i32, i32)> = Vec::new();
        for d in (d0..=d1).filter(|d| mults.len() > 1 || d.rem_euclid(stride) == 0) {
            for &m in mults {
                let t = f64::from(m).log10() + f64::from(d);
                if inside(t) {
                    major.push((t, m, d));
                }
            }
        }
        if major.len() >= 3 {
            // One notation per axis: plain numbers for moderate decades, powers of ten otherwise.
            let plain = major.iter().all(|&(_, _, d)| (-2..=4).contains(&d));
            let label = |m: i32, d: i32| match (plain, m) {
                (true, _) => format_tick(f64::from(m) * 10f64.powi(d), 10f64.powi(d), 0),
                (false, 1) => format!("10{}", superscript(d)),
                (false, _) => format!("{m}×10{}", superscript(d)),
            };
            let minor = if d1 - d0 > 8 {
                Vec::new()
            } else {
                (d0..=d1)
                    .flat_map(|d| (2..10).map(move |m| f64::from(m).log10() + f64::from(d)))
                    .filter(|&t| inside(t) && !major.iter().any(|&(v, _, _)| (v - t).abs() < 1e-9))
                    .collect()
            };
            let major = major
                .into_iter()
                .map(|(t, m, d)| (t, label(m, d)))
                .collect();
            return Ticks { major, minor };
        }
    }
    // Less than ~0.3 decades: linear ticks in value space, placed on the log axis.
    let lin = linear_ticks(10f64.powf(lo), 10f64.powf(hi));
    let major = lin
        .major
        .into_iter()
        .filter(|(v, _)| *v > 0.0)
        .map(|(v, l)| (v.log10(), l))
        .collect();
    let minor = Vec::new();
    Ticks { major, minor }
}

/// One axis in axis space (log10 already applied) with its precomputed ticks; plotters'
/// own key-point and label logic is bypassed so ticks are nice on log axes too.
#[derive(Debug)]
struct TickedAxis {
    lo: f64,
    hi: f64,
    ticks: Ticks,
}

impl TickedAxis {
    /// A categorical axis over `[0, n)`: label `i` sits at `i + 0.5`.
    fn categorical(labels: &[String]) -> Self {
        let major = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64 + 0.5, l.clone()))
            .collect();
        Self {
            lo: 0.0,
            hi: labels.len().max(1) as f64,
            ticks: Ticks {
                major,
                minor: Vec::new(),
            },
        }
    }

    fn new(lo: f64, hi: f64, scale: Scale) -> Self {
        let ticks = match scale {
            Scale::Linear => linear_ticks(lo, hi),
            Scale::Log10 => log_ticks(lo, hi),
        };
        Self { lo, hi, ticks }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        RangedCoordf64::from(self.lo..self.hi).map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.ticks.minor.clone()
        } else {
            self.ticks.major.iter().map(|t| t.0).collect()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for TickedAxis {
    fn format(value: &f64) -> String {
        value.to_string()
    }

    fn format_ext(&self, value: &f64) -> String {
        self.ticks.label(*value)
    }
}

/// Clips a polyline to the rectangle `[x0, x1] × [y0, y1]` (Liang–Barsky per segment), so
/// user-chosen ranges never let lines escape the plot frame (plotters does not clip).
fn clip_polyline(pts: &[(f64, f64)], rect: (f64, f64, f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let (x0, x1, y0, y1) = rect;
    let mut out = Vec::new();
    let mut flush = |cur: &mut Vec<(f64, f64)>| {
        if cur.len() >= 2 {
            out.push(std::mem::take(cur));
        }
        cur.clear();
    };
    let mut cur = Vec::new();
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        for (p, q) in [
            (-dx, a.0 - x0),
            (dx, x1 - a.0),
            (-dy, a.1 - y0),
            (dy, y1 - a.1),
        ] {
            match p {
                0.0 if q < 0.0 => t0 = f64::INFINITY, // parallel to and outside this edge
                0.0 => {}
                _ if p < 0.0 => t0 = t0.max(q / p),
                _ => t1 = t1.min(q / p),
            }
        }
        if t0 > t1 {
            flush(&mut cur);
            continue;
        }
        let at = |t: f64| {
            if t <= 0.0 {
                a
            } else if t >= 1.0 {
                b
            } else {
                (a.0 + t * dx, a.1 + t * dy)
            }
        };
        if cur.last() != Some(&at(t0)) {
            flush(&mut cur);
            cur.push(at(t0));
        }
        cur.push(at(t1));
    }
    flush(&mut cur);
    out
}

/// The marker of series `idx`: filled shapes first, then open ones, so that eight series stay
/// distinguishable without colour. Open shapes are white-filled to hide the line beneath.
fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    at: C,
    idx: usize,
    color: RGBColor,
) -> DynElement<'a, DB, C> {
    let (fill, line, blank) = (color.filled(), color.stroke_width(2), WHITE.filled());
    let base = EmptyElement::at(at);
    // Shifted once per turn of the 8-colour palette, so series 8.. do not repeat both the
    // colour and the marker of series 0..
    match (idx + idx / PALETTE.len()) % 8 {
        0 => (base + Circle::new((0, 0), 4, fill)).into_dyn(),
        1 => (base + Rectangle::new([(-4, -4), (4, 4)], fill)).into_dyn(),
        2 => (base + Polygon::new(vec![(0, -5), (5, 4), (-5, 4)], fill)).into_dyn(),
        3 => (base + Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], fill)).into_dyn(),
        4 => (base + Circle::new((0, 0), 4, blank) + Circle::new((0, 0), 4, line)).into_dyn(),
        5 => (base
            + Rectangle::new([(-4, -4), (4, 4)], blank)
            + Rectangle::new([(-4, -4), (4, 4)], line))
        .into_dyn(),
        6 => {
            let tri = vec![(-5, -4), (5, -4), (0, 5), (-5, -4)];
            (base + Polygon::new(tri.clone(), blank) + PathElement::new(tri, line)).into_dyn()
        }
        _ => (base + Cross::new((0, 0), 4, line)).into_dyn(),
    }
}

/// Samples a pixel-space polyline every few pixels (for legend placement).
fn sample_into(ink: &mut Vec<(i32, i32)>, px: &[(i32, i32)]) {
    ink.extend(px.first());
    for w in px.windows(2) {
        let (dx, dy) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
        let n = (dx.abs().max(dy.abs()) / 3).max(1);
        ink.extend((1..=n).map(|k| (w[0].0 + dx * k / n, w[0].1 + dy * k / n)));
    }
}

/// Caption font sizes, largest first: two lines at any of these beat more lines.
const CAPTION_SIZES: [f64; 4] = [22.0, 20.0, 18.0, 16.0];
/// Smaller sizes for captions that need more than two lines, and the most lines allowed.
const LONG_CAPTION_SIZES: [f64; 3] = [15.0, 14.0, 13.0];
const MAX_CAPTION_LINES: usize = 4;

/// The caption's unbreakable units: words, with a free-standing operator (`n = 20`,
/// `W ≤ x`, `a − b`) glued to both neighbours so a line never ends or starts mid-expression.
fn caption_units(caption: &str) -> Vec<String> {
    const OPERATORS: [&str; 12] = ["=", "≤", "≥", "<", ">", "−", "-", "+", "×", "/", "~", "≈"];
    let mut units: Vec<String> = Vec::new();
    let mut glue_next = false;
    for word in caption.split_whitespace() {
        let operator = OPERATORS.contains(&word);
        match units.last_mut() {
            Some(last) if operator || glue_next => {
                last.push(' ');
                last.push_str(word);
            }
            _ => units.push(word.to_string()),
        }
        glue_next = operator;
    }
    units
}

/// Splits the caption into lines and picks the largest font size that fits: one or two lines
/// at 22–16 px, else up to [`MAX_CAPTION_LINES`] lines at 15–13 px, lines balanced in width
/// (the narrowest limit at which greedy filling needs no more lines than the widest limit).
fn layout_caption(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    caption: &str,
) -> Result<(Vec<String>, f64), PlotError> {
    let units = caption_units(caption);
    if units.is_empty() {
        return Ok((Vec::new(), 0.0));
    }
    let max_w = WIDTH - 40;
    let width = |s: &str, size: f64| {
        root.estimate_text_size(s, &TextStyle::from((FONT, size).into_font()))
            .map(|d| d.0)
    };
    // Greedy filling under `limit` pixels; `None` if a unit alone is wider.
    let fill = |limit: u32, size: f64| -> Result<Option<Vec<String>>, PlotError> {
        let mut lines: Vec<String> = Vec::new();
        for unit in &units {
            if let Some(last) = lines.last_mut() {
                let joined = format!("{last} {unit}");
                if width(&joined, size)? <= limit {
                    *last = joined;
                    continue;
                }
            }
            if width(unit, size)? > limit {
                return Ok(None);
            }
            lines.push(unit.clone());
        }
        Ok(Some(lines))
    };
    let balanced = |size: f64, most: usize| -> Result<Option<Vec<String>>, PlotError> {
        let Some(widest) = fill(max_w, size)? else {
            return Ok(None);
        };
        if widest.len() > most {
            return Ok(None);
        }
        let (mut lo, mut hi, mut best) = (1, max_w, widest);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match fill(mid, size)? {
                Some(lines) if lines.len() <= best.len() => {
                    best = lines;
                    hi = mid;
                }
                _ => lo = mid + 1,
            }
        }
        Ok(Some(best))
    };
    for size in CAPTION_SIZES {
        if let Some(lines) = balanced(size, 2)? {
            return Ok((lines, size));
        }
    }
    for size in LONG_CAPTION_SIZES {
        if let Some(lines) = balanced(size, MAX_CAPTION_LINES)? {
            return Ok((lines, size));
        }
    }
    // Longer than any figure should carry: as many lines as it takes at the smallest size.
    let size = LONG_CAPTION_SIZES[LONG_CAPTION_SIZES.len() - 1];
    let lines = fill(max_w, size)?.unwrap_or_else(|| units.clone());
    Ok((lines, size))
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<TickedAxis, TickedAxis>>;

/// Renders `fig` as a standalone SVG document of [`WIDTH`] × [`HEIGHT`] pixels.
///
/// Non-finite points are skipped; an error is returned (never a panic) when nothing is left
/// to draw, a value on a log axis is not positive, or an explicit range is unusable.
pub fn render_svg(fig: &Figure) -> Result<String, PlotError> {
    ensure_font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let body = titled(&root, &fig.caption)?;
        draw_chart(&body, fig)?;
        root.present()?;
    }
    Ok(typeset_subscripts(svg))
}

/// Height of one panel of [`render_panels_svg`], its title included.
pub const PANEL_HEIGHT: u32 = 470;

/// Renders panels stacked top to bottom under one caption, each a line chart with its own
/// axes, legend and title (its [`Figure::caption`], e.g. "(a) CTC"): a figure of several
/// sub-plots, [`WIDTH`] wide and [`PANEL_HEIGHT`] per panel. Errors as [`render_svg`].
pub fn render_panels_svg(caption: &str, panels: &[Figure]) -> Result<String, PlotError> {
    ensure_font()?;
    if panels.is_empty() {
        return Err(PlotError::NoData);
    }
    let mut svg = String::new();
    {
        let height = 60 + PANEL_HEIGHT * panels.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let body = titled(&root, caption)?;
        let areas = body.split_evenly((panels.len(), 1));
        for (area, fig) in areas.iter().zip(panels) {
            let style =
                TextStyle::from((FONT, 17).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
            area.draw_text(&fig.caption, &style, (WIDTH as i32 / 2, 4))?;
            let (_, chart_area) = area.split_vertically(26);
            draw_chart(&chart_area, fig)?;
        }
        root.present()?;
    }
    Ok(typeset_subscripts(svg))
}

/// Draws `fig`'s axes, series and legend (not its caption) into `body`. The legend goes in the
/// plot area's corner that covers no data; when every corner would cover some (many series
/// spread over the whole area), it goes in a strip below the chart instead. Which of the two
/// is decided on a scratch rendering, so the choice depends on the data alone.
fn draw_chart(body: &DrawingArea<SVGBackend<'_>, Shift>, fig: &Figure) -> Result<(), PlotError> {
    if fig.series.is_empty() {
        return plot_lines(body, fig).map(drop);
    }
    let names: Vec<&str> = fig.series.iter().map(|s| s.name.as_str()).collect();
    let font = legend_font();
    let (w, h) = body.dim_in_pixel();
    let mut scratch = String::new();
    let corner_is_free = {
        let area = SVGBackend::with_string(&mut scratch, (w, h)).into_drawing_area();
        let (chart, ink) = plot_lines(&area, fig)?;
        let plot = chart.plotting_area().strip_coord_spec();
        let size = legend_size(&plot, &names, LINE_SAMPLE, &font, 1)?;
        best_corner(plot.dim_in_pixel(), size, &ink).1 == 0
    };
    if corner_is_free {
        let (chart, ink) = plot_lines(body, fig)?;
        let plot = chart.plotting_area().strip_coord_spec();
        let lb = place_legend(&plot, &names, LINE_SAMPLE, &font, &ink)?;
        return draw_line_entries(&plot, fig, &lb, &font);
    }
    let cols = strip_columns(body, &names, &font)?;
    let (_, strip_h) = legend_size(body, &names, LINE_SAMPLE, &font, cols)?;
    let (top, strip) = body.split_vertically(h.saturating_sub(strip_h as u32 + 12));
    plot_lines(&top, fig)?;
    let lb = strip_legend(&strip, &names, LINE_SAMPLE, &font, cols)?;
    draw_line_entries(&strip, fig, &lb, &font)
}

/// Draws `fig`'s axes and series into `body`; returns the chart and the pixels the data covers.
fn plot_lines<'a, 'b>(
    body: &'a DrawingArea<SVGBackend<'b>, Shift>,
    fig: &Figure,
) -> Result<(Chart<'a, 'b>, Vec<(i32, i32)>), PlotError> {
    let series = prepare(fig)?;
    let all = || series.iter().flatten();
    let (x0, x1) = axis_range(Axis::X, fig.x_range, fig.x_scale, all().map(|p| p.x), false)?;
    let ys: Box<dyn Iterator<Item = f64>> = match fig.kind {
        PlotKind::Lines => Box::new(all().flat_map(|p| [p.y, p.lo, p.hi])),
        PlotKind::Steps => Box::new(all().map(|p| p.y)),
    };
    let (y0, y1) = axis_range(Axis::Y, fig.y_range, fig.y_scale, ys, true)?;
    let (x_axis, y_axis) = (
        TickedAxis::new(x0, x1, fig.x_scale),
        TickedAxis::new(y0, y1, fig.y_scale),
    );
    let mut chart = house_chart(body, x_axis, y_axis, &fig.x_label, Some(&fig.y_label))?;
    let ink = draw_series(&mut chart, fig, &series, (x0, x1, y0, y1))?;
    // Close the box: plotters draws the left and bottom axes one pixel outside the area.
    let (aw, ah) = chart.plotting_area().dim_in_pixel();
    let (aw, ah) = (aw as i32, ah as i32);
    let frame = PathElement::new(vec![(-1, -1), (aw, -1), (aw, ah + 1)], BLACK);
    chart.plotting_area().strip_coord_spec().draw(&frame)?;
    Ok((chart, ink))
}

/// The frame line charts and Gantt charts share: margins, a y-label area as wide as the widest
/// y tick label, and the mesh (light grid, 18 px axis titles, 15 px tick labels). `y_desc`
/// `None`: a categorical y axis (Gantt rows) with no title and no horizontal grid.
fn house_chart<'a, 'b>(
    body: &'a DrawingArea<SVGBackend<'b>, Shift>,
    x_axis: TickedAxis,
    y_axis: TickedAxis,
    x_desc: &str,
    y_desc: Option<&str>,
) -> Result<Chart<'a, 'b>, PlotError> {
    let tick_font = TextStyle::from((FONT, 15).into_font());
    let mut label_w = 0;
    for (_, l) in &y_axis.ticks.major {
        label_w = label_w.max(body.estimate_text_size(l, &tick_font)?.0);
    }
    let mut chart = ChartBuilder::on(body)
        .margin_left(10)
        .margin_right(28)
        .margin_bottom(8)
        .x_label_area_size(50)
        .y_label_area_size(label_w + 36)
        .build_cartesian_2d(x_axis, y_axis)?;
    let mut mesh = chart.configure_mesh();
    match y_desc {
        Some(y) => mesh.y_desc(y),
        None => mesh.disable_y_mesh(),
    };
    mesh.x_desc(x_desc)
        .axis_desc_style((FONT, 18))
        .label_style(tick_font)
        .bold_line_style(RGBColor(222, 222, 222))
        .light_line_style(RGBColor(243, 243, 243))
        .axis_style(BLACK)
        .set_all_tick_mark_size(5)
        .draw()?;
    Ok(chart)
}

/// Draws lines, error bars and markers; returns the plot-area pixels they cover.
fn draw_series(
    chart: &mut Chart<'_, '_>,
    fig: &Figure,
    series: &[Vec<Pt>],
    rect: (f64, f64, f64, f64),
) -> Result<Vec<(i32, i32)>, PlotError> {
    let (x0, x1, y0, y1) = rect;
    let base = chart.plotting_area().get_base_pixel();
    let px = |c: &Chart<'_, '_>, p: (f64, f64)| {
        let (a, b) = c.backend_coord(&p);
        (a - base.0, b - base.1)
    };
    let mut ink = Vec::new();
    for (i, pts) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let line = color.stroke_width(2);
        let path: Vec<(f64, f64)> = match fig.kind {
            PlotKind::Lines => pts.iter().map(|p| (p.x, p.y)).collect(),
            PlotKind::Steps => pts
                .iter()
                .enumerate()
                .flat_map(|(k, p)| {
                    let prev = if k == 0 { p.y } else { pts[k - 1].y };
                    [(p.x, prev), (p.x, p.y)]
                        .into_iter()
                        .skip(usize::from(k == 0))
                })
                .collect(),
        };
        let pieces = clip_polyline(&path, rect);
        for piece in &pieces {
            let pix: Vec<_> = piece.iter().map(|&p| px(chart, p)).collect();
            sample_into(&mut ink, &pix);
        }
        match (fig.kind, DASHES[i % DASHES.len()]) {
            (PlotKind::Steps, Some((dash, gap))) => chart.draw_series(
                pieces
                    .into_iter()
                    .map(|p| DashedPathElement::new(p, dash, gap, line)),
            ),
            _ => chart.draw_series(pieces.into_iter().map(|p| PathElement::new(p, line))),
        }?;
        if fig.kind == PlotKind::Steps {
            continue;
        }
        let area = chart.plotting_area();
        let bar = color.stroke_width(1);
        for p in pts.iter().filter(|p| p.x >= x0 && p.x <= x1 && p.hi > p.lo) {
            let (lo, hi) = (p.lo.max(y0), p.hi.min(y1));
            if lo >= hi {
                continue;
            }
            area.draw(&PathElement::new(vec![(p.x, lo), (p.x, hi)], bar))?;
            for (v, clipped) in [(lo, p.lo < y0), (hi, p.hi > y1)] {
                if !clipped {
                    let cap =
                        EmptyElement::at((p.x, v)) + PathElement::new(vec![(-4, 0), (4, 0)], bar);
                    area.draw(&cap)?;
                }
            }
            sample_into(&mut ink, &[px(chart, (p.x, lo)), px(chart, (p.x, hi))]);
        }
        for p in pts
            .iter()
            .filter(|p| p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1)
        {
            area.draw(&marker((p.x, p.y), i, color))?;
            ink.push(px(chart, (p.x, p.y)));
        }
    }
    Ok(ink)
}

/// The legend's text style.
fn legend_font() -> TextStyle<'static> {
    TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center))
}

/// Length in pixels of a line chart's legend sample (line and marker).
const LINE_SAMPLE: i32 = 32;
/// Legend padding, row height and the gap between columns, in pixels.
const LEGEND_PAD: i32 = 8;
const LEGEND_ROW: i32 = 20;
const LEGEND_COL_GAP: i32 = 24;

/// A placed legend box: its upper-left corner and its grid of entries (row-major).
struct LegendBox {
    x: i32,
    y: i32,
    cols: usize,
    col_w: i32,
}

impl LegendBox {
    /// Where entry `i`'s sample starts (left end, vertical centre).
    fn row(&self, i: usize) -> (i32, i32) {
        let (r, c) = (i / self.cols, i % self.cols);
        (
            self.x + LEGEND_PAD + self.col_w * c as i32,
            self.y + LEGEND_PAD + LEGEND_ROW * r as i32 + LEGEND_ROW / 2 - 2,
        )
    }
}

/// Width of one legend column: sample, gap and the widest name.
fn legend_column(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    sample: i32,
    font: &TextStyle<'_>,
) -> Result<i32, PlotError> {
    let mut text_w = 0;
    for name in names {
        text_w = text_w.max(area.estimate_text_size(name, font)?.0);
    }
    Ok(sample + 8 + text_w as i32)
}

/// Outer size of a legend of `names` laid out in `cols` columns.
fn legend_size(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    sample: i32,
    font: &TextStyle<'_>,
    cols: usize,
) -> Result<(i32, i32), PlotError> {
    let col = legend_column(area, names, sample, font)?;
    let rows = names.len().div_ceil(cols.max(1)) as i32;
    Ok((
        2 * LEGEND_PAD + col * cols as i32 + LEGEND_COL_GAP * (cols as i32 - 1),
        2 * LEGEND_PAD + LEGEND_ROW * rows - 4,
    ))
}

/// The corner of an `area`-sized plot a `size` legend covers the fewest `ink` pixels in (ties:
/// upper-left, upper-right, lower-right, lower-left, so placement is fixed by the data), and
/// how many it covers.
fn best_corner(area: (u32, u32), size: (i32, i32), ink: &[(i32, i32)]) -> ((i32, i32), usize) {
    let (aw, ah) = (area.0 as i32, area.1 as i32);
    let (w, h) = size;
    let corners = [
        (10, 10),
        (aw - w - 10, 10),
        (aw - w - 10, ah - h - 10),
        (10, ah - h - 10),
    ];
    let covered = |&(cx, cy): &(i32, i32)| {
        ink.iter()
            .filter(|&&(x, y)| x >= cx - 4 && x <= cx + w + 4 && y >= cy - 4 && y <= cy + h + 4)
            .count()
    };
    corners
        .iter()
        .map(|c| (*c, covered(c)))
        .min_by_key(|c| c.1)
        .unwrap_or(((10, 10), 0))
}

/// Sizes a `cols`-column legend of `names` with `sample`-pixel samples, puts its upper-left
/// corner where `position` says for that size, and draws its background and frame.
fn framed_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    sample: i32,
    font: &TextStyle<'_>,
    cols: usize,
    position: impl FnOnce((i32, i32)) -> (i32, i32),
) -> Result<LegendBox, PlotError> {
    let (w, h) = legend_size(area, names, sample, font, cols)?;
    let (x, y) = position((w, h));
    let (x, y) = (x.max(0), y.max(0));
    let boxed = [(x, y), (x + w, y + h)];
    area.draw(&Rectangle::new(boxed, WHITE.mix(0.9).filled()))?;
    area.draw(&Rectangle::new(boxed, RGBColor(160, 160, 160)))?;
    Ok(LegendBox {
        x,
        y,
        cols,
        col_w: legend_column(area, names, sample, font)? + LEGEND_COL_GAP,
    })
}

/// A one-column legend in the [`best_corner`] of the plot area.
fn place_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    sample: i32,
    font: &TextStyle<'_>,
    ink: &[(i32, i32)],
) -> Result<LegendBox, PlotError> {
    let dims = area.dim_in_pixel();
    framed_legend(area, names, sample, font, 1, |size| {
        best_corner(dims, size, ink).0
    })
}

/// How many columns a legend strip below the chart has: as many as fit across the figure.
fn strip_columns(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    font: &TextStyle<'_>,
) -> Result<usize, PlotError> {
    let col = legend_column(area, names, LINE_SAMPLE, font)?;
    let room = area.dim_in_pixel().0 as i32 - 40 - 2 * LEGEND_PAD + LEGEND_COL_GAP;
    Ok(((room / (col + LEGEND_COL_GAP)).max(1) as usize).min(names.len()))
}

/// A `cols`-column legend centred at the top of `strip` (the area below the chart).
fn strip_legend(
    strip: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[&str],
    sample: i32,
    font: &TextStyle<'_>,
    cols: usize,
) -> Result<LegendBox, PlotError> {
    let width = strip.dim_in_pixel().0 as i32;
    framed_legend(strip, names, sample, font, cols, |(w, _)| {
        ((width - w) / 2, 0)
    })
}

/// Draws each series' sample (line, dash pattern, marker) and name at its legend slot.
fn draw_line_entries(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    fig: &Figure,
    lb: &LegendBox,
    font: &TextStyle<'_>,
) -> Result<(), PlotError> {
    let sample = LINE_SAMPLE;
    for (i, s) in fig.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let (x, y) = lb.row(i);
        let (a, b) = ((x, y), (x + sample, y));
        match (fig.kind, DASHES[i % DASHES.len()]) {
            (PlotKind::Steps, Some((dash, gap))) => area.draw(&DashedPathElement::new(
                [a, b],
                dash,
                gap,
                color.stroke_width(2),
            )),
            _ => area.draw(&PathElement::new(vec![a, b], color.stroke_width(2))),
        }?;
        if fig.kind == PlotKind::Lines {
            area.draw(&marker((x + sample / 2, y), i, color))?;
        }
        area.draw_text(&s.name, font, (x + sample + 8, y))?;
    }
    Ok(())
}

/// One bar: a mean with its 95% CI half-width, and the document's value if it prints one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub half_width: f64,
    pub reference: Option<f64>,
}

/// The bars of one series, one per group (`None`: no bar in that group).
#[derive(Debug, Clone, PartialEq)]
pub struct BarSeries {
    pub name: String,
    pub bars: Vec<Option<Bar>>,
}

/// A grouped bar chart: one group per category (e.g. Case I/II/III), one bar per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub caption: String,
    pub x_label: String,
    pub y_label: String,
    pub groups: Vec<String>,
    pub series: Vec<BarSeries>,
    /// `None`: from 0 (or the least value, if negative) to the largest bar, CI or reference.
    pub y_range: Option<(f64, f64)>,
}

/// One task of a Gantt chart: a box on row `row` from `start` to `end`.
#[derive(Debug, Clone, PartialEq)]
pub struct GanttBar {
    pub row: usize,
    pub start: f64,
    pub end: f64,
    pub label: String,
}

/// A Gantt chart: rows (machines) top to bottom, task boxes labelled with their ids, a time
/// axis, and an optional labelled vertical marker (e.g. the makespan).
#[derive(Debug, Clone, PartialEq)]
pub struct GanttChart {
    pub caption: String,
    pub time_label: String,
    pub rows: Vec<String>,
    pub bars: Vec<GanttBar>,
    pub marker: Option<(f64, String)>,
}

/// Splits the root into the caption strip and the body.
fn titled<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    caption: &str,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, PlotError> {
    root.fill(&WHITE)?;
    let (lines, size) = layout_caption(root, caption)?;
    let line_h = (size * 1.1).ceil() as u32;
    let title_h = 14 + line_h * lines.len() as u32;
    let title_style =
        TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        let y = 10 + line_h * i as u32;
        root.draw_text(line, &title_style, (WIDTH as i32 / 2, y as i32))?;
    }
    Ok(root.split_vertically(title_h).1)
}

/// Draws a legend of filled swatches (and a reference marker entry) inside the plot area, in
/// the corner covering the fewest of the `ink` pixels (ties: upper-left, upper-right,
/// lower-right, lower-left).
fn draw_swatch_legend(
    chart: &Chart<'_, '_>,
    entries: &[(String, Option<RGBColor>)],
    ink: &[(i32, i32)],
) -> Result<(), PlotError> {
    if entries.is_empty() {
        return Ok(());
    }
    let area = chart.plotting_area().strip_coord_spec();
    let font = legend_font();
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    let sample = 22;
    let lb = place_legend(&area, &names, sample, &font, ink)?;
    for (i, (name, color)) in entries.iter().enumerate() {
        let (x, y) = lb.row(i);
        match color {
            Some(c) => {
                area.draw(&Rectangle::new(
                    [(x, y - 6), (x + sample, y + 6)],
                    c.filled(),
                ))?;
                area.draw(&Rectangle::new([(x, y - 6), (x + sample, y + 6)], BLACK))?;
            }
            None => {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + sample, y)],
                    BLACK.stroke_width(3),
                ))?;
            }
        }
        area.draw_text(name, &font, (x + sample + 8, y))?;
    }
    Ok(())
}

/// The category-label font: the largest of 15, 13, 12 and 11 px at which the labels fit side
/// by side, else 12 px turned a quarter (reading upwards); and the label area's height.
fn category_font(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    labels: &[String],
) -> Result<(TextStyle<'static>, u32), PlotError> {
    let room = (WIDTH - 150) / labels.len().max(1) as u32;
    for size in [15, 13, 12, 11] {
        let font = TextStyle::from((FONT, size).into_font());
        let mut widest = 0;
        for l in labels {
            widest = widest.max(area.estimate_text_size(l, &font)?.0);
        }
        if widest + 6 <= room {
            return Ok((font, 50));
        }
    }
    let font = TextStyle::from((FONT, 12).into_font());
    let mut widest = 0;
    for l in labels {
        widest = widest.max(area.estimate_text_size(l, &font)?.0);
    }
    Ok((font.transform(FontTransform::Rotate270), widest + 45))
}

/// Renders a grouped bar chart with 95% CI error bars and reference markers as an SVG
/// document of [`WIDTH`] × [`HEIGHT`] pixels.
pub fn render_bars_svg(chart_spec: &BarChart) -> Result<String, PlotError> {
    ensure_font()?;
    let groups = chart_spec.groups.len();
    if groups == 0 || chart_spec.series.is_empty() {
        return Err(PlotError::NoData);
    }
    let mut values = Vec::new();
    for s in &chart_spec.series {
        if s.bars.len() != groups {
            return Err(PlotError::InvalidElement(format!(
                "series {:?} has {} bars for {groups} groups",
                s.name,
                s.bars.len()
            )));
        }
        for b in s.bars.iter().flatten() {
            if !(b.value.is_finite() && b.half_width.is_finite() && b.half_width >= 0.0) {
                return Err(PlotError::InvalidElement(format!(
                    "series {:?}: bar {} ± {}",
                    s.name, b.value, b.half_width
                )));
            }
            values.extend([b.value, b.value - b.half_width, b.value + b.half_width]);
            values.extend(b.reference.filter(|r| r.is_finite()));
        }
    }
    if values.is_empty() {
        return Err(PlotError::NoData);
    }
    let (y0, mut y1) = axis_range(
        Axis::Y,
        chart_spec.y_range,
        Scale::Linear,
        values.iter().copied(),
        true,
    )?;
    if chart_spec.y_range.is_none() {
        // Room above the tallest bar for the legend (about 20 px per entry of ~400 px).
        let entries = chart_spec.series.len() + 1;
        let share = (f64::from(20 * entries as u32 + 30) / 400.0).min(0.5);
        y1 += (y1 - y0) * share / (1.0 - share);
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let body = titled(&root, &chart_spec.caption)?;
        let y_axis = TickedAxis::new(y0, y1, Scale::Linear);
        let tick_font = TextStyle::from((FONT, 15).into_font());
        let mut label_w = 0;
        for (_, l) in &y_axis.ticks.major {
            label_w = label_w.max(body.estimate_text_size(l, &tick_font)?.0);
        }
        let (x_font, x_area) = category_font(&body, &chart_spec.groups)?;
        let mut chart = ChartBuilder::on(&body)
            .margin_left(10)
            .margin_right(28)
            .margin_bottom(8)
            .x_label_area_size(x_area)
            .y_label_area_size(label_w + 36)
            .build_cartesian_2d(TickedAxis::categorical(&chart_spec.groups), y_axis)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(chart_spec.x_label.as_str())
            .y_desc(chart_spec.y_label.as_str())
            .axis_desc_style((FONT, 18))
            .x_label_style(x_font)
            .y_label_style(tick_font.clone())
            .bold_line_style(RGBColor(222, 222, 222))
            .light_line_style(RGBColor(243, 243, 243))
            .axis_style(BLACK)
            .set_all_tick_mark_size(5)
            .draw()?;
        let base = chart.plotting_area().get_base_pixel();
        let px = |c: &Chart<'_, '_>, p: (f64, f64)| {
            let (a, b) = c.backend_coord(&p);
            (a - base.0, b - base.1)
        };
        let n = chart_spec.series.len() as f64;
        let w = 0.8 / n;
        let floor = y0.max(0.0).min(y1);
        let clamp = |v: f64| v.clamp(y0, y1);
        let mut ink = Vec::new();
        let mut any_reference = false;
        for (k, s) in chart_spec.series.iter().enumerate() {
            let color = PALETTE[k % PALETTE.len()];
            for (g, b) in s.bars.iter().enumerate() {
                let Some(b) = b else { continue };
                let x0 = g as f64 + 0.1 + k as f64 * w;
                let (x1, xc) = (x0 + w, x0 + w / 2.0);
                let rect = [(x0, floor), (x1, clamp(b.value))];
                chart.draw_series(std::iter::once(Rectangle::new(rect, color.filled())))?;
                chart.draw_series(std::iter::once(Rectangle::new(rect, BLACK.stroke_width(1))))?;
                for x in [x0, xc, x1] {
                    sample_into(
                        &mut ink,
                        &[px(&chart, (x, floor)), px(&chart, (x, clamp(b.value)))],
                    );
                }
                if b.half_width > 0.0 {
                    let (lo, hi) = (clamp(b.value - b.half_width), clamp(b.value + b.half_width));
                    let cap = w / 4.0;
                    let bar = BLACK.stroke_width(1);
                    chart.draw_series([
                        PathElement::new(vec![(xc, lo), (xc, hi)], bar),
                        PathElement::new(vec![(xc - cap, lo), (xc + cap, lo)], bar),
                        PathElement::new(vec![(xc - cap, hi), (xc + cap, hi)], bar),
                    ])?;
                }
                if let Some(r) = b
                    .reference
                    .filter(|r| r.is_finite() && *r >= y0 && *r <= y1)
                {
                    any_reference = true;
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(x0 - w * 0.1, r), (x1 + w * 0.1, r)],
                        BLACK.stroke_width(3),
                    )))?;
                    sample_into(&mut ink, &[px(&chart, (x0, r)), px(&chart, (x1, r))]);
                }
            }
        }
        let (aw, ah) = chart.plotting_area().dim_in_pixel();
        let (aw, ah) = (aw as i32, ah as i32);
        let frame = PathElement::new(vec![(-1, -1), (aw, -1), (aw, ah + 1)], BLACK);
        chart.plotting_area().strip_coord_spec().draw(&frame)?;
        let mut entries: Vec<(String, Option<RGBColor>)> = chart_spec
            .series
            .iter()
            .enumerate()
            .map(|(k, s)| (s.name.clone(), Some(PALETTE[k % PALETTE.len()])))
            .collect();
        if any_reference {
            entries.push(("document's value".to_string(), None));
        }
        draw_swatch_legend(&chart, &entries, &ink)?;
        root.present()?;
    }
    Ok(typeset_subscripts(svg))
}

/// The Gantt chart's footnote: what its two shades of a row's colour mean.
const GANTT_SHADES_NOTE: &str =
    "Light and dark shades alternate between consecutive tasks on the same row.";

/// Renders a Gantt chart as an SVG document of [`WIDTH`] × [`HEIGHT`] pixels: row 0 at the
/// top, boxes filled by row colour (alternating shades), each labelled when its label fits.
pub fn render_gantt_svg(g: &GanttChart) -> Result<String, PlotError> {
    ensure_font()?;
    let rows = g.rows.len();
    if rows == 0 {
        return Err(PlotError::NoData);
    }
    for b in &g.bars {
        if b.row >= rows || !(b.start.is_finite() && b.end.is_finite() && b.start <= b.end) {
            return Err(PlotError::InvalidElement(format!(
                "Gantt box {:?} on row {} of {rows}: [{}, {}]",
                b.label, b.row, b.start, b.end
            )));
        }
    }
    let mut times: Vec<f64> = g.bars.iter().flat_map(|b| [b.start, b.end]).collect();
    times.push(0.0);
    times.extend(g.marker.as_ref().map(|m| m.0).filter(|t| t.is_finite()));
    let (x0, x1) = axis_range(Axis::X, None, Scale::Linear, times.iter().copied(), true)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let titled_body = titled(&root, &g.caption)?;
        // The key to the shades, as a footnote under the time axis.
        let (_, body_h) = titled_body.dim_in_pixel();
        let (body, footnote) = titled_body.split_vertically(body_h.saturating_sub(22));
        let note_font =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        footnote.draw_text(GANTT_SHADES_NOTE, &note_font, (WIDTH as i32 / 2, 2))?;
        // Row 0 at the top: categorical position i holds row rows-1-i.
        let labels: Vec<String> = g.rows.iter().rev().cloned().collect();
        let mut chart = house_chart(
            &body,
            TickedAxis::new(x0, x1, Scale::Linear),
            TickedAxis::categorical(&labels),
            &g.time_label,
            None,
        )?;
        let (aw, ah) = chart.plotting_area().dim_in_pixel();
        let px_per_unit = f64::from(aw) / (x1 - x0);
        let label_font =
            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
        let mut in_row = vec![0usize; rows];
        for b in &g.bars {
            let y = (rows - 1 - b.row) as f64 + 0.5;
            let shade = in_row[b.row] % 2;
            in_row[b.row] += 1;
            let base = PALETTE[b.row % PALETTE.len()];
            let fill = if shade == 0 {
                base.mix(0.35)
            } else {
                base.mix(0.6)
            };
            let rect = [(b.start, y - 0.32), (b.end, y + 0.32)];
            chart.draw_series(std::iter::once(Rectangle::new(rect, fill.filled())))?;
            chart.draw_series(std::iter::once(Rectangle::new(rect, BLACK.stroke_width(1))))?;
            let text_w = body.estimate_text_size(&b.label, &label_font)?.0;
            if f64::from(text_w) + 4.0 <= (b.end - b.start) * px_per_unit {
                chart.draw_series(std::iter::once(Text::new(
                    b.label.clone(),
                    ((b.start + b.end) / 2.0, y),
                    label_font.clone(),
                )))?;
            }
        }
        if let Some((t, label)) = &g.marker {
            let line = RGBColor(213, 94, 0).stroke_width(2);
            chart.draw_series(std::iter::once(DashedPathElement::new(
                vec![(*t, 0.0), (*t, rows as f64)],
                6,
                4,
                line,
            )))?;
            let font =
                TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Right, VPos::Top));
            chart.draw_series(std::iter::once(Text::new(
                label.clone(),
                (*t, rows as f64),
                font,
            )))?;
        }
        let (aw, ah) = (aw as i32, ah as i32);
        let frame = PathElement::new(vec![(-1, -1), (aw, -1), (aw, ah + 1)], BLACK);
        chart.plotting_area().strip_coord_spec().draw(&frame)?;
        root.present()?;
    }
    Ok(typeset_subscripts(svg))
}

/// Renders the documents' subscript notation (`W_j`, `l_r`, `s'_r`, `W_sub`) as subscripts in
/// every text element of a rendered SVG: plotters escapes text, so the markup is added after.
///
/// A subscript is `_` followed by one to three letters or digits, after a single letter
/// (optionally primed) that does not continue a word, so identifiers such as `wait_req_h`
/// are left as they are.
fn typeset_subscripts(svg: String) -> String {
    if !svg.contains('_') {
        return svg;
    }
    let mut out = String::with_capacity(svg.len() + 256);
    let mut in_text = false;
    for line in svg.split_inclusive('\n') {
        if line.starts_with("<text") {
            in_text = true;
            out.push_str(line);
        } else if line.starts_with("</text>") {
            in_text = false;
            out.push_str(line);
        } else if in_text && line.contains('_') {
            subscript_line(line, &mut out);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Appends `text` (one line of escaped SVG text) to `out` with its subscripts marked up.
fn subscript_line(text: &str, out: &mut String) {
    const PRIME: &str = "&apos;";
    let bytes = text.as_bytes();
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut copied = 0;
    for (i, _) in text.match_indices('_') {
        // The base: one letter, optionally followed by a prime, not continuing a word.
        let before = &text[..i];
        let unprimed = before
            .strip_suffix(PRIME)
            .or_else(|| before.strip_suffix('\''));
        let stem = unprimed.unwrap_or(before);
        let mut base = stem.chars().rev();
        let Some(letter) = base.next() else { continue };
        if !letter.is_alphabetic() || base.next().is_some_and(word_char) {
            continue;
        }
        // The subscript: 1–3 ASCII letters or digits, then the end of the word.
        let sub_len = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        let after = text[i + 1 + sub_len..].chars().next();
        if !(1..=3).contains(&sub_len) || after.is_some_and(word_char) || i < copied {
            continue;
        }
        out.push_str(&text[copied..i]);
        out.push_str("<tspan baseline-shift=\"sub\" font-size=\"75%\">");
        out.push_str(&text[i + 1..i + 1 + sub_len]);
        out.push_str("</tspan>");
        copied = i + 1 + sub_len;
    }
    out.push_str(&text[copied..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &Ticks) -> Vec<&str> {
        t.major.iter().map(|(_, l)| l.as_str()).collect()
    }

    #[test]
    fn linear_ticks_are_round_and_evenly_labelled() {
        assert_eq!(
            labels(&linear_ticks(0.0, 1.05)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(&linear_ticks(0.0, 2625.0)),
            ["0", "500", "1000", "1500", "2000", "2500"]
        );
        assert_eq!(
            labels(&linear_ticks(-3.0, 3.0)),
            ["-3", "-2", "-1", "0", "1", "2", "3"]
        );
        assert_eq!(labels(&linear_ticks(0.0, 3.2e7))[1], "0.5×10⁷");
        assert!(linear_ticks(0.0, f64::INFINITY).major.is_empty());
        let tiny = linear_ticks(0.97e-12, 2.03e-12);
        assert_eq!(labels(&tiny)[..2], ["1.0×10⁻¹²", "1.2×10⁻¹²"]);
        assert_eq!(tiny.label(tiny.major[1].0), "1.2×10⁻¹²");
    }

    #[test]
    fn log_ticks_use_one_notation_per_axis() {
        assert_eq!(labels(&log_ticks(0.0, 3.0)), ["1", "10", "100", "1000"]);
        assert_eq!(labels(&log_ticks(-0.1, 6.1))[5..], ["10⁵", "10⁶"]);
        assert_eq!(labels(&log_ticks(-0.1, 6.1))[0], "10⁰");
        assert_eq!(
            labels(&log_ticks(-9.05, -8.1)),
            ["10⁻⁹", "2×10⁻⁹", "5×10⁻⁹"]
        );
        assert_eq!(labels(&log_ticks(0.0, 1.0)), ["1", "2", "5", "10"]);
        assert!(
            log_ticks(0.31, 0.35).major.len() >= 2,
            "sub-decade ranges fall back to linear"
        );
        assert!(log_ticks(-300.0, 300.0).major.len() <= 12);
    }

    #[test]
    fn auto_ranges_start_at_zero_and_pad_degenerate_data() {
        let r = |v: &[f64], scale, axis| {
            axis_range(axis, None, scale, v.iter().copied(), true).unwrap()
        };
        assert_eq!(r(&[2.0, 4.0], Scale::Linear, Axis::Y), (0.0, 4.2));
        assert_eq!(r(&[0.0, 0.0], Scale::Linear, Axis::Y), (0.0, 1.0));
        assert_eq!(r(&[5.0], Scale::Log10, Axis::Y), (4.5, 5.5));
        assert_eq!(r(&[-1.0, 1.0], Scale::Linear, Axis::Y), (-1.1, 1.1));
        assert!(matches!(
            axis_range(
                Axis::X,
                Some((2.0, 1.0)),
                Scale::Linear,
                std::iter::empty(),
                false
            ),
            Err(PlotError::InvalidRange { .. })
        ));
    }

    #[test]
    fn polylines_are_clipped_to_the_frame() {
        let rect = (0.0, 10.0, 0.0, 10.0);
        assert_eq!(
            clip_polyline(&[(-5.0, 5.0), (5.0, 5.0), (15.0, 5.0)], rect),
            vec![vec![(0.0, 5.0), (5.0, 5.0), (10.0, 5.0)]]
        );
        let split = clip_polyline(&[(1.0, 1.0), (1.0, 20.0), (2.0, 20.0), (2.0, 1.0)], rect);
        assert_eq!(
            split,
            vec![vec![(1.0, 1.0), (1.0, 10.0)], vec![(2.0, 10.0), (2.0, 1.0)]]
        );
        assert!(clip_polyline(&[(20.0, 20.0), (30.0, 30.0)], rect).is_empty());
        assert!(clip_polyline(&[(1.0, 1.0)], rect).is_empty());
    }

    fn bars() -> BarChart {
        let bar = |v: f64, r: Option<f64>| {
            Some(Bar {
                value: v,
                half_width: 0.05 * v,
                reference: r,
            })
        };
        BarChart {
            caption: "Makespan by case".into(),
            x_label: "Task case".into(),
            y_label: "Makespan (s)".into(),
            groups: vec!["Case I".into(), "Case II".into(), "Case III".into()],
            series: vec![
                BarSeries {
                    name: "Avg-Suff".into(),
                    bars: vec![bar(59.8, Some(39.37)), bar(4.5, None), None],
                },
                BarSeries {
                    name: "Max-Min".into(),
                    bars: vec![bar(59.7, None), bar(4.49, None), bar(22.9, None)],
                },
            ],
            y_range: None,
        }
    }

    fn gantt() -> GanttChart {
        let b = |row: usize, start: f64, end: f64, label: &str| GanttBar {
            row,
            start,
            end,
            label: label.into(),
        };
        GanttChart {
            caption: "Result of Segmented Average-Sufferage".into(),
            time_label: "Time".into(),
            rows: vec!["R1".into(), "R2".into(), "R3".into()],
            bars: vec![
                b(1, 0.0, 2.28, "t1"),
                b(1, 2.28, 4.66, "t9"),
                b(2, 0.0, 0.01, "t99"),
            ],
            marker: Some((4.66, "makespan 4.66".into())),
        }
    }

    #[test]
    fn bar_charts_are_deterministic_and_labelled() {
        let a = render_bars_svg(&bars()).unwrap();
        assert_eq!(a, render_bars_svg(&bars()).unwrap());
        for text in [
            "Case I",
            "Case III",
            "Avg-Suff",
            "Max-Min",
            "document",
            "Makespan (s)",
        ] {
            assert!(a.contains(text), "{text}");
        }
        // Many long group names are drawn rotated rather than overlapping.
        let mut many = bars();
        many.groups = (0..12).map(|i| format!("c{i}")).collect();
        for s in &mut many.series {
            s.bars = vec![s.bars[1]; 12];
        }
        // The y-axis title is always turned; category labels add one `rotate` each when turned.
        let turned = |svg: &str| svg.matches("rotate").count();
        let baseline = turned(&a);
        let svg = render_bars_svg(&many).unwrap();
        assert_eq!(
            turned(&svg),
            baseline,
            "12 short labels fit at a smaller size"
        );
        many.groups = (0..12)
            .map(|i| format!("a rather long label {i}"))
            .collect();
        let svg = render_bars_svg(&many).unwrap();
        assert!(turned(&svg) >= baseline + 12, "rotated labels");
        let mut fixed = bars();
        fixed.y_range = Some((0.0, 30.0));
        render_bars_svg(&fixed).unwrap();
    }

    #[test]
    fn bad_bar_charts_are_errors() {
        let mut b = bars();
        b.series[0].bars.pop();
        assert!(matches!(
            render_bars_svg(&b),
            Err(PlotError::InvalidElement(_))
        ));
        let mut b = bars();
        b.series[1].bars[0] = Some(Bar {
            value: f64::NAN,
            half_width: 0.0,
            reference: None,
        });
        assert!(matches!(
            render_bars_svg(&b),
            Err(PlotError::InvalidElement(_))
        ));
        let mut b = bars();
        b.groups.clear();
        assert!(matches!(render_bars_svg(&b), Err(PlotError::NoData)));
        let mut b = bars();
        for s in &mut b.series {
            s.bars = vec![None; 3];
        }
        assert!(matches!(render_bars_svg(&b), Err(PlotError::NoData)));
    }

    #[test]
    fn gantt_charts_are_deterministic_and_labelled() {
        let a = render_gantt_svg(&gantt()).unwrap();
        assert_eq!(a, render_gantt_svg(&gantt()).unwrap());
        for text in [
            "R1",
            "R3",
            "t1",
            "t9",
            "makespan 4.66",
            "Time",
            GANTT_SHADES_NOTE,
        ] {
            assert!(a.contains(text), "{text}");
        }
        // A box too narrow for its label is drawn without it.
        assert!(!a.contains(">t99<"));
        let mut g = gantt();
        g.bars[0].row = 3;
        assert!(matches!(
            render_gantt_svg(&g),
            Err(PlotError::InvalidElement(_))
        ));
        let mut g = gantt();
        g.bars[0].end = -1.0;
        assert!(matches!(
            render_gantt_svg(&g),
            Err(PlotError::InvalidElement(_))
        ));
        let mut g = gantt();
        g.rows.clear();
        g.bars.clear();
        assert!(matches!(render_gantt_svg(&g), Err(PlotError::NoData)));
        let mut g = gantt();
        g.bars.clear();
        g.marker = None;
        render_gantt_svg(&g).unwrap();
    }

    #[test]
    fn categorical_ticks_sit_at_group_centres() {
        let axis = TickedAxis::categorical(&["a".into(), "b".into()]);
        assert_eq!((axis.lo, axis.hi), (0.0, 2.0));
        assert_eq!(
            axis.ticks.major,
            vec![(0.5, "a".to_string()), (1.5, "b".to_string())]
        );
        assert_eq!(axis.ticks.label(1.4), "b");
    }
}
