//! PowerTCP (Addanki et al., NSDI'22), §3.3 Algorithm 1: power-based window control from INT.
//!
//! Power Γ' = λ·ν, current λ = q̇ + μ (queue growth plus transmit rate), voltage ν = q + b·τ
//! (queue plus bandwidth-delay product); normalised by the base power e = b²·τ. The window law
//! (Eq. 7) is cwnd ← γ·(cwnd_old/Γ_norm + β) + (1 − γ)·cwnd, with cwnd_old the window when the
//! acknowledged segment was sent (remembered once per RTT).

use serde::{Deserialize, Serialize};

use super::params::cc_params;
use super::params::{check, ParamSet, BYTES, FRACTION, GAIN, RATE};
use super::power_meter::{OldWindow, PowerMeter};
use super::{clamp, AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps, Header, StudyNic};
use crate::schema::{Range, Type};
use crate::time::Time;

/// Which reading of PowerTCP to run.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Law {
    /// The paper's Algorithm 1: a window law, updated per ACK, paced at cwnd/τ.
    #[default]
    Paper,
    /// The authors' ns-3 TCP/IP-stack PowerTCP, `TcpAdvanced::UpdateRatePowertcp` in
    /// `simulator/ns-3.39/src/internet/model/tcp-advanced.cc` of inet-tub/ns3-datacenter: a rate
    /// law (R in bit/s, window derived as R·τ) with the current λ = q̇ + μ floored at 0.5·b, power
    /// divided by η, R = R_c/c + AI when c ≤ 0.5 else γ·(R_c/c + AI) + (1 − γ)·R_c, rate clamped
    /// to [min_rate, line rate], R_c committed once per RTT. (Called "artifact" before issue 8.)
    TcpAdvanced,
    /// The authors' RDMA-NIC PowerTCP, the one their paper's evaluation runs (CC mode 3 with
    /// `wien`): `RdmaHw::UpdateRatePower` in `simulator/ns-3.39/src/point-to-point/model/
    /// rdma-hw.cc` of inet-tub/ns3-datacenter as of commit 15b7af0 (2024-06; the same law in the
    /// ns-3.35 tree since 4909931, 2022-06): the current is the INT byte counter's rate Δbytes/Δt
    /// with no floor (the artifact's counter counts bytes received into the queue: pair it with
    /// `switch.int_bytes = "rx"`), power divided by η, always R = 0.9·(R_c/c + 150 Mb/s) +
    /// 0.1·R_c, rate clamped to [min_rate, line rate], R_c committed once per RTT. (The
    /// repository's newest commit, f542a97 of 2025-03, adds a 0.5·b floor on that current.)
    RdmaHw,
    /// The law of the Linux testbed's eBPF controller (bpf/cc_math.h, docs/testbed.md "Test
    /// vectors"): Algorithm 1's window law with the normalised power floored at `power_floor`
    /// (default 0.01) before and after smoothing, and cwnd_old refreshed only by ACKs that update
    /// the window (an ACK whose INT cannot be differenced, e.g. the first, changes nothing).
    Linux,
}

