//! The site's pages, rendered from the [`Results`] model.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::html::{Linker, PagePath, esc, page, site_path, slug};
use super::{Site, SiteOptions};
use crate::HarnessError;
use crate::claims::{ClaimKind, ClaimOutcome, Verdict};
use crate::output;
use crate::report::{
    GridRole, axis_values_line, check_markdown, ledger_row_markdown, params_line, reason,
    results_grid, series_parts,
};
use crate::reproduce::Project;
use crate::results::{Counts, ExperimentResults, PaperResults, Results, VERDICTS, verdict_index};

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("site.js");

/// The kinds in the order the pages show them, with how they are named.
const KINDS: [(ClaimKind, &str); 4] = [
    (ClaimKind::Document, "the document's"),
    (ClaimKind::Sensitivity, "sensitivity"),
    (ClaimKind::Calibrated, "calibrated"),
    (ClaimKind::Ours, "our checks"),
];

fn kind_label(kind: ClaimKind) -> &'static str {
    KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("", |(_, l)| l)
}

/// A spec rendered as a page: its site path and the section ids it has.
struct SpecPage {
    path: String,
    ids: BTreeSet<String>,
}

struct Ctx<'a> {
    results: &'a Results<'a>,
    project: &'a Project,
    linker: Linker,
    /// Spec file name → its page.
    specs: BTreeMap<String, SpecPage>,
}

pub(super) fn render(
    results: &Results,
    project: &Project,
    options: &SiteOptions,
) -> Result<Site, HarnessError> {
    let mut linker = Linker {
        root: project.root.clone(),
        repository: options.repository.clone(),
        ..Linker::default()
    };
    linker
        .pages
        .insert("REPRODUCTION.md".into(), "index.html".into());
    linker
        .pages
        .insert("docs/benchmarks.md".into(), "benchmarks.html".into());
    for pr in &results.papers {
        for e in &pr.experiments {
            linker.pages.insert(
                format!("experiments/{}", e.exp.source),
                exp_path(&e.exp.spec.id),
            );
        }
        if let Some(spec_dir) = &options.spec_dir
            && spec_dir.join(pr.paper.spec).is_file()
        {
            linker.pages.insert(
                format!("shared/spec/{}", pr.paper.spec),
                spec_path(pr.paper.spec),
            );
        }
    }
    let mut ctx = Ctx {
        results,
        project,
        linker,
        specs: BTreeMap::new(),
    };
    let mut site = Site::default();
    let mut put = |path: String, text: String| {
        site.files.insert(path, text.into_bytes());
    };
    put("style.css".into(), STYLE.into());
    put("site.js".into(), SCRIPT.into());
    // Specs first: the experiment pages link to the sections they have.
    if let Some(spec_dir) = &options.spec_dir {
        let files: BTreeSet<&str> = results.papers.iter().map(|p| p.paper.spec).collect();
        for file in files {
            let source = spec_dir.join(file);
            let Ok(text) = std::fs::read_to_string(&source) else {
                continue;
            };
            let path = spec_path(file);
            let (html, ids) = spec_page(&ctx, &path, file, &text);
            put(path.clone(), html);
            ctx.specs.insert(file.to_string(), SpecPage { path, ids });
        }
    }
    put("index.html".into(), front_page(&ctx));
    for pr in &results.papers {
        put(doc_path(pr.paper.key), doc_page(&ctx, pr));
        for e in &pr.experiments {
            put(exp_path(&e.exp.spec.id), experiment_page(&ctx, pr, e));
        }
    }
    put("claims.html".into(), claims_page(&ctx));
    put("benchmarks.html".into(), benchmarks_page(&ctx)?);
    // The figures: every experiment's, both scales, and those the Markdown showed.
    let mut copies: BTreeSet<String> = ctx.linker.assets.borrow().clone();
    for pr in &results.papers {
        for e in &pr.experiments {
            for (_, svg) in &e.figures {
                copies.insert(site_path(&project.root, svg));
            }
        }
    }
    for path in copies {
        let file = project.root.join(&path);
        let bytes = std::fs::read(&file).map_err(|e| HarnessError::io(&file, e))?;
        site.files.insert(path, bytes);
    }
    Ok(site)
}

fn exp_path(id: &str) -> String {
    format!("exp/{id}.html")
}

fn doc_path(key: &str) -> String {
    format!("doc/{key}.html")
}

fn spec_path(file: &str) -> String {
    format!("spec/{}.html", file.strip_suffix(".md").unwrap_or(file))
}

fn verdict_badge(v: Verdict) -> String {
    format!(
        "<span class=\"verdict v-{}\">{}</span>",
        v.as_str().to_ascii_lowercase(),
        v.as_str()
    )
}

