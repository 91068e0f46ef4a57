//! The reliable transport: one endpoint pair per flow (the sender at `src`, the receiver at
//! `dst`), with a byte sequence space, an ACK per data packet echoing INT/ECN/send time, loss
//! recovery by go-back-N on NACK as RDMA NICs do or by SACK as Linux TCP does (`host.recovery`,
//! `sack`), a retransmission timeout, and the flow's congestion controller, which
//! sees only events and returns a window and a pacing rate. Homa's receiver-driven grants are in
//! `homa`. The NIC (`crate::nic`) decides when an endpoint may put a packet on the wire.

pub mod homa;
pub mod host_queue;
pub mod multipath;
pub mod prr;
pub mod receiver;
pub mod sack;
pub mod sender;

use crate::cc::{CongestionControl, Header};
use crate::config::HostConfig;
use crate::core::{Core, FlowId, HostId};
use crate::sim::EvKind;
use crate::telemetry::log_events::Tp;
use crate::time::Time;

/// What the flow is: fixed when it is created.
#[derive(Clone, Copy)]
pub struct FlowInfo {
    pub src: HostId,
    pub dst: HostId,
    /// u64::MAX for a long-lived flow.
    pub size: u64,
    pub start: Time,
    /// Header bytes of each data packet (`Wire::data_header` for the flow's law).
    pub data_header: u32,
    pub base_rtt: Time,
    /// Switches on the forward path (every equal-cost path has the same number): the hop count a
    /// receiver reads off the TTL, independent of INT (Swift's target uses it).
    pub switch_hops: u8,
    pub ideal_fct: Time,
    /// The artifact's definition of the ideal FCT (build.rs), for comparisons with its figures.
    pub ideal_fct_artifact: Time,
    /// The previous message of the same connection (`config::FlowSpec::follows`).
    pub follows: Option<FlowId>,
    /// Index of the scenario flow (= connection) this endpoint carries (or one subflow of).
    pub connection: u32,
}

/// The sender's sequence space, window and pacing.
pub struct Sender {
    pub snd_nxt: u64,
    pub snd_una: u64,
    pub high_sent: u64,
    pub cwnd: f64,
    pub rate: f64,
    pub next_send: Time,
    /// The window was the limit at the last transmission (see `AckEvent::cwnd_limited`).
    pub cwnd_limited: bool,
    /// The NIC's own cap on bytes in flight (the RDMA NIC's maxBdp window; ∞ for TCP).
    pub window_cap: f64,
    /// A Linux sender on the `tcp` NIC: what its host queue would hold counts as in flight when
    /// deciding `cwnd_limited` (host_queue.rs); None: the bytes on the wire alone.
    pub host_queue: Option<host_queue::HostQueue>,
    /// Bytes of the earlier messages of this flow's connection: the controller sees one sequence
    /// space per connection (its `AckEvent` sequence numbers are offset by this).
    pub seq_base: u64,
    /// SACK recovery's scoreboard (`host.recovery = "sack"`); None: go-back-N. With it, `snd_nxt`
    /// is the next segment to send (a hole to repair, else `high_sent`) and `pipe` is in flight.
    pub sack: Option<Box<sack::Scoreboard>>,
    /// The scoreboard's `pipe`, kept here for the NIC's per-packet window check; `NO_PIPE` under
    /// go-back-N.
    pub pipe: u64,
    pub cc: Box<dyn CongestionControl>,
}

/// `Sender::pipe` of a go-back-N flow.
pub const NO_PIPE: u64 = u64::MAX;

impl Sender {
    /// The window has room for another packet and data is left to send.
    #[inline]
    pub fn window_open(&self, size: u64) -> bool {
        self.snd_nxt < size && (self.in_flight() as f64) < self.cwnd
    }
    /// Bytes in flight: RFC 6675's `pipe` under SACK recovery, else all sent and not acknowledged.
    #[inline]
    pub fn in_flight(&self) -> u64 {
        if self.pipe == NO_PIPE {
            self.snd_nxt - self.snd_una
        } else {
            self.pipe
        }
    }
    /// Copy the scoreboard's `pipe` and next segment after it changed (SACK recovery only).
    #[inline]
    pub fn sync_sack(&mut self) {
        if let Some(s) = &self.sack {
            self.pipe = s.pipe;
            self.snd_nxt = s.next_seq(self.high_sent);
        }
    }
    /// Read back window and pacing rate after a congestion-control callback.
    #[inline]
    pub fn refresh(&mut self) {
        self.cwnd = self.cc.cwnd().min(self.window_cap);
        self.rate = self.cc.pacing_rate();
    }
}

