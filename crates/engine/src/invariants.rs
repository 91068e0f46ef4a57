//! End-of-run invariants (issue 27): what must hold however a run went, checked once when it
//! ends — always in debug builds, and in release when `[engine] check = true` (`dccsim run
//! --check`). The counters they read live with their owners (`fabric::port::PortCounters`, the
//! PFC accounting's overflow drops, the VOQ counters, the scheduler's event count, a flow's first
//! transmission); this module only compares them. A violation is an engine bug, never bad input:
//! one line naming the invariant, where it failed and the numbers.
//!
//! | invariant | what must hold |
//! |---|---|
//! | `port-packets`, `port-bytes` | per egress port: offered = sent + dropped + still queued |
//! | `queue-bytes` | a port's queue counter equals the bytes of the packets in its queue |
//! | `link-packets`, `link-bytes` | per link: sent = delivered to the peer + still on the link |
//! | `switch-packets` | every packet a switch received went to an egress queue, a VOQ or a drop |
//! | `host-packets` | packets the links delivered to hosts = the run's delivered count |
//! | `voq-bytes` | per VOQ its counter equals its packets; all VOQs: in = out + queued |
//! | `packet-pool` | allocated packets = packets in queues, VOQs and on links (no leak) |
//! | `lossless` | with PFC, every drop is a reported overflow (`pfc_overflow_drops`) |
//! | `flow-order` | start ≤ first transmission ≤ finish ≤ end of the run |
//! | `flow-bytes` | acked ≤ received in order ≤ highest sent; acked ≤ size; a finished flow acked all |
//! | `flow-fct` | FCT ≥ the flow's bytes on the wire at its NIC's rate + the host links' round trip |
//! | `event-time` | no pending event is earlier than the clock; the clock ≤ the run's end |
//! | `event-count` | events scheduled = processed + pending |
//! | `rto-timer` | a flow with unacknowledged data in flight has exactly one pending timeout |

use std::fmt;

use crate::core::Core;
use crate::fabric::port::Node;
use crate::fabric::Fabric;
use crate::packet::PktId;
use crate::sim::EvKind;
use crate::time::{tx_time, Time};
use crate::transport::multipath::NO_CONN;
use crate::transport::Transport;

/// A broken invariant: which, where (a port, a flow, the event queue) and the numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub invariant: &'static str,
    pub at: String,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant {} violated at {}: {}", self.invariant, self.at, self.detail)
    }
}

impl std::error::Error for Violation {}

fn fail(invariant: &'static str, at: impl Into<String>, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, at: at.into(), detail })
}

/// Every invariant of a run that ended at `end` (its clock is `core.sched.now`).
pub fn check(core: &Core, fabric: &Fabric, tp: &Transport, end: Time) -> Result<(), Violation> {
    ports(core, fabric)?;
    switches_and_hosts(core, fabric)?;
    voqs(core, fabric)?;
    pool(core, fabric)?;
    lossless(fabric)?;
    flows(fabric, tp, end)?;
    events(core, tp, end)
}

/// Packets and bytes of a sequence of packets.
fn sizes(core: &Core, pkts: impl Iterator<Item = PktId>) -> (u64, u64) {
    pkts.fold((0, 0), |(n, b), p| (n + 1, b + core.pool.get(p).size as u64))
}

fn ports(core: &Core, fabric: &Fabric) -> Result<(), Violation> {
    let voq_port = |p: usize| fabric.circuit.as_deref().is_some_and(|c| c.role(p as u32).is_some());
    for (i, p) in fabric.ports.iter().enumerate() {
        let name = || format!("port {}", fabric.net.ports[i].name);
        let c = &p.count;
        let (queued, queued_bytes) = sizes(core, p.queue.iter());
        if c.arrived_pkts != c.sent_pkts + c.dropped_pkts + queued {
            let d = format!("offered {} != sent {} + dropped {} + queued {}", c.arrived_pkts, c.sent_pkts, c.dropped_pkts, queued);
            return fail("port-packets", name(), d);
        }
        if c.arrived_bytes != p.tx_bytes + c.dropped_bytes + queued_bytes {
            let d = format!(
                "offered {} B != sent {} B + dropped {} B + queued {} B",
                c.arrived_bytes, p.tx_bytes, c.dropped_bytes, queued_bytes
            );
            return fail("port-bytes", name(), d);
        }
        // a VOQ port's queue counter mirrors its ToR's VOQs (checked by `voqs`)
        if !voq_port(i) && p.queue_bytes != queued_bytes {
            return fail("queue-bytes", name(), format!("counter {} B != {} B in {} queued packets", p.queue_bytes, queued_bytes, queued));
        }
        let (on_link, on_link_bytes) = sizes(core, p.link.iter().map(|e| e.1));
        if c.sent_pkts != c.delivered_pkts + on_link {
            return fail(
                "link-packets",
                name(),
                format!("sent {} != delivered {} + on the link {}", c.sent_pkts, c.delivered_pkts, on_link),
            );
        }
        if p.tx_bytes != c.delivered_bytes + on_link_bytes {
            let d = format!("sent {} B != delivered {} B + on the link {} B", p.tx_bytes, c.delivered_bytes, on_link_bytes);
            return fail("link-bytes", name(), d);
        }
    }
    Ok(())
}

