//! The one error type of the crate: every failure names the file (or the generator) and the
//! element it is about.

use std::fmt;

/// Where in its source an element was found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Location {
    /// Built in code (a generator, [`merge`](crate::merge()), a [`WorkflowBuilder`](crate::WorkflowBuilder)
    /// caller that gave no position).
    #[default]
    None,
    /// An XML element: 1-based line and column and the 0-based byte offset of its `<`.
    Xml { line: u32, column: u32, byte: u64 },
    /// A JSON value, by path from the document root: `workflow.specification.tasks[12].parents[0]`.
    Json { path: String },
    /// A position in a text without element structure (a JSON syntax error): 1-based line and column.
    Text { line: u32, column: u32 },
}

impl Location {
    /// The XML location of byte `offset` in `text`: counts lines and columns up to it (only called
    /// on error paths and for the locations kept per task, never per byte of input).
    pub fn xml(text: &[u8], offset: u64) -> Location {
        let at = (offset as usize).min(text.len());
        let before = &text[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        // Column in characters, not bytes (UTF-8 continuation bytes do not count).
        let column = before[line_start..]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count()
            + 1;
        Location::Xml {
            line: clamp_u32(line),
            column: clamp_u32(column),
            byte: offset,
        }
    }

    /// A JSON path location.
    pub fn json(path: impl Into<String>) -> Location {
        Location::Json { path: path.into() }
    }
}

/// Turns increasing byte offsets into XML locations in `O(total length)` (each call scans only
/// the bytes since the previous one; an earlier offset restarts from the top).
#[derive(Debug)]
pub(crate) struct LineCounter<'a> {
    text: &'a [u8],
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Self {
        LineCounter {
            text,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    pub(crate) fn locate(&mut self, offset: u64) -> Location {
        let at = (offset as usize).min(self.text.len());
        if at < self.offset {
            *self = LineCounter::new(self.text);
        }
        for &b in &self.text[self.offset..at] {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if (b & 0xC0) != 0x80 {
                self.column += 1;
            }
        }
        self.offset = at;
        Location::Xml {
            line: clamp_u32(self.line),
            column: clamp_u32(self.column),
            byte: offset,
        }
    }
}

fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

impl fmt::Display for Location {
    /// Formats as the suffix of a file name: `:12:5 (byte 341)`, `: workflow.tasks[3]`, or nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::None => Ok(()),
            Location::Xml { line, column, byte } => write!(f, ":{line}:{column} (byte {byte})"),
            Location::Json { path } => write!(f, ": {path}"),
            Location::Text { line, column } => write!(f, ":{line}:{column}"),
        }
    }
}

/// How a task is referenced by a dependency declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Named as a parent (`<parent ref>`, `parents[]`).
    Parent,
    /// Named as a child (`<child ref>`, `children[]`).
    Child,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Parent => "parent",
            Role::Child => "child",
        })
    }
}

