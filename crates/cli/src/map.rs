//! `gridsched map ...`: map independent tasks from an ETC matrix (Kumar 2010; Braun et al.
//! 2001), and `gridsched map generate ...`: write a seeded ETC matrix.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use gridsched_mapping::generate::{KumarCase, KumarWorkload, PeSpeed, RangeBased};
use gridsched_mapping::io::{self, Format};
use gridsched_mapping::{
    Consistency, EtcMatrix, Heuristic, Schedule, SegmentKey, SufferageVariant,
};
use gridsched_sim::StreamKey;

use crate::input::matrices;
use crate::input::values::parse_range;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MapArgs {
    #[command(subcommand)]
    command: Option<MapCommand>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum MapCommand {
    /// Write a seeded ETC matrix (Braun et al.'s range-based method or Kumar's workload).
    Generate(GenerateArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    Braun,
    Csv,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Braun => Format::Braun,
            FormatArg::Csv => Format::Csv,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SufferageArg {
    Batch,
    Sequential,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum KeyArg {
    Avg,
    Min,
    Max,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// olb, met, mct, min-min, max-min, sufferage, sufferage-batch, sufferage-seq, duplex,
    /// segmented-min-min, sas (or sas-seq).
    #[arg(long, required = true)]
    heuristic: Option<String>,
    /// Segments N of sas and segmented-min-min (Kumar's default: 4).
    #[arg(long)]
    segments: Option<usize>,
    /// Reading of Sufferage for `sufferage` and `sas` (spec §2.3): Fig. 4.1's batch passes or
    /// the worked example's one task per step.
    #[arg(long, value_enum)]
    sufferage: Option<SufferageArg>,
    /// Sort key of segmented-min-min.
    #[arg(long, value_enum, default_value = "avg")]
    key: KeyArg,
    /// ETC matrix file; a relative name that does not exist is also looked up in the data
    /// directory (`<data>/etc/braun/FILE`).
    #[arg(long, required = true)]
    etc: Option<PathBuf>,
    /// File format (default: csv for *.csv, braun otherwise).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Shape of a Braun file without a `T M` header (default: 16 machines).
    #[arg(long)]
    tasks: Option<usize>,
    /// See --tasks.
    #[arg(long)]
    machines: Option<usize>,
    /// Data directory (default: $GRIDSCHED_DATA, else ../shared/data next to the checkout).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Write the schedule as CSV: task,machine,start,end,order,segment,round,key (by task;
    /// `-` for standard output, the results then go to standard error).
    #[arg(long, value_name = "OUT.csv")]
    schedule: Option<PathBuf>,
    /// Print the results as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GeneratorArg {
    /// Braun et al. (2001) range-based: τ_i ~ U[1, φ_b), ETC = τ_i · U[1, φ_r).
    Braun,
    /// Kumar (2010) ch. 5: GridSim task lengths on 10 resources of 15-20 machines × 2-4 PEs.
    Kumar,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// Which generator.
    #[arg(long, value_enum)]
    model: GeneratorArg,
    /// Output file (written atomically; `-` for standard output).
    #[arg(long)]
    out: PathBuf,
    /// Output format (default: csv for *.csv, braun otherwise).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Braun format: omit the `T M` header line (as in the benchmark files).
    #[arg(long)]
    no_header: bool,
    /// Master seed of the random streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of tasks (default: 512 for braun, 1000 for kumar).
    #[arg(long)]
    tasks: Option<usize>,
    /// braun: number of machines (default 16).
    #[arg(long)]
    machines: Option<usize>,
    /// braun: a benchmark class u_{c,i,s}_{hi,lo}{hi,lo} (default u_i_hihi); the options below
    /// override its parts.
    #[arg(long, default_value = "u_i_hihi")]
    class: String,
    /// braun: consistent, inconsistent or semi-consistent.
    #[arg(long)]
    consistency: Option<Consistency>,
    /// braun: task heterogeneity φ_b (3000 high, 100 low).
    #[arg(long)]
    task_het: Option<f64>,
    /// braun: machine heterogeneity φ_r (1000 high, 10 low).
    #[arg(long)]
    machine_het: Option<f64>,
    /// kumar: case 1 (few short tasks), 2 (few long tasks) or 3 (random lengths).
    #[arg(long, default_value_t = 1)]
    case: u32,
    /// kumar: number of resources.
    #[arg(long, default_value_t = 10)]
    resources: usize,
    /// kumar: share of the minority class in cases 1 and 2.
    #[arg(long, default_value_t = 0.06)]
    minority_share: f64,
    /// kumar: MIPS of every PE.
    #[arg(long, default_value_t = 377.0)]
    mips: f64,
    /// kumar: draw one MIPS rating per resource in LOW,HIGH instead (e.g. 100,1000).
    #[arg(long, value_parser = parse_range)]
    mips_range: Option<(f64, f64)>,
}

pub fn run(args: MapArgs) -> Result<()> {
    match args.command {
        Some(MapCommand::Generate(g)) => generate(g),
        None => map(args.run),
    }
}

fn heuristic(a: &RunArgs) -> Result<Heuristic> {
    let name = a.heuristic.as_deref().unwrap_or_default();
    let mut h: Heuristic = name.parse().map_err(anyhow::Error::msg)?;
    if let Some(v) = a.sufferage {
        if !matches!(h, Heuristic::Sufferage(_) | Heuristic::Sas { .. }) {
            bail!("--sufferage applies to sufferage and sas, not {name}");
        }
        h = h.with_variant(match v {
            SufferageArg::Batch => SufferageVariant::Batch,
            SufferageArg::Sequential => SufferageVariant::Sequential,
        });
    }
    if let Some(n) = a.segments {
        if !matches!(h, Heuristic::SegmentedMinMin { .. } | Heuristic::Sas { .. }) {
            bail!("--segments applies to sas and segmented-min-min, not {name}");
        }
        if n == 0 {
            bail!("--segments must be at least 1");
        }
        h = h.with_segments(n);
    }
    if let Heuristic::SegmentedMinMin { segments, .. } = h {
        let key = match a.key {
            KeyArg::Avg => SegmentKey::Avg,
            KeyArg::Min => SegmentKey::Min,
            KeyArg::Max => SegmentKey::Max,
        };
        h = Heuristic::SegmentedMinMin { segments, key };
    }
    Ok(h)
}

fn map(a: RunArgs) -> Result<()> {
    let h = heuristic(&a)?;
    let given = a.etc.clone().unwrap_or_default();
    let path = matrices::locate(&given, a.data_dir.as_deref())?;
    crate::out::check(
        &[("--etc", Some(&path))],
        &[("--schedule", a.schedule.as_deref())],
    )?;
    let format = a.format.map_or_else(|| Format::guess(&path), Format::from);
    let etc = matrices::read(&path, format, a.tasks, a.machines)?;
    let started = std::time::Instant::now();
    let schedule = h.map(&etc)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(out) = &a.schedule {
        write_schedule(out, &schedule)?;
    }
    let m = schedule.metrics();
    let file = path.display().to_string();
    let to_stderr = crate::out::data_on_stdout(a.schedule.as_deref());
    if a.json {
        crate::out::say(
            to_stderr,
            &format!(
                "{{\"heuristic\":{},\"etc\":{},\"tasks\":{},\"machines\":{},\"consistency\":{},\"makespan\":{},\"flowtime\":{},\"utilization\":{},\"deviation\":{},\"load_balance\":{},\"ready_times\":[{}]}}\n",
                json_string(&h.to_string()),
                json_string(&file),
                etc.tasks(),
                etc.machines(),
                json_string(etc.consistency().name()),
                json_number(m.makespan),
                json_number(m.flowtime),
                json_number(m.utilization),
                json_number(m.deviation),
                json_number(m.load_balance),
                schedule
                    .ready_times()
                    .iter()
                    .map(|r| json_number(*r))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        )?;
    } else {
        let mut text = format!("heuristic     {h}\n");
        text += &format!(
            "matrix        {file} ({} tasks x {} machines, {})",
            etc.tasks(),
            etc.machines(),
            etc.consistency().name()
        );
        text += &format!("\nmakespan      {}\n", m.makespan);
        text += &format!("flowtime      {}\n", m.flowtime);
        text += &format!("utilization   {:.6}\n", m.utilization);
        text += &format!(
            "load balance  {:.6} (deviation {:.6})\n",
            m.load_balance, m.deviation
        );
        crate::out::say(to_stderr, &text)?;
        note!("mapped in {:.3} s", seconds);
        if let Some(out) = &a.schedule {
            note!("wrote {}", crate::out::display(out));
        }
    }
    Ok(())
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

fn write_schedule(path: &Path, s: &Schedule) -> Result<()> {
    use gridsched_sim::fmt::{push_f64, push_int};
    let mut out = Vec::with_capacity(64 * s.tasks() + 64);
    out.extend_from_slice(b"task,machine,start,end,order,segment,round,key\n");
    let mut order = vec![0; s.tasks()];
    for (k, p) in s.picks().iter().enumerate() {
        order[p.task] = k;
    }
    // Numbers only, so no field needs quoting; each is written as `to_string` would write it,
    // without a string per field.
    for (t, k) in order.into_iter().enumerate() {
        let p = s.pick_of(t);
        for i in [t, p.machine] {
            push_int(&mut out, i);
            out.push(b',');
        }
        for x in [p.start, p.end] {
            push_f64(&mut out, x);
            out.push(b',');
        }
        for i in [k, p.segment, p.round] {
            push_int(&mut out, i);
            out.push(b',');
        }
        push_f64(&mut out, p.key);
        out.push(b'\n');
    }
    crate::out::write(path, &out)
}

fn generate(g: GenerateArgs) -> Result<()> {
    let key = StreamKey::new(g.seed, "gridsched map generate");
    let etc: EtcMatrix = match g.model {
        GeneratorArg::Braun => {
            let mut range = RangeBased::braun_class(&g.class).map_err(anyhow::Error::msg)?;
            if let Some(t) = g.tasks {
                range.tasks = t;
            }
            if let Some(m) = g.machines {
                range.machines = m;
            }
            if let Some(c) = g.consistency {
                range.consistency = c;
            }
            if let Some(v) = g.task_het {
                range.task_heterogeneity = v;
            }
            if let Some(v) = g.machine_het {
                range.machine_heterogeneity = v;
            }
            if range.tasks == 0 || range.machines == 0 {
                bail!("--tasks and --machines must be at least 1");
            }
            if !(range.task_heterogeneity >= 1.0 && range.machine_heterogeneity >= 1.0) {
                bail!("heterogeneities must be at least 1");
            }
            range.generate(&mut key.stream("etc").rng())?
        }
        GeneratorArg::Kumar => {
            let case = KumarCase::from_number(g.case)
                .with_context(|| format!("--case must be 1, 2 or 3, got {}", g.case))?;
            let mut w = KumarWorkload::new(case);
            w.tasks = g.tasks.unwrap_or(1000);
            w.resources = g.resources;
            w.minority_share = g.minority_share;
            w.pe_speed = match g.mips_range {
                Some((lo, hi)) => PeSpeed::PerResource(lo, hi),
                None => PeSpeed::Fixed(g.mips),
            };
            w.generate(&key).map_err(anyhow::Error::msg)?
        }
    };
    let format = g.format.map_or_else(|| Format::guess(&g.out), Format::from);
    let text = match format {
        Format::Braun => io::write_braun(&etc, !g.no_header),
        Format::Csv => io::write_csv(&etc),
    };
    crate::out::write(&g.out, text.as_bytes())?;
    note!(
        "wrote {} ({} tasks x {} machines, {})",
        crate::out::display(&g.out),
        etc.tasks(),
        etc.machines(),
        etc.consistency().name()
    );
    Ok(())
}
