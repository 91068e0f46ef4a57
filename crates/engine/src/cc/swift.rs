//! Swift (Kumar et al., SIGCOMM'20, Algorithm 1 and §3.5), the delay-based baseline of Poseidon,
//! with Poseidon's evaluation parameters (poseidon-nsdi23.txt §5: base 25 µs, 1 µs per hop,
//! 100 µs max flow scaling).
//!
//! Window kept in packets (f64, may be < 1) as in the paper, reported in bytes. The delay signal
//! is the ACK's RTT sample (the engine has no NIC/host delay split: Swift's fabric delay equals
//! the RTT here).
//!
//! Target delay (§3.5): T = base + hops·h + clamp(α_fs/√cwnd + β_fs, 0, fs_range),
//!   α_fs = fs_range/(1/√fs_min_cwnd − 1/√fs_max_cwnd), β_fs = −α_fs/√fs_max_cwnd.
//! On ACK (Algorithm 1): delay < T → cwnd += ai·num_acked/cwnd (cwnd ≥ 1) or ai·num_acked
//! (cwnd < 1); else, if now − t_last_decrease ≥ rtt: cwnd ← cwnd·max(1 − β·(delay − T)/delay,
//! 1 − max_mdf). Timeout: cwnd ← cwnd·(1 − max_mdf) (once per RTT) and min_cwnd after
//! `retx_reset_threshold` consecutive timeouts. NACK (fast recovery): cwnd ← cwnd·(1 − max_mdf)
//! once per RTT. Pacing when cwnd < 1: one packet per rtt/cwnd.
//!
//! Paper-silent choices: initial window (default one host BDP, line rate in the first RTT, as
//! the rest of this simulator's window laws); no max window unless configured; the RTT used by
//! "once per RTT" and by pacing is the latest sample (path base RTT before the first sample).
//! `cwnd()` never reports less than 1 MSS: below that the limit is the pacing rate, expressed in
//! wire bits/s (`ctx.wire_bytes` per packet) so that one packet leaves every rtt/cwnd.

use super::params::cc_params;
use super::params::{check, ParamSet, FACTOR, GAIN, POS_COUNT, POS_MSS, POS_US, US};
use super::{clamp, AckEvent, CcContext, CongestionControl, Header};
use super::{Algorithm, Caps};
use crate::schema::Type;
use crate::time::{secs, Time};

