//! Per-job output in Batsim's `_jobs.csv` format, which evalys (`JobSet.from_csv`) and other
//! Batsim analysis scripts read.

use std::fmt::Write as _;
use std::io::Write;

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
    let mut alloc: Vec<Vec<(u32, u32)>> = vec![Vec::new(); outcomes.len()];
    for (t, is_start, k) in events {
        let o = &outcomes[k as usize];
        let m = o.machine as usize;
        let bits = &mut free[m];
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
            let base = platform.first_cpu(m);
            alloc[k as usize] = runs
                .into_iter()
                .map(|(a, b)| (a + base, b + base))
                .collect();
        } else {
            let base = platform.first_cpu(m);
            for &(a, b) in &alloc[k as usize] {
                for cpu in (a - base)..=(b - base) {
                    bits[(cpu / 64) as usize] |= 1u64 << (cpu % 64);
                }
            }
        }
    }
    Ok(alloc)
}

/// Writes `outcomes` as Batsim's jobs CSV (see [`BATSIM_COLUMNS`]), one row per job in the
/// given order. `requested_time` is the walltime the scheduler planned with;
/// `final_state` is `COMPLETED_SUCCESSFULLY`, or `COMPLETED_WALLTIME_REACHED` with
/// `success = 0` for a job killed at its walltime; `consumed_energy` is `-1` (not modelled);
/// `stretch` = turnaround / execution time.
pub fn write_batsim_csv<W: Write>(
    out: W,
    outcomes: &[Outcome],
    platform: &Platform,
    workload: &str,
) -> std::io::Result<()> {
    let alloc = assign_processors(outcomes, platform).map_err(std::io::Error::other)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    writeln!(out, "{}", BATSIM_COLUMNS.join(","))?;
    let mut line = String::with_capacity(256);
    let mut res = String::with_capacity(64);
    for (o, runs) in outcomes.iter().zip(&alloc) {
        res.clear();
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
        line.clear();
        let _ = write!(
            line,
            "{},{workload},,{},{},{},{success},{state},{},{exec},{},{},{turnaround},{stretch:.6},{res},-1,,{}",
            o.job.id,
            o.job.submit,
            o.job.procs,
            o.walltime,
            o.start,
            o.end,
            o.wait(),
            o.machine
        );
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}