/// A count of claims of one document, kind and verdict, linked to the claims index filtered
/// to them (plain `0` when there are none).
fn count_link(p: &PagePath, key: &str, kind: ClaimKind, v: Verdict, n: usize) -> String {
    if n == 0 {
        return "0".to_string();
    }
    format!(
        "<a href=\"{}#doc={key}&amp;verdict={}&amp;kind={}\" aria-label=\"{n} {} {} claims of {key}\">{n}</a>",
        p.href("claims.html"),
        v.as_str(),
        kind.as_str(),
        v.as_str(),
        kind.as_str(),
    )
}

/// The document's own claims: a cell per verdict. Another kind: one cell, `a / b / c / d / e`.
fn counts_cells(p: &PagePath, key: &str, kind: ClaimKind, c: [usize; 5]) -> String {
    let links = VERDICTS.map(|v| count_link(p, key, kind, v, c[verdict_index(v)]));
    if kind == ClaimKind::Document {
        VERDICTS
            .iter()
            .zip(&links)
            .map(|(v, l)| {
                let zero = if c[verdict_index(*v)] == 0 {
                    " zero"
                } else {
                    ""
                };
                format!("<td class=\"num{zero}\">{l}</td>")
            })
            .collect()
    } else {
        format!("<td class=\"num slashed\">{}</td>", links.join(" / "))
    }
}

fn scroll(table: &str, label: &str) -> String {
    format!(
        "<div class=\"scroll\" role=\"region\" aria-label=\"{}\" tabindex=\"0\">\n{table}</div>\n",
        esc(label)
    )
}

fn verdict_headers() -> String {
    VERDICTS
        .iter()
        .map(|v| format!("<th scope=\"col\">{}</th>", v.as_str()))
        .collect()
}

