//! In-band network telemetry, stamped at egress dequeue (PowerTCP §3.3, HPCC Fig. 4), and the
//! per-hop queueing delay field (Poseidon's MPD).

use crate::config::IntBytesMode;
use crate::packet::{IntHop, IntStack, Packet, MAX_INT_HOPS};
use crate::time::Time;

/// What the switches stamp.
#[derive(Clone, Copy, Debug)]
pub struct IntPolicy {
    /// Push INT records (the INT header is on); per-hop delay is stamped by INT switches either way.
    pub records: bool,
    pub bytes_mode: IntBytesMode,
}

/// Egress state the INT record reads, right after the packet's dequeue.
pub struct EgressView {
    pub queue_bytes: u64,
    pub tx_bytes: u64,
    pub rx_bytes: u64,
    pub rate_bps: u64,
}

/// Stamp a data packet leaving an INT-capable switch at `now` after `hop_delay` in its queue.
#[inline]
pub fn stamp(policy: IntPolicy, p: &mut Packet, int: &mut IntStack, now: Time, hop_delay: Time, port: EgressView) {
    if hop_delay > p.max_hop_delay {
        p.max_hop_delay = hop_delay;
    }
    if policy.records && (p.n_hops as usize) < MAX_INT_HOPS {
        let counter = match policy.bytes_mode {
            IntBytesMode::Tx => port.tx_bytes + p.size as u64,
            IntBytesMode::Rx => port.rx_bytes,
        };
        int[p.n_hops as usize] = IntHop { qlen: port.queue_bytes, tx_bytes: counter, ts: now, rate_bps: port.rate_bps };
        p.n_hops += 1;
    }
}
