//! The partitioned schedule of a parallel run (issue 28 item 2, docs/parallel.md), executed on one
//! core: what a conservative parallel engine would run, in an order in which no partition sees
//! another's work of the same window.
//!
//! A *plan* cuts the network into partitions (hosts go with their edge switch, edge switches in
//! contiguous blocks, every other switch with the partition most of its neighbours are in) and
//! takes as *lookahead* L the smallest propagation delay of a link between two partitions: nothing
//! one partition does at time t can reach another before t + L. Each partition has its own queue
//! (its own `Scheduler`). Time is cut into windows of at most L,
//! ending early at each global event (samples, the PFC watchdog, circuit changes), which runs
//! alone at the window's end — the barrier. Within a window the partitions run **one after
//! another**, each to the window's end; what one makes for another (`Route`) waits in an outbox
//! until the barrier. So partition 1 runs its window after partition 0 has run all of it: a
//! handler that read or wrote another partition's state, or an order that depended on the
//! interleaving of partitions, would show as a difference from the one-queue run (the golden
//! digests; `tests/partition.rs`).
//!
//! What it does not emulate: a link between partitions is one FIFO here, pushed by the sender and
//! popped by the receiver, and whichever end finds the next packet due queues its arrival. The
//! arrival is the same event whoever queues it, and the queue orders events by what they are
//! (`Event::order`), so that does not change the run. A threaded engine hands the sender's
//! packets over at the barrier (`sim::threads`).

use crate::config::{Config, ConfigError};
use crate::results::Results;
use crate::sched::{Event, Scheduler};
use crate::sim::{EvKind, Simulator};
use crate::time::Time;
use crate::topo::Network;

/// The owner of the events that read or change the whole fabric: the barrier.
pub const GLOBAL: u16 = u16::MAX;

/// Which partition owns each node, and the lookahead that the cut allows.
#[derive(Clone, Debug)]
pub struct Plan {
    pub parts: u16,
    /// Partition of every topology node (hosts first, then switches).
    pub of_node: Vec<u16>,
    /// Smallest propagation delay of a link between two partitions (ps); `Time::MAX` when no
    /// link crosses (one partition).
    pub lookahead: Time,
    /// `stop_when_done`: per partition, the finite flows whose completion it counts (at their
    /// sender's host, where the last ACK arrives); empty when the run does not stop when done.
    pub completions: Vec<u64>,
}

impl Plan {
    /// Cut `net` into `parts` partitions. Errors name `field` (the caller's key).
    pub fn new(net: &Network, parts: u32, field: &str) -> Result<Plan, ConfigError> {
        let n = net.nodes.len();
        let peers = |v: usize| net.nodes[v].ports.iter().map(|&p| net.ports[p as usize].peer as usize);
        // edge switches: those with a host attached, in node order
        let edges: Vec<usize> = (0..n).filter(|&v| !net.nodes[v].is_host && peers(v).any(|u| net.nodes[u].is_host)).collect();
        if parts == 0 || parts as usize > edges.len().max(1) {
            let why = match edges.len() {
                0 | 1 => "must be 1 (this topology has one edge switch, the smallest part a partition takes)".to_string(),
                n => format!("must be 1 to {n} (the edge switches of this topology)"),
            };
            return Err(ConfigError::new(field, why));
        }
        let mut of_node = vec![GLOBAL; n];
        let mut load = vec![0u32; parts as usize];
        for (i, &e) in edges.iter().enumerate() {
            let p = (i as u64 * parts as u64 / edges.len() as u64) as u16;
            of_node[e] = p;
            load[p as usize] += 1;
        }
        for v in 0..n {
            if net.nodes[v].is_host {
                // a host goes with its switch (a host without a link, to partition 0)
                of_node[v] = peers(v).next().map_or(0, |u| if of_node[u] == GLOBAL { 0 } else { of_node[u] });
            }
        }
        // the other switches, in node order: the partition most of their placed neighbours are in,
        // ties to the partition with fewest switches, then the lowest index
        for v in 0..n {
            if of_node[v] != GLOBAL {
                continue;
            }
            let mut count = vec![0u32; parts as usize];
            for u in peers(v) {
                if of_node[u] != GLOBAL && !net.nodes[u].is_host {
                    count[of_node[u] as usize] += 1;
                }
            }
            let best = (0..parts as usize).max_by_key(|&p| (count[p], std::cmp::Reverse(load[p]), std::cmp::Reverse(p))).unwrap();
            of_node[v] = best as u16;
            load[best] += 1;
        }
        let lookahead = net
            .ports
            .iter()
            .filter(|p| of_node[p.node as usize] != of_node[p.peer as usize])
            .map(|p| p.delay_ps)
            .min()
            .unwrap_or(Time::MAX);
        if lookahead == 0 {
            return Err(ConfigError::new(field, "must be 1 here: links between partitions have zero delay (no lookahead)"));
        }
        Ok(Plan { parts: parts as u16, of_node, lookahead, completions: Vec::new() })
    }

