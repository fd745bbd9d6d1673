//! The schema of a benchmark report file (`crates/*/benches/*.report.toml`): which criterion
//! results a part of `docs/benchmarks.md` is made of, and how they become tables, targets and
//! log-log plots. The harness knows no benchmark; everything specific is in these files.
//!
//! ```toml
//! section = "bench"                  # the part goes between <!-- bench:begin --> and <!-- bench:end -->
//! section_heading = "## Results"     # written above the markers when the document lacks them
//! order = 10                         # parts of a section in ascending order; sections by their first part
//! empty = "No `solve/*` results found (run ...)."    # written instead of the blocks when no result matches
//!
//! [source]                           # which benchmarks, and how their ids become fields
//! group = "solve/{algorithm}"        # literal text and {field} captures (the last may span '/')
//! function = "variant"               # the field the function id goes to (a row holds one result per function)
//! functions = ["fast", "naive"]      # optional: only these function ids
//! value = ["n", "load"]              # the value id is `n=..,load=..` with exactly these keys
//! sort = ["algorithm", "load", "n"]  # row order: numbers numerically, text alphabetically ...
//! order = { algorithm = ["heap-sort"] }    # ... unless listed here (listed first, in this order)
//!
//! [records.state]                    # a CSV the bench writes beside criterion's results
//! file = "my-bench-state.csv"        # joined to a row on every column named like a row field
//!
//! [headers]                          # column headers of fields (default: the field name)
//! load = "ρ"
//!
//! [value_labels.algorithm]           # `{algorithm:label}` in templates; `default` may use `{algorithm}`
//! heap-sort = "Heap sort (in place)"
//! ```
//!
//! Then `[[figure]]` (log-log plots) and `[[block]]` (Markdown: an optional `heading`, `text`,
//! `figures` links, and one of `table`, `pivot`, `targets`, `growth`, `nearest`); see the
//! structs below. Templates use `{field}` and `{field:label}`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One report file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSpec {
    /// Marker name: the part goes between `<!-- {section}:begin -->` and `<!-- {section}:end -->`.
    pub section: String,
    /// Heading written above the markers when the document does not have them yet.
    pub section_heading: String,
    /// Position of this part (parts of a section ascending; sections by their first part).
    pub order: i64,
    /// Written instead of the blocks when no benchmark matches the source.
    #[serde(default)]
    pub empty: Option<String>,
    pub source: SourceSpec,
    #[serde(default)]
    pub records: BTreeMap<String, RecordSpec>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub value_labels: BTreeMap<String, BTreeMap<String, String>>,
    #[serde(default, rename = "figure")]
    pub figures: Vec<FigureSpec>,
    #[serde(default, rename = "block")]
    pub blocks: Vec<BlockSpec>,
}

/// Which criterion benchmarks form the rows, and how their ids become fields.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Group id pattern: literal text with `{field}` captures.
    pub group: String,
    /// The field that receives the function id.
    pub function: String,
    /// Only these function ids (default: all).
    #[serde(default)]
    pub functions: Option<Vec<String>>,
    /// The keys of the value id `k=v,k=v` (exactly these, in any order).
    pub value: Vec<String>,
    /// Row order by these fields.
    #[serde(default)]
    pub sort: Vec<String>,
    /// Explicit value order per field (listed values first, in this order).
    #[serde(default)]
    pub order: BTreeMap<String, Vec<String>>,
}

/// A CSV with a header line that a bench writes into criterion's directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    pub file: String,
}

/// A value looked up in a record: the last line whose columns named like the row's fields
/// equal them and whose `where` columns equal the given values.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRef {
    pub record: String,
    pub column: String,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
}

/// A table column.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub header: String,
    /// The row's field.
    #[serde(default)]
    pub field: Option<String>,
    /// With `field`: drop this prefix from the value.
    #[serde(default)]
    pub strip_prefix: Option<String>,
    /// The mean time of the row's result whose function is one of these, in µs.
    #[serde(default)]
    pub time: Option<Vec<String>>,
    /// The ratio of the two times (numerator functions, denominator functions).
    #[serde(default)]
    pub ratio: Option<[Vec<String>; 2]>,
    /// A record value (`record` names a `[records.*]` entry).
    #[serde(default)]
    pub record: Option<String>,
    #[serde(default)]
    pub column: Option<String>,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    /// Print a record value with this many decimals (default: as a number).
    #[serde(default)]
    pub decimals: Option<usize>,
}

