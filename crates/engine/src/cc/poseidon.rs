//! Poseidon (Wang et al., NSDI'23, §3, Algorithms 1–2), sender side.
//!
//! Signal: MPD, the maximum per-hop queueing delay on the forward path (`AckEvent::max_hop_delay`,
//! max-aggregated by switches, reflected by the receiver).
//!
//! ```text
//!  rate = cwnd·MTU/RTT, clamped to [min_rate, max_rate]
//!  T(rate) = p·(ln max_rate − ln rate)/(ln max_rate − ln min_rate) + k         (Eq. 3)
//!  U = exp(m·a·(T − MPD)/p), a = ln max_rate − ln min_rate, clamped to [min_md, max_mi]  (Eq. 4)
//!  MPD ≤ T: cwnd ← cwnd·(1 + (U − 1)·num_acked/cwnd)  per ACK                  (Alg. 1 line 5)
//!  MPD > T: if now − t_last_decrease > rtt: cwnd ← cwnd·U                      (Alg. 1 lines 6–7)
//!  clamp(cwnd, min_cwnd, max_cwnd); t_last_decrease = now if cwnd decreased   (Alg. 1 lines 17–19)
//!  pacing delay rtt/cwnd per packet when cwnd < 1                              (Alg. 1 lines 20–22)
//! ```
//! With T(r) = MPD, U = (r/rate)^m: the rate moves a fraction m of the way (in log space) toward
//! the rate whose target equals the measured delay (§3.3, Eq. 5).
//!
//! Timeout / fast recovery (Algorithm 2): retransmit_count += 1; at RETX_RESET_THRESHOLD
//! consecutive timeouts cwnd = min_cwnd, otherwise cwnd ← cwnd·min_md at most once per RTT;
//! a NACK (fast recovery) resets the count and applies cwnd·min_md at most once per RTT.
//!
//! Paper-silent choices: min_md/max_mi values (paper: parameters without values; we use the public
//! re-implementation's [0.4, 2.5]); min_rate default = max_rate·10⁻⁴ (Fig. 7(b): 0.02 G of 200 G);
//! max_rate default = host line rate; MTU = `ctx.wire_bytes`; RTT = latest sample (τ of the path
//! before the first one); initial window one host BDP; RETX_RESET_THRESHOLD 5. The window is in
//! packets (may be < 1), reported in bytes and never below 1 MSS (below that the pacing rate
//! limits).
//!
//! Brownfield (§5.5, option `brownfield`): with INT on only part of the path the signal becomes
//! max(MPD, e2e queueing − INT-measured queueing), where e2e queueing = RTT − the path's base RTT
//! and the INT-measured queueing is Σ over the ACK's INT records of qlen·8/rate (the queue each
//! INT hop reported). The paper does not say how the INT-measured part is obtained; this is our
//! choice, and needs the engine to push INT records only at INT-capable switches.
//!
//! Design variants (§5.6.1 ablation, App. C–D; each a named option, default = the paper's
//! evaluated Poseidon, so a scenario that names none runs Algorithm 1 as above):
//!
//! ```text
//!  target_scaling = "rate" (Eq. 3 of rate = cwnd·MTU/RTT) | "cwnd" (Eq. 3 of cwnd·MTU/τ, τ = the
//!      path's base RTT: the target scales with the window alone, as Swift's flow scaling; App. D Fig. 23)
//!  update = "distance" (Eq. 4) | "ratio" (Eq. 13: U = (T + m)/(MPD + m), T, MPD, m in µs; App. C Fig. 22)
//!  signal = "mpd" (§3.1) | "e2e" (RTT − τ: end-to-end queueing instead of MPD; §5.6.1 item 1)
//!  increase = "adaptive" (Alg. 1 line 5) | "additive" (AIMD: cwnd += ai·num_acked/cwnd, Swift's
//!      additive increase, decrease by U as before; §5.6.1 item 3)
//! ```
//! Paper-silent choices in the variants: "cwnd" keeps Eq. 3's log form and range (the paper's
//! Fig. 23 names only "scaling the target using the rate or congestion window"); Eq. 13's m reuses
//! the configured m, read in µs ("m ≥ 0", the symbol of Eq. 4); "e2e" uses the queueing part of
//! the RTT (the targets are queueing delays); ai = 1 packet per RTT (Swift's default); the U clamp
//! [min_md, max_mi] applies to every variant (Algorithm 1 clamps whatever U is).
//!
//! Reading of Eq. 4: the extracted paper text is garbled around m (§5.6.2 says "larger m values
//! ... slow down convergence", which would fit U = exp(a·(T − D)/(p·m))); we implement the
//! reference notes' U = exp(m·a·(T − MPD)/p) (m = 0.25 moves a quarter of the log distance).

