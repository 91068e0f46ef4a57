//! The queue's order and its structures (the wheel, the far and late heaps, the slot sort).

use super::event::{scramble, unscramble, ID_BITS, SCRAMBLE_INV, SCRAMBLE_MUL};
use super::*;
use crate::sim::events::KINDS;

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
    let e = Event::new(7, EvKind::Circuit, MAX_ID, 0);
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
