//! The simulator: owns time and packets. Switch egress ports, links, host NICs and the reliable
//! transport live here; congestion control is called through the `CongestionControl` trait.
//!
//! Per packet and hop there are two events: `TxDone` at the egress port (serialisation ends) and
//! `LinkArrive` at the far end. Links are FIFO, so only the head packet of each link is in the
//! global event queue. Packets live in a pool and are referred to by index; an ACK reuses the
//! slot of the data packet it answers. Nothing on the packet path allocates after warm-up.

use std::collections::VecDeque;

use crate::cc::{self, AckEvent, CcContext, CongestionControl, GrantPolicy};
use crate::config::{Config, ConfigError, Ecn, IntBytesMode};
use crate::packet::{IntHop, Kind, Packet, PacketPool, PktId, MAX_INT_HOPS};
use crate::results::*;
use crate::rng::{mix, Rng};
use crate::sched::{EvKind, Scheduler};
use crate::time::{secs, tx_time, Time};
use crate::topo::Network;

const NONE: u32 = u32::MAX;

/// Events between two calls of the stop check of `run_polled` (about 5–20 ms of engine time).
pub const POLL_EVENTS: u32 = 1 << 16;

/// Strict priorities per egress port (0 is served first), as Homa's switches.
pub const PRIORITIES: usize = 8;

/// Egress queues of one port, one FIFO per priority, with a bitmap of the non-empty ones.
#[derive(Default)]
struct PrioQueues {
    q: [VecDeque<PktId>; PRIORITIES],
    nonempty: u8,
}

impl PrioQueues {
    #[inline]
    fn push(&mut self, prio: u8, pkt: PktId) {
        let p = (prio as usize).min(PRIORITIES - 1);
        self.q[p].push_back(pkt);
        self.nonempty |= 1 << p;
    }
    /// Remove the head of the highest non-empty priority; also return the packet after it.
    #[inline]
    fn pop(&mut self) -> Option<(PktId, Option<PktId>)> {
        if self.nonempty == 0 {
            return None;
        }
        let p = self.nonempty.trailing_zeros() as usize;
        let pkt = self.q[p].pop_front()?;
        if self.q[p].is_empty() {
            self.nonempty &= !(1 << p);
        }
        Some((pkt, self.q[p].front().copied()))
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.nonempty == 0
    }
}

struct PortState {
    queue: PrioQueues,
    queue_bytes: u64,
    tx_bytes: u64,
    rx_bytes: u64,
    /// The port serialises until this time.
    free_at: Time,
    /// A `TxDone` event is scheduled for `free_at` (to serve the queue).
    kick_pending: bool,
    /// Packets being serialised or propagating: (arrival time at the peer, packet). A packet
    /// enters the link when its serialisation starts; the link is FIFO, so only its head is
    /// in the event queue.
    link: VecDeque<(Time, PktId)>,
    rate_bps: u64,
    delay: Time,
    peer: u32,
    peer_is_host: bool,
    /// Index of the owning switch, or NONE for a host NIC.
    switch: u32,
    /// Owning host for a NIC port.
    host: u32,
    /// Serialisation times of the two sizes a port sees most (full data packets and ACKs),
    /// as (size, time) pairs; other sizes are computed.
    tx_cache: [(u32, Time); 2],
}

struct SwitchState {
    used: u64,
    /// Supports INT (brownfield deployments enable it on a subset of switches).
    int: bool,
    rng: Rng,
}

struct HostState {
    nic: u32,
    /// Receiver-driven (Homa) messages arriving here and not yet complete.
    homa_in: Vec<u32>,
    /// Started, unfinished flows sourced here, served round-robin.
    flows: Vec<u32>,
    rr: usize,
    wake_at: Time,
}

struct Flow {
    src: u32,
    dst: u32,
    /// u64::MAX for a long-lived flow.
    size: u64,
    start: Time,
    snd_nxt: u64,
    snd_una: u64,
    high_sent: u64,
    cwnd: f64,
    rate: f64,
    next_send: Time,
    cc: Box<dyn CongestionControl>,
    cc_timer: Option<Time>,
    cc_timer_version: u32,
    rto_deadline: Time,
    rto_pending: bool,
    rcv_nxt: u64,
    last_nack_at: Time,
    last_nack_seq: u64,
    started: bool,
    done: bool,
    end: Time,
    retransmits: u64,
    timeouts: u64,
    base_rtt: Time,
    ideal_fct: Time,
    /// Receiver-driven flow: the receiver's grant policy, what it has granted, at which prio.
    homa: Option<GrantPolicy>,
    granted_rx: u64,
    grant_prio: u8,
    rx_active: bool,
    /// The window was the limit at the last transmission (see `AckEvent::cwnd_limited`).
    cwnd_limited: bool,
}

