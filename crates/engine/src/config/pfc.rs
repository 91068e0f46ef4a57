//! The PFC section of the switch configuration (`[switch.pfc]`).

use serde::{Deserialize, Serialize};

/// PFC: ingress accounting per (port, priority) against the switch buffer, PAUSE when an ingress
/// exceeds a dynamic threshold and spills into headroom, RESUME when it is back below. Two models
/// of the authors' ns-3 simulators (fabric/pfc.rs): `sonic`, the PowerTCP evaluation's
/// (inet-tub/ns3-datacenter, src/point-to-point/model/switch-mmu.cc, bufferModel "sonic", DT on
/// the ingress pool; examples/PowerTCP/powertcp-evaluation-burst.cc), and `hpcc`, HPCC's
/// (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
/// switch-mmu.cc; simulation/scratch/third.cc).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PfcConfig {
    #[serde(default)]
    pub model: PfcModel,
    /// sonic: the ingress threshold is α × the free ingress pool (PowerTCP: 1/8).
    #[serde(default = "pfc_alpha")]
    pub alpha: f64,
    /// sonic: RESUME when the ingress holds fewer than `xon_bytes`, or its bytes + `xon_offset_bytes`
    /// fit the threshold (switch-mmu.cc defaults 1248 and 2496: one and two 1248-byte packets).
    #[serde(default = "pfc_xon")]
    pub xon_bytes: u64,
    #[serde(default = "pfc_xon_offset")]
    pub xon_offset_bytes: u64,
    /// hpcc: bytes each ingress (port, priority) holds before it counts against the shared buffer
    /// (`reserve` = 4 KiB).
    #[serde(default = "pfc_reserve")]
    pub reserve_bytes: u64,
    /// hpcc: RESUME once shared use + this ≤ the threshold (`resume_offset` = 3 KiB).
    #[serde(default = "pfc_resume_offset")]
    pub resume_offset_bytes: u64,
    /// hpcc: the dynamic threshold is (buffer − headroom − reserve − shared use) >> shift at ports
    /// of the hosts' NIC rate; one less per doubling of a port's rate above it (3, i.e. α = 1/8,
    /// `pfc_a_shift` in third.cc).
    #[serde(default = "pfc_alpha_shift")]
    pub alpha_shift: u32,
    /// Headroom per ingress port (hpcc) or per ingress port and priority (sonic); None = 3 × rate ×
    /// link delay in bytes (both artifacts), at least what may reach headroom after the decision to
    /// pause: 2 × rate × delay + 3 packets + 2 frames (fabric/pfc.rs `auto_headroom`).
    #[serde(default)]
    pub headroom_bytes: Option<u64>,
    /// With `headroom_bytes` None: exactly the artifacts' 3 × rate × delay, without the lossless
    /// floor (examples/PowerTCP/powertcp-evaluation-workload.cc `SetHeadroom`; it can drop, see
    /// docs/models.md "PFC headroom").
    #[serde(default, skip_serializing_if = "is_false")]
    pub headroom_artifact: bool,
    /// sonic: the pool the ingress threshold shares (`SetIngressPool`); see `IngressPool`.
    #[serde(default, skip_serializing_if = "is_default_pool")]
    pub ingress_pool: IngressPool,
    /// Size of a PAUSE/RESUME frame on the wire (802.1Qbb: a 64-byte MAC control frame).
    #[serde(default = "pfc_frame")]
    pub frame_bytes: u64,
    /// How often the fabric is checked for a pause deadlock (a cycle of paused ports that all
    /// hold packets waiting on each other), ps; 0 = never.
    #[serde(default = "pfc_watchdog")]
    pub watchdog_ps: u64,
}

/// Which artifact's switch MMU PFC follows.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PfcModel {
    /// The PowerTCP evaluation's (ns3-datacenter, bufferModel "sonic").
    #[default]
    Sonic,
    /// HPCC's simulator's.
    Hpcc,
}

/// The sonic ingress pool, as the two PowerTCP programs of inet-tub/ns3-datacenter configure it
/// (examples/PowerTCP/*.cc, the loop that calls `SetHeadroom`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IngressPool {
    /// powertcp-evaluation-burst.cc (the program that reads flow files; our cross-check's):
    /// ingress pool = the buffer, buffer pool = the buffer + all headroom.
    #[default]
    Buffer,
    /// powertcp-evaluation-workload.cc (the program behind the paper's Fig. 6 and 7): ingress
    /// pool = the buffer − Σ headroom (over ports × 8 priorities, the artifact's 3 × rate × delay
    /// unless `headroom_bytes` is set), buffer pool = the buffer. Where
    /// the headroom exceeds the buffer (the 256-host FatTree's core switches: 4 × 8 × 187.5 KB >
    /// 4 MiB) its unsigned subtraction wraps and the threshold is unbounded: no PAUSE there.
    BufferMinusHeadroom,
}

fn is_default_pool(p: &IngressPool) -> bool {
    *p == IngressPool::Buffer
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn pfc_alpha() -> f64 {
    0.125
}
fn pfc_xon() -> u64 {
    1248
}
fn pfc_xon_offset() -> u64 {
    2496
}
fn pfc_reserve() -> u64 {
    4096
}
fn pfc_resume_offset() -> u64 {
    3072
}
fn pfc_alpha_shift() -> u32 {
    3
}
fn pfc_frame() -> u64 {
    64
}
fn pfc_watchdog() -> u64 {
    1_000_000_000 // 1 ms
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig {
            model: PfcModel::default(),
            alpha: pfc_alpha(),
            xon_bytes: pfc_xon(),
            xon_offset_bytes: pfc_xon_offset(),
            reserve_bytes: pfc_reserve(),
            resume_offset_bytes: pfc_resume_offset(),
            alpha_shift: pfc_alpha_shift(),
            headroom_bytes: None,
            headroom_artifact: false,
            ingress_pool: IngressPool::Buffer,
            frame_bytes: pfc_frame(),
            watchdog_ps: pfc_watchdog(),
        }
    }
}
