//! The ECN section of the switch configuration (`[switch.ecn]`): which marking law the egress
//! ports apply at dequeue (fabric/ecn.rs applies it).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::schema::{Range, Section, Type};

/// ECN marking at dequeue from the instantaneous egress queue: `kind` and that kind's section.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Ecn {
    None,
    Step(StepEcn),
    Red(RedEcn),
    Curve(CurveEcn),
    #[serde(rename = "red_by_rate")]
    RedByRate(RedByRateEcn),
}

impl Default for Ecn {
    fn default() -> Self {
        Ecn::None
    }
}

crate::section! {
    /// Mark when the queue exceeds K.
    pub struct StepEcn ("switch.ecn.step") tagged {
        k_bytes: u64 = 0,
            key "k" required, Type::Size, Range::ANY,
            "Mark a packet that leaves more than k bytes behind it in its queue.",
            source "DCTCP (RFC 8257): K, set per experiment";
    }
    rules {}
}

/// RED's three thresholds and their rule, declared once for the `red` kind and for each rule of
/// `red_by_rate`: the section gets the fields written before `red;`, then `kmin`, `kmax` and
/// `pmax`, then the fields after it, and the rule kmax ≥ kmin beside its own.
macro_rules! red_section {
    (
        $(#[$m:meta])*
        pub struct $name:ident ($s:literal) $($tagged:ident)? { $($before:tt)* }
        red; { $($after:tt)* }
        rules { $($rules:tt)* }
    ) => {
        crate::section! {
            $(#[$m])*
            pub struct $name ($s) $($tagged)? {
                $($before)*
                kmin_bytes: u64 = 0,
                    key "kmin" required, Type::Size, Range::ANY,
                    "No mark at or below kmin bytes of queue.",
                    source "set per experiment";
                kmax_bytes: u64 = 0,
                    key "kmax" required, Type::Size, Range::ANY,
                    "Every packet marked at or above kmax bytes of queue.",
                    source "set per experiment";
                pmax: f64 = 0.0,
                    key "pmax" required, Type::Number, Range::closed(0.0, 1.0),
                    "Marking probability just below kmax.",
                    source "set per experiment";
                $($after)*
            }
            rules {
                "kmax": |s| s.kmax_bytes >= s.kmin_bytes,
                    "must be at least kmin (kmax = kmin marks every packet above it: a step, as the artifacts' per-rate DCTCP)";
                $($rules)*
            }
        }
    };
}

red_section! {
    /// RED: probability 0 below Kmin, rising linearly to Pmax at Kmax, 1 above Kmax. With
    /// `steps` > 0 the rise is a staircase of that many equal intervals, as switch chips
    /// implement RED (TBTCP §6: 8 steps; interval i of [Kmin, Kmax) marks with Pmax·(i+1)/steps,
    /// our reading of the paper's step function, whose formula did not survive extraction).
    pub struct RedEcn ("switch.ecn.red") tagged {}
    red; {
        steps: u32 = 0,
            key "steps", Type::Count, Range::closed(0.0, 1024.0),
            "0 = linear rise; n = a staircase of n equal steps (chips: 8).",
            source "ours: linear, as RED";
    }
    rules {}
}

crate::section! {
    /// TBTCP's queue-cancelling curve (tbtcp-tiny-buffer-tcp.txt §4.2 Eq. 6, §6): with
    /// x = queue − tmin, p = x / (BDP + x) for x > 0 (0 otherwise), capped at `pmax`.
    pub struct CurveEcn ("switch.ecn.curve") tagged {
        bdp_bytes: u64 = 0,
            key "bdp" required, Type::Size, Range::POSITIVE,
            "The BDP of the curve p = x / (BDP + x).",
            source "set per experiment (TBTCP §4.2 Eq. 6)";
        tmin_bytes: u64 = 0,
            key "tmin", Type::Size, Range::ANY,
            "Shifts the curve right: x = queue − tmin (burst tolerance; 0 = the ideal curve).",
            source "TBTCP §6: 0 for the ideal curve";
        pmax: f64 = 0.5,
            key "pmax", Type::Number, Range::above(0.0, 1.0),
            "Cap of the marking probability.",
            source "TBTCP §6: 0.5";
    }
    rules {}
}

crate::section! {
    /// RED with thresholds chosen by the port's line rate, as the ns-3 artifact configures each
    /// switch port from its KMIN_MAP/KMAX_MAP/PMAX_MAP (third.cc; it refuses a rate without a
    /// rule, and so do we). Resolved to one `Red` per port when the fabric is built.
    pub struct RedByRateEcn ("switch.ecn.red_by_rate") tagged {
        rules: Vec<RateRed> = vec![],
            key "rules" required, Type::Tables("switch.ecn.rule"), Range::ANY,
            "One RED per port rate: [{rate, kmin, kmax, pmax}, ...]; every switch port's rate needs a rule.",
            source "the artifacts' KMIN_MAP/KMAX_MAP/PMAX_MAP (third.cc)";
    }
    rules {
        "rules": |s| !s.rules.is_empty(), "must list at least one {rate, kmin, kmax, pmax} rule";
        "rules": |s| s.rules.iter().enumerate().all(|(i, r)| s.rules[..i].iter().all(|q| q.rate_bps != r.rate_bps)),
            "has two rules for one rate; one rule per rate";
    }
}

red_section! {
    /// One rule of `red_by_rate`: ports of `rate` mark as RED(kmin, kmax, pmax).
    pub struct RateRed ("switch.ecn.rule") {
        rate_bps: u64 = 0,
            key "rate" required, Type::Rate, Range::POSITIVE,
            "The port rate this rule applies to.",
            source "set per experiment";
    }
    red; {}
    rules {}
}

impl Ecn {
    /// RED's marking probability at a queue of `q` bytes, linear or as a staircase of `steps`.
    pub fn red_probability(kmin_bytes: u64, kmax_bytes: u64, pmax: f64, steps: u32, q: u64) -> f64 {
        if q <= kmin_bytes {
            0.0
        } else if q >= kmax_bytes {
            1.0
        } else if steps == 0 {
            pmax * (q - kmin_bytes) as f64 / (kmax_bytes - kmin_bytes) as f64
        } else {
            let i = (q - kmin_bytes) as u128 * steps as u128 / (kmax_bytes - kmin_bytes) as u128;
            pmax * (i as f64 + 1.0) / steps as f64
        }
    }

    /// Marking probability of the `Curve` kind at a queue of `q` bytes (0 for the other kinds,
    /// which are not probabilistic curves of this shape).
    pub fn curve_probability(bdp_bytes: u64, tmin_bytes: u64, pmax: f64, q: u64) -> f64 {
        if q <= tmin_bytes {
            return 0.0;
        }
        let x = (q - tmin_bytes) as f64;
        (x / (bdp_bytes as f64 + x)).min(pmax)
    }
}

impl Ecn {
    /// The kind's own section check (ranges and rules); errors name `prefix.key`.
    pub fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        match self {
            Ecn::None => Ok(()),
            Ecn::Step(s) => s.check(prefix),
            Ecn::Red(s) => s.check(prefix),
            Ecn::Curve(s) => s.check(prefix),
            Ecn::RedByRate(s) => {
                s.check(prefix)?;
                s.rules.iter().enumerate().try_for_each(|(i, r)| r.check(&format!("{prefix}.rules[{i}]")))
            }
        }
    }

    /// The largest queue length (bytes) at which this marking starts to mark (None: never marks).
    pub fn first_mark_bytes(&self) -> Option<u64> {
        match self {
            Ecn::None => None,
            Ecn::Step(s) => Some(s.k_bytes),
            Ecn::Red(r) => Some(r.kmin_bytes),
            Ecn::Curve(c) => Some(c.tmin_bytes),
            Ecn::RedByRate(r) => r.rules.iter().map(|x| x.kmin_bytes).max(),
        }
    }

    /// Every kind's section, for the front (`config::sections`).
    pub fn sections() -> Vec<serde_json::Value> {
        vec![StepEcn::describe(), RedEcn::describe(), CurveEcn::describe(), RedByRateEcn::describe(), RateRed::describe()]
    }
}
