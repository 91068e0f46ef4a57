//! Packets: small, copyable records living in a pool; queues and links hold pool indices.

use crate::time::Time;

/// Strict priorities per egress port (0 is served first), as Homa's switches.
pub const PRIORITIES: usize = 8;

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

/// A packet header: one cache line. Its INT stack lives beside it in the pool (same index), so
/// forwarding touches only this line. Data packets collect INT; the receiver turns the same slot
/// into the ACK, so the ACK echoes the forward path's INT, ECN mark and send timestamp without
/// copying. The source host is not carried: it is the flow's (`flow` indexes the transport's
/// endpoints); the time a packet entered its current queue is kept by the queue, not here.
/// The line is full: 20 bytes of small fields, `ingress` in the last four free bytes, then five
/// 8-byte fields (`size_of` is asserted to be 64 below); a new field must take bytes from another.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Packet {
    pub flow: u32,
    /// Destination host.
    pub dst: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// Payload bytes (data) or 0; on the ACK of a flow with SACK recovery, the length of the
    /// SACK block at `data_seq` (the acknowledged packet was kept out of order), else 0.
    pub payload: u16,
    pub kind: Kind,
    /// ECN: ECN-capable transport.
    pub ect: bool,
    /// ECN: congestion experienced (set by switches on data, echoed on ACKs).
    pub ce: bool,
    /// Switch priority (0 highest).
    pub prio: u8,
    pub n_hops: u8,
    /// ACK of a receiver-driven flow (Homa): the priority the receiver grants for scheduled bytes.
    pub grant_prio: u8,
    /// The switch port this packet entered its current switch by (PFC ingress accounting).
    pub ingress: u32,
    /// Data: first byte's sequence number. ACK/NACK: cumulative ack (next expected byte).
    pub seq: u64,
    /// ACK: the sequence number of the data packet being acknowledged.
    pub data_seq: u64,
    /// Send time of the data packet (echoed by the ACK).
    pub sent_at: Time,
    /// Maximum per-hop queueing delay seen on the forward path (Poseidon's MPD), ps.
    pub max_hop_delay: Time,
    /// ACK of a receiver-driven flow (Homa): the receiver has granted bytes up to this offset.
    pub grant_offset: u64,
}

/// The INT stack of one packet (`n_hops` entries are valid).
pub type IntStack = [IntHop; MAX_INT_HOPS];

impl Packet {
    pub const fn empty() -> Self {
        Packet {
            kind: Kind::Data,
            flow: 0,
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
            grant_prio: 0,
            ingress: 0,
            max_hop_delay: 0,
            grant_offset: 0,
        }
    }
}

/// Index of a packet in the pool.
pub type PktId = u32;

/// A free-list pool: after warm-up no packet causes a heap allocation.
pub struct PacketPool {
    slots: Vec<Packet>,
    ints: Vec<IntStack>,
    free: Vec<PktId>,
}

impl Default for PacketPool {
    fn default() -> Self {
        Self::new()
    }
}

impl PacketPool {
    pub fn new() -> Self {
        PacketPool { slots: Vec::with_capacity(4096), ints: Vec::with_capacity(4096), free: Vec::with_capacity(4096) }
    }
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            self.ints.push([IntHop::default(); MAX_INT_HOPS]);
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
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::lines(p, 1);
        }
    }

    /// `prefetch`, and the packet's INT stack (a switch stamps it at dequeue, the sender's
    /// controller reads it from the ACK).
    #[inline]
    pub fn prefetch_with_int(&self, id: PktId) {
        self.prefetch(id);
        if let Some(i) = self.ints.get(id as usize) {
            crate::prefetch::lines(i, 3);
        }
    }

    /// The INT record a switch will stamp next into packet `id`'s stack (`hop` = its
    /// `n_hops`): at an idle port the switch stamps on arrival.
    #[inline]
    pub fn prefetch_int_hop(&self, id: PktId, hop: u8) {
        if let Some(h) = self.ints.get(id as usize).and_then(|i| i.get(hop as usize)) {
            crate::prefetch::object(h);
        }
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    #[inline]
    pub fn int(&self, id: PktId) -> &IntStack {
        &self.ints[id as usize]
    }
    /// Header and INT stack of one packet, both mutable.
    #[inline]
    pub fn get_with_int_mut(&mut self, id: PktId) -> (&mut Packet, &mut IntStack) {
        (&mut self.slots[id as usize], &mut self.ints[id as usize])
    }
    /// Packets currently allocated (in queues, on links or in NICs).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    /// Slots ever allocated: the most packets alive at once.
    pub fn slots_len(&self) -> usize {
        self.slots.len()
    }
    /// Bytes of the slots in use (header and INT stack each) and of the free list.
    pub fn bytes(&self) -> usize {
        self.slots.len() * (std::mem::size_of::<Packet>() + std::mem::size_of::<IntStack>())
            + self.free.capacity() * std::mem::size_of::<PktId>()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_packet_header_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 64);
    }
}
