//! DCQCN reaction point (Zhu et al., SIGCOMM'15, §3.1 and Fig. 7), with the parameter set the
//! PowerTCP evaluation used (algorithms.md "DCQCN"). Rate-based: `cwnd()` is infinite and the
//! flow is paced at the current rate R_C.
//!
//! Modelling choices (documented here because the engine has no separate CNP packet):
//! * **CNP generation (notification point).** The receiver turns ECN marks into CNPs at most once
//!   per `cnp_interval_us` per flow (DCQCN §3.1, N = 50 µs). We model it at the sender: an ACK
//!   with ECN echo counts as a CNP only if ≥ `cnp_interval_us` has passed since the last counted
//!   one (the first marked ACK always counts). `cnp_interval_us = 0` reproduces the HPCC/PowerTCP
//!   ns-3 artifact, where every marked ACK reaches the reaction point and only the rate-decrease
//!   interval limits cuts.
//! * **Rate decrease** (reaction point): at most once per `rate_decrease_interval_us` (4 µs):
//!   R_T ← R_C; R_C ← R_C·(1 − α/2); α ← (1 − g)·α + g; the increase state is reset.
//! * **α timer.** Every `alpha_timer_us` without a CNP: α ← (1 − g)·α. The timer restarts at each
//!   CNP; before the first CNP it does not run (α keeps its initial value, as in the artifact,
//!   which starts the α timer at the first CNP). Because nothing else reads α between CNPs, the decay is applied lazily (n elapsed ticks
//!   → α·(1 − g)^n) when α is next needed: exactly the same values, without one engine event per
//!   microsecond per flow.
//! * **Rate increase.** Timer (`rate_increase_timer_us`, via `timer()/on_timer()`) and byte
//!   counter (`byte_counter_bytes`, via `on_send()`) each count increase events since the last
//!   cut (T and BC). At an event, with T and BC the numbers of *earlier* events: max(T, BC) < F →
//!   fast recovery; min(T, BC) > F → hyper-additive increase R_T += R_HAI; otherwise additive
//!   increase R_T += R_AI; then R_C ← (R_T + R_C)/2. Counting earlier events makes F = 1 give
//!   exactly one fast-recovery step, as the artifact's stage counter does. With the byte counter
//!   disabled (0) only T is used (T < F fast, T = F additive, T > F hyper), as in the artifact.
//!   R_T is capped at line rate; the timer stops once R_C reaches line rate.

use serde::{Deserialize, Serialize};

use super::{AckEvent, CcContext, CongestionControl};
use crate::time::{from_secs, Time};

/// DCQCN parameters (PowerTCP configuration unless noted).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DcqcnParams {
    /// α EWMA gain g. PowerTCP configs: 1/256 (DCQCN paper §5: 1/256).
    pub g: f64,
    /// Initial α. DCQCN paper Fig. 7 / artifact: 1.
    pub init_alpha: f64,
    /// α update (decay) timer (µs). PowerTCP configs: 1 µs (DCQCN paper: 55 µs).
    pub alpha_timer_us: f64,
    /// Minimum interval between two rate cuts (µs). PowerTCP configs: 4 µs.
    pub rate_decrease_interval_us: f64,
    /// Receiver CNP generation interval (µs). DCQCN paper §3.1: 50 µs; artifact: 0 (see module doc).
    pub cnp_interval_us: f64,
    /// Rate-increase timer (µs). PowerTCP configs: 900 µs (HPCC used 300 µs; DCQCN paper 55 µs).
    pub rate_increase_timer_us: f64,
    /// Byte counter (bytes) for rate increase; 0 disables. DCQCN paper §5: 10 MB.
    pub byte_counter_bytes: f64,
    /// Fast-recovery steps F. PowerTCP configs: 1 (DCQCN paper: 5).
    pub fast_recovery_steps: u32,
    /// Additive increase R_AI (bits/s). PowerTCP configs: 50 Mb/s.
    pub rate_ai_bps: f64,
    /// Hyper-additive increase R_HAI (bits/s). PowerTCP configs: 100 Mb/s.
    pub rate_hai_bps: f64,
    /// Minimum rate (bits/s). PowerTCP configs: 100 Mb/s.
    pub min_rate_bps: f64,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            g: 1.0 / 256.0,
            init_alpha: 1.0,
            alpha_timer_us: 1.0,
            rate_decrease_interval_us: 4.0,
            cnp_interval_us: 50.0,
            rate_increase_timer_us: 900.0,
            byte_counter_bytes: 10e6,
            fast_recovery_steps: 1,
            rate_ai_bps: 50e6,
            rate_hai_bps: 100e6,
            min_rate_bps: 100e6,
        }
    }
}

