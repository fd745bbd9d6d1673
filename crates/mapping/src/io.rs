//! ETC matrix files: the Braun et al. benchmark format and CSV.
//!
//! **Braun format**: one number per line, task-major (line `i·m + j` holds `ETC[i][j]`), LF or
//! CRLF line ends, blank lines ignored, and an optional header line `T M` (or `T M x`, as in a
//! widely mirrored copy whose header is `512 16 0`; the third number is ignored). Without a
//! header the shape must be known: given by the caller, or else 16 machines (the benchmark's)
//! and as many tasks as the values fill.
//!
//! **CSV**: one row per task, one column per machine. An optional header row (recognised by a
//! cell that is not a number); when its first cell is `task` (or `id`), the first column of
//! every row is a label and ignored. `#` starts a comment line.
//!
//! Every error names the file and line (`u_c_hihi.0:17: ...`); no input makes a reader panic.

use std::fmt;
use std::path::Path;

use gridsched_sim::fmt::{push_f64, push_int};

use crate::etc::{EtcError, EtcMatrix, MAX_ENTRIES};

/// A malformed input: `file:line: message` (`file: message` when no line applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    /// 1-based line; 0 when the error concerns the whole file.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

fn err(file: &str, line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

/// The two file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Braun,
    Csv,
}

impl Format {
    /// `csv` for a `.csv` file, Braun otherwise.
    pub fn guess(path: &Path) -> Format {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
        {
            Format::Csv
        } else {
            Format::Braun
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "braun" => Ok(Format::Braun),
            "csv" => Ok(Format::Csv),
            _ => Err(format!("unknown ETC format `{s}`; expected braun or csv")),
        }
    }
}

/// Reads a matrix file in `format` (shape: see [`parse_braun`]; ignored for CSV).
pub fn read_etc(
    path: &Path,
    format: Format,
    shape: Option<(usize, usize)>,
) -> Result<EtcMatrix, ParseError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| err(&name, 0, e.to_string()))?;
    match format {
        Format::Braun => parse_braun(&name, &bytes, shape),
        Format::Csv => parse_csv(&name, &bytes),
    }
}

/// Number of machines assumed for a headerless Braun file when no shape is given.
pub const BRAUN_MACHINES: usize = 16;

fn shape_error(file: &str, line: usize, e: EtcError) -> ParseError {
    err(file, line, e.to_string())
}

/// Parses the Braun format. `shape = Some((tasks, machines))` fixes the shape of a headerless
/// file (a header, if present, must agree with it).
pub fn parse_braun(
    file: &str,
    bytes: &[u8],
    shape: Option<(usize, usize)>,
) -> Result<EtcMatrix, ParseError> {
    let mut header: Option<(usize, usize, usize)> = None; // (tasks, machines, line)
    let mut values: Vec<f64> = Vec::new();
    let mut last_line = 0;
    let mut expected: Option<usize> = shape.and_then(|(t, m)| t.checked_mul(m));
    let mut first = true;
    for (idx, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = idx + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = std::str::from_utf8(raw)
            .map_err(|_| err(file, line, "not UTF-8 text"))?
            .trim();
        if text.is_empty() {
            continue;
        }
        last_line = line;
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if first {
            first = false;
            if (2..=3).contains(&tokens.len()) && tokens.iter().all(|t| t.parse::<u64>().is_ok()) {
                let t: usize = tokens[0]
                    .parse()
                    .map_err(|_| err(file, line, "task count too large"))?;
                let m: usize = tokens[1]
                    .parse()
                    .map_err(|_| err(file, line, "machine count too large"))?;
                let n = t
                    .checked_mul(m)
                    .filter(|&n| n <= MAX_ENTRIES && n > 0)
                    .ok_or_else(|| {
                        err(
                            file,
                            line,
                            format!(
                                "header `{text}`: {t} tasks × {m} machines is not a usable shape"
                            ),
                        )
                    })?;
                if let Some((st, sm)) = shape
                    && (st, sm) != (t, m)
                {
                    return Err(err(
                        file,
                        line,
                        format!("header says {t} × {m}, but {st} × {sm} was asked for"),
                    ));
                }
                header = Some((t, m, line));
                expected = Some(n);
                continue;
            }
        }
        if tokens.len() != 1 {
            return Err(err(
                file,
                line,
                format!(
                    "expected one value per line, found {} (`{text}`)",
                    tokens.len()
                ),
            ));
        }
        let v: f64 = text
            .parse()
            .map_err(|_| err(file, line, format!("`{text}` is not a number")))?;
        if !v.is_finite() {
            return Err(err(file, line, format!("ETC value `{text}` is not finite")));
        }
        if v < 0.0 {
            return Err(err(file, line, format!("negative ETC value {text}")));
        }
        if let Some(n) = expected
            && values.len() == n
        {
            return Err(err(
                file,
                line,
                format!("more values than the {n} the shape announces"),
            ));
        }
        if values.len() >= MAX_ENTRIES {
            return Err(err(file, line, "too many values"));
        }
        values.push(v);
    }
    let (tasks, machines) = match (header, shape) {
        (Some((t, m, _)), _) | (None, Some((t, m))) => (t, m),
        (None, None) => {
            if values.is_empty() || !values.len().is_multiple_of(BRAUN_MACHINES) {
                return Err(err(
                    file,
                    last_line,
                    format!(
                        "{} values are not whole rows of {BRAUN_MACHINES} machines (the file has no `T M` header; give the shape)",
                        values.len()
                    ),
                ));
            }
            (values.len() / BRAUN_MACHINES, BRAUN_MACHINES)
        }
    };
    let n = tasks
        .checked_mul(machines)
        .ok_or_else(|| err(file, 0, "shape too large"))?;
    if values.len() != n {
        return Err(err(
            file,
            last_line.max(1),
            format!(
                "the file ends after {} values; {tasks} tasks × {machines} machines need {n}",
                values.len()
            ),
        ));
    }
    EtcMatrix::new(tasks, machines, values).map_err(|e| shape_error(file, last_line, e))
}