/// An ACK of a receiver-driven flow carries the receiver's grant in `data_seq`:
/// priority in the top 8 bits, granted offset below.
#[inline]
fn pack_grant(offset: u64, prio: u8) -> u64 {
    ((prio as u64) << 56) | (offset & ((1 << 56) - 1))
}

#[inline]
fn unpack_grant(v: u64) -> (u64, u8) {
    (v & ((1 << 56) - 1), (v >> 56) as u8)
}

pub struct Simulator {
    cfg: Config,
    net: Network,
    sched: Scheduler,
    pool: PacketPool,
    ports: Vec<PortState>,
    switches: Vec<SwitchState>,
    hosts: Vec<HostState>,
    flows: Vec<Flow>,
    tau: Time,
    data_header: u32,
    monitored: Vec<u32>,
    out: Results,
}

impl Simulator {
    pub fn new(cfg: &Config) -> Result<Simulator, ConfigError> {
        cfg.validate()?;
        let net = Network::build(&cfg.topology)?;
        let h = net.n_hosts;
        let data_header = cfg.host.header_bytes + if cfg.switch.int_enabled { cfg.host.int_header_bytes } else { 0 };
        let full_data = (cfg.host.payload_bytes + data_header) as u64;
        let ack = cfg.host.ack_bytes as u64;
        for (i, p) in net.ports.iter().enumerate() {
            if p.rate_bps == 0 {
                return Err(ConfigError::new("topology", format!("link {} (port {i}) has zero rate", p.name)));
            }
        }
        let tau = match cfg.base_rtt_ps {
            Some(0) => return Err(ConfigError::new("base_rtt", "must be > 0 or \"auto\"")),
            Some(t) => t,
            None => net.max_base_rtt(full_data, ack),
        };
        if let Some(names) = &cfg.switch.int_switches {
            for n in names {
                if !net.nodes.iter().any(|x| !x.is_host && &x.name == n) {
                    let all: Vec<&str> = net.nodes.iter().filter(|x| !x.is_host).map(|x| x.name.as_str()).collect();
                    return Err(ConfigError::new("switch.int_switches", format!("unknown switch '{n}'; switches are {}", all.join(", "))));
                }
            }
        }
        let mut switches = Vec::new();
        let mut switch_of_node = vec![NONE; net.nodes.len()];
        for (n, node) in net.nodes.iter().enumerate() {
            if !node.is_host {
                switch_of_node[n] = switches.len() as u32;
                let int = match &cfg.switch.int_switches {
                    None => true,
                    Some(names) => names.iter().any(|x| x == &node.name),
                };
                switches.push(SwitchState { used: 0, int, rng: Rng::new(mix(cfg.seed ^ (n as u64) << 20)) });
            }
        }
        let ports = net
            .ports
            .iter()
            .map(|p| PortState {
                queue: PrioQueues::default(),
                queue_bytes: 0,
                tx_bytes: 0,
                rx_bytes: 0,
                free_at: 0,
                kick_pending: false,
                link: VecDeque::new(),
                rate_bps: p.rate_bps,
                delay: p.delay_ps,
                peer: p.peer,
                peer_is_host: net.nodes[p.peer as usize].is_host,
                switch: switch_of_node[p.node as usize],
                host: if net.nodes[p.node as usize].is_host { p.node } else { NONE },
                tx_cache: [(full_data as u32, tx_time(full_data, p.rate_bps)), (ack as u32, tx_time(ack, p.rate_bps))],
            })
            .collect();
        let hosts = (0..h)
            .map(|i| HostState { nic: net.host_port(i).unwrap_or(NONE), homa_in: Vec::new(), flows: Vec::new(), rr: 0, wake_at: Time::MAX })
            .collect();
        let mut flows = Vec::with_capacity(cfg.flows.len());
        for (i, f) in cfg.flows.iter().enumerate() {
            for (field, v) in [("src", f.src), ("dst", f.dst)] {
                if v >= h {
                    return Err(ConfigError::new(
                        &format!("flows[{i}].{field}"),
                        format!("host {v} does not exist; hosts are 0..{}", h - 1),
                    ));
                }
            }
            if !net.connected(f.src, f.dst) {
                return Err(ConfigError::new(&format!("flows[{i}]"), format!("no path from h{} to h{} in the topology", f.src, f.dst)));
            }
            let nic_rate = net.ports[net.host_port(f.src).unwrap() as usize].rate_bps;
            let base_rtt = net.base_rtt(f.src, f.dst, full_data, ack);
            let ctx = CcContext {
                host_rate_bps: nic_rate as f64,
                base_rtt: secs(tau),
                path_rtt: secs(base_rtt),
                mss: cfg.host.payload_bytes as f64,
                wire_bytes: full_data as f64,
            };
            let spec = f.cc.as_ref().unwrap_or(&cfg.cc);
            let mut cc = cc::build(&spec.algorithm, &spec.params, &ctx).map_err(|mut e| {
                if f.cc.is_some() {
                    e.field = format!("flows[{i}].{}", e.field);
                }
                e
            })?;
            let size = f.size_bytes.unwrap_or(u64::MAX);
            cc.on_flow_start(f.size_bytes);
            let homa = cc.grant_policy();
            // Ideal FCT on an empty network: the base RTT (which already carries one full
            // packet's serialisation per hop) plus the rest of the flow's bytes on the wire at
            // the path's slowest rate.
            let ideal_fct = match f.size_bytes {
                Some(s) => {
                    let pkts = s.div_ceil(cfg.host.payload_bytes as u64);
                    let rate = net.path_rate(f.src, f.dst);
                    base_rtt + tx_time(s + pkts * data_header as u64, rate) - tx_time(full_data, rate)
                }
                None => 0,
            };
            flows.push(Flow {
                src: f.src,
                dst: f.dst,
                size,
                start: f.start_ps,
                snd_nxt: 0,
                snd_una: 0,
                high_sent: 0,
                cwnd: cc.cwnd(),
                rate: cc.pacing_rate(),
                next_send: 0,
                cc,
                cc_timer: None,
                cc_timer_version: 0,
                rto_deadline: 0,
                rto_pending: false,
                rcv_nxt: 0,
                last_nack_at: 0,
                last_nack_seq: u64::MAX,
                started: false,
                done: false,
                end: 0,
                retransmits: 0,
                timeouts: 0,
                base_rtt,
                ideal_fct,
                homa,
                granted_rx: homa.map_or(0, |g| g.rtt_bytes.min(size)),
                grant_prio: homa.map_or(0, |g| g.first_sched_prio),
                rx_active: false,
                cwnd_limited: false,
            });
        }
        let mut monitored = Vec::new();
        for name in &cfg.metrics.ports {
            if name == "*" {
                monitored.extend(0..net.ports.len() as u32);
            } else {
                match net.port_by_name(name) {
                    Some(p) => monitored.push(p),
                    None => {
                        return Err(ConfigError::new(
                            "metrics.ports",
                            format!("unknown port '{name}'; ports are named '<node>-><peer>', e.g. '{}'", net.ports[0].name),
                        ))
                    }
                }
            }
        }
        let mut out = Results::default();
        for &p in &monitored {
            out.ports.port.push(p);
            out.ports.name.push(net.ports[p as usize].name.clone());
            out.ports.rate_bps.push(net.ports[p as usize].rate_bps);
        }
        out.summary.base_rtt_ps = tau;
        Ok(Simulator {
            cfg: cfg.clone(),
            net,
            sched: Scheduler::new(),
            pool: PacketPool::new(),
            ports,
            switches,
            hosts,
            flows,
            tau,
            data_header,
            monitored,
            out,
        })
    }

