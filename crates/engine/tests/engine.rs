//! Engine-level properties: determinism, conservation, loss recovery, input validation.

mod common;
use dccsim_engine::config::*;
use dccsim_engine::results::Summary;
use dccsim_engine::time::{MS, US};

fn cross_pod_permutation(seed: u64) -> Config {
    // 32 flows from pod 0 to pod 2: they cross ToR uplinks, aggregation and core switches, so
    // ECMP (seeded) decides their paths.
    let mut cfg = common::incast("powertcp", 0, 5 * MS);
    cfg.seed = seed;
    cfg.flows = (0..32).map(|i| FlowSpec::new(i, 128 + i, Some(200_000), 0)).collect();
    cfg.metrics.ports = vec!["*".into()];
    cfg
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let a = dccsim_engine::run(&cross_pod_permutation(7)).unwrap();
    let b = dccsim_engine::run(&cross_pod_permutation(7)).unwrap();
    assert_eq!(a, b);
    common::assert_conserved(&a);
}

#[test]
fn another_seed_changes_ecmp_and_the_results() {
    let a = dccsim_engine::run(&cross_pod_permutation(7)).unwrap();
    let b = dccsim_engine::run(&cross_pod_permutation(8)).unwrap();
    common::assert_conserved(&b);
    assert_ne!(a.port_series, b.port_series);
    assert_ne!(a.flows.end_ps, b.flows.end_ps);
}

#[test]
fn finite_flows_complete_with_an_fct_no_better_than_ideal() {
    let r = dccsim_engine::run(&cross_pod_permutation(1)).unwrap();
    common::assert_conserved(&r);
    let f = &r.flows;
    for i in 0..f.flow_id.len() {
        assert!(f.end_ps[i] > 0, "flow {i} unfinished: {:?} {:?} {:?}", r.summary, f.retransmits, f.timeouts);
        assert_eq!(f.bytes_acked[i], 200_000);
        let fct = f.end_ps[i] - f.start_ps[i];
        assert!(fct >= f.ideal_fct_ps[i], "flow {i}: fct {fct} < ideal {}", f.ideal_fct_ps[i]);
    }
    assert_eq!(r.summary.flows_completed, 32);
    assert_eq!(r.summary.bytes_delivered, 32 * 200_000);
}

/// The ideal FCT of a lone flow is its base RTT plus its bytes on the wire at the path rate;
/// a single flow on an idle path must finish within a few packet times of it.
#[test]
fn a_lone_flow_finishes_at_its_ideal_fct() {
    let mut cfg = common::incast("powertcp", 0, MS);
    cfg.flows = vec![FlowSpec::new(0, 200, Some(50_000), 0)];
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    let fct = r.flows.end_ps[0] - r.flows.start_ps[0];
    let ideal = r.flows.ideal_fct_ps[0];
    // slack: the last packet's store-and-forward on the 4 fabric hops (≈ 4·87 ns) plus the
    // ACK serialisations already counted in the base RTT; bound it by 1 µs.
    assert!(fct >= ideal && fct - ideal < 1_000_000, "fct {fct} ideal {ideal}");
}

#[test]
fn drops_are_recovered_by_go_back_n_and_timeouts() {
    // A 10:1 incast into a tiny shared buffer: packets are dropped, every flow still completes.
    for alg in ["powertcp", "theta-powertcp", "hpcc"] {
        let mut cfg = common::star(10, 25_000_000_000, US, alg, serde_json::json!({}));
        cfg.switch.buffer_bytes = 30_000;
        cfg.switch.dt_alpha = 1.0;
        cfg.duration_ps = 20 * MS;
        for f in cfg.flows.iter_mut() {
            f.size_bytes = Some(300_000);
        }
        let r = dccsim_engine::run(&cfg).unwrap();
        common::assert_conserved(&r);
        assert!(r.summary.packets_dropped > 0, "{alg}: the scenario must drop");
        assert_eq!(r.summary.flows_completed, 10, "{alg}: {:?}", r.flows.end_ps);
        assert!(r.flows.retransmits.iter().sum::<u64>() > 0);
        assert_eq!(r.summary.packets_in_flight, 0, "{alg}: nothing left once all flows are done");
    }
}

