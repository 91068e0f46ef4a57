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
//! `host.linux_window` (off by default) adds Linux's slow-start clause: `tcp_is_cwnd_limited`
//! also lets a flow in slow start grow while cwnd < 2 × `max_packets_out`, the largest flight of
//! the last window (`tcp_cwnd_validate`), where the flight counts the host queue. It applies the
//! rule to every window law on the `tcp` NIC, not only the loss-based ones. A flow limited by its
//! own NIC that sees no congestion signal then grows to twice what its host queue holds (Linux's
//! DCTCP long flow on testbed-incast-8: 260 640 B, docs/testbed.md).
//!
//! Not modelled: Linux's `is_cwnd_limited` stays set for a window of data (`cwnd_usage_seq`); here
//! the state of the latest transmission is used, as for every other law. `max_packets_out` is the
//! largest flight since the window began (`max_seq`), not also raised by a larger one later in a
//! window whose flow was cwnd-limited.

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
    /// `host.linux_window`: slow start also grows below twice `max_flight`.
    pub slow_start_clause: bool,
    /// Linux's `max_packets_out` (bytes): the largest flight, wire plus host queue, since
    /// `snd_una` passed `max_seq` (its `cwnd_usage_seq`).
    max_flight: f64,
    max_seq: u64,
}

impl HostQueue {
    pub fn new(nic_bps: f64, slow_start_clause: bool) -> Self {
        HostQueue { nic_bps, srtt: 0.0, slow_start_clause, max_flight: 0.0, max_seq: 0 }
    }

    /// An RTT sample (s) from an ACK.
    #[inline]
    pub fn sample(&mut self, rtt: f64) {
        self.srtt = if self.srtt == 0.0 { rtt } else { 0.875 * self.srtt + 0.125 * rtt };
    }

    /// The bytes TCP Small Queues lets the socket keep at the host when a window of `cwnd` bytes
    /// has `room` bytes beyond those on the wire (packets of `packet` bytes).
    ///
    /// The budget is the pacing rate times 2^-10 s, 1.2·cwnd/srtt·2^-10, and Linux's srtt includes
    /// the wait behind what the host queue holds, q, at the NIC rate C: srtt = srtt_wire + q/C. The
    /// queue holds all of `room` when the budget with that wait allows it; otherwise it holds the
    /// q at which the budget equals q: q·(srtt_wire + q/C) = 1.2·cwnd·2^-10, the positive root of
    /// that quadratic. (Charging the wait of the whole room instead made the budget too small for
    /// a window far above its flight: the incast's long flow stopped at 116–123 KB where Linux's
    /// reached 260 KB with p50 95–98 KB at the host, docs/testbed.md "DCTCP's incast".) For a
    /// window limited by its own NIC the room is the queue, and both give the same settled
    /// window, C·RTT + 1.2·C·2^-10 s.
    #[inline]
    pub fn tsq_limit(&self, cwnd: f64, room: f64, packet: f64) -> f64 {
        let k = PACING_CA_RATIO * cwnd * PACING_SHIFT_SECS; // budget × srtt (byte·s)
        let a = 8.0 / self.nic_bps; // seconds a byte waits at the host
        let budget = |q: f64| {
            let srtt = self.srtt + q * a;
            if srtt > 0.0 {
                k / srtt
            } else {
                f64::INFINITY
            }
        };
        let q = if budget(room) >= room { room } else { (-self.srtt + (self.srtt * self.srtt + 4.0 * a * k).sqrt()) / (2.0 * a) };
        (2.0 * packet).max(budget(q)).min(TCP_LIMIT_OUTPUT_BYTES)
    }

    /// After a transmission that leaves `in_flight` bytes on the wire of a window of `cwnd` bytes,
    /// with `data_left` bytes not yet sent: Linux would have put min(room, data_left) bytes into
    /// its host queue, TSQ permitting, and is cwnd-limited when that fills the window.
    #[inline]
    pub fn cwnd_limited(&self, cwnd: f64, in_flight: f64, data_left: f64, packet: f64) -> bool {
        let room = cwnd - in_flight;
        room < packet || room <= self.may_hold(cwnd, room, data_left, packet)
    }

    /// What the host queue may hold of `room` bytes: the data left, within TSQ's budget.
    #[inline]
    fn may_hold(&self, cwnd: f64, room: f64, data_left: f64, packet: f64) -> f64 {
        data_left.min(self.tsq_limit(cwnd, room.max(0.0), packet))
    }

    /// A transmission, as `cwnd_limited` (which it returns), with the flow's `snd_una` and
    /// `snd_nxt`: under `host.linux_window` Linux's flight, the bytes on the wire plus what its
    /// host queue holds, also enters `max_flight` (one TSQ budget for both).
    #[inline]
    pub fn on_sent(&mut self, cwnd: f64, in_flight: f64, data_left: f64, packet: f64, snd_una: u64, snd_nxt: u64) -> bool {
        let room = cwnd - in_flight;
        if room < packet && !self.slow_start_clause {
            return true;
        }
        let held = self.may_hold(cwnd, room, data_left, packet);
        if self.slow_start_clause {
            self.note_flight(in_flight + room.max(0.0).min(held), snd_una, snd_nxt);
        }
        room < packet || room <= held
    }

