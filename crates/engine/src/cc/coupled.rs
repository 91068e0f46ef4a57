//! What the coupled multipath laws share (MPTCP-LIA, DCM, XMP, AMP; amp-multipath-tcp.txt §2,
//! §4): a per-subflow Reno window core (slow start, once-per-window reductions with NewReno's
//! recovery point, RTO collapse) with a floor `cwnd_min` instead of Reno's 2 MSS, and the sums
//! over the connection's subflows that the coupled increases read from `Siblings`.
//!
//! A sibling's window and smoothed RTT come from the transport's view; the subflow's own window
//! is its current one, and an RTT not yet sampled (0) is replaced by this ACK's sample (own) or the
//! path's base RTT (siblings).

use super::reno::{RenoCore, RenoParams};
use super::{AckEvent, CcContext, Siblings, SubflowView};

/// The `CongestionControl` methods every coupled law implements alike on its `w: MpWindow`: it
/// offers itself as `Coupled`, a single-path ACK is a subflow ACK with itself as the only subflow, loss halves once per window
/// to the floor, an RTO collapses the window, window-limited (no pacing). Used inside each law's
/// `impl CongestionControl`.
macro_rules! mp_window_methods {
    () => {
        fn on_ack(&mut self, ev: &crate::cc::AckEvent) {
            let me = crate::cc::coupled::alone(self.w.core.cwnd);
            crate::cc::Coupled::on_subflow_ack(self, ev, &crate::cc::Siblings { me: 0, all: &me });
        }
        fn coupled(&mut self) -> Option<&mut dyn crate::cc::Coupled> {
            Some(self)
        }
        fn on_nack(&mut self, _now: crate::time::Time) {
            self.w.on_loss(); // AMP Alg. 1 l. 44; RFC 5681 eq. (4)
        }
        fn on_timeout(&mut self, _now: crate::time::Time) {
            self.w.core.on_rto();
        }
        fn cwnd(&self) -> f64 {
            self.w.core.cwnd
        }
        fn in_slow_start(&self) -> bool {
            self.w.core.in_slow_start()
        }
        fn pacing_rate(&self) -> f64 {
            f64::INFINITY
        }
    };
}
pub(crate) use mp_window_methods;

/// One subflow's window machinery.
#[derive(Clone, Debug)]
pub struct MpWindow {
    pub core: RenoCore,
    /// Minimum window (bytes): no ECN or loss response goes below it.
    pub cwnd_min: f64,
    /// Base RTT of the path (seconds): stands in for a sibling's RTT before its first sample.
    pub base_rtt: f64,
}

impl MpWindow {
    pub fn new(init_cwnd_mss: f64, cwnd_min_mss: f64, ctx: &CcContext) -> Self {
        let p = RenoParams { init_cwnd_mss, ..RenoParams::default() };
        MpWindow { core: RenoCore::new(&p, ctx), cwnd_min: cwnd_min_mss * ctx.mss, base_rtt: ctx.path_rtt }
    }
    #[inline]
    pub fn mss(&self) -> f64 {
        self.core.mss
    }
    /// One congestion response to `new_cwnd`, floored at `cwnd_min`, once per window (RFC 6582
    /// recovery point, as `RenoCore::reduce_to` but with the multipath floor).
    #[inline]
    pub fn cut_to(&mut self, new_cwnd: f64) {
        self.core.ssthresh = new_cwnd.max(self.cwnd_min);
        self.core.cwnd = self.core.cwnd.min(self.core.ssthresh);
        self.core.recover = self.core.snd_nxt;
    }
    /// NACK (loss): halve once per window, not below `cwnd_min` (RFC 5681 eq. (4); AMP Alg. 1 l. 44).
    #[inline]
    pub fn on_loss(&mut self) {
        if self.core.may_reduce() {
            let half = self.core.cwnd / 2.0;
            self.cut_to(half);
        }
    }
    /// Growth by `inc` bytes in congestion avoidance, or Reno slow start below ssthresh; only
    /// while the window is the limit (RFC 7661).
    #[inline]
    pub fn grow(&mut self, acked: u64, inc: f64) {
        if acked == 0 || !self.core.cwnd_limited {
            return;
        }
        if self.core.in_slow_start() {
            self.core.increase(acked);
        } else {
            self.core.cwnd = (self.core.cwnd + inc).min(self.core.max_cwnd);
        }
    }
}

/// The subflows as (w_r, rtt_r, active), `me` replaced by its own window and RTT sample.
pub fn each<'a>(sib: &'a Siblings, w: &'a MpWindow, ev: &'a AckEvent) -> impl Iterator<Item = (f64, f64, bool)> + 'a {
    let own_rtt = ev.rtt as f64 * 1e-12;
    sib.all.iter().enumerate().map(move |(j, v)| {
        if j == sib.me {
            let rtt = if v.srtt > 0.0 { v.srtt } else { own_rtt };
            (w.core.cwnd, rtt.max(1e-12), true)
        } else {
            (v.cwnd, if v.srtt > 0.0 { v.srtt } else { w.base_rtt }, v.active)
        }
    })
}

/// w_total: the windows of the active subflows (bytes).
pub fn w_total(sib: &Siblings, w: &MpWindow, ev: &AckEvent) -> f64 {
    each(sib, w, ev).filter(|x| x.2).map(|x| x.0).sum()
}

/// RFC 6356 §3 (LIA): a = w_total · max_r(w_r/rtt_r²) / (Σ_r w_r/rtt_r)², and the increase of
/// subflow s for `acked` bytes: min(a·acked·MSS/w_total, acked·MSS/w_s).
pub fn lia_increase(sib: &Siblings, w: &MpWindow, ev: &AckEvent) -> f64 {
    let (mut total, mut best, mut sum) = (0.0, 0.0f64, 0.0);
    for (wr, rtt, active) in each(sib, w, ev) {
        if active {
            total += wr;
            best = best.max(wr / (rtt * rtt));
            sum += wr / rtt;
        }
    }
    let a = total * best / (sum * sum);
    let acked = ev.acked_bytes as f64;
    (a * acked * w.mss() / total).min(acked * w.mss() / w.core.cwnd)
}

/// A single-path use of a coupled law: the connection is this one subflow.
pub fn alone(cwnd: f64) -> [SubflowView; 1] {
    [SubflowView { cwnd, srtt: 0.0, active: true }]
}
