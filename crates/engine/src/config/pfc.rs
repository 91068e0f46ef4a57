//! The PFC section of the switch configuration (`[switch.pfc]`).

use serde::{Deserialize, Serialize};

use crate::schema::{Range, Type};

crate::section! {
    /// PFC: ingress accounting per (port, priority) against the switch buffer, PAUSE when an ingress
    /// exceeds a dynamic threshold and spills into headroom, RESUME when it is back below. Two models
    /// of the authors' ns-3 simulators (fabric/pfc.rs): `sonic`, the PowerTCP evaluation's
    /// (inet-tub/ns3-datacenter, src/point-to-point/model/switch-mmu.cc, bufferModel "sonic", DT on
    /// the ingress pool; examples/PowerTCP/powertcp-evaluation-burst.cc), and `hpcc`, HPCC's
    /// (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
    /// switch-mmu.cc; simulation/scratch/third.cc).
    pub struct PfcConfig ("switch.pfc") {
        model: PfcModel = PfcModel::Sonic,
            key "model", Type::Choice(&["sonic", "hpcc"]), Range::ANY,
            "Which artifact's switch MMU PFC follows: sonic (the PowerTCP evaluation's) or hpcc (HPCC's simulator's).",
            source "sonic: the PowerTCP evaluation (powertcp-evaluation-burst.cc, bufferModel \"sonic\")";
        alpha: f64 = 0.125,
            key "alpha", Type::Number, Range::above(0.0, 64.0),
            "sonic: the ingress threshold is alpha × the free ingress pool.",
            source "PowerTCP evaluation: 1/8 (powertcp-evaluation-burst.cc)";
        xon_bytes: u64 = 1248,
            key "xon", Type::Size, Range::closed(0.0, 1073741824.0),
            "sonic: RESUME when the ingress holds fewer bytes than this, ...",
            source "switch-mmu.cc default: one 1248-byte packet";
        xon_offset_bytes: u64 = 2496,
            key "xon_offset", Type::Size, Range::closed(0.0, 1073741824.0),
            "sonic: ... or when its bytes + this fit the threshold.",
            source "switch-mmu.cc default: two 1248-byte packets";
        reserve_bytes: u64 = 4096,
            key "reserve", Type::Size, Range::closed(0.0, 1073741824.0),
            "hpcc: bytes each ingress (port, priority) holds before it counts against the shared buffer.",
            source "HPCC simulator (switch-mmu.cc `reserve` = 4 KiB)";
        resume_offset_bytes: u64 = 3072,
            key "resume_offset", Type::Size, Range::closed(0.0, 1073741824.0),
            "hpcc: RESUME once shared use + this is at most the threshold.",
            source "HPCC simulator (switch-mmu.cc `resume_offset` = 3 KiB)";
        alpha_shift: u32 = 3,
            key "alpha_shift", Type::Count, Range::closed(0.0, 16.0),
            "hpcc: the dynamic threshold is (buffer − headroom − reserve − shared use) >> shift at ports of the hosts' NIC rate, one less per doubling of a port's rate above it (3: α = 1/8).",
            source "HPCC simulator (third.cc `pfc_a_shift`)";
        headroom_bytes: Option<u64> = None,
            key "headroom", Type::Size, Range::closed(0.0, 1073741824.0),
            "Headroom per ingress port (hpcc) or per ingress port and priority (sonic): \"auto\" = 3 × rate × link delay, at least what may arrive after the decision to pause (2 × rate × delay + 3 packets + 2 frames); \"artifact\" = exactly 3 × rate × delay (can drop: docs/models.md); or a size.",
            source "both artifacts: 3 × rate × delay (powertcp-evaluation-workload.cc SetHeadroom); the floor is ours (lossless by construction)";
        headroom_artifact: bool = false,
            key "", Type::Bool, Range::ANY,
            "Set by headroom = \"artifact\": no lossless floor under 3 × rate × delay.",
            source "powertcp-evaluation-workload.cc SetHeadroom";
        ingress_pool: IngressPool = IngressPool::Buffer,
            key "ingress_pool", Type::Choice(&["buffer", "buffer-minus-headroom"]), Range::ANY,
            "sonic: the pool the ingress threshold shares: the buffer (powertcp-evaluation-burst.cc) or the buffer minus all headroom (powertcp-evaluation-workload.cc, the paper's Fig. 6/7; wraps to unbounded where headroom exceeds the buffer).",
            source "powertcp-evaluation-burst.cc (the program that reads flow files)";
        frame_bytes: u64 = 64,
            key "frame", Type::Size, Range::closed(1.0, 1500.0),
            "Size of a PAUSE/RESUME frame on the wire.",
            source "802.1Qbb: a 64-byte MAC control frame";
        watchdog_ps: u64 = 1_000_000_000,
            key "watchdog", Type::Time, Range::ANY,
            "How often the fabric is checked for a pause deadlock (a cycle of paused ports holding packets); 0 = never.",
            source "ours: 1 ms, far above any pause in the studied fabrics";
    }
    rules {
        "ingress_pool": |s| s.model == PfcModel::Sonic || s.ingress_pool == IngressPool::Buffer,
            "applies to model = \"sonic\" only";
        "alpha": |s| s.model == PfcModel::Sonic || s.alpha == 0.125,
            "applies to model = \"sonic\" only (hpcc's threshold is set by alpha_shift)";
        "xon": |s| s.model == PfcModel::Sonic || (s.xon_bytes == 1248 && s.xon_offset_bytes == 2496),
            "xon and xon_offset apply to model = \"sonic\" only (hpcc resumes by resume_offset)";
        "reserve": |s| s.model == PfcModel::Hpcc || (s.reserve_bytes == 4096 && s.resume_offset_bytes == 3072 && s.alpha_shift == 3),
            "reserve, resume_offset and alpha_shift apply to model = \"hpcc\" only (sonic uses alpha, xon, xon_offset)";
        "headroom": |s| s.headroom_bytes != Some(0),
            "must be > 0 on a lossless fabric (0 B of headroom drops every packet in flight when a PAUSE is sent); use \"auto\"";
    }
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
