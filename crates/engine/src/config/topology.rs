//! The topology section (`[topology]`): `kind` and that kind's keys, each declared once with
//! [`crate::kinds!`] (topo.rs builds the graph). Hosts are numbered 0..n in the order the
//! builder creates them.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::schema::{Range, Section, Type};

/// The largest count (hosts, switches, pods, …) a topology key takes: beyond any simulated
/// datacenter, it catches a slip (a rate written where a count was meant).
const MAX_COUNT: f64 = 1_000_000.0;
/// A count of at least one.
const COUNT: Range = Range::closed(1.0, MAX_COUNT);

crate::kinds! {
    /// Topology description: `kind` and that kind's keys.
    pub enum Topology ("topology") {
        /// `hosts` hosts on one switch "sw0".
        Star ("star", "topology.star") as StarTopology {
            hosts: u32 = 1,
                key "hosts" required, Type::Count, COUNT,
                "Hosts on the switch (h0..h<hosts-1>).",
                source "set per experiment";
            host_rate_bps: u64 = 0,
                key "host_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every host link.",
                source "set per experiment";
            host_delay_ps: u64 = 0,
                key "host_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every host link (one way).",
                source "set per experiment";
        }
        rules {}

        /// `left` hosts on switch "sw0", `right` hosts on "sw1", sw0–sw1 the bottleneck link.
        Dumbbell ("dumbbell", "topology.dumbbell") as DumbbellTopology {
            left: u32 = 1,
                key "left" required, Type::Count, COUNT,
                "Hosts on sw0 (h0..h<left-1>).",
                source "set per experiment";
            right: u32 = 1,
                key "right" required, Type::Count, COUNT,
                "Hosts on sw1 (after the left hosts).",
                source "set per experiment";
            host_rate_bps: u64 = 0,
                key "host_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every host link.",
                source "set per experiment";
            host_delay_ps: u64 = 0,
                key "host_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every host link (one way).",
                source "set per experiment";
            bottleneck_rate_bps: u64 = 0,
                key "bottleneck_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of the sw0–sw1 link.",
                source "set per experiment";
            bottleneck_delay_ps: u64 = 0,
                key "bottleneck_delay" required, Type::Time, Range::ANY,
                "Propagation delay of the sw0–sw1 link (one way).",
                source "set per experiment";
        }
        rules {}

        /// FatTree: `pods` pods of `tors_per_pod` ToRs and `aggs_per_pod` aggregation switches, every
        /// ToR wired to every aggregation switch of its pod; aggregation switch j of each pod wired to
        /// the cores j·c/a .. (j+1)·c/a − 1 (c cores, a aggregation switches per pod).
        Fattree ("fattree", "topology.fattree") as FattreeTopology {
            pods: u32 = 1,
                key "pods" required, Type::Count, COUNT,
                "Pods (1: no core layer).",
                source "set per experiment";
            tors_per_pod: u32 = 1,
                key "tors_per_pod" required, Type::Count, COUNT,
                "ToR switches per pod (tor0.. across pods).",
                source "set per experiment";
            aggs_per_pod: u32 = 1,
                key "aggs_per_pod" required, Type::Count, COUNT,
                "Aggregation switches per pod, each wired to every ToR of its pod.",
                source "set per experiment";
            cores: u32 = 1,
                key "cores" required, Type::Count, COUNT,
                "Core switches (used when pods > 1); aggregation switch j of a pod reaches cores/aggs_per_pod of them.",
                source "set per experiment";
            servers_per_tor: u32 = 1,
                key "servers_per_tor" required, Type::Count, COUNT,
                "Hosts per ToR (rack size).",
                source "set per experiment";
            host_rate_bps: u64 = 0,
                key "host_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every host–ToR link.",
                source "set per experiment";
            host_delay_ps: u64 = 0,
                key "host_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every host–ToR link (one way).",
                source "set per experiment";
            tor_agg_rate_bps: u64 = 0,
                key "tor_agg_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every ToR–aggregation link.",
                source "set per experiment";
            tor_agg_delay_ps: u64 = 0,
                key "tor_agg_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every ToR–aggregation link (one way).",
                source "set per experiment";
            agg_core_rate_bps: u64 = 0,
                key "agg_core_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every aggregation–core link.",
                source "set per experiment";
            agg_core_delay_ps: u64 = 0,
                key "agg_core_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every aggregation–core link (one way).",
                source "set per experiment";
        }
        rules {
            "cores": |s| s.pods == 1 || s.cores % s.aggs_per_pod == 0,
                "must be a multiple of aggs_per_pod when pods > 1 (each aggregation switch reaches cores/aggs_per_pod cores)";
        }

        /// Explicit nodes and links. Nodes are named "h<i>" (hosts 0..hosts) and "s<j>" (switches).
        Custom ("custom", "topology.custom") as CustomTopology {
            hosts: u32 = 1,
                key "hosts" required, Type::Count, COUNT,
                "Hosts h0..h<hosts-1>, each with exactly one link.",
                source "set per experiment";
            switches: u32 = 0,
                key "switches" required, Type::Count, Range::closed(0.0, MAX_COUNT),
                "Switches s0..s<switches-1>.",
                source "set per experiment";
            links: Vec<LinkSpec> = vec![],
                key "links" required, Type::Tables("topology.link"), Range::ANY,
                "The links: [{a, b, rate, delay}, ...]; a host links only to a switch.",
                source "set per experiment";
        }
        rules {
            "links": |s| !s.links.is_empty(), "must list at least one {a, b, rate, delay} link";
        }

        /// Reconfigurable datacenter (PowerTCP §5): `tors` ToRs "tor<i>" of `servers_per_tor` hosts,
        /// each wired to one packet-switched core "core0" and to one optical circuit switch "ocs"
        /// cycling through `circuit.matchings` (fabric/circuit.rs). Every key is optional: the
        /// defaults are PowerTCP §5's setup (25 ToRs × 10 servers, 25 Gb/s packet network, 100 Gb/s
        /// circuits, day 225 µs, night 20 µs), with delays that give a 24 µs base RTT on both
        /// networks.
        Rdcn ("rdcn", "topology.rdcn") as RdcnTopology {
            tors: u32 = 25,
                key "tors", Type::Count, Range::closed(2.0, MAX_COUNT),
                "ToR switches tor0..tor<tors-1> (a circuit joins two of them).",
                source "PowerTCP §5: 25 ToRs";
            servers_per_tor: u32 = 10,
                key "servers_per_tor", Type::Count, COUNT,
                "Hosts per ToR.",
                source "PowerTCP §5: 10 servers per ToR";
            host_rate_bps: u64 = 25_000_000_000,
                key "host_rate", Type::Rate, Range::POSITIVE,
                "Rate of every host–ToR link.",
                source "PowerTCP §5: 25 Gb/s";
            host_delay_ps: u64 = 1_000_000,
                key "host_delay", Type::Time, Range::ANY,
                "Propagation delay of every host–ToR link (one way).",
                source "ours: 1 µs (24 µs base RTT with packet_delay)";
            packet_rate_bps: u64 = 25_000_000_000,
                key "packet_rate", Type::Rate, Range::POSITIVE,
                "Rate of every ToR–core0 link (the packet network).",
                source "PowerTCP §5: 25 Gb/s packet network";
            packet_delay_ps: u64 = 5_000_000,
                key "packet_delay", Type::Time, Range::ANY,
                "Propagation delay of every ToR–core0 link (one way).",
                source "ours: 5 µs (24 µs base RTT)";
            circuit: CircuitConfig = CircuitConfig::default(),
                key "", Type::Table("topology.circuit"), Range::ANY,
                "The optical circuit switch and the ToRs' VOQs; its keys are written in [topology] itself.",
                source "PowerTCP §5";
        }
        rules {}

        /// Two disjoint paths (AMP Fig. 5): senders on "tor0", receivers on "tor1", joined via switches
        /// "path0"/"path1" (both links of path k at `path<k>_*`); cross hosts h<S+R> on path0, h<S+R+1> on path1.
        TwoPath ("two-path", "topology.two-path") as TwoPathTopology {
            senders: u32 = 1,
                key "senders", Type::Count, COUNT,
                "Hosts on tor0 (h0..h<senders-1>).",
                source "ours: 1 (AMP Fig. 5: one connection)";
            receivers: u32 = 1,
                key "receivers", Type::Count, COUNT,
                "Hosts on tor1 (after the senders).",
                source "ours: 1 (AMP Fig. 5: one connection)";
            host_rate_bps: u64 = 0,
                key "host_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of every host link.",
                source "set per experiment";
            host_delay_ps: u64 = 0,
                key "host_delay" required, Type::Time, Range::ANY,
                "Propagation delay of every host link (one way).",
                source "set per experiment";
            path0_rate_bps: u64 = 0,
                key "path0_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of both links of path 0 (tor0–path0–tor1).",
                source "set per experiment";
            path0_delay_ps: u64 = 0,
                key "path0_delay" required, Type::Time, Range::ANY,
                "Propagation delay of each link of path 0 (one way).",
                source "set per experiment";
            path1_rate_bps: u64 = 0,
                key "path1_rate" required, Type::Rate, Range::POSITIVE,
                "Rate of both links of path 1 (tor0–path1–tor1).",
                source "set per experiment";
            path1_delay_ps: u64 = 0,
                key "path1_delay" required, Type::Time, Range::ANY,
                "Propagation delay of each link of path 1 (one way).",
                source "set per experiment";
        }
        rules {}
    }
}

