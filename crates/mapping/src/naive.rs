//! The heuristics written as literally as the Kumar spec states them (§2.1–§2.3), in
//! `O(t²·m)`: the oracle the fast engines are tested against and the baseline they are
//! benchmarked against.
//!
//! ```
//! use gridsched_mapping::{EtcMatrix, Heuristic, naive};
//! let etc = EtcMatrix::from_rows(&[[3.0, 1.0], [2.0, 2.0], [1.0, 4.0]]).unwrap();
//! let fast = Heuristic::MinMin.map(&etc).unwrap();
//! let slow = naive::map(&Heuristic::MinMin, &etc).unwrap();
//! assert_eq!(fast, slow);
//! ```

use crate::etc::EtcMatrix;
use crate::heuristics::{self, Engine, Heuristic, MapError, Sink, SufferageVariant};
use crate::schedule::Schedule;

/// Runs `h` with the literal engines (segmentation and Duplex as in [`Heuristic::map`]).
pub fn map(h: &Heuristic, etc: &EtcMatrix) -> Result<Schedule, MapError> {
    heuristics::run(h, etc, &vec![0.0; etc.machines()], Engine::Naive)
}

/// [`map`] from given initial ready times.
pub fn map_from(h: &Heuristic, etc: &EtcMatrix, ready: &[f64]) -> Result<Schedule, MapError> {
    heuristics::run(h, etc, ready, Engine::Naive)
}

/// For every task of `u` (in order): `(j1, c1, c2)`, the lowest-index machine of least
/// CT, its CT and the least CT over the other machines (`c1` when there is one machine).
fn scan(etc: &EtcMatrix, task: usize, ready: &[f64]) -> (usize, f64, f64) {
    let row = etc.row(task);
    let (mut j1, mut c1) = (0, row[0] + ready[0]);
    for j in 1..row.len() {
        let c = row[j] + ready[j];
        if c < c1 {
            (j1, c1) = (j, c);
        }
    }
    let mut c2 = f64::INFINITY;
    for j in 0..row.len() {
        if j != j1 {
            c2 = c2.min(row[j] + ready[j]);
        }
    }
    if row.len() == 1 {
        c2 = c1;
    }
    (j1, c1, c2)
}

pub(crate) fn min_min(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    select(etc, list, ready, sink, |c1, _, best| c1 < best, |c1, _| c1);
}

pub(crate) fn max_min(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    select(etc, list, ready, sink, |c1, _, best| c1 > best, |c1, _| c1);
}

/// One task per step: `k ← arg-best_{i∈U} key(i)` (first in list order on ties, i.e. only a
/// strictly better key replaces the running choice), assigned to its best machine.
fn select(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    better: impl Fn(f64, f64, f64) -> bool,
    key: impl Fn(f64, f64) -> f64,
) {
    let mut u: Vec<usize> = list.to_vec();
    let mut step = 0;
    while !u.is_empty() {
        let mut choice: Option<(usize, usize, f64, f64)> = None; // (index in u, j1, c1, key)
        for (idx, &task) in u.iter().enumerate() {
            let (j1, c1, c2) = scan(etc, task, ready);
            let k = key(c1, c2);
            if choice.is_none_or(|(_, _, _, best)| better(k, c1, best)) {
                choice = Some((idx, j1, c1, k));
            }
        }
        let (idx, j1, c1, k) = choice.expect("u is not empty");
        let task = u.remove(idx);
        sink.assign(ready, task, j1, c1, k, step);
        step += 1;
    }
}

pub(crate) fn sufferage(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    variant: SufferageVariant,
) {
    match variant {
        SufferageVariant::Sequential => select(
            etc,
            list,
            ready,
            sink,
            |s, _, best| s > best,
            |c1, c2| c2 - c1,
        ),
        SufferageVariant::Batch => sufferage_batch(etc, list, ready, sink),
    }
}

/// Fig. 4.1 steps d–q, transcribed: mark all machines unassigned; each task of the list in
/// order claims its best machine, displacing a claimant of strictly smaller sufferage; the
/// claimants are assigned; repeat with the CTs of the new ready times.
fn sufferage_batch(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    let m = etc.machines();
    let mut u: Vec<usize> = list.to_vec();
    let mut pass = 0;
    while !u.is_empty() {
        let mut owner: Vec<Option<(usize, f64, f64)>> = vec![None; m]; // (task, c1, sufferage)
        for &task in &u {
            let (j1, c1, c2) = scan(etc, task, ready);
            let s = c2 - c1;
            match owner[j1] {
                None => owner[j1] = Some((task, c1, s)),
                Some((_, _, held)) if held < s => owner[j1] = Some((task, c1, s)),
                Some(_) => {}
            }
        }
        for (j, o) in owner.iter().enumerate() {
            if let Some((task, c1, s)) = *o {
                sink.assign(ready, task, j, c1, s, pass);
            }
        }
        u.retain(|t| !owner.iter().flatten().any(|o| o.0 == *t));
        pass += 1;
    }
}
