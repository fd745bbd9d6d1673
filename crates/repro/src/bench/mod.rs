//! Benchmark report: criterion's results as Markdown tables and log-log SVG plots in
//! `docs/benchmarks.md`.
//!
//! The harness knows no benchmark. Each bench that feeds the report has a report file beside it
//! (`crates/*/benches/*.report.toml`, schema in [`spec`]) saying which criterion groups form its
//! rows, which records it writes into criterion's directory, and which tables, speed-up targets,
//! growth analyses and plots to draw. [`write_report`] reads what `cargo bench` left in
//! criterion's output directory (`<group>/<function>/<value>/new/{benchmark,estimates}.json`:
//! ids and the mean time per iteration with its confidence interval), renders every part, and
//! splices each section between its marker lines (`<!-- <section>:begin -->` ...
//! `<!-- <section>:end -->`), leaving the hand-written text alone. A section none of whose
//! benchmarks are in the criterion directory is left as it is, so benchmark suites can be
//! refreshed separately.

mod data;
mod render;
pub mod spec;

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

pub use data::{BenchResult, Record, read_criterion};
use render::Part;
use spec::ReportSpec;

use crate::HarnessError;
use crate::output::{self, write_atomic};
use crate::plot::render_svg;

/// The report files under a project root: `crates/*/benches/*.report.toml`, sorted.
pub fn discover_specs(root: &Path) -> Result<Vec<PathBuf>, HarnessError> {
    let crates = root.join("crates");
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&crates).map_err(|e| HarnessError::io(&crates, e))?;
    for entry in entries {
        let benches = entry
            .map_err(|e| HarnessError::io(&crates, e))?
            .path()
            .join("benches");
        let Ok(files) = std::fs::read_dir(&benches) else {
            continue;
        };
        for f in files {
            let p = f.map_err(|e| HarnessError::io(&benches, e))?.path();
            if p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".report.toml"))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads and checks one report file; errors name the file.
pub fn load_spec(path: &Path) -> Result<ReportSpec, HarnessError> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    let spec: ReportSpec = toml::from_str(&text)
        .map_err(|e| HarnessError::Spec(format!("{}: {e}", path.display())))?;
    check_spec(&spec).map_err(|e| HarnessError::Spec(format!("{}: {e}", path.display())))?;
    Ok(spec)
}

fn check_spec(spec: &ReportSpec) -> Result<(), String> {
    let figure_names: Vec<&str> = spec.figures.iter().map(|f| f.name.as_str()).collect();
    for (i, b) in spec.blocks.iter().enumerate() {
        let kinds = [
            b.table.is_some(),
            b.pivot.is_some(),
            b.targets.is_some(),
            b.growth.is_some(),
            b.nearest.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() > 1 {
            return Err(format!(
                "block {}: give at most one of table, pivot, targets, growth, nearest",
                i + 1
            ));
        }
        for f in &b.figures {
            if !figure_names.contains(&f.as_str()) {
                return Err(format!("block {}: no [[figure]] named `{f}`", i + 1));
            }
        }
        let records = b
            .table
            .iter()
            .flat_map(|t| &t.columns)
            .chain(b.nearest.iter().flat_map(|n| &n.columns))
            .filter_map(|c| c.record.as_ref())
            .chain(b.nearest.iter().map(|n| &n.near.record))
            .chain(
                b.growth
                    .iter()
                    .filter_map(|g| g.record.as_ref().map(|r| &r.record)),
            );
        for r in records {
            if !spec.records.contains_key(r) {
                return Err(format!("block {}: no [records.{r}]", i + 1));
            }
        }
        if let Some(t) = &b.targets
            && t.rows.len() != 1
        {
            return Err(format!(
                "block {}: targets.rows names exactly one field",
                i + 1
            ));
        }
    }
    for f in &spec.figures {
        let x = &f.x;
        if x.field.is_none() && (x.record.is_none() || x.column.is_none()) {
            return Err(format!(
                "figure `{}`: x needs a `field`, or a `record` and a `column`",
                f.name
            ));
        }
        if f.series.is_empty() == f.series_from_function.is_none() {
            return Err(format!(
                "figure `{}`: give either `series` or `series_from_function`",
                f.name
            ));
        }
    }
    Ok(())
}

/// Where `write_report` reads and writes.
#[derive(Debug, Clone)]
pub struct ReportPaths {
    /// Criterion's output directory (`target/criterion`).
    pub criterion_dir: PathBuf,
    /// The Markdown document whose marked sections are regenerated.
    pub out: PathBuf,
    /// Where the SVG plots go (`figures/bench`).
    pub figures_dir: PathBuf,
    /// The report files (see [`discover_specs`]).
    pub specs: Vec<PathBuf>,
}

/// What `write_report` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSummary {
    pub benchmarks: usize,
    /// Sections regenerated, with the rows of each of their parts.
    pub sections: Vec<(String, usize)>,
    pub figures: Vec<PathBuf>,
}

