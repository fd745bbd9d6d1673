//! Unit tests of the claim language: parser, evaluator, summaries, and Castillo §5 claims on hand-made tables.

use std::cell::Cell as StdCell;
use std::collections::BTreeMap;

use super::parser::{ExprKind, Mode, SeriesName, parse_program};
use super::*;
use crate::table::{Cell, Lookup};

// ---------------------------------------------------------------------------------------------------------------
// A small in-memory table

/// Runs behind every cell of a test table.
const RUNS: usize = 30;

/// Welch's 95 % half-width of `a − b` from the two cells' half-widths (30 runs each), written
/// out here independently of the evaluator: `se = hw / t(29)`,
/// `ν = (se_a² + se_b²)² / ((se_a⁴ + se_b⁴) / 29)`, `h = t(ν) · sqrt(se_a² + se_b²)`.
fn welch2(hw_a: f64, hw_b: f64) -> f64 {
    let t29 = gridsched_sim::stats::t_quantile_975(RUNS - 1);
    let (va, vb) = ((hw_a / t29).powi(2), (hw_b / t29).powi(2));
    let nu = (va + vb).powi(2) / ((va * va + vb * vb) / (RUNS - 1) as f64);
    gridsched_sim::stats::t_quantile_975_real(nu) * (va + vb).sqrt()
}

#[derive(Debug, Default)]
struct Table {
    xs: Vec<f64>,
    cells: BTreeMap<(String, String, u64), Cell>,
    floors: BTreeMap<String, f64>,
    lookups: StdCell<usize>,
}

impl Table {
    fn new(xs: &[f64]) -> Self {
        Table {
            xs: xs.to_vec(),
            ..Default::default()
        }
    }
    /// A series with zero-width CIs.
    fn s(self, metric: &str, series: &str, means: &[f64]) -> Self {
        let hw = vec![0.0; means.len()];
        self.sci(metric, series, means, &hw)
    }
    /// A series with CI half-widths (of 30 runs each; the standard deviation follows).
    fn sci(mut self, metric: &str, series: &str, means: &[f64], hw: &[f64]) -> Self {
        assert_eq!(means.len(), self.xs.len(), "{metric}[{series}]");
        for (i, &x) in self.xs.iter().enumerate() {
            let c = Cell {
                mean: means[i],
                half_width: hw[i],
                sd: hw[i] * (RUNS as f64).sqrt() / gridsched_sim::stats::t_quantile_975(RUNS - 1),
                runs: RUNS,
            };
            self.cells
                .insert((metric.into(), series.into(), x.to_bits()), c);
        }
        self
    }
    fn floor(mut self, metric: &str, f: f64) -> Self {
        self.floors.insert(metric.into(), f);
        self
    }
    fn without(mut self, metric: &str, series: &str, x: f64) -> Self {
        self.cells
            .remove(&(metric.to_string(), series.to_string(), x.to_bits()));
        self
    }
}

impl Lookup for Table {
    fn xs(&self) -> Vec<f64> {
        self.xs.clone()
    }
    fn cell(&self, metric: &str, series: &str, x: f64) -> Option<Cell> {
        self.lookups.set(self.lookups.get() + 1);
        self.cells
            .get(&(metric.to_string(), series.to_string(), x.to_bits()))
            .copied()
    }
    fn floor(&self, metric: &str) -> f64 {
        self.floors.get(metric).copied().unwrap_or(0.0)
    }
}

fn spec(expect: &str) -> ClaimSpec {
    ClaimSpec::new("t", "the paper says so", expect)
}

fn run(s: &ClaimSpec, t: &Table) -> ClaimOutcome {
    parse_claim(s)
        .unwrap_or_else(|e| panic!("{e}"))
        .evaluate(t, true)
}

fn ev(expect: &str, t: &Table) -> ClaimOutcome {
    run(&spec(expect), t)
}

fn perr(expect: &str) -> ClaimError {
    match parse_claim(&spec(expect)) {
        Ok(_) => panic!("`{expect}` should not parse"),
        Err(e) => e,
    }
}

/// The verdict of a constant expression (on a one-point table).
fn truth(expect: &str) -> bool {
    let t = Table::new(&[1.0]).s("m", "a", &[2.0]);
    match ev(expect, &t).verdict {
        Verdict::Pass => true,
        Verdict::Fail => false,
        v => panic!("`{expect}` gave {v}"),
    }
}

fn value(out: &ClaimOutcome, point: usize, label: &str) -> f64 {
    let p = &out.points[point];
    p.values
        .iter()
        .find(|(l, _)| l == label)
        .unwrap_or_else(|| panic!("no value {label} in {:?}", p.values))
        .1
}

