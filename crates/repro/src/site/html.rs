//! HTML building blocks of the site: escaping (pulldown-cmark's escaper), the Markdown of
//! reasons, notes and documents rendered with their links resolved inside the site, and the
//! page frame.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// `s` escaped for HTML text and for double-quoted attribute values (`& < > "`).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    // Writing to a String cannot fail.
    pulldown_cmark_escape::escape_html(&mut out, s).ok();
    out
}

/// Where a page lives in the site (`exp/castillo-fig-3.4.html`) and the relative links it
/// writes to other files of the site, so the site works from `file://` and in any folder.
#[derive(Debug, Clone)]
pub struct PagePath {
    path: String,
}

impl PagePath {
    pub fn new(path: impl Into<String>) -> Self {
        PagePath { path: path.into() }
    }

    /// The page's path in the site.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A link from this page to `target`, a path from the site's root.
    pub fn href(&self, target: &str) -> String {
        let depth = self.path.matches('/').count();
        format!("{}{target}", "../".repeat(depth))
    }
}

/// What the Markdown renderer knows of the site: which repository files have a page or a copy
/// in it, and the repository's address for the others.
#[derive(Debug, Default)]
pub struct Linker {
    /// Repository path → site path (entries' TOML → their pages, REPRODUCTION.md → the front
    /// page, docs/benchmarks.md → the benchmarks page).
    pub pages: BTreeMap<String, String>,
    /// The project root, to find the files an image or link names.
    pub root: std::path::PathBuf,
    /// Repository files (figures) the rendered text needs copied into the site.
    pub assets: RefCell<BTreeSet<String>>,
    /// Web address of the repository (`https://github.com/owner/name`) for links to files that
    /// have no page; empty: such links become code text.
    pub repository: String,
}

/// The site path of a repository file that is copied as it is: a figure or a plot.
fn copyable(repo_path: &str) -> bool {
    repo_path.starts_with("figures/")
        && (repo_path.ends_with(".svg") || repo_path.ends_with(".png"))
}

