//! An egress port: strict-priority queues, the serialiser and the link it feeds.

use std::collections::VecDeque;

use crate::core::{HostId, NodeId};
use crate::packet::{PktId, PRIORITIES};
use crate::time::{tx_time, Time};

/// One priority's FIFO: (packet, the time it entered the queue, for per-hop queueing delay).
type Fifo = VecDeque<(PktId, Time)>;

/// Egress queues of one port, one FIFO per priority, with a bitmap of the non-empty ones.
/// Priority 0 is inline; priorities 1–7 (Homa, PFC classes) are allocated together on their
/// first packet, so a port of a fabric that uses one priority carries one FIFO header (32 B)
/// instead of eight (256 B): fewer cache lines per port, and at 8192 hosts 10 MB less.
#[derive(Default)]
pub struct PrioQueues {
    q0: Fifo,
    rest: Option<Box<[Fifo; PRIORITIES - 1]>>,
    nonempty: u8,
}

impl PrioQueues {
    #[inline]
    pub fn push(&mut self, prio: u8, pkt: PktId, now: Time) {
        let p = (prio as usize).min(PRIORITIES - 1);
        self.fifo_mut(p).push_back((pkt, now));
        self.nonempty |= 1 << p;
    }
    /// Remove the head of the highest non-empty priority that is not `paused` (a bitmap):
    /// (packet, its enqueue time, the packet after it, to prefetch).
    #[inline]
    pub fn pop(&mut self, paused: u8) -> Option<(PktId, Time, Option<PktId>)> {
        let p = self.first_ready(paused)?;
        let q = self.fifo_mut(p);
        let (pkt, at) = q.pop_front()?;
        let next = q.front().map(|e| e.0);
        if next.is_none() {
            self.nonempty &= !(1 << p);
        }
        Some((pkt, at, next))
    }
    /// The packet `pop(paused)` would return, without removing it.
    #[inline]
    pub fn peek(&self, paused: u8) -> Option<PktId> {
        self.fifo(self.first_ready(paused)?)?.front().map(|e| e.0)
    }
    /// Prefetch the entry `peek(paused)` would read (look-ahead, `Fabric::prefetch_ring_head`).
    #[inline]
    pub fn prefetch_head(&self, paused: u8) {
        if let Some(e) = self.first_ready(paused).and_then(|p| self.fifo(p)).and_then(|q| q.front()) {
            crate::prefetch::lines(e, 1);
        }
    }
    /// The FIFO of priority `p`, if it exists.
    #[inline]
    fn fifo(&self, p: usize) -> Option<&Fifo> {
        if p == 0 {
            Some(&self.q0)
        } else {
            self.rest.as_deref().map(|r| &r[p - 1])
        }
    }
    /// The FIFO of priority `p`, allocating priorities 1–7 on first use.
    #[inline]
    fn fifo_mut(&mut self, p: usize) -> &mut Fifo {
        if p == 0 {
            &mut self.q0
        } else {
            &mut self.rest.get_or_insert_with(Default::default)[p - 1]
        }
    }
    /// The highest non-empty priority that is not `paused`.
    #[inline]
    fn first_ready(&self, paused: u8) -> Option<usize> {
        let ready = self.nonempty & !paused;
        (ready != 0).then(|| ready.trailing_zeros() as usize)
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nonempty == 0
    }
    /// Some priority that is not `paused` has a packet.
    #[inline]
    pub fn has_ready(&self, paused: u8) -> bool {
        self.nonempty & !paused != 0
    }
    /// Bytes of the ring buffers (their capacity: each keeps its peak).
    pub fn ring_bytes(&self) -> usize {
        let rest = self
            .rest
            .as_deref()
            .map_or(0, |r| std::mem::size_of_val(r) + r.iter().map(|q| q.capacity()).sum::<usize>() * std::mem::size_of::<(PktId, Time)>());
        self.q0.capacity() * std::mem::size_of::<(PktId, Time)>() + rest
    }
    /// Every queued packet, highest priority first.
    pub fn iter(&self) -> impl Iterator<Item = PktId> + '_ {
        (0..PRIORITIES).filter_map(|p| self.fifo(p)).flat_map(|q| q.iter().map(|e| e.0))
    }
    /// Every queued packet's id, to move the packets to another pool (the end of a threaded run).
    pub fn ids_mut(&mut self) -> impl Iterator<Item = &mut PktId> + '_ {
        let rest = self.rest.as_deref_mut().into_iter().flat_map(|r| r.iter_mut());
        std::iter::once(&mut self.q0).chain(rest).flat_map(|q| q.iter_mut().map(|e| &mut e.0))
    }
    /// The queued packets of priority `prio`, head first.
    pub fn iter_prio(&self, prio: u8) -> impl Iterator<Item = PktId> + '_ {
        self.fifo((prio as usize).min(PRIORITIES - 1)).into_iter().flat_map(|q| q.iter().map(|e| e.0))
    }
}