/// The receiver's in-order point and NACK throttling.
pub struct Receiver {
    pub rcv_nxt: u64,
    pub last_nack_at: Time,
    pub last_nack_seq: u64,
    /// Out-of-order data held above `rcv_nxt` under SACK recovery (allocated with the flow);
    /// None: go-back-N (out-of-order data is dropped and NACKed).
    pub ooo: Option<Box<sack::Ranges>>,
}

/// Timers: the controller's own (versioned, stale events ignored) and the retransmission timer.
pub struct Timers {
    pub cc_at: Option<Time>,
    pub cc_version: u32,
    pub rto_deadline: Time,
    pub rto_pending: bool,
    /// Consecutive timeouts since new data was last acknowledged (Linux's `icsk_backoff`).
    pub rto_backoff: u32,
}

/// Linux's `TCP_RTO_MAX`: a backed-off retransmission timeout stops doubling at 120 s.
pub const RTO_MAX: Time = 120 * crate::time::SEC;

/// (Deadlines are `now.saturating_add(…)`: a timeout as long as the time type holds, which the
/// schema allows, never fires instead of wrapping into the past; found by tests/fuzz_config.rs.)
///
/// The retransmission timeout after `backoff` consecutive timeouts: `rto`·2^backoff up to
/// [`RTO_MAX`] (never below `rto`) with `host.rto_backoff`, else `rto` (RFC 6298 §5.5).
#[inline]
pub fn rto_after(host: &HostConfig, backoff: u32) -> Time {
    if !host.rto_backoff || backoff == 0 {
        return host.rto_ps;
    }
    host.rto_ps.saturating_mul(1u64 << backoff.min(62)).min(RTO_MAX.max(host.rto_ps))
}

/// Outcome counters of one flow.
#[derive(Default)]
pub struct FlowStats {
    pub started: bool,
    pub done: bool,
    pub end: Time,
    /// When its first data packet was sent (None: not yet; `crate::invariants`).
    pub first_tx: Option<Time>,
    pub retransmits: u64,
    pub timeouts: u64,
}

pub struct Endpoint {
    pub info: FlowInfo,
    pub tx: Sender,
    pub rx: Receiver,
    pub timers: Timers,
    pub stats: FlowStats,
    /// Receiver-driven flow (Homa): the receiver's grant state.
    pub homa: Option<homa::GrantState>,
    /// Multipath: index of the connection this subflow belongs to (`multipath::NO_CONN` for a
    /// single-path flow) and its subflow number.
    pub conn: u32,
    pub subflow: u32,
}

impl Endpoint {
    /// `window_cap`: the NIC's cap on bytes in flight (f64::INFINITY for none).
    pub fn new(info: FlowInfo, mut cc: Box<dyn CongestionControl>, window_cap: f64) -> Self {
        let homa = cc.receiver_driven().map(|r| homa::GrantState::new(r.grant_policy(), info.size));
        Endpoint {
            tx: Sender {
                snd_nxt: 0,
                snd_una: 0,
                high_sent: 0,
                cwnd: cc.cwnd().min(window_cap),
                rate: cc.pacing_rate(),
                next_send: 0,
                cwnd_limited: false,
                window_cap,
                host_queue: None,
                seq_base: 0,
                sack: None,
                pipe: NO_PIPE,
                cc,
            },
            rx: Receiver { rcv_nxt: 0, last_nack_at: 0, last_nack_seq: u64::MAX, ooo: None },
            timers: Timers { cc_at: None, cc_version: 0, rto_deadline: 0, rto_pending: false, rto_backoff: 0 },
            stats: FlowStats::default(),
            homa,
            info,
            conn: multipath::NO_CONN,
            subflow: 0,
        }
    }

    /// Recover losses by SACK (`host.recovery = "sack"`): the receiver keeps out-of-order data,
    /// the sender a scoreboard (sack.rs). Allocated once, here, for the flow's lifetime.
    /// `mss`: the payload of a full segment (it sizes the range lists, `sack::capacity`).
    pub fn use_sack(&mut self, mss: u64) {
        let n = sack::capacity(mss);
        self.tx.sack = Some(Box::new(sack::Scoreboard::new(n)));
        self.tx.pipe = 0;
        self.rx.ooo = Some(Box::new(sack::Ranges::new(n)));
    }

    /// The flow may send now or later (window open, data left).
    #[inline]
    pub fn window_open(&self) -> bool {
        self.tx.window_open(self.info.size)
    }
    /// A receiver-driven (Homa) message is served shortest-remaining-first by its sender's NIC:
    /// the bytes it has left to transmit. None for a flow served round-robin.
    #[inline]
    pub fn srpt_key(&self) -> Option<u64> {
        self.homa.map(|_| self.info.size - self.tx.snd_nxt.min(self.info.size))
    }
    /// Switch priority of the next data packet (PFC pauses per priority).
    #[inline]
    pub fn next_priority(&self) -> u8 {
        self.tx.cc.priority(self.tx.snd_nxt)
    }
}

