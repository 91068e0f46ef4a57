//! The sending side: data packets out, ACKs and NACKs in, the congestion controller in between.

use super::multipath::NO_CONN;
use super::prr::Prr;
use super::{rto_after, Sender, Transport};
use crate::cc::{AckEvent, Siblings};
use crate::core::{Core, FlowId, HostId};
use crate::packet::{Kind, Packet, PktId};
use crate::sim::EvKind;
use crate::telemetry::log_events::Tp;

/// What an arriving ACK did to its flow.
pub enum AckOutcome {
    /// Late ACK of a finished flow: nothing to do.
    Ignored,
    /// The flow goes on; serve the sender's NIC.
    Continue(HostId),
    /// The flow's last byte was acknowledged; take it off the sender's NIC and serve the NIC.
    Finished(HostId),
    /// A multipath connection's last byte was acknowledged: take its subflows (flows
    /// `first..first + n`) off the sender's NIC and serve the NIC.
    FinishedConnection(HostId, FlowId, u32),
}

impl Transport {
    /// Build the next data packet of `fid` (its window and pacing allowed it): sequence state,
    /// retransmission count, pacing, RTO, controller hooks. The caller puts it on the wire.
    /// For a subflow of a multipath connection the connection's scheduler may hand new data to a
    /// sibling instead (multipath.rs).
    pub fn next_data_packet(&mut self, core: &mut Core, fid: FlowId) -> PktId {
        let now = core.sched.now;
        let mss = self.wire.payload; // not a copy of `Wire`: its host section rides along (per packet)
        let (fid, mp_payload, dsn) = if self.flows[fid as usize].conn == NO_CONN { (fid, 0, 0) } else { self.mp_next(now, fid) };
        let f = &mut self.flows[fid as usize];
        let seq = f.tx.snd_nxt;
        let payload = if f.conn == NO_CONN { mss.min(f.info.size - seq) } else { mp_payload };
        let size = payload + f.info.data_header as u64;
        let resend = seq < f.tx.high_sent;
        if resend {
            f.stats.retransmits += 1;
        }
        // nothing outstanding (everything sent was acknowledged): a go-back-N resend after a NACK
        // (snd_nxt pulled back to snd_una) is not idle, and must not restart a running timer
        // (RFC 6298 §5.1), or NACKs arriving faster than the RTO would postpone it forever
        let was_idle = f.tx.snd_una >= f.tx.high_sent;
        f.stats.first_tx.get_or_insert(now);
        f.tx.snd_nxt += payload;
        f.tx.high_sent = f.tx.high_sent.max(f.tx.snd_nxt);
        if let Some(s) = &mut f.tx.sack {
            // SACK: next is the scoreboard's next hole, else new data (NextSeg)
            s.on_sent(seq, payload, resend, f.tx.snd_una, f.tx.high_sent, mss);
            f.tx.sync_sack();
        }
        // the window is the limit if it has no room for another full packet now, counting what a
        // Linux sender would hold in its host queue (host_queue.rs, tcp_is_cwnd_limited)
        let in_flight = f.tx.in_flight() as f64;
        f.tx.cwnd_limited = match &mut f.tx.host_queue {
            Some(h) if !f.tx.rate.is_finite() => {
                let (cwnd, left) = (f.tx.cwnd, f.info.size.saturating_sub(f.tx.snd_nxt) as f64);
                let limited = h.on_sent(cwnd, in_flight, left, mss as f64, f.tx.snd_una, f.tx.snd_nxt);
                // host.linux_window: Linux's tcp_is_cwnd_limited in slow start
                limited || (h.slow_start_limited(cwnd) && f.tx.cc.in_slow_start())
            }
            _ => in_flight + mss as f64 > f.tx.cwnd,
        };
        if f.tx.rate.is_finite() && f.tx.rate > 0.0 {
            f.tx.next_send = now + (size as f64 * 8.0 / f.tx.rate * 1e12) as u64;
        }
        let mut p = Packet::empty();
        p.kind = Kind::Data;
        p.flow = fid;
        p.dst = f.info.dst;
        p.size = size as u32;
        p.payload = payload as u16;
        p.seq = seq;
        p.data_seq = dsn; // the connection-level sequence number of a subflow's segment
        p.sent_at = now;
        p.ect = true;
        p.prio = f.tx.cc.priority(seq);
        f.tx.cc.on_send(now, payload);
        if !f.timers.rto_pending {
            f.timers.rto_pending = true;
            f.timers.rto_deadline = now.saturating_add(rto_after(&self.wire.host, f.timers.rto_backoff));
            core.sched.at(f.timers.rto_deadline, EvKind::Rto, fid, 0);
        } else if was_idle {
            f.timers.rto_deadline = now.saturating_add(rto_after(&self.wire.host, f.timers.rto_backoff));
        }
        let mp = f.conn != NO_CONN;
        let id = core.pool.alloc(p);
        core.stats.packets_sent += 1;
        core.stats.data_packets_sent += 1;
        crate::log_event!(core, transport(now, fid, self.flows[fid as usize].info.src, Tp::sent(resend, seq, payload)));
        self.sync_cc_timer(core, fid);
        if mp {
            self.mp_after_send(fid);
        }
        id
    }

