//! Workflow DAGs: Singh (2008)'s application model (spec `singh-provisioning.md` §2.5), the
//! base the provisioning crate builds on. It reads real workflows, generates the thesis's
//! synthetic and CyberShake workflows, and computes what HEFT needs (upward ranks, the
//! priority list, critical path, total work). It knows no scheduler and no resource.
//!
//! # The model
//!
//! A [`Workflow`] is an immutable, validated DAG: tasks in an arena (`Vec<Task>` indexed by
//! [`TaskId`], a `u32`), edges sorted by (parent, child) with CSR offsets for successors and
//! predecessors, the topological order and the levels computed once. A [`Task`] has a source id,
//! a transformation name, a runtime in seconds on the reference machine, a processor count
//! (Singh's tasks are parallel; the readers' tasks use 1), and the files it reads and writes
//! with their declared sizes. An [`Edge`] keeps both facts the sources give: whether the
//! dependency was *declared* (`explicit`) and how much data the child reads from the parent
//! (`bytes`, over `files` shared files). [`EdgeSource`] chooses which of the two makes an edge
//! (default: either). Validation ([`WorkflowBuilder::build`]) refuses duplicate ids, unknown
//! parent/child ids, cycles (naming a task on the cycle and the whole cycle) and missing,
//! negative or non-finite runtimes, as [`WorkflowError`]s that name the file and the element:
//! the line, column and byte of an XML element, the JSON path of a value
//! (`workflow.specification.tasks[12]`). Nothing panics on input.
//!
//! # Readers
//!
//! - [`dax`]: Pegasus DAX 2.1 (`<adag>`, `<job id name runtime>`, `<uses file link size>`,
//!   `<child ref><parent ref/></child>`), streamed with quick-xml; DAX 3.x spellings where cheap
//!   (`<uses name=...>`, `link="inout"`, a `<profile key="runtime">`).
//! - [`wfcommons`]: WfCommons JSON schema 1.5 (`workflow.specification.tasks[]`/`files[]`,
//!   `workflow.execution.tasks[].runtimeInSeconds`) and the older 1.3/1.4 layout
//!   (`workflow.tasks[]` with `runtime`, per-task `files[]`).
//! - [`read_workflow`] picks the format from the name (or the content) and looks through gzip;
//!   [`parse_dax_str`] / [`parse_wfcommons_str`] (and the `_bytes` forms) are the entry points
//!   for in-memory input and fuzzing.
//!
//! # Generators
//!
//! - [`SyntheticWorkflow`] (spec §4.3): levels, parents, runtimes, processors and edge data,
//!   each law a named switch with the spec's proposed default (table in [`generate`]), drawn from
//!   named [`gridsched_sim::StreamKey`] streams.
//! - [`CyberShake`] (Table 2): the 8,039-task seismic-hazard workflow, with the spec's proposed
//!   edges and a dummy entry and exit.
//! - [`merge()`]: several workflows as one (disjoint union, `prefix/` ids, optional super entry
//!   and exit), for multi-workflow provisioning; [`Workflow::with_entry_exit`] adds the single
//!   entry and exit the thesis's model assumes.
//!
//! # HEFT and the transfer model
//!
//! [`upward_ranks`] computes eq. 7, `rank_u(i) = w_i + max_{j ∈ succ(i)} (c_ij + rank_u(j))`,
//! in one reverse-topological pass, with a pluggable average computation cost
//! ([`ComputeCost`]: [`ReferenceRuntime`], [`MeanOverSpeeds`], or any `Fn(&Task) -> f64`).
//! `c_ij` comes from the [`TransferModel`]: `latency + bytes / bandwidth` between different
//! resources, 0 on the same resource, no contention (spec §2.5, §4.3; the thesis's multi-site
//! numbers, 10 Gbps and 150 s, are [`TransferModel::singh_multisite`]). Two readings the spec
//! leaves open are switches: [`TransferModel::latency_on_empty_edges`] (default `false`: an edge
//! carrying no data costs nothing) and [`RankTransfer`] (default: the average link, as HEFT
//! and the thesis state; or the expectation over `R` resources, or zero). The priority list
//! sorts by non-increasing rank with ties in topological order, so it is always a valid
//! topological order. [`reference`](mod@reference) is the brute-force oracle (all paths) the property tests
//! check ranks and critical paths against.
//!
//! # Example
//!
//! ```
//! use gridsched_workflow::{
//!     CyberShake, RankOptions, ReadOptions, ReferenceRuntime, TransferModel, parse_dax_str,
//!     upward_ranks,
//! };
//!
//! let dax = r#"<adag>
//!   <job id="a" name="split" runtime="10"><uses file="x" link="output" size="2500000000"/></job>
//!   <job id="b" name="work" runtime="20"><uses file="x" link="input" size="2500000000"/></job>
//! </adag>"#;
//! let w = parse_dax_str("example.xml", dax, &ReadOptions::default()).unwrap();
//! let e = w.edges()[0]; // implied by file x: 2.5 GB
//! assert!(!e.explicit && e.bytes == 2_500_000_000);
//! // 10 Gbps and 150 s latency: 2 s + 150 s between sites.
//! let multisite = RankOptions { transfer: TransferModel::singh_multisite(), ..RankOptions::default() };
//! let ranks = upward_ranks(&w, &ReferenceRuntime, &multisite);
//! assert_eq!(ranks.rank(w.find("a").unwrap()), 10.0 + 152.0 + 20.0);
//!
//! // Table 2's CyberShake: 8,039 tasks plus a dummy entry and exit, critical path 89,021 s.
//! let cs = CyberShake::default().build().unwrap();
//! let cp = upward_ranks(&cs, &ReferenceRuntime, &RankOptions::default()).critical_path().unwrap();
//! assert_eq!((cs.len(), cp.length), (8041, 89_021.0));
//! ```

pub mod cybershake;
pub mod dag;
pub mod data;
pub mod dax;
pub mod error;
pub mod generate;
pub mod heft;
pub mod io;
pub mod merge;
pub mod reference;
pub mod wfcommons;

pub use cybershake::{CYBERSHAKE_TABLE_2, CyberShake, CyberShakeModule};
pub use dag::{Edge, EdgeSource, File, FileId, FileUse, Task, TaskId, Workflow, WorkflowBuilder};
pub use dax::{parse_dax_bytes, parse_dax_str};
pub use error::{ErrorKind, Location, Role, WorkflowError};
pub use generate::{Depth, LevelWidths, SyntheticWorkflow};
pub use heft::{
    ComputeCost, CriticalPath, GBIT, MeanOverSpeeds, RankOptions, RankTransfer, ReferenceRuntime,
    TransferModel, UpwardRanks, critical_path, total_work, upward_ranks,
};
pub use io::{Format, ReadOptions, parse_workflow_bytes, read_workflow};
pub use merge::merge;
pub use wfcommons::{parse_wfcommons_bytes, parse_wfcommons_str};
