//! Per-job output in Batsim's `_jobs.csv` format, which evalys (`JobSet.from_csv`) and other
//! Batsim analysis scripts read.

use std::io::Write;

use gridsched_sim::fmt::{PUT_ROOM, push_f64_fixed, put_i64, put_u64};

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
        // Per machine, one bit per word of `free`: set iff that word has a free processor.
        // The lowest free processors are found through it, skipping 64 busy words at a time:
        // on a large machine (CEA-Curie, 1,458 words) most words are busy, and scanning them
        // one by one for every start made the assignment most of the CSV's cost.
        let mut nonzero: Vec<Vec<u64>> = free
            .iter()
            .map(|words| {
                let mut summary = vec![0u64; words.len().div_ceil(64)];
                for (w, &word) in words.iter().enumerate() {
                    summary[w / 64] |= u64::from(word != 0) << (w % 64);
                }
                summary
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
                let summary = &mut nonzero[m];
                'words: for (s, group) in summary.iter_mut().enumerate() {
                    while *group != 0 {
                        let w = s * 64 + group.trailing_zeros() as usize;
                        let word = &mut bits[w];
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
                        if *word == 0 {
                            *group &= !(1u64 << (w % 64));
                        }
                        if need == 0 {
                            break 'words;
                        }
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
                        nonzero[m][w as usize / 64] |= 1u64 << (w % 64);
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
    let rows = BatsimRows::new(outcomes, platform, workload)?;
    out.write_all(&rows.header())?;
    rows.format(0..outcomes.len(), |chunk| out.write_all(chunk))?;
    out.flush()
}

/// [`write_batsim_csv`] with the rows formatted on two threads when two cores are available
/// and there are enough rows for it to pay: the rows go in blocks of 16,384, a helper
/// thread formats every second block while this one formats and writes the others and writes
/// the helper's in turn. The bytes are `write_batsim_csv`'s (tested).
pub fn write_batsim_csv_parallel<W: Write>(
    out: W,
    outcomes: &[Outcome],
    platform: &Platform,
    workload: &str,
) -> std::io::Result<()> {
    let n = outcomes.len();
    if n < 20_000 || std::thread::available_parallelism().is_ok_and(|c| c.get() < 2) {
        return write_batsim_csv(out, outcomes, platform, workload);
    }
    let rows = BatsimRows::new(outcomes, platform, workload)?;
    write_on_two_threads(out, &rows, BLOCK_ROWS)
}

/// Rows per block of [`write_batsim_csv_parallel`] (about 2 MB of text).
const BLOCK_ROWS: usize = 16_384;

/// The header, then the rows in blocks of `block` rows: the even blocks formatted and
/// written here, the odd ones formatted on a helper thread meanwhile and written in turn.
/// The helper is at most two blocks ahead (a bounded channel), so the text waiting in memory
/// does not grow with the output: when the helper formatted a whole second half, that half
/// waited in memory until the first was written (225 MB for 3 million jobs).
fn write_on_two_threads<W: Write>(
    mut out: W,
    rows: &BatsimRows<'_>,
    block: usize,
) -> std::io::Result<()> {
    let n = rows.outcomes.len();
    let block = block.max(1);
    let blocks = n.div_ceil(block);
    let range = move |b: usize| b * block..((b + 1) * block).min(n);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        let second = scope.spawn(move || {
            for b in (1..blocks).step_by(2) {
                let mut text = Vec::new();
                rows.format(range(b), |chunk| {
                    text.extend_from_slice(chunk);
                    Ok(())
                })?;
                // A writer that failed stops taking blocks (and the error is its own).
                if tx.send(text).is_err() {
                    break;
                }
            }
            Ok::<_, std::io::Error>(())
        });
        out.write_all(&rows.header())?;
        for b in 0..blocks {
            if b % 2 == 0 {
                rows.format(range(b), |chunk| out.write_all(chunk))?;
            } else {
                match rx.recv() {
                    Ok(text) => out.write_all(&text)?,
                    // The helper stopped on an error: it is returned below.
                    Err(_) => break,
                }
            }
        }
        match second.join() {
            Ok(r) => r?,
            Err(panic) => std::panic::resume_unwind(panic),
        }
        out.flush()
    })
}

