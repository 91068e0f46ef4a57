//! θ-PowerTCP (NSDI'22 §3.5, Algorithm 2): PowerTCP's law from RTT alone, no switch support.
//!
//! e/f = τ / ((θ̇ + 1)·θ) (Eq. 8), so Γ_norm = (θ̇ + 1)·RTT/τ with θ̇ the RTT gradient. The power
//! is smoothed per ACK like PowerTCP's; the window is updated once per RTT (lines 27–34).
//!
//! **τ is the flow's own base RTT by default** (`tau = "path"`, `CcContext::path_rtt`). Eq. 8 is
//! derived (§3.5) from e/f = τ/((q̇/b + 1)·(q/b + τ)) "using the fact that q/b + τ = θ (RTT)": τ is
//! the RTT of the flow's path with an empty queue, so Γ_norm = 1 at an empty queue only when τ is
//! that path's base RTT. §3.3 adds "If baseRTT is not precisely known, an alternative is to keep
//! track of minimum observed RTT" (`tau = "min-rtt"`). With a larger τ (the topology's maximum
//! RTT, 29 µs against a 4.7 µs in-rack path in `powertcp-incast`) the law's equilibrium RTT ≈ τ
//! is a standing queue of b·(τ − base RTT) and the queue of an incast never drains. `tau =
//! "topology"` keeps the scenario's τ (default: the topology's maximum base RTT), which PowerTCP
//! §4 "Configuration" sets for "Both HPCC and PowerTCP" (the sentence names those two only); it
//! is the default of the Linux variant, whose eBPF law is configured with one τ per run (the
//! testbed's measured τ). `tau = "min-rtt"` takes τ per flow as its minimum observed RTT, starting
//! from the scenario's τ, the choice the RDMA artifact makes for its delay variant
//! (`RdmaHw::UpdateRatePower` with PowerTCPdelay: `m_baseRtt = min(now − sendTs, m_baseRtt)`,
//! starting from the configured base RTT, before the power is computed); the rdma-hw variant
//! always uses it. Every use of τ follows it: the normaliser of Γ_norm, the smoothing interval,
//! pacing cwnd/τ, the initial window and cap HostBw·τ and β = additive_increase_bps·τ (unless
//! `beta_bytes` is given).
//!
//! **A smoothed power Γ_smooth ≤ 0 holds the window by default** (`nonpositive_power = "hold"`).
//! Power is current × voltage, Γ = λ·ν with an arrival rate λ = q̇ + b ≥ 0 (§3.5: θ̇ = q̇/b, so
//! θ̇ + 1 = λ/b): it cannot be negative, and Algorithm 2 has no branch for it (line 31 would give
//! a window ≤ 0, or an infinite one at 0). A sample θ̇ + 1 < 0 says that the ACKs came back more
//! than twice as densely as the packets left (models.md), not that the bottleneck is idle or
//! overloaded, so it is treated as no measurement: the update of that RTT waits (as lines 27–29
//! return the window unchanged) for the first ACK after which Γ_smooth is positive again, and
//! cwnd_old keeps being remembered. This is the authors' own treatment of a negative power:
//! `RdmaHw::UpdateRatePower` in the RDMA artifact keeps the smoothed power on one (`if (U < 0) U
//! = qp->hp.u;`); the authors' Linux module floors (θ̇ + 1) at 0 instead (the Linux variant).
//! `nonpositive_power = "mss"` takes line 31 literally: a non-positive power gives a window ≤ 0,
//! raised to the 1-MSS floor. Before this, Γ_smooth ≤ 0 was raised to 1e-9, i.e. an infinite
//! window clamped to the cap; no source does that, and it is not kept.

use serde::{Deserialize, Serialize};

