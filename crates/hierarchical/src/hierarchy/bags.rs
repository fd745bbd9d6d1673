//! Generic self-discovery state (spec §3.2), for any matching rule: an LGS's bag as the
//! thesis's byte array with holes ([`SlotBag`], L1036–1050) and a scheduler's logical
//! channels, branches grouped by identical bags ([`ChannelTable`], L945–1010).
//!
//! The actors use the OS-keyed fast path (under OS-only matching two bags are equal exactly
//! when the servers share an OS, spec §7 item 4); these structures are the general rule, kept
//! to state and test the thesis's worked examples (Fig. 16, the holes example).

use std::collections::BTreeSet;

/// One slot of a [`SlotBag`]: a saved request and whether it matched, or a hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Request { job: u32, matched: bool },
    Hole,
}

/// An LGS's saved requests in arrival order, one slot each: a finished job leaves a hole,
/// leading holes slide out, trailing holes are reused by the next appended requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlotBag {
    slots: Vec<Slot>,
}

impl SlotBag {
    /// Appends the requests of a discovery round (`matched` says whether each matches).
    pub fn append(&mut self, jobs: impl IntoIterator<Item = (u32, bool)>) {
        while self.slots.last() == Some(&Slot::Hole) {
            self.slots.pop();
        }
        self.slots.extend(
            jobs.into_iter()
                .map(|(job, matched)| Slot::Request { job, matched }),
        );
    }

    /// A HOLES notice: the job left the system. Leading holes slide out.
    pub fn punch(&mut self, job: u32) {
        if let Some(s) = self
            .slots
            .iter_mut()
            .find(|s| matches!(s, Slot::Request { job: j, .. } if *j == job))
        {
            *s = Slot::Hole;
        }
        let lead = self.slots.iter().take_while(|s| **s == Slot::Hole).count();
        self.slots.drain(..lead);
    }

    /// The slots, first to last (trailing holes included until reused).
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The matched jobs: the bag proper, as a set.
    pub fn matched(&self) -> BTreeSet<u32> {
        self.slots
            .iter()
            .filter_map(|s| match *s {
                Slot::Request { job, matched: true } => Some(job),
                _ => None,
            })
            .collect()
    }
}

/// A branch: a child and the child's channel port.
pub type Branch = (usize, usize);

/// A logical channel: the branches with one bag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub port: usize,
    pub bag: BTreeSet<u32>,
    pub branches: Vec<(Branch, u64)>,
}

impl Channel {
    /// Total processing power of its branches.
    pub fn power(&self) -> u64 {
        self.branches.iter().map(|b| b.1).sum()
    }
}

/// What a BAG did to a scheduler's channels, i.e. what it tells its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BagOutcome {
    /// Joined an existing channel: CHANNEL_UPDATE(port, power) up.
    Joined { port: usize },
    /// Made a new channel: BAG(port, bag, power) up.
    Created { port: usize },
}

/// A scheduler's logical channels.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelTable {
    channels: Vec<Channel>,
}

impl ChannelTable {
    /// A BAG from `branch` with `power` CPUs. A branch that reports again leaves its old
    /// channel first (a broken channel with no branch left is deleted).
    pub fn on_bag(&mut self, branch: Branch, bag: BTreeSet<u32>, power: u64) -> BagOutcome {
        for c in &mut self.channels {
            c.branches.retain(|(b, _)| *b != branch);
        }
        self.channels.retain(|c| !c.branches.is_empty());
        if let Some(c) = self.channels.iter_mut().find(|c| c.bag == bag) {
            c.branches.push((branch, power));
            return BagOutcome::Joined { port: c.port };
        }
        let port = self.channels.iter().map(|c| c.port + 1).max().unwrap_or(0);
        self.channels.push(Channel {
            port,
            bag,
            branches: vec![(branch, power)],
        });
        BagOutcome::Created { port }
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// `ΣC_pwr`: the scheduler's total power.
    pub fn total_power(&self) -> u64 {
        self.channels.iter().map(Channel::power).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[u32]) -> BTreeSet<u32> {
        ids.iter().copied().collect()
    }

    /// alzoubi-unit-examples (a), Fig. 16: GS7–GS9 match J1–J6, GS10 only J1–J3.
    #[test]
    fn fig_16_two_channels() {
        let mut gs3 = ChannelTable::default(); // children GS7, GS8
        let mut gs4 = ChannelTable::default(); // children GS9, GS10
        let all = set(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(
            gs3.on_bag((0, 0), all.clone(), 1),
            BagOutcome::Created { port: 0 }
        );
        assert_eq!(
            gs3.on_bag((1, 0), all.clone(), 1),
            BagOutcome::Joined { port: 0 }
        );
        assert_eq!(
            gs4.on_bag((0, 0), all.clone(), 1),
            BagOutcome::Created { port: 0 }
        );
        assert_eq!(
            gs4.on_bag((1, 0), set(&[1, 2, 3]), 1),
            BagOutcome::Created { port: 1 }
        );
        let mut gs1 = ChannelTable::default();
        for (child, t) in [(0, &gs3), (1, &gs4)] {
            for c in t.channels() {
                gs1.on_bag((child, c.port), c.bag.clone(), c.power());
            }
        }
        assert_eq!(gs1.channels().len(), 2);
        assert_eq!(gs1.channels()[0].power(), 3); // GS7, GS8, GS9
        assert_eq!(gs1.channels()[1].bag, set(&[1, 2, 3])); // GS10
        // J4–J6 can use one channel, J1–J3 both.
        let usable = |j| gs1.channels().iter().filter(|c| c.bag.contains(&j)).count();
        assert_eq!([1, 3, 4, 6].map(usable), [2, 2, 1, 1]);
        // Broken-channel repair: GS10's bag becomes all six; it rebinds and the old
        // channel, with no branch left, is deleted.
        assert_eq!(gs4.on_bag((1, 0), all, 1), BagOutcome::Joined { port: 0 });
        assert_eq!(gs4.channels().len(), 1);
    }

    /// alzoubi-unit-examples (d): holes and sliding in GS10's bag.
    #[test]
    fn bag_holes_slide_and_grow() {
        let mut bag = SlotBag::default();
        bag.append((1..=6).map(|j| (j, j <= 3)));
        assert_eq!(bag.matched(), set(&[1, 2, 3]));
        for j in [1, 2, 5] {
            bag.punch(j);
        }
        let r = |job, matched| Slot::Request { job, matched };
        assert_eq!(
            bag.slots(),
            [r(3, true), r(4, false), Slot::Hole, r(6, false)]
        );
        bag.append([(7, true), (8, true), (9, true)]);
        assert_eq!(
            bag.slots(),
            [
                r(3, true),
                r(4, false),
                Slot::Hole,
                r(6, false),
                r(7, true),
                r(8, true),
                r(9, true)
            ]
        );
        assert_eq!(bag.matched(), set(&[3, 7, 8, 9]));
    }
}