    /// τ used by the control laws (ps).
    pub fn tau(&self) -> Time {
        self.tau
    }

    pub fn run(self) -> Results {
        self.run_polled(&mut || false).0
    }

    /// Run, calling `stop` every `POLL_EVENTS` events; when it returns true the run ends at the
    /// current simulated time. Returns the results and whether the run reached `duration_ps`.
    pub fn run_polled(mut self, stop: &mut dyn FnMut() -> bool) -> (Results, bool) {
        let until = self.cfg.duration_ps;
        for i in 0..self.flows.len() {
            let t = self.flows[i].start;
            self.sched.at(t, EvKind::FlowStart, i as u32, 0);
        }
        if self.cfg.metrics.sample_interval_ps > 0 {
            self.sched.at(self.cfg.metrics.start_ps, EvKind::Sample, 0, 0);
        }
        let mut poll_in = POLL_EVENTS;
        while let Some(ev) = self.sched.pop_until(until) {
            poll_in -= 1;
            if poll_in == 0 {
                poll_in = POLL_EVENTS;
                if stop() {
                    let now = self.sched.now;
                    return (self.finish(now), false);
                }
            }
            match ev.kind {
                EvKind::TxDone => self.tx_done(ev.id),
                EvKind::LinkArrive => self.link_arrive(ev.id),
                EvKind::FlowStart => self.flow_start(ev.id),
                EvKind::NicWake => {
                    let h = &mut self.hosts[ev.id as usize];
                    if h.wake_at <= self.sched.now {
                        h.wake_at = Time::MAX;
                    }
                    self.host_send(ev.id);
                }
                EvKind::Rto => self.rto(ev.id),
                EvKind::CcTimer => self.cc_timer(ev.id, ev.aux),
                EvKind::Sample => self.sample(),
            }
        }
        (self.finish(until), true)
    }

