//! From a config to the simulator's parts: checks that need the built topology first (each error
//! names its field), then construction of the fabric, the NICs, the transport endpoints and the
//! telemetry. Nothing here runs during the simulation.

use crate::cc::{self, CcContext};
use crate::config::{Config, ConfigError, Ecn, NicModel, PfcConfig, Recovery};
use crate::core::{FlowId, PortId};
use crate::fabric::circuit::Circuit;
use crate::fabric::pfc::Pfc;
use crate::fabric::port::{EgressPort, Node};
use crate::fabric::switch::Switch;
use crate::fabric::Fabric;
use crate::nic::Nics;
use crate::rng::{mix, Rng};
use crate::telemetry::capture::Capture;
use crate::telemetry::Telemetry;
use crate::time::{secs, tx_time, Time};
use crate::topo::Network;
use crate::traffic::{closed_loop, Deps};
use crate::transport::host_queue::HostQueue;
use crate::transport::multipath::Connection;
use crate::transport::{Endpoint, FlowInfo, Transport, Wire};

pub struct Parts {
    pub fabric: Fabric,
    pub nics: Nics,
    pub transport: Transport,
    pub telemetry: Telemetry,
    /// τ used by the control laws (ps).
    pub tau: Time,
    /// The debug log's NIC, fabric and transport events (`Core::log`).
    pub log_events: Option<Box<crate::telemetry::log_events::EventLog>>,
}

/// A layer's check of the config against the built network; errors name the scenario field.
type Check = fn(&Config, &Network) -> Result<(), ConfigError>;

/// Every layer's check, in the order their errors are reported: after the config's own
/// (`Config::validate`: each section's keys and rules) and the topology's (`Network::build`).
const CHECKS: &[Check] = &[crate::fabric::circuit::check, check_voq, crate::traffic::check, check_links, check_int_switches];

/// Validate `cfg` against its topology and build every part of the simulator.
pub fn build(cfg: &Config) -> Result<Parts, ConfigError> {
    cfg.validate()?;
    let net = Network::build(&cfg.topology)?;
    if Fabric::is_large(net.ports.len()) {
        // the rings, controllers and lists of a fabric larger than the caches go on huge pages
        crate::huge_pages::advise_heap();
    }
    for check in CHECKS {
        check(cfg, &net)?;
    }
    let nic_rate = |h: u32| net.host_port(h).map_or(0, |p| net.ports[p as usize].rate_bps);
    let rack = match cfg.topology {
        crate::config::Topology::Fattree { servers_per_tor, .. } => Some(servers_per_tor),
        _ => None,
    };
    let expanded = closed_loop::expand(cfg, net.n_hosts, rack, nic_rate)?;
    let cfg = expanded.as_ref().unwrap_or(cfg);
    let wire = Wire::new(&cfg.host, cfg.switch.int_enabled);
    let full_data = wire.largest_data_packet();
    let ack = cfg.host.ack_bytes as u64;
    check_counts(cfg, &net)?; // after the closed-loop expansion: its flows count
    let tau = match cfg.base_rtt_ps {
        Some(0) => return Err(ConfigError::new("base_rtt", "must be > 0 or \"auto\"")),
        Some(t) => t,
        None => net.max_base_rtt(full_data, ack),
    };
    let (mut flows, conns, subflow_of) = endpoints(cfg, &net, wire, tau)?;
    let log = crate::telemetry::log::Log::new(&cfg.metrics.log, &net)?;
    let log_events = log.events(&net, &["transport", "nic"]);
    let log_tap = log.events(&net, &["fabric", "nic"]);
    log.wrap_flows(&mut flows);
    let monitored = monitored_ports(cfg, &net)?;
    let h = net.n_hosts;
    let nics = Nics::new((0..h).map(|i| net.host_port(i).unwrap_or(PortId::MAX)));
    let (ports, switches) = ports_and_switches(cfg, &net, [full_data, ack]);
    let pfc = cfg.switch.pfc.clone().map(|p| pfc_accounting(p, cfg.switch.buffer_bytes, &net, &ports, switches.len(), full_data));
    let port_ecn = per_port_ecn(&cfg.switch.ecn, &ports)?;
    let captured = named_ports(&cfg.metrics.pcap, "metrics.pcap", &net)?;
    let mut fabric = Fabric::new(net, ports, switches, &cfg.switch, pfc, port_ecn);
    fabric.subflow_of = subflow_of;
    fabric.jitter = crate::fabric::jitter::HostJitter::new(cfg.host.jitter_ps, h, cfg.seed);
    if !captured.is_empty() || log_tap.is_some() {
        let mut tap = Capture::new(fabric.ports.len(), &captured, cfg.metrics.pcap_max as usize);
        tap.log = log_tap;
        fabric.capture = Some(Box::new(tap));
    }
    fabric.ecmp_key = ecmp_keys(cfg);
    if let crate::config::Topology::Rdcn { tors, servers_per_tor, ref circuit, .. } = cfg.topology {
        fabric.circuit = Some(Box::new(circuit_of(&fabric.net, circuit, tors, servers_per_tor)));
    }
    let m = &cfg.metrics;
    let mut telemetry = Telemetry::new(&fabric, monitored, m.interval_ps, m.start_ps, cfg.duration_ps, m.flows);
    telemetry.tracer = crate::telemetry::trace::Tracer::new(&m.trace, &flows)?;
    telemetry.log = log;
    let mut transport = Transport::new(flows, wire, h as usize, conns);
    transport.deps = connection_deps(cfg);
    Ok(Parts { fabric, nics, transport, telemetry, tau, log_events })
}

