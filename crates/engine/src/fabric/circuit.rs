//! A reconfigurable datacenter's optical circuit switch and the ToRs' virtual output queues
//! (PowerTCP §5, after reTCP/Etalon, Mukerjee et al. NSDI'20).
//!
//! Time is cut into slots of one day plus one night; slot k uses matching k mod M (M matchings =
//! one week), day first: during [k·S, k·S + day) ToR i's circuit reaches `matchings[k mod M][i]`,
//! during the night that follows no circuit carries traffic. The OCS is passive: a ToR's circuit
//! egress port serialises at the circuit rate and the packet reaches the matched ToR after the
//! circuit's propagation delay. A packet starts on the circuit only if its serialisation ends
//! before the night — it never crosses the OCS at night or towards an unmatched ToR.
//!
//! Every packet a ToR receives from one of its hosts for another rack joins that ToR's VOQ for the
//! destination rack (drop-tail, `voq_bytes`; `prebuffer_voq_bytes` from `prebuffer` before the
//! circuit's day to its end). Two ports drain the VOQs: the circuit port (only the matched VOQ,
//! during the day) and the packet uplink (round-robin over the VOQs; under `Exclusive` not the one
//! whose circuit is up). VOQ bytes are outside the switch's shared buffer. No ECN at the VOQs.
//!
//! INT: the ToR's VOQ egress is one hop whose record carries the VOQ's bytes after the dequeue,
//! the rate of the port that sends the packet (circuit or uplink) and one byte counter per ToR
//! counting what left its VOQs by either port, so per-hop differencing (PowerTCP, HPCC) measures
//! the ToR's send rate across the switch of ports and sees the circuit appear and disappear.

use std::collections::VecDeque;

use crate::config::{CircuitConfig, CircuitPolicy, ConfigError, IntBytesMode};
use crate::core::{NodeId, PortId};
use crate::packet::PktId;
use crate::time::Time;

/// The default schedule: `tors − 1` matchings, day k joins ToR i to ToR (i + k + 1) mod n, so every
/// ordered pair of ToRs has its circuit exactly once a week (a rotor-style round robin).
pub fn round_robin(tors: u32) -> Vec<Vec<u32>> {
    (0..tors - 1).map(|k| (0..tors).map(|i| (i + k + 1) % tors).collect()).collect()
}

/// The circuit schedule of an `rdcn` topology (a build check, `build::CHECKS`).
pub fn check(cfg: &crate::config::Config, _: &crate::topo::Network) -> Result<(), ConfigError> {
    match &cfg.topology {
        crate::config::Topology::Rdcn { tors, circuit, .. } => check_matchings(&circuit.matchings, *tors),
        _ => Ok(()),
    }
}

/// Every matching has one entry per ToR, in range, and no ToR is the target of two ToRs.
pub fn check_matchings(m: &[Vec<u32>], tors: u32) -> Result<(), ConfigError> {
    for (k, row) in m.iter().enumerate() {
        let field = format!("topology.matchings[{k}]");
        if row.len() != tors as usize {
            return Err(ConfigError::new(&field, format!("has {} entries; needs one per ToR ({tors})", row.len())));
        }
        let mut seen = vec![false; tors as usize];
        for (i, &j) in row.iter().enumerate() {
            if j >= tors {
                return Err(ConfigError::new(&field, format!("ToR {j} does not exist; ToRs are 0..{}", tors - 1)));
            }
            if j as usize != i && std::mem::replace(&mut seen[j as usize], true) {
                return Err(ConfigError::new(
                    &field,
                    format!("ToR {j} is the target of two circuits; each ToR must be the target of at most one"),
                ));
            }
        }
    }
    Ok(())
}

/// What a ToR's VOQ egress port is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    Uplink(u32),
    Circuit(u32),
}

/// Byte counters of the VOQs (all ToRs), for conservation checks and results.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct VoqCounters {
    pub in_bytes: u64,
    pub in_packets: u64,
    pub circuit_bytes: u64,
    pub packet_bytes: u64,
    pub dropped_bytes: u64,
    pub dropped_packets: u64,
    /// Bytes still queued at the end of the run.
    pub queued_bytes: u64,
}

