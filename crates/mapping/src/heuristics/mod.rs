//! The mapping heuristics and their deterministic tie-breaking.
//!
//! Every heuristic maps the tasks of a *list* (task indices in a fixed order) onto machines
//! whose ready times start at given values (0 for a fresh mapping) and carry over between
//! the segments of a segmented heuristic. Ties are broken exactly as the Kumar spec §2.0
//! proposes ("arbitrary order" read as list order and machine-index order):
//!
//! - a task's best machine is the lowest-index machine of minimum completion time `CT[i][j] =
//!   ETC[i][j] + r[j]` (computed in `f64` exactly as written; ties are exact equality);
//! - ties in the task-selection criterion go to the task that comes first in the list;
//! - batch Sufferage keeps a machine's current owner on a sufferage tie (strict `<`).
//!
//! | heuristic | selection | engine | time |
//! |---|---|---|---|
//! | OLB | list order → machine of earliest ready time | scan | `O(t·m)` |
//! | MET | list order → machine of least ETC | scan | `O(t·m)` |
//! | MCT | list order → machine of least CT | scan | `O(t·m)` |
//! | Min-Min | task of least best-CT → its best machine | per-machine sorted columns | `O(t·m·log t)` |
//! | Max-Min | task of greatest best-CT → its best machine | [`Engine::Dense`] / [`Engine::Tracked`] | `O(t²)` + affected rescans / `O(K)` per affected task |
//! | Sufferage (sequential) | task of greatest `second CT − best CT` | [`Engine::Dense`] / [`Engine::Tracked`] | as Max-Min |
//! | Sufferage (batch) | per pass, each machine to the first task of greatest sufferage among the tasks that want it | [`Engine::Dense`] | `O(t)` per pass + affected rescans |
//! | Duplex | the better of Min-Min and Max-Min (Min-Min on a tie) | | |
//! | Segmented Min-Min / SAS | sort by a row key (descending), cut into `N` segments, map segment by segment | | `+ O(t·m + t log t)` |
//!
//! [`crate::naive`] holds the literal `O(t²·m)` versions; property tests check that both give
//! identical picks.

mod dense;
mod greedy;
mod min_min;
mod tracked;
mod tracker;

use std::fmt;
use std::str::FromStr;

use crate::etc::EtcMatrix;
use crate::schedule::{Pick, Schedule};

/// The two readings of Sufferage in Kumar (2010) (spec §2.3, ambiguity A2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SufferageVariant {
    /// (a) Maheswaran et al.'s machine-marking passes (Fig. 4.1 steps d–q): in each pass every
    /// unmapped task, in list order, claims its best machine and takes it from the current
    /// claimant if its sufferage is strictly greater; the claimants are then assigned
    /// together. The spec's normative reading.
    #[default]
    Batch,
    /// (b) The worked example's narrative: one task per step, the one of greatest sufferage.
    Sequential,
}

impl SufferageVariant {
    /// `batch` or `sequential`.
    pub fn name(self) -> &'static str {
        match self {
            SufferageVariant::Batch => "batch",
            SufferageVariant::Sequential => "sequential",
        }
    }
}

impl FromStr for SufferageVariant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "batch" | "a" => Ok(SufferageVariant::Batch),
            "sequential" | "seq" | "b" => Ok(SufferageVariant::Sequential),
            _ => Err(format!(
                "unknown Sufferage reading `{s}`; expected batch or sequential"
            )),
        }
    }
}

/// The key a segmented heuristic sorts tasks by (Wu, Shu & Zhang 2000; Kumar uses `Avg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SegmentKey {
    /// Mean of the task's ETC row over all machines (`Σ_j ETC[i][j] / m`).
    #[default]
    Avg,
    /// Least entry of the row.
    Min,
    /// Greatest entry of the row.
    Max,
}

