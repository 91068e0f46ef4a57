//! Topology builders: one declarative description → nodes, directed ports and routing tables.
//!
//! Hosts are nodes 0..H, switches H..H+S. Every link creates two egress ports, one per direction;
//! port 2k goes a→b and port 2k+1 goes b→a, so `p ^ 1` is the reverse port. Routing is shortest
//! path (hop count) with all equal-cost next hops kept for ECMP; hosts never forward.

use crate::config::{ConfigError, Topology};
use crate::time::Time;

mod rtt;

#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub name: String,
    pub is_host: bool,
    pub ports: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct PortInfo {
    pub node: u32,
    pub peer: u32,
    pub rate_bps: u64,
    pub delay_ps: Time,
    pub name: String,
}

pub struct Network {
    pub nodes: Vec<NodeInfo>,
    pub ports: Vec<PortInfo>,
    pub n_hosts: u32,
    /// Routing is per *edge switch* (the switch a host's one link attaches to): every shortest
    /// path to host d ends with edge(d) → d, so from any other switch the next hops towards d are
    /// those towards edge(d). Tables are switches × edge switches, not switches × hosts.
    /// `host_edge[d]`: index of d's edge switch among `edges` (u32::MAX when d has no link).
    host_edge: Vec<u32>,
    /// Topology node of each edge switch.
    edges: Vec<u32>,
    /// Port edge(d) → d of every host (u32::MAX when d has no link).
    host_down: Vec<u32>,
    /// For switch s (0-based among switches) and edge e: `routes[s*E + e]` is a (start, len)
    /// range into `route_ports` (identical lists of one switch share their range).
    routes: Vec<(u32, u16)>,
    route_ports: Vec<u32>,
    /// Hop distance over switches from every switch to every edge switch, `edge_dist[e*S + s]`
    /// (u16::MAX = unreachable).
    edge_dist: Vec<u16>,
}

struct Builder {
    nodes: Vec<NodeInfo>,
    ports: Vec<PortInfo>,
}

impl Builder {
    fn new(hosts: u32) -> Self {
        let nodes = (0..hosts).map(|i| NodeInfo { name: format!("h{i}"), is_host: true, ports: vec![] }).collect();
        Builder { nodes, ports: vec![] }
    }
    fn switch(&mut self, name: String) -> u32 {
        self.nodes.push(NodeInfo { name, is_host: false, ports: vec![] });
        (self.nodes.len() - 1) as u32
    }
    fn link(&mut self, a: u32, b: u32, rate_bps: u64, delay_ps: Time) {
        for (x, y) in [(a, b), (b, a)] {
            let id = self.ports.len() as u32;
            let name = format!("{}->{}", self.nodes[x as usize].name, self.nodes[y as usize].name);
            self.ports.push(PortInfo { node: x, peer: y, rate_bps, delay_ps, name });
            self.nodes[x as usize].ports.push(id);
        }
    }
}

/// The nodes and links `t` builds, counted before building it (in u64, saturating: the counts of
/// a mistyped topology must neither overflow nor be allocated).
fn size(t: &Topology) -> (u64, u64) {
    let n = |x: u32| x as u64;
    match *t {
        Topology::Star { hosts, .. } => (n(hosts) + 1, n(hosts)),
        Topology::Dumbbell { left, right, .. } => (n(left) + n(right) + 2, n(left) + n(right) + 1),
        Topology::Fattree { pods, tors_per_pod, aggs_per_pod, cores, servers_per_tor, .. } => {
            let tors = n(pods).saturating_mul(n(tors_per_pod));
            let hosts = tors.saturating_mul(n(servers_per_tor));
            let aggs = n(pods).saturating_mul(n(aggs_per_pod));
            let (cores, core_links) = if pods > 1 { (n(cores), aggs.saturating_mul(n(cores) / n(aggs_per_pod).max(1))) } else { (0, 0) };
            let nodes = hosts.saturating_add(tors).saturating_add(aggs).saturating_add(cores);
            (nodes, hosts.saturating_add(tors.saturating_mul(n(aggs_per_pod))).saturating_add(core_links))
        }
        Topology::Rdcn { tors, servers_per_tor, .. } => {
            let hosts = n(tors) * n(servers_per_tor);
            (hosts + n(tors) + 2, hosts + 2 * n(tors))
        }
        Topology::TwoPath { senders, receivers, .. } => (n(senders) + n(receivers) + 6, n(senders) + n(receivers) + 6),
        Topology::Custom { hosts, switches, ref links } => (n(hosts) + n(switches), links.len() as u64),
    }
}