#[test]
fn consecutive_timeouts_back_off_exponentially_unless_turned_off() {
    // A shared buffer smaller than one packet drops every data packet, so the lone flow only
    // times out. rto = 1 ms, 20 ms: with backoff (default, as Linux and ns-3) the timeouts come at
    // 1, 3, 7 and 15 ms (each wait twice the last); with `rto_backoff = false` every 1 ms, at
    // 1, 2, …, 20 ms (the run's last instant included).
    let mut cfg = common::star(1, 25_000_000_000, US, "dctcp", serde_json::json!({}));
    cfg.switch.buffer_bytes = 500;
    cfg.host.rto_ps = MS;
    cfg.duration_ps = 20 * MS;
    assert!(cfg.host.rto_backoff, "backoff is the default");
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.summary.flows_completed, 0);
    assert_eq!(r.flows.timeouts[0], 4);
    cfg.host.rto_backoff = false;
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.flows.timeouts[0], 20);
}

#[test]
fn dynamic_threshold_caps_one_port_at_alpha_over_one_plus_alpha_of_the_buffer() {
    // One congested port alone: DT admits while q < α·(B − q), i.e. q < α/(1+α)·B.
    let mut cfg = common::star(10, 25_000_000_000, 10 * US, "powertcp", serde_json::json!({}));
    cfg.switch.buffer_bytes = 1_000_000;
    cfg.switch.dt_alpha = 0.5;
    cfg.duration_ps = MS;
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    let peak = *r.port_series.queue_bytes.iter().max().unwrap() as f64;
    let cap = 0.5 / 1.5 * 1e6;
    assert!(peak <= cap + 1090.0 && peak > cap - 3.0 * 1090.0, "peak {peak} vs cap {cap}");
    assert!(r.summary.packets_dropped > 0);
}

#[test]
fn step_ecn_marks_hold_dctcp_queue_near_k() {
    // DCTCP reacts only to CE marks echoed by ACKs: with marking above K = 20 KB its queue
    // stays near K; without marking (a K beyond the buffer is refused: it never marks) the same
    // flows fill the queue.
    let mut d = common::star(4, 25_000_000_000, US, "dctcp", serde_json::json!({}));
    d.switch.ecn = Ecn::Step(StepEcn { k_bytes: 20_000 });
    d.duration_ps = 5 * MS;
    let with_marks = dccsim_engine::run(&d).unwrap();
    d.switch.ecn = Ecn::None;
    let without = dccsim_engine::run(&d).unwrap();
    common::assert_conserved(&with_marks);
    common::assert_conserved(&without);
    let q = |r: &dccsim_engine::Results| common::mean_queue(r, 2 * MS, 5 * MS);
    assert!(q(&with_marks) < 0.5 * q(&without), "marks must hold DCTCP's queue down: {} vs {}", q(&with_marks), q(&without));
    assert!(q(&with_marks) < 60_000.0, "DCTCP queue {} should sit near K = 20 KB", q(&with_marks));
}

fn err(cfg: &Config) -> dccsim_engine::Error {
    dccsim_engine::run(cfg).err().expect("must be rejected")
}

/// A topology whose counts are mistyped (u32::MAX hosts, a FatTree whose product overflows u32)
/// is refused before anything is allocated or multiplied, naming `topology`.
#[test]
fn a_topology_too_large_to_address_is_refused_before_it_is_built() {
    let mut c = common::star(2, 25_000_000_000, US, "dctcp", serde_json::json!({}));
    c.topology = Topology::Star { hosts: u32::MAX, host_rate_bps: 25_000_000_000, host_delay_ps: US };
    // a count beyond its declared range is refused by the schema first, naming the key
    assert_eq!(err(&c).field, "topology.hosts");
    let (g, u) = (25_000_000_000, US);
    c.topology = Topology::Fattree {
        pods: 1 << 16,
        tors_per_pod: 1 << 16,
        aggs_per_pod: 1,
        cores: 1,
        servers_per_tor: 2,
        host_rate_bps: g,
        host_delay_ps: u,
        tor_agg_rate_bps: g,
        tor_agg_delay_ps: u,
        agg_core_rate_bps: g,
        agg_core_delay_ps: u,
    };
    assert_eq!(err(&c).field, "topology");
}