/// `base/dest` with `.` and `..` resolved, or `None` when it leaves the repository.
fn join_repo(base: &str, dest: &str) -> Option<String> {
    let mut parts: Vec<&str> = if dest.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for p in dest.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Whether a link leaves the site (an address with a scheme) or stays in the page.
fn is_external(dest: &str) -> bool {
    dest.starts_with('#')
        || dest
            .split_once(':')
            .is_some_and(|(scheme, _)| scheme.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// How a link of Markdown read from `base` (a repository folder) is written in the site.
enum Resolved {
    /// A link (or image source) to write.
    Href(String),
    /// No target in the site or the repository: the text stays, without a link.
    Drop,
}

impl Linker {
    fn resolve(&self, page: &PagePath, base: &str, dest: &str, image: bool) -> Resolved {
        if is_external(dest) {
            return Resolved::Href(dest.to_string());
        }
        let (file, fragment) = match dest.split_once('#') {
            Some((f, frag)) => (f, format!("#{frag}")),
            None => (dest, String::new()),
        };
        let Some(repo_path) = join_repo(base, file) else {
            return Resolved::Drop;
        };
        if copyable(&repo_path) && self.root.join(&repo_path).is_file() {
            self.assets.borrow_mut().insert(repo_path.clone());
            return Resolved::Href(page.href(&repo_path));
        }
        if image {
            return Resolved::Drop;
        }
        if let Some(target) = self.pages.get(&repo_path) {
            return Resolved::Href(format!("{}{fragment}", page.href(target)));
        }
        if self.repository.is_empty() {
            Resolved::Drop
        } else {
            Resolved::Href(format!(
                "{}/blob/HEAD/{repo_path}{fragment}",
                self.repository
            ))
        }
    }

    /// Markdown (from a file in repository folder `base`) as HTML for `page`: raw HTML in the
    /// text is shown as text, links to repository files go to their page or copy in the site,
    /// else to the repository, and headings get ids (`heading_id`).
    pub fn markdown(
        &self,
        text: &str,
        page: &PagePath,
        base: &str,
        heading_id: &dyn Fn(&str) -> String,
    ) -> String {
        self.markdown_at(text, page, base, heading_id, None)
    }

    /// [`markdown`](Self::markdown) with the text's highest heading level moved to `top`
    /// (1–6) and the others with it, so a file's headings nest under the page's.
    pub fn markdown_at(
        &self,
        text: &str,
        page: &PagePath,
        base: &str,
        heading_id: &dyn Fn(&str) -> String,
        top: Option<usize>,
    ) -> String {
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        let mut events: Vec<Event> = Vec::new();
        // Links that lead nowhere lose their tags; their text stays.
        let mut dropped: Vec<bool> = Vec::new();
        for event in Parser::new_ext(text, options) {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => events.push(Event::Text(h)),
                Event::Start(tag @ (Tag::Link { .. } | Tag::Image { .. })) => {
                    let image = matches!(tag, Tag::Image { .. });
                    let (Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }
                    | Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }) = tag
                    else {
                        continue;
                    };
                    match self.resolve(page, base, &dest_url, image) {
                        Resolved::Href(h) => {
                            dropped.push(false);
                            let dest_url = CowStr::from(h);
                            events.push(Event::Start(if image {
                                Tag::Image {
                                    link_type,
                                    dest_url,
                                    title,
                                    id,
                                }
                            } else {
                                Tag::Link {
                                    link_type,
                                    dest_url,
                                    title,
                                    id,
                                }
                            }));
                        }
                        // A link that leads nowhere keeps its text; an image, its alt text.
                        Resolved::Drop => {
                            dropped.push(true);
                            if image {
                                events.push(Event::Start(Tag::Emphasis));
                            }
                        }
                    }
                }
                Event::End(end @ (TagEnd::Link | TagEnd::Image)) => {
                    match (dropped.pop().unwrap_or(false), end) {
                        (false, end) => events.push(Event::End(end)),
                        (true, TagEnd::Image) => events.push(Event::End(TagEnd::Emphasis)),
                        (true, _) => {}
                    }
                }
                other => events.push(other),
            }
        }
        if let Some(top) = top {
            let levels = || {
                events.iter().filter_map(|e| match e {
                    Event::Start(Tag::Heading { level, .. }) => Some(*level as usize),
                    _ => None,
                })
            };
            if let Some(min) = levels().min() {
                let shift = |l: HeadingLevel| {
                    HeadingLevel::try_from((l as usize + top).saturating_sub(min).clamp(1, 6))
                        .unwrap_or(l)
                };
                for e in &mut events {
                    match e {
                        Event::Start(Tag::Heading { level, .. }) => *level = shift(*level),
                        Event::End(TagEnd::Heading(level)) => *level = shift(*level),
                        _ => {}
                    }
                }
            }
        }
        // Heading ids from the heading's text.
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..events.len() {
            if let Event::Start(Tag::Heading { .. }) = &events[i] {
                let mut text = String::new();
                for e in &events[i + 1..] {
                    match e {
                        Event::End(TagEnd::Heading(_)) => break,
                        Event::Text(t) | Event::Code(t) => text.push_str(t),
                        _ => {}
                    }
                }
                let mut id = heading_id(&text);
                let n = seen.entry(id.clone()).or_insert(0);
                if *n > 0 {
                    id = format!("{id}-{n}");
                }
                *n += 1;
                if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                    *slot = Some(CowStr::from(id));
                }
            }
        }
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, events.into_iter());
        html
    }

    /// A short Markdown text (a reason, a note) rendered inline: one paragraph's content
    /// without the `<p>`, several paragraphs as they are.
    pub fn inline(&self, text: &str, page: &PagePath) -> String {
        let html = self.markdown(text, page, "", &slug);
        let trimmed = html.trim_end();
        match trimmed
            .strip_prefix("<p>")
            .and_then(|t| t.strip_suffix("</p>"))
        {
            Some(inner) if !inner.contains("<p>") => inner.to_string(),
            _ => html,
        }
    }
}