impl Network {
    /// The network with its routes.
    pub fn build(t: &Topology) -> Result<Network, ConfigError> {
        let mut net = Network::graph(t)?;
        net.compute_routes();
        Ok(net)
    }

    /// Nodes and ports only, without routes: what a front end needs to know about a topology
    /// (how many hosts, which node names exist) at the cost of building it.
    pub fn graph(t: &Topology) -> Result<Network, ConfigError> {
        let (nodes, links) = size(t);
        let max = crate::sched::MAX_ID as u64; // events carry a node's or port's index
        if nodes > max || links.saturating_mul(2) > max {
            let ports = links.saturating_mul(2);
            return Err(ConfigError::new("topology", format!("{nodes} nodes and {ports} ports; at most {max} of each")));
        }
        let (b, hosts) = match *t {
            Topology::Star { hosts, host_rate_bps, host_delay_ps } => {
                let mut b = Builder::new(hosts);
                let sw = b.switch("sw0".into());
                for h in 0..hosts {
                    b.link(h, sw, host_rate_bps, host_delay_ps);
                }
                (b, hosts)
            }
            Topology::Dumbbell { left, right, host_rate_bps, host_delay_ps, bottleneck_rate_bps, bottleneck_delay_ps } => {
                let mut b = Builder::new(left + right);
                let s0 = b.switch("sw0".into());
                let s1 = b.switch("sw1".into());
                for h in 0..left {
                    b.link(h, s0, host_rate_bps, host_delay_ps);
                }
                for h in left..left + right {
                    b.link(h, s1, host_rate_bps, host_delay_ps);
                }
                b.link(s0, s1, bottleneck_rate_bps, bottleneck_delay_ps);
                (b, left + right)
            }
            Topology::Fattree {
                pods,
                tors_per_pod,
                aggs_per_pod,
                cores,
                servers_per_tor,
                host_rate_bps,
                host_delay_ps,
                tor_agg_rate_bps,
                tor_agg_delay_ps,
                agg_core_rate_bps,
                agg_core_delay_ps,
            } => {
                let tors = pods * tors_per_pod;
                let hosts = tors * servers_per_tor;
                let mut b = Builder::new(hosts);
                let tor_ids: Vec<u32> = (0..tors).map(|i| b.switch(format!("tor{i}"))).collect();
                let agg_ids: Vec<u32> = (0..pods * aggs_per_pod).map(|i| b.switch(format!("agg{i}"))).collect();
                let core_ids: Vec<u32> = if pods > 1 { (0..cores).map(|i| b.switch(format!("core{i}"))).collect() } else { vec![] };
                for h in 0..hosts {
                    b.link(h, tor_ids[(h / servers_per_tor) as usize], host_rate_bps, host_delay_ps);
                }
                for p in 0..pods {
                    for t in 0..tors_per_pod {
                        for a in 0..aggs_per_pod {
                            let tor = tor_ids[(p * tors_per_pod + t) as usize];
                            let agg = agg_ids[(p * aggs_per_pod + a) as usize];
                            b.link(tor, agg, tor_agg_rate_bps, tor_agg_delay_ps);
                        }
                    }
                }
                if pods > 1 {
                    let per_agg = cores / aggs_per_pod;
                    for p in 0..pods {
                        for a in 0..aggs_per_pod {
                            for c in a * per_agg..(a + 1) * per_agg {
                                b.link(
                                    agg_ids[(p * aggs_per_pod + a) as usize],
                                    core_ids[c as usize],
                                    agg_core_rate_bps,
                                    agg_core_delay_ps,
                                );
                            }
                        }
                    }
                }
                (b, hosts)
            }
            Topology::Rdcn { tors, servers_per_tor, host_rate_bps, host_delay_ps, packet_rate_bps, packet_delay_ps, ref circuit } => {
                // hosts, then tor0..tor<n-1>, core0, ocs: `fabric::circuit` relies on this order
                let hosts = tors * servers_per_tor;
                let mut b = Builder::new(hosts);
                let tor_ids: Vec<u32> = (0..tors).map(|i| b.switch(format!("tor{i}"))).collect();
                let core = b.switch("core0".into());
                let ocs = b.switch("ocs0".into());
                for h in 0..hosts {
                    b.link(h, tor_ids[(h / servers_per_tor) as usize], host_rate_bps, host_delay_ps);
                }
                for &t in &tor_ids {
                    b.link(t, core, packet_rate_bps, packet_delay_ps);
                }
                // ToR → OCS carries the whole ToR-to-ToR propagation (the OCS forwards at once);
                // OCS → ToR ports exist for the port naming only and never carry a packet
                for &t in &tor_ids {
                    b.link(t, ocs, circuit.rate_bps, circuit.delay_ps);
                }
                (b, hosts)
            }
            Topology::TwoPath {
                senders,
                receivers,
                host_rate_bps,
                host_delay_ps,
                path0_rate_bps,
                path0_delay_ps,
                path1_rate_bps,
                path1_delay_ps,
            } => {
                // hosts: senders, receivers, then one cross host per path switch
                let hosts = senders + receivers + 2;
                let mut b = Builder::new(hosts);
                let left = b.switch("tor0".into());
                let right = b.switch("tor1".into());
                let paths = [(path0_rate_bps, path0_delay_ps), (path1_rate_bps, path1_delay_ps)];
                let mid: Vec<u32> = (0..2).map(|k| b.switch(format!("path{k}"))).collect();
                for h in 0..senders {
                    b.link(h, left, host_rate_bps, host_delay_ps);
                }
                for h in senders..senders + receivers {
                    b.link(h, right, host_rate_bps, host_delay_ps);
                }
                for (k, &(rate, delay)) in paths.iter().enumerate() {
                    b.link(left, mid[k], rate, delay);
                    b.link(mid[k], right, rate, delay);
                }
                for k in 0..2 {
                    b.link(senders + receivers + k, mid[k as usize], host_rate_bps, host_delay_ps);
                }
                (b, hosts)
            }
            Topology::Custom { hosts, switches, ref links } => {
                let mut b = Builder::new(hosts);
                for j in 0..switches {
                    b.switch(format!("s{j}"));
                }
                let node = |s: &str, field: &str| -> Result<u32, ConfigError> {
                    let bad = || {
                        ConfigError::new(
                            field,
                            format!("'{s}' is not a node; use h0..h{} or s0..s{}", hosts.saturating_sub(1), switches.saturating_sub(1)),
                        )
                    };
                    let (kind, num) = s.split_at(1);
                    let i: u32 = num.parse().map_err(|_| bad())?;
                    match kind {
                        "h" if i < hosts => Ok(i),
                        "s" if i < switches => Ok(hosts + i),
                        _ => Err(bad()),
                    }
                };
                for (i, l) in links.iter().enumerate() {
                    let a = node(&l.a, &format!("topology.links[{i}].a"))?;
                    let z = node(&l.b, &format!("topology.links[{i}].b"))?;
                    if a == z {
                        return Err(ConfigError::new(&format!("topology.links[{i}]"), "a link must join two different nodes"));
                    }
                    if a < hosts && z < hosts {
                        return Err(ConfigError::new(&format!("topology.links[{i}]"), "hosts connect only to switches"));
                    }
                    b.link(a, z, l.rate_bps, l.delay_ps);
                }
                for h in 0..hosts {
                    let n = b.nodes[h as usize].ports.len();
                    if n > 1 {
                        return Err(ConfigError::new("topology.links", format!("host h{h} has {n} links; a host has exactly one NIC")));
                    }
                }
                (b, hosts)
            }
        };
        Ok(Network {
            nodes: b.nodes,
            ports: b.ports,
            n_hosts: hosts,
            host_edge: vec![],
            edges: vec![],
            host_down: vec![],
            routes: vec![],
            route_ports: vec![],
            edge_dist: vec![],
        })
    }

