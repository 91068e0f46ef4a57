//! PFC deadlock watchdog. A PFC fabric deadlocks when paused ports wait on each other in a cycle:
//! port u is paused by the switch at its far end because that switch's ingress from u holds too
//! much, and those bytes sit in an egress queue v of the same switch that is itself paused, and
//! so on back to u. Nothing in the cycle can ever move again. The check runs every
//! `pfc.watchdog_ps`; only ports paused for a whole interval with packets waiting are candidates.

use super::port::Node;
use super::Fabric;
use crate::core::{Core, PortId};
use crate::sim::EvKind;

impl Fabric {
    /// Schedule the first watchdog check (PFC runs with a watchdog interval only).
    pub fn arm_pfc_watchdog(&self, core: &mut Core) {
        if let Some(pfc) = &self.pfc {
            if pfc.cfg.watchdog_ps > 0 {
                core.sched.at(pfc.cfg.watchdog_ps, EvKind::PfcWatchdog, 0, 0);
            }
        }
    }

    /// The watchdog's check: a cycle of waiting ports (in wait order), or None and the next check
    /// scheduled.
    pub fn pfc_deadlock(&self, core: &mut Core) -> Option<Vec<PortId>> {
        let interval = self.pfc.as_ref()?.cfg.watchdog_ps;
        let now = core.sched.now;
        let stuck = |u: PortId| {
            let p = &self.ports[u as usize];
            p.paused != 0 && now - p.paused_since >= interval && p.queue.has_ready(!p.paused) && matches!(p.owner, Node::Switch { .. })
        };
        let candidates: Vec<PortId> = (0..self.ports.len() as PortId).filter(|&u| stuck(u)).collect();
        let mut state = vec![0u8; if candidates.is_empty() { 0 } else { self.ports.len() }]; // 0 new, 1 on path, 2 done
        for &start in &candidates {
            if state[start as usize] != 0 {
                continue;
            }
            // iterative depth-first search keeping the path, to return the cycle itself
            let mut path: Vec<(PortId, Vec<PortId>)> = vec![(start, self.waits_on(core, start, &stuck))];
            state[start as usize] = 1;
            while let Some((_, next)) = path.last_mut() {
                match next.pop() {
                    Some(v) if state[v as usize] == 1 => {
                        let from = path.iter().position(|(u, _)| *u == v).unwrap();
                        return Some(path[from..].iter().map(|(u, _)| *u).collect());
                    }
                    Some(v) if state[v as usize] == 0 => {
                        state[v as usize] = 1;
                        let w = self.waits_on(core, v, &stuck);
                        path.push((v, w));
                    }
                    Some(_) => {}
                    None => {
                        let (u, _) = path.pop().unwrap();
                        state[u as usize] = 2;
                    }
                }
            }
        }
        core.sched.at(now + interval, EvKind::PfcWatchdog, 0, 0);
        None
    }

    /// The stuck egress ports that paused port `u` waits on: egress queues of the switch at u's
    /// far end holding packets that came in from u at a priority u is paused on. Returned in
    /// reverse port order (popped from the end by the search, so visited in port order).
    fn waits_on(&self, core: &Core, u: PortId, stuck: &dyn Fn(PortId) -> bool) -> Vec<PortId> {
        let paused = self.ports[u as usize].paused;
        let q = u ^ 1; // the far switch's port facing u
        let node = self.net.ports[u as usize].peer;
        let mut out: Vec<PortId> = Vec::new();
        for &v in &self.net.nodes[node as usize].ports {
            if !stuck(v) {
                continue;
            }
            let waits = (0..8u8).filter(|&prio| paused & 1 << prio != 0).any(|prio| {
                self.ports[v as usize].queue.iter_prio(prio).any(|pkt| {
                    let p = core.pool.get(pkt);
                    p.ingress == q && p.prio.min(7) == prio
                })
            });
            if waits {
                out.push(v);
            }
        }
        out.reverse();
        out
    }
}
