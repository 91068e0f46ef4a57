//! A switch: shared-buffer admission (Dynamic Thresholds) and ECMP forwarding.

use crate::core::{FlowId, NodeId};
use crate::rng::{mix, Rng};

pub struct Switch {
    /// Shared-buffer bytes in use.
    pub used: u64,
    /// Supports INT (brownfield deployments enable it on a subset of switches).
    pub int: bool,
    /// Random stream of this switch's probabilistic ECN markers.
    pub rng: Rng,
}

impl Switch {
    /// Dynamic Thresholds (Choudhury & Hahne): a port may hold up to α·(free shared buffer).
    #[inline]
    pub fn admits(&self, buffer: u64, alpha: f64, port_queue: u64, size: u64) -> bool {
        let free = buffer - self.used;
        // (port_queue + size) as f64 <= α·free, with exact signed conversions (fabric/pfc.rs `scaled`)
        size <= free && ((port_queue + size) as i64 as f64) <= alpha * free as i64 as f64
    }
}

/// ECMP: pick one of `n` equal-cost next hops for `flow` at `node`, from a hash of both and the
/// run's seed (multiply-shift maps the 64-bit hash onto 0..n without a division).
#[inline]
pub fn ecmp_choice(flow: FlowId, node: NodeId, seed: u64, n: usize) -> usize {
    ((mix(((flow as u64) << 32) ^ node as u64 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D)) as u128 * n as u128) >> 64) as usize
}