    // ---------------------------------------------------------------- ports and links

    /// Serialise `pkt` on `port` from now: it joins the link FIFO and reaches the peer after
    /// serialisation plus propagation.
    #[inline]
    fn start_tx(&mut self, port: u32, pkt: PktId) {
        let size = self.pool.get(pkt).size;
        let now = self.sched.now;
        let p = &mut self.ports[port as usize];
        let ser = if p.tx_cache[0].0 == size {
            p.tx_cache[0].1
        } else if p.tx_cache[1].0 == size {
            p.tx_cache[1].1
        } else {
            tx_time(size as u64, p.rate_bps)
        };
        p.free_at = now + ser;
        p.tx_bytes += size as u64;
        let arrive = p.free_at + p.delay;
        if p.link.is_empty() {
            self.sched.at(arrive, EvKind::LinkArrive, port, 0);
        }
        p.link.push_back((arrive, pkt));
    }

    /// A port's serialisation ended and it has more to send (switch queue or host NIC).
    fn tx_done(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        p.kick_pending = false;
        if p.free_at > self.sched.now {
            // the port was restarted at this very instant by an arrival: wait for it
            self.kick_at_free(port);
        } else if p.switch != NONE {
            self.dequeue(port);
        } else {
            let h = p.host;
            self.host_send(h);
        }
    }

    /// Make sure a busy port gets a `TxDone` when it frees up.
    #[inline]
    fn kick_at_free(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if !p.kick_pending {
            p.kick_pending = true;
            self.sched.at(p.free_at, EvKind::TxDone, port, 0);
        }
    }

    fn link_arrive(&mut self, port: u32) {
        self.out.summary.packet_hops += 1;
        let p = &mut self.ports[port as usize];
        let (_, pkt) = p.link.pop_front().expect("link arrival without a packet");
        if let Some(&(t, next)) = p.link.front() {
            self.sched.at(t, EvKind::LinkArrive, port, 0);
            self.pool.prefetch(next);
        }
        let (peer, to_host) = (p.peer, p.peer_is_host);
        if to_host {
            self.host_receive(peer, pkt);
        } else {
            self.switch_receive(peer, pkt);
        }
    }

    // ---------------------------------------------------------------- switches

    fn switch_receive(&mut self, node: u32, pkt: PktId) {
        let (dst, flow, size, kind) = {
            let p = self.pool.get(pkt);
            (p.dst, p.flow, p.size as u64, p.kind)
        };
        let hops = self.net.next_hops(node, dst);
        let port = match hops.len() {
            0 => unreachable!("routing: no next hop from node {node} to host {dst}"),
            1 => hops[0],
            // multiply-shift maps the 64-bit hash onto 0..n without a division
            n => {
                hops[((mix(((flow as u64) << 32) ^ node as u64 ^ self.cfg.seed.wrapping_mul(0x2545_F491_4F6C_DD1D)) as u128 * n as u128)
                    >> 64) as usize]
            }
        };
        let ps = &mut self.ports[port as usize];
        let sw = &mut self.switches[ps.switch as usize];
        // Dynamic Thresholds: a port may hold up to α·(free shared buffer).
        let buffer = self.cfg.switch.buffer_bytes;
        let free = buffer - sw.used;
        if size > free || (ps.queue_bytes + size) as f64 > self.cfg.switch.dt_alpha * free as f64 {
            self.out.summary.packets_dropped += 1;
            if kind == Kind::Data {
                self.out.summary.data_packets_dropped += 1;
            }
            self.pool.free(pkt);
            return;
        }
        sw.used += size;
        ps.queue_bytes += size;
        ps.rx_bytes += size;
        let pr = self.pool.get_mut(pkt);
        pr.enqueued_at = self.sched.now;
        ps.queue.push(pr.prio, pkt);
        if ps.free_at <= self.sched.now {
            self.dequeue(port);
        } else {
            self.kick_at_free(port);
        }
    }