impl SegmentKey {
    /// `avg`, `min` or `max`.
    pub fn name(self) -> &'static str {
        match self {
            SegmentKey::Avg => "avg",
            SegmentKey::Min => "min",
            SegmentKey::Max => "max",
        }
    }

    /// The key of one ETC row.
    pub fn of(self, row: &[f64]) -> f64 {
        match self {
            SegmentKey::Avg => row.iter().sum::<f64>() / row.len() as f64,
            SegmentKey::Min => row.iter().copied().fold(f64::INFINITY, f64::min),
            SegmentKey::Max => row.iter().copied().fold(0.0, f64::max),
        }
    }
}

impl FromStr for SegmentKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "avg" | "average" | "mean" => Ok(SegmentKey::Avg),
            "min" => Ok(SegmentKey::Min),
            "max" => Ok(SegmentKey::Max),
            _ => Err(format!(
                "unknown segment key `{s}`; expected avg, min or max"
            )),
        }
    }
}

/// A mapping heuristic with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Heuristic {
    /// Opportunistic Load Balancing (Braun et al. 2001): each task, in list order, to the
    /// machine that becomes ready first, whatever its ETC there.
    Olb,
    /// Minimum Execution Time: each task to the machine of least ETC, whatever its load.
    Met,
    /// Minimum Completion Time: each task to the machine of least completion time.
    Mct,
    /// Min-Min (Kumar spec §2.1).
    MinMin,
    /// Max-Min (spec §2.2, reading A3: the task of greatest best-CT, on its best machine).
    MaxMin,
    /// Sufferage (spec §2.3) in one of its two readings.
    Sufferage(SufferageVariant),
    /// Braun et al.'s Duplex: Min-Min and Max-Min, keep the smaller makespan (Min-Min on ties).
    Duplex,
    /// Segmented Min-Min (Wu, Shu & Zhang 2000): sort by `key` descending, `segments` equal
    /// segments, Min-Min on each in order.
    SegmentedMinMin { segments: usize, key: SegmentKey },
    /// Segmented Average-Sufferage (Kumar 2010, spec §2.4): sort by the mean ETC row
    /// descending, `segments` equal segments, Sufferage on each in order.
    Sas {
        segments: usize,
        variant: SufferageVariant,
    },
}

/// Why a mapping could not be run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapError {
    #[error("{got} initial ready times for {machines} machines")]
    ReadyLength { got: usize, machines: usize },
    #[error("initial ready time of machine {machine} is {value}; it must be finite and >= 0")]
    BadReady { machine: usize, value: f64 },
    #[error("initial ready times plus the total ETC overflow the largest finite number")]
    Overflow,
    #[error("a segmented heuristic needs at least one segment")]
    NoSegments,
}

/// Every heuristic name accepted by [`Heuristic::from_str`].
pub const NAMES: [&str; 12] = [
    "olb",
    "met",
    "mct",
    "min-min",
    "max-min",
    "sufferage",
    "sufferage-batch",
    "sufferage-seq",
    "duplex",
    "segmented-min-min",
    "sas",
    "sas-seq",
];

/// Kumar's default number of segments (spec §2.4, ambiguity A1).
pub const DEFAULT_SEGMENTS: usize = 4;

impl FromStr for Heuristic {
    type Err = String;
    /// Parses a heuristic name (see [`NAMES`]); segmented heuristics get
    /// [`DEFAULT_SEGMENTS`] and the average key, `sufferage` and `sas` the batch reading.
    fn from_str(s: &str) -> Result<Self, String> {
        use SufferageVariant::*;
        Ok(match s {
            "olb" => Heuristic::Olb,
            "met" => Heuristic::Met,
            "mct" => Heuristic::Mct,
            "min-min" | "minmin" => Heuristic::MinMin,
            "max-min" | "maxmin" => Heuristic::MaxMin,
            "sufferage" | "sufferage-batch" => Heuristic::Sufferage(Batch),
            "sufferage-seq" | "sufferage-sequential" => Heuristic::Sufferage(Sequential),
            "duplex" => Heuristic::Duplex,
            "segmented-min-min" | "smm" => Heuristic::SegmentedMinMin {
                segments: DEFAULT_SEGMENTS,
                key: SegmentKey::Avg,
            },
            "sas" | "avg-suff" | "sas-batch" => Heuristic::Sas {
                segments: DEFAULT_SEGMENTS,
                variant: Batch,
            },
            "sas-seq" | "sas-sequential" => Heuristic::Sas {
                segments: DEFAULT_SEGMENTS,
                variant: Sequential,
            },
            _ => {
                return Err(format!(
                    "unknown heuristic `{s}`; expected one of {}",
                    NAMES.join(", ")
                ));
            }
        })
    }
}

