//! Write your own reservation strategy: *least waste*.
//!
//! Among the idle periods that admit the job, take the one where the job, started as early as
//! it may, leaves the least idle time in fragments too short to hold another job (shorter than
//! `2 · l_min` here); ties to the smallest leading gap (as Min-LIP), then the earliest start,
//! then the lowest server. It is a
//! [`PeriodChooser`] and runs on the same scheduler, carving, expiry and metrics as the built-in
//! strategies; it prints its loss rate beside Best-fit's and Min-LIP's on the chapter-3
//! workload.
//!
//! ```sh
//! cargo run --release -p gridsched-reservation --example least_waste -- [servers] [jobs]
//! ```

use gridsched_geom::{IdlePeriod, Window};
use gridsched_reservation::{
    EmptyBin, PeriodChooser, Periods, Placement, ReservationScheduler, RunRecorder,
    SchedulerConfig, SizeBins, Strategy, run,
};
use gridsched_sim::StreamKey;
use gridsched_workload::ReservationWorkload;

/// The strategy: fragments shorter than `useful` count as waste.
#[derive(Debug)]
pub struct LeastWaste {
    pub useful: f64,
}

impl PeriodChooser for LeastWaste {
    fn choose(&mut self, periods: &mut Periods<'_>, w: &Window) -> Option<(IdlePeriod, Placement)> {
        let lead = |p: &IdlePeriod| p.start.max(w.ready) - p.start;
        let waste = |p: &IdlePeriod| {
            let trail = p.end - (p.start.max(w.ready) + w.length);
            [lead(p), trail]
                .iter()
                .filter(|&&f| f > 0.0 && f < self.useful)
                .sum::<f64>()
        };
        periods
            .feasible(w)
            .into_iter()
            .min_by(|a, b| {
                waste(a)
                    .total_cmp(&waste(b))
                    .then(lead(a).total_cmp(&lead(b)))
                    .then(a.start.max(w.ready).total_cmp(&b.start.max(w.ready)))
                    .then(a.server.cmp(&b.server))
            })
            .map(|p| (p, Placement::Early))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let servers: u32 = args.first().map_or(Ok(20), |s| s.parse())?;
    let jobs: usize = args.get(1).map_or(Ok(200_000), |s| s.parse())?;
    let workload = ReservationWorkload::castillo_ch3(servers, 0.9);
    let key = StreamKey::new(7, "least-waste-example");
    for name in ["least-waste", "best-fit", "min-lip"] {
        let config = SchedulerConfig::new(servers, Strategy::BestFit);
        let mut scheduler = match name {
            "least-waste" => ReservationScheduler::with_chooser(
                config,
                Box::new(LeastWaste {
                    useful: 2.0 * config.l_min,
                }),
            )?,
            "best-fit" => ReservationScheduler::new(config)?,
            _ => ReservationScheduler::new(SchedulerConfig::new(servers, Strategy::MinLip))?,
        };
        let mut recorder = RunRecorder::new(servers, SizeBins::from_pareto(&workload.sizes, 100));
        run(
            &mut scheduler,
            workload.stream(&key)?.take(jobs),
            &mut recorder,
        )?;
        let m = recorder.finish(EmptyBin::Skip);
        println!(
            "{name:<12} loss {:.4}  work loss {:.4}  utilization {:.4}",
            m.loss, m.work_loss, m.utilization
        );
    }
    Ok(())
}
