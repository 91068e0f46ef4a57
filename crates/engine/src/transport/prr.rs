//! Proportional Rate Reduction (RFC 6937) as Linux runs it in fast recovery
//! (`tcp_cwnd_reduction`, net/ipv4/tcp_input.c): the window falls from its value at the start of
//! recovery (`prior_cwnd`) to the controller's reduced one (`ssthresh`) in step with the data the
//! ACKs report delivered, instead of at once.
//!
//! On each ACK that delivered `DeliveredData` bytes (newly cumulatively acknowledged or SACKed;
//! RFC 6937 §3), with `pipe` bytes in flight after it:
//!
//! - while `pipe` > ssthresh (proportional part):
//!   sndcnt = ⌈ssthresh · prr_delivered / prior_cwnd⌉ − prr_out;
//! - else (slow-start reduction bound, Linux's choice of RFC 6937's two bounds):
//!   sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + [1 MSS if
//!   snd_una advanced and no segment was newly marked lost]);
//! - and at least 1 MSS while nothing has been sent in the recovery (the fast retransmit).
//!
//! The window is then pipe + sndcnt: the sender may send sndcnt bytes until the next ACK. An ACK
//! that delivered nothing leaves it as it was. Linux applies it to congestion controls without
//! their own `cong_control` (Reno, CUBIC, MPTCP's LIA: `cc::Caps::prr`); it counts packets, this
//! counts bytes.

/// The reduction of one fast-recovery episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prr {
    /// The window when recovery started (RFC 6937 RecoverFS; Linux `prior_cwnd`), bytes.
    pub prior_cwnd: f64,
    /// The controller's reduced window (ssthresh), bytes.
    pub ssthresh: f64,
    /// Bytes delivered and bytes sent since recovery started (`prr_delivered`, `prr_out`).
    pub delivered: f64,
    pub out: f64,
    /// The window the sender uses now (bytes).
    pub cwnd: f64,
}

impl Prr {
    /// Recovery starts with a window of `prior_cwnd` bytes that the controller reduced to `ssthresh`.
    pub fn new(prior_cwnd: f64, ssthresh: f64) -> Self {
        Prr { prior_cwnd: prior_cwnd.max(1.0), ssthresh, delivered: 0.0, out: 0.0, cwnd: ssthresh }
    }

    /// An ACK in recovery delivered `delivered` bytes and left `pipe` in flight; `advanced`: it
    /// moved snd_una; `newly_lost`: it marked a segment lost. Returns the window.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, advanced: bool, newly_lost: bool, mss: u64) -> f64 {
        if delivered == 0 {
            return self.cwnd;
        }
        let (delivered, pipe, mss) = (delivered as f64, pipe as f64, mss as f64);
        self.delivered += delivered;
        let delta = self.ssthresh - pipe;
        let mut sndcnt = if delta < 0.0 {
            // Linux counts packets: the share is rounded up to a whole MSS
            (self.ssthresh * self.delivered / self.prior_cwnd / mss).ceil() * mss - self.out
        } else {
            let bonus = if advanced && !newly_lost { mss } else { 0.0 };
            ((self.delivered - self.out).max(delivered) + bonus).min(delta)
        };
        // force the fast retransmit on entering recovery
        sndcnt = sndcnt.max(if self.out > 0.0 { 0.0 } else { mss });
        self.cwnd = pipe + sndcnt.max(0.0);
        self.cwnd
    }

    /// `bytes` were sent during the recovery.
    #[inline]
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    #[test]
    fn the_window_falls_in_step_with_the_deliveries() {
        // RFC 6937's example shape: 20 segments in flight, one lost, ssthresh = 10 segments
        // (a halving). Recovery starts on the ACK that SACKs the third segment after the hole.
        let mut p = Prr::new(20.0 * M as f64, 10.0 * M as f64);
        // entry ACK: 1 segment delivered, pipe = 20 − 1 SACKed − 1 lost = 18 > 10:
        // ⌈10·1/20⌉ − 0 = 1 segment (and the forced fast retransmit is 1 anyway)
        assert_eq!(p.on_ack(M, 18 * M, false, true, M), 19.0 * M as f64);
        // the retransmission: pipe 19
        p.on_sent(M);
        // next ACK: 1 more delivered (2 in all), pipe 18: ⌈10·2/20⌉ − 1 = 0: send nothing
        assert_eq!(p.on_ack(M, 18 * M, false, false, M), 18.0 * M as f64);
        // next: 3 delivered, pipe 17: ⌈1.5⌉ − 1 = 1 segment
        assert_eq!(p.on_ack(M, 17 * M, false, false, M), 18.0 * M as f64);
        p.on_sent(M);
        // each ACK delivers one segment; while pipe > ssthresh the segments sent so far are
        // ⌈ssthresh·delivered/prior_cwnd⌉ = ⌈k/2⌉: one per two ACKs, the window's ratio
        let (mut pipe, mut sent) = (18u64, 2u64);
        for k in 4..=20u64 {
            pipe -= 1;
            let room = (p.on_ack(M, pipe * M, false, false, M) / M as f64) as u64 - pipe;
            if pipe > 10 {
                assert_eq!(sent + room, k.div_ceil(2), "ACK {k}");
            }
            p.on_sent(room * M);
            (pipe, sent) = (pipe + room, sent + room);
        }
        // the proportional part ends with pipe at ssthresh (ACK 17), which the slow-start bound
        // then holds: 10 segments in flight after 20 delivered
        assert_eq!((pipe, sent), (10, 11));
    }

    #[test]
    fn below_ssthresh_the_window_grows_back_no_faster_than_slow_start() {
        // a large loss: pipe 4 segments under ssthresh 10 after the entry
        let mut p = Prr::new(20.0 * M as f64, 10.0 * M as f64);
        p.on_sent(M);
        p.delivered = 1.0 * M as f64;
        // 2 delivered by a cumulative ACK, nothing newly lost: max(3 − 1, 2) + 1 = 3 ≤ 10 − 4
        assert_eq!(p.on_ack(2 * M, 4 * M, true, false, M), 7.0 * M as f64);
        // a second such ACK that marks a segment lost gets no extra MSS: 5 delivered, max(5 − 1, 2) = 4
        let mut q = p;
        assert_eq!(q.on_ack(2 * M, 4 * M, true, true, M), 8.0 * M as f64);
        // never above ssthresh: 9 in flight leaves room for 1
        assert_eq!(p.on_ack(3 * M, 9 * M, true, false, M), 10.0 * M as f64);
    }

    #[test]
    fn an_ack_that_delivers_nothing_changes_nothing() {
        let mut p = Prr::new(20.0 * M as f64, 10.0 * M as f64);
        let w = p.on_ack(M, 18 * M, false, true, M);
        assert_eq!(p.on_ack(0, 18 * M, false, false, M), w);
        assert_eq!(p.delivered, M as f64);
    }
}
