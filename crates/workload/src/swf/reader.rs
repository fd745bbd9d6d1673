//! Streaming reader of SWF records (plain text or gzip, detected by magic bytes).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

use super::header::{HeaderBuilder, SwfHeader};
use super::pipe::ThreadedReader;
use crate::requests::InputError;

/// One data line of an SWF log, field by field (SWF numbering in brackets). The archive writes
/// `-1` for "unknown"; every such field is an `Option` and `-1` (or any other negative value,
/// which the definition does not allow) reads as `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct SwfRecord {
    /// 1-based line number in the file.
    pub line: u64,
    /// \[1\] job number.
    pub job: u64,
    /// \[2\] submit time, seconds since the log's start.
    pub submit: Option<i64>,
    /// \[3\] wait time in the queue, seconds (the batch scheduler's own wait).
    pub wait: Option<i64>,
    /// \[4\] run time, seconds.
    pub run_time: Option<i64>,
    /// \[5\] allocated processors.
    pub allocated_procs: Option<u32>,
    /// \[6\] average CPU time used per processor, seconds (may be fractional).
    pub avg_cpu_time: Option<f64>,
    /// \[7\] used memory, KB per processor (may be fractional).
    pub used_memory: Option<f64>,
    /// \[8\] requested processors.
    pub requested_procs: Option<u32>,
    /// \[9\] requested (estimated) time, seconds.
    pub requested_time: Option<i64>,
    /// \[10\] requested memory, KB per processor.
    pub requested_memory: Option<f64>,
    /// \[11\] status: 1 completed, 0 failed, 5 cancelled, (2, 3, 4 for checkpoint parts).
    pub status: Option<i64>,
    /// \[12\] user id.
    pub user: Option<u32>,
    /// \[13\] group id.
    pub group: Option<u32>,
    /// \[14\] executable (application) number.
    pub executable: Option<u32>,
    /// \[15\] queue number.
    pub queue: Option<u32>,
    /// \[16\] partition number.
    pub partition: Option<u32>,
    /// \[17\] preceding job number.
    pub preceding_job: Option<u64>,
    /// \[18\] think time from the preceding job, seconds.
    pub think_time: Option<i64>,
}

impl SwfRecord {
    /// Processors the job used: allocated \[5\], or requested \[8\] when the allocation is unknown.
    pub fn procs(&self) -> Option<u32> {
        self.allocated_procs.or(self.requested_procs)
    }
}

/// SWF field names, 1-based (index 0 unused), for error messages.
pub const FIELD_NAMES: [&str; 19] = [
    "",
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// Opens `path` for reading, decompressing when it starts with the gzip magic bytes
/// (`1f 8b`), whatever its name.
///
/// With two or more cores available (`std::thread::available_parallelism`, which follows
/// `taskset` and cgroup quotas), a gzip file is inflated on a second thread while the caller
/// reads ([`ThreadedReader`]): the same bytes, split the same way, as on one thread.
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>, InputError> {
    let io = |source| InputError::Io {
        path: path.display().to_string(),
        error: source,
    };
    let file = File::open(path).map_err(io)?;
    let mut input = BufReader::with_capacity(1 << 16, file);
    if !is_gzip(input.fill_buf().map_err(io)?) {
        return Ok(Box::new(input));
    }
    let decoder = MultiGzDecoder::new(input);
    if std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) {
        Ok(Box::new(ThreadedReader::spawn(decoder).map_err(io)?))
    } else {
        Ok(Box::new(BufReader::with_capacity(
            super::pipe::BLOCK,
            decoder,
        )))
    }
}

fn is_gzip(head: &[u8]) -> bool {
    head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

/// Wraps `input` in a gzip decoder when its first bytes are the gzip magic number.
pub fn detect_gzip<R: BufRead + 'static>(mut input: R) -> std::io::Result<Box<dyn BufRead>> {
    if is_gzip(input.fill_buf()?) {
        Ok(Box::new(BufReader::with_capacity(
            super::pipe::BLOCK,
            MultiGzDecoder::new(input),
        )))
    } else {
        Ok(Box::new(input))
    }
}

