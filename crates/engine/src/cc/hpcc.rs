//! HPCC (Li et al., SIGCOMM'19), Algorithm 1 — the INT baseline of PowerTCP.
//!
//! Per hop j: u_j = min(qlen, qlen')/(B_j·T) + txRate_j/B_j; U is the EWMA (over T, weighted by
//! the INT interval) of the largest u_j. Window: if U/η ≥ 1 or incStage ≥ maxStage then
//! W = W_c/(U/η) + W_AI else W = W_c + W_AI. W is applied per ACK ("fast reaction"); W_c and
//! incStage are committed once per RTT.
//!
//! Where Algorithm 1 is silent we follow the authors' artifact (`RdmaHw::UpdateRateHp` in
//! `simulation/src/point-to-point/model/rdma-hw.cc` and `RdmaQueuePair` in rdma-queue-pair.cc of
//! alibaba-edu/High-Precision-Congestion-Control): U starts at 1 (`hp.u = 1`); the first ACK only
//! stores the INT and sets lastUpdateSeq = snd_nxt (so the first commit of W_c is one RTT later);
//! the rate W/T is clamped to [MIN_RATE, line rate] (MIN_RATE 100 Mb/s in both HPCC's and the
//! PowerTCP study's config), i.e. W to [min_rate·T, HostBw·T].

use serde::{Deserialize, Serialize};

use super::int_history::{bytes_sent, IntHistory};
use super::params::cc_params;
use super::params::{check, ParamSet, BYTES, COUNT, GAIN, RATE};
use super::{clamp, AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps, Header, StudyNic};
use crate::config::IntBytesMode;
use crate::packet::IntHop;
use crate::schema::{Range, Type};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Law {
    /// The configuration of the PowerTCP evaluation: η = 0.95, maxStage = 5, W_AI = 50 Mb/s·T.
    #[default]
    PowertcpConfig,
    /// HPCC's own artifact defaults: maxStage = 0, W_AI = (10 Mb/s per 25 Gb/s of host rate)·T.
    HpccArtifact,
}

cc_params! {
    pub struct Params {
        /// Target utilisation η (HPCC Algorithm 1).
        eta: f64 = 0.95, Type::Number, GAIN,
            unit "", symbol "η", source "HPCC §5 / PowerTCP evaluation configs: 0.95";
        /// Additive-increase stages before a multiplicative update (HPCC Algorithm 1 maxStage).
        max_stage: Option<u32> = None, Type::Count, COUNT,
            unit "", symbol "maxStage", source "derived from the law: 5 (powertcp-config), 0 (hpcc-artifact)";
        /// Additive increase as a rate (bits/s): W_AI = rate·T/8.
        additive_increase_bps: Option<f64> = None, Type::Number, RATE,
            unit "bit/s", symbol "W_AI", source "derived from the law: 50 Mb/s (powertcp-config), 10 Mb/s per 25 Gb/s of host rate (hpcc-artifact)";
        /// Initial window in bytes.
        init_cwnd_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "", source "derived: HostBw·τ (line rate in the first RTT)";
        /// Which configuration of HPCC to run (`Law`): the PowerTCP evaluation's or HPCC's own artifact's.
        law: Law = Law::PowertcpConfig, Type::Choice(&["powertcp-config", "hpcc-artifact"]), Range::ANY,
            unit "", symbol "", source "the PowerTCP evaluation (powertcp-config)", alias "variant";
        /// Lower bound of the rate W/T (bits/s): the artifact's MIN_RATE, 100 Mb/s.
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "the artifact (MIN_RATE): 100 Mb/s";
        /// Window updates once per RTT only (at the ACK that commits W_c), as PowerTCP §5 runs HPCC
        /// beside reTCP; false = Algorithm 1's per-ACK update.
        per_rtt: bool = false, Type::Bool, Range::ANY,
            unit "", symbol "", source "HPCC Algorithm 1: per ACK";
    }
    rules {
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "hpcc",
    source: "HPCC: Li et al., SIGCOMM'19, Algorithm 1",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(Hpcc::new(check("hpcc", p, at)?, c))),
    caps: Caps { needs_int: true, study_nic: StudyNic { header: Header::Int, window_cap: true }, ..Caps::DEFAULT },
};

pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    w_ai: f64,
    t: f64,
    min_w: f64,
    max_w: f64,
    w: f64,
    wc: f64,
    inc_stage: u32,
    u: f64,
    int: IntHistory,
    /// What the INT byte counter counts (txRate is read through `bytes_sent`).
    counter: IntBytesMode,
    last_update_seq: u64,
    per_rtt: bool,
}

