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
        switch: SwitchConfig { ecn: Ecn::Step { k_bytes: 10 * 1048 }, ..SwitchConfig::default() },
        host: HostConfig::default(),
        cc: cc(algorithm, serde_json::json!({})),
        base_rtt_ps: None,
        stop_when_done: true,
        flows,
        metrics: MetricsConfig {
            sample_interval_ps: 10 * US,
            ports: vec!["tor0->path0".into(), "tor0->path1".into()],
            ..MetricsConfig::default()
        },
    }
}

fn flow(size: u64, subflows: u32) -> FlowSpec {
    FlowSpec { src: 0, dst: 1, size_bytes: Some(size), start_ps: 0, cc: None, subflows }
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
    // a tiny shared buffer drops packets on both paths; path 1 is 20 µs longer than path 0, so
    // segments arrive out of DSN order at the receiver; every byte still arrives exactly once in
    // order and the connection completes
    let size = 3_000_000;
    let mut cfg = two_path(20 * G, vec![flow(size, 4)], "reno");
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
