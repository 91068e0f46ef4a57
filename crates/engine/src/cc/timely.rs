//! TIMELY (Mittal et al., SIGCOMM'15, Algorithm 1), rate-based. `cwnd()` is infinite; the flow is
//! paced at the computed rate.
//!
//! The rate is updated once per *completion event* (TIMELY §3: the NIC timestamps the completion
//! of a 16–64 KB segment, not every packet). Which ACKs are completions is `completion`:
//! * `"segment"` (default, the paper): the ACK whose cumulative acknowledgment first covers a
//!   multiple of `segment_bytes` (16 KB, the lower end of the paper's range) counted from the flow's
//!   first byte; its RTT sample is the completion's RTT.
//! * `"rtt"` (the PowerTCP/HPCC ns-3 artifact, `HandleAckTimely`/`UpdateRateTimely` in rdma-hw.cc):
//!   once per RTT — an ACK acknowledging beyond the snd_nxt recorded at the previous update; the
//!   gradient is taken between these per-RTT samples.
//! Other ACKs change nothing. (Before issue 8 every ACK was an update: 16× more updates per
//! segment, each reacting to the same queue.)
//!
//! Algorithm 1 (per completion, RTT sample new_rtt):
//! ```text
//!  new_rtt_diff = new_rtt − prev_rtt ; prev_rtt = new_rtt
//!  rtt_diff     = (1 − α)·rtt_diff + α·new_rtt_diff            (α = EWMA weight of the new sample)
//!  gradient     = rtt_diff / minRTT
//!  if new_rtt < T_low:  rate ← rate + δ                          (additive increment)
//!  elif new_rtt > T_high: rate ← rate·(1 − β·(1 − T_high/new_rtt))
//!  elif gradient ≤ 0:   N = 5 if ≥ 5 consecutive gradient increases else 1; rate ← rate + N·δ
//!  else:               rate ← rate·(1 − β·gradient)
//! ```
//! Paper-silent choices: the first ACK only initialises prev_rtt (no gradient exists yet); the
//! "consecutive increases" counter counts increases of the gradient branch and is reset by any
//! decrease (T_low increases neither count nor reset); the rate is clamped to
//! [min_rate, line rate] and starts at line rate (RDMA NIC convention of the PowerTCP artifact).

use serde::{Deserialize, Serialize};

use super::params::cc_params;
use super::params::{check, ParamSet, COUNT, FACTOR, GAIN, POS_US, RATE, SANE_BYTES, US};
use super::{AckEvent, Algorithm, Caps, CcContext, Header, StudyNic};
use crate::config::ConfigError;
use crate::schema::{Range, Type};
use crate::time::secs;

/// Which ACKs are TIMELY's completion events (module doc).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Completion {
    /// The paper: one per `segment_bytes` acknowledged.
    #[default]
    Segment,
    /// The ns-3 artifact (rdma-hw.cc UpdateRateTimely): one per RTT.
    Rtt,
}

