//! Pegasus DAX reader (streaming, quick-xml).
//!
//! Accepted: the DAX 2.1 of the Pegasus Workflow Generator (the files in the data directory),
//!
//! ```xml
//! <adag ...>
//!   <job id="ID00002" namespace="CyberShake" name="ExtractSGT" version="1.0" runtime="158.10">
//!     <uses file="FFI_0_1_fx.sgt" link="input" size="20058636289" .../>
//!   </job>
//!   <child ref="ID00003"><parent ref="ID00002"/></child>
//! </adag>
//! ```
//!
//! and, where it costs nothing, DAX 3.x spellings: `<uses name=...>` (and `lfn=`) for `file=`,
//! `link="inout"` (read and written), a runtime given as
//! `<profile namespace="pegasus" key="runtime">158.1</profile>` inside the job when the `runtime`
//! attribute is absent, and the `link` values `checkpoint` (written) and `none` or no `link`
//! at all (both allowed by the 2.1 and 3.6 schemas: no data edge). Element names are matched
//! without their namespace prefix. Other elements (file and transformation catalogs,
//! `<argument>`) are skipped: only `<job>` elements are tasks. `<dax>`/`<dag>` sub-workflow
//! nodes are skipped too, and a dependency naming one is refused by name (hierarchical
//! workflows are not supported). A `size` may be an integer or a
//! non-negative decimal (rounded to whole bytes); a missing size counts as 0 bytes.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::dag::{TaskId, Workflow, WorkflowBuilder};
use crate::error::{ErrorKind, LineCounter, Location, Role, WorkflowError};
use crate::io::ReadOptions;

