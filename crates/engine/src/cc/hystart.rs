//! HyStart, the hybrid slow start of Linux's CUBIC (`net/ipv4/tcp_cubic.c`; Ha and Rhee, "Taming
//! the elephants: New TCP slow start", Computer Networks 2011): slow start ends before the first
//! loss, when either detector fires, by setting ssthresh = cwnd.
//!
//! A *round* is one window of data: it starts when the cumulative ACK passes the `end_seq` (snd_nxt)
//! recorded at the previous round's start (`bictcp_hystart_reset`, called from
//! `cubictcp_cong_avoid` in slow start).
//!
//! - **ACK train** (`HYSTART_ACK_TRAIN`): while ACKs keep arriving within `ACK_DELTA` of each other,
//!   the round has lasted longer than half of (delay_min + ack_delay): the window already takes
//!   half an RTT to drain, so it fills the path. Halving applies to a socket that does not pace
//!   (`sk_pacing_status == SK_PACING_NONE`, no fq qdisc), the testbed's case and the simulator's
//!   for this law; ack_delay = min(1 ms, 4 · 64 KiB / pacing rate) covers TSO/GRO batching.
//! - **Delay** (`HYSTART_DELAY`): the round's minimum RTT over its first `MIN_SAMPLES` samples
//!   exceeds delay_min by clamp(delay_min/8, 4 ms, 16 ms) — the queue grew.
//!
//! Both run only in slow start, once cwnd ≥ `LOW_WINDOW` packets, until one fires (`found`). RTT
//! samples within 1 s of the start of a CUBIC epoch are discarded ("right after fast recovery",
//! `bictcp_acked`). A timeout (`TCP_CA_Loss`) resets everything, delay_min included.
//!
//! The constants are the module parameters' defaults of Linux 6.18. Linux's socket clock is in µs;
//! here times are the engine's picoseconds.

use crate::time::{Time, MS, US};