/// The `after` lists of the connections, with each connection's endpoints (consecutive ids).
fn connection_deps(cfg: &Config) -> Deps {
    let after: Vec<Vec<u32>> = cfg.flows.iter().map(|f| f.after.clone()).collect();
    let mut next: FlowId = 0;
    let eps = cfg
        .flows
        .iter()
        .map(|f| {
            let e = (next, f.subflows);
            next += f.subflows;
            e
        })
        .collect();
    Deps::new(&after, eps)
}

/// The OCS and VOQs of an rdcn topology (nodes: hosts, tor0.., core0, ocs; see topo.rs).
fn circuit_of(net: &Network, cfg: &crate::config::CircuitConfig, tors: u32, servers: u32) -> Circuit {
    let tor0 = net.n_hosts;
    let port = |name: String| net.port_by_name(&name).expect("rdcn builder names its ports");
    let ports_of = (0..tors).map(|i| (port(format!("tor{i}->core0")), port(format!("tor{i}->ocs0")))).collect();
    Circuit::new(cfg, tors, servers, tor0, tor0 + tors + 1, ports_of, net.ports.len())
}

/// Events carry a port, flow or host index in `sched::MAX_ID`'s bits.
fn check_counts(cfg: &Config, net: &Network) -> Result<(), ConfigError> {
    let max = crate::sched::MAX_ID as usize;
    let endpoints: usize = cfg.flows.iter().map(|f| f.subflows as usize).sum();
    if endpoints > max {
        return Err(ConfigError::new("flows", format!("{endpoints} flows (subflows counted); at most {max}")));
    }
    if net.ports.len() > max {
        return Err(ConfigError::new("topology", format!("{} ports; at most {max}", net.ports.len())));
    }
    Ok(())
}

/// PFC ingress accounting for every switch port; the threshold shift is set relative to the
/// slowest host NIC.
fn pfc_accounting(cfg: PfcConfig, buffer: u64, net: &Network, ports: &[EgressPort], switches: usize, max_packet: u64) -> Pfc {
    let nic_rate = (0..net.n_hosts).filter_map(|h| net.host_port(h)).map(|p| net.ports[p as usize].rate_bps).min().unwrap_or(0);
    let info: Vec<Option<(u32, u64, u64)>> = ports
        .iter()
        .map(|p| match p.owner {
            Node::Switch { index, .. } => Some((index, p.rate_bps, p.delay)),
            Node::Host(_) => None,
        })
        .collect();
    Pfc::new(cfg, buffer, switches, &info, nic_rate, max_packet)
}

/// Marking per switch port when it depends on the port's rate (empty otherwise).
fn per_port_ecn(ecn: &Ecn, ports: &[EgressPort]) -> Result<Vec<Ecn>, ConfigError> {
    if !matches!(ecn, Ecn::RedByRate(_)) {
        return Ok(Vec::new());
    }
    ports
        .iter()
        .map(|p| match p.owner {
            Node::Switch { .. } => crate::fabric::ecn::for_port(ecn, p.rate_bps),
            Node::Host(_) => Ok(Ecn::None), // hosts do not mark
        })
        .collect()
}

