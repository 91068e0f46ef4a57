//! The partitioned schedule of a parallel run (issue 28 item 2, docs/parallel.md), executed on one
//! core: the first step towards one simulation on many cores.
//!
//! A *plan* cuts the network into partitions (hosts go with their edge switch, edge switches in
//! contiguous blocks, every other switch with the partition most of its neighbours are in) and
//! takes as *lookahead* L the smallest propagation delay of a link between two partitions: nothing
//! one partition does at time t can reach another before t + L. Time is cut into windows
//! [kL, (k+1)L). A conservative parallel engine lets every partition run its window alone and
//! exchanges, at the window's end, what crossed a partition boundary: packets put on a link to
//! another partition and events (PFC frames) for another partition's ports.
//!
//! `run_emulated` executes exactly that schedule in one event loop. Every event is keyed by
//! `Key`, which each partition can compute alone (no global insertion counter); an event or a
//! packet for another partition is *held* (`Deferral`) and handed over only when the window ends.
//! Within a window partitions do not interact, so each partition sees the events it would see on
//! its own core, in the same order: the results are those of the parallel engine, and comparing
//! them with the sequential run's (`tests/partition.rs`) tests whether the key reproduces the
//! sequential engine's order (docs/parallel.md has the argument and the results). The run also
//! counts each window's events per partition: the input of the scaling model (`Profile::model`).

use std::collections::BinaryHeap;

use crate::config::{Config, ConfigError};
use crate::core::PortId;
use crate::packet::PktId;
use crate::results::Results;
use crate::sched::Event;
use crate::sim::{EvKind, Simulator};
use crate::time::Time;
use crate::topo::Network;

/// Partition of the events that read or change the whole fabric (samples, the PFC deadlock
/// watchdog, circuit changes): a parallel engine runs them at a barrier.
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
}

impl Plan {
    /// Cut `net` into `parts` partitions. Errors name `field` (the caller's key).
    pub fn new(net: &Network, parts: u32, field: &str) -> Result<Plan, ConfigError> {
        let n = net.nodes.len();
        let peers = |v: usize| net.nodes[v].ports.iter().map(|&p| net.ports[p as usize].peer as usize);
        // edge switches: those with a host attached, in node order
        let edges: Vec<usize> = (0..n).filter(|&v| !net.nodes[v].is_host && peers(v).any(|u| net.nodes[u].is_host)).collect();
        if parts == 0 || parts as usize > edges.len().max(1) {
            return Err(ConfigError::new(field, format!("must be 1 to {} (the edge switches of this topology)", edges.len().max(1))));
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
            return Err(ConfigError::new(field, "links between partitions have zero delay: no lookahead; use 1"));
        }
        Ok(Plan { parts: parts as u16, of_node, lookahead })
    }

    /// Links (pairs of ports) whose ends lie in different partitions.
    pub fn cut_links(&self, net: &Network) -> usize {
        net.ports.iter().filter(|p| self.of_node[p.node as usize] != self.of_node[p.peer as usize]).count() / 2
    }
}

/// The order of the partitioned schedule, computable by each partition alone: (time, insertion
/// time, the insertion times of the inserting event's `DEPTH - 1` nearest ancestors, epoch,
/// source rank, sequence). `epoch` counts the global events processed before the
/// insertion (they run at barriers), `src` is 0 for global events and arming, 1 + p for partition
/// p, and `seq` counts the source's insertions. On one partition this is the sequential engine's
/// (time, insertion) order, because insertion order sorts by insertion time and, at one insertion
/// time, by epoch and then by the order in which the one partition processed its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    time: Time,
    /// Insertion time, then the insertion times of the inserting event's ancestors.
    sent: [Time; DEPTH],
    epoch: u64,
    src: u16,
    seq: u64,
}

/// A queued or held event with its key; `pkt` is the packet of a `LinkArrive` held on a link
/// between partitions (`NO_PKT` otherwise).
#[derive(Clone, Copy, Debug)]
struct Keyed {
    key: Key,
    ev: Event,
    pkt: PktId,
}

