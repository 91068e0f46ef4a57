//! Quick engine-only timing of the permutation benchmark (the product benchmark is `dccsim bench`).
use dccsim_engine::config::*;
use dccsim_engine::time::{MS, US};

fn main() {
    let hosts = 256u32;
    // a fixed derangement: host i sends to (i + 37) mod 256 (crosses pods for most hosts)
    let flows = (0..hosts).map(|i| FlowSpec { src: i, dst: (i + 37) % hosts, size_bytes: None, start_ps: 0, cc: None }).collect();
    let cfg = Config {
        seed: 1,
        duration_ps: std::env::var("MSECS").map(|v| v.parse::<u64>().unwrap()).unwrap_or(10) * MS,
        topology: Topology::Fattree {
            pods: 4, tors_per_pod: 2, aggs_per_pod: 2, cores: 4, servers_per_tor: 32,
            host_rate_bps: 25_000_000_000, host_delay_ps: US,
            tor_agg_rate_bps: 100_000_000_000, tor_agg_delay_ps: US,
            agg_core_rate_bps: 100_000_000_000, agg_core_delay_ps: 5 * US,
        },
        switch: SwitchConfig::default(),
        host: HostConfig::default(),
        cc: CcSpec { algorithm: std::env::args().nth(1).unwrap_or("powertcp".into()), params: serde_json::json!({}) },
        base_rtt_ps: None,
        flows,
        metrics: MetricsConfig::default(),
    };
    let t = std::time::Instant::now();
    let r = dccsim_engine::run(&cfg).unwrap();
    let s = t.elapsed().as_secs_f64();
    let m = &r.summary;
    println!(
        "wall {s:.3}s events {} ({:.2} M/s) data delivered {} ({:.2} M/s) packet-hops {} ({:.2} M/s) drops {}",
        m.events, m.events as f64 / s / 1e6, m.data_packets_delivered, m.data_packets_delivered as f64 / s / 1e6,
        m.packet_hops, m.packet_hops as f64 / s / 1e6, m.packets_dropped
    );
}
