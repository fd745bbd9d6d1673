//! Advance-reservation request streams and their CSV form.

use std::collections::HashSet;
use std::fmt;
use std::io::{Read, Write};
use std::path::Path;

use gridsched_geom::{Time, Window, time_tolerance};

/// One request: at `arrival` a job asks for `window.length` time units inside
/// `[window.ready, window.deadline]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    pub arrival: Time,
    pub window: Window,
}

/// The rules a stream must satisfy for an online scheduler with minimum job length `l_min` and
/// look-ahead (horizon) `horizon`: no job can be booked further than `horizon` ahead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestLimits {
    pub l_min: Time,
    pub horizon: Time,
}

impl Default for RequestLimits {
    /// Castillo ch. 3: `l_min = 1`, `L = 200`.
    fn default() -> Self {
        RequestLimits {
            l_min: 1.0,
            horizon: 200.0,
        }
    }
}

/// A problem in an input file, located by file and line.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    // Not `source`: the message already carries the I/O error (see `HarnessError::Io`).
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: String,
        line: u64,
        message: String,
    },
}

impl InputError {
    fn invalid(path: &str, line: u64, message: impl fmt::Display) -> Self {
        InputError::Invalid {
            path: path.to_string(),
            line,
            message: message.to_string(),
        }
    }
}

const COLUMNS: [&str; 5] = ["id", "arrival", "ready", "length", "deadline"];

/// How far out a request's times may lie, in units of its own length: 2^32. Times are `f64`;
/// at `t ≤ 2^32 · length` a time's rounding step is at most `length / 2^20`, so a job's start
/// and end stay apart and the feasibility tolerance (eight rounding steps) stays far below
/// the length. An arrival of 1e17 with a length of 5 used to give a booking whose start equals
/// its end.
pub const MAX_TIME_IN_LENGTHS: f64 = 4_294_967_296.0;

/// Validates one request against the stream rules; `previous_arrival` enforces order.
pub fn validate(
    arrival: Time,
    ready: Time,
    length: Time,
    deadline: Time,
    previous_arrival: Option<Time>,
    limits: &RequestLimits,
) -> Result<Request, String> {
    for (name, v) in [
        ("arrival", arrival),
        ("ready", ready),
        ("length", length),
        ("deadline", deadline),
    ] {
        if !v.is_finite() {
            return Err(format!("{name} must be a finite number, got {v}"));
        }
    }
    if arrival < 0.0 {
        return Err(format!(
            "arrival {arrival} is negative (servers start at time 0)"
        ));
    }
    if let Some(prev) = previous_arrival
        && arrival < prev
    {
        return Err(format!(
            "arrival {arrival} is earlier than the previous row's arrival {prev} (rows must be in arrival order)"
        ));
    }
    if ready < arrival {
        return Err(format!(
            "ready time {ready} is before the arrival time {arrival}"
        ));
    }
    if length <= 0.0 {
        return Err(format!("length must be positive, got {length}"));
    }
    if length < limits.l_min {
        return Err(format!(
            "length {length} is shorter than the minimum job length l_min = {}",
            limits.l_min
        ));
    }
    let latest = arrival.max(ready).max(deadline);
    if latest > MAX_TIME_IN_LENGTHS * length {
        return Err(format!(
            "time {latest} is beyond 2^32 × the length {length} = {}: that far out, a time \
             is not exact to a millionth of the job's length (its start and end could round \
             to the same number)",
            MAX_TIME_IN_LENGTHS * length
        ));
    }
    let tol = time_tolerance(deadline.abs().max(ready.abs()));
    if deadline + tol < ready + length {
        return Err(format!(
            "deadline {deadline} is before ready + length = {}",
            ready + length
        ));
    }
    if deadline > arrival + limits.horizon + tol {
        return Err(format!(
            "deadline {deadline} is beyond the look-ahead horizon: arrival + {} = {}",
            limits.horizon,
            arrival + limits.horizon
        ));
    }
    let window = Window::new(ready, length, deadline).map_err(|e| e.to_string())?;
    Ok(Request { arrival, window })
}