    /// Links (pairs of ports) whose ends lie in different partitions.
    pub fn cut_links(&self, net: &Network) -> usize {
        net.ports.iter().filter(|p| self.of_node[p.node as usize] != self.of_node[p.peer as usize]).count() / 2
    }
}

/// Who owns each event, and the outboxes of a partitioned run (`Scheduler::route`).
pub struct Route {
    port_node: Vec<u16>,
    port_peer: Vec<u16>,
    flow_src: Vec<u16>,
    host: Vec<u16>,
    /// The partition running now (`GLOBAL` at a barrier).
    pub current: u16,
    /// Events made for another partition (the last one: the barrier), until the barrier.
    outbox: Vec<Vec<Event>>,
}

impl Route {
    /// The partition that handles an event of `kind` for `id` (ownership table: docs/parallel.md).
    #[inline]
    pub fn owner(&self, kind: EvKind, id: u32) -> u16 {
        let i = id as usize;
        match kind {
            EvKind::TxDone | EvKind::PfcFrame => self.port_node[i],
            EvKind::LinkArrive => self.port_peer[i],
            EvKind::FlowStart | EvKind::Rto | EvKind::CcTimer => self.flow_src[i],
            EvKind::NicWake => self.host[i],
            EvKind::Sample | EvKind::PfcWatchdog | EvKind::Circuit => GLOBAL,
        }
    }

    /// Take `e` into an outbox if another partition owns it.
    #[inline]
    pub fn takes(&mut self, e: Event) -> bool {
        let to = self.owner(e.kind(), e.id());
        if to == self.current {
            return false;
        }
        let i = if to == GLOBAL { self.outbox.len() - 1 } else { to as usize };
        self.outbox[i].push(e);
        true
    }
}

/// What the partitioned run measured: the work of each partition per window and what crossed.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub parts: u16,
    pub lookahead_ps: Time,
    pub cut_links: usize,
    /// Events handled, per partition.
    pub events: Vec<u64>,
    /// Global events (samples, watchdog, circuit): each runs alone at a barrier.
    pub global_events: u64,
    /// Windows in which some partition had an event (the barriers an engine needs that jumps
    /// over empty windows).
    pub windows: u64,
    /// Σ over windows of the busiest partition's events: the critical path in events.
    pub critical_events: u64,
    /// Events handed to another partition at a barrier.
    pub messages: u64,
    /// Events handed over that were due before the barrier: a parallel engine could not run
    /// them in time (0 whenever the lookahead bounds every interaction between partitions).
    pub late: u64,
}

impl Profile {
    /// Modelled speed-up over one thread (a model, not a measurement): a window lasts as long as
    /// its busiest partition, every event costs `event_ns` (the one-thread engine's measured mean),
    /// every barrier `barrier_ns`, every message `message_ns` more at its receiver, and global
    /// events run alone.
    pub fn model(&self, event_ns: f64, barrier_ns: f64, message_ns: f64) -> f64 {
        let total: u64 = self.events.iter().sum::<u64>() + self.global_events;
        let one = total as f64 * event_ns;
        let spread = (self.messages as f64 / self.parts.max(1) as f64) * message_ns;
        let par = (self.critical_events + self.global_events) as f64 * event_ns
            + (self.windows + self.global_events) as f64 * barrier_ns
            + spread;
        one / par
    }
}

