//! Packet capture: a record of every packet that starts transmission on chosen egress ports,
//! bounded by a maximum count (later packets are counted, not kept). The fabric calls `on_tx`
//! from `start_tx` only when a capture is configured; the Python front writes the records as
//! Parquet and as a pcap file (docs/results.md).

use super::log_events::EventLog;
use crate::core::PortId;
use crate::packet::{IntStack, Kind, Packet, PktId};
use crate::results::{PacketIntTable, PacketTable};
use crate::time::Time;

pub struct Capture {
    /// Per port: captured or not.
    on: Vec<bool>,
    max: usize,
    pub table: PacketTable,
    /// The INT records each captured packet carried so far, one row per (packet, hop).
    pub int: PacketIntTable,
    /// Packets on captured ports beyond `max`.
    pub overflow: u64,
    /// The debug log's `fabric` and `nic` events (`log_events.rs`): this tap is where the fabric
    /// already checks for an observer on every transmission, so they cost no further check.
    pub log: Option<Box<EventLog>>,
}

impl Capture {
    pub fn new(ports: usize, captured: &[PortId], max: usize) -> Self {
        let mut on = vec![false; ports];
        for &p in captured {
            on[p as usize] = true;
        }
        Capture { on, max, table: PacketTable::default(), int: PacketIntTable::default(), overflow: 0, log: None }
    }

    /// `p` (packet `pkt`, with its INT stack) starts serialisation on `port` at `now`, leaving
    /// `qlen` bytes in the port's queue.
    #[inline]
    pub fn on_tx(&mut self, now: Time, port: PortId, pkt: PktId, p: &Packet, int: &IntStack, qlen: u64) {
        if let Some(l) = &mut self.log {
            l.tx(now, port, pkt, p, qlen);
        }
        if !self.on[port as usize] {
            return;
        }
        if self.table.time_ps.len() >= self.max {
            self.overflow += 1;
            return;
        }
        let index = self.table.time_ps.len() as u32;
        for (hop, h) in int[..p.n_hops as usize].iter().enumerate() {
            let r = &mut self.int;
            r.packet.push(index);
            r.hop.push(hop as u8);
            r.qlen_bytes.push(h.qlen);
            r.tx_bytes.push(h.tx_bytes);
            r.ts_ps.push(h.ts);
            r.rate_bps.push(h.rate_bps);
        }
        let t = &mut self.table;
        t.time_ps.push(now);
        t.int_hops.push(p.n_hops);
        t.port.push(port);
        t.flow_id.push(p.flow);
        t.kind.push(match p.kind {
            Kind::Data => 0,
            Kind::Ack => 1,
            Kind::Nack => 2,
        });
        t.seq.push(p.seq);
        t.size_bytes.push(p.size);
        t.payload_bytes.push(p.payload as u32);
        t.prio.push(p.prio);
        // IP codepoints of data: ECT(0), CE; an ACK's `ce` is the transport's echo, not IP ECN
        let data = p.kind == Kind::Data;
        t.ecn.push(if data && p.ce {
            3
        } else if data && p.ect {
            2
        } else {
            0
        });
        t.ece.push(u8::from(!data && p.ce));
    }
}
