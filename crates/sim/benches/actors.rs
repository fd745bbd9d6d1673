//! Events per second of the actor engine (`gridsched_sim::actors`) on one core, for a message
//! mix shaped like Al-Zoubi's hierarchical grid model (issue 16, item 1; target ≥ 5 × 10⁶
//! events/s, against DSLab's reported 1.5–1.8 × 10⁶ for a Rust DES).
//!
//! Group `actors/control-mix`, benchmarks `<function>/actors=<N>` for N ∈ {240, 2400, 24000}
//! (2400 = the thesis's nodes). Each actor
//! - forwards *tokens*: one per actor circulates from actor to pseudo-random actor (a
//!   xorshift per actor), 100-byte control messages: the steady background of small messages;
//! - runs a *request cycle* every 50–57 ms, as a leaf asking its parent for work: a timer
//!   fires, it sends an RFC to its parent (actors form a tree of fan-out 8), sets a 100 ms
//!   timeout, and cancels it when the parent's PUSH comes back (nearly always, so most
//!   timeouts are cancelled and skipped, as offer and retry timeouts are in the model).
//!
//! The delay model is the thesis's control-message delays by "backbone" (600 consecutive
//! actors): 1 ms inside, 6 ms across. The thesis gives 0 ms inside a backbone; the 1 ms floor
//! keeps the clock moving, since tokens alone would otherwise never let time advance.
//! Over 90% of the events are messages (most of them tokens), the rest timers.
//!
//! One criterion iteration is **one event** (`iter_custom` steps a warmed simulation that
//! never drains), with throughput one element, so criterion prints events per second and the
//! mean time is the time per event. Functions:
//! - `engine`: [`Simulation::step`], everything included (queue, slab, handler, delay model);
//! - `queue-only`: the bare future-event list ([`EventQueue`] pop + push) holding as many
//!   entries as the engine's warmed queue: the floor any heap-based engine pays per event.
//!
//! `<criterion dir>/gridsched-sim-actors.csv` records per run the engine's queue length after
//! warm-up, the share of message events, and the events per second over all timed batches
//! (the same timings criterion sees). `actors.report.toml` beside this file turns the results
//! into docs/benchmarks.md.
//!
//! `GRIDSCHED_BENCH_QUICK=1` keeps only N = 2400.

use std::convert::Infallible;
use std::hint::black_box;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridsched_sim::{
    Actor, ActorId, Context, DelayModel, Envelope, EventQueue, Millis, SendError, Simulation,
    TimerId,
};

const BACKBONE: u32 = 600;
const FAN_OUT: u32 = 8;
const PERIOD_MS: Millis = 50;
const TIMEOUT_MS: Millis = 100;
const TICK: u64 = 0;
const TIMEOUT: u64 = 1;

/// 1 ms inside a backbone of 600 actors, 6 ms across.
#[derive(Debug)]
struct Backbones;

impl DelayModel for Backbones {
    type Error = Infallible;

    fn delay(&mut self, src: ActorId, dst: ActorId, _: u64) -> Result<Millis, Infallible> {
        Ok(if src.0 / BACKBONE == dst.0 / BACKBONE {
            1
        } else {
            6
        })
    }
}

#[derive(Debug, Clone, Copy)]
enum Msg {
    Token,
    Rfc,
    Push { jobs: u32 },
}

#[derive(Debug)]
struct Node {
    actors: u32,
    parent: ActorId,
    state: u64,
    timeout: Option<TimerId>,
    received: u64,
}

impl Node {
    fn draw(&mut self) -> u64 {
        // xorshift64: cheap, deterministic, never zero from a non-zero seed.
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }
}

impl Actor<Backbones> for Node {
    type Payload = Msg;
    type Error = SendError<Infallible>;

    fn on_message(
        &mut self,
        ctx: &mut Context<'_, Msg, Backbones>,
        msg: Envelope<Msg>,
    ) -> Result<(), Self::Error> {
        match msg.payload {
            Msg::Token => {
                let next = ActorId((self.draw() % u64::from(self.actors)) as u32);
                ctx.send(next, 100, Msg::Token)
            }
            Msg::Rfc => ctx.send(msg.src, 120, Msg::Push { jobs: 1 }),
            Msg::Push { jobs } => {
                self.received += u64::from(jobs);
                if let Some(t) = self.timeout.take() {
                    ctx.cancel_timer(t);
                }
                Ok(())
            }
        }
    }