cc_params! {
    pub struct Params {
        /// γ, the EWMA weight of the window update (paper §3.3: 0.9).
        gamma: f64 = 0.9, Type::Number, GAIN,
            unit "", symbol "γ", source "PowerTCP §3.3: 0.9";
        /// β, additive increase in bytes. Default: HostBw·τ/N with N = HostBw/`additive_increase_bps`.
        beta_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "β", source "derived: HostBw·τ/N with N = HostBw/additive_increase_bps (PowerTCP §3.3)";
        /// The additive increase as a rate (bits/s); β = rate·τ/8. The paper leaves N of
        /// β = HostBw·τ/N open; its artifact uses an increase of 150 Mb/s, which we take as default.
        additive_increase_bps: f64 = 150e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "the PowerTCP artifact: 150 Mb/s";
        /// Initial window in bytes; default HostBw·τ (paper: line rate in the first RTT).
        init_cwnd_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "", source "derived: HostBw·τ (PowerTCP: line rate in the first RTT)";
        /// Which reading of PowerTCP to run (`Law`): the paper's window law, the authors' TCP or RDMA
        /// rate laws, or the Linux testbed's.
        law: Law = Law::Paper, Type::Choice(&["paper", "tcp-advanced", "rdma-hw", "linux"]), Range::ANY,
            unit "", symbol "", source "PowerTCP Algorithm 1 (paper)", alias "variant";
        /// η, target utilisation (rate variants tcp-advanced and rdma-hw only).
        eta: f64 = 0.95, Type::Number, GAIN,
            unit "", symbol "η", source "PowerTCP evaluation configs: 0.95";
        /// Minimum rate (rate variants only), bits/s.
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "PowerTCP evaluation configs (MIN_RATE): 100 Mb/s";
        /// Floor on the measured current λ as a fraction of the hop's rate. Algorithm 1 has none
        /// (default 0 for the paper and rdma-hw variants); tcp-advanced.cc floors λ at 0.5·b (the
        /// default of variant tcp-advanced).
        /// Without it a sender that stops after a window cut makes λ ≈ 0 at the bottleneck, Γ ≈ 0,
        /// and the next update multiplies the window: see docs/models.md.
        current_floor: Option<f64> = None, Type::Number, FRACTION,
            unit "", symbol "", source "derived from the law: 0.5 for tcp-advanced (tcp-advanced.cc), else none";
        /// Lower bound of the normalised power Γ_norm and of Γ_smooth (a division guard). Algorithm 1
        /// has none (paper and artifact: unset); the Linux variant's default is 0.01.
        power_floor: Option<f64> = None, Type::Number, GAIN,
            unit "", symbol "", source "derived from the law: 0.01 for linux (bpf/cc_math.h), else none";
        /// Apply the window law at most once per τ (the first ACK at least τ after the previous
        /// update), as PowerTCP §5 runs it beside reTCP; the power is still measured on every ACK.
        /// Time, not sequence: under go-back-N losses snd_una may take many RTTs to pass a window.
        /// false = Algorithm 1's per-ACK update.
        per_rtt: bool = false, Type::Bool, Range::ANY,
            unit "", symbol "", source "PowerTCP Algorithm 1: per ACK";
        /// Difference a flow's first INT stack against zero records, as the RDMA artifact's newest
        /// `RdmaHw::UpdateRatePower` does (commit f542a97, 2025-03: the first-RTT "store INT only"
        /// branch of 15b7af0 is gone, so the first ACK updates the rate against the zero-initialised
        /// `hp.hop`; `IntHistory::prime_as_artifact_zero`). Pair with `current_floor = 0.5` for that
        /// commit's law. false (default): the first ACK only stores the INT (Algorithm 1, 15b7af0).
        first_int_against_zero: bool = false, Type::Bool, Range::ANY,
            unit "", symbol "", source "PowerTCP Algorithm 1 / artifact 15b7af0: off";
    }
    rules {
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "powertcp",
    source: "PowerTCP: Addanki et al., NSDI'22, §3.3 Algorithm 1",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(PowerTcp::new(check("powertcp", p, at)?, c))),
    caps: Caps { needs_int: true, study_nic: StudyNic { header: Header::Int, window_cap: true }, ..Caps::DEFAULT },
};

pub struct PowerTcp {
    p: Params,
    tau: f64,
    host_bdp: f64,
    beta: f64,
    cwnd: f64,
    rate: f64,
    mss: f64,
    line_rate: f64,
    meter: PowerMeter,
    old: OldWindow,
    /// With `per_rtt`: the next update waits for an ACK at or after this time (ps).
    next_update_at: Time,
}

impl PowerTcp {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        let tau = ctx.base_rtt;
        let host_bdp = ctx.host_rate_bps * tau / 8.0;
        let beta = p.beta_bytes.unwrap_or(p.additive_increase_bps * tau / 8.0);
        let cwnd = p.init_cwnd_bytes.unwrap_or(host_bdp);
        let current_floor = p.current_floor.unwrap_or(match p.law {
            Law::Paper | Law::Linux | Law::RdmaHw => 0.0,
            Law::TcpAdvanced => 0.5,
        });
        let power_floor = p.power_floor.unwrap_or(match p.law {
            Law::Paper | Law::TcpAdvanced | Law::RdmaHw => f64::NEG_INFINITY,
            Law::Linux => 0.01,
        });
        let byte_rate_current = p.law == Law::RdmaHw;
        PowerTcp {
            tau,
            host_bdp,
            beta,
            cwnd,
            // line rate in the first RTT (§3.3 "Parameters")
            rate: ctx.host_rate_bps,
            mss: ctx.mss,
            line_rate: ctx.host_rate_bps,
            meter: PowerMeter::configured(tau, current_floor, power_floor, byte_rate_current, ctx.int_bytes, p.first_int_against_zero),
            old: OldWindow::new(cwnd),
            next_update_at: 0,
            p,
        }
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    pub fn smoothed_power(&self) -> f64 {
        self.meter.smooth
    }
}