#[test]
fn bad_input_names_the_field() {
    let base = common::star(2, 25_000_000_000, US, "powertcp", serde_json::json!({}));
    let mut c = base.clone();
    c.cc.algorithm = "tcp-vegas".into();
    let e = err(&c);
    assert_eq!(e.field, "cc.algorithm");
    assert!(e.message.contains("powertcp") && e.message.contains("hpcc"), "lists allowed values: {e}");

    let mut c = base.clone();
    c.topology = Topology::Star { hosts: 3, host_rate_bps: 0, host_delay_ps: US };
    assert_eq!(err(&c).field, "topology.host_rate");

    let mut c = base.clone();
    c.switch.buffer_bytes = 0;
    assert_eq!(err(&c).field, "switch.buffer");
    c.switch.buffer_bytes = dccsim_engine::config::MAX_BUFFER_BYTES + 1;
    assert_eq!(err(&c).field, "switch.buffer");

    let mut c = base.clone();
    c.topology = Topology::Custom {
        hosts: 3,
        switches: 2,
        links: vec![
            LinkSpec { a: "h0".into(), b: "s0".into(), rate_bps: 1_000_000_000, delay_ps: US },
            LinkSpec { a: "h1".into(), b: "s0".into(), rate_bps: 1_000_000_000, delay_ps: US },
            LinkSpec { a: "h2".into(), b: "s1".into(), rate_bps: 1_000_000_000, delay_ps: US },
        ],
    };
    c.flows = vec![common::long_flow(0, 2, 0)];
    c.metrics.ports = vec![];
    let e = err(&c);
    assert_eq!(e.field, "flows[0]");
    assert!(e.message.contains("no path from h0 to h2"), "{e}");

    let mut c = base.clone();
    c.cc.params = serde_json::json!({"gama": 0.9});
    let e = err(&c);
    assert_eq!(e.field, "cc.gama");
    assert!(e.message.starts_with("unknown parameter of powertcp; allowed: gamma,"), "{e}");

    let mut c = base.clone();
    c.metrics.ports = vec!["sw0->h99".into()];
    assert_eq!(err(&c).field, "metrics.ports");

    let mut c = base.clone();
    c.flows[0].dst = 42;
    assert_eq!(err(&c).field, "flows[0].dst");

    let json_err = dccsim_engine::run_json(r#"{"duration_ps": 5, "topology": {"kind": "ring"}}"#).err().unwrap();
    assert!(json_err.message.contains("ring"), "{json_err}");
}

/// Brownfield INT (Poseidon §5.5): 4 Poseidon senders cross a 10 Gb/s link sw0→sw1. With INT
/// only on sw1 the congested hop is invisible to the MPD signal, so plain Poseidon lets the
/// queue grow; the brownfield option (max(MPD, e2e delay − INT delay)) restores control.
#[test]
fn brownfield_int_hides_a_hop_unless_poseidon_falls_back_to_e2e_delay() {
    let run = |int_switches: Option<Vec<String>>, brownfield: bool| {
        let mut cfg = common::star(4, 25_000_000_000, US, "poseidon", serde_json::json!({ "brownfield": brownfield }));
        cfg.topology = Topology::Dumbbell {
            left: 4,
            right: 1,
            host_rate_bps: 25_000_000_000,
            host_delay_ps: US,
            bottleneck_rate_bps: 10_000_000_000,
            bottleneck_delay_ps: US,
        };
        cfg.flows = (0..4).map(|s| common::long_flow(s, 4, 0)).collect();
        cfg.metrics.ports = vec!["sw0->sw1".into()];
        cfg.switch.int_switches = int_switches;
        cfg.duration_ps = 3 * MS;
        let r = dccsim_engine::run(&cfg).unwrap();
        common::assert_conserved(&r);
        common::mean_queue(&r, MS, 3 * MS)
    };
    let only_sw1 = Some(vec!["sw1".to_string()]);
    let full = run(None, false);
    let blind = run(only_sw1.clone(), false);
    let fallback = run(only_sw1, true);
    assert!(blind > 4.0 * full.max(10_000.0), "blind {blind} vs full INT {full}");
    assert!(fallback < 0.5 * blind, "brownfield {fallback} vs blind {blind}");

    let mut cfg = common::star(2, 25_000_000_000, US, "poseidon", serde_json::json!({}));
    cfg.switch.int_switches = Some(vec!["tor9".into()]);
    let e = dccsim_engine::run(&cfg).err().unwrap();
    assert_eq!(e.field, "switch.int_switches");
    assert!(e.message.contains("sw0"), "{e}");
}

#[test]
fn a_stop_request_ends_the_run_early_and_says_so() {
    let mut cfg = cross_pod_permutation(3);
    for f in &mut cfg.flows {
        f.size_bytes = None; // long flows: far more than 2 polling periods of events
    }
    let mut calls = 0;
    let (r, complete) = dccsim_engine::run_polled(&cfg, &mut |_| {
        calls += 1;
        calls == 2
    })
    .unwrap();
    assert!(!complete);
    assert_eq!(calls, 2);
    assert!(r.summary.sim_time_ps < cfg.duration_ps, "stopped at {} of {}", r.summary.sim_time_ps, cfg.duration_ps);
    assert_eq!(r.summary.events, 2 * dccsim_engine::sim::POLL_EVENTS as u64);
    common::assert_conserved(&r);
    let (full, complete) = dccsim_engine::run_polled(&cfg, &mut |_| false).unwrap();
    assert!(complete);
    assert_eq!(full, dccsim_engine::run(&cfg).unwrap());
}

#[test]
fn packet_capture_records_chosen_ports_up_to_its_maximum() {
    // 2 senders of 50 KB to h2 on a star: 50 data packets leave each sender's NIC port
    let mut cfg = common::star(2, 25_000_000_000, US, "dctcp", serde_json::json!({}));
    for f in cfg.flows.iter_mut() {
        f.size_bytes = Some(50_000);
    }
    let off = dccsim_engine::run(&cfg).unwrap();
    assert!(off.packets.time_ps.is_empty());
    cfg.metrics.pcap = vec!["h0->sw0".into(), "sw0->h2".into()];
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.summary, Summary { capture_overflow: 0, ..off.summary.clone() }, "capture changes nothing else");
    let n = |port: &str| {
        let id = if port == "h0->sw0" { 0 } else { 5 }; // port 2k = link k a→b; links h0-sw0, h1-sw0, h2-sw0
        r.packets.port.iter().filter(|&&p| p == id).count()
    };
    assert_eq!(n("h0->sw0"), 50, "h0 sends 50 data packets (its ACKs arrive on another port)");
    assert_eq!(n("sw0->h2"), 100, "both flows' data reach h2");
    assert!(r.packets.kind.iter().all(|&k| k == 0));
    assert_eq!(r.packets.ece.len(), r.packets.time_ps.len(), "one ECE echo per row");
    assert!(r.packets.ece.iter().all(|&e| e == 0), "data packets echo nothing");
    assert!(r.packets.time_ps.windows(2).all(|w| w[0] <= w[1]), "in transmission order");
    cfg.metrics.pcap_max = 30;
    let capped = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(capped.packets.time_ps.len(), 30);
    assert_eq!(capped.summary.capture_overflow, 120);
    assert_eq!(capped.packets.time_ps[..], r.packets.time_ps[..30]);
}

