//! Mapping independent tasks onto heterogeneous machines from an ETC (expected time to compute)
//! matrix: Kumar (2010)'s Segmented Average-Sufferage and the heuristics it is compared with,
//! plus the immediate and batch heuristics of Braun et al. (2001).
//!
//! - [`EtcMatrix`]: a validated `tasks × machines` matrix; [`io`] reads and writes the Braun
//!   benchmark format and CSV with `file:line:` errors; [`generate`] draws seeded matrices
//!   (Braun's range-based method, Kumar's GridSim-like workload).
//! - [`Heuristic`]: OLB, MET, MCT, Min-Min, Max-Min, Sufferage (both readings), Duplex,
//!   Segmented Min-Min and SAS, with the Kumar spec's deterministic tie-breaking; `map` returns a
//!   [`Schedule`] (picks in decision order, per-machine sequences, [`Metrics`]).
//! - [`naive`]: the literal `O(t²·m)` versions, the oracle of the property tests.
//! - [`kumar`]: the thesis's worked example (Table 4.1) and its printed pick sequences.
//!
//! ```
//! use gridsched_mapping::{EtcMatrix, Heuristic};
//! let etc = gridsched_mapping::kumar::table_4_1();
//! let sas = "sas".parse::<Heuristic>().unwrap().with_segments(2);
//! let schedule = sas.map(&etc).unwrap();
//! assert!((schedule.makespan() - 6.20).abs() < 1e-9);
//! ```

pub mod data;
pub mod etc;
pub mod generate;
pub mod heuristics;
pub mod io;
pub mod kumar;
pub mod naive;
pub mod schedule;

pub use etc::{Consistency, EtcError, EtcMatrix};
pub use heuristics::{Engine, Heuristic, MapError, SegmentKey, SufferageVariant};
pub use schedule::{Metrics, Pick, Placement, Schedule};
