mod common;
use dccsim_engine::time::*;
#[test]
#[ignore]
fn explore_thm2() {
    let mut cfg = common::fan_in(2, 100_000_000_000, 100_000_000_000, 5 * US, "powertcp", serde_json::json!({"beta_bytes": 8000.0, "current_floor": 0.5}));
    cfg.flows[1].start_ps = 1 * MS;
    cfg.duration_ps = 2 * MS;
    let r = dccsim_engine::run(&cfg).unwrap();
    let tau = r.summary.base_rtt_ps;
    println!("tau={tau}");
    let fs = &r.flow_series;
    let mut agg = std::collections::BTreeMap::new();
    for i in 0..fs.time_ps.len() { *agg.entry(fs.time_ps[i]).or_insert(0.0) += fs.cwnd_bytes[i]; }
    let qs = &r.port_series;
    for (k, (t, w)) in agg.iter().enumerate() { if *t >= 990*US && *t < 1300*US && k % 5 == 0 { let qi = qs.time_ps.iter().position(|x| x == t).unwrap(); print!("[{:.0} w={:.0} q={}] ", *t as f64/1e6, w, qs.queue_bytes[qi]); } }
    println!();
}
