//! Simulated time: integer picoseconds. No floating point ever decides event order.

/// A point in simulated time or a duration, in picoseconds.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const SEC: Time = 1_000_000_000_000;

/// Picoseconds to seconds (for control-law arithmetic, never for scheduling).
#[inline]
pub fn secs(t: Time) -> f64 {
    t as f64 * 1e-12
}

/// Seconds to picoseconds, rounded to the nearest picosecond.
#[inline]
pub fn from_secs(s: f64) -> Time {
    (s * 1e12).round().max(0.0) as Time
}

/// Serialisation time of `bytes` on a link of `rate_bps`, rounded up to whole picoseconds.
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    // bytes * 8 bits * 1e12 ps/s / rate; u128 avoids overflow for large bursts.
    ((bytes as u128 * 8 * SEC as u128 + rate_bps as u128 - 1) / rate_bps as u128) as Time
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_time_of_a_1000_byte_packet_at_25g_is_320ns() {
        assert_eq!(tx_time(1000, 25_000_000_000), 320 * NS);
        // rounding is upwards: 1 byte at 3 bps is 2.666.. s
        assert_eq!(tx_time(1, 3), 2_666_666_666_667);
    }
}