cc_params! {
    /// TIMELY parameters (algorithms.md "TIMELY"; PowerTCP evaluation values).
    pub struct TimelyParams {
        /// Which ACKs update the rate: "segment" (paper) or "rtt" (artifact).
        completion: Completion = Completion::Segment, Type::Choice(&["segment", "rtt"]), Range::ANY,
            unit "", symbol "", source "TIMELY §3 (segment); rdma-hw.cc UpdateRateTimely (rtt)";
        /// Segment size of a completion event (bytes), `completion = "segment"`. TIMELY §3: 16–64 KB.
        segment_bytes: f64 = 16384.0, Type::Number, Range::closed(1.0, SANE_BYTES),
            unit "B", symbol "", source "TIMELY §3: 16 KB, the lower end of 16–64 KB";
        /// EWMA weight α of the new RTT-difference sample. TIMELY §5 / algorithms.md: 0.875.
        ewma_alpha: f64 = 0.875, Type::Number, GAIN,
            unit "", symbol "α", source "TIMELY §5: 0.875";
        /// Multiplicative decrease factor β. TIMELY §5: 0.8.
        beta: f64 = 0.8, Type::Number, FACTOR,
            unit "", symbol "β", source "TIMELY §5: 0.8";
        /// T_low (µs). algorithms.md (PowerTCP configs): 50 µs.
        t_low_us: f64 = 50.0, Type::Number, US,
            unit "µs", symbol "T_low", source "PowerTCP evaluation configs: 50 µs";
        /// T_high (µs). algorithms.md: 500 µs.
        t_high_us: f64 = 500.0, Type::Number, POS_US,
            unit "µs", symbol "T_high", source "PowerTCP evaluation configs: 500 µs";
        /// minRTT normalising the gradient (µs). algorithms.md: 20 µs.
        min_rtt_us: f64 = 20.0, Type::Number, POS_US,
            unit "µs", symbol "minRTT", source "PowerTCP evaluation configs: 20 µs";
        /// Additive step δ (bits/s). algorithms.md: 50 Mb/s (TIMELY paper: 10 Mb/s).
        delta_bps: f64 = 50e6, Type::Number, RATE,
            unit "bit/s", symbol "δ", source "PowerTCP evaluation configs: 50 Mb/s (TIMELY paper: 10 Mb/s)";
        /// HAI multiplier N (TIMELY Algorithm 1: 5).
        hai_n: f64 = 5.0, Type::Number, Range::above(0.0, 1000.0),
            unit "", symbol "N", source "TIMELY Algorithm 1: 5";
        /// Consecutive gradient increases before HAI (TIMELY Algorithm 1: 5).
        hai_after: u32 = 5, Type::Count, COUNT,
            unit "", symbol "", source "TIMELY Algorithm 1: 5";
        /// Artifact variant: if set, the HAI step is this fixed rate (bits/s) instead of N·δ
        /// (HPCC/PowerTCP ns-3 artifact: R_HAI = 100 Mb/s). None = paper law N·δ.
        hai_step_bps: Option<f64> = None, Type::Number, RATE,
            unit "bit/s", symbol "R_HAI", source "unset: TIMELY Algorithm 1's N·δ";
        /// Lower rate bound (bits/s). PowerTCP configs min rate: 100 Mb/s.
        min_rate_bps: f64 = 100e6, Type::Number, RATE,
            unit "bit/s", symbol "", source "PowerTCP evaluation configs (MIN_RATE): 100 Mb/s";
        /// Which increases count towards HAI. "paper" (default): consecutive increases of the
        /// gradient branch, HAI from the `hai_after`-th on; T_low increases add δ and neither count
        /// nor reset. "artifact" (`RdmaHw::UpdateRateTimely` in rdma-hw.cc, `m_incStage`): every
        /// increase counts, T_low or gradient ≤ 0; the step is δ while fewer than `hai_after`
        /// increases preceded it, then the HAI step; a decrease resets the count.
        increase: Increase = Increase::Paper, Type::Choice(&["paper", "artifact"]), Range::ANY,
            unit "", symbol "", source "TIMELY Algorithm 1 (paper)";
    }
    rules {
        "t_low_us": |p| p.t_low_us < p.t_high_us, "must be below t_high_us";
    }
}

/// TIMELY's increase counting (TimelyParams::increase).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Increase {
    #[default]
    Paper,
    Artifact,
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "timely",
    source: "TIMELY: Mittal et al., SIGCOMM'15, Algorithm 1",
    params: ParamSet::of::<TimelyParams>(),
    build: |p, at, c| Ok(Box::new(Timely::new(check("timely", p, at)?, c)?)),
    caps: Caps { study_nic: StudyNic { header: Header::Timestamp, window_cap: false }, ..Caps::DEFAULT },
};

pub struct Timely {
    pub p: TimelyParams,
    pub line: f64,
    pub rate: f64,
    /// Previous RTT sample (s); None before the first ACK.
    pub prev_rtt: Option<f64>,
    /// Smoothed RTT difference (s).
    pub rtt_diff: f64,
    /// Consecutive gradient-branch increases.
    pub n_inc: u32,
    /// Segments completed (`completion = "segment"`) or the snd_nxt recorded at the last update
    /// (`"rtt"`, 0 before the first).
    done: u64,
}

impl Timely {
    pub fn new(p: TimelyParams, ctx: &CcContext) -> Result<Self, ConfigError> {
        if p.completion == Completion::Segment && p.segment_bytes < 1.0 {
            return Err(ConfigError::new("cc.segment_bytes", "must be ≥ 1 byte"));
        }
        super::params::check_min_rate("min_rate_bps", p.min_rate_bps, ctx)?;
        Ok(Timely { line: ctx.host_rate_bps, rate: ctx.host_rate_bps, prev_rtt: None, rtt_diff: 0.0, n_inc: 0, done: 0, p })
    }

