//! The lossless fabric's switch feature on the wire: PAUSE/RESUME frames between the two ends of
//! a link (`pfc::Pfc` holds the ingress accounting that decides to send them).

use super::pfc::Frame;
use super::port::Node;
use super::{Fabric, Handoff};
use crate::core::{Core, PortId};
use crate::sim::EvKind;

impl Fabric {
    /// Send a PFC frame for `prio` from switch port `q` to the egress port at the other end of
    /// its link: it goes out at the highest priority after the packet `q` is serialising and
    /// occupies the link for its own serialisation (as the artifact's `QbbNetDevice::SendPfc`).
    pub(super) fn send_pfc(&mut self, core: &mut Core, q: PortId, prio: u8, frame: Frame) {
        let bytes = self.pfc.as_ref().map_or(64, |p| p.cfg.frame_bytes) as u32;
        crate::fabric_log!(self, pfc(core.sched.now, q, prio, frame == Frame::Pause, true));
        let p = &mut self.ports[q as usize];
        p.free_at = p.free_at.max(core.sched.now) + p.ser_time(bytes);
        let resume = match frame {
            Frame::Pause => {
                p.pfc.pauses_sent += 1;
                0
            }
            _ => {
                p.pfc.resumes_sent += 1;
                1
            }
        };
        core.sched.at(p.free_at + p.delay, EvKind::PfcFrame, q ^ 1, prio as u32 | resume << 8);
    }

    /// A PFC frame reached egress port `port`: pause or resume one priority.
    pub fn pfc_frame(&mut self, core: &mut Core, port: PortId, aux: u32) -> Handoff {
        let now = core.sched.now;
        let bit = 1u8 << (aux & 0xff);
        let p = &mut self.ports[port as usize];
        let was = p.paused;
        if aux >> 8 == 0 {
            p.paused |= bit;
        } else {
            p.paused &= !bit;
        }
        crate::fabric_log!(self, pfc(now, port, (aux & 0xff) as u8, aux >> 8 == 0, false));
        if was == 0 && p.paused != 0 {
            p.paused_since = now;
        } else if was != 0 && p.paused == 0 {
            p.pfc.paused_ps += now - p.paused_since;
        }
        if was & bit == 0 || p.paused & bit != 0 {
            return Handoff::Nothing; // a pause, or a resume of a priority not paused
        }
        match p.owner {
            Node::Host(h) => Handoff::NicFree(h),
            Node::Switch { .. } => {
                self.serve_switch_port(core, port);
                Handoff::Nothing
            }
        }
    }
}
