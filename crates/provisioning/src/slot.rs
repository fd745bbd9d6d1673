//! The slot model of Singh (2008) §3.2 (spec §2.1): an advertised slot
//! `<s, n, d, c, f, b, e>` and what a user pays for a part of it (Table 1).

use gridsched_batch::Time;

/// Seconds in an hour: costs are in service units (SU), one processor for one hour.
pub const HOUR: Time = 3600;

/// A slot as a resource offers it (eq. 2): `procs` processors from `start` for `duration`
/// seconds, at `unit_cost` SU per processor-hour plus `fixed_cost` SU per slot taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offer {
    /// `s`, the start time.
    pub start: Time,
    /// `n`, processors.
    pub procs: u32,
    /// `d`, seconds (for an extensible slot, the advertised duration: to the horizon).
    pub duration: Time,
    /// `c`, SU per processor-hour (Ch. 3 slots: 1, the best-effort price).
    pub unit_cost: f64,
    /// `f`, SU per slot (Ch. 3: 0; Ch. 5: the externality price).
    pub fixed_cost: f64,
    /// `b`: the user may take part of the slot (fewer processors, a sub-interval).
    pub divisible: bool,
    /// `e`: the user may run past `s + d`.
    pub extensible: bool,
}

/// A user's request for (part of) an offer: `<s_k, n_k, d_k>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub start: Time,
    pub procs: u32,
    pub duration: Time,
}

/// Why Table 1 refuses a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("an indivisible slot must be taken whole: {0}")]
    Indivisible(&'static str),
    #[error("more processors ({asked}) than the slot offers ({offered})")]
    TooManyProcessors { asked: u32, offered: u32 },
    #[error("the request starts at {asked}, before the slot's start {offered}")]
    StartsEarly { asked: Time, offered: Time },
    #[error("the request ends at {asked}, after the non-extensible slot's end {offered}")]
    EndsLate { asked: Time, offered: Time },
    #[error("an empty request (no processors or no time)")]
    Empty,
}

impl Offer {
    /// The end of the advertised interval, `s + d`.
    pub fn end(&self) -> Time {
        self.start + self.duration
    }

    /// Table 1: the cost in SU of taking `r` from this offer, or why the offer does not allow
    /// it. `n·d·c + f` where `n` and `d` are the offer's when it is indivisible (an extensible
    /// indivisible slot may be lengthened: `d_k ≥ d`) and the request's when it is divisible.
    pub fn cost(&self, r: &Request) -> Result<f64, Refusal> {
        if r.procs == 0 || r.duration <= 0 {
            return Err(Refusal::Empty);
        }
        let charge = |procs: u32, secs: Time| {
            procs as f64 * secs as f64 / HOUR as f64 * self.unit_cost + self.fixed_cost
        };
        if !self.divisible {
            if r.procs != self.procs {
                return Err(Refusal::Indivisible("all of its processors"));
            }
            if r.start != self.start {
                return Err(Refusal::Indivisible("from its start"));
            }
            return if self.extensible {
                if r.duration < self.duration {
                    Err(Refusal::Indivisible("for at least its duration"))
                } else {
                    Ok(charge(self.procs, r.duration))
                }
            } else if r.duration != self.duration {
                Err(Refusal::Indivisible("for exactly its duration"))
            } else {
                Ok(charge(self.procs, self.duration))
            };
        }
        if r.procs > self.procs {
            return Err(Refusal::TooManyProcessors {
                asked: r.procs,
                offered: self.procs,
            });
        }
        if r.start < self.start {
            return Err(Refusal::StartsEarly {
                asked: r.start,
                offered: self.start,
            });
        }
        if !self.extensible && r.start + r.duration > self.end() {
            return Err(Refusal::EndsLate {
                asked: r.start + r.duration,
                offered: self.end(),
            });
        }
        Ok(charge(r.procs, r.duration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(divisible: bool, extensible: bool) -> Offer {
        Offer {
            start: 2 * HOUR,
            procs: 8,
            duration: 3 * HOUR,
            unit_cost: 2.0,
            fixed_cost: 5.0,
            divisible,
            extensible,
        }
    }

    fn req(start_h: i64, procs: u32, dur_h: i64) -> Request {
        Request {
            start: start_h * HOUR,
            procs,
            duration: dur_h * HOUR,
        }
    }

    /// singh-ex-table1: the four rows of Table 1, each with an allowed request and the
    /// restrictions that refuse one.
    #[test]
    fn table_1_four_cost_cases() {
        // b = false, e = false: exactly the slot; n_i·d_i·c_i + f_i = 8·3·2 + 5.
        let o = offer(false, false);
        assert_eq!(o.cost(&req(2, 8, 3)), Ok(53.0));
        assert!(matches!(
            o.cost(&req(2, 4, 3)),
            Err(Refusal::Indivisible(_))
        ));
        assert!(matches!(
            o.cost(&req(3, 8, 3)),
            Err(Refusal::Indivisible(_))
        ));
        assert!(matches!(
            o.cost(&req(2, 8, 4)),
            Err(Refusal::Indivisible(_))
        ));
        // b = false, e = true: all processors from the start, at least d_i; n_i·d_k·c_i + f_i.
        let o = offer(false, true);
        assert_eq!(o.cost(&req(2, 8, 3)), Ok(53.0));
        assert_eq!(o.cost(&req(2, 8, 5)), Ok(8.0 * 5.0 * 2.0 + 5.0));
        assert!(matches!(
            o.cost(&req(2, 8, 2)),
            Err(Refusal::Indivisible(_))
        ));
        assert!(matches!(
            o.cost(&req(2, 7, 5)),
            Err(Refusal::Indivisible(_))
        ));
        // b = true, e = false: any part inside; n_k·d_k·c_i + f_i.
        let o = offer(true, false);
        assert_eq!(o.cost(&req(3, 2, 2)), Ok(2.0 * 2.0 * 2.0 + 5.0));
        assert_eq!(
            o.cost(&req(3, 9, 1)),
            Err(Refusal::TooManyProcessors {
                asked: 9,
                offered: 8
            })
        );
        assert!(matches!(
            o.cost(&req(1, 2, 1)),
            Err(Refusal::StartsEarly { .. })
        ));
        assert!(matches!(
            o.cost(&req(4, 2, 2)),
            Err(Refusal::EndsLate { .. })
        ));
        // b = true, e = true: any part from the start on, any length; n_k·d_k·c_i + f_i.
        let o = offer(true, true);
        assert_eq!(o.cost(&req(4, 2, 10)), Ok(2.0 * 10.0 * 2.0 + 5.0));
        assert!(matches!(
            o.cost(&req(1, 2, 1)),
            Err(Refusal::StartsEarly { .. })
        ));
        assert_eq!(o.cost(&req(4, 0, 10)), Err(Refusal::Empty));
    }
}