/// Parses a DAX document held in a string. `file` names it in errors.
pub fn parse_dax_str(
    file: &str,
    text: &str,
    opts: &ReadOptions,
) -> Result<Workflow, WorkflowError> {
    parse_dax_bytes(file, text.as_bytes(), opts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    Input,
    Output,
    InOut,
    /// `link="none"`, or no `link` attribute (optional in the DAX 2.1 and 3.6 schemas): the
    /// job names the file but neither reads nor writes it, so it makes no data edge.
    None,
}

#[derive(Debug)]
struct PendingJob {
    id: String,
    name: String,
    runtime: Option<String>,
    profile_runtime: Option<String>,
    at: Location,
    uses: Vec<(String, Link, u64)>,
}

#[derive(Debug)]
enum Open {
    Adag,
    Job,
    /// `<profile key="runtime">` inside a job: its text is the runtime.
    RuntimeProfile,
    Child(String),
    Other,
}

/// Parses DAX bytes (UTF-8). Never panics: malformed XML, a truncated document, a missing
/// attribute or a bad number is an error naming `file` and the element's line, column and byte.
pub fn parse_dax_bytes(
    file: &str,
    bytes: &[u8],
    opts: &ReadOptions,
) -> Result<Workflow, WorkflowError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let mut lines = LineCounter::new(bytes);
    let mut b = WorkflowBuilder::new(file);
    let mut stack: Vec<Open> = Vec::new();
    let mut job: Option<PendingJob> = None;
    let mut saw_root = false;
    // `<child ref>`s, checked once every job is known (a child without parents adds no edge
    // but must still name a task).
    let mut child_refs: Vec<(String, Location)> = Vec::new();
    let err = |at: Location, kind: ErrorKind| WorkflowError::new(file, at, kind);
    // `<dax>` / `<dag>` sub-workflow nodes seen so far: (id, element name).
    let mut sub_workflows: Vec<(String, String)> = Vec::new();
    let refuse_sub_workflow = |subs: &[(String, String)], id: &str, what: &str, at: &Location| {
        match subs.iter().find(|(s, _)| s == id) {
            Some((_, element)) => Err(err(
                at.clone(),
                ErrorKind::Schema(format!(
                    "{what} names \"{id}\", a <{element}> sub-workflow node: hierarchical workflows are not supported (flatten the workflow first, e.g. with pegasus-plan)"
                )),
            )),
            None => Ok(()),
        }
    };

    loop {
        let start = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                let at = lines.locate(reader.error_position());
                return Err(err(at, ErrorKind::Xml(e.to_string())));
            }
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let at = lines.locate(start);
                let local = e.local_name();
                let tag = local.as_ref();
                let open = if stack.is_empty() {
                    if tag != b"adag" {
                        return Err(err(
                            at,
                            ErrorKind::Schema(format!(
                                "root element is <{}>, expected <adag>",
                                String::from_utf8_lossy(tag)
                            )),
                        ));
                    }
                    saw_root = true;
                    Open::Adag
                } else {
                    match (stack.last(), tag) {
                        (Some(Open::Adag), b"job") => {
                            let id = required_attr(e, &[b"id"], "<job>", file, &at, &reader)?;
                            let name = attr(e, &[b"name"], file, &at, &reader)?
                                .unwrap_or_else(|| id.clone());
                            let runtime = attr(e, &[b"runtime"], file, &at, &reader)?;
                            job = Some(PendingJob {
                                id,
                                name,
                                runtime,
                                profile_runtime: None,
                                at: at.clone(),
                                uses: Vec::new(),
                            });
                            Open::Job
                        }
                        (Some(Open::Job), b"uses") => {
                            let what = "<uses>";
                            let name = required_attr(
                                e,
                                &[b"file", b"name", b"lfn"],
                                what,
                                file,
                                &at,
                                &reader,
                            )?;
                            let link = attr(e, &[b"link"], file, &at, &reader)?
                                .map(|l| l.to_ascii_lowercase());
                            let link = match link.as_deref() {
                                Some("input") => Link::Input,
                                Some("output" | "checkpoint") => Link::Output,
                                Some("inout") => Link::InOut,
                                Some("none") | None => Link::None,
                                Some(other) => {
                                    return Err(err(
                                        at,
                                        ErrorKind::Schema(format!(
                                            "<uses file=\"{name}\">: unknown link \"{other}\" (expected input, output, inout, checkpoint or none)"
                                        )),
                                    ));
                                }
                            };
                            let size = match attr(e, &[b"size"], file, &at, &reader)? {
                                None => 0,
                                Some(s) => parse_size(&s).ok_or_else(|| {
                                    err(
                                        at.clone(),
                                        ErrorKind::Schema(format!(
                                            "<uses file=\"{name}\">: size \"{s}\" is not a non-negative number of bytes"
                                        )),
                                    )
                                })?,
                            };
                            if let Some(j) = job.as_mut() {
                                j.uses.push((name, link, size));
                            }
                            Open::Other
                        }
                        (Some(Open::Job), b"profile") => {
                            let key = attr(e, &[b"key"], file, &at, &reader)?;
                            if key.as_deref() == Some("runtime") {
                                if let Some(j) = job.as_mut() {
                                    j.profile_runtime = Some(String::new());
                                }
                                Open::RuntimeProfile
                            } else {
                                Open::Other
                            }
                        }
                        (Some(Open::Adag), b"dax" | b"dag") => {
                            // Sub-workflow nodes are not tasks; remember them so that a
                            // dependency on one is refused by name, not as an unknown task.
                            if let Some(id) = attr(e, &[b"id"], file, &at, &reader)? {
                                sub_workflows.push((id, String::from_utf8_lossy(tag).into_owned()));
                            }
                            Open::Other
                        }
                        (Some(Open::Adag), b"child") => {
                            let child = required_attr(e, &[b"ref"], "<child>", file, &at, &reader)?;
                            refuse_sub_workflow(&sub_workflows, &child, "<child>", &at)?;
                            child_refs.push((child.clone(), at));
                            Open::Child(child)
                        }
                        (Some(Open::Child(child)), b"parent") => {
                            let parent =
                                required_attr(e, &[b"ref"], "<parent>", file, &at, &reader)?;
                            refuse_sub_workflow(&sub_workflows, &parent, "<parent>", &at)?;
                            b.depend(&parent, child, Some(Role::Child), at);
                            Open::Other
                        }
                        _ => Open::Other,
                    }
                };
                stack.push(open);
                if empty {
                    close(&mut stack, &mut job, &mut b, opts, file)?;
                }
            }
            Event::End(_) => {
                close(&mut stack, &mut job, &mut b, opts, file)?;
            }
            Event::Text(ref t) => {
                if let (Some(Open::RuntimeProfile), Some(j)) = (stack.last(), job.as_mut()) {
                    let text = t
                        .decode()
                        .map_err(|e| err(lines.locate(start), ErrorKind::Xml(e.to_string())))?;
                    if let Some(p) = j.profile_runtime.as_mut() {
                        p.push_str(&text);
                    }
                }
            }
            Event::Eof => {
                if let Some(open) = stack.last() {
                    let inside = match open {
                        Open::Adag => "<adag>".to_string(),
                        Open::Job => format!(
                            "<job id=\"{}\">",
                            job.as_ref().map_or("", |j| j.id.as_str())
                        ),
                        Open::Child(c) => format!("<child ref=\"{c}\">"),
                        Open::RuntimeProfile => "<profile>".to_string(),
                        Open::Other => "an element".to_string(),
                    };
                    let at = lines.locate(reader.buffer_position());
                    return Err(err(
                        at,
                        ErrorKind::Xml(format!("unexpected end of file inside {inside}")),
                    ));
                }
                if !saw_root {
                    return Err(err(
                        Location::xml(bytes, 0),
                        ErrorKind::Schema("no <adag> element".into()),
                    ));
                }
                break;
            }
            _ => {}
        }
    }
    if let Some((id, at)) = child_refs.into_iter().find(|(id, _)| b.find(id).is_none()) {
        return Err(err(
            at,
            ErrorKind::UnknownTask {
                id,
                role: Role::Child,
                of: None,
            },
        ));
    }
    b.build(opts.edges)
}

