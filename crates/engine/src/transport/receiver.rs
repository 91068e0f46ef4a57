//! The receiving side: in-order delivery, an ACK per data packet, throttled NACKs on a gap
//! (go-back-N) or out-of-order data kept and reported as SACK blocks (sack.rs).

use super::Transport;
use crate::core::{Core, HostId};
use crate::packet::{Kind, Packet, PktId};

/// Control packets a receiver sends in answer to one data packet, in order (Homa's grants to
/// other messages, then the ACK). At most one grant per overcommitted message plus the ACK.
pub struct Replies {
    pkts: [PktId; 9],
    n: usize,
}

impl Replies {
    pub fn new() -> Self {
        Replies { pkts: [0; 9], n: 0 }
    }
    #[inline]
    pub fn push(&mut self, pkt: PktId) {
        self.pkts[self.n] = pkt;
        self.n += 1;
    }
    pub fn as_slice(&self) -> &[PktId] {
        &self.pkts[..self.n]
    }
}

impl Default for Replies {
    fn default() -> Self {
        Self::new()
    }
}

/// Turn `a` into a control packet of `kind` to `to` carrying cumulative ack `cum_ack`.
#[inline]
pub fn ack_header(a: &mut Packet, kind: Kind, to: HostId, ack_bytes: u32, cum_ack: u64) {
    a.kind = kind;
    a.dst = to;
    a.size = ack_bytes;
    a.payload = 0;
    a.seq = cum_ack;
    a.ect = false;
    a.prio = 0;
}

impl Transport {
    /// Receiver: in-order data advances rcv_nxt; every data packet is answered by an ACK that
    /// echoes its INT, ECN mark and send timestamp (the data packet's slot becomes the ACK); a
    /// gap triggers a (throttled) NACK. Returns the packets for the host's NIC, in order.
    pub fn receive_data(&mut self, core: &mut Core, host: HostId, pkt: PktId) -> Replies {
        let now = core.sched.now;
        let mut out = Replies::new();
        core.stats.data_packets_delivered += 1;
        let p = *core.pool.get(pkt);
        let nack_interval = self.wire.host.nack_interval_ps;
        let f = &mut self.flows[p.flow as usize];
        let r = &mut f.rx;
        // SACK (sack.rs): out-of-order data is kept, and the ACK reports it as its SACK block
        let mut sack_block = 0;
        let kind = if let Some(ooo) = &mut r.ooo {
            let fresh = if p.seq == r.rcv_nxt {
                r.rcv_nxt = ooo.advance(r.rcv_nxt + p.payload as u64);
                true
            } else if p.seq > r.rcv_nxt && !ooo.contains(p.seq) && ooo.insert(p.seq, p.seq + p.payload as u64) {
                sack_block = p.payload;
                true
            } else {
                sack_block = if p.seq > r.rcv_nxt && ooo.contains(p.seq) { p.payload } else { 0 };
                false // a duplicate, or no room for another range (dropped)
            };
            if fresh && f.conn != super::multipath::NO_CONN {
                // the connection reassembles by DSN: a segment held out of order in its subflow is
                // handed over on arrival, since the subflow keeps ranges, not their DSNs
                self.conns[f.conn as usize].rx.deliver(p.data_seq, p.payload, self.wire.payload);
            }
            Kind::Ack
        } else if p.seq == r.rcv_nxt {
            r.rcv_nxt += p.payload as u64;
            if f.conn != super::multipath::NO_CONN {
                // a subflow delivers in its own order; the connection reassembles by DSN
                self.conns[f.conn as usize].rx.deliver(p.data_seq, p.payload, self.wire.payload);
            }
            Kind::Ack
        } else if p.seq < r.rcv_nxt {
            Kind::Ack
        } else if r.last_nack_seq != r.rcv_nxt || now >= r.last_nack_at.saturating_add(nack_interval) {
            r.last_nack_seq = r.rcv_nxt;
            r.last_nack_at = now;
            Kind::Nack
        } else {
            core.pool.free(pkt);
            return out;
        };
        let (rcv_nxt, src) = (r.rcv_nxt, f.info.src);
        let receiver_driven = f.homa.is_some();
        if receiver_driven {
            self.homa_track(host, p.flow);
            self.homa_regrant(core, host, p.flow, &mut out);
        }
        let f = &self.flows[p.flow as usize];
        let a = core.pool.get_mut(pkt);
        ack_header(a, kind, src, self.wire.ack_bytes, rcv_nxt);
        a.data_seq = p.seq;
        a.payload = sack_block;
        if let Some(g) = &f.homa {
            a.grant_offset = g.granted;
            a.grant_prio = g.prio;
        }
        out.push(pkt);
        core.stats.packets_sent += 1;
        out
    }
}
