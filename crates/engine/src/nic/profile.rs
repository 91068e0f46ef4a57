//! What the hosts' NIC model (`host.nic`) does to a flow of a given controller: the window cap
//! and, for the study's NIC, the header it sizes by CC mode.

use crate::cc::Telemetry;
use crate::config::NicModel;

impl NicModel {
    /// Whether this NIC caps a flow run by `algorithm` at one BDP of its NIC rate.
    pub fn caps_window(self, algorithm: &str) -> bool {
        match self {
            NicModel::Tcp => false,
            NicModel::Rdma => true,
            NicModel::RdmaStudy => !matches!(algorithm, "dcqcn" | "timely"),
        }
    }
    /// The header this NIC puts on the data packets of `algorithm`, where the NIC rather than the
    /// law decides (None: the law's own `CongestionControl::telemetry`). The study's NIC sizes it
    /// by CC mode (powertcp-evaluation-burst.cc, `IntHeader::mode`): HPCC's INT header for CC
    /// mode 3, which runs HPCC, PowerTCP and θ-PowerTCP (`wien`, `delayWien`); the TS header for
    /// TIMELY (mode 7); none for DCQCN (1) and DCTCP (8).
    pub fn telemetry(self, algorithm: &str) -> Option<Telemetry> {
        match self {
            NicModel::Tcp | NicModel::Rdma => None,
            NicModel::RdmaStudy => Some(match algorithm {
                "hpcc" | "powertcp" | "theta-powertcp" => Telemetry::Int,
                "timely" => Telemetry::Timestamp,
                _ => Telemetry::None,
            }),
        }
    }
}
