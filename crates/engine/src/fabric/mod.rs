//! The fabric: egress ports with their links, and switches. It moves packets from a sender's NIC
//! port to the destination host and hands them over there; it never looks inside transport state.
//!
//! Per packet and hop there is one `LinkArrive` event (the link is FIFO, so only its head packet
//! is in the event queue), plus a `TxDone` when the packet had to wait for a busy port. A switch
//! decides ECN and stamps INT at dequeue, from the queue the packet leaves behind.

pub mod circuit;
pub mod deadlock;
pub mod ecn;
pub mod int;
pub mod jitter;
pub mod pfc;
mod pfc_frames;
pub mod port;
pub mod switch;
mod voq;

use crate::config::{Ecn, SwitchConfig};
use crate::core::{Core, FlowId, HostId, NodeId, PortId};
use crate::packet::{Kind, PacketPool, PktId};
use crate::sim::EvKind;
use crate::telemetry::capture::Capture;
use crate::telemetry::log_events::Fab;
use crate::topo::Network;

use circuit::Circuit;
use int::{EgressView, IntPolicy};
use jitter::HostJitter;
use pfc::{Frame, Pfc};
use port::{EgressPort, Node};
use switch::Switch;

pub struct Fabric {
    pub net: Network,
    pub ports: Vec<EgressPort>,
    pub switches: Vec<Switch>,
    buffer_bytes: u64,
    dt_alpha: f64,
    ecn: Ecn,
    /// Per-port marking when it depends on the port (`Ecn::RedByRate`); empty = `ecn` everywhere.
    port_ecn: Vec<Ecn>,
    int: IntPolicy,
    /// Lossless mode: PFC ingress accounting (None = lossy Dynamic Thresholds).
    pub pfc: Option<Pfc>,
    /// Packet capture on chosen ports, and the debug log's fabric and NIC events (None = both
    /// off: one untaken branch per transmission).
    pub capture: Option<Box<Capture>>,
    /// The optical circuit switch and the ToRs' VOQs of an `rdcn` topology.
    pub circuit: Option<Box<Circuit>>,
    /// ECMP hashes `ecmp_key[flow]` instead of the flow id: the messages of one connection to one
    /// destination keep one path (`build::ecmp_keys`); empty = every flow hashes its own id.
    pub ecmp_key: Vec<FlowId>,
    /// Multipath: per flow (= subflow) its connection's first flow and its subflow index, so
    /// subflow k of a connection takes the k-th next hop after the connection's hashed one
    /// (distinct paths where a switch has that many). Empty when no connection has subflows.
    pub subflow_of: Vec<(FlowId, u32)>,
    /// Per port, the packets sent on a cut link (`EgressPort::cut`) since the last barrier of a
    /// threaded run, by value (the sender's pool has freed them). Empty otherwise.
    pub staged: Vec<Vec<Staged>>,
    /// Host timing noise on the hosts' links (`host.jitter`; None = off: one untaken branch per
    /// transmission).
    pub jitter: Option<Box<HostJitter>>,
    /// More ports than the caches hold with their packets (`LARGE_PORTS`): the event loop looks
    /// further ahead (`sim/lookahead.rs`, `prefetch_deep`). Only a hint: no result depends on it.
    pub large: bool,
}

/// From this many egress ports on a fabric counts as `large`. Measured (docs/benchmarks.md,
/// issue 28): forced on, the deep look-ahead made the 256-host FatTree (576 ports, whose ports
/// and packets fit the caches) 18 % slower and the 1024-host one (6144 ports) 14 % faster.
pub const LARGE_PORTS: usize = 4096;

/// What a `TxDone` or `LinkArrive` leaves for the hosts to do.
pub enum Handoff {
    Nothing,
    /// The NIC of this host is free and may send.
    NicFree(HostId),
    /// A packet arrived at this host.
    Deliver(HostId, PktId),
}