/// A workflow could not be read, built or generated. `Display` gives
/// `<file><location>: <what>`, e.g.
/// `Montage_25.xml:193:5 (byte 16384): unknown parent "ID00099" of task "ID00005"`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{at}: {kind}")]
pub struct WorkflowError {
    /// The file name as the caller gave it (or `<synthetic>`, `<cybershake>`, `<merge>`, ...).
    pub file: String,
    /// The element the error is about.
    pub at: Location,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl WorkflowError {
    /// An error at `at` in `file`.
    pub fn new(file: impl Into<String>, at: Location, kind: ErrorKind) -> Self {
        WorkflowError {
            file: file.into(),
            at,
            kind,
        }
    }
}

/// What is wrong, with the task ids involved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// The file could not be read (or decompressed).
    #[error("cannot read: {0}")]
    Io(String),
    /// Not well-formed XML (including a truncated document).
    #[error("malformed XML: {0}")]
    Xml(String),
    /// Not valid JSON.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// Well-formed, but not the expected structure: a missing element or field, a value of the
    /// wrong type, an unknown `link`.
    #[error("{0}")]
    Schema(String),
    /// A task without a runtime.
    #[error("task \"{task}\" has no runtime")]
    MissingRuntime { task: String },
    /// A runtime that is not a finite, non-negative number of seconds (`value` as written).
    #[error("task \"{task}\": runtime {value} is not a finite non-negative number of seconds")]
    BadRuntime { task: String, value: String },
    /// A runtime that takes the workflow's total run time (`total`, this task included) beyond
    /// [`MAX_SECONDS`](gridsched_sim::MAX_SECONDS): schedules add run times up in whole
    /// seconds, so such a workflow would overflow or lose seconds instead of being scheduled.
    #[error("task \"{task}\": runtime {} s {}", short(*.value), beyond_limit(*.value, *.total))]
    RuntimeTooLarge {
        task: String,
        value: f64,
        total: f64,
    },
    /// Two tasks with the same id; `first` is where the first one was defined.
    #[error("duplicate task id \"{task}\" (first defined at{first})")]
    DuplicateTask { task: String, first: Location },
    /// A dependency names a task that does not exist. `of` is the declaring task, when the
    /// declaration belongs to one.
    #[error("unknown {role} \"{id}\"{}", of_task(.of))]
    UnknownTask {
        id: String,
        role: Role,
        of: Option<String>,
    },
    /// The dependencies contain a cycle; `task` is on it and `cycle` lists it in dependency
    /// order, starting and ending with `task`.
    #[error("dependency cycle through task \"{task}\": {}", .cycle.join(" -> "))]
    Cycle { task: String, cycle: Vec<String> },
    /// A generator or model parameter out of its domain.
    #[error("parameter {name}: {message}")]
    InvalidParameter { name: &'static str, message: String },
}

/// A number as `Display` writes it, or in exponent form when that would be long (`1e300`).
fn short(x: f64) -> String {
    if x.abs() >= 1e15 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn beyond_limit(value: f64, total: f64) -> String {
    let limit = gridsched_sim::MAX_SECONDS_TEXT;
    if value > gridsched_sim::MAX_SECONDS as f64 {
        format!("is beyond {limit}, the longest run time the models represent exactly")
    } else {
        format!(
            "makes the workflow's total run time {} s, beyond {limit}, the most the models represent exactly",
            short(total)
        )
    }
}

fn of_task(of: &Option<String>) -> String {
    match of {
        Some(t) => format!(" of task \"{t}\""),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_location_counts_lines_and_characters() {
        let text = "ab\ncé<x>".as_bytes();
        let at = text.iter().position(|&b| b == b'<').unwrap() as u64;
        assert_eq!(
            Location::xml(text, at),
            Location::Xml {
                line: 2,
                column: 3,
                byte: at
            }
        );
        let mut c = LineCounter::new(text);
        assert_eq!(c.locate(1), Location::xml(text, 1));
        assert_eq!(c.locate(at), Location::xml(text, at));
        assert_eq!(c.locate(0), Location::xml(text, 0));
        // Past the end is clamped, never a panic.
        assert!(matches!(
            Location::xml(text, 999),
            Location::Xml { line: 2, .. }
        ));
    }

    #[test]
    fn messages_name_file_element_and_task() {
        let e = WorkflowError::new(
            "w.xml",
            Location::Xml {
                line: 3,
                column: 5,
                byte: 40,
            },
            ErrorKind::UnknownTask {
                id: "B".into(),
                role: Role::Parent,
                of: Some("A".into()),
            },
        );
        assert_eq!(
            e.to_string(),
            "w.xml:3:5 (byte 40): unknown parent \"B\" of task \"A\""
        );
        let e = WorkflowError::new(
            "w.json",
            Location::json("workflow.specification.tasks[2]"),
            ErrorKind::Cycle {
                task: "a".into(),
                cycle: vec!["a".into(), "b".into(), "a".into()],
            },
        );
        assert_eq!(
            e.to_string(),
            "w.json: workflow.specification.tasks[2]: dependency cycle through task \"a\": a -> b -> a"
        );
    }
}
