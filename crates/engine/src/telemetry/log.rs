//! The debug log (`[metrics] log = ["cc:flow=3,node=h2"]`, `dccsim run … --log cc:flow=3`): a
//! readable line per event of the chosen component, for the chosen flows and nodes.
//!
//! Mechanism: a flow whose controller is logged gets it wrapped in `LoggedCc`, which forwards
//! every call to the controller and writes one line with the event's inputs, the controller's
//! outputs (window, pacing rate, timer) and every variable it reports (`CongestionControl::trace`,
//! so a plugin's declared variables too). Flows that are not logged keep their controller as it
//! is: with the log off, nothing in the run changes and nothing is checked per event (zero cost
//! by construction). The lines go to `Results::log` (log.txt in the output directory), in event
//! order, deterministic (the same run gives the same bytes).
//!
//! Components: `cc` (every controller call: ack, loss, timeout, timer, send), and `nic`,
//! `fabric`, `transport` (`log_events.rs`: the engine's own events, written from one-line call
//! sites that test `Core::log` or the fabric's transmission tap, `None` when not asked for). Filters: `flow=N` (a flow
//! id, as in flows.parquet) and `node=NAME` (a topology node: the sending host for `cc`,
//! `transport` and `nic`, the port's owner for `fabric`); each filter present must match. Every
//! line starts `TIME_US flow=ID node=NAME COMPONENT EVENT` (`flow=-` for a PFC frame). Lines are
//! capped at `MAX_BYTES`; the cut is said in the last line.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use super::log_events::EventLog;
use crate::cc::{AckEvent, CircuitAware, CongestionControl, Coupled, Header, ReceiverDriven};
use crate::config::ConfigError;
use crate::time::Time;
use crate::topo::Network;

/// Components the log can follow.
pub const COMPONENTS: [&str; 4] = ["cc", "nic", "fabric", "transport"];

/// At most this many bytes of log per run (a log of every event of a large run would not fit).
pub const MAX_BYTES: usize = 256 << 20;

/// One `component[:key=value,...]` filter.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub component: &'static str,
    pub flow: Option<u32>,
    pub node: Option<u32>,
}

impl Filter {
    /// Parse `spec` (element `i` of `metrics.log`), `node` naming a topology node (its index by
    /// `node_id`); errors name the element and what is allowed.
    pub fn parse(spec: &str, i: usize, node_id: &dyn Fn(&str) -> Option<u32>) -> Result<Filter, ConfigError> {
        let field = format!("metrics.log[{i}]");
        let bad = |m: String| ConfigError::new(&field, m);
        let (comp, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let component = COMPONENTS
            .iter()
            .find(|c| **c == comp.trim())
            .ok_or_else(|| bad(format!("unknown component {comp:?}; allowed: {}", COMPONENTS.join(", "))))?;
        let mut f = Filter { component, flow: None, node: None };
        for kv in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| bad(format!("{kv:?} is not key=value; keys: flow, node")))?;
            match k.trim() {
                "flow" => f.flow = Some(v.trim().parse().map_err(|_| bad(format!("flow={v}: a flow id (0, 1, …) is expected")))?),
                "node" => {
                    let known = node_id(v.trim());
                    f.node = Some(known.ok_or_else(|| bad(format!("node={v}: not a node of the topology (h0, h1, …, or a switch name)")))?)
                }
                other => return Err(bad(format!("unknown filter {other:?}; allowed: flow, node"))),
            }
        }
        Ok(f)
    }

    /// Whether an event of `flow` (None: of no flow, a PFC frame) at `node` passes.
    pub(super) fn matches(&self, flow: Option<u32>, node: u32) -> bool {
        self.flow.map_or(true, |f| Some(f) == flow) && self.node.map_or(true, |n| n == node)
    }
}

/// The run's log: the filters and the text written so far.
#[derive(Clone, Default)]
pub struct Log {
    filters: Vec<Filter>,
    text: Arc<Mutex<String>>,
}

impl Log {
    /// The log of `specs` (`metrics.log`) on `net`; an empty list is the log off.
    pub fn new(specs: &[String], net: &Network) -> Result<Log, ConfigError> {
        let node_id = |name: &str| net.nodes.iter().position(|n| n.name == name).map(|i| i as u32);
        let filters = specs.iter().enumerate().map(|(i, s)| Filter::parse(s, i, &node_id)).collect::<Result<_, _>>()?;
        Ok(Log { filters, text: Arc::default() })
    }

    /// The log of `components`' events (`Core::log` for transport and the NIC's sleep, the
    /// fabric's tap for fabric and NIC transmissions): None when no filter names one of them, so
    /// that their call sites cost one untaken branch.
    pub fn events(&self, net: &Network, components: &[&str]) -> Option<Box<EventLog>> {
        let filters: Vec<Filter> = self.filters.iter().filter(|f| components.contains(&f.component)).cloned().collect();
        (!filters.is_empty()).then(|| Box::new(EventLog::new(filters, net, self.text.clone())))
    }

