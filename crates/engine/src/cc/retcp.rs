//! reTCP (Mukerjee et al., "Adapting TCP for Reconfigurable Datacenter Networks", NSDI'20), the
//! baseline of PowerTCP §5: NewReno whose window jumps with the circuit state its ToR signals.
//!
//! - Circuit up (the ToR's circuit towards the destination rack begins its day):
//!   cwnd ← cwnd · jump_up (reTCP §4, "explicit circuit state feedback": α = 2).
//! - Circuit down (the night begins): cwnd ← cwnd / jump_down (β = 2), at least one MSS.
//! - Otherwise NewReno (RFC 5681, RFC 6582) on the shared `RenoCore`.
//!
//! The signal: reTCP's ToR marks packets with the circuit state and the sender reacts to a change
//! of the echoed mark; here the ToR's notification reaches the controller through
//! `CongestionControl::on_circuit` at the instant of the change (fabric/circuit.rs,
//! docs/models.md). Prebuffering is the ToR's part (VOQ capacity raised ahead of the circuit), not
//! the sender's.

use super::params::cc_params;
use super::params::{check, init_within_max, ParamSet, INIT_WITHIN_MAX, MSS, POS_MSS};
use super::reno::{Reno, RenoParams};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps, CircuitAware};
use crate::schema::{Range, Type};
use crate::time::Time;

cc_params! {
    /// reTCP parameters: NewReno's plus the two jump factors.
    pub struct RetcpParams {
        /// Initial window (MSS), as Reno's.
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928 §2: 10 segments (as reno)";
        /// Initial slow-start threshold (MSS); 0 means "arbitrarily high", as Reno's.
        init_ssthresh_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "ssthresh", source "RFC 5681 §3.1: arbitrarily high (0)";
        /// Additive increase in congestion avoidance (MSS per RTT), as Reno's.
        ai_mss_per_rtt: f64 = 1.0, Type::Number, POS_MSS,
            unit "MSS/RTT", symbol "", source "RFC 5681 §3.1 eq. (3): 1";
        /// Upper bound of the window (MSS); 0 means unbounded, as Reno's.
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "none (0 = unbounded)";
        /// Window multiplier when the circuit comes up (reTCP: 2).
        jump_up: f64 = 2.0, Type::Number, Range::closed(1.0, 64.0),
            unit "", symbol "", source "reTCP (NSDI'20 §4): 2; 1 = no jump, beyond 64 no study goes";
        /// Window divisor when the circuit goes down (reTCP: 2).
        jump_down: f64 = 2.0, Type::Number, Range::closed(1.0, 64.0),
            unit "", symbol "", source "reTCP (NSDI'20 §4): 2; 1 = no jump, beyond 64 no study goes";
    }
    rules {
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "retcp",
    source: "reTCP: Mukerjee et al., NSDI'20, §4 (circuit-state window jumps)",
    params: ParamSet::of::<RetcpParams>(),
    build: |p, at, c| Ok(Box::new(Retcp::new(check("retcp", p, at)?, c))),
    caps: Caps::DEFAULT,
};

pub struct Retcp {
    reno: Reno,
    jump_up: f64,
    jump_down: f64,
}

impl Retcp {
    pub fn new(p: RetcpParams, ctx: &CcContext) -> Self {
        let reno = RenoParams {
            init_cwnd_mss: p.init_cwnd_mss,
            init_ssthresh_mss: p.init_ssthresh_mss,
            ai_mss_per_rtt: p.ai_mss_per_rtt,
            max_cwnd_mss: p.max_cwnd_mss,
        };
        Retcp { reno: Reno::new(reno, ctx), jump_up: p.jump_up.max(1.0), jump_down: p.jump_down.max(1.0) }
    }
}

impl CongestionControl for Retcp {
    /// Between circuit changes: NewReno.
    fn on_ack(&mut self, ev: &AckEvent) {
        self.reno.on_ack(ev)
    }
    fn on_nack(&mut self, now: Time) {
        self.reno.on_nack(now)
    }
    fn on_timeout(&mut self, now: Time) {
        self.reno.on_timeout(now)
    }
    fn circuit_aware(&mut self) -> Option<&mut dyn CircuitAware> {
        Some(self)
    }
    fn cwnd(&self) -> f64 {
        self.reno.cwnd()
    }
    fn pacing_rate(&self) -> f64 {
        self.reno.pacing_rate()
    }
}

impl CircuitAware for Retcp {
    fn on_circuit(&mut self, _now: Time, up: bool) {
        let c = &mut self.reno.core;
        c.cwnd = if up { (c.cwnd * self.jump_up).min(c.max_cwnd) } else { (c.cwnd / self.jump_down).max(c.mss) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;

    #[test]
    fn window_doubles_on_circuit_up_and_halves_on_circuit_down() {
        // MSS 1000 B, initial window 10 MSS = 10 000 B
        let mut r = Retcp::new(RetcpParams::default(), &ctx());
        assert_eq!(r.cwnd(), 10_000.0);
        r.on_circuit(1, true); // 10 000 · 2
        assert_eq!(r.cwnd(), 20_000.0);
        r.on_ack(&ack(2, 1000, 1000, 30_000, 10, false)); // slow start: + 1 MSS
        assert_eq!(r.cwnd(), 21_000.0);
        r.on_circuit(3, false); // 21 000 / 2
        assert_eq!(r.cwnd(), 10_500.0);
    }

    #[test]
    fn jumps_use_the_configured_factors_and_bounds() {
        let p = RetcpParams { init_cwnd_mss: 3.0, jump_up: 4.0, jump_down: 8.0, max_cwnd_mss: 10.0, ..Default::default() };
        let mut r = Retcp::new(p, &ctx());
        r.on_circuit(0, true); // 3000 · 4 = 12 000, capped at max 10 MSS = 10 000
        assert_eq!(r.cwnd(), 10_000.0);
        r.on_circuit(1, false); // 10 000 / 8 = 1250
        assert_eq!(r.cwnd(), 1250.0);
        r.on_circuit(2, false); // 1250 / 8 = 156.25, floored at 1 MSS
        assert_eq!(r.cwnd(), 1000.0);
    }

    #[test]
    fn between_circuit_changes_it_is_newreno() {
        let mut r = Retcp::new(RetcpParams { init_cwnd_mss: 20.0, ..Default::default() }, &ctx());
        r.on_ack(&ack(1, 0, 5000, 25_000, 10, false));
        r.on_nack(2); // RFC 5681 eq. (4): 20 000 / 2
        assert_eq!(r.cwnd(), 10_000.0);
        r.on_timeout(3); // loss window: 1 MSS
        assert_eq!(r.cwnd(), 1000.0);
    }
}
