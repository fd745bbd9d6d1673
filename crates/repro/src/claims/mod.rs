//! Claims: a paper's statements about a figure, as predicates checked against the measured result table.
//!
//! This is the reference for people writing the `[[claims]]` tables of experiment files.
//!
//! # A claim
//!
//! ```toml
//! [[claims]]
//! id     = "3.4b"
//! quote  = "LACT is significantly worse than the other four strategies at all but very low loads"
//! where  = "x >= 0.3"
//! expect = "all(S in {first-fit, min-lip, min-tip, best-fit}: loss[lact] > loss[S] + 0.02)"
//! ```
//!
//! | field    | meaning |
//! |----------|---------|
//! | `id`     | short id, e.g. `"3.4b"` |
//! | `quote`  | the paper's own words |
//! | `note`   | optional: the reading we chose, a spec section, a known mismatch |
//! | `expect` | boolean expression, evaluated at every sweep point `x` in scope |
//! | `where`  | optional boolean expression over `x` and constants selecting the points in scope (default: all points of the table) |
//! | `holds`  | optional: how many in-scope points must satisfy `expect`: `"all"` (default), `"any"`, `">= K"` (K points) or `">= P%"` (at least ⌈P·N/100⌉ of the N in-scope points) |
//! | `soft`   | optional, default `false`: a soft claim depends on an interpretation or mismatched data; it is reported (SOFT-FAIL) but never fails a build |
//! | `if_fails` | optional: the likely reason, found by investigation, why the claim does not reproduce on the committed results (paper scale where they exist); the report shows it next to a FAIL or SOFT-FAIL |
//! | `if_fails_quick` | optional: the reason for a claim that fails only at quick scale (a small-sample effect); shown instead of `if_fails` when the claim is judged at quick scale |
//! | `kind`   | optional, default `"document"`: whose statement this is (below) |
//! | `scale`  | optional: `"any"` (default) or `"paper"`: a paper claim (e.g. an absolute "≈ 0" or "< 1%") is only judged at paper scale; elsewhere it is SKIP with the reason "absolute claim needs paper-scale precision" |
//!
//! **Kinds.** Only a `document` claim — the document's own sentence, checked on the document's
//! own quantity — counts as a reproduced claim. Three other kinds are reported and counted apart:
//!
//! | `kind` | what it is |
//! |--------|------------|
//! | `"document"` | a statement of the document (the default) |
//! | `"calibrated"` | a statement of the document whose check depends on a parameter we chose to fit the document (e.g. a horizon tuned to its maxima): it tests our calibration, not the document |
//! | `"ours"` | a check that is ours, not the document's: a worked-example fixture, a metric definition, a result of another benchmark, a mapping derived from the spec |
//! | `"sensitivity"` | a statement of the document re-checked under an alternative reading of something the document leaves open (not the default reading): it says how robust a verdict is, and is no verdict on the document |
//!
//! The rules for writing a claim are in `experiments/CLAIMS.md`.
//!
//! Unknown fields are rejected. Tip: write expressions as TOML literal strings (`'...'`) when they contain `"`,
//! e.g. `expect = 'monotone(loss[lact], "up")'` (the language also accepts `'up'` and a bare `up`).
//!
//! # Expressions
//!
//! ```text
//! expr     := expr "or" expr | expr "and" expr | "not" expr
//!           | sum CMP sum                      CMP: <  <=  >  >=  ==  !=   (do not chain: a < b < c is an error)
//!           | sum
//! sum      := sum ("+" | "-") term | term
//! term     := term ("*" | "/") unary | unary
//! unary    := "-" unary | primary
//! primary  := NUMBER                           0.02   1e-4   10   .5
//!           | "x"                              the current sweep value
//!           | "true" | "false"
//!           | "tol"                            automatic tolerance of the enclosing comparison (below)
//!           | ref                              mean of a cell
//!           | "ci(" ref ")"                    95% CI half-width of a cell
//!           | "abs(" expr ")" | "max(" expr, ... ")" | "min(" expr, ... ")"
//!           | "if(" cond "," a "," b ")"       only the chosen branch is evaluated; a and b have one type
//!           | ("all" | "any") "(" VAR "in" "{" SERIES, ... "}" ":" expr ")"
//!           | series-function
//!           | "(" expr ")"
//! ref      := METRIC "[" SERIES-or-VAR "]" [ "@" ["-"] NUMBER ]
//! ```
//!
//! Precedence, loosest first: `or` < `and` < `not` < comparisons < `+ -` < `* /` < unary `-` < `@`.
//! `and`/`or` short-circuit. Values are numbers or booleans; every type error (e.g. `loss[a] + (x > 1)`, an `if`
//! whose branches differ, a number used as a condition) is reported when the claim is parsed, with its column.
//!
//! **Names.** Metric and series names consist of letters, digits, `_`, `-` and `.`; a metric name is any such
//! name directly followed by `[` (`work-loss[lact]`), and the series name runs to the closing `]`
//! (`delay[min-tip.narrative]`). A name beginning with a keyword (`x`, `tol`, `and`, ...) stops there, so
//! `x-loss[lact]` is `x - loss[lact]`; otherwise put spaces around `-` next to a name.
//!
//! **References.** `loss[lact]` is the mean of metric `loss`, series `lact` at the current `x`;
//! `loss[lact]@0.4` is taken at the sweep value 0.4 whatever the current point. A missing cell (or an `@` value
//! that is not a sweep value of the table) is an evaluation error such as `no data for loss[lact] at x=0.4`: the
//! claim becomes SKIP with that reason, never FAIL. `@` takes a number literal; sweep values are matched to 9
//! significant digits.
//!
//! **Comparisons.** Numbers that agree to 9 significant digits are equal (so `x <= 0.8` includes a sweep value
//! stored as 0.8000000000000002). `==`/`!=` also compare two booleans. Division by zero is an
//! evaluation error (SKIP).
//!
//! **NaN.** A comparison involving NaN (including `!=`) is *unknown*, and truth values follow Kleene's
//! three-valued logic: `not` keeps unknown unknown, `and`/`or` decide without it only when the
//! other side decides alone (`false and ?` is false, `true or ?` true), `==`/`!=` of an unknown is
//! unknown, `if` on an unknown condition is unknown (NaN for numbers), and `monotone`, `argmax`,
//! `argmin` over a series with a NaN mean are unknown too. A point holds only when the claim is
//! known true there, so a NaN never makes a claim pass, whatever surrounds it.
//!
//! **`tol`** is the tolerance of the innermost comparison it appears in: `max(h, f)` where `h` is the 95 %
//! half-width of the difference of the comparison's two sides and `f` the largest
//! [`floor`](crate::table::Lookup::floor) among its metric references. `h` is Welch's: over the distinct
//! cells the comparison references (both sides, each at its own point, `ci(...)` arguments included;
//! references inside quantifiers or whole-series functions nested in the comparison do not count), each
//! cell's standard error `sd/√n` weighted by how much the difference moves with its mean (a numerical
//! derivative with `tol` at 0: exact for sums, differences and constant multiples; under `min`/`max`
//! only the chosen argument counts), `h = t(0.975, ν) · sqrt(Σ (c_i se_i)²)` with Welch–Satterthwaite's
//! `ν`. A single reference's `h` is its own CI half-width. `tol` outside a comparison, or in a
//! comparison without metric references, is a parse error. Example:
//! `loss[best-fit] >= loss[min-lip] - tol`.
//!
//! **Three outcomes.** A claim that holds as written is PASS. One that does not, but holds at enough
//! points when every comparison with a `tol` may also be read with `−tol` (under `not`, only when
//! both readings hold), is TIE: what it states is inside the noise. Otherwise it is FAIL (SOFT-FAIL
//! when soft): contradicted beyond the noise, or, for a claim without `tol`, simply false.
//!
//! **Quantifiers** over series: `all(S in {first-fit, min-lip}: loss[lact] > loss[S] + 0.02)` binds `S` to each
//! listed series in turn (usable inside brackets: `loss[S]`); `any(...)` likewise. Quantifiers nest (with
//! distinct variable names); every binding is evaluated, so summaries show all values.
//!
//! **Whole-series functions** do not depend on the current point: they range over the in-scope points (those
//! selected by `where`), are evaluated once per claim (and quantifier binding), and their extra arguments must
//! be independent of `x` (numbers, `@` references, other whole-series functions):
//!
//! | function | value |
//! |----------|-------|
//! | `spearman(m[s])` | Spearman rank correlation between x and the means (average ranks for ties; NaN for a constant series) |
//! | `argmax(m[s])`, `argmin(m[s])` | the x of the largest / smallest mean (ties: the smallest x) |
//! | `monotone(m[s], "up")` / `"down"` | boolean: each consecutive pair of in-scope points has next ≥ prev − t (up) or next ≤ prev + t (down), with t = max(the pair difference's 95 % Welch half-width, floor(m)) |
//! | `monotone(m[s], "down", from)`, `monotone(m[s], "up", from, to)` | the same over the in-scope points with from ≤ x ≤ to, e.g. `monotone(delay[lact], "down", argmax(delay[lact]))` |
//! | `slope(m[s], x0, x1)` | (mean(x1) − mean(x0)) / (x1 − x0) (x0, x1 need not be in scope) |
//! | `value_range(m[s])` | largest mean − smallest mean over the in-scope points |
//!
//! A claim whose `expect` does not depend on `x` (only `@` references and whole-series functions) is evaluated
//! once; it holds at all in-scope points or at none.
//!
//! # Results
//!
//! [`ParsedClaim::evaluate`] returns a [`ClaimOutcome`]: the [`Verdict`], per in-scope point the values of every
//! reference / `tol` / whole-series function used (in evaluation order), and a one-line summary with measured
//! numbers (4 significant digits), e.g.
//! `FAIL at x=0.2: loss[lact]=0.012, loss[first-fit]=0.0031, tol=0.004 (holds at 8/10 points; needed all)` or
//! `holds at 9/9 points; worst margin at x=0.3: loss[lact]=0.061 vs loss[first-fit]+0.02=0.045`.
//! A `tol` is labelled `tol` when the claim has a single comparison using it outside quantifiers, otherwise
//! `tol(<the references it was computed from>)`.
//!
//! Examples (Castillo §5):
//!
//! ```text
//! 3.4(b)  where = "x >= 0.3"
//!         expect = "all(S in {first-fit, min-lip, min-tip, best-fit}: loss[lact] > loss[S] + 0.02)"
//! 3.7(d)  expect = 'argmax(delay[lact]) >= 0.3 and argmax(delay[lact]) <= 0.5
//!                   and monotone(delay[lact], "down", argmax(delay[lact]))'
//! 3.10(b) expect = "if(max(loss[min-lip], loss[min-tip], loss[best-fit]) < 1e-4, loss[lact] > 1e-3,
//!                      loss[lact] >= 10 * max(loss[min-lip], loss[min-tip], loss[best-fit]))"
//! ```

