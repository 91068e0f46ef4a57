//! The ECN section of the switch configuration (`[switch.ecn]`): which marking law the egress
//! ports apply at dequeue (fabric/ecn.rs applies it).

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// ECN marking at dequeue from the instantaneous egress queue.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Ecn {
    None,
    /// Mark when queue bytes exceed K.
    Step {
        k_bytes: u64,
    },
    /// RED: probability 0 below Kmin, rising linearly to Pmax at Kmax, 1 above Kmax. With
    /// `steps` > 0 the rise is a staircase of that many equal intervals, as switch chips
    /// implement RED (TBTCP §6: 8 steps; interval i of [Kmin, Kmax) marks with Pmax·(i+1)/steps,
    /// our reading of the paper's step function, whose formula did not survive extraction).
    Red {
        kmin_bytes: u64,
        kmax_bytes: u64,
        pmax: f64,
        #[serde(default)]
        steps: u32,
    },
    /// TBTCP's queue-cancelling curve (tbtcp-tiny-buffer-tcp.txt §4.2 Eq. 6, §6): with
    /// x = queue − tmin, p = x / (BDP + x) for x > 0 (0 otherwise), capped at `pmax` (the paper:
    /// 0.5). `tmin_bytes` shifts the curve right (§6, burst tolerance; 0 = the ideal curve).
    Curve {
        bdp_bytes: u64,
        #[serde(default)]
        tmin_bytes: u64,
        #[serde(default = "curve_pmax_default")]
        pmax: f64,
    },
    /// RED with thresholds chosen by the port's line rate, as the ns-3 artifact configures each
    /// switch port from its KMIN_MAP/KMAX_MAP/PMAX_MAP (third.cc; it refuses a rate without a
    /// rule, and so do we). Resolved to one `Red` per port when the fabric is built.
    #[serde(rename = "red_by_rate")]
    RedByRate {
        rules: Vec<RateRed>,
    },
}

/// One rule of `Ecn::RedByRate`: ports of `rate_bps` mark as RED(kmin, kmax, pmax).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateRed {
    pub rate_bps: u64,
    pub kmin_bytes: u64,
    pub kmax_bytes: u64,
    pub pmax: f64,
}

fn curve_pmax_default() -> f64 {
    0.5
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
    /// Thresholds ordered and probabilities in range; errors name `prefix.key`.
    pub fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        let err = |key: &str, msg: &str| Err(ConfigError::new(&format!("{prefix}.{key}"), msg));
        match self {
            &Ecn::Red { kmin_bytes, kmax_bytes, pmax, .. } => {
                if kmax_bytes <= kmin_bytes {
                    return err("kmax", "must be greater than kmin");
                }
                if !(0.0..=1.0).contains(&pmax) {
                    return err("pmax", "must lie in [0, 1]");
                }
            }
            &Ecn::Curve { bdp_bytes, pmax, .. } => {
                if bdp_bytes == 0 {
                    return err("bdp", "must be > 0 bytes");
                }
                if !(pmax > 0.0 && pmax <= 1.0) {
                    return err("pmax", "must lie in (0, 1]");
                }
            }
            Ecn::RedByRate { rules } => {
                for (i, r) in rules.iter().enumerate() {
                    if r.kmax_bytes <= r.kmin_bytes {
                        return err(&format!("rules[{i}].kmax"), "must be greater than kmin");
                    }
                    if !(0.0..=1.0).contains(&r.pmax) {
                        return err(&format!("rules[{i}].pmax"), "must lie in [0, 1]");
                    }
                }
            }
            Ecn::Step { .. } | Ecn::None => {}
        }
        Ok(())
    }
}