/// What a missing document starts from.
const EMPTY_DOCUMENT: &str = "# Benchmarks\n";

const NOTE: &str = "<!-- Generated by `gridsched bench-report` from criterion's results; edits here are overwritten. -->\n\n";

/// The marker lines of a section.
pub fn markers(section: &str) -> (String, String) {
    (
        format!("<!-- {section}:begin -->"),
        format!("<!-- {section}:end -->"),
    )
}

/// Reads the criterion results, writes the plots and regenerates the marked sections of the
/// document (created if missing; standard output, a device or a FIFO, which cannot be read
/// back, gets a new document). A section is regenerated when any of its parts has results;
/// when no part of any section has, the first section is written with its parts' `empty`
/// notes (which say what to run).
pub fn write_report(paths: &ReportPaths) -> Result<ReportSummary, HarnessError> {
    if paths.specs.is_empty() {
        return Err(HarnessError::Usage(
            "no benchmark report files (crates/*/benches/*.report.toml)".into(),
        ));
    }
    let results = read_criterion(&paths.criterion_dir)?;
    let specs: Vec<ReportSpec> = paths
        .specs
        .iter()
        .map(|p| load_spec(p))
        .collect::<Result<_, _>>()?;
    let mut parts: Vec<Part> = Vec::new();
    for spec in &specs {
        let mut records = BTreeMap::new();
        for (name, r) in &spec.records {
            records.insert(
                name.clone(),
                Record::read(&paths.criterion_dir.join(&r.file))?,
            );
        }
        parts.push(Part {
            spec,
            rows: data::rows(&spec.source, &results),
            records,
        });
    }
    parts.sort_by_key(|p| p.spec.order);
    // Sections in the order of their first part.
    let mut sections: Vec<(&str, &str)> = Vec::new();
    for p in &parts {
        if !sections.iter().any(|s| s.0 == p.spec.section) {
            sections.push((&p.spec.section, &p.spec.section_heading));
        }
    }
    let has_rows = |section: &str| {
        parts
            .iter()
            .any(|p| p.spec.section == section && !p.rows.is_empty())
    };
    let any_rows = parts.iter().any(|p| !p.rows.is_empty());
    let doc_dir = paths
        .out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    // Only a regular file holds a document to splice into: standard output, a device or a
    // FIFO (written in place) starts from an empty one, as a missing file does.
    let mut doc = if output::is_written_in_place(&paths.out) {
        EMPTY_DOCUMENT.to_string()
    } else {
        match std::fs::read_to_string(&paths.out) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => EMPTY_DOCUMENT.to_string(),
            Err(e) => return Err(HarnessError::io(&paths.out, e)),
        }
    };
    let mut summary = ReportSummary {
        benchmarks: results.len(),
        sections: Vec::new(),
        figures: Vec::new(),
    };
    for (i, (section, heading)) in sections.iter().enumerate() {
        if !(has_rows(section) || (!any_rows && i == 0)) {
            continue;
        }
        let mut generated = String::from(NOTE);
        let mut rows = 0;
        for p in parts.iter().filter(|p| p.spec.section == *section) {
            let mut links: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
            for (name, stem, fig) in p.figures() {
                let path = paths.figures_dir.join(format!("{stem}.svg"));
                output::write_project_file(&path, render_svg(&fig)?.as_bytes())?;
                links
                    .entry(name)
                    .or_default()
                    .push((fig.caption.clone(), relative(&doc_dir, &path)));
                summary.figures.push(path);
            }
            generated.push_str(&p.markdown(&links));
            rows += p.rows.len();
        }
        let (begin, end) = markers(section);
        doc = splice_between(&doc, &generated, &begin, &end, heading)?;
        summary.sections.push((section.to_string(), rows));
    }
    write_atomic(&paths.out, doc.as_bytes())?;
    Ok(summary)
}