    /// Take the next packet of a switch egress queue: ECN and INT are decided here, at dequeue,
    /// from the instantaneous queue.
    fn dequeue(&mut self, port: u32) {
        let now = self.sched.now;
        let ps = &mut self.ports[port as usize];
        let Some((pkt, next)) = ps.queue.pop() else { return };
        if let Some(next) = next {
            self.pool.prefetch(next);
        }
        let (p, int) = self.pool.get_with_int_mut(pkt);
        let size = p.size as u64;
        ps.queue_bytes -= size;
        let sw = &mut self.switches[ps.switch as usize];
        sw.used -= size;
        if p.kind == Kind::Data {
            if p.ect && !p.ce {
                p.ce = match self.cfg.switch.ecn {
                    Ecn::None => false,
                    Ecn::Step { k_bytes } => ps.queue_bytes > k_bytes,
                    Ecn::Red { kmin_bytes, kmax_bytes, pmax, steps } => {
                        let q = ps.queue_bytes;
                        if q <= kmin_bytes {
                            false
                        } else if q >= kmax_bytes {
                            true
                        } else {
                            sw.rng.uniform() < Ecn::red_probability(kmin_bytes, kmax_bytes, pmax, steps, q)
                        }
                    }
                    Ecn::Curve { bdp_bytes, tmin_bytes, pmax } => {
                        let prob = Ecn::curve_probability(bdp_bytes, tmin_bytes, pmax, ps.queue_bytes);
                        prob > 0.0 && sw.rng.uniform() < prob
                    }
                };
            }
            if sw.int {
                let hop_delay = now - p.enqueued_at;
                if hop_delay > p.max_hop_delay {
                    p.max_hop_delay = hop_delay;
                }
            }
            if sw.int && self.cfg.switch.int_enabled && (p.n_hops as usize) < MAX_INT_HOPS {
                let counter = match self.cfg.switch.int_bytes_mode {
                    IntBytesMode::Tx => ps.tx_bytes + size,
                    IntBytesMode::Rx => ps.rx_bytes,
                };
                int[p.n_hops as usize] = IntHop { qlen: ps.queue_bytes, tx_bytes: counter, ts: now, rate_bps: ps.rate_bps };
                p.n_hops += 1;
            }
        }
        self.start_tx(port, pkt);
        if !self.ports[port as usize].queue.is_empty() {
            self.kick_at_free(port);
        }
    }

    // ---------------------------------------------------------------- hosts

    fn flow_start(&mut self, fid: u32) {
        let f = &mut self.flows[fid as usize];
        f.started = true;
        f.next_send = self.sched.now;
        let src = f.src;
        self.hosts[src as usize].flows.push(fid);
        self.sync_cc_timer(fid);
        self.host_send(src);
    }

    /// The NIC is free: send a control packet (ACK/NACK) first, else the next data packet of
    /// the round-robin that its window and pacing allow.
    fn host_send(&mut self, host: u32) {
        let now = self.sched.now;
        let nic = self.hosts[host as usize].nic;
        if self.ports[nic as usize].free_at > now {
            self.kick_at_free(nic);
            return;
        }
        if let Some((pkt, _)) = self.ports[nic as usize].queue.pop() {
            let size = self.pool.get(pkt).size as u64;
            self.ports[nic as usize].queue_bytes -= size;
            self.start_tx(nic, pkt);
            self.kick_if_more(host, nic);
            return;
        }
        let hs = &self.hosts[host as usize];
        let n = hs.flows.len();
        let mut earliest = Time::MAX;
        for k in 0..n {
            let i = (hs.rr + k) % n;
            let fid = hs.flows[i];
            let f = &self.flows[fid as usize];
            if f.snd_nxt >= f.size || ((f.snd_nxt - f.snd_una) as f64) >= f.cwnd {
                continue;
            }
            if f.next_send > now {
                earliest = earliest.min(f.next_send);
                continue;
            }
            self.hosts[host as usize].rr = i + 1;
            self.send_data(fid, nic);
            return;
        }
        let hs = &mut self.hosts[host as usize];
        if earliest != Time::MAX && earliest < hs.wake_at {
            hs.wake_at = earliest;
            self.sched.at(earliest, EvKind::NicWake, host, 0);
        }
    }