use super::params::cc_params;
use super::params::{check, ParamSet, BYTES, FRACTION, GAIN, RATE};
use super::power_meter::{OldWindow, PowerMeter};
use super::{clamp, AckEvent, CcContext, CongestionControl, Header};
use super::{Algorithm, Caps, StudyNic};
use crate::schema::{Range, Type};
use crate::time::{secs, Time};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Law {
    /// Algorithm 2 as printed.
    #[default]
    Paper,
    /// The authors' ns-3 artifact: γ = 0.7 (unless set), normaliser 1.05·τ, gradient term
    /// (θ̇ + 1) floored at 0.5.
    Artifact,
    /// The RDMA NIC's θ-PowerTCP that the study's simulator runs (CC mode 3 with `wien` and
    /// `delayWien`): `RdmaHw::UpdateRatePower` with `PowerTCPdelay` in simulator/ns-3.39/src/
    /// point-to-point/model/rdma-hw.cc of inet-tub/ns3-datacenter (the same in 15b7af0 and
    /// f542a97). A rate law applied on every ACK: τ ← min(τ, RTT) first (always, whatever `tau`),
    /// Γn = max(ΔRTT/Δt + 1, 0.5)·RTT/(1.05·τ) with Δt the time since the previous ACK, smoothed
    /// over Δt capped at τ, R = 0.7·(R_c/Γs + 150 Mb/s) + 0.3·R_c clamped to [min_rate, line],
    /// R_c committed when the ACK passes the snd_nxt of the previous commit (the first ACK
    /// commits), window = R·τ (`RdmaQueuePair::GetWin` with `VAR_WIN`), so a smaller τ shrinks
    /// the window at once. The previous RTT and ACK time start at 0 (`prevRtt`, `prevCompletion`
    /// are not initialised by `RdmaQueuePair`; zero on a fresh allocation).
    #[serde(rename = "rdma-hw")]
    RdmaHw,
    /// The law of the Linux testbed's eBPF controller (bpf/cc_math.h, docs/testbed.md "Test
    /// vectors"): θ is sampled once per RTT — an ACK counts only when snd_una has passed the
    /// snd_nxt of the previous update, and other ACKs change nothing (no per-ACK smoothing) — the
    /// gradient is taken between successive updates, (θ̇ + 1) is floored at 0, Γ_norm and Γ_smooth
    /// are floored at `power_floor` (default 0.01), and the law uses cwnd_old = the current window.
    Linux,
}

/// Where τ comes from (module doc).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Tau {
    /// The flow's own base RTT (`CcContext::path_rtt`): Eq. 8's τ. Default except in the Linux
    /// and rdma-hw variants.
    Path,
    /// The scenario's τ (default: the topology's maximum base RTT; PowerTCP §4 "Configuration"
    /// for HPCC and PowerTCP). Default of the Linux variant.
    Topology,
    /// Per flow: the minimum RTT it has observed (starting from the scenario's τ; §3.3's
    /// alternative, the RDMA artifact's choice). Always in the rdma-hw variant.
    MinRtt,
}

/// What the paper and artifact variants do with a smoothed power Γ_smooth ≤ 0 (module doc).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NonPositivePower {
    /// No window update while Γ_smooth ≤ 0: the update waits for the first ACK after which it is
    /// positive (the RDMA artifact's `U < 0` guard keeps the power; default).
    #[default]
    Hold,
    /// Algorithm 2 line 31 taken literally: a window ≤ 0, raised to the 1-MSS floor.
    Mss,
}

cc_params! {
    pub struct Params {
        /// τ: "path" (the flow's own base RTT; default), "topology" (the scenario's τ; default of
        /// the Linux variant) or "min-rtt" (per flow, its minimum observed RTT; always in rdma-hw).
        tau: Option<Tau> = None, Type::Choice(&["path", "topology", "min-rtt"]), Range::ANY,
            unit "", symbol "τ", source "derived from the law: path (Eq. 8's derivation, §3.5), topology for linux, min-rtt for rdma-hw";
        /// Γ_smooth ≤ 0 in the paper and artifact variants: "hold" (default; the RDMA artifact's
        /// `U < 0` guard) or "mss" (Algorithm 2 line 31 literally, the window to 1 MSS).
        nonpositive_power: NonPositivePower = NonPositivePower::Hold, Type::Choice(&["hold", "mss"]), Range::ANY,
            unit "", symbol "", source "the RDMA artifact: RdmaHw::UpdateRatePower `if (U < 0) U = qp->hp.u`";
        /// γ (paper 0.9; the artifact variant uses 0.7 unless γ is given).
        gamma: Option<f64> = None, Type::Number, GAIN,
            unit "", symbol "γ", source "derived from the law: 0.9 (θ-PowerTCP Algorithm 2), 0.7 for artifact (the authors' ns-3 code)";
        /// β in bytes; default additive_increase_bps·τ/8 (see PowerTCP).
        beta_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "β", source "derived: additive_increase_bps·τ/8";
        /// The additive increase as a rate (bits/s); β = rate·τ/8 (as PowerTCP's).
        additive_increase_bps: f64 = 150e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "the PowerTCP artifact: 150 Mb/s";
        /// Initial window in bytes; default HostBw·τ (line rate in the first RTT).
        init_cwnd_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "", source "derived: HostBw·τ";
        /// Which reading of θ-PowerTCP to run (`Law`): Algorithm 2, the authors' ns-3 code, the
        /// study's RDMA NIC, or the Linux testbed's.
        law: Law = Law::Paper, Type::Choice(&["paper", "artifact", "rdma-hw", "linux"]), Range::ANY,
            unit "", symbol "", source "θ-PowerTCP Algorithm 2 (paper)", alias "variant";
        /// Lower bound of Γ_norm and Γ_smooth (see PowerTCP). Unset: none (paper, artifact); 0.01 in
        /// the Linux variant.
        power_floor: Option<f64> = None, Type::Number, GAIN,
            unit "", symbol "", source "derived from the law: 0.01 for linux (bpf/cc_math.h), else none";
        /// Lower bound of the gradient term (θ̇ + 1). Unset: none in the paper's law (Algorithm 2 has
        /// no bound), 0.5 in the artifact and rdma-hw variants, 0 in the Linux variant.
        gradient_floor: Option<f64> = None, Type::Number, FRACTION,
            unit "", symbol "", source "derived from the law: none (paper), 0.5 (artifact, rdma-hw), 0 (linux)";
        /// Minimum rate of the rdma-hw variant, bits/s (the study's MIN_RATE).
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "PowerTCP evaluation configs (MIN_RATE): 100 Mb/s";
    }
    rules {
    }
}

