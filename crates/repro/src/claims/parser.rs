//! Tokenizer, parser and static checks of the claim expression language.
//!
//! The language itself is documented in the [module docs of `claims`](super). This file turns the text of an
//! `expect` or `where` field into a typed syntax tree ([`Program`]); every type error and every misuse of `tol`,
//! `x` or whole-series functions is reported here, with the 1-based column of the problem.

/// Static type of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Num,
    Bool,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Num => "a number",
            Ty::Bool => "a boolean",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl ArithOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

/// The series of a metric reference: a literal name or a quantifier variable.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SeriesName {
    Lit(String),
    /// Variable bound by the `depth`-th enclosing quantifier (counted from the outermost, 0-based).
    Var {
        depth: usize,
        name: String,
    },
}

/// A fixed sweep point `@0.4`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct At {
    pub value: f64,
    /// The literal as written, for labels and messages.
    pub text: String,
}

/// `metric[series]`, optionally `@x0`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ref {
    pub metric: String,
    pub series: SeriesName,
    pub at: Option<At>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    Up,
    Down,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeriesFnKind {
    Spearman,
    Argmax,
    Argmin,
    Monotone(Dir),
    Slope,
    ValueRange,
}

impl SeriesFnKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SeriesFnKind::Spearman => "spearman",
            SeriesFnKind::Argmax => "argmax",
            SeriesFnKind::Argmin => "argmin",
            SeriesFnKind::Monotone(_) => "monotone",
            SeriesFnKind::Slope => "slope",
            SeriesFnKind::ValueRange => "value_range",
        }
    }
}

/// A whole-series function: evaluated once per claim (and quantifier binding), not per point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SeriesFn {
    /// Index of this call in its program, the cache key.
    pub id: usize,
    pub kind: SeriesFnKind,
    /// The series it ranges over (never has `@`).
    pub target: Ref,
    /// Extra x-independent numeric arguments: `from`/`to` for monotone, `x0`/`x1` for slope.
    pub args: Vec<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    /// A number literal and its text.
    Num(f64, String),
    Bool(bool),
    X,
    /// `tol`, owned by the comparison with this id.
    Tol(usize),
    /// Mean of a cell.
    Ref(Ref),
    /// CI half-width of a cell.
    Ci(Ref),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// A comparison and its id (the owner of the `tol`s inside it).
    Cmp(CmpOp, Box<Expr>, Box<Expr>, usize),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Abs(Box<Expr>),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Quant {
        all: bool,
        var: String,
        series: Vec<String>,
        body: Box<Expr>,
    },
    Series(SeriesFn),
}

/// A typed expression node; `col` is the 1-based column of its operator or first character.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub col: usize,
    pub ty: Ty,
}

/// What `tol` of one comparison is computed from.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CmpInfo {
    /// Metric references in the comparison (both sides, outside quantifiers and whole-series functions).
    pub refs: Vec<Ref>,
    pub has_tol: bool,
    pub in_quant: bool,
}

/// A parsed and checked expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Program {
    pub expr: Expr,
    pub cmps: Vec<CmpInfo>,
    /// True when the value does not depend on the current sweep point.
    pub x_independent: bool,
    /// True when `tol` can be labelled plainly "tol": exactly one comparison uses it, outside quantifiers.
    pub simple_tol: bool,
}

/// A parse error: 1-based column and message.
pub(crate) type PErr = (usize, String);
type PResult<T> = Result<T, PErr>;

/// Which field is being parsed; `where` is restricted to `x` and constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Expect,
    Where,
}

const KEYWORDS: &[&str] = &["x", "tol", "true", "false", "and", "or", "not", "in"];
const FUNCTIONS: &str =
    "abs, max, min, if, ci, all, any, spearman, argmax, argmin, monotone, slope, value_range";

