//! Homa (Montazeri et al., SIGCOMM'18), the receiver-driven baseline of PowerTCP §4 — sender side.
//!
//! A message sends its first RTTbytes unscheduled, at a priority chosen by its size; every byte
//! beyond needs a grant from the receiver, which grants to at most `overcommit` messages with
//! the fewest remaining bytes (SRPT) and tells each the (scheduled) priority to use. The
//! receiver's side lives in the engine's transport (it sees every incoming message of a host);
//! this module only turns grants into a window and picks priorities. Switches serve 8 strict
//! priorities; `priorities` limits Homa to the first P of them (P = 1: one FIFO level, Homa
//! without priorities) — a diagnostic of how much of Homa's advantage is its priority queues.

use super::params::cc_params;
use super::params::{check, ParamSet, BYTES};
use super::{AckEvent, CcContext, CongestionControl, GrantPolicy};
use super::{Algorithm, Caps, ReceiverDriven};
use crate::config::ConfigError;
use crate::packet::PRIORITIES;
use crate::schema::{Range, Type};

cc_params! {
    pub struct Params {
        /// RTTbytes: unscheduled bytes and grant lead. Default HostBw·τ (the PowerTCP study).
        rtt_bytes: Option<f64> = None, Type::Number, BYTES,
            unit "B", symbol "RTTbytes", source "derived: HostBw·τ (the PowerTCP study)";
        /// Messages a receiver grants to at once (PowerTCP study: 1; Appendix D: 1..6).
        overcommit: u32 = 1, Type::Count, Range::closed(1.0, 64.0),
            unit "", symbol "", source "the PowerTCP study: 1 (Homa Appendix D: 1..6)";
        /// Upper size bounds (bytes) of the unscheduled priority classes, ascending: a message of at
        /// most cutoffs[i] bytes uses priority i, larger ones priority cutoffs.len(). Scheduled
        /// packets use the priorities after those. Homa derives cutoffs from the workload; these
        /// defaults (10 KB, 100 KB, 1 MB: 4 unscheduled, 4 scheduled levels) are ours.
        unsched_cutoffs_bytes: Vec<f64> = vec![10e3, 100e3, 1e6], Type::Numbers, BYTES,
            unit "B", symbol "", source "ours: 10 KB, 100 KB, 1 MB (Homa derives cutoffs from the workload)";
        /// Switch priority levels Homa may use (1..8). With P < 8 the unscheduled classes above
        /// level P − 2 share level P − 2 and scheduled bytes use at most level P − 1 (P ≥ 2); P = 1
        /// puts every packet in one level (FIFO). Homa §3.4 splits its levels between unscheduled
        /// and scheduled bytes; how the PowerTCP study mapped them onto its fabric is not stated.
        priorities: u32 = 8, Type::Count, Range::closed(1.0, 8.0),
            unit "", symbol "", source "ours: all 8 switch priorities (the PowerTCP study does not say)";
    }
    rules {
        "unsched_cutoffs_bytes": |p| p.unsched_cutoffs_bytes.len() + 1 < PRIORITIES,
            "must have at most 6 entries (8 switch priorities; one stays for scheduled bytes)";
    }
}

/// Registration (crates/engine/build.rs collects it).
pub const ALGORITHM: Algorithm = Algorithm {
    name: "homa",
    source: "Homa: Montazeri et al., SIGCOMM'18 (sender side; receiver grants in the transport)",
    params: ParamSet::of::<Params>(),
    build: |p, at, c| Ok(Box::new(Homa::new(check("homa", p, at)?, c)?)),
    caps: Caps::DEFAULT,
};

pub struct Homa {
    rtt_bytes: u64,
    overcommit: u32,
    cutoffs: Vec<f64>,
    unsched_prio: u8,
    size: u64,
    granted: u64,
    sched_prio: u8,
    /// The lowest priority (highest level number) Homa may use: `priorities` − 1.
    max_prio: u8,
    snd_una: u64,
}

impl Homa {
    pub fn new(p: Params, ctx: &CcContext) -> Result<Self, ConfigError> {
        let rtt_bytes = p.rtt_bytes.unwrap_or(ctx.host_rate_bps * ctx.base_rtt / 8.0).round() as u64;
        if rtt_bytes == 0 {
            return Err(ConfigError::new("cc.rtt_bytes", "must be > 0"));
        }
        if p.overcommit == 0 {
            return Err(ConfigError::new("cc.overcommit", "must be ≥ 1"));
        }
        if p.unsched_cutoffs_bytes.len() + 1 >= PRIORITIES || p.unsched_cutoffs_bytes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(ConfigError::new(
                "cc.unsched_cutoffs_bytes",
                format!("must be ascending with at most {} entries (one priority stays for scheduled bytes)", PRIORITIES - 2),
            ));
        }
        if p.priorities == 0 || p.priorities as usize > PRIORITIES {
            return Err(ConfigError::new("cc.priorities", format!("must be in 1..{PRIORITIES}")));
        }
        let max_prio = p.priorities as u8 - 1;
        let first_sched = (p.unsched_cutoffs_bytes.len() as u8 + 1).min(max_prio);
        Ok(Homa {
            rtt_bytes,
            overcommit: p.overcommit,
            unsched_prio: first_sched.saturating_sub(1),
            cutoffs: p.unsched_cutoffs_bytes,
            size: u64::MAX,
            granted: rtt_bytes,
            sched_prio: first_sched,
            max_prio,
            snd_una: 0,
        })
    }
}

