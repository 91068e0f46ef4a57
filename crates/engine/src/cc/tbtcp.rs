//! TBTCP sender (tbtcp-tiny-buffer-tcp.txt §3, §4.3, §6) and the paper's "DCTCP with RAI"
//! variant (§5, Figures 6–9), both on the shared NewReno core.
//!
//! * QCD (Queue Cancelling Decrease, §3 / §4.3 / §6): every ACK carrying ECE reduces cwnd by
//!   S MSS, never more than 50% of cwnd: cwnd ← cwnd − min(S·MSS, cwnd/2). There is no
//!   once-per-window limit: the switch marks exactly q packets per RTT (p(q) = q/(BDP+q)), so the
//!   per-mark decrements add up to the queue. §5 ("small flow fairness", factor 3): QCD only
//!   acts when the window is greater than 2 (MSS).
//! * RAI (Reduced Additive Increase, §3 / §4.3): after slow start, cwnd grows by α MSS per RTT
//!   (α = 0.1: one MSS per 10 RTTs) instead of Reno's 1.
//! * Slow start ends at the first ECE (§4.3: "after the slow start stage (i.e., when the flow
//!   receives its first ECN)"); slow start, loss recovery and RTO are DCTCP's = Reno's (§4.3:
//!   "Other features, such as slow start and retransmission on packet loss, remain the same as
//!   DCTCP").
//! * `dctcp-rai` (§5): DCTCP's α estimator and cwnd·(1 − α/2) cut, with RAI in place of +1 MSS.

use serde::{Deserialize, Serialize};

use super::dctcp::{Dctcp, DctcpParams};
use super::params::{cc_params, check, init_within_max, ParamSet, FRACTION, GAIN, INIT_WITHIN_MAX, MSS, POS_MSS};
use super::reno::{RenoCore, RenoParams};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps};
use crate::schema::{Range, Type};
use crate::time::Time;

/// Which reading of TBTCP's QCD to run.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Law {
    /// §6: each ECE removes min(S·MSS, cwnd/2), while cwnd > `qcd_min_cwnd_mss`.
    #[default]
    Paper,
    /// The law of the Linux testbed's eBPF controller (bpf/cc_math.h, docs/testbed.md "Test
    /// vectors"): each ECE removes S·MSS, but the window never falls below half the window at the
    /// start of the current RTT (a round ends when snd_una reaches the snd_nxt of its start) nor
    /// below `qcd_min_cwnd_mss`; slow start grows by all bytes acknowledged.
    Linux,
}

