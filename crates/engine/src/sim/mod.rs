//! The simulator: the event loop and the dispatch of each event to the layer that owns it.
//!
//! Layers (see docs/architecture.md): `fabric` (egress ports, links, switches), `nic` (which
//! endpoint of a host sends next), `transport` (reliable endpoints calling the congestion
//! controllers), `traffic` (when flows start), `telemetry` (series and records); `core` holds the
//! clock, event queue, packet pool and counters that all of them share.

mod barrier;
pub mod events;
mod lookahead;
pub mod partition;
mod threads;

use crate::build::{build, Parts};
use crate::config::{Config, ConfigError};
use crate::core::{Core, HostId};
use crate::fabric::{Fabric, Handoff};
use crate::footprint::Footprint;
use crate::invariants::Violation;
use crate::nic::Nics;
use crate::packet::Kind;
use crate::packet::PktId;
use crate::results::Results;
use crate::telemetry::Telemetry;
use crate::time::Time;
use crate::transport::sender::AckOutcome;
use crate::transport::Transport;
pub use events::EvKind;

/// Events between two calls of the stop check of `run_polled` (about 5–20 ms of engine time).
pub const POLL_EVENTS: u32 = 1 << 16;

pub struct Simulator {
    core: Core,
    fabric: Fabric,
    nics: Nics,
    transport: Transport,
    telemetry: Telemetry,
    duration: Time,
    tau: Time,
    /// `stop_when_done`: the number of finite flows whose completion ends the run (0 = off).
    stop_after_completed: u64,
    /// Check the end-of-run invariants (`[engine] check`; always in debug builds).
    check: bool,
    /// `[engine] threads` > 1: the cut of the network among the threads (`threads.rs`).
    plan: Option<partition::Plan>,
    /// Unit tests of the invariants: break some state just before they are checked.
    #[cfg(test)]
    pub(crate) tamper: Option<Tamper>,
}

/// A test's change to the state a run ends with (`invariants` tests).
#[cfg(test)]
pub(crate) type Tamper = Box<dyn FnOnce(&mut Core, &mut Fabric, &mut Transport, Time)>;

impl Simulator {
    pub fn new(cfg: &Config) -> Result<Simulator, ConfigError> {
        let Parts { fabric, nics, transport, telemetry, tau, log_events } = build(cfg)?;
        let finite = cfg.flows.iter().filter(|f| f.size_bytes.is_some()).count() as u64;
        let stop_after_completed = if cfg.stop_when_done { finite } else { 0 };
        let mut sim = Simulator {
            core: Core { log: log_events, ..Core::new(cfg.seed) },
            fabric,
            nics,
            transport,
            telemetry,
            duration: cfg.duration_ps,
            tau,
            stop_after_completed,
            check: cfg.engine.check || cfg!(debug_assertions),
            plan: None,
            #[cfg(test)]
            tamper: None,
        };
        if cfg.engine.threads > 1 {
            sim.plan = Some(threads::plan(cfg, &sim)?);
        }
        Ok(sim)
    }

    /// Use the deep look-ahead (`lookahead::prefetch_deep`) whatever the fabric's size: it is
    /// only a hint, and the golden tests check that forcing it changes no result.
    #[doc(hidden)]
    pub fn with_deep_lookahead(mut self) -> Self {
        self.fabric.large = true;
        self
    }

    /// τ used by the control laws (ps).
    pub fn tau(&self) -> Time {
        self.tau
    }

    pub fn run(self) -> Result<Results, Violation> {
        Ok(self.run_polled(&mut |_| false)?.0)
    }

    /// Run, calling `stop(now)` every `POLL_EVENTS` events with the simulated time (a progress
    /// report, a Ctrl-C check); when it returns true the run ends at the current simulated time.
    /// Returns the results and whether the run reached its duration, or the first broken
    /// invariant when they are checked.
    pub fn run_polled(self, stop: &mut dyn FnMut(Time) -> bool) -> Result<(Results, bool), Violation> {
        self.run_measured(stop).map(|(r, done, _)| (r, done))
    }

