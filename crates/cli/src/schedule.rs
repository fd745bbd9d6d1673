//! `gridsched schedule ...`: run a scheduler on a user's input.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use clap::{Args, Subcommand, ValueEnum};
use gridsched_geom::{ExpiryMode, MAX_RING_SLOTS, StripOrder};
use gridsched_reservation::{
    Booking, EmptyBin, IndexKind, LactLate, MinTipReading, R2Pick, ReservationScheduler,
    RunRecorder, SchedulerConfig, SizeBins, Step2Start, Strategy,
};
use gridsched_sim::fmt::{push_csv_field, push_f64, push_int};
use gridsched_workload::RequestLimits;

use crate::input::requests;

#[path = "schedule_hetero.rs"]
mod schedule_hetero;

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Online advance reservations on identical servers (Castillo 2008, ch. 3).
    Reservation(ReservationArgs),
    /// Online advance reservations on servers of different rates (Castillo 2008, ch. 4).
    Hetero(schedule_hetero::HeteroArgs),
}

pub fn run(cmd: ScheduleCommand) -> Result<()> {
    match cmd {
        ScheduleCommand::Reservation(args) => reservation(args),
        ScheduleCommand::Hetero(args) => schedule_hetero::hetero(args),
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum IndexArg {
    Tree,
    Linear,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MinTipArg {
    Mirror,
    Narrative,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExpiryArg {
    Pool,
    Clip,
}

#[derive(Debug, Args)]
pub struct ReservationArgs {
    /// Strategy: first-fit, min-lip, min-tip, best-fit, lact, max-lip or max-tip.
    #[arg(long, value_parser = parse_strategy)]
    strategy: Strategy,
    /// Number of identical servers.
    #[arg(long)]
    servers: u32,
    /// Input CSV with header id,arrival,ready,length,deadline (rows in arrival order).
    #[arg(long)]
    requests: PathBuf,
    /// Output CSV: id,accepted,server,start,end in input order (written atomically; `-` for
    /// standard output).
    #[arg(long)]
    out: PathBuf,
    /// Shortest job length; shorter idle fragments are discarded.
    #[arg(long, default_value_t = 1.0)]
    l_min: f64,
    /// Look-ahead L: no deadline may lie further than arrival + L. With the tree index,
    /// Min-LIP and Min-TIP keep a ring of L / (2 M l_min) strips, at most 4194302.
    #[arg(long, default_value_t = 200.0)]
    horizon: f64,
    /// Idle-period index (decisions are identical; only speed differs).
    #[arg(long, value_enum, default_value = "tree")]
    index: IndexArg,
    /// Strip-width multiplier M (strips are M * 2 * l_min wide).
    #[arg(long, default_value_t = 1)]
    strip_multiplier: u32,
    /// Min-TIP reading (Castillo spec §2.6).
    #[arg(long, value_enum, default_value = "mirror")]
    min_tip: MinTipArg,
    /// Min-LIP step 1: take the earliest-starting R2 period instead of the longest (spec A6).
    #[arg(long)]
    r2_earliest_start: bool,
    /// Min-LIP step 2 starts at the strip above the ready time's, as the thesis literally says (spec A7).
    #[arg(long)]
    step2_strip_above: bool,
    /// Min-TIP step 1 visits end strips from the earliest instead of from the deadline's.
    #[arg(long)]
    min_tip_earliest_end_first: bool,
    /// LACT: take the latest completion that meets the deadline (spec A12).
    #[arg(long)]
    lact_latest_feasible: bool,
    /// What happens to live idle periods whose start strip expires (spec A14).
    #[arg(long, value_enum, default_value = "pool")]
    expiry: ExpiryArg,
}

/// The output's header line.
const HEADER: &[u8] = b"id,accepted,server,start,end\n";

/// Appends one output row, `id,true,server,start,end` or `id,false,,,`: the bytes the `csv`
/// crate's writer gives for those fields (the id quoted when needed, numbers as `Display`
/// writes them), without a `String` per field.
fn push_row(out: &mut Vec<u8>, id: &str, booking: Option<&Booking>) {
    push_csv_field(out, id.as_bytes());
    match booking {
        Some(b) => {
            out.extend_from_slice(b",true,");
            push_int(out, b.server);
            out.push(b',');
            push_f64(out, b.start);
            out.push(b',');
            push_f64(out, b.end);
            out.push(b'\n');
        }
        None => out.extend_from_slice(b",false,,,\n"),
    }
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    s.parse()
}

fn reservation(args: ReservationArgs) -> Result<()> {
    use crate::input::limits::short;
    crate::out::check(
        &[("--requests", Some(&args.requests))],
        &[("--out", Some(&args.out))],
    )?;
    let mut config = SchedulerConfig::new(args.servers, args.strategy);
    config.l_min = args.l_min;
    config.look_ahead = args.horizon;
    config.strip_multiplier = args.strip_multiplier;
    config.index = match args.index {
        IndexArg::Tree => IndexKind::Tree,
        IndexArg::Linear => IndexKind::Linear,
    };
    config.expiry = match args.expiry {
        ExpiryArg::Pool => ExpiryMode::Pool,
        ExpiryArg::Clip => ExpiryMode::Clip,
    };
    config.options.min_tip = match args.min_tip {
        MinTipArg::Mirror => MinTipReading::Mirror,
        MinTipArg::Narrative => MinTipReading::Narrative,
    };
    if args.r2_earliest_start {
        config.options.r2_pick = R2Pick::EarliestStart;
    }
    if args.step2_strip_above {
        config.options.step2_start = Step2Start::StripAbove;
    }
    if args.min_tip_earliest_end_first {
        config.options.min_tip_step1_order = StripOrder::EarliestFirst;
    }
    if args.lact_latest_feasible {
        config.options.lact_late = LactLate::LatestFeasibleCompletion;
    }
    config.validate()?;
    // Every server starts with an idle period in the index (its open-ended tail), held at
    // once before the first request is read.
    crate::input::limits::fits_memory(
        "--servers",
        args.servers,
        u64::from(args.servers),
        std::mem::size_of::<gridsched_geom::IdlePeriod>() as u64,
        "servers",
    )?;
    if let Some(slots) = config.ring_slots()
        && slots > MAX_RING_SLOTS
    {
        bail!(
            "--horizon {} is {} strips of 2 x --strip-multiplier {} x --l-min {}: {} on the tree \
             index keeps at most {} (horizon <= {} x 2 x strip-multiplier x l-min); use a larger \
             --l-min or --strip-multiplier, a shorter --horizon, or --index linear",
            short(args.horizon),
            short((args.horizon / config.strip_width()).ceil()),
            args.strip_multiplier,
            short(args.l_min),
            args.strategy,
            MAX_RING_SLOTS - 2,
            MAX_RING_SLOTS - 2
        );
    }
    let limits = RequestLimits {
        l_min: args.l_min,
        horizon: args.horizon,
    };
    let input = requests::read(&args.requests, &limits)?;

    let mut scheduler = ReservationScheduler::new(config)?;
    let mut recorder = RunRecorder::new(args.servers, SizeBins::single());
    let mut bytes = Vec::with_capacity(HEADER.len() + 48 * input.requests.len());
    bytes.extend_from_slice(HEADER);
    for ((id, line), request) in input.ids.iter().zip(&input.lines).zip(&input.requests) {
        let before = scheduler.operations();
        let booking = scheduler
            .submit(request.arrival, &request.window)
            .map_err(|e| anyhow!("{}:{line}: request `{id}`: {e}", args.requests.display()))?;
        recorder.record(request, booking.as_ref(), scheduler.operations() - before);
        push_row(&mut bytes, id, booking.as_ref());
    }
    crate::out::write(&args.out, &bytes)?;

    let m = recorder.finish(EmptyBin::Skip);
    let accepted = m.jobs - (m.loss * m.jobs as f64).round() as u64;
    note!(
        "{}: {} servers, {} requests: {accepted} accepted, loss {:.4}, work loss {:.4}, utilization {:.4}, mean delay {:.4}, {:.1} operations per decision",
        args.strategy,
        args.servers,
        m.jobs,
        m.loss,
        m.work_loss,
        m.utilization,
        m.delay,
        m.ops_per_job
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows as the `csv` writer wrote them from `to_string` fields before.
    fn reference(rows: &[(&str, Option<Booking>)]) -> Vec<u8> {
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(["id", "accepted", "server", "start", "end"])
            .unwrap();
        for (id, booking) in rows {
            match booking {
                Some(b) => out.write_record([
                    *id,
                    "true",
                    &b.server.to_string(),
                    &b.start.to_string(),
                    &b.end.to_string(),
                ]),
                None => out.write_record([*id, "false", "", "", ""]),
            }
            .unwrap();
        }
        out.into_inner().unwrap()
    }

    #[test]
    fn rows_equal_the_csv_writers() {
        // Times from a pseudo-random stream of every magnitude the scheduler can produce, and
        // ids that need quoting.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rows = Vec::new();
        let ids = ["7", "job 1", "a,b", "say \"hi\"", "x\ny", "é", "-"];
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let start = match i % 4 {
                0 => f64::from_bits(x >> 2) % 1e9,
                1 => (x % 1_000_000) as f64 / 1024.0,
                2 => (x % 100_000) as f64 / 10.0,
                _ => (x >> 11) as f64 * 1e-9,
            };
            let booking = (i % 5 != 0).then_some(Booking {
                server: (x >> 40) as u32 % 20_000,
                start,
                end: start + (x % 500) as f64 / 3.0,
            });
            rows.push((ids[i as usize % ids.len()], booking));
        }
        let mut fast = HEADER.to_vec();
        for (id, booking) in &rows {
            push_row(&mut fast, id, booking.as_ref());
        }
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            String::from_utf8(reference(&rows)).unwrap()
        );
    }
}
