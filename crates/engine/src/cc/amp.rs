//! AMP (adaptive multipath; amp-multipath-tcp.txt §4.2, Algorithm 1):
//!
//!   per non-duplicate ACK of subflow s:   w_s ← w_s + 1/w_total            (l. 33, MSS units;
//!                                          bytes: + MSS·acked/w_total)
//!   first marked ACK of s per window:      w_s ← max(w_s·(1 − 1/β), cwnd_min)   (l. 39), β = 4
//!   loss (NACK, the engine's dup-ACK):     w_s ← max(w_s/2, cwnd_min)           (l. 44)
//!
//! Subflow suppression/release (SSR, l. 1–26), run by the initial subflow's controller once per
//! round (a window of its data, as DCTCP's α window): if every subflow sat at cwnd_min for γ
//! consecutive rounds, all but the initial subflow are deactivated (they finish what they hold
//! but get no new data, and w_total counts the active ones only); they are released when the
//! initial subflow saw no mark for τ consecutive rounds. "At cwnd_min" is ⌊w/MSS⌋ = cwnd_min, as
//! the authors' code reads it (w grows by a fraction of a packet per ACK after every cut).
//!
//! Defaults: `defaults = "paper"` — §5: cwnd_min = 2 packets, γ = 2, τ = 8. `defaults = "code"` —
//! the authors' ns-3 code (github.com/mkheirkhah/amp, src/internet/model/mp-tcp-socket-base.cc,
//! attributes CwndMin = 1, IncastThresh = 10, IncastExitThresh = 8, and MpTcpSocketBase::
//! CheckIncast, which also requires the initial subflow's window above cwnd_min to count a release
//! round). `cwnd_min_mss`, `gamma_rounds`, `tau_rounds` override either. The pseudocode has no slow
//! start; a subflow slow-starts as Reno until its first reduction (the authors' MPTCP is NewReno
//! based).

use serde::{Deserialize, Serialize};

use super::coupled::{w_total, MpWindow};
use super::params::cc_params;
use super::params::{check, ParamSet, MP_BETA, POS_COUNT, POS_MSS};
use super::{AckEvent, CcContext, CongestionControl, Siblings};
use super::{Algorithm, Caps, Coupled};
use crate::schema::{Range, Type};

/// Whose defaults for cwnd_min, γ and τ (and the release rule).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Defaults {
    /// The paper: cwnd_min 2, γ 2, τ 8; release after τ rounds without a mark.
    #[default]
    Paper,
    /// The authors' ns-3 code: cwnd_min 1, γ 10, τ 8; a release round also needs w_1 > cwnd_min.
    Code,
}

cc_params! {
    pub struct Params {
        /// Initial window per subflow (MSS). RFC 6928: 10.
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// ECN response w ← w·(1 − 1/β). Paper §4.2/§5: 4.
        beta: f64 = 4.0, Type::Number, MP_BETA,
            unit "", symbol "β", source "AMP paper §4.2/§5: 4";
        /// Whose defaults of cwnd_min, γ and τ: the paper's or the authors' ns-3 code's.
        defaults: Defaults = Defaults::Paper, Type::Choice(&["paper", "code"]), Range::ANY,
            unit "", symbol "", source "the AMP paper (paper)";
        /// Minimum window (MSS); null = the defaults' (paper 2, code 1).
        cwnd_min_mss: Option<f64> = None, Type::Number, POS_MSS,
            unit "MSS", symbol "cwnd_min", source "derived from defaults: 2 (paper), 1 (code)";
        /// γ: rounds with every subflow at cwnd_min before suppression; null = the defaults' (2 / 10).
        gamma_rounds: Option<u32> = None, Type::Count, POS_COUNT,
            unit "", symbol "γ", source "derived from defaults: 2 (paper), 10 (code)";
        /// τ: unmarked rounds of the initial subflow before release; null = the defaults' (8 / 8).
        tau_rounds: Option<u32> = None, Type::Count, POS_COUNT,
            unit "", symbol "τ", source "derived from defaults: 8 (paper and code)";
        /// Subflow suppression/release on (off: AMP's window law alone).
        ssr: bool = true, Type::Bool, Range::ANY,
            unit "", symbol "", source "AMP Algorithm 1: on";
    }
    rules {}
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "amp",
    source: "AMP: Kheirkhah et al., IFIP Networking'19, §4.2 Algorithm 1 (defaults paper; code = mkheirkhah/amp mp-tcp-socket-base.cc)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(Amp::new(check("amp", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct Amp {
    pub w: MpWindow,
    pub beta: f64,
    pub gamma: u32,
    pub tau: u32,
    pub ssr: bool,
    /// Release needs w_1 > cwnd_min (the authors' code).
    pub release_above_min: bool,
    /// SSR state (initial subflow only): suppressed, consecutive qualifying rounds, round end
    /// (snd_nxt at the round's start), a mark seen in the current round.
    pub suppressed: bool,
    pub n_round: u32,
    pub round_end: u64,
    pub marked: bool,
    pub me: usize,
}