    /// `run_polled`, also returning the bytes its structures held at the end (benchmarks).
    pub fn run_measured(mut self, stop: &mut dyn FnMut(Time) -> bool) -> Result<(Results, bool, Footprint), Violation> {
        if let Some(plan) = self.plan.take() {
            return self.run_threaded(&plan, stop);
        }
        let until = self.duration;
        crate::traffic::schedule_starts(&mut self.core, self.transport.flows.iter().map(|f| f.info.start));
        self.telemetry.arm(&mut self.core);
        self.fabric.arm_pfc_watchdog(&mut self.core);
        self.fabric.arm_circuit(&mut self.core);
        let mut poll_in = POLL_EVENTS;
        while let Some(ev) = self.core.sched.pop_until(until) {
            poll_in -= 1;
            if poll_in == 0 {
                poll_in = POLL_EVENTS;
                let now = self.core.sched.now;
                if stop(now) {
                    let (r, m) = self.finish(now)?;
                    return Ok((r, false, m));
                }
            }
            if let Some(now) = self.step(ev) {
                let (r, m) = self.finish(now)?;
                return Ok((r, true, m));
            }
        }
        let (r, m) = self.finish(until)?;
        Ok((r, true, m))
    }

    /// Dispatch one event to the layer that owns it; `Some(now)` when the run ends here (a PFC
    /// deadlock, or `stop_when_done` with every finite flow completed).
    #[inline(always)]
    fn step(&mut self, ev: crate::sched::Event) -> Option<Time> {
        match ev.kind() {
            EvKind::Sample | EvKind::Circuit | EvKind::PfcWatchdog => {
                if let Some(now) = self.global(ev.kind()) {
                    return Some(now);
                }
            }
            _ => dispatch(&mut self.core, &mut self.fabric, &mut self.nics, &mut self.transport, ev),
        }
        if self.stop_after_completed != 0 && self.core.stats.flows_completed >= self.stop_after_completed {
            return Some(self.core.sched.now);
        }
        None
    }

    /// A global event (it reads or changes the whole fabric; a threaded run's barrier handles
    /// it): `Some(now)` when the PFC watchdog found a deadlock.
    #[cold]
    #[inline(never)]
    fn global(&mut self, kind: EvKind) -> Option<Time> {
        let (core, fabric, nics, tp) = (&mut self.core, &mut self.fabric, &mut self.nics, &mut self.transport);
        match kind {
            EvKind::Sample => self.telemetry.sample(core, fabric, tp),
            EvKind::Circuit => {
                let (changed, up) = fabric.circuit_change(core);
                let servers = fabric.circuit.as_deref().map_or(1, |c| c.servers);
                for (i, j) in changed {
                    for host in tp.circuit_signal(core, servers, i, j, up) {
                        nics.serve(core, fabric, tp, host);
                    }
                }
            }
            EvKind::PfcWatchdog => {
                if let Some(cycle) = fabric.pfc_deadlock(core) {
                    let now = core.sched.now;
                    self.telemetry.deadlock(now, cycle);
                    return Some(now);
                }
            }
            _ => unreachable!("not a global event"),
        }
        None
    }

    /// `step` out of line, for the partitioned schedule: one inlined copy of `step` (in
    /// `run_polled`) keeps the compiler's inlining of the handlers as it was.
    #[inline(never)]
    fn step_outlined(&mut self, ev: crate::sched::Event) -> Option<Time> {
        self.step(ev)
    }

    #[allow(unused_mut)] // mutated only by the unit tests' tamper hook
    fn finish(mut self, until: Time) -> Result<(Results, Footprint), Violation> {
        #[cfg(test)]
        if let Some(t) = self.tamper.take() {
            t(&mut self.core, &mut self.fabric, &mut self.transport, until);
        }
        if self.check {
            crate::invariants::check(&self.core, &self.fabric, &self.transport, until)?;
        }
        let memory = Footprint::of(&self.core, &self.fabric, &self.transport);
        Ok((self.telemetry.finish(&self.core, &self.fabric, &self.transport, until, self.tau), memory))
    }
}