/// A validated request file: ids, source line numbers and requests, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestFile {
    pub ids: Vec<String>,
    /// 1-based line of each request in the file, for error messages.
    pub lines: Vec<u64>,
    pub requests: Vec<Request>,
}

/// Reads a request CSV (header `id,arrival,ready,length,deadline`, columns in any order) and
/// validates every row.
pub fn read_requests(path: &Path, limits: &RequestLimits) -> Result<RequestFile, InputError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| InputError::Io {
        path: name.clone(),
        error: source,
    })?;
    read_requests_from(file, &name, limits)
}

/// [`read_requests`] from any reader; `name` is used in error messages.
pub fn read_requests_from(
    reader: impl Read,
    name: &str,
    limits: &RequestLimits,
) -> Result<RequestFile, InputError> {
    let mut file = RequestFile::default();
    let stopped = read_rows(reader, name, limits, &mut file);
    // Duplicate ids are looked for once the rows are in (no copy of every id into a set while
    // reading); the first problem in file order is reported, as a row-by-row check would:
    // a duplicate on a row before the one that stopped the reading wins.
    let mut seen: HashSet<&str> = HashSet::with_capacity(file.ids.len());
    for (id, &line) in file.ids.iter().zip(&file.lines) {
        if !seen.insert(id.as_str()) {
            return Err(InputError::invalid(
                name,
                line,
                format!("duplicate id `{id}`"),
            ));
        }
    }
    match stopped {
        Err(e) => Err(e),
        Ok(()) => Ok(file),
    }
}

/// Reads and validates rows into `file` until the end or the first invalid row (returned);
/// ids are not checked for duplicates here.
fn read_rows(
    reader: impl Read,
    name: &str,
    limits: &RequestLimits,
    file: &mut RequestFile,
) -> Result<(), InputError> {
    // Fields are trimmed here (`str::trim`, what `Trim::All` applies to a `StringRecord`)
    // rather than by the reader, which would rebuild every record to trim it.
    let mut csv = csv::ReaderBuilder::new()
        .trim(csv::Trim::Headers)
        .comment(Some(b'#'))
        .flexible(true)
        .from_reader(reader);
    let header = csv.headers().map_err(|e| csv_error(name, 1, e))?.clone();
    let mut column = [usize::MAX; 5];
    for (i, h) in header.iter().enumerate() {
        match COLUMNS.iter().position(|c| *c == h) {
            Some(c) if column[c] == usize::MAX => column[c] = i,
            Some(_) => {
                return Err(InputError::invalid(
                    name,
                    1,
                    format!("duplicate column `{h}`"),
                ));
            }
            None => {
                return Err(InputError::invalid(
                    name,
                    1,
                    format!(
                        "unexpected column `{h}`; expected header {}",
                        COLUMNS.join(",")
                    ),
                ));
            }
        }
    }
    if let Some(c) = column.iter().position(|&i| i == usize::MAX) {
        return Err(InputError::invalid(
            name,
            1,
            format!(
                "missing column `{}`; expected header {}",
                COLUMNS[c],
                COLUMNS.join(",")
            ),
        ));
    }
    let mut record = csv::StringRecord::new();
    let mut previous = None;
    loop {
        let line_hint = csv.position().line();
        match csv.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(name, line_hint, e)),
        }
        let line = record.position().map_or(line_hint, |p| p.line());
        if record.len() != header.len() {
            return Err(InputError::invalid(
                name,
                line,
                format!("expected {} fields, found {}", header.len(), record.len()),
            ));
        }
        let id = record[column[0]].trim();
        if id.is_empty() {
            return Err(InputError::invalid(name, line, "empty id"));
        }
        let mut num = [0.0; 4];
        for (k, slot) in num.iter_mut().enumerate() {
            let field = record[column[k + 1]].trim();
            *slot = field.parse::<f64>().map_err(|_| {
                InputError::invalid(
                    name,
                    line,
                    format!("{}: `{field}` is not a number", COLUMNS[k + 1]),
                )
            })?;
        }
        let [arrival, ready, length, deadline] = num;
        let request = validate(arrival, ready, length, deadline, previous, limits)
            .map_err(|m| InputError::invalid(name, line, format!("request `{id}`: {m}")))?;
        previous = Some(arrival);
        file.ids.push(id.to_string());
        file.lines.push(line);
        file.requests.push(request);
    }
    Ok(())
}

