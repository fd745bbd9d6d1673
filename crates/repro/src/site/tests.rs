//! The site from a small fixture root: pages present, hostile text escaped, every link and
//! image resolving to a file of the site, byte-identical rebuilds, and a writer that never
//! replaces what it did not write.

use std::collections::BTreeSet;
use std::path::Path;

use super::*;
use crate::registry::Experiment;

const SWEEP: &str = "name = \"toy-s\"\nmodel = \"toy\"\n[axis]\nparameter = \"segments\"\nlabel = \"N\"\npaper = [1, 2]\n[[series]]\nname = \"sas\"\n[scales.quick]\nreplications = 2\njobs = 1\n[scales.paper]\nreplications = 2\njobs = 1\n";

const HOSTILE: &str = "<script>alert(\"x\")</script> & 'q' <b>";

fn entry(id: &str, kind: &str, extra: &str) -> String {
    format!(
        r#"
id = "{id}"
title = "Makespan <of> toys & \"friends\""
kind = "{kind}"
caption = "c < d"
sweep = "toy-s"
metrics = ["makespan"]
notes = ["A note with `code`, **bold** and <img src=x onerror=alert(1)>, see [the entry](experiments/toy/fig-1.toml)."]
[plot]
metric = "makespan"
y_label = "y"
[[claims]]
id = "a<1>"
quote = "{quote}"
expect = "makespan[sas] < 0"
if_fails = "because <i>toys</i> & **reasons**"
[[claims]]
id = "b"
kind = "ours"
quote = "our check"
expect = "makespan[sas] > -1"
[[interpretations]]
id = "A1"
section = "§2.1, §9.9 & more"
text = "a reading <with> markup"
{extra}"#,
        quote = HOSTILE.replace('"', "\\\"")
    )
}

/// A project with two run experiments (a figure and a table) and a ledger.
fn fixture() -> (tempfile::TempDir, Registry) {
    let table_extra = "[table]\nnote = \"Units & such.\"\n[[table.columns]]\nmetric = \"makespan\"\nseries = \"sas\"\nreference = [100.0, nan]\n";
    let fig = entry("toy-fig-1.2", "figure", "");
    let tab = entry("toy-table-3", "table", table_extra);
    let registry = Registry::from_sources(
        &[
            ("toy/sweeps/s.toml", SWEEP),
            ("toy/fig-1.toml", &fig),
            ("toy/table-3.toml", &tab),
        ],
        crate::testing::catalog(vec![]),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = Project {
        root: dir.path().to_path_buf(),
    };
    let exps: Vec<&Experiment> = registry.all().iter().collect();
    crate::reproduce(&exps, &crate::RunOptions::default(), Some(&project)).unwrap();
    std::fs::create_dir_all(dir.path().join("experiments/toy")).unwrap();
    std::fs::write(
        dir.path().join("experiments/toy/ledger.toml"),
        "[[row]]\nclaim = \"toy-fig-1.2:a<1>\"\nclass = \"not-established\"\nsummary = \"we & <they> differ\"\nevidence = [\"data/toy/fig-1.2.quick.csv\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/benchmarks.md"),
        "# Benchmarks\n\n## Results\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![plot](../figures/toy/fig-1.2.quick.svg)\n\nSee [results](#results).\n",
    )
    .unwrap();
    let spec = dir.path().join("spec");
    std::fs::create_dir_all(&spec).unwrap();
    std::fs::write(
        spec.join("toy.md"),
        "# Toy spec\n\n## 2. Things\n\n### 2.1 One thing\n\ntext\n",
    )
    .unwrap();
    (dir, registry)
}

fn options(root: &Path) -> SiteOptions {
    SiteOptions {
        spec_dir: Some(root.join("spec")),
        repository: "https://example.org/repo".into(),
    }
}

fn build(dir: &tempfile::TempDir, registry: &Registry) -> Site {
    let project = Project {
        root: dir.path().to_path_buf(),
    };
    render_site(registry, &project, &options(dir.path())).unwrap()
}