mod eval;
mod parser;
#[cfg(test)]
mod tests;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::table::Lookup;

/// One claim as written in an experiment file (`[[claims]]`); see the [module docs](self) for the language.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    /// Short id, e.g. `"3.4b"`.
    pub id: String,
    /// The paper's own words.
    pub quote: String,
    /// Optional remark: the reading chosen, a spec section, a known data mismatch.
    #[serde(default)]
    pub note: Option<String>,
    /// Boolean expression evaluated at every in-scope sweep point.
    pub expect: String,
    /// Boolean expression over `x` and constants selecting the in-scope points (default: all).
    #[serde(default)]
    pub r#where: Option<String>,
    /// `"all"` (default), `"any"`, `">= K"` or `">= P%"`.
    #[serde(default)]
    pub holds: Option<String>,
    /// A soft claim is reported but never fails a build.
    #[serde(default)]
    pub soft: bool,
    /// `"any"` (default) or `"paper"` (judged only at paper scale).
    #[serde(default)]
    pub scale: Option<String>,
    /// The likely reason, found by investigation, why this claim does not reproduce; shown
    /// next to a FAIL / SOFT-FAIL in the report (never used to change a verdict).
    #[serde(default)]
    pub if_fails: Option<String>,
    /// The reason at quick scale, when it differs from the paper-scale one (typically: the
    /// claim holds at paper scale and fails at quick scale for lack of samples).
    #[serde(default)]
    pub if_fails_quick: Option<String>,
    /// Whose statement this is; only [`ClaimKind::Document`] claims count as reproduced claims.
    #[serde(default)]
    pub kind: ClaimKind,
}

