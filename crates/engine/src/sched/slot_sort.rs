//! The sort of a wheel slot when time reaches it (`Scheduler::advance`): a counting pass by
//! sub-slot, then each sub-slot sorted by (time, key).

use super::{Event, SLOT_BITS};

/// Sub-slots of the counting pass: at least 2^MIN_SUB_BITS (256 ps each), more for a crowded slot
/// (about one per four events), at most one per picosecond.
const MIN_SUB_BITS: u32 = 5;

/// Sort of one slot's events by (time, key).
///
/// A slot holds ≈ 30 events in a busy 256-host fabric, thousands at 8192 hosts, in nearly random
/// time order, so a plain insertion sort makes ≈ n²/4 moves and mispredicts its loop exit once
/// per event. Instead a counting pass first scatters the events by their sub-slot (into
/// `spare`, then the buffers are swapped), which leaves only the few events sharing a sub-slot
/// out of order; each sub-slot is then sorted on its own. The sub-slots scale with the slot's
/// events, so the sort stays linear at any occupancy (the library's merge sort, used before
/// above 1024 events, is n log n and allocates). Tiny slots go straight to the insertion sort.
///
/// Ties of time are the exception: a fabric whose hosts start together at one rate (the
/// permutation benchmarks) makes hundreds of events at one picosecond, which no sub-slot
/// separates and which arrive in no particular key order; an insertion pass over such a run is
/// quadratic (measured at 1024 hosts: the sort was 13 % of all instructions, 6× the
/// time-only sort of the insertion order, which needed no pass over ties). So a crowded
/// sub-slot is sorted by the library's unstable sort (n log n, in place; keys are unique, so
/// stability is not needed).
#[inline]
pub(super) fn sort_slot(cur: &mut Vec<Event>, spare: &mut Vec<Event>, counts: &mut Vec<u32>) {
    let n = cur.len();
    if n <= 8 {
        insertion_sort(cur);
        return;
    }
    let sub_bits = (usize::BITS - (n / 4).leading_zeros()).clamp(MIN_SUB_BITS, SLOT_BITS);
    let counts: &mut [u32] = if sub_bits == MIN_SUB_BITS {
        &mut [0; 1 << MIN_SUB_BITS]
    } else {
        counts.clear();
        counts.resize(1 << sub_bits, 0);
        counts
    };
    scatter(cur, spare, counts, sub_bits);
    // counts[b] is now the end of sub-slot b in `cur`
    let mut start = 0;
    for &end in counts.iter() {
        let sub = &mut cur[start..end as usize];
        if sub.len() > CROWDED {
            sub.sort_unstable_by_key(Event::order);
        } else {
            insertion_sort(sub);
        }
        start = end as usize;
    }
}

/// Events of one sub-slot above which it is sorted by the library's sort, not by insertion.
const CROWDED: usize = 16;

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

/// Insertion sort by (time, key): cheap when few events are out of order.
#[inline]
fn insertion_sort(v: &mut [Event]) {
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].order() > e.order() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}