impl PartialEq for Keyed {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Keyed {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

const NO_PKT: PktId = PktId::MAX;

/// Insertion times of an event and its ancestors that its key carries.
const DEPTH: usize = 4;

/// The partitioned schedule's queue (`Scheduler::defer` takes every insertion): events keyed by
/// `Key`, and what crosses partitions held until its window ends.
pub struct Deferral {
    /// Partition of the event being processed (`GLOBAL` while arming and for global events).
    pub current: u16,
    /// Insertion times of the event being processed and its ancestors (its key's `sent`).
    lineage: [Time; DEPTH],
    /// End of the current window (exclusive).
    window_end: Time,
    epoch: u64,
    /// Insertions so far per source rank (0 = global).
    seq: Vec<u64>,
    queue: BinaryHeap<Keyed>,
    held: Vec<Keyed>,
    /// Per port whose link crosses partitions: the key its last arrival would have given the
    /// next packet's arrival (when the link emptied).
    emptied: Vec<Option<Key>>,
    port_node: Vec<u16>,
    port_peer: Vec<u16>,
    flow_src: Vec<u16>,
    host: Vec<u16>,
    /// Insertions for another partition sooner than the window's end: a parallel engine could
    /// not run them (always 0 when the lookahead bounds every cross-partition interaction).
    pub violations: u64,
}

impl Deferral {
    /// Partition that processes an event.
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

    fn rank(&self) -> u16 {
        if self.current == GLOBAL {
            0
        } else {
            self.current + 1
        }
    }

    /// The key of an insertion made now by the current source.
    fn key(&mut self, time: Time, now: Time) -> Key {
        let src = self.rank();
        let seq = self.seq[src as usize];
        self.seq[src as usize] += 1;
        let mut sent = [now; DEPTH];
        sent[1..].copy_from_slice(&self.lineage[..DEPTH - 1]);
        Key { time, sent, epoch: self.epoch, src, seq }
    }

    /// Queue `e` (called by `Scheduler::at`), or hold it if it belongs to another partition.
    pub fn schedule(&mut self, e: Event, now: Time) {
        let key = self.key(e.time, now);
        let to = self.owner(e.kind(), e.id());
        let k = Keyed { key, ev: e, pkt: NO_PKT };
        if self.current != GLOBAL && to != GLOBAL && to != self.current {
            self.hold(k);
        } else {
            self.queue.push(k);
        }
    }

    /// Hold a packet put on a link into another partition (called by `Fabric::start_tx`).
    #[inline]
    pub fn holds_packet(&mut self, now: Time, port: PortId, arrive: Time, pkt: PktId) -> bool {
        if self.current == GLOBAL || self.port_peer[port as usize] == self.current {
            return false;
        }
        let key = self.key(arrive, now);
        self.hold(Keyed { key, ev: Event::new(arrive, EvKind::LinkArrive, port, 0), pkt });
        true
    }

    /// The link of `port` emptied at an arrival: had its next packet been there, that arrival
    /// would have queued the packet's arrival first (called by `Fabric::link_arrive`).
    pub fn link_emptied(&mut self, port: PortId, now: Time) {
        if self.port_node[port as usize] != self.port_peer[port as usize] {
            let key = self.key(0, now);
            self.emptied[port as usize] = Some(key);
        }
    }

