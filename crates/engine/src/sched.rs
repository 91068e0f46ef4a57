//! The event queue, ordered by (time, insertion order): ties are broken by insertion order,
//! so a scenario plus a seed determines the run exactly.
//!
//! Almost every event falls within tens of microseconds of now (serialisations, propagation),
//! so the queue is a timing wheel of `WHEEL` slots of 2^`SLOT_BITS` ps each: an event is pushed
//! unsorted into its slot, and a slot is sorted by time only when time reaches it (a counting
//! pass by sub-slot, then an insertion pass: `sort_slot`). Events beyond the wheel's horizon
//! (timeouts, far flow starts) wait in a binary heap and join their slot when it comes up. A
//! bitmap finds the next non-empty slot.
//!
//! Insertion order needs no sequence number on the wheel: a slot's buffer holds its events in
//! insertion order, every far event of a slot was inserted before any wheel event of it (the
//! slot enters the horizon only once, as time advances) — so a *stable* sort by time gives
//! (time, insertion) order. Events scheduled into the current slot while it is served (an ACK
//! serialised in under a slot) were inserted after every event already sorted there: into a
//! slot of few pending events they are inserted in order, into a crowded one they wait in a
//! small heap of their own (`late`) and win no tie against the sorted ones. Only the heaps,
//! which are not stable, keep a sequence number. An event is 16 bytes.
//!
//! The slot's occupancy grows with the fabric's event rate (≈ 30 events at 256 hosts with 25G
//! NICs, thousands at 8192 hosts with 100G ones), so nothing done per event may cost in
//! proportion to it: a late event into a crowded slot is a heap push (not a sorted insert, a
//! memmove of half the slot), and the slot sort is linear at every size (`sort_slot`).

use std::collections::BinaryHeap;

use crate::sim::events::{EvKind, KINDS};
use crate::time::Time;

/// Slot width: 2^13 ps ≈ 8.2 ns (a 1 KB packet at 100 Gb/s takes 87 ns).
const SLOT_BITS: u32 = 13;
/// Slots on the wheel: horizon 2048 × 8.2 ns ≈ 16.8 µs (link delays are a few µs).
const WHEEL: u64 = 2048;
/// Bits of an event's id (the kind takes the top 4 bits of the same word).
const ID_BITS: u32 = 28;
/// Pending events of the current slot above which a new event of it goes to the late heap
/// instead of a sorted insert (which moves half of them).
const LATE_AFTER: usize = 64;
/// Largest id an event can carry (port, flow or host index).
pub const MAX_ID: u32 = (1 << ID_BITS) - 1;

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    /// kind << ID_BITS | id
    kind_id: u32,
    pub aux: u32,
}

impl Event {
    #[inline]
    pub fn kind(&self) -> EvKind {
        KINDS[(self.kind_id >> ID_BITS) as usize]
    }
    #[inline]
    pub fn id(&self) -> u32 {
        self.kind_id & MAX_ID
    }
}

/// An event beyond the wheel's horizon, with its insertion number (the heap is not stable).
#[derive(Clone, Copy, Debug)]
struct FarEvent(Event, u64);

impl FarEvent {
    #[inline]
    fn key(&self) -> (Time, u64) {
        (self.0.time, self.1)
    }
}
impl PartialEq for FarEvent {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
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
        o.key().cmp(&self.key()) // reversed: BinaryHeap is a max-heap
    }
}

