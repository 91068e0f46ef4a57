//! SACK-based loss recovery (`host.recovery = "sack"`): what a Linux TCP sender and receiver do
//! instead of the RDMA NIC's go-back-N.
//!
//! - **Receiver.** Out-of-order data is kept as byte ranges above the in-order point (`Ranges`, a
//!   sorted list allocated with the flow, of fixed capacity: [`capacity`]); when a hole fills, the in-order point
//!   jumps over the ranges it now touches, so the cumulative ACK jumps too. Every data packet is
//!   answered by an ACK that echoes the packet's sequence number (`data_seq`, as for every flow);
//!   a packet kept out of order also reports its length in the ACK's `payload`: that is its SACK
//!   block `[data_seq, data_seq + payload)` (RFC 2018 §4 puts the block of the segment that
//!   triggered the ACK first; with one ACK per packet and ACKs that arrive, the sender learns every
//!   block, so no older blocks are repeated). A packet that would need a range beyond the capacity
//!   is dropped by the receiver (no block), as a receiver out of buffer drops it.
//! - **Sender** (RFC 6675): a scoreboard of SACKed ranges (`Scoreboard`). A byte is lost when more
//!   than (DupThresh − 1)·SMSS bytes above it are SACKed (`IsLost`, §4; DupThresh = 3); the sender
//!   enters fast recovery when the first unacknowledged byte is lost (§5 step 4: with one SACK per
//!   duplicate ACK this is DupAcks = DupThresh), sets RecoveryPoint = HighData, and makes one
//!   window reduction (the controller's `on_nack`). It sends while `pipe` < cwnd (§5 step C,
//!   `SetPipe` §4) the next segment `NextSeg` gives: the lowest lost, unSACKed segment above
//!   HighRxt (rule 1), else new data (rule 2). Recovery ends when the cumulative ACK reaches
//!   RecoveryPoint (§5 step B). A retransmission timeout clears the scoreboard and treats every
//!   outstanding byte as lost, so the sender resends from snd_una (§5.1), skipping what later ACKs
//!   SACK; no fast recovery starts until snd_una passes what was outstanding at the timeout
//!   (RFC 6582 §3.2 `recover`).
//!
//! A lost retransmission is found as RACK finds it (RFC 8985 §6.2: a segment is lost once one
//! sent after it is delivered, with no reordering window, since a flow's packets keep to one path
//! in order): when a segment first sent after a retransmission is SACKed while the retransmitted
//! one is not, it is sent again, within the same episode (no further reduction, as Linux).
//!
//! The window in fast recovery: for the laws Linux reduces through `tcp_cwnd_reduction` (Reno,
//! CUBIC, LIA: `cc::Caps::prr`) proportional rate reduction (RFC 6937, prr.rs) steps it down from
//! its value at the start of recovery to the controller's reduced one as ACKs report deliveries;
//! for the others the controller's reduction holds at once (Linux's `cong_control` laws).
//!
//! Not modelled: NextSeg's rules 3 and 4 (retransmitting segments not yet deemed lost when nothing
//! else can be sent) and the rest of RACK-TLP (RFC 8985: time-based loss marking, tail loss
//! probes): a lost tail waits for the retransmission timeout.
//!
//! Segments are whole packets at multiples of the payload size (only a flow's or connection's
//! last segment is shorter), so every range edge is a segment edge.

/// RFC 6675 §2 DupThresh (RFC 5681's three duplicate ACKs).
pub const DUP_THRESH: u64 = 3;

/// Linux's largest receive window: `tcp_rmem`'s default maximum receive buffer (6 MiB), half of
/// it advertised as window (`tcp_adv_win_scale` = 1). Out-of-order data beyond it is not kept.
pub const LINUX_MAX_RCV_WINDOW: u64 = 3 * 1024 * 1024;

/// Ranges kept per flow (receiver: out-of-order data; sender: SACKed data) for segments of
/// `mss` bytes: a window of W segments has at most W/2 separate ranges, so Linux's largest
/// window bounds them. A window with more separate holes than this loses its excess
/// out-of-order data at the receiver.
pub fn capacity(mss: u64) -> usize {
    (LINUX_MAX_RCV_WINDOW / mss.max(1) / 2).max(1) as usize
}

use std::collections::VecDeque;

#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

/// A sorted list of disjoint, non-adjacent byte ranges with a fixed capacity, allocated when it
/// is created (it never grows).
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    r: Vec<Range>,
}