pub struct Circuit {
    pub tors: u32,
    pub servers: u32,
    /// Topology node of ToR 0 (ToRs are consecutive), and of the OCS.
    tor0: NodeId,
    pub ocs: NodeId,
    pub uplink: Vec<PortId>,
    pub circuit_port: Vec<PortId>,
    /// Per port id: its VOQ role (None for every other port).
    role: Vec<Option<Role>>,
    matchings: Vec<Vec<u32>>,
    day: Time,
    slot: Time,
    pub rate_bps: u64,
    policy: CircuitPolicy,
    voq_cap: u64,
    prebuffer: Time,
    prebuffer_cap: u64,
    /// VOQ of ToR i for rack j at `i * tors + j`: (packet, enqueue time).
    voq: Vec<VecDeque<(PktId, Time)>>,
    pub voq_bytes: Vec<u64>,
    /// Per ToR: bytes that entered / left its VOQs (INT counters).
    rx: Vec<u64>,
    tx: Vec<u64>,
    /// Per ToR: next VOQ the uplink looks at.
    rr: Vec<u32>,
    pub counters: VoqCounters,
}

impl Circuit {
    /// `tor0`: node of ToR 0; `ports_of`: (uplink, circuit port) of each ToR; `n_ports`: all ports.
    pub fn new(
        cfg: &CircuitConfig,
        tors: u32,
        servers: u32,
        tor0: NodeId,
        ocs: NodeId,
        ports_of: Vec<(PortId, PortId)>,
        n_ports: usize,
    ) -> Self {
        let matchings = if cfg.matchings.is_empty() { round_robin(tors) } else { cfg.matchings.clone() };
        let mut role = vec![None; n_ports];
        for (i, &(u, c)) in ports_of.iter().enumerate() {
            role[u as usize] = Some(Role::Uplink(i as u32));
            role[c as usize] = Some(Role::Circuit(i as u32));
        }
        let n = (tors * tors) as usize;
        Circuit {
            tors,
            servers,
            tor0,
            ocs,
            uplink: ports_of.iter().map(|p| p.0).collect(),
            circuit_port: ports_of.iter().map(|p| p.1).collect(),
            role,
            matchings,
            day: cfg.day_ps,
            slot: cfg.day_ps + cfg.night_ps,
            rate_bps: cfg.rate_bps,
            policy: cfg.policy,
            voq_cap: cfg.voq_bytes,
            prebuffer: cfg.prebuffer_ps,
            prebuffer_cap: cfg.prebuffer_voq_bytes,
            voq: (0..n).map(|_| VecDeque::new()).collect(),
            voq_bytes: vec![0; n],
            rx: vec![0; tors as usize],
            tx: vec![0; tors as usize],
            rr: vec![0; tors as usize],
            counters: VoqCounters::default(),
        }
    }

    #[inline]
    pub fn role(&self, port: PortId) -> Option<Role> {
        self.role[port as usize]
    }

    /// The ToR (index) of topology node `node`, if it is one.
    #[inline]
    pub fn tor_of_node(&self, node: NodeId) -> Option<u32> {
        node.checked_sub(self.tor0).filter(|&i| i < self.tors)
    }

    #[inline]
    pub fn rack(&self, host: u32) -> u32 {
        host / self.servers
    }

    pub fn tor_node(&self, tor: u32) -> NodeId {
        self.tor0 + tor
    }

    /// The ToR that ToR i's circuit reaches during slot `k` (None: i is unmatched in it).
    fn target(&self, k: u64, i: u32) -> Option<u32> {
        let j = self.matchings[(k % self.matchings.len() as u64) as usize][i as usize];
        (j != i).then_some(j)
    }

    /// At `t`: the circuit's destination from ToR i and when its day ends, if it is day.
    pub fn up(&self, i: u32, t: Time) -> Option<(u32, Time)> {
        let k = t / self.slot;
        let day_end = k * self.slot + self.day;
        if t < day_end {
            self.target(k, i).map(|j| (j, day_end))
        } else {
            None
        }
    }