pub struct Scheduler {
    slots: Vec<Vec<Event>>,
    /// Bit i of word i/64 set ⇔ slot i is non-empty.
    occupied: Vec<u64>,
    /// Events of the current slot, sorted by (time, insertion); `cur[head..]` are pending.
    cur: Vec<Event>,
    /// Scratch buffer of the slot sort (its counting pass scatters into it).
    spare: Vec<Event>,
    head: usize,
    /// Absolute slot number (time >> SLOT_BITS) of `cur`.
    cur_slot: u64,
    far: BinaryHeap<FarEvent>,
    /// Empty buffers of emptied slots, the last freed on top. Only a non-empty slot holds a
    /// buffer, so the wheel's memory is (slots with events at once) × their occupancy — about
    /// the next 1–2 µs of events — not `WHEEL` × the largest occupancy ever seen (which, with
    /// buffers passed from slot to slot, every slot's buffer grew to: 244 MB at 8192 hosts).
    free_bufs: Vec<Vec<Event>>,
    /// Events scheduled into the current slot after it was sorted, by (time, insertion).
    late: BinaryHeap<FarEvent>,
    /// Insertion number of the heaps' events.
    far_seq: u64,
    /// Counters of the slot sort's counting pass (reused).
    counts: Vec<u32>,
    pub now: Time,
    pub processed: u64,
    /// Events ever scheduled (= processed + pending; `crate::invariants`).
    pub scheduled: u64,
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
            cur: Vec::with_capacity(64),
            spare: Vec::with_capacity(64),
            head: 0,
            cur_slot: 0,
            far: BinaryHeap::new(),
            free_bufs: Vec::new(),
            late: BinaryHeap::new(),
            far_seq: 0,
            counts: Vec::new(),
            now: 0,
            processed: 0,
            scheduled: 0,
        }
    }

    /// Schedule an event; `id` must not exceed `MAX_ID` (the build checks the counts).
    #[inline]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        debug_assert!(id <= MAX_ID, "event id out of range");
        let e = Event { time, kind_id: (kind as u32) << ID_BITS | id, aux };
        self.scheduled += 1;
        let slot = time >> SLOT_BITS;
        if slot == self.cur_slot {
            // after every pending event of equal time (they were inserted earlier): a sorted
            // insert while few are pending (a short memmove), else the late heap; once the heap
            // holds one, every later event of the slot goes there too, so that each sorted event
            // was inserted before each late one
            let pending = self.cur.len() - self.head;
            if self.late.is_empty() && pending <= LATE_AFTER {
                let i = self.head + self.cur[self.head..].partition_point(|x| x.time <= time);
                self.cur.insert(i, e);
            } else {
                self.late.push(FarEvent(e, self.far_seq));
                self.far_seq += 1;
            }
        } else if slot < self.cur_slot + WHEEL {
            let i = (slot % WHEEL) as usize;
            if self.slots[i].capacity() == 0 {
                self.lend_buffer(i);
            }
            self.slots[i].push(e);
            self.occupied[i >> 6] |= 1 << (i & 63);
        } else {
            self.far.push(FarEvent(e, self.far_seq));
            self.far_seq += 1;
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

    fn far_slot(&self) -> Option<u64> {
        self.far.peek().map(|f| f.0.time >> SLOT_BITS)
    }

    /// Slot `i` receives its first event: give it the most recently freed buffer (the last
    /// slot's, still in cache), or let it grow a new one.
    #[cold]
    #[inline(never)]
    fn lend_buffer(&mut self, i: usize) {
        if let Some(b) = self.free_bufs.pop() {
            self.slots[i] = b;
        }
    }

    /// Make `cur` hold the events of the earliest non-empty slot.
    #[cold]
    fn advance(&mut self) -> bool {
        let wheel = self.next_wheel_slot();
        let far = self.far_slot();
        let slot = match (wheel, far) {
            (None, None) => return false,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => a.min(b),
        };
        self.cur_slot = slot;
        self.cur.clear();
        self.head = 0;
        // far events first: they were inserted before any wheel event of this slot
        while self.far_slot() == Some(slot) {
            let e = self.far.pop().unwrap().0;
            self.cur.push(e);
        }
        if wheel == Some(slot) {
            let i = (slot % WHEEL) as usize;
            self.occupied[i >> 6] &= !(1 << (i & 63));
            if self.cur.is_empty() {
                std::mem::swap(&mut self.cur, &mut self.slots[i]);
            } else {
                self.cur.append(&mut self.slots[i]);
            }
            // the slot is empty now: its buffer goes back to the free buffers
            let b = std::mem::take(&mut self.slots[i]);
            if b.capacity() > 0 {
                self.free_bufs.push(b);
            }
        }
        sort_slot(&mut self.cur, &mut self.spare, &mut self.counts);
        true
    }

    /// Every event not yet popped, in no particular order (end-of-run checks).
    pub fn pending(&self) -> impl Iterator<Item = &Event> + '_ {
        self.cur[self.head..].iter().chain(self.slots.iter().flatten()).chain(self.far.iter().map(|f| &f.0))
    }

    /// Bytes held by the queue's buffers (each keeps its peak capacity; `footprint`).
    pub fn bytes(&self) -> usize {
        let ev = std::mem::size_of::<Event>();
        let slots: usize = self.slots.iter().chain(&self.free_bufs).map(|v| v.capacity()).sum();
        (slots + self.cur.capacity() + self.spare.capacity()) * ev
            + (self.far.capacity() + self.late.capacity()) * std::mem::size_of::<FarEvent>()
            + (self.slots.len() + self.free_bufs.capacity()) * std::mem::size_of::<Vec<Event>>()
    }

    /// The `k`-th event after the one just popped, if it is in the current slot (for
    /// prefetching; an event scheduled meanwhile may still come before it).
    #[inline]
    pub fn peek(&self, k: usize) -> Option<&Event> {
        self.cur.get(self.head + k)
    }

    /// Pop the next event if it happens no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        if !self.late.is_empty() {
            return self.pop_with_late(until);
        }
        if self.head == self.cur.len() && !self.advance() {
            return None;
        }
        let e = self.cur[self.head];
        if e.time > until {
            return None;
        }
        self.head += 1;
        self.now = e.time;
        self.processed += 1;
        Some(e)
    }

    /// `pop_until` while late events wait: the earlier of the sorted slot's head and the late
    /// heap's top, the sorted one on a tie (inserted first). The slot is not left before the
    /// late heap is empty (its events belong to it).
    fn pop_with_late(&mut self, until: Time) -> Option<Event> {
        let top = self.late.peek().unwrap().0;
        let sorted = self.cur.get(self.head).filter(|e| e.time <= top.time);
        let e = sorted.copied().unwrap_or(top);
        if e.time > until {
            return None;
        }
        if sorted.is_some() {
            self.head += 1;
        } else {
            self.late.pop();
        }
        self.now = e.time;
        self.processed += 1;
        Some(e)
    }
}