/// Run `cfg` on the schedule of a `parts`-way parallel engine (see the module's comment).
/// Refuses, naming `field`, what `plan_for` refuses.
pub fn run_emulated(cfg: &Config, parts: u32, field: &str) -> Result<(Results, Profile), crate::Error> {
    let sim = Simulator::new(cfg)?;
    let plan = plan_for(cfg, &sim, parts, field)?;
    Ok(sim.run_partitioned(&plan)?)
}

/// The plan of a `parts`-way cut of `sim`, or the reason the partitioned engine does not cover
/// it, naming `field`: flows started by another flow's completion (`after`, closed loops: zero
/// delay between partitions), circuit switches, and more partitions than edge switches.
pub fn plan_for(cfg: &Config, sim: &Simulator, parts: u32, field: &str) -> Result<Plan, ConfigError> {
    let refuse = |why: &str| Err(ConfigError::new(field, format!("must be 1 {why}")));
    if parts > 1 && cfg.flows.iter().any(|f| !f.after.is_empty() || f.closed_loop.is_some()) {
        return refuse("for flows started by another's completion (after, closed_loop): no delay between partitions");
    }
    if parts > 1 && sim.fabric.circuit.is_some() {
        return refuse("for circuit-switched (rdcn) topologies");
    }
    let mut plan = Plan::new(&sim.fabric.net, parts, field)?;
    if cfg.stop_when_done {
        plan.completions = vec![0; plan.parts as usize];
        for f in cfg.flows.iter().filter(|f| f.size_bytes.is_some()) {
            plan.completions[plan.of_node[f.src as usize] as usize] += 1;
        }
    }
    Ok(plan)
}

/// One round of a window [a, end): what each partition handles in it. A run that stops when
/// done ends at the event after which the last finite flow completed — on one thread, wherever
/// that is in the window; the other partitions may by then have handled events after it. So
/// with `stop_when_done` a window takes up to three rounds (`window_rounds`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Round {
    /// Handle every event due before `end`.
    To(Time),
    /// The same, but pause right after the event that completes the partition's last flow
    /// (its `Plan::completions`); a partition whose flows are all done does nothing.
    ToTarget(Time),
    /// Handle the events whose (time, key) is below the bound: the event at which the last
    /// flow of all completed. The partition that handled that event handles nothing more.
    Before(u128),
}

/// The rounds of one window under `plan`: `round(r)` runs every partition through `r` and
/// returns, per partition, whether it has completed all its flows and where it paused in a
/// `ToTarget` round. Returns the order (`Event::order`) of the run's last event when the run
/// stops when done in this window.
///
/// Why this is the one-thread run: its last event is the latest (in (time, key)) of the
/// partitions' own last completions, each fixed by the partition's own events. While some
/// partition has flows left it cannot be in this window before that partition has run the
/// window; so the partitions first run to their targets (`ToTarget`). If all reached them,
/// the latest pause is the end, and the others handle exactly what precedes it (`Before`);
/// if not, the run goes on past this window and the paused partitions finish it (`To`).
pub(crate) fn window_rounds(plan: &Plan, end: Time, mut round: impl FnMut(Round) -> (Vec<bool>, Vec<Option<u128>>)) -> Option<u128> {
    if plan.completions.is_empty() {
        round(Round::To(end));
        return None;
    }
    let (done, paused) = round(Round::ToTarget(end));
    if done.iter().all(|&d| d) {
        let last = paused.into_iter().flatten().max().expect("the last completion is in this window");
        round(Round::Before(last));
        return Some(last);
    }
    if done.iter().any(|&d| d) {
        round(Round::To(end));
    }
    None
}

/// A partition as a round sees it: its queue and its handler.
pub(crate) trait Partition {
    /// The next event due no later than `until` (`Scheduler::pop_until`).
    fn pop_until(&mut self, until: Time) -> Option<Event>;
    /// The next event below `bound` (`Scheduler::pop_before`).
    fn pop_before(&mut self, bound: u128) -> Option<Event>;
    /// Handle `ev`; returns the finite flows this partition has completed.
    fn handle(&mut self, ev: Event) -> u64;
}

