//! DCTCP as the PowerTCP study's simulator runs it on its RDMA NIC (CC mode 8): a *rate-based*
//! DCTCP, `RdmaHw::HandleAckDctcp` in `simulator/ns-3.39/src/point-to-point/model/rdma-hw.cc` of
//! inet-tub/ns3-datacenter (the same function in HPCC's rdma-hw.cc). Registered as `dctcp-rdma`
//! beside the window DCTCP of RFC 8257 (`dctcp`), which is what the DCTCP paper describes.
//!
//! Per ACK (ack_seq = the cumulative acknowledgment, CNP = the ACK echoes a CE mark):
//! ```text
//!  ecnCnt += CNP
//!  if ack_seq > lastUpdateSeq:                      (a new batch: one per RTT of data)
//!     first batch: lastUpdateSeq = snd_nxt, batch = snd_nxt/MTU + 1
//!     else: F = min(1, ecnCnt/batch); α ← (1 − g)·α + g·F
//!           lastUpdateSeq = snd_nxt, ecnCnt = 0, batch = (snd_nxt − ack_seq)/MTU + 1
//!  if in CWR and ack_seq > highSeq: leave CWR
//!  if CNP and not in CWR: R ← max(MIN_RATE, R·(1 − α/2)); enter CWR, highSeq = snd_nxt
//!  if not in CWR and a new batch began: R ← min(line, R + DCTCP_RATE_AI)
//! ```
//! (integer divisions as in the artifact, MTU = the payload per packet). Flows start at line rate
//! with α = 1 (rdma-queue-pair.cc). The window follows the rate, W = R·τ (the artifact's VAR_WIN:
//! m_win·R/line with m_win the topology's maximum BDP). Parameters are the PowerTCP study's
//! config-workload.txt: EWMA_GAIN 1/256 (the artifact's one gain for DCQCN and DCTCP; RFC 8257
//! has 1/16), DCTCP_RATE_AI 1000 Mb/s, MIN_RATE 100 Mb/s.

use super::params::cc_params;
use super::params::{check, ParamSet, FRACTION, GAIN, RATE};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps};
use crate::schema::Type;

cc_params! {
    pub struct Params {
        /// EWMA gain g of α. Artifact config (EWMA_GAIN): 1/256.
        g: f64 = 1.0 / 256.0, Type::Number, GAIN,
            unit "", symbol "g", source "the artifact config (EWMA_GAIN): 1/256";
        /// Initial α (artifact: 1).
        init_alpha: f64 = 1.0, Type::Number, FRACTION,
            unit "", symbol "α", source "the artifact: 1";
        /// Additive increase per batch (bits/s). Artifact config (DCTCP_RATE_AI): 1 Gb/s.
        rate_ai_bps: f64 = 1e9, Type::Number, RATE,
            unit "bit/s", symbol "R_AI", source "the artifact config (DCTCP_RATE_AI): 1 Gb/s";
        /// Lower bound of the rate (bits/s). Artifact config (MIN_RATE): 100 Mb/s.
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "the artifact config (MIN_RATE): 100 Mb/s";
    }
    rules {
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "dctcp-rdma",
    source: "rate-based DCTCP of the PowerTCP/HPCC ns-3 RDMA NIC: rdma-hw.cc HandleAckDctcp (CC mode 8)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(DctcpRdma::new(check("dctcp-rdma", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct DctcpRdma {
    p: Params,
    line: f64,
    tau: f64,
    mtu: u64,
    pub rate: f64,
    pub alpha: f64,
    last_update_seq: u64,
    ecn_cnt: u64,
    batch: u64,
    /// In CWR (`m_caState == 1`) until the cumulative ACK passes `high_seq`.
    cwr: bool,
    high_seq: u64,
}

impl DctcpRdma {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        DctcpRdma {
            line: ctx.host_rate_bps,
            tau: ctx.base_rtt,
            mtu: (ctx.mss as u64).max(1),
            rate: ctx.host_rate_bps, // line rate from the start
            alpha: p.init_alpha,
            last_update_seq: 0,
            ecn_cnt: 0,
            batch: 0,
            cwr: false,
            high_seq: 0,
            p,
        }
    }
}