    fn on_timer(
        &mut self,
        ctx: &mut Context<'_, Msg, Backbones>,
        tag: u64,
    ) -> Result<(), Self::Error> {
        if tag == TICK {
            ctx.send(self.parent, 20, Msg::Rfc)?;
            self.timeout = Some(ctx.set_timer(TIMEOUT_MS, TIMEOUT));
            let jitter = self.draw() % 8;
            ctx.set_timer(PERIOD_MS + jitter, TICK);
        } else {
            self.timeout = None;
        }
        Ok(())
    }
}

fn build(actors: u32) -> Simulation<Node, Backbones> {
    let mut sim = Simulation::new(Backbones);
    for i in 0..actors {
        sim.add_actor(Node {
            actors,
            parent: ActorId(i / FAN_OUT),
            state: 0x9E37_79B9_7F4A_7C15 ^ (u64::from(i) + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9),
            timeout: None,
            received: 0,
        });
    }
    for i in 0..actors {
        let id = ActorId(i);
        sim.send(id, id, 100, Msg::Token).expect("actor exists");
        sim.set_timer(id, u64::from(i) % PERIOD_MS, TICK)
            .expect("actor exists");
    }
    sim
}

/// Where criterion writes (mirrors criterion's own choice for a workspace member).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// Appends one line to the bench's record CSV (header first when the file is new).
fn record(line: &str) {
    let dir = criterion_dir();
    let path = dir.join("gridsched-sim-actors.csv");
    let _ = std::fs::create_dir_all(&dir);
    let new = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if new {
            let _ = writeln!(
                f,
                "mix,actors,pending,message_share,engine_events_per_s,queue_events_per_s"
            );
        }
        let _ = writeln!(f, "{line}");
    }
}

fn sizes() -> Vec<u32> {
    if std::env::var_os("GRIDSCHED_BENCH_QUICK").is_some() {
        vec![2400]
    } else {
        vec![240, 2400, 24_000]
    }
}

/// Events per second over every timed batch.
#[derive(Debug, Default)]
struct Rate {
    events: u64,
    time: Duration,
}

impl Rate {
    fn add(&mut self, events: u64, time: Duration) -> Duration {
        self.events += events;
        self.time += time;
        time
    }

    fn per_second(&self) -> f64 {
        self.events as f64 / self.time.as_secs_f64().max(1e-12)
    }
}

fn actors(c: &mut Criterion) {
    let mut group = c.benchmark_group("actors/control-mix");
    group.throughput(Throughput::Elements(1));
    for n in sizes() {
        let mut sim = build(n);
        // Warm-up: every actor through several request cycles, so the queue and the slab
        // are at their steady size and no timed event allocates.
        sim.run_until(20 * PERIOD_MS).expect("no send fails");
        let pending = sim.pending();
        let before = sim.counters();
        let mut engine = Rate::default();
        group.bench_function(BenchmarkId::new("engine", format!("actors={n}")), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(sim.step().expect("no send fails"));
                }
                engine.add(iters, start.elapsed())
            })
        });
        let after = sim.counters();
        let messages = (after.messages - before.messages) as f64;
        let share = messages / (after.events() - before.events()).max(1) as f64;

        // The same number of entries in a bare queue: pop the earliest, push it 1-6 ms later.
        let mut queue = EventQueue::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..pending {
            queue.push((i % 7) as Millis, i as u32);
        }
        let mut bare = Rate::default();
        group.bench_function(BenchmarkId::new("queue-only", format!("actors={n}")), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    let (t, e) = queue.pop().expect("the queue never drains");
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    queue.push(t + 1 + x % 6, black_box(e));
                }
                bare.add(iters, start.elapsed())
            })
        });
        record(&format!(
            "control-mix,{n},{pending},{share:.3},{:.0},{:.0}",
            engine.per_second(),
            bare.per_second()
        ));
    }
    group.finish();
}

criterion_group!(benches, actors);
criterion_main!(benches);
