//! A future-event list with deterministic tie-breaking.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A time-ordered event queue. Events with equal time pop in the order they were pushed (FIFO),
/// so a simulation never depends on the heap's internal layout.
#[derive(Debug, Clone)]
pub struct EventQueue<T, E> {
    heap: BinaryHeap<Entry<T, E>>,
    next_seq: u64,
}

#[derive(Debug, Clone)]
struct Entry<T, E> {
    time: T,
    seq: u64,
    event: E,
}

impl<T: PartialOrd, E> PartialEq for Entry<T, E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T: PartialOrd, E> Eq for Entry<T, E> {}
impl<T: PartialOrd, E> PartialOrd for Entry<T, E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: PartialOrd, E> Ord for Entry<T, E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (time, seq) is on top.
        // Times are never NaN (checked on push), so partial_cmp is total here.
        other
            .time
            .partial_cmp(&self.time)
            .unwrap_or(Ordering::Equal)
            .then(other.seq.cmp(&self.seq))
    }
}

impl<T: PartialOrd + Copy, E> Default for EventQueue<T, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: PartialOrd + Copy, E> EventQueue<T, E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }

    /// Schedules `event` at `time`. Panics on an unordered time (NaN): that is a model bug.
    pub fn push(&mut self, time: T, event: E) {
        assert!(
            time.partial_cmp(&time).is_some(),
            "event time must be ordered (not NaN)"
        );
        self.heap.push(Entry {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(T, E)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<T> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.push(2.0, "c");
        q.push(1.0, "a");
        q.push(2.0, "d");
        q.push(1.0, "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
    }

    #[test]
    fn integer_times() {
        let mut q = EventQueue::new();
        for (t, e) in [(5u64, 0), (3, 1), (5, 2), (0, 3)] {
            q.push(t, e);
        }
        assert_eq!(q.peek_time(), Some(0));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
        assert_eq!(order, [3, 1, 0, 2]);
    }
}
