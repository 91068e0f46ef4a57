//! The event queue, ordered by (time, insertion order): ties are broken by insertion order,
//! so a scenario plus a seed determines the run exactly.
//!
//! Simulated time never goes backwards, so a radix heap (a monotone priority queue) serves: an
//! event lives in the bucket numbered by the highest bit in which its time differs from the
//! time of the last event taken out; taking out only redistributes the lowest non-empty bucket,
//! and a bitmap finds it. Events of equal time always share a bucket and every bucket keeps its
//! events in insertion order, so the events of the current time, kept in a FIFO, come out in
//! insertion order. This avoids the branch mispredictions of a binary heap's sift-down.

use std::collections::VecDeque;

use crate::time::Time;

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
    pub id: u32,
    pub aux: u32,
    pub kind: EvKind,
}

pub struct Scheduler {
    /// Events at time `last`, in insertion order.
    current: VecDeque<Event>,
    /// Bucket b (1..=64) holds events whose time first differs from `last` at bit b − 1.
    buckets: Vec<Vec<Event>>,
    /// Bit b − 1 set ⇔ bucket b is non-empty.
    nonempty: u64,
    last: Time,
    len: usize,
    pub now: Time,
    pub processed: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler {
            current: VecDeque::with_capacity(256),
            buckets: (0..65).map(|_| Vec::with_capacity(64)).collect(),
            nonempty: 0,
            last: 0,
            len: 0,
            now: 0,
            processed: 0,
        }
    }

    #[inline]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        self.place(Event { time, id, aux, kind });
        self.len += 1;
    }

    #[inline]
    fn place(&mut self, e: Event) {
        if e.time == self.last {
            self.current.push_back(e);
        } else {
            let b = 64 - (e.time ^ self.last).leading_zeros() as usize;
            self.buckets[b].push(e);
            self.nonempty |= 1 << (b - 1);
        }
    }

    /// Make `current` hold the events of the earliest pending time.
    #[inline]
    fn settle(&mut self) -> bool {
        if !self.current.is_empty() {
            return true;
        }
        if self.nonempty == 0 {
            return false;
        }
        let b = self.nonempty.trailing_zeros() as usize + 1;
        self.nonempty &= !(1 << (b - 1));
        let mut v = std::mem::take(&mut self.buckets[b]);
        self.last = v.iter().map(|e| e.time).min().unwrap();
        for e in v.drain(..) {
            self.place(e);
        }
        self.buckets[b] = v; // keep the allocation
        true
    }

    /// Pop the next event if it happens no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        if !self.settle() || self.last > until {
            return None;
        }
        let e = self.current.pop_front().unwrap();
        self.len -= 1;
        self.now = e.time;
        self.processed += 1;
        Some(e)
    }

    pub fn pending(&self) -> usize {
        self.len
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
    fn interleaved_pushes_and_pops_come_out_sorted() {
        // pseudo-random times, pushed while popping: the output must be sorted by (time, seq)
        let mut s = Scheduler::new();
        let mut x = 12345u64;
        let mut out = Vec::new();
        for round in 0..2000u32 {
            for _ in 0..3 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s.at(s.now + (x >> 40) % 5000, EvKind::Sample, round, 0);
            }
            if let Some(e) = s.pop_until(u64::MAX) {
                out.push((e.time, e.id));
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            out.push((e.time, e.id));
        }
        assert_eq!(out.len(), 6000);
        assert!(out.windows(2).all(|w| w[0] <= w[1]), "sorted by time, equal times by insertion round");
    }

    #[test]
    fn equal_times_inserted_at_different_moments_keep_insertion_order() {
        // Events for time 1000 are inserted before and after the queue advances to earlier
        // times (so relative to different `last` values); they must still come out in order.
        let mut s = Scheduler::new();
        s.at(1000, EvKind::Sample, 0, 0);
        s.at(10, EvKind::Sample, 100, 0);
        s.at(1000, EvKind::Sample, 1, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id, 100);
        s.at(999, EvKind::Sample, 101, 0);
        s.at(1000, EvKind::Sample, 2, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id, 101);
        s.at(1000, EvKind::Sample, 3, 0);
        let rest: Vec<u32> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| e.id).collect();
        assert_eq!(rest, vec![0, 1, 2, 3]);
    }

    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id, 1);
    }
}