/// Registration (crates/engine/build.rs collects it). Delay-based: no INT needed (the study's NIC
/// still sizes CC mode 3's INT header).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "theta-powertcp",
    source: "θ-PowerTCP: Addanki et al., NSDI'22, §3.5 Algorithm 2",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(ThetaPowerTcp::new(check("theta-powertcp", p, at)?, c))),
    caps: Caps { needs_int: false, study_nic: StudyNic { header: Header::Int, window_cap: true }, ..Caps::DEFAULT },
};

pub struct ThetaPowerTcp {
    law: Law,
    tau_mode: Tau,
    nonpositive: NonPositivePower,
    /// Normaliser factor (1 or the artifact's 1.05): norm_tau = factor·τ.
    norm_factor: f64,
    host_rate_bps: f64,
    /// β as a rate when β is not given in bytes (β = rate·τ/8 follows τ).
    beta_rate: Option<f64>,
    gamma: f64,
    beta: f64,
    tau: f64,
    norm_tau: f64,
    floor: f64,
    mss: f64,
    host_bdp: f64,
    cwnd: f64,
    rate: f64,
    meter: PowerMeter,
    old: OldWindow,
    prev_rtt: Option<(f64, Time)>,
    last_updated: u64,
    /// rdma-hw: the committed rate R_c (bits/s) and the rate bounds.
    committed_rate: f64,
    min_rate: f64,
}

impl ThetaPowerTcp {
    pub fn new(p: Params, ctx: &CcContext) -> Self {
        let tau_mode = match (p.law, p.tau) {
            (Law::RdmaHw, _) => Tau::MinRtt, // the artifact's delay variant always tracks it
            (_, Some(t)) => t,
            (Law::Linux, None) => Tau::Topology,
            (Law::Paper | Law::Artifact, None) => Tau::Path,
        };
        let tau = if tau_mode == Tau::Path { ctx.path_rtt } else { ctx.base_rtt };
        let host_bdp = ctx.host_rate_bps * tau / 8.0;
        let cwnd = p.init_cwnd_bytes.unwrap_or(host_bdp);
        let (gamma, norm_factor, floor) = match p.law {
            Law::Paper => (p.gamma.unwrap_or(0.9), 1.0, f64::NEG_INFINITY),
            Law::Artifact | Law::RdmaHw => (p.gamma.unwrap_or(0.7), 1.05, 0.5),
            Law::Linux => (p.gamma.unwrap_or(0.9), 1.0, 0.0),
        };
        let floor = p.gradient_floor.unwrap_or(floor);
        let power_floor = p.power_floor.unwrap_or(match p.law {
            Law::Paper | Law::Artifact | Law::RdmaHw => f64::NEG_INFINITY,
            Law::Linux => 0.01,
        });
        ThetaPowerTcp {
            law: p.law,
            tau_mode,
            nonpositive: p.nonpositive_power,
            norm_factor,
            host_rate_bps: ctx.host_rate_bps,
            beta_rate: if p.beta_bytes.is_some() { None } else { Some(p.additive_increase_bps) },
            gamma,
            beta: p.beta_bytes.unwrap_or(p.additive_increase_bps * tau / 8.0),
            tau,
            norm_tau: norm_factor * tau,
            floor,
            mss: ctx.mss,
            host_bdp,
            cwnd,
            rate: ctx.host_rate_bps,
            meter: PowerMeter::new(tau).with_power_floor(power_floor),
            old: OldWindow::new(cwnd),
            prev_rtt: None,
            last_updated: 0,
            committed_rate: ctx.host_rate_bps,
            min_rate: p.min_rate_bps,
        }
    }

