//! Multipath connections end to end: subflows on distinct paths, connection-level reassembly
//! under loss and reordering, conservation of bytes per connection.

mod common;

use common::*;
use dccsim_engine::config::*;
use dccsim_engine::time::{MS, US};

const G: u64 = 1_000_000_000;

/// One sender (h0, NIC `host_rate`) and one receiver (h1) joined by two 10 Gbps paths.
fn two_path(host_rate: u64, flows: Vec<FlowSpec>, algorithm: &str) -> Config {
    Config {
        seed: 3,
        duration_ps: 20 * MS,
        topology: Topology::TwoPath {
            senders: 1,
            receivers: 1,
            host_rate_bps: host_rate,
            host_delay_ps: US,
            path0_rate_bps: 10 * G,
            path0_delay_ps: US,
            path1_rate_bps: 10 * G,
            path1_delay_ps: US,
        },
        switch: SwitchConfig { ecn: Ecn::Step(StepEcn { k_bytes: 10 * 1048 }), ..SwitchConfig::default() },
        host: HostConfig::default(),
        cc: cc(algorithm, serde_json::json!({})),
        base_rtt_ps: None,
        stop_when_done: true,
        engine: Default::default(),
        flows,
        metrics: MetricsConfig {
            interval_ps: 10 * US,
            ports: vec!["tor0->path0".into(), "tor0->path1".into()],
            ..MetricsConfig::default()
        },
    }
}

fn flow(size: u64, subflows: u32) -> FlowSpec {
    FlowSpec { subflows, ..FlowSpec::new(0, 1, Some(size), 0) }
}

fn tx_bytes(r: &dccsim_engine::Results, port: &str) -> u64 {
    let id = r.ports.port[r.ports.name.iter().position(|n| n == port).unwrap()];
    let s = &r.port_series;
    (0..s.time_ps.len()).filter(|&i| s.port[i] == id).map(|i| s.tx_bytes[i]).max().unwrap_or(0)
}

#[test]
fn two_subflows_use_both_paths_and_deliver_every_byte_once() {
    let size = 4_000_000;
    let r = dccsim_engine::run(&two_path(20 * G, vec![flow(size, 2)], "dctcp")).unwrap();
    let f = &r.flows;
    assert_eq!(f.flow_id.len(), 2, "one record per subflow");
    assert_eq!(f.connection, vec![0, 0]);
    assert_eq!(f.subflow, vec![0, 1]);
    assert!(f.end_ps.iter().all(|&e| e > 0 && e == f.end_ps[0]), "the connection finishes once: {:?}", f.end_ps);
    // conservation per connection: the subflows' acknowledged bytes add up to the connection's
    // size, and the receiver reassembled exactly that many bytes in order
    assert_eq!(f.bytes_acked.iter().sum::<u64>(), size);
    assert_eq!(f.delivered_bytes, vec![size, size]);
    // subflow k takes the k-th next hop after the connection's hashed one: both paths carry data
    let (p0, p1) = (tx_bytes(&r, "tor0->path0"), tx_bytes(&r, "tor0->path1"));
    assert!(p0 > size / 4 && p1 > size / 4, "path0 {p0} B, path1 {p1} B");
    assert!(f.bytes_acked.iter().all(|&b| b > size / 4), "{:?}", f.bytes_acked);
    assert_conserved(&r);
}

#[test]
fn two_paths_beat_one_when_the_nic_is_faster_than_a_path() {
    let size = 4_000_000;
    let fct = |n| {
        let r = dccsim_engine::run(&two_path(20 * G, vec![flow(size, n)], "dctcp")).unwrap();
        r.flows.end_ps[0] as f64
    };
    let (one, two) = (fct(1), fct(2));
    // one path: 4 MB at ≤ 10 Gb/s ≥ 3.2 ms; two paths up to 20 Gb/s: well below (≤ 0.7×, leaving
    // room for slow start and the DCTCP sawtooth)
    assert!(one > 3.2e9, "{one}");
    assert!(two < 0.7 * one, "two subflows {two} ps vs one {one} ps");
}

#[test]
fn reassembly_survives_loss_and_reordering_across_subflows() {
    for recovery in [Recovery::GoBackN, Recovery::Sack] {
        reassembly_under_loss(recovery);
    }
}

