//! The rdcn topology: the optical circuit switch's schedule and the ToRs' VOQs (fabric/circuit.rs).

mod common;

use dccsim_engine::config::*;
use dccsim_engine::results::Results;
use dccsim_engine::time::US;

const TORS: u32 = 4;
const SERVERS: u32 = 2;
const DAY: u64 = 20 * US;
const NIGHT: u64 = 4 * US;
const CIRCUIT_BPS: u64 = 100_000_000_000;

/// 4 ToRs × 2 servers, round-robin schedule of 3 matchings (day 20 µs, night 4 µs); every host of
/// rack 0 sends to rack 1 and rack 2, rack 3 sends to rack 0, so VOQs fill while their circuit is
/// down and drain over both ports.
fn scenario(algorithm: &str, policy: CircuitPolicy, voq_bytes: u64) -> Config {
    let flows =
        vec![common::long_flow(0, 2, 0), common::long_flow(1, 3, 0), common::long_flow(0, 4, 3 * US), common::long_flow(6, 1, 5 * US)];
    Config {
        seed: 1,
        duration_ps: 300 * US,
        topology: Topology::Rdcn {
            tors: TORS,
            servers_per_tor: SERVERS,
            host_rate_bps: 25_000_000_000,
            host_delay_ps: US,
            packet_rate_bps: 25_000_000_000,
            packet_delay_ps: 2 * US,
            circuit: CircuitConfig {
                rate_bps: CIRCUIT_BPS,
                delay_ps: 4 * US,
                day_ps: DAY,
                night_ps: NIGHT,
                matchings: vec![],
                policy,
                voq_bytes,
                prebuffer_ps: 0,
                prebuffer_voq_bytes: 0,
            },
        },
        switch: SwitchConfig { int_enabled: true, ..SwitchConfig::default() },
        host: HostConfig::default(),
        cc: common::cc(algorithm, serde_json::json!({})),
        base_rtt_ps: Some(16 * US),
        flows,
        metrics: MetricsConfig {
            capture_ports: (0..TORS).map(|i| format!("tor{i}->ocs")).collect(),
            capture_max: 1_000_000,
            ..MetricsConfig::default()
        },
    }
}

fn run(cfg: &Config) -> Results {
    dccsim_engine::run(cfg).unwrap()
}

#[test]
fn no_packet_crosses_the_circuit_at_night_or_towards_an_unmatched_tor() {
    for policy in [CircuitPolicy::Exclusive, CircuitPolicy::Both] {
        let cfg = scenario("hpcc", policy, 200_000);
        let r = run(&cfg);
        let c = &r.packets;
        assert!(c.time_ps.len() > 100, "the circuit carried only {} packets", c.time_ps.len());
        let mut per_tor = [0u64; TORS as usize];
        for k in 0..c.time_ps.len() {
            let t = c.time_ps[k];
            let f = c.flow_id[k] as usize;
            // data goes to the flow's destination, ACKs and NACKs back to its source
            let (src, dst) = (r.flows.src[f], r.flows.dst[f]);
            let (from, to) = if c.kind[k] == 0 { (src, dst) } else { (dst, src) };
            let (i, j) = (from / SERVERS, to / SERVERS);
            // the round-robin schedule: slot s = t / 24 µs, day k joins i to (i + k + 1) mod 4
            let slot = t / (DAY + NIGHT);
            let day_end = slot * (DAY + NIGHT) + DAY;
            let ser = c.size_bytes[k] as u64 * 8 * 1_000_000_000_000 / CIRCUIT_BPS;
            assert!(t + ser <= day_end, "packet at {t} ps ends {} ps after its day", t + ser - day_end);
            assert_eq!(j, (i + (slot % 3) as u32 + 1) % TORS, "ToR {i} sent to ToR {j} in slot {slot}");
            per_tor[i as usize] += 1;
        }
        // the circuits of racks 0 and 3 carried traffic
        assert!(per_tor[0] > 0 && per_tor[3] > 0, "{per_tor:?}");
        assert_eq!(r.summary.packets_dropped, r.voq.dropped_packets);
    }
}

#[test]
fn voq_bytes_in_equal_bytes_out_plus_queued() {
    // a small VOQ so that drops happen too: dropped bytes never entered
    for (cc, voq) in [("hpcc", 200_000), ("reno", 15_000)] {
        let r = run(&scenario(cc, CircuitPolicy::Exclusive, voq));
        let v = r.voq;
        assert!(v.circuit_bytes > 0 && v.packet_bytes > 0, "{v:?}");
        assert_eq!(v.in_bytes, v.circuit_bytes + v.packet_bytes + v.queued_bytes, "{v:?}");
        if cc == "reno" {
            assert!(v.dropped_packets > 0, "Reno should overflow a 10-packet VOQ: {v:?}");
        }
    }
}

#[test]
fn the_circuit_port_sends_at_most_one_circuit_day_of_bytes_per_slot() {
    // upper bound: 100 Gb/s × 20 µs = 250 000 B per day on each ToR's circuit
    let r = run(&scenario("hpcc", CircuitPolicy::Exclusive, 200_000));
    let c = &r.packets;
    let mut per_slot = std::collections::BTreeMap::new();
    for k in 0..c.time_ps.len() {
        *per_slot.entry((c.port[k], c.time_ps[k] / (DAY + NIGHT))).or_insert(0u64) += c.size_bytes[k] as u64;
    }
    assert!(per_slot.values().all(|&b| b <= 250_000), "{per_slot:?}");
}
