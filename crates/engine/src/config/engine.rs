//! How the engine runs a scenario (`[engine]`), as opposed to what it simulates.

use crate::schema::{Range, Type};

crate::section! {
    pub struct EngineConfig ("engine") {
        check: bool = false,
            key "check", Type::Bool, Range::ANY,
            "Check the end-of-run invariants (packet and byte conservation per port, no drop on a lossless fabric without a reported overflow, monotone flow records, event queue and timer sanity; docs/engine-api.md) and fail with one line naming the broken one. Always on in debug builds.",
            source "ours: off in release (the checks cost one pass over ports, flows and pending events at the end)";
        threads: u32 = 1,
            key "threads", Type::Count, Range::closed(1.0, 64.0),
            "Run the one simulation on this many OS threads: the network is cut into as many partitions (hosts with their edge switch), each run by one thread in windows of the smallest delay of a link between partitions. Every result but the run's timing is byte-identical to one thread (docs/parallel.md). Scenarios the cut cannot cover are refused, naming this key: more threads than edge switches, flows started by another's completion (after, closed loops), circuit-switched (rdcn) topologies, packet capture and the debug log.",
            source "ours (docs/parallel.md): a conservative parallel schedule with the canonical event order";
    }
    rules {}
}
