//! The event queue, ordered by (time, insertion sequence): ties are broken by insertion order,
//! so a scenario plus a seed determines the run exactly.
//!
//! Simulated time never goes backwards, so a radix heap (a monotone priority queue) serves:
//! an event lives in the bucket numbered by the highest bit in which its key differs from the
//! last popped key; popping only redistributes the lowest non-empty bucket. Keys are
//! (time << 64 | seq), unique, so the order is total. This avoids the branch mispredictions of
//! a binary heap's sift-down, which dominated the profile.

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
    seq: u64,
    pub kind: EvKind,
    pub id: u32,
    pub aux: u32,
}

impl Event {
    #[inline]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

pub struct Scheduler {
    buckets: Vec<Vec<Event>>,
    last: u128,
    len: usize,
    next_seq: u64,
    pub now: Time,
    pub processed: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket(key: u128, last: u128) -> usize {
    if key == last {
        0
    } else {
        128 - (key ^ last).leading_zeros() as usize
    }
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { buckets: (0..129).map(|_| Vec::with_capacity(64)).collect(), last: 0, len: 0, next_seq: 0, now: 0, processed: 0 }
    }

    #[inline]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let e = Event { time, seq, kind, id, aux };
        self.buckets[bucket(e.key(), self.last)].push(e);
        self.len += 1;
    }

    /// Move the minimum event into bucket 0 (if any event is pending).
    #[inline]
    fn settle(&mut self) -> bool {
        if !self.buckets[0].is_empty() {
            return true;
        }
        let Some(i) = (1..129).find(|&i| !self.buckets[i].is_empty()) else { return false };
        let mut b = std::mem::take(&mut self.buckets[i]);
        let min = b.iter().map(Event::key).min().unwrap();
        self.last = min;
        for e in b.drain(..) {
            self.buckets[bucket(e.key(), min)].push(e);
        }
        self.buckets[i] = b; // keep the allocation
        true
    }

    /// Pop the next event if it happens no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        if !self.settle() || self.buckets[0][0].time > until {
            return None;
        }
        let e = self.buckets[0].pop().unwrap();
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
                out.push((e.time, e.seq));
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            out.push((e.time, e.seq));
        }
        assert_eq!(out.len(), 6000);
        assert!(out.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id, 1);
    }
}
