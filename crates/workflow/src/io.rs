//! Reading a workflow file of either format, plain or gzip-compressed, and the options both
//! readers share.

use std::io::Read;
use std::path::Path;

use crate::dag::{EdgeSource, Workflow};
use crate::error::{ErrorKind, Location, WorkflowError};

/// Options of both readers.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ReadOptions {
    /// Which dependencies become edges (default: declared ∪ file-implied).
    pub edges: EdgeSource,
    /// The runtime given to a task that has none; `None` (the default) makes a missing runtime
    /// an error.
    pub default_runtime: Option<f64>,
}

/// The two accepted formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Pegasus DAX (XML).
    Dax,
    /// WfCommons JSON.
    WfCommons,
}

impl Format {
    /// The format a file name says (`.xml`, `.dax` → DAX; `.json` → WfCommons; a `.gz` suffix
    /// is looked through), or `None`.
    pub fn from_name(name: &str) -> Option<Format> {
        let name = name
            .strip_suffix(".gz")
            .unwrap_or(name)
            .to_ascii_lowercase();
        if name.ends_with(".json") {
            Some(Format::WfCommons)
        } else if name.ends_with(".xml") || name.ends_with(".dax") {
            Some(Format::Dax)
        } else {
            None
        }
    }

    /// The format the content says: `{` first → JSON, `<` first → XML (after whitespace and a
    /// UTF-8 byte-order mark).
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Some(Format::WfCommons),
            Some(b'<') => Some(Format::Dax),
            _ => None,
        }
    }
}

/// Parses `bytes` (plain or gzip) in the format its name or its content says.
pub fn parse_workflow_bytes(
    file: &str,
    bytes: &[u8],
    opts: &ReadOptions,
) -> Result<Workflow, WorkflowError> {
    let inflated;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| {
                WorkflowError::new(file, Location::None, ErrorKind::Io(format!("gzip: {e}")))
            })?;
        inflated = out;
        &inflated[..]
    } else {
        bytes
    };
    let format = Format::from_name(file)
        .or_else(|| Format::sniff(bytes))
        .ok_or_else(|| {
            WorkflowError::new(
                file,
                Location::None,
                ErrorKind::Schema(
                    "neither DAX (XML) nor WfCommons (JSON): name it .xml/.dax/.json".into(),
                ),
            )
        })?;
    match format {
        Format::Dax => crate::dax::parse_dax_bytes(file, bytes, opts),
        Format::WfCommons => crate::wfcommons::parse_wfcommons_bytes(file, bytes, opts),
    }
}

/// Reads a workflow file: DAX (`.xml`, `.dax`) or WfCommons (`.json`), optionally gzipped
/// (`.gz`, detected by content). Errors name the path as given.
pub fn read_workflow(path: &Path, opts: &ReadOptions) -> Result<Workflow, WorkflowError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        WorkflowError::new(file.clone(), Location::None, ErrorKind::Io(e.to_string()))
    })?;
    parse_workflow_bytes(&file, &bytes, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn formats_by_name_and_content() {
        assert_eq!(Format::from_name("a/Montage_25.xml"), Some(Format::Dax));
        assert_eq!(Format::from_name("x.JSON.gz"), Some(Format::WfCommons));
        assert_eq!(Format::from_name("x.txt"), None);
        assert_eq!(Format::sniff(b"\xEF\xBB\xBF  {"), Some(Format::WfCommons));
        assert_eq!(Format::sniff(b"\n<?xml"), Some(Format::Dax));
        assert_eq!(Format::sniff(b""), None);
    }

    #[test]
    fn gzip_is_looked_through() {
        let dax = r#"<adag><job id="a" name="n" runtime="2"/></adag>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(dax.as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        let w = parse_workflow_bytes("w.xml.gz", &bytes, &ReadOptions::default()).unwrap();
        assert_eq!(w.len(), 1);
        let e = parse_workflow_bytes(
            "w.xml.gz",
            &bytes[..bytes.len() / 2],
            &ReadOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Io(_)), "{e}");
    }
}