    /// Start of the next night at or after `t`, or of the next day when `t` is in a night: the
    /// next instant the circuit state changes.
    pub fn next_change(&self, t: Time) -> Time {
        let k = t / self.slot;
        let day_end = k * self.slot + self.day;
        if t < day_end {
            day_end
        } else {
            (k + 1) * self.slot
        }
    }

    /// A day starts at `t` (else: a night, when called at a change).
    pub fn day_starts_at(&self, t: Time) -> bool {
        t % self.slot == 0
    }

    /// Circuits (i, j) of the slot containing `t` (the ones that come up at its start).
    pub fn matching_at(&self, t: Time) -> impl Iterator<Item = (u32, u32)> + '_ {
        let k = t / self.slot;
        (0..self.tors).filter_map(move |i| self.target(k, i).map(|j| (i, j)))
    }

    /// Capacity of VOQ (i, j) at `t`: raised from `prebuffer` before a day of circuit i→j to the
    /// end of that day.
    pub fn capacity(&self, i: u32, j: u32, t: Time) -> u64 {
        if self.prebuffer == 0 {
            return self.voq_cap;
        }
        let k = t / self.slot;
        let last = (t + self.prebuffer) / self.slot;
        for s in k..=last {
            let start = s * self.slot;
            if self.target(s, i) == Some(j) && start <= t + self.prebuffer && t < start + self.day {
                return self.prebuffer_cap;
            }
        }
        self.voq_cap
    }

    /// A packet from a host of ToR i for rack j (≠ i) arrives: admit it into VOQ (i, j).
    pub fn enqueue(&mut self, i: u32, j: u32, pkt: PktId, size: u64, now: Time) -> bool {
        let q = (i * self.tors + j) as usize;
        if self.voq_bytes[q] + size > self.capacity(i, j, now) {
            self.counters.dropped_bytes += size;
            self.counters.dropped_packets += 1;
            return false;
        }
        self.voq[q].push_back((pkt, now));
        self.voq_bytes[q] += size;
        self.rx[i as usize] += size;
        self.counters.in_bytes += size;
        self.counters.in_packets += 1;
        true
    }

    /// Every VOQ, as (ToR i, rack j, its queued packets head first).
    pub fn voqs(&self) -> impl Iterator<Item = (u32, u32, impl Iterator<Item = PktId> + '_)> + '_ {
        let t = self.tors;
        self.voq.iter().enumerate().map(move |(q, d)| (q as u32 / t, q as u32 % t, d.iter().map(|e| e.0)))
    }

    /// Bytes in all VOQs of ToR i.
    pub fn tor_bytes(&self, i: u32) -> u64 {
        let t = self.tors as usize;
        self.voq_bytes[i as usize * t..(i as usize + 1) * t].iter().sum()
    }

    /// The VOQ `role`'s port may serve now, given the size of each VOQ's head packet
    /// (`head_size`) and when the port's serialisation of `size` bytes would end (`ends`).
    pub fn pick(
        &mut self,
        role: Role,
        now: Time,
        ends: impl Fn(u64) -> Time,
        head_size: impl Fn(PktId) -> u64,
    ) -> Option<(u32, u32, PktId)> {
        match role {
            Role::Circuit(i) => {
                let (j, day_end) = self.up(i, now)?;
                let &(pkt, _) = self.voq[(i * self.tors + j) as usize].front()?;
                (ends(head_size(pkt)) <= day_end).then_some((i, j, pkt))
            }
            Role::Uplink(i) => {
                let skip = match self.policy {
                    CircuitPolicy::Exclusive => self.up(i, now).map(|(j, _)| j),
                    CircuitPolicy::Both => None,
                };
                let t = self.tors;
                let start = self.rr[i as usize];
                let j = (0..t).map(|d| (start + d) % t).find(|&j| Some(j) != skip && !self.voq[(i * t + j) as usize].is_empty())?;
                self.rr[i as usize] = (j + 1) % t;
                Some((i, j, self.voq[(i * t + j) as usize][0].0))
            }
        }
    }

    /// Take the head of VOQ (i, j) for `role`'s port: (packet, enqueue time, INT view values
    /// (VOQ bytes after, byte counter)).
    pub fn pop(&mut self, role: Role, i: u32, j: u32, size: u64, mode: IntBytesMode) -> (PktId, Time, u64, u64) {
        let q = (i * self.tors + j) as usize;
        let (pkt, at) = self.voq[q].pop_front().expect("pick returned a non-empty VOQ");
        self.voq_bytes[q] -= size;
        match role {
            Role::Circuit(_) => self.counters.circuit_bytes += size,
            Role::Uplink(_) => self.counters.packet_bytes += size,
        }
        let counter = match mode {
            IntBytesMode::Tx => self.tx[i as usize],
            IntBytesMode::Rx => self.rx[i as usize],
        };
        self.tx[i as usize] += size;
        (pkt, at, self.voq_bytes[q], counter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(prebuffer: Time) -> CircuitConfig {
        CircuitConfig {
            rate_bps: 100_000_000_000,
            delay_ps: 1,
            day_ps: 225_000_000,
            night_ps: 20_000_000,
            matchings: vec![],
            policy: CircuitPolicy::Exclusive,
            voq_bytes: 10_000,
            prebuffer_ps: prebuffer,
            prebuffer_voq_bytes: 50_000,
        }
    }

    #[test]
    fn round_robin_joins_every_ordered_pair_once_a_week() {
        let m = round_robin(25);
        assert_eq!(m.len(), 24);
        check_matchings(&m, 25).unwrap();
        for i in 0..25 {
            let mut targets: Vec<u32> = m.iter().map(|row| row[i as usize]).collect();
            targets.sort();
            let others: Vec<u32> = (0..25).filter(|&j| j != i).collect();
            assert_eq!(targets, others);
        }
    }

    #[test]
    fn bad_matchings_name_the_row() {
        let e = check_matchings(&[vec![1, 0, 2], vec![1, 0, 0]], 3).unwrap_err();
        assert_eq!(e.field, "topology.matchings[1]");
        assert!(check_matchings(&[vec![1, 0]], 3).is_err());
        assert!(check_matchings(&[vec![1, 0, 3]], 3).is_err());
    }

    #[test]
    fn day_and_night_of_the_schedule() {
        let c = Circuit::new(&cfg(0), 25, 10, 250, 276, (0..25).map(|i| (2 * i, 2 * i + 1)).collect(), 60);
        // slot = 245 µs; slot 0 day [0, 225 µs): ToR 0 → 1; night [225, 245) µs: none
        assert_eq!(c.up(0, 0), Some((1, 225_000_000)));
        assert_eq!(c.up(0, 224_999_999), Some((1, 225_000_000)));
        assert_eq!(c.up(0, 225_000_000), None);
        assert_eq!(c.up(0, 244_999_999), None);
        // slot 1: ToR 0 → 2, ToR 24 → (24 + 2) mod 25 = 1
        assert_eq!(c.up(0, 245_000_000), Some((2, 470_000_000)));
        assert_eq!(c.up(24, 245_000_000), Some((1, 470_000_000)));
        // slot 24 = week 1, matching 0 again
        assert_eq!(c.up(0, 24 * 245_000_000), Some((1, 24 * 245_000_000 + 225_000_000)));
        assert_eq!(c.next_change(10), 225_000_000);
        assert_eq!(c.next_change(225_000_000), 245_000_000);
    }

    #[test]
    fn prebuffering_raises_the_capacity_before_and_during_the_day() {
        // VOQ (0, 2): circuit during slot 1, i.e. [245, 470) µs. Prebuffer 100 µs: raised from 145 µs.
        let c = Circuit::new(&cfg(100_000_000), 25, 10, 250, 276, (0..25).map(|i| (2 * i, 2 * i + 1)).collect(), 60);
        assert_eq!(c.capacity(0, 2, 144_999_999), 10_000);
        assert_eq!(c.capacity(0, 2, 145_000_000), 50_000);
        assert_eq!(c.capacity(0, 2, 469_999_999), 50_000);
        assert_eq!(c.capacity(0, 2, 470_000_000), 10_000);
        // VOQ (0, 1): its day is slot 0 [0, 225) µs, raised from the start
        assert_eq!(c.capacity(0, 1, 0), 50_000);
        assert_eq!(c.capacity(0, 1, 225_000_000), 10_000);
    }
}
