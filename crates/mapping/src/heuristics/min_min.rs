//! Min-Min in `O(t·m·log t)`: per-machine columns sorted by ETC.
//!
//! The least best-completion-time over the unmapped tasks is
//! `min_i min_j (ETC[i][j] + r[j]) = min_j (r[j] + min_i ETC[i][j])`, and the inner minimum
//! does not depend on the ready times. So each machine keeps its column of ETC values sorted
//! once (ties by list position) with a head that skips mapped tasks; a step is `O(m)` plus the
//! amortized head moves.
//!
//! Ties are those of the literal algorithm (spec §2.1): among the tasks whose best completion
//! time equals the minimum `V` the first in list order wins, on its lowest-index machine of
//! completion time `V`. In column `j` the tasks reaching `V` form a prefix of the sorted
//! column (floating-point addition is monotone). Entries with the head's exact ETC come after
//! the head in list order, so the head is the column's candidate — unless rounding makes a
//! *larger* ETC reach the same `V` (`fl(e' + r) = fl(e + r)`, only when `r` dwarfs the ETC),
//! which is detected with the next representable value above the head's ETC and then
//! resolved by scanning that prefix.

use crate::etc::EtcMatrix;

use super::Sink;

/// The next representable value above a finite, non-negative `x`.
#[inline]
fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

pub(crate) fn min_min(etc: &EtcMatrix, list: &[usize], ready: &mut [f64], sink: &mut Sink<'_>) {
    let n = list.len();
    let m = etc.machines();
    if n == 0 {
        return;
    }
    // Column-major sorted copies: col_e[j*n + k] is the k-th smallest ETC of machine j, of the
    // task at list position col_pos[j*n + k]. ETCs are finite and >= +0.0, so their bit
    // patterns sort like the numbers.
    let mut col_e = vec![0.0_f64; n * m];
    let mut col_pos = vec![0_u32; n * m];
    let mut buf: Vec<(u64, u32)> = Vec::with_capacity(n);
    for j in 0..m {
        buf.clear();
        buf.extend(
            list.iter()
                .enumerate()
                .map(|(p, &t)| (etc.get(t, j).to_bits(), p as u32)),
        );
        buf.sort_unstable();
        let (e, pos) = (
            &mut col_e[j * n..(j + 1) * n],
            &mut col_pos[j * n..(j + 1) * n],
        );
        for (k, &(bits, p)) in buf.iter().enumerate() {
            e[k] = f64::from_bits(bits);
            pos[k] = p;
        }
    }
    drop(buf);
    let mut head = vec![0_usize; m];
    let mut alive = vec![true; n];
    let mut v = vec![0.0_f64; m];
    for step in 0..n {
        // Least completion time per column, and overall.
        let mut best = f64::INFINITY;
        for j in 0..m {
            let base = j * n;
            let mut h = head[j];
            while !alive[col_pos[base + h] as usize] {
                h += 1;
            }
            head[j] = h;
            let c = col_e[base + h] + ready[j];
            v[j] = c;
            if c < best {
                best = c;
            }
        }
        // First list position among the tasks reaching `best`.
        let mut pos = u32::MAX;
        for j in 0..m {
            if v[j] != best {
                continue;
            }
            let base = j * n;
            let h = head[j];
            let mut cand = col_pos[base + h];
            if next_up(col_e[base + h]) + ready[j] == best {
                // Rounding lets larger ETCs reach `best` too: scan the prefix that does.
                let mut k = h + 1;
                while k < n && col_e[base + k] + ready[j] == best {
                    let p = col_pos[base + k];
                    if alive[p as usize] && p < cand {
                        cand = p;
                    }
                    k += 1;
                }
            }
            pos = pos.min(cand);
        }
        let pos = pos as usize;
        let task = list[pos];
        let row = etc.row(task);
        let machine = (0..m)
            .find(|&j| row[j] + ready[j] == best)
            .expect("the chosen task reaches the minimum on some machine");
        alive[pos] = false;
        sink.assign(ready, task, machine, best, best, step);
    }
}