impl fmt::Display for Heuristic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Heuristic::Olb => write!(f, "olb"),
            Heuristic::Met => write!(f, "met"),
            Heuristic::Mct => write!(f, "mct"),
            Heuristic::MinMin => write!(f, "min-min"),
            Heuristic::MaxMin => write!(f, "max-min"),
            Heuristic::Sufferage(SufferageVariant::Batch) => write!(f, "sufferage-batch"),
            Heuristic::Sufferage(SufferageVariant::Sequential) => write!(f, "sufferage-seq"),
            Heuristic::Duplex => write!(f, "duplex"),
            Heuristic::SegmentedMinMin { segments, key } => {
                write!(f, "segmented-min-min(N={segments}, key={})", key.name())
            }
            Heuristic::Sas { segments, variant } => {
                write!(f, "sas(N={segments}, {})", variant.name())
            }
        }
    }
}

impl Heuristic {
    /// Sets the number of segments of a segmented heuristic (others are unchanged).
    pub fn with_segments(self, n: usize) -> Heuristic {
        match self {
            Heuristic::SegmentedMinMin { key, .. } => {
                Heuristic::SegmentedMinMin { segments: n, key }
            }
            Heuristic::Sas { variant, .. } => Heuristic::Sas {
                segments: n,
                variant,
            },
            h => h,
        }
    }

    /// Sets the Sufferage reading of Sufferage and SAS (others are unchanged).
    pub fn with_variant(self, v: SufferageVariant) -> Heuristic {
        match self {
            Heuristic::Sufferage(_) => Heuristic::Sufferage(v),
            Heuristic::Sas { segments, .. } => Heuristic::Sas {
                segments,
                variant: v,
            },
            h => h,
        }
    }

    /// Maps every task onto machines that start empty.
    pub fn map(&self, etc: &EtcMatrix) -> Result<Schedule, MapError> {
        self.map_from(etc, &vec![0.0; etc.machines()])
    }

    /// Maps every task onto machines that become ready at `initial_ready`.
    pub fn map_from(&self, etc: &EtcMatrix, initial_ready: &[f64]) -> Result<Schedule, MapError> {
        run(self, etc, initial_ready, Engine::Auto)
    }

    /// [`Heuristic::map_from`] with a chosen implementation (identical results).
    pub fn map_with(
        &self,
        etc: &EtcMatrix,
        initial_ready: &[f64],
        engine: Engine,
    ) -> Result<Schedule, MapError> {
        run(self, etc, initial_ready, engine)
    }
}

/// Which implementation runs Min-Min, Max-Min and Sufferage. All give identical schedules
/// (the property tests check it); they differ only in speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The fastest for the shape: [`Engine::Tracked`] for Max-Min and sequential Sufferage
    /// from [`TRACK_FROM_MACHINES`] machines on, [`Engine::Dense`] otherwise.
    #[default]
    Auto,
    /// Memoized best/second-best per task, one sequential pass per step (`O(t)` plus `O(m)`
    /// per task whose best or second-best machine changed).
    Dense,
    /// Per-machine buckets of the tasks whose best (or second-best) machine it is, with
    /// short candidate lists: only those tasks are touched when the machine's ready time
    /// changes (`O(K)` each); batch Sufferage runs [`Engine::Dense`].
    Tracked,
    /// The literal `O(t²·m)` algorithms of [`crate::naive`].
    Naive,
}

/// Machines from which [`Engine::Auto`] tracks rather than rescans (measured crossover).
pub const TRACK_FROM_MACHINES: usize = 48;

