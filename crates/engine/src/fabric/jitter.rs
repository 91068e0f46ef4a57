//! Host timing noise (`host.jitter`): each packet a host puts on its link reaches the far end an
//! extra uniform random time in [0, jitter) later, never before the packet sent ahead of it (the
//! link stays FIFO, so a flow's packets keep their order).
//!
//! Why: a simulated host sends at exact instants, and senders of equal rate and packet size
//! arrive at a full drop-tail queue in a fixed phase, so the same sender's packets are the ones
//! that find it full, run after run (Floyd and Jacobson, "On Traffic Phase Effects in
//! Packet-Switched Gateways", 1992, §1 and §4: a random processing time at the sources, up to one
//! bottleneck service time, removes the bias). A real host's stack adds such noise by itself
//! (interrupts, softirq batching, scheduling); `docs/testbed.md` measures what it does to the
//! simulator's CUBIC fairness beside Linux's.
//!
//! Each host draws from its own generator, seeded from the run's seed and the host id, so the
//! draws do not depend on the order in which hosts send: same seed, same bytes.

use crate::core::HostId;
use crate::rng::{mix, Rng};
use crate::time::Time;

/// Salt of the jitter generators' seeds (distinct from the switches' and the workload's streams).
const STREAM: u64 = 0x6a69_7474_6572; // "jitter"

pub struct HostJitter {
    max_ps: u64,
    rng: Vec<Rng>,
}

impl HostJitter {
    /// Noise of up to `max_ps` on the links of `hosts` hosts; None when `max_ps` is 0.
    pub fn new(max_ps: u64, hosts: u32, seed: u64) -> Option<Box<Self>> {
        (max_ps > 0).then(|| {
            let rng = (0..hosts as u64).map(|h| Rng::new(mix(seed ^ STREAM ^ (h << 32)))).collect();
            Box::new(HostJitter { max_ps, rng })
        })
    }

    /// When a packet of `host` that would arrive at `arrive` arrives: later by its draw, and not
    /// before `last`, the arrival of the packet ahead of it on the same link.
    #[inline]
    pub fn arrival(&mut self, host: HostId, arrive: Time, last: Option<Time>) -> Time {
        let extra = (self.rng[host as usize].uniform() * self.max_ps as f64) as u64;
        (arrive + extra).max(last.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_off() {
        assert!(HostJitter::new(0, 4, 1).is_none());
    }

    #[test]
    fn draws_cover_the_range_uniformly() {
        // packets 100 µs apart, noise up to 84 µs: the link's order never holds one back
        let mut j = HostJitter::new(84_000_000, 1, 7).unwrap();
        let (mut last, mut bins) = (None, [0u32; 4]);
        for k in 0..10_000u64 {
            let base = k * 100_000_000;
            let t = j.arrival(0, base, last);
            let extra = t - base;
            assert!(extra < 84_000_000, "packet {k}: {extra} ps of noise");
            bins[(extra / 21_000_000) as usize] += 1;
            last = Some(t);
        }
        // each quarter of [0, 84 µs) holds 2 500 ± 5 σ (σ = √(10 000 · 1/4 · 3/4) = 43)
        for (q, &n) in bins.iter().enumerate() {
            assert!((2_285..=2_715).contains(&n), "quarter {q}: {n} of 10 000");
        }
    }

    #[test]
    fn packets_closer_than_the_noise_keep_their_order() {
        let mut j = HostJitter::new(84_000_000, 1, 7).unwrap();
        let (mut last, mut held) = (None, 0);
        for k in 0..10_000u64 {
            let base = k * 10_000_000; // 10 µs apart
            let t = j.arrival(0, base, last);
            assert!(t >= base && t >= last.unwrap_or(0), "packet {k} at {t}: before {base} or {last:?}");
            held += (Some(t) == last) as u32;
            last = Some(t);
        }
        assert!(held > 0, "no packet was held behind the one ahead: the FIFO rule was not exercised");
    }

    #[test]
    fn each_host_has_its_own_stream() {
        let mut a = HostJitter::new(1_000_000, 2, 7).unwrap();
        let mut b = HostJitter::new(1_000_000, 2, 7).unwrap();
        // host 1's draws do not depend on how many host 0 made before
        for _ in 0..5 {
            a.arrival(0, 0, None);
        }
        let xa: Vec<_> = (0..5).map(|_| a.arrival(1, 0, None)).collect();
        let xb: Vec<_> = (0..5).map(|_| b.arrival(1, 0, None)).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, (0..5).map(|_| b.arrival(0, 0, None)).collect::<Vec<_>>());
    }
}
