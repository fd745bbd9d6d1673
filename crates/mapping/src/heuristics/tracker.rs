//! Exact best (and second-best) completion times of every unmapped task, kept up to date as
//! machines' ready times grow.
//!
//! Each task keeps a short sorted list of up to `K` candidate keys `(CT, machine)` (compared
//! lexicographically, so the first entry is the lowest-index machine of least CT) and a bound
//! `B` with every *unlisted* machine's key `> B`. The first `need` entries (1 for Max-Min, 2
//! for Sufferage) are always the task's true smallest keys; the deeper entries are candidates
//! whose stored CTs may be stale (too small: ready times only grow).
//!
//! A machine's bucket names the tasks that have it among their first `need` entries. When the
//! machine's ready time grows, only those tasks are *refreshed*: the `≤ K` listed CTs are
//! recomputed, entries now `> B` dropped, the rest sorted. Since unlisted keys are `> B` and
//! every kept entry is `≤ B`, the first `need` are again the true smallest; a task left with
//! fewer than `need` entries is rebuilt from all `m` machines. A machine that is not among a
//! task's first `need` cannot change them (its key only grows), so those tasks are not
//! touched at all. Bucket entries go stale when a machine leaves a task's first `need`; they
//! are dropped (and duplicates skipped) when the bucket is next walked.
//!
//! Cost per ready-time change of machine `j`: `O(K)` for each task whose best (or second-best)
//! machine is `j`, plus `O(m)` per rebuild. ETC rows are copied in list order so a task's row
//! is one contiguous slice.

/// Candidate entries kept per task.
pub(crate) const K: usize = 4;

/// `(completion time, machine)`, ordered lexicographically.
pub(crate) type Key = (f64, u32);

#[inline]
fn lt(a: Key, b: Key) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

const NONE: Key = (f64::INFINITY, u32::MAX);

#[derive(Debug)]
pub(crate) struct Tracker {
    m: usize,
    need: usize,
    /// ETC rows of the list's tasks, in list order.
    rows: Vec<f64>,
    keys: Vec<[Key; K]>,
    /// ETC of each listed machine, parallel to `keys` (a refresh reads no ETC row).
    etc: Vec<[f64; K]>,
    len: Vec<u8>,
    bound: Vec<Key>,
    alive: Vec<bool>,
    seen: Vec<u32>,
    epoch: u32,
    buckets: Vec<Vec<u32>>,
    spare: Vec<u32>,
}

impl Tracker {
    /// Tracks the tasks whose ETC rows are `rows` (list order, `m` values each) against
    /// `ready`; the first `need` (1 or 2, at most `m`) entries are kept exact.
    pub fn new(rows: Vec<f64>, m: usize, ready: &[f64], need: usize) -> Self {
        let n = rows.len() / m;
        let mut t = Tracker {
            m,
            need: need.min(m).max(1),
            rows,
            keys: vec![[NONE; K]; n],
            etc: vec![[0.0; K]; n],
            len: vec![0; n],
            bound: vec![NONE; n],
            alive: vec![true; n],
            seen: vec![0; n],
            epoch: 0,
            buckets: vec![Vec::new(); m],
            spare: Vec::new(),
        };
        for p in 0..n {
            t.rebuild(p, ready);
            for s in 0..t.need {
                let j = t.keys[p][s].1 as usize;
                t.buckets[j].push(p as u32);
            }
        }
        t
    }

    /// Recomputes task `p`'s list from every machine.
    fn rebuild(&mut self, p: usize, ready: &[f64]) {
        let row = &self.rows[p * self.m..(p + 1) * self.m];
        let mut keys = [NONE; K];
        let mut es = [0.0; K];
        let mut n = 0;
        for (j, (&e, &r)) in row.iter().zip(ready).enumerate() {
            let c = e + r;
            // Machines come in increasing index, so an equal CT never beats a listed key.
            if n == K && c >= keys[K - 1].0 {
                continue;
            }
            let mut s = n.min(K - 1);
            while s > 0 && c < keys[s - 1].0 {
                keys[s] = keys[s - 1];
                es[s] = es[s - 1];
                s -= 1;
            }
            keys[s] = (c, j as u32);
            es[s] = e;
            n = (n + 1).min(K);
        }
        self.keys[p] = keys;
        self.etc[p] = es;
        self.len[p] = n as u8;
        self.bound[p] = if self.m > K { keys[K - 1] } else { NONE };
    }

