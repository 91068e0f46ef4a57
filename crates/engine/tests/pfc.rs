//! PFC: a lossless fabric never drops, pauses propagate hop by hop back to the senders' NICs,
//! and a cyclic buffer dependency is reported as a deadlock instead of a silent stall.

mod common;

use dccsim_engine::config::*;
use dccsim_engine::time::{MS, US};
use dccsim_engine::Results;

/// The 10:1 incast into a small buffer that loses packets without PFC
/// (`drops_are_recovered_by_go_back_n_and_timeouts` in tests/engine.rs uses the same setting).
fn small_buffer_incast(pfc: Option<PfcModel>) -> Config {
    let mut cfg = common::star(10, 25_000_000_000, US, "dcqcn", serde_json::json!({}));
    cfg.switch.buffer_bytes = 200_000;
    cfg.switch.dt_alpha = 1.0;
    cfg.switch.pfc = pfc.map(|model| PfcConfig { model, ..PfcConfig::default() });
    cfg.duration_ps = 10 * MS;
    for f in cfg.flows.iter_mut() {
        f.size_bytes = Some(300_000);
    }
    cfg
}

fn pfc_row(r: &Results, port: &str) -> Option<(u64, u64, u64)> {
    let i = r.pfc.name.iter().position(|n| n == port)?;
    Some((r.pfc.pauses_sent[i], r.pfc.resumes_sent[i], r.pfc.paused_ps[i]))
}

#[test]
fn an_incast_that_drops_without_pfc_is_lossless_with_it() {
    let lossy = dccsim_engine::run(&small_buffer_incast(None)).unwrap();
    assert!(lossy.summary.packets_dropped > 0, "the scenario must overflow the buffer without PFC");
    assert_eq!(lossy.summary.pfc_pause_frames, 0);
    for model in [PfcModel::Sonic, PfcModel::Hpcc] {
        lossless_incast(model);
    }
}

fn lossless_incast(model: PfcModel) {
    let r = dccsim_engine::run(&small_buffer_incast(Some(model))).unwrap();
    common::assert_conserved(&r);
    assert_eq!(r.summary.packets_dropped, 0, "PFC must never drop");
    assert_eq!(r.summary.flows_completed, 10, "{:?}", r.flows.end_ps);
    assert_eq!(r.flows.retransmits.iter().sum::<u64>(), 0, "nothing lost, nothing resent");
    // the switch paused the senders: frames go out of the switch ports facing them, and the
    // senders' NIC ports spent time paused; every PAUSE was eventually followed by a RESUME
    assert!(r.summary.pfc_pause_frames > 0);
    assert_eq!(r.summary.pfc_pause_frames, r.summary.pfc_resume_frames);
    let (pauses, resumes, _) = pfc_row(&r, "sw0->h0").expect("sw0 paused h0");
    assert!(pauses > 0 && pauses == resumes);
    let (_, _, paused_ps) = pfc_row(&r, "h0->sw0").expect("h0's NIC was paused");
    assert!(paused_ps > 0);
    // the receiver's port was never paused (its ingress at the switch carries only ACKs)
    assert!(pfc_row(&r, "sw0->h10").is_none_or(|(p, _, _)| p == 0));
}

