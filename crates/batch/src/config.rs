//! What a simulation runs: the policy and its switches.

use crate::Time;

/// The queue policy. Each built-in one is a [`Dispatcher`](crate::Dispatcher) of
/// [`policies`](crate::policies) that this merely selects ([`Builtin::for_config`]), so that
/// the built-ins have no door into the engine that a policy of yours lacks.
///
/// [`Builtin::for_config`]: crate::policies::Builtin::for_config
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// First come, first served: the queue head starts when it fits; nothing overtakes it
    /// ([`policies::Fcfs`](crate::policies::Fcfs)).
    Fcfs,
    /// EASY (Lifka), also called aggressive backfilling (Singh §2.4 "AB"): the head gets a
    /// reservation at its earliest start; any other job starts now if it fits now and does not
    /// delay that reservation (nor any fixed reservation) ([`policies::Easy`](crate::policies::Easy)).
    Easy,
    /// Conservative backfilling (Mu'alem & Feitelson): every queued job holds a reservation at
    /// the earliest start that delays no job ahead of it; see [`Compression`] for early
    /// completions ([`policies::Conservative`](crate::policies::Conservative)).
    Conservative,
    /// Flexible backfilling (Klusáček spec §2.12): EASY over a queue re-sorted at every event
    /// by a priority of deadline, waiting time and execution time ([`FlexWeights`];
    /// [`policies::Easy::flexible`](crate::policies::Easy::flexible)).
    Flexible,
    /// No built-in policy: an external [`Dispatcher`](crate::Dispatcher) decides, through
    /// [`Simulator::run_with`](crate::Simulator::run_with), which waiting jobs start when.
    External,
}

impl Policy {
    /// Parses `fcfs`, `easy`, `aggressive` (= `easy`), `conservative`, `flexible`.
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "fcfs" => Some(Policy::Fcfs),
            "easy" | "aggressive" => Some(Policy::Easy),
            "conservative" => Some(Policy::Conservative),
            "flexible" | "flex" => Some(Policy::Flexible),
            _ => None,
        }
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Fcfs => "fcfs",
            Policy::Easy => "easy",
            Policy::Conservative => "conservative",
            Policy::Flexible => "flexible",
            Policy::External => "external",
        }
    }
}

/// Which run time the scheduler plans with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Estimates {
    /// The actual run time (perfect estimates): nothing ends early, nothing is killed.
    #[default]
    Actual,
    /// The user's requested time (the log's field 9); a job that would run longer is killed
    /// when it reaches it, as real resource managers do. A job without a requested time is
    /// planned with its actual run time.
    Requested,
}

/// What conservative backfilling does when a job ends before its estimate (or a fixed
/// reservation is added or cancelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Compression {
    /// Singh spec §2.4 "CB-replay": rebuild the profile from the running jobs and fixed
    /// reservations and re-insert every queued job, in queue order, at its earliest fit. A job
    /// can end up later than its previous reservation when the jobs ahead of it move.
    #[default]
    Replay,
    /// Mu'alem & Feitelson's compression: in queue order, each queued job is taken out and put
    /// back at its earliest fit among all other reservations, which is never later than where
    /// it was; no promise is ever broken.
    InPlace,
}

/// Which machine a job starts on when several can take it (Klusáček spec §2.10, A9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum MachineSelect {
    /// The fastest machine; ties to the lowest index.
    #[default]
    Fastest,
    /// The lowest-index machine.
    FirstFit,
}

/// Flexible backfilling's priority (Klusáček spec §2.12):
/// `prio_j(t) = w_d·D_j + w_w·W_j + w_e·E_j` with
/// `E_j = (e_hi − e_j)/(e_hi − e_lo)` (shorter is higher; `e` is the planned run time on the
/// reference machine), `W_j = (t − r_j) / max_{k∈Q}(t − r_k)` (0 if the max is 0),
/// `D_j = 1 − clamp((d_j − t) / max_{k∈Q with deadline}(d_k − t), 0, 1)` (0 without deadline).
/// Ties: earlier arrival first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlexWeights {
    pub deadline: f64,
    pub wait: f64,
    pub exec: f64,
    /// `(e_lo, e_hi)`; `None` uses the shortest and longest planned run time in the queue
    /// at the event (for logs, whose range is not known in advance). The spec's synthetic
    /// workload uses `(500, 3000)` in reference time units.
    pub exec_range: Option<(Time, Time)>,
}

impl Default for FlexWeights {
    fn default() -> Self {
        FlexWeights {
            deadline: 1.0,
            wait: 1.0,
            exec: 1.0,
            exec_range: None,
        }
    }
}

/// Everything that selects one simulation's behaviour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub policy: Policy,
    pub estimates: Estimates,
    pub compression: Compression,
    pub machine_select: MachineSelect,
    pub flex: FlexWeights,
    /// Check the simulator's invariants while it runs (profile summaries and levels after
    /// every event, reservations never delayed) and panic on a violation. On by default in
    /// debug builds; costs `O(profile + queue)` per event.
    pub check_invariants: bool,
}

impl Config {
    /// The defaults for `policy`.
    pub fn new(policy: Policy) -> Self {
        Config {
            policy,
            estimates: Estimates::default(),
            compression: Compression::default(),
            machine_select: MachineSelect::default(),
            flex: FlexWeights::default(),
            check_invariants: cfg!(debug_assertions),
        }
    }

    /// With these estimates.
    pub fn estimates(mut self, e: Estimates) -> Self {
        self.estimates = e;
        self
    }

    /// With this compression rule (conservative only).
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }

    /// With this machine-selection rule.
    pub fn machine_select(mut self, m: MachineSelect) -> Self {
        self.machine_select = m;
        self
    }

    /// With invariant checks on or off.
    pub fn check_invariants(mut self, on: bool) -> Self {
        self.check_invariants = on;
        self
    }
}
