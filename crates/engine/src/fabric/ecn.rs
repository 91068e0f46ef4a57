//! ECN marking at dequeue, from the instantaneous egress queue (bytes left behind the packet).

use crate::config::{ConfigError, CurveEcn, Ecn, RedByRateEcn, RedEcn, StepEcn};
use crate::rng::Rng;

/// Whether a data packet leaving a queue of `q` bytes gets a CE mark. Draws from `rng` only where
/// the marker is probabilistic at this queue length.
#[inline]
pub fn mark(ecn: &Ecn, q: u64, rng: &mut Rng) -> bool {
    match *ecn {
        Ecn::None => false,
        Ecn::Step(StepEcn { k_bytes }) => q > k_bytes,
        Ecn::Red(RedEcn { kmin_bytes, kmax_bytes, pmax, steps }) => {
            if q <= kmin_bytes {
                false
            } else if q >= kmax_bytes {
                true
            } else {
                rng.uniform() < Ecn::red_probability(kmin_bytes, kmax_bytes, pmax, steps, q)
            }
        }
        Ecn::Curve(CurveEcn { bdp_bytes, tmin_bytes, pmax }) => {
            let prob = Ecn::curve_probability(bdp_bytes, tmin_bytes, pmax, q);
            prob > 0.0 && rng.uniform() < prob
        }
        Ecn::RedByRate(_) => unreachable!("resolved to one Red per port when the fabric is built"),
    }
}

/// The marking of a port of `rate_bps`: `ecn` itself, or for `RedByRate` the `Red` of the rule
/// for that rate (an error naming the rate when there is none).
pub fn for_port(ecn: &Ecn, rate_bps: u64) -> Result<Ecn, ConfigError> {
    let Ecn::RedByRate(RedByRateEcn { rules }) = ecn else { return Ok(ecn.clone()) };
    match rules.iter().find(|r| r.rate_bps == rate_bps) {
        Some(r) => Ok(Ecn::Red(RedEcn { kmin_bytes: r.kmin_bytes, kmax_bytes: r.kmax_bytes, pmax: r.pmax, steps: 0 })),
        None => {
            let have: Vec<String> = rules.iter().map(|r| format!("{} bps", r.rate_bps)).collect();
            Err(ConfigError::new("switch.ecn.rules", format!("no rule for the {rate_bps} bps ports; rules cover {}", have.join(", "))))
        }
    }
}