/// What links delivered into switches all went somewhere: an egress queue (admitted or dropped)
/// or a VOQ (admitted or dropped); what they delivered to hosts is the run's delivered count.
fn switches_and_hosts(core: &Core, fabric: &Fabric) -> Result<(), Violation> {
    let c = fabric.circuit.as_deref();
    let (mut into_switches, mut into_hosts, mut offered) = (0u64, 0u64, 0u64);
    for (i, p) in fabric.ports.iter().enumerate() {
        match p.peer {
            Node::Switch { .. } => into_switches += p.count.delivered_pkts,
            Node::Host(_) => into_hosts += p.count.delivered_pkts,
        }
        // a VOQ port's offered packets came out of a VOQ, already counted as VOQ input
        if matches!(p.owner, Node::Switch { .. }) && !c.is_some_and(|c| c.role(i as u32).is_some()) {
            offered += p.count.arrived_pkts;
        }
    }
    let voq = c.map_or(0, |c| c.counters.in_packets + c.counters.dropped_packets);
    if into_switches != offered + voq {
        let d = format!("received {into_switches} != offered to egress ports {offered} + to VOQs {voq}");
        return fail("switch-packets", "all switches", d);
    }
    if into_hosts != core.stats.packets_delivered {
        return fail(
            "host-packets",
            "all hosts",
            format!("links delivered {into_hosts} != delivered count {}", core.stats.packets_delivered),
        );
    }
    Ok(())
}

fn voqs(core: &Core, fabric: &Fabric) -> Result<(), Violation> {
    let Some(c) = fabric.circuit.as_deref() else { return Ok(()) };
    let mut queued_bytes = 0;
    for (i, j, pkts) in c.voqs() {
        let (n, bytes) = sizes(core, pkts);
        let counter = c.voq_bytes[(i * c.tors + j) as usize];
        if counter != bytes {
            return fail("voq-bytes", format!("VOQ tor{i}->rack{j}"), format!("counter {counter} B != {bytes} B in {n} queued packets"));
        }
        queued_bytes += bytes;
    }
    let k = &c.counters;
    if k.in_bytes != k.circuit_bytes + k.packet_bytes + queued_bytes {
        let d = format!("in {} B != circuit {} B + packet {} B + queued {queued_bytes} B", k.in_bytes, k.circuit_bytes, k.packet_bytes);
        return fail("voq-bytes", "all VOQs", d);
    }
    Ok(())
}

fn pool(core: &Core, fabric: &Fabric) -> Result<(), Violation> {
    let held: usize = fabric.ports.iter().map(|p| p.queue.iter().count() + p.link.len()).sum::<usize>()
        + fabric.circuit.as_deref().map_or(0, |c| c.voqs().map(|(_, _, q)| q.count()).sum());
    if core.pool.live() != held {
        let d = format!("{} allocated != {held} in queues, VOQs and on links", core.pool.live());
        return fail("packet-pool", "the packet pool", d);
    }
    Ok(())
}

fn lossless(fabric: &Fabric) -> Result<(), Violation> {
    let Some(pfc) = &fabric.pfc else { return Ok(()) };
    let dropped: u64 = fabric.ports.iter().map(|p| p.count.dropped_pkts).sum::<u64>()
        + fabric.circuit.as_deref().map_or(0, |c| c.counters.dropped_packets);
    let reported = pfc.overflow_drops.load(std::sync::atomic::Ordering::Relaxed);
    if dropped != reported {
        let d = format!("{dropped} packets dropped, {reported} reported as headroom/buffer overflow");
        return fail("lossless", "the PFC fabric", d);
    }
    Ok(())
}