    /// Is this ACK a completion event? (Advances the completion state when it is.)
    fn completes(&mut self, ev: &AckEvent) -> bool {
        match self.p.completion {
            Completion::Segment => {
                let seg = (ev.snd_una as f64 / self.p.segment_bytes) as u64; // segments fully acknowledged
                let new = seg > self.done;
                self.done = self.done.max(seg);
                new
            }
            Completion::Rtt => {
                // artifact: `if (ack_seq > m_lastUpdateSeq)` … `m_lastUpdateSeq = snd_nxt`
                let new = ev.snd_una > self.done;
                if new {
                    self.done = ev.snd_nxt;
                }
                new
            }
        }
    }

    /// Normalised gradient rtt_diff/minRTT.
    pub fn gradient(&self) -> f64 {
        self.rtt_diff / (self.p.min_rtt_us * 1e-6)
    }
}

impl super::CongestionControl for Timely {
    /// RTT from a send timestamp the receiver echoes (the study's simulator: the 8-byte TS
    /// IntHeader of CC mode 7).
    fn header(&self) -> Header {
        Header::Timestamp
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if !self.completes(ev) {
            return; // not a completion event: no update
        }
        let new_rtt = secs(ev.rtt);
        let prev = match self.prev_rtt.replace(new_rtt) {
            Some(p) => p,
            None => return, // first sample: nothing to differentiate
        };
        let p = &self.p;
        let new_diff = new_rtt - prev; // new_rtt_diff = new_rtt − prev_rtt
        self.rtt_diff = (1.0 - p.ewma_alpha) * self.rtt_diff + p.ewma_alpha * new_diff; // EWMA
        let gradient = self.rtt_diff / (p.min_rtt_us * 1e-6); // normalized_gradient = rtt_diff/minRTT
        let (t_low, t_high) = (p.t_low_us * 1e-6, p.t_high_us * 1e-6);
        if p.increase == Increase::Artifact {
            // rdma-hw.cc: inc if rtt < T_low or (rtt ≤ T_high and gradient ≤ 0);
            // rate = R + (incStage < 5 ? R_AI : R_HAI), incStage++; a decrease sets incStage = 0
            let hai = p.hai_step_bps.unwrap_or(p.hai_n * p.delta_bps);
            if new_rtt < t_low || (new_rtt <= t_high && gradient <= 0.0) {
                self.rate += if self.n_inc < p.hai_after { p.delta_bps } else { hai };
                self.n_inc += 1;
            } else {
                let c = if new_rtt > t_high { 1.0 - p.beta * (1.0 - t_high / new_rtt) } else { (1.0 - p.beta * gradient).max(0.0) };
                self.rate *= c;
                self.n_inc = 0;
            }
            self.rate = self.rate.clamp(p.min_rate_bps, self.line);
            return;
        }
        if new_rtt < t_low {
            self.rate += p.delta_bps; // rate ← rate + δ
        } else if new_rtt > t_high {
            self.rate *= 1.0 - p.beta * (1.0 - t_high / new_rtt); // rate ← rate·(1 − β(1 − T_high/new_rtt))
            self.n_inc = 0;
        } else if gradient <= 0.0 {
            self.n_inc += 1;
            let step = if self.n_inc >= p.hai_after {
                p.hai_step_bps.unwrap_or(p.hai_n * p.delta_bps) // HAI: N·δ (N = 5)
            } else {
                p.delta_bps // N = 1
            };
            self.rate += step; // rate ← rate + N·δ
        } else {
            self.rate *= 1.0 - p.beta * gradient; // rate ← rate·(1 − β·gradient)
            self.n_inc = 0;
        }
        self.rate = self.rate.clamp(p.min_rate_bps, self.line);
    }
    fn cwnd(&self) -> f64 {
        f64::INFINITY
    }
    fn trace(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("rtt_diff", self.rtt_diff); // smoothed RTT difference (s)
        out("n_inc", self.n_inc as f64);
    }
    fn pacing_rate(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::{ack, ctx};
    use super::super::CongestionControl;
    use super::*;
    use crate::time::{NS, US};

    /// Completion events of 1000 B (`segment_bytes` = 1000): every 1000-B ACK is one.
    fn per_ack(p: TimelyParams) -> Timely {
        Timely::new(TimelyParams { segment_bytes: 1000.0, ..p }, &ctx()).expect("valid")
    }

    /// The next 1000-B ACK (one completion in `per_ack`) with RTT sample `rtt`.
    fn at(t: &mut Timely, rtt: u64) {
        let una = (t.done + 1) * 1000;
        t.on_ack(&ack(0, 1000, una, una + 1000, rtt, false));
    }

    #[test]
    fn paper_updates_once_per_16kb_segment() {
        let mut t = Timely::new(TimelyParams::default(), &ctx()).unwrap(); // segments of 16 384 B
        let mut una = 0;
        let mut ack_at = |t: &mut Timely, rtt| {
            una += 1000;
            t.on_ack(&ack(0, 1000, una, una + 50_000, rtt, false));
        };
        for _ in 0..16 {
            ack_at(&mut t, 300 * US); // 1000 … 16 000 B: within segment 1, no completion
        }
        assert_eq!((t.pacing_rate(), t.prev_rtt), (25e9, None));
        ack_at(&mut t, 100 * US); // 17 000 B completes segment 1: first sample, recorded
        assert_eq!(t.prev_rtt, Some(secs(100 * US)));
        for _ in 0..15 {
            ack_at(&mut t, 300 * US); // 18 000 … 32 000 B: no completion, no update (per ACK,
                                      // RTT 300 µs would have cut the rate 15 times)
        }
        assert_eq!(t.pacing_rate(), 25e9);
        // 33 000 B completes segment 2 with RTT 104 µs: new_diff = 4 µs, rtt_diff = 0.875·4 =
        // 3.5 µs, gradient = 3.5/20 = 0.175, rate = 25G·(1 − 0.8·0.175) = 21.5G
        ack_at(&mut t, 104 * US);
        assert!((t.pacing_rate() - 21.5e9).abs() < 1.0, "{}", t.pacing_rate());
    }

    #[test]
    fn artifact_updates_once_per_rtt() {
        let p = TimelyParams { completion: Completion::Rtt, ..Default::default() };
        let mut t = Timely::new(p, &ctx()).unwrap();
        t.on_ack(&ack(0, 1000, 1000, 50_000, 100 * US, false)); // first: records RTT, next update after 50 000
        assert_eq!(t.prev_rtt, Some(secs(100 * US)));
        t.on_ack(&ack(0, 1000, 20_000, 60_000, 300 * US, false)); // within the RTT: nothing
        t.on_ack(&ack(0, 1000, 50_000, 70_000, 300 * US, false)); // not beyond 50 000: nothing
        assert_eq!((t.pacing_rate(), t.prev_rtt), (25e9, Some(secs(100 * US))));
        // 51 000 > 50 000: update with RTT 104 µs against 100 µs: 25G·(1 − 0.8·0.175) = 21.5G;
        // the next update waits for 90 000
        t.on_ack(&ack(0, 1000, 51_000, 90_000, 104 * US, false));
        assert!((t.pacing_rate() - 21.5e9).abs() < 1.0);
        t.on_ack(&ack(0, 1000, 89_000, 95_000, 104 * US, false));
        assert!((t.pacing_rate() - 21.5e9).abs() < 1.0);
        let e = Timely::new(TimelyParams { segment_bytes: 0.0, ..Default::default() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.segment_bytes");
    }

    #[test]
    fn first_ack_only_records() {
        let mut t = per_ack(TimelyParams::default());
        at(&mut t, 600 * US); // above T_high, but no update on the first sample
        assert_eq!(t.pacing_rate(), 25e9);
        assert_eq!(t.prev_rtt, Some(600e-6));
    }

    #[test]
    fn decrease_for_a_given_gradient() {
        let mut t = per_ack(TimelyParams::default());
        at(&mut t, 100 * US);
        // RTT rises 100 → 104 µs: new_diff = 4 µs, rtt_diff = 0.125·0 + 0.875·4 = 3.5 µs,
        // gradient = 3.5/20 = 0.175, rate = 25G·(1 − 0.8·0.175) = 25G·0.86 = 21.5G
        at(&mut t, 104 * US);
        assert!((t.gradient() - 0.175).abs() < 1e-12);
        assert!((t.pacing_rate() - 21.5e9).abs() < 1.0);
        // RTT falls to 102 µs: new_diff = −2 µs, rtt_diff = 0.125·3.5 + 0.875·(−2) = −1.3125 µs,
        // gradient < 0 → rate = 21.5G + 50M = 21.55G
        at(&mut t, 102 * US);
        assert!((t.rtt_diff - (-1.3125e-6)).abs() < 1e-15);
        assert!((t.pacing_rate() - 21.55e9).abs() < 1.0);
    }

    #[test]
    fn t_high_and_t_low_override_the_gradient() {
        let mut t = per_ack(TimelyParams::default());
        at(&mut t, 1000 * US);
        // 1000 µs > T_high: rate = 25G·(1 − 0.8·(1 − 500/1000)) = 25G·0.6 = 15G (gradient is 0)
        at(&mut t, 1000 * US);
        assert!((t.pacing_rate() - 15e9).abs() < 1.0);
        // RTT 40 µs < T_low: +δ even though the gradient is hugely negative
        at(&mut t, 40 * US);
        assert!((t.pacing_rate() - 15.05e9).abs() < 1.0);
    }

    #[test]
    fn hyper_active_increase_after_five() {
        let mut t = per_ack(TimelyParams::default());
        t.rate = 10e9;
        at(&mut t, 100 * US);
        // 6 ACKs at constant RTT (gradient 0): increases 1..4 add δ, the 5th and 6th add 5·δ
        for _ in 0..6 {
            at(&mut t, 100 * US);
        }
        // 10G + 4·50M + 2·250M = 10.7G
        assert!((t.pacing_rate() - 10.7e9).abs() < 1.0);
        // a decrease resets the counter: next increase is δ again
        at(&mut t, 110 * US); // gradient = 0.875·10/20 = 0.4375 → ×(1 − 0.35) = 6.955G
        assert!((t.pacing_rate() - 10.7e9 * 0.65).abs() < 1.0);
        let r = t.pacing_rate();
        at(&mut t, 100 * US); // rtt_diff = 0.125·8.75 − 0.875·10 = −7.65625 µs < 0
        assert!((t.pacing_rate() - (r + 50e6)).abs() < 1.0);
        // artifact variant: HAI step is a fixed 100 Mb/s
        let mut a = per_ack(TimelyParams { hai_step_bps: Some(100e6), ..Default::default() });
        a.rate = 10e9;
        for _ in 0..6 {
            at(&mut a, 100 * US + NS);
        }
        // 5 gradient increases: 4·50M + 1·100M
        assert!((a.pacing_rate() - 10.3e9).abs() < 1.0);
    }

    #[test]
    fn clamps_to_min_and_line_rate() {
        let mut t = per_ack(TimelyParams::default());
        at(&mut t, 100 * US);
        at(&mut t, 10 * US); // T_low: +δ but capped at line
        assert_eq!(t.pacing_rate(), 25e9);
        at(&mut t, 400 * US); // rtt_diff = 0.125·(−78.75) + 0.875·390 = 331.4 µs, gradient 16.57: factor < 0 → floor 100 Mb/s
        assert_eq!(t.pacing_rate(), 100e6);
    }

    #[test]
    fn a_minimum_rate_above_the_line_rate_is_refused() {
        // found by tests/fuzz_config.rs: the clamp to [min_rate, line rate] panicked on it
        let p = TimelyParams { min_rate_bps: 30e9, ..TimelyParams::default() };
        let e = Timely::new(p, &ctx()).err().expect("a 30 Gb/s minimum on a 25 Gb/s NIC is refused");
        assert_eq!(e.field, "cc.min_rate_bps");
        assert!(e.message.contains("line rate (25000000000 bit/s)"), "{}", e.message);
    }

    #[test]
    fn artifact_increase_counts_t_low_increases_towards_hai() {
        // RTTs below T_low (50 µs): the paper law adds δ = 50 Mb/s each time; the artifact's
        // rule adds δ for the first 5 consecutive increases (incStage 0..4), then R_HAI.
        let p = TimelyParams { hai_step_bps: Some(100e6), ..TimelyParams::default() };
        let mut paper = per_ack(p.clone());
        let mut art = per_ack(TimelyParams { increase: Increase::Artifact, ..p });
        for d in [&mut paper, &mut art] {
            d.rate = 10e9;
        }
        for i in 0..9u64 {
            let ev = ack(10 * US * (i + 1), 1000, 1000 * (i + 1), 1000 * (i + 2), 10 * US, false);
            paper.on_ack(&ev);
            art.on_ack(&ev);
        }
        // 9 ACKs: the first only samples; then 8 increases
        assert!((paper.rate - (10e9 + 8.0 * 50e6)).abs() < 1.0, "{}", paper.rate);
        assert!((art.rate - (10e9 + 5.0 * 50e6 + 3.0 * 100e6)).abs() < 1.0, "{}", art.rate);
        // a decrease (RTT above T_high) resets the count: the next increase is δ again
        art.on_ack(&ack(200 * US, 1000, 10_000, 11_000, 600 * US, false));
        let r = art.rate;
        art.on_ack(&ack(210 * US, 1000, 11_000, 12_000, 10 * US, false));
        assert!((art.rate - (r + 50e6)).abs() < 1.0, "{} vs {}", art.rate, r + 50e6);
    }
}
