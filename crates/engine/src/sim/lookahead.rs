//! The event loop's look-ahead: cache prefetches for the events about to be handled. The
//! wheel's current slot is sorted, so the next events are known; what they will touch was last
//! touched microseconds of simulated time ago and has usually left L1 (at 8192 hosts, the
//! caches altogether). Only hints: no result depends on them (tests/golden.rs runs every
//! catalog config with the deep look-ahead forced on and compares the digests).

use crate::core::Core;
use crate::fabric::port::Node;
use crate::fabric::Fabric;
use crate::nic::Nics;
use crate::sim::EvKind;
use crate::transport::Transport;

/// Prefetch the packet the next event will move (the wheel's current slot is sorted, so the
/// next event is known): its packet was last touched microseconds of simulated time ago and has
/// usually left L1. Measured (docs/benchmarks.md): prefetching the next events' ports as well
/// cost more instructions than it saved.
///
/// At 8192 hosts reading the next event's port and ring entry here was itself ≈ 28 % of the run
/// (two dependent DRAM misses per event, perf): so the look-ahead is a pipeline — the port of
/// the event three ahead is prefetched by address, the ring entry of the one two ahead from its
/// (then cached) port, and the packet of the next one from its (then cached) ring entry. On a
/// fabric larger than the caches (`Fabric::large`) it starts two events earlier and adds two
/// stages (`prefetch_deep`).
#[inline(always)]
pub(super) fn prefetch_ahead(core: &Core, fabric: &Fabric, nics: &Nics, tp: &Transport) {
    if fabric.large {
        return prefetch_deep(core, fabric, nics, tp);
    }
    prefetch_hop(core, fabric, 2, 1, 0);
}

/// The first three stages of the look-ahead, for the events `port_at`, `ring_at` and `packet_at`
/// ahead: a hop's port, from it the ring entry naming its packet, from that the packet.
#[inline(always)]
fn prefetch_hop(core: &Core, fabric: &Fabric, port_at: usize, ring_at: usize, packet_at: usize) {
    if let Some(e) = core.sched.peek(port_at) {
        if matches!(e.kind(), EvKind::LinkArrive | EvKind::TxDone) {
            fabric.prefetch_port(e.id());
        }
    }
    if let Some(e) = core.sched.peek(ring_at) {
        match e.kind() {
            EvKind::LinkArrive => fabric.prefetch_ring_head(e.id(), true),
            EvKind::TxDone => fabric.prefetch_ring_head(e.id(), false),
            _ => {}
        }
    }
    if let Some(e) = core.sched.peek(packet_at) {
        match e.kind() {
            EvKind::LinkArrive => fabric.prefetch_packet(&core.pool, e.id(), true),
            EvKind::TxDone => fabric.prefetch_packet(&core.pool, e.id(), false),
            _ => {}
        }
    }
}

/// The look-ahead on a fabric larger than the caches: the three stages of `prefetch_hop` four,
/// three and two events ahead, then for an arrival two more from its (cached) packet. At a
/// switch: its routing entry (one ahead, from the packet's destination), then its egress port
/// (the next event, from the cached entry). At a host, which serves its NIC next: the flow and
/// the NIC (one ahead), then the NIC's port and its round-robin list. At 8192 hosts these were
/// the first touches the handlers waited for (perf: `switch_receive` 25 % of the run, of it the
/// egress port 41 %; the route entry 8 %; the NIC, its port and the flow ≈ 70 % of `Nics::serve`).
#[inline(always)]
fn prefetch_deep(core: &Core, fabric: &Fabric, nics: &Nics, tp: &Transport) {
    prefetch_hop(core, fabric, 4, 3, 2);
    if let Some(e) = core.sched.peek(3).filter(|e| e.kind() == EvKind::LinkArrive) {
        fabric.prefetch_link_second(e.id());
    }
    let arrival = |k| core.sched.peek(k).filter(|e| e.kind() == EvKind::LinkArrive).and_then(|e| fabric.arriving(&core.pool, e.id()));
    match arrival(1) {
        Some((Node::Switch { node, .. }, id, p)) => {
            fabric.net.prefetch_route(node, p.dst);
            core.pool.prefetch_int_hop(id, p.n_hops);
        }
        Some((Node::Host(h), _, p)) => {
            tp.prefetch_flow(p.flow);
            nics.prefetch(h);
        }
        None => {}
    }
    match arrival(0) {
        Some((Node::Switch { node, .. }, _, p)) => {
            if let Some(port) = fabric.egress(node, p.dst, p.flow, core.seed) {
                fabric.prefetch_port(port);
            }
        }
        Some((Node::Host(h), _, _)) => nics.prefetch_port_and_flows(fabric, h),
        None => {}
    }
    // A host's port finished a packet: its NIC serves the next one. Three dependent reads
    // follow the port (cached by the first stage): the NIC, its round-robin list, the flow
    // that list names next.
    let nic_free = |k| core.sched.peek(k).filter(|e| e.kind() == EvKind::TxDone).and_then(|e| fabric.host_of_port(e.id()));
    if let Some(h) = nic_free(3) {
        nics.prefetch(h);
    }
    if let Some(h) = nic_free(2) {
        nics.prefetch_round_robin(h);
    }
    if let Some(h) = nic_free(1) {
        nics.prefetch_next_flow(tp, h);
    }
}
