//! A mapping's result: which machine runs each task, when, in which order the heuristic
//! decided, and the metrics of Kumar (2010) §5.1.

use crate::etc::EtcMatrix;

/// One decision of a heuristic, in the order it was taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pick {
    /// Task index (row of the ETC matrix, 0-based).
    pub task: usize,
    /// Machine index (column, 0-based).
    pub machine: usize,
    /// The value the heuristic selected the task by: the completion time for MCT, Min-Min and
    /// Max-Min, the sufferage value for Sufferage and SAS, the expected time for MET, the
    /// machine's ready time for OLB.
    pub key: f64,
    /// Segment of a segmented heuristic (0 = largest keys; 0 for unsegmented heuristics).
    pub segment: usize,
    /// Pass of batch Sufferage within its segment (tasks of one pass were assigned together;
    /// machine order within a pass). For every other heuristic, the step number.
    pub round: usize,
    /// When the task starts: the machine's ready time before the assignment.
    pub start: f64,
    /// When it completes: the machine's ready time after the assignment.
    pub end: f64,
}

/// Where and when one task runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub task: usize,
    pub machine: usize,
    pub start: f64,
    pub end: f64,
}

impl From<&Pick> for Placement {
    fn from(p: &Pick) -> Self {
        Placement {
            task: p.task,
            machine: p.machine,
            start: p.start,
            end: p.end,
        }
    }
}

/// Kumar (2010) §5.1 metrics of a schedule (and flowtime, which the thesis names but never
/// defines: Σ completion times).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// `max_i CT_i` (eq. 5.1).
    pub makespan: f64,
    /// `Σ_i CT_i`.
    pub flowtime: f64,
    /// Average resource utilization `ru = Σ_j ru_j / m` (eq. 5.2), with `ru_j` the busy time of
    /// machine `j` over the elapsed time `T = max te − min ts` (eqs. 5.3, 5.4).
    pub utilization: f64,
    /// Population RMS deviation `d` of the `ru_j` (eq. 5.5).
    pub deviation: f64,
    /// Load-balancing level `β = 1 − d / ru` (eq. 5.6).
    pub load_balance: f64,
}

/// A complete mapping of every task of an ETC matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    machines: usize,
    picks: Vec<Pick>,
    /// Index into `picks` per task (`u32::MAX` before assignment).
    pick_of: Vec<u32>,
    initial_ready: Vec<f64>,
    ready: Vec<f64>,
}

impl Schedule {
    /// Assembles a schedule from picks (crate-internal: heuristics build them).
    pub(crate) fn from_picks(
        tasks: usize,
        initial_ready: Vec<f64>,
        ready: Vec<f64>,
        picks: Vec<Pick>,
    ) -> Schedule {
        let mut pick_of = vec![u32::MAX; tasks];
        for (k, p) in picks.iter().enumerate() {
            debug_assert_eq!(pick_of[p.task], u32::MAX, "task {} picked twice", p.task);
            pick_of[p.task] = k as u32;
        }
        debug_assert!(
            pick_of.iter().all(|&k| k != u32::MAX),
            "a task was not mapped"
        );
        Schedule {
            machines: ready.len(),
            picks,
            pick_of,
            initial_ready,
            ready,
        }
    }

    /// Number of tasks.
    pub fn tasks(&self) -> usize {
        self.pick_of.len()
    }

    /// Number of machines.
    pub fn machines(&self) -> usize {
        self.machines
    }

    /// The decisions in the order the heuristic took them.
    pub fn picks(&self) -> &[Pick] {
        &self.picks
    }

    /// The decision that placed `task`.
    pub fn pick_of(&self, task: usize) -> &Pick {
        &self.picks[self.pick_of[task] as usize]
    }

    /// Machine of each task, by task index.
    pub fn assignment(&self) -> Vec<usize> {
        self.pick_of
            .iter()
            .map(|&k| self.picks[k as usize].machine)
            .collect()
    }

    /// The machines' ready times before mapping.
    pub fn initial_ready(&self) -> &[f64] {
        &self.initial_ready
    }

