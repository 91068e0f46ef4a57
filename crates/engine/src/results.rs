//! What a run produces: counters and columnar tables (one Vec per column).

use crate::time::Time;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub sim_time_ps: Time,
    pub events: u64,
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub packets_dropped: u64,
    pub packets_in_flight: u64,
    pub data_packets_sent: u64,
    pub data_packets_delivered: u64,
    pub data_packets_dropped: u64,
    pub packet_hops: u64,
    pub bytes_delivered: u64,
    pub base_rtt_ps: Time,
    pub flows_completed: u64,
    /// PFC: PAUSE and RESUME frames sent, and total time ports spent paused (ps, pauses still on
    /// at the end counted up to it).
    pub pfc_pause_frames: u64,
    pub pfc_resume_frames: u64,
    pub pfc_paused_ps: u64,
    /// PFC: packets the lossless buffer could not hold (headroom or pool exhausted), the only
    /// drops a PFC fabric may have; 0 without PFC.
    pub pfc_overflow_drops: u64,
    /// When the PFC watchdog found a deadlock and ended the run (ps); 0 = none.
    pub pfc_deadlock_at_ps: u64,
    /// Packets on captured ports beyond `metrics.pcap_max` (not recorded).
    pub capture_overflow: u64,
}

impl Summary {
    /// Add the counters the handlers advance (`Core::stats`) of another partition of a threaded
    /// run; the fields set at the end of a run are left to it.
    pub fn add_counts(&mut self, o: &Summary) {
        let Summary {
            packets_sent,
            packets_delivered,
            packets_dropped,
            data_packets_sent,
            data_packets_delivered,
            data_packets_dropped,
            packet_hops,
            bytes_delivered,
            flows_completed,
            // set by `Telemetry::finish`, not by handlers
            sim_time_ps: _,
            events: _,
            packets_in_flight: _,
            base_rtt_ps: _,
            pfc_pause_frames: _,
            pfc_resume_frames: _,
            pfc_paused_ps: _,
            pfc_overflow_drops: _,
            pfc_deadlock_at_ps: _,
            capture_overflow: _,
        } = o;
        self.packets_sent += packets_sent;
        self.packets_delivered += packets_delivered;
        self.packets_dropped += packets_dropped;
        self.data_packets_sent += data_packets_sent;
        self.data_packets_delivered += data_packets_delivered;
        self.data_packets_dropped += data_packets_dropped;
        self.packet_hops += packet_hops;
        self.bytes_delivered += bytes_delivered;
        self.flows_completed += flows_completed;
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowTable {
    pub flow_id: Vec<u32>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// -1 for long-lived flows.
    pub size_bytes: Vec<i64>,
    pub start_ps: Vec<i64>,
    /// -1 when unfinished.
    pub end_ps: Vec<i64>,
    pub bytes_acked: Vec<u64>,
    pub base_rtt_ps: Vec<i64>,
    /// -1 for long-lived flows.
    pub ideal_fct_ps: Vec<i64>,
    /// The artifact's ideal FCT (pair RTT of a payload-sized packet + payload and headers without
    /// INT at the slowest rate); -1 for long-lived flows.
    pub ideal_fct_artifact_ps: Vec<i64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    /// The scenario flow (multipath connection) this record belongs to; for a single-path flow
    /// its own index in the scenario's flow list.
    pub connection: Vec<u32>,
    /// Subflow number within the connection (0 for a single-path flow). A multipath connection
    /// has one record per subflow: `size_bytes`, `end_ps` and the ideal FCT are the connection's,
    /// `bytes_acked`, `retransmits` and `timeouts` the subflow's.
    pub subflow: Vec<u32>,
    /// Bytes the receiver delivered in order: for a subflow, its connection's reassembled bytes.
    pub delivered_bytes: Vec<u64>,
    /// AMP suppression episodes of the connection (on subflow 0's record; 0 elsewhere).
    pub suppressions: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortTable {
    pub port: Vec<u32>,
    pub name: Vec<String>,
    pub rate_bps: Vec<u64>,
}

/// Packets captured at the start of their transmission on chosen ports (`metrics.pcap`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub flow_id: Vec<u32>,
    /// 0 data, 1 ACK, 2 NACK.
    pub kind: Vec<u8>,
    /// Data: first payload byte; ACK/NACK: the acknowledged (expected) sequence.
    pub seq: Vec<u64>,
    /// Bytes on the wire.
    pub size_bytes: Vec<u32>,
    pub payload_bytes: Vec<u32>,
    pub prio: Vec<u8>,
    /// IP ECN codepoint of data packets: 0 not ECT, 2 ECT(0), 3 CE (0 for ACKs and NACKs).
    pub ecn: Vec<u8>,
    /// INT records the packet carries (data: stamped by the switches so far; ACK: echoed).
    pub int_hops: Vec<u8>,
    /// ACK/NACK: 1 when it echoes congestion (the transport's ECN echo, TCP's ECE); 0 for data.
    pub ece: Vec<u8>,
}

/// The INT records of captured packets: one row per (captured packet, hop).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketIntTable {
    /// Row of the packet in `PacketTable`.
    pub packet: Vec<u32>,
    pub hop: Vec<u8>,
    pub qlen_bytes: Vec<u64>,
    pub tx_bytes: Vec<u64>,
    pub ts_ps: Vec<u64>,
    pub rate_bps: Vec<u64>,
}

/// PFC activity per port (only ports that sent a frame or were paused).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PfcTable {
    pub port: Vec<u32>,
    pub name: Vec<String>,
    pub pauses_sent: Vec<u64>,
    pub resumes_sent: Vec<u64>,
    pub paused_ps: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortSeries {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    pub tx_bytes: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSeries {
    pub time_ps: Vec<u64>,
    pub flow_id: Vec<u32>,
    pub cwnd_bytes: Vec<f64>,
    pub rate_bps: Vec<f64>,
    pub bytes_acked: Vec<u64>,
}

/// Controllers' internal variables over time (`[metrics] trace`, telemetry/trace.rs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub time_ps: Vec<u64>,
    pub flow_id: Vec<u32>,
    /// Index into `names`.
    pub variable: Vec<u16>,
    pub value: Vec<f64>,
    /// The variables' names, in order of first appearance.
    pub names: Vec<&'static str>,
}

impl Trace {
    /// The index of variable `name` (a controller reports a handful: a linear search).
    pub fn intern(&mut self, name: &'static str) -> u16 {
        match self.names.iter().position(|n| *n == name) {
            Some(i) => i as u16,
            None => {
                self.names.push(name);
                (self.names.len() - 1) as u16
            }
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub summary: Summary,
    pub flows: FlowTable,
    pub ports: PortTable,
    pub port_series: PortSeries,
    pub flow_series: FlowSeries,
    pub trace: Trace,
    pub pfc: PfcTable,
    pub packets: PacketTable,
    pub packet_int: PacketIntTable,
    /// Names of the ports of a PFC deadlock cycle, in wait order (empty = none).
    pub pfc_deadlock: Vec<String>,
    /// The ToRs' VOQ byte counters of an rdcn topology (all zero otherwise).
    pub voq: crate::fabric::circuit::VoqCounters,
    /// The debug log's lines (`[metrics] log`, telemetry/log.rs; empty = off).
    pub log: String,
}
