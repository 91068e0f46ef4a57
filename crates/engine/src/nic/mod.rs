//! Host NICs: which transport endpoint puts the next packet on the wire. Control packets (ACKs,
//! NACKs, grants) waiting in the NIC's egress queue go first; then the host's started, unfinished
//! flows are served round-robin, each as its window and pacing allow — except receiver-driven
//! (Homa) messages, which the sender serves shortest-remaining-first (Homa §3.2: "SRPT" at the
//! sender), ahead of round-robin flows. A NIC whose flows are all paced sleeps until the earliest
//! of them may send (`NicWake`).

mod profile;

use crate::core::{Core, FlowId, HostId, PortId};
use crate::fabric::Fabric;
use crate::sim::EvKind;
use crate::time::Time;
use crate::transport::Transport;

pub struct Nic {
    /// The host's egress port in the fabric.
    pub port: PortId,
    /// Started, unfinished flows sourced here, in round-robin order.
    flows: Vec<FlowId>,
    rr: usize,
    wake_at: Time,
}

pub struct Nics {
    nics: Vec<Nic>,
}

impl Nics {
    pub fn new(ports: impl Iterator<Item = PortId>) -> Self {
        Nics { nics: ports.map(|port| Nic { port, flows: Vec::new(), rr: 0, wake_at: Time::MAX }).collect() }
    }

    pub fn port(&self, host: HostId) -> PortId {
        self.nics[host as usize].port
    }

    /// Bring `host`'s NIC toward L1 (the event loop's look-ahead, for an arrival at the host,
    /// which serves it).
    #[inline]
    pub fn prefetch(&self, host: HostId) {
        if let Some(n) = self.nics.get(host as usize) {
            crate::prefetch::lines(n, 1);
        }
    }

    /// The next stage for the same host, from its NIC (then cached): its egress port and the
    /// head of its round-robin list of flows.
    #[inline]
    pub fn prefetch_port_and_flows(&self, fabric: &Fabric, host: HostId) {
        if let Some(n) = self.nics.get(host as usize) {
            fabric.prefetch_port(n.port);
        }
        self.prefetch_round_robin(host);
    }

    /// The entry of `host`'s round-robin list that `serve` reads first (`serve` starts at `rr`
    /// modulo the list's length), if it has flows.
    #[inline]
    fn round_robin_head(&self, host: HostId) -> Option<&FlowId> {
        let n = self.nics.get(host as usize)?;
        n.flows.get(n.rr.checked_rem(n.flows.len())?)
    }

    /// That entry toward L1, from the NIC (then cached).
    #[inline]
    pub fn prefetch_round_robin(&self, host: HostId) {
        if let Some(f) = self.round_robin_head(host) {
            crate::prefetch::lines(f, 1);
        }
    }

    /// The flow `serve` tries first, from the round-robin list (then cached).
    #[inline]
    pub fn prefetch_next_flow(&self, tp: &Transport, host: HostId) {
        if let Some(&f) = self.round_robin_head(host) {
            tp.prefetch_flow(f);
        }
    }

    /// A flow of `host` starts sending.
    pub fn add_flow(&mut self, host: HostId, fid: FlowId) {
        self.nics[host as usize].flows.push(fid);
    }

    /// A flow of `host` finished.
    pub fn remove_flow(&mut self, host: HostId, fid: FlowId) {
        let n = &mut self.nics[host as usize];
        if let Some(pos) = n.flows.iter().position(|&x| x == fid) {
            n.flows.remove(pos);
            if n.rr > pos {
                n.rr -= 1;
            }
        }
    }

    /// The pacing wake-up of `host` came.
    pub fn wake(&mut self, core: &mut Core, fabric: &mut Fabric, tp: &mut Transport, host: HostId) {
        let n = &mut self.nics[host as usize];
        if n.wake_at <= core.sched.now {
            n.wake_at = Time::MAX;
        }
        self.serve(core, fabric, tp, host);
    }

    /// The NIC may be free: send a control packet first, else the next data packet of the
    /// round-robin that its window and pacing allow.
    pub fn serve(&mut self, core: &mut Core, fabric: &mut Fabric, tp: &mut Transport, host: HostId) {
        let now = core.sched.now;
        let nic = self.nics[host as usize].port;
        if fabric.ports[nic as usize].free_at > now {
            fabric.kick_at_free(core, nic);
            return;
        }
        let ps = &mut fabric.ports[nic as usize];
        let paused = ps.paused;
        if let Some((pkt, _, _)) = ps.queue.pop(paused) {
            ps.queue_bytes -= core.pool.get(pkt).size as u64;
            fabric.start_tx(core, nic, pkt);
            self.kick_if_more(core, fabric, tp, host);
            return;
        }
        let n = &self.nics[host as usize];
        let count = n.flows.len();
        let mut earliest = Time::MAX;
        // the first sendable flow in round-robin order, or the sendable SRPT message with the
        // fewest bytes left (ties: round-robin order)
        let mut pick: Option<(usize, u64)> = None;
        for k in 0..count {
            let i = (n.rr + k) % count;
            let fid = n.flows[i];
            let f = &tp.flows[fid as usize];
            if !f.window_open() || (paused != 0 && paused & 1 << f.next_priority().min(7) != 0) {
                continue;
            }
            if f.tx.next_send > now {
                earliest = earliest.min(f.tx.next_send);
                continue;
            }
            match f.srpt_key() {
                Some(left) if pick.is_none_or(|(_, best)| left < best) => pick = Some((i, left)),
                Some(_) => {}
                None if pick.is_none() => {
                    pick = Some((i, u64::MAX));
                    break;
                }
                None => break,
            }
        }
        if let Some((i, _)) = pick {
            let fid = self.nics[host as usize].flows[i];
            self.nics[host as usize].rr = i + 1;
            let pkt = tp.next_data_packet(core, fid);
            fabric.nic_send(core, nic, pkt);
            self.kick_if_more(core, fabric, tp, host);
            return;
        }
        let n = &mut self.nics[host as usize];
        if earliest != Time::MAX && earliest < n.wake_at {
            n.wake_at = earliest;
            core.sched.at(earliest, EvKind::NicWake, host, 0);
            crate::log_event!(core, nic_sleep(now, host, earliest));
        }
    }

    /// After a NIC started a packet: wake it when it is free only if something is already
    /// waiting (a control packet, or a flow with window to spare). Anything that becomes
    /// sendable later (an ACK, a flow start, a timer) calls `serve`, which kicks then.
    #[inline]
    fn kick_if_more(&self, core: &mut Core, fabric: &mut Fabric, tp: &Transport, host: HostId) {
        let n = &self.nics[host as usize];
        let ps = &fabric.ports[n.port as usize];
        let more = ps.queue.has_ready(ps.paused) || n.flows.iter().any(|&f| tp.flows[f as usize].window_open());
        if more {
            fabric.kick_at_free(core, n.port);
        }
    }

    /// Queue control packets a host's transport produced on its NIC's egress queue.
    pub fn queue_control(&self, core: &mut Core, fabric: &mut Fabric, host: HostId, pkts: &[u32]) {
        let nic = self.nics[host as usize].port;
        for &pkt in pkts {
            fabric.nic_enqueue(core, nic, pkt);
        }
    }
}
