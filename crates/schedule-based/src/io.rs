//! A user's own grid and jobs as CSV files, and the paper's workload written as them.
//!
//! - machines: header `id,cpus,speed` (one row per machine, ids unique; speeds relative to the
//!   reference speed the job lengths are given at);
//! - jobs: header `id,submit,cpus,length` and an optional `deadline` column (empty = none);
//!   times in seconds (decimals allowed, kept to the millisecond), `length` on a machine of
//!   the reference speed.
//!
//! Every row is checked (positive CPUs and length, at most [`MAX_CAPACITY`] CPUs per machine,
//! deadline not before submit, a job no wider than the widest machine, unique ids, known
//! columns); an error names the file and line.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::path::Path;

use gridsched_batch::{Job, MAX_CAPACITY, Machine};
use gridsched_sim::{MAX_SECONDS, MAX_SECONDS_TEXT};

use crate::Time;
use crate::workload::MS;

/// A bad input file: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", at_line(*.line))]
pub struct InputError {
    pub file: String,
    /// 1-based; the header is line 1. 0: the file as a whole (it could not be read).
    pub line: usize,
    pub message: String,
}

/// A machine row: its id and the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineRow {
    pub id: String,
    pub machine: Machine,
}

/// `:N` for a line, nothing for the whole file.
fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

fn read_text(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| InputError {
        file: path.display().to_string(),
        line: 0,
        message: e.to_string(),
    })
}

/// The column index of each required then optional name, and the (line number, fields) rows.
type Table<'a> = (Vec<Option<usize>>, Vec<(usize, Vec<&'a str>)>);

/// Splits the CSV into (line number, fields) rows after checking the header against the
/// required and optional columns; returns the column index of each name.
fn rows<'a>(
    text: &'a str,
    file: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<Table<'a>, InputError> {
    let err = |line: usize, message: String| InputError {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}').trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (hline, header) = lines.next().ok_or_else(|| err(1, "empty file".into()))?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    for n in &names {
        if !required.contains(n) && !optional.contains(n) {
            return Err(err(
                hline,
                format!(
                    "unknown column `{n}`; expected {}{}",
                    required.join(","),
                    if optional.is_empty() {
                        String::new()
                    } else {
                        format!(" and optionally {}", optional.join(","))
                    }
                ),
            ));
        }
    }
    let mut index = Vec::new();
    for r in required {
        index.push(Some(
            names
                .iter()
                .position(|n| n == r)
                .ok_or_else(|| err(hline, format!("missing column `{r}`")))?,
        ));
    }
    for o in optional {
        index.push(names.iter().position(|n| n == o));
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        let fields: Vec<&str> = l.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(err(
                i,
                format!("{} fields, the header has {}", fields.len(), names.len()),
            ));
        }
        out.push((i, fields));
    }
    Ok((index, out))
}

/// Reads a machines file.
pub fn read_machines(path: &Path) -> Result<Vec<MachineRow>, InputError> {
    let file = path.display().to_string();
    parse_machines(&read_text(path)?, &file)
}

/// Parses a machines file's text (`file` names it in errors).
pub fn parse_machines(text: &str, file: &str) -> Result<Vec<MachineRow>, InputError> {
    let (ix, rows) = rows(text, file, &["id", "cpus", "speed"], &[])?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (line, f) in rows {
        let err = |message: String| InputError {
            file: file.to_string(),
            line,
            message,
        };
        let id = f[ix[0].expect("required")].to_string();
        let positive = |name: &str, v: &str| -> Result<u32, InputError> {
            v.parse::<u32>().ok().filter(|&x| x > 0).ok_or_else(|| {
                err(format!(
                    "machine `{id}`: {name} `{v}` must be a positive whole number"
                ))
            })
        };
        let cpus = positive("cpus", f[ix[1].expect("required")])?;
        if cpus > MAX_CAPACITY {
            return Err(err(format!(
                "machine `{id}`: cpus {cpus} is too large: a machine has at most {MAX_CAPACITY}"
            )));
        }
        let speed = positive("speed", f[ix[2].expect("required")])?;
        if !seen.insert(id.clone()) {
            return Err(err(format!("duplicate machine id `{id}`")));
        }
        out.push(MachineRow {
            id,
            machine: Machine { cpus, speed },
        });
    }
    if out.is_empty() {
        return Err(InputError {
            file: file.to_string(),
            line: 1,
            message: "no machines".into(),
        });
    }
    Ok(out)
}