impl Hpcc {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        let t = ctx.base_rtt;
        let (stage, ai) = match p.law {
            Law::PowertcpConfig => (5, 50e6),
            Law::HpccArtifact => (0, 10e6 * ctx.host_rate_bps / 25e9),
        };
        let max_w = ctx.host_rate_bps * t / 8.0;
        let w = p.init_cwnd_bytes.unwrap_or(max_w);
        Hpcc {
            eta: p.eta,
            max_stage: p.max_stage.unwrap_or(stage),
            w_ai: p.additive_increase_bps.unwrap_or(ai) * t / 8.0,
            t,
            min_w: (p.min_rate_bps * t / 8.0).min(max_w), // MIN_RATE·T
            max_w,
            w,
            wc: w,
            inc_stage: 0,
            u: 1.0, // artifact: hp.u = 1
            int: IntHistory::default(),
            counter: ctx.int_bytes,
            last_update_seq: 0,
            per_rtt: p.per_rtt,
        }
    }

    /// MeasureInflight(ack): returns the smoothed normalised inflight U, or None on the first ACK.
    fn measure_inflight(&mut self, hops: &[IntHop]) -> Option<f64> {
        let (t, counter) = (self.t, self.counter);
        let (u, dt) = self.int.max_per_hop(hops, |h, p, dt| {
            let b = h.rate_bps as f64 / 8.0;
            let tx_rate = bytes_sent(h, p, counter) / dt;
            h.qlen.min(p.qlen) as f64 / (b * t) + tx_rate / b
        })?;
        let tau = dt.min(self.t);
        self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
        Some(self.u)
    }

    /// ComputeWind(U, updateWc).
    fn compute_wind(&mut self, u: f64, update_wc: bool) -> f64 {
        let w = if u / self.eta >= 1.0 || self.inc_stage >= self.max_stage {
            let w = self.wc / (u / self.eta) + self.w_ai;
            if update_wc {
                self.inc_stage = 0;
                self.wc = clamp(w, self.min_w, self.max_w);
            }
            w
        } else {
            let w = self.wc + self.w_ai;
            if update_wc {
                self.inc_stage += 1;
                self.wc = clamp(w, self.min_w, self.max_w);
            }
            w
        };
        clamp(w, self.min_w, self.max_w) // rate in [MIN_RATE, line rate]
    }
}

impl CongestionControl for Hpcc {
    fn header(&self) -> Header {
        Header::Int // INT records of every hop (Algorithm 1)
    }
    fn on_new_path(&mut self) {
        self.int.reset(); // the previous ACK's records are of other ports
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let Some(u) = self.measure_inflight(ev.int) else {
            // first ACK: store the INT; the first RTT ends at the current snd_nxt (artifact)
            if self.last_update_seq == 0 {
                self.last_update_seq = ev.snd_nxt;
            }
            return;
        };
        let u = u.max(1e-9);
        if ev.snd_una > self.last_update_seq {
            // a new RTT: commit W_c
            self.w = self.compute_wind(u, true);
            self.last_update_seq = ev.snd_nxt;
        } else if !self.per_rtt {
            self.w = self.compute_wind(u, false);
        }
    }

    fn cwnd(&self) -> f64 {
        self.w
    }