/// Whose statement a claim checks (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimKind {
    /// The document's own statement on the document's own quantity.
    #[default]
    Document,
    /// The document's statement, but checked through a parameter calibrated to the document.
    Calibrated,
    /// A check of ours: fixtures, metric definitions, other benchmarks, spec-derived mappings.
    Ours,
    /// A statement of the document re-checked under an alternative reading (not the default
    /// one): how robust the verdict is to a choice the document leaves open, not a verdict on
    /// the document.
    Sensitivity,
}

impl ClaimKind {
    /// `"document"`, `"calibrated"`, `"ours"` or `"sensitivity"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimKind::Document => "document",
            ClaimKind::Calibrated => "calibrated",
            ClaimKind::Ours => "ours",
            ClaimKind::Sensitivity => "sensitivity",
        }
    }
}

impl ClaimSpec {
    /// A claim with only the required fields (handy for claims built in code).
    pub fn new(id: impl Into<String>, quote: impl Into<String>, expect: impl Into<String>) -> Self {
        ClaimSpec {
            id: id.into(),
            quote: quote.into(),
            note: None,
            expect: expect.into(),
            r#where: None,
            holds: None,
            soft: false,
            scale: None,
            if_fails: None,
            if_fails_quick: None,
            kind: ClaimKind::Document,
        }
    }
}