    fn compute_routes(&mut self) {
        let n = self.nodes.len();
        let h = self.n_hosts as usize;
        let s = n - h;
        // edge switches, in order of first appearance among hosts
        let mut edge_of_switch = vec![u32::MAX; s];
        self.host_edge = vec![u32::MAX; h];
        self.host_down = vec![u32::MAX; h];
        for d in 0..h {
            let Some(up) = self.host_port(d as u32) else { continue };
            let sw = self.ports[up as usize].peer as usize;
            if edge_of_switch[sw - h] == u32::MAX {
                edge_of_switch[sw - h] = self.edges.len() as u32;
                self.edges.push(sw as u32);
            }
            self.host_edge[d] = edge_of_switch[sw - h];
            self.host_down[d] = up ^ 1;
        }
        let e_count = self.edges.len();
        // per port, its peer's index among switches (u32::MAX: a host): 4 B per port read in the
        // loops below, which visit every switch port once per edge switch (PortInfo, with its
        // name, is ≈ 70 B and misses the cache at 65 536 hosts)
        let peer_sw: Vec<u32> = self.ports.iter().map(|p| if (p.peer as usize) < h { u32::MAX } else { p.peer - h as u32 }).collect();
        self.edge_dist = vec![u16::MAX; e_count * s];
        self.routes = vec![(0, 0); s * e_count];
        let (mut frontier, mut next) = (Vec::new(), Vec::new());
        for (e, &root) in self.edges.iter().enumerate() {
            // breadth-first over switches only: hosts never forward
            let dist = &mut self.edge_dist[e * s..(e + 1) * s];
            dist[root as usize - h] = 0;
            frontier.clear();
            frontier.push(root);
            let mut level = 0u16;
            while !frontier.is_empty() {
                level += 1;
                next.clear();
                for &u in &frontier {
                    for &p in &self.nodes[u as usize].ports {
                        let v = peer_sw[p as usize];
                        if v != u32::MAX && dist[v as usize] == u16::MAX {
                            dist[v as usize] = level;
                            next.push(v + h as u32);
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next);
            }
        }
        for sw in h..n {
            let first_of_switch = self.route_ports.len();
            for e in 0..e_count {
                let dist = &self.edge_dist[e * s..(e + 1) * s];
                let ds = dist[sw - h];
                if ds == u16::MAX || ds == 0 {
                    continue; // unreachable, or the edge itself (next_hops goes down to the host)
                }
                let start = self.route_ports.len();
                for &p in &self.nodes[sw].ports {
                    let v = peer_sw[p as usize];
                    if v != u32::MAX && dist[v as usize] != u16::MAX && dist[v as usize] + 1 == ds {
                        self.route_ports.push(p);
                    }
                }
                let len = self.route_ports.len() - start;
                let (before, list) = self.route_ports.split_at(start);
                let shared = (first_of_switch..(start + 1).saturating_sub(len).max(first_of_switch)).find(|&i| before[i..i + len] == *list);
                let begin = match shared {
                    Some(i) => {
                        self.route_ports.truncate(start);
                        i
                    }
                    None => start,
                };
                let slot = self.route_slot(sw as u32, e);
                self.routes[slot] = (begin as u32, len as u16);
            }
        }
    }

    /// Equal-cost egress ports of `switch_node` towards host `dst`.
    #[inline]
    pub fn next_hops(&self, switch_node: u32, dst: u32) -> &[u32] {
        let e = self.host_edge[dst as usize] as usize;
        if self.edges[e] == switch_node {
            let d = dst as usize;
            return &self.host_down[d..d + 1];
        }
        let (start, len) = self.routes[self.route_slot(switch_node, e)];
        &self.route_ports[start as usize..start as usize + len as usize]
    }

    /// Where in `routes` switch `switch_node`'s entry for edge switch `edge` lies (past the end
    /// for a node that is not a switch).
    #[inline(always)]
    fn route_slot(&self, switch_node: u32, edge: usize) -> usize {
        (switch_node as usize).wrapping_sub(self.n_hosts as usize).wrapping_mul(self.edges.len()).wrapping_add(edge)
    }

    /// Bring the routing entry `next_hops(switch_node, dst)` will read toward L1.
    #[inline]
    pub fn prefetch_route(&self, switch_node: u32, dst: u32) {
        let Some(&e) = self.host_edge.get(dst as usize) else { return };
        if let Some(r) = self.routes.get(self.route_slot(switch_node, e as usize)) {
            crate::prefetch::lines(r, 1);
        }
    }

    /// Bytes of the topology's descriptions and routing tables (`footprint`).
    pub fn bytes(&self) -> usize {
        use std::mem::size_of;
        let nodes: usize = self.nodes.iter().map(|n| size_of::<NodeInfo>() + n.name.capacity() + n.ports.capacity() * 4).sum();
        let ports: usize = self.ports.iter().map(|p| size_of::<PortInfo>() + p.name.capacity()).sum();
        nodes
            + ports
            + (self.host_edge.capacity() + self.edges.capacity() + self.host_down.capacity() + self.route_ports.capacity()) * 4
            + self.routes.capacity() * size_of::<(u32, u16)>()
            + self.edge_dist.capacity() * 2
    }

    pub fn connected(&self, src: u32, dst: u32) -> bool {
        if src == dst {
            return true;
        }
        let (a, b) = (self.host_edge[src as usize], self.host_edge[dst as usize]);
        if a == u32::MAX || b == u32::MAX {
            return false;
        }
        let s = self.nodes.len() - self.n_hosts as usize;
        self.edge_dist[b as usize * s + (self.edges[a as usize] - self.n_hosts) as usize] != u16::MAX
    }

    pub fn host_port(&self, host: u32) -> Option<u32> {
        self.nodes[host as usize].ports.first().copied()
    }

    pub fn port_by_name(&self, name: &str) -> Option<u32> {
        self.ports.iter().position(|p| p.name == name).map(|i| i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::US;

    pub(super) fn powertcp_fattree() -> Topology {
        Topology::Fattree {
            pods: 4,
            tors_per_pod: 2,
            aggs_per_pod: 2,
            cores: 4,
            servers_per_tor: 32,
            host_rate_bps: 25_000_000_000,
            host_delay_ps: US,
            tor_agg_rate_bps: 100_000_000_000,
            tor_agg_delay_ps: US,
            agg_core_rate_bps: 100_000_000_000,
            agg_core_delay_ps: 5 * US,
        }
    }

    #[test]
    fn fattree_has_the_powertcp_shape() {
        let n = Network::build(&powertcp_fattree()).unwrap();
        assert_eq!(n.n_hosts, 256);
        assert_eq!(n.nodes.len(), 256 + 8 + 8 + 4);
        // links: 256 host + 4 pods * 2 tor * 2 agg + 8 agg * 2 cores = 256 + 16 + 16
        assert_eq!(n.ports.len(), 2 * (256 + 16 + 16));
        // ToR0 to a host of another pod: 2 equal-cost uplinks (both aggs of pod 0)
        let tor0 = 256;
        assert_eq!(n.next_hops(tor0, 200).len(), 2);
        // ToR0 to its own host: exactly the downlink
        let down = n.next_hops(tor0, 16);
        assert_eq!(down.len(), 1);
        assert_eq!(n.ports[down[0] as usize].name, "tor0->h16");
        // agg0 towards another pod: its 2 cores
        assert_eq!(n.next_hops(256 + 8, 200).len(), 2);
    }

    #[test]
    fn custom_topology_rejects_unknown_nodes_and_reports_disconnection() {
        use crate::config::LinkSpec;
        let l = |a: &str, b: &str| LinkSpec { a: a.into(), b: b.into(), rate_bps: 1_000_000_000, delay_ps: US };
        let bad = Topology::Custom { hosts: 2, switches: 1, links: vec![l("h0", "s3")] };
        let e = Network::build(&bad).err().unwrap();
        assert_eq!(e.field, "topology.links[0].b");
        let t = Topology::Custom { hosts: 3, switches: 2, links: vec![l("h0", "s0"), l("h1", "s0"), l("h2", "s1")] };
        let n = Network::build(&t).unwrap();
        assert!(n.connected(0, 1));
        assert!(!n.connected(0, 2));
    }
}