/// Writes the Braun format (LF line ends), with a `T M` header line if asked. Values are
/// written as `format!("{v}")` would (shortest round-trip digits) without a string per value
/// (`gridsched_sim::fmt`): a large matrix holds millions of them.
pub fn write_braun(etc: &EtcMatrix, header: bool) -> String {
    let mut out = Vec::with_capacity(etc.values().len() * 20 + 32);
    if header {
        push_int(&mut out, etc.tasks());
        out.push(b' ');
        push_int(&mut out, etc.machines());
        out.push(b'\n');
    }
    for &v in etc.values() {
        push_f64(&mut out, v);
        out.push(b'\n');
    }
    String::from_utf8(out).expect("digits, signs and points are ASCII")
}

/// Parses the CSV format.
pub fn parse_csv(file: &str, bytes: &[u8]) -> Result<EtcMatrix, ParseError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(bytes);
    let mut values: Vec<f64> = Vec::new();
    let mut machines: Option<usize> = None;
    let mut label_column = false;
    let mut rows = 0usize;
    let mut first = true;
    let mut last_line = 0;
    let mut record = csv::ByteRecord::new();
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            err(file, line, e.to_string())
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        last_line = line;
        let cells: Vec<&str> = record
            .iter()
            .map(|c| std::str::from_utf8(c).map_err(|_| err(file, line, "not UTF-8 text")))
            .collect::<Result<_, _>>()?;
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        if first {
            first = false;
            if cells.iter().any(|c| c.parse::<f64>().is_err()) {
                label_column = matches!(
                    cells[0].to_ascii_lowercase().as_str(),
                    "task" | "id" | "tasks"
                );
                let n = cells.len() - usize::from(label_column);
                if n == 0 {
                    return Err(err(file, line, "the header names no machine column"));
                }
                machines = Some(n);
                continue;
            }
        }
        let data = &cells[usize::from(label_column)..];
        let m = *machines.get_or_insert(data.len());
        if data.len() != m {
            return Err(err(
                file,
                line,
                format!(
                    "row has {} values, expected {m} (one per machine)",
                    data.len()
                ),
            ));
        }
        for (j, c) in data.iter().enumerate() {
            let v: f64 = c.parse().map_err(|_| {
                err(
                    file,
                    line,
                    format!("machine column {}: `{c}` is not a number", j + 1),
                )
            })?;
            if !v.is_finite() || v < 0.0 {
                return Err(err(
                    file,
                    line,
                    format!(
                        "machine column {}: ETC value `{c}` must be finite and non-negative",
                        j + 1
                    ),
                ));
            }
            if values.len() >= MAX_ENTRIES {
                return Err(err(file, line, "too many values"));
            }
            values.push(v);
        }
        rows += 1;
    }
    let Some(m) = machines.filter(|_| rows > 0) else {
        return Err(err(file, last_line, "no task rows"));
    };
    EtcMatrix::new(rows, m, values).map_err(|e| shape_error(file, last_line, e))
}