    /// Recomputes the listed CTs of task `p`, drops those above its bound, sorts, rebuilds if
    /// too few remain, and enters `p` in the buckets of machines new to its first `need`.
    fn refresh(&mut self, p: usize, ready: &[f64]) {
        let need = self.need;
        let mut before = [u32::MAX; 2];
        for (s, b) in before.iter_mut().enumerate().take(need) {
            *b = self.keys[p][s].1;
        }
        let bound = self.bound[p];
        let keys = &mut self.keys[p];
        let es = &mut self.etc[p];
        let mut n = 0;
        for s in 0..self.len[p] as usize {
            let (j, e) = (keys[s].1, es[s]);
            let key = (e + ready[j as usize], j);
            if lt(bound, key) {
                continue;
            }
            // Insertion sort (at most K entries; entries before `s` were already moved).
            let mut at = n;
            while at > 0 && lt(key, keys[at - 1]) {
                keys[at] = keys[at - 1];
                es[at] = es[at - 1];
                at -= 1;
            }
            keys[at] = key;
            es[at] = e;
            n += 1;
        }
        for k in keys.iter_mut().skip(n) {
            *k = NONE;
        }
        self.len[p] = n as u8;
        if n < need {
            self.rebuild(p, ready);
        }
        for s in 0..need {
            let j = self.keys[p][s].1;
            if !before[..need].contains(&j) {
                self.buckets[j as usize].push(p as u32);
            }
        }
    }

    /// Marks task `p` mapped: it is never reported again.
    pub fn remove(&mut self, p: usize) {
        self.alive[p] = false;
    }

    /// `(best machine, best CT)` of task `p`.
    #[inline]
    pub fn best(&self, p: usize) -> (usize, f64) {
        let k = self.keys[p][0];
        (k.1 as usize, k.0)
    }

    /// Second-best CT − best CT of task `p` (0 with a single machine). Needs `need = 2`.
    #[inline]
    pub fn sufferage(&self, p: usize) -> f64 {
        if self.m < 2 {
            0.0
        } else {
            self.keys[p][1].0 - self.keys[p][0].0
        }
    }

    /// Machine `j`'s ready time has grown to `ready[j]` (other machines may have grown too):
    /// refreshes every live task that has `j` among its first `need` entries and calls
    /// `changed(tracker, p)` for each (the caller re-reads what it needs).
    pub fn machine_updated(
        &mut self,
        j: usize,
        ready: &[f64],
        mut changed: impl FnMut(&Self, usize),
    ) {
        self.epoch = self.epoch.wrapping_add(1);
        let entries = std::mem::take(&mut self.buckets[j]);
        let mut kept = std::mem::take(&mut self.spare);
        kept.clear();
        let need = self.need;
        for &pos in &entries {
            let p = pos as usize;
            if !self.alive[p] || self.seen[p] == self.epoch {
                continue;
            }
            self.seen[p] = self.epoch;
            if !self.keys[p][..need].iter().any(|k| k.1 as usize == j) {
                continue; // stale: j left this task's first `need`
            }
            self.refresh(p, ready);
            if self.keys[p][..need].iter().any(|k| k.1 as usize == j) {
                kept.push(pos);
            }
            changed(self, p);
        }
        // Tasks that entered j's bucket during the loop are already in the new bucket.
        self.buckets[j].extend_from_slice(&kept);
        let mut entries = entries;
        entries.clear();
        self.spare = if entries.capacity() > kept.capacity() {
            entries
        } else {
            kept
        };
    }
}

/// The ETC rows of `list`'s tasks, in list order.
pub(crate) fn list_rows(etc: &crate::EtcMatrix, list: &[usize]) -> Vec<f64> {
    let mut rows = Vec::with_capacity(list.len() * etc.machines());
    for &t in list {
        rows.extend_from_slice(etc.row(t));
    }
    rows
}
