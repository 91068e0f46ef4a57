//! Priority flow control: a switch accounts every buffered packet to the port and priority it
//! came in by, and pauses that ingress's upstream sender when the ingress holds too much.
//!
//! The model is the ns-3 artifact's switch MMU (HPCC / PowerTCP simulators:
//! simulation/src/point-to-point/model/switch-mmu.cc, `SwitchMmu`, configured per port in
//! simulation/scratch/third.cc); the code is ours. Per ingress (port, priority): the first
//! `reserve` bytes are private; above that, bytes count against the switch's shared pool up to a
//! dynamic threshold
//!
//!   T = (buffer − Σ headroom − ports·reserve − shared use) >> shift          (`GetPfcThreshold`)
//!
//! and beyond T they go to the port's headroom. PAUSE when the ingress uses headroom or its shared
//! use reaches T (`CheckShouldPause`); RESUME when the headroom is empty and shared use + offset ≤
//! T, or shared use is 0 (`CheckShouldResume`). A packet is dropped only when it fits neither the
//! headroom nor the threshold (`CheckIngressAdmission`) — with headroom sized for the link's
//! round trip this never happens, which `tests/pfc.rs` checks.

use crate::config::PfcConfig;
use crate::core::PortId;
use crate::packet::PRIORITIES;

/// Ingress accounting of one switch port.
#[derive(Clone, Debug, Default)]
pub struct Ingress {
    /// Bytes held per priority, private reserve and shared part together.
    bytes: [u64; PRIORITIES],
    /// Bytes held in headroom per priority.
    hdrm: [u64; PRIORITIES],
    headroom: u64,
    shift: u32,
    /// Priorities this ingress has paused upstream.
    paused: u8,
    /// Index of the switch the port belongs to.
    switch: u32,
}

pub struct Pfc {
    pub cfg: PfcConfig,
    /// Per switch: shared-pool bytes in use.
    shared_used: Vec<u64>,
    /// Per switch: buffer − Σ headroom − ports·reserve (saturating at 0).
    base: Vec<u64>,
    /// Per port (only switch-owned ports are used).
    ingress: Vec<Ingress>,
}

/// What the accounting asks the fabric to send upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    None,
    Pause,
    Resume,
}

impl Pfc {
    /// `ports`: for every port, `Some((switch index, rate, link delay))` if a switch owns it.
    /// `nic_rate_bps`: the hosts' NIC rate, at which the threshold shift is `cfg.alpha_shift`.
    /// `max_packet`: the largest packet on the wire (bytes), for the headroom's floor.
    pub fn new(
        cfg: PfcConfig,
        buffer: u64,
        switches: usize,
        ports: &[Option<(u32, u64, u64)>],
        nic_rate_bps: u64,
        max_packet: u64,
    ) -> Self {
        let mut ingress = vec![Ingress::default(); ports.len()];
        let mut hdrm_total = vec![0u64; switches];
        let mut n_ports = vec![0u64; switches];
        for (i, p) in ports.iter().enumerate() {
            let Some((sw, rate, delay_ps)) = *p else { continue };
            let headroom = cfg.headroom_bytes.unwrap_or_else(|| auto_headroom(rate, delay_ps, max_packet, cfg.frame_bytes));
            // third.cc: the shift drops by one per doubling of the port rate above the NIC rate
            let (mut shift, mut r) = (cfg.alpha_shift, rate);
            while r > nic_rate_bps && shift > 0 {
                shift -= 1;
                r /= 2;
            }
            ingress[i] = Ingress { headroom, shift, switch: sw, ..Ingress::default() };
            hdrm_total[sw as usize] += headroom;
            n_ports[sw as usize] += 1;
        }
        let base = (0..switches).map(|s| buffer.saturating_sub(hdrm_total[s]).saturating_sub(n_ports[s] * cfg.reserve_bytes)).collect();
        Pfc { cfg, shared_used: vec![0; switches], base, ingress }
    }

    #[inline]
    fn threshold(&self, q: PortId) -> u64 {
        let i = &self.ingress[q as usize];
        self.base[i.switch as usize].saturating_sub(self.shared_used[i.switch as usize]) >> i.shift
    }

    #[inline]
    fn shared_of(&self, q: PortId, prio: usize) -> u64 {
        self.ingress[q as usize].bytes[prio].saturating_sub(self.cfg.reserve_bytes)
    }