fn check_links(_: &Config, net: &Network) -> Result<(), ConfigError> {
    for (i, p) in net.ports.iter().enumerate() {
        if p.rate_bps == 0 {
            return Err(ConfigError::new("topology", format!("link {} (port {i}) has zero rate", p.name)));
        }
    }
    Ok(())
}

/// A ToR's VOQ holds at least one full data packet (else every packet for that rack is dropped).
fn check_voq(cfg: &Config, _: &Network) -> Result<(), ConfigError> {
    let crate::config::Topology::Rdcn { circuit, .. } = &cfg.topology else { return Ok(()) };
    let packet = Wire::new(&cfg.host, cfg.switch.int_enabled).largest_data_packet();
    if circuit.voq_bytes < packet {
        return Err(ConfigError::new(
            "topology.voq",
            format!(
                "must hold at least one full data packet ({packet} B), got {} B: every packet for another rack would be dropped",
                circuit.voq_bytes
            ),
        ));
    }
    Ok(())
}

fn check_int_switches(cfg: &Config, net: &Network) -> Result<(), ConfigError> {
    for n in cfg.switch.int_switches.iter().flatten() {
        if !net.nodes.iter().any(|x| !x.is_host && &x.name == n) {
            let all: Vec<&str> = net.nodes.iter().filter(|x| !x.is_host).map(|x| x.name.as_str()).collect();
            return Err(ConfigError::new("switch.int_switches", format!("unknown switch '{n}'; switches are {}", all.join(", "))));
        }
    }
    Ok(())
}

/// Transport endpoints, multipath connections, and per endpoint its ECMP subflow key (empty when
/// no flow has subflows).
type Endpoints = (Vec<Endpoint>, Vec<Connection>, Vec<(FlowId, u32)>);

