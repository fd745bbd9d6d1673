//! Chapter-5 requests from Parallel Workloads Archive logs, and advance reservations.

use gridsched_workload::swf::SwfJob;
use rand::Rng;

/// A co-allocation request `(q_r, s_r, l_r, n_r)`, integer seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoallocRequest {
    /// The job number in the log.
    pub id: u64,
    /// `q_r`: submit time.
    pub submit: i64,
    /// `s_r`: earliest start (`q_r` unless an advance reservation).
    pub start: i64,
    /// `l_r`: duration.
    pub length: i64,
    /// `n_r`: servers.
    pub servers: u32,
    /// The batch scheduler's recorded wait (SWF field 3), the chapter's baseline.
    pub batch_wait: Option<i64>,
}

/// Which SWF field is `l_r` (spec A29, `lr_field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LengthField {
    /// Field 4, run time (default: Table 5.1's "average estimated l_r" equals the mean run
    /// time of KTH and HPC2N).
    #[default]
    Run,
    /// Field 9, requested time (the run time where it is unknown, counted).
    Requested,
}

/// What the mapping did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestSetReport {
    /// Jobs whose requested time was unknown or 0, given their run time as `l_r`.
    pub requested_time_fallback: u64,
}

/// Maps jobs (kept by the SWF reader: run > 0, procs > 0, sorted by submit) to requests with
/// `s_r = q_r`.
pub fn requests_from_swf(
    jobs: &[SwfJob],
    field: LengthField,
) -> (Vec<CoallocRequest>, RequestSetReport) {
    let mut report = RequestSetReport::default();
    let requests = jobs
        .iter()
        .map(|j| request_from_swf(j, field, &mut report))
        .collect();
    (requests, report)
}

/// One job's request in [`requests_from_swf`], counted in `report`: for a log read as a
/// stream (`gridsched coalloc` on a file, which holds requests and not the log's jobs).
pub fn request_from_swf(
    j: &SwfJob,
    field: LengthField,
    report: &mut RequestSetReport,
) -> CoallocRequest {
    let length = match field {
        LengthField::Run => j.run,
        LengthField::Requested => match j.requested_time {
            Some(t) if t > 0 => t,
            _ => {
                report.requested_time_fallback += 1;
                j.run
            }
        },
    };
    CoallocRequest {
        id: j.id,
        submit: j.submit,
        start: j.submit,
        length,
        servers: j.procs,
        batch_wait: j.wait,
    }
}

/// How the advance-reservation jobs are chosen (spec A34, `ar_select`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArSelect {
    /// Each job independently with probability `ρ` (default).
    #[default]
    Bernoulli,
    /// Exactly `round(ρ · jobs)` jobs, uniformly at random.
    ExactFraction,
}

/// Makes a fraction `rho` of the requests advance reservations: `s_r = q_r + U{0, …, max_lead}`
/// seconds (the thesis: "within zero to three hours in the future", `max_lead = 10,800`).
/// Returns how many became ARs.
///
/// Every job draws its selection number `u` and its lead from `rng` whatever `rho`, so with one
/// stream the AR sets of different `ρ` are nested and share their leads (common random numbers
/// along the `ρ` axis).
pub fn make_advance_reservations<R: Rng>(
    requests: &mut [CoallocRequest],
    rho: f64,
    select: ArSelect,
    max_lead: i64,
    rng: &mut R,
) -> usize {
    let draws: Vec<(f64, i64)> = requests
        .iter()
        .map(|_| {
            let u: f64 = rng.random();
            let lead = rng.random_range(0..=max_lead.max(0));
            (u, lead)
        })
        .collect();
    let chosen: Vec<bool> = match select {
        ArSelect::Bernoulli => draws.iter().map(|&(u, _)| u < rho).collect(),
        ArSelect::ExactFraction => {
            let k = ((rho.clamp(0.0, 1.0) * requests.len() as f64).round()) as usize;
            let mut order: Vec<usize> = (0..requests.len()).collect();
            order.sort_by(|&a, &b| draws[a].0.total_cmp(&draws[b].0).then(a.cmp(&b)));
            let mut c = vec![false; requests.len()];
            for &i in &order[..k] {
                c[i] = true;
            }
            c
        }
    };
    let mut n = 0;
    for ((r, &(_, lead)), ar) in requests.iter_mut().zip(&draws).zip(chosen) {
        if ar {
            r.start = r.submit + lead;
            n += 1;
        }
    }
    n
}
