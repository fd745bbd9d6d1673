//! The text that pins an experiment's quick-scale numbers in an insta snapshot.
//!
//! Values are rounded to 4 significant digits so that a last-bit difference in a libm function
//! on another platform cannot change a snapshot, while any real change of behaviour does.

use std::fmt::Write as _;

use crate::claims::fmt_sig4;
use crate::output::is_timing_metric;
use crate::registry::Experiment;
use crate::reproduce::ExperimentResult;
use crate::table::Lookup;

/// Renders the table (mean ± CI half-width per metric, point and series) and claim verdicts.
pub fn snapshot_text(exp: &Experiment, result: &ExperimentResult) -> String {
    let mut t = String::new();
    writeln!(
        t,
        "{} at {} scale: {} replications x {} jobs per point",
        exp.spec.id,
        result.scale.name(),
        result.size.replications,
        result.size.jobs
    )
    .ok();
    let series: Vec<&str> = exp.sweep.series.iter().map(|s| s.name.as_str()).collect();
    // Wall-clock metrics and the claims that read them are not reproducible: left out.
    for metric in exp.spec.metrics.iter().filter(|m| !is_timing_metric(m)) {
        writeln!(
            t,
            "\n{metric} (mean ± 95% CI half-width) by {}:",
            exp.sweep.axis.parameter
        )
        .ok();
        writeln!(t, "{:>8} | {}", "x", series.join(" | ")).ok();
        for x in result.table.xs() {
            let cells: Vec<String> = series
                .iter()
                .map(|s| match result.table.cell(metric, s, x) {
                    Some(c) => format!("{}±{}", fmt_sig4(c.mean), fmt_sig4(c.half_width)),
                    None => "-".to_string(),
                })
                .collect();
            writeln!(t, "{:>8} | {}", fmt_sig4(x), cells.join(" | ")).ok();
        }
    }
    if !result.claims.is_empty() {
        t.push_str("\nclaims:\n");
        for c in result.claims.iter().filter(|c| !c.expect.contains("cpu_")) {
            writeln!(t, "{:<9} {}", c.verdict.as_str(), c.id).ok();
        }
    }
    t
}
