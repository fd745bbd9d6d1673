//! Per-job output in Batsim's `_jobs.csv` format, which evalys (`JobSet.from_csv`) and other
//! Batsim analysis scripts read.

use std::io::Write;

use gridsched_sim::fmt::{push_f64_fixed, push_int};

use crate::platform::Platform;
use crate::sim::Outcome;

/// Batsim's job columns (docs: "output-jobs"), then `machine` (the machine index; extra
/// columns are ignored by evalys).
pub const BATSIM_COLUMNS: [&str; 18] = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
    "machine",
];

/// Gives every job concrete processors, as Batsim's `allocated_resources` needs: jobs are
/// taken in time order (ends before starts at the same instant) and each takes the
/// lowest-numbered free processors of its machine (global ids: machines numbered
/// consecutively). Returns, per outcome, its processors as sorted `(first, last)` runs, or an
/// error if some machine would need more processors than it has (the audit's capacity check).
pub fn assign_processors(
    outcomes: &[Outcome],
    platform: &Platform,
) -> Result<Vec<Vec<(u32, u32)>>, String> {
    let runs = ProcessorRuns::assign(outcomes, platform)?;
    Ok((0..outcomes.len()).map(|k| runs.of(k).to_vec()).collect())
}

/// [`assign_processors`]'s answer in two flat arrays (no allocation per job): every job's runs
/// in the order the jobs started, and where each job's runs are.
#[derive(Debug)]
struct ProcessorRuns {
    runs: Vec<(u32, u32)>,
    /// Job `k`'s runs are `runs[span[k].0 .. span[k].0 + span[k].1]`.
    span: Vec<(u32, u32)>,
}

impl ProcessorRuns {
    fn of(&self, k: usize) -> &[(u32, u32)] {
        let (at, len) = self.span[k];
        &self.runs[at as usize..(at + len) as usize]
    }

    fn assign(outcomes: &[Outcome], platform: &Platform) -> Result<Self, String> {
        let mut free: Vec<Vec<u64>> = platform
            .machines()
            .iter()
            .map(|m| {
                let words = m.cpus.div_ceil(64) as usize;
                let mut v = vec![u64::MAX; words];
                let tail = m.cpus % 64;
                if tail != 0 {
                    v[words - 1] = (1u64 << tail) - 1;
                }
                v
            })
            .collect();
        let mut out = ProcessorRuns {
            runs: Vec::with_capacity(outcomes.len()),
            span: vec![(0, 0); outcomes.len()],
        };
        let mut step = |t: i64, is_start: bool, k: u32| -> Result<(), String> {
            let o = &outcomes[k as usize];
            let m = o.machine as usize;
            let bits = &mut free[m];
            let base = platform.first_cpu(m);
            if is_start {
                // The lowest free processors, a run of free bits at a time.
                let at = out.runs.len();
                let mut need = o.job.procs;
                for (w, word) in bits.iter_mut().enumerate() {
                    while need > 0 && *word != 0 {
                        let b = word.trailing_zeros();
                        let take = (*word >> b).trailing_ones().min(need);
                        let mask = if take == 64 {
                            u64::MAX
                        } else {
                            ((1u64 << take) - 1) << b
                        };
                        *word &= !mask;
                        need -= take;
                        let first = w as u32 * 64 + b + base;
                        let last = first + take - 1;
                        match out.runs[at..].last_mut() {
                            Some(r) if r.1 + 1 == first => r.1 = last,
                            _ => out.runs.push((first, last)),
                        }
                    }
                    if need == 0 {
                        break;
                    }
                }
                if need > 0 {
                    return Err(format!(
                        "machine {m} at time {t}: not enough free processors for job {}",
                        o.job.id
                    ));
                }
                out.span[k as usize] = (at as u32, (out.runs.len() - at) as u32);
            } else {
                let (at, len) = out.span[k as usize];
                for &(a, b) in &out.runs[at as usize..(at + len) as usize] {
                    let (lo, hi) = (a - base, b - base);
                    for w in lo / 64..=hi / 64 {
                        let from = if w == lo / 64 { lo % 64 } else { 0 };
                        let to = if w == hi / 64 { hi % 64 } else { 63 };
                        bits[w as usize] |= (u64::MAX >> (63 - (to - from))) << from;
                    }
                }
            }
            Ok(())
        };
        // Events in time order, ends before starts at the same instant, then by job. Packed
        // into one `u64` (time offset, start flag, job) when the times span less than 2^32
        // and there are fewer than 2^31 jobs, as on every log: the same order, sorted about
        // twice as fast as tuples.
        let t0 = outcomes.iter().map(|o| o.start).min().unwrap_or(0);
        let t1 = outcomes.iter().map(|o| o.end).max().unwrap_or(0);
        if t1.checked_sub(t0).is_some_and(|span| span < 1 << 32) && outcomes.len() < 1 << 31 {
            let mut events: Vec<u64> = Vec::with_capacity(2 * outcomes.len());
            for (k, o) in outcomes.iter().enumerate() {
                let k = k as u64;
                events.push(((o.start - t0) as u64) << 32 | 1 << 31 | k);
                events.push(((o.end - t0) as u64) << 32 | k);
            }
            events.sort_unstable();
            for e in events {
                let k = (e & ((1 << 31) - 1)) as u32;
                step((e >> 32) as i64 + t0, e & (1 << 31) != 0, k)?;
            }
        } else {
            let mut events: Vec<(i64, bool, u32)> = Vec::with_capacity(2 * outcomes.len());
            for (k, o) in outcomes.iter().enumerate() {
                events.push((o.start, true, k as u32));
                events.push((o.end, false, k as u32));
            }
            // `false < true`: ends first at equal times.
            events.sort_unstable();
            for (t, is_start, k) in events {
                step(t, is_start, k)?;
            }
        }
        Ok(out)
    }
}

