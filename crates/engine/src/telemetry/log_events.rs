//! The debug log's engine components (`[metrics] log = ["fabric:node=tor0", "transport:flow=3"]`):
//! what the NIC, the fabric and the transport do, one line per event, in the same file and format
//! as the `cc` lines (`log.rs`):
//!
//! ```text
//! TIME_US flow=ID node=NAME COMPONENT EVENT key=value ...
//! ```
//!
//! - `nic` (node = the host): `data` (a data packet of the flow leaves the NIC), `ctl` (an ACK or
//!   NACK leaves it), `sleep` (every flow waits for its pacing: the NIC wakes `until=`).
//! - `fabric` (node = the switch owning the egress port): `enqueue`, `dequeue` (with the time it
//!   waited), `mark` (ECN CE set at dequeue), `drop` (not admitted), and PFC: `pause`/`resume`
//!   (a frame sent by `port` for `prio`) and `paused`/`resumed` (a frame took effect on `port`;
//!   both of no flow: `flow=-`).
//! - `transport` (node = the sending host): `send`, `retransmit`, `ack`, `nack`, `timeout`.
//!
//! Cost when off. Transport events and the NIC's `sleep`: `Core::log` is `None` unless a filter
//! names `transport` or `nic`, and each call site is `log_event!(core, writer(args))` = `if let
//! Some(l) = &mut core.log { l.writer(args) }` (one load and one untaken branch; the arguments
//! are computed only when the log is on). Packets leaving a port (`dequeue`, `mark`, `data`,
//! `ctl`) are seen by the fabric's transmission tap (`Capture::on_tx`), which is checked on every
//! transmission anyway: no new check per hop; enqueue, drop and PFC sites are
//! `fabric_log!(fabric, writer(args))` on the same tap (one untaken branch per enqueue). The
//! writers are out of line and cold.

/// `log_event!(core, writer(args…))`: call `EventLog::writer` when the run's log of transport or
/// NIC events is on. One line at each call site in the layers; `core` is the handler's `&mut Core`.
#[macro_export]
macro_rules! log_event {
    ($core:expr, $writer:ident($($arg:expr),* $(,)?)) => {
        if let Some(l) = &mut $core.log {
            l.$writer($($arg),*)
        }
    };
}

/// `fabric_log!(fabric, writer(args…))`: call `EventLog::writer` when the fabric's tap carries the
/// log of fabric events (`Fabric::capture`).
#[macro_export]
macro_rules! fabric_log {
    ($fabric:expr, $writer:ident($($arg:expr),* $(,)?)) => {
        if let Some(l) = $fabric.capture.as_deref_mut().and_then(|c| c.log.as_deref_mut()) {
            l.$writer($($arg),*)
        }
    };
}

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use super::log::{append, us, Filter};
use crate::core::{FlowId, HostId, NodeId, PortId};
use crate::packet::{Kind, Packet, PktId};
use crate::time::Time;
use crate::topo::Network;

/// A fabric event of one packet at one switch egress port (its leaving is `EventLog::tx`).
#[derive(Clone, Copy, Debug)]
pub enum Fab {
    Enqueue,
    Drop,
}

/// A transport event of one flow at its sender.
#[derive(Clone, Copy, Debug)]
pub enum Tp {
    /// A data segment: its sequence number and payload bytes.
    Send {
        seq: u64,
        bytes: u64,
    },
    Retransmit {
        seq: u64,
        bytes: u64,
    },
    /// A cumulative ACK (or NACK): its sequence number, the bytes it newly acknowledged, the RTT.
    Ack {
        seq: u64,
        newly: u64,
        rtt: Time,
        ce: bool,
    },
    Nack {
        seq: u64,
    },
    /// The retransmission timer fired with `snd_una`; the next one waits `rto` (ps).
    Timeout {
        una: u64,
        rto: Time,
    },
}

impl Tp {
    /// A data segment sent, `resend` when below the highest sequence already sent.
    pub fn sent(resend: bool, seq: u64, bytes: u64) -> Tp {
        if resend {
            Tp::Retransmit { seq, bytes }
        } else {
            Tp::Send { seq, bytes }
        }
    }

    /// An ACK or NACK of `kind` arrived.
    pub fn ack(kind: Kind, seq: u64, newly: u64, rtt: Time, ce: bool) -> Tp {
        if kind == Kind::Nack {
            Tp::Nack { seq }
        } else {
            Tp::Ack { seq, newly, rtt, ce }
        }
    }
}

/// The log of the NIC, fabric and transport events that pass its filters.
pub struct EventLog {
    filters: Vec<Filter>,
    port_node: Vec<NodeId>,
    port_name: Vec<String>,
    node_name: Vec<String>,
    /// Whether a port is a host's NIC (its transmissions are `nic` events, else `fabric`).
    port_host: Vec<bool>,
    /// Per packet: when, on which port and with which CE mark it was last enqueued at a switch
    /// (its `dequeue` line's wait and `mark`); grown on demand, only while the log is on.
    enq: Vec<(Time, PortId, bool)>,
    text: Arc<Mutex<String>>,
    /// The line being built (reused).
    line: String,
}

impl EventLog {
    pub fn new(filters: Vec<Filter>, net: &Network, text: Arc<Mutex<String>>) -> EventLog {
        EventLog {
            filters,
            port_node: net.ports.iter().map(|p| p.node).collect(),
            port_name: net.ports.iter().map(|p| p.name.clone()).collect(),
            node_name: net.nodes.iter().map(|n| n.name.clone()).collect(),
            port_host: net.ports.iter().map(|p| net.nodes[p.node as usize].is_host).collect(),
            enq: Vec::new(),
            text,
            line: String::new(),
        }
    }