/// PFC counters of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcCounters {
    pub pauses_sent: u64,
    pub resumes_sent: u64,
    /// Total time paused on any priority (ps), closed pauses only.
    pub paused_ps: u64,
}

/// Packet counters of one port, for the end-of-run conservation checks (`crate::invariants`):
/// what was offered to its egress queue, what it dropped, and what its link handed to the peer.
/// Bytes sent are `EgressPort::tx_bytes`; a port's queue and link hold the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCounters {
    /// Packets (and bytes) offered to this port: routed to it by its switch (admitted or not), or
    /// generated by its host.
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    /// Offered packets the port's buffer refused.
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
    /// Packets whose serialisation started (their bytes: `tx_bytes`).
    pub sent_pkts: u64,
    /// Packets (and bytes) the link delivered to the peer.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
}

impl PortCounters {
    #[inline]
    pub fn arrive(&mut self, size: u64) {
        self.arrived_pkts += 1;
        self.arrived_bytes += size;
    }
    #[inline]
    pub fn drop(&mut self, size: u64) {
        self.dropped_pkts += 1;
        self.dropped_bytes += size;
    }
    #[inline]
    pub fn deliver(&mut self, size: u64) {
        self.delivered_pkts += 1;
        self.delivered_bytes += size;
    }
}

/// The node at the far end of a link, or the owner of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Host(HostId),
    /// A switch: its topology node and its index among switches.
    Switch {
        node: NodeId,
        index: u32,
    },
}

pub struct EgressPort {
    pub queue: PrioQueues,
    pub queue_bytes: u64,
    pub tx_bytes: u64,
    pub rx_bytes: u64,
    /// The port serialises until this time.
    pub free_at: Time,
    /// A `TxDone` event is scheduled for `free_at` (to serve the queue).
    pub kick_pending: bool,
    /// Priorities paused by the peer (PFC), a bitmap.
    pub paused: u8,
    /// The link joins two partitions of a threaded run (`sim::threads`): its packets wait in
    /// `Fabric::staged` for the barrier and the sender queues every arrival.
    pub cut: bool,
    /// When `paused` last became non-zero.
    pub paused_since: Time,
    /// PFC counters: frames this port sent upstream, and time it spent paused (any priority).
    pub pfc: PfcCounters,
    /// Packets offered, dropped, sent and delivered (conservation checks).
    pub count: PortCounters,
    /// Packets being serialised or propagating: (arrival time at the peer, packet). A packet
    /// enters the link when its serialisation starts; the link is FIFO, so only its head is
    /// in the event queue.
    pub link: VecDeque<(Time, PktId)>,
    pub rate_bps: u64,
    pub delay: Time,
    pub peer: Node,
    pub owner: Node,
    /// Serialisation times of the two sizes a port sees most (full data packets and ACKs),
    /// as (size, time) pairs; other sizes are computed.
    tx_cache: [(u32, Time); 2],
}

impl EgressPort {
    pub fn new(rate_bps: u64, delay: Time, owner: Node, peer: Node, common_sizes: [u64; 2]) -> Self {
        EgressPort {
            queue: PrioQueues::default(),
            queue_bytes: 0,
            tx_bytes: 0,
            rx_bytes: 0,
            free_at: 0,
            kick_pending: false,
            paused: 0,
            cut: false,
            paused_since: 0,
            pfc: PfcCounters::default(),
            count: PortCounters::default(),
            link: VecDeque::new(),
            rate_bps,
            delay,
            peer,
            owner,
            tx_cache: common_sizes.map(|s| (s as u32, tx_time(s, rate_bps))),
        }
    }

    /// Serialisation time of `size` bytes on this port.
    #[inline]
    pub fn ser_time(&self, size: u32) -> Time {
        if self.tx_cache[0].0 == size {
            self.tx_cache[0].1
        } else if self.tx_cache[1].0 == size {
            self.tx_cache[1].1
        } else {
            tx_time(size as u64, self.rate_bps)
        }
    }
}