impl Amp {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        let (cmin, gamma, tau) = match p.defaults {
            Defaults::Paper => (2.0, 2, 8),
            Defaults::Code => (1.0, 10, 8),
        };
        Amp {
            w: MpWindow::new(p.init_cwnd_mss, p.cwnd_min_mss.unwrap_or(cmin), ctx),
            beta: p.beta.max(1.0),
            gamma: p.gamma_rounds.unwrap_or(gamma),
            tau: p.tau_rounds.unwrap_or(tau),
            ssr: p.ssr,
            release_above_min: p.defaults == Defaults::Code,
            suppressed: false,
            n_round: 0,
            round_end: 0,
            marked: false,
            me: 0,
        }
    }

    /// ⌊w/MSS⌋ = cwnd_min (in packets).
    fn at_min(&self, cwnd: f64) -> bool {
        (cwnd / self.w.mss()).floor() <= (self.w.cwnd_min / self.w.mss()).round()
    }

    /// Algorithm 1 l. 1–26, once per round of the initial subflow.
    fn ssr_round(&mut self, sib: &Siblings) {
        if !self.suppressed {
            // l. 2–15: count rounds with every subflow at cwnd_min
            let own = self.w.core.cwnd;
            let all_min = sib.all.iter().enumerate().all(|(j, v)| self.at_min(if j == sib.me { own } else { v.cwnd }));
            self.n_round = if all_min { self.n_round + 1 } else { 0 };
            if self.n_round >= self.gamma {
                self.suppressed = true;
                self.n_round = 0;
            }
        } else {
            // l. 18–26: count unmarked rounds of the initial subflow
            let counts = !self.marked && !(self.release_above_min && self.at_min(self.w.core.cwnd));
            self.n_round = if counts { self.n_round + 1 } else { 0 };
            if self.n_round >= self.tau {
                self.suppressed = false;
                self.n_round = 0;
            }
        }
    }
}

impl CongestionControl for Amp {
    super::coupled::mp_window_methods!();
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("suppressed", self.suppressed as u8 as f64);
        out("n_round", self.n_round as f64);
    }
}