crate::section! {
    /// The optical circuit switch of an `rdcn` topology and the ToRs' virtual output queues
    /// (keys written in `[topology]` itself).
    pub struct CircuitConfig ("topology.circuit") {
        rate_bps: u64 = 100_000_000_000,
            key "circuit_rate", Type::Rate, Range::POSITIVE,
            "Rate of every ToR–OCS circuit.",
            source "PowerTCP §5: 100 Gb/s circuits";
        delay_ps: u64 = 10_000_000,
            key "circuit_delay", Type::Time, Range::ANY,
            "Propagation ToR → OCS → ToR (one way).",
            source "ours: 10 µs (24 µs base RTT, as the packet network)";
        day_ps: u64 = 225_000_000,
            key "day", Type::Time, Range::POSITIVE,
            "How long each matching's circuits are up.",
            source "PowerTCP §5: 225 µs";
        night_ps: u64 = 20_000_000,
            key "night", Type::Time, Range::POSITIVE,
            "The reconfiguration gap between two days (no circuit up).",
            source "PowerTCP §5: 20 µs";
        policy: CircuitPolicy = CircuitPolicy::Exclusive,
            key "policy", Type::Choice(&["exclusive", "both"]), Range::ANY,
            "Which port drains the VOQ whose circuit is up: exclusive (only the circuit, the paper) or both (circuit and packet uplink).",
            source "PowerTCP §5: circuits exclusively when available";
        voq_bytes: u64 = 50_000,
            key "voq", Type::Size, Range::POSITIVE,
            "Capacity of each per-destination VOQ (drop-tail).",
            source "ours (docs/models.md)";
        prebuffer_ps: u64 = 0,
            key "prebuffer", Type::Time, Range::ANY,
            "Prebuffering (reTCP): from this long before a circuit's day to its end, its VOQ may hold prebuffer_voq; 0 = off.",
            source "ours: off";
        prebuffer_voq_bytes: u64 = 0,
            key "prebuffer_voq", Type::Size, Range::ANY,
            "VOQ capacity while prebuffering.",
            source "ours: off";
        matchings: Vec<Vec<u32>> = vec![],
            key "matchings", Type::Lists, Range::ANY,
            "matchings[k][i] = the ToR that ToR i's circuit reaches during day k of every week (i itself: no circuit); [] = round robin, day k joins i to (i + k + 1) mod tors.",
            source "ours: the round-robin schedule of tors − 1 matchings";
    }
    rules {
        "prebuffer_voq": |s| s.prebuffer_ps == 0 || s.prebuffer_voq_bytes >= s.voq_bytes,
            "must be at least voq when prebuffering is on (prebuffer > 0)";
    }
}