/// Per-packet sizes and timers of the hosts' transport.
#[derive(Clone, Copy)]
pub struct Wire {
    pub payload: u64,
    /// Header bytes of every data packet.
    pub header: u64,
    /// Extra bytes of a packet of an INT-reading law (0 when INT is off).
    pub int_header: u64,
    /// Extra bytes of a packet of a law that reads a send timestamp.
    pub ts_header: u64,
    pub ack_bytes: u32,
    /// The host section itself, for the timers (`rto_ps`, the NACK spacing) read where they act.
    pub host: HostConfig,
}

impl Wire {
    pub fn new(h: &HostConfig, int_enabled: bool) -> Self {
        Wire {
            payload: h.payload_bytes as u64,
            header: h.header_bytes as u64,
            int_header: if int_enabled { h.int_header_bytes as u64 } else { 0 },
            ts_header: h.ts_header_bytes as u64,
            ack_bytes: h.ack_bytes,
            host: *h,
        }
    }
    /// Header bytes of a data packet of a flow whose law needs `t`.
    pub fn data_header(&self, t: Header) -> u64 {
        self.header
            + match t {
                Header::None => 0,
                Header::Timestamp => self.ts_header,
                Header::Int => self.int_header,
            }
    }
    /// The largest data packet any flow may send: what the fabric is sized for (buffer floor,
    /// PFC headroom, the automatic base RTT τ).
    pub fn largest_data_packet(&self) -> u64 {
        self.payload + self.header + self.int_header.max(self.ts_header)
    }
}

pub struct Transport {
    pub flows: Vec<Endpoint>,
    pub wire: Wire,
    /// Receiver-driven messages arriving at each host and not yet complete.
    pub homa_in: Vec<Vec<FlowId>>,
    /// `next[p]`: the message waiting for flow p to finish (its connection's next), or NO_FLOW.
    next: Vec<FlowId>,
    /// Multipath connections (their subflows are flows).
    pub conns: Vec<multipath::Connection>,
    /// Connections that start when others complete (`FlowSpec::after`).
    pub deps: crate::traffic::Deps,
}

const NO_FLOW: FlowId = FlowId::MAX;

impl Transport {
    pub fn new(flows: Vec<Endpoint>, wire: Wire, hosts: usize, conns: Vec<multipath::Connection>) -> Self {
        let next = if flows.iter().any(|f| f.info.follows.is_some()) { vec![NO_FLOW; flows.len()] } else { vec![] };
        Transport { flows, wire, homa_in: vec![Vec::new(); hosts], next, conns, deps: Default::default() }
    }

    /// Bring flow `fid`'s endpoint toward L1 (the event loop's look-ahead, for an arrival at a
    /// host). By address, without a reference: in a threaded run the other half of the flow
    /// may belong to another thread's partition.
    #[inline]
    pub fn prefetch_flow(&self, fid: FlowId) {
        if (fid as usize) < self.flows.len() {
            crate::prefetch::object(self.flows.as_ptr().wrapping_add(fid as usize));
        }
    }

    /// A message of a connection arrived (`follows` = Some(p)): if p has not finished it waits
    /// (returns false); otherwise it takes over p's congestion controller, so the connection's
    /// window, rate and RTT estimates carry on from message to message.
    fn join_connection(&mut self, fid: FlowId) -> bool {
        let Some(p) = self.flows[fid as usize].info.follows else { return true };
        if !self.flows[p as usize].stats.done {
            self.next[p as usize] = fid;
            return false;
        }
        let (lo, hi) = self.flows.split_at_mut(fid as usize); // p < fid (build.rs)
        let prev = &mut lo[p as usize];
        std::mem::swap(&mut prev.tx.cc, &mut hi[0].tx.cc);
        hi[0].tx.seq_base = prev.tx.seq_base + prev.info.size;
        if prev.info.dst != hi[0].info.dst {
            hi[0].tx.cc.on_new_path();
        }
        hi[0].tx.refresh();
        true
    }

    /// Flow `fid` finished: the message waiting for it on its connection, if it has arrived.
    pub fn finished(&mut self, fid: FlowId) -> Option<FlowId> {
        let n = *self.next.get(fid as usize)?;
        (n != NO_FLOW).then_some(n)
    }

    /// Re-arm the controller's own timer if it asks for a different time (versioned events).
    #[inline]
    pub fn sync_cc_timer(&mut self, core: &mut Core, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        let want = f.tx.cc.timer();
        if want != f.timers.cc_at {
            f.timers.cc_at = want;
            f.timers.cc_version = f.timers.cc_version.wrapping_add(1);
            if let Some(t) = want {
                let t = t.max(core.sched.now);
                core.sched.at(t, EvKind::CcTimer, fid, f.timers.cc_version);
            }
        }
    }

