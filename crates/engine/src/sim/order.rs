//! The canonical order of events (issue 28 item 2; docs/parallel.md has the whole argument).
//!
//! Every event carries a *key* (`Event::key`) beside its time; the queue pops the least
//! (time, key). The key names who made the event and how many events that maker had made before:
//!
//!     key = source entity << SEQ_BITS | the source's own insertion counter
//!
//! The *source* of an insertion is the entity whose event was being handled when it was made:
//!
//! | event being handled                 | source entity   | lives on          |
//! |-------------------------------------|-----------------|-------------------|
//! | none (arming), or a global event    | 1 (`BARRIER`)   | the barrier       |
//! | `TxDone`, `PfcFrame` of port p      | egress port p   | p's node          |
//! | `LinkArrive` of port p              | the far end of p| p's peer node     |
//! | `FlowStart`, `Rto`, `CcTimer` of f  | flow f's sender | f's source host   |
//! | `NicWake` of host h                 | host h          | h                 |
//!
//! Two kinds of event are keyed by what they are for instead, whoever makes them:
//! - a *global* event (sample, PFC watchdog, circuit change; only the barrier makes them) by
//!   entity 0 (`GLOBAL`), the least: at its time it runs before every other event of that time,
//!   which is when a parallel run holds its barrier;
//! - a `LinkArrive` of port p by *the link* p, numbered by the packet on it — (link p, n) for
//!   its n-th packet — whether the sender queued it (the link was empty) or the arrival of the
//!   packet before. A link is a FIFO, so n is the packet's place in it: neither end needs to
//!   know when the other emptied it.
//!
//! Each entity lives on one node, and each node in one partition, so each counter is advanced
//! by one partition only, in the order that partition handles the entity's events. Nothing in a
//! key depends on what other partitions do at the same instant: the order is the same however
//! the network is cut — one thread or many (the induction is in docs/parallel.md).
//!
//! The key is unique: two insertions by one source differ in its counter, and sources differ in
//! the high bits. A counter would wrap after 2^SEQ_BITS ≈ 1.7e10 insertions by one entity (a
//! port would need 17 G packets); the order stays deterministic even then.

use crate::sim::events::{EvKind, KINDS};

/// Bits of an insertion counter in a key; the source entity takes the 30 bits above.
pub const SEQ_BITS: u32 = 34;
/// The entity keying global events (samples, the PFC watchdog, circuit changes).
pub const GLOBAL: u32 = 0;
/// The source of what the arming and global events' handlers insert.
pub const BARRIER: u32 = 1;

/// Which entity handles an event, each entity's insertion counter, and the entity handling the
/// current event.
pub struct Order {
    /// Entity number of id 0 of each kind's handler (`BARRIER` for the global kinds), and the
    /// mask of the id added to it (0 for the global kinds: one entity handles them all).
    handler: [u32; KINDS.len()],
    handler_mask: [u32; KINDS.len()],
    /// Entity number of port 0's link (the keys of `LinkArrive` events).
    link: u32,
    counters: Vec<u64>,
    /// The entity handling the current event, and its counter (written back when the next
    /// event is entered: one load and one store per event, not per insertion).
    src: u32,
    seq: u64,
}

impl Order {
    /// The entities of a network of `ports` egress ports, `flows` flows and `hosts` hosts:
    /// global, barrier, ports, link far ends, flows, hosts, then links (keys of their arrivals).
    pub fn new(ports: u32, flows: u32, hosts: u32) -> Order {
        let (p, f, h) = (ports as u64, flows as u64, hosts as u64);
        let total = 2 + 3 * p + f + h;
        assert!(total <= 1 << (64 - SEQ_BITS), "more than 2^30 event sources ({total})"); // ≥ 2^28 ports: memory fails first
        let (ports_at, far_at, flows_at, hosts_at, links_at) = (2, 2 + p, 2 + 2 * p, 2 + 2 * p + f, 2 + 2 * p + f + h);
        let mut handler = [BARRIER; KINDS.len()];
        let mut handler_mask = [u32::MAX; KINDS.len()];
        for (k, kind) in KINDS.iter().enumerate() {
            handler[k] = match kind {
                EvKind::TxDone | EvKind::PfcFrame => ports_at,
                EvKind::LinkArrive => far_at,
                EvKind::FlowStart | EvKind::Rto | EvKind::CcTimer => flows_at,
                EvKind::NicWake => hosts_at,
                EvKind::Sample | EvKind::PfcWatchdog | EvKind::Circuit => {
                    handler_mask[k] = 0;
                    BARRIER as u64
                }
            } as u32;
        }
        Order { handler, handler_mask, link: links_at as u32, counters: vec![0; total as usize], src: BARRIER, seq: 0 }
    }