/// Reads an SWF log record by record. The header (the leading `;` comments) is read on
/// construction; comment lines after the first record are skipped (and counted). Every error
/// names the file and line; after an error the iterator ends.
#[derive(Debug)]
pub struct SwfReader<R> {
    input: R,
    path: String,
    line: u64,
    header: SwfHeader,
    buf: Vec<u8>,
    pending: Option<Vec<u8>>,
    late_comments: u64,
    done: bool,
}

impl SwfReader<Box<dyn BufRead + Send>> {
    /// Opens a log file (plain or gzip) and reads its header.
    pub fn open(path: &Path) -> Result<Self, InputError> {
        let input = open_input(path)?;
        SwfReader::new(input, path.display().to_string())
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Reads the header from `input`; `path` names the input in errors.
    pub fn new(input: R, path: impl Into<String>) -> Result<Self, InputError> {
        let mut r = SwfReader {
            input,
            path: path.into(),
            line: 0,
            header: SwfHeader::default(),
            buf: Vec::with_capacity(256),
            pending: None,
            late_comments: 0,
            done: false,
        };
        let mut builder = HeaderBuilder::default();
        loop {
            if !r.read_line()? {
                break;
            }
            let text = trim_ascii(&r.buf);
            if text.is_empty() {
                continue;
            }
            if text[0] == b';' {
                builder.push(&String::from_utf8_lossy(&text[1..]), r.line);
                continue;
            }
            r.pending = Some(std::mem::take(&mut r.buf));
            break;
        }
        r.header = builder.finish();
        Ok(r)
    }

    /// The parsed header.
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// The number of the last line read.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The input's name as used in errors.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Comment lines met after the first record (skipped).
    pub fn late_comments(&self) -> u64 {
        self.late_comments
    }

    /// Reads one line into `buf` (without the newline); `false` at end of input.
    fn read_line(&mut self) -> Result<bool, InputError> {
        self.buf.clear();
        let n = match self.input.read_until(b'\n', &mut self.buf) {
            Ok(n) => n,
            Err(e) => return Err(self.read_error(e)),
        };
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        // A UTF-8 byte-order mark (editors on Windows write one) is not part of the first line.
        if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3);
        }
        Ok(true)
    }

    /// An I/O error while reading the next line.
    fn read_error(&self, e: std::io::Error) -> InputError {
        InputError::Invalid {
            path: self.path.clone(),
            line: self.line + 1,
            message: format!("read error: {e}"),
        }
    }

    fn error(&self, message: impl Into<String>) -> InputError {
        InputError::Invalid {
            path: self.path.clone(),
            line: self.line,
            message: message.into(),
        }
    }

    fn next_record(&mut self) -> Result<Option<SwfRecord>, InputError> {
        if let Some(p) = self.pending.take() {
            self.buf = p;
            if let Some(r) = self.record_in_buf() {
                return r.map(Some);
            }
        }
        loop {
            // A line that lies whole in the input's buffer is parsed where it is; one that
            // runs past the buffer's end (one per 64 KiB block) is copied into `buf` first.
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(e)),
            };
            if avail.is_empty() {
                return Ok(None);
            }
            let Some(end) = memchr::memchr(b'\n', avail) else {
                if !self.read_line()? {
                    return Ok(None);
                }
                match self.record_in_buf() {
                    Some(r) => return r.map(Some),
                    None => continue,
                }
            };
            self.line += 1;
            let text = trim_ascii(&avail[..end]);
            let parsed = match text.first() {
                None => None,
                Some(b';') => {
                    self.late_comments += 1;
                    None
                }
                Some(_) => Some(parse_record(text, self.line)),
            };
            self.input.consume(end + 1);
            if let Some(r) = parsed {
                return r.map(Some).map_err(|m| self.error(m));
            }
        }
    }

    /// The line in `buf` as a record, or `None` for a blank line or a comment (counted).
    fn record_in_buf(&mut self) -> Option<Result<SwfRecord, InputError>> {
        let text = trim_ascii(&self.buf);
        match text.first() {
            None => None,
            Some(b';') => {
                self.late_comments += 1;
                None
            }
            Some(_) => Some(parse_record(text, self.line).map_err(|m| self.error(m))),
        }
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<SwfRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// Parses one data line (18 whitespace-separated fields).
pub fn parse_record(text: &[u8], line: u64) -> Result<SwfRecord, String> {
    match parse_plain(text, line) {
        Some(r) => Ok(r),
        None => parse_general(text, line),
    }
}

/// Byte classes of [`parse_plain`]'s tokenizer: a digit's value, [`WS`] for the bytes
/// `u8::is_ascii_whitespace` accepts, [`OTHER`] for everything else.
const WS: u8 = 10;
const OTHER: u8 = 11;
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut d = 0;
    while d < 10 {
        t[b'0' as usize + d] = d as u8;
        d += 1;
    }
    t[b' ' as usize] = WS;
    t[b'\t' as usize] = WS;
    t[b'\n' as usize] = WS;
    t[0x0c] = WS;
    t[b'\r' as usize] = WS;
    t
};

