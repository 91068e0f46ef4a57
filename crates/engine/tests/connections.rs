//! Connections (`FlowSpec::follows`): a message waits for the previous one of its connection and
//! continues that message's congestion controller.

mod common;
use dccsim_engine::config::*;
use dccsim_engine::time::{MS, US};

fn msg(src: u32, dst: u32, size: u64, start_ps: u64, follows: Option<u32>) -> FlowSpec {
    FlowSpec { follows, ..FlowSpec::new(src, dst, Some(size), start_ps) }
}

/// Two hosts on a 25 Gb/s star, 1 µs links; `flows` replace the star's long flows.
fn pair(algorithm: &str, params: serde_json::Value, flows: Vec<FlowSpec>) -> Config {
    let mut cfg = common::star(3, 25_000_000_000, US, algorithm, params);
    cfg.flows = flows;
    cfg.duration_ps = 5 * MS;
    cfg
}

#[test]
fn a_following_message_starts_when_the_previous_one_finishes() {
    // both arrive at 0; the second waits, so it cannot finish before the first's end plus its own
    // ideal FCT, while without `follows` the two share the NIC and finish together
    let size = 200_000;
    let r = dccsim_engine::run(&pair("dctcp", serde_json::json!({}), vec![msg(0, 3, size, 0, None), msg(0, 3, size, 0, Some(0))])).unwrap();
    common::assert_conserved(&r);
    let f = &r.flows;
    assert!(f.end_ps[0] > 0 && f.end_ps[1] > 0);
    assert_eq!(f.start_ps[1], 0, "the flows table keeps the message's arrival as its start");
    assert!(
        f.end_ps[1] >= f.end_ps[0] + f.ideal_fct_ps[1],
        "second ended {} first {} ideal {}",
        f.end_ps[1],
        f.end_ps[0],
        f.ideal_fct_ps[1]
    );
    let apart =
        dccsim_engine::run(&pair("dctcp", serde_json::json!({}), vec![msg(0, 3, size, 0, None), msg(0, 3, size, 0, None)])).unwrap();
    assert!(apart.flows.end_ps[1] < f.end_ps[0] + f.ideal_fct_ps[1], "without follows the flows overlap");
}

#[test]
fn a_following_message_continues_the_previous_ones_window() {
    // Poseidon starting at one packet ramps up during a 2 MB message; a 200 KB message that
    // follows it later starts from that window and finishes sooner than a fresh one would
    let p = serde_json::json!({ "init_cwnd": 1.0 });
    let flows = |follows| vec![msg(0, 3, 2_000_000, 0, None), msg(0, 3, 200_000, MS, follows)];
    let carried = dccsim_engine::run(&pair("poseidon", p.clone(), flows(Some(0)))).unwrap();
    let fresh = dccsim_engine::run(&pair("poseidon", p, flows(None))).unwrap();
    for r in [&carried, &fresh] {
        common::assert_conserved(r);
        assert!(r.flows.end_ps[0] > 0 && r.flows.end_ps[0] < MS as i64, "the first message is done before the second arrives");
    }
    let fct = |r: &dccsim_engine::Results| r.flows.end_ps[1] - r.flows.start_ps[1];
    let ideal = carried.flows.ideal_fct_ps[1];
    // a fresh window of one packet needs several RTTs (≈ 6 µs each) more than the ideal
    assert!(fct(&fresh) > ideal + 10 * US as i64, "fresh {} ideal {ideal}", fct(&fresh));
    assert!(fct(&carried) < fct(&fresh) - 5 * US as i64, "carried {} fresh {}", fct(&carried), fct(&fresh));
}

#[test]
fn follows_must_name_an_earlier_finite_flow_of_the_same_sender() {
    let bad = |flows: Vec<FlowSpec>| dccsim_engine::run(&pair("dctcp", serde_json::json!({}), flows)).err().expect("must be rejected");
    let e = bad(vec![msg(0, 3, 1000, 0, Some(1)), msg(0, 3, 1000, 0, None)]);
    assert_eq!(e.field, "flows[0].follows");
    let e = bad(vec![msg(0, 3, 1000, 0, None), msg(1, 3, 1000, 0, Some(0))]);
    assert_eq!(e.field, "flows[1].follows");
    assert!(e.message.contains("one sender"), "{}", e.message);
    let e = bad(vec![msg(0, 3, 1000, 10, None), msg(0, 3, 1000, 0, Some(0))]);
    assert_eq!(e.field, "flows[1].follows");
    let e = bad(vec![msg(0, 3, 1000, 0, None), msg(0, 3, 1000, 0, Some(0)), msg(0, 3, 1000, 0, Some(0))]);
    assert_eq!(e.field, "flows[2].follows");
    assert!(e.message.contains("chain"), "{}", e.message);
    let mut long = msg(0, 3, 1000, 0, None);
    long.size_bytes = None;
    let e = bad(vec![long, msg(0, 3, 1000, 0, Some(0))]);
    assert_eq!(e.field, "flows[1].follows");
}

#[test]
fn a_connections_messages_to_one_destination_keep_one_ecmp_path() {
    // 8 messages h0 -> h200 (another pod): chained, every packet leaves tor0 on one uplink;
    // as 8 separate flows ECMP spreads them over both uplinks (for this seed)
    let run = |chained: bool| {
        let mut cfg = common::incast("dctcp", 0, 2 * MS);
        cfg.flows = (0..8).map(|i| msg(0, 200, 20_000, i as u64 * 20 * US, (chained && i > 0).then(|| i - 1))).collect();
        cfg.metrics.pcap = vec!["tor0->agg0".into(), "tor0->agg1".into()];
        cfg.metrics.pcap_max = 100_000;
        let r = dccsim_engine::run(&cfg).unwrap();
        assert!(r.flows.end_ps.iter().all(|&e| e > 0));
        let mut used: Vec<u32> = r.packets.port.clone();
        used.sort_unstable();
        used.dedup();
        used.len()
    };
    assert_eq!(run(true), 1);
    assert_eq!(run(false), 2);
}

#[test]
fn connections_and_multipath_flows_do_not_mix_in_one_run() {
    // `follows` names flows by index; multipath gives each subflow its own endpoint (refused)
    let mut mp = msg(1, 3, 100_000, 0, None);
    mp.subflows = 2;
    let cfg = pair("dctcp", serde_json::json!({}), vec![msg(0, 3, 100_000, 0, None), msg(0, 3, 100_000, 0, Some(0)), mp]);
    let e = dccsim_engine::run(&cfg).err().expect("refused");
    assert_eq!(e.field, "flows[1].follows", "{e:?}");
}
