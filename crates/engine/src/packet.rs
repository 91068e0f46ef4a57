//! Packets: small, copyable records living in a pool; queues and links hold pool indices.

use crate::time::Time;

/// Maximum INT hops carried by one packet (HPCC/PowerTCP header holds 5).
pub const MAX_INT_HOPS: usize = 5;

/// One switch egress's telemetry record, pushed at dequeue (PowerTCP §3.3, HPCC Fig. 4).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntHop {
    /// Egress queue bytes (all priorities) right after this packet's dequeue.
    pub qlen: u64,
    /// Cumulative bytes the egress port has transmitted (or received into its queue, artifact mode).
    pub tx_bytes: u64,
    /// Dequeue timestamp (ps).
    pub ts: Time,
    /// Egress link rate (bits/s).
    pub rate_bps: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data,
    Ack,
    Nack,
}

/// A packet. Data packets collect INT; the receiver turns the same record into the ACK, so the
/// ACK echoes the forward path's INT, ECN mark and send timestamp without copying.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: Kind,
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// Payload bytes (data) or 0.
    pub payload: u32,
    /// Data: first byte's sequence number. ACK/NACK: cumulative ack (next expected byte).
    pub seq: u64,
    /// ACK: the sequence number of the data packet being acknowledged.
    pub data_seq: u64,
    /// Send time of the data packet (echoed by the ACK).
    pub sent_at: Time,
    /// ECN: ECN-capable transport.
    pub ect: bool,
    /// ECN: congestion experienced (set by switches on data, echoed on ACKs).
    pub ce: bool,
    /// Switch priority (0 highest).
    pub prio: u8,
    pub n_hops: u8,
    /// Maximum per-hop queueing delay seen on the forward path (Poseidon's MPD), ps.
    pub max_hop_delay: Time,
    /// Time the packet entered its current queue (for per-hop delay).
    pub enqueued_at: Time,
    pub int: [IntHop; MAX_INT_HOPS],
}

impl Packet {
    pub const fn empty() -> Self {
        Packet {
            kind: Kind::Data,
            flow: 0,
            src: 0,
            dst: 0,
            size: 0,
            payload: 0,
            seq: 0,
            data_seq: 0,
            sent_at: 0,
            ect: false,
            ce: false,
            prio: 0,
            n_hops: 0,
            max_hop_delay: 0,
            enqueued_at: 0,
            int: [IntHop { qlen: 0, tx_bytes: 0, ts: 0, rate_bps: 0 }; MAX_INT_HOPS],
        }
    }
}

/// Index of a packet in the pool.
pub type PktId = u32;

/// A free-list pool: after warm-up no packet causes a heap allocation.
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
}

impl Default for PacketPool {
    fn default() -> Self {
        Self::new()
    }
}

impl PacketPool {
    pub fn new() -> Self {
        PacketPool { slots: Vec::with_capacity(4096), free: Vec::with_capacity(4096) }
    }
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }
    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.free.push(id);
    }
    /// Hint the CPU to fetch a packet that will be touched soon (the next one on a link or in
    /// a queue): packets wait long enough in queues to fall out of the caches.
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.slots.get(id as usize) {
            let ptr = p as *const Packet as *const i8;
            // SAFETY: prefetch is a hint on a valid address; it never faults or reads memory.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(ptr, _MM_HINT_T0);
                _mm_prefetch(ptr.add(64), _MM_HINT_T0);
                _mm_prefetch(ptr.add(128), _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = id;
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    /// Packets currently allocated (in queues, on links or in NICs).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
