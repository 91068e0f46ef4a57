//! One run on several OS threads (`[engine] threads`, issue 28 item 2; docs/parallel.md).
//!
//! The schedule is the partitioned one of `partition.rs`, run for real: the network is cut by a
//! `Plan`, each partition has its own `Core` (queue, packet pool, counters) and its own
//! thread; time goes in windows of at most the lookahead L, ending at each global event. In a
//! window every thread handles its partition's events due before the window's end; then all
//! meet at a barrier (`barrier.rs`), after which
//!
//! 1. every thread at once moves the packets sent to its partition on a cut link
//!    (`Fabric::staged`, copied out of the sender's pool as it sent them) into its own pool and
//!    onto the link, whose arrival events the sender queued, as one thread does (`intake`), and
//!    all meet again;
//! 2. the main thread alone hands every outbox (events made for another partition) to its
//!    owner's queue — the queue orders events by what they are (`Event::order`), so the order
//!    of handing over does not matter;
//! 3. and runs the global events due at the window's end (samples, the PFC watchdog) on its own
//!    core, which sees every layer.
//!
//! At the end the queues, counters and pools become one again, so the end-of-run checks and the
//! results are those of one core. By the argument of docs/parallel.md every entity handles the
//! same events in the same order as on one thread, so every result is byte-identical.
//!
//! **The unsafe part** is `Shared`: during a window every thread holds `&mut` to the one
//! `Fabric`, `Nics` and `Transport`. That is sound because each thread touches only the state
//! its partition owns (the ownership table of docs/parallel.md: a port by its node, a link's
//! FIFO by its receiver, a flow's sender half by its source host, its receiver half by its
//! destination, a host's NIC by the host; a cut link's staging by its sender during a window,
//! by its receiver between the window's two barriers), shared vectors are never resized during
//! a run, and the barriers order every window's writes before the next step's reads. Debug builds
//! assert that every event a thread handles is owned by its partition.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::config::{Config, ConfigError};
use crate::core::Core;
use crate::fabric::Fabric;
use crate::footprint::Footprint;
use crate::invariants::Violation;
use crate::nic::Nics;
use crate::packet::{Packet, PacketPool, PktId};
use crate::results::Results;
use crate::sched::Event;
use crate::sim::barrier::SpinBarrier;
use crate::sim::partition::{partition_round, plan_for, window_rounds, Partition, Plan, Round, Route, GLOBAL};
use crate::sim::{dispatch, Simulator, POLL_EVENTS};
use crate::time::Time;
use crate::transport::Transport;

const FIELD: &str = "engine.threads";

/// The cut for `[engine] threads`, or the one line saying why this scenario cannot be cut.
pub(crate) fn plan(cfg: &Config, sim: &Simulator) -> Result<Plan, ConfigError> {
    if sim.core.log.is_some() {
        return Err(ConfigError::new(FIELD, "must be 1 with the debug log ([metrics] log): its lines follow the order of handling"));
    }
    if sim.fabric.capture.is_some() {
        return Err(ConfigError::new(FIELD, "must be 1 with packet capture or the fabric and NIC debug log (metrics.pcap, metrics.log): they record in the order of transmission"));
    }
    plan_for(cfg, sim, cfg.engine.threads, FIELD)
}

/// The layers every thread handles events of (see the module's comment for why this is sound).
struct Shared {
    fabric: *mut Fabric,
    nics: *mut Nics,
    tp: *mut Transport,
}

// SAFETY: the pointers are used only between two barriers, by the thread of one partition, on
// the state that partition owns (module comment); the barrier orders the windows.
unsafe impl Sync for Shared {}

impl Shared {
    /// # Safety
    /// The caller touches only what its partition owns, and only during a window (or alone, at
    /// the barrier).
    #[allow(clippy::mut_from_ref)]
    unsafe fn layers(&self) -> (&mut Fabric, &mut Nics, &mut Transport) {
        (&mut *self.fabric, &mut *self.nics, &mut *self.tp)
    }
}

