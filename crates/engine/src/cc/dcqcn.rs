//! DCQCN reaction point (Zhu et al., SIGCOMM'15, §3.1 and Fig. 7), with the parameter set the
//! PowerTCP evaluation used (algorithms.md "DCQCN"). Rate-based: `cwnd()` is infinite and the
//! flow is paced at the current rate R_C.
//!
//! PowerTCP §4 sets DCQCN "following the suggestion in [36]" (HPCC), i.e. it ran HPCC's ns-3
//! reaction point with its parameters (α timer 1 µs, decrease check 4 µs, recovery timer 900 µs,
//! F = 1, no byte counter). That reaction point is the default here, `variant = "mlx"`, named as
//! its source names it: "Mellanox's version of DCQCN" in `simulation/src/point-to-point/model/
//! rdma-hw.cc` of alibaba-edu/High-Precision-Congestion-Control (CC mode 1; the same code in
//! inet-tub/ns3-datacenter's rdma-hw.cc). Its timing is one consistent source:
//! * **CNPs.** Every ECN-marked packet makes the receiver set the CNP flag on its ACK
//!   (`ReceiveUdp`), so every marked ACK is a CNP (`cnp_received_mlx`).
//! * **α** (`UpdateAlphaMlx`): a timer ticks every `alpha_timer_us` from the first CNP on; a tick
//!   that saw a CNP since the previous tick does α ← (1 − g)·α + g, any other α ← (1 − g)·α. Under
//!   persistent marking every tick raises α, so α → 1 (time constant alpha_timer/g = 256 µs) and
//!   the cuts approach 50%.
//! * **Decrease** (`CheckRateDecreaseMlx`): a check every `rate_decrease_interval_us` from the
//!   first CNP (+1 ns, so that it follows the α tick of the same instant); if a CNP arrived since
//!   the previous check: R_T ← R_C (unless `clamp_target_rate` is false and no increase event
//!   happened since the last cut, the artifact's `CLAMP_TARGET_RATE 0`), R_C ← R_C·(1 − α/2)
//!   floored at the minimum rate, the increase stage resets and the increase timer restarts.
//!   The first CNP sets R_T ← R_C and α ← 1 (`m_rateOnFirstCNP` = 1) and only arms the timers.
//! * **Increase** (`RateIncEventTimerMlx`): by timer only (the artifact has no byte counter):
//!   stage T < F fast recovery, T = F additive (R_T += R_AI), T > F hyper (R_T += R_HAI); then
//!   R_C ← (R_T + R_C)/2.
//! The α ticks and decrease checks are applied lazily (elapsed ticks are replayed when α or the
//! rate is next needed; a decrease check is an engine timer only while a CNP is pending): the
//! same values as one event per microsecond per flow, without the events.
//!
//! `variant = "paper"` is the DCQCN paper's reaction point (§3.1, Fig. 7):
//! * **CNP generation (notification point).** At most one CNP per `cnp_interval_us` per flow
//!   (paper N = 50 µs), modelled at the sender: an ACK with ECN echo counts as a CNP only if
//!   ≥ `cnp_interval_us` has passed since the last counted one.
//! * **Decrease** on each CNP (at most once per `rate_decrease_interval_us`): R_T ← R_C;
//!   R_C ← R_C·(1 − α/2); α ← (1 − g)·α + g; the increase state is reset.
//! * **α timer.** Every `alpha_timer_us` (paper K = 55 µs) without a CNP: α ← (1 − g)·α; the timer
//!   restarts at each CNP. The paper requires K > N, so that a flow marked persistently never
//!   decays between CNPs; the parameters are refused otherwise.
//! * **Increase** by timer and byte counter (`byte_counter_bytes`), counting events since the last
//!   cut (T and BC). At an event, with T and BC the numbers of *earlier* events: max(T, BC) < F →
//!   fast recovery; min(T, BC) > F → hyper-additive; otherwise additive; then R_C ← (R_T + R_C)/2.
//!   The paper's own values (K = 55 µs, timer 55 µs, byte counter 10 MB, F = 5) must be set
//!   explicitly; the defaults are the PowerTCP configuration.
//! In both variants R_T is capped at line rate and the increase timer stops at line rate.