/// Pops the innermost element; a closed `<job>` becomes a task.
fn close(
    stack: &mut Vec<Open>,
    job: &mut Option<PendingJob>,
    b: &mut WorkflowBuilder,
    opts: &ReadOptions,
    file: &str,
) -> Result<(), WorkflowError> {
    if let Some(Open::Job) = stack.pop()
        && let Some(j) = job.take()
    {
        let raw = j
            .runtime
            .or(j.profile_runtime.map(|s| s.trim().to_string()));
        let runtime = match raw {
            Some(s) => match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => v,
                _ => {
                    return Err(WorkflowError::new(
                        file,
                        j.at,
                        ErrorKind::BadRuntime {
                            task: j.id,
                            value: format!("\"{s}\""),
                        },
                    ));
                }
            },
            None => match opts.default_runtime {
                Some(v) => v,
                None => {
                    return Err(WorkflowError::new(
                        file,
                        j.at,
                        ErrorKind::MissingRuntime { task: j.id },
                    ));
                }
            },
        };
        let t: TaskId = b.add_task(j.id, j.name, runtime, 1, j.at)?;
        for (name, link, size) in j.uses {
            if matches!(link, Link::Input | Link::InOut) {
                b.add_input(t, &name, size);
            }
            if matches!(link, Link::Output | Link::InOut) {
                b.add_output(t, &name, size);
            }
        }
    }
    Ok(())
}

/// Bytes: an integer, or a non-negative decimal rounded to whole bytes.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<u64>() {
        return Some(v);
    }
    let v: f64 = s.parse().ok()?;
    (0.0..1.8e19).contains(&v).then(|| v.round() as u64)
}

/// The first of `names` present on `e`, unescaped.
fn attr(
    e: &BytesStart<'_>,
    names: &[&[u8]],
    file: &str,
    at: &Location,
    reader: &Reader<&[u8]>,
) -> Result<Option<String>, WorkflowError> {
    let bad = |m: String| WorkflowError::new(file, at.clone(), ErrorKind::Xml(m));
    let mut found: Vec<Option<String>> = vec![None; names.len()];
    for a in e.attributes() {
        let a = a.map_err(|x| bad(x.to_string()))?;
        let key = a.key.local_name();
        if let Some(i) = names.iter().position(|n| *n == key.as_ref()) {
            let v = a
                .decode_and_unescape_value(reader.decoder())
                .map_err(|x| bad(x.to_string()))?;
            found[i] = Some(v.into_owned());
        }
    }
    Ok(found.into_iter().flatten().next())
}