/// Seconds (decimals allowed) to whole milliseconds; `None` if `v` is not a finite number, an
/// error (the rest of a message) if it is beyond [`MAX_SECONDS`] either way: milliseconds
/// would overflow or be cut, and the simulation adds times up.
fn seconds(v: &str) -> Result<Option<Time>, String> {
    let Some(x) = v.parse::<f64>().ok().filter(|x| x.is_finite()) else {
        return Ok(None);
    };
    if x.abs() > MAX_SECONDS as f64 {
        return Err(format!(
            "{v} s is beyond {MAX_SECONDS_TEXT}, the longest time the model represents exactly"
        ));
    }
    Ok(Some((x * MS as f64).round() as Time))
}

/// Reads a jobs file, checking every job against the machines (`widest` CPUs).
pub fn read_jobs(path: &Path, widest: u32) -> Result<Vec<Job>, InputError> {
    let file = path.display().to_string();
    parse_jobs(&read_text(path)?, &file, widest)
}

/// Parses a jobs file's text; job ids must be whole numbers (they identify output rows).
pub fn parse_jobs(text: &str, file: &str, widest: u32) -> Result<Vec<Job>, InputError> {
    let (ix, rows) = rows(
        text,
        file,
        &["id", "submit", "cpus", "length"],
        &["deadline"],
    )?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (line, f) in rows {
        let err = |message: String| InputError {
            file: file.to_string(),
            line,
            message,
        };
        let raw_id = f[ix[0].expect("required")];
        let id: u64 = raw_id
            .parse()
            .map_err(|_| err(format!("job id `{raw_id}` must be a whole number")))?;
        let submit = seconds(f[ix[1].expect("required")])
            .map_err(|m| err(format!("job {id}: submit time {m}")))?
            .filter(|&s| s >= 0)
            .ok_or_else(|| {
                err(format!(
                    "job {id}: submit time must be a number of seconds >= 0"
                ))
            })?;
        let cpus: u32 = f[ix[2].expect("required")]
            .parse()
            .ok()
            .filter(|&c| c > 0)
            .ok_or_else(|| err(format!("job {id}: cpus must be a positive whole number")))?;
        let length = seconds(f[ix[3].expect("required")])
            .map_err(|m| err(format!("job {id}: length {m}")))?
            .filter(|&l| l > 0)
            .ok_or_else(|| {
                err(format!(
                    "job {id}: length must be a positive number of seconds"
                ))
            })?;
        if cpus > widest {
            return Err(err(format!(
                "job {id} needs {cpus} CPUs; the widest machine has {widest}"
            )));
        }
        let mut job = Job::new(id, submit, cpus, length);
        if let Some(c) = ix[4] {
            let v = f[c];
            if !v.is_empty() {
                let d = seconds(v)
                    .map_err(|m| err(format!("job {id}: deadline {m}")))?
                    .ok_or_else(|| {
                        err(format!(
                            "job {id}: deadline `{v}` is not a number of seconds"
                        ))
                    })?;
                if d < submit {
                    return Err(err(format!(
                        "job {id}: deadline {v} s is before its submit time"
                    )));
                }
                job = job.deadline(d);
            }
        }
        if !seen.insert(id) {
            return Err(err(format!("duplicate job id {id}")));
        }
        out.push(job);
    }
    Ok(out)
}

/// Seconds with millisecond precision, as the files write them.
pub fn format_seconds(t: Time) -> String {
    Seconds(t).to_string()
}

/// A time written as [`format_seconds`] writes it, formatted in place (a row writer puts it
/// straight into its buffer, without a string per field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Time);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        if t % MS == 0 {
            write!(f, "{}", t / MS)
        } else {
            write!(f, "{:.3}", t as f64 / MS as f64)
        }
    }
}

/// An optional time: [`Seconds`], or an empty field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaybeSeconds(pub Option<Time>);

impl fmt::Display for MaybeSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.map_or(Ok(()), |t| Seconds(t).fmt(f))
    }
}

/// A machines file: `id,cpus,speed`, ids `0..`.
pub fn write_machines(machines: &[Machine]) -> String {
    let mut s = String::from("id,cpus,speed\n");
    for (i, m) in machines.iter().enumerate() {
        writeln!(s, "{i},{},{}", m.cpus, m.speed).expect("writing to a String");
    }
    s
}