    fn send_data(&mut self, fid: u32, nic: u32) {
        let now = self.sched.now;
        let payload_max = self.cfg.host.payload_bytes as u64;
        let f = &mut self.flows[fid as usize];
        let seq = f.snd_nxt;
        let payload = payload_max.min(f.size - seq);
        let size = payload + self.data_header as u64;
        if seq < f.high_sent {
            f.retransmits += 1;
        }
        let was_idle = f.snd_nxt == f.snd_una;
        f.snd_nxt += payload;
        // the window is the limit if it has no room for another full packet now
        f.cwnd_limited = (f.snd_nxt - f.snd_una + payload_max) as f64 > f.cwnd;
        f.high_sent = f.high_sent.max(f.snd_nxt);
        if f.rate.is_finite() && f.rate > 0.0 {
            f.next_send = now + (size as f64 * 8.0 / f.rate * 1e12) as Time;
        }
        let mut p = Packet::empty();
        p.kind = Kind::Data;
        p.flow = fid;
        p.src = f.src;
        p.dst = f.dst;
        p.size = size as u32;
        p.payload = payload as u16;
        p.seq = seq;
        p.sent_at = now;
        p.ect = true;
        p.prio = f.cc.priority(seq);
        f.cc.on_send(now, payload);
        if !f.rto_pending {
            f.rto_pending = true;
            f.rto_deadline = now + self.cfg.host.rto_ps;
            self.sched.at(f.rto_deadline, EvKind::Rto, fid, 0);
        } else if was_idle {
            f.rto_deadline = now + self.cfg.host.rto_ps;
        }
        let id = self.pool.alloc(p);
        self.out.summary.packets_sent += 1;
        self.out.summary.data_packets_sent += 1;
        self.sync_cc_timer(fid);
        self.start_tx(nic, id);
        let host = self.flows[fid as usize].src;
        self.kick_if_more(host, nic);
    }

    /// After a NIC started a packet: wake it when it is free only if something is already
    /// waiting (a control packet, or a flow with window to spare). Anything that becomes
    /// sendable later (an ACK, a flow start, a timer) calls `host_send`, which kicks then.
    #[inline]
    fn kick_if_more(&mut self, host: u32, nic: u32) {
        let more = !self.ports[nic as usize].queue.is_empty()
            || self.hosts[host as usize].flows.iter().any(|&f| {
                let f = &self.flows[f as usize];
                f.snd_nxt < f.size && ((f.snd_nxt - f.snd_una) as f64) < f.cwnd
            });
        if more {
            self.kick_at_free(nic);
        }
    }

    fn host_receive(&mut self, host: u32, pkt: PktId) {
        self.out.summary.packets_delivered += 1;
        let p = *self.pool.get(pkt);
        debug_assert_eq!(p.dst, host);
        match p.kind {
            Kind::Data => self.receive_data(host, pkt, &p),
            Kind::Ack | Kind::Nack => {
                self.receive_ack(pkt, &p);
                self.pool.free(pkt);
            }
        }
    }

    /// Receiver: in-order data advances rcv_nxt; every data packet is answered by an ACK that
    /// echoes its INT, ECN mark and send timestamp; a gap triggers a (throttled) NACK.
    fn receive_data(&mut self, host: u32, pkt: PktId, p: &Packet) {
        let now = self.sched.now;
        self.out.summary.data_packets_delivered += 1;
        let f = &mut self.flows[p.flow as usize];
        let kind = if p.seq == f.rcv_nxt {
            f.rcv_nxt += p.payload as u64;
            Kind::Ack
        } else if p.seq < f.rcv_nxt {
            Kind::Ack
        } else if f.last_nack_seq != f.rcv_nxt || now >= f.last_nack_at + self.cfg.host.nack_interval_ps {
            f.last_nack_seq = f.rcv_nxt;
            f.last_nack_at = now;
            Kind::Nack
        } else {
            self.pool.free(pkt);
            return;
        };
        let rcv_nxt = f.rcv_nxt;
        let mut data_seq = p.seq;
        if f.homa.is_some() {
            let done = rcv_nxt >= f.size;
            if !f.rx_active && !done {
                f.rx_active = true;
                self.hosts[host as usize].homa_in.push(p.flow);
            } else if f.rx_active && done {
                f.rx_active = false;
                let list = &mut self.hosts[host as usize].homa_in;
                if let Some(i) = list.iter().position(|&x| x == p.flow) {
                    list.remove(i);
                }
            }
            self.homa_regrant(host, p.flow);
            let f = &self.flows[p.flow as usize];
            data_seq = pack_grant(f.granted_rx, f.grant_prio);
        }
        let a = self.pool.get_mut(pkt);
        a.kind = kind;
        a.src = p.dst;
        a.dst = p.src;
        a.size = self.cfg.host.ack_bytes;
        a.payload = 0;
        a.data_seq = data_seq;
        a.seq = rcv_nxt;
        a.ect = false;
        a.prio = 0;
        let nic = self.hosts[host as usize].nic;
        let ps = &mut self.ports[nic as usize];
        ps.queue.push(0, pkt);
        ps.queue_bytes += self.cfg.host.ack_bytes as u64;
        self.out.summary.packets_sent += 1;
        self.host_send(host);
    }