/// Handle one partition's events of `round`; `target` is its share of the finite flows,
/// `completed` how many of them it had completed before, `paused` where it paused in the last
/// `ToTarget` round.
pub(crate) fn partition_round(round: Round, target: u64, completed: u64, paused: &mut Option<u128>, part: &mut impl Partition) {
    match round {
        Round::To(end) => {
            while let Some(ev) = part.pop_until(end - 1) {
                part.handle(ev);
            }
        }
        Round::ToTarget(end) => {
            *paused = None;
            if completed >= target {
                return;
            }
            while let Some(ev) = part.pop_until(end - 1) {
                if part.handle(ev) >= target {
                    *paused = Some(ev.order());
                    return;
                }
            }
        }
        Round::Before(bound) => {
            if *paused == Some(bound) {
                return;
            }
            while let Some(ev) = part.pop_before(bound) {
                part.handle(ev);
            }
        }
    }
}

impl Route {
    /// The owners of `sim`'s events under `plan`, for a queue run by partition `current`.
    pub fn new(plan: &Plan, sim: &Simulator, current: u16) -> Route {
        let net = &sim.fabric.net;
        Route {
            port_node: net.ports.iter().map(|p| plan.of_node[p.node as usize]).collect(),
            port_peer: net.ports.iter().map(|p| plan.of_node[p.peer as usize]).collect(),
            flow_src: sim.transport.flows.iter().map(|f| plan.of_node[f.info.src as usize]).collect(),
            host: (0..net.n_hosts as usize).map(|h| plan.of_node[h]).collect(),
            current,
            outbox: vec![Vec::new(); plan.parts as usize + 1],
        }
    }

    /// The events made for partition `to` (`parts`: the barrier) since the last barrier.
    pub fn outbox_mut(&mut self, to: usize) -> &mut Vec<Event> {
        &mut self.outbox[to]
    }
}

