//! The actor engine's event order on random message and timer traffic.
//!
//! Every event created gets a global creation number `c` (the engine's `seq` order is creation
//! order), and its due time is known when it is created: send time + the network's delay, or
//! now + the timer's delay. The engine's contract is then fully checkable from the trace: each
//! event not cancelled is delivered exactly once, at its due time, and the trace is sorted by
//! `(due time, c)` — time order with ties in creation order.

use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

use gridsched_sim::{
    Actor, ActorId, Context, DelayModel, Envelope, Halt, Millis, SendError, Simulation, TimerId,
};
use proptest::prelude::*;

/// SplitMix64: the actors' only source of choices, so a run is a function of its seed.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A delay that depends on both ends and the size, with many zero and equal delays.
#[derive(Debug)]
struct Lumpy;

impl DelayModel for Lumpy {
    type Error = Infallible;
    fn delay(&mut self, src: ActorId, dst: ActorId, bytes: u64) -> Result<Millis, Infallible> {
        Ok((u64::from(src.0 % 3) + u64::from(dst.0 % 2) + bytes) % 4)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Timer,
}

/// What every actor of one run shares: the creation counter, the budget of events still to
/// create, each event's due time, the cancellations and the trace.
#[derive(Debug, Default)]
struct Book {
    seed: u64,
    created: u64,
    budget: u64,
    due: Vec<(Millis, Kind)>,
    cancelled: Vec<bool>,
    trace: Vec<(Millis, u64, u32, Kind)>,
}

impl Book {
    fn create(&mut self, due: Millis, kind: Kind) -> u64 {
        let c = self.created;
        self.created += 1;
        self.budget -= 1;
        self.due.push((due, kind));
        self.cancelled.push(false);
        c
    }
}

#[derive(Debug)]
struct Churn {
    book: Rc<RefCell<Book>>,
    actors: u32,
    timers: Vec<(TimerId, u64)>,
}

impl Churn {
    fn react(
        &mut self,
        ctx: &mut Context<'_, u64, Lumpy>,
        c: u64,
    ) -> Result<(), SendError<Infallible>> {
        let mut book = self.book.borrow_mut();
        let h = mix(book.seed ^ mix(c));
        for i in 0..(h % 3) {
            if book.budget == 0 {
                return Ok(());
            }
            let g = mix(h.wrapping_add(i));
            let dst = ActorId((g % u64::from(self.actors)) as u32);
            let bytes = (g >> 8) % 5;
            let Ok(delay) = Lumpy.delay(ctx.me(), dst, bytes);
            let n = book.create(ctx.now() + delay, Kind::Message);
            ctx.send(dst, bytes, n)?;
        }
        if book.budget > 0 && (h >> 16).is_multiple_of(2) {
            let delay = (h >> 20) % 4;
            let n = book.create(ctx.now() + delay, Kind::Timer);
            let id = ctx.set_timer(delay, n);
            self.timers.push((id, n));
        }
        if (h >> 24).is_multiple_of(3) && !self.timers.is_empty() {
            let k = ((h >> 28) % self.timers.len() as u64) as usize;
            let (id, n) = self.timers.swap_remove(k);
            if ctx.cancel_timer(id) {
                book.cancelled[n as usize] = true;
            }
        }
        Ok(())
    }
}

impl Actor<Lumpy> for Churn {
    type Payload = u64;
    type Error = SendError<Infallible>;

    fn on_message(
        &mut self,
        ctx: &mut Context<'_, u64, Lumpy>,
        msg: Envelope<u64>,
    ) -> Result<(), Self::Error> {
        self.book
            .borrow_mut()
            .trace
            .push((ctx.now(), msg.payload, ctx.me().0, Kind::Message));
        self.react(ctx, msg.payload)
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, u64, Lumpy>, tag: u64) -> Result<(), Self::Error> {
        self.book
            .borrow_mut()
            .trace
            .push((ctx.now(), tag, ctx.me().0, Kind::Timer));
        self.react(ctx, tag)
    }
}

/// Runs `actors` churners from one initial timer each; returns the book.
fn run(seed: u64, actors: u32, budget: u64) -> Book {
    let book = Rc::new(RefCell::new(Book {
        seed,
        budget: budget + u64::from(actors),
        ..Book::default()
    }));
    let mut sim = Simulation::new(Lumpy);
    for _ in 0..actors {
        sim.add_actor(Churn {
            book: book.clone(),
            actors,
            timers: Vec::new(),
        });
    }
    for a in 0..actors {
        let delay = mix(seed ^ u64::from(a)) % 3;
        let n = book.borrow_mut().create(delay, Kind::Timer);
        sim.set_timer(ActorId(a), delay, n).unwrap();
    }
    assert_eq!(sim.run().unwrap(), Halt::Empty);
    let delivered = book.borrow().trace.len() as u64;
    assert_eq!(sim.counters().events(), delivered);
    drop(sim);
    Rc::try_unwrap(book).unwrap().into_inner()
}

proptest! {
    #[test]
    fn every_event_once_at_its_due_time_in_time_then_creation_order(
        seed in any::<u64>(),
        actors in 1u32..12,
        budget in 0u64..400,
    ) {
        let book = run(seed, actors, budget);
        let mut seen = vec![false; book.created as usize];
        for &(time, c, _, kind) in &book.trace {
            prop_assert!(!seen[c as usize], "event {} delivered twice", c);
            seen[c as usize] = true;
            prop_assert!(!book.cancelled[c as usize], "cancelled event {} delivered", c);
            prop_assert_eq!((time, kind), book.due[c as usize], "event {}", c);
        }
        for (c, (&seen, &cancelled)) in seen.iter().zip(&book.cancelled).enumerate() {
            prop_assert!(seen || cancelled, "event {} never delivered", c);
        }
        for w in book.trace.windows(2) {
            prop_assert!((w[0].0, w[0].1) < (w[1].0, w[1].1), "out of order: {:?}", w);
        }
    }

    #[test]
    fn same_seed_same_trace(seed in any::<u64>(), actors in 1u32..12, budget in 0u64..400) {
        prop_assert_eq!(run(seed, actors, budget).trace, run(seed, actors, budget).trace);
    }
}
