//! Fuzzes the workflow readers (`gridsched_workflow`): arbitrary bytes as a Pegasus DAX document,
//! as a WfCommons JSON document, and through format detection (gzip, name, content). Nothing
//! may panic; every error must name the file; a workflow that parses must be a valid DAG whose
//! HEFT ranks are finite and whose priority list is a topological order. Run:
//! `cargo +nightly fuzz run workflow corpus/workflow` (see fuzz/README.md).
#![no_main]

use gridsched_workflow::{
    RankOptions, ReadOptions, ReferenceRuntime, TransferModel, Workflow, WorkflowError,
    parse_dax_bytes, parse_wfcommons_bytes, parse_workflow_bytes, upward_ranks,
};
use libfuzzer_sys::fuzz_target;

fn check(r: Result<Workflow, WorkflowError>, file: &str) {
    match r {
        Err(e) => assert!(e.to_string().starts_with(file), "{e}"),
        Ok(w) => {
            assert_eq!(w.topological_order().len(), w.len());
            let opts = RankOptions {
                transfer: TransferModel::singh_multisite(),
                ..RankOptions::default()
            };
            let ranks = upward_ranks(&w, &ReferenceRuntime, &opts);
            assert!(ranks.ranks().iter().all(|r| r.is_finite() && *r >= 0.0));
            let mut pos = vec![0usize; w.len()];
            for (i, t) in ranks.priority_list().iter().enumerate() {
                pos[t.index()] = i;
            }
            for e in w.edges() {
                assert!(pos[e.parent.index()] < pos[e.child.index()]);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions::default();
    check(parse_dax_bytes("fuzz.xml", data, &opts), "fuzz.xml");
    check(parse_wfcommons_bytes("fuzz.json", data, &opts), "fuzz.json");
    check(parse_workflow_bytes("fuzz", data, &opts), "fuzz");
});
