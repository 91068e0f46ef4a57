//! Homa's receiver-driven scheduling on one receiver (PowerTCP §4 baseline).

mod common;
use dccsim_engine::time::{MS, US};

/// Four messages of 200/400/600/800 KB start together towards one receiver. Homa sends RTTbytes
/// of each unscheduled, then the receiver grants by SRPT.
fn run(overcommit: u32) -> dccsim_engine::Results {
    let mut cfg = common::star(4, 25_000_000_000, US, "homa", serde_json::json!({ "overcommit": overcommit }));
    cfg.duration_ps = 2 * MS;
    for (i, f) in cfg.flows.iter_mut().enumerate() {
        f.size_bytes = Some(200_000 * (i as u64 + 1));
    }
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    r
}

#[test]
fn overcommit_one_grants_one_message_at_a_time_in_srpt_order() {
    let r = run(1);
    // RTTbytes, rounded up to whole 1000-B packets (a sender sends a packet if any granted
    // byte remains)
    let rtt_bytes = ((25e9 * dccsim_engine::time::secs(r.summary.base_rtt_ps) / 8.0).round() as u64).div_ceil(1000) * 1000;
    let end = &r.flows.end_ps;
    assert!(end.iter().all(|&e| e > 0), "all complete: {end:?}");
    assert!(end.windows(2).all(|w| w[0] < w[1]), "SRPT completion order: {end:?}");
    // While the smallest message is incomplete, no other message has more than its RTTbytes
    // acknowledged, plus what the receiver granted before it had heard of the smallest one:
    // exactly one scheduled sender. The four first packets reach the switch at one instant and
    // its egress serialises them in the order of the tie, so up to three packets of other
    // messages arrive first, and each makes the receiver grant the shortest message it knows
    // (Homa grants on arrival): at most 3 packets more.
    let fs = &r.flow_series;
    let bound = rtt_bytes + 3 * 1000;
    for i in 0..fs.time_ps.len() {
        if (fs.time_ps[i] as i64) < end[0] && fs.flow_id[i] != 0 {
            assert!(
                fs.bytes_acked[i] <= bound,
                "flow {} at {} ps: {} > RTTbytes {rtt_bytes} + 3 packets",
                fs.flow_id[i],
                fs.time_ps[i],
                fs.bytes_acked[i]
            );
        }
    }
    // The receiver link stays busy: 2 MB of payload (plus headers) at 25 Gb/s is ≈ 698 µs;
    // allow the first RTT and the grant hand-overs (one RTT each) on top.
    let wire = 2_000_000.0 * 1090.0 / 1000.0 * 8.0 / 25e9 * 1e12;
    let last = *end.iter().max().unwrap() as f64;
    assert!(last < wire + 5.0 * r.summary.base_rtt_ps as f64, "last completion {last} vs {wire}");
}

#[test]
fn more_overcommitment_grants_more_messages_at_once() {
    // Strict priorities keep SRPT order either way, but with overcommit 3 the receiver also
    // grants messages 1 and 2 while message 0 runs: their granted packets wait in the switch
    // (at lower scheduled priorities), so the bottleneck queue holds about 2·RTTbytes more.
    let (r1, r3) = (run(1), run(3));
    let rtt_bytes = 25e9 * dccsim_engine::time::secs(r1.summary.base_rtt_ps) / 8.0;
    let busy_queue = |r: &dccsim_engine::Results| {
        let end0 = r.flows.end_ps[0] as u64;
        common::mean_queue(r, end0 / 2, end0)
    };
    let (q1, q3) = (busy_queue(&r1), busy_queue(&r3));
    assert!(q3 > q1 + 1.5 * rtt_bytes, "queue with overcommit 3 {q3} vs 1 {q1} (RTTbytes {rtt_bytes})");
    assert!(r3.flows.end_ps.windows(2).all(|w| w[0] < w[1]), "scheduled priorities still finish SRPT first");
}

/// Overcommitment 1: a message whose grant already covers it (its last RTTbytes are in flight)
/// must not keep the next message waiting for its last byte — the receiver grants the next one
/// then (Homa §3.4), so the hand-over costs no idle round trip at the receiver's link. Four
/// messages of 200–800 KB: 2 MB of payload take 697.6 µs on the 25 Gb/s link; with the grant
/// slot held until completion every one of the three hand-overs left the link idle for about a
/// base RTT.
#[test]
fn a_fully_granted_message_frees_its_grant_slot() {
    let r = run(1);
    let wire = 2_000_000.0 * 1090.0 / 1000.0 * 8.0 / 25e9 * 1e12;
    let rtt = r.summary.base_rtt_ps as f64;
    let last = *r.flows.end_ps.iter().max().unwrap() as f64;
    assert!(last < wire + 2.0 * rtt, "last completion {last} ps: {} base RTTs over the wire time", (last - wire) / rtt);
}

/// One sender, three messages to three receivers (each fully granted by its own receiver): the
/// sender's NIC serves them shortest-remaining-first, so the 100 KB message is done in about its
/// ideal time and the 200 KB one next, instead of all three sharing the NIC round-robin (where
/// the 100 KB message would take about 3× as long).
#[test]
fn a_sender_serves_its_messages_srpt() {
    let mut cfg = common::star(4, 25_000_000_000, US, "homa", serde_json::json!({}));
    cfg.duration_ps = MS;
    cfg.flows = [(1, 300_000), (2, 100_000), (3, 200_000)]
        .iter()
        .map(|&(dst, size)| dccsim_engine::config::FlowSpec {
            src: 0,
            dst,
            size_bytes: Some(size),
            start_ps: 0,
            cc: None,
            follows: None,
            subflows: 1,
            after: vec![],
            closed_loop: None,
        })
        .collect();
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    let (end, ideal) = (&r.flows.end_ps, &r.flows.ideal_fct_ps);
    assert!(end[1] < end[2] && end[2] < end[0], "SRPT order at the sender: {end:?}");
    assert!((end[1] as f64) < 1.3 * ideal[1] as f64, "100 KB message {} ps vs ideal {}", end[1], ideal[1]);
}