impl CongestionControl for Homa {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.snd_una = ev.snd_una;
    }

    /// Send exactly the granted bytes: snd_nxt may advance up to `granted`.
    fn cwnd(&self) -> f64 {
        self.granted.saturating_sub(self.snd_una) as f64
    }

    fn pacing_rate(&self) -> f64 {
        f64::INFINITY
    }

    fn priority(&self, seq: u64) -> u8 {
        if seq < self.rtt_bytes {
            self.unsched_prio
        } else {
            self.sched_prio.min(self.max_prio)
        }
    }

    fn receiver_driven(&mut self) -> Option<&mut dyn ReceiverDriven> {
        Some(self)
    }
}

impl ReceiverDriven for Homa {
    fn grant_policy(&self) -> GrantPolicy {
        GrantPolicy {
            rtt_bytes: self.rtt_bytes,
            overcommit: self.overcommit,
            first_sched_prio: (self.cutoffs.len() as u8 + 1).min(self.max_prio),
        }
    }

    fn on_flow_start(&mut self, size: Option<u64>) {
        self.size = size.unwrap_or(u64::MAX);
        self.granted = self.rtt_bytes.min(self.size);
        // priority of the unscheduled bytes: the first class whose cutoff holds the message,
        // folded into the levels left for unscheduled bytes (all but the last; P = 1: level 0)
        let class = self.cutoffs.iter().position(|&c| self.size as f64 <= c).unwrap_or(self.cutoffs.len()) as u8;
        self.unsched_prio = class.min(self.max_prio.saturating_sub(1));
    }

    fn on_grant(&mut self, offset: u64, prio: u8) {
        self.granted = self.granted.max(offset.min(self.size));
        self.sched_prio = prio;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> CcContext {
        // 25 Gb/s, τ = 20 µs → RTTbytes = 62 500
        crate::cc::test_ctx(20e-6, 1090.0)
    }

    #[test]
    fn unscheduled_bytes_then_grants() {
        let mut h = Homa::new(Params::default(), &ctx()).unwrap();
        h.on_flow_start(Some(500_000));
        assert_eq!(h.cwnd(), 62_500.0); // RTTbytes unscheduled
        assert_eq!(h.priority(0), 2); // 500 KB ≤ 1 MB cutoff → unscheduled class 2
        assert_eq!(h.priority(62_500), 4); // beyond RTTbytes: scheduled (first scheduled prio 4)
        h.on_grant(70_000, 5);
        assert_eq!(h.cwnd(), 70_000.0);
        assert_eq!(h.priority(63_000), 5);
        // a grant never shrinks the window and never exceeds the message
        h.on_grant(10, 4);
        assert_eq!(h.cwnd(), 70_000.0);
        h.on_grant(900_000, 4);
        assert_eq!(h.cwnd(), 500_000.0);
    }

    #[test]
    fn small_messages_are_fully_unscheduled_at_the_top_priority() {
        let mut h = Homa::new(Params::default(), &ctx()).unwrap();
        h.on_flow_start(Some(2_800));
        assert_eq!(h.cwnd(), 2_800.0);
        assert_eq!(h.priority(0), 0);
        assert_eq!(h.grant_policy(), GrantPolicy { rtt_bytes: 62_500, overcommit: 1, first_sched_prio: 4 });
    }

    #[test]
    fn fewer_priority_levels_fold_the_classes() {
        // P = 2: every unscheduled class at level 0, scheduled bytes at level 1
        let mut h = Homa::new(Params { priorities: 2, ..Params::default() }, &ctx()).unwrap();
        h.on_flow_start(Some(500_000));
        assert_eq!(h.priority(0), 0);
        assert_eq!(h.grant_policy().first_sched_prio, 1);
        h.on_grant(70_000, 5); // the transport's rank-based level is clamped to P − 1
        assert_eq!(h.priority(63_000), 1);
        // P = 1: one FIFO level for every packet
        let mut h = Homa::new(Params { priorities: 1, ..Params::default() }, &ctx()).unwrap();
        h.on_flow_start(Some(500_000));
        assert_eq!((h.priority(0), h.grant_policy().first_sched_prio), (0, 0));
        h.on_grant(70_000, 3);
        assert_eq!(h.priority(63_000), 0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = Homa::new(Params { overcommit: 0, ..Params::default() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.overcommit");
        let e = Homa::new(Params { unsched_cutoffs_bytes: vec![5.0, 1.0], ..Params::default() }, &ctx()).err().unwrap();
        assert_eq!(e.field, "cc.unsched_cutoffs_bytes");
    }
}