fn flows(fabric: &Fabric, tp: &Transport, end: Time) -> Result<(), Violation> {
    let payload = tp.wire.payload;
    for (id, f) in tp.flows.iter().enumerate() {
        let at = || format!("flow {id} (h{}->h{})", f.info.src, f.info.dst);
        let (s, tx, rx) = (&f.stats, &f.tx, &f.rx);
        let size = tp.conns.get(f.conn as usize).map_or(f.info.size, |c| c.size);
        if let Some(first) = s.first_tx {
            if !s.started || first < f.info.start || first > end {
                let d = format!("first transmission at {first} ps outside start {} ps .. end of run {end} ps", f.info.start);
                return fail("flow-order", at(), d);
            }
        }
        if s.done {
            // a subflow may finish with its connection without ever sending (a small connection's
            // data fits its first subflows); a single-path flow cannot finish without sending
            let early = s.first_tx.map_or(f.conn == NO_CONN, |first| first > s.end);
            if early || s.end > end || s.end < f.info.start {
                let d = format!("finished at {} ps; start {} ps, first sent {:?} ps, end of run {end} ps", s.end, f.info.start, s.first_tx);
                return fail("flow-order", at(), d);
            }
        }
        if tx.snd_una > rx.rcv_nxt || rx.rcv_nxt > tx.high_sent {
            let d = format!("acked {} B, received in order {} B, highest sent {} B", tx.snd_una, rx.rcv_nxt, tx.high_sent);
            return fail("flow-bytes", at(), d);
        }
        if size != u64::MAX && tx.snd_una > size {
            return fail("flow-bytes", at(), format!("acked {} B of a {size} B flow", tx.snd_una));
        }
        if f.conn != NO_CONN || size == u64::MAX {
            continue;
        }
        if s.done && tx.snd_una < size {
            return fail("flow-bytes", at(), format!("finished with {} B of {size} B acked", tx.snd_una));
        }
        if s.done {
            // every byte crosses the sender's NIC; data and ACK cross both host links each way
            let (nic, dst) = (fabric.net.host_port(f.info.src), fabric.net.host_port(f.info.dst));
            let (Some(nic), Some(dst)) = (nic, dst) else { continue };
            // two hosts wired to each other share one link
            let direct = fabric.ports[nic as usize].peer == Node::Host(f.info.dst);
            let (nic, dst) = (&fabric.net.ports[nic as usize], &fabric.net.ports[dst as usize]);
            let wire = size + size.div_ceil(payload) * f.info.data_header as u64;
            let links = if direct { nic.delay_ps } else { nic.delay_ps + dst.delay_ps };
            let bound = tx_time(wire, nic.rate_bps) + 2 * links;
            let fct = s.end - f.info.start;
            if fct < bound {
                let d = format!("FCT {fct} ps < {bound} ps ({wire} B at {} bit/s + host links' round trip)", nic.rate_bps);
                return fail("flow-fct", at(), d);
            }
        }
    }
    Ok(())
}

