//! DCTCP (RFC 8257) on top of the shared NewReno core (`reno::RenoCore`).
//!
//! α is re-estimated once per window of data (RFC 8257 §3.3 steps 1–7): bytes acknowledged and
//! bytes acknowledged with ECE are counted until the cumulative ACK passes `window_end`
//! (snd_nxt at the previous estimate). On the first ECE of a window the window is cut to
//! cwnd·(1 − α/2) (§3.3 step 9, at most once per window as RFC 3168 §6.1.2), using the α in force
//! at that moment. Everything else — slow start, additive increase, loss halving, RTO — is Reno's.
//!
//! `ai_mss_per_rtt` < 1 gives the TBTCP paper's "DCTCP with RAI" variant (see `tbtcp.rs`,
//! registered as `dctcp-rai`).

use serde::{Deserialize, Serialize};

use super::params::cc_params;
use super::params::{check, init_within_max, ParamSet, FRACTION, GAIN, INIT_WITHIN_MAX, MSS, POS_MSS};
use super::reno::{RenoCore, RenoParams};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps};
use crate::schema::{Range, Type};
use crate::time::Time;

/// Which reading of DCTCP to run.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Law {
    /// RFC 8257 §3.3 as written: a window closes when SND.UNA > WindowEnd, after the ACK's cut
    /// decision; slow start grows by at most one MSS per ACK (RFC 5681 eq. (2)).
    #[default]
    Rfc,
    /// The law of the Linux testbed's eBPF controller (bpf/cc_math.h, docs/testbed.md "Test
    /// vectors"), as Linux's dctcp: a window closes when snd_una ≥ WindowEnd (`!before()`), α is
    /// updated before the ACK's cut, and slow start grows by all bytes acknowledged.
    Linux,
}