use super::params::cc_params;
use super::params::{check, ParamSet, FACTOR, GAIN, POS_COUNT, POS_MSS, POS_US, RATE};
use super::{clamp, AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps, Header};
use crate::schema::{Range, Type};
use crate::time::{secs, Time};
use serde::{Deserialize, Serialize};

/// What Eq. 3's target scales with (`target_scaling`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    /// T(cwnd·MTU/RTT): the flow's rate (Eq. 3; default).
    #[default]
    Rate,
    /// T(cwnd·MTU/τ): the window alone, at the path's base RTT (App. D Fig. 23).
    Cwnd,
}

/// The update function U (`update`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Update {
    /// Eq. 4: exp(m·a·(T − MPD)/p), the distance of MPD from the target (default).
    #[default]
    Distance,
    /// Eq. 13: (T + m)/(MPD + m), the ratio of target to MPD (App. C Fig. 22).
    Ratio,
}

/// The delay compared with the target (`signal`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Signal {
    /// MPD, the maximum per-hop queueing delay (§3.1; default).
    #[default]
    Mpd,
    /// End-to-end queueing, RTT − τ (§5.6.1 ablation: "MPD instead of RTT" removed).
    E2e,
}

/// How the window grows while the delay is below the target (`increase`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Increase {
    /// Algorithm 1 line 5: by (U − 1)·num_acked (default).
    #[default]
    Adaptive,
    /// AIMD: by ai·num_acked/cwnd, ai packets per RTT (§5.6.1 ablation item 3).
    Additive,
}

