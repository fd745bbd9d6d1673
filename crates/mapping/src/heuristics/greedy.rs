//! Braun et al. (2001)'s immediate heuristics: each task in list order, one decision each.

use crate::etc::EtcMatrix;

use super::{Sink, best_machine};

/// OLB: the machine that becomes ready first (lowest index on ties); key = its ready time.
pub(crate) fn olb(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    for (step, &task) in list.iter().enumerate() {
        let mut j = 0;
        for k in 1..ready.len() {
            if ready[k] < ready[j] {
                j = k;
            }
        }
        let r = ready[j];
        sink.assign(ready, task, j, etc.get(task, j) + r, r, step);
    }
}

/// MET: the machine of least ETC (lowest index on ties); key = that ETC.
pub(crate) fn met(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    for (step, &task) in list.iter().enumerate() {
        let row = etc.row(task);
        let mut j = 0;
        for k in 1..row.len() {
            if row[k] < row[j] {
                j = k;
            }
        }
        let e = row[j];
        sink.assign(ready, task, j, e + ready[j], e, step);
    }
}

/// MCT: the machine of least completion time (lowest index on ties); key = that time.
pub(crate) fn mct(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    for (step, &task) in list.iter().enumerate() {
        let (j, c) = best_machine(etc.row(task), ready);
        sink.assign(ready, task, j, c, c, step);
    }
}