cc_params! {
    /// DCTCP parameters.
    pub struct DctcpParams {
        /// EWMA gain g of α (dimensionless). RFC 8257 §3.3 / §4.2: 1/16.
        g: f64 = 1.0 / 16.0, Type::Number, GAIN,
            unit "", symbol "g", source "RFC 8257 §4.2: 1/16";
        /// Initial α (dimensionless). RFC 8257 §3.3: 1 (conservative; Linux dctcp_alpha_on_init).
        init_alpha: f64 = 1.0, Type::Number, FRACTION,
            unit "", symbol "α", source "RFC 8257 §3.3: 1";
        /// Initial window (MSS). RFC 6928: 10.
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// Additive increase in congestion avoidance (MSS per RTT). Reno: 1 (RFC 5681 eq. (3)).
        ai_mss_per_rtt: f64 = 1.0, Type::Number, POS_MSS,
            unit "MSS/RTT", symbol "", source "RFC 5681 eq. (3): 1";
        /// Window ceiling (MSS), 0 = unbounded.
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "none (0 = unbounded)";
        /// Which reading of DCTCP to run (`Law`): RFC 8257 as written or the Linux testbed's.
        law: Law = Law::Rfc, Type::Choice(&["rfc", "linux"]), Range::ANY,
            unit "", symbol "", source "RFC 8257 (rfc)", alias "variant";
    }
    rules {
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "dctcp",
    source: "DCTCP: RFC 8257",
    params: ParamSet::of::<DctcpParams>(),
    build: |p, at, c| Ok(Box::new(Dctcp::new(check("dctcp", p, at)?, c))),
    caps: Caps::DEFAULT,
};

/// DCTCP's α estimator (RFC 8257 §3.3 steps 1–7), shared with TBTCP-style senders.
#[derive(Clone, Debug)]
pub struct AlphaEstimator {
    pub alpha: f64,
    pub g: f64,
    /// DCTCP.WindowEnd: the estimate is refreshed when snd_una passes it.
    pub window_end: u64,
    pub bytes_acked: u64,
    pub bytes_marked: u64,
    /// Close a window already when snd_una reaches WindowEnd (Linux), not only when it passes it
    /// (RFC 8257).
    pub close_at_end: bool,
}

impl AlphaEstimator {
    pub fn new(g: f64, alpha: f64) -> Self {
        AlphaEstimator { alpha, g, window_end: 0, bytes_acked: 0, bytes_marked: 0, close_at_end: false }
    }

    /// Feed one ACK. Returns true when α was updated (end of an observation window).
    #[inline]
    pub fn on_ack(&mut self, ev: &AckEvent) -> bool {
        self.bytes_acked += ev.acked_bytes; // step 2: BytesAcked += acked
        if ev.ecn {
            self.bytes_marked += ev.acked_bytes; // step 3: if ECE, BytesMarked += acked
        }
        if ev.snd_una < self.window_end || (ev.snd_una == self.window_end && !self.close_at_end) {
            return false; // step 4: SND.UNA ≤ WindowEnd → stop (Linux: SND.UNA < WindowEnd)
        }
        let f = if self.bytes_acked > 0 { self.bytes_marked as f64 / self.bytes_acked as f64 } else { 0.0 }; // step 5: M = marked/acked
        self.alpha = self.alpha * (1.0 - self.g) + self.g * f; // step 6: α = α·(1 − g) + g·M
        self.window_end = ev.snd_nxt; // step 7: WindowEnd = SND.NXT, counters reset
        self.bytes_acked = 0;
        self.bytes_marked = 0;
        true
    }
}

/// DCTCP sender.
pub struct Dctcp {
    pub core: RenoCore,
    pub est: AlphaEstimator,
    pub law: Law,
}

impl Dctcp {
    pub fn new(p: DctcpParams, ctx: &CcContext) -> Self {
        let rp = RenoParams {
            init_cwnd_mss: p.init_cwnd_mss,
            init_ssthresh_mss: 0.0,
            ai_mss_per_rtt: p.ai_mss_per_rtt,
            max_cwnd_mss: p.max_cwnd_mss,
        };
        let est = AlphaEstimator { close_at_end: p.law == Law::Linux, ..AlphaEstimator::new(p.g, p.init_alpha) };
        Dctcp { core: RenoCore::new(&rp, ctx), est, law: p.law }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.core.observe(ev);
        if self.law == Law::Linux {
            self.est.on_ack(ev); // α first: a cut on this ACK uses the window just closed
            if ev.ecn {
                if self.core.may_reduce() {
                    let cut = self.core.cwnd * (1.0 - self.est.alpha / 2.0);
                    self.core.reduce_to(cut);
                }
            } else if self.core.in_slow_start() {
                self.core.slow_start_all(ev.acked_bytes);
            } else {
                self.core.increase(ev.acked_bytes);
            }
            return;
        }
        if ev.ecn && self.core.may_reduce() {
            // RFC 8257 §3.3 step 9: cwnd = cwnd·(1 − α/2), once per window (recover = snd_nxt).
            let cut = self.core.cwnd * (1.0 - self.est.alpha / 2.0);
            self.core.reduce_to(cut);
        } else if !ev.ecn {
            self.core.increase(ev.acked_bytes); // Reno growth on unmarked ACKs
        }
        self.est.on_ack(ev);
    }
    fn on_nack(&mut self, _now: Time) {
        self.core.on_loss(); // RFC 8257 §3.4: loss handled as in standard TCP (halve)
    }
    fn on_timeout(&mut self, _now: Time) {
        self.core.on_rto();
    }
    fn in_slow_start(&self) -> bool {
        self.core.in_slow_start()
    }
    fn cwnd(&self) -> f64 {
        self.core.cwnd
    }
    fn pacing_rate(&self) -> f64 {
        f64::INFINITY
    }
    fn on_start(&mut self, snd_una: u64, snd_nxt: u64) {
        // Linux dctcp_init: the first observation window ends at snd_nxt; a first ECE may cut at once.
        self.est.window_end = snd_nxt;
        self.core.recover = snd_una;
        self.core.snd_una = snd_una;
        self.core.snd_nxt = snd_nxt;
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.est.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;

    #[test]
    fn alpha_after_one_window_with_quarter_marked() {
        let mut d = Dctcp::new(DctcpParams::default(), &ctx());
        // window_end starts at 0; the first ACK closes an (empty-history) window immediately, so
        // start from a known state: α = 1, WindowEnd = 8000.
        d.est.window_end = 8000;
        // 8 ACKs of 1000 B, 2 of them marked: F = 2000/8000 = 0.25; the 8th ACK
        // has snd_una = 8000 (not > WindowEnd) and the 9th (unmarked) closes the window.
        for i in 0..8u64 {
            let ecn = i == 2 || i == 5;
            d.est.on_ack(&ack(i, 1000, 1000 * (i + 1), 16_000, 10, ecn));
        }
        assert_eq!(d.est.alpha, 1.0); // not yet updated
        d.est.on_ack(&ack(9, 0, 8001, 16_000, 10, false));
        // α = 1·(1 − 1/16) + 0.25/16 = 0.9375 + 0.015625 = 0.953125
        let expect = 1.0 - 1.0 / 16.0 + 0.25 / 16.0;
        assert!((d.est.alpha - expect).abs() < 1e-15);
        assert!((expect - 0.953125).abs() < 1e-15);
        assert_eq!(d.est.window_end, 16_000);
        // a window with no marks: α = 0.953125·15/16 = 0.89355...
        d.est.on_ack(&ack(10, 8000, 16_001, 24_000, 10, false));
        assert!((d.est.alpha - 0.953125 * 15.0 / 16.0).abs() < 1e-15);
    }

    #[test]
    fn cut_on_first_ece_of_a_window_only() {
        let mut d = Dctcp::new(DctcpParams { init_cwnd_mss: 40.0, ..Default::default() }, &ctx());
        d.est.alpha = 0.5;
        d.est.window_end = 100_000;
        // first ECE: cwnd = 40 000·(1 − 0.5/2) = 30 000
        d.on_ack(&ack(1, 1000, 1000, 40_000, 10, true));
        assert_eq!(d.cwnd(), 30_000.0);
        assert_eq!(d.core.ssthresh, 30_000.0);
        // further ECEs before snd_una reaches 40 000 (recover): no cut, no growth
        d.on_ack(&ack(2, 1000, 2000, 40_000, 10, true));
        assert_eq!(d.cwnd(), 30_000.0);
        // unmarked ACK: congestion avoidance, +1000·1000/30 000
        d.on_ack(&ack(3, 1000, 3000, 40_000, 10, false));
        assert!((d.cwnd() - (30_000.0 + 1e6 / 30_000.0)).abs() < 1e-9);
        // after the recover point an ECE cuts again with α = 0.5: w·0.75
        d.on_ack(&ack(4, 37_000, 40_000, 70_000, 10, false));
        let w = d.cwnd();
        d.on_ack(&ack(5, 1000, 41_000, 70_000, 10, true));
        assert!((d.cwnd() - w * 0.75).abs() < 1e-9);
    }

    #[test]
    fn first_ack_closes_the_initial_window() {
        // WindowEnd starts at SND.NXT = 0 (RFC 8257 §3.3 initialisation), so the very first ACK
        // ends an observation window: marked → cut with α = 1 (halve), then α = 15/16 + 1/16 = 1.
        let mut d = Dctcp::new(DctcpParams::default(), &ctx());
        d.on_ack(&ack(1, 1000, 1000, 10_000, 10, true));
        assert_eq!(d.cwnd(), 5000.0); // 10 000·(1 − 1/2)
        assert_eq!(d.est.alpha, 1.0);
        assert_eq!(d.est.window_end, 10_000);
        // unmarked first window instead: α = 15/16
        let mut d = Dctcp::new(DctcpParams::default(), &ctx());
        d.on_ack(&ack(1, 1000, 1000, 10_000, 10, false));
        assert_eq!(d.est.alpha, 0.9375);
        assert_eq!(d.cwnd(), 11_000.0); // slow start +1 MSS
    }

    #[test]
    fn linux_variant_updates_alpha_before_the_cut_and_closes_at_window_end() {
        let p = DctcpParams { law: Law::Linux, init_cwnd_mss: 20.0, ..Default::default() };
        let mut d = Dctcp::new(p, &ctx());
        d.on_start(0, 4000);
        // slow start by all bytes acked: +2000 for a 2-packet ACK (the RFC variant adds 1 MSS)
        d.on_ack(&ack(1, 2000, 2000, 24_000, 10, false));
        assert_eq!(d.cwnd(), 22_000.0);
        assert_eq!(d.probe("alpha"), Some(1.0)); // 2000 < WindowEnd 4000: window still open
                                                 // snd_una = WindowEnd closes the window (RFC: only when passed): 4000 acked, 2000 marked,
                                                 // α = 15/16 + 0.5/16 = 0.96875, and the cut on this ACK uses it: 22 000·(1 − α/2).
        d.on_ack(&ack(2, 2000, 4000, 26_000, 10, true));
        assert_eq!(d.probe("alpha"), Some(0.96875));
        assert!((d.cwnd() - 22_000.0 * (1.0 - 0.96875 / 2.0)).abs() < 1e-9);
        // the same two ACKs with the RFC law: the window has not closed, the cut uses α = 1
        let mut r = Dctcp::new(DctcpParams { init_cwnd_mss: 20.0, ..Default::default() }, &ctx());
        r.on_start(0, 4000);
        r.on_ack(&ack(1, 2000, 2000, 24_000, 10, false));
        r.on_ack(&ack(2, 2000, 4000, 26_000, 10, true));
        assert_eq!(r.probe("alpha"), Some(1.0));
        assert_eq!(r.cwnd(), 10_500.0);
    }

    #[test]
    fn alpha_one_halves_and_cut_floors_at_two_mss() {
        let mut d = Dctcp::new(DctcpParams { init_cwnd_mss: 3.0, ..Default::default() }, &ctx());
        d.est.window_end = 1_000_000;
        // α = 1 (initial): 3000·(1 − 1/2) = 1500 → floored at 2 MSS = 2000
        d.on_ack(&ack(1, 1000, 1000, 3000, 10, true));
        assert_eq!(d.cwnd(), 2000.0);
    }
}
