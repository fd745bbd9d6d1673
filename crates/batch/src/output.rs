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
        let mut events: Vec<(i64, bool, u32)> = Vec::with_capacity(2 * outcomes.len());
        for (k, o) in outcomes.iter().enumerate() {
            events.push((o.start, true, k as u32));
            events.push((o.end, false, k as u32));
        }
        // `false < true`: ends first at equal times.
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
        let mut out = ProcessorRuns {
            runs: Vec::with_capacity(outcomes.len()),
            span: vec![(0, 0); outcomes.len()],
        };
        for (t, is_start, k) in events {
            let o = &outcomes[k as usize];
            let m = o.machine as usize;
            let bits = &mut free[m];
            let base = platform.first_cpu(m);
            if is_start {
                let at = out.runs.len();
                let mut need = o.job.procs;
                for (w, word) in bits.iter_mut().enumerate() {
                    while need > 0 && *word != 0 {
                        let b = word.trailing_zeros();
                        *word &= !(1u64 << b);
                        need -= 1;
                        let cpu = w as u32 * 64 + b + base;
                        match out.runs[at..].last_mut() {
                            Some(r) if r.1 + 1 == cpu => r.1 = cpu,
                            _ => out.runs.push((cpu, cpu)),
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
                    for cpu in (a - base)..=(b - base) {
                        bits[(cpu / 64) as usize] |= 1u64 << (cpu % 64);
                    }
                }
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

    /// The writer as it was before it formatted fields itself (`format!` per row, a `String`
    /// per job's processor list): the byte-for-byte reference.
    fn reference_csv(outcomes: &[Outcome], platform: &Platform, workload: &str) -> Vec<u8> {
        use std::fmt::Write as _;
        let alloc = assign_processors(outcomes, platform).unwrap();
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
            cpus in prop::collection::vec(1u32..150, 1..4),
            jobs in prop::collection::vec(
                (0i64..5_000, 1u32..150, 1i64..4_000, 1i64..6_000, any::<u64>()),
                1..120,
            ),
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
                    submit,
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
