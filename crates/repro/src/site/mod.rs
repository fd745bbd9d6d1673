//! `gridsched site`: the reproduction as a static website, from the same [`Results`] model as
//! REPRODUCTION.md.
//!
//! The site is plain HTML and CSS with one small script (the claims index's filters) and the
//! figures' SVGs; every link is relative, so it opens from `file://` and can be published as
//! it is. It is a pure function of the result files, the entries and (when given) the specs:
//! no clock, no absolute path, no revision of the checkout that builds it, so the same results
//! build a byte-identical site.
//!
//! Pages: `index.html` (every document's verdicts and headline findings), `doc/<paper>.html`
//! (its ledger, readings and experiments), `exp/<id>.html` (one per experiment: figures, the
//! command and provenance, the table beside the document's cells, every claim with its
//! numbers and reason, interpretations linked to the spec), `claims.html` (every claim,
//! filterable), `benchmarks.html` (`docs/benchmarks.md`), `spec/<file>.html` (the
//! implementation specs, when a spec folder is given).
//!
//! [`write_site`] writes a rendered site into a temporary folder beside the output and renames
//! it into place at the end, and never replaces a folder that is neither empty nor a site it
//! wrote, unless told to.

mod html;
mod pages;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::HarnessError;
use crate::registry::Registry;
use crate::reproduce::Project;
use crate::results::Results;

pub use html::{esc, slug};

/// The file in a site's root that marks a folder as one `gridsched site` wrote (and may
/// therefore replace).
pub const MARKER: &str = ".gridsched-site";

/// What goes into the site besides the results.
#[derive(Debug, Clone, Default)]
pub struct SiteOptions {
    /// The folder of the implementation specs (`shared/spec/`). When given, each document's
    /// spec becomes a page and the interpretations' section references link into it; when
    /// not, the references stay text.
    pub spec_dir: Option<PathBuf>,
    /// Web address of the repository, for links to repository files the site does not carry
    /// (data CSVs, entries' TOML, evidence). Empty: such references stay text.
    pub repository: String,
}

/// A rendered site: every file's path in the site (with `/`) and its bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Site {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Site {
    /// The HTML pages' paths.
    pub fn pages(&self) -> impl Iterator<Item = &str> {
        self.files
            .keys()
            .map(String::as_str)
            .filter(|p| p.ends_with(".html"))
    }

    /// A file's text (for tests).
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .get(path)
            .and_then(|b| std::str::from_utf8(b).ok())
    }

    /// Every `href` and `src` of the pages that stays in the site and does not lead to one of
    /// its files, or whose `#fragment` names no element of the page it leads to (the claims
    /// index's filter state, `#doc=...`, excepted): `page: target: why`. Empty for a good
    /// site.
    pub fn broken_links(&self) -> Vec<String> {
        let mut broken = Vec::new();
        for page in self.pages() {
            let text = self.text(page).unwrap_or_default();
            for attr in ["href=\"", "src=\""] {
                for piece in text.split(attr).skip(1) {
                    let target = piece.split('"').next().unwrap_or_default();
                    if target.contains("://") || target.starts_with("mailto:") {
                        continue;
                    }
                    let target = target.replace("&amp;", "&");
                    if let Err(why) = self.resolve(page, &target) {
                        broken.push(format!("{page}: {target}: {why}"));
                    }
                }
            }
        }
        broken
    }

    fn resolve(&self, page: &str, target: &str) -> Result<(), String> {
        let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
        let path = if file.is_empty() {
            page.to_string()
        } else {
            let mut parts: Vec<&str> = page.split('/').collect();
            parts.pop();
            for p in file.split('/') {
                match p {
                    ".." => {
                        parts.pop().ok_or("leaves the site")?;
                    }
                    "." | "" => {}
                    p => parts.push(p),
                }
            }
            parts.join("/")
        };
        let Some(bytes) = self.files.get(&path) else {
            return Err(format!("no file {path}"));
        };
        if !fragment.is_empty() && !fragment.contains('=') {
            let text = std::str::from_utf8(bytes).unwrap_or_default();
            if !text.contains(&format!(" id=\"{fragment}\"")) {
                return Err(format!("no id {fragment} in {path}"));
            }
        }
        Ok(())
    }
}

