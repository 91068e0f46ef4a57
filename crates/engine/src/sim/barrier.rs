//! The barrier of a threaded run (`threads.rs`): every thread waits until all have arrived.
//!
//! A threaded run meets at a barrier three times per window, and a window is at most one
//! lookahead (1 µs of simulated time on the catalog's fabrics): tens of thousands of meetings
//! in a run of a few seconds. `std::sync::Barrier` puts every waiting thread to sleep (a futex
//! wait and a wake-up per thread per meeting, microseconds each in a virtual machine); this one
//! first spins for up to `SPIN` — on a machine with a core per thread the others usually arrive
//! within it — and only then sleeps on a condition variable. The last thread to arrive wakes
//! the sleepers, and makes the system call only when one is asleep.
//!
//! Why no wake-up is lost: a sleeper counts itself in `sleepers` and then reads `generation`;
//! the last arrival writes `generation` and then reads `sleepers` (all `SeqCst`, so one of the
//! two sees the other's write). If the arrival sees no sleeper, the sleeper sees the new
//! generation and does not wait; if it sees one, it notifies under the lock, which the sleeper
//! holds from its check until it waits.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a thread spins before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

pub(crate) struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    pub(crate) fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Wait until all `n` threads have called `wait`. Everything a thread wrote before its call
    /// is visible to every thread after theirs.
    pub(crate) fn wait(&self) {
        let gen = self.generation.load(SeqCst);
        if self.arrived.fetch_add(1, SeqCst) + 1 == self.n {
            // the last one: the others cannot call `wait` again before the generation changes
            self.arrived.store(0, SeqCst);
            self.generation.store(gen.wrapping_add(1), SeqCst);
            if self.sleepers.load(SeqCst) > 0 {
                let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.wake.notify_all();
            }
            return;
        }
        let start = Instant::now();
        let mut spins = 0u32;
        while self.generation.load(SeqCst) == gen {
            std::hint::spin_loop();
            spins += 1;
            if spins % 256 == 0 && start.elapsed() > SPIN {
                return self.sleep(gen);
            }
        }
    }

    #[cold]
    fn sleep(&self, gen: usize) {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, SeqCst);
        while self.generation.load(SeqCst) == gen {
            g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// No thread leaves a meeting before every thread has arrived at it: each adds to a
    /// counter before the barrier and reads it after, and must see all of the round's adds;
    /// some rounds make one thread late by more than the spin, so the sleeping path runs too.
    #[test]
    fn no_thread_passes_before_all_arrive() {
        for n in [2usize, 3, 5] {
            let b = SpinBarrier::new(n);
            let count = AtomicU64::new(0);
            let rounds = 300u64;
            std::thread::scope(|s| {
                for t in 0..n {
                    let (b, count) = (&b, &count);
                    s.spawn(move || {
                        for r in 0..rounds {
                            if r % 50 == 7 && t == r as usize % n {
                                std::thread::sleep(Duration::from_millis(2));
                            }
                            count.fetch_add(1, SeqCst);
                            b.wait();
                            assert_eq!(count.load(SeqCst), (r + 1) * n as u64, "a thread passed round {r} early");
                            b.wait();
                        }
                    });
                }
            });
            assert_eq!(count.load(SeqCst), rounds * n as u64);
        }
    }
}