/// How many in-scope points must satisfy `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Holds {
    /// Every point (the default).
    All,
    /// At least one point.
    Any,
    /// At least K points; a table with fewer in-scope points cannot judge the claim (SKIP).
    AtLeast(usize),
    /// At least ⌈P·N/100⌉ of the N in-scope points.
    AtLeastPercent(f64),
}

impl Holds {
    /// Parse `"all"`, `"any"`, `">= K"` or `">= P%"`; the error carries a 1-based column.
    pub fn parse(text: &str) -> Result<Holds, (usize, String)> {
        let lead = text.chars().take_while(|c| c.is_whitespace()).count();
        let t = text.trim();
        let usage = "holds must be \"all\", \"any\", \">= K\" or \">= P%\"";
        match t {
            "all" => return Ok(Holds::All),
            "any" => return Ok(Holds::Any),
            _ => {}
        }
        let Some(rest) = t.strip_prefix(">=") else {
            return Err((lead + 1, format!("{usage}, found \"{t}\"")));
        };
        let num_col = lead + 3 + rest.chars().take_while(|c| c.is_whitespace()).count();
        let num = rest.trim();
        if let Some(p) = num.strip_suffix('%') {
            let p: f64 = p
                .trim()
                .parse()
                .map_err(|_| (num_col, format!("invalid percentage \"{num}\"")))?;
            if !(p > 0.0 && p <= 100.0) {
                return Err((
                    num_col,
                    format!("percentage must be in (0, 100], found {p}"),
                ));
            }
            Ok(Holds::AtLeastPercent(p))
        } else {
            let k: usize = num.parse().map_err(|_| {
                (
                    num_col,
                    format!("expected a whole number of points or a percentage, found \"{num}\""),
                )
            })?;
            if k == 0 {
                return Err((
                    num_col,
                    "'>= 0' always holds; use a positive count".to_string(),
                ));
            }
            Ok(Holds::AtLeast(k))
        }
    }