cc_params! {
    /// Poseidon parameters.
    pub struct PoseidonParams {
        /// p (µs): target range above k, Eq. 3. Paper §5 / §5.6.2: 40.
        p_us: f64 = 40.0, Type::Number, POS_US,
            unit "µs", symbol "p", source "Poseidon §5 / §5.6.2: 40 µs";
        /// k (µs): minimum target (per-hop delay at max rate), Eq. 3. Paper §5 / §5.6.2: 2.
        k_us: f64 = 2.0, Type::Number, POS_US,
            unit "µs", symbol "k", source "Poseidon §5 / §5.6.2: 2 µs";
        /// m: update step, Eq. 4. Paper §5 / §5.6.2: 0.25.
        m: f64 = 0.25, Type::Number, GAIN,
            unit "", symbol "m", source "Poseidon §5 / §5.6.2: 0.25";
        /// Lower clamp of U and the timeout/fast-recovery factor (Alg. 1–2 `min_md`). 0.4 (public
        /// re-implementation; paper gives no value).
        min_md: f64 = 0.4, Type::Number, FACTOR,
            unit "", symbol "min_md", source "a public re-implementation: 0.4 (the paper gives no value)";
        /// Upper clamp of U (Alg. 1 `max_mi`). 2.5 (public re-implementation).
        max_mi: f64 = 2.5, Type::Number, Range::above(1.0, 1000.0),
            unit "", symbol "max_mi", source "a public re-implementation: 2.5 (the paper gives no value)";
        /// max_rate (bits/s) of Eq. 3; None = host line rate.
        max_rate_bps: Option<f64> = None, Type::Number, RATE,
            unit "bit/s", symbol "max_rate", source "derived: the host line rate";
        /// min_rate (bits/s) of Eq. 3; None = max_rate·1e-4 (Fig. 7(b): 0.02 Gb/s for 200 Gb/s).
        min_rate_bps: Option<f64> = None, Type::Number, RATE,
            unit "bit/s", symbol "min_rate", source "derived: max_rate·1e-4 (Poseidon Fig. 7(b): 0.02 Gb/s for 200 Gb/s)";
        /// Minimum window (packets), Alg. 1 `min_cwnd`; Swift's 0.001.
        min_cwnd: f64 = 0.001, Type::Number, POS_MSS,
            unit "packets", symbol "min_cwnd", source "Swift §3.4: 0.001";
        /// Maximum window (packets), Alg. 1 `max_cwnd`; None = unbounded.
        max_cwnd: Option<f64> = None, Type::Number, POS_MSS,
            unit "packets", symbol "max_cwnd", source "unbounded";
        /// Consecutive timeouts before cwnd = min_cwnd (Alg. 2 RETX_RESET_THRESHOLD); 5.
        retx_reset_threshold: u32 = 5, Type::Count, POS_COUNT,
            unit "", symbol "RETX_RESET_THRESHOLD", source "ours: 5 (as Swift)";
        /// Initial window (packets); None = one host BDP.
        init_cwnd: Option<f64> = None, Type::Number, POS_MSS,
            unit "packets", symbol "", source "derived: one host BDP";
        /// Brownfield signal max(MPD, e2e queueing − INT-measured queueing) (§5.5). Default off.
        brownfield: bool = false, Type::Bool, Range::ANY,
            unit "", symbol "", source "Poseidon §5.5: off";
        /// What the target scales with: "rate" (cwnd·MTU/RTT, the paper's; default) or "cwnd" (cwnd·MTU/base RTT).
        target_scaling: Scaling = Scaling::Rate, Type::Choice(&["rate", "cwnd"]), Range::ANY,
            unit "", symbol "", source "Poseidon Eq. 3 (rate); App. D Fig. 23 (cwnd)";
        /// Update function U: "distance" (exp of target minus delay; default) or "ratio" (target over delay, m in µs).
        update: Update = Update::Distance, Type::Choice(&["distance", "ratio"]), Range::ANY,
            unit "", symbol "U", source "Poseidon Eq. 4 (distance); App. C Eq. 13 (ratio)";
        /// Delay signal: "mpd" (max per-hop delay; default) or "e2e" (RTT − base RTT).
        signal: Signal = Signal::Mpd, Type::Choice(&["mpd", "e2e"]), Range::ANY,
            unit "", symbol "", source "Poseidon §3.1 (mpd); §5.6.1 ablation (e2e)";
        /// Growth below the target: "adaptive" (U − 1 per packet acked; default) or "additive" (AIMD, ai per RTT).
        increase: Increase = Increase::Adaptive, Type::Choice(&["adaptive", "additive"]), Range::ANY,
            unit "", symbol "", source "Poseidon Alg. 1 line 5 (adaptive); §5.6.1 ablation (additive)";
        /// Additive increase (packets per RTT) of `increase = "additive"`.
        ai: f64 = 1.0, Type::Number, POS_MSS,
            unit "packets", symbol "ai", source "Swift's ai = 1 (the ablation keeps Poseidon's other parameters)";
    }
    rules {
        "min_rate_bps": |p| p.min_rate_bps.zip(p.max_rate_bps).is_none_or(|(lo, hi)| lo < hi), "must be below max_rate_bps (Eq. 3 divides by ln max_rate − ln min_rate)";
        "min_cwnd": |p| p.max_cwnd.is_none_or(|m| p.min_cwnd <= m), "must not exceed max_cwnd";
        "init_cwnd": |p| p.init_cwnd.zip(p.max_cwnd).is_none_or(|(i, m)| i <= m), "must not exceed max_cwnd";
        "init_cwnd": |p| p.init_cwnd.is_none_or(|i| i >= p.min_cwnd), "must be at least min_cwnd";
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "poseidon",
    source: "Poseidon: Wang et al., NSDI'23, Algorithms 1–2",
    params: ParamSet::of::<PoseidonParams>(),
    build: |p, at, c| Ok(Box::new(Poseidon::new(check("poseidon", p, at)?, c))),
    caps: Caps { needs_int: true, ..Caps::DEFAULT },
};

pub struct Poseidon {
    pub p: PoseidonParams,
    /// Window (packets).
    pub cwnd: f64,
    pub mss: f64,
    pub mtu: f64,
    max_rate: f64,
    min_rate: f64,
    ln_max: f64,
    /// a = ln max_rate − ln min_rate.
    a: f64,
    max_cwnd: f64,
    /// Latest RTT sample (s).
    pub rtt: f64,
    /// Base RTT of the flow's path (s), for the brownfield signal.
    pub path_rtt: f64,
    pub t_last_decrease: Option<Time>,
    pub retransmit_cnt: u32,
}

impl Poseidon {
    pub fn new(p: PoseidonParams, ctx: &CcContext) -> Self {
        let max_rate = p.max_rate_bps.unwrap_or(ctx.host_rate_bps);
        let min_rate = p.min_rate_bps.unwrap_or(max_rate * 1e-4);
        let max_cwnd = p.max_cwnd.unwrap_or(f64::INFINITY);
        let init = p.init_cwnd.unwrap_or(ctx.host_rate_bps * ctx.base_rtt / 8.0 / ctx.mss);
        Poseidon {
            cwnd: clamp(init, p.min_cwnd, max_cwnd),
            mss: ctx.mss,
            mtu: ctx.wire_bytes,
            max_rate,
            min_rate,
            ln_max: max_rate.ln(),
            a: max_rate.ln() - min_rate.ln(),
            max_cwnd,
            rtt: ctx.path_rtt,
            path_rtt: ctx.path_rtt,
            t_last_decrease: None,
            retransmit_cnt: 0,
            p,
        }
    }

    /// Flow rate (bits/s) = cwnd·MTU/RTT, clamped to [min_rate, max_rate].
    pub fn rate(&self) -> f64 {
        clamp(self.cwnd * self.mtu * 8.0 / self.rtt, self.min_rate, self.max_rate)
    }

    /// The argument of Eq. 3 (`target_scaling`): the rate, or the window's rate at the base RTT.
    pub fn scaled_rate(&self) -> f64 {
        match self.p.target_scaling {
            Scaling::Rate => self.rate(),
            Scaling::Cwnd => clamp(self.cwnd * self.mtu * 8.0 / self.path_rtt, self.min_rate, self.max_rate),
        }
    }

    /// Eq. 3: T(rate) = p·(ln max_rate − ln rate)/(ln max_rate − ln min_rate) + k, in seconds.
    pub fn target(&self, rate: f64) -> f64 {
        (self.p.p_us * (self.ln_max - rate.ln()) / self.a + self.p.k_us) * 1e-6
    }

    /// Eq. 4: U = exp(m·a·(T − MPD)/p), or Eq. 13: U = (T + m)/(MPD + m) with m in µs (`update`);
    /// clamped to [min_md, max_mi]. T and MPD in seconds.
    pub fn update_ratio(&self, target: f64, mpd: f64) -> f64 {
        let u = match self.p.update {
            Update::Distance => (self.p.m * self.a * (target - mpd) / (self.p.p_us * 1e-6)).exp(),
            Update::Ratio => (target * 1e6 + self.p.m) / (mpd * 1e6 + self.p.m),
        };
        clamp(u, self.p.min_md, self.p.max_mi)
    }

    /// §5.5: end-to-end queueing not accounted for by INT hops (s): RTT − base RTT − Σ qlen·8/rate.
    pub fn brownfield_delay(&self, ev: &AckEvent) -> f64 {
        let mut int_delay = 0.0;
        for h in ev.int {
            if h.rate_bps > 0 {
                int_delay += h.qlen as f64 * 8.0 / h.rate_bps as f64;
            }
        }
        secs(ev.rtt) - self.path_rtt - int_delay
    }

    fn can_decrease(&self, now: Time) -> bool {
        match self.t_last_decrease {
            None => true,
            Some(t) => secs(now - t.min(now)) > self.rtt, // now − t_last_decrease > rtt
        }
    }

    fn commit(&mut self, now: Time, prev: f64) {
        self.cwnd = clamp(self.cwnd, self.p.min_cwnd, self.max_cwnd); // Alg. 1 line 17
        if self.cwnd < prev {
            self.t_last_decrease = Some(now); // Alg. 1 lines 18–19
        }
    }
}

impl CongestionControl for Poseidon {
    fn header(&self) -> Header {
        Header::Int // MPD: the per-hop delay field max-aggregated by the switches
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let prev = self.cwnd;
        let r = secs(ev.rtt);
        if r > 0.0 {
            self.rtt = r;
        }
        self.retransmit_cnt = 0;
        let mut mpd = match self.p.signal {
            Signal::Mpd => secs(ev.max_hop_delay),
            Signal::E2e => (self.rtt - self.path_rtt).max(0.0), // the latest RTT's queueing part
        };
        if self.p.brownfield {
            mpd = mpd.max(self.brownfield_delay(ev));
        }
        let mpt = self.target(self.scaled_rate()); // Alg. 1 line 2: mpt = T(cwnd·MTU/rtt)
        let u = self.update_ratio(mpt, mpd); // line 3: update_ratio = U(mpt, mpd)
        if mpd <= mpt {
            let num_acked = ev.acked_bytes as f64 / self.mss;
            self.cwnd += match self.p.increase {
                Increase::Adaptive => (u - 1.0) * num_acked, // line 5: cwnd·(1 + (U − 1)·num_acked/cwnd)
                Increase::Additive => self.p.ai * num_acked / self.cwnd.max(1.0), // + ai per RTT
            };
        } else if self.can_decrease(ev.now) {
            self.cwnd *= u; // line 7: cwnd ← cwnd·U
        }
        self.commit(ev.now, prev);
    }
    fn on_timeout(&mut self, now: Time) {
        let prev = self.cwnd;
        self.retransmit_cnt += 1; // Alg. 2 line 2
        if self.retransmit_cnt >= self.p.retx_reset_threshold {
            self.cwnd = self.p.min_cwnd; // line 4
        } else if self.can_decrease(now) {
            self.cwnd *= self.p.min_md; // line 6
        }
        self.commit(now, prev);
    }
    fn on_nack(&mut self, now: Time) {
        let prev = self.cwnd;
        self.retransmit_cnt = 0; // Alg. 2 line 10
        if self.can_decrease(now) {
            self.cwnd *= self.p.min_md; // line 12
        }
        self.commit(now, prev);
    }
    fn cwnd(&self) -> f64 {
        self.cwnd.max(1.0) * self.mss
    }
    fn pacing_rate(&self) -> f64 {
        if self.cwnd < 1.0 {
            self.cwnd * self.mtu * 8.0 / self.rtt // one packet every rtt/cwnd
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::ack;
    use super::*;
    use crate::time::{NS, US};

    /// 25 Gb/s host, MTU = MSS = 1000 B (so one packet per 32 µs is 250 Mb/s).
    fn ctx() -> CcContext {
        crate::cc::test_ctx(32e-6, 1000.0)
    }

    fn ackm(now: Time, mpd: Time) -> AckEvent<'static> {
        AckEvent { max_hop_delay: mpd, ..ack(now, 1000, 1000, 2000, 32 * US, false) }
    }

    fn one_packet() -> Poseidon {
        Poseidon::new(PoseidonParams { init_cwnd: Some(1.0), ..Default::default() }, &ctx())
    }

    #[test]
    fn target_function() {
        let s = one_packet();
        // min_rate = 25G·1e-4 = 2.5 Mb/s, a = ln(1e4) = 9.210340
        // rate = 1·1000·8/32 µs = 250 Mb/s = max/100: T = 40·ln(100)/ln(1e4) + 2 = 40·0.5 + 2 = 22 µs
        assert!((s.rate() - 250e6).abs() < 1e-3);
        assert!((s.target(s.rate()) - 22e-6).abs() < 1e-15);
        // T(max_rate) = k = 2 µs, T(min_rate) = p + k = 42 µs; rates outside are clamped
        assert!((s.target(25e9) - 2e-6).abs() < 1e-15);
        assert!((s.target(2.5e6) - 42e-6).abs() < 1e-15);
        let mut big = one_packet();
        big.cwnd = 1e6;
        assert_eq!(big.rate(), 25e9);
    }

    #[test]
    fn update_ratio_and_per_ack_increase() {
        let mut s = one_packet();
        // MPD = 10 µs, T = 22 µs: U = exp(0.25·9.210340·12/40) = exp(0.690776) = 10^0.3 = 1.995262
        assert!((s.update_ratio(22e-6, 10e-6) - 1.995_262_3).abs() < 1e-6);
        // increase per ACK: cwnd = 1 + (U − 1)·1 packet = 1.995262
        s.on_ack(&ackm(0, 10 * US));
        assert!((s.cwnd - 1.995_262_3).abs() < 1e-6);
        // MPD = 0: U = 10^(0.25·22/40·4) = 10^0.55 = 3.548 → clamped to max_mi = 2.5
        let mut s = one_packet();
        s.on_ack(&ackm(0, 0));
        assert!((s.cwnd - 2.5).abs() < 1e-12);
        // MPD exactly at target: U = 1, no change
        let mut s = one_packet();
        s.on_ack(&ackm(0, 22 * US));
        assert!((s.cwnd - 1.0).abs() < 1e-12);
    }

    #[test]
    fn update_ratio_is_the_m_th_power_of_the_rate_ratio() {
        // Eq. 5: if T(r) = MPD then U = (r/x)^m. With x = 250 Mb/s (T = 22 µs) and MPD = 12 µs:
        // T(r) = 12 → ln(max/r) = (12 − 2)·a/40 = a/4 → r = 25G·10^(−1) = 2.5 Gb/s,
        // so U = (2.5G/250M)^0.25 = 10^0.25 = 1.778279
        let s = one_packet();
        let u = s.update_ratio(s.target(250e6), 12e-6);
        assert!((u - 10f64.powf(0.25)).abs() < 1e-9);
        assert!((s.target(2.5e9) - 12e-6).abs() < 1e-15);
    }

    #[test]
    fn decrease_at_most_once_per_rtt_and_clamped() {
        let mut s = one_packet();
        // MPD = 30 µs > T = 22 µs: U = exp(0.25·9.210340·(−8)/40) = 10^(−0.2) = 0.630957
        s.on_ack(&ackm(100 * US, 30 * US));
        assert!((s.cwnd - 0.630_957_3).abs() < 1e-6);
        assert_eq!(s.t_last_decrease, Some(100 * US));
        // pacing below one packet: 0.630957·8000 b / 32 µs = 157.74 Mb/s; window reported 1 MSS
        assert!((s.pacing_rate() / (0.630_957_3 * 8000.0 / 32e-6) - 1.0).abs() < 1e-6);
        assert_eq!(s.cwnd(), 1000.0);
        // same RTT (32 µs later is not > rtt): no decrease
        s.on_ack(&ackm(132 * US, 30 * US));
        assert!((s.cwnd - 0.630_957_3).abs() < 1e-6);
        // after one RTT: the flow is slower now (rate 157.7 Mb/s → higher target), recompute:
        // T = 40·ln(25e9/157.74e6)/9.210340 + 2 = 40·5.06583/9.21034 + 2 = 24.000 µs;
        // MPD 100 µs: U = 10^(0.25·4·(24 − 100)/40) = 10^(−1.9) → clamped to min_md = 0.4
        s.on_ack(&ackm(132 * US + NS, 100 * US));
        assert!((s.cwnd - 0.630_957_3 * 0.4).abs() < 1e-6);
    }

    #[test]
    fn timeout_and_fast_recovery() {
        let mut s = Poseidon::new(PoseidonParams { init_cwnd: Some(10.0), ..Default::default() }, &ctx());
        s.on_nack(0); // cwnd·min_md = 4
        assert!((s.cwnd - 4.0).abs() < 1e-12);
        s.on_timeout(1); // within one RTT: unchanged
        assert!((s.cwnd - 4.0).abs() < 1e-12);
        for i in 1..5u64 {
            s.on_timeout(i * 40 * US); // counts 2..5; the 5th consecutive timeout resets
        }
        assert!((s.cwnd - 0.001).abs() < 1e-15);
    }

    #[test]
    fn brownfield_signal_uses_non_int_queueing() {
        use crate::packet::IntHop;
        let p = PoseidonParams { init_cwnd: Some(1.0), brownfield: true, ..Default::default() };
        let mut s = Poseidon::new(p, &ctx());
        // RTT 62 µs on a 32 µs path: 30 µs of queueing end to end; one INT hop reports 12 500 B
        // at 25 Gb/s = 4 µs. Non-INT queueing = 30 − 4 = 26 µs > MPD (4 µs) and > T = 22 µs.
        let hops = [IntHop { qlen: 12_500, tx_bytes: 0, ts: 0, rate_bps: 25_000_000_000 }];
        let ev = AckEvent { int: &hops, max_hop_delay: 4 * US, rtt: 62 * US, ..ack(0, 1000, 1000, 2000, 62 * US, false) };
        assert!((s.brownfield_delay(&ev) - 26e-6).abs() < 1e-12);
        // rate uses the new RTT sample: 8000 b / 62 µs = 129.03 Mb/s,
        // T = 40·ln(25e9/129.03e6)/ln(1e4) + 2 = 40·5.266569/9.210340 + 2 = 24.872417 µs;
        // signal 26 µs > T: U = exp(0.25·9.210340·(24.872417 − 26)/40) = exp(−0.064922) = 0.937153
        s.on_ack(&ev);
        assert!((s.cwnd - 0.937_153).abs() < 1e-5, "{}", s.cwnd);
        // the same ACK without brownfield: MPD 4 µs < T → increase
        let mut g = one_packet();
        g.on_ack(&ev);
        assert!(g.cwnd > 1.0);
    }

    fn with(p: PoseidonParams) -> Poseidon {
        Poseidon::new(PoseidonParams { init_cwnd: Some(1.0), ..p }, &ctx())
    }

    #[test]
    fn cwnd_scaling_targets_the_window_at_the_base_rtt() {
        // one packet, latest RTT 64 µs on a 32 µs path: rate = 8000 b / 64 µs = 125 Mb/s,
        // T(rate) = 40·ln(25e9/125e6)/ln(1e4) + 2 = 40·5.298317/9.210340 + 2 = 25.010300 µs;
        // the window at the base RTT is 8000 b / 32 µs = 250 Mb/s: T = 22 µs (as target_function)
        let mut r = one_packet();
        r.rtt = 64e-6;
        assert!((r.target(r.scaled_rate()) - 25.010_300e-6).abs() < 1e-12);
        let mut c = with(PoseidonParams { target_scaling: Scaling::Cwnd, ..Default::default() });
        c.rtt = 64e-6;
        assert!((c.target(c.scaled_rate()) - 22e-6).abs() < 1e-15);
    }

    #[test]
    fn ratio_update_is_eq_13() {
        // App. C's own example, m negligible: 1 µs above a target of 4 µs gives 0.8, of 30 µs 0.968
        let s = with(PoseidonParams { update: Update::Ratio, m: 1e-9, ..Default::default() });
        assert!((s.update_ratio(4e-6, 5e-6) - 0.8).abs() < 1e-9);
        assert!((s.update_ratio(30e-6, 31e-6) - 30.0 / 31.0).abs() < 1e-9);
        // m = 0.25 µs, T = 22 µs: MPD 10 µs → U = 22.25/10.25 = 2.170732 (per-ACK increase from 1);
        // MPD 30 µs → U = 22.25/30.25 = 0.735537 (decrease)
        let p = PoseidonParams { update: Update::Ratio, ..Default::default() };
        let mut s = with(p.clone());
        s.on_ack(&ackm(0, 10 * US));
        assert!((s.cwnd - 2.170_731_7).abs() < 1e-6);
        let mut s = with(p);
        s.on_ack(&ackm(0, 30 * US));
        assert!((s.cwnd - 0.735_537_2).abs() < 1e-6);
    }

    #[test]
    fn e2e_signal_compares_the_rtts_queueing() {
        // RTT 62 µs on a 32 µs path: 30 µs of queueing although MPD = 0; rate 8000 b / 62 µs,
        // T = 24.872417 µs < 30: U = exp(0.25·9.210340·(24.872417 − 30)/40) = 0.744407
        let p = PoseidonParams { signal: Signal::E2e, ..Default::default() };
        let mut s = with(p);
        let ev = AckEvent { max_hop_delay: 0, ..ack(0, 1000, 1000, 2000, 62 * US, false) };
        s.on_ack(&ev);
        assert!((s.cwnd - 0.744_407).abs() < 1e-5, "{}", s.cwnd);
        let mut g = one_packet(); // with MPD = 0 the paper's signal increases
        g.on_ack(&ev);
        assert!(g.cwnd > 1.0);
    }

    #[test]
    fn additive_increase_adds_ai_per_window() {
        // cwnd 10, MPD 0 below the target: + 1·1/10 packet (adaptive would add (2.5 − 1)·1)
        let p = PoseidonParams { increase: Increase::Additive, init_cwnd: Some(10.0), ..Default::default() };
        let mut s = Poseidon::new(p, &ctx());
        s.on_ack(&ackm(0, 0));
        assert!((s.cwnd - 10.1).abs() < 1e-12);
        // the decrease is still U's: MPD 30 µs at T(10.1 packets = 2.525 Gb/s) = 11.957 µs →
        // U = exp(0.25·9.210340·(11.957 − 30)/40) = 0.354 → clamped to min_md = 0.4
        s.on_ack(&ackm(US, 30 * US));
        assert!((s.cwnd - 10.1 * 0.4).abs() < 1e-9);
    }

    #[test]
    fn variants_are_named_options() {
        let j = serde_json::json!({"target_scaling": "cwnd", "update": "ratio", "signal": "e2e", "increase": "additive"});
        let p: PoseidonParams = check("poseidon", &j, "cc").unwrap();
        assert_eq!((p.target_scaling, p.update, p.signal, p.increase), (Scaling::Cwnd, Update::Ratio, Signal::E2e, Increase::Additive));
        let d = PoseidonParams::default();
        assert_eq!((d.target_scaling, d.update, d.signal, d.increase), (Scaling::Rate, Update::Distance, Signal::Mpd, Increase::Adaptive));
        let e = check::<PoseidonParams>("poseidon", &serde_json::json!({"update": "quotient"}), "cc").unwrap_err();
        assert!(e.to_string().contains("update"), "{e}");
    }
}
