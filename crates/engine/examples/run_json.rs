//! Time the engine alone on a scenario given as the engine's JSON input (see docs/engine-api.md),
//! e.g. `python -c "from dccsim import experiments, scenario; import json; ..." > s.json`.
//! Prints the build and simulation phases, the rates per second of simulation, and the bytes the
//! engine's structures held at the end (`footprint`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json <engine-config.json>");
    let json = std::fs::read_to_string(&path).expect("read the config");
    let cfg = dccsim_engine::Config::from_json(&json).unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let (r, _, times) = dccsim_engine::run_polled_timed(&cfg, &mut |_| false).unwrap_or_else(|e| panic!("{e}"));
    let s = t.elapsed().as_secs_f64();
    let m = &r.summary;
    let sim = times.simulate_s;
    println!(
        "wall {s:.3}s build {:.3}s simulate {sim:.3}s events {} ({:.2} M/s) packet-hops {} ({:.2} M/s) drops {}",
        times.build_s,
        m.events,
        m.events as f64 / sim / 1e6,
        m.packet_hops,
        m.packet_hops as f64 / sim / 1e6,
        m.packets_dropped
    );
    println!("memory {:?}", times.memory);
}