    /// The machines' ready times after mapping (`r[j]` of the thesis).
    pub fn ready_times(&self) -> &[f64] {
        &self.ready
    }

    /// The tasks of machine `j` in execution order, back to back from its initial ready time.
    pub fn machine_sequence(&self, machine: usize) -> Vec<Placement> {
        self.picks
            .iter()
            .filter(|p| p.machine == machine)
            .map(Placement::from)
            .collect()
    }

    /// Every placement, by task index.
    pub fn placements(&self) -> Vec<Placement> {
        (0..self.tasks())
            .map(|t| Placement::from(self.pick_of(t)))
            .collect()
    }

    /// `max_j r[j]` (equals the latest completion time when machines start empty).
    pub fn makespan(&self) -> f64 {
        self.ready.iter().copied().fold(0.0, f64::max)
    }

    /// Σ of the completion times of all tasks (summed in task order).
    pub fn flowtime(&self) -> f64 {
        (0..self.tasks()).map(|t| self.pick_of(t).end).sum()
    }

    /// Kumar (2010) §5.1 metrics. The elapsed time is `T = max te − min ts` over the tasks; when
    /// `T = 0` (every task takes no time) utilization and balance are reported as 1 and the
    /// deviation as 0.
    pub fn metrics(&self) -> Metrics {
        let makespan = self.picks.iter().map(|p| p.end).fold(0.0, f64::max);
        let first = self
            .picks
            .iter()
            .map(|p| p.start)
            .fold(f64::INFINITY, f64::min);
        let elapsed = makespan - first;
        let m = self.machines as f64;
        let (utilization, deviation, load_balance) = if elapsed > 0.0 {
            let mut busy = vec![0.0; self.machines];
            for p in &self.picks {
                busy[p.machine] += p.end - p.start;
            }
            let ru: Vec<f64> = busy.iter().map(|b| b / elapsed).collect();
            let mean = ru.iter().sum::<f64>() / m;
            let d = (ru.iter().map(|r| (mean - r).powi(2)).sum::<f64>() / m).sqrt();
            let beta = if mean > 0.0 { 1.0 - d / mean } else { 1.0 };
            (mean, d, beta)
        } else {
            (1.0, 0.0, 1.0)
        };
        Metrics {
            makespan,
            flowtime: self.flowtime(),
            utilization,
            deviation,
            load_balance,
        }
    }

    /// Checks the schedule against its matrix: every task once, durations equal to the ETC,
    /// each machine's tasks back to back from its initial ready time, final ready times equal
    /// to the last completion. Returns the first violation.
    pub fn validate(&self, etc: &EtcMatrix) -> Result<(), String> {
        if etc.tasks() != self.tasks() || etc.machines() != self.machines {
            return Err(format!(
                "schedule is {} × {}, matrix {} × {}",
                self.tasks(),
                self.machines,
                etc.tasks(),
                etc.machines()
            ));
        }
        let mut seen = vec![false; self.tasks()];
        let mut at = self.initial_ready.clone();
        for p in &self.picks {
            if p.task >= self.tasks() || p.machine >= self.machines {
                return Err(format!("pick {p:?} out of range"));
            }
            if std::mem::replace(&mut seen[p.task], true) {
                return Err(format!("task {} mapped twice", p.task));
            }
            if p.start != at[p.machine] {
                return Err(format!(
                    "task {} starts at {} but machine {} is ready at {}",
                    p.task, p.start, p.machine, at[p.machine]
                ));
            }
            let end = p.start + etc.get(p.task, p.machine);
            if p.end != end {
                return Err(format!(
                    "task {} ends at {} instead of {end}",
                    p.task, p.end
                ));
            }
            at[p.machine] = end;
        }
        if let Some(t) = seen.iter().position(|s| !s) {
            return Err(format!("task {t} not mapped"));
        }
        if at != self.ready {
            return Err(format!(
                "final ready times {:?} differ from the tasks' {at:?}",
                self.ready
            ));
        }
        Ok(())
    }
}
