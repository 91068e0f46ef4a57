//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use dccsim_engine::config::*;
use dccsim_engine::time::{MS, US};

pub fn powertcp_fattree() -> Topology {
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

pub fn cc(algorithm: &str, params: serde_json::Value) -> CcSpec {
    CcSpec { algorithm: algorithm.into(), params }
}

pub fn long_flow(src: u32, dst: u32, start_ps: u64) -> FlowSpec {
    FlowSpec::new(src, dst, None, start_ps)
}

/// The 10:1 incast of PowerTCP Fig. 4 on the 256-host FatTree, as in the authors' flow file:
/// h0→h16 from 0, h1..h10→h16 at t0 (all in ToR 0).
pub fn incast(algorithm: &str, t0: u64, duration: u64) -> Config {
    incast_with(algorithm, serde_json::json!({}), t0, duration)
}

pub fn incast_with(algorithm: &str, params: serde_json::Value, t0: u64, duration: u64) -> Config {
    let mut flows = vec![long_flow(0, 16, 0)];
    flows.extend((1..11).map(|s| long_flow(s, 16, t0)));
    Config {
        seed: 1,
        duration_ps: duration,
        topology: powertcp_fattree(),
        switch: SwitchConfig::default(),
        host: HostConfig::default(),
        cc: cc(algorithm, params),
        base_rtt_ps: None,
        stop_when_done: false,
        engine: Default::default(),
        flows,
        metrics: MetricsConfig { interval_ps: US, ports: vec!["tor0->h16".into()], flows: true, start_ps: 0, ..MetricsConfig::default() },
    }
}

/// n senders on a star, all to host n (the receiver), one bottleneck: the switch port to host n.
pub fn star(n: u32, rate_bps: u64, delay_ps: u64, algorithm: &str, params: serde_json::Value) -> Config {
    Config {
        seed: 1,
        duration_ps: 2 * MS,
        topology: Topology::Star { hosts: n + 1, host_rate_bps: rate_bps, host_delay_ps: delay_ps },
        switch: SwitchConfig { buffer_bytes: 32 * 1024 * 1024, dt_alpha: 8.0, ..SwitchConfig::default() },
        host: HostConfig::default(),
        cc: cc(algorithm, params),
        base_rtt_ps: None,
        stop_when_done: false,
        engine: Default::default(),
        flows: (0..n).map(|s| long_flow(s, n, 0)).collect(),
        metrics: MetricsConfig { interval_ps: US, ports: vec![format!("sw0->h{n}")], flows: true, start_ps: 0, ..MetricsConfig::default() },
    }
}

/// n senders with fast NICs (`sender_rate`) and one receiver h{n} behind a `bottleneck` link on
/// switch s0: the only bottleneck is the port s0->h{n}.
pub fn fan_in(n: u32, sender_rate: u64, bottleneck: u64, delay_ps: u64, algorithm: &str, params: serde_json::Value) -> Config {
    let mut links: Vec<LinkSpec> =
        (0..n).map(|i| LinkSpec { a: format!("h{i}"), b: "s0".into(), rate_bps: sender_rate, delay_ps }).collect();
    links.push(LinkSpec { a: format!("h{n}"), b: "s0".into(), rate_bps: bottleneck, delay_ps });
    Config {
        seed: 1,
        duration_ps: 2 * MS,
        topology: Topology::Custom { hosts: n + 1, switches: 1, links },
        switch: SwitchConfig { buffer_bytes: 64 * 1024 * 1024, dt_alpha: 8.0, ..SwitchConfig::default() },
        host: HostConfig::default(),
        cc: cc(algorithm, params),
        base_rtt_ps: None,
        stop_when_done: false,
        engine: Default::default(),
        flows: (0..n).map(|s| long_flow(s, n, 0)).collect(),
        metrics: MetricsConfig { interval_ps: US, ports: vec![format!("s0->h{n}")], flows: true, start_ps: 0, ..MetricsConfig::default() },
    }
}

/// Conservation: every packet a host injected was delivered, dropped, or is still in flight.
#[track_caller]
pub fn assert_conserved(r: &dccsim_engine::Results) {
    let s = &r.summary;
    assert_eq!(
        s.packets_sent,
        s.packets_delivered + s.packets_dropped + s.packets_in_flight,
        "packets sent = delivered + dropped + in flight: {s:?}"
    );
    assert!(s.data_packets_delivered + s.data_packets_dropped <= s.data_packets_sent);
}

/// Time average over samples with time in [from, to) of the sum over flows of cwnd.
pub fn mean_aggregate_cwnd(r: &dccsim_engine::Results, from: u64, to: u64) -> f64 {
    let fs = &r.flow_series;
    let mut per_t = std::collections::BTreeMap::new();
    for i in 0..fs.time_ps.len() {
        if fs.time_ps[i] >= from && fs.time_ps[i] < to {
            *per_t.entry(fs.time_ps[i]).or_insert(0.0) += fs.cwnd_bytes[i];
        }
    }
    per_t.values().sum::<f64>() / per_t.len() as f64
}

/// Time average of the first sampled port's queue over [from, to).
pub fn mean_queue(r: &dccsim_engine::Results, from: u64, to: u64) -> f64 {
    let ps = &r.port_series;
    let q: Vec<f64> =
        (0..ps.time_ps.len()).filter(|&i| ps.time_ps[i] >= from && ps.time_ps[i] < to).map(|i| ps.queue_bytes[i] as f64).collect();
    q.iter().sum::<f64>() / q.len() as f64
}