#[test]
fn fixture_site_has_every_page_and_escapes_hostile_text() {
    let (dir, registry) = fixture();
    let site = build(&dir, &registry);
    let pages: BTreeSet<&str> = site.pages().collect();
    for p in [
        "index.html",
        "claims.html",
        "benchmarks.html",
        "doc/toy.html",
        "exp/toy-fig-1.2.html",
        "exp/toy-table-3.html",
        "spec/toy.html",
    ] {
        assert!(pages.contains(p), "{p} missing from {pages:?}");
    }
    assert!(site.files.contains_key("figures/toy/fig-1.2.quick.svg"));
    assert!(site.files.contains_key("style.css") && site.files.contains_key("site.js"));
    for page in site.pages() {
        let text = site.text(page).unwrap();
        assert!(!text.contains("<script>alert"), "{page}");
        assert!(!text.contains("<img src=x"), "{page}");
        assert!(!text.contains("<b>"), "{page}");
        assert!(!text.contains("<i>toys"), "{page}");
        assert!(
            !text.contains("<with>") && !text.contains("<they>"),
            "{page}"
        );
    }
    let exp = site.text("exp/toy-fig-1.2.html").unwrap();
    assert!(
        exp.contains(
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;b&gt;"
        ),
        "{exp}"
    );
    assert!(
        exp.contains("<title>toy-fig-1.2 — Makespan &lt;of&gt; toys &amp; &quot;friends&quot; · ")
    );
    // Markdown in reasons and notes renders; its raw HTML is text.
    assert!(
        exp.contains("because &lt;i&gt;toys&lt;/i&gt; &amp; <strong>reasons</strong>"),
        "{exp}"
    );
    assert!(
        exp.contains("<code>code</code>, <strong>bold</strong>"),
        "{exp}"
    );
    // The claim's id (with markup characters) is an escaped anchor.
    assert!(exp.contains("id=\"claim-a&lt;1&gt;\""), "{exp}");
    // The interpretation's section reference links to the spec's section; an unknown one
    // stays text.
    assert!(
        exp.contains("<a href=\"../spec/toy.html#s2.1\">§2.1</a>, §9.9 &amp; more"),
        "{exp}"
    );
    // A table experiment renders its grid with the document's cell marked as different.
    let tab = site.text("exp/toy-table-3.html").unwrap();
    assert!(tab.contains("<table class=\"grid\">"), "{tab}");
    assert!(tab.contains("class=\"doc differs\""), "{tab}");
    // The claims index lists both experiments' claims with their filter data.
    let claims = site.text("claims.html").unwrap();
    assert_eq!(claims.matches("<tr data-doc=\"toy\"").count(), 4);
    assert!(claims.contains("data-verdict=\"FAIL\" data-chapter=\"1\" data-kind=\"document\""));
    assert!(
        claims.contains("<option value=\"1\">1</option>"),
        "{claims}"
    );
    // The front page counts and links into the index.
    let index = site.text("index.html").unwrap();
    assert!(
        index.contains("claims.html#doc=toy&amp;verdict=FAIL&amp;kind=document"),
        "{index}"
    );
    // The benchmarks page carries its plot and heading ids.
    let bench = site.text("benchmarks.html").unwrap();
    assert!(bench.contains("<h2 id=\"results\">"), "{bench}");
    assert!(
        bench.contains("src=\"figures/toy/fig-1.2.quick.svg\""),
        "{bench}"
    );
}

#[test]
fn every_local_link_and_image_resolves() {
    let (dir, registry) = fixture();
    let mut site = build(&dir, &registry);
    assert_eq!(site.broken_links(), Vec::<String>::new());
    // The check sees a missing file and a missing anchor.
    site.files.remove("exp/toy-table-3.html");
    site.files.insert(
        "extra.html".into(),
        b"<a href=\"index.html#nowhere\">x</a><img src=\"figures/none.svg\">".to_vec(),
    );
    let broken = site.broken_links();
    assert!(
        broken
            .iter()
            .any(|b| b.contains("no file exp/toy-table-3.html")),
        "{broken:?}"
    );
    assert!(
        broken
            .iter()
            .any(|b| b.contains("no id nowhere in index.html")),
        "{broken:?}"
    );
    assert!(
        broken
            .iter()
            .any(|b| b.contains("no file figures/none.svg")),
        "{broken:?}"
    );
}

#[test]
fn the_same_results_build_the_same_bytes() {
    let (dir, registry) = fixture();
    let a = build(&dir, &registry);
    let b = build(&dir, &registry);
    assert_eq!(a, b);
    // Written twice, the folders hold the same files.
    let out = dir.path().join("out/site");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    write_site(&a, &out, false).unwrap();
    let first = read_tree(&out);
    write_site(&b, &out, false).unwrap();
    assert_eq!(first, read_tree(&out));
    assert!(first.contains_key(MARKER));
    // Nothing is left beside it.
    let beside: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, vec![std::ffi::OsString::from("site")]);
}

fn read_tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(html::site_path(dir, &path), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_writer_never_replaces_what_it_did_not_write() {
    let (dir, registry) = fixture();
    let site = build(&dir, &registry);
    // A folder of the user's.
    let mine = dir.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "precious").unwrap();
    let e = write_site(&site, &mine, false).unwrap_err().to_string();
    assert!(e.contains("mine") && e.contains("--replace"), "{e}");
    assert_eq!(
        std::fs::read_to_string(mine.join("thesis.tex")).unwrap(),
        "precious"
    );
    // A file.
    let file = dir.path().join("file.html");
    std::fs::write(&file, "mine").unwrap();
    let e = write_site(&site, &file, false).unwrap_err().to_string();
    assert!(e.contains("not a folder"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    // An empty folder is fine, and so is replacing when told.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    write_site(&site, &empty, false).unwrap();
    assert!(empty.join("index.html").is_file());
    write_site(&site, &mine, true).unwrap();
    assert!(!mine.join("thesis.tex").exists() && mine.join("index.html").is_file());
    // A missing parent is an error naming it, and nothing is written.
    let e = write_site(&site, &dir.path().join("no/such/site"), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no/such"), "{e}");
    assert!(!dir.path().join("no").exists());
}

#[test]
fn a_root_without_results_is_an_error_naming_it() {
    let (_, registry) = fixture();
    let empty = tempfile::tempdir().unwrap();
    let project = Project {
        root: empty.path().join("nowhere"),
    };
    let e = render_site(&registry, &project, &SiteOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("nowhere") && e.contains("data/"), "{e}");
}