    /// The flow starts: its sender becomes eligible at its host's NIC. Returns the host, or None
    /// while the message waits for the previous one of its connection.
    pub fn flow_start(&mut self, core: &mut Core, fid: FlowId) -> Option<HostId> {
        if !self.join_connection(fid) {
            return None;
        }
        let f = &mut self.flows[fid as usize];
        f.stats.started = true;
        f.tx.next_send = core.sched.now;
        let src = f.info.src;
        self.sync_cc_timer(core, fid);
        Some(src)
    }

    /// The retransmission timer of `fid` fired. Returns the host whose NIC should be served, if any.
    pub fn rto(&mut self, core: &mut Core, fid: FlowId) -> Option<HostId> {
        let now = core.sched.now;
        let host = self.wire.host;
        let f = &mut self.flows[fid as usize];
        f.timers.rto_pending = false;
        if f.stats.done || f.tx.snd_una >= f.tx.high_sent {
            return None; // nothing outstanding
        }
        if now < f.timers.rto_deadline {
            f.timers.rto_pending = true;
            core.sched.at(f.timers.rto_deadline, EvKind::Rto, fid, 0);
            return None;
        }
        f.stats.timeouts += 1;
        f.tx.snd_nxt = f.tx.snd_una;
        if let Some(s) = &mut f.tx.sack {
            s.on_timeout(f.tx.snd_una, f.tx.high_sent, host.payload_bytes as u64);
            f.tx.sync_sack();
        }
        f.tx.cc.on_timeout(now);
        f.tx.refresh();
        f.tx.next_send = now;
        // the retransmission waits twice as long as the timeout that sent it (Linux, ns-3)
        f.timers.rto_backoff = f.timers.rto_backoff.saturating_add(1);
        f.timers.rto_deadline = now.saturating_add(rto_after(&host, f.timers.rto_backoff));
        f.timers.rto_pending = true;
        core.sched.at(f.timers.rto_deadline, EvKind::Rto, fid, 0);
        let src = f.info.src;
        crate::log_event!(core, transport(now, fid, src, Tp::Timeout { una: f.tx.snd_una, rto: f.timers.rto_deadline - now }));
        if f.conn != multipath::NO_CONN {
            self.mp_view(fid, None);
        }
        self.sync_cc_timer(core, fid);
        Some(src)
    }

    /// The controller's own timer of `fid` fired (ignored when stale).
    pub fn cc_timer(&mut self, core: &mut Core, fid: FlowId, version: u32) -> Option<HostId> {
        let now = core.sched.now;
        let f = &mut self.flows[fid as usize];
        if f.stats.done || version != f.timers.cc_version {
            return None;
        }
        f.timers.cc_at = None;
        f.tx.cc.on_timer(now);
        f.tx.refresh();
        let src = f.info.src;
        if f.conn != multipath::NO_CONN {
            self.mp_view(fid, None);
        }
        self.sync_cc_timer(core, fid);
        Some(src)
    }

    /// The circuit from rack `src_rack` to rack `dst_rack` came up or went down: the ToR's
    /// notification reaches the controller of every active flow between the two racks at once.
    /// Returns the sending hosts (their windows may have opened).
    pub fn circuit_signal(&mut self, core: &mut Core, servers: u32, src_rack: u32, dst_rack: u32, up: bool) -> Vec<HostId> {
        let now = core.sched.now;
        let mut hosts = Vec::new();
        for f in &mut self.flows {
            if f.stats.started && !f.stats.done && f.info.src / servers == src_rack && f.info.dst / servers == dst_rack {
                if let Some(c) = f.tx.cc.circuit_aware() {
                    c.on_circuit(now, up);
                }
                f.tx.refresh();
                hosts.push(f.info.src);
            }
        }
        hosts
    }
}

#[cfg(test)]
mod sack_tests;

#[cfg(test)]
mod rto_tests {
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn the_backed_off_rto_doubles_up_to_linuxs_maximum() {
        let mut h = HostConfig { rto_ps: MS, ..HostConfig::default() };
        let waits: Vec<Time> = (0..4).map(|b| rto_after(&h, b)).collect();
        assert_eq!(waits, vec![MS, 2 * MS, 4 * MS, 8 * MS]);
        assert_eq!(rto_after(&h, 17), 120 * SEC); // 2^17 ms = 131 s: capped at TCP_RTO_MAX
        assert_eq!(rto_after(&h, u32::MAX), 120 * SEC);
        h.rto_ps = 200 * SEC; // an rto above the cap is never shortened
        assert_eq!(rto_after(&h, 3), 200 * SEC);
        h = HostConfig { rto_ps: MS, rto_backoff: false, ..HostConfig::default() };
        assert_eq!(rto_after(&h, 5), MS);
    }
}
