//! Multipath connections (MPTCP-style). A connection owns N subflows; each subflow is an
//! `Endpoint` of its own (own ECMP entropy, window, controller, RTO and loss recovery, go-back-N or
//! SACK (`host.recovery`), on its own subflow sequence space), and the connection owns the data:
//!
//! - one send buffer of `size` bytes, cut into segments of one payload each at a connection-level
//!   data sequence number (DSN); a segment is handed to a subflow when it is first sent and stays
//!   with that subflow (its retransmissions go on the same subflow; no reinjection);
//! - the scheduler: when the NIC serves a subflow that would send new data, the segment goes to
//!   the sibling with room (window open, pacing due, active) and the lowest smoothed RTT, ties to
//!   the subflow the NIC picked, then the lowest index (Linux MPTCP's default scheduler);
//! - the receiver reassembles in DSN order across subflows (`Reassembly`), so data a subflow
//!   delivers in its own order may wait for another subflow's gap; under SACK recovery a segment
//!   a subflow holds out of order is handed to the reassembly when it arrives (the subflow keeps
//!   ranges of its own sequence space, not their DSNs), which only moves when the connection-level
//!   counters see it;
//! - the connection is complete when every byte was handed out and every subflow has all of its
//!   bytes acknowledged.
//!
//! A subflow's `info.size` is its sending limit: `u64::MAX` while the connection has unassigned
//! data and the subflow is active, else the bytes it was handed (`high_sent`), so the NIC's
//! `window_open` needs no multipath branch. Coupled controllers see every subflow through
//! `cc::Siblings` (a read-only view kept here), and AMP's initial subflow decides suppression.

use std::collections::VecDeque;

use super::Transport;
use crate::cc::SubflowView;
use crate::core::{Core, FlowId};
use crate::time::Time;

/// `Endpoint::conn` of a single-path flow.
pub const NO_CONN: u32 = u32::MAX;

/// The receiver's connection-level reassembly: bytes delivered in order, and the segments that
/// arrived beyond them (`pending[i]` = length of segment rcv_nxt/mss + i, 0 = not yet).
#[derive(Default)]
pub struct Reassembly {
    pub rcv_nxt: u64,
    pending: VecDeque<u16>,
    /// Segments that arrived twice (a subflow's retransmission of data already delivered).
    pub duplicates: u64,
    /// Most segments held out of order at once.
    pub max_held: usize,
}

impl Reassembly {
    /// A segment of `len` bytes at `dsn` arrived in its subflow's order. `mss`: the segment size
    /// (every segment but the connection's last is full, so DSNs are multiples of it).
    pub fn deliver(&mut self, dsn: u64, len: u16, mss: u64) {
        if dsn < self.rcv_nxt {
            self.duplicates += 1;
            return;
        }
        let i = ((dsn - self.rcv_nxt) / mss) as usize;
        while self.pending.len() <= i {
            self.pending.push_back(0);
        }
        if self.pending[i] != 0 {
            self.duplicates += 1;
            return;
        }
        self.pending[i] = len;
        while let Some(&l) = self.pending.front() {
            if l == 0 {
                break;
            }
            self.rcv_nxt += l as u64;
            self.pending.pop_front();
        }
        self.max_held = self.max_held.max(self.pending.len());
    }
    /// Segments held beyond the in-order point.
    pub fn held(&self) -> usize {
        self.pending.iter().filter(|&&l| l != 0).count()
    }
}

/// Which DSN each of a subflow's unacknowledged segments carries: `dsn[i]` is the segment at
/// subflow sequence `base + i·mss`.
#[derive(Default)]
pub struct SegmentMap {
    base: u64,
    dsn: VecDeque<u64>,
}

pub struct Connection {
    /// Subflows are the flows first..first + n.
    pub first: FlowId,
    pub n: u32,
    /// Bytes of the connection (u64::MAX: long-lived).
    pub size: u64,
    /// Next connection byte not yet handed to a subflow.
    pub next_dsn: u64,
    pub maps: Vec<SegmentMap>,
    /// What coupled controllers see of each subflow.
    pub views: Vec<SubflowView>,
    /// Subflows 1..n are suppressed (AMP's SSR).
    pub suppressed: bool,
    /// Suppression episodes so far.
    pub episodes: u64,
    pub rx: Reassembly,
    pub done: bool,
}

impl Connection {
    pub fn new(first: FlowId, n: u32, size: u64) -> Self {
        Connection {
            first,
            n,
            size,
            next_dsn: 0,
            maps: (0..n).map(|_| SegmentMap::default()).collect(),
            views: vec![SubflowView { cwnd: 0.0, srtt: 0.0, active: true }; n as usize],
            suppressed: false,
            episodes: 0,
            rx: Reassembly::default(),
            done: false,
        }
    }
    /// Length of the segment at `dsn`.
    #[inline]
    fn seg_len(&self, dsn: u64, mss: u64) -> u64 {
        mss.min(self.size - dsn)
    }
}