/// A GitHub-style heading anchor: lower case, letters, digits, `-` and `_`, spaces as `-`.
pub fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            s.extend(c.to_lowercase());
        } else if c == ' ' {
            s.push('-');
        }
    }
    if s.is_empty() { "section".into() } else { s }
}

/// The frame of every page: language, viewport, title, the style sheet, a skip link, the site
/// navigation (the current page marked), the content and the footer; `script` adds `site.js`.
pub fn page(page: &PagePath, title: &str, body: &str, script: bool) -> String {
    let nav = [
        ("index.html", "Reproduction"),
        ("claims.html", "Claims"),
        ("benchmarks.html", "Benchmarks"),
    ];
    let mut links = String::new();
    for (target, label) in nav {
        let current = if page.path() == target {
            " aria-current=\"page\""
        } else {
            ""
        };
        links.push_str(&format!(
            "<li><a href=\"{}\"{current}>{label}</a></li>",
            page.href(target)
        ));
    }
    let script = if script {
        format!("<script src=\"{}\"></script>\n", page.href("site.js"))
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} · gridsched reproduction</title>\n\
         <link rel=\"stylesheet\" href=\"{}\">\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <header class=\"site\"><nav aria-label=\"Site\"><ul>{links}</ul></nav></header>\n\
         <main id=\"main\">\n{body}</main>\n\
         <footer class=\"site\"><p>Generated by <code>gridsched site</code> from the committed \
         results (<code>data/</code>, <code>figures/</code>, <code>experiments/</code>); do not \
         edit by hand.</p></footer>\n{script}</body>\n</html>\n",
        esc(title),
        page.href("style.css"),
    )
}

/// A repository file's site path (`figures/castillo/fig-3.4.quick.svg`) from its path.
pub fn site_path(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc("a < b && c > \"d\""),
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot;"
        );
    }

    #[test]
    fn relative_links_work_from_any_depth() {
        assert_eq!(PagePath::new("index.html").href("style.css"), "style.css");
        assert_eq!(
            PagePath::new("exp/a.html").href("figures/x.svg"),
            "../figures/x.svg"
        );
    }

    #[test]
    fn markdown_shows_raw_html_as_text_and_resolves_links() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("figures/p")).unwrap();
        std::fs::write(dir.path().join("figures/p/a.svg"), "<svg/>").unwrap();
        let mut linker = Linker {
            root: dir.path().to_path_buf(),
            repository: "https://example.org/r".into(),
            ..Linker::default()
        };
        linker
            .pages
            .insert("experiments/p/a.toml".into(), "exp/p-a.html".into());
        let page = PagePath::new("exp/p-a.html");
        let html = linker.markdown(
            "x <script>alert(1)</script> [e](experiments/p/a.toml#c) [d](data/p/a.csv) \
             ![plot](../figures/p/a.svg) ![gone](../figures/p/none.svg) [w](https://w.org)\n\n# Head One",
            &page,
            "docs",
            &slug,
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("href=\"https://example.org/r/blob/HEAD/docs/data/p/a.csv\""));
        assert!(html.contains("src=\"../figures/p/a.svg\""), "{html}");
        assert!(html.contains("<em>gone</em>"), "{html}");
        assert!(html.contains("href=\"https://w.org\""));
        assert!(html.contains("<h1 id=\"head-one\">"), "{html}");
        assert!(linker.assets.borrow().contains("figures/p/a.svg"));
        // A link from a folder up to a page.
        let html = linker.markdown("[e](../experiments/p/a.toml#c)", &page, "docs", &slug);
        assert!(html.contains("href=\"../exp/p-a.html#c\""), "{html}");
        assert_eq!(
            linker.inline("a `b` **c**", &page),
            "a <code>b</code> <strong>c</strong>"
        );
    }
}
