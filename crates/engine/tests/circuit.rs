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
        stop_when_done: false,
        engine: Default::default(),
        metrics: MetricsConfig {
            pcap: (0..TORS).map(|i| format!("tor{i}->ocs0")).collect(),
            pcap_max: 1_000_000,
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

/// (cwnd, bytes acked) of `flow` in the sample at `t`.
fn sample(r: &Results, flow: u32, t: u64) -> (f64, u64) {
    let s = &r.flow_series;
    let k = (0..s.time_ps.len()).find(|&k| s.time_ps[k] == t && s.flow_id[k] == flow).expect("sampled");
    (s.cwnd_bytes[k], s.bytes_acked[k])
}

#[test]
fn retcp_windows_jump_when_the_circuit_of_their_racks_changes() {
    let mut cfg = scenario("retcp", CircuitPolicy::Exclusive, 400_000);
    cfg.metrics.interval_ps = US;
    cfg.metrics.flows = true;
    let r = run(&cfg);
    // flow 0 (h0 → h2, rack 0 → rack 1): circuit 0→1 is up in slots 0, 3, 6, … (round robin with
    // 4 ToRs), i.e. it comes up at 72 µs and 144 µs and goes down at 92 µs and 164 µs. Between the
    // samples 1 µs either side, ACKs move the window by at most the bytes they acknowledge (Δ, slow
    // start's +1 byte per byte at most), so up: 2·w ≤ w' ≤ 2·(w + Δ); down: w/2 ≤ w' ≤ (w + Δ)/2.
    let mut jumps = 0;
    for (t, up) in [(72, true), (92, false), (144, true), (164, false)] {
        let (w0, a0) = sample(&r, 0, (t - 1) * US);
        let (w1, a1) = sample(&r, 0, (t + 1) * US);
        let d = (a1 - a0) as f64;
        if up {
            assert!(2.0 * w0 <= w1 && w1 <= 2.0 * (w0 + d), "up at {t} µs: {w0} -> {w1} (Δ {d})");
        } else {
            assert!(w0 / 2.0 <= w1 && w1 <= (w0 + d) / 2.0, "down at {t} µs: {w0} -> {w1} (Δ {d})");
        }
        jumps += 1;
    }
    assert_eq!(jumps, 4);
    // flow 3 (h6 → h1, rack 3 → rack 0): its circuit 3→0 comes up in the same slots,
    // (3 + 0 + 1) mod 4 = 0, so it jumps at 72 µs too
    let (w0, a0) = sample(&r, 3, 71 * US);
    let (w1, a1) = sample(&r, 3, 73 * US);
    assert!(w1 >= 2.0 * w0 && w1 <= 2.0 * (w0 + (a1 - a0) as f64), "{w0} -> {w1}");
    // flow 2 (h0 → h4, rack 0 → rack 2): circuit 0→2 is up in slots 1, 4, …; at 72 µs it changes
    // only by its ACKs (fewer bytes than its window, so a doubling could not hide in them)
    let (w0, a0) = sample(&r, 2, 71 * US);
    let (w1, a1) = sample(&r, 2, 73 * US);
    assert!(((a1 - a0) as f64) < w0 && w1 <= w0 + (a1 - a0) as f64, "{w0} -> {w1}");
}