    /// Homa's receiver: grant to the `overcommit` incoming messages with the fewest remaining
    /// bytes (SRPT), keeping RTTbytes granted beyond what has arrived; rank r uses priority
    /// first_sched_prio + r. The message whose packet just arrived learns its grant from the
    /// ACK; any other message whose grant changed gets a grant packet.
    fn homa_regrant(&mut self, host: u32, arriving: u32) {
        const MAX_K: usize = 8;
        let Some(policy) = self.flows[arriving as usize].homa else { return };
        let k = (policy.overcommit as usize).min(MAX_K);
        let mut top: [(u64, u32); MAX_K] = [(u64::MAX, u32::MAX); MAX_K];
        for &g in &self.hosts[host as usize].homa_in {
            let f = &self.flows[g as usize];
            let key = (f.size - f.rcv_nxt, g);
            if key < top[k - 1] {
                let mut i = k - 1;
                while i > 0 && key < top[i - 1] {
                    top[i] = top[i - 1];
                    i -= 1;
                }
                top[i] = key;
            }
        }
        let now = self.sched.now;
        let mut sent = false;
        for (rank, &(_, g)) in top[..k].iter().enumerate() {
            if g == u32::MAX {
                break;
            }
            let f = &mut self.flows[g as usize];
            let target = (f.rcv_nxt + policy.rtt_bytes).min(f.size);
            let prio = (policy.first_sched_prio as usize + rank).min(PRIORITIES - 1) as u8;
            if target <= f.granted_rx && prio == f.grant_prio {
                continue;
            }
            f.granted_rx = f.granted_rx.max(target);
            f.grant_prio = prio;
            if g != arriving {
                let mut p = Packet::empty();
                p.kind = Kind::Ack;
                p.flow = g;
                p.src = f.dst;
                p.dst = f.src;
                p.size = self.cfg.host.ack_bytes;
                p.seq = f.rcv_nxt;
                p.data_seq = pack_grant(f.granted_rx, f.grant_prio);
                p.sent_at = now;
                let id = self.pool.alloc(p);
                let nic = self.hosts[host as usize].nic;
                let ps = &mut self.ports[nic as usize];
                ps.queue.push(0, id);
                ps.queue_bytes += self.cfg.host.ack_bytes as u64;
                self.out.summary.packets_sent += 1;
                sent = true;
            }
        }
        if sent {
            self.host_send(host);
        }
    }

    /// Sender: cumulative ACK bookkeeping, then the congestion controller.
    fn receive_ack(&mut self, pkt: PktId, p: &Packet) {
        let now = self.sched.now;
        let fid = p.flow;
        let rto = self.cfg.host.rto_ps;
        let f = &mut self.flows[fid as usize];
        if f.done {
            return;
        }
        let mut newly = 0;
        if p.seq > f.snd_una {
            newly = p.seq - f.snd_una;
            f.snd_una = p.seq;
            f.rto_deadline = now + rto;
            if f.snd_nxt < f.snd_una {
                f.snd_nxt = f.snd_una;
            }
            self.out.summary.bytes_delivered += newly;
        }
        let mut data_seq = p.data_seq;
        if f.homa.is_some() {
            let (offset, prio) = unpack_grant(p.data_seq);
            f.cc.on_grant(offset, prio);
            data_seq = p.seq;
        }
        if p.kind == Kind::Nack {
            // go back N, as RDMA NICs do
            f.snd_nxt = f.snd_una;
            f.cc.on_nack(now);
        } else {
            let ev = AckEvent {
                now,
                acked_bytes: newly,
                seq: data_seq,
                snd_una: f.snd_una,
                snd_nxt: f.snd_nxt,
                rtt: now - p.sent_at,
                ecn: p.ce,
                int: &self.pool.int(pkt)[..p.n_hops as usize],
                max_hop_delay: p.max_hop_delay,
                hops: p.n_hops,
                cwnd_limited: f.cwnd_limited,
            };
            f.cc.on_ack(&ev);
        }
        f.cwnd = f.cc.cwnd();
        f.rate = f.cc.pacing_rate();
        let src = f.src;
        if f.snd_una >= f.size {
            f.done = true;
            f.end = now;
            self.out.summary.flows_completed += 1;
            let hs = &mut self.hosts[src as usize];
            if let Some(pos) = hs.flows.iter().position(|&x| x == fid) {
                hs.flows.remove(pos);
                if hs.rr > pos {
                    hs.rr -= 1;
                }
            }
        } else {
            self.sync_cc_timer(fid);
        }
        self.host_send(src);
    }