/// Parse and check one expression.
pub(crate) fn parse_program(src: &str, mode: Mode) -> PResult<Program> {
    let tokens = lex(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        vars: Vec::new(),
        next_cmp: 0,
        next_fn: 0,
        depth: 0,
    };
    let mut expr = p.parse_expr(0)?;
    let t = p.peek();
    if t.tok != Tok::Eof {
        return Err((
            t.col,
            format!(
                "unexpected {} after the end of the expression",
                t.tok.describe()
            ),
        ));
    }
    let what = match mode {
        Mode::Expect => "`expect`",
        Mode::Where => "`where`",
    };
    want(&expr, Ty::Bool, what)?;
    if mode == Mode::Where {
        check_where(&expr)?;
    }
    let mut cmps = vec![CmpInfo::default(); p.next_cmp];
    assign_tol(&mut expr, None, false, &mut cmps)?;
    let tol_cmps: Vec<&CmpInfo> = cmps.iter().filter(|c| c.has_tol).collect();
    let simple_tol = tol_cmps.len() == 1 && !tol_cmps[0].in_quant;
    let x_independent = is_x_independent(&expr);
    Ok(Program {
        expr,
        cmps,
        x_independent,
        simple_tol,
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Tokenizer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64, String),
    /// A word: keyword, function name, quantifier variable (or an unknown name, which the parser rejects).
    Ident(String),
    /// A name directly followed by `[`: the metric of a reference.
    Metric(String),
    /// The text between `[` and `]` after a metric name.
    Series(String),
    /// `{a, b, c}`: names with their columns.
    Set(Vec<(String, usize)>),
    Str(String),
    At,
    LParen,
    RParen,
    Comma,
    Colon,
    Plus,
    Minus,
    Star,
    Slash,
    Cmp(CmpOp),
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(_, t) => format!("number {t}"),
            Tok::Ident(w) => format!("'{w}'"),
            Tok::Metric(m) => format!("metric reference '{m}[...]'"),
            Tok::Series(s) => format!("series '[{s}]'"),
            Tok::Set(_) => "series set '{...}'".to_string(),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::At => "'@'".to_string(),
            Tok::LParen => "'('".to_string(),
            Tok::RParen => "')'".to_string(),
            Tok::Comma => "','".to_string(),
            Tok::Colon => "':'".to_string(),
            Tok::Plus => "'+'".to_string(),
            Tok::Minus => "'-'".to_string(),
            Tok::Star => "'*'".to_string(),
            Tok::Slash => "'/'".to_string(),
            Tok::Cmp(op) => format!("'{}'", op.symbol()),
            Tok::Eof => "end of expression".to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    tok: Tok,
    col: usize,
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}
/// Characters of metric and series names.
pub(crate) fn is_name_char(c: char) -> bool {
    is_word_char(c) || c == '-' || c == '.'
}

fn check_name(name: &str, col: usize, what: &str) -> PResult<()> {
    if name.is_empty() {
        return Err((col, format!("empty {what}")));
    }
    if let Some((i, c)) = name.char_indices().find(|&(_, c)| !is_name_char(c)) {
        let off = name[..i].chars().count();
        return Err((
            col + off,
            format!(
                "invalid character '{c}' in {what} '{name}' (names use letters, digits, '_', '-' and '.')"
            ),
        ));
    }
    Ok(())
}

fn lex(src: &str) -> PResult<Vec<Token>> {
    let cs: Vec<char> = src.chars().collect();
    let n = cs.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let c = cs[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && i + 1 < n && cs[i + 1].is_ascii_digit()) {
            let mut j = i;
            while j < n && cs[j].is_ascii_digit() {
                j += 1;
            }
            if j < n && cs[j] == '.' {
                j += 1;
                while j < n && cs[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j < n && (cs[j] == 'e' || cs[j] == 'E') {
                let mut k = j + 1;
                if k < n && (cs[k] == '+' || cs[k] == '-') {
                    k += 1;
                }
                if k < n && cs[k].is_ascii_digit() {
                    while k < n && cs[k].is_ascii_digit() {
                        k += 1;
                    }
                    j = k;
                } else {
                    return Err((
                        j + 1,
                        "malformed exponent in number (write e.g. 1e-4)".to_string(),
                    ));
                }
            }
            let text: String = cs[i..j].iter().collect();
            if j < n && (is_word_start(cs[j]) || cs[j] == '.') {
                return Err((
                    j + 1,
                    format!(
                        "unexpected '{}' right after number {text} (missing operator?)",
                        cs[j]
                    ),
                ));
            }
            let value: f64 = text
                .parse()
                .map_err(|_| (col, format!("invalid number '{text}'")))?;
            out.push(Token {
                tok: Tok::Num(value, text),
                col,
            });
            i = j;
            continue;
        }
        if is_word_start(c) {
            let mut word_end = i;
            while word_end < n && is_word_char(cs[word_end]) {
                word_end += 1;
            }
            let word: String = cs[i..word_end].iter().collect();
            if KEYWORDS.contains(&word.as_str()) {
                out.push(Token {
                    tok: Tok::Ident(word),
                    col,
                });
                i = word_end;
                continue;
            }
            let mut name_end = word_end;
            while name_end < n && is_name_char(cs[name_end]) {
                name_end += 1;
            }
            let name: String = cs[i..name_end].iter().collect();
            let mut m = name_end;
            while m < n && cs[m].is_whitespace() {
                m += 1;
            }
            if m < n && cs[m] == '[' {
                out.push(Token {
                    tok: Tok::Metric(name),
                    col,
                });
                let close = (m + 1..n).find(|&k| cs[k] == ']').ok_or((
                    m + 1,
                    "unclosed '[': expected ']' after the series name".to_string(),
                ))?;
                let raw: String = cs[m + 1..close].iter().collect();
                let lead = raw.chars().take_while(|c| c.is_whitespace()).count();
                let series = raw.trim().to_string();
                let scol = m + 2 + lead;
                check_name(&series, scol, "series name")?;
                out.push(Token {
                    tok: Tok::Series(series),
                    col: scol,
                });
                i = close + 1;
            } else {
                out.push(Token {
                    tok: Tok::Ident(name),
                    col,
                });
                i = name_end;
            }
            continue;
        }
        let two = if i + 1 < n { Some(cs[i + 1]) } else { None };
        let (tok, len) = match (c, two) {
            ('<', Some('=')) => (Tok::Cmp(CmpOp::Le), 2),
            ('>', Some('=')) => (Tok::Cmp(CmpOp::Ge), 2),
            ('=', Some('=')) => (Tok::Cmp(CmpOp::Eq), 2),
            ('!', Some('=')) => (Tok::Cmp(CmpOp::Ne), 2),
            ('<', _) => (Tok::Cmp(CmpOp::Lt), 1),
            ('>', _) => (Tok::Cmp(CmpOp::Gt), 1),
            ('=', _) => return Err((col, "'=' is not an operator; compare with '=='".to_string())),
            ('!', _) => return Err((col, "'!' is not an operator; use 'not' or '!='".to_string())),
            ('&', _) => return Err((col, "'&' is not an operator; use 'and'".to_string())),
            ('|', _) => return Err((col, "'|' is not an operator; use 'or'".to_string())),
            ('+', _) => (Tok::Plus, 1),
            ('-', _) => (Tok::Minus, 1),
            ('*', _) => (Tok::Star, 1),
            ('/', _) => (Tok::Slash, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            (',', _) => (Tok::Comma, 1),
            (':', _) => (Tok::Colon, 1),
            ('@', _) => (Tok::At, 1),
            ('[', _) => {
                return Err((
                    col,
                    "'[' must follow a metric name, as in loss[lact]".to_string(),
                ));
            }
            (']', _) => return Err((col, "unmatched ']'".to_string())),
            ('"', _) | ('\'', _) => {
                let close = (i + 1..n)
                    .find(|&k| cs[k] == c)
                    .ok_or((col, "unterminated string".to_string()))?;
                let s: String = cs[i + 1..close].iter().collect();
                out.push(Token {
                    tok: Tok::Str(s),
                    col,
                });
                i = close + 1;
                continue;
            }
            ('{', _) => {
                let close = (i + 1..n).find(|&k| cs[k] == '}').ok_or((
                    col,
                    "unclosed '{': expected '}' after the series list".to_string(),
                ))?;
                let mut items = Vec::new();
                let mut start = i + 1;
                for k in i + 1..=close {
                    if k == close || cs[k] == ',' {
                        let raw: String = cs[start..k].iter().collect();
                        let lead = raw.chars().take_while(|c| c.is_whitespace()).count();
                        let name = raw.trim().to_string();
                        let icol = start + 1 + lead;
                        if name.is_empty() {
                            return Err((
                                icol.min(k + 1),
                                "empty series name in '{...}'".to_string(),
                            ));
                        }
                        check_name(&name, icol, "series name")?;
                        items.push((name, icol));
                        start = k + 1;
                    }
                }
                out.push(Token {
                    tok: Tok::Set(items),
                    col,
                });
                i = close + 1;
                continue;
            }
            _ => return Err((col, format!("unexpected character '{c}'"))),
        };
        out.push(Token { tok, col });
        i += len;
    }
    out.push(Token {
        tok: Tok::Eof,
        col: n + 1,
    });
    Ok(out)
}

// ---------------------------------------------------------------------------------------------------------------
// Parser (Pratt)

// Binding powers: or 1 < and 2 < not 3 < comparison 4 < +,- 5 < *,/ 6 < unary minus 7 < postfix '@'.
const BP_OR: u8 = 1;
const BP_AND: u8 = 2;
const BP_NOT: u8 = 3;
const BP_CMP: u8 = 4;
const BP_ADD: u8 = 5;
const BP_MUL: u8 = 6;
const BP_NEG: u8 = 7;

/// How deeply sub-expressions may nest (parentheses, `not`, unary `-`, operands, arguments).
/// The parser and the evaluator recurse once per level, so without a bound a long run of
/// `(((` or `- - -` overflows the stack instead of being refused; no real claim nests past
/// a handful of levels.
pub(crate) const MAX_DEPTH: usize = 64;

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Quantifier variables in scope, outermost first.
    vars: Vec<String>,
    next_cmp: usize,
    next_fn: usize,
    /// Nesting of `parse_expr` calls, bounded by [`MAX_DEPTH`].
    depth: usize,
}

fn want(e: &Expr, ty: Ty, ctx: &str) -> PResult<()> {
    if e.ty == ty {
        Ok(())
    } else {
        Err((
            e.col,
            format!("{ctx} needs {}, found {}", ty.name(), e.ty.name()),
        ))
    }
}

fn node(kind: ExprKind, col: usize, ty: Ty) -> Expr {
    Expr { kind, col, ty }
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn expect(&mut self, tok: Tok, what: &str) -> PResult<Token> {
        let t = self.next();
        if t.tok == tok {
            Ok(t)
        } else {
            Err((
                t.col,
                format!("expected {what}, found {}", t.tok.describe()),
            ))
        }
    }

    /// One more level of nesting at column `col`, refused past [`MAX_DEPTH`].
    fn descend(&mut self, col: usize) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err((
                col,
                format!("expression nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn parse_expr(&mut self, min_bp: u8) -> PResult<Expr> {
        let saved = self.depth;
        let e = self
            .descend(self.peek().col)
            .and_then(|()| self.parse_expr_at(min_bp));
        self.depth = saved;
        e
    }

    fn parse_expr_at(&mut self, min_bp: u8) -> PResult<Expr> {
        let mut lhs = self.parse_prefix()?;
        let mut after_cmp = false;
        loop {
            let t = self.peek().clone();
            let lbp = match &t.tok {
                Tok::Ident(w) if w == "or" => BP_OR,
                Tok::Ident(w) if w == "and" => BP_AND,
                Tok::Cmp(_) => BP_CMP,
                Tok::Plus | Tok::Minus => BP_ADD,
                Tok::Star | Tok::Slash => BP_MUL,
                Tok::At => {
                    return Err((
                        t.col,
                        "'@' must directly follow a metric reference, as in loss[lact]@0.4".into(),
                    ));
                }
                _ => break,
            };
            if lbp < min_bp {
                break;
            }
            // Each operator applied here deepens the left operand's tree by one, which the
            // evaluator recurses through as it does through parentheses (`1+1+1+...`).
            self.descend(t.col)?;
            self.next();
            match t.tok {
                Tok::Ident(w) => {
                    let rhs = self.parse_expr(lbp + 1)?;
                    want(&lhs, Ty::Bool, &format!("'{w}'"))?;
                    want(&rhs, Ty::Bool, &format!("'{w}'"))?;
                    let kind = if w == "or" {
                        ExprKind::Or(Box::new(lhs), Box::new(rhs))
                    } else {
                        ExprKind::And(Box::new(lhs), Box::new(rhs))
                    };
                    lhs = node(kind, t.col, Ty::Bool);
                    after_cmp = false;
                }
                Tok::Cmp(op) => {
                    if after_cmp {
                        return Err((
                            t.col,
                            "comparisons do not chain: write `a < b and b < c` (or parenthesize)"
                                .to_string(),
                        ));
                    }
                    let rhs = self.parse_expr(BP_CMP + 1)?;
                    let ctx = format!("comparison '{}'", op.symbol());
                    match op {
                        CmpOp::Eq | CmpOp::Ne => {
                            if lhs.ty != rhs.ty {
                                return Err((
                                    t.col,
                                    format!(
                                        "{ctx} compares {} with {}",
                                        lhs.ty.name(),
                                        rhs.ty.name()
                                    ),
                                ));
                            }
                        }
                        _ => {
                            want(&lhs, Ty::Num, &ctx)?;
                            want(&rhs, Ty::Num, &ctx)?;
                        }
                    }
                    let id = self.next_cmp;
                    self.next_cmp += 1;
                    lhs = node(
                        ExprKind::Cmp(op, Box::new(lhs), Box::new(rhs), id),
                        t.col,
                        Ty::Bool,
                    );
                    after_cmp = true;
                }
                tok => {
                    let op = match tok {
                        Tok::Plus => ArithOp::Add,
                        Tok::Minus => ArithOp::Sub,
                        Tok::Star => ArithOp::Mul,
                        _ => ArithOp::Div,
                    };
                    let rhs = self.parse_expr(lbp + 1)?;
                    let ctx = format!("'{}'", op.symbol());
                    want(&lhs, Ty::Num, &ctx)?;
                    want(&rhs, Ty::Num, &ctx)?;
                    lhs = node(
                        ExprKind::Arith(op, Box::new(lhs), Box::new(rhs)),
                        t.col,
                        Ty::Num,
                    );
                    after_cmp = false;
                }
            }
        }
        Ok(lhs)
    }

    fn parse_prefix(&mut self) -> PResult<Expr> {
        let t = self.next();
        match &t.tok {
            Tok::Minus => {
                let e = self.parse_expr(BP_NEG)?;
                want(&e, Ty::Num, "unary '-'")?;
                Ok(node(ExprKind::Neg(Box::new(e)), t.col, Ty::Num))
            }
            Tok::Ident(w) if w == "not" => {
                let e = self.parse_expr(BP_NOT)?;
                want(&e, Ty::Bool, "'not'")?;
                Ok(node(ExprKind::Not(Box::new(e)), t.col, Ty::Bool))
            }
            Tok::Num(v, text) => Ok(node(ExprKind::Num(*v, text.clone()), t.col, Ty::Num)),
            Tok::LParen => {
                let e = self.parse_expr(0)?;
                let close = self.next();
                if close.tok != Tok::RParen {
                    return Err((
                        close.col,
                        format!(
                            "expected ')' to close '(' at column {}, found {}",
                            t.col,
                            close.tok.describe()
                        ),
                    ));
                }
                Ok(e)
            }
            Tok::Metric(m) => {
                let r = self.parse_ref_rest(m.clone())?;
                Ok(node(ExprKind::Ref(r), t.col, Ty::Num))
            }
            Tok::Ident(w) => self.parse_word(w.clone(), t.col),
            Tok::Str(s) => Err((
                t.col,
                format!("a string (\"{s}\") is only allowed as monotone's direction"),
            )),
            Tok::Set(_) => Err((
                t.col,
                "a series set '{...}' is only allowed in all(...) and any(...)".into(),
            )),
            Tok::Eof => Err((t.col, "unexpected end of expression".to_string())),
            other => Err((
                t.col,
                format!("expected a value, found {}", other.describe()),
            )),
        }
    }

    /// After a `Metric` token: the series token and an optional `@number`.
    fn parse_ref_rest(&mut self, metric: String) -> PResult<Ref> {
        let st = self.next();
        let Tok::Series(name) = st.tok else {
            return Err((
                st.col,
                "expected '[series]' after the metric name".to_string(),
            ));
        };
        let series = match self.vars.iter().rposition(|v| *v == name) {
            Some(depth) => SeriesName::Var { depth, name },
            None => SeriesName::Lit(name),
        };
        let mut at = None;
        if self.peek().tok == Tok::At {
            self.next();
            let neg = if self.peek().tok == Tok::Minus {
                self.next();
                true
            } else {
                false
            };
            let t = self.next();
            match t.tok {
                Tok::Num(v, text) => {
                    at = Some(if neg {
                        At {
                            value: -v,
                            text: format!("-{text}"),
                        }
                    } else {
                        At { value: v, text }
                    });
                }
                Tok::Ident(w) if w == "x" => {
                    return Err((
                        t.col,
                        "'@x' is not needed: a reference without '@' is taken at the current x"
                            .into(),
                    ));
                }
                other => {
                    return Err((
                        t.col,
                        format!(
                            "'@' needs a number literal (a sweep value), found {}",
                            other.describe()
                        ),
                    ));
                }
            }
        }
        Ok(Ref { metric, series, at })
    }

    fn parse_word(&mut self, w: String, col: usize) -> PResult<Expr> {
        match w.as_str() {
            "true" => return Ok(node(ExprKind::Bool(true), col, Ty::Bool)),
            "false" => return Ok(node(ExprKind::Bool(false), col, Ty::Bool)),
            "x" => return Ok(node(ExprKind::X, col, Ty::Num)),
            "tol" => return Ok(node(ExprKind::Tol(usize::MAX), col, Ty::Num)),
            "and" | "or" | "in" => {
                return Err((col, format!("unexpected '{w}': expected a value")));
            }
            _ => {}
        }
        if self.peek().tok != Tok::LParen {
            if self.vars.contains(&w) {
                return Err((
                    col,
                    format!(
                        "series variable '{w}' can only be used inside brackets, as in loss[{w}]"
                    ),
                ));
            }
            return Err((
                col,
                format!(
                    "unknown name '{w}' (a metric needs a series, as in {w}[series]; functions are called as {w}(...))"
                ),
            ));
        }
        self.next();
        match w.as_str() {
            "abs" => {
                let Some(a) = self.parse_args(&w, col, 1, Some(1))?.into_iter().next() else {
                    return Err((col, "abs takes 1 argument".to_string()));
                };
                want(&a, Ty::Num, "abs")?;
                Ok(node(ExprKind::Abs(Box::new(a)), col, Ty::Num))
            }
            "max" | "min" => {
                let args = self.parse_args(&w, col, 1, None)?;
                for a in &args {
                    want(a, Ty::Num, &w)?;
                }
                let kind = if w == "max" {
                    ExprKind::Max(args)
                } else {
                    ExprKind::Min(args)
                };
                Ok(node(kind, col, Ty::Num))
            }
            "if" => {
                let mut args = self.parse_args(&w, col, 3, Some(3))?.into_iter();
                let (Some(c), Some(a), Some(b)) = (args.next(), args.next(), args.next()) else {
                    return Err((col, "if takes 3 arguments".to_string()));
                };
                want(&c, Ty::Bool, "if's condition")?;
                if a.ty != b.ty {
                    return Err((
                        b.col,
                        format!(
                            "if's branches must have the same type: {} vs {}",
                            a.ty.name(),
                            b.ty.name()
                        ),
                    ));
                }
                let ty = a.ty;
                Ok(node(
                    ExprKind::If(Box::new(c), Box::new(a), Box::new(b)),
                    col,
                    ty,
                ))
            }
            "ci" => {
                let args = self.parse_args(&w, col, 1, Some(1))?;
                let r = take_ref(args.into_iter().next(), col, "ci", true)?;
                Ok(node(ExprKind::Ci(r), col, Ty::Num))
            }
            "all" | "any" => self.parse_quant(w == "all", col),
            "spearman" | "argmax" | "argmin" | "value_range" => {
                let args = self.parse_args(&w, col, 1, Some(1))?;
                let target = take_ref(args.into_iter().next(), col, &w, false)?;
                let kind = match w.as_str() {
                    "spearman" => SeriesFnKind::Spearman,
                    "argmax" => SeriesFnKind::Argmax,
                    "argmin" => SeriesFnKind::Argmin,
                    _ => SeriesFnKind::ValueRange,
                };
                Ok(self.series_fn(kind, target, Vec::new(), col))
            }
            "slope" => {
                let mut args = self.parse_args(&w, col, 3, Some(3))?.into_iter();
                let target = take_ref(args.next(), col, "slope", false)?;
                let rest: Vec<Expr> = args.collect();
                for a in &rest {
                    want(a, Ty::Num, "slope's x0 and x1")?;
                    check_const(a, "slope")?;
                }
                Ok(self.series_fn(SeriesFnKind::Slope, target, rest, col))
            }
            "monotone" => self.parse_monotone(col),
            _ => Err((col, format!("unknown function '{w}' (known: {FUNCTIONS})"))),
        }
    }

    fn series_fn(&mut self, kind: SeriesFnKind, target: Ref, args: Vec<Expr>, col: usize) -> Expr {
        let id = self.next_fn;
        self.next_fn += 1;
        let ty = if matches!(kind, SeriesFnKind::Monotone(_)) {
            Ty::Bool
        } else {
            Ty::Num
        };
        node(
            ExprKind::Series(SeriesFn {
                id,
                kind,
                target,
                args,
            }),
            col,
            ty,
        )
    }

    /// Comma-separated arguments after '(' up to ')', with an arity check.
    fn parse_args(
        &mut self,
        name: &str,
        col: usize,
        min: usize,
        max: Option<usize>,
    ) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.peek().tok != Tok::RParen {
            loop {
                args.push(self.parse_expr(0)?);
                let t = self.next();
                match t.tok {
                    Tok::Comma => continue,
                    Tok::RParen => break,
                    other => {
                        return Err((
                            t.col,
                            format!(
                                "expected ',' or ')' in {name}(...), found {}",
                                other.describe()
                            ),
                        ));
                    }
                }
            }
        } else {
            self.next();
        }
        let ok = args.len() >= min && max.is_none_or(|m| args.len() <= m);
        if !ok {
            let want = match max {
                Some(m) if m == min => format!("{m}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            let s = if want.ends_with(" 1") || want == "1" {
                ""
            } else {
                "s"
            };
            return Err((
                col,
                format!("{name} takes {want} argument{s}, found {}", args.len()),
            ));
        }
        Ok(args)
    }

    fn parse_monotone(&mut self, col: usize) -> PResult<Expr> {
        let first = self.parse_expr(0)?;
        let target = take_ref(Some(first), col, "monotone", false)?;
        let t = self.next();
        if t.tok != Tok::Comma {
            return Err((
                t.col,
                "monotone needs a direction: monotone(m[s], \"up\") or \"down\"".to_string(),
            ));
        }
        let d = self.next();
        let dir = match &d.tok {
            Tok::Str(s) | Tok::Ident(s) if s == "up" => Dir::Up,
            Tok::Str(s) | Tok::Ident(s) if s == "down" => Dir::Down,
            other => {
                return Err((
                    d.col,
                    format!(
                        "monotone's direction must be \"up\" or \"down\", found {}",
                        other.describe()
                    ),
                ));
            }
        };
        let mut rest = Vec::new();
        loop {
            let t = self.next();
            match t.tok {
                Tok::RParen => break,
                Tok::Comma if rest.len() < 2 => {
                    let a = self.parse_expr(0)?;
                    want(&a, Ty::Num, "monotone's from/to")?;
                    check_const(&a, "monotone")?;
                    rest.push(a);
                }
                Tok::Comma => {
                    return Err((
                        t.col,
                        "monotone takes at most 4 arguments (series, direction, from, to)".into(),
                    ));
                }
                other => {
                    return Err((
                        t.col,
                        format!(
                            "expected ',' or ')' in monotone(...), found {}",
                            other.describe()
                        ),
                    ));
                }
            }
        }
        Ok(self.series_fn(SeriesFnKind::Monotone(dir), target, rest, col))
    }

    fn parse_quant(&mut self, all: bool, col: usize) -> PResult<Expr> {
        let name = if all { "all" } else { "any" };
        let vt = self.next();
        let var = match vt.tok {
            Tok::Ident(v) if !KEYWORDS.contains(&v.as_str()) && v.chars().all(is_word_char) => v,
            other => {
                return Err((
                    vt.col,
                    format!(
                        "{name}(...) starts with a variable name, as in {name}(S in {{a, b}}: ...); found {}",
                        other.describe()
                    ),
                ));
            }
        };
        if self.vars.contains(&var) {
            return Err((
                vt.col,
                format!("variable '{var}' is already bound by an enclosing quantifier"),
            ));
        }
        let t = self.next();
        if t.tok != Tok::Ident("in".into()) {
            return Err((
                t.col,
                format!(
                    "expected 'in' after the variable of {name}(...), found {}",
                    t.tok.describe()
                ),
            ));
        }
        let st = self.next();
        let Tok::Set(items) = st.tok else {
            return Err((
                st.col,
                format!(
                    "expected a series set '{{a, b, ...}}', found {}",
                    st.tok.describe()
                ),
            ));
        };
        self.expect(Tok::Colon, "':' after the series set")?;
        self.vars.push(var.clone());
        let body = self.parse_expr(0);
        self.vars.pop();
        let body = body?;
        want(&body, Ty::Bool, &format!("the body of {name}(...)"))?;
        let close = self.next();
        if close.tok != Tok::RParen {
            return Err((
                close.col,
                format!(
                    "expected ')' to close {name}( at column {col}, found {}",
                    close.tok.describe()
                ),
            ));
        }
        let series = items.into_iter().map(|(s, _)| s).collect();
        Ok(node(
            ExprKind::Quant {
                all,
                var,
                series,
                body: Box::new(body),
            },
            col,
            Ty::Bool,
        ))
    }
}

/// The argument of `ci` and whole-series functions must be a metric reference (with `@` only for `ci`).
fn take_ref(arg: Option<Expr>, col: usize, fname: &str, allow_at: bool) -> PResult<Ref> {
    let Some(e) = arg else {
        return Err((
            col,
            format!("{fname} needs a metric reference, as in {fname}(loss[lact])"),
        ));
    };
    match e.kind {
        ExprKind::Ref(r) => {
            if r.at.is_some() && !allow_at {
                return Err((
                    e.col,
                    format!(
                        "{fname} ranges over the whole series: write {}[...] without '@'",
                        r.metric
                    ),
                ));
            }
            Ok(r)
        }
        _ => Err((
            e.col,
            format!(
                "{fname}'s first argument must be a metric reference, as in {fname}(loss[lact])"
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Static checks

fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Num(..)
        | ExprKind::Bool(_)
        | ExprKind::X
        | ExprKind::Tol(_)
        | ExprKind::Ref(_)
        | ExprKind::Ci(_) => Vec::new(),
        ExprKind::Neg(a) | ExprKind::Not(a) | ExprKind::Abs(a) => vec![a],
        ExprKind::Arith(_, a, b)
        | ExprKind::Cmp(_, a, b, _)
        | ExprKind::And(a, b)
        | ExprKind::Or(a, b) => vec![a, b],
        ExprKind::Max(v) | ExprKind::Min(v) => v.iter().collect(),
        ExprKind::If(c, a, b) => vec![c, a, b],
        ExprKind::Quant { body, .. } => vec![body],
        ExprKind::Series(f) => f.args.iter().collect(),
    }
}

/// Whole-series arguments are evaluated once per claim: they must not depend on the current x.
fn check_const(e: &Expr, fname: &str) -> PResult<()> {
    match &e.kind {
        ExprKind::X => {
            return Err((
                e.col,
                format!("{fname}'s arguments are evaluated once per claim and cannot use x"),
            ));
        }
        ExprKind::Tol(_) => {
            return Err((e.col, format!("tol cannot be used in {fname}'s arguments")));
        }
        ExprKind::Ref(r) | ExprKind::Ci(r) if r.at.is_none() => {
            return Err((
                e.col,
                format!(
                    "{fname}'s arguments are evaluated once per claim: a reference needs '@', as in {}[...]@0.4",
                    r.metric
                ),
            ));
        }
        _ => {}
    }
    children(e)
        .into_iter()
        .try_for_each(|c| check_const(c, fname))
}

/// `where` selects points before anything is measured: only x and constants.
fn check_where(e: &Expr) -> PResult<()> {
    let bad = match &e.kind {
        ExprKind::Ref(_) | ExprKind::Ci(_) => Some("metric references"),
        ExprKind::Tol(_) => Some("tol"),
        ExprKind::Quant { .. } => Some("quantifiers"),
        ExprKind::Series(_) => Some("whole-series functions"),
        _ => None,
    };
    if let Some(what) = bad {
        return Err((
            e.col,
            format!("`where` may only use x, numbers and operators, not {what}"),
        ));
    }
    children(e).into_iter().try_for_each(check_where)
}

/// Metric references of a comparison for `tol`: not inside quantifiers or whole-series functions.
/// Every metric an expression names, whole-series functions and quantifier bodies included.
pub(crate) fn metric_names(e: &Expr, out: &mut std::collections::BTreeSet<String>) {
    match &e.kind {
        ExprKind::Ref(r) | ExprKind::Ci(r) => {
            out.insert(r.metric.clone());
        }
        ExprKind::Series(f) => {
            out.insert(f.target.metric.clone());
            f.args.iter().for_each(|a| metric_names(a, out));
        }
        _ => children(e).into_iter().for_each(|c| metric_names(c, out)),
    }
}

fn collect_refs(e: &Expr, out: &mut Vec<Ref>) {
    match &e.kind {
        ExprKind::Ref(r) | ExprKind::Ci(r) => {
            if !out.contains(r) {
                out.push(r.clone());
            }
        }
        ExprKind::Quant { .. } | ExprKind::Series(_) => {}
        _ => children(e).into_iter().for_each(|c| collect_refs(c, out)),
    }
}

/// Bind each `tol` to its innermost comparison and compute what that comparison's tolerance is made of.
fn assign_tol(
    e: &mut Expr,
    cur: Option<usize>,
    in_quant: bool,
    cmps: &mut [CmpInfo],
) -> PResult<()> {
    let col = e.col;
    match &mut e.kind {
        ExprKind::Tol(id) => {
            let Some(c) = cur else {
                return Err((
                    col,
                    "tol is the tolerance of a comparison and can only appear inside one".into(),
                ));
            };
            *id = c;
            cmps[c].has_tol = true;
            if cmps[c].refs.is_empty() {
                return Err((
                    col,
                    "tol needs a metric reference in its comparison to take a tolerance from"
                        .into(),
                ));
            }
            Ok(())
        }
        ExprKind::Cmp(_, a, b, id) => {
            let id = *id;
            let mut refs = Vec::new();
            collect_refs(a, &mut refs);
            collect_refs(b, &mut refs);
            cmps[id].refs = refs;
            cmps[id].in_quant = in_quant;
            assign_tol(a, Some(id), in_quant, cmps)?;
            assign_tol(b, Some(id), in_quant, cmps)
        }
        ExprKind::Quant { body, .. } => assign_tol(body, None, true, cmps),
        ExprKind::Series(f) => f
            .args
            .iter_mut()
            .try_for_each(|a| assign_tol(a, None, in_quant, cmps)),
        ExprKind::Num(..)
        | ExprKind::Bool(_)
        | ExprKind::X
        | ExprKind::Ref(_)
        | ExprKind::Ci(_) => Ok(()),
        ExprKind::Neg(a) | ExprKind::Not(a) | ExprKind::Abs(a) => {
            assign_tol(a, cur, in_quant, cmps)
        }
        ExprKind::Arith(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            assign_tol(a, cur, in_quant, cmps)?;
            assign_tol(b, cur, in_quant, cmps)
        }
        ExprKind::Max(v) | ExprKind::Min(v) => v
            .iter_mut()
            .try_for_each(|a| assign_tol(a, cur, in_quant, cmps)),
        ExprKind::If(c, a, b) => {
            assign_tol(c, cur, in_quant, cmps)?;
            assign_tol(a, cur, in_quant, cmps)?;
            assign_tol(b, cur, in_quant, cmps)
        }
    }
}

fn is_x_independent(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::X => false,
        ExprKind::Ref(r) | ExprKind::Ci(r) => r.at.is_some(),
        // A whole-series function's value does not depend on x (its arguments are checked constant).
        ExprKind::Series(_) => true,
        _ => children(e).into_iter().all(is_x_independent),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Pretty-printing (for summaries)

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Or(..) => BP_OR,
        ExprKind::And(..) => BP_AND,
        ExprKind::Not(_) => BP_NOT,
        ExprKind::Cmp(..) => BP_CMP,
        ExprKind::Arith(ArithOp::Add | ArithOp::Sub, ..) => BP_ADD,
        ExprKind::Arith(..) => BP_MUL,
        ExprKind::Neg(_) => BP_NEG,
        _ => BP_NEG + 1,
    }
}

/// `metric[series]` with quantifier variables replaced by their current binding.
pub(crate) fn ref_label(r: &Ref, env: &[String]) -> String {
    let series = match &r.series {
        SeriesName::Lit(s) => s.as_str(),
        SeriesName::Var { depth, name } => env.get(*depth).map_or(name.as_str(), String::as_str),
    };
    match &r.at {
        Some(at) => format!("{}[{series}]@{}", r.metric, at.text),
        None => format!("{}[{series}]", r.metric),
    }
}

/// Source-like text of an expression, compact (`loss[first-fit]+0.02`), with bound series substituted.
pub(crate) fn show(e: &Expr, env: &[String]) -> String {
    let wrap = |c: &Expr, min: u8| {
        let s = show(c, env);
        if prec(c) < min { format!("({s})") } else { s }
    };
    let list = |v: &[Expr]| {
        v.iter()
            .map(|a| show(a, env))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &e.kind {
        ExprKind::Num(_, t) => t.clone(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::X => "x".into(),
        ExprKind::Tol(_) => "tol".into(),
        ExprKind::Ref(r) => ref_label(r, env),
        ExprKind::Ci(r) => format!("ci({})", ref_label(r, env)),
        ExprKind::Neg(a) => format!("-{}", wrap(a, BP_NEG)),
        ExprKind::Not(a) => format!("not {}", wrap(a, BP_NOT)),
        ExprKind::Arith(op, a, b) => {
            let p = prec(e);
            format!("{}{}{}", wrap(a, p), op.symbol(), wrap(b, p + 1))
        }
        ExprKind::Cmp(op, a, b, _) => format!(
            "{} {} {}",
            wrap(a, BP_CMP + 1),
            op.symbol(),
            wrap(b, BP_CMP + 1)
        ),
        ExprKind::And(a, b) => format!("{} and {}", wrap(a, BP_AND), wrap(b, BP_AND + 1)),
        ExprKind::Or(a, b) => format!("{} or {}", wrap(a, BP_OR), wrap(b, BP_OR + 1)),
        ExprKind::Abs(a) => format!("abs({})", show(a, env)),
        ExprKind::Max(v) => format!("max({})", list(v)),
        ExprKind::Min(v) => format!("min({})", list(v)),
        ExprKind::If(c, a, b) => {
            format!("if({}, {}, {})", show(c, env), show(a, env), show(b, env))
        }
        ExprKind::Quant {
            all,
            var,
            series,
            body,
        } => {
            let mut inner = env.to_vec();
            inner.push(var.clone());
            format!(
                "{}({var} in {{{}}}: {})",
                if *all { "all" } else { "any" },
                series.join(", "),
                show(body, &inner)
            )
        }
        ExprKind::Series(f) => {
            let mut s = format!("{}({}", f.kind.name(), ref_label(&f.target, env));
            match f.kind {
                SeriesFnKind::Monotone(Dir::Up) => s.push_str(", \"up\""),
                SeriesFnKind::Monotone(Dir::Down) => s.push_str(", \"down\""),
                _ => {}
            }
            for a in &f.args {
                s.push_str(", ");
                s.push_str(&show(a, env));
            }
            s.push(')');
            s
        }
    }
}