cc_params! {
    /// TBTCP sender parameters.
    pub struct TbtcpParams {
        /// Curve scaling factor S (MSS removed per ECE). §6 Table 1: S ∈ {1,2,3,4} paired with the
        /// switch's P_max {0.7, 0.35, 0.25, 0.2}. Default 1 = the ideal curve of §3/§4.3 ("reduce its
        /// cwnd by one MSS"); the switch's RED profile must be configured to match S.
        s: f64 = 1.0, Type::Number, Range::above(0.0, 1000.0),
            unit "MSS", symbol "S", source "TBTCP §3/§4.3: 1 (the ideal curve)";
        /// RAI α (MSS per RTT after slow start). §4.3: 0.1 (one MSS per 10 RTTs); §5 warns α ≥ 0.5
        /// loses fairness.
        rai_alpha: f64 = 0.1, Type::Number, Range::above(0.0, 100.0),
            unit "MSS/RTT", symbol "α", source "TBTCP §4.3: 0.1";
        /// QCD acts only while cwnd > this many MSS. §5 small-flow fairness, factor 3: 2.
        qcd_min_cwnd_mss: f64 = 2.0, Type::Number, MSS,
            unit "MSS", symbol "", source "TBTCP §5: 2";
        /// Initial window (MSS). Same as DCTCP/Linux: 10 (RFC 6928).
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// Window ceiling (MSS), 0 = unbounded.
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "none (0 = unbounded)";
        /// Which reading of TBTCP to run (`Law`): the paper's §6 or the Linux testbed's.
        law: Law = Law::Paper, Type::Choice(&["paper", "linux"]), Range::ANY,
            unit "", symbol "", source "TBTCP §6 (paper)", alias "variant";
    }
    rules {
        "qcd_min_cwnd_mss": |p| p.max_cwnd_mss == 0.0 || p.qcd_min_cwnd_mss < p.max_cwnd_mss,
            "must be below max_cwnd_mss (0 = unbounded), else QCD never acts";
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "tbtcp",
    source: "TBTCP (tiny-buffer TCP): §3, §4.3, §6",
    params: ParamSet::of::<TbtcpParams>(),
    build: |p, at, c| Ok(Box::new(Tbtcp::new(check("tbtcp", p, at)?, c))),
    caps: Caps::DEFAULT,
};

/// TBTCP sender: QCD + RAI.
pub struct Tbtcp {
    pub core: RenoCore,
    pub s: f64,
    pub qcd_min_cwnd: f64,
    pub law: Law,
    /// Linux law: the current round ends when snd_una reaches this.
    round_end: u64,
    /// Linux law: half the window at the start of the current round.
    round_floor: f64,
}

impl Tbtcp {
    pub fn new(p: TbtcpParams, ctx: &CcContext) -> Self {
        let rp = RenoParams {
            init_cwnd_mss: p.init_cwnd_mss,
            init_ssthresh_mss: 0.0,
            ai_mss_per_rtt: p.rai_alpha, // RAI: α MSS per RTT in congestion avoidance
            max_cwnd_mss: p.max_cwnd_mss,
        };
        let core = RenoCore::new(&rp, ctx);
        let round_floor = core.cwnd / 2.0;
        Tbtcp { core, s: p.s, qcd_min_cwnd: p.qcd_min_cwnd_mss * ctx.mss, law: p.law, round_end: 0, round_floor }
    }

    fn on_ack_linux(&mut self, ev: &AckEvent) {
        let c = &mut self.core;
        if ev.snd_una >= self.round_end {
            self.round_end = ev.snd_nxt;
            self.round_floor = c.cwnd / 2.0;
        }
        if ev.ecn {
            let cut = self.s * c.mss;
            let floor = self.round_floor.max(self.qcd_min_cwnd);
            c.cwnd = if c.cwnd > floor + cut { c.cwnd - cut } else { c.cwnd.min(floor) };
            c.cwnd = c.cwnd.max(self.qcd_min_cwnd);
            c.ssthresh = c.cwnd; // the first mark ends slow start
        } else if c.in_slow_start() {
            c.slow_start_all(ev.acked_bytes);
        } else {
            c.increase(ev.acked_bytes); // RAI
        }
    }
}

impl CongestionControl for Tbtcp {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.core.observe(ev);
        if self.law == Law::Linux {
            return self.on_ack_linux(ev);
        }
        if ev.ecn {
            let c = &mut self.core;
            if c.cwnd > self.qcd_min_cwnd {
                // §6: QCD window adjustment = min(S·MSS, cwnd/2)
                c.cwnd -= (self.s * c.mss).min(c.cwnd / 2.0);
            }
            // §4.3: the first ECN ends slow start; from then on RAI applies.
            c.ssthresh = c.cwnd;
        } else {
            self.core.increase(ev.acked_bytes); // slow start, or RAI: += α·MSS·acked/cwnd
        }
    }
    fn on_nack(&mut self, _now: Time) {
        self.core.on_loss(); // as DCTCP: standard halving on loss
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
        self.round_end = snd_nxt;
        self.core.snd_una = snd_una;
        self.core.snd_nxt = snd_nxt;
    }
}

