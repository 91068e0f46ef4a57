//! The sort of a wheel slot when time reaches it (`Scheduler::advance`): a counting pass by
//! sub-slot, an insertion pass by time, then each run of equal times by the events' tie key.

use super::{Event, SLOT_BITS};

/// Sub-slots of the counting pass: at least 2^MIN_SUB_BITS (256 ps each), more for a crowded slot
/// (about one per four events), at most one per picosecond.
const MIN_SUB_BITS: u32 = 5;

/// Runs of equal time longer than this are sorted by the library's sort, not by insertion.
const CROWDED: usize = 16;

/// Sort of one slot's events by `Event::order` (time, then the tie key).
///
/// A slot holds ≈ 30 events in a busy 256-host fabric, thousands at 8192 hosts, in nearly random
/// time order, so a plain insertion sort makes ≈ n²/4 moves and mispredicts its loop exit once
/// per event. Instead a counting pass first scatters the events by their sub-slot (into
/// `spare`, then the buffers are swapped), which leaves only the few events sharing a sub-slot
/// out of order, and one insertion pass by time finishes. The sub-slots scale with the slot's
/// events, so the sort stays linear at any occupancy. Tiny slots go straight to the insertion
/// pass.
///
/// Ties of time are then put in tie-key order, run by run: one compare per event finds the runs
/// (most events have a time of their own), and a run is sorted by insertion or, when crowded, by
/// the library's unstable sort. A fabric whose hosts start together at one rate (the permutation
/// benchmarks) makes hundreds of events at one picosecond, in no particular key order, where an
/// insertion pass would be quadratic. Comparing the time alone in the main pass keeps its
/// compare one word wide: a 128-bit (time, tie) compare there cost +3.5 % of all instructions
/// on websearch.
#[inline]
pub(super) fn sort_slot(cur: &mut Vec<Event>, spare: &mut Vec<Event>, counts: &mut Vec<u32>) {
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
    sort_ties(cur);
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

/// Insertion sort by time: cheap when few events are out of order.
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

/// Each run of equal times of a time-sorted slice, in tie-key order.
#[inline]
fn sort_ties(v: &mut [Event]) {
    let mut i = 0;
    while i + 1 < v.len() {
        if v[i + 1].time != v[i].time {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < v.len() && v[j].time == v[i].time {
            j += 1;
        }
        sort_run(&mut v[i..j]);
        i = j;
    }
}

#[cold]
#[inline(never)]
fn sort_run(run: &mut [Event]) {
    if run.len() > CROWDED {
        run.sort_unstable_by_key(Event::tie);
    } else {
        for i in 1..run.len() {
            let e = run[i];
            let mut j = i;
            while j > 0 && run[j - 1].tie() > e.tie() {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = e;
        }
    }
}
