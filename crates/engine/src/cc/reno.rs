//! TCP NewReno (RFC 5681 congestion control, RFC 6582 recovery), and the shared window core
//! (`RenoCore`) that DCTCP, DCTCP-RAI and TBTCP build on.
//!
//! Window in bytes. One congestion response per window of data (NewReno's `recover` point,
//! RFC 6582 §3.2 step 1): after a reduction, further NACKs/ECEs are ignored until the cumulative
//! ACK reaches the `snd_nxt` recorded at the reduction.

use super::params::cc_params;
use super::params::{check, init_within_max, ParamSet, INIT_WITHIN_MAX, MSS, POS_MSS};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps};
use crate::schema::Type;
use crate::time::Time;

cc_params! {
    /// NewReno parameters.
    pub struct RenoParams {
        /// Initial window (MSS). RFC 6928 §2: IW = 10 segments (the Linux default; RFC 5681 §3.1
        /// allows at most 4 for MSS ≤ 1095 B).
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928 §2: 10 segments";
        /// Initial slow-start threshold (MSS); 0 means "arbitrarily high" (RFC 5681 §3.1).
        init_ssthresh_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "ssthresh", source "RFC 5681 §3.1: arbitrarily high (0)";
        /// Additive increase in congestion avoidance (MSS per RTT). RFC 5681 §3.1 eq. (3): 1.
        ai_mss_per_rtt: f64 = 1.0, Type::Number, POS_MSS,
            unit "MSS/RTT", symbol "", source "RFC 5681 §3.1 eq. (3): 1";
        /// Upper bound of the window (MSS); 0 means unbounded (RFC 5681 has none; receive window only).
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "RFC 5681: none (0 = unbounded)";
    }
    rules {
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "reno",
    source: "TCP NewReno: RFC 5681, RFC 6582",
    params: ParamSet::of::<RenoParams>(),
    build: |p, at, c| Ok(Box::new(Reno::new(check("reno", p, at)?, c))),
    caps: Caps::LINUX_LOSS_BASED,
};

/// The shared Reno window machinery: slow start, additive increase, once-per-window reductions,
/// loss halving and RTO collapse. Owned by Reno, DCTCP, DCTCP-RAI and TBTCP.
#[derive(Clone, Debug)]
pub struct RenoCore {
    /// Congestion window (bytes).
    pub cwnd: f64,
    /// Slow-start threshold (bytes).
    pub ssthresh: f64,
    /// MSS (bytes).
    pub mss: f64,
    /// Congestion-avoidance increase (MSS per RTT).
    pub ai_mss_per_rtt: f64,
    /// Window ceiling (bytes).
    pub max_cwnd: f64,
    /// NewReno `recover`: snd_nxt when the window was last reduced (RFC 6582 §3.2).
    pub recover: u64,
    /// Latest snd_una / snd_nxt seen on an ACK (NACK and RTO callbacks carry no sequence numbers).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The window was the limit at the last transmission (from the latest ACK).
    pub cwnd_limited: bool,
}

impl RenoCore {
    pub fn new(p: &RenoParams, ctx: &CcContext) -> Self {
        let mss = ctx.mss;
        let ssthresh = if p.init_ssthresh_mss > 0.0 { p.init_ssthresh_mss * mss } else { f64::INFINITY };
        let max_cwnd = if p.max_cwnd_mss > 0.0 { p.max_cwnd_mss * mss } else { f64::INFINITY };
        RenoCore {
            cwnd: (p.init_cwnd_mss * mss).min(max_cwnd),
            ssthresh,
            mss,
            ai_mss_per_rtt: p.ai_mss_per_rtt,
            max_cwnd,
            recover: 0,
            snd_una: 0,
            snd_nxt: 0,
            cwnd_limited: true,
        }
    }

    /// Record the sequence state carried by an ACK.
    #[inline]
    pub fn observe(&mut self, ev: &AckEvent) {
        self.snd_una = ev.snd_una;
        self.snd_nxt = self.snd_nxt.max(ev.snd_nxt);
        self.cwnd_limited = ev.cwnd_limited;
    }

    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 6582 §3.2: a new congestion response is allowed only once the cumulative ACK has covered
    /// the data outstanding at the previous response.
    #[inline]
    pub fn may_reduce(&self) -> bool {
        self.snd_una >= self.recover
    }

    /// Window growth for `acked` newly acknowledged bytes.
    #[inline]
    pub fn increase(&mut self, acked: u64) {
        // RFC 7661 / Linux tcp_is_cwnd_limited: no growth while the window is not the limit
        if acked == 0 || !self.cwnd_limited {
            return;
        }
        let acked = acked as f64;
        if self.in_slow_start() {
            // RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS), not beyond ssthresh in one step.
            self.cwnd = (self.cwnd + acked.min(self.mss)).min(self.ssthresh.max(self.cwnd));
        } else {
            // RFC 5681 §3.1 eq. (3), byte form: cwnd += ai·SMSS·N/cwnd  (≈ ai MSS per RTT).
            self.cwnd += self.ai_mss_per_rtt * self.mss * acked / self.cwnd;
        }
        self.cwnd = self.cwnd.min(self.max_cwnd);
    }

    /// Linux slow start (tcp_slow_start): grow by every acknowledged byte, up to ssthresh —
    /// also only while the window is the limit.
    #[inline]
    pub fn slow_start_all(&mut self, acked: u64) {
        if self.cwnd_limited {
            self.cwnd = (self.cwnd + acked as f64).min(self.ssthresh).min(self.max_cwnd);
        }
    }

    /// Set the window to `new_cwnd` (= ssthresh) as one congestion response and open the recovery
    /// period. Floor 2 MSS (RFC 5681 eq. (4) ssthresh floor; Linux dctcp_ssthresh floor).
    #[inline]
    pub fn reduce_to(&mut self, new_cwnd: f64) {
        self.ssthresh = new_cwnd.max(2.0 * self.mss);
        self.cwnd = self.cwnd.min(self.ssthresh);
        self.recover = self.snd_nxt;
    }

    /// Loss detected by NACK / fast retransmit: halve, once per window (RFC 5681 eq. (4) with
    /// FlightSize ≈ cwnd, RFC 6582 recovery point).
    #[inline]
    pub fn on_loss(&mut self) {
        if self.may_reduce() {
            let half = self.cwnd / 2.0; // RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS)
            self.reduce_to(half);
        }
    }

    /// Retransmission timeout: ssthresh = max(cwnd/2, 2 MSS), cwnd = 1 MSS (RFC 5681 §3.1, eq. (4)
    /// and "LW = 1 full-sized segment").
    #[inline]
    pub fn on_rto(&mut self) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0 * self.mss); // eq. (4)
        self.cwnd = self.mss; // loss window
        self.recover = self.snd_nxt;
    }
}

