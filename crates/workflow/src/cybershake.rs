//! The CyberShake workflow of Singh's Table 2 (spec §3 Ch. 4, §4.3): the seismic-hazard
//! workflow of 8,039 tasks in 5 levels that Fig. 18 provisions on CTC.
//!
//! Table 2 gives each module's task count, average runtime (from USC HPCC provenance records)
//! and processors; the levels come from the text ("levels four and five contain 4017 tasks
//! each", the 288-processor modules at levels 2 and 3). The edges are not given: the spec's
//! PROPOSAL (§4.3) is used,
//!
//! ```text
//! fd_grid_xyz → fd_grid_cvm → pmvl_chk1, pmvl_chk2
//! preSGT → pmvl_chk1, pmvl_chk2
//! {pmvl_chk1, pmvl_chk2} → every synthSGT_k → peakValCal_k
//! ```
//!
//! plus a dummy entry and exit ([`CyberShake::dummy_entry_exit`], default on as §4.3 says).
//! Runtimes are the table's constants (no variance is given), edges carry no data (none is
//! given). The resulting critical path is fd_grid_xyz → fd_grid_cvm → pmvl_chk → synthSGT →
//! peakValCal = 1 + 2100 + 86400 + 519 + 1 = 89,021 s, and `Σ procs × runtime` = 52,460,341
//! processor-seconds, the spec's sanity values for Fig. 18.

use crate::dag::{EdgeSource, Workflow, WorkflowBuilder};
use crate::error::{ErrorKind, Location, WorkflowError};

/// One row of Table 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CyberShakeModule {
    /// Module name (the tasks' `name`).
    pub name: &'static str,
    /// Tasks of this module in the 8,039-task instance.
    pub count: u32,
    /// Average runtime, seconds.
    pub runtime: f64,
    /// Processors per task.
    pub procs: u32,
    /// 1-based level, as the thesis counts.
    pub level: u32,
}

/// Table 2 (p. 65), with the table's typo "pvml_chk1" read as `pmvl_chk1`.
pub const CYBERSHAKE_TABLE_2: [CyberShakeModule; 7] = [
    CyberShakeModule {
        name: "fd_grid_xyz",
        count: 1,
        runtime: 1.0,
        procs: 1,
        level: 1,
    },
    CyberShakeModule {
        name: "preSGT",
        count: 1,
        runtime: 300.0,
        procs: 1,
        level: 1,
    },
    CyberShakeModule {
        name: "fd_grid_cvm",
        count: 1,
        runtime: 2100.0,
        procs: 288,
        level: 2,
    },
    CyberShakeModule {
        name: "pmvl_chk1",
        count: 1,
        runtime: 86400.0,
        procs: 288,
        level: 3,
    },
    CyberShakeModule {
        name: "pmvl_chk2",
        count: 1,
        runtime: 86400.0,
        procs: 288,
        level: 3,
    },
    CyberShakeModule {
        name: "synthSGT",
        count: 4017,
        runtime: 519.0,
        procs: 1,
        level: 4,
    },
    CyberShakeModule {
        name: "peakValCal",
        count: 4017,
        runtime: 1.0,
        procs: 1,
        level: 5,
    },
];

/// The CyberShake builder's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CyberShake {
    /// synthSGT / peakValCal pairs (Table 2: 4017, giving 8,039 tasks).
    pub synth_tasks: u32,
    /// Add a dummy `entry` before fd_grid_xyz and preSGT and a dummy `exit` after every
    /// peakValCal (0 s, 0 processors). Default `true` (spec §4.3: "add a dummy entry and exit").
    pub dummy_entry_exit: bool,
}

impl Default for CyberShake {
    fn default() -> Self {
        CyberShake {
            synth_tasks: 4017,
            dummy_entry_exit: true,
        }
    }
}

impl CyberShake {
    /// Real tasks (without the dummies): `5 + 2 × synth_tasks`.
    pub fn real_tasks(&self) -> u64 {
        5 + 2 * u64::from(self.synth_tasks)
    }

    /// Builds the DAG. Ids: the module name for the single tasks, `synthSGT_k` and
    /// `peakValCal_k` for `k = 1 ..= synth_tasks`, `entry` and `exit`.
    pub fn build(&self) -> Result<Workflow, WorkflowError> {
        if self.synth_tasks == 0 || self.real_tasks() > u64::from(u32::MAX - 2) {
            return Err(WorkflowError::new(
                "<cybershake>",
                Location::None,
                ErrorKind::InvalidParameter {
                    name: "synth_tasks",
                    message: format!("must be in 1..2^31 - 3, got {}", self.synth_tasks),
                },
            ));
        }
        let m = &CYBERSHAKE_TABLE_2;
        let mut b = WorkflowBuilder::new("<cybershake>");
        let single = |row: &CyberShakeModule, b: &mut WorkflowBuilder| {
            b.add_task(row.name, row.name, row.runtime, row.procs, Location::None)
        };
        let xyz = single(&m[0], &mut b)?;
        let pre = single(&m[1], &mut b)?;
        let cvm = single(&m[2], &mut b)?;
        let chk1 = single(&m[3], &mut b)?;
        let chk2 = single(&m[4], &mut b)?;
        b.add_edge(xyz, cvm, 0);
        for chk in [chk1, chk2] {
            b.add_edge(cvm, chk, 0);
            b.add_edge(pre, chk, 0);
        }
        let (synth, peak) = (&m[5], &m[6]);
        for k in 1..=self.synth_tasks {
            let s = b.add_task(
                format!("{}_{k}", synth.name),
                synth.name,
                synth.runtime,
                synth.procs,
                Location::None,
            )?;
            let p = b.add_task(
                format!("{}_{k}", peak.name),
                peak.name,
                peak.runtime,
                peak.procs,
                Location::None,
            )?;
            b.add_edge(chk1, s, 0);
            b.add_edge(chk2, s, 0);
            b.add_edge(s, p, 0);
        }
        let w = b.build(EdgeSource::Explicit)?;
        if self.dummy_entry_exit {
            w.with_entry_exit(false)
        } else {
            Ok(w)
        }
    }
}
