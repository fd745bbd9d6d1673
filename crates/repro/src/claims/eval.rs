//! Evaluation of parsed claims against a result table, and the one-line summaries.

use std::collections::BTreeMap;

use super::parser::{
    At, CmpInfo, CmpOp, Dir, Expr, ExprKind, Program, Ref, SeriesFn, SeriesFnKind, SeriesName, Ty,
    ref_label, show,
};
use super::{ClaimOutcome, ParsedClaim, PointOutcome, Verdict, fmt_sig4};
use crate::table::{Cell, Lookup, x_key};

/// A cell of the table: metric, series and the bit key of its sweep value.
type CellKey = (String, String, i64);

/// A mean is moved by this fraction of its standard error to measure how much a comparison's
/// difference depends on it (a local, numerical derivative; exact on linear expressions).
const PERTURBATION: f64 = 1e-3;

/// Reason given for `scale = "paper"` claims evaluated at another scale.
pub(crate) const PAPER_ONLY_REASON: &str = "absolute claim needs paper-scale precision";

/// How many failing points a FAIL summary lists with their values.
const MAX_LISTED_FAILURES: usize = 3;

/// A truth value in Kleene's three-valued logic: `None` is *unknown*, what a comparison with
/// NaN gives. `not` keeps it unknown, `and`/`or` decide without it only when the other side
/// does (`false and ?` is false), and a claim holds at a point only when it is `Some(true)`: so
/// a NaN can never make a claim pass, whatever `not`s or `==`s surround it.
type Truth = Option<bool>;