fn front_page(ctx: &Ctx) -> String {
    let p = PagePath::new("index.html");
    let mut b = String::new();
    b.push_str(
        "<h1>Reproducing five grid-scheduling documents</h1>\n\
         <p class=\"lead\">Each figure and table of the documents is an experiment: run from seeded \
         random streams, plotted, and every statement the document makes about it (a \
         <em>claim</em>) checked against the measured numbers. <strong>PASS</strong>: reproduced \
         beyond the noise. <strong>TIE</strong>: inside the noise (a 95 % Welch interval on the \
         difference compared). <strong>FAIL</strong>: contradicted. <strong>SOFT-FAIL</strong>: \
         contradicted, where the claim rests on a reading we had to choose or on data that differ \
         from the document's. <strong>SKIP</strong>: cannot be judged at the scale run. A TIE or \
         FAIL carries the reason found by investigating the data.</p>\n",
    );
    b.push_str("<h2 id=\"verdicts\">Verdicts per document</h2>\n");
    b.push_str(
        "<p>The documents' own statements under our default readings; re-checks under an \
         alternative reading (<em>sensitivity</em>), claims checked through a parameter fitted \
         to the document (<em>calibrated</em>) and <em>our checks</em> are counted apart. Each \
         number opens the claims it counts.</p>\n",
    );
    let mut t = String::from(
        "<table class=\"counts\">\n<caption>Claims per document and verdict</caption>\n<thead>\
         <tr><th scope=\"col\" rowspan=\"2\">Document</th><th scope=\"col\" rowspan=\"2\">\
         Experiments run</th><th scope=\"col\" rowspan=\"2\">Scale</th>",
    );
    t.push_str("<th scope=\"colgroup\" colspan=\"5\">The documents' claims</th>");
    for (_, label) in &KINDS[1..] {
        write!(
            t,
            "<th scope=\"col\" rowspan=\"2\">{}: PASS / TIE / FAIL / SOFT-FAIL / SKIP</th>",
            capitalized(label)
        )
        .ok();
    }
    t.push_str("</tr>\n<tr>");
    t.push_str(&verdict_headers());
    t.push_str("</tr>\n</thead>\n<tbody>\n");
    for pr in &ctx.results.papers {
        let scales: Vec<&str> = pr.scales.iter().map(|s| s.name()).collect();
        write!(
            t,
            "<tr><th scope=\"row\"><a href=\"{}\">{}</a></th><td class=\"num\">{} of {}</td><td>{}</td>",
            p.href(&doc_path(pr.paper.key)),
            esc(pr.paper.short),
            pr.run,
            pr.experiments.len(),
            if scales.is_empty() {
                "—".to_string()
            } else {
                scales.join(", ")
            }
        )
        .ok();
        for (kind, _) in KINDS {
            t.push_str(&counts_cells(&p, pr.paper.key, kind, pr.counts.of(kind)));
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</tbody>\n</table>\n");
    b.push_str(&scroll(&t, "Claims per document and verdict"));
    writeln!(
        b,
        "<p>All documents: {}. <a href=\"{}\">Every claim, filterable</a>.</p>",
        esc(&ctx.results.totals.line()),
        p.href("claims.html")
    )
    .ok();
    b.push_str("<h2 id=\"findings\">Headline findings</h2>\n");
    for pr in &ctx.results.papers {
        writeln!(
            b,
            "<section aria-labelledby=\"doc-{key}\">\n<h3 id=\"doc-{key}\"><a href=\"{}\">{}</a></h3>\n<p class=\"citation\">{}</p>",
            p.href(&doc_path(pr.paper.key)),
            esc(pr.paper.short),
            esc(pr.paper.citation),
            key = pr.paper.key,
        )
        .ok();
        match &pr.ledger {
            Some(ledger) if !ledger.row.is_empty() => {
                b.push_str("<ul class=\"findings\">\n");
                for row in &ledger.row {
                    let Some((exp, id)) = row.target() else {
                        continue;
                    };
                    let (badge, quote) = match pr.claim(exp, id) {
                        Some((c, _)) => (verdict_badge(c.verdict), c.quote.as_str()),
                        None => ("<span class=\"verdict\">not judged</span>".into(), ""),
                    };
                    writeln!(
                        b,
                        "<li>{badge} <a href=\"{}#claim-{}\">{} {}</a>: “{}” — {}.</li>",
                        p.href(&exp_path(exp)),
                        esc(id),
                        esc(exp),
                        esc(id),
                        esc(quote),
                        esc(row.class.describe()),
                    )
                    .ok();
                }
                b.push_str("</ul>\n");
                writeln!(
                    b,
                    "<p><a href=\"{}#ledger\">What differs and the evidence</a>, and the {} experiments.</p>",
                    p.href(&doc_path(pr.paper.key)),
                    pr.experiments.len()
                )
                .ok();
            }
            _ => {
                writeln!(
                    b,
                    "<p><a href=\"{}\">Its {} experiments</a>.</p>",
                    p.href(&doc_path(pr.paper.key)),
                    pr.experiments.len()
                )
                .ok();
            }
        }
        b.push_str("</section>\n");
    }
    if !ctx.results.paper_runs.is_empty() {
        b.push_str("<h2 id=\"paper-runs\">Paper-scale runs</h2>\n");
        let mut t = String::from(
            "<table>\n<caption>Sweeps run at the documents' scale</caption>\n<thead><tr>\
             <th scope=\"col\">Sweep</th><th scope=\"col\">Experiments</th><th scope=\"col\">\
             Wall time (s)</th><th scope=\"col\">Threads</th><th scope=\"col\">Revision</th>\
             </tr></thead>\n<tbody>\n",
        );
        let mut total = 0.0;
        for run in &ctx.results.paper_runs {
            let wall = run
                .meta
                .get("wall_seconds")
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN);
            total += wall;
            let links: Vec<String> = run
                .experiments
                .iter()
                .map(|id| format!("<a href=\"{}\">{}</a>", p.href(&exp_path(id)), esc(id)))
                .collect();
            writeln!(
                t,
                "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td class=\"num\">{wall:.0}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&run.sweep),
                links.join(", "),
                run.meta.get("threads").cloned().unwrap_or_default(),
                revision_html(run.meta.get("git_revision").and_then(|v| v.as_str()).unwrap_or("?")),
            )
            .ok();
        }
        t.push_str("</tbody>\n</table>\n");
        writeln!(
            b,
            "<details><summary>{} sweeps; sum of the wall times {total:.0} s ({:.1} min), on a machine shared with other work</summary>\n{}</details>",
            ctx.results.paper_runs.len(),
            total / 60.0,
            scroll(&t, "Paper-scale runs")
        )
        .ok();
    }
    page(&p, "Reproduction", &b, false)
}

fn revision_html(revision: &str) -> String {
    if output::is_dirty_revision(revision) {
        format!(
            "<code>{}</code> <strong>(dirty: run from uncommitted changes)</strong>",
            esc(revision)
        )
    } else {
        format!("<code>{}</code>", esc(revision))
    }
}

fn claim_counts(claims: &[ClaimOutcome]) -> Counts {
    let mut c = Counts::default();
    for o in claims {
        c.add(o);
    }
    c
}

fn doc_page(ctx: &Ctx, pr: &PaperResults) -> String {
    let p = PagePath::new(doc_path(pr.paper.key));
    let mut b = String::new();
    writeln!(
        b,
        "<nav class=\"crumbs\" aria-label=\"Breadcrumb\"><a href=\"{}\">Reproduction</a> › {}</nav>\n<h1>{}</h1>\n<p class=\"citation\">{} (seed {}).</p>",
        p.href("index.html"),
        esc(pr.paper.short),
        esc(pr.paper.short),
        esc(pr.paper.citation),
        esc(pr.paper.seed),
    )
    .ok();
    match ctx.specs.get(pr.paper.spec) {
        Some(spec) => writeln!(
            b,
            "<p>Implementation spec: <a href=\"{}\"><code>shared/spec/{}</code></a>.</p>",
            p.href(&spec.path),
            esc(pr.paper.spec)
        ),
        None => writeln!(
            b,
            "<p>Implementation spec: <code>shared/spec/{}</code>.</p>",
            esc(pr.paper.spec)
        ),
    }
    .ok();
    if let Some(ledger) = &pr.ledger {
        b.push_str(
            "<h2 id=\"ledger\">Divergence ledger</h2>\n<p>The document's headline claims (those its \
             abstract or conclusion state), each with its verdict and the class of the \
             difference.</p>\n",
        );
        let mut t = String::from(
            "<table class=\"ledger\">\n<caption>Headline claims and what differs</caption>\n<thead><tr>\
             <th scope=\"col\">Claim</th><th scope=\"col\">The document says</th><th scope=\"col\">\
             Verdict</th><th scope=\"col\">Class</th><th scope=\"col\">What differs, and the \
             evidence</th></tr></thead>\n<tbody>\n",
        );
        for row in &ledger.row {
            let Some((exp, id)) = row.target() else {
                continue;
            };
            let (quote, verdict) = match pr.claim(exp, id) {
                Some((c, scale)) => (
                    esc(&c.quote),
                    format!("{} ({})", verdict_badge(c.verdict), scale.name()),
                ),
                None => (String::new(), "no such claim judged".to_string()),
            };
            writeln!(
                t,
                "<tr><th scope=\"row\"><a href=\"{}#claim-{}\">{} {}</a></th><td>{quote}</td><td>{verdict}</td><td>{}</td><td>{}</td></tr>",
                p.href(&exp_path(exp)),
                esc(id),
                esc(exp),
                esc(id),
                esc(row.class.describe()),
                ctx.linker
                    .inline(&ledger_row_markdown(row, ctx.project), &p),
            )
            .ok();
        }
        t.push_str("</tbody>\n</table>\n");
        b.push_str(&scroll(&t, "Divergence ledger"));
    }
    b.push_str("<h2 id=\"experiments\">Experiments</h2>\n");
    let mut t = String::from(
        "<table class=\"experiments\">\n<caption>Experiments of this document, with the verdicts of \
         all their claims</caption>\n<thead><tr><th scope=\"col\">Experiment</th><th scope=\"col\">\
         Title</th><th scope=\"col\">Chapter</th><th scope=\"col\">Scale</th>",
    );
    t.push_str(&verdict_headers());
    t.push_str("</tr></thead>\n<tbody>\n");
    for e in &pr.experiments {
        let counts = claim_counts(&e.claims);
        write!(
            t,
            "<tr><th scope=\"row\"><a href=\"{}\">{}</a></th><td>{}</td><td>{}</td><td>{}</td>",
            p.href(&exp_path(&e.exp.spec.id)),
            esc(&e.exp.spec.id),
            esc(&e.exp.spec.title),
            esc(&e.exp.spec.chapter().unwrap_or_else(|| "—".into())),
            e.scale.map_or("not run", |s| s.name()),
        )
        .ok();
        for v in VERDICTS {
            let n: usize = KINDS
                .iter()
                .map(|(k, _)| counts.of(*k)[verdict_index(v)])
                .sum();
            write!(
                t,
                "<td class=\"num{}\">{n}</td>",
                if n == 0 { " zero" } else { "" }
            )
            .ok();
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</tbody>\n</table>\n");
    b.push_str(&scroll(&t, "Experiments"));
    if let Some(readings) = &pr.readings {
        b.push_str("<div class=\"readings\">\n");
        b.push_str(&ctx.linker.markdown_at(
            readings,
            &p,
            &format!("experiments/{}", pr.paper.key),
            &slug,
            Some(2),
        ));
        b.push_str("</div>\n");
    }
    page(&p, pr.paper.short, &b, false)
}

/// The spec section references of an interpretation (`§2.4, §3 ch. 6`) with each `§N.M`
/// linked to its section of the spec page (or the enclosing section it is listed under).
fn spec_refs(ctx: &Ctx, p: &PagePath, spec: &str, section: &str) -> String {
    let Some(page) = ctx.specs.get(spec) else {
        return esc(section);
    };
    let mut out = String::new();
    let mut rest = section;
    while let Some(i) = rest.find('§') {
        out.push_str(&esc(&rest[..i]));
        let after = &rest[i + '§'.len_utf8()..];
        let len = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(after.len());
        let number = after[..len].trim_end_matches('.');
        let mut target = number.to_string();
        while !target.is_empty() && !page.ids.contains(&format!("s{target}")) {
            target = target
                .rsplit_once('.')
                .map_or(String::new(), |(head, _)| head.to_string());
        }
        if target.is_empty() {
            out.push_str(&esc(&format!("§{number}")));
        } else {
            write!(
                out,
                "<a href=\"{}#s{target}\">§{}</a>",
                p.href(&page.path),
                esc(number)
            )
            .ok();
        }
        rest = &after[number.len()..];
    }
    out.push_str(&esc(rest));
    out
}

fn experiment_page(ctx: &Ctx, pr: &PaperResults, e: &ExperimentResults) -> String {
    let exp = e.exp;
    let id = &exp.spec.id;
    let p = PagePath::new(exp_path(id));
    let mut b = String::new();
    writeln!(
        b,
        "<nav class=\"crumbs\" aria-label=\"Breadcrumb\"><a href=\"{}\">Reproduction</a> › <a href=\"{}\">{}</a> › {}</nav>\n<h1><span class=\"id\">{}</span> {}</h1>\n<p class=\"caption\">{}</p>",
        p.href("index.html"),
        p.href(&doc_path(pr.paper.key)),
        esc(pr.paper.short),
        esc(id),
        esc(id),
        esc(&exp.spec.title),
        esc(&exp.spec.caption),
    )
    .ok();
    let counts = claim_counts(&e.claims);
    if !e.claims.is_empty() {
        b.push_str("<p class=\"summary\">");
        for v in VERDICTS {
            let n: usize = KINDS
                .iter()
                .map(|(k, _)| counts.of(*k)[verdict_index(v)])
                .sum();
            if n > 0 {
                write!(b, "{} × {n} ", verdict_badge(v)).ok();
            }
        }
        b.push_str("</p>\n");
    }
    // Figures: paper scale first (the one judged), quick beside it.
    if !e.figures.is_empty() {
        b.push_str("<div class=\"figures\">\n");
        for (scale, svg) in &e.figures {
            let judged = e.scale == Some(*scale);
            writeln!(
                b,
                "<figure><a href=\"{src}\"><img src=\"{src}\" alt=\"{} ({} scale): {}\"></a><figcaption>{} scale{}</figcaption></figure>",
                esc(&exp.spec.title),
                scale.name(),
                esc(&exp.spec.caption),
                capitalized(scale.name()),
                if judged { " (the claims are judged on it)" } else { "" },
                src = p.href(&site_path(&ctx.project.root, svg)),
            )
            .ok();
        }
        b.push_str("</div>\n");
    }
    b.push_str("<h2 id=\"run\">How it was run</h2>\n<dl class=\"facts\">\n");
    let sweep = &exp.sweep;
    writeln!(
        b,
        "<dt>Regenerate</dt><dd><code>cargo reproduce {id}</code> (quick scale) · <code>cargo reproduce {id} --scale paper</code> (the document's scale), then <code>cargo gridsched report</code> and <code>cargo gridsched site --out site</code></dd>",
        id = esc(id)
    )
    .ok();
    writeln!(
        b,
        "<dt>Model</dt><dd><code>{}</code>; fixed parameters: {}</dd>",
        esc(&sweep.model),
        if sweep.parameters.is_empty() {
            "none (the model's defaults)".to_string()
        } else {
            esc(&params_line(&sweep.parameters))
        }
    )
    .ok();
    if e.scale.is_some() {
        writeln!(
            b,
            "<dt>Axis</dt><dd><code>{}</code> ∈ {{{}}}</dd>",
            esc(&sweep.axis.parameter),
            esc(&axis_values_line(e))
        )
        .ok();
    }
    let series: Vec<String> = series_parts(sweep)
        .into_iter()
        .map(|(name, params)| match params {
            None => format!("<code>{}</code>", esc(name)),
            Some(p) => format!("<code>{}</code> ({})", esc(name), esc(&p)),
        })
        .collect();
    writeln!(b, "<dt>Series</dt><dd>{}</dd>", series.join("; ")).ok();
    writeln!(
        b,
        "<dt>Seed</dt><dd>{} (sweep <code>{}</code>; every random stream is named from it)</dd>",
        sweep.seed,
        esc(&sweep.name)
    )
    .ok();
    match e.scale {
        None => {
            b.push_str("<dt>Results</dt><dd>Not run yet.</dd>\n");
        }
        Some(scale) => {
            let f = |k: &str| e.meta_field(k);
            let size = if e.meta.is_some() {
                format!(
                    "; {} replications × {} jobs per point",
                    f("replications"),
                    f("jobs_per_replication")
                )
            } else {
                String::new()
            };
            writeln!(
                b,
                "<dt>Scale judged</dt><dd>{}{}</dd>",
                scale.name(),
                esc(&size)
            )
            .ok();
            if e.meta.is_some() {
                writeln!(
                    b,
                    "<dt>Provenance</dt><dd>revision {}; sweep <code>{}</code>; wall time {} s on {} ({} threads)</dd>",
                    revision_html(f("git_revision").as_str().unwrap_or("?")),
                    esc(f("sweep").as_str().unwrap_or("?")),
                    f("wall_seconds")
                        .as_f64()
                        .map_or("?".to_string(), |w| format!("{w:.1}")),
                    esc(f("machine").as_str().unwrap_or("?")),
                    f("threads"),
                )
                .ok();
                if let Some(command) = f("command").as_str() {
                    writeln!(
                        b,
                        "<dt>Recorded command</dt><dd><details><summary>The command that produced these results</summary><pre><code>{}</code></pre></details></dd>",
                        esc(command)
                    )
                    .ok();
                }
            } else {
                b.push_str(
                    "<dt>Provenance</dt><dd>Quick-scale results carry no provenance record; \
                     the regenerating command above reproduces them bit for bit.</dd>\n",
                );
            }
            let csv = site_path(&ctx.project.root, &ctx.project.runs_csv(exp, scale));
            let summary = site_path(&ctx.project.root, &ctx.project.summary_csv(exp, scale));
            writeln!(
                b,
                "<dt>Data</dt><dd>{}, {}</dd>",
                repo_file(ctx, &csv),
                repo_file(ctx, &summary)
            )
            .ok();
        }
    }
    writeln!(
        b,
        "<dt>Entry</dt><dd>{}</dd>",
        repo_file(ctx, &format!("experiments/{}", exp.source))
    )
    .ok();
    b.push_str("</dl>\n");
    if exp.spec.kind == "table" && e.scale.is_some() {
        b.push_str("<h2 id=\"table\">Table, beside the document's cells</h2>\n");
        b.push_str(&grid_html(ctx, &p, e));
    }
    if !e.claims.is_empty() {
        b.push_str("<h2 id=\"claims\">Claims</h2>\n");
        for (c, parsed) in e.claims.iter().zip(&exp.claims) {
            let spec = parsed.spec();
            let mut tags = String::new();
            if c.kind != ClaimKind::Document {
                write!(tags, " <span class=\"tag\">{}</span>", kind_label(c.kind)).ok();
            }
            if c.soft {
                tags.push_str(" <span class=\"tag\">soft</span>");
            }
            writeln!(
                b,
                "<article class=\"claim v-{v}\" id=\"claim-{cid}\">\n<h3>{badge} Claim {cid_text}{tags}</h3>\n<dl>\n<dt>The document says</dt><dd><blockquote>{}</blockquote></dd>\n<dt>Checked as</dt><dd>{}</dd>\n<dt>Measured</dt><dd>{}</dd>",
                esc(&c.quote),
                ctx.linker.inline(&check_markdown(spec), &p),
                esc(&c.summary),
                v = c.verdict.as_str().to_ascii_lowercase(),
                cid = esc(&c.id),
                cid_text = esc(&c.id),
                badge = verdict_badge(c.verdict),
            )
            .ok();
            if let Some(why) = reason(c) {
                writeln!(b, "<dt>Why</dt><dd>{}</dd>", ctx.linker.inline(why, &p)).ok();
            }
            if let Some(note) = &spec.note {
                writeln!(b, "<dt>Note</dt><dd>{}</dd>", ctx.linker.inline(note, &p)).ok();
            }
            b.push_str("</dl>\n</article>\n");
        }
    }
    if !exp.spec.interpretations.is_empty() {
        b.push_str("<h2 id=\"interpretations\">Interpretations it rests on</h2>\n<ul class=\"interpretations\">\n");
        for i in &exp.spec.interpretations {
            writeln!(
                b,
                "<li id=\"interp-{}\"><strong>{}</strong> (spec {}): {}</li>",
                esc(&slug(&i.id)),
                esc(&i.id),
                spec_refs(ctx, &p, pr.paper.spec, &i.section),
                ctx.linker.inline(&i.text, &p)
            )
            .ok();
        }
        b.push_str("</ul>\n");
    }
    if !exp.spec.notes.is_empty() {
        b.push_str("<h2 id=\"notes\">Notes</h2>\n");
        for note in &exp.spec.notes {
            writeln!(
                b,
                "<div class=\"note\">{}</div>",
                ctx.linker.markdown(note, &p, "", &slug)
            )
            .ok();
        }
    }
    page(&p, &format!("{id} — {}", exp.spec.title), &b, false)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A repository file named in a page: a link to it in the repository when its address is
/// known, else its path as code.
fn repo_file(ctx: &Ctx, path: &str) -> String {
    if ctx.linker.repository.is_empty() {
        format!("<code>{}</code>", esc(path))
    } else {
        format!(
            "<a href=\"{}/blob/HEAD/{}\"><code>{}</code></a>",
            esc(&ctx.linker.repository),
            esc(path),
            esc(path)
        )
    }
}

/// The table of a `kind = "table"` experiment, each of the document's cells marked where our
/// mean lies outside our spread and half a percent from it.
fn grid_html(ctx: &Ctx, p: &PagePath, e: &ExperimentResults) -> String {
    let grid = results_grid(e.exp, &e.table);
    let mut t = format!(
        "<table class=\"grid\">\n<caption>{} — ours (mean ± spread) beside the document's values</caption>\n<thead><tr>",
        esc(&e.exp.spec.title)
    );
    for h in &grid.header {
        write!(t, "<th scope=\"col\">{}</th>", esc(h)).ok();
    }
    t.push_str("</tr></thead>\n<tbody>\n");
    let mut marked = 0;
    for row in &grid.rows {
        t.push_str("<tr>");
        for c in row {
            match c.role {
                GridRole::Label => {
                    write!(t, "<th scope=\"row\">{}</th>", esc(&c.text)).ok();
                }
                GridRole::Ours => {
                    write!(t, "<td class=\"ours\">{}</td>", esc(&c.text)).ok();
                }
                GridRole::Document { differs: None } => {
                    write!(t, "<td class=\"doc\">{}</td>", esc(&c.text)).ok();
                }
                GridRole::Document { differs: Some(rel) } => {
                    marked += 1;
                    write!(
                        t,
                        "<td class=\"doc differs\">{} <span class=\"delta\">(ours {:+.1} %)</span></td>",
                        esc(&c.text),
                        rel * 100.0
                    )
                    .ok();
                }
            }
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</tbody>\n</table>\n");
    let mut out = scroll(&t, &e.exp.spec.title);
    writeln!(
        out,
        "<p class=\"legend\">{marked} of the document's cells differ from ours (marked, with our \
         mean's relative difference): our mean lies outside our spread around it and more than \
         0.5 % from it. † the document's value is flagged as anomalous.</p>"
    )
    .ok();
    if let Some(note) = &grid.note {
        out.push_str(&ctx.linker.markdown(note, p, "", &slug));
    }
    out
}

fn claims_page(ctx: &Ctx) -> String {
    let p = PagePath::new("claims.html");
    let mut b = String::new();
    b.push_str(
        "<h1>Claims</h1>\n<p>Every claim of every document: the document's sentence, the \
         verdict and the measured numbers, with the reason beside a TIE or FAIL. Each claim \
         links to its experiment's page, where the figure, the predicate and the \
         interpretations are.</p>\n\
         <noscript><p class=\"notice\">The filters need JavaScript; without it, every claim is \
         listed below, grouped by document.</p></noscript>\n",
    );
    let mut docs = Vec::new();
    let mut chapters: BTreeSet<(u32, String)> = BTreeSet::new();
    let mut rows = String::new();
    let mut total = 0;
    for pr in &ctx.results.papers {
        docs.push((pr.paper.key, pr.paper.short));
        for e in &pr.experiments {
            let chapter = e.exp.spec.chapter().unwrap_or_default();
            if !chapter.is_empty() {
                chapters.insert((chapter.parse().unwrap_or(u32::MAX), chapter.clone()));
            }
            for c in &e.claims {
                total += 1;
                let why = reason(c)
                    .map(|w| {
                        format!(
                            "<p class=\"why\"><strong>Why:</strong> {}</p>",
                            ctx.linker.inline(w, &p)
                        )
                    })
                    .unwrap_or_default();
                writeln!(
                    rows,
                    "<tr data-doc=\"{key}\" data-verdict=\"{v}\" data-chapter=\"{ch}\" data-kind=\"{kind}\">\
                     <td>{short}</td><td><a href=\"{href}\">{exp}</a></td><td><a href=\"{href}#claim-{cid}\">{cid}</a></td>\
                     <td>{chd}</td><td>{kl}</td><td>{badge}</td><td>{quote}</td><td>{summary}{why}</td></tr>",
                    key = pr.paper.key,
                    v = c.verdict.as_str(),
                    ch = esc(&chapter),
                    kind = c.kind.as_str(),
                    short = esc(pr.paper.short),
                    href = p.href(&exp_path(&e.exp.spec.id)),
                    exp = esc(&e.exp.spec.id),
                    cid = esc(&c.id),
                    chd = if chapter.is_empty() { "—".to_string() } else { esc(&chapter) },
                    kl = kind_label(c.kind),
                    badge = verdict_badge(c.verdict),
                    quote = esc(&c.quote),
                    summary = esc(&c.summary),
                )
                .ok();
            }
        }
    }
    b.push_str(
        "<form id=\"filters\" class=\"filters\" role=\"search\" aria-label=\"Filter the claims\" hidden>\n",
    );
    let select = |b: &mut String, id: &str, label: &str, options: &[(String, String)]| {
        write!(
            b,
            "<label for=\"f-{id}\">{label}</label> <select id=\"f-{id}\" name=\"{id}\"><option value=\"\">all</option>"
        )
        .ok();
        for (value, text) in options {
            write!(b, "<option value=\"{}\">{}</option>", esc(value), esc(text)).ok();
        }
        b.push_str("</select>\n");
    };
    select(
        &mut b,
        "doc",
        "Document",
        &docs
            .iter()
            .map(|(k, s)| (k.to_string(), s.to_string()))
            .collect::<Vec<_>>(),
    );
    select(
        &mut b,
        "verdict",
        "Verdict",
        &VERDICTS
            .iter()
            .map(|v| (v.as_str().to_string(), v.as_str().to_string()))
            .collect::<Vec<_>>(),
    );
    select(
        &mut b,
        "chapter",
        "Chapter",
        &chapters
            .iter()
            .map(|(_, c)| (c.clone(), c.clone()))
            .collect::<Vec<_>>(),
    );
    select(
        &mut b,
        "kind",
        "Kind",
        &KINDS
            .iter()
            .map(|(k, l)| (k.as_str().to_string(), l.to_string()))
            .collect::<Vec<_>>(),
    );
    b.push_str(
        "<label for=\"f-q\">Text</label> <input id=\"f-q\" name=\"q\" type=\"search\" \
         placeholder=\"words in the claim, numbers, reason\">\n\
         <button type=\"reset\">Clear</button>\n</form>\n",
    );
    writeln!(
        b,
        "<p id=\"count\" aria-live=\"polite\">{total} claims.</p>"
    )
    .ok();
    let table = format!(
        "<table id=\"claims\" class=\"claims\">\n<caption>Every claim</caption>\n<thead><tr>\
         <th scope=\"col\">Document</th><th scope=\"col\">Experiment</th><th scope=\"col\">Claim</th>\
         <th scope=\"col\">Chapter</th><th scope=\"col\">Kind</th><th scope=\"col\">Verdict</th>\
         <th scope=\"col\">The document says</th><th scope=\"col\">Measured</th></tr></thead>\n\
         <tbody>\n{rows}</tbody>\n</table>\n"
    );
    b.push_str(&scroll(&table, "Every claim"));
    page(&p, "Claims", &b, true)
}

fn benchmarks_page(ctx: &Ctx) -> Result<String, HarnessError> {
    let p = PagePath::new("benchmarks.html");
    let source = ctx.project.root.join("docs").join("benchmarks.md");
    let body = match std::fs::read_to_string(&source) {
        Ok(text) => {
            // The file's title is the page's one h1; its other top-level parts nest under it.
            let (title, rest) = split_title(&text);
            format!(
                "<h1>{}</h1>\n{}",
                esc(title.unwrap_or("Benchmarks")),
                ctx.linker.markdown_at(rest, &p, "docs", &slug, Some(2))
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "<h1>Benchmarks</h1>\n<p>No <code>docs/benchmarks.md</code> in these results: run \
             <code>cargo bench</code> and <code>cargo gridsched bench-report</code>.</p>\n"
                .to_string()
        }
        Err(e) => return Err(HarnessError::io(&source, e)),
    };
    Ok(page(
        &p,
        "Benchmarks",
        &format!("<div class=\"prose\">\n{body}</div>\n"),
        false,
    ))
}

/// A Markdown file's leading `# Title` line and the rest.
fn split_title(text: &str) -> (Option<&str>, &str) {
    match text.strip_prefix("# ") {
        Some(rest) => {
            let (title, body) = rest.split_once('\n').unwrap_or((rest, ""));
            (Some(title.trim()), body)
        }
        None => (None, text),
    }
}

/// A spec as a page; numbered headings (`2.4 Best-effort ...`, `4. Workloads`) get the ids
/// `s2.4`, `s4` that section references link to.
fn spec_page(ctx: &Ctx, path: &str, file: &str, text: &str) -> (String, BTreeSet<String>) {
    let p = PagePath::new(path);
    let ids = RefCell::new(BTreeSet::new());
    let heading_id = |t: &str| {
        let t = t.trim();
        let len = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let number = t[..len].trim_end_matches('.');
        let id = if !number.is_empty() && number.starts_with(|c: char| c.is_ascii_digit()) {
            format!("s{number}")
        } else {
            slug(t)
        };
        ids.borrow_mut().insert(id.clone());
        id
    };
    let (title, rest) = split_title(text);
    let body = format!(
        "<h1>{}</h1>\n{}",
        esc(title.unwrap_or(file)),
        ctx.linker
            .markdown_at(rest, &p, "shared/spec", &heading_id, Some(2))
    );
    let html = page(
        &p,
        &format!("Spec {file}"),
        &format!(
            "<nav class=\"crumbs\" aria-label=\"Breadcrumb\"><a href=\"{}\">Reproduction</a> › spec <code>{}</code></nav>\n<div class=\"prose\">\n{body}</div>\n",
            p.href("index.html"),
            esc(file)
        ),
        false,
    );
    (html, ids.into_inner())
}