    /// A packet of `size` bytes arriving by ingress `q` at priority `prio`: admit it unless it
    /// fits neither the headroom nor the threshold.
    #[inline]
    pub fn admits(&self, q: PortId, prio: u8, size: u64) -> bool {
        let p = (prio as usize).min(PRIORITIES - 1);
        let i = &self.ingress[q as usize];
        !(size + i.hdrm[p] > i.headroom && size + self.shared_of(q, p) > self.threshold(q))
    }

    /// Account an admitted packet; `Frame::Pause` when the ingress must pause upstream now.
    #[inline]
    pub fn enqueue(&mut self, q: PortId, prio: u8, size: u64) -> Frame {
        let p = (prio as usize).min(PRIORITIES - 1);
        let reserve = self.cfg.reserve_bytes;
        let thresh = self.threshold(q);
        let i = &mut self.ingress[q as usize];
        let new_bytes = i.bytes[p] + size;
        if new_bytes <= reserve {
            i.bytes[p] = new_bytes;
        } else if new_bytes - reserve > thresh {
            i.hdrm[p] += size;
        } else {
            i.bytes[p] = new_bytes;
            self.shared_used[i.switch as usize] += size.min(new_bytes - reserve);
        }
        let i = &self.ingress[q as usize];
        if i.paused & (1 << p) == 0 && (i.hdrm[p] > 0 || self.shared_of(q, p) >= self.threshold(q)) {
            self.ingress[q as usize].paused |= 1 << p;
            Frame::Pause
        } else {
            Frame::None
        }
    }

    /// A packet that came in by `q` left its egress queue; `Frame::Resume` when the ingress may
    /// let upstream send again.
    #[inline]
    pub fn dequeue(&mut self, q: PortId, prio: u8, size: u64) -> Frame {
        let p = (prio as usize).min(PRIORITIES - 1);
        let reserve = self.cfg.reserve_bytes;
        let i = &mut self.ingress[q as usize];
        let from_hdrm = i.hdrm[p].min(size);
        let from_shared = (size - from_hdrm).min(i.bytes[p].saturating_sub(reserve));
        i.hdrm[p] -= from_hdrm;
        i.bytes[p] -= size - from_hdrm;
        self.shared_used[i.switch as usize] -= from_shared;
        let i = &self.ingress[q as usize];
        if i.paused & (1 << p) == 0 || i.hdrm[p] > 0 {
            return Frame::None;
        }
        let shared = self.shared_of(q, p);
        if shared == 0 || shared + self.cfg.resume_offset_bytes <= self.threshold(q) {
            self.ingress[q as usize].paused &= !(1 << p);
            Frame::Resume
        } else {
            Frame::None
        }
    }

    /// Priorities ingress `q` holds paused upstream.
    pub fn paused_by(&self, q: PortId) -> u8 {
        self.ingress[q as usize].paused
    }

    /// Headroom of ingress `q` (bytes).
    pub fn headroom(&self, q: PortId) -> u64 {
        self.ingress[q as usize].headroom
    }
}