    /// Sender: cumulative ACK bookkeeping, then the congestion controller. The caller frees the
    /// packet.
    pub fn receive_ack(&mut self, core: &mut Core, pkt: PktId) -> AckOutcome {
        let now = core.sched.now;
        let p = *core.pool.get(pkt);
        let fid = p.flow;
        let rto = self.wire.host.rto_ps;
        let smss = self.wire.payload;
        let f = &mut self.flows[fid as usize];
        if f.stats.done {
            return AckOutcome::Ignored;
        }
        let mut newly = 0;
        if p.seq > f.tx.snd_una {
            newly = p.seq - f.tx.snd_una;
            f.tx.snd_una = p.seq;
            f.timers.rto_backoff = 0; // new data acknowledged: a valid RTT sample ends the backoff
            f.timers.rto_deadline = now.saturating_add(rto);
            if f.tx.snd_nxt < f.tx.snd_una {
                f.tx.snd_nxt = f.tx.snd_una;
            }
            core.stats.bytes_delivered += newly;
        }
        let mut acked_seq = p.data_seq;
        if f.homa.is_some() {
            if let Some(r) = f.tx.cc.receiver_driven() {
                r.on_grant(p.grant_offset, p.grant_prio);
            }
            acked_seq = p.seq;
        }
        if let Some(h) = &mut f.tx.host_queue {
            if p.kind != Kind::Nack {
                h.sample(crate::time::secs(now - p.sent_at));
            }
        }
        // SACK (sack.rs): the ACK's block updates the scoreboard; a loss starts fast recovery
        let (mut sack_loss, mut recovering, mut snd_nxt) = (false, false, f.tx.snd_nxt);
        if let Some(s) = &mut f.tx.sack {
            sack_loss = s.on_ack(f.tx.snd_una, f.tx.high_sent, p.data_seq, p.payload as u64, smss);
            // the controller sees Linux's snd_nxt (the highest sent), and no growth in fast
            // recovery: Linux calls no cong_avoid in CA_Recovery (tcp_cong_control)
            (recovering, snd_nxt) = (s.fast_recovery(), f.tx.high_sent);
            f.tx.sync_sack();
        }
        if p.kind == Kind::Nack {
            // go back N, as RDMA NICs do
            f.tx.snd_nxt = f.tx.snd_una;
            f.tx.cc.on_nack(now);
        } else {
            let ev = AckEvent {
                now,
                acked_bytes: newly,
                seq: f.tx.seq_base + acked_seq,
                snd_una: f.tx.seq_base + f.tx.snd_una,
                snd_nxt: f.tx.seq_base + snd_nxt,
                rtt: now - p.sent_at,
                ecn: p.ce,
                int: &core.pool.int(pkt)[..p.n_hops as usize],
                max_hop_delay: p.max_hop_delay,
                hops: f.info.switch_hops,
                cwnd_limited: f.tx.cwnd_limited && !recovering,
            };
            if f.conn == NO_CONN {
                f.tx.cc.on_ack(&ev);
            } else {
                let siblings = Siblings { me: f.subflow as usize, all: &self.conns[f.conn as usize].views };
                match f.tx.cc.coupled() {
                    Some(c) => c.on_subflow_ack(&ev, &siblings),
                    None => f.tx.cc.on_ack(&ev), // an uncoupled law on a subflow
                }
            }
            if sack_loss {
                f.tx.cc.on_nack(now); // the one window reduction of the recovery episode
            }
        }
        let before = f.tx.cwnd; // the window this ACK found (PRR starts from it)
        f.tx.refresh();
        if f.tx.sack.is_some() {
            prr_after_ack(&mut f.tx, before, sack_loss, newly > 0, smss);
        }
        let src = f.info.src;
        crate::log_event!(core, transport(now, fid, src, Tp::ack(p.kind, p.seq, newly, now - p.sent_at, p.ce)));
        if f.conn != NO_CONN {
            return self.mp_ack_done(core, fid, p.kind == Kind::Nack, now - p.sent_at);
        }
        if f.tx.snd_una >= f.info.size {
            f.stats.done = true;
            f.stats.end = now;
            core.stats.flows_completed += 1;
            AckOutcome::Finished(src)
        } else {
            self.sync_cc_timer(core, fid);
            AckOutcome::Continue(src)
        }
    }
}

impl Transport {
    /// The rest of a subflow's ACK: the segment map, what siblings see, AMP's suppression
    /// decision on the initial subflow, and the connection's completion.
    fn mp_ack_done(&mut self, core: &mut Core, fid: FlowId, nack: bool, rtt: crate::time::Time) -> AckOutcome {
        self.mp_acked(fid);
        self.mp_view(fid, (!nack).then_some(rtt));
        let f = &mut self.flows[fid as usize];
        let src = f.info.src;
        if f.subflow == 0 {
            if let Some(s) = f.tx.cc.coupled().and_then(|c| c.suppress_siblings()) {
                self.mp_suppress(fid, s);
            }
        }
        if self.mp_complete(fid) {
            self.mp_finish(core, fid);
            let c = &self.conns[self.flows[fid as usize].conn as usize];
            return AckOutcome::FinishedConnection(src, c.first, c.n);
        }
        self.sync_cc_timer(core, fid);
        AckOutcome::Continue(src)
    }
}

/// PRR (prr.rs) after an ACK of a SACK flow, once the controller's window was read back: for a
/// law Linux reduces that way, a fast recovery starts from the window the ACK found (`before`)
/// and each ACK of it then sets the sender's window. Only ACKs change it: the laws with PRR have
/// no timers of their own, and a timeout ends the recovery. Kept out of line (and out of
/// `Sender::refresh`): the go-back-N path of `receive_ack` never reaches it.
#[inline(never)]
fn prr_after_ack(tx: &mut Sender, before: f64, entered: bool, advanced: bool, smss: u64) {
    let Some(s) = &mut tx.sack else { return };
    if entered && s.uses_prr && s.fast_recovery() {
        s.prr = Some(Prr::new(before, tx.cwnd));
    }
    if !s.fast_recovery() {
        s.prr = None;
    }
    if let Some(p) = &mut s.prr {
        tx.cwnd = p.on_ack(s.delivered, s.pipe, advanced, s.newly_lost, smss).min(tx.window_cap);
    }
}