    /// R = W/T.
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("u", self.u); // Algorithm 1's normalised inflight bytes U (EWMA)
        out("wc", self.wc); // the reference window Wc (bytes)
        out("inc_stage", self.inc_stage as f64);
    }
    fn pacing_rate(&self) -> f64 {
        self.w * 8.0 / self.t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::assert_close;
    use crate::time::US;

    fn ctx() -> CcContext {
        crate::cc::test_ctx(20e-6, 1090.0)
    }
    fn hop(qlen: u64, tx: u64, ts: u64) -> IntHop {
        IntHop { qlen, tx_bytes: tx, ts, rate_bps: 25_000_000_000 }
    }
    fn ack<'a>(int: &'a [IntHop], snd_una: u64, snd_nxt: u64) -> AckEvent<'a> {
        AckEvent {
            now: 0,
            acked_bytes: 1000,
            seq: 0,
            snd_una,
            snd_nxt,
            rtt: 0,
            ecn: false,
            int,
            max_hop_delay: 0,
            hops: 1,
            cwnd_limited: true,
        }
    }

    #[test]
    fn tx_rate_is_the_same_through_either_int_counter() {
        // The records of multiplicative_decrease_matches_hand_computation read through a
        // bytes-received counter (sent + queue: 0 + 30 000, then 6250 + 40 000): txRate is still
        // 6250 B over 2 µs, so U = 1.048 as there. Read as bytes sent (before the fix) the same
        // counter gave txRate = 16 250 B / 2 µs and u = 3.08, U = 1.208.
        let mut c = Hpcc::new(Params::default(), &CcContext { int_bytes: crate::config::IntBytesMode::Rx, ..ctx() });
        c.on_ack(&ack(&[hop(30_000, 30_000, 10 * US)], 1000, 62_000));
        c.on_ack(&ack(&[hop(40_000, 46_250, 12 * US)], 2000, 63_000));
        assert!((c.u - 1.048).abs() < 1e-12, "{}", c.u);
    }

    #[test]
    fn multiplicative_decrease_matches_hand_computation() {
        // 25 Gb/s hop (3.125e9 B/s), T = 20 µs, B·T = 62 500 B. Over 2 µs the port sends
        // 6250 B (line rate) and the queue is min(30 000, 40 000) = 30 000 B:
        //   u = 30 000/62 500 + 3.125e9/3.125e9 = 1.48; U = (1 − 0.1)·1 + 0.1·1.48 = 1.048
        //   (U starts at 1 as in the artifact; from 0 it would be 0.148 and the window would grow)
        // U/η = 1.103158 ≥ 1: W = W_c/(U/η) + W_AI = 62 500/1.103158 + 125 = 56 780.53 B,
        // W_AI = 50e6·20e-6/8 = 125 B. The first ACK set lastUpdateSeq = 62 000, so this ACK
        // (snd_una 2000) is a fast reaction: W_c and incStage are not committed.
        let mut c = Hpcc::new(Params::default(), &ctx());
        c.on_ack(&ack(&[hop(30_000, 0, 10 * US)], 1000, 62_000));
        c.on_ack(&ack(&[hop(40_000, 6250, 12 * US)], 2000, 63_000));
        assert!((c.u - 1.048).abs() < 1e-12);
        let w = 62_500.0 / (1.048 / 0.95) + 125.0;
        assert!((c.cwnd() - w).abs() < 1e-6, "{} vs {w}", c.cwnd());
        assert_close(c.wc, 62_500.0);
        assert_eq!(c.inc_stage, 0);
        // Large interval (≥ T) replaces U: u = 40 000/62 500 + 1 = 1.64 ≥ η → decrease from
        // W_c = 62 500: W = 62 500/(1.64/0.95) + 125 (same RTT: W_c not committed)
        c.on_ack(&ack(&[hop(40_000, 6250 + 62_500, 32 * US)], 3000, 64_000));
        assert!((c.u - 1.64).abs() < 1e-12);
        let w = 62_500.0 / (1.64 / 0.95) + 125.0;
        assert!((c.cwnd() - w).abs() < 1e-6);
        assert_close(c.wc, 62_500.0);
        assert!((c.pacing_rate() - w * 8.0 / 20e-6).abs() < 1e-3);
        // snd_una 62 001 > 62 000: a new RTT commits W_c = W. The next record, 1 µs later, has the
        // same queue and line-rate sending: u = 1.64, so U stays 1.64 and W is the same.
        c.on_ack(&ack(&[hop(40_000, 6250 + 62_500 + 3125, 33 * US)], 62_001, 70_000));
        assert!((c.wc - w).abs() < 1e-6);
    }

    #[test]
    fn rate_is_clamped_to_min_rate_not_one_mss() {
        // A hop with a 62.5 MB queue held over ≥ T: u = 62 500 000/62 500 + 1 = 1001, U = 1001
        // W = 62 500/(1001/0.95) + 125 = 184.32 B → raised to MIN_RATE·T = 100e6·20e-6/8 = 250 B
        // (the artifact's `if (new_rate < m_minRate)`), not to 1 MSS = 1000 B
        let mut c = Hpcc::new(Params::default(), &ctx());
        c.on_ack(&ack(&[hop(62_500_000, 0, 0)], 1000, 62_000));
        c.on_ack(&ack(&[hop(62_500_000, 62_500, 20 * US)], 2000, 63_000));
        assert!((c.u - 1001.0).abs() < 1e-9, "{}", c.u);
        assert_close(c.cwnd(), 250.0);
        assert_close(c.pacing_rate(), 100e6);
    }

    #[test]
    fn per_rtt_skips_the_updates_between_commits() {
        // The third ACK of the test above (same RTT: snd_una 3000 ≤ last_update_seq 62 000) moved
        // W to 62 500/(1.64/0.95) + 125 per ACK; with per_rtt it leaves W at 62 500.
        let mut c = Hpcc::new(Params { per_rtt: true, ..Params::default() }, &ctx());
        c.on_ack(&ack(&[hop(30_000, 0, 10 * US)], 1000, 62_000));
        // snd_una 2000 ≤ 62 000 (set by the first ACK): no commit, and per_rtt skips the fast reaction
        c.on_ack(&ack(&[hop(40_000, 6250, 12 * US)], 2000, 63_000));
        c.on_ack(&ack(&[hop(40_000, 6250 + 62_500, 32 * US)], 3000, 64_000));
        assert!((c.u - 1.64).abs() < 1e-12); // U is still measured on every ACK
        assert_close(c.cwnd(), 62_500.0);
        // the next RTT (snd_una 63 001 > 62 000) commits the decrease
        c.on_ack(&ack(&[hop(40_000, 6250 + 2 * 62_500, 52 * US)], 63_001, 130_000));
        assert!(c.cwnd() < 40_000.0, "{}", c.cwnd());
    }

    #[test]
    fn artifact_variant_uses_hpcc_defaults() {
        let c = Hpcc::new(Params { law: Law::HpccArtifact, ..Params::default() }, &ctx());
        assert_eq!(c.max_stage, 0);
        assert!((c.w_ai - 10e6 * 20e-6 / 8.0).abs() < 1e-9);
    }
}