/// Byte offset of the first line at or after `from` that is exactly `marker` (surrounding
/// whitespace aside), so a marker quoted inside prose is not taken for the real one.
fn marker_line(doc: &str, marker: &str, from: usize) -> Option<(usize, usize)> {
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        if offset >= from && line.trim() == marker {
            return Some((offset, offset + line.trim_end_matches(['\n', '\r']).len()));
        }
        offset += line.len();
    }
    None
}

/// Replaces the text between the lines `begin` and `end` in `doc` by `generated`; appends
/// `heading` and a marked section when the markers are missing.
pub fn splice_between(
    doc: &str,
    generated: &str,
    begin_marker: &str,
    end_marker: &str,
    heading: &str,
) -> Result<String, HarnessError> {
    let body = format!("{begin_marker}\n{}\n{end_marker}", generated.trim_end());
    let begin = marker_line(doc, begin_marker, 0);
    let end = begin.and_then(|(_, b)| marker_line(doc, end_marker, b));
    match (begin, end) {
        (Some((b, _)), Some((_, e))) => Ok(format!("{}{body}{}", &doc[..b], &doc[e..])),
        (None, None) if marker_line(doc, end_marker, 0).is_none() => {
            let mut out = doc.trim_end().to_string();
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(heading);
            out.push_str("\n\n");
            out.push_str(&body);
            out.push('\n');
            Ok(out)
        }
        _ => Err(HarnessError::Data(format!(
            "the marker lines {begin_marker} and {end_marker} must both appear, in this order"
        ))),
    }
}

/// `to` relative to the directory `from` (both made absolute first), with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, to) = (abs(from), abs(to));
    let norm = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    v.pop();
                }
                Component::CurDir => {}
                c => v.push(c.as_os_str().to_string_lossy().into_owned()),
            }
        }
        v
    };
    let (f, t) = (norm(&from), norm(&to));
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); f.len() - common];
    parts.extend(t[common..].iter().cloned());
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEGIN: &str = "<!-- bench:begin -->";
    const END: &str = "<!-- bench:end -->";

    fn splice(doc: &str, generated: &str) -> Result<String, HarnessError> {
        splice_between(doc, generated, BEGIN, END, "## Results")
    }

    #[test]
    fn splice_keeps_hand_written_text() {
        let doc = format!(
            "# B\n\nquoted `{BEGIN}` ... `{END}` in prose\n\n{BEGIN}\nold\n{END}\n\n## Verdict\nkept\n"
        );
        let out = splice(&doc, "new table\n").unwrap();
        assert_eq!(
            out,
            format!(
                "# B\n\nquoted `{BEGIN}` ... `{END}` in prose\n\n{BEGIN}\nnew table\n{END}\n\n## Verdict\nkept\n"
            )
        );
        let appended = splice("# B\n", "t").unwrap();
        assert!(appended.starts_with("# B\n\n## Results\n\n") && appended.contains(BEGIN));
        assert!(splice(&format!("{END}\n{BEGIN}\n"), "t").is_err());
        assert!(splice(&format!("{BEGIN}\n"), "t").is_err());
    }

    #[test]
    fn missing_directory_is_a_usage_error() {
        let err = read_criterion(Path::new("/nonexistent/criterion")).unwrap_err();
        assert!(err.to_string().contains("run `cargo bench` first"), "{err}");
    }

    #[test]
    fn report_files_are_checked_and_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |body: &str| {
            let p = dir.path().join("x.report.toml");
            std::fs::write(
                &p,
                format!(
                    "section = \"s\"\nsection_heading = \"## S\"\norder = 1\n[source]\ngroup = \"g/{{a}}\"\nfunction = \"f\"\nvalue = [\"n\"]\n{body}"
                ),
            )
            .unwrap();
            load_spec(&p).map(|_| ()).unwrap_err().to_string()
        };
        let e = write("[[block]]\nfigures = [\"nope\"]\n");
        assert!(
            e.contains("x.report.toml") && e.contains("no [[figure]] named `nope`"),
            "{e}"
        );
        let e = write(
            "[[block]]\n[block.table]\ncolumns = [{ header = \"V\", record = \"r\", column = \"c\" }]\n",
        );
        assert!(e.contains("no [records.r]"), "{e}");
        let e = write("unknown_key = 1\n");
        assert!(e.contains("x.report.toml") && e.contains("unknown"), "{e}");
    }
}