/// A packet sent on a cut link of a threaded run, waiting for the barrier: its arrival time at
/// the peer, its header and its INT stack. The sender copies it out of its pool as it starts
/// serialising it (the packet is in its cache then) and frees its slot; the receiver's thread
/// puts it in its own pool and on the link (`Fabric::take_staged`), in parallel with the other
/// receivers.
#[derive(Clone, Copy)]
pub struct Staged {
    pub arrive: crate::time::Time,
    pub pkt: crate::packet::Packet,
    pub int: crate::packet::IntStack,
}

impl Fabric {
    pub fn new(
        net: Network,
        ports: Vec<EgressPort>,
        switches: Vec<Switch>,
        cfg: &SwitchConfig,
        pfc: Option<Pfc>,
        port_ecn: Vec<Ecn>,
    ) -> Self {
        let large = Self::is_large(ports.len());
        Fabric {
            large,
            pfc,
            capture: None,
            circuit: None,
            ecmp_key: Vec::new(),
            subflow_of: Vec::new(),
            staged: Vec::new(),
            jitter: None,
            port_ecn,
            net,
            ports,
            switches,
            buffer_bytes: cfg.buffer_bytes,
            dt_alpha: cfg.dt_alpha,
            ecn: cfg.ecn.clone(),
            int: IntPolicy { records: cfg.int_enabled, bytes_mode: cfg.int_bytes_mode },
        }
    }

    /// Serialise `pkt` on `port` from now: it joins the link FIFO and reaches the peer after
    /// serialisation plus propagation.
    #[inline]
    pub fn start_tx(&mut self, core: &mut Core, port: PortId, pkt: PktId) {
        let size = core.pool.get(pkt).size;
        let now = core.sched.now;
        if let Some(c) = &mut self.capture {
            c.on_tx(now, port, pkt, core.pool.get(pkt), core.pool.int(pkt), self.ports[port as usize].queue_bytes);
        }
        let p = &mut self.ports[port as usize];
        p.free_at = now + p.ser_time(size);
        p.tx_bytes += size as u64;
        p.count.sent_pkts += 1;
        let mut arrive = p.free_at + p.delay;
        if let Some(j) = self.jitter.as_deref_mut() {
            if let Node::Host(h) = p.owner {
                // not before the packet ahead on the link, staged at the barrier or already on it
                let staged = self.staged.get(port as usize).and_then(|s| s.last()).map(|s| s.arrive);
                arrive = j.arrival(h, arrive, staged.or(p.link.back().map(|&(t, _)| t)));
            }
        }
        if p.cut {
            // the receiver's thread owns the link: its arrival is queued now (the key is the
            // packet's place on the link either way), the packet joins the link at the barrier
            core.sched.at(arrive, EvKind::LinkArrive, port, 0);
            self.staged[port as usize].push(Staged { arrive, pkt: *core.pool.get(pkt), int: *core.pool.int(pkt) });
            core.pool.free(pkt);
            return;
        }
        if p.link.is_empty() {
            core.sched.at(arrive, EvKind::LinkArrive, port, 0);
        }
        p.link.push_back((arrive, pkt));
    }

    /// The packets staged on cut link `port` since the last barrier join its link, in `pool`
    /// (its receiver's), in the order they were sent.
    pub fn take_staged(&mut self, pool: &mut PacketPool, port: PortId) {
        let link = &mut self.ports[port as usize].link;
        for s in self.staged[port as usize].drain(..) {
            let id = pool.alloc(s.pkt);
            *pool.get_with_int_mut(id).1 = s.int;
            link.push_back((s.arrive, id));
        }
    }

    /// Make sure a busy port gets a `TxDone` when it frees up.
    #[inline(always)]
    pub fn kick_at_free(&mut self, core: &mut Core, port: PortId) {
        let p = &mut self.ports[port as usize];
        if !p.kick_pending {
            p.kick_pending = true;
            core.sched.at(p.free_at, EvKind::TxDone, port, 0);
        }
    }

