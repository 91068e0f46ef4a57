//! The sending side: data packets out, ACKs and NACKs in, the congestion controller in between.

use super::Transport;
use crate::cc::AckEvent;
use crate::core::{Core, FlowId, HostId};
use crate::packet::{Kind, Packet, PktId};
use crate::sched::EvKind;

/// What an arriving ACK did to its flow.
pub enum AckOutcome {
    /// Late ACK of a finished flow: nothing to do.
    Ignored,
    /// The flow goes on; serve the sender's NIC.
    Continue(HostId),
    /// The flow's last byte was acknowledged; take it off the sender's NIC and serve the NIC.
    Finished(HostId),
}

impl Transport {
    /// Build the next data packet of `fid` (its window and pacing allowed it): sequence state,
    /// retransmission count, pacing, RTO, controller hooks. The caller puts it on the wire.
    pub fn next_data_packet(&mut self, core: &mut Core, fid: FlowId) -> PktId {
        let now = core.sched.now;
        let w = self.wire;
        let f = &mut self.flows[fid as usize];
        let seq = f.tx.snd_nxt;
        let payload = w.payload.min(f.info.size - seq);
        let size = payload + w.data_header;
        if seq < f.tx.high_sent {
            f.stats.retransmits += 1;
        }
        let was_idle = f.tx.snd_nxt == f.tx.snd_una;
        f.tx.snd_nxt += payload;
        // the window is the limit if it has no room for another full packet now
        f.tx.cwnd_limited = (f.tx.snd_nxt - f.tx.snd_una + w.payload) as f64 > f.tx.cwnd;
        f.tx.high_sent = f.tx.high_sent.max(f.tx.snd_nxt);
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
        p.sent_at = now;
        p.ect = true;
        p.prio = f.tx.cc.priority(seq);
        f.tx.cc.on_send(now, payload);
        if !f.timers.rto_pending {
            f.timers.rto_pending = true;
            f.timers.rto_deadline = now + w.rto;
            core.sched.at(f.timers.rto_deadline, EvKind::Rto, fid, 0);
        } else if was_idle {
            f.timers.rto_deadline = now + w.rto;
        }
        let id = core.pool.alloc(p);
        core.stats.packets_sent += 1;
        core.stats.data_packets_sent += 1;
        self.sync_cc_timer(core, fid);
        id
    }

    /// Sender: cumulative ACK bookkeeping, then the congestion controller. The caller frees the
    /// packet.
    pub fn receive_ack(&mut self, core: &mut Core, pkt: PktId) -> AckOutcome {
        let now = core.sched.now;
        let p = *core.pool.get(pkt);
        let fid = p.flow;
        let rto = self.wire.rto;
        let f = &mut self.flows[fid as usize];
        if f.stats.done {
            return AckOutcome::Ignored;
        }
        let mut newly = 0;
        if p.seq > f.tx.snd_una {
            newly = p.seq - f.tx.snd_una;
            f.tx.snd_una = p.seq;
            f.timers.rto_deadline = now + rto;
            if f.tx.snd_nxt < f.tx.snd_una {
                f.tx.snd_nxt = f.tx.snd_una;
            }
            core.stats.bytes_delivered += newly;
        }
        let mut acked_seq = p.data_seq;
        if f.homa.is_some() {
            f.tx.cc.on_grant(p.grant_offset, p.grant_prio);
            acked_seq = p.seq;
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
                snd_nxt: f.tx.seq_base + f.tx.snd_nxt,
                rtt: now - p.sent_at,
                ecn: p.ce,
                int: &core.pool.int(pkt)[..p.n_hops as usize],
                max_hop_delay: p.max_hop_delay,
                hops: f.info.switch_hops,
                cwnd_limited: f.tx.cwnd_limited,
            };
            f.tx.cc.on_ack(&ev);
        }
        f.tx.refresh();
        let src = f.info.src;
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
