//! When the window is the limit on a Linux host: the host queue counts as in flight.
//!
//! Linux's TCP hands a sender's window to the host queue (qdisc and NIC ring) at once and counts
//! those packets in flight (`tcp_packets_in_flight` reads `packets_out`, which grows in
//! `tcp_event_new_data_sent` when the packet is handed down, not when it reaches the wire).
//! `tcp_write_xmit` records the flow as cwnd-limited when that count reaches cwnd
//! (`is_cwnd_limited |= tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp)`, then
//! `tcp_cwnd_validate`), and `tcp_is_cwnd_limited` gates the growth of Reno and CUBIC
//! (`tcp_reno_cong_avoid`, `cubictcp_cong_avoid`).
//!
//! The simulator's NIC pulls a flow's next packet when it is free instead, so packets never wait
//! at the host and a flow whose NIC is as fast as its bottleneck always has room left in its
//! window: without this rule it is never cwnd-limited and its window freezes (the long flow of
//! `testbed-incast-8` at 83 984 B with a standing queue, issue 29). With it, the room of the window
//! is what Linux would hold in its host queue, bounded as Linux bounds it: by the data the flow
//! has left, and by TCP Small Queues (`tcp_small_queue_check`: at most max(2 packets,
//! `sk_pacing_rate >> sk_pacing_shift`) waiting at the host, and for a socket that does not pace
//! at most `tcp_limit_output_bytes`). Linux sets `sk_pacing_rate` even when it does not pace
//! (`tcp_update_pacing_rate`: cwnd·mss/srtt × `tcp_pacing_ca_ratio` = 120 %; the slow-start
//! ratio of 200 % below ssthresh/2 is not used here, the transport does not see ssthresh, so the
//! bound is the smaller one), and its srtt includes the time the packets wait at the host.
//!
//! Not modelled: Linux's `is_cwnd_limited` stays set for a window of data (`cwnd_usage_seq`) and
//! `tcp_is_cwnd_limited` also lets slow start grow below twice `max_packets_out`; here the state
//! of the latest transmission is used, as for every other law.

/// `net.ipv4.tcp_limit_output_bytes`: the default of kernel 6.18 (4 MiB, read from the kernel
/// this project's testbed runs on).
pub const TCP_LIMIT_OUTPUT_BYTES: f64 = 4_194_304.0;
/// `sk_pacing_shift` = 10: TSQ lets a socket keep 2^-10 s of its pacing rate at the host.
pub const PACING_SHIFT_SECS: f64 = 1.0 / 1024.0;
/// `net.ipv4.tcp_pacing_ca_ratio` = 120 (percent).
pub const PACING_CA_RATIO: f64 = 1.2;

/// A flow whose window counts its host queue in flight (a Linux sender on the `tcp` NIC).
#[derive(Clone, Copy, Debug)]
pub struct HostQueue {
    /// The sender's NIC rate (bit/s): how fast the host queue drains, which delays Linux's RTT.
    pub nic_bps: f64,
    /// Smoothed RTT of the ACKs (s; 0 before the first), RFC 6298 α = 1/8 as `tcp_rtt_estimator`.
    pub srtt: f64,
}

impl HostQueue {
    pub fn new(nic_bps: f64) -> Self {
        HostQueue { nic_bps, srtt: 0.0 }
    }

    /// An RTT sample (s) from an ACK.
    #[inline]
    pub fn sample(&mut self, rtt: f64) {
        self.srtt = if self.srtt == 0.0 { rtt } else { 0.875 * self.srtt + 0.125 * rtt };
    }

    /// The bytes TCP Small Queues lets the socket keep at the host when `room` bytes of a window
    /// of `cwnd` bytes wait there (packets of `packet` bytes).
    #[inline]
    pub fn tsq_limit(&self, cwnd: f64, room: f64, packet: f64) -> f64 {
        // Linux's srtt: the wire's plus the wait behind `room` bytes at the NIC rate
        let srtt = self.srtt + room * 8.0 / self.nic_bps;
        let pacing_rate = if srtt > 0.0 { PACING_CA_RATIO * cwnd / srtt } else { f64::INFINITY };
        (2.0 * packet).max(pacing_rate * PACING_SHIFT_SECS).min(TCP_LIMIT_OUTPUT_BYTES)
    }

    /// After a transmission that leaves `in_flight` bytes on the wire of a window of `cwnd` bytes,
    /// with `data_left` bytes not yet sent: Linux would have put min(room, data_left) bytes into
    /// its host queue, TSQ permitting, and is cwnd-limited when that fills the window.
    #[inline]
    pub fn cwnd_limited(&self, cwnd: f64, in_flight: f64, data_left: f64, packet: f64) -> bool {
        let room = cwnd - in_flight;
        room < packet || room <= data_left.min(self.tsq_limit(cwnd, room, packet))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_of_a_bulk_window_counts_as_in_flight() {
        let mut h = HostQueue::new(1e9);
        h.sample(200e-6);
        // 58 packets of window, 56 on the wire: Linux holds the other two at the host
        assert!(h.cwnd_limited(58.0 * 1448.0, 56.0 * 1448.0, f64::INFINITY, 1448.0));
        // a flow with less data left than its room is not window-limited (RFC 7661)
        assert!(!h.cwnd_limited(58.0 * 1448.0, 10.0 * 1448.0, 5.0 * 1448.0, 1448.0));
    }

    #[test]
    fn tcp_small_queues_bounds_the_host_queue_at_about_a_millisecond() {
        // 1 Gbps NIC, 100 us on the wire: a 1 MB window would wait 8 ms at the host; TSQ lets
        // 1.2·cwnd/srtt·2^-10 s of it wait, 1.2·1e6/8.1e-3/1024 ≈ 145 KB, so this window is
        // not the limit, while one whose room is 100 KB is
        let mut h = HostQueue::new(1e9);
        h.sample(100e-6);
        assert!(!h.cwnd_limited(1e6, 0.0, f64::INFINITY, 1448.0));
        let limit = h.tsq_limit(1e6, 1e6, 1448.0);
        assert!((limit - 1.2 * 1e6 / (100e-6 + 8e-3) / 1024.0).abs() < 1e-6);
        assert!(h.cwnd_limited(1e6, 9e5, f64::INFINITY, 1448.0));
        // the sysctl caps it for a socket that does not pace
        let fast = HostQueue { nic_bps: 1e12, srtt: 1e-6 };
        assert_eq!(fast.tsq_limit(1e9, 1e3, 1448.0), TCP_LIMIT_OUTPUT_BYTES);
    }
}
