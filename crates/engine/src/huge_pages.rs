//! Large buffers on transparent huge pages (Linux `madvise(MADV_HUGEPAGE)`).
//!
//! At 8192 hosts the packet pool alone is ≈ 280 MB, touched in no order a page could predict: with
//! 4 KiB pages nearly every packet, port and route an event touches also misses the TLB, and in a
//! virtual machine each such miss is a two-level page walk. On kernels whose THP mode is
//! `madvise` (the default of many distributions) only advised memory gets 2 MiB pages, so every
//! allocation of at least `HUGE_FROM` bytes made through the engine is advised when it is made
//! or grown. Smaller blocks — the ports' rings (37 MB at 8192 hosts, one block per ring), the
//! controllers, the NICs' flow lists — come from the C library's heap, which is advised as it
//! grows once the process has built a large fabric (`heap`, `advise_heap`; glibc only). Only a
//! hint: it changes no byte of any result (the golden digests), and where the kernel has no THP
//! the call fails silently. Measured in docs/benchmarks.md (issue 28).

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations from this size on are advised (a 2 MiB huge page needs at least this much).
pub const HUGE_FROM: usize = 2 << 20;

/// The system allocator, advising large blocks to use huge pages.
pub struct HugePageAlloc;

// SAFETY: every call forwards to `System` with the caller's arguments; `advise` only hints the
// kernel about pages wholly inside the block just returned.
unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        advise(p, layout.size());
        p
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        advise(p, layout.size());
        p
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout)
    }
    /// A block that grows to `HUGE_FROM` or more moves to a new, advised block, copied after the
    /// advice: the kernel gives a huge page only to a 2 MiB range with no page yet, and the
    /// system's `realloc` (`mremap`) would keep the old block's small pages and fault the rest
    /// before the advice (measured: 28 of 328 MB on huge pages that way at 8192 hosts).
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size < HUGE_FROM {
            let q = System.realloc(p, layout, new_size);
            advise(q, new_size);
            return q;
        }
        let q = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
        if !q.is_null() {
            std::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
            System.dealloc(p, layout);
        }
        q
    }
}

/// Advise the whole pages inside `[p, p + size)` to be backed by huge pages.
#[inline]
fn advise(p: *mut u8, size: usize) {
    if p.is_null() {
        return;
    }
    if size < HUGE_FROM {
        heap::grown();
        return;
    }
    advise_pages(p as usize, size);
}

/// Small blocks: the C library's main heap (`brk`), advised as it grows, from the moment a
/// process builds a large fabric (`advise_heap`; before, and in processes that never do, glibc's
/// settings are left alone). After every small allocation the heap's end (`sbrk(0)`, a read of a
/// variable) is compared with the end already advised; what the heap grew by since is advised
/// then, before the caller touches it. glibc grows the heap by the request plus `M_TOP_PAD` (128
/// KiB by default), too little for a 2 MiB range to lie wholly inside the heap when its first page
/// is touched, so the pad is raised to 32 MiB (of address space: untouched pages take no memory).
/// This is what glibc's own `glibc.malloc.hugetlb=1` tunable does, which a library cannot set for
/// its process. Only after a large fabric: setting the pad also stops glibc from raising its mmap
/// threshold as large blocks are freed (glibc malloc.c, `__libc_mallopt`: `no_dyn_threshold`),
/// which the Python front's own allocations in the same process would feel. Measured on the
/// 8192-host permutation with the tunable first (user CPU 10.27, 10.00 s without; 8.31, 9.21 s
/// with), then with this (medians of 6 paired runs 9.22 → 8.67 s).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod heap {
    use std::sync::atomic::{AtomicUsize, Ordering};
    extern "C" {
        fn sbrk(increment: isize) -> *mut libc::c_void;
    }
    /// End of the heap already advised; 0 until `start`.
    static ADVISED: AtomicUsize = AtomicUsize::new(0);
    /// The heap grows by at least this much at a time, so that 2 MiB ranges lie wholly inside it
    /// when first touched (a huge page is given only to a whole aligned range).
    const PAD: i32 = 32 << 20;

    fn top() -> usize {
        // SAFETY: sbrk(0) only reads the current break.
        unsafe { sbrk(0) as usize }
    }
    /// From now on advise what the heap grows by (the heap below is left as it is).
    pub fn start() {
        if ADVISED.compare_exchange(0, top(), Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            // SAFETY: a tuning parameter of the C library's allocator; no memory is touched.
            unsafe { libc::mallopt(libc::M_TOP_PAD, PAD) };
        }
    }
    #[inline]
    pub fn grown() {
        let done = ADVISED.load(Ordering::Relaxed);
        if done == 0 {
            return;
        }
        let top = top();
        if top > done {
            advance(done, top);
        }
    }
    #[cold]
    #[inline(never)]
    fn advance(done: usize, top: usize) {
        // another thread may have advised it meanwhile
        if ADVISED.compare_exchange(done, top, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            super::advise_pages(done, top - done);
        }
    }
}
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod heap {
    pub fn start() {}
    #[inline]
    pub fn grown() {}
}

/// Put the small blocks this process allocates from now on on huge pages too (`heap`): called
/// when a large fabric is built (`Fabric::is_large`). Once on, it stays on for the process.
pub fn advise_heap() {
    heap::start();
}

#[cold]
#[inline(never)]
fn advise_pages(addr: usize, size: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let (start, end) = ((addr + PAGE - 1) & !(PAGE - 1), (addr + size) & !(PAGE - 1));
        if end > start {
            // SAFETY: the range lies within a live allocation of ours; MADV_HUGEPAGE changes
            // no content, and its failure (no THP in this kernel) is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (addr, size);
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_buffers_are_usable_after_advice() {
        // allocate, grow and fill a buffer across the threshold through the global allocator
        let mut v: Vec<u64> = Vec::with_capacity(super::HUGE_FROM / 8 + 1);
        v.extend(0..(super::HUGE_FROM / 8 + 1) as u64);
        v.reserve(super::HUGE_FROM);
        v.extend(0..super::HUGE_FROM as u64 / 8);
        assert_eq!(v[12345], 12345);
        assert_eq!(v.len(), super::HUGE_FROM / 4 + 1);
        let z = vec![0u8; super::HUGE_FROM * 2];
        assert!(z.iter().all(|&b| b == 0));
    }
}