    /// Flow `flow` (sent from host `node`)'s controller, wrapped when its `cc` events are logged.
    pub fn wrap_cc(&self, cc: Box<dyn CongestionControl>, flow: u32, node: u32) -> Box<dyn CongestionControl> {
        if self.filters.iter().any(|f| f.component == "cc" && f.matches(Some(flow), node)) {
            Box::new(LoggedCc { inner: cc, flow, node, text: self.text.clone(), line: String::new() })
        } else {
            cc
        }
    }

    /// Wrap the controllers of `flows` whose events are logged (flow id = index, node = sender).
    pub fn wrap_flows(&self, flows: &mut [crate::transport::Endpoint]) {
        if self.filters.is_empty() {
            return;
        }
        for (id, f) in flows.iter_mut().enumerate() {
            let cc = std::mem::replace(&mut f.tx.cc, Box::new(Unset));
            f.tx.cc = self.wrap_cc(cc, id as u32, f.info.src as u32);
        }
    }

    /// Everything written (the log is then empty).
    pub fn take(&self) -> String {
        std::mem::take(&mut *self.text.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The placeholder while a controller is being wrapped (never called).
struct Unset;

impl CongestionControl for Unset {
    fn on_ack(&mut self, _ev: &AckEvent) {}
    fn cwnd(&self) -> f64 {
        0.0
    }
    fn pacing_rate(&self) -> f64 {
        0.0
    }
}

/// Append `line` to the run's log, or end the log once it would pass `MAX_BYTES`.
pub(super) fn append(text: &Mutex<String>, line: &str) {
    let mut text = text.lock().unwrap_or_else(|p| p.into_inner());
    if text.len() + line.len() <= MAX_BYTES {
        text.push_str(line);
    } else if !text.ends_with("(log truncated)\n") {
        text.push_str("(log truncated)\n");
    }
}

/// A time in µs with ns resolution, as a reader reads it.
pub(super) fn us(t: Time) -> String {
    format!("{}.{:06}", t / 1_000_000, t % 1_000_000)
}

fn rate(bps: f64) -> String {
    if bps.is_infinite() {
        "line".into()
    } else {
        format!("{:.4}Gbps", bps / 1e9)
    }
}

/// A controller whose every call is written to the log.
struct LoggedCc {
    inner: Box<dyn CongestionControl>,
    flow: u32,
    node: u32,
    text: Arc<Mutex<String>>,
    /// The line being built (reused).
    line: String,
}

impl LoggedCc {
    /// Start a line: `t_us flow node cc event`.
    fn begin(&mut self, now: Time, event: &str) {
        self.line.clear();
        let _ = write!(self.line, "{} flow={} node=h{} cc {event}", us(now), self.flow, self.node);
    }

    /// End the line with the controller's outputs and variables, and append it to the log.
    fn end(&mut self) {
        let (cwnd, pacing) = (self.inner.cwnd(), self.inner.pacing_rate());
        let line = &mut self.line;
        let _ = write!(line, " -> cwnd={cwnd:.1} rate={}", rate(pacing));
        if let Some(t) = self.inner.timer() {
            let _ = write!(line, " timer={}us", us(t));
        }
        self.inner.trace(&mut |name, v| {
            let _ = write!(line, " {name}={v:.6}");
        });
        line.push('\n');
        append(&self.text, line);
    }
}

impl CongestionControl for LoggedCc {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.begin(ev.now, "ack");
        let l = &mut self.line;
        let _ = write!(
            l,
            " acked={} una={} nxt={} seq={} rtt={}us ecn={} hops={}",
            ev.acked_bytes,
            ev.snd_una,
            ev.snd_nxt,
            ev.seq,
            us(ev.rtt),
            ev.ecn as u8,
            ev.hops
        );
        for (i, h) in ev.int.iter().enumerate() {
            let _ = write!(l, " int{i}=q{}:tx{}:t{}us:{}G", h.qlen, h.tx_bytes, us(h.ts), h.rate_bps / 1_000_000_000);
        }
        if !ev.cwnd_limited {
            l.push_str(" app-limited");
        }
        self.inner.on_ack(ev);
        self.end();
    }
    fn on_timeout(&mut self, now: Time) {
        self.begin(now, "timeout");
        self.inner.on_timeout(now);
        self.end();
    }
    fn on_nack(&mut self, now: Time) {
        self.begin(now, "loss");
        self.inner.on_nack(now);
        self.end();
    }
    fn on_send(&mut self, now: Time, bytes: u64) {
        self.begin(now, "send");
        let _ = write!(self.line, " bytes={bytes}");
        self.inner.on_send(now, bytes);
        self.end();
    }
    fn timer(&self) -> Option<Time> {
        self.inner.timer()
    }
    fn on_timer(&mut self, now: Time) {
        self.begin(now, "timer");
        self.inner.on_timer(now);
        self.end();
    }
    fn on_new_path(&mut self) {
        self.inner.on_new_path();
    }
    fn priority(&self, seq: u64) -> u8 {
        self.inner.priority(seq)
    }
    fn header(&self) -> Header {
        self.inner.header()
    }
    fn cwnd(&self) -> f64 {
        self.inner.cwnd()
    }
    fn pacing_rate(&self) -> f64 {
        self.inner.pacing_rate()
    }
    fn on_start(&mut self, snd_una: u64, snd_nxt: u64) {
        self.inner.on_start(snd_una, snd_nxt);
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.inner.trace(out);
    }
    fn coupled(&mut self) -> Option<&mut dyn Coupled> {
        self.inner.coupled()
    }
    fn receiver_driven(&mut self) -> Option<&mut dyn ReceiverDriven> {
        self.inner.receiver_driven()
    }
    fn circuit_aware(&mut self) -> Option<&mut dyn CircuitAware> {
        self.inner.circuit_aware()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node names as a two-host, one-switch topology has them.
    fn node_id(name: &str) -> Option<u32> {
        ["h0", "h1", "sw0"].iter().position(|n| *n == name).map(|i| i as u32)
    }

    #[test]
    fn filters_parse_and_refuse_with_the_element_named() {
        let f = Filter::parse("cc:flow=3,node=h1", 0, &node_id).unwrap();
        assert_eq!(f, Filter { component: "cc", flow: Some(3), node: Some(1) });
        assert_eq!(Filter::parse("cc", 0, &node_id).unwrap(), Filter { component: "cc", flow: None, node: None });
        assert_eq!(Filter::parse("fabric:node=sw0", 0, &node_id).unwrap(), Filter { component: "fabric", flow: None, node: Some(2) });
        assert_eq!(Filter::parse("transport:flow=1", 0, &node_id).unwrap().component, "transport");
        assert_eq!(Filter::parse("nic", 0, &node_id).unwrap().component, "nic");
        let e = Filter::parse("pfc:flow=1", 1, &node_id).unwrap_err();
        assert_eq!(e.field, "metrics.log[1]");
        assert!(e.to_string().contains("allowed: cc, nic, fabric, transport"), "{e}");
        assert!(Filter::parse("cc:flow=x", 0, &node_id).unwrap_err().to_string().contains("flow id"));
        assert!(Filter::parse("cc:port=1", 0, &node_id).unwrap_err().to_string().contains("allowed: flow, node"));
        assert!(Filter::parse("cc:node=h7", 0, &node_id).unwrap_err().to_string().contains("not a node of the topology"));
        assert!(Filter::parse("cc:flow", 0, &node_id).is_err());
        // a PFC frame is of no flow: only filters without `flow` pass it
        assert!(!f.matches(None, 1) && Filter { component: "fabric", flow: None, node: Some(1) }.matches(None, 1));
    }

    #[test]
    fn only_matching_flows_are_wrapped_and_every_call_is_a_line() {
        let log = Log { filters: vec![Filter::parse("cc:flow=1", 0, &node_id).unwrap()], text: Arc::default() };
        let ctx = crate::cc::test_ctx(10e-6, 1048.0);
        let mk = || crate::cc::build("dctcp", &serde_json::Value::Null, &ctx).unwrap();
        let mut a = log.wrap_cc(mk(), 0, 0);
        let mut b = log.wrap_cc(mk(), 1, 0);
        let ev = AckEvent {
            now: 1_500_000,
            acked_bytes: 1000,
            seq: 0,
            snd_una: 1000,
            snd_nxt: 10_000,
            rtt: 12_000_000,
            ecn: true,
            int: &[],
            max_hop_delay: 0,
            hops: 1,
            cwnd_limited: true,
        };
        a.on_ack(&ev);
        b.on_ack(&ev);
        b.on_timeout(2_000_000);
        let text = log.take();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with("1.500000 flow=1 node=h0 cc ack acked=1000 una=1000 nxt=10000"), "{}", lines[0]);
        assert!(lines[0].contains("rtt=12.000000us ecn=1") && lines[0].contains("-> cwnd=") && lines[0].contains("alpha="));
        assert!(lines[1].starts_with("2.000000 flow=1 node=h0 cc timeout -> cwnd=1000.0"), "{}", lines[1]);
        // the logged controller behaves as a bare one given the same calls
        let mut bare = mk();
        bare.on_ack(&ev);
        assert_eq!(a.cwnd(), bare.cwnd());
        bare.on_timeout(2_000_000);
        assert_eq!((b.cwnd(), b.probe("alpha")), (bare.cwnd(), bare.probe("alpha")));
    }
}
