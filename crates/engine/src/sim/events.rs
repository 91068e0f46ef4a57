//! What can happen in a simulation: the kinds of event the queue (`sched`) holds, each handled by
//! its owner in `sim::Simulator` (the queue only orders them).

/// What happens at an event. `id` is a port, flow or host index depending on the kind; `aux`
/// carries a timer version where one is needed (stale timers are ignored, never cancelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EvKind {
    /// An egress port finished serialising its current packet.
    TxDone,
    /// The head packet of a port's link arrives at the peer node.
    LinkArrive,
    FlowStart,
    /// A host NIC may be able to send (pacing time reached).
    NicWake,
    /// Retransmission timer check of a flow.
    Rto,
    /// A congestion controller's own timer (aux = version).
    CcTimer,
    /// Sample the time series.
    Sample,
    /// A PFC PAUSE or RESUME frame reaches the egress port `id` (aux = priority | resume << 8).
    PfcFrame,
    /// Check the fabric for a PFC deadlock.
    PfcWatchdog,
    /// The optical circuit switch begins a day or a night (fabric/circuit.rs).
    Circuit,
}

pub(crate) const KINDS: [EvKind; 10] = [
    EvKind::TxDone,
    EvKind::LinkArrive,
    EvKind::FlowStart,
    EvKind::NicWake,
    EvKind::Rto,
    EvKind::CcTimer,
    EvKind::Sample,
    EvKind::PfcFrame,
    EvKind::PfcWatchdog,
    EvKind::Circuit,
];
