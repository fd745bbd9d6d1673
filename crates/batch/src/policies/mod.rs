//! The built-in policies, each a [`Dispatcher`] that drives the engine only through the
//! public [`Round`] API — the same door a policy of yours uses, so anything they do you can
//! do, reuse or wrap (a dispatcher of yours can own an [`Easy`] and call its
//! [`round`](Dispatcher::round) before or after its own decisions).
//!
//! [`Policy::Fcfs`], [`Policy::Easy`], [`Policy::Flexible`] and [`Policy::Conservative`]
//! select these with the configuration's switches ([`Builtin::for_config`]); handed to
//! [`Simulator::run_with`](crate::Simulator::run_with) under [`Policy::External`] they give
//! the same schedules job for job (`tests/it/external.rs`).
//!
//! - [`Fcfs`]: the queue head starts when it fits; nothing overtakes it.
//! - [`Easy`]: EASY backfilling, and Flexible backfilling ([`Easy::flexible`]), EASY over a
//!   queue re-sorted by priority at every round.
//! - [`Conservative`]: every waiting job holds a [reservation](Round::reserve), compressed
//!   when jobs end early.

mod conservative;
mod queue;

pub use conservative::Conservative;
pub use queue::{Easy, Fcfs};

use crate::SimError;
use crate::config::{Config, Policy};
use crate::sim::{Counters, Dispatcher, Round};

/// One of the built-in policies, as the configuration selects it: what the simulator runs
/// under [`Policy::Fcfs`], [`Policy::Easy`], [`Policy::Flexible`] and
/// [`Policy::Conservative`]. An enum rather than a `Box<dyn Dispatcher>` so that the
/// simulator stays `Clone` (provisioning explores copies of a site's schedule).
#[derive(Debug, Clone)]
pub enum Builtin {
    Fcfs(Fcfs),
    Easy(Easy),
    Conservative(Conservative),
}

impl Builtin {
    /// The dispatcher `config.policy` names, set up from the configuration's switches
    /// (Flexible's weights, conservative compression); `None` for [`Policy::External`].
    pub fn for_config(config: &Config) -> Option<Builtin> {
        Some(match config.policy {
            Policy::Fcfs => Builtin::Fcfs(Fcfs::new()),
            Policy::Easy => Builtin::Easy(Easy::new()),
            Policy::Flexible => Builtin::Easy(Easy::flexible(config.flex)),
            Policy::Conservative => Builtin::Conservative(Conservative::new(config.compression)),
            Policy::External => return None,
        })
    }

    /// The policy's own work counts (the engine's are in
    /// [`Simulator::counters`](crate::Simulator::counters)).
    pub fn counters(&self) -> Counters {
        match self {
            Builtin::Fcfs(_) => Counters::default(),
            Builtin::Easy(e) => e.counters(),
            Builtin::Conservative(c) => c.counters(),
        }
    }

    /// The jobs the policy keeps queued, in its order; it may still list jobs started since
    /// it last tidied up (check [`Round::is_waiting`] or the job's phase).
    pub fn queue(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Builtin::Fcfs(f) => Box::new(f.queue()),
            Builtin::Easy(e) => Box::new(e.queue()),
            Builtin::Conservative(c) => Box::new(c.queue()),
        }
    }
}

impl Dispatcher for Builtin {
    fn round(&mut self, r: &mut Round<'_>) -> Result<(), SimError> {
        match self {
            Builtin::Fcfs(f) => f.round(r),
            Builtin::Easy(e) => e.round(r),
            Builtin::Conservative(c) => c.round(r),
        }
    }
}
