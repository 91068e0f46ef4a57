//! SACK recovery end to end through the transport (sender, receiver, timer), without a fabric:
//! the test carries each data packet to the receiver or drops it, and carries every ACK back.
//! NewReno with a 1000-B MSS; every expected number is worked out by hand in the comments.

use super::*;
use crate::cc::reno::{Reno, RenoParams};
use crate::packet::PktId;
use crate::time::{MS, US};

const M: u64 = 1000;

struct Link {
    core: Core,
    tp: Transport,
    /// Sequence numbers of every data packet sent, in order.
    sent: Vec<u64>,
}

fn link(init_cwnd_mss: f64, sack: bool) -> Link {
    let info = FlowInfo {
        src: 0,
        dst: 1,
        size: 1000 * M,
        start: 0,
        data_header: 48,
        base_rtt: 10 * US,
        switch_hops: 1,
        ideal_fct: 0,
        ideal_fct_artifact: 0,
        follows: None,
        connection: 0,
    };
    let ctx = crate::cc::test_ctx(10e-6, 1048.0);
    let cc = Box::new(Reno::new(RenoParams { init_cwnd_mss, ..RenoParams::default() }, &ctx));
    let mut e = Endpoint::new(info, cc, f64::INFINITY);
    if sack {
        e.use_sack(M);
    }
    let host = HostConfig { rto_ps: 200 * MS, ..HostConfig::default() };
    Link { core: Core::new(1), tp: Transport::new(vec![e], Wire::new(&host, false), 2, vec![]), sent: vec![] }
}

impl Link {
    /// Everything the window allows now.
    fn send(&mut self) -> Vec<PktId> {
        let mut out = vec![];
        while self.tp.flows[0].window_open() {
            let p = self.tp.next_data_packet(&mut self.core, 0);
            self.sent.push(self.core.pool.get(p).seq);
            out.push(p);
        }
        out
    }
    /// Carry `pkt` to the receiver (or drop it), then its ACK back, then send what the ACK allows
    /// (returned).
    fn carry(&mut self, pkt: PktId, drop: bool) -> Vec<PktId> {
        self.core.sched.now += US;
        if drop {
            self.core.pool.free(pkt);
            return vec![];
        }
        let replies = self.tp.receive_data(&mut self.core, 1, pkt);
        for &a in replies.as_slice() {
            self.tp.receive_ack(&mut self.core, a);
            self.core.pool.free(a);
        }
        self.send()
    }
    fn f(&self) -> &Endpoint {
        &self.tp.flows[0]
    }
}

#[test]
fn one_loss_is_repaired_by_one_retransmission_and_one_halving() {
    let mut l = link(10.0, true);
    let first = l.send();
    assert_eq!(first.len(), 10); // cwnd 10 MSS
    let mut next = vec![];
    for (k, &p) in first.iter().enumerate() {
        next.extend(l.carry(p, k == 0)); // segment 0 lost
    }
    // SACKs of 1 and 2 leave pipe at 9 segments: one new segment each (10, 11; RFC 3042). The
    // SACK of 3 makes 0 lost (3 SMSS SACKed above): recovery, RecoveryPoint 12 000, cwnd
    // 10 000 → 5 000 (RFC 5681 eq. 4). pipe = 12 − 3 SACKed − 1 lost = 8 segments, then one less
    // per SACK: at the SACK of 7 it is 4 and the hole goes first (NextSeg rule 1), then new data
    // 12 and 13 at the SACKs of 8 and 9
    assert_eq!(l.f().tx.cwnd, 5.0 * M as f64);
    assert_eq!(&l.sent[10..], &[10 * M, 11 * M, 0, 12 * M, 13 * M]);
    assert_eq!(l.f().stats.retransmits, 1);
    // 10 and 11 arrive, then the retransmission fills the hole: the receiver's ACK jumps over the
    // eleven segments it held, past the recovery point
    for &p in &next[..3] {
        l.carry(p, false);
    }
    assert_eq!(l.f().tx.snd_una, 12 * M);
    let sb = l.f().tx.sack.as_ref().unwrap();
    assert!(!sb.in_recovery);
    assert_eq!(sb.episodes, 1);
    assert_eq!(l.f().stats.retransmits, 1);
    // go-back-N on the same loss resends from 0 what the halved window allows (5 segments)
    let mut g = link(10.0, false);
    let first = g.send();
    for (k, &p) in first.iter().enumerate() {
        g.carry(p, k == 0);
    }
    assert_eq!(g.f().stats.retransmits, 5);
}

#[test]
fn several_losses_in_one_window_one_reduction_each_hole_resent_once() {
    let mut l = link(20.0, true);
    let first = l.send();
    assert_eq!(first.len(), 20);
    let lost = [0, 3, 4];
    let mut next = vec![];
    for (k, &p) in first.iter().enumerate() {
        next.extend(l.carry(p, lost.contains(&k)));
    }
    // the SACK of 5 makes 0 lost (1, 2, 5 SACKed above it), that of 7 makes 3 and 4 lost: one
    // episode, one reduction 20 000 → 10 000, no growth while recovering
    assert_eq!(l.f().tx.cwnd, 10.0 * M as f64);
    let resent: Vec<u64> = l.sent[20..].iter().copied().filter(|&s| s < 20 * M).collect();
    assert_eq!(resent, vec![0, 3 * M, 4 * M]);
    for p in next {
        l.carry(p, false);
    }
    // every hole filled: snd_una past the recovery point (22 000), each hole resent once
    assert!(l.f().tx.snd_una >= 22 * M, "{}", l.f().tx.snd_una);
    assert_eq!(l.f().stats.retransmits, 3);
    assert_eq!(l.f().tx.sack.as_ref().unwrap().episodes, 1);
}

