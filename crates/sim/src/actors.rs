//! A message-driven discrete-event engine: actors that only interact by messages, whose delivery
//! time a pluggable network delay model decides, and by timers they set on themselves.
//!
//! Why it exists: some documents model scheduling as a *distributed* protocol — Al-Zoubi's grid
//! tree is thousands of workstations, schedulers and servers that learn about each other only
//! through messages crossing an Internet-like network (the thesis's DEVS model, mapped onto a
//! plain DES in its spec §7). There the behaviour lives in per-node state machines and the only
//! coupling is *when* a message arrives, so the engine owns time, the event order and the
//! network delay, and a model owns nothing but its actors and their messages. Nothing here knows
//! a document; a model brings its actor type, payload type and [`DelayModel`].
//!
//! # Time and order
//!
//! Time is an integer number of milliseconds ([`Millis`]): the networks these models use floor
//! their delays to whole milliseconds, so integer time is exact and never accumulates rounding.
//! Events are delivered in `(time, seq)` order, `seq` being the order in which they were
//! scheduled (the FIFO ties of [`EventQueue`]). Ties are the common case, not a corner — a
//! control message inside one backbone takes 0 ms — and a fixed tie-break is what makes a run a
//! pure function of its inputs: same actors, same initial events, same trace, on any machine.
//!
//! # The hot path
//!
//! A model of 10⁴ jobs runs ~10⁷ events, and sweeps run thousands of models, so delivering an
//! event must not allocate once a run has reached its largest number of pending events:
//!
//! - the future-event list is a [`RadixQueue<u32>`](RadixQueue) (same order as
//!   [`EventQueue`]: time, then scheduling order): its entries are small `Copy` pairs (time,
//!   slot), whatever the payload, a push appends to a bucket and an event moves at most once
//!   per bit of its delay (a binary heap's sifting was a quarter of an Al-Zoubi run);
//! - the slot indexes a slab (a `Vec` with a free list) holding the message (sender, size, send
//!   time, payload) or the timer (owner, tag). Delivery moves the payload out and frees the
//!   slot, which the next send reuses;
//! - actors are one type `A` (a model's enum of roles) in a `Vec` indexed by [`ActorId`], so a
//!   handler call is a static dispatch, not a `Box<dyn>` call;
//! - the payload is a type parameter, so a model's messages are plain enums, never boxed.
//!
//! A cancelled timer stays in the heap and is skipped when it surfaces (lazy deletion: cheaper
//! than removing from the middle of a heap, and its slot is freed then).
//!
//! # Errors
//!
//! A send can fail: the destination is not an actor of this simulation, or the delay model
//! refuses the message (a network may refuse a zero-byte message or an address it does not
//! know). That is a typed [`SendError`] the handler can `?` into its own error type, which stops
//! the run and is returned by [`Simulation::run`]; the engine itself never panics on what a
//! model sends.

use std::convert::Infallible;
use std::fmt;

#[cfg(doc)]
use crate::events::EventQueue;
use crate::radix::RadixQueue;

/// Simulated time in milliseconds.
pub type Millis = u64;

/// An actor of a [`Simulation`]: its index in the order actors were added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActorId(pub u32);

impl ActorId {
    /// The actor's position in [`Simulation::actors`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ActorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "actor {}", self.0)
    }
}

/// How long a message takes from one actor to another. The engine asks once per message, at
/// send time, and delivers at `now + delay`: a message's delay depends on the message only, as
/// in a network without contention. A model whose actors live on network nodes maps actor ids
/// to nodes here.
pub trait DelayModel {
    /// Why a message cannot be sent (an unknown node, an empty message, ...).
    type Error;

    /// The delay of a message of `bytes` bytes from `src` to `dst`.
    fn delay(&mut self, src: ActorId, dst: ActorId, bytes: u64) -> Result<Millis, Self::Error>;
}