impl Ranges {
    pub fn new(capacity: usize) -> Self {
        Ranges { r: Vec::with_capacity(capacity) }
    }
    pub fn as_slice(&self) -> &[Range] {
        &self.r
    }
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }
    pub fn clear(&mut self) {
        self.r.clear();
    }
    /// `seq` lies in a range.
    pub fn contains(&self, seq: u64) -> bool {
        self.r.iter().any(|x| x.start <= seq && seq < x.end)
    }
    /// Add `[start, end)`, merging with ranges it overlaps or touches. False (nothing changed)
    /// when it needs a range of its own and the list is full.
    pub fn insert(&mut self, start: u64, end: u64) -> bool {
        // first range that ends at or after `start` (it may touch or overlap the new one)
        let i = self.r.iter().position(|x| x.end >= start).unwrap_or(self.r.len());
        if i < self.r.len() && self.r[i].start <= end {
            self.r[i].start = self.r[i].start.min(start);
            self.r[i].end = self.r[i].end.max(end);
            // swallow the following ranges it now reaches
            let mut j = i + 1;
            while j < self.r.len() && self.r[j].start <= self.r[i].end {
                self.r[i].end = self.r[i].end.max(self.r[j].end);
                j += 1;
            }
            self.r.drain(i + 1..j);
            return true;
        }
        if self.r.len() == self.r.capacity() {
            return false;
        }
        self.r.insert(i, Range { start, end });
        true
    }
    /// Forget everything below `seq`.
    pub fn trim_below(&mut self, seq: u64) {
        let k = self.r.iter().position(|x| x.end > seq).unwrap_or(self.r.len());
        self.r.drain(..k);
        if let Some(first) = self.r.first_mut() {
            first.start = first.start.max(seq);
        }
    }
    /// The in-order point `next` after the ranges that start at or below it are taken in
    /// (receiver: a hole filled); those ranges are removed.
    pub fn advance(&mut self, mut next: u64) -> u64 {
        let mut k = 0;
        while k < self.r.len() && self.r[k].start <= next {
            next = next.max(self.r[k].end);
            k += 1;
        }
        self.r.drain(..k);
        next
    }
    /// Bytes of `[a, b)` inside the ranges.
    pub fn bytes_within(&self, a: u64, b: u64) -> u64 {
        self.as_slice().iter().map(|x| x.end.min(b).saturating_sub(x.start.max(a))).sum()
    }
}

/// The sender's RFC 6675 state of one flow (or one subflow).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    pub sacked: Ranges,
    /// In fast recovery, or repairing after a timeout.
    pub in_recovery: bool,
    /// RecoveryPoint: HighData when recovery started.
    pub recovery_point: u64,
    /// End of the highest byte retransmitted in this recovery (HighRxt + 1; retransmissions go in
    /// sequence order, so every unSACKed byte below it was retransmitted).
    pub high_rxt: u64,
    /// After a timeout: every unSACKed byte below this is lost (§5.1).
    pub lost_until: u64,
    /// The recovery is a timeout's (Linux's CA_Loss: the window slow-starts from 1 MSS), not a
    /// fast recovery (CA_Recovery: the window holds).
    pub after_timeout: bool,
    /// RFC 6675 `pipe` (bytes), kept current after every ACK and send.
    pub pipe: u64,
    /// NextSeg rule 1: the next lost segment to retransmit, if any.
    pub next_rtx: Option<u64>,
    /// The retransmissions of this recovery not yet known delivered, oldest first: (sequence,
    /// length, HighData when it was sent). Data first sent at or above that HighData left after
    /// it. Fixed capacity (a retransmission beyond it is left to the timer).
    pub rtx_log: VecDeque<(u64, u64, u64)>,
    /// Retransmitted segments found lost: NextSeg sends these again first.
    pub relost: Ranges,
    /// Recovery episodes entered by SACK (not counting timeouts).
    pub episodes: u64,
    /// Retransmissions found lost (a later segment was SACKed; RACK's rule, RFC 8985 §6.2).
    pub lost_retransmits: u64,
    /// The window reduction of this fast recovery by PRR (prr.rs), for a law Linux reduces that
    /// way (`uses_prr`); None outside fast recovery.
    pub prr: Option<super::prr::Prr>,
    pub uses_prr: bool,
    /// What the latest ACK did: bytes it delivered (newly cumulatively acknowledged or SACKed,
    /// RFC 6937 DeliveredData) and whether it marked a segment lost.
    pub delivered: u64,
    pub newly_lost: bool,
    /// snd_una after the previous ACK (for `delivered`).
    una: u64,
}

