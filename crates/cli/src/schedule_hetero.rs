//! `gridsched schedule hetero`: Castillo (2008) ch. 4 on the user's requests and server rates.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use clap::{ArgGroup, Args, ValueEnum};
use gridsched_reservation::hetero::{
    ClassOrder, HeteroAlgorithm, HeteroConfig, HeteroScheduler, ListIndex, PlusPick,
};
use gridsched_workload::RequestLimits;

use crate::input::requests;
use crate::input::values::parse_hours;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// First fit over one list of every idle period, blind to rates.
    #[value(name = "ff-hu")]
    Unaware,
    /// First fit over one list per rate class, slowest class first.
    #[value(name = "ff-ha")]
    Aware,
    /// FF-HA with a primal/dual 2-D tree per class (O(log² V) per class).
    #[value(name = "ff-ha-plus")]
    AwareTrees,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PickArg {
    Tree,
    MaxCapInFirstGroup,
    EarliestStart,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ClassOrderArg {
    Ascending,
    Descending,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListIndexArg {
    /// Start-ordered blocks with summaries: the scan's answer without walking the list.
    Blocks,
    /// The thesis's list, walked element by element from the head.
    Scan,
}

/// Online advance reservations on servers of different service rates.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("server_rates").required(true).args(["rates", "rates_file"])))]
pub struct HeteroArgs {
    /// Algorithm (Castillo 2008, §4.2 and §4.4).
    #[arg(long, value_enum)]
    algorithm: AlgorithmArg,
    /// Service rate of every server, comma-separated, each in (0, 1]: server i gets the i-th
    /// rate (0-based). A job of `length` (its work on a rate-1 server) runs length / rate.
    #[arg(
        long,
        value_delimiter = ',',
        allow_negative_numbers = true,
        value_name = "R1,R2,..."
    )]
    rates: Option<Vec<String>>,
    /// File with one server rate per line (`#` starts a comment; blank lines are skipped).
    #[arg(long, value_name = "FILE")]
    rates_file: Option<PathBuf>,
    /// Input CSV with header id,arrival,ready,length,deadline (rows in arrival order).
    #[arg(long)]
    requests: PathBuf,
    /// Output CSV: id,accepted,server,start,end in input order (written atomically; `-` for
    /// standard output).
    #[arg(long)]
    out: PathBuf,
    /// FF-HA+: the period chosen in the first group holding a feasible one (spec A22).
    #[arg(long, value_enum, default_value = "tree")]
    pick: PickArg,
    /// FF-HA and FF-HA+: the order in which rate classes are searched.
    #[arg(long, value_enum, default_value = "ascending")]
    class_order: ClassOrderArg,
    /// Idle fragments whose nominal capacity (rate x length) is below this are discarded:
    /// hours, or with a unit (`30s`, `1min`, `2h`).
    #[arg(long, default_value = "1min", value_parser = parse_hours, allow_negative_numbers = true)]
    min_fragment: f64,
    /// FF-HU and FF-HA: how the start-ordered lists are held (spec A26b). Both make the same
    /// decisions; `scan` takes the thesis's time, linear in the idle periods.
    #[arg(long, value_enum, default_value = "blocks")]
    list_index: ListIndexArg,
}

fn server_rates(args: &HeteroArgs) -> Result<Vec<f64>> {
    match (&args.rates, &args.rates_file) {
        (Some(list), None) => requests::rates_list(list),
        (None, Some(path)) => requests::rates_file(path),
        _ => bail!("give exactly one of --rates and --rates-file"),
    }
}

pub fn hetero(args: HeteroArgs) -> Result<()> {
    crate::out::check(
        &[
            ("--requests", Some(&args.requests)),
            ("--rates-file", args.rates_file.as_deref()),
        ],
        &[("--out", Some(&args.out))],
    )?;
    let rates = server_rates(&args)?;
    let algorithm = match args.algorithm {
        AlgorithmArg::Unaware => HeteroAlgorithm::FfHu,
        AlgorithmArg::Aware => HeteroAlgorithm::FfHa,
        AlgorithmArg::AwareTrees => HeteroAlgorithm::FfHaPlus,
    };
    let mut config = HeteroConfig::new(rates, algorithm);
    config.pick = match args.pick {
        PickArg::Tree => PlusPick::Tree,
        PickArg::MaxCapInFirstGroup => PlusPick::MaxCapInFirstGroup,
        PickArg::EarliestStart => PlusPick::EarliestStart,
    };
    config.class_order = match args.class_order {
        ClassOrderArg::Ascending => ClassOrder::Ascending,
        ClassOrderArg::Descending => ClassOrder::Descending,
    };
    config.min_fragment = args.min_fragment;
    config.list_index = match args.list_index {
        ListIndexArg::Blocks => ListIndex::Blocks,
        ListIndexArg::Scan => ListIndex::Scan,
    };
    config.validate()?;
    // Lengths are work on a rate-1 server; no look-ahead limit applies.
    let limits = RequestLimits {
        l_min: f64::MIN_POSITIVE,
        horizon: f64::INFINITY,
    };
    let input = requests::read(&args.requests, &limits)?;

    let servers = config.rates.len();
    let mut scheduler = HeteroScheduler::new(config)?;
    let mut recorder = scheduler.recorder();
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(["id", "accepted", "server", "start", "end"])?;
    for ((id, line), request) in input.ids.iter().zip(&input.lines).zip(&input.requests) {
        let w = &request.window;
        let d = scheduler
            .decide_and_record(
                request.arrival,
                w.ready,
                w.length,
                w.deadline,
                &mut recorder,
            )
            .map_err(|e| anyhow!("{}:{line}: request `{id}`: {e}", args.requests.display()))?;
        match d.booking {
            Some(b) => out.write_record([
                id.as_str(),
                "true",
                &b.server.to_string(),
                &b.start.to_string(),
                &b.end.to_string(),
            ])?,
            None => out.write_record([id.as_str(), "false", "", "", ""])?,
        }
    }
    let bytes = out.into_inner().map_err(|e| anyhow!("writing CSV: {e}"))?;
    crate::out::write(&args.out, &bytes)?;

    let m = recorder.finish();
    let accepted = m.jobs - (m.loss * m.jobs as f64).round() as u64;
    note!(
        "{algorithm}: {servers} servers in {} rate classes, {} requests: {accepted} accepted, loss {:.4}, work loss {:.4}, utilization {:.4}, mean waiting {:.4}, {:.1} operations per decision",
        scheduler.classes().len(),
        m.jobs,
        m.loss,
        m.work_loss,
        m.utilization,
        m.waiting,
        m.ops_per_job
    );
    Ok(())
}