/// Sub-slots of the counting pass: at least 2^MIN_SUB_BITS (256 ps each), more for a crowded slot
/// (about one per four events), at most one per picosecond.
const MIN_SUB_BITS: u32 = 5;

/// Stable sort of one slot's events by time (equal times keep insertion order).
///
/// A slot holds ≈ 30 events in a busy 256-host fabric, thousands at 8192 hosts, in nearly random
/// time order, so a plain insertion sort makes ≈ n²/4 moves and mispredicts its loop exit once
/// per event. Instead a stable counting pass first scatters the events by their sub-slot (into
/// `spare`, then the buffers are swapped), which leaves only the few events sharing a sub-slot
/// out of order; one insertion pass finishes. The sub-slots scale with the slot's events, so the
/// sort stays linear at any occupancy (the library's merge sort, used before above 1024 events,
/// is n log n and allocates). Tiny slots go straight to the insertion sort.
#[inline]
fn sort_slot(cur: &mut Vec<Event>, spare: &mut Vec<Event>, counts: &mut Vec<u32>) {
    let n = cur.len();
    if n > 8 {
        let sub_bits = (usize::BITS - (n / 4).leading_zeros()).clamp(MIN_SUB_BITS, SLOT_BITS);
        if sub_bits == MIN_SUB_BITS {
            scatter(cur, spare, &mut [0; 1 << MIN_SUB_BITS], MIN_SUB_BITS);
        } else {
            counts.clear();
            counts.resize(1 << sub_bits, 0);
            scatter(cur, spare, counts, sub_bits);
        }
    }
    insertion_sort_by_time(cur);
}

