//! The event queue, ordered by (time, kind, key, aux), the key a permutation of the event's id
//! that changes with its time (`event.rs`, `scramble`): by what each event is, never by when or
//! by whom it was inserted, so ties at one picosecond are broken the same way however the network
//! is cut into partitions (docs/parallel.md), and a scenario plus a seed determines the run
//! exactly; and
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

use crate::sim::events::EvKind;
use crate::sim::partition::Route;
use crate::time::Time;

mod event;
mod slot_sort;
pub use event::{Event, MAX_ID};
use slot_sort::sort_slot;

/// Slot width: 2^13 ps ≈ 8.2 ns (a 1 KB packet at 100 Gb/s takes 87 ns).
const SLOT_BITS: u32 = 13;
/// Slots on the wheel: horizon 2048 × 8.2 ns ≈ 16.8 µs (link delays are a few µs).
const WHEEL: u64 = 2048;
/// Pending events of the current slot above which a new event of it goes to the late heap
/// instead of a sorted insert (which moves half of them).
const LATE_AFTER: usize = 64;
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
        self.insert(Event::new(time, kind, id, aux));
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
mod tests;
