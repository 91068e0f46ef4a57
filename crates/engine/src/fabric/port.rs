//! An egress port: strict-priority queues, the serialiser and the link it feeds.

use std::collections::VecDeque;

use crate::core::{HostId, NodeId};
use crate::packet::{PktId, PRIORITIES};
use crate::time::{tx_time, Time};

/// Egress queues of one port, one FIFO per priority, with a bitmap of the non-empty ones. Each
/// entry keeps the time its packet entered the queue (for per-hop queueing delay).
#[derive(Default)]
pub struct PrioQueues {
    q: [VecDeque<(PktId, Time)>; PRIORITIES],
    nonempty: u8,
}

impl PrioQueues {
    #[inline]
    pub fn push(&mut self, prio: u8, pkt: PktId, now: Time) {
        let p = (prio as usize).min(PRIORITIES - 1);
        self.q[p].push_back((pkt, now));
        self.nonempty |= 1 << p;
    }
    /// Remove the head of the highest non-empty priority that is not `paused` (a bitmap):
    /// (packet, its enqueue time, the packet after it, to prefetch).
    #[inline]
    pub fn pop(&mut self, paused: u8) -> Option<(PktId, Time, Option<PktId>)> {
        let p = self.first_ready(paused)?;
        let (pkt, at) = self.q[p].pop_front()?;
        if self.q[p].is_empty() {
            self.nonempty &= !(1 << p);
        }
        Some((pkt, at, self.q[p].front().map(|e| e.0)))
    }
    /// The packet `pop(paused)` would return, without removing it.
    #[inline]
    pub fn peek(&self, paused: u8) -> Option<PktId> {
        self.q[self.first_ready(paused)?].front().map(|e| e.0)
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
    /// The queued packets of priority `prio`, head first.
    pub fn iter_prio(&self, prio: u8) -> impl Iterator<Item = PktId> + '_ {
        self.q[(prio as usize).min(PRIORITIES - 1)].iter().map(|e| e.0)
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
    /// When `paused` last became non-zero.
    pub paused_since: Time,
    /// PFC counters: frames this port sent upstream, and time it spent paused (any priority).
    pub pfc: PfcCounters,
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
            paused_since: 0,
            pfc: PfcCounters::default(),
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
