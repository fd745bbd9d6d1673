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

/// Each document's divergence ledger (`experiments/<paper>/ledger.toml`) names claims that exist
/// and are the document's own, gives each class what it needs (quotes for a
/// self-contradiction, a switch for a reading, evidence that exists), and never calls a claim
/// reproduced, or fixed, that does not pass on the committed results.
#[test]
fn ledgers_agree_with_the_claims_and_the_committed_results() {
    use gridsched_repro::claims::ClaimKind;
    use gridsched_repro::ledger::{DivergenceClass, load_ledger};
    let registry = gridsched_experiments::registry().unwrap_or_else(|e| panic!("{e}"));
    let project = Project {
        root: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut problems = Vec::new();
    let mut without = Vec::new();
    for paper in registry.papers() {
        let Some(ledger) = load_ledger(&project.root, paper.key).unwrap_or_else(|e| panic!("{e}"))
        else {
            without.push(paper.key);
            continue;
        };
        if ledger.row.is_empty() {
            problems.push(format!("{}: an empty ledger", paper.key));
        }
        for row in &ledger.row {
            let (exp_id, claim_id) = row.target().expect("checked when loaded");
            let Some(exp) = registry.all().iter().find(|e| e.spec.id == exp_id) else {
                problems.push(format!("{}: no experiment {exp_id}", row.claim));
                continue;
            };
            let Some(claim) = exp.claims.iter().find(|c| c.id() == claim_id) else {
                problems.push(format!("{}: {exp_id} has no claim {claim_id}", row.claim));
                continue;
            };
            if claim.spec().kind != ClaimKind::Document {
                problems.push(format!(
                    "{}: a headline claim must be the document's own, not `{}`",
                    row.claim,
                    claim.spec().kind.as_str()
                ));
            }
            match row.class {
                DivergenceClass::SelfContradiction if row.quotes.len() < 2 => problems.push(
                    format!("{}: a self-contradiction quotes both places", row.claim),
                ),
                DivergenceClass::Reading if row.switch.is_empty() => {
                    problems.push(format!("{}: a reading names its switch", row.claim))
                }
                _ => {}
            }
            if row.class != DivergenceClass::Reproduced && row.evidence.is_empty() {
                problems.push(format!("{}: a difference needs evidence", row.claim));
            }
            for e in &row.evidence {
                let path = e.split('#').next().unwrap_or(e);
                if !project.root.join(path).exists() {
                    problems.push(format!("{}: evidence `{e}` does not exist", row.claim));
                }
            }
            if row.class.requires_pass() {
                let Some(scale) = [Scale::Paper, Scale::Quick]
                    .into_iter()
                    .find(|s| project.runs_csv(exp, *s).is_file())
                else {
                    problems.push(format!("{}: no committed result", row.claim));
                    continue;
                };
                let (_, _, mut values) = read_runs_csv(&project.runs_csv(exp, scale)).unwrap();
                let timing = project.timing_csv(exp, scale);
                if timing.is_file() {
                    values.append(&mut read_runs_csv(&timing).unwrap().2);
                }
                let table = summarize(exp, &values);
                let outcome = claim.evaluate(&table, scale == Scale::Paper);
                if outcome.verdict != Verdict::Pass {
                    problems.push(format!(
                        "{}: class `{}` but the claim is {} at {} scale",
                        row.claim,
                        row.class.describe(),
                        outcome.verdict,
                        scale.name()
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "divergence ledgers:\n{}",
        problems.join("\n")
    );
    if !without.is_empty() {
        eprintln!("NOTICE: no divergence ledger yet for {without:?}");
    }
}
