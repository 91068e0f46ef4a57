//! What the hosts' NIC model (`host.nic`) does to a flow of a given controller: the window cap
//! and, for the study's NIC, the header it sizes by CC mode. Which algorithm gets what is a flag
//! of its registration (`cc::Caps::study_nic`), not a list here.

use crate::cc::{Caps, Header};
use crate::config::NicModel;

impl NicModel {
    /// Whether this NIC caps a flow run by an algorithm of these `caps` at one BDP of its NIC rate.
    pub fn caps_window(self, caps: &Caps) -> bool {
        match self {
            NicModel::Tcp => false,
            NicModel::Rdma => true,
            NicModel::RdmaStudy => caps.study_nic.window_cap,
        }
    }
    /// The header this NIC puts on the data packets of an algorithm of these `caps`, where the NIC
    /// rather than the law decides (None: the law's own `CongestionControl::header`). The study's
    /// NIC sizes it by CC mode (powertcp-evaluation-burst.cc, `IntHeader::mode`; `StudyNic`).
    pub fn header(self, caps: &Caps) -> Option<Header> {
        match self {
            NicModel::Tcp | NicModel::Rdma => None,
            NicModel::RdmaStudy => Some(caps.study_nic.header),
        }
    }
}