use serde::{Deserialize, Serialize};

use super::params::cc_params;
use super::params::{check, ParamSet, Params, COUNT, FRACTION, GAIN, POS_US, RATE, SANE_BYTES, US};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps, Header, StudyNic};
use crate::config::ConfigError;
use crate::schema::{Range, Type};
use crate::time::{from_secs, Time, NS};

/// Which DCQCN reaction point to run (module doc).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Law {
    /// HPCC's ns-3 artifact, rdma-hw.cc "Mellanox's version of DCQCN" (the PowerTCP study's DCQCN).
    #[default]
    Mlx,
    /// The DCQCN paper's reaction point (§3.1, Fig. 7).
    Paper,
}

cc_params! {
    /// DCQCN parameters (PowerTCP configuration, = the artifact's config-workload.txt, unless noted).
    pub struct DcqcnParams {
        /// Which reaction point to run (`Law`): the HPCC artifact's Mellanox one or the DCQCN paper's.
        law: Law = Law::Mlx, Type::Choice(&["mlx", "paper"]), Range::ANY,
            unit "", symbol "", source "the PowerTCP study's DCQCN: HPCC ns-3 rdma-hw.cc (mlx)", alias "variant";
        /// α EWMA gain g. PowerTCP configs: 1/256 (DCQCN paper §5: 1/256).
        g: f64 = 1.0 / 256.0, Type::Number, GAIN,
            unit "", symbol "g", source "PowerTCP configs / DCQCN §5: 1/256";
        /// Initial α. DCQCN paper Fig. 7 / artifact: 1.
        init_alpha: f64 = 1.0, Type::Number, FRACTION,
            unit "", symbol "α", source "DCQCN Fig. 7 / the artifact: 1";
        /// α timer (µs). PowerTCP configs (ALPHA_RESUME_INTERVAL): 1 µs; DCQCN paper K: 55 µs.
        alpha_timer_us: f64 = 1.0, Type::Number, POS_US,
            unit "µs", symbol "K", source "PowerTCP configs (ALPHA_RESUME_INTERVAL): 1 µs (DCQCN paper: 55 µs)";
        /// Minimum interval between two rate cuts (µs), the artifact's decrease check period.
        /// PowerTCP configs: 4 µs.
        rate_decrease_interval_us: f64 = 4.0, Type::Number, US,
            unit "µs", symbol "", source "PowerTCP configs: 4 µs";
        /// Receiver CNP generation interval (µs), paper variant only (DCQCN paper N: 50 µs); the
        /// artifact sends a CNP per marked packet (0).
        cnp_interval_us: f64 = 0.0, Type::Number, US,
            unit "µs", symbol "N", source "the artifact: 0, a CNP per marked packet (DCQCN paper: 50 µs)";
        /// Rate-increase timer (µs). PowerTCP configs (RP_TIMER): 900 µs (HPCC: 300 µs; paper 55 µs).
        rate_increase_timer_us: f64 = 900.0, Type::Number, POS_US,
            unit "µs", symbol "T", source "PowerTCP configs (RP_TIMER): 900 µs";
        /// Byte counter (bytes) for rate increase, paper variant only; 0 disables (the artifact has
        /// none). DCQCN paper §5: 10 MB.
        byte_counter_bytes: f64 = 0.0, Type::Number, Range::closed(0.0, SANE_BYTES),
            unit "B", symbol "B", source "the artifact: none, 0 (DCQCN paper §5: 10 MB)";
        /// Fast-recovery steps F. PowerTCP configs: 1 (DCQCN paper: 5).
        fast_recovery_steps: u32 = 1, Type::Count, COUNT,
            unit "", symbol "F", source "PowerTCP configs: 1 (DCQCN paper: 5)";
        /// Additive increase R_AI (bits/s). PowerTCP configs: 50 Mb/s.
        rate_ai_bps: f64 = 50e6, Type::Number, RATE,
            unit "bit/s", symbol "R_AI", source "PowerTCP configs: 50 Mb/s";
        /// Hyper-additive increase R_HAI (bits/s). PowerTCP configs: 100 Mb/s.
        rate_hai_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "R_HAI", source "PowerTCP configs: 100 Mb/s";
        /// Minimum rate (bits/s). PowerTCP configs: 100 Mb/s.
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "PowerTCP configs: 100 Mb/s";
        /// mlx law: a cut always sets R_T ← R_C (the artifact's CLAMP_TARGET_RATE 1). PowerTCP
        /// configs: false — a cut before any increase event keeps R_T.
        clamp_target_rate: bool = false, Type::Bool, Range::ANY,
            unit "", symbol "", source "PowerTCP configs (CLAMP_TARGET_RATE): false";
    }
    rules {
        "cnp_interval_us": |p| !(p.law == Law::Mlx && p.cnp_interval_us > 0.0),
            "the artifact's reaction point (law \"mlx\") gets a CNP per marked packet; a CNP interval needs law = \"paper\"";
        "byte_counter_bytes": |p| !(p.law == Law::Mlx && p.byte_counter_bytes > 0.0),
            "the artifact's reaction point (law \"mlx\") has no byte counter; use law = \"paper\"";
        "alpha_timer_us": |p| p.law != Law::Paper || p.alpha_timer_us > p.cnp_interval_us,
            "must exceed cnp_interval_us in law \"paper\" (DCQCN §3.1: K > N), else α decays between CNPs and never grows";
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "dcqcn",
    source: "DCQCN: HPCC ns-3 rdma-hw.cc Mellanox reaction point (law mlx); Zhu et al., SIGCOMM'15, §3.1 (law paper)",
    params: ParamSet::of::<DcqcnParams>(),
    build: |p, at, c| Ok(Box::new(Dcqcn::new(check("dcqcn", p, at)?, c)?)),
    caps: Caps { study_nic: StudyNic { header: Header::None, window_cap: false }, ..Caps::DEFAULT },
};

impl DcqcnParams {
    /// Refuse parameter sets that mix the two reaction points' timing.
    /// The cross-field rules, for a `Dcqcn::new` called without `cc::build` (its tests).
    fn check(&self) -> Result<(), ConfigError> {
        match <Self as Params>::rules().into_iter().find(|r| !(r.holds)(self)) {
            Some(r) => Err(ConfigError::new(&format!("cc.{}", r.key), r.message)),
            None => Ok(()),
        }
    }
}

/// The mlx variant's timer grid, anchored at the first CNP t0: α ticks at t0 + k·alpha_tick and
/// decrease checks at t0 + 1 ns + k·dec_interval (k ≥ 1).
#[derive(Clone, Copy, Debug)]
struct MlxClock {
    t0: Time,
    /// α ticks already applied.
    ticks_done: u64,
    /// A CNP arrived since the last α tick (`m_alpha_cnp_arrived`).
    alpha_cnp: bool,
    /// A CNP arrived since the last decrease check (`m_decrease_cnp_arrived`).
    decrease_cnp: bool,
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
    mlx: Option<MlxClock>,
    /// mlx: the decrease check that will act on a pending CNP.
    next_decrease: Option<Time>,
}

impl Dcqcn {
    pub fn new(p: DcqcnParams, ctx: &CcContext) -> Result<Self, ConfigError> {
        p.check()?;
        super::params::check_min_rate("min_rate_bps", p.min_rate_bps, ctx)?;
        let line = ctx.host_rate_bps;
        Ok(Dcqcn {
            line,
            rc: line, // flows start at line rate (artifact, DCQCN paper)
            rt: line,
            alpha: p.init_alpha,
            alpha_anchor: 0,
            alpha_tick: from_secs(p.alpha_timer_us * 1e-6).max(1),
            cnp_interval: from_secs(p.cnp_interval_us * 1e-6),
            dec_interval: from_secs(p.rate_decrease_interval_us * 1e-6).max(1),
            inc_interval: from_secs(p.rate_increase_timer_us * 1e-6).max(1),
            last_cnp: None,
            last_decrease: None,
            t_stage: 0,
            bc_stage: 0,
            bytes: 0.0,
            next_increase: None,
            mlx: None,
            next_decrease: None,
            p,
        })
    }

    /// α at time `now`: apply the α-timer ticks elapsed up to `now` (ticks at `now` included).
    pub fn sync_alpha(&mut self, now: Time) -> f64 {
        let g = self.p.g;
        if let Some(c) = self.mlx.as_mut() {
            // mlx (UpdateAlphaMlx): tick k at t0 + k·tick; the first pending tick sees the CNP
            // flag, α ← (1 − g)·α + g if set, else (1 − g)·α; the later ones see no CNP.
            let due = (now.saturating_sub(c.t0)) / self.alpha_tick;
            if due > c.ticks_done {
                self.alpha = if c.alpha_cnp { (1.0 - g) * self.alpha + g } else { (1.0 - g) * self.alpha };
                c.alpha_cnp = false;
                self.alpha *= (1.0 - g).powi((due - c.ticks_done - 1).min(i32::MAX as u64) as i32);
                c.ticks_done = due;
            }
            return self.alpha;
        }
        // paper: the α timer starts with the first CNP (α = init until then) and restarts at
        // each CNP; every period without a CNP: α ← (1 − g)·α
        if self.last_decrease.is_some() && now > self.alpha_anchor {
            let n = (now - self.alpha_anchor) / self.alpha_tick;
            if n > 0 {
                self.alpha *= (1.0 - g).powi(n.min(i32::MAX as u64) as i32);
                self.alpha_anchor += n * self.alpha_tick;
            }
        }
        self.alpha
    }

    /// A CNP reached the reaction point.
    pub fn on_cnp(&mut self, now: Time) {
        if self.p.law == Law::Mlx {
            return self.on_cnp_mlx(now);
        }
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
        self.reset_increase(now);
    }

    /// mlx: `cnp_received_mlx` — set both CNP flags; the first CNP starts the timers.
    fn on_cnp_mlx(&mut self, now: Time) {
        match self.mlx {
            None => {
                self.alpha = self.p.init_alpha; // α ← 1
                self.rt = self.rc; // R_T ← R_C (m_rateOnFirstCNP = 1)
                self.mlx = Some(MlxClock { t0: now, ticks_done: 0, alpha_cnp: false, decrease_cnp: true });
            }
            Some(_) => {
                self.sync_alpha(now); // ticks up to now come first
                let c = self.mlx.as_mut().expect("mlx clock");
                c.alpha_cnp = true;
                c.decrease_cnp = true;
            }
        }
        if self.next_decrease.is_none() {
            self.next_decrease = self.next_decrease_check(now);
        }
    }

    /// mlx: the next decrease check after `now` (t0 + 1 ns + k·interval, k ≥ 1).
    fn next_decrease_check(&self, now: Time) -> Option<Time> {
        let c = self.mlx.as_ref().filter(|c| c.decrease_cnp)?;
        let first = c.t0 + NS + self.dec_interval;
        if now < first {
            return Some(first);
        }
        Some(first + ((now - first) / self.dec_interval + 1) * self.dec_interval)
    }

    /// mlx: `CheckRateDecreaseMlx` at time `t` with a CNP pending.
    fn decrease_mlx(&mut self, t: Time) {
        let a = self.sync_alpha(t);
        if self.p.clamp_target_rate || self.t_stage != 0 {
            self.rt = self.rc; // R_T ← R_C
        }
        self.rc = (self.rc * (1.0 - a / 2.0)).max(self.p.min_rate_bps); // R_C ← R_C·(1 − α/2)
        if let Some(c) = self.mlx.as_mut() {
            c.decrease_cnp = false;
        }
        self.next_decrease = None;
        self.last_decrease = Some(t);
        self.reset_increase(t);
    }

    fn reset_increase(&mut self, now: Time) {
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
        match (self.next_increase, self.next_decrease) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn on_timer(&mut self, now: Time) {
        // the due events in time order (a decrease check first on a tie)
        while let Some(t) = self.timer().filter(|&t| t <= now) {
            if self.next_decrease == Some(t) {
                self.decrease_mlx(t);
            } else {
                self.next_increase = Some(t + self.inc_interval);
                self.increase(true);
            }
        }
    }
    fn cwnd(&self) -> f64 {
        f64::INFINITY
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
        out("rc", self.rc); // current rate R_C (bits/s)
        out("rt", self.rt); // target rate R_T (bits/s)
    }
    fn pacing_rate(&self) -> f64 {
        self.rc
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;
    use crate::time::{MS, NS, US};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The paper's reaction point with the PowerTCP timing (α timer 1 µs, CNP per marked ACK).
    fn paper() -> DcqcnParams {
        DcqcnParams { law: Law::Paper, ..Default::default() }
    }

    fn new(p: DcqcnParams) -> Dcqcn {
        Dcqcn::new(p, &ctx()).expect("valid parameters")
    }

    #[test]
    fn mlx_alpha_ticks_sample_cnps_and_cuts_are_checked_every_4us() {
        // artifact (rdma-hw.cc, Mellanox version): α ticks at 1, 2, 3 … µs after the first CNP,
        // decrease checks at 4 µs + 1 ns, 8 µs + 1 ns, …
        let mut d = new(DcqcnParams::default()); // line 25 Gb/s, g = 1/256
        d.on_ack(&ack(0, 1000, 1000, 2000, 10 * US, true)); // first CNP: α = 1, R_T = R_C, no cut
        assert_eq!((d.rc, d.rt, d.alpha), (25e9, 25e9, 1.0));
        assert_eq!(d.timer(), Some(4 * US + NS));
        d.on_ack(&ack(US / 2, 1000, 2000, 3000, 10 * US, true)); // a CNP in (0, 1 µs]
        d.on_timer(4 * US + NS);
        // tick 1 saw it: α = (1 − g)·1 + g = 1; ticks 2–4 did not: α = (255/256)^3 = 0.988327
        // R_C = 25G·(1 − 0.988327/2) = 12.645913G; R_T stays 25G (no increase event since the
        // first CNP and CLAMP_TARGET_RATE 0)
        assert!(close(d.alpha, 0.988_326_966_762_542_7), "{}", d.alpha);
        assert!((d.rc - 12.645_912_915e9).abs() < 1.0, "{}", d.rc);
        assert_eq!(d.rt, 25e9);
        assert_eq!(d.timer(), Some(904 * US + NS)); // no CNP pending: only the increase timer
                                                    // a CNP at 5.5 µs: tick 5 decays (α·255/256), tick 6 raises ((1 − g)·α + g), ticks 7–8
                                                    // decay: α = ((0.988327·(255/256))·(255/256) + 1/256)·(255/256)^2 = 0.976850
        d.on_ack(&ack(5 * US + US / 2, 1000, 3000, 4000, 10 * US, true));
        assert_eq!(d.timer(), Some(8 * US + NS));
        d.on_timer(8 * US + NS);
        assert!(close(d.alpha, 0.976_850_398_564_263_1), "{}", d.alpha);
        // R_C = 12.645913G·(1 − 0.976850/2) = 6.469330G
        assert!((d.rc - 6.469_330_380e9).abs() < 1.0, "{}", d.rc);
        assert_eq!(d.rt, 25e9);
        // with CLAMP_TARGET_RATE 1 the first cut sets R_T ← R_C = 25G, the second R_T ← 12.645913G
        let mut c = new(DcqcnParams { clamp_target_rate: true, ..Default::default() });
        for t in [0, US / 2, 5 * US + US / 2] {
            c.on_timer(t); // the check at 4 µs + 1 ns runs before the CNP at 5.5 µs
            c.on_ack(&ack(t, 1000, 1000, 2000, 10 * US, true));
        }
        assert_eq!(c.rt, 25e9);
        c.on_timer(8 * US + NS);
        assert!((c.rt - 12.645_912_915e9).abs() < 1.0, "{}", c.rt);
    }

    #[test]
    fn mlx_alpha_grows_to_one_and_cuts_halve_under_persistent_marking() {
        // Every ACK marked, one per 0.32 µs (a 1 KB packet at 25 Gb/s) for 1 ms: every α tick
        // sees a CNP, so α = (1 − g)·α + g ≥ 1·(1 − g) + g = 1 stays at 1 and every check cuts by
        // (1 − 1/2): R_C halves every 4 µs down to the 100 Mb/s floor. (The earlier model, a CNP
        // per 50 µs against a 1 µs α decay, held α near g/(1 − (1 − g)^50) ≈ 0.02: ~1% cuts.)
        let mut d = new(DcqcnParams::default());
        let mut t = 0;
        let mut rates = vec![];
        while t < MS {
            if d.timer().is_some_and(|x| x <= t) {
                d.on_timer(t);
                rates.push(d.rc);
            }
            d.on_ack(&ack(t, 1000, 1000, 2000, 10 * US, true));
            t += 320_000;
        }
        assert!(d.sync_alpha(t) > 0.999, "{}", d.alpha);
        assert!(close(rates[1] / rates[0], 0.5), "{rates:?}");
        assert_eq!(d.rc, 100e6);
    }

    #[test]
    fn parameters_mixing_the_two_reaction_points_are_refused() {
        let e = Dcqcn::new(DcqcnParams { cnp_interval_us: 50.0, ..Default::default() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.cnp_interval_us");
        let e = Dcqcn::new(DcqcnParams { byte_counter_bytes: 1e6, ..Default::default() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.byte_counter_bytes");
        let e = Dcqcn::new(DcqcnParams { cnp_interval_us: 50.0, ..paper() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.alpha_timer_us");
        assert!(e.message.contains("K > N"), "{}", e.message);
        assert!(Dcqcn::new(DcqcnParams { cnp_interval_us: 50.0, alpha_timer_us: 55.0, ..paper() }, &ctx()).is_ok());
    }

    #[test]
    fn first_cnp_halves_and_alpha_stays_one() {
        // the paper's timing: CNPs at most every N = 50 µs, α timer K = 55 µs
        let mut d = new(DcqcnParams { cnp_interval_us: 50.0, alpha_timer_us: 55.0, ..paper() }); // line 25 Gb/s
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
        let mut d = new(paper());
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
        let mut d = new(paper());
        d.on_ack(&ack(0, 1000, 1000, 2000, 10 * US, true));
        d.on_ack(&ack(3 * US, 1000, 2000, 3000, 10 * US, true)); // within 4 µs: ignored
        assert_eq!(d.rc, 12.5e9);
        d.on_ack(&ack(4 * US, 1000, 3000, 4000, 10 * US, true)); // 4 µs later: cut again
                                                                 // α at 4 µs = 1·(255/256)^4 = 0.984466; R_C = 12.5G·(1 − 0.492233) = 6.347086G
        assert!((d.rc - 6.347_086e9).abs() < 1e4, "{}", d.rc);
    }

    #[test]
    fn recovery_fast_then_additive_then_hyper_by_timer() {
        let mut d = new(paper());
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
        let mut d = new(DcqcnParams { byte_counter_bytes: 1e6, ..paper() });
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
        let mut d = new(paper());
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
