//! The artifact's NIC and marking as named options: the RDMA NIC caps bytes in flight at one BDP
//! (NIC rate × τ, the artifact's maxBdp window) whatever the controller's own window, and RED
//! thresholds chosen by port rate (the artifact's KMIN/KMAX/PMAX maps).

mod common;

use dccsim_engine::cc;
use dccsim_engine::config::*;
use dccsim_engine::time::US;
use serde_json::json;

fn lone_dcqcn(nic: NicModel) -> Config {
    let mut cfg = common::star(1, 25_000_000_000, US, "dcqcn", json!({}));
    cfg.host.nic = nic;
    cfg
}

#[test]
fn the_rdma_nic_caps_a_rate_based_flow_at_one_bdp() {
    // DCQCN is rate-based: its own window is infinite.
    let tcp = dccsim_engine::run(&lone_dcqcn(NicModel::Tcp)).unwrap();
    assert!(tcp.flow_series.cwnd_bytes.iter().all(|w| w.is_infinite()));
    let r = dccsim_engine::run(&lone_dcqcn(NicModel::Rdma)).unwrap();
    // τ = the star's base RTT (summary.base_rtt_ps); cap = 25 Gb/s × τ / 8
    let cap = 25e9 * r.summary.base_rtt_ps as f64 * 1e-12 / 8.0;
    assert!(r.flow_series.cwnd_bytes.iter().all(|&w| w == cap), "cap {cap}: {:?}", &r.flow_series.cwnd_bytes[..3]);
    // a BDP of window is enough for line rate: the lone flow delivers as much as without the cap
    // (within one packet per RTT of the 2 ms run: the cap only removes queueing)
    let (a, b) = (tcp.summary.bytes_delivered as f64, r.summary.bytes_delivered as f64);
    assert!((a - b).abs() / a < 0.01, "tcp {a} rdma {b}");
}

#[test]
fn the_study_nic_leaves_dcqcn_and_timely_unwindowed_and_caps_the_others() {
    // The PowerTCP study's scripts run DCQCN and TIMELY with windowCheck=0 (no NIC window) and
    // the other controllers with the maxBdp window. On a 10:1 incast at 25G the uncapped rate
    // senders put more than their BDP each in flight before their laws react; capped, no flow
    // holds more than one BDP, so the bottleneck holds at most 10 BDPs.
    let run = |cc: &str, nic: NicModel| {
        let mut cfg = common::star(10, 25_000_000_000, US, cc, json!({}));
        cfg.host.nic = nic;
        dccsim_engine::run(&cfg).unwrap()
    };
    for cc in ["dcqcn", "timely"] {
        let study = run(cc, NicModel::RdmaStudy);
        assert!(study.flow_series.cwnd_bytes.iter().all(|w| w.is_infinite()), "{cc}: no window under rdma-study");
        let capped = run(cc, NicModel::Rdma);
        let cap = 25e9 * capped.summary.base_rtt_ps as f64 * 1e-12 / 8.0;
        let peak = |r: &dccsim_engine::Results| *r.port_series.queue_bytes.iter().max().unwrap() as f64;
        assert!(peak(&capped) <= 10.0 * cap + 10_000.0, "{cc} capped: peak {} cap {cap}", peak(&capped));
        assert!(peak(&study) > 10.0 * cap + 10_000.0, "{cc} uncapped: peak {} cap {cap}", peak(&study));
    }
    // window-based controllers keep the cap
    let hpcc = run("hpcc", NicModel::RdmaStudy);
    let cap = 25e9 * hpcc.summary.base_rtt_ps as f64 * 1e-12 / 8.0;
    assert!(hpcc.flow_series.cwnd_bytes.iter().all(|&w| w <= cap + 1e-6));
    assert!(NicModel::RdmaStudy.caps_window(&cc::caps("dctcp-rdma")) && !NicModel::RdmaStudy.caps_window(&cc::caps("timely")));
}

#[test]
fn red_by_rate_marks_each_port_by_its_own_rule_and_refuses_a_rate_without_one() {
    let rule = |rate_bps, kmin_bytes, kmax_bytes| RateRed { rate_bps, kmin_bytes, kmax_bytes, pmax: 0.2 };
    // DCTCP on a 10:1 star incast at 25G: marking at a Kmin of 1 KB holds the queue near it, at
    // 1 MB the queue grows far beyond; the rule for the port's rate decides which.
    let run = |rules: Vec<RateRed>| {
        let mut cfg = common::star(10, 25_000_000_000, US, "dctcp", json!({}));
        cfg.switch.ecn = Ecn::RedByRate(RedByRateEcn { rules });
        dccsim_engine::run(&cfg)
    };
    let low = run(vec![rule(100_000_000_000, 1_000_000, 2_000_000), rule(25_000_000_000, 1_000, 2_000)]).unwrap();
    let high = run(vec![rule(25_000_000_000, 1_000_000, 2_000_000)]).unwrap();
    let peak = |r: &dccsim_engine::Results| *r.port_series.queue_bytes.iter().max().unwrap();
    assert!(peak(&low) * 10 < peak(&high), "low {} high {}", peak(&low), peak(&high));
    let e = run(vec![rule(100_000_000_000, 1_000, 2_000)]).err().expect("no rule for 25G");
    assert_eq!(e.field, "switch.ecn.rules");
    assert!(e.message.contains("25000000000 bps"), "{}", e.message);
}

/// Bytes on the wire per data packet of a lone 50-packet flow run by `cc` (with INT on): what the
/// switch port toward the receiver transmitted, over the packet count.
fn data_packet_bytes(cc: &str, params: serde_json::Value, nic: NicModel) -> u64 {
    let mut cfg = common::star(1, 25_000_000_000, US, cc, params);
    cfg.host.nic = nic;
    cfg.host.ts_header_bytes = 8;
    cfg.flows[0].size_bytes = Some(50_000);
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.summary.flows_completed, 1, "{cc}");
    assert_eq!(r.summary.data_packets_sent, 50, "{cc}: no retransmission in this test");
    r.port_series.tx_bytes.iter().max().unwrap() / 50
}

#[test]
fn a_data_packet_carries_the_header_its_law_reads() {
    // payload 1000 B + header 48 B, + int_header 42 B for a law that reads INT, + ts_header (8 B
    // here) for one that reads a send timestamp; a window/ECN law carries neither.
    for (cc, want) in
        [("hpcc", 1090), ("powertcp", 1090), ("poseidon", 1090), ("dcqcn", 1048), ("dctcp", 1048), ("timely", 1056), ("swift", 1056)]
    {
        assert_eq!(data_packet_bytes(cc, json!({}), NicModel::Tcp), want, "{cc}");
    }
    // θ-PowerTCP is delay-only (a timestamp); its artifact laws are the study's CC mode 3, which
    // sends HPCC's INT header
    assert_eq!(data_packet_bytes("theta-powertcp", json!({}), NicModel::Tcp), 1056);
    assert_eq!(data_packet_bytes("theta-powertcp", json!({"law": "rdma-hw"}), NicModel::Tcp), 1090);
    // the study's NIC sizes the header by CC mode, whatever the law
    for (cc, want) in [("theta-powertcp", 1090), ("hpcc", 1090), ("timely", 1056), ("dcqcn", 1048), ("dctcp-rdma", 1048)] {
        assert_eq!(data_packet_bytes(cc, json!({}), NicModel::RdmaStudy), want, "{cc} on rdma-study");
    }
}