#[test]
fn stop_when_done_ends_the_run_at_the_last_completion_with_identical_flow_records() {
    // The cap is far beyond the flows' completion; with the option the run ends at the instant
    // the last finite flow finishes (the last end_ps), and every flow record is the same as in
    // the full run (stopping early cannot change what happened before).
    let mut cfg = cross_pod_permutation(3);
    cfg.metrics.interval_ps = 0;
    let full = dccsim_engine::run(&cfg).unwrap();
    cfg.stop_when_done = true;
    let early = dccsim_engine::run(&cfg).unwrap();
    let last = *full.flows.end_ps.iter().max().unwrap();
    assert!(full.flows.end_ps.iter().all(|&e| e > 0), "every flow finishes within the cap");
    assert_eq!(early.summary.sim_time_ps, last as u64);
    assert!(early.summary.sim_time_ps < full.summary.sim_time_ps);
    assert_eq!(early.flows, full.flows);
    assert_eq!(early.summary.flows_completed, 32);
}

#[test]
fn stop_when_done_ignores_long_lived_flows() {
    // A long-lived flow never finishes, so the run goes on to the cap.
    let mut cfg = common::incast("powertcp", 0, MS / 2);
    cfg.metrics.interval_ps = 0;
    cfg.stop_when_done = true;
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.summary.sim_time_ps, MS / 2);
}

