//! Paths and base RTTs of host pairs: what the build derives from the routes (τ, each flow's
//! base RTT, ideal FCT and hop count). Nothing here runs during the simulation.

use super::Network;
use crate::time::{tx_time, Time};

impl Network {
    /// The ports of one (the first equal-cost) path from `src` to `dst`.
    pub fn path(&self, src: u32, dst: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(mut p) = self.host_port(src) else { return out };
        loop {
            out.push(p);
            let v = self.ports[p as usize].peer;
            if v == dst || self.nodes[v as usize].is_host {
                break;
            }
            match self.next_hops(v, dst).first() {
                Some(&q) => p = q,
                None => break,
            }
        }
        out
    }

    /// Base RTT of a pair: propagation both ways, plus serialisation of one data packet on every
    /// forward link and one ACK on every reverse link (no queueing).
    pub fn base_rtt(&self, src: u32, dst: u32, data_bytes: u64, ack_bytes: u64) -> Time {
        self.path(src, dst)
            .iter()
            .map(|&p| {
                let l = &self.ports[p as usize];
                2 * l.delay_ps + tx_time(data_bytes, l.rate_bps) + tx_time(ack_bytes, l.rate_bps)
            })
            .sum()
    }

    /// Slowest link rate on the pair's path.
    pub fn path_rate(&self, src: u32, dst: u32) -> u64 {
        self.path(src, dst).iter().map(|&p| self.ports[p as usize].rate_bps).min().unwrap_or(0)
    }

    /// The maximum base RTT over all connected host pairs (τ of the control laws by default).
    ///
    /// A pair's path (`path`) is src → edge(src), the first next hops from edge(src) towards
    /// edge(dst), then edge(dst) → dst; so its RTT is up(src) + between(edge(src), edge(dst)) +
    /// down(dst), and the maximum over pairs of two edges is the largest up of one plus `between`
    /// plus the largest down of the other. `between` is found for every switch at once per
    /// destination edge, level by level outwards (a switch's first next hop is one hop nearer):
    /// O(edges × switches × levels) instead of one path walk per host pair.
    pub fn max_base_rtt(&self, data_bytes: u64, ack_bytes: u64) -> Time {
        let cost = |p: u32| {
            let l = &self.ports[p as usize];
            2 * l.delay_ps + tx_time(data_bytes, l.rate_bps) + tx_time(ack_bytes, l.rate_bps)
        };
        let h = self.n_hosts as usize;
        let s = self.nodes.len() - h;
        let e_count = self.edges.len();
        // per edge: the largest up cost of its hosts, and its two largest down costs (host, cost)
        let mut up = vec![0; e_count];
        let mut down = vec![[(u32::MAX, 0); 2]; e_count];
        for d in 0..h {
            let e = self.host_edge[d];
            if e == u32::MAX {
                continue;
            }
            let (u, w) = (cost(self.host_down[d] ^ 1), cost(self.host_down[d]));
            up[e as usize] = up[e as usize].max(u);
            let top = &mut down[e as usize];
            if top[0].0 == u32::MAX || w > top[0].1 {
                top[1] = top[0];
                top[0] = (d as u32, w);
            } else if top[1].0 == u32::MAX || w > top[1].1 {
                top[1] = (d as u32, w);
            }
        }
        let mut best = 0;
        // pairs on one edge switch: up(src) + down(dst), src ≠ dst
        for d in 0..h {
            let e = self.host_edge[d];
            if e == u32::MAX {
                continue;
            }
            let top = down[e as usize];
            let other = if top[0].0 != d as u32 { top[0] } else { top[1] };
            if other.0 != u32::MAX {
                best = best.max(cost(self.host_down[d] ^ 1) + other.1);
            }
        }
        // pairs on two edge switches
        let mut between: Vec<Time> = vec![0; s];
        for e in 0..e_count {
            if down[e][0].0 == u32::MAX {
                continue;
            }
            let dist = &self.edge_dist[e * s..(e + 1) * s];
            let levels = dist.iter().filter(|&&x| x != u16::MAX).max().copied().unwrap_or(0);
            between[self.edges[e] as usize - h] = 0;
            for level in 1..=levels {
                for sw in 0..s {
                    if dist[sw] == level {
                        let (start, _) = self.routes[sw * e_count + e];
                        let p = self.route_ports[start as usize];
                        between[sw] = cost(p) + between[self.ports[p as usize].peer as usize - h];
                    }
                }
            }
            for (src_edge, &node) in self.edges.iter().enumerate() {
                let ds = dist[node as usize - h];
                if src_edge != e && ds != u16::MAX {
                    best = best.max(up[src_edge] + between[node as usize - h] + down[e][0].1);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::powertcp_fattree;
    use super::*;
    use crate::config::Topology;
    use crate::time::{NS, US};

    #[test]
    fn fattree_max_base_rtt_matches_the_artifact_to_a_packet_time() {
        let n = Network::build(&powertcp_fattree()).unwrap();
        // 2 x (1+1+5+5+1+1) us propagation = 28 us, plus 1090 B data and 60 B ACK serialised
        // on two 25G and four 100G links: 2*(348.8+19.2) + 4*(87.2+4.8) ns = 1104 ns.
        assert_eq!(n.max_base_rtt(1090, 60), 28 * US + 1104 * NS);
        // same-ToR pair: 4 us + 2*(348.8+19.2) ns
        assert_eq!(n.base_rtt(1, 16, 1090, 60), 4 * US + 736 * NS);
    }

    /// The definition: one path per connected pair (what `max_base_rtt` must equal).
    fn max_base_rtt_by_pairs(n: &Network, data: u64, ack: u64) -> Time {
        let mut best = 0;
        for s in 0..n.n_hosts {
            for d in 0..n.n_hosts {
                if d != s && n.connected(s, d) {
                    best = best.max(n.base_rtt(s, d, data, ack));
                }
            }
        }
        best
    }

    #[test]
    fn max_base_rtt_equals_the_maximum_over_pairs() {
        use crate::config::LinkSpec;
        let l = |a: &str, b: &str, g: u64, d: u64| LinkSpec { a: a.into(), b: b.into(), rate_bps: g * 1_000_000_000, delay_ps: d * NS };
        // unequal host links, one host alone on its switch, a longer detour, an unreachable host
        let custom = Topology::Custom {
            hosts: 6,
            switches: 4,
            links: vec![
                l("h0", "s0", 25, 1000),
                l("h1", "s0", 100, 300),
                l("h2", "s1", 10, 2000),
                l("h3", "s2", 40, 700),
                l("h4", "s2", 40, 900),
                l("s0", "s1", 100, 500),
                l("s1", "s2", 100, 4000),
                l("s0", "s2", 50, 100),
                l("h5", "s3", 25, 100),
            ],
        };
        let mut fat = powertcp_fattree();
        if let Topology::Fattree { ref mut servers_per_tor, .. } = fat {
            *servers_per_tor = 3;
        }
        let dumbbell = Topology::Dumbbell {
            left: 1,
            right: 3,
            host_rate_bps: 10_000_000_000,
            host_delay_ps: US,
            bottleneck_rate_bps: 1_000_000_000,
            bottleneck_delay_ps: 3 * US,
        };
        for t in [custom, fat, dumbbell] {
            let n = Network::build(&t).unwrap();
            for (data, ack) in [(1090, 60), (9000, 0)] {
                assert_eq!(n.max_base_rtt(data, ack), max_base_rtt_by_pairs(&n, data, ack), "{t:?}");
            }
        }
    }
}