/// The artifact's headroom, 3 × rate × delay (third.cc: rate·delay/8/1e9·3, delay in whole ns,
/// integer arithmetic), raised where it cannot hold what still arrives after a PAUSE: after the
/// decision the frame waits for at most one packet on this port and its own serialisation, then
/// crosses the link; the sender stops only after its current packet, whose bytes and those already
/// on the wire cross back: 2 × rate × delay + 2 packets + the frame. For the artifact's links
/// (25 Gb/s and faster, ≥ 1 µs) the artifact's value is the larger and stands; on slow or short
/// links (1 Gb/s, 1 µs: 375 B, less than a packet) the floor keeps the fabric lossless.
pub fn auto_headroom(rate_bps: u64, delay_ps: u64, max_packet: u64, frame: u64) -> u64 {
    let artifact = (rate_bps as u128 * (delay_ps / 1000) as u128 / 8 / 1_000_000_000) as u64 * 3;
    let round_trip = (2 * rate_bps as u128 * delay_ps as u128).div_ceil(8 * 1_000_000_000_000) as u64;
    artifact.max(round_trip + 2 * max_packet + frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One switch with two 25G ports of 1 µs links, a 100 KB buffer, the artifact's defaults.
    fn small() -> Pfc {
        let ports = [Some((0, 25_000_000_000, 1_000_000)), Some((0, 25_000_000_000, 1_000_000))];
        Pfc::new(PfcConfig::default(), 100_000, 1, &ports, 25_000_000_000, 1090)
    }

    #[test]
    fn headroom_and_threshold_follow_the_artifact_formulas() {
        let p = small();
        // headroom = 25e9 · 1000 ns / 8 / 1e9 · 3 = 3125 · 3 = 9375 bytes
        assert_eq!(p.headroom(0), 9375);
        // T = (100000 − 2·9375 − 2·4096 − 0) >> 3 = 73058 >> 3 = 9132
        assert_eq!(p.threshold(0), 9132);
        // a 100G port with 25G NICs: shift 3 − 2 = 1
        let ports = [Some((0, 100_000_000_000, 1_000_000))];
        let p = Pfc::new(PfcConfig::default(), 1_000_000, 1, &ports, 25_000_000_000, 1090);
        assert_eq!(p.ingress[0].shift, 1);
        assert_eq!(p.headroom(0), 37_500);
    }

    #[test]
    fn the_headroom_never_falls_below_what_arrives_after_a_pause() {
        // 25G, 1 µs: artifact 9375 ≥ 2·3125 + 2·1090 + 64 = 8494 → the artifact's value
        assert_eq!(auto_headroom(25_000_000_000, 1_000_000, 1090, 64), 9375);
        // 1G, 1 µs: artifact 125·3 = 375 < 2·125 + 2·1090 + 64 = 2494 → the floor
        assert_eq!(auto_headroom(1_000_000_000, 1_000_000, 1090, 64), 2494);
    }

    #[test]
    fn pause_when_shared_use_reaches_the_threshold_and_resume_below_it() {
        let mut p = small();
        // The first 4096 bytes are reserve; above, bytes are shared while the ingress's shared
        // part stays ≤ T = (73058 − s) >> 3, s the switch's shared use before the packet.
        // k = 12: 12000 − 4096 = 7904 ≤ (73058 − 6904) >> 3 = 8269 → shared (s = 7904);
        // k = 13: 8904 > (73058 − 7904) >> 3 = 8144 → headroom; headroom in use → PAUSE.
        let mut k = 0;
        loop {
            assert!(p.admits(0, 0, 1000));
            k += 1;
            if p.enqueue(0, 0, 1000) == Frame::Pause {
                break;
            }
        }
        assert_eq!(k, 13);
        assert_eq!(p.paused_by(0), 1);
        // a second packet while paused sends no second PAUSE
        assert_eq!(p.enqueue(0, 0, 1000), Frame::None);
        // held: 12000 bytes (shared 7904) + 2000 headroom = 14 packets. Dequeues empty the
        // headroom first (2), then the shared part; RESUME needs s + 3072 ≤ (73058 − s) >> 3:
        // s = 6904: 9976 > 8269; s = 5904: 8976 > 8394; s = 4904: 7976 ≤ 8519 → the 5th dequeue.
        let mut left = 14;
        let mut resumed_at = None;
        while left > 0 {
            left -= 1;
            if p.dequeue(0, 0, 1000) == Frame::Resume {
                resumed_at = Some(left);
                break;
            }
        }
        // 14 − 5 = 9 packets left
        assert_eq!(resumed_at, Some(9));
        assert_eq!(p.paused_by(0), 0);
    }

    #[test]
    fn beyond_the_threshold_packets_go_to_headroom_and_are_dropped_only_when_it_is_full() {
        let mut p = small();
        let mut admitted = 0;
        while p.admits(0, 0, 1000) {
            p.enqueue(0, 0, 1000);
            admitted += 1;
        }
        // 12 packets in reserve + shared (see above), then 9 fit the 9375-byte headroom; the
        // 22nd fits neither (1000 + 9000 > 9375 and 1000 + 7904 > 8144): 12 + 9 = 21
        assert_eq!(admitted, 21);
        assert_eq!(p.ingress[0].hdrm[0], 9000);
        // the other port is unaffected but sees a smaller threshold (shared use is switch-wide)
        assert!(p.admits(1, 0, 1000));
        assert!(p.threshold(1) < 9132);
    }
}