#[test]
fn artifact_ideal_fct_is_pair_rtt_plus_bytes_with_headers_at_the_path_rate() {
    // Hand-computed for the PowerTCP FatTree (25G hosts, 100G fabric, 1/1/5 µs): a same-ToR pair
    // has pair RTT 2·2·1 µs + 2·(1000 B·8/25G) = 4.64 µs; a cross-core pair 2·(1+1+5+5+1+1) µs
    // + 2·320 ns + 4·80 ns = 28.96 µs (artifact-notes.md). 2500 B = 3 packets → (2500 + 3·48)·8
    // / 25G = 846.08 ns.
    let mut cfg = common::incast("powertcp", 0, MS);
    cfg.flows = vec![FlowSpec::new(0, 1, Some(2500), 0), FlowSpec::new(0, 255, Some(2500), 0)];
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.flows.ideal_fct_artifact_ps, vec![4_640_000 + 846_080, 28_960_000 + 846_080]);
}

/// INT-based laws (PowerTCP, HPCC, Poseidon) refuse a fabric without INT, naming the switch
/// field and the algorithm; θ-PowerTCP (delay only) and Swift run without it.
#[test]
fn int_based_algorithms_refuse_to_run_with_int_off() {
    for alg in ["powertcp", "hpcc", "poseidon"] {
        let mut cfg = common::star(2, 25_000_000_000, US, alg, serde_json::json!({}));
        cfg.switch.int_enabled = false;
        let e = dccsim_engine::run(&cfg).err().unwrap_or_else(|| panic!("{alg} ran without INT"));
        assert_eq!(e.field, "switch.int_enabled", "{alg}");
        assert!(e.message.contains(&format!("cc.{alg} reads INT")), "{e}");
        // a per-flow controller is checked too
        let mut cfg = common::star(2, 25_000_000_000, US, "theta-powertcp", serde_json::json!({}));
        cfg.switch.int_enabled = false;
        cfg.flows[1].cc = Some(CcSpec { algorithm: alg.into(), params: serde_json::json!({}) });
        assert_eq!(dccsim_engine::run(&cfg).err().expect("refused").field, "switch.int_enabled");
    }
    for alg in ["theta-powertcp", "swift", "dcqcn", "timely", "dctcp"] {
        let mut cfg = common::star(2, 25_000_000_000, US, alg, serde_json::json!({}));
        cfg.switch.int_enabled = false;
        cfg.duration_ps = 100 * US;
        assert!(dccsim_engine::run(&cfg).is_ok(), "{alg}");
    }
}

/// Swift's target grows with the hop count of the path (T = base + hops·h + …). The count comes
/// from the topology, as a receiver reads it off the TTL, not from INT records: with INT off (and
/// no INT header bytes, so packets are the same size) Swift's results are identical to INT on.
/// (With the hop count taken from INT, INT off meant 0 hops and a 5 µs lower target on the
/// FatTree's 5-switch paths.)
#[test]
fn swift_hop_count_does_not_depend_on_int() {
    let run = |int: bool| {
        let mut cfg = common::incast("swift", 0, MS);
        cfg.flows = (0..4).map(|i| common::long_flow(i, 200 + i, 0)).collect(); // cross-pod: 5 switches
        cfg.switch.int_enabled = int;
        cfg.host.int_header_bytes = 0;
        cfg.metrics.ports = vec!["*".into()];
        dccsim_engine::run(&cfg).unwrap()
    };
    let (on, off) = (run(true), run(false));
    assert!(on.flows.bytes_acked.iter().all(|&b| b > 100_000), "{:?}", on.flows.bytes_acked);
    assert_eq!(on.flows.bytes_acked, off.flows.bytes_acked);
    assert_eq!(on.port_series, off.port_series);
}