fn csv_error(name: &str, line: u64, e: csv::Error) -> InputError {
    let line = e.position().map_or(line, |p| p.line());
    InputError::invalid(name, line, format!("malformed CSV: {}", e.kind_message()))
}

trait KindMessage {
    fn kind_message(&self) -> String;
}

impl KindMessage for csv::Error {
    fn kind_message(&self) -> String {
        match self.kind() {
            csv::ErrorKind::Utf8 { .. } => "invalid UTF-8".to_string(),
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => {
                format!("expected {expected_len} fields, found {len}")
            }
            _ => self.to_string(),
        }
    }
}

/// Writes requests as CSV with the header `id,arrival,ready,length,deadline` (ids `0..n`).
pub fn write_requests(out: impl Write, requests: &[Request]) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(COLUMNS)?;
    for (i, r) in requests.iter().enumerate() {
        w.write_record([
            i.to_string(),
            r.arrival.to_string(),
            r.window.ready.to_string(),
            r.window.length.to_string(),
            r.window.deadline.to_string(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reader before duplicate ids were checked after reading and fields were trimmed by
    /// hand: the reference for `read_requests_from`.
    fn reference_read(
        reader: impl Read,
        name: &str,
        limits: &RequestLimits,
    ) -> Result<RequestFile, InputError> {
        let mut csv = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .flexible(true)
            .from_reader(reader);
        let header = csv.headers().map_err(|e| csv_error(name, 1, e))?.clone();
        let mut column = [usize::MAX; 5];
        for (i, h) in header.iter().enumerate() {
            match COLUMNS.iter().position(|c| *c == h) {
                Some(c) if column[c] == usize::MAX => column[c] = i,
                Some(_) => {
                    return Err(InputError::invalid(
                        name,
                        1,
                        format!("duplicate column `{h}`"),
                    ));
                }
                None => {
                    return Err(InputError::invalid(
                        name,
                        1,
                        format!(
                            "unexpected column `{h}`; expected header {}",
                            COLUMNS.join(",")
                        ),
                    ));
                }
            }
        }
        if let Some(c) = column.iter().position(|&i| i == usize::MAX) {
            return Err(InputError::invalid(
                name,
                1,
                format!(
                    "missing column `{}`; expected header {}",
                    COLUMNS[c],
                    COLUMNS.join(",")
                ),
            ));
        }
        let mut file = RequestFile::default();
        let mut seen = HashSet::new();
        let mut record = csv::StringRecord::new();
        let mut previous = None;
        loop {
            let line_hint = csv.position().line();
            match csv.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => return Err(csv_error(name, line_hint, e)),
            }
            let line = record.position().map_or(line_hint, |p| p.line());
            if record.len() != header.len() {
                return Err(InputError::invalid(
                    name,
                    line,
                    format!("expected {} fields, found {}", header.len(), record.len()),
                ));
            }
            let id = record[column[0]].to_string();
            if id.is_empty() {
                return Err(InputError::invalid(name, line, "empty id"));
            }
            let mut num = [0.0; 4];
            for (k, slot) in num.iter_mut().enumerate() {
                let field = &record[column[k + 1]];
                *slot = field.parse::<f64>().map_err(|_| {
                    InputError::invalid(
                        name,
                        line,
                        format!("{}: `{field}` is not a number", COLUMNS[k + 1]),
                    )
                })?;
            }
            let [arrival, ready, length, deadline] = num;
            let request = validate(arrival, ready, length, deadline, previous, limits)
                .map_err(|m| InputError::invalid(name, line, format!("request `{id}`: {m}")))?;
            if !seen.insert(id.clone()) {
                return Err(InputError::invalid(
                    name,
                    line,
                    format!("duplicate id `{id}`"),
                ));
            }
            previous = Some(arrival);
            file.ids.push(id);
            file.lines.push(line);
            file.requests.push(request);
        }
        Ok(file)
    }

    /// Request files of mostly valid rows (arrivals in order, windows inside the horizon),
    /// some of them spoiled: duplicate ids (ids repeat often), a bad number, an arrival out of
    /// order, a short row; comments and blank lines between.
    fn request_file() -> impl Strategy<Value = String> {
        let pad =
            || prop::sample::select(vec!["", "", "", " ", "\t", "\u{a0}", "\u{2003}", " \u{b}"]);
        let id = prop_oneof![
            6 => (0u32..30).prop_map(|i| i.to_string()),
            1 => prop::sample::select(vec!["a", "b,c", "d\"e", "", " "]).prop_map(str::to_string),
        ];
        let row = (
            id,
            0u32..8,
            0u32..8,
            1u32..8,
            0u32..8,
            prop::collection::vec(pad(), 10),
            prop::bool::weighted(0.1),
            prop_oneof![
                16 => Just(None),
                1 => prop::sample::select(vec!["x", "", "NaN", "1e1", "-3", "inf", "1,2"])
                    .prop_map(Some),
            ],
            0usize..4,
        );
        let line = prop_oneof![
            14 => row.prop_map(Some),
            1 => Just(None),
        ];
        (
            prop::sample::select(vec![
                "id,arrival,ready,length,deadline",
                " id , arrival,ready ,length,deadline",
            ]),
            prop::collection::vec(line, 0..14),
            prop::sample::select(vec!["# a comment", "", "1,2,3"]),
        )
            .prop_map(|(header, rows, filler)| {
                let mut text = format!("{header}\n");
                let mut arrival = 0u32;
                for row in rows {
                    let Some((id, gap, ready, length, slack, pads, quoted, bad, which)) = row
                    else {
                        text.push_str(filler);
                        text.push('\n');
                        continue;
                    };
                    // Gaps of 0 keep arrivals equal; a gap of 7 goes back in time.
                    arrival = if gap == 7 {
                        arrival.saturating_sub(2)
                    } else {
                        arrival + gap
                    };
                    let a = f64::from(arrival) / 2.0;
                    let r = a + f64::from(ready) / 2.0;
                    let l = f64::from(length) / 4.0;
                    let d = r + l + f64::from(slack) / 2.0;
                    let mut fields = [
                        id,
                        a.to_string(),
                        r.to_string(),
                        l.to_string(),
                        d.to_string(),
                    ];
                    if let Some(bad) = bad {
                        fields[1 + which] = bad.to_string();
                    }
                    let cells: Vec<String> = fields
                        .iter()
                        .enumerate()
                        .map(|(k, f)| {
                            let padded = format!("{}{f}{}", pads[2 * k], pads[2 * k + 1]);
                            if quoted || padded.contains(',') {
                                format!("\"{}\"", padded.replace('"', "\"\""))
                            } else {
                                padded
                            }
                        })
                        .collect();
                    text.push_str(&cells.join(","));
                    text.push('\n');
                }
                text
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3_000))]

        #[test]
        fn reader_equals_the_reference(text in request_file()) {
            let limits = RequestLimits { l_min: 0.25, horizon: 8.0 };
            let got = read_requests_from(text.as_bytes(), "in.csv", &limits).map_err(|e| e.to_string());
            let want = reference_read(text.as_bytes(), "in.csv", &limits).map_err(|e| e.to_string());
            prop_assert_eq!(got, want, "{:?}", text);
        }
    }

    fn read(text: &str) -> Result<(Vec<String>, Vec<Request>), String> {
        read_requests_from(text.as_bytes(), "in.csv", &RequestLimits::default())
            .map(|f| (f.ids, f.requests))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_valid_stream_in_any_column_order() {
        let (ids, reqs) =
            read("id,arrival,ready,length,deadline\na,0,1,2,3\nb,0.5,0.5,1,1.5\n").unwrap();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(reqs[1].window.deadline, 1.5);
        let (_, reqs) = read("deadline,length,ready,arrival,id\n3,2,1,0,a\n").unwrap();
        assert_eq!(reqs[0].window.ready, 1.0);
    }

    #[test]
    fn exact_fit_with_rounding_is_valid() {
        let limits = RequestLimits {
            l_min: 0.1,
            horizon: 200.0,
        };
        let r = read_requests_from(
            "id,arrival,ready,length,deadline\nx,0,0.1,0.2,0.3\n".as_bytes(),
            "f",
            &limits,
        );
        assert!(r.is_ok(), "{r:?}");
    }

    /// An arrival of 1e17 with a length of 5 gave a booking whose start equals its end.
    #[test]
    fn times_too_far_out_for_the_length_are_refused() {
        let limits = RequestLimits {
            l_min: 1.0,
            horizon: f64::INFINITY,
        };
        let e = read_requests_from(
            "id,arrival,ready,length,deadline\na,0,0,5,20\nb,1e17,1e17,5,1e17\n".as_bytes(),
            "in.csv",
            &limits,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("in.csv:3: request `b`: time 100000000000000000 is beyond 2^32 × the length 5 = 21474836480"),
            "{e}"
        );
        // The limit itself.
        let edge = 4_294_967_296.0 * 5.0;
        let text = format!("id,arrival,ready,length,deadline\na,0,{edge},5,{edge}\n");
        assert!(read_requests_from(text.as_bytes(), "in.csv", &limits).is_err());
        let text = format!(
            "id,arrival,ready,length,deadline\na,0,{},5,{edge}\n",
            edge - 5.0
        );
        assert!(read_requests_from(text.as_bytes(), "in.csv", &limits).is_ok());
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases = [
            (
                "id,arrival,ready,length,deadline\na,0,1,2,3\nb,0,1,x,3\n",
                "in.csv:3: length: `x` is not a number",
            ),
            (
                "id,arrival,ready,length,deadline\na,1,1,2,3\nb,0,1,1,3\n",
                "in.csv:3: request `b`: arrival 0 is earlier",
            ),
            (
                "id,arrival,ready,length,deadline\na,1,0.5,2,3\n",
                "in.csv:2: request `a`: ready time 0.5 is before",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,-2,3\n",
                "in.csv:2: request `a`: length must be positive",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,0.5,3\n",
                "in.csv:2: request `a`: length 0.5 is shorter",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,2,2.5\n",
                "in.csv:2: request `a`: deadline 2.5 is before",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,2,300\n",
                "in.csv:2: request `a`: deadline 300 is beyond",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,2,3\na,0,1,2,3\n",
                "in.csv:3: duplicate id `a`",
            ),
            (
                "id,arrival,ready,length\na,0,1,2\n",
                "in.csv:1: missing column `deadline`",
            ),
            (
                "id,arrival,ready,length,deadline,x\n",
                "in.csv:1: unexpected column `x`",
            ),
            (
                "id,arrival,ready,length,deadline\na,0,1,2\n",
                "in.csv:2: expected 5 fields, found 4",
            ),
            (
                "id,arrival,ready,length,deadline\na,NaN,1,2,3\n",
                "in.csv:2: request `a`: arrival must be a finite",
            ),
            (
                "id,arrival,ready,length,deadline\n,0,1,2,3\n",
                "in.csv:2: empty id",
            ),
            (
                "id,arrival,ready,length,deadline\na,-1,1,2,3\n",
                "in.csv:2: request `a`: arrival -1 is negative",
            ),
            (
                "id,arrival,ready,length,deadline\n# a comment\na,0,1,2,3\nb,0,1,z,3\n",
                "in.csv:4: length: `z`",
            ),
        ];
        for (text, want) in cases {
            let err = read(text).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
        }
    }

    #[test]
    fn round_trip() {
        let (_, reqs) =
            read("id,arrival,ready,length,deadline\n0,0,1,2,3\n1,0.25,7.5,1.125,9\n").unwrap();
        let mut buf = Vec::new();
        write_requests(&mut buf, &reqs).unwrap();
        let (_, again) = read(std::str::from_utf8(&buf).unwrap()).unwrap();
        assert_eq!(reqs, again);
    }
}
