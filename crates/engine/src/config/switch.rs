//! The switches' section (`[switch]`): shared buffer, ECN, INT and PFC.

use serde::{Deserialize, Serialize};

use super::{Ecn, PfcConfig};
use crate::schema::{Range, Type};

/// The largest switch buffer (the front end's largest size, units.py): keeps α·bytes of the PFC
/// threshold exact in signed arithmetic (fabric/pfc.rs `scaled`).
pub const MAX_BUFFER_BYTES: u64 = 1 << 50;

crate::section! {
    pub struct SwitchConfig ("switch") {
        buffer_bytes: u64 = 4 * 1024 * 1024,
            key "buffer", Type::Size, Range::above(0.0, MAX_BUFFER_BYTES as f64),
            "Shared buffer per switch.",
            source "the PowerTCP evaluation's 4 MiB per switch (Broadcom Trident II class)";
        dt_alpha: f64 = 0.125,
            key "dt_alpha", Type::Number, Range::above(0.0, 64.0),
            "Dynamic Thresholds α: a port may queue up to α·(free buffer) (chips use 1/128 .. 8).",
            source "Choudhury & Hahne, DT; 1/8 as the PowerTCP evaluation's MMU";
        ecn: Ecn = Ecn::None,
            key "ecn", Type::Table("switch.ecn"), Range::ANY,
            "ECN marking at dequeue: kind = none | step | red | curve | red_by_rate.",
            source "ours: no marking unless a law needs it";
        int_enabled: bool = true,
            key "int", Type::Bool, Range::ANY,
            "Push INT records at egress dequeue.",
            source "ours: on (INT-reading laws need it; others ignore it)";
        int_switches: Option<Vec<String>> = None,
            key "int_switches", Type::Names, Range::ANY,
            "Brownfield INT: names of the switches that support INT (they push INT records and max-aggregate the per-hop delay field); absent = every switch.",
            source "ours: every switch";
        int_bytes_mode: IntBytesMode = IntBytesMode::Tx,
            key "int_bytes", Type::Choice(&["tx", "rx"]), Range::ANY,
            "INT byte counter: tx (bytes transmitted, the paper) or rx (bytes received into the egress queue, the public ns-3 artifact).",
            source "PowerTCP §3.3: bytes transmitted";
        pfc: Option<PfcConfig> = None,
            key "pfc", Type::Table("switch.pfc"), Range::ANY,
            "Priority flow control: true, false or a [switch.pfc] table; absent or false = lossy with Dynamic Thresholds admission.",
            source "ours: lossy";
    }
    rules {
        "pfc.reserve": |s| s.pfc.as_ref().is_none_or(|p| p.reserve_bytes < s.buffer_bytes),
            "must be smaller than the switch buffer";
        "buffer": |s| s.ecn.first_mark_bytes().is_none_or(|k| k < s.buffer_bytes),
            "must be above switch.ecn's marking threshold (k, kmin or tmin): a marker whose threshold the buffer cannot reach never marks";
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IntBytesMode {
    Tx,
    Rx,
}