/// Circuit-or-packet policy of a ToR's VOQs.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CircuitPolicy {
    /// The paper: "forward packets exclusively on the circuit network when available" — while the
    /// circuit to j is up only it drains VOQ j; otherwise the packet uplink drains every VOQ.
    Exclusive,
    /// Both the circuit and the packet uplink drain VOQ j while the circuit is up.
    Both,
}

crate::section! {
    /// One link of a `custom` topology.
    pub struct LinkSpec ("topology.link") {
        a: String = String::new(),
            key "a" required, Type::Name, Range::ANY,
            "One end: a host h<i> or a switch s<j>.",
            source "set per experiment";
        b: String = String::new(),
            key "b" required, Type::Name, Range::ANY,
            "The other end (a host links only to a switch).",
            source "set per experiment";
        rate_bps: u64 = 0,
            key "rate" required, Type::Rate, Range::POSITIVE,
            "Rate of the link (both directions).",
            source "set per experiment";
        delay_ps: u64 = 0,
            key "delay" required, Type::Time, Range::ANY,
            "Propagation delay (one way).",
            source "set per experiment";
    }
    rules {}
}

impl Topology {
    /// The kind's keys and rules, and those of its sub-sections (an rdcn's circuit, whose keys
    /// are written in `[topology]` itself; a custom topology's links); errors name `prefix.key`.
    pub fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        self.kind_check(prefix)?;
        match self {
            Topology::Rdcn { circuit, .. } => circuit.check(prefix),
            Topology::Custom { links, .. } => links.iter().enumerate().try_for_each(|(i, l)| l.check(&format!("{prefix}.links[{i}]"))),
            _ => Ok(()),
        }
    }

    /// Every section of `[topology]`: each kind's, then the sub-sections (`config::sections`).
    pub fn sections() -> Vec<serde_json::Value> {
        let mut all = Topology::kind_sections();
        all.extend([CircuitConfig::describe(), LinkSpec::describe()]);
        all
    }
}