/// Handle an event of one node (every kind but the global ones): it touches only that node's
/// state and what the ownership table of docs/parallel.md gives it, so the threads of a threaded
/// run call it at once for events of different partitions.
#[inline(always)]
pub(crate) fn dispatch(core: &mut Core, fabric: &mut Fabric, nics: &mut Nics, tp: &mut Transport, ev: crate::sched::Event) {
    lookahead::prefetch_ahead(core, fabric, nics, tp);
    let id = ev.id();
    match ev.kind() {
        EvKind::TxDone => {
            let h = fabric.tx_done(core, id);
            handoff(core, fabric, nics, tp, h);
        }
        EvKind::LinkArrive => {
            let h = fabric.link_arrive(core, id);
            handoff(core, fabric, nics, tp, h);
        }
        EvKind::FlowStart => {
            let c = tp.flows[id as usize].info.connection;
            if tp.deps.may_start(c) {
                if let Some(host) = tp.flow_start(core, id) {
                    nics.add_flow(host, id);
                    nics.serve(core, fabric, tp, host);
                }
            }
        }
        EvKind::NicWake => nics.wake(core, fabric, tp, id),
        EvKind::Rto => {
            if let Some(host) = tp.rto(core, id) {
                nics.serve(core, fabric, tp, host);
            }
        }
        EvKind::CcTimer => {
            if let Some(host) = tp.cc_timer(core, id, ev.aux) {
                nics.serve(core, fabric, tp, host);
            }
        }
        EvKind::PfcFrame => {
            let h = fabric.pfc_frame(core, id, ev.aux);
            handoff(core, fabric, nics, tp, h);
        }
        EvKind::Sample | EvKind::Circuit | EvKind::PfcWatchdog => unreachable!("a global event"),
    }
}

/// What the fabric left for the hosts: serve a free NIC, or deliver a packet to its transport.
#[inline(always)]
fn handoff(core: &mut Core, fabric: &mut Fabric, nics: &mut Nics, tp: &mut Transport, h: Handoff) {
    match h {
        Handoff::Nothing => {}
        Handoff::NicFree(host) => nics.serve(core, fabric, tp, host),
        Handoff::Deliver(host, pkt) => deliver(core, fabric, nics, tp, host, pkt),
    }
}

/// A packet reached `host`: data goes to the receiver (its replies to the NIC), ACKs and NACKs to
/// the sender.
fn deliver(core: &mut Core, fabric: &mut Fabric, nics: &mut Nics, tp: &mut Transport, host: HostId, pkt: PktId) {
    core.stats.packets_delivered += 1;
    debug_assert_eq!(core.pool.get(pkt).dst, host);
    match core.pool.get(pkt).kind {
        Kind::Data => {
            let replies = tp.receive_data(core, host, pkt);
            if !replies.as_slice().is_empty() {
                nics.queue_control(core, fabric, host, replies.as_slice());
                nics.serve(core, fabric, tp, host);
            }
        }
        Kind::Ack | Kind::Nack => {
            match tp.receive_ack(core, pkt) {
                AckOutcome::Ignored => {}
                AckOutcome::Continue(src) => nics.serve(core, fabric, tp, src),
                AckOutcome::Finished(src) => {
                    let fid = core.pool.get(pkt).flow;
                    nics.remove_flow(src, fid);
                    if let Some(next) = tp.finished(fid) {
                        // the connection's next message has been waiting: it starts now
                        if let Some(host) = tp.flow_start(core, next) {
                            nics.add_flow(host, next);
                        }
                    }
                    nics.serve(core, fabric, tp, src);
                    release(core, fabric, nics, tp, tp.flows[fid as usize].info.connection);
                }
                AckOutcome::FinishedConnection(src, first, n) => {
                    for fid in first..first + n {
                        nics.remove_flow(src, fid);
                    }
                    nics.serve(core, fabric, tp, src);
                    release(core, fabric, nics, tp, tp.flows[first as usize].info.connection);
                }
            }
            core.pool.free(pkt);
        }
    }
}

/// Connection `c` completed: the connections `after` it that it released start now (their
/// records' start is this instant), each at its sender's NIC. Out of line and cold: it runs
/// once per completed flow, and `deliver` (once per packet) stays as small as before.
#[cold]
#[inline(never)]
fn release(core: &mut Core, fabric: &mut Fabric, nics: &mut Nics, tp: &mut Transport, c: u32) {
    tp.deps.completed(c);
    for k in 0..tp.deps.released.len() {
        let (first, n) = tp.deps.endpoints(tp.deps.released[k]);
        for fid in first..first + n {
            tp.flows[fid as usize].info.start = core.sched.now;
            if let Some(host) = tp.flow_start(core, fid) {
                nics.add_flow(host, fid);
                nics.serve(core, fabric, tp, host);
            }
        }
    }
}