/// The same delay for every message; for tests and for models without a network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConstantDelay(pub Millis);

impl DelayModel for ConstantDelay {
    type Error = Infallible;

    fn delay(&mut self, _: ActorId, _: ActorId, _: u64) -> Result<Millis, Infallible> {
        Ok(self.0)
    }
}

/// A message as its receiver gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope<P> {
    /// The sender.
    pub src: ActorId,
    /// The size the delay was computed for.
    pub bytes: u64,
    /// When it was sent (it is delivered at `sent_at + delay`).
    pub sent_at: Millis,
    pub payload: P,
}

/// A timer that can still be cancelled (see [`Context::cancel_timer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId {
    slot: u32,
    serial: u64,
}

/// The destination (or, for [`Simulation::set_timer`], the owner) is not an actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} does not exist")]
pub struct UnknownActor(pub ActorId);

/// Why [`Context::send`] refused a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError<E> {
    #[error(transparent)]
    UnknownActor(#[from] UnknownActor),
    /// The delay model's refusal.
    #[error("cannot send: {0}")]
    Delay(E),
}

/// What a model's nodes do. `A` handles every event addressed to it; it may send messages, set
/// or cancel its own timers and stop the run through the [`Context`].
pub trait Actor<N: DelayModel> {
    /// The messages actors exchange.
    type Payload;
    /// A handler's failure; it ends the run and is returned by [`Simulation::run`].
    type Error: From<SendError<N::Error>>;

    /// A message has arrived.
    fn on_message(
        &mut self,
        ctx: &mut Context<'_, Self::Payload, N>,
        msg: Envelope<Self::Payload>,
    ) -> Result<(), Self::Error>;

    /// A timer this actor set has expired; `tag` is the value given to
    /// [`Context::set_timer`].
    fn on_timer(
        &mut self,
        ctx: &mut Context<'_, Self::Payload, N>,
        tag: u64,
    ) -> Result<(), Self::Error>;
}

/// Events handled so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Messages delivered.
    pub messages: u64,
    /// Timers fired.
    pub timers: u64,
    /// Cancelled timers skipped.
    pub cancelled: u64,
}

impl Counters {
    /// Events delivered to actors (messages and timers; skipped cancellations are not events).
    pub fn events(&self) -> u64 {
        self.messages + self.timers
    }
}

/// Why [`Simulation::run`] or [`Simulation::run_until`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// No event is pending.
    Empty,
    /// An actor called [`Context::stop`].
    Stopped,
    /// Every event up to the horizon was delivered (the clock is at the horizon).
    Horizon,
}

/// A pending event in its slab slot.
enum Pending<P> {
    Message {
        dst: ActorId,
        envelope: Envelope<P>,
    },
    Timer {
        actor: ActorId,
        tag: u64,
        serial: u64,
    },
    Cancelled,
    Vacant,
}

/// Everything but the actors: what a handler may touch while its actor is borrowed.
struct Core<P, N> {
    now: Millis,
    queue: RadixQueue<u32>,
    slab: Vec<Pending<P>>,
    vacant: Vec<u32>,
    network: N,
    actors: u32,
    next_timer: u64,
    counters: Counters,
    stop: bool,
}

impl<P, N: DelayModel> Core<P, N> {
    fn park(&mut self, event: Pending<P>) -> u32 {
        match self.vacant.pop() {
            Some(slot) => {
                self.slab[slot as usize] = event;
                slot
            }
            None => {
                let slot =
                    u32::try_from(self.slab.len()).expect("fewer than 2^32 events pending at once");
                self.slab.push(event);
                slot
            }
        }
    }

    fn take(&mut self, slot: u32) -> Pending<P> {
        self.vacant.push(slot);
        std::mem::replace(&mut self.slab[slot as usize], Pending::Vacant)
    }

    fn check(&self, id: ActorId) -> Result<(), UnknownActor> {
        if id.0 < self.actors {
            Ok(())
        } else {
            Err(UnknownActor(id))
        }
    }