fn and(a: Truth, b: Truth) -> Truth {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or(a: Truth, b: Truth) -> Truth {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Num(f64),
    Bool(Truth),
}

impl Value {
    fn show(self) -> String {
        match self {
            Value::Num(v) => fmt_sig4(v),
            Value::Bool(Some(b)) => b.to_string(),
            Value::Bool(None) => "unknown (NaN)".to_string(),
        }
    }
    fn as_f64(self) -> f64 {
        match self {
            Value::Num(v) => v,
            Value::Bool(Some(b)) => f64::from(u8::from(b)),
            Value::Bool(None) => f64::NAN,
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

fn compare(op: CmpOp, a: f64, b: f64) -> Truth {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    Some(match op {
        CmpOp::Lt => a < b && !feq(a, b),
        CmpOp::Le => a <= b || feq(a, b),
        CmpOp::Gt => a > b && !feq(a, b),
        CmpOp::Ge => a >= b || feq(a, b),
        CmpOp::Eq => feq(a, b),
        CmpOp::Ne => !feq(a, b),
    })
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
    /// The two sides of each comparison, by id, once it is being evaluated (`tol` needs them).
    sides: Vec<Option<(&'a Expr, &'a Expr)>>,
    /// While a tolerance is being measured: `tol` is 0 and nothing is recorded.
    measuring: bool,
    /// While a tolerance is being measured: one cell's mean, moved.
    moved: Option<(CellKey, f64)>,
    /// The lenient reading (a tie is not a contradiction): a comparison with `tol` holds when
    /// it holds with its margins read either way, `+tol` or `−tol`.
    lenient: bool,
    /// Under an odd number of `not`s the lenient reading takes the stricter of the two.
    negated: bool,
    /// The sign `tol` is read with (−1 while the lenient reading tries the other way).
    tol_sign: f64,
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
            sides: vec![None; prog.cmps.len()],
            measuring: false,
            moved: None,
            lenient: false,
            negated: false,
            tol_sign: 1.0,
        }
    }

    fn record(&mut self, label: String, v: Value) {
        if self.measuring {
            return;
        }
        if !self.recorded.iter().any(|(l, _)| *l == label) {
            self.recorded.push((label, v));
        }
    }

    fn find_x(&self, v: f64) -> Option<f64> {
        self.table_xs.iter().copied().find(|&t| feq(t, v))
    }

    /// The cell of a reference (at its `@` point, or at `x`) and its label.
    fn lookup(&self, r: &Ref, x: Option<f64>, env: &[String]) -> EResult<(String, Cell)> {
        self.lookup_keyed(r, x, env).map(|(label, _, c)| (label, c))
    }

    /// [`Self::lookup`] with the cell's key.
    fn lookup_keyed(
        &self,
        r: &Ref,
        x: Option<f64>,
        env: &[String],
    ) -> EResult<(String, CellKey, Cell)> {
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
            Some(c) => Ok((label, (r.metric.clone(), series.to_string(), x_key(px)), c)),
            None => Err(EvalError(format!(
                "no data for {base} at x={}",
                fmt_sig4(px)
            ))),
        }
    }

    fn num(&mut self, e: &'a Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<f64> {
        match self.eval(e, x, env)? {
            Value::Num(v) => Ok(v),
            Value::Bool(_) => Err(internal("expected a number")),
        }
    }

    /// Whether `e` holds: true only when its truth value is known to be true.
    fn boolean(&mut self, e: &'a Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<bool> {
        Ok(self.truth(e, x, env)? == Some(true))
    }

    fn truth(&mut self, e: &'a Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<Truth> {
        match self.eval(e, x, env)? {
            Value::Bool(b) => Ok(b),
            Value::Num(_) => Err(internal("expected a boolean")),
        }
    }

    fn eval(&mut self, e: &'a Expr, x: Option<f64>, env: &mut Vec<String>) -> EResult<Value> {
        Ok(match &e.kind {
            ExprKind::Num(v, _) => Value::Num(*v),
            ExprKind::Bool(b) => Value::Bool(Some(*b)),
            ExprKind::X => Value::Num(x.ok_or_else(|| internal("x outside a sweep point"))?),
            ExprKind::Tol(id) => {
                if self.measuring {
                    Value::Num(0.0)
                } else {
                    Value::Num(self.tol_sign * self.tol(*id, x, env)?)
                }
            }
            ExprKind::Ref(r) => {
                let (label, key, c) = self.lookup_keyed(r, x, env)?;
                let mean = match &self.moved {
                    Some((k, v)) if *k == key => *v,
                    _ => c.mean,
                };
                self.record(label, Value::Num(mean));
                Value::Num(mean)
            }
            ExprKind::Ci(r) => {
                let (label, c) = self.lookup(r, x, env)?;
                self.record(format!("ci({label})"), Value::Num(c.half_width));
                Value::Num(c.half_width)
            }
            ExprKind::Neg(a) => Value::Num(-self.num(a, x, env)?),
            ExprKind::Not(a) => {
                self.negated = !self.negated;
                let r = self.truth(a, x, env);
                self.negated = !self.negated;
                Value::Bool(r?.map(|b| !b))
            }
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
            ExprKind::Cmp(op, a, b, id) => {
                self.sides[*id] = Some((a, b));
                let strict = self.compare_sides(*op, a, b, x, env)?;
                let has_tol = self.cmps.get(*id).is_some_and(|c| c.has_tol);
                if !self.lenient || self.measuring || !has_tol {
                    return Ok(Value::Bool(strict));
                }
                // The lenient reading: the same comparison with its margins read the other way.
                let saved = self.tol_sign;
                self.tol_sign = -saved;
                let other = self.compare_sides(*op, a, b, x, env);
                self.tol_sign = saved;
                let other = other?;
                Value::Bool(if self.negated {
                    and(strict, other)
                } else {
                    or(strict, other)
                })
            }
            // Short-circuits as before: the right side is not evaluated (nor its errors raised)
            // once the left decides.
            ExprKind::And(a, b) => match self.truth(a, x, env)? {
                Some(false) => Value::Bool(Some(false)),
                l => Value::Bool(and(l, self.truth(b, x, env)?)),
            },
            ExprKind::Or(a, b) => match self.truth(a, x, env)? {
                Some(true) => Value::Bool(Some(true)),
                l => Value::Bool(or(l, self.truth(b, x, env)?)),
            },
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
            ExprKind::If(c, a, b) => match self.truth(c, x, env)? {
                Some(true) => self.eval(a, x, env)?,
                Some(false) => self.eval(b, x, env)?,
                // An unknown condition gives an unknown value of the branches' type.
                None => match self.eval(a, x, env)? {
                    Value::Num(_) => Value::Num(f64::NAN),
                    Value::Bool(_) => Value::Bool(None),
                },
            },
            ExprKind::Quant {
                all, series, body, ..
            } => {
                // Every binding is evaluated (no short-circuit), so a summary shows all the values.
                let mut acc = Some(*all);
                for s in series {
                    env.push(s.clone());
                    let r = self.truth(body, x, env);
                    env.pop();
                    let b = r?;
                    acc = if *all { and(acc, b) } else { or(acc, b) };
                }
                Value::Bool(acc)
            }
            ExprKind::Series(f) => self.series_fn(f, env)?,
        })
    }

    fn compare_sides(
        &mut self,
        op: CmpOp,
        a: &'a Expr,
        b: &'a Expr,
        x: Option<f64>,
        env: &mut Vec<String>,
    ) -> EResult<Truth> {
        let av = self.eval(a, x, env)?;
        let bv = self.eval(b, x, env)?;
        Ok(match (av, bv) {
            (Value::Num(a), Value::Num(b)) => compare(op, a, b),
            (Value::Bool(Some(a)), Value::Bool(Some(b))) => match op {
                CmpOp::Eq => Some(a == b),
                CmpOp::Ne => Some(a != b),
                _ => return Err(internal("ordering of booleans")),
            },
            (Value::Bool(_), Value::Bool(_)) => None,
            _ => return Err(internal("comparison of mixed types")),
        })
    }

    /// The difference of a comparison's sides, with `tol` at 0 and nothing recorded.
    fn side_difference(
        &mut self,
        a: &'a Expr,
        b: &'a Expr,
        x: Option<f64>,
        env: &mut Vec<String>,
    ) -> EResult<f64> {
        let saved = self.measuring;
        self.measuring = true;
        let r = self
            .num(a, x, env)
            .and_then(|av| self.num(b, x, env).map(|bv| av - bv));
        self.measuring = saved;
        r
    }

    /// The tolerance of comparison `id`: the 95 % half-width of the difference of its two
    /// sides (Welch, over the distinct cells it references, each weighted by how much the
    /// difference moves with it), or the largest floor of its metrics if that is larger.
    fn tol(&mut self, id: usize, x: Option<f64>, env: &mut Vec<String>) -> EResult<f64> {
        let cmps = self.cmps;
        let info = cmps
            .get(id)
            .ok_or_else(|| internal("tol without a comparison"))?;
        let (a, b) = self
            .sides
            .get(id)
            .copied()
            .flatten()
            .ok_or_else(|| internal("tol outside its comparison"))?;
        let mut floor = 0.0_f64;
        let mut labels: Vec<String> = Vec::new();
        let mut cells: Vec<(CellKey, Cell)> = Vec::new();
        for r in &info.refs {
            let (label, key, c) = self.lookup_keyed(r, x, env)?;
            floor = floor.max(self.table.floor(&r.metric));
            if !labels.contains(&label) {
                labels.push(label);
            }
            if !cells.iter().any(|(k, _)| *k == key) {
                cells.push((key, c));
            }
        }
        let base = self.side_difference(a, b, x, env)?;
        let mut terms: Vec<(f64, usize)> = Vec::with_capacity(cells.len());
        for (key, c) in cells {
            if c.runs < 2 || c.sd == 0.0 || !c.sd.is_finite() {
                continue;
            }
            let se = c.sd / (c.runs as f64).sqrt();
            let delta = se * PERTURBATION;
            self.moved = Some((key, c.mean + delta));
            let moved = self.side_difference(a, b, x, env);
            self.moved = None;
            let slope = (moved? - base) / delta;
            terms.push((slope * se, c.runs));
        }
        let h = gridsched_sim::stats::welch_half_width(&terms);
        let t = if h.is_finite() { h.max(floor) } else { floor };
        let label = if self.simple_tol {
            "tol".to_string()
        } else {
            format!("tol({})", labels.join(","))
        };
        self.record(label, Value::Num(t));
        Ok(t)
    }

    fn series_fn(&mut self, f: &'a SeriesFn, env: &mut Vec<String>) -> EResult<Value> {
        let key = (f.id, env.clone());
        if !self.cache.contains_key(&key) {
            // A whole-series function does not depend on the point, nor on a tolerance being
            // measured: compute it plainly, once, and record what it used.
            let saved = std::mem::take(&mut self.recorded);
            let (measuring, moved) = (self.measuring, self.moved.take());
            self.measuring = false;
            let r = self.compute_series_fn(f, env);
            (self.measuring, self.moved) = (measuring, moved);
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
        f: &'a SeriesFn,
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
                // A NaN mean could be the extreme: where it lies is unknown (NaN), which no
                // comparison can pass.
                if pts.iter().any(|p| p.1.mean.is_nan()) {
                    return Ok((Value::Num(f64::NAN), label));
                }
                for &(x, c) in &pts {
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
            // A NaN mean leaves the direction unknown, under `not` too.
            SeriesFnKind::Monotone(_) if pts.iter().any(|p| p.1.mean.is_nan()) => Value::Bool(None),
            SeriesFnKind::Monotone(dir) => {
                let floor = self.table.floor(&f.target.metric);
                let (mut ok, mut unknown, mut any_false) = (true, false, false);
                let mut worst: Option<(f64, String)> = None;
                for w in pts.windows(2) {
                    let ((x0, c0), (x1, c1)) = (w[0], w[1]);
                    // The pair's difference, Welch's half-width (or the metric's floor).
                    let se = |c: &Cell| c.sd / (c.runs.max(1) as f64).sqrt();
                    let t = gridsched_sim::stats::welch_half_width(&[
                        (se(&c0), c0.runs),
                        (se(&c1), c1.runs),
                    ])
                    .max(floor);
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
                    // A NaN half-width leaves the pair unknown: `and` over the pairs (Kleene).
                    match holds {
                        None => unknown = true,
                        Some(false) => any_false = true,
                        Some(true) => {}
                    }
                    if holds != Some(true) {
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
                Value::Bool(if unknown && !any_false {
                    None
                } else {
                    Some(ok)
                })
            }
            SeriesFnKind::Slope => return Err(internal("slope")),
        };
        Ok((value, label))
    }

    /// Margin of a (possibly quantified) single comparison: positive when it holds.
    fn margin(&mut self, e: &'a Expr, x: Option<f64>, env: &mut Vec<String>) -> Option<Margin> {
        match &e.kind {
            ExprKind::Cmp(op, a, b, id) if a.ty == Ty::Num => {
                self.sides[*id] = Some((a, b));
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

    fn margin_quiet(&mut self, e: &'a Expr, x: Option<f64>) -> Option<Margin> {
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
        within_noise: 0,
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

    // 4. Not reproduced: a tie when it holds with its margins read the other way (within the
    //    noise) at enough points, else contradicted.
    let lenient: Vec<bool> = {
        ev.lenient = true;
        let mut v = Vec::with_capacity(evaluate_at.len());
        for &x in &evaluate_at {
            let saved = std::mem::take(&mut ev.recorded);
            let r = ev.boolean(&prog.expr, Some(x), &mut Vec::new());
            ev.recorded = saved;
            v.push(r.unwrap_or(false));
        }
        ev.lenient = false;
        if prog.x_independent { vec![v[0]; n] } else { v }
    };
    let within_noise = lenient
        .iter()
        .zip(&out.points)
        .filter(|(l, p)| **l || p.holds)
        .count();
    out.within_noise = within_noise;
    let verdict = if within_noise >= required {
        Verdict::Tie
    } else if claim.spec.soft {
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
        let noise = if verdict == Verdict::Tie {
            " (holds only with its margins read the other way: within the noise)"
        } else {
            ""
        };
        return (verdict, format!("{tag}: {what}{noise}{notes}"));
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
    let noise = if verdict == Verdict::Tie {
        format!("; within the noise at {within_noise}/{n}")
    } else {
        String::new()
    };
    (
        verdict,
        format!(
            "{tag} at {}{more} ({counts}{noise}; {needed}){notes}",
            listed.join("; ")
        ),
    )
}
