//! Max-Min and sequential Sufferage on top of the [`Tracker`](super::tracker::Tracker), for
//! many machines (see [`super::Engine`]).

use crate::etc::EtcMatrix;

use super::Sink;
use super::tracker::{Tracker, list_rows};

/// "Greatest key, first position on ties" over list positions, in blocks of `B` positions with
/// each block's maximum cached: raising a key or lowering a non-maximum is `O(1)`, lowering a
/// block's maximum rescans its block (`O(B)`), and finding the overall maximum scans the
/// blocks (`O(n / B)`), with `B ≈ √n`. Keys are non-negative; a removed position holds `-∞`.
#[derive(Debug)]
struct BlockMax {
    shift: u32,
    key: Vec<f64>,
    best: Vec<(f64, u32)>,
}

#[inline]
fn beats(a: (f64, u32), b: (f64, u32)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
}

impl BlockMax {
    fn new(keys: Vec<f64>) -> Self {
        let n = keys.len().max(1);
        let shift = ((n as f64).sqrt().log2().round() as u32).clamp(4, 12);
        let blocks = n.div_ceil(1 << shift);
        let mut t = BlockMax {
            shift,
            key: keys,
            best: vec![(f64::NEG_INFINITY, u32::MAX); blocks],
        };
        for b in 0..blocks {
            t.rescan(b);
        }
        t
    }

    fn rescan(&mut self, b: usize) {
        let lo = b << self.shift;
        let hi = ((b + 1) << self.shift).min(self.key.len());
        let mut best = (f64::NEG_INFINITY, u32::MAX);
        for p in lo..hi {
            let c = (self.key[p], p as u32);
            if beats(c, best) {
                best = c;
            }
        }
        self.best[b] = best;
    }

    #[inline]
    fn set(&mut self, p: usize, k: f64) {
        self.key[p] = k;
        let b = p >> self.shift;
        let c = (k, p as u32);
        if beats(c, self.best[b]) {
            self.best[b] = c;
        } else if self.best[b].1 == p as u32 {
            self.rescan(b);
        }
    }

    fn top(&self) -> usize {
        let mut best = (f64::NEG_INFINITY, u32::MAX);
        for &c in &self.best {
            if beats(c, best) {
                best = c;
            }
        }
        best.1 as usize
    }

    fn get(&self, p: usize) -> f64 {
        self.key[p]
    }
}

/// Max-Min: the task of greatest best-CT (first in list order on ties), on its best machine.
pub(crate) fn max_min(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    select_max(etc, list, ready, sink, 1, |t, p| t.best(p).1);
}

/// Sequential Sufferage (spec §2.3 b): the task of greatest sufferage, on its best machine.
pub(crate) fn sufferage_sequential(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
) {
    select_max(etc, list, ready, sink, 2, |t, p| t.sufferage(p));
}

/// One task per step: the greatest `key` (first in list order on ties), on its best machine.
fn select_max(
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    need: usize,
    key: impl Fn(&Tracker, usize) -> f64,
) {
    let n = list.len();
    if n == 0 {
        return;
    }
    let mut tracker = Tracker::new(list_rows(etc, list), etc.machines(), ready, need);
    let mut tree = BlockMax::new((0..n).map(|p| key(&tracker, p)).collect());
    for step in 0..n {
        let p = tree.top();
        let (machine, end) = tracker.best(p);
        let k = tree.get(p);
        tracker.remove(p);
        tree.set(p, f64::NEG_INFINITY);
        sink.assign(ready, list[p], machine, end, k, step);
        tracker.machine_updated(machine, ready, |t, q| {
            let k = key(t, q);
            if k.to_bits() != tree.get(q).to_bits() {
                tree.set(q, k);
            }
        });
    }
}