    pub fn smoothed_power(&self) -> f64 {
        self.meter.smooth
    }

    /// τ as the law uses it now.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// `tau = "min-rtt"`: τ ← min(τ, RTT sample), and everything derived from τ with it.
    fn track_min_rtt(&mut self, rtt: f64) {
        if self.tau_mode != Tau::MinRtt || rtt <= 0.0 || rtt >= self.tau {
            return;
        }
        self.tau = rtt;
        self.norm_tau = self.norm_factor * rtt;
        self.meter.set_tau(rtt);
        self.host_bdp = self.host_rate_bps * rtt / 8.0;
        if let Some(r) = self.beta_rate {
            self.beta = r * rtt / 8.0;
        }
    }

    /// The Linux law: one update per RTT, everything measured between updates.
    fn on_ack_linux(&mut self, ev: &AckEvent) {
        let rtt = secs(ev.rtt);
        self.track_min_rtt(rtt);
        let Some((prev_rtt, t_prev)) = self.prev_rtt else {
            self.prev_rtt = Some((rtt, ev.now));
            self.last_updated = ev.snd_nxt;
            return;
        };
        if ev.snd_una < self.last_updated || ev.now <= t_prev {
            return;
        }
        let dt = secs(ev.now - t_prev);
        let norm = (1.0 + (rtt - prev_rtt) / dt).max(self.floor) * rtt / self.norm_tau;
        let power = self.meter.smooth_with(norm, dt).max(1e-9);
        let g = self.gamma;
        let w = g * (self.cwnd / power + self.beta) + (1.0 - g) * self.cwnd;
        self.cwnd = clamp(w, self.mss, self.host_bdp);
        self.rate = self.cwnd * 8.0 / self.tau;
        self.prev_rtt = Some((rtt, ev.now));
        self.last_updated = ev.snd_nxt;
    }
}

impl ThetaPowerTcp {
    /// Law rdma-hw (see `Law::RdmaHw`): UpdateRatePower's delay branch, per ACK.
    fn on_ack_rdma_hw(&mut self, ev: &AckEvent) {
        let rtt = secs(ev.rtt);
        self.track_min_rtt(rtt); // m_baseRtt = min(now − sendTs, m_baseRtt), before the power
        let (prev_rtt, t_prev) = self.prev_rtt.unwrap_or((0.0, 0));
        self.prev_rtt = Some((rtt, ev.now));
        if ev.now <= t_prev {
            return;
        }
        let dt = secs(ev.now - t_prev); // prevCompletion − qp->prevCompletion
        let a = ((rtt - prev_rtt) / dt + 1.0).max(self.floor); // A = ΔRTT/Δt + 1, floored at 0.5
        let norm = a * rtt / self.norm_tau; // power / (1.05·τ)
        let u = self.meter.smooth_with(norm, dt).max(1e-9); // hp.u over Δt capped at τ
        let g = self.gamma;
        let ai = self.beta_rate.unwrap_or(self.beta * 8.0 / self.tau); // DataRate("150Mbps")
        let r = g * (self.committed_rate / u + ai) + (1.0 - g) * self.committed_rate;
        self.rate = clamp(r, self.min_rate, self.host_rate_bps);
        self.cwnd = self.rate * self.tau / 8.0; // GetWin: m_rate·m_baseRtt
        if ev.snd_una > self.last_updated {
            // ack_seq > m_lastUpdateSeq: a full update commits R_c (the first ACK always does)
            self.committed_rate = self.rate;
            self.last_updated = ev.snd_nxt;
        }
    }
}