/// TCP NewReno.
pub struct Reno {
    pub core: RenoCore,
}

impl Reno {
    pub fn new(p: RenoParams, ctx: &CcContext) -> Self {
        Reno { core: RenoCore::new(&p, ctx) }
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.core.observe(ev);
        self.core.increase(ev.acked_bytes);
    }
    fn on_nack(&mut self, _now: Time) {
        self.core.on_loss();
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
        f64::INFINITY // ACK-clocked, unpaced
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn ctx() -> CcContext {
        crate::cc::test_ctx(10e-6, 1048.0)
    }

    /// A plain ACK for tests: `acked` new bytes, given snd_una/snd_nxt.
    pub fn ack(now: Time, acked: u64, una: u64, nxt: u64, rtt: Time, ecn: bool) -> AckEvent<'static> {
        AckEvent {
            now,
            acked_bytes: acked,
            seq: una.saturating_sub(acked),
            snd_una: una,
            snd_nxt: nxt,
            rtt,
            ecn,
            int: &[],
            max_hop_delay: 0,
            hops: 0,
            cwnd_limited: true,
        }
    }

    #[test]
    fn slow_start_then_one_mss_per_rtt() {
        let mut r = Reno::new(RenoParams { init_ssthresh_mss: 12.0, ..Default::default() }, &ctx());
        assert_eq!(r.cwnd(), 10_000.0);
        // slow start: +min(N, MSS) per ACK: 10 000 + 1000 = 11 000
        r.on_ack(&ack(1, 1000, 1000, 20_000, 10, false));
        assert_eq!(r.cwnd(), 11_000.0);
        // an ACK of 3000 bytes adds only 1 MSS, capped at ssthresh 12 000
        r.on_ack(&ack(2, 3000, 4000, 20_000, 10, false));
        assert_eq!(r.cwnd(), 12_000.0);
        // congestion avoidance: 12 ACKs of 1 MSS each add 1000·1000/cwnd ≈ 1 MSS in total
        for i in 0..12 {
            r.on_ack(&ack(3 + i, 1000, 5000 + 1000 * i, 30_000, 10, false));
        }
        // sum_{i} 1e6/cwnd_i with cwnd from 12 000 growing: between 12·1e6/13 000 and 1000
        assert!(r.cwnd() > 12_000.0 + 12.0 * 1e6 / 13_000.0 && r.cwnd() < 13_000.0, "{}", r.cwnd());
        // a duplicate ACK changes nothing
        let w = r.cwnd();
        r.on_ack(&ack(20, 0, 17_000, 30_000, 10, false));
        assert_eq!(r.cwnd(), w);
    }