impl Scoreboard {
    /// A scoreboard remembering up to `ranges` SACKed ranges (see [`capacity`]).
    pub fn new(ranges: usize) -> Self {
        Scoreboard {
            sacked: Ranges::new(ranges),
            rtx_log: VecDeque::with_capacity(ranges),
            relost: Ranges::new(ranges),
            ..Default::default()
        }
    }

    /// Every unSACKed byte below the returned point is lost: IsLost (§4) by DupThresh·SMSS of
    /// SACKed bytes above it, or marked lost by a timeout.
    pub fn lost_edge(&self, snd_una: u64, smss: u64) -> u64 {
        let mut above = 0;
        let mut edge = snd_una;
        for x in self.sacked.as_slice().iter().rev() {
            above += x.end - x.start;
            if above > (DUP_THRESH - 1) * smss {
                edge = x.start; // every unSACKed byte below this range has > 2 SMSS SACKed above
                break;
            }
        }
        edge.max(self.lost_until)
    }

    /// Recompute `pipe` (SetPipe, §4) and NextSeg's rule 1 from the scoreboard.
    pub fn update(&mut self, snd_una: u64, high_sent: u64, smss: u64) {
        if self.sacked.is_empty() && self.relost.is_empty() && !self.in_recovery {
            self.pipe = high_sent - snd_una;
            self.next_rtx = None;
            return;
        }
        let lost = self.lost_edge(snd_una, smss).min(high_sent);
        let rxt = self.high_rxt.clamp(snd_una, lost);
        let unsacked = |a: u64, b: u64| (b - a) - self.sacked.bytes_within(a, b);
        // (a) unSACKed bytes not lost count once; (b) retransmitted ones count (again)
        // (a lost retransmission counts no more: it left the network)
        self.relost.trim_below(snd_una);
        self.pipe = (unsacked(lost, high_sent) + unsacked(snd_una, rxt)).saturating_sub(self.relost.bytes_within(snd_una, rxt));
        if let Some(r) = self.relost.as_slice().first() {
            self.next_rtx = Some(r.start); // a lost retransmission goes again first
            return;
        }
        // the first unSACKed byte in [HighRxt, lost edge)
        let mut s = rxt;
        for x in self.sacked.as_slice() {
            if x.start <= s && s < x.end {
                s = x.end;
            }
        }
        self.next_rtx = (s < lost).then_some(s);
    }

    /// A cumulative ACK to `snd_una` carrying the SACK block `[start, start + len)` (len 0: none).
    /// Returns true when this ACK starts a fast recovery (the caller makes the one window
    /// reduction of the episode).
    pub fn on_ack(&mut self, snd_una: u64, high_sent: u64, start: u64, len: u64, smss: u64) -> bool {
        let lost_before = self.lost_edge(self.una, smss);
        // every SACKed range lies above the previous snd_una (trimmed then, or cleared by a timeout)
        let sacked_before = self.sacked.bytes_within(0, u64::MAX);
        if len > 0 && start >= snd_una {
            self.sacked.insert(start, start + len); // a full list forgets the block (conservative)
        }
        self.sacked.trim_below(snd_una);
        // RFC 6937 §3 DeliveredData: the change of snd_una plus the change of SACKed bytes
        let sacked_after = self.sacked.bytes_within(snd_una, u64::MAX);
        self.delivered = (snd_una - self.una.min(snd_una) + sacked_after).saturating_sub(sacked_before);
        self.una = snd_una.max(self.una);
        if self.in_recovery && snd_una >= self.recovery_point {
            // §5 step B: recovery ends once everything outstanding at its start is acknowledged
            self.in_recovery = false;
            self.after_timeout = false;
            self.lost_until = 0;
            self.prr = None;
        }
        if len > 0 {
            // RFC 8985 §6.2 (RACK): a segment is lost once a segment sent after it is delivered
            // (a flow's packets keep their order on its one path: no reordering window). The
            // retransmissions sent before this segment's first transmission that are still
            // unSACKed were lost: send them again (RFC 6675 alone waits for the timer)
            while let Some(&(seq, n, high)) = self.rtx_log.front() {
                if high > start {
                    break;
                }
                self.rtx_log.pop_front();
                if seq >= snd_una && !self.sacked.contains(seq) && self.relost.insert(seq, seq + n) {
                    self.lost_retransmits += 1;
                }
            }
        }
        let mut entered = false;
        if !self.in_recovery && snd_una < high_sent && self.lost_edge(snd_una, smss) > snd_una {
            // §5 step 4: the first unacknowledged segment is lost
            self.in_recovery = true;
            self.recovery_point = high_sent;
            // what the last episode retransmitted beyond its recovery point is still in flight
            self.high_rxt = self.high_rxt.max(snd_una);
            self.episodes += 1;
            entered = true;
        }
        self.newly_lost = self.lost_edge(snd_una, smss) > lost_before.max(snd_una);
        self.update(snd_una, high_sent, smss);
        entered
    }

