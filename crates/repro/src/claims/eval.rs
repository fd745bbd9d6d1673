//! Evaluation of parsed claims against a result table, and the one-line summaries.

use std::collections::BTreeMap;

use super::parser::{
    At, CmpInfo, CmpOp, Dir, Expr, ExprKind, Program, Ref, SeriesFn, SeriesFnKind, SeriesName, Ty,
    ref_label, show,
};
use super::{ClaimOutcome, ParsedClaim, PointOutcome, Verdict, fmt_sig4};
use crate::table::{Cell, Lookup};

/// Reason given for `scale = "paper"` claims evaluated at another scale.
pub(crate) const PAPER_ONLY_REASON: &str = "absolute claim needs paper-scale precision";

/// How many failing points a FAIL summary lists with their values.
const MAX_LISTED_FAILURES: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Num(f64),
    Bool(bool),
}

impl Value {
    fn show(self) -> String {
        match self {
            Value::Num(v) => fmt_sig4(v),
            Value::Bool(b) => b.to_string(),
        }
    }
    fn as_f64(self) -> f64 {
        match self {
            Value::Num(v) => v,
            Value::Bool(b) => f64::from(u8::from(b)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct EvalError(String);
type EResult<T> = Result<T, EvalError>;

fn internal(what: &str) -> EvalError {
    EvalError(format!("internal error in the claim evaluator: {what}"))
}

/// Numbers that agree to 9 significant digits are equal (so a sweep value 0.30000000000000004 matches `0.3`).
pub(crate) fn feq(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

fn compare(op: CmpOp, a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return false;
    }
    match op {
        CmpOp::Lt => a < b && !feq(a, b),
        CmpOp::Le => a <= b || feq(a, b),
        CmpOp::Gt => a > b && !feq(a, b),
        CmpOp::Ge => a >= b || feq(a, b),
        CmpOp::Eq => feq(a, b),
        CmpOp::Ne => !feq(a, b),
    }
}

/// Ordering key of a margin: NaN is the worst.
fn margin_key(m: f64) -> f64 {
    if m.is_nan() { f64::NEG_INFINITY } else { m }
}

#[derive(Debug, Clone)]
struct CachedFn {
    value: Value,
    label: String,
    /// Values recorded while computing it (e.g. a nested `argmax`), replayed on every use.
    recorded: Vec<(String, Value)>,
}

/// A comparison's margin (how far it is from flipping) and its two sides rendered with values.
#[derive(Debug, Clone)]
struct Margin {
    m: f64,
    text: String,
}

struct Evaluator<'a> {
    table: &'a dyn Lookup,
    cmps: &'a [CmpInfo],
    simple_tol: bool,
    table_xs: &'a [f64],
    scope: Vec<f64>,
    cache: BTreeMap<(usize, Vec<String>), Result<CachedFn, EvalError>>,
    recorded: Vec<(String, Value)>,
    notes: Vec<String>,
}

impl<'a> Evaluator<'a> {
    fn new(table: &'a dyn Lookup, prog: &'a Program, table_xs: &'a [f64], scope: Vec<f64>) -> Self {
        Evaluator {
            table,
            cmps: &prog.cmps,
            simple_tol: prog.simple_tol,
            table_xs,
            scope,
            cache: BTreeMap::new(),
            recorded: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn record(&mut self, label: String, v: Value) {
        if !self.recorded.iter().any(|(l, _)| *l == label) {
            self.recorded.push((label, v));
        }
    }

    fn find_x(&self, v: f64) -> Option<f64> {
        self.table_xs.iter().copied().find(|&t| feq(t, v))
    }

    /// The cell of a reference (at its `@` point, or at `x`) and its label.
    fn lookup(&self, r: &Ref, x: Option<f64>, env: &[String]) -> EResult<(String, Cell)> {
        let series = match &r.series {
            SeriesName::Lit(s) => s.as_str(),
            SeriesName::Var { depth, name } => env
                .get(*depth)
                .map(String::as_str)
                .ok_or_else(|| internal(&format!("unbound variable {name}")))?,
        };
        let base = format!("{}[{series}]", r.metric);
        let (px, label) = match &r.at {
            Some(at) => match self.find_x(at.value) {
                Some(t) => (t, format!("{base}@{}", at.text)),
                None => return Err(EvalError(format!("no data for {base} at x={}", at.text))),
            },
            None => (
                x.ok_or_else(|| internal("a point reference outside a sweep point"))?,
                base.clone(),
            ),
        };
        match self.table.cell(&r.metric, series, px) {
            Some(c) => Ok((label, c)),
            None => Err(EvalError(format!(
                "no data for {base} at x={}",
                fmt_sig4(px)
            ))),
        }
    }

    fn num(&mut self, e: &Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<f64> {
        match self.eval(e, x, env)? {
            Value::Num(v) => Ok(v),
            Value::Bool(_) => Err(internal("expected a number")),
        }
    }

    fn boolean(&mut self, e: &Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<bool> {
        match self.eval(e, x, env)? {
            Value::Bool(b) => Ok(b),
            Value::Num(_) => Err(internal("expected a boolean")),
        }
    }

    fn eval(&mut self, e: &Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<Value> {
        Ok(match &e.kind {
            ExprKind::Num(v, _) => Value::Num(*v),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::X => Value::Num(x.ok_or_else(|| internal("x outside a sweep point"))?),
            ExprKind::Tol(id) => Value::Num(self.tol(*id, x, env)?),
            ExprKind::Ref(r) => {
                let (label, c) = self.lookup(r, x, env)?;
                self.record(label, Value::Num(c.mean));
                Value::Num(c.mean)
            }
            ExprKind::Ci(r) => {
                let (label, c) = self.lookup(r, x, env)?;
                self.record(format!("ci({label})"), Value::Num(c.half_width));
                Value::Num(c.half_width)
            }
            ExprKind::Neg(a) => Value::Num(-self.num(a, x, env)?),
            ExprKind::Not(a) => Value::Bool(!self.boolean(a, x, env)?),
            ExprKind::Arith(op, a, b) => {
                let a = self.num(a, x, env)?;
                let b_val = self.num(b, x, env)?;
                Value::Num(match op {
                    super::parser::ArithOp::Add => a + b_val,
                    super::parser::ArithOp::Sub => a - b_val,
                    super::parser::ArithOp::Mul => a * b_val,
                    super::parser::ArithOp::Div => {
                        if b_val == 0.0 {
                            let at = x
                                .map(|x| format!(", x={}", fmt_sig4(x)))
                                .unwrap_or_default();
                            return Err(EvalError(format!(
                                "division by zero at column {} (`{}`{at})",
                                e.col,
                                show(e, env)
                            )));
                        }
                        a / b_val
                    }
                })
            }
            ExprKind::Cmp(op, a, b, _) => {
                let av = self.eval(a, x, env)?;
                let bv = self.eval(b, x, env)?;
                Value::Bool(match (av, bv) {
                    (Value::Num(a), Value::Num(b)) => compare(*op, a, b),
                    (Value::Bool(a), Value::Bool(b)) => match op {
                        CmpOp::Eq => a == b,
                        CmpOp::Ne => a != b,
                        _ => return Err(internal("ordering of booleans")),
                    },
                    _ => return Err(internal("comparison of mixed types")),
                })
            }
            ExprKind::And(a, b) => {
                Value::Bool(self.boolean(a, x, env)? && self.boolean(b, x, env)?)
            }
            ExprKind::Or(a, b) => Value::Bool(self.boolean(a, x, env)? || self.boolean(b, x, env)?),
            ExprKind::Abs(a) => Value::Num(self.num(a, x, env)?.abs()),
            ExprKind::Max(args) | ExprKind::Min(args) => {
                let is_max = matches!(e.kind, ExprKind::Max(_));
                let mut acc: Option<f64> = None;
                for a in args {
                    let v = self.num(a, x, env)?;
                    acc = Some(match acc {
                        None => v,
                        Some(m) if m.is_nan() || v.is_nan() => f64::NAN,
                        Some(m) if is_max => m.max(v),
                        Some(m) => m.min(v),
                    });
                }
                Value::Num(acc.ok_or_else(|| internal("max/min without arguments"))?)
            }
            ExprKind::If(c, a, b) => {
                if self.boolean(c, x, env)? {
                    self.eval(a, x, env)?
                } else {
                    self.eval(b, x, env)?
                }
            }
            ExprKind::Quant {
                all, series, body, ..
            } => {
                // Every binding is evaluated (no short-circuit), so a summary shows all the values.
                let mut acc = *all;
                for s in series {
                    env.push(s.clone());
                    let r = self.boolean(body, x, env);
                    env.pop();
                    let b = r?;
                    acc = if *all { acc && b } else { acc || b };
                }
                Value::Bool(acc)
            }
            ExprKind::Series(f) => self.series_fn(f, env)?,
        })
    }

    /// max(2 × largest CI half-width, largest floor) over the references of comparison `id`.
    fn tol(&mut self, id: usize, x: Option<f64>, env: &[String]) -> EResult<f64> {
        let cmps = self.cmps;
        let info = cmps
            .get(id)
            .ok_or_else(|| internal("tol without a comparison"))?;
        let mut hw = 0.0_f64;
        let mut floor = 0.0_f64;
        let mut labels: Vec<String> = Vec::new();
        for r in &info.refs {
            let (label, c) = self.lookup(r, x, env)?;
            hw = hw.max(c.half_width);
            floor = floor.max(self.table.floor(&r.metric));
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        let t = (2.0 * hw).max(floor);
        let label = if self.simple_tol {
            "tol".to_string()
        } else {
            format!("tol({})", labels.join(","))
        };
        self.record(label, Value::Num(t));
        Ok(t)
    }

    fn series_fn(&mut self, f: &SeriesFn, env: &mut Vec<String>) -> EResult<Value> {
        let key = (f.id, env.clone());
        if !self.cache.contains_key(&key) {
            let saved = std::mem::take(&mut self.recorded);
            let r = self.compute_series_fn(f, env);
            let nested = std::mem::replace(&mut self.recorded, saved);
            let entry = r.map(|(value, label)| CachedFn {
                value,
                label,
                recorded: nested,
            });
            self.cache.insert(key.clone(), entry);
        }
        match self.cache.get(&key).cloned() {
            Some(Ok(c)) => {
                for (l, v) in c.recorded {
                    self.record(l, v);
                }
                self.record(c.label, c.value);
                Ok(c.value)
            }
            Some(Err(e)) => Err(e),
            None => Err(internal("series function cache")),
        }
    }

    fn compute_series_fn(
        &mut self,
        f: &SeriesFn,
        env: &mut Vec<String>,
    ) -> EResult<(Value, String)> {
        let mut argv = Vec::with_capacity(f.args.len());
        for a in &f.args {
            argv.push(self.num(a, None, env)?);
        }
        let target = ref_label(&f.target, env);
        let mut label = format!("{}({target}", f.kind.name());
        match f.kind {
            SeriesFnKind::Monotone(Dir::Up) => label.push_str(", \"up\""),
            SeriesFnKind::Monotone(Dir::Down) => label.push_str(", \"down\""),
            _ => {}
        }
        for v in &argv {
            label.push_str(", ");
            label.push_str(&fmt_sig4(*v));
        }
        label.push(')');

        if f.kind == SeriesFnKind::Slope {
            let &[x0, x1] = argv.as_slice() else {
                return Err(internal("slope arity"));
            };
            if feq(x0, x1) {
                return Err(EvalError(format!("{label}: x0 and x1 must differ")));
            }
            let at = |v: f64| Ref {
                metric: f.target.metric.clone(),
                series: f.target.series.clone(),
                at: Some(At {
                    value: v,
                    text: fmt_sig4(v),
                }),
            };
            let (_, c0) = self.lookup(&at(x0), None, env)?;
            let (_, c1) = self.lookup(&at(x1), None, env)?;
            return Ok((Value::Num((c1.mean - c0.mean) / (x1 - x0)), label));
        }

        let (from, to) = (argv.first().copied(), argv.get(1).copied());
        let mut pts: Vec<(f64, Cell)> = Vec::new();
        for &x in &self.scope {
            if from.is_some_and(|f| x < f && !feq(x, f)) || to.is_some_and(|t| x > t && !feq(x, t))
            {
                continue;
            }
            let (_, c) = self.lookup(&f.target, Some(x), env)?;
            pts.push((x, c));
        }
        let value = match f.kind {
            SeriesFnKind::Spearman => {
                if pts.len() < 2 {
                    return Err(EvalError(format!(
                        "{label} needs at least 2 in-scope points, found {}",
                        pts.len()
                    )));
                }
                let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
                let ms: Vec<f64> = pts.iter().map(|p| p.1.mean).collect();
                Value::Num(spearman(&xs, &ms))
            }
            SeriesFnKind::Argmax | SeriesFnKind::Argmin => {
                let is_max = f.kind == SeriesFnKind::Argmax;
                let mut best: Option<(f64, f64)> = None;
                for &(x, c) in &pts {
                    if c.mean.is_nan() {
                        continue;
                    }
                    let better = match best {
                        None => true,
                        Some((_, b)) => (is_max && c.mean > b) || (!is_max && c.mean < b),
                    };
                    if better {
                        best = Some((x, c.mean));
                    }
                }
                let (x, _) =
                    best.ok_or_else(|| EvalError(format!("{label}: no finite mean in scope")))?;
                Value::Num(x)
            }
            SeriesFnKind::ValueRange => {
                if pts.is_empty() {
                    return Err(EvalError(format!("{label}: no in-scope points")));
                }
                if pts.iter().any(|p| p.1.mean.is_nan()) {
                    Value::Num(f64::NAN)
                } else {
                    let hi = pts
                        .iter()
                        .map(|p| p.1.mean)
                        .fold(f64::NEG_INFINITY, f64::max);
                    let lo = pts.iter().map(|p| p.1.mean).fold(f64::INFINITY, f64::min);
                    Value::Num(hi - lo)
                }
            }
            SeriesFnKind::Monotone(dir) => {
                let floor = self.table.floor(&f.target.metric);
                let mut ok = true;
                let mut worst: Option<(f64, String)> = None;
                for w in pts.windows(2) {
                    let ((x0, c0), (x1, c1)) = (w[0], w[1]);
                    let t = (2.0 * c0.half_width.max(c1.half_width)).max(floor);
                    let (holds, excess) = match dir {
                        Dir::Up => (
                            compare(CmpOp::Ge, c1.mean, c0.mean - t),
                            (c0.mean - t) - c1.mean,
                        ),
                        Dir::Down => (
                            compare(CmpOp::Le, c1.mean, c0.mean + t),
                            c1.mean - (c0.mean + t),
                        ),
                    };
                    if !holds {
                        ok = false;
                        let key = margin_key(excess);
                        if worst.as_ref().is_none_or(|(k, _)| key > *k) {
                            let text = format!(
                                "{label} breaks at x={}->{}: {}->{} (t={})",
                                fmt_sig4(x0),
                                fmt_sig4(x1),
                                fmt_sig4(c0.mean),
                                fmt_sig4(c1.mean),
                                fmt_sig4(t)
                            );
                            worst = Some((key, text));
                        }
                    }
                }
                if let Some((_, note)) = worst
                    && !self.notes.contains(&note)
                {
                    self.notes.push(note);
                }
                Value::Bool(ok)
            }
            SeriesFnKind::Slope => return Err(internal("slope")),
        };
        Ok((value, label))
    }

    /// Margin of a (possibly quantified) single comparison: positive when it holds.
    fn margin(&mut self, e: &Expr, x: Option<f64>, env: &mut Vec<String>) -> Option<Margin> {
        match &e.kind {
            ExprKind::Cmp(op, a, b, _) if a.ty == Ty::Num => {
                let av = self.num(a, x, env).ok()?;
                let bv = self.num(b, x, env).ok()?;
                let m = match op {
                    CmpOp::Gt | CmpOp::Ge => av - bv,
                    CmpOp::Lt | CmpOp::Le => bv - av,
                    CmpOp::Eq => -(av - bv).abs(),
                    CmpOp::Ne => (av - bv).abs(),
                };
                let side = |e: &Expr, v: f64| match &e.kind {
                    ExprKind::Num(_, t) => t.clone(),
                    _ => format!("{}={}", show(e, env), fmt_sig4(v)),
                };
                Some(Margin {
                    m,
                    text: format!("{} vs {}", side(a, av), side(b, bv)),
                })
            }
            ExprKind::Quant {
                all, series, body, ..
            } => {
                let mut best: Option<Margin> = None;
                for s in series {
                    env.push(s.clone());
                    let r = self.margin(body, x, env);
                    env.pop();
                    let r = r?;
                    let replace = match &best {
                        None => true,
                        Some(b) if *all => margin_key(r.m) < margin_key(b.m),
                        Some(b) => margin_key(r.m) > margin_key(b.m),
                    };
                    if replace {
                        best = Some(r);
                    }
                }
                best
            }
            _ => None,
        }
    }

    fn margin_quiet(&mut self, e: &Expr, x: Option<f64>) -> Option<Margin> {
        let saved = std::mem::take(&mut self.recorded);
        let m = self.margin(e, x, &mut Vec::new());
        self.recorded = saved;
        m
    }
}

/// Spearman rank correlation (average ranks for ties); NaN when a series is constant or has NaN values.
pub(crate) fn spearman(xs: &[f64], ys: &[f64]) -> f64 {
    if xs.iter().chain(ys).any(|v| v.is_nan()) {
        return f64::NAN;
    }
    pearson(&ranks(xs), &ranks(ys))
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let n = v.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && feq(v[idx[j + 1]], v[idx[i]]) {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    let d = (va * vb).sqrt();
    if d == 0.0 { f64::NAN } else { cov / d }
}

fn show_values(values: &[(String, Value)]) -> String {
    values
        .iter()
        .map(|(l, v)| format!("{l}={}", v.show()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Evaluate a claim; see [`ParsedClaim::evaluate`].
pub(crate) fn evaluate(
    claim: &ParsedClaim,
    table: &dyn Lookup,
    scale_is_paper: bool,
) -> ClaimOutcome {
    let spec = &claim.spec;
    let mut table_xs = table.xs();
    table_xs.sort_by(f64::total_cmp);
    table_xs.dedup();
    let mut out = ClaimOutcome {
        id: spec.id.clone(),
        quote: spec.quote.clone(),
        expect: spec.expect.clone(),
        soft: spec.soft,
        kind: spec.kind,
        if_fails: if scale_is_paper {
            spec.if_fails.clone()
        } else {
            spec.if_fails_quick
                .clone()
                .or_else(|| spec.if_fails.clone())
        },
        verdict: Verdict::Skip,
        summary: String::new(),
        points: Vec::new(),
        satisfied: 0,
        in_scope: 0,
    };
    let (verdict, summary) = run(claim, table, &table_xs, &mut out);
    if claim.paper_only && !scale_is_paper {
        out.verdict = Verdict::Skip;
        out.summary = format!("{PAPER_ONLY_REASON} (at this scale: {summary})");
    } else {
        out.verdict = verdict;
        out.summary = summary;
    }
    out
}

fn run(
    claim: &ParsedClaim,
    table: &dyn Lookup,
    table_xs: &[f64],
    out: &mut ClaimOutcome,
) -> (Verdict, String) {
    // 1. The points in scope.
    let scope: Vec<f64> = match &claim.scope {
        None => table_xs.to_vec(),
        Some(prog) => {
            let mut ev = Evaluator::new(table, prog, table_xs, Vec::new());
            let mut scope = Vec::new();
            for &x in table_xs {
                match ev.boolean(&prog.expr, Some(x), &mut Vec::new()) {
                    Ok(true) => scope.push(x),
                    Ok(false) => {}
                    Err(e) => {
                        return (
                            Verdict::Skip,
                            format!("`where` cannot be evaluated: {}", e.0),
                        );
                    }
                }
            }
            scope
        }
    };
    out.in_scope = scope.len();
    if scope.is_empty() {
        let xs = table_xs
            .iter()
            .map(|x| fmt_sig4(*x))
            .collect::<Vec<_>>()
            .join(", ");
        let why = match &claim.spec.r#where {
            Some(w) if !table_xs.is_empty() => format!(" (where {w}; the table has x = {xs})"),
            _ => " (the table has no points)".to_string(),
        };
        return (Verdict::Skip, format!("no points in scope{why}"));
    }

    // 2. Evaluate `expect` at every point (once when it does not depend on x).
    let prog = &claim.expect;
    let mut ev = Evaluator::new(table, prog, table_xs, scope.clone());
    let mut recorded_at: Vec<Vec<(String, Value)>> = Vec::new();
    let evaluate_at: Vec<f64> = if prog.x_independent {
        vec![scope[0]]
    } else {
        scope.clone()
    };
    for &x in &evaluate_at {
        ev.recorded.clear();
        let r = ev.boolean(&prog.expr, Some(x), &mut Vec::new());
        let values = std::mem::take(&mut ev.recorded);
        let holds = *r.as_ref().unwrap_or(&false);
        out.points.push(PointOutcome {
            x,
            holds,
            values: values
                .iter()
                .map(|(l, v)| (l.clone(), v.as_f64()))
                .collect(),
        });
        recorded_at.push(values);
        if let Err(e) = r {
            return (Verdict::Skip, e.0);
        }
    }
    if prog.x_independent {
        let first = out.points[0].clone();
        out.points = scope
            .iter()
            .map(|&x| PointOutcome { x, ..first.clone() })
            .collect();
        recorded_at = vec![recorded_at[0].clone(); scope.len()];
    }

    // 3. Count and judge.
    let n = scope.len();
    let satisfied = out.points.iter().filter(|p| p.holds).count();
    out.satisfied = satisfied;
    let counts = format!("holds at {satisfied}/{n} points");
    let notes: String = ev.notes.iter().map(|s| format!("; {s}")).collect();
    let required = match claim.holds.required(n) {
        Ok(r) => r,
        Err(msg) => return (Verdict::Skip, format!("{msg} ({counts}{notes})")),
    };
    let needed = format!("needed {}", claim.holds);
    if satisfied >= required {
        let first_ok = out.points.iter().position(|p| p.holds).unwrap_or(0);
        let mut rep: Option<(usize, Margin)> = None;
        for (i, p) in out.points.iter().enumerate() {
            if !p.holds || (prog.x_independent && i > 0) {
                continue;
            }
            let Some(m) = ev.margin_quiet(&prog.expr, Some(p.x)) else {
                rep = None;
                break;
            };
            if rep
                .as_ref()
                .is_none_or(|(_, b)| margin_key(m.m) < margin_key(b.m))
            {
                rep = Some((i, m));
            }
        }
        let body = match (&rep, prog.x_independent) {
            (Some((_, m)), true) => format!("holds: {}", m.text),
            (Some((i, m)), false) => format!(
                "{counts}; worst margin at x={}: {}",
                fmt_sig4(out.points[*i].x),
                m.text
            ),
            (None, true) => format!("holds: {}", show_values(&recorded_at[0])),
            (None, false) => {
                let vals = show_values(&recorded_at[first_ok]);
                let at = format!("at x={}", fmt_sig4(out.points[first_ok].x));
                if vals.is_empty() {
                    counts.clone()
                } else {
                    format!("{counts}; {at}: {vals}")
                }
            }
        };
        let failing: Vec<String> = out
            .points
            .iter()
            .filter(|p| !p.holds)
            .map(|p| fmt_sig4(p.x))
            .collect();
        let fails = if failing.is_empty() || prog.x_independent {
            String::new()
        } else {
            format!("; fails at x={} ({needed})", failing.join(", "))
        };
        return (Verdict::Pass, format!("{body}{fails}{notes}"));
    }

    let verdict = if claim.spec.soft {
        Verdict::SoftFail
    } else {
        Verdict::Fail
    };
    let tag = verdict.as_str();
    if prog.x_independent {
        let what = match ev.margin_quiet(&prog.expr, Some(scope[0])) {
            Some(m) => m.text,
            None => show_values(&recorded_at[0]),
        };
        let what = if what.is_empty() {
            "false".to_string()
        } else {
            what
        };
        return (verdict, format!("{tag}: {what}{notes}"));
    }
    let failing: Vec<usize> = (0..n).filter(|&i| !out.points[i].holds).collect();
    let listed: Vec<String> = failing
        .iter()
        .take(MAX_LISTED_FAILURES)
        .map(|&i| {
            let vals = show_values(&recorded_at[i]);
            let x = fmt_sig4(out.points[i].x);
            if vals.is_empty() {
                format!("x={x}")
            } else {
                format!("x={x}: {vals}")
            }
        })
        .collect();
    let more = if failing.len() > MAX_LISTED_FAILURES {
        format!("; and {} more", failing.len() - MAX_LISTED_FAILURES)
    } else {
        String::new()
    };
    (
        verdict,
        format!(
            "{tag} at {}{more} ({counts}; {needed}){notes}",
            listed.join("; ")
        ),
    )
}