/// The 0-based fields read as `f64` (SWF fields 6, 7 and 10).
const FRACTIONAL: [usize; 3] = [5, 6, 9];

/// 10^k as an `f64` (exact for every k here).
const POW10_F64: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The record of a line made only of what the archive's logs hold: 18 tokens, each 1 to 15
/// ASCII digits or `-1` (or, in the fractional fields, digits with one decimal point between
/// them), with a known job number and processor counts below 2^32. Anything
/// else is `None` and goes to [`parse_general`], which gives the same answer on these lines
/// (property tests below) and the error message on the others. Tokenizing and reading the
/// digits are one pass over the bytes, and nothing is looked up twice.
#[inline]
fn parse_plain(text: &[u8], line: u64) -> Option<SwfRecord> {
    let mut v = [0i64; 18];
    // The fractional fields (6, 7, 10) may also be `digits.digits` (HPC2N writes the average
    // CPU time so in a fifth of its lines), 15 digits at most in all: `scale` is 10^(digits
    // after the point).
    let mut scale = [1.0f64; 3];
    let n = text.len();
    let mut i = 0usize;
    for (f, slot) in v.iter_mut().enumerate() {
        while i < n && CLASS[text[i] as usize] == WS {
            i += 1;
        }
        if i == n {
            return None;
        }
        let start = i;
        if text[i] == b'-' {
            if text.get(i + 1) == Some(&b'1')
                && text.get(i + 2).is_none_or(|&c| CLASS[c as usize] == WS)
            {
                *slot = -1;
                i += 2;
                continue;
            }
            return None;
        }
        let mut x = 0i64;
        let mut point = None;
        while i < n {
            let c = CLASS[text[i] as usize];
            if c > 9 {
                if c == WS {
                    break;
                }
                let k = FRACTIONAL.iter().position(|&g| g == f)?;
                if text[i] != b'.' || point.is_some() || i == start {
                    return None;
                }
                point = Some((k, i));
                i += 1;
                continue;
            }
            if i - start - usize::from(point.is_some()) == 15 {
                // 16 digits or more: `str::parse` decides (and an `f64` may round).
                return None;
            }
            x = x * 10 + i64::from(c);
            i += 1;
        }
        if i == start {
            return None;
        }
        if let Some((k, at)) = point {
            let decimals = i - at - 1;
            if decimals == 0 {
                return None;
            }
            scale[k] = POW10_F64[decimals];
        }
        *slot = x;
    }
    if text[i..].iter().any(|&c| CLASS[c as usize] != WS) {
        return None;
    }
    let known = |x: i64| (x >= 0).then_some(x);
    let small = |x: i64| -> Option<Option<u32>> {
        if x < 0 {
            Some(None)
        } else {
            u32::try_from(x).ok().map(Some)
        }
    };
    // `x` < 10^15 < 2^53 and `s` ≤ 10^14 are exact, so the quotient is the correctly rounded
    // value of the decimal, which is what `str::parse` returns (Clinger's fast path).
    let float = |x: i64, s: f64| (x >= 0).then(|| x as f64 / s);
    if v[0] < 0 {
        return None;
    }
    Some(SwfRecord {
        line,
        job: v[0] as u64,
        submit: known(v[1]),
        wait: known(v[2]),
        run_time: known(v[3]),
        allocated_procs: small(v[4])?,
        avg_cpu_time: float(v[5], scale[0]),
        used_memory: float(v[6], scale[1]),
        requested_procs: small(v[7])?,
        requested_time: known(v[8]),
        requested_memory: float(v[9], scale[2]),
        status: known(v[10]),
        user: small(v[11])?,
        group: small(v[12])?,
        executable: small(v[13])?,
        queue: small(v[14])?,
        partition: small(v[15])?,
        preceding_job: known(v[16]).map(|x| x as u64),
        think_time: known(v[17]),
    })
}