    /// `tcp_cwnd_validate`'s `max_packets_out`: a new window starts once `snd_una` reaches the
    /// previous one's end, else the larger flight counts.
    #[inline]
    fn note_flight(&mut self, flight: f64, snd_una: u64, snd_nxt: u64) {
        if snd_una >= self.max_seq {
            self.max_flight = flight;
            self.max_seq = snd_nxt;
        } else {
            self.max_flight = self.max_flight.max(flight);
        }
    }

    /// Linux's slow-start clause of `tcp_is_cwnd_limited`: cwnd < 2 × `max_packets_out` (only
    /// with `host.linux_window`; the caller asks while the law is in slow start).
    #[inline]
    pub fn slow_start_limited(&self, cwnd: f64) -> bool {
        self.slow_start_clause && cwnd < 2.0 * self.max_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_of_a_bulk_window_counts_as_in_flight() {
        let mut h = HostQueue::new(1e9, false);
        h.sample(200e-6);
        // 58 packets of window, 56 on the wire: Linux holds the other two at the host
        assert!(h.cwnd_limited(58.0 * 1448.0, 56.0 * 1448.0, f64::INFINITY, 1448.0));
        // a flow with less data left than its room is not window-limited (RFC 7661)
        assert!(!h.cwnd_limited(58.0 * 1448.0, 10.0 * 1448.0, 5.0 * 1448.0, 1448.0));
    }

    #[test]
    fn tcp_small_queues_bounds_the_host_queue_at_about_a_millisecond() {
        // 1 Gbps NIC, 100 us on the wire, a 1 MB window with nothing on the wire: TSQ lets
        // q = 1.2·cwnd/srtt·2^-10 s wait, with srtt = 100 us + q·8 ns: q² ·8e-9 + 1e-4·q − 1171.875
        // = 0, q = (−1e-4 + √(1e-8 + 3.75e-5)) / 1.6e-8 = 376 534 B (by hand), so this window is not
        // the limit, while one whose room is 300 KB is (300 KB fit: their budget is 1171.875 /
        // 2.5e-3 = 468.75 KB)
        let mut h = HostQueue::new(1e9, false);
        h.sample(100e-6);
        assert!(!h.cwnd_limited(1e6, 0.0, f64::INFINITY, 1448.0));
        let limit = h.tsq_limit(1e6, 1e6, 1448.0);
        assert!((limit - 376_534.0).abs() < 1.0, "{limit}");
        let q = limit;
        assert!((q * (100e-6 + q * 8e-9) - 1.2e6 / 1024.0).abs() < 1e-6, "the fixed point");
        assert!(h.cwnd_limited(1e6, 7e5, f64::INFINITY, 1448.0));
        assert_eq!(h.tsq_limit(1e6, 3e5, 1448.0), 1.2e6 / 1024.0 / 2.5e-3);
        // the sysctl caps it for a socket that does not pace
        let fast = HostQueue { srtt: 1e-6, ..HostQueue::new(1e12, false) };
        assert_eq!(fast.tsq_limit(1e9, 1e3, 1448.0), TCP_LIMIT_OUTPUT_BYTES);
    }

    #[test]
    fn slow_start_grows_below_twice_the_largest_flight_of_the_window() {
        // 300 Mbps NIC, 330 us on the wire, a 30-packet window of which 10 are on the wire: Linux
        // holds the other 20 at the host (TSQ allows 1.2·cwnd/srtt·2^-10 s ≈ 43 KB with the host's
        // 20 packets in srtt), so its flight is the whole window and the clause needs cwnd < 2 ×
        // 30 packets: a window of 30 packets may grow, one of 61 may not
        let p = 1448.0;
        let mut h = HostQueue::new(300e6, true);
        h.sample(330e-6);
        assert!(h.on_sent(30.0 * p, 10.0 * p, f64::INFINITY, p, 0, 30_000));
        assert!((h.max_flight - 30.0 * p).abs() < 1e-6, "{}", h.max_flight);
        assert!(h.slow_start_limited(30.0 * p) && !h.slow_start_limited(61.0 * p));
        // a smaller flight later in the same window does not lower it; the next window starts over
        h.on_sent(30.0 * p, 2.0 * p, 4.0 * p, p, 10_000, 32_000);
        assert!((h.max_flight - 30.0 * p).abs() < 1e-6);
        h.on_sent(30.0 * p, 2.0 * p, 4.0 * p, p, 30_000, 40_000);
        assert!((h.max_flight - 6.0 * p).abs() < 1e-6, "data left bounds the host queue: {}", h.max_flight);
        // without host.linux_window the clause never applies
        let mut off = HostQueue::new(300e6, false);
        off.on_sent(30.0 * p, 10.0 * p, f64::INFINITY, p, 0, 30_000);
        assert!(!off.slow_start_limited(p));
    }
}
