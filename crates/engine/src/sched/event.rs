//! An event of the queue, 16 bytes: its time, its kind and the key of its id in one word, and
//! its aux. The key is why ties of one time and kind are fair and still a function of the event
//! alone (`scramble`; docs/parallel.md, "Why a key, not the id").

use crate::sim::events::{EvKind, KINDS};
use crate::time::Time;

/// Bits of an event's id (the kind takes the top 4 bits of the same word).
pub(super) const ID_BITS: u32 = 28;
/// Largest id an event can carry (port, flow or host index).
pub const MAX_ID: u32 = (1 << ID_BITS) - 1;

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    /// kind << ID_BITS | key of the id at `time` (`scramble`)
    pub(super) kind_id: u32,
    pub aux: u32,
}

impl Event {
    /// An event of `kind` for `id` at `time`: its key (`scramble`) is stored in place of the id.
    #[inline(always)]
    pub(super) fn new(time: Time, kind: EvKind, id: u32, aux: u32) -> Self {
        Event { time, kind_id: (kind as u32) << ID_BITS | scramble(id, time), aux }
    }
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
pub(super) const SCRAMBLE_MUL: u32 = 0x0BC8_F1A5;
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
pub(super) const SCRAMBLE_INV: u32 = inverse_mod_2_28(SCRAMBLE_MUL);

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
pub(super) fn scramble(id: u32, time: Time) -> u32 {
    ((id ^ time_key(time)).wrapping_mul(SCRAMBLE_MUL)) & MAX_ID
}
#[inline(always)]
pub(super) fn unscramble(s: u32, time: Time) -> u32 {
    (s.wrapping_mul(SCRAMBLE_INV) & MAX_ID) ^ time_key(time)
}
