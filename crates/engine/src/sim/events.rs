//! What can happen in a simulation: the kinds of event the queue (`sched`) holds, each handled by
//! its owner in `sim::Simulator` (the queue only orders them).

/// What happens at an event. `id` is a port, flow or host index depending on the kind; `aux`
/// carries a timer version where one is needed (stale timers are ignored, never cancelled).
///
/// The order of the kinds is the queue's order among events of one picosecond (`sched::Event::
/// order`): the global kinds first, so that at its time a global event runs before every other
/// event — where a parallel run holds its barrier (docs/parallel.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EvKind {
    /// Sample the time series (global).
    Sample,
    /// Check the fabric for a PFC deadlock (global).
    PfcWatchdog,
    /// The optical circuit switch begins a day or a night (fabric/circuit.rs; global).
    Circuit,
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
    /// A PFC PAUSE or RESUME frame reaches the egress port `id` (aux = priority | resume << 8).
    PfcFrame,
}

/// Every kind, indexed by its number.
pub(crate) const KINDS: [EvKind; 10] = [
    EvKind::Sample,
    EvKind::PfcWatchdog,
    EvKind::Circuit,
    EvKind::TxDone,
    EvKind::LinkArrive,
    EvKind::FlowStart,
    EvKind::NicWake,
    EvKind::Rto,
    EvKind::CcTimer,
    EvKind::PfcFrame,
];