    /// Number of satisfying points needed among `n` in-scope points, or why the claim cannot be judged.
    pub fn required(&self, n: usize) -> Result<usize, String> {
        match *self {
            Holds::All => Ok(n),
            Holds::Any => Ok(1),
            Holds::AtLeast(k) if k > n => Err(format!(
                "holds >= {k} needs at least {k} in-scope points, the table has {n}"
            )),
            Holds::AtLeast(k) => Ok(k),
            Holds::AtLeastPercent(p) => {
                Ok(((p * n as f64 / 100.0) - 1e-9).ceil().max(1.0) as usize)
            }
        }
    }
}

impl fmt::Display for Holds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holds::All => f.write_str("all"),
            Holds::Any => f.write_str("any"),
            Holds::AtLeast(k) => write!(f, ">= {k}"),
            Holds::AtLeastPercent(p) => write!(f, ">= {}%", fmt_sig4(*p)),
        }
    }
}

/// Outcome of one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The claim holds: reproduced, beyond the noise.
    Pass,
    /// Neither reproduced nor contradicted: the claim holds only when its margins (`tol`) are
    /// read the other way, i.e. the difference it states is inside the noise (a tie, or the
    /// stated direction without significance).
    Tie,
    /// A hard claim is contradicted: the opposite of what it states holds beyond the noise (or
    /// a claim without a noise margin does not hold).
    Fail,
    /// A soft claim does not hold: reported, never fails a build.
    SoftFail,
    /// Cannot be judged here: missing data, no points in scope, or a paper-scale claim at another scale.
    Skip,
}

impl Verdict {
    /// `"PASS"`, `"TIE"`, `"FAIL"`, `"SOFT-FAIL"` or `"SKIP"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Tie => "TIE",
            Verdict::Fail => "FAIL",
            Verdict::SoftFail => "SOFT-FAIL",
            Verdict::Skip => "SKIP",
        }
    }

    /// True only for [`Verdict::Fail`].
    pub fn fails_build(self) -> bool {
        self == Verdict::Fail
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The evaluation of `expect` at one in-scope sweep point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointOutcome {
    pub x: f64,
    /// Whether `expect` held here (false when evaluation stopped with an error here).
    pub holds: bool,
    /// Each metric reference, `ci`, `tol` and whole-series function used, in evaluation order, with its value
    /// (booleans as 1/0), e.g. `[("loss[lact]", 0.0523), ("loss[first-fit]", 0.0081), ("tol", 0.004)]`.
    pub values: Vec<(String, f64)>,
}

/// The result of checking one claim against a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimOutcome {
    pub id: String,
    pub quote: String,
    pub expect: String,
    pub soft: bool,
    /// Whose statement it is (copied from the spec).
    pub kind: ClaimKind,
    /// The investigated reason a FAIL / SOFT-FAIL does not reproduce (copied from the spec).
    pub if_fails: Option<String>,
    pub verdict: Verdict,
    /// One line with the measured numbers (or the reason of a SKIP).
    pub summary: String,
    /// Per in-scope point, ascending x (for a SKIP, the points evaluated before the error).
    pub points: Vec<PointOutcome>,
    /// In-scope points where `expect` held.
    pub satisfied: usize,
    /// In-scope points where `expect` held under the lenient reading (every `tol` margin read
    /// either way): a claim that needs more points than `satisfied` but no more than this is a
    /// [`Verdict::Tie`].
    pub within_noise: usize,
    /// Number of in-scope points.
    pub in_scope: usize,
}

impl fmt::Display for ClaimOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<9} {}: {}",
            self.verdict.as_str(),
            self.id,
            self.summary
        )
    }
}

/// A claim that cannot be parsed: which claim, which field, where, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("claim {id}: `{field}`, column {column}: {message}{}", caret(.text, *.column))]
pub struct ClaimError {
    pub id: String,
    /// `expect`, `where`, `holds` or `scale`.
    pub field: &'static str,
    /// 1-based column (in characters) of the problem within the field's text.
    pub column: usize,
    pub message: String,
    /// The field's text.
    pub text: String,
}