    fn send(
        &mut self,
        src: ActorId,
        dst: ActorId,
        bytes: u64,
        payload: P,
    ) -> Result<(), SendError<N::Error>> {
        self.check(dst)?;
        let delay = self
            .network
            .delay(src, dst, bytes)
            .map_err(SendError::Delay)?;
        let envelope = Envelope {
            src,
            bytes,
            sent_at: self.now,
            payload,
        };
        let slot = self.park(Pending::Message { dst, envelope });
        self.queue.push(self.now.saturating_add(delay), slot);
        Ok(())
    }

    fn set_timer(&mut self, actor: ActorId, delay: Millis, tag: u64) -> TimerId {
        let serial = self.next_timer;
        self.next_timer += 1;
        let slot = self.park(Pending::Timer { actor, tag, serial });
        self.queue.push(self.now.saturating_add(delay), slot);
        TimerId { slot, serial }
    }

    fn cancel_timer(&mut self, id: TimerId, owner: Option<ActorId>) -> bool {
        let Some(p) = self.slab.get_mut(id.slot as usize) else {
            return false;
        };
        match *p {
            Pending::Timer { actor, serial, .. }
                if serial == id.serial && owner.is_none_or(|o| o == actor) =>
            {
                *p = Pending::Cancelled;
                true
            }
            _ => false,
        }
    }
}

/// What a handler can do: read the clock, send, set and cancel its timers, stop the run.
pub struct Context<'a, P, N> {
    core: &'a mut Core<P, N>,
    me: ActorId,
}

impl<P, N: DelayModel> Context<'_, P, N> {
    /// The current time (the time of the event being handled).
    pub fn now(&self) -> Millis {
        self.core.now
    }

    /// The actor being called.
    pub fn me(&self) -> ActorId {
        self.me
    }

    /// Sends `payload` to `dst` as a message of `bytes` bytes; it arrives after the delay the
    /// network gives for that size and pair (possibly 0 ms: it is then delivered after every
    /// event already scheduled for now).
    pub fn send(
        &mut self,
        dst: ActorId,
        bytes: u64,
        payload: P,
    ) -> Result<(), SendError<N::Error>> {
        self.core.send(self.me, dst, bytes, payload)
    }

    /// Calls this actor's [`Actor::on_timer`] with `tag` after `delay` ms. Timers do not cross
    /// the network (the thesis's timer bypasses the cables).
    pub fn set_timer(&mut self, delay: Millis, tag: u64) -> TimerId {
        self.core.set_timer(self.me, delay, tag)
    }

    /// Cancels one of this actor's timers; `false` if it already fired, was cancelled, or
    /// belongs to another actor.
    pub fn cancel_timer(&mut self, id: TimerId) -> bool {
        self.core.cancel_timer(id, Some(self.me))
    }

    /// The delay model, e.g. to estimate a transfer before deciding.
    pub fn network(&self) -> &N {
        &self.core.network
    }

    /// Ends [`Simulation::run`] after this handler returns (pending events stay queued).
    pub fn stop(&mut self) {
        self.core.stop = true;
    }
}

impl<P, N> fmt::Debug for Context<'_, P, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("me", &self.me)
            .field("now", &self.core.now)
            .finish_non_exhaustive()
    }
}