impl CongestionControl for DctcpRdma {
    fn on_ack(&mut self, ev: &AckEvent) {
        let ack_seq = ev.snd_una;
        self.ecn_cnt += ev.ecn as u64;
        let new_batch = ack_seq > self.last_update_seq;
        if new_batch {
            if self.last_update_seq == 0 {
                // first RTT
                self.batch = ev.snd_nxt / self.mtu + 1;
            } else {
                let frac = (self.ecn_cnt as f64 / self.batch as f64).min(1.0); // F
                self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * frac; // α ← (1 − g)·α + g·F
                self.ecn_cnt = 0;
                self.batch = (ev.snd_nxt - ack_seq) / self.mtu + 1;
            }
            self.last_update_seq = ev.snd_nxt;
        }
        if self.cwr && ack_seq > self.high_seq {
            self.cwr = false; // CWR exit
        }
        if ev.ecn && !self.cwr {
            self.rate = (self.rate * (1.0 - self.alpha / 2.0)).max(self.p.min_rate_bps); // R ← R·(1 − α/2)
            self.cwr = true;
            self.high_seq = ev.snd_nxt;
        }
        if !self.cwr && new_batch {
            self.rate = (self.rate + self.p.rate_ai_bps).min(self.line); // R ← R + DCTCP_RATE_AI
        }
    }

    /// W = R·τ (VAR_WIN).
    fn cwnd(&self) -> f64 {
        self.rate * self.tau / 8.0
    }

    fn pacing_rate(&self) -> f64 {
        self.rate
    }

    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;
    use crate::cc::assert_close;

    #[test]
    fn cut_by_half_alpha_once_per_window_and_one_gbps_per_batch() {
        // 25 Gb/s host, τ = 10 µs, MTU 1000 B, α = 1, g = 1/256
        let mut d = DctcpRdma::new(Params::default(), &ctx());
        assert_eq!(d.pacing_rate(), 25e9);
        assert_close(d.cwnd(), 31_250.0); // W = 25e9·10e-6/8

        // first ACK: first batch, lastUpdateSeq = 20 000, batch = 20 000/1000 + 1 = 21;
        // +1 Gb/s is capped at line rate
        d.on_ack(&ack(0, 1000, 1000, 20_000, 10, false));
        assert_eq!(d.pacing_rate(), 25e9);
        // a CNP: R = 25G·(1 − 1/2) = 12.5G, CWR until the ACK passes 21 000
        d.on_ack(&ack(1, 1000, 2000, 21_000, 10, true));
        assert_eq!(d.pacing_rate(), 12.5e9);
        d.on_ack(&ack(2, 1000, 3000, 21_000, 10, true)); // in CWR: counted, no cut
        assert_eq!(d.pacing_rate(), 12.5e9);
        // ack 21 001 > 20 000: new batch, F = min(1, 2/21), α = (255/256)·1 + (1/256)·(2/21)
        // = 0.996466; batch = (40 000 − 21 001)/1000 + 1 = 19; 21 001 > 21 000 leaves CWR;
        // additive increase: R = 12.5G + 1G = 13.5G
        d.on_ack(&ack(3, 1000, 21_001, 40_000, 10, false));
        assert_close(d.alpha, 0.996_465_773_809_523_8);
        assert_eq!(d.pacing_rate(), 13.5e9);
        assert_close(d.cwnd(), 13.5e9 * 10e-6 / 8.0);
        // a CNP outside CWR: R = 13.5G·(1 − 0.996466/2) = 6.773856G
        d.on_ack(&ack(4, 1000, 22_001, 40_000, 10, true));
        assert!((d.pacing_rate() - 6_773_856_026.785_715).abs() < 1.0, "{}", d.pacing_rate());
        // the rate never falls below MIN_RATE
        for i in 0..40 {
            let una = 40_001 + i * 20_000;
            d.on_ack(&ack(5 + i, 1000, una, una + 19_999, 10, true));
        }
        assert_eq!(d.pacing_rate(), 100e6);
    }
}