impl CongestionControl for ThetaPowerTcp {
    /// Delay-only: a send timestamp (Algorithm 2), except where the law is the study's
    /// simulator's, which runs θ-PowerTCP as CC mode 3 and so sends HPCC's INT header with every
    /// packet (powertcp-evaluation-burst.cc `IntHeader::mode`).
    fn header(&self) -> Header {
        match self.law {
            Law::Artifact | Law::RdmaHw => Header::Int,
            Law::Paper | Law::Linux => Header::Timestamp,
        }
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        match self.law {
            Law::Linux => return self.on_ack_linux(ev),
            Law::RdmaHw => return self.on_ack_rdma_hw(ev),
            Law::Paper | Law::Artifact => {}
        }
        let rtt = secs(ev.rtt);
        self.track_min_rtt(rtt);
        let Some((prev_rtt, t_prev)) = self.prev_rtt.replace((rtt, ev.now)) else {
            self.old.update(self.cwnd, ev.snd_una, ev.snd_nxt);
            return;
        };
        if ev.now <= t_prev {
            return;
        }
        let dt = secs(ev.now - t_prev); // line 18
        let grad = (rtt - prev_rtt) / dt; // line 19: θ̇ = dRTT/dt
        let norm = (grad + 1.0).max(self.floor) * rtt / self.norm_tau; // line 20
        let power = self.meter.smooth_with(norm, dt); // line 21
        if ev.snd_una < self.last_updated || (power <= 0.0 && self.nonpositive == NonPositivePower::Hold) {
            self.old.update(self.cwnd, ev.snd_una, ev.snd_nxt);
            return; // lines 27–29: once per RTT; Γ_smooth ≤ 0 is no measurement (module doc)
        }
        let g = self.gamma;
        let w = if power <= 0.0 {
            self.mss // "mss": line 31's window for Γ < 0 is ≤ 0, raised to the floor (Γ = 0: its limit from below)
        } else {
            g * (self.old.value / power + self.beta) + (1.0 - g) * self.cwnd // line 31
        };
        self.cwnd = clamp(w, self.mss, self.host_bdp);
        self.rate = self.cwnd * 8.0 / self.tau;
        self.last_updated = ev.snd_nxt; // line 34
        self.old.update(self.cwnd, ev.snd_una, ev.snd_nxt);
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn pacing_rate(&self) -> f64 {
        self.rate
    }

    fn on_start(&mut self, _snd_una: u64, snd_nxt: u64) {
        self.old.start_at(snd_nxt);
        self.last_updated = snd_nxt;
    }

    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("smoothed_power", self.meter.smooth);
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
    fn ack(now: Time, rtt: Time, snd_una: u64, snd_nxt: u64) -> AckEvent<'static> {
        AckEvent {
            now,
            acked_bytes: 1000,
            seq: 0,
            snd_una,
            snd_nxt,
            rtt,
            ecn: false,
            int: &[],
            max_hop_delay: 0,
            hops: 0,
            cwnd_limited: true,
        }
    }

    #[test]
    fn gradient_floor_bounds_the_gradient_term_only_when_set() {
        // θ̇ = (20 − 24) µs / 2 µs = −2: (θ̇ + 1) = −1, floored at 0.5 if asked; Γ_norm = that · 20/20
        let smoothed = |gradient_floor| {
            let p = Params { gradient_floor, init_cwnd_bytes: Some(40_000.0), ..Params::default() };
            let mut c = ThetaPowerTcp::new(p, &ctx());
            c.on_ack(&ack(100 * US, 24 * US, 1000, 62_000));
            c.on_ack(&ack(102 * US, 20 * US, 2000, 63_000));
            c.smoothed_power()
        };
        assert_close(smoothed(None), (18.0 - 2.0) / 20.0); // Algorithm 2 as printed: no bound
        assert_close(smoothed(Some(0.5)), (18.0 + 0.5 * 2.0) / 20.0);
    }

