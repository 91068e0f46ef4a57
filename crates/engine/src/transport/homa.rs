//! Homa's receiver (Montazeri et al., SIGCOMM'18): grants to the `overcommit` incoming messages
//! with the fewest remaining bytes (SRPT), keeping RTTbytes granted beyond what has arrived; rank r
//! uses priority first_sched_prio + r. A message whose grant already covers all of it needs no
//! more grants and does not hold one of the `overcommit` slots (Homa §3.4: the receiver grants to
//! the messages that still need grants), though it stays incomplete until its data arrive. The
//! sender's side is the controller `cc::homa`; its NIC serves its messages SRPT (nic/).

use super::receiver::Replies;
use super::Transport;
use crate::cc::GrantPolicy;
use crate::core::{Core, FlowId, HostId};
use crate::packet::{Kind, Packet, PRIORITIES};

/// The receiver's grant state of one incoming message.
#[derive(Clone, Copy, Debug)]
pub struct GrantState {
    pub policy: GrantPolicy,
    /// Bytes granted so far (the first RTTbytes are unscheduled: granted from the start).
    pub granted: u64,
    /// Priority of the current grant.
    pub prio: u8,
    /// The message is in its receiver's list of incomplete incoming messages.
    pub active: bool,
}

impl GrantState {
    pub fn new(policy: GrantPolicy, size: u64) -> Self {
        GrantState { policy, granted: policy.rtt_bytes.min(size), prio: policy.first_sched_prio, active: false }
    }
}

/// Most messages one receiver grants to at once.
const MAX_OVERCOMMIT: usize = 8;

impl Transport {
    /// Keep `host`'s list of incomplete incoming messages current after data of `fid` arrived.
    pub(super) fn homa_track(&mut self, host: HostId, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        let done = f.rx.rcv_nxt >= f.info.size;
        let Some(g) = f.homa.as_mut() else { return };
        if !g.active && !done {
            g.active = true;
            self.homa_in[host as usize].push(fid);
        } else if g.active && done {
            g.active = false;
            let list = &mut self.homa_in[host as usize];
            if let Some(i) = list.iter().position(|&x| x == fid) {
                list.remove(i);
            }
        }
    }

    /// Re-rank `host`'s incoming messages after data of `arriving` came in. The arriving message
    /// learns its grant from its ACK; every other message whose grant changed gets a grant packet
    /// (added to `out`).
    pub(super) fn homa_regrant(&mut self, core: &mut Core, host: HostId, arriving: FlowId, out: &mut Replies) {
        let Some(state) = self.flows[arriving as usize].homa else { return };
        let policy = state.policy;
        let k = (policy.overcommit as usize).min(MAX_OVERCOMMIT);
        let mut top: [(u64, u32); MAX_OVERCOMMIT] = [(u64::MAX, u32::MAX); MAX_OVERCOMMIT];
        for &g in &self.homa_in[host as usize] {
            let f = &self.flows[g as usize];
            if f.homa.is_some_and(|st| st.granted >= f.info.size) {
                continue; // fully granted: holds no grant slot
            }
            let key = (f.info.size - f.rx.rcv_nxt, g);
            if key < top[k - 1] {
                let mut i = k - 1;
                while i > 0 && key < top[i - 1] {
                    top[i] = top[i - 1];
                    i -= 1;
                }
                top[i] = key;
            }
        }
        let now = core.sched.now;
        for (rank, &(_, g)) in top[..k].iter().enumerate() {
            if g == u32::MAX {
                break;
            }
            let f = &mut self.flows[g as usize];
            let target = (f.rx.rcv_nxt + policy.rtt_bytes).min(f.info.size);
            let prio = (policy.first_sched_prio as usize + rank).min(PRIORITIES - 1) as u8;
            let st = f.homa.as_mut().expect("a granted message is receiver-driven");
            if target <= st.granted && prio == st.prio {
                continue;
            }
            st.granted = st.granted.max(target);
            st.prio = prio;
            if g != arriving {
                let mut p = Packet::empty();
                super::receiver::ack_header(&mut p, Kind::Ack, f.info.src, self.wire.ack_bytes, f.rx.rcv_nxt);
                p.flow = g;
                p.grant_offset = st.granted;
                p.grant_prio = st.prio;
                p.sent_at = now;
                out.push(core.pool.alloc(p));
                core.stats.packets_sent += 1;
            }
        }
    }
}