    /// The key of an event of `kind` for `id` inserted now. Inlined where `kind` is a constant,
    /// the match leaves one path.
    #[inline(always)]
    pub fn key(&mut self, kind: EvKind, id: u32) -> u64 {
        match kind {
            EvKind::LinkArrive => self.count(self.link + id),
            EvKind::Sample | EvKind::PfcWatchdog | EvKind::Circuit => self.count(GLOBAL),
            _ => {
                let k = (self.src as u64) << SEQ_BITS | (self.seq & SEQ_MASK);
                self.seq += 1;
                k
            }
        }
    }

    /// The key of entity `e`'s next insertion, from its stored counter (events keyed by what
    /// they are for).
    #[inline(always)]
    fn count(&mut self, e: u32) -> u64 {
        let c = &mut self.counters[e as usize];
        let k = (e as u64) << SEQ_BITS | (*c & SEQ_MASK);
        *c += 1;
        k
    }

    /// An event of `kind` for `id` is about to be handled: its entity becomes the source.
    #[inline(always)]
    pub fn enter(&mut self, kind: EvKind, id: u32) {
        self.counters[self.src as usize] = self.seq;
        let k = kind as usize;
        self.src = self.handler[k] + (id & self.handler_mask[k]);
        self.seq = self.counters[self.src as usize];
    }

    /// The insertion counters of every entity, to share them between the queues of a
    /// partitioned run on one core (`sim::partition`).
    pub fn counters_mut(&mut self) -> &mut Vec<u64> {
        &mut self.counters
    }

    /// The entity of a key (tests and diagnostics).
    pub fn entity(key: u64) -> u32 {
        (key >> SEQ_BITS) as u32
    }
}

const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    fn split(key: u64) -> (u32, u64) {
        (Order::entity(key), key & SEQ_MASK)
    }

    #[test]
    fn each_entity_counts_its_own_insertions() {
        let mut o = Order::new(4, 3, 2); // ports at 2.., far ends at 6.., flows at 10.., hosts at 13..
        assert_eq!(split(o.key(EvKind::FlowStart, 0)), (BARRIER, 0), "arming");
        o.enter(EvKind::TxDone, 2);
        assert_eq!(split(o.key(EvKind::TxDone, 2)), (4, 0));
        assert_eq!(split(o.key(EvKind::NicWake, 1)), (4, 1));
        o.enter(EvKind::Rto, 1);
        assert_eq!(split(o.key(EvKind::Rto, 1)), (11, 0));
        o.enter(EvKind::PfcFrame, 2); // port 2 again: its counter resumes
        assert_eq!(split(o.key(EvKind::Rto, 0)), (4, 2));
        o.enter(EvKind::NicWake, 1);
        assert_eq!(split(o.key(EvKind::TxDone, 0)), (14, 0));
        o.enter(EvKind::Sample, 0);
        assert_eq!(split(o.key(EvKind::NicWake, 0)), (BARRIER, 1), "the barrier's second insertion");
    }

    #[test]
    fn global_events_and_link_arrivals_are_keyed_by_what_they_are_for() {
        let mut o = Order::new(4, 3, 2); // links at 15..
        assert_eq!(split(o.key(EvKind::Sample, 0)), (GLOBAL, 0));
        assert_eq!(split(o.key(EvKind::PfcWatchdog, 7)), (GLOBAL, 1), "one entity for all global events");
        o.enter(EvKind::TxDone, 0); // the sender queues packet 0's arrival
        assert_eq!(split(o.key(EvKind::LinkArrive, 0)), (15, 0));
        o.enter(EvKind::LinkArrive, 0); // its arrival queues packet 1's
        assert_eq!(split(o.key(EvKind::LinkArrive, 0)), (15, 1));
        assert_eq!(split(o.key(EvKind::TxDone, 3)), (6, 0), "the far end's own counter is untouched");
        o.enter(EvKind::Sample, 0);
        assert_eq!(split(o.key(EvKind::Sample, 0)), (GLOBAL, 2));
        assert!(o.key(EvKind::Circuit, 0) < o.key(EvKind::NicWake, 0), "global events first at their time");
    }
}