fn reassembly_under_loss(recovery: Recovery) {
    // a tiny shared buffer drops packets on both paths; path 1 is 20 µs longer than path 0, so
    // segments arrive out of DSN order at the receiver; every byte still arrives exactly once in
    // order and the connection completes, whichever way each subflow recovers its losses (under
    // SACK a subflow's out-of-order segments reach the reassembly on arrival)
    let size = 3_000_000;
    let mut cfg = two_path(20 * G, vec![flow(size, 4)], "reno");
    cfg.host.recovery = recovery;
    cfg.switch.buffer_bytes = 30_000;
    cfg.switch.ecn = Ecn::None;
    if let Topology::TwoPath { ref mut path1_delay_ps, .. } = cfg.topology {
        *path1_delay_ps = 10 * US;
    }
    cfg.duration_ps = 200 * MS;
    let r = dccsim_engine::run(&cfg).unwrap();
    let f = &r.flows;
    assert!(r.summary.data_packets_dropped > 0, "the scenario must lose packets");
    assert!(f.retransmits.iter().sum::<u64>() > 0);
    assert!(f.end_ps[0] > 0, "connection unfinished");
    assert_eq!(f.bytes_acked.iter().sum::<u64>(), size);
    assert!(f.delivered_bytes.iter().all(|&d| d == size), "{:?}", f.delivered_bytes);
    assert_conserved(&r);
    let (rtx, rto) = (f.retransmits.iter().sum::<u64>(), f.timeouts.iter().sum::<u64>());
    eprintln!("{recovery:?}: {rtx} retransmits, {rto} timeouts, {} drops", r.summary.data_packets_dropped);
    if recovery == Recovery::Sack {
        // each subflow resends only what was lost: one retransmission per drop
        assert_eq!(rto, 0);
        assert!(rtx <= r.summary.data_packets_dropped, "{rtx} retransmits");
    }
}

#[test]
fn single_path_flows_keep_their_records_beside_a_connection() {
    let mut flows = vec![flow(1_000_000, 1), flow(1_000_000, 3), flow(1_000_000, 1)];
    flows[2].start_ps = 10 * US;
    let r = dccsim_engine::run(&two_path(20 * G, flows, "dctcp")).unwrap();
    let f = &r.flows;
    assert_eq!(f.connection, vec![0, 1, 1, 1, 2]);
    assert_eq!(f.subflow, vec![0, 0, 1, 2, 0]);
    assert_eq!(r.summary.flows_completed, 3, "connections count once");
    for c in 0..3 {
        let acked: u64 = (0..5).filter(|&i| f.connection[i] == c).map(|i| f.bytes_acked[i]).sum();
        assert_eq!(acked, 1_000_000, "connection {c}");
    }
}

#[test]
fn subflows_out_of_range_are_refused_naming_the_field() {
    let e = dccsim_engine::run(&two_path(20 * G, vec![flow(1000, 0)], "dctcp")).err().unwrap();
    assert_eq!(e.field, "flows[0].subflows");
    let e = dccsim_engine::run(&two_path(20 * G, vec![flow(1000, 65)], "dctcp")).err().unwrap();
    assert!(e.to_string().starts_with("flows[0].subflows: must be 1..=64"), "{e}");
    let e = dccsim_engine::run(&two_path(20 * G, vec![flow(1000, 2)], "homa")).err().unwrap();
    assert_eq!(e.field, "flows[0].subflows");
}

/// n connections of `sub` subflows from h0..h<n-1> to h<n> on a 10 Gbps star (2 µs links, 100
/// packets of buffer, K = 10 packets), windows from 1 MSS: the AMP paper's Fig. 1 setup.
fn amp_star(n: u32, sub: u32, algorithm: &str, sizes: &[Option<u64>], duration: u64) -> Config {
    amp_star_with(n, sub, algorithm, serde_json::json!({"init_cwnd_mss": 1.0}), sizes, duration)
}

/// The AMP paper's switches and hosts (§5): step marking at K = 10 packets of 1440 B, one port
/// may fill the buffer, no INT, 1400 B payloads, the authors' 200 ms RTO.
fn amp_fabric(cfg: &mut Config, buffer_bytes: u64) {
    cfg.switch = SwitchConfig {
        buffer_bytes,
        dt_alpha: 64.0,
        ecn: Ecn::Step(StepEcn { k_bytes: 14_400 }),
        int_enabled: false,
        ..SwitchConfig::default()
    };
    cfg.host.payload_bytes = 1400;
    cfg.host.rto_ps = 200 * MS;
}

