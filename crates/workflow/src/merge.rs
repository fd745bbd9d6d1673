//! Several workflows as one (spec §2.5 and the thesis's p. 70: "several DAGs can be combined
//! together into a single DAG by adding a superficial entry and exit task"), for provisioning
//! many applications at once.

use crate::dag::{EdgeSource, Workflow, WorkflowBuilder};
use crate::error::WorkflowError;

/// The disjoint union of `parts`: every task id and file name of part `(prefix, wf)` becomes
/// `prefix/id`, so files are never shared between parts and no edge crosses them. With
/// `entry_exit`, a dummy `entry` task (0 s, 0 processors) precedes every task without parents
/// and a dummy `exit` follows every task without children, as the thesis describes. Tasks keep
/// their order: part by part, each in its own order. Two parts with the same prefix (or a
/// prefixed id equal to `entry`/`exit`) give a duplicate-id error.
pub fn merge(parts: &[(&str, &Workflow)], entry_exit: bool) -> Result<Workflow, WorkflowError> {
    let mut b = WorkflowBuilder::new("<merge>");
    for (prefix, wf) in parts {
        wf.copy_into(&mut b, &format!("{prefix}/"))?;
    }
    let w = b.build(EdgeSource::Explicit)?;
    if entry_exit {
        w.with_entry_exit(false)
    } else {
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::WorkflowBuilder;
    use crate::error::{ErrorKind, Location};

    fn chain(n: usize) -> Workflow {
        let mut b = WorkflowBuilder::new("c");
        let ids: Vec<_> = (0..n)
            .map(|i| {
                b.add_task(format!("t{i}"), "T", 1.0, 1, Location::None)
                    .unwrap()
            })
            .collect();
        for w in ids.windows(2) {
            b.add_edge(w[0], w[1], 5);
        }
        b.build(EdgeSource::Union).unwrap()
    }

    #[test]
    fn disjoint_union_with_super_entry_and_exit() {
        let (a, c) = (chain(3), chain(2));
        let m = merge(&[("a", &a), ("b", &c)], true).unwrap();
        assert_eq!(m.len(), 7);
        assert_eq!(m.edges().len(), 2 + 1 + 4);
        assert_eq!(m.entries(), vec![m.find("entry").unwrap()]);
        let t = m.find("a/t1").unwrap();
        assert_eq!(m.edge(m.find("a/t0").unwrap(), t).unwrap().bytes, 5);
        assert_eq!(m.total_runtime(), 5.0);
        let plain = merge(&[("a", &a), ("b", &c)], false).unwrap();
        assert_eq!(plain.entries().len(), 2);
        let e = merge(&[("a", &a), ("a", &c)], false).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::DuplicateTask { .. }), "{e}");
    }
}