fn caret(text: &str, column: usize) -> String {
    if text.is_empty() {
        return String::new();
    }
    format!(
        "\n    {text}\n    {}^",
        " ".repeat(column.saturating_sub(1))
    )
}

/// A claim ready to be evaluated against any number of tables.
#[derive(Debug, Clone)]
pub struct ParsedClaim {
    spec: ClaimSpec,
    expect: parser::Program,
    scope: Option<parser::Program>,
    holds: Holds,
    paper_only: bool,
}

/// Parse and type-check a claim (all fields), reporting the first problem with its column.
pub fn parse_claim(spec: &ClaimSpec) -> Result<ParsedClaim, ClaimError> {
    let err = |field: &'static str, text: &str, (column, message): (usize, String)| ClaimError {
        id: spec.id.clone(),
        field,
        column,
        message,
        text: text.to_string(),
    };
    let expect = parser::parse_program(&spec.expect, parser::Mode::Expect)
        .map_err(|e| err("expect", &spec.expect, e))?;
    let scope = match &spec.r#where {
        Some(w) => {
            Some(parser::parse_program(w, parser::Mode::Where).map_err(|e| err("where", w, e))?)
        }
        None => None,
    };
    let holds = match &spec.holds {
        Some(h) => Holds::parse(h).map_err(|e| err("holds", h, e))?,
        None => Holds::All,
    };
    let paper_only = match spec.scale.as_deref().map(str::trim) {
        None | Some("any") => false,
        Some("paper") => true,
        Some(other) => {
            let text = spec.scale.clone().unwrap_or_default();
            return Err(err(
                "scale",
                &text,
                (
                    1,
                    format!("scale must be \"any\" or \"paper\", found \"{other}\""),
                ),
            ));
        }
    };
    Ok(ParsedClaim {
        spec: spec.clone(),
        expect,
        scope,
        holds,
        paper_only,
    })
}

/// Parse several claims, failing on the first error; ids must be unique.
pub fn parse_claims(specs: &[ClaimSpec]) -> Result<Vec<ParsedClaim>, ClaimError> {
    let mut out: Vec<ParsedClaim> = Vec::with_capacity(specs.len());
    for spec in specs {
        if out.iter().any(|c| c.spec.id == spec.id) {
            return Err(ClaimError {
                id: spec.id.clone(),
                field: "id",
                column: 1,
                message: "duplicate claim id".to_string(),
                text: spec.id.clone(),
            });
        }
        out.push(parse_claim(spec)?);
    }
    Ok(out)
}

impl ParsedClaim {
    /// The claim's id.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// The claim as written.
    pub fn spec(&self) -> &ClaimSpec {
        &self.spec
    }

    /// How many points must hold.
    pub fn holds(&self) -> Holds {
        self.holds
    }

    /// True for `scale = "paper"` claims.
    pub fn paper_only(&self) -> bool {
        self.paper_only
    }

    /// The metrics the claim names (in `expect` and `where`), so that a result lacking one of
    /// them can be found stale before it is judged.
    pub fn metrics(&self) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        parser::metric_names(&self.expect.expr, &mut out);
        if let Some(scope) = &self.scope {
            parser::metric_names(&scope.expr, &mut out);
        }
        out
    }

    /// Check the claim against `table`. `scale_is_paper` tells whether the table was measured at paper scale
    /// (otherwise `scale = "paper"` claims are SKIP, with the measured values still in the summary).
    /// Never panics: missing data and arithmetic errors make the claim SKIP with the reason as summary.
    pub fn evaluate(&self, table: &dyn Lookup, scale_is_paper: bool) -> ClaimOutcome {
        eval::evaluate(self, table, scale_is_paper)
    }
}

/// Format a number with 4 significant digits, trailing zeros removed (`0.0523`, `0.3`, `1.235e-5`).
pub fn fmt_sig4(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let e = v.abs().log10().floor() as i32;
    if (-4..6).contains(&e) {
        let decimals = (3 - e).max(0) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((m, exp)) => {
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.')
                } else {
                    m
                };
                format!("{m}e{exp}")
            }
            None => s,
        }
    }
}