#[test]
fn pauses_propagate_hop_by_hop_to_the_senders() {
    // Senders h0..h7 on s0, receiver h8 on s1; s0–s1 at 100G, hosts at 25G: the congested port
    // is s1->h8 (8×25G into 25G). s1 pauses s0 (port s1->s0 sends frames), whose ingresses from
    // the hosts then fill and s0 pauses the hosts.
    let mut links: Vec<LinkSpec> =
        (0..8).map(|i| LinkSpec { a: format!("h{i}"), b: "s0".into(), rate_bps: 25_000_000_000, delay_ps: US }).collect();
    links.push(LinkSpec { a: "s0".into(), b: "s1".into(), rate_bps: 100_000_000_000, delay_ps: US });
    links.push(LinkSpec { a: "h8".into(), b: "s1".into(), rate_bps: 25_000_000_000, delay_ps: US });
    let mut cfg = common::star(8, 25_000_000_000, US, "dcqcn", serde_json::json!({}));
    cfg.topology = Topology::Custom { hosts: 9, switches: 2, links };
    cfg.switch.buffer_bytes = 300_000;
    cfg.switch.pfc = Some(PfcConfig::default());
    cfg.metrics.ports = vec![];
    cfg.duration_ps = 5 * MS;
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    assert_eq!(r.summary.packets_dropped, 0);
    let (s1_pauses, _, _) = pfc_row(&r, "s1->s0").expect("s1 paused s0");
    assert!(s1_pauses > 0);
    assert!(pfc_row(&r, "s0->s1").expect("s0's port to s1 was paused").2 > 0);
    let host_pauses: u64 = (0..8).filter_map(|i| pfc_row(&r, &format!("s0->h{i}"))).map(|x| x.0).sum();
    assert!(host_pauses > 0, "the pause reached the senders");
}

/// Five switches in a ring, one host each; every host sends to the host two switches clockwise
/// (the only shortest path), so every ring link carries two flows at line rate and each switch's
/// ingress from its counter-clockwise neighbour waits on its clockwise port: a cyclic buffer
/// dependency.
fn ring(watchdog_ps: u64) -> Config {
    let n = 5;
    let mut links: Vec<LinkSpec> =
        (0..n).map(|i| LinkSpec { a: format!("h{i}"), b: format!("s{i}"), rate_bps: 25_000_000_000, delay_ps: US }).collect();
    links.extend((0..n).map(|i| LinkSpec { a: format!("s{i}"), b: format!("s{}", (i + 1) % n), rate_bps: 25_000_000_000, delay_ps: US }));
    let flows = (0..n).map(|i| common::long_flow(i, (i + 2) % n, 0)).collect();
    dcqcn_under_pfc(Topology::Custom { hosts: n, switches: n, links }, flows, 200_000, PfcConfig { watchdog_ps, ..PfcConfig::default() })
}

/// DCQCN (never slowed: no ECN marking here) long flows on a custom topology under PFC, 20 ms, no
/// port sampling: the setting of the deadlock and headroom tests.
fn dcqcn_under_pfc(topology: Topology, flows: Vec<FlowSpec>, buffer_bytes: u64, pfc: PfcConfig) -> Config {
    let mut cfg = common::star(1, 25_000_000_000, US, "dcqcn", serde_json::json!({}));
    cfg.topology = topology;
    cfg.flows = flows;
    cfg.switch.buffer_bytes = buffer_bytes;
    cfg.switch.pfc = Some(pfc);
    cfg.metrics.ports = vec![];
    cfg.duration_ps = 20 * MS;
    cfg
}

#[test]
fn a_cyclic_buffer_dependency_is_reported_as_a_deadlock_with_its_ports() {
    let r = dccsim_engine::run(&ring(MS)).unwrap();
    assert_eq!(r.summary.packets_dropped, 0);
    assert!(r.summary.pfc_deadlock_at_ps > 0, "the watchdog must find the deadlock");
    assert!(r.summary.sim_time_ps < 20 * MS, "the run stops at the deadlock");
    // the cycle is the five clockwise ring ports, in wait order
    let mut cycle = r.pfc_deadlock.clone();
    assert_eq!(cycle.len(), 5, "{cycle:?}");
    cycle.sort();
    assert_eq!(cycle, vec!["s0->s1", "s1->s2", "s2->s3", "s3->s4", "s4->s0"]);
    // without the watchdog the run goes on to its end and reports nothing: that is the silent
    // stall the watchdog exists to catch (no data moves after the deadlock)
    let silent = dccsim_engine::run(&ring(0)).unwrap();
    assert_eq!(silent.summary.pfc_deadlock_at_ps, 0);
    assert!(silent.pfc_deadlock.is_empty());
    assert_eq!(silent.summary.sim_time_ps, 20 * MS);
    let acked_at = |res: &Results| res.flows.bytes_acked.iter().sum::<u64>();
    let halfway = dccsim_engine::run(&Config { duration_ps: 10 * MS, ..ring(0) }).unwrap();
    assert_eq!(acked_at(&halfway), acked_at(&silent), "nothing is delivered after the deadlock");
}

