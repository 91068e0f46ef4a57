//! The reconfigurable fabric's switch feature: a ToR's per-destination VOQs, drained by its
//! circuit port and its packet uplink (`circuit::Circuit` holds the schedule and the queues; this
//! is the fabric's side: receive, dequeue, and the circuit's day/night changes).

use super::circuit::Role;
use super::int::{self, EgressView};
use super::port::Node;
use super::Fabric;
use crate::core::{Core, PortId};
use crate::packet::{Kind, PktId};
use crate::sim::EvKind;

impl Fabric {
    /// A packet from a host of ToR `i` for rack `j` joins VOQ (i, j); both VOQ ports may serve it.
    pub(super) fn voq_receive(&mut self, core: &mut Core, i: u32, j: u32, pkt: PktId, size: u64, kind: Kind) {
        let c = self.circuit.as_deref_mut().expect("VOQs exist only with a circuit");
        if !c.enqueue(i, j, pkt, size, core.sched.now) {
            core.stats.packets_dropped += 1;
            if kind == Kind::Data {
                core.stats.data_packets_dropped += 1;
            }
            core.pool.free(pkt);
            return;
        }
        let (up, cp, bytes) = (c.uplink[i as usize], c.circuit_port[i as usize], c.tor_bytes(i));
        for port in [cp, up] {
            self.ports[port as usize].queue_bytes = bytes;
            self.serve_voq_port(core, port);
        }
    }

    /// A VOQ port may have something to send: now if idle, else when free.
    fn serve_voq_port(&mut self, core: &mut Core, port: PortId) {
        if self.ports[port as usize].free_at <= core.sched.now {
            self.dequeue(core, port);
        } else {
            self.kick_at_free(core, port);
        }
    }

    /// A ToR's circuit port or packet uplink takes the next packet its VOQs allow (circuit: the
    /// matched VOQ, only if it leaves before the night; uplink: round-robin).
    pub(super) fn voq_dequeue(&mut self, core: &mut Core, port: PortId, role: Role) {
        let now = core.sched.now;
        let c = self.circuit.as_deref_mut().expect("VOQ roles exist only with a circuit");
        let ps = &self.ports[port as usize];
        let pool = &core.pool;
        let Some((i, j, pkt)) = c.pick(role, now, |size| now + ps.ser_time(size as u32), |pkt| pool.get(pkt).size as u64) else {
            return;
        };
        let size = core.pool.get(pkt).size as u64;
        let (popped, enqueued_at, voq_after, counter) = c.pop(role, i, j, size, self.int.bytes_mode);
        debug_assert_eq!(popped, pkt);
        let bytes = c.tor_bytes(i);
        let (up, cp) = (c.uplink[i as usize], c.circuit_port[i as usize]);
        self.ports[up as usize].queue_bytes = bytes;
        self.ports[cp as usize].queue_bytes = bytes;
        let ps = &self.ports[port as usize];
        let Node::Switch { index, .. } = ps.owner else { unreachable!("VOQ ports belong to ToRs") };
        let (p, int) = core.pool.get_with_int_mut(pkt);
        if p.kind == Kind::Data && self.switches[index as usize].int {
            // the stamp adds the packet's own size to a tx counter, as for a port's tx_bytes
            let view = EgressView { queue_bytes: voq_after, tx_bytes: counter, rx_bytes: counter, rate_bps: ps.rate_bps };
            int::stamp(self.int, p, int, now, now - enqueued_at, view);
        }
        self.ports[port as usize].count.arrive(size);
        self.start_tx(core, port, pkt);
        self.kick_at_free(core, port);
    }

    /// Schedule the circuit's first day (at time 0) when the topology has one.
    pub fn arm_circuit(&self, core: &mut Core) {
        if self.circuit.is_some() {
            core.sched.at(0, EvKind::Circuit, 0, 0);
        }
    }

    /// A day or a night begins: VOQ ports look again, the next change is scheduled. Returns the
    /// circuits (ToR i, ToR j) that came up (`true`) or went down (`false`).
    pub fn circuit_change(&mut self, core: &mut Core) -> (Vec<(u32, u32)>, bool) {
        let now = core.sched.now;
        let c = self.circuit.as_deref().expect("circuit events only with a circuit");
        let up = c.day_starts_at(now);
        let changed: Vec<(u32, u32)> = c.matching_at(now).collect();
        core.sched.at(c.next_change(now), EvKind::Circuit, 0, 0);
        let ports: Vec<PortId> = c.circuit_port.iter().chain(&c.uplink).copied().collect();
        for port in ports {
            self.serve_voq_port(core, port);
        }
        (changed, up)
    }
}
