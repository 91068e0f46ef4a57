//! PowerTCP's measurements, shared with θ-PowerTCP: the normalised power from INT (Algorithm 1
//! lines 14–34) and the window remembered once per RTT (lines 7 and 11).

use super::int_history::{bytes_arrived, bytes_sent, IntHistory};
use crate::config::IntBytesMode;
use crate::packet::IntHop;

/// The INT part of PowerTCP's state, shared with θ-PowerTCP's smoothing (Algorithm 1 lines
/// 14–34): previous INT stack and the smoothed normalised power.
#[derive(Clone, Debug)]
pub struct PowerMeter {
    int: IntHistory,
    /// Γ_smooth, starts at 1 (the equilibrium power).
    pub smooth: f64,
    tau: f64,
    /// Floor on the current λ as a fraction of the link rate (0 in the paper; 0.5 in tcp-advanced).
    pub current_floor: f64,
    /// Floor on Γ_norm and Γ_smooth (−∞ = none, the paper; 0.01 in the Linux variant).
    pub power_floor: f64,
    /// The current is the arrival rate read off the byte counter, Δbytes-arrived/Δt (the RDMA
    /// artifact's `rxRate`), instead of q̇ + μ (the same quantity, computed as the paper writes it).
    pub byte_rate_current: bool,
    /// What the INT byte counter counts (`switch.int_bytes`); μ and the arrival rate are read
    /// through `int_history::bytes_sent` / `bytes_arrived`.
    pub counter: IntBytesMode,
    /// The first stack is differenced against the artifact's zero records (Params).
    pub first_against_zero: bool,
}

impl PowerMeter {
    pub fn new(tau: f64) -> Self {
        PowerMeter {
            int: IntHistory::default(),
            smooth: 1.0,
            tau,
            current_floor: 0.0,
            power_floor: f64::NEG_INFINITY,
            byte_rate_current: false,
            counter: IntBytesMode::Tx,
            first_against_zero: false,
        }
    }

    /// The meter of a law: its floors, how it reads the current, and the run's INT counter.
    pub fn configured(
        tau: f64,
        current_floor: f64,
        power_floor: f64,
        byte_rate_current: bool,
        counter: IntBytesMode,
        first_against_zero: bool,
    ) -> Self {
        PowerMeter { current_floor, power_floor, byte_rate_current, counter, first_against_zero, ..PowerMeter::new(tau) }
    }

    /// The path changed: the previous ACK's records are of other ports.
    pub fn forget_path(&mut self) {
        self.int.reset();
    }

    /// τ changed (θ-PowerTCP with `tau = "min-rtt"`): smoothing over the new τ from now on.
    pub fn set_tau(&mut self, tau: f64) {
        self.tau = tau;
    }

    /// The same meter with Γ_norm and Γ_smooth floored at `floor`.
    pub fn with_power_floor(self, floor: f64) -> Self {
        PowerMeter { power_floor: floor, ..self }
    }

    /// normPower(ack): the largest per-hop normalised power, smoothed over τ.
    /// Returns None on the first INT of a flow (no previous record to difference against).
    pub fn update(&mut self, hops: &[IntHop]) -> Option<f64> {
        if self.first_against_zero {
            self.int.prime_as_artifact_zero(hops);
        }
        let (tau, current_floor, byte_rate, counter) = (self.tau, self.current_floor, self.byte_rate_current, self.counter);
        let (norm, dt) = self.int.max_per_hop(hops, |h, p, dt| {
            // dt: line 18
            let b = h.rate_bps as f64 / 8.0; // bytes/s
            let lambda = if byte_rate {
                bytes_arrived(h, p, counter) / dt // the RDMA artifact's rxRate
            } else {
                let qdot = (h.qlen as f64 - p.qlen as f64) / dt; // line 19: dq/dt
                let mu = bytes_sent(h, p, counter) / dt; // line 20: txRate
                qdot + mu
            };
            let current = lambda.max(current_floor * b); // line 21: λ
            let voltage = h.qlen as f64 + b * tau; // lines 22–23: ν = qlen + BDP
            let power = current * voltage; // line 24: Γ'
            let e = b * b * tau; // line 25: base power
            power / e // line 26: Γ'_norm; the largest over hops, lines 27–29
        })?;
        Some(self.smooth_with(norm, dt))
    }

    /// Line 33: Γ_smooth = (Γ_smooth·(τ − Δt) + Γ_norm·Δt)/τ, with Δt capped at τ. With a power
    /// floor, Γ_norm is raised to it first and Γ_smooth after.
    pub fn smooth_with(&mut self, norm: f64, dt: f64) -> f64 {
        let dt = dt.min(self.tau);
        let norm = norm.max(self.power_floor);
        self.smooth = (self.smooth * (self.tau - dt) + norm * dt) / self.tau;
        self.smooth = self.smooth.max(self.power_floor);
        self.smooth
    }
}

/// Remembers the window once per RTT so the law can use the window at the time the acked
/// segment was sent (Algorithm 1 lines 7 and 11: getCwnd / updateOld).
#[derive(Clone, Debug)]
pub struct OldWindow {
    pub value: f64,
    until_seq: u64,
}

impl OldWindow {
    pub fn new(w: f64) -> Self {
        OldWindow { value: w, until_seq: 0 }
    }
    /// The next refresh waits until snd_una reaches `snd_nxt` (the flow's snd_nxt at start).
    pub fn start_at(&mut self, snd_nxt: u64) {
        self.until_seq = snd_nxt;
    }
    /// updateOld(cwnd, ack.seq): once snd_una passes the snd_nxt stored at the last refresh,
    /// store the current window and the current snd_nxt.
    pub fn update(&mut self, cwnd: f64, snd_una: u64, snd_nxt: u64) {
        if snd_una >= self.until_seq {
            self.value = cwnd;
            self.until_seq = snd_nxt;
        }
    }
}