    #[test]
    fn no_growth_while_the_window_is_not_the_limit() {
        // RFC 7661: a sender held back by its NIC (cwnd_limited = false) keeps its window.
        let mut c = Reno::new(RenoParams::default(), &ctx());
        let w = c.cwnd();
        c.on_ack(&AckEvent { cwnd_limited: false, ..ack(0, 1000, 1000, 11_000, 10_000_000, false) });
        assert_eq!(c.cwnd(), w);
        c.on_ack(&ack(0, 1000, 2000, 12_000, 10_000_000, false));
        assert_eq!(c.cwnd(), w + 1000.0); // slow start resumes once the window limits again
    }

    #[test]
    fn nack_halves_once_per_window_and_rto_collapses() {
        let mut r = Reno::new(RenoParams { init_cwnd_mss: 20.0, ..Default::default() }, &ctx());
        r.on_ack(&ack(1, 0, 5000, 25_000, 10, false)); // snd_una 5000, snd_nxt 25 000
        r.on_nack(2);
        assert_eq!(r.cwnd(), 10_000.0); // 20 000 / 2
        assert_eq!(r.core.ssthresh, 10_000.0);
        r.on_nack(3); // same window (snd_una 5000 < recover 25 000): ignored
        assert_eq!(r.cwnd(), 10_000.0);
        r.on_ack(&ack(4, 20_000, 25_000, 35_000, 10, false)); // recover point reached
        let w = r.cwnd(); // CA (cwnd = ssthresh): 10 000 + 1·1000·20 000/10 000 = 12 000
        assert_eq!(w, 12_000.0);
        r.on_nack(5);
        assert_eq!(r.cwnd(), 6_000.0);
        // the halving never goes below 2 MSS
        for _ in 0..5 {
            r.core.recover = 0;
            r.on_nack(6);
        }
        assert_eq!(r.cwnd(), 2000.0);
        // RTO: ssthresh = max(cwnd/2, 2 MSS) = 2000, cwnd = 1 MSS
        r.on_timeout(7);
        assert_eq!(r.cwnd(), 1000.0);
        assert_eq!(r.core.ssthresh, 2000.0);
    }

    #[test]
    fn parameters_are_read_from_json() {
        let mut r = super::super::build("reno", &serde_json::json!({"init_cwnd_mss": 3.0}), &ctx()).unwrap();
        assert_eq!(r.cwnd(), 3000.0);
        r.on_timeout(0);
        assert_eq!(r.cwnd(), 1000.0);
        let t = super::super::build("timely", &serde_json::json!({"hai_step_bps": 1e8, "t_low_us": 10.0}), &ctx());
        assert!(t.is_ok());
        let bad = super::super::build("dcqcn", &serde_json::json!({"g": "x"}), &ctx());
        assert!(bad.is_err());
    }
}