fn required_attr(
    e: &BytesStart<'_>,
    names: &[&[u8]],
    element: &str,
    file: &str,
    at: &Location,
    reader: &Reader<&[u8]>,
) -> Result<String, WorkflowError> {
    attr(e, names, file, at, reader)?.ok_or_else(|| {
        let list: Vec<String> = names
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        WorkflowError::new(
            file,
            at.clone(),
            ErrorKind::Schema(format!(
                "{element} without the {} attribute",
                list.join(" / ")
            )),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1">
  <job id="A" namespace="x" name="first" runtime="1.5">
    <uses file="f" link="output" size="100"/>
  </job>
  <job id="B" name="second" runtime="2">
    <uses file="f" link="input" size="90"/>
  </job>
  <job id="C" name="third">
    <profile namespace="pegasus" key="runtime">3.25</profile>
    <uses name="g" link="inout" size="1e3"/>
  </job>
  <child ref="C">
    <parent ref="B"/>
  </child>
</adag>
"#;

    #[test]
    fn reads_jobs_uses_and_dependencies() {
        let w = parse_dax_str("small.xml", SMALL, &ReadOptions::default()).unwrap();
        assert_eq!(w.len(), 3);
        let (a, b, c) = (
            w.find("A").unwrap(),
            w.find("B").unwrap(),
            w.find("C").unwrap(),
        );
        assert_eq!(w.task(a).name, "first");
        assert_eq!(w.task(c).runtime, 3.25);
        assert_eq!(w.task(c).inputs.len(), 1);
        assert_eq!(w.task(c).outputs.len(), 1);
        let e = w.edge(a, b).unwrap();
        assert!(!e.explicit);
        assert_eq!(e.bytes, 90);
        let e = w.edge(b, c).unwrap();
        assert!(e.explicit);
        assert_eq!(e.bytes, 0);
        assert_eq!(w.edges().len(), 2);
    }

    /// `link` is optional in the DAX 2.1 and 3.6 schemas, and `none` is one of its values:
    /// such a use makes no data edge (it used to be refused).
    #[test]
    fn uses_without_link_or_with_link_none_make_no_edge() {
        for replacement in [
            r#"<uses file="f" size="90"/>"#,
            r#"<uses file="f" link="none" size="90"/>"#,
        ] {
            let text = SMALL.replace(r#"<uses file="f" link="input" size="90"/>"#, replacement);
            let w = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap();
            let (a, b) = (w.find("A").unwrap(), w.find("B").unwrap());
            assert!(w.edge(a, b).is_none(), "{replacement}");
            assert!(w.task(b).inputs.is_empty());
        }
        let text = SMALL.replace(r#"link="input""#, r#"link="sideways""#);
        let e = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap_err();
        assert!(e.to_string().contains("unknown link \"sideways\""), "{e}");
    }

    /// A dependency on a `<dax>` sub-workflow node is refused by name, not reported as an
    /// unknown task.
    #[test]
    fn sub_workflow_nodes_are_refused_by_name() {
        let text = SMALL.replace(
            "<child ref=\"C\">",
            "<dax id=\"D1\" file=\"inner.dax\"/>\n  <child ref=\"D1\">",
        );
        let e = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("\"D1\", a <dax> sub-workflow node"),
            "{e}"
        );
        let text = SMALL.replace(
            "<child ref=\"C\">\n    <parent ref=\"B\"/>",
            "<dag id=\"G\" file=\"x.dag\"/>\n  <child ref=\"C\">\n    <parent ref=\"G\"/>",
        );
        let e = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains("<parent> names \"G\", a <dag> sub-workflow node"),
            "{e}"
        );
        // A sub-workflow node nobody depends on is skipped.
        let text = SMALL.replace(
            "<child ref=\"C\">",
            "<dax id=\"D1\" file=\"inner.dax\"/>\n  <child ref=\"C\">",
        );
        assert_eq!(
            parse_dax_str("small.xml", &text, &ReadOptions::default())
                .unwrap()
                .len(),
            3
        );
    }

    #[test]
    fn errors_give_line_and_column() {
        let text = SMALL.replace("<parent ref=\"B\"/>", "<parent ref=\"Z\"/>");
        let e = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "small.xml:14:5 (byte {}): unknown parent \"Z\" of task \"C\"",
                text.find("<parent").unwrap()
            )
        );
        let text = SMALL.replace(" runtime=\"2\"", "");
        let e = parse_dax_str("small.xml", &text, &ReadOptions::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::MissingRuntime { task: "B".into() });
        assert!(matches!(
            e.at,
            Location::Xml {
                line: 6,
                column: 3,
                ..
            }
        ));
        let ok = parse_dax_str(
            "small.xml",
            &text,
            &ReadOptions {
                default_runtime: Some(7.0),
                ..ReadOptions::default()
            },
        )
        .unwrap();
        assert_eq!(ok.task(ok.find("B").unwrap()).runtime, 7.0);
    }
}
