//! Golden results: every variant of every catalog experiment (configs written by
//! tests/golden_configs.py) must give exactly the stored summary counters and the stored digest of
//! every result column. A refactor that changes any event order changes some digest. Every run
//! also checks the end-of-run invariants (`[engine] check`, invariants.rs).
//!
//! After an intentional change of results: `DCCSIM_UPDATE_GOLDEN=1 cargo test --release -p
//! dccsim-engine --test golden` rewrites `golden/expected.json`; say why in the commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

fn digest(r: &Results) -> Value {
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

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

#[test]
fn every_catalog_experiment_gives_its_golden_results() {
    let mut configs: Vec<PathBuf> = std::fs::read_dir(dir().join("configs"))
        .expect("golden configs (python tests/golden_configs.py)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    configs.sort();
    assert!(configs.len() >= 70, "expected every catalog variant, found {}", configs.len());
    let mut got = BTreeMap::new();
    for path in &configs {
        let text = std::fs::read_to_string(path).unwrap();
        let mut cfg = dccsim_engine::Config::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        cfg.engine.check = true; // every catalog variant keeps the end-of-run invariants, in any profile
        let r = dccsim_engine::run(&cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        got.insert(path.file_name().unwrap().to_string_lossy().into_owned(), digest(&r));
    }
    let expected_path = dir().join("expected.json");
    if std::env::var_os("DCCSIM_UPDATE_GOLDEN").is_some() {
        std::fs::write(&expected_path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        return;
    }
    let expected: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&expected_path).expect("golden/expected.json")).unwrap();
    let mut differ = Vec::new();
    for (name, want) in &expected {
        match got.get(name) {
            None => differ.push(format!("{name}: no config")),
            Some(have) if have != want => differ.push(format!("{name}:\n  want {want}\n  have {have}")),
            _ => {}
        }
    }
    for name in got.keys().filter(|k| !expected.contains_key(*k)) {
        differ.push(format!("{name}: not in expected.json"));
    }
    assert!(differ.is_empty(), "{} of {} golden runs differ:\n{}", differ.len(), got.len(), differ.join("\n"));
}
