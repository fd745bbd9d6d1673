//! Max-Min and Sufferage (both readings) with memoized best and second-best completion times.
//!
//! Every unmapped task keeps `(j1, c1, j2, c2)`: its lowest-index machine of least completion
//! time, that time, and the least time over the *other* machines (`j2` the lowest index
//! reaching it). Ready times only grow, so when the machines of a set `U` receive work, a task
//! with `j1 ∉ U` and `j2 ∉ U` keeps exactly these values (every other machine's time only
//! grew) and is not recomputed; the others rescan their ETC row. A step (or a batch pass) is
//! then one sequential pass over dense arrays in list order that recomputes the affected
//! tasks, drops the mapped ones and finds the winner — ties fall to the first task in list
//! order because only a strictly better key replaces the running choice, exactly as in the
//! literal algorithms of [`crate::naive`]. Cost: `O(t)` per step plus `O(m)` per affected
//! task, against `O(t·m)` per step for the literal algorithm.

use crate::etc::EtcMatrix;

use super::{Sink, SufferageVariant};

/// `(j1, c1, j2, c2)` of one ETC row against `ready`, exactly as the literal scan computes
/// them (`c2 = c1`, `j2 = j1` with a single machine).
#[inline]
fn scan(row: &[f64], ready: &[f64]) -> (u32, f64, u32, f64) {
    let (mut j1, mut c1) = (0usize, row[0] + ready[0]);
    let (mut j2, mut c2) = (usize::MAX, f64::INFINITY);
    for j in 1..row.len() {
        let c = row[j] + ready[j];
        if c < c1 {
            (j2, c2) = (j1, c1);
            (j1, c1) = (j, c);
        } else if c < c2 {
            (j2, c2) = (j, c);
        }
    }
    if j2 == usize::MAX {
        (j2, c2) = (j1, c1);
    }
    (j1 as u32, c1, j2 as u32, c2)
}

/// The unmapped tasks of a list, in list order, with their memoized best/second-best.
#[derive(Debug)]
struct Dense {
    m: usize,
    /// ETC rows in list order, indexed by list position.
    rows: Vec<f64>,
    pos: Vec<u32>,
    j1: Vec<u32>,
    c1: Vec<f64>,
    j2: Vec<u32>,
    c2: Vec<f64>,
    /// Machines whose ready time changed since the last pass.
    changed: Vec<bool>,
}

impl Dense {
    fn new(etc: &EtcMatrix, list: &[usize], ready: &[f64]) -> Self {
        let m = etc.machines();
        let n = list.len();
        let mut rows = Vec::with_capacity(n * m);
        for &t in list {
            rows.extend_from_slice(etc.row(t));
        }
        let mut d = Dense {
            m,
            rows,
            pos: (0..n as u32).collect(),
            j1: vec![0; n],
            c1: vec![0.0; n],
            j2: vec![0; n],
            c2: vec![0.0; n],
            changed: vec![false; m],
        };
        for p in 0..n {
            let (a, b, c, e) = scan(&d.rows[p * m..(p + 1) * m], ready);
            (d.j1[p], d.c1[p], d.j2[p], d.c2[p]) = (a, b, c, e);
        }
        d
    }

    fn len(&self) -> usize {
        self.pos.len()
    }

    /// One pass: drops the entries flagged in `mapped` (by list position), recomputes the
    /// tasks whose best or second-best machine changed (only the best when `need_second` is
    /// false) and calls `visit(index, c1, c2, j1)` for every remaining entry in list order.
    fn pass(
        &mut self,
        ready: &[f64],
        mapped: &[bool],
        need_second: bool,
        mut visit: impl FnMut(usize, f64, f64, u32),
    ) {
        let m = self.m;
        let mut w = 0;
        for r in 0..self.pos.len() {
            let p = self.pos[r];
            if mapped[p as usize] {
                continue;
            }
            let (mut j1, mut c1, mut j2, mut c2) = (self.j1[r], self.c1[r], self.j2[r], self.c2[r]);
            if self.changed[j1 as usize] || (need_second && self.changed[j2 as usize]) {
                let p = p as usize;
                (j1, c1, j2, c2) = scan(&self.rows[p * m..(p + 1) * m], ready);
            }
            self.pos[w] = p;
            (self.j1[w], self.c1[w], self.j2[w], self.c2[w]) = (j1, c1, j2, c2);
            visit(w, c1, c2, j1);
            w += 1;
        }
        self.pos.truncate(w);
        self.j1.truncate(w);
        self.c1.truncate(w);
        self.j2.truncate(w);
        self.c2.truncate(w);
        self.changed.iter_mut().for_each(|c| *c = false);
    }
}

/// Max-Min: the task of greatest best-CT (first in list order on ties), on its best machine.
pub(crate) fn max_min(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    one_per_step(etc, list, ready, sink, false, |c1, _| c1);
}

/// One task per step: the greatest `key(c1, c2)` (first in list order on ties), on its best
/// machine.
fn one_per_step(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    need_second: bool,
    key: impl Fn(f64, f64) -> f64,
) {
    let n = list.len();
    let mut dense = Dense::new(etc, list, ready);
    let mut mapped = vec![false; n];
    for step in 0..n {
        let mut best: Option<(usize, f64)> = None;
        dense.pass(ready, &mapped, need_second, |w, c1, c2, _| {
            let k = key(c1, c2);
            if best.is_none_or(|(_, b)| k > b) {
                best = Some((w, k));
            }
        });
        let (w, k) = best.expect("a task is left");
        let (p, j, c) = (dense.pos[w] as usize, dense.j1[w] as usize, dense.c1[w]);
        mapped[p] = true;
        dense.changed[j] = true;
        sink.assign(ready, list[p], j, c, k, step);
    }
    debug_assert!(dense.len() <= 1);
}

/// Sufferage in either reading.
pub(crate) fn sufferage(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    variant: SufferageVariant,
) {
    match variant {
        SufferageVariant::Sequential => {
            one_per_step(etc, list, ready, sink, true, |c1, c2| c2 - c1)
        }
        SufferageVariant::Batch => sufferage_batch(etc, list, ready, sink),
    }
}

/// Batch Sufferage (spec §2.3 a, Fig. 4.1 steps d–q): in each pass every unmapped task, in
/// list order, claims its best machine and displaces a claimant of strictly smaller
/// sufferage; the claimants are assigned together (machine order), and only then do ready
/// times change.
fn sufferage_batch(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    let n = list.len();
    let m = etc.machines();
    let mut dense = Dense::new(etc, list, ready);
    let mut mapped = vec![false; n];
    let mut owner: Vec<Option<(usize, f64)>> = vec![None; m]; // (entry index, sufferage)
    let mut left = n;
    let mut pass = 0;
    while left > 0 {
        owner.iter_mut().for_each(|o| *o = None);
        dense.pass(ready, &mapped, true, |w, c1, c2, j1| {
            let s = c2 - c1;
            let o = &mut owner[j1 as usize];
            if o.is_none_or(|(_, held)| held < s) {
                *o = Some((w, s));
            }
        });
        for (j, o) in owner.iter().enumerate() {
            if let Some((w, s)) = *o {
                let (p, c) = (dense.pos[w] as usize, dense.c1[w]);
                mapped[p] = true;
                dense.changed[j] = true;
                sink.assign(ready, list[p], j, c, s, pass);
                left -= 1;
            }
        }
        pass += 1;
    }
}
