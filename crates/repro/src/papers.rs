//! The five documents gridsched reproduces, and one group of real-world log checks.

/// One source document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paper {
    /// Id prefix of its experiments (`castillo-fig-3.4`).
    pub key: &'static str,
    /// Seed number in `shared/seeds/`.
    pub seed: &'static str,
    pub citation: &'static str,
    /// The implementation spec that resolves its ambiguities.
    pub spec: &'static str,
}

/// All documents, in seed order, then the log checks.
pub const PAPERS: [Paper; 6] = [
    Paper {
        key: "castillo",
        seed: "000",
        citation: "C. Castillo, \"On the Design of Efficient Resource Allocation Mechanisms for Grids\", PhD thesis, NC State University, 2008",
        spec: "castillo-reservations.md",
    },
    Paper {
        key: "singh",
        seed: "001",
        citation: "G. Singh, \"An end-to-end framework for provisioning based resource and application management in grids\", PhD thesis, University of Southern California, 2008",
        spec: "singh-provisioning.md",
    },
    Paper {
        key: "klusacek",
        seed: "002",
        citation: "D. Klusáček, H. Rudová, \"Efficient Grid Scheduling through the Incremental Schedule-based Approach\", Masaryk University",
        spec: "klusacek-eg-edf.md",
    },
    Paper {
        key: "alzoubi",
        seed: "003",
        citation: "K. Al-Zoubi, \"Hierarchical Scheduling in Grid Systems\", Master's thesis, Carleton University, 2006",
        spec: "alzoubi-hierarchical.md",
    },
    Paper {
        key: "kumar",
        seed: "004",
        citation: "A. Kumar, \"Segmented Average-Sufferage Heuristic for Independent Task Scheduling in Grid\", M.Tech. dissertation, IIT Roorkee, 2010",
        spec: "kumar-sufferage.md",
    },
    // Not a seed document: checks of the queue-based schedulers (crates/batch) against what
    // real machines did, on Parallel Workloads Archive logs.
    Paper {
        key: "logs",
        seed: "-",
        citation: "Real-world checks on Parallel Workloads Archive logs (queue-based batch scheduling, issue 7)",
        spec: "klusacek-eg-edf.md",
    },
];

/// The paper an experiment id belongs to.
pub fn paper_of(id: &str) -> Option<&'static Paper> {
    PAPERS.iter().find(|p| {
        id.strip_prefix(p.key)
            .is_some_and(|rest| rest.starts_with('-'))
    })
}