/// Renders the site from the results under `project`. The results root must hold `data/`.
pub fn render_site(
    registry: &Registry,
    project: &Project,
    options: &SiteOptions,
) -> Result<Site, HarnessError> {
    let data = project.root.join("data");
    if !data.is_dir() {
        return Err(HarnessError::Usage(format!(
            "{}: no results here (expected a data/ folder; pass the project root with --root)",
            project.root.display()
        )));
    }
    let results = Results::load(registry, project)?;
    pages::render(&results, project, options)
}

/// Writes `site` to `out`: into a temporary folder beside it, renamed into place once every
/// file is written, so a failure leaves `out` as it was. An existing `out` must be an empty
/// folder or a site written before (it holds [`MARKER`]), unless `replace` is set; a file
/// that is not a folder is never replaced.
pub fn write_site(site: &Site, out: &Path, replace: bool) -> Result<(), HarnessError> {
    match std::fs::symlink_metadata(out) {
        Ok(meta) if !meta.is_dir() => {
            return Err(HarnessError::Usage(format!(
                "{}: exists and is not a folder; not replacing it",
                out.display()
            )));
        }
        Ok(_) => {
            let empty = std::fs::read_dir(out)
                .map_err(|e| HarnessError::io(out, e))?
                .next()
                .is_none();
            if !empty && !out.join(MARKER).is_file() && !replace {
                return Err(HarnessError::Usage(format!(
                    "{}: a folder that is neither empty nor a site `gridsched site` wrote; \
                     not replacing it (pass --replace to replace it, with everything in it)",
                    out.display()
                )));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(HarnessError::io(out, e)),
    }
    let name = out
        .file_name()
        .ok_or_else(|| HarnessError::Usage(format!("{}: not a folder name", out.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(HarnessError::Usage(format!(
            "{}: no such folder to write the site into",
            parent.display()
        )));
    }
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.new-"))
        .tempdir_in(&parent)
        .map_err(|e| HarnessError::io(&parent, e))?;
    for (path, bytes) in &site.files {
        let file = tmp.path().join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| HarnessError::io(dir, e))?;
        }
        std::fs::write(&file, bytes).map_err(|e| HarnessError::io(&out.join(path), e))?;
    }
    std::fs::write(
        tmp.path().join(MARKER),
        "A site written by `gridsched site`; the command replaces this folder when rebuilding it.\n",
    )
    .map_err(|e| HarnessError::io(&out.join(MARKER), e))?;
    set_readable(tmp.path())?;
    // Move the old site (or empty folder) aside, put the new one in its place, then delete
    // the old one; a failed rename puts the old one back.
    let old = if out.exists() {
        let aside = tempfile::Builder::new()
            .prefix(&format!(".{name}.old-"))
            .tempdir_in(&parent)
            .map_err(|e| HarnessError::io(&parent, e))?;
        std::fs::rename(out, aside.path()).map_err(|e| HarnessError::io(out, e))?;
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(tmp.path(), out) {
        if let Some(aside) = &old {
            std::fs::rename(aside.path(), out).ok();
        }
        return Err(HarnessError::io(out, e));
    }
    // The new folder now lives at `out`; nothing is left to delete at the temporary path.
    let _ = tmp.keep();
    drop(old);
    Ok(())
}

/// A temporary folder is private (`0700`); a site is read by a web server or another user.
#[cfg(unix)]
fn set_readable(dir: &Path) -> Result<(), HarnessError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| HarnessError::io(dir, e))
}

#[cfg(not(unix))]
fn set_readable(_: &Path) -> Result<(), HarnessError> {
    Ok(())
}

#[cfg(test)]
mod tests;
