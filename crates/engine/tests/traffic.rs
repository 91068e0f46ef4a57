//! Flows that start when others complete: `after` (closed-loop jobs, across multipath
//! connections) and closed-loop Pareto sources (`closed_loop`, AMP §5.3's background flows).

mod common;

use common::*;
use dccsim_engine::config::*;
use dccsim_engine::config::{ClosedLoop, NextDestination, StepEcn};
use dccsim_engine::time::{MS, US};

const G: u64 = 1_000_000_000;

fn finite(src: u32, dst: u32, size: u64, after: Vec<u32>, subflows: u32) -> FlowSpec {
    FlowSpec { size_bytes: Some(size), after, subflows, ..long_flow(src, dst, 0) }
}

fn source(src: u32, dst: u32, mean: u64, destination: NextDestination) -> FlowSpec {
    FlowSpec { closed_loop: Some(ClosedLoop { shape: 1.5, mean_bytes: mean, destination, max_bytes: None }), ..long_flow(src, dst, 0) }
}

/// 8 hosts on one 10 Gbps star, DCTCP.
fn star8(flows: Vec<FlowSpec>, duration: u64) -> Config {
    let mut cfg = star(7, 10 * G, US, "dctcp", serde_json::json!({}));
    cfg.switch.ecn = Ecn::Step(StepEcn { k_bytes: 20 * 1048 });
    cfg.duration_ps = duration;
    cfg.flows = flows;
    cfg.metrics.flows = false;
    cfg
}

#[test]
fn a_job_starts_after_all_of_its_responses_even_across_multipath_connections() {
    // a 2 KB request h0→h1, then two 64 KB responses after it (one of 4 subflows), then the next
    // request after both responses
    let flows = vec![
        finite(0, 1, 2_000, vec![], 1),
        finite(1, 0, 64_000, vec![0], 4),
        finite(2, 0, 64_000, vec![0], 1),
        finite(0, 1, 2_000, vec![1, 2], 1),
    ];
    let r = dccsim_engine::run(&star8(flows, 5 * MS)).unwrap();
    let f = &r.flows;
    assert_eq!(f.connection, vec![0, 1, 1, 1, 1, 2, 3]);
    let end = |c: u32| f.end_ps[f.connection.iter().position(|&x| x == c).unwrap()];
    let start = |c: u32| f.start_ps[f.connection.iter().position(|&x| x == c).unwrap()];
    assert!(f.end_ps.iter().all(|&e| e > 0), "every flow completes: {:?}", f.end_ps);
    assert_eq!(start(1), end(0), "the multipath response starts when the request completed");
    assert_eq!(start(2), end(0));
    assert!(f.start_ps[1..5].iter().all(|&s| s == start(1)), "every subflow starts with its connection");
    assert_eq!(start(3), end(1).max(end(2)), "the next request waits for the later response");
    assert!(end(1) != end(2), "the two responses end apart, so the max is a real choice");
}

#[test]
fn a_flow_waiting_at_the_end_reports_no_start() {
    let flows = vec![finite(0, 1, 50_000_000, vec![], 1), finite(2, 1, 1_000, vec![0], 1)];
    let r = dccsim_engine::run(&star8(flows, MS)).unwrap();
    assert_eq!(r.flows.start_ps, vec![0, -1]);
    assert_eq!(r.flows.end_ps, vec![-1, -1]);
}

#[test]
fn closed_loop_sources_restart_on_completion_with_pareto_sizes() {
    // mean 300 KB (x_m = 100 KB): at ≤ 10 Gbps a flow takes ≥ 80 µs, so 20 ms allow many restarts
    let flows = vec![source(0, 7, 300_000, NextDestination::Random), source(1, 6, 300_000, NextDestination::Same)];
    let cfg = star8(flows, 20 * MS);
    let r = dccsim_engine::run(&cfg).unwrap();
    let f = &r.flows;
    for src in [0u32, 1] {
        let mine: Vec<usize> = (0..f.flow_id.len()).filter(|&i| f.src[i] == src).collect();
        let done: Vec<usize> = mine.iter().copied().filter(|&i| f.end_ps[i] >= 0).collect();
        assert!(done.len() >= 10, "h{src}: {} completed flows", done.len());
        // the chain: each flow starts the instant its predecessor completed
        for w in mine.windows(2) {
            if f.end_ps[w[0]] >= 0 {
                assert_eq!(f.start_ps[w[1]], f.end_ps[w[0]], "h{src}: flow {} starts at {}'s end", w[1], w[0]);
            }
        }
        // the chain is long enough: its last flow never completes
        assert_eq!(f.end_ps[*mine.last().unwrap()], -1);
        assert!(mine.iter().all(|&i| f.size_bytes[i] >= 100_000), "Pareto sizes are ≥ x_m");
    }
    let dsts = |src: u32| -> Vec<u32> { (0..f.flow_id.len()).filter(|&i| f.src[i] == src).map(|i| f.dst[i]).collect() };
    assert!(dsts(1).iter().all(|&d| d == 6), "destination = same");
    let d0 = dsts(0);
    assert!(d0.iter().all(|&d| d != 0) && d0.iter().any(|&d| d != 7), "destination = random: {d0:?}");
    // determinism: the same seed gives the same run; another seed other sizes
    assert_eq!(dccsim_engine::run(&cfg).unwrap().flows, r.flows);
    let other = dccsim_engine::run(&Config { seed: 2, ..cfg.clone() }).unwrap();
    assert_ne!(other.flows.size_bytes, r.flows.size_bytes);
}

#[test]
fn closed_loop_multipath_sources_chain_connections() {
    let mut s = source(0, 7, 300_000, NextDestination::Random);
    s.subflows = 4;
    let r = dccsim_engine::run(&star8(vec![s], 5 * MS)).unwrap();
    let f = &r.flows;
    let conns: std::collections::BTreeSet<u32> = f.connection.iter().copied().collect();
    assert!(conns.len() >= 3, "connections {conns:?}");
    assert!(conns.iter().all(|&c| f.connection.iter().filter(|&&x| x == c).count() == 4), "4 subflows each");
}

#[test]
fn bad_after_and_closed_loop_are_one_line_errors() {
    let e = |flows: Vec<FlowSpec>| dccsim_engine::run(&star8(flows, MS)).err().unwrap().to_string();
    assert!(e(vec![finite(0, 1, 1000, vec![1], 1), finite(0, 1, 1000, vec![], 1)]).contains("flows[0].after[0]"));
    assert!(e(vec![long_flow(0, 1, 0), finite(0, 1, 1000, vec![0], 1)]).contains("never completes"));
    let mut bad = source(0, 1, 1000, NextDestination::Same);
    bad.closed_loop.as_mut().unwrap().shape = 1.0;
    assert!(e(vec![bad]).contains("flows[0].closed_loop.shape"));
    let mut sized = source(0, 1, 1000, NextDestination::Same);
    sized.size_bytes = Some(5);
    assert!(e(vec![sized]).contains("flows[0].closed_loop"));
    assert!(
        e(vec![source(0, 1, 1000, NextDestination::OtherRack)]).contains("flows[0].closed_loop.destination: other-rack needs a fattree")
    );
    let mut low = source(0, 1, 3000, NextDestination::Same);
    low.closed_loop.as_mut().unwrap().max_bytes = Some(999); // x_m = 1000
    assert!(e(vec![low]).contains("flows[0].closed_loop.max"));
    let mut cfg = star8(vec![source(0, 1, 1000, NextDestination::Same)], MS);
    cfg.stop_when_done = true;
    assert!(dccsim_engine::run(&cfg).err().unwrap().to_string().contains("stop_when_done"));
}
