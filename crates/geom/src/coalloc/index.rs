//! The quantized index: a ring of per-quantum period lists plus the servers' open-ended tails.

use std::cmp::Reverse;

use super::search::{CoallocPick, SearchScratch, SearchStats, search};
use super::{CoallocError, CoallocPeriod, OPEN_END};

/// Primary order: start descending, then server ascending.
#[inline]
fn pkey(p: &CoallocPeriod) -> (Reverse<i64>, u32) {
    (Reverse(p.start), p.server)
}

/// The outcome of one attempt ([`QuantizedIndex::select`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attempt {
    pub stats: SearchStats,
    /// `s_r` lay beyond the last live quantum (a failed attempt, spec §2.19, an interpretation).
    pub beyond_horizon: bool,
}

/// Castillo's quantized co-allocation index (spec §2.18): time is cut into quanta of length
/// `l_q`; the quanta `c ..= c + Q` are live, where `c` is the quantum of the current time; every
/// idle period is stored in every live quantum it intersects, and the tree of a quantum is the
/// implicit balanced 2-D tree over that quantum's periods (see [`search`](super::search)).
///
/// Storage: each live quantum keeps its *finite* periods in a vector in primary order (a ring
/// of `Q + 1` slots, so discarding a quantum and opening a new one is `O(1)` plus clearing);
/// the open-ended tails (at most one per server) are kept once, in primary order, and belong
/// to every quantum that ends after their start. At a rotation the new quantum therefore
/// holds every tail that spans it (spec A38) without copying them. A quantum's set is the
/// merge of the two lists, so the selection is a pure function of the set of idle periods.
#[derive(Debug, Clone)]
pub struct QuantizedIndex {
    quantum: i64,
    quanta: u32,
    servers: u32,
    min_fragment: i64,
    /// Absolute number of the current quantum.
    current: i64,
    slots: Vec<Vec<CoallocPeriod>>,
    tails: Vec<CoallocPeriod>,
    merged: Vec<CoallocPeriod>,
    scratch: SearchScratch,
    /// Per-slot removals and insertions of one [`reserve`](Self::reserve), reused.
    batch: Vec<(Vec<CoallocPeriod>, Vec<CoallocPeriod>)>,
    /// The merge buffer of [`apply`], reused.
    spare: Vec<CoallocPeriod>,
    /// Period insertions and removals in quantum lists (tails count once).
    updates: u64,
}

impl QuantizedIndex {
    /// `servers` idle servers from `start` on, quanta of length `quantum`, `quanta` = `Q` (the
    /// horizon is `Q · quantum`), fragments shorter than `min_fragment` dropped.
    pub fn new(
        servers: u32,
        quantum: i64,
        quanta: u32,
        min_fragment: i64,
        start: i64,
    ) -> Result<Self, CoallocError> {
        if servers == 0 {
            return Err(CoallocError::Config(
                "the number of servers must be positive".into(),
            ));
        }
        if quantum <= 0 {
            return Err(CoallocError::Config(format!(
                "the quantum length must be positive, got {quantum}"
            )));
        }
        if quanta == 0 {
            return Err(CoallocError::Config(
                "the number of quanta Q must be positive".into(),
            ));
        }
        if min_fragment < 1 {
            return Err(CoallocError::Config(format!(
                "min_fragment must be at least 1, got {min_fragment}"
            )));
        }
        let mut tails: Vec<CoallocPeriod> = (0..servers)
            .map(|s| CoallocPeriod {
                start,
                end: OPEN_END,
                server: s,
            })
            .collect();
        tails.sort_by_key(pkey);
        Ok(QuantizedIndex {
            quantum,
            quanta,
            servers,
            min_fragment,
            current: start.div_euclid(quantum),
            slots: vec![Vec::new(); quanta as usize + 1],
            tails,
            merged: Vec::new(),
            scratch: SearchScratch::default(),
            batch: vec![(Vec::new(), Vec::new()); quanta as usize + 2],
            spare: Vec::new(),
            updates: 0,
        })
    }

    /// Quantum length `l_q`.
    pub fn quantum(&self) -> i64 {
        self.quantum
    }

    /// `Q`.
    pub fn quanta(&self) -> u32 {
        self.quanta
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        self.servers
    }

    /// Absolute number of the current quantum.
    pub fn current_quantum(&self) -> i64 {
        self.current
    }

    /// The end of the last live quantum: a window must start before it.
    pub fn horizon_end(&self) -> i64 {
        (self.current + i64::from(self.quanta) + 1) * self.quantum
    }

    /// Period insertions and removals performed in quantum lists so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    #[inline]
    fn slot(&self, q: i64) -> usize {
        q.rem_euclid(i64::from(self.quanta) + 1) as usize
    }