/// `hystart_low_window`: HyStart runs from this window on (packets).
pub const LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`: ACKs this close form a train.
pub const ACK_DELTA: Time = 2 * MS;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: bounds of the delay threshold.
pub const DELAY_MIN: Time = 4 * MS;
pub const DELAY_MAX: Time = 16 * MS;
/// `hystart_ack_delay`: at most 1 ms (`USEC_PER_MSEC`) of TSO/GRO cushion.
pub const ACK_DELAY_MAX: Time = MS;
/// `sk_gso_max_size` of the testbed's veth devices (`GSO_MAX_SIZE`, 64 KiB).
pub const GSO_MAX_BYTES: f64 = 65536.0;
/// CUBIC ignores delay samples this long after an epoch starts (`HZ` jiffies = 1 s).
pub const AFTER_EPOCH: Time = 1_000_000 * US;

/// Which detector ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    /// Minimum RTT seen (`delay_min`; 0 = none yet).
    pub delay_min: Time,
    /// Start of the current round and time of the last ACK of its train.
    pub round_start: Time,
    pub last_ack: Time,
    /// The round ends when the cumulative ACK passes this sequence (snd_nxt at its start).
    pub end_seq: u64,
    /// Minimum RTT of the round's samples so far, and how many it has seen.
    pub curr_rtt: Time,
    pub sample_cnt: u8,
    /// A detector fired: HyStart is done until the next timeout.
    pub found: Option<Exit>,
}

impl HyStart {
    /// A new flow (`cubictcp_init`: `bictcp_reset`, then `bictcp_hystart_reset` at time `now`
    /// with nothing sent yet).
    pub fn new(now: Time) -> Self {
        let mut h = HyStart { delay_min: 0, round_start: 0, last_ack: 0, end_seq: 0, curr_rtt: Time::MAX, sample_cnt: 0, found: None };
        h.new_round(now, 0);
        h
    }

    /// `bictcp_hystart_reset`: a round starts at `now`; it ends when `snd_nxt` is acknowledged.
    pub fn new_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = Time::MAX;
        self.sample_cnt = 0;
    }

    /// In slow start, on an ACK that may grow the window (`cubictcp_cong_avoid`): a new round if
    /// the cumulative ACK `snd_una` passed the round's end.
    #[inline]
    pub fn on_slow_start_ack(&mut self, now: Time, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.end_seq {
            self.new_round(now, snd_nxt);
        }
    }

    /// A timeout (`cubictcp_state(TCP_CA_Loss)`): forget everything, delay_min and `found` too.
    pub fn on_timeout(&mut self, now: Time, snd_nxt: u64) {
        *self = HyStart::new(now);
        self.end_seq = snd_nxt;
    }

    /// An RTT sample `rtt` at `now` (`bictcp_acked`). `slow_start`: cwnd < ssthresh; `cwnd_pkts`:
    /// the window in packets; `pacing_bps`: the socket's pacing rate in bytes/s (Linux's
    /// `sk_pacing_rate`, 0 = unknown); `epoch_start`: the start of CUBIC's current epoch. Returns
    /// the detector that fired on this sample, if one did: slow start ends (ssthresh = cwnd).
    pub fn on_rtt(
        &mut self,
        now: Time,
        rtt: Time,
        slow_start: bool,
        cwnd_pkts: f64,
        pacing_bps: f64,
        epoch_start: Option<Time>,
    ) -> Option<Exit> {
        if epoch_start.is_some_and(|e| now.saturating_sub(e) < AFTER_EPOCH) {
            return None; // "Discard delay samples right after fast recovery"
        }
        let delay = rtt.max(1);
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        if self.found.is_some() || !slow_start || cwnd_pkts < LOW_WINDOW {
            return None;
        }
        // ACK train: the round has lasted (delay_min + ack_delay)/2 with no gap over ACK_DELTA
        if now - self.last_ack <= ACK_DELTA {
            self.last_ack = now;
            let threshold = (self.delay_min + ack_delay(pacing_bps)) / 2;
            if now - self.round_start > threshold {
                self.found = Some(Exit::AckTrain);
            }
        }
        // delay: the round's minimum over MIN_SAMPLES samples rose by clamp(delay_min/8, 4, 16 ms)
        if self.found.is_none() {
            self.curr_rtt = self.curr_rtt.min(delay);
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if self.curr_rtt > self.delay_min + (self.delay_min / 8).clamp(DELAY_MIN, DELAY_MAX) {
                self.found = Some(Exit::Delay);
            }
        }
        self.found
    }
}

/// `hystart_ack_delay`: min(1 ms, 4 · GSO max size / pacing rate); 0 when there is no rate.
fn ack_delay(pacing_bytes_per_s: f64) -> Time {
    if pacing_bytes_per_s <= 0.0 || !pacing_bytes_per_s.is_finite() {
        return 0;
    }
    ((GSO_MAX_BYTES * 4.0 / pacing_bytes_per_s * 1e12) as Time).min(ACK_DELAY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_delay_is_four_gso_packets_at_the_pacing_rate_capped_at_1_ms() {
        assert_eq!(ack_delay(0.0), 0);
        assert_eq!(ack_delay(25e6), MS); // 262 144 B / 25 MB/s = 10.5 ms → 1 ms
        assert_eq!(ack_delay(2.62144e9), 100 * US); // 262 144 B / 2.62 GB/s = 100 µs
    }

    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_plus_cushion_ends_slow_start() {
        // delay_min 438 µs, no rate known: threshold = 438/2 = 219 µs
        let mut h = HyStart::new(0);
        let rtt = 438 * US;
        // ACKs every 120 µs (one 1 500-B packet at 100 Mbps) from t = 1 ms, window of 20 packets
        let mut t = MS;
        h.new_round(t, 20_000);
        let mut fired = None;
        for k in 0..4 {
            fired = h.on_rtt(t, rtt, true, 20.0, 0.0, None);
            if fired.is_some() {
                // round_start 1 ms: 1.24 ms − 1 ms = 240 µs > 219 µs at the third ACK
                assert_eq!((k, t), (2, MS + 240 * US));
                break;
            }
            t += 120 * US;
        }
        assert_eq!(fired, Some(Exit::AckTrain));
    }

    #[test]
    fn a_gap_over_2_ms_breaks_the_train() {
        let mut h = HyStart::new(0);
        h.on_rtt(0, 10 * MS, true, 20.0, 0.0, None); // delay_min 10 ms: threshold 5 ms
        h.new_round(MS, 0);
        // an ACK 3 ms after the round's start: not part of the train (last_ack stays at 1 ms)
        assert_eq!(h.on_rtt(4 * MS, 10 * MS, true, 20.0, 0.0, None), None);
        assert_eq!(h.last_ack, MS);
        // and none after it joins again in this round: 7 ms − 1 ms > 5 ms but no train
        assert_eq!(h.on_rtt(7 * MS, 10 * MS, true, 20.0, 0.0, None), None);
    }

    #[test]
    fn a_rise_of_the_rounds_minimum_rtt_by_4_ms_ends_slow_start() {
        let mut h = HyStart::new(0);
        // delay_min 1 ms (threshold clamp(125 µs, 4 ms, 16 ms) = 4 ms); ACKs 3 ms apart never
        // form a train
        h.on_rtt(0, MS, true, 20.0, 0.0, None);
        h.new_round(0, 0);
        let mut t = 0;
        // 9 samples of 5 ms: the 9th tests 5 ms > 1 + 4 ms: no
        for _ in 0..9 {
            t += 3 * MS;
            assert_eq!(h.on_rtt(t, 5 * MS, true, 20.0, 0.0, None), None);
        }
        assert_eq!(h.sample_cnt, MIN_SAMPLES);
        // a new round whose minimum is 5.001 ms fires on the 9th sample
        h.new_round(t, 0);
        for k in 0..9 {
            t += 3 * MS;
            let r = h.on_rtt(t, 5 * MS + US, true, 20.0, 0.0, None);
            assert_eq!(r.is_some(), k == 8, "sample {k}");
        }
        assert_eq!(h.found, Some(Exit::Delay));
    }

    #[test]
    fn nothing_below_16_packets_outside_slow_start_or_after_an_epoch_start() {
        let mut h = HyStart::new(0);
        h.on_rtt(0, 100 * US, true, 20.0, 0.0, None);
        h.new_round(0, 0);
        let t = 2000 * MS; // a train of one ACK 2 s into the round would fire (> 50 µs)…
        h.last_ack = t - US;
        // …but cwnd < 16
        assert_eq!(h.on_rtt(t, 100 * US, true, 15.0, 0.0, None), None);
        // not in slow start
        assert_eq!(h.on_rtt(t, 100 * US, false, 20.0, 0.0, None), None);
        // within 1 s of an epoch start the sample is dropped: not even delay_min learns it
        assert_eq!(h.on_rtt(t, 50 * US, true, 20.0, 0.0, Some(t - 999_999 * US)), None);
        assert_eq!(h.delay_min, 100 * US);
        assert_eq!(h.on_rtt(t, 100 * US, true, 20.0, 0.0, None), Some(Exit::AckTrain));
        // found: no more detection until a timeout, which forgets delay_min too
        assert_eq!(h.on_rtt(t, 100 * US, true, 20.0, 0.0, None), None);
        assert_eq!(h.found, Some(Exit::AckTrain));
        h.on_timeout(t, 5000);
        assert_eq!((h.found, h.delay_min, h.end_seq, h.round_start), (None, 0, 5000, t));
    }

    #[test]
    fn a_round_ends_when_the_cumulative_ack_passes_its_end() {
        let mut h = HyStart::new(0);
        h.new_round(0, 10_000);
        h.on_slow_start_ack(MS, 10_000, 30_000); // snd_una = end_seq: not after it
        assert_eq!((h.round_start, h.end_seq), (0, 10_000));
        h.on_slow_start_ack(2 * MS, 11_000, 30_000);
        assert_eq!((h.round_start, h.end_seq, h.sample_cnt), (2 * MS, 30_000, 0));
    }
}