/// A Markdown block.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSpec {
    #[serde(default)]
    pub heading: Option<String>,
    /// A paragraph (`growth` blocks may use `{log_ratio[i]}`, `{log_slope}`, `{tolerance}`).
    #[serde(default)]
    pub text: Option<String>,
    /// Names of `[[figure]]`s whose plots are linked here.
    #[serde(default)]
    pub figures: Vec<String>,
    #[serde(default)]
    pub table: Option<TableSpec>,
    #[serde(default)]
    pub pivot: Option<PivotSpec>,
    #[serde(default)]
    pub targets: Option<TargetsSpec>,
    #[serde(default)]
    pub growth: Option<GrowthSpec>,
    #[serde(default)]
    pub nearest: Option<NearestSpec>,
}

/// Rows as a table (one per value of `split`, each under `split_heading`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    #[serde(default)]
    pub split: Option<String>,
    #[serde(default)]
    pub split_heading: Option<String>,
    /// Only rows whose fields equal these values.
    #[serde(default)]
    pub filter: BTreeMap<String, String>,
    /// Only rows whose fields start with these prefixes.
    #[serde(default)]
    pub filter_prefix: BTreeMap<String, String>,
    pub columns: Vec<ColumnSpec>,
}

/// One row per value of `rows`, one time column per function id (`first` ones first, then
/// alphabetically).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PivotSpec {
    #[serde(default)]
    pub filter: BTreeMap<String, String>,
    pub rows: String,
    #[serde(default)]
    pub first: Vec<String>,
}

/// A speed-up target: for each listed value of one field and each combination of `by`, the
/// ratio at given values of `at`, met or missed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetsSpec {
    /// One field and the values the target applies to, e.g. `{ algorithm = ["heap-sort"] }`.
    pub rows: BTreeMap<String, Vec<String>>,
    pub by: Vec<String>,
    #[serde(default)]
    pub by_sort: Vec<String>,
    pub ratio: [Vec<String>; 2],
    pub at: String,
    pub thresholds: Vec<Threshold>,
}

/// A ratio at least `min` at `at`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    pub at: f64,
    pub min: f64,
    pub header: String,
}

/// How a time grows along `at` compared with a logarithm.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrowthSpec {
    pub split: String,
    pub by: Vec<String>,
    #[serde(default)]
    pub by_sort: Vec<String>,
    pub time: Vec<String>,
    pub at: String,
    /// The values of `at` whose consecutive ratios are compared with `ln b / ln a`.
    pub points: Vec<f64>,
    /// A step is "logarithmic" when its ratio is at most this times `ln b / ln a`.
    pub tolerance: f64,
    pub step_headers: Vec<String>,
    /// A record value whose last-step ratio is shown (e.g. the size of the measured state).
    #[serde(default)]
    pub record: Option<GrowthRecord>,
    /// Labels for "every step logarithmic" and "some step faster".
    pub verdicts: [String; 2],
    pub slope_header: String,
    pub verdict_header: String,
}

/// The record column of a growth table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrowthRecord {
    pub record: String,
    pub column: String,
    pub header: String,
}

/// Per value of `per`, the row whose `near` value is nearest to `value` (within a factor),
/// and whether its ratio meets `min`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearestSpec {
    pub per: String,
    pub near: RecordRef,
    pub value: f64,
    pub factor: f64,
    pub ratio: [Vec<String>; 2],
    pub min: f64,
    pub columns: Vec<ColumnSpec>,
    pub ratio_header: String,
}

/// A log-log plot of time against `x`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub name: String,
    /// One figure per combination of these fields (none: one figure).
    #[serde(default)]
    pub each: Vec<String>,
    #[serde(default)]
    pub each_sort: Vec<String>,
    /// File stem template (`solve-{algorithm}`).
    pub stem: String,
    pub caption: String,
    /// Caption per value of the single `each` field, overriding `caption`.
    #[serde(default)]
    pub caption_for: BTreeMap<String, String>,
    #[serde(default)]
    pub filter: BTreeMap<String, String>,
    pub x: XSpec,
    pub x_label: String,
    pub y_label: String,
    /// Series selectors (outer loop); each is split by `series_by` (inner loop).
    #[serde(default)]
    pub series: Vec<SeriesSpec>,
    #[serde(default)]
    pub series_by: Vec<String>,
    #[serde(default)]
    pub series_by_sort: Vec<String>,
    /// Series name template: `{series}` (the selector's name) and `series_by` fields.
    #[serde(default)]
    pub series_name: Option<String>,
    /// Instead of `series`: one series per function id (`first` ones first).
    #[serde(default)]
    pub series_from_function: Option<FunctionSeries>,
    /// Figures with fewer series are not drawn.
    #[serde(default)]
    pub min_series: Option<usize>,
}

/// The x value of a point.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XSpec {
    #[serde(default)]
    pub field: Option<String>,
    #[serde(default)]
    pub record: Option<String>,
    #[serde(default)]
    pub column: Option<String>,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
}

/// A series selector: the times of these function ids, under a name template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    pub time: Vec<String>,
    pub name: String,
}

/// One series per function id.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionSeries {
    #[serde(default)]
    pub first: Vec<String>,
}