cc_params! {
    /// Swift parameters.
    pub struct SwiftParams {
        /// Base target delay (µs). Poseidon §5 simulation setup: 25 µs.
        base_target_us: f64 = 25.0, Type::Number, POS_US,
            unit "µs", symbol "base_target", source "Poseidon §5 simulation setup: 25 µs";
        /// Per-hop target scaling h (µs per switch hop). Poseidon §5: 1 µs.
        hop_scale_us: f64 = 1.0, Type::Number, US,
            unit "µs", symbol "h", source "Poseidon §5: 1 µs";
        /// Flow-scaling range fs_range (µs). Poseidon §5 "max flow scaling": 100 µs.
        fs_range_us: f64 = 100.0, Type::Number, US,
            unit "µs", symbol "fs_range", source "Poseidon §5 (max flow scaling): 100 µs";
        /// fs_min_cwnd (packets), where the flow-scaling term reaches fs_range. Swift §3.5: 0.1.
        fs_min_cwnd: f64 = 0.1, Type::Number, POS_MSS,
            unit "packets", symbol "fs_min_cwnd", source "Swift §3.5: 0.1";
        /// fs_max_cwnd (packets), where the flow-scaling term reaches 0. Swift §3.5: 100.
        fs_max_cwnd: f64 = 100.0, Type::Number, POS_MSS,
            unit "packets", symbol "fs_max_cwnd", source "Swift §3.5: 100";
        /// Additive increase ai (packets per RTT). Swift Alg. 1: 1.
        ai: f64 = 1.0, Type::Number, POS_MSS,
            unit "packets/RTT", symbol "ai", source "Swift Algorithm 1: 1";
        /// Multiplicative decrease gain β. Swift Alg. 1: 0.8.
        beta: f64 = 0.8, Type::Number, GAIN,
            unit "", symbol "β", source "Swift Algorithm 1: 0.8";
        /// Maximum multiplicative decrease factor max_mdf. Swift Alg. 1: 0.5.
        max_mdf: f64 = 0.5, Type::Number, FACTOR,
            unit "", symbol "max_mdf", source "Swift Algorithm 1: 0.5";
        /// Minimum window (packets). Swift §3.4 (cwnd down to 0.001 with pacing): 0.001.
        min_cwnd: f64 = 0.001, Type::Number, POS_MSS,
            unit "packets", symbol "min_cwnd", source "Swift §3.4: 0.001";
        /// Maximum window (packets); None = unbounded (paper silent).
        max_cwnd: Option<f64> = None, Type::Number, POS_MSS,
            unit "packets", symbol "max_cwnd", source "unbounded (Swift is silent)";
        /// Consecutive timeouts after which cwnd = min_cwnd (RETX_RESET_THRESHOLD). Paper silent on
        /// the value; 5.
        retx_reset_threshold: u32 = 5, Type::Count, POS_COUNT,
            unit "", symbol "RETX_RESET_THRESHOLD", source "ours: 5 (Swift is silent on the value)";
        /// Initial window (packets); None = one host BDP (host rate × τ / MSS).
        init_cwnd: Option<f64> = None, Type::Number, POS_MSS,
            unit "packets", symbol "", source "derived: one host BDP (host rate × τ / MSS)";
    }
    rules {
        "fs_min_cwnd": |p| p.fs_min_cwnd < p.fs_max_cwnd, "must be below fs_max_cwnd (Swift §3.5 divides by 1/√fs_min_cwnd − 1/√fs_max_cwnd)";
        "min_cwnd": |p| p.max_cwnd.is_none_or(|m| p.min_cwnd <= m), "must not exceed max_cwnd";
        "init_cwnd": |p| p.init_cwnd.zip(p.max_cwnd).is_none_or(|(i, m)| i <= m), "must not exceed max_cwnd";
        "init_cwnd": |p| p.init_cwnd.is_none_or(|i| i >= p.min_cwnd), "must be at least min_cwnd";
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "swift",
    source: "Swift: Kumar et al., SIGCOMM'20, Algorithm 1",
    params: ParamSet::of::<SwiftParams>(),
    build: |p, at, c| Ok(Box::new(Swift::new(check("swift", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct Swift {
    pub p: SwiftParams,
    /// Window (packets).
    pub cwnd: f64,
    pub mss: f64,
    /// Wire bytes of a full packet (pacing is in wire bits/s).
    pub mtu: f64,
    alpha_fs: f64,
    beta_fs: f64,
    max_cwnd: f64,
    /// Latest RTT sample (s).
    pub rtt: f64,
    pub t_last_decrease: Option<Time>,
    pub retransmit_cnt: u32,
}

impl Swift {
    pub fn new(p: SwiftParams, ctx: &CcContext) -> Self {
        // §3.5: α_fs = fs_range/(1/√fs_min − 1/√fs_max), β_fs = −α_fs/√fs_max (µs)
        let alpha_fs = p.fs_range_us / (1.0 / p.fs_min_cwnd.sqrt() - 1.0 / p.fs_max_cwnd.sqrt());
        let beta_fs = -alpha_fs / p.fs_max_cwnd.sqrt();
        let max_cwnd = p.max_cwnd.unwrap_or(f64::INFINITY);
        let init = p.init_cwnd.unwrap_or(ctx.host_rate_bps * ctx.base_rtt / 8.0 / ctx.mss);
        Swift {
            cwnd: clamp(init, p.min_cwnd, max_cwnd),
            mss: ctx.mss,
            mtu: ctx.wire_bytes,
            alpha_fs,
            beta_fs,
            max_cwnd,
            rtt: ctx.path_rtt,
            t_last_decrease: None,
            retransmit_cnt: 0,
            p,
        }
    }

    /// Target delay (s) for the current window and `hops` switch hops (§3.5).
    pub fn target(&self, hops: u8) -> f64 {
        let fs = clamp(self.alpha_fs / self.cwnd.sqrt() + self.beta_fs, 0.0, self.p.fs_range_us); // flow scaling
        (self.p.base_target_us + hops as f64 * self.p.hop_scale_us + fs) * 1e-6 // base + hops·h + fs
    }

    fn can_decrease(&self, now: Time) -> bool {
        match self.t_last_decrease {
            None => true,
            Some(t) => secs(now - t.min(now)) >= self.rtt, // now − t_last_decrease ≥ rtt
        }
    }

    fn commit(&mut self, now: Time, prev: f64) {
        self.cwnd = clamp(self.cwnd, self.p.min_cwnd, self.max_cwnd);
        if self.cwnd < prev {
            self.t_last_decrease = Some(now);
        }
    }
}

impl CongestionControl for Swift {
    /// Delay from a send timestamp the receiver echoes (NIC timestamps in Swift §3.1).
    fn header(&self) -> Header {
        Header::Timestamp
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        let prev = self.cwnd;
        let delay = secs(ev.rtt);
        if delay > 0.0 {
            self.rtt = delay;
        }
        self.retransmit_cnt = 0;
        let target = self.target(ev.hops);
        let num_acked = ev.acked_bytes as f64 / self.mss;
        if delay < target {
            if self.cwnd >= 1.0 {
                self.cwnd += self.p.ai * num_acked / self.cwnd; // cwnd += ai/cwnd · num_acked
            } else {
                self.cwnd += self.p.ai * num_acked; // cwnd += ai · num_acked
            }
        } else if self.can_decrease(ev.now) {
            // cwnd ← cwnd·max(1 − β·(delay − target)/delay, 1 − max_mdf)
            self.cwnd *= (1.0 - self.p.beta * (delay - target) / delay).max(1.0 - self.p.max_mdf);
        }
        self.commit(ev.now, prev);
    }
    fn on_timeout(&mut self, now: Time) {
        let prev = self.cwnd;
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.p.retx_reset_threshold {
            self.cwnd = self.p.min_cwnd; // cwnd ← min_cwnd
        } else if self.can_decrease(now) {
            self.cwnd *= 1.0 - self.p.max_mdf; // cwnd ← (1 − max_mdf)·cwnd
        }
        self.commit(now, prev);
    }
    fn on_nack(&mut self, now: Time) {
        let prev = self.cwnd;
        self.retransmit_cnt = 0;
        if self.can_decrease(now) {
            self.cwnd *= 1.0 - self.p.max_mdf; // fast recovery: cwnd ← (1 − max_mdf)·cwnd
        }
        self.commit(now, prev);
    }
    fn cwnd(&self) -> f64 {
        self.cwnd.max(1.0) * self.mss
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("rtt", self.rtt); // latest RTT sample (s)
        out("cwnd_packets", self.cwnd);
    }
    fn pacing_rate(&self) -> f64 {
        if self.cwnd < 1.0 {
            self.cwnd * self.mtu * 8.0 / self.rtt // one (wire-size) packet per rtt/cwnd
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;
    use crate::time::US;

    fn ackh(now: Time, rtt: Time, hops: u8) -> AckEvent<'static> {
        AckEvent { hops, ..ack(now, 1000, 1000, 2000, rtt, false) }
    }

    #[test]
    fn target_with_flow_and_hop_scaling() {
        let mut s = Swift::new(SwiftParams { init_cwnd: Some(1.0), ..Default::default() }, &ctx());
        // α_fs = 100/(1/√0.1 − 1/√100) = 100/(3.162278 − 0.1) = 32.65543 µs; β_fs = −3.265543 µs
        // cwnd 1: fs = 32.65543 − 3.265543 = 29.38989 µs; T = 25 + 3·1 + 29.38989 = 57.38989 µs
        assert!((s.target(3) - 57.389_889e-6).abs() < 1e-11);
        // cwnd 4: fs = 32.65543/2 − 3.265543 = 13.06217 µs; T(0 hops) = 38.06217 µs
        s.cwnd = 4.0;
        assert!((s.target(0) - 38.062_173e-6).abs() < 1e-11);
        // cwnd ≥ 100: fs = 0 (clamped at 0 above fs_max_cwnd); cwnd 0.01: fs = 323 → 100 µs
        s.cwnd = 1000.0;
        assert!((s.target(0) - 25e-6).abs() < 1e-15);
        s.cwnd = 0.01;
        assert!((s.target(2) - 127e-6).abs() < 1e-15);
    }

    #[test]
    fn additive_increase_above_and_below_one_packet() {
        let mut s = Swift::new(SwiftParams { init_cwnd: Some(10.0), ..Default::default() }, &ctx());
        s.on_ack(&ackh(1, 10 * US, 0)); // 10 µs < T: cwnd = 10 + 1/10
        assert!((s.cwnd - 10.1).abs() < 1e-12);
        s.cwnd = 0.5;
        s.on_ack(&ackh(2, 10 * US, 0)); // cwnd < 1: cwnd = 0.5 + 1·1
        assert!((s.cwnd - 1.5).abs() < 1e-12);
    }

    #[test]
    fn md_once_per_rtt_and_capped_by_max_mdf() {
        let mut s = Swift::new(SwiftParams { init_cwnd: Some(100.0), ..Default::default() }, &ctx());
        // cwnd 100, 0 hops: T = 25 µs. delay 50 µs: cwnd = 100·max(1 − 0.8·25/50, 0.5) = 60
        s.on_ack(&ackh(100 * US, 50 * US, 0));
        assert!((s.cwnd - 60.0).abs() < 1e-9);
        // same RTT (10 µs later < 50 µs): no decrease, and no increase either (delay ≥ T)
        s.on_ack(&ackh(110 * US, 50 * US, 0));
        assert!((s.cwnd - 60.0).abs() < 1e-9);
        // 200 µs after the decrease, delay 200 µs (the RTT that gates the next decrease):
        // T(60) = 25 + (32.65543/√60 − 3.265543) = 25.95 µs;
        // 1 − 0.8·(200 − 25.95)/200 = 0.30 < 0.5 → capped: cwnd = 30
        s.on_ack(&ackh(300 * US, 200 * US, 0));
        assert!((s.cwnd - 30.0).abs() < 1e-9);
    }

    #[test]
    fn timeouts_and_pacing_below_one_packet() {
        let mut s = Swift::new(SwiftParams { init_cwnd: Some(8.0), ..Default::default() }, &ctx());
        s.rtt = 20e-6;
        s.on_timeout(0); // 8·0.5 = 4
        assert!((s.cwnd - 4.0).abs() < 1e-12);
        s.on_timeout(1); // within the RTT: no further decrease
        assert!((s.cwnd - 4.0).abs() < 1e-12);
        s.on_timeout(30 * US); // 2
        s.on_timeout(60 * US); // 1
        assert!((s.cwnd - 1.0).abs() < 1e-12);
        assert_eq!(s.pacing_rate(), f64::INFINITY);
        s.on_timeout(90 * US); // 5th consecutive timeout: min_cwnd = 0.001
        assert!((s.cwnd - 0.001).abs() < 1e-15);
        // pacing: 0.001·1048 wire B·8 / 20 µs = 419.2 kb/s; window reported as 1 MSS
        assert!((s.pacing_rate() - 4.192e5).abs() < 1e-6);
        assert_eq!(s.cwnd(), 1000.0);
        // an ACK resets the retransmit counter
        s.on_ack(&ackh(100 * US, 10 * US, 0));
        assert_eq!(s.retransmit_cnt, 0);
    }

    #[test]
    fn default_initial_window_is_host_bdp() {
        let s = Swift::new(SwiftParams::default(), &ctx());
        // 25 Gb/s · 10 µs / 8 = 31 250 B = 31.25 packets of 1000 B
        assert!((s.cwnd - 31.25).abs() < 1e-9);
    }
}