/// [`parse_record`] for any line: every token through [`int`], [`small`] and [`float`], the
/// first bad field (in field order) named in the error.
fn parse_general(text: &[u8], line: u64) -> Result<SwfRecord, String> {
    let mut f: [&[u8]; 18] = [&[]; 18];
    let mut n = 0usize;
    // Fields are runs of non-whitespace (`u8::is_ascii_whitespace`) bytes.
    let mut i = 0usize;
    while i < text.len() {
        if text[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        if n < 18 {
            f[n] = &text[start..i];
        }
        n += 1;
    }
    if n != 18 {
        return Err(format!("expected 18 fields, found {n}"));
    }
    let job = int(f[0], 1)?.ok_or_else(|| "field 1 (job number) is unknown".to_string())?;
    Ok(SwfRecord {
        line,
        job: job as u64,
        submit: int(f[1], 2)?,
        wait: int(f[2], 3)?,
        run_time: int(f[3], 4)?,
        allocated_procs: small(f[4], 5)?,
        avg_cpu_time: float(f[5], 6)?,
        used_memory: float(f[6], 7)?,
        requested_procs: small(f[7], 8)?,
        requested_time: int(f[8], 9)?,
        requested_memory: float(f[9], 10)?,
        status: int(f[10], 11)?,
        user: small(f[11], 12)?,
        group: small(f[12], 13)?,
        executable: small(f[13], 14)?,
        queue: small(f[14], 15)?,
        partition: small(f[15], 16)?,
        preceding_job: int(f[16], 17)?.map(|v| v as u64),
        think_time: int(f[17], 18)?,
    })
}

fn field_error(tok: &[u8], field: usize, what: &str) -> String {
    let shown: String = String::from_utf8_lossy(tok).chars().take(40).collect();
    format!(
        "field {field} ({}): expected {what}, got `{shown}`",
        FIELD_NAMES[field]
    )
}

/// The value of a token of 1 to 15 ASCII digits (exact as an `f64` too), or `None`.
#[inline]
fn plain_digits(tok: &[u8]) -> Option<i64> {
    if tok.is_empty() || tok.len() > 15 {
        return None;
    }
    let mut v = 0i64;
    for &c in tok {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    Some(v)
}

/// An integer field; negative = unknown.
#[inline]
fn int(tok: &[u8], field: usize) -> Result<Option<i64>, String> {
    // Fast paths for what logs hold: plain digits, and `-1` for unknown; everything else
    // (signs, overflow, errors) is `str::parse`'s.
    if let Some(v) = plain_digits(tok) {
        return Ok(Some(v));
    }
    if tok == b"-1" {
        return Ok(None);
    }
    int_slow(tok, field)
}

fn int_slow(tok: &[u8], field: usize) -> Result<Option<i64>, String> {
    let s = std::str::from_utf8(tok).map_err(|_| field_error(tok, field, "an integer"))?;
    let v: i64 = s
        .parse()
        .map_err(|_| field_error(tok, field, "an integer"))?;
    Ok((v >= 0).then_some(v))
}

fn small(tok: &[u8], field: usize) -> Result<Option<u32>, String> {
    match int(tok, field)? {
        None => Ok(None),
        Some(v) => u32::try_from(v)
            .map(Some)
            .map_err(|_| field_error(tok, field, "a number below 2^32")),
    }
}

/// A possibly fractional field; negative = unknown.
#[inline]
fn float(tok: &[u8], field: usize) -> Result<Option<f64>, String> {
    // Plain digits read exactly as `str::parse::<f64>` reads them (at most 15 digits: below
    // 2^53); `-1` is unknown.
    if let Some(v) = plain_digits(tok) {
        return Ok(Some(v as f64));
    }
    if tok == b"-1" {
        return Ok(None);
    }
    float_slow(tok, field)
}

fn float_slow(tok: &[u8], field: usize) -> Result<Option<f64>, String> {
    let s = std::str::from_utf8(tok).map_err(|_| field_error(tok, field, "a number"))?;
    let v: f64 = s.parse().map_err(|_| field_error(tok, field, "a number"))?;
    if !v.is_finite() {
        return Err(field_error(tok, field, "a finite number"));
    }
    Ok((v >= 0.0).then_some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The parser before its fast paths (`str::parse` on every field, `split` + `filter`
    /// tokenizer): the reference for `parse_record`.
    fn reference_parse(text: &[u8], line: u64) -> Result<SwfRecord, String> {
        fn int(tok: &[u8], field: usize) -> Result<Option<i64>, String> {
            let s = std::str::from_utf8(tok).map_err(|_| field_error(tok, field, "an integer"))?;
            let v: i64 = s
                .parse()
                .map_err(|_| field_error(tok, field, "an integer"))?;
            Ok((v >= 0).then_some(v))
        }
        fn small(tok: &[u8], field: usize) -> Result<Option<u32>, String> {
            match int(tok, field)? {
                None => Ok(None),
                Some(v) => u32::try_from(v)
                    .map(Some)
                    .map_err(|_| field_error(tok, field, "a number below 2^32")),
            }
        }
        fn float(tok: &[u8], field: usize) -> Result<Option<f64>, String> {
            let s = std::str::from_utf8(tok).map_err(|_| field_error(tok, field, "a number"))?;
            let v: f64 = s.parse().map_err(|_| field_error(tok, field, "a number"))?;
            if !v.is_finite() {
                return Err(field_error(tok, field, "a finite number"));
            }
            Ok((v >= 0.0).then_some(v))
        }
        let mut f: [&[u8]; 18] = [&[]; 18];
        let mut n = 0usize;
        for tok in text
            .split(|c| c.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
        {
            if n < 18 {
                f[n] = tok;
            }
            n += 1;
        }
        if n != 18 {
            return Err(format!("expected 18 fields, found {n}"));
        }
        let job = int(f[0], 1)?.ok_or_else(|| "field 1 (job number) is unknown".to_string())?;
        Ok(SwfRecord {
            line,
            job: job as u64,
            submit: int(f[1], 2)?,
            wait: int(f[2], 3)?,
            run_time: int(f[3], 4)?,
            allocated_procs: small(f[4], 5)?,
            avg_cpu_time: float(f[5], 6)?,
            used_memory: float(f[6], 7)?,
            requested_procs: small(f[7], 8)?,
            requested_time: int(f[8], 9)?,
            requested_memory: float(f[9], 10)?,
            status: int(f[10], 11)?,
            user: small(f[11], 12)?,
            group: small(f[12], 13)?,
            executable: small(f[13], 14)?,
            queue: small(f[14], 15)?,
            partition: small(f[15], 16)?,
            preceding_job: int(f[16], 17)?.map(|v| v as u64),
            think_time: int(f[17], 18)?,
        })
    }

    /// Tokens as logs write them and as they should not: digits of every length (overflow
    /// included), signs, `-0`, leading zeros, fractions, exponents, `NaN`, `inf`, junk.
    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[0-9]{1,20}",
            2 => Just("-1".to_string()),
            1 => "[+-][0-9]{0,20}",
            1 => "-?[0-9]{0,5}\\.[0-9]{0,5}",
            1 => "[0-9]{1,3}[eE][+-]?[0-9]{1,3}",
            1 => prop::sample::select(vec![
                "NaN", "inf", "-inf", "+", "-", "-0", "+0", "0", "00", "4294967295",
                "4294967296", "9223372036854775807", "9223372036854775808", "999999999999999",
                "1000000000000000", "1.5", "x", "\u{e9}",
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]

        #[test]
        fn parse_record_equals_the_reference(
            tokens in prop::collection::vec(token(), 16..20),
            seps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\t", " \x0c", "\r "]), 20),
            lead in prop::sample::select(vec!["", " ", "\t"]),
        ) {
            let mut line = lead.to_string();
            for (t, sep) in tokens.iter().zip(&seps) {
                line.push_str(t);
                line.push_str(sep);
            }
            prop_assert_eq!(
                parse_record(line.as_bytes(), 3),
                reference_parse(line.as_bytes(), 3),
                "{:?}", line
            );
        }

        /// Mostly well-formed records (the common case the fast paths serve).
        #[test]
        fn valid_records_equal_the_reference(
            tokens in prop::collection::vec(
                prop_oneof![
                    6 => "[0-9]{1,16}",
                    3 => Just("-1".to_string()),
                    1 => prop::sample::select(vec!["-0", "+7", "0007", "-2", "0.5"])
                        .prop_map(str::to_string),
                ],
                18,
            ),
        ) {
            let line = tokens.join(" ");
            prop_assert_eq!(
                parse_record(line.as_bytes(), 9),
                reference_parse(line.as_bytes(), 9),
                "{:?}", line
            );
        }
    }

    #[test]
    fn unknowns_are_none() {
        let r = parse_record(
            b"   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1",
            7,
        )
        .unwrap();
        assert_eq!(r.job, 15);
        assert_eq!(r.submit, Some(599_850));
        assert_eq!(r.wait, Some(192_180));
        assert_eq!(r.run_time, Some(3477));
        assert_eq!(r.allocated_procs, Some(4));
        assert_eq!(r.avg_cpu_time, None);
        assert_eq!(r.requested_time, Some(53_940));
        assert_eq!(r.queue, None);
        assert_eq!(r.line, 7);
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_record(b"1 2 3", 1).unwrap_err();
        assert!(e.contains("expected 18 fields, found 3"), "{e}");
        let e = parse_record(b"1 2 x 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", 1).unwrap_err();
        assert!(e.contains("field 3 (wait time)"), "{e}");
        let e = parse_record(b"1 2 3 4 5 6.5 7 8 9 10 11 12 13 14 15 16 17 1.5", 1).unwrap_err();
        assert!(e.contains("field 18"), "{e}");
        let e = parse_record(b"1 2 3 4 5 NaN 7 8 9 10 11 12 13 14 15 16 17 18", 1).unwrap_err();
        assert!(e.contains("field 6"), "{e}");
    }

    /// The reader before lines were parsed in the input's buffer: every line copied with
    /// `read_until`, the header and the records read as `SwfReader` read them then. Returns
    /// the header, every record or error (as text; the reader stops at the first), and the
    /// late comments.
    fn reference_read(mut input: impl BufRead) -> (SwfHeader, Vec<Result<SwfRecord, String>>, u64) {
        let mut line = 0u64;
        let mut buf = Vec::new();
        let mut read_line = |buf: &mut Vec<u8>, line: &mut u64| -> Result<bool, String> {
            buf.clear();
            let n = input
                .read_until(b'\n', buf)
                .map_err(|e| format!("t.swf:{}: read error: {e}", *line + 1))?;
            if n == 0 {
                return Ok(false);
            }
            *line += 1;
            if *line == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                buf.drain(..3);
            }
            Ok(true)
        };
        let mut out = Vec::new();
        let mut builder = HeaderBuilder::default();
        let mut pending = None;
        loop {
            match read_line(&mut buf, &mut line) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    // `SwfReader::new` fails: no header, no record.
                    return (SwfHeader::default(), vec![Err(e)], 0);
                }
            }
            let text = buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            if text[0] == b';' {
                builder.push(&String::from_utf8_lossy(&text[1..]), line);
                continue;
            }
            pending = Some(buf.clone());
            break;
        }
        let header = builder.finish();
        let mut late = 0;
        loop {
            if let Some(p) = pending.take() {
                buf = p;
            } else {
                match read_line(&mut buf, &mut line) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        out.push(Err(e));
                        break;
                    }
                }
            }
            let text = buf.trim_ascii();
            if text.is_empty() {
                continue;
            }
            if text[0] == b';' {
                late += 1;
                continue;
            }
            match parse_general(text, line) {
                Ok(r) => out.push(Ok(r)),
                Err(m) => {
                    out.push(Err(format!("t.swf:{line}: {m}")));
                    break;
                }
            }
        }
        (header, out, late)
    }

    /// What `SwfReader` reads from `input`, in `reference_read`'s terms.
    fn new_read(input: impl BufRead) -> (SwfHeader, Vec<Result<SwfRecord, String>>, u64) {
        match SwfReader::new(input, "t.swf") {
            Err(e) => (SwfHeader::default(), vec![Err(e.to_string())], 0),
            Ok(mut r) => {
                let records: Vec<_> = r.by_ref().map(|x| x.map_err(|e| e.to_string())).collect();
                (r.header().clone(), records, r.late_comments())
            }
        }
    }

    /// Lines as logs have them and as they should not: records (plain, with decimals, with
    /// junk), comments, blank lines, CRLF endings, a byte-order mark, a last line without
    /// its newline.
    fn log_text() -> impl Strategy<Value = Vec<u8>> {
        let record = prop::collection::vec(
            prop_oneof![
                6 => "[0-9]{1,7}",
                3 => Just("-1".to_string()),
                1 => "[0-9]{1,4}\\.[0-9]{1,3}",
                1 => token(),
            ],
            17..20,
        )
        .prop_map(|t| t.join("  "));
        let line = prop_oneof![
            8 => record,
            1 => Just(String::new()),
            1 => Just("   ".to_string()),
            1 => "; [A-Za-z]{1,8}: [0-9]{1,4}",
            1 => Just(";".to_string()),
        ];
        (
            prop::bool::ANY,
            prop::collection::vec((line, prop::sample::select(vec!["\n", "\r\n"])), 0..40),
            prop::bool::ANY,
        )
            .prop_map(|(bom, lines, last_newline)| {
                let mut text = if bom {
                    "\u{feff}".to_string()
                } else {
                    String::new()
                };
                for (l, end) in &lines {
                    text.push_str(l);
                    text.push_str(end);
                }
                if !last_newline && text.ends_with('\n') {
                    text.pop();
                }
                text.into_bytes()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Records parsed in the input's buffer (and, for a line that runs past the buffer's
        /// end, copied first) are what the line-by-line reader read: same header, records,
        /// errors with their lines, late comments; for every buffer size down to one byte.
        #[test]
        fn in_place_lines_equal_the_line_by_line_reader(
            text in log_text(),
            capacity in prop_oneof![1usize..8, 8usize..200, Just(1 << 16)],
        ) {
            let expected = reference_read(std::io::BufReader::with_capacity(capacity, &text[..]));
            let got = new_read(std::io::BufReader::with_capacity(capacity, &text[..]));
            prop_assert_eq!(got, expected);
        }

        /// Fractional fields written `digits.digits` read as `str::parse` reads them.
        #[test]
        fn decimals_equal_the_reference(
            ints in prop::collection::vec("[0-9]{1,9}", 18),
            decimals in prop::collection::vec("[0-9]{1,8}\\.[0-9]{1,9}", 3),
        ) {
            let mut tokens = ints;
            for (k, d) in FRACTIONAL.iter().zip(decimals) {
                tokens[*k] = d;
            }
            let line = tokens.join(" ");
            prop_assert_eq!(
                parse_record(line.as_bytes(), 2),
                reference_parse(line.as_bytes(), 2),
                "{:?}", line
            );
        }
    }

    /// A gzip stream of `text`.
    fn gzip(text: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text).unwrap();
        gz.finish().unwrap()
    }

    /// A log of `n` records with decimals and comments, some 6 MB for n = 60,000.
    fn long_log(n: usize) -> Vec<u8> {
        let mut text = String::from("; MaxProcs: 64\n");
        for k in 0..n {
            text.push_str(&format!(
                "{k} {} 5 {} 4 {}.{} -1 4 100 -1 1 {} 1 -1 -1 -1 -1 -1\n",
                k * 3,
                k % 97 + 1,
                k % 13,
                k % 7,
                k % 5
            ));
            if k % 1000 == 999 {
                text.push_str("; a comment\n");
            }
        }
        text.into_bytes()
    }

    /// The inflating thread gives what the decoder read on the caller's thread gives: the
    /// same records, and for a truncated or corrupted stream the same error at the same line.
    #[test]
    fn threaded_inflate_equals_same_thread_inflate() {
        let text = long_log(60_000);
        let good = gzip(&text);
        let mut cases = vec![good.clone()];
        for cut in [good.len() / 3, good.len() / 2, good.len() - 5, 30] {
            cases.push(good[..cut].to_vec());
        }
        for at in [good.len() / 4, good.len() / 2, good.len() * 9 / 10] {
            let mut bad = good.clone();
            for b in &mut bad[at..at + 16] {
                *b ^= 0x5a;
            }
            cases.push(bad);
        }
        for (i, bytes) in cases.into_iter().enumerate() {
            let same_thread = new_read(detect_gzip(std::io::Cursor::new(bytes.clone())).unwrap());
            let threaded = new_read(
                ThreadedReader::spawn(MultiGzDecoder::new(std::io::BufReader::new(
                    std::io::Cursor::new(bytes),
                )))
                .unwrap(),
            );
            assert_eq!(threaded, same_thread, "case {i}");
            if i == 0 {
                assert_eq!(threaded.1.len(), 60_000);
                assert!(threaded.1.iter().all(Result::is_ok));
            } else {
                let last = threaded.1.last().unwrap();
                assert!(
                    last.as_ref().is_err_and(|e| e.starts_with("t.swf:")),
                    "case {i}: {last:?}"
                );
            }
        }
        // And through `open_input` on a file, as `load_swf` reads.
        let dir = std::env::temp_dir().join(format!("swf-pipe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.swf.gz");
        std::fs::write(&path, &good).unwrap();
        let from_file = new_read(open_input(&path).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(from_file, new_read(&text[..]));
    }

    /// A reader dropped before the end (a record limit) stops the inflating thread.
    #[test]
    fn dropping_the_threaded_reader_early_is_fine() {
        let good = gzip(&long_log(60_000));
        for _ in 0..20 {
            let mut r = SwfReader::new(
                ThreadedReader::spawn(MultiGzDecoder::new(std::io::Cursor::new(good.clone())))
                    .unwrap(),
                "t.swf",
            )
            .unwrap();
            assert_eq!(r.next().unwrap().unwrap().job, 0);
        }
    }

    #[test]
    fn reader_reads_header_then_records_and_reports_lines() {
        let text = "; MaxProcs: 4\n;\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\n; late\n2 5 0 10 oops\n";
        let mut r = SwfReader::new(text.as_bytes(), "t.swf").unwrap();
        assert_eq!(r.header().max_procs, Some(4));
        assert_eq!(r.next().unwrap().unwrap().job, 1);
        let e = r.next().unwrap().unwrap_err().to_string();
        assert!(e.starts_with("t.swf:6: expected 18 fields"), "{e}");
        assert!(r.next().is_none());
        assert_eq!(r.late_comments(), 1);
    }
}