    /// `len` bytes at `seq` were sent (a retransmission when `seq` < the previous HighData).
    pub fn on_sent(&mut self, seq: u64, len: u64, resend: bool, snd_una: u64, high_sent: u64, smss: u64) {
        if let Some(p) = &mut self.prr {
            p.on_sent(len); // prr_out
        }
        if resend {
            if self.relost.as_slice().first().is_some_and(|r| r.start == seq) {
                self.relost.trim_below(seq + len); // sent again
            } else {
                self.high_rxt = self.high_rxt.max(seq + len);
            }
            if self.rtx_log.len() < self.rtx_log.capacity() {
                self.rtx_log.push_back((seq, len, high_sent));
            }
        }
        self.update(snd_una, high_sent, smss);
    }

    /// A retransmission timeout (§5.1): forget the SACKed ranges, everything outstanding is lost,
    /// and no fast recovery starts before snd_una passes HighData.
    pub fn on_timeout(&mut self, snd_una: u64, high_sent: u64, smss: u64) {
        self.prr = None; // Linux's CA_Loss: the timeout's window, no PRR
        self.sacked.clear();
        self.in_recovery = true;
        self.after_timeout = true;
        self.recovery_point = high_sent;
        self.high_rxt = snd_una;
        self.lost_until = high_sent;
        self.rtx_log.clear();
        self.relost.clear();
        self.update(snd_una, high_sent, smss);
    }

    /// In fast recovery (not a timeout's repair): the controller's window does not grow, as
    /// Linux calls no `cong_avoid` in CA_Recovery (`tcp_cong_control`).
    #[inline]
    pub fn fast_recovery(&self) -> bool {
        self.in_recovery && !self.after_timeout
    }

