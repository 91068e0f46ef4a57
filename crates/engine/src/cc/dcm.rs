//! DCM (Data Center Multipath; amp-multipath-tcp.txt §2, Table 1): MPTCP's linked increase
//! (RFC 6356, Eq. (1) of the paper) with DCTCP's decrease per subflow (Eq. (2)):
//!
//!   per ACK in congestion avoidance: w_s += min(a·acked·MSS/w_total, acked·MSS/w_s)
//!   first marked ACK per window:     w_s ← w_s·(1 − α_s/2)
//!
//! α_s is the subflow's own DCTCP estimate (RFC 8257 §3.3, gain g), loss halves, floors at
//! `cwnd_min`.

use super::coupled::{lia_increase, MpWindow};
use super::dctcp::AlphaEstimator;
use super::params::cc_params;
use super::params::{check, ParamSet, FRACTION, GAIN, POS_MSS};
use super::{AckEvent, CcContext, CongestionControl, Siblings};
use super::{Algorithm, Caps, Coupled};
use crate::schema::Type;

cc_params! {
    pub struct Params {
        /// Initial window per subflow (MSS). RFC 6928: 10.
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// DCTCP's EWMA gain g. RFC 8257: 1/16 (the authors' code: DCTCPWeight 1/16).
        g: f64 = 1.0 / 16.0, Type::Number, GAIN,
            unit "", symbol "g", source "RFC 8257: 1/16 (the authors' code: DCTCPWeight 1/16)";
        /// Initial α. RFC 8257: 1.
        init_alpha: f64 = 1.0, Type::Number, FRACTION,
            unit "", symbol "α", source "RFC 8257: 1";
        /// Floor of every reduction (MSS). AMP paper §3.2: 2 packets.
        cwnd_min_mss: f64 = 2.0, Type::Number, POS_MSS,
            unit "MSS", symbol "cwnd_min", source "AMP paper §3.2: 2 packets";
    }
    rules {}
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "dcm",
    source: "DCM: AMP paper (Kheirkhah et al., IFIP Networking'19) §2, Table 1: LIA increase, DCTCP decrease",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(Dcm::new(check("dcm", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct Dcm {
    pub w: MpWindow,
    pub est: AlphaEstimator,
}

impl Dcm {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        Dcm { w: MpWindow::new(p.init_cwnd_mss, p.cwnd_min_mss, ctx), est: AlphaEstimator::new(p.g, p.init_alpha) }
    }
}

impl CongestionControl for Dcm {
    super::coupled::mp_window_methods!();
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.est.alpha);
    }
}

impl Coupled for Dcm {
    fn on_subflow_ack(&mut self, ev: &AckEvent, sib: &Siblings) {
        self.w.core.observe(ev);
        if ev.ecn {
            if self.w.core.may_reduce() {
                let cut = self.w.core.cwnd * (1.0 - self.est.alpha / 2.0); // Eq. (2)
                self.w.cut_to(cut);
            }
        } else {
            let inc = lia_increase(sib, &self.w, ev); // Eq. (1)
            self.w.grow(ev.acked_bytes, inc);
        }
        self.est.on_ack(ev);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::super::{assert_close, SubflowView};
    use super::*;

    #[test]
    fn dctcp_cut_per_subflow_and_linked_increase_by_hand() {
        let mut d = Dcm::new(Params::default(), &ctx());
        d.w.core.cwnd = 30_000.0;
        d.w.core.ssthresh = 30_000.0;
        d.est.alpha = 0.5;
        d.est.window_end = 1_000_000;
        // first mark: 30 000·(1 − 0.5/2) = 22 500
        d.on_ack(&ack(1, 1000, 1000, 40_000, 100_000_000, true));
        assert_close(d.cwnd(), 22_500.0);
        // unmarked ACK with a sibling of 22 500 B at the same 100 µs: a = 45 000·(22 500/1e-8)/
        // (2·22 500/1e-4)² = 45 000·2.25e12/2.025e17 = 0.5; increase = min(0.5·1e6/45 000,
        // 1e6/22 500) = min(11.11…, 44.4…) = 11.11…
        let views = [SubflowView { cwnd: 22_500.0, srtt: 100e-6, active: true }; 2];
        d.on_subflow_ack(&ack(2, 1000, 2000, 40_000, 100_000_000, false), &Siblings { me: 1, all: &views });
        assert_close(d.cwnd(), 22_500.0 + 0.5 * 1e6 / 45_000.0);
    }

    #[test]
    fn cut_floors_at_cwnd_min() {
        let mut d = Dcm::new(Params { cwnd_min_mss: 2.0, init_cwnd_mss: 2.5, ..Default::default() }, &ctx());
        d.est.window_end = 1_000_000; // α = 1: 2500·(1 − 1/2) = 1250 → floored at 2000
        d.on_ack(&ack(1, 1000, 1000, 3000, 10, true));
        assert_eq!(d.cwnd(), 2000.0);
    }
}
