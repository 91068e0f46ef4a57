//! How the engine runs a scenario (`[engine]`), as opposed to what it simulates.

use crate::schema::{Range, Type};

crate::section! {
    pub struct EngineConfig ("engine") {
        check: bool = false,
            key "check", Type::Bool, Range::ANY,
            "Check the end-of-run invariants (packet and byte conservation per port, no drop on a lossless fabric without a reported overflow, monotone flow records, event queue and timer sanity; docs/engine-api.md) and fail with one line naming the broken one. Always on in debug builds.",
            source "ours: off in release (the checks cost one pass over ports, flows and pending events at the end)";
    }
    rules {}
}