/// A run: the actors, the clock, the pending events and the network.
///
/// ```
/// use std::convert::Infallible;
/// use gridsched_sim::{Actor, ConstantDelay, Context, Envelope, SendError, Simulation};
///
/// /// Returns the ball until its count runs out.
/// struct Player {
///     hits: u32,
/// }
///
/// impl Actor<ConstantDelay> for Player {
///     type Payload = u32;
///     type Error = SendError<Infallible>;
///
///     fn on_message(
///         &mut self,
///         ctx: &mut Context<'_, u32, ConstantDelay>,
///         ball: Envelope<u32>,
///     ) -> Result<(), Self::Error> {
///         self.hits += 1;
///         if ball.payload > 0 {
///             ctx.send(ball.src, 64, ball.payload - 1)?;
///         }
///         Ok(())
///     }
///
///     fn on_timer(&mut self, _: &mut Context<'_, u32, ConstantDelay>, _: u64) -> Result<(), Self::Error> {
///         Ok(())
///     }
/// }
///
/// let mut sim = Simulation::new(ConstantDelay(5));
/// let a = sim.add_actor(Player { hits: 0 });
/// let b = sim.add_actor(Player { hits: 0 });
/// sim.send(a, b, 64, 3).unwrap(); // b, a, b, a: four deliveries 5 ms apart
/// sim.run().unwrap();
/// assert_eq!(sim.now(), 20);
/// assert_eq!((sim.actors()[0].hits, sim.actors()[1].hits), (2, 2));
/// ```
pub struct Simulation<A: Actor<N>, N: DelayModel> {
    actors: Vec<A>,
    core: Core<A::Payload, N>,
}

impl<A: Actor<N>, N: DelayModel> fmt::Debug for Simulation<A, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("now", &self.core.now)
            .field("actors", &self.actors.len())
            .field("pending", &self.core.queue.len())
            .field("counters", &self.core.counters)
            .finish_non_exhaustive()
    }
}

impl<A: Actor<N>, N: DelayModel> Simulation<A, N> {
    /// An empty simulation at time 0 over `network`.
    pub fn new(network: N) -> Self {
        Simulation {
            actors: Vec::new(),
            core: Core {
                now: 0,
                queue: RadixQueue::new(),
                slab: Vec::new(),
                vacant: Vec::new(),
                network,
                actors: 0,
                next_timer: 0,
                counters: Counters::default(),
                stop: false,
            },
        }
    }

    /// Adds an actor; ids are given in order from 0.
    pub fn add_actor(&mut self, actor: A) -> ActorId {
        let id = ActorId(u32::try_from(self.actors.len()).expect("fewer than 2^32 actors"));
        self.actors.push(actor);
        self.core.actors = id.0 + 1;
        id
    }

    /// Every actor, indexed by [`ActorId::index`].
    pub fn actors(&self) -> &[A] {
        &self.actors
    }

    /// One actor.
    pub fn actor(&self, id: ActorId) -> Option<&A> {
        self.actors.get(id.index())
    }

    /// One actor, mutably (between events).
    pub fn actor_mut(&mut self, id: ActorId) -> Option<&mut A> {
        self.actors.get_mut(id.index())
    }

    /// The delay model.
    pub fn network(&self) -> &N {
        &self.core.network
    }

    /// The current time: of the last event delivered, or the horizon of the last
    /// [`run_until`](Self::run_until).
    pub fn now(&self) -> Millis {
        self.core.now
    }

    /// Events handled so far.
    pub fn counters(&self) -> Counters {
        self.core.counters
    }

    /// Events queued (cancelled timers not yet skipped included).
    pub fn pending(&self) -> usize {
        self.core.queue.len()
    }

    /// Sends a message now on behalf of `src` (initial messages, or a stimulus from outside).
    pub fn send(
        &mut self,
        src: ActorId,
        dst: ActorId,
        bytes: u64,
        payload: A::Payload,
    ) -> Result<(), SendError<N::Error>> {
        self.core.check(src)?;
        self.core.send(src, dst, bytes, payload)
    }

    /// Sets a timer of `actor`, `delay` ms from now (e.g. its first action).
    pub fn set_timer(
        &mut self,
        actor: ActorId,
        delay: Millis,
        tag: u64,
    ) -> Result<TimerId, UnknownActor> {
        self.core.check(actor)?;
        Ok(self.core.set_timer(actor, delay, tag))
    }

