//! MPTCP with the Linked Increases Algorithm (RFC 6356), the uncoupled-decrease baseline of the
//! AMP paper (§2). Per ACK on subflow s in congestion avoidance (RFC 6356 §3):
//!
//!   w_s += min(a·acked·MSS/w_total, acked·MSS/w_s),  a = w_total·max_r(w_r/rtt_r²)/(Σ_r w_r/rtt_r)²
//!
//! Slow start per subflow is Reno's (RFC 6356 §3 leaves it unchanged). A loss (NACK) halves w_s;
//! an ECN echo (RFC 3168 §6.1.2: treated as loss, once per window) sets w_s ← w_s·(1 − 1/β),
//! β = 2 (halving) by default; β = 4 is the paper's "MPTCP (β = 4)" of Fig. 6/11.

use super::coupled::{lia_increase, MpWindow};
use super::params::cc_params;
use super::params::{check, ParamSet, MP_BETA, POS_MSS};
use super::{AckEvent, CcContext, CongestionControl, Siblings};
use super::{Algorithm, Caps, Coupled};
use crate::schema::Type;

cc_params! {
    pub struct Params {
        /// Initial window per subflow (MSS). RFC 6928: 10.
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// ECN response w ← w·(1 − 1/β), once per window. RFC 3168: β = 2.
        beta: f64 = 2.0, Type::Number, MP_BETA,
            unit "", symbol "β", source "RFC 3168: 2";
        /// Floor of every reduction (MSS). AMP paper §3.2: 2 packets.
        cwnd_min_mss: f64 = 2.0, Type::Number, POS_MSS,
            unit "MSS", symbol "cwnd_min", source "AMP paper §3.2: 2 packets";
    }
    rules {}
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "mptcp-lia",
    source: "MPTCP Linked Increases: RFC 6356 §3 (ECN as loss, RFC 3168; β option)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(MptcpLia::new(check("mptcp-lia", p, at)?, c))),
    caps: Caps::LINUX_LOSS_BASED,
};

pub struct MptcpLia {
    pub w: MpWindow,
    pub beta: f64,
}

impl MptcpLia {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        MptcpLia { w: MpWindow::new(p.init_cwnd_mss, p.cwnd_min_mss, ctx), beta: p.beta.max(1.0) }
    }
}

impl CongestionControl for MptcpLia {
    super::coupled::mp_window_methods!();
}

impl Coupled for MptcpLia {
    fn on_subflow_ack(&mut self, ev: &AckEvent, sib: &Siblings) {
        self.w.core.observe(ev);
        if ev.ecn {
            if self.w.core.may_reduce() {
                let cut = self.w.core.cwnd * (1.0 - 1.0 / self.beta); // RFC 3168 §6.1.2
                self.w.cut_to(cut);
            }
            return;
        }
        let inc = lia_increase(sib, &self.w, ev); // RFC 6356 §3
        self.w.grow(ev.acked_bytes, inc);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::super::{assert_close, SubflowView};
    use super::*;

    fn ca(cwnd: f64) -> MptcpLia {
        let mut c = MptcpLia::new(Params::default(), &ctx());
        c.w.core.cwnd = cwnd;
        c.w.core.ssthresh = cwnd; // congestion avoidance
        c
    }

    #[test]
    fn linked_increase_matches_rfc_6356_by_hand() {
        // subflow 0: w = 10 000 B, rtt 100 µs (this ACK's own sample: srtt unset); subflow 1:
        // w = 20 000 B, srtt 200 µs. MSS 1000.
        // w_total = 30 000; max(w/rtt²) = max(1e4/1e-8, 2e4/4e-8) = 1e12;
        // Σ w/rtt = 1e8 + 1e8 = 2e8; a = 3e4·1e12/4e16 = 0.75.
        // One ACK of 1000 B: min(0.75·1000·1000/30 000, 1000·1000/10 000) = min(25, 100) = 25 B.
        let mut c = ca(10_000.0);
        let views = [SubflowView { cwnd: 10_000.0, srtt: 0.0, active: true }, SubflowView { cwnd: 20_000.0, srtt: 200e-6, active: true }];
        c.on_subflow_ack(&ack(1, 1000, 1000, 20_000, 100_000_000, false), &Siblings { me: 0, all: &views });
        assert_close(c.cwnd(), 10_025.0);
        // alone (one subflow): a = w·(w/rtt²)/(w/rtt)² = 1 → Reno's MSS·acked/w = 1000·1000/10 025
        let mut s = ca(10_025.0);
        s.on_ack(&ack(2, 1000, 2000, 20_000, 100_000_000, false));
        assert_close(s.cwnd(), 10_025.0 + 1e6 / 10_025.0);
    }

    #[test]
    fn ecn_halves_once_per_window_and_beta_four_cuts_a_quarter() {
        let mut c = ca(20_000.0);
        c.on_ack(&ack(1, 1000, 1000, 30_000, 10, true));
        assert_eq!(c.cwnd(), 10_000.0);
        c.on_ack(&ack(2, 1000, 2000, 30_000, 10, true)); // same window: no second cut
        assert_eq!(c.cwnd(), 10_000.0);
        let mut b4 = MptcpLia::new(Params { beta: 4.0, ..Default::default() }, &ctx());
        b4.w.core.cwnd = 20_000.0;
        b4.on_ack(&ack(1, 1000, 1000, 30_000, 10, true));
        assert_eq!(b4.cwnd(), 15_000.0); // 20 000·(1 − 1/4)
    }
}