fn amp_star_with(n: u32, sub: u32, algorithm: &str, params: serde_json::Value, sizes: &[Option<u64>], duration: u64) -> Config {
    let mut cfg = common::star(n, 10 * G, 2 * US, algorithm, params);
    amp_fabric(&mut cfg, 144_000);
    cfg.duration_ps = duration;
    cfg.metrics.interval_ps = 100 * US;
    for (f, s) in cfg.flows.iter_mut().zip(sizes) {
        f.size_bytes = *s;
        f.subflows = sub;
    }
    cfg
}

#[test]
fn every_coupled_law_completes_its_connections_with_every_byte_once() {
    for alg in ["mptcp-lia", "dcm", "xmp", "amp"] {
        let sizes: Vec<Option<u64>> = (0..6).map(|i| Some(200_000 + 100_000 * i)).collect();
        let r = dccsim_engine::run(&amp_star(6, 4, alg, &sizes, 2000 * MS)).unwrap();
        let f = &r.flows;
        assert_eq!(r.summary.flows_completed, 6, "{alg}");
        for c in 0..6u32 {
            let rows: Vec<usize> = (0..f.flow_id.len()).filter(|&i| f.connection[i] == c).collect();
            assert_eq!(rows.len(), 4);
            let size = sizes[c as usize].unwrap();
            assert_eq!(rows.iter().map(|&i| f.bytes_acked[i]).sum::<u64>(), size, "{alg} connection {c}");
            assert!(rows.iter().all(|&i| f.delivered_bytes[i] == size && f.end_ps[i] > 0), "{alg} connection {c}");
        }
        assert_conserved(&r);
    }
}

#[test]
fn amp_suppresses_at_the_floor_and_releases_when_the_crowd_leaves() {
    // Two paths of 10 Gbps, senders with 20 Gbps NICs, 16 connections of 2 subflows (one per
    // path): 16 subflows at ≥ 2 packets on each path overrun BDP + K, every subflow sits at
    // cwnd_min and AMP suppresses. Connections 1..15 are short (1 MB); connection 0 is long and,
    // once alone, needs both paths to go beyond 10 Gbps: after its release its second subflow
    // carries data again. τ = 2: a lone subflow at a 10 Gbps, K = 10 port is marked every
    // ≈ W/4 ≈ 5 rounds (W ≈ BDP + K, cut by 1/4, +1 packet per round), so the paper's τ = 8 clean
    // rounds would rarely come (docs/models.md).
    let mut flows = vec![FlowSpec { subflows: 2, ..FlowSpec::new(0, 16, None, 0) }];
    flows.extend((1..16).map(|s| FlowSpec { subflows: 2, ..FlowSpec::new(s, 16, Some(1_000_000), 0) }));
    let mut cfg = two_path(20 * G, flows, "amp");
    cfg.cc.params = serde_json::json!({"init_cwnd_mss": 1.0, "tau_rounds": 2});
    if let Topology::TwoPath { ref mut senders, .. } = cfg.topology {
        *senders = 16;
    }
    amp_fabric(&mut cfg, 288_000);
    cfg.stop_when_done = false;
    cfg.duration_ps = 60 * MS;
    cfg.metrics.flows = true;
    cfg.metrics.interval_ps = 100 * US;
    let r = dccsim_engine::run(&cfg).unwrap();
    let f = &r.flows;
    assert!(f.suppressions[0] >= 1, "no suppression: {:?}", f.suppressions);
    let last_short = (2..f.flow_id.len()).map(|i| f.end_ps[i]).min().unwrap();
    assert!(last_short > 0, "the short connections must finish: {:?}", f.end_ps);
    let last_short = (2..f.flow_id.len()).map(|i| f.end_ps[i]).max().unwrap();
    let s = &r.flow_series;
    let acked = |fid: u32, t: i64| {
        (0..s.time_ps.len()).filter(|&i| s.flow_id[i] == fid && s.time_ps[i] as i64 <= t).map(|i| s.bytes_acked[i]).max().unwrap_or(0)
    };
    let end = r.summary.sim_time_ps as i64;
    // after the crowd: both subflows carry data, together beyond one path's 10 Gbps
    let span = (end - last_short) as f64 / 1e12;
    let rate = |fid| (acked(fid, end) - acked(fid, last_short)) as f64 * 8.0 / span;
    assert!(rate(1) > 5e9, "subflow 1 after release: {:.2} Gbps", rate(1) / 1e9);
    assert!(rate(0) + rate(1) > 12e9, "{:.2} + {:.2} Gbps", rate(0) / 1e9, rate(1) / 1e9);
}