    /// A port's serialisation ended and it has more to send (switch queue or host NIC).
    /// Inlined into each copy of the event loop (`sim::dispatch`), as into main's one.
    #[inline(always)]
    pub fn tx_done(&mut self, core: &mut Core, port: PortId) -> Handoff {
        let p = &mut self.ports[port as usize];
        p.kick_pending = false;
        if p.free_at > core.sched.now {
            // the port was restarted at this very instant by an arrival: wait for it
            self.kick_at_free(core, port);
            Handoff::Nothing
        } else {
            match p.owner {
                Node::Switch { .. } => {
                    self.dequeue(core, port);
                    Handoff::Nothing
                }
                Node::Host(h) => Handoff::NicFree(h),
            }
        }
    }

    /// Prefetch the packet the next event on `port` will move: the link's head for a
    /// `LinkArrive` (with its INT stack when a host receives it), the queue's head for a
    /// `TxDone` (which stamps INT).
    #[inline]
    pub fn prefetch_packet(&self, pool: &PacketPool, port: PortId, arrival: bool) {
        let Some(p) = self.ports.get(port as usize) else { return };
        if arrival {
            if let Some(&(_, pkt)) = p.link.front() {
                match p.peer {
                    Node::Host(_) => pool.prefetch_with_int(pkt),
                    Node::Switch { .. } => pool.prefetch(pkt),
                }
            }
        } else if let Some(pkt) = p.queue.peek(p.paused) {
            pool.prefetch_with_int(pkt);
        }
    }

    /// First stage of the event loop's look-ahead (the event three ahead): bring `port` toward
    /// L1 by its address alone, so the second stage can read it without waiting.
    #[inline]
    pub fn prefetch_port(&self, port: PortId) {
        if let Some(p) = self.ports.get(port as usize) {
            crate::prefetch::lines(p, 5);
        }
    }

    /// The entry after the head of `port`'s link, which its arrival reads to queue the next one
    /// (the deep look-ahead, with `prefetch_ring_head`).
    #[inline]
    pub fn prefetch_link_second(&self, port: PortId) {
        if let Some(e) = self.ports.get(port as usize).and_then(|p| p.link.get(1)) {
            crate::prefetch::lines(e, 1);
        }
    }

    /// The host whose NIC `port` is, if it is one (the look-ahead, from the cached port).
    #[inline]
    pub fn host_of_port(&self, port: PortId) -> Option<HostId> {
        match self.ports.get(port as usize)?.owner {
            Node::Host(h) => Some(h),
            Node::Switch { .. } => None,
        }
    }

    /// Second stage (the event two ahead): from the port, now cached, bring the ring entry that
    /// names the packet its event will move — the link's head for a `LinkArrive`, the queue's
    /// head for a `TxDone` — so that `prefetch_packet` (the next event) reads it without waiting.
    #[inline]
    pub fn prefetch_ring_head(&self, port: PortId, arrival: bool) {
        let Some(p) = self.ports.get(port as usize) else { return };
        if arrival {
            if let Some(e) = p.link.front() {
                crate::prefetch::lines(e, 1);
            }
        } else {
            p.queue.prefetch_head(p.paused);
        }
    }

    /// The head packet of `port`'s link reaches the peer. Inlined as `tx_done`.
    #[inline(always)]
    pub fn link_arrive(&mut self, core: &mut Core, port: PortId) -> Handoff {
        core.stats.packet_hops += 1;
        let p = &mut self.ports[port as usize];
        let (_, pkt) = p.link.pop_front().expect("link arrival without a packet");
        p.count.deliver(core.pool.get(pkt).size as u64);
        if let Some(&(t, next)) = p.link.front().filter(|_| !p.cut) {
            core.sched.at(t, EvKind::LinkArrive, port, 0);
            core.pool.prefetch(next);
        }
        match p.peer {
            Node::Host(h) => Handoff::Deliver(h, pkt),
            Node::Switch { node, .. } => {
                if let Some(c) = self.circuit.as_deref().filter(|c| c.ocs == node) {
                    // through the OCS to the ToR of the packet's rack (the only one matched)
                    let j = c.rack(core.pool.get(pkt).dst);
                    let (tor, ingress) = (c.tor_node(j), c.circuit_port[j as usize] ^ 1);
                    self.switch_receive(core, tor, pkt, ingress);
                    return Handoff::Nothing;
                }
                self.switch_receive(core, node, pkt, port ^ 1);
                Handoff::Nothing
            }
        }
    }

