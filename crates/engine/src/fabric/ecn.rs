//! ECN marking at dequeue, from the instantaneous egress queue (bytes left behind the packet).

use crate::config::Ecn;
use crate::rng::Rng;

/// Whether a data packet leaving a queue of `q` bytes gets a CE mark. Draws from `rng` only where
/// the marker is probabilistic at this queue length.
#[inline]
pub fn mark(ecn: &Ecn, q: u64, rng: &mut Rng) -> bool {
    match *ecn {
        Ecn::None => false,
        Ecn::Step { k_bytes } => q > k_bytes,
        Ecn::Red { kmin_bytes, kmax_bytes, pmax, steps } => {
            if q <= kmin_bytes {
                false
            } else if q >= kmax_bytes {
                true
            } else {
                rng.uniform() < Ecn::red_probability(kmin_bytes, kmax_bytes, pmax, steps, q)
            }
        }
        Ecn::Curve { bdp_bytes, tmin_bytes, pmax } => {
            let prob = Ecn::curve_probability(bdp_bytes, tmin_bytes, pmax, q);
            prob > 0.0 && rng.uniform() < prob
        }
    }
}