    #[test]
    fn update_matches_hand_computation_and_is_once_per_rtt() {
        let p = Params { beta_bytes: Some(1000.0), init_cwnd_bytes: Some(40_000.0), ..Params::default() };
        let mut c = ThetaPowerTcp::new(p, &ctx());
        c.on_ack(&ack(100 * US, 20 * US, 1000, 62_000)); // first sample: stored only
        assert_close(c.cwnd(), 40_000.0);
        // 2 µs later the RTT is 24 µs: θ̇ = 4 µs / 2 µs = 2; Γ_norm = 3·24/20 = 3.6
        // Γs = (1·18 + 3.6·2)/20 = 1.26; cwnd = 0.9·(40 000/1.26 + 1000) + 0.1·40 000
        c.on_ack(&ack(102 * US, 24 * US, 2000, 63_000));
        assert!((c.smoothed_power() - 1.26).abs() < 1e-12);
        let w1 = 0.9 * (40_000.0 / 1.26 + 1000.0) + 0.1 * 40_000.0;
        assert!((c.cwnd() - w1).abs() < 1e-6);
        // Next ACK inside the same RTT (snd_una 3000 < lastUpdated 63 000): power is still
        // smoothed, the window is not touched.
        c.on_ack(&ack(103 * US, 24 * US, 3000, 64_000));
        assert_eq!(c.cwnd(), w1);
        // θ̇ = 0 now: Γ_norm = 24/20 = 1.2, Γs = (1.26·19 + 1.2·1)/20 = 1.257
        assert!((c.smoothed_power() - 1.257).abs() < 1e-12);
        // Once snd_una reaches 63 000 the window updates again. cwnd_old is the window stored
        // at the start of the previous RTT (40 000: the snd_nxt stored with it, 62 000, was
        // passed only now), and is refreshed to the new window after this update.
        c.on_ack(&ack(104 * US, 24 * US, 63_000, 90_000));
        let s = (1.257 * 19.0 + 1.2) / 20.0;
        let w2 = 0.9 * (40_000.0 / s + 1000.0) + 0.1 * w1;
        assert!((c.cwnd() - w2).abs() < 1e-6, "{} vs {}", c.cwnd(), w2);
    }

    #[test]
    fn linux_variant_samples_once_per_rtt_and_floors() {
        let p = Params { law: Law::Linux, beta_bytes: Some(1000.0), init_cwnd_bytes: Some(40_000.0), ..Params::default() };
        let mut c = ThetaPowerTcp::new(p, &ctx());
        c.on_ack(&ack(100 * US, 20 * US, 1000, 62_000)); // stores RTT, time and last_nxt = 62 000
                                                         // Inside the RTT: ignored entirely, not even smoothed.
        c.on_ack(&ack(102 * US, 30 * US, 2000, 63_000));
        assert_eq!(c.cwnd(), 40_000.0);
        assert_eq!(c.smoothed_power(), 1.0);
        // snd_una reaches 62 000, 10 µs after the stored sample, RTT 24 µs: θ̇ = 0.4,
        // Γ_norm = 1.4·24/20 = 1.68; Γs = (1·10 + 1.68·10)/20 = 1.34; cwnd_old = cwnd = 40 000.
        c.on_ack(&ack(110 * US, 24 * US, 62_000, 90_000));
        assert_close(c.smoothed_power(), 1.34);
        let w1 = 0.9 * (40_000.0 / 1.34 + 1000.0) + 0.1 * 40_000.0;
        assert_close(c.cwnd(), w1);
        // The RTT falls 14 µs in 10 µs: θ̇ + 1 = −0.4, floored at 0, so Γ_norm = 0, raised to
        // the power floor 0.01: Γs = (1.34·10 + 0.01·10)/20 = 0.675.
        c.on_ack(&ack(120 * US, 10 * US, 90_000, 120_000));
        assert_close(c.smoothed_power(), 0.675);
        let w2 = 0.9 * (w1 / 0.675 + 1000.0) + 0.1 * w1;
        assert_close(c.cwnd(), w2);
        // Δt = 30 µs ≥ τ and a flat RTT: Γs becomes this sample's Γ_norm = 10/20 = 0.5.
        c.on_ack(&ack(150 * US, 10 * US, 120_000, 150_000));
        assert_close(c.smoothed_power(), 0.5);
        assert_close(c.cwnd(), (0.9 * (w2 / 0.5 + 1000.0) + 0.1 * w2).min(62_500.0));
    }

    #[test]
    fn artifact_floors_the_gradient_term() {
        let p = Params { law: Law::Artifact, ..Params::default() };
        let mut c = ThetaPowerTcp::new(p, &ctx());
        c.on_ack(&ack(100 * US, 40 * US, 1000, 62_000));
        // RTT falls by 20 µs in 1 µs: θ̇ + 1 = −19, floored at 0.5: Γ = 0.5·20/(1.05·20) = 0.476…
        c.on_ack(&ack(101 * US, 20 * US, 2000, 63_000));
        let norm = 0.5 * 20.0 / 21.0;
        let s = (19.0 + norm) / 20.0;
        assert!((c.smoothed_power() - s).abs() < 1e-12);
    }