impl Simulator {
    fn run_partitioned(mut self, plan: &Plan) -> Result<(Results, Profile), crate::invariants::Violation> {
        let parts = plan.parts as usize;
        let route = Route::new(plan, &self, GLOBAL);
        let net = &self.fabric.net;
        let mut prof = Profile {
            parts: plan.parts,
            lookahead_ps: plan.lookahead,
            cut_links: plan.cut_links(net),
            events: vec![0; parts],
            ..Profile::default()
        };
        // queue `parts` is the barrier's; the core holds the one running
        let mut queues: Vec<Scheduler> = (0..parts).map(|_| Scheduler::new()).collect();
        queues.push(std::mem::replace(&mut self.core.sched, Scheduler::new()));
        let mut route = Some(Box::new(route));
        let until = self.duration;
        self.enter(&mut queues, &mut route, parts, GLOBAL);
        crate::traffic::schedule_starts(&mut self.core, self.transport.flows.iter().map(|f| f.info.start));
        self.telemetry.arm(&mut self.core);
        self.fabric.arm_pfc_watchdog(&mut self.core);
        self.fabric.arm_circuit(&mut self.core);
        self.leave(&mut queues, &mut route, parts);
        Self::hand_over(&mut queues, route.as_deref_mut().unwrap(), 0, &mut prof);
        let mut in_window = vec![0u64; parts];
        // the rounds of `window_rounds` end a run that stops when done, not `step`
        self.stop_after_completed = 0;
        let mut completed = vec![0u64; parts];
        let mut paused = vec![None; parts];
        let target = |p: usize| plan.completions.get(p).copied().unwrap_or(u64::MAX);
        let mut start: Time = 0;
        let ended = 'run: loop {
            let barrier = queues[parts].next_time();
            // the window [start, end): at most one lookahead, ending at the next global event
            let end = start.saturating_add(plan.lookahead).min(barrier.unwrap_or(Time::MAX)).min(until.saturating_add(1));
            // (empty when a global event is due at `start`: then only the barrier runs)
            if end > start {
                // each round runs the partitions one after another
                let last = window_rounds(plan, end, |round| {
                    for p in 0..parts {
                        self.enter(&mut queues, &mut route, p, p as u16);
                        let base = self.core.stats.flows_completed;
                        let mut part = Emulated { sim: &mut self, base, before: completed[p], handled: 0 };
                        partition_round(round, target(p), completed[p], &mut paused[p], &mut part);
                        in_window[p] += part.handled;
                        completed[p] += self.core.stats.flows_completed - base;
                        self.leave(&mut queues, &mut route, p);
                    }
                    ((0..parts).map(|p| completed[p] >= target(p)).collect(), paused.clone())
                });
                if let Some(last) = last {
                    break 'run (last >> 64) as Time;
                }
            }
            tally(&mut prof, &mut in_window);
            Self::hand_over(&mut queues, route.as_deref_mut().unwrap(), end, &mut prof);
            if end > until {
                break until;
            }
            if barrier == Some(end) {
                self.enter(&mut queues, &mut route, parts, GLOBAL);
                while let Some(ev) = self.core.sched.pop_until(end) {
                    prof.global_events += 1;
                    if let Some(now) = self.step_outlined(ev) {
                        self.leave(&mut queues, &mut route, parts);
                        break 'run now;
                    }
                }
                self.leave(&mut queues, &mut route, parts);
                Self::hand_over(&mut queues, route.as_deref_mut().unwrap(), end, &mut prof);
            }
            start = end;
        };
        tally(&mut prof, &mut in_window);
        Self::hand_over(&mut queues, route.as_deref_mut().unwrap(), ended, &mut Profile::default());
        // one queue again for the end-of-run checks: every partition's pending events and counts
        let mut all = queues.pop().unwrap();
        for q in queues {
            all.absorb(q);
        }
        all.now = ended.min(until);
        self.core.sched = all;
        Ok((self.finish(ended)?.0, prof))
    }

    /// Make queue `q` the core's, with partition `who` running.
    fn enter(&mut self, queues: &mut [Scheduler], route: &mut Option<Box<Route>>, q: usize, who: u16) {
        std::mem::swap(&mut self.core.sched, &mut queues[q]);
        let mut r = route.take().unwrap();
        r.current = who;
        self.core.sched.route = Some(r);
    }

    fn leave(&mut self, queues: &mut [Scheduler], route: &mut Option<Box<Route>>, q: usize) {
        *route = self.core.sched.route.take();
        std::mem::swap(&mut self.core.sched, &mut queues[q]);
    }

    /// The barrier: every outbox into its partition's queue (keys unchanged).
    fn hand_over(queues: &mut [Scheduler], route: &mut Route, barrier: Time, prof: &mut Profile) {
        for (q, out) in queues.iter_mut().zip(route.outbox.iter_mut()) {
            for e in out.drain(..) {
                prof.messages += 1;
                if e.time < barrier {
                    prof.late += 1;
                }
                q.place(e);
            }
        }
    }
}

/// One partition of the emulated schedule: the simulator, its queue swapped in (`enter`), the
/// completions counted from the shared count.
struct Emulated<'a> {
    sim: &'a mut Simulator,
    /// The shared count of completed flows when the partition entered, and the partition's own
    /// before that.
    base: u64,
    before: u64,
    handled: u64,
}

impl Partition for Emulated<'_> {
    fn pop_until(&mut self, until: Time) -> Option<Event> {
        self.sim.core.sched.pop_until(until)
    }
    fn pop_before(&mut self, bound: u128) -> Option<Event> {
        self.sim.core.sched.pop_before(bound)
    }
    fn handle(&mut self, ev: Event) -> u64 {
        self.handled += 1;
        let stopped = self.sim.step_outlined(ev);
        debug_assert!(stopped.is_none(), "only a global event or stop_when_done ends a run, and the rounds handle the latter");
        self.before + self.sim.core.stats.flows_completed - self.base
    }
}

/// Add one window's per-partition event counts to the profile and clear them.
fn tally(prof: &mut Profile, in_window: &mut [u64]) {
    let max = in_window.iter().copied().max().unwrap_or(0);
    if max > 0 {
        prof.windows += 1;
        prof.critical_events += max;
    }
    for (total, n) in prof.events.iter_mut().zip(in_window.iter_mut()) {
        *total += *n;
        *n = 0;
    }
}