#[test]
fn a_fattree_incast_under_pfc_loses_nothing_and_is_not_a_deadlock() {
    // The 10:1 incast of PowerTCP Fig. 4 (FatTree, up-down routing: no cyclic dependency).
    let mut cfg = common::incast("dcqcn", 100 * US, 2 * MS);
    cfg.switch.buffer_bytes = 400_000;
    cfg.switch.pfc = Some(PfcConfig { watchdog_ps: 100 * US, ..PfcConfig::default() });
    let r = dccsim_engine::run(&cfg).unwrap();
    assert_eq!(r.summary.packets_dropped, 0);
    assert!(r.summary.pfc_pause_frames > 0);
    assert_eq!(r.summary.pfc_deadlock_at_ps, 0, "{:?}", r.pfc_deadlock);
    assert_eq!(r.summary.sim_time_ps, 2 * MS);
}

/// h0 sends at line rate (DCQCN, no ECN: it never slows down) to h2 behind a 1 Gb/s link, so the
/// switch's ingress from h0 fills and pauses h0 again and again without draining; h1 sends to h0
/// at line rate, so the switch's port to h0 is mostly busy with a full packet when a PAUSE is
/// decided (the frame waits behind it) and h0 sends an ACK stream besides its data. Host links of
/// 504 ns: 2 × rate × delay + 2 packets + frame = 3150 + 2180 + 64 = 5394 B exceeds the
/// artifact's 3 × rate × delay (4725 B), so that was the headroom, and the packet that triggered
/// the PAUSE plus the four that can still arrive (5 × 1090 = 5450 B) did not fit: the run dropped
/// packets. The headroom also counts the triggering packet and a RESUME queued before the PAUSE:
/// 3150 + 3 × 1090 + 2 × 64 = 6548 B.
fn paused_sender_that_also_receives(model: PfcModel) -> Config {
    let d = 504_000;
    let host = |i: u32, rate_bps: u64| LinkSpec { a: format!("h{i}"), b: "s0".into(), rate_bps, delay_ps: d };
    dcqcn_under_pfc(
        Topology::Custom { hosts: 3, switches: 1, links: vec![host(0, 25_000_000_000), host(1, 25_000_000_000), host(2, 1_000_000_000)] },
        vec![common::long_flow(0, 2, 0), common::long_flow(1, 0, 0)],
        100_000,
        PfcConfig { model, ..PfcConfig::default() },
    )
}

#[test]
fn the_headroom_holds_the_packet_that_paused_and_all_that_follows_it() {
    for model in [PfcModel::Sonic, PfcModel::Hpcc] {
        let r = dccsim_engine::run(&paused_sender_that_also_receives(model)).unwrap();
        common::assert_conserved(&r);
        assert!(r.summary.pfc_pause_frames > 50, "{model:?}: h0 must be paused often ({})", r.summary.pfc_pause_frames);
        assert_eq!(r.summary.packets_dropped, 0, "{model:?}: PFC must never drop");
        assert_eq!(r.flows.retransmits.iter().sum::<u64>(), 0, "{model:?}: nothing lost, nothing resent");
    }
    // the artifact's 3 × rate × delay (4725 B here, below even the old floor) is an option; it
    // drops, as the artifact's switch would, and the transport recovers what it lost
    let mut cfg = paused_sender_that_also_receives(PfcModel::Sonic);
    cfg.switch.pfc.as_mut().unwrap().headroom_artifact = true;
    let r = dccsim_engine::run(&cfg).unwrap();
    common::assert_conserved(&r);
    assert!(r.summary.packets_dropped > 0, "the artifact's headroom must overflow here");
    assert!(r.flows.retransmits.iter().sum::<u64>() > 0);
}
