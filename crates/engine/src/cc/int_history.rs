//! Per-hop rates from INT by differencing: a flow keeps the INT stack of its previous ACK and,
//! for each hop whose timestamp advanced, derives rates over Δt (HPCC Algorithm 1
//! MeasureInflight; PowerTCP Algorithm 1 lines 15–29). The law's per-hop quantity is the
//! caller's; the bottleneck is the hop where it is largest.

use crate::config::IntBytesMode;
use crate::packet::{IntHop, MAX_INT_HOPS};
use crate::time::secs;

/// Bytes the hop transmitted between two of its records. Its counter counts bytes sent
/// (including the stamped packet) or bytes received into the queue (`switch.int_bytes`); every
/// record is stamped after its packet's dequeue, so received = sent + the queue left behind, and
/// either counter gives both quantities exactly.
#[inline]
pub fn bytes_sent(h: &IntHop, p: &IntHop, counter: IntBytesMode) -> f64 {
    let d = h.tx_bytes.wrapping_sub(p.tx_bytes) as f64;
    match counter {
        IntBytesMode::Tx => d,
        IntBytesMode::Rx => d - (h.qlen as f64 - p.qlen as f64),
    }
}

/// Bytes that arrived into the hop's queue between two of its records (see `bytes_sent`).
#[inline]
pub fn bytes_arrived(h: &IntHop, p: &IntHop, counter: IntBytesMode) -> f64 {
    let d = h.tx_bytes.wrapping_sub(p.tx_bytes) as f64;
    match counter {
        IntBytesMode::Tx => d + (h.qlen as f64 - p.qlen as f64),
        IntBytesMode::Rx => d,
    }
}

#[derive(Clone, Debug)]
pub struct IntHistory {
    prev: [IntHop; MAX_INT_HOPS],
    n: usize,
}

impl Default for IntHistory {
    fn default() -> Self {
        IntHistory { prev: [IntHop::default(); MAX_INT_HOPS], n: 0 }
    }
}

impl IntHistory {
    /// Forget the previous stack (the path changed): the next stack only primes the history.
    pub fn reset(&mut self) {
        self.n = 0;
    }

    /// For every hop whose timestamp advanced since the previous stack, `metric(hop, the hop's
    /// previous record, Δt in seconds)`; returns the largest value (the first on ties) with its
    /// Δt, and remembers `hops` for the next call. None on a flow's first stack, or when no hop
    /// advanced.
    #[inline]
    pub fn max_per_hop(&mut self, hops: &[IntHop], metric: impl Fn(&IntHop, &IntHop, f64) -> f64) -> Option<(f64, f64)> {
        let n = hops.len().min(self.n);
        let mut best: Option<(f64, f64)> = None;
        for (h, p) in hops[..n].iter().zip(&self.prev[..n]) {
            if h.ts <= p.ts {
                continue;
            }
            let dt = secs(h.ts - p.ts);
            let x = metric(h, p, dt);
            if best.map_or(true, |(b, _)| x > b) {
                best = Some((x, dt));
            }
        }
        self.prev[..hops.len()].copy_from_slice(hops);
        self.n = hops.len();
        best
    }
}

impl IntHistory {
    /// Before a flow's first stack: pretend the previous stack was the RDMA artifact's
    /// zero-initialised hop records (`RdmaQueuePair::hp.hop` in inet-tub/ns3-datacenter
    /// rdma-queue-pair.h), so the first stack is differenced against them with the artifact's INT
    /// field widths (int-header.h `GetTimeDelta`, `GetBytesDelta`): Δt = the timestamp's 24 bits of
    /// ns, Δbytes = the byte counter's 20 bits of 128-B units. No effect once a stack was seen.
    pub fn prime_as_artifact_zero(&mut self, hops: &[IntHop]) {
        if self.n > 0 {
            return;
        }
        let n = hops.len().min(MAX_INT_HOPS);
        for (p, h) in self.prev[..n].iter_mut().zip(hops) {
            let dt_ns = (h.ts / 1000) % (1 << 24);
            let bytes = (h.tx_bytes / 128) % (1 << 20) * 128;
            *p = IntHop { qlen: 0, tx_bytes: h.tx_bytes - bytes, ts: h.ts - dt_ns * 1000, rate_bps: h.rate_bps };
        }
        self.n = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(ts: u64, qlen: u64) -> IntHop {
        IntHop { qlen, tx_bytes: 0, ts, rate_bps: 1 }
    }

    #[test]
    fn an_artifact_zero_record_gives_the_wrapped_first_deltas() {
        let mut h = IntHistory::default();
        // 20 ms: 20 000 000 ns mod 2^24 = 3 222 784 ns; 200 MB: 1 562 500 units of 128 B mod 2^20 = 513 924
        let first = [IntHop { qlen: 9, tx_bytes: 200_000_000, ts: 20_000_000_000, rate_bps: 1 }];
        h.prime_as_artifact_zero(&first);
        let got = h.max_per_hop(&first, |c, p, _| (c.tx_bytes - p.tx_bytes) as f64);
        assert_eq!(got, Some((513_924.0 * 128.0, secs(3_222_784_000))));
        // once primed by a real stack, priming does nothing
        h.prime_as_artifact_zero(&[IntHop { qlen: 0, tx_bytes: 0, ts: 0, rate_bps: 1 }]);
        let got =
            h.max_per_hop(&[IntHop { ts: 20_000_001_000, tx_bytes: 200_000_128, ..first[0] }], |c, p, _| (c.tx_bytes - p.tx_bytes) as f64);
        assert_eq!(got, Some((128.0, secs(1000))));
    }

    #[test]
    fn the_first_stack_only_primes_the_history() {
        let mut h = IntHistory::default();
        assert_eq!(h.max_per_hop(&[hop(10, 5)], |c, _, _| c.qlen as f64), None);
        assert_eq!(h.max_per_hop(&[hop(20, 7)], |c, _, _| c.qlen as f64), Some((7.0, secs(10))));
    }

    #[test]
    fn the_largest_hop_wins_and_stale_hops_are_skipped() {
        let mut h = IntHistory::default();
        h.max_per_hop(&[hop(10, 0), hop(10, 0), hop(10, 0)], |_, _, _| 0.0);
        // hop 0 advanced by 5 ps, hop 1 did not advance (skipped despite its larger value), hop 2 by 20 ps
        let got = h.max_per_hop(&[hop(15, 3), hop(10, 99), hop(30, 3)], |c, _, _| c.qlen as f64);
        assert_eq!(got, Some((3.0, secs(5))), "ties keep the first hop");
        // each hop is paired with its own previous record; a longer stack than the previous
        // one: the extra hop has no history yet and is not considered
        let got = h.max_per_hop(&[hop(16, 1), hop(11, 2), hop(31, 3), hop(40, 500)], |c, p, _| (c.qlen + p.qlen) as f64);
        assert_eq!(got, Some((101.0, secs(1))));
    }
}