    /// Start a line when an event of `component`, `flow` at `node` passes a filter.
    fn begin(&mut self, component: &str, event: &str, now: Time, flow: Option<FlowId>, node: NodeId) -> bool {
        if !self.filters.iter().any(|f| f.component == component && f.matches(flow, node)) {
            return false;
        }
        self.line.clear();
        let flow = flow.map_or("-".to_string(), |f| f.to_string());
        let _ = write!(self.line, "{} flow={flow} node={} {component} {event}", us(now), self.node_name[node as usize]);
        true
    }

    fn end(&mut self) {
        self.line.push('\n');
        append(&self.text, &self.line);
    }

    /// A packet's identity: its kind, sequence number, size and priority.
    fn packet(&mut self, p: &Packet) {
        let kind = match p.kind {
            Kind::Data => "data",
            Kind::Ack => "ack",
            Kind::Nack => "nack",
        };
        let _ = write!(self.line, " pkt={kind} seq={} size={} prio={}", p.seq, p.size, p.prio);
    }

    /// Packet `pkt` (`p`) enqueued at or dropped by switch egress port `port`, whose queue then
    /// holds `qlen` bytes.
    #[cold]
    #[inline(never)]
    pub fn fabric(&mut self, now: Time, ev: Fab, port: PortId, pkt: PktId, p: &Packet, qlen: u64) {
        match ev {
            Fab::Enqueue => {
                if self.enq.len() <= pkt as usize {
                    self.enq.resize(pkt as usize + 1, (0, PortId::MAX, false));
                }
                self.enq[pkt as usize] = (now, port, p.ce);
                self.fabric_line("enqueue", now, port, p, qlen, None)
            }
            Fab::Drop => self.fabric_line("drop", now, port, p, qlen, None),
        }
    }

    /// Packet `pkt` (`p`) starts its transmission on `port`, leaving `qlen` bytes queued: a NIC's
    /// `data` or `ctl`, or a switch's `dequeue` (preceded by `mark` when its CE mark was set at
    /// this dequeue).
    #[cold]
    #[inline(never)]
    pub fn tx(&mut self, now: Time, port: PortId, pkt: PktId, p: &Packet, qlen: u64) {
        if self.port_host[port as usize] {
            let name = if p.kind == Kind::Data { "data" } else { "ctl" };
            if self.begin("nic", name, now, Some(p.flow), self.port_node[port as usize]) {
                self.packet(p);
                self.end();
            }
            return;
        }
        // the wait and the mark are known when this port enqueued it (not for a VOQ's packets)
        let at = self.enq.get(pkt as usize).copied().filter(|e| e.1 == port);
        if at.is_some_and(|e| p.kind == Kind::Data && p.ce && !e.2) {
            self.fabric_line("mark", now, port, p, qlen, None);
        }
        self.fabric_line("dequeue", now, port, p, qlen, at.map(|e| now - e.0));
    }

    fn fabric_line(&mut self, event: &str, now: Time, port: PortId, p: &Packet, qlen: u64, waited: Option<Time>) {
        if !self.begin("fabric", event, now, Some(p.flow), self.port_node[port as usize]) {
            return;
        }
        let _ = write!(self.line, " port={}", self.port_name[port as usize]);
        self.packet(p);
        let _ = write!(self.line, " qlen={qlen}");
        if let Some(w) = waited {
            let _ = write!(self.line, " waited={}us", us(w));
        }
        self.end();
    }

    /// A PFC frame for `prio`: sent by switch port `port` (`sent`), or taking effect on egress
    /// port `port`.
    #[cold]
    #[inline(never)]
    pub fn pfc(&mut self, now: Time, port: PortId, prio: u8, pause: bool, sent: bool) {
        let name = match (pause, sent) {
            (true, true) => "pause",
            (false, true) => "resume",
            (true, false) => "paused",
            (false, false) => "resumed",
        };
        if self.begin("fabric", name, now, None, self.port_node[port as usize]) {
            let _ = write!(self.line, " port={} prio={prio}", self.port_name[port as usize]);
            self.end();
        }
    }

    /// Host `host`'s NIC has nothing it may send before `until` (every flow waits for pacing).
    #[cold]
    #[inline(never)]
    pub fn nic_sleep(&mut self, now: Time, host: HostId, until: Time) {
        if self.begin("nic", "sleep", now, None, host) {
            let _ = write!(self.line, " until={}us", us(until));
            self.end();
        }
    }

    /// A transport event of flow `flow`, sent from `host`.
    #[cold]
    #[inline(never)]
    pub fn transport(&mut self, now: Time, flow: FlowId, host: HostId, ev: Tp) {
        let name = match ev {
            Tp::Send { .. } => "send",
            Tp::Retransmit { .. } => "retransmit",
            Tp::Ack { .. } => "ack",
            Tp::Nack { .. } => "nack",
            Tp::Timeout { .. } => "timeout",
        };
        if !self.begin("transport", name, now, Some(flow), host) {
            return;
        }
        let l = &mut self.line;
        let _ = match ev {
            Tp::Send { seq, bytes } | Tp::Retransmit { seq, bytes } => write!(l, " seq={seq} bytes={bytes}"),
            Tp::Ack { seq, newly, rtt, ce } => write!(l, " seq={seq} newly={newly} rtt={}us ce={}", us(rtt), ce as u8),
            Tp::Nack { seq } => write!(l, " seq={seq}"),
            Tp::Timeout { una, rto } => write!(l, " una={una} next_rto={}us", us(rto)),
        };
        self.end();
    }
}