/// [`write_batsim_csv`] in parts, for a caller that formats the rows on several threads:
/// the header, then the rows of any range of outcomes (chunks of about 64 KiB, handed to a
/// function in order). The header followed by the rows of consecutive ranges covering every
/// outcome are exactly `write_batsim_csv`'s bytes.
#[derive(Debug)]
pub struct BatsimRows<'a> {
    outcomes: &'a [Outcome],
    alloc: ProcessorRuns,
    workload: &'a str,
}

impl<'a> BatsimRows<'a> {
    /// Assigns the processors (the one sequential step: it sweeps the outcomes in time order).
    pub fn new(
        outcomes: &'a [Outcome],
        platform: &Platform,
        workload: &'a str,
    ) -> std::io::Result<Self> {
        let alloc = ProcessorRuns::assign(outcomes, platform).map_err(std::io::Error::other)?;
        Ok(BatsimRows {
            outcomes,
            alloc,
            workload,
        })
    }

    /// The header line.
    pub fn header(&self) -> Vec<u8> {
        let mut h = BATSIM_COLUMNS.join(",").into_bytes();
        h.push(b'\n');
        h
    }

    /// The rows of `range` (indices into the outcomes), chunk by chunk, to `emit`.
    pub fn format(
        &self,
        range: std::ops::Range<usize>,
        emit: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let first = range.start;
        format_rows(
            &self.outcomes[range],
            first,
            &self.alloc,
            self.workload,
            emit,
        )
    }
}

/// Formats the rows of `outcomes` (the first being outcome `first` of the assignment
/// `alloc`) in chunks of about [`CHUNK`] bytes, handing each chunk to `emit`.
///
/// Each row is written at a cursor into a buffer kept at its full length (`put_u64` stores
/// whole 8-byte blocks of digits), with room for the longest row checked once per row.
fn format_rows(
    outcomes: &[Outcome],
    first: usize,
    alloc: &ProcessorRuns,
    workload: &str,
    mut emit: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    /// Bytes of a row besides the workload name and the processor runs: 11 numbers of at
    /// most `PUT_ROOM`, the stretch, and the fixed text.
    const ROW: usize = 16 * PUT_ROOM + 128;
    /// Bytes per processor run at most: two numbers, `-` and a space.
    const RUN: usize = 2 * PUT_ROOM + 2;
    let mut buf = vec![0u8; CHUNK + ROW + workload.len()];
    let mut at = 0;
    let mut stretch_text: Vec<u8> = Vec::with_capacity(64);
    for (i, o) in outcomes.iter().enumerate() {
        let runs = alloc.of(first + i);
        let room = ROW + workload.len() + RUN * runs.len();
        if buf.len() - at < room {
            emit(&buf[..at])?;
            at = 0;
            if buf.len() < room {
                buf.resize(room, 0);
            }
        }
        let exec = o.execution();
        let turnaround = o.end - o.job.submit;
        let stretch = turnaround as f64 / exec.max(1) as f64;
        at = put_u64(&mut buf, at, o.job.id);
        buf[at] = b',';
        at = put_bytes(&mut buf, at + 1, workload.as_bytes());
        at = put_bytes(&mut buf, at, b",,");
        at = put_i64(&mut buf, at, o.job.submit);
        buf[at] = b',';
        at = put_u64(&mut buf, at + 1, o.job.procs.into());
        buf[at] = b',';
        at = put_i64(&mut buf, at + 1, o.walltime);
        let state: &[u8] = if o.killed {
            b",0,COMPLETED_WALLTIME_REACHED,"
        } else {
            b",1,COMPLETED_SUCCESSFULLY,"
        };
        at = put_bytes(&mut buf, at, state);
        for v in [o.start, exec, o.end, o.wait(), turnaround] {
            at = put_i64(&mut buf, at, v);
            buf[at] = b',';
            at += 1;
        }
        stretch_text.clear();
        push_f64_fixed(&mut stretch_text, stretch, 6);
        stretch_text.push(b',');
        // The text of a finite ratio is short; a longer one (never on a log) still fits:
        // `room` is re-checked.
        if buf.len() - at < stretch_text.len() + room {
            buf.resize(at + stretch_text.len() + room, 0);
        }
        at = put_bytes(&mut buf, at, &stretch_text);
        for (j, &(a, b)) in runs.iter().enumerate() {
            if j > 0 {
                buf[at] = b' ';
                at += 1;
            }
            at = put_u64(&mut buf, at, a.into());
            if a != b {
                buf[at] = b'-';
                at = put_u64(&mut buf, at + 1, b.into());
            }
        }
        at = put_bytes(&mut buf, at, b",-1,,");
        at = put_u64(&mut buf, at, o.machine.into());
        buf[at] = b'\n';
        at += 1;
        if at >= CHUNK {
            emit(&buf[..at])?;
            at = 0;
        }
    }
    emit(&buf[..at])
}