impl Engine {
    fn tracks(self, machines: usize) -> bool {
        match self {
            Engine::Tracked => true,
            Engine::Auto => machines >= TRACK_FROM_MACHINES,
            Engine::Dense | Engine::Naive => false,
        }
    }
}

/// The task order of a segmented heuristic: by `key` descending, then index ascending.
pub fn segment_order(etc: &EtcMatrix, key: SegmentKey) -> Vec<usize> {
    let keys: Vec<f64> = (0..etc.tasks()).map(|i| key.of(etc.row(i))).collect();
    let mut order: Vec<usize> = (0..etc.tasks()).collect();
    order.sort_by(|&a, &b| keys[b].total_cmp(&keys[a]).then(a.cmp(&b)));
    order
}

/// Cuts `order` into `n` contiguous segments at `floor(v·t/n)` (sizes differ by at most one;
/// some are empty when `n > t`). Allocates `n` slices: see [`nonempty_segments`] for any `n`.
pub fn split_segments(order: &[usize], n: usize) -> Vec<&[usize]> {
    let t = order.len();
    (0..n)
        .map(|v| &order[boundary(v, t, n)..boundary(v + 1, t, n)])
        .collect()
}

/// `floor(v·t/n)` without overflow.
fn boundary(v: usize, t: usize, n: usize) -> usize {
    (v as u128 * t as u128 / n as u128) as usize
}

/// The non-empty segments of [`split_segments`] with their numbers `v`, in order, for any
/// `n ≥ 1` (up to `usize::MAX`): at most `t` of them, found without visiting the empty ones.
/// Position `k` lies in segment `ceil((k + 1)·n / t) − 1`, the last `v` with
/// `floor(v·t/n) ≤ k`.
pub fn nonempty_segments(order: &[usize], n: usize) -> impl Iterator<Item = (usize, &[usize])> {
    assert!(n > 0, "at least one segment");
    let t = order.len();
    let mut k = 0;
    std::iter::from_fn(move || {
        if k >= t {
            return None;
        }
        let v = ((k as u128 + 1) * n as u128).div_ceil(t as u128) - 1;
        let v = v as usize;
        let end = boundary(v + 1, t, n);
        let seg = &order[k..end];
        k = end;
        Some((v, seg))
    })
}

fn check_ready(etc: &EtcMatrix, ready: &[f64]) -> Result<(), MapError> {
    if ready.len() != etc.machines() {
        return Err(MapError::ReadyLength {
            got: ready.len(),
            machines: etc.machines(),
        });
    }
    if let Some((machine, &value)) = ready
        .iter()
        .enumerate()
        .find(|(_, r)| !(r.is_finite() && **r >= 0.0))
    {
        return Err(MapError::BadReady { machine, value });
    }
    let total: f64 = etc.values().iter().sum();
    let latest = ready.iter().copied().fold(0.0, f64::max);
    if !(latest + total).is_finite() {
        return Err(MapError::Overflow);
    }
    Ok(())
}

/// Where an engine records its decisions.
#[derive(Debug)]
pub(crate) struct Sink<'a> {
    pub out: &'a mut Vec<Pick>,
    pub segment: usize,
}

impl Sink<'_> {
    /// Records task → machine completing at `end` and moves the machine's ready time there.
    #[inline]
    pub fn assign(
        &mut self,
        ready: &mut [f64],
        task: usize,
        machine: usize,
        end: f64,
        key: f64,
        round: usize,
    ) {
        self.out.push(Pick {
            task,
            machine,
            key,
            segment: self.segment,
            round,
            start: ready[machine],
            end,
        });
        ready[machine] = end;
    }
}