    /// Cancels any actor's pending timer; `false` if it already fired or was cancelled.
    pub fn cancel_timer(&mut self, id: TimerId) -> bool {
        self.core.cancel_timer(id, None)
    }

    /// Delivers the next event, if one is pending; returns its time.
    pub fn step(&mut self) -> Result<Option<Millis>, A::Error> {
        self.next(Millis::MAX)
    }

    /// Delivers events until none is pending or an actor stops the run.
    pub fn run(&mut self) -> Result<Halt, A::Error> {
        self.core.stop = false;
        while self.next(Millis::MAX)?.is_some() {
            if self.core.stop {
                self.core.stop = false;
                return Ok(Halt::Stopped);
            }
        }
        Ok(Halt::Empty)
    }

    /// Delivers every event at or before `horizon` (unless an actor stops the run first), then
    /// moves the clock to `horizon`, so timers set afterwards count from there.
    pub fn run_until(&mut self, horizon: Millis) -> Result<Halt, A::Error> {
        self.core.stop = false;
        while self.next(horizon)?.is_some() {
            if self.core.stop {
                self.core.stop = false;
                return Ok(Halt::Stopped);
            }
        }
        self.core.now = self.core.now.max(horizon);
        Ok(if self.core.queue.is_empty() {
            Halt::Empty
        } else {
            Halt::Horizon
        })
    }

