//! Cache prefetch hints: the event loop knows which packet the next event will move (the wheel's
//! current slot is already sorted), and that packet was last touched microseconds of simulated
//! time ago, so it has usually left L1. A hint never changes a result.

/// Ask the CPU to bring the first `lines` 64-byte cache lines of `*r` toward L1.
#[inline(always)]
pub fn lines<T>(r: &T, lines: usize) {
    lines_at(r as *const T, lines)
}

/// `lines` by address alone: no reference to `*p` is made, so `p` may point at memory another
/// thread writes (a prefetch reads nothing into the program).
#[inline(always)]
pub fn lines_at<T>(p: *const T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let base = p as *const i8;
        for k in 0..lines.min(std::mem::size_of::<T>().div_ceil(64)) {
            // SAFETY: a prefetch is a hint; it never faults, even at an address outside any
            // allocation, and reads nothing into the program.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(base.wrapping_add(64 * k), _MM_HINT_T0);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, lines);
}

/// Every 64-byte line `*p` overlaps, by address alone (as `lines_at`). A value that is not
/// aligned to a line spans one line more than its size alone says (a 160-byte INT stack at an
/// offset of 48 spans four), which counting lines from its first byte would miss.
#[inline(always)]
pub fn object<T>(p: *const T) {
    let first = p as usize & !63;
    let end = p as usize + std::mem::size_of::<T>();
    let mut a = first;
    while a < end {
        lines_at(a as *const [u8; 64], 1);
        a += 64;
    }
}