/// One unsegmented heuristic over a list, continuing from `ready`.
fn run_list(
    h: Heuristic,
    etc: &EtcMatrix,
    list: &[usize],
    ready: &mut [f64],
    sink: &mut Sink<'_>,
    engine: Engine,
) {
    use crate::naive;
    match (h, engine) {
        (Heuristic::Olb, _) => greedy::olb(etc, list, ready, sink),
        (Heuristic::Met, _) => greedy::met(etc, list, ready, sink),
        (Heuristic::Mct, _) => greedy::mct(etc, list, ready, sink),
        (Heuristic::MinMin, Engine::Naive) => naive::min_min(etc, list, ready, sink),
        (Heuristic::MinMin, _) => min_min::min_min(etc, list, ready, sink),
        (Heuristic::MaxMin, Engine::Naive) => naive::max_min(etc, list, ready, sink),
        (Heuristic::MaxMin, e) if e.tracks(etc.machines()) => {
            tracked::max_min(etc, list, ready, sink)
        }
        (Heuristic::MaxMin, _) => dense::max_min(etc, list, ready, sink),
        (Heuristic::Sufferage(v), Engine::Naive) => naive::sufferage(etc, list, ready, sink, v),
        (Heuristic::Sufferage(SufferageVariant::Sequential), e) if e.tracks(etc.machines()) => {
            tracked::sufferage_sequential(etc, list, ready, sink)
        }
        (Heuristic::Sufferage(v), _) => dense::sufferage(etc, list, ready, sink, v),
        _ => unreachable!("composite heuristics are expanded by `run`"),
    }
}

pub(crate) fn run(
    h: &Heuristic,
    etc: &EtcMatrix,
    initial_ready: &[f64],
    engine: Engine,
) -> Result<Schedule, MapError> {
    check_ready(etc, initial_ready)?;
    let all: Vec<usize> = (0..etc.tasks()).collect();
    let segmented = |inner: Heuristic, n: usize, key: SegmentKey| {
        if n == 0 {
            return Err(MapError::NoSegments);
        }
        let order = segment_order(etc, key);
        let mut ready = initial_ready.to_vec();
        let mut picks = Vec::with_capacity(etc.tasks());
        for (v, seg) in nonempty_segments(&order, n) {
            let mut sink = Sink {
                out: &mut picks,
                segment: v,
            };
            run_list(inner, etc, seg, &mut ready, &mut sink, engine);
        }
        Ok(Schedule::from_picks(
            etc.tasks(),
            initial_ready.to_vec(),
            ready,
            picks,
        ))
    };
    let plain = |inner: Heuristic| {
        let mut ready = initial_ready.to_vec();
        let mut picks = Vec::with_capacity(etc.tasks());
        let mut sink = Sink {
            out: &mut picks,
            segment: 0,
        };
        run_list(inner, etc, &all, &mut ready, &mut sink, engine);
        Schedule::from_picks(etc.tasks(), initial_ready.to_vec(), ready, picks)
    };
    match *h {
        Heuristic::SegmentedMinMin { segments, key } => segmented(Heuristic::MinMin, segments, key),
        Heuristic::Sas { segments, variant } => {
            segmented(Heuristic::Sufferage(variant), segments, SegmentKey::Avg)
        }
        Heuristic::Duplex => {
            let a = plain(Heuristic::MinMin);
            let b = plain(Heuristic::MaxMin);
            Ok(if b.makespan() < a.makespan() { b } else { a })
        }
        h => Ok(plain(h)),
    }
}

