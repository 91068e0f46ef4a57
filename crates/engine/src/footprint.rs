//! Where a run's memory went: the bytes each of the engine's large structures holds at the end
//! of a run (their peak, since none of them shrinks), counted from lengths and capacities. For
//! benchmarks and `docs/benchmarks.md` (memory per host, port, flow and packet); never part of
//! the results' tables or digests.

use crate::core::Core;
use crate::fabric::Fabric;
use crate::transport::Transport;

/// Bytes held by each structure at the end of a run, and the packet pool's peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Packets the pool ever held at once (its slots; freed ones are reused, never returned).
    pub pool_peak_packets: u64,
    /// Packet headers and INT stacks of those slots, and the free list's capacity.
    pub pool_bytes: u64,
    /// The event queue: the wheel's slot buffers (each keeps its peak), the current slot and
    /// the heaps.
    pub sched_bytes: u64,
    /// Egress port structs.
    pub port_bytes: u64,
    /// The ports' queue and link ring buffers (each keeps its peak, rounded up to a power of 2).
    pub port_ring_bytes: u64,
    /// Topology: nodes, ports' descriptions and names, routing tables.
    pub network_bytes: u64,
    /// Transport endpoints with their controllers' state.
    pub flow_bytes: u64,
}

impl Footprint {
    pub fn of(core: &Core, fabric: &Fabric, tp: &Transport) -> Footprint {
        let pool = &core.pool;
        let ring_bytes: usize = fabric
            .ports
            .iter()
            .map(|p| p.queue.ring_bytes() + p.link.capacity() * std::mem::size_of::<(crate::time::Time, crate::packet::PktId)>())
            .sum();
        let flow_bytes: usize = tp.flows.iter().map(|f| std::mem::size_of_val(f) + std::mem::size_of_val(&*f.tx.cc)).sum();
        Footprint {
            pool_peak_packets: pool.slots_len() as u64,
            pool_bytes: pool.bytes() as u64,
            sched_bytes: core.sched.bytes() as u64,
            port_bytes: (fabric.ports.len() * std::mem::size_of::<crate::fabric::port::EgressPort>()) as u64,
            port_ring_bytes: ring_bytes as u64,
            network_bytes: fabric.net.bytes() as u64,
            flow_bytes: flow_bytes as u64,
        }
    }
}