    #[test]
    fn min_rtt_tau_follows_the_smallest_rtt_sample() {
        // τ starts at the scenario's 20 µs; the flow sees 10 µs, then 12 µs.
        let p = Params { tau: Some(Tau::MinRtt), init_cwnd_bytes: Some(10_000.0), ..Params::default() };
        let mut c = ThetaPowerTcp::new(p, &ctx());
        c.on_ack(&ack(100 * US, 10 * US, 1000, 62_000)); // τ = min(20, 10) = 10 µs
        assert_close(c.tau(), 10e-6);
        // 2 µs later RTT 12 µs: θ̇ = 1, Γ_norm = 2·12/10 = 2.4 (with τ = 20 µs it would be 1.2)
        // Γs = (1·8 + 2.4·2)/10 = 1.28 (smoothing over τ = 10 µs)
        // β = 150 Mb/s·10 µs/8 = 187.5 B; cwnd = 0.9·(10 000/1.28 + 187.5) + 0.1·10 000
        // = 7031.25 + 168.75 + 1000 = 8200 B; rate = 8200·8/10 µs = 6.56 Gb/s
        c.on_ack(&ack(102 * US, 12 * US, 2000, 63_000));
        assert_close(c.tau(), 10e-6);
        assert_close(c.smoothed_power(), 1.28);
        assert_close(c.cwnd(), 8200.0);
        assert_close(c.pacing_rate(), 6.56e9);
        // the window cap follows τ: HostBw·τ = 25e9·10e-6/8 = 31 250 B
        let p = Params { tau: Some(Tau::MinRtt), ..Params::default() };
        let mut c = ThetaPowerTcp::new(p, &ctx());
        c.on_ack(&ack(100 * US, 10 * US, 1000, 62_000));
        c.on_ack(&ack(120 * US, 10 * US, 2000, 63_000)); // flat RTT: Γ_norm = 1, Γs = 1
        assert_close(c.cwnd(), 31_250.0);
        // "topology" keeps the scenario's τ
        let mut d = ThetaPowerTcp::new(Params { tau: Some(Tau::Topology), ..Params::default() }, &ctx());
        d.on_ack(&ack(100 * US, 10 * US, 1000, 62_000));
        assert_close(d.tau(), 20e-6);
    }

    /// A flow whose own base RTT (5 µs) is below the scenario's τ (20 µs, the topology's largest).
    fn short_path_ctx() -> CcContext {
        CcContext { path_rtt: 5e-6, ..ctx() }
    }

    #[test]
    fn tau_defaults_to_the_flows_own_base_rtt() {
        // Eq. 8's τ is the base RTT of the flow's path: Γ_norm = 1 at an empty queue.
        let mut c = ThetaPowerTcp::new(Params::default(), &short_path_ctx());
        assert_close(c.tau(), 5e-6);
        assert_close(c.cwnd(), 25e9 * 5e-6 / 8.0); // cwnd_init = HostBw·τ
        c.on_ack(&ack(100 * US, 5 * US, 1000, 62_000));
        c.on_ack(&ack(110 * US, 5 * US, 2000, 63_000)); // RTT = τ, flat: Γ_norm = Γs = 1
        assert_close(c.smoothed_power(), 1.0);
        // with the scenario's τ the same empty path reads as Γ = 5/20 and the window opens
        let mut t = ThetaPowerTcp::new(Params { tau: Some(Tau::Topology), ..Params::default() }, &short_path_ctx());
        t.on_ack(&ack(100 * US, 5 * US, 1000, 62_000));
        t.on_ack(&ack(120 * US, 5 * US, 2000, 63_000));
        assert_close(t.smoothed_power(), 0.25);
        // the Linux variant keeps the configured τ (its eBPF law is configured with one), and
        // rdma-hw always tracks the minimum RTT from the scenario's τ
        let l = ThetaPowerTcp::new(Params { law: Law::Linux, ..Params::default() }, &short_path_ctx());
        assert_close(l.tau(), 20e-6);
        let r = ThetaPowerTcp::new(Params { law: Law::RdmaHw, ..Params::default() }, &short_path_ctx());
        assert_close(r.tau(), 20e-6);
        let p: Params = check("theta-powertcp", &serde_json::json!({"tau": "path"}), "cc").unwrap();
        assert_eq!(p.tau, Some(Tau::Path));
    }