/// A jobs file: `id,submit,cpus,length,deadline`, in seconds.
pub fn write_jobs(jobs: &[Job]) -> String {
    let mut s = String::from("id,submit,cpus,length,deadline\n");
    for j in jobs {
        writeln!(
            s,
            "{},{},{},{},{}",
            j.id,
            Seconds(j.submit),
            j.procs,
            Seconds(j.run),
            MaybeSeconds(j.deadline)
        )
        .expect("writing to a String");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_written_with_milliseconds_only_when_needed() {
        assert_eq!(Seconds(2 * MS).to_string(), "2");
        assert_eq!(Seconds(2_512 * MS / 1_000).to_string(), "2.512");
        assert_eq!(Seconds(-MS / 2).to_string(), "-0.500");
        assert_eq!(
            MaybeSeconds(Some(788_450 * MS / 1_000)).to_string(),
            "788.450"
        );
        assert_eq!(MaybeSeconds(None).to_string(), "");
        assert_eq!(format_seconds(5 * MS + 1), "5.001");
    }

    const M: &str = "id,cpus,speed\na,4,200\nb,8,400\n";

    #[test]
    fn files_round_trip_and_bad_rows_name_their_line() {
        let ms = parse_machines(M, "m.csv").unwrap();
        assert_eq!(
            ms[1].machine,
            Machine {
                cpus: 8,
                speed: 400
            }
        );
        let jobs = parse_jobs(
            "id,submit,cpus,length,deadline\n1,0,2,10.5,30\n2,1.25,8,20,\n",
            "j.csv",
            8,
        )
        .unwrap();
        assert_eq!((jobs[0].run, jobs[0].deadline), (10_500, Some(30_000)));
        assert_eq!((jobs[1].submit, jobs[1].deadline), (1_250, None));
        assert_eq!(parse_jobs(&write_jobs(&jobs), "x", 8).unwrap(), jobs);
        let e = |text: &str| parse_jobs(text, "j.csv", 8).unwrap_err().to_string();
        assert_eq!(
            e("id,submit,cpus,length\n1,0,9,10\n"),
            "j.csv:2: job 1 needs 9 CPUs; the widest machine has 8"
        );
        assert!(e("id,submit,cpus,length\n1,0,1,-5\n").contains("j.csv:2: job 1: length"));
        // 1e300 was cut to i64::MAX ms (length) or never ran (submit).
        assert_eq!(
            e("id,submit,cpus,length\n1,0,1,1e300\n"),
            "j.csv:2: job 1: length 1e300 s is beyond 10^12 s (about 31,700 years), the longest time the model represents exactly"
        );
        assert!(
            e("id,submit,cpus,length\n1,1e300,1,5\n")
                .contains("job 1: submit time 1e300 s is beyond")
        );
        assert!(
            e("id,submit,cpus,length,deadline\n1,0,1,5,1e13\n")
                .contains("job 1: deadline 1e13 s is beyond")
        );
        let edge = parse_jobs("id,submit,cpus,length\n1,1e12,1,1e12\n", "j.csv", 8).unwrap();
        assert_eq!(
            (edge[0].submit, edge[0].run),
            (MAX_SECONDS * MS, MAX_SECONDS * MS)
        );
        assert!(
            e("id,submit,cpus,length,deadline\n1,10,1,5,3\n").contains("before its submit time")
        );
        assert!(e("id,submit,cpus,length,prio\n").starts_with("j.csv:1: unknown column `prio`"));
        assert!(e("id,submit,cpus\n").contains("missing column `length`"));
        assert!(
            e("id,submit,cpus,length\n1,0,1,5\n1,2,1,5\n").contains("j.csv:3: duplicate job id 1")
        );
        assert!(e("id,submit,cpus,length\n1,0,1\n").contains("j.csv:2: 3 fields"));
        let e = parse_machines("id,cpus,speed\na,0,200\n", "m.csv").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(parse_machines("id,cpus,speed\na,268435456,1\n", "m.csv").is_ok());
        assert_eq!(
            parse_machines("id,cpus,speed\na,4,1\nb,300000000,1\n", "m.csv")
                .unwrap_err()
                .to_string(),
            "m.csv:3: machine `b`: cpus 300000000 is too large: a machine has at most 268435456"
        );
        assert!(parse_machines("id,cpus,speed\n", "m.csv").is_err());
        assert!(
            parse_machines("id,cpus,speed\na,1,1\na,2,2\n", "m.csv")
                .unwrap_err()
                .to_string()
                .contains("duplicate machine id `a`")
        );
    }
}