/// What the main thread tells the others at a round's start, and what they leave it.
struct Control {
    /// The round (`Round`): its kind, and its end time or bound's two halves.
    kind: AtomicU8,
    a: AtomicU64,
    b: AtomicU64,
    quit: AtomicBool,
    barrier: SpinBarrier,
    /// A thread's handler panicked: the main thread ends the run and re-raises it.
    failed: AtomicBool,
    /// `stop_when_done`: each partition's share of the finite flows (`Plan::completions`).
    targets: Vec<u64>,
    /// Where each partition paused in the last `ToTarget` round.
    paused: Vec<Mutex<Option<u128>>>,
    /// Per partition, the cut links it receives on (`intake`).
    incoming: Vec<Vec<usize>>,
}

impl Control {
    fn set_round(&self, r: Round) {
        let (kind, a, b) = match r {
            Round::To(end) => (0, end, 0),
            Round::ToTarget(end) => (1, end, 0),
            Round::Before(bound) => (2, (bound >> 64) as u64, bound as u64),
        };
        self.a.store(a, Ordering::Relaxed);
        self.b.store(b, Ordering::Relaxed);
        self.kind.store(kind, Ordering::Release); // the barrier orders these for the workers
    }

    fn round(&self) -> Round {
        let (a, b) = (self.a.load(Ordering::Relaxed), self.b.load(Ordering::Relaxed));
        match self.kind.load(Ordering::Acquire) {
            0 => Round::To(a),
            1 => Round::ToTarget(a),
            _ => Round::Before((a as u128) << 64 | b as u128),
        }
    }

    /// Partition `me`'s share of the finite flows (no target without `stop_when_done`).
    fn target(&self, me: u16) -> u64 {
        self.targets.get(me as usize).copied().unwrap_or(u64::MAX)
    }
}

/// Partition `me`'s queue and the layers its handlers touch, as a round sees them.
struct ThreadPart<'a> {
    core: &'a mut Core,
    fabric: &'a mut Fabric,
    nics: &'a mut Nics,
    tp: &'a mut Transport,
    #[cfg(debug_assertions)]
    me: u16,
}

impl Partition for ThreadPart<'_> {
    #[inline(always)]
    fn pop_until(&mut self, until: Time) -> Option<Event> {
        self.core.sched.pop_until(until)
    }
    fn pop_before(&mut self, bound: u128) -> Option<Event> {
        self.core.sched.pop_before(bound)
    }
    #[inline(always)]
    fn handle(&mut self, ev: Event) -> u64 {
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            self.core.sched.route.as_deref().map(|r| r.owner(ev.kind(), ev.id())),
            Some(self.me),
            "an event of another partition"
        );
        dispatch(self.core, self.fabric, self.nics, self.tp, ev);
        self.core.stats.flows_completed
    }
}

/// Handle partition `me`'s events of `round` (its share of the finite flows: `target`).
fn window(core: &mut Core, shared: &Shared, round: Round, me: u16, target: u64, paused: &mut Option<u128>) {
    // SAFETY: one partition's thread, inside a window (module comment).
    let (fabric, nics, tp) = unsafe { shared.layers() };
    let completed = core.stats.flows_completed;
    #[cfg(not(debug_assertions))]
    let _ = me;
    let mut part = ThreadPart {
        core,
        fabric,
        nics,
        tp,
        #[cfg(debug_assertions)]
        me,
    };
    partition_round(round, target, completed, paused, &mut part);
}

/// A worker thread: one round per call of the main thread, until told to quit.
fn worker(core: &Mutex<Core>, shared: &Shared, ctl: &Control, me: u16) {
    loop {
        ctl.barrier.wait();
        if ctl.quit.load(Ordering::Acquire) {
            return;
        }
        let round = ctl.round();
        let run = || window(&mut lock(core), shared, round, me, ctl.target(me), &mut lock(&ctl.paused[me as usize]));
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).is_err() {
            ctl.failed.store(true, Ordering::Release);
        }
        ctl.barrier.wait();
        intake(&mut lock(core), shared, &ctl.incoming[me as usize]);
        ctl.barrier.wait();
    }
}