    fn rto(&mut self, fid: u32) {
        let now = self.sched.now;
        let f = &mut self.flows[fid as usize];
        f.rto_pending = false;
        if f.done || f.snd_nxt == f.snd_una {
            return;
        }
        if now < f.rto_deadline {
            f.rto_pending = true;
            self.sched.at(f.rto_deadline, EvKind::Rto, fid, 0);
            return;
        }
        f.timeouts += 1;
        f.snd_nxt = f.snd_una;
        f.cc.on_timeout(now);
        f.cwnd = f.cc.cwnd();
        f.rate = f.cc.pacing_rate();
        f.next_send = now;
        f.rto_deadline = now + self.cfg.host.rto_ps;
        f.rto_pending = true;
        self.sched.at(f.rto_deadline, EvKind::Rto, fid, 0);
        let src = f.src;
        self.sync_cc_timer(fid);
        self.host_send(src);
    }

    /// Re-arm the controller's own timer if it asks for a different time (versioned events).
    #[inline]
    fn sync_cc_timer(&mut self, fid: u32) {
        let f = &mut self.flows[fid as usize];
        let want = f.cc.timer();
        if want != f.cc_timer {
            f.cc_timer = want;
            f.cc_timer_version = f.cc_timer_version.wrapping_add(1);
            if let Some(t) = want {
                let t = t.max(self.sched.now);
                self.sched.at(t, EvKind::CcTimer, fid, f.cc_timer_version);
            }
        }
    }

    fn cc_timer(&mut self, fid: u32, version: u32) {
        let now = self.sched.now;
        let f = &mut self.flows[fid as usize];
        if f.done || version != f.cc_timer_version {
            return;
        }
        f.cc_timer = None;
        f.cc.on_timer(now);
        f.cwnd = f.cc.cwnd();
        f.rate = f.cc.pacing_rate();
        let src = f.src;
        self.sync_cc_timer(fid);
        self.host_send(src);
    }

    // ---------------------------------------------------------------- metrics

    fn sample(&mut self) {
        let now = self.sched.now;
        let ps = &mut self.out.port_series;
        for (i, &p) in self.monitored.iter().enumerate() {
            let st = &self.ports[p as usize];
            ps.time_ps.push(now);
            ps.port.push(self.out.ports.port[i]);
            ps.queue_bytes.push(st.queue_bytes);
            ps.tx_bytes.push(st.tx_bytes);
        }
        if self.cfg.metrics.flows {
            let fs = &mut self.out.flow_series;
            for (id, f) in self.flows.iter().enumerate() {
                if f.started && !f.done {
                    fs.time_ps.push(now);
                    fs.flow_id.push(id as u32);
                    fs.cwnd_bytes.push(f.cwnd);
                    fs.rate_bps.push(f.rate);
                    fs.bytes_acked.push(f.snd_una);
                }
            }
        }
        let next = now + self.cfg.metrics.sample_interval_ps;
        if next <= self.cfg.duration_ps {
            self.sched.at(next, EvKind::Sample, 0, 0);
        }
    }

    fn finish(mut self, until: Time) -> Results {
        let s = &mut self.out.summary;
        s.sim_time_ps = until;
        s.events = self.sched.processed;
        s.packets_in_flight = self.pool.live() as u64;
        let t = &mut self.out.flows;
        for (i, f) in self.flows.iter().enumerate() {
            let long = f.size == u64::MAX;
            t.flow_id.push(i as u32);
            t.src.push(f.src);
            t.dst.push(f.dst);
            t.size_bytes.push(if long { -1 } else { f.size as i64 });
            t.start_ps.push(f.start as i64);
            t.end_ps.push(if f.done { f.end as i64 } else { -1 });
            t.bytes_acked.push(f.snd_una);
            t.base_rtt_ps.push(f.base_rtt as i64);
            t.ideal_fct_ps.push(if long { -1 } else { f.ideal_fct as i64 });
            t.retransmits.push(f.retransmits);
            t.timeouts.push(f.timeouts);
        }
        self.out
    }
}
