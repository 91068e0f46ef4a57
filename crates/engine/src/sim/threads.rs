//! One run on several OS threads (`[engine] threads`, issue 28 item 2; docs/parallel.md).
//!
//! The schedule is the partitioned one of `partition.rs`, run for real: the network is cut by a
//! `Plan`, each partition has its own `Core` (queue and keys, packet pool, counters) and its own
//! thread; time goes in windows of at most the lookahead L, ending at each global event. In a
//! window every thread handles its partition's events due before the window's end; then all
//! meet at a barrier where the main thread alone
//!
//! 1. hands every outbox (events made for another partition) to its owner's queue — the keys
//!    were fixed when the events were made, so the order of handing over does not matter;
//! 2. moves the packets sent on a cut link (`Fabric::staged`) from the sender's pool into the
//!    receiver's and onto the link (whose arrival events the sender queued, keyed by the
//!    packet's place on the link, as one thread keys them);
//! 3. runs the global events due at the window's end (samples, the PFC watchdog) on its own
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
//! destination, a host's NIC by the host), shared vectors are never resized during a run, and
//! the barrier orders every window's writes before the next window's reads. Debug builds
//! assert that every event a thread handles is owned by its partition.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex, MutexGuard};

use crate::config::{Config, ConfigError};
use crate::core::Core;
use crate::fabric::Fabric;
use crate::footprint::Footprint;
use crate::invariants::Violation;
use crate::nic::Nics;
use crate::packet::{Packet, PacketPool, PktId};
use crate::results::Results;
use crate::sim::order::Order;
use crate::sim::partition::{plan_for, Plan, Route, GLOBAL};
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

/// What the main thread tells the others at a window's start.
struct Control {
    end: AtomicU64,
    quit: AtomicBool,
    barrier: Barrier,
    /// A thread's handler panicked: the main thread ends the run and re-raises it.
    failed: AtomicBool,
}

/// Handle partition `me`'s events of the window ending (exclusively) at `end`.
fn window(core: &mut Core, shared: &Shared, end: Time, me: u16) {
    // SAFETY: one partition's thread, inside a window (module comment).
    let (fabric, nics, tp) = unsafe { shared.layers() };
    while let Some(ev) = core.sched.pop_until(end - 1) {
        debug_assert_eq!(core.sched.route.as_deref().map(|r| r.owner(ev.kind(), ev.id())), Some(me), "an event of another partition");
        dispatch(core, fabric, nics, tp, ev);
    }
}

/// A worker thread: one window per round, until told to quit.
fn worker(core: &Mutex<Core>, shared: &Shared, ctl: &Control, me: u16) {
    loop {
        ctl.barrier.wait();
        if ctl.quit.load(Ordering::Acquire) {
            return;
        }
        let end = ctl.end.load(Ordering::Acquire);
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| window(&mut lock(core), shared, end, me)));
        if ok.is_err() {
            ctl.failed.store(true, Ordering::Release);
        }
        ctl.barrier.wait();
    }
}

fn lock(core: &Mutex<Core>) -> MutexGuard<'_, Core> {
    core.lock().unwrap_or_else(|e| e.into_inner())
}

impl Simulator {
    pub(super) fn run_threaded(mut self, plan: &Plan, stop: &mut dyn FnMut(Time) -> bool) -> Result<(Results, bool, Footprint), Violation> {
        let parts = plan.parts as usize;
        let until = self.duration;
        let (n_ports, n_flows, n_hosts) = (self.fabric.ports.len() as u32, self.transport.flows.len() as u32, self.fabric.net.n_hosts);
        let part = |node: u32| plan.of_node[node as usize] as usize;
        // the cut links: their packets wait for the barrier
        let cut: Vec<(usize, usize, usize)> = (self.fabric.net.ports.iter().enumerate())
            .filter(|(_, p)| part(p.node) != part(p.peer))
            .map(|(i, p)| (i, part(p.node), part(p.peer)))
            .collect();
        for &(i, _, _) in &cut {
            self.fabric.ports[i].cut = true;
        }
        self.fabric.staged = vec![Vec::new(); n_ports as usize];
        let cores: Vec<Mutex<Core>> = (0..parts)
            .map(|p| {
                let mut c = Core::new(self.core.seed, Order::new(n_ports, n_flows, n_hosts));
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
        let ctl =
            Control { end: AtomicU64::new(0), quit: AtomicBool::new(false), barrier: Barrier::new(parts), failed: AtomicBool::new(false) };
        let (ended, done) = std::thread::scope(|s| {
            for (p, core) in cores.iter().enumerate().skip(1) {
                let (shared, ctl) = (&shared, &ctl);
                s.spawn(move || worker(core, shared, ctl, p as u16));
            }
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
                    ctl.end.store(end, Ordering::Release);
                    ctl.barrier.wait();
                    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| window(&mut lock(&cores[0]), &shared, end, 0)));
                    ctl.barrier.wait();
                    if ok.is_err() || ctl.failed.load(Ordering::Acquire) {
                        panic!("a handler of a threaded run panicked (its message is above)");
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
    fn barrier_counted(&mut self, cores: &[Mutex<Core>], cut: &[(usize, usize, usize)]) -> u64 {
        self.barrier(cores, cut);
        self.core.sched.processed + cores.iter().map(|c| lock(c).sched.processed).sum::<u64>()
    }

    /// The barrier: every outbox into its owner's queue, every packet sent on a cut link into
    /// the receiver's pool and onto the link.
    fn barrier(&mut self, cores: &[Mutex<Core>], cut: &[(usize, usize, usize)]) {
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
        for &(i, src, dst) in cut {
            for (t, id) in self.fabric.staged[i].drain(..) {
                let (pkt, int) = (*g[src].pool.get(id), *g[src].pool.int(id));
                g[src].pool.free(id);
                let moved = g[dst].pool.alloc(pkt);
                *g[dst].pool.get_with_int_mut(moved).1 = int;
                self.fabric.ports[i].link.push_back((t, moved));
            }
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