/// The lowest-index machine of least `ETC + ready` for one task: `(machine, completion)`.
#[inline]
pub(crate) fn best_machine(row: &[f64], ready: &[f64]) -> (usize, f64) {
    let mut best = (0, row[0] + ready[0]);
    for j in 1..row.len() {
        let c = row[j] + ready[j];
        if c < best.1 {
            best = (j, c);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in NAMES {
            let h: Heuristic = name.parse().unwrap();
            let again: Heuristic = match h {
                Heuristic::SegmentedMinMin { .. } => "segmented-min-min".parse().unwrap(),
                Heuristic::Sas {
                    variant: SufferageVariant::Batch,
                    ..
                } => "sas".parse().unwrap(),
                Heuristic::Sas { .. } => "sas-seq".parse().unwrap(),
                _ => h.to_string().parse().unwrap(),
            };
            assert_eq!(h, again, "{name}");
        }
        assert!(
            "worst-fit"
                .parse::<Heuristic>()
                .unwrap_err()
                .contains("min-min")
        );
        assert_eq!(
            Heuristic::Sas {
                segments: 4,
                variant: SufferageVariant::Batch
            }
            .with_segments(2)
            .with_variant(SufferageVariant::Sequential),
            Heuristic::Sas {
                segments: 2,
                variant: SufferageVariant::Sequential
            }
        );
    }

    #[test]
    fn segments_split_at_floor_boundaries() {
        let order: Vec<usize> = (0..10).collect();
        let sizes: Vec<usize> = split_segments(&order, 4).iter().map(|s| s.len()).collect();
        assert_eq!(sizes, [2, 3, 2, 3]);
        let sizes: Vec<usize> = split_segments(&order[..2], 3)
            .iter()
            .map(|s| s.len())
            .collect();
        assert_eq!(sizes, [0, 1, 1]);
    }

    #[test]
    fn nonempty_segments_are_the_split_without_the_empty_ones() {
        for t in 0..13 {
            let order: Vec<usize> = (0..t).collect();
            for n in 1..40 {
                let all: Vec<(usize, &[usize])> = split_segments(&order, n)
                    .into_iter()
                    .enumerate()
                    .filter(|(_, s)| !s.is_empty())
                    .collect();
                let lazy: Vec<(usize, &[usize])> = nonempty_segments(&order, n).collect();
                assert_eq!(lazy, all, "t = {t}, n = {n}");
            }
        }
        // usize::MAX segments of 3 tasks (3 divides 2^64 - 1): one task in the last segment of
        // each third, nothing allocated.
        let order = [7, 8, 9];
        let v: Vec<(usize, &[usize])> = nonempty_segments(&order, usize::MAX).collect();
        let m = usize::MAX;
        assert_eq!(
            v,
            [
                (m / 3 - 1, &[7][..]),
                (m / 3 * 2 - 1, &[8][..]),
                (m - 1, &[9][..])
            ]
        );
    }

    /// `--segments 18446744073709551615` was a capacity-overflow panic.
    #[test]
    fn any_number_of_segments_maps_every_task_once() {
        let etc = EtcMatrix::from_rows(&[[3.0, 1.0], [2.0, 5.0], [4.0, 4.0]]).unwrap();
        for h in [
            Heuristic::Sas {
                segments: usize::MAX,
                variant: SufferageVariant::Batch,
            },
            Heuristic::Sas {
                segments: usize::MAX,
                variant: SufferageVariant::Sequential,
            },
            Heuristic::SegmentedMinMin {
                segments: usize::MAX,
                key: SegmentKey::Avg,
            },
        ] {
            let s = h.map(&etc).unwrap();
            let mut tasks: Vec<usize> = s.picks().iter().map(|p| p.task).collect();
            tasks.sort_unstable();
            assert_eq!(tasks, [0, 1, 2], "{h}");
            // Three segments of one task: the same schedule as N = 3, segment numbers apart.
            let three = h.with_segments(3).map(&etc).unwrap();
            assert_eq!(s.makespan(), three.makespan(), "{h}");
        }
    }

    #[test]
    fn bad_ready_times_are_rejected() {
        let etc = EtcMatrix::from_rows(&[[1.0, 2.0]]).unwrap();
        let h = Heuristic::MinMin;
        assert!(matches!(
            h.map_from(&etc, &[0.0]),
            Err(MapError::ReadyLength { .. })
        ));
        assert!(matches!(
            h.map_from(&etc, &[0.0, f64::NAN]),
            Err(MapError::BadReady { machine: 1, .. })
        ));
        let big = EtcMatrix::from_rows(&[[1e308, 1.0]]).unwrap();
        assert!(matches!(
            h.map_from(&big, &[1e308, 0.0]),
            Err(MapError::Overflow)
        ));
        assert!(matches!(
            Heuristic::Sas {
                segments: 0,
                variant: SufferageVariant::Batch
            }
            .map(&etc),
            Err(MapError::NoSegments)
        ));
    }
}
