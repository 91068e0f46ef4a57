//! Flow sources: when each flow starts. Today the scenario's explicit flow list; generated
//! workloads (Poisson arrivals from a size CDF, incast requests) plug in here.

use crate::core::{Core, FlowId};
use crate::sched::EvKind;
use crate::time::Time;

/// Schedule a `FlowStart` for every flow at its start time, in flow order.
pub fn schedule_starts(core: &mut Core, starts: impl Iterator<Item = Time>) {
    for (i, t) in starts.enumerate() {
        core.sched.at(t, EvKind::FlowStart, i as FlowId, 0);
    }
}