impl Transport {
    /// The NIC picked subflow `fid` to send: which subflow sends, the payload and the DSN.
    /// A retransmission goes on `fid` itself; new data goes to the scheduler's choice.
    pub(super) fn mp_next(&mut self, now: Time, fid: FlowId) -> (FlowId, u64, u64) {
        let mss = self.wire.payload;
        let f = &self.flows[fid as usize];
        let c = &mut self.conns[f.conn as usize];
        let k = f.subflow as usize;
        if f.tx.snd_nxt < f.tx.high_sent {
            let m = &c.maps[k];
            let dsn = m.dsn[((f.tx.snd_nxt - m.base) / mss) as usize];
            return (fid, c.seg_len(dsn, mss), dsn);
        }
        // new data: the active sibling with room and the lowest smoothed RTT
        let mut best = k;
        for j in 0..c.n as usize {
            let s = &self.flows[c.first as usize + j];
            let v = &c.views[j];
            let ok = v.active && s.tx.snd_nxt == s.tx.high_sent && s.window_open() && s.tx.next_send <= now;
            if ok && j != best && v.srtt < c.views[best].srtt {
                best = j;
            }
        }
        let sid = c.first + best as u32;
        let dsn = c.next_dsn;
        let len = c.seg_len(dsn, mss);
        c.next_dsn += len;
        let m = &mut c.maps[best];
        if m.dsn.is_empty() {
            m.base = self.flows[sid as usize].tx.snd_nxt;
        }
        m.dsn.push_back(dsn);
        (sid, len, dsn)
    }

    /// After subflow `fid` sent new data: when the connection has no more data to hand out, every
    /// subflow's limit becomes what it was handed.
    pub(super) fn mp_after_send(&mut self, fid: FlowId) {
        let ci = self.flows[fid as usize].conn as usize;
        if self.conns[ci].next_dsn >= self.conns[ci].size {
            self.mp_limits(ci);
        }
    }

    /// Recompute every subflow's sending limit (`info.size`) of connection `ci`.
    pub(super) fn mp_limits(&mut self, ci: usize) {
        let c = &self.conns[ci];
        let more = c.next_dsn < c.size;
        for j in 0..c.n as usize {
            let f = &mut self.flows[c.first as usize + j];
            f.info.size = if more && c.views[j].active { u64::MAX } else { f.tx.high_sent };
        }
    }

    /// Subflow `fid`'s cumulative ACK reached `snd_una`: forget the DSNs of acknowledged segments.
    pub(super) fn mp_acked(&mut self, fid: FlowId) {
        let mss = self.wire.payload;
        let f = &self.flows[fid as usize];
        let c = &mut self.conns[f.conn as usize];
        let size = c.size;
        let m = &mut c.maps[f.subflow as usize];
        while let Some(&dsn) = m.dsn.front() {
            let len = mss.min(size - dsn);
            if m.base + len > f.tx.snd_una {
                break;
            }
            m.base += len;
            m.dsn.pop_front();
        }
    }

    /// Refresh what siblings see of subflow `fid` (window; smoothed RTT from `rtt`, RFC 6298
    /// gain 1/8, when a sample is given).
    pub(super) fn mp_view(&mut self, fid: FlowId, rtt: Option<Time>) {
        let f = &self.flows[fid as usize];
        let v = &mut self.conns[f.conn as usize].views[f.subflow as usize];
        v.cwnd = f.tx.cwnd;
        if let Some(r) = rtt {
            let r = r as f64 * 1e-12;
            v.srtt = if v.srtt == 0.0 { r } else { v.srtt + (r - v.srtt) / 8.0 };
        }
    }

    /// AMP's decision on its initial subflow: suppress (true) or release (false) subflows 1..n.
    pub(super) fn mp_suppress(&mut self, fid: FlowId, suppress: bool) {
        let ci = self.flows[fid as usize].conn as usize;
        let c = &mut self.conns[ci];
        if c.suppressed == suppress {
            return;
        }
        c.suppressed = suppress;
        if suppress {
            c.episodes += 1;
        }
        for v in c.views.iter_mut().skip(1) {
            v.active = !suppress;
        }
        self.mp_limits(ci);
    }

    /// The connection of subflow `fid` is complete: all data handed out and acknowledged.
    pub(super) fn mp_complete(&self, fid: FlowId) -> bool {
        let c = &self.conns[self.flows[fid as usize].conn as usize];
        c.next_dsn >= c.size
            && (0..c.n).all(|j| {
                let s = &self.flows[(c.first + j) as usize];
                s.tx.snd_una >= s.tx.high_sent
            })
    }

    /// Mark every subflow of `fid`'s connection finished at `now`; the connection counts as one
    /// completed flow.
    pub(super) fn mp_finish(&mut self, core: &mut Core, fid: FlowId) {
        let now = core.sched.now;
        let ci = self.flows[fid as usize].conn as usize;
        let c = &mut self.conns[ci];
        c.done = true;
        for j in 0..c.n {
            let s = &mut self.flows[(c.first + j) as usize];
            s.stats.done = true;
            s.stats.end = now;
        }
        core.stats.flows_completed += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reassembly_orders_segments_across_subflows_and_counts_duplicates() {
        let mss = 1000;
        let mut r = Reassembly::default();
        // segments 2 and 1 arrive (on other subflows) before 0: held, nothing delivered
        r.deliver(2000, 1000, mss);
        r.deliver(1000, 1000, mss);
        assert_eq!(r.rcv_nxt, 0);
        assert_eq!(r.held(), 2);
        // segment 0 fills the gap: 0, 1, 2 delivered at once
        r.deliver(0, 1000, mss);
        assert_eq!(r.rcv_nxt, 3000);
        assert_eq!(r.held(), 0);
        assert_eq!(r.max_held, 3);
        // a retransmitted copy of segment 1 is a duplicate; the short last segment ends the data
        r.deliver(1000, 1000, mss);
        r.deliver(4000, 500, mss);
        r.deliver(4000, 500, mss);
        assert_eq!(r.duplicates, 2);
        assert_eq!(r.rcv_nxt, 3000);
        r.deliver(3000, 1000, mss);
        assert_eq!(r.rcv_nxt, 4500);
    }
}
