//! The event queue: a binary heap ordered by (time, insertion sequence), so ties are broken by
//! insertion order and a scenario plus a seed determines the run exactly.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an event. `id` is a port, flow or host index depending on the kind; `aux`
/// carries a timer version where one is needed (stale timers are ignored, never cancelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EvKind {
    /// An egress port finished serialising its current packet.
    TxDone,
    /// The head packet of a port's link arrives at the peer node.
    LinkArrive,
    FlowStart,
    /// A host NIC may be able to send (pacing time reached).
    NicWake,
    /// Retransmission timer check of a flow.
    Rto,
    /// A congestion controller's own timer (aux = version).
    CcTimer,
    /// Sample the time series.
    Sample,
}

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    seq: u64,
    pub kind: EvKind,
    pub id: u32,
    pub aux: u32,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    // Reversed: BinaryHeap is a max-heap and we pop the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Event>,
    next_seq: u64,
    pub now: Time,
    pub processed: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1 << 12), next_seq: 0, now: 0, processed: 0 }
    }

    #[inline]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Event { time, seq, kind, id, aux });
    }

    /// Pop the next event if it happens no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        match self.heap.peek() {
            Some(e) if e.time <= until => {
                let e = self.heap.pop().unwrap();
                self.now = e.time;
                self.processed += 1;
                Some(e)
            }
            _ => None,
        }
    }

    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_pop_in_insertion_order() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 2, 0);
        s.at(5, EvKind::Sample, 1, 0);
        s.at(10, EvKind::Sample, 3, 0);
        s.at(10, EvKind::Sample, 4, 0);
        let order: Vec<u32> = std::iter::from_fn(|| s.pop_until(100)).map(|e| e.id).collect();
        assert_eq!(order, vec![1, 2, 3, 4]);
    }
    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id, 1);
    }
}