/// After a window, on partition `me`'s thread: the packets sent to it over cut links (`links`,
/// the cut links it receives on) join its pool and their links. Every thread does its own at
/// once; no window runs meanwhile, so no sender writes the staging it drains.
fn intake(core: &mut Core, shared: &Shared, links: &[usize]) {
    // SAFETY: between the window's barrier and the next: this thread touches only the staging
    // and the link FIFO of the cut links its partition receives on (module comment).
    let (fabric, _, _) = unsafe { shared.layers() };
    for &i in links {
        fabric.take_staged(&mut core.pool, i as u32);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Simulator {
    pub(super) fn run_threaded(mut self, plan: &Plan, stop: &mut dyn FnMut(Time) -> bool) -> Result<(Results, bool, Footprint), Violation> {
        let parts = plan.parts as usize;
        let until = self.duration;
        let n_ports = self.fabric.ports.len() as u32;
        let part = |node: u32| plan.of_node[node as usize] as usize;
        // the cut links: their packets wait for the barrier; (port, receiving partition)
        let cut: Vec<(usize, usize)> = (self.fabric.net.ports.iter().enumerate())
            .filter(|(_, p)| part(p.node) != part(p.peer))
            .map(|(i, p)| (i, part(p.peer)))
            .collect();
        let mut incoming = vec![Vec::new(); parts];
        for &(i, dst) in &cut {
            self.fabric.ports[i].cut = true;
            incoming[dst].push(i);
        }
        self.fabric.staged = vec![Vec::new(); n_ports as usize];
        let cores: Vec<Mutex<Core>> = (0..parts)
            .map(|p| {
                let mut c = Core::new(self.core.seed);
                c.sched.route = Some(Box::new(Route::new(plan, &self, p as u16)));
                Mutex::new(c)
            })
            .collect();
        // the barrier's core: the arming and the global events
        self.core.sched.route = Some(Box::new(Route::new(plan, &self, GLOBAL)));
        crate::traffic::schedule_starts(&mut self.core, self.transport.flows.iter().map(|f| f.info.start));
        self.telemetry.arm(&mut self.core);
        self.fabric.arm_pfc_watchdog(&mut self.core);
        self.fabric.arm_circuit(&mut self.core);
        self.barrier(&cores, &cut);

        let shared = Shared { fabric: &mut self.fabric, nics: &mut self.nics, tp: &mut self.transport };
        let ctl = Control {
            kind: AtomicU8::new(0),
            a: AtomicU64::new(0),
            b: AtomicU64::new(0),
            quit: AtomicBool::new(false),
            barrier: SpinBarrier::new(parts),
            failed: AtomicBool::new(false),
            targets: plan.completions.clone(),
            paused: (0..parts).map(|_| Mutex::new(None)).collect(),
            incoming,
        };
        let (ended, done) = std::thread::scope(|s| {
            for (p, core) in cores.iter().enumerate().skip(1) {
                let (shared, ctl) = (&shared, &ctl);
                s.spawn(move || worker(core, shared, ctl, p as u16));
            }
            // one round on every thread: what each partition has completed and where it paused
            let round = |r: Round| {
                ctl.set_round(r);
                ctl.barrier.wait();
                let run = || window(&mut lock(&cores[0]), &shared, r, 0, ctl.target(0), &mut lock(&ctl.paused[0]));
                let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
                ctl.barrier.wait();
                intake(&mut lock(&cores[0]), &shared, &ctl.incoming[0]);
                ctl.barrier.wait();
                if ok.is_err() || ctl.failed.load(Ordering::Acquire) {
                    panic!("a handler of a threaded run panicked (its message is above)");
                }
                let done = (0..parts).map(|p| lock(&cores[p]).stats.flows_completed >= ctl.target(p as u16)).collect();
                (done, ctl.paused.iter().map(|m| *lock(m)).collect())
            };
            let mut start: Time = 0;
            let mut polled = 0u64;
            // a panic of this thread (a handler of partition 0, the barrier's work, or a worker's
            // reported here) must release the workers, who wait at the next window's barrier
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| 'run: loop {
                let global = self.core.sched.next_time();
                // no partition has an event before the earliest one due: the window starts there
                let next = cores.iter().filter_map(|c| lock(c).sched.next_time()).chain(global).min();
                start = start.max(next.unwrap_or(Time::MAX).min(until.saturating_add(1)));
                // the window [start, end): at most one lookahead, ending at the next global event
                let end = start.saturating_add(plan.lookahead).min(global.unwrap_or(Time::MAX)).min(until.saturating_add(1));
                if end > start {
                    if let Some(last) = window_rounds(plan, end, &round) {
                        // stop_when_done: the last flow completed at this event (`window_rounds`)
                        self.barrier(&cores, &cut);
                        break (((last >> 64) as Time), true);
                    }
                }
                // the other threads wait at the barrier: this one is alone with every layer
                let processed = self.barrier_counted(&cores, &cut);
                if end > until {
                    break (until, true);
                }
                if global == Some(end) {
                    while let Some(ev) = self.core.sched.pop_until(end) {
                        if let Some(now) = self.global(ev.kind()) {
                            break 'run (now, true);
                        }
                    }
                    self.barrier(&cores, &cut);
                }
                if processed >= polled + POLL_EVENTS as u64 {
                    polled = processed;
                    if stop(end) {
                        break (end, false);
                    }
                }
                start = end;
            }));
            ctl.quit.store(true, Ordering::Release);
            ctl.barrier.wait();
            outcome.unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        self.barrier(&cores, &cut);
        // one core again, for the end-of-run checks and the results
        let mut pools = Vec::with_capacity(parts);
        for c in cores {
            let c = c.into_inner().unwrap_or_else(|e| e.into_inner());
            self.core.sched.absorb(c.sched);
            self.core.stats.add_counts(&c.stats);
            pools.push(c.pool);
        }
        self.core.sched.route = None;
        self.core.sched.now = ended.min(until);
        self.merge_pools(pools, plan);
        let (r, m) = self.finish(ended)?;
        Ok((r, done, m))
    }

    /// `barrier`, returning the events handled so far (for the stop callback's polling).
    fn barrier_counted(&mut self, cores: &[Mutex<Core>], cut: &[(usize, usize)]) -> u64 {
        self.barrier(cores, cut);
        self.core.sched.processed + cores.iter().map(|c| lock(c).sched.processed).sum::<u64>()
    }

    /// The barrier: every outbox into its owner's queue, every packet sent on a cut link into
    /// the receiver's pool and onto the link.
    fn barrier(&mut self, cores: &[Mutex<Core>], cut: &[(usize, usize)]) {
        let mut g: Vec<MutexGuard<'_, Core>> = cores.iter().map(lock).collect();
        let parts = g.len();
        for from in 0..=parts {
            for to in 0..=parts {
                let q = if from == parts { &mut self.core.sched } else { &mut g[from].sched };
                let mut out = std::mem::take(q.route.as_deref_mut().expect("a routed queue").outbox_mut(to));
                if out.is_empty() {
                    continue;
                }
                let dst = if to == parts { &mut self.core.sched } else { &mut g[to].sched };
                for e in out.drain(..) {
                    dst.place(e);
                }
                let q = if from == parts { &mut self.core.sched } else { &mut g[from].sched };
                *q.route.as_deref_mut().unwrap().outbox_mut(to) = out; // keeps its capacity
            }
        }
        // (after a window the receivers' threads have done this already: see `intake`)
        for &(i, dst) in cut {
            self.fabric.take_staged(&mut g[dst].pool, i as u32);
        }
    }

    /// The partitions' pools into one: every packet a queue or link holds moves to the core's
    /// pool (a queue's packets are its port's partition's, a cut link's its receiver's). A
    /// packet no one holds (a leak) is kept as a placeholder, so the packet-pool check sees it.
    fn merge_pools(&mut self, mut pools: Vec<PacketPool>, plan: &Plan) {
        let mut all = std::mem::take(&mut self.core.pool);
        let net = &self.fabric.net;
        let mut move_one = |from: &mut PacketPool, id: &mut PktId| {
            let (pkt, int) = (*from.get(*id), *from.int(*id));
            from.free(*id);
            let moved = all.alloc(pkt);
            *all.get_with_int_mut(moved).1 = int;
            *id = moved;
        };
        for (i, p) in self.fabric.ports.iter_mut().enumerate() {
            let own = plan.of_node[net.ports[i].node as usize] as usize;
            let recv = if p.cut { plan.of_node[net.ports[i].peer as usize] as usize } else { own };
            for id in p.queue.ids_mut() {
                move_one(&mut pools[own], id);
            }
            for e in p.link.iter_mut() {
                move_one(&mut pools[recv], &mut e.1);
            }
            p.cut = false;
        }
        for p in &pools {
            for _ in 0..p.live() {
                all.alloc(Packet::empty());
            }
        }
        self.core.pool = all;
    }
}