/// One transport endpoint per configured flow with its controller; a flow with `subflows` > 1
/// becomes a connection of that many endpoints (consecutive flow ids, one controller each).
fn endpoints(cfg: &Config, net: &Network, wire: Wire, tau: Time) -> Result<Endpoints, ConfigError> {
    let h = net.n_hosts;
    let largest = wire.largest_data_packet();
    let ack = cfg.host.ack_bytes as u64;
    check_counts(cfg, &net)?; // after the closed-loop expansion: its flows count
    let mut flows = Vec::with_capacity(cfg.flows.len());
    let mut conns = Vec::new();
    let mut subflow_of = Vec::new();
    let multipath = cfg.flows.iter().any(|f| f.subflows > 1);
    let mut followed = vec![false; if cfg.flows.iter().any(|f| f.follows.is_some()) { cfg.flows.len() } else { 0 }];
    for (i, f) in cfg.flows.iter().enumerate() {
        for (field, v) in [("src", f.src), ("dst", f.dst)] {
            if v >= h {
                return Err(ConfigError::new(&format!("flows[{i}].{field}"), format!("host {v} does not exist; hosts are 0..{}", h - 1)));
            }
        }
        if !net.connected(f.src, f.dst) {
            return Err(ConfigError::new(&format!("flows[{i}]"), format!("no path from h{} to h{} in the topology", f.src, f.dst)));
        }
        check_follows(cfg, i, &mut followed)?;
        let nic_rate = net.ports[net.host_port(f.src).unwrap() as usize].rate_bps;
        // the controller's context for data packets of `full` bytes on the wire
        let ctx_for = |full: u64| CcContext {
            host_rate_bps: nic_rate as f64,
            base_rtt: secs(tau),
            path_rtt: secs(net.base_rtt(f.src, f.dst, full, ack)),
            mss: wire.payload as f64,
            wire_bytes: full as f64,
            int_bytes: cfg.switch.int_bytes_mode,
        };
        let spec = f.cc.as_ref().unwrap_or(&cfg.cc);
        let make = |ctx: &CcContext| {
            cc::build(&spec.algorithm, &spec.params, ctx).map_err(|mut e| {
                if f.cc.is_some() {
                    e.field = format!("flows[{i}].{}", e.field);
                }
                e
            })
        };
        // The NIC profile or else the law decides its packets' header (cc::Header), the header
        // its packet size, and the packet size its context: built for the largest packet, rebuilt
        // if its own is smaller.
        let probe = make(&ctx_for(largest))?;
        let caps = cc::caps(&spec.algorithm);
        let header = cfg.host.nic.header(&caps).unwrap_or_else(|| probe.header());
        let data_header = wire.data_header(header);
        let full_data = wire.payload + data_header;
        let ctx = ctx_for(full_data);
        let mut cc = if full_data == largest { probe } else { make(&ctx)? };
        let receiver_driven = cc.receiver_driven().is_some();
        let base_rtt = net.base_rtt(f.src, f.dst, full_data, ack);
        if caps.needs_int && !cfg.switch.int_enabled {
            return Err(ConfigError::new(
                "switch.int_enabled",
                format!("cc.{} reads INT from the switches and cannot run with INT off; turn INT on", spec.algorithm),
            ));
        }
        if f.subflows > 1 && receiver_driven {
            return Err(ConfigError::new(
                &format!("flows[{i}].subflows"),
                format!("cc.{} is receiver-driven; it runs single-path only (subflows = 1)", spec.algorithm),
            ));
        }
        // Ideal FCT on an empty network: the base RTT (which already carries one full packet's
        // serialisation per hop) plus the rest of the flow's bytes on the wire at the path's
        // slowest rate.
        let ideal_fct = match f.size_bytes {
            Some(s) => {
                let pkts = s.div_ceil(wire.payload);
                let rate = net.path_rate(f.src, f.dst);
                base_rtt + tx_time(s + pkts * data_header, rate) - tx_time(full_data, rate)
            }
            None => 0,
        };
        // The PowerTCP/HPCC artifact's ideal FCT ("standalone FCT" of its qp_finish): the pair RTT
        // of one payload-sized packet per hop without ACK (2·Σdelay + Σ payload·8/rate) plus the
        // flow's payload and per-packet headers without INT at the path's slowest rate.
        let ideal_fct_artifact = match f.size_bytes {
            Some(s) => {
                let pkts = s.div_ceil(wire.payload);
                let rate = net.path_rate(f.src, f.dst);
                net.base_rtt(f.src, f.dst, wire.payload, 0) + tx_time(s + pkts * cfg.host.header_bytes as u64, rate)
            }
            None => 0,
        };
        let size = f.size_bytes.unwrap_or(u64::MAX);
        // the path lists the ports from the source NIC on: one per switch after the first
        let switch_hops = (net.path(f.src, f.dst).len().saturating_sub(1)).min(u8::MAX as usize) as u8;
        let info = FlowInfo {
            src: f.src,
            dst: f.dst,
            size,
            start: f.start_ps,
            data_header: data_header as u32,
            base_rtt,
            switch_hops,
            ideal_fct,
            ideal_fct_artifact,
            follows: f.follows,
            connection: i as u32,
        };
        // the RDMA NIC's window: one BDP of the NIC rate at τ (the artifact's maxBdp)
        let window_cap = if cfg.host.nic.caps_window(&caps) { nic_rate as f64 * secs(tau) / 8.0 } else { f64::INFINITY };
        if f.follows.is_some() && multipath {
            // follows names flows by index, which multipath (one endpoint per subflow) renumbers
            return Err(ConfigError::new(
                &format!("flows[{i}].follows"),
                "connections of messages cannot be combined with multipath flows (subflows > 1) in one run",
            ));
        }
        if f.follows.is_some() && receiver_driven {
            return Err(ConfigError::new(&format!("flows[{i}].follows"), "a receiver-driven (Homa) message cannot continue a connection"));
        }
        let first = flows.len() as FlowId;
        let mut cc = Some(cc);
        for k in 0..f.subflows {
            let mut c = match cc.take() {
                Some(c) => c,
                None => make(&ctx)?,
            };
            if let Some(r) = c.receiver_driven() {
                r.on_flow_start(f.size_bytes);
            }
            // a subflow's size is its sending limit (multipath.rs): open while data is left
            let info = FlowInfo { size: if f.subflows > 1 { u64::MAX } else { size }, ..info };
            let mut e = Endpoint::new(info, c, window_cap);
            if (caps.linux_host_queue || cfg.host.linux_window) && cfg.host.nic == NicModel::Tcp {
                let nic_bps = net.host_port(f.src).map_or(0, |p| net.ports[p as usize].rate_bps);
                e.tx.host_queue = Some(HostQueue::new(nic_bps as f64, cfg.host.linux_window));
            }
            if cfg.host.recovery == Recovery::Sack && !receiver_driven {
                e.use_sack(cfg.host.payload_bytes as u64);
                if let Some(s) = &mut e.tx.sack {
                    s.uses_prr = caps.prr && cfg.host.prr;
                }
            }
            if f.subflows > 1 {
                e.conn = conns.len() as u32;
                e.subflow = k;
            }
            flows.push(e);
            if multipath {
                subflow_of.push((first, k));
            }
        }
        if f.subflows > 1 {
            conns.push(Connection::new(first, f.subflows, size));
        }
    }
    Ok((flows, conns, subflow_of))
}

