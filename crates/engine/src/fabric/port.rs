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
    /// Remove the head of the highest non-empty priority: (packet, its enqueue time, the packet
    /// after it, to prefetch).
    #[inline]
    pub fn pop(&mut self) -> Option<(PktId, Time, Option<PktId>)> {
        if self.nonempty == 0 {
            return None;
        }
        let p = self.nonempty.trailing_zeros() as usize;
        let (pkt, at) = self.q[p].pop_front()?;
        if self.q[p].is_empty() {
            self.nonempty &= !(1 << p);
        }
        Some((pkt, at, self.q[p].front().map(|e| e.0)))
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nonempty == 0
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