pub struct Dcqcn {
    pub p: DcqcnParams,
    pub line: f64,
    /// Current rate R_C (bits/s).
    pub rc: f64,
    /// Target rate R_T (bits/s).
    pub rt: f64,
    /// α as of `alpha_anchor` (decay ticks after it not yet applied).
    pub alpha: f64,
    pub alpha_anchor: Time,
    alpha_tick: Time,
    cnp_interval: Time,
    dec_interval: Time,
    inc_interval: Time,
    pub last_cnp: Option<Time>,
    pub last_decrease: Option<Time>,
    /// Increase events by timer (T) and byte counter (BC) since the last cut.
    pub t_stage: u32,
    pub bc_stage: u32,
    pub bytes: f64,
    pub next_increase: Option<Time>,
}

impl Dcqcn {
    pub fn new(p: DcqcnParams, ctx: &CcContext) -> Self {
        let line = ctx.host_rate_bps;
        Dcqcn {
            line,
            rc: line, // flows start at line rate (artifact, DCQCN paper)
            rt: line,
            alpha: p.init_alpha,
            alpha_anchor: 0,
            alpha_tick: from_secs(p.alpha_timer_us * 1e-6).max(1),
            cnp_interval: from_secs(p.cnp_interval_us * 1e-6),
            dec_interval: from_secs(p.rate_decrease_interval_us * 1e-6),
            inc_interval: from_secs(p.rate_increase_timer_us * 1e-6).max(1),
            last_cnp: None,
            last_decrease: None,
            t_stage: 0,
            bc_stage: 0,
            bytes: 0.0,
            next_increase: None,
            p,
        }
    }

    /// α at time `now`: apply the α-timer ticks elapsed since the anchor, α ← α·(1 − g)^n.
    pub fn sync_alpha(&mut self, now: Time) -> f64 {
        // the α timer starts with the first CNP (artifact: α = 1 until the first CNP)
        if self.last_decrease.is_some() && now > self.alpha_anchor {
            let n = (now - self.alpha_anchor) / self.alpha_tick;
            if n > 0 {
                self.alpha *= (1.0 - self.p.g).powi(n.min(i32::MAX as u64) as i32); // α ← (1 − g)·α per tick
                self.alpha_anchor += n * self.alpha_tick;
            }
        }
        self.alpha
    }

    /// A CNP reached the reaction point.
    pub fn on_cnp(&mut self, now: Time) {
        if let Some(t) = self.last_decrease {
            if now < t + self.dec_interval {
                return; // at most one cut per rate-decrease interval
            }
        }
        let a = self.sync_alpha(now);
        self.rt = self.rc; // R_T ← R_C
        self.rc = (self.rc * (1.0 - a / 2.0)).max(self.p.min_rate_bps); // R_C ← R_C·(1 − α/2)
        self.alpha = (1.0 - self.p.g) * a + self.p.g; // α ← (1 − g)·α + g
        self.alpha_anchor = now; // α timer restarts
        self.last_decrease = Some(now);
        self.t_stage = 0;
        self.bc_stage = 0;
        self.bytes = 0.0;
        self.next_increase = Some(now + self.inc_interval);
    }

    /// One rate-increase event; `by_timer` says which counter fired.
    fn increase(&mut self, by_timer: bool) {
        let f = self.p.fast_recovery_steps;
        let (t, bc) = (self.t_stage, self.bc_stage);
        let use_bc = self.p.byte_counter_bytes > 0.0;
        let (hi, lo) = if use_bc { (t.max(bc), t.min(bc)) } else { (t, t) };
        if hi < f {
            // fast recovery: R_T unchanged
        } else if lo > f {
            self.rt += self.p.rate_hai_bps; // hyper-additive: R_T ← R_T + R_HAI
        } else {
            self.rt += self.p.rate_ai_bps; // additive: R_T ← R_T + R_AI
        }
        self.rt = self.rt.min(self.line);
        self.rc = (self.rt + self.rc) / 2.0; // R_C ← (R_T + R_C)/2
        if self.line - self.rc < 1.0 {
            self.rc = self.line;
        }
        if by_timer {
            self.t_stage += 1;
        } else {
            self.bc_stage += 1;
        }
        if self.rc >= self.line {
            self.next_increase = None; // fully recovered
            self.bytes = 0.0;
        }
    }