/// ECMP key of every flow when some flows continue a connection: a message to the same
/// destination as the one it follows hashes as that one (one 5-tuple, one path); empty otherwise.
fn ecmp_keys(cfg: &Config) -> Vec<u32> {
    if cfg.flows.iter().all(|f| f.follows.is_none()) {
        return Vec::new();
    }
    let mut key: Vec<u32> = (0..cfg.flows.len() as u32).collect();
    for (i, f) in cfg.flows.iter().enumerate() {
        if let Some(p) = f.follows {
            if cfg.flows[p as usize].dst == f.dst {
                key[i] = key[p as usize]; // p < i: already resolved
            }
        }
    }
    key
}

/// `follows`: an earlier, finite flow of the same sender that starts no later, and that no other
/// flow follows (a connection is a chain).
fn check_follows(cfg: &Config, i: usize, followed: &mut [bool]) -> Result<(), ConfigError> {
    let f = &cfg.flows[i];
    let Some(p) = f.follows else { return Ok(()) };
    let field = format!("flows[{i}].follows");
    let Some(prev) = cfg.flows.get(p as usize).filter(|_| (p as usize) < i) else {
        return Err(ConfigError::new(&field, format!("must name an earlier flow (0..{}), got {p}", i.saturating_sub(1))));
    };
    if prev.src != f.src {
        return Err(ConfigError::new(&field, format!("flow {p} is sent by h{}, not h{} (a connection has one sender)", prev.src, f.src)));
    }
    if prev.size_bytes.is_none() || prev.start_ps > f.start_ps {
        return Err(ConfigError::new(&field, format!("flow {p} must be finite and start no later than this flow")));
    }
    if std::mem::replace(&mut followed[p as usize], true) {
        return Err(ConfigError::new(&field, format!("flow {p} is already followed by another flow (a connection is a chain)")));
    }
    Ok(())
}

fn monitored_ports(cfg: &Config, net: &Network) -> Result<Vec<PortId>, ConfigError> {
    named_ports(&cfg.metrics.ports, "metrics.ports", net)
}

/// Ports by name ("<node>-><peer>"; "*" = all), errors naming `field`.
fn named_ports(names: &[String], field: &str, net: &Network) -> Result<Vec<PortId>, ConfigError> {
    let mut out = Vec::new();
    for name in names {
        if name == "*" {
            out.extend(0..net.ports.len() as u32);
        } else {
            match net.port_by_name(name) {
                Some(p) => out.push(p),
                None => {
                    return Err(ConfigError::new(
                        field,
                        format!("unknown port '{name}'; ports are named '<node>-><peer>', e.g. '{}'", net.ports[0].name),
                    ))
                }
            }
        }
    }
    Ok(out)
}

/// Egress ports (with their owner and peer) and switches (with their INT support and random
/// stream) of the topology.
fn ports_and_switches(cfg: &Config, net: &Network, common_sizes: [u64; 2]) -> (Vec<EgressPort>, Vec<Switch>) {
    let mut switches = Vec::new();
    let mut node_kind = Vec::with_capacity(net.nodes.len());
    for (n, node) in net.nodes.iter().enumerate() {
        if node.is_host {
            node_kind.push(Node::Host(n as u32));
        } else {
            node_kind.push(Node::Switch { node: n as u32, index: switches.len() as u32 });
            let int = match &cfg.switch.int_switches {
                None => true,
                Some(names) => names.iter().any(|x| x == &node.name),
            };
            switches.push(Switch { used: 0, int, rng: Rng::new(mix(cfg.seed ^ (n as u64) << 20)) });
        }
    }
    let ports = net
        .ports
        .iter()
        .map(|p| EgressPort::new(p.rate_bps, p.delay_ps, node_kind[p.node as usize], node_kind[p.peer as usize], common_sizes))
        .collect();
    (ports, switches)
}