impl CongestionControl for PowerTcp {
    fn header(&self) -> Header {
        Header::Int // INT records of every hop (Algorithm 1)
    }
    fn on_new_path(&mut self) {
        self.meter.forget_path();
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let Some(power) = self.meter.update(ev.int) else {
            // First ACK of the flow: remember the INT and do not update (line 11). The Linux law
            // leaves cwnd_old alone on an ACK that does not update the window.
            if self.p.law != Law::Linux {
                self.old.update(self.cwnd, ev.snd_una, ev.snd_nxt);
            }
            return;
        };
        if self.p.per_rtt {
            if ev.now < self.next_update_at {
                return;
            }
            self.next_update_at = ev.now + (self.tau * 1e12).round() as Time;
        }
        let power = power.max(1e-9); // a silent link gives Γ→0: the clamp below bounds the window
        let g = self.p.gamma;
        match self.p.law {
            Law::Paper | Law::Linux => {
                // Eq. 7 / line 39: cwnd = γ·(cwnd_old/Γ + β) + (1 − γ)·cwnd
                let w = g * (self.old.value / power + self.beta) + (1.0 - g) * self.cwnd;
                self.cwnd = clamp(w, self.mss, self.host_bdp);
                self.rate = self.cwnd * 8.0 / self.tau; // line 10: rate = cwnd/τ
            }
            Law::TcpAdvanced | Law::RdmaHw => {
                // The artifacts' rate law: c = Γ/η (max_c); R = γ·(R_c/c + AI) + (1 − γ)·R_c,
                // with R_c the rate committed once per RTT; tcp-advanced.cc skips the EWMA when
                // c ≤ 0.5 (R = R_c/c + AI), rdma-hw.cc never does.
                let r_c = self.old.value * 8.0 / self.tau;
                let c = power / self.p.eta;
                let target = r_c / c + self.p.additive_increase_bps;
                let direct = self.p.law == Law::TcpAdvanced && c <= 0.5;
                let r = if direct { target } else { g * target + (1.0 - g) * r_c };
                self.rate = clamp(r, self.p.min_rate_bps, self.line_rate);
                self.cwnd = self.rate * self.tau / 8.0;
            }
        }
        self.old.update(self.cwnd, ev.snd_una, ev.snd_nxt); // line 11
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn pacing_rate(&self) -> f64 {
        self.rate
    }

    fn on_start(&mut self, _snd_una: u64, snd_nxt: u64) {
        self.old.start_at(snd_nxt);
    }

    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("smoothed_power", self.meter.smooth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::assert_close;
    use crate::config::IntBytesMode;
    use crate::packet::IntHop;
    use crate::time::{NS, US};

    pub(crate) fn ctx() -> CcContext {
        // 25 Gb/s host, τ = 20 µs: host BDP = 62 500 B
        crate::cc::test_ctx(20e-6, 1090.0)
    }

    fn hop(qlen: u64, tx: u64, ts: u64) -> IntHop {
        IntHop { qlen, tx_bytes: tx, ts, rate_bps: 100_000_000_000 }
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
            hops: int.len() as u8,
            cwnd_limited: true,
        }
    }

    #[test]
    fn defaults_follow_the_paper() {
        let c = PowerTcp::new(Params::default(), &ctx());
        assert_close(c.cwnd(), 62_500.0); // cwnd_init = HostBw·τ = 25e9·20e-6/8
        assert_close(c.pacing_rate(), 25e9); // line rate in the first RTT
        assert!((c.beta() - 375.0).abs() < 1e-9); // 150 Mb/s · 20 µs / 8
    }

    #[test]
    fn first_ack_only_stores_int() {
        let mut c = PowerTcp::new(Params::default(), &ctx());
        let h = [hop(5000, 1_000_000, 10 * US)];
        c.on_ack(&ack(&h, 1000, 62_000));
        assert_close(c.cwnd(), 62_500.0);
        assert_close(c.smoothed_power(), 1.0);
    }

    #[test]
    fn window_update_matches_hand_computation() {
        // One 100 Gb/s hop (b = 12.5e9 B/s), τ = 20 µs. Between two ACKs 1 µs apart the queue
        // grows 10 000 → 12 500 B and the port sends 12 500 B:
        //   q̇ = 2500 B / 1 µs = 2.5e9 B/s, μ = 12.5e9 B/s → λ = 15e9 B/s
        //   ν = 12 500 + 12.5e9·20e-6 = 262 500 B → Γ' = 3.9375e15
        //   e = (12.5e9)²·20e-6 = 3.125e15 → Γ'_norm = 1.26
        //   smoothing with Δt = 1 µs: Γs = (1·19 + 1.26·1)/20 = 1.013
        //   cwnd = 0.9·(40 000/1.013 + β) + 0.1·40 000, β = 1000 and cwnd_init = 40 000 B
        let p = Params { beta_bytes: Some(1000.0), init_cwnd_bytes: Some(40_000.0), ..Params::default() };
        let mut c = PowerTcp::new(p, &ctx());
        c.on_ack(&ack(&[hop(10_000, 1_000_000, 10 * US)], 1000, 62_000));
        c.on_ack(&ack(&[hop(12_500, 1_012_500, 11 * US)], 2000, 63_000));
        assert!((c.smoothed_power() - 1.013).abs() < 1e-12);
        let expect = 0.9 * (40_000.0 / 1.013 + 1000.0) + 0.1 * 40_000.0;
        assert!((c.cwnd() - expect).abs() < 1e-6, "{} vs {}", c.cwnd(), expect);
        assert!((c.pacing_rate() - expect * 8.0 / 20e-6).abs() < 1e-3);
    }

    #[test]
    fn per_rtt_applies_the_law_once_per_window() {
        // As window_update_matches_hand_computation, with per_rtt: the second ACK (arriving at 0,
        // no update yet) applies the law, giving the same hand-computed window; a third ACK before
        // τ = 20 µs has passed leaves it although its power differs; one at 20 µs updates.
        let p = Params { beta_bytes: Some(1000.0), init_cwnd_bytes: Some(40_000.0), per_rtt: true, ..Params::default() };
        let mut c = PowerTcp::new(p, &ctx());
        c.on_ack(&ack(&[hop(10_000, 1_000_000, 10 * US)], 1000, 62_000));
        c.on_ack(&ack(&[hop(12_500, 1_012_500, 11 * US)], 2000, 63_000));
        let expect = 0.9 * (40_000.0 / 1.013 + 1000.0) + 0.1 * 40_000.0;
        assert!((c.cwnd() - expect).abs() < 1e-6, "{} vs {}", c.cwnd(), expect);
        c.on_ack(&ack(&[hop(50_000, 1_025_000, 12 * US)], 3000, 64_000));
        assert!((c.cwnd() - expect).abs() < 1e-6, "{} vs {}", c.cwnd(), expect);
        assert!(c.smoothed_power() > 1.013); // measured all the same
        let h = [hop(50_000, 1_037_500, 13 * US)];
        c.on_ack(&AckEvent { now: 20 * US - 1, ..ack(&h, 4000, 65_000) });
        assert!((c.cwnd() - expect).abs() < 1e-6, "{} vs {}", c.cwnd(), expect);
        let h = [hop(50_000, 1_050_000, 14 * US)];
        c.on_ack(&AckEvent { now: 20 * US, ..ack(&h, 5000, 66_000) });
        assert!(c.cwnd() < expect, "{} vs {}", c.cwnd(), expect);
    }

    #[test]
    fn the_most_congested_hop_wins() {
        // hop 0 idle-ish (norm < 1), hop 1 congested: the law must use hop 1's power and its dt.
        let mut m = PowerMeter::new(20e-6);
        let a = [hop(0, 0, 0), hop(0, 0, 0)];
        assert!(m.update(&a).is_none());
        let b = [hop(0, 6250, 1 * US), hop(25_000, 12_500, 2 * US)];
        // hop 0: μ = 6250 B/µs = 6.25e9 B/s, q̇ = 0, ν = 250 000 → Γn = 6.25e9·2.5e5/3.125e15 = 0.5
        // hop 1: dt = 2 µs, q̇ = 12.5e9, μ = 6.25e9 → λ = 18.75e9, ν = 275 000
        //        Γn = 18.75e9·2.75e5/3.125e15 = 1.65; smoothed with Δt = 2 µs: (18 + 3.3)/20 = 1.065
        let s = m.update(&b).unwrap();
        assert!((s - 1.065).abs() < 1e-12, "{s}");
    }

    #[test]
    fn current_floor_bounds_the_power_of_a_draining_queue() {
        // The queue drains at line rate with no arrivals: λ = q̇ + μ = 0. With the artifact's
        // floor λ ≥ 0.5·b: Γn = 0.5·(q + bτ)/(bτ) = 0.5·(250 000 + 250 000)/250 000 = 1.0.
        let mut m = PowerMeter::new(20e-6);
        m.current_floor = 0.5;
        m.update(&[hop(262_500, 0, 0)]);
        let s = m.update(&[hop(250_000, 12_500, US)]).unwrap();
        assert_close(s, (19.0 + 1.0) / 20.0);
        let mut m = PowerMeter::new(20e-6);
        m.update(&[hop(262_500, 0, 0)]);
        assert_close(m.update(&[hop(250_000, 12_500, US)]).unwrap(), 19.0 / 20.0);
    }

    #[test]
    fn smoothing_caps_dt_at_tau() {
        let mut m = PowerMeter::new(20e-6);
        // Δt larger than τ replaces the average entirely.
        assert_eq!(m.smooth_with(3.0, 50e-6), 3.0);
    }

    #[test]
    fn old_window_is_committed_once_per_rtt() {
        let mut o = OldWindow::new(100.0);
        o.update(200.0, 0, 5000); // snd_una 0 >= 0: commit, wait until 5000
        assert_close(o.value, 200.0);
        o.update(300.0, 4000, 9000); // within the same RTT: keep
        assert_close(o.value, 200.0);
        o.update(400.0, 5000, 9000); // snd_una passed 5000: commit
        assert_close(o.value, 400.0);
    }

    #[test]
    fn window_is_clamped_to_one_mss_and_host_bdp() {
        let p = Params { beta_bytes: Some(0.0), ..Params::default() };
        let mut c = PowerTcp::new(p, &ctx());
        // Huge power: queue 1 MB, growing fast → the window collapses to the 1 MSS floor.
        c.on_ack(&ack(&[hop(0, 0, 0)], 0, 0));
        for k in 1..200u64 {
            c.on_ack(&ack(&[hop(1_000_000 * k, 12_500 * k, k * US)], 0, 0));
        }
        assert_close(c.cwnd(), 1000.0);
        // Idle link: power → 0, the window is capped at the host BDP.
        let mut c = PowerTcp::new(Params::default(), &ctx());
        c.on_ack(&ack(&[hop(0, 0, 0)], 0, 0));
        c.on_ack(&ack(&[hop(0, 0, 500 * NS)], 0, 0));
        assert_close(c.cwnd(), 62_500.0);
    }

    #[test]
    fn linux_variant_floors_the_power_and_keeps_cwnd_old_on_non_updates() {
        let p = Params { law: Law::Linux, beta_bytes: Some(1000.0), init_cwnd_bytes: Some(40_000.0), ..Params::default() };
        let mut c = PowerTcp::new(p, &ctx());
        c.on_start(0, 50_000);
        // The first INT only stores; cwnd_old keeps waiting for snd_una to reach 50 000.
        c.on_ack(&ack(&[hop(0, 1_000_000, 10 * US)], 1000, 51_000));
        // 1 µs later the port sent nothing and the queue stayed empty: Γ_norm = 0, raised to the
        // floor 0.01; Γs = (1·19 + 0.01·1)/20 = 0.9505. The window law uses cwnd_old = 40 000
        // (no refresh yet: snd_una 2000 < 50 000), then clamps to the host BDP.
        c.on_ack(&ack(&[hop(0, 1_000_000, 11 * US)], 2000, 52_000));
        assert_close(c.probe("smoothed_power").unwrap(), (19.0 + 0.01) / 20.0);
        let w: f64 = 0.9 * (40_000.0 / 0.9505 + 1000.0) + 0.1 * 40_000.0;
        assert_close(c.cwnd(), w.min(62_500.0));
        // A long idle stretch (Δt ≥ τ) replaces Γs by the floor itself, never by 0.
        c.on_ack(&ack(&[hop(0, 1_000_000, 100 * US)], 3000, 53_000));
        assert_close(c.probe("smoothed_power").unwrap(), 0.01);
        // The paper variant has no floor: the same sequence drives Γs to 0.
        let mut c = PowerTcp::new(Params::default(), &ctx());
        c.on_ack(&ack(&[hop(0, 1_000_000, 10 * US)], 1000, 51_000));
        c.on_ack(&ack(&[hop(0, 1_000_000, 100 * US)], 2000, 52_000));
        assert_eq!(c.probe("smoothed_power"), Some(0.0));
    }

    #[test]
    fn power_floor_is_a_parameter_of_every_variant() {
        let mut m = PowerMeter::new(20e-6).with_power_floor(0.2);
        assert_close(m.smooth_with(0.0, 20e-6), 0.2);
        let p: Params = crate::cc::params::check("powertcp", &serde_json::json!({"law": "linux", "power_floor": 0.05}), "cc").unwrap();
        assert_eq!(p.law, Law::Linux);
        assert_eq!(p.power_floor, Some(0.05));
    }

    /// A controller of `law` after two INT records of one 100 Gb/s hop, 1 µs apart: the queue
    /// goes q0 → q1 and the byte counter advances by `bytes`; the counter counts bytes sent.
    fn after_two_records(law: Law, q0: u64, q1: u64, bytes: u64) -> PowerTcp {
        after_two_records_counting(law, IntBytesMode::Tx, q0, q1, bytes)
    }

    /// The same with a counter of `kind` (`switch.int_bytes`).
    fn after_two_records_counting(law: Law, kind: IntBytesMode, q0: u64, q1: u64, bytes: u64) -> PowerTcp {
        let mut c = PowerTcp::new(Params { law, ..Params::default() }, &CcContext { int_bytes: kind, ..ctx() });
        c.on_ack(&ack(&[hop(q0, 1_000_000, 10 * US)], 1000, 62_000));
        c.on_ack(&ack(&[hop(q1, 1_000_000 + bytes, 11 * US)], 2000, 63_000));
        c
    }

    #[test]
    fn tcp_advanced_variant_is_rate_based_and_clamped() {
        let c = after_two_records(Law::TcpAdvanced, 10_000, 12_500, 12_500);
        // c = 1.013/0.95 > 0.5: R = 0.9·(25e9/c + 150e6) + 0.1·25e9, clamped to the 25e9 line rate.
        let r = 0.9 * (25e9 / (1.013 / 0.95) + 150e6) + 0.1 * 25e9;
        assert!((c.pacing_rate() - f64::min(r, 25e9)).abs() < 1.0);
        assert!((c.cwnd() - c.pacing_rate() * 20e-6 / 8.0).abs() < 1e-6);
    }

    #[test]
    fn first_int_against_zero_updates_on_the_first_ack_with_the_artifacts_wrapped_fields() {
        // f542a97's UpdateRatePower on a flow's first ACK: one 100 Gb/s hop (b = 12.5e9 B/s),
        // τ = 20 µs (bτ = 250 000 B), queue 300 000 B, stamped at 20 ms with 200 MB counted.
        // Against the zero record: Δt = 20e6 ns mod 2^24 = 3 222 784 ns, Δbytes = (200e6/128 mod
        // 2^20)·128 = 513 924·128 B → λ = 2.0411e10 B/s (above the 0.5·b floor), Γn = λ·550 000 /
        // (b²τ); Δt capped at τ, so Γs = Γn; R = 0.9·(25e9·0.95/Γs + 150e6) + 0.1·25e9.
        let p = Params { law: Law::RdmaHw, current_floor: Some(0.5), first_int_against_zero: true, ..Params::default() };
        let ctx = CcContext { int_bytes: IntBytesMode::Rx, ..ctx() }; // the artifact's counter: bytes received
        let mut c = PowerTcp::new(p.clone(), &ctx);
        c.on_ack(&ack(&[hop(300_000, 200_000_000, 20_000 * US)], 1000, 62_000));
        let lambda = 513_924.0 * 128.0 / 3_222_784e-9;
        let norm = lambda * 550_000.0 / (12.5e9 * 12.5e9 * 20e-6);
        assert!((c.smoothed_power() - norm).abs() < 1e-9 * norm, "{} vs {norm}", c.smoothed_power());
        let r = 0.9 * (25e9 * 0.95 / norm + 150e6) + 0.1 * 25e9;
        assert!((c.pacing_rate() - r).abs() < 1.0, "{} vs {r}", c.pacing_rate());
        // an idle-looking first record (2 KB counted over 0.5 ms) is raised to the 0.5·b floor
        let mut c = PowerTcp::new(p, &ctx);
        c.on_ack(&ack(&[hop(300_000, 2_000, 500 * US)], 1000, 62_000));
        assert_close(c.smoothed_power(), 6.25e9 * 550_000.0 / (12.5e9 * 12.5e9 * 20e-6)); // 1.1
                                                                                          // without the option the first ACK only stores the INT: line rate, Γs = 1
        let mut c = PowerTcp::new(Params { law: Law::RdmaHw, ..Params::default() }, &ctx);
        c.on_ack(&ack(&[hop(300_000, 200_000_000, 20_000 * US)], 1000, 62_000));
        assert_eq!((c.smoothed_power(), c.pacing_rate()), (1.0, 25e9));
    }

    #[test]
    fn rdma_hw_variant_uses_the_byte_rate_without_floor_and_always_the_ewma() {
        // One 100 Gb/s hop (b = 12.5e9 B/s), τ = 20 µs, R_c = line = 25 Gb/s (first RTT).
        // 1 µs apart the byte counter advances 2500 B and the queue grows 10 000 → 12 500 B:
        //   rdma-hw: λ = Δbytes/Δt = 2.5e9 B/s (no q̇ term, no 0.5·b floor)
        //   ν = 12 500 + 12.5e9·20e-6 = 262 500 B, Γ' = 6.5625e14, e = 3.125e15 → Γn = 0.21
        //   Γs = (1·19 + 0.21·1)/20 = 0.9605; c = 0.9605/0.95 = 1.011053 (> 0.5, EWMA anyway)
        //   R = 0.9·(25e9/1.011053 + 150e6) + 0.1·25e9 = 22.254e9 + 0.135e9 + 2.5e9 = 24.889e9
        let c = after_two_records_counting(Law::RdmaHw, IntBytesMode::Rx, 10_000, 12_500, 2500);
        assert_close(c.smoothed_power(), 0.9605);
        let r = 0.9 * (25e9 / (0.9605 / 0.95) + 150e6) + 0.1 * 25e9;
        assert!((c.pacing_rate() - r).abs() < 1.0, "{} vs {r}", c.pacing_rate());
        // tcp-advanced on the same records: λ = q̇ + μ = 2.5e9 + 2.5e9 = 5e9 < 0.5·b = 6.25e9 →
        // floored: Γn = 6.25e9·262 500/3.125e15 = 0.525, Γs = (19 + 0.525)/20 = 0.97625
        let c = after_two_records(Law::TcpAdvanced, 10_000, 12_500, 2500);
        assert_close(c.smoothed_power(), 0.976_25);
        // an idle link (no bytes): rdma-hw's current is 0, Γn = 0: Γs = 19/20·Γs (no floor)
        let c = after_two_records(Law::RdmaHw, 0, 0, 0);
        assert_close(c.smoothed_power(), 0.95);
        // the old name is refused (catalog and docs use the new ones)
        assert!(crate::cc::params::check::<Params>("powertcp", &serde_json::json!({"law": "artifact"}), "cc").is_err());
        let p: Params = crate::cc::params::check("powertcp", &serde_json::json!({"law": "rdma-hw"}), "cc").unwrap();
        assert_eq!(p.law, Law::RdmaHw);
    }

    #[test]
    fn the_same_events_give_the_same_power_through_either_int_counter() {
        // One 100 Gb/s hop, 1 µs apart: 2500 B sent and the queue grows 10 000 → 12 500 B, so
        // 5000 B arrived. A bytes-sent counter advances 2500 B, a bytes-received counter (sent +
        // queue) 5000 B. Algorithm 1's λ = q̇ + μ = 2.5e9 + 2.5e9 = 5e9 B/s either way; reading
        // the received counter as bytes sent (before the fix) gave μ = 5e9 and λ = 7.5e9.
        for law in [Law::Paper, Law::RdmaHw] {
            let tx = after_two_records_counting(law, IntBytesMode::Tx, 10_000, 12_500, 2500);
            let rx = after_two_records_counting(law, IntBytesMode::Rx, 10_000, 12_500, 5000);
            assert_close(tx.smoothed_power(), rx.smoothed_power());
            // Γn = 5e9·262 500/3.125e15 = 0.42, Γs = (19 + 0.42)/20
            assert_close(tx.smoothed_power(), (19.0 + 0.42) / 20.0);
        }
    }
}