    fn hold(&mut self, k: Keyed) {
        if k.ev.time < self.window_end {
            self.violations += 1;
            self.queue.push(k); // kept in the run; counted: a parallel engine could not do this
        } else {
            self.held.push(k);
        }
    }
}

/// What the partitioned run measured: the work of each partition per window and what crossed.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub parts: u16,
    pub lookahead_ps: Time,
    pub cut_links: usize,
    /// Events processed, per partition.
    pub events: Vec<u64>,
    /// Events of the global kinds (samples, watchdog, circuit): each needs a barrier.
    pub global_events: u64,
    /// Windows in which some partition had an event (the barriers a parallel engine needs when it
    /// jumps over empty windows).
    pub windows: u64,
    /// Σ over windows of the busiest partition's events: the critical path in events.
    pub critical_events: u64,
    /// Events and packets handed to another partition.
    pub messages: u64,
    pub violations: u64,
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
/// Refuses (error naming `field`) what the partitioned engine does not cover: flows started by
/// another flow's completion (`after`, closed loops: zero delay between partitions) and circuit
/// switches.
pub fn run_emulated(cfg: &Config, parts: u32, field: &str) -> Result<(Results, Profile), ConfigError> {
    if cfg.flows.iter().any(|f| !f.after.is_empty() || f.closed_loop.is_some()) && parts > 1 {
        return Err(ConfigError::new(
            field,
            "must be 1 for flows started by another's completion (after, closed_loop): they cross partitions with no delay",
        ));
    }
    let sim = Simulator::new(cfg)?;
    if sim.fabric.circuit.is_some() && parts > 1 {
        return Err(ConfigError::new(field, "must be 1 for circuit-switched (rdcn) topologies"));
    }
    let plan = Plan::new(&sim.fabric.net, parts, field)?;
    Ok(sim.run_partitioned(&plan))
}

impl Simulator {
    fn run_partitioned(mut self, plan: &Plan) -> (Results, Profile) {
        let net = &self.fabric.net;
        let deferral = Deferral {
            current: GLOBAL,
            lineage: [0; DEPTH],
            window_end: plan.lookahead,
            epoch: 0,
            seq: vec![0; plan.parts as usize + 1],
            queue: BinaryHeap::new(),
            emptied: vec![None; net.ports.len()],
            port_node: net.ports.iter().map(|p| plan.of_node[p.node as usize]).collect(),
            port_peer: net.ports.iter().map(|p| plan.of_node[p.peer as usize]).collect(),
            flow_src: self.transport.flows.iter().map(|f| plan.of_node[f.info.src as usize]).collect(),
            host: (0..net.n_hosts as usize).map(|h| plan.of_node[h]).collect(),
            held: Vec::new(),
            violations: 0,
        };
        let mut prof = Profile {
            parts: plan.parts,
            lookahead_ps: plan.lookahead,
            cut_links: plan.cut_links(net),
            events: vec![0; plan.parts as usize],
            ..Profile::default()
        };
        self.core.sched.defer = Some(Box::new(deferral));
        let until = self.duration;
        crate::traffic::schedule_starts(&mut self.core, self.transport.flows.iter().map(|f| f.info.start));
        self.telemetry.arm(&mut self.core);
        self.fabric.arm_pfc_watchdog(&mut self.core);
        self.fabric.arm_circuit(&mut self.core);
        let mut in_window = vec![0u64; plan.parts as usize];
        let mut window_end = plan.lookahead;
        loop {
            let horizon = until.min(window_end - 1);
            loop {
                let d = self.core.sched.defer.as_deref_mut().unwrap();
                let Some(k) = d.queue.peek().filter(|k| k.key.time <= horizon).copied() else { break };
                d.queue.pop();
                let ev = k.ev;
                d.current = d.owner(ev.kind(), ev.id());
                d.lineage = k.key.sent;
                match d.current {
                    GLOBAL => {
                        prof.global_events += 1;
                        d.epoch += 1;
                    }
                    p => in_window[p as usize] += 1,
                }
                self.core.sched.now = ev.time;
                self.core.sched.processed += 1;
                if let Some(now) = self.step(ev) {
                    return self.close_partitioned(now, prof, &in_window);
                }
            }
            if window_end > until {
                return self.close_partitioned(until, prof, &in_window);
            }
            tally(&mut prof, &mut in_window);
            self.exchange(window_end.saturating_add(plan.lookahead), &mut prof);
            window_end = window_end.saturating_add(plan.lookahead);
        }
    }

    /// The window ended: queue what crossed partitions with the keys its senders gave it, and
    /// put the held packets on their links. A packet reaching an empty link is keyed as the
    /// sequential engine would have queued its arrival: by its sender if the link had emptied
    /// before it was sent, else by the arrival that emptied the link.
    fn exchange(&mut self, next_end: Time, prof: &mut Profile) {
        let d = self.core.sched.defer.as_deref_mut().unwrap();
        prof.messages += d.held.len() as u64;
        let mut held = std::mem::take(&mut d.held);
        held.sort_by_key(|k| k.key);
        for k in held.drain(..) {
            if k.pkt == NO_PKT {
                d.queue.push(k);
            } else {
                let port = k.ev.id() as usize;
                let p = &mut self.fabric.ports[port];
                if p.link.is_empty() {
                    let key = match d.emptied[port] {
                        Some(e) if e.sent[0] >= k.key.sent[0] => Key { time: k.key.time, ..e },
                        _ => k.key,
                    };
                    d.queue.push(Keyed { key, ev: k.ev, pkt: NO_PKT });
                }
                p.link.push_back((k.ev.time, k.pkt));
            }
        }
        d.held = held;
        d.current = GLOBAL;
        d.window_end = next_end;
    }

    fn close_partitioned(mut self, now: Time, mut prof: Profile, in_window: &[u64]) -> (Results, Profile) {
        let mut w = in_window.to_vec();
        tally(&mut prof, &mut w);
        let d = self.core.sched.defer.take().unwrap();
        prof.violations = d.violations;
        // packets still held are on their links: put them there so in-flight counts match
        for h in d.held.iter().filter(|h| h.pkt != NO_PKT) {
            self.fabric.ports[h.ev.id() as usize].link.push_back((h.ev.time, h.pkt));
        }
        (self.finish(now), prof)
    }
}

/// Add one window's per-partition event counts to the profile and clear them.
fn tally(prof: &mut Profile, in_window: &mut [u64]) {
    let max = in_window.iter().copied().max().unwrap_or(0);
    if in_window.iter().any(|&n| n > 0) {
        prof.windows += 1;
        prof.critical_events += max;
    }
    for (total, n) in prof.events.iter_mut().zip(in_window.iter_mut()) {
        *total += *n;
        *n = 0;
    }
}