    fn recovering(&self) -> bool {
        self.next_increase.is_some()
    }
}

impl CongestionControl for Dcqcn {
    fn on_ack(&mut self, ev: &AckEvent) {
        if !ev.ecn {
            return;
        }
        // receiver CNP generation model: at most one CNP per cnp_interval
        if let Some(t) = self.last_cnp {
            if ev.now < t + self.cnp_interval {
                return;
            }
        }
        self.last_cnp = Some(ev.now);
        self.on_cnp(ev.now);
    }
    fn on_send(&mut self, _now: Time, bytes: u64) {
        if self.p.byte_counter_bytes <= 0.0 || !self.recovering() {
            return;
        }
        self.bytes += bytes as f64;
        while self.bytes >= self.p.byte_counter_bytes && self.recovering() {
            self.bytes -= self.p.byte_counter_bytes;
            self.increase(false);
        }
    }
    fn timer(&self) -> Option<Time> {
        self.next_increase
    }
    fn on_timer(&mut self, now: Time) {
        while let Some(t) = self.next_increase {
            if t > now {
                break;
            }
            self.next_increase = Some(t + self.inc_interval);
            self.increase(true);
        }
    }
    fn cwnd(&self) -> f64 {
        f64::INFINITY
    }
    fn pacing_rate(&self) -> f64 {
        self.rc
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;
    use crate::time::US;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn first_cnp_halves_and_alpha_stays_one() {
        let mut d = Dcqcn::new(DcqcnParams::default(), &ctx()); // line 25 Gb/s
        assert_eq!(d.cwnd(), f64::INFINITY);
        assert_eq!(d.pacing_rate(), 25e9);
        d.on_ack(&ack(10 * US, 1000, 1000, 2000, 10 * US, true));
        // α = 1: R_C = 25G·(1 − 1/2) = 12.5G, R_T = 25G; α = (1 − g)·1 + g = 1
        assert_eq!(d.pacing_rate(), 12.5e9);
        assert_eq!(d.rt, 25e9);
        assert!(close(d.alpha, 1.0));
        assert_eq!(d.timer(), Some(910 * US));
        // marked ACKs within 50 µs are not CNPs
        d.on_ack(&ack(59 * US, 1000, 2000, 3000, 10 * US, true));
        assert_eq!(d.pacing_rate(), 12.5e9);
    }

    #[test]
    fn alpha_timer_decay_then_cut() {
        let mut d = Dcqcn::new(DcqcnParams::default(), &ctx());
        d.on_cnp(0); // R_C = 12.5G, α = 1, α timer anchored at 0
                     // 100 µs later: 100 α ticks without CNP, α = (255/256)^100 = e^(100·ln(0.99609375))
                     // = e^(−0.391441) = 0.676116
        let a = d.sync_alpha(100 * US);
        assert!((a - 0.676_116).abs() < 1e-6, "{a}");
        // a CNP at 100 µs: R_C = 12.5G·(1 − 0.676116/2) = 12.5G·0.661942 = 8.274272G
        d.on_cnp(100 * US);
        assert!((d.rc - 8.274_272e9).abs() < 1e4, "{}", d.rc);
        assert_eq!(d.rt, 12.5e9);
        // α = 0.676116·255/256 + 1/256 = 0.673475 + 0.003906 = 0.677382
        assert!((d.alpha - 0.677_382).abs() < 1e-6, "{}", d.alpha);
        // α ticks are counted from the CNP: at 100.5 µs nothing has decayed, at 101 µs one tick
        assert_eq!(d.sync_alpha(100 * US + US / 2), d.alpha);
        let before = d.alpha;
        assert!(close(d.sync_alpha(101 * US), before * 255.0 / 256.0));
    }

    #[test]
    fn decrease_interval_limits_cuts() {
        let p = DcqcnParams { cnp_interval_us: 0.0, ..Default::default() }; // artifact model
        let mut d = Dcqcn::new(p, &ctx());
        d.on_ack(&ack(0, 1000, 1000, 2000, 10 * US, true));
        d.on_ack(&ack(3 * US, 1000, 2000, 3000, 10 * US, true)); // within 4 µs: ignored
        assert_eq!(d.rc, 12.5e9);
        d.on_ack(&ack(4 * US, 1000, 3000, 4000, 10 * US, true)); // 4 µs later: cut again
                                                                 // α at 4 µs = 1·(255/256)^4 = 0.984466; R_C = 12.5G·(1 − 0.492233) = 6.347086G
        assert!((d.rc - 6.347_086e9).abs() < 1e4, "{}", d.rc);
    }

    #[test]
    fn recovery_fast_then_additive_then_hyper_by_timer() {
        let p = DcqcnParams { byte_counter_bytes: 0.0, ..Default::default() };
        let mut d = Dcqcn::new(p, &ctx());
        d.on_cnp(0); // R_T = 25G, R_C = 12.5G
        d.rt = 20e9; // move the target below line rate to see AI/HAI: R_T = 20G, R_C = 12.5G
        d.on_timer(900 * US); // T = 0 < F = 1: fast recovery, R_C = (20 + 12.5)/2 = 16.25G
        assert_eq!(d.rc, 16.25e9);
        assert_eq!(d.rt, 20e9);
        d.on_timer(1800 * US); // T = 1 = F: additive, R_T = 20.05G, R_C = (20.05 + 16.25)/2 = 18.15G
        assert_eq!(d.rt, 20.05e9);
        assert!(close(d.rc, 18.15e9));
        d.on_timer(2700 * US); // T = 2 > F: hyper, R_T = 20.15G, R_C = (20.15 + 18.15)/2 = 19.15G
        assert!(close(d.rt, 20.15e9));
        assert!(close(d.rc, 19.15e9));
        assert_eq!(d.timer(), Some(3600 * US));
    }

    #[test]
    fn byte_counter_and_timer_both_drive_recovery() {
        let p = DcqcnParams { byte_counter_bytes: 1e6, ..Default::default() };
        let mut d = Dcqcn::new(p, &ctx());
        d.on_send(0, 5_000_000); // not recovering: ignored
        assert_eq!(d.bc_stage, 0);
        d.on_cnp(0);
        d.rt = 20e9;
        // 1 MB sent: BC event with (T, BC) = (0, 0): fast recovery, R_C = (20 + 12.5)/2 = 16.25G
        d.on_send(1, 1_000_000);
        assert_eq!(d.rc, 16.25e9);
        // timer event with (T, BC) = (0, 1): max = 1 ≥ F, min = 0 ≤ F: additive
        d.on_timer(900 * US);
        assert_eq!(d.rt, 20.05e9);
        // BC event with (T, BC) = (1, 1): additive again (min(T, BC) = F is not > F)
        d.on_send(900 * US + 1, 1_000_000);
        assert!(close(d.rt, 20.10e9));
        // timer with (1, 2): min = 1, additive; then BC with (2, 2): min = 2 > F: hyper
        d.on_timer(1800 * US);
        assert!(close(d.rt, 20.15e9));
        d.on_send(1800 * US + 1, 1_000_000);
        assert!(close(d.rt, 20.25e9));
    }

    #[test]
    fn min_rate_floor_and_full_recovery_stops_timer() {
        let mut d = Dcqcn::new(DcqcnParams { cnp_interval_us: 0.0, ..Default::default() }, &ctx());
        for i in 0..20u64 {
            d.on_cnp(i * 4 * US);
        }
        assert_eq!(d.rc, 100e6); // floor: 25G halved ~ 8 times reaches < 100 Mb/s
                                 // R_T = 100M after the last cut; recovery with AI/HAI reaches line rate eventually
        let mut t = 0;
        while d.timer().is_some() && t < 100_000 {
            let at = d.timer().unwrap();
            d.on_timer(at);
            t += 1;
        }
        assert_eq!(d.rc, 25e9);
        assert_eq!(d.timer(), None);
    }
}