impl Coupled for Amp {
    fn on_subflow_ack(&mut self, ev: &AckEvent, sib: &Siblings) {
        self.me = sib.me;
        self.w.core.observe(ev);
        if ev.ecn {
            self.marked = true;
            if self.w.core.may_reduce() {
                let cut = self.w.core.cwnd * (1.0 - 1.0 / self.beta); // l. 39
                self.w.cut_to(cut);
            }
        } else {
            let inc = self.w.mss() * ev.acked_bytes as f64 / w_total(sib, &self.w, ev); // l. 33
            self.w.grow(ev.acked_bytes, inc);
        }
        if self.ssr && sib.me == 0 && sib.all.len() > 1 && ev.snd_una > self.round_end {
            self.ssr_round(sib);
            self.round_end = ev.snd_nxt;
            self.marked = false;
        }
    }
    fn suppress_siblings(&self) -> Option<bool> {
        (self.ssr && self.me == 0).then_some(self.suppressed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::super::{assert_close, SubflowView};
    use super::*;

    fn views(cwnds: &[f64]) -> Vec<SubflowView> {
        cwnds.iter().map(|&c| SubflowView { cwnd: c, srtt: 100e-6, active: true }).collect()
    }

    #[test]
    fn increase_is_one_over_w_total_and_cut_is_a_quarter_by_hand() {
        let mut a = Amp::new(Params::default(), &ctx());
        a.w.core.cwnd = 10_000.0;
        a.w.core.ssthresh = 10_000.0;
        a.round_end = u64::MAX; // no SSR round in this test
                                // w_total = 10 000 + 30 000 = 40 MSS: + 1/40 MSS = 25 B per ACK of one MSS
        let v = views(&[10_000.0, 30_000.0]);
        a.on_subflow_ack(&ack(1, 1000, 1000, 20_000, 10, false), &Siblings { me: 0, all: &v });
        assert_close(a.cwnd(), 10_025.0);
        // first mark: 10 025·3/4
        a.on_subflow_ack(&ack(2, 1000, 2000, 20_000, 10, true), &Siblings { me: 0, all: &v });
        assert_close(a.cwnd(), 10_025.0 * 0.75);
        // NACK in a new window: halve, floored at cwnd_min = 2 MSS (paper)
        a.w.core.recover = 0;
        a.w.core.cwnd = 3000.0;
        a.on_nack(3);
        assert_eq!(a.cwnd(), 2000.0);
        assert_eq!(Amp::new(Params { defaults: Defaults::Code, ..Default::default() }, &ctx()).w.cwnd_min, 1000.0);
    }

    /// One ACK that closes a round of the initial subflow: snd_una passes the round end.
    fn round(a: &mut Amp, k: u64, ecn: bool, v: &[SubflowView]) {
        a.on_subflow_ack(&ack(k, 1000, 10_000 * k + 1, 10_000 * (k + 1), 10, ecn), &Siblings { me: 0, all: v });
    }

    #[test]
    fn suppression_after_gamma_rounds_at_cwnd_min_and_release_after_tau_clean_rounds() {
        let mut a = Amp::new(Params::default(), &ctx()); // γ = 2, τ = 8, cwnd_min = 2 MSS
        let at_min = views(&[2000.0, 2500.0, 2999.0, 2000.0]); // ⌊w/MSS⌋ = 2 everywhere
        a.w.core.cwnd = 2000.0;
        a.w.core.ssthresh = 2000.0;
        round(&mut a, 1, true, &at_min); // round 1 at min (the mark keeps w at the floor)
        assert_eq!((a.suppressed, a.n_round), (false, 1));
        assert_eq!(a.suppress_siblings(), Some(false));
        // a round where one subflow is above the minimum resets the count
        let one_up = views(&[2000.0, 3000.0, 2000.0, 2000.0]);
        a.w.core.recover = 0;
        round(&mut a, 2, true, &one_up);
        assert_eq!((a.suppressed, a.n_round), (false, 0));
        a.w.core.recover = 0;
        round(&mut a, 3, true, &at_min);
        a.w.core.recover = 0;
        round(&mut a, 4, true, &at_min);
        assert!(a.suppressed, "γ = 2 rounds at cwnd_min suppress");
        assert_eq!(a.suppress_siblings(), Some(true));
        // release: τ = 8 rounds without a mark; a marked round restarts the count
        for k in 5..12 {
            round(&mut a, k, false, &at_min);
        }
        assert_eq!((a.suppressed, a.n_round), (true, 7));
        round(&mut a, 12, true, &at_min);
        assert_eq!((a.suppressed, a.n_round), (true, 0));
        for k in 13..21 {
            round(&mut a, k, false, &at_min);
        }
        assert!(!a.suppressed, "released after τ = 8 clean rounds");
        assert_eq!(a.suppress_siblings(), Some(false));
    }

    #[test]
    fn only_the_initial_subflow_runs_ssr() {
        let mut a = Amp::new(Params { gamma_rounds: Some(1), ..Default::default() }, &ctx());
        a.w.core.cwnd = 2000.0;
        let v = views(&[2000.0, 2000.0]);
        a.on_subflow_ack(&ack(1, 1000, 1001, 20_000, 10, true), &Siblings { me: 1, all: &v });
        assert!(!a.suppressed);
        assert_eq!(a.suppress_siblings(), None);
        // the code's defaults: cwnd_min 1, γ 10, and a release round needs w_1 above cwnd_min
        let c = Amp::new(Params { defaults: Defaults::Code, ..Default::default() }, &ctx());
        assert_eq!((c.gamma, c.tau, c.release_above_min), (10, 8, true));
    }
}
