//! Every claim that does not reproduce says why: evaluated on the committed results (paper scale
//! where present, else quick, as REPRODUCTION.md shows them), each TIE, FAIL and SOFT-FAIL must
//! carry the `if_fails` reason found by investigating the data (experiments/CLAIMS.md, rule 4).
//! And no committed verdict is older than its claim: a paper-scale result must hold every metric
//! its entry's claims name (a claim rewritten after its paper run is otherwise SKIP in silence).

use gridsched_repro::Scale;
use gridsched_repro::claims::Verdict;
use gridsched_repro::output::read_runs_csv;
use gridsched_repro::reproduce::{Project, check_claims, summarize};

#[test]
fn every_fail_on_the_committed_results_has_a_reason() {
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    let project = Project {
        root: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut missing = Vec::new();
    let mut judged = 0;
    for exp in registry.all() {
        let Some(scale) = [Scale::Paper, Scale::Quick]
            .into_iter()
            .find(|s| project.runs_csv(exp, *s).is_file())
        else {
            continue;
        };
        let (_, _, mut values) = read_runs_csv(&project.runs_csv(exp, scale)).unwrap();
        let timing = project.timing_csv(exp, scale);
        if timing.is_file() {
            values.append(&mut read_runs_csv(&timing).unwrap().2);
        }
        let table = summarize(exp, &values);
        for outcome in check_claims(exp, &table, scale).iter() {
            judged += 1;
            // The outcome carries the reason for the scale judged (`if_fails_quick` at quick
            // scale when given).
            if matches!(
                outcome.verdict,
                Verdict::Tie | Verdict::Fail | Verdict::SoftFail
            ) && outcome.if_fails.is_none()
            {
                missing.push(format!(
                    "{} {} ({} at {} scale): {}",
                    exp.spec.id,
                    outcome.id,
                    outcome.verdict,
                    scale.name(),
                    outcome.summary
                ));
            }
        }
    }
    assert!(
        judged > 100,
        "only {judged} claims judged: are the results in data/?"
    );
    assert!(
        missing.is_empty(),
        "claims that fail without an investigated `if_fails` reason:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_paper_scale_result_lacks_a_metric_its_claims_name() {
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    let project = Project {
        root: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut stale = Vec::new();
    let mut checked = 0;
    for exp in registry.all() {
        let csv = project.runs_csv(exp, Scale::Paper);
        if !csv.is_file() {
            continue;
        }
        checked += 1;
        let (_, _, mut values) = read_runs_csv(&csv).unwrap();
        let timing = project.timing_csv(exp, Scale::Paper);
        if timing.is_file() {
            values.append(&mut read_runs_csv(&timing).unwrap().2);
        }
        let present: std::collections::BTreeSet<&str> =
            values.iter().map(|v| v.metric.as_str()).collect();
        for claim in &exp.claims {
            let absent: Vec<String> = claim
                .metrics()
                .into_iter()
                .filter(|m| !present.contains(m.as_str()))
                .collect();
            if !absent.is_empty() {
                stale.push(format!(
                    "{} {}: {} (rerun `gridsched reproduce {} --scale paper` from a committed revision)",
                    exp.spec.id,
                    claim.id(),
                    absent.join(", "),
                    exp.spec.id
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} paper-scale results found");
    assert!(
        stale.is_empty(),
        "paper-scale results older than their claims (a metric the claim names is missing):\n{}",
        stale.join("\n")
    );
}
