//! The digest of a run's results that the golden tests compare: the summary counters and an
//! FNV-1a hash of every result column (shared by tests/golden.rs and tests/partition.rs).

use dccsim_engine::Results;
use serde_json::{json, Value};

/// FNV-1a over a stream of little-endian words: stable across platforms and Rust versions.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u64s(&mut self, v: impl IntoIterator<Item = u64>) -> &mut Self {
        let mut n = 0u64;
        for x in v {
            self.bytes(&x.to_le_bytes());
            n += 1;
        }
        self.bytes(&n.to_le_bytes()); // column length, so columns cannot slide into each other
        self
    }
    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

pub fn digest(r: &Results) -> Value {
    let f = &r.flows;
    let mut flows = Fnv::new();
    flows
        .u64s(f.flow_id.iter().map(|&x| x as u64))
        .u64s(f.src.iter().map(|&x| x as u64))
        .u64s(f.dst.iter().map(|&x| x as u64))
        .u64s(f.size_bytes.iter().map(|&x| x as u64))
        .u64s(f.start_ps.iter().map(|&x| x as u64))
        .u64s(f.end_ps.iter().map(|&x| x as u64))
        .u64s(f.bytes_acked.iter().copied())
        .u64s(f.base_rtt_ps.iter().map(|&x| x as u64))
        .u64s(f.ideal_fct_ps.iter().map(|&x| x as u64))
        .u64s(f.retransmits.iter().copied())
        .u64s(f.timeouts.iter().copied());
    let mut ports = Fnv::new();
    ports.u64s(r.ports.port.iter().map(|&x| x as u64)).u64s(r.ports.rate_bps.iter().copied());
    for n in &r.ports.name {
        ports.bytes(n.as_bytes());
        ports.bytes(&[0]);
    }
    let p = &r.port_series;
    let mut port_series = Fnv::new();
    port_series
        .u64s(p.time_ps.iter().copied())
        .u64s(p.port.iter().map(|&x| x as u64))
        .u64s(p.queue_bytes.iter().copied())
        .u64s(p.tx_bytes.iter().copied());
    let s = &r.flow_series;
    let mut flow_series = Fnv::new();
    flow_series
        .u64s(s.time_ps.iter().copied())
        .u64s(s.flow_id.iter().map(|&x| x as u64))
        .u64s(s.cwnd_bytes.iter().map(|x| x.to_bits()))
        .u64s(s.rate_bps.iter().map(|x| x.to_bits()))
        .u64s(s.bytes_acked.iter().copied());
    let m = &r.summary;
    json!({
        "summary": {
            "sim_time_ps": m.sim_time_ps, "events": m.events, "packets_sent": m.packets_sent,
            "packets_delivered": m.packets_delivered, "packets_dropped": m.packets_dropped,
            "packets_in_flight": m.packets_in_flight, "data_packets_sent": m.data_packets_sent,
            "data_packets_delivered": m.data_packets_delivered, "data_packets_dropped": m.data_packets_dropped,
            "packet_hops": m.packet_hops, "bytes_delivered": m.bytes_delivered, "base_rtt_ps": m.base_rtt_ps,
            "flows_completed": m.flows_completed,
        },
        "flows": flows.hex(),
        "ports": ports.hex(),
        "port_series": port_series.hex(),
        "flow_series": flow_series.hex(),
    })
}
