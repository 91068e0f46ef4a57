//! The event queue, ordered by (time, kind, key, aux), the key a permutation of the event's id
//! that changes with its time (`scramble`): by what each event is, never by when or by whom it
//! was inserted, so ties at one picosecond are broken the same way however the network is cut
//! into partitions (docs/parallel.md), and a scenario plus a seed determines the run exactly; and
//! no port, host or flow goes first at every tie (ordered by the id itself, the lowest port of a
//! switch won every simultaneous arrival and locked a flow out). Two events equal in all four are
//! the same event and may be handled in either order.
//!
//! Almost every event falls within tens of microseconds of now (serialisations, propagation),
//! so the queue is a timing wheel of `WHEEL` slots of 2^`SLOT_BITS` ps each: an event is pushed
//! unsorted into its slot, and a slot is sorted only when time reaches it (a counting pass by
//! sub-slot, an insertion pass by time, then the runs of equal time: `sort_slot`). Events beyond the wheel's
//! horizon (timeouts, far flow starts) wait in a binary heap and join their slot when it comes
//! up. A bitmap finds the next non-empty slot.
//!
//! Every structure orders by that one total order; none needs to be stable. Events scheduled into
//! the current slot while it is served (an ACK serialised in under a slot) are inserted at their
//! place among its pending events while few are pending, else into a heap of their own (`late`).
//! An event may order before the one being handled (a zero-delay event of a lower kind or id): it
//! is simply popped next. The queue pops its least pending event; 16 bytes each.
//!
//! The slot's occupancy grows with the fabric's event rate (≈ 30 events at 256 hosts with 25G
//! NICs, thousands at 8192 hosts with 100G ones), so nothing done per event may cost in
//! proportion to it: a late event into a crowded slot is a heap push (not a sorted insert, a
//! memmove of half the slot), and the slot sort is linear at every size (`sort_slot`).

use std::collections::BinaryHeap;

use crate::sim::events::{EvKind, KINDS};
use crate::sim::partition::Route;
use crate::time::Time;

mod slot_sort;
use slot_sort::sort_slot;

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
    /// kind << ID_BITS | key of the id at `time` (`scramble`)
    kind_id: u32,
    pub aux: u32,
}

impl Event {
    /// The queue's order: (time, tie), as one number.
    #[inline(always)]
    pub fn order(&self) -> u128 {
        (self.time as u128) << 64 | self.tie() as u128
    }
    /// What orders events of one time: kind (the global kinds first, `EvKind`), the id's key
    /// (`scramble`), aux.
    #[inline(always)]
    pub fn tie(&self) -> u64 {
        (self.kind_id as u64) << 32 | self.aux as u64
    }
    #[inline]
    pub fn kind(&self) -> EvKind {
        KINDS[(self.kind_id >> ID_BITS) as usize]
    }
    #[inline]
    pub fn id(&self) -> u32 {
        unscramble(self.kind_id & MAX_ID, self.time)
    }
}

