//! [`RadixQueue`]: the actor engine's future-event list, a monotone radix heap with FIFO ties.
//!
//! A discrete-event simulation never schedules an event before the present, and the present
//! is the time of the last event delivered, so the list only needs keys at or after the last
//! one taken. A radix heap exploits that: bucket 0 holds the events at exactly `last`, bucket
//! `b ≥ 1` those whose key first differs from `last` at bit `b - 1`, so every key in a lower
//! bucket is smaller than every key in a higher one. A push appends to its bucket (`O(1)`, no
//! sifting); taking from an empty bucket 0 finds the first non-empty bucket, moves `last` to
//! its smallest key and redistributes it into lower buckets, so an event moves at most once
//! per bit of its delay. Against the binary heap of [`EventQueue`](crate::EventQueue) this is
//! what an Al-Zoubi run of 10⁶–10⁷ events, mostly zero- and few-millisecond deliveries of a
//! HOLES broadcast, spent a quarter of its time sifting (issue 32).
//!
//! Ties go in push order, as in [`EventQueue`](crate::EventQueue): every bucket holds its
//! events in push order, because a redistribution empties a bucket into lower buckets that are
//! all empty (it is the first non-empty one), in order, and later pushes append behind
//! everything already there. Bucket 0 is read from the front.

/// A future-event list of `(time, value)` with monotone times; see the module documentation.
#[derive(Debug, Clone)]
pub struct RadixQueue<V> {
    /// The key of bucket 0: no pending key is smaller.
    last: u64,
    buckets: [Vec<(u64, V)>; 65],
    /// The first unread entry of bucket 0.
    head: usize,
    len: usize,
}

impl<V: Copy> Default for RadixQueue<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Copy> RadixQueue<V> {
    /// An empty queue whose present is time 0.
    pub fn new() -> Self {
        RadixQueue {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn bucket(&self, time: u64) -> usize {
        (64 - (time ^ self.last).leading_zeros()) as usize
    }

    /// Schedules `value` at `time`, which must not be before the last time taken (nor before
    /// a time [`pop_at_most`](Self::pop_at_most) looked at and left).
    #[inline]
    pub fn push(&mut self, time: u64, value: V) {
        assert!(
            time >= self.last,
            "an event at {time} is before the queue's present {}",
            self.last
        );
        let b = self.bucket(time);
        self.buckets[b].push((time, value));
        self.len += 1;
    }

    /// Removes and returns the earliest event if its time is at most `limit` (ties in push
    /// order); `None`, and the queue unchanged, otherwise.
    pub fn pop_at_most(&mut self, limit: u64) -> Option<(u64, V)> {
        if self.head == self.buckets[0].len() {
            self.buckets[0].clear();
            self.head = 0;
            let b = (1..65).find(|&b| !self.buckets[b].is_empty())?;
            let min = self.buckets[b]
                .iter()
                .map(|e| e.0)
                .min()
                .expect("non-empty");
            if min > limit {
                return None;
            }
            self.last = min;
            let mut moved = std::mem::take(&mut self.buckets[b]);
            for &(t, v) in &moved {
                let to = self.bucket(t);
                debug_assert!(to < b);
                self.buckets[to].push((t, v));
            }
            // Keep the emptied bucket's allocation for its next use.
            moved.clear();
            self.buckets[b] = moved;
        } else if self.last > limit {
            return None;
        }
        let e = self.buckets[0][self.head];
        self.head += 1;
        self.len -= 1;
        Some(e)
    }

    /// Removes and returns the earliest event (ties in push order).
    pub fn pop(&mut self) -> Option<(u64, V)> {
        self.pop_at_most(u64::MAX)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::RadixQueue;
    use crate::EventQueue;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Against the binary-heap `EventQueue` (time, then push order): the same events come
        /// out in the same order, under any interleaving of pushes at or after the present
        /// (delays from 0 to a day, in ms, with many ties) and pops with or without a limit.
        #[test]
        fn pops_as_the_binary_heap_queue(
            ops in prop::collection::vec(
                prop_oneof![
                    3 => (0u64..4).prop_map(|d| (0u8, d)),
                    2 => (0u64..86_400_000).prop_map(|d| (0u8, d)),
                    2 => Just((1u8, 0)),
                    1 => (0u64..5_000).prop_map(|d| (2u8, d)),
                ],
                0..600,
            )
        ) {
            let (mut fast, mut oracle) = (RadixQueue::new(), EventQueue::new());
            let mut now = 0u64;
            for (i, (op, d)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        fast.push(now + d, i as u32);
                        oracle.push(now + d, i as u32);
                    }
                    1 => {
                        let got = fast.pop();
                        prop_assert_eq!(got, oracle.pop());
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                    _ => {
                        // A horizon: take what is due by now + d, then the clock moves there.
                        let limit = now + d;
                        loop {
                            let due = oracle.peek_time().is_some_and(|t| t <= limit);
                            let got = fast.pop_at_most(limit);
                            prop_assert_eq!(got.is_some(), due);
                            if !due {
                                break;
                            }
                            prop_assert_eq!(got, oracle.pop());
                        }
                        now = limit;
                    }
                }
                prop_assert_eq!(fast.len(), oracle.len());
            }
            while let Some(e) = oracle.pop() {
                prop_assert_eq!(fast.pop(), Some(e));
            }
            prop_assert!(fast.is_empty());
        }
    }
}