fn events(core: &Core, tp: &Transport, end: Time) -> Result<(), Violation> {
    let q = &core.sched;
    if q.now > end {
        return fail("event-time", "the event queue", format!("clock {} ps past the end of the run {end} ps", q.now));
    }
    let mut pending = 0u64;
    let mut rto = vec![0u32; tp.flows.len()];
    for e in q.pending() {
        pending += 1;
        if e.time < q.now {
            return fail(
                "event-time",
                "the event queue",
                format!("{:?} event for {} at {} ps < clock {} ps", e.kind(), e.id(), e.time, q.now),
            );
        }
        if e.kind() == EvKind::Rto {
            if let Some(n) = rto.get_mut(e.id() as usize) {
                *n += 1;
            }
        }
    }
    if q.scheduled != q.processed + pending {
        return fail(
            "event-count",
            "the event queue",
            format!("scheduled {} != processed {} + pending {pending}", q.scheduled, q.processed),
        );
    }
    for (id, f) in tp.flows.iter().enumerate() {
        let outstanding = f.stats.started && !f.stats.done && f.tx.snd_nxt > f.tx.snd_una;
        let want = f.timers.rto_pending as u32;
        if rto[id] != want || (outstanding && want == 0) {
            let d = format!(
                "{} B unacknowledged in flight, timer armed {}, {} pending timeout events",
                f.tx.snd_nxt - f.tx.snd_una.min(f.tx.snd_nxt),
                f.timers.rto_pending,
                rto[id]
            );
            return fail("rto-timer", format!("flow {id} (h{}->h{})", f.info.src, f.info.dst), d);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Each invariant fails when the state it guards is made inconsistent (through the
    //! simulator's test-only `tamper` hook, just before the end-of-run check), and names itself.

    use crate::config::{Config, FlowSpec, PfcConfig};
    use crate::core::Core;
    use crate::fabric::port::Node;
    use crate::fabric::Fabric;
    use crate::packet::Packet;
    use crate::sim::{EvKind, Simulator};
    use crate::time::Time;
    use crate::transport::Transport;

    const US: u64 = 1_000_000;
    const G: u64 = 1_000_000_000;

    /// Three hosts on a star, two finite flows into h2 and a long one (queues and links busy at
    /// the end, a pending timeout); `pfc` turns the fabric lossless.
    fn star(pfc: bool) -> Config {
        let json = serde_json::json!({
            "duration_ps": 200 * US,
            "topology": {"kind": "star", "hosts": 3, "host_rate_bps": 25 * G, "host_delay_ps": US},
            "cc": {"algorithm": "dctcp"},
        });
        let mut cfg: Config = serde_json::from_value(json).unwrap();
        cfg.flows = vec![FlowSpec::new(0, 2, Some(50_000), 0), FlowSpec::new(1, 2, Some(20_000), 0), FlowSpec::new(0, 1, None, 0)];
        if pfc {
            cfg.switch.pfc = Some(PfcConfig::default());
        }
        cfg
    }

    /// Two racks of an rdcn topology with traffic between them (VOQs in use).
    fn rdcn() -> Config {
        let json = serde_json::json!({
            "duration_ps": 100 * US,
            "topology": {"kind": "rdcn", "tors": 2, "servers_per_tor": 2, "host_rate_bps": 25 * G, "host_delay_ps": US,
                "packet_rate_bps": 25 * G, "packet_delay_ps": US,
                "circuit": {"rate_bps": 25 * G, "delay_ps": US, "day_ps": 20 * US, "night_ps": US, "policy": "exclusive", "voq_bytes": 100_000}},
            "cc": {"algorithm": "dctcp"},
            "flows": [{"src": 0, "dst": 2}, {"src": 1, "dst": 3}],
        });
        serde_json::from_value(json).unwrap()
    }

    /// Run `cfg` with `tamper` applied at the end; the broken invariant's name (None: all held).
    fn broken(cfg: &Config, tamper: impl FnOnce(&mut Core, &mut Fabric, &mut Transport, Time) + 'static) -> Option<String> {
        let cfg = Config { engine: crate::config::EngineConfig { check: true, ..Default::default() }, ..cfg.clone() }; // in any profile
        let mut sim = Simulator::new(&cfg).expect("a valid scenario");
        sim.tamper = Some(Box::new(tamper));
        match sim.run() {
            Ok(_) => None,
            Err(v) => {
                let line = v.to_string();
                assert!(!line.contains('\n') && line.contains(v.invariant) && line.contains(&v.at), "{line}");
                Some(v.invariant.to_string())
            }
        }
    }

    fn none(_: &mut Core, _: &mut Fabric, _: &mut Transport, _: Time) {}

    /// A port that holds packets in its queue at the end (the star's port to h2).
    fn busy_port(f: &Fabric) -> usize {
        f.net.port_by_name("sw0->h2").unwrap() as usize
    }

    #[test]
    fn untouched_runs_keep_every_invariant() {
        assert_eq!(broken(&star(false), none), None);
        assert_eq!(broken(&star(true), none), None);
        assert_eq!(broken(&rdcn(), none), None);
    }

    #[test]
    fn timers_as_long_as_time_itself_never_fire_and_keep_the_queue_sane() {
        // found by tests/fuzz_config.rs: host.rto = u64::MAX ps wrapped the deadline into the past
        let mut cfg = star(false);
        cfg.host.rto_ps = u64::MAX;
        cfg.host.nack_interval_ps = u64::MAX;
        cfg.metrics.interval_ps = u64::MAX;
        assert_eq!(broken(&cfg, none), None);
    }

    #[test]
    fn port_and_link_conservation_fail_on_a_miscounted_packet_or_byte() {
        let cfg = star(false);
        let bump = |what: fn(&mut crate::fabric::port::EgressPort)| {
            move |_: &mut Core, f: &mut Fabric, _: &mut Transport, _: Time| {
                let p = busy_port(f);
                what(&mut f.ports[p])
            }
        };
        assert_eq!(broken(&cfg, bump(|p| p.count.arrived_pkts += 1)).as_deref(), Some("port-packets"));
        assert_eq!(broken(&cfg, bump(|p| p.count.arrived_bytes += 1)).as_deref(), Some("port-bytes"));
        assert_eq!(broken(&cfg, bump(|p| p.queue_bytes += 1)).as_deref(), Some("queue-bytes"));
        assert_eq!(broken(&cfg, bump(|p| p.count.delivered_pkts += 1)).as_deref(), Some("link-packets"));
        assert_eq!(broken(&cfg, bump(|p| p.count.delivered_bytes += 1)).as_deref(), Some("link-bytes"));
    }

    #[test]
    fn a_packet_vanishing_in_a_switch_or_before_a_host_is_found() {
        let cfg = star(false);
        // a host's port that sent and delivered one packet more than its switch received
        let lost = |_: &mut Core, f: &mut Fabric, _: &mut Transport, _: Time| {
            let p = f.ports.iter_mut().find(|p| matches!(p.owner, Node::Host(_))).unwrap();
            p.count.arrived_pkts += 1;
            p.count.sent_pkts += 1;
            p.count.delivered_pkts += 1;
        };
        assert_eq!(broken(&cfg, lost).as_deref(), Some("switch-packets"));
        assert_eq!(broken(&cfg, |c, _, _, _| c.stats.packets_delivered += 1).as_deref(), Some("host-packets"));
        assert_eq!(
            broken(&cfg, |c, _, _, _| {
                c.pool.alloc(Packet::empty());
            })
            .as_deref(),
            Some("packet-pool")
        );
    }

    #[test]
    fn a_voq_counter_that_disagrees_with_its_packets_is_found() {
        let leak = |_: &mut Core, f: &mut Fabric, _: &mut Transport, _: Time| f.circuit.as_mut().unwrap().voq_bytes[1] += 1;
        assert_eq!(broken(&rdcn(), leak).as_deref(), Some("voq-bytes"));
        let lost = |_: &mut Core, f: &mut Fabric, _: &mut Transport, _: Time| f.circuit.as_mut().unwrap().counters.in_bytes += 1;
        assert_eq!(broken(&rdcn(), lost).as_deref(), Some("voq-bytes"));
    }

    #[test]
    fn a_drop_on_a_lossless_fabric_needs_a_reported_overflow() {
        let unreported = |_: &mut Core, f: &mut Fabric, _: &mut Transport, _: Time| *f.pfc.as_mut().unwrap().overflow_drops.get_mut() += 1;
        assert_eq!(broken(&star(true), unreported).as_deref(), Some("lossless"));
    }

    #[test]
    fn flow_records_must_be_ordered_bounded_and_no_faster_than_the_wire() {
        let cfg = star(false);
        let late = |_: &mut Core, _: &mut Fabric, t: &mut Transport, end: Time| t.flows[0].stats.first_tx = Some(end + 1);
        assert_eq!(broken(&cfg, late).as_deref(), Some("flow-order"));
        let ahead = |_: &mut Core, _: &mut Fabric, t: &mut Transport, _: Time| t.flows[1].tx.snd_una = t.flows[1].rx.rcv_nxt + 1;
        assert_eq!(broken(&cfg, ahead).as_deref(), Some("flow-bytes"));
        let too_fast = |_: &mut Core, _: &mut Fabric, t: &mut Transport, _: Time| {
            let f = &mut t.flows[1];
            assert!(f.stats.done, "the 20 KB flow finishes within the run");
            f.stats.first_tx = Some(f.info.start);
            f.stats.end = f.info.start + 1;
        };
        assert_eq!(broken(&cfg, too_fast).as_deref(), Some("flow-fct"));
    }

    #[test]
    fn the_event_queue_and_timers_must_be_consistent() {
        let cfg = star(false);
        let past = |c: &mut Core, _: &mut Fabric, _: &mut Transport, _: Time| {
            let now = c.sched.now;
            c.sched.at(now, EvKind::NicWake, 0, 0);
            c.sched.now += 1; // the clock passed an event still pending
        };
        assert_eq!(broken(&cfg, past).as_deref(), Some("event-time"));
        assert_eq!(broken(&cfg, |c, _, _, end| c.sched.now = end + 1).as_deref(), Some("event-time"));
        assert_eq!(broken(&cfg, |c, _, _, _| c.sched.scheduled += 1).as_deref(), Some("event-count"));
        // the long flow has data in flight at the end: without its timeout it could stall forever
        assert_eq!(broken(&cfg, |_, _, t, _| t.flows[2].timers.rto_pending = false).as_deref(), Some("rto-timer"));
    }
}