/// Odd multiplier of the id's key, and its inverse mod 2^ID_BITS.
const SCRAMBLE_MUL: u32 = 0x0BC8_F1A5;
const fn inverse_mod_2_28(a: u32) -> u32 {
    // Newton's iteration x <- x (2 - a x): a is its own inverse mod 8 (a odd), and each step
    // doubles the correct low bits (3, 6, 12, 24, 48 ≥ 28)
    let mut x = a;
    let mut i = 0;
    while i < 5 {
        x = x.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x & MAX_ID
}
const SCRAMBLE_INV: u32 = inverse_mod_2_28(SCRAMBLE_MUL);

/// 28 bits that differ from one instant to the next: the top bits of the time times 2^64/φ
/// (Fibonacci hashing), so instants a packet time or a slot apart get unrelated masks.
#[inline(always)]
fn time_key(time: Time) -> u32 {
    ((time.wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> (64 - ID_BITS)) as u32
}
/// An event's key among the events of its time and kind: its id XOR the instant's mask, times
/// an odd number mod 2^28. Both steps are bijections of 28-bit ids, so at one instant distinct
/// ids keep distinct keys (the order stays total, the cut still cannot change it), while which
/// of two ids goes first changes from instant to instant, about half the time each
/// (`tests::no_id_wins_every_tie`). The event stores the key; `id()` inverts it.
#[inline(always)]
fn scramble(id: u32, time: Time) -> u32 {
    ((id ^ time_key(time)).wrapping_mul(SCRAMBLE_MUL)) & MAX_ID
}
#[inline(always)]
fn unscramble(s: u32, time: Time) -> u32 {
    (s.wrapping_mul(SCRAMBLE_INV) & MAX_ID) ^ time_key(time)
}

/// An event in a heap, least (time, key) on top.
#[derive(Clone, Copy, Debug)]
struct FarEvent(Event);

impl PartialEq for FarEvent {
    fn eq(&self, o: &Self) -> bool {
        self.0.order() == o.0.order()
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
        o.0.order().cmp(&self.0.order()) // reversed: BinaryHeap is a max-heap
    }
}

pub struct Scheduler {
    slots: Vec<Vec<Event>>,
    /// Bit i of word i/64 set ⇔ slot i is non-empty.
    occupied: Vec<u64>,
    /// Events of the current slot, sorted by (time, key); `cur[head..]` are pending.
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
    /// Events scheduled into a crowded current slot after it was sorted.
    late: BinaryHeap<FarEvent>,
    /// A partitioned run (`sim::partition`) takes the events another partition owns. None in a
    /// plain run: one untaken branch per insertion.
    pub route: Option<Box<Route>>,
    /// Counters of the slot sort's counting pass (reused).
    counts: Vec<u32>,
    pub now: Time,
    pub processed: u64,
    /// Events ever scheduled (= processed + pending; `crate::invariants`).
    pub scheduled: u64,
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
            route: None,
            counts: Vec::new(),
            now: 0,
            processed: 0,
            scheduled: 0,
        }
    }

    /// Schedule an event; `id` must not exceed `MAX_ID` (the build checks the counts).
    #[inline(always)]
    pub fn at(&mut self, time: Time, kind: EvKind, id: u32, aux: u32) {
        self.insert(Event { time, kind_id: (kind as u32) << ID_BITS | scramble(id, time), aux });
    }

    /// Queue a new event (`at`): to another partition's outbox in a partitioned run, else here.
    #[inline(always)]
    fn insert(&mut self, e: Event) {
        debug_assert!(e.time >= self.now, "event scheduled in the past");
        debug_assert!(e.id() <= MAX_ID, "event id out of range");
        self.scheduled += 1;
        if let Some(r) = self.route.as_deref_mut() {
            if r.takes(e) {
                return;
            }
        }
        self.place(e);
    }

    /// Queue an event made elsewhere: another partition's, handed over at a barrier. Its slot must not be behind the current one (`pop_until` does not
    /// advance past its horizon, and handed-over events come after it).
    #[inline(always)]
    pub fn place(&mut self, e: Event) {
        let order = e.order();
        let slot = e.time >> SLOT_BITS;
        debug_assert!(slot >= self.cur_slot, "event placed behind the current slot");
        if slot == self.cur_slot {
            // at its place among the pending events: a sorted insert while few are pending (a
            // short memmove), else the late heap
            let pending = self.cur.len() - self.head;
            if pending <= LATE_AFTER {
                let i = self.head + self.cur[self.head..].partition_point(|x| x.order() <= order);
                self.cur.insert(i, e);
            } else {
                self.late.push(FarEvent(e));
            }
        } else if slot < self.cur_slot + WHEEL {
            let i = (slot % WHEEL) as usize;
            if self.slots[i].capacity() == 0 {
                self.lend_buffer(i);
            }
            self.slots[i].push(e);
            self.occupied[i >> 6] |= 1 << (i & 63);
        } else {
            self.far.push(FarEvent(e));
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

    /// Slot `i`'s first event: give it the last freed buffer (still in cache), or grow a new one.
    #[cold]
    #[inline(never)]
    fn lend_buffer(&mut self, i: usize) {
        if let Some(b) = self.free_bufs.pop() {
            self.slots[i] = b;
        }
    }

    /// Make `cur` hold the events of the earliest non-empty slot, unless that slot begins after
    /// `until` (then nothing moves: an event handed over later may still belong before it).
    #[cold]
    fn advance(&mut self, until: Time) -> bool {
        let wheel = self.next_wheel_slot();
        let far = self.far_slot();
        let slot = match (wheel, far) {
            (None, None) => return false,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => a.min(b),
        };
        if slot > until >> SLOT_BITS {
            return false;
        }
        self.cur_slot = slot;
        self.cur.clear();
        self.head = 0;
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
        let heaps = self.far.iter().chain(self.late.iter()).map(|f| &f.0);
        self.cur[self.head..].iter().chain(self.slots.iter().flatten()).chain(heaps)
    }

    /// Time of the next event, if any (a partitioned run's barrier times).
    pub fn next_time(&self) -> Option<Time> {
        let pending = self.cur[self.head..].first().map(|e| e.time);
        let late = self.late.peek().map(|f| f.0.time);
        if pending.is_some() || late.is_some() {
            return pending.into_iter().chain(late).min();
        }
        let wheel = self.next_wheel_slot().and_then(|s| self.slots[(s % WHEEL) as usize].iter().map(|e| e.time).min());
        wheel.into_iter().chain(self.far.peek().map(|f| f.0.time)).min()
    }

    /// Take over another queue's pending events and counts (the end of a partitioned run, so that
    /// the end-of-run checks see one queue).
    pub fn absorb(&mut self, other: Scheduler) {
        self.far.extend(other.pending().map(|&e| FarEvent(e)));
        self.scheduled += other.scheduled;
        self.processed += other.processed;
        self.now = self.now.max(other.now);
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
    #[inline(always)]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        if !self.late.is_empty() {
            return self.pop_with_late(until);
        }
        if self.head == self.cur.len() && !self.advance(until) {
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

    /// Pop the next event if its order is below `bound` (`Event::order`): the partitions
    /// of a threaded run that stops when done handle what the one-thread run handled before its
    /// last completion (`sim::partition::Round::Before`). Not on the hot path.
    pub fn pop_before(&mut self, bound: u128) -> Option<Event> {
        let until = (bound >> 64) as Time;
        if self.head == self.cur.len() && self.late.is_empty() && !self.advance(until) {
            return None;
        }
        let sorted = self.cur.get(self.head).map(Event::order);
        let late = self.late.peek().map(|f| f.0.order());
        if sorted.into_iter().chain(late).min()? >= bound {
            return None;
        }
        self.pop_until(until) // the same least event
    }

    /// `pop_until` while late events wait: the least of the sorted slot's head and the late
    /// heap's top. The slot is not left before the late heap is empty (its events belong to it).
    fn pop_with_late(&mut self, until: Time) -> Option<Event> {
        let top = self.late.peek().unwrap().0;
        let sorted = self.cur.get(self.head).filter(|e| e.order() <= top.order());
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

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched() -> Scheduler {
        Scheduler::new()
    }
    /// Where an event of `id` at `time` stands among the events of its time and kind.
    fn key(time: Time, id: u32) -> (Time, u32) {
        (time, scramble(id, time))
    }
    /// `ids` in the queue's order among ties at `time`.
    fn by_key(time: Time, mut ids: Vec<u32>) -> Vec<u32> {
        ids.sort_by_key(|&id| key(time, id));
        ids
    }
    #[test]
    fn pop_before_stops_at_the_bound_among_ties_and_late_events() {
        let mut s = sched();
        for id in 1..=4 {
            s.at(10, EvKind::Sample, id, 0);
        }
        s.at(3, EvKind::Sample, 0, 0);
        // the bound: the third of the four ties in the queue's order
        let ties = by_key(10, vec![1, 2, 3, 4]);
        let bound = s.pending().find(|e| e.id() == ties[2]).unwrap().order();
        let ids: Vec<u32> = std::iter::from_fn(|| s.pop_before(bound)).map(|e| e.id()).collect();
        assert_eq!(ids, vec![0, ties[0], ties[1]], "everything below the bound, nothing from it on");
        // an event placed into the current slot after its sort (the late heap) is seen too
        for k in 0..=LATE_AFTER as u32 {
            s.at(11, EvKind::Sample, 100 + k, 0);
        }
        assert!(s.pop_before(bound).is_none());
        assert_eq!(s.pop_until(10).map(|e| e.id()), Some(ties[2]));
        // up to the last of them inserted, which waits in the late heap: the sorted slot and
        // the heap both give events, in order
        let last = 100 + LATE_AFTER as u32;
        assert!(!s.late.is_empty());
        let at_11 = by_key(11, (100..=last).collect());
        let below: Vec<u32> = at_11.iter().copied().take_while(|&id| id != last).collect();
        let bound = s.pending().find(|e| e.id() == last).unwrap().order();
        let ids: Vec<u32> = std::iter::from_fn(|| s.pop_before(bound)).map(|e| e.id()).collect();
        assert_eq!(ids, [vec![ties[3]], below].concat());
        assert_eq!(s.pop_until(11).map(|e| e.id()), Some(last));
    }

    #[test]
    fn ties_pop_by_their_key_whatever_the_insertion_order() {
        let mut s = sched();
        s.at(10, EvKind::Sample, 3, 0);
        s.at(5, EvKind::Sample, 1, 0);
        s.at(10, EvKind::Sample, 4, 0);
        s.at(10, EvKind::Sample, 2, 0);
        let order: Vec<u32> = std::iter::from_fn(|| s.pop_until(100)).map(|e| e.id()).collect();
        assert_eq!(order, [vec![1], by_key(10, vec![2, 3, 4])].concat());
    }
    #[test]
    fn interleaved_pushes_and_pops_come_out_sorted() {
        // pseudo-random times, pushed while popping: the output must be sorted by (time, key)
        let mut s = sched();
        let mut x = 12345u64;
        let mut out = Vec::new();
        for round in 0..2000u32 {
            for _ in 0..3 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s.at(s.now + (x >> 40) % 5000, EvKind::Sample, round, 0);
            }
            if let Some(e) = s.pop_until(u64::MAX) {
                out.push(key(e.time, e.id()));
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            out.push(key(e.time, e.id()));
        }
        assert_eq!(out.len(), 6000);
        assert!(out.windows(2).all(|w| w[0] <= w[1]), "sorted by time, equal times by key");
    }

    #[test]
    fn equal_times_inserted_at_different_moments_pop_by_key() {
        // Events for time 1000 are inserted before and after the queue advances to earlier
        // times (so relative to different `last` values); they must still come out by key.
        let mut s = sched();
        s.at(1000, EvKind::Sample, 2, 0);
        s.at(10, EvKind::Sample, 100, 0);
        s.at(1000, EvKind::Sample, 3, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 100);
        s.at(999, EvKind::Sample, 101, 0);
        s.at(1000, EvKind::Sample, 0, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 101);
        s.at(1000, EvKind::Sample, 1, 0);
        let rest: Vec<u32> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| e.id()).collect();
        assert_eq!(rest, by_key(1000, vec![0, 1, 2, 3]));
    }

    #[test]
    fn far_events_and_wheel_events_merge_in_order() {
        // times spread over many wheel horizons, equal times inserted at different moments
        let mut s = sched();
        let mut expect = Vec::new();
        let mut x = 99u64;
        for i in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = s.now + [(x >> 33) % 300_000, (x >> 20) % 10_000_000_000, 8192 * ((x >> 50) % 8)][(i % 3) as usize];
            s.at(t, EvKind::Sample, i, 0);
            expect.push(key(t, i));
            if i % 4 == 0 {
                let e = s.pop_until(u64::MAX).unwrap();
                expect.sort();
                assert_eq!(key(e.time, e.id()), expect.remove(0));
            }
        }
        expect.sort();
        let rest: Vec<(u64, u32)> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| key(e.time, e.id())).collect();
        assert_eq!(rest, expect);
    }

    #[test]
    fn far_wheel_and_current_events_of_equal_time_merge_by_key() {
        // T is beyond the horizon at first (heap), then within it (wheel), then current (cur)
        let t = 3 * WHEEL << SLOT_BITS;
        let mut s = sched();
        s.at(t, EvKind::Sample, 1, 0);
        s.at(t - (WHEEL << SLOT_BITS) / 2, EvKind::Sample, 0, 0);
        s.at(t - (WHEEL << SLOT_BITS) / 2 + 1, EvKind::Sample, 0, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        s.at(t, EvKind::Sample, 2, 0); // wheel
        s.at(t - 5, EvKind::Sample, 0, 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), 0);
        let first = by_key(t, vec![1, 2])[0];
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), first);
        s.at(t, EvKind::Sample, 3, 0); // current slot
        let rest: Vec<u32> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| e.id()).collect();
        assert_eq!(rest, by_key(t, [1, 2, 3].into_iter().filter(|&id| id != first).collect()));
    }

    #[test]
    fn slot_sort_sorts_by_time_and_tie_at_every_size() {
        // sizes around the insertion-only and library-sort cut-offs, times inside one slot with
        // many ties (few distinct values) and spread out; ties by `aux`, in no order
        let mut x = 7u64;
        let (mut spare, mut counts) = (Vec::new(), Vec::new());
        for n in [0usize, 1, 2, 8, 9, 30, 31, 200, 1024, 1025, 3000, 40_000] {
            for distinct in [3u64, 1 << SLOT_BITS] {
                let base = 77 << SLOT_BITS;
                let mut v: Vec<Event> = (0..n as u32)
                    .map(|i| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let aux = (i as u64 * 2654435761 % n as u64) as u32; // a permutation of 0..n
                        Event { time: base + (x >> 40) % distinct * ((1 << SLOT_BITS) / distinct), kind_id: 0, aux }
                    })
                    .collect();
                let mut expect = v.clone();
                expect.sort_by_key(Event::order);
                sort_slot(&mut v, &mut spare, &mut counts);
                let got: Vec<(u64, u32)> = v.iter().map(|e| (e.time, e.aux)).collect();
                let want: Vec<(u64, u32)> = expect.iter().map(|e| (e.time, e.aux)).collect();
                assert_eq!(got, want, "n = {n}, distinct = {distinct}");
            }
        }
    }

    #[test]
    fn events_into_a_crowded_current_slot_keep_time_and_key_order() {
        // hundreds of events per slot, and while a slot is served new events into it (many
        // pending: the late heap; few pending: a sorted insert) with ties, against a model
        // ordered by (time, key); ids are the insertion numbers' bits reversed
        let mut s = sched();
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
                let id = seq.reverse_bits() >> (32 - ID_BITS);
                s.at(t, EvKind::Sample, id, 0);
                model.insert(key(t, id));
                seq += 1;
            }
            if round % 3 != 0 {
                let e = s.pop_until(u64::MAX).unwrap();
                let want = model.pop_first().unwrap();
                assert_eq!(key(e.time, e.id()), want, "round {round}");
            }
        }
        while let Some(e) = s.pop_until(u64::MAX) {
            assert_eq!(key(e.time, e.id()), model.pop_first().unwrap());
        }
        assert!(model.is_empty());
    }

    #[test]
    fn a_crowded_slot_keeps_time_and_key_order() {
        // 200 events into one wheel slot (beyond the counting pass's small-slot cut),
        // with ties; then into the same wheel position one turn later, so an emptied slot is reused
        let mut s = sched();
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
                // ids a permutation of 0..200 unlike the insertion order (7919 is prime to 200)
                let id = i * 7919 % 200;
                s.at(t.max(s.now), EvKind::Sample, id, 0);
                expect.push((t, id));
            }
            expect.sort_by_key(|&(t, id)| key(t, id));
            let got: Vec<(u64, u32)> = (0..expect.len()).map(|_| s.pop_until(u64::MAX).map(|e| (e.time, e.id())).unwrap()).collect();
            assert_eq!(got, expect, "round {round}");
        }
        assert!(s.pop_until(u64::MAX).is_none());
    }

    #[test]
    fn kind_id_and_aux_survive_packing() {
        let mut s = sched();
        for (k, kind) in KINDS.iter().enumerate() {
            s.at(k as u64, *kind, 15 - k as u32, u32::MAX - k as u32);
        }
        for (k, kind) in KINDS.iter().enumerate() {
            let e = s.pop_until(u64::MAX).unwrap();
            assert_eq!((e.kind(), e.id(), e.aux), (*kind, 15 - k as u32, u32::MAX - k as u32));
        }
        let e = Event { time: 7, kind_id: (EvKind::Circuit as u32) << ID_BITS | scramble(MAX_ID, 7), aux: 0 };
        assert_eq!((e.kind(), e.id()), (EvKind::Circuit, MAX_ID));
    }

    #[test]
    fn the_key_is_a_permutation_of_ids_at_every_time() {
        // id -> key is invertible at each time (XOR, then an odd multiplier mod 2^28), so two
        // events of one time and kind with different ids never share a key
        let mut x = 7u64;
        for _ in 0..100_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (id, t) = ((x >> 36) as u32 & MAX_ID, x >> 1);
            assert_eq!(unscramble(scramble(id, t), t), id);
        }
        assert_eq!(SCRAMBLE_MUL.wrapping_mul(SCRAMBLE_INV) & MAX_ID, 1);
    }

    #[test]
    fn no_id_wins_every_tie() {
        // The key is why a fixed id does not always go first: with ties ordered by the id
        // itself, the lowest port of a switch won every simultaneous arrival and locked out a
        // flow (docs/parallel.md). For instants spaced as real ties are (every picosecond, a
        // slot, a 1 KB packet at 100 Gb/s, a microsecond), each of 8 neighbouring ids comes first
        // in 1/8 of the instants, each of two in 1/2. Tolerance: 4 standard deviations of the
        // binomial share over n instants, as if the order were drawn at random.
        let n = 8000u64;
        for stride in [1u64, 1 << SLOT_BITS, 81_920, 1_000_000] {
            let mut first = [0u64; 8];
            let mut a_before_b = 0u64;
            for k in 1..=n {
                let t = 12_345 + k * stride;
                first[by_key(t, (40..48).collect())[0] as usize - 40] += 1;
                a_before_b += (by_key(t, vec![3, 4])[0] == 3) as u64;
            }
            let tol = |p: f64| 4.0 * (p * (1.0 - p) / n as f64).sqrt();
            for f in first {
                assert!((f as f64 / n as f64 - 0.125).abs() < tol(0.125), "stride {stride}: {first:?}");
            }
            assert!((a_before_b as f64 / n as f64 - 0.5).abs() < tol(0.5), "stride {stride}: {a_before_b}");
        }
    }

    #[test]
    fn pop_until_respects_the_horizon() {
        let mut s = sched();
        s.at(10, EvKind::Sample, 1, 0);
        assert!(s.pop_until(9).is_none());
        assert_eq!(s.pop_until(10).unwrap().id(), 1);
    }

    #[test]
    fn ties_go_by_what_the_events_are_not_by_insertion() {
        // at one instant: global kinds first, then by kind, key and aux, whichever handler made
        // them and in whatever order they were inserted
        let mut s = sched();
        s.at(5, EvKind::TxDone, 3, 0);
        s.at(5, EvKind::TxDone, 1, 0);
        let first = by_key(5, vec![1, 3]);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), first[0]);
        s.at(100, EvKind::NicWake, 9, 0);
        s.at(100, EvKind::CcTimer, 2, 7);
        s.at(100, EvKind::CcTimer, 2, 6);
        assert_eq!(s.pop_until(u64::MAX).unwrap().id(), first[1]);
        s.at(100, EvKind::NicWake, 8, 0);
        s.at(100, EvKind::TxDone, 40, 0);
        s.at(100, EvKind::Sample, 50, 0);
        let order: Vec<(EvKind, u32, u32)> = std::iter::from_fn(|| s.pop_until(u64::MAX)).map(|e| (e.kind(), e.id(), e.aux)).collect();
        assert_eq!(
            order,
            vec![
                (EvKind::Sample, 50, 0),
                (EvKind::TxDone, 40, 0),
                (EvKind::NicWake, by_key(100, vec![8, 9])[0], 0),
                (EvKind::NicWake, by_key(100, vec![8, 9])[1], 0),
                (EvKind::CcTimer, 2, 6),
                (EvKind::CcTimer, 2, 7)
            ]
        );
    }

    #[test]
    fn only_slots_with_events_hold_buffers() {
        // 100 events into slot n while slot n - 2 is served, for 4 revolutions: every slot index
        // is used, at most 3 slots have events at once, so 3 buffers (+ cur and spare) suffice
        let mut s = sched();
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
