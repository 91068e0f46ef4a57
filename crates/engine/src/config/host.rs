//! The hosts' section (`[host]`): packet sizes, timers and the NIC model.

use serde::{Deserialize, Serialize};

use crate::schema::{Range, Type};

/// The largest header of any kind (data, INT, ACK), bytes.
const MAX_HEADER: f64 = 4096.0;

crate::section! {
    #[derive(Copy)]
    pub struct HostConfig ("host") {
        payload_bytes: u32 = 1000,
            key "payload", Type::Size, Range::closed(1.0, 65535.0),
            "Payload bytes per data packet (MSS).",
            source "the PowerTCP and HPCC artifacts' 1000-B payload";
        header_bytes: u32 = 48,
            key "header", Type::Size, Range::closed(0.0, MAX_HEADER),
            "Header bytes per data packet (without INT or timestamp).",
            source "the artifacts' 48 B (Ethernet, IP, UDP, BTH)";
        int_header_bytes: u32 = 42,
            key "int_header", Type::Size, Range::closed(0.0, MAX_HEADER),
            "Extra header bytes of a data packet whose controller reads INT, when INT is on.",
            source "HPCC's INT header (int-header.cc GetStaticSize, 5 hops)";
        ts_header_bytes: u32 = 0,
            key "ts_header", Type::Size, Range::closed(0.0, MAX_HEADER),
            "Extra header bytes of a data packet whose controller reads a send timestamp (TIMELY, Swift, θ-PowerTCP); 0 = the NIC timestamps in hardware.",
            source "ours: hardware timestamps; the artifact profile sets the study's 8-B TS header";
        ack_bytes: u32 = 60,
            key "ack", Type::Size, Range::closed(1.0, MAX_HEADER),
            "ACK/NACK size on the wire.",
            source "the artifacts' 60-B ACK";
        rto_ps: u64 = 1_000_000_000,
            key "rto", Type::Time, Range::POSITIVE,
            "Retransmission timeout.",
            source "ours: 1 ms (datacenter RTO; Linux's minimum is 200 ms)";
        rto_backoff: bool = true,
            key "rto_backoff", Type::Bool, Range::ANY,
            "Exponential backoff of the retransmission timeout: each consecutive timeout of a flow doubles the next wait (rto, 2·rto, 4·rto, … up to 120 s); an ACK of new data sets it back to rto. false: every timeout waits rto.",
            source "RFC 6298 §5.5; Linux (tcp_retransmit_timer doubles icsk_rto up to TCP_RTO_MAX = 120 s, tcp_ack_update_rtt resets icsk_backoff) and ns-3 (TcpSocketBase doubles m_rto) both back off";
        nack_interval_ps: u64 = 500_000_000,
            key "nack_interval", Type::Time, Range::ANY,
            "Minimum spacing of NACKs for the same expected sequence.",
            source "the ns-3 RDMA NIC's 500 µs (rdma-hw.cc nack_interval)";
        nic: NicModel = NicModel::Tcp,
            key "nic", Type::Choice(&["tcp", "rdma", "rdma-study"]), Range::ANY,
            "The hosts' NIC: tcp (the controller's window alone), rdma (bytes in flight also capped at the flow's NIC rate × τ, the artifact's maxBdp window) or rdma-study (that cap except for DCQCN and TIMELY, as the PowerTCP study runs them).",
            source "ours: tcp (no NIC cap)";
        recovery: Recovery = Recovery::GoBackN,
            key "recovery", Type::Choice(&["go-back-n", "sack"]), Range::ANY,
            "Loss recovery: go-back-n (the receiver drops out-of-order data and NACKs the gap, the sender resends from the first unacknowledged byte, as RDMA NICs do) or sack (the receiver keeps out-of-order data and reports it per ACK, the sender retransmits only the holes: RFC 6675 fast recovery with one window reduction per episode, as Linux TCP does). Receiver-driven (Homa) messages keep their own recovery.",
            source "go-back-n: the evaluated simulators of the catalog's papers (PowerTCP, θ-PowerTCP, HPCC, DCQCN, TIMELY: the HPCC-derived RDMA NIC, rdma-hw.cc; AMP: an ns-3 MPTCP modelled on ns-3's NewReno, without SACK; TBTCP: ns-2, agent not stated; Poseidon: OMNeT++, recovery not stated) and the golden runs; sack: Linux (tcp_sack = 1 by default), which the testbed's --compare sets (docs/testbed.md)";
        prr: bool = true,
            key "prr", Type::Bool, Range::ANY,
            "Under recovery = sack, the laws Linux reduces through tcp_cwnd_reduction (Reno, CUBIC, LIA) step their window down in fast recovery by proportional rate reduction (RFC 6937) as ACKs report deliveries. false: the controller's reduced window holds at once (RFC 6675 alone). Other laws never use it (Linux's cong_control laws); go-back-n recovery has no fast recovery.",
            source "Linux (tcp_cwnd_reduction, net/ipv4/tcp_input.c); RFC 6937";
        linux_window: bool = false,
            key "linux_window", Type::Bool, Range::ANY,
            "A Linux sender's test of whether its window is the limit, on the tcp NIC: every window law counts what Linux would hold in its host queue as in flight (by default only the loss-based laws Reno, CUBIC and LIA do), and in slow start a window also grows while it is below twice the largest flight of the last window (tcp_is_cwnd_limited). A flow limited by its own NIC then grows its window as Linux does. Laws that pace are not affected.",
            source "ours: false (the catalog's simulators have no host queue); Linux (tcp_cwnd_validate, tcp_is_cwnd_limited, tcp_small_queue_check), which the testbed's --compare sets (docs/testbed.md)";
        jitter_ps: u64 = 0,
            key "jitter", Type::Time, Range::ANY,
            "Host timing noise: each packet a host sends reaches the far end of its link an extra uniform random time in [0, jitter) later, in the order sent (seeded by the run's seed). 0 = exact timing. Breaks the phase effects of deterministic senders at a full drop-tail queue.",
            source "ours: 0 (the catalog's simulators time hosts exactly); the remedy of Floyd and Jacobson, On Traffic Phase Effects in Packet-Switched Gateways (1992), a random processing time at the sources";
    }
    rules {}
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NicModel {
    #[default]
    Tcp,
    Rdma,
    /// The RDMA NIC as the PowerTCP study's scripts configure it per controller
    /// (inet-tub/ns3-datacenter examples/PowerTCP/script-burst.sh and script-workload.sh:
    /// `windowCheck=0` for TIMELY and DCQCN, 1 for the others; with 0, `HAS_WIN` and `VAR_WIN`
    /// are off and `RdmaQueuePair::GetWin` returns 0, no window): DCQCN and TIMELY flows have no
    /// cap on bytes in flight, every other controller the `maxBdp` cap of `Rdma`.
    #[serde(rename = "rdma-study")]
    RdmaStudy,
}

/// Loss recovery of the hosts' transport (`host.recovery`; transport/sack.rs).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub enum Recovery {
    /// The receiver NACKs a gap and drops out-of-order data; the sender goes back to snd_una.
    #[default]
    #[serde(rename = "go-back-n")]
    GoBackN,
    /// RFC 6675 SACK-based recovery.
    #[serde(rename = "sack")]
    Sack,
}