/// The stable counting pass of `sort_slot`: `cur`'s events by their sub-slot of
/// 2^(SLOT_BITS - sub_bits) ps (`counts`: 2^sub_bits zeros), through `spare`.
#[inline]
fn scatter(cur: &mut Vec<Event>, spare: &mut Vec<Event>, counts: &mut [u32], sub_bits: u32) {
    let n = cur.len();
    let shift = SLOT_BITS - sub_bits;
    let mask = (1u64 << sub_bits) - 1;
    let sub = |e: &Event| ((e.time >> shift) & mask) as usize;
    for e in cur.iter() {
        counts[sub(e)] += 1;
    }
    let mut sum = 0u32;
    for c in counts.iter_mut() {
        let k = *c;
        *c = sum;
        sum += k;
    }
    if spare.len() < n {
        spare.resize(n, cur[0]);
    }
    for e in cur.iter() {
        let b = sub(e);
        spare[counts[b] as usize] = *e;
        counts[b] += 1;
    }
    spare.truncate(n);
    std::mem::swap(cur, spare);
}

/// Stable insertion sort by time: cheap when few events are out of order.
#[inline]
fn insertion_sort_by_time(v: &mut [Event]) {
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].time > e.time {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
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
        let order: Vec<u32> = std::iter::from_fn(|| s.pop_until(100)).map(|e| e.id()).collect();
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
                out.push((e.time, e.id()));
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            out.push((e.time, e.id()));
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
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 100);
        s.at(999, EvKind::Sample, 101, 0);
        s.at(1000, EvKind::Sample, 2, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 101);
        s.at(1000, EvKind::Sample, 3, 0);
        let rest: Vec<u32> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| e.id()).collect();
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
                assert_eq!((e.time, e.id()), expect.remove(0));
            }
        }
        expect.sort();
        let rest: Vec<(u64, u32)> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| (e.time, e.id())).collect();
        assert_eq!(rest, expect);
    }

    #[test]
    fn a_far_event_precedes_a_wheel_event_of_equal_time_inserted_later() {
        // T is beyond the horizon at first (heap), then within it (wheel), then current (cur)
        let t = 3 * WHEEL << SLOT_BITS;
        let mut s = Scheduler::new();
        s.at(t, EvKind::Sample, 1, 0);
        s.at(t - (WHEEL << SLOT_BITS) / 2, EvKind::Sample, 0, 0);
        s.at(t - (WHEEL << SLOT_BITS) / 2 + 1, EvKind::Sample, 0, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        s.at(t, EvKind::Sample, 2, 0); // wheel
        s.at(t - 5, EvKind::Sample, 0, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 1);
        s.at(t, EvKind::Sample, 3, 0); // current slot
        let rest: Vec<u32> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| e.id()).collect();
        assert_eq!(rest, vec![2, 3]);
    }

    #[test]
    fn slot_sort_is_a_stable_sort_by_time_at_every_size() {
        // sizes around the insertion-only and library-sort cut-offs, times inside one slot with
        // many ties (few distinct values) and spread out; `aux` records the insertion order
        let mut x = 7u64;
        let (mut spare, mut counts) = (Vec::new(), Vec::new());
        for n in [0usize, 1, 2, 8, 9, 30, 31, 200, 1024, 1025, 3000, 40_000] {
            for distinct in [3u64, 1 << SLOT_BITS] {
                let base = 77 << SLOT_BITS;
                let mut v: Vec<Event> = (0..n as u32)
                    .map(|i| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        Event { time: base + (x >> 40) % distinct * ((1 << SLOT_BITS) / distinct), kind_id: 0, aux: i }
                    })
                    .collect();
                let mut expect = v.clone();
                expect.sort_by_key(|e| e.time);
                sort_slot(&mut v, &mut spare, &mut counts);
                let got: Vec<(u64, u32)> = v.iter().map(|e| (e.time, e.aux)).collect();
                let want: Vec<(u64, u32)> = expect.iter().map(|e| (e.time, e.aux)).collect();
                assert_eq!(got, want, "n = {n}, distinct = {distinct}");
            }
        }
    }

    #[test]
    fn events_into_a_crowded_current_slot_keep_time_and_insertion_order() {
        // hundreds of events per slot, and while a slot is served new events into it (many
        // pending: the late heap; few pending: a sorted insert) with ties, against a model
        // ordered by (time, insertion number)
        let mut s = Scheduler::new();
        let mut model = std::collections::BTreeSet::new();
        let mut x = 3u64;
        let mut seq = 0u32;
        let slot_ps = 1u64 << SLOT_BITS;
        for round in 0..40_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pushes = if round % 500 < 250 { 3 } else { 1 };
            for k in 0..pushes {
                let r = (x >> (20 + 8 * k)) % 1000;
                // a few distinct instants in this slot and the next two: many ties
                let t = if r < 600 { (s.now / slot_ps + r % 3) * slot_ps + (r % 4) * 100 } else { s.now };
                let t = t.max(s.now);
                s.at(t, EvKind::Sample, seq, 0);
                model.insert((t, seq));
                seq += 1;
            }
            if round % 3 != 0 {
                let e = s.pop_until(u64::MAX).unwrap();
                let want = model.pop_first().unwrap();
                assert_eq!((e.time, e.id()), want, "round {round}");
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            assert_eq!((e.time, e.id()), model.pop_first().unwrap());
        }
        assert!(model.is_empty());
    }

    #[test]
    fn a_crowded_slot_keeps_time_and_insertion_order() {
        // 200 events into one wheel slot (beyond the counting pass's small-slot cut),
        // with ties; then into the same wheel position one turn later, so an emptied slot is reused
        let mut s = Scheduler::new();
        for round in 0..2u64 {
            if round == 1 {
                s.at(1000 << SLOT_BITS, EvKind::Sample, 0, 0); // move time so slot 5 + WHEEL is on the wheel
                s.pop_until(u64::MAX).unwrap();
            }
            let base = (5 + round * WHEEL) << SLOT_BITS;
            s.at(base + 7, EvKind::Sample, 9999, 0);
            let mut expect = vec![(base + 7, 9999)];
            for i in 0..200u32 {
                let t = base + (i as u64 * 7919) % 5 * 1000;
                s.at(t.max(s.now), EvKind::Sample, i, 0);
                expect.push((t, i));
            }
            expect.sort_by_key(|&(t, _)| t); // stable: equal times keep insertion order
            let got: Vec<(u64, u32)> = (0..expect.len()).map(|_| s.pop_until(u64::MAX).map(|e| (e.time, e.id())).unwrap()).collect();
            assert_eq!(got, expect, "round {round}");
        }
        assert!(s.pop_until(u64::MAX).is_none());
    }

    #[test]
    fn kind_id_and_aux_survive_packing() {
        let mut s = Scheduler::new();
        for (k, kind) in KINDS.iter().enumerate() {
            s.at(k as u64, *kind, MAX_ID - k as u32, u32::MAX - k as u32);
        }
        for (k, kind) in KINDS.iter().enumerate() {
            let e = s.pop_until(u64::MAX).unwrap();
            assert_eq!((e.kind(), e.id(), e.aux), (*kind, MAX_ID - k as u32, u32::MAX - k as u32));
        }
    }

    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = Scheduler::new();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id(), 1);
    }

    #[test]
    fn only_slots_with_events_hold_buffers() {
        // 100 events into slot n while slot n - 2 is served, for 4 revolutions: every slot index
        // is used, at most 3 slots have events at once, so 3 buffers (+ cur and spare) suffice
        let mut s = Scheduler::new();
        for n in 0..4 * WHEEL + 2 {
            for j in 0..100u64 {
                s.at((n << SLOT_BITS) + (j * 37 % 100) * 80, EvKind::Sample, j as u32, 0);
            }
            if n >= 2 {
                while s.pop_until(((n - 1) << SLOT_BITS) - 1).is_some() {}
            }
        }
        while s.pop_until(u64::MAX).is_some() {}
        assert_eq!(s.processed, s.scheduled);
        assert!(s.slots.iter().all(|v| v.capacity() == 0), "an emptied slot keeps no buffer");
        assert!(s.free_bufs.len() <= 3, "{} buffers for 3 slots with events at once", s.free_bufs.len());
    }
}