/// Rows are formatted into a buffer of this size and written to the output when it fills.
const CHUNK: usize = 1 << 16;

/// Writes `outcomes` as Batsim's jobs CSV (see [`BATSIM_COLUMNS`]), one row per job in the
/// given order. `requested_time` is the walltime the scheduler planned with;
/// `final_state` is `COMPLETED_SUCCESSFULLY`, or `COMPLETED_WALLTIME_REACHED` with
/// `success = 0` for a job killed at its walltime; `consumed_energy` is `-1` (not modelled);
/// `stretch` = turnaround / execution time, with six decimals.
///
/// The bytes are those of `format!` on each field (`gridsched_sim::fmt`); no row allocates.
pub fn write_batsim_csv<W: Write>(
    mut out: W,
    outcomes: &[Outcome],
    platform: &Platform,
    workload: &str,
) -> std::io::Result<()> {
    let alloc = ProcessorRuns::assign(outcomes, platform).map_err(std::io::Error::other)?;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    buf.extend_from_slice(BATSIM_COLUMNS.join(",").as_bytes());
    buf.push(b'\n');
    for (k, o) in outcomes.iter().enumerate() {
        let exec = o.execution();
        let turnaround = o.end - o.job.submit;
        let stretch = turnaround as f64 / exec.max(1) as f64;
        push_int(&mut buf, o.job.id);
        buf.push(b',');
        buf.extend_from_slice(workload.as_bytes());
        buf.extend_from_slice(b",,");
        push_int(&mut buf, o.job.submit);
        buf.push(b',');
        push_int(&mut buf, o.job.procs);
        buf.push(b',');
        push_int(&mut buf, o.walltime);
        buf.extend_from_slice(if o.killed {
            b",0,COMPLETED_WALLTIME_REACHED,"
        } else {
            b",1,COMPLETED_SUCCESSFULLY,"
        });
        push_int(&mut buf, o.start);
        buf.push(b',');
        push_int(&mut buf, exec);
        buf.push(b',');
        push_int(&mut buf, o.end);
        buf.push(b',');
        push_int(&mut buf, o.wait());
        buf.push(b',');
        push_int(&mut buf, turnaround);
        buf.push(b',');
        push_f64_fixed(&mut buf, stretch, 6);
        buf.push(b',');
        for (i, &(a, b)) in alloc.of(k).iter().enumerate() {
            if i > 0 {
                buf.push(b' ');
            }
            push_int(&mut buf, a);
            if a != b {
                buf.push(b'-');
                push_int(&mut buf, b);
            }
        }
        buf.extend_from_slice(b",-1,,");
        push_int(&mut buf, o.machine);
        buf.push(b'\n');
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Machine;
    use crate::{Config, Estimates, Job, Policy, Simulator};
    use proptest::prelude::*;

    /// The processor assignment as it was first written: one processor at a time, events as
    /// sorted tuples.
    fn reference_assign(outcomes: &[Outcome], platform: &Platform) -> Vec<Vec<(u32, u32)>> {
        let mut events: Vec<(i64, bool, u32)> = Vec::with_capacity(2 * outcomes.len());
        for (k, o) in outcomes.iter().enumerate() {
            events.push((o.start, true, k as u32));
            events.push((o.end, false, k as u32));
        }
        events.sort_unstable();
        let mut free: Vec<Vec<u64>> = platform
            .machines()
            .iter()
            .map(|m| {
                let words = m.cpus.div_ceil(64) as usize;
                let mut v = vec![u64::MAX; words];
                let tail = m.cpus % 64;
                if tail != 0 {
                    v[words - 1] = (1u64 << tail) - 1;
                }
                v
            })
            .collect();
        let mut alloc: Vec<Vec<(u32, u32)>> = vec![Vec::new(); outcomes.len()];
        for (_, is_start, k) in events {
            let o = &outcomes[k as usize];
            let m = o.machine as usize;
            let bits = &mut free[m];
            let base = platform.first_cpu(m);
            if is_start {
                let mut need = o.job.procs;
                let mut runs: Vec<(u32, u32)> = Vec::new();
                for (w, word) in bits.iter_mut().enumerate() {
                    while need > 0 && *word != 0 {
                        let b = word.trailing_zeros();
                        *word &= !(1u64 << b);
                        need -= 1;
                        let cpu = w as u32 * 64 + b;
                        match runs.last_mut() {
                            Some(r) if r.1 + 1 == cpu => r.1 = cpu,
                            _ => runs.push((cpu, cpu)),
                        }
                    }
                }
                assert_eq!(need, 0);
                alloc[k as usize] = runs
                    .into_iter()
                    .map(|(a, b)| (a + base, b + base))
                    .collect();
            } else {
                for &(a, b) in &alloc[k as usize] {
                    for cpu in (a - base)..=(b - base) {
                        bits[(cpu / 64) as usize] |= 1u64 << (cpu % 64);
                    }
                }
            }
        }
        alloc
    }

    /// The writer as it was before it formatted fields itself (`format!` per row, a `String`
    /// per job's processor list): the byte-for-byte reference.
    fn reference_csv(outcomes: &[Outcome], platform: &Platform, workload: &str) -> Vec<u8> {
        use std::fmt::Write as _;
        let alloc = reference_assign(outcomes, platform);
        let mut out = Vec::new();
        writeln!(out, "{}", BATSIM_COLUMNS.join(",")).unwrap();
        for (o, runs) in outcomes.iter().zip(&alloc) {
            let mut res = String::new();
            for (i, &(a, b)) in runs.iter().enumerate() {
                if i > 0 {
                    res.push(' ');
                }
                if a == b {
                    let _ = write!(res, "{a}");
                } else {
                    let _ = write!(res, "{a}-{b}");
                }
            }
            let exec = o.execution();
            let turnaround = o.end - o.job.submit;
            let stretch = turnaround as f64 / exec.max(1) as f64;
            let (success, state) = if o.killed {
                (0, "COMPLETED_WALLTIME_REACHED")
            } else {
                (1, "COMPLETED_SUCCESSFULLY")
            };
            writeln!(
                out,
                "{},{workload},,{},{},{},{success},{state},{},{exec},{},{},{turnaround},{stretch:.6},{res},-1,,{}",
                o.job.id,
                o.job.submit,
                o.job.procs,
                o.walltime,
                o.start,
                o.end,
                o.wait(),
                o.machine
            )
            .unwrap();
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random workloads on random grids (fragmented processor sets, kills, long waits):
        /// the fast writer's bytes equal the reference's.
        #[test]
        fn fast_writer_equals_format_writer(
            cpus in prop::collection::vec(1u32..300, 1..4),
            jobs in prop::collection::vec(
                (0i64..5_000, 1u32..300, 1i64..4_000, 1i64..6_000, any::<u64>()),
                1..120,
            ),
            far in prop::bool::weighted(0.2),
            policy in prop::sample::select(vec![Policy::Fcfs, Policy::Easy, Policy::Conservative]),
        ) {
            let max = *cpus.iter().max().unwrap();
            let platform = Platform::grid(
                cpus.iter().map(|&c| Machine { cpus: c, speed: 1 }).collect(),
                1,
            )
            .unwrap();
            let mut jobs: Vec<Job> = jobs
                .into_iter()
                .map(|(submit, procs, run, requested, id)| Job {
                    id,
                    // Sometimes a log spanning more than 2^32 s (the tuple-sorted path).
                    submit: if far { submit << 21 } else { submit },
                    procs: procs.min(max),
                    run,
                    requested: Some(requested),
                    deadline: None,
                })
                .collect();
            jobs.sort_by_key(|j| j.submit);
            let config = Config::new(policy).estimates(Estimates::Requested);
            let mut sim = Simulator::with_jobs(platform.clone(), config, jobs).unwrap();
            sim.run();
            let outcomes: Vec<Outcome> = sim.outcomes().collect();
            let mut fast = Vec::new();
            write_batsim_csv(&mut fast, &outcomes, &platform, "w-1").unwrap();
            let expected = reference_csv(&outcomes, &platform, "w-1");
            prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(expected).unwrap());
        }
    }
}