    /// The sequence number the sender sends next: a hole to repair, else new data.
    #[inline]
    pub fn next_seq(&self, high_sent: u64) -> u64 {
        self.next_rtx.unwrap_or(high_sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    fn ranges(r: &Ranges) -> Vec<(u64, u64)> {
        r.as_slice().iter().map(|x| (x.start, x.end)).collect()
    }

    #[test]
    fn ranges_merge_touching_and_overlapping_blocks() {
        let mut r = Ranges::new(8);
        assert!(r.insert(3 * M, 4 * M));
        assert!(r.insert(5 * M, 6 * M));
        assert!(r.insert(1 * M, 2 * M));
        assert_eq!(ranges(&r), vec![(M, 2 * M), (3 * M, 4 * M), (5 * M, 6 * M)]);
        assert!(r.insert(4 * M, 5 * M)); // fills the gap between two ranges: one range
        assert_eq!(ranges(&r), vec![(M, 2 * M), (3 * M, 6 * M)]);
        assert!(r.insert(3 * M, 4 * M)); // already held
        assert_eq!(r.bytes_within(0, 10 * M), 4 * M);
        assert_eq!(r.bytes_within(2 * M, 4 * M), M);
        // the receiver's hole at 2000 fills from 2000: in-order point jumps to 6000
        assert_eq!(r.advance(2 * M), 2 * M); // the range at 1000 starts below: taken in
        assert_eq!(ranges(&r), vec![(3 * M, 6 * M)]);
        assert_eq!(r.advance(3 * M), 6 * M);
        assert!(r.is_empty());
    }

    #[test]
    fn a_full_list_refuses_a_new_range_but_merges_into_old_ones() {
        let mut r = Ranges::new(4);
        for k in 0..4 {
            assert!(r.insert(2 * k * M, (2 * k + 1) * M));
        }
        assert!(!r.insert(1000 * M, 1001 * M));
        assert!(r.insert(M, 2 * M)); // joins ranges 0 and 1
        assert_eq!(r.as_slice().len(), 3);
        assert_eq!(capacity(1448), 1086); // 3 MiB / 1448 B = 2172 segments, every other one a hole
        r.trim_below(2 * M + 500);
        assert_eq!(r.as_slice()[0], Range { start: 2 * M + 500, end: 3 * M });
    }

    #[test]
    fn one_loss_enters_recovery_on_the_third_sack_and_resends_only_the_hole() {
        // ten segments out, segment 0 lost; ACKs of 1, 2, 3 each SACK one segment
        let mut s = Scoreboard::new(64);
        let high = 10 * M;
        assert!(!s.on_ack(0, high, M, M, M));
        assert!(!s.on_ack(0, high, 2 * M, M, M)); // 2 SMSS SACKed above: not yet lost
        assert_eq!(s.pipe, 8 * M); // limited transmit: the SACKed segments left the network
        assert_eq!(s.next_rtx, None);
        assert!(s.on_ack(0, high, 3 * M, M, M)); // 3 SMSS above: segment 0 lost, recovery
        assert_eq!((s.recovery_point, s.next_rtx), (high, Some(0)));
        // pipe: 10 out − 3 SACKed − 1 lost = 6
        assert_eq!(s.pipe, 6 * M);
        s.on_sent(0, M, true, 0, high, M);
        assert_eq!((s.pipe, s.next_rtx), (7 * M, None));
        // more SACKs do not start another episode; the cumulative ACK past 10 000 ends it
        assert!(!s.on_ack(0, high, 4 * M, M, M));
        assert!(!s.on_ack(high, high, 0, 0, M));
        assert!(!s.in_recovery);
        assert_eq!(s.pipe, 0);
    }

    #[test]
    fn several_holes_are_each_resent_once_in_order() {
        // segments 0..20 out; 2, 5 and 6 lost; every other segment SACKed
        let mut s = Scoreboard::new(64);
        let high = 20 * M;
        let mut starts = 0;
        for k in (0..20).filter(|k| ![2, 5, 6].contains(k)) {
            if k < 2 {
                continue; // 0 and 1 arrive in order: the cumulative ACK is 2000
            }
            starts += s.on_ack(2 * M, high, k * M, M, M) as u32;
        }
        assert_eq!(starts, 1);
        // 20 − 2 acked − 15 SACKed = 3 unSACKed, all lost (≥ 3 SMSS SACKed above each)
        assert_eq!(s.pipe, 0);
        let mut resent = vec![];
        while let Some(q) = s.next_rtx {
            resent.push(q / M);
            s.on_sent(q, M, true, 2 * M, high, M);
        }
        assert_eq!(resent, vec![2, 5, 6]);
        assert_eq!(s.pipe, 3 * M);
    }

    #[test]
    fn a_lost_retransmission_is_resent_once_later_data_is_sacked() {
        let mut s = Scoreboard::new(64);
        let high = 10 * M;
        for k in 1..4 {
            s.on_ack(0, high, k * M, M, M);
        }
        s.on_sent(0, M, true, 0, high, M); // the retransmission of 0 (lost)
        s.on_sent(high, M, false, 0, 11 * M, M); // then new data 10
        for k in 4..10 {
            s.on_ack(0, 11 * M, k * M, M, M); // SACKs of data sent before the retransmission
        }
        assert_eq!((s.next_rtx, s.lost_retransmits), (None, 0));
        s.on_ack(0, 11 * M, 10 * M, M, M); // 10 left after it and arrived: 0 was lost again
        assert_eq!((s.next_rtx, s.lost_retransmits), (Some(0), 1));
        assert_eq!(s.episodes, 1);
    }

    #[test]
    fn a_timeout_clears_the_scoreboard_and_resends_from_snd_una() {
        let mut s = Scoreboard::new(64);
        let high = 10 * M;
        for k in 1..4 {
            s.on_ack(0, high, k * M, M, M);
        }
        assert!(s.in_recovery);
        s.on_sent(0, M, true, 0, high, M); // the retransmission is lost too
        s.on_timeout(0, high, M);
        assert!(s.sacked.is_empty());
        assert_eq!((s.pipe, s.next_rtx), (0, Some(0)));
        s.on_sent(0, M, true, 0, high, M);
        // the resend fills the hole: the receiver's cumulative ACK jumps to 4000; then 4000 is next
        assert!(!s.on_ack(4 * M, high, 0, 0, M));
        assert_eq!(s.next_rtx, Some(4 * M));
        // a block for 6000 learnt now is skipped by the go-back
        s.on_sent(4 * M, M, true, 4 * M, high, M);
        s.on_ack(4 * M, high, 6 * M, M, M);
        s.on_sent(5 * M, M, true, 4 * M, high, M);
        assert_eq!(s.next_rtx, Some(7 * M));
        // no new episode before snd_una reaches what was outstanding at the timeout
        assert!(s.in_recovery);
        assert!(!s.on_ack(high, high, 0, 0, M));
        assert!(!s.in_recovery);
    }
}
