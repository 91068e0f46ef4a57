//! What every layer shares: the clock and event queue, the packet pool and the run's counters.
//! Handlers take `&mut Core` beside their own state, so layers borrow disjointly.

use crate::packet::PacketPool;
use crate::results::Summary;
use crate::sched::Scheduler;
use crate::telemetry::log_events::EventLog;

/// Host index (hosts are topology nodes 0..H).
pub type HostId = u32;
/// Topology node index (hosts first, then switches).
pub type NodeId = u32;
/// Egress port index (port 2k goes a→b on link k, 2k+1 goes b→a).
pub type PortId = u32;
/// Transport endpoint (flow) index.
pub type FlowId = u32;

pub struct Core {
    pub sched: Scheduler,
    pub pool: PacketPool,
    /// Counters of the run (the summary of the results).
    pub stats: Summary,
    /// Seed of the run (ECMP hashing, per-switch random streams).
    pub seed: u64,
    /// The debug log of the NIC, fabric and transport events (`[metrics] log`); None = off.
    pub log: Option<Box<EventLog>>,
}

impl Core {
    pub fn new(seed: u64) -> Self {
        Core { sched: Scheduler::new(), pool: PacketPool::new(), stats: Summary::default(), seed, log: None }
    }
}