    #[test]
    fn a_non_positive_smoothed_power_holds_the_window_or_takes_it_to_one_mss() {
        // RTT falls 30 µs in 1 µs: θ̇ + 1 = −29, Γ_norm = −29·20/20, Γs = (1·19 − 29·1)/20 = −0.5
        let run = |nonpositive_power| {
            let p = Params { nonpositive_power, beta_bytes: Some(1000.0), init_cwnd_bytes: Some(10_000.0), ..Params::default() };
            let mut c = ThetaPowerTcp::new(p, &ctx());
            c.on_ack(&ack(100 * US, 50 * US, 1000, 62_000));
            c.on_ack(&ack(101 * US, 20 * US, 2000, 63_000));
            assert_close(c.smoothed_power(), -0.5);
            let at_negative = c.cwnd();
            // 20 µs later a flat RTT of 20 µs: Δt = τ, so Γs = Γ_norm = 1, and the update that
            // "hold" deferred happens here (lastUpdated was not advanced)
            c.on_ack(&ack(121 * US, 20 * US, 3000, 64_000));
            assert_close(c.smoothed_power(), 1.0);
            (at_negative, c.cwnd())
        };
        let (held, next) = run(NonPositivePower::Hold);
        assert_eq!(held, 10_000.0); // not the cap (62 500 B), which `.max(1e-9)` gave
        assert_close(next, 0.9 * (10_000.0 + 1000.0) + 0.1 * 10_000.0);
        let (floored, next) = run(NonPositivePower::Mss);
        assert_eq!(floored, 1000.0);
        // the window updated at 101 µs, so lastUpdated = 63 000 and the ACK at 3000 is inside
        // that RTT: no update
        assert_eq!(next, 1000.0);
        let p: Params = check("theta-powertcp", &serde_json::json!({"nonpositive_power": "mss"}), "cc").unwrap();
        assert_eq!(p.nonpositive_power, NonPositivePower::Mss);
    }

    #[test]
    fn rdma_hw_variant_is_a_per_ack_rate_law_with_the_window_at_rate_times_min_rtt() {
        // τ = 20 µs configured; the first ACK (t = 10 µs, RTT 8 µs) sets τ = 8 µs and, against
        // prevRtt = prevCompletion = 0: A = 8/10 + 1 = 1.8, Γn = 1.8·8/(1.05·8) = 1.714 286,
        // Δt = 10 µs capped at τ → Γs = Γn; R = 0.7·(25e9/Γs + 150e6) + 0.3·25e9, committed;
        // window = R·8 µs/8.
        let mut c = ThetaPowerTcp::new(Params { law: Law::RdmaHw, ..Params::default() }, &ctx());
        c.on_ack(&ack(10 * US, 8 * US, 1000, 62_000));
        let n1 = 1.8 * 8.0 / (1.05 * 8.0);
        assert_close(c.smoothed_power(), n1);
        let r1 = 0.7 * (25e9 / n1 + 150e6) + 0.3 * 25e9;
        assert!((c.pacing_rate() - r1).abs() < 1.0, "{} vs {r1}", c.pacing_rate());
        assert!((c.cwnd() - r1 * 8e-6 / 8.0).abs() < 1e-6);
        // the next ACK (t = 11 µs, RTT 9 µs) is before snd_nxt 62 000: fast reaction from R_c = r1.
        // A = (9 − 8)/1 + 1 = 2, Γn = 2·9/(1.05·8), Γs = (n1·7 + Γn·1)/8
        c.on_ack(&ack(11 * US, 9 * US, 2000, 63_000));
        let s2 = (n1 * 7.0 + 2.0 * 9.0 / (1.05 * 8.0)) / 8.0;
        assert_close(c.smoothed_power(), s2);
        let r2 = 0.7 * (r1 / s2 + 150e6) + 0.3 * r1;
        assert!((c.pacing_rate() - r2).abs() < 1.0, "{} vs {r2}", c.pacing_rate());
        // an ACK past 62 000 commits; the rate never leaves [min_rate, line]
        c.on_ack(&ack(12 * US, 200 * US, 62_001, 64_000));
        assert!(c.pacing_rate() >= 100e6 && c.pacing_rate() <= 25e9);
        let p: Params = crate::cc::params::check("theta-powertcp", &serde_json::json!({"law": "rdma-hw"}), "cc").unwrap();
        assert_eq!(p.law, Law::RdmaHw);
    }
}
