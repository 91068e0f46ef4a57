//! The event queue, ordered by (time, insertion order): ties are broken by insertion order,
//! so a scenario plus a seed determines the run exactly.
//!
//! Almost every event falls within tens of microseconds of now (serialisations, propagation),
//! so the queue is a timing wheel of `WHEEL` slots of 2^`SLOT_BITS` ps each: an event is pushed
//! unsorted into its slot, and a slot is sorted (by time, then insertion number) only when time
//! reaches it. Events beyond the wheel's horizon (timeouts, far flow starts) wait in a radix
//! heap and join their slot when it comes up. A bitmap finds the next non-empty slot.

use std::collections::VecDeque;

use crate::time::Time;

/// Slot width: 2^13 ps ≈ 8.2 ns (a 1 KB packet at 100 Gb/s takes 87 ns).
const SLOT_BITS: u32 = 13;
/// Slots on the wheel: horizon 2048 × 8.2 ns ≈ 16.8 µs (link delays are a few µs).
const WHEEL: u64 = 2048;

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
    pub id: u32,
    pub aux: u32,
    pub kind: EvKind,
}

impl Event {
    #[inline]
    fn key(&self) -> (Time, u64) {
        (self.time, self.seq)
    }
}

/// Events beyond the wheel's horizon (timeouts, late flow starts): few, so a binary heap.
#[derive(Default)]
struct Far(std::collections::BinaryHeap<std::cmp::Reverse<FarEvent>>);

#[derive(Clone, Copy, Debug)]
struct FarEvent(Event);

impl PartialEq for FarEvent {
    fn eq(&self, o: &Self) -> bool {
        self.0.key() == o.0.key()
    }
}
impl Eq for FarEvent {}
impl PartialOrd for FarEvent {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for FarEvent {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.key().cmp(&o.0.key())
    }
}

impl Far {
    #[inline]
    fn push(&mut self, e: Event) {
        self.0.push(std::cmp::Reverse(FarEvent(e)));
    }
    fn min_time(&self) -> Option<Time> {
        self.0.peek().map(|r| r.0 .0.time)
    }
    fn pop(&mut self) -> Option<Event> {
        self.0.pop().map(|r| r.0 .0)
    }
}

pub struct Scheduler {
    slots: Vec<Vec<Event>>,
    /// Bit i of word i/64 set ⇔ slot i is non-empty.
    occupied: Vec<u64>,
    /// Events of the current slot, sorted by (time, seq).
    cur: VecDeque<Event>,
    /// Absolute slot number (time >> SLOT_BITS) of `cur`.
    cur_slot: u64,
    far: Far,
    next_seq: u64,
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
            slots: (0..WHEEL).map(|_| Vec::new()).collect(),
            occupied: vec![0; (WHEEL / 64) as usize],
            cur: VecDeque::with_capacity(64),
            cur_slot: 0,
            far: Far::default(),
            next_seq: 0,
            len: 0,
            now: 0,
            processed: 0,
        }
    }

    #[inline]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let e = Event { time, seq, id, aux, kind };
        self.len += 1;
        let slot = time >> SLOT_BITS;
        if slot == self.cur_slot {
            // later than every queued event of equal time (larger seq): insert after them
            let i = self.cur.partition_point(|x| x.time <= time);
            self.cur.insert(i, e);
        } else if slot < self.cur_slot + WHEEL {
            let i = (slot % WHEEL) as usize;
            self.slots[i].push(e);
            self.occupied[i >> 6] |= 1 << (i & 63);
        } else {
            self.far.push(e);
        }
    }

    /// The next occupied wheel slot after the current one, as an absolute slot number.
    fn next_wheel_slot(&self) -> Option<u64> {
        let words = self.occupied.len();
        let start = ((self.cur_slot + 1) % WHEEL) as usize;
        let (w0, b0) = (start >> 6, start & 63);
        for k in 0..=words {
            let w = (w0 + k) % words;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << b0;
            } else if k == words {
                bits &= !(!0u64 << b0); // wrapped around to the start word
            }
            if bits != 0 {
                let i = (w << 6) as u64 + bits.trailing_zeros() as u64;
                let delta = (i + WHEEL - start as u64) % WHEEL;
                return Some(self.cur_slot + 1 + delta);
            }
        }
        None
    }

    /// Make `cur` hold the events of the earliest non-empty slot.
    fn advance(&mut self) -> bool {
        if !self.cur.is_empty() {
            return true;
        }
        let wheel = self.next_wheel_slot();
        let far = self.far.min_time().map(|t| t >> SLOT_BITS);
        let slot = match (wheel, far) {
            (None, None) => return false,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => a.min(b),
        };
        self.cur_slot = slot;
        if wheel == Some(slot) {
            let i = (slot % WHEEL) as usize;
            self.occupied[i >> 6] &= !(1 << (i & 63));
            self.cur.extend(self.slots[i].drain(..));
        }
        while self.far.min_time().is_some_and(|t| t >> SLOT_BITS == slot) {
            let e = self.far.pop().unwrap();
            self.cur.push_back(e);
        }
        self.cur.make_contiguous().sort_unstable_by_key(Event::key);
        true
    }

    /// Pop the next event if it happens no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        if !self.advance() || self.cur[0].time > until {
            return None;
        }
        let e = self.cur.pop_front().unwrap();
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
    fn far_events_and_wheel_events_merge_in_order() {
        // times spread over many wheel horizons, equal times inserted at different moments
        let mut s = Scheduler::new();
        let mut expect = Vec::new();
        let mut x = 99u64;
        for i in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = s.now + [(x >> 33) % 300_000, (x >> 20) % 10_000_000_000, 8192 * ((x >> 50) % 8)][(i % 3) as usize];
            s.at(t, EvKind::Sample, i, 0);
            expect.push((t, i));
            if i % 4 == 0 {
                let e = s.pop_until(u64::MAX).unwrap();
                expect.sort();
                assert_eq!((e.time, e.id), expect.remove(0));
            }
        }
        expect.sort();
        let rest: Vec<(u64, u32)> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| (e.time, e.id)).collect();
        assert_eq!(rest, expect);
    }

    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id, 1);
    }
}