/// Fully parenthesized form of a parsed expression, to test precedence.
fn sexp(src: &str) -> String {
    fn go(e: &super::parser::Expr) -> String {
        match &e.kind {
            ExprKind::Num(_, t) => t.clone(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::X => "x".into(),
            ExprKind::Tol(_) => "tol".into(),
            ExprKind::Ref(r) => {
                let s = match &r.series {
                    SeriesName::Lit(s) => s.clone(),
                    SeriesName::Var { depth, name } => format!("${name}{depth}"),
                };
                match &r.at {
                    Some(a) => format!("{}[{s}]@{}", r.metric, a.text),
                    None => format!("{}[{s}]", r.metric),
                }
            }
            ExprKind::Ci(r) => format!("(ci {}[..])", r.metric),
            ExprKind::Neg(a) => format!("(neg {})", go(a)),
            ExprKind::Not(a) => format!("(not {})", go(a)),
            ExprKind::Arith(op, a, b) => format!("({} {} {})", op.symbol(), go(a), go(b)),
            ExprKind::Cmp(op, a, b, _) => format!("({} {} {})", op.symbol(), go(a), go(b)),
            ExprKind::And(a, b) => format!("(and {} {})", go(a), go(b)),
            ExprKind::Or(a, b) => format!("(or {} {})", go(a), go(b)),
            ExprKind::Abs(a) => format!("(abs {})", go(a)),
            ExprKind::Max(v) => format!("(max {})", v.iter().map(go).collect::<Vec<_>>().join(" ")),
            ExprKind::Min(v) => format!("(min {})", v.iter().map(go).collect::<Vec<_>>().join(" ")),
            ExprKind::If(c, a, b) => format!("(if {} {} {})", go(c), go(a), go(b)),
            ExprKind::Quant {
                all,
                var,
                series,
                body,
            } => {
                format!(
                    "({} {var} {{{}}} {})",
                    if *all { "all" } else { "any" },
                    series.join(","),
                    go(body)
                )
            }
            ExprKind::Series(f) => format!("({} {}[..])", f.kind.name(), f.target.metric),
        }
    }
    go(&parse_program(src, Mode::Expect)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .expr)
}

// ---------------------------------------------------------------------------------------------------------------
// Parser

#[test]
fn precedence() {
    assert_eq!(sexp("1 + 2 * 3 > 0"), "(> (+ 1 (* 2 3)) 0)");
    assert_eq!(sexp("1 - 2 - 3 > 0"), "(> (- (- 1 2) 3) 0)");
    assert_eq!(sexp("8 / 4 / 2 > 0"), "(> (/ (/ 8 4) 2) 0)");
    assert_eq!(sexp("-2 * 3 > 0"), "(> (* (neg 2) 3) 0)");
    assert_eq!(sexp("- -x > 0"), "(> (neg (neg x)) 0)");
    assert_eq!(sexp("(1 + 2) * 3 > 0"), "(> (* (+ 1 2) 3) 0)");
    assert_eq!(sexp("true or true and false"), "(or true (and true false))");
    assert_eq!(
        sexp("true or false and true or false"),
        "(or (or true (and false true)) false)"
    );
    assert_eq!(sexp("not x < 1 and true"), "(and (not (< x 1)) true)");
    assert_eq!(sexp("not not true"), "(not (not true))");
    assert_eq!(sexp("(x > 1) == (x > 2)"), "(== (> x 1) (> x 2))");
    assert_eq!(
        sexp("loss[a]@0.4 - loss[b] >= -0.1"),
        "(>= (- loss[a]@0.4 loss[b]) (neg 0.1))"
    );
    assert_eq!(sexp("loss[lact]@-1 > 0"), "(> loss[lact]@-1 0)");
}

#[test]
fn precedence_by_evaluation() {
    assert!(truth("1 + 2 * 3 == 7"));
    assert!(!truth("1 + 2 * 3 == 9"));
    assert!(truth("1 - 2 - 3 == -4"));
    assert!(truth("8 / 4 / 2 == 1"));
    assert!(truth("true or true and false"));
    assert!(!truth("not false and false"));
    assert!(truth("not (false and false)"));
    assert!(!truth("not 1 < 2"));
    assert!(truth("-2 * -3 == 6"));
    assert!(truth("1e-4 * 10 == 0.001 and .5 == 0.5 and 2E+1 == 20"));
}

#[test]
fn names_with_dashes_and_dots() {
    assert_eq!(
        sexp("work-loss[min-tip.narrative] > 0"),
        "(> work-loss[min-tip.narrative] 0)"
    );
    assert_eq!(sexp("loss[ min-lip ] > 0"), "(> loss[min-lip] 0)");
    // A name starting with a keyword stops there.
    assert_eq!(sexp("x-loss[a] > 0"), "(> (- x loss[a]) 0)");
    assert_eq!(sexp("loss[a]-loss[b] > 0"), "(> (- loss[a] loss[b]) 0)");
    assert_eq!(
        sexp("all(S in {first-fit, min-tip.narrative}: loss[S] > loss[lact])"),
        "(all S {first-fit,min-tip.narrative} (> loss[$S0] loss[lact]))"
    );
}

#[test]
fn quantifier_variables_resolve_by_depth() {
    assert_eq!(
        sexp("all(A in {a}: any(B in {b, c}: m[A] > m[B] and m[B] > m[z]))"),
        "(all A {a} (any B {b,c} (and (> m[$A0] m[$B1]) (> m[$B1] m[z]))))"
    );
    // Outside the quantifier, S is a literal series name.
    assert_eq!(
        sexp("all(S in {a}: m[S] > 0) and m[S] > 0"),
        "(and (all S {a} (> m[$S0] 0)) (> m[S] 0))"
    );
}

fn err_at(expect: &str, column: usize, needle: &str) {
    let e = perr(expect);
    assert_eq!(e.field, "expect", "{e}");
    assert!(
        e.message.contains(needle),
        "`{expect}`: message {:?} lacks {needle:?}",
        e.message
    );
    assert_eq!(e.column, column, "`{expect}`: {e}");
}

#[test]
fn parse_errors_have_columns() {
    err_at("loss[lact] >", 13, "unexpected end");
    err_at("loss[a] < loss[b] < loss[c]", 19, "do not chain");
    err_at("x > 1 == (x > 2)", 7, "do not chain");
    err_at(
        "loss[a] + (x > 1) > 0",
        14,
        "'+' needs a number, found a boolean",
    );
    err_at("foo(1) > 0", 1, "unknown function 'foo'");
    err_at("foo > 0", 1, "unknown name 'foo'");
    err_at("x = 1", 3, "'=='");
    err_at("x > 1 && x < 2", 7, "'and'");
    err_at("2x > 1", 2, "missing operator");
    err_at("(1 + 2 > 0", 11, "expected ')' to close '(' at column 1");
    err_at("loss[a b] > 0", 7, "invalid character ' '");
    err_at("loss[] > 0", 6, "empty series name");
    err_at("loss[a > 0", 5, "unclosed '['");
    err_at("[a] > 0", 1, "must follow a metric name");
    err_at("loss[lact]@x > 0", 12, "'@x' is not needed");
    err_at("(loss[lact])@0.4 > 0", 13, "'@' must directly follow");
    err_at("loss[a] > 0 1", 13, "unexpected number 1");
    err_at("loss[a] + 1", 9, "`expect` needs a boolean, found a number");
    err_at("1 and x > 0", 1, "'and' needs a boolean");
    err_at("if(x, 1, 2) > 0", 4, "if's condition needs a boolean");
    err_at("if(x > 1, 1, true)", 14, "same type");
    err_at("x == true", 3, "compares a number with a boolean");
    err_at("abs(1, 2) > 0", 1, "abs takes 1 argument, found 2");
    err_at("max() > 0", 1, "max takes at least 1 argument, found 0");
    err_at("true > false", 1, "needs a number");
    err_at("spearman(loss[a]@0.4) > 0", 10, "without '@'");
    err_at("spearman(1) > 0", 10, "must be a metric reference");
    err_at("monotone(loss[a], \"sideways\")", 19, "\"up\" or \"down\"");
    err_at("monotone(loss[a], \"up\", x)", 25, "cannot use x");
    err_at("monotone(loss[a], \"up\", loss[b])", 25, "needs '@'");
    err_at("slope(loss[a], 0.1, tol) > 0", 21, "tol cannot be used");
    err_at("tol > 0", 1, "needs a metric reference in its comparison");
    err_at("all(S in {a, b} loss[S] > 0)", 17, "expected ':'");
    err_at("all(S in {a, , b}: loss[S] > 0)", 14, "empty series name");
    err_at(
        "all(x in {a}: loss[a] > 0)",
        5,
        "starts with a variable name",
    );
    err_at(
        "all(S in {a}: any(S in {b}: loss[S] > 0))",
        19,
        "already bound",
    );
    err_at(
        "all(S in {a}: loss[S])",
        15,
        "the body of all(...) needs a boolean",
    );
    err_at("all(S in {a}: S > 0)", 15, "only be used inside brackets");
    err_at("loss[a] > 'up'", 11, "only allowed as monotone's direction");
    err_at("x > 1e", 6, "malformed exponent");
}

/// Found by `fuzz/fuzz_targets/claims.rs`: a long run of `(`, `not`, `-` or chained operators
/// overflowed the stack (parser and evaluator recurse per level). Deep nesting is refused with
/// a column; the deepest accepted expressions still parse and evaluate.
#[test]
fn nesting_is_bounded_not_a_stack_overflow() {
    use super::parser::MAX_DEPTH;
    let deep =
        |open: &str, close: &str, n: usize| format!("{}1{} > 0", open.repeat(n), close.repeat(n));
    for n in [MAX_DEPTH + 1, 5_000] {
        for (open, close) in [("(", ")"), ("-", ""), ("abs(", ")"), ("max(0, ", ")")] {
            let e = perr(&deep(open, close, n));
            assert!(e.to_string().contains("nested more than"), "{open}: {e}");
        }
        let e = perr(&format!("not {}", "not ".repeat(n) + "true"));
        assert!(e.to_string().contains("nested more than"), "{e}");
        let e = perr(&format!("1{} > 0", " + 1".repeat(n)));
        assert!(e.to_string().contains("nested more than"), "{e}");
    }
    // Well inside the bound: parses and evaluates.
    assert!(truth(&deep("(", ")", MAX_DEPTH / 2)));
    assert!(truth(&format!("1{} == 17", " + 1".repeat(16))));
}

#[test]
fn error_display_has_claim_id_column_and_caret() {
    let e = perr("loss[a] > foo(1)");
    let s = e.to_string();
    assert!(
        s.starts_with("claim t: `expect`, column 11: unknown function 'foo'"),
        "{s}"
    );
    assert!(
        s.ends_with("\n    loss[a] > foo(1)\n              ^"),
        "{s:?}"
    );
}

#[test]
fn where_holds_scale_errors() {
    let mut s = spec("loss[a] > 0");
    s.r#where = Some("x > loss[a]".into());
    let e = parse_claim(&s).unwrap_err();
    assert_eq!((e.field, e.column), ("where", 5));
    assert!(e.message.contains("not metric references"));

    s.r#where = Some("x + 1".into());
    assert!(
        parse_claim(&s)
            .unwrap_err()
            .message
            .contains("`where` needs a boolean")
    );

    s.r#where = Some("x > 0".into());
    s.holds = Some(">= lots".into());
    let e = parse_claim(&s).unwrap_err();
    assert_eq!((e.field, e.column), ("holds", 4));
    s.holds = Some("most".into());
    assert_eq!(parse_claim(&s).unwrap_err().column, 1);
    s.holds = Some(">= 150%".into());
    assert!(parse_claim(&s).unwrap_err().message.contains("(0, 100]"));
    s.holds = Some(">= 0".into());
    assert!(parse_claim(&s).is_err());

    s.holds = None;
    s.scale = Some("quick".into());
    assert_eq!(parse_claim(&s).unwrap_err().field, "scale");
}

#[test]
fn holds_parsing_and_requirements() {
    assert_eq!(Holds::parse("all"), Ok(Holds::All));
    assert_eq!(Holds::parse(" any "), Ok(Holds::Any));
    assert_eq!(Holds::parse(">= 9"), Ok(Holds::AtLeast(9)));
    assert_eq!(Holds::parse(">=9"), Ok(Holds::AtLeast(9)));
    assert_eq!(Holds::parse(">= 80%"), Ok(Holds::AtLeastPercent(80.0)));
    assert_eq!(Holds::AtLeastPercent(80.0).required(11), Ok(9));
    assert_eq!(Holds::AtLeastPercent(81.8).required(11), Ok(9));
    assert_eq!(Holds::AtLeastPercent(50.0).required(3), Ok(2));
    assert_eq!(Holds::AtLeastPercent(100.0).required(3), Ok(3));
    assert_eq!(Holds::AtLeast(9).required(11), Ok(9));
    assert!(Holds::AtLeast(9).required(3).is_err());
    assert_eq!(Holds::Any.required(5), Ok(1));
    assert_eq!(Holds::AtLeastPercent(80.0).to_string(), ">= 80%");
}

#[test]
fn toml_claims_deserialize_and_reject_unknown_fields() {
    #[derive(Debug, serde::Deserialize)]
    struct File {
        claims: Vec<ClaimSpec>,
    }
    let text = r#"
        [[claims]]
        id = "3.4b"
        quote = "LACT is significantly worse"
        where = "x >= 0.3"
        expect = "all(S in {first-fit, min-lip}: loss[lact] > loss[S] + 0.02)"

        [[claims]]
        id = "3.4a"
        quote = "loss rises with load"
        expect = 'monotone(loss[lact], "up")'
        holds = "any"
        soft = true
        scale = "paper"
        note = "spec §5"
    "#;
    let f: File = toml::from_str(text).unwrap();
    assert_eq!(f.claims.len(), 2);
    assert_eq!(f.claims[0].r#where.as_deref(), Some("x >= 0.3"));
    assert!(!f.claims[0].soft);
    assert!(f.claims[1].soft);
    let parsed = parse_claims(&f.claims).unwrap();
    assert!(parsed[1].paper_only());
    assert_eq!(parsed[1].holds(), Holds::Any);

    let bad = "[[claims]]\nid = \"a\"\nquote = \"q\"\nexpect = \"x > 0\"\nexpected = \"typo\"\n";
    let e = toml::from_str::<File>(bad).unwrap_err().to_string();
    assert!(e.contains("unknown field `expected`"), "{e}");

    let dup = vec![spec("x > 0"), spec("x > 1")];
    assert_eq!(parse_claims(&dup).unwrap_err().field, "id");
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

#[test]
fn functions_abs_max_min_if() {
    assert!(truth("abs(-3) == 3 and abs(2) == 2"));
    assert!(truth(
        "max(1, 5, 3) == 5 and min(4, -1, 2) == -1 and max(7) == 7"
    ));
    assert!(!truth("max(1, 5, 3) == 3"));
    assert!(truth("if(1 < 2, 10, 20) == 10 and if(1 > 2, 10, 20) == 20"));
    assert!(
        truth("if(true, m[a] > 1, m[missing] > 1)"),
        "only the chosen branch is evaluated"
    );
    assert!(truth("x == 1 and m[a] == 2"));
}

#[test]
fn metric_refs_ci_and_at() {
    let t = Table::new(&[0.1, 0.4, 0.7])
        .sci("loss", "lact", &[0.01, 0.05, 0.2], &[0.001, 0.002, 0.01])
        .s("loss", "ff", &[0.001, 0.002, 0.02]);
    let o = ev("loss[lact] > loss[ff]@0.7", &t);
    assert_eq!(o.verdict, Verdict::Fail);
    assert_eq!(o.satisfied, 2);
    assert_eq!(
        o.points[0].values,
        vec![
            ("loss[lact]".to_string(), 0.01),
            ("loss[ff]@0.7".to_string(), 0.02)
        ]
    );
    assert!(!o.points[0].holds && o.points[1].holds && o.points[2].holds);

    let o = ev("ci(loss[lact]) < 0.005 and ci(loss[lact]@0.7) == 0.01", &t);
    assert_eq!(o.satisfied, 2, "{o:?}");
    assert_eq!(value(&o, 2, "ci(loss[lact])"), 0.01);

    // @ matches sweep values to 9 significant digits.
    let t2 = Table::new(&[0.1 + 0.2]).s("m", "a", &[1.0]);
    assert_eq!(
        ev(
            "m[a]@0.3 == 1 and x == 0.3 and x <= 0.3 and not x < 0.3",
            &t2
        )
        .verdict,
        Verdict::Pass
    );
}

#[test]
fn missing_data_is_skip_not_fail() {
    let t = Table::new(&[0.1, 0.2, 0.3])
        .s("loss", "lact", &[0.1, 0.2, 0.3])
        .s("loss", "ff", &[0.0, 0.0, 0.0]);
    let o = ev("loss[lact] > loss[ff]@0.4", &t);
    assert_eq!(o.verdict, Verdict::Skip);
    assert_eq!(o.summary, "no data for loss[ff] at x=0.4");

    let t = t.without("loss", "ff", 0.2);
    let o = ev("loss[lact] > loss[ff]", &t);
    assert_eq!(o.verdict, Verdict::Skip);
    assert_eq!(o.summary, "no data for loss[ff] at x=0.2");
    assert_eq!(o.points.len(), 2, "points up to the error are kept");

    let o = ev("loss[lact] > loss[nosuch]", &t);
    assert_eq!(o.summary, "no data for loss[nosuch] at x=0.1");
    let o = ev("spearman(loss[ff]) > 0", &t);
    assert_eq!(
        (o.verdict, o.summary.as_str()),
        (Verdict::Skip, "no data for loss[ff] at x=0.2")
    );
}

#[test]
fn division_by_zero_and_nan() {
    let t = Table::new(&[1.0, 2.0])
        .s("m", "a", &[0.0, 1.0])
        .s("m", "n", &[f64::NAN, 1.0]);
    let o = ev("1 / m[a] > 0", &t);
    assert_eq!(o.verdict, Verdict::Skip);
    assert_eq!(o.summary, "division by zero at column 3 (`1/m[a]`, x=1)");

    for e in [
        "m[n] > 0",
        "m[n] < 0",
        "m[n] == m[n]",
        "m[n] != 0",
        "m[n] >= 0",
    ] {
        let o = ev(e, &t);
        assert_eq!(o.verdict, Verdict::Fail, "{e}");
        assert!(
            !o.points[0].holds,
            "{e}: NaN comparisons are unknown, never true"
        );
    }
    // Whatever surrounds it, an unknown comparison never makes a claim hold: not, == on the
    // truth values, if, or/and with a side that does not decide, whole-series functions.
    let t2 = Table::new(&[1.0, 2.0]).s("m", "n", &[f64::NAN, f64::NAN]);
    for e in [
        "not m[n] > 0",
        "not not m[n] > 0",
        "not (m[n] > 0 and 1 > 0)",
        "not (m[n] > 0 or 0 > 1)",
        "(m[n] > 0) == false",
        "(m[n] > 0) != true",
        "(m[n] > 0) == (m[n] > 0)",
        "if(m[n] > 0, false, true)",
        "if(m[n] > 0, 1, 2) == 2",
        "not monotone(m[n], \"up\")",
        "not monotone(m[n], \"down\")",
        "argmax(m[n]) == 1 or argmax(m[n]) != 1",
        "not spearman(m[n]) > 0",
        "not value_range(m[n]) > 0",
    ] {
        let o = ev(e, &t2);
        assert_eq!(o.satisfied, 0, "{e}: NaN made a claim hold");
        assert_ne!(o.verdict, Verdict::Pass, "{e}");
    }
    // A side that decides on its own still decides (Kleene's logic), NaN or not.
    assert!(ev("m[n] > 0 or 1 > 0", &t).points[0].holds);
    assert!(!ev("m[n] > 0 and 0 > 1", &t).points[0].holds);
    assert!(ev("not (m[n] > 0 and 0 > 1)", &t).points[0].holds);
    assert_eq!(
        ev("max(m[n], 5) > 0", &t).satisfied,
        1,
        "max propagates NaN"
    );
}

#[test]
fn quantifiers_all_any_nested() {
    let t = Table::new(&[1.0, 2.0])
        .s("loss", "lact", &[0.5, 0.6])
        .s("loss", "a", &[0.1, 0.1])
        .s("loss", "b", &[0.2, 0.7]);
    let o = ev("all(S in {a, b}: loss[lact] > loss[S])", &t);
    assert_eq!((o.verdict, o.satisfied), (Verdict::Fail, 1));
    assert_eq!(
        o.points[1]
            .values
            .iter()
            .map(|v| v.0.as_str())
            .collect::<Vec<_>>(),
        ["loss[lact]", "loss[a]", "loss[b]"],
        "all bindings are evaluated and recorded in order"
    );
    assert_eq!(
        ev("any(S in {a, b}: loss[lact] < loss[S])", &t).satisfied,
        1
    );
    assert_eq!(
        ev("any(S in {a, b}: loss[lact] < loss[S] - 1)", &t).satisfied,
        0
    );
    // Nested: every pair (A, B) with A != B satisfies loss[A] != loss[B].
    assert_eq!(ev("all(A in {lact, a, b}: all(B in {lact, a, b}: loss[A] == loss[B] or loss[A] != loss[B]))", &t).verdict, Verdict::Pass);
    // Some series is the max at each point.
    let o = ev(
        "any(A in {lact, a, b}: all(B in {lact, a, b}: loss[A] >= loss[B]))",
        &t,
    );
    assert_eq!(o.verdict, Verdict::Pass);
    let o = ev("all(A in {a, b}: all(B in {lact}: loss[A] < loss[B]))", &t);
    assert_eq!(o.satisfied, 1);
}

#[test]
fn tol_is_the_welch_half_width_of_the_difference_or_the_floor() {
    let t = Table::new(&[0.1, 0.2])
        .sci("loss", "bf", &[0.010, 0.010], &[0.001, 0.0005])
        .sci("loss", "mlip", &[0.012, 0.0110], &[0.0015, 0.0002])
        .sci("loss", "far", &[0.5, 0.5], &[0.3, 0.3]);
    // x=0.1: tol = welch(0.001, 0.0015) ≈ 0.00177, 0.010 >= 0.012 - 0.00177 fails;
    // x=0.2: tol = welch(0.0005, 0.0002) ≈ 0.00053, 0.010 >= 0.011 - 0.00053 fails too.
    let o = ev("loss[bf] >= loss[mlip] - tol", &t);
    assert_eq!(o.satisfied, 0);
    assert!((value(&o, 0, "tol") - welch2(0.001, 0.0015)).abs() < 1e-12);
    assert!((value(&o, 1, "tol") - welch2(0.0005, 0.0002)).abs() < 1e-12);
    assert_eq!(o.verdict, Verdict::Fail, "contradicted beyond the noise");
    // A series that is not compared does not widen the tolerance (it used to: the largest CI
    // of every reference in the comparison).
    let o = ev("loss[bf] >= min(loss[mlip], loss[far]) - tol", &t);
    assert!((value(&o, 0, "tol") - welch2(0.001, 0.0015)).abs() < 1e-9);
    // A coefficient scales its mean's share: 2·a has twice a's standard error.
    let o = ev("2 * loss[bf] > loss[far] + tol", &t);
    assert!((value(&o, 0, "tol") - welch2(0.002, 0.3)).abs() < 1e-9);

    // The floor wins when larger.
    let t = t.floor("loss", 0.0021);
    let o = ev("loss[bf] >= loss[mlip] - tol", &t);
    assert!((value(&o, 1, "tol") - 0.0021).abs() < 1e-15);
    assert_eq!(o.verdict, Verdict::Pass);

    // References at their own points count, references of other comparisons do not; one
    // reference alone has its own half-width.
    let t = Table::new(&[0.1, 0.2])
        .sci("m", "a", &[1.0, 1.0], &[0.01, 0.1])
        .sci("m", "b", &[1.0, 1.0], &[0.02, 0.0]);
    let o = ev("m[a]@0.2 - tol < m[b] and m[b] + 0 > tol", &t);
    assert!((value(&o, 0, "tol(m[a]@0.2,m[b])") - welch2(0.1, 0.02)).abs() < 1e-12);
    assert!((value(&o, 0, "tol(m[b])") - 0.02).abs() < 1e-12);
    // Quantified comparisons label tol with the references it came from.
    let o = ev("all(S in {a, b}: m[S] >= 1 - tol)", &t);
    assert!((value(&o, 0, "tol(m[a])") - 0.01).abs() < 1e-12);
    assert!((value(&o, 0, "tol(m[b])") - 0.02).abs() < 1e-12);
    // A cell referenced twice (here and at its own point) is one mean, not two.
    let o = ev("m[a] + m[a]@0.1 > 2 + tol", &t);
    assert!((value(&o, 0, "tol") - 2.0 * 0.01).abs() < 1e-9);
}

#[test]
fn three_outcomes_reproduced_tie_contradicted() {
    // a − b = 0.01 with a tolerance of about 0.0069: reproduced.
    let t = |a: f64| {
        Table::new(&[1.0])
            .sci("m", "a", &[a], &[0.005])
            .sci("m", "b", &[1.0], &[0.005])
    };
    let claim = "m[a] > m[b] + tol";
    assert_eq!(ev(claim, &t(1.01)).verdict, Verdict::Pass);
    // Inside the noise, in the stated direction or not: a tie.
    let o = ev(claim, &t(1.003));
    assert_eq!(o.verdict, Verdict::Tie, "{}", o.summary);
    assert!(o.summary.starts_with("TIE at x=1"), "{}", o.summary);
    assert!(
        o.summary.contains("within the noise at 1/1"),
        "{}",
        o.summary
    );
    assert_eq!(ev(claim, &t(0.997)).verdict, Verdict::Tie);
    // The opposite beyond the noise: contradicted.
    assert_eq!(ev(claim, &t(0.99)).verdict, Verdict::Fail);
    // A claim written leniently ("not below b beyond the noise") has no middle: it holds, or
    // it is contradicted.
    let lenient = "m[a] >= m[b] - tol";
    assert_eq!(ev(lenient, &t(0.997)).verdict, Verdict::Pass);
    assert_eq!(ev(lenient, &t(0.99)).verdict, Verdict::Fail);
    // A conjunction of a strict and a lenient comparison: a tie in the strict one while the
    // lenient one holds is a tie, not a contradiction.
    let t2 = t(1.003).sci("m", "c", &[1.0], &[0.005]);
    assert_eq!(
        ev("m[a] > m[b] + tol and m[c] >= m[b] - tol", &t2).verdict,
        Verdict::Tie
    );
    // Under `not`, the lenient reading takes the stricter side.
    assert_eq!(
        ev("not (m[a] < m[b] - tol)", &t(1.003)).verdict,
        Verdict::Pass
    );
    // Without a tolerance there is no middle either.
    assert_eq!(ev("m[a] > 1.005", &t(1.003)).verdict, Verdict::Fail);
    // Soft claims: a contradiction is SOFT-FAIL, a tie stays a tie.
    let mut soft = spec(claim);
    soft.soft = true;
    assert_eq!(run(&soft, &t(0.99)).verdict, Verdict::SoftFail);
    assert_eq!(run(&soft, &t(1.003)).verdict, Verdict::Tie);
    // `holds = ">= K"`: a tie when the points within the noise reach K but the reproduced ones
    // do not.
    let t3 = Table::new(&[1.0, 2.0, 3.0])
        .sci("m", "a", &[1.01, 1.003, 0.99], &[0.005; 3])
        .sci("m", "b", &[1.0, 1.0, 1.0], &[0.005; 3]);
    let mut k = spec(claim);
    k.holds = Some(">= 2".into());
    let o = run(&k, &t3);
    assert_eq!(
        (o.verdict, o.satisfied, o.within_noise),
        (Verdict::Tie, 1, 2)
    );
    k.holds = Some("all".into());
    assert_eq!(run(&k, &t3).verdict, Verdict::Fail);
}

#[test]
fn holds_variants() {
    let t = Table::new(&[1.0, 2.0, 3.0, 4.0]).s("m", "a", &[1.0, 0.0, 1.0, 1.0]);
    let with = |holds: &str| {
        let mut s = spec("m[a] > 0.5");
        s.holds = Some(holds.into());
        run(&s, &t)
    };
    assert_eq!(ev("m[a] > 0.5", &t).verdict, Verdict::Fail);
    assert_eq!(with("any").verdict, Verdict::Pass);
    assert_eq!(with(">= 3").verdict, Verdict::Pass);
    assert_eq!(with(">= 4").verdict, Verdict::Fail);
    assert_eq!(with(">= 75%").verdict, Verdict::Pass);
    assert_eq!(with(">= 76%").verdict, Verdict::Fail);
    let o = with(">= 5");
    assert_eq!(o.verdict, Verdict::Skip);
    assert!(
        o.summary
            .starts_with("holds >= 5 needs at least 5 in-scope points, the table has 4"),
        "{}",
        o.summary
    );
    assert_eq!(
        with(">= 3").summary,
        "holds at 3/4 points; worst margin at x=1: m[a]=1 vs 0.5; fails at x=2 (needed >= 3)"
    );
    let none = Table::new(&[1.0]).s("m", "a", &[0.0]);
    let mut s = spec("m[a] > 0.5");
    s.holds = Some("any".into());
    assert_eq!(run(&s, &none).verdict, Verdict::Fail);
}

#[test]
fn where_selects_points() {
    let t = Table::new(&[0.1, 0.5, 0.8, 0.8000000000000002, 1.1]).s(
        "m",
        "a",
        &[9.0, 1.0, 1.0, 1.0, 9.0],
    );
    let mut s = spec("m[a] < 2");
    s.r#where = Some("x >= 0.5 and x <= 0.8".into());
    let o = run(&s, &t);
    assert_eq!((o.verdict, o.in_scope), (Verdict::Pass, 3));
    s.r#where = Some("x > 2".into());
    let o = run(&s, &t);
    assert_eq!(o.verdict, Verdict::Skip);
    assert_eq!(
        o.summary,
        "no points in scope (where x > 2; the table has x = 0.1, 0.5, 0.8, 0.8, 1.1)"
    );
    let o = ev("m[a] < 2", &Table::new(&[]));
    assert_eq!(
        (o.verdict, o.summary.as_str()),
        (
            Verdict::Skip,
            "no points in scope (the table has no points)"
        )
    );
}

#[test]
fn soft_claims_soft_fail_and_pass() {
    let t = Table::new(&[1.0]).s("d", "a", &[4.0]);
    let mut s = spec("d[a] < 3.28");
    s.soft = true;
    let o = run(&s, &t);
    assert_eq!(o.verdict, Verdict::SoftFail);
    assert!(!o.verdict.fails_build());
    assert!(
        o.summary.starts_with("SOFT-FAIL at x=1: d[a]=4"),
        "{}",
        o.summary
    );
    let o = run(&spec("d[a] < 3.28"), &t);
    assert_eq!(o.verdict, Verdict::Fail);
    assert!(o.verdict.fails_build());
    s.expect = "d[a] < 5".into();
    assert_eq!(run(&s, &t).verdict, Verdict::Pass);
}

#[test]
fn the_reason_shown_is_the_one_written_for_the_scale_judged() {
    let t = Table::new(&[1.0]).s("loss", "a", &[0.5]);
    let mut s = spec("loss[a] < 0.1");
    s.if_fails = Some("paper-scale reason".into());
    let c = parse_claim(&s).unwrap();
    // Without a quick-scale reason, both scales show the paper-scale one.
    assert_eq!(
        c.evaluate(&t, false).if_fails.as_deref(),
        Some("paper-scale reason")
    );
    s.if_fails_quick = Some("too few samples".into());
    let c = parse_claim(&s).unwrap();
    assert_eq!(
        c.evaluate(&t, false).if_fails.as_deref(),
        Some("too few samples")
    );
    assert_eq!(
        c.evaluate(&t, true).if_fails.as_deref(),
        Some("paper-scale reason")
    );
    // A quick-scale reason alone is never shown at paper scale.
    s.if_fails = None;
    let c = parse_claim(&s).unwrap();
    assert_eq!(c.evaluate(&t, true).if_fails, None);
}

#[test]
fn paper_scale_claims_skip_at_quick_scale() {
    let t = Table::new(&[1.0]).s("loss", "a", &[0.001]);
    let mut s = spec("loss[a] <= 0.01");
    s.scale = Some("paper".into());
    let c = parse_claim(&s).unwrap();
    let quick = c.evaluate(&t, false);
    assert_eq!(quick.verdict, Verdict::Skip);
    assert!(
        quick
            .summary
            .starts_with("absolute claim needs paper-scale precision (at this scale: holds at 1/1"),
        "{}",
        quick.summary
    );
    assert_eq!(c.evaluate(&t, true).verdict, Verdict::Pass);
    s.expect = "loss[a] > 0.01".into();
    let c = parse_claim(&s).unwrap();
    assert_eq!(c.evaluate(&t, false).verdict, Verdict::Skip);
    assert_eq!(c.evaluate(&t, true).verdict, Verdict::Fail);
    s.scale = Some("any".into());
    assert_eq!(
        parse_claim(&s).unwrap().evaluate(&t, false).verdict,
        Verdict::Fail
    );
}

#[test]
fn spearman_with_ties() {
    let t = Table::new(&[1.0, 2.0, 3.0, 4.0])
        .s("m", "tied", &[1.0, 2.0, 2.0, 3.0])
        .s("m", "down", &[4.0, 3.0, 2.0, 1.0])
        .s("m", "flat", &[1.0, 1.0, 1.0, 1.0]);
    let o = ev("spearman(m[tied]) > 0.9", &t);
    assert_eq!(o.verdict, Verdict::Pass);
    assert!((value(&o, 0, "spearman(m[tied])") - 3.0 / 10f64.sqrt()).abs() < 1e-12);
    assert_eq!(o.summary, "holds: spearman(m[tied])=0.9487 vs 0.9");
    assert_eq!(ev("spearman(m[tied]) > 0.95", &t).verdict, Verdict::Fail);
    assert_eq!(ev("spearman(m[down]) == -1", &t).verdict, Verdict::Pass);
    let o = ev("spearman(m[flat]) >= -1", &t);
    assert_eq!(o.verdict, Verdict::Fail, "constant series: NaN");
    assert!(value(&o, 0, "spearman(m[flat])").is_nan());
    // Direct check of the tie handling on both axes.
    assert!(
        (super::eval::spearman(&[1.0, 1.0, 2.0], &[1.0, 2.0, 3.0]) - 0.866_025_403_784_438_6).abs()
            < 1e-12
    );
    // Scope narrows the series.
    let mut s = spec("spearman(m[tied]) == 1");
    s.r#where = Some("x <= 2".into());
    assert_eq!(run(&s, &t).verdict, Verdict::Pass);
    s.r#where = Some("x <= 1".into());
    assert_eq!(
        run(&s, &t).summary,
        "spearman(m[tied]) needs at least 2 in-scope points, found 1"
    );
}

#[test]
fn argmax_argmin_ties_take_smallest_x() {
    let t = Table::new(&[0.1, 0.2, 0.3, 0.4])
        .s("d", "a", &[1.0, 3.0, 3.0, 0.5])
        .s("d", "b", &[2.0, 2.0, 5.0, 2.0]);
    assert_eq!(ev("argmax(d[a]) == 0.2", &t).verdict, Verdict::Pass);
    assert_eq!(ev("argmax(d[a]) == 0.3", &t).verdict, Verdict::Fail);
    assert_eq!(ev("argmin(d[a]) == 0.4", &t).verdict, Verdict::Pass);
    assert_eq!(ev("argmin(d[b]) == 0.1", &t).verdict, Verdict::Pass);
    let mut s = spec("argmax(d[a]) == 0.3");
    s.r#where = Some("x >= 0.3".into());
    assert_eq!(
        run(&s, &t).verdict,
        Verdict::Pass,
        "ranges over in-scope points only"
    );
}

#[test]
fn monotone_with_tolerance_and_ranges() {
    let t = Table::new(&[0.1, 0.2, 0.3, 0.4])
        .sci(
            "loss",
            "a",
            &[0.01, 0.02, 0.019, 0.05],
            &[0.0, 0.001, 0.0, 0.0],
        )
        .sci(
            "loss",
            "b",
            &[0.01, 0.02, 0.018, 0.05],
            &[0.0, 0.001, 0.0, 0.0],
        );
    // a drops by 0.001 = t (the pair's difference has the one CI of 0.001): tolerated; b drops
    // by 0.002 > t: not.
    assert_eq!(ev("monotone(loss[a], \"up\")", &t).verdict, Verdict::Pass);
    let o = ev("monotone(loss[b], 'up')", &t);
    assert_eq!(o.verdict, Verdict::Fail);
    assert_eq!(
        o.summary,
        "FAIL: monotone(loss[b], \"up\")=false; monotone(loss[b], \"up\") breaks at x=0.2->0.3: 0.02->0.018 (t=0.001)"
    );
    // The floor widens t.
    let tf = Table::new(&[0.1, 0.2])
        .s("loss", "b", &[0.02, 0.018])
        .floor("loss", 0.002);
    assert_eq!(ev("monotone(loss[b], up)", &tf).verdict, Verdict::Pass);
    // from / to ranges, inclusive.
    assert_eq!(
        ev("monotone(loss[b], \"up\", 0.3)", &t).verdict,
        Verdict::Pass
    );
    assert_eq!(
        ev("monotone(loss[b], \"up\", 0.2)", &t).verdict,
        Verdict::Fail
    );
    assert_eq!(
        ev("monotone(loss[b], \"up\", 0.1, 0.2)", &t).verdict,
        Verdict::Pass
    );
    assert_eq!(
        ev("monotone(loss[b], \"up\", 0.1, 0.3)", &t).verdict,
        Verdict::Fail
    );
    assert_eq!(
        ev("monotone(loss[b], \"down\", 0.2, 0.3)", &t).verdict,
        Verdict::Pass
    );
    assert_eq!(ev("monotone(loss[b], \"down\")", &t).verdict, Verdict::Fail);
    assert_eq!(
        ev("monotone(loss[b], \"down\", 0.4)", &t).verdict,
        Verdict::Pass,
        "a single point is vacuously monotone"
    );
    assert_eq!(
        ev("monotone(loss[b], \"down\", argmax(loss[b]))", &t).verdict,
        Verdict::Pass
    );
    assert_eq!(
        ev("not monotone(loss[b], \"up\")", &t).verdict,
        Verdict::Pass
    );
}

#[test]
fn slope_and_value_range() {
    let t = Table::new(&[0.1, 0.5, 0.9, 1.1]).s("u", "a", &[0.1, 0.5, 0.85, 0.88]);
    let o = ev(
        "slope(u[a], 0.1, 0.5) == 1 and slope(u[a], 0.9, 1.1) < 0.2",
        &t,
    );
    assert_eq!(o.verdict, Verdict::Pass, "{}", o.summary);
    assert!((value(&o, 0, "slope(u[a], 0.9, 1.1)") - 0.15).abs() < 1e-9);
    assert_eq!(ev("slope(u[a], 0.9, 1.1) < 0.1", &t).verdict, Verdict::Fail);
    assert_eq!(
        ev("slope(u[a], 0.5, 0.5) > 0", &t).summary,
        "slope(u[a], 0.5, 0.5): x0 and x1 must differ"
    );
    assert_eq!(
        ev("slope(u[a], 0.5, 0.7) > 0", &t).summary,
        "no data for u[a] at x=0.7"
    );
    assert!((value(&ev("value_range(u[a]) > 0", &t), 0, "value_range(u[a])") - 0.78).abs() < 1e-12);
    assert_eq!(ev("value_range(u[a]) < 0.78", &t).verdict, Verdict::Fail);
    let mut s = spec("value_range(u[a]) < 0.1");
    s.r#where = Some("x >= 0.9".into());
    assert_eq!(run(&s, &t).verdict, Verdict::Pass);
}

#[test]
fn whole_series_functions_are_evaluated_once_per_claim_and_binding() {
    let xs: Vec<f64> = (1..=10).map(f64::from).collect();
    let t = Table::new(&xs).s("m", "a", &xs).s("m", "b", &xs);
    let o = ev("spearman(m[a]) > 0.5 and m[a] > 0", &t);
    assert_eq!(o.verdict, Verdict::Pass);
    assert_eq!(
        t.lookups.get(),
        20,
        "10 for spearman once + 10 point lookups"
    );
    assert_eq!(
        o.points[9].values,
        vec![
            ("spearman(m[a])".to_string(), 1.0),
            ("m[a]".to_string(), 10.0)
        ]
    );
    t.lookups.set(0);
    let o = ev(
        "all(S in {a, b}: monotone(m[S], \"up\", argmin(m[S])) and m[S] > 0)",
        &t,
    );
    assert_eq!(o.verdict, Verdict::Pass);
    // Per binding: argmin 10 + monotone 10; then 2 × 10 point lookups.
    assert_eq!(t.lookups.get(), 60);
    // Nested values are replayed at every point.
    assert_eq!(value(&o, 5, "argmin(m[b])"), 1.0);
    assert_eq!(value(&o, 5, "monotone(m[b], \"up\", 1)"), 1.0);
}

#[test]
fn summaries_show_measured_numbers() {
    let t = Table::new(&[0.1, 0.2, 0.3])
        .s("loss", "lact", &[0.1, 0.061, 0.08])
        .s("loss", "first-fit", &[0.01, 0.025, 0.02]);
    let o = ev("loss[lact] > loss[first-fit] + 0.02", &t);
    assert_eq!(o.verdict, Verdict::Pass);
    assert_eq!(
        o.summary,
        "holds at 3/3 points; worst margin at x=0.2: loss[lact]=0.061 vs loss[first-fit]+0.02=0.045"
    );
    let o = ev("loss[lact] > loss[first-fit] + 0.05", &t);
    assert_eq!(
        o.summary,
        "FAIL at x=0.2: loss[lact]=0.061, loss[first-fit]=0.025 (holds at 2/3 points; needed all)"
    );
    // Quantified: the worst binding is shown.
    let o = ev("all(S in {first-fit}: loss[lact] >= 2 * loss[S])", &t);
    assert_eq!(
        o.summary,
        "holds at 3/3 points; worst margin at x=0.2: loss[lact]=0.061 vs 2*loss[first-fit]=0.05"
    );
    // Not a single comparison: the first point's values.
    let o = ev("loss[lact] > 0 and loss[first-fit] > 0", &t);
    assert_eq!(
        o.summary,
        "holds at 3/3 points; at x=0.1: loss[lact]=0.1, loss[first-fit]=0.01"
    );
    // More than three failures are abbreviated.
    let t = Table::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).s("m", "a", &[1.0; 5]);
    let o = ev("m[a] > 1", &t);
    assert_eq!(
        o.summary,
        "FAIL at x=1: m[a]=1; x=2: m[a]=1; x=3: m[a]=1; and 2 more (holds at 0/5 points; needed all)"
    );
    assert_eq!(o.to_string(), format!("FAIL      t: {}", o.summary));
    // Deterministic.
    assert_eq!(ev("m[a] > 1", &t), o);
}

#[test]
fn sig4_formatting() {
    assert_eq!(fmt_sig4(0.0523), "0.0523");
    assert_eq!(fmt_sig4(0.012345), "0.01235");
    assert_eq!(fmt_sig4(3.28), "3.28");
    assert_eq!(fmt_sig4(1234.5678), "1235");
    assert_eq!(fmt_sig4(0.3), "0.3");
    assert_eq!(fmt_sig4(0.30000000000000004), "0.3");
    assert_eq!(fmt_sig4(0.99996), "1");
    assert_eq!(fmt_sig4(-0.25), "-0.25");
    assert_eq!(fmt_sig4(1.2346e-5), "1.235e-5");
    assert_eq!(fmt_sig4(1e-5), "1e-5");
    assert_eq!(fmt_sig4(2.5e7), "2.5e7");
    assert_eq!(fmt_sig4(0.0), "0");
    assert_eq!(fmt_sig4(f64::NAN), "NaN");
    assert_eq!(Verdict::SoftFail.as_str(), "SOFT-FAIL");
}

// ---------------------------------------------------------------------------------------------------------------
// Castillo §5 claims on hand-made tables (a passing and a failing table each)

const OTHERS: &str = "{first-fit, min-lip, min-tip, best-fit}";

#[test]
fn castillo_fig_3_4_b_lact_worse_by_two_points() {
    let mut s = ClaimSpec::new(
        "3.4b",
        "LACT is significantly worse than the other four strategies at all but very low loads",
        format!("all(X in {OTHERS}: loss[lact] > loss[X] + 0.02)"),
    );
    s.r#where = Some("x >= 0.3".into());
    let xs = [0.1, 0.2, 0.3, 0.5, 0.8, 1.0];
    let table = |lact: &[f64]| {
        Table::new(&xs)
            .s("loss", "lact", lact)
            .s("loss", "first-fit", &[0.0, 0.0, 0.002, 0.01, 0.02, 0.05])
            .s("loss", "min-lip", &[0.0, 0.0, 0.0, 0.001, 0.005, 0.03])
            .s("loss", "min-tip", &[0.0, 0.0, 0.0, 0.001, 0.005, 0.03])
            .s("loss", "best-fit", &[0.0, 0.0, 0.001, 0.003, 0.01, 0.04])
    };
    let pass = run(&s, &table(&[0.001, 0.01, 0.04, 0.1, 0.2, 0.3]));
    assert_eq!(pass.verdict, Verdict::Pass, "{}", pass.summary);
    assert_eq!(
        pass.in_scope, 4,
        "x=0.1 and 0.2 are out of scope (LACT is not worse there)"
    );
    assert_eq!(
        pass.summary,
        "holds at 4/4 points; worst margin at x=0.3: loss[lact]=0.04 vs loss[first-fit]+0.02=0.022"
    );
    let fail = run(&s, &table(&[0.001, 0.01, 0.015, 0.1, 0.2, 0.3]));
    assert_eq!(fail.verdict, Verdict::Fail);
    assert_eq!(
        fail.summary,
        "FAIL at x=0.3: loss[lact]=0.015, loss[first-fit]=0.002, loss[min-lip]=0, loss[min-tip]=0, loss[best-fit]=0.001 \
         (holds at 3/4 points; needed all)"
    );
}

#[test]
fn castillo_fig_3_4_a_loss_non_decreasing_within_tol() {
    let s = ClaimSpec::new(
        "3.4a",
        "loss rises with rho for all five",
        "all(S in {first-fit, min-lip, lact}: monotone(loss[S], \"up\"))",
    );
    let t = |lip: &[f64]| {
        Table::new(&[0.2, 0.6, 1.0])
            .s("loss", "first-fit", &[0.0, 0.01, 0.05])
            .sci("loss", "min-lip", lip, &[0.0005, 0.0005, 0.001])
            .s("loss", "lact", &[0.01, 0.1, 0.3])
            .floor("loss", 0.002)
    };
    assert_eq!(
        run(&s, &t(&[0.003, 0.0015, 0.04])).verdict,
        Verdict::Pass,
        "a dip within the floor is noise"
    );
    let o = run(&s, &t(&[0.006, 0.001, 0.04]));
    assert_eq!(o.verdict, Verdict::Fail);
    assert!(
        o.summary.contains(
            "monotone(loss[min-lip], \"up\") breaks at x=0.2->0.6: 0.006->0.001 (t=0.002)"
        ),
        "{}",
        o.summary
    );
}

#[test]
fn castillo_fig_3_5_a_fairness_drop_starts_near_0_4() {
    let s = ClaimSpec::new(
        "3.5a",
        "LACT's F suffers a precipitous drop starting at rho = 0.4",
        "fairness[lact]@0.1 - fairness[lact]@0.4 < fairness[lact]@0.4 - fairness[lact]@0.7",
    );
    let t = |f: &[f64]| Table::new(&[0.1, 0.4, 0.7, 1.0]).s("fairness", "lact", f);
    let pass = run(&s, &t(&[0.99, 0.97, 0.80, 0.6]));
    assert_eq!(pass.verdict, Verdict::Pass);
    assert_eq!(
        pass.summary,
        "holds: fairness[lact]@0.1-fairness[lact]@0.4=0.02 vs fairness[lact]@0.4-fairness[lact]@0.7=0.17"
    );
    let fail = run(&s, &t(&[0.99, 0.89, 0.79, 0.69]));
    assert_eq!(fail.verdict, Verdict::Fail, "a linear decline has no onset");
    assert!(fail.points.iter().all(|p| !p.holds));
    // Quick scale (rho in {0.2, 0.6, 1.0}) cannot judge it.
    let quick = run(
        &s,
        &Table::new(&[0.2, 0.6, 1.0]).s("fairness", "lact", &[0.99, 0.9, 0.6]),
    );
    assert_eq!(
        (quick.verdict, quick.summary.as_str()),
        (Verdict::Skip, "no data for fairness[lact] at x=0.1")
    );
}

#[test]
fn castillo_fig_3_6_a_utilization_levels_off() {
    let s = ClaimSpec::new(
        "3.6a",
        "utilization rises, then the curves level off",
        "all(S in {min-lip, first-fit}: monotone(utilization[S], \"up\") \
         and slope(utilization[S], 0.9, 1.1) < slope(utilization[S], 0.1, 0.5))",
    );
    let xs = [0.1, 0.3, 0.5, 0.7, 0.9, 1.1];
    let t = |ff: &[f64]| {
        Table::new(&xs)
            .s("utilization", "min-lip", &[0.1, 0.3, 0.5, 0.69, 0.85, 0.9])
            .s("utilization", "first-fit", ff)
    };
    let pass = run(&s, &t(&[0.1, 0.3, 0.48, 0.62, 0.7, 0.72]));
    assert_eq!(pass.verdict, Verdict::Pass, "{}", pass.summary);
    let linear = run(&s, &t(&[0.1, 0.3, 0.5, 0.7, 0.9, 1.1]));
    assert_eq!(linear.verdict, Verdict::Fail, "no levelling off");
    assert!(
        linear
            .summary
            .contains("slope(utilization[first-fit], 0.9, 1.1)=1"),
        "{}",
        linear.summary
    );
    let falls = run(&s, &t(&[0.1, 0.3, 0.48, 0.62, 0.5, 0.52]));
    assert_eq!(falls.verdict, Verdict::Fail, "not monotone");
}

#[test]
fn castillo_fig_3_7_d_lact_delay_peaks_then_falls() {
    let s = ClaimSpec::new(
        "3.7d",
        "LACT's delay rises up to rho = 0.4, then falls",
        "argmax(delay[lact]) >= 0.3 and argmax(delay[lact]) <= 0.5 \
         and monotone(delay[lact], \"down\", argmax(delay[lact]))",
    );
    let xs = [0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0];
    let t = |d: &[f64]| Table::new(&xs).sci("delay", "lact", d, &[0.01; 7]);
    let pass = run(&s, &t(&[0.5, 0.7, 0.9, 1.0, 0.8, 0.6, 0.61]));
    assert_eq!(pass.verdict, Verdict::Pass, "{}", pass.summary);
    assert_eq!(
        pass.summary,
        "holds: argmax(delay[lact])=0.4, monotone(delay[lact], \"down\", 0.4)=true"
    );
    let late_peak = run(&s, &t(&[0.5, 0.7, 0.9, 1.0, 1.1, 0.6, 0.5]));
    assert_eq!(late_peak.verdict, Verdict::Fail);
    assert_eq!(late_peak.summary, "FAIL: argmax(delay[lact])=0.6");
    let rises_again = run(&s, &t(&[0.5, 0.7, 0.9, 1.0, 0.8, 0.6, 0.9]));
    assert_eq!(rises_again.verdict, Verdict::Fail);
    assert!(
        rises_again.summary.contains(&format!(
            "breaks at x=0.8->1: 0.6->0.9 (t={})",
            fmt_sig4(welch2(0.01, 0.01))
        )),
        "{}",
        rises_again.summary
    );
}

#[test]
fn castillo_fig_3_7_b_ordering_for_most_points() {
    let mut s = ClaimSpec::new(
        "3.7b",
        "min-LIP is higher than first-fit but lower than min-TIP",
        "delay[first-fit] < delay[min-lip] and delay[min-lip] < delay[min-tip]",
    );
    s.holds = Some(">= 80%".into());
    let t = |tip: &[f64]| {
        Table::new(&[0.2, 0.4, 0.6, 0.8, 1.0])
            .s("delay", "first-fit", &[0.1; 5])
            .s("delay", "min-lip", &[0.2; 5])
            .s("delay", "min-tip", tip)
    };
    assert_eq!(
        run(&s, &t(&[0.3, 0.15, 0.3, 0.3, 0.3])).verdict,
        Verdict::Pass
    );
    assert_eq!(
        run(&s, &t(&[0.3, 0.15, 0.15, 0.3, 0.3])).verdict,
        Verdict::Fail
    );
}

#[test]
fn castillo_fig_3_8_e_utilization_crossing_near_6() {
    let mut s = ClaimSpec::new(
        "3.8e",
        "first-fit's utilization drops below the utilization of the LACT algorithm for x > 6",
        "if(x >= 7, utilization[first-fit] < utilization[lact], utilization[first-fit] > utilization[lact])",
    );
    s.r#where = Some("x >= 7 or x <= 5".into());
    let xs = [1.96, 3.29, 4.96, 5.98, 7.07, 8.97];
    let t = |lact: &[f64]| {
        Table::new(&xs)
            .s(
                "utilization",
                "first-fit",
                &[0.58, 0.575, 0.57, 0.56, 0.55, 0.54],
            )
            .s("utilization", "lact", lact)
    };
    let pass = run(&s, &t(&[0.55, 0.555, 0.56, 0.57, 0.57, 0.58]));
    assert_eq!((pass.verdict, pass.in_scope), (Verdict::Pass, 5));
    let fail = run(&s, &t(&[0.55, 0.555, 0.56, 0.57, 0.54, 0.58]));
    assert_eq!(fail.verdict, Verdict::Fail);
    assert_eq!(
        fail.summary,
        "FAIL at x=7.07: utilization[first-fit]=0.55, utilization[lact]=0.54 (holds at 4/5 points; needed all)"
    );
}

#[test]
fn castillo_fig_3_9_c_lact_sensitive_to_deadlines() {
    let s = ClaimSpec::new(
        "3.9c",
        "LACT is very sensitive: poor at small q, it improves dramatically as q grows",
        format!(
            "loss[lact]@0 >= 5 * loss[lact]@1.0 and all(X in {OTHERS}: loss[lact]@0 > loss[X]@0)"
        ),
    );
    let xs = [0.0, 0.1, 0.5, 1.0];
    let t = |lact: &[f64], bf0: f64| {
        Table::new(&xs)
            .s("loss", "lact", lact)
            .s("loss", "first-fit", &[0.05, 0.01, 0.01, 0.01])
            .s("loss", "min-lip", &[0.03, 0.0, 0.0, 0.0])
            .s("loss", "min-tip", &[0.03, 0.0, 0.0, 0.0])
            .s("loss", "best-fit", &[bf0, 0.01, 0.0, 0.0])
    };
    let pass = run(&s, &t(&[0.4, 0.2, 0.1, 0.05], 0.04));
    assert_eq!(pass.verdict, Verdict::Pass, "{}", pass.summary);
    assert_eq!(pass.points.len(), 4);
    assert_eq!(
        run(&s, &t(&[0.4, 0.2, 0.1, 0.1], 0.04)).verdict,
        Verdict::Fail,
        "only 4x better"
    );
    let o = run(&s, &t(&[0.4, 0.2, 0.1, 0.05], 0.5));
    assert_eq!(o.verdict, Verdict::Fail, "best-fit worse at q=0");
    assert!(o.summary.contains("loss[best-fit]@0=0.5"), "{}", o.summary);
}

#[test]
fn castillo_fig_3_10_b_order_of_magnitude() {
    let s = ClaimSpec::new(
        "3.10b",
        "LACT's loss is an order of magnitude higher than that of min-LIP, min-TIP and best-fit",
        "if(max(loss[min-lip], loss[min-tip], loss[best-fit]) < 1e-4, loss[lact] > 1e-3, \
         loss[lact] >= 10 * max(loss[min-lip], loss[min-tip], loss[best-fit]))",
    );
    let t = |lact: &[f64]| {
        Table::new(&[5.0, 10.0, 20.0, 40.0])
            .s("loss", "lact", lact)
            .s("loss", "min-lip", &[0.01, 0.005, 0.001, 0.00005])
            .s("loss", "min-tip", &[0.012, 0.004, 0.001, 0.00004])
            .s("loss", "best-fit", &[0.02, 0.01, 0.002, 0.00008])
    };
    let pass = run(&s, &t(&[0.3, 0.2, 0.1, 0.002]));
    assert_eq!(pass.verdict, Verdict::Pass, "{}", pass.summary);
    let fail = run(&s, &t(&[0.3, 0.2, 0.015, 0.002]));
    assert_eq!(fail.verdict, Verdict::Fail);
    assert!(fail.summary.starts_with("FAIL at x=20: loss[min-lip]=0.001, loss[min-tip]=0.001, loss[best-fit]=0.002, loss[lact]=0.015"), "{}", fail.summary);
    let tiny = run(&s, &t(&[0.3, 0.2, 0.1, 0.0009]));
    assert_eq!(
        tiny.verdict,
        Verdict::Fail,
        "below 1e-4 the alternative threshold 1e-3 applies"
    );
    assert_eq!(tiny.satisfied, 3);
}

// ---------------------------------------------------------------------------------------------------------------
// Robustness: the parser and evaluator never panic

mod never_panic {
    use super::*;
    use proptest::prelude::*;

    const FRAGMENTS: &[&str] = &[
        "loss[lact]",
        "loss[S]",
        "m[a]@0.1",
        "m[a]@9",
        "ci(m[a])",
        "x",
        "tol",
        "0",
        "1e-3",
        ".5",
        "true",
        "not",
        "and",
        "or",
        "+",
        "-",
        "*",
        "/",
        "<",
        "<=",
        "==",
        "!=",
        ">",
        "(",
        ")",
        ",",
        ":",
        "@",
        "[",
        "]",
        "{",
        "}",
        "all(S in {a, b}:",
        "any(T in {a}:",
        "abs(",
        "max(",
        "min(",
        "if(",
        "spearman(m[a])",
        "argmax(m[a])",
        "monotone(m[a], \"up\"",
        "slope(m[a], 0.1, 0.2)",
        "value_range(m[a])",
        "\"down\"",
        "=",
        "!",
        "é",
        "1/0",
    ];

    fn table() -> Table {
        Table::new(&[0.1, 0.2, 0.3])
            .sci("m", "a", &[0.0, 1.0, f64::NAN], &[0.1, 0.0, 0.2])
            .s("loss", "lact", &[1.0, 0.0, 2.0])
    }

    proptest! {
        #[test]
        fn token_soup(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..14), spaced in any::<bool>()) {
            let text = parts.join(if spaced { " " } else { "" });
            if let Ok(c) = parse_claim(&spec(&text)) {
                let o = c.evaluate(&table(), false);
                prop_assert!(!o.summary.is_empty());
            }
        }

        #[test]
        fn arbitrary_text(text in ".{0,40}", holds in ".{0,8}") {
            let mut s = spec(&text);
            s.holds = Some(holds);
            s.r#where = Some(text.clone());
            if let Ok(c) = parse_claim(&s) {
                let _ = c.evaluate(&table(), true);
            }
        }
    }
}