    /// Live quanta a finite period intersects, as an inclusive range (empty if none).
    fn span(&self, p: &CoallocPeriod) -> (i64, i64) {
        let first = p.start.div_euclid(self.quantum).max(self.current);
        let last = (p.end - 1)
            .div_euclid(self.quantum)
            .min(self.current + i64::from(self.quanta));
        (first, last)
    }

    /// Moves the clock to `t`: quanta that ended are discarded and new ones opened (spec
    /// §2.18). Time never goes back.
    pub fn advance_to(&mut self, t: i64) {
        let q = t.div_euclid(self.quantum);
        if q <= self.current {
            return;
        }
        let steps = (q - self.current).min(i64::from(self.quanta) + 1);
        for i in 0..steps {
            let s = self.slot(self.current + i);
            self.slots[s].clear();
        }
        self.current = q;
    }

    /// The periods of live quantum `q` in primary order (start descending, server ascending)
    /// into `out`.
    pub fn quantum_set_into(&self, q: i64, out: &mut Vec<CoallocPeriod>) {
        out.clear();
        if q < self.current || q > self.current + i64::from(self.quanta) {
            return;
        }
        let finite = &self.slots[self.slot(q)];
        let qend = (q + 1) * self.quantum;
        let tails = &self.tails[self.tails.partition_point(|p| p.start >= qend)..];
        out.reserve(finite.len() + tails.len());
        let (mut i, mut j) = (0, 0);
        while i < finite.len() && j < tails.len() {
            if pkey(&finite[i]) < pkey(&tails[j]) {
                out.push(finite[i]);
                i += 1;
            } else {
                out.push(tails[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&finite[i..]);
        out.extend_from_slice(&tails[j..]);
    }

    /// The periods of live quantum `q` in primary order.
    pub fn quantum_set(&self, q: i64) -> Vec<CoallocPeriod> {
        let mut v = Vec::new();
        self.quantum_set_into(q, &mut v);
        v
    }

    /// Every live idle period (in some live quantum, or a tail), sorted by (server, start).
    pub fn live_periods(&self) -> Vec<CoallocPeriod> {
        let mut v: Vec<CoallocPeriod> = self.slots.iter().flatten().copied().collect();
        v.extend_from_slice(&self.tails);
        v.sort_by_key(|p| (p.server, p.start, p.end));
        v.dedup();
        v
    }

    /// One attempt for the window `[s, s + length)` on `n` servers: Phase 1 and Phase 2 in the
    /// quantum containing `s`, appending the chosen periods to `chosen` (nothing is reserved;
    /// see [`reserve`](Self::reserve)). `s` must not precede the current quantum.
    pub fn select(
        &mut self,
        s: i64,
        length: i64,
        n: u32,
        pick: CoallocPick,
        chosen: &mut Vec<CoallocPeriod>,
    ) -> Attempt {
        let q = s.div_euclid(self.quantum).max(self.current);
        if q > self.current + i64::from(self.quanta) {
            return Attempt {
                stats: SearchStats::default(),
                beyond_horizon: true,
            };
        }
        let mut merged = std::mem::take(&mut self.merged);
        self.quantum_set_into(q, &mut merged);
        let stats = search(
            &merged,
            s,
            s.saturating_add(length),
            n as usize,
            pick,
            &mut self.scratch,
            chosen,
        );
        self.merged = merged;
        Attempt {
            stats,
            beyond_horizon: false,
        }
    }

    /// The read-only range search of spec §2.19: every idle period containing `[ta, tb)` found
    /// by the phases in the quantum of `ta` (in retrieval order), without reserving anything.
    pub fn range_search(&mut self, ta: i64, tb: i64) -> (Vec<CoallocPeriod>, SearchStats) {
        let mut out = Vec::new();
        let q = ta.div_euclid(self.quantum);
        if tb <= ta || q < self.current || q > self.current + i64::from(self.quanta) {
            return (out, SearchStats::default());
        }
        let mut merged = std::mem::take(&mut self.merged);
        self.quantum_set_into(q, &mut merged);
        let stats = search(
            &merged,
            ta,
            tb,
            usize::MAX,
            CoallocPick::Tree,
            &mut self.scratch,
            &mut out,
        );
        self.merged = merged;
        (out, stats)
    }

    /// Where a new period goes: `None` for a finite fragment too short to keep (or spanning no
    /// live quantum), the tails' bucket for an open-ended one, else its live quanta.
    fn buckets(&self, p: &CoallocPeriod) -> Option<(i64, i64)> {
        if p.end == OPEN_END {
            return Some((i64::MIN, i64::MIN));
        }
        if p.end - p.start < self.min_fragment {
            return None;
        }
        Some(self.span(p))
    }

    /// The batch bucket of live quantum `q`; the last bucket holds the tails.
    fn bucket(&self, q: i64) -> usize {
        if q == i64::MIN {
            self.quanta as usize + 1
        } else {
            self.slot(q)
        }
    }
    /// Reserves `[start, start + length)` inside each of `chosen` (periods returned by
    /// [`select`](Self::select) on the current state): each is removed from every quantum it
    /// spans and replaced by its leading and trailing fragments, stored in every quantum they
    /// span (spec §2.19, update).
    pub fn reserve(
        &mut self,
        chosen: &[CoallocPeriod],
        start: i64,
        length: i64,
    ) -> Result<(), CoallocError> {
        let end = start.saturating_add(length);
        for p in chosen {
            if p.start > start || p.end < end || length <= 0 {
                return Err(CoallocError::NotIdle {
                    server: p.server,
                    start,
                    end,
                });
            }
        }
        // One pass per touched list instead of one shifting insert or remove per period: a
        // wide job on a large machine changes thousands of periods of lists holding a period
        // per server, and per-period `Vec::insert` / `remove` made a reservation cost
        // O(width × servers) in memory moves. The chosen periods are on distinct servers (a
        // server's idle periods are disjoint and each contains the window), so every key below
        // is distinct and the result is the set the per-period updates give.
        let mut batch = std::mem::take(&mut self.batch);
        let mut touched: Vec<usize> = Vec::new();
        let mut add = |b: usize, removal: bool, p: CoallocPeriod, touched: &mut Vec<usize>| {
            let (rem, ins) = &mut batch[b];
            if rem.is_empty() && ins.is_empty() {
                touched.push(b);
            }
            if removal { rem.push(p) } else { ins.push(p) }
        };
        for p in chosen {
            let fragments = [
                CoallocPeriod {
                    start: p.start,
                    end: start,
                    server: p.server,
                },
                CoallocPeriod {
                    start: end,
                    end: p.end,
                    server: p.server,
                },
            ];
            if p.end == OPEN_END {
                add(self.bucket(i64::MIN), true, *p, &mut touched);
            } else {
                let (first, last) = self.span(p);
                for q in first..=last {
                    add(self.bucket(q), true, *p, &mut touched);
                }
            }
            for f in fragments {
                if let Some((first, last)) = self.buckets(&f) {
                    for q in first..=last {
                        add(self.bucket(q), false, f, &mut touched);
                    }
                }
            }
        }
        let tails = self.quanta as usize + 1;
        for b in touched {
            let (rem, ins) = &mut batch[b];
            rem.sort_unstable_by_key(pkey);
            ins.sort_unstable_by_key(pkey);
            let list = if b == tails {
                &mut self.tails
            } else {
                &mut self.slots[b]
            };
            self.updates += apply(list, rem, ins, &mut self.spare);
            rem.clear();
            ins.clear();
        }
        self.batch = batch;
        Ok(())
    }

    /// Books `[start, end)` on one server (to set up a state, e.g. the thesis's Fig. 5.1): the
    /// server must be idle over the whole interval, which must start inside the live quanta.
    pub fn reserve_on(&mut self, server: u32, start: i64, end: i64) -> Result<(), CoallocError> {
        let err = CoallocError::NotIdle { server, start, end };
        if end <= start || start >= self.horizon_end() || server >= self.servers {
            return Err(err);
        }
        let q = start.div_euclid(self.quantum).max(self.current);
        let set = self.quantum_set(q);
        let p = set
            .into_iter()
            .find(|p| p.server == server && p.start <= start && p.end >= end)
            .ok_or(err)?;
        self.reserve(&[p], start, end - start)
    }
}

/// Removes the periods of `rem` found in `list` and merges in `ins` (all three in primary
/// order, keys distinct), in one pass; returns the number of removals and insertions made, as
/// the per-period updates count them.
fn apply(
    list: &mut Vec<CoallocPeriod>,
    rem: &[CoallocPeriod],
    ins: &[CoallocPeriod],
    spare: &mut Vec<CoallocPeriod>,
) -> u64 {
    let mut j = 0;
    let mut removed = 0u64;
    list.retain(|p| {
        while j < rem.len() && pkey(&rem[j]) < pkey(p) {
            j += 1;
        }
        if j < rem.len() && pkey(&rem[j]) == pkey(p) {
            j += 1;
            removed += 1;
            false
        } else {
            true
        }
    });
    if ins.is_empty() {
        return removed;
    }
    spare.clear();
    spare.reserve(list.len() + ins.len());
    let (mut a, mut b) = (0, 0);
    while a < list.len() && b < ins.len() {
        if pkey(&ins[b]) <= pkey(&list[a]) {
            spare.push(ins[b]);
            b += 1;
        } else {
            spare.push(list[a]);
            a += 1;
        }
    }
    spare.extend_from_slice(&list[a..]);
    spare.extend_from_slice(&ins[b..]);
    std::mem::swap(list, spare);
    removed + ins.len() as u64
}