/// Copies `text` to `buf[at..]`; the cursor after it.
#[inline]
fn put_bytes(buf: &mut [u8], at: usize, text: &[u8]) -> usize {
    buf[at..at + text.len()].copy_from_slice(text);
    at + text.len()
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
            split in 0usize..130,
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
            prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(expected.clone()).unwrap());
            // In two parts, as `gridsched replay` formats them on two threads.
            let split = split.min(outcomes.len());
            let rows = BatsimRows::new(&outcomes, &platform, "w-1").unwrap();
            let mut parts = rows.header();
            rows.format(0..split, |c| { parts.extend_from_slice(c); Ok(()) }).unwrap();
            rows.format(split..outcomes.len(), |c| { parts.extend_from_slice(c); Ok(()) }).unwrap();
            prop_assert_eq!(&parts, &expected);
            let mut threads = Vec::new();
            write_on_two_threads(&mut threads, &rows, split).unwrap();
            prop_assert_eq!(threads, expected, "blocks of {} rows", split);
        }
    }

    /// Many rows (the 64 KiB chunks are flushed) and wide jobs on a large machine (long
    /// `allocated_resources` lists; 79 words of processors, so the search for free words
    /// crosses two words of their summary bits).
    #[test]
    fn long_outputs_equal_the_format_writer() {
        let platform = Platform::cluster(5000).unwrap();
        let mut x = 7u64;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let jobs: Vec<Job> = (0..4000)
            .map(|k| {
                let procs = if next(10) == 0 {
                    1 + next(4999)
                } else {
                    1 + next(64)
                } as u32;
                let run = 1 + next(5000) as i64;
                Job::new(k, k as i64 * 3, procs, run).requested(run + next(3000) as i64)
            })
            .collect();
        for policy in [Policy::Fcfs, Policy::Easy] {
            let config = Config::new(policy).estimates(Estimates::Requested);
            let mut sim = Simulator::with_jobs(platform.clone(), config, jobs.clone()).unwrap();
            sim.run();
            let outcomes: Vec<Outcome> = sim.outcomes().collect();
            let mut fast = Vec::new();
            write_batsim_csv(&mut fast, &outcomes, &platform, "long").unwrap();
            assert!(fast.len() > 4 * CHUNK);
            assert_eq!(fast, reference_csv(&outcomes, &platform, "long"));
            let rows = BatsimRows::new(&outcomes, &platform, "long").unwrap();
            for block in [0, 1, 7, 1999, 4000, 5000] {
                let mut threads = Vec::new();
                write_on_two_threads(&mut threads, &rows, block).unwrap();
                assert_eq!(threads, fast, "blocks of {block} rows");
            }
            assert_eq!(
                assign_processors(&outcomes, &platform).unwrap(),
                reference_assign(&outcomes, &platform)
            );
        }
    }
}
