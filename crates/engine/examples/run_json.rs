//! Time the engine alone on a scenario given as the engine's JSON input (see docs/engine-api.md),
//! e.g. `python -c "from dccsim import experiments, scenario; import json; ..." > s.json`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json <engine-config.json>");
    let json = std::fs::read_to_string(&path).expect("read the config");
    let t = std::time::Instant::now();
    let r = dccsim_engine::run_json(&json).unwrap_or_else(|e| panic!("{e}"));
    let s = t.elapsed().as_secs_f64();
    let m = &r.summary;
    println!(
        "wall {s:.3}s events {} ({:.2} M/s) packet-hops {} ({:.2} M/s) drops {}",
        m.events,
        m.events as f64 / s / 1e6,
        m.packet_hops,
        m.packet_hops as f64 / s / 1e6,
        m.packets_dropped
    );
}