    /// Delivers the next event at or before `limit`, skipping cancelled timers.
    fn next(&mut self, limit: Millis) -> Result<Option<Millis>, A::Error> {
        crate::cancel::checkpoint();
        while let Some((time, slot)) = self.core.queue.pop_at_most(limit) {
            match self.core.take(slot) {
                Pending::Message { dst, envelope } => {
                    self.core.now = time;
                    self.core.counters.messages += 1;
                    let mut ctx = Context {
                        core: &mut self.core,
                        me: dst,
                    };
                    self.actors[dst.index()].on_message(&mut ctx, envelope)?;
                    return Ok(Some(time));
                }
                Pending::Timer { actor, tag, .. } => {
                    self.core.now = time;
                    self.core.counters.timers += 1;
                    let mut ctx = Context {
                        core: &mut self.core,
                        me: actor,
                    };
                    self.actors[actor.index()].on_timer(&mut ctx, tag)?;
                    return Ok(Some(time));
                }
                Pending::Cancelled => self.core.counters.cancelled += 1,
                // Every queued slot holds its event until popped; nothing to deliver.
                Pending::Vacant => debug_assert!(false, "queued slot {slot} is vacant"),
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every event it receives as (time, me, what); forwards `Fwd(n)` to `next` with
    /// `n - 1` until 0.
    #[derive(Debug, Default)]
    struct Recorder {
        next: Option<ActorId>,
        log: Vec<(Millis, u64)>,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Msg {
        Note(u64),
        Fwd(u64),
    }

    impl<N: DelayModel> Actor<N> for Recorder {
        type Payload = Msg;
        type Error = SendError<N::Error>;

        fn on_message(
            &mut self,
            ctx: &mut Context<'_, Msg, N>,
            msg: Envelope<Msg>,
        ) -> Result<(), Self::Error> {
            match msg.payload {
                Msg::Note(x) => self.log.push((ctx.now(), x)),
                Msg::Fwd(n) => {
                    self.log.push((ctx.now(), 1000 + n));
                    if let (Some(next), true) = (self.next, n > 0) {
                        ctx.send(next, 1, Msg::Fwd(n - 1))?;
                    }
                }
            }
            Ok(())
        }

        fn on_timer(&mut self, ctx: &mut Context<'_, Msg, N>, tag: u64) -> Result<(), Self::Error> {
            self.log.push((ctx.now(), 2000 + tag));
            Ok(())
        }
    }

    /// Delay = bytes ms (so a test picks each message's delay), refusing 0 bytes.
    #[derive(Debug)]
    struct BytesAreMillis;

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Empty;

    impl DelayModel for BytesAreMillis {
        type Error = Empty;
        fn delay(&mut self, _: ActorId, _: ActorId, bytes: u64) -> Result<Millis, Empty> {
            if bytes == 0 { Err(Empty) } else { Ok(bytes) }
        }
    }

    #[test]
    fn delivers_in_time_order() {
        let mut sim = Simulation::new(BytesAreMillis);
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        for (bytes, x) in [(30, 3), (10, 1), (20, 2)] {
            sim.send(a, b, bytes, Msg::Note(x)).unwrap();
        }
        assert_eq!(sim.run().unwrap(), Halt::Empty);
        assert_eq!(sim.actor(b).unwrap().log, [(10, 1), (20, 2), (30, 3)]);
        assert_eq!(sim.now(), 30);
        assert_eq!(sim.counters().messages, 3);
    }

    #[test]
    fn ties_go_in_send_order() {
        let mut sim = Simulation::new(ConstantDelay(5));
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        // Interleave timers and messages due at the same time: scheduling order decides.
        sim.send(a, b, 100, Msg::Note(1)).unwrap();
        sim.set_timer(b, 5, 7).unwrap();
        sim.send(b, b, 100, Msg::Note(2)).unwrap();
        sim.send(a, b, 100, Msg::Note(3)).unwrap();
        sim.run().unwrap();
        assert_eq!(
            sim.actor(b).unwrap().log,
            [(5, 1), (5, 2007), (5, 2), (5, 3)]
        );
    }

    #[test]
    fn zero_delay_messages_queue_behind_events_already_due() {
        let mut sim = Simulation::new(ConstantDelay(0));
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        let c = sim.add_actor(Recorder::default());
        sim.actor_mut(a).unwrap().next = Some(b);
        sim.actor_mut(b).unwrap().next = Some(a);
        // a's forward (sent while handling at t = 0) arrives after c's note, queued first.
        sim.send(c, a, 1, Msg::Fwd(2)).unwrap();
        sim.send(c, b, 1, Msg::Note(9)).unwrap();
        sim.run().unwrap();
        assert_eq!(sim.actor(a).unwrap().log, [(0, 1002), (0, 1000)]);
        assert_eq!(sim.actor(b).unwrap().log, [(0, 9), (0, 1001)]);
    }

    #[test]
    fn timers_fire_after_their_delay_and_can_be_cancelled() {
        let mut sim = Simulation::new(ConstantDelay(1));
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        let keep = sim.set_timer(a, 40, 1).unwrap();
        let drop = sim.set_timer(a, 20, 2).unwrap();
        sim.set_timer(b, 30, 3).unwrap();
        assert!(sim.cancel_timer(drop));
        assert!(!sim.cancel_timer(drop), "a timer is cancelled once");
        assert_eq!(sim.run_until(35).unwrap(), Halt::Horizon);
        assert_eq!(sim.now(), 35);
        assert_eq!(sim.actor(b).unwrap().log, [(30, 2003)]);
        assert!(sim.actor(a).unwrap().log.is_empty());
        // Timers count from the horizon once the clock is there.
        sim.set_timer(b, 1, 4).unwrap();
        assert_eq!(sim.run().unwrap(), Halt::Empty);
        assert_eq!(sim.actor(a).unwrap().log, [(40, 2001)]);
        assert_eq!(sim.actor(b).unwrap().log, [(30, 2003), (36, 2004)]);
        assert!(!sim.cancel_timer(keep), "a fired timer cannot be cancelled");
        assert_eq!(
            sim.counters(),
            Counters {
                messages: 0,
                timers: 3,
                cancelled: 1
            }
        );
    }

    /// An actor that cancels a timer it does not own and stops the run.
    #[derive(Debug)]
    struct Meddler {
        victim: Option<TimerId>,
        refused: bool,
    }

    impl Actor<ConstantDelay> for Meddler {
        type Payload = ();
        type Error = SendError<Infallible>;
        fn on_message(
            &mut self,
            _: &mut Context<'_, (), ConstantDelay>,
            _: Envelope<()>,
        ) -> Result<(), Self::Error> {
            Ok(())
        }
        fn on_timer(
            &mut self,
            ctx: &mut Context<'_, (), ConstantDelay>,
            _: u64,
        ) -> Result<(), Self::Error> {
            if let Some(v) = self.victim {
                self.refused = !ctx.cancel_timer(v);
                ctx.stop();
            }
            Ok(())
        }
    }

    #[test]
    fn actors_cancel_only_their_own_timers_and_stop_the_run() {
        let mut sim = Simulation::new(ConstantDelay(0));
        let a = sim.add_actor(Meddler {
            victim: None,
            refused: false,
        });
        let b = sim.add_actor(Meddler {
            victim: None,
            refused: false,
        });
        let victim = sim.set_timer(a, 10, 0).unwrap();
        sim.actor_mut(b).unwrap().victim = Some(victim);
        sim.set_timer(b, 5, 0).unwrap();
        assert_eq!(sim.run().unwrap(), Halt::Stopped);
        assert!(sim.actor(b).unwrap().refused);
        assert_eq!(sim.now(), 5);
        assert_eq!(sim.pending(), 1);
        assert_eq!(sim.run().unwrap(), Halt::Empty);
        assert_eq!(sim.counters().timers, 2);
    }

    #[test]
    fn bad_sends_are_typed_errors() {
        let mut sim = Simulation::new(BytesAreMillis);
        let a = sim.add_actor(Recorder::default());
        assert_eq!(
            sim.send(a, ActorId(7), 1, Msg::Note(0)),
            Err(SendError::UnknownActor(UnknownActor(ActorId(7))))
        );
        assert_eq!(
            sim.send(ActorId(3), a, 1, Msg::Note(0)),
            Err(SendError::UnknownActor(UnknownActor(ActorId(3))))
        );
        assert_eq!(
            sim.send(a, a, 0, Msg::Note(0)),
            Err(SendError::Delay(Empty))
        );
        assert_eq!(
            sim.set_timer(ActorId(1), 1, 0),
            Err(UnknownActor(ActorId(1)))
        );
        assert_eq!(sim.pending(), 0);
    }

    #[test]
    fn a_handler_error_ends_the_run() {
        let mut sim = Simulation::new(BytesAreMillis);
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        sim.actor_mut(a).unwrap().next = Some(ActorId(9));
        sim.send(b, a, 4, Msg::Fwd(1)).unwrap();
        sim.send(b, b, 8, Msg::Note(0)).unwrap();
        assert_eq!(
            sim.run(),
            Err(SendError::UnknownActor(UnknownActor(ActorId(9))))
        );
        assert_eq!(sim.now(), 4);
        assert_eq!(
            sim.run(),
            Ok(Halt::Empty),
            "the rest of the run can continue"
        );
        assert_eq!(sim.actor(b).unwrap().log, [(8, 0)]);
    }

    #[test]
    fn slots_are_reused_so_a_steady_run_does_not_grow() {
        let mut sim = Simulation::new(ConstantDelay(3));
        let a = sim.add_actor(Recorder::default());
        let b = sim.add_actor(Recorder::default());
        sim.actor_mut(a).unwrap().next = Some(b);
        sim.actor_mut(b).unwrap().next = Some(a);
        sim.send(a, b, 1, Msg::Fwd(10_000)).unwrap();
        sim.send(b, a, 1, Msg::Fwd(10_000)).unwrap();
        sim.run().unwrap();
        assert_eq!(sim.counters().messages, 20_002);
        assert!(
            sim.core.slab.len() <= 2,
            "slab grew to {}",
            sim.core.slab.len()
        );
    }
}
