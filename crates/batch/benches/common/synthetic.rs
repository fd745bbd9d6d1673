//! The seeded synthetic workload shared by the `replay` benchmark and the `replay_timing`
//! example (included with `#[path]`, so both measure the same jobs).

use gridsched_batch::Job;

/// splitmix64: a fixed, dependency-free stream.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` jobs for `procs` processors: sizes 1..=64 skewed to small, log-uniform run times
/// 1 s..36 h, requested times 1–5 times the run time, Poisson arrivals at offered `load`
/// (1.0 = the machine's capacity; above it the queue grows without bound).
pub fn synthetic(n: usize, procs: u32, load: f64) -> Vec<Job> {
    let mut r = Mix(7);
    let mut specs = Vec::with_capacity(n);
    let mut work = 0f64;
    for _ in 0..n {
        let size = (1.0 + 63.0 * r.unit().powi(3)) as u32;
        let run = (36.0 * 3600f64).powf(r.unit()).max(1.0) as i64;
        let req = (run as f64 * (1.0 + 4.0 * r.unit())).ceil() as i64;
        work += f64::from(size) * run as f64;
        specs.push((size.min(procs), run, req));
    }
    // Mean work per job (processors x seconds) sets the mean inter-arrival time.
    let mean_gap = work / n as f64 / (load * f64::from(procs));
    let mut t = 0i64;
    let mut jobs = Vec::with_capacity(n);
    for (k, (size, run, req)) in specs.into_iter().enumerate() {
        t += (-mean_gap * (1.0 - r.unit()).ln()) as i64;
        jobs.push(Job::new(k as u64 + 1, t, size, run).requested(req));
    }
    jobs
}