#[test]
fn a_timeout_during_recovery_resends_from_snd_una_and_skips_what_the_receiver_holds() {
    let mut l = link(10.0, true);
    let first = l.send();
    let mut next = vec![];
    for (k, &p) in first.iter().enumerate() {
        next.extend(l.carry(p, k == 0));
    }
    // 10, 11, the retransmission of 0, 12 and 13 are all lost: only the timer is left
    for p in next {
        l.carry(p, true);
    }
    l.core.sched.now = l.f().timers.rto_deadline;
    l.tp.rto(&mut l.core, 0);
    assert_eq!(l.f().stats.timeouts, 1);
    assert!(l.f().tx.sack.as_ref().unwrap().sacked.is_empty()); // RFC 6675 §5.1
    assert_eq!(l.f().tx.cwnd, M as f64); // RFC 5681: loss window of 1 MSS
    let again = l.send();
    assert_eq!(l.sent[l.sent.len() - 1], 0, "resends from snd_una");
    assert_eq!(again.len(), 1);
    // the receiver held 1..9: the ACK jumps to 10 000; next come the lost 10..13, not 1..9 again
    let after = l.carry(again[0], false);
    assert_eq!(l.f().tx.snd_una, 10 * M);
    let seqs: Vec<u64> = after.iter().map(|&p| l.core.pool.get(p).seq).collect();
    assert_eq!(seqs, vec![10 * M, 11 * M]); // slow start from 1 MSS: cwnd 2 MSS
                                            // the first repair of 0, the timeout's resend of 0, then 10 and 11 (sent before, lost)
    assert_eq!(l.f().stats.retransmits, 4);
}

#[test]
fn sack_runs_are_deterministic() {
    let run = || {
        let mut l = link(16.0, true);
        let mut q: std::collections::VecDeque<PktId> = l.send().into();
        let mut n = 0u64;
        while let Some(p) = q.pop_front() {
            n += 1;
            // a fixed pseudo-random loss pattern (every 7th and 11th packet), 2 000 packets
            let drop = n % 7 == 0 || n % 11 == 0;
            if n > 2000 {
                l.core.pool.free(p);
                continue;
            }
            q.extend(l.carry(p, drop));
            if q.is_empty() {
                l.core.sched.now = l.core.sched.now.max(l.f().timers.rto_deadline);
                l.tp.rto(&mut l.core, 0);
                q.extend(l.send());
            }
        }
        let f = &l.tp.flows[0];
        (f.tx.snd_una, f.stats.retransmits, f.stats.timeouts, l.sent)
    };
    let a = run();
    assert_eq!(a, run());
    assert!(a.0 > 500 * M, "the flow moves: {}", a.0);
    assert!(a.1 > 0);
}

/// Which segments each carried packet's ACK let the sender send, for the first window of 10 with
/// segment 0 lost (as in `one_loss_is_repaired_by_one_retransmission_and_one_halving`).
fn sends_per_ack(prr: bool) -> Vec<Vec<u64>> {
    let mut l = link(10.0, true);
    l.tp.flows[0].tx.sack.as_mut().unwrap().uses_prr = prr;
    let first = l.send();
    let mut out = vec![];
    for (k, &p) in first.iter().enumerate() {
        let sent = l.carry(p, k == 0);
        out.push(sent.iter().map(|&q| l.core.pool.get(q).seq / M).collect());
    }
    out
}

#[test]
fn prr_spreads_the_recovery_over_the_acks_where_the_halving_pauses_then_sends() {
    // Recovery starts at the SACK of 3: cwnd 10 → ssthresh 5 MSS, pipe 8.
    // Without PRR the window is 5 at once: nothing is sent until pipe falls below 5 (the SACK of
    // 7), then the hole, then one new segment per ACK.
    let plain: Vec<Vec<u64>> = vec![vec![], vec![10], vec![11], vec![], vec![], vec![], vec![], vec![0], vec![12], vec![13]];
    assert_eq!(sends_per_ack(false), plain);
    // With PRR (RFC 6937; prior_cwnd 10, ssthresh 5): the SACK of 3 delivers 1, ⌈5·1/10⌉ = 1
    // MSS: the hole goes at once; then ⌈5·d/10⌉ − sent: one segment every second ACK (d = 3, 5),
    // until pipe reaches ssthresh at the SACK of 9 (pipe 5: the slow-start bound, min(5 − 5, …)
    // = 0). The same segments, sent earlier and evenly.
    let prr: Vec<Vec<u64>> = vec![vec![], vec![10], vec![11], vec![0], vec![], vec![12], vec![], vec![13], vec![], vec![]];
    assert_eq!(sends_per_ack(true), prr);
}