cc_params! {
    /// Parameters of "DCTCP with RAI" (§5): DCTCP's decrease, RAI's increase.
    pub struct DctcpRaiParams {
        /// DCTCP EWMA gain g. RFC 8257: 1/16.
        g: f64 = 1.0 / 16.0, Type::Number, GAIN,
            unit "", symbol "g", source "RFC 8257: 1/16";
        /// Initial DCTCP α. RFC 8257: 1.
        init_alpha: f64 = 1.0, Type::Number, FRACTION,
            unit "", symbol "α", source "RFC 8257: 1";
        /// RAI α (MSS per RTT in congestion avoidance). TBTCP §4.3: 0.1.
        rai_alpha: f64 = 0.1, Type::Number, Range::above(0.0, 100.0),
            unit "MSS/RTT", symbol "α_RAI", source "TBTCP §4.3: 0.1";
        /// Initial window (MSS): 10 (RFC 6928).
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// Window ceiling (MSS), 0 = unbounded.
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "none (0 = unbounded)";
    }
    rules {
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM_DCTCP_RAI: Algorithm = Algorithm {
    name: "dctcp-rai",
    source: "DCTCP with RAI: TBTCP paper §5",
    params: ParamSet::of::<DctcpRaiParams>(),
    build: |p, at, c| Ok(Box::new(dctcp_rai(check("dctcp-rai", p, at)?, c))),
    caps: Caps::DEFAULT,
};

/// Build the `dctcp-rai` controller: a DCTCP whose congestion-avoidance step is RAI's α.
pub fn dctcp_rai(p: DctcpRaiParams, ctx: &CcContext) -> Dctcp {
    Dctcp::new(
        DctcpParams {
            g: p.g,
            init_alpha: p.init_alpha,
            init_cwnd_mss: p.init_cwnd_mss,
            ai_mss_per_rtt: p.rai_alpha,
            max_cwnd_mss: p.max_cwnd_mss,
            law: Default::default(),
        },
        ctx,
    )
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;

    #[test]
    fn qcd_after_three_eces() {
        let mut t = Tbtcp::new(TbtcpParams { init_cwnd_mss: 20.0, ..Default::default() }, &ctx());
        // S = 1: every ECE removes exactly 1 MSS, no once-per-window limit: 20 000 − 3·1000
        for i in 0..3 {
            t.on_ack(&ack(i, 1000, 1000 * (i + 1), 20_000, 10, true));
        }
        assert_eq!(t.cwnd(), 17_000.0);
        assert!(!t.core.in_slow_start());
    }

    #[test]
    fn qcd_with_scaling_is_capped_at_half_and_stops_at_two_mss() {
        let mut t = Tbtcp::new(TbtcpParams { s: 4.0, init_cwnd_mss: 10.0, ..Default::default() }, &ctx());
        let mut w = vec![];
        for i in 0..4 {
            t.on_ack(&ack(i, 1000, 1000 * (i + 1), 20_000, 10, true));
            w.push(t.cwnd());
        }
        // 10 000 − min(4000, 5000) = 6000; 6000 − min(4000, 3000) = 3000;
        // 3000 − min(4000, 1500) = 1500; 1500 ≤ 2 MSS: QCD inactive → 1500
        assert_eq!(w, vec![6000.0, 3000.0, 1500.0, 1500.0]);
    }

    #[test]
    fn slow_start_until_first_ecn_then_rai_one_mss_per_ten_rtts() {
        let mut t = Tbtcp::new(TbtcpParams { init_cwnd_mss: 10.0, ..Default::default() }, &ctx());
        // slow start: +1 MSS per ACK
        for i in 0..11u64 {
            t.on_ack(&ack(i, 1000, 1000 * (i + 1), 100_000, 10, false));
        }
        assert_eq!(t.cwnd(), 21_000.0);
        // first ECN: QCD −1 MSS and exit slow start
        t.on_ack(&ack(20, 1000, 12_000, 100_000, 10, true));
        assert_eq!(t.cwnd(), 20_000.0);
        // 10 RTTs, 20 ACKs of 1 MSS each: per ACK w += 0.1·1000·1000/w, i.e. d(w²) ≈ 2·1e5 per
        // ACK, so after 200 ACKs w ≈ sqrt(20 000² + 200·2·1e5) = sqrt(4.4e8) = 20 976.2
        // (≈ +1 MSS in 10 RTTs; Reno would have added ≈ 10 MSS).
        for i in 0..200u64 {
            t.on_ack(&ack(100 + i, 1000, 13_000 + 1000 * i, 1_000_000, 10, false));
        }
        let expect = (4.4e8f64).sqrt();
        assert!((t.cwnd() - expect).abs() < 0.5, "{} vs {}", t.cwnd(), expect);
        assert!((t.cwnd() - 21_000.0).abs() < 30.0);
    }

    #[test]
    fn linux_variant_cuts_per_mark_down_to_half_the_round_start_window() {
        let p = TbtcpParams { law: Law::Linux, init_cwnd_mss: 10.0, ..Default::default() };
        let mut t = Tbtcp::new(p, &ctx());
        t.on_start(0, 10_000);
        // slow start by all bytes acked: +2000 for a 2-packet ACK
        t.on_ack(&ack(1, 2000, 2000, 12_000, 10, false));
        assert_eq!(t.cwnd(), 12_000.0);
        // round floor = 10 000/2 (set at init); marks remove 1 MSS each: 11 000, 10 000, …
        let mut w = vec![];
        for (i, una) in [3000, 4000, 5000, 6000, 7000, 8000, 9000, 9500].into_iter().enumerate() {
            t.on_ack(&ack(2 + i as u64, 1000, una, 12_000, 10, true));
            w.push(t.cwnd());
        }
        // … down to 6000; 6000 > 5000 + 1000 fails, so the next mark sets min(6000, 5000) = 5000
        // and later marks cannot go below the floor (the paper variant would keep cutting).
        assert_eq!(w, vec![11_000.0, 10_000.0, 9000.0, 8000.0, 7000.0, 6000.0, 5000.0, 5000.0]);
        // A new round (snd_una reaches the 10 000 stored at start) sets the floor to 2500: the
        // next mark cuts again.
        t.on_ack(&ack(20, 1000, 10_000, 20_000, 10, true));
        assert_eq!(t.cwnd(), 4000.0);
        assert!(!t.core.in_slow_start());
    }

    #[test]
    fn dctcp_rai_uses_dctcp_cut_and_rai_increase() {
        let mut d = dctcp_rai(DctcpRaiParams { init_cwnd_mss: 20.0, ..Default::default() }, &ctx());
        d.est.window_end = 1_000_000;
        // first ECE: α = 1 → 20 000·(1 − 1/2) = 10 000
        d.on_ack(&ack(1, 1000, 1000, 20_000, 10, true));
        assert_eq!(d.cwnd(), 10_000.0);
        // congestion avoidance with α_RAI = 0.1: one ACK adds 0.1·1000·1000/10 000 = 10 B
        d.on_ack(&ack(2, 1000, 2000, 20_000, 10, false));
        assert!((d.cwnd() - 10_010.0).abs() < 1e-9);
    }
}
