//! Streaming reader of SWF records (plain text or gzip, detected by magic bytes).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

use super::header::{HeaderBuilder, SwfHeader};
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
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead>, InputError> {
    let file = File::open(path).map_err(|source| InputError::Io {
        path: path.display().to_string(),
        error: source,
    })?;
    detect_gzip(BufReader::with_capacity(1 << 16, file)).map_err(|source| InputError::Io {
        path: path.display().to_string(),
        error: source,
    })
}

/// Wraps `input` in a gzip decoder when its first bytes are the gzip magic number.
pub fn detect_gzip<R: BufRead + 'static>(mut input: R) -> std::io::Result<Box<dyn BufRead>> {
    let head = input.fill_buf()?;
    if head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
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

impl SwfReader<Box<dyn BufRead>> {
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
        let n = self
            .input
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| InputError::Invalid {
                path: self.path.clone(),
                line: self.line + 1,
                message: format!("read error: {e}"),
            })?;
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

    fn error(&self, message: impl Into<String>) -> InputError {
        InputError::Invalid {
            path: self.path.clone(),
            line: self.line,
            message: message.into(),
        }
    }

    fn next_record(&mut self) -> Result<Option<SwfRecord>, InputError> {
        loop {
            if let Some(p) = self.pending.take() {
                self.buf = p;
            } else if !self.read_line()? {
                return Ok(None);
            }
            let text = trim_ascii(&self.buf);
            if text.is_empty() {
                continue;
            }
            if text[0] == b';' {
                self.late_comments += 1;
                continue;
            }
            return parse_record(text, self.line)
                .map(Some)
                .map_err(|m| self.error(m));
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
