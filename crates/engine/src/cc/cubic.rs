//! CUBIC (RFC 9438) on the shared NewReno core (slow start, recovery point, RTO bookkeeping).
//!
//! The cubic law is evaluated in segments (MSS units) and seconds, as written in the RFC, and the
//! window stored in bytes. Slow start is RFC 5681's, ended early by Linux's HyStart
//! (`hystart.rs`, the default as in `tcp_cubic.c`; `hystart = false` turns it off). HyStart++
//! (RFC 9406) is not modelled.
//! A congestion event is a NACK (loss) or an ECE, at most once per window (RFC 9438 §4.6,
//! RFC 6582 recovery point).

use super::hystart::HyStart;
use super::params::cc_params;
use super::params::{check, init_within_max, ParamSet, FACTOR, INIT_WITHIN_MAX, MSS, POS_MSS};
use super::reno::{RenoCore, RenoParams};
use super::{AckEvent, CcContext, CongestionControl};
use super::{Algorithm, Caps};
use crate::schema::{Range, Type};
use crate::time::{secs, Time};

cc_params! {
    /// CUBIC parameters.
    pub struct CubicParams {
        /// C (segments/s³). RFC 9438 §4.2 / §5: 0.4.
        c: f64 = 0.4, Type::Number, Range::above(0.0, 1000.0),
            unit "MSS/s³", symbol "C", source "RFC 9438 §5: 0.4";
        /// β_cubic, multiplicative decrease factor. RFC 9438 §4.6: 0.7.
        beta: f64 = 0.7, Type::Number, FACTOR,
            unit "", symbol "β_cubic", source "RFC 9438 §4.6: 0.7";
        /// Fast convergence (RFC 9438 §4.7). Default on.
        fast_convergence: bool = true, Type::Bool, Range::ANY,
            unit "", symbol "", source "RFC 9438 §4.7: on";
        /// Reno-friendly region (RFC 9438 §4.3). Default on.
        reno_friendly: bool = true, Type::Bool, Range::ANY,
            unit "", symbol "", source "RFC 9438 §4.3: on";
        /// React to ECE as a congestion event (RFC 9438 §4.6, RFC 3168). Default on.
        ecn: bool = true, Type::Bool, Range::ANY,
            unit "", symbol "", source "RFC 9438 §4.6, RFC 3168: on";
        /// Initial window (MSS): 10 (RFC 6928).
        init_cwnd_mss: f64 = 10.0, Type::Number, POS_MSS,
            unit "MSS", symbol "IW", source "RFC 6928: 10";
        /// Window ceiling (MSS), 0 = unbounded.
        max_cwnd_mss: f64 = 0.0, Type::Number, MSS,
            unit "MSS", symbol "", source "none (0 = unbounded)";
        /// Hybrid slow start (HyStart: ACK-train and delay detection end slow start before the
        /// first loss, cc/hystart.rs); false = RFC 5681 slow start until the first loss.
        hystart: bool = true, Type::Bool, Range::ANY,
            unit "", symbol "", source "Linux net/ipv4/tcp_cubic.c: hystart = 1, hystart_detect = 3 (ACK train and delay); RFC 9438 §4.10 allows RFC 5681 slow start (false)";
    }
    rules {
        "init_cwnd_mss": |p| init_within_max(p.init_cwnd_mss, p.max_cwnd_mss), INIT_WITHIN_MAX;
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "cubic",
    source: "CUBIC: RFC 9438; slow start ended by HyStart as Linux tcp_cubic.c",
    params: ParamSet::of::<CubicParams>(),
    build: |p, at, c| Ok(Box::new(Cubic::new(check("cubic", p, at)?, c))),
    caps: Caps::LINUX_LOSS_BASED,
};

pub struct Cubic {
    pub p: CubicParams,
    pub core: RenoCore,
    /// W_max (segments): window just before the last reduction (§4.2).
    pub w_max: f64,
    /// cwnd_prior (segments): window at the last congestion event (§4.3).
    pub cwnd_prior: f64,
    /// K (s): time for W_cubic to reach W_max (§4.2 eq. 2).
    pub k: f64,
    /// Start of the current congestion-avoidance epoch (§4.2 t), None = not started.
    pub epoch_start: Option<Time>,
    /// W_est (segments): Reno-friendly estimate (§4.3 eq. 4).
    pub w_est: f64,
    /// Smoothed RTT (s), RFC 6298 gain 1/8; 0 until the first sample.
    pub srtt: f64,
    /// HyStart's state (None when `hystart = false`).
    pub hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(p: CubicParams, ctx: &CcContext) -> Self {
        let rp = RenoParams { init_cwnd_mss: p.init_cwnd_mss, init_ssthresh_mss: 0.0, ai_mss_per_rtt: 1.0, max_cwnd_mss: p.max_cwnd_mss };
        let hystart = p.hystart.then(|| HyStart::new(0));
        Cubic { p, core: RenoCore::new(&rp, ctx), w_max: 0.0, cwnd_prior: 0.0, k: 0.0, epoch_start: None, w_est: 0.0, srtt: 0.0, hystart }
    }

    /// Linux's `sk_pacing_rate` (bytes/s), which HyStart's ACK-train cushion reads:
    /// cwnd/srtt × 200 % below ssthresh/2, else × 120 % (`tcp_update_pacing_rate`); 0 before the
    /// first RTT sample.
    fn pacing_rate_bytes(&self) -> f64 {
        if self.srtt == 0.0 {
            return 0.0;
        }
        let ratio = if self.core.cwnd < self.core.ssthresh / 2.0 { 2.0 } else { 1.2 };
        ratio * self.core.cwnd / self.srtt
    }

    /// W_cubic(t) = C·(t − K)³ + W_max (RFC 9438 §4.2 eq. 1), segments, t in seconds.
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.p.c * d * d * d + self.w_max
    }

    /// α_cubic = 3·(1 − β)/(1 + β) (§4.3 eq. 4), 1 once W_est ≥ cwnd_prior.
    #[inline]
    fn alpha_cubic(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
        }
    }

    fn congestion_event(&mut self) {
        let mss = self.core.mss;
        let cwnd_seg = self.core.cwnd / mss;
        // §4.7 fast convergence: W_max = cwnd·(1 + β)/2 if the window shrank since the last event
        self.w_max = if self.p.fast_convergence && cwnd_seg < self.w_max {
            cwnd_seg * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd_seg // §4.6: W_max = cwnd before reduction
        };
        self.cwnd_prior = cwnd_seg;
        self.epoch_start = None;
        // §4.6: ssthresh = cwnd·β_cubic; cwnd = ssthresh (floor 2 MSS, RFC 5681)
        self.core.reduce_to(self.core.cwnd * self.p.beta);
    }

    fn ca_increase(&mut self, now: Time, acked: u64) {
        let mss = self.core.mss;
        let cwnd = self.core.cwnd / mss; // segments
        let start = match self.epoch_start {
            Some(t) => t,
            None => {
                // §4.2: new epoch. K = cbrt((W_max − cwnd_epoch)/C) (eq. 2); if the window is
                // already above W_max, the plateau is here: W_max = cwnd, K = 0.
                if cwnd < self.w_max {
                    self.k = ((self.w_max - cwnd) / self.p.c).cbrt();
                } else {
                    self.k = 0.0;
                    self.w_max = cwnd;
                }
                self.w_est = cwnd; // §4.3: W_est = cwnd_epoch
                self.epoch_start = Some(now);
                now
            }
        };
        let segs = acked as f64 / mss;
        let t = secs(now - start);
        // §4.4/4.5: target = W_cubic(t + RTT), clamped to [cwnd, 1.5·cwnd]
        let target = self.w_cubic(t + self.srtt).clamp(cwnd, 1.5 * cwnd);
        let mut next = cwnd + (target - cwnd) / cwnd * segs; // §4.4: cwnd += (target − cwnd)/cwnd per segment
        if self.p.reno_friendly {
            self.w_est += self.alpha_cubic() * segs / cwnd; // §4.3 eq. 4: W_est += α_cubic·acked/cwnd
            if self.w_cubic(t) < self.w_est {
                next = next.max(self.w_est); // §4.3: Reno-friendly region, cwnd = W_est
            }
        }
        self.core.cwnd = (next * mss).min(self.core.max_cwnd);
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.core.observe(ev);
        let r = secs(ev.rtt);
        if r > 0.0 {
            self.srtt = if self.srtt == 0.0 { r } else { 0.875 * self.srtt + 0.125 * r };
            // RFC 6298
        }
        if ev.rtt > 0 && self.hystart.is_some() {
            // HyStart sees every RTT sample (bictcp_acked), before the window grows
            let (slow, pkts, rate) = (self.core.in_slow_start(), self.core.cwnd / self.core.mss, self.pacing_rate_bytes());
            let h = self.hystart.as_mut().expect("checked");
            if h.on_rtt(ev.now, ev.rtt, slow, pkts, rate, self.epoch_start).is_some() {
                self.core.ssthresh = self.core.cwnd; // slow start ends here
            }
        }
        if ev.ecn && self.p.ecn {
            if self.core.may_reduce() {
                self.congestion_event();
            }
            return;
        }
        if ev.acked_bytes == 0 || !ev.cwnd_limited {
            return; // no growth unless the window is the limit (RFC 9438 §4.8, RFC 7661)
        }
        if self.core.in_slow_start() {
            if let Some(h) = &mut self.hystart {
                h.on_slow_start_ack(ev.now, ev.snd_una, ev.snd_nxt); // a new round?
            }
            self.core.increase(ev.acked_bytes); // RFC 5681 slow start
        } else {
            self.ca_increase(ev.now, ev.acked_bytes);
        }
    }
    fn on_nack(&mut self, _now: Time) {
        if self.core.may_reduce() {
            self.congestion_event();
        }
    }
    fn on_timeout(&mut self, now: Time) {
        // §4.8: ssthresh from β_cubic as in §4.6, cwnd = 1 MSS as Reno.
        self.congestion_event();
        self.core.cwnd = self.core.mss;
        if let Some(h) = &mut self.hystart {
            h.on_timeout(now, self.core.snd_nxt);
        }
    }
    fn in_slow_start(&self) -> bool {
        self.core.in_slow_start()
    }
    fn cwnd(&self) -> f64 {
        self.core.cwnd
    }
    fn pacing_rate(&self) -> f64 {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::*;
    use crate::time::{from_secs, MS, US};

    fn after_loss_at_100() -> Cubic {
        let mut c = Cubic::new(CubicParams { init_cwnd_mss: 100.0, ..Default::default() }, &ctx());
        c.on_ack(&ack(1, 0, 1000, 100_000, 10 * US, false)); // srtt = 10 µs
        c.on_nack(2);
        c
    }

    #[test]
    fn w_cubic_at_several_t() {
        let mut c = after_loss_at_100();
        assert_eq!(c.w_max, 100.0);
        assert_eq!(c.cwnd(), 70_000.0); // 100 seg · β = 70 seg
                                        // first CA ACK starts the epoch: K = cbrt((100 − 70)/0.4) = cbrt(75) = 4.217163 s
        c.on_ack(&ack(10, 1000, 2000, 100_000, 10 * US, false));
        assert!((c.k - 4.217_163_326_508_746).abs() < 1e-12);
        // W(0) = 0.4·(−K)³ + 100 = −30 + 100 = 70
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        // W(K) = 100
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-12);
        // W(K + 2) = 100 + 0.4·8 = 103.2; W(K − 1) = 100 − 0.4 = 99.6
        assert!((c.w_cubic(c.k + 2.0) - 103.2).abs() < 1e-9);
        assert!((c.w_cubic(c.k - 1.0) - 99.6).abs() < 1e-9);
    }

    #[test]
    fn concave_step_toward_w_max() {
        let mut c = after_loss_at_100();
        c.core.snd_una = 100_000; // out of recovery
        let t0: Time = 1_000 * US;
        c.on_ack(&ack(t0, 0, 100_000, 200_000, 10 * US, false)); // dup: no epoch
        assert!(c.epoch_start.is_none());
        // first CA ACK at t0: W_cubic(0 + 10 µs) ≈ 70.0002 → cwnd ≈ 70 (+W_est)
        c.on_ack(&ack(t0, 1000, 101_000, 200_000, 10 * US, false));
        // Reno-friendly: W_est = 70 + 0.529412·1/70 = 70.0075630 seg dominates W_cubic(0) = 70
        let a = 3.0 * 0.3 / 1.7;
        let w1 = c.cwnd();
        assert!((w1 / 1000.0 - (70.0 + a / 70.0)).abs() < 1e-6, "{w1}");
        // an ACK at t + RTT = K: target = W_max = 100, cwnd += (100 − w)/w (segments)
        let t = t0 + from_secs(c.k) - 10 * US;
        c.on_ack(&ack(t, 1000, 102_000, 200_000, 10 * US, false));
        let w = w1 / 1000.0;
        let expect = w + (100.0 - w) / w; // ≈ 70.00756 + 29.99244/70.00756 = 70.43598
        assert!((c.cwnd() / 1000.0 - expect).abs() < 1e-6, "{} vs {}", c.cwnd(), expect);
    }

    #[test]
    fn fast_convergence_and_timeout() {
        let mut c = after_loss_at_100(); // W_max = 100, cwnd = 70
        c.core.snd_una = 100_000; // recovery over; 50 000 B now in flight
        c.core.snd_nxt = 150_000;
        c.on_nack(3); // 70 < W_max 100 → W_max = 70·(1 + 0.7)/2 = 59.5; cwnd = 49
        assert!((c.w_max - 59.5).abs() < 1e-12);
        assert!((c.cwnd() - 49_000.0).abs() < 1e-9);
        c.on_nack(4); // same window: ignored
        assert!((c.cwnd() - 49_000.0).abs() < 1e-9);
        c.on_timeout(5); // ssthresh = 49·0.7 = 34.3 seg, cwnd = 1 MSS
        assert_eq!(c.cwnd(), 1000.0);
        assert!((c.core.ssthresh - 34_300.0).abs() < 1e-9);
    }

    /// ACK k (k = 0, 1, …) of a slow start at 1 ms + k·10 µs: 1 000 B acknowledged, RTT 100 µs,
    /// two packets sent per ACK.
    fn slow_start_ack(k: u64) -> AckEvent<'static> {
        ack(MS + k * 10 * US, 1000, 1000 * (k + 1), 10_000 + 2000 * (k + 1), 100 * US, false)
    }

    #[test]
    fn hystart_ends_slow_start_when_the_ack_train_lasts_half_the_rtt_plus_its_cushion() {
        // IW 10, MSS 1 000 B.
        // ACK 0 passes end_seq 0: a round starts at 1 ms and ends once snd_nxt = 12 000 is
        // passed, at ACK 12 (1.12 ms; the next ends past 36 000). Before ACK k the window is
        // 10 + k packets; HyStart runs from 16. Linux's pacing rate 2·cwnd/srtt = (10 + k)·2·10⁷
        // B/s gives a cushion of 4·65 536 B / rate = 13 107.2/(10 + k) µs, and the train must
        // last (100 µs + cushion)/2. Round 1 (ACKs 6–11) lasts at most 110 µs < 362 µs. Round 2:
        // ACK 32 at 200 µs < (100 + 312.1)/2 = 206.0 µs, no; ACK 33 at 210 µs > (100 + 304.8)/2
        // = 202.4 µs: slow start ends at cwnd 43 packets.
        let mut c = Cubic::new(CubicParams::default(), &ctx());
        for k in 0..33 {
            c.on_ack(&slow_start_ack(k));
            assert!(c.core.in_slow_start(), "ACK {k}");
        }
        assert_eq!(c.cwnd(), 43_000.0);
        c.on_ack(&slow_start_ack(33));
        assert_eq!(c.core.ssthresh, 43_000.0);
        assert_eq!(c.hystart.as_ref().unwrap().found, Some(super::super::hystart::Exit::AckTrain));
        assert!(c.cwnd() < 43_100.0, "congestion avoidance from here: {}", c.cwnd());

        // without HyStart the same ACKs keep doubling the window
        let mut plain = Cubic::new(CubicParams { hystart: false, ..Default::default() }, &ctx());
        for k in 0..34 {
            plain.on_ack(&slow_start_ack(k));
        }
        assert_eq!(plain.cwnd(), 44_000.0);
        assert!(plain.core.in_slow_start());
    }

    #[test]
    fn a_timeout_restarts_hystart() {
        let mut c = Cubic::new(CubicParams::default(), &ctx());
        for k in 0..34 {
            c.on_ack(&slow_start_ack(k));
        }
        assert!(c.hystart.as_ref().unwrap().found.is_some());
        c.on_timeout(2 * MS);
        let h = c.hystart.as_ref().unwrap();
        assert_eq!((h.found, h.delay_min, h.round_start), (None, 0, 2 * MS));
    }
}
