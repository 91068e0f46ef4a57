//! XMP (Cao et al., CoNEXT'13; as summarised in amp-multipath-tcp.txt §2, Table 1, Eq. (3)):
//!
//!   per round (RTT) subflow s grows by δ_s = (rtt_s/rtt_min)·(w_s/rtt_s) / Σ_r (w_r/rtt_r) MSS,
//!   spread over the round's ACKs: w_s += δ_s·MSS·acked/w_s;
//!   first marked ACK per window: w_s ← max(w_s·(1 − 1/β), cwnd_min), β = 4;
//!   loss halves.
//!
//! rtt_min is the smallest RTT over the connection's active subflows. Slow start as Reno.
//! The authors' ns-3 code (mkheirkhah/amp, mp-tcp-socket-base.cc, DoXMPEnterCWR) cuts by
//! ⌊w/β⌋ with the same floor.

use super::coupled::{each, MpWindow};
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
        /// ECN response w ← w·(1 − 1/β). AMP paper §5 / XMP: 4.
        beta: f64 = 4.0, Type::Number, MP_BETA,
            unit "", symbol "β", source "AMP paper §5 / XMP: 4";
        /// Floor of every reduction (MSS). AMP paper §3.2: 2 packets.
        cwnd_min_mss: f64 = 2.0, Type::Number, POS_MSS,
            unit "MSS", symbol "cwnd_min", source "AMP paper §3.2: 2 packets";
    }
    rules {}
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "xmp",
    source: "XMP: Cao et al., CoNEXT'13, as AMP paper §2 Eq. (3)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(Xmp::new(check("xmp", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct Xmp {
    pub w: MpWindow,
    pub beta: f64,
}

impl Xmp {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        Xmp { w: MpWindow::new(p.init_cwnd_mss, p.cwnd_min_mss, ctx), beta: p.beta.max(1.0) }
    }
}

/// δ_s of Eq. (3) in MSS per round.
pub fn delta(sib: &Siblings, w: &MpWindow, ev: &AckEvent) -> f64 {
    let (mut sum, mut rtt_min, mut own) = (0.0, f64::INFINITY, (0.0, 1.0));
    for (j, (wr, rtt, active)) in each(sib, w, ev).enumerate() {
        if active {
            sum += wr / rtt;
            rtt_min = rtt_min.min(rtt);
        }
        if j == sib.me {
            own = (wr, rtt);
        }
    }
    (own.1 / rtt_min) * (own.0 / own.1) / sum
}

impl CongestionControl for Xmp {
    super::coupled::mp_window_methods!();
}

impl Coupled for Xmp {
    fn on_subflow_ack(&mut self, ev: &AckEvent, sib: &Siblings) {
        self.w.core.observe(ev);
        if ev.ecn {
            if self.w.core.may_reduce() {
                let cut = self.w.core.cwnd * (1.0 - 1.0 / self.beta);
                self.w.cut_to(cut);
            }
            return;
        }
        let inc = delta(sib, &self.w, ev) * self.w.mss() * ev.acked_bytes as f64 / self.w.core.cwnd; // Eq. (3)
        self.w.grow(ev.acked_bytes, inc);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::super::{assert_close, SubflowView};
    use super::*;

    #[test]
    fn increase_follows_eq_3_by_hand() {
        // me: w = 10 000 B, srtt 200 µs; sibling: 30 000 B at 100 µs (rtt_min).
        // Σ w/rtt = 5e7 + 3e8 = 3.5e8; δ = (200/100)·(1e4/2e-4)/3.5e8 = 2·5e7/3.5e8 = 0.285714…
        // per ACK of 1000 B: δ·1000·1000/10 000 = 28.571… B
        let mut x = Xmp::new(Params::default(), &ctx());
        x.w.core.cwnd = 10_000.0;
        x.w.core.ssthresh = 10_000.0;
        let views =
            [SubflowView { cwnd: 10_000.0, srtt: 200e-6, active: true }, SubflowView { cwnd: 30_000.0, srtt: 100e-6, active: true }];
        x.on_subflow_ack(&ack(1, 1000, 1000, 20_000, 200_000_000, false), &Siblings { me: 0, all: &views });
        let d = 2.0 * 5e7 / 3.5e8;
        assert_close(x.cwnd(), 10_000.0 + d * 1e6 / 1e4);
    }

    #[test]
    fn mark_cuts_a_quarter_once_per_window_not_below_cwnd_min() {
        let mut x = Xmp::new(Params::default(), &ctx());
        x.w.core.cwnd = 8000.0;
        x.on_ack(&ack(1, 1000, 1000, 9000, 10, true));
        assert_eq!(x.cwnd(), 6000.0); // 8000·3/4
        x.on_ack(&ack(2, 1000, 2000, 9000, 10, true));
        assert_eq!(x.cwnd(), 6000.0);
        x.w.core.cwnd = 2400.0;
        x.w.core.recover = 0;
        x.on_ack(&ack(3, 1000, 9000, 12_000, 10, true));
        assert_eq!(x.cwnd(), 2000.0); // 1800 → cwnd_min 2 MSS
    }
}
