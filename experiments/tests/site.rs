//! The site built from the committed results (`gridsched site`): every experiment has its
//! page, every link inside the site resolves, and two builds are byte-identical.

use gridsched_repro::Scale;
use gridsched_repro::reproduce::Project;
use gridsched_repro::site::{SiteOptions, render_site};

#[test]
fn the_committed_results_build_a_whole_deterministic_site() {
    let registry = gridsched_experiments::registry().unwrap();
    let project = Project {
        root: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let options = SiteOptions {
        spec_dir: None,
        repository: "https://github.com/gridsched/gridsched".into(),
    };
    let site = render_site(&registry, &project, &options).unwrap();
    for exp in registry.all() {
        let page = format!("exp/{}.html", exp.spec.id);
        assert!(site.files.contains_key(&page), "{page} missing");
    }
    for page in ["index.html", "claims.html", "benchmarks.html"] {
        assert!(site.files.contains_key(page), "{page} missing");
    }
    let broken = site.broken_links();
    assert!(
        broken.is_empty(),
        "{} broken links: {broken:#?}",
        broken.len()
    );
    // Every claim of every experiment that has results is in the index, once.
    let claims = site.text("claims.html").unwrap();
    let judged: usize = registry
        .all()
        .iter()
        .filter(|e| {
            [Scale::Paper, Scale::Quick]
                .iter()
                .any(|s| project.runs_csv(e, *s).is_file())
        })
        .map(|e| e.claims.len())
        .sum();
    assert_eq!(claims.matches("<tr data-doc=").count(), judged);
    assert_eq!(site, render_site(&registry, &project, &options).unwrap());
}