/// Writes the CSV format with a `task,m0,m1,...` header (values in shortest round-trip form,
/// as `format!("{v}")` writes them, without a string per value).
pub fn write_csv(etc: &EtcMatrix) -> String {
    let mut out = Vec::with_capacity(etc.values().len() * 20 + etc.machines() * 8 + 16);
    out.extend_from_slice(b"task");
    for j in 0..etc.machines() {
        out.extend_from_slice(b",m");
        push_int(&mut out, j);
    }
    out.push(b'\n');
    for i in 0..etc.tasks() {
        push_int(&mut out, i);
        for &v in etc.row(i) {
            out.push(b',');
            push_f64(&mut out, v);
        }
        out.push(b'\n');
    }
    String::from_utf8(out).expect("digits, signs and points are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn braun(text: &str) -> Result<EtcMatrix, String> {
        parse_braun("f", text.as_bytes(), None).map_err(|e| e.to_string())
    }

    #[test]
    fn braun_accepts_crlf_header_and_blank_lines() {
        let m = parse_braun("f", b"2 2\r\n1\r\n2.5\r\n\r\n3\r\n4e0\r\n\r\n", None).unwrap();
        assert_eq!((m.tasks(), m.machines()), (2, 2));
        assert_eq!(m.row(1), [3.0, 4.0]);
        let m = parse_braun("f", b"1 2 0\n1\n2\n", None).unwrap();
        assert_eq!(m.row(0), [1.0, 2.0]);
        let text: String = (0..32).map(|i| format!("{i}\n")).collect();
        let m = braun(&text).unwrap();
        assert_eq!((m.tasks(), m.machines()), (2, 16));
        let m = parse_braun("f", b"1\n2\n3\n", Some((1, 3))).unwrap();
        assert_eq!(m.row(0), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn braun_errors_name_file_and_line() {
        assert_eq!(
            braun("2 1\n1\nx\n").unwrap_err(),
            "f:3: `x` is not a number"
        );
        assert_eq!(
            braun("1 2\n1\n-2\n").unwrap_err(),
            "f:3: negative ETC value -2"
        );
        assert_eq!(
            braun("1 2\n1\nNaN\n").unwrap_err(),
            "f:3: ETC value `NaN` is not finite"
        );
        assert_eq!(
            braun("1 2\n1\ninf\n").unwrap_err(),
            "f:3: ETC value `inf` is not finite"
        );
        assert_eq!(
            braun("1 2\n1\n2\n3\n").unwrap_err(),
            "f:4: more values than the 2 the shape announces"
        );
        assert_eq!(
            braun("2 2\n1\n2\n3\n").unwrap_err(),
            "f:4: the file ends after 3 values; 2 tasks × 2 machines need 4"
        );
        assert!(
            braun("1\n2\n3\n")
                .unwrap_err()
                .starts_with("f:3: 3 values are not whole rows")
        );
        assert!(braun("").unwrap_err().starts_with("f: 0 values"));
        assert_eq!(
            braun("1 2\n1 2\n").unwrap_err(),
            "f:2: expected one value per line, found 2 (`1 2`)"
        );
        assert!(
            braun("99999999999 99999999999\n")
                .unwrap_err()
                .starts_with("f:1: header")
        );
        assert!(braun("0 4\n").unwrap_err().starts_with("f:1: header"));
        assert_eq!(
            parse_braun("f", b"1\n\xff\n", None)
                .unwrap_err()
                .to_string(),
            "f:2: not UTF-8 text"
        );
        assert!(
            parse_braun("f", b"2 2\n", Some((1, 4)))
                .unwrap_err()
                .to_string()
                .contains("header says 2 × 2")
        );
    }

    #[test]
    fn csv_reads_with_and_without_header() {
        let m = parse_csv("f", b"task,m0,m1\n0,1,2\n1, 3 ,4\n").unwrap();
        assert_eq!((m.tasks(), m.machines()), (2, 2));
        assert_eq!(m.row(1), [3.0, 4.0]);
        let m = parse_csv("f", b"# comment\n1,2,3\n4,5,6\n").unwrap();
        assert_eq!((m.tasks(), m.machines()), (2, 3));
        let m = parse_csv("f", b"R1,R2\n1,2\n").unwrap();
        assert_eq!(m.row(0), [1.0, 2.0]);
        let m2 = parse_csv("f", write_csv(&m).as_bytes()).unwrap();
        assert_eq!(m, m2);
    }

    #[test]
    fn csv_errors_name_file_and_line() {
        let e = |b: &[u8]| parse_csv("f", b).unwrap_err().to_string();
        assert_eq!(
            e(b"task,a,b\n0,1,2\n1,2\n"),
            "f:3: row has 1 values, expected 2 (one per machine)"
        );
        assert_eq!(
            e(b"1,2\n3,x\n"),
            "f:2: machine column 2: `x` is not a number"
        );
        assert_eq!(
            e(b"1,2\n3,-1\n"),
            "f:2: machine column 2: ETC value `-1` must be finite and non-negative"
        );
        assert_eq!(e(b"task,a\n"), "f:1: no task rows");
        assert_eq!(e(b""), "f: no task rows");
        assert_eq!(e(b"task\n0\n"), "f:1: the header names no machine column");
        assert_eq!(e(b"1,2\n\xff,1\n"), "f:2: not UTF-8 text");
    }

    #[test]
    fn braun_round_trip() {
        let m = EtcMatrix::from_rows(&[[0.1, 1e-300], [123456.789, 3.0]]).unwrap();
        for header in [true, false] {
            let text = write_braun(&m, header);
            let shape = (!header).then_some((2, 2));
            assert_eq!(parse_braun("f", text.as_bytes(), shape).unwrap(), m);
        }
    }
}