    /// A fabric of this many egress ports holds more than the caches do (`LARGE_PORTS`).
    pub fn is_large(ports: usize) -> bool {
        ports >= LARGE_PORTS
    }

    /// The port switch `node` forwards a packet of `flow` to host `dst` on: its one next hop, or
    /// the flow's ECMP choice among several (a multipath subflow k takes the k-th after its
    /// connection's).
    #[inline(always)]
    pub fn egress(&self, node: NodeId, dst: HostId, flow: FlowId, seed: u64) -> Option<PortId> {
        let hops = self.net.next_hops(node, dst);
        Some(match hops.len() {
            0 => return None,
            1 => hops[0],
            n if self.subflow_of.is_empty() => {
                let key = self.ecmp_key.get(flow as usize).copied().unwrap_or(flow);
                hops[switch::ecmp_choice(key, node, seed, n)]
            }
            n => {
                let (first, k) = self.subflow_of[flow as usize];
                hops[(switch::ecmp_choice(first, node, seed, n) + k as usize) % n]
            }
        })
    }

    /// The packet at the head of `port`'s link and the node it arrives at (the deep look-ahead's
    /// later stages, `sim/lookahead.rs`).
    #[inline]
    pub fn arriving<'a>(&self, pool: &'a PacketPool, port: PortId) -> Option<(Node, PktId, &'a crate::packet::Packet)> {
        let p = self.ports.get(port as usize)?;
        let &(_, pkt) = p.link.front()?;
        Some((p.peer, pkt, pool.get(pkt)))
    }

    /// `pkt` arrived at switch `node` by its port `ingress` (the port facing the sender).
    fn switch_receive(&mut self, core: &mut Core, node: NodeId, pkt: PktId, ingress: PortId) {
        let (dst, flow, size, kind, prio) = {
            let p = core.pool.get(pkt);
            (p.dst, p.flow, p.size as u64, p.kind, p.prio)
        };
        if let Some(c) = self.circuit.as_deref() {
            if let Some(i) = c.tor_of_node(node) {
                let j = c.rack(dst);
                if j != i {
                    return self.voq_receive(core, i, j, pkt, size, kind);
                }
            }
        }
        let Some(port) = self.egress(node, dst, flow, core.seed) else {
            unreachable!("routing: no next hop from node {node} to host {dst}")
        };
        let ps = &mut self.ports[port as usize];
        let Node::Switch { index, .. } = ps.owner else { unreachable!("a switch forwards on its own ports") };
        let sw = &mut self.switches[index as usize];
        ps.count.arrive(size);
        let admitted = match &mut self.pfc {
            None => sw.admits(self.buffer_bytes, self.dt_alpha, ps.queue_bytes, size),
            Some(pfc) => pfc.admit(ingress, prio, size),
        };
        if !admitted {
            ps.count.drop(size);
            crate::fabric_log!(self, fabric(core.sched.now, Fab::Drop, port, pkt, core.pool.get(pkt), ps.queue_bytes));
            core.stats.packets_dropped += 1;
            if kind == Kind::Data {
                core.stats.data_packets_dropped += 1;
            }
            core.pool.free(pkt);
            return;
        }
        let pause = match &mut self.pfc {
            None => Frame::None,
            Some(pfc) => {
                core.pool.get_mut(pkt).ingress = ingress;
                pfc.enqueue(ingress, prio, size)
            }
        };
        sw.used += size;
        ps.queue_bytes += size;
        ps.rx_bytes += size;
        if pause == Frame::None && ps.paused == 0 && self.circuit.is_none() && ps.queue.is_empty() && ps.free_at <= core.sched.now {
            // an idle port: queued, the packet would be taken at once (`serve_switch_port`,
            // `dequeue`: the only packet, enqueued now, none after it), so it skips the ring,
            // whose entry is one more cache line to write and read back at once
            crate::fabric_log!(self, fabric(core.sched.now, Fab::Enqueue, port, pkt, core.pool.get(pkt), ps.queue_bytes));
            return self.transmit_queued(core, port, pkt, core.sched.now);
        }
        ps.queue.push(prio, pkt, core.sched.now);
        crate::fabric_log!(self, fabric(core.sched.now, Fab::Enqueue, port, pkt, core.pool.get(pkt), ps.queue_bytes));
        if pause == Frame::Pause {
            self.send_pfc(core, ingress, prio, Frame::Pause);
        }
        self.serve_switch_port(core, port);
    }

    /// A switch port got a packet or was resumed: dequeue now if idle, else when free.
    #[inline(always)]
    fn serve_switch_port(&mut self, core: &mut Core, port: PortId) {
        let ps = &self.ports[port as usize];
        if !ps.queue.has_ready(ps.paused) {
            return;
        }
        if ps.free_at <= core.sched.now {
            self.dequeue(core, port);
        } else {
            self.kick_at_free(core, port);
        }
    }

    /// Take the next packet of a switch egress queue: ECN and INT are decided here, at dequeue,
    /// from the instantaneous queue.
    fn dequeue(&mut self, core: &mut Core, port: PortId) {
        if let Some(role) = self.circuit.as_deref().and_then(|c| c.role(port)) {
            return self.voq_dequeue(core, port, role);
        }
        let ps = &mut self.ports[port as usize];
        let Some((pkt, enqueued_at, next)) = ps.queue.pop(ps.paused) else { return };
        if let Some(next) = next {
            core.pool.prefetch(next);
        }
        self.transmit_queued(core, port, pkt, enqueued_at);
    }

    /// `pkt`, queued at `port` since `enqueued_at`, leaves its queue now: the switch's buffer, ECN
    /// and INT from the queue it leaves behind, PFC's ingress count, then serialisation.
    #[inline(always)]
    fn transmit_queued(&mut self, core: &mut Core, port: PortId, pkt: PktId, enqueued_at: crate::time::Time) {
        let now = core.sched.now;
        let ps = &mut self.ports[port as usize];
        let (p, int) = core.pool.get_with_int_mut(pkt);
        let size = p.size as u64;
        ps.queue_bytes -= size;
        let Node::Switch { index, .. } = ps.owner else { unreachable!("only switch ports dequeue here") };
        let sw = &mut self.switches[index as usize];
        sw.used -= size;
        if p.kind == Kind::Data {
            if p.ect && !p.ce {
                let marking = if self.port_ecn.is_empty() { &self.ecn } else { &self.port_ecn[port as usize] };
                p.ce = ecn::mark(marking, ps.queue_bytes, &mut sw.rng);
            }
            if sw.int {
                let view = EgressView { queue_bytes: ps.queue_bytes, tx_bytes: ps.tx_bytes, rx_bytes: ps.rx_bytes, rate_bps: ps.rate_bps };
                int::stamp(self.int, p, int, now, now - enqueued_at, view);
            }
        }
        let (ingress, prio) = (p.ingress, p.prio);
        if let Some(pfc) = &mut self.pfc {
            if pfc.dequeue(ingress, prio, size) == Frame::Resume {
                self.send_pfc(core, ingress, prio, Frame::Resume);
            }
        }
        self.start_tx(core, port, pkt);
        let ps = &self.ports[port as usize];
        if ps.queue.has_ready(ps.paused) {
            self.kick_at_free(core, port);
        }
    }

    /// Queue a packet a host generated (ACK, NACK, grant) on its NIC's egress queue.
    #[inline]
    pub fn nic_enqueue(&mut self, core: &mut Core, nic: PortId, pkt: PktId) {
        let size = core.pool.get(pkt).size as u64;
        let ps = &mut self.ports[nic as usize];
        ps.count.arrive(size);
        ps.queue.push(0, pkt, core.sched.now);
        ps.queue_bytes += size;
    }

    /// A data packet its host just built goes straight onto the host's idle NIC port.
    #[inline]
    pub fn nic_send(&mut self, core: &mut Core, nic: PortId, pkt: PktId) {
        self.ports[nic as usize].count.arrive(core.pool.get(pkt).size as u64);
        self.start_tx(core, nic, pkt);
    }
}
